"""A real `lectern serve` on loopback over a small ingested corpus, a static "docs site" (a page laid out
like Docusaurus that embeds the widget with one script tag) on two other origins, one allowed by the
publishable key and one not, and one headless Chromium for the whole session.

Chromium is Debian's (`apt-get install chromium`), never a downloaded build. Outside CI the tests skip
when it is missing; in CI (CI=true) its absence fails them.
"""

from __future__ import annotations

import functools
import http.server
import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
SITE = Path(__file__).resolve().parent / "site"
PUBLISHABLE_KEY = "pk_test_browser"
SECRET_KEY = "sk_test_browser"


def chromium_path() -> str:
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if path is None:
        if os.environ.get("CI"):
            pytest.fail("Chromium is not installed (.ci/run installs Debian's chromium package)")
        pytest.skip("Chromium is not installed: apt-get install chromium")
    return path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass(frozen=True)
class Stack:
    api: str
    site: str
    other_site: str
    data_dir: Path


def _static(directory: Path) -> tuple[http.server.ThreadingHTTPServer, str]:
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            pass

    handler = functools.partial(Quiet, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


@pytest.fixture(scope="session")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    chromium_path()
    root = tmp_path_factory.mktemp("browser")
    data_dir = root / "data"
    site_dir = root / "site"
    site_dir.mkdir()
    site_server, site = _static(site_dir)
    other_server, other_site = _static(site_dir)
    port = free_port()
    api = f"http://127.0.0.1:{port}"
    page = (SITE / "index.html").read_text(encoding="utf-8")
    (site_dir / "index.html").write_text(
        page.replace("{WIDGET}", f"{api}/widget.js").replace("{KEY}", PUBLISHABLE_KEY), encoding="utf-8"
    )
    env = {
        **os.environ,
        "LECTERN_DATA_DIR": str(data_dir),
        "LECTERN_API_KEYS": json.dumps([SECRET_KEY]),
        "LECTERN_PUBLISHABLE_KEYS": json.dumps([{"key": PUBLISHABLE_KEY, "origins": [site]}]),
        "LECTERN_PUBLISHABLE_RATE_LIMIT": "1000/minute",
        "LECTERN_EMBEDDING_THREADS": "1",
    }
    lectern = [sys.executable, "-m", "lectern.cli"]
    subprocess.run([*lectern, "ingest", str(FIXTURES / "docs")], env=env, check=True, capture_output=True)
    log = (root / "serve.log").open("w")
    proc = subprocess.Popen([*lectern, "serve", "--port", str(port)], env=env, stdout=log, stderr=log)
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                if httpx.get(f"{api}/health", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError((root / "serve.log").read_text())
            time.sleep(0.3)
        yield Stack(api=api, site=site, other_site=other_site, data_dir=data_dir)
    finally:
        proc.terminate()
        proc.wait(10)
        site_server.shutdown()
        other_server.shutdown()


# Package scope: sync Playwright keeps an event loop running in this thread while it is open, and the
# async tests collected after this package need the thread's loop free.
@pytest.fixture(scope="package")
def browser(stack: Stack) -> Iterator[object]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium_path(), args=["--no-sandbox"])
        yield browser
        browser.close()
