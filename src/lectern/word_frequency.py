"""How common a word is in general English (wordfreq's Zipf scale), without loading wordfreq per process.

Importing wordfreq and reading its English list costs about 0.4 s: a quarter of a one-shot
`lectern ask`. So `lectern ingest` copies every entry of the installed list, with its frequency and its
Zipf value, into a SQLite table in the model cache folder (`prepare`: once per wordfreq version, under a
second, written to a temporary file and renamed into place), and answering processes look words up in it in
microseconds. A plain word's value is wordfreq's own, computed from its entry as wordfreq computes it. A
word that is not plain ASCII letters once lowered ("ros_gz_bridge", "naïve", "don't", "px4") is split by
wordfreq's own tokenizer and its tokens' frequencies combined as wordfreq combines them, from the same
table: wordfreq's list in memory costs a server ~33 MB for the rare question with a digit in it.
Every word is asked of wordfreq itself while there is no table: building it never delays an answer.
`lectern serve` and `lectern mcp` build a missing table at startup in a process of their own
(`prepare_apart`), so a long-lived server never holds the list.
"""

from __future__ import annotations

import logging
import math
import os
import re
import sqlite3
import threading
import time
from collections.abc import Collection
from functools import lru_cache
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from lectern.apart import run_apart
from lectern.lru import LRU

log = logging.getLogger(__name__)

LANGUAGE = "en"
# 2: the `tokens` table of every list entry's frequency; 3: one table, `entries`, holding each entry's
# frequency and Zipf value (half the rows to write: a cold ingest's table costs ~0.45 s of CPU, not ~1.1 s)
TABLE_VERSION = 3
_PLAIN = re.compile(r"[a-z]+")
_lock = threading.Lock()
_folder: Path | None = None
_db: sqlite3.Connection | None = None
_unavailable = False  # the table could not be opened: wordfreq answers
_schema = 0  # the open table's version: 3 `entries`; 2 `words` and `tokens`; 1 `words` only
# When the folder last had no table (time.monotonic), and how long until it is looked for again: a
# data dir without one (`eval retrieval` makes none) paid three file checks on each of ~50 lookups an
# answer; another process's ingest that builds it is seen within this long.
_missed_at: float | None = None
LOOK_AGAIN_S = 5.0


def configure(folder: Path | None) -> None:
    """Where the table lives (the model cache folder); None asks wordfreq every time."""
    global _folder, _db, _unavailable, _missed_at
    with _lock:
        if folder == _folder:
            return
        if _db is not None:
            _db.close()
        _folder, _db, _unavailable, _missed_at = folder, None, False, None
        _seen.clear()


def zipf(word: str) -> float:
    """wordfreq's `zipf_frequency(word.lower(), "en")`: 0 for unknown words, about 7 for "the"."""
    lowered = word.lower()
    found = _seen.get(lowered)
    if found is not None:
        return found
    db = _table()
    if db is not None and _PLAIN.fullmatch(lowered):
        query = _PLAIN_QUERY[3 if _schema == 3 else 1]
        with _lock:
            row = db.execute(query, (lowered,)).fetchone()
        value = float(row[0]) if row else 0.0  # a plain word missing from the list has frequency 0
    elif db is not None and _schema >= 2:
        value = _from_tokens(lowered, db)
    else:
        return _from_wordfreq(lowered)
    _seen.put(lowered, value)  # the table's answer: the same until `configure` changes the table
    return value


def common_plain_zipfs(words: Collection[str], least: float) -> dict[str, float]:
    """`zipf` of each of the plain lower-case `words` that has at least `least` (above 0), the others
    left out: every word one typing slip from a question's rare word (`lectern.spelling`, some 500 of
    them), looked up in a map of the table's plain words that common, read once per table and `least`
    (~15k words of Zipf 3.5 and more: ~25 ms, ~1.5 MB), not in a query of hundreds of parameters each
    time (~1 ms of CPU with its checks)."""
    global _common
    db = _table()
    if db is None:
        return {w: z for w in words if (z := zipf(w)) >= least}
    kept = _common
    if kept is None or kept[0] is not db or kept[1] != least:
        table, column = _PLAIN_TABLE[3 if _schema == 3 else 1]
        with _lock:
            rows = db.execute(f"SELECT {column}, zipf FROM {table} WHERE zipf >= ?", (least,)).fetchall()
        common = {entry: float(value) for entry, value in rows if _PLAIN.fullmatch(entry)}
        kept = _common = (db, least, common)
    common = kept[2]
    return {w: common[w] for w in words if w in common}


# The table's plain words of at least a Zipf value, with the connection and value they were read for.
_common: tuple[sqlite3.Connection, float, dict[str, float]] | None = None

# Words looked up lately (a question's words come back across turns and answers): a lookup is a query.
_seen: LRU[str, float] = LRU(4096)

# The table and column of plain words' frequencies, by the word list's schema.
_PLAIN_TABLE = {3: ("entries", "entry"), 1: ("words", "word")}
_PLAIN_QUERY = {v: f"SELECT zipf FROM {t} WHERE {c} = ?" for v, (t, c) in _PLAIN_TABLE.items()}
_TOKEN_QUERY = {3: "SELECT freq FROM entries WHERE entry = ?", 2: "SELECT freq FROM tokens WHERE token = ?"}


def prepare(folder: Path) -> bool:
    """Build the table in `folder` unless it is there; False when it cannot be written."""
    path = table_path(folder)
    if not path.exists():
        try:
            _build(path)
        except (OSError, sqlite3.Error):
            log.warning("word_frequency_table_not_built", exc_info=True)
            return False
    _look_again()
    return True


def _look_again() -> None:
    """The next lookup looks for the table at once: one was just built or found."""
    global _missed_at
    with _lock:
        _missed_at = None


def prepare_apart(folder: Path, timeout_s: float = 120.0) -> bool:
    """`prepare` in a Python process of its own: a server never holds wordfreq's list (~30 MB that its
    resident memory would keep for good), and the table spares it every later lookup. False when the
    table could not be built; the server then asks wordfreq, as before."""
    if table_path(folder).exists():
        _look_again()
        return True
    code = "import sys; from pathlib import Path; from lectern.word_frequency import prepare; "
    code += "sys.exit(0 if prepare(Path(sys.argv[1])) else 1)"
    built = run_apart(code, [str(folder)], timeout_s=timeout_s, event="word_frequency_table_not_built")
    if built and table_path(folder).exists():
        _look_again()
        return True
    return False


def table_path(folder: Path, table_version: int = TABLE_VERSION) -> Path:
    release = _wordfreq_release()
    suffix = f"-v{table_version}" if table_version > 1 else ""  # version 1 had none
    return folder / f"wordfreq-{LANGUAGE}-{release}{suffix}.sqlite3"


@lru_cache(maxsize=1)
def _wordfreq_release() -> str:
    """The installed wordfreq's version: read once, since looking it up scans every folder on the
    path, and a data dir without the table asks for it on every word."""
    try:
        return version("wordfreq")
    except PackageNotFoundError:
        return "unknown"


def _from_wordfreq(word: str) -> float:
    from wordfreq import zipf_frequency

    return float(zipf_frequency(word, LANGUAGE))


def _from_tokens(word: str, db: sqlite3.Connection) -> float:
    """wordfreq's `zipf_frequency(word, "en")` (its `_word_frequency`, minimum Zipf 0) with the list
    entries read from the table instead of wordfreq's in-memory list."""
    from wordfreq import zipf_to_freq
    from wordfreq.numbers import digit_freq, smash_numbers
    from wordfreq.tokens import lossy_tokenize

    minimum = zipf_to_freq(0.0)
    tokens = lossy_tokenize(word, LANGUAGE)
    freq = minimum
    if tokens:
        one_over_result = 0.0
        for token in tokens:
            smashed = smash_numbers(token)
            with _lock:
                row = db.execute(_TOKEN_QUERY[_schema], (smashed,)).fetchone()
            if row is None:  # any token missing: the minimum, as wordfreq does
                one_over_result = 0.0
                break
            token_freq = float(row[0])
            if smashed != token:  # digits were folded to 0s: wordfreq's estimate for these digits
                token_freq *= digit_freq(token)
            one_over_result += 1.0 / token_freq
        if one_over_result:
            freq = max(1.0 / one_over_result, minimum)
    return _rounded_zipf(freq)


def _rounded_zipf(freq: float) -> float:
    """wordfreq's rounding of a frequency (at least its minimum, Zipf 0): 3 significant digits, then
    the Zipf value to 2 decimals."""
    from wordfreq import freq_to_zipf

    rounded = round(freq, math.floor(-math.log(freq, 10)) + 3)
    return float(round(freq_to_zipf(rounded), 2))


def _table() -> sqlite3.Connection | None:
    global _db, _unavailable, _schema, _missed_at
    with _lock:
        if _db is not None or _unavailable or _folder is None:
            return _db
        now = time.monotonic()
        if _missed_at is not None and now - _missed_at < LOOK_AGAIN_S:
            return None
        # an older table answers until the next ingest (version 1: plain words only)
        versions = [v for v in range(TABLE_VERSION, 0, -1) if table_path(_folder, v).exists()]
        if not versions:
            _missed_at = now  # until `lectern ingest` prepares it; looked for again in a while
            return None
        _missed_at = None
        path = table_path(_folder, versions[0])
        try:
            _db = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True, check_same_thread=False)
            _schema = versions[0]
        except (OSError, sqlite3.Error):
            log.warning("word_frequency_table_unavailable", exc_info=True)
            _unavailable = True
        return _db


def _build(path: Path) -> None:
    from wordfreq import get_frequency_dict

    freqs = get_frequency_dict(LANGUAGE)
    zipfs = _zipfs(freqs)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f"{path.name}.{os.getpid()}.partial")
    db = sqlite3.connect(partial)
    try:
        # A scratch file renamed into place when complete: no journal, no syncs to pay for. Rows go in
        # as the list holds them, into a plain table, and SQLite sorts them once for the index: ~40%
        # of the CPU of sorting them in Python and appending to a WITHOUT ROWID B-tree.
        db.execute("PRAGMA journal_mode=OFF")
        db.execute("PRAGMA synchronous=OFF")
        db.execute("CREATE TABLE entries (entry TEXT NOT NULL, freq REAL NOT NULL, zipf REAL NOT NULL)")
        db.executemany("INSERT INTO entries VALUES (?, ?, ?)", ((e, f, zipfs[f]) for e, f in freqs.items()))
        db.execute("CREATE UNIQUE INDEX entries_by_entry ON entries (entry)")
        db.commit()
    finally:
        db.close()
    os.replace(partial, path)  # another process building the same table at once writes the same rows


def _zipfs(freqs: dict[str, float]) -> dict[float, float]:
    """The Zipf value of each frequency in the list, rounded as wordfreq rounds (frequencies come in
    ~800 buckets, centibels: each is computed once). For a plain lower-case entry it is
    `zipf_frequency(word, "en")`: wordfreq's tokenizer leaves such a word whole (no normalisation, case
    folding, digits or quotes to change), so its value is its own entry's. Asking wordfreq word by word
    runs its tokenizer on each of ~290k entries: most of a cold ingest's CPU on a small corpus."""
    from wordfreq import zipf_to_freq

    minimum = zipf_to_freq(0.0)
    return {freq: _rounded_zipf(max(freq, minimum)) for freq in set(freqs.values())}
