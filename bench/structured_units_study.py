"""Where an answer's missing keyword sits when the answer cites the right file: a census.

For every tuned in-scope row (and, with --followups, follow-up row) that is answered, cites a relevant
file and misses an answer keyword, each missing keyword is looked up in the cited relevant file(s)
under D (the book folder): the Markdown structure of the line it sits on (plain sentence, sentence
with an "e.g."/"such as" list, list item written "Key: value", other list item, table header, table
cell, code block, heading, none), and what the writer's units make of it (`split_units` over the
file's text: in a prose unit, in a list item, in a short item carried by another unit, in a code
unit, or in no unit at all: dropped). The answer's lead unit is classed as well (its first block:
sentence, list, code).

    .venv/bin/python bench/structured_units_study.py [--results main0] [--followups]

reads bench/results/RESULTS-{tune,train,dev2,dev5..dev13}.json (the tuned in-scope sets), or the
tuned follow-up sets (RESULTS-fudev, -fudev2 .. -fudev13, -funm) with --followups. Classes are read
off the whole file (not the chunk the search found), so "no unit" for a long listing is the file's
block: the chunker cuts long listings, and there their pieces are units.

Findings (Nov 2026, main 3077887, `main0` results; figures per missing keyword unless rows):

  In-scope rows answered, relevant cited, missing a keyword: 115 of 556 cited. Only 37 of them have
  every keyword in the first search's top passages (`passages_keywords`); 78 do not, so no choice of
  units in the passages the writer reads can give them (the reserve aside).
  Line class of the keyword in the relevant file: code 44, "- Key: value" item 41, other list item
  19, sentence 13, sentence with "e.g." / "such as" 9, heading 8, table cell 7, absent 2. For the 37
  reachable rows: code 14, e.g. 9, key-value item 7, sentence 4, list item 4, table cell 3, heading 1.
  Units: 70 keywords sit in a list-item unit already, 30 in a sentence, 19 in a code unit, 19 in no
  unit (code blocks over `MAX_CODE_LINES` in the file), 5 only in a section / intro. The answer leads
  with a list in 101 of the 115. Table rows already carry their header ("Lidar: Range: 12 m",
  `units._table_row`), and key-value items are already units of their own.
  Follow-ups: 67 such rows (21 reachable); code 28, key-value 13, list item 11, sentence 5.

Arms (all tuned in-scope sets, answered / relevant cited / every keyword, against main0 = 556 / 449
of 727; main0 reproduced exactly by a run of main's src on dev5):

  1. List items and table rows embedded with what they are items of (the heading over the list, the
     first item's intro, the list's lead-in sentence: "Hardware Requirements. Minimum: Disk: 15 GB
     free space"), UNITS_VERSION 6, indexes rebuilt: cited 547 (-9), keywords 434 (+9 -24), 13 fewer
     answered (the answerability decision reads the same rows), 483 answers change. Only items of at
     most 8 words: cited 554, keywords 439 (+7 -17), 5 fewer answered, 346 answers change.
  2. The same context in words only (a list item's terms for the writer's keyword overlap and IDF
     include its list's heading and lead-in; no index change): cited 554, keywords 446 (+1 -4), 114
     answers change. Only items of at most 8 words: cited 554, keywords 447 (+0 -2), 71 change.
  3. Code blocks over `MAX_CODE_LINES` split at blank lines into units of at most that many lines
     (UNITS_VERSION 6, indexes rebuilt): 2 answers of 727 change, no figure moves (the chunker already
     cuts long listings, so chunks seldom hold one).
  Measured first without rebuilding the indexes (the v6 vectors embedded lazily at answer time), arm 3
  moved 14 rows (cited -5, keywords -7) and arm 1 lost 16 keywords: vectors embedded on first use are
  not bit-equal to ingest's batches, and that alone flips borderline answers. Rebuild before measuring.
  None kept: the missing keywords are mostly out of the passages the writer reads; within them no
  structure class is large enough (at most 14 rows) for a unit change to pay for what it moves.
"""

from __future__ import annotations

import argparse
import json
import re
from collections import Counter
from pathlib import Path

from lectern.writers.units import split_units

RESULTS = Path(__file__).parent / "results"
BOOKS = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "textbooks"
IN_SCOPE = ["tune", "train", "dev2", *(f"dev{n}" for n in range(5, 14))]
FOLLOWUPS = ["fudev", "fudev2", "fudev3", *(f"fudev{n}" for n in range(4, 14)), "funm"]

_FENCE = re.compile(r"^\s*(```|~~~)")
_LIST = re.compile(r"^\s*(?:[-*+•]|\d+[.)])\s+")
_KEY_VALUE = re.compile(r"^\s*(?:[-*+•]|\d+[.)])\s+\**[^:]{1,40}?\**\s*:\s*\S")
_EXAMPLES = re.compile(r"\b(?:e\.g\.|i\.e\.|such as|for example|including)", re.IGNORECASE)
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{2,}")


def line_classes(text: str) -> list[str]:
    """The Markdown structure of each line of a file."""
    lines = text.splitlines()
    out: list[str] = []
    fenced = False
    for i, line in enumerate(lines):
        s = line.strip()
        if _FENCE.match(line):
            fenced = not fenced
            out.append("code")
            continue
        if fenced:
            out.append("code")
        elif s.startswith("#"):
            out.append("heading")
        elif s.startswith("|") or " | " in s:
            following = lines[i + 1] if i + 1 < len(lines) else ""
            out.append("table-header" if _TABLE_RULE.match(following) else "table-cell")
        elif _KEY_VALUE.match(line):
            out.append("list-key-value")
        elif _LIST.match(line):
            out.append("list-item")
        elif _EXAMPLES.search(line):
            out.append("sentence-eg")
        elif s:
            out.append("sentence")
        else:
            out.append("blank")
    return out


def keyword_place(text: str, keyword: str) -> str:
    """The class of the first line holding the keyword ("absent": not in the file as written)."""
    k = keyword.lower()
    classes = line_classes(text)
    for line, cls in zip(text.splitlines(), classes, strict=True):
        if k in line.lower():
            return cls
    return "absent" if k not in text.lower() else "across-lines"


def unit_place(text: str, keyword: str) -> str:
    """What the writer's units make of the keyword: which kind of unit holds it, or none."""
    k = keyword.lower()
    held = []
    for unit in split_units(text):
        if k in unit.text.lower():
            held.append("code" if unit.kind == "code" else "item" if unit.bullet else "sentence")
        elif any(k in i.lower() for i in unit.items):
            held.append("carried-item")
        elif k in unit.intro.lower() or k in unit.section.lower():
            held.append("intro/section")
    if not held:
        return "no-unit"
    for kind in ("sentence", "item", "carried-item", "code", "intro/section"):
        if kind in held:
            return kind
    return held[0]


def lead_class(answer: str) -> str:
    first = answer.lstrip().split("\n\n", 1)[0]
    if first.startswith("```"):
        return "code"
    if first.startswith("- ") or first.rstrip(" [0123456789]").endswith(":"):
        return "list"
    return "sentence"


def census(names: list[str], results: str, kind: str) -> None:
    places: Counter[str] = Counter()
    units: Counter[str] = Counter()
    leads: Counter[str] = Counter()
    pairs: Counter[tuple[str, str]] = Counter()
    places_reached: Counter[str] = Counter()
    reached: Counter[str] = Counter()
    rows_missing = 0
    for name in names:
        path = RESULTS / f"{results}-{name}.json"
        if not path.exists():
            print(f"(no {path.name})")
            continue
        data = json.loads(path.read_text())
        for key, rows in data["rows"].items():
            book = BOOKS / key[key.index("textbook-") :]
            for row in rows:
                if not (row["answered"] and row["relevant_cited"] and row["keywords"]):
                    continue
                if row.get("kind", "followup") != kind:
                    continue
                missing = [k for k in row["keywords"] if k.lower() not in row["text"].lower()]
                if not missing:
                    continue
                rows_missing += 1
                # every keyword in the first search's top passages: what the writer could quote
                reach = "in passages" if row.get("passages_keywords") else "not in passages"
                reached[reach] += 1
                leads[lead_class(row["text"])] += 1
                files = [f for f in row["sources"] if f in row["expected"]]
                text = "\n\n".join((book / f).read_text(encoding="utf-8") for f in files)
                for k in missing:
                    place, unit = keyword_place(text, k), unit_place(text, k)
                    places[place] += 1
                    units[unit] += 1
                    pairs[(place, unit)] += 1
                    if reach == "in passages":
                        places_reached[place] += 1
    print(f"rows answered, relevant cited, missing a keyword: {rows_missing}")
    tables = (
        ("rows: keywords in passages", reached),
        ("line class", places),
        ("line class, rows with every keyword in passages", places_reached),
        ("unit", units),
        ("answer lead", leads),
    )
    for title, counter in tables:
        print(f"\n{title}:")
        for cls, n in counter.most_common():
            print(f"  {cls:16} {n}")
    print("\nline class x unit:")
    for (place, unit), n in pairs.most_common():
        print(f"  {place:16} {unit:14} {n}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--results", default="main0", help="result tag: bench/results/TAG-SET.json")
    parser.add_argument("--followups", action="store_true", help="the tuned follow-up sets instead")
    args = parser.parse_args()
    if args.followups:
        census(FOLLOWUPS, args.results, "followup")
    else:
        census(IN_SCOPE, args.results, "in_scope")


if __name__ == "__main__":
    main()
