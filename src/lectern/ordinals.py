"""An ordinal that picks one of the things the previous question listed: "and the sixth?" after "what are
the learning outcomes of the humanoid robotics module?" asks for the sixth learning outcome, so the
query is "what is the sixth learning outcome of the humanoid robotics module?", not the previous
question with "the sixth" in place of its plural head ("what are the sixth of ..."). "what's the second
one?" after "which failure modes does the backup guide describe?" asks for the second failure mode:
the "one" takes the whole plural head, singular, not its last word.

The parts of a document asked about live here too: "that part" after "what does the final project say
about manipulation?" is the manipulation part (`part_asked_about`), and an "it" that says or covers
things after such a question is the document (`page_asked_again`)."""

from __future__ import annotations

import re

from lectern import word_frequency
from lectern.english import (
    AUXILIARIES,
    DETERMINERS,
    DOCUMENT_VERBS,
    NUMBER_WORDS,
    ORDINAL_WORDS,
    PREPOSITIONS,
    VERBS,
    looks_plural,
    word_set,
)

# The ordinals that count ("third", not "last" or "next"), in order: a place in a list, which names no topic.
_COUNTING_ORDER = ORDINAL_WORDS[:12]
COUNTING = frozenset(_COUNTING_ORDER)
ORDINALS = COUNTING | word_set("last final next")
_ORDINAL = r"(?:" + "|".join(sorted(ORDINALS)) + r"|\d+(?:st|nd|rd|th))"
_NUMBER_WORDS = NUMBER_WORDS[:12]
# "explain number five", "and number 3?": an item picked by its number, with no noun of its own after it
_NUMBER_PICK = re.compile(
    r"(?<![\w'-])(?P<lead>\w+\s+)?number\s+(?P<n>" + "|".join(_NUMBER_WORDS) + r"|1[0-2]|[1-9])\b"
    r"(?=\s*[?.!,]|\s*$|\s+(?:more|again|please|in\s+more|a\s+bit)\b)",
    re.IGNORECASE,
)


def by_number_as_ordinal(question: str) -> str:
    """ "explain number five" -> "explain the fifth": an item picked by its number is picked by its
    place; "the number five bus", "a number 2 pencil" name their own thing and stay."""

    def ordinal(match: re.Match[str]) -> str:
        lead = match.group("lead") or ""
        if lead.strip().lower() in DETERMINERS:
            return match.group(0)
        n = match.group("n").lower()
        index = int(n) - 1 if n.isdigit() else _NUMBER_WORDS.index(n)
        return f"{lead}the {_COUNTING_ORDER[index]}"

    return _NUMBER_PICK.sub(ordinal, question, count=1)


_LEAD = r"^\W*(?:(?:and|so|ok(?:ay)?|but|then|what\s+about|how\s+about)\W+)*"
# "and the sixth?", "the third one?", "what about the last?": the ordinal and nothing else
_BARE = re.compile(_LEAD + r"(?:the\s+)?(" + _ORDINAL + r")(?:\s+ones?)?\s*[?.!]*\s*$", re.IGNORECASE)
# "what's the second one about?", "which sensors does the sixth one combine?", "what is the fourth?":
# the ordinal with "one" or with no noun after it
_SMALL_AFTER = AUXILIARIES | VERBS | PREPOSITIONS | word_set("about")
_DOER_AUX = word_set("does do did can could will would should")
_IN_QUESTION = re.compile(
    r"(?:\b(?P<before>\w+)\s+)?\b(?P<pick>the\s+(?P<ordinal>" + _ORDINAL + r")(?P<one>\s+ones?\b)?)"
    r"(?=\s*[?.!,]|\s*$|\s+(?P<after>\w+))",
    re.IGNORECASE,
)


def _picked(question: str) -> re.Match[str] | None:
    """ "the second one", "the fourth" with no noun of its own: at the end, before a small word or a
    verb, or "one" as the subject after "does" or a modal ("does the sixth one combine"); not "the
    first one thing", a numeral before its noun, nor "the third week"."""
    for match in _IN_QUESTION.finditer(question):
        after = (match.group("after") or "").lower()
        if not after or after in _SMALL_AFTER:
            return match
        if match.group("one") and (match.group("before") or "").lower() in _DOER_AUX:
            return match
    return None


# "what are the learning outcomes of the module?": the plural head and what it belongs to
_WHAT_ARE = re.compile(
    r"^\W*(?:what|which)\s+(?:are|were)\s+(?:the\s+)?(?P<head>[A-Za-z][\w-]*(?:\s+[A-Za-z][\w-]*){0,2}?)"
    r"\s+(?P<prep>of|in|on|for|from|at)\s+(?P<rest>.+?)[\s?.!]*$",
    re.IGNORECASE,
)
# "which failure modes does the backup guide describe?", "what exercises come with the chapter?"
_WHICH_HEAD = re.compile(
    r"^\W*(?:what|which)\s+(?P<head>[A-Za-z][\w-]*(?:\s+[A-Za-z][\w-]*){0,2}?)\s+"
    r"(?P<verb>does|do|did|can|should|will|would|are|come|comes|go|goes)\s+(?P<rest>.+?)[\s?.!]*$",
    re.IGNORECASE,
)
# "list the exercises at the end of the chapter", "name the fees on the account": an order to list
# things names them as "what are the ... ?" does
_LIST_ORDER = re.compile(
    r"^\W*(?:please\s+)?(?:list|name|show\s+me|give\s+me|tell\s+me)\s+(?:all\s+)?(?:the\s+)?"
    r"(?P<head>[A-Za-z][\w-]*(?:\s+[A-Za-z][\w-]*){0,2}?)"
    r"(?:\s+(?P<prep>of|in|on|for|from|at)\s+(?P<rest>.+?))?[\s?.!]*$",
    re.IGNORECASE,
)
# "what are the house rules?": the plural head and nothing it belongs to
_WHAT_ARE_ALONE = re.compile(
    r"^\W*(?:what|which)\s+(?:are|were)\s+(?:the\s+)?(?P<head>[A-Za-z][\w-]*(?:\s+[A-Za-z][\w-]*){0,2})"
    r"[\s?.!]*$",
    re.IGNORECASE,
)
_SMALL = DETERMINERS | AUXILIARIES | PREPOSITIONS | VERBS | word_set("have has to and or i we you")


def singular(word: str) -> str:
    """ "outcomes" -> "outcome", "categories" -> "category", "boxes" -> "box", "knives" -> "knife": of the
    forms a plural may come from, the one English uses most (the word without its "s" on a tie)."""
    lowered = word.lower()
    forms = [word[:-1]]
    if lowered.endswith("es"):
        forms.append(word[:-2])
    if lowered.endswith("ies") and len(lowered) > 4:
        forms.append(word[:-3] + "y")
    if lowered.endswith("ves"):
        forms.extend([word[:-3] + "f", word[:-3] + "fe"])
    return max(forms, key=lambda form: word_frequency.zipf(form.lower()))


def _plural_head(previous: str) -> tuple[str, str, str] | None:
    """(the plural head singular, the preposition that ties it to its owner or "", the owner or the rest
    of the question's words) of a question that lists things, or None."""
    if "(" in previous:
        return None
    match = _WHAT_ARE.match(previous) or _LIST_ORDER.match(previous) or _WHAT_ARE_ALONE.match(previous)
    if match is not None:
        groups = match.groupdict()
        head, prep, rest = match.group("head"), groups.get("prep") or "", groups.get("rest") or ""
    else:
        match = _WHICH_HEAD.match(previous)
        if match is None:
            return None
        head, prep, rest = match.group("head"), "", match.group("rest")
    tokens = head.split()
    if any(t.lower() in _SMALL for t in tokens) or not looks_plural(tokens[-1]):
        return None
    if tokens[0].isdigit() or tokens[0].lower() in _NUMBER_WORDS:
        return None  # "what are the two payment methods?": a pick of the counted ones, told elsewhere
    named = " ".join([*tokens[:-1], singular(tokens[-1])])
    if not prep:
        rest = " ".join(t for t in rest.split() if t.lower() not in _SMALL)
    return named, prep, rest


def ordinal_of_the_listed(question: str, previous: str) -> str | None:
    """The query for a follow-up that picks one of the things the previous question listed by its place
    ("and the sixth?", "what's the second one about?"), or None when it picks none or the previous
    question lists nothing by a plural head."""
    question = by_number_as_ordinal(question)
    bare = _BARE.match(question)
    picked = None if bare is not None else _picked(question)
    if bare is None and picked is None:
        return None
    listed = _plural_head(previous)
    if listed is None:
        return None
    head, prep, rest = listed
    if bare is not None:
        ordinal = bare.group(1)
        if prep:
            # "what is the sixth learning outcome of the humanoid robotics module?"
            return f"what is the {ordinal} {head} {prep} {rest}?"
        return f"what is the {ordinal} {head} ({rest})?" if rest else f"what is the {ordinal} {head}?"
    assert picked is not None
    stripped = question.rstrip("?.! ")
    before, after = stripped[: picked.start("pick")], stripped[picked.end("pick") :]
    text = f"{before}the {picked.group('ordinal')} {head}{after}"
    tail = question[len(stripped) :] or "?"
    owner = f"{prep} {rest}" if prep else rest
    return f"{text} ({owner.strip()}){tail}" if owner.strip() else f"{text}{tail}"


def picks_by_place(question: str) -> bool:
    """Whether the question picks one of some things by its place with no noun of its own for them
    ("which sensors does the sixth one combine?", "and the third?"): it points back."""
    question = by_number_as_ordinal(question)
    return _BARE.match(question) is not None or _picked(question) is not None


# "what does the final project say about manipulation?": what the document is asked about, at the end
SAYS_ABOUT = re.compile(
    r"^\W*what\s+(?:does|do|did|will|can)\s+(?P<doc>.+?)\s+(?:say|says|tell\s+(?:me|us)|mention|cover|"
    r"explain|write|suggest|recommend)\s+(?:about|on|regarding)\s+(?P<focus>.+?)[\s?.!]*$",
    re.IGNORECASE,
)
# "that part", "this section": a part of a document, the one just asked about
_THAT_PART = re.compile(
    r"\b(?:that|this)\s+(part|section|step|bit|stage|piece|chapter|topic)\b", re.IGNORECASE
)


def _doc_and_focus(asked: re.Match[str]) -> tuple[str, str]:
    """The document and what it was asked about, from a `SAYS_ABOUT` match, without their articles."""

    def plain(name: str) -> str:
        return " ".join(t for t in asked.group(name).split() if t.lower() not in DETERMINERS)

    return plain("doc"), plain("focus")


def part_asked_about(question: str, previous: str) -> str | None:
    """ "and what's the goal of that part?" after "what does the final project say about manipulation?":
    the part is the one about manipulation, not the final project, so the query names it ("... of the
    manipulation part (final project)?"); None when the question names no such part or the previous
    question asked a document about nothing in particular."""
    part = _THAT_PART.search(question)
    asked = SAYS_ABOUT.match(previous)
    if part is None or asked is None or "(" in previous:
        return None
    doc, focus = _doc_and_focus(asked)
    stripped = question.rstrip("?.! ")
    text = f"{stripped[: part.start()]}the {focus} {part.group(1)}{stripped[part.end() :]}"
    return f"{text} ({doc}){question[len(stripped) :] or '?'}"


_IT_AS_PAGE = re.compile(r"\bit\s+(\w+)", re.IGNORECASE)


def page_asked_again(question: str, previous: str) -> str | None:
    """ "what else does it cover?" after "what does the setup guide say about backups?": an "it" that
    says or covers things is the document, not what it was asked about, which comes in brackets; None
    for any other "it" or when the previous question asked no document about a thing."""
    asked = SAYS_ABOUT.match(previous)
    said = _IT_AS_PAGE.search(question)
    if asked is None or said is None or said.group(1).lower() not in DOCUMENT_VERBS or "(" in previous:
        return None
    doc, focus = _doc_and_focus(asked)
    stripped = question.rstrip("?.! ")
    text = f"{stripped[: said.start()]}the {doc} {said.group(1)}{stripped[said.end() :]}"
    return f"{text} ({focus}){question[len(stripped) :] or '?'}"


# "the URDF one", "the archive ones": another of the listed things, told by its kind
_KIND_ONE = re.compile(
    r"\bthe\s+(?P<kind>[A-Za-z][\w-]*(?:\s+[A-Za-z][\w-]*)?)\s+(?P<one>ones?)\b", re.IGNORECASE
)
_CORRECTS = re.compile(r"^\W*(?:no|nope|sorry|actually)\b|\bi\s+meant\b", re.IGNORECASE)
_NOT_KINDS = ORDINALS | word_set("other same only new old first last right wrong best worst main")


def kind_of_the_listed(question: str, previous: str) -> str | None:
    """ "which version of the URDF one?" after "which Robotics Hub packages do I add to Unity?": the
    "one" is one of the listed packages, told by its kind ("the URDF package"), not the previous
    question's last noun ("the URDF Unity"); None when the question has no "the <kind> one", or the
    previous question lists nothing by a plural head. The head's last two words are kept when neither
    is a name ("the archive storage class"), else its last ("the URDF package")."""
    kind = _KIND_ONE.search(question)
    if kind is None or _WHAT_ARE.match(previous) or _CORRECTS.match(question):
        # "the split-into-stages one" after "what are the upsides of the one-big-model approach?" is
        # another approach, not another upside: only a question that lists its things ("which packages
        # ...") lends its head; a correction swaps its own phrase
        return None
    listed = _plural_head(previous)
    if listed is None:
        return None
    if any(w.lower() in _NOT_KINDS | DETERMINERS | _SMALL for w in kind.group("kind").split()):
        return None
    words = listed[0].split()
    noun = words[-2:] if len(words) >= 2 and not any(w[:1].isupper() for w in words[-2:]) else words[-1:]
    if kind.group("one").lower() == "ones":
        noun = [*noun[:-1], noun[-1] + "s"]
    if any(w.lower() in kind.group("kind").lower().split() for w in noun):
        return None  # "the storage one" after "which storage classes ...": its kind is the head's own word
    stripped = question.rstrip("?.! ")
    text = f"{stripped[: kind.start('one')]}{' '.join(noun)}{stripped[kind.end('one') :]}"
    return text + question[len(stripped) :]


def kind_named_before(question: str, previous: str) -> str | None:
    """ "how do I create the async one?" after "does the library have a sync client and an async
    client?": the previous question named the kind with its noun ("async client"), so the "one" is that
    noun, the previous question in brackets; None when the question has no "the <word> one" or the
    previous question has no such word before a noun."""
    kind = _KIND_ONE.search(question)
    if kind is None or " " in kind.group("kind") or _CORRECTS.match(question):
        return None
    word = kind.group("kind").lower()
    if word in _NOT_KINDS | DETERMINERS | _SMALL:
        return None
    tokens = [t.strip("?.!,;:()") for t in previous.split()]
    nouns = [
        tokens[i + 1]
        for i, t in enumerate(tokens[:-1])
        if t.lower() == word and tokens[i + 1].lower() not in _SMALL and tokens[i + 1].isalpha()
    ]
    if len({n.lower() for n in nouns}) != 1:
        return None
    noun = nouns[0] + ("s" if kind.group("one").lower() == "ones" and not looks_plural(nouns[0]) else "")
    stripped = question.rstrip("?.! ")
    text = f"{stripped[: kind.start('one')]}{noun}{stripped[kind.end('one') :]}"
    said = " ".join(previous.strip().rstrip("?.! ").split())
    return f"{text} ({said}){question[len(stripped) :] or '?'}"


# "that one", "this one", "which one", "the one": a "one" with no describing word of its own, which stands
# for the thing the previous question asked which of (not "one of them", "one another", "the one and only")
_ONE = re.compile(r"\b(?:that|this|which|the)\s+one\b(?!\s+(?:of|another|and)\b)", re.IGNORECASE)


_OTHER_POINTER = re.compile(r"\b(?:it|its|they|them|their|those|these)\b", re.IGNORECASE)


def one_asked_for(question: str, previous: str) -> str | None:
    """The query for a follow-up whose "one" (that one, this one, which one, the one) stands for the thing
    the previous question asked which of or listed: "how much GPU memory does that one need?" after "which
    speech model size does the guide recommend?" names "the speech model size", "which one lets an arm
    give way?" after "what control methods does the summary list?" asks "which control method ...", "the
    one about time" after "what are the kinds of grounding ...?" is "the kind about time"; the rest of that
    question in brackets. None when the question has no such "one" or the previous question asks which of
    no named thing (a choice between two named things, "A or B?", keeps its "one": the pair in brackets
    says it). A plural thing is one of them."""
    one = _ONE.search(question)
    if one is None or "(" in previous or _OTHER_POINTER.search(question) or _CORRECTS.match(question):
        # "which one is about running them on the robot?", "which of those is the one ...": another word
        # points back too, and says more of what is meant; a correction swaps its own phrase
        return None
    named = _one_thing_asked(previous)
    if named is None:
        return None
    head, owner = named
    stripped = question.rstrip("?.! ")
    said = "which" if one.group(0).lower().startswith("which") else "the"
    text = f"{stripped[: one.start()]}{said} {head}{stripped[one.end() :]}"
    tail = question[len(stripped) :] or "?"
    return f"{text} ({owner}){tail}" if owner else f"{text}{tail}"


def _one_thing_asked(previous: str) -> tuple[str, str] | None:
    """(the thing, singular, and what it belongs to or the rest of the question) that `previous` asks
    which of ("which speech model size does the guide recommend?") or lists ("what are the phases of the
    capstone?"), or None."""
    listed = _plural_head(previous)
    if listed is not None:
        head, prep, rest = listed
        return head, f"{prep} {rest}".strip()
    asked = _WHICH_HEAD.match(previous)
    if asked is None:
        return None
    tokens = asked.group("head").split()
    if any(t.lower() in _SMALL or t.lower() == "of" for t in tokens):
        return None  # "what kinds of grounding ...": no one thing to name
    return " ".join(tokens), " ".join(t for t in asked.group("rest").split() if t.lower() not in _SMALL)
