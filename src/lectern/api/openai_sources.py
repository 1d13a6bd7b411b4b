"""The files the previous answer cited, for a conversation rebuilt from an OpenAI ``messages`` array.

A follow-up's search favours the files the previous answer cited (`lectern.engine.favour_previous_sources`).
In a session the engine remembers them; an OpenAI client sends back only what it keeps, mostly the
assistant's ``content``, or its own questions alone. So, for the last earlier question:
- the assistant message's ``citations`` (a client that sends the message back as it came) are used;
- else, with the extractive writer (deterministic and cheap: one retrieval), that question is asked again
  on the history before it, and its answer's citations stand for the ones the client dropped: the
  follow-up is then answered as in a session (bench/answer_quality.py --via both). That earlier answer
  was itself a follow-up searched with the bonus of the one before it, so its own previous answer is
  recalled first, up to `MAX_REPLAYED` answers back (one retrieval each). An LLM writer's turn is not
  replayed (a second model call per request); its follow-ups go without the bonus.
"""

from __future__ import annotations

import logging
from typing import Any

from lectern.conversation import Conversation, Message
from lectern.engine import AskOptions, Engine
from lectern.errors import LecternError
from lectern.models import Citation

log = logging.getLogger("lectern.api")

# Earlier answers replayed for one request at most: a third turn's search depends on the second answer's
# files, which depended on the first's; further back, a chain of follow-ups rarely still leans on them.
MAX_REPLAYED = 3


def citations_of(extra: dict[str, Any] | None) -> list[Citation]:
    """An assistant message's echoed ``citations`` (as a completion returned them); malformed ones dropped.
    Each keeps its file and, where sent, its title, section and heading path: a refused follow-up is
    searched again in the previous answer's section (`lectern.engine.Engine._in_previous_section`)."""
    given = (extra or {}).get("citations")
    if not isinstance(given, list):
        return []
    out = []
    for n, c in enumerate(given, start=1):
        if isinstance(c, dict) and isinstance(c.get("source_path"), str) and c["source_path"]:
            path = c.get("heading_path")
            headings = [h for h in path if isinstance(h, str)] if isinstance(path, list) else []
            out.append(
                Citation(
                    number=n,
                    chunk_id="",
                    chunk_text="",
                    similarity_score=0.0,
                    source_path=c["source_path"],
                    title=_text(c.get("title")),
                    section=_text(c.get("section")),
                    heading_hierarchy=headings,
                )
            )
    return out


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


async def recall_previous_sources(
    conversation: Conversation, engine: Engine, options: AskOptions, depth: int = MAX_REPLAYED
) -> None:
    """Give the answer to the conversation's last question the citations the client did not send back
    (adding that answer where the client sent only its questions), recalling the answers before it
    the same way, `depth` answers back at most."""
    history = conversation.history
    asked = [i for i, m in enumerate(history) if m.role == "user"]
    if not asked:
        return
    last = asked[-1]
    answer = next((m for m in history[last + 1 :] if m.role == "assistant"), None)
    if depth < 1 or (answer is not None and answer.citations) or engine.settings.llm_provider != "extractive":
        return
    earlier = Conversation(
        system_prompt=conversation.system_prompt,
        max_history=conversation.max_history,
        messages=[conversation.messages[0], *history[:last]],
    )
    earlier.turns = len(asked) - 1
    # the earlier question was searched with the files of the answer before it: recall those first
    await recall_previous_sources(earlier, engine, options, depth - 1)
    try:
        replayed = await engine.run(history[last].content, earlier, options)
    except LecternError as exc:  # the follow-up is still answered, without the bonus
        log.info("previous answer not replayed: %s", exc)
        return
    if answer is None:  # the client kept only its questions: the answer goes after the question
        answer = Message("assistant", replayed.text)
        conversation.messages.insert(conversation.messages.index(history[last]) + 1, answer)
    answer.citations = list(replayed.citations)
