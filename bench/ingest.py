"""Ingest timing of a docs folder through the real CLI: cold, unchanged, and one file edited.

Each run is a fresh `lectern ingest` process, so the wall time includes process start and model load,
as a user sees it; the pipeline's own time (from the summary table) is reported beside it, and the CPU
seconds of the process and any it started (user + system: on a shared machine, steadier than wall). The corpus
is copied to a temporary folder first so the edit never touches the original.

The "simplest alternative" a user would pick is re-embedding everything on every run: that is what the
cold row costs each time, against the unchanged and one-edit rows.

    uv run python bench/ingest.py ../shared/data/textbooks/textbook-a
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path

RESULTS = Path(__file__).parent / "results"
_SECONDS = re.compile(r"seconds\s*│\s*([\d.]+)")
_EMBEDDED = re.compile(r"chunks embedded\s*│\s*([\d,]+)")


@dataclass
class Run:
    name: str
    wall_s: float
    cpu_s: float
    pipeline_s: float
    chunks_embedded: int


def ingest(corpus: Path, data_dir: Path, name: str) -> Run:
    env = {**os.environ, "LECTERN_DATA_DIR": str(data_dir), "COLUMNS": "200"}
    started, cpu0 = time.perf_counter(), _children_cpu_s()
    done = subprocess.run(
        [sys.executable, "-m", "lectern.cli", "ingest", str(corpus)],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    wall, cpu = time.perf_counter() - started, _children_cpu_s() - cpu0
    if done.returncode != 0:
        raise SystemExit(f"{name}: lectern ingest failed\n{done.stdout}\n{done.stderr}")
    seconds = _SECONDS.search(done.stdout)
    embedded = _EMBEDDED.search(done.stdout)
    return Run(
        name=name,
        wall_s=round(wall, 2),
        cpu_s=round(cpu, 2),
        pipeline_s=float(seconds.group(1)) if seconds else float("nan"),
        chunks_embedded=int(embedded.group(1).replace(",", "")) if embedded else -1,
    )


def _children_cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("corpus", type=Path, help="Folder of documents (e.g. a Docusaurus docs folder).")
    parser.add_argument("--rounds", type=int, default=1, help="Repeat the whole sequence this many times.")
    args = parser.parse_args()

    runs: list[Run] = []
    for _ in range(args.rounds):
        with tempfile.TemporaryDirectory() as tmp:
            corpus = Path(tmp) / "corpus"
            shutil.copytree(args.corpus, corpus)
            data_dir = Path(tmp) / "data"
            runs.append(ingest(corpus, data_dir, "cold (empty index)"))
            runs.append(ingest(corpus, data_dir, "unchanged"))
            victim = sorted(corpus.rglob("*.md"))[0]
            victim.write_text(victim.read_text(encoding="utf-8") + "\n\nAn added closing paragraph.\n")
            runs.append(ingest(corpus, data_dir, "one file edited"))

    print(f"{'run':<22} {'wall s':>8} {'CPU s':>8} {'pipeline s':>11} {'chunks embedded':>16}")
    for run in runs:
        print(
            f"{run.name:<22} {run.wall_s:>8.2f} {run.cpu_s:>8.2f} {run.pipeline_s:>11.2f}"
            f" {run.chunks_embedded:>16,}"
        )
    RESULTS.mkdir(exist_ok=True)
    target = RESULTS / "ingest.json"
    target.write_text(
        json.dumps(
            {
                "corpus": str(args.corpus),
                "when": datetime.now(UTC).isoformat(),
                "machine": {"cpus": os.cpu_count(), "python": platform.python_version()},
                "load_average": os.getloadavg(),
                "runs": [asdict(r) for r in runs],
            },
            indent=2,
        )
    )
    print(f"wrote {target}")


if __name__ == "__main__":
    main()
