"""Retries with exponential backoff for remote providers, ending in one clear ``ProviderError``.

Each provider module supplies a ``classify`` function that turns its SDK's exceptions into a
``Failure``: whether a retry may help (429, 5xx, timeouts, dropped connections), the HTTP status, and
a short description. Anything ``classify`` does not recognise is a bug, not a provider failure,
and propagates unchanged.
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

from lectern.errors import ProviderError

log = logging.getLogger(__name__)

T = TypeVar("T")

RETRYABLE_STATUSES = frozenset({408, 429}) | frozenset(range(500, 600))


@dataclass(frozen=True)
class Failure:
    retryable: bool
    detail: str
    status: int | None = None
    timed_out: bool = False
    retry_after_s: float | None = None
    """The provider's own ``Retry-After``, honoured up to the policy's ``max_delay_s``."""


Classifier = Callable[[BaseException], Failure | None]


@dataclass(frozen=True)
class RetryPolicy:
    max_attempts: int = 3
    base_delay_s: float = 0.5
    max_delay_s: float = 8.0
    sleep: Callable[[float], None] = time.sleep
    rng: random.Random = field(default_factory=random.Random)

    def delay(self, attempt: int, failure: Failure) -> float:
        """Wait after the ``attempt``-th failure (1-based): base * 2^(attempt-1), with "equal jitter"
        (half fixed, half random) so many clients retrying at once spread out."""
        if failure.retry_after_s is not None:
            return min(max(failure.retry_after_s, 0.0), self.max_delay_s)
        cap = min(self.max_delay_s, self.base_delay_s * 2.0 ** (attempt - 1))
        return cap / 2 + self.rng.uniform(0, cap / 2)


def status_is_retryable(status: int | None) -> bool:
    return status is not None and status in RETRYABLE_STATUSES


def call_with_retries(
    fn: Callable[[], T],
    *,
    provider: str,
    policy: RetryPolicy,
    classify: Classifier,
    config_hint: str = "",
) -> T:
    """Call ``fn`` up to ``policy.max_attempts`` times; the last failure becomes a ProviderError."""
    attempt = 0
    while True:
        attempt += 1
        try:
            return fn()
        except Exception as exc:
            failure = classify(exc)
            if failure is None:
                raise
            # prometheus_client: imported once a provider fails, not by every command
            from lectern import metrics

            if not failure.retryable or attempt >= policy.max_attempts:
                metrics.PROVIDER_ERRORS.labels(provider).inc()
                raise ProviderError(failure_message(provider, failure, attempt, config_hint)) from exc
            wait = policy.delay(attempt, failure)
            metrics.PROVIDER_RETRIES.labels(provider).inc()
            log.warning(
                "%s embeddings attempt %d/%d failed (%s); retrying in %.2fs",
                provider,
                attempt,
                policy.max_attempts,
                failure.detail,
                wait,
            )
            policy.sleep(wait)


def failure_message(provider: str, failure: Failure, attempts: int, config_hint: str = "") -> str:
    """Provider, status, and what to check, in one line a user can act on."""
    tries = f"after {attempts} attempt{'s' if attempts != 1 else ''}"
    status = f"HTTP {failure.status}" if failure.status is not None else "no response"
    if failure.timed_out:
        status = "timed out"
    return (
        f"{provider} embeddings failed {tries} ({status}): {failure.detail}. {_advice(failure, config_hint)}"
    )


def _advice(failure: Failure, config_hint: str) -> str:
    where = f" ({config_hint})" if config_hint else ""
    status = failure.status
    if failure.timed_out:
        return f"Check that the provider is reachable{where}, or raise LECTERN_PROVIDER_TIMEOUT_S."
    if status in (401, 403):
        return "Check LECTERN_EMBEDDING_API_KEY (or the provider's own API key variable)."
    if status == 404:
        return f"Check LECTERN_EMBEDDING_MODEL and LECTERN_EMBEDDING_BASE_URL{where}."
    if status == 429:
        return "The provider is rate limiting: lower LECTERN_EMBEDDING_BATCH_SIZE or try again later."
    if status is not None and status >= 500:
        return "The provider is failing; check its status page, then try again."
    if status is not None:
        return f"The provider refused the request; check LECTERN_EMBEDDING_MODEL and the input{where}."
    return f"Check the network and LECTERN_EMBEDDING_BASE_URL{where}."


def retry_after(headers: object) -> float | None:
    """Seconds from ``retry-after-ms`` or ``retry-after`` (numeric form only)."""
    get = getattr(headers, "get", None)
    if get is None:
        return None
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        value = get(name)
        if value is not None:
            try:
                return float(value) * scale
            except ValueError:
                continue
    return None
