"""Study: the fused hits ranked just below the top 5 as a reserve the extractive writer may quote from.

    .venv/bin/python bench/reserve_study.py NAME SPLIT CORPUS QUESTIONS.jsonl [...] [--depth N] [--rule R]

Runs bench/answer_quality.py (result bench/results/NAME.json) with the engine and the writer patched
(nothing in src/ changes): the writer's sources are the turn's hits (the answerability decision, the
confidence and the top 5 are untouched) followed by the reserve: the fused hits ranked 6..10 past the
similarity threshold, from a search of `--depth` candidates per side (default 10: the depth the engine
already asks for at top_k 5, so the reserve would cost no second search). Rules (`--rule`, cumulative):

- `plain`: reserve chunks appended as further sources, rank prior 0 (the top 5 keep their priors);
- `idf`: the top 5's units are scored exactly as without the reserve (the writer's IDF is counted over
  the top 5 only; over all ten it moves the keyword scores of every unit);
- `nocode`: the reserve's code blocks are left out (a how-to's block is chosen by chunk similarity,
  and a reserve block displaced the top 5's);
- `lead` (default): a reserve unit never leads the answer (its score is capped just under the top 5's
  best unit), and an answer the top 5 would give from code alone (no sentence among them) ignores
  the reserve.

Findings (Nov 2026, base = main 04c7028, MiniLM; answered in-scope answers with every keyword, and
answered with a relevant file cited; tune = reader sets --split tune, train = training sets --split all).
With a 20-candidate search (--depth 20; gained/lost answers against the base):

    rule     tune kw          train kw          cited tune / train
    base     75.8 %           81.6 %            88.0 / 79.0 %
    plain    73.6 (+1 -3)     81.1 (+2 -3)      = / -1
    x0.8     74.7 (+1 -2)     80.5 (+2 -4)      (plain, every reserve unit's score x0.8; x0.6: 73.6 / 79.5)
    idf      76.9 (+2 -1)     81.6 (+2 -2)      = / -2
    nocode   76.9 (+2 -1)     82.2 (+2 -1)      = / -1
    lead     76.9 (+2 -1)     82.7 (+2 -0)      = / =

With the engine's own depth (--depth 10, `lead`): tune 76.9 % (+2 -1), train 82.2 % (+1 -0), train
follow-ups with every keyword 87.9 -> 89.4 %; answered, cited, near misses and out-of-scope refused
and AUROC unchanged on both (the decision never sees the reserve). Gained: rb-in-35, rc-in-23,
td-in-35 (a keyword in a list item or sentence of a reserve passage); lost: rb-in-21 (a reserve item
displaces the end of the list the answer quotes whole).

Carried into the engine since (`RetrievalResult.reserve`, `writers.selection.quotable_of`; the `lead`
rule at the engine's own depth, reserve numbered after the sources): tune 76.9 %, train 82.2 % as
here, train follow-ups 90.9 % (a follow-up's reserve is what its narrowed pool left out). What this
study's patch could not do, recorded at the time:
a quoted reserve chunk needs a source number, and the
turn's sources are the union of its `Retrieved` events' hits (`writers/sources.py`). The answer is
composed ahead in the retrieval's worker call (`Engine._prepare`), before `Retrieved` is emitted, so
the quoted reserve chunks could join that event's hits as sources 6+; the paths that compose later
(a retrieval served from the session cache, follow-ups' narrowed pools) would need the reserve in
`RetrievalResult` (kept out of serialisation) or would answer without it.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import Any

import numpy as np

import answer_quality
from common import write_result
from lectern.engine import Engine
from lectern.retrieval import fetch_depth, rank
from lectern.writers.extractive import ExtractiveWriter
from lectern.writers.extractive import writer as extractive

RULES = ("plain", "idf", "nocode", "lead")
RESERVE = 5


def patch(depth: int, rule: str) -> None:
    level = RULES.index(rule)
    state: dict[str, int | None] = {"primary": None}
    request_of = Engine._request

    def _request(self: Engine, turn: Any, conversation: Any, result: Any, confidence: Any, *rest: Any) -> Any:
        request = request_of(self, turn, conversation, result, confidence, *rest)
        if result is None or not result.hits or result.query_embedding is None:
            return request
        hits = list(result.hits)
        have = {h.chunk.content_hash for h in hits}
        vector = np.asarray(result.query_embedding, dtype=np.float32)
        found = self.retriever.index.search(vector=vector, text=result.query, mode="hybrid", top_k=depth)
        ranked = rank(found, result.threshold, len(hits) + RESERVE)
        reserve = [h for h in ranked if h.chunk.content_hash not in have][:RESERVE]
        if not reserve:
            return request
        n = len(hits)
        reserve = [h.model_copy(update={"rank": n + i, "vector": None}) for i, h in enumerate(reserve, 1)]
        request.retrieval = result.model_copy(update={"hits": hits + reserve})
        request.primary = n  # type: ignore[attr-defined]
        return request

    candidates_of = ExtractiveWriter._candidates

    def _candidates(self: ExtractiveWriter, sources: Any, query_terms: Any) -> Any:
        n = state["primary"] or len(sources)
        sentences, codes = candidates_of(self, sources, query_terms)
        if level >= RULES.index("idf") and n < len(sources):
            own, own_codes = candidates_of(self, sources[:n], query_terms)
            sentences = own + [c for c in sentences if c.source > n]
            codes = own_codes + [c for c in codes if c.source > n]
        if level >= RULES.index("nocode"):
            codes = [c for c in codes if c.source <= n]
        for c in sentences + codes:
            c.rank_prior = max(0.0, 1.0 - (c.source - 1) / n) if c.source <= n else 0.0
        return sentences, codes

    mmr = extractive._mmr

    def _mmr(candidates: list[Any], *args: Any) -> Any:
        n = state["primary"]
        if n and level >= RULES.index("lead"):
            best = max((c.score for c in candidates if c.source <= n), default=None)
            if best is None:
                return mmr([c for c in candidates if c.source <= n], *args)
            for c in candidates:
                if c.source > n and c.score >= best:
                    c.score = best - 1e-6
        return mmr(candidates, *args)

    compose = ExtractiveWriter.compose

    def _compose(self: ExtractiveWriter, request: Any) -> Any:
        state["primary"] = getattr(request, "primary", None)
        return compose(self, request)

    Engine._request = _request  # type: ignore[method-assign]
    ExtractiveWriter._candidates = _candidates  # type: ignore[method-assign]
    ExtractiveWriter.compose = _compose  # type: ignore[method-assign]
    extractive._mmr = _mmr


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("name")
    parser.add_argument("split", choices=("tune", "all"))
    parser.add_argument("pairs", nargs="+")
    parser.add_argument("--depth", type=int, default=fetch_depth(5))
    parser.add_argument("--rule", choices=RULES, default="lead")
    args = parser.parse_args()
    patch(args.depth, args.rule)
    pairs = [(Path(args.pairs[i]), Path(args.pairs[i + 1])) for i in range(0, len(args.pairs), 2)]
    result = asyncio.run(answer_quality.run(pairs, args.split))
    answer_quality.print_table(result["reports"])
    print(f"-> {write_result(args.name, result)}", file=sys.stderr)


if __name__ == "__main__":
    main()
