"""Answer quality of the offline default (extractive writer) over corpora and their question sets.

    uv run python bench/answer_quality.py CORPUS QUESTIONS.jsonl [CORPUS QUESTIONS.jsonl ...] \
        [--split tune|holdout|fresh|...|all] [--failures]

Question records (bench/questions/*.jsonl): `kind` is in_scope, near_miss, out_of_scope or followup;
in-scope and follow-up records list the `expected` files and 1-3 answer `keywords`; `split` names the
set a record belongs to (tune, holdout, fresh, ...; records without one count as tune). `--split` takes
any split name found in the files, or all. Each question is asked in a fresh conversation; a follow-up
asks its turns in one conversation and is scored on the last turn.

Per set and split it reports:
- in-scope: answered %, answered with a relevant file cited %, and keyword % (answered questions whose
  answer contains every keyword, case-insensitively);
- follow-ups: answered with a relevant file cited %, keyword %, and for self-contained second questions
  whether they were searched as asked (not rewritten);
- near misses and out-of-scope: refused %;
- AUROC of the confidence score (the answerability probability, or the average similarity where there is
  none) for answerable (in-scope, follow-up) against unanswerable (near-miss, out-of-scope) questions;
- calibration: per confidence level, how many answers and the share that were correct (answered with a
  relevant file cited, for answerable questions; any answer to an unanswerable one is wrong).
Writes bench/results/answer-quality.json (every row, for failure analysis).
"""

from __future__ import annotations

import argparse
import asyncio
from collections import defaultdict
from pathlib import Path
from typing import Any

from common import build, read_jsonl, summary, write_result
from lectern.engine import AskOptions, Engine
from lectern.events import Done, Retrieved
from lectern.models import Answer

ANSWERABLE = ("in_scope", "followup")
LEVELS = ("high", "medium", "low", "insufficient")


def confidence_score(answer: Answer) -> float:
    """The number a reader or client would rank answers by."""
    probability = getattr(answer.confidence, "answerability", None)
    return float(probability if probability is not None else answer.confidence.average_similarity)


def auroc(positives: list[float], negatives: list[float]) -> float | None:
    """Probability that a random answerable question scores above a random unanswerable one."""
    if not positives or not negatives:
        return None
    wins = 0.0
    for p in positives:
        for n in negatives:
            wins += 1.0 if p > n else 0.5 if p == n else 0.0
    return wins / (len(positives) * len(negatives))


def has_keywords(text: str, keywords: list[str]) -> bool:
    lower = text.lower()
    return all(k.lower() in lower for k in keywords)


async def ask(engine: Engine, record: dict[str, Any]) -> dict[str, Any]:
    turns = record.get("turns") or [record["question"]]
    conversation = engine.new_conversation()
    answer: Answer | None = None
    top: list[str] = []
    passages = ""
    for turn in turns:
        top = []
        async for event in engine.stream(turn, conversation, AskOptions(top_k=5)):
            if isinstance(event, Retrieved) and not top:
                top = [h.chunk.source_path for h in event.result.hits[:5]]
                passages = "\n".join(h.chunk.text for h in event.result.hits[:5])
            elif isinstance(event, Done):
                answer = event.answer
    assert answer is not None, record
    expected = set(record.get("expected", []))
    cited = {c.source_path for c in answer.citations}
    answered = answer.confidence.should_answer and answer.grounded
    return {
        "id": record["id"],
        "kind": record.get("kind", "followup"),
        "split": record.get("split", "tune"),
        "question": turns[-1],
        "turns": turns,
        "paraphrase": record.get("paraphrase"),
        "dependent": record.get("dependent"),
        "answered": answered,
        "relevant_top5": bool(expected & set(top)),
        # every answer keyword somewhere in the retrieved passages (answered or not): what the writer
        # could have quoted
        "passages_keywords": bool(record.get("keywords")) and has_keywords(passages, record["keywords"]),
        "relevant_cited": answered and bool(expected & cited),
        "keywords": record.get("keywords", []),
        "has_keywords": answered
        and bool(record.get("keywords"))
        and has_keywords(answer.text, record["keywords"]),
        "as_asked": answer.search_query.strip().rstrip("?").lower() == turns[-1].strip().rstrip("?").lower(),
        "level": answer.confidence.confidence_level,
        "score": round(confidence_score(answer), 4),
        "average_similarity": round(answer.confidence.average_similarity, 4),
        "reason": answer.refusal_reason,
        "ms": answer.timings.total_ms,
        "search_query": answer.search_query,
        "text": answer.text,
        "sources": sorted(cited),
        "expected": sorted(expected),
    }


def share(rows: list[dict[str, Any]], key: str, *, negate: bool = False) -> float | None:
    if not rows:
        return None
    return sum(1 for r in rows if bool(r[key]) != negate) / len(rows)


def report(rows: list[dict[str, Any]]) -> dict[str, Any]:
    by_kind: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        by_kind[r["kind"]].append(r)
    ins, fus = by_kind["in_scope"], by_kind["followup"]
    answered_ins = [r for r in ins if r["answered"]]
    answered_fus = [r for r in fus if r["answered"]]
    positives = [r["score"] for r in rows if r["kind"] in ANSWERABLE]
    negatives = [r["score"] for r in rows if r["kind"] not in ANSWERABLE]
    calibration = {}
    for level in LEVELS:
        at = [r for r in rows if r["level"] == level]
        correct = [r for r in at if (r["relevant_cited"] if r["kind"] in ANSWERABLE else not r["answered"])]
        calibration[level] = {"n": len(at), "correct": len(correct) / len(at) if at else None}
    standalone = [r for r in fus if r["dependent"] is False]
    return {
        "n": {k: len(v) for k, v in by_kind.items()},
        "in_scope_answered": share(ins, "answered"),
        "in_scope_cited": share(ins, "relevant_cited"),
        "in_scope_keywords": share(answered_ins, "has_keywords"),
        "in_scope_top5": share(ins, "relevant_top5"),
        "in_scope_passage_keywords": share(ins, "passages_keywords"),
        "paraphrase_cited": share([r for r in ins if r["paraphrase"]], "relevant_cited"),
        "followup_cited": share(fus, "relevant_cited"),
        "followup_keywords": share(answered_fus, "has_keywords"),
        "standalone_as_asked": share(standalone, "as_asked"),
        "near_miss_refused": share(by_kind["near_miss"], "answered", negate=True),
        "out_of_scope_refused": share(by_kind["out_of_scope"], "answered", negate=True),
        "auroc": auroc(positives, negatives),
        "calibration": calibration,
        "engine_ms": summary([r["ms"] for r in rows]),
    }


COLUMNS = (
    ("in_scope_answered", "in-scope answered"),
    ("in_scope_cited", "in-scope answered, relevant file cited"),
    ("paraphrase_cited", "  of them paraphrased, cited"),
    ("in_scope_keywords", "answers with every keyword"),
    ("in_scope_top5", "in-scope, relevant file in the top 5"),
    ("in_scope_passage_keywords", "in-scope, every keyword in the top 5"),
    ("followup_cited", "follow-ups answered, relevant cited"),
    ("followup_keywords", "follow-up answers with every keyword"),
    ("standalone_as_asked", "self-contained second questions as asked"),
    ("near_miss_refused", "near misses refused"),
    ("out_of_scope_refused", "out-of-scope refused"),
    ("auroc", "AUROC of confidence"),
)


def fmt(value: float | None) -> str:
    return "   -  " if value is None else f"{100 * value:5.1f}%"


def print_table(reports: dict[str, dict[str, Any]]) -> None:
    names = list(reports)
    width = max(12, *(len(n) for n in names))
    print(f"{'':44}" + "".join(f"{n:>{width + 2}}" for n in names))
    for key, label in COLUMNS:
        cells = "".join(f"{fmt(reports[n][key]):>{width + 2}}" for n in names)
        print(f"{label:44}{cells}")
    print(f"{'calibration (n, share correct)':44}")
    for level in LEVELS:
        cells = ""
        for n in names:
            c = reports[n]["calibration"][level]
            cells += f"{(str(c['n']) + ' ' + fmt(c['correct']).strip()):>{width + 2}}"
        print(f"{'  ' + level:44}{cells}")
    timings = [f"{reports[n]['engine_ms']['p50']:.1f}/{reports[n]['engine_ms']['p99']:.0f}" for n in names]
    cells = "".join(f"{t:>{width + 2}}" for t in timings)
    print(f"{'engine ms p50/p99':44}{cells}")


def split_of(record: dict[str, Any]) -> str:
    return str(record.get("split", "tune"))


def splits_in(paths: list[Path]) -> set[str]:
    """The split names the question files use: what --split may ask for besides all."""
    return {split_of(r) for path in paths for r in read_jsonl(path)}


def selected(records: list[dict[str, Any]], split: str) -> list[dict[str, Any]]:
    return [r for r in records if split == "all" or split_of(r) == split]


async def run(pairs: list[tuple[Path, Path]], split: str) -> dict[str, Any]:
    all_rows: dict[str, list[dict[str, Any]]] = {}
    for corpus, questions in pairs:
        engine, _, _ = build(corpus)
        records = selected(list(read_jsonl(questions)), split)
        all_rows[questions.stem] = [await ask(engine, r) for r in records]
    reports = {name: report(rows) for name, rows in all_rows.items()}
    if len(reports) > 1:
        reports["all"] = report([r for rows in all_rows.values() for r in rows])
    return {"split": split, "reports": reports, "rows": all_rows}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("pairs", nargs="+", help="CORPUS QUESTIONS.jsonl, repeated")
    parser.add_argument("--split", default="all", help="a split name found in the files, or all")
    parser.add_argument("--failures", action="store_true", help="print every wrong decision")
    parser.add_argument("--out", default="answer-quality", help="result file name under bench/results/")
    args = parser.parse_args()
    if len(args.pairs) % 2:
        parser.error("give CORPUS QUESTIONS pairs")
    pairs = [(Path(args.pairs[i]), Path(args.pairs[i + 1])) for i in range(0, len(args.pairs), 2)]
    known = splits_in([questions for _, questions in pairs])
    if args.split != "all" and args.split not in known:
        # a typo would otherwise measure nothing and print an empty table
        parser.error(f"--split {args.split!r}: the files have {', '.join(sorted(known))} (or all)")
    result = asyncio.run(run(pairs, args.split))
    print(f"split: {args.split}")
    print_table(result["reports"])
    if args.failures:
        for name, rows in result["rows"].items():
            for r in rows:
                wrong = (
                    not r["relevant_cited"] or (r["answered"] and not r["has_keywords"])
                    if r["kind"] in ANSWERABLE
                    else r["answered"]
                )
                if wrong:
                    kw = "" if r["has_keywords"] else f" kw={r['keywords']}"
                    print(
                        f"  {name} {r['id']:10} {r['kind']:12} {r['level']:12} {r['score']:.2f} "
                        f"{r['reason'] or '':14} {r['question']}{kw}"
                    )
    path = write_result(args.out, result)
    print(f"-> {path}")


if __name__ == "__main__":
    main()
