"""Follow-ups with and without the previous answer's citations in the conversation (the store's window).

    PYTHONHASHSEED=0 PYTHONPATH=src .venv/bin/python bench/window_citations_study.py [--out NAME]

A follow-up's search favours the files the previous answer cited (`lectern.engine.favour_previous_sources`)
and a refused rewritten follow-up is searched again in the previous answer's section
(`Engine._in_previous_section`); both read the conversation's last assistant message's citations. In
process (CLI chat, bench/answer_quality.py) the engine keeps them; the faces that rebuild the conversation
from the store each turn (chat API, generation API, MCP: `lectern.api.turns.Turns.begin`) read a window
that carried roles, text and confidence only, so their follow-ups went without either. This asks the tuned
follow-up sets in process twice per book: as is ("with") and with every assistant message's citations
dropped as the engine stores it ("without": what the store-backed faces got before the window carried the
newest answer's citations).

Findings (main at 0ae76c6; followups-dev:dev and followups-devN:devN for N=4..16, 380 follow-ups, and
followups-nm:funm, 20 follow-up near misses, the four books pooled):

    variant                         follow-ups cited   every keyword   funm refused
    with citations (in process)       355 / 380          280 / 380        13 / 20
    without (the store's window)      347 / 380          278 / 380        13 / 20

191 of the 400 last turns were answered differently without the citations (104 citing other files, 87
with other text from the same files); none of the follow-up near misses changed its decision.
"""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path
from typing import Any

from answer_quality import ask, selected
from common import build, read_jsonl, write_result
from lectern import engine as engine_module
from lectern.conversation import Conversation

BOOKS = ("textbook-a", "textbook-b", "textbook-c", "textbook-d")
SETS = [("followups-dev", "dev")] + [(f"followups-dev{n}", f"dev{n}") for n in range(4, 17)]
SETS.append(("followups-nm", "funm"))
DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "textbooks"

_remember = engine_module.Engine._remember


def _remember_without_citations(self: Any, conversation: Conversation, turn: Any, answer: Any) -> None:
    _remember(self, conversation, turn, answer)
    conversation.messages[-1].citations = []


def pooled(rows: list[dict[str, Any]]) -> dict[str, int]:
    followups = [r for r in rows if r["kind"] == "followup"]
    misses = [r for r in rows if r["kind"] == "near_miss"]
    return {
        "followups": len(followups),
        "cited": sum(r["relevant_cited"] for r in followups),
        "keywords": sum(r["has_keywords"] for r in followups),
        "near_misses": len(misses),
        "refused": sum(not r["answered"] for r in misses),
    }


async def main(out: str) -> None:
    rows: dict[str, dict[str, list[dict[str, Any]]]] = {"with": {}, "without": {}}
    for book in BOOKS:
        engine, _, _ = build(DATA / book)
        for name, split in SETS:
            records = selected(list(read_jsonl(Path(f"bench/questions/{name}-{book}.jsonl"))), split)
            for variant in ("with", "without"):
                engine_module.Engine._remember = (  # type: ignore[method-assign]
                    _remember if variant == "with" else _remember_without_citations
                )
                rows[variant][f"{name}-{book}"] = [await ask(engine, r) for r in records]
        engine_module.Engine._remember = _remember  # type: ignore[method-assign]
    report: dict[str, Any] = {}
    for variant, by_set in rows.items():
        dev = [r for name, rs in by_set.items() if not name.startswith("followups-nm") for r in rs]
        funm = [r for name, rs in by_set.items() if name.startswith("followups-nm") for r in rs]
        report[variant] = {"dev": pooled(dev), "funm": pooled(funm)}
        print(variant, report[variant])
    differing = [
        f"{name} {a['id']}"
        for name in rows["with"]
        for a, b in zip(rows["with"][name], rows["without"][name], strict=True)
        if (a["sources"], a["text"], a["answered"]) != (b["sources"], b["text"], b["answered"])
    ]
    print(f"{len(differing)} last turns differ")
    write_result(out, {"report": report, "differing": differing, "rows": rows})


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", default="window-citations")
    asyncio.run(main(parser.parse_args().out))
