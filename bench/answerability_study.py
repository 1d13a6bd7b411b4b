"""Candidate changes to the answerability decision, measured leave-one-book-out (nothing here ships).

    .venv/bin/python bench/answerability_study.py CORPUS QUESTIONS.jsonl [CORPUS QUESTIONS.jsonl ...]
        [--target 0.93 0.94] [--scifact ../shared/data/scifact] [--only LABEL ...]

Takes the training command's arguments (bench/train_answerability.py, docs/confidence-calibration.md)
and `bench/lobo_answerability.py`'s retrieval cache, builds the same examples with candidate signals
appended, and runs the same leave-one-book-out cross-validation (train on three books, pick the threshold
there keeping `--target` of the answerable examples, measure the fourth) for the shipped decision and
for each variant: a signal added, examples weighted otherwise, the threshold picked otherwise, another
regularisation, bagging, or SciFact's train claims as extra training data (`--scifact`; needs its index,
ingested by `ingest_scifact` below, ~1 h on this machine's two shared cores). Printed for the reader and
`train-*` sets' held-out examples: answerable answered, near misses and out-of-scope refused, AUROC
(answerable against near misses and out-of-scope), and near misses refused at a pooled answered rate of
88 / 90 / 92 % (every margin shifted alike: the ranking, not the threshold choice).

Findings (Nov 2026, main 8a78247, MiniLM, retrieval threshold 0.27; held out: reader + train sets,
~390 answerable, 120 near misses, 56 out-of-scope; one near miss is 0.8 points, one answerable 0.26):

    variant                                   target  answered  nm refused  oos   AUROC | nm at 88/90/92
    shipped                                    0.93     87.7      90.8     100   96.76 | 90.8 90.8 89.2
    shipped                                    0.94     91.0      90.0     100   96.69 | 90.8 90.0 89.2
    + q_centroid (question . mean chunk)       0.94     90.8      87.5     100   96.59 | 88.3 87.5 84.2
    + top_sim - q_centroid                     0.94     90.5      86.7     100   96.66 | 90.0 88.3 84.2
    + share of distinct files in the top 5     0.94     89.0      87.5     100   96.50 | 91.7 84.2 80.8
    + share of the top 5 from the best's file  0.94     90.0      88.3     100   96.89 | 91.7 90.0 85.0
    + top_sim - mean similarity of ranks 6-10  0.94     91.5      89.2     100   96.68 | 90.8 90.8 87.5
    + best dense hit is the best keyword hit   0.94     89.7      88.3     100   96.66 | 90.0 87.5 85.0
    + best chunk's centrality (hubness)        0.94     90.3      85.0     100   96.38 | 87.5 85.8 83.3
    + top_sim - 0.5 * hubness                  0.94     89.7      87.5     100   96.66 | 88.3 87.5 85.0
    + coverage over the top 10 (reserve too)   0.94     91.0      87.5     100   96.48 | 90.8 87.5 86.7
    constructed near misses' words looked up
      without the removed files (a true
      "index without them")                    0.94     90.3      89.2     100   96.69 | 90.0 89.2 85.8
      ... constructed weighted 0.15            0.94     89.7      86.7     100   96.78 | 86.7 86.7 84.2
      ... constructed weighted 0.5             0.94     90.5      87.5     100   96.40 | 89.2 88.3 86.7
      ... constructed weighted 1.0             0.94     90.3      82.5     100   95.79 | 85.0 83.3 81.7
    constructed weighted 0.15 (shipped 0.3)    0.94     89.5      86.7     100   96.85 | 88.3 86.7 85.0
    constructed weighted 0.5                   0.94     89.7      87.5     100   96.30 | 90.0 87.5 86.7
    constructed weighted 1.0                   0.94     90.3      83.3     100   95.54 | 84.2 83.3 82.5
    book-open sets weighted 0                  0.94     93.1      82.5     100   96.83 | 89.2 86.7 84.2
    book-open sets weighted 0.3                0.94     90.0      87.5     100   96.86 | 89.2 87.5 85.8
    book-open sets weighted 0.6                0.94     91.3      87.5     100   96.87 | 90.0 90.0 87.5
    threshold on reader + train answerable     0.94     93.3      79.2     100   96.72 | 90.8 90.8 90.0
    L2 0.1 (shipped 1)                         0.94     89.5      90.0     100   96.72 | 90.8 89.2 89.2
    L2 3                                       0.94     90.5      88.3     100   96.60 | 90.8 88.3 87.5
    L2 10                                      0.94     90.3      85.8     100   96.42 | 87.5 85.8 83.3
    bagged x10 (bootstrap, averaged)           0.94     90.0      87.5     100   96.59 | 90.8 88.3 84.2
    + SciFact's 809 train claims (judged
      abstract in the top 5: answerable; each
      again without its abstracts) weighted 0.1  0.94   90.5      87.5     100   96.45 | 90.8 90.8 86.7
      ... weighted 0.3                         0.94     90.0      78.3     100   95.62 | 83.3 79.2 77.5
      ... weighted 1.0                         0.94     90.5      70.8     100   93.01 | 72.5 70.8 62.5
    keyword-less answerable weighted 0.5       0.94     90.5      90.8     100   96.84 | 90.8 90.8 90.0
    keyword-less answerable weighted 0.3       0.942    91.3      90.0     100   96.84 | 90.8 90.0 90.0
    keyword-less answerable weighted 0.3       0.943    92.1      90.0     100   96.85 | 90.8 90.8 90.0

SciFact's claims are statements that share most of their words with their abstract: as answerable
examples they teach that coverage and similarity are high when the passages answer, which a reader's
paraphrase is not, and the textbooks' near misses get through (the more weight, the worse).

"Keyword-less": an answerable example whose five passages lack one of its answer keywords (62 of 526):
its relevant file was found, perhaps not the part that answers it. Weighting those 0.3-0.7 is the only
variant that ranks better everywhere (AUROC +0.15, near misses refused at a matched answered rate +1),
but the gain is one or two questions. Retrained on all sets (target 0.942, threshold 0.412) and run whole
(bench/answer_quality.py): tune 91.0 answered / 88.0 cited / 76.9 every keyword / follow-ups 96.9 /
near misses 90.0 / out-of-scope 100 / AUROC 0.9798 (shipped: the same, AUROC 0.9813); train 84.9 / 79.5 /
82.3 / 98.5 / 90.0 / 100 / 0.9623 (shipped 84.5 / 79.0 / 82.2 / 98.5 / 90.0 / 100 / 0.9613): one more
train question answered and cited, tune's AUROC down. At 0.943, the held-out 92.1 / 90.0 becomes train
near misses refused 88.8 %. Not shipped: the gain is within one question of noise and the tune AUROC
drops. Every added signal lowers the matched near-miss figures: the twelve shipped signals were chosen
on this same cross-validation, and with three books to train on, a new one mostly buys stumps that fit
the training books.

Diagnosis (`bench/writer_replay.py refusals`, shipped model, whole engine): refused in-scope questions
with a relevant file in the top 5: tune 7 (5 not_answerable, 2 off_topic), train 24 (21 and 3); the
writer would have cited a relevant file in 7/7 and 23/24. No rule overrides the model: "off_topic" only
labels a model refusal whose missing word the collection never mentions, and those five lose most of
their log-odds to `miss_rare` / `miss_unknown` on a reader's ordinary word ("brainpower", "dodges",
"snappier") or a name the book writes otherwise ("llama.cpp"). Against the average answered question
the others lose most to `top_sim` (-1.5 to -3.0), then `cov` and `sent_max` (~-1 each); `q_words`
costs the short ones (-0.4 to -0.8) and lifts wordy near misses (+0.5 to +1.3: ta-nm-14, tb-nm-18).
The wrongly answered near misses (tune 4, train 8) have top_sim 0.44-0.64, coverage 0.4-0.7 and are
in ordinary words (humanoid cost, knee gear ratios, foot contact) or name a thing by book words.
The refused answerable questions are paraphrases (best passage found, cosine
0.31-0.45: "a virtual copy of a machine", "laser scanner" for the book's LiDAR): their words are
missing from the passages as much as a near miss's, so no coverage or similarity signal of what
retrieval returns lifts them without letting near misses through.
"""

from __future__ import annotations

import argparse
import pickle
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from itertools import pairwise
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

import lobo_answerability as lobo
import train_answerability as ta
from common import RESULTS, bench_settings, build, make_embedder, read_jsonl
from lectern import answerability
from lectern.answerability import FEATURES, Signals, is_compound, written_forms
from lectern.engine import Engine
from lectern.models import RetrievalResult
from lobo_models import near_miss_refused

Array = NDArray[np.float64]
Row = dict[str, Any]
EXTRA = (
    "q_centroid",
    "top_minus_centroid",
    "files_share",
    "top_file_share",
    "gap_reserve",
    "top_kw",
    "hub",
    "top_minus_hub",
    "cov10",
)
ALL = (*FEATURES, *EXTRA)
BOOK_OPEN = ("textbook-", "validation-")  # the earlier sets, written with the books open
TRAIN_ONLY = "scifact"  # a training-only "book": never held out, never measured
KNOWN_DEPTH = 50  # a word in this many chunks or more is not the removed files' alone
SCIFACT_INDEX = RESULTS / "index" / "scifact"


def centroid_of(engine: Engine) -> NDArray[np.float32]:
    """The collection's mean chunk vector, unit length."""
    table = engine.retriever.index._scan(["vector"])  # type: ignore[attr-defined]
    vectors = np.asarray(table.column("vector").to_pylist(), dtype=np.float32)
    mean = vectors.mean(axis=0)
    return np.asarray(mean / np.linalg.norm(mean), dtype=np.float32)


def extra_signals(query: str, result: RetrievalResult, centroid: NDArray[np.float32]) -> list[float]:
    """The candidate signals (`EXTRA`) of one retrieval."""
    q = np.asarray(result.query_embedding or [], dtype=np.float32)
    hits = result.hits[:5]
    sims = sorted((h.similarity for h in hits), reverse=True)
    top = sims[0] if sims else 0.0
    qc = float(q @ centroid) if q.size else 0.0
    files = [h.chunk.source_path for h in hits]
    n = max(1, len(hits))
    rest = [h.similarity for h in result.reserve] or sims[-1:] or [0.0]
    kw = [h.keyword_score for h in hits]
    best_kw = max((k for k in kw if k is not None), default=None)
    top_kw = 1.0 if kw and kw[0] is not None and kw[0] == best_kw else 0.0
    best = max(hits, key=lambda h: h.similarity) if hits else None
    hub = (
        float(np.asarray(best.vector, np.float32) @ centroid)
        if best is not None and best.vector is not None
        else 0.0
    )
    wide = [*hits, *result.reserve][:10]
    with _passages(10):
        cov10 = answerability.signals(query, wide, None, None).values[FEATURES.index("cov")] if wide else 0.0
    return [
        qc,
        top - qc,
        len(set(files)) / n,
        files.count(files[0]) / n if files else 0.0,
        top - sum(rest) / len(rest),
        top_kw,
        hub,
        top - 0.5 * hub,
        cov10,
    ]


@contextmanager
def _passages(n: int) -> Iterator[None]:
    saved, answerability.PASSAGES = answerability.PASSAGES, n
    try:
        yield
    finally:
        answerability.PASSAGES = saved


def known_without(engine: Engine, removed: frozenset[str]) -> Callable[[str], bool]:
    """`Retriever.knows` over the collection less the `removed` files."""

    def known(term: str) -> bool:
        if not engine.retriever.knows(term):
            return False
        compound = is_compound(term)
        found = engine.retriever.index.search(
            vector=None, text=term if compound else term.lower(), mode="keyword", top_k=KNOWN_DEPTH
        )
        left = [h for h in found if h.chunk.source_path not in removed]
        if compound:
            forms = written_forms(term)
            left = [h for h in left if any(f in h.chunk.search_text.lower() for f in forms)]
        return bool(left) or len(found) >= KNOWN_DEPTH

    return known


def examples(engine: Engine, records: list[Row], name: str, centroid: NDArray[np.float32]) -> list[Row]:
    """`train_answerability.examples`' rows, each with the candidate signals appended, whether an
    answerable one's passages hold its answer keywords, and for a constructed one its signals with
    words looked up in the collection less the removed files (`x_without`)."""
    plain = engine._signals
    seen: dict[str, RetrievalResult] = {}

    def signals(query: str, result: RetrievalResult) -> Signals:
        seen["last"] = result
        s = plain(query, result)
        return Signals(s.values + tuple(extra_signals(query, result, centroid)), s.missing, s.unknown)

    engine._signals = signals  # type: ignore[method-assign]
    try:
        rows = ta.examples(engine, records, name)
    finally:
        engine._signals = plain  # type: ignore[method-assign]
    by_id = {r["id"]: r for r in records}
    for row in rows:
        record = by_id[row["id"]]
        keywords = record.get("keywords") or []
        if row["y"] == 1:
            text = "\n".join(h.chunk.text for h in ta.retrieve(engine, row["query"], 5).hits).lower()
            row["keywords_found"] = all(k.lower() in text for k in keywords)
        if row["kind"] == "constructed":
            expected = frozenset(record.get("expected", []))
            deep = ta.retrieve(engine, row["query"], 20)
            rest = [h for h in deep.hits if h.chunk.source_path not in expected][:5]
            vector = np.asarray(deep.query_embedding, np.float32) if deep.query_embedding else None
            units = engine.retriever.sentences.of([h.chunk for h in rest]) if vector is not None else None
            s = answerability.signals(row["query"], rest, vector, units, known_without(engine, expected))
            row["x_without"] = [*s.values, *row["x"][len(FEATURES) :]]
    return rows


def rows_for(pairs: list[tuple[Path, Path]], scifact: Path | None) -> list[Row]:
    store: dict[str, RetrievalResult] = {}
    if lobo.CACHE.exists():
        store = pickle.loads(lobo.CACHE.read_bytes())
    rows: list[Row] = []
    centroids: dict[str, NDArray[np.float32]] = {}
    for corpus, questions in pairs:
        engine, _, _ = build(corpus)
        book = corpus.resolve().name
        centroid = centroids.setdefault(book, centroid_of(engine))
        ta.retrieve = lobo.cached_retrieve(store, book)
        records = [r for r in read_jsonl(questions) if r.get("split", "tune") == "tune"]
        rows += [{**row, "book": book} for row in examples(engine, records, questions.stem, centroid)]
    if scifact is not None:
        rows += scifact_rows(scifact, store)
    lobo.CACHE.write_bytes(pickle.dumps(store))
    return rows


def ingest_scifact(root: Path) -> Engine:
    """The SciFact abstracts in their own index (bench/results/index/scifact), as
    bench/squad_answerability.py ingests its paragraphs; the engine over them."""
    from lectern.evaluation.beir import BeirDataset
    from lectern.index import open_index
    from lectern.ingest.manifest import Manifest
    from lectern.ingest.pipeline import IngestPipeline
    from lectern.retrieval import Retriever
    from lectern.sentences import SentenceVectors
    from lectern.writers import create_writer

    settings = bench_settings(SCIFACT_INDEX)
    embedder = make_embedder(settings)
    index = open_index(settings, settings.collection)
    started = time.perf_counter()
    IngestPipeline(
        collection=settings.collection,
        embedder=embedder,
        index=index,
        manifest=Manifest(settings.state_db_path),
        sentences=SentenceVectors.for_data_dir(embedder, SCIFACT_INDEX),
    ).ingest_documents(BeirDataset(root, {}, {}).documents(), root="beir:scifact")
    index.optimize()
    print(f"scifact ingested in {time.perf_counter() - started:.0f} s", flush=True)
    return Engine(Retriever(embedder, index, settings), create_writer(settings, embedder=embedder), settings)


def scifact_rows(root: Path, store: dict[str, RetrievalResult]) -> list[Row]:
    """SciFact's train claims (qrels/train.tsv) as answerable examples when a judged abstract is in the
    top 5, and each again without its judged abstracts (constructed): training data only."""
    engine = ingest_scifact(root)
    centroid = centroid_of(engine)
    claims = {r["_id"]: r["text"] for r in read_jsonl(root / "queries.jsonl")}
    judged: dict[str, list[str]] = {}
    for line in (root / "qrels" / "train.tsv").read_text(encoding="utf-8").splitlines()[1:]:
        qid, doc, _score = line.split("\t")
        judged.setdefault(qid, []).append(doc)
    records = [
        {"id": f"sf-{qid}", "kind": "in_scope", "question": claims[qid], "expected": docs}
        for qid, docs in sorted(judged.items())
    ]
    ta.retrieve = lobo.cached_retrieve(store, TRAIN_ONLY)
    return [{**row, "book": TRAIN_ONLY} for row in examples(engine, records, "scifact-train", centroid)]


class Variant:
    """How the folds are trained: example weights, which rows set the threshold, the fitting."""

    def __init__(
        self,
        constructed: float = ta.CONSTRUCTED_WEIGHT,
        book_open: float = 1.0,
        keywordless: float = 1.0,
        scifact: float = 0.0,
        reader_threshold: bool = False,
        known_without: bool = False,
        fit: Callable[[Array, Array, Array, int], ta.Fitted] = ta.fit_model,
    ) -> None:
        self.constructed, self.book_open, self.keywordless, self.scifact = (
            constructed,
            book_open,
            keywordless,
            scifact,
        )
        self.reader_threshold, self.known_without, self.fit = reader_threshold, known_without, fit

    def weight(self, row: Row) -> float:
        w = self.constructed if row["kind"] == "constructed" else 1.0
        if row["y"] == 1 and not row.get("keywords_found", True):
            w *= self.keywordless
        if row["book"] == TRAIN_ONLY:
            w *= self.scifact
        return w * (self.book_open if row["set"].startswith(BOOK_OPEN) else 1.0)

    def x(self, row: Row) -> list[float]:
        return list(row["x_without"] if self.known_without and "x_without" in row else row["x"])


def held_out(rows: list[Row], columns: list[int], target: float, variant: Variant) -> lobo.Held:
    """Each measured row with its margin over the threshold of the fold trained without its book."""
    held: lobo.Held = []
    saved = ta.FEATURES
    # the stumps name their signals by position, and a step function checks its signal's name
    ta.FEATURES = answerability.FEATURES = tuple(ALL[i] for i in columns)
    try:
        for book in sorted({r["book"] for r in rows} - {TRAIN_ONLY}):
            train = [r for r in rows if r["book"] != book and variant.weight(r) > 0]
            test = [r for r in rows if r["book"] == book]
            x = np.asarray([variant.x(r) for r in train], dtype=np.float64)[:, columns]
            y = np.asarray([r["y"] for r in train], dtype=np.float64)
            sw = np.asarray([variant.weight(r) for r in train])
            model = variant.fit(x, y, sw, ta.STUMPS)
            p_train = ta.predict(model, x)
            keep = [
                p
                for p, r in zip(p_train, train, strict=True)
                if r["y"] == 1
                and r["book"] != TRAIN_ONLY
                and not (variant.reader_threshold and r["set"].startswith(BOOK_OPEN))
            ]
            pos = sorted(keep)
            threshold = float(pos[int((1 - target) * len(pos))])
            xt = np.asarray([variant.x(r) for r in test], dtype=np.float64)[:, columns]
            held += [(r, float(p) - threshold) for r, p in zip(test, ta.predict(model, xt), strict=True)]
    finally:
        ta.FEATURES = answerability.FEATURES = saved
    return held


def report(label: str, target: float, held: lobo.Held) -> None:
    of = [(r, m) for r, m in held if r["set"].startswith(("reader-", "train-"))]
    found = lobo.measure(of)
    matched = " ".join(f"{near_miss_refused(of, a):.1f}" for a in (0.88, 0.90, 0.92))
    print(
        f"{label:40} {target:.3f}  answered {found['answered'] * 100:.1f}  near misses "
        f"{found['near_miss_refused'] * 100:.1f}  oos {found['out_of_scope_refused'] * 100:.1f}  "
        f"AUROC {found['auroc_natural'] * 100:.2f} | nm at 88/90/92: {matched}",
        flush=True,
    )


def bagged(bags: int, seed: int = 0) -> Callable[[Array, Array, Array, int], ta.Fitted]:
    """`ta.fit_model` averaged over `bags` bootstrap samples, as one model of the shipped form: the
    mean of the logistic parts and of the step functions (log-odds add)."""

    def fit(x: Array, y: Array, sw: Array, stumps: int) -> ta.Fitted:
        rng = np.random.default_rng(seed)
        mean = x.mean(axis=0)
        scale = x.std(axis=0)
        scale[scale < 1e-6] = 1.0
        z = (x - mean) / scale
        ws, bs, steps = [], [], []
        for _ in range(bags):
            counts = np.bincount(rng.integers(0, len(y), len(y)), minlength=len(y)).astype(np.float64)
            w, b = ta.fit(z, y, sw * counts)
            ws.append(w)
            bs.append(b)
            steps.append(ta.boost_steps(x, y, sw * counts, z @ w + b, stumps) if stumps else ())
        return mean, scale, np.mean(ws, axis=0), float(np.mean(bs)), _averaged(steps)

    return fit


def _averaged(bags: list[tuple[answerability.StepFunction, ...]]) -> tuple[answerability.StepFunction, ...]:
    out = []
    for feature in ta.FEATURES:
        of = [s for steps in bags for s in steps if s.feature == feature]
        if not of:
            continue
        cuts = sorted({t for s in of for t in s.thresholds})
        points = [cuts[0] - 1.0, *((a + b) / 2 for a, b in pairwise(cuts)), cuts[-1] + 1.0]
        values = [sum(s(v) for s in of) / len(bags) for v in points]
        out.append(answerability.StepFunction(feature, tuple(cuts), tuple(values)))
    return tuple(out)


def with_l2(l2: float) -> Callable[[Array, Array, Array, int], ta.Fitted]:
    def fit(x: Array, y: Array, sw: Array, stumps: int) -> ta.Fitted:
        saved, ta.L2 = ta.L2, l2
        try:
            return ta.fit_model(x, y, sw, stumps)
        finally:
            ta.L2 = saved

    return fit


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("pairs", nargs="+")
    parser.add_argument("--target", type=float, nargs="*", default=[ta.TARGET_ANSWERED])
    parser.add_argument(
        "--only", nargs="*", default=[], help="run the variants whose label holds one of these"
    )
    parser.add_argument(
        "--scifact", type=Path, help="SciFact's folder: its train claims as extra training data"
    )
    args = parser.parse_args()
    pairs = [(Path(args.pairs[i]), Path(args.pairs[i + 1])) for i in range(0, len(args.pairs), 2)]
    rows = rows_for(pairs, args.scifact)
    base = list(range(len(FEATURES)))
    variants: dict[str, tuple[list[int], Variant]] = {"shipped": (base, Variant())}
    for k, name in enumerate(EXTRA):
        variants[f"+ {name}"] = ([*base, len(FEATURES) + k], Variant())
    for w in (0.15, 0.3, 0.5, 1.0):
        variants[f"constructed x{w}, known without"] = (base, Variant(constructed=w, known_without=True))
    for w in (0.15, 0.5, 1.0):
        variants[f"constructed x{w}"] = (base, Variant(constructed=w))
    for w in (0.0, 0.3, 0.6):
        variants[f"book-open sets x{w}"] = (base, Variant(book_open=w))
    variants["threshold on reader + train"] = (base, Variant(reader_threshold=True))
    for l2 in (0.1, 3.0, 10.0):
        variants[f"L2 {l2}"] = (base, Variant(fit=with_l2(l2)))
    variants["bagged x10"] = (base, Variant(fit=bagged(10)))
    for w in (0.7, 0.5, 0.3):
        variants[f"keyword-less answerable x{w}"] = (base, Variant(keywordless=w))
    if args.scifact is not None:
        for w in (0.1, 0.3, 1.0):
            variants[f"+ scifact train claims x{w}"] = (base, Variant(scifact=w))
    if args.only:
        variants = {k: v for k, v in variants.items() if k == "shipped" or any(o in k for o in args.only)}
    if args.only:
        variants = {k: v for k, v in variants.items() if k == "shipped" or any(o in k for o in args.only)}
    for target in args.target:
        for label, (columns, variant) in variants.items():
            report(label, target, held_out(rows, columns, target, variant))


if __name__ == "__main__":
    main()
