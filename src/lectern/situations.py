"""When a follow-up's "that" stands for a situation of the previous question, not a thing named in it.

"isn't that slow though?" after "when should the robot redo its whole route instead of just patching
the next bit?": "that" is redoing the route, a doing; "how can I cut that down?" after "which model eats
the most memory in the capstone stack?": "that" is the memory the model eats. Cut into a subject for
the pronoun, such a question glues a clause into the follow-up ("cut model eats the most memory down"),
so the follow-up keeps its "that" with the whole previous question after it in brackets, as a
follow-up to a report does; a measure the previous question names (memory, time, fees) takes the place
of a "that" which is cut down or raised, since that measure is what changes.
"""

from __future__ import annotations

import re

from lectern.english import AUXILIARIES, DETERMINERS, VERBS, word_set

# "why does the build ...", "when should I ...", "what happens if ...", "how long does ...": a question
# about an event, a doing or an amount (not "why is X ...", "when is X", whose "that" may be X itself).
_ASKS_OF_AN_EVENT = re.compile(
    r"^\W*(?:(?:why|when)\s+(?:do|does|did|should|can|could|would|will|might|must)(?:n['\u2019]t)?\b"
    r"|what\s+(?:happens|happened|would\s+happen|will\s+happen)\b"
    r"|how\s+(?:long|often|fast|quickly|soon)\b)",
    re.IGNORECASE,
)
_WHICH = re.compile(r"^\W*(?:which|what)\s+(.+)$", re.IGNORECASE)
_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9_+#'\u2019-]*")
_SMALL = word_set("a an the of in on at for to with and or by from as is are was were be")


def _verb_after_noun(tokens: list[str]) -> bool:
    """ "model eats the most memory", "print mode uses the most ink", "assignment takes students ...":
    a third-person verb after the noun a "which" asks for, so the question asks what that thing does."""
    for i in range(1, len(tokens) - 1):
        before, word, after = tokens[i - 1].lower(), tokens[i], tokens[i + 1].lower()
        if not word.islower() or not word.endswith("s") or word.endswith("ss") or word in AUXILIARIES:
            continue
        if before in _SMALL or before.endswith("s"):
            continue  # "kinds of", "tools come": no singular noun before it
        stem = word[:-2] if word.endswith("es") and word[:-2] in VERBS else word[:-1]
        if stem in VERBS or after in DETERMINERS:
            return True
    return False


def asks_of_a_situation(previous: str) -> bool:
    """Whether the previous question asks about an event, a doing or an amount ("why does my bread
    collapse?", "which query uses the most CPU?"), so that a bare "that" after it stands for the
    situation, not for a noun cut out of it; not "what is the late policy?" ("is that strict?")."""
    if _ASKS_OF_AN_EVENT.match(previous):
        return True
    which = _WHICH.match(previous)
    if which is None:
        return False
    tokens = _WORD.findall(which.group(1))
    return bool(tokens) and tokens[0].lower() not in AUXILIARIES and _verb_after_noun(tokens)


# "cut that down", "bring this down", "reduce that", "raise that": a "that" whose amount changes.
_CHANGES_THAT = re.compile(
    r"\b(?:cut|bring|get|reduce|lower|decrease|trim|shrink|minimi[sz]e|raise|increase|boost)\s+"
    r"(that|this)\b",
    re.IGNORECASE,
)
# Nouns that name an amount something uses or costs.
MEASURES = word_set(
    """
    memory ram cpu gpu vram time latency bandwidth traffic cost costs fee fees charges price prices
    power energy ink toner calories sugar salt fat storage disk space size usage noise
    """
)


def measure_for_that(question: str, previous: str) -> str:
    """`question` with the measure `previous` names in place of the "that" it cuts down or raises:
    "how can I cut memory down?" after "which model eats the most memory ...?"; the question as asked
    when it changes no amount or the previous question names no measure."""
    change = _CHANGES_THAT.search(question)
    named: list[str] = [w for w in _WORD.findall(previous) if w.lower() in MEASURES]
    if change is None or not named:
        return question
    return question[: change.start(1)] + named[-1] + question[change.end(1) :]


_HOW_MUCH = re.compile(r"^\W*how\s+(?:much|many)\b", re.IGNORECASE)


def cuts_a_measure(question: str, previous: str) -> bool:
    """Whether `question` cuts down or raises a "that" which is the amount a "how much" or "how many"
    question asked of a measure ("how do I cut that down?" after "how many calories does a slice of
    cheesecake have?"); any other "that" after such a question is the amount itself, which reads as
    the previous subject ("what should that be for a narrow door?" after "how much clearance ...")."""
    if _HOW_MUCH.match(previous) is None or _CHANGES_THAT.search(question) is None:
        return False
    return any(w.lower() in MEASURES for w in _WORD.findall(previous))


# "how do I avoid it?", "can I prevent it?": "it" as what such a verb is done to is an event or a doing.
_EVENT_VERB_IT = re.compile(
    r"\b(?:avoid|prevent|stop|reduce|minimi[sz]e|mitigate)\s+it\b(?!\s*['\u2019])", re.IGNORECASE
)


def it_for_the_event(question: str, previous: str) -> bool:
    """Whether `question` avoids, prevents or stops an "it" after a question about an event ("how do I
    avoid it?" after "why does the arm overshoot the target when it moves fast?"): the "it" is the
    overshooting, not the arm, the doer the previous question names."""
    return _EVENT_VERB_IT.search(question) is not None and _ASKS_OF_AN_EVENT.match(previous) is not None
