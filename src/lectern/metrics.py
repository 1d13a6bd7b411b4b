"""Process-wide Prometheus counters and histograms: requests, answering stages, answers, refusals,
cancels and provider failures. The HTTP side (middleware, /metrics) is in ``lectern.api.metrics``."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

from prometheus_client import Counter, Histogram

from lectern.models import Answer

_LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)

REQUESTS = Counter(
    "lectern_http_requests",
    "HTTP requests by route template, method and status.",
    ["route", "method", "status"],
)
REQUEST_SECONDS = Histogram(
    "lectern_http_request_duration_seconds",
    "Time to the end of the response (streams included), by route template.",
    ["route"],
    buckets=_LATENCY_BUCKETS,
)
STAGE_SECONDS = Histogram(
    "lectern_stage_duration_seconds",
    "Time per answering stage: embedding, search, writing, store.",
    ["stage"],
    buckets=_LATENCY_BUCKETS,
)
ANSWERS = Counter("lectern_answers", "Answers (refusals included) by confidence level.", ["confidence"])
REFUSALS = Counter("lectern_refusals", "Refused questions by reason.", ["reason"])
FAILURES = Counter("lectern_answer_failures", "Turns that ended in an error, by error code.", ["code"])
CANCELS = Counter("lectern_cancels", "Generations cancelled, by reason.", ["reason"])
PROVIDER_ERRORS = Counter(
    "lectern_provider_errors", "Provider calls that failed for good, by provider.", ["provider"]
)
PROVIDER_RETRIES = Counter("lectern_provider_retries", "Provider calls retried, by provider.", ["provider"])
# Error codes of a Failed turn that come from a provider (the embedder or the chat model).
PROVIDER_CODES = frozenset({"API_ERROR", "provider_timeout", "provider_error", "llm_error"})


M = TypeVar("M", Counter, Histogram)


def _children(metric: M) -> Callable[[str], M]:
    """``metric.labels(value)``, each child looked up once: ``labels`` validates, formats and locks
    at every call (~4 us), five times per answer. The series are the same objects."""
    known: dict[str, M] = {}

    def child(value: str) -> M:
        found = known.get(value)
        if found is None:
            found = known[value] = metric.labels(value)
        return found

    return child


_answers, _refusals, _stage = _children(ANSWERS), _children(REFUSALS), _children(STAGE_SECONDS)


def observe_answer(answer: Answer) -> None:
    _answers(answer.confidence.confidence_level).inc()
    # an answer not grounded in any text is a refusal, whether or not the engine named its reason
    if answer.refusal_reason is not None or not answer.grounded:
        _refusals(answer.refusal_reason or "unspecified").inc()
    retrieval = answer.timings.retrieval
    if retrieval.embedding_ms and not retrieval.cached:
        _stage("embedding").observe(retrieval.embedding_ms / 1000)
    if retrieval.search_ms:
        _stage("search").observe((retrieval.search_ms + retrieval.ranking_ms) / 1000)
    if answer.timings.generation_ms:
        _stage("writing").observe(answer.timings.generation_ms / 1000)


def observe_failure(code: str) -> None:
    FAILURES.labels(code).inc()
    if code in PROVIDER_CODES:
        PROVIDER_ERRORS.labels("chat" if code != "API_ERROR" else "embeddings").inc()


class StoreTimer:
    """``with StoreTimer():`` around a write of an answer."""

    def __enter__(self) -> None:
        self._started = time.perf_counter()

    def __exit__(self, *_: object) -> None:
        _stage("store").observe(time.perf_counter() - self._started)
