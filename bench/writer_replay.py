"""Replay the extractive writer on recorded retrievals: writer changes measured in seconds, not minutes.

    uv run python bench/writer_replay.py record NAME CORPUS QUESTIONS.jsonl [...] [--split tune|all]
    uv run python bench/writer_replay.py replay NAME [--show]
    uv run python bench/writer_replay.py misses NAME [--show]
    uv run python bench/writer_replay.py cites NAME [--show]
    uv run python bench/writer_replay.py refusals NAME

`record` runs bench/answer_quality.py's questions (and writes its usual result file, NAME.json) and keeps,
for each question, what the writer was given on the scored turn: the retrieval, the question, the search
query and the stored vectors of the retrieved chunks' sentences, the reserve's too
(bench/results/NAME.replay.pkl), and for a refused turn what the writer would have been given had it
been answered.
`replay` composes every answered question's answer again with the writer in the working tree and reports
the answered questions' keyword % and relevant-file-cited % (the engine's answerability decision does not
depend on the writer, so it is not re-run). Recordings hold vectors row by row for `units_of`'s units: a
change to how chunks are split into units needs a new recording.

`misses` lists the answered in-scope questions whose every answer keyword is in the passages the writer
got but not in its answer (the writer's own share of the misses), and for each missing keyword the unit
that holds it: its kind (sentence, list item or table row, code), its source, its rank by the writer's
score and how far it sits from the nearest unit the answer quotes; then a count by cause.

`cites` lists the answered in-scope questions whose answer cites no relevant file although a relevant
file is among the passages the writer got: the ranked passages (file, retrieval score, kind, whether the
answer quotes them), the quoted units with their writer score, and the relevant passages' best unit with
its score's parts (cosine, words, headings, rank prior); then a count by why the relevant one lost.

`refusals` counts the refused in-scope questions whose relevant file was in the top 5, by refusal reason,
and composes their answers as if they had been answered: would the writer cite a relevant file?
"""

from __future__ import annotations

import argparse
import asyncio
import pickle
import sys
from pathlib import Path
from typing import Any

import numpy as np

import answer_quality
from common import RESULTS, write_result
from lectern.engine import Engine
from lectern.models import Chunk
from lectern.writers.base import WriteRequest
from lectern.writers.extractive import ExtractiveWriter
from lectern.writers.selection import quotable_of, sources_of
from lectern.writers.units import units_of

EMBEDDER = "local:all-MiniLM-L6-v2"  # the benchmarks' embedding model (bench/common.py)


class _Embedder:
    name = EMBEDDER


class _Recorded:
    """A `SentenceVectors` stand-in that hands out recorded vectors."""

    embedder = _Embedder()

    def __init__(self, vectors: dict[str, np.ndarray]) -> None:
        self.vectors = vectors

    def of(self, chunks: list[Chunk]) -> list[tuple[Any, np.ndarray]]:
        return [(units_of(c.text), self.vectors[c.content_hash].astype(np.float32)) for c in chunks]


def record(name: str, pairs: list[tuple[Path, Path]], split: str) -> None:
    seen: dict[str, dict[str, Any]] = {}
    current: list[str] = [""]
    compose = ExtractiveWriter.compose

    def recording(self: ExtractiveWriter, request: WriteRequest) -> tuple[str, list[int]]:
        vectors: dict[str, np.ndarray] = {}
        if request.retrieval is not None and request.sentences is not None:
            chunks = [h.chunk for h in [*request.retrieval.hits, *request.retrieval.reserve]]
            for chunk, (_, matrix) in zip(chunks, request.sentences.of(chunks), strict=True):
                vectors[chunk.content_hash] = matrix.astype(np.float16)
        seen[current[0]] = {  # the last turn's request wins: it is the one scored
            "question": request.question,
            "search_query": request.search_query,
            "retrieval": request.retrieval,
            "user_context": request.user_context,
            "vectors": vectors,
        }
        return compose(self, request)

    ask = answer_quality.ask

    async def asking(engine: Engine, record: dict[str, Any]) -> dict[str, Any]:
        current[0] = record["id"]
        return await ask(engine, record)

    prepare = Engine._prepare

    def preparing(self: Engine, turn: Any, conversation: Any, *args: Any) -> Any:
        prepared = prepare(self, turn, conversation, *args)
        result, confidence = args[-2], args[-1]
        if prepared.decided is not None and prepared.decided[1] is not None and result.hits:
            # Refused: what the writer would have been given, had the turn been answered.
            request = self._request(turn, conversation, result, confidence)
            chunks = [h.chunk for h in [*result.hits, *result.reserve]]
            vectors = {
                c.content_hash: m.astype(np.float16)
                for c, (_, m) in zip(chunks, self.retriever.sentences.of(chunks), strict=True)
            }
            refused[current[0]] = {
                "question": request.question,
                "search_query": request.search_query,
                "retrieval": request.retrieval,
                "user_context": request.user_context,
                "vectors": vectors,
            }
        return prepared

    refused: dict[str, dict[str, Any]] = {}
    ExtractiveWriter.compose = recording  # type: ignore[method-assign]
    Engine._prepare = preparing  # type: ignore[method-assign]
    answer_quality.ask = asking
    result = asyncio.run(answer_quality.run(pairs, split))
    answer_quality.print_table(result["reports"])
    write_result(name, result)
    rows = [r for rows in result["rows"].values() for r in rows]
    kept = {r["id"]: {"row": r, "request": seen.get(r["id"]), "refused": refused.get(r["id"])} for r in rows}
    (RESULTS / f"{name}.replay.pkl").write_bytes(pickle.dumps(kept))


def _noop_retrieve(call: Any) -> Any:
    raise RuntimeError("the extractive writer does not retrieve")


def request_of(req: dict[str, Any]) -> WriteRequest:
    """The recorded request, as the writer got it."""
    return WriteRequest(
        question=req["question"],
        search_query=req["search_query"],
        history=[],
        system_prompt="",
        retrieval=req["retrieval"],
        confidence=None,
        user_context=req["user_context"],
        retrieve=_noop_retrieve,
        sentences=_Recorded(req["vectors"]),  # type: ignore[arg-type]
    )


def replay(name: str, show: bool) -> dict[str, dict[str, Any]]:
    kept = pickle.loads((RESULTS / f"{name}.replay.pkl").read_bytes())
    writer = ExtractiveWriter()
    out: dict[str, dict[str, Any]] = {}
    for qid, item in kept.items():
        row, req = item["row"], item["request"]
        if not row["answered"] or req is None or row["kind"] not in ("in_scope", "followup"):
            continue
        text, cited = writer.compose(request_of(req))
        hits = quotable_of(request_of(req))
        paths = {hits[n - 1].chunk.source_path for n in cited if n <= len(hits)}
        out[qid] = {
            "kind": row["kind"],
            "keywords": row["keywords"],
            "has_keywords": bool(row["keywords"]) and answer_quality.has_keywords(text, row["keywords"]),
            "was": row["has_keywords"],
            "relevant_cited": bool(paths & set(row["expected"])),
            "cited_was": row["relevant_cited"],
            "words": len(text.split()),
            "text": text,
        }
    for kind in ("in_scope", "followup"):
        rows = [r for r in out.values() if r["kind"] == kind]
        if not rows:
            continue
        n = len(rows)
        kw = sum(r["has_keywords"] for r in rows)
        was = sum(r["was"] for r in rows)
        cited = sum(r["relevant_cited"] for r in rows)
        words = sum(r["words"] for r in rows) / n
        gained = [q for q, r in out.items() if r["kind"] == kind and r["has_keywords"] and not r["was"]]
        lost = [q for q, r in out.items() if r["kind"] == kind and r["was"] and not r["has_keywords"]]
        print(
            f"{name} {kind:9s} n={n:3d} keywords {100 * kw / n:5.1f}% (recorded {100 * was / n:5.1f}%) "
            f"cited {100 * cited / n:5.1f}% words {words:5.1f}  +{len(gained)} -{len(lost)}"
        )
        if show:
            print("   gained:", " ".join(gained))
            print("   lost:  ", " ".join(lost))
            mine = {q: r for q, r in out.items() if r["kind"] == kind}
            now = [q for q, r in mine.items() if r["relevant_cited"] and not r["cited_was"]]
            gone = [q for q, r in mine.items() if r["cited_was"] and not r["relevant_cited"]]
            print("   cited gained:", " ".join(now))
            print("   cited lost:  ", " ".join(gone))
    return out


def _unit_kind(unit: Any) -> str:
    return "code" if unit.kind == "code" else "list/table" if unit.bullet else "sentence"


def _cause(quoted_near: int | None, kind: str) -> str:
    if quoted_near is None:
        return f"passage not quoted ({kind})"
    if quoted_near == 1:
        return f"next to a quoted unit ({kind})"
    return f"{'near' if quoted_near <= 3 else 'far from'} a quoted unit of its passage ({kind})"


def misses(name: str, show: bool) -> dict[str, str]:
    """Why the answer misses keywords its passages hold: question id -> the likeliest cause."""
    import lectern.writers.extractive.writer as extractive

    kept = pickle.loads((RESULTS / f"{name}.replay.pkl").read_bytes())
    seen: dict[str, list[Any]] = {}
    render, mmr = extractive._render, extractive._mmr

    def rendering(chosen: list[Any]) -> tuple[str, list[int]]:
        seen["chosen"] = list(chosen)
        return render(chosen)

    def ranking(candidates: list[Any], *args: Any) -> list[Any]:
        seen["ranked"] = sorted(candidates, key=lambda c: -c.score)
        return mmr(candidates, *args)

    extractive._render, extractive._mmr = rendering, ranking  # type: ignore[assignment]
    writer, causes = ExtractiveWriter(), {}
    try:
        for qid, item in kept.items():
            row, req = item["row"], item["request"]
            if not row["answered"] or req is None or row["kind"] != "in_scope" or not row["keywords"]:
                continue
            seen.clear()
            request = request_of(req)
            text, _ = writer.compose(request)
            hits = quotable_of(request)  # the reserve too: the writer may quote it
            passages = "\n".join(h.chunk.text for h in hits).lower()
            missing = [k for k in row["keywords"] if k.lower() not in text.lower()]
            if not missing or not all(k.lower() in passages for k in row["keywords"]):
                continue
            chosen, ranked = seen.get("chosen", []), seen.get("ranked", [])
            lines, best = [], None
            for keyword in missing:
                for number, hit in enumerate(hits, start=1):
                    for unit in units_of(hit.chunk.text):
                        if keyword.lower() not in " ".join((unit.text, *unit.items)).lower():
                            continue
                        near = min(
                            (abs(c.unit.position - unit.position) for c in chosen if c.source == number),
                            default=None,
                        )
                        rank = next(
                            (i for i, c in enumerate(ranked) if c.source == number and c.unit is unit), None
                        )
                        kind = _unit_kind(unit)
                        lines.append(f"   {keyword!r}: {kind} of source {number}, rank {rank}, {near=}")
                        key = (near is None, near or 0)
                        if best is None or key < best[0]:
                            best = (key, _cause(near, kind))
            causes[qid] = best[1] if best else "in a passage, in no unit"
            if show:
                print(f"{qid} ({len(text.split())} words) {request.question}")
                print("\n".join(lines))
    finally:
        extractive._render, extractive._mmr = render, mmr  # type: ignore[assignment]
    print(f"{name}: {len(causes)} answered in-scope questions miss keywords their passages hold")
    for cause in sorted(set(causes.values()), key=lambda c: -list(causes.values()).count(c)):
        print(f"  {list(causes.values()).count(cause):3d} {cause}")
    return causes


def _parts(c: Any, query_vector: np.ndarray | None) -> str:
    cosine = float(c.vector @ query_vector) if c.vector is not None and query_vector is not None else 0.0
    return (
        f"score {c.score:.3f} cos {cosine:.2f} lex {c.lexical:.2f} head {c.heading:.2f} "
        f"chunk {c.chunk:.2f} rank {c.rank_prior:.2f}{'' if c.exposition else ' NOT-EXPOSITION'}"
    )


def cites(name: str, show: bool) -> dict[str, str]:
    """Answered in-scope questions that cite no relevant file the writer had: question id -> cause."""
    import lectern.writers.extractive.writer as extractive
    from lectern.content_kind import kind_of
    from lectern.writers.extractive.mmr import RELATIVE_FLOOR

    kept = pickle.loads((RESULTS / f"{name}.replay.pkl").read_bytes())
    seen: dict[str, list[Any]] = {}
    mmr = extractive._mmr

    def ranking(candidates: list[Any], *args: Any) -> list[Any]:
        seen["ranked"] = sorted(candidates, key=lambda c: -c.score)
        out = mmr(candidates, *args)
        seen["mmr"] = list(out)
        return out

    extractive._mmr = ranking  # type: ignore[assignment]
    writer, causes = ExtractiveWriter(), {}
    try:
        for qid, item in kept.items():
            row, req = item["row"], item["request"]
            if not row["answered"] or req is None or row["kind"] != "in_scope":
                continue
            seen.clear()
            request = request_of(req)
            _, cited = writer.compose(request)
            hits = sources_of(request)
            expected = set(row["expected"])
            relevant = [n for n, h in enumerate(hits, start=1) if h.chunk.source_path in expected]
            if not relevant or set(cited) & set(relevant):
                continue
            qv = req["retrieval"].query_embedding
            query_vector = np.asarray(qv, dtype=np.float32) if qv is not None else None
            ranked, picked = seen.get("ranked", []), seen.get("mmr", [])
            best_rel = next((c for c in ranked if c.source in relevant), None)
            if best_rel is None:
                cause = "relevant passage has no sentence"
            elif not picked:
                cause = "no sentence picked"
            elif best_rel.score < picked[0].score * RELATIVE_FLOOR:
                cause = "relevant best unit under half the top unit"
            elif not best_rel.exposition:
                cause = "relevant passage not exposition"
            else:
                pos = ranked.index(best_rel)
                cause = f"relevant best unit ranked {min(pos, 9)}{'+' if pos >= 9 else ''}"
            causes[qid] = cause
            if show:
                print(f"\n{qid} [{cause}] {request.question}")
                print(f"   expected {sorted(expected)}  keywords {row['keywords']}")
                for n, h in enumerate(hits, start=1):
                    mark = "Q" if n in cited else " "
                    rel = "R" if n in relevant else " "
                    print(
                        f"   {mark}{rel} [{n}] {h.score:.3f} sim {h.similarity:.3f} {kind_of(h.chunk):9s} "
                        f"{h.chunk.source_path} > {' > '.join(h.chunk.heading_hierarchy[-2:])}"
                    )
                for c in picked:
                    print(f"   picked [{c.source}] {_parts(c, query_vector)} | {c.unit.text[:110]!r}")
                if best_rel is not None:
                    print(
                        f"   best relevant [{best_rel.source}] (#{ranked.index(best_rel)}) "
                        f"{_parts(best_rel, query_vector)} | {best_rel.unit.text[:110]!r}"
                    )
    finally:
        extractive._mmr = mmr  # type: ignore[assignment]
    print(f"{name}: {len(causes)} answered in-scope questions cite no relevant file the writer had")
    for cause in sorted(set(causes.values()), key=lambda c: -list(causes.values()).count(c)):
        print(f"  {list(causes.values()).count(cause):3d} {cause}")
    return causes


def refusals(name: str) -> None:
    """Refused in-scope questions whose relevant file was in the top 5, by refusal reason."""
    kept = pickle.loads((RESULTS / f"{name}.replay.pkl").read_bytes())
    rows = [i["row"] for i in kept.values() if i["row"]["kind"] == "in_scope" and not i["row"]["answered"]]
    top = [r for r in rows if r["relevant_top5"]]
    print(f"{name}: {len(rows)} refused in-scope, {len(top)} with a relevant file in the top 5")
    reasons = [str(r["reason"]) for r in top]
    for reason in sorted(set(reasons), key=lambda x: -reasons.count(x)):
        print(f"  {reasons.count(reason):3d} {reason}")
    # Had they been answered: would the writer cite a relevant file, and quote every keyword?
    writer, would, keywords, recorded = ExtractiveWriter(), 0, 0, 0
    for item in kept.values():
        row, req = item["row"], item.get("refused")
        if row["kind"] != "in_scope" or row["answered"] or not row["relevant_top5"] or req is None:
            continue
        recorded += 1
        text, cited = writer.compose(request_of(req))
        hits = quotable_of(request_of(req))
        paths = {hits[n - 1].chunk.source_path for n in cited if n <= len(hits)}
        would += bool(paths & set(row["expected"]))
        keywords += bool(row["keywords"]) and answer_quality.has_keywords(text, row["keywords"])
        rank = next(n for n, h in enumerate(hits[:5], start=1) if h.chunk.source_path in row["expected"])
        print(
            f"    {row['id']:9s} {row['reason']:14s} score {row['score']:.3f} relevant rank {rank} "
            f"cited {bool(paths & set(row['expected']))!s:5s} {row['question'][:80]}"
        )
    if recorded:
        print(
            f"  answered as recorded, the writer would cite a relevant file in {would}/{recorded}, "
            f"quote every keyword in {keywords}/{recorded}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="command", required=True)
    rec = sub.add_parser("record")
    rec.add_argument("name")
    rec.add_argument("pairs", nargs="+")
    rec.add_argument("--split", default="all", help="a split name found in the files, or all")
    rep = sub.add_parser("replay")
    rep.add_argument("names", nargs="+")
    rep.add_argument("--show", action="store_true")
    mis = sub.add_parser("misses")
    mis.add_argument("names", nargs="+")
    mis.add_argument("--show", action="store_true")
    cit = sub.add_parser("cites")
    cit.add_argument("names", nargs="+")
    cit.add_argument("--show", action="store_true")
    ref = sub.add_parser("refusals")
    ref.add_argument("names", nargs="+")
    args = parser.parse_args()
    if args.command == "record":
        pairs = [(Path(args.pairs[i]), Path(args.pairs[i + 1])) for i in range(0, len(args.pairs), 2)]
        record(args.name, pairs, args.split)
    elif args.command == "cites":
        for name in args.names:
            cites(name, args.show)
    elif args.command == "refusals":
        for name in args.names:
            refusals(name)
    elif args.command == "misses":
        for name in args.names:
            misses(name, args.show)
    else:
        for name in args.names:
            replay(name, args.show)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
