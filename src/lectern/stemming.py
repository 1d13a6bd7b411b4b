"""Thread-safe, cached Snowball stemming shared by keyword indexing and answer writing."""

from __future__ import annotations

import threading
from collections.abc import Callable
from functools import cache, lru_cache

import snowballstemmer  # type: ignore[import-untyped]


@cache
def stemmer_for(language: str) -> Callable[[str], str]:
    """A stem function for a Snowball language ("english", "german", ...).

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

    return lru_cache(maxsize=200_000)(stem)
