"""Shapes of follow-up the rewrite treats apart: a report then a question, a bare "that" for what was
asked, a yes-or-no question, another doing or measure of the same subject ("and put it down again?",
"and how fast?"), a purpose clause with a pronoun.
"""

from __future__ import annotations

import re

from lectern.english import AUXILIARIES, QUESTION_WORDS
from lectern.english import DETERMINERS as _DETERMINERS
from lectern.english import PERSONS as _PRONOUN_I
from lectern.english import PREPOSITIONS as _PREPOSITIONS
from lectern.english import SUBORDINATE as _SUBORDINATE
from lectern.english import word_set as _word_set
from lectern.followups.detection import _FILLERS, _QUESTION_OPENERS
from lectern.followups.doings import _ends_phrase
from lectern.followups.phrases import _LEAD_CLAUSE, _PARTICLES
from lectern.followups.pointing import _pronoun_one, points_back
from lectern.followups.pronouns import _before_a_noun, _before_a_verb
from lectern.followups.subjects import _SUBJECT_DEMONSTRATIVE
from lectern.followups.vocabulary import (
    ACTION_WORDS,
    ANAPHORA,
    GENERIC_WORDS,
    REPLACEABLE,
    STOP_WORDS,
    _is_action,
    content_words,
    words,
)
from lectern.swaps import phrase_span

# "for walking around", "for detecting the language": a purpose, a doing after "for".
_FOR_A_DOING = re.compile(r"^\s*for\s+[a-z]{2,}ing\b", re.IGNORECASE)


# "how come?": why.
# "... in Unity so it can talk to ROS 2": a purpose told as a clause of its own, whose "it" is the thing
# just named; read as "... in Unity to talk to ROS 2", the subject stays the thing and the purpose its
# setting, as when the reader writes "to talk" themselves.
_PURPOSE_CLAUSE = re.compile(
    r"\s+so(?:\s+that)?\s+(?:it|they|we|i|you)\s+(?:can|could|will|would|may|might)\s+(?=[a-z])",
    re.IGNORECASE,
)


def purpose_as_infinitive(question: str) -> str:
    """A purpose clause with a pronoun and a modal as "to" and its verb: "What has to be set up in Unity
    so it can talk to ROS 2?" -> "What has to be set up in Unity to talk to ROS 2?"."""
    return _PURPOSE_CLAUSE.sub(" to ", question)


_HOW_COME = re.compile(r"\bhow\s+come\b", re.IGNORECASE)


# "and put it down again?", "and echo?": another doing, after "and" or "then".
_AND_DOING = re.compile(r"^\s*(?:and\s+then|and|then)\s+([a-z]+)\b\s*(.*?)[\s?.!]*$", re.IGNORECASE)
# "how does the robot pick up the cup?": how a subject does something.
_HOW_AUX = re.compile(r"^\s*how\s+(do|does|did|can|could|should|would|will)\s+(.+?)[\s?.!]*$", re.IGNORECASE)
_NOT_DOINGS = STOP_WORDS | QUESTION_WORDS | AUXILIARIES | _PREPOSITIONS | GENERIC_WORDS


def _another_doing(question: str, previous: str) -> str | None:
    """ "and put it down again?" after "how does the robot pick up the cup?": the same subject does
    something else, and the pronoun right after the new verb is what the previous doing was done to
    ("how does the robot put the cup down again?"), not the subject. "and echo?" after "how do I publish
    a message from the terminal?": a bare how-to verb swaps the verb ("how do I echo a message from the
    terminal?"), not the thing. None for any other shape: a word after "and" that may be a noun ("and
    Whisper?") is left to the swaps, and a previous question that is no "how does X <verb> ...?"."""
    asked = _AND_DOING.match(question)
    how = _HOW_AUX.match(previous)
    if asked is None or how is None or "(" in previous:
        return None
    verb, rest = asked.group(1), asked.group(2).split()
    if verb.lower() in _NOT_DOINGS or verb.lower() in ANAPHORA:
        return None
    pointing = bool(rest) and rest[0].lower() in {"it", "them"}
    if not pointing and (rest or verb.lower() not in ACTION_WORDS):
        return None
    tokens = how.group(2).split()
    if tokens[0].lower() in _PRONOUN_I:
        subject_end = 1
    else:
        subject = phrase_span(tokens, 0)
        if subject is None:
            return None
        subject_end = subject[1]
        # "the robot grasp the mug": a verb no word list has ends the subject before the next determiner
        inner = [k for k in range(2, subject_end) if tokens[k].lower() in _DETERMINERS]
        if inner and tokens[inner[0] - 1].lower() not in _DETERMINERS:
            subject_end = inner[0] - 1
    after = subject_end + 1  # the previous verb, then its particles ("pick up")
    while after < len(tokens) and tokens[after].lower() in _PARTICLES:
        after += 1
    if subject_end >= len(tokens) or tokens[subject_end].lower() in _NOT_DOINGS:
        return None
    if pointing:
        thing = phrase_span(tokens, after)
        if thing is None:
            return None
        new = [*tokens[:subject_end], verb, *tokens[thing[0] : thing[1]], *rest[1:]]
    else:
        new = [*tokens[:subject_end], verb, *tokens[after:]]
    return f"how {how.group(1)} {' '.join(new)}?"


# "and how fast?", "and how high a step?": the same question with another measure.
_AND_HOW = re.compile(r"^\s*(?:(?:and|but|so|ok(?:ay)?)[\s,]+)+how\s+([a-z]+)\b\s*(.*?)[\s?.!]*$", re.I)
_HOW_MEASURE = re.compile(r"^\s*how\s+([a-z]+)\s+(.+?)[\s?.!]*$", re.IGNORECASE)
_COUNTS = _word_set("much many")


def _another_measure(question: str, previous: str) -> str | None:
    """ "and how high a step?" after "how long a step can a two-legged robot take ...?", "and how fast?"
    after "how far can the robot walk on one charge?": the previous question asked again with the new
    measure in place of the old ("how high a step can a two-legged robot take ...?"), not the old one
    beside it. None when the previous question asks no measure ("how do I ...?"), or the follow-up
    names something the previous question did not ("and how much memory?"), or either measure counts
    ("how many joints" has no "how much" of the same thing)."""
    asked = _AND_HOW.match(question)
    measured = _HOW_MEASURE.match(previous)
    if asked is None or measured is None or "(" in previous:
        return None
    new, old = asked.group(1).lower(), measured.group(1).lower()
    if new == old or {new, old} & (AUXILIARIES | _COUNTS | QUESTION_WORDS) or new in STOP_WORDS:
        return None
    own, rest = asked.group(2).split(), measured.group(2).split()
    if [w.lower() for w in own] != [w.lower() for w in rest[: len(own)]]:
        return None
    return f"how {asked.group(1)} {' '.join(rest)}?"


# "compared to Vosk?": the previous question weighed against another thing.
_COMPARED = re.compile(
    r"^\s*(?:(?:ok(?:ay)?|so|and|but)[\s,]+)*((?:compared\s+(?:to|with)|versus|vs\.?)\s+[^?]+?)[\s?.!]*$",
    re.I,
)


def _covers(subject: str, question: str) -> bool:
    """Whether `subject` keeps every topic word of `question` (not its how-to verbs)."""
    kept = {w.lower() for w in words(subject)}
    return all(w.lower() in kept for w in content_words(question) if not _is_action(w))


def _asks_nothing_of_its_own(question: str) -> bool:
    """No topic word and no pronoun or "one" for the previous topic: a bare request ("give me an
    example", "can you show an example?", "why?")."""
    tokens = [w.lower() for w in words(question)]
    if any(t in ANAPHORA for t in tokens) or _pronoun_one(tokens) is not None:
        return False
    return not any(not _is_action(w) for w in content_words(question))


# Words that open a clause setting the scene rather than reporting something: "In the RL chapter, ...",
# "Once the node is running, ...", "For the final project, ...".
_SETTING_OPENERS = _PREPOSITIONS | _SUBORDINATE | _word_set("for as during within without since")


# "what if I hand one in late?": the previous question's situation with one thing changed.
_WHAT_IF = re.compile(r"^\s*(?:(?:and|but|so)\s*,?\s+)?what\s+if\b", re.IGNORECASE)


# "why is that so hard?", "and why does this happen?": why of what was just said.
_WHY_THAT = re.compile(
    r"^\W*(?:(?:and|but|so|ok(?:ay)?)\W+)?why\s+(?:is|was|are|does|did|do|would|should)(?:n['\u2019]t)?\s+"
    r"(?:that|this)\b",
    re.IGNORECASE,
)


# A question that asks for advice ("what does the course recommend for ...?", "which planner do you
# suggest?"): its answer picks something, which a follow-up's "that" then stands for.
_ASKS_ADVICE = re.compile(
    r"\b(?:recommend|recommends|suggest|suggests|advise|advises|propose|proposes)\b", re.IGNORECASE
)
# "what makes that the better choice?", "why is this better?", "how come that one wins?": a "that" or
# "this" asked about, after what is asked of it.
_THAT_ADVISED = re.compile(
    r"^\W*(?:(?:and|but|so|ok(?:ay)?)\W+)?(?:why|how\s+come|what\s+makes)\b(?:\s+\w+)?\s+(?:that|this)\b",
    re.IGNORECASE,
)

# "What does the robot do when the user is silent?": asks what something does, not what it is.
_ASKS_A_DOING = re.compile(
    r"^\s*what\s+(?:does|do|did|will|would|should)\s+.+?\s+do\b(?!\s*[?.!]*\s*$)", re.I
)


def _bare_demonstrative(question: str) -> bool:
    """Whether the question has a "that" or "this" standing alone ("can I change that?"), and no pronoun
    for the thing itself."""
    tokens = re.split(r"(\W+)", question)
    lowered = [t.lower() for t in words(question)]
    if any(t in REPLACEABLE for t in lowered):
        return False
    return any(t.lower() in {"that", "this"} and _ends_phrase(tokens, i) for i, t in enumerate(tokens))


def _asks_yes_or_no(question: str) -> bool:
    """Whether the question opens with an auxiliary ("can a URDF describe ...?", "does Gazebo ...?")."""
    tokens = [w.lower() for w in words(question) if w.lower() not in _FILLERS]
    return bool(tokens) and tokens[0] in AUXILIARIES


def _that_for_what_was_asked(question: str) -> bool:
    """Whether the question's "that" or "this" stands alone for something said ("what should I use for
    that?", "what's that called?"), with no pronoun for a thing ("it", "them") and no noun after it."""
    if any(w.lower() in REPLACEABLE for w in words(question)):
        return False
    # "is that slow (though)?", "what's that called?", "is that really needed?": the demonstrative is
    # the subject; "is that node for ...?": a noun's
    subject = _SUBJECT_DEMONSTRATIVE.search(question) is not None and not _before_a_noun(question)
    return _bare_demonstrative(question) or (subject and not _before_a_verb(question))


def _reports_first(question: str) -> bool:
    """Whether the question comes after a report of its own ("my simulated humanoid shakes uncontrollably
    even with nothing pushing it, is there an exercise on that?"), not after a clause that sets a scene
    ("In the RL chapter, how is the state defined?")."""
    lead = _LEAD_CLAUSE.match(" ".join(question.strip().split()))
    if lead is None:
        return False
    tokens = [w.lower() for w in words(lead.group(1))]
    return len(tokens) >= 4 and tokens[0] not in _SETTING_OPENERS and tokens[0] not in _QUESTION_OPENERS


def _asks_back_after_a_question(question: str) -> bool:
    """ "why did they bother making ROS 2, what was wrong with the first one?": a question, then a second
    one that points back into it. Neither has the subject alone ("wrong" is no thing), so a follow-up
    takes the whole turn."""
    lead = _LEAD_CLAUSE.match(" ".join(question.strip().split()))
    if lead is None:
        return False
    opening = [w.lower() for w in words(lead.group(1))]
    return bool(opening) and opening[0] in QUESTION_WORDS | AUXILIARIES and points_back(lead.group(2))


def _after_statement(question: str, statement: str) -> str:
    """A follow-up to a report, searched with its own words as asked and the whole report after it in
    brackets: "so how do I stop it exploding (my robot blows up the moment the simulation starts)?".
    Cut into a subject for the pronoun, a report loses its verbs and the follow-up its sense."""
    said = " ".join(statement.strip().rstrip("?.! ").split())
    own = {w.lower() for w in words(question)}
    if all(w.lower() in own for w in content_words(said)):
        return question
    stripped = question.rstrip("?.! ")
    return f"{stripped} ({said}){question[len(stripped) :] or '?'}"
