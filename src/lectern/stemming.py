"""Thread-safe, cached Snowball stemming shared by keyword indexing and answer writing.

``import snowballstemmer`` imports the stemmers of all its ~36 languages (~3 MB of every server's
memory, and import time) though Lectern stems one or two. Unless the PyStemmer C extension stands in
for them (the package's ``__init__`` prefers it), the package is registered without running its
``__init__`` and only the language asked for is imported; the first attribute asked of the package
itself runs the ``__init__`` then, so other code that imports the package finds it whole.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import threading
from collections.abc import Callable
from functools import cache, lru_cache
from pathlib import Path
from typing import Protocol, cast

from lectern.deferred_import import defer_package_init

PACKAGE = "snowballstemmer"
_IMPORTING = threading.Lock()


class _Stemmer(Protocol):
    def stemWord(self, word: str) -> str: ...


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
    make = stemmer_factory(language.lower())
    local = threading.local()

    def stem(word: str) -> str:
        stemmer = getattr(local, "stemmer", None)
        if stemmer is None:
            stemmer = local.stemmer = make()
        stemmed: str = stemmer.stemWord(word)
        return stemmed

    return stem


def stemmer_factory(language: str) -> Callable[[], _Stemmer]:
    """What makes a new stemmer of `language` (lower case): that language's class alone where the
    pure-Python package can be imported a language at a time, the package's own ``stemmer`` otherwise."""
    with _IMPORTING:
        if PACKAGE not in sys.modules:
            _defer_package()
    package = sys.modules.get(PACKAGE)
    if package is not None and "__getattr__" not in package.__dict__:  # the whole package
        languages: list[str] = package.algorithms()
        if language not in languages:
            raise ValueError(f"no stemmer for language {language!r}")
        return lambda: cast(_Stemmer, package.stemmer(language))
    module_name = f"{language}_stemmer"
    if not language.replace("_", "").isalpha() or module_name not in _language_modules():
        raise ValueError(f"no stemmer for language {language!r}")
    module = importlib.import_module(f"{PACKAGE}.{module_name}")
    return cast(Callable[[], _Stemmer], getattr(module, _class_name(language)))


def _class_name(language: str) -> str:
    """The package's class of a language: "dutch_porter" -> "DutchPorterStemmer"."""
    return "".join(part.capitalize() for part in language.split("_")) + "Stemmer"


def _language_modules() -> set[str]:
    package = sys.modules[PACKAGE]
    return {path.stem for folder in package.__path__ for path in Path(folder).glob("*_stemmer.py")}


def _defer_package() -> bool:
    """Register the package with its ``__init__`` deferred; False when that cannot be done or would
    change what stems (PyStemmer installed, which the ``__init__`` would use instead) and the package
    was imported whole."""
    if importlib.util.find_spec("Stemmer") is None and defer_package_init(PACKAGE):
        return True
    importlib.import_module(PACKAGE)  # raises ImportError as a plain import would
    return False
