"""bench/query_adapter_study.py: the adapter fits' maths (identity under strong pull, exact gradient)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))

import query_adapter_study as study  # noqa: E402


def _pairs(seed: int = 0) -> study.Pairs:
    rng = np.random.default_rng(seed)
    docs = study.normalise(rng.normal(size=(200, 16)).astype(np.float32))
    queries = study.normalise(rng.normal(size=(30, 16)).astype(np.float32))
    return study.make_pairs(queries, docs, [[int(i), int(i) + 1] for i in rng.integers(0, 198, 30)])


def test_candidates_put_the_positives_first() -> None:
    pairs = _pairs()
    assert pairs.candidates.shape == (30, study.CANDIDATES)
    assert pairs.positive[:, :2].all()
    assert not pairs.positive[:, 2:].any()
    assert all(len(set(row)) == len(row) for row in pairs.candidates.tolist())


def test_a_strong_pull_keeps_every_adapter_at_identity() -> None:
    pairs = _pairs()
    for kind in ("ridge", "full", "lowrank", "diag"):
        w = study.fit([pairs], study.Config(kind, reg=1e6, steps=20, rank=2))
        assert np.abs(w - np.eye(16)).max() < 1e-2, kind


def test_the_contrastive_gradient_matches_finite_differences() -> None:
    pairs = _pairs(1)
    rng = np.random.default_rng(2)
    w = (np.eye(16) + rng.normal(0, 0.1, (16, 16))).astype(np.float64)
    pairs.queries = pairs.queries.astype(np.float64)  # type: ignore[assignment]
    pairs.gathered = pairs.gathered.astype(np.float64)  # type: ignore[assignment]
    _, grad = study.contrastive_grad(pairs, w, 5.0)  # type: ignore[arg-type]
    for i, j in ((0, 0), (3, 7), (15, 2)):
        step = np.zeros_like(w)
        step[i, j] = 1e-5
        up, _ = study.contrastive_grad(pairs, w + step, 5.0)  # type: ignore[arg-type]
        down, _ = study.contrastive_grad(pairs, w - step, 5.0)  # type: ignore[arg-type]
        assert abs((up - down) / 2e-5 - grad[i, j]) < 1e-4


def test_only_development_splits_are_read() -> None:
    sets = study.question_sets(Path("q"), "textbook-a")
    assert [(p.name, s) for p, s in sets] == [
        ("reader-textbook-a.jsonl", "tune"),
        ("train-textbook-a.jsonl", "all"),
        ("dev2-textbook-a.jsonl", "dev2"),
    ]
