"""Lectern side by side with LlamaIndex 0.14 + Qdrant local mode + sentence-transformers (the same
all-MiniLM-L6-v2 files), on the same Markdown folders, on this machine.

    # once: the other side's own environment (a benchmark dependency, never Lectern's); torch is the
    # CPU build (on a machine with PyPI access, add
    # --extra-index-url https://download.pytorch.org/whl/cpu --index-strategy unsafe-best-match)
    uv venv bench/results/llamaindex-venv --python 3.11
    uv pip install --no-config --link-mode=copy --python bench/results/llamaindex-venv/bin/python \\
        -r bench/llamaindex/requirements.txt
    # or, where pip's configuration points at a local CPU wheel of torch (uv does not look there):
    python3 -m venv bench/results/llamaindex-venv
    bench/results/llamaindex-venv/bin/pip install torch==2.13.0
    bench/results/llamaindex-venv/bin/pip install -r bench/llamaindex/requirements.txt
    # then
    uv run python bench/compare_llamaindex.py [--corpus textbook-a] [--corpus scifact] [--repeats 3]

``--no-config``: Lectern's pyproject.toml tells uv to drop sentence-transformers (the model package
declares it); the other side needs it. ``--link-mode=copy``: nltk refuses hard-linked data files.

Corpora: ``textbook-a`` (its Markdown folder) and ``scifact`` (SciFact's 5,183 abstracts written once
as Markdown files under bench/results/scifact-md: ~10k chunks on either side). Questions: the
textbook's question set, SciFact's 300 test queries. Every figure runs in a fresh process, sides
alternating (Lectern, LlamaIndex, Lectern, ...), ``--repeats`` times for the answer phase; medians.

- cold ingest: CPU seconds of the ingesting process, into an empty folder;
- unchanged re-ingest: wall seconds of a second ingest of the same folder (Lectern's manifest,
  LlamaIndex's docstore with upserts);
- answers/s in process, no LLM: Lectern's engine (hybrid retrieval, answerability, extractive writer,
  query cache off) against a LlamaIndex query engine in ``no_text`` mode (dense top 5 only, no
  writer): Lectern does more per answer;
- answers/s with two callers at once (one per core; each side as it comes: LlamaIndex's PyTorch
  already spreads one query over both cores, Lectern runs one query per core), after the one-caller
  pass, over the same questions;
- CPU ms per answer (one caller), peak RSS of the answering process, process start to first answer.

`/chat/run` over HTTP is measured on Lectern's side by bench/http_load.py; LlamaIndex ships no HTTP
service to compare with. Prints the table with ratios (Lectern / LlamaIndex) and the load average,
writes bench/results/compare-llamaindex.json.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
RESULTS = BENCH / "results"
SHARED = ROOT.parent / "shared" / "data"
OTHER_PYTHON = RESULTS / "llamaindex-venv" / "bin" / "python"
# The second answer pass: this many callers at once, one per core (a server's share of the machine).
CALLERS = 2
CORPORA = {
    "textbook-a": (SHARED / "textbooks" / "textbook-a", BENCH / "questions" / "textbook-a.jsonl"),
    "scifact": (RESULTS / "scifact-md", SHARED / "scifact" / "queries.jsonl"),
}


# --- Lectern's side (runs in this environment, one phase per process) --------------------------------
def lectern_ingest(corpus: Path, work: Path) -> dict[str, Any]:
    started, cpu0 = time.perf_counter(), _cpu_s()
    from lectern import word_frequency
    from lectern.ingest.manifest import Manifest
    from lectern.ingest.pipeline import IngestPipeline
    from lectern.runtime import Runtime
    from lectern.sentences import SentenceVectors
    from lectern.settings import load_settings

    settings = load_settings(data_dir=work, collection="bench")
    runtime = Runtime(settings)
    pipeline = IngestPipeline(
        collection=settings.collection,
        embedder=runtime.embedder,
        index=runtime.index,
        manifest=Manifest(settings.state_db_path),
        # What `lectern ingest` does: sentence vectors are part of a cold ingest's cost.
        sentences=SentenceVectors.for_data_dir(runtime.embedder, settings.data_dir),
    )
    report = pipeline.ingest_paths([corpus])
    runtime.index.optimize()
    word_frequency.prepare(settings.model_cache_dir)  # as `lectern ingest` does (part of its cost)
    return {"wall_s": time.perf_counter() - started, "cpu_s": _cpu_s() - cpu0, "chunks": report.chunks_total}


def lectern_answer(work: Path, questions: list[str], started: float) -> dict[str, Any]:
    import asyncio

    from lectern.engine import Engine
    from lectern.settings import load_settings

    engine = Engine.from_settings(load_settings(data_dir=work, collection="bench", query_cache_size=0))

    async def run() -> dict[str, Any]:
        await engine.run(questions[0], engine.new_conversation())
        first = time.time() - started
        for q in questions:  # warm-up pass
            await engine.run(q, engine.new_conversation())
        cpu0, wall0 = _cpu_s(), time.perf_counter()
        for q in questions:
            await engine.run(q, engine.new_conversation())
        wall, cpu = time.perf_counter() - wall0, _cpu_s() - cpu0
        pending = list(questions)

        async def caller() -> None:
            while pending:
                await engine.run(pending.pop(), engine.new_conversation())

        wall0 = time.perf_counter()
        await asyncio.gather(*(caller() for _ in range(CALLERS)))
        return {
            "start_to_first_answer_s": first,
            "answers": len(questions),
            "answers_per_s": len(questions) / wall,
            "answers_per_s_callers": len(questions) / (time.perf_counter() - wall0),
            "cpu_ms_per_answer": cpu * 1000 / len(questions),
            "peak_rss_mb": _peak_rss_mb(),
        }

    return asyncio.run(run())


def _cpu_s() -> float:
    """This process's CPU and its finished children's (a graph built in a process of its own counts)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _peak_rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def _questions(path: Path) -> list[str]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [str(r.get("question") or r.get("text")) for r in rows]


# --- the orchestrator -------------------------------------------------------------------------------
def scifact_markdown(target: Path) -> None:
    """SciFact's corpus as one Markdown file per abstract (title heading, then the text), once."""
    if target.is_dir() and any(target.iterdir()):
        return
    target.mkdir(parents=True, exist_ok=True)
    with (SHARED / "scifact" / "corpus.jsonl").open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                row = json.loads(line)
                text = f"# {row.get('title') or row['_id']}\n\n{row['text']}\n"
                (target / f"{row['_id']}.md").write_text(text, encoding="utf-8")


def run_side(side: str, phase: str, corpus: Path, work: Path, questions: Path | None) -> dict[str, Any]:
    if side == "lectern":
        command = [sys.executable, str(Path(__file__).resolve()), "--side", phase, str(corpus), str(work)]
    else:
        command = [str(OTHER_PYTHON), str(BENCH / "llamaindex" / "side.py"), phase, str(corpus), str(work)]
    if questions is not None:
        command.append(str(questions))
    if side != "lectern":
        command += ["--model", _model_dir()]
    started = time.time()
    command += ["--started", repr(started)]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{side} {phase} failed:\n{done.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    result["load_average"] = os.getloadavg()[0]
    return result


def _model_dir() -> str:
    from lectern.embeddings.minilm_assets import model_dir

    return str(model_dir())


def compare(name: str, repeats: int) -> dict[str, Any]:
    corpus, questions = CORPORA[name]
    if name == "scifact":
        scifact_markdown(corpus)
    work = RESULTS / "compare" / name
    out: dict[str, Any] = {"corpus": name}
    for side in ("lectern", "llamaindex"):
        shutil.rmtree(work / side, ignore_errors=True)
    for phase in ("cold_ingest", "reingest"):
        for side in ("lectern", "llamaindex"):
            print(f"  {name}: {side} {phase} ...", flush=True)
            out.setdefault(side, {})[phase] = run_side(side, "ingest", corpus, work / side, None)
    for i in range(repeats):
        for side in ("lectern", "llamaindex"):
            print(f"  {name}: {side} answers, run {i + 1}/{repeats} ...", flush=True)
            out[side].setdefault("answer_runs", []).append(
                run_side(side, "answer", corpus, work / side, questions)
            )
    for side in ("lectern", "llamaindex"):
        runs = out[side]["answer_runs"]
        out[side]["answer"] = {k: statistics.median(r[k] for r in runs) for k in runs[0] if k != "answers"}
    return out


def table(results: list[dict[str, Any]]) -> str:
    lines = ["| | Lectern | LlamaIndex + Qdrant | ratio |", "|---|---|---|---|"]
    for r in results:
        a, b, n = r["lectern"], r["llamaindex"], r["corpus"]
        ai, bi, aa, ba = a["cold_ingest"], b["cold_ingest"], a["answer"], b["answer"]
        rows = [
            (f"cold ingest of {n} (CPU s)", ai["cpu_s"], bi["cpu_s"], "time"),
            (
                f"unchanged re-ingest of {n} (wall s)",
                a["reingest"]["wall_s"],
                b["reingest"]["wall_s"],
                "time",
            ),
            (f"answers/s in process, {n} (no LLM)", aa["answers_per_s"], ba["answers_per_s"], "x"),
            (
                f"answers/s in process, {n}, {CALLERS} callers at once",
                aa["answers_per_s_callers"],
                ba["answers_per_s_callers"],
                "x",
            ),
            (f"CPU ms per answer, {n}", aa["cpu_ms_per_answer"], ba["cpu_ms_per_answer"], "time"),
            (f"peak RSS answering, {n} (MB)", aa["peak_rss_mb"], ba["peak_rss_mb"], "time"),
            (
                f"process start to first answer, {n} (s)",
                aa["start_to_first_answer_s"],
                ba["start_to_first_answer_s"],
                "time",
            ),
        ]
        for label, x, y, kind in rows:
            ratio = f"{x / y:.2f}×" if kind == "x" else f"{x / y:.2f}"
            lines.append(f"| {label} | {x:.1f} | {y:.1f} | {ratio} |")
    return "\n".join(lines)


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--side":
        _side_main(sys.argv[2:])
        return
    parser = argparse.ArgumentParser()
    parser.add_argument("--corpus", action="append", choices=sorted(CORPORA))
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    if not OTHER_PYTHON.exists():
        raise SystemExit(f"{OTHER_PYTHON} is missing: build it with the command in this script's docstring")
    results = [compare(name, args.repeats) for name in args.corpus or ["textbook-a", "scifact"]]
    load = os.getloadavg()
    print(table(results))
    print(f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on {os.cpu_count()} cores")
    RESULTS.mkdir(parents=True, exist_ok=True)
    out = RESULTS / "compare-llamaindex.json"
    out.write_text(json.dumps({"results": results, "load_average": load}, indent=2), encoding="utf-8")
    print(f"-> {out}")


def _side_main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("phase", choices=["ingest", "answer"])
    parser.add_argument("corpus", type=Path)
    parser.add_argument("work", type=Path)
    parser.add_argument("questions", type=Path, nargs="?")
    parser.add_argument("--started", type=float, default=0.0)
    args = parser.parse_args(argv)
    if args.phase == "ingest":
        result = lectern_ingest(args.corpus, args.work)
    else:
        result = lectern_answer(args.work, _questions(args.questions), args.started or time.time())
    sys.stdout.write(json.dumps(result) + "\n")


if __name__ == "__main__":
    main()
