"""Does the in-process keyword index rank as LanceDB's FTS index does? Per question, the top-N
keyword candidates of both (row ids) as a search takes them (equal scores in content hash order,
`lectern.index.fusion.best_first`), compared: identical lists, same sets, rank differences.

    uv run python bench/keyword_parity.py INDEX_DIR QUESTIONS.jsonl [...] [--depth 40]

INDEX_DIR is a quality bench's ingested index (e.g. bench/results/index/textbook-a).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from lectern.index.fusion import best_first
from lectern.index.lancedb_index import LanceDBIndex, _collect, _keywords_now


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("index", type=Path)
    parser.add_argument("questions", type=Path, nargs="+")
    parser.add_argument("--depth", type=int, default=40)
    args = parser.parse_args()
    root = args.index / "index" / "lancedb"
    import lancedb

    name = lancedb.connect(root).list_tables().tables[0]
    index = LanceDBIndex(root, name)
    table = index._open()
    layout = index._layout(table, table.version)
    snapshot = index._snapshots.get(table, layout.version, layout.columns, index._fits_in_memory)
    assert snapshot is not None
    cpu = time.process_time()
    keywords = index._keyword_index(snapshot)
    built_ms = (time.process_time() - cpu) * 1000
    assert keywords is not None, "the table's FTS index does not qualify"
    questions = []
    for path in args.questions:
        for line in path.read_text().splitlines():
            q = json.loads(line)
            questions.append(str(q.get("question") or q.get("text") or q["turns"][0]))
    same = same_set = 0
    moved: list[int] = []
    for q in questions:
        found = index._keyed(table, snapshot, _collect(_keywords_now(table, q, None, args.depth)))
        theirs = [r for _, r, _ in best_first(found)[: args.depth]]
        ours = [int(snapshot.row_ids[p]) for p, _ in keywords.top(q, args.depth, snapshot.tie_order)]
        same += theirs == ours
        same_set += set(theirs) == set(ours)
        moved.extend(abs(i - ours.index(r)) for i, r in enumerate(theirs) if r in ours and ours[i] != r)
    print(
        f"{args.index.name} ({len(snapshot.hashes)} rows, built in {built_ms:.0f} ms CPU): "
        f"{len(questions)} questions, identical top-{args.depth} {same}, same set {same_set}, "
        f"rows at another rank {len(moved)} (max shift {max(moved, default=0)})"
    )


if __name__ == "__main__":
    main()
