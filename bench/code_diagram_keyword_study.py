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
"""

from __future__ import annotations

import argparse
import json
import pickle
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import lectern.writers.extractive as ex
from common import RESULTS
from kw_in_passages_study import _fates, _kind, _parts
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
    mmr, render = ex._mmr, ex._render

    def ranking(candidates: list[Any], limit: int = ex.MAX_SENTENCES) -> list[Any]:
        out = mmr(candidates, limit)
        seen["candidates"] = list(candidates)
        return out

    def rendering(chosen: list[Any]) -> tuple[str, list[int]]:
        seen["chosen"] = list(chosen)
        return render(chosen)

    ex._mmr, ex._render = ranking, rendering  # type: ignore[assignment]
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
        ex._mmr, ex._render = mmr, render  # type: ignore[assignment]
    return counts, details, answered


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="command", required=True)
    cen = sub.add_parser("census")
    cen.add_argument("names", nargs="+")
    cen.add_argument("--books", type=Path, required=True)
    cen.add_argument("--show", action="store_true")
    args = parser.parse_args()
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
