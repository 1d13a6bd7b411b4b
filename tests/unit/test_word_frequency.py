"""Word frequencies from a table derived once from wordfreq: the same values, and wordfreq as fallback."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from wordfreq import zipf_frequency

from lectern import word_frequency

WORDS = [
    "the",
    "laptop",
    "robot",
    "quaternion",
    "Webots",
    "gazebo",
    "zzqxv",
    "ros_gz_bridge",
    "naïve",
    "don't",
]


@pytest.fixture
def folder(tmp_path: Path) -> Iterator[Path]:
    word_frequency.configure(tmp_path)
    yield tmp_path
    word_frequency.configure(None)


def test_the_table_gives_wordfreqs_own_values(folder: Path) -> None:
    for word in WORDS:
        assert word_frequency.zipf(word) == zipf_frequency(word.lower(), "en"), word
    assert word_frequency.table_path(folder).exists()


def test_a_built_table_is_read_not_rebuilt(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    word_frequency.zipf("robot")  # builds it
    word_frequency.configure(None)
    word_frequency.configure(folder)

    def no_build(path: Path) -> None:
        raise AssertionError("rebuilt")

    monkeypatch.setattr(word_frequency, "_build", no_build)
    assert word_frequency.zipf("robot") == zipf_frequency("robot", "en")


def test_without_a_usable_folder_wordfreq_answers(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    word_frequency.configure(blocker / "models")  # cannot be created
    try:
        assert word_frequency.zipf("laptop") == zipf_frequency("laptop", "en")
    finally:
        word_frequency.configure(None)
