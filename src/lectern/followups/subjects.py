"""Deterministic follow-up rewriting: "How do I install it?" after "What is Gazebo Harmonic?" searches
for "How do I install Gazebo Harmonic?".

A question is a follow-up when it points back (it, this, they, ...), or is too short or too generic to
name a topic of its own ("Can you give an example?", "Tell me more"). Its search query then carries the
topic of the previous standalone question: the pronoun is replaced by the topic, or the topic is added.
Chains work because the previous question is itself rewritten first. A "that" which stands for what
the previous answer proposed ("does that hurt accuracy much?" after a how-to) is searched with the whole
doing (`with_previous_doing`). What the sentence has no place for comes after it in brackets ("how do
I configure it (sensor simulation)?"), never glued onto its last words; a "what if ...?" and a follow-up
to a report take the whole previous turn there ("and what if the window stays black there (How do I
install Gazebo on Windows)?").

The same topic extraction names what a refusal is about ("I don't have information about X ...").
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from lectern import word_frequency
from lectern.english import (
    AMOUNTS,
    AUXILIARIES,
    COMPARATIVES,
    DOCUMENT_VERBS,
    MODALS,
    QUESTION_WORDS,
    looks_plural,
    shared_start,
)
from lectern.english import DETERMINERS as _DETERMINERS
from lectern.english import PERSONS as _PRONOUN_I
from lectern.english import PREPOSITIONS as _PREPOSITIONS
from lectern.english import SUBORDINATE as _SUBORDINATE
from lectern.english import VERB_PARTICLES as _VERB_PARTICLES
from lectern.english import VERBS as _VERBS
from lectern.english import word_set as _word_set
from lectern.ordinals import (
    COUNTING,
    ORDINALS,
    SAYS_ABOUT,
    kind_named_before,
    kind_of_the_listed,
    one_asked_for,
    ordinal_of_the_listed,
    page_asked_again,
    part_asked_about,
    picks_by_place,
)
from lectern.situations import asks_of_a_situation, cuts_a_measure, it_for_the_event, measure_for_that
from lectern.swaps import (
    and_phrase,
    corrected_words,
    correction,
    correction_then_question,
    noun_phrase_of,
    phrase_span,
    swap_phrase,
    swapped_question,
    what_about,
)

_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9_+#./-]*[A-Za-z0-9+#]|[A-Za-z0-9]")

STOP_WORDS = _word_set(
    """
    a about above after again against all am an and any are as at be because been before being below
    between both but by can could did do does doing down during each few for from further had has have
    having he her here hers herself him himself his how i if in into is it its itself just let me more
    most my myself no nor not now of off on once only or other our ours ourselves out over own same she
    should so some such than that the their theirs them themselves then there these they this those
    through to too under until up very was we were what when where which while who whom why will with
    would you your yours yourself yourselves also s t don doesn isn aren wasn weren won shall may might
    must us via vs whats what's how's it's there's i'm i've you're that's
    """
)

# Words that ask or instruct but name no topic.
GENERIC_WORDS = _word_set(
    """
    tell explain describe define definition show give example examples explain elaborate detail details
    mean means meaning more information info please thanks thank okay ok yes sure know want like need
    simpler simple terms words different difference differences compare compared comparison work works
    working used use using uses purpose point main key important kind kinds type types way ways step
    steps thing things something anything everything else further another other again summary summarise
    summarize overview list name called call happen happens happened good bad better best example instance
    case cases one ones question answer help understand understanding clarify clear basics basic concept
    concepts idea ideas mentioned said say says earlier above previous last first second why
    matter matters worth grow grows change changes affect affects differ differs relate relates related
    benefit benefits advantage advantages disadvantage disadvantages pros cons downside downsides drawback
    drawbacks upside upsides problem problems issue issues reason reasons role useful possible necessary
    recommended recommend common typical typically usually really exactly actually needed require required
    suit suits instead several many much often lot lots plenty though although anyway anyways
    always never importance significance significant effect effects impact tips practice practices
    approach approaches method methods happening kind sort overall general generally specific specifically
    """
)

# Verbs that open how-to questions; the topic is what follows them.
ACTION_WORDS = _word_set(
    """
    install set setup configure create make build run start launch write implement add use deploy
    connect test debug fix train load save visualize visualise spawn control move publish subscribe
    call define get update upgrade enable disable check find compute calculate simulate integrate
    program code handle choose select skip echo
    """
)

ANAPHORA = _word_set("it its it's they them their theirs this that these those he she him her there")
# Pronouns that stand for the whole topic and can be replaced by it.
REPLACEABLE = _word_set("it them they")

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


MIN_OWN_CONTENT_WORDS = 2
TOPIC_ROOT_CHARS = 4  # shortest shared beginning that counts as the same root ("retr" of "retry", "retries")
SELF_CONTAINED_WORDS = 4  # this many topic words of its own: a question stands alone
_TAKES_ONE = ACTION_WORDS | _word_set("pick need want have recommend prefer cancel stop pause remove delete")
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


def words(text: str) -> list[str]:
    return _WORD.findall(text)


# Either set, looked up once: `content_words` runs over every question several times an answer.
_NOT_CONTENT = STOP_WORDS | GENERIC_WORDS


def content_words(text: str) -> list[str]:
    """Words that can name a topic: not stop words, not question/instruction words."""
    return [w for w in _WORD.findall(text) if w.lower() not in _NOT_CONTENT]


def _is_specific(word: str) -> bool:
    """Proper names, acronyms, versions, code-ish words: strong signs of an own topic."""
    return (
        word[0].isupper()
        or any(c.isdigit() for c in word)
        or any(c in word for c in "_./#+")
        or (len(word) > 1 and word.isupper())
    )


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


# Words after a "one" that say how, not what: "cancel one halfway through", "pick one now".
_ADVERBS = _word_set("halfway now again instead too more less later first quickly safely anyway already")


def _noun_like(word: str) -> bool:
    return word not in STOP_WORDS and word not in _ADVERBS and not word.endswith("ly")


_ANAPHORA_WORD = re.compile(r"\b(?:" + "|".join(sorted(ANAPHORA)) + r")\b", re.IGNORECASE)


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


_INFLECTIONS = ("ing", "ed", "es", "s", "d")


# "where do I see the results?": seeing names no topic either; kept out of ACTION_WORDS, which the
# answerability and guardrail word counts share
_LOOKING = _word_set("see")


def _is_action(word: str) -> bool:
    """An action verb in any of its forms ("what gets randomized?", "how is it installed?"): it names
    no topic."""
    lowered = word.lower()
    if lowered in ACTION_WORDS or lowered in _LOOKING:
        return True
    for suffix in _INFLECTIONS:
        stem = lowered.removesuffix(suffix)
        # "running" -> "run", "setting" -> "set"
        doubled = len(stem) >= 3 and stem[-1] == stem[-2] and stem[:-1] in ACTION_WORDS
        if stem != lowered and len(stem) >= 3 and (stem in ACTION_WORDS or doubled):
            return True
    return False


def _topical_words(text: str) -> list[str]:
    """The words of `text` that name its topic: content words less actions and pronouns."""
    return [w for w in content_words(text) if not _is_action(w) and w.lower() not in ANAPHORA]


def _names_a_topic(clause: str) -> bool:
    """Whether a clause names a topic of its own without pointing back itself."""
    tokens = [w.lower() for w in words(clause)]
    topical = [w for w in content_words(clause) if w.lower() not in ACTION_WORDS]
    return bool(topical) and not any(t in ANAPHORA for t in tokens) and _pronoun_one(tokens) is None


_LEADS = re.compile(
    r"^\s*(?:(?:can|could|would)\s+you\s+)?(?:please\s+)?"
    r"(?:what\s+(?:is|are|was|were|does|do)\s+(?:an?\s+|the\s+)?"
    r"|what's\s+(?:an?\s+|the\s+)?"
    r"|who\s+(?:is|are)\s+"
    r"|tell\s+me\s+(?:more\s+)?about\s+(?:the\s+)?"
    r"|explain\s+(?:to\s+me\s+)?(?:what\s+)?(?:an?\s+|the\s+)?"
    r"|describe\s+(?:an?\s+|the\s+)?"
    r"|define\s+(?:an?\s+|the\s+)?"
    r"|how\s+(?:do|does|can|should|would|could)\s+(?:i|we|you|one)\s+"
    r"|how\s+(?:do|does|is|are|can)\s+(?:an?\s+|the\s+)?"
    r"|why\s+(?:do|does|is|are|should)\s+(?:an?\s+|the\s+)?"
    r"|which\s+"
    r")",
    re.IGNORECASE,
)
_TRAILING = re.compile(
    r"\s+(?:work|works|do|does|mean|means|used\s+for|for|in\s+(?:this|the)\s+(?:book|documents?|course|textbook))\s*$",
    re.IGNORECASE,
)

_ARTICLES = frozenset({"a", "an", "the"})
_ASKS_WHICH = frozenset({"what", "which", "whose"})
# What a contraction leaves of a word ("I'm" -> "I", "m"): no part of a topic.
_CONTRACTION_RESTS = frozenset({"m", "re", "ve", "ll", "d"})
_WHAT_DOES = re.compile(r"^\s*what\s+(?:does|do|did)\s+(.+?)\s+do\b.*$", re.IGNORECASE)


def _relative_clause_end(tokens: list[str]) -> bool:
    """Whether the last two words are a modal and its verb after a noun or name ("... engines Gazebo can
    use"): the end of a clause that says which things, not words to trim."""
    return (
        len(tokens) >= 3
        and tokens[-2].lower() in MODALS
        and tokens[-1].lower() not in STOP_WORDS
        and tokens[-3].lower() not in STOP_WORDS
        and tokens[-3].lower() not in GENERIC_WORDS
    )


# Generic words that are verbs ("what does X mean?", "how does it work?") but nouns after an article,
# and then may open a compound noun: "the mean squared error", "the work queue", "the change log".
_GENERIC_VERBS = _word_set("mean work use call change help need list name show set")
# Generic words that are no noun: they never end a thing's name ("what is a robot again?").
_NOT_NOUNS = _word_set(
    "again else further more instead too anyway please thanks exactly really though then now also much many"
)


def _opens_compound(tokens: list[str]) -> bool:
    """ "the mean squared error": a generic verb right after an article, before a word of the topic, is
    the first noun of a compound, not a word that asks ("mean")."""
    nxt = tokens[1].lower() if len(tokens) > 1 else ""
    return (
        tokens[0].lower() in _GENERIC_VERBS
        and bool(nxt)
        and nxt not in STOP_WORDS | GENERIC_WORDS
        and tokens[1].islower()
    )


def _ends_compound(tokens: list[str]) -> bool:
    """ "a reserved instance", "the stale read case": a generic noun after a word of the topic, when the
    question defines what an article opens, is the head of the thing named (a reserved instance is an
    instance), not a word that asks; not an adverb ("again", "exactly")."""
    last = tokens[-1].lower()
    before = tokens[-2] if len(tokens) > 1 else ""
    return (
        last in GENERIC_WORDS
        and last not in STOP_WORDS
        and not last.endswith("ly")
        and last not in _NOT_NOUNS
        and before.islower()
        and before.lower() not in STOP_WORDS | GENERIC_WORDS
    )


def topic_of(question: str) -> str:
    """The question's subject as a phrase: "What is Gazebo Harmonic?" -> "Gazebo Harmonic";
    "How do I install ROS 2 on Ubuntu?" -> "ROS 2 on Ubuntu" (for searching) . Empty when it has none."""
    text = question.strip().rstrip("?.! ")
    lead = _LEADS.match(text)
    stripped = text[lead.end() :] if lead else text
    does = _WHAT_DOES.match(text)
    if does:
        stripped = does.group(1)  # "What does cuVSLAM do on a humanoid?" is about cuVSLAM
    stripped = _TRAILING.sub("", stripped)
    tokens = words(stripped)
    # Drop a leading how-to verb and any leading stop/generic words: the rest is the topic. A verb after
    # an article is a noun ("What is a launch file?"), and the lead may end with that article.
    lead_words = lead.group(0).split() if lead else []
    after_article = bool(lead_words) and lead_words[-1].lower() in _ARTICLES | _ASKS_WHICH
    defines = after_article
    while tokens and (
        (tokens[0].lower() in ACTION_WORDS and not after_article)
        or tokens[0].lower() in STOP_WORDS
        or (
            tokens[0].lower() in GENERIC_WORDS
            and not (after_article and _opens_compound(tokens))
            and not _described_after(tokens)
        )
        or tokens[0].lower() in _CONTRACTION_RESTS
    ):
        # "what load balancer types ...": after "what" or "which", a how-to verb is a noun too
        after_article = tokens[0].lower() in _ARTICLES | _ASKS_WHICH
        tokens = tokens[1:]
    # A capitalised word ends a name ("the Capture Point", "Key Topics"): it stays. So does a clause that
    # says which things ("the physics engines Gazebo can use"): a modal and its verb after a noun.
    while tokens and (
        tokens[-1].lower() in STOP_WORDS or (tokens[-1].lower() in GENERIC_WORDS and tokens[-1].islower())
    ):
        if _relative_clause_end(tokens) or (defines and _ends_compound(tokens)):
            break
        tokens = tokens[:-1]
    if not tokens:
        return ""
    # Keep the original spelling between the first and last kept word.
    start = stripped.find(tokens[0])
    end = stripped.rfind(tokens[-1]) + len(tokens[-1])
    phrase = stripped[start:end] if 0 <= start < end else " ".join(tokens)
    return " ".join(phrase.split())


def _described_after(tokens: list[str]) -> bool:
    """Whether the plain words that open `tokens` are what a participle after them describes ("key
    concepts | listed in the guide", "main topics | covered in ..."): the thing, not a word to drop."""
    i = next((i for i, w in enumerate(tokens) if w.lower() not in GENERIC_WORDS), len(tokens))
    if i == 0 or i == len(tokens):
        return False
    word = tokens[i].lower()
    return (word.endswith("ed") and len(word) > 4) or word in _PARTICIPLES


def refusal_topic(question: str) -> str:
    """What a refusal says it has no information about."""
    text = question.strip().rstrip("?.! ")
    how_to = _HOW_TO.match(text)
    if how_to:
        return "how to " + " ".join(how_to.group(1).split())
    topic = topic_of(question)
    if topic and len(content_words(topic)) >= 1:
        return topic
    own = content_words(question)
    return " ".join(own) if own else "that"


def standalone_query(question: str, previous_questions: Sequence[str]) -> str:
    """The search query for `question` given the earlier user questions of the conversation (oldest first)."""
    question = " ".join(question.split())
    if correction_then_question(question) is not None:
        # "no, I meant Isaac Sim, how do I install that?": a question of its own about the thing it
        # names, which stands alone and is searched as asked (its "that" is no doing of the previous turn)
        return question
    if not previous_questions or not _leans_on(question, previous_questions[-1]):
        return question
    # "how come?" asks why; "come" is no word of the topic to search for
    return _with_previous(_HOW_COME.sub("why", question), previous_questions)


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


def _singular(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def _unknown_in_english(word: str) -> bool:
    """A lower-case word general English never uses ("pytest", "kubectl", "rosbag"): a tool's name,
    which a question after a report names as its own topic, as it would "Pytest"."""
    return len(word) >= 4 and word.isalpha() and word.islower() and word_frequency.zipf(word) == 0.0


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


# What a rewrite puts after the question in brackets: "what resolution does camera example use (sensor
# simulation)?".
_BRACKETED_TAIL = re.compile(r"\s*\([^()]*\)(?=[?.!]*\s*$)")


def without_context(query: str, question: str) -> str:
    """The rewritten `query` without the context the rewrite put after it in brackets ("what resolution
    does camera example use (sensor simulation)?" -> "what resolution does camera example use?"); the
    query itself when it has none, when the brackets are the question's own, or when the rest names
    too little to search on ("Can you give an example (URDF)?": without them nothing says what about)."""
    match = _BRACKETED_TAIL.search(query)
    if match is None or query == question or match.group(0).strip() in question:
        return query
    bare = query[: match.start()] + query[match.end() :]
    topical = [w for w in content_words(bare) if w.lower() not in ACTION_WORDS | ANAPHORA]
    return bare if len(topical) >= MIN_OWN_CONTENT_WORDS else query


def has_pronoun(text: str) -> bool:
    """Whether `text` has an "it", "them" or "they": a query without the brackets that say what the
    pronoun stands for ("which tools does it suggest for looking into it?") searches for nothing in
    particular, though its words still say what to pick from passages already found."""
    return any(w.lower() in REPLACEABLE for w in words(text))


def with_previous_topic(question: str, previous_questions: Sequence[str]) -> str:
    """`question` with the previous turn's topic, even when it reads as self-contained: a second try for
    a question the documents cannot answer as asked ("when should I pick small over base?" after "What
    Whisper model sizes are there?"). The question itself when there is no earlier turn."""
    question = " ".join(question.split())
    return _with_previous(question, previous_questions) if previous_questions else question


def with_previous_doing(question: str, previous_questions: Sequence[str]) -> str | None:
    """The query for a follow-up whose "that" stands for what the previous answer proposed: "does that
    hurt accuracy much?" after "How do I make Whisper run faster on my GPU?" asks about the way to do it,
    so the query carries the whole doing ("... to make Whisper run faster on my GPU"), not the words
    after the verb. None when the previous question is no how-to, or the follow-up names the previous
    topic with a pronoun of its own ("how do I undo it?")."""
    question = " ".join(question.split())
    if not previous_questions or not is_followup(question):
        return None
    return _with_doing(question, standalone_query(previous_questions[-1], previous_questions[:-1]))


def _with_doing(question: str, previous: str) -> str | None:
    doing = _HOW_TO.match(previous.rstrip("?.! "))
    if not doing or not _DEMONSTRATIVE_SUBJECT.search(question) or _names_the_topic(question):
        return None
    stripped = question.rstrip("?.! ")
    return f"{stripped} to {' '.join(doing.group(1).split())}{question[len(stripped) :]}"


def _bare_setting(question: str) -> bool:
    """ "on Windows?", "for international students?": a bare phrase of a setting; a "for" or "as" one
    names a thing ("for example?", "as well?" are turns of speech)."""
    if not _BARE_SETTING.match(question):
        return False
    opener, _, rest = question.strip().partition(" ")
    return opener.lower() not in {"for", "as"} or bool(content_words(rest))


def _asks_of_the_doing(question: str, previous: str) -> bool:
    """Whether a question after a how-to (`previous`) asks of the whole doing ("roll back a deployment"),
    not of its object ("deployment"):
    - it names no thing, only how far or a verb with its particle: "how far back can I go?" after "how do
      I roll back a deployment?", "can I opt out later?" after "how do I enrol in the pension plan?";
    - "is there a fee?" after "how do I cancel a booking ...?": a fee for cancelling, not a booking fee;
    - a step left out: "can I skip creating an account?" after "how do I set up the e-reader ...?";
    - a need: "do I need the vet's receipts?" after "how do I make a claim on my pet insurance?";
    - what qualifies: "what documents count as proof of address?" after "how do I register my child ...?";
    - what follows: "will I lose my contacts?" after "how do I reset the phone to factory settings?";
    - a name the swaps left alone: "and PETG?" after "how do I load PLA?" may be another thing to do it
      to or a place to do it in ("and Windows?" after "how do I install Gazebo?"); either way it asks
      of the doing, which the bare object ("PLA") leaves out."""
    if _names_only_doing(question) or _IS_THERE_BARE.match(question) or _WHAT_FOLLOWS.match(question):
        return True
    if _LEAVES_OUT.search(question) and not _ANAPHORA_WORD.search(question):
        return True
    if _asks_need_of_doing(question, previous) or _asks_what_qualifies(question, previous):
        return True
    name = noun_phrase_of(question)
    return name is not None and all(_is_specific(w) for w in words(name))


def _with_previous(question: str, previous_questions: Sequence[str]) -> str:
    previous_questions = [purpose_as_infinitive(q) for q in previous_questions]
    if _bare_setting(question):
        # "in a virtual environment?" is read as "and in a virtual environment?", without the "and"
        query = _with_previous(f"and {question}", previous_questions)
        return query[4:] if query.lower().startswith("and ") else query
    previous = standalone_query(previous_questions[-1], previous_questions[:-1])
    picked_one = _the_one_picked(question, previous_questions)
    if picked_one is not None:
        return picked_one
    doing = (
        _another_doing(question, previous)
        or _another_measure(question, previous)
        or _the_doing_for_it(question, previous)
    )
    if doing is not None:
        return doing
    listed = ordinal_of_the_listed(question, previous)
    if listed is not None:
        # "and the sixth?" after "what are the learning outcomes of the module?": the sixth learning
        # outcome, the plural head kept singular, not "the sixth" in its place
        return listed
    one = one_asked_for(question, previous)
    if one is not None:
        # "how much does that one cost?" after "which blender size does the cookbook recommend?": the
        # blender size it recommends, not "the one"
        return one
    kind_named = kind_named_before(question, previous)
    if kind_named is not None:
        # "how do I create the async one?" after "... a sync client and an async client?": the async
        # client, not the previous question's subject ("library")
        return kind_named
    kind = kind_of_the_listed(question, previous)
    if kind is not None:
        # "which version of the URDF one?" after "which Robotics Hub packages do I add to Unity?": the
        # URDF package, the previous subject in brackets
        question = kind
    part = part_asked_about(question, previous)
    if part is not None:
        # "what's the goal of that part?" after "what does the final project say about manipulation?":
        # the manipulation part, not the final project
        return part
    page = page_asked_again(question, previous)
    if page is not None:
        # "what else does it cover?" after "what does the setup guide say about backups?": the guide
        return page
    meant = corrected_words(question)
    if meant is not None and swapped_question(previous, question) is None:
        # "no, I meant the thing it ends up learning, its strategy": no part of the previous question to
        # swap, so what was meant is asked in the previous question's setting (what the previous
        # question asked of it is what the reader did not mean)
        head, context = subject_parts(previous)
        setting = context or head
        return f"{meant} ({setting})?" if setting else f"{meant}?"
    phrase = and_phrase(question)
    if phrase and _FOR_A_DOING.match(phrase) and swap_phrase(previous, phrase) is None:
        # "and for walking around?" asks the same of another purpose, which the previous question's
        # doing does not take after it ("... move the robot's arms for walking around"); "and for
        # medicine?", "for international students?" ask it of another thing, which it does
        phrase = None
    # "and on a real robot, where do ... come from?" asks a question of its own after the phrase
    compared = _COMPARED.match(question)
    other = (
        what_about(question)
        or (phrase if phrase and "," not in phrase else None)
        or (compared.group(1) if compared else None)
    )
    if other is not None:
        # "What about on Windows?", "and at half speed?" ask the previous question again about something
        # else.
        swapped = _named_in_clause(_swapped(previous, question), previous)
        if swapped is None and _is_statement(previous):
            # "what about running it on the GPU?" after "Whisper is too slow on my laptop": a report is
            # no question to ask again, so the follow-up is asked after it, as any follow-up to a report
            return _after_statement(question, previous)
        if swapped is None and "(" not in previous and _is_bare_thing(other):
            # "what about slopes?" after "how high a step can a two-legged robot take ...?": a thing
            # glued after the last words reads as part of them ("... its path slopes"), so the follow-up
            # is asked as it stands with the previous question after it in brackets
            return _after_statement(question, previous)
        return swapped or f"{previous.rstrip('?.! ')} {other}?"
    # "and in Isaac Sim?", "and the motor commands?": the previous question asked again about the new thing
    swapped = _named_in_clause(_swapped(previous, question), previous)
    if swapped:
        return swapped
    doing = _with_doing(question, previous)
    if doing is not None:
        return doing  # "does that hurt accuracy much?" after a how-to: "that" is the doing, not a thing
    picked = _picked_of_two(question, " ".join(previous_questions[-1].split()))
    if picked is not None:
        return picked
    anchor = _anchor(previous_questions, question)
    raw = " ".join(previous_questions[-1].split())
    if anchor != raw and has_pronoun(question) and _asks_of_another_thing(raw, previous):
        # "do they need a tax form?" after "what about contractors?" after "how do I add a new employee
        # ...?": the pronoun is the thing the last turn swapped in, so the last turn as read is the anchor
        anchor = previous
    if _is_statement(anchor):
        return _after_statement(question, anchor)
    head, context = subject_parts(anchor)
    topic = _subject_phrase(anchor)
    if anchor == raw and previous != raw and ("(" not in previous or _PLURAL_PRONOUN.search(question)):
        # "and how much RAM?" after "what GPU do I need for it?" after "How do I install Isaac Sim?": the
        # previous turn's subject ("GPU"), and what its pronoun stood for ("Isaac Sim") as its setting
        kept = {w.lower() for w in words(raw)}
        extra = [w for w in _tokens(previous) if w.lower() not in kept and w.lower() not in STOP_WORDS]
        if extra:
            added = " ".join(extra)
            context = f"{context}, {added}" if context else added
            topic = f"{topic}, {added}" if topic else added
    owner = _owner_of_things(anchor)
    if owner is not None and _SINGULAR_PRONOUN.search(question) and not _PLURAL_PRONOUN.search(question):
        # "how long should it keep location data?" after "what kinds of personal data does a home robot
        # collect?": one "it" is the one that has the things, not the things
        head, context = owner
        topic = f"{head} {context}"
    if anchor == previous and _WHAT_PASSED_ON.match(anchor) and _SINGULAR_PRONOUN.search(question):
        # "can I switch it off?" after "what does Grafana send to Slack?": "it" is what is sent (or the
        # sending), which the whole question describes; cut into a subject it loses its verb
        return _after_statement(question, anchor)
    if _reports_first(anchor) or _asks_back_after_a_question(anchor):
        # "my simulated humanoid shakes uncontrollably even with nothing pushing it, is there an exercise
        # on that?": a question after a report of its own is followed up like a report, whole
        return _after_statement(question, anchor)
    standing = previous == " ".join(previous_questions[-1].split())
    if standing and _WHY_THAT.match(question) and _picks_one(previous) and not _before_a_verb(question):
        # "why is that so hard?" after "what's the hardest part of hooking a planner up to a robot?": the
        # "that" is the part the answer picked, which the whole question describes, not the words it
        # picked among ("why does that help?" after "What is intermittent fasting?" is about the fasting)
        return _after_statement(question, previous)
    if standing and _ASKS_ADVICE.search(previous) and _THAT_ADVISED.match(question):
        # "what makes that the better choice?" after "what does the course recommend for structuring the
        # system?": "that" is what the answer recommended, which the whole question describes, not the
        # one who recommends it
        return _after_statement(question, previous)
    if standing and _ASKS_A_DOING.match(previous) and _bare_demonstrative(question):
        # "can I change that?" after "What does the robot do when the user is silent?": "that" is what
        # the robot does then, which the whole question describes, not the robot
        return _after_statement(question, previous)
    if standing and _asks_yes_or_no(previous) and _that_for_what_was_asked(question):
        # "so what should I use for that?" after "can a URDF describe a whole room with furniture in
        # it?": "that" is what the whole question asked about (describing the room), not its subject
        return _after_statement(question, previous)
    if (
        standing
        and _that_for_what_was_asked(question)
        and (asks_of_a_situation(previous) or cuts_a_measure(question, previous))
    ):
        # "isn't that slow though?" after "when should the robot redo its whole route ...?": "that" is
        # the doing or event asked about, not a noun cut from it (a clause glued in reads as nothing);
        # "how can I cut that down?" cuts the measure the question named ("memory")
        return _after_statement(measure_for_that(question, previous), previous)
    if standing and it_for_the_event(question, previous):
        # "how do I avoid it?" after "why does the arm overshoot the target ...?": "it" is the event the
        # question asked about, which the whole question describes, not its doer ("the arm")
        return _after_statement(question, previous)
    each = _one_of_each(question, previous) if standing else None
    if each is not None:
        # "what's due at the end of the second one?" after "how many weeks does each stage of the final
        # project take?": one of the stages, not of the weeks counted for each
        return _after_statement(each, previous)
    if standing and _WHAT_IF.match(question):
        # "what if I hand one in late?" after "what format do my code submissions need to follow?": the
        # same situation with one thing changed, so the whole question is its setting
        return _after_statement(_what_if_named(question, previous), previous)
    how_to = _doing_asked(previous)
    if standing and how_to and _asks_of_the_doing(question, previous):
        return _after_statement(question, " ".join(how_to.group(1).split()))
    if _asks_nothing_of_its_own(question) and "(" not in previous and not _covers(topic, previous):
        # "give me an example", "why?" after a question that stood alone: nothing of its own to place a
        # subject in, and the subject cut out of the question lost some of its words ("keep" in "how do
        # I keep the robot from doing something dangerous ...?"), so the whole question comes instead
        return _after_statement(question, previous)
    if not head:
        head = topic = topic_of(previous) or " ".join(content_words(previous))
    if not head:
        return question
    if (
        standing
        and _says_of_it(head, _BE if how_to else _PASSIVE_BE)
        and any(w.lower() in REPLACEABLE for w in words(question))
    ):
        # "what does it print when the file is fine?" after "how do I check that my URDF file is valid?":
        # a pronoun stands for a thing, never for a clause ("URDF file is valid", "piano be tuned"); the
        # pronoun stays and the whole doing or question comes in brackets
        return _after_statement(question, " ".join(how_to.group(1).split()) if how_to else previous)
    own = {w.lower() for w in content_words(question)}
    named = content_words(topic)
    if topic.lower() in question.lower() or (own and named and all(w.lower() in own for w in named)):
        return question
    return _rewrite(question, head, context, topic)


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


def _the_one_picked(question: str, previous_questions: Sequence[str]) -> str | None:
    """ "which controller does it use?" after "what are the chapters of module 3?" and "which one is about
    planning paths?": "it" is the one the last turn picked, described by that turn's words, among the
    things the turn before asked for (not those things). None for any other conversation."""
    if len(previous_questions) < 2 or not _SINGULAR_PRONOUN.search(question):
        return None
    picked = _WHICH_ONE.match(" ".join(previous_questions[-1].split()))
    if picked is None or _PLURAL_PRONOUN.search(question):
        return None
    said = picked.group(2)
    described = f"the one {said}" if picked.group(1) else f"the one that {said}"
    among = _subject_phrase(_anchor(previous_questions[:-1]))
    return _after_statement(question, f"{described}, {among}" if among else described)


# Words no thing's name is made of (a person, a pronoun, a small word) and, with the auxiliaries and
# question words, words no subject right after an auxiliary is made of.
_NOT_A_THING = _PRONOUN_I | ANAPHORA | STOP_WORDS
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


def _is_bare_thing(phrase: str) -> bool:
    """Whether a "what about ...?" names a common thing ("slopes", "the ankles"), not a phrase of a
    setting ("on Windows", "when it rains", "compared to Vosk") that reads well after the previous
    question's last words, nor a name ("Windows": where, which the previous question takes after it)."""
    tokens = phrase.split()
    first = tokens[0].lower() if tokens else ""
    setting = _PREPOSITIONS | _SUBORDINATE | _SETTING_OPENERS | _word_set("to compared versus vs")
    return bool(first) and first not in setting and not any(_is_specific(w) for w in words(phrase))


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


# How a question opens (what a statement does not): a question word, an auxiliary, a request.
_QUESTION_OPENERS = (
    QUESTION_WORDS
    | AUXILIARIES
    | _word_set("am shall tell explain describe show give list compare define any anything")
)
_FILLERS = _word_set("so ok okay and but hmm well also then hi hey please")


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


def _is_statement(text: str) -> bool:
    """ "my robot blows up the moment the simulation starts": a turn that reports something instead of
    asking, so it has no subject to put in a pronoun's place (the next turn's "it" may be the robot,
    its "that" the whole report)."""
    if text.rstrip().endswith("?"):
        return False
    tokens = [w.lower() for w in words(text) if w.lower() not in _FILLERS]
    return bool(tokens) and tokens[0] not in _QUESTION_OPENERS


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


# Words that make a question pick one of many: "the hardest part of ...", "the best way to ...".
_SUPERLATIVES = _word_set(
    """
    best worst main most least biggest hardest easiest simplest fastest slowest cheapest safest largest
    smallest greatest highest lowest top minimum maximum min max
    """
)


_INSTEAD_END = re.compile(r"\binstead\s*[?.!]*\s*$", re.IGNORECASE)


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


# Words that may end a short predicate ("isn't that slow though?").
_PREDICATE_ENDS = _word_set("though then too enough anyway really still")


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


_HOW_TO = re.compile(r"^\s*how\s+(?:do|can|should|would|could)\s+(?:i|we|you|one)\s+(.+)$", re.IGNORECASE)
# "can I defer my offer?", "should we pin our dependencies?": a yes/no question about what the reader
# may do, whose doing a follow-up leans on as it leans on a how-to's ("for how long?"). Not "do I need
# ...": a need is no doing.
_PERSON_YES_NO = re.compile(
    r"^\s*(?:can|could|should|may|must)\s+(?:i|we)\s+(?:(?:just|really|still|also|ever)\s+)?(.+)$",
    re.IGNORECASE,
)
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


# --- the previous turn's subject, for rewriting follow-ups --------------------------------------------

# Words that name the documents themselves, not a topic in them ("which options does the book list").
_META_WORDS = _word_set(
    "book books chapter chapters section sections module modules guide document documents course courses"
    " textbook textbooks tutorial tutorials"
)
_NUMBER = re.compile(r"^\d+(?:\.\d+)*$")


def _numbered(tokens: list[str], i: int) -> bool:
    """Whether the document word at `i` is named by the number after it ("module 4", "chapter 12.3"): the
    name of one part, which stays in a subject."""
    return i + 1 < len(tokens) and _NUMBER.match(tokens[i + 1]) is not None


def _without_meta(tokens: list[str]) -> list[str]:
    """`tokens` without the words for the documents themselves ("the book's example", "the course"),
    but with a numbered part ("module 4 summary")."""
    return [w for i, w in enumerate(tokens) if w.lower() not in _META_WORDS or _numbered(tokens, i)]


_PARTICLES = _word_set("up like out down off")
_SPLIT_PARTICLES = _word_set("back away")
_AUX = r"(?:does|do|did|can|could|will|would|should)"
# "Which physics engines does Isaac Sim use?", "how many vacation days do I get?": the things asked for,
# then who has them.
_WHICH_NOUNS = re.compile(
    rf"^\s*(?:which|what|how\s+many|how\s+much)\s+(?!{_AUX}\b|is\b|are\b)(.+?)\s+{_AUX}\s+(.+)$",
    re.IGNORECASE,
)
# Where the doing of a "which X does Y <verb> ..." ends: a preposition ("leave between itself and the walls").
_CUT_AT = _PREPOSITIONS | _word_set("between among against without within toward towards")
_WHAT_DOES_X = re.compile(rf"^\s*(?:what|how|why)\s+{_AUX}\s+(.+)$", re.IGNORECASE)
# "Once the node is running, what does it publish?", "In the RL chapter, how is the state defined?"
_LEAD_CLAUSE = re.compile(
    r"^\s*([^,]+),\s*((?:what|which|how|why|when|where|who|is|are|does|do|can)\b.+)$", re.IGNORECASE
)
# "when is Unity a better pick than Gazebo?", "why is the robot a hazard here?": the subject, then what
# the question says it is.
_COPULA_PREDICATE = re.compile(
    r"^\s*(?:when|why|where)\s+(?:is|are|was|were)\s+(.+?)\s+(?:a|an|the)\s+(.+)$", re.I
)
# "why is it so hard for a robot to walk on two legs?", "is it possible for the node to restart itself?":
# an "it" that stands for the "to" clause after whom it is said of.
_IT_FOR_TO = re.compile(
    r"^\s*(?:(?:why|how|when)\s+)?(?:is|was|isn['\u2019]t|wasn['\u2019]t)\s+it\s+(?:\w+\s+){1,3}?"
    r"for\s+(.+?)\s+to\s+(.+)$",
    re.IGNORECASE,
)
_USED_FOR = re.compile(r"\s+(?:used|good|meant)\s+for\b", re.IGNORECASE)
# Words that end a head noun phrase: a preposition, a comparison, a clause ("chain-of-thought prompting
# when an LLM plans").
_ENDS_HEAD = _PREPOSITIONS | _word_set("rather than instead versus vs when while where if whether as")
# Words with their apostrophes ("Unity's"), so that phrases keep their spelling.
_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_+#./'\u2019-]*[A-Za-z0-9+#]|[A-Za-z0-9]")


def _tokens(text: str) -> list[str]:
    return _TOKEN.findall(text)


def _strip_edges(tokens: list[str]) -> list[str]:
    while tokens and (
        tokens[0].lower() in STOP_WORDS
        or (tokens[0].lower() in _META_WORDS and not _numbered(tokens, 0))
        # "to use an LLM as ...": the verb before an article is no part of the thing
        or (len(tokens) > 1 and tokens[0].lower() in _VERBS and tokens[1].lower() in _DETERMINERS)
        # "roll back a deployment", "give away the old phone": the particle of a phrasal verb, not the thing
        or (len(tokens) > 1 and tokens[0].lower() in _SPLIT_PARTICLES and tokens[1].lower() in _DETERMINERS)
    ):
        tokens = tokens[1:]
    while tokens and (tokens[-1].lower() in STOP_WORDS or tokens[-1].lower() in _PARTICLES):
        tokens = tokens[:-1]
    return tokens


def _verb_at(tokens: list[str], *, last: bool = False) -> int | None:
    """Index of the first (or `last`) common verb after a subject of at least one word (not right after
    a determiner, where it is a noun: "the build")."""
    order = range(len(tokens) - 1, -1, -1) if last else range(len(tokens))
    for i in order:
        token = tokens[i]
        if i == 0 or token.lower() not in _VERBS:
            continue
        if tokens[i - 1].lower() in _DETERMINERS or tokens[i - 1].lower() in _PREPOSITIONS:
            continue
        return i
    return None


_CLAUSE_WORDS = _SUBORDINATE | _word_set("where while that which who")
_DOING_MARK = "\x00"  # where the subject of "how does X do Y" ends, for `subject_parts`


# "make the robot turn", "let the node run": the thing, then what it is made to do.
_CAUSATIVES = _word_set("make let help get have")


def _subject_phrase(text: str) -> str:
    return _marked_subject(text).replace(f" {_DOING_MARK}", "")


def _marked_subject(text: str) -> str:
    """The question's subject for a follow-up to lean on: the thing asked about, without the verbs
    and the document words around it. "Which physics engines does Isaac Sim use?" -> "Isaac Sim
    physics engines"; "What does the camera example set up?" -> "camera example"; "How do I open RViz2
    to look at the output?" -> "RViz2 to look at the output"."""
    text = " ".join(text.strip().rstrip("?.! ").split())
    lead = _LEAD_CLAUSE.match(text)
    if lead:
        main = _marked_subject(lead.group(2))
        if main and not any(w.lower() in ANAPHORA for w in words(main)):
            # "In the RL chapter, how is the state defined?": the opening clause narrows the subject
            setting = _without_meta(_strip_edges(_tokens(lead.group(1))))
            return f"{main} in {' '.join(setting)}" if setting else main
        # "Once the node is running, what does it publish?": the opening clause's subject
        opening = _strip_edges(_tokens(lead.group(1)))
        end = next((i for i, w in enumerate(opening) if i > 0 and w.lower() in AUXILIARIES), len(opening))
        return " ".join(_strip_edges(opening[:end]))
    text = _USED_FOR.sub("", text)
    says = SAYS_ABOUT.match(text)
    if says is not None:
        # "what does the database guide say about schema migrations?": the migrations are what is talked
        # about, the guide where ("how do I roll them back?" rolls the migrations back)
        focus = _strip_edges(_tokens(says.group("focus")))
        where = _without_meta(_strip_edges(_tokens(says.group("doc"))))
        if focus:
            return " ".join([*focus, _DOING_MARK, *where]) if where else " ".join(focus)
    expletive = _IT_FOR_TO.match(text)
    if expletive:
        # "why is it so hard for a robot to walk on two legs?": the "it" stands for the "to" clause, the
        # subject is the one the clause is said of, its doing what is said of it
        subject = _without_meta(_strip_edges(_tokens(expletive.group(1))))
        doing = _strip_edges(_tokens(expletive.group(2)))
        if subject and doing:
            return " ".join([*subject, _DOING_MARK, *doing])
    copula = _COPULA_PREDICATE.match(text)
    if copula and _tokens(copula.group(1))[-1].lower() not in STOP_WORDS:
        # "when is Unity a better pick than Gazebo?": what is said of the subject is no part of it
        subject, said = _strip_edges(_tokens(copula.group(1))), _strip_edges(_tokens(copula.group(2)))
        return " ".join([*subject, _DOING_MARK, *said]) if said else " ".join(subject)
    which = _which_parts(text)
    if which is not None:
        subject, nouns, after = which
        return " ".join(_strip_edges([*subject, *nouns, *after]))
    asks_who = _WHAT_THEN_WORDS.match(text)
    if asks_who:
        done_to = _what_as_subject(_tokens(asks_who.group(1)))
        if done_to is not None:
            return done_to
        picked = _which_one_does(_tokens(asks_who.group(1))) if text.lower().startswith("which") else None
        if picked is not None:
            return picked
    measure = _HOW_MEASURE_AUX.match(text)
    if measure:
        return _measured_subject(text, measure.group(1), measure.group(2), measure.group(3))
    does = _WHAT_DOES_X.match(text)
    if does:
        tokens = _tokens(does.group(1))
        while len(tokens) > 2 and tokens[0].lower() in _PRONOUN_I and tokens[1].lower() in _HEDGES:
            # "can I just use SQLite ...?", "do I really need a GPU ...?": the verb comes after the hedge
            tokens = [tokens[0], *tokens[2:]]
        if len(tokens) > 3 and tokens[0].lower() in _PRONOUN_I and _NEEDS_TO.match(" ".join(tokens[1:3])):
            # "what do I need to configure in the router?": the need is no doing, the verb after it is
            # ("what should I configure in the router?"), so a follow-up's "it" is the router
            tokens = [tokens[0], *tokens[3:]]
        if tokens and tokens[0].lower() in _PRONOUN_I and len(tokens) > 1:
            # "how do I open RViz2": what comes after the verb, whatever verb it is ("how do I attach
            # stereo cameras" is about the cameras); "why would I randomize textures" keeps a common
            # verb of its own
            drop_verb = tokens[1].lower() in _VERBS | ACTION_WORDS or text.lower().startswith("how")
            doing = tokens[2:] if drop_verb else tokens[1:]
            verb = _verb_at(doing) if tokens[1].lower() in _CAUSATIVES else None
            if (
                verb is not None
                and _strip_edges(doing[:verb])
                and not any(w.lower() in _PREPOSITIONS for w in doing[:verb])
            ):
                # "how do I make the robot turn its head toward the speaker": the robot, and its doing
                return " ".join([*_strip_edges(doing[:verb]), _DOING_MARK, *doing[verb:]])
            return " ".join(_strip_edges(doing))
        passive = next(
            (
                i
                for i, w in enumerate(tokens)
                if i > 0 and w.lower() in _PASSIVE_BE and _strip_edges(tokens[:i])
            ),
            None,
        )
        if passive is not None:
            # "how should the launch files be organised?": the files, and what is done to them; not
            # "launch files be organised" as one thing
            return " ".join([*_strip_edges(tokens[:passive]), _DOING_MARK, *tokens[passive:]])
        # "what does a cover letter look like?": the verb is the last one ("cover" is a noun there);
        # "how does the robot collect details over several turns?": the first one
        verb = _verb_at(tokens, last=text.lower().startswith("what"))
        first = _verb_at(tokens)
        in_clause = verb is not None and any(w.lower() in _CLAUSE_WORDS for w in tokens[:verb])
        if first is not None and in_clause and _strip_edges(tokens[:first]):
            # "what should the robot do when it loses track of where it is?": the last verb is inside
            # the clause ("track"); the subject ends at the first, and the clause is what it is about
            return " ".join([*_strip_edges(tokens[:first]), _DOING_MARK, *tokens[first:]])
        if verb is not None:
            subject = _strip_edges(tokens[:verb])
            rest = tokens[verb + 1 :]
            if not subject or all(w.lower() in _META_WORDS for w in subject):
                return " ".join(_strip_edges(rest))  # "how does the book turn X into Y": about X
            if not text.lower().startswith("what"):
                # "how does the robot collect missing details?": the doing is the subject's topic,
                # after the head ("robot") that a pronoun stands for
                return " ".join([*subject, _DOING_MARK, *tokens[verb:]])
            if any(_is_specific(w) for w in rest):
                return " ".join(_strip_edges([*subject, *rest]))
            return " ".join(subject)
        if (
            len(tokens) > 2
            and not tokens[0].islower()
            and tokens[1].isalpha()
            and tokens[1].islower()
            and not looks_plural(tokens[1])
            and tokens[2].lower() in _PREPOSITIONS
        ):
            # "what does DDS bring to ROS 2?": a lowercase word after a name and before a preposition is
            # the name's verb (not "the tax app import from ...", where a noun can be read too); the
            # doing goes with the thing, not into it
            return " ".join([tokens[0], _DOING_MARK, *tokens[1:]])
        unlisted = _unlisted_verb(tokens)
        if unlisted is not None:
            # "what does the pet insurance policy exclude?", "what does the prompt ask me to define?": a
            # verb no word list has ends the subject all the same; it is no part of the thing
            subject = _strip_edges(tokens[:unlisted])
            if not text.lower().startswith("what") or all(
                w.lower() in _PREPOSITIONS for w in tokens[unlisted + 1 :]
            ):
                # "what does Gazebo simulate?": the verb is all that is asked of the thing, and stays
                # with it for a question about another thing ("and Unity?"); a pronoun takes the thing
                return " ".join([*subject, _DOING_MARK, *tokens[unlisted:]])
            return " ".join(subject)
    yes_no = _YES_NO_AUX.match(text)
    if yes_no:
        # "can I put the Isaac ROS packages on a Raspberry Pi?", "can a URDF describe a whole room?": the
        # subject of a yes/no question is read as the same question's "how can ..." reads it (what the
        # reader does something to, or the thing that does), not the clause after the auxiliary
        # ("doesn't Gazebo support Windows?", "can't I just use SQLite?": negated, the same subject)
        auxiliary = _UNNEGATED.get(yes_no.group(1).lower().replace("\u2019", "'"), yes_no.group(1))
        marked = _marked_subject(f"how {auxiliary} {yes_no.group(2)}")
        asked = _tokens(yes_no.group(2))
        if _DOING_MARK in marked or not asked or asked[0].lower() in _PRONOUN_I | ANAPHORA:
            return marked
        # "can the robot arm lift 5 kg?": a verb no word list has, found where "how far can the robot
        # walk on one charge?" finds it (a number ends the doing's first word too)
        split = _unknown_verb_split(asked, numbers=True)
        return marked if split is None else " ".join([*split[0], _DOING_MARK, *asked[split[1] :]])
    copula = _YES_NO_BE.match(text)
    copula_subject = _copula_subject(_tokens(copula.group(1))) if copula else None
    if copula_subject is not None:
        return copula_subject
    return topic_of(text)


# The "be" of a passive after a subject: "how should the files be laid out?", "can the sensors be
# calibrated?".
_PASSIVE_BE = _word_set("be been")
# "what causes stringing?", "what tools come with the SDK?": "what" or "which" and no auxiliary after it.
_WHAT_THEN_WORDS = re.compile(r"^\s*(?:what|which)\s+(?!(?:is|are|was|were|'s)\b)(.+)$", re.IGNORECASE)


def _what_as_subject(tokens: list[str]) -> str | None:
    """The thing a "what" question with no auxiliary asks about when "what" itself is the subject, a
    verb agreeing with it ("what causes | stringing", "what triggers | a failover"): what the verb is
    done to. None for any other shape ("what plugins support AAX": the noun after "what" is the
    subject)."""
    if len(tokens) < 2 or tokens[0].lower() in AUXILIARIES | STOP_WORDS:
        return None
    first, second = tokens[0].lower(), tokens[1].lower()
    stem = first[:-2] if first.endswith("es") and first[:-2] in _VERBS | ACTION_WORDS else first[:-1]
    # "what trains leave from platform 2": a plural noun, then a plain verb that agrees with it; a word
    # only a noun ends like is no such verb ("what causes condensation on the windows")
    agrees = second in _VERBS | ACTION_WORDS or (
        _plural_then_verb(tokens) and not second.endswith(_NOUN_ENDINGS)
    )
    if first.endswith("s") and first.islower() and (stem in _VERBS | ACTION_WORDS or second in _ARTICLES):
        return None if agrees else topic_of(" ".join(tokens[1:])) or None
    return None


def _which_one_does(tokens: list[str]) -> str | None:
    """ "which prompt covers moving the robot onto hardware?", "which lab exercise uses the camera?": the
    one or two plain words before a verb that agrees with one thing ("covers", "uses") are the thing,
    the rest what it does; None for any other shape ("which one ...", "which plugins support ...")."""
    for end in (1, 2):
        if len(tokens) <= end + 1 or not all(w.islower() and w not in _NOT_A_THING for w in tokens[:end]):
            return None
        verb = tokens[end].lower()
        stem = verb[:-2] if verb.endswith("es") and verb[:-2] in _DOES_THINGS else verb[:-1]
        if verb.endswith("s") and stem in _DOES_THINGS and not _is_plural(tokens[end - 1]):
            return " ".join([*tokens[:end], _DOING_MARK, *tokens[end:]])
    return None


# Endings only nouns have ("condensation", "payment", "darkness", "humidity", "maintenance").
_NOUN_ENDINGS = ("tion", "sion", "ment", "ness", "ity", "ance", "ence", "ism", "ship")
# The verbs a thing does in a document question ("covers", "uses", "explains").
_DOES_THINGS = _VERBS | ACTION_WORDS | DOCUMENT_VERBS


def _plural_subject(head: str) -> tuple[str, str] | None:
    """ "tools come with the SDK" (the subject cut from "what tools come with the SDK?"): the plural noun
    a plain verb agrees with, as "the tools", and what they do; None for any other head. What a
    follow-up's "them" stands for: the things, not the clause."""
    tokens = _tokens(head)
    for end in range(1, min(4, len(tokens))):
        if any(t.lower() in STOP_WORDS for t in tokens[:end]):
            return None
        noun, verb = tokens[end - 1], tokens[end].lower()
        if _is_plural(noun) and verb in _VERBS | ACTION_WORDS and verb not in STOP_WORDS:
            return " ".join(["the", *tokens[:end]]), " ".join(tokens[end:])
    return None


def _which_parts(text: str) -> tuple[list[str], list[str], list[str]] | None:
    """ "Which physics engines does Isaac Sim use?": who has the things ("Isaac Sim"), the things asked
    for ("physics engines"; "what kinds of personal data" asks for the data) and what comes after the
    doing ("between the walls"), or None for another shape of question."""
    which = _WHICH_NOUNS.match(text)
    if not which:
        return None
    nouns, rest = _tokens(_KIND_OF.sub("", which.group(1))), _tokens(which.group(2))
    cut = next((i for i, w in enumerate(rest) if w.lower() in _CUT_AT), len(rest))
    # The word before the cut is the verb ("leave between"), unless it names the thing the verb
    # is done to ("compare Whisper against", "compare the Sony A7 against"): a name stays.
    verb_at = cut - 1 if cut == len(rest) or not _is_specific(rest[cut - 1]) else cut
    while 0 < verb_at < len(rest) and rest[verb_at].lower() in _ADVERBS:
        verb_at -= 1  # "what seeds should I buy first?": the verb is before the adverb ("first" is no verb)
    subject = [w for w in rest[: max(0, verb_at)] if w.lower() not in _PRONOUN_I]
    subject = _without_meta(_strip_edges(subject))
    return subject, nouns, rest[cut:]


_KIND_OF = re.compile(r"^\s*(?:kinds?|types?|sorts?)\s+of\s+", re.IGNORECASE)


def _owner_of_things(text: str) -> tuple[str, str] | None:
    """Who has the things a "which <things> does <owner> <verb>" question asks for, and the things:
    ("home robot", "personal data") for "what kinds of personal data does a home robot collect?". None
    when the things are one thing or nobody but the reader has them ("which sensors can I use?")."""
    which = _which_parts(text)
    if which is None:
        return None
    subject, nouns, _ = which
    kinds = _WHICH_NOUNS.match(text)
    plural = bool(kinds and _KIND_OF.match(kinds.group(1))) or any(map(_is_plural, nouns[-1:]))
    owner = _strip_edges(subject)
    if not plural or not owner or not nouns:
        return None
    return " ".join(owner), " ".join(nouns)


# "is the late penalty applied per day?", "isn't the final exam worth half the grade?": a yes/no question
# about what a thing is.
_YES_NO_BE = re.compile(r"^\s*(?:is|are|was|were)(?:n['\u2019]t)?\s+(.+)$", re.IGNORECASE)
# Words that open what is said of a subject: "fast enough", "worth half the grade", "still supported".
_SAID_OPENERS = _word_set("enough worth too so very more less still really already always ever even")


def _copula_subject(tokens: list[str]) -> str | None:
    """The subject of "is <tokens>": the words before a participle ("the late penalty | applied per
    day"), a word that says how much ("Django's ORM fast | enough ...": the word before it is said too)
    or an article right after a noun ("Unity | a good pick"), with what is said of it as its doing. None when
    nothing shows where it ends ("are Django signals synchronous": an adjective no list has) or the
    subject is a pronoun ("is it ..."), which the rest of the reading takes."""
    if not tokens or tokens[0].lower() in ANAPHORA:
        return None
    start = 1 if tokens[0].lower() in _DETERMINERS else 0
    if len(tokens) - start >= 3 and _is_adjective(tokens[-1]):
        # "are Django signals synchronous": a last word only an adjective ends like is said of the rest
        return " ".join([*_strip_edges(tokens[:-1]), _DOING_MARK, tokens[-1]])
    for i in range(start + 1, len(tokens)):
        word = tokens[i].lower()
        if word in _SAID_OPENERS:
            cut = i - 1 if word == "enough" else i
        elif (word.endswith("ed") and len(word) > 4) or word in _PARTICIPLES:
            cut = i
        elif word in _ARTICLES and tokens[i - 1].lower() not in STOP_WORDS:
            cut = i  # "Unity a good pick"; not "forward kinematics harder on a humanoid"
        else:
            continue
        subject, said = _strip_edges(tokens[:cut]), tokens[cut:]
        said = said[1:] if said[0].lower() in _ARTICLES else said
        return " ".join([*subject, _DOING_MARK, *said]) if subject else None
    return None


# Endings only adjectives have ("synchronous", "useful", "wireless", "compatible", "reliable"); not "-ive"
# or "-ic" ("drive", "topic"), nor a short "-able" ("table", "cable").
_ADJECTIVE_ENDINGS = ("ous", "ful", "less", "ible", "able")
_NOUNS_LIKE_ADJECTIVES = _word_set("variable variables vegetable timetable")


def _is_adjective(word: str) -> bool:
    lower = word.lower()
    return (
        word.islower()
        and len(lower) > 6
        and lower.endswith(_ADJECTIVE_ENDINGS)
        and lower not in _NOUNS_LIKE_ADJECTIVES
    )


# Words between a person and the verb that say how much, not what: "can I just use", "do I really need".
# "what do I need to install on the Jetson?": a doing, as a how-to's ("how long does it take?" is the
# installing's time)
_NEED_TO_DO = re.compile(r"^\s*what\s+(?:do|does|would|will)\s+(?:i|we)\s+(?:need|have)\s+to\s+(.+)$", re.I)
_NEEDS_TO = re.compile(r"^(?:need|needs|have|has|want|got)\s+to$", re.IGNORECASE)
_HEDGES = _word_set("just really still even ever actually also only simply always never already")
_YES_NO_AUX = re.compile(
    rf"^\s*({_AUX}|(?:does|do|did|could|would|should)n['\u2019]t|can['\u2019]t|cannot|won['\u2019]t)\s+(.+)$",
    re.IGNORECASE,
)
# The auxiliary a negated one denies: "won't" is "will", "can't" "can".
_UNNEGATED = {
    **{f"{aux}n't": aux for aux in ("does", "do", "did", "could", "would", "should")},
    "can't": "can",
    "cannot": "can",
    "won't": "will",
}


# "how fast can the robot walk?", "how much does a Jetson cost?", "how big is the map?": a measure, then
# the question it measures ("how can the robot walk").
_HOW_MEASURE_AUX = re.compile(
    rf"^\s*how\s+(?!{_AUX}\b|is\b|are\b|was\b|were\b|come\b)([a-z]+)\s+({_AUX}|is|are|was|were)\s+(.+)$",
    re.IGNORECASE,
)


# Verbs that take the measure asked for: "how much does it cost?", "how long does it last?".
_MEASURED_VERBS = _word_set("cost costs weigh last hold charge")


def _measured_subject(text: str, measure: str, auxiliary: str, rest: str) -> str:
    """The subject of "how <measure> <auxiliary> <rest>": the subject of the question without the measure
    ("how fast can the robot walk?" -> "robot"), not the measure and the verbs ("fast can the robot
    walk"); the measure goes with its doing ("walk fast"), where it still says what was asked. A verb no
    word list has is the last word before the first preposition or article after the subject ("the
    robot walk on one charge"). "how big is the map?" is about the map; "how much should I vary the
    lighting ...?" about what comes after the verb, as a how-to is."""
    unmeasured = f"how {auxiliary} {rest}"
    tokens = _tokens(rest)
    if auxiliary.lower() in {"is", "are", "was", "were"}:
        return _marked_subject(unmeasured)
    if not tokens or tokens[0].lower() in _PRONOUN_I:
        return topic_of(unmeasured)
    if (
        len(tokens) > 2
        and tokens[-1].lower() in _MEASURED_VERBS
        and all(t.isalpha() and t.lower() not in _PREPOSITIONS | _DETERMINERS for t in tokens[1:-1])
    ):
        # "how much does the fibre broadband plan cost?": the verb that takes the measure ends the
        # question after a plain noun phrase, so the word before it ("plan") is the thing's, not a verb
        # ("how far can the robot walk on one charge?" ends on its verb's object)
        named = _strip_edges(tokens[:-1])
        if named:
            return " ".join([*named, _DOING_MARK, tokens[-1], measure])
    if _verb_at(tokens) is not None:
        thing, mark, doing = _marked_subject(unmeasured).partition(f" {_DOING_MARK} ")
        if not mark:
            return thing
        said, _, after = doing.partition(" ")
        return " ".join([thing, _DOING_MARK, said, measure, *after.split()])
    split = _unknown_verb_split(tokens)
    if split is None:
        return topic_of(text)
    subject, verb = split
    return " ".join([*subject, _DOING_MARK, tokens[verb], measure, *tokens[verb + 1 :]])


def _unknown_verb_split(tokens: list[str], *, numbers: bool = False) -> tuple[list[str], int] | None:
    """The subject before a verb no word list has, and the verb's index: one word before the verb ("the
    robot walk"), or two before a preposition or article ("the humanoid robot walk on one charge"), or,
    with `numbers`, a number ("the robot arm lift 5 kg"); "a humanoid robot climb stairs" may be either,
    so None."""
    start = 1 if tokens[0].lower() in _DETERMINERS else 0
    ends = _PREPOSITIONS | _DETERMINERS
    cut = next(
        (
            i
            for i in range(start + 1, len(tokens))
            if tokens[i].lower() in ends or (numbers and tokens[i].isdigit())
        ),
        len(tokens),
    )
    verb = cut - 1
    subject = _strip_edges(tokens[:verb])
    if not subject or not (verb - start == 1 or (cut < len(tokens) and verb - start == 2)):
        return None
    return subject, verb


# What can only follow a verb, never a noun: an object pronoun ("ask me to"), or a possessive ("sync my
# highlights", "find its way").
_AFTER_A_VERB = _word_set("me us him them my our your their its his")


# Verbs that ask someone to do something: "ask new users to sign in", "tell the owner to ...".
_ASKS_SOMEONE = _word_set("ask tell want expect allow require remind advise instruct encourage invite warn")


def _unlisted_verb(tokens: list[str]) -> int | None:
    """The index of the verb of "what does SUBJECT VERB ...?" or "how does SUBJECT VERB ...?" that no word
    list has: the word before an object pronoun or a possessive, or the last word (before a preposition
    left at the end: "ask for"), after a subject of at least one word. None when there is no such word,
    or it is a small word, a name, or no bare verb."""
    start = 1 if tokens and tokens[0].lower() in _DETERMINERS else 0
    lowered = [t.lower() for t in tokens]
    verb = next(
        (
            i
            for i in range(start + 1, len(tokens) - 1)
            if lowered[i + 1] in _AFTER_A_VERB or (lowered[i] in _ASKS_SOMEONE and "to" in lowered[i + 2 :])
        ),
        None,
    )
    from_end = verb is None
    if verb is None:
        end = len(tokens) - 1
        while end > start + 1 and lowered[end] in _PREPOSITIONS:
            end -= 1
        verb = end
    if verb <= start or verb >= len(tokens):
        return None
    word = tokens[verb]
    if (
        # after "does" or "can" a verb is bare: "-ing", "-ed" or a plural's "-s" is a noun ("what does
        # the learner see in reinforcement learning?", "how does it filter transcriptions?")
        word.lower().endswith(("ing", "ed"))
        or looks_plural(word)
        or not word.isalpha()
        or not word.islower()
        or lowered[verb] in STOP_WORDS | _DETERMINERS | _PREPOSITIONS
        or lowered[verb - 1] in _DETERMINERS | _PREPOSITIONS | STOP_WORDS
        or not _strip_edges(tokens[:verb])
        # "what does the router manual suggest for slow wifi?": a listed verb came first, and "wifi" is
        # its object's
        or any(w in DOCUMENT_VERBS | _VERBS for w in lowered[start + 1 : verb])
        # "can the robot arm lift 5 kg?": a number is an amount of the verb's object
        # (right before it: "chapter 3 of the module teach" has a label's number)
        or (from_end and any(w.isdigit() for w in lowered[max(start, verb - 2) : verb]))
    ):
        return None
    return verb


def subject_parts(question: str) -> tuple[str, str]:
    """The previous question's subject split into a head that can stand for a pronoun ("IMU sensor")
    and the context around it ("robot in Gazebo"); the context is empty for a short noun phrase."""
    marked = _marked_subject(question)
    tokens = _tokens(marked.partition(_DOING_MARK)[0])
    compared = next((i for i in range(1, len(tokens)) if _says_comparison(tokens, i)), None)
    if compared is not None:
        # "what makes Nav2 harder for a walking robot than a wheeled one?": the thing is "Nav2", what is
        # said of it ("harder for ...") is no part of its name, so a pronoun takes only the thing
        said = [w for w in _tokens(marked) if w != _DOING_MARK]
        return " ".join(_strip_edges(tokens[:compared])), " ".join(_strip_edges(said[compared:]))
    if _DOING_MARK in marked:
        before, _, doing = marked.partition(f" {_DOING_MARK} ")
        return before, doing
    tokens = _tokens(marked)
    if len(tokens) <= 5:
        return marked, ""
    cut = next((i for i, w in enumerate(tokens) if i > 0 and w.lower() in _ENDS_HEAD), len(tokens))
    context = _without_meta(_strip_edges(tokens[cut:]))
    return " ".join(_strip_edges(tokens[:cut])), " ".join(context)


def _says_of_it(head: str, be: frozenset[str]) -> bool:
    """Whether a subject cut from a question says something of its thing with a form of "be" in `be`
    ("tyre pressure is right" cut from a how-to, "piano be tuned"): a clause, not a thing. A "be" after
    "that" or "which" opens a clause about the thing ("humanoid that is just standing"), which stays
    with it. Only a how-to's doing, or a passive's, is read so: after "which graphics card is the
    minimum for ...?" a whole question in brackets answered a follow-up the documents do not cover
    (followups-dev2 d2a-nm-12), which the clause cut from it leaves refused."""
    tokens = [t.lower() for t in _tokens(head)]
    return any(i > 0 and w in be and tokens[i - 1] not in _CLAUSE_WORDS for i, w in enumerate(tokens))


_COMPARING = COMPARATIVES | _word_set("better worse more less")


def _says_comparison(tokens: list[str], i: int) -> bool:
    """Whether the word at `i` compares ("harder", "more", "tougher than"): what is said of a thing."""
    word = tokens[i].lower()
    after = tokens[i + 1].lower() if i + 1 < len(tokens) else ""
    return word in _COMPARING or (len(word) > 4 and word.endswith("er") and after == "than")


_GROUP_OF = re.compile(r"\b(of|among|between)\s+(?:those|these|them)\b", re.IGNORECASE)
# "does that hurt accuracy?", "isn't that slow though?", "what's that called?": the demonstrative is the
# subject after its auxiliary, plain, negated or contracted (then only last or before a participle: in
# "what's that step for?" it is the step's).
_SUBJECT_DEMONSTRATIVE = re.compile(
    r"\b((?:does|did|do|is|was|are|were|will|would|can|could|should|has|must|might"
    r"|(?:does|did|do|is|was|are|were|would|could|should|has)n['\u2019]t|can['\u2019]t|won['\u2019]t)\s+"
    r"|(?<=[a-z])['\u2019]s\s+(?=(?:that|this)(?:\s*[?.!]*\s*$|\s+[a-z]+ed\b)))(?:that|this)\b"
    r"(?!\s+(?:one|ones)\b)",
    re.IGNORECASE,
)
# Not before a comparative: "make that bigger" says what to do to it, "bigger" is no noun.
_DEMONSTRATIVE_NOUN = re.compile(
    r"\b(?:that|this|those|these|such\s+an?)\s+(?=[A-Za-z])(?!(?:"
    + "|".join(sorted(COMPARATIVES))
    + r"|more|less)\b)",
    re.IGNORECASE,
)


def _the_for_demonstrative(match: re.Match[str]) -> str:
    """ "the" for a demonstrative before its noun ("does that node ..." -> "does the node ..."), but not
    for a "that" after a noun, which opens a clause about it ("for robots that drive around outdoors")."""
    before = words(match.string[: match.start()])[-1:]
    opens_clause = (
        match.group(0).lower().startswith("that")
        and bool(before)
        and before[0].lower() not in STOP_WORDS | GENERIC_WORDS | _VERBS
        and not _is_action(before[0])
    )
    return match.group(0) if opens_clause else "the "


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


def _owner(head: str) -> str:
    """Who owns what "its" names: the head up to a possessive or a preposition."""
    tokens = _tokens(head)
    for i, token in enumerate(tokens):
        if token.lower().endswith(("'s", "\u2019s")) or (i > 0 and token.lower() in _ENDS_HEAD):
            end = i + 1 if token.lower().endswith(("'s", "\u2019s")) else i
            return " ".join(tokens[:end])
    return head


# Words that say how much or how often, not what: "is that really needed?", "is that still used?".
_DEGREE = _word_set("well better worse even ever still really actually always never usually often already")
# Past participles without "-ed": "is that file written by hand?".
_PARTICIPLES = _word_set(
    "built made done written taken given known seen shown chosen broken hidden kept found"
)


def _before_a_verb(text: str, pattern: re.Pattern[str] = _SUBJECT_DEMONSTRATIVE) -> bool:
    """Whether the demonstrative `pattern` finds is a determiner, its noun followed by a verb: "does
    that step take long?", "which of those details are needed?"; not "does that hurt accuracy?", "which
    of those stops the bouncing?". After "is", a participle or an article after the word says it is a
    noun too: "is that node needed for SLAM?", "is that file a problem?" (not "is that really needed?",
    "is that needed though?")."""
    match = pattern.search(text)
    if not match:
        return False
    after = [w.lower() for w in words(text[match.end() :])]
    if len(after) < 2 or after[0] in STOP_WORDS:
        return False
    if after[1] in _VERBS | AUXILIARIES:
        return True
    # after "is" or "was" only: "does that hurt trained models?", "which of those stops the robot?" have
    # a verb before the participle or article
    auxiliary = match.group(0).lower().lstrip("'\u2019").split()[0]
    be = auxiliary == "s" or auxiliary.startswith(("is", "are", "was", "were"))
    noun = _noun_like(after[0]) and after[0] not in _DEGREE and not after[0].endswith("ed")
    described = after[1].endswith("ed") or after[1] in _PARTICIPLES or after[1] in _ARTICLES
    return be and noun and described


def _is_clause(phrase: str) -> bool:
    """Whether a subject cut from a question kept a verb ("URDF describe a whole room"): a clause, which
    cannot stand before a noun the way a name can ("Gazebo node")."""
    tokens = _tokens(phrase)
    auxiliary = any(i > 0 and t.lower() in AUXILIARIES for i, t in enumerate(tokens))
    return auxiliary or _verb_at(tokens) is not None or _plural_then_verb(tokens)


def _plural_then_verb(tokens: list[str]) -> bool:
    """ "fonts ship with the theme", "trains leave from platform 2": a plain lower-case word between a
    plural noun and a preposition agrees with the plural as its verb, whatever verb it is."""
    for i in range(1, len(tokens) - 1):
        before, word, after = tokens[i - 1], tokens[i], tokens[i + 1].lower()
        plural = len(before) > 3 and before.islower() and before.endswith("s") and not before.endswith("ss")
        if (
            plural
            and word.islower()
            and word not in STOP_WORDS
            and not word.endswith("s")
            and after in _PREPOSITIONS
        ):
            return True
    return False


def _before_a_noun(text: str) -> bool:
    """Whether the subject demonstrative may be a determiner before a noun ("is that node for SLAM?"),
    not the subject before what is said of it ("is that slow though?", "is that needed?")."""
    match = _SUBJECT_DEMONSTRATIVE.search(text)
    after = [w.lower() for w in words(text[match.end() :])] if match else []
    return (
        len(after) >= 2
        and _noun_like(after[0])
        and after[0] not in _DEGREE | _PREDICATE_ENDS | COMPARATIVES
        and not after[0].endswith("ed")
        and not all(w in _PREDICATE_ENDS for w in after[1:])
    )


# "A and B": two things, which a singular "it" or "its" cannot stand for ("what props does it take?" after
# "how do I show a course's author and chapter count in a card?" asks about the card, not the two).
_COORDINATED = re.compile(r"\S\s+and\s+\S", re.IGNORECASE)


_PLURAL_PRONOUN = re.compile(r"\b(?:they|them|their|theirs)\b", re.IGNORECASE)


def _is_plural(word: str) -> bool:
    """A plain plural noun: lower case, "-s" but not "-ss", "-us" or "-is" (names such as "Windows" or
    "ROS" are written with capitals)."""
    return word.islower() and looks_plural(word)


def _plural_thing(context: str) -> str | None:
    """The plural thing a previous question's context names ("websockets" in "support websockets",
    "async views" in "work with async views"): its last plural noun and the words before it back to a
    small word, never the context's first word (the doing)."""
    tokens = _tokens(context)
    last = next((i for i in range(len(tokens) - 1, 0, -1) if _is_plural(tokens[i])), None)
    if last is None:
        return None
    start = last
    while start > 1 and tokens[start - 1].lower() not in STOP_WORDS:
        start -= 1
    return " ".join(tokens[start : last + 1])


# "does the pressure cooker have a keep-warm setting?": the verbs whose object is what the question asks
# has, or not; "a"/"an" says it is one thing.
_HAVING = _word_set("have has had include includes")
_ONE_THING = _word_set("a an")
_SINGULAR_PRONOUN = re.compile(r"\b(?:it|its)\b", re.IGNORECASE)


def _had_thing(context: str) -> str | None:
    """The one thing a yes/no question asks its subject has ("a keep-warm setting" in "have a keep-warm
    setting"), as "the" thing a follow-up's "it" stands for: the object of "have" or "include" after
    "a"/"an", or a lone noun without it ("have image stabilisation"; not "have enough memory" or "have
    two arms"), up to a small word. None for any other doing."""
    tokens = _tokens(context)
    if len(tokens) < 2 or tokens[0].lower() not in _HAVING:
        return None
    start = 2 if tokens[1].lower() in _ONE_THING else 1
    if start == 1 and not _uncounted_noun(tokens[1]):
        return None
    end = next((i for i in range(start, len(tokens)) if tokens[i].lower() in STOP_WORDS), len(tokens))
    if end <= start or (start == 1 and _is_plural(tokens[end - 1])):
        return None
    return " ".join(["the", *tokens[start:end]])


# Words before a noun that count or measure it: "have enough memory", "have two arms" have no one thing.
_QUANTIFIERS = _word_set("enough any some no many much more less few several lots plenty")


def _uncounted_noun(word: str) -> bool:
    """Whether `word` may open a noun had without "a"/"an" ("have image stabilisation", "have dark
    mode"): a plain lower-case word, not a small word, a number or a quantity."""
    lowered = word.lower()
    return word.isalpha() and word.islower() and lowered not in STOP_WORDS | _QUANTIFIERS


# A count of more than one before a plural noun: "two drive modes", "3 API versions".
_MANY = _word_set("two three four five six seven eight nine ten eleven twelve several")


def _one_of_counted(head: str) -> str | None:
    """One of a counted plural head: "drive mode" for "two drive modes", "API version" for "the 3 API
    versions"; None for a head with no count of many before a plain plural noun."""
    words = _tokens(head)
    if words and words[0].lower() in {"the", "these", "those"}:
        words = words[1:]
    if len(words) < 2 or not (words[0].lower() in _MANY or (words[0].isdigit() and int(words[0]) > 1)):
        return None
    if not _is_plural(words[-1]) or not all(_WORD.fullmatch(w) for w in words[1:]):
        return None
    return " ".join([*words[1:-1], _singular(words[-1])])


# Words before a "one" that count it: "more than one", "at least one", "only one".
_COUNTS_ONE = _word_set("than least most only just exactly")


# The last word of a subject that is a piece of writing, which says things but does nothing else.
_DOCUMENTS = _word_set(
    """
    page pages guide guides chapter chapters section sections faq file files manual manuals lesson lessons
    diagram diagrams table tables template templates readme doc docs documentation article articles
    tutorial tutorials book books textbook handbook syllabus
    """
)
_BEFORE_THE_VERB = AUXILIARIES | _word_set("never ever not still already also just really even")


def _document(head: str) -> bool:
    tokens = _tokens(head)
    return bool(tokens) and tokens[-1].lower() in _DOCUMENTS


def _does_what_no_page_does(after: list[str]) -> bool:
    """Whether the words after an "it" (with the separators `re.split` leaves between them) open a verb
    no piece of writing does: a past participle after "has"/"have"/"had" ("it has never been"), or a
    verb in its "-s" form right after the "it" ("it gets stuck", "it breaks") that is not one of the
    verbs a page does ("it says", "it covers")."""
    tokens = [t for t in after if _WORD.fullmatch(t)]
    if not tokens:
        return False
    first = tokens[0]
    if first in {"has", "have", "had"}:
        rest = [t for t in tokens[1:] if t not in _BEFORE_THE_VERB]
        return bool(rest) and rest[0] in _word_set("been gone moved driven seen visited") | (
            {rest[0]} if rest[0].endswith("ed") and rest[0] not in DOCUMENT_VERBS else set()
        )
    return (
        first.endswith("s")
        and not first.endswith("ss")
        and first not in DOCUMENT_VERBS | AUXILIARIES | STOP_WORDS
        and len(first) > 3
    )


def _rewrite(question: str, head: str, context: str, topic: str) -> str:
    """`question` with the previous subject where it points back: a pronoun becomes the head ("how do I
    install it?" -> "how do I install Isaac Sim?"), "which of those" becomes "which of the <head>", "that"
    as a subject becomes the head; what the head leaves out comes after the question in brackets, never
    glued into it."""
    plural = None
    if _PLURAL_PRONOUN.search(question) and not any(map(_is_plural, _tokens(head)[-1:])):
        plural = _plural_thing(context)
    if plural is not None:
        # "how do I add them?" after "does Flask support websockets?": a plural pronoun is the plural
        # thing the question named, not its one subject, which becomes the setting
        head, context, topic = plural, head, head
    things = _plural_subject(head) if _PLURAL_PRONOUN.search(question) else None
    if things is not None and context:
        # "code examples come" cut from "what code examples come with chapter 2 of the guide?": the
        # verb alone is no part of the things, and the context stays what it was
        things = (things[0], context) if len(things[1].split()) == 1 else None
    if things is not None:
        # "how do I use them?" after "what tools come with the SDK?": "them" is the tools, what they do
        # comes in brackets
        head, context = things
        topic = context
    had = _had_thing(context) if plural is None and _SINGULAR_PRONOUN.search(question) else None
    if had is not None:
        # "how do I turn it off?" after "does the pressure cooker have a keep-warm setting?": "it" is the
        # one thing asked about, what has it the setting
        head, context, topic = had, head, head
    stripped = question.rstrip("?.! ")
    tail = question[len(stripped) :]
    placed = False
    if _GROUP_OF.search(stripped) and not _before_a_verb(stripped, _GROUP_OF):
        # "of the tools", not "of the the tools" when the head has its article
        the_head = head if head.lower().startswith("the ") else f"the {head}"
        stripped, placed = _GROUP_OF.sub(lambda m: f"{m.group(1)} {the_head}", stripped, count=1), True
    tokens = re.split(r"(\W+)", stripped)
    lowered = [t.lower() for t in tokens]
    for i, token in enumerate([] if placed else lowered):
        if token == "it" and _IT_TO_BARE_VERB.match(question):
            # "is it safe to drive?": the "it" may be the thing or the doing (driving with the light on);
            # it stays, the thing comes in brackets
            continue
        if token in {"it", "its"} and _COORDINATED.search(head):
            continue  # "it" is one thing: not "a course's author and chapter count" (that comes in brackets)
        if token == "it" and _document(head) and _does_what_no_page_does(lowered[i + 1 :]):
            # "and for starting up somewhere it has never been?" after "what prompts does the VSLAM
            # page have?": a page goes nowhere, so "it" is not the page but what the page is for, its
            # owner when it has one ("the delivery robot's setup guide"); without one "it" stays
            owner = _owner(head)
            if owner.endswith(("'s", "\u2019s")):
                tokens[i], placed = owner[:-2], True
                if not context:
                    context = " ".join(_strip_edges(_tokens(head)[len(_tokens(owner)) :]))
                break
            continue
        if token in REPLACEABLE:
            tokens[i] = head
            placed = True
            break
        if token in {"its", "their"}:
            # "its drives" belongs to the thing, not to its setting: "Unity's strengths" -> "Unity's"
            owner = _owner(head)
            possessive = owner.endswith(("'s", "\u2019s"))
            tokens[i] = owner if possessive else owner + "'s"
            placed = True
            if not context and not possessive:
                # ... but a setting after a preposition still counts: "its joints" after "can I bring my
                # robot description into Unity?" -> "robot description's joints (Unity)"
                context = " ".join(_strip_edges(_tokens(head)[len(_tokens(owner)) :]))
            break
    text = "".join(tokens)
    if not placed:
        word_positions = [i for i, t in enumerate(tokens) if _WORD.fullmatch(t)]
        one = _pronoun_one([lowered[i] for i in word_positions])
        if one is not None:
            before = lowered[word_positions[one - 1]] if one > 0 else ""
            # "the second one" after "what plans are available?": a clause ends in no noun to take
            noun = _tokens(head)[-1:] if head and not _is_clause(head) else []
            counted = _one_of_counted(head) if lowered[word_positions[one]] == "one" else None
            if before in _COUNTS_ONE:
                # "can I have more than one?": a number, the head its noun
                tokens[word_positions[one]] = f"one {head}"
                text, placed = "".join(tokens), True
            elif before and before not in STOP_WORDS and before not in _TAKES_ONE:
                # "the error recovery one": another of the same kind; it keeps its own words and takes
                # the head's noun, the head comes in brackets
                if noun:
                    tokens[word_positions[one]] = counted or noun[0]
                    text = "".join(tokens)
            elif counted is not None:
                # "the other one?" after "what are the two drive modes?": one of the counted things, not
                # all of them ("the other drive mode"); the counted head comes in brackets
                tokens[word_positions[one]] = counted
                text = "".join(tokens)
            else:
                tokens[word_positions[one]] = head
                text, placed = "".join(tokens), True
    # "Is that node for SLAM?" after "can a URDF describe a whole room?": a clause cut from the previous
    # question glued before "node" reads as nothing; the question stays as asked, the subject in brackets
    as_asked = _is_clause(head) and _before_a_noun(text) and not _before_a_verb(text)
    if not placed and _SUBJECT_DEMONSTRATIVE.search(text) and not _before_a_verb(text) and not as_asked:
        text, placed = _SUBJECT_DEMONSTRATIVE.sub(lambda m: f"{m.group(1)}{head}", text, count=1), True
    if not placed:
        # "explain this in simpler terms": a demonstrative that stands alone is the subject
        tokens = re.split(r"(\W+)", text)
        for i, token in enumerate(tokens):
            if token.lower() in {"this", "that", "these", "those"} and _ends_phrase(tokens, i):
                tokens[i], placed = head, True
                text = "".join(tokens)
                break
    if not placed and not as_asked:
        text = _DEMONSTRATIVE_NOUN.sub(_the_for_demonstrative, text, count=1)
    own = {w.lower() for w in _tokens(text)}
    missing = " ".join(w for w in _tokens(f"{'' if placed else head} {context}") if w.lower() not in own)
    if missing:
        text = f"{text} ({context if placed else topic})"
    return f"{text}{tail}"
