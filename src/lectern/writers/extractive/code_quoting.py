"""Code a quoted sentence brings (the block it introduces, follows or comments on), and how a block
joins the answer: with its introduction, never alone.
"""

from __future__ import annotations

import re

from lectern.writers.extractive.candidates import _Candidate


def _with_introduced_code(chosen: list[_Candidate], codes: list[_Candidate]) -> list[_Candidate]:
    """A quoted sentence that introduces a code block ("Solution: preserve the context:") brings it."""
    out = list(chosen)
    for c in chosen:
        if c.unit.lead_in:
            follows = [k for k in codes if k.source == c.source and k.unit.position == c.unit.position + 1]
            out.extend(k for k in follows if k not in out)
    return out


# A sentence that comments on what comes before it ("Rationale: slower than wheeled robots ...").
_COMMENTARY = re.compile(r"^(rationale|effect|result|explanation|why)s?\s*:", re.IGNORECASE)


def _with_commented_code(chosen: list[_Candidate], codes: list[_Candidate]) -> list[_Candidate]:
    """A quoted sentence that comments on the code block right above it ("Rationale: ...", "Effect:
    ...") brings that block: the comment says why, the block says what (the values asked for)."""
    out = list(chosen)
    for c in chosen:
        if c.unit.kind == "code" or not _COMMENTARY.match(c.unit.text):
            continue
        for k in codes:
            if k.source == c.source and k.unit.position == c.unit.position - 1 and k not in out:
                out.append(k)
    return out


def _with_following_code(chosen: list[_Candidate], codes: list[_Candidate]) -> list[_Candidate]:
    """A quoted sentence brings the code right after it when a short lead-in introduces that code
    ("Cause: package not built." / "Solution:" / the build commands; "Scenario: 0.9 m doorway." /
    "Adjust:" / the settings): the sentence alone does not say what to do."""
    # the introduced blocks by place, in their order: looked up for each quoted sentence, not searched
    # for in every block (a bare block after prose may be anything)
    introduced: dict[tuple[int, int], list[_Candidate]] = {}
    for k in codes:
        if k.unit.intro:
            introduced.setdefault((k.source, k.unit.position), []).append(k)
    out = list(chosen)
    for c in chosen:
        if c.unit.kind == "code":
            continue
        for k in introduced.get((c.source, c.unit.position + 1), ()):
            if k not in out:
                out.append(k)
    return out


def _with_code(code: _Candidate, chosen: list[_Candidate], candidates: list[_Candidate]) -> list[_Candidate]:
    """Add the code block, with the sentence that introduces it when the chunk has one."""
    if any(c.source == code.source and c.unit.position == code.unit.position for c in chosen):
        return chosen
    out = [*chosen, code]
    intro = [c for c in candidates if c.source == code.source and c.unit.position == code.unit.position - 1]
    if intro and intro[0] not in out:
        out.append(intro[0])
    else:
        out += _cited_with(code, chosen, candidates)
    return out


def _cited_with(code: _Candidate, chosen: list[_Candidate], candidates: list[_Candidate]) -> list[_Candidate]:
    """A code block is never quoted alone: when the answer quotes nothing else of its source, the
    source's best sentence comes with it (and carries the citation)."""
    if any(c.source == code.source for c in chosen):
        return []
    same = [c for c in candidates if c.source == code.source]
    return [max(same, key=lambda c: c.score)] if same else []
