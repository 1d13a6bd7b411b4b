"""Questions that ask what a program prints, and the fenced blocks that show what it printed.

A reader who ran an example asks what it should say ("How many items should the listener report?",
"What does it print when the file is valid?"). The answer is the documents' console output: a fenced
block with no language (or `console`) whose lines are not commands, usually under "Expected output:".
Prose around it seldom repeats the figure, and the block shares few of the question's words, so the
writer's scoring never reaches it (bench/code_diagram_keyword_study.py).
"""

from __future__ import annotations

import re
from functools import lru_cache

# A question word, then (in the same sentence) a verb of printing: "what does it print", "how many ...
# should it say". A verb before the question word is the reader quoting a symptom ("bash says the
# command doesn't exist. What do I do?"): that asks for a fix, not for the output. ("show" is left out:
# "which lesson shows me how", "what would the project have to show" ask for no program's output.)
_ASKS = re.compile(
    r"\b(?:what|which|how\s+many|how\s+much)\b[^.?!]*?\b(?:print|prints|printed|output|outputs|say|says|"
    r"display|displays|log|logs|report|reports|see)\b",
    re.IGNORECASE,
)
# Output fences: none named, or a console transcript. (`text` / `output` fences are not units at all.)
_OUTPUT_FENCES = frozenset({"", "console"})
# A line typed at a prompt: a block holding one is a session to run, not what a program printed.
_COMMAND = re.compile(
    r"^\s*(?:\$|>>>|sudo\s|ros2\s|python3?\s|pip3?\s|cd\s|colcon\s|source\s|export\s|git\s|docker\s|make\s)"
)


# The verbs' stems: a question with none of them (most) skips the search, whose lazy scan after each
# question word is most of this check's cost (~4 us a question).
_VERB_STEMS = ("print", "output", "say", "display", "log", "report", "see")


def asks_for_output(question: str) -> bool:
    """Whether the question asks what a program prints or shows."""
    lower = question.lower()
    if not any(stem in lower for stem in _VERB_STEMS):
        return False
    return _ASKS.search(question) is not None


@lru_cache(maxsize=1024)
def is_output(block: str) -> bool:
    """Whether a fenced block (fences included) is a program's output: no language or `console`, and
    no line that is a command typed at a prompt."""
    lines = block.split("\n")
    language = lines[0].strip().lstrip("`~").strip().split(" ")[0].lower()
    body = [line for line in lines[1:-1] if line.strip()]
    return language in _OUTPUT_FENCES and bool(body) and not any(_COMMAND.match(line) for line in body)
