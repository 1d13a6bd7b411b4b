"""`topic_of`: the topic a question names ("What is Gazebo Harmonic?" -> "Gazebo Harmonic"), which a
rewrite carries into the next turn, and `refusal_topic`, what a refusal says it has no information about.
"""

from __future__ import annotations

import re

from lectern.english import MODALS
from lectern.english import word_set as _word_set
from lectern.followups.vocabulary import ACTION_WORDS, GENERIC_WORDS, STOP_WORDS, content_words, words

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


_HOW_TO = re.compile(r"^\s*how\s+(?:do|can|should|would|could)\s+(?:i|we|you|one)\s+(.+)$", re.IGNORECASE)

# Past participles without "-ed": "is that file written by hand?".
_PARTICIPLES = _word_set(
    "built made done written taken given known seen shown chosen broken hidden kept found"
)
