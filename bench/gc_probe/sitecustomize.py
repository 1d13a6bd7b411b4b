"""Garbage-collector pauses of server processes after they froze their startup heap: put this folder
first on a server's PYTHONPATH and each process writes ``gc-<pid>.json`` (collections per generation,
each one's thread CPU and wall milliseconds) to ``$GC_PROBE_DIR`` (default: the temporary folder),
at most once a second, after a collection. With bench/http_ab.py:

    uv run python bench/http_ab.py /work/shared/data/textbooks/textbook-a \
        --variant w1gc=1@bench/gc_probe:src [--variant w1t=1@bench/gc_probe:src,GC_PROBE_THRESHOLD=2000]

``GC_PROBE_THRESHOLD`` replaces the young generation's threshold at the first collection after the
freeze (to compare settings without editing the service). Startup's collections are not counted.
Measured at 32 clients, one worker (textbook-a, distinct questions): at the service's threshold of
20,000, ~6 young collections per 1,000 answers, 13-24 ms of CPU each (45-88 ms of wall time on a
loaded machine, the event loop stopped), and no older ones; at 2,000, ~90 young ones of ~2 ms, ~8 of
the middle generation of ~12 ms and ~1 full one of ~100 ms.
"""

import gc
import json
import os
import tempfile
import time

_OUT = os.environ.get("GC_PROBE_DIR") or tempfile.gettempdir()
_THRESHOLD = os.environ.get("GC_PROBE_THRESHOLD", "")
_pauses: dict[int, list[tuple[float, float]]] = {0: [], 1: [], 2: []}
_frozen = False
_started = (0.0, 0.0)  # the running collection's perf_counter and thread_time
_written = 0.0


def _write() -> None:
    summary = {
        generation: {
            "collections": len(pauses),
            "cpu_ms": [round(cpu * 1000, 2) for _, cpu in pauses],
            "wall_ms": [round(wall * 1000, 2) for wall, _ in pauses],
        }
        for generation, pauses in _pauses.items()
    }
    with open(os.path.join(_OUT, f"gc-{os.getpid()}.json"), "w", encoding="utf-8") as file:
        json.dump(summary, file)


def _on_collection(phase: str, info: dict[str, int]) -> None:
    global _frozen, _started, _written
    if not _frozen:
        # get_freeze_count walks the frozen list (~20 ms on a server's heap): asked only until the
        # service has frozen its startup heap
        if gc.get_freeze_count() == 0:
            return
        _frozen = True
        if _THRESHOLD:
            gc.set_threshold(int(_THRESHOLD), *gc.get_threshold()[1:])
    if phase == "start":
        _started = (time.perf_counter(), time.thread_time())
        return
    wall, cpu = _started
    _pauses[info["generation"]].append((time.perf_counter() - wall, time.thread_time() - cpu))
    if time.monotonic() - _written > 1:
        _written = time.monotonic()
        _write()


gc.callbacks.append(_on_collection)
