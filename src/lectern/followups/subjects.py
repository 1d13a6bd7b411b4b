"""`subject_parts`: a question split into its subject and what it asks of it ("how does the robot pick
up the cup?" -> "the robot", "pick up the cup"), the phrase a follow-up's pronoun stands for.
"""

from __future__ import annotations

import re

from lectern.english import AUXILIARIES, COMPARATIVES, DOCUMENT_VERBS, looks_plural
from lectern.english import DETERMINERS as _DETERMINERS
from lectern.english import PERSONS as _PRONOUN_I
from lectern.english import PREPOSITIONS as _PREPOSITIONS
from lectern.english import VERBS as _VERBS
from lectern.english import word_set as _word_set
from lectern.followups.phrases import (
    _AUX,
    _CAUSATIVES,
    _COPULA_PREDICATE,
    _CUT_AT,
    _DOING_MARK,
    _ENDS_HEAD,
    _IT_FOR_TO,
    _LEAD_CLAUSE,
    _META_WORDS,
    _USED_FOR,
    _WHAT_DOES_X,
    _WHICH_NOUNS,
    _strip_edges,
    _verb_at,
    _without_meta,
)
from lectern.followups.pointing import _CLAUSE_WORDS
from lectern.followups.topics import _ARTICLES, _PARTICIPLES, topic_of
from lectern.followups.vocabulary import (
    _ADVERBS,
    ACTION_WORDS,
    ANAPHORA,
    GENERIC_WORDS,
    STOP_WORDS,
    _is_action,
    _is_adjective,
    _is_plural,
    _is_specific,
    _tokens,
    words,
)
from lectern.ordinals import SAYS_ABOUT

# Words no thing's name is made of (a person, a pronoun, a small word) and, with the auxiliaries and
# question words, words no subject right after an auxiliary is made of.
_NOT_A_THING = _PRONOUN_I | ANAPHORA | STOP_WORDS


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
    return match.group(0) if opens_clause or _pronoun_before_verb(match) else "the "


_DO_AUXILIARY = re.compile(r"\b(?:do|does|did)\b", re.IGNORECASE)


def _pronoun_before_verb(match: re.Match[str]) -> bool:
    """Whether the demonstrative stands alone before the verb a "do" asks with ("what does the launch
    file for that look like?", "does that work on Windows?"): a pronoun, no determiner of "look", so it
    is left as said; "does that plan include meals?" has its verb after the noun."""
    if not match.group(0).lower().startswith(("that", "this")):
        return False
    after = words(match.string[match.end() :])
    if not after or after[0].lower() not in _VERBS or (len(after) > 1 and after[1].lower() in _VERBS):
        return False
    return bool(_DO_AUXILIARY.search(match.string[: match.start()]))


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


_PLURAL_PRONOUN = re.compile(r"\b(?:they|them|their|theirs)\b", re.IGNORECASE)
