"""The int8 question model with its feed-forward down projections quantised too (minilm_smooth): how close
its vectors are to the fp32 model's, next to the int8 recipe before it, and the CPU of each per question.

    .venv/bin/python bench/smooth_int8_study.py [--weights s8|u8] [--rounds 5] [--kernels]

Builds, in a temporary folder, the fp32 graph, the previous int8 recipe (3: every product int8 but the
six down projections, left fp32) and the current one (4: `minilm_smooth.prepare`, then every product
int8), with the weight type this CPU gets or `--weights`. Prints the cosine of each int8 graph's vectors to
the fp32 ones, min and mean, on the reference texts of tests/fixtures/minilm_reference.json and on the
questions (every turn) of the tuned question sets (bench/questions, their tuned splits only: `TUNED`),
then the CPU per question of each session's `run` (one thread; the two int8 graphs in turn within each
round, median over rounds), and with `--kernels` onnxruntime's time per operator for each.

Findings: see the end of this docstring (filled in from the runs below).
"""

from __future__ import annotations

import argparse
import collections
import json
import logging
import shutil
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from lectern.embeddings import minilm_assets as assets
from lectern.embeddings import minilm_graphs
from lectern.embeddings.local import _embedding_tokenizer
from lectern.embeddings.minilm_onnx import SKIP_NORM_FUSION, WORD_VECTORS
from lectern.embeddings.weight_quant import vectorised

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = ROOT / "tests" / "fixtures" / "minilm_reference.json"
# The tuned sets of the bench (set: split); never the held-back ones.
TUNED = {"reader": "tune", "train": "tune", "dev2": "dev2", "followups-dev": "dev", "followups-nm": "funm"}
TUNED |= {f"dev{n}": f"dev{n}" for n in range(5, 15)}
TUNED |= {f"followups-dev{n}": f"dev{n}" for n in range(2, 15)}
Feeds = dict[str, np.ndarray[Any, Any]]


def tuned_questions() -> list[str]:
    """Every question and turn of the tuned sets, once each."""
    found: list[str] = []
    for name, split in TUNED.items():
        for path in sorted((ROOT / "bench" / "questions").glob(f"{name}-textbook-*.jsonl")):
            for line in path.read_text(encoding="utf-8").splitlines():
                record = json.loads(line) if line.strip() else {}
                if record.get("split", "tune") != split:
                    continue
                turns = record.get("turns") or [record.get("question")]
                found += [t for t in turns if isinstance(t, str)]
    return list(dict.fromkeys(found))


def previous_recipe(source: Path, target: Path) -> None:
    """INT8_RECIPE 3: the down projections fp32, nothing smoothed."""
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    model = onnx.load(str(source), load_external_data=False)
    keep = [n.name for n in model.graph.node if any(i.endswith(".down_w") for i in n.input)]
    logging.getLogger().setLevel(logging.ERROR)
    with vectorised():
        quantize_dynamic(
            str(source),
            str(target),
            weight_type=QuantType.QUInt8 if minilm_graphs.int8_weights() == "u8" else QuantType.QInt8,
            per_channel=True,
            op_types_to_quantize=["MatMul", "Attention"],
            nodes_to_exclude=keep,
            extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT},
        )


def _session(graph: Path, profile: str = "") -> Any:
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    opts.inter_op_num_threads = 1
    opts.log_severity_level = 3
    opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
    if profile:
        opts.enable_profiling = True
        opts.profile_file_prefix = profile
    return ort.InferenceSession(
        str(graph), opts, providers=["CPUExecutionProvider"], disabled_optimizers=[SKIP_NORM_FUSION]
    )


def _vectors(session: Any, feeds: list[Feeds]) -> np.ndarray[Any, Any]:
    out = np.concatenate([session.run(["pooled"], f)[0] for f in feeds])
    return out / np.linalg.norm(out, axis=1, keepdims=True)  # type: ignore[no-any-return]


def _kernels(name: str, graph: Path, feeds: list[Feeds]) -> None:
    session = _session(graph, str(Path(tempfile.gettempdir()) / "smooth-int8-study"))
    for feed in feeds * 2:
        session.run(["pooled"], feed)
    profile = Path(session.end_profiling())
    by_op: collections.Counter[str] = collections.Counter()
    runs = total = 0
    for event in json.loads(profile.read_text(encoding="utf-8")):
        if event.get("cat") == "Node" and event["name"].endswith("_kernel_time"):
            by_op[event["args"]["op_name"]] += event["dur"]
        elif event.get("cat") == "Session" and event["name"] == "model_run":
            runs, total = runs + 1, total + event["dur"]
    profile.unlink()
    print(f"{name} kernels (profiled, {total / runs / 1000:.3f} ms a question):")
    for op, us in by_op.most_common(12):
        print(f"  {us / runs / 1000:6.3f} ms  {op}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--weights", choices=["s8", "u8"], help="the int8 weight type (default: this CPU's)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--kernels", action="store_true", help="onnxruntime's time per operator")
    args = parser.parse_args()
    if args.weights:
        minilm_graphs.int8_weights = lambda: args.weights  # type: ignore[assignment]
    texts = [case["text"] for case in json.loads(REFERENCE.read_text(encoding="utf-8"))["cases"]]
    asked = tuned_questions()
    tokenizer = _embedding_tokenizer()
    words = assets.WordRows(assets.model_dir() / "model.safetensors")

    def feeds(group: list[str]) -> list[Feeds]:
        ids = [np.asarray([tokenizer.encode(t).ids], np.int64) for t in group]
        return [{WORD_VECTORS: words.take(i), "attention_mask": np.ones_like(i)} for i in ids]

    groups = {"reference texts": feeds(texts), f"{len(asked)} tuned questions": feeds(asked)}
    folder = Path(tempfile.mkdtemp(prefix="smooth-int8-study-"))
    try:
        fp32 = minilm_graphs.graph_path(folder, "fused", "fp32")
        graphs = {
            "recipe 3 (down fp32)": folder / "previous.onnx",
            "recipe 4 (smoothed)": folder / "new.onnx",
        }
        previous_recipe(fp32, graphs["recipe 3 (down fp32)"])
        started = time.process_time()
        minilm_graphs.quantise(fp32, graphs["recipe 4 (smoothed)"])
        built = time.process_time() - started
        print(f"int8 weights: {minilm_graphs.int8_weights()}; recipe 4 built in {built:.1f} s of CPU")
        reference = {name: _vectors(_session(fp32), group) for name, group in groups.items()}
        for label, graph in graphs.items():
            session = _session(graph)
            for name, group in groups.items():
                cosines = (_vectors(session, group) * reference[name]).sum(axis=1)
                print(f"{label}: {name}: cosine to fp32 min {cosines.min():.4f} mean {cosines.mean():.4f}")
        timed = groups[f"{len(asked)} tuned questions"]
        sessions = {label: _session(graph) for label, graph in graphs.items()}
        spent: dict[str, list[float]] = {label: [] for label in graphs}
        for _ in range(args.rounds):
            for label, session in sessions.items():
                started = time.process_time()
                for feed in timed:
                    session.run(["pooled"], feed)
                spent[label].append((time.process_time() - started) / len(timed) * 1000)
        for label, ms in spent.items():
            rounds = ", ".join(f"{m:.2f}" for m in ms)
            print(f"{label}: {statistics.median(ms):.3f} ms of CPU a question (rounds {rounds})")
        if args.kernels:
            for label, graph in graphs.items():
                _kernels(label, graph, timed[:200])
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
