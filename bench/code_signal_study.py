"""Code rows in the answerability decision's sentence match (a study; nothing here ships).

    .venv/bin/python bench/code_signal_study.py $BASE $DEV2 --splits tune dev2 [--reuse] [--target 0.94]

($BASE: the eleven pairs of the training command, docs/confidence-calibration.md; $DEV2: the four
dev2-textbook-* pairs; run from the repository root.) The harness is `answer_type_study`'s: the rows of
`train_answerability.examples` (retrievals from `lobo_answerability`'s cache) with `CODE_EXTRA`
appended, each variant run through `answerability_study.held_out` (leave one book out, trained as
shipped: tune splits only, the dev2 sets measured, never trained on; 200 stumps; threshold keeping 94 %
of the training books' answerable examples), printed by `answerability_study.report`, plus a paired
bootstrap of the held-out AUROC change against the shipped signals.

The idea: since code blocks have a stored vector (`writers/code_gist`: the block's lead-in, title and
comments; a zero row when none), an answerable question whose answer is a command or a setting in a
code block ("Is there one command that diagnoses the usual problems?" -> `ros2 doctor`) might match
that row better than any sentence, while `signals()` masks code rows. Candidates (`code_signals`):
- `sent_max_all` / `sent_top2_all`: `sent_max` / `sent_top2` over sentence AND code rows (unmasked);
  the variant "unmasked" swaps them in for the shipped pair;
- `code_max`: the best code-row cosine (0 when the passages have no code row with a gist);
- `code_gap`: max(0, code_max - sent_max): a code row beats every sentence;
- `code_max_howto`: code_max only for how-to / command questions (`HOWTO`), else 0;
- "unmasked for how-to questions only": the unmasked pair for `HOWTO` questions, the shipped pair else.

Findings (Nov 2026, main 50f32ec, MiniLM, code rows from `code_gist`; held out: reader + train sets
~390 answerable, 120 near misses; dev2 110 answerable, 48 near misses; one near miss is 0.8 / 2.1
points, one answerable 0.26 / 0.9):

    variant                        reader + train held out        | dev2 held out
                                   answ.  nm   AUROC  answ.@nm90  | answ.  nm   AUROC  answ.@nm90
    shipped                        91.0  90.0  96.68  89.0        | 78.2  79.2  92.43  64.5
    unmasked (sent_max/top2)       90.8  88.3  96.60  90.5        | 78.2  81.2  92.39  60.0
    unmasked, how-to only          91.0  90.8  96.67  91.3        | 78.2  81.2  92.24  61.8
    + code_max                     91.0  85.0  96.79  87.9        | 80.0  75.0  91.59  47.3
    + code_gap                     90.5  87.5  96.32  80.8        | 78.2  81.2  91.79  55.5
    + code_max_howto               90.8  90.0  96.55  85.4        | 78.2  77.1  92.27  60.0

Paired bootstrap of the AUROC change (500 resamples of the held-out answerable / near-miss /
out-of-scope questions; reader + train | dev2): unmasked -0.08 (95 % -0.31..+0.16) | -0.04
(-0.67..+0.58); how-to only -0.01 (-0.16..+0.15) | -0.18 (-0.67..+0.29); code_max +0.11 (-0.38..+0.65)
| -0.84 (-2.15..+0.44); code_gap -0.36 (-0.94..-0.01) | -0.64 (-1.91..+0.05); code_max_howto -0.13
(-0.25..-0.05) | -0.16 (-0.44..+0.10). Nothing helps both groups; `code_max` costs 5 points of
near-miss refusal at 0.94 on the reader + train sets and 4 on dev2 (answered at 90 % near-miss
refusal 64.5 -> 47.3), `code_gap` and `code_max_howto` lower the AUROC beyond the interval on one
group. Nothing ships.

Why (the rows, all books): a code row is there about as often for near misses as for answerable
questions (121 of 220 near misses, 288 of 542 answerable) and beats every sentence about as rarely
(18 of 220 = 8 %; 66 of 542 = 12 %; constructed near misses 49 of 674). A book's code sits under
the topic's sentences whether or not it answers: the gist is the lead-in sentence, already among the
sentence rows, plus a title and comments in the topic's words. Of the 59 answerable questions the
shipped decision refuses (held out), a code row beats every sentence for 7, by 0.02 to 0.10 of cosine
but one (llama.cpp GPU layers: 0.41 -> 0.63), and 12 near misses have the same pattern (1 answered).
The brief's examples are not among them: "one command that diagnoses the usual problems" has its best
sentence at 0.71 and its best code row at 0.48 (refused on other signals), "make my Python node
configurable without editing its code" 0.48 against 0.43: unmasking leaves both unchanged. Mean
best-code-row cosine where one exists: answerable 0.437, near misses 0.347, but the best sentence
is higher by the same 0.15 on average for both, so `sent_max` already carries what the code row says.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np

import answer_type_study
import answerability_study as study
import lobo_answerability as lobo
from lectern.answerability import FEATURES, PASSAGES
from lectern.models import SearchHit
from lectern.sentences import UnitVectors

Row = dict[str, Any]

CODE_EXTRA = (
    "sent_max_all",
    "sent_top2_all",
    "code_max",
    "code_gap",
    "code_max_howto",
    "sent_max_howto",  # sent_max_all for a how-to / command question, else the shipped sent_max
    "sent_top2_howto",
)
ALL = (*FEATURES, *CODE_EXTRA)
# A question asking how to do something, or for a command / setting by name (general English).
HOWTO = re.compile(
    r"\bhow (do|can|should|would) (i|you|we|one)\b|\bhow to\b|\b(commands?|cli|terminal|flags?|"
    r"arguments?|syntax|parameters?|settings?|configur\w*|options?|install\w*|launch\w*|run)\b"
)


def code_signals(
    question: str, query_vector: np.ndarray | None, units: Sequence[UnitVectors] | None
) -> list[float]:
    sentences: list[float] = []
    both: list[float] = []
    code: list[float] = []
    if query_vector is not None and units:
        q = np.asarray(query_vector, dtype=np.float32).reshape(-1)
        for passage_units, matrix in units[:PASSAGES]:
            n = min(len(passage_units), matrix.shape[0])
            if not n:
                continue
            sims = matrix[:n] @ q
            sent = [float(s) for u, s in zip(passage_units, sims, strict=False) if u.kind == "sentence"]
            # a code block without a gist has a zero row: nothing to compare
            rows = [float(s) for u, r, s in zip(passage_units, matrix[:n], sims, strict=False)
                    if u.kind == "code" and np.any(r)]  # fmt: skip
            sentences += sorted(sent)[-2:]
            both += sorted(sent + rows)[-2:]
            code += rows
    sentences.sort(reverse=True)
    both.sort(reverse=True)
    sent_max = sentences[0] if sentences else 0.0
    all_max = both[0] if both else 0.0
    all_top2 = sum(both[:2]) / 2 if len(both) >= 2 else all_max
    code_max = max(code, default=0.0)
    howto = HOWTO.search(question.lower()) is not None
    top2 = sum(sentences[:2]) / 2 if len(sentences) >= 2 else sent_max
    return [all_max, all_top2, code_max, max(0.0, code_max - sent_max), code_max * howto,
            all_max if howto else sent_max, all_top2 if howto else top2]  # fmt: skip


def _code_extra(
    question: str,
    hits: Sequence[SearchHit],
    vector: np.ndarray | None,
    units: Sequence[UnitVectors] | None,
    sent_max: float,
) -> list[float]:
    return code_signals(question, vector, units)


def paired_bootstrap(base: lobo.Held, other: lobo.Held, prefixes: tuple[str, ...], n: int = 500) -> str:
    """The AUROC change (answerable vs near miss + out of scope) and its 95 % interval, resampling the
    held-out questions (the same rows in both runs)."""

    def pick(held: lobo.Held) -> dict[tuple[str, str], tuple[int, float]]:
        return {
            (r["set"], r["id"]): (r["y"], m)
            for r, m in held
            if r["set"].startswith(prefixes) and (r["y"] == 1 or r["kind"] in ("near_miss", "out_of_scope"))
        }

    a, b = pick(base), pick(other)
    keys = sorted(set(a) & set(b))
    y = np.asarray([a[k][0] for k in keys])
    ma = np.asarray([a[k][1] for k in keys])
    mb = np.asarray([b[k][1] for k in keys])

    def auc(idx: np.ndarray, m: np.ndarray) -> float:
        pos, neg = m[idx][y[idx] == 1], m[idx][y[idx] == 0]
        if not len(pos) or not len(neg):
            return float("nan")
        return float(((pos[:, None] > neg[None, :]) + 0.5 * (pos[:, None] == neg[None, :])).mean())

    full = np.arange(len(keys))
    delta = auc(full, mb) - auc(full, ma)
    rng = np.random.default_rng(0)
    deltas = []
    for _ in range(n):
        idx = rng.integers(0, len(keys), len(keys))
        deltas.append(auc(idx, mb) - auc(idx, ma))
    lo, hi = np.nanpercentile(deltas, [2.5, 97.5])
    return f"{delta * 100:+.2f} (95 % {lo * 100:+.2f}..{hi * 100:+.2f})"


def main() -> None:
    args, rows = answer_type_study.arguments_and_rows("code-signal-rows.pkl", _code_extra)
    describe(rows)
    study.ALL = ALL  # type: ignore[assignment]  # the study's fold trainer names its columns from this
    base = list(range(len(FEATURES)))
    at = {name: len(FEATURES) + k for k, name in enumerate(CODE_EXTRA)}
    swap = {FEATURES.index("sent_max"): at["sent_max_all"], FEATURES.index("sent_top2"): at["sent_top2_all"]}
    unmasked = [swap.get(i, i) for i in base]
    variants: dict[str, list[int]] = {
        "shipped": base,
        "unmasked (sent_max/top2 over code rows too)": unmasked,
    }
    swap_howto = {
        FEATURES.index("sent_max"): at["sent_max_howto"],
        FEATURES.index("sent_top2"): at["sent_top2_howto"],
    }
    variants["unmasked for how-to questions only"] = [swap_howto.get(i, i) for i in base]
    for name in ("code_max", "code_gap", "code_max_howto"):
        variants[f"+ {name}"] = [*base, at[name]]
    shipped: lobo.Held = []
    for label, columns in variants.items():
        held = study.held_out(rows, columns, args.target, study.Variant(dev2=0.0))
        study.report(label, args.target, held)
        if label == "shipped":
            shipped = held
            refused_with_code(held)
        else:
            print(
                f"{'':40} AUROC change: reader + train "
                f"{paired_bootstrap(shipped, held, ('reader-', 'train-'))}"
                f"  dev2 {paired_bootstrap(shipped, held, (study.DEV2,))}",
                flush=True,
            )


def refused_with_code(held: lobo.Held) -> None:
    """The answerable questions refused (shipped, held out) whose best code row beats every sentence."""
    i_sent, i_code = FEATURES.index("sent_max"), len(FEATURES) + CODE_EXTRA.index("code_max")
    refused = [(r, m) for r, m in held if r["y"] == 1 and m < 0]
    beats = [(r, m) for r, m in refused if r["x"][i_code] > r["x"][i_sent]]
    print(f"answerable refused (held out): {len(refused)}; a code row beats every sentence: {len(beats)}")
    for r, m in beats:
        print(
            f"  {r['set']:22} margin {m:+.2f} sent_max {r['x'][i_sent]:.2f} code_max {r['x'][i_code]:.2f} "
            f"{r['query'][:80]}"
        )
    near = [(r, m) for r, m in held if r["kind"] == "near_miss" and r["x"][i_code] > r["x"][i_sent]]
    print(
        f"near misses whose code row beats every sentence: {len(near)}, "
        f"answered {sum(m >= 0 for _, m in near)}"
    )


def describe(rows: list[Row]) -> None:
    """How often a code row is there, and beats every sentence, per kind of example."""
    i_code, i_gap = len(FEATURES) + CODE_EXTRA.index("code_max"), len(FEATURES) + CODE_EXTRA.index("code_gap")
    for kind in sorted({r["kind"] for r in rows}):
        of = [r for r in rows if r["kind"] == kind]
        with_code = sum(1 for r in of if r["x"][i_code] > 0)
        beats = sum(1 for r in of if r["x"][i_gap] > 0)
        print(f"{kind:14} {len(of):4}  a code row {with_code:4}  code row beats every sentence {beats:4}")


if __name__ == "__main__":
    main()
