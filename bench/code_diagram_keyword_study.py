"""Where a missed answer keyword sits: prose, list, code, console output or a diagram (a study).

    .venv/bin/python bench/writer_replay.py record NAME CORPUS QUESTIONS.jsonl [...] --split SPLIT
    .venv/bin/python bench/code_diagram_keyword_study.py census --books D NAME [NAME ...] [--show]

(D: the folder holding textbook-a ... textbook-d; a recording's result rows are grouped by
"SET-textbook-x", which names the book.) Replays the writer in the working tree on each recording, and
for every answered in-scope or follow-up row that cites a relevant file but misses a keyword, looks the
keyword up
- in the cited relevant file(s), line by line: prose, list item, table row, heading, or inside a fence
  (mermaid diagram, text diagram drawn with box characters or +--+ art, console output: a fence of
  text / output / console / none whose lines are not commands, shell commands, configuration, program
  code by language), or only across a line break;
- in the retrieved passages (top 5, then the reserve): the same place in the passage's text, and the
  writer unit that holds it (kind, score, its fate in `_mmr`, mirrored by `kw_in_passages_study._fates`),
  or why no unit holds it (a fence `units.split_units` drops: text / output, under 3 or over 40 lines).
Then counts by place, and for the code / console / diagram keywords their passage, unit and fate.

    .venv/bin/python bench/code_diagram_keyword_study.py variants NAME [NAME ...] --variant V

replays the working tree's writer with and without a variant (below) over the recordings.

Findings (Nov 2026, base main 2cd2c17; recordings of every tuned set: reader tune, train tune, dev2,
dev5-dev15, follow-ups dev, dev2, dev3, dev4-dev15, nm funm: 1171 answered in-scope and follow-up rows
with keywords). 223 rows cite a relevant file and miss a keyword (258 keywords). Per missing keyword,
its place in the cited relevant file (the most quotable place where it occurs more than once):

    list item 96, prose 58, program code 45, shell commands 15, heading 11, configuration 8,
    diagram 8 (mermaid 7, text drawing 1), table row 7, console output 4, only in an uncited expected file 6

and in the writer's passages: in none 108 (retrieval's), top 5 80, reserve 70. So code, console output
and diagrams hold 80 of 258 (31 %); lists and prose 161. For those 80 keywords (70 rows; question kinds:
other 32, how-to 14, quantity 14, problem 5, definition 4, why 1):

    where the keyword's unit is                         program  shell  config  console  diagram  all
    in no passage (retrieval)                                15      4       3        3        5   30
    a reserve passage's code block (never quoted)            16      4       3        0        0   23
    a top-5 code block not quoted                            12      6       1        1        1   21
    a unit ranked out (a mermaid line, a list item
      naming it: under the floor 4, room ran out 2)           2      1       1        0        2    6

The framing "prose quoted instead of the code" holds for few of them: of the 20 rows whose keyword is in
a top-5 block, 17 quote a code block already, another one (most often the first-ranked source's: the
command parser's opening chunk, not the chunk with its stop words, d15a-fu-01; the joint example's run
command, not the expected output under it, d15c-in-03; the first source's 26-line block, not the
fourth's with the spoken filler line, d9a-in-01). The
choice among blocks is the writer's share; the rest is retrieval (30) and the reserve's code (23).
dev15's ten: retrieval 4 (a-in-03, a-in-05, a-in-09, c-in-11: the block or diagram is in no passage),
reserve 4 (a-in-13, b-in-05, b-fu-01 blocks; a-in-15's mermaid line "xacro process -> URDF File", score
0.211 under the floor), top 5 2 (c-in-03's console output: fixed below; a-fu-01, another block quoted).

Why meaning and words do not reach the reserve's blocks: in the answers that quote no code, the block
holding the keyword has a gist cosine of 0.05-0.18 or none (d15b-in-05's launch file, d2a-in-16, d15b-fu-01's
talker, tc-in-02, rb-in-27) against a best quoted sentence at 0.56-0.73, and its question-word overlap
is below the quoted sentences' but for d15b-fu-01 (0.78 against 0.81). Diagrams are parsed: of the
90 mermaid blocks in the four books (flowchart 66, graph 18, sequence 3, state 2, gantt 1) only the gantt
chart yields no lines (d11a-fu-09, "which one comes last?", is in it); a parser for one block is not
worth a store rebuild. Mermaid misses are mostly retrieval (5 of 7).

Kept (src/lectern/writers/console.py, `extractive.output._with_asked_output`): a question that asks what a
program prints ("how many joints should it say it got?", "what does it print when the file is fine?":
a question word, then a verb of printing in the same sentence) gets the first console output block
(no language or `console`, no typed command) of a source the answer quotes, with its lead-in
("Expected Output (Subscriber):"), unless the answer quotes one already. 29 of the 1171 questions ask so;
the rule changes one answer (the others quote no source with such a block). Replayed: in-scope answers
with every keyword 476 -> 477 (+1 -0: d15c-in-03, "13 joints"), follow-ups 409 -> 409, cited unchanged.
End to end (bench/answer_quality.py, every tuned set, before = the recordings' result files made from
main's src, after = the working tree): in-scope keywords 476 -> 477 of 655 answered, follow-ups 409 ->
409 of 516, relevant cited 599 -> 599 / 500 -> 500, answered 655 / 516 / near misses 43 of 328 / out
of scope 0 of 116 unchanged; one answer's text changed (d15c-in-03, 200 -> 231 words). Instructions
(bench/callgrind_answers.py, textbook-a, the first 40 train questions, query cache on): 386.49 M base,
388.77 M with the question's regex run on every answer (+0.6 %, ~3.7 us a question), 386.16 M once
questions without a verb of printing skip it (1.2 us; within the runs' noise).

Measured on replay and not kept (`variants`; keywords gained / lost, in-scope and follow-ups):
- nearer-block: the block `_best_code` picks gives way to one at least 0.3 nearer in meaning (and at
  least 0.85 of the best sentence's cosine): +1 -0 / +0 -0 (d9a-in-01), 10 answers changed; 0.25: 14
  changed for the same +1. A margin fitted to one question, and it swaps in off-point blocks (td-in-15:
  a launch file cut mid-listing beside the spawn node); the block's cosine in `_best_code` was
  negative before (code_vectors_study, writer_census);
- reserve-nearer: the reserve's blocks join `_nearer_in_meaning` when the answer quotes no code: +1 -0
  / +1 -1, a follow-up loses its cited file, 45 answers changed, +2 words an answer;
- code-lines: `_with_code_lines` also when the answer quotes a block already (a line of another block
  with 0.4 of the question's words): +0 -0 / +2 -0 (d2a-fu-05, d4d-fu-07), 51 answers changed; at 0.5:
  +0 / +1 with 26 changed; at 0.6: nothing gained. Too many answers grow for two follow-ups.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import pickle
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import lectern.writers.extractive.writer as ex
import writer_replay
from common import RESULTS, spy_on_writer
from kw_in_passages_study import _fates, _kind, _parts
from lectern.writers.extractive import code_lines
from lectern.writers.extractive.code_choice import _continues, _drawing
from lectern.writers.extractive.mmr import MEANING_SHARE
from lectern.writers.question_kind import question_kind
from lectern.writers.selection import quotable_of, sources_of
from writer_replay import request_of

_FENCE = re.compile(r"^\s*(```+|~~~+)\s*([\w+-]*)")
_DRAWN = re.compile(r"[\u2190-\u21ff\u2500-\u259f\u25b2-\u25c5]|\+-{2,}|-{2,}>|\|\s{2,}\S.*\s{2,}\|")
_SHELL = {"bash", "sh", "shell", "zsh", "console", "powershell", "ps1", "cmd", "terminal"}
_CONFIG = {"yaml", "yml", "json", "xml", "toml", "ini", "urdf", "sdf", "xacro", "cfg", "conf", "env"}
_OUTPUT = {"", "text", "plaintext", "output", "txt", "log", "none"}
_PROMPT = re.compile(r"^\s*(\$|>>>|#\s*\w+@|\w+@[\w-]+:|ros2 |python3? |pip |sudo |cd |colcon |source )")


def _fence_place(language: str, body: list[str]) -> str:
    drawn = sum(1 for line in body if _DRAWN.search(line))
    if language == "mermaid":
        return "diagram: mermaid"
    if body and drawn >= 0.3 * len([b for b in body if b.strip()]):
        return "diagram: text drawing"
    if language in _OUTPUT:
        commands = sum(1 for line in body if _PROMPT.match(line))
        return (
            "shell commands"
            if commands and commands >= 0.5 * len(body)
            else f"console/output ({language or 'no language'})"
        )
    if language in _SHELL:
        return "shell commands"
    if language in _CONFIG:
        return f"config ({language})"
    return f"program ({language})"


def places(text: str, keyword: str) -> list[str]:
    """Where `keyword` occurs in a Markdown text, one place per occurrence line."""
    lines = text.splitlines()
    key = keyword.lower()
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        fence = _FENCE.match(line)
        if fence:
            marker, language = fence.group(1), fence.group(2).lower()
            j = i + 1
            while j < len(lines) and not lines[j].strip().startswith(marker[:3]):
                j += 1
            body = lines[i + 1 : j]
            if any(key in b.lower() for b in body):
                size = len(body)
                out.append(
                    f"{_fence_place(language, body)}{' [long in file]' if not 1 <= size <= 38 else ''}"
                )
            i = j + 1
            continue
        if key in line.lower():
            s = line.strip()
            out.append(
                "heading"
                if s.startswith("#")
                else "table row"
                if s.startswith("|")
                else "list item"
                if re.match(r"^(?:[-*+•]|\d+[.)])\s", s)
                else "prose"
            )
        i += 1
    if not out and key in " ".join(text.lower().split()):
        out.append("across lines")
    return out


QUOTABLE_FIRST = ["prose", "list item", "table row", "heading", "across lines"]


def primary(found: list[str]) -> str:
    """The place a writer could quote most readily: prose, then lists, then headings, then the rest."""
    for p in QUOTABLE_FIRST:
        if p in found:
            return p
    return sorted(found)[0] if found else "not in the file"


def _group(place: str) -> str:
    if place.startswith(("diagram", "console", "shell", "config", "program")):
        return place.split(" (")[0].split(":")[0].split(" [")[0]
    return place


def census(name: str, books: Path, show: bool) -> tuple[Counter[str], list[str], int]:
    result = json.loads((RESULTS / f"{name}.json").read_text())
    book_of = {r["id"]: group.rsplit("-", 1)[-1] for group, rs in result["rows"].items() for r in rs}
    kept = pickle.loads((RESULTS / f"{name}.replay.pkl").read_bytes())
    seen: dict[str, Any] = {}
    restore = spy_on_writer(seen)
    counts: Counter[str] = Counter()
    details: list[str] = []
    answered = 0
    try:
        for qid, item in kept.items():
            row, req = item["row"], item["request"]
            if not row["answered"] or req is None or row["kind"] not in ("in_scope", "followup"):
                continue
            if not row["keywords"]:
                continue
            answered += 1
            seen.clear()
            request = request_of(req)
            text, cited = ex.ExtractiveWriter().compose(request)
            hits = quotable_of(request)
            top = len(sources_of(request))
            paths = {hits[n - 1].chunk.source_path for n in cited if n <= len(hits)}
            relevant = paths & set(row["expected"])
            missing = [k for k in row["keywords"] if k.lower() not in text.lower()]
            if not relevant or not missing:
                continue
            kind = question_kind(request.question)
            candidates = seen.get("candidates", [])
            fates = _fates(candidates) if candidates else {}
            by_score = sorted(candidates, key=lambda c: -c.score)
            root = books / f"textbook-{book_of[qid]}"
            lines = [f"{name} {qid} kind={kind} words={len(text.split())} Q: {request.question}"]
            for keyword in missing:
                found = [p for path in sorted(relevant) for p in places((root / path).read_text(), keyword)]
                place = primary(found)
                counts[f"file: {_group(place)}"] += 1
                counts[f"file detail: {place}"] += 1
                lines.append(f"   KW {keyword!r}: file {place} (all: {found})")
                where = [n for n, h in enumerate(hits, start=1) if keyword.lower() in h.chunk.text.lower()]
                if not where:
                    counts[f"passages: none ({_group(place)})"] += 1
                    lines.append("      in no passage")
                    continue
                n = where[0]
                passage_place = primary(places(hits[n - 1].chunk.text, keyword))
                set_ = "top 5" if n <= top else "reserve"
                counts[f"passages: {set_}, {_group(passage_place)}"] += 1
                unit_line = "no unit holds it"
                for c in by_score:
                    if (
                        c.source in where
                        and keyword.lower() in " ".join((c.unit.text, *c.unit.items)).lower()
                    ):
                        rank = by_score.index(c) + 1
                        unit_line = (
                            f"[{c.source}] {_kind(c.unit)} rank {rank}/{len(by_score)} <{fates.get(c, '?')}> "
                            f"{_parts(c, kind)} | {c.unit.text[:100]!r}"
                        )
                        break
                else:
                    codes = [
                        (m, u)
                        for m in where
                        for u in ex.units_of(hits[m - 1].chunk.text)
                        if u.kind == "code" and keyword.lower() in u.text.lower()
                    ]
                    if codes:
                        m, u = codes[0]
                        size = u.text.count(chr(10)) + 1
                        unit_line = f"[{m}] code block pos {u.position} ({size} lines) not quoted"
                lines.append(f"      passage [{n}] {set_} {passage_place}: {unit_line}")
            details.append("\n".join(lines))
            if show:
                print(details[-1])
                for c in seen.get("chosen", []):
                    print(
                        f"      CHOSE [{c.source}] {_kind(c.unit)} {_parts(c, kind)} | {c.unit.text[:90]!r}"
                    )
    finally:
        restore()
    return counts, details, answered


# --- variants measured on replay (none kept; the console-output rule that was kept is in src) -------------
NEARER_BLOCK_MARGIN = 0.3


def _nearer_block() -> None:
    """The block `_best_code` picks gives way to an answering block at least `NEARER_BLOCK_MARGIN` nearer
    the question in meaning (a block with no vector counts 0) and as near as `MEANING_SHARE` of the best
    quoted sentence."""
    best_code = ex._best_code

    def variant(codes: list[Any], chosen: list[Any], *, strict: bool = True, lead: int | None = None) -> Any:
        code = best_code(codes, chosen, strict=strict, lead=lead)
        prose = max(
            (c.cosine for c in chosen if c.cosine is not None and c.unit.kind != "code"), default=None
        )
        if code is None or prose is None:
            return code
        floor = (code.cosine or 0.0) + NEARER_BLOCK_MARGIN
        near = [k for k in codes if k.cosine is not None and k.cosine >= max(floor, MEANING_SHARE * prose)]
        return max(near, key=lambda k: k.cosine) if near else code

    ex._best_code = variant  # type: ignore[assignment]


def _reserve_nearer() -> None:
    """The reserve's code blocks join `_nearer_in_meaning` (not a how-to's blocks) when the answer quotes
    no code: a reserve block as near the question as `CODE_MEANING_OUTMATCH` of the best quoted sentence."""
    stash: dict[str, list[Any]] = {"reserve": []}
    candidates_of, attach, nearer = ex.ExtractiveWriter._candidates, ex._attach_vectors, ex._nearer_in_meaning

    def candidates(self: Any, sources: Any, terms: Any, reserve: Any = (), asked: Any = frozenset()) -> Any:
        out = candidates_of(self, sources, terms, reserve, asked)
        stash["reserve"] = []
        if reserve:
            per = [ex.units_of(h.chunk.text) for h in reserve]
            shared = ex._shared(per, terms)
            idf = ex._idf(shared, terms)
            _, codes = ex._unit_candidates(
                reserve, per, shared, len(sources) + 1, idf, terms, asked, ranked=False
            )
            stash["reserve"] = [k for k in codes if not _drawing(k.unit.text)]
        return out

    def attaching(cands: list[Any], sources: Any, sentences: Any, query: Any) -> None:
        stash["reserve"] = [k for k in stash["reserve"] if k.source <= len(sources)]
        attach(cands + stash["reserve"], sources, sentences, query)

    def nearing(codes: list[Any], chosen: list[Any]) -> list[Any]:
        quotes_code = any(c.unit.kind == "code" for c in chosen)
        return nearer(codes if quotes_code else codes + stash["reserve"], chosen)

    ex.ExtractiveWriter._candidates = candidates  # type: ignore[method-assign]
    ex._attach_vectors = attaching  # type: ignore[assignment]
    ex._nearer_in_meaning = nearing  # type: ignore[assignment]
    ex._whole_nearer_in_meaning = lambda codes, chosen: [  # type: ignore[assignment]
        k for k in nearer(codes, chosen) if not _continues(k.unit.text)
    ]


CODE_LINES_SHARE = 0.4


def _code_lines_always() -> None:
    """`_with_code_lines` also when the answer quotes a block already: the line of another block that
    holds `CODE_LINES_SHARE` of the question's words comes too."""
    with_lines = ex._with_code_lines

    def variant(
        chosen: list[Any], codes: list[Any], cands: list[Any], query: str, terms: Any, **kw: Any
    ) -> Any:
        if not any(c.unit.kind == "code" for c in chosen):
            return with_lines(chosen, codes, cands, query, terms, **kw)
        quoted = {(c.source, c.unit.position) for c in chosen if c.unit.kind == "code"}
        rest = [k for k in codes if (k.source, k.unit.position) not in quoted]
        prose = [c for c in chosen if c.unit.kind != "code"]
        share, code_lines.CODE_LINE_SHARE = code_lines.CODE_LINE_SHARE, CODE_LINES_SHARE
        try:
            out = with_lines(prose, rest, cands, query, terms)
        finally:
            code_lines.CODE_LINE_SHARE = share
        return chosen + [c for c in out if c not in prose and c not in chosen]

    ex._with_code_lines = variant  # type: ignore[assignment]


VARIANTS = {
    "nearer-block": _nearer_block,
    "reserve-nearer": _reserve_nearer,
    "code-lines": _code_lines_always,
}


def variants(names: list[str], which: str) -> None:
    """Answers with every keyword, relevant file cited, words and answers changed: the working tree's
    writer against it with the variant, over the recordings."""

    def run() -> dict[str, dict[str, Any]]:
        out = {}
        for name in names:
            with contextlib.redirect_stdout(io.StringIO()):
                for qid, row in writer_replay.replay(name, False).items():
                    out[f"{name} {qid}"] = row
        return out

    base = run()
    VARIANTS[which]()
    new = run()
    for kind in ("in_scope", "followup"):
        keys = [k for k, r in base.items() if r["kind"] == kind]
        gained = [k for k in keys if new[k]["has_keywords"] and not base[k]["has_keywords"]]
        lost = [k for k in keys if base[k]["has_keywords"] and not new[k]["has_keywords"]]
        cited = sum(new[k]["relevant_cited"] for k in keys) - sum(base[k]["relevant_cited"] for k in keys)
        changed = [k for k in keys if new[k]["text"] != base[k]["text"]]
        words = sum(new[k]["words"] - base[k]["words"] for k in keys) / max(1, len(keys))
        print(
            f"{which} {kind}: n={len(keys)} keywords +{len(gained)} -{len(lost)} cited {cited:+d} "
            f"changed {len(changed)} words/answer {words:+.1f}\n   gained {gained}\n   lost {lost}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="command", required=True)
    cen = sub.add_parser("census")
    cen.add_argument("names", nargs="+")
    cen.add_argument("--books", type=Path, required=True)
    cen.add_argument("--show", action="store_true")
    var = sub.add_parser("variants")
    var.add_argument("names", nargs="+")
    var.add_argument("--variant", choices=sorted(VARIANTS), required=True)
    args = parser.parse_args()
    if args.command == "variants":
        variants(args.names, args.variant)
        return
    total: Counter[str] = Counter()
    rows = 0
    answered = 0
    for name in args.names:
        counts, details, n = census(name, args.books, args.show)
        total += counts
        rows += len(details)
        answered += n
    print(f"\n{rows} of {answered} answered rows cite a relevant file and miss a keyword", file=sys.stderr)
    for key, n in sorted(total.items()):
        print(f"  {n:4d} {key}")


if __name__ == "__main__":
    main()
