"""BM25 as sparse vectors, for engines without a native keyword index (Qdrant).

Documents carry BM25's saturated term frequency; queries carry term presence (1.0); the engine
multiplies the two and applies IDF itself (Qdrant's ``modifier=IDF``), so the dot product is BM25.
The analyzer is shared by both sides, so a term is spelt the same in documents and queries.
"""

from __future__ import annotations

import math
import re
import unicodedata
import zlib
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from lectern.stemming import stemmer_for

# Lucene's English stop words, tantivy's list for English. (LanceDB's FTS uses NLTK's longer list and
# checks it after stemming: see lancedb_keywords.py; this analyzer is Qdrant's own and keeps Lucene's.)
ENGLISH_STOP_WORDS = frozenset(
    {"a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is", "it", "no"}
    | {"not", "of", "on", "or", "such", "that", "the", "their", "then", "there", "these", "they", "this"}
    | {"to", "was", "will", "with"}
)
_STOP_WORDS = {"english": ENGLISH_STOP_WORDS}

_WORD = re.compile(r"[^\W_]+")  # letters and digits, split on punctuation, like Lance's "simple" tokenizer
MAX_TOKEN_LENGTH = 40  # longer tokens are noise (hashes, base64), as in LanceDB's FTS default

# Robertson/Sparck Jones defaults; on BEIR SciFact they match Anserini's k1=0.9, b=0.4 within noise.
BM25_K1 = 1.2
BM25_B = 0.75


def _fold(text: str) -> str:
    """ASCII folding: 'café' -> 'cafe'."""
    if text.isascii():  # the common case, and 50x cheaper than decomposing
        return text
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def term_id(term: str) -> int:
    """A stable 32-bit id for a term (Qdrant sparse indices are u32); the same in every process."""
    return zlib.crc32(term.encode("utf-8"))


@dataclass(frozen=True)
class KeywordAnalyzer:
    """Lowercase, fold accents, split on non-word characters, drop stop words, stem."""

    language: str = "English"
    stem: bool = True
    stop_words: bool = True
    _stem_word: Callable[[str], str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        stem_word = stemmer_for(self.language) if self.stem else _identity
        object.__setattr__(self, "_stem_word", stem_word)

    @property
    def stop_list(self) -> frozenset[str]:
        return _STOP_WORDS.get(self.language.lower(), frozenset()) if self.stop_words else frozenset()

    def terms(self, text: str) -> list[str]:
        stops = self.stop_list
        tokens = _WORD.findall(_fold(text.lower()))
        return [self._stem_word(tok) for tok in tokens if len(tok) <= MAX_TOKEN_LENGTH and tok not in stops]


def _identity(word: str) -> str:
    return word


@dataclass(frozen=True)
class SparseVector:
    indices: list[int]
    values: list[float]


def document_vector(
    analyzer: KeywordAnalyzer, text: str, avg_length: float, *, k1: float = BM25_K1, b: float = BM25_B
) -> SparseVector:
    """BM25 term weights without IDF: tf * (k1 + 1) / (tf + k1 * (1 - b + b * len / avg_length))."""
    terms = analyzer.terms(text)
    counts = Counter(term_id(t) for t in terms)
    norm = k1 * (1.0 - b + b * len(terms) / max(avg_length, 1.0))
    indices = sorted(counts)
    return SparseVector(indices, [counts[i] * (k1 + 1.0) / (counts[i] + norm) for i in indices])


def query_vector(analyzer: KeywordAnalyzer, text: str) -> SparseVector:
    """Term presence: a repeated query term counts once, as in BM25."""
    indices = sorted({term_id(t) for t in analyzer.terms(text)})
    return SparseVector(indices, [1.0] * len(indices))


def average_length(analyzer: KeywordAnalyzer, texts: list[str]) -> float:
    """Mean number of terms, the avgdl estimate stored with a collection at its first write."""
    if not texts:
        return 0.0
    return sum(len(analyzer.terms(t)) for t in texts) / len(texts)


def bm25_scores(
    analyzer: KeywordAnalyzer,
    query: str,
    documents: list[str],
    total_documents: int,
    *,
    k1: float = BM25_K1,
    b: float = BM25_B,
) -> list[float]:
    """BM25 of each document, for a candidate set that holds every document containing a query term
    (then document frequencies are exact; ``total_documents`` is the collection size)."""
    terms = set(analyzer.terms(query))
    bags = [Counter(analyzer.terms(d)) for d in documents]
    if not terms or not bags:
        return [0.0] * len(bags)
    avg = sum(sum(bag.values()) for bag in bags) / len(bags) or 1.0
    n = max(total_documents, len(bags))
    df = {t: sum(1 for bag in bags if t in bag) for t in terms}
    idf = {t: math.log(1.0 + (n - df[t] + 0.5) / (df[t] + 0.5)) for t in terms}
    scores = []
    for bag in bags:
        norm = k1 * (1.0 - b + b * sum(bag.values()) / avg)
        scores.append(sum(idf[t] * bag[t] * (k1 + 1.0) / (bag[t] + norm) for t in terms if t in bag))
    return scores
