"""Store the sentence vectors of a collection that was built without them, as `lectern ingest` does.

    uv run python bench/store_sentences.py DATA_DIR COLLECTION

`lectern eval retrieval --beir` ingests its corpus without the sentence store, so a server on that
collection embeds the retrieved chunks' sentences while answering. `lectern ingest` stores them at
ingest time (and backfills an unchanged collection that lacks them); this runs that same backfill
(`IngestPipeline._backfill_sentences`: `SentenceVectors.precompute` over every document's chunks), so
`bench/serve_memory.py` can measure the server a real ingest leaves behind. Writes only the data dir's
`sentences-*.sqlite3`, and the word-frequency table that `lectern ingest` prepares in the model folder
when it is missing (`eval retrieval` does not: without it every rarity lookup of an answer stats two
paths and asks wordfreq, ~0.35 ms of CPU an answer on SciFact).
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("data_dir", type=Path)
    parser.add_argument("collection")
    args = parser.parse_args()
    os.environ["LECTERN_DATA_DIR"] = str(args.data_dir.resolve())
    os.environ["LECTERN_COLLECTION"] = args.collection

    from lectern import word_frequency
    from lectern.ingest.pipeline import IngestPipeline, IngestReport
    from lectern.runtime import Runtime
    from lectern.sentences import SentenceVectors
    from lectern.settings import Settings

    runtime = Runtime(Settings())
    state = runtime.manifest.state(args.collection)
    if state is None:
        raise SystemExit(f"no collection {args.collection!r} in {args.data_dir}")
    sentences = SentenceVectors.for_data_dir(runtime.embedder, runtime.settings.data_dir)
    pipeline = IngestPipeline(
        collection=args.collection,
        embedder=runtime.embedder,
        index=runtime.index,
        manifest=runtime.manifest,
        sentences=sentences,
    )
    started = time.perf_counter()
    report = IngestReport(chunks_total=state.chunks)
    pipeline._backfill_sentences(report)  # the very step `lectern ingest` runs
    print(
        f"{args.collection}: {report.sentences_backfilled:,} chunks' sentences embedded and stored "
        f"({sentences.stored():,} stored of {state.chunks:,} chunks) in {time.perf_counter() - started:.0f} s"
    )
    sentences.close()
    word_frequency.prepare(runtime.settings.model_cache_dir)  # as `lectern ingest` does


if __name__ == "__main__":
    main()
