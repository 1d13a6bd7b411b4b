"""A cold `lectern ingest` of this tree against another source tree (the base of an A/B), alternating.

    git archive BASE | tar -x -C /tmp/base
    .venv/bin/python bench/ingest_ab.py ../shared/data/textbooks/textbook-a --base /tmp/base/src --rounds 3

Each run is a fresh `lectern ingest` process into a new data dir (the model graphs and the
word-frequency table built too, as a first ingest builds them), with the base tree first on
PYTHONPATH for the base runs; the order is reversed every other round so a shared machine's load falls
on both alike. Prints every run's wall time, CPU seconds (the process and its children, user + system)
and system CPU apart, the fdatasync calls it made where ``--fsyncs`` asks for them (under strace), and
the 1-minute load average, then each side's medians and the ratio; writes
``bench/results/ingest_ab-<time>.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).resolve().parent / "results"
_FSYNCS = re.compile(r"(\d+)\s+(?:\d+\s+)?f(?:data)?sync")


def cold_ingest(corpus: Path, src: str | None, fsyncs: bool) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="ingest-ab-") as tmp:
        env = {**os.environ, "LECTERN_DATA_DIR": str(Path(tmp) / "data"), "COLUMNS": "200"}
        if src:
            env["PYTHONPATH"] = os.pathsep.join(p for p in (src, env.get("PYTHONPATH", "")) if p)
        command = [sys.executable, "-m", "lectern.cli", "ingest", str(corpus)]
        trace = Path(tmp) / "strace.txt"
        if fsyncs:
            command = ["strace", "-f", "-c", "-e", "trace=fsync,fdatasync", "-o", str(trace), *command]
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu0, sys0 = usage.ru_utime + usage.ru_stime, usage.ru_stime
        started = time.perf_counter()
        done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
        wall = time.perf_counter() - started
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        if done.returncode != 0:
            raise SystemExit(f"lectern ingest failed\n{done.stdout}\n{done.stderr}")
        run: dict[str, Any] = {
            "wall_s": round(wall, 2),
            "cpu_s": round(usage.ru_utime + usage.ru_stime - cpu0, 2),
            "sys_s": round(usage.ru_stime - sys0, 2),
            "load_avg_1m": round(os.getloadavg()[0], 2),
        }
        if fsyncs:
            run["fsyncs"] = sum(int(m.group(1)) for m in _FSYNCS.finditer(trace.read_text()))
        return run


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--base", required=True, help="The base tree's src folder (goes on PYTHONPATH).")
    parser.add_argument("--this", help="This side's src folder (default: the installed tree).")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--fsyncs", action="store_true", help="Count fsync/fdatasync calls (strace).")
    args = parser.parse_args()
    if args.fsyncs and shutil.which("strace") is None:
        raise SystemExit("--fsyncs needs strace")
    sides = {"base": args.base, "this": args.this}
    runs: dict[str, list[dict[str, Any]]] = {side: [] for side in sides}
    for round_ in range(args.rounds):
        order = list(sides) if round_ % 2 == 0 else list(reversed(sides))
        for side in order:
            run = cold_ingest(args.corpus, sides[side], args.fsyncs)
            runs[side].append(run)
            print(f"round {round_ + 1} {side:<5} " + " ".join(f"{k} {v}" for k, v in run.items()), flush=True)
    medians = {
        side: {key: statistics.median(r[key] for r in rs) for key in rs[0]} for side, rs in runs.items()
    }
    for side, values in medians.items():
        print(f"median {side:<5} " + " ".join(f"{k} {v}" for k, v in values.items()))
    for key in ("wall_s", "cpu_s"):
        print(f"ratio this/base {key}: {medians['this'][key] / medians['base'][key]:.3f}")
    RESULTS.mkdir(exist_ok=True)
    target = RESULTS / f"ingest_ab-{time.strftime('%Y%m%d-%H%M%S')}.json"
    target.write_text(json.dumps({"corpus": str(args.corpus), "runs": runs, "medians": medians}, indent=2))
    print(f"wrote {target}")


if __name__ == "__main__":
    main()
