"""Instructions a warm engine spends an answer, counted by callgrind: steady on a shared machine, where
CPU time moves with the neighbours' load.

    PYTHONHASHSEED=0 [PYTHONPATH=TREE/src] CALLGRIND=1 valgrind --tool=callgrind --instr-atstart=no \\
        --dump-instr=no --callgrind-out-file=OUT .venv/bin/python bench/callgrind_answers.py CORPUS \\
        QUESTIONS [--limit 40] [--query-cache 4096]

The engine answers the first `--limit` questions, each in a fresh conversation, twice to warm up (the
first round loads the model, the table and the caches; the second runs once LanceDB's in-memory keyword
index is built), then once more with callgrind's collection on (`callgrind_control -i on` this
process, off after): valgrind's "Collected" line over `--limit` is the instructions an answer. The
worker-thread hand-offs run inline, as in bench/stage_cpu.py. With `--query-cache` the timed round
finds every question's vector cached: the count leaves the query model out (the Python side and the
search). Without CALLGRIND set it only answers and prints the CPU an answer (a dry run, ~50x faster).
`callgrind_annotate --inclusive=yes OUT` shows the C functions (the regex engine, numpy, pydantic's
core, SQLite); bench/profile_engine.py --thread-time names the Python callers. Under valgrind a run
takes ~5 minutes for 40 questions on textbook-a with the query cache, more with the model.

Issue 12, Nov 2026 (textbook-a, the first 40 train questions; base = the branch's start a4d57a1 by
PYTHONPATH; instructions an answer, millions, one run each: the counts do not move with the load):

                                            base     spelling map   all four commits
    query cache on (Python side, search)    11.63    11.23          10.75  (-7.6 %)
    model in (the whole answer)             65.18    -              64.36  (-1.3 %)

Valgrind has no AVX-512, so onnxruntime runs other kernels there than natively: the model's ~53.6 M an
answer says little of its native share (~4 ms of ~6.4). Where the Python side's 0.88 M went: the
typing-slip look-up (-0.40 M: 500-parameter SQLite queries and a regex check of each slip, now a dict of
the common words), the stream tokens' findall over a finished answer (-0.26 M), the code state's
finditer over the text between citation markers (-0.17 M). The regex engine is still ~15 % of the Python
side (~1.7 M an answer), spread over ~30 patterns none above ~45 us an answer (a re._compile proxy
timing each call): the units' term findall, `_reader_words`' two matches a word, `asked_kinds` and
`question_kind` (long alternations over the question, ~8 us a search), `_AIMS` (a search anchored with
^: `match` would save ~0.4 us a call). CPython's eval loop is ~17 % self, pydantic's core ~2 %, the
float16 widening of the sentence vectors ~3.7 %, the dense einsum ~4 %: no single place left to take a
tenth of a millisecond. bench/stage_cpu.py at load 1.0-1.5 (3 runs a side alternated, --server-heap, 106
questions x 3 rounds, ms an answer, medians): everything else 0.77 -> 0.68, the rest the same within the
spread, total 6.42 -> 6.35 (base 6.16-6.70, after 6.05-6.63).

Nov 2026, the next round (textbook-a, the first 40 train questions, --query-cache 4096; base = main 1c1ccca
by PYTHONPATH; millions of instructions an answer, each commit's tree run once, cumulative):

    base                                                        10.85
    stem_terms: texts up to 512 characters cached               10.51  (-0.34)
    sentence vectors widened to float32 once while kept         10.40  (-0.11)
    signals: the other passages only for a word the best lacks   10.37  (-0.03)
    _with_lead_ins, Chunk.search_text made once per chunk        10.33  (-0.04)
    the writer's unit query terms worked out once (_shared)      10.32  (-0.01)  all: -0.53 (-4.9 %)

By C function (base -> after, thousands an answer): float16 widening 429 -> 213, the regex engine's match
and charset 1,084 -> 1,002, siphash 69 -> 36 (fresh search_text strings hashed again), set lookups and
intersections -43; the collector's set_traverse +52 (the cached frozensets it walks). Part of the first
commit's saving, perhaps half (not measured apart), is questions seen before: of the ~6 medium texts an
answer, about half are the question's own (`_query_terms`, the code-line terms of the question and its
query), which a rotating bench finds cached and a new question does not; the heading paths and code
lines are the passages' and recur.
bench/stage_cpu.py (3 runs a side alternated, --server-heap, load 3.9-4.3) cannot resolve it: the
query model's share moved 4.6-5.8 ms between runs and every stage moved with it. Every answer identical:
profile_engine --save-answers at 1k and 10k chunks byte for byte, bench/answer_quality.py on train,
reader:tune, dev2, dev5, followups-dev, followups-dev2 (922 rows, 0 differ). Not tried: a per-word cache
of spelling's slip candidates (~60 us an answer on this bench, 24 of 106 questions have a rare word; a
new question gains nothing, only a conversation's earlier questions, respelt every turn, would).

Nov 2026, issue "half the CPU per answer" (textbook-a, the first 40 train questions, --query-cache 4096;
base = main 91674de by PYTHONPATH; millions of instructions an answer, each commit's tree run once,
cumulative):

    base                                                            12.38
    _meaning_swap: duplicate checks only past the swap's floors    12.06  (-0.32)
    _closed: the stated-lead-in regex only on a text ending ':'    11.01  (-1.05)
    _reader_words' two patterns only where they can match,
    and the chapter-aims check cached by unit text                  10.95  (-0.06)  all: -1.43 (-11.6 %)

Where it went (thousands an answer, base -> after): the regex engine's single-character repeats
(sre_ucs1_count) 738 -> 90 and its matcher 1,229 -> 884: `_STATED_LEAD_IN`
(three words and a colon after a lazy scan, tried from every sentence start: ~0.45 M instructions a
rendered unit, ~2.3 units an answer) was the largest single item of the Python side, ~1 M an answer,
for a pattern that can only match a text ending in a colon. `_meaning_swap` ran `_similarity` (a
numpy `dot` with its dtype discovery, ~7 k instructions with its generator) against every chosen unit
for every reserve candidate, ~45 an answer (10,372 -> 5,695 calls over 106 answers), before looking
at its cosine; now the candidates below the floors are dropped first and the rest are
checked nearest first until one passes (the same pick: a stable sort keeps max's first-of-equals).
A re._compile proxy timing each pattern's calls (thread time, 106 answers) found `_STATED_LEAD_IN` at
~100 of ~490 us an answer; after, no pattern is above ~20 us (spelling's `sub`, whose callback is the
slip look-up; `_AIMS` before its cache; the file-name `finditer`).
Process CPU an answer (bench/profile_engine.py --rounds 3, median round, 3 runs a side alternated, load
2.6-2.8): query cache on 3.30 / 2.81 / 3.03 ms (base) against 2.53 / 2.57 / 2.60 ms (after), medians
3.03 -> 2.57; model in 9.60 / 10.47 / 9.89 against 9.98 / 9.61 / 9.77, medians 9.89 -> 9.77 (the
model's share moves +-0.5 ms run to run: the saving is inside the spread there). The model-in
callgrind count was not rerun (time). Every answer identical: profile_engine --save-answers (106
train questions, query cache) byte for byte after each commit, bench/answer_quality.py on reader:tune,
dev2:all, dev11:dev11, followups-dev11:dev11 (460 rows: text, sources, score, search_query; 0 differ).
Measured and dropped: a hand-made copy for pydantic's `model_copy(update=...)` (~11 an answer: the
reserve's hits without vectors, citations renumbered): ~1.2 against ~1.9 us a copy, ~8 us an answer,
not worth depending on pydantic's private attributes. What is left is spread thin: the eval loop
(2.24 M self), the dense einsum (0.48 M), the regex engine (~1.1 M over ~30 patterns, none above
~20 us an answer), dict and set lookups, the float16 widening (0.16 M); by Python function (cProfile,
thread time): `_unit_candidates`, `_present`, `_mmr`, `signals`, the LRU's locked `get` (~40 an
answer), none above ~3 % of the Python side.

Nov 2026, the answer path after retrieval (textbook-a, the first 40 train questions, --query-cache 4096;
base = main b0e3e4e by PYTHONPATH; millions of instructions an answer, each commit's tree run once,
cumulative):

    base                                                                10.58
    regex scans skipped where they cannot match or repeat one           10.32  (-0.26)
    diagram check and inner-heading terms cached per block / headings   10.17  (-0.15)
    lower-cased passage text, model arrays, content words, mmr, context 10.06  (-0.10)
    float32 unit matrices kept for as many passages as float16 ones      9.74  (-0.33)  all: -0.84 (-8 %)

Where it went (thousands an answer): the regex matcher sre_ucs1_match 824 -> 669 and its charset
137 -> 60 (`_STOP_ACRONYM` tried from every position of every question text, `_COURSE` searched twice,
`_DRAWN` over every code block of every answer); numpy's float16 -> float32 cast 221 -> 0 (`_wide` held
64 passages: a rotating set of questions widened ~5 an answer again). Every answer identical:
profile_engine --save-answers (106 train questions, query cache) byte for byte, and
bench/answer_quality.py on reader:tune, train:all, dev2:all, dev11, dev12, followups-dev:dev,
followups-dev2:all, followups-dev3:all, followups-dev4, followups-dev11, followups-dev12,
followups-nm:funm (1,122 rows: text, sources, score, level, search_query; 0 differ). Left: the eval loop
(1.94 M self), the regex engine (~0.85 M over ~30 patterns, none above ~20 us an answer natively: the
question's kind and asked-kinds alternations, `_IDENTIFIER_PARTS` over the question, spelling's `sub`),
the dense einsum (0.48 M); by Python function `_mmr`, `_present`, `_unit_candidates`, `signals`,
pydantic's `__init__` and `model_copy` (~20 and ~11 an answer), none above ~4 % of the profiled side.

Nov 2026, perf6 (textbook-a, the first 40 train questions, --query-cache 4096; base = main 9b17314 by
PYTHONPATH; millions of instructions an answer, each tree run once, cumulative):

    base                                                                9.845
    signals and writer: no numeral generator for a word without one, the
    heading's hyphenless terms once a call, unit scores summed over map  9.712  (-0.133)
    a file's nearest chunk read from the search's own scores (below the
    first pass's 4096 rows; `TableSnapshot._latest`)                     9.645  (-0.067)  all: -0.200 (-2.0 %)

Natively (bench/stage_cpu.py with extra wrappers, thread CPU, ms an answer): `nearest_of_source`
0.047 -> 0.017; the rest is below what stage_cpu resolves (3 alternated pairs at load 1.4-1.7: totals
6.96 / 6.04 / 6.65 base against 7.43 / 6.21 / 6.45 after, the model's call moving 3.76-4.45 ms). Every
answer identical: profile_engine --save-answers (106 train questions, query cache on and off) byte for
byte, answer_quality reader:tune, train:tune, dev2, dev12, dev13, followups-dev, followups-dev12,
followups-dev13, followups-nm:funm (998 rows, 0 differ but `ms`). What "everything else" (~0.75-0.95 ms)
holds, by further wrappers (thread CPU, one run at load 3): retrieve_sync less the search 0.10-0.13
(the reserve's copies, RetrievalResult), the turn's async body 0.36 (citations, events, models),
retriever.confidence 0.06-0.07 (chunk_diversity ~13 us alone), `_answer` 0.07, `_decided` 0.04,
`new_conversation` 0.03 (its uuid4; ~6 us alone), `_in_file` 0.11 before (its nearest_of_source above).
The regexes over an answer total ~0.14-0.18 ms natively (a re._compile proxy), none above ~27 us
(spelling's `sub` where a question has a rare word; the question's kind and asked kinds, ten
alternations, ~31 us a question together). `_present` replayed on its captured calls: ~56 us an answer
(1,628 calls over 106 answers), `_shares_root` ~4 of it. Tried, null: glibc's transparent huge pages
for the heap (GLIBC_TUNABLES=glibc.malloc.hugetlb=1, 7 pairs: totals 5.97-6.41 on against 5.76-6.64 off).

Nov 2026, perf10 (textbook-a, the first 40 train questions, --query-cache 4096; base = main 68d2493 by
PYTHONPATH; millions of instructions an answer, each tree run once, cumulative):

    base                                                                 9.670
    np.clip as maximum/minimum (fusion, dense_prefilter), _mmr's rounds
    over the units past its floor, the candidates grouped by source once
    (lead-ins, context), _idf by Counter, the keyword side's row ids by
    one tolist, the block after a quoted sentence looked up by place      9.435  (-0.235)
    itemgetter maps for the search's candidates, per-passage hoists in
    _unit_candidates and _mmr, the quotable units listed once, the code
    state's line breaks found by str.find                                 9.291  (-0.144)
    question-level patterns searched only where a needed word is there
    (lectern.prefiltered), the bracketed-tail check only with a ")"       8.888  (-0.403)
    all                                                                  -0.783  (-8.1 %)

Where it went (thousands an answer): the regex matcher sre_ucs1_match 704 -> 348 and case folding
(_PyUnicode_ToLowercase) 70 -> 22: the question's kind (six alternations), the content kinds it names
(four) and the writer's how-to check, each `\b(...)` with re.I, tried every branch at every character of
the question (~30 k instructions a search); every match holds one of a few literal words ("why", "come",
"reason", ...) that `Prefiltered` reads off the pattern's parse and looks for with `in` on the
lower-cased question (ASCII only: beyond it re.I folds more than `lower` does, and the pattern is
searched as is). Natively, warm: those three checks 31.4 -> 13.4 us a question. The eval loop 1,940 ->
1,702 (bench/bytecodes_answers.py: 72.2 k -> 63.1 k bytecodes an answer; `_with_lead_ins` made a list
of its source's units from every candidate for each chosen list item, `_mmr` went over the whole pool
every round, `_completed` and `_with_following_code` scanned every candidate per quoted sentence).
Every answer identical: bench/answer_quality.py on reader:tune, train:tune, dev2, dev5-dev16,
followups-dev, -dev2, -dev3, -dev12, -dev16, followups-nm:funm (1,570 rows: text, sources, level,
score, search_query, answered; 0 differ), profile_engine --save-answers byte for byte on textbook-a
(106 train questions) and SciFact's 10k chunks (150 queries). Natively the Python side's gain is
within this machine's spread (bench/profile_engine.py --query-cache 4096 --rounds 5, 3 runs a side
alternated, load 1.7-1.9: base 1.25 / 1.26 / 1.47 ms, after 1.27 / 1.33 / 1.25 ms an answer).
Tried and dropped: the writer's cosines and MMR's likenesses in one `np.vecdot` a source / a round
(`vecdot` gives each row's `dot` bit for bit, unlike `matrix @ vector`): +0.46 M instructions an answer
(+4.7 %) and slower natively; a gufunc call and a fancy-index gather cost more than the ~3 dots a
source and ~7 a round they replace (~0.3 us each natively). Not done: the search's reserve copies
(`model_copy` ~150 bytecodes each, ~11 an answer), `_shape` cached per unit (hashing a Unit costs more).

"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from common import build, read_jsonl
from lectern.embeddings.cache import with_query_cache
from lectern.engine import Engine
from lectern.retrieval import Retriever
from lectern.writers import create_writer


async def _inline(func: Any, /, *args: Any, **kwargs: Any) -> Any:
    return func(*args, **kwargs)


def _collect(on: bool) -> None:
    """Callgrind's collection on or off for this process (nothing without CALLGRIND set)."""
    if os.environ.get("CALLGRIND"):
        state = "on" if on else "off"
        subprocess.run(["callgrind_control", "-i", state, str(os.getpid())], check=False, capture_output=True)


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("corpus", type=Path)
    parser.add_argument("questions", type=Path)
    parser.add_argument("--limit", type=int, default=40)
    parser.add_argument("--query-cache", type=int, default=0, help="keep this many question vectors")
    args = parser.parse_args()
    questions = [str(q.get("question") or q.get("text") or q["turns"][0]) for q in read_jsonl(args.questions)]
    questions = questions[: args.limit]
    engine, settings, _ = build(args.corpus, query_cache_size=0)
    if args.query_cache:  # `build`'s embedder has no query cache
        cached = with_query_cache(engine.retriever.embedder, args.query_cache)
        retriever = Retriever(cached, engine.retriever.index, settings)
        engine = Engine(retriever, create_writer(settings, embedder=cached), settings)
    asyncio.to_thread = _inline  # type: ignore[assignment]
    for _ in range(2):
        for question in questions:
            await engine.run(question, engine.new_conversation())
    _collect(True)
    started = time.process_time()
    for question in questions:
        await engine.run(question, engine.new_conversation())
    spent = time.process_time() - started
    _collect(False)
    print(f"{len(questions)} answers, {spent * 1000 / len(questions):.2f} ms of CPU each", file=sys.stderr)


if __name__ == "__main__":
    asyncio.run(main())
