"""Query-side adapter study: does a linear map on the frozen MiniLM question vector (q' = normalise(W q),
chunk vectors unchanged, so no re-ingest; one 384 x 384 product a question) put the relevant file and
the answer keywords into the top 5? Retrieval alone (no writer, no answerability), replayed in process
from each collection's rows with bench/query_expansion_study.py's replay (dense 40 + BM25 40, RRF k 60,
fused 10, cosine 0.30, top 5); the base reproduces the bench (tune 95 / 73, train 196 / 170 of 100 / 219).

    D=../shared/data/textbooks
    .venv/bin/python bench/query_adapter_study.py $D/textbook-a $D/textbook-b $D/textbook-c \\
        $D/textbook-d --scifact ../shared/data/scifact [--sections lobo,self] [--only "ridge reg3.0"]

(~8 min on two shared cores once the vectors are cached under /tmp/qadapt_cache; the first run embeds
SciFact's 5,183 abstracts, ~10 min, and the questions and pseudo-questions, a few minutes.)

Questions per book: the reader set's tune split, the training set (all) and dev2; in-scope ones (439:
tune 100, train 219, dev2 120) are scored, near misses (168) only feed the cosine AUROC. A question's
positives are its expected files' chunks holding the most answer keywords (~1.6 a question); each
training query sees its positives and the base cosine's 100 best other rows (hard negatives).
Adapters, W = I + delta, numpy only: ridge (closed form toward the positives' mean, pull reg * n / 384
toward I), contrastive (softmax at scale 20 over the candidates, Adam 150 steps, L2 pull of delta) with
a full, rank-16 (U V^T) or diagonal delta. Protocols:

- LOBO: fit on the other three books' questions (every split; "+scifact": SciFact's 809 train claims
  with their qrels added at half weight; "scifact": those alone), test on the held-out book;
- seen-books: fit on all four books' train split, test on every split: the fitting check;
- self: per collection, no labels, pairs from the corpus itself: "heading" = a chunk's heading path ->
  the chunks under it, "first" = a chunk's first sentence -> the chunk (SciFact: its title / abstract's
  first sentence, a third of the abstracts), fitted on that collection and tested on its questions.

Columns: relevant file in the top 5 (rel5) and every keyword in the top 5 (kw) as differences to the
base, over all 439 questions; "q kw" the same with the 0.30 threshold kept on the original question's
cosine; AUROC of the top-1 cosine, in-scope vs near miss (all splits pooled); SciFact nDCG@10 of its
300 test claims, dense only / dense + BM25 (doc-level vectors of title + abstract, no threshold).

Findings (Nov 2026, MiniLM int8 as the engine; 3 points of kw = 13 questions):

    base: rel5 400/439 (91.1 %), kw 331/439 (75.4 %); AUROC 69.5; SciFact 64.3 / 71.1
                                     rel5  kw   q kw  kw by book a/b/c/d  AUROC  SciFact
    LOBO books ridge reg0.1           -8  -30   -30   -11/-7/-8/-4        68.8   54.3 / 68.3
      ridge reg1                      +8   -8   -16   -3/+1/-6/+0         73.0   63.1 / 71.0
      ridge reg3                      +9   -5   -14   -4/+2/-3/+0         73.3   63.9 / 71.0
      ridge reg10 (best kw)          +11   +2    -8   -3/+5/-3/+3         71.7   64.1 / 71.0
      ridge reg30                     +8   +0    -5   -1/+2/-3/+2         70.4   64.3 / 71.1
      full reg0.01                   -76  -64    +2                       76.0   63.2 / 71.3
      full reg0.1                    -13   +0    +2   +4/-8/+0/+4         75.6   64.1 / 71.3
      full reg1                       +0   +1    +0                       71.1   64.3 / 70.9
      rank-16 reg0.1                 -15   -4    +3                       75.2   64.1 / 71.1
      diagonal reg0.01 / 0.1        -2/0 0/-2  -1/-2                      70.1   64.7 / 71.1
    LOBO books+scifact ridge reg3    +10   +1    -8   -2/+5/-4/+2         71.2   68.0 / 73.2
      ridge reg10                     +8   +0    -5                       70.3   66.1 / 72.3
      full reg0.1                    -10   +2    +2   +4/-6/+0/+4         75.3   66.5 / 72.5
      rank-16 reg0.1                 -10   +2    +4                       74.9   64.9 / 71.5
    LOBO scifact only ridge reg0.3   -24  -22    -5                       69.9   77.4 / 77.9
      ridge reg1                      -4   -4    -3                       70.2   75.4 / 75.8
      full reg0.01                    -9   -5    -4                       70.8   81.9 / 78.5
      full reg0.1                     -1   +1    +0                       69.8   73.5 / 76.3
    seen-books full reg0.1: train +21 / +34 (in sample), tune -2 / +3, dev2 -2 / +2; AUROC 81.5
      ridge reg1: train +19 / +28, tune +2 / +0, dev2 +0 / -9; AUROC 88.0
      rank-16 reg0.1: train +20 / +33, tune -1 / +3, dev2 -3 / +2; AUROC 78.7
    self heading ridge reg0.3-30      +0..+2  -1..+2  -3..+0               70-71  64.4-65.0 / 71.0-71.6
      full reg0.1                    -17   -8    +9   -1/-5/-3/+1         74.7   64.5 / 71.2
    self first ridge reg1             +11  -4   -13   -2/+2/-6/+2         73.4   63.7 / 71.1
      ridge reg3 (best kw)           +11   +5    -6   -1/+5/-4/+5         72.9   64.0 / 71.0
      ridge reg10                    +11   +1    -5                       71.4   64.3 / 71.2
      full reg0.1                     -5   -1    +5   +1/-5/-2/+5         73.3   63.9 / 71.1
      rank-16 reg0.1                  -4   +1    +7   +1/-4/-2/+6         73.4   63.9 / 71.0
    (diagonal maps: within +-3 in every protocol; contrastive full reg0.01 loses 57-155 kw in LOBO
    books and self; the script prints every row, per split and per book)

No adapter reaches the bar (+13 kw leave-one-book-out without losing rel5 or SciFact). The best
supervised LOBO map moves kw by +2 (0.5 point; ridge reg10 with rel5 +11, or contrastive full with
SciFact at rel5 -10), and the books disagree: the same map gains on one book and loses on another
(full reg0.1: a +4, b -8, c 0, d +4). Ridge maps do raise rel5 (+8..+11, ~2.5 points) without kw:
the right file, not the keyword's chunk. With the test book's own questions in training (seen-books)
the train split gains +20..+40 kw in sample while the same books' tune and dev2 questions move
-18..+3 (-9..+3 for ridge reg >= 1 and contrastive reg0.1): what the maps learn is the training
questions, not how readers word questions (fitting, not learning). SciFact in training does not
transfer either way: SciFact alone lifts SciFact nDCG@10 to 72-82 (its own claims and abstracts, a
real in-domain gain) and moves the books' kw -22..+1; mixed with the books it keeps part of that
(65-76) and the books' kw at -20..+2. The self-supervised maps learn from the corpus at ingest
without labels and come closest (first sentence -> chunk, ridge reg3: kw +5, rel5 +11, 1.1 / 2.5
points), still under the bar and with the same book-to-book sign changes (b +5, c -4, d +5); heading
paths already sit inside every chunk's embedded text, so that pair teaches nearly nothing.
Part of every change is the 0.30 threshold's, as with Rocchio in query_expansion_study: ridge maps
raise every adapted cosine (mean top-1 of in-scope questions 0.555 -> 0.61-0.64 LOBO), so more rows
pass and keeping the threshold on the original cosine ("q kw") loses 5-30; contrastive maps sharpen
and lower them (0.555 -> 0.485-0.49), so the threshold cuts rows (rel5 -10..-13) and "q kw" gains 2-9.

Near misses (mean top-1 cosine in-scope / near miss; base 0.555 / 0.485, AUROC 69.5): every map that
moves rankings widens the gap, and shifts both. Ridge reg3 LOBO 0.635 / 0.560 (AUROC 73.3),
books+scifact 0.616 / 0.543 (71.2), self first 0.609 / 0.523 (72.9); contrastive full reg0.1 LOBO
0.485 / 0.389 (75.6); seen-books up to 0.708 / 0.571 (87-88, fitted). The answerability decision
(its own AUROC 96-98) reads raw cosines on fixed thresholds, so any adapter would need it retrained
(bench/train_answerability.py): with ridge's shift, near misses would look as close as in-scope
questions look now; with the contrastive one, in-scope questions would fall under its cut.
Nothing changed in the engine.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from common import read_jsonl
from lectern.index.lancedb_keywords import KeywordIndex
from query_expansion_study import DEPTH, FUSED, THRESHOLD, TOP, fuse, query_terms
from query_expansion_study import Book as _Book

F32 = NDArray[np.float32]
CANDIDATES = 100  # per training query: its positives, then the base ranking's best other rows
MAX_POS = 8
CACHE = Path("/tmp/qadapt_cache")
_SENTENCE = re.compile(r"(?<=[.!?])\s+")


class Book(_Book):
    """The replay's rows without the word-vector vocabulary (the adapter needs none)."""

    def _vocab_vectors(self, texts: list[str]) -> None:
        return None


@dataclass
class Question:
    book: int
    qid: str
    kind: str
    split: str
    text: str
    vector: F32
    expected: set[str]
    keys: list[str]
    keyword_rank: list[int] = field(default_factory=list)
    positives: list[int] = field(default_factory=list)


@dataclass
class Pairs:
    """Training pairs of one document space: query vectors, candidate rows, which are positive."""

    queries: F32  # n x 384
    docs: F32  # rows x 384
    candidates: NDArray[np.int64]  # n x CANDIDATES
    positive: NDArray[np.bool_]  # n x CANDIDATES
    weight: float = 1.0
    gathered: F32 = field(init=False)  # n x CANDIDATES x 384, the candidates' vectors

    def __post_init__(self) -> None:
        self.gathered = np.ascontiguousarray(self.docs[self.candidates])


def normalise(x: F32) -> F32:
    out: F32 = (x / np.linalg.norm(x, axis=-1, keepdims=True)).astype(np.float32)
    return out


def embed_cached(embedder: Any, texts: list[str], name: str) -> F32:
    path = CACHE / f"{name}.npy"
    if path.exists():
        out = np.load(path)
        if len(out) == len(texts):
            return out  # type: ignore[no-any-return]
    CACHE.mkdir(exist_ok=True)
    out = np.stack([np.asarray(embedder.embed_query(t), dtype=np.float32) for t in texts])
    np.save(path, out)
    return out


def question_sets(folder: Path, name: str) -> list[tuple[Path, str]]:
    return [
        (folder / f"reader-{name}.jsonl", "tune"),
        (folder / f"train-{name}.jsonl", "all"),
        (folder / f"dev2-{name}.jsonl", "dev2"),
    ]


def load_questions(b: int, book: Book, folder: Path, name: str) -> list[Question]:
    records = []
    for path, split in question_sets(folder, name):
        for r in read_jsonl(path):
            if r.get("kind") not in ("in_scope", "near_miss"):
                continue
            if split != "all" and r.get("split", "tune") != split:
                continue
            records.append((r, "train" if split == "all" else split))
    vectors = embed_cached(book.embedder, [r["question"] for r, _ in records], f"q-{name}")
    out = []
    for (r, split), v in zip(records, vectors, strict=True):
        q = Question(
            b,
            r["id"],
            r["kind"],
            split,
            r["question"],
            v,
            set(r.get("expected", [])),
            [k.lower() for k in r.get("keywords", [])],
        )
        q.keyword_rank = book.bm25(query_terms(q.text))
        if q.kind == "in_scope":
            q.positives = positives(book, q)
        out.append(q)
    return out


def positives(book: Book, q: Question) -> list[int]:
    """The expected files' chunks holding the most answer keywords (all their chunks if none does)."""
    rows = [i for i, c in enumerate(book.chunks) if c.source_path in q.expected]
    counts = [sum(k in book.lower[i] for k in q.keys) for i in rows]
    best = max(counts, default=0)
    if best == 0:
        return rows[:MAX_POS]
    return [i for i, c in zip(rows, counts, strict=True) if c == best][:MAX_POS]


def make_pairs(queries: F32, docs: F32, pos: list[list[int]], weight: float = 1.0) -> Pairs:
    """Candidates per query: its positives, then the base cosine's best other rows (hard negatives)."""
    sims = queries @ docs.T
    cand = np.zeros((len(queries), CANDIDATES), dtype=np.int64)
    mask = np.zeros((len(queries), CANDIDATES), dtype=bool)
    for i, p in enumerate(pos):
        p = p[:MAX_POS]
        order = np.argsort(-sims[i])
        rest = [int(j) for j in order[: CANDIDATES + len(p)] if j not in set(p)][: CANDIDATES - len(p)]
        cand[i] = p + rest
        mask[i, : len(p)] = True
    return Pairs(queries, docs, cand, mask, weight)


# --- adapters ----------------------------------------------------------------------------------------


@dataclass
class Config:
    kind: str  # ridge | full | lowrank | diag
    reg: float
    scale: float = 20.0
    steps: int = 150
    lr: float = 2e-3
    rank: int = 16


def ridge(pairs: list[Pairs], reg: float) -> F32:
    """W minimising sum ||W q - d||^2 + reg * n * ||W - I||^2, d the positives' mean (unit length)."""
    qs, ds = [], []
    for p in pairs:
        targets = np.stack(
            [normalise(p.docs[c[m]].mean(axis=0)) for c, m in zip(p.candidates, p.positive, strict=True)]
        )
        qs.append(p.queries * np.sqrt(p.weight))
        ds.append(targets * np.sqrt(p.weight))
    q, d = np.concatenate(qs), np.concatenate(ds)
    lam = reg * len(q) / q.shape[1]
    eye = np.eye(q.shape[1], dtype=np.float64)
    wt = np.linalg.solve(q.T @ q + lam * eye, q.T @ d + lam * eye)
    return wt.T.astype(np.float32)


def contrastive_grad(p: Pairs, w: F32, scale: float) -> tuple[float, F32]:
    """Softmax over each query's candidates of scale * cos(W q, d); loss -log P(positives)."""
    u = p.queries @ w.T
    norms = np.linalg.norm(u, axis=1, keepdims=True)
    z = u / norms
    d = p.gathered
    logits = scale * np.einsum("nd,ncd->nc", z, d)
    logits -= logits.max(axis=1, keepdims=True)
    prob = np.exp(logits)
    prob /= prob.sum(axis=1, keepdims=True)
    pos = prob * p.positive
    mass = pos.sum(axis=1, keepdims=True)
    loss = float(-np.log(mass + 1e-12).mean())
    dlogits = prob - pos / (mass + 1e-12)
    dz = scale * np.einsum("nc,ncd->nd", dlogits, d)
    du = (dz - z * (dz * z).sum(axis=1, keepdims=True)) / norms
    return loss, (du.T @ p.queries / len(u)).astype(np.float32)


def contrastive(pairs: list[Pairs], cfg: Config, seed: int = 0) -> F32:
    """Adam on W = I + delta (full, low-rank U V^T or diagonal), L2 pull of delta toward 0."""
    dim = pairs[0].queries.shape[1]
    eye = np.eye(dim, dtype=np.float32)
    rng = np.random.default_rng(seed)
    if cfg.kind == "full":
        params = [np.zeros((dim, dim), np.float32)]
    elif cfg.kind == "lowrank":
        params = [
            rng.normal(0, 0.01, (dim, cfg.rank)).astype(np.float32),
            np.zeros((dim, cfg.rank), np.float32),
        ]
    else:
        params = [np.zeros((1, dim), np.float32)]  # the diagonal, as one row

    def weights() -> F32:
        if cfg.kind == "full":
            return eye + params[0]
        if cfg.kind == "lowrank":
            return eye + params[0] @ params[1].T
        return eye + np.diag(params[0][0])

    m = [np.zeros_like(x) for x in params]
    v = [np.zeros_like(x) for x in params]
    total = sum(p.weight for p in pairs)
    for step in range(1, cfg.steps + 1):
        w = weights()
        gw = np.zeros_like(w)
        for p in pairs:
            _, g = contrastive_grad(p, w, cfg.scale)
            gw += g * (p.weight / total)
        delta = w - eye
        gw += 2 * cfg.reg * delta
        if cfg.kind == "full":
            grads = [gw]
        elif cfg.kind == "lowrank":
            grads = [gw @ params[1], gw.T @ params[0]]
        else:
            grads = [np.diag(gw)[None, :].copy()]
        for i, g in enumerate(grads):
            m[i] = 0.9 * m[i] + 0.1 * g
            v[i] = 0.999 * v[i] + 0.001 * g * g
            mh, vh = m[i] / (1 - 0.9**step), v[i] / (1 - 0.999**step)
            params[i] -= cfg.lr * mh / (np.sqrt(vh) + 1e-8)
    return weights()


def fit(pairs: list[Pairs], cfg: Config) -> F32:
    if cfg.kind == "ridge":
        return ridge(pairs, cfg.reg)
    return contrastive(pairs, cfg)


# --- evaluation --------------------------------------------------------------------------------------


def replay(book: Book, q: Question, qv: F32, threshold_on: F32) -> list[int]:
    scores = book.matrix @ qv
    dense = [int(i) for i in np.lexsort((np.arange(len(scores)), -scores))[:DEPTH]]
    fused = fuse(dense, q.keyword_rank)[:FUSED]
    sims = book.matrix[fused] @ threshold_on if fused else np.zeros(0)
    return [r for r, s in zip(fused, sims, strict=True) if s >= THRESHOLD][:TOP]


def auroc(pos: list[float], neg: list[float]) -> float:
    a, b = np.asarray(pos)[:, None], np.asarray(neg)[None, :]
    return float(((a > b).sum() + 0.5 * (a == b).sum()) / (a.size * b.size))


@dataclass
class Score:
    rel: int = 0
    kw: int = 0
    rel_q: int = 0  # threshold on the original question's cosine
    kw_q: int = 0
    n: int = 0
    top1_in: list[float] = field(default_factory=list)
    top1_nm: list[float] = field(default_factory=list)

    def add(self, other: Score) -> None:
        self.rel += other.rel
        self.kw += other.kw
        self.rel_q += other.rel_q
        self.kw_q += other.kw_q
        self.n += other.n
        self.top1_in += other.top1_in
        self.top1_nm += other.top1_nm


def evaluate(book: Book, questions: list[Question], w: F32 | None, splits: set[str]) -> Score:
    s = Score()
    for q in questions:
        if q.split not in splits:
            continue
        qv = q.vector if w is None else normalise(w @ q.vector)
        top1 = float((book.matrix @ qv).max())
        if q.kind == "near_miss":
            s.top1_nm.append(top1)
            continue
        s.top1_in.append(top1)
        s.n += 1
        for top, on_q in ((replay(book, q, qv, qv), False), (replay(book, q, qv, q.vector), True)):
            rel = any(book.chunks[r].source_path in q.expected for r in top)
            kw = all(any(k in book.lower[r] for r in top) for k in q.keys)
            if on_q:
                s.rel_q += rel
                s.kw_q += kw
            else:
                s.rel += rel
                s.kw += kw
    return s


# --- SciFact -----------------------------------------------------------------------------------------


class SciFact:
    """Claims and abstracts (doc-level vectors, `title\\ntext`), BM25 over the same text, qrels."""

    def __init__(self, folder: Path, embedder: Any) -> None:
        docs = [json.loads(line) for line in (folder / "corpus.jsonl").open()]
        queries = {q["_id"]: q["text"] for q in map(json.loads, (folder / "queries.jsonl").open())}
        self.embedder = embedder
        self.ids = [d["_id"] for d in docs]
        row = {d: i for i, d in enumerate(self.ids)}
        texts = [(d["title"] + "\n" + d["text"]).strip() for d in docs]
        self.titles = [d["title"].strip() for d in docs]
        self.abstracts = [d["text"].strip() for d in docs]
        path = CACHE / "scifact-docs.npy"
        if path.exists():
            self.docs = np.load(path)
        else:
            CACHE.mkdir(exist_ok=True)
            self.docs = np.concatenate(
                [
                    np.asarray(embedder.embed_documents(texts[i : i + 256]), np.float32)
                    for i in range(0, len(texts), 256)
                ]
            )
            np.save(path, self.docs)
        self.kw = KeywordIndex.build(texts)
        self.qrels: dict[str, dict[str, list[int]]] = {}
        self.text: dict[str, dict[str, str]] = {}
        for split in ("train", "test"):
            rel: dict[str, list[int]] = {}
            for line in list((folder / "qrels" / f"{split}.tsv").open())[1:]:
                qid, did, score = line.split()
                if int(score) > 0 and did in row:
                    rel.setdefault(qid, []).append(row[did])
            self.qrels[split] = rel
            self.text[split] = {q: queries[q] for q in rel}
        ordered = [t for split in ("train", "test") for t in self.text[split].values()]
        vecs = embed_cached(embedder, ordered, "scifact-queries")
        n = len(self.text["train"])
        self.vectors = {"train": vecs[:n], "test": vecs[n:]}
        self.keyword_rank = {
            split: [[i for i, _ in self.kw.top(t, DEPTH)] for t in self.text[split].values()]
            for split in ("train", "test")
        }

    def pairs(self, weight: float) -> Pairs:
        return make_pairs(self.vectors["train"], self.docs, list(self.qrels["train"].values()), weight)

    def self_pairs(self, source: str) -> Pairs:
        """SciFact's own pseudo-questions: a title (its heading) or an abstract's first sentence -> it."""
        texts: list[str] = []
        pos: list[list[int]] = []
        for i in range(0, len(self.titles), 3):  # a third of the abstracts: the pairs' memory
            title, text = self.titles[i], self.abstracts[i]
            first = _SENTENCE.split(text, maxsplit=1)[0].strip() if source == "first" else title
            if 5 <= len(first.split()) <= 60 and first != text:
                texts.append(first)
                pos.append([i])
        vectors = embed_cached(self.embedder, texts, f"scifact-self-{source}")
        return make_pairs(vectors, self.docs, pos)

    def ndcg(self, w: F32 | None) -> tuple[float, float]:
        """nDCG@10 on the test claims: dense only, and dense 40 + BM25 40 fused by RRF."""
        qv = self.vectors["test"] if w is None else normalise(self.vectors["test"] @ w.T)
        sims = qv @ self.docs.T
        out = [0.0, 0.0]
        for i, rel in enumerate(self.qrels["test"].values()):
            dense = [int(j) for j in np.argsort(-sims[i])[:DEPTH]]
            for k, ranking in enumerate((dense, fuse(dense, self.keyword_rank["test"][i]))):
                gain = sum(1 / np.log2(r + 2) for r, j in enumerate(ranking[:10]) if j in rel)
                ideal = sum(1 / np.log2(r + 2) for r in range(min(len(rel), 10)))
                out[k] += gain / ideal
        n = len(self.qrels["test"])
        return 100 * out[0] / n, 100 * out[1] / n


# --- self-supervised pairs ---------------------------------------------------------------------------


def self_pairs(book: Book, name: str, source: str) -> Pairs:
    """Pseudo-questions from the collection: a heading path -> its chunks, a chunk's first sentence -> it."""
    texts: list[str] = []
    pos: list[list[int]] = []
    if source == "heading":
        groups: dict[str, list[int]] = {}
        for i, c in enumerate(book.chunks):
            path = " > ".join(h for h in c.heading_hierarchy if h)
            if path:
                groups.setdefault(path, []).append(i)
        for path, rows in groups.items():
            texts.append(path)
            pos.append(rows)
    else:
        for i, c in enumerate(book.chunks):
            first = _SENTENCE.split(c.text.strip(), maxsplit=1)[0].strip()
            if 5 <= len(first.split()) <= 60 and first != c.text.strip():
                texts.append(first)
                pos.append([i])
    vectors = embed_cached(book.embedder, texts, f"self-{source}-{name}")
    return make_pairs(vectors, book.matrix.astype(np.float32), pos)


# --- driver ------------------------------------------------------------------------------------------


def book_pairs(book: Book, questions: list[Question], splits: set[str]) -> Pairs | None:
    chosen = [q for q in questions if q.kind == "in_scope" and q.split in splits and q.positives]
    if not chosen:
        return None
    return make_pairs(
        np.stack([q.vector for q in chosen]), book.matrix.astype(np.float32), [q.positives for q in chosen]
    )


SPLITS = ("tune", "train", "dev2")


def report(
    label: str, per_split: dict[str, Score], base: dict[str, Score] | None, sci: tuple[float, float]
) -> str:
    cells = []
    for split in (*SPLITS, "all"):
        s = per_split[split]
        b = base[split] if base else s
        cells.append(f"{s.rel:3d}({s.rel - b.rel:+d}) {s.kw:3d}({s.kw - b.kw:+d}) q{s.kw_q - b.kw_q:+d}")
    s = per_split["all"]
    au = 100 * auroc(s.top1_in, s.top1_nm)
    books = "/".join(f"{per_split[f'book{b}'].kw - (base or per_split)[f'book{b}'].kw:+d}" for b in range(4))
    mean_in, mean_nm = float(np.mean(s.top1_in)), float(np.mean(s.top1_nm))
    out = f"{label:34} " + " | ".join(cells) + f" | books kw {books} | auroc {au:.1f}"
    out += f" top1 {mean_in:.3f}/{mean_nm:.3f}"
    return out + f" | scifact {sci[0]:.1f}/{sci[1]:.1f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("corpora", nargs=4)
    parser.add_argument("--questions", default="bench/questions")
    parser.add_argument("--scifact", default="../shared/data/scifact")
    parser.add_argument("--only", default="", help="run only configs whose name starts with this")
    parser.add_argument("--sections", default="lobo,self", help="lobo, self or both")
    args = parser.parse_args()
    started = time.time()
    books = [Book(Path(c)) for c in args.corpora]
    names = [Path(c).resolve().name for c in args.corpora]
    questions = [
        load_questions(b, book, Path(args.questions), n)
        for b, (book, n) in enumerate(zip(books, names, strict=True))
    ]
    sci = SciFact(Path(args.scifact), books[0].embedder)
    print(f"loaded in {time.time() - started:.0f}s", file=sys.stderr)

    def scores(ws: list[F32 | None]) -> dict[str, Score]:
        out = {s: Score() for s in (*SPLITS, "all", "book0", "book1", "book2", "book3")}
        for b, book in enumerate(books):
            for split in SPLITS:
                s = evaluate(book, questions[b], ws[b], {split})
                out[split].add(s)
                out["all"].add(s)
                out[f"book{b}"].add(s)
        return out

    base = scores([None] * 4)
    header = "columns: tune | train | dev2 | all: rel5(+-) kw_all(+-) q<kw_all, threshold on q's cosine>"
    print(header)
    print(report("base", base, None, sci.ndcg(None)))
    sci_pairs = sci.pairs(1.0)
    configs: dict[str, Config] = {}
    for reg in (0.1, 0.3, 1.0, 3.0, 10.0, 30.0):
        configs[f"ridge reg{reg}"] = Config("ridge", reg)
    for reg in (0.01, 0.1, 1.0):
        configs[f"full reg{reg}"] = Config("full", reg)
    configs["lowrank16 reg0.1"] = Config("lowrank", 0.1)
    configs["diag reg0.01"] = Config("diag", 0.01)
    configs["diag reg0.1"] = Config("diag", 0.1)
    chosen = {k: v for k, v in configs.items() if k.startswith(args.only)}
    all_splits = set(SPLITS)
    for label, cfg in chosen.items() if "lobo" in args.sections else ():
        for source in ("books", "books+scifact", "scifact"):
            ws: list[F32 | None] = []
            for held in range(4):
                pairs = (
                    []
                    if source == "scifact"
                    else [
                        p
                        for b in range(4)
                        if b != held
                        if (p := book_pairs(books[b], questions[b], all_splits))
                    ]
                )
                if source != "books":
                    sci_pairs.weight = 1.0 if source == "scifact" else 0.5
                    pairs.append(sci_pairs)
                ws.append(fit(pairs, cfg))
                if source == "scifact":
                    ws = ws * 4
                    break
            # SciFact with the mean of the four folds' maps (each fold's own would differ little)
            mean_w = np.mean(np.stack([w for w in ws if w is not None]), axis=0)
            print(report(f"LOBO {source} {label}", scores(ws), base, sci.ndcg(mean_w)), flush=True)
        # fitting check: train on every book's `train` split (the test book's included), test the rest
        seen = [p for b in range(4) if (p := book_pairs(books[b], questions[b], {"train"}))]
        w = fit(seen, cfg)
        print(report(f"seen-books(train) {label}", scores([w] * 4), base, sci.ndcg(w)), flush=True)
    # self-supervised, per collection, no labels
    for source in ("heading", "first") if "self" in args.sections else ():
        self_sets = [self_pairs(book, n, source) for book, n in zip(books, names, strict=True)]
        sci_self = sci.self_pairs(source)
        for label, cfg in chosen.items():
            ws = [fit([p], cfg) for p in self_sets]
            sci_w = fit([sci_self], cfg)
            print(report(f"self {source} {label}", scores(ws), base, sci.ndcg(sci_w)), flush=True)
    print(f"done in {time.time() - started:.0f}s", file=sys.stderr)


if __name__ == "__main__":
    main()
