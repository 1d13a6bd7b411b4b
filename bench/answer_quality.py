"""Answer quality of the offline default (extractive writer) over corpora and their question sets.

    uv run python bench/answer_quality.py CORPUS QUESTIONS.jsonl [CORPUS QUESTIONS.jsonl ...] \
        [--split tune|holdout|fresh|...|all] [--failures] [--via inprocess|openai|both]
        [--messages history|users|system] [--stream]

Question records (bench/questions/*.jsonl): `kind` is in_scope, near_miss, out_of_scope or followup;
in-scope and follow-up records list the `expected` files and 1-3 answer `keywords`; `split` names the
set a record belongs to (tune, holdout, fresh, ...; records without one count as tune). `--split` takes
any split name found in the files, or all. Each question is asked in a fresh conversation; a follow-up
asks its turns in one conversation and is scored on the last turn, and so is any record with `turns` (the
follow-up near misses of followups-nm-textbook-*: kind near_miss, counted with the near misses).

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

``--via openai`` asks the same records the way outside graders do: `lectern serve` on the bench's index
(bench/results/index/<book>), the official `openai` client on ``/v1/chat/completions``, a follow-up's
turns as a growing ``messages`` history (``--messages``: see bench/openai_face.py), each completion read
into the same row (answered: ``lectern.should_answer`` and ``grounded``, which a client reading only
``citations`` and ``refusal_reason`` agrees with; cited files: the citations' ``source_path``; the score:
``lectern.answerability``). The face does not show the retrieved passages: its top-5 rows read "-".
``--via both`` asks in process, then over /v1, and lists every question whose answer, cited files, keywords,
search query, level or score differ.

Parity, reader-textbook-{a,b,c,d} --split tune (100 in-scope, 32 follow-ups, 40 near misses, 24
out-of-scope) and followups-dev-textbook-{a,b,c,d} --split dev (48 follow-ups), the four books together:

    metric                         in process   /v1 before   /v1 now (every --messages, plain or --stream)
    in-scope answered                  91.0%        91.0%        91.0%
    in-scope relevant cited            88.0%        88.0%        88.0%
    in-scope every keyword             80.2%        80.2%        80.2%
    follow-ups relevant cited (reader) 96.9%        90.6%        96.9%
    follow-ups every keyword (reader)  68.8%        68.8%        68.8%
    follow-ups relevant cited (dev)    95.8%        95.8%        95.8%
    follow-ups every keyword (dev)     89.4%        89.4%        89.4%
    self-contained as asked           100.0%       100.0%       100.0%
    near misses refused                90.0%        90.0%        90.0%
    out-of-scope refused              100.0%       100.0%       100.0%
    AUROC of confidence                98.2%        84.6%        98.2%
    questions differing (of 244)        -         26           0

Before (base 08a7dec): every single-turn question got the same answer; 12 of 32 reader and 14 of 48 dev
follow-ups were answered differently (11 citing other files), for any of the three ``--messages``, and the
AUROC fell to 84.6% because /v1 showed only the average similarity. Causes, fixed in src/: the chat
faces' top_k limit (10) capped a follow-up's search pool (the engine's FOLLOWUP_POOL, 20); /v1 rebuilt the
conversation without the previous answer's cited files, which a follow-up's search favours (now from echoed
``citations``, or by asking the previous question again: lectern/api/openai_sources.py); and
``lectern.answerability`` was missing.
The system message, markdown in the fed-back answer and the threshold/top_k defaults made no difference.

    PYTHONHASHSEED=0 .venv/bin/python bench/answer_quality.py D/textbook-a \
        bench/questions/reader-textbook-a.jsonl ... D/textbook-d bench/questions/reader-textbook-d.jsonl \
        --split tune --via both [--messages users|system]
    (and followups-dev-textbook-{a,b,c,d}.jsonl with --split dev; base: PYTHONPATH=/tmp/base/src, which the
    server inherits)
"""

from __future__ import annotations

import argparse
import asyncio
from collections import defaultdict
from dataclasses import dataclass
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


@dataclass
class Observed:
    """What one face showed of a record's last turn: all that the scoring reads."""

    answered: bool
    cited: set[str]
    text: str
    search_query: str
    level: str
    score: float
    average_similarity: float
    reason: str | None
    ms: float
    top: list[str] | None = None
    """The first search's top-5 files, and their passages: None where the face does not show them."""
    passages: str | None = None


async def observe(engine: Engine, turns: list[str]) -> Observed:
    """The turns asked in process, in one conversation."""
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
    assert answer is not None, turns
    return Observed(
        answered=answer.confidence.should_answer and answer.grounded,
        cited={c.source_path for c in answer.citations},
        text=answer.text,
        search_query=answer.search_query,
        level=answer.confidence.confidence_level,
        score=confidence_score(answer),
        average_similarity=answer.confidence.average_similarity,
        reason=answer.refusal_reason,
        ms=answer.timings.total_ms,
        top=top,
        passages=passages,
    )


def turns_of(record: dict[str, Any]) -> list[str]:
    return list(record.get("turns") or [record["question"]])


async def ask(engine: Engine, record: dict[str, Any]) -> dict[str, Any]:
    return row(record, await observe(engine, turns_of(record)))


def row(record: dict[str, Any], seen: Observed) -> dict[str, Any]:
    """A record's scored row from what a face showed (None: a measure the face cannot show)."""
    turns = turns_of(record)
    expected = set(record.get("expected", []))
    keywords = record.get("keywords", [])
    return {
        "id": record["id"],
        "kind": record.get("kind", "followup"),
        "split": record.get("split", "tune"),
        "question": turns[-1],
        "turns": turns,
        "paraphrase": record.get("paraphrase"),
        "dependent": record.get("dependent"),
        "answered": seen.answered,
        "relevant_top5": None if seen.top is None else bool(expected & set(seen.top)),
        # every answer keyword somewhere in the retrieved passages (answered or not): what the writer
        # could have quoted
        "passages_keywords": None
        if seen.passages is None
        else bool(keywords) and has_keywords(seen.passages, keywords),
        "relevant_cited": seen.answered and bool(expected & seen.cited),
        "keywords": keywords,
        "has_keywords": seen.answered and bool(keywords) and has_keywords(seen.text, keywords),
        "as_asked": seen.search_query.strip().rstrip("?").lower() == turns[-1].strip().rstrip("?").lower(),
        "level": seen.level,
        "score": round(seen.score, 4),
        "average_similarity": round(seen.average_similarity, 4),
        "reason": seen.reason,
        "ms": seen.ms,
        "search_query": seen.search_query,
        "text": seen.text,
        "sources": sorted(seen.cited),
        "expected": sorted(expected),
    }


def share(rows: list[dict[str, Any]], key: str, *, negate: bool = False) -> float | None:
    rows = [r for r in rows if r[key] is not None]  # None: a measure this face does not show
    if not rows:
        return None
    return sum(1 for r in rows if bool(r[key]) != negate) / len(rows)


def correct(r: dict[str, Any]) -> bool:
    """An answerable question answered with a relevant file cited; an unanswerable one refused."""
    return bool(r["relevant_cited"]) if r["kind"] in ANSWERABLE else not r["answered"]


def calibration(rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per confidence level (insufficient: refused), how many rows fell there and the share correct."""
    result = {}
    for level in LEVELS:
        at = [r for r in rows if r["level"] == level]
        right = [r for r in at if correct(r)]
        result[level] = {"n": len(at), "correct": len(right) / len(at) if at else None}
    return result


def report(rows: list[dict[str, Any]]) -> dict[str, Any]:
    by_kind: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        by_kind[r["kind"]].append(r)
    ins, fus = by_kind["in_scope"], by_kind["followup"]
    answered_ins = [r for r in ins if r["answered"]]
    answered_fus = [r for r in fus if r["answered"]]
    positives = [r["score"] for r in rows if r["kind"] in ANSWERABLE]
    negatives = [r["score"] for r in rows if r["kind"] not in ANSWERABLE]
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
        "calibration": calibration(rows),
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


FACES = ("inprocess", "openai", "both")
MESSAGES = ("history", "users", "system")  # what a follow-up sends over /v1: bench/openai_face.py
COMPARED = ("answered", "relevant_cited", "has_keywords", "search_query", "sources", "level", "score", "text")


async def run(
    pairs: list[tuple[Path, Path]],
    split: str,
    via: str = "inprocess",
    messages: str = "history",
    stream: bool = False,
) -> dict[str, Any]:
    all_rows: dict[str, list[dict[str, Any]]] = {}
    for corpus, questions in pairs:
        engine, settings, _ = build(corpus)
        records = selected(list(read_jsonl(questions)), split)
        if via != "openai":
            all_rows[questions.stem] = [await ask(engine, r) for r in records]
        if via != "inprocess":
            del engine  # the server opens the index on its own
            import openai_face  # the openai client and a server only where asked for

            with openai_face.served(settings.data_dir, settings.collection) as (client, model):
                name = questions.stem if via == "openai" else f"{questions.stem} /v1"
                all_rows[name] = [
                    row(r, openai_face.observe(client, model, turns_of(r), messages, stream)) for r in records
                ]
    reports = {name: report(rows) for name, rows in all_rows.items()}
    if via == "both":
        for suffix in ("", " /v1"):
            chosen = [
                r for name, rows in all_rows.items() if name.endswith(" /v1") == bool(suffix) for r in rows
            ]
            reports[f"all{suffix}"] = report(chosen)
    elif len(reports) > 1:
        reports["all"] = report([r for rows in all_rows.values() for r in rows])
    return {
        "split": split,
        "via": via,
        "messages": messages,
        "stream": stream,
        "reports": reports,
        "rows": all_rows,
    }


def clip(value: Any, chars: int = 70) -> str:
    text = repr(value)
    return text if len(text) <= chars else text[: chars - 3] + "..."


def differences(all_rows: dict[str, list[dict[str, Any]]]) -> list[str]:
    """Per question, every compared field where the in-process answer and ``/v1``'s differ."""
    lines = []
    for name, rows in all_rows.items():
        other = all_rows.get(f"{name} /v1")
        if other is None:
            continue
        for mine, theirs in zip(rows, other, strict=True):
            for key in COMPARED:
                if mine[key] != theirs[key]:
                    lines.append(f"  {name} {mine['id']} {key}: {clip(mine[key])} | /v1 {clip(theirs[key])}")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("pairs", nargs="+", help="CORPUS QUESTIONS.jsonl, repeated")
    parser.add_argument("--split", default="all", help="a split name found in the files, or all")
    parser.add_argument("--failures", action="store_true", help="print every wrong decision")
    parser.add_argument("--out", default="answer-quality", help="result file name under bench/results/")
    parser.add_argument(
        "--via", choices=FACES, default="inprocess", help="ask the engine, lectern serve's /v1, or both"
    )
    parser.add_argument(
        "--messages",
        choices=MESSAGES,
        default="history",
        help="/v1: what a follow-up sends (see bench/openai_face.py)",
    )
    parser.add_argument("--stream", action="store_true", help="/v1: stream the completions (SSE)")
    args = parser.parse_args()
    if len(args.pairs) % 2:
        parser.error("give CORPUS QUESTIONS pairs")
    pairs = [(Path(args.pairs[i]), Path(args.pairs[i + 1])) for i in range(0, len(args.pairs), 2)]
    known = splits_in([questions for _, questions in pairs])
    if args.split != "all" and args.split not in known:
        # a typo would otherwise measure nothing and print an empty table
        parser.error(f"--split {args.split!r}: the files have {', '.join(sorted(known))} (or all)")
    result = asyncio.run(run(pairs, args.split, args.via, args.messages, args.stream))
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
    if args.via == "both":
        diffs = differences(result["rows"])
        print(f"in process vs /v1: {len(diffs)} differences")
        print("\n".join(diffs))
        result["differences"] = diffs
    path = write_result(args.out, result)
    print(f"-> {path}")


if __name__ == "__main__":
    main()
