"""Keeps every batch of document vectors an ingest embeds, so a run stopped half-way resumes.

The pipeline embeds a group of documents (hundreds of chunks) before it writes any of them; a Ctrl-C
in the middle threw all of that away, and the next run embedded it again. This wrapper embeds in small
batches, reports each one (the progress bar moves from the first batch), and saves each batch's vectors
in a SQLite file beside the index, keyed by the embedder and the text's hash. A rerun finds them there.
A run that finishes empties the file: it only ever holds the work of an unfinished run.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from lectern.embeddings.base import Embedder, Vectors
from lectern.embeddings.wrapper import WrappedEmbedder
from lectern.sqlite_cache import open_cache, transaction

BATCH = 32

_SCHEMA = """
CREATE TABLE IF NOT EXISTS pending_vectors (
    embedder  TEXT NOT NULL,
    text_hash TEXT NOT NULL,
    vector    BLOB NOT NULL,
    PRIMARY KEY (embedder, text_hash)
)
"""

BatchDone = Callable[[int, float], None]  # (chunks embedded, seconds)


def _key(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class ResumableEmbedder(WrappedEmbedder):
    """An ``Embedder`` whose ``embed_documents`` saves each batch and reuses saved vectors."""

    def __init__(
        self, inner: Embedder, path: Path, on_batch: BatchDone | None = None, batch: int = BATCH
    ) -> None:
        super().__init__(inner)
        self.path = path
        self.batch = batch
        self.on_batch = on_batch
        self.reused = 0  # vectors found from an earlier, unfinished run
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = open_cache(path)
        self._db.execute(_SCHEMA)

    def pending(self) -> int:
        """Vectors saved by unfinished runs."""
        return int(self._db.execute("SELECT COUNT(*) FROM pending_vectors").fetchone()[0])

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        keys = [_key(t) for t in texts]
        saved = self._saved(keys)
        missing = [i for i, k in enumerate(keys) if k not in saved]
        for i, k in enumerate(keys):
            if k in saved:
                out[i] = saved[k]
        self.reused += len(texts) - len(missing)
        # In the caller's order: the pipeline hands texts shortest first by their exact token counts,
        # so each batch holds texts of about one length (the model pads a batch to its longest text;
        # a flush's chunks in file order made ~8% of its tokens padding on textbook-a).
        for start in range(0, len(missing), self.batch):
            rows = missing[start : start + self.batch]
            began = time.perf_counter()
            vectors = np.asarray(self.inner.embed_documents([texts[i] for i in rows]), dtype=np.float32)
            elapsed = time.perf_counter() - began
            with transaction(self._db) as db:  # one commit a batch, not one a row
                db.executemany(
                    "INSERT OR REPLACE INTO pending_vectors VALUES (?, ?, ?)",
                    [(self.name, keys[i], v.tobytes()) for i, v in zip(rows, vectors, strict=True)],
                )
            out[rows] = vectors
            if self.on_batch is not None:
                self.on_batch(len(rows), elapsed)
        return out

    def _saved(self, keys: list[str]) -> dict[str, Vectors]:
        found: dict[str, Vectors] = {}
        unique = sorted(set(keys))
        for start in range(0, len(unique), 500):
            part = unique[start : start + 500]
            marks = ",".join("?" * len(part))
            for key, blob in self._db.execute(
                "SELECT text_hash, vector FROM pending_vectors"
                f" WHERE embedder = ? AND text_hash IN ({marks})",
                (self.name, *part),
            ):
                vector = np.frombuffer(blob, dtype=np.float32)
                if vector.shape == (self.dimension,):
                    found[str(key)] = vector
        return found

    def finished(self) -> None:
        """The run completed: nothing is left to resume."""
        self._db.execute("DELETE FROM pending_vectors")
        self._db.execute("VACUUM")

    def close(self) -> None:
        self._db.close()
