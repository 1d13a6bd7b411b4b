"""A question that asks what a program prints gets a quoted source's console output."""

from __future__ import annotations

from lectern.writers.console import is_output
from lectern.writers.extractive.candidates import _Candidate
from lectern.writers.extractive.code_quoting import _with_code


def _with_asked_output(
    chosen: list[_Candidate], codes: list[_Candidate], candidates: list[_Candidate]
) -> list[_Candidate]:
    """A question that asks what a program prints ("how many items should it report?") gets the first
    console output block of a source the answer quotes, unless it quotes one already: the output is the
    answer, and it shares few of the question's words (`writers/console.py`). Replayed on the tuned
    sets: answers with every keyword +1 -0, one answer changed (bench/code_diagram_keyword_study.py)."""
    if any(c.unit.kind == "code" and is_output(c.unit.text) for c in chosen):
        return chosen
    quoted = {c.source for c in chosen}
    have = {(c.source, c.unit.position) for c in chosen}
    shown = [
        k
        for k in codes
        if k.source in quoted and (k.source, k.unit.position) not in have and is_output(k.unit.text)
    ]
    if not shown:
        return chosen
    return _with_code(min(shown, key=lambda k: (k.source, k.unit.position)), chosen, candidates)
