"""The shared stemmer gives the same stems from many threads at once as from one."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from lectern.stemming import stemmer_for

WORDS = [
    f"{stem}{suffix}{i}"
    for i in range(400)
    for stem in ("connect", "generat", "simulat")
    for suffix in ("ing", "ions", "ed")
]


def test_concurrent_stemming_matches_sequential() -> None:
    expected = [stemmer_for("english").__wrapped__(w) for w in WORDS]  # type: ignore[attr-defined]
    stem = stemmer_for("english")
    stem.cache_clear()  # type: ignore[attr-defined]
    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(stem, WORDS * 4))
    assert results == expected * 4


def test_stems_and_rejects_unknown_language() -> None:
    assert stemmer_for("English")("running") == "run"
    with pytest.raises(ValueError, match="no stemmer"):
        stemmer_for("klingon")
