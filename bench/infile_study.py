"""The right file, the wrong chunk: where the chunk that holds an answer's missing keyword ranks in its file.

    PYTHONHASHSEED=0 .venv/bin/python bench/infile_study.py RESULT.json CORPUS QUESTIONS.jsonl [...] [--all]

RESULT.json is a bench/answer_quality.py result for the same question files. Rows studied: answered
in-scope questions that cite a relevant file, whose answer lacks a keyword and whose top-5 passages lack
one too (`passages_keywords` false), while the cited relevant file holds it (`--all`: every answered
in-scope row citing a relevant file, to see how often the signal would pick a chunk without need).

For each such row the search is run again (the answer's search query, as the engine: top 5 and the
reserve, ranks 6-10), and every chunk of the cited relevant file not among the top 5 is scored by:
its dense cosine to the query (`dense`), its BM25 score (`bm25`, 0 when the keyword search does not
return it in its first 400), the best stored unit vector's cosine to the query (`sent`: sentences, list
items, code gists; `SentenceVectors`), the mean of its best two (`sent2`), and the share of the
question's content terms in its heading path (`head`). Printed: the keyword chunk's rank among those
chunks by each signal (1 = it would be the file's pick), whether it is in the reserve already, whether
the relevant file is the first passage's, and the file's size. Then, per signal, how many rows have
the keyword chunk at rank 1, 2, 3 or further; and for rows whose keyword chunk is not in the reserve,
its rank among the file's chunks neither among the passages nor in the reserve (what an in-file pick
chooses from).

Findings (Nov 2026, MiniLM, base main 1c1ccca with PYTHONPATH=<base>/src; the tuned sets: reader --split
tune, train all, dev2 all, dev5..dev10 their tuned halves; 69 rows, 67 with every missing keyword of a
row in some chunk of the cited relevant file outside the top 5). The files are long: 15-78 chunks. The
keyword chunk is in the reserve (ranks 6-10) already for 19 of the 67 (the writer had it and quoted
something else); the relevant file is the first passage's for 38. The keyword chunk's rank in its file
(67 rows) and, for the 48 not in the reserve, among the file's unretrieved chunks:

    signal                                  rank 1   2    3    4+     unretrieved: 1   2    3    4+
    dense cosine of the chunk (`dense`)        25    11   6    25                  17   6    4    21
    BM25 (`bm25`)                               8     9   4    46                   7   5    6    30
    RRF of the two within the file (`fused`)   15    11  11    30                  14   8    8    18
    best unit vector's cosine (`sent`)         14    10   7    36                  11   6    6    25
    mean of the best two units (`sent2`)       14     6   9    38                  12   6    5    25
    question terms in the headings (`head`)     6     5   5    51                   4   3    3    38
    dense + best unit (`mix`)                  16    16   8    27                  15   9    6    18

The chunk's own dense cosine is the best single signal, and cheap (the chunk vectors are in memory);
the stored unit vectors do no better (list items carry their meaning in their lead-in and heading) and
the headings little. Kept in src/ (`retrieval.IN_FILE_FILES`, `LanceDBIndex.nearest_in_files`): the
first passage's file's nearest unretrieved chunk by dense cosine, past the similarity threshold, joins
the writer's reserve (the decision's inputs unchanged). End to end (bench/answer_quality.py on every
tuned set, the base by PYTHONPATH; in-scope answers with every keyword of 631): one chunk of the first
file 392 -> 397 (+5 -0; 78 answers' text changed), two chunks of it 398 (+6 -0; 116 changed), the
first two files' one each 397 (+5 -0; 121 changed), three files' (tune and train only) +1 -0 (train's
td-in-01 not gained). Cited files, near-miss refusals and follow-ups unchanged in every arm. Of the 69
rows, one chunk of the first file brings every keyword into the passages or reserve for 9 more, and
the writer quotes it for 4 of them; the fifth gain (d5d-in-05) had its keyword in the passages, and
the new reserve chunk moved the writer's choice onto it. Cost (bench/callgrind_answers.py, the first 20
train-textbook-a questions, --query-cache 4096): 10.43 -> 10.90 M instructions an answer; the lookup
alone ~55 us (`Retriever._in_file`, thread time); bench/stage_cpu.py alternated at load 3.4-3.9 moved
more from run to run (totals base 7.6-9.0 ms, after 6.7-10.3) than this.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

from common import build
from lectern.models import Chunk
from lectern.writers.units import stem_terms

SIGNALS = ("dense", "bm25", "fused", "sent", "sent2", "head", "mix")


def target(row: dict[str, Any], every: bool) -> bool:
    if row["kind"] != "in_scope" or not row["answered"] or not row["relevant_cited"]:
        return False
    return every or (not row["has_keywords"] and not row["passages_keywords"])


def scores_of(
    chunks: list[Chunk], qv: np.ndarray, bm25: dict[str, float], qterms: frozenset[str], engine: Any
) -> dict[str, list[float]]:
    r = engine.retriever
    dense = r.embedder.embed_documents([c.search_text for c in chunks])
    units = r.sentences.of(chunks)
    out: dict[str, list[float]] = {s: [] for s in SIGNALS}
    for c, v, (_, m) in zip(chunks, dense, units, strict=True):
        out["dense"].append(float(np.asarray(v) @ qv))
        out["bm25"].append(bm25.get(c.content_hash, 0.0))
        sims = sorted((m @ qv).tolist(), reverse=True) if len(m) else [0.0]
        out["sent"].append(sims[0])
        out["sent2"].append(float(np.mean(sims[:2])))
        head = stem_terms(" ".join(c.heading_hierarchy))
        out["head"].append(len(head & qterms) / max(1, len(qterms)))
    # within the file: RRF (k=60) of the dense and BM25 orders, as the index fuses them globally
    fused = np.zeros(len(chunks))
    for s in ("dense", "bm25"):
        for rank, i in enumerate(np.argsort(-np.asarray(out[s]), kind="stable"), start=1):
            fused[i] += 1.0 / (60 + rank)
    out["fused"] = fused.tolist()
    out["mix"] = [d + s for d, s in zip(out["dense"], out["sent"], strict=True)]
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("result")
    parser.add_argument("pairs", nargs="+")
    parser.add_argument("--all", action="store_true")
    args = parser.parse_args()
    result = json.loads(Path(args.result).read_text())
    pairs = list(zip(args.pairs[::2], args.pairs[1::2], strict=True))
    firsts: dict[str, Counter[int]] = {s: Counter() for s in SIGNALS}
    outside: dict[str, Counter[int]] = {s: Counter() for s in SIGNALS}
    summary: Counter[str] = Counter()
    for corpus, questions in pairs:
        rows = [r for r in result["rows"].get(Path(questions).stem, []) if target(r, args.all)]
        if not rows:
            continue
        engine, _, _ = build(Path(corpus))
        r = engine.retriever
        for row in rows:
            q = row["search_query"]
            found = r.retrieve_sync(r.params(q, top_k=5))
            qv = found.query_vector()
            top, reserve = found.hits, found.reserve
            text = row["text"].lower()
            missing = [k.lower() for k in row["keywords"] if k.lower() not in text] or [
                k.lower() for k in row["keywords"]
            ]
            files = [f for f in row["sources"] if f in row["expected"]]
            held = {h.chunk.content_hash for h in top}
            # the pool the in-file pick chooses from: neither a passage nor in the reserve
            retrieved = held | {h.chunk.content_hash for h in reserve}
            kw = r.index.search(vector=None, text=q, mode="keyword", top_k=400)
            bm25 = {h.chunk.content_hash: float(h.keyword_score or 0.0) for h in kw}
            qterms = stem_terms(q)
            for path in files:
                chunks = [c for c in r.index.chunks_of(path) if c.content_hash not in held]
                if not chunks:
                    continue
                have = [sum(k in c.text.lower() for k in missing) for c in chunks]
                if max(have) == 0:
                    continue
                good = {i for i, n in enumerate(have) if n == max(have)}
                in_reserve = any(
                    h.chunk.content_hash in {chunks[i].content_hash for i in good} for h in reserve
                )
                sc = scores_of(chunks, qv, bm25, qterms, engine)
                ranks = {}
                pool = [i for i, c in enumerate(chunks) if c.content_hash not in retrieved]
                for s in SIGNALS:
                    order = np.argsort(-np.asarray(sc[s]), kind="stable")
                    rank = min(int(np.where(order == i)[0][0]) + 1 for i in good)
                    ranks[s] = rank
                    firsts[s][min(rank, 4)] += 1
                    if not in_reserve:
                        # its rank among the chunks the pick chooses from
                        left = [i for i in order.tolist() if i in pool]
                        outside[s][min(min(left.index(i) + 1 for i in good if i in pool), 4)] += 1
                first_file = top[0].chunk.source_path == path if top else False
                top_files = sum(h.chunk.source_path == path for h in top)
                summary["rows"] += 1
                summary["in reserve"] += in_reserve
                summary["first passage's file"] += first_file
                summary["all missing in one chunk"] += max(have) == len(missing)
                print(
                    f"{row['id']:12} {len(chunks) + top_files:3} chunks ({top_files} in top5, "
                    f"first={'y' if first_file else 'n'}) reserve={'y' if in_reserve else 'n'} "
                    + " ".join(f"{s}={ranks[s]}" for s in SIGNALS)
                    + f"  {missing}  {row['question'][:70]!r}"
                )
                break
    print(dict(summary))
    for s in SIGNALS:
        c = firsts[s]
        o = outside[s]
        print(
            f"{s:6} rank 1: {c[1]:3}  rank 2: {c[2]:3}  rank 3: {c[3]:3}  4+: {c[4]:3}   "
            f"(not in the reserve, among the unretrieved: {o[1]:3} {o[2]:3} {o[3]:3} {o[4]:3})"
        )


if __name__ == "__main__":
    main()
