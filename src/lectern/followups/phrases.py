"""Token helpers for finding a question's subject: the words to strip from a phrase's edges, where its
verb is, and the patterns that mark where a subject ends (a lead clause, "used for", "how does X do").
"""

from __future__ import annotations

import re

from lectern.english import DETERMINERS as _DETERMINERS
from lectern.english import PREPOSITIONS as _PREPOSITIONS
from lectern.english import VERBS as _VERBS
from lectern.english import word_set as _word_set
from lectern.followups.vocabulary import STOP_WORDS

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


_DOING_MARK = "\x00"  # where the subject of "how does X do Y" ends, for `subject_parts`


# "make the robot turn", "let the node run": the thing, then what it is made to do.
_CAUSATIVES = _word_set("make let help get have")
