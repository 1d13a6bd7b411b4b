"""A keyword index build still running when the process exits is waited for: it reads the table through
LanceDB's native threads, and an interpreter finalizing beneath them crashed the process."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading
from pathlib import Path
from types import SimpleNamespace

from lectern.index import lancedb_keywords
from lectern.index.lancedb_keywords import KeywordCache


def test_a_running_build_is_tracked_until_it_ends() -> None:
    release = threading.Event()
    cache = KeywordCache(lambda _: release.wait(10) and None)
    snapshot = SimpleNamespace(version=7)
    cache.note(snapshot)
    cache.note(snapshot)  # the second search of a version starts the build
    with lancedb_keywords._RUNNING_LOCK:
        running = list(lancedb_keywords._RUNNING)
    assert [t.name for t in running] == ["lectern-bm25"]
    release.set()
    lancedb_keywords._finish_builds()
    assert not running[0].is_alive()
    assert not lancedb_keywords._RUNNING


def test_the_process_exits_after_the_build_it_started(tmp_path: Path) -> None:
    done = tmp_path / "built"
    script = textwrap.dedent(
        f"""
        import time
        from pathlib import Path
        from types import SimpleNamespace
        from lectern.index.lancedb_keywords import KeywordCache

        def build(_):
            time.sleep(0.5)
            Path({str(done)!r}).write_text("yes")

        cache = KeywordCache(build)
        cache.note(SimpleNamespace(version=1))
        cache.note(SimpleNamespace(version=1))
        """
    )
    subprocess.run([sys.executable, "-c", script], check=True, timeout=60)
    assert done.read_text() == "yes"
