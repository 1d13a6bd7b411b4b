"""Landing and overview pages as answers: the chunks their shape marks, the wrong-file answers citing them.

    uv run python bench/overview_study.py chunks [--show N]
    uv run python bench/overview_study.py wrong RESULT.json [RESULT.json ...] [--show]

`chunks` reads the cached bench indexes (bench/results/index/textbook-*) and counts, per corpus, the
chunks recorded as prose that `content_kind.shape_kind` marks as an overview (a welcome that previews
the module) or navigation (a bare list of topics in a schedule, or under a heading naming the course's
parts on a folder's landing page), with N samples of each. `wrong` reads bench/answer_quality.py result
files and lists the answered in-scope and follow-up questions that cite no relevant file, marking those
that cite a landing page (Docusaurus: index, README, or a file named as its folder) or a page whose
file name says it is an intro, overview or summary, and whether a relevant file was in the top 5.

Findings (cached indexes of textbooks a-d, PYTHONHASHSEED=0, against main fe7a5bf, same indexes):
- Before: 31 answered in-scope/follow-up questions over train (all), reader (tune), dev2, followups-dev
  and followups-dev2 cited no relevant file; 14 of them cited a landing/intro/overview/summary page
  (only 4 of those had a relevant file in the top 5).
- Marking those chunks by shape and scoring them like the other non-exposition kinds (x0.6 in the
  extractive writer, never related reading on a refusal; exposition again when the question asks about
  the course: "weeks", "course", "syllabus", "what does the module cover"): 28 wrong-file, 10 citing
  such a page. dev2 cited 67.5 -> 69.2%, keywords 60.0 -> 61.1%; train cited 79.0 -> 79.5%, keywords
  83.2 -> 83.8%; answered, near misses refused, out-of-scope refused, AUROC and every follow-up number
  unchanged (the answerability decision does not read content kinds: scores are identical, so no
  retraining); no question lost. 100 of the 3,110 chunks recorded as prose change kind (84 of them on
  landing pages; 24 become overviews, 76 navigation).
- What did not work: a bare topic list anywhere (426 prose chunks: real content is often short
  noun-phrase lists, "Robustness Metrics: - Failure recovery ...") and any topic list on a landing page
  (capstone/index.md "Extended Goals" answers "what could I add beyond the minimum?": lost its keyword);
  a chunk half of whose sentences preview, off a landing page, demotes a chapter's first explanation.
- What is left is retrieval's, not the writer's: 8 of the 10 remaining wrong-file answers citing such a
  page had no relevant file in the top 5, so no writer scoring can cite it. Moving navigation and
  overview chunks out of the sources would not reach a relevant passage in any recorded retrieval
  (writer_replay recordings: in the two where such a chunk was among the sources and a relevant one in
  the reserve, the relevant one sat two or more places past the sources), so it was not tried.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from pathlib import Path

from common import RESULTS, bench_settings
from lectern.content_kind import _landing, kind_of, shape_kind
from lectern.index import open_index

ANSWERABLE = ("in_scope", "followup")
# Not used by the engine: a name-based mark, only to count what the shape rules were meant to catch.
_NAMED_OVERVIEW = re.compile(r"(^|/)[^/]*(intro|overview|summary)[^/]*\.mdx?$", re.I)


def chunks(show: int) -> None:
    for folder in sorted((RESULTS / "index").glob("textbook-*")):
        settings = bench_settings(folder)
        index = open_index(settings, settings.collection)
        counts: Counter[str] = Counter()
        samples: dict[str, list[str]] = {}
        for doc in index.documents():
            for chunk in index.chunks_of(doc.source_path):
                if chunk.extra.get("content_kind") != "prose":
                    counts[f"recorded {kind_of(chunk)}"] += 1
                    continue
                kind = shape_kind(chunk.source_path, chunk.heading_hierarchy, chunk.text) or "prose"
                where = "landing" if _landing(chunk.source_path) else "other"
                counts[f"prose -> {kind} ({where})" if kind != "prose" else "prose"] += 1
                if kind != "prose" and len(samples.setdefault(kind, [])) < show:
                    heading = " > ".join(chunk.heading_hierarchy[-2:])
                    samples[kind].append(f"{chunk.source_path} | {heading}\n      {chunk.text[:160]!r}")
        print(folder.name, dict(sorted(counts.items())))
        for kind, lines in samples.items():
            for line in lines:
                print(f"   {kind}: {line}")


def wrong(paths: list[Path], show: bool) -> None:
    total = marked = marked_top5 = 0
    for path in paths:
        for name, rows in json.loads(path.read_text())["rows"].items():
            for r in rows:
                if r["kind"] not in ANSWERABLE or not r["answered"] or r["relevant_cited"]:
                    continue
                total += 1
                cites = [s for s in r["sources"] if _landing(s) or _NAMED_OVERVIEW.search(s)]
                marked += bool(cites)
                marked_top5 += bool(cites) and r["relevant_top5"]
                if show:
                    mark = "L" if cites else " "
                    print(f"{mark} {name}: {r['question'][:90]}  (relevant in top 5: {r['relevant_top5']})")
                    print(f"     cited {r['sources']}\n     expected {r['expected']}")
    print(f"wrong file {total}; citing a landing/overview page {marked} ", end="")
    print(f"({marked_top5} with a relevant top-5 file)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    c = sub.add_parser("chunks")
    c.add_argument("--show", type=int, default=0)
    w = sub.add_parser("wrong")
    w.add_argument("results", nargs="+", type=Path)
    w.add_argument("--show", action="store_true")
    args = parser.parse_args()
    if args.command == "chunks":
        chunks(args.show)
    else:
        wrong(args.results, args.show)


if __name__ == "__main__":
    sys.exit(main())
