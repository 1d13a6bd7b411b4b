"""Summary pages against chapters: which file an in-scope answer cites when the expected one is a short
overview page (or a chapter), over every tuned in-scope set.

    PYTHONHASHSEED=0 .venv/bin/python bench/summary_pages_study.py PREFIX [--rows]

reads bench/results/<PREFIX>-<SET>.json for SET in reader, train, dev2, dev5..dev14, as written by

    PYTHONHASHSEED=0 .venv/bin/python bench/answer_quality.py \\
        D/textbook-a bench/questions/SET-textbook-a.jsonl ... (b, c, d) --split SPLIT --out PREFIX-SET

(SPLIT: tune for reader and train, else the set's own name). Only rows of the tuned split are read: the
result files of a tuned split hold no held-back row, and the filter is applied again here.

A page is a *summary page* from its structure alone (no book terms), against its own book:
- named as one (stem, or the stem's last dash/underscore word: index, readme, intro, introduction,
  overview, summary, conclusion) and no longer than the book's median page; or
- no longer than the median and mostly list items, table rows or links (>= 50% of its non-blank lines); or
- at most half the median long and dense with headings (>= 30 headings per 1000 words).
Anything else is a *chapter*.

Per row: the expected files' kind (summary / chapter / mixed), cited (relevant file cited), relevant file
in the top 5, and for answered rows that cite no expected file, the kind of the files cited instead and
whether such a cited chapter holds every answer keyword itself (then the record, not the engine, is
arguably strict). `--depth` searches each such row again 45 deep (hybrid, the product threshold) and
prints the rank of the first chunk of an expected file: what a re-ranking of the pool could reach.

Result (main 6212b85, every tuned in-scope set, 759 rows; prefix sp1): NO CLEAR GENERAL PATTERN; no arm
was tried and src/ is unchanged.

    set     rows want_S S_cited S_top5 S->chapter S->summary C->summary C->chapter refused_S
    reader   100      7       6      7          0          0          1          4         1
    train    219     15      12     14          1          1          7         11         2
    dev2     120     13      11     13          0          0          6         10         2
    dev5..13 288     46      31     39          2          0          4         16        13
    dev14     32     14       5      8          5          3          0          2         4
    ALL      759     95      65     81          8          4         18         43        22

(S: the expected file(s) are summary pages; C: chapters; 44 mixed rows left out; a row citing both kinds
counts in both columns.) Wanting a summary page and losing to a chapter: 8 rows in all, 5 of them dev14
(d14a-in-05, -13, d14c-in-01, d14d-in-01, -07; three also cite another module's summary page); the
opposite, wanting a chapter and losing to a summary page, 18 rows (train 7, dev2 6); chapter lost to
another chapter 43. None of the 8 chapters cited instead of a summary page holds every answer keyword
(nor any of the 18 summary pages cited instead of a chapter): those records are not strict, the engine
is wrong. Chapter-for-chapter losses: 13 of 43 cited chapters do hold every keyword (arguably strict).

Why no ranking arm: of the 5 dev14 rows, the expected summary page's first chunk ranks 7 (a-13) and 22
(d-01) in a 45-deep search, and not at all for a-05, c-01, d-07; only 2 of the 8 rows over all sets had
it in the top 5. It is missing from the pool, not out-ranked in it, so a summary-page bonus in `rank`
could gain at most 1-2 rows while putting the 18 chapter-wanting rows that already lose to a summary page
(and the negative "overview demotion" arm's mirror) at risk. The dev14 cluster comes from how the set was
built (facts from the least-used files: indexes, intros, the conclusion), not from a pattern the older
sets show.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
from collections import Counter
from functools import cache
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
TEXTBOOKS = HERE.parent.parent / "shared" / "data" / "textbooks"
SETS = [("reader", "tune"), ("train", "tune"), ("dev2", "dev2")] + [
    (f"dev{n}", f"dev{n}") for n in range(5, 15)
]
SUMMARY_NAMES = {"index", "readme", "intro", "introduction", "overview", "summary", "conclusion"}
LIST_LINE = re.compile(r"\s*([-*+]|\d+[.)])\s|\s*\||.*\]\(")


def words_of(text: str) -> int:
    return len(text.split())


def page_stats(text: str) -> tuple[int, float, float]:
    """Words, share of non-blank lines that are list items / table rows / links, headings per 1000 words."""
    lines = [line for line in text.splitlines() if line.strip()]
    listy = sum(1 for line in lines if LIST_LINE.match(line))
    headings = sum(1 for line in lines if line.lstrip().startswith("#"))
    words = words_of(text)
    return words, listy / max(1, len(lines)), headings * 1000 / max(1, words)


def named_summary(path: str) -> bool:
    stem = Path(path).stem.lower()
    return stem in SUMMARY_NAMES or re.split(r"[-_]", stem)[-1] in SUMMARY_NAMES


@cache
def book_pages(book: str) -> dict[str, str]:
    root = TEXTBOOKS / book
    return {
        str(p.relative_to(root)): p.read_text(errors="ignore")
        for p in root.rglob("*")
        if p.is_file() and p.suffix in {".md", ".mdx", ".txt", ".rst"}
    }


@cache
def summary_pages(book: str) -> frozenset[str]:
    pages = book_pages(book)
    median = statistics.median(words_of(t) for t in pages.values())
    out = set()
    for path, text in pages.items():
        words, listy, heading_density = page_stats(text)
        short = words <= median
        if (short and (named_summary(path) or listy >= 0.5)) or (
            words <= median / 2 and heading_density >= 30
        ):
            out.add(path)
    return frozenset(out)


def kind_of(book: str, files: list[str]) -> str:
    summaries = summary_pages(book)
    kinds = {"summary" if f in summaries else "chapter" for f in files}
    return kinds.pop() if len(kinds) == 1 else "mixed"


def holds_keywords(book: str, path: str, keywords: list[str]) -> bool:
    text = " ".join(book_pages(book).get(path, "").lower().split())
    return bool(keywords) and all(" ".join(k.lower().split()) in text for k in keywords)


def census(prefix: str, show_rows: bool) -> None:
    totals: Counter[str] = Counter()
    for name, split in SETS:
        path = RESULTS / f"{prefix}-{name}.json"
        if not path.exists():
            print(f"missing {path}", file=sys.stderr)
            continue
        per: Counter[str] = Counter()
        for key, rows in json.loads(path.read_text())["rows"].items():
            book = key[len(name) + 1 :]
            for r in rows:
                if r["kind"] != "in_scope" or r["split"] != split:
                    continue
                for tag in classify(book, r):
                    per[tag] += 1
                if show_rows and not r["relevant_cited"] and r["answered"]:
                    print_row(name, book, r)
        totals.update(per)
        print(f"{name:7s} " + " ".join(f"{k}={per[k]}" for k in TAGS))
    print("ALL     " + " ".join(f"{k}={totals[k]}" for k in TAGS))


TAGS = [
    "rows",
    "want_summary",
    "want_chapter",
    "want_mixed",
    "summary_cited",
    "chapter_cited",
    "summary_top5",
    "chapter_top5",
    "summary_lost_to_chapter",
    "summary_lost_to_chapter_top5",
    "chapter_lost_to_summary",
    "chapter_lost_to_chapter",
    "summary_lost_to_summary",
    "summary_lost_chapter_has_kw",
    "chapter_lost_chapter_has_kw",
    "chapter_lost_summary_has_kw",
    "refused_summary",
    "refused_chapter",
]


def classify(book: str, r: dict[str, Any]) -> list[str]:
    want = kind_of(book, r["expected"])
    tags = ["rows", f"want_{want}"]
    if want == "mixed":
        return tags
    if r["relevant_cited"]:
        tags.append(f"{want}_cited")
    if r["relevant_top5"]:
        tags.append(f"{want}_top5")
    if not r["answered"]:
        return [*tags, f"refused_{want}"]
    if r["relevant_cited"]:
        return tags
    instead = [s for s in r["sources"] if s not in r["expected"]]
    summaries = summary_pages(book)
    got = {"summary" if s in summaries else "chapter" for s in instead}
    for kind in sorted(got):
        tags.append(f"{want}_lost_to_{kind}")
        if want == "summary" and kind == "chapter" and r["relevant_top5"]:
            tags.append("summary_lost_to_chapter_top5")
    if any(holds_keywords(book, s, r["keywords"]) for s in instead if s not in summaries):
        tags.append(f"{want}_lost_chapter_has_kw")
    if any(holds_keywords(book, s, r["keywords"]) for s in instead if s in summaries):
        tags.append(f"{want}_lost_summary_has_kw")
    return tags


def print_row(name: str, book: str, r: dict[str, Any]) -> None:
    summaries = summary_pages(book)
    mark = {
        s: ("S" if s in summaries else "C") + ("k" if holds_keywords(book, s, r["keywords"]) else "")
        for s in r["sources"]
    }
    want = {e: "S" if e in summaries else "C" for e in r["expected"]}
    print(f"  {name} {r['id']} top5={r['relevant_top5']} kw={r['has_keywords']} want={want} cited={mark}")


def pool_ranks(prefix: str) -> None:
    """Rank of the first expected file's chunk in a deep search (top 45) for answered rows citing no
    expected file: could re-ranking the pool reach it at all?"""
    from common import build
    from lectern.retrieval import RetrievalParams

    lost: dict[str, list[tuple[str, dict[str, Any]]]] = {}
    for name, split in SETS:
        path = RESULTS / f"{prefix}-{name}.json"
        for key, rows in json.loads(path.read_text())["rows"].items() if path.exists() else []:
            book = key[len(name) + 1 :]
            for r in rows:
                if (
                    r["kind"] == "in_scope"
                    and r["split"] == split
                    and r["answered"]
                    and not r["relevant_cited"]
                ):
                    lost.setdefault(book, []).append((name, r))
    for book, rows in sorted(lost.items()):
        engine = build(TEXTBOOKS / book)[0]
        for name, r in rows:
            query = r["search_query"] or r["question"]
            params = RetrievalParams(query, 45, engine.settings.similarity_threshold, "hybrid")
            hits = engine.retriever.retrieve_sync(params).hits
            at = next((h.rank for h in hits if h.chunk.source_path in r["expected"]), None)
            want = kind_of(book, r["expected"])
            print(f"{name:6s} {r['id']:14s} want={want:8s} first expected rank={at}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("prefix")
    parser.add_argument(
        "--rows", action="store_true", help="print every answered row citing no expected file"
    )
    parser.add_argument("--depth", action="store_true", help="expected file's rank in a deep search")
    parser.add_argument("--pages", action="store_true", help="list each book's summary pages")
    args = parser.parse_args()
    if args.pages:
        for book in sorted(p.name for p in TEXTBOOKS.iterdir() if p.is_dir()):
            print(book, sorted(summary_pages(book)))
    census(args.prefix, args.rows)
    if args.depth:
        pool_ranks(args.prefix)


if __name__ == "__main__":
    main()
