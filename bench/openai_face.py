"""The answer bench's other face: `lectern serve` on a bench index, asked with the official `openai` client
as an outside grader asks it (used by ``bench/answer_quality.py --via openai|both``).

A record's turns go as a growing message history, the way a client keeps one; ``--messages`` picks it:
- ``history``: [user q1] -> a1, then [user q1, assistant a1, user q2];
- ``users``: the client keeps only its own questions, [user q1, user q2];
- ``system``: as ``history``, each request led by a system message (a typical client's default).
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from openai import OpenAI
from openai.types.chat import ChatCompletionMessageParam

import http_load as h
from answer_quality import Observed

SYSTEM = "You are a helpful assistant."


@contextmanager
def served(data_dir: Path, collection: str) -> Iterator[tuple[OpenAI, str]]:
    """The service (one worker, as `lectern serve` runs it) on `data_dir`; an OpenAI client, the model."""
    with tempfile.TemporaryDirectory() as tmp:
        env = {
            "LECTERN_DATA_DIR": str(data_dir),
            "LECTERN_COLLECTION": collection,
            "LECTERN_DATABASE_URL": f"sqlite+aiosqlite:///{tmp}/lectern.sqlite3",  # sessions: not the bench's
            "LECTERN_RATE_LIMIT": "",
            "LECTERN_API_KEYS": "[]",
        }
        with h.server(env, workers=1) as (url, _):
            client = OpenAI(base_url=f"{url}/v1", api_key="unused", max_retries=0, timeout=120)
            yield client, client.models.list().data[0].id


def complete(
    client: OpenAI, model: str, history: list[ChatCompletionMessageParam]
) -> tuple[str, list[Any], dict[str, Any]]:
    """One completion: its text, citations and ``lectern`` extension."""
    completion = client.chat.completions.create(model=model, messages=history)
    message = completion.choices[0].message
    extension = (completion.model_extra or {})["lectern"]
    return message.content or "", (message.model_extra or {}).get("citations") or [], extension


def complete_streamed(
    client: OpenAI, model: str, history: list[ChatCompletionMessageParam]
) -> tuple[str, list[Any], dict[str, Any]]:
    """The same, streamed: the text from the deltas, the rest from the chunk that finishes."""
    parts: list[str] = []
    citations: list[Any] = []
    extension: dict[str, Any] = {}
    for chunk in client.chat.completions.create(model=model, messages=history, stream=True):
        if not chunk.choices:
            continue
        choice = chunk.choices[0]
        parts.append(choice.delta.content or "")
        if choice.finish_reason:
            citations = (choice.delta.model_extra or {}).get("citations") or []
            extension = (chunk.model_extra or {})["lectern"]
    return "".join(parts), citations, extension


def observe(
    client: OpenAI, model: str, turns: list[str], messages: str = "history", stream: bool = False
) -> Observed:
    """The turns asked through ``/v1/chat/completions``; what the last completion shows."""
    history: list[ChatCompletionMessageParam] = (
        [{"role": "system", "content": SYSTEM}] if messages == "system" else []
    )
    extension: dict[str, Any] = {}
    citations: list[Any] = []
    text = ""
    for turn in turns:
        history.append({"role": "user", "content": turn})
        text, citations, extension = (complete_streamed if stream else complete)(client, model, history)
        if messages != "users":
            history.append({"role": "assistant", "content": text})
    answered = bool(extension["should_answer"] and extension["grounded"])
    # A client that reads only the standard fields and `citations` must come to the same decision.
    assert answered == (bool(citations) and not extension["refusal_reason"]), (turns, extension)
    score = extension.get("answerability")
    return Observed(
        answered=answered,
        cited={c["source_path"] for c in citations},
        text=text,
        search_query=extension["search_query"],
        level=extension["confidence_level"],
        score=float(extension["confidence"] if score is None else score),
        average_similarity=float(extension["confidence"]),
        reason=extension["refusal_reason"],
        ms=float(extension["timings"]["total_ms"]),
    )
