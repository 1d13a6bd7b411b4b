"""The `table` and `diff` commands the development-round studies share (bench/dev9_study.py,
bench/dev10_study.py): per set and pooled figures from bench/answer_quality.py's result files, and the
rows that differ between two runs.

    PYTHONHASHSEED=0 .venv/bin/python bench/dev10_study.py table PREFIX SET:SPLIT [SET:SPLIT ...]
    PYTHONHASHSEED=0 .venv/bin/python bench/dev10_study.py diff BEFORE AFTER SET:SPLIT [SET:SPLIT ...]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).resolve().parent / "results"
ANSWERABLE = ("in_scope", "followup")


def _rows(prefix: str, spec: str) -> list[dict[str, Any]]:
    name, split = spec.split(":")
    data = json.loads((RESULTS / f"{prefix}-{name}-{split}.json").read_text(encoding="utf-8"))
    return [row for rows in data["rows"].values() for row in rows]


def _share(rows: list[dict[str, Any]], test: Any) -> float | None:
    return sum(1 for r in rows if test(r)) / len(rows) if rows else None


def _auroc(positive: list[float], negative: list[float]) -> float | None:
    if not positive or not negative:
        return None
    wins = sum(1.0 if p > n else 0.5 if p == n else 0.0 for p in positive for n in negative)
    return wins / (len(positive) * len(negative))


def _figures(rows: list[dict[str, Any]]) -> list[float | None]:
    kind = {
        k: [r for r in rows if r["kind"] == k] for k in ("in_scope", "followup", "near_miss", "out_of_scope")
    }

    def answered(k: str) -> list[dict[str, Any]]:
        return [r for r in kind[k] if r["answered"]]

    answerable = kind["in_scope"] + kind["followup"]
    unanswerable = kind["near_miss"] + kind["out_of_scope"]
    return [
        _share(kind["in_scope"], lambda r: r["answered"] and r["relevant_cited"]),
        _share(answered("in_scope"), lambda r: r["has_keywords"]),
        _share(kind["followup"], lambda r: r["answered"] and r["relevant_cited"]),
        _share(answered("followup"), lambda r: r["has_keywords"]),
        _share(kind["near_miss"], lambda r: not r["answered"]),
        _share(kind["out_of_scope"], lambda r: not r["answered"]),
        _auroc([r["score"] for r in answerable], [r["score"] for r in unanswerable])
        if kind["in_scope"]
        else None,
    ]


def table(prefix: str, specs: list[str]) -> None:
    heads = ("cited", "kw", "fuCit", "fuKw", "NMref", "OOSref", "AUROC")
    print(f"{'set':28s} " + " ".join(f"{h:>6s}" for h in heads))
    pooled: list[dict[str, Any]] = []
    for spec in [*specs, "POOLED"]:
        rows = pooled if spec == "POOLED" else _rows(prefix, spec)
        if spec != "POOLED":
            pooled += rows
        cells = " ".join("   -  " if v is None else f"{100 * v:5.1f}%" for v in _figures(rows))
        print(f"{spec:28s} {cells}")


def _goodness(row: dict[str, Any]) -> float:
    if row["kind"] in ANSWERABLE:
        return float(row["answered"] and row["relevant_cited"]) + 0.5 * float(
            row["answered"] and row["has_keywords"]
        )
    return float(not row["answered"])


def diff(before: str, after: str, specs: list[str]) -> None:
    keys = ("answered", "relevant_cited", "has_keywords", "search_query")
    counts = {"better": 0, "worse": 0, "same": 0}
    for spec in specs:
        then = {r["id"]: r for r in _rows(before, spec)}
        for row in _rows(after, spec):
            old = then[row["id"]]
            if all(old[k] == row[k] for k in keys):
                continue
            change = _goodness(row) - _goodness(old)
            mark = "better" if change > 0 else "worse" if change < 0 else "same"
            counts[mark] += 1
            print(f"{mark:6s} {spec} {row['id']}: {old['search_query']!r} -> {row['search_query']!r}")
    print(counts)


def main(description: str | None = __doc__) -> None:
    parser = argparse.ArgumentParser(
        description=description, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="command", required=True)
    t = sub.add_parser("table")
    t.add_argument("prefix")
    t.add_argument("sets", nargs="+")
    d = sub.add_parser("diff")
    d.add_argument("before")
    d.add_argument("after")
    d.add_argument("sets", nargs="+")
    args = parser.parse_args()
    if args.command == "table":
        table(args.prefix, args.sets)
    else:
        diff(args.before, args.after, args.sets)
