"""End-to-end check of the study's vocabulary bridge (bench/query_expansion_study.py), without wiring
it into the engine: bench/answer_quality.py run with the LanceDB index's keyword side patched, for
hybrid searches only (the answerability's term look-ups, keyword mode, stay as they are).

    .venv/bin/python bench/query_expansion_answers.py W M FLOOR [static] [rare=DF] -- ANSWER_QUALITY_ARGS...

The patched keyword side scores the snapshot's rows with the question's terms plus, for each content
word (only those in at most DF rows with rare=DF), its M nearest collection terms (cosine >= FLOOR)
at weight W * cosine (`study.bridge`). static: word vectors from the model's input embeddings.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

import answer_quality
import query_expansion_study as study
from common import make_embedder
from lectern.index.lancedb_index import LanceDBIndex
from lectern.index.lancedb_keywords import KeywordIndex, terms
from lectern.settings import load_settings

_mode = threading.local()
_books: dict[int, Any] = {}


class SnapshotBook(study.Book):
    """A study Book over an index snapshot (the engine's own rows) instead of a corpus."""

    def __init__(self, snapshot: Any, embedder: Any) -> None:
        self.embedder = embedder
        rows = snapshot.records(snapshot.hashes)
        texts = [rows[h][0].search_text for h in snapshot.hashes]
        self.kw = KeywordIndex.build(texts)
        self.df = {t: int(self.kw.starts[i + 1] - self.kw.starts[i]) for t, i in self.kw.slices.items()}
        self._words = {}
        self._vocab_vectors(texts)


def weighted(book: study.Book, q: str, w: float, m: int, floor: float, rare: int) -> dict[str, float]:
    out = study.query_terms(q)
    words = {}
    for word in study._WORD.findall(q):
        found = terms(word, {})
        if len(found) == 1 and len(word) > 2 and not word.isdigit():
            words[found[0]] = word.lower()
    if rare >= 0:  # only the words the collection lacks (in at most `rare` rows)
        words = {t: word for t, word in words.items() if book.df.get(t, 0) <= rare}
    if words:
        sims = book.word_vectors(list(words.values())) @ book.vocab_matrix.T
        for t, row in zip(words, sims, strict=True):
            added = 0
            for j in np.argsort(-row)[: m + 1]:
                term = book.vocab[j]
                if term == t or row[j] < floor or added >= m:
                    continue
                out[term] = out.get(term, 0.0) + w * float(row[j])
                added += 1
    return out


def main() -> None:
    split = sys.argv.index("--")
    opts, rest = sys.argv[1:split], sys.argv[split + 1 :]
    w, m, floor = float(opts[0]), int(opts[1]), float(opts[2])
    study.STATIC[0] = "static" in opts[3:]
    rare = next((int(o[5:]) for o in opts[3:] if o.startswith("rare=")), -1)
    embedder = make_embedder(load_settings())
    search, keywords_of = LanceDBIndex.search, LanceDBIndex._keywords_of

    def patched_search(self: LanceDBIndex, **kwargs: Any) -> Any:
        _mode.hybrid = kwargs.get("mode", "hybrid") == "hybrid"
        return search(self, **kwargs)

    def patched_keywords(
        self: LanceDBIndex, table: Any, snapshot: Any, read: Any, text: str, where: Any, n: int, local: bool
    ) -> Sequence[Any]:
        if not getattr(_mode, "hybrid", False) or snapshot is None or where:
            return keywords_of(self, table, snapshot, read, text, where, n, local)  # type: ignore[no-any-return]
        book = _books.get(id(snapshot))
        if book is None:
            book = _books[id(snapshot)] = SnapshotBook(snapshot, embedder)
        scores = np.zeros(book.kw.size, dtype=np.float32)
        for term, weight in weighted(book, text, w, m, floor, rare).items():
            posting = book.kw.posting(term)
            if posting is not None:
                scores[posting[0]] += np.float32(weight) * posting[1]
        hit = np.flatnonzero(scores)
        order = np.lexsort((hit, -scores[hit]))[:n]
        return [
            (snapshot.hashes[hit[i]], int(snapshot.row_ids[hit[i]]), float(scores[hit[i]])) for i in order
        ]

    LanceDBIndex.search = patched_search  # type: ignore[method-assign]
    LanceDBIndex._keywords_of = patched_keywords  # type: ignore[method-assign]
    sys.argv = [sys.argv[0], *rest]
    answer_quality.main()


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).parent))
    main()
