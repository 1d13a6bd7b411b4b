"""Standard ranking metrics, as BEIR and trec_eval compute them."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence


def ndcg_at_k(ranked: Sequence[str], relevant: Mapping[str, int], k: int = 10) -> float:
    """Normalised discounted cumulative gain with graded relevance (gain = relevance)."""
    dcg = sum(relevant.get(doc, 0) / math.log2(rank + 2) for rank, doc in enumerate(ranked[:k]))
    ideal = sorted((r for r in relevant.values() if r > 0), reverse=True)[:k]
    idcg = sum(rel / math.log2(rank + 2) for rank, rel in enumerate(ideal))
    return dcg / idcg if idcg else 0.0


def recall_at_k(ranked: Sequence[str], relevant: Mapping[str, int], k: int) -> float:
    wanted = {doc for doc, rel in relevant.items() if rel > 0}
    if not wanted:
        return 0.0
    return len(wanted & set(ranked[:k])) / len(wanted)


def mrr_at_k(ranked: Sequence[str], relevant: Mapping[str, int], k: int = 10) -> float:
    for rank, doc in enumerate(ranked[:k], start=1):
        if relevant.get(doc, 0) > 0:
            return 1.0 / rank
    return 0.0


def evaluate_run(
    run: Mapping[str, Sequence[str]], qrels: Mapping[str, Mapping[str, int]]
) -> dict[str, float]:
    """Mean nDCG@10, Recall@10, Recall@100 and MRR@10 over the judged queries (missing runs count 0)."""
    queries = [q for q, rels in qrels.items() if any(r > 0 for r in rels.values())]
    if not queries:
        return {"ndcg@10": 0.0, "recall@10": 0.0, "recall@100": 0.0, "mrr@10": 0.0}
    totals = {"ndcg@10": 0.0, "recall@10": 0.0, "recall@100": 0.0, "mrr@10": 0.0}
    for query in queries:
        ranked = run.get(query, [])
        relevant = qrels[query]
        totals["ndcg@10"] += ndcg_at_k(ranked, relevant, 10)
        totals["recall@10"] += recall_at_k(ranked, relevant, 10)
        totals["recall@100"] += recall_at_k(ranked, relevant, 100)
        totals["mrr@10"] += mrr_at_k(ranked, relevant, 10)
    return {name: value / len(queries) for name, value in totals.items()}
