"""Thread-safe, cached Snowball stemming shared by keyword indexing and answer writing."""

from __future__ import annotations

import threading
from collections.abc import Callable
from functools import cache, lru_cache

import snowballstemmer  # type: ignore[import-untyped]


@cache
def stemmer_for(language: str) -> Callable[[str], str]:
    """A stem function for a Snowball language ("english", "german", ...), remembering the words it
    stemmed (see `plain_stemmer_for`)."""
    return lru_cache(maxsize=200_000)(plain_stemmer_for(language))


@cache
def plain_stemmer_for(language: str) -> Callable[[str], str]:
    """`stemmer_for`'s stem function without its memory of words: for a one-off pass over a whole
    table's words (a keyword index's build), which would otherwise stay cached for good.

    A Snowball stemmer keeps the word it works on in instance state, so one shared between the server's
    worker threads mixes words up (IndexError under concurrent requests): each thread gets its own. It is
    pure Python (~0.2 ms a word) and vocabularies are small, so every word is stemmed once per process.
    """
    language = language.lower()
    if language not in snowballstemmer.algorithms():
        raise ValueError(f"no stemmer for language {language!r}")
    local = threading.local()

    def stem(word: str) -> str:
        stemmer = getattr(local, "stemmer", None)
        if stemmer is None:
            stemmer = local.stemmer = snowballstemmer.stemmer(language)
        stemmed: str = stemmer.stemWord(word)
        return stemmed

    return stem
