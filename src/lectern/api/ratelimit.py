"""Per-key rate limits with the ``limits`` library: in memory by default, in Redis when
``LECTERN_REDIS_URL`` is set so that every replica counts against the same budget."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

from limits import RateLimitItem, parse
from limits.aio.storage import MemoryStorage, RedisStorage, Storage
from limits.aio.strategies import SlidingWindowCounterRateLimiter

from lectern.errors import ConfigError


@dataclass(frozen=True)
class Verdict:
    allowed: bool
    limit: int
    remaining: int = 0
    reset_at: int = 0
    retry_after: int = 0

    def headers(self) -> dict[str, str]:
        headers = {
            "X-RateLimit-Limit": str(self.limit),
            "X-RateLimit-Remaining": str(self.remaining),
            "X-RateLimit-Reset": str(self.reset_at),
        }
        if not self.allowed:
            headers["Retry-After"] = str(self.retry_after)
        return headers


def parse_rate(rate: str) -> RateLimitItem | None:
    """``"100/minute"`` → the item; an empty string turns limiting off."""
    if not rate.strip():
        return None
    try:
        return parse(rate)
    except ValueError as exc:
        raise ConfigError(
            f"LECTERN_RATE_LIMIT: {rate!r} is not a rate such as '100/minute' ({exc})"
        ) from None


def _storage(redis_url: str) -> Storage:
    if not redis_url:
        return MemoryStorage()
    scheme, sep, rest = redis_url.partition("://")
    if not sep or scheme not in {"redis", "rediss", "unix"}:
        raise ConfigError(f"LECTERN_REDIS_URL: {redis_url!r} is not a redis:// or rediss:// URL")
    return RedisStorage(f"async+{scheme}://{rest}", implementation="redispy")


class RateLimiter:
    # A sliding-window counter: two counters per key, close to a true moving window at a fraction of
    # its cost (a moving window keeps one timestamp per request).
    def __init__(self, rate: str, redis_url: str = "") -> None:
        self.item = parse_rate(rate)
        self._storage = _storage(redis_url) if self.item is not None else MemoryStorage()
        self._limiter = SlidingWindowCounterRateLimiter(self._storage)

    @property
    def enabled(self) -> bool:
        return self.item is not None

    async def check(self, identity: str) -> Verdict | None:
        """Count one request for ``identity``; None when limiting is off."""
        if self.item is None:
            return None
        if await self._limiter.hit(self.item, identity):
            # Headers on every answer would cost a second storage round trip; 429s carry them.
            return Verdict(True, self.item.amount)
        stats = await self._limiter.get_window_stats(self.item, identity)
        now = time.time()
        retry = max(1, math.ceil(stats.reset_time - now))
        return Verdict(False, self.item.amount, max(stats.remaining, 0), math.ceil(stats.reset_time), retry)

    async def blocked(self, identity: str) -> Verdict | None:
        """Whether ``identity`` has spent its budget, without counting a request (None: it has not)."""
        if self.item is None or await self._limiter.test(self.item, identity):
            return None
        stats = await self._limiter.get_window_stats(self.item, identity)
        retry = max(1, math.ceil(stats.reset_time - time.time()))
        return Verdict(False, self.item.amount, 0, math.ceil(stats.reset_time), retry)

    async def count(self, identity: str) -> None:
        """Count one event (a failed authentication) against ``identity``."""
        if self.item is not None:
            await self._limiter.hit(self.item, identity)

    async def ping(self) -> bool:
        return bool(await self._storage.check())
