"""A cheap token estimate and the history trimming that keeps a prompt inside the model's window.

The estimate needs no tokenizer (any OpenAI-compatible model may be behind the endpoint): about four
characters a token for ASCII text, one token a character otherwise (CJK and similar scripts are close
to that; it over-counts accented Latin text, which errs on the safe side), plus a few tokens of framing
per message. It is meant to keep well clear of the limit, not to bill.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

MESSAGE_OVERHEAD_TOKENS = 4
"""Role and separators of one chat message."""


def estimate_tokens(text: str) -> int:
    if not text:
        return 0
    ascii_chars = len(text.encode("ascii", "ignore"))
    return math.ceil(ascii_chars / 4) + (len(text) - ascii_chars)


def message_tokens(message: Mapping[str, Any]) -> int:
    tokens = MESSAGE_OVERHEAD_TOKENS + estimate_tokens(str(message.get("content") or ""))
    if message.get("tool_calls"):
        tokens += estimate_tokens(json.dumps(message["tool_calls"]))
    return tokens


def messages_tokens(messages: Sequence[Mapping[str, Any]]) -> int:
    return sum(message_tokens(m) for m in messages) + 3  # the reply's priming


@dataclass(frozen=True)
class Fitted:
    history: list[dict[str, Any]]
    dropped: int
    """How many of the oldest history messages were left out."""


def fit_history(history: Sequence[dict[str, Any]], budget_tokens: int) -> Fitted:
    """Keep the newest history messages whose estimate fits `budget_tokens`, dropping whole turns
    from the oldest end: the kept history never starts with an assistant message."""
    kept: list[dict[str, Any]] = []
    used = 0
    for message in reversed(history):
        cost = message_tokens(message)
        if used + cost > budget_tokens:
            break
        kept.append(message)
        used += cost
    kept.reverse()
    while kept and kept[0].get("role") != "user" and len(kept) < len(history):
        kept.pop(0)
    return Fitted(history=kept, dropped=len(history) - len(kept))
