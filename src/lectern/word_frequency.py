"""How common a word is in general English (wordfreq's Zipf scale), without loading wordfreq per process.

Importing wordfreq and reading its English list costs about 0.4 s: a quarter of a one-shot
`lectern ask`. So `lectern ingest` copies the Zipf value of every plain lower-case word of the installed
list into a SQLite table in the model cache folder (`prepare`: once per wordfreq version, a few seconds,
written to a temporary file and renamed into place), and answering processes look words up in it in
microseconds. The values are wordfreq's own, computed by wordfreq. A word the table cannot answer
exactly (anything but ASCII letters once lowered: "ros_gz_bridge", "naïve", "don't") is asked of
wordfreq itself, as is every word while there is no table: building it never delays an answer.
"""

from __future__ import annotations

import logging
import os
import re
import sqlite3
import threading
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

log = logging.getLogger(__name__)

LANGUAGE = "en"
_PLAIN = re.compile(r"[a-z]+")
_lock = threading.Lock()
_folder: Path | None = None
_db: sqlite3.Connection | None = None
_unavailable = False  # the table could not be opened: wordfreq answers


def configure(folder: Path | None) -> None:
    """Where the table lives (the model cache folder); None asks wordfreq every time."""
    global _folder, _db, _unavailable
    with _lock:
        if folder == _folder:
            return
        if _db is not None:
            _db.close()
        _folder, _db, _unavailable = folder, None, False


def zipf(word: str) -> float:
    """wordfreq's `zipf_frequency(word.lower(), "en")`: 0 for unknown words, about 7 for "the"."""
    lowered = word.lower()
    if _PLAIN.fullmatch(lowered):
        db = _table()
        if db is not None:
            with _lock:
                row = db.execute("SELECT zipf FROM words WHERE word = ?", (lowered,)).fetchone()
            return float(row[0]) if row else 0.0  # a plain word missing from the list has frequency 0
    return _from_wordfreq(lowered)


def prepare(folder: Path) -> bool:
    """Build the table in `folder` unless it is there; False when it cannot be written."""
    path = table_path(folder)
    if path.exists():
        return True
    try:
        _build(path)
    except (OSError, sqlite3.Error):
        log.warning("word_frequency_table_not_built", exc_info=True)
        return False
    return True


def table_path(folder: Path) -> Path:
    try:
        release = version("wordfreq")
    except PackageNotFoundError:
        release = "unknown"
    return folder / f"wordfreq-{LANGUAGE}-{release}.sqlite3"


def _from_wordfreq(word: str) -> float:
    from wordfreq import zipf_frequency

    return float(zipf_frequency(word, LANGUAGE))


def _table() -> sqlite3.Connection | None:
    global _db, _unavailable
    with _lock:
        if _db is not None or _unavailable or _folder is None:
            return _db
        path = table_path(_folder)
        if not path.exists():
            return None  # until `lectern ingest` prepares it; looked for again on the next lookup
        try:
            _db = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True, check_same_thread=False)
        except (OSError, sqlite3.Error):
            log.warning("word_frequency_table_unavailable", exc_info=True)
            _unavailable = True
        return _db


def _build(path: Path) -> None:
    from wordfreq import get_frequency_dict, zipf_frequency

    rows = [(w, zipf_frequency(w, LANGUAGE)) for w in get_frequency_dict(LANGUAGE) if _PLAIN.fullmatch(w)]
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f"{path.name}.{os.getpid()}.partial")
    db = sqlite3.connect(partial)
    try:
        db.execute("CREATE TABLE words (word TEXT PRIMARY KEY, zipf REAL NOT NULL) WITHOUT ROWID")
        db.executemany("INSERT INTO words VALUES (?, ?)", rows)
        db.commit()
    finally:
        db.close()
    os.replace(partial, path)  # another process building the same table at once writes the same rows
