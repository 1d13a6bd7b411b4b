"""Study: answer quality with another chunk budget / overlap (each in its own index folder).

    .venv/bin/python bench/chunking_study.py NAME SPLIT MAX_TOKENS OVERLAP CORPUS QUESTIONS.jsonl [...]

bench/common.build ingests with the pipeline's default options whatever the settings say
(`chunk_max_tokens` / `chunk_overlap_tokens` reach the chunker only through `lectern ingest`), so this
runs bench/answer_quality.py with the pipeline's options set to MAX_TOKENS (0: the embedder's window,
256 for MiniLM) and OVERLAP, ingesting into bench/results/index-chunk/mMAX-oOVERLAP/BOOK (a full
re-ingest the first time: sentence vectors included). Writes bench/results/NAME.json.

Findings (Nov 2026, base = main 04c7028 = window, overlap 32; tune = reader sets --split tune, train =
training sets --split all; in-scope answers with every keyword / answered, relevant file cited):

    chunks                 tune kw   tune cited   train kw   train cited   chunks a/b/c/d
    window, overlap 32     75.8 %    88.0 %       81.6 %     79.0 %        1013/382/691/2443
    window, overlap 64     73.6      88.0         81.2       79.5          1013/384/691/2443
    128 tokens, overlap 32 65.6      85.0         69.5       74.4          1655/596/1043/3302

Overlap only changes sections longer than the window (two chunks more in textbook-b); 128-token chunks
also lose answered (train 84.5 -> 80.8 %) and near misses refused (train 90 -> 85 %; the answerability
model was trained on window-sized chunks). Cost of the re-ingest of the four books, on the shared
2-core machine under load (load average ~10): 760 s (overlap 64: 198 + 75 + 157 + 330 s) and 610 s
(128 tokens: 216 + 109 + 102 + 183 s), i.e. minutes per book: not worth paying for these.
"""

from __future__ import annotations

import asyncio
import functools
import sys
from pathlib import Path
from typing import Any

import answer_quality
import common
from common import RESULTS, write_result
from lectern.ingest import pipeline


def main() -> None:
    name, split, max_tokens, overlap = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    pipeline.IngestOptions = functools.partial(  # type: ignore[misc]
        pipeline.IngestOptions, max_tokens=max_tokens, overlap_tokens=overlap
    )
    ingest: dict[str, tuple[float, int]] = {}

    def build(corpus: Path, data_dir: Path | None = None, **overrides: Any) -> Any:
        folder = RESULTS / "index-chunk" / f"m{max_tokens}-o{overlap}" / corpus.resolve().name
        engine, settings, seconds = common.build(corpus, folder, **overrides)
        ingest[corpus.name] = (round(seconds, 1), engine.retriever.index.count())
        return engine, settings, seconds

    answer_quality.build = build  # type: ignore[assignment]
    pairs = [(Path(sys.argv[i]), Path(sys.argv[i + 1])) for i in range(5, len(sys.argv), 2)]
    result = asyncio.run(answer_quality.run(pairs, split))
    answer_quality.print_table(result["reports"])
    print("ingest seconds, chunks:", ingest)
    write_result(name, result)


if __name__ == "__main__":
    main()
