"""A writer's stream as the engine reads it: a tool-calling writer run in a task of its own, its events
put on a queue (`_pump`), and what of a writer's final text its tokens did not stream yet (`_remainder`)."""

from __future__ import annotations

import asyncio

from lectern import guardrail
from lectern.models import ConfidenceMetrics
from lectern.writers.base import AnswerWriter, WriteRequest

_END = object()


async def _pump(writer: AnswerWriter, request: WriteRequest, queue: asyncio.Queue[object]) -> None:
    """Run the writer, putting its events (or its exception) on the queue, then the end marker."""
    try:
        async for event in writer.write(request):
            queue.put_nowait(event)
    except asyncio.CancelledError:
        raise
    except BaseException as exc:
        queue.put_nowait(exc)
    queue.put_nowait(_END)


def _remainder(streamed: str, final: str, confidence: ConfidenceMetrics | None) -> str:
    """What of the writer's final text was not streamed yet (all of it when it streamed nothing)."""
    prefix = (
        guardrail.LOW_CONFIDENCE_DISCLAIMER if confidence and confidence.confidence_level == "low" else ""
    )
    already = streamed[len(prefix) :] if streamed.startswith(prefix) else streamed
    return final[len(already) :] if final.startswith(already) else ""
