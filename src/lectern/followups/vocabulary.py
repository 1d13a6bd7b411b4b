"""The word lists and word tests all of follow-up rewriting reads: stop, generic and action words, the
pronouns that point back, how many words of its own make a question stand alone, and what a word
looks like (a name, a how-to verb, a plural, an adjective).
"""

from __future__ import annotations

import re

from lectern import word_frequency
from lectern.english import looks_plural
from lectern.english import word_set as _word_set

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

MIN_OWN_CONTENT_WORDS = 2
TOPIC_ROOT_CHARS = 4  # shortest shared beginning that counts as the same root ("retr" of "retry", "retries")
SELF_CONTAINED_WORDS = 4  # this many topic words of its own: a question stands alone


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


# Words after a "one" that say how, not what: "cancel one halfway through", "pick one now".
_ADVERBS = _word_set("halfway now again instead too more less later first quickly safely anyway already")


def _noun_like(word: str) -> bool:
    return word not in STOP_WORDS and word not in _ADVERBS and not word.endswith("ly")


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


def _singular(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def _unknown_in_english(word: str) -> bool:
    """A lower-case word general English never uses ("pytest", "kubectl", "rosbag"): a tool's name,
    which a question after a report names as its own topic, as it would "Pytest"."""
    return len(word) >= 4 and word.isalpha() and word.islower() and word_frequency.zipf(word) == 0.0


# Words with their apostrophes ("Unity's"), so that phrases keep their spelling.
_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_+#./'\u2019-]*[A-Za-z0-9+#]|[A-Za-z0-9]")


def _tokens(text: str) -> list[str]:
    return _TOKEN.findall(text)


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


def _is_plural(word: str) -> bool:
    """A plain plural noun: lower case, "-s" but not "-ss", "-us" or "-is" (names such as "Windows" or
    "ROS" are written with capitals)."""
    return word.islower() and looks_plural(word)
