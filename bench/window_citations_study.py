"""Follow-ups with and without the previous answer's citations in the conversation (the store's window).

    PYTHONHASHSEED=0 PYTHONPATH=src .venv/bin/python bench/window_citations_study.py [--out NAME] [--chat]

A follow-up's search favours the files the previous answer cited (`lectern.engine.favour_previous_sources`)
and a refused rewritten follow-up is searched again in the previous answer's section
(`Engine._in_previous_section`); both read the conversation's last assistant message's citations. In
process (CLI chat, bench/answer_quality.py) the engine keeps them; the faces that rebuild the conversation
from the store each turn (chat API, generation API, MCP: `lectern.api.turns.Turns.begin`) read a window
that carried roles, text and confidence only, so their follow-ups went without either. This asks the tuned
follow-up sets in process twice per book: as is ("with") and with every assistant message's citations
dropped as the engine stores it ("without": what the store-backed faces got before the window carried the
newest answer's citations). ``--chat`` also asks every record's turns on a /chat/run session (the app
in process, its SQLite store in a temporary folder) and counts the last turns whose text or decision
differ from each in-process variant.

Findings (main at 0ae76c6; followups-dev:dev and followups-devN:devN for N=4..16, 380 follow-ups, and
followups-nm:funm, 20 follow-up near misses, the four books pooled):

    variant                         follow-ups cited   every keyword   funm refused
    with citations (in process)       355 / 380          280 / 380        13 / 20
    without (the store's window)      347 / 380          278 / 380        13 / 20

191 of the 400 last turns were answered differently without the citations (104 citing other files, 87
with other text from the same files); none of the follow-up near misses changed its decision.
``--chat`` (the 400 records' turns on /chat/run sessions): before the fix (PYTHONPATH=/tmp/base/src) the
chat API's last turns equal the "without" variant's on all 400 (191 differ from "with"); with the window
carrying the newest answer's citations they equal the in-process "with" on all 400 (text and decision).
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import uuid
from pathlib import Path
from typing import Any

import httpx

from answer_quality import ask, selected, turns_of
from common import build, read_jsonl, write_result
from lectern import engine as engine_module
from lectern.api import create_app
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


async def over_chat_api(client: httpx.AsyncClient, record: dict[str, Any]) -> dict[str, Any]:
    """A record's turns on one /chat/run session (a store-backed face): its last answer's text and
    decision, to compare with the same turns in process."""
    session = str(uuid.uuid4())
    for turn in turns_of(record):
        r = await client.post("/chat/run", json={"message": turn, "session_id": session, "top_k": 5})
        r.raise_for_status()
    body = r.json()
    return {"id": record["id"], "text": body["response"], "answered": body["should_answer"]}


async def main(out: str, chat: bool) -> None:
    rows: dict[str, dict[str, list[dict[str, Any]]]] = {"with": {}, "without": {}, "chat": {}}
    for book in BOOKS:
        engine, settings, _ = build(DATA / book)
        for name, split in SETS:
            records = selected(list(read_jsonl(Path(f"bench/questions/{name}-{book}.jsonl"))), split)
            for variant in ("with", "without"):
                engine_module.Engine._remember = (  # type: ignore[method-assign]
                    _remember if variant == "with" else _remember_without_citations
                )
                rows[variant][f"{name}-{book}"] = [await ask(engine, r) for r in records]
            engine_module.Engine._remember = _remember  # type: ignore[method-assign]
            if chat:
                with tempfile.TemporaryDirectory() as folder:
                    url = f"sqlite+aiosqlite:///{Path(folder) / 'store.sqlite3'}"
                    served = settings.model_copy(update={"database_url": url, "rate_limit": ""})
                    app = create_app(served, engine=engine)
                    async with app.router.lifespan_context(app):
                        transport = httpx.ASGITransport(app=app)
                        async with httpx.AsyncClient(transport=transport, base_url="http://chat") as client:
                            rows["chat"][f"{name}-{book}"] = [await over_chat_api(client, r) for r in records]
    report: dict[str, Any] = {}
    for variant, by_set in rows.items():
        if variant == "chat":
            continue
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
    if chat:
        for variant in ("with", "without"):
            unlike = [
                f"{name} {a['id']}"
                for name in rows["chat"]
                for a, b in zip(rows[variant][name], rows["chat"][name], strict=True)
                if (a["text"], a["answered"]) != (b["text"], b["answered"])
            ]
            print(f"/chat/run vs in process {variant} citations: {len(unlike)} last turns differ")
            report[f"chat_vs_{variant}"] = unlike
    write_result(out, {"report": report, "differing": differing, "rows": rows})


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", default="window-citations")
    parser.add_argument("--chat", action="store_true", help="also ask every record over /chat/run")
    args = parser.parse_args()
    asyncio.run(main(args.out, args.chat))
