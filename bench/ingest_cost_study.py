"""Study: what a cold ingest's model passes are made of, and what is left to cut without new vectors.

    .venv/bin/python bench/ingest_profile.py ../shared/data/textbooks/textbook-a   # prints its data dir
    .venv/bin/python bench/ingest_cost_study.py /tmp/ingest-profile-XXXX           # that data dir

Reads the collection an ingest left (its chunks' search texts and the sentences `lectern.sentences`
embeds) and reports: the word pieces of each pass, the padding the chunk pass's batches add, the
CPU per word piece of the fp32 model on the chunks and of the fp32 and int8 models on the sentences
(as the ingest batches them), and onnxruntime's own per-operator split of the fp32 graph on a quarter
of the chunks (one text per call, as long chunks run).

Findings on textbook-a (1,013 chunks; 2 shared cores, load average 10-19, so CPU figures are
inflated alike; ingest_profile.py at load 15: 85.7 s of CPU in all):

- The fp32 chunk pass is 74 % of the CPU (63 s), the int8 sentence pass 13 % (11 s), everything else
  (imports, both graph builds, the word-frequency table, parsing, chunking, tokenising, sentence
  splitting, SQLite, LanceDB) 13 % together, no item above 2.8 %.
- Chunk pass: 143,769 word pieces (mean 142, 28 chunks at the 256 cap), padding ~1 %. Operator split:
  MatMul 59 %, Attention 32 % (its QKV projection is a quarter of each layer's matrix FLOPs, so ~20
  points of it are a matrix product and ~12 the attention proper), BiasGelu 5 %, Add 2 %, LayerNorm
  1 %. docs/ingesting.md measured the pass at 80-95 % of the rate one fp32 product of its shape
  reaches on these cores: with these vectors there is little arithmetic left to save.
- Sentence pass: 2,770 sentences, 2,669 distinct within a flush (already embedded once each),
  36,264 word pieces, mean 13.6, no padding (int8 batches hold one length). The int8 graph costs
  ~300 us of CPU a word piece against ~390 for fp32 on the same batches (-25 %, not -40 %: the
  down projections stay fp32, a third of the FLOPs, and these CPUs have no VNNI). Its activations are
  quantised with one scale per call, so a sentence's vector depends on the batch it runs in: merging
  flushes' sentences, or any other change of the batches, changes stored vectors (and the
  answerability decision trained on them), so the batching stays as it is.
- Not shipped, with the reason: the chunk pass through the int8 graph (~-38 % CPU; SciFact nDCG@10
  0.7100 vs 0.7109 but train answers cited 76.7 vs 79.0 %, measured before, see docs/ingesting.md);
  late-chunked sentence vectors (bench/late_chunk_study.py). TOKENIZERS_PARALLELISM=false for the
  chunker's and the chunk pass's tokenising: no difference beyond the noise (0.74-0.92 vs 0.88-0.95 s).
- What did ship: the sentence store and the resume file committed every row on its own with an fsync
  each (2,084 fdatasync calls a cold textbook-a ingest, now 36: `bench/ingest_ab.py --fsyncs`). Their
  writes replayed without the model (1,013 chunks' vectors in batches of 32, the sentences of two
  flushes) took 1.32-1.45 s of CPU before, 0.87-1.01 s after. The whole cold ingest, 5 interleaved
  runs a side at load 8.6-12.9 (bench/ingest_ab.py, two sittings): CPU median 82.1 s base, 85.2 s
  after (ranges 81.6-88.0 and 80.8-89.3: the noise of this load, the code in between is identical);
  wall median 281 s base, 268 s after (214-383 and 221-388). The stored vectors are bit for bit the
  same (chunks and sentences compared).
- Measured by this script at load ~5-10: fp32 chunks 64.9 s of CPU (451 us a word piece), fp32
  sentences 14.3 s (394 us), int8 sentences 11.2 s (308 us); operators MatMul 57.7 %, Attention
  33.1 %, BiasGelu 5.1 %, Add 2.0 %, LayerNormalization 1.3 %.
- Not tried for want of time, a lead for a later round: an int8 graph that quantises fewer products
  (the attention output and feed-forward up projections, ~40 % of the FLOPs, the QKV products kept
  fp32), for chunks; it must pass SciFact and the answer-quality sets like any vector change.

Reaching a third of LlamaIndex's CPU (about 29 s on textbook-a) would take fewer FLOPs per chunk than
the fp32 model's arithmetic alone (~38 s of CPU on an idle machine): a smaller or lower-precision
document encoder, which changes the vectors and, as measured for int8, the answers.
"""

from __future__ import annotations

import argparse
import collections
import json
import resource
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from lectern.embeddings import minilm_assets as assets
from lectern.embeddings.local import LocalMiniLMEmbedder, _pad, load_int8_runtime
from lectern.writers.units import units_of


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _texts(data_dir: Path, collection: str) -> tuple[list[str], list[str]]:
    import lancedb

    table = lancedb.connect(str(data_dir / "index" / "lancedb")).open_table(collection)
    columns = table.to_arrow().select(["search_text", "text"]).to_pydict()
    return list(columns["search_text"]), list(columns["text"])


def _operator_split(graph: Path, embedder: LocalMiniLMEmbedder, texts: list[str]) -> dict[str, float]:
    import onnxruntime as ort

    from lectern.embeddings.minilm_onnx import SKIP_NORM_FUSION

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = opts.inter_op_num_threads = 1
    opts.enable_profiling = True
    opts.profile_file_prefix = str(Path(tempfile.gettempdir()) / "ingest-cost-study")
    session = ort.InferenceSession(
        str(graph), opts, providers=["CPUExecutionProvider"], disabled_optimizers=[SKIP_NORM_FUSION]
    )
    words = assets.WordRows(assets.model_dir() / "model.safetensors")
    for encoding in embedder._tokenizer.encode_batch(texts):
        ids, mask = _pad([encoding.ids])
        session.run(["pooled"], {"word_vectors": words.take(ids), "attention_mask": mask})
    profile = Path(session.end_profiling())
    events: list[dict[str, Any]] = json.loads(profile.read_text())
    profile.unlink()
    spent: collections.Counter[str] = collections.Counter()
    for event in events:
        if event.get("cat") == "Node" and event["name"].endswith("_kernel_time"):
            spent[event["args"]["op_name"]] += event["dur"]
    total = sum(spent.values())
    return {op: us / total for op, us in spent.most_common()}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("data_dir", type=Path, help="A data dir a cold `lectern ingest` filled.")
    parser.add_argument("--collection", default="docs")
    args = parser.parse_args()
    graphs = args.data_dir / "models"
    embedder = LocalMiniLMEmbedder(graphs=graphs, sentence_precision="int8")
    search_texts, texts = _texts(args.data_dir, args.collection)

    lengths = [len(e.ids) for e in embedder._tokenizer.encode_batch(search_texts)]
    sentences = list(dict.fromkeys(u.text for t in texts for u in units_of(t) if u.kind == "sentence"))
    pieces = sum(len(e.ids) for e in embedder._tokenizer.encode_batch(sentences))
    print(f"chunks {len(lengths):,}: {sum(lengths):,} word pieces, mean {sum(lengths) / len(lengths):.0f}")
    print(f"distinct sentences {len(sentences):,}: {pieces:,} word pieces")

    started = _cpu()
    embedder.embed_documents(search_texts)
    chunk_cpu = _cpu() - started
    print(f"fp32 chunks: {chunk_cpu:.1f} s CPU, {chunk_cpu / sum(lengths) * 1e6:.0f} us a word piece")
    int8 = load_int8_runtime(graphs)
    for name, run in (("fp32", None), ("int8", int8)):
        started = _cpu()
        embedder._embed(sentences, run)
        spent = _cpu() - started
        print(f"{name} sentences: {spent:.1f} s CPU, {spent / pieces * 1e6:.0f} us a word piece")

    graph = next(graphs.glob("minilm-fused-fp32-*.onnx"))
    for op, share in _operator_split(graph, embedder, search_texts[::4]).items():
        print(f"  {op:<20} {share:6.1%}")


if __name__ == "__main__":
    main()
