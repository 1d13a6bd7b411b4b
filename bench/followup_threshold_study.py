"""Study: a lower refusal threshold for follow-ups that lean on an answered previous turn.

    PYTHONHASHSEED=0 .venv/bin/python bench/followup_threshold_study.py [--low 0.40 0.35 0.30]

A "context" follow-up is one the rules rewrote with the previous turn and whose previous answer cited files
(`engine._favours_previous_sources`: the engine searches it next to those files). For each threshold in
``--low``, such a follow-up refused by the model (p below its 0.4749) is answered, at level "low", when
p >= the lower threshold; everything else is decided as on main. The change is made where the decision is
taken (`engine._decided`, patched here), so a follow-up answered this way skips the engine's second
searches (bare query, previous topic) that a refusal would have tried: d3d-fu-06 below is answered at
low from its first search where main, refused there, answers at medium from a second one.

Measured on: the tuned follow-up sets (followups-dev:dev, followups-dev2:all, followups-dev3:all,
followups-dev4:dev4, followups-devN:devN for N=5..10 and reader:tune's follow-ups), the follow-up near
misses (followups-nm:funm: a covered first turn, then a dependent follow-up on what the book never
answers, grep-proved in each record), the single questions of reader:tune and dev10:dev10 (must not move),
and bench/followup_misses.py's 28 follow-ups the books cannot answer and 120 near misses asked second.

Result (base 1c1ccca, PYTHONHASHSEED=0; "misses" and "nm 2nd": bench/followup_misses.py's 28 follow-ups
the books cannot answer and 120 near misses asked second, refused; "single differ": single questions of
reader:tune and dev10:dev10 whose answer, files, level or score differ from main's):

    variant               tuned fu cited  dependent  funm refused  dev2 fu-nm  misses   nm 2nd  single differ
    main (0.4749)                314/332    271/285         13/20         6/8   23/28  107/120     0 of 212
    context fu at 0.40           315/332    272/285         12/20         5/8   22/28  107/120     0 of 212
    context fu at 0.35           316/332    273/285         12/20         5/8   21/28  107/120     0 of 212
    context fu at 0.30           316/332    273/285         12/20         5/8   20/28  107/120     0 of 212

Rows that change (every variant: d2a-nm-12, d6a-fu-11, fnmc-09, d3d-fu-06, d10d-fu-09; at 0.35 and 0.30
also d10b-fu-03): gained, relevant file cited: d10d-fu-09 (first search 0.355; at 0.40 answered at 0.44
from a second search), d10b-fu-03 (0.365); answered without the relevant file: d6a-fu-11 (0.43); near
misses now answered: fnmc-09 ("how much will that add to my electricity bill?", 0.44), d2a-nm-12 ("does
it work on a macbook with apple silicon?", 0.34 -> 0.42); d3d-fu-06 medium -> low. In
bench/followup_misses.py: "who wrote the original paper on it?" after the ReAct pattern answered from
0.40, "is it patented?" from 0.35, "who wrote it?" after XACRO at 0.30. No single question changes.

Not kept: main already answers 7 of the 20 funm follow-up near misses (65 % refused, against 90 % of the
single near misses of reader:tune), so no lower threshold can keep them refused at 90 % or more, and the
lower thresholds gain one or two cited follow-ups of 332 while answering three or five more questions
the books cannot answer (fnmc-09, d2a-nm-12 and one to three of bench/followup_misses.py's).
The same words asked as a single question (the rewrite, brackets dropped) get the same decisions: what
lets these through is the single-question decision on everyday words (stairs, wifi, insurance, a
certificate) and names it does not see as names (Gemini, Godot), not the conversation. What the signals
show: the answered near misses have a follow-up word the collection never uses (stairs 0.31, wifi 0.34,
Gemini 0.44, Godot 0.57, insurance 0.18 rarity), but so do 33 answerable context follow-ups that are
cited (quicker 0.35, icy 0.41, wiggle 0.46, tidying 0.55, gigs 0.40): no rarity cut separates them, and
"lower the threshold only when no word the collection never uses is missing" gains nothing (the two
gained rows, d10b-fu-03 and d10d-fu-09, each miss such a word).
"""

from __future__ import annotations

import argparse
import asyncio
import json
from pathlib import Path
from typing import Any

import answer_quality as aq
import followup_misses
from common import build, read_jsonl, write_result
from lectern import answerability
from lectern import engine as engine_module
from lectern import turn as turn_module

BOOKS = Path("/work/shared/data/textbooks")
QUESTIONS = Path(__file__).parent / "questions"
SETS = [
    ("followups-dev", "dev"),
    ("followups-dev2", "all"),
    ("followups-dev3", "all"),
    ("followups-dev4", "dev4"),
    *((f"followups-dev{n}", f"dev{n}") for n in range(5, 11)),
    ("reader", "tune"),
    ("followups-nm", "funm"),
    ("dev10", "dev10"),
]
COMPARED = ("answered", "relevant_cited", "sources", "level")

_state: dict[str, Any] = {}
_decision_query = engine_module._decision_query
_decided = engine_module._decided


def _noting_query(turn: Any) -> str:
    _state["turn"] = turn  # the turn being decided: the decision itself is not given it
    return _decision_query(turn)


def _deciding(model: Any, confidence: Any, found: answerability.Signals) -> Any:
    turn = _state.get("turn")
    context = turn is not None and engine_module._favours_previous_sources(turn)
    p = model.probability(found)
    _state["last"] = {
        "context": context,
        "p": p,
        "missing": list(found.missing),
        "unknown": list(found.unknown),
    }
    decided = _decided(model, confidence, found)
    low = _state.get("low")
    if context and decided[1] is not None and low is not None and p >= low:
        update = {"confidence_level": "low", "should_answer": True, "answerability": p}
        return confidence.model_copy(update=update), None
    return decided


async def _rows() -> list[dict[str, Any]]:
    rows = []
    for book in "abcd":
        engine, _, _ = build(BOOKS / f"textbook-{book}")
        for name, split in SETS:
            path = QUESTIONS / f"{name}-textbook-{book}.jsonl"
            for record in aq.selected(list(read_jsonl(path)), split) if path.exists() else []:
                _state.pop("last", None)
                row = await aq.ask(engine, record)
                row.update(set=name, book=book, decision=_state.get("last"))
                rows.append(row)
    return rows


def _share(rows: list[dict[str, Any]], key: str, negate: bool = False) -> str:
    return f"{sum(1 for r in rows if bool(r[key]) != negate)}/{len(rows)}"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--low", type=float, nargs="*", default=[0.40, 0.35, 0.30])
    parser.add_argument("--out", default="followup-threshold-study")
    args = parser.parse_args()
    engine_module._decision_query = _noting_query  # type: ignore[assignment]
    turn_module._decision_query = _noting_query  # type: ignore[assignment]  # _carried looks it up there
    engine_module._decided = _deciding  # type: ignore[assignment]
    results: dict[str, Any] = {}
    base: dict[tuple[str, str, str], dict[str, Any]] = {}
    print(
        f"{'variant':22}{'tuned fu cited':>16}{'dependent':>11}{'funm refused':>14}{'dev2 fu-nm':>12}"
        f"{'misses':>8}{'nm 2nd':>9}{'single differ':>15}"
    )
    for low in [None, *args.low]:
        _state["low"] = low
        rows = asyncio.run(_rows())
        misses = asyncio.run(followup_misses.run())
        key = {(r["set"], r["book"], r["id"]): r for r in rows}
        if low is None:
            base = key
        follow = [r for r in rows if r["kind"] == "followup"]
        single = [k for k, r in key.items() if len(r["turns"]) == 1]
        differ = [k for k in single if any(key[k][f] != base[k][f] for f in (*COMPARED, "text", "score"))]
        changed = [k[2] for k, r in key.items() if any(r[f] != base[k][f] for f in COMPARED)]
        parts = {p: [r for rs in books.values() for r in rs] for p, books in misses.items()}
        dev2_near = [r for r in rows if r["set"] == "followups-dev2" and r["kind"] == "near_miss"]
        name = "main (0.4749)" if low is None else f"context fu at {low:.2f}"
        print(
            f"{name:22}{_share(follow, 'relevant_cited'):>16}"
            f"{_share([r for r in follow if r.get('dependent')], 'relevant_cited'):>11}"
            f"{_share([r for r in rows if r['set'] == 'followups-nm'], 'answered', True):>14}"
            f"{_share(dev2_near, 'answered', True):>12}"
            f"{_share(parts['misses'], 'refused'):>8}{_share(parts['near_misses'], 'refused'):>9}"
            f"{len(differ):>6} of {len(single)}"
        )
        if low is not None:
            print("    changed:", " ".join(changed) or "-")
        results[name] = {"rows": rows, "misses": misses}
    print(f"-> {write_result(args.out, json.loads(json.dumps(results, default=str)))}")


if __name__ == "__main__":
    main()
