"""The question as it is read: courtesy, greetings and preambles that carry no content left out.

Readers dress their questions: "Hi! How do I X?", "Can you tell me: what is X?", "I was wondering, how
...", "quick question: ...", "How do I X? Thanks!". Every reading downstream looks at the question's
words and its first and last ones (the search text, the answerability decision's question terms, the
question kinds, the writer's query terms, the follow-up rewrite), and a "Hi" or a "please" is a word no
passage answering the question has. `without_courtesy` gives the question those readings see, for a
single question as for a follow-up; the engine stores, shows and echoes the question as asked.

Only what says nothing of what is asked goes: a preamble whose verb asks ("explain X", "tell me about
X", "show me how to X") keeps that verb, and "can"/"could" that asks ("Can ROS run on Windows?",
"Can you use X with Y?") is kept. A question that is nothing but courtesy ("Thanks!", "please?") is kept
as asked.
"""

from __future__ import annotations

import re

# "..., please?", "... thanks", "How do I X? Thanks!", "..., cheers": a courtesy at the end; the
# question's own mark stays ("and the consumer, please?" -> "and the consumer?")
_COURTESY_END = re.compile(
    r"[\s,]*\b(?:please|pls|plz|thanks(?:\s+(?:a\s+lot|so\s+much|in\s+advance))?|thank\s+you"
    r"(?:\s+(?:very\s+much|so\s+much|in\s+advance))?|thx|cheers|ty\s+in\s+advance)\b(?P<mark>[\s?.!]*)$",
    re.IGNORECASE,
)
# "please explain ...", "kindly ...": one at the start
_COURTESY_START = re.compile(r"^\s*(?:please|pls|plz|kindly)\s+(?=\w)", re.IGNORECASE)
# "thanks! and ...", "ok, what about ...?", "also, how ...?", "hmm, ...", "Hi! How ...", "hello, ...",
# "hey there, ...", "good morning! ...": an acknowledgement, a filler or a greeting before the question,
# set apart by a comma or a stop ("ok so ..." and "ok and ..." keep their "ok")
_GREETING = (
    r"(?:hi|hello|hey|hiya|howdy|greetings|good\s+(?:morning|afternoon|evening|day))"
    r"(?:\s+(?:there|all|everyone|everybody|folks|team))?"
)
_ACKNOWLEDGED = re.compile(
    r"^\s*(?:(?:ok(?:ay)?|thanks|thank\s+you|thx|great|cool|nice|perfect|got\s+it|i\s+see|alright|all\s+right"
    r"|also|oh|ah|hmm+|um+|uh|wait|well|" + _GREETING + r")\s*[,.!:;]+\s*)+(?=\w)",
    re.IGNORECASE,
)
_ASKS = r"(?:how|what|what's|whats|why|when|where|which|who|whose|whom|is|are|was|were|do|does|did|can|could"
_ASKS += r"|should|would|will|has|have|may|might|must)\b"
# "hi how do I ...", "hey what is ...": a greeting with no comma, before a word that asks
_GREETED = re.compile(r"^\s*" + _GREETING + r"\s+(?=" + _ASKS + ")", re.IGNORECASE)
# "quick question: ...", "a question - ...", "one more question, ...": a preamble announcing a question
_ANNOUNCED = re.compile(
    r"^\s*(?:(?:a|one|another)\s+)?(?:(?:more|quick|small|simple|short|little|basic|dumb|silly|newbie)\s+)*"
    r"question\s*(?:for\s+you\s*)?[:,\-\u2013\u2014]+\s*(?=\w)",
    re.IGNORECASE,
)
# "I was wondering, how ...", "I wonder: what ...", "just wondering, ...", "I'd like to know how ...",
# "do you know what ...", "can you tell me: what ...", "could you please tell me how ...": a preamble
# whose question is the clause after it (set apart by a comma or a colon, or opened by a word that asks;
# not "I wonder if ...", whose clause is no question of its own)
_YOU = r"(?:can|could|would|will)\s+(?:you|u)\s+(?:please\s+|kindly\s+)?"
_WONDER = (
    r"(?:i\s+(?:was|am|'m)\s+wondering|i\s+wonder(?:ed)?|just\s+wondering|wondering"
    r"|i(?:'d|\s+would)\s+like\s+to\s+know|i\s+want\s+to\s+know|do\s+you\s+know|does\s+anyone\s+know"
    r"|" + _YOU + r"tell\s+me|tell\s+me)"
)
_WONDERED = re.compile(
    r"^\s*" + _WONDER + r"(?:\s*[,:;\-\u2013\u2014]+\s*(?=\w)|\s+(?=(?:how|what|what's|whats|why|when|where"
    r"|which|who|whose|whom)\b))",
    re.IGNORECASE,
)
# "can you explain X", "could you describe X", "would you tell me about X": the asking verb stays
# ("explain X"); "can you use X with Y?" asks whether one can, and is kept. "can you show me ...",
# "can you give me ..." and "can you walk me through ..." are left as asked: the tuned sets ask a few
# plainly, and reading them without "can you" changed their answers' wording (never whether they were
# answered or cited)
_ASKED_TO = re.compile(
    r"^\s*" + _YOU + r"(?=(?:explain|describe|summari[sz]e|outline|clarify|tell\s+me\s+about|define)\b)",
    re.IGNORECASE,
)
_LEADING = (_COURTESY_START, _ACKNOWLEDGED, _GREETED, _ANNOUNCED, _WONDERED, _ASKED_TO)


def without_courtesy(question: str) -> str:
    """`question` with its courtesy words, an acknowledgement or a greeting before it and a preamble
    that carries no content left out: the readings of a question look at its words and at its first and
    last ones, which a "please", a "Hi!" or a "can you tell me:" would otherwise change ("and the
    subscriber, please?" -> "and the subscriber?", "Hi! How do I X?" -> "How do I X?", "could you
    explain X" -> "explain X"). The question as asked when nothing else would be left."""
    plain = question
    for _ in range(8):  # "Hi! Quick question: can you tell me how ...": each layer in turn
        before = plain
        plain = _COURTESY_END.sub(_kept_mark, plain)
        for leading in _LEADING:
            plain = leading.sub("", plain)
        if plain == before:
            break
    return plain if plain.strip(" ?.!,:;-") else question


def _kept_mark(match: re.Match[str]) -> str:
    """The question mark the courtesy closed with, kept unless the question before it ends a sentence of
    its own ("How do I X? Thanks?", "... and how long., please?")."""
    closed = match.string[: match.start()].rstrip().endswith(("?", ".", "!"))
    return "?" if "?" in match.group("mark") and not closed else ""
