"""Where a server's resident memory goes: RSS by stage of an engine built as `lectern serve` builds it.

    uv run python bench/memory_stages.py DATA_DIR COLLECTION QUESTIONS.jsonl [--answers 100] [--top 12]

In one process, on a collection already ingested in DATA_DIR: RSS (anonymous and file-backed) after
importing the API app, building the engine, opening the index, loading the query model, and after 1,
10, ... answers (fresh conversations; the `question` or `text` field of each line, cycled); then the
largest mappings of /proc/self/smaps (file-backed ones are shared libraries and memory-mapped models:
clean pages the kernel can drop, but counted in RSS) and which model sessions are loaded. No HTTP
server, store or uvicorn: `bench/serve_memory.py` measures the whole `lectern serve` process. Linux only.
Writes bench/results/memory-stages-<collection>.json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
from collections import Counter
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).parent / "results"
FIELDS = ("VmHWM", "VmRSS", "RssAnon", "RssFile")


def memory() -> dict[str, float]:
    values: dict[str, float] = {}
    for line in Path("/proc/self/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in FIELDS:
            values[key] = round(int(value.split()[0]) / 1024, 1)
    return values


def mappings(top: int) -> list[tuple[str, float]]:
    """MB resident per mapped file ([heap], [anon] and the like for the rest), largest first."""
    resident: Counter[str] = Counter()
    name = "[anon]"
    for line in Path("/proc/self/smaps").read_text().splitlines():
        parts = line.split()
        if parts and "-" in parts[0] and not parts[0].endswith(":"):
            name = parts[5] if len(parts) > 5 else "[anon]"
        elif parts and parts[0] == "Rss:":
            resident[name] += int(parts[1])
    return [(n, round(kb / 1024, 1)) for n, kb in resident.most_common(top)]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("data_dir", type=Path)
    parser.add_argument("collection")
    parser.add_argument("questions", type=Path)
    parser.add_argument("--answers", type=int, default=100)
    parser.add_argument("--top", type=int, default=12)
    args = parser.parse_args()
    os.environ["LECTERN_DATA_DIR"] = str(args.data_dir.resolve())
    os.environ["LECTERN_COLLECTION"] = args.collection
    rows = [json.loads(line) for line in args.questions.read_text(encoding="utf-8").splitlines() if line]
    questions = [str(r.get("question") or r.get("text")) for r in rows]

    stages: list[dict[str, Any]] = []

    def stage(name: str) -> None:
        stages.append({"stage": name, **memory()})
        print(f"{name:<24} {stages[-1]}", flush=True)

    stage("interpreter")
    import lectern.api.app  # noqa: F401  (what `lectern serve` imports)
    from lectern.embeddings import local
    from lectern.engine import Engine
    from lectern.settings import get_settings

    stage("imports")
    engine = Engine.from_settings(get_settings())
    stage("engine built")
    engine.retriever.index.info()
    stage("index open")
    engine.retriever.embedder.embed_query("warm up")
    stage("query model")

    async def answer() -> None:
        marks = {1, 10, 50, args.answers}
        for i in range(args.answers):
            await engine.run(questions[i % len(questions)], engine.new_conversation())
            if i + 1 in marks:
                stage(f"after {i + 1} answers")

    asyncio.run(answer())
    largest = mappings(args.top)
    sessions = {
        "fp32_document_model": local._load_runtime.cache_info().currsize,
        "int8_query_model": local.load_query_model.cache_info().currsize,
    }
    for name, mb in largest:
        print(f"{mb:8.1f} MB  {name}")
    print(sessions)
    RESULTS.mkdir(parents=True, exist_ok=True)
    out = RESULTS / f"memory-stages-{args.collection}.json"
    result = {"stages": stages, "mappings_mb": largest, "sessions": sessions, "load_average": os.getloadavg()}
    out.write_text(json.dumps(result, indent=2), encoding="utf-8")
    print(f"-> {out}")


if __name__ == "__main__":
    main()
