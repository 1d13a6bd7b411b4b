"""API keys: kept only as sha256 hashes, compared in constant time, identified in logs by a short id.

A key arrives as ``X-API-Key: <key>`` or ``Authorization: Bearer <key>``. Its *key id* (the first 12 hex
digits of the hash) owns the threads and prompts it creates and appears in logs; the key never does.

Publishable keys are meant to be seen (they sit in a docs site's HTML): they may call only the chat and
feedback endpoints, only with an ``Origin`` on their allow-list, and under their own per-address limit.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from pydantic import SecretStr

from lectern.settings import PublishableKey

KEY_ID_CHARS = 12


def key_hash(key: str) -> bytes:
    return hashlib.sha256(key.encode("utf-8")).digest()


def key_id(digest: bytes) -> str:
    return digest.hex()[:KEY_ID_CHARS]


def presented_key(headers: Mapping[str, str]) -> str | None:
    """The key a request carries (``X-API-Key`` first), or None."""
    key = headers.get("x-api-key")
    if key:
        return key.strip() or None
    scheme, _, value = (headers.get("authorization") or "").partition(" ")
    if scheme.lower() == "bearer" and value.strip():
        return value.strip()
    return None


@dataclass(frozen=True)
class Publishable:
    """A publishable key that matched: its id and the origins it may be used from."""

    key_id: str
    origins: frozenset[str]


class ApiKeys:
    """Secret keys (full access) and publishable keys (chat and feedback from allowed origins)."""

    def __init__(self, keys: Iterable[SecretStr | str], publishable: Iterable[PublishableKey] = ()) -> None:
        raw = [k.get_secret_value() if isinstance(k, SecretStr) else k for k in keys]
        self._hashes = [key_hash(k) for k in raw if k]
        self._publishable = {
            key_hash(p.key.get_secret_value()): frozenset(p.origins)
            for p in publishable
            if p.key.get_secret_value()
        }

    @property
    def enabled(self) -> bool:
        return bool(self._hashes or self._publishable)

    def publishable(self, key: str) -> Publishable | None:
        """The publishable key ``key`` is, if it is one (compared in constant time, like secret keys)."""
        digest = key_hash(key)
        found: Publishable | None = None
        for known, origins in self._publishable.items():
            if hmac.compare_digest(digest, known):
                found = Publishable(key_id(known), origins)
        return found

    def identify(self, key: str) -> str | None:
        """The key id when ``key`` is one of ours, else None. Every stored hash is compared, so the time
        taken does not tell which one (or whether any) matched."""
        digest = key_hash(key)
        found: bytes | None = None
        for known in self._hashes:
            if hmac.compare_digest(digest, known):
                found = known
        return None if found is None else key_id(found)
