"""Whether the retrieved passages answer the question: several cheap signals, one calibrated model.

A reader asks in their own words ("a wheel that has to keep spinning" for "continuous joint"), so no
single lexical rule decides. The signals, all computed from what retrieval already produced:

- dense similarity of the best passages (`top_sim`, `mean3_sim`);
- whether the keyword side found the same passages (`both_sides`; raw BM25 scores and hit counts
  grow with the size of the collection, so they would not carry from one collection to another);
- the best *sentence* match (`sent_max`, `sent_top2`): the question against every sentence of the
  passages, from vectors stored per chunk (`sentences.py`), so a paraphrase meets the sentence that
  answers it;
- coverage of the question's content words by the passages, each word weighted by how rare it is in
  general English (`wordfreq`): a missing "PX4" or "Webots" weighs much more than a missing "laptop";
  and whether a missing word occurs anywhere in the collection at all. A word counts however the
  passages write it (hyphen or none, inside a snake_case name, British or American spelling), and the
  reader's words for the book itself ("the book's example") are not part of the topic;
  A reader who first tells their situation and then asks ("Our lab has big windows and lots of afternoon
  sun. Which type of 3D camera will struggle there?") adds words no passage uses, though the passages
  answer the question sentence: a question of several sentences is covered as well as its best-covered
  sentence (`sentence_parts`). The missing-word signals still read the whole question, so a name the
  collection lacks weighs wherever it stands. So is a question of one sentence that opens with a
  phrase framing its request ("For the learning exercises, how much of the grade goes to the code?"):
  as well as its best-covered clause (`clause_parts`);
- whether the best passage's headings name the question's topic;
- how long the question is beyond ten words (`q_words`): every word a reader adds ("I'm trying to
  plan my last few weeks...") pulls the question's vector away from the passage that answers it, so a
  wordy question's similarities mean more than a short one's.

A logistic model over these signals, trained by `bench/train_answerability.py` on development question
sets (answerable questions, near misses, out-of-scope questions, and near misses made by removing a
question's relevant documents from its results), ships as JSON per embedder in `lectern/data/`; the
local embedder's adds to its log-odds a monotone step function of each signal (`StepFunction`, boosted
stumps on the logistic's log-odds: where a signal's effect is not a straight line). Its
probability is the answer's confidence: the level bands and the refusal threshold are chosen on the
development sets (see docs/confidence-calibration.md). An embedder without a trained model falls back to
the similarity thresholds and the term check of `guardrail.py`.
"""

from __future__ import annotations

import json
import math
import re
from bisect import bisect_left
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache
from importlib import resources
from typing import Any

import numpy as np
from numpy.typing import NDArray

from lectern import word_frequency
from lectern.english import NUMBER_WORDS, ORDINAL_WORDS, clipped_forms, shared_start
from lectern.followups import ACTION_WORDS, GENERIC_WORDS, STOP_WORDS, content_words
from lectern.guardrail import is_name
from lectern.models import ConfidenceLevel, RefusalReason, SearchHit
from lectern.sentences import UnitVectors
from lectern.writers.units import PASSAGES_KEPT, passage_terms, stem_terms

FEATURES = (
    "top_sim",
    "mean3_sim",
    "both_sides",
    "sent_max",
    "sent_top2",
    "cov",
    "cov_top1",
    "miss_rare",
    "miss_unknown",
    "miss_name_unknown",
    "heading",
    "q_words",
)
_FEATURE_INDEX = {name: i for i, name in enumerate(FEATURES)}
PASSAGES = 5  # the decision looks at the best five passages
ROOT_CHARS = 5  # shortest shared beginning that counts as the same root ("behav", "simul")
ROOT_SHARE = 0.8  # ... and it must be most of the shorter word ("life" is not "lifecycle")
_CONTRACTIONS = frozenset({"re", "ve", "ll", "nt"})  # what "we're", "I've" leave behind as words
# Words for the documents themselves ("the book's example", "the course's version"): a reader names the
# book, the book does not name itself, so a passage that lacks the word lacks nothing.
_DOCUMENT_WORDS = frozenset({"book", "textbook", "course", "chapter", "tutorial", "author", "documentation"})
# Latin abbreviations a reader writes between the topic's words ("e.g. PPO"): read as a dotted name, "e.g"
# would be matched by its parts anywhere ("eg" in "leg").
_ABBREVIATIONS = frozenset({"e.g", "i.e", "eg", "ie", "etc", "cf", "viz"})
# "per" makes a rate ("messages per second", "readings per sweep"); the documents write "/s", "Hz" or
# "each": a preposition, no topic (the stop words have "via" and "vs" but not it).
_RATE_WORDS = frozenset({"per"})
# Small numbers as a reader writes them and as the documents may ("five seconds", "5 seconds").
_NUMBER_WORDS = {word: str(i) for i, word in enumerate(("zero", *NUMBER_WORDS[:12]))}
_NUMBER_DIGITS = {digit: word for word, digit in _NUMBER_WORDS.items()}
# An ordinal in words is the number the documents write ("the first week": "Week 1", "1st"), and the other
# way round. Not "second": as often the unit of time ("per second") as the one after the first.
_ORDINAL_WORDS = {word: str(i) for i, word in enumerate(ORDINAL_WORDS[:10], start=1) if word != "second"}
_ORDINAL_SUFFIXED = re.compile(r"^(\d{1,2})(?:st|nd|rd|th)$")
# Questions up to this long count as equally long: a short, precise question ("How do I delete a
# collection?") must not read as less answerable than one of ten words.
SHORT_QUESTION_WORDS = 10
OFF_TOPIC_RARITY = 0.5  # zipf frequency below 3: "Webots", "quadcopter"; not "laptop" or "minutes"
# A word of a question written without capitals counts as a name at this rarity (zipf below 3: "mujoco" 0,
# "jetson" 2.1, "kalman" 2.5), unless it is an everyday word's form (`everyday_form`: "glitchy", "cruder").
PLAIN_NAME_RARITY = OFF_TOPIC_RARITY
# Every question word weighs this plus its rarity: an everyday word the passages lack ("keep", "turn")
# still counts, but a rare one counts for more (0.4: leave-one-book-out, docs/confidence-calibration.md).
WORD_WEIGHT = 0.4
# A hyphenated ordinary word ("hand-eye", "text-to-speech") names one thing, rarer than its rarest part:
# its zipf frequency is taken this much below that part's (wordfreq gives about the part's own).
HYPHENATED_RARER = 1.0

KnownTerm = Callable[[str], bool]


@lru_cache(maxsize=65_536)
def rarity(word: str) -> float:
    """0 for everyday English words, up to 1 for words general English never uses ("Webots", "URDF");
    a hyphenated ordinary word by its rarest part, and rarer (`HYPHENATED_RARER`), unless the hyphen only
    says how ("PDDL-style", "LLM-driven": by the head). Pass the word as the reader wrote it: a hyphen
    before a capital or a digit makes a name, looked up whole."""
    parts = [p for p in word.split("-") if p]
    if len(parts) > 1 and parts[-1].lower() in _MODIFIER_SUFFIXES:
        return rarity("-".join(parts[:-1]))  # "chatbot-style" is as rare as "chatbot"
    if len(parts) > 1 and all(p.isalpha() for p in parts) and not is_compound(word):
        zipf = min(word_frequency.zipf(p) for p in parts) - HYPHENATED_RARER
    else:
        zipf = word_frequency.zipf(word)
    return min(1.0, max(0.0, (6.0 - zipf) / 6.0))


_ACRONYM_PLURAL = re.compile(r"^([A-Z][A-Z0-9]+)s$")  # "IMUs", "LLMs", "GPUs": the book says "IMU"
_WORD_PAIR = re.compile(r"^([A-Za-z]{2,})/([A-Za-z]{2,})$")  # "talker/listener", "request/response"


def _reader_words(question: str) -> list[str]:
    """The question's content words as the documents would write them: an acronym's plural is the
    acronym, and two ordinary words joined by a slash are two words (a path or a code name is not)."""
    out: list[str] = []
    for word in content_words(question):
        # Each pattern tried only where it can match (a word has no line break for `$` to pass over):
        # two regex calls a word were ~20 an answer, for the rare acronym plural or slash pair.
        plural = _ACRONYM_PLURAL.match(word) if word.endswith("s") and "A" <= word[0] <= "Z" else None
        pair = _WORD_PAIR.match(word) if "/" in word else None
        if plural:
            out.append(plural.group(1))
        elif pair:
            out.extend(w for w in pair.groups() if w.lower() not in STOP_WORDS)
        else:
            out.append(word)
    return out


def question_terms(question: str) -> list[tuple[str, bool]]:
    """(word, looks like a name) for each word of the question that can carry its topic."""
    return list(_question_terms(question))


# A few entries: an answer asks again of the same text (`signals` of a question's sentences, after
# `sentence_parts` chose them; a retry's signals), ~40 us a time; not a cache across questions.
@lru_cache(maxsize=32)
def _question_terms(question: str) -> tuple[tuple[str, bool], ...]:
    tokens = [
        w
        for w in _reader_words(question)
        if w.lower() not in ACTION_WORDS and w.lower() not in _CONTRACTIONS and len(w) > 1
    ]
    first = next((w for w in question.split() if w.lower() not in STOP_WORDS), "")
    # A reader who writes no capitals ("how do i install mujoco") marks no name by one: there a word rare
    # in general English counts as a name, as its capital would have made it ("Mujoco").
    # A follow-up's rewrite carries the previous question's words in brackets, capitals and all: the
    # reader's own words are the rest.
    plain = uncapitalised(_BRACKETED_TAIL.sub("", question) if ")" in question else question)
    seen: set[str] = set()
    out: list[tuple[str, bool]] = []
    for word in tokens:
        key = word.lower()
        if (
            key in seen
            or key in GENERIC_WORDS
            or key in _DOCUMENT_WORDS
            or key in _ABBREVIATIONS
            # "PER" (prioritised experience replay) in a question not shouted in capitals is a name
            or (key in _RATE_WORDS and (not word.isupper() or question.isupper()))
        ):
            continue
        seen.add(key)
        named = is_name(word, first=word == first) or (plain and _name_like(word))
        out.append((word, named))
    # Searched only where one of its capitalised words is there at all (`_STOP_ACRONYM` matches it as
    # written, after a determiner): most questions have none, and the scan tried each position.
    if not question.isupper() and any(w in question for w in _ACRONYM_STOP_WORDS):
        # "a CAN bus", "the IT team": an acronym the stop words would drop as "can", "it"
        for word in _STOP_ACRONYM.findall(question):
            if word.lower() not in seen:
                seen.add(word.lower())
                out.append((word, True))
    return tuple(out)


def _name_like(word: str) -> bool:
    """A lower-case word that would be a name written with its capital: rare in general English
    (`PLAIN_NAME_RARITY`) and no everyday word with an English ending or prefix ("snappier", "mishears",
    "runnable": wordfreq counts each form apart, and a form of a common word reads as rare)."""
    return rarity(word) >= PLAIN_NAME_RARITY and not everyday_form(word.lower())


# Endings and prefixes English makes words of words with, and the base each leaves ("snappier": "snappy").
_ENDINGS = (
    ("iest", "y"), ("ier", "y"), ("ies", "y"), ("ied", "y"), ("est", ""), ("er", ""), ("ers", ""),
    ("ing", ""), ("ed", ""), ("es", ""), ("s", ""), ("able", ""), ("ible", ""), ("ly", ""), ("y", ""),
    ("ness", ""), ("ful", ""), ("less", ""), ("ish", ""),
)  # fmt: skip
_PREFIXES = ("mis", "un", "non", "over", "under", "pre", "re", "out")
EVERYDAY_BASE = 3.0  # zipf of the base at least this: an everyday word ("snappy" 3.0, "crude" 3.4)


@lru_cache(maxsize=4096)
def everyday_form(word: str, prefixed: bool = True) -> bool:
    """Whether the lower-case `word` is an everyday word with an English ending ("cruder": "crude",
    "runnable": "run", "chatty": "chat") or prefix ("mishears": "hears")."""
    for ending, added in _ENDINGS:
        if word.endswith(ending) and len(word) - len(ending) >= 3:
            stem = word[: -len(ending)]
            bases = {stem + added, stem + "e"}
            if len(stem) > 3 and stem[-1] == stem[-2]:
                bases.add(stem[:-1])  # "runnable": run, "biggest": big
            if any(word_frequency.zipf(b) >= EVERYDAY_BASE for b in bases):
                return True
    if prefixed:
        for prefix in _PREFIXES:
            rest = word[len(prefix) :]
            if (
                word.startswith(prefix)
                and len(rest) >= 4
                and (word_frequency.zipf(rest) >= EVERYDAY_BASE or everyday_form(rest, prefixed=False))
            ):
                return True
    return False


# The words a reader who never capitalises names may still write with a capital: "I" and its contractions.
_FIRST_PERSON = re.compile(r"\bI(?:['\u2019](?:m|ve|ll|d))?\b")


def uncapitalised(question: str) -> bool:
    """Whether the question has no capital letter at all, "I" aside ("how do i use mujoco?", "what's
    urdf"): a reader who types without capitals says nothing by them of which words are names. A
    question opening with a capital is written in sentence case, whose writer capitalises names ("How
    do I keep a biped from tipping?": "biped" is no name)."""
    return question.islower() or not any(c.isupper() for c in _FIRST_PERSON.sub("", question))


# Stop words that, written in capitals after a determiner, are acronyms ("a CAN bus", "the IT team", "the
# US", "an OR schedule", "its AM band"); not those a reader capitalises for emphasis ("NOT", "DO", "ALL",
# "ONLY"), nor these ones for emphasis where no determiner comes first ("Gazebo OR Webots?", "is IT safe?",
# "I AM new to this", "publish AS fast as it can"): read as a name the documents never use, such a word
# would have the question refused.
_STOP_ACRONYM = re.compile(
    r"(?<![\w'\u2019-])(?i:a|an|the|its|my|your|our|their|his|her|this|each|every|any)\s+"
    r"(CAN|IT|US|OR|AM|AS)\b"
)
_ACRONYM_STOP_WORDS = ("CAN", "IT", "US", "OR", "AM", "AS")  # `_STOP_ACRONYM`'s group, case as written


_COMPOUND = re.compile(r"[a-z][_./][a-z0-9]|[a-z]\d|\d[a-z]", re.I)
# A hyphen before a capital or a digit joins the parts of a name ("ML-Agents", "RTAB-Map", "micro-ROS",
# "6-DoF"); before a lower-case word it makes an ordinary modifier ("LLM-driven", "camera-based").
_NAMED_PARTS = re.compile(r"[A-Za-z0-9]-[A-Z0-9]")


def written_forms(term: str) -> set[str]:
    """A compound name as it may be written: "ros2" / "ros 2", "gpt-4" / "gpt 4" / "gpt4"."""
    term = term.lower()
    spaced = re.sub(r"(?<=[a-z])(?=\d)|(?<=\d)(?=[a-z])", " ", term)
    return {term, spaced, re.sub(r"[_\-/]", " ", term), re.sub(r"[_\-/ ]", "", term)}


@lru_cache(maxsize=8192)
def is_compound(word: str) -> bool:
    """A name joined from parts ("ros2_control", "slam_toolbox", "GPT4", "ML-Agents"): its parts are
    common words, so only the whole name, as written, says a passage is about it. Case matters: pass the
    word as the reader wrote it. Cached: `_present` asks it of each question word per passage set."""
    return _COMPOUND.search(word) is not None or _NAMED_PARTS.search(word) is not None


def _shares_root(stem: str, terms: frozenset[str]) -> bool:
    """A word whose stem the passages hold in another derivation: the stemmer keeps "behaves" (behav)
    and "behavior" apart, and "maths" and "mathematical"; a reader's word form is not a new topic."""
    if len(stem) < ROOT_CHARS:
        return False
    return any(
        shared_start(stem, term) >= ROOT_SHARE * min(len(stem), len(term))
        for term in _with_root(stem[:ROOT_CHARS], terms)
    )


def _with_root(root: str, terms: frozenset[str]) -> list[str]:
    """The terms that begin with `root` (`ROOT_CHARS` letters), in the set's order: found by
    `str.find` in the terms written one a line (C), not by indexing every term by its root in Python.
    The set of the five passages is a new one each answer on a large collection (~1,000 terms on
    SciFact), and indexing it cost ~0.2 ms of CPU an answer."""
    lines = _lines(terms)
    if lines is None:  # a term with a line break (never a stem): each term looked at
        return [term for term in terms if term.startswith(root)]
    mark = f"\n{root}"
    found: list[str] = []
    at = lines.find(mark)
    while at >= 0:
        end = lines.find("\n", at + 1)
        found.append(lines[at + 1 : end])
        at = lines.find(mark, end)
    return found


@lru_cache(maxsize=256)
def _lines(terms: frozenset[str]) -> str | None:
    """The terms one a line, with a line break before the first and after the last (None when a term
    has a line break of its own); cached per set: the same sets come back within an answer."""
    lines = "\n" + "\n".join(terms) + "\n"
    return lines if lines.count("\n") == len(terms) + 1 else None


def _present(word: str, terms: frozenset[str], text: str, hyphenless: frozenset[str] = frozenset()) -> bool:
    """Whether the passages (their `terms` and `text`; `hyphenless`: their hyphenated terms without the
    hyphens, see `_hyphenless`) contain the question word."""
    numerals = _numeral_forms(word.lower())  # most words have none: no generator for them
    if numerals and any(form in terms for form in numerals):
        return True  # "five" or "the first week" where the passages write "5" or "Week 1", and back
    if is_compound(word):
        return any(form in text for form in written_forms(word))
    stems = stem_terms(word)
    if stems and stems <= terms:
        return True
    lower = word.lower()
    if len(stems) == 1 and _shares_root(next(iter(stems)), terms):
        return True
    parts = [p for p in word.split("-") if p]
    if len(parts) > 1:
        # A hyphenated ordinary word is there when its parts are ("box-shaped": box ... shaped), when
        # its head is and the rest only says how ("PDDL-style", "LLM-driven"), or when the documents
        # write it as an identifier ("add-two-ints": add_two_ints).
        if all(stem_terms(p) <= terms for p in parts if p.lower() not in _MODIFIER_SUFFIXES):
            return True
        if "_".join(parts).lower() in text:
            return True
    # ... or in a name's parts ("fusion" in enable_imu_fusion, "head" in head_link), written as one word
    # ("nonlinear": non-linear), or spelled the other side of the Atlantic ("aluminium", "colour",
    # "optimise"; and the other way round).
    if (f"_{lower}" in text or f"{lower}_" in text) and _in_identifier(lower).search(text):
        return True
    # ... or with a version number glued on ("rviz": "RViz2", "python": "python3"): the reader names the
    # tool, the documents one release of it. Not the other way round: "ROS1" is not what "ROS" covers.
    if len(lower) >= MIN_VERSIONED and lower.isalpha() and lower in text and _versioned(lower).search(text):
        return True
    again = done_again(lower)
    if again is not None and (stem_terms(again) <= terms or _whole_word(again).search(text)):
        return True  # "rerun the test": the passages say "run" (as a word: not the "use" of "because")
    return any(all(t in terms or t in hyphenless for t in form) for form in _other_forms(word))


# "re-" before a verb says "again" ("rerun", "reuse", "retrain"): a reader's word the documents write as the
# plain verb. Only for a word rarer than an everyday one whose rest is a word in its own right: "record",
# "remove", "reward" are words of their own, not "cord", "move" or "ward" again.
_AGAIN = re.compile(r"^re([a-z]{3,})$")
AGAIN_RARER = 3.5  # zipf below this: "rerun" (2.9), "reuse" (3.4); not "restart" (3.7) or "remove" (4.7)
AGAIN_REST = 2.5  # ... and the rest at least this common: "run", "use", "calibrate" (2.8)


@lru_cache(maxsize=4096)
def done_again(word: str) -> str | None:
    """The verb a "re-" word says is done again ("rerun" -> "run", "reuse" -> "use"), or None."""
    match = _AGAIN.match(word.lower())
    if match is None or word_frequency.zipf(word.lower()) >= AGAIN_RARER:
        return None
    rest = match.group(1)
    return rest if word_frequency.zipf(rest) >= AGAIN_REST else None


@lru_cache(maxsize=4096)
def _numeral_forms(word: str) -> tuple[str, ...]:
    """How the documents may write a small number or an ordinal a reader wrote the other way: "five" as
    "5" and back, "first" as "1" or "1st", "1st" as "1" or "first", "1" as "one" or "first"."""
    number = _NUMBER_WORDS.get(word) or _NUMBER_DIGITS.get(word)
    counted = (number,) if number is not None else ()
    if word in _ORDINAL_WORDS:
        digits = _ORDINAL_WORDS[word]
        return (digits, _suffixed(int(digits)))
    suffixed = _ORDINAL_SUFFIXED.match(word)
    digits = suffixed.group(1) if suffixed else word
    named = [w for w, d in _ORDINAL_WORDS.items() if d == digits]
    return (digits, *named) if suffixed else (*counted, *named)


def _suffixed(number: int) -> str:
    suffix = {1: "st", 2: "nd", 3: "rd"}.get(number % 10 if number % 100 not in (11, 12, 13) else 0, "th")
    return f"{number}{suffix}"


@lru_cache(maxsize=4096)
def _whole_word(word: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![a-z]){re.escape(word)}(?![a-z])")


@lru_cache(maxsize=4096)
def _other_forms(word: str) -> tuple[frozenset[str], ...]:
    """The stems of the word as the passages may also write it: without its hyphens (to meet a passage's
    hyphenated word with its hyphens dropped), British or American, clipped or in full ("specs":
    "specifications")."""
    forms = (word.replace("-", ""), *_spellings(word), *clipped_forms(word))
    found = {stem_terms(form) for form in forms}
    return tuple(f for f in found if f)


# What a hyphen joins to a name to say how it is done, not what it is about.
_MODIFIER_SUFFIXES = frozenset(
    {
        "style", "like", "based", "driven", "powered", "enabled", "aware", "related", "specific",
        "friendly", "oriented", "level", "type", "ready", "compatible", "capable", "only", "free",
    }
)  # fmt: skip


MIN_VERSIONED = 3  # "mp" is no name "mp3" is a release of


@lru_cache(maxsize=4096)
def _versioned(word: str) -> re.Pattern[str]:
    """The word with a version number glued on, as a whole word: "rviz2", "python3.11", not "rviz2d"."""
    return re.compile(rf"(?<![\w.-]){re.escape(word)}\d+(?:\.\d+)*(?![a-z_])")


@lru_cache(maxsize=4096)
def _in_identifier(word: str) -> re.Pattern[str]:
    """The word as one part of a snake_case name: "fusion" in enable_imu_fusion, not in "confusion_x"."""
    w = re.escape(word)
    return re.compile(rf"(?<![a-z0-9]){w}_|_{w}(?![a-z0-9])")


@lru_cache(maxsize=PASSAGES_KEPT)
def _lowered(text: str) -> str:
    """A passage's text in lower case, kept per passage as its terms are: every answer reads the best
    passage's (and, for a word it lacks, the others'), and lower-casing a few kB is ~20 k instructions."""
    return text.lower()


@lru_cache(maxsize=PASSAGES_KEPT)
def _hyphenless(terms: frozenset[str]) -> frozenset[str]:
    """A passage's terms as a reader writes them apart: its hyphenated terms with the hyphens dropped
    ("non-linear" -> "nonlinear"), and the stemmed words of its snake_case names, which are stemmed as
    one term ("psychological_risk_factors" has "risk": a reader asking about "risks" writes the word
    the name is made of, in any form). Cached per passage (its terms are `passage_terms`' cached set)."""
    joined = frozenset(t.replace("-", "") for t in terms if "-" in t)
    parts = {
        part
        for t in terms
        if "_" in t and len(t) <= _LONGEST_NAME
        for part in _NAME_PARTS.split(t)
        if len(part) > 2 and word_frequency.zipf(part) < _CODE_VERB_ZIPF
    }
    return joined | stem_terms(" ".join(sorted(parts))) if parts else joined


# What joins the words of a code name: "self.psychological_risk_factors", "DataType.BIOMETRIC_DATA".
_NAME_PARTS = re.compile(r"[_.]+")
_LONGEST_NAME = 80  # longer runs joined by underscores are no name a reader's words are made of
# A name's everyday words ("get" in get_logger, "set", "has", "self") are the code's verbs, not its topic:
# a reader's "getting" is not found in a function's name.
_CODE_VERB_ZIPF = 5.5


# (a cheap test on the word's ending, the change): British to American and back, each a guess.
_SPELLINGS: tuple[tuple[tuple[str, ...], re.Pattern[str], str], ...] = tuple(
    (ends, re.compile(pattern), repl)
    for ends, pattern, repl in (
        (("our", "ours", "oured", "ouring", "ourite", "ourites", "ourable"), r"(..)our(\w*)$", r"\1or\2"),
        (("or", "ors", "ored", "oring", "orite", "orites", "orable"), r"(..)or(\w*)$", r"\1our\2"),
        (("ise", "ised", "ises", "ising", "isation", "isations", "iser"), r"(..)is(\w+)$", r"\1iz\2"),
        (("ize", "ized", "izes", "izing", "ization", "izations", "izer"), r"(..)iz(\w+)$", r"\1is\2"),
        (("yse", "ysed", "yses", "ysing"), r"(..)ys(\w+)$", r"\1yz\2"),
        (("yze", "yzed", "yzes", "yzing"), r"(..)yz(\w+)$", r"\1ys\2"),
        (("re", "res", "red"), r"([^aeiou])re(s|d)?$", r"\1er\2"),  # centre, metre, fibre
        (("er", "ers"), r"([^aeiou])er(s)?$", r"\1re\2"),
        (("ogue", "ogues"), r"ogue(s)?$", r"og\1"),  # catalogue, dialogue
        (("og", "ogs"), r"og(s)?$", r"ogue\1"),
        (("ence", "ences"), r"^(licen|defen|offen)ce(s)?$", r"\1se\2"),
        (("ense", "enses"), r"^(licen|defen|offen)se(s)?$", r"\1ce\2"),
        (("aluminium",), r"^aluminium$", "aluminum"),
        (("aluminum",), r"^aluminum$", "aluminium"),
        (("grey",), r"^grey$", "gray"),
        (("gray",), r"^gray$", "grey"),
        (("programme", "programmes"), r"^programme(s)?$", r"program\1"),
    )
)  # fmt: skip


@lru_cache(maxsize=4096)
def _spellings(word: str) -> tuple[str, ...]:
    """The word as the other side of the Atlantic spells it (colour / color, optimise / optimize,
    centre / center: a guess per ending; the documents decide whether the guess is a word)."""
    lower = word.lower()
    if len(lower) < 4 or not lower.isalpha():
        return ()
    out = {pattern.sub(repl, lower) for ends, pattern, repl in _SPELLINGS if lower.endswith(ends)}
    out.discard(lower)
    return tuple(sorted(out))


# Sentence ends a question's parts are cut at: ".", "?" or "!" and a space before the next word; not after
# a Latin abbreviation ("e.g. PPO") or "vs.".
_SENTENCE_END = re.compile(r"(?<=[.?!])\s+(?=[A-Za-z])")
_NOT_AN_END = re.compile(r"(?:\b(?:e\.g|i\.e|etc|cf|viz|vs)\.)$", re.I)
PART_TERMS = 2  # a sentence naming fewer topic words ("Any ideas?") is no part of its own


def sentence_parts(question: str) -> list[str]:
    """The sentences of a question of several, each naming `PART_TERMS` topic words or more; [] for a
    question of one sentence. A question with brackets is left whole: a follow-up's search query carries
    the previous question in brackets, whose words must not cover the follow-up."""
    if "(" in question:
        return []
    parts: list[str] = []
    for piece in _SENTENCE_END.split(question.strip()):
        if parts and _NOT_AN_END.search(parts[-1]):
            parts[-1] = f"{parts[-1]} {piece}"
        else:
            parts.append(piece)
    named = [p for p in parts if len(question_terms(p)) >= PART_TERMS]
    return named if len(named) >= 2 else []


# A question that opens with a phrase or clause framing its request ("For the learning exercises, how
# much of the grade ...?", "If I'm streaming camera frames ..., which delivery setting ...?") is cut
# where the request begins: at a comma before a question word, "so" or "but", at ";" or a dash.
_FRAMING = re.compile(
    r"(?:for|if|in|when|whenever|once|beyond|besides|apart from|aside from|after|before|while|with|"
    r"without|since|because|as|although|though|on|at|during|unless|until|given|to)\b",
    re.I,
)
_ASKS = r"(?:so|but|what|how|why|which|where|when|who|should|can|could|do|does|did|is|are|will|would)"
_CLAUSE_END = re.compile(rf"\s*;\s+|\s+[-\u2013\u2014]+\s+|,\s+(?={_ASKS}\b)", re.I)


def clause_parts(question: str) -> list[str]:
    """The clauses of a question that opens with a framing phrase or clause (`_FRAMING`) before its
    request, each naming `PART_TERMS` topic words or more; [] for any other question. A situation told
    as a clause of its own ("my humanoid has to climb stairs, how do I ...?") is not cut: there the
    situation often is the topic, and near misses were answered. Brackets: as `sentence_parts`."""
    if "(" in question or not _FRAMING.match(question.strip()):
        return []
    named = [p for p in _CLAUSE_END.split(question.strip()) if len(question_terms(p)) >= PART_TERMS]
    return named if len(named) >= 2 else []


# Adjectives that, after "how", ask for a measure ("how far can it see", "how big is its outline"): the
# documents answer with the number and its noun ("range: 30 m", "footprint"), seldom with the adjective.
_MEASURES = frozenset(
    {
        "long", "far", "big", "fast", "heavy", "wide", "tall", "large", "high", "close", "old", "deep",
        "strong", "hard", "quickly", "accurate", "precise", "small", "low", "short", "loud", "bright",
        "hot", "warm", "cold", "soon", "late", "early", "stiff", "smooth", "thick", "thin", "narrow",
    }
)  # fmt: skip
_HOW_MEASURE = re.compile(r"\bhow\s+([a-z]+)\b", re.I)


def measures_asked(question: str) -> frozenset[str]:
    """The adjectives of the question that follow "how" and ask for a measure ("how far", "how big"),
    lower-cased: a passage that gives the measure need not use the adjective."""
    return frozenset(
        m.group(1).lower() for m in _HOW_MEASURE.finditer(question) if m.group(1).lower() in _MEASURES
    )


_BRACKETED_TAIL = re.compile(r"\s*\(([^()]*)\)(?=[?.!]*\s*$)")


def carried_words(query: str, asked: str) -> frozenset[str]:
    """The words, lower case, of the bracketed context a follow-up's rewrite put after `query` ("isn't
    that slow though (when should the robot redo its whole route ...)?") that the question as `asked`
    and the rest of the query do not have: the previous turn's words. None when the brackets are the
    asker's own."""
    # searched only where a closing bracket is: the pattern, tried from every position, needs one
    match = _BRACKETED_TAIL.search(query) if ")" in query else None
    if match is None or match.group(0).strip() in asked:
        return frozenset()
    own = {w.lower() for w, _ in question_terms(query[: match.start()])}
    own |= {w.lower() for w, _ in question_terms(asked)}
    return frozenset(w.lower() for w, _ in question_terms(match.group(1)) if w.lower() not in own)


# Words that ask for advice ("which editor does the course suggest?", "the suggested exercise"): the
# documents give the advice ("VS Code recommended") without the reader's word for asking it; missing,
# such a word is no part of the topic (present, it counts like any word). "recommend" names no topic
# anywhere (a generic word).
ADVICE_WORDS = frozenset(
    {"suggest", "suggests", "suggested", "suggestion", "suggestions", "advise", "advises", "advised"}
)


@dataclass(frozen=True)
class Signals:
    values: tuple[float, ...]
    missing: tuple[str, ...]
    """Question words no passage contains."""
    unknown: tuple[str, ...]
    """Of those, the ones the collection never mentions."""

    def vector(self) -> NDArray[np.float64]:
        return np.asarray(self.values, dtype=np.float64)

    def as_dict(self) -> dict[str, float]:
        return dict(zip(FEATURES, self.values, strict=True))


def signals(
    question: str,
    hits: Sequence[SearchHit],
    query_vector: NDArray[np.float32] | None,
    units: Sequence[UnitVectors] | None,
    known: KnownTerm | None = None,
    carried: frozenset[str] = frozenset(),
) -> Signals:
    """The answerability signals of `question` over the passages found for it. `carried`: words, lower
    case, that a follow-up's rewrite took from the previous turn (`carried_words`), counted only where a
    passage has them."""
    top = list(hits[:PASSAGES])
    sims = sorted((h.similarity for h in top), reverse=True)
    best3 = sims[:3] or [0.0]
    # Shares of what was found, not counts: a small collection has fewer passages to find.
    both = sum(1 for h in top if h.keyword_score is not None) / len(top) if top else 0.0

    best_sentences: list[float] = []
    if query_vector is not None and units:
        q = np.asarray(query_vector, dtype=np.float32).reshape(-1)
        for passage_units, matrix in units[:PASSAGES]:
            # Code blocks have zero rows: a passage of code alone has no sentence to compare.
            rows = [i for i, u in enumerate(passage_units[: matrix.shape[0]]) if u.kind == "sentence"]
            if rows:
                best_sentences.extend(np.sort(matrix[rows] @ q)[-2:].tolist())
    best_sentences.sort(reverse=True)
    sent_max = best_sentences[0] if best_sentences else (sims[0] if sims else 0.0)
    sent_top2 = sum(best_sentences[:2]) / 2 if len(best_sentences) >= 2 else sent_max

    terms = question_terms(question)
    top1_terms = passage_terms(top[0].chunk.search_text) if top else frozenset()
    top1_text = _lowered(top[0].chunk.search_text) if top else ""
    cov = cov_top1 = heading = 0.0
    missing: list[str] = []
    unknown: list[str] = []
    miss_rare = miss_unknown = 0.0
    miss_name_unknown = 0.0
    heading_terms = stem_terms(" ".join(top[0].chunk.heading_hierarchy)) if top else frozenset()
    heading_text = " ".join(top[0].chunk.heading_hierarchy).lower() if top else ""
    top1_hyphenless = _hyphenless(top1_terms) if top else frozenset()
    heading_hyphenless = _hyphenless(heading_terms)
    # All the passages' terms, text and hyphenless terms, made when a word is not in the best one's.
    passages: list[tuple[frozenset[str], str, frozenset[str]]] = []

    def all_passages() -> tuple[frozenset[str], str, frozenset[str]]:
        if not passages:
            per_passage = [top1_terms, *(passage_terms(h.chunk.search_text) for h in top[1:])] if top else []
            everything = frozenset().union(*per_passage) if per_passage else frozenset()
            lowered = (_lowered(h.chunk.search_text) for h in top[1:])
            all_text = "\n".join([top1_text, *lowered]) if top else ""
            passages.append((everything, all_text, frozenset().union(*map(_hyphenless, per_passage))))
        return passages[0]

    def found(word: str) -> tuple[bool, bool]:
        """Whether the passages contain `word`, and whether the best one does. What the best passage
        contains they all do (`_present` only asks whether terms are among the terms, and strings or
        whole words in the text: the best one's text starts the passages' text, a line break after
        it), so the others are looked at only for a word it lacks."""
        in_top1 = bool(top) and _present(word, top1_terms, top1_text, top1_hyphenless)
        return in_top1 or _present(word, *all_passages()), in_top1

    # each word looked up once: a question's sentences or clauses reuse the whole question's words
    seen_words: dict[str, tuple[bool, bool]] = {}

    def lookup(word: str) -> tuple[bool, bool]:
        if word not in seen_words:
            seen_words[word] = found(word)
        return seen_words[word]

    asked = measures_asked(question)

    def topical(word: str) -> bool:
        """ "how far", "how big": the word asks for a quantity the passages give as a number ("30 m",
        "0.5 m radius"); missing, it is no part of the topic (present, it counts like any word). So is
        a word asking for advice (`ADVICE_WORDS`)."""
        return (word.lower() not in asked and word.lower() not in ADVICE_WORDS) or lookup(word)[0]

    # the previous turn's words a follow-up's rewrite carries in brackets keep the search on its topic;
    # one that no passage has says nothing of whether they answer the follow-up
    terms = [(w, n) for w, n in terms if topical(w) and (w.lower() not in carried or lookup(w)[0])]
    weights = [WORD_WEIGHT + rarity(w) for w, _ in terms]
    total = sum(weights) or 1.0
    for (word, name), weight in zip(terms, weights, strict=True):
        in_all, in_top1 = lookup(word)
        if in_all:
            cov += weight
        else:
            missing.append(word)
            miss_rare = max(miss_rare, rarity(word))
            if known is not None and not known(word):
                unknown.append(word)
                miss_unknown = max(miss_unknown, rarity(word))
                if name:
                    miss_name_unknown = 1.0
        if in_top1:
            cov_top1 += weight
        if _present(word, heading_terms, heading_text, heading_hyphenless):
            heading += weight
    cov_share = cov / total if terms else 1.0
    cov_top1_share = cov_top1 / total if terms else 1.0
    for part in sentence_parts(question) or clause_parts(question):
        part_terms = [(w, n) for w, n in question_terms(part) if topical(w)]
        part_weights = [WORD_WEIGHT + rarity(w) for w, _ in part_terms]
        part_total = sum(part_weights) or 1.0
        covered = top1 = 0.0
        for (word, _), weight in zip(part_terms, part_weights, strict=True):
            in_all, in_top1 = lookup(word)
            if in_all:
                covered += weight
            if in_top1:
                top1 += weight
        cov_share = max(cov_share, covered / part_total)
        cov_top1_share = max(cov_top1_share, top1 / part_total)
    values = (
        sims[0] if sims else 0.0,
        sum(best3) / len(best3),
        both,
        float(sent_max),
        float(sent_top2),
        cov_share,
        cov_top1_share,
        miss_rare,
        miss_unknown,
        miss_name_unknown,
        heading / total if terms else 0.0,
        math.log(max(SHORT_QUESTION_WORDS, len(question.split()))),
    )
    return Signals(values, tuple(missing), tuple(unknown))


@dataclass(frozen=True)
class Decision:
    probability: float
    answer: bool
    level: ConfidenceLevel
    reason: RefusalReason | None


@dataclass(frozen=True)
class StepFunction:
    """A piecewise-constant addition to the log-odds from one signal: `values[i]` where the signal is
    above `thresholds[i - 1]` and at most `thresholds[i]` (one more value than thresholds)."""

    feature: str
    thresholds: tuple[float, ...]
    values: tuple[float, ...]

    def __post_init__(self) -> None:
        if self.feature not in FEATURES or len(self.values) != len(self.thresholds) + 1:
            raise ValueError(f"malformed step function over {self.feature!r}")

    def __call__(self, x: float) -> float:
        return self.values[bisect_left(self.thresholds, x)]


@dataclass(frozen=True)
class AnswerabilityModel:
    """A logistic model over `FEATURES` (standardised), with the refusal threshold and level bands;
    `steps`, when trained, add each a step function of one signal to the log-odds."""

    embedder: str
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    weights: tuple[float, ...]
    bias: float
    threshold: float
    medium: float
    high: float
    report: dict[str, Any]
    steps: tuple[StepFunction, ...] = ()

    @cached_property
    def _arrays(self) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
        """`mean`, `scale` and `weights` as arrays, made once per model (not three a decision)."""
        return np.asarray(self.mean), np.asarray(self.scale), np.asarray(self.weights)

    def probability(self, s: Signals) -> float:
        mean, scale, weights = self._arrays
        z = (s.vector() - mean) / scale
        logit = float(z @ weights) + self.bias
        for step in self.steps:
            logit += step(s.values[_FEATURE_INDEX[step.feature]])
        return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, logit))))

    def decide(self, s: Signals) -> Decision:
        p = self.probability(s)
        if p < self.threshold:
            # "off_topic": the question names something the collection never mentions (a rare word,
            # not an everyday one the documents just happen not to use).
            named = any(rarity(w) >= OFF_TOPIC_RARITY for w in s.unknown)
            reason: RefusalReason = "off_topic" if named else "not_answerable"
            return Decision(p, False, "insufficient", reason)
        level: ConfidenceLevel = "high" if p >= self.high else "medium" if p >= self.medium else "low"
        return Decision(p, True, level, None)

    def to_json(self) -> dict[str, Any]:
        steps = [
            {"feature": f.feature, "thresholds": list(f.thresholds), "values": list(f.values)}
            for f in self.steps
        ]
        return {
            "embedder": self.embedder,
            "features": list(FEATURES),
            "mean": list(self.mean),
            "scale": list(self.scale),
            "weights": list(self.weights),
            "bias": self.bias,
            "threshold": self.threshold,
            "medium": self.medium,
            "high": self.high,
            **({"steps": steps} if steps else {}),
            "report": self.report,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> AnswerabilityModel:
        if list(data["features"]) != list(FEATURES):
            raise ValueError("the answerability model was trained on other signals; retrain it")
        return cls(
            embedder=data["embedder"],
            mean=tuple(data["mean"]),
            scale=tuple(data["scale"]),
            weights=tuple(data["weights"]),
            bias=float(data["bias"]),
            threshold=float(data["threshold"]),
            medium=float(data["medium"]),
            high=float(data["high"]),
            report=dict(data.get("report", {})),
            steps=tuple(
                StepFunction(f["feature"], tuple(map(float, f["thresholds"])), tuple(map(float, f["values"])))
                for f in data.get("steps", ())
            ),
        )


def model_file(embedder_name: str) -> str:
    slug = "".join(c if c.isalnum() else "-" for c in embedder_name.lower()).strip("-")
    return f"answerability-{slug}.json"


@lru_cache(maxsize=8)
def load_model(embedder_name: str) -> AnswerabilityModel | None:
    """The shipped model for this embedder, or None (then the threshold rules decide)."""
    try:
        text = resources.files("lectern.data").joinpath(model_file(embedder_name)).read_text("utf-8")
    except (FileNotFoundError, ModuleNotFoundError):
        return None
    return AnswerabilityModel.from_json(json.loads(text))
