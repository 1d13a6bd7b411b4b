"""Retrieval-side study: how often the top 5 hold a relevant file and the answer keywords, for ranking
variants of the fused candidates (no writer, no answerability: the retrieval alone).

    .venv/bin/python bench/rerank_study.py gather OUT.pkl CORPUS QUESTIONS.jsonl [...] --split all
    .venv/bin/python bench/rerank_study.py score OUT.pkl

`gather` asks the index for a deep fused list per in-scope question and stores, per candidate, the
features a re-ranker could use (fused score, chunk cosine, BM25, sentence cosines, heading overlap,
length) and the targets (relevant file, which answer keywords its text holds). `score` replays
ranking variants on them.

Findings (Nov 2026, MiniLM; train = training sets --split all, tune = reader sets --split tune): in this
replay, demoting quizzes/exercises/summaries (x0.9-0.95) with a little heading overlap raises "every
keyword in the top 5" (train 77.6 -> 80.4 %, tune 73 -> 77-78 %), while the best sentence's cosine and
the top-two sentences' mean do not help on their own (sentence vectors exist only for prose sentences:
list items, table rows and code are zero rows, and the keyword often sits in a list or table). None of
it carried over to the answers in the full bench (bench/answer_quality.py): demotion x0.95 / x0.9, the
sentence cosine x0.1-0.5, the heading overlap x0.05-0.2, deeper fused lists (40 -> 60-120 per side)
and handing the writer 7-10 passages instead of 5 each left answers with every keyword flat or lower
(the writer's sentence choice leans on the passage order it was tuned with).

Second pass (Nov 2026, branch `retrieval`, replayed from the engine's own pool: top_k=5 asks for 10 fused
hits, then the 0.30 threshold; the replay reproduces the bench, tune 73/100 and train 170/219 with every
keyword in the top 5). Ceilings: the best 5 of those 10 would hold every keyword for 84/100 tune and
177/219 train questions; the best 5 of the top 20 for 87 and 190. Sentence cosines lose at every weight
(the best sentence alone: tune 61, train 141; mixed 0.3 with the chunk cosine: 74 / 156; as a third RRF
list: at most the base; on prose chunks only: +-1). RRF k 1-100, dense weight 0.7-1.6 and convex score
mixes move +-2; file-level and next-chunk boosts lose (a top-3 hit's neighbour would complete at most 3
tune / 5 train questions); a logistic re-ranker fitted on train gains tune +5 but nothing leave-one-book-out
on train. Chunks never exceed the embedder's window (4,221 candidates, none over 254 tokens), so no answer
hides past a truncated embedding. Two changes move the passages, measured end to end
(bench/answer_quality.py, answer counts): quizzes ranked at x0.9 of their fused score (every keyword in
the top 5: tune 73 -> 76 %, train 77.6 -> 78.1 %; answers with every keyword tune 67 -> 66, train 141 ->
139), and with it keeping the pool's best keyword hits (BM25 >= 0.9 of the best, cosine >= 0.15) under
the 0.30 threshold (passages tune 77 %, train 80.4 %; train answered 80.4 -> 81.7 %, cited 74.4 -> 75.8 %,
AUROC 94.9 -> 95.3 %; one more tune near miss answered; answers with every keyword tune 66, train 141).
Neither carries to the answers: on rc-in-03, rd-in-15, tb-in-10, tb-in-42, td-in-05 and td-in-09 the
passages newly hold every keyword and the writer quotes other sentences; on rb-in-21, rb-in-37 and
tb-in-04 a new passage draws the writer off a list it had quoted whole. The threshold exemption would
also break the setting's meaning (the minimum cosine for a chunk to be included).
"""

from __future__ import annotations

import argparse
import pickle
import sys
from pathlib import Path
from typing import Any

import numpy as np

from common import build, read_jsonl
from lectern.retrieval import rank

DEEP = 40


def gather(args: argparse.Namespace) -> None:
    from lectern.content_kind import kind_of
    from lectern.followups import GENERIC_WORDS, STOP_WORDS
    from lectern.writers.units import stem_terms, with_parts

    ignored = frozenset(stem_terms(" ".join(STOP_WORDS | GENERIC_WORDS)))
    pairs = list(zip(args.pairs[::2], args.pairs[1::2], strict=True))
    out: list[dict[str, Any]] = []
    for corpus, questions in pairs:
        engine, settings, _ = build(Path(corpus))
        retriever = engine.retriever
        for record in read_jsonl(Path(questions)):
            if record.get("kind") != "in_scope":
                continue
            if args.split != "all" and record.get("split", "tune") != args.split:
                continue
            q = record["question"]
            qv = np.asarray(retriever.embedder.embed_query(q), dtype=np.float32)
            base = rank(
                retriever.index.search(vector=qv, text=q, mode="hybrid", top_k=10),
                settings.similarity_threshold,
                5,
            )
            found = retriever.index.search(vector=qv, text=q, mode="hybrid", top_k=DEEP)
            hits = rank(found, settings.similarity_threshold, DEEP)
            units = retriever.sentences.of([h.chunk for h in hits])
            qterms = stem_terms(q) - ignored or stem_terms(q)
            cands = []
            for h, (us, matrix) in zip(hits, units, strict=True):
                sims = sorted((float(s) for s in matrix @ qv), reverse=True) if len(us) else [0.0]
                heading = with_parts(stem_terms(" ".join(h.chunk.heading_hierarchy[-2:])))
                text = h.chunk.text.lower()
                cands.append(
                    {
                        "hash": h.chunk.content_hash,
                        "path": h.chunk.source_path,
                        "rrf": h.score,
                        "sim": h.similarity,
                        "bm25": h.keyword_score,
                        "sents": sims,
                        "n_units": len(us),
                        "heading": len(heading & qterms) / max(1, len(qterms)),
                        "tokens": h.chunk.token_count,
                        "kw": [k.lower() in text for k in record["keywords"]],
                        "kind": kind_of(h.chunk),
                        "unit_kinds": [u.kind for u in us],
                    }
                )
            out.append(
                {
                    "id": record["id"],
                    "book": Path(questions).stem,
                    "split": record.get("split", "tune"),
                    "expected": set(record.get("expected", [])),
                    "keywords": record["keywords"],
                    "base": [h.chunk.content_hash for h in base],
                    "cands": cands,
                }
            )
        print(f"{questions}: {sum(1 for o in out if o['book'] == Path(questions).stem)}", file=sys.stderr)
    with open(args.out, "wb") as fh:
        pickle.dump(out, fh)


def metrics(data: list[dict[str, Any]], order_of: Any) -> dict[str, float]:
    rel = kw_any = kw_all = kw_frac = 0.0
    first: list[int] = []
    for q in data:
        top = order_of(q)[:5]
        rel += any(c["path"] in q["expected"] for c in top)
        n = len(q["keywords"])
        covered = [any(c["kw"][i] for c in top) for i in range(n)]
        kw_all += all(covered)
        kw_any += any(covered)
        kw_frac += sum(covered) / n
        ranks = [i for i, c in enumerate(order_of(q)) if c["path"] in q["expected"]]
        first.append(ranks[0] + 1 if ranks else 99)
    n = len(data)
    return {
        "rel5": rel / n,
        "kw_all": kw_all / n,
        "kw_frac": kw_frac / n,
        "mrr": float(np.mean([1 / r for r in first])),
    }


def base_order(q: dict[str, Any]) -> list[dict[str, Any]]:
    by = {c["hash"]: c for c in q["cands"]}
    return [by[h] for h in q["base"] if h in by]


def fused_order(q: dict[str, Any]) -> list[dict[str, Any]]:
    return list(q["cands"])


def blended(pool: int, w_max: float, w_two: float, w_head: float, not_prose: float = 1.0) -> Any:
    """Fused score (relative to the pool's best) + weighted evidence, non-prose chunks scaled."""

    def order(q: dict[str, Any]) -> list[dict[str, Any]]:
        cands = q["cands"][:pool]
        if not cands:
            return []
        top = max(c["rrf"] for c in cands) or 1.0
        scores = []
        for c in cands:
            s = c["sents"]
            two = (s[0] + s[1]) / 2 if len(s) > 1 else s[0]
            fused = c["rrf"] / top * (1.0 if c["kind"] == "prose" else not_prose)
            scores.append(fused + w_max * s[0] + w_two * two + w_head * c["heading"])
        idx = np.argsort(-np.array(scores), kind="stable")
        return [cands[i] for i in idx] + q["cands"][pool:]

    return order


def score(args: argparse.Namespace) -> None:
    with open(args.data, "rb") as fh:
        data = pickle.load(fh)
    variants: dict[str, Any] = {"base": base_order, "fused40": fused_order}
    for pool in (10, 20):
        for w_max in (0.0, 0.1, 0.25, 0.5):
            for w_two in (0.0, 0.1, 0.25):
                for w_head in (0.0, 0.1, 0.2):
                    for not_prose in (1.0, 0.95, 0.9):
                        name = f"p{pool} max{w_max} two{w_two} head{w_head} np{not_prose}"
                        variants[name] = blended(pool, w_max, w_two, w_head, not_prose)
    rows = [(name, metrics(data, fn)) for name, fn in variants.items()]
    print(f"n={len(data)}")
    for name, m in rows[:2]:
        print(f"{name:50} " + " ".join(f"{k}={v:.3f}" for k, v in m.items()))
    rows = sorted(rows[2:], key=lambda r: -(r[1]["kw_frac"] + r[1]["rel5"]))
    for name, m in rows[: args.top]:
        print(f"{name:50} " + " ".join(f"{k}={v:.3f}" for k, v in m.items()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    sub = parser.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("gather")
    g.add_argument("out")
    g.add_argument("pairs", nargs="+")
    g.add_argument("--split", default="all")
    s = sub.add_parser("score")
    s.add_argument("data")
    s.add_argument("--top", type=int, default=30)
    args = parser.parse_args()
    gather(args) if args.cmd == "gather" else score(args)


if __name__ == "__main__":
    main()
