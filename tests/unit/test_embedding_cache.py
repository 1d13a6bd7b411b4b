"""The query-embedding cache: exact-text LRU hits, documents passed through, off at size 0."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from lectern.embeddings.base import Embedder
from lectern.embeddings.cache import CachedEmbedder, uncached, with_query_cache
from lectern.runtime import Runtime
from lectern.settings import load_settings
from tests.fakes.hash_embedder import HashEmbedder


def test_a_repeated_question_is_embedded_once() -> None:
    inner = HashEmbedder()
    cached = CachedEmbedder(inner, capacity=8)
    first = cached.embed_query("What is a ROS 2 node?")
    again = cached.embed_query("What is a ROS 2 node?")
    assert inner.query_calls == 1
    np.testing.assert_array_equal(first, again)
    np.testing.assert_array_equal(again, inner.embed_query("What is a ROS 2 node?"))
    assert (cached.stats().hits, cached.stats().misses) == (1, 1)


def test_keys_are_the_exact_text() -> None:
    inner = HashEmbedder()
    cached = CachedEmbedder(inner, capacity=8)
    for text in ("What is URDF?", "what is URDF?", "What is URDF? "):
        cached.embed_query(text)
    assert inner.query_calls == 3


def test_least_recently_used_goes_first() -> None:
    inner = HashEmbedder()
    cached = CachedEmbedder(inner, capacity=2)
    cached.embed_query("a")
    cached.embed_query("b")
    cached.embed_query("a")  # now b is the oldest
    cached.embed_query("c")
    calls = inner.query_calls
    cached.embed_query("a")
    assert inner.query_calls == calls
    cached.embed_query("b")
    assert inner.query_calls == calls + 1
    assert cached.stats().size == 2


def test_callers_cannot_change_what_is_cached() -> None:
    cached = CachedEmbedder(HashEmbedder(), capacity=4)
    vector = cached.embed_query("topics")
    expected = vector.copy()
    vector[:] = 0.0
    hit = cached.embed_query("topics")
    np.testing.assert_array_equal(hit, expected)
    hit[:] = 0.0
    np.testing.assert_array_equal(cached.embed_query("topics"), expected)


def test_documents_and_token_counts_pass_through_uncached() -> None:
    inner = HashEmbedder()
    cached = CachedEmbedder(inner, capacity=4)
    assert isinstance(cached, Embedder)
    assert (cached.name, cached.dimension, cached.max_tokens) == (
        inner.name,
        inner.dimension,
        inner.max_tokens,
    )
    cached.embed_documents(["one chunk", "another chunk"])
    cached.embed_documents(["one chunk", "another chunk"])
    assert inner.document_calls == [2, 2]
    assert cached.count_tokens("two words") == 2
    assert cached.count_tokens_many(["a b", "c"]) == [2, 1]


def test_threads_share_one_cache() -> None:
    inner = HashEmbedder()
    cached = CachedEmbedder(inner, capacity=64)
    questions = [f"question {i % 10}" for i in range(200)]
    with ThreadPoolExecutor(8) as pool:
        vectors = list(pool.map(cached.embed_query, questions))
    for text, vector in zip(questions, vectors, strict=True):
        np.testing.assert_array_equal(vector, inner.embed_query(text))
    stats = cached.stats()
    assert stats.hits + stats.misses == 200
    assert stats.size == 10


def test_size_zero_turns_it_off_and_probes_reach_the_model() -> None:
    inner = HashEmbedder()
    assert with_query_cache(inner, 0) is inner
    cached = with_query_cache(inner, 16)
    assert isinstance(cached, CachedEmbedder)
    assert uncached(cached) is inner
    assert uncached(inner) is inner
    with pytest.raises(ValueError, match="capacity"):
        CachedEmbedder(inner, capacity=0)


def test_runtime_puts_the_configured_cache_in_front(monkeypatch: pytest.MonkeyPatch) -> None:
    inner = HashEmbedder()
    monkeypatch.setattr("lectern.runtime.create_embedder", lambda settings: inner)
    embedder = Runtime(load_settings(query_cache_size=32)).embedder
    assert isinstance(embedder, CachedEmbedder)
    assert embedder.capacity == 32
    assert Runtime(load_settings(query_cache_size=0)).embedder is inner
