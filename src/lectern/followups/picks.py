"""Follow-ups that pick one of what the previous turn named: "the second one" of a question asked of
each, "when should I use the second?" after a question of two things, "it" for the one the last turn
picked, "what's the hardest part?".
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from lectern.english import AUXILIARIES, QUESTION_WORDS
from lectern.english import DETERMINERS as _DETERMINERS
from lectern.english import word_set as _word_set
from lectern.followups.detection import _PICK_FOLLOWERS, _SUPERLATIVES, _nothing_named_after
from lectern.followups.leaning import _anchor
from lectern.followups.pointing import _CARRIES_ON, _KIND_DETERMINERS
from lectern.followups.pronouns import _SINGULAR_PRONOUN, _rewrite
from lectern.followups.shapes import _after_statement, _bare_demonstrative
from lectern.followups.subjects import _PLURAL_PRONOUN, _subject_phrase
from lectern.followups.topics import _ARTICLES
from lectern.followups.vocabulary import _WORD, GENERIC_WORDS, STOP_WORDS, words
from lectern.ordinals import _one_thing_asked

# "which one is about stores?", "which of them includes a tasting?": a turn that picks one of the things
# the turn before it asked for, and what it says of the one picked.
_WHICH_ONE = re.compile(
    r"^" + _CARRIES_ON + r"which\s+(?:one|of\s+(?:them|these|those))\s+(?:(is|was)\s+)?(.+?)[\s?.!]*$",
    re.IGNORECASE,
)
# "what does Grafana send to Slack?", "what does the collector export to Jaeger?": what a thing (no
# person) passes on to another, asked for by "what".
_WHAT_PASSED_ON = re.compile(
    r"^\s*what\s+(?:does|do|did|will|would|can|could)\s+(?!(?:i|we|you|it|they)\b)"
    r"(?:[\w'\u2019-]+\s+){1,4}?[a-z]+\s+(?:to|into|onto)\s+"
    # a thing after "to", not a verb ("what does the FAQ say to do ..."): a determiner or a name
    r"(?:(?:the|a|an|my|our|your|their|its)\s|(?-i:[A-Z]))[^?]*[?.!]*\s*$",
    re.IGNORECASE,
)


# "the one about theft", "the one that includes the pool": a turn naming the one it picks by what it says
_THE_ONE_SAID = re.compile(
    r"\bthe\s+one\s+((?:about|that|which|with|where|for|on)\b.+?)[\s?.!]*$", re.IGNORECASE
)
# "that one", "this one": a pick pointed back at, with no noun of its own
_THAT_ONE = re.compile(r"\b(?:that|this)\s+one\b(?!\s+(?:of|another|and)\b)", re.IGNORECASE)


def _the_one_picked(question: str, previous_questions: Sequence[str]) -> str | None:
    """ "which controller does it use?" after "what are the chapters of module 3?" and "which one is about
    planning paths?": "it" is the one the last turn picked, described by that turn's words, among the
    things the turn before asked for (not those things). So is "that one" ("how much does that one
    cost?" after "which one includes the pool?": the one that includes the pool) and a "that" standing
    alone ("how do I avoid that?" after "which one is about losing your passport?": the risk picked, not
    the risks). None for any other conversation."""
    if len(previous_questions) < 2:
        return None
    that_one = _THAT_ONE.search(question)
    if not (_SINGULAR_PRONOUN.search(question) or that_one or _bare_demonstrative(question)):
        return None
    last = " ".join(previous_questions[-1].split())
    picked = _WHICH_ONE.match(last)
    the_one = _THE_ONE_SAID.search(last) if picked is None else None
    if (picked is None and the_one is None) or _PLURAL_PRONOUN.search(question):
        return None
    if picked is not None:
        said = picked.group(2)
        described = f"the one {said}" if picked.group(1) else f"the one that {said}"
    else:
        # "tell me about the one about theft", "which is the one with the pool?": the one said as such
        described = f"the one {the_one.group(1)}" if the_one is not None else ""
    among = _subject_phrase(_anchor(previous_questions[:-1]))
    if that_one is not None and not _SINGULAR_PRONOUN.search(question):
        # "how long does that one take?": the one described in its place, what it is among in brackets
        stripped = question.rstrip("?.! ")
        text = f"{stripped[: that_one.start()]}{described}{stripped[that_one.end() :]}"
        tail = question[len(stripped) :] or "?"
        return f"{text} ({among}){tail}" if among else f"{text}{tail}"
    return _after_statement(question, f"{described}, {among}" if among else described)


# "the sim-to-real one", "the lentil one": a turn that picks one of the listed things by a word of its own
# (not "the first one", "the other one": an ordinal or a pointer names none)
_KIND_ONE = re.compile(
    r"\bthe\s+((?:[\w-]+\s+){0,2}?[\w-]+)\s+one\b(?!\s+(?:of|another|and)\b)", re.IGNORECASE
)
_NOT_A_KIND = _word_set(
    "first second third fourth fifth last final next previous other same former latter right wrong best worst"
    " new old only main"
)


def _the_kind_picked(question: str, last: str, before: str) -> str | None:
    """ "what's the answer to its first question?" after "what sections does the exam have?" and "what's in
    the listening one?": "it" is the section the last turn picked ("listening section"), not the exam the
    turn before it asked of, which comes in brackets. `last` is the last turn as asked, `before` the turn
    before it as searched. None for any other conversation."""
    if not _SINGULAR_PRONOUN.search(question) or _PLURAL_PRONOUN.search(question):
        return None
    kind = _KIND_ONE.search(last)
    if kind is None:
        return None
    said = kind.group(1).split()
    if any(w.lower() in STOP_WORDS | _NOT_A_KIND for w in said):
        return None
    named = _one_thing_asked(before)
    if named is None:
        return None
    head, owner = named
    picked = f"{' '.join(said)} {head}"
    return _rewrite(question, picked, owner, f"{picked} {owner}".strip())


# "each stage", "every chapter": the things a question asks something of one by one.
_EACH_THING = re.compile(r"\b(?:each|every)\s+([A-Za-z][A-Za-z-]*)\b", re.IGNORECASE)


def _one_of_each(question: str, previous: str) -> str | None:
    """ "the second one" after a question asked of each of some things ("how many weeks does each stage
    take?"): the question with the thing in place of "one" ("the second stage"), or None when the
    previous question asks of no "each <thing>" or the question has no "the <word> one"."""
    each = _EACH_THING.search(previous)
    if each is None or each.group(1).lower() in STOP_WORDS | GENERIC_WORDS:
        return None  # "each other", "each one"
    tokens = re.split(r"(\W+)", question)
    at = [i for i, t in enumerate(tokens) if _WORD.fullmatch(t)]
    for n, i in enumerate(at[2:], start=2):
        kind, determiner = tokens[at[n - 1]].lower(), tokens[at[n - 2]].lower()
        if tokens[i].lower() == "one" and determiner in _KIND_DETERMINERS and kind not in STOP_WORDS:
            tokens[i] = each.group(1)
            return "".join(tokens)
    return None


# "the second", "the former one": one of the two things just named, with no noun of its own.
_ORDINAL_PICK = re.compile(
    r"\bthe\s+(first|second|former|latter)(?:\s+ones?)?"
    + _nothing_named_after(_PICK_FOLLOWERS - _word_set("one ones")),
    re.IGNORECASE,
)
# "which is faster?", "which one should I pick?": a pick of one with nothing of its own to pick among.
_WHICH_OF_TWO = re.compile(
    r"^" + _CARRIES_ON + r"which(?:\s+one)?\s+(?:is|are|was|would|will|should|could|does|do)\b"
    r"(?:\s+(?:i|we|you|it))?(?:\s+(?:more|less|most|least))?\s+\w+(?:\s+(?:for|with|to|on|in)(?:\s+[\w-]+){1,2})?"
    r"\s*[?.!]*$",
    re.IGNORECASE,
)
# "the difference between a tuple and a list", "Helm or Kustomize": two things named side by side.
_BETWEEN_PAIR = re.compile(r"\bbetween\s+(.+?)\s+and\s+(.+?)\s*[?.!]*$", re.IGNORECASE)
_OR_PAIR = re.compile(r"([A-Za-z0-9][\w+#.-]*)\s+or\s+([A-Za-z0-9][\w+#.-]*)\s*[?.!]*$", re.IGNORECASE)
# "a monthly pass or a pay-as-you-go card": two phrases, each with its article, side by side at the end.
_ARTICLE_OR_PAIR = re.compile(
    r"\b(?:a|an|the)\s+((?:(?!(?:a|an|the|or)\b)[\w'-]+\s+){0,2}[\w'-]+)\s+or\s+(?:a|an|the)\s+"
    r"((?:(?!(?:a|an|the|or)\b)[\w'-]+\s+){0,2}[\w'-]+)\s*[?.!]*$",
    re.IGNORECASE,
)


def _picked_of_two(question: str, previous: str) -> str | None:
    """ "when should I use the second?" after "what is the difference between a tuple and a list?": the
    one of the two the previous question named side by side, put in its place, the pair in brackets.
    None when the question picks no first or second, or the previous question names no pair."""
    pick = _ORDINAL_PICK.search(question)
    which = _WHICH_OF_TWO.match(question)
    pair = _BETWEEN_PAIR.search(previous) or _ARTICLE_OR_PAIR.search(previous) or _OR_PAIR.search(previous)
    if (pick is None and which is None) or pair is None:
        return None
    first, second = (" ".join(w for w in p.split() if w.lower() not in _ARTICLES) for p in pair.groups())
    if not first or not second or " and " in f" {second} ":
        return None
    stripped = question.rstrip("?.! ")
    tail = question[len(stripped) :] or "?"
    if pick is None:
        # "which is faster?": one of the two, both of which the question needs
        return f"{stripped} ({first} and {second}){tail}"
    chosen = first if pick.group(1).lower() in {"first", "former"} else second
    text = stripped[: pick.start()] + chosen + stripped[pick.end() :]
    return f"{text} ({first} and {second}){tail}"


def _picks_one(question: str) -> bool:
    """Whether the question asks for the one of many: "what's the hardest part of ...?", "which is the
    best way to ...?"."""
    skip = QUESTION_WORDS | AUXILIARIES | _DETERMINERS | _word_set("what's which's s")
    tokens = [w.lower() for w in words(question)]
    first = next((t for t in tokens if t not in skip), "")
    return first in _SUPERLATIVES
