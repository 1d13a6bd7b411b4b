"""Whether a question's words point back at an earlier turn: a pronoun ("how do I install it?"), a
possessive, a "one" for the kind just talked about, or an opener that carries the conversation on
("and ...", "what about ..."); less the words that only look like it ("is it a bad idea to ...").
"""

from __future__ import annotations

import re

from lectern.english import AUXILIARIES
from lectern.english import SUBORDINATE as _SUBORDINATE
from lectern.english import VERB_PARTICLES as _VERB_PARTICLES
from lectern.english import VERBS as _VERBS
from lectern.english import word_set as _word_set
from lectern.followups.vocabulary import (
    ACTION_WORDS,
    ANAPHORA,
    GENERIC_WORDS,
    MIN_OWN_CONTENT_WORDS,
    STOP_WORDS,
    _is_action,
    _noun_like,
    content_words,
    words,
)

FOLLOWUP_OPENERS = (
    "and ",
    "also ",
    "what about",
    "how about",
    "tell me more",
    "more on",
    "more about",
    "can you elaborate",
    "elaborate",
    "go on",
    "why is that",
    "why?",
    # "why not Cyclone?": instead of what was just said
    "why not ",
    "how so",
    "such as",
    "for example",
    "like what",
    # "what if I hand one in late?": the same situation with one thing changed
    "what if ",
    # "compared to Vosk?", "same thing in Isaac Sim?": the previous question weighed against another thing
    "compared to ",
    "compared with ",
    "same thing",
    "same for ",
    "same question",
)
# "ok and Whisper?", "so what about Unity?": a word that carries the conversation on before the opener.
_LEAD_FILLER = re.compile(
    r"^\s*(?:ok(?:ay)?|so|right|hmm|alright|well)[\s,]+(?=(?:and|what|how|same|compared)\b)", re.I
)


def _opens_followup(question: str) -> bool:
    lowered = _LEAD_FILLER.sub("", question.strip().lower())
    return any(lowered.startswith(opener) for opener in FOLLOWUP_OPENERS)


_TAKES_ONE = ACTION_WORDS | _word_set("pick need want have recommend prefer cancel stop pause remove delete")

_TAKES_OBJECT = _word_set("at with for on in into onto to about from of inside through than")
# Conjunctions that open a clause whose subject pronoun, before any word of the question's own topic,
# can only stand for something said earlier.
_CLAUSES = re.compile(r"[,;:]|\bwhen\b|\bif\b|\bbecause\b", re.IGNORECASE)
# "it" that stands for nothing: "is it possible", "it's better to", "does it matter".
_EXPLETIVE_IT = re.compile(
    r"\b(?:is|was|isn't|wasn't|does|would|will)\s+it\b|\bit\s+(?:is|was|'?s|takes|seems)\b",
    re.IGNORECASE,
)


# What carries a conversation on before a follow-up's own words: "and", "so", "but", "ok".
_CARRIES_ON = r"\W*(?:(?:and|so|but|ok(?:ay)?)\W+)?"
_A_PARTICLE = "(?:" + "|".join(sorted(_VERB_PARTICLES | {"on"})) + ")"  # "turn it on", "log out"

# "is it safe to drive?", "would it be okay to skip?": an "it" with a "to" clause of one bare verb (and
# a particle), which names nothing the question is about.
_IT_TO_BARE_VERB = re.compile(
    r"^" + _CARRIES_ON + r"(?:is|isn't|was|would|will)\s+it\s+(?:be\s+)?(?:still\s+)?"
    r"(?:\w+ly\s+)?[a-z]+\s+to\s+[a-z]+(?:\s+" + _A_PARTICLE + r")?\s*[?.!]*\s*$",
    re.IGNORECASE,
)


_LIKE_AFTER = _word_set("something anything nothing one ones just exactly more much")


def _object_pronoun_points_back(question: str, topical: list[str]) -> bool:
    """ "How do I look at it in 3D and wiggle the joints?": "it" comes before any topic word of the
    question but the verb that takes it, so it points back to the conversation, however many words of
    its own follow. In "What is a ROS 2 service and how does it differ?" the pronoun comes after the
    topic it stands for."""
    tokens = [w.lower() for w in words(question)]
    own = {w.lower() for w in topical}
    # "something like it": "like" as a preposition (not "would you like it")
    tokens = [
        "with" if t == "like" and i > 0 and tokens[i - 1] in _LIKE_AFTER else t for i, t in enumerate(tokens)
    ]
    for i, token in enumerate(tokens):
        if token not in {"it", "them", "they"}:
            continue
        if token == "it" and _EXPLETIVE_IT.search(" ".join(tokens[max(0, i - 1) : i + 2])):
            continue
        if i > 0 and tokens[i - 1] in _SUBORDINATE and not any(t in own for t in tokens[:i]):
            return True  # "what do I do when it can't be inverted ...": the subject comes from before
        if i == 0 or (tokens[i - 1] not in _TAKES_OBJECT and tokens[i - 1] not in _TAKES_ONE):
            continue  # a subject ("so it can adapt") or an idiom ("play it safe") says nothing
        # the verb and preposition that take the pronoun ("look at it") are not a topic of their own
        if not any(t in own for t in tokens[: max(0, i - 2)]):
            return True
        # "Should I turn on IMU fusion for it?": a last-word object after a preposition stands for
        # something the question never names; "what is a launch file and how do I pass arguments to
        # it?" names it in a clause of its own first.
        if i == len(tokens) - 1 and tokens[i - 1] in _TAKES_OBJECT and "and" not in tokens[:i]:
            return not _CLAUSES.search(question)
    return False


def _possessive_points_back(question: str, topical: list[str]) -> bool:
    """ "how do I make its joints follow the real robot?": an "its" or "their" before any topic word of
    the question has no owner in it, so it points back, however many words of its own follow; in "how
    does a robot keep its balance?" the owner comes first."""
    own = {w.lower() for w in topical}
    for token in (w.lower() for w in words(_QUOTED.sub(" ", question))):
        if token in own:
            return False
        if token in {"its", "their"}:
            return True
    return False


def points_back(question: str) -> bool:
    if _opens_followup(question):
        return True
    tokens = [w.lower() for w in words(question)]
    if any(t in ANAPHORA for t in tokens):
        return True
    return _pronoun_one(tokens) is not None or _one_of_a_kind(tokens)


def _pronoun_one(tokens: list[str]) -> int | None:
    """Index of a "one" that stands for the previous topic: last word ("How do I create one?") or right
    after a verb ("How do I choose one in the world file?")."""
    for i, token in enumerate(tokens):
        if token in {"one", "ones"} and (i == len(tokens) - 1 or (i > 0 and tokens[i - 1] in _TAKES_ONE)):
            if i + 1 < len(tokens) and _noun_like(tokens[i + 1]):
                continue  # "if I only have one camera": a number before its noun
            return i
    return None


_KIND_DETERMINERS = _word_set("the this that these those")
_AFTER_ONE = _word_set("still even ever really actually also usually always never")


def _one_of_a_kind(tokens: list[str]) -> bool:
    """ "does the new one run on a Mac?": "the <word> one" before a verb or a small word is another of
    the thing just talked about, so the question points back; not "the one thing", "this one node".
    Only for telling a follow-up: which word of the previous question the "one" takes is left to the
    brackets."""
    return _kind_one_at(tokens) is not None


def _kind_one_at(tokens: list[str]) -> int | None:
    """Where the determiner of `_one_of_a_kind`'s "the <word> one" stands, or None."""
    for i, token in enumerate(tokens[2:-1], start=2):
        if token not in {"one", "ones"}:
            continue
        # one describing word or two ("the sensor model one")
        at = next((j for j in (i - 2, i - 3) if j >= 0 and tokens[j] in _KIND_DETERMINERS), None)
        if at is None or any(t in STOP_WORDS for t in tokens[at + 1 : i]):
            continue
        after = tokens[i + 1]
        if after in STOP_WORDS | _AFTER_ONE or after in _VERBS or after in AUXILIARIES:
            return at
    return None


def _one_of_a_kind_unnamed(question: str) -> bool:
    """ "how long does the VSLAM one take?": "the <word> one" whose kind the question never names before
    it (only how much or how long it asks), so the kind is the previous turn's ("chapters"); not "which
    camera is better, the stereo one?", where the question names its camera first."""
    tokens = [w.lower() for w in words(question)]
    at = _kind_one_at(tokens)
    if at is None:
        return False
    before = [
        t
        for i, t in enumerate(tokens[:at])
        if t not in STOP_WORDS | GENERIC_WORDS and not (i > 0 and tokens[i - 1] == "how")
    ]
    return not before


_ANAPHORA_WORD = re.compile(r"\b(?:" + "|".join(sorted(ANAPHORA)) + r")\b", re.IGNORECASE)

# A term in quotes is one the reader names ("What does 'hardware-in-the-loop' mean?"), and a pronoun in
# quotes is a word mentioned ("what 'it' is"), not one that points back. The quote marks stand at word
# edges, so an apostrophe ("robot's", "it's") opens none.
_QUOTED = re.compile(
    r"(?:^|(?<=[\s(]))(?:'[^']+'|\"[^\"]+\"|\u2018[^\u2019]+\u2019|\u201c[^\u201d]+\u201d)(?=[\s?.!,;:)]|$)"
)
_SUBJECTS = _word_set("it they he she we i you the a an")
_BE = _word_set("is are was were isn't aren't wasn't weren't be been")
_THE_DOCUMENTS = _word_set("course textbook tutorial documentation book guide chapter section module lesson")
# "this month", "this weekend": a time counted from now
_TIMES_OF_THE_CALENDAR = _word_set(
    "morning afternoon evening night week weekend month quarter year season spring summer autumn winter"
)


def _points_outside(question: str, topical: list[str]) -> bool:
    """`points_back`, less the words that point inside the question: "this course" (the documents
    themselves), an "it" that stands for what follows ("is it a bad idea to ..."), a quoted "it", a
    "that" that opens a clause ("show that it's confused"), and a subject or object pronoun after the
    question's own topic ("What does the robot say when it can't ...?")."""
    if _opens_followup(question):
        return True
    tokens = [w.lower() for w in words(_QUOTED.sub(" ", question))]
    own = {w.lower() for w in topical}
    for i, token in enumerate(tokens):
        if token not in ANAPHORA:
            continue
        before = tokens[i - 1] if i > 0 else ""
        after = tokens[i + 1] if i + 1 < len(tokens) else ""
        if token in {"this", "these"} and after in _THE_DOCUMENTS:
            continue
        if token == "this" and after in _TIMES_OF_THE_CALENDAR and _names_more_than(question, after):
            continue  # "list customers created this month": now, not a thing just talked about
        if token == "there" and (before in _BE or after in _BE):
            continue  # "is there an interview ...?", "there are": it says something exists, not where
        if token == "that" and after in _SUBJECTS and any(t in own for t in tokens[:i]):
            continue  # "how can a robot's face show that it's confused?": a clause, not a pointer
        if token == "it" and before in {"is", "was"} and "to" in tokens[i + 1 : i + 6]:
            continue  # "when is it a bad idea to use ...": "it" stands for the "to" clause
        inside = before in _CLAUSE_WORDS | _word_set("so") or before in _TAKES_OBJECT | _TAKES_ONE
        if token in {"it", "they", "them"} and inside and any(t in own for t in tokens[:i]):
            continue
        return True
    return _pronoun_one(tokens) is not None or _one_of_a_kind(tokens)


def _names_more_than(question: str, time: str) -> bool:
    """Whether a question names a thing and says what is done to it besides the time it says ("list all
    customers created this month"), so "this <time>" is when, not all it asks of ("what changed this
    year?" may ask of what was just talked about)."""
    own = [w for w in content_words(question) if w.lower() != time]
    return len(own) >= MIN_OWN_CONTENT_WORDS and any(not _is_action(w) for w in own)


_CLAUSE_WORDS = _SUBORDINATE | _word_set("where while that which who")
