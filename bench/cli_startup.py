"""One-shot `lectern ask`: process start to answer, as a user at a terminal sees it.

Each run is a fresh `lectern ask` process against an already-ingested collection (the README's
`docs` folder, ingested once into a temporary data directory). The table gives the median and
best wall time of the whole process, `lectern --help` (the import floor of the CLI), and the
1-minute load average when the runs started, since a busy machine inflates every number; the CPU
seconds (user + system) of each process vary less with load than its wall time.

    uv run python bench/cli_startup.py --runs 5
    uv run python bench/cli_startup.py --data-dir /tmp/data --collection demo   # reuse an index
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

RESULTS = Path(__file__).parent / "results"
ROOT = Path(__file__).resolve().parent.parent
QUESTION = "How do I keep the index up to date when files change?"


def lectern(args: list[str], data_dir: Path) -> tuple[float, float]:
    """Wall seconds and CPU seconds (user + system) of one `lectern` process."""
    env = {**os.environ, "LECTERN_DATA_DIR": str(data_dir), "COLUMNS": "80"}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "lectern.cli", *args], env=env, capture_output=True, text=True, check=False
    )
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"lectern {' '.join(args)} failed\n{done.stdout}\n{done.stderr}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--data-dir", type=Path, help="An existing data directory (else a fresh one).")
    parser.add_argument("--collection", default="demo")
    parser.add_argument("--label", default="", help="Free text stored with the results (e.g. before/after).")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="lectern-bench-") as tmp:
        data_dir = args.data_dir or Path(tmp)
        if args.data_dir is None:
            lectern(["ingest", str(ROOT / "docs"), "--collection", args.collection], data_dir)
        load = os.getloadavg()[0]
        ask = ["ask", "--collection", args.collection, QUESTION]
        lectern(ask, data_dir)  # warm the page cache once; every timed run is a fresh process
        asks = [lectern(ask, data_dir) for _ in range(args.runs)]
        versions = [lectern(["--help"], data_dir) for _ in range(args.runs)]

    rows = {
        name: {
            "median_s": statistics.median(w for w, _ in runs),
            "best_s": min(w for w, _ in runs),
            "median_cpu_s": statistics.median(c for _, c in runs),
        }
        for name, runs in (("ask", asks), ("--help", versions))
    }
    print(f"load average (1 min) at start: {load:.2f}; {args.runs} runs each")
    print(f"{'command':<12}{'median s':>10}{'best s':>10}{'median CPU s':>14}")
    for name, row in rows.items():
        print(f"{name:<12}{row['median_s']:>10.2f}{row['best_s']:>10.2f}{row['median_cpu_s']:>14.2f}")
    RESULTS.mkdir(exist_ok=True)
    out = RESULTS / "cli_startup.json"
    out.write_text(
        json.dumps(
            {
                "label": args.label,
                "when": datetime.now(UTC).isoformat(timespec="seconds"),
                "python": platform.python_version(),
                "cpus": os.cpu_count(),
                "load_average_1m": round(load, 2),
                "runs": args.runs,
                "rows": rows,
                "ask_runs_s": [round(w, 3) for w, _ in asks],
            },
            indent=2,
        )
    )
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
