"""A follow-up that changes one part of the previous question asks that question again with the part
swapped, not with both the old and the new part in it.

A phrase that opens with the word of the part it replaces ("what about on Windows?" after "How do I
install ROS 2 on Ubuntu?") takes that part's place (`swap_phrase`). A follow-up that is only a noun
phrase asks the previous question again about another thing (`swap_noun_phrase`): "and the
motor commands?" after "what delivery settings should camera images use in ROS 2?" is searched as "what
delivery settings should the motor commands use in ROS 2?", not with the old subject kept beside the new
one (which pulls the search back to the previous answer's passages).

The phrase swapped is the one the previous question asks about, found by the shape of the question in
plain English: the subject after the auxiliary ("what ... should camera images use"), the object after
"how do I <verb>", or what "what is/are" names. A code word swaps the code word of the phrase ("and
max_step_size?" after "the real_time_factor setting"). Anything else is left to the general rewrite
(`followups.rewrite._with_previous`): another shape of question, a name ("what about Windows?" after "How do I
install Gazebo?" asks where, not what), or a new phrase whose words the previous question uses elsewhere.
"""

from __future__ import annotations

import re

from lectern.english import (
    AMOUNTS,
    AUXILIARIES,
    DETERMINERS,
    PERSONS,
    PREPOSITIONS,
    SUBORDINATE,
    SWITCH,
    VERB_PARTICLES,
    VERBS,
    looks_plural,
    word_set,
)
from lectern.english import (
    QUESTION_WORDS as _QUESTION_WORDS,
)

# "and X?", "what about X?", "and what about X too?": the X (plain English word lists throughout).
# "ok and Whisper?", "so what about Unity?": a word that carries the conversation on may come first.
_LEAD = r"(?:(?:ok(?:ay)?|so|right|hmm|alright|well)[\s,]+)?"
# "same for cats?", "the same question for Linux?": the previous question asked of another thing
_SAME_FOR = r"(?:the\s+)?same\s+(?:thing\s+|question\s+)?for\s+"
_OPENER = re.compile(
    rf"^\s*{_LEAD}(?:(?:and|but|also)\s+)?(?:(?:what|how)\s+about\s+|(?:and|also)\s+|{_SAME_FOR})?(.+?)[\s?.!]*$",
    re.IGNORECASE,
)
_HAS_OPENER = re.compile(rf"^\s*{_LEAD}(?:and|also|but|what\s+about|how\s+about|{_SAME_FOR})", re.IGNORECASE)
_AUX = AUXILIARIES | word_set("am be been shall")
_PRONOUNS = word_set(
    """
    i we you he she it they them this that these those its it's their there me us him her one's
    """
)
# a noun phrase also ends at these ("the speed of ...", "faster than ...")
# ("a song as WAV": "as" says in what form)
_PREPOSITIONS = PREPOSITIONS | word_set("without using of than versus vs as")
_CLAUSE_WORDS = word_set(
    """
    when if because while until unless once whenever where whether that which who
    """
)
# Verbs that end a subject ("should camera images use ..."), with the doings follow-ups ask about
_VERBS = VERBS | word_set(
    """
    install configure launch implement deploy connect test debug fix train spawn control update export
    import go come behave react respond
    """
)
# Words that carry a conversation on rather than name a thing ("and then?", "and more?").
_FILLERS = word_set(
    """
    then so now else again more please thanks thank yes no ok okay sure also too instead otherwise
    why
    """
)
# The particles of phrasal verbs ("set up", "turn on", "log in"), and the prepositions such a verb takes
# before its object ("sign up for", "log in to", "opt out of").
_PARTICLES = VERB_PARTICLES | {"on"}
_PARTICLE_PREPOSITIONS = frozenset({"for", "to", "into", "of", "with", "from"})
_ENDS_PHRASE = _AUX | _PREPOSITIONS | _CLAUSE_WORDS | _VERBS | _QUESTION_WORDS | frozenset({"used", "meant"})


# Words that open a reply rather than the question in it ("so what ...", "ok, how ...").
_LEADS = word_set("so ok okay and but then well right hmm also")
# "how often should I ...?": how often, how long or how soon a thing is done
_EXTENTS = word_set("often long soon far early late")


# The setting a rewrite put after a question, in brackets.
_BRACKETED = re.compile(r"\s*(\([^()]*\))[?.!]*\s*$")


def _bare(token: str) -> str:
    return token.lower().strip(",;:")


# Whose thing a phrase names ("my whole robot", "its URDF file"): determiners, not pronouns.
_POSSESSIVES = word_set("my your our its their his her")
# A correction names what was meant in full ("no, I meant my whole robot from its URDF file"), so it may
# run longer than the phrase of an "and ...?".
_LONGEST_CORRECTION = 8


def noun_phrase_of(question: str, *, corrected: bool = False, verb_first: bool = False) -> str | None:
    """The noun phrase a follow-up is made of ("and the subscriber?" -> "the subscriber"; "what about
    depth images instead?" -> "depth images"), or None when it has a verb, a pronoun, a question word,
    opens with a preposition or clause word, or runs longer than a short phrase. `corrected`: the phrase
    a correction puts right, which may be longer and say whose thing it is ("my whole robot from its
    URDF file"). `verb_first`: a first word that may be a verb is let through ("write access")."""
    text = " ".join(question.split())
    if not _HAS_OPENER.match(text) and not SWITCH.search(text.rstrip("?.! ")):
        return None  # "the ankles too?" or "and the ankles?", not any short question
    match = _OPENER.match(text)
    if match is None:
        return None
    phrase = SWITCH.sub("", match.group(1).rstrip("?.! "))
    tokens = phrase.split()
    longest = _LONGEST_CORRECTION if corrected else 5
    if not 1 <= len(tokens) <= longest or any(c in phrase for c in ",;:()\"'"):
        return None
    lowered = [_bare(t) for t in tokens]
    if lowered[0] in (set() if verb_first else _VERBS) | _PREPOSITIONS | _CLAUSE_WORDS | {"and", "or", "but"}:
        return None
    pronouns = _PRONOUNS - _POSSESSIVES if corrected else _PRONOUNS
    if any(t in _AUX | _QUESTION_WORDS | pronouns or t.endswith("n't") for t in lowered):
        return None
    own = [t for t in lowered if t not in DETERMINERS]
    if not own or own[0] in _FILLERS or all(t in AMOUNTS for t in own):
        return None  # "and then?", "and more details?", "and fewer?": no thing of its own
    return phrase


def _span(tokens: list[str], start: int) -> tuple[int, int] | None:
    """The noun phrase that starts at `start`: up to a preposition, clause word or verb after its first
    word (a verb right after a determiner is a noun: "the build")."""
    lowered = [_bare(t) for t in tokens]
    end = start
    while end < len(tokens):
        word = lowered[end]
        after_det = end > start and lowered[end - 1] in DETERMINERS
        # "what does the support plan include?": words that may be verbs, before the verb the question
        # ends with and nothing else that ends a phrase, are the phrase's nouns
        before_verb = (
            end > start
            and end + 1 < len(tokens)
            and lowered[-1] in _VERBS
            and all(w in _VERBS or w not in _ENDS_PHRASE for w in lowered[end + 1 : -1])
        )
        if (
            word in _ENDS_PHRASE
            and not ((after_det or before_verb) and word in _VERBS)
            and not (end == start and word in DETERMINERS)
        ):
            break
        if tokens[end].endswith((",", ";", ":")):
            return None  # a phrase cut by punctuation: unsure where it ends
        end += 1
    core = [t for t in lowered[start:end] if t not in DETERMINERS]
    if not core or any(t in _PRONOUNS for t in lowered[start:end]):
        return None
    return start, end


def phrase_span(tokens: list[str], start: int) -> tuple[int, int] | None:
    """The token span of the noun phrase that starts at `start` (`_span`), or None."""
    return _span(tokens, start) if 0 <= start < len(tokens) else None


def asked_about(question: str) -> tuple[int, int] | None:
    """Token span (of `question.split()`) of the thing a question asks about: "what delivery settings
    should [camera images] use ...", "what range of motion should I give [the knee joint] ...", "How do I
    write [a minimal publisher] with rclpy?", "What does [the real_time_factor setting] in a world do?",
    "What are [the minimum computer specs] for this course?". None for any other shape."""
    tokens = question.rstrip("?.! ").split()
    lowered = [_bare(t) for t in tokens]
    # "so what value does a static walk have?", "ok, how do I ...": a word that carries the conversation
    # on comes before the question, which is read from its question word
    lead = next((i for i, t in enumerate(lowered) if t not in _LEADS), len(lowered))
    if lead:
        span = asked_about(" ".join(tokens[lead:]))
        return None if span is None else (span[0] + lead, span[1] + lead)
    if len(tokens) >= 4 and lowered[0] in {"when", "where"} and lowered[1] in _AUX:
        # "when should I plant [tomatoes]?", "how often should I change [the engine oil]?": asked of the
        # thing done as "how do I ...?" is. Not "how much memory does the model need?": "and disk space?"
        # may be another amount as well as another thing
        return _after_auxiliary(tokens, 1)
    if len(tokens) >= 5 and lowered[0] == "how" and lowered[1] in _EXTENTS and lowered[2] in _AUX:
        return _after_auxiliary(tokens, 2)
    if len(tokens) >= 3 and lowered[0] in {"what's", "whats"}:
        return _span(tokens, 1)  # "what's the price of a monthly pass?" as "what is ..."
    if len(tokens) < 3 or lowered[0] not in {"what", "which", "how", "why"}:
        return None
    if lowered[0] in {"what", "which"} and lowered[1] not in _AUX:
        # "what delivery settings should ...": the things asked for, then the auxiliary
        aux = next((i for i, t in enumerate(lowered) if i > 1 and t in _AUX), None)
        if aux is None or aux + 1 >= len(tokens):
            return None
        return _after_auxiliary(tokens, aux)
    if lowered[0] == "what" and lowered[1] in {"is", "are", "was", "were"}:
        return _span(tokens, 2)
    if lowered[1] in _AUX - {"is", "are", "was", "were", "am", "be", "been"}:
        return _after_auxiliary(tokens, 1)
    return None


def _after_auxiliary(tokens: list[str], aux: int) -> tuple[int, int] | None:
    lowered = [_bare(t) for t in tokens]
    if aux + 1 >= len(tokens):
        return None
    if lowered[aux + 1] in PERSONS:
        # "how do I write a minimal publisher": the object after the verb
        if aux + 3 >= len(tokens):
            return None
        start = aux + 3
        if lowered[start] in _PARTICLES and start + 1 < len(tokens):
            # "how do I set up [push notifications]", "sign up for [the newsletter]", "log in to [the
            # dashboard]": a phrasal verb's particle, and the preposition it takes, belong to the verb
            start += 1
            if lowered[start] in _PARTICLE_PREPOSITIONS and start + 1 < len(tokens):
                start += 1
        span = _span(tokens, start)
        if start > aux + 3:
            return span
        if span is None and lowered[aux + 3] in _VERBS and aux + 4 < len(tokens):
            # "how do I grant read access": a word that may be a verb, right after the verb and before a
            # noun, says which kind of thing ("read access")
            rest = _span(tokens, aux + 4) if lowered[aux + 4] not in DETERMINERS else None
            span = (aux + 3, rest[1]) if rest is not None else None
        return span
    return _span(tokens, aux + 1)


def _same_kind(new: list[str], replaced: list[str]) -> bool:
    """Whether `new` is another kind of the thing `replaced` names: as many words past their
    determiners, at least two, the same last noun ("write access" for "read access")."""
    core = [_bare(t) for t in replaced if _bare(t) not in DETERMINERS]
    own = [_bare(t) for t in new if _bare(t) not in DETERMINERS]
    if any(_bare(t) in DETERMINERS for t in new[1:]):
        return False  # "fix the tests": a doing and its object
    return len(own) == len(core) >= 2 and own[-1] == core[-1] and own[0] != core[0]


def _clause_object(tokens: list[str]) -> tuple[int, int] | None:
    """ "what forms do I need if I sold [stock]?": the thing a last "if"/"when" clause of a person doing
    is done to, where the question before it names no phrase of its own to swap; None for any other
    shape. The question before the clause asks of the person too ("what happens if ..." is left alone),
    and the phrase runs to the end of the question ("if I sold stock last year" is left alone)."""
    lowered = [_bare(t) for t in tokens]
    clause = max((i for i, t in enumerate(lowered) if t in _SWAPPED_CLAUSES), default=None)
    if clause is None or clause + 3 >= len(tokens) or lowered[clause + 1] not in PERSONS - {"one"}:
        return None
    if lowered[clause + 2] in _AUX or lowered[clause + 2] in DETERMINERS:
        return None  # "if I am ...", "if I have to ...": no plain doing
    if not PERSONS.intersection(lowered[:clause]):
        # "and my photos?" after "what happens if I delete my account?" may ask what happens to the photos
        return None
    span = _span(tokens, clause + 3)
    return span if span is not None and span[1] == len(tokens) else None


def _modifies_one(phrase_tokens: list[str]) -> bool:
    """Whether a phrase is "one(s)" after words that say which kind ("a saltwater one")."""
    own = [_bare(t) for t in phrase_tokens if _bare(t) not in DETERMINERS]
    return len(own) >= 2 and own[-1] in {"one", "ones"}


def _modified_phrase_after(tokens: list[str], start: int, end: int) -> tuple[int, int] | None:
    """When the span asked about is a bare noun ("the water"), the later phrase of an article, one word
    that says which kind and its noun, ending the question or before a preposition ("a freshwater
    tank"), or None."""
    lowered = [_bare(t) for t in tokens]
    if len([t for t in lowered[start:end] if t not in DETERMINERS]) != 1:
        return None
    for i in range(end, len(tokens) - 2):
        ends = i + 3 == len(tokens) or lowered[i + 3] in _PREPOSITIONS
        words = lowered[i + 1 : i + 3]
        named = not any(w in _ENDS_PHRASE | DETERMINERS for w in words)
        if lowered[i] in {"a", "an", "the"} and ends and named:
            return i, i + 3
    return None


_COPULA_OPENERS = word_set("what's what whats")
_OWNED_BY = word_set("of for")


def _owner_of_attribute(tokens: list[str], start: int, end: int, new: list[str]) -> tuple[int, int] | None:
    """ "what is [the adoption fee] for [a dog]?": the span of the owner, a phrase after "of" or "for" that
    ends the question, when the previous question asks what an attribute ("the ...") of it is and the new
    phrase is another owner: no "the" and no name ("cats", "an annual pass"), or the owner's noun ("the
    science library" for "the main library"); None otherwise."""
    lowered = [_bare(t) for t in tokens]
    if not lowered or lowered[0] not in _COPULA_OPENERS or start >= len(tokens) or lowered[start] != "the":
        return None
    if lowered[0] == "what" and (len(lowered) < 2 or lowered[1] not in {"is", "are", "was", "were"}):
        return None
    at = end if end < len(tokens) and lowered[end] in _OWNED_BY else None
    if at is None:
        return None
    span = _span(tokens, at + 1)
    if span is None or span[1] != len(tokens):
        return None
    own = [_bare(t) for t in new]
    same_head = own[-1] == lowered[-1] and own != lowered[span[0] : span[1]]
    another = own[0] != "the" and not _is_name(new) and not any(t in DETERMINERS - {"a", "an"} for t in own)
    return span if same_head or another else None


def _with_ones(phrase_tokens: list[str], replaced: list[str]) -> list[str]:
    """ "the recommended ones" for "the minimum computer specs": "one(s)" takes the replaced phrase
    without its determiner and its first word, the one the new words stand against ("computer specs"),
    or its head noun alone when that is all it has past the first word."""
    core = [t for t in replaced if _bare(t) not in DETERMINERS and not _bare(t).endswith(("'s", "\u2019s"))]
    noun = core[1:] if len(core) >= 3 else core[-1:]
    out: list[str] = []
    for token in phrase_tokens:
        out.extend(noun if _bare(token) in {"one", "ones"} else [token])
    return out


def swap_noun_phrase(
    previous: str, question: str, *, names: bool = False, corrected: bool = False
) -> str | None:
    """`previous` with the phrase it asks about swapped for the follow-up's noun phrase, or None when the
    follow-up is no bare noun phrase, the previous question has no phrase of a known shape to swap, or
    the new phrase shares a word with the rest of the previous question (it may replace another part).
    `corrected`: the phrase is what a correction says was meant (`noun_phrase_of`)."""
    phrase = noun_phrase_of(question, corrected=corrected)
    verb_led = phrase is None
    if verb_led:
        # "and write access?": a first word that may be a verb, kept only as a kind of the same thing
        phrase = noun_phrase_of(question, corrected=corrected, verb_first=True)
    if phrase is None:
        return None
    setting = _BRACKETED.search(previous)
    if setting is not None:
        # "so what value does a static walk have (duty factor)?": the question before its brackets is
        # swapped, the setting the rewrite put in them stays
        swapped = swap_noun_phrase(previous[: setting.start()], question, names=names, corrected=corrected)
        return None if swapped is None else f"{swapped.rstrip('?')} {setting.group(1)}?"
    if "(" in previous:
        return None
    tokens = previous.rstrip("?.! ").split()
    span = asked_about(previous) or _clause_object(tokens)
    if span is None:
        return None
    start, end = span
    new = phrase.split()
    modified = _modified_phrase_after(tokens, start, end) if _modifies_one(new) else None
    if modified is not None:
        # "what about a saltwater one?" after "how often should I change the water in a freshwater
        # tank?": "one" with words that say which kind is another of a thing named with such words
        # ("a freshwater tank"), not of the bare thing asked about ("the water")
        start, end = modified
    other_owner = _owner_of_attribute(tokens, start, end, new)
    if other_owner is not None:
        # "and cats?" after "what is the adoption fee for a dog?": a thing without "the", or one with the
        # owner's noun, is another owner of the same attribute, not another attribute ("the deposit")
        start, end = other_owner
    replaced = tokens[start:end]
    if verb_led and not _same_kind(new, replaced):
        return None  # "and update packages?" after "how do I install packages?" is another doing
    outside = {_bare(t) for t in tokens[:start] + tokens[end:]}
    if any(_bare(t) in outside for t in new if _bare(t) not in DETERMINERS):
        return None
    if {_bare(t) for t in new} - DETERMINERS <= {_bare(t) for t in replaced}:
        return None  # nothing new: the same thing asked again
    code = [i for i, t in enumerate(replaced) if _is_code(t)]
    if len(new) == 1 and _is_code(new[0]) and len(code) == 1:
        # "and max_step_size?" after "the real_time_factor setting": another setting of the same kind
        return " ".join([*tokens[: start + code[0]], new[0], *tokens[start + code[0] + 1 :]]) + "?"
    if not names and (_is_name(new) or _is_name(replaced)):
        series = _same_series(tokens, start, new, replaced)
        if series is not None:
            # "and Module 4?" after "what does Module 3 cover?", "and Lab 2?" after "what did Lab 1 ask
            # for?": another of the same series, no setting of it, so the old one in brackets would only
            # search for the wrong one; a word after the old name is the verb ("ask")
            kept = (
                replaced[:1] if _bare(replaced[0]) in DETERMINERS and _bare(new[0]) not in DETERMINERS else []
            )
            return " ".join([*tokens[:start], *kept, *new, *series, *tokens[end:]]) + "?"
        if _names_for_a_doer(tokens, start, new, replaced):
            # "and PaLM-E?" after "what does RT-1 output?": the question asked of the new name, the old one
            # kept in brackets, since it may be the new one's setting ("and Windows?" after "what does
            # Isaac Sim need?" may ask what it needs on Windows)
            asked = " ".join([*tokens[:start], *new, *tokens[end:]])
            old = " ".join(t for t in replaced if _bare(t) not in DETERMINERS)
            return f"{asked} ({old})?"
        # "what about Windows?" after "How do I install Gazebo Harmonic?" asks where, not what: whether a
        # name stands for the thing or a setting of it takes knowing the name, so names are not swapped;
        # a correction ("no, I meant Gazebo") says the name is the thing meant (`names`)
        return None
    if len(new) == 2 and _bare(new[0]) in DETERMINERS and _bare(new[1]) in _MEASURES:
        new = [*new, "one"]  # "and the max?" after "what's the default voxel size?": the max voxel size
    if len(new) >= 2 and _bare(new[-1]) in {"kind", "kinds", "sort", "sorts"}:
        # "the numerical kind" for "analytical inverse kinematics solutions": a kind of the same thing,
        # as "the numerical ones"
        new = [*new[:-1], "ones" if new[-1].lower().endswith("s") else "one"]
    if any(_bare(t) in {"one", "ones"} for t in new):
        new = _with_ones(new, replaced)
    owner = next((i for i, t in enumerate(replaced) if _bare(t).endswith(("'s", "\u2019s"))), None)
    if owner is not None and _bare(new[0]) in DETERMINERS:
        # "the error recovery one" for "the capstone's demo scenario": the owner stays
        new = [*replaced[: owner + 1], *new[1:]]
    elif (
        _bare(new[0]) not in DETERMINERS
        and replaced
        and _bare(replaced[0]) in DETERMINERS
        and not (_bare(replaced[0]) in {"a", "an"} and looks_plural(new[-1]))
    ):
        new = [replaced[0], *new]  # "and cucumbers?" for "the tomatoes": "the cucumbers"
    return " ".join([*tokens[:start], *new, *tokens[end:]]) + "?"


def _names_for_a_doer(tokens: list[str], start: int, new: list[str], replaced: list[str]) -> bool:
    """Whether a name follows up a name that is the previous question's doer, its subject right after a
    "do" or a modal ("and PaLM-E?" after "what does RT-1 output?"): a name for a name there asks what the
    other one does; not the object of a how-to ("what about Windows?" after "How do I install Gazebo?"
    asks where) nor what "is" names."""
    before = _bare(tokens[start - 1]) if start > 0 else ""
    return before in _DOER_AUX and _only_names(new) and _only_names(replaced)


def _same_series(tokens: list[str], start: int, new: list[str], replaced: list[str]) -> list[str] | None:
    """What follows the old name in the swapped span when a name of the same series as the previous
    question's doer follows it up ("Module 4" for "Module 3", "Lab 2" for "Lab 1" in "Lab 1 ask"): the
    old name's words but the number, then at most one word (a verb no list has); None otherwise."""
    before = _bare(tokens[start - 1]) if start > 0 else ""
    own_new = [t for t in new if _bare(t) not in DETERMINERS]
    own_old = [t for t in replaced if _bare(t) not in DETERMINERS]
    rest = own_old[len(own_new) :]
    if before not in _DOER_AUX or len(rest) > 1 or any(_is_name([t]) for t in rest):
        return None
    return rest if _numbered_alike(own_new, own_old[: len(own_new)]) else None


def _numbered_alike(new: list[str], replaced: list[str]) -> bool:
    """Whether two names (without their determiners) differ only in a number or version ("Module 4" for
    "Module 3", "Lab 2" for "Lab 1"): the same words around it, so two of one series."""
    a = [_bare(t) for t in new]
    b = [_bare(t) for t in replaced]
    if len(a) != len(b) or len(a) < 2:
        return False
    differ = [(x, y) for x, y in zip(a, b, strict=True) if x != y]
    return len(differ) == 1 and all(any(c.isdigit() for c in w) for w in differ[0])


def _only_names(tokens: list[str]) -> bool:
    """Every word but a determiner a name: a phrase that runs into a verb no list has ("Gazebo simulate")
    is no name alone."""
    own = [t for t in tokens if _bare(t) not in DETERMINERS]
    return bool(own) and all(_is_name([t]) for t in own)


# The auxiliaries whose subject does what the question asks about ("what does RT-1 output?").
_DOER_AUX = word_set("does do did can could will would should")
# Words that say which value of a quantity, standing for the quantity ("and the max?").
_MEASURES = word_set("max maximum min minimum default recommended typical average upper lower")


def _is_code(token: str) -> bool:
    return any(c in token for c in "_./#+") or any(c.isdigit() for c in token)


def _is_name(tokens: list[str]) -> bool:
    """Proper names, acronyms, code words: "Windows", "ROS 2", "max_step_size"."""
    return any(t[:1].isupper() or _is_code(t) for t in tokens if _bare(t) not in DETERMINERS)


# Words that open a phrase a "what about ...?" can swap: prepositions, which end at the next one, and
# clauses, which run to the next comma.
_SWAPPED_PREPOSITIONS = word_set("in on at for with from under over into inside using via without")
_SWAPPED_CLAUSES = word_set("when if while whenever")
_CONDITIONS = word_set("when if whenever")  # one condition stands for another; "while" says during what


def swap_phrase(previous: str, other: str, *, settings: bool = False) -> str | None:
    """ "What about on Windows?" after "How do I install ROS 2 on Ubuntu?": the previous question with its
    last phrase that opens with the same word ("on Ubuntu") swapped for the new one ("How do I install
    ROS 2 on Windows?"), rather than both at once. None when `other` opens with no such word, or the
    previous question has no such phrase past its first word, a clause aside ("If the bridge fails,
    what ...?"): a phrase that opens a question frames it ("For the final project, which tools ...?"),
    and "and for walking around?" asks of another role. `settings`: the phrase swapped may open with
    any word of a place or means ("no, I meant on the real robot" puts right "in Gazebo")."""
    opener, _, rest = other.partition(" ")
    word = opener.lower()
    clause = word in _SWAPPED_CLAUSES
    if not rest.strip() or not (clause or word in _SWAPPED_PREPOSITIONS):
        return None
    stem = previous.rstrip("?.! ")
    tokens = stem.split(" ")
    matches = _SETTING_WORDS if settings and word in _SETTING_WORDS else {word}
    if word in _CONDITIONS:
        matches = _CONDITIONS  # "and if it never boils?" swaps the "when ..." of a condition too
    starts = [
        i
        for i, t in enumerate(tokens)
        if (i > 0 or clause) and t.lower() in matches and (i > 0 or t.lower() == word)
    ]
    if not starts:
        return None
    start = starts[-1]
    end = len(tokens)
    for j in range(start + 1, len(tokens)):
        if tokens[j].startswith("("):
            # the bracket an earlier turn was read with ("what if the dough does not rise (how do I bake
            # bread)?") is no part of the phrase: it ends it, and the swapped question keeps it
            end = j
            break
        bare = tokens[j].rstrip(",;:")
        if bare != tokens[j]:  # a comma ends the phrase, and stays
            return " ".join([*tokens[:start], other + tokens[j][len(bare) :], *tokens[j + 1 :]]) + "?"
        # an auxiliary ends it too: "with tools can a robot learn" is "with tools", then the clause
        if not clause and (
            bare.lower() in PREPOSITIONS or bare.lower() in SUBORDINATE or bare.lower() in _AUX
        ):
            end = j
            break
    return " ".join([*tokens[:start], other, *tokens[end:]]) + "?"


# Words that open where or with what something is done: a correction of one may put right another.
_SETTING_WORDS = word_set("in on at inside using via with")


def and_phrase(question: str) -> str | None:
    """The phrase of an "and in Isaac Sim?" ("in Isaac Sim"), or None. A "for" or "as" phrase names a
    thing ("and for medicine?", "as a PDF?"), not a turn of speech ("for example", "as well", "for the
    second one")."""
    phrase = _AND_PHRASE.match(question)
    if phrase is None:
        return None
    text = SWITCH.sub("", phrase.group(1).rstrip("?.! "))
    opener, _, rest = text.partition(" ")
    if opener.lower() in {"for", "as"}:
        from lectern.followups import content_words  # followups reads its swaps from here

        if not content_words(rest):
            return None
    return text


# "What about on Windows?", "and what about AWS too?": the other thing the previous question is asked of.
# "same thing in Isaac Sim?", "same for Unity?": the previous question asked of something else too.
_WHAT_ABOUT = re.compile(
    rf"^\s*{_LEAD}(?:and\s+)?(?:(?:what|how)\s+about\s+|(?:the\s+)?same\s+(?:thing\s+|question\s+)?(?:for\s+)?)(.+)$",
    re.IGNORECASE,
)
# "And in Isaac Sim?": only a phrase, which asks the previous question again with that phrase changed.
# "and when it has to go faster?" is a phrase; "and when is it the wrong choice?" (a question word and
# its auxiliary) asks a question of its own.
_AND_PHRASE = re.compile(
    rf"^\s*{_LEAD}(?:and|but)\s+((?:in|on|at|with|from|under|inside|using|via|for|as|(?:when|if)(?!\s+(?:"
    + "|".join(sorted(AUXILIARIES))
    + r")\b))\s+.+)$",
    re.IGNORECASE,
)


# "no, I meant on the real robot", "sorry, I meant early fusion", "I mean the ankles": the reader
# corrects the previous question, which is asked again with the phrase put right. Only a short phrase
# to the end: "no, I meant Isaac Sim, how do I install that?" asks a question of its own.
_CORRECTION = re.compile(
    r"^\s*(?:(?:no|nope|sorry|oops|actually|wait|err?|um|ah)\b[\s,.!]*)*"
    r"i\s+(?:meant|mean|was\s+(?:asking|talking)\s+about)\s+([^,;:?!.]+?)[\s?.!]*$",
    re.IGNORECASE,
)


# "sorry, international flights", "no, the rear one": the same correction without "I meant", a short
# phrase after "no," or "sorry,"; one that opens with a word of negation or time ("no, not quite",
# "sorry, never mind", "no, still broken") answers back, it names nothing meant.
_BARE_CORRECTION = re.compile(
    r"^\s*(?:no|nope|sorry|oops)\s*[,.!:;]+\s*(?=\S)(?!(?:not|never|still|just|only|i|nothing|none)\b)"
    r"([^,;:?!.]+?)[\s?.!]*$",
    re.IGNORECASE,
)


def correction(question: str) -> str | None:
    """The phrase a correction puts right ("sorry, I meant early fusion": "early fusion"), or None."""
    fixed = _CORRECTION.match(question) or _BARE_CORRECTION.match(question)
    if fixed is None:
        return None
    phrase = SWITCH.sub("", fixed.group(1).strip())
    opener = phrase.split()[0].lower() if phrase else ""
    if opener in _SWAPPED_PREPOSITIONS | _SWAPPED_CLAUSES and len(phrase.split()) > 1:
        return phrase  # "on the real robot": a phrase of the setting
    # a thing, not a clause ("I mean it is confusing" explains, it corrects nothing)
    return phrase if noun_phrase_of(f"and {phrase}?", corrected=True) else None


# "no, I meant Isaac Sim, how do I install that?": a correction that names the thing, then asks a
# question of its own about it.
_CORRECTION_THEN_ASKS = re.compile(
    r"^\s*(?:(?:no|nope|sorry|oops|actually|wait|err?|um|ah)\b[\s,.!]*)*"
    r"i\s+(?:meant|mean|was\s+(?:asking|talking)\s+about)\s+([^,;:?!.]+?)\s*[,;:]\s*"
    r"((?:what|which|how|why|when|where|who|is|are|does|do|can|could|should|will|would)\b.+)$",
    re.IGNORECASE,
)
# "no, I meant ...", "sorry, I mean ...": what opens a correction, whatever follows it.
_CORRECTION_LEAD = re.compile(
    r"^\s*(?:(?:no|nope|sorry|oops|actually|wait|err?|um|ah)\b[\s,.!]*)+"
    r"i\s+(?:meant|mean|was\s+(?:asking|talking)\s+about)\s+",
    re.IGNORECASE,
)


def correction_then_question(question: str) -> tuple[str, str] | None:
    """The thing and the question of "no, I meant Isaac Sim, how do I install that?" ("Isaac Sim", "how
    do I install that?"), or None."""
    asked = _CORRECTION_THEN_ASKS.match(" ".join(question.split()))
    return (asked.group(1), asked.group(2)) if asked else None


def corrected_words(question: str) -> str | None:
    """What a correction that opens with "no, ..." or "sorry, ..." says was meant, whatever its shape
    ("no, I meant the thing it ends up learning, its strategy": "the thing it ends up learning, its
    strategy"), or None for no such correction or one that asks a question of its own."""
    if correction_then_question(question) is not None:
        return None
    lead = _CORRECTION_LEAD.match(question)
    rest = question[lead.end() :].strip().rstrip("?.! ") if lead else ""
    if _ASKS.match(rest):
        # "sorry, I mean how do I install Isaac Sim?": the question put right in full, no thing to set in
        # the previous question's setting (that setting is what the reader did not mean)
        return None
    return rest or None


# What opens a question of its own.
_ASKS = re.compile(
    r"(?:what|which|how|why|when|where|who|is|are|does|do|can|could|should|will|would)\b", re.IGNORECASE
)


def what_about(question: str) -> str | None:
    """What a "what about X?" asks the previous question of ("what about AWS instead?": "AWS"), or a
    correction puts right ("no, I meant on Windows": "on Windows"), or None."""
    shift = _WHAT_ABOUT.match(question)
    return SWITCH.sub("", shift.group(1).rstrip("?.! ")) if shift else correction(question)


# "and fewer?", "what about less?": an amount alone, no thing.
_AMOUNT_ALONE = re.compile(
    rf"^\s*{_LEAD}(?:(?:and|but)\s+)?(?:(?:what|how)\s+about\s+)?({'|'.join(sorted(AMOUNTS))})"
    r"(?:\s+(?:instead|then|too))?[\s?.!]*$",
    re.IGNORECASE,
)


def swap_amount(previous: str, question: str) -> str | None:
    """ "and fewer?" after "how do I scale a recipe to more servings?": an amount alone asks the
    previous question again with it in place of the previous question's one amount ("to fewer
    servings"). None when the follow-up is no such amount, or the previous question has no amount or
    more than one."""
    asked = _AMOUNT_ALONE.match(question)
    if asked is None:
        return None
    tokens = previous.rstrip("?.! ").split()
    at = [i for i, t in enumerate(tokens) if _bare(t) in AMOUNTS]
    if len(at) != 1 or _bare(tokens[at[0]]) == asked.group(1).lower():
        return None
    # an amount before a thing ("more servings"), not one that ends a clause ("does it cost more")
    if at[0] + 1 >= len(tokens) or _bare(tokens[at[0] + 1]) in _ENDS_PHRASE | DETERMINERS:
        return None
    return " ".join([*tokens[: at[0]], asked.group(1).lower(), *tokens[at[0] + 1 :]]) + "?"


def swapped_question(previous: str, question: str) -> str | None:
    """`previous` asked again with the part `question` changes swapped for the new one (a phrase opening
    with the same word, else the thing it asked about), or None when neither swap applies."""
    other = what_about(question) or and_phrase(question)
    fixed = correction(question)
    if fixed:
        # a correction's phrase is swapped as "and <phrase>?" would be, a name too: it is what was meant
        return (
            swap_phrase(previous, fixed, settings=True)
            or swap_same_head(previous, fixed)
            or swap_kind(previous, fixed)
            or swap_noun_phrase(previous, f"and {fixed}?", names=True, corrected=True)
        )
    return (
        (swap_phrase(previous, other) if other else None)
        or swap_amount(previous, question)
        or swap_named_place(previous, other or noun_phrase_of(question) or "")
        or swap_noun_phrase(previous, question)
    )


def swap_named_place(previous: str, other: str) -> str | None:
    """ "and iOS?" after "how do I build for Android?", "what about Azure?" after "how do I deploy to
    AWS?": a name for the only name of the previous question, which ends it after a preposition (where or
    for what it is done), swaps that name. None when the previous question names anything else, since
    the new name might stand for that ("what about Windows?" after "How do I install Gazebo?")."""
    new = SWITCH.sub("", other.strip().rstrip("?.! ")).split()
    if not new or not all(_named(t) for t in new) or len(new) > 3:
        return None
    tokens = previous.rstrip("?.! ").split()
    # "export a song as WAV": "as" says in what form, a place for a name as "to" or "for" is
    at = max((i for i, t in enumerate(tokens) if _bare(t) in PREPOSITIONS | {"as"}), default=None)
    if at is None or at + 1 >= len(tokens) or at == 0:
        return None
    old = tokens[at + 1 :]
    # "install the CLI on macOS": a name after a determiner is a thing of the question ("the CLI"), which
    # a bare name ("Linux") cannot stand for; "install Gazebo on macOS" has a name it might stand for
    others = [
        t
        for k, t in enumerate(tokens[1:at], start=1)
        if _bare(t) not in PERSONS and _bare(tokens[k - 1]) not in DETERMINERS
    ]
    if not all(_named(t) for t in old) or any(_named(t) for t in others):
        return None
    if {_bare(t) for t in new} & {_bare(t) for t in tokens}:
        return None
    return " ".join([*tokens[: at + 1], *new]) + "?"


def _named(token: str) -> bool:
    """A name by its letters: a capital anywhere ("iOS", "macOS", "AWS") or a code word."""
    return _bare(token) not in DETERMINERS and (any(c.isupper() for c in token) or _is_code(token))


def swap_same_head(previous: str, phrase: str) -> str | None:
    """ "sorry, I meant early fusion" after "What are the drawbacks of late fusion?": the previous
    question with the phrase that ends in the same noun swapped for the corrected one ("What are the
    drawbacks of early fusion?"), or None when no phrase of the previous question ends in the new
    phrase's last word, or the new phrase brings no word of its own. The replaced words are those before
    the shared noun, as many as the new phrase has, up to a determiner, a preposition or a verb. For
    corrections only: a bare "and the z axis?" after "which way does the x axis point?" may ask of
    another part of the same thing, which the noun-phrase swap leaves to the brackets."""
    new = phrase.split()
    if len(new) < 2:
        return None  # one word: a whole thing, not a kind of one
    head = _bare(new[-1])
    tokens = previous.rstrip("?.! ").split()
    ends = [i for i, t in enumerate(tokens) if i > 0 and _bare(t) == head]
    if not ends:
        return None
    end = ends[-1]
    start = end
    while start > end - (len(new) - 1) and start > 0:
        if _bare(tokens[start - 1]) in _ENDS_PHRASE | DETERMINERS:
            break
        start -= 1
    replaced = {_bare(t) for t in tokens[start : end + 1]}
    if start == end or {_bare(t) for t in new} <= replaced:
        return None  # no modifier to put right, or the same phrase again
    first = start
    while first > 0 and _bare(tokens[first - 1]) not in _ENDS_PHRASE | DETERMINERS:
        first -= 1
    if len(new) == 2 and first < start and _describes(tokens[first]) and _describes(new[0]):
        # "numerical solutions" for "analytical inverse kinematics solutions": the word that says which
        # kind stands against the phrase's first word, a describing one as it is ("analytical"), not
        # against the noun of the compound before the head ("kinematics")
        return " ".join([*tokens[:first], new[0], *tokens[first + 1 :]]) + "?"
    if _bare(new[0]) in DETERMINERS and start > 0 and _bare(tokens[start - 1]) in DETERMINERS:
        new = new[1:]  # "the early fusion" after "the": one determiner
    return " ".join([*tokens[:start], *new, *tokens[end + 1 :]]) + "?"


# Endings only describing words have ("analytical", "electric", "passive", "famous", "portable").
_DESCRIBING_ENDINGS = ("al", "ic", "ive", "ous", "ful", "less", "able", "ible")


def _describes(token: str) -> bool:
    word = _bare(token)
    return word.isalpha() and word.islower() and len(word) > 4 and word.endswith(_DESCRIBING_ENDINGS)


def swap_kind(previous: str, phrase: str) -> str | None:
    """ "no, I meant the split-into-stages one" after "what are the upsides of the one-big-model
    approach for ...?": "one" is another of a thing the previous question named with words that say
    which kind ("the one-big-model approach"), so those words are swapped for the new ones ("the
    split-into-stages approach"); not the thing asked about when it has no such words ("the upsides").
    The first such phrase counts; a phrase of three words or more keeps all but its first ("the minimum
    computer specs" -> "the recommended computer specs"). None when the new phrase does not end in
    "one" or "ones" after words of its own, or the previous question has no such phrase."""
    new = phrase.split()
    if len(new) < 2 or _bare(new[-1]) not in {"one", "ones"}:
        return None
    modifiers = [t for t in new[:-1] if _bare(t) not in DETERMINERS]
    tokens = previous.rstrip("?.! ").split()
    if not modifiers or "(" in previous:
        return None
    for i, token in enumerate(tokens):
        span = _span(tokens, i) if _bare(token) in DETERMINERS else None
        if span is None:
            continue
        core = [k for k in range(span[0], span[1]) if _bare(tokens[k]) not in DETERMINERS]
        if len(core) < 2:
            continue
        if {_bare(t) for t in modifiers} <= {_bare(tokens[k]) for k in core}:
            return None  # the same kind again
        kept = core[1] if len(core) >= 3 else core[-1]
        return " ".join([*tokens[: core[0]], *modifiers, *tokens[kept:]]) + "?"
    return None
