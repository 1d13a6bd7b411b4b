"""Numbered parts asked for by ordinal: does the search find "Day 5: ..." for "the fifth day"?

    .venv/bin/python bench/numbered_parts_study.py scan
    .venv/bin/python bench/numbered_parts_study.py compare BASE.json ARM.json [BASE2.json ARM2.json ...]

`scan` lists the tuned rows (held-back splits skipped, never printed) whose question, turns or, given
result files of bench/answer_quality.py, search query the rule of `lectern.numbered_parts` changes, and
counts the SciFact queries it changes. `compare` prints per result file the in-scope, follow-up and near
miss figures and AUROC of two runs of bench/answer_quality.py and every row whose answer, cited files,
keywords or score differ.

Documentation and course material number their parts ("Week 1", "Day 5: Review and Practical
Exercise", "Step 4"); readers ask with ordinal words ("the fifth day of the course's first week", "and
on day three?", "the week-three exercise"). The answerability decision already counts "fifth" as met by
"5"; the search did not. The rule (src/lectern/numbered_parts.py): an ordinal first..twentieth or
1st/2nd/.. before a part noun (day, week, module, chapter, step, lab, phase, ...), or a part noun before
a number word one..twenty, is the part noun and numeral ("day 5", "week 3"); "first" alone, "the first
time", "first aid", "at first" stay.

Findings (2026-11-29; every tuned set: reader:tune, train:all, dev2:all, devN:devN N=5..12,
followups-dev:dev, followups-dev2:all, followups-dev3:all, followups-dev4:dev4, followups-devN:devN
N=5..12, followups-nm:funm; `PYTHONHASHSEED=0 .venv/bin/python bench/answer_quality.py` on the four books
as in the lead's brief). The rule touches the search query of 15 of the tuned rows (train 1, dev9 1,
dev10 3, dev11 3, dev12 3, followups-dev10 1, followups-dev11 2, followups-dev12 1), none a near miss,
and 0 of the 1,109 SciFact queries (and the BEIR evaluation embeds its queries directly, not through
the retriever), so the SciFact evaluation was skipped. Arms, against main (only the sets with touched
rows can change; every other set was run for the kept arm and is unchanged):

    arm                                    changed answers (of 15 touched rows)
    (a) keyword query + "day 5 week 1"     dev10 cited 46.9 -> 50.0 (d10d-in-07 cites the week-1 quiz);
                                           followups-dev10 cited 83.3 -> 79.2 (d10a-fu-09 now refused);
                                           dev12 keywords 68.0 -> 65.4 (d12d-in-05 answered from the
                                           syllabus, wrong file); AUROC dev9 85.5 -> 85.4
    (b) dense query "the day 5 of week 1"  dev11 cited 53.1 -> 56.2, keywords 70.0 -> 71.4 (d11a-in-03
                                           answered with its keyword, d11d-in-03 cites the week-3
                                           page); AUROC dev10 92.4 -> 92.6, dev11 89.6 -> 89.8; no row
                                           worse; other scores move only on touched rows
    (c) both                               dev10 +1 cited, dev11 +1 cited and 70.0 -> 76.2 keywords,
                                           but d9c-in-15 loses its keyword (dev9 57.7 -> 53.8), and
                                           d12d-in-05 and follow-up d12d-fu-03 are answered from the
                                           syllabus (wrong file; dev12 keywords 68.0 -> 65.4,
                                           followups-dev12 keywords 83.3 -> 80.6)

The keyword side is what hurts: "week 1" and "day 5" are everywhere in a syllabus's schedule table, so
BM25 pulls the schedule above the part asked for. d12d-in-05's part ("Day 5: Review and Practical
Exercise") sits on a page titled "1.1 ..." that never says "Week 1": no form of the query reaches it
(with the kept arm its chunk ranks 18th of a 20-deep search, 21st for follow-up d12d-fu-03's query,
past the 10 the search fetches), so a bonus for a heading that starts with the part and number (arm d)
could not lift it without a deeper search (fusion and depth variants are measured negative): not built.
d12d-in-05 and d12d-fu-03 stay refused under (b); (a) and (c) answer them wrongly.

Probe from other domains (the bench's embedder, cosines of a query to headed chunks of three made-up
documents: an install guide "Step 1..5: ...", a bootcamp "Week 1/2 > Day 1..5: ...", a course "Lesson
1..5: ..."; 7 questions): the numbered form raises the cosine to the part asked for in all 7 (+0.008 to
+0.023); its rank among the parts improves for 1 ("the second step of the install" 2nd -> 1st), stays
for 5 and falls for 1 ("the fifth day of the first week" 4th -> 5th): a small, mostly helpful nudge, as
on the books. Kept: (b), the dense side only (src/lectern/retrieval.py `retrieve_sync` embeds
`as_numbered_parts(query)`; the keyword side and the decision's words are the question as asked).
Kept-arm run over every tuned set: only dev10/dev11 figures above change (see the report for rows).
Cost: a question without a part noun and a count pays one word split (~5-7 us a search); one with both
the two patterns (~30 us); a touched query is embedded in its numbered form instead (no extra
embedding). bench/callgrind_answers.py, textbook-a, the first 20 train questions, --query-cache 4096
(base = main by PYTHONPATH): 11.92 -> 11.98 M instructions an answer (+0.066 M, +0.55 % of the Python
side; ~0.1 % of an answer with the query model). A regex for the count words first (18-37 us) or
substring tests for the part nouns (1-3 us, but "today", "particular", "community" pass them) were no
better overall than the word split.
"""

from __future__ import annotations

import glob
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from lectern.numbered_parts import as_numbered_parts

QUESTIONS = Path(__file__).resolve().parent / "questions"
SCIFACT = Path("/work/shared/data/scifact/queries.jsonl")
TUNED = [
    ("reader", "tune"),
    ("train", "all"),
    ("dev2", "all"),
    ("followups-dev", "dev"),
    ("followups-dev2", "all"),
    ("followups-dev3", "all"),
    ("followups-dev4", "dev4"),
    ("followups-nm", "funm"),
    *[(f"dev{n}", f"dev{n}") for n in range(5, 13)],
    *[(f"followups-dev{n}", f"dev{n}") for n in range(5, 13)],
]
FIGURES = (
    "in_scope_cited",
    "in_scope_keywords",
    "followup_cited",
    "followup_keywords",
    "near_miss_refused",
    "auroc",
)
ROW_FIELDS = ("answered", "relevant_cited", "has_keywords", "sources", "score")


def _touched(text: str) -> bool:
    """Whether the rule writes a part of `text` in the documents' form."""
    return as_numbered_parts(text) != text


def tuned_rows() -> list[tuple[str, dict[str, Any]]]:
    rows = []
    for prefix, split in TUNED:
        for path in sorted(glob.glob(str(QUESTIONS / f"{prefix}-textbook-?.jsonl"))):
            for line in Path(path).read_text().splitlines():
                row = json.loads(line)
                own = row.get("split", "tune")
                if "hold" not in own and (split == "all" or own == split):
                    rows.append((prefix, row))
    return rows


def scan(results: list[str]) -> None:
    for prefix, row in tuned_rows():
        for text in row.get("turns") or [row["question"]]:
            if as_numbered_parts(text) != text:
                print(prefix, row["id"], row["kind"], "|", text, "->", as_numbered_parts(text))
    for path in results:  # the search queries actually searched (rewritten follow-ups included)
        for rows in json.loads(Path(path).read_text())["rows"].values():
            for row in rows:
                if "hold" not in row.get("split", "") and _touched(row.get("search_query") or ""):
                    print(Path(path).stem, row["id"], "searched |", row["search_query"])
    if SCIFACT.exists():
        queries = [json.loads(line)["text"] for line in SCIFACT.read_text().splitlines()]
        print(f"SciFact queries changed: {sum(_touched(q) for q in queries)} of {len(queries)}")


def compare(pairs: list[str]) -> None:
    for base_path, arm_path in zip(pairs[::2], pairs[1::2], strict=True):
        base, arm = (json.loads(Path(p).read_text()) for p in (base_path, arm_path))
        before, after = base["reports"].get("all", {}), arm["reports"].get("all", {})
        figures = [
            f"{k} {before[k] * 100:.1f}" + ("" if before[k] == after[k] else f" -> {after[k] * 100:.1f}")
            for k in FIGURES
            if before.get(k) is not None and after.get(k) is not None
        ]
        print(Path(arm_path).stem, "; ".join(figures))
        for book, rows in arm["rows"].items():
            was = {r["id"]: r for r in base["rows"][book]}
            for row in rows:
                old = was[row["id"]]
                diff = {k: (old.get(k), row.get(k)) for k in ROW_FIELDS if old.get(k) != row.get(k)}
                if diff:
                    print("  ", row["id"], row["kind"], diff)


def main() -> None:
    command, rest = sys.argv[1], sys.argv[2:]
    if command == "scan":
        scan(rest)
    elif command == "compare":
        compare(rest)
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main()
