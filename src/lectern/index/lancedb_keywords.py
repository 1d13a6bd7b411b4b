"""LanceDB's BM25 keyword ranking computed in process, over the rows of a snapshot in memory.

A keyword query through LanceDB's full-text index costs ~1.2-1.5 ms of CPU in its runtime threads (1k
rows, 2 cores); the same ranking from posting lists held in memory costs ~0.05-0.1 ms. The scores are
LanceDB's own, bit for bit, so the candidates are the same; rows with equal scores are ordered by
the caller's rule (`lectern.index.fusion.best_first`), LanceDB's results as well as these.

What this mimics (lance's ``InvertedIndexParams.build`` and ``IndexBM25Scorer``, lancedb 0.40):

- analysis: split on every character that is not a letter or digit ("simple"), drop tokens of 40
  bytes or more, lowercase, stem (Snowball English), drop stop words (the stop list is checked
  *after* stemming, and it is NLTK's English list, not Lucene's), fold accents to ASCII;
- BM25 in float32 with k1 = 1.2 and b = 0.75: idf = ln(1 + (N - df + 0.5) / (df + 0.5)), avgdl =
  the index's tokens / documents, a doc's weight (k1 + 1) * tf / (tf + k1 * (1 - b + b * dl / avgdl));
  a query term repeated counts again. The idf's logarithm is the C library's ``logf``, which lance
  calls (Rust's ``f32::ln``): the f64 log rounded to float32 differs from it by 1 ulp now and then
  (logf is not correctly rounded; at 2,443 rows, the idf of a term in one row: 27 of the 287 bench
  questions on textbook-d had a score 1 ulp above LanceDB's).

Only an index whose settings are exactly those qualifies (:func:`mimics`); the caller checks that the
FTS index covers every row of the snapshot and nothing more, else LanceDB answers.
"""

from __future__ import annotations

import atexit
import ctypes
import ctypes.util
import math
import re
import threading
import unicodedata
from array import array
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from lectern.code_pages import release_code_pages
from lectern.index.fusion import tied_at_nth_or_better
from lectern.index.heap import release_free_memory
from lectern.stemming import plain_stemmer_for, stemmer_for

# NLTK's English stop words as lance's tokenizer has them (words with an apostrophe left out: the
# tokenizer splits on it, so they never match a token).
LANCE_ENGLISH_STOP_WORDS = frozenset(
    {
        "i",
        "me",
        "my",
        "myself",
        "we",
        "our",
        "ours",
        "ourselves",
        "you",
        "your",
        "yours",
        "yourself",
        "yourselves",
        "he",
        "him",
        "his",
        "himself",
        "she",
        "her",
        "hers",
        "herself",
        "it",
        "its",
        "itself",
        "they",
        "them",
        "their",
        "theirs",
        "themselves",
        "what",
        "which",
        "who",
        "whom",
        "this",
        "that",
        "these",
        "those",
        "am",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "being",
        "have",
        "has",
        "had",
        "having",
        "do",
        "does",
        "did",
        "doing",
        "a",
        "an",
        "the",
        "and",
        "but",
        "if",
        "or",
        "because",
        "as",
        "until",
        "while",
        "of",
        "at",
        "by",
        "for",
        "with",
        "about",
        "against",
        "between",
        "into",
        "through",
        "during",
        "before",
        "after",
        "above",
        "below",
        "to",
        "from",
        "up",
        "down",
        "in",
        "out",
        "on",
        "off",
        "over",
        "under",
        "again",
        "further",
        "then",
        "once",
        "here",
        "there",
        "when",
        "where",
        "why",
        "how",
        "all",
        "any",
        "both",
        "each",
        "few",
        "more",
        "most",
        "other",
        "some",
        "such",
        "no",
        "nor",
        "not",
        "only",
        "own",
        "same",
        "so",
        "than",
        "too",
        "very",
        "s",
        "t",
        "can",
        "will",
        "just",
        "don",
        "should",
        "now",
        "d",
        "ll",
        "m",
        "o",
        "re",
        "ve",
        "y",
        "ain",
        "aren",
        "couldn",
        "didn",
        "doesn",
        "hadn",
        "hasn",
        "haven",
        "isn",
        "ma",
        "mightn",
        "mustn",
        "needn",
        "shan",
        "shouldn",
        "wasn",
        "weren",
        "won",
        "wouldn",
    }
)
MAX_TOKEN_BYTES = 40  # lance's default max_token_length: tokens this long or longer are dropped
K1 = np.float32(1.2)
B = np.float32(0.75)
_WORD = re.compile(r"[^\W_]+")  # runs of letters and digits
_MAX_CACHED_WORDS = 500_000
# The FTS settings mimicked; any other value (or a key unknown here set to a truthy value) disqualifies.
_SETTINGS = {
    "base_tokenizer": "simple",
    "language": "English",
    "max_token_length": MAX_TOKEN_BYTES,
    "lower_case": True,
    "stem": True,
    "remove_stop_words": True,
    "custom_stop_words": None,
    "ascii_folding": True,
}
_HARMLESS = {"lance_tokenizer", "with_position", "min_ngram_length", "max_ngram_length", "block_size"}

_terms_of_words: dict[str, str] = {}  # word as written -> its term ("" when dropped); shared, grows once


def mimics(details: Mapping[str, Any]) -> bool:
    """Whether an FTS index with these ``index_details`` analyses text exactly as :func:`terms`."""
    if any(details.get(key) != value for key, value in _SETTINGS.items()):
        return False
    if details.get("lance_tokenizer") not in (None, "text"):
        return False
    return not any(value for key, value in details.items() if key not in _SETTINGS and key not in _HARMLESS)


def _fold(text: str) -> str:
    if text.isascii():
        return text
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def _term(word: str, stem: Callable[[str], str]) -> str:
    if len(word.encode("utf-8")) >= MAX_TOKEN_BYTES:
        return ""
    stemmed = stem(word.lower())
    return "" if stemmed in LANCE_ENGLISH_STOP_WORDS else _fold(stemmed)


def terms(text: str, cache: dict[str, str] | None = None) -> list[str]:
    """The terms lance's English FTS analysis makes of `text`, in order, repeats kept. `cache`: where
    words' terms are remembered (default: the process's, shared by queries); one of the caller's own
    leaves the stemmer's shared cache alone too."""
    stem = stemmer_for("english") if cache is None else plain_stemmer_for("english")
    if cache is None:
        cache = _terms_of_words
    if len(cache) > _MAX_CACHED_WORDS:
        cache.clear()  # atomic; a racing thread only recomputes
    out = []
    for word in _WORD.findall(text):
        term = cache.get(word)
        if term is None:
            term = cache[word] = _term(word, stem)
        if term:
            out.append(term)
    return out


@dataclass(frozen=True)
class KeywordIndex:
    """Posting lists of one table version, end to end in two arrays (rows, idf * the row's BM25 weight,
    float32), each term's a slice of them: SciFact's 10k texts (~28k terms, ~750k postings) hold ~9 MB
    so, where a pair of arrays per term held ~33 MB (an array object costs ~100 bytes more than its
    few postings); the build's lists of Python ints gave way to compact arrays too (peak -15 MB)."""

    slices: dict[str, int]  # term -> its posting list: rows[starts[i]:starts[i + 1]]
    starts: NDArray[np.int64]
    rows: NDArray[np.int32]
    weights: NDArray[np.float32]
    size: int  # rows

    @classmethod
    def build(cls, texts: Iterable[str], size: int | None = None) -> KeywordIndex:
        """From every row's text, in table order (a row's position is its index in `texts`). With
        `size` (the number of rows), `texts` may be an iterator, read once: the caller need not hold
        every text as a Python string at once."""
        if size is None:
            texts = list(texts)
            size = len(texts)
        ids: dict[str, int] = {}  # term -> its number, in order of first sight
        # the table's words for this build only: in the shared caches they stayed (SciFact: 44k, ~20 MB)
        words: dict[str, str] = {}
        term_of, row_of, count_of = array("i"), array("i"), array("i")  # one posting each, row order
        lengths = np.zeros(size, dtype=np.float32)
        for position, text in enumerate(texts):
            found = terms(text, words)
            lengths[position] = len(found)
            counts: dict[int, int] = {}
            for term in found:
                number = ids.setdefault(term, len(ids))
                counts[number] = counts.get(number, 0) + 1
            term_of.extend(counts)
            row_of.extend([position] * len(counts))
            count_of.extend(counts.values())
        n = np.float32(size)
        avgdl = np.float32(lengths.sum(dtype=np.float64)) / n if size else np.float32(1.0)
        norms = K1 * (np.float32(1.0) - B + B * lengths / avgdl)  # per row
        numbers = np.frombuffer(term_of, dtype=np.intc)
        df = np.bincount(numbers, minlength=len(ids))
        order = np.argsort(numbers, kind="stable")  # by term, each term's rows still in table order
        del numbers, term_of
        rows = np.frombuffer(row_of, dtype=np.intc)[order].astype(np.int32, copy=False)
        weights = np.frombuffer(count_of, dtype=np.intc)[order].astype(np.float32)  # tf
        del order, row_of, count_of
        # idf * ((k1 + 1) * tf / (tf + norm)) as one term's arrays at a time gave it, in place (the
        # same float32 products and sums, operands swapped): the build's peak stays low
        denominator = norms[rows]
        denominator += weights
        weights *= K1 + np.float32(1.0)
        weights /= denominator
        del denominator
        distinct, which = np.unique(df, return_inverse=True)  # one idf per distinct document count
        idfs = np.array([_idf(int(d), n) for d in distinct.tolist()], dtype=np.float32)
        weights *= np.repeat(idfs[which], df)
        starts = np.zeros(len(ids) + 1, dtype=np.int64)
        np.cumsum(df, out=starts[1:])
        return cls(ids, starts, rows, weights, size)

    def posting(self, term: str) -> tuple[NDArray[np.int32], NDArray[np.float32]] | None:
        """The rows holding `term`, in table order, and their weights (views); None for no row."""
        i = self.slices.get(term)
        if i is None:
            return None
        start, end = int(self.starts[i]), int(self.starts[i + 1])
        return self.rows[start:end], self.weights[start:end]

    def commonest(self) -> str | None:
        """The term in the most rows, the first seen among equals (None without any)."""
        if not self.slices:
            return None
        most = int(np.argmax(np.diff(self.starts)))
        return next(term for term, i in self.slices.items() if i == most)

    def top(self, text: str, n: int, order: NDArray[np.intp] | None = None) -> list[tuple[int, float]]:
        """The n best rows (position, BM25) for the query `text`, best first, only rows sharing a term
        with it. Equal scores in `order` (each row's rank in it, a permutation of the positions;
        default table order), among them those tied at the n-th place: the n rows are the first n
        of the whole ranking, not any n of its ties."""
        rows: list[NDArray[np.int32]] = []
        weights: list[NDArray[np.float32]] = []
        for term in terms(text):
            posting = self.posting(term)
            if posting is not None:
                rows.append(posting[0])
                weights.append(posting[1])
        if not rows or n <= 0:
            return []
        scores = np.zeros(self.size, dtype=np.float32)
        # `add.at` adds its values one by one in order, a row named again adding again: over the
        # postings end to end, each row's float32 sum takes its terms in the query's order, the same
        # sums as one `add.at` a term (and as `scores[rows] += weights` a term, in about half the time
        # on long postings: SciFact's ~5,400 postings a question, 75 against 136 us), in one call
        if len(rows) == 1:
            np.add.at(scores, rows[0], weights[0])
        else:
            np.add.at(scores, np.concatenate(rows), np.concatenate(weights))
        hit = np.flatnonzero(scores)
        hit_scores = scores[hit]
        if n < len(hit):
            kept = tied_at_nth_or_better(hit_scores, n)
            hit, hit_scores = hit[kept], hit_scores[kept]
        best = np.lexsort((hit if order is None else order[hit], -hit_scores))[:n]
        return list(zip(hit[best].tolist(), hit_scores[best].tolist(), strict=True))  # as int, float


def _idf(documents_with_term: int, documents: np.float32) -> np.float32:
    df = np.float32(documents_with_term)
    ratio = (documents - df + np.float32(0.5)) / (df + np.float32(0.5)) + np.float32(1.0)
    return np.float32(_logf(float(ratio)))  # lance: f32::ln, the C library's logf


def _c_logf() -> Callable[[float], float]:
    """The C library's float32 natural log (what Rust's ``f32::ln`` calls); without one, the f64 log
    (1 ulp off now and then)."""
    # The process's own symbols first (CPython links libm): no `ldconfig` subprocess at import.
    libraries: tuple[Callable[[], str | None], ...] = (
        lambda: None,
        lambda: ctypes.util.find_library("m"),
        lambda: ctypes.util.find_library("c"),
    )
    logf = None
    for library in libraries:
        try:
            logf = ctypes.CDLL(library()).logf
            break
        except (OSError, AttributeError, TypeError):
            continue
    if logf is None:
        return math.log
    logf.restype = ctypes.c_float
    logf.argtypes = [ctypes.c_float]
    return logf


_logf = _c_logf()


# Builds still running. A build reads the table through LanceDB, whose native threads hand results
# back to Python: a process that exits during one (a `lectern ask` that searched twice) crashed as the
# interpreter finalized beneath them ("PyGILState_Release: thread state must be current"), so exit
# waits for them first. (A one-shot `lectern ask` no longer starts one: its term lookups do not count.)
_RUNNING: set[threading.Thread] = set()
_RUNNING_LOCK = threading.Lock()
EXIT_WAIT_S = 30.0


def _finish_builds() -> None:
    with _RUNNING_LOCK:
        running = list(_RUNNING)
    for thread in running:
        thread.join(EXIT_WAIT_S)


atexit.register(_finish_builds)


class KeywordCache:
    """The keyword index of one snapshot (table version), built off the query path.

    A version's first question searched by keyword only marks it; the second starts the build on a
    background thread (a one-shot ``lectern ask``, whose term lookups do not count, never pays for
    one), and searches use LanceDB's index until it is ready. `build` returns None for a version the
    index cannot serve (see `LanceDBIndex`).
    """

    def __init__(self, build: Callable[[Any], KeywordIndex | None]) -> None:
        self._build = build
        self._held: tuple[int, KeywordIndex | None] | None = None  # (version, index if it serves)
        self._seen: int | None = None
        self._lock = threading.Lock()  # one build at a time

    def held(self, version: int | None = None) -> KeywordIndex | None:
        """The index of `version` (of whichever version is held, when None), if built and serving."""
        held = self._held
        if held is None or (version is not None and held[0] != version):
            return None
        return held[1]

    @property
    def version(self) -> int | None:
        held = self._held
        return held[0] if held is not None and held[1] is not None else None

    def note(self, snapshot: Any) -> None:
        """A question was searched by keyword on `snapshot`: start its index's build the second time."""
        version = int(snapshot.version)
        held = self._held
        if held is not None and held[0] == version:
            return
        if self._seen != version:
            self._seen = version
            return
        if self._lock.acquire(blocking=False):
            thread = threading.Thread(target=self._run, args=(snapshot,), name="lectern-bm25", daemon=True)
            with _RUNNING_LOCK:
                _RUNNING.add(thread)
            thread.start()

    def build_now(self, snapshot: Any) -> KeywordIndex | None:
        """Build `snapshot`'s index on this thread, unless one is built or building (a server before
        it serves: see `LanceDBIndex.prepare`); the index held for its version, if it serves."""
        version = int(snapshot.version)
        held = self._held
        if held is not None and held[0] == version:
            return held[1]
        if not self._lock.acquire(blocking=False):
            return None  # a build in flight holds it
        try:
            self._seen = version
            built = self._build_and_hold(snapshot, version)
            release_free_memory()  # the build's read buffers and term lists, freed but kept by malloc
            return built
        finally:
            self._lock.release()

    def _run(self, snapshot: Any) -> None:
        try:
            self._build_and_hold(snapshot, int(snapshot.version))
        finally:
            self._lock.release()
            with _RUNNING_LOCK:
                _RUNNING.discard(threading.current_thread())

    def _build_and_hold(self, snapshot: Any, version: int) -> KeywordIndex | None:
        """Build `snapshot`'s index (the lock held) and hold it for `version`, unless the cache was
        cleared meanwhile; None for a version it cannot serve."""
        try:
            built = self._build(snapshot)
        except Exception:  # LanceDB keeps answering; the next version tries again
            built = None
        if self._seen == version:  # not cleared meanwhile
            self._held = (version, built)
        release_code_pages()  # the build read the table through LanceDB once
        return built

    def clear(self) -> None:
        self._held = None
        self._seen = None
