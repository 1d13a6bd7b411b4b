"""The shared stemmer gives the same stems from many threads at once as from one."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
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


@pytest.mark.skipif(
    importlib.util.find_spec("Stemmer") is not None, reason="PyStemmer stands in for the whole package"
)
def test_imports_only_the_language_asked_for_and_the_package_stays_whole() -> None:
    """In a fresh interpreter: English stems without the other languages' modules imported, and a later
    plain use of the package (its ``algorithms``) still finds all of them."""
    code = (
        "import sys\n"
        "from lectern.stemming import stemmer_for\n"
        "assert stemmer_for('english')('running') == 'run'\n"
        "assert stemmer_for('dutch_porter')('lopen')\n"
        "loaded = sorted(m for m in sys.modules if m.endswith('_stemmer'))\n"
        "assert loaded == ['snowballstemmer.dutch_porter_stemmer',"
        " 'snowballstemmer.english_stemmer'], loaded\n"
        "import snowballstemmer\n"
        "assert 'german' in snowballstemmer.algorithms()\n"
        "assert snowballstemmer.stemmer('english').stemWord('running') == 'run'\n"
        "assert stemmer_for('german')('häuser')\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
