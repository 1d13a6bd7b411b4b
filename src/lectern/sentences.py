"""The vectors of a chunk's answer units (sentences, list items), by content hash.

The answerability decision and the extractive writer compare the question with every sentence of the
retrieved chunks. Embedding those sentences while answering would cost a model call per answer, so they
are embedded once: at ingest time for the local store, or on first use (a replica that did not ingest,
a collection ingested before this existed), then kept in memory (LRU) and on disk next to the index
(SQLite), both as float16 (384 dims x 2 bytes per sentence: a server holding thousands of chunks' units
keeps half of what float32 would take) and handed out as float32 (exact: every float16 is a float32).

Units come from `writers.units.units_of`, which is deterministic, so row i is unit i of the chunk. A
code block's row is embedded from what says in words what it does (`code_gist`: its lead-in, title and
comments); a block with none of them gets a zero row (it is never compared by meaning). The
answerability decision reads sentence rows only; the writer compares code rows too.

An embedder may embed sentences apart from chunks (`embed_sentences`, named by `sentence_model`): the
local model runs them through its int8 graph by default, the query model a server has loaded anyway.
The store's file is named after that model, so int8 and fp32 vectors are never mixed in one file.
"""

from __future__ import annotations

import logging
import re
import sqlite3
import threading
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from lectern import passage_store
from lectern.embeddings.base import Embedder, Vectors
from lectern.embeddings.cache import uncached
from lectern.lru import LRU
from lectern.models import Chunk
from lectern.sqlite_cache import open_cache, transaction
from lectern.writers.code_gist import code_gist
from lectern.writers.units import PASSAGES_KEPT, Unit, units_of

log = logging.getLogger(__name__)

MEMORY_CHUNKS = PASSAGES_KEPT
# Passages whose float32 matrices are kept as well: an answer asks for the same passages twice (the
# answerability signals, then the writer: ~10 passages), and widening each from float16 again cost ~2-3 us
# a passage. As many as the float16 cache holds (`memory`): with a few answers' worth (64), passages that
# recur across answers were widened again (~5 an answer, ~2 % of an answer's instructions with the query
# cached, bench/callgrind_answers.py). A float32 matrix is twice its float16 one: a textbook passage's
# ~3 rows are ~5 kB (~5 MB for a 1k-chunk book), a 10-sentence abstract's ~15 kB (~15 MB at 1,024).
# Bumped whenever `units_of` splits text differently (stored rows would not line up) or what a row is
# embedded from changes (5: code blocks by their `code_gist`).
UNITS_VERSION = 5
_SLUG = re.compile(r"[^A-Za-z0-9]+")

UnitVectors = tuple[tuple[Unit, ...], NDArray[np.float32]]
_Held = tuple[tuple[Unit, ...], NDArray[np.float16]]  # as stored: float16


def _drop_older_versions(data_dir: Path, slug: str) -> None:
    """Delete this model's stores of earlier `UNITS_VERSION`s: their rows no longer line up with the
    units, and nothing reads them again. Best effort: a file that cannot go stays."""
    for path in data_dir.glob(f"sentences-{slug}-v*.sqlite3*"):
        version = path.name.removeprefix(f"sentences-{slug}-v").split(".", 1)[0]
        if version.isdigit() and int(version) < UNITS_VERSION:
            try:
                path.unlink()
            except OSError:
                log.warning("sentence_store_not_removed", extra={"path": str(path)})


class SentenceVectors:
    """Unit vectors of chunks, computed once per content hash (thread-safe)."""

    def __init__(self, embedder: Embedder, path: Path | None = None, memory: int = MEMORY_CHUNKS) -> None:
        self.embedder = embedder
        self._encode = sentence_encoder(embedder)
        self.memory = memory
        self._cache: LRU[str, _Held] = LRU(memory)
        self._wide: LRU[str, UnitVectors] = LRU(memory)
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None
        if path is not None:
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                self._db = open_cache(path)
                self._db.execute(
                    "CREATE TABLE IF NOT EXISTS unit_vectors "
                    "(content_hash TEXT PRIMARY KEY, rows INTEGER NOT NULL, vectors BLOB NOT NULL)"
                )
            except sqlite3.Error:  # a read-only data dir still answers, from memory
                log.warning("sentence_store_unavailable", exc_info=True)
                self._db = None

    @classmethod
    def for_data_dir(cls, embedder: Embedder, data_dir: Path) -> SentenceVectors:
        """The data dir's store; its passages' units and terms are stored there too (`passage_store`)."""
        passage_store.configure(data_dir)
        slug = _SLUG.sub("-", sentence_model(embedder)).strip("-").lower()
        _drop_older_versions(data_dir, slug)
        return cls(embedder, data_dir / f"sentences-{slug}-v{UNITS_VERSION}.sqlite3")

    def of(self, chunks: Sequence[Chunk]) -> list[UnitVectors]:
        """Units and their vectors for each chunk; missing ones are embedded in one batch and stored."""
        out: list[UnitVectors | None] = [self._widened(c.content_hash) for c in chunks]
        missing = [i for i, v in enumerate(out) if v is None]
        if missing:
            stored = self._load([chunks[i].content_hash for i in missing])
            for i in missing:
                found = stored.get(chunks[i].content_hash)
                if found is not None:
                    units = units_of(chunks[i].text)
                    if len(units) == found.shape[0]:
                        self._remember(chunks[i].content_hash, (units, found))
                        out[i] = (units, found.astype(np.float32))
            still = [i for i in missing if out[i] is None]
            if still:
                for i, value in zip(still, self._embed([chunks[i] for i in still]), strict=True):
                    out[i] = value
        return [v for v in out if v is not None]

    def precompute(self, chunks: Sequence[Chunk], batch: int = 512) -> int:
        """Embed and store the units of chunks not stored yet (ingest); how many chunks were embedded.
        Large groups: the embedder sorts a group's sentences by length, so more of them pad less and
        fill every batch (an ingest flush is ~512 chunks, ~1,500 sentences: a few MB of vectors)."""
        todo = list({c.content_hash: c for c in chunks}.values())
        stored = set(self._load([c.content_hash for c in todo]))
        todo = [c for c in todo if c.content_hash not in stored]
        for start in range(0, len(todo), batch):
            self._embed(todo[start : start + batch], remember=False)
        return len(todo)

    def stored(self) -> int:
        """How many chunks have their vectors on disk (0 without a store)."""
        if self._db is None:
            return 0
        with self._lock:
            row = self._db.execute("SELECT COUNT(*) FROM unit_vectors").fetchone()
        return int(row[0])

    def forget(self, content_hashes: Sequence[str]) -> None:
        if self._db is None or not content_hashes:
            return
        with self._lock, transaction(self._db) as db:
            db.executemany("DELETE FROM unit_vectors WHERE content_hash = ?", [(h,) for h in content_hashes])

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None

    # --- internals ----------------------------------------------------------------------------------
    def _embed(self, chunks: Sequence[Chunk], *, remember: bool = True) -> list[UnitVectors]:
        per_chunk = [units_of(c.text) for c in chunks]
        # The text each unit is embedded from ("": none, a zero row).
        per_text = [[_embedded_text(units, i) for i in range(len(units))] for units in per_chunk]
        # Each distinct text once: overlapping chunks repeat the sentences at their edges.
        row_of: dict[str, int] = {}
        for texts in per_text:
            for text in texts:
                if text:
                    row_of.setdefault(text, len(row_of))
        vectors = (
            np.asarray(self._encode(list(row_of)), dtype=np.float32)
            if row_of
            else np.zeros((0, self.embedder.dimension), np.float32)
        )
        out: list[UnitVectors] = []
        rows: list[tuple[str, int, bytes]] = []
        for chunk, units, texts in zip(chunks, per_chunk, per_text, strict=True):
            matrix = np.zeros((len(units), self.embedder.dimension), np.float32)
            for i, text in enumerate(texts):
                if text:
                    matrix[i] = vectors[row_of[text]]
            out.append((units, matrix))
            half = matrix.astype(np.float16)
            rows.append((chunk.content_hash, len(units), half.tobytes()))
            if remember:
                self._remember(chunk.content_hash, (units, half))
        if self._db is not None:
            with self._lock:
                try:
                    with transaction(self._db) as db:  # one commit, not one a row
                        db.executemany("INSERT OR REPLACE INTO unit_vectors VALUES (?, ?, ?)", rows)
                except sqlite3.Error:
                    log.warning("sentence_store_write_failed", exc_info=True)
        return out

    def _load(self, hashes: Sequence[str]) -> dict[str, NDArray[np.float16]]:
        if self._db is None or not hashes:
            return {}
        found: dict[str, NDArray[np.float16]] = {}
        dim = self.embedder.dimension
        with self._lock:
            for start in range(0, len(hashes), 500):
                part = list(hashes[start : start + 500])
                marks = ",".join("?" * len(part))
                for content_hash, rows, blob in self._db.execute(
                    f"SELECT content_hash, rows, vectors FROM unit_vectors WHERE content_hash IN ({marks})",
                    part,
                ):
                    matrix = np.frombuffer(blob, dtype=np.float16)
                    if matrix.size == rows * dim:
                        found[content_hash] = matrix.reshape(rows, dim)  # a view of the row's bytes
        return found

    def _memory(self, content_hash: str) -> _Held | None:
        return self._cache.get(content_hash)

    def _widened(self, content_hash: str) -> UnitVectors | None:
        """The held units and their vectors as float32 (read-only), widened once while kept in `_wide`.
        The float16 cache is asked first either way, so its order of use is as without `_wide`."""
        held = self._memory(content_hash)
        if held is None:
            return None
        wide = self._wide.get(content_hash)
        if wide is not None and wide[0] is held[0]:  # widened from this very entry
            return wide
        matrix = held[1].astype(np.float32)
        matrix.flags.writeable = False
        wide = (held[0], matrix)
        self._wide.put(content_hash, wide)
        return wide

    def _remember(self, content_hash: str, value: _Held) -> None:
        self._cache.put(content_hash, value)


def _embedded_text(units: Sequence[Unit], position: int) -> str:
    """What unit `position` is embedded from: a sentence's text, a code block's gist ("" for none)."""
    unit = units[position]
    return unit.text if unit.kind == "sentence" else code_gist(units, position, identifiers=False)


def sentence_model(embedder: Embedder) -> str:
    """The name of what embeds sentences: the embedder's own `sentence_model` where it has one (the
    local model's says whether its int8 graph does), else its name."""
    name = getattr(uncached(embedder), "sentence_model", None)
    return name if isinstance(name, str) else embedder.name


def sentence_encoder(embedder: Embedder) -> Callable[[Sequence[str]], Vectors]:
    """The embedder's `embed_sentences` where it has one, else `embed_documents`."""
    encode = getattr(uncached(embedder), "embed_sentences", None)
    return encode if callable(encode) else embedder.embed_documents
