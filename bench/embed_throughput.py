"""Local embedder throughput: short sentences and ~200-word passages, per backend, against torch.

    uv run python bench/embed_throughput.py                      # onnx and numpy backends
    uv run python bench/embed_throughput.py --corpus docs         # texts cut from a markdown folder
    # the torch reference, in a venv that has sentence-transformers (see make_minilm_reference.py)
    # plus onnxruntime, onnx and tokenizers so every engine runs in the same process and moment:
    PYTHONPATH=src /tmp/stref/bin/python bench/embed_throughput.py

Engines run round-robin (one pass each, repeated ``--rounds`` times) so a busy machine slows them
all alike; the table reports the best and the median pass. Prints a table and writes JSON under
bench/results/.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import re
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from lectern.embeddings.local import LocalMiniLMEmbedder, resolve_threads

RESULTS = Path(__file__).resolve().parent / "results"
EmbedFn = Callable[[list[str]], Any]

_VOCAB = re.findall(
    r"\w+",
    """robot sensor actuator controller topic service node message launch parameter frame transform
    camera lidar odometry map planner trajectory joint velocity torque simulation gazebo physics
    the a of to and in is that for with as on by this it be are from at or can which when each
    system data model learning policy reward state action network layer training inference vector
    embedding retrieval chunk heading document answer question context citation confidence index""",
)


def synthetic(count: int, words: tuple[int, int], seed: int) -> list[str]:
    rng = random.Random(seed)
    texts = []
    for _ in range(count):
        n = rng.randint(*words)
        sentence = " ".join(rng.choice(_VOCAB) for _ in range(n))
        texts.append(sentence[0].upper() + sentence[1:] + ".")
    return texts


def from_corpus(root: Path, short_n: int, long_n: int, seed: int) -> tuple[list[str], list[str]]:
    """Sentences (4-30 words) and 200-word windows from every markdown file under ``root``."""
    text = "\n".join(p.read_text(encoding="utf-8", errors="ignore") for p in sorted(root.rglob("*.md*")))
    text = re.sub(r"```.*?```", " ", text, flags=re.S)
    sentences = [s.strip() for s in re.split(r"(?<=[.!?])\s+|\n\s*\n", text)]
    sentences = [s for s in sentences if 4 <= len(s.split()) <= 30]
    words = text.split()
    windows = [" ".join(words[i : i + 200]) for i in range(0, max(0, len(words) - 200), 200)]
    if not sentences or not windows:
        raise SystemExit(f"{root}: not enough markdown text for both workloads")
    rng = random.Random(seed)
    return [rng.choice(sentences) for _ in range(short_n)], [rng.choice(windows) for _ in range(long_n)]


def engines(backends: Sequence[str], batch_size: int, threads: int, reference: bool) -> dict[str, EmbedFn]:
    found: dict[str, EmbedFn] = {}
    for backend in backends:
        try:
            emb = LocalMiniLMEmbedder(backend=backend, batch_size=batch_size, threads=threads)  # type: ignore[arg-type]
        except Exception as exc:  # e.g. onnxruntime missing in the reference venv
            print(f"skip lectern-{backend}: {exc}", file=sys.stderr)
            continue
        found[f"lectern-{backend}"] = emb.embed_documents
    if reference:
        try:
            import torch  # type: ignore[import-not-found]
            from sentence_transformers import SentenceTransformer  # type: ignore[import-not-found]

            from lectern.embeddings.minilm_assets import model_dir

            torch.set_num_threads(resolve_threads(threads))
            model = SentenceTransformer(str(model_dir()), device="cpu")
            found["sentence-transformers (torch)"] = lambda texts: model.encode(
                texts, batch_size=batch_size, normalize_embeddings=True, convert_to_numpy=True
            )
        except ImportError:
            print("skip sentence-transformers: not importable here", file=sys.stderr)
    return found


def measure(fns: dict[str, EmbedFn], workloads: dict[str, list[str]], rounds: int) -> dict[str, Any]:
    rates: dict[tuple[str, str], list[float]] = {(e, w): [] for e in fns for w in workloads}
    for fn in fns.values():  # warm-up: first-call allocations, lazy initialisation
        for texts in workloads.values():
            fn(texts[:8])
    for _ in range(rounds):
        for engine, fn in fns.items():
            for workload, texts in workloads.items():
                start = time.perf_counter()
                fn(texts)
                rates[(engine, workload)].append(len(texts) / (time.perf_counter() - start))
    return {
        engine: {
            workload: {
                "best_per_s": max(rates[(engine, workload)]),
                "median_per_s": statistics.median(rates[(engine, workload)]),
                "runs_per_s": rates[(engine, workload)],
            }
            for workload in workloads
        }
        for engine in fns
    }


def load_average() -> float | None:
    try:
        return os.getloadavg()[0]
    except OSError:
        return None


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--corpus", type=Path, help="folder of markdown to cut texts from (default: synthetic)"
    )
    parser.add_argument("--backends", nargs="+", default=["onnx", "numpy"], choices=["onnx", "numpy"])
    parser.add_argument("--short", type=int, default=512, help="number of short sentences")
    parser.add_argument("--passages", type=int, default=64, help="number of ~200-word passages")
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--threads", type=int, default=0, help="0 = every core")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--no-reference", action="store_true", help="skip sentence-transformers")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    if args.corpus:
        short, passages = from_corpus(args.corpus, args.short, args.passages, args.seed)
    else:
        short, passages = (
            synthetic(args.short, (6, 18), args.seed),
            synthetic(args.passages, (200, 200), args.seed),
        )
    workloads = {"short sentences": short, "200-word passages": passages}
    fns = engines(args.backends, args.batch_size, args.threads, not args.no_reference)
    load_before = load_average()
    results = measure(fns, workloads, args.rounds)

    mean_words = {w: float(np.mean([len(t.split()) for t in texts])) for w, texts in workloads.items()}
    print(
        f"\ncores={resolve_threads(args.threads)} batch={args.batch_size} rounds={args.rounds} "
        f"load_avg_1m={load_before} corpus={args.corpus or 'synthetic'}"
    )
    head = f"{'texts per second':32}" + "".join(f"  {w + ' best | median':>38}" for w in workloads)
    print(head)
    print("-" * len(head))
    for engine, per in results.items():
        cells = "".join(
            f"  {per[w]['best_per_s']:>29.1f} | {per[w]['median_per_s']:<6.1f}" for w in workloads
        )
        print(f"{engine:32}{cells}")

    RESULTS.mkdir(parents=True, exist_ok=True)
    out = RESULTS / f"embed_throughput-{time.strftime('%Y%m%d-%H%M%S')}.json"
    out.write_text(
        json.dumps(
            {
                "command": " ".join(sys.argv),
                "python": sys.executable,
                "platform": platform.platform(),
                "cores": resolve_threads(args.threads),
                "batch_size": args.batch_size,
                "rounds": args.rounds,
                "load_avg_1m_before": load_before,
                "load_avg_1m_after": load_average(),
                "workloads": {
                    w: {"texts": len(t), "mean_words": mean_words[w]} for w, t in workloads.items()
                },
                "results": results,
            },
            indent=2,
        )
        + "\n",
        encoding="utf-8",
    )
    print(f"\nwrote {out}")


if __name__ == "__main__":
    main()
