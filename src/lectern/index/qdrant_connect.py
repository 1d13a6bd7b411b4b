"""Qdrant clients: a server (url + api_key), an in-memory instance, or a local folder.

A local folder admits one client per process (qdrant-client locks it), so indexes on the same folder
share one client, counted, and the folder is released when the last index closes.
"""

from __future__ import annotations

import atexit
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from qdrant_client import QdrantClient

from lectern.settings import Settings

MEMORY = ":memory:"


@dataclass
class Connection:
    client: QdrantClient
    local: bool  # local mode: numpy brute force, no payload indexes, no HNSW
    release: Callable[[], None]


_lock = threading.Lock()
_shared: dict[Path, tuple[QdrantClient, int]] = {}


@atexit.register
def _close_all() -> None:
    """Close local clients still open at exit, before interpreter teardown makes their close() fail."""
    with _lock:
        for client, _ in _shared.values():
            client.close()
        _shared.clear()


def connect(settings: Settings) -> Connection:
    url = settings.qdrant_url.strip()
    if url == MEMORY:
        client = QdrantClient(location=MEMORY)
        return Connection(client, local=True, release=client.close)
    if url:
        api_key = settings.qdrant_api_key.get_secret_value() or None
        client = QdrantClient(url=url, api_key=api_key, timeout=int(settings.provider_timeout_s))
        return Connection(client, local=False, release=client.close)
    return connect_path(settings.index_dir / "qdrant")


def connect_path(path: Path) -> Connection:
    key = path.resolve()
    with _lock:
        client, users = _shared.get(key, (None, 0))
        if client is None:
            key.mkdir(parents=True, exist_ok=True)
            client = QdrantClient(path=str(key))
        _shared[key] = (client, users + 1)
    released = False

    def release() -> None:
        nonlocal released
        with _lock:
            if released:
                return
            released = True
            shared, count = _shared[key]
            if count > 1:
                _shared[key] = (shared, count - 1)
            else:
                del _shared[key]
                shared.close()

    return Connection(client, local=True, release=release)
