"""`_rewrite`: a follow-up with the previous subject where it points back ("how do I install it?" ->
"how do I install Isaac Sim?"), in the form the sentence needs: a pronoun, "which of those", a
demonstrative, "one of them"; what the subject leaves out goes after the question in brackets.
"""

from __future__ import annotations

import re

from lectern.english import AUXILIARIES, COMPARATIVES, DOCUMENT_VERBS
from lectern.english import VERBS as _VERBS
from lectern.english import word_set as _word_set
from lectern.followups.doings import _ends_phrase
from lectern.followups.phrases import _ENDS_HEAD, _strip_edges, _verb_at
from lectern.followups.pointing import _IT_TO_BARE_VERB, _TAKES_ONE, _pronoun_one
from lectern.followups.subjects import (
    _DEMONSTRATIVE_NOUN,
    _GROUP_OF,
    _PLURAL_PRONOUN,
    _SUBJECT_DEMONSTRATIVE,
    _plural_subject,
    _plural_then_verb,
    _the_for_demonstrative,
)
from lectern.followups.topics import _ARTICLES, _PARTICIPLES
from lectern.followups.vocabulary import (
    _WORD,
    REPLACEABLE,
    STOP_WORDS,
    _is_plural,
    _noun_like,
    _singular,
    _tokens,
    words,
)

# Words that may end a short predicate ("isn't that slow though?").
_PREDICATE_ENDS = _word_set("though then too enough anyway really still")


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
