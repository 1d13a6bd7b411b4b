"""API keys: kept only as sha256 hashes, compared in constant time, identified in logs by a short id.

A key arrives as ``X-API-Key: <key>`` or ``Authorization: Bearer <key>``. Its *key id* (the first 12 hex
digits of the hash) owns the threads and prompts it creates and appears in logs; the key never does.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterable, Mapping

from pydantic import SecretStr

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


class ApiKeys:
    def __init__(self, keys: Iterable[SecretStr | str]) -> None:
        raw = [k.get_secret_value() if isinstance(k, SecretStr) else k for k in keys]
        self._hashes = [key_hash(k) for k in raw if k]

    @property
    def enabled(self) -> bool:
        return bool(self._hashes)

    def identify(self, key: str) -> str | None:
        """The key id when ``key`` is one of ours, else None. Every stored hash is compared, so the time
        taken does not tell which one (or whether any) matched."""
        digest = key_hash(key)
        found: bytes | None = None
        for known in self._hashes:
            if hmac.compare_digest(digest, known):
                found = known
        return None if found is None else key_id(found)
