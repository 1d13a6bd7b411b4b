"""Query expansion study: does widening the query with the book's own words (or its best hits' vector)
put the relevant file and the answer keywords into the top 5? Retrieval alone (no writer, no
answerability), replayed in process from each collection's rows.

    .venv/bin/python bench/query_expansion_study.py CORPUS QUESTIONS.jsonl [...] --split all

The replay ranks as the engine does at the default top_k (5): the dense side's 40 best rows by cosine,
the keyword side's 40 best by BM25 (lance's analysis and scores, `lancedb_keywords.KeywordIndex`),
reciprocal rank fusion (k 60), the fused 10 best, the 0.30 cosine threshold, the top 5. Variants:

- bridge: each content word of the question the collection lacks (df 0; or every content word) adds
  its nearest collection terms by word-embedding cosine (each term embedded once through a surface
  form it has in the collection, cached under /tmp) to the BM25 query at weight w * cosine;
- rm3: the distinctive terms (tf-idf) of the top k dense (or fused) hits join the BM25 query at w;
- rocchio: the dense query is q + beta * the mean of the top k dense hits' vectors (the threshold on
  the original question's cosine or on the new one's);
- control: the base ranking under a lower cosine threshold (what "rocchio ... simnew" also does).

End to end, bench/query_expansion_answers.py runs bench/answer_quality.py with the index's keyword side
patched to the bridge (no engine change; with weight 0 it reproduces main's rows on tune and train).

Findings (Nov 2026, MiniLM; tune = reader sets --split tune, 100 in-scope questions; train = training
sets --split all, 219; base: relevant file in the top 5 95 / 196, every keyword 73 / 170, as the bench):

    variant (retrieval replay; ranges over settings)   tune rel5 / kw_all    train rel5 / kw_all
    bridge all (24: w 0.2-1, m 1/3, floor 0.5-0.7)      -2..+0 / -2..+2       +0..+3 / -4..+4
      w0.2 m3 floor 0.5 (best on both)                    +0 / +2               +1 / +2
      w0.5 m3 floor 0.5 (best on train)                   +0 / +1               +3 / +4
    bridge rare (df <= 2, 24)                           +0..+1 / -2..+1       +0..+2 / +1
      w0.35 m3 floor 0.7                                  +1 / +1               +0 / +1
    bridge absent (df 0, 24)                            +0..+1 / -4..+0       +0..+1 / +1
    bridge all, static word-piece vectors (24)          -2..+0 / -3..+1       +0..+2 / +0..+2
    bridge rare, static word-piece vectors (24)             +0 / +0..+1           +0 / +0..+1
    rm3 (36: k 3/5, n 3-10, w 0.2-0.5, dense/fused)     -6..+0 / -2..+3       -5..+1 / -2..+3
      dense k3 n10 w0.2 (best kw)                         -2 / +2               +0 / +3
    rocchio, threshold on the question's cosine (9)     -2..+1 / -2..+0       -8..-1 / -6..+0
    rocchio, threshold on the new vector's cosine (9)   +0..+2 / -1..+1       -4..+5 / +0..+7
    control: threshold 0.25 / 0.20 / 0.0, no expansion    +1 / +1               +4..+5 / +6..+7
    rocchio, threshold 0.0 (9), against control 0.0     -1..+1 / -2..+0       -8..+0 / -6..+1

Rocchio's only gains are the threshold's: the mixed vector is nearer every chunk, so fewer hits fall
under 0.30, and lowering the threshold alone gains as much; under the same threshold its order gains
nothing (and rerank_study found keeping hits under the threshold does not carry to the answers).
RM3 pulls the top dense hits' own words into the keyword side, which then agrees with the dense side
instead of adding evidence: the relevant file drops out of the top 5.
The bridge moves 1-4 questions: a reader's word embedded alone rarely lands on the book's term, since
readers paraphrase with phrases ("under the hood" -> hood: neck, head, mug; "sits" -> chair; "plug" ->
plugins, connector, electrical; "maths" -> mathematical is the rare good one).

End to end (bench/query_expansion_answers.py; main: tune answered 91.0 / cited 88.0 / every keyword
76.9 / follow-ups cited 96.9 / near misses refused 90.0 / AUROC 98.1; train 84.5 / 79.0 / 82.2 / 98.5 /
90.0 / 96.1):

  answered / cited / every keyword / follow-ups cited / near misses refused / AUROC:
                               tune                                   train
  bridge all w0.2 m3 f0.5      91.0 / 88.0 / 74.7 / 90.6 / 90 / 97.9  84.5 / 79.5 / 81.6 / 98.5 / 88.8 / 95.9
  same, static vectors         91.0 / 87.0 / 78.0 / 93.8 / 90 / 98.1  84.0 / 79.0 / 82.6 / 98.5 / 88.8 / 95.9
  rare w0.35 m3 f0.7           91.0 / 88.0 / 76.9 / 96.9 / 90 / 98.2  84.5 / 79.0 / 82.7 / 98.5 / 90.0 / 96.1
  rare, static, w0.35 m3 f0.5  91.0 / 88.0 / 76.9 / 96.9 / 90 / 98.1  84.5 / 79.0 / 82.7 / 98.5 / 90.0 / 96.1

The passages gain (tune every keyword in the top 5 73 -> 74-75 %, train 80.4 -> 80.8-81.7 %) and the
answers do not. Bridging every word churns: on tune rb-in-37, rb-in-47 and rc-in-29 lose a keyword and
rb-in-33 gains one, follow-ups rc-fu-09 and rd-fu-01 go unanswered; on train 6 answers improve and 7
get worse, and near miss td-nm-18 is answered (static vectors: 3 better, 3 worse, the same near miss
answered, tune cited -1). Bridging only the words the book lacks (df <= 2) changes one answer over
both sets: tc-in-26 ("my position estimate wanders off by more than 10 cm for every metre", keyword
enable_loop_closure), where "metre" finds "meters" (cosine 0.87; static 0.68), a spelling variant
rather than a reader's paraphrase. One answer does not pay for what wiring it needs: a weighted
keyword query (LanceDB's own FTS path, used before the in-memory index is built and for filtered
searches, takes text only), a vocabulary matrix per collection (3.6k x 384 floats for textbook-d;
SciFact's ~28k terms would be ~43 MB) and, with contextual vectors, embedding the question's rare
words on each answer: 4-7.5 ms of CPU for 2-7 words (the question itself: 3.6 ms), far
past the 0.5 ms allowed. Nothing changed in the engine.
"""

from __future__ import annotations

import argparse
import hashlib
import re
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from common import build, read_jsonl
from lectern.index.lancedb_keywords import KeywordIndex, terms

DEPTH = 40  # candidate_depth(10)
FUSED = 10  # fetch_depth(5)
RRF_K = 60
THRESHOLD = 0.30
TOP = 5
CACHE = Path("/tmp/qexp_vocab")
_WORD = re.compile(r"[^\W_]+")


STATIC = [False]  # --static: word vectors from the input embedding table


def _static() -> tuple[NDArray[np.float32], Any]:
    from lectern.embeddings import minilm_assets as assets

    if not _STATIC_CACHE:
        path = assets.model_dir()
        _STATIC_CACHE.append(assets.load_weights(path)[assets.WORD_EMBEDDINGS])
        _STATIC_CACHE.append(assets.counting_tokenizer())
    return _STATIC_CACHE[0], _STATIC_CACHE[1]


_STATIC_CACHE: list[Any] = []


class Book:
    """One collection's rows in memory: chunks, vectors, posting lists, vocabulary vectors."""

    def __init__(self, corpus: Path) -> None:
        engine, _, _ = build(corpus)
        self.embedder = engine.retriever.embedder
        index: Any = engine.retriever.index
        index.search(vector=None, text="x", mode="keyword", top_k=1)
        table = index._open()
        snap = index._snapshots.get(
            table, table.version, index._layout(table, table.version).columns, lambda t: True
        )
        rows = snap.records(snap.hashes)
        self.chunks = [rows[h][0] for h in snap.hashes]
        self.matrix = snap.matrix * snap.inverse_norms[:, None]
        texts = [c.search_text for c in self.chunks]
        self.lower = [c.text.lower() for c in self.chunks]
        self.kw = KeywordIndex.build(texts)
        self.df = {t: int(self.kw.starts[i + 1] - self.kw.starts[i]) for t, i in self.kw.slices.items()}
        n = len(texts)
        self.idf = {t: float(np.log(1 + (n - d + 0.5) / (d + 0.5))) for t, d in self.df.items()}
        self.tf = [Counter(terms(t, {})) for t in texts]
        self._words: dict[str, NDArray[np.float32]] = {}
        self._vocab_vectors(texts)

    def _vocab_vectors(self, texts: list[str]) -> None:
        surface: dict[str, Counter[str]] = {}
        cache: dict[str, str] = {}
        for text in texts:
            for word in _WORD.findall(text):
                found = terms(word, cache)
                if len(found) == 1 and not word.isdigit() and len(word) > 2:
                    surface.setdefault(found[0], Counter())[word.lower()] += 1
        self.vocab = sorted(surface)
        self.forms = [surface[t].most_common(1)[0][0] for t in self.vocab]
        key = hashlib.sha1("\n".join(self.forms).encode()).hexdigest()[:16]
        path = CACHE / f"{key}.npy"
        if STATIC[0]:
            self.vocab_matrix = self.static_vectors(self.forms)
        elif path.exists():
            self.vocab_matrix = np.load(path)
        else:
            CACHE.mkdir(exist_ok=True)
            self.vocab_matrix = np.asarray(self.embedder.embed_documents(self.forms), dtype=np.float32)
            np.save(path, self.vocab_matrix)
        print(f"{len(texts)} chunks, vocabulary {len(self.vocab)}", file=sys.stderr)

    def static_vectors(self, words: list[str]) -> NDArray[np.float32]:
        """Each word's mean word-piece input embedding (no model run), unit length."""
        table, tok = _static()
        out = np.stack([table[tok.encode(w, add_special_tokens=False).ids].mean(axis=0) for w in words])
        return (out / np.linalg.norm(out, axis=1, keepdims=True)).astype(np.float32)

    def word_vectors(self, words: list[str]) -> NDArray[np.float32]:
        if STATIC[0]:
            return self.static_vectors(words)
        new = [w for w in words if w not in self._words]
        if new:
            vecs = np.asarray(self.embedder.embed_documents(new), dtype=np.float32)
            self._words.update(zip(new, vecs, strict=True))
        return np.stack([self._words[w] for w in words])

    def bm25(self, weighted: dict[str, float]) -> list[int]:
        scores = np.zeros(self.kw.size, dtype=np.float32)
        for term, w in weighted.items():
            posting = self.kw.posting(term)
            if posting is not None:
                scores[posting[0]] += np.float32(w) * posting[1]
        hit = np.flatnonzero(scores)
        order = np.lexsort((hit, -scores[hit]))[:DEPTH]
        return [int(hit[i]) for i in order]

    def dense(self, qv: NDArray[np.float32]) -> list[int]:
        scores = self.matrix @ qv
        order = np.lexsort((np.arange(len(scores)), -scores))[:DEPTH]
        return [int(i) for i in order]


def fuse(dense: list[int], keyword: list[int]) -> list[int]:
    scores: dict[int, float] = {}
    for ranking in (dense, keyword):
        for r, row in enumerate(ranking, start=1):
            scores[row] = scores.get(row, 0.0) + 1.0 / (RRF_K + r)
    return [row for row, _ in sorted(scores.items(), key=lambda kv: -kv[1])]


def query_terms(q: str) -> dict[str, float]:
    out: dict[str, float] = {}
    for t in terms(q):
        out[t] = out.get(t, 0.0) + 1.0
    return out


Variant = Callable[[Book, str, NDArray[np.float32]], tuple[list[int], NDArray[np.float32]]]


def top5(
    book: Book,
    dense: list[int],
    keyword: list[int],
    sim_vector: NDArray[np.float32],
    threshold: float = THRESHOLD,
) -> list[int]:
    fused = fuse(dense, keyword)[:FUSED]
    sims = book.matrix[fused] @ sim_vector if fused else np.zeros(0)
    return [row for row, s in zip(fused, sims, strict=True) if s >= threshold][:TOP]


def lowered(threshold: float) -> Any:
    """Control: the base ranking under a lower cosine threshold."""

    def run(book: Book, q: str, qv: NDArray[np.float32]) -> list[int]:
        return top5(book, book.dense(qv), book.bm25(query_terms(q)), qv, threshold)

    return run


def base(book: Book, q: str, qv: NDArray[np.float32]) -> list[int]:
    return top5(book, book.dense(qv), book.bm25(query_terms(q)), qv)


def bridge(w: float, m: int, floor: float, only_absent: bool, rare_df: int = 0) -> Any:
    def run(book: Book, q: str, qv: NDArray[np.float32]) -> list[int]:
        weighted = query_terms(q)
        words = {}
        for word in _WORD.findall(q):
            found = terms(word, {})
            if len(found) == 1 and len(word) > 2 and not word.isdigit():
                words[found[0]] = word.lower()
        pick = [t for t in words if (book.df.get(t, 0) <= rare_df if only_absent else True)]
        if pick:
            sims = book.word_vectors([words[t] for t in pick]) @ book.vocab_matrix.T
            for t, row in zip(pick, sims, strict=True):
                best = np.argsort(-row)[: m + 1]
                added = 0
                for j in best:
                    term = book.vocab[j]
                    if term == t or row[j] < floor or added >= m:
                        continue
                    weighted[term] = weighted.get(term, 0.0) + w * float(row[j])
                    added += 1
        return top5(book, book.dense(qv), book.bm25(weighted), qv)

    return run


def rm3(k: int, n: int, w: float, source: str, max_df: float = 0.1) -> Any:
    def run(book: Book, q: str, qv: NDArray[np.float32]) -> list[int]:
        weighted = query_terms(q)
        dense = book.dense(qv)
        feedback = dense[:k] if source == "dense" else fuse(dense, book.bm25(weighted))[:k]
        score: Counter[str] = Counter()
        for row in feedback:
            tf = book.tf[row]
            total = sum(tf.values()) or 1
            for t, c in tf.items():
                if book.df[t] <= max_df * book.kw.size:
                    score[t] += c / total * book.idf[t]
        added = [(t, s) for t, s in score.most_common() if t not in weighted][:n]
        if added:
            top = added[0][1]
            for t, s in added:
                weighted[t] = w * s / top
        return top5(book, dense, book.bm25(weighted), qv)

    return run


def rocchio(k: int, beta: float, sim_on_new: bool, threshold: float = THRESHOLD) -> Any:
    def run(book: Book, q: str, qv: NDArray[np.float32]) -> list[int]:
        dense = book.dense(qv)
        new = qv + beta * book.matrix[dense[:k]].mean(axis=0)
        new = new / np.linalg.norm(new)
        sim = new if sim_on_new else qv
        return top5(book, book.dense(new), book.bm25(query_terms(q)), sim, threshold)

    return run


def variants() -> dict[str, Any]:
    out: dict[str, Any] = {"base": base}
    for threshold in (0.25, 0.2, 0.1, 0.0):
        out[f"control threshold {threshold}"] = lowered(threshold)
    for w in (0.2, 0.35, 0.5, 1.0):
        for m in (1, 3):
            for floor in (0.5, 0.6, 0.7):
                out[f"bridge absent w{w} m{m} f{floor}"] = bridge(w, m, floor, True)
                out[f"bridge rare<=2 w{w} m{m} f{floor}"] = bridge(w, m, floor, True, 2)
                out[f"bridge all w{w} m{m} f{floor}"] = bridge(w, m, floor, False)
    for k in (3, 5):
        for n in (3, 5, 10):
            for w in (0.2, 0.35, 0.5):
                for source in ("dense", "fused"):
                    out[f"rm3 {source} k{k} n{n} w{w}"] = rm3(k, n, w, source)
    for k in (1, 3, 5):
        for beta in (0.1, 0.25, 0.5):
            for on_new in (False, True):
                out[f"rocchio k{k} b{beta} {'simnew' if on_new else 'simq'}"] = rocchio(k, beta, on_new)
            # the same threshold as control 0.0: what the new order alone does
            out[f"rocchio0 k{k} b{beta}"] = rocchio(k, beta, False, 0.0)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("pairs", nargs="+")
    parser.add_argument("--split", default="all")
    parser.add_argument("--only", default="", help="run only variants whose name starts with this")
    parser.add_argument("--static", action="store_true", help="bridge on input word-piece embeddings")
    args = parser.parse_args()
    STATIC[0] = args.static
    pairs = list(zip(args.pairs[::2], args.pairs[1::2], strict=True))
    chosen = {k: v for k, v in variants().items() if k == "base" or k.startswith(args.only)}
    rel: Counter[str] = Counter()
    kw_all: Counter[str] = Counter()
    total = 0
    for corpus, questions in pairs:
        book = Book(Path(corpus))
        for record in read_jsonl(Path(questions)):
            if record.get("kind") != "in_scope":
                continue
            if args.split != "all" and record.get("split", "tune") != args.split:
                continue
            total += 1
            q = record["question"]
            qv = np.asarray(book.embedder.embed_query(q), dtype=np.float32)
            expected = set(record.get("expected", []))
            keys = [k.lower() for k in record["keywords"]]
            for name, fn in chosen.items():
                top = fn(book, q, qv)
                rel[name] += any(book.chunks[r].source_path in expected for r in top)
                kw_all[name] += all(any(k in book.lower[r] for r in top) for k in keys)
        print(f"{questions}: done", file=sys.stderr)
    print(f"n={total}")
    b_rel, b_kw = rel["base"], kw_all["base"]
    rows = sorted(chosen, key=lambda v: -(rel[v] + kw_all[v]))
    for name in rows:
        gain = f"rel5 {rel[name]:4} ({rel[name] - b_rel:+d})  kw_all {kw_all[name]:4} "
        gain += f"({kw_all[name] - b_kw:+d})"
        print(f"{name:40} {gain}")


if __name__ == "__main__":
    main()
