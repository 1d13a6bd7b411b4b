"""What a passage seen for the first time costs an answer, and what storing its units would save.

    uv run python bench/passage_cost.py [--corpus PATH/TO/scifact/corpus.jsonl] [--passages 2000]

On a 10k-chunk collection asked distinct questions (SciFact), most of the ~10 passages an answer reads
(the five the answerability decision looks at, the writer's sources and reserve) are new to the
server's caches (`PASSAGES_KEPT` = 512), so each costs its answer units (`units_of`) and its terms
(`passage_terms`) again. This times both over SciFact's abstracts, and the alternative of reading the
units back from bytes made at ingest (`marshal` of each unit's fields, as the sentence store could keep
them next to the vectors). Prints microseconds of CPU per passage (best of 3 passes).

Measured on 2 shared cores at load average 6, 2,000 abstracts (title and text, ~1,500 characters),
base and this round's `units_of` alternating (rule lines by str.strip, hyphen parts only for a
hyphenated sentence): units_of ~200 us a passage (~240 before), passage_terms ~75 us, units read back
from marshal ~29 us (~3.2 kB a passage, twice its text). An answer on SciFact builds units for ~5.8 new
passages and terms for ~5.8 (bench/profile_engine.py --collection beir-scifact, 450 questions), so
stored units would save ~1 ms of CPU an answer at that load, the largest saving left on SciFact after
the query's embedding and the dense search's matrix product, which no change may touch without
changing answers. The catch: stored units must be rebuilt whenever `units_of` or the stemmer changes
what they hold (only a change in how text splits into units bumps `sentences.UNITS_VERSION`).
`lectern.passage_store` now stores them (and `passage_terms`) at ingest, versioned by a fingerprint of
the splitting and stemming code, the stemmer's and Python's versions: see bench/profile_engine.py for
what it saved.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import marshal
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from lectern.writers.units import Unit, passage_terms, units_of

DEFAULT_CORPUS = Path(__file__).resolve().parents[2] / "shared" / "data" / "scifact" / "corpus.jsonl"


def _best_us(func: Callable[[Any], object], items: list[Any], passes: int = 3) -> float:
    best = float("inf")
    for _ in range(passes):
        started = time.process_time()
        for item in items:
            func(item)
        best = min(best, time.process_time() - started)
    return best / len(items) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--passages", type=int, default=2000)
    args = parser.parse_args()
    texts: list[str] = []
    with args.corpus.open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip() and len(texts) < args.passages:
                row = json.loads(line)
                texts.append(f"{row.get('title') or ''}\n\n{row['text']}")
    compute_units = units_of.__wrapped__  # uncached: a passage seen for the first time
    compute_terms = passage_terms.__wrapped__
    blobs = [marshal.dumps(tuple(dataclasses.astuple(u) for u in compute_units(t))) for t in texts]

    def load(blob: bytes) -> tuple[Unit, ...]:
        return tuple(Unit(*fields) for fields in marshal.loads(blob))

    assert all(load(b) == compute_units(t) for b, t in zip(blobs, texts, strict=True))
    print(f"{len(texts)} passages, {sum(map(len, texts)) / len(texts):.0f} characters on average")
    print(f"  units_of        {_best_us(compute_units, texts):7.1f} us a passage")
    print(f"  passage_terms   {_best_us(compute_terms, texts):7.1f} us a passage")
    size = sum(map(len, blobs)) / len(blobs)
    print(f"  units from bytes {_best_us(load, blobs):6.1f} us a passage ({size:.0f} bytes)")


if __name__ == "__main__":
    main()
