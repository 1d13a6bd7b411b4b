"""The int8 question model with its feed-forward down projections quantised too (smooth_int8): how close
its vectors are to the fp32 model's, next to the int8 recipe before it, and the CPU of each per question.

    .venv/bin/python bench/smooth_int8_study.py [--weights s8|u8] [--rounds 5] [--kernels]

Builds, in a temporary folder, the fp32 graph, the shipped int8 recipe (3: every product int8 but the
six down projections, left fp32) and the one studied ("recipe 4": `minilm_smooth.prepare`, then every
product int8), with the weight type this CPU gets or `--weights`. Prints the cosine of each int8 graph's
vectors to the fp32 ones, min and mean, on the reference texts of tests/fixtures/minilm_reference.json
and on the questions (every turn) of the tuned question sets (bench/questions, their tuned splits only:
`TUNED`), then the CPU per question of each session's `run` (one thread; the two int8 graphs in turn
within each round, median over rounds), and with `--kernels` onnxruntime's time per operator for each.

Findings (Nov 2026, AMD EPYC with AVX-512 VNNI, 2 shared cores at load 2-6):

    graph (weights)           reference texts (20)     tuned questions+turns (2,242)   CPU a question's run
                              cosine min / mean        cosine min / mean               (median of 3 rounds)
    recipe 3 (s8, shipped)    0.9903 / 0.9964          0.9822 / 0.9968                 3.15 ms
    recipe 4 (s8)             0.9958 / 0.9987          0.9944 / 0.9992                 2.02 ms  (-36 %)
    recipe 3 (u8, --weights)  0.9883 / 0.9961          0.9777 / 0.9968
    recipe 4 (u8, --weights)  0.9978 / 0.9990          0.9948 / 0.9993

onnxruntime per operator (--kernels, 200 questions, profiled): recipe 3 4.01 ms = MatMul (the six fp32
down projections) 1.67, DynamicQuantizeMatMul 0.78, QAttention 0.74, BiasGelu 0.19, LayerNormalization
0.13, Add 0.11; recipe 4 3.11 ms = DynamicQuantizeMatMul 1.31 (18 products), QAttention 0.70, BiasGelu
0.19, LayerNormalization 0.12, Mul 0.10, Add 0.09, Div 0.06, ReduceMax 0.03, Max 0.03 (the per-token and
smoothing nodes together ~0.22 ms). Through `embed_query` (bench/int8_closeness.py): 3.01 ms against
6.63 for fp32.

A whole answer (bench/stage_cpu.py textbook-a train questions, 106 x 3 rounds, --server-heap, the
shipped code and 90632d1's by PYTHONPATH, alternated twice, load 2.5-2.9; ms of CPU an answer): query
model call 4.24 / 4.21 -> 2.96 / 3.11, total 7.10 / 7.01 -> 5.55 / 5.73 (-20 %). bench/callgrind_answers.py
(--query-cache: the model left out) 9.62 -> 9.55 M instructions an answer; valgrind has no AVX-512, so it
cannot count the model's native kernels.

Answers (all 28 tuned SET:SPLIT runs of the helper brief, bench/answer_quality.py, pooled over the four
textbooks; recipe 4 was shipped as INT8_RECIPE 4 in commit 90632d1, with the sentence stores named by
recipe so int8 sentences were embedded again with it):

    pooled (net vs shipped r3)   shipped r3  r4 queries  fp32 queries  r4 int8 docs  r3 int8 docs
    in-scope answered            625/759     622 (-3)    618 (-7)      623 (-2)      624 (-1)
    in-scope cited               571         568 (-3)    567 (-4)      570 (-1)      572 (+1)
    in-scope keywords (answered) 459/625     446 (-13)   447 (-12)     447 (-12)     444 (-15)
    near misses refused          273/316     271 (-2)    269 (-4)      271 (-2)      272 (-1)
    out-of-scope refused         112/112     112         112           112           112
    follow-ups cited             479/511     481 (+2)    482 (+3)      481 (+2)      475 (-4)
    follow-up keywords           393/494     393         399 (+6)      395 (+2)      394 (+1)
    rows changed (answered, cited or keywords)  48       44            63            49

("fp32 queries": the shipped code with LECTERN_EMBEDDING_QUERY_PRECISION=fp32; "int8 docs": with
LECTERN_EMBEDDING_DOCUMENT_PRECISION=int8, indexes ingested afresh in another folder.)

Held-back check (the acceptance test for this speed change, run once and not tuned on: the 26 held-back
splits, 532 in-scope questions, 356 follow-ups, 224 near misses, 84 out of scope; main 7835a61 with and
without 90632d1 + ed1a1b6 cherry-picked, the same hour, same machine):

    pooled, held back            recipe 3 (shipped)   recipe 4
    in-scope cited               379/532 (71.2 %)     374/532 (70.3 %)
    in-scope keywords (answered) 264/411 (64.2 %)     263/409 (64.3 %)
    follow-ups cited             298/356 (83.7 %)     296/356 (83.1 %)
    follow-up keywords           243/320              244/319
    near misses refused          205/224 (91.5 %)     206/224 (92.0 %)
    out of scope refused         84/84                84/84
    rows changed (answered, cited or keywords): 35 of 1,196 held back, 49 of 1,770 tuned

The held-back sets confirm a small loss (-5 in-scope and -2 follow-ups cited), so the recipe stays a
study. The decision model and its thresholds were fitted on recipe 3's question vectors
(bench/train_answerability.py); refitting them on recipe 4's is the next step before this -20 % of an
answer's CPU (and int8 documents at -44 % of a cold ingest) can ship.

Not shipped: -13 keywords and two near misses answered break the brief's bar (no more than ~1 row net
on any pooled measure, no near-miss loss). But exact fp32 question vectors (the shipped code with
fp32 queries) move the sets as much (-12 keywords, -4 near misses), and r4 against fp32
questions differs by at most 1-2 rows on every measure but follow-up keywords (-6): the tuned sets are
tuned to recipe 3's particular error, so any change of the question vectors reads as a loss there, the
more exact ones included. SciFact (lectern eval retrieval --beir, fp32 documents) hybrid nDCG@10 0.7101
with r4 questions against 0.7109.

Documents through the r4 graph too (LECTERN_EMBEDDING_DOCUMENT_PRECISION=int8, indexes ingested afresh
into another folder): against r4 questions with fp32 documents +1 / +2 / +1 / 0 / 0 / 0 / +2 on the
measures above (37 rows changed) — no loss at all, where recipe 3's int8 documents against its fp32 ones
lose 15 keywords and 4 follow-ups. SciFact hybrid nDCG@10 0.7110 (dense 0.6486; fp32 documents 0.7101,
dense 0.6528). Cold `lectern ingest` of textbook-a (CPU user+sys, one run each, load ~3): fp32
documents 45.5 s (shipped code 46.4), r4 int8 documents 25.5 s (-44 %), r3 int8 documents 32.7 s (-30 %).
So with r4, int8 documents look free on these sets; it would need the held-back sets before any default.

Questions on recipe 3, documents on recipe 4 (the opt-in LECTERN_EMBEDDING_DOCUMENT_PRECISION=int8 since
then: the ``int8-smooth`` graph of minilm_graphs for chunks, and their sentences unless noted; the
question graph, its files and its vectors unchanged, so the answerability decision sees the same query
side). All 30 tuned SET:SPLIT runs of the helper brief (reader:tune, train:tune, dev2, dev5-dev15,
followups-dev, -dev2, -dev3, -dev4..15, followups-nm:funm; 1,770 rows), indexes ingested afresh into
another folder (a copy of bench/ elsewhere, so bench/results/index stays fp32), main f4afbea:

    pooled (tuned)               main (fp32 docs)  r4 chunks,      r4 chunks and    main's int8 docs
                                                   r3 sentences    sentences        (r3 chunks+sents)
    in-scope answered            655/791           654 (-1)        653 (-2)         654 (-1)
    in-scope cited               599/791           596 (-3)        595 (-4)         601 (+2)
    in-scope keywords (answered) 477/655           465 (-12)       463 (-14)        462 (-15)
    follow-ups cited             501/535           500 (-1)        501              497 (-4)
    follow-up keywords           410/516           407 (-3)        411 (+1)         410/514
    near misses refused          285/328           285             285              284 (-1)
    out-of-scope refused         116/116           116             116              116
    rows changed (answered, cited or keywords)     39              50               51

Cosine of the chunk vectors to fp32 on textbook-a's 1,013 chunks (batched as an ingest batches them):
recipe 4 min 0.9979 / mean 0.9990, recipe 3 0.9949 / 0.9975; CPU for them on one thread 16.4 s
(recipe 4), 21.9 s (recipe 3), 40.6 s (fp32); each chunk alone (batch of 1) changes neither cosine
(0.9979) nor CPU much (18.6 s). Cold `lectern ingest` of textbook-a, CPU user+sys, alternated, load
2.7-4: main 46.4 / 45.3 s, r4 chunks + r3 sentences 32.0 / 30.1 s (-33 %); later, load 3.1-4.7: main
53.2 / 57.0 / 51.6 s, r4 chunks and sentences 35.7 / 33.3 s (-36 %), main's int8 documents (recipe 3)
42.8 / 37.2 s, this code with fp32 documents 48.4 s. Short of the earlier study's -44 %: a cold ingest
now builds both int8 graphs (questions still need recipe 3's) and the machine was busier.
SciFact (`lectern eval retrieval --beir scifact --mode hybrid`, r3 questions, r4 documents): nDCG@10
0.7135, Recall@10 0.8559, MRR@10 0.6727, against main's 0.7109 / 0.8559 / 0.6692 (run the same hour);
the whole command (ingest of 10,143 chunks and the 300 queries) 5 min 11 s of user CPU against 9 min 30.

Not the default: keywords -12 to -14 (and in-scope cited -3 to -4) break the bar (no pooled measure worse
by more than ~1-2 rows), though near misses and out-of-scope hold and the vectors are 0.999 from fp32's.
Even these closer document vectors move keywords as much as recipe 3's (-15): the tuned sets are tuned
to the fp32 documents' particular ranking, so any change of the chunk vectors reads as a keyword loss
there. The opt-in keeps recipe 4 for chunks and sentences (the larger CPU cut, no worse on the sets than
recipe 3 was); its sentence store is named ``int8-smooth`` so it never mixes with the question graph's.

How the recipe was found (cosine min on the reference texts / the 1,151 tuned questions, s8):
- down projections quantised as they are: 0.9801 / 0.9857. SmoothQuant on them alone (a = 0.5) is
  worse, 0.9334 / 0.9783 (a = 0.7: 0.9836 / 0.9900): the GELU outputs' outliers belong to tokens
  ([CLS], [SEP], rare words), not to fixed channels, so scaling channels only moves the loss. Per-token
  activation scales (divide each row by its largest value, quantise, multiply back) instead: 0.9859 /
  0.9945; keeping a few outlier weight rows fp32 (LLM.int8-style) added little in a numpy simulation.
- The larger loss was elsewhere: the LayerNorm outputs feeding the QKV and up products have BERT's fixed
  outlier channels, where SmoothQuant is the right tool. Smoothing the up input (a = 0.5) plus per-token
  down: 0.9906 / 0.9972; the QKV input too: 0.9958 / 0.9981 (the recipe). Smoothing the attention
  output's input changed nothing.
- MatMulNBits (8-bit, block-wise activations, accuracy_level 4) instead of per-token scales: closer
  still (0.9974 / 0.9988 with both smoothings) but slower (~0.3-0.5 ms a question more) and 8-bit MatMulNBits
  may need a newer onnxruntime than the project's floor (1.19); for the up products it was slower than
  DynamicQuantizeMatMul by ~0.65 ms a question.
"""

from __future__ import annotations

import argparse
import json
import logging
import shutil
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from common import kernel_split
from lectern.embeddings import minilm_assets as assets
from lectern.embeddings import minilm_graphs
from lectern.embeddings.local import _embedding_tokenizer
from lectern.embeddings.minilm_onnx import SKIP_NORM_FUSION, WORD_VECTORS
from lectern.embeddings.minilm_smooth import prepare
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
    """INT8_RECIPE 3 (shipped: minilm_graphs.quantise): the down projections fp32, nothing smoothed."""
    _quantise(source, target, keep_down=True)


def smoothed_recipe(source: Path, target: Path) -> None:
    """The recipe studied (90632d1's INT8_RECIPE 4): `minilm_smooth.prepare`, then every product int8."""
    import onnx

    prepared = source.with_name("prepared.onnx")
    onnx.save(
        prepare(onnx.load(str(source))), str(prepared), save_as_external_data=True, location="prepared.data"
    )
    _quantise(prepared, target, keep_down=False)


def _quantise(source: Path, target: Path, *, keep_down: bool) -> None:
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    model = onnx.load(str(source), load_external_data=False)
    keep = [n.name for n in model.graph.node if keep_down and any(i.endswith(".down_w") for i in n.input)]
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
    ms, ops = kernel_split(session, feeds)
    print(f"{name} kernels (profiled, {ms:.3f} ms a question):")
    for op, op_ms in ops[:12]:
        print(f"  {op_ms:6.3f} ms  {op}")


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
        smoothed_recipe(fp32, graphs["recipe 4 (smoothed)"])
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
