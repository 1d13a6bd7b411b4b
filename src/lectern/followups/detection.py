"""`is_followup`: whether a question depends on the turn before it, because it points back or names
too little to be a topic of its own ("Can you give an example?", "Tell me more", "which is better?").
"""

from __future__ import annotations

import re

from lectern.english import AMOUNTS, AUXILIARIES, COMPARATIVES, QUESTION_WORDS
from lectern.english import DETERMINERS as _DETERMINERS
from lectern.english import PERSONS as _PRONOUN_I
from lectern.english import PREPOSITIONS as _PREPOSITIONS
from lectern.english import SUBORDINATE as _SUBORDINATE
from lectern.english import VERB_PARTICLES as _VERB_PARTICLES
from lectern.english import VERBS as _VERBS
from lectern.english import word_set as _word_set
from lectern.followups.pointing import (
    _IT_TO_BARE_VERB,
    _QUOTED,
    _object_pronoun_points_back,
    _one_of_a_kind_unnamed,
    _opens_followup,
    _points_outside,
    _possessive_points_back,
    _pronoun_one,
    points_back,
)
from lectern.followups.vocabulary import (
    _ADVERBS,
    ACTION_WORDS,
    ANAPHORA,
    MIN_OWN_CONTENT_WORDS,
    SELF_CONTAINED_WORDS,
    STOP_WORDS,
    _is_action,
    _is_specific,
    _topical_words,
    content_words,
    words,
)
from lectern.ordinals import COUNTING, picks_by_place
from lectern.swaps import corrected_words, correction

# Back-references no self-contained question makes, however many words of its own it has: "which of
# those ...", "... between the two"; and a reply that carries on the conversation ("ok, but why bother
# with one ...") when it also points back.
_GROUP_BACK = re.compile(
    r"\b(?:of|among|between)\s+(?:those|these|them|the\s+two|the\s+three|both)\b"
    # "which one would I use for stairs?" chooses among what was just listed ("which one of A or B"
    # names its own choices); "such a prompt" is the one just described.
    r"|^(?!.*\bor\b.*\bwhich\b).*\bwhich\s+ones?\b(?!\s+of\b)|\bsuch\s+an?\b",
    re.IGNORECASE,
)
_BETTER = _word_set("better worse best worst")
# The small words a pick with no noun of its own is followed by ("the former is", "the second costs less").
_SMALL_WORDS_AND_VERBS = STOP_WORDS | AUXILIARIES | _VERBS
_PICK_FOLLOWERS = _SMALL_WORDS_AND_VERBS | COMPARATIVES | _BETTER


def _nothing_named_after(followers: frozenset[str]) -> str:
    """A lookahead: the pick before it names no noun of its own, as the question ends, a participle
    ("the former used") or one of `followers` comes next."""
    return r"(?=\s*[?.!,]|\s*$|\s+[a-z]+ed\b|\s+(?:" + "|".join(sorted(followers)) + r")\b)"


# "does the former cover night buses?": "the former" and "the latter" name nothing but one of the two
# things just talked about, whatever else the question has ("the former model" names its own noun).
_FORMER_OR_LATTER = re.compile(
    r"\bthe\s+(?:former|latter)(?:\s+ones?)?\b" + _nothing_named_after(_PICK_FOLLOWERS), re.IGNORECASE
)
# "which lasts longer?", "which costs less?": a pick with a verb and a comparison, nothing to pick among.
_WHICH_COMPARES = re.compile(
    r"^\W*(?:(?:and|so|but|ok(?:ay)?)\W+)?which\s+[a-z]+\s+(?:(?:more|less|most|least)\s+)?(?:"
    + "|".join(sorted(COMPARATIVES | AMOUNTS | _BETTER | _word_set("longest shortest")))
    + r")(?:\s+(?:for|with|to|on|in)(?:\s+[\w-]+){1,2})?\s*[?.!]*$",
    re.IGNORECASE,
)
# "I don't get step 3", "what does part 2 mean?": a numbered step or part with nothing saying of what is
# one of the steps just talked about ("step 3 of the install guide" says of what).
_NUMBERED_PART = re.compile(
    r"\b(?:step|stage|phase|part)\s+\d+\b(?!\s+(?:of|in)\b)(?=\s*[?.!,]*\s*$|\s+(?:mean|means|do|does|say|says)\b)",
    re.IGNORECASE,
)
# "I turned the barrel adjuster but it still skips, what now?": what to do next is asked of what was just
# talked about, whatever the report before it names.
_WHAT_NOW = re.compile(r"\b(?:what\s+now|now\s+what|what\s+next)\s*[?.!]*\s*$", re.IGNORECASE)
# "What is a launch file and how ...", "What usually causes migraines and how can I relieve them?": a
# first question that names its own topic, then a second one whose pronoun points back into the first.
_NAMES_THEN_ASKS = re.compile(
    r"^\s*(.+?)\s+and\s+(?:what|how|why|when|where|which|who)\b",
    re.IGNORECASE,
)
# "which file is that in?", "how much quicker is that compared to plain ROS 2?", "can I skip that if I have
# the full install?": "that" or "this" right after a verb, with no noun of its own after it (the end, a
# preposition, a clause, a comparison), stands for what was just said however many words of its own the
# question has. Not "make sure that the robot ...", where "that" opens a clause.
_DEMONSTRATIVE_BACK = re.compile(
    r"\b(?:is|was|are|does|did|do|can|could|should|would|will|skip|change|set|use|try|avoid|ignore|need)"
    r"\s+(?:that|this)"
    r"(?=\s*(?:[?.!,;:]|$)|\s+(?:in|on|for|with|to|from|at|by|compared|than|if|when|instead|too|also)\b"
    r"|\s+(?:more\s+|less\s+)?[a-z]+\s+than\b)",
    re.IGNORECASE,
)
# "will 8 gigs of memory be enough?", "could plain white walls be the reason?": enough for what, the
# reason for what; the question weighs its own words against what was just asked.
_RELATIVE_END = re.compile(
    r"\b(?:enough|the\s+(?:reason|cause|culprit|problem))\s*[?.!]*\s*$"
    # "would a 3060 do?", "will 8 gigs do?", "would an IMU help?": do or help with what was just asked
    r"|^\W*(?:would|will|could|can|does|do|might)\s+(?!(?:i|we|you|it|they|that|this)\b)[^?]{1,40}?\s+"
    r"(?:do|help)\s*[?.!]*\s*$",
    re.IGNORECASE,
)
# "can I skip installing everything locally?", "can I do without the graphical window?": leaving out a
# step presupposes the procedure that was just discussed.
# "so what value does a static walk have?": a value, number or figure with nothing saying of which
# quantity is one of the quantity just asked about.
_BARE_MEASURE = re.compile(
    r"^\W*(?:(?:so|and|ok(?:ay)?|then)\W+)?what(?:'s|\s+is|\s+are)?\s+(?:the\s+)?"
    r"(?:value|values|number|numbers|figure|figures)\b(?!\s+(?:of|for)\b)",
    re.IGNORECASE,
)
# "which size should I use on a Jetson?": a size or version with nothing saying of what is one of the
# thing just talked about, whatever else the question names (the Jetson is where, not what).
_WHICH_SIZE = re.compile(
    r"^\W*(?:(?:so|and|ok(?:ay)?|then|but)\W+)?which\s+(?:size|sizes|version|versions)\b"
    r"(?!\s+(?:of|for)\b)",
    re.IGNORECASE,
)
# "which package carries the messages back and forth?": back and forth between what, both ways between
# which two; the two are the ones just talked about when the question names neither.
_BETWEEN_UNNAMED = re.compile(
    r"\b(?:back\s+and\s+forth|to\s+and\s+fro|both\s+ways|in\s+both\s+directions)\b", re.IGNORECASE
)
_LEAVES_OUT = re.compile(r"\b(?:skip|bypass|leave\s+out|do\s+without|get\s+away\s+without)\b", re.IGNORECASE)
_CONTINUES = re.compile(r"^\s*(?:ok(?:ay)?|but|so|then|right|hmm)\b\s*,?", re.IGNORECASE)
_NO_VERB = r"(?!.*\b(?:" + "|".join(sorted(AUXILIARIES | QUESTION_WORDS)) + r")\b)(?!.*n['\u2019]t\b)"
# "in a virtual environment?", "on Windows?": a bare phrase of a place or means, no verb, asks the previous
# question again in that setting, as "and in a virtual environment?" does.
_BARE_SETTING = re.compile(
    rf"^\s*(?:in|on|at|with|from|under|inside|using|via|for|as)\s+{_NO_VERB}[^,;:]+$", re.IGNORECASE
)
# "on what graphics card?", "with which version?": a preposition, "what" or "which" and a noun, no verb,
# asks which one of a setting of what was just talked about, however many words its noun has
_WHICH_SETTING = re.compile(
    rf"^\W*(?:(?:and|so|but|ok(?:ay)?)\W+)?(?:in|on|at|with|from|under|inside|using|via|for|by|into|to)\s+"
    rf"(?:what|which)\s+{_NO_VERB}[A-Za-z][\w-]*(?:\s+[A-Za-z][\w-]*){{0,2}}\s*[?.!]*\s*$",
    re.IGNORECASE,
)
# "is there a time limit?", "are there any fees?": whether a thing of one or two common words exists,
# with no owner or setting after it, asks it of what was just talked about (a limit on doing it)
_IS_THERE_BARE = re.compile(
    r"^\W*(?:(?:and|so|but|ok(?:ay)?)\W+)?(?:is|are)\s+there\s+(?:(?:a|an|any|some)\s+)?"
    r"([A-Za-z][\w-]*(?:\s+[A-Za-z][\w-]*)?)\s*[?.!]*\s*$",
    re.IGNORECASE,
)
# "how much disk space?", "how many GPUs?": an amount asked with no verb is an amount of what was just
# talked about ("what hardware do I need for the Isaac module?"); a question with a verb ("how much disk
# space does Isaac Sim need?"), or a name after a preposition ("how much VRAM for Isaac Sim?"), says of
# what itself.
_BARE_AMOUNT = re.compile(
    rf"^\W*(?:(?:so|and|ok(?:ay)?|then|but)\W+)?how\s+(?:much|many)\s+{_NO_VERB}[^,;:]+$", re.IGNORECASE
)
# "why 95%?", "why Celery, not RQ?": a "why" with a few words and no verb asks why of what was just said.
_WHY_FRAGMENT = re.compile(
    rf"^\W*(?:(?:and|but|so|ok(?:ay)?)\W+)?why\s+(?!not\b){_NO_VERB}\S+(?:\s+\S+){{0,3}}\s*$",
    re.IGNORECASE,
)
# "how far back can I go?", "how soon can I come?": words that say how far, how long or how soon, with
# the verbs of getting there, naming no thing.
_EXTENT_WORDS = _word_set("far back long often soon early late ahead forward away fast go get come")


def _leaves_out_one_thing(question: str) -> bool:
    """ "can I get away without installing Ubuntu?", "can I skip the Docker step?": leaving out one thing,
    even a named one, with nothing else of its own (at most two topic words besides the leaving out),
    presupposes the procedure just talked about, as the same question without a name does."""
    match = _LEAVES_OUT.search(question)
    if match is None:
        return False
    topical = _topical_words(question[: match.start()] + " " + question[match.end() :])
    # "can I skip the PostgreSQL install and use SQLite?" names two things of its own: it stands alone
    return len(topical) < SELF_CONTAINED_WORDS - 1 and sum(map(_is_specific, topical)) <= 1


def is_followup(question: str) -> bool:
    """Whether the question needs the previous turn. One that names a topic of its own ("What is a ROS 2
    service and how does it differ from actions?") stands alone even when it has a pronoun: its
    pronoun points inside the question."""
    lowered = question.strip().lower()
    if _opens_followup(question) or correction(question) or corrected_words(question):
        return True
    if _WHAT_NOW.search(question):
        return True  # "... it still skips, what now?": what to do next in what was just talked about
    if _IT_TO_BARE_VERB.match(question):
        # "is it safe to drive?": a "to" clause of a bare verb names no thing; what is safe to drive
        # with is what was just talked about
        return True
    if _WHICH_SETTING.match(question):
        return True  # "on what graphics card?": the setting of what was just asked
    there = _IS_THERE_BARE.match(question)
    if there and not any(_is_specific(w) for w in words(there.group(1))):
        return True  # "is there a time limit?": a limit on what was just talked about
    if _bare_setting(question) or _WHY_FRAGMENT.match(question) or _IT_TAKES.match(question):
        # "how long does it take on a CPU?": what takes long is a doing the question does not name
        return True
    if _says_its_setting_first(question):
        return False
    if _GROUP_BACK.search(question) or _FORMER_OR_LATTER.search(question):
        return True
    if _WHICH_COMPARES.match(question) or _NUMBERED_PART.search(question):
        return True
    if _DEMONSTRATIVE_BACK.search(question) or _RELATIVE_END.search(question):
        return True
    if _CONTINUES.match(question) and (points_back(question) or "one" in lowered.split()):
        return True
    names_first = _NAMES_THEN_ASKS.match(question)
    if names_first and _names_a_topic(names_first.group(1)):
        return False  # "What is a launch file and how do I pass arguments to it?": "it" is the file
    own = content_words(question)
    # "what's the hardest part?": a superlative picks among what was talked about, naming nothing
    phrasal = _phrasal_verbs(question)
    topical = [
        w
        for w in own
        # "explain the third prompt more": a place in a list names no topic ("first", "second" never do)
        if not _is_action(w) and w.lower() not in ANAPHORA | _SUPERLATIVES | COMPARATIVES | COUNTING | phrasal
    ]
    labels = _letter_labels(question)
    topical = [w for w in topical if w not in labels]
    if _INSTEAD_END.search(question):
        return True  # "can I use an AMD card instead?": instead of what was just said
    if _one_of_a_kind_unnamed(question):
        return True  # "how long does the VSLAM one take?": one of the things just talked about
    if picks_by_place(question):
        return True  # "which sensors does the sixth one combine?": one of the things just listed
    if topical and all(w.lower() in _EXTENT_WORDS for w in topical):
        return True  # "how far back can I go?": how far in what was just talked about
    if _object_pronoun_points_back(question, topical) or _possessive_points_back(question, topical):
        return True
    if _BARE_MEASURE.search(question) and not any(_is_specific(w) for w in topical):
        return True
    if _WHICH_SIZE.search(question):
        return True
    if _BARE_AMOUNT.match(question) and not (
        any(_is_specific(w) for w in topical) and any(t.lower() in _PREPOSITIONS for t in words(question))
    ):
        return True
    between = _BETWEEN_UNNAMED.search(question)
    if between and not any(_is_specific(w) for w in topical):
        # the words of "back and forth" name nothing: what else the question names decides
        rest = content_words(question[: between.start()] + question[between.end() :])
        return len([w for w in rest if not _is_action(w)]) < SELF_CONTAINED_WORDS
    if _LEAVES_OUT.search(question) and not any(_is_specific(w) for w in topical):
        return len(topical) < SELF_CONTAINED_WORDS
    if _leaves_out_one_thing(question):
        return True  # "can I get away without installing Ubuntu?": leaving it out of what was just asked
    if topical and not any(_is_specific(w) for w in topical) and not _names_a_thing(question, topical):
        # "where should I try things out so nothing breaks?": only the reader's verb and what happens
        # to nothing in particular; the place to try things is in what was just talked about
        return True
    if len(topical) >= SELF_CONTAINED_WORDS or (
        len(topical) >= SELF_CONTAINED_WORDS - 1 and any(_is_specific(w) for w in topical)
    ):
        return False
    if _points_outside(question, topical):
        # "How does it compare with Unity?" keeps its pronoun but names a new topic: still a follow-up,
        # the old topic is added next to the new one.
        return True
    named = any(_is_specific(w) for w in topical) or _QUOTED.search(question) is not None
    return len(topical) < MIN_OWN_CONTENT_WORDS and not named


# "what range is a B?", "why is the C wrong?": one capital letter after an article, ending its phrase,
# labels one of the things just talked about (a grade, an answer option, a rating), not a name.
_LETTER_LABEL = re.compile(r"\b(?:an?|the)\s+([A-HJ-Z])\b(?!['\u2019+#-])(?=\s*[?.!,]|\s*$|\s+(\w+))")


def _letter_labels(question: str) -> set[str]:
    """The letters of `_LETTER_LABEL` in `question` whose next word, if any, is a small word ("a B in
    maths") rather than the noun they name with ("an A record")."""
    labels: set[str] = set()
    for match in _LETTER_LABEL.finditer(question):
        after = match.group(2)
        if after is None or after.lower() in _SMALL_WORDS_AND_VERBS:
            labels.add(match.group(1))
    return labels


# "nothing", "someone": a subject that names no thing; what follows it is what happens to it.
INDEFINITES = _word_set(
    "nothing something anything everything nobody somebody anybody everybody someone anyone everyone"
)


def _names_a_thing(question: str, topical: list[str]) -> bool:
    """Whether any of the question's `topical` words names a thing: not an indefinite pronoun
    ("nothing"), not the verb of the reader right after "<auxiliary> I/we/you" ("should I try"), not
    the words that say what happens to an indefinite ("so nothing gets lost", "if something burns")
    up to a preposition or determiner, nor the extent a "how" asks ("how long")."""
    tokens = [w.lower() for w in words(question)]
    doings: set[int] = set()
    for i, token in enumerate(tokens):
        if i >= 2 and tokens[i - 2] in AUXILIARIES and tokens[i - 1] in _PRONOUN_I:
            doings.add(i)
        if i >= 1 and tokens[i - 1] == "how" and token in _EXTENT_WORDS:
            doings.add(i)  # "how long should I wait": how long, no thing
        if token in INDEFINITES:
            end = i + 1
            while end < len(tokens) and tokens[end] not in _PREPOSITIONS | _DETERMINERS | _SUBORDINATE:
                doings.add(end)
                end += 1
    kept = {t for i, t in enumerate(tokens) if i not in doings and t not in INDEFINITES}
    return any(w.lower() in kept for w in topical)


# "can I opt out later?", "should we sign up now?": the word after "<auxiliary> I/we/you" is a verb, and
# one followed by a particle is a verb with its particle, naming no thing of its own.


def _phrasal_verbs(question: str) -> frozenset[str]:
    tokens = [w.lower() for w in words(question)]
    found: set[str] = set()
    for i in range(2, len(tokens)):
        if tokens[i - 2] not in AUXILIARIES or tokens[i - 1] not in _PRONOUN_I:
            continue
        if i + 1 < len(tokens) and tokens[i + 1] in _VERB_PARTICLES:
            # the verb and its particles ("opt back in")
            end = i + 1
            while end < len(tokens) and tokens[end] in _VERB_PARTICLES:
                end += 1
            found.update(tokens[i:end])
        elif all(t in _ADVERBS for t in tokens[i + 1 :]) and tokens[0] == "how":
            # "how far ahead can I book?": a verb with nothing after it, where "how far" asks of it
            found.add(tokens[i])
    return frozenset(found)


def _names_only_doing(question: str) -> bool:
    """Whether the question's words are only how far or soon ("how far back can I go?") or a verb with
    its particle ("can I opt out later?"), besides the words every question has."""
    if any(w.lower() in ANAPHORA for w in words(question)):
        return False  # "how long does it last?": "it" takes the subject
    phrasal = _phrasal_verbs(question)
    own = [w.lower() for w in content_words(question)]
    extent = [w for w in own if w in _EXTENT_WORDS]
    rest = [w for w in own if w not in _EXTENT_WORDS | phrasal | _ADVERBS and not _is_action(w)]
    return bool(extent or phrasal) and not rest


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")


def _says_its_setting_first(question: str) -> bool:
    """ "My detection model won't convert into a TensorRT engine. How can I check what's wrong with
    it?": a sentence before the question that names a topic of its own is what the question's
    pronouns stand for ("Thanks. And how do I install it?" names none)."""
    sentences = _SENTENCE_END.split(question.strip())
    if len(sentences) < 2:
        return False
    setting = " ".join(sentences[:-1])
    topical = _topical_words(setting)
    return len(topical) >= MIN_OWN_CONTENT_WORDS


def _names_a_topic(clause: str) -> bool:
    """Whether a clause names a topic of its own without pointing back itself."""
    tokens = [w.lower() for w in words(clause)]
    topical = [w for w in content_words(clause) if w.lower() not in ACTION_WORDS]
    return bool(topical) and not any(t in ANAPHORA for t in tokens) and _pronoun_one(tokens) is None


def _bare_setting(question: str) -> bool:
    """ "on Windows?", "for international students?": a bare phrase of a setting; a "for" or "as" one
    names a thing ("for example?", "as well?" are turns of speech)."""
    if not _BARE_SETTING.match(question):
        return False
    opener, _, rest = question.strip().partition(" ")
    return opener.lower() not in {"for", "as"} or bool(content_words(rest))


# How a question opens (what a statement does not): a question word, an auxiliary, a request.
_QUESTION_OPENERS = (
    QUESTION_WORDS
    | AUXILIARIES
    | _word_set("am shall tell explain describe show give list compare define any anything")
)
_FILLERS = _word_set("so ok okay and but hmm well also then hi hey please")


def _is_statement(text: str) -> bool:
    """ "my robot blows up the moment the simulation starts": a turn that reports something instead of
    asking, so it has no subject to put in a pronoun's place (the next turn's "it" may be the robot,
    its "that" the whole report)."""
    if text.rstrip().endswith("?"):
        return False
    tokens = [w.lower() for w in words(text) if w.lower() not in _FILLERS]
    return bool(tokens) and tokens[0] not in _QUESTION_OPENERS


# Words that make a question pick one of many: "the hardest part of ...", "the best way to ...".
_SUPERLATIVES = _word_set(
    """
    best worst main most least biggest hardest easiest simplest fastest slowest cheapest safest largest
    smallest greatest highest lowest top minimum maximum min max
    """
)


_INSTEAD_END = re.compile(r"\binstead\s*[?.!]*\s*$", re.IGNORECASE)

# "how long does it take?": the "it" of "take" stands for a doing (what takes long is doing it), so
# after a how-to the question is how long the doing takes, not how long its object "takes". Only a
# bare "take", an adverb or two after it: "how long does it take to appear?" names its own doing.
_IT_TAKES = re.compile(
    r"^(\W*(?:(?:and|so|ok(?:ay)?|but|then)\W+)?how\s+(?:long|much(?:\s+time)?|many\s+\w+)\s+"
    r"(?:does|do|will|would|did|should|can|could|might|is)\s+it\s+(?:\w+ly\s+)?"
    r"(?:take|cost|going\s+to\s+(?:take|cost))(?:\s+(?:me|you|us))?"
    r"(?:\s+(?:roughly|about|though|then|usually|normally|typically|on\s+average))*)"
    # "how long does it take on a laptop?": a setting of the doing, which takes the doing's own place
    r"(\s+(?:in|on|at|with|from|for|under|using|via)\s+[^?.!,;:]+?)?\s*([?.!]*)\s*$",
    re.IGNORECASE,
)
