"""Plain English word lists that follow-up rewriting (`followups`) and its swaps (`swaps`) read
questions with: general English, none drawn from any document."""

from __future__ import annotations

import re


def word_set(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Numbers and ordinals in words, in order from one and first: a reader's "the fifth day", "number three".
NUMBER_WORDS = (
    "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen",
    "twenty",
)  # fmt: skip
ORDINAL_WORDS = (
    "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth",
    "eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth", "sixteenth", "seventeenth", "eighteenth",
    "nineteenth", "twentieth",
)  # fmt: skip


# The particles of phrasal verbs that go after the verb or its object: "set up", "back up", "log out".
VERB_PARTICLES = word_set("out in up off down back away over")
DETERMINERS = word_set("a an the this that these those my your our its their his her some any")
PREPOSITIONS = word_set(
    "to on in for with from at by into onto over under about via inside through across before after during"
)
# Common verbs that end a subject ("what does the camera example set up", "how does the robot collect
# ...", "what ... should camera images use").
VERBS = word_set(
    """
    do look mean offer add set describe show publish subscribe use produce contain include provide return
    print need require say cover involve support take send make have get give build work output store
    collect decide handle cope compare differ keep know find turn choose pick run create load save help
    affect change move detect plan learn track process read write call start stop list recommend open
    define come cause
    """
)
# "any cheaper option?", "and fewer?": words that weigh one thing against another.
COMPARATIVES = word_set(
    """
    cheaper faster slower easier simpler smaller bigger larger lighter heavier quicker safer worse newer
    older harder
    """
)
# Comparatives of amount or size that say how much of a thing, the thing after them ("more servings").
AMOUNTS = word_set("more less fewer higher lower longer shorter smaller bigger larger")
QUESTION_WORDS = word_set("what which how why when where who whose whom whats")
AUXILIARIES = word_set("is are was were have has had can could do does did will would should must may might")
MODALS = word_set("can could will would should must may might")
SUBORDINATE = word_set("when if because while until unless once whenever after before")
PERSONS = word_set("i we you one")  # "how do [I] write ...": who does it, not what it is about
# "what about AWS instead?", "the ankles too?": the word that marks a switch to another thing
SWITCH = re.compile(r"[\s,]+(?:instead|then|too|as\s+well)$", re.IGNORECASE)

# Everyday clipped words and the full words documentation writes for them ("what specs do I need?" where
# the page says "Specifications"; "the launch config" where it says "configuration"). Only clippings with
# one common full word: "dev" (developer, device, development) or "req" (request, requirement) are left out.
CLIPPED = {
    "spec": "specification",
    "config": "configuration",
    "info": "information",
    "param": "parameter",
    "arg": "argument",
    "repo": "repository",
    "app": "application",
    "env": "environment",
    "stats": "statistics",
    "mic": "microphone",
    "pic": "picture",
    "temp": "temperature",
    "lib": "library",
    "dir": "directory",
    "docs": "documentation",
    "demo": "demonstration",
    "algo": "algorithm",
    "nav": "navigation",
    "perf": "performance",
    "msg": "message",
    "pkg": "package",
    "img": "image",
    "calib": "calibration",
    "coords": "coordinates",
    "prefs": "preferences",
}
_FULL = {full: clipped for clipped, full in CLIPPED.items()}


def clipped_forms(word: str) -> tuple[str, ...]:
    """The word's full form when it is a clipping ("specs" -> "specifications"), or its clipping when it
    is a full form ("configuration" -> "config"); a plural keeps its "s". Empty for any other word."""
    lower = word.lower()
    for base, plural in ((lower, ""), (lower[:-1], "s") if lower.endswith("s") else (lower, "")):
        if base in CLIPPED:
            full = CLIPPED[base]
            return (full[:-1] + "ies" if plural and full.endswith("y") else full + plural,)
        if base in _FULL:
            return (_FULL[base] + plural,)
    return ()


# What a piece of writing does, in any form: "does it cover ...?", "what does it say?", "it lists".
DOCUMENT_VERBS = word_set(
    """
    say says said cover covers covered list lists listed mention mentions mentioned describe describes
    described explain explains explained suggest suggests suggested recommend recommends recommended offer
    offers offered give gives gave show shows showed shown ask asks asked include includes included
    contain contains contained has have had use uses used teach teaches taught tell tells talk talks refer
    refers link links
    """
)


def looks_plural(word: str) -> bool:
    """Whether `word` has a plural noun's "-s", in any case: not "-ss", "-us" or "-is" ("class",
    "status", "analysis"), and more than three letters ("bus", "has")."""
    lowered = word.lower()
    return len(lowered) > 3 and lowered.endswith("s") and not lowered.endswith(("ss", "us", "is"))


def shared_start(one: str, other: str) -> int:
    """How many letters two words share from their start ("retries", "retry": 4): how close their roots
    are, where a stemmer keeps derivations apart."""
    return next(
        (i for i, (a, b) in enumerate(zip(one, other, strict=False)) if a != b), min(len(one), len(other))
    )


# The last sentence of a text: what follows its last ".", "?" or "!" and a space.
_LAST_SENTENCE = re.compile(r"(?:^|[.?!]\s+)([^.?!]*)$")
_OPENER = re.compile(r"\s*([a-z]+)")  # its first word ("what" of "what's")
_ASKED_AFTER_COMMA = re.compile(r",\s+([a-z]+)")


def with_question_mark(text: str) -> str:
    """`text` with the question mark a reader left off ("how do i restart the service" -> "...
    service?"): where its last sentence opens with a question word or an auxiliary, or has a question word
    after a comma ("once it's installed, how do i ..."), and ends in a word.
    An embedder reads the mark as part of the meaning: the same question without it finds other
    passages, a little less like it. Any other text as it is ("explain the config", "(...)")."""
    stripped = text.rstrip()
    if not stripped or not (stripped[-1].isalnum() or stripped[-1] in "'\"\u2019"):
        return text
    last = _LAST_SENTENCE.search(stripped)
    sentence = last.group(1).lower() if last else ""
    opener = _OPENER.match(sentence)
    if opener and opener.group(1) in QUESTION_WORDS | AUXILIARIES:
        return f"{stripped}?"
    if "," in sentence and any(m.group(1) in QUESTION_WORDS for m in _ASKED_AFTER_COMMA.finditer(sentence)):
        return f"{stripped}?"  # "Once it is set up, how do I ..."
    return text
