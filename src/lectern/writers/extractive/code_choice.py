"""Which code block answers: the blocks that can (no diagram; the fix after a quoted symptom), the
best match, those about as near in meaning as the quoted sentences, and the top source's code.
"""

from __future__ import annotations

import dataclasses
import re
from functools import lru_cache

from lectern.models import SearchHit
from lectern.writers.extractive.candidates import _Candidate
from lectern.writers.extractive.code_lines import _code_block_terms, _code_lines
from lectern.writers.extractive.code_quoting import _with_code

# A code block that shares at least this share of the question's words, and more than any sentence the
# answer quotes, comes with the answer when it is at most this many lines long (fence included).
CODE_OUTMATCH_MIN = 0.3
CODE_OUTMATCH_LINES = 20
# A code block has no vector of its own, but its chunk's similarity to the question says what it is
# about: with this weight, a block of a chunk nearer the question in meaning beats one that merely
# ranks higher ("flip the elbow joint": the URDF joint, not the first-ranked slider script). On replay,
# weights 0.5-2.0 alike: train +1 cited and +1 with every keyword, two other answers shorter or on
# point, tune unchanged.
CODE_MEANING = 1.0
# A block's section heading says what the block does ("Step 1: Install NVIDIA Container Toolkit" over the
# apt commands) when the block's own words do not: the question's words in the innermost headings count
# as much as in the code. On replay of the tuned sets (bench/writer_census.py: the keyword an answer
# missed sat in a block of another passage of the cited file), 0.5-2.0 alike: answers with every keyword
# +2 -0 (dev2 "what do I install before the GPU works in Docker", follow-ups dev), 4 answers of 874
# change, cited files unchanged.
CODE_HEADING = 1.0
# A code block has a vector of its own too when something says in words what it does (its lead-in,
# title or comments, `code_gist`). A block at least this near the question in meaning, relative to the
# best quoted sentence, comes with an answer that is not a how-to one: the command or setting asked
# for in other words ("how often do messages arrive" / "# Get topic statistics" / `ros2 topic hz`).
# Replayed (bench/code_vectors_study.py): 0.6-0.9 gain 4-5 answers with every keyword over the
# development sets and lose none; 36 of 576 answers change, ~50 words longer each. A how-to question
# that no block answers in its own words gets such a block too (`_whole_nearer_in_meaning`; tuned-set
# replay: answers with every keyword +1 -0, 9 of 874 answers change, cited unchanged).
CODE_MEANING_OUTMATCH = 0.8


QUOTED_CODE_SHARE = 0.8  # a code block whose words the question repeats this much is the question's own


def _answering(codes: list[_Candidate], asked: frozenset[str]) -> list[_Candidate]:
    """The code blocks that can answer: one the question quotes ("fails with 'Failed to create Vulkan
    instance'") shows the symptom, so the block after it in its chunk (the fix) stands in for it."""
    out: list[_Candidate] = []
    for c in codes:
        if _drawing(c.unit.text):
            continue
        if not _quoted_by(c, asked):
            out.append(c)
            continue
        later = [k for k in codes if k.source == c.source and 0 < k.unit.position - c.unit.position <= 2]
        if later:
            fix = min(later, key=lambda k: k.unit.position)
            # The fix inherits the symptom's match: it is what the question asks for.
            out.append(dataclasses.replace(fix, lexical=max(fix.lexical, c.lexical)))
    return out


# Box-drawing characters and arrows: a fenced block drawn with them is a diagram, not code to run.
_DRAWN = re.compile(r"[\u2190-\u21ff\u2500-\u259f\u25b2-\u25c5]")
DRAWN_SHARE = 0.3


@lru_cache(maxsize=4096)
def _drawing(block: str) -> bool:
    """Whether a fenced block is a text diagram (boxes and arrows): it shows a design, it does not say
    what to type, so it never stands for the code a how-to question asks for. Cached by block, as
    `_code_lines`: the same blocks come back across answers, and the search scans the whole block."""
    if not _DRAWN.search(block):  # most blocks: no such character at all, one search instead of a line's
        return False
    lines = [line for line in block.split("\n")[1:-1] if line.strip()]
    return bool(lines) and sum(1 for line in lines if _DRAWN.search(line)) >= DRAWN_SHARE * len(lines)


def _quoted_by(code: _Candidate, asked: frozenset[str]) -> bool:
    body = frozenset().union(*(terms for _, terms in _code_lines(code.unit.text)[1:-1]))  # inside the fence
    return len(body) >= 2 and len(body & asked) >= QUOTED_CODE_SHARE * len(body)


def _best_code(
    codes: list[_Candidate], chosen: list[_Candidate], *, strict: bool = True, lead: int | None = None
) -> _Candidate | None:
    """The code block that best matches a how-to question, favouring the sources already quoted.
    `strict` wants the code itself to share the question's words; otherwise its chunk may, and so may
    a block of the `lead` source (the one the answer's best sentence comes from): a command seldom
    repeats the reader's words ("tf2_echo map base_link" under "Frame [X] does not exist")."""
    quoted = {c.source for c in chosen}
    best: _Candidate | None = None
    best_score = 0.0
    for c in codes:
        score = c.lexical + 0.5 * c.chunk + 0.3 * c.rank_prior + (0.2 if c.source in quoted else 0.0)
        score += CODE_MEANING * c.hit.similarity + CODE_HEADING * c.heading
        if (c.lexical >= 0.2 or not strict or c.source == lead) and score > best_score:
            best, best_score = c, score
    return best


def _nearer_in_meaning(codes: list[_Candidate], chosen: list[_Candidate]) -> list[_Candidate]:
    """The code blocks about as near the question in meaning as the best quoted sentence, or nearer."""
    best = max((c.cosine for c in chosen if c.cosine is not None), default=None)
    if best is None or best <= 0:
        return []
    return [k for k in codes if k.cosine is not None and k.cosine >= CODE_MEANING_OUTMATCH * best]


def _whole_nearer_in_meaning(codes: list[_Candidate], chosen: list[_Candidate]) -> list[_Candidate]:
    """`_nearer_in_meaning`, less the blocks that start inside a listing: a file's middle chunk says
    nothing on its own of what the file is for (its opening is what `_with_named_code` quotes)."""
    return [k for k in _nearer_in_meaning(codes, chosen) if not _continues(k.unit.text)]


def _outmatching(codes: list[_Candidate], chosen: list[_Candidate]) -> bool:
    """Whether a short code block shares more of the question's words than every quoted sentence."""
    best = max(c.lexical for c in chosen)
    return any(
        k.lexical >= CODE_OUTMATCH_MIN and k.lexical > best and k.unit.text.count("\n") <= CODE_OUTMATCH_LINES
        for k in codes
    )


def _with_top_code(
    chosen: list[_Candidate], codes: list[_Candidate], candidates: list[_Candidate], asked: frozenset[str]
) -> list[_Candidate]:
    """The best-ranked source's code when that source has nothing else to quote (a code block, perhaps
    under a lead-in): retrieval put it first, and sentence scoring alone never reaches it. `codes` are
    the answering blocks (`_answering`): the fix stands in for a block the question quotes; another
    chunk of the same listing stands in for it when it matches the question better."""
    if any(c.source == 1 for c in chosen):
        return chosen
    if any(c.source == 1 and not c.unit.lead_in for c in candidates):
        return chosen
    top = [c for c in codes if c.source == 1]
    if not top:
        return chosen
    return _with_code(_best_of_listing(top[0], codes, candidates, asked), chosen, candidates)


def _best_of_listing(
    code: _Candidate, codes: list[_Candidate], candidates: list[_Candidate], asked: frozenset[str]
) -> _Candidate:
    """A long listing is split over chunks, and retrieval may rank its tail first: of the code-only
    chunks of the code's section, the block that shares the most of the question's words (identifiers
    split: "temperature_limits" names what no comment may)."""
    prose = {c.source for c in candidates if not c.unit.lead_in}
    if code.source in prose:
        return code
    listing = [c for c in codes if c.source not in prose and _same_section(c.hit, code.hit)]
    return max(listing, key=lambda c: (len(_code_block_terms(c.unit.text) & asked), c is code, -c.source))


def _continues(block: str) -> bool:
    """Whether a fenced block starts inside a listing (its first line is indented)."""
    lines = block.split("\n")
    return len(lines) > 1 and lines[1][:1] in (" ", "\t")


def _same_section(a: SearchHit, b: SearchHit) -> bool:
    return (
        a.chunk.source_path == b.chunk.source_path and a.chunk.heading_hierarchy == b.chunk.heading_hierarchy
    )
