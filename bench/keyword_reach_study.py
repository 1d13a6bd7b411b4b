"""Where do the answer keywords an answer misses sit? (study: retrieval only, no writer change)

    .venv/bin/python bench/keyword_reach_study.py RESULT.json CORPUS QUESTIONS.jsonl [...]

RESULT.json is a bench/answer_quality.py result (bench/results/NAME.json) for the same question files.
For each answered in-scope question whose answer lacks a keyword, the search is run again (the
answer's search query, 10 fused hits past the similarity threshold) and each missing keyword is
looked for in: the top 5 passages (the writer's share), fused ranks 6-10, the chunk before / after a
top-5 passage in its file, and the rest of a top-5 passage's file. A question counts once, under the
farthest place one of its keywords needs (in the top 5 < neighbour < ranks 6-10 < same file <
elsewhere). Also printed: for a keyword in no top-5 passage but in a neighbouring chunk, whether that
chunk continues the passage's section (same heading path), is a sibling section (same parent
heading) or another one; and for a keyword in ranks 6-10, the rank of its best unit (sentence, list
item) by cosine with the query among all units of the 10 passages (code blocks have no vector: last).

Findings (Nov 2026, MiniLM, base of branch `kwret` = main 04c7028; tune = reader sets --split tune,
train = training sets --split all; answered in-scope answers missing a keyword):

    where the farthest keyword is    tune (22)   train (34)
    in the top 5 (writer's share)        4          10      (train: 5 of them code blocks)
    a top-5 passage's neighbour          5           2
    fused ranks 6-10 only                4           5
    elsewhere in a top-5 file            6           9
    no top-5 file                        3           8

A neighbouring chunk that holds a missing keyword is mostly another section (the chunker cuts at
headings): tune 8 sibling / 1 other / 1 same section, train 2 / 1 / 1; a section continued past a
chunk boundary held a missing keyword once per set. In ranks 6-10 the keyword's unit ranks 9th-77th
of 28-90 units by cosine (list items such as "Native Gazebo support" carry their meaning in their
lead-in and heading, not in their own words), so the stored sentence vectors do not find it in a
wider pool. End to end (bench/answer_quality.py with the writer's sources extended, the extra chunks
after the top 5 at rank prior 0, the top 5 scored as before): the neighbours of every top-5 passage
within the same parent section: tune 75.8 -> 73.6 %, train 81.6 -> 80.5 %, 0 answers gained; the
same section's neighbours only: tune =, train 80.5 %, 0 gained; both neighbours of the best passage:
tune =, train 80.0 %, 0 gained (cited: train -1 in each). Nothing changed in the engine.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

import numpy as np

from common import build
from lectern.models import Chunk, SearchHit
from lectern.retrieval import fetch_depth, rank

ORDER = ("in top 5", "neighbour", "ranks 6-10", "same file", "elsewhere")


def place_of(keyword: str, top: list[SearchHit], more: list[SearchHit], files: dict[str, list[Chunk]]) -> str:
    """The nearest place `keyword` (lower case) is found, in ORDER's terms."""

    def has(chunk: Chunk) -> bool:
        return keyword in chunk.text.lower()

    if any(has(h.chunk) for h in top):
        return "in top 5"
    for h in top:
        chunks = files[h.chunk.source_path]
        at = [c.chunk_index for c in chunks]
        if h.chunk.chunk_index in at:
            i = at.index(h.chunk.chunk_index)
            if any(0 <= j < len(chunks) and has(chunks[j]) for j in (i - 1, i + 1)):
                return "neighbour"
    if any(has(h.chunk) for h in more):
        return "ranks 6-10"
    if any(has(c) for h in top for c in files[h.chunk.source_path]):
        return "same file"
    return "elsewhere"


def neighbour_sections(keyword: str, top: list[SearchHit], files: dict[str, list[Chunk]]) -> list[str]:
    """For each top-5 passage whose neighbouring chunk holds `keyword`: that chunk's section."""
    out = []
    for h in top:
        chunks = files[h.chunk.source_path]
        at = [c.chunk_index for c in chunks]
        if h.chunk.chunk_index not in at:
            continue
        i = at.index(h.chunk.chunk_index)
        for j in (i - 1, i + 1):
            if 0 <= j < len(chunks) and keyword in chunks[j].text.lower():
                path, own = chunks[j].heading_hierarchy, h.chunk.heading_hierarchy
                out.append("same" if path == own else "sibling" if path[:-1] == own[:-1] else "other")
    return out


def main() -> None:
    result = json.loads(Path(sys.argv[1]).read_text())
    pairs = list(zip(sys.argv[2::2], sys.argv[3::2], strict=True))
    causes: Counter[str] = Counter()
    sections: Counter[str] = Counter()
    cosine_ranks: list[str] = []
    total = 0
    for corpus, questions in pairs:
        engine, settings, _ = build(Path(corpus))
        r = engine.retriever
        for row in result["rows"][Path(questions).stem]:
            if row["kind"] != "in_scope" or not row["answered"] or row["has_keywords"]:
                continue
            total += 1
            q = row["search_query"]
            qv = np.asarray(r.embedder.embed_query(q), dtype=np.float32)
            found = r.index.search(vector=qv, text=q, mode="hybrid", top_k=fetch_depth(10))
            hits = rank(found, settings.similarity_threshold, 10)
            top, more = hits[:5], hits[5:]
            files = {h.chunk.source_path: r.index.chunks_of(h.chunk.source_path) for h in top}
            text = row["text"].lower()
            missing = [k.lower() for k in row["keywords"] if k.lower() not in text]
            places = {k: place_of(k, top, more, files) for k in missing}
            worst = max(places.values(), key=ORDER.index)
            causes[worst] += 1
            for k, p in places.items():
                if p == "neighbour":
                    sections.update(neighbour_sections(k, top, files))
                if p == "ranks 6-10":
                    units = r.sentences.of([h.chunk for h in hits])
                    scored = sorted(
                        (
                            (float(m[u.position] @ qv) if u.kind != "code" else -1.0, k in u.text.lower())
                            for us, m in units
                            for u in us
                        ),
                        reverse=True,
                    )
                    first = next((i for i, (_, has) in enumerate(scored, 1) if has), None)
                    cosine_ranks.append(f"{row['id']} {k!r}: {first}/{len(scored)}")
            print(f"{row['id']:10} {worst:10} " + " | ".join(f"{k}: {p}" for k, p in places.items()))
    print(f"answered in-scope answers missing a keyword: {total}", {c: causes[c] for c in ORDER})
    print("missing keywords in a neighbouring chunk only, that chunk's section:", dict(sections))
    print("ranks 6-10: the keyword's best unit by cosine among the 10 passages' units:")
    for line in cosine_ranks:
        print("   ", line)


if __name__ == "__main__":
    main()
