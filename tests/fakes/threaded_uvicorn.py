"""An ASGI app under a real uvicorn on a free loopback port, in a thread with its own event loop.

The fake providers and the live API server of the integration tests all serve this way; the port is
bound before the thread starts, so two tests in one process never race for it.
"""

from __future__ import annotations

import socket
import threading
import time
from typing import Any

import uvicorn


class ThreadedUvicorn:
    """``start()`` returns once uvicorn serves; ``stop()`` asks it to exit and waits for the thread."""

    def __init__(self, app: Any, *, what: str, start_timeout_s: float = 10, **config: Any) -> None:
        self.what = what
        self.start_timeout_s = start_timeout_s
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind(("127.0.0.1", 0))
        self.port: int = self._sock.getsockname()[1]
        options: dict[str, Any] = {"log_level": "warning", "ws": "none", "timeout_graceful_shutdown": 1}
        self.server = uvicorn.Server(uvicorn.Config(app, **(options | config)))
        self._thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self._sock]}, daemon=True)

    def start(self) -> None:
        self._thread.start()
        deadline = time.monotonic() + self.start_timeout_s
        while not self.server.started:
            if time.monotonic() > deadline or not self._thread.is_alive():
                raise RuntimeError(f"{self.what} did not start")
            time.sleep(0.01)

    def stop(self, timeout_s: float = 10) -> None:
        self.server.should_exit = True
        self._thread.join(timeout=timeout_s)
