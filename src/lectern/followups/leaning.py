"""Whether a question that names words of its own still needs the turn before it (`_leans_on`: "do I
need the vet's receipts?" after a how-to, "what documents count as proof of address?"), and which
earlier question a follow-up leans on (`_anchor`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from lectern import word_frequency
from lectern.english import COMPARATIVES, shared_start
from lectern.english import word_set as _word_set
from lectern.followups.detection import _SMALL_WORDS_AND_VERBS, _is_statement, is_followup
from lectern.followups.doings import _doing_asked
from lectern.followups.pointing import _ANAPHORA_WORD, _CARRIES_ON
from lectern.followups.subjects import _PLURAL_PRONOUN
from lectern.followups.vocabulary import (
    _NOT_CONTENT,
    ACTION_WORDS,
    ANAPHORA,
    SELF_CONTAINED_WORDS,
    TOPIC_ROOT_CHARS,
    _is_adjective,
    _is_plural,
    _is_specific,
    _singular,
    _topical_words,
    _unknown_in_english,
    content_words,
    words,
)
from lectern.ordinals import ORDINALS

# "will I lose my contacts?", "will my old links still work?": what follows for the reader or their things.
_WHAT_FOLLOWS = re.compile(r"^" + _CARRIES_ON + r"(?:will|would)\s+(?:i|we|my|our)\b", re.IGNORECASE)


# "do I need the vet's receipts?", "does the ground need to be level?", "is a phone required?", "do I have
# to print anything?": whether something is needed, asked with nothing saying for what.
_ASKS_NEED = re.compile(
    r"^" + _CARRIES_ON + r"(?:(?:do|does|will|would)\s+(?:[\w'\u2019-]+\s+){1,3}(?:need|have\s+to)\b"
    r"|(?:is|are)\s+(?:[\w'\u2019-]+\s+){1,3}(?:required|needed|necessary|mandatory)\b"
    r"|must\s+(?:i|we)\b)"
    r"(?!.*\b(?:for|to\s+[a-z]+\s+(?:a|an|the|my|our|it|them))\b)",
    re.IGNORECASE,
)


def _asks_need_of_doing(question: str, previous: str) -> bool:
    """ "do I need the vet's receipts?" after "how do I make a claim on my pet insurance?": a need with
    nothing saying for what, and few words of its own, none a name, is a need of the doing just asked
    about."""
    if not _ASKS_NEED.match(question) or _doing_asked(previous) is None:
        return False
    if _ANAPHORA_WORD.search(question) or re.search(r"\bones?\b", question, re.IGNORECASE):
        return False  # "does it need a password?", "do I need at least one?": the pronoun says of what
    topical = _topical_words(question)
    return len(topical) < SELF_CONTAINED_WORDS and not any(_is_specific(w) for w in topical)


# "what documents count as proof of address?", "what counts as a valid reason to leave early?": what
# qualifies under a rule, by a word that says a standard is set (proof, evidence, a valid or acceptable
# one), with no phrase saying whose rule it is ("proof of address for a bank account").
_COUNTS_AS = re.compile(
    r"^" + _CARRIES_ON + r"(?:what|which)(?:\s+[a-z]+)?\s+counts?\s+as\s+(?:an?\s+)?"
    r"(?:proof|evidence|valid|acceptable|sufficient|eligible|qualifying|official|reasonable"
    # or a state of the reader's, a gerund ("living alone", "working full time")
    r"|(?!(?:some|no|any|every)thing\b)[a-z]{2,}ing)\b"
    r"(?!.*\b(?:for|in|on|under|at|within|by|when|if)\b)",
    re.IGNORECASE,
)


def _asks_what_qualifies(question: str, previous: str) -> bool:
    """ "what documents count as proof of address?" after "how do I register my child at the primary
    school?": what counts under a standard, after a how-to and naming little, is what counts for the
    doing just asked about (the proof asked for when registering)."""
    if not _COUNTS_AS.match(question) or _doing_asked(previous) is None:
        return False
    topical = _topical_words(question)
    return len(topical) <= SELF_CONTAINED_WORDS and not any(_is_specific(w) for w in topical)


# "is bedding extra?", "are towels included?": extra, included or covered says "in or beyond something",
# which a question ending there leaves to the turn before (a price, a package, a policy).
_EXTRA_OR_INCLUDED = re.compile(
    r"^"
    + _CARRIES_ON
    + r"(?:is|are)\s+(?!(?:it|they|this|that|these|those|there)\b)(?:[\w'\u2019-]+\s+){1,3}"
    r"(?:extra|included|covered|excluded|charged\s+extra|an\s+extra|at\s+extra\s+cost)\s*[?.!]*\s*$",
    re.IGNORECASE,
)


# "when should I pick a service then?", "how much notice should I give then?": a "then" that ends the
# question says it follows from what was just said.
_THEN_END = re.compile(r"\bthen\s*[?.!]*\s*$", re.IGNORECASE)
# "what should I bring when auditioning?": the reader, then a bare gerund (no object) ending the question.
_WHILE_DOING_END = re.compile(
    r"\b(?:i|we)\b.*\b(?:while|whilst|when)\s+[a-z]+ing\s*[?.!]*\s*$", re.IGNORECASE
)
# "which package is the model file supposed to sit in?": what "the" thing is supposed or meant to do is
# what the instructions just asked about say of it.
_SUPPOSED_TO = re.compile(r"\b(?:is|are)\s+the\s+(?:[a-z][\w-]*\s+){1,3}(?:supposed|meant)\s+to\b", re.I)
# "how long is the waiting list?", "when is the deadline?": a measure or time of "the" thing, named in one
# or two plain words and nothing after them; after a how-to it is the doing's (its list, its deadline).
_MEASURE_OF_THE = re.compile(
    r"^" + _CARRIES_ON + r"(?:how\s+(?:long|much|soon)|when|where)\s+(?:is|are)\s+the\s+"
    r"(?:[a-z][a-z-]*\s+)?[a-z][a-z-]*\s*[?.!]*\s*$"
)


# "what is an idempotency key?", "how does photosynthesis work?", "what does tectonics mean?": a question
# asking what one thing is, of one or two words after the article.
_DEFINES = re.compile(
    r"^\W*(?:what\s+(?:is|are)|what(?:'s|\u2019s)|how\s+(?:does|do)|what\s+(?:does|do))\s+(an?\s+)?"
    r"([a-z]+(?:\s+[a-z]+)?)(?:\s+(?:work|mean))?\s*[?.!]*\s*$",
    re.IGNORECASE,
)
# "what is reimbursable?", "what is configurable?": one word with an adjective's ending and no article
# asks which of the previous topic's things are so, not what a thing is.
_ADJECTIVE_END = re.compile(r"(?:able|ible|ive|ous|ful|less|ary|al|ic)$")
RARE_TOPIC_ZIPF = 3.2  # below "timeout" (3.21), "payload": "photosynthesis" (3.03), "quorum", "sharding"


def _defines_rare_topic(question: str, previous: str) -> bool:
    """A definition question whose topic starts with a word rare in general English ("idempotency",
    "photosynthesis") names that topic as a name would: it stands alone, unless the word shares a root
    with the previous turn ("how does sharding work?" after "how do I shard ...?"). An everyday word
    first ("what is a good timeout?") asks within the previous topic."""
    match = _DEFINES.match(question.strip())
    if match is None:
        return False
    phrase = match.group(2).lower().split()
    first = phrase[0]
    if match.group(1) is None and len(phrase) == 1 and _ADJECTIVE_END.search(first):
        return False
    if first in _NOT_CONTENT or len(first) < 4:
        return False
    if max(word_frequency.zipf(first), word_frequency.zipf(_singular(first))) >= RARE_TOPIC_ZIPF:
        return False
    # a shared beginning of a few letters is the same root: "retries" and "retry", "sharding" and "shard"
    return not any(shared_start(first, w.lower()) >= TOPIC_ROOT_CHARS for w in content_words(previous))


def _leans_on(question: str, previous: str) -> bool:
    """Whether `question` needs the turn before it (`previous`) to be searched."""
    if _defines_rare_topic(question, previous):
        return False
    if is_followup(question) or _repeats_previous_words(question, previous):
        return True
    if _THEN_END.search(question):
        return True
    if _WHILE_DOING_END.search(question) and _doing_asked(previous) is not None:
        # "which tools should I try while experimenting?" after "how should I use the playground?": a bare
        # gerund at the end is the doing just asked about, with its object left out
        return True
    if _MEASURE_OF_THE.match(question) and _doing_asked(previous) is not None:
        return True
    if _compares_with_previous(question, previous):
        return True
    topical = _topical_words(question)
    if _asks_need_of_doing(question, previous):
        return True
    if _presupposes_previous(question, previous):
        return True
    if _asks_what_qualifies(question, previous) or _EXTRA_OR_INCLUDED.match(question):
        return True
    if (
        _WHAT_FOLLOWS.match(question)
        and _doing_asked(previous) is not None
        and len(topical) < SELF_CONTAINED_WORDS
        and not any(_is_specific(w) for w in topical)
    ):
        # "will I lose my contacts?" after "how do I reset the phone to factory settings?": what will
        # happen to the reader after a how-to is what follows from the doing
        return True
    # "should I lower the camera resolution?" after "SLAM drops to 10 frames a second": after a report,
    # a question that names nothing of its own (no name, few topic words) is about what was reported
    return (
        _is_statement(previous)
        and len(topical) < SELF_CONTAINED_WORDS
        and not any(_is_specific(w) or _unknown_in_english(w) for w in topical)
    )


_OWNER_WORDS = r"(?:of|in|on|at|for|from|within|inside|across|per)\b"
# "how many marks is each hazard clip worth?": "each" or "every" and its noun, with no phrase after it
# saying of what ("each question on the final exam"); not "each other", "every time".
_EACH_UNOWNED = re.compile(
    r"\b(?:each|every)\s+(?!(?:other|time|times)\b)(?:(?!" + _OWNER_WORDS + r")[a-z][\w'\u2019-]*\s+){0,2}?"
    r"(?!" + _OWNER_WORDS + r")[a-z][\w-]*(?!\s+" + _OWNER_WORDS + r")(?=\s+[a-z]|\s*[?.!]*\s*$)",
    re.IGNORECASE,
)
# "what falls under preventive treatments?", "what is listed under travel restrictions?": what a heading
# or category holds.
_UNDER_HEADING = re.compile(
    r"^" + _CARRIES_ON + r"(?:what|which\s+\w+)\s+(?:(?:is|are|gets?|usually)\s+)?"
    r"(?:counts?|falls?|goes|go|belongs?|comes?|listed|included|covered|filed)\s+under\s+(.+?)[\s?.!]*$",
    re.IGNORECASE,
)
# "what counts for the conversation part?", "what counts towards the practical mark?": what is credited
# to a part or a mark named with "the", of the assessment just asked about ("what counts for the state
# pension?" names no part of anything).
_COUNTS_TOWARD = re.compile(
    r"^" + _CARRIES_ON + r"(?:what|which\s+\w+)\s+(?:(?:is|are)\s+)?counts?\s+(?:for|towards?)\s+the\s+"
    r"((?:[a-z][\w-]*\s+){0,2}(?:part|section|component|portion|stage|round|mark|score|grade)s?)[\s?.!]*$",
    re.IGNORECASE,
)
# "what's in the filter menu?", "what does the welcome pack contain?", "which rooms does the venue offer?":
# a question asking what something holds or which things it has.
_ASKS_CONTENTS = re.compile(
    r"^" + _CARRIES_ON + r"(?:what(?:'s|\u2019s|\s+is|\s+are)\s+(?:in|on|inside)\s+(.+?)"
    r"|what\s+(?:does|do)\s+(.+?)\s+(?:include|contain|list|offer|cover|have|come\s+with|provide))"
    r"[\s?.!]*$",
    re.IGNORECASE,
)
_ASKS_THINGS = re.compile(
    r"^" + _CARRIES_ON + r"(?:what|which)\s+([a-z][\w-]*)\s+(?:does|do|did|come|are|can)\s+(.+?)[\s?.!]*$",
    re.IGNORECASE,
)
# "the grain filter", "the warning triangle": "the", at least one describing word, the noun; the words
# after "the" that pick by place or amount ("the last edit", "the same page") name no kind of thing.
_DEFINITE_KIND = re.compile(r"\bthe\s+((?:[a-z][\w-]*\s+){0,3}[a-z][\w-]*)", re.IGNORECASE)
_PICKS_NO_KIND = _word_set("same other whole entire only next last first latest new old main right wrong")
# "do I need a harness when I use it?": a need's indefinite object, then a clause whose object is "it".
_NEED_THEN_IT = re.compile(
    r"\b(?:need|needs|require|bring|have\s+to\s+(?:have|bring|show|buy|book))\s+(?:a|an|any)\s+[^?]*?"
    r"\b(?:when|if|before|while|whenever)\s+(?:i|we|you)\s+(?:[a-z'\u2019]+\s+){1,3}?it\s*[?.!]*\s*$",
    re.IGNORECASE,
)


def _presupposes_previous(question: str, previous: str) -> bool:
    """A question with no pronoun that still takes the previous turn as said: "how many marks is each
    hazard clip worth?" (each of the clips of the test just asked about), "what falls under preventive
    treatments?" (a heading of the price list just asked about), "what does the grain filter do?" after
    "what's in the filter menu?" (one of the things just asked for), "do I need a harness when I use it?"
    (a need's "a harness" is no thing yet, so "it" is what was just talked about). Only for questions
    naming little (no name, few topic words): one naming its own setting stands alone."""
    if _NEED_THEN_IT.search(question) and len(_ANAPHORA_WORD.findall(question)) == 1:
        return True
    topical = _topical_words(question)
    if any(_is_specific(w) for w in topical):
        return False
    if _SUPPOSED_TO.search(question):
        # "supposed" or "meant" says no topic of its own
        return len(topical) <= SELF_CONTAINED_WORDS + 1
    if len(topical) > SELF_CONTAINED_WORDS:
        return False
    if _EACH_UNOWNED.search(question):
        return True
    under = _UNDER_HEADING.match(question) or _COUNTS_TOWARD.match(question)
    if under is not None:
        return len(words(under.group(1))) <= 4
    return _names_one_asked_for(question, previous)


def _names_one_asked_for(question: str, previous: str) -> bool:
    """ "what does the grain filter do?" after "what's in the photo editor's filter menu?", "how steep is the
    ridge trail?" after "what trails does the hiking guide describe?": a kind of thing named with "the" and
    a describing word is one of the things the previous question asked for, when it asked what something
    holds, or which things (the same noun) it has. Not one more of the holder's own kind ("the practical
    driving test" after "what's on the theory test?"), nor a pick by place ("the last edit")."""
    contents = _ASKS_CONTENTS.match(previous)
    things = _ASKS_THINGS.match(previous)
    if contents is None and things is None:
        return False
    if contents is not None:
        holder = contents.group(1) or contents.group(2)
    else:
        assert things is not None
        holder = things.group(2)
    holder_words = [w.lower() for w in words(holder)]
    before = {w.lower() for w in content_words(previous)}
    for match in _DEFINITE_KIND.finditer(question):
        after = [w.lower() for w in match.group(1).split()]
        # the noun phrase ends before the first small word or verb ("the grain filter | do")
        ends = [i for i, w in enumerate(after) if w in _SMALL_WORDS_AND_VERBS]
        named = after[: ends[0]] if ends else after
        named = _without_predicate(named, things.group(1).lower() if things is not None else "")
        if len(named) < 2 or any(w in _PICKS_NO_KIND or w in ORDINALS for w in named):
            continue
        if all(w in before for w in named):
            continue  # the same words as before: `_repeats_previous_words` reads those
        head = _singular(named[-1])
        if holder_words and _singular(holder_words[-1]) in {head, *map(_singular, named[:-1])}:
            # another of the holder's own kind, not a thing inside it ("the practical driving test" after
            # "what's on the theory test?"), or a thing that names its holder ("the course tutor")
            continue
        if contents is not None or (things is not None and head == _singular(things.group(1).lower())):
            return True
    return False


_PREDICATE_WORDS = _word_set("optional mandatory necessary free visible editable")


def _without_predicate(named: list[str], kind: str) -> list[str]:
    """ "priority field" of "is the priority field required?" after "what fields does a bug report have?":
    the words after the kind asked for that say something of it (a participle or an adjective the
    question ends on) are no part of its name."""
    if not kind:
        return named
    kind = _singular(kind)
    ends = [i for i, w in enumerate(named) if _singular(w) == kind]
    if not ends or ends[-1] == len(named) - 1:
        return named
    rest = named[ends[-1] + 1 :]
    if all(w.endswith("ed") or _is_adjective(w) or w in _PREDICATE_WORDS for w in rest):
        return named[: ends[-1] + 1]
    return named


# "how do newer systems differ from the classic pipeline?": a comparative before a noun, with no "than".
_COMPARED_NOUN = re.compile(
    r"\b(?:" + "|".join(sorted(COMPARATIVES)) + r")\s+([A-Za-z][\w-]*)", re.IGNORECASE
)
_THAN = re.compile(r"\bthan\b", re.IGNORECASE)


def _compares_with_previous(question: str, previous: str) -> bool:
    """ "how do newer systems differ from the classic pipeline?" after "what does a robot's dialogue
    system consist of?", "are there cheaper sensors for it?" after "which sensors does the kit use?": a
    comparative before a noun the previous question named, with no "than" saying what it is weighed
    against, weighs that noun against the one just talked about; the question keeps its words and takes
    the previous question's subject. A noun the previous question did not name ("is there a faster
    way to install it?") is left to the other rules."""
    if _THAN.search(question):
        return False
    before = {_singular(w.lower()) for w in content_words(previous)}
    return any(_singular(m.group(1).lower()) in before for m in _COMPARED_NOUN.finditer(question))


def names_little(question: str) -> bool:
    """Whether `question` names too little to be a topic of its own: at most `SELF_CONTAINED_WORDS`
    topic words, none a name ("how do I refuse a bad value?", "which message type carries the pose
    estimate?"), where "how much does nvidia riva cost per hour of audio?" names its own."""
    topical = _topical_words(question)
    return len(topical) <= SELF_CONTAINED_WORDS and not any(_is_specific(w) for w in topical)


def _repeats_previous_words(question: str, previous: str) -> bool:
    """ "what's the downside of the separate pieces?" after "... one big model or separate pieces?":
    a short question whose every topic word comes from the previous question, none of them a name,
    asks about what that question was about ("the separate pieces" it offered), not a topic of its
    own. One that names a thing ("How do I install Isaac Sim?") stands alone."""
    topical = _topical_words(question)
    if not topical or len(topical) >= SELF_CONTAINED_WORDS or any(_is_specific(w) for w in topical):
        return False
    before = {w.lower() for w in content_words(previous)}
    return all(w.lower() in before for w in topical)


# "what tools do I need?": a follow-up that asks for things by a plural noun of their kind.
_ASKS_FOR_THINGS = re.compile(
    r"^\W*(?:(?:and|so|ok(?:ay)?)\W+)?(?:what|which)\s+(?:[\w-]+\s+)?([\w-]+)\s+"
    r"(?:do|does|did|should|can|could|would|will|are|were)\b",
    re.IGNORECASE,
)


def _anchor(previous_questions: Sequence[str], question: str = "") -> str:
    """The question whose subject a follow-up leans on: the last one, or, when that one was itself a
    follow-up that named nothing new, the one it leaned on; not when the follow-up's "them" or "they"
    can be the things that one asked for ("where do I buy them?" after "what tools do I need?")."""
    last = " ".join(previous_questions[-1].split())
    things = _ASKS_FOR_THINGS.match(last)
    if things is not None and _PLURAL_PRONOUN.search(question) and _is_plural(things.group(1)):
        return last
    if (
        len(previous_questions) > 1
        and _leans_on(last, previous_questions[-2])
        and not _names_a_new_topic(last)
    ):
        return _anchor(previous_questions[:-1])
    return last


def _names_a_new_topic(question: str) -> bool:
    topical = [
        w for w in content_words(question) if w.lower() not in ACTION_WORDS and w.lower() not in ANAPHORA
    ]
    return any(_is_specific(w) for w in topical)
