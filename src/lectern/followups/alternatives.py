"""Follow-ups that ask the previous question again of another thing or situation: "what about
Windows?" (the swaps), "what if it gets stuck?" (the previous subject for the pronoun), "what about
when it connects but ...?" (a clause with its own subject).
"""

from __future__ import annotations

import re

from lectern.english import AUXILIARIES, QUESTION_WORDS, looks_plural
from lectern.english import DETERMINERS as _DETERMINERS
from lectern.english import PERSONS as _PRONOUN_I
from lectern.english import PREPOSITIONS as _PREPOSITIONS
from lectern.english import SUBORDINATE as _SUBORDINATE
from lectern.english import VERBS as _VERBS
from lectern.english import word_set as _word_set
from lectern.followups.phrases import _LEAD_CLAUSE
from lectern.followups.shapes import _SETTING_OPENERS, _reports_first
from lectern.followups.subjects import _NOT_A_THING, subject_parts
from lectern.followups.topics import _ASKS_WHICH
from lectern.followups.vocabulary import ANAPHORA, _is_specific, _tokens, content_words, words
from lectern.swaps import swapped_question, what_about

_NO_SUBJECT_WORDS = _NOT_A_THING | AUXILIARIES | QUESTION_WORDS
# The question words after which the auxiliary's subject is the thing asked about ("how do GitHub Actions
# runners ...?"), not the one asked for ("which runners do ...?").
_ASKS_HOW_OR_WHAT = QUESTION_WORDS - {"which", "whose", "who", "whom"}
_WHAT_IF_PRONOUN = re.compile(r"^(\s*(?:(?:and|but|so)\s*,?\s+)?what\s+if\s+)(it|they)\b", re.IGNORECASE)


# "they're", "it's" ("it's been"): the verb a pronoun's contraction holds, spelt out after a name.
_CONTRACTED = re.compile(r"^['\u2019](re|s)\b(?=(\s+(?:been|got)\b)?)", re.IGNORECASE)


def _uncontracted(rest: str, *, plural: bool) -> str:
    """ "'re too tall" -> " are too tall" once "they" is a name ("campervans're" is no word)."""
    match = _CONTRACTED.match(rest)
    if match is None:
        return rest
    perfect = {True: "have", False: "has"}
    be = {True: "are", False: "is"}
    verb = (perfect if match.group(2) else be)[plural]
    return f" {verb}{rest[match.end() :]}"


def _what_if_named(question: str, previous: str) -> str:
    """ "what if the robot mower gets stuck on the way?" for "what if it gets stuck on the way?" after "how
    does the robot mower find its way back ...?": the "it" or "they" that opens the "what if" clause is the
    previous question's subject, when it is a short thing whose number agrees; the question as it is
    otherwise."""
    match = _WHAT_IF_PRONOUN.match(question)
    if match is None:
        return question
    named = _named_after_auxiliary(previous, plural=match.group(2).lower() == "they")
    rest = _uncontracted(question[match.end() :], plural=match.group(2).lower() == "they")
    if named is not None:
        return f"{match.group(1)}{named}{rest}"
    head = _tokens(subject_parts(previous)[0])
    if not head or len(head) > 4 or any(w.lower() in _NOT_A_THING for w in head):
        return question
    if looks_plural(head[-1]) != (match.group(2).lower() == "they"):
        return question
    said = [w.lower() for w in _tokens(previous)]
    first = head[0].lower()
    if (
        first not in said
        or said.index(first) == 0
        or said[said.index(first) - 1] not in _DETERMINERS | _ASKS_WHICH
    ):
        return question  # a thing's name opens after "the", "my" or "which", not "usually goes wrong"
    return f"{match.group(1)}{' '.join(head)}{rest}"


def _named_after_auxiliary(previous: str, *, plural: bool) -> str | None:
    """ "GitHub Actions runners" in "how do GitHub Actions runners pick up jobs?", "Grafana" in "how does
    Grafana store dashboards?": a subject right after the auxiliary that opens a question, with no
    article before it: for "they" the words up to a plural noun the next word does not go on from (a
    verb follows), for "it" a run of capitalised names. None when the question opens otherwise or its
    subject is no such thing ("what can usually go wrong ...", "how do I ...")."""
    tokens = _tokens(previous)
    start = 1 if tokens and tokens[0].lower() in AUXILIARIES else 2
    if len(tokens) < start + 2 or tokens[start - 1].lower() not in AUXILIARIES:
        return None
    if start == 2 and tokens[0].lower() not in _ASKS_HOW_OR_WHAT:
        return None
    rest = tokens[start : start + 5]
    for j, token in enumerate(rest[:-1]):
        lowered = token.lower()
        if lowered in _NO_SUBJECT_WORDS:
            return None
        following = rest[j + 1]
        if plural and not token[0].isupper() and looks_plural(token) and not looks_plural(following):
            return " ".join(rest[: j + 1]) if following[0].islower() else None
        if not plural and not token[0].isupper():
            return None
        if not plural and following[0].islower() and not looks_plural(following):
            return " ".join(rest[: j + 1])
    return None


_CLAUSE_OPENERS = _word_set("when if while whenever once unless")
_CLAUSE_PRONOUNS = _word_set("it they")


def _clause_subject(tokens: list[str]) -> list[str] | None:
    """The subject of a clause (`tokens` after its "when" or "if"): the words before its verb ("my
    controllers | won't load", "the state file | gets locked"). None when it has no verb after a
    subject, or its subject is a person or a pronoun ("if I ...", "when it ...")."""
    for j, token in enumerate(tokens):
        lowered = token.lower().replace("\u2019", "'")
        stem = lowered[:-2] if lowered.endswith("es") else lowered[:-1] if lowered.endswith("s") else lowered
        if j > 0 and (
            lowered in AUXILIARIES or lowered.endswith("n't") or stem in _VERBS or lowered in _VERBS
        ):
            subject = tokens[:j]
            return subject if subject[0].lower() not in _PRONOUN_I | ANAPHORA else None
    return None


def _named_in_clause(swapped: str | None, previous: str) -> str | None:
    """ "what should I check when the smart lock connects but ...?" for "what about when it connects but
    ...?" after "what should I check when the smart lock won't connect?": the "it" or "they" that opens a
    clause swapped in for the previous question's is that clause's subject, as its number agrees
    ("they" for "my controllers", "it" for "the state file")."""
    if swapped is None:
        return None
    before, after = previous.rstrip("?.! ").split(" "), swapped.split(" ")
    opens = [i for i, t in enumerate(before) if t.lower() in _CLAUSE_OPENERS]
    if not opens:
        return swapped
    k = opens[-1]
    if k + 1 >= len(after) or after[k].lower() not in _CLAUSE_OPENERS:
        return swapped
    pronoun = after[k + 1].lower()
    if pronoun not in _CLAUSE_PRONOUNS or (k + 1 < len(before) and before[k + 1].lower() == pronoun):
        return swapped
    subject = _clause_subject(before[k + 1 :])
    if subject is None or looks_plural(subject[-1]) != (pronoun == "they"):
        return swapped
    return " ".join([*after[: k + 1], *subject, *after[k + 2 :]])


def _asks_of_another_thing(question: str, read: str) -> bool:
    """Whether a "what about X?" names a common thing ("contractors") that its reading `read` took in
    place of the previous question's, not a setting ("on Windows") the previous subject keeps."""
    other = what_about(question)
    if other is None or not _is_bare_thing(other):
        return False
    return all(w.lower() in read.lower() for w in content_words(other))


def _swapped(previous: str, question: str) -> str | None:
    """The previous question asked again about the new thing (`swapped_question`), inside its question
    when it told its situation first (`_swapped_after_report`)."""
    return swapped_question(previous, question) or _swapped_after_report(previous, question)


def _swapped_after_report(previous: str, question: str) -> str | None:
    """ "and the client side?" after "I need one node to answer another's requests, how do I code the
    server?": the question after the report asked again about the new thing, the report in brackets
    ("how do I code the client side (I need one node ...)?"); None when the previous turn has no report
    before its question, or nothing in that question is swapped."""
    lead = _LEAD_CLAUSE.match(previous)
    if lead is None or not _reports_first(previous):
        return None
    swapped = swapped_question(lead.group(2), question)
    if swapped is None:
        return None
    stripped = swapped.rstrip("?.! ")
    return f"{stripped} ({lead.group(1).strip()}){swapped[len(stripped) :] or '?'}"


def _is_bare_thing(phrase: str) -> bool:
    """Whether a "what about ...?" names a common thing ("slopes", "the ankles"), not a phrase of a
    setting ("on Windows", "when it rains", "compared to Vosk") that reads well after the previous
    question's last words, nor a name ("Windows": where, which the previous question takes after it)."""
    tokens = phrase.split()
    first = tokens[0].lower() if tokens else ""
    setting = _PREPOSITIONS | _SUBORDINATE | _SETTING_OPENERS | _word_set("to compared versus vs")
    return bool(first) and first not in setting and not any(_is_specific(w) for w in words(phrase))
