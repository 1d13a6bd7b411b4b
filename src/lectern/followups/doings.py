"""The doing a follow-up's "it" or "that" stands for: "how long does it take?" after "how do I create a
read replica?" asks how long creating a read replica takes, not how long the replica does.
"""

from __future__ import annotations

import re

from lectern.english import PREPOSITIONS as _PREPOSITIONS
from lectern.english import VERB_PARTICLES as _VERB_PARTICLES
from lectern.followups.detection import _IT_TAKES
from lectern.followups.pointing import _CARRIES_ON, _pronoun_one
from lectern.followups.subjects import _NEED_TO_DO
from lectern.followups.topics import _HOW_TO
from lectern.followups.vocabulary import REPLACEABLE, STOP_WORDS, _singular, words
from lectern.swaps import swap_phrase

# "can I defer my offer?", "should we pin our dependencies?": a yes/no question about what the reader
# may do, whose doing a follow-up leans on as it leans on a how-to's ("for how long?"). Not "do I need
# ...": a need is no doing.
_PERSON_YES_NO = re.compile(
    r"^\s*(?:can|could|should|may|must)\s+(?:i|we)\s+(?:(?:just|really|still|also|ever)\s+)?(.+)$",
    re.IGNORECASE,
)

# "is it hard to do?", "is it safe to do?": the "to do" of an "it" is the doing itself.
_IT_TO_DO = re.compile(r"^(\W*(?:\w+\W+){0,3}?it\b.*\bto\s+)do(\s*[?.!]*\s*)$", re.IGNORECASE)
# "how often should I do it?", "can I do that from the command line?": "do" with "it", "that" or "this"
# for its object, after a person or "to", is the doing itself ("vacuum a large table").
_DO_IT = re.compile(
    r"(^\W*|\b(?:i|we|you)\s+(?:(?:\w+)\s+)?|\bto\s+)do\s+(?:it|that|this)\b(?!\s*['\u2019])", re.IGNORECASE
)
# "what do I need?", "what tools will I need?": what is needed after a how-to is needed for the doing.
_BARE_NEED = re.compile(
    r"^(" + _CARRIES_ON + r"what(?:\s+[a-z]+)?\s+(?:do|will|would|should)\s+(?:i|we)\s+need)"
    r"(\s*[?.!]*\s*)$",
    re.IGNORECASE,
)
# "can it be done automatically?": what can be done is the doing asked about ("can I scale the cluster
# automatically?"), not its object.
_IT_BE_DONE = re.compile(
    r"^(" + _CARRIES_ON + r"(?:can|could|should|must))\s+(?:it|this|that)\s+be\s+done\b"
    r"(.*)$",
    re.IGNORECASE,
)
# "is it safe?", "would it be hard?": what is safe or hard after a how-to of many things is the doing,
# not its object ("is it safe to back up my photos?", not "is photos safe?").
_IT_IS_HOW = re.compile(
    r"^(" + _CARRIES_ON + r"(?:is|isn't|would|will)\s+it\s+(?:be\s+)?(?:\w+ly\s+)?"
    r"(?:safe|hard|difficult|easy|risky|dangerous|possible|free|expensive|complicated|tricky|worth\s+it))"
    r"(\s*[?.!]*\s*)$",
    re.IGNORECASE,
)


def _doing_asked(previous: str) -> re.Match[str] | None:
    """The match whose first group is what a how-to ("how do I vacuum a large table?"), a "can I ...?"
    ("can I defer my offer?") or a "what do I need to ...?" asked about doing; None for any other
    question."""
    stripped = previous.rstrip("?.! ")
    return _HOW_TO.match(stripped) or _PERSON_YES_NO.match(stripped) or _NEED_TO_DO.match(stripped)


def _many_done(done: str) -> bool:
    """Whether the thing a doing is done to is many: the last word of its object, before a phrase that
    says where or how ("back up [my photos] to the cloud"), is a plural."""
    tokens = [w.lower() for w in words(done)]
    start = 2 if len(tokens) > 2 and tokens[1] in _VERB_PARTICLES else 1
    end = next((i for i in range(start, len(tokens)) if tokens[i] in _PREPOSITIONS), len(tokens))
    return end > start and _singular(tokens[end - 1]) != tokens[end - 1]


# "where can visitors park?", "when do students register?", "how do guests check in?": a doing with no
# object, by people ("I", "we") or a plural subject; the verb (and its particle) ends the question.
_BARE_DOING = re.compile(
    r"^\s*(?:where|when)\s+(?:can|do|does|should|may|could|must)\s+"
    r"((?:i|we|you|they|(?:the\s+)?[a-z]+s))\s+([a-z]{2,})(?:\s+(in|out|up|off|on|over|back|down|away))?"
    r"\s*[?.!]*\s*$",
    re.IGNORECASE,
)


def _gerund(verb: str) -> str:
    """The "-ing" form of a plain verb: "park" -> "parking", "drive" -> "driving", "swim" -> "swimming"."""
    verb = verb.lower()
    if verb.endswith("ie"):
        return verb[:-2] + "ying"
    if verb.endswith("e") and not verb.endswith(("ee", "ye", "oe")) and len(verb) > 2:
        return verb[:-1] + "ing"
    if len(verb) <= 4 and re.search(r"(?:^|[^aeiou])[aeiou][bdgmnprt]$", verb):
        return verb + verb[-1] + "ing"
    return verb + "ing"


def _the_doing_for_it(question: str, previous: str) -> str | None:
    """ "how long does it take?" after "how do I create a read replica?": "how long does it take to
    create a read replica?"; "how often should I do it?" after "how do I vacuum a large table?": "how
    often should I vacuum a large table?". The "it" of "take" and the object of "do" stand for what the
    reader asked how to do (or whether they may do it: "can I defer my offer?"), not for its object.
    None for any other follow-up, or a previous question that is no such doing."""
    stripped = previous.rstrip("?.! ")
    how_it_is = _IT_IS_HOW.match(question)
    bare = _BARE_DOING.match(previous) if how_it_is is not None else None
    if how_it_is is not None and bare is not None:
        # "is it free?" after "where can visitors park?": what is free is the doing, which has no object
        # to stand for ("is parking free?")
        doing_words = " ".join(filter(None, [_gerund(bare.group(2)), bare.group(3)]))
        asked = re.sub(r"\bit\b", doing_words, how_it_is.group(1), count=1, flags=re.IGNORECASE)
        return f"{asked}{how_it_is.group(2) or '?'}"
    doing = _doing_asked(previous)
    if doing is None or "(" in previous:
        return None
    done = " ".join(doing.group(1).split())
    takes = _IT_TAKES.match(question)
    if takes is not None:
        setting = (takes.group(2) or "").strip()
        swapped = swap_phrase(f"to {done}", setting) if setting else None
        done = swapped.rstrip("?")[3:] if swapped else " ".join(filter(None, [done, setting]))
        return f"{takes.group(1)} to {done}{takes.group(3) or '?'}"
    needs = _BARE_NEED.match(question)
    if needs is not None:
        return f"{needs.group(1)} to {done}{needs.group(2) or '?'}"
    be_done = _IT_BE_DONE.match(question)
    if be_done is not None:
        return f"{be_done.group(1)} I {done}{be_done.group(2)}"
    how_it_is = _IT_IS_HOW.match(question)
    if how_it_is is not None and _many_done(done):
        # only when the thing done is many ("my photos"): "is it safe?" after "how do I link my bank
        # account?" may ask of the account, but no "it" is the photos
        return f"{how_it_is.group(1)} to {done}{how_it_is.group(2) or '?'}"
    to_do = _IT_TO_DO.match(question)
    if to_do is not None:
        return f"{to_do.group(1)}{done}{to_do.group(2)}"
    did = _DO_IT.search(question)
    if did is None or _DO_IT.search(stripped):
        return None
    tail = question[did.end() :]
    # "can I do it from RViz instead?" after "how do I send a goal from Python?": the phrase after "do
    # it" that opens with a word the doing's own phrase opens with takes that phrase's place
    other = _SWITCH_END.sub("", tail.strip().rstrip("?.! "))
    swapped = swap_phrase(f"to {done}", other) if other else None
    if swapped is not None:
        done, tail = swapped.rstrip("?")[3:], question[len(question.rstrip("?.! ")) :]
    return f"{question[: did.start()]}{did.group(1)}{done}{tail}"


# "instead" or "rather" at the end: the word that marks a switch to another thing.
_SWITCH_END = re.compile(r"[\s,]+(?:instead|rather)$", re.IGNORECASE)


# "that" or "this" as the subject of a question ("does that hurt ...", "is this safe?") or standing
# alone ("why is that?"): what was just said, not a thing named before.
_DEMONSTRATIVE_SUBJECT = re.compile(
    r"^\s*(?:(?:and|but|so|ok(?:ay)?)\s*,?\s+)?(?:(?:why|how(?:\s+(?:long|much|often|well|fast))?)\s+)?"
    r"(?:does|did|do|is|was|will|would|can|could|should|has|must|might)\s+(?:that|this)\b"
    r"|\b(?:that|this)\s*[?.!]?\s*$",
    re.IGNORECASE,
)


def _names_the_topic(question: str) -> bool:
    """Whether the question has a pronoun for the previous topic itself ("it", "them", "one")."""
    tokens = [w.lower() for w in words(question)]
    return any(t in REPLACEABLE for t in tokens) or _pronoun_one(tokens) is not None


def _ends_phrase(tokens: list[str], i: int) -> bool:
    """Whether the demonstrative at i stands alone ("explain this"), not before a noun ("this node")."""
    rest = "".join(tokens[i + 1 :]).strip()
    if not rest or rest[0] in "?.!,;:":
        return True
    nxt = words(rest)[:1]
    return bool(nxt) and (
        nxt[0].lower() in STOP_WORDS or nxt[0].lower() in {"work", "works", "mean", "means"}
    )
