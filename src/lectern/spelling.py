"""Misspelt question words put right before a question is searched and judged: "can i do it from rviz
insted" asks about "instead", "its still not conecting" about "connecting".

A word the documents never use and that is rare in English ("conect", zipf below `RARE`) reads as a name
the documents do not cover: the answerability decision refuses such a question as off topic, and the
keyword search finds nothing for it. The word is replaced by the everyday English word one typing slip away
(a letter left out, added, swapped with its neighbour or mistyped) that the documents use and that is far
more common than the slip (`MARGIN`); the most common such word when there are several. Only lower-case
words of five letters or more are respelt: a capital, a digit or an underscore marks a name ("Webots",
"px4", "ros_gz"), and a short word has too many neighbours ("wich": "which" or "with"?). A rare word with
no such neighbour is left as it is, so a question about something the documents never mention ("mujoco",
"porcupine") is still refused.
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable
from functools import lru_cache

from lectern import word_frequency

KnownTerm = Callable[[str], bool]

RARE = 3.0  # zipf below this: not an everyday English word (a slip, or a name)
COMMON = 3.5  # zipf at least this: an everyday word, a likely meaning of the slip
# The meant word is at least 100 times as common as the slip (zipf is log10 per billion words): "patching"
# (2.9) is not a slip of "matching" (4.1), nor "springy" (2.5) of "springs" (4.2); "conect" (1.2) is one
# of "connect" (4.8). On the tune split and train sets a margin of 1.0 respelt both of those.
MARGIN = 2.0
EVERYDAY = 5.5  # a word this common ("should", "which") needs no check against the documents
_PLAIN = re.compile(r"(?<![\w./#+-])[a-z]{5,}(?![\w./#+-])")
# No everyday word is longer: a longer run of letters (a pasted hash, "aaaa...") is no slip of one, and its
# slips, some 50 per letter and each as long, would take the look-up seconds to minutes.
_LONGEST = 25


def respelt(text: str, knows: KnownTerm) -> str:
    """`text` with each misspelt word replaced (module docstring); `knows`: whether the documents use a
    word. The text itself when nothing is misspelt."""
    return _PLAIN.sub(lambda m: _respelt_word(m.group(0), knows), text)


@lru_cache(maxsize=4096)
def misspelt(text: str) -> bool:
    """Whether `text` has a word `respelt` would look up (rare in English): a cheap check before it.
    Cached: every turn checks the conversation's earlier questions again, on the event loop, and each
    word is a look-up in the word-frequency table."""
    return any(word_frequency.zipf(m.group(0)) < RARE for m in _PLAIN.finditer(text))


def _respelt_word(word: str, knows: KnownTerm) -> str:
    if len(word) > _LONGEST or word_frequency.zipf(word) >= RARE or knows(word) or _inflected(word):
        return word
    # only slips at least `COMMON` can be the meant word: looked up in a map of the common words
    slips = word_frequency.common_plain_zipfs(_one_slip(word), COMMON)
    scored = sorted(((z, c) for c, z in slips.items()), reverse=True)
    least = max(COMMON, word_frequency.zipf(word) + MARGIN)
    for zipf, candidate in scored:
        if zipf < least:
            break
        if zipf >= EVERYDAY or knows(candidate):
            return candidate
    return word


# A consonant after a single vowel (after a consonant) at the end of a base: "-ed" and "-ing" often double
# it ("stop": "stopped", "occur": "occurred"), so "stoped", "occured", "begining" are slips, not words.
_DOUBLES = re.compile(r"(?:^|[^aeiou])[aeiou][b-df-hj-np-tvz]$")
# Nor where the ending changes the base: "-s" after a hiss or a "y" after a consonant is "-es" or "-ies"
# ("matchs", "boxs", "studys" are slips of "matches", "boxes", "studies"); a last "e" after a consonant
# goes ("useing", "makeing": "using", "making"); a "y" after a consonant becomes "i" ("tryed": "tried").
_TAKES_ES = re.compile(r"(?:[sxz]|ch|sh|[^aeiou]y)$")
_DROPS_E = re.compile(r"[^aeiouy]e$")
_Y_TO_I = re.compile(r"[^aeiou]y$")


def _inflected(word: str) -> bool:
    """Whether the word is an everyday word (zipf `RARE` or more) with a regular ending: wordfreq counts
    each form apart, so a real word's rarer forms ("patching", "copes") read as rare as a slip
    ("patching" 2.9, "patch" 4.2). Not where "-ed" or "-ing" would have doubled the last letter."""
    bases: list[str] = []
    if word.endswith("s") and not word.endswith("ss"):
        bases += [word[:-1], word[:-2]] if word.endswith("es") else [word[:-1]]
        bases = [b for b in bases if not _TAKES_ES.search(b) or (word.endswith("es") and b == word[:-2])]
    for ending in ("ed", "ing"):
        if word.endswith(ending):
            stem = word[: -len(ending)]
            if (
                not _DOUBLES.search(stem)
                and stem[-2:-1] != stem[-1:]  # "comming" is no form of "comm"
                and not _DROPS_E.search(stem)
                and not (ending == "ed" and _Y_TO_I.search(stem))
            ):
                bases.append(stem)
            # "coping": "cope"; not "runing" ("rune"), a slip of "running" as "run" is the commoner word
            if word_frequency.zipf(stem + "e") > word_frequency.zipf(stem):
                bases.append(stem + "e")
    return any(len(b) >= 3 and word_frequency.zipf(b) >= RARE for b in bases)


def _one_slip(word: str) -> set[str]:
    """Every word one typing slip away: a letter deleted (not the last), two neighbours swapped, one
    replaced or added."""
    splits = [(word[:i], word[i:]) for i in range(len(word) + 1)]
    letters = string.ascii_lowercase
    # not the last letter: "recognizer" and "springy" are words of their own, not slips of "recognize"
    deletes = {a + b[1:] for a, b in splits[:-2] if b}
    swaps = {a + b[1] + b[0] + b[2:] for a, b in splits if len(b) > 1}
    replaces = {a + c + b[1:] for a, b in splits if b for c in letters}
    inserts = {a + c + b for a, b in splits for c in letters}
    return (deletes | swaps | replaces | inserts) - {word}
