"""OpenAI, OpenAI-compatible and Cohere embedders against fake providers over real HTTP on loopback."""

from __future__ import annotations

import random
from collections.abc import Iterator

import numpy as np
import pytest

from lectern.embeddings import create_embedder
from lectern.embeddings.cohere import CohereEmbedder
from lectern.embeddings.openai import OpenAIEmbedder
from lectern.embeddings.retry import RetryPolicy
from lectern.errors import ProviderError
from lectern.settings import load_settings
from tests.fakes.embedding_providers import (
    COHERE_PATH,
    OPENAI_PATH,
    fake_vector,
    openai_embeddings,
    serve_cohere_embed,
    serve_openai_embeddings,
)
from tests.fakes.http_server import FakeHTTPServer, Reply

pytestmark = pytest.mark.integration


@pytest.fixture
def server() -> Iterator[FakeHTTPServer]:
    with FakeHTTPServer() as s:
        yield s


def fast_policy(sleeps: list[float] | None = None, attempts: int = 3) -> RetryPolicy:
    record = sleeps if sleeps is not None else []

    def sleep(seconds: float) -> None:
        record.append(seconds)

    return RetryPolicy(
        max_attempts=attempts, base_delay_s=0.01, max_delay_s=0.05, sleep=sleep, rng=random.Random(3)
    )


def expected(texts: list[str], dimension: int) -> np.ndarray:
    return np.array([fake_vector(t, dimension) for t in texts], dtype=np.float32)


# --- OpenAI ------------------------------------------------------------------------------------------


def openai_embedder(server: FakeHTTPServer, **kwargs: object) -> OpenAIEmbedder:
    base_url = serve_openai_embeddings(server)
    options: dict[str, object] = {"api_key": "sk-test", "base_url": base_url, "policy": fast_policy()}
    options.update(kwargs)
    return OpenAIEmbedder(**options)  # type: ignore[arg-type]


def test_openai_success_in_order_across_batches(server: FakeHTTPServer) -> None:
    emb = openai_embedder(server, batch_size=2)
    texts = ["alpha", "beta", "gamma", "delta", "epsilon"]
    vectors = emb.embed_documents(texts)
    assert vectors.shape == (5, 1536)
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(vectors, expected(texts, 1536), atol=1e-6)
    requests = server.requests_to(OPENAI_PATH)
    assert [r.json["input"] for r in requests] == [["alpha", "beta"], ["gamma", "delta"], ["epsilon"]]
    first = requests[0]
    assert first.json["model"] == "text-embedding-3-small"
    assert first.json["encoding_format"] == "float"
    assert first.headers["authorization"] == "Bearer sk-test"


def test_openai_query(server: FakeHTTPServer) -> None:
    emb = openai_embedder(server)
    vector = emb.embed_query("what is a topic?")
    assert vector.shape == (1536,)
    np.testing.assert_allclose(vector, expected(["what is a topic?"], 1536)[0], atol=1e-6)


def test_openai_empty_text_is_sent_as_a_space(server: FakeHTTPServer) -> None:
    emb = openai_embedder(server)
    emb.embed_documents(["", "x"])
    assert server.requests_to(OPENAI_PATH)[0].json["input"] == [" ", "x"]


def test_openai_429_then_success(server: FakeHTTPServer) -> None:
    sleeps: list[float] = []
    emb = openai_embedder(server, policy=fast_policy(sleeps))
    server.script(
        "POST", OPENAI_PATH, Reply.error(429, "Rate limit reached", headers={"retry-after-ms": "20"})
    )
    vectors = emb.embed_documents(["one", "two"])
    np.testing.assert_allclose(vectors, expected(["one", "two"], 1536), atol=1e-6)
    assert len(server.requests_to(OPENAI_PATH)) == 2
    assert sleeps == [0.02]  # the provider's retry-after-ms, not our own backoff


def test_openai_500_three_times_is_a_provider_error(server: FakeHTTPServer) -> None:
    sleeps: list[float] = []
    emb = openai_embedder(server, policy=fast_policy(sleeps))
    server.script("POST", OPENAI_PATH, *(Reply.error(500, "The server had an error") for _ in range(3)))
    with pytest.raises(ProviderError) as info:
        emb.embed_documents(["one"])
    message = str(info.value)
    assert "OpenAI embeddings failed after 3 attempts (HTTP 500)" in message
    assert "The server had an error" in message
    assert len(server.requests_to(OPENAI_PATH)) == 3
    assert len(sleeps) == 2
    assert sleeps[0] <= sleeps[1] * 2  # exponential, jittered


def test_openai_timeout_is_retried_then_reported(server: FakeHTTPServer) -> None:
    emb = openai_embedder(server, timeout_s=0.3)
    server.script("POST", OPENAI_PATH, *(Reply(delay_s=1.0) for _ in range(3)))
    with pytest.raises(ProviderError) as info:
        emb.embed_documents(["slow"])
    assert "timed out" in str(info.value)
    assert "LECTERN_PROVIDER_TIMEOUT_S" in str(info.value)
    assert len(server.requests_to(OPENAI_PATH)) == 3


def test_openai_timeout_then_success(server: FakeHTTPServer) -> None:
    emb = openai_embedder(server, timeout_s=0.3)
    server.script("POST", OPENAI_PATH, Reply(delay_s=1.0))
    assert emb.embed_documents(["slow"]).shape == (1, 1536)
    assert len(server.requests_to(OPENAI_PATH)) == 2


def test_openai_401_is_not_retried(server: FakeHTTPServer) -> None:
    emb = openai_embedder(server)
    server.script("POST", OPENAI_PATH, Reply.error(401, "Incorrect API key provided"))
    with pytest.raises(ProviderError, match="LECTERN_EMBEDDING_API_KEY"):
        emb.embed_documents(["x"])
    assert len(server.requests_to(OPENAI_PATH)) == 1


def test_connection_refused_is_a_provider_error() -> None:
    with FakeHTTPServer() as s:
        base_url = s.base_url + "/v1"  # the port is free again once the server stops
    emb = OpenAIEmbedder(api_key="sk-test", base_url=base_url, policy=fast_policy(attempts=2), timeout_s=2)
    with pytest.raises(ProviderError, match="after 2 attempts"):
        emb.embed_documents(["x"])


def test_openai_compatible_through_the_factory(server: FakeHTTPServer) -> None:
    server.route("POST", OPENAI_PATH, openai_embeddings(768))
    settings = load_settings(
        embedder="openai-compatible",
        embedding_base_url=server.base_url + "/v1",
        embedding_model="nomic-embed-text",
        provider_max_attempts=2,
    )
    emb = create_embedder(settings)
    assert emb.name == "openai-compatible:nomic-embed-text"
    assert emb.dimension == 768  # learnt from one probe request
    vectors = emb.embed_documents(["a", "b"])
    np.testing.assert_allclose(vectors, expected(["a", "b"], 768), atol=1e-6)
    requests = server.requests_to(OPENAI_PATH)
    assert requests[-1].json["model"] == "nomic-embed-text"
    assert requests[-1].headers["authorization"] == "Bearer not-needed"


def test_factory_attempts_setting_bounds_retries(server: FakeHTTPServer) -> None:
    serve_openai_embeddings(server)
    server.script("POST", OPENAI_PATH, *(Reply.error(503) for _ in range(5)))
    settings = load_settings(
        embedder="openai",
        embedding_api_key="sk-test",
        embedding_base_url=server.base_url + "/v1",
        provider_max_attempts=2,
    )
    emb = create_embedder(settings)
    assert isinstance(emb, OpenAIEmbedder)
    emb.policy = fast_policy(attempts=settings.provider_max_attempts)
    with pytest.raises(ProviderError, match="after 2 attempts"):
        emb.embed_documents(["x"])
    assert len(server.requests_to(OPENAI_PATH)) == 2


# --- Cohere ------------------------------------------------------------------------------------------


def cohere_embedder(server: FakeHTTPServer, **kwargs: object) -> CohereEmbedder:
    base_url = serve_cohere_embed(server)
    options: dict[str, object] = {"api_key": "co-test", "base_url": base_url, "policy": fast_policy()}
    options.update(kwargs)
    return CohereEmbedder(**options)  # type: ignore[arg-type]


def test_cohere_input_type_differs_for_documents_and_queries(server: FakeHTTPServer) -> None:
    emb = cohere_embedder(server)
    docs = emb.embed_documents(["doc one", "doc two"])
    query = emb.embed_query("a question")
    assert docs.shape == (2, 1024)
    assert query.shape == (1024,)
    np.testing.assert_allclose(docs, expected(["doc one", "doc two"], 1024), atol=1e-6)
    doc_request, query_request = server.requests_to(COHERE_PATH)
    assert doc_request.json["input_type"] == "search_document"
    assert query_request.json["input_type"] == "search_query"
    assert doc_request.json["texts"] == ["doc one", "doc two"]
    assert doc_request.json["model"] == "embed-english-v3.0"
    assert doc_request.json["embedding_types"] == ["float"]
    assert doc_request.headers["authorization"] == "Bearer co-test"


def test_cohere_batches_at_most_96_texts(server: FakeHTTPServer) -> None:
    emb = cohere_embedder(server, batch_size=500)
    texts = [f"text {i}" for i in range(200)]
    vectors = emb.embed_documents(texts)
    np.testing.assert_allclose(vectors, expected(texts, 1024), atol=1e-6)
    assert [len(r.json["texts"]) for r in server.requests_to(COHERE_PATH)] == [96, 96, 8]


def test_cohere_429_then_success(server: FakeHTTPServer) -> None:
    emb = cohere_embedder(server)
    server.script("POST", COHERE_PATH, Reply.error(429, "too many requests"))
    assert emb.embed_query("q").shape == (1024,)
    assert len(server.requests_to(COHERE_PATH)) == 2


def test_cohere_503_three_times_is_a_provider_error(server: FakeHTTPServer) -> None:
    emb = cohere_embedder(server)
    server.script("POST", COHERE_PATH, *(Reply.error(503, "service unavailable") for _ in range(3)))
    with pytest.raises(ProviderError) as info:
        emb.embed_documents(["x"])
    assert "Cohere embeddings failed after 3 attempts (HTTP 503)" in str(info.value)
    assert "service unavailable" in str(info.value)
    assert len(server.requests_to(COHERE_PATH)) == 3


def test_cohere_timeout_is_retried_then_reported(server: FakeHTTPServer) -> None:
    emb = cohere_embedder(server, timeout_s=0.3)
    server.script("POST", COHERE_PATH, *(Reply(delay_s=1.0) for _ in range(3)))
    with pytest.raises(ProviderError, match="timed out"):
        emb.embed_documents(["slow"])
    assert len(server.requests_to(COHERE_PATH)) == 3
