"""Lead-ins: a quoted item or sentence brings the short sentence that introduces it, a list quoted
nearly whole gets its last items, and a lead-in whose list or code is left out goes.
"""

from __future__ import annotations

from collections.abc import Mapping

from lectern.writers.extractive.candidates import _by_source, _Candidate
from lectern.writers.extractive.context import _list_items
from lectern.writers.extractive.labels import _SOLUTION, _STATED_SOLUTION, TELLING_LEAD_IN_WORDS


def _without_dangling_lead_ins(chosen: list[_Candidate]) -> list[_Candidate]:
    """Drop a lead-in ("Example trace:", "You will build a robot that can:") whose list or code is not
    quoted after it; only the best sentence stays, whatever follows it."""
    if not chosen:
        return chosen
    best = chosen[0]
    quoted = {(c.source, c.unit.position) for c in chosen}
    return [
        c
        for c in chosen
        if not c.unit.lead_in
        or c.unit.items  # its list comes with it
        or (c is best and c.unit.words >= TELLING_LEAD_IN_WORDS)
        or (c.source, c.unit.position + 1) in quoted
        or _SOLUTION.match(c.unit.intro)  # the first step of a fix ("Fix:" / "1. Add limits:")
        # "Solution: spawn above ground level:" says the fix in its own words (and `_quotable` offers it
        # for that): its code (a reserve passage's is never quoted) only shows how
        or _STATED_SOLUTION.match(c.unit.text)
    ]


PROSE_LEAD_WORDS = 25  # a lead-in this short comes with the sentence that completes it
LIST_TAIL_ITEMS = 2  # the last items of a list quoted nearly whole come too, up to this many
LIST_TAIL_WORDS = 60  # ... and this many words


def _with_lead_ins(
    chosen: list[_Candidate],
    candidates: list[_Candidate],
    by_source: Mapping[int, list[_Candidate]] | None = None,
) -> list[_Candidate]:
    """A chosen list item brings the sentence that introduces its list ("Lectern remembers ...:"), and a
    chosen sentence the short lead-in it completes ("It's calculated as:" / the formula). `by_source`:
    the candidates grouped by source (`_by_source`), when the caller has them."""
    out = list(chosen)
    # each source's units listed once, not again for each chosen unit and list of it
    if by_source is None:
        by_source = _by_source(candidates)
    for c in chosen:
        of_source = by_source.get(c.source, [])
        if not c.unit.bullet:
            out.extend(lead for lead in _completed(c, of_source) if lead not in out)
            continue
        for lead in of_source:
            if not lead.unit.lead_in or lead in out:
                continue
            # only list items between the lead-in and this item
            if all(
                u.unit.bullet for u in of_source if lead.unit.position < u.unit.position < c.unit.position
            ):
                out.append(lead)
    # Items between two chosen items of one list come too: a list is not quoted with holes.
    for source in {c.source for c in out if c.unit.bullet}:
        items = sorted(c.unit.position for c in out if c.source == source and c.unit.bullet)
        of_source = by_source.get(source, [])
        between = [c for c in of_source if items[0] < c.unit.position < items[-1]]
        if all(c.unit.bullet for c in between):
            out.extend(c for c in between if c not in out)
        # ... and a list quoted nearly whole is not cut just before its last items.
        same = {c.unit.position: c for c in of_source}
        if items[-1] not in same:
            continue
        whole = [c for c in _list_items(same, items[-1]) if c.unit.bullet]
        tail = [c for c in whole if c.unit.position > items[-1]]
        quoted = [c for c in whole if c in out]
        if (
            0 < len(tail) <= LIST_TAIL_ITEMS
            and len(quoted) >= 2 * len(tail)
            and sum(c.unit.words for c in tail) <= LIST_TAIL_WORDS
        ):
            out.extend(tail)
    return out


def _completed(c: _Candidate, candidates: list[_Candidate]) -> list[_Candidate]:
    """The short lead-in right before a prose sentence, which the sentence completes ('"Relocalization"
    refers to:' / "A) ... B) ..."; "It's calculated as:" / the formula): without it the sentence does
    not say what it is about. `candidates`: any that hold its source's (its source's alone will do)."""
    if c.unit.kind != "sentence":
        return []
    return [
        u
        for u in candidates
        if u.source == c.source
        and u.unit.position == c.unit.position - 1
        and u.unit.lead_in
        and u.unit.words <= PROSE_LEAD_WORDS
    ]
