"""Metrics on tiny runs whose values are worked out by hand in the comments."""

from __future__ import annotations

import math

import pytest

from lectern.evaluation.metrics import evaluate_run, mrr_at_k, ndcg_at_k, recall_at_k


def test_ndcg_single_relevant_at_rank_two() -> None:
    # DCG = 1/log2(3); IDCG = 1/log2(2) = 1  ->  nDCG = 1/log2(3) = 0.6309...
    assert ndcg_at_k(["a", "b", "c"], {"b": 1}) == pytest.approx(1 / math.log2(3))


def test_ndcg_graded_relevance() -> None:
    # ranked: x(0) a(2) b(1). DCG = 2/log2(3) + 1/log2(4) = 1.26186 + 0.5 = 1.76186
    # ideal: a(2) b(1). IDCG = 2/1 + 1/log2(3) = 2.63093. nDCG = 0.66968
    assert ndcg_at_k(["x", "a", "b"], {"a": 2, "b": 1}) == pytest.approx(0.66968, abs=1e-5)


def test_ndcg_cut_at_k() -> None:
    assert ndcg_at_k(["x", "y", "a"], {"a": 1}, k=2) == 0.0


def test_recall() -> None:
    # two relevant docs, one in the top 2
    assert recall_at_k(["a", "x", "b"], {"a": 1, "b": 1}, 2) == 0.5
    assert recall_at_k(["a", "x", "b"], {"a": 1, "b": 1}, 3) == 1.0
    assert recall_at_k(["a"], {"a": 0}, 3) == 0.0


def test_mrr() -> None:
    assert mrr_at_k(["x", "y", "a"], {"a": 1}) == pytest.approx(1 / 3)
    assert mrr_at_k(["x"] * 10 + ["a"], {"a": 1}) == 0.0


def test_evaluate_run_means_and_missing_queries() -> None:
    qrels = {"q1": {"a": 1}, "q2": {"b": 1}, "q3": {"c": 0}}
    run = {"q1": ["a"], "q2": ["x", "b"]}  # q3 has no relevant doc and is not counted
    scores = evaluate_run(run, qrels)
    assert scores["mrr@10"] == pytest.approx((1 + 0.5) / 2)
    assert scores["recall@10"] == 1.0
    assert scores["ndcg@10"] == pytest.approx((1 + 1 / math.log2(3)) / 2)
    assert evaluate_run({}, {"q1": {"a": 1}})["ndcg@10"] == 0.0
