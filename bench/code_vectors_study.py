"""Study: code blocks compared with the question by meaning (a vector per block), replayed.

    .venv/bin/python bench/writer_replay.py record NAME CORPUS QUESTIONS.jsonl [...] --split SPLIT
    .venv/bin/python bench/code_vectors_study.py NAME [NAME ...] [--text comments|gist|whole|...]
        [--outmatch R [R ...]] [--show]

Takes writer_replay recordings made with `UNITS_VERSION` 4 stores (code rows zero), embeds each
recorded chunk's code blocks from the chosen text (the sentence model, as `SentenceVectors` does;
cached in bench/results/code-vectors-TEXT.pkl), puts those rows into the recorded vectors, and
replays the writer in the working tree with `CODE_MEANING_OUTMATCH` = R (-1: off): answers with every
keyword, relevant file cited and mean words, with the questions gained and lost against the
recording. The sentences' rows stay as recorded, so only the code's vectors differ.

Texts a block is embedded from:
- comments: the lead-in (a short `intro` or the lead-in sentence before it), its title, its comments
  (`code_gist`, what `SentenceVectors` stores now);
- gist: those and its identifiers split into words ("maxYaw" -> "max yaw");
- whole: the block's lines inside the fence (the model reads its first 256 word pieces);
- lead-whole: the lead-in, then the whole block;
- lead: the lead-in alone; section-comments: the heading above the block in its chunk, then comments.

Findings (Nov 2026, base main a957c5c; recordings base-train = train-* --split all, base-tune =
reader-* --split tune, base-dev2 = dev2-* --split dev2, base-fudev = followups-dev-* --split dev,
base-fudev2 = followups-dev2-* --split dev2; 576 answered turns). Kept: a code block whose vector is
at least 0.8 x the best quoted sentence's cosine comes with an answer that is not a how-to one
(`CODE_MEANING_OUTMATCH`, `_nearer_in_meaning`; the block `_best_code` ranks first of those, with its
lead-in), vectors from "comments". Answers with every keyword gained / lost over the five sets,
in-scope and follow-up, by text and ratio R:

    text            0.6       0.7       0.8       0.9       1.0      answers changed, words/answer
    comments        +3/+1     +3/+1     +4/+1     +3/+2     +2/+2    0.8: 36, +3.3; 0.9: 22, +2.1
    gist            +3/+1     +3/+1     +3/+1-1   +3/+1     +3/+1    0.7: 57, +4.7
    whole           +4/+2     +4/+2     +3/+1     +2/+1     +2/+1    0.6: 73, +6.3; 0.7: 54, +4.6
    lead-whole      +4/+1     +4/+1     +3/+1     +2/+1     +1/+1    0.6: 72, +6.0; 0.7: 55, +4.5
    lead            +0/+1 at every ratio
    section-comm.   as comments (few blocks have a heading of their own inside the chunk)

No variant loses an in-scope answer. "comments" at 0.8 gains ta-in-03 (`ros2 topic hz` under "# Get
topic statistics"), tc-in-33 (`clearing: True`, "# Clear obstacles when no longer detected"),
d2a-in-12 (`maxYaw = 45f`: the block's doc comment "Simulates robot following human gaze"), d2c-in-13
(the `.gitignore`: "Unity generated files") and d2c-fu-04, changing 36 answers for that; the whole
block's text gains as many at 0.6-0.7 but changes twice as many answers (its cosines are lower and
flatter: code reads as noise to the sentence model). Identifiers split into words add nothing over
the comments and move more answers.

Measured and not kept:
- a line cap on the block (20 or 30 lines, as `CODE_OUTMATCH_LINES`): loses d2a-in-12 (33 lines);
- the block's cosine in `_best_code` (the how-to path), weight 0.5-2 on top of its chunk's
  similarity: -1 to -2 answers with every keyword (train, follow-ups), +0 to +1;
- of the blocks near enough, the nearest in meaning rather than `_best_code`'s pick (words, chunk,
  rank, quoted source, retrieval similarity): +4/+2 (d2c-fu-02 too), 38 answers changed, +3.6 words
  an answer; within noise of the kept +4/+1, 36, +3.3;
- where the gains' best quoted sentence is far from the question (cosine 0.38-0.51) most of the 31
  answers that only grow have one at 0.5-0.7: "only when no sentence reaches 0.55" would keep the
  five gains and halve the changed answers, but that is a threshold fitted to five questions.

Full runs (bench/answer_quality.py, base = git archive main on its v4 store, new = v5 store): train
answers with every keyword 83.7 -> 84.8 %, dev2 61.7 -> 63.8 %, follow-ups dev2 81.6 -> 84.2 %, tune
and follow-ups dev unchanged; relevant file cited train 79.0 -> 79.5 %, dev2 68.3 -> 69.2 %;
answered, near misses refused and out-of-scope refused unchanged on every set; mean words of the
answered in-scope answers +2 to +4, of follow-ups -0.4 to +6. Re-embedding the store moves the
sentence vectors a little (the int8 graph quantises each batch's activations together, and code
texts join the batches: per-component differences up to 0.03), so confidence scores differ in the
third decimal (AUROC dev2 91.6 -> 91.7 %, the others equal); the decision reads sentence rows only.
"""

from __future__ import annotations

import argparse
import math
import pickle
import sys
from typing import Any

import numpy as np

import answer_quality
import writer_replay
from common import RESULTS, bench_settings, make_embedder
from lectern.sentences import sentence_encoder
from lectern.writers.code_gist import code_gist
from lectern.writers.extractive import ExtractiveWriter, code_choice
from lectern.writers.selection import quotable_of
from lectern.writers.units import Unit, units_of

TEXTS = ("comments", "gist", "whole", "lead-whole", "lead", "section-comments")


def block_text(units: tuple[Unit, ...], position: int, how: str) -> str:
    unit = units[position]
    inside = "\n".join(unit.text.split("\n")[1:-1]).strip()
    before = units[position - 1] if position > 0 else None
    lead = unit.intro or (
        before.text if before is not None and before.kind == "sentence" and before.lead_in else ""
    )
    if how == "lead":
        return lead
    if how == "section-comments":
        return ". ".join(p for p in (unit.section, code_gist(units, position)) if p)
    if how == "gist":
        return code_gist(units, position, identifiers=True)
    if how == "whole":
        return inside
    if how == "lead-whole":
        return f"{lead}\n{inside}".strip()
    return code_gist(units, position, identifiers=False)


def _chunks(kept: dict[str, Any]) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in kept.values():
        for req in (item["request"], item.get("refused")):
            if req is None:
                continue
            for hit in [*req["retrieval"].hits, *req["retrieval"].reserve]:
                out[hit.chunk.content_hash] = hit.chunk.text
    return out


def fill(names: list[str], how: str) -> dict[str, dict[str, Any]]:
    """The recordings with each code block's row embedded from `how`'s text (embeddings cached)."""
    kept = {n: pickle.loads((RESULTS / f"{n}.replay.pkl").read_bytes()) for n in names}
    texts: dict[str, str] = {}
    for k in kept.values():
        texts.update(_chunks(k))
    cache_path = RESULTS / f"code-vectors-{how}.pkl"
    cache: dict[str, np.ndarray] = pickle.loads(cache_path.read_bytes()) if cache_path.exists() else {}
    wanted: dict[str, list[tuple[int, str]]] = {}
    for content_hash, text in texts.items():
        units = units_of(text)
        wanted[content_hash] = [
            (u.position, block_text(units, u.position, how)) for u in units if u.kind == "code"
        ]
    todo = sorted({t for rows in wanted.values() for _, t in rows if t and t not in cache})
    if todo:
        encode = sentence_encoder(make_embedder(bench_settings(RESULTS / "index" / "textbook-a")))
        for start in range(0, len(todo), 256):
            part = todo[start : start + 256]
            for text, vector in zip(part, np.asarray(encode(part), dtype=np.float32), strict=True):
                cache[text] = vector
        cache_path.write_bytes(pickle.dumps(cache))
    for k in kept.values():
        for item in k.values():
            for req in (item["request"], item.get("refused")):
                if req is None:
                    continue
                for content_hash, matrix in req["vectors"].items():
                    matrix = matrix.copy()
                    for position, text in wanted.get(content_hash, []):
                        if text and position < matrix.shape[0]:
                            matrix[position] = cache[text].astype(np.float16)
                    req["vectors"][content_hash] = matrix
    return kept


def replay(name: str, kept: dict[str, Any], show: bool) -> dict[str, float]:
    writer = ExtractiveWriter()
    rows: dict[str, dict[str, Any]] = {}
    for qid, item in kept.items():
        row, req = item["row"], item["request"]
        if not row["answered"] or req is None or row["kind"] not in ("in_scope", "followup"):
            continue
        request = writer_replay.request_of(req)
        text, cited = writer.compose(request)
        hits = quotable_of(request)
        paths = {hits[n - 1].chunk.source_path for n in cited if n <= len(hits)}
        rows[qid] = {
            "kind": row["kind"],
            "kw": bool(row["keywords"]) and answer_quality.has_keywords(text, row["keywords"]),
            "was": row["has_keywords"],
            "cited": bool(paths & set(row["expected"])),
            "cited_was": row["relevant_cited"],
            "words": len(text.split()),
            "text": text,
            "question": row["question"],
        }
    out: dict[str, float] = {}
    for kind in ("in_scope", "followup"):
        mine = {q: r for q, r in rows.items() if r["kind"] == kind}
        if not mine:
            continue
        n = len(mine)
        gained = [q for q, r in mine.items() if r["kw"] and not r["was"]]
        lost = [q for q, r in mine.items() if r["was"] and not r["kw"]]
        cg = [q for q, r in mine.items() if r["cited"] and not r["cited_was"]]
        cl = [q for q, r in mine.items() if r["cited_was"] and not r["cited"]]
        words = sum(r["words"] for r in mine.values()) / n
        print(
            f"{name:14s} {kind:9s} n={n:3d} keywords {100 * sum(r['kw'] for r in mine.values()) / n:5.1f}% "
            f"(rec {100 * sum(r['was'] for r in mine.values()) / n:5.1f}%) +{len(gained)} -{len(lost)} "
            f"cited +{len(cg)} -{len(cl)} words {words:5.1f}"
        )
        out[f"{kind}+"], out[f"{kind}-"] = len(gained), len(lost)
        if show:
            for q in gained + lost:
                r = mine[q]
                print(f"   {'+' if q in gained else '-'} {q} {r['question']}\n      {r['text'][:400]!r}")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("names", nargs="+")
    parser.add_argument("--text", choices=TEXTS, default="comments")
    parser.add_argument("--outmatch", type=float, nargs="+", default=[0.8], help="-1: off")
    parser.add_argument("--show", action="store_true")
    args = parser.parse_args()
    kept = fill(args.names, args.text)
    for outmatch in args.outmatch:
        code_choice.CODE_MEANING_OUTMATCH = math.inf if outmatch < 0 else outmatch
        print(f"--- text {args.text} outmatch {outmatch}")
        total = {"in_scope+": 0.0, "in_scope-": 0.0, "followup+": 0.0, "followup-": 0.0}
        for name in args.names:
            for key, value in replay(name, kept[name], args.show).items():
                total[key] += value
        print(f"   total {total}")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
