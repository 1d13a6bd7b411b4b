"""Python bytecodes a warm engine executes an answer, by function: where the eval loop's share goes.

    PYTHONHASHSEED=0 [PYTHONPATH=TREE/src] .venv/bin/python bench/bytecodes_answers.py CORPUS QUESTIONS
        [--limit 40] [--top 45]

The engine answers the first `--limit` questions twice to warm up, as bench/callgrind_answers.py does
(fresh conversations, every question's vector cached, the worker hand-offs inline), then once more under
`sys.settrace` with opcode events on: each executed bytecode is counted against its code object. Prints
the bytecodes an answer and the functions executing the most (their own bytecodes, not their callees').
callgrind counts the C side (the regex engine, numpy, pydantic's core) that this cannot see, and the eval
loop only as a whole (~20 % of the Python side's instructions); this names the Python functions behind
it, exactly and load-independently, in ~20 s (the tracer slows the answers ~30x).

Nov 2026, perf10 (textbook-a, the first 40 train questions): 72.2 k bytecodes an answer at main 68d2493,
63.1 k after that round's commits. It found the two loops that went over every candidate for each chosen
unit (`_with_lead_ins`' source lists, 2.8 k; `_mmr`'s eligible list over the whole pool each round,
2.3 k) and the candidates' keys and row ids unpacked in Python comprehensions (`LanceDBIndex.search`).
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import sys
from pathlib import Path
from types import FrameType
from typing import Any

from common import build, read_jsonl
from lectern.embeddings.cache import with_query_cache
from lectern.engine import Engine
from lectern.retrieval import Retriever
from lectern.writers import create_writer

_counts: collections.Counter[tuple[str, int, str]] = collections.Counter()


def _tracer(frame: FrameType, event: str, arg: Any) -> Any:
    frame.f_trace_opcodes = True
    frame.f_trace_lines = False
    if event == "opcode":
        code = frame.f_code
        _counts[(code.co_filename, code.co_firstlineno, code.co_name)] += 1
    return _tracer


async def _inline(func: Any, /, *args: Any, **kwargs: Any) -> Any:
    return func(*args, **kwargs)


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("corpus", type=Path)
    parser.add_argument("questions", type=Path)
    parser.add_argument("--limit", type=int, default=40)
    parser.add_argument("--top", type=int, default=45)
    args = parser.parse_args()
    questions = [str(q.get("question") or q.get("text") or q["turns"][0]) for q in read_jsonl(args.questions)]
    questions = questions[: args.limit]
    engine, settings, _ = build(args.corpus, query_cache_size=0)
    cached = with_query_cache(engine.retriever.embedder, 4096)
    engine = Engine(
        Retriever(cached, engine.retriever.index, settings),
        create_writer(settings, embedder=cached),
        settings,
    )
    asyncio.to_thread = _inline  # type: ignore[assignment]
    for _ in range(2):
        for question in questions:
            await engine.run(question, engine.new_conversation())
    sys.settrace(_tracer)
    for question in questions:
        await engine.run(question, engine.new_conversation())
    sys.settrace(None)
    n = len(questions)
    print(f"{sum(_counts.values()) / n:,.0f} bytecodes an answer ({n} answers)")
    for (file, line, name), count in _counts.most_common(args.top):
        where = file.split("/src/")[-1].split("site-packages/")[-1]
        print(f"  {count / n:8,.0f}  {where}:{line} {name}")


if __name__ == "__main__":
    asyncio.run(main())
