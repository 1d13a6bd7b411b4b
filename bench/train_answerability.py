"""Train the answerability decision (`lectern/answerability.py`) on development question sets.

    uv run python bench/train_answerability.py CORPUS QUESTIONS.jsonl [CORPUS QUESTIONS.jsonl ...] [--write]

Only the `tune` split of each set is used (`--splits` names others, such as `dev2`); the `holdout` and
`fresh` splits are for `bench/answer_quality.py` and are never trained on.

Examples, each the signals of one question over what retrieval returns for it:
- answerable: in-scope questions and follow-ups (searched as the engine rewrites them) whose relevant
  file is among the five best passages;
- unanswerable: near misses and out-of-scope questions;
- unanswerable by construction: every answerable question again, with its relevant files removed from
  the results, so that its neighbours are all on-topic but none answers it (the hardest near miss).

Fits a logistic regression (standardised signals, L2), then boosts `--stumps` one-split trees on its
log-odds (strong shrinkage, each signal's effect kept monotone where its direction is obvious), merged
into one step function per signal; `--stumps 0` gives the plain logistic model. Picks the refusal
threshold and the level bands on the training examples, prints the training report, and with --write
saves the model as src/lectern/data/answerability-<embedder>.json, the report included.
"""

from __future__ import annotations

import argparse
import asyncio
import json
from collections.abc import Callable, Sequence
from itertools import pairwise
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from common import build, read_jsonl, write_result
from lectern.answerability import FEATURES, AnswerabilityModel, StepFunction, model_file
from lectern.engine import Engine
from lectern.followups import standalone_query
from lectern.models import RetrievalResult

DATA = Path(__file__).resolve().parent.parent / "src" / "lectern" / "data"
L2 = 1.0
CONSTRUCTED_WEIGHT = 0.3  # removing the relevant files leaves near-duplicates elsewhere: noisy labels
TARGET_ANSWERED = 0.94  # chosen by leave-one-book-out cross-validation (docs/confidence-calibration.md)
# Boosted stumps on the logistic's log-odds, all chosen by leave-one-book-out cross-validation
# (bench/lobo_models.py): 100-400 stumps at rates 0.01-0.05 do about the same.
STUMPS, STUMP_RATE = 200, 0.02
STUMP_L2, STUMP_MIN_WEIGHT = 10.0, 10.0  # a step's shrinkage; the least (Hessian) weight on either side
# +1: more of the signal never makes an answer less likely; -1: never more likely; others are free.
MONOTONE = {"top_sim": 1, "sent_max": 1, "cov": 1, "cov_top1": 1, "heading": 1}
MONOTONE |= {"miss_rare": -1, "miss_unknown": -1, "miss_name_unknown": -1}
MEDIUM_P, HIGH_P = 0.7, 0.85  # share of answerable training questions the threshold must keep
TRAIN_SPLITS = ("tune",)  # the splits trained on unless --splits says otherwise
HELD_BACK = ("holdout", "fresh")  # measured only: never trained on


def training_records(questions: Path, splits: Sequence[str] = TRAIN_SPLITS) -> list[dict[str, Any]]:
    """The records of a question set in `splits` (a record without a split counts as `tune`)."""
    return [r for r in read_jsonl(questions) if r.get("split", "tune") in splits]


def split_names(parser: argparse.ArgumentParser, splits: list[str]) -> tuple[str, ...]:
    """`--splits`, refusing the held-back ones."""
    held = sorted(set(splits) & set(HELD_BACK))
    if held:
        parser.error(f"--splits {' '.join(held)}: held back for measuring, never trained on")
    return tuple(splits)


def retrieve(engine: Engine, query: str, top_k: int) -> RetrievalResult:
    return engine.retriever.retrieve_sync(engine.retriever.params(query, top_k=top_k))


# What a study records of one question over one result, beside its label: by default the shipped signals.
Describe = Callable[[str, RetrievalResult], dict[str, Any]]


def examples(
    engine: Engine, records: list[dict[str, Any]], name: str, describe: Describe | None = None
) -> list[dict[str, Any]]:
    """One labelled row per question (and one constructed near miss per answerable question), each
    with `describe`'s fields; the shipped signals as "x" unless a study describes its own."""

    def signals_of(query: str, result: RetrievalResult) -> dict[str, Any]:
        return {"x": list(engine._signals(query, result).values)}

    fields = describe or signals_of
    out: list[dict[str, Any]] = []
    for r in records:
        kind = r.get("kind", "followup")
        query = standalone_query(r["turns"][-1], r["turns"][:-1]) if "turns" in r else r["question"]
        result = retrieve(engine, query, 5)
        row = {"set": name, "id": r["id"], "kind": kind, "query": query}
        if kind in ("near_miss", "out_of_scope"):
            out.append({**row, **fields(query, result), "y": 0})
            continue
        expected = set(r.get("expected", []))
        top = {h.chunk.source_path for h in result.hits[:5]}
        if expected & top:
            out.append({**row, **fields(query, result), "y": 1})
        # The same question over an index without its relevant files.
        deep = retrieve(engine, query, 20)
        rest = [h for h in deep.hits if h.chunk.source_path not in expected][:5]
        reduced = deep.model_copy(update={"hits": rest})
        out.append({**row, "kind": "constructed", **fields(query, reduced), "y": 0})
    return out


def fit(
    x: NDArray[np.float64], y: NDArray[np.float64], sw: NDArray[np.float64]
) -> tuple[NDArray[np.float64], float]:
    """L2-regularised logistic regression by Newton's method (a few dozen features, a few hundred rows)."""
    _n, d = x.shape
    w = np.zeros(d)
    b = 0.0
    for _ in range(50):
        z = x @ w + b
        p = 1 / (1 + np.exp(-z))
        g_w = x.T @ (sw * (p - y)) + L2 * w
        g_b = float(np.sum(sw * (p - y)))
        s = sw * p * (1 - p)
        h = np.zeros((d + 1, d + 1))
        h[:d, :d] = (x * s[:, None]).T @ x + L2 * np.eye(d)
        h[:d, d] = h[d, :d] = x.T @ s
        h[d, d] = float(np.sum(s)) + 1e-9
        step = np.linalg.solve(h, np.concatenate([g_w, [g_b]]))
        w -= step[:d]
        b -= float(step[d])
        if np.max(np.abs(step)) < 1e-8:
            break
    return w, b


def _best_stump(
    x: NDArray[np.float64], g: NDArray[np.float64], h: NDArray[np.float64]
) -> tuple[int, float, float, float] | None:
    """The one split (feature, threshold, value at or below, value above) that most lowers the
    second-order loss, its values shrunk by `STUMP_L2`, each side holding `STUMP_MIN_WEIGHT`."""
    total_g, total_h = float(g.sum()), float(h.sum())
    best: tuple[float, int, float, float, float] | None = None
    for j, name in enumerate(FEATURES):
        order = np.argsort(x[:, j], kind="stable")
        xs, gl, hl = x[order, j], np.cumsum(g[order]), np.cumsum(h[order])
        cut = np.nonzero(xs[1:] > xs[:-1])[0]  # between distinct values
        if not len(cut):
            continue
        gl, hl = gl[cut], hl[cut]
        gr, hr = total_g - gl, total_h - hl
        left, right = -gl / (hl + STUMP_L2), -gr / (hr + STUMP_L2)
        ok = (hl >= STUMP_MIN_WEIGHT) & (hr >= STUMP_MIN_WEIGHT)
        sign = MONOTONE.get(name, 0)
        if sign:
            ok &= sign * (right - left) >= 0
        gain = np.where(ok, gl**2 / (hl + STUMP_L2) + gr**2 / (hr + STUMP_L2), -np.inf)
        k = int(np.argmax(gain))
        if gain[k] > total_g**2 / (total_h + STUMP_L2) and (best is None or gain[k] > best[0]):
            threshold = float((xs[cut[k]] + xs[cut[k] + 1]) / 2)
            best = (float(gain[k]), j, threshold, float(left[k]), float(right[k]))
    return best[1:] if best else None


def boost_steps(
    x: NDArray[np.float64],
    y: NDArray[np.float64],
    sw: NDArray[np.float64],
    logit: NDArray[np.float64],
    rounds: int,
) -> tuple[StepFunction, ...]:
    """Newton-boosted stumps on top of `logit` (logistic loss), merged into one step function per signal."""
    f = logit.copy()
    stumps: dict[int, list[tuple[float, float, float]]] = {}
    for _ in range(rounds):
        p = 1 / (1 + np.exp(-f))
        found = _best_stump(x, sw * (p - y), sw * p * (1 - p))
        if found is None:
            break
        j, threshold, left, right = found
        stumps.setdefault(j, []).append((threshold, STUMP_RATE * left, STUMP_RATE * right))
        f += np.where(x[:, j] <= threshold, STUMP_RATE * left, STUMP_RATE * right)
    steps = []
    for j, of in sorted(stumps.items()):
        cuts = sorted({round(t, 6) for t, _, _ in of})
        # One value per interval between cuts: every stump's side for a point inside it.
        points = [cuts[0] - 1.0, *((a + b) / 2 for a, b in pairwise(cuts)), cuts[-1] + 1.0]
        values = [round(sum(lo if v <= t else hi for t, lo, hi in of), 6) for v in points]
        steps.append(StepFunction(FEATURES[j], tuple(cuts), tuple(values)))
    return tuple(steps)


def steps_logit(steps: tuple[StepFunction, ...], x: NDArray[np.float64]) -> NDArray[np.float64]:
    """What the step functions add to each row's log-odds (`StepFunction.__call__`, vectorised)."""
    out = np.zeros(len(x))
    for step in steps:
        at = np.searchsorted(np.asarray(step.thresholds), x[:, FEATURES.index(step.feature)], side="left")
        out += np.asarray(step.values)[at]
    return out


Fitted = tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64], float, tuple[StepFunction, ...]]


def fit_model(x: NDArray[np.float64], y: NDArray[np.float64], sw: NDArray[np.float64], stumps: int) -> Fitted:
    """The decision's parameters: standardisation, logistic weights and bias, step functions."""
    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale[scale < 1e-6] = 1.0
    w, b = fit((x - mean) / scale, y, sw)
    steps = boost_steps(x, y, sw, ((x - mean) / scale) @ w + b, stumps) if stumps else ()
    return mean, scale, w, b, steps


def predict(model: Fitted, x: NDArray[np.float64]) -> NDArray[np.float64]:
    mean, scale, w, b, steps = model
    logit = ((x - mean) / scale) @ w + b + steps_logit(steps, x)
    return np.asarray(1 / (1 + np.exp(-np.clip(logit, -30.0, 30.0))))


def auroc(pos: list[float], neg: list[float]) -> float:
    if not pos or not neg:
        return float("nan")
    a = np.asarray(pos)[:, None]
    b = np.asarray(neg)[None, :]
    return float(((a > b).sum() + 0.5 * (a == b).sum()) / (a.size * b.size))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("pairs", nargs="+")
    parser.add_argument("--write", action="store_true")
    parser.add_argument("--stumps", type=int, default=STUMPS, help="boosting rounds; 0: plain logistic")
    parser.add_argument("--splits", nargs="+", default=list(TRAIN_SPLITS), help="splits to train on")
    args = parser.parse_args()
    splits = split_names(parser, args.splits)
    pairs = [(Path(args.pairs[i]), Path(args.pairs[i + 1])) for i in range(0, len(args.pairs), 2)]
    rows: list[dict[str, Any]] = []
    embedder = ""
    similarity_threshold = 0.0
    for corpus, questions in pairs:
        engine, _, _ = build(corpus)
        embedder = engine.retriever.embedder.name
        similarity_threshold = engine.retriever.settings.similarity_threshold
        records = training_records(questions, splits)
        rows += examples(engine, records, questions.stem)
        print(f"{questions.stem}: {len(records)} questions -> {len(rows)} examples so far")
    x = np.asarray([r["x"] for r in rows], dtype=np.float64)
    y = np.asarray([r["y"] for r in rows], dtype=np.float64)
    sw = np.asarray([CONSTRUCTED_WEIGHT if r["kind"] == "constructed" else 1.0 for r in rows])
    fitted = fit_model(x, y, sw, args.stumps)
    mean, scale, w, b, steps = fitted
    p = predict(fitted, x)
    for r, prob in zip(rows, p, strict=True):
        r["p"] = float(prob)

    pos = sorted(r["p"] for r in rows if r["y"] == 1)
    threshold = float(pos[int((1 - TARGET_ANSWERED) * len(pos))])

    def share(kind: str) -> float:
        of = [r for r in rows if r["kind"] == kind]
        return sum(1 for r in of if r["p"] < threshold) / len(of) if of else float("nan")

    # Level bands, from the calibration of the development sets (docs/confidence-calibration.md): answers
    # above 0.85 were right about nine times in ten, between 0.7 and 0.85 about eight, below 0.7 about six.
    medium, high = max(MEDIUM_P, threshold), max(HIGH_P, threshold)
    report = {
        "examples": {k: sum(1 for r in rows if r["kind"] == k) for k in sorted({r["kind"] for r in rows})},
        "positives": int(y.sum()),
        "auroc_all": auroc([r["p"] for r in rows if r["y"] == 1], [r["p"] for r in rows if r["y"] == 0]),
        "auroc_natural": auroc(
            [r["p"] for r in rows if r["y"] == 1],
            [r["p"] for r in rows if r["kind"] in ("near_miss", "out_of_scope")],
        ),
        "answerable_answered": sum(1 for r in rows if r["y"] == 1 and r["p"] >= threshold) / len(pos),
        "near_miss_refused": share("near_miss"),
        "out_of_scope_refused": share("out_of_scope"),
        "constructed_refused": share("constructed"),
        "sets": [q.stem for _, q in pairs],
        "splits": list(splits),
        # The signals depend on which passages pass the retrieval threshold: the decision holds for this one.
        "similarity_threshold": similarity_threshold,
    }
    model = AnswerabilityModel(
        embedder=embedder,
        mean=tuple(float(v) for v in mean),
        scale=tuple(float(v) for v in scale),
        weights=tuple(float(v) for v in w),
        bias=float(b),
        threshold=round(threshold, 4),
        medium=max(medium, threshold),
        high=high,
        report=report,
        steps=steps,
    )
    print(json.dumps(report, indent=2))
    print(f"threshold {model.threshold:.3f}  medium {model.medium:.2f}  high {model.high:.2f}")
    for name, weight in sorted(zip(FEATURES, w, strict=True), key=lambda t: -abs(t[1])):
        print(f"  {name:18} {weight:+.3f}")
    for step in steps:
        print(
            f"  steps {step.feature:12} "
            + " ".join(f"<={t:.3f}:{v:+.2f}" for t, v in zip(step.thresholds, step.values, strict=False))
            + f" else {step.values[-1]:+.2f}"
        )
    write_result("answerability-training", {"report": report, "rows": rows})
    if args.write:
        DATA.mkdir(parents=True, exist_ok=True)
        path = DATA / model_file(embedder)
        path.write_text(json.dumps(model.to_json(), indent=2) + "\n", encoding="utf-8")
        print(f"-> {path}")


if __name__ == "__main__":
    asyncio.run(asyncio.sleep(0))
    main()
