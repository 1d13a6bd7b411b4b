"""The fp32 MiniLM graph made ready for 8-bit activations, before `minilm_graphs.quantise` quantises it.

Dynamic quantisation gives each product's input one 8-bit scale per call. Three inputs are long-tailed,
and that scale is then spent on their outliers:

- The LayerNorm outputs that feed the QKV products (the Attention op) and the feed-forward up
  projections: a few of the 384 channels run far larger than the rest on every token (BERT's outlier
  dimensions). SmoothQuant (Xiao et al. 2022): per input channel j, s_j = max|X_j|^a / max|W_j|^(1-a)
  (a = `ALPHA`; X: the input on `CALIBRATION`, W_j: row j of the weight); a Mul by 1/s before the
  product and the weight's row j times s_j. The product is the same to float rounding; activation and
  weight now share the outliers, and both quantise with less loss.
- The GELU outputs that feed the feed-forward down projections: their outliers are a few tokens'
  ([CLS], [SEP], a rare word's), not fixed channels, so smoothing by channel only moves the loss
  (measured: worse than none). `per_token` divides each token's row by its largest value before the
  product and multiplies the product's row back: quantised per call, every token then has the whole
  8-bit range, as per-token activation scales would give it, with onnxruntime's standard kernels.

Measured (cosine of the quantised graph's vectors to fp32's): see `minilm_graphs`. The calibration texts
are generic sentences written for this purpose (prose, questions, code, markup, a few other scripts),
nothing of any collection, so a graph built anywhere is the same; they are not the texts the recipe was
measured on (tests/fixtures/minilm_reference.json, the bench's questions).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from lectern.embeddings import minilm_assets as assets
from lectern.embeddings.minilm_onnx import SKIP_NORM_FUSION, WORD_VECTORS

ALPHA = 0.5  # the paper's migration strength: halfway between activation and weight
# The weights (as build_model names them) whose products' inputs are smoothed, and the down projections'.
SMOOTHED = (".qkv_w", ".up_w")
DOWN_WEIGHT = ".down_w"
_PRODUCTS = ("MatMul", "Attention")  # ops whose input 0 times input 1 (a weight) is the product
_FLOOR = 1e-5  # no scale below this (a channel the calibration never lit)
# GELU's least value is about -0.17: a row's largest value, floored here, bounds its magnitude too
_GELU_MIN = 0.17

CALIBRATION: tuple[str, ...] = (
    "How does the cache decide which entries to evict first?",
    "What is the difference between a process and a thread?",
    "Why does the build fail when the version number changes?",
    "Explain how a hash table handles two keys that collide.",
    "When should I prefer a list over a set in Python?",
    "What happens to the request if the server times out?",
    "Which settings control the size of the memory pool?",
    "Can you summarise the main argument of the second paragraph?",
    "Who decides how the budget is split between the teams?",
    "Where are the log files written on a default install?",
    "The committee met on Tuesday and agreed to postpone the vote until more data was available.",
    "Rainfall in the valley has fallen by a third over the last decade, and farmers have adapted.",
    "A river carries sediment downstream and deposits it where the current slows near the delta.",
    "The recipe calls for two cups of flour, a pinch of salt and three eggs beaten until pale.",
    "She opened the window, listened to the traffic for a while, and then went back to her notes.",
    "Prices rose sharply in the spring, but wages lagged behind for most of the following year.",
    "The library lends books, maps and recordings, and its reading room is open until nine.",
    "Photosynthesis turns light, water and carbon dioxide into sugar and oxygen inside the leaf.",
    "The bridge was closed for repairs after inspectors found cracks in two of its main supports.",
    "Every function should do one thing, have a clear name, and be short enough to read at a glance.",
    "def mean(values):\n    return sum(values) / len(values) if values else 0.0",
    "for (int i = 0; i < n; ++i) { total += weights[i] * inputs[i]; }",
    "SELECT name, COUNT(*) FROM orders GROUP BY name ORDER BY 2 DESC LIMIT 10;",
    "$ git commit -m 'fix the off-by-one error in the parser' && git push origin main",
    '{"status": "ok", "items": [1, 2, 3], "next": null}',
    "# Getting started\n\n- Install the tool\n- Run `init` in an empty folder\n- Edit the config file",
    "Error: connection refused (port 5432). Is the database running and accepting connections?",
    "Table 3 lists the mean, median and standard deviation for each of the 12 groups (n = 480).",
    "The function f(x) = 3x^2 - 2x + 1 has its minimum at x = 1/3, where f equals 2/3.",
    "Version 2.4.1 (released 2021-06-30) adds support for TLS 1.3 and drops Python 3.6.",
    "GPU, CPU, RAM, SSD, HTTP, JSON, API, URL: acronyms are everywhere in the manual.",
    "Wie funktioniert die Suche? Die Anfrage wird in einen Vektor umgewandelt.",
    "La réunion est reportée à jeudi ; merci de confirmer votre présence.",
    "¿Dónde está la estación de tren más cercana?",
    "Как выбрать размер пакета для обучения модели?",
    "東京の天気は明日晴れるでしょう。",
    "Hello!",
    "ok",
    "Thanks, that answers my question. What about the second step?",
    "Tell me more about that.",
)


def prepare(model: Any) -> Any:
    """`model` (the fp32 graph as `minilm_graphs.lookup_outside` leaves it; changed in place and returned)
    smoothed where `SMOOTHED` says and with per-token scales on the down projections' inputs."""
    return per_token(smooth(model, calibrate(model)))


def calibrate(
    model: Any, texts: Sequence[str] = CALIBRATION, weights: tuple[str, ...] = SMOOTHED
) -> dict[str, NDArray[np.float32]]:
    """max |x| per input channel of each product with one of `weights` (by the weight's name) over
    `texts`, each run alone through the fp32 graph `model` (an onnx ModelProto taking `WORD_VECTORS`)."""
    import onnxruntime as ort

    inputs = {n.input[1]: n.input[0] for n in model.graph.node if _product(n, weights)}
    probe = type(model)()
    probe.CopyFrom(model)
    known = {o.name for o in probe.graph.output}
    for name in sorted(set(inputs.values()) - known):
        probe.graph.output.add().name = name
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    opts.log_severity_level = 3
    session = ort.InferenceSession(
        probe.SerializeToString(),
        opts,
        providers=["CPUExecutionProvider"],
        disabled_optimizers=[SKIP_NORM_FUSION],
    )
    model_dir = assets.model_dir()
    tokenizer = assets.load_tokenizer(model_dir, truncate_to=assets.max_seq_length(model_dir))
    words = assets.WordRows(model_dir / "model.safetensors")
    wanted = sorted(set(inputs.values()))
    peaks: dict[str, NDArray[np.float32]] = {}
    for text in texts:
        ids = np.asarray([tokenizer.encode(text).ids], np.int64)
        feeds = {WORD_VECTORS: words.take(ids), "attention_mask": np.ones_like(ids)}
        for name, value in zip(wanted, session.run(wanted, feeds), strict=True):
            peak = np.abs(value).reshape(-1, value.shape[-1]).max(axis=0)
            peaks[name] = np.maximum(peaks[name], peak) if name in peaks else peak
    return {weight: peaks[act].astype(np.float32) for weight, act in inputs.items()}


def smooth(model: Any, peaks: dict[str, NDArray[np.float32]], alpha: float = ALPHA) -> Any:
    """`model` (changed in place and returned) with the input of each product whose weight `peaks` names
    divided by s and the weight's rows multiplied by s (see the module's docstring)."""
    from onnx import helper, numpy_helper

    graph = model.graph
    tensors = {t.name: t for t in graph.initializer}
    nodes: list[Any] = []
    for node in graph.node:
        name = node.input[1] if _product(node, tuple(peaks)) else ""
        if name in peaks:
            weight = numpy_helper.to_array(tensors[name]).astype(np.float32)
            rows = np.maximum(np.abs(weight).max(axis=1), _FLOOR)
            scale = np.maximum(np.maximum(peaks[name], _FLOOR) ** alpha / rows ** (1 - alpha), _FLOOR)
            tensors[name].CopyFrom(
                numpy_helper.from_array((weight * scale[:, None]).astype(np.float32), name)
            )
            inverse = name + ".smooth"
            graph.initializer.append(numpy_helper.from_array((1.0 / scale).astype(np.float32), inverse))
            smoothed = f"{node.input[0]}.{name}.smoothed"  # one input may feed two products
            nodes.append(helper.make_node("Mul", [node.input[0], inverse], [smoothed], name=inverse))
            node.input[0] = smoothed
        nodes.append(node)
    _replace_nodes(graph, nodes)
    return model


def per_token(model: Any) -> Any:
    """`model` (changed in place and returned) with each down projection's input divided, row by row, by
    its largest value (at least `_GELU_MIN`, so every value lands in [-1, 1]) and the product's row
    multiplied back by it: the same product to float rounding, with per-token activation scales once
    quantised (see the module's docstring)."""
    from onnx import helper, numpy_helper

    graph = model.graph
    nodes: list[Any] = []
    for node in graph.node:
        if not _product(node, (DOWN_WEIGHT,)):
            nodes.append(node)
            continue
        p = node.input[1] + ".token"
        floor = p + "_floor"
        graph.initializer.append(numpy_helper.from_array(np.array(_GELU_MIN, np.float32), floor))
        x, out = node.input[0], node.output[0]
        node.input[0], node.output[0] = p + "_x", p + "_y"
        nodes += [
            helper.make_node("ReduceMax", [x], [p + "_max"], name=p + "_max", axes=[-1], keepdims=1),
            helper.make_node("Max", [p + "_max", floor], [p + "_peak"], name=p + "_peak"),
            helper.make_node("Div", [x, p + "_peak"], [p + "_x"], name=p + "_div"),
            node,
            helper.make_node("Mul", [p + "_y", p + "_peak"], [out], name=p + "_mul"),
        ]
    _replace_nodes(graph, nodes)
    return model


def _replace_nodes(graph: Any, nodes: list[Any]) -> None:
    """The graph's nodes become `nodes` (copies: some of them are the graph's own, cleared first)."""
    copies = [type(n)() for n in nodes]
    for copy, node in zip(copies, nodes, strict=True):
        copy.CopyFrom(node)
    del graph.node[:]
    graph.node.extend(copies)


def _product(node: Any, weights: tuple[str, ...]) -> bool:
    return node.op_type in _PRODUCTS and len(node.input) > 1 and node.input[1].endswith(weights)
