"""Where the relevant file ranks in hybrid retrieval, and whether fusion changes move answers.

    uv run python bench/fusion_study.py candidates            # dense + BM25 lists of the tuning questions
    uv run python bench/fusion_study.py classify              # where the relevant file ranks, what beat it
    uv run python bench/fusion_study.py variants              # fusion variants on retrieval proxies
    uv run python bench/fusion_study.py patched SCRIPT ARGS   # a bench script with a variant in the index
    uv run python bench/fusion_study.py matched TAG [TAG ...] # answer_quality results at equal refusal
    LECTERN_DATA_DIR=DIR uv run python bench/fusion_study.py scifact   # after `lectern eval retrieval`

`candidates` asks the cached book indexes (bench/results/index/textbook-*) for each in-scope question
of the tuning sets (reader tune, train, dev2, dev5, dev6, dev7; never a held-out split) its 100 best
chunks by dense similarity and by BM25, as `LanceDBIndex.search` fuses them (each side cut to 40, RRF
k=60, cut to 10, then `retrieval.rank`'s threshold and top 5): the simulation reproduces the index's
hybrid top 10 for all 739 questions. `variants` re-fuses those lists; `patched` runs
bench/answer_quality.py or bench/train_answerability.py with a variant inside `LanceDBIndex.search`
(env FUSION=file-rrf:W | file-add:BETA:M, RRF_K via LECTERN_RRF_K, DEPTH=N for the candidate depth,
REORDER=BETA: the top_k hits, not the reserve, reordered by RRF + BETA x their file's best two);
`matched` reads result files named TAG-<set>.json (answer_quality --out TAG-<set>) and compares
variants at equal near-miss refusal by raising a variant's answer threshold (which only removes answers).

Commands behind the answer numbers, per set S and split P (reader tune; train, dev2, followups-dev2,
followups-dev3 all; dev5-7 and followups-dev5-7 their own; followups-dev dev; followups-dev4 dev4), with
the variant's env (LECTERN_RRF_K=10, FUSION=file-rrf:1.0, FUSION=file-add:0.1:2 or DEPTH=20) on both:

    PYTHONHASHSEED=0 uv run python bench/fusion_study.py patched bench/train_answerability.py \
        D/textbook-a Q/reader-textbook-a.jsonl ... (the sets in the shipped model's report) --write
    PYTHONHASHSEED=0 uv run python bench/fusion_study.py patched bench/answer_quality.py \
        D/textbook-a Q/S-textbook-a.jsonl ... D/textbook-d Q/S-textbook-d.jsonl --split P --out TAG-S
    uv run python bench/fusion_study.py matched r60 r10 ...

SciFact: `LECTERN_DATA_DIR=DIR lectern eval retrieval --beir D/scifact` (main: hybrid 0.7109), then
`scifact` on DIR, whose k=60 row reproduces 0.7109.

Findings (PYTHONHASHSEED=0, main 2c7cafa, 535 in-scope questions, 212 near misses, 327 follow-ups):

Where the relevant file ranks (k=60): first passage 71.4%, passages 2-5 21.3%, fused 6-10 3.0%,
fused 11+ 4.3%, never in either side's 100: 0. Of the 153 questions whose first passage is another
file, 49 are a sibling in the same folder (the right chapter, another section's file); by content kind
95 prose, 29 exercise, 18 quiz, 6 navigation, 5 overview (quiz is 5.2% of all first passages, 11.8%
of wrong ones); wrong first passages are no longer than others (median 94 vs 105 tokens) and mostly
2-3 headings deep. The relevant file is in the top 5 but no passage holds every answer keyword for 97
(18.1%): the passage that does sits in the fused 6-10 for 33, at 11+ for 38, unfetched for 7, and for
19 no single chunk of the file holds them all. In the answers (shipped model): 80.4% cite a relevant
file; 6.0% cite another (4.3% with no relevant file in the top 5, 3.2% a sibling); 13.6% are refused
(11.2% with a relevant file in the top 5, the decision's); 15.1% cite it without every keyword. What
retrieval can still move is ~7% of the questions; most losses are the decision's and the writer's.

Proxies (`variants`; top1 / top5 = relevant file first / in the top 5, kw5 = every keyword in the top 5):

    variant                               top1   top5   kw5    MRR    SciFact nDCG@10 (`scifact`)
    RRF k=60 (main)                       71.4   92.7   74.8   0.802  0.7109
    RRF k=10                              72.7   93.1   77.6   0.810  0.7139
    RRF k=8 / 20 / 100                    73.1 / 71.4 / 71.4 top1   0.7147 / 0.7139 / -
    weights dense:bm25 1.5:1 / 1:1.5      71.6 / 72.1 top1, 92.3 / 92.0 top5  0.7051 / 0.7078
    candidate depth 20 / 60 / 100         72.0 / 71.4 / 71.4 top1, 93.3 / 92.9 / 92.9 top5
    file evidence, its rank as 3rd list   73.5   92.3   74.8   0.811  0.6730
    file evidence added, beta .1, best 2  74.0   91.8   75.1   0.813  0.6845
    (beta .3-1, best 3-5: top5 down to 76.4; parent-heading and same-heading groups: top1 69.5-72.0,
    top5 89.7-92.5, none better)
    heading-path match (stemmed, IDF)     rank list w=.25-1: 68.6-66.7 top1; added, beta .005: 72.0 / 92.7
    BM25, heading path terms x0/1/2/3 (own BM25F over all chunks; x1 is about LanceDB: 71.6 / 92.1):
                                          top1 68.4 / 71.6 / 71.8 / 72.5, top5 91.8 / 92.1 / 91.8 / 91.6
    quiz chunks x0.9-0 in the top 10      72.1-72.3 top1, 91.8-90.8 top5 (quiz files are relevant too)
    at most 1 / 2 passages a file in 5    71.4 top1, 93.8 / 93.1 top5, 71.4 / 72.9 kw5 (fewer keywords)
    top 5 reordered by file evidence      74.4 top1, the same top 5 (evidence over the fetched 10, +.1)

Answers (bench/answer_quality.py over all 13 tuning sets; `r60` = the decision retrained on main's
retrieval with bench/train_answerability.py, the fair base for a retrained variant, since retraining
main as is already moves the threshold 0.4749 -> 0.471):

    metric (%)                  shipped  k=10*  r60    r10   file-rrf 1  file-add .1  depth 20
    in-scope answered             86.4   87.7   84.3   86.5    84.7        83.9        86.5
    in-scope relevant cited       80.4   80.9   78.7   80.4    77.4        76.8        80.4
    in-scope every keyword        65.6   65.4   64.3   65.0    63.6        63.0        64.3
    in-scope top 5 relevant       92.7   93.1   92.7   93.1    92.3        91.8        93.3
    in-scope top 5 keywords       74.8   77.6   74.8   77.6    74.8        75.1        76.6
    follow-ups cited              94.8   94.5   94.2   93.6    94.5        93.3        93.6
    follow-ups keywords           81.0   80.7   81.0   79.8    80.7        80.1        80.7
    near misses refused           86.8   82.5   88.2   84.0    87.7        88.7        82.1
    out-of-scope refused         100    100    100    100     100         100         100
    (*: k=10 under the shipped decision; r10, file-rrf, file-add, depth 20: each with the decision
    retrained on its own retrieval)

At equal near-miss refusal (`matched`, in-scope cited): >=88%: r60 78.7, r10 72.9, file-rrf 76.8,
file-add 76.8, depth 20 72.7; >=90%: r60 73.8, r10 68.0, file-rrf 72.9, file-add 72.9, depth 20 68.6.
k=10's gain is the answer threshold's trade (4 near-miss points for ~2 in-scope points): retrained on
it, the decision's own training report falls (natural AUROC 0.9872 -> 0.9833, near misses refused
0.930 -> 0.907 at the same 0.941 answered), because passages that only BM25 ranks first now reach the
top 5 and cover the words of questions that are not answered there. Depth 20 (each side's candidates
halved) is the same trade, worse (its retrained decision: natural AUROC 0.9795, near misses 0.878).
On the questions both answer, k=10's passages make answers no
better (in-scope cited 425 -> 423 of 456, keywords 348 -> 346): the extra keywords in the top 5 do
not reach the extractive writer's quote. File-level evidence piles one file's passages into the top 5
(fewer files to cite from) and costs SciFact 2.6-3.8 points (multi-chunk abstracts win). Engine ms p50
(pooled rows, two shared cores, noisy): shipped 15.0, k=10 16.6; none of the variants adds a model call.

The proxies do not predict answers: reordering the top 5 by file evidence (REORDER=0.1, the same five
passages, so the decision is nearly untouched: no retraining) puts the relevant file first 3 points more
often, yet cites it less: in-scope cited 80.4 -> 78.3, keywords 65.6 -> 64.5 (on the 459 both answer:
427 -> 419 cited), near misses 86.8 -> 87.3; the extractive writer reads the order, and one file's
passages first leaves fewer files to quote.

Conclusion: nothing shipped. A retrieval change that moves the top 5 must be judged at equal near-miss
refusal after retraining the decision; none tried here beats main there.
"""

from __future__ import annotations

import argparse
import collections
import json
import math
import os
import re
import runpy
import sys
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

from common import RESULTS, TEXTBOOKS, build, read_jsonl

QUESTIONS = Path(__file__).parent / "questions"
CANDIDATES = RESULTS / "fusion-candidates.json"
TUNING = (("reader", "tune"), ("train", "all"), ("dev2", "all"), ("dev5", "dev5"), ("dev6", "dev6"))
TUNING += (("dev7", "dev7"),)
ANSWER_SETS = ("reader", "train", "dev2", "dev5", "dev6", "dev7", "followups-dev", "followups-dev2")
ANSWER_SETS += ("followups-dev3", "followups-dev4", "followups-dev5", "followups-dev6", "followups-dev7")
DEPTH, RRF_K, FETCHED, THRESHOLD = 40, 60, 10, 0.27  # as LanceDBIndex.search and Retriever at top_k 5
Fuse = Callable[[dict[str, Any]], list[tuple[str, float]]]


def candidates() -> None:
    """Each tuning in-scope question's dense and BM25 top 100 (hash, similarity), every chunk's metadata."""
    questions: list[dict[str, Any]] = []
    chunks: dict[str, dict[str, Any]] = {}
    for book in "abcd":
        engine, _, _ = build(TEXTBOOKS / f"textbook-{book}")
        retriever = engine.retriever
        index: Any = retriever.index
        for row in index._scan(["content_hash", "source_path", "heading_hierarchy", "text"]).to_pylist():
            chunks[row["content_hash"]] = {
                "book": book,
                "path": row["source_path"],
                "heads": list(row["heading_hierarchy"]),
                "text": row["text"],
            }
        for name, split in TUNING:
            for record in read_jsonl(QUESTIONS / f"{name}-textbook-{book}.jsonl"):
                if record["kind"] != "in_scope" or split not in ("all", record.get("split", "tune")):
                    continue
                q = record["question"]
                vector = retriever.embedder.embed_query(q)
                sides = {
                    mode: [
                        (h.chunk.content_hash, h.similarity)
                        for h in index.search(vector=vector, text=q, mode=mode, top_k=100)
                    ]
                    for mode in ("dense", "keyword")
                }
                questions.append(
                    {"book": book, "set": name, "id": record["id"], "q": q, **sides}
                    | {"expected": record["expected"], "keywords": record["keywords"]}
                )
    CANDIDATES.write_text(json.dumps({"questions": questions, "chunks": chunks}))
    print(f"{len(questions)} questions -> {CANDIDATES}")


def rrf(
    rankings: Sequence[Sequence[str]], k: float, weights: Sequence[float] = (1.0, 1.0, 1.0)
) -> list[tuple[str, float]]:
    scores: dict[str, float] = {}
    for weight, ranking in zip(weights, rankings, strict=False):
        for rank, key in enumerate(ranking, start=1):
            scores[key] = scores.get(key, 0.0) + weight / (k + rank)
    return sorted(scores.items(), key=lambda item: -item[1])


class Study:
    def __init__(self) -> None:
        data = json.loads(CANDIDATES.read_text())
        self.questions: list[dict[str, Any]] = data["questions"]
        self.chunks: dict[str, dict[str, Any]] = data["chunks"]

    def sides(self, q: dict[str, Any], depth: int = DEPTH) -> list[list[str]]:
        return [[h for h, _ in q[mode][:depth]] for mode in ("dense", "keyword")]

    def top5(self, q: dict[str, Any], fused: list[tuple[str, float]]) -> list[str]:
        similarity = {h: s for mode in ("dense", "keyword") for h, s in q[mode]}
        return [h for h, _ in fused[:FETCHED] if similarity.get(h, 1.0) >= THRESHOLD][:5]

    def file_rank(self, q: dict[str, Any], ranked: Sequence[str]) -> int | None:
        expected = set(q["expected"])
        return next((i for i, h in enumerate(ranked, 1) if self.chunks[h]["path"] in expected), None)

    def has_keywords(self, q: dict[str, Any], hashes: Sequence[str]) -> bool:
        text = "\n".join(self.chunks[h]["text"] for h in hashes).lower()
        return bool(q["keywords"]) and all(k.lower() in text for k in q["keywords"])

    def evaluate(self, fuse: Fuse) -> str:
        top1 = top5 = keywords = 0
        mrr = 0.0
        for q in self.questions:
            best = self.top5(q, fuse(q))
            rank = self.file_rank(q, best)
            top1 += rank == 1
            top5 += rank is not None
            mrr += 1 / rank if rank else 0.0
            keywords += self.has_keywords(q, best)
        n = len(self.questions)
        shares = f"top1 {100 * top1 / n:5.1f}  top5 {100 * top5 / n:5.1f}  kw5 {100 * keywords / n:5.1f}"
        return f"{shares}  mrr {mrr / n:.3f}"

    def plain(self, k: float = RRF_K, depth: int = DEPTH, weights: Sequence[float] = (1, 1)) -> Fuse:
        return lambda q: rrf(self.sides(q, depth), k, weights)

    def grouped(self, level: str, beta: float, best: int, as_rank: bool) -> Fuse:
        """Evidence of the chunk's file (or heading group) among the fused candidates: the sum of its
        `best` chunks' RRF scores, added (times beta) or as a third ranking (weight beta)."""

        def group(h: str) -> Any:
            chunk = self.chunks[h]
            heads = tuple(chunk["heads"])
            return chunk["path"], heads[:-1] if level == "parent" else heads if level == "section" else ()

        def fuse(q: dict[str, Any]) -> list[tuple[str, float]]:
            fused = rrf(self.sides(q), RRF_K)
            members: dict[Any, list[float]] = collections.defaultdict(list)
            for h, s in fused:
                members[group(h)].append(s)
            evidence = {g: sum(sorted(v, reverse=True)[:best]) for g, v in members.items()}
            ranks = {g: i for i, g in enumerate(sorted(evidence, key=lambda g: -evidence[g]), 1)}
            bonus = (lambda g: beta / (RRF_K + ranks[g])) if as_rank else (lambda g: beta * evidence[g])
            return sorted(((h, s + bonus(group(h))) for h, s in fused), key=lambda item: -item[1])

        return fuse

    def heading_match(self, weight: float, as_rank: bool) -> Fuse:
        """Question words (stemmed, stop words out) found in the chunk's heading path, IDF-weighted."""
        from lectern.followups import STOP_WORDS
        from lectern.stemming import stemmer_for

        stem = stemmer_for("english")

        def words(text: str) -> set[str]:
            return {stem(w) for w in re.findall(r"[a-z][a-z0-9_+-]*", text.lower()) if w not in STOP_WORDS}

        heads = {h: words(" ".join(c["heads"])) for h, c in self.chunks.items()}
        df: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
        size: collections.Counter[str] = collections.Counter()
        for h, c in self.chunks.items():
            df[c["book"]].update(heads[h])
            size[c["book"]] += 1

        def score(q: dict[str, Any], h: str) -> float:
            idf = {w: math.log(1 + size[q["book"]] / (1 + df[q["book"]][w])) for w in words(q["q"])}
            return sum(v for w, v in idf.items() if w in heads[h]) / sum(idf.values()) if idf else 0.0

        def fuse(q: dict[str, Any]) -> list[tuple[str, float]]:
            fused = rrf(self.sides(q), RRF_K)
            if as_rank:
                matched = sorted(((h, score(q, h)) for h, _ in fused), key=lambda item: -item[1])
                return rrf([*self.sides(q), [h for h, s in matched if s > 0]], RRF_K, (1, 1, weight))
            return sorted(((h, s + weight * score(q, h)) for h, s in fused), key=lambda item: -item[1])

        return fuse


def demoted(study: Study, factor: float) -> Fuse:
    """Quiz chunks (content_kind) in the fused top 10 scored x factor, unless the question asks for one."""
    from lectern.content_kind import asked_kinds
    from lectern.content_kind import classify as kind

    def fuse(q: dict[str, Any]) -> list[tuple[str, float]]:
        fused = rrf(study.sides(q), RRF_K)
        asked = asked_kinds(q["q"])

        def quiz(h: str) -> bool:
            c = study.chunks[h]
            return kind(c["path"], c["heads"], c["text"]) == "quiz" and "quiz" not in asked

        top = [(h, s * factor if quiz(h) else s) for h, s in fused[:FETCHED]]
        return sorted(top, key=lambda item: -item[1]) + fused[FETCHED:]

    return fuse


def bm25f(study: Study, heading_weight: float, k1: float = 1.2, b: float = 0.75) -> Fuse:
    """Dense fused with an own BM25 over every chunk whose heading path's terms count x heading_weight
    (stemmed, stop words out); at weight 1 it ranks about as LanceDB's FTS does."""
    import numpy as np

    from lectern.followups import STOP_WORDS
    from lectern.stemming import stemmer_for

    stem = stemmer_for("english")

    def terms(text: str) -> collections.Counter[str]:
        return collections.Counter(
            stem(w) for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in STOP_WORDS
        )

    books: dict[str, tuple[list[str], list[dict[str, float]], Any, collections.Counter[str]]] = {}
    for book in "abcd":
        hashes = [h for h, c in study.chunks.items() if c["book"] == book]
        tfs = []
        for h in hashes:
            head, body = terms(" > ".join(study.chunks[h]["heads"])), terms(study.chunks[h]["text"])
            tfs.append({t: heading_weight * head[t] + body[t] for t in head.keys() | body.keys()})
        lengths = np.array([sum(tf.values()) for tf in tfs])
        books[book] = hashes, tfs, lengths / lengths.mean(), collections.Counter(t for tf in tfs for t in tf)

    def fuse(q: dict[str, Any]) -> list[tuple[str, float]]:
        hashes, tfs, relative, df = books[q["book"]]
        scores = np.zeros(len(hashes))
        for t in terms(q["q"]):
            if df[t]:
                idf = math.log(1 + (len(hashes) - df[t] + 0.5) / (df[t] + 0.5))
                tf = np.array([d.get(t, 0.0) for d in tfs])
                scores += idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * relative))
        keyword = [hashes[i] for i in np.argsort(-scores)[:DEPTH] if scores[i] > 0]
        return rrf([study.sides(q)[0], keyword], RRF_K)

    return fuse


def capped(study: Study, most: int) -> Fuse:
    """The fetched 10 with a file's passages past its `most` best moved behind the others."""

    def fuse(q: dict[str, Any]) -> list[tuple[str, float]]:
        fused = rrf(study.sides(q), RRF_K)
        similarity = {h: s for mode in ("dense", "keyword") for h, s in q[mode]}
        seen: collections.Counter[str] = collections.Counter()
        first, later = [], []
        for h, s in fused[:FETCHED]:
            if similarity.get(h, 1.0) < THRESHOLD:
                continue
            path = study.chunks[h]["path"]
            (first if seen[path] < most else later).append((h, s))
            seen[path] += 1
        return first + later

    return fuse


def classify() -> None:
    from lectern.content_kind import classify as kind

    study = Study()
    buckets: collections.Counter[str] = collections.Counter()
    kinds: collections.Counter[str] = collections.Counter()
    sibling = 0
    for q in study.questions:
        fused = rrf(study.sides(q), RRF_K)
        best = study.top5(q, fused)
        rank, anywhere = study.file_rank(q, best), study.file_rank(q, [h for h, _ in fused])
        buckets[
            "first"
            if rank == 1
            else "2-5"
            if rank
            else "fused 6-10"
            if anywhere and anywhere <= 10
            else "fused 11+"
            if anywhere
            else "absent"
        ] += 1
        buckets["in top 5, no passage with every keyword"] += bool(rank) and not study.has_keywords(q, best)
        if rank != 1 and best:
            first = study.chunks[best[0]]
            kinds[kind(first["path"], first["heads"], first["text"])] += 1
            sibling += first["path"].rsplit("/", 1)[0] in {e.rsplit("/", 1)[0] for e in q["expected"]}
    n = len(study.questions)
    for name, count in buckets.items():
        print(f"{name:42} {count:4} {100 * count / n:5.1f}%")
    print(f"first passage another file: kinds {dict(kinds)}, same folder as a relevant file {sibling}")


def variants() -> None:
    s = Study()
    table: dict[str, Fuse] = {"RRF k=60 (main)": s.plain()}
    table |= {f"RRF k={k}": s.plain(k=k) for k in (5, 8, 10, 20, 100)}
    table |= {f"weights {w}": s.plain(weights=w) for w in ((1.5, 1), (1, 1.5))}
    table |= {f"depth {d}": s.plain(depth=d) for d in (20, 60, 100)}
    for level in ("file", "parent", "section"):
        table[f"{level} evidence as a ranking"] = s.grouped(level, 1.0, 3, as_rank=True)
        table |= {f"{level} evidence +{b} best 2": s.grouped(level, b, 2, as_rank=False) for b in (0.1, 0.3)}
    table |= {f"heading match ranking w={w}": s.heading_match(w, as_rank=True) for w in (0.25, 1.0)}
    table |= {f"heading match +{b}": s.heading_match(b, as_rank=False) for b in (0.005, 0.02)}
    table |= {f"quiz x{f} in the top 10": demoted(s, f) for f in (0.9, 0.6, 0.0)}
    table |= {f"own BM25, heading path x{w}": bm25f(s, w) for w in (0.0, 1.0, 2.0, 3.0)}
    table |= {f"at most {n} passages a file": capped(s, n) for n in (1, 2)}
    for name, fuse in table.items():
        print(f"{name:34} {s.evaluate(fuse)}")


def patched(argv: list[str]) -> None:
    """Run a bench script with env FUSION (file-rrf:W | file-add:BETA:M) and DEPTH inside the index."""
    import lectern.index.lancedb_index as lancedb_index

    plain, spec = lancedb_index.rrf_fuse, os.environ.get("FUSION", "")
    paths: dict[str, str] = {}
    if spec:
        for book in "abcd":  # every chunk's file, by content hash
            settings_dir = RESULTS / "index" / f"textbook-{book}"
            from common import bench_settings
            from lectern.index import open_index

            settings = bench_settings(settings_dir)
            index: Any = open_index(settings, settings.collection)
            paths |= {
                r["content_hash"]: r["source_path"]
                for r in index._scan(["content_hash", "source_path"]).to_pylist()
            }
        mode, value, *rest = spec.split(":")
        weight, best = float(value), int(rest[0]) if rest else 3

        def fused(rankings: Sequence[Sequence[str]], k: int) -> list[tuple[str, float]]:
            result = plain(rankings, k)
            members: dict[str, list[float]] = collections.defaultdict(list)
            for h, s in result:
                members[paths.get(h, h)].append(s)
            evidence = {p: sum(sorted(v, reverse=True)[:best]) for p, v in members.items()}
            ranks = {p: i for i, p in enumerate(sorted(evidence, key=lambda p: -evidence[p]), 1)}
            bonus = (
                (lambda p: weight / (k + ranks[p]))
                if mode == "file-rrf"
                else (lambda p: weight * evidence[p])
            )
            return sorted(((h, s + bonus(paths.get(h, h))) for h, s in result), key=lambda item: -item[1])

        lancedb_index.rrf_fuse = fused  # type: ignore[assignment]
    if os.environ.get("DEPTH"):
        floor = int(os.environ["DEPTH"])
        lancedb_index.candidate_depth = lambda top_k: max(top_k * 2, floor)  # type: ignore[assignment]
    if os.environ.get("REORDER"):
        import lectern.retrieval as retrieval

        beta, ranked_plainly = float(os.environ["REORDER"]), retrieval.rank

        def reordered(found: Any, threshold: float, top_k: int) -> Any:
            ranked = ranked_plainly(found, threshold, top_k)
            scores: dict[str, list[float]] = collections.defaultdict(list)
            for hit in ranked:
                scores[hit.chunk.source_path].append(hit.score)
            evidence = {p: sum(sorted(v, reverse=True)[:2]) for p, v in scores.items()}
            n = max(0, top_k - retrieval.RESERVE)
            head = sorted(ranked[:n], key=lambda h: -(h.score + beta * evidence[h.chunk.source_path]))
            return [h.model_copy(update={"rank": i}) for i, h in enumerate(head + ranked[n:], start=1)]

        retrieval.rank = reordered
    sys.argv = argv
    runpy.run_path(argv[0], run_name="__main__")


def matched(tags: list[str]) -> None:
    """In-scope cited / every keyword / follow-ups cited, best at near-miss refusal >= each target."""

    def rows(tag: str) -> list[dict[str, Any]]:
        found = []
        for name in ANSWER_SETS:
            path = RESULTS / f"{tag}-{name}.json"
            if path.exists():
                found += [r for book in json.loads(path.read_text())["rows"].values() for r in book]
        return found

    def curve(tag: str) -> list[tuple[float, float, float, float]]:
        all_rows = rows(tag)
        by = {k: [r for r in all_rows if r["kind"] == k] for k in ("in_scope", "near_miss", "followup")}
        points = []
        for t in sorted({r["score"] for r in all_rows if r["answered"]}):

            def share(kind: str, key: str | None, t: float = t) -> float:
                xs = by[kind]
                return (
                    100
                    * sum(r["answered"] and r["score"] >= t and (key is None or r[key]) for r in xs)
                    / len(xs)
                )

            points.append(
                (
                    100 - share("near_miss", None),
                    share("in_scope", "relevant_cited"),
                    share("in_scope", "has_keywords"),
                    share("followup", "relevant_cited"),
                )
            )
        return points

    curves = {tag: curve(tag) for tag in tags}
    for target in range(86, 94):
        cells = []
        for tag in tags:
            ok = [p for p in curves[tag] if p[0] >= target]
            best = max(ok, key=lambda p: p[1]) if ok else None
            cells.append(f"{tag}: " + (f"{best[1]:5.1f}/{best[2]:5.1f}/{best[3]:5.1f}" if best else "-"))
        print(f">={target}%  " + "  ".join(cells))


def scifact() -> None:
    """Capture SciFact's two rankings at the eval's depth once, then score fusion variants (nDCG@10)."""
    import lectern.index.lancedb_index as lancedb_index
    from lectern.embeddings import create_embedder
    from lectern.evaluation.beir import load_beir
    from lectern.evaluation.retrieval import CHUNK_DEPTH, evaluate_run, rank_documents
    from lectern.index import open_index
    from lectern.settings import load_settings

    dataset = load_beir(TEXTBOOKS.parent / "scifact")
    settings = load_settings()
    index: Any = open_index(settings, "beir-scifact")
    embedder = create_embedder(settings)
    captured: list[list[list[str]]] = []
    plain = lancedb_index.rrf_fuse
    lancedb_index.rrf_fuse = lambda r, k: captured.append([list(x) for x in r]) or plain(r, k)  # type: ignore[assignment,func-returns-value]
    rankings = {}
    for qid in sorted(dataset.queries):
        captured.clear()
        text = dataset.queries[qid]
        index.search(vector=embedder.embed_query(text), text=text, mode="hybrid", top_k=CHUNK_DEPTH)
        rankings[qid] = captured[0]
    paths = {
        r["content_hash"]: r["source_path"] for r in index._scan(["content_hash", "source_path"]).to_pylist()
    }

    def ndcg(fuse: Callable[[list[list[str]]], list[tuple[str, float]]]) -> float:
        run = {
            qid: rank_documents([paths[h] for h, _ in fuse(r)[:CHUNK_DEPTH]]) for qid, r in rankings.items()
        }
        return evaluate_run(run, dataset.qrels)["ndcg@10"]

    def with_files(
        k: int, weight: float, as_rank: bool, best: int
    ) -> Callable[[list[list[str]]], list[tuple[str, float]]]:
        def fuse(r: list[list[str]]) -> list[tuple[str, float]]:
            fused = rrf(r, k)
            members: dict[str, list[float]] = collections.defaultdict(list)
            for h, s in fused:
                members[paths[h]].append(s)
            evidence = {p: sum(sorted(v, reverse=True)[:best]) for p, v in members.items()}
            ranks = {p: i for i, p in enumerate(sorted(evidence, key=lambda p: -evidence[p]), 1)}
            return sorted(
                (
                    (h, s + (weight / (k + ranks[paths[h]]) if as_rank else weight * evidence[paths[h]]))
                    for h, s in fused
                ),
                key=lambda item: -item[1],
            )

        return fuse

    table: dict[str, Callable[[list[list[str]]], list[tuple[str, float]]]] = {
        f"RRF k={k}": partial(rrf, k=k) for k in (60, 30, 20, 15, 10, 8, 5)
    }
    table |= {f"weights {w}": partial(rrf, k=60, weights=w) for w in ((1.5, 1), (1, 1.5))}
    table["file evidence as a ranking"] = with_files(60, 1.0, True, 3)
    table["file evidence +0.1 best 2"] = with_files(60, 0.1, False, 2)
    for name, fuse in table.items():
        print(f"{name:30} nDCG@10 {ndcg(fuse):.4f}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument(
        "command", choices=("candidates", "classify", "variants", "patched", "matched", "scifact")
    )
    parser.add_argument("rest", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    if args.command == "patched":
        patched(args.rest)
    elif args.command == "matched":
        matched(args.rest)
    else:
        {"candidates": candidates, "classify": classify, "variants": variants, "scifact": scifact}[
            args.command
        ]()


if __name__ == "__main__":
    main()
