"""What a server change must leave alone: ``/chat/run``'s answers, a session's history and what the store
keeps, for a fixed list of questions, written without the fields that differ run to run (ids, times),
so two trees' files compare byte for byte.

    [PYTHONPATH=TREE/src] uv run python bench/http_answers.py /work/shared/data/textbooks/textbook-a OUT.json
        [--questions 50] [--turns 5]

Starts the service as bench/http_load.py does (its ingested collection, a fresh SQLite database, no query
cache) and asks the first ``--questions`` of its distinct questions, ``--turns`` to a session. Writes
each response, the last session's history, every stored message (text, confidence, the sources' and
citations' JSON text, seq, archived), the threads' counters and summaries, and the log rows (type and
detail keys; the sink stores them every 0.5 s, so compare the shorter list's length). Every stored
timestamp must be SQLite's YYYY-MM-DD HH:MM:SS.ffffff text.
"""

from __future__ import annotations

import argparse
import json
import re
import sqlite3
import sys
import tempfile
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
import http_load as h

VOLATILE = ("session_id", "timestamp", "timings")
STAMP = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{6}")


def ask(url: str, questions: list[str], turns: int) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    session = None
    with httpx.Client(base_url=url, timeout=60) as client:
        for i, question in enumerate(questions):
            body: dict[str, Any] = {"message": question}
            if i % turns:
                body["session_id"] = session
            response = client.post("/chat/run", json=body)
            answer = response.json()
            session = answer.get("session_id")
            rows.append({"q": question, "status": response.status_code, **_without(answer, VOLATILE)})
        history = client.get(f"/session/{session}/history").json()
    history["messages"] = [_without(m, ("timestamp", "turn_id")) for m in history["messages"]]
    rows.append({"history": _without(history, ("thread_id", "created_at", "updated_at"))})
    return rows


def stored(database: Path) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    with sqlite3.connect(database) as con:
        messages = "select role, content, confidence, sources, citations, seq, archived, timestamp"
        for *fields, stamp in con.execute(messages + " from messages order by message_id"):
            _check_stamp(stamp)
            rows.append({"message": fields})
        threads = "select topic_summary, message_count, turn_count, retrieval_count, total_tokens, created_at"
        for *fields, stamp in con.execute(threads + " from threads order by rowid"):
            _check_stamp(stamp)
            rows.append({"thread": fields})
        for kind, details, stamp in con.execute(
            "select event_type, details, timestamp from log_events order by event_id"
        ):
            _check_stamp(stamp)
            rows.append({"log": [kind, sorted(json.loads(details))]})
    return rows


def _check_stamp(text: str) -> None:
    if not STAMP.fullmatch(text):
        raise SystemExit(f"a stored timestamp in another text: {text!r}")


def _without(row: dict[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    return {k: v for k, v in row.items() if k not in keys}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("folder", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--questions", type=int, default=50)
    parser.add_argument("--turns", type=int, default=5)
    args = parser.parse_args()
    folder = args.folder.resolve()
    questions = h.distinct_questions(folder)[: args.questions]
    with tempfile.TemporaryDirectory() as tmp:
        database = Path(tmp) / "lectern.sqlite3"
        env = h.service_env(
            h.RESULTS / "http" / folder.name, f"sqlite+aiosqlite:///{database}", LECTERN_QUERY_CACHE_SIZE="0"
        )
        with h.server(env, 1) as (url, _):
            rows = ask(url, questions, args.turns)
        rows += stored(database)  # after the server stopped: the log sink has flushed
    args.out.write_text(json.dumps(rows, indent=1, ensure_ascii=False))
    print(f"wrote {args.out}: {len(rows)} rows")


if __name__ == "__main__":
    main()
