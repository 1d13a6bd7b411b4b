"""The side stores (sentence vectors, passage units) through edit cycles, and the cost of an unchanged
re-ingest, for this tree against a base tree.

    git archive BASE | tar -x -C /tmp/base
    .venv/bin/python bench/side_store_prune.py ../shared/data/textbooks/textbook-a --base /tmp/base/src

One cold `lectern ingest` of a copy of the corpus (this tree); its data dir is copied for each side.
Then, for each side: `--cycles` edit cycles (each rewrites a word in every line of `--files` files and
deletes one more file, then re-ingests), printing the stores' rows and file sizes after each; and
`--rounds` unchanged re-ingests of the untouched corpus, alternating the sides, with wall time and the
child's CPU seconds. Writes nothing into the repository.

Findings (textbook-a, 25 files, 1,013 chunks; `--cycles 3 --files 4 --rounds 3`; 2 shared cores, load
average ~2.5; base = main at 08783d5):
- rows after the cold ingest: sentences 1,013 (3.10 MB), passage units and terms 2,026 (1.53 MB);
- after 3 edit cycles (each rewrites 4 files, ~44 chunks, and deletes one file): base holds 1,145
  sentence rows and 2,293 passage rows (and growing by ~44 / ~89 a cycle, its files 3.27 + 0.53 MB log
  and 1.59 + 0.28 MB log); this tree holds 852 and 1,704, exactly the 852 live chunks' rows (3.27 MB
  and 1.64 MB, no log: freed pages are reused, the file is rewritten once a quarter of it is free);
- an edit cycle's ingest: 3.2-3.5 s CPU base, 3.6 s this tree; pruning itself (every collection's
  hashes and texts read from LanceDB, the stores' keys compared) takes ~15 ms wall on 1,013 chunks;
- an unchanged re-ingest never prunes (it returns before opening the index): median 0.75 s wall /
  0.72 s CPU base, 0.77 s / 0.73 s this tree (a first run: 0.73 / 0.73 against 0.71 / 0.69), noise.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def ingest(corpus: Path, data: Path, src: str | None) -> tuple[float, float]:
    """Wall and CPU seconds of one `lectern ingest` process."""
    env = {**os.environ, "LECTERN_DATA_DIR": str(data), "COLUMNS": "200"}
    if src:
        env["PYTHONPATH"] = src
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "lectern.cli", "ingest", str(corpus)], env=env, capture_output=True, text=True
    )
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(done.stdout + done.stderr)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def stores(data: Path) -> str:
    parts = []
    for path in [*sorted(data.glob("sentences-*.sqlite3")), data / "passage-units.sqlite3"]:
        table = "unit_vectors" if path.name.startswith("sentences") else "passages"
        with sqlite3.connect(path) as db:
            rows = db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]
        size = path.stat().st_size
        wal = sum(p.stat().st_size for p in path.parent.glob(path.name + "-wal"))
        parts.append(f"{path.name}: {rows} rows, {size / 1e6:.2f} MB + {wal / 1e6:.2f} MB log")
    return "; ".join(parts)


def edit(corpus: Path, cycle: int, files: int) -> None:
    pages = sorted(corpus.rglob("*.md"))
    for page in pages[:files]:
        text = page.read_text(encoding="utf-8")
        page.write_text(re.sub(r"\bthe\d*\b", f"the{cycle}", text), encoding="utf-8")
    pages[-1].unlink()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--base", required=True, help="the base tree's src folder")
    parser.add_argument("--cycles", type=int, default=3)
    parser.add_argument("--files", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    sides = {"base": args.base, "this": str(Path(__file__).resolve().parent.parent / "src")}
    with tempfile.TemporaryDirectory(prefix="prune-bench-") as tmp_name:
        tmp = Path(tmp_name)
        corpus = tmp / "corpus"
        shutil.copytree(args.corpus, corpus)
        wall, cpu = ingest(corpus, tmp / "cold", sides["this"])
        print(f"cold ingest: {wall:.1f} s wall, {cpu:.1f} s CPU; {stores(tmp / 'cold')}")
        times: dict[str, list[tuple[float, float]]] = {side: [] for side in sides}
        for side in sides:
            shutil.copytree(tmp / "cold", tmp / side)
        for r in range(args.rounds):
            for side in sides if r % 2 == 0 else reversed(sides):
                times[side].append(ingest(corpus, tmp / side, sides[side]))
        for side, runs in times.items():
            walls, cpus = [w for w, _ in runs], [c for _, c in runs]
            print(
                f"unchanged re-ingest {side}: median {statistics.median(walls):.2f} s wall, "
                f"{statistics.median(cpus):.2f} s CPU (walls {', '.join(f'{w:.2f}' for w in walls)})"
            )
        for side, src in sides.items():
            shutil.rmtree(corpus)  # each side edits the same folder from the same start
            shutil.copytree(args.corpus, corpus)
            for cycle in range(1, args.cycles + 1):
                edit(corpus, cycle, args.files)
                wall, cpu = ingest(corpus, tmp / side, src)
                print(f"{side} cycle {cycle}: {wall:.1f} s wall, {cpu:.1f} s CPU; {stores(tmp / side)}")
        print(f"load average: {os.getloadavg()}")


if __name__ == "__main__":
    main()
