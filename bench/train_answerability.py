"""Train the answerability decision (`lectern/answerability.py`) on development question sets.

    uv run python bench/train_answerability.py CORPUS QUESTIONS.jsonl [CORPUS QUESTIONS.jsonl ...] [--write]

Only the `tune` split of each set is used; the `holdout` split is for `bench/answer_quality.py`.

Examples, each the signals of one question over what retrieval returns for it:
- answerable: in-scope questions and follow-ups (searched as the engine rewrites them) whose relevant
  file is among the five best passages;
- unanswerable: near misses and out-of-scope questions;
- unanswerable by construction: every answerable question again, with its relevant files removed from
  the results, so that its neighbours are all on-topic but none answers it (the hardest near miss).

Fits a logistic regression (standardised signals, L2), picks the refusal threshold and the level bands
on the training examples, prints the training report, and with --write saves the model as
src/lectern/data/answerability-<embedder>.json, the report included.
"""

from __future__ import annotations

import argparse
import asyncio
import json
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from common import build, read_jsonl, write_result
from lectern.answerability import FEATURES, AnswerabilityModel, model_file
from lectern.engine import Engine
from lectern.followups import standalone_query
from lectern.models import RetrievalResult

DATA = Path(__file__).resolve().parent.parent / "src" / "lectern" / "data"
L2 = 1.0
CONSTRUCTED_WEIGHT = 0.3  # removing the relevant files leaves near-duplicates elsewhere: noisy labels
TARGET_ANSWERED = 0.92  # chosen by leave-one-book-out cross-validation (docs/confidence-calibration.md)
MEDIUM_P, HIGH_P = 0.7, 0.85  # share of answerable training questions the threshold must keep


def retrieve(engine: Engine, query: str, top_k: int) -> RetrievalResult:
    return engine.retriever.retrieve_sync(engine.retriever.params(query, top_k=top_k))


def examples(engine: Engine, records: list[dict[str, Any]], name: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for r in records:
        kind = r.get("kind", "followup")
        query = standalone_query(r["turns"][-1], r["turns"][:-1]) if "turns" in r else r["question"]
        result = retrieve(engine, query, 5)
        signals = engine._signals(query, result)
        row = {"set": name, "id": r["id"], "kind": kind, "query": query, "x": list(signals.values)}
        if kind in ("near_miss", "out_of_scope"):
            out.append({**row, "y": 0})
            continue
        expected = set(r.get("expected", []))
        top = {h.chunk.source_path for h in result.hits[:5]}
        if expected & top:
            out.append({**row, "y": 1})
        # The same question over an index without its relevant files.
        deep = retrieve(engine, query, 20)
        rest = [h for h in deep.hits if h.chunk.source_path not in expected][:5]
        reduced = deep.model_copy(update={"hits": rest})
        s = engine._signals(query, reduced)
        out.append({**row, "kind": "constructed", "x": list(s.values), "y": 0})
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
    args = parser.parse_args()
    pairs = [(Path(args.pairs[i]), Path(args.pairs[i + 1])) for i in range(0, len(args.pairs), 2)]
    rows: list[dict[str, Any]] = []
    embedder = ""
    for corpus, questions in pairs:
        engine, _, _ = build(corpus)
        embedder = engine.retriever.embedder.name
        records = [r for r in read_jsonl(questions) if r.get("split", "tune") == "tune"]
        rows += examples(engine, records, questions.stem)
        print(f"{questions.stem}: {len(records)} questions -> {len(rows)} examples so far")
    x = np.asarray([r["x"] for r in rows], dtype=np.float64)
    y = np.asarray([r["y"] for r in rows], dtype=np.float64)
    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale[scale < 1e-6] = 1.0
    sw = np.asarray([CONSTRUCTED_WEIGHT if r["kind"] == "constructed" else 1.0 for r in rows])
    w, b = fit((x - mean) / scale, y, sw)
    p = 1 / (1 + np.exp(-(((x - mean) / scale) @ w + b)))
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
    )
    print(json.dumps(report, indent=2))
    print(f"threshold {model.threshold:.3f}  medium {model.medium:.2f}  high {model.high:.2f}")
    for name, weight in sorted(zip(FEATURES, w, strict=True), key=lambda t: -abs(t[1])):
        print(f"  {name:18} {weight:+.3f}")
    write_result("answerability-training", {"report": report, "rows": rows})
    if args.write:
        DATA.mkdir(parents=True, exist_ok=True)
        path = DATA / model_file(embedder)
        path.write_text(json.dumps(model.to_json(), indent=2) + "\n", encoding="utf-8")
        print(f"-> {path}")


if __name__ == "__main__":
    asyncio.run(asyncio.sleep(0))
    main()
