"""Study: chunks through an int8 graph that quantises fewer of the model's products.

    .venv/bin/python bench/partial_int8_study.py vectors DATA_DIR VARIANT[,VARIANT...]
    .venv/bin/python bench/partial_int8_study.py quality VARIANT NAME SPLIT CORPUS QUESTIONS.jsonl [...]

`vectors`: builds each variant graph from DATA_DIR's fp32 graph (a data dir a cold ingest filled, e.g.
bench/results/index/textbook-a) and embeds that collection's chunks (search texts) with fp32 and with
each variant, as the ingest batches them: CPU per word piece and cosine to the fp32 vectors. `quality`:
bench/answer_quality.py with the chunks (not the sentences, not the queries) embedded by VARIANT,
ingesting into bench/results/index-int8/VARIANT/BOOK (the cached fp32 indexes stay as they are; the
int8 sentence vectors of bench/results/index/BOOK are copied in first, being the same). Variants, by
the weights whose products are int8 (the rest stays fp32; per output channel, signed weights, dynamic
activations, as minilm_graphs.quantise):

    up            feed-forward up projections (1/3 of the layers' matrix FLOPs)
    out-up        attention output + feed-forward up (5/12)
    qkv-out-up    + the QKV products (the shipped int8 graph's recipe, LECTERN_..._PRECISION=int8)

`out-up` ships as the opt-in LECTERN_EMBEDDING_DOCUMENT_PRECISION=int8-partial (minilm_graphs); this
script's own variant graphs go to bench/results/int8-graphs (quantised like minilm_graphs.quantise).

Findings (Nov 2026, AVX-512 VNNI, 2 shared cores, load average 4-10; textbook-a, 1,013 chunks,
143,769 word pieces; `vectors bench/results/index/textbook-a up,out-up,qkv-out-up`):

    chunks through   CPU of the chunk pass     cosine to fp32: min / p1 / mean
    fp32             39.4 s (274 us a piece)   -
    up               31.7 s (0.81)             0.9962 / 0.9972 / 0.99846
    out-up           29.8 s (0.76)             0.9957 / 0.9969 / 0.99838
    qkv-out-up       24.4 s (0.62)             0.9949 / 0.9957 / 0.99747

(batches of one length, as the int8 runtime runs them; mixed-length batches cost 4-6 % more CPU and
give the same cosines.) Answer quality (`quality VARIANT NAME SPLIT ...`, the four textbooks; tune =
reader-* --split tune, train = train-* --split all, dev2 = dev2-* --split dev2; in-scope answered /
answered citing the relevant file / answers with every keyword / near misses refused / AUROC):

    tune    fp32 (base)   91.0 / 88.0 / 80.2 / 90.0 / 0.982
            up            92.0 / 89.0 / 77.2 / 90.0 / 0.983
            out-up        93.0 / 90.0 / 75.3 / 90.0 / 0.984
    train   fp32 (base)   84.5 / 79.0 / 83.2 / 90.0 / 0.961
            up            83.1 / 78.1 / 82.4 / 90.0 / 0.960
            out-up        83.1 / 78.1 / 81.9 / 88.8 / 0.961
            qkv-out-up    -    / 76.7 / -    / 87.5 / -      (measured before, docs/ingesting.md)
    dev2    fp32 (base)   79.2 / 66.7 / 60.0 / 79.2 / 0.916
            up            79.2 / 65.8 / 58.9 / 81.2 / 0.916
            out-up        80.0 / 66.7 / 60.4 / 79.2 / 0.912

Cold ingest of textbook-a into a fresh data dir, 2 runs a side interleaved, load average 5.6-6.5
(`LECTERN_EMBEDDING_DOCUMENT_PRECISION=fp32|int8-partial .venv/bin/python bench/ingest_profile.py
../shared/data/textbooks/textbook-a --data-dir $(mktemp -d)`): fp32 50.9 / 51.2 s of CPU (chunk pass
40.5 / 40.8), int8-partial 42.5 / 41.9 s (chunk pass 31.5 / 31.5, which the profile labels "(int8)",
its batches being of one length; +0.6 s building the third graph): -17 %. Wall 95 / 86 s vs 92 / 70 s.
Against LlamaIndex's CPU (0.37-0.5 of it with fp32) that is ~0.31-0.42: not the third asked for at
the high end, and not at fp32's answer quality.

SciFact, hybrid (`LECTERN_EMBEDDING_DOCUMENT_PRECISION=int8-partial LECTERN_DATA_DIR=/tmp/docq-sf
.venv/bin/lectern eval retrieval --beir ../shared/data/scifact --mode hybrid`, 10,143 chunks, ingest
~9 min at load ~7): nDCG@10 0.7107 (fp32 0.7109, int8 0.7100), Recall@10 0.8551, Recall@100 0.9560,
MRR@10 0.6691. Retrieval holds; the answer sets are what fail the bar.

Quantising fewer products keeps the vectors closer to fp32 (1 - mean cosine 0.0016 against 0.0025),
but the answers still move: the same fragile questions flip whichever subset is int8 (tune: 2-3
answers lose a keyword, rb-in-01 and rc-in-37 in both; train: 2 fewer answered citing the right file
in both), so neither variant meets "every answer figure within half a point of fp32" and the default
stays fp32. `up` saves less CPU for no better answers than `out-up`. Each quality run re-embeds only
the chunks (the sentence vectors are copied from the fp32 index folder: ~4-5 min for the four books
under load).
"""

from __future__ import annotations

import asyncio
import logging
import resource
import shutil
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

import numpy as np

from lectern.embeddings import minilm_assets as assets
from lectern.embeddings.local import LocalMiniLMEmbedder, MiniLMRuntime, load_runtime, resolve_threads

WEIGHTS = {"up": (".up_w",), "out-up": (".out_w", ".up_w"), "qkv-out-up": (".qkv_w", ".out_w", ".up_w")}


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def variant_graph(models: Path, variant: str, folder: Path) -> Path:
    """The variant's graph in `folder`, quantised from the fp32 graph in `models` if missing."""
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    from lectern.embeddings.weight_quant import vectorised

    target = folder / f"{variant}.onnx"
    if target.exists():
        return target
    folder.mkdir(parents=True, exist_ok=True)
    source = next(models.glob("minilm-fused-fp32-*.onnx"))
    graph = onnx.load(str(source), load_external_data=False).graph
    nodes = [n.name for n in graph.node if any(i.endswith(WEIGHTS[variant]) for i in n.input)]
    logging.getLogger().setLevel(logging.ERROR)  # the quantiser's pre-processing hint
    with vectorised():
        quantize_dynamic(
            str(source),
            str(target),
            weight_type=QuantType.QInt8,
            per_channel=True,
            op_types_to_quantize=["MatMul", "Attention"],
            nodes_to_quantize=nodes,
            extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT},
        )
    return target


def variant_runtime(graph: Path) -> MiniLMRuntime:
    from lectern.embeddings.minilm_onnx import OnnxMiniLM

    config = assets.load_config(assets.model_dir())
    words = assets.model_dir() / "model.safetensors"
    model = OnnxMiniLM.from_file(graph, config, "fused", threads=1, words=words, arena=True)
    return MiniLMRuntime("onnx", model, resolve_threads(0), same_length=True)


def vectors(data_dir: Path, variants: list[str]) -> None:
    import lancedb

    table = lancedb.connect(str(data_dir / "index" / "lancedb")).open_table("bench")
    texts = list(table.to_arrow().select(["search_text"]).to_pydict()["search_text"])
    embedder = LocalMiniLMEmbedder(graphs=data_dir / "models")
    pieces = sum(len(e.ids) for e in embedder._tokenizer.encode_batch(texts))
    started = _cpu()
    base = embedder._embed(texts, load_runtime("auto", 0, data_dir / "models"))
    fp32 = _cpu() - started
    print(f"fp32: {fp32:.1f} s CPU, {fp32 / pieces * 1e6:.0f} us a word piece ({len(texts)} chunks)")
    folder = Path(__file__).resolve().parent / "results" / "int8-graphs"
    for variant in variants:
        runtime = variant_runtime(variant_graph(data_dir / "models", variant, folder))
        started = _cpu()
        got = embedder._embed(texts, runtime)
        spent = _cpu() - started
        cos = (got * base).sum(axis=1)
        print(
            f"{variant}: {spent:.1f} s CPU ({spent / fp32:.2f} of fp32), {spent / pieces * 1e6:.0f} us a "
            f"word piece; cosine min {cos.min():.4f} p1 {np.percentile(cos, 1):.4f} mean {cos.mean():.5f}"
        )


def quality(variant: str, name: str, split: str, args: list[str]) -> None:
    import answer_quality
    import common

    results = common.RESULTS
    runtime: list[MiniLMRuntime] = []

    def chunk_runtime(self: LocalMiniLMEmbedder) -> MiniLMRuntime:
        if not runtime:
            assert self._graphs is not None
            graph = variant_graph(self._graphs, variant, results / "int8-graphs")
            runtime.append(variant_runtime(graph))
        return runtime[0]

    LocalMiniLMEmbedder._runtime = property(chunk_runtime)  # type: ignore[method-assign,assignment]
    ingest: dict[str, tuple[float, int]] = {}

    def build(corpus: Path, data_dir: Path | None = None, **overrides: Any) -> Any:
        book = corpus.resolve().name
        folder = results / "index-int8" / variant / book
        if not folder.exists():
            folder.mkdir(parents=True)
            for cached in (results / "index" / book).glob("sentences-*.sqlite3"):
                shutil.copy(cached, folder / cached.name)
            shutil.copytree(results / "index" / book / "models", folder / "models")
        engine, settings, seconds = common.build(corpus, folder, **overrides)
        ingest[corpus.name] = (round(seconds, 1), engine.retriever.index.count())
        return engine, settings, seconds

    answer_quality.build = build  # type: ignore[assignment]
    pairs = [(Path(args[i]), Path(args[i + 1])) for i in range(0, len(args), 2)]
    result = asyncio.run(answer_quality.run(pairs, split))
    answer_quality.print_table(result["reports"])
    print("ingest seconds, chunks:", ingest)
    common.write_result(name, result)


def main() -> None:
    if sys.argv[1] == "vectors":
        vectors(Path(sys.argv[2]), sys.argv[3].split(","))
    else:
        quality(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:])


if __name__ == "__main__":
    main()
