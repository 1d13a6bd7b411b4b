"""Late-chunked sentence vectors, measured offline on writer_replay recordings.

    uv run python bench/writer_replay.py record NAME ...   # first, for train (--split all) and tune
    uv run python bench/late_chunk_study.py NAME [NAME ...] [--graphs FOLDER]

For every chunk retrieved in the recordings (bench/results/NAME.replay.pkl), runs the fp32 MiniLM graph
once on the chunk's `search_text` with the token states before pooling exposed, maps each sentence unit
(`units_of`) onto the chunk's word pieces (difflib alignment of the unit's word pieces with the
chunk's), and mean-pools the states over those positions: the sentence's vector from the chunk pass,
no second encoder pass. Writes variant recordings NAME-VARIANT.replay.pkl (the recorded standalone
vectors swapped for the variant's) and replays each; also prints how far the variants' best
question-sentence cosine (an answerability signal) moves from the standalone vectors'.

Variants: ``late`` (mean over the matched word pieces), ``span`` (over the whole first..last matched
range), ``b25``/``b50``/``chunk`` (late blended with the chunk's own vector, 25/50/100 %), ``m25``/``m50``
(late minus 25/50 % of the chunk vector: less of the chunk's context), and with ``--graphs`` (a folder
for the ONNX graphs) ``int8``: the standalone pass through the int8 document graph, for comparison.

Findings (Nov 2026, base a825119; answered in-scope / follow-up questions, keyword %):

    variant  train (185 / 66)        tune (91 / 32)     best-sentence cosine corr. to standalone
    stored   80.0 / 84.8             74.7 / 68.8        1 (train) / 1 (tune)
    late     78.9 / 86.4 (+3 -5/+2 -1)  73.6 / 65.6     0.933 / 0.704
    span     78.9 / 86.4             73.6 / 65.6        0.931 / 0.699
    b25      77.8 / 83.3             71.4 / 62.5        0.921 / 0.651
    b50      74.6 / 78.8             68.1 / 56.2        0.905 / 0.585
    chunk    69.7 / 81.8             64.8 / 56.2        0.868 / 0.487
    m25      77.3 / 86.4             75.8 / 68.8        0.738 (tune)
    m50      77.8 / 84.8             75.8 / 68.8        0.756 (tune)
    int8     80.0 / 83.3             74.7 / 68.8        1.000 / 0.998

Every late-chunked variant loses >= 1.1 points of in-scope keyword % on train (late: tune too), and
the answerability decision's best-sentence cosine (trained on standalone vectors) moves a lot on tune.
The standalone pass is also only ~19 % of textbook-a's cold ingest CPU (9.5-10.8 s of 52-59 s: the
chunk pass is ~40 s), so late chunking would save at most that. Not adopted. The int8 graph for the
sentence pass alone keeps the answers (one follow-up lost on train) and costs 5.65 s against 9.61 s
of CPU for textbook-a's 2,691 sentences (medians of 3). End to end (answer_quality with
`SentenceVectors.for_data_dir` patched to an in-memory store fed by the int8 document graph): every
figure equal on train and tune except follow-up answers with every keyword, one question fewer on
each (train 84.8 -> 83.3 %, tune 68.8 -> 65.6 %), and train AUROC 96.0 -> 95.9 %.

Since adopted as the default (LECTERN_EMBEDDING_SENTENCE_PRECISION=int8, its own store file): on base
04c7028 every answer figure equal on tune and train, train AUROC per set within 0.1 point.
"""

from __future__ import annotations

import argparse
import copy
import difflib
import pickle
from pathlib import Path
from typing import Any

import numpy as np

import writer_replay
from common import RESULTS
from lectern.embeddings import minilm_assets as assets
from lectern.embeddings.local import LocalMiniLMEmbedder, _embedding_tokenizer, _pad
from lectern.embeddings.minilm_onnx import _session, build_model
from lectern.models import Chunk
from lectern.writers.units import units_of


def token_session() -> Any:
    from onnx import TensorProto, helper

    path = assets.model_dir()
    model = build_model(assets.load_weights(path), assets.load_config(path), "fused")
    mul = next(n for n in model.graph.node if n.op_type == "Mul" and any("unsqueeze" in i for i in n.input))
    states = mul.input[0]
    model.graph.output.append(helper.make_tensor_value_info(states, TensorProto.FLOAT, ["b", "s", 384]))
    return _session(model.SerializeToString(), 2), states


def spans(chunk: Chunk, ids: list[int], tok: Any) -> list[list[int] | None]:
    """Per unit: chunk token positions (into `ids`, which include [CLS]/[SEP]) its word pieces match."""
    units = units_of(chunk.text)
    body = ids[1:-1]
    flat: list[int] = []
    owner: list[int] = []
    for k, u in enumerate(units):
        if u.kind != "sentence":
            continue
        uids = tok.encode(u.text, add_special_tokens=False).ids
        flat += uids
        owner += [k] * len(uids)
    matched: list[list[int]] = [[] for _ in units]
    sm = difflib.SequenceMatcher(None, flat, body, autojunk=False)
    for a, b, n in sm.get_matching_blocks():
        for d in range(n):
            matched[owner[a + d]].append(b + d + 1)
    return [m or None for m in matched]


def standalone_int8(chunks: list[Chunk], graphs: Path) -> dict[str, np.ndarray]:
    """The standalone sentence pass through the int8 document graph (for comparison)."""
    embedder = LocalMiniLMEmbedder(graphs=graphs, document_precision="int8")
    out: dict[str, np.ndarray] = {}
    for chunk in chunks:
        units = units_of(chunk.text)
        rows = [i for i, u in enumerate(units) if u.kind == "sentence"]
        m = np.zeros((len(units), 384), np.float32)
        if rows:
            m[rows] = embedder.embed_documents([units[i].text for i in rows])
        out[chunk.content_hash] = m
    return out


def main(names: list[str], graphs: Path | None) -> None:
    tok = _embedding_tokenizer()
    session, states_name = token_session()
    kept = {n: pickle.loads((RESULTS / f"{n}.replay.pkl").read_bytes()) for n in names}
    chunks: dict[str, Chunk] = {}
    for k in kept.values():
        for item in k.values():
            req = item["request"]
            if req is None or req["retrieval"] is None:
                continue
            for h in req["retrieval"].hits:
                chunks[h.chunk.content_hash] = h.chunk
    order = sorted(chunks)
    enc = {h: tok.encode(chunks[h].search_text).ids for h in order}
    late: dict[str, dict[str, np.ndarray]] = {"late": {}, "span": {}}
    chunk_vec: dict[str, np.ndarray] = {}
    missing = total = truncated = 0
    by_len = sorted(order, key=lambda h: len(enc[h]))
    for start in range(0, len(by_len), 16):
        part = by_len[start : start + 16]
        ids, mask = _pad([enc[h] for h in part])
        pooled, states = session.run(["pooled", states_name], {"input_ids": ids, "attention_mask": mask})
        for r, h in enumerate(part):
            v = pooled[r]
            chunk_vec[h] = v / np.linalg.norm(v)
            units = units_of(chunks[h].text)
            sp = spans(chunks[h], enc[h], tok)
            m1 = np.zeros((len(units), 384), np.float32)
            m2 = np.zeros((len(units), 384), np.float32)
            for i, (u, s) in enumerate(zip(units, sp, strict=True)):
                if u.kind != "sentence":
                    continue
                total += 1
                if s is None:
                    missing += 1
                    m1[i] = m2[i] = chunk_vec[h]
                    continue
                if len(enc[h]) >= 256 and max(s) >= 250:
                    truncated += 1
                x = states[r, s].mean(0)
                m1[i] = x / np.linalg.norm(x)
                y = states[r, min(s) : max(s) + 1].mean(0)
                m2[i] = y / np.linalg.norm(y)
            late["late"][h] = m1
            late["span"][h] = m2
    print(f"chunks {len(order)} sentences {total} unmatched {missing} at-truncation {truncated}")

    def blend(a: float) -> dict[str, np.ndarray]:
        """Normalised (1 - a) * late + a * chunk vector; code rows stay zero."""
        out = {}
        for h, m in late["late"].items():
            z = (1 - a) * m + a * chunk_vec[h]
            z /= np.maximum(np.linalg.norm(z, axis=1, keepdims=True), 1e-9)
            out[h] = (z * (np.abs(m).sum(1, keepdims=True) > 0)).astype(np.float32)
        return out

    variants = {"late": late["late"], "span": late["span"], "b25": blend(0.25), "b50": blend(0.5)}
    variants["chunk"] = blend(1.0)
    variants["m25"] = blend(-0.25)
    variants["m50"] = blend(-0.5)
    if graphs is not None:
        variants["int8"] = standalone_int8([chunks[h] for h in order], graphs)
    for name, k in kept.items():
        cos_rows: dict[str, list[float]] = {v: [] for v in ["stored", *variants]}
        for vname, vecs in variants.items():
            new = copy.copy(k)
            for qid, item in k.items():
                req = item["request"]
                if req is None:
                    continue
                req2 = dict(req)
                req2["vectors"] = {
                    h: vecs[h].astype(np.float16) if h in vecs else m for h, m in req["vectors"].items()
                }
                new[qid] = {"row": item["row"], "request": req2}
            (RESULTS / f"{name}-{vname}.replay.pkl").write_bytes(pickle.dumps(new))
        # best question-sentence cosine over the top passages: how far it moves
        for item in k.values():
            req = item["request"]
            if req is None or not req["retrieval"].query_embedding:
                continue
            q = np.asarray(req["retrieval"].query_embedding, np.float32)
            hits = req["retrieval"].hits[:5]
            for vname in cos_rows:
                best = -1.0
                for hit in hits:
                    h = hit.chunk.content_hash
                    m = req["vectors"].get(h) if vname == "stored" else variants[vname].get(h)
                    if m is None:
                        continue
                    units = units_of(hit.chunk.text)
                    rows = [i for i, u in enumerate(units) if u.kind == "sentence" and i < m.shape[0]]
                    if rows:
                        best = max(best, float((m[rows].astype(np.float32) @ q).max()))
                cos_rows[vname].append(best)
        base = np.array(cos_rows["stored"])
        for vname, vals in cos_rows.items():
            a = np.array(vals)
            print(
                f"{name} {vname:6s} best-sentence cosine mean {a.mean():.3f} "
                f"corr-to-stored {np.corrcoef(a, base)[0, 1]:.3f}"
            )
        writer_replay.replay(name, False)
        for vname in variants:
            writer_replay.replay(f"{name}-{vname}", False)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("names", nargs="+")
    parser.add_argument("--graphs", type=Path, default=None)
    args = parser.parse_args()
    main(args.names, args.graphs)
