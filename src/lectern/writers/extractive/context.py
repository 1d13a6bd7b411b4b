"""The chosen units' context in their passages: the list a unit belongs to, the sentence a pointing
one leans on, and the solution after a quoted problem.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from lectern.writers.extractive.candidates import _by_source, _Candidate
from lectern.writers.extractive.labels import _ISSUE, _SOLUTION

LIST_ITEMS = 8  # a list the best sentence belongs to is quoted whole, up to this many items
SHORT_LIST = 5  # the first steps of a fix quoted after its problem
# Another list the answer quotes from comes whole (up to LIST_ITEMS items) when the rest of it is this
# short in words: eight terse items ("Executor: runs the parsed actions") read better whole, five long
# ones bury the answer (on the training questions: +1 answer with every keyword, and shorter answers,
# than a limit of five items).
SHORT_LIST_WORDS = 50
MAX_CONTEXT_WORDS = 160  # ... and while the answer is still this short
ISSUE_REACH = 12  # units after a problem searched for its solution


_ANAPHOR = re.compile(r"^(it|its|this|these|that|those|they|their|such|both|each)\b", re.I)


def _with_context(
    chosen: list[_Candidate],
    candidates: list[_Candidate],
    by_source: Mapping[int, list[_Candidate]] | None = None,
) -> list[_Candidate]:
    """The chosen sentences' context in their passages: the whole list the best one belongs to (and
    any other short list an answer quotes from: "Experience replay" alone hides its two siblings), the
    sentence before the best one when it points back ("It enables: ..."), and the solution that
    follows a quoted symptom ("Symptom: the robot forgets ..." / "Solution: ..."). `by_source`: the
    candidates grouped by source (`_by_source`), when the caller has them."""
    if not chosen:
        return chosen
    if by_source is None:
        by_source = _by_source(candidates)
    best = chosen[0]
    out = list(chosen)
    words = sum(c.unit.words for c in out)
    # each source's units by position, made once per source (not again for each chosen unit of it)
    of_source: dict[int, dict[int, _Candidate]] = {}
    for c in chosen:
        same = of_source.get(c.source)
        if same is None:
            same = of_source[c.source] = {u.unit.position: u for u in by_source.get(c.source, ())}
        introduces = c.unit.lead_in and c.unit.position + 1 in same and same[c.unit.position + 1].unit.bullet
        if c.unit.bullet or introduces:
            items = _list_items(same, c.unit.position + (1 if introduces else 0))
            if c is best and len(items) > LIST_ITEMS:
                items = items[:LIST_ITEMS]
            elif c is not best and (
                sum(1 for i in items if i.unit.bullet) > LIST_ITEMS
                or sum(i.unit.words for i in items if i not in out) > SHORT_LIST_WORDS
                or words > MAX_CONTEXT_WORDS
            ):
                # Too long to quote whole: a lead-in chosen for how well it names the question ("X offers
                # these features:") says nothing without its list, so its best item answers for it.
                bullets = [i for i in items if i.unit.bullet]
                if introduces and bullets and not any(i in out for i in bullets):
                    pick = max(bullets, key=lambda i: i.score)
                    out.append(pick)
                    words += pick.unit.words
                continue
            for item in items:
                if item not in out:
                    out.append(item)
                    words += item.unit.words
        elif c is best and _ANAPHOR.match(c.unit.text):
            before = same.get(c.unit.position - 1)
            if before is not None and before not in out:
                out.append(before)
        after = same.get(c.unit.position + 1)
        if after is not None and _ISSUE.match(c.unit.text) and not _SOLUTION.match(after.unit.text):
            after = _solution_after(same, c.unit.position) or after
        if after is not None and after not in out and _SOLUTION.match(after.unit.text):
            out.append(after)
        elif after is not None and after not in out and _SOLUTION.match(after.unit.intro):
            # "Fix:" over a list: the fix's first steps
            steps = _list_items(same, after.unit.position, through_code=True)[:SHORT_LIST]
            out.extend(i for i in steps if i not in out)
    return out


def _solution_after(same: dict[int, _Candidate], pos: int) -> _Candidate | None:
    """The solution of the problem stated at `pos` ("Issue: ..." / "Possible causes:" / a list /
    "Solutions:" / a list): the first unit that opens or heads a fix before the next problem."""
    for p in range(pos + 1, pos + 1 + ISSUE_REACH):
        u = same.get(p)
        if u is None:
            continue  # a code block (not in `same`) between the problem and its fix
        if _ISSUE.match(u.unit.text):
            return None
        if _SOLUTION.match(u.unit.text) or _SOLUTION.match(u.unit.intro):
            return u
    return None


def _list_items(same: dict[int, _Candidate], pos: int, *, through_code: bool = False) -> list[_Candidate]:
    """The list holding the item at `pos`, its lead-in first when it has one. `through_code` goes on
    past a step's code block ("1. Update the driver:" / code / "2. Verify Vulkan support:")."""
    p = _list_start(same, pos)
    items: list[_Candidate] = []
    while p in same and (same[p].unit.bullet or (same[p].unit.lead_in and not items)):
        if items and same[p].unit.intro:
            break  # "Solutions:" starts another list
        items.append(same[p])
        p += 1
        # Positions missing from `same` are code blocks: one right after a step that introduces it
        step = through_code and same[p - 1].unit.lead_in and p not in same
        if step and p + 1 in same and same[p + 1].unit.bullet:
            p += 1
    return items


def _list_start(same: dict[int, _Candidate], pos: int) -> int:
    """Where the list holding the item at `pos` starts: its lead-in, or its first item."""
    p = pos
    while p - 1 in same and same[p - 1].unit.bullet and not same[p].unit.intro:
        p -= 1
    return p - 1 if p - 1 in same and same[p - 1].unit.lead_in else p
