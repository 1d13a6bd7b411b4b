"""Word frequencies from a table derived once from wordfreq: the same values, and wordfreq as fallback."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from wordfreq import get_frequency_dict, get_frequency_list, zipf_frequency

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
    "PX4",
    "ros2",
    "2023",
    "1.5",
    "x86_64",
    "café",
    "über-cool",
    "gz-sim8",
    "qzx9v",
    "…",
]


@pytest.fixture
def folder(tmp_path: Path) -> Iterator[Path]:
    word_frequency.configure(tmp_path)
    yield tmp_path
    word_frequency.configure(None)


def test_the_table_gives_wordfreqs_own_values(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert word_frequency.prepare(folder)
    asked: list[str] = []
    monkeypatch.setattr(
        word_frequency, "_from_wordfreq", lambda w: asked.append(w) or zipf_frequency(w, "en")
    )
    get_frequency_dict.cache_clear()
    get_frequency_list.cache_clear()
    for word in WORDS:
        assert word_frequency.zipf(word) == zipf_frequency(word.lower(), "en"), word
    assert asked == []  # the tables answer every word, plain or not


def test_words_that_are_not_plain_do_not_load_wordfreqs_list(folder: Path) -> None:
    assert word_frequency.prepare(folder)
    get_frequency_dict.cache_clear()
    get_frequency_list.cache_clear()
    for word in WORDS:
        word_frequency.zipf(word)
    assert get_frequency_dict.cache_info().currsize == 0
    assert get_frequency_list.cache_info().currsize == 0


def test_a_prepared_table_is_not_built_again(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert word_frequency.prepare(folder)

    def no_build(path: Path) -> None:
        raise AssertionError("rebuilt")

    monkeypatch.setattr(word_frequency, "_build", no_build)
    assert word_frequency.prepare(folder)
    assert word_frequency.zipf("robot") == zipf_frequency("robot", "en")


def test_a_server_builds_the_table_in_another_process(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def not_here(path: Path) -> None:
        raise AssertionError("built in this process")

    monkeypatch.setattr(word_frequency, "_build", not_here)
    assert word_frequency.prepare_apart(folder)
    assert word_frequency.table_path(folder).exists()
    assert word_frequency.zipf("robot") == zipf_frequency("robot", "en")
    assert word_frequency.prepare_apart(folder)  # there already: no process started


def test_a_table_that_cannot_be_built_apart_is_no_error(tmp_path: Path) -> None:
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    assert not word_frequency.prepare_apart(blocked)


def test_answering_never_builds_the_table(folder: Path) -> None:
    assert word_frequency.zipf("laptop") == zipf_frequency("laptop", "en")  # wordfreq answers
    assert not word_frequency.table_path(folder).exists()


def test_an_unwritable_folder_leaves_wordfreq_answering(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    assert not word_frequency.prepare(blocker / "models")  # cannot be created
    word_frequency.configure(blocker / "models")
    try:
        assert word_frequency.zipf("laptop") == zipf_frequency("laptop", "en")
    finally:
        word_frequency.configure(None)


def test_a_table_from_before_the_token_table_still_answers_plain_words(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    old = word_frequency.table_path(folder, 1)
    db = sqlite3.connect(old)
    db.execute("CREATE TABLE words (word TEXT PRIMARY KEY, zipf REAL NOT NULL) WITHOUT ROWID")
    db.execute("INSERT INTO words VALUES ('robot', 1.23)")  # not wordfreq's value: proves who answered
    db.commit()
    db.close()
    asked: list[str] = []
    monkeypatch.setattr(word_frequency, "_from_wordfreq", lambda w: asked.append(w) or 9.0)
    assert word_frequency.zipf("Robot") == 1.23
    assert word_frequency.zipf("px4") == 9.0  # no token table in it: wordfreq answers
    assert asked == ["px4"]
    assert not word_frequency.table_path(folder).exists()


def test_plain_words_are_stored_with_wordfreqs_own_values() -> None:
    """The table's Zipf values are computed from the list entries' frequencies, not asked of wordfreq
    word by word: every ~50th plain entry (frequent, rare, one letter, long) matches `zipf_frequency`."""
    freqs = get_frequency_dict("en")
    zipfs = word_frequency._zipfs(freqs)
    plain = [word for word in freqs if word.isascii() and word.isalpha() and word.islower()]
    assert len(plain) > 100_000
    for word in plain[::50]:
        assert zipfs[freqs[word]] == zipf_frequency(word, "en"), word


def test_a_table_of_the_previous_version_still_answers(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    old = word_frequency.table_path(folder, 2)
    db = sqlite3.connect(old)
    db.execute("CREATE TABLE words (word TEXT PRIMARY KEY, zipf REAL NOT NULL) WITHOUT ROWID")
    db.execute("INSERT INTO words VALUES ('robot', 1.23)")  # not wordfreq's values: proves who answered
    db.execute("CREATE TABLE tokens (token TEXT PRIMARY KEY, freq REAL NOT NULL) WITHOUT ROWID")
    db.execute("INSERT INTO tokens VALUES ('px4', 0.001)")
    db.commit()
    db.close()
    monkeypatch.setattr(word_frequency, "_from_wordfreq", lambda w: pytest.fail(f"wordfreq asked {w}"))
    assert word_frequency.zipf("Robot") == 1.23
    assert word_frequency.zipf("px4") == word_frequency._from_tokens("px4", sqlite3.connect(old))
    assert word_frequency.zipf("px4") > 0  # from the `tokens` row, not the minimum
    assert not word_frequency.table_path(folder).exists()


def test_the_common_ones_of_many_plain_words_give_each_words_value(folder: Path) -> None:
    assert word_frequency.prepare(folder)
    words = {"robot", "laptop", "zzqxv", "quaternion", "the", "connect", "conect"}
    for least in (3.5, 0.5, 5.0):
        expected = {w: zipf_frequency(w, "en") for w in words if zipf_frequency(w, "en") >= least}
        assert word_frequency.common_plain_zipfs(words, least) == expected
        assert word_frequency.common_plain_zipfs(words, least) == expected  # from the map read above


def test_the_common_words_are_read_again_from_another_table(
    folder: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    old = word_frequency.table_path(folder, 1)
    db = sqlite3.connect(old)
    db.execute("CREATE TABLE words (word TEXT PRIMARY KEY, zipf REAL NOT NULL) WITHOUT ROWID")
    db.executemany("INSERT INTO words VALUES (?, ?)", [("robot", 4.25), ("robotz", 1.0), ("don't", 5.0)])
    db.commit()
    db.close()
    assert word_frequency.common_plain_zipfs({"robot", "robotz", "robt"}, 3.5) == {"robot": 4.25}
    assert word_frequency.common_plain_zipfs({"robot", "robotz"}, 1.0) == {"robot": 4.25, "robotz": 1.0}
    word_frequency.configure(tmp_path_factory.mktemp("other"))  # no table there: wordfreq answers
    expected = {"robot": zipf_frequency("robot", "en")}
    assert word_frequency.common_plain_zipfs({"robot", "robotz"}, 3.5) == expected


def test_a_word_looked_up_is_kept_until_the_table_changes(
    folder: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    old = word_frequency.table_path(folder, 1)
    db = sqlite3.connect(old)
    db.execute("CREATE TABLE words (word TEXT PRIMARY KEY, zipf REAL NOT NULL) WITHOUT ROWID")
    db.execute("INSERT INTO words VALUES ('robot', 1.23)")
    db.commit()
    assert word_frequency.zipf("robot") == 1.23
    db.execute("UPDATE words SET zipf = 4.56")  # a table never changes in place: shows the kept value
    db.commit()
    db.close()
    assert word_frequency.zipf("Robot") == 1.23
    other = tmp_path_factory.mktemp("other")
    word_frequency.configure(other)  # another table (none there: wordfreq answers)
    assert word_frequency.zipf("robot") == zipf_frequency("robot", "en")


def test_a_folder_without_the_table_is_looked_at_again_only_after_a_while(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    looks: list[int] = []
    real_path = word_frequency.table_path

    def counted(where: Path, table_version: int = word_frequency.TABLE_VERSION) -> Path:
        looks.append(table_version)
        return real_path(where, table_version)

    monkeypatch.setattr(word_frequency, "table_path", counted)
    clock = [1000.0]
    monkeypatch.setattr(word_frequency.time, "monotonic", lambda: clock[0])
    for word in ("laptop", "robot", "gazebo"):  # three lookups, one look for the table
        assert word_frequency.zipf(word) == zipf_frequency(word, "en")
    assert len(looks) == word_frequency.TABLE_VERSION
    clock[0] += word_frequency.LOOK_AGAIN_S  # a while later: built meanwhile by another process
    db = sqlite3.connect(real_path(folder, 1))
    db.execute("CREATE TABLE words (word TEXT PRIMARY KEY, zipf REAL NOT NULL) WITHOUT ROWID")
    db.execute("INSERT INTO words VALUES ('robot', 1.23)")
    db.commit()
    db.close()
    assert word_frequency.zipf("robot") == 1.23


def test_a_table_built_in_process_answers_the_next_lookup(folder: Path) -> None:
    assert word_frequency.zipf("laptop") == zipf_frequency("laptop", "en")  # no table yet: looked once
    assert word_frequency.prepare(folder)
    assert word_frequency._table() is not None  # not left for LOOK_AGAIN_S
