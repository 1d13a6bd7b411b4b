"""all-MiniLM-L6-v2 as an ONNX graph built from the safetensors weights, run by onnxruntime.

There is no torch to export from, so the BERT graph is written out node by node with ``onnx.helper``.
Two flavours: ``standard`` uses only ONNX-standard ops (portable); ``fused`` uses onnxruntime's
``com.microsoft`` Attention and BiasGelu kernels, which are what onnxruntime's own transformer
optimiser produces and run fastest on CPU. Its residual norms are plain Add + Add +
LayerNormalization, not the optimiser's SkipLayerNormalization (see `unfuse_skip_norms`), and every
session is created without the rewrite that would fuse them back (`SKIP_NORM_FUSION`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

import numpy as np

from lectern.embeddings.minilm_assets import BertConfig, Weights, WordRows
from lectern.embeddings.minilm_numpy import F32, I64

Flavour = Literal["fused", "standard"]
WORD_VECTORS = "word_vectors"  # the input of a graph whose word lookup is outside (minilm_graphs)
OPSET = 17  # first opset with LayerNormalization
IR_VERSION = 8  # what opset 17 needs; onnx would stamp its newest, which older runtimes refuse
_MS = "com.microsoft"
# onnxruntime's graph rewrite that would turn Add + LayerNormalization back into the com.microsoft
# SkipLayerNormalization kernel (see `unfuse_skip_norms`); no session of these graphs applies it.
SKIP_NORM_FUSION = "SkipLayerNormFusion"


class _GraphBuilder:
    """Collects nodes and initializers; each helper returns the name of its output."""

    def __init__(self) -> None:
        from onnx import helper, numpy_helper

        self._helper = helper
        self._numpy_helper = numpy_helper
        self.nodes: list[Any] = []
        self.initializers: list[Any] = []
        self._n = 0

    def const(self, name: str, value: np.ndarray[Any, Any]) -> str:
        # np.array, not np.ascontiguousarray: the latter turns 0-d scalars into shape (1,).
        self.initializers.append(self._numpy_helper.from_array(np.array(value, order="C"), name))
        return name

    def op(self, op_type: str, inputs: list[str], domain: str = "", **attrs: Any) -> str:
        self._n += 1
        out = f"{op_type.lower()}_{self._n}"
        # named after its output: the quantiser picks nodes to leave alone by name
        self.nodes.append(
            self._helper.make_node(op_type, inputs, [out], name=out, domain=domain or None, **attrs)
        )
        return out


def build_model(
    weights: Weights, config: BertConfig, flavour: Flavour = "fused", *, skip_norm_kernel: bool = False
) -> Any:
    """An ``onnx.ModelProto``: inputs input_ids, attention_mask (int64, [batch, seq]);
    output ``pooled`` (float32, [batch, hidden]): mean over the mask, not yet normalised.
    `skip_norm_kernel`: the fused flavour's norms as com.microsoft SkipLayerNormalization (the graph
    before `unfuse_skip_norms`, which the vectors of graph version 3 and older came from)."""
    from onnx import TensorProto, helper

    g = _GraphBuilder()
    h, eps = config.hidden_size, config.layer_norm_eps
    e = "embeddings."
    word = g.const("word_emb", weights[e + "word_embeddings.weight"])
    pos_table = weights[e + "position_embeddings.weight"] + weights[e + "token_type_embeddings.weight"][0]
    pos = g.const("pos_emb", pos_table.astype(np.float32))

    seq_len = g.op("Shape", ["input_ids"], start=1, end=2)
    pos_rows = g.op("Slice", [pos, g.const("zero_1d", np.array([0], np.int64)), seq_len])
    x = g.op("Add", [g.op("Gather", [word, "input_ids"]), pos_rows])
    x = g.op(
        "LayerNormalization",
        [
            x,
            g.const("emb_ln_g", weights[e + "LayerNorm.weight"]),
            g.const("emb_ln_b", weights[e + "LayerNorm.bias"]),
        ],
        epsilon=eps,
        axis=-1,
    )
    mask_f = g.op("Cast", ["attention_mask"], to=TensorProto.FLOAT)
    if flavour == "fused":
        mask_arg = g.op("Cast", ["attention_mask"], to=TensorProto.INT32)
    else:
        # Additive mask [b, 1, 1, s]: padded keys get -1e9 before the softmax.
        shifted = g.op("Sub", [mask_f, g.const("one", np.array(1.0, np.float32))])
        scaled = g.op("Mul", [shifted, g.const("big", np.array(1e9, np.float32))])
        mask_arg = g.op("Unsqueeze", [scaled, g.const("axes_12", np.array([1, 2], np.int64))])

    for i in range(config.num_layers):
        x = _layer(g, weights, config, f"encoder.layer.{i}.", x, mask_arg, flavour)

    mask_3d = g.op("Unsqueeze", [mask_f, g.const("axes_2", np.array([2], np.int64))])
    summed = g.op(
        "ReduceSum", [g.op("Mul", [x, mask_3d]), g.const("axes_1", np.array([1], np.int64))], keepdims=0
    )
    counts = g.op("ReduceSum", [mask_f, g.const("axes_1b", np.array([1], np.int64))], keepdims=1)
    counts = g.op("Max", [counts, g.const("tiny", np.array(1e-9, np.float32))])
    g.nodes.append(helper.make_node("Div", [summed, counts], ["pooled"]))

    dyn = ["batch", "seq"]
    graph = helper.make_graph(
        g.nodes,
        f"all-MiniLM-L6-v2-{flavour}",
        [
            helper.make_tensor_value_info("input_ids", TensorProto.INT64, dyn),
            helper.make_tensor_value_info("attention_mask", TensorProto.INT64, dyn),
        ],
        [helper.make_tensor_value_info("pooled", TensorProto.FLOAT, ["batch", h])],
        g.initializers,
    )
    opsets = [helper.make_opsetid("", OPSET)]
    if flavour == "fused":
        opsets.append(helper.make_opsetid(_MS, 1))
    model = helper.make_model(graph, opset_imports=opsets, producer_name="lectern", ir_version=IR_VERSION)
    return model if skip_norm_kernel else unfuse_skip_norms(model)


def unfuse_skip_norms(model: Any) -> Any:
    """Each com.microsoft SkipLayerNormalization as the two Adds and the LayerNormalization it stands
    for. onnxruntime's CPU kernel for it is slower than the three plain ops: ~35 us a call against
    ~5 us on one query's 20 x 384 activations (12 calls a query, ~0.4 ms of its ~4.8 ms), and on a
    textbook's chunks (batches of up to 32 x 256) the fp32 document graph costs ~7 % less CPU. The
    sums round differently: vectors within ~2e-7 of the fused kernel's (cosine > 0.9999998)."""
    from onnx import helper

    nodes = []
    for node in model.graph.node:
        if node.op_type != "SkipLayerNormalization" or node.domain != _MS:
            nodes.append(node)
            continue
        x, skip, gamma, beta, bias = node.input
        epsilon = next(a.f for a in node.attribute if a.name == "epsilon")
        (out,) = node.output
        biased, summed = f"{node.name}_biased", f"{node.name}_sum"
        nodes += [
            helper.make_node("Add", [x, bias], [biased], name=biased),
            helper.make_node("Add", [biased, skip], [summed], name=summed),
            helper.make_node(
                "LayerNormalization", [summed, gamma, beta], [out], name=node.name, epsilon=epsilon, axis=-1
            ),
        ]
    del model.graph.node[:]
    model.graph.node.extend(nodes)
    return model


def _layer(g: _GraphBuilder, w: Weights, cfg: BertConfig, p: str, x: str, mask: str, flavour: Flavour) -> str:
    att = p + "attention."
    names = ("query", "key", "value")
    qkv_w = np.concatenate([w[f"{att}self.{n}.weight"] for n in names], axis=0).T
    qkv_b = np.concatenate([w[f"{att}self.{n}.bias"] for n in names])
    out_w, out_b = w[att + "output.dense.weight"].T, w[att + "output.dense.bias"]
    up_w, up_b = w[p + "intermediate.dense.weight"].T, w[p + "intermediate.dense.bias"]
    down_w, down_b = w[p + "output.dense.weight"].T, w[p + "output.dense.bias"]
    ln1 = [
        g.const(p + "ln1_g", w[att + "output.LayerNorm.weight"]),
        g.const(p + "ln1_b", w[att + "output.LayerNorm.bias"]),
    ]
    ln2 = [
        g.const(p + "ln2_g", w[p + "output.LayerNorm.weight"]),
        g.const(p + "ln2_b", w[p + "output.LayerNorm.bias"]),
    ]
    eps = cfg.layer_norm_eps

    if flavour == "fused":
        ctx = g.op(
            "Attention",
            [x, g.const(p + "qkv_w", qkv_w), g.const(p + "qkv_b", qkv_b), mask],
            domain=_MS,
            num_heads=cfg.num_heads,
        )
        proj = g.op("MatMul", [ctx, g.const(p + "out_w", out_w)])
        x = g.op(
            "SkipLayerNormalization", [proj, x, *ln1, g.const(p + "out_b", out_b)], domain=_MS, epsilon=eps
        )
        up = g.op("MatMul", [x, g.const(p + "up_w", up_w)])
        act = g.op("BiasGelu", [up, g.const(p + "up_b", up_b)], domain=_MS)
        down = g.op("MatMul", [act, g.const(p + "down_w", down_w)])
        return g.op(
            "SkipLayerNormalization", [down, x, *ln2, g.const(p + "down_b", down_b)], domain=_MS, epsilon=eps
        )

    heads, dim = cfg.num_heads, cfg.head_dim
    qkv = g.op("Add", [g.op("MatMul", [x, g.const(p + "qkv_w", qkv_w)]), g.const(p + "qkv_b", qkv_b)])
    qkv = g.op("Reshape", [qkv, g.const(p + "qkv_shape", np.array([0, 0, 3, heads, dim], np.int64))])
    qkv = g.op("Transpose", [qkv], perm=[2, 0, 3, 1, 4])  # (3, b, heads, s, dim)
    q, k, v = (g.op("Gather", [qkv, g.const(f"{p}idx{j}", np.array(j, np.int64))], axis=0) for j in range(3))
    q = g.op("Mul", [q, g.const(p + "scale", np.array(1.0 / np.sqrt(dim), np.float32))])
    scores = g.op("Add", [g.op("MatMul", [q, g.op("Transpose", [k], perm=[0, 1, 3, 2])]), mask])
    probs = g.op("Softmax", [scores], axis=-1)
    ctx = g.op("Transpose", [g.op("MatMul", [probs, v])], perm=[0, 2, 1, 3])
    ctx = g.op("Reshape", [ctx, g.const(p + "ctx_shape", np.array([0, 0, cfg.hidden_size], np.int64))])
    proj = g.op("Add", [g.op("MatMul", [ctx, g.const(p + "out_w", out_w)]), g.const(p + "out_b", out_b)])
    x = g.op("LayerNormalization", [g.op("Add", [proj, x]), *ln1], epsilon=eps, axis=-1)
    up = g.op("Add", [g.op("MatMul", [x, g.const(p + "up_w", up_w)]), g.const(p + "up_b", up_b)])
    # Exact GELU: 0.5 * u * (1 + erf(u / sqrt 2)); onnxruntime fuses this pattern into one kernel.
    erf = g.op("Erf", [g.op("Mul", [up, g.const(p + "rsqrt2", np.array(0.7071067811865476, np.float32))])])
    act = g.op(
        "Mul",
        [
            g.op("Mul", [up, g.op("Add", [erf, g.const(p + "one", np.array(1.0, np.float32))])]),
            g.const(p + "half", np.array(0.5, np.float32)),
        ],
    )
    down = g.op("Add", [g.op("MatMul", [act, g.const(p + "down_w", down_w)]), g.const(p + "down_b", down_b)])
    return g.op("LayerNormalization", [g.op("Add", [down, x]), *ln2], epsilon=eps, axis=-1)


class OnnxMiniLM:
    """Same call as NumpyMiniLM, run by an onnxruntime InferenceSession."""

    _words: WordRows | None
    _shrink: Any = None  # run options that hand the arena's free memory back (`keep_arena_up_to`)
    _kept_tokens = 0

    def __init__(
        self,
        weights: Weights,
        config: BertConfig,
        *,
        threads: int,
        flavour: Flavour | None = None,
        arena: bool = False,
    ) -> None:
        """``flavour=None`` tries ``fused`` and falls back to ``standard`` (a runtime without the
        com.microsoft kernels). The graph is built in memory; :meth:`from_file` loads one that
        :mod:`lectern.embeddings.minilm_graphs` serialised once instead."""
        self.config = config
        last_error: Exception | None = None
        for candidate in (flavour,) if flavour else ("fused", "standard"):
            try:
                graph = build_model(weights, config, candidate).SerializeToString()
                self._session = _session(graph, threads, arena=arena)
            except Exception as exc:  # onnxruntime raises its own untyped Fail/InvalidGraph errors
                last_error = exc
                continue
            self.flavour: Flavour = candidate
            self._words = None
            return
        assert last_error is not None
        raise last_error

    @classmethod
    def from_file(
        cls,
        path: Path,
        config: BertConfig,
        flavour: Flavour,
        *,
        threads: int,
        disabled_optimizers: Sequence[str] = (),
        words: Path | None = None,
        arena: bool = False,
    ) -> OnnxMiniLM:
        """A serialised graph: onnxruntime reads the file itself, with no Python copy of the weights.
        `disabled_optimizers`: onnxruntime graph rewrites not to apply to it (besides `SKIP_NORM_FUSION`,
        never applied). `words`: the weights file
        the rows of a graph that takes `word_vectors` (minilm_graphs.lookup_outside) are read from.
        `arena`: see `_session`."""
        model = cls.__new__(cls)
        model.config = config
        model.flavour = flavour
        model._session = _session(str(path), threads, disabled_optimizers, arena=arena)
        model._words = None
        if any(i.name == WORD_VECTORS for i in model._session.get_inputs()):
            if words is None:
                raise ValueError(f"{path} takes {WORD_VECTORS}: the weights file to read them from is needed")
            model._words = WordRows(words)
        return model

    def keep_arena_up_to(self, tokens: int) -> None:
        """With the arena on, a call of more than `tokens` tokens (rows x width) hands the arena's free
        memory back at its end: the arena then holds what calls up to that size need, not the peak of
        a long text or a batch of sentences."""
        import onnxruntime as ort

        shrink = ort.RunOptions()
        shrink.add_run_config_entry("memory.enable_memory_arena_shrinkage", "cpu:0")
        self._shrink, self._kept_tokens = shrink, tokens

    def __call__(self, input_ids: I64, attention_mask: I64) -> F32:
        feeds: dict[str, np.ndarray[Any, Any]]
        if self._words is None:
            feeds = {"input_ids": input_ids, "attention_mask": attention_mask}
        else:
            feeds = {WORD_VECTORS: self._words.take(input_ids), "attention_mask": attention_mask}
        shrink = self._shrink if self._shrink is not None and input_ids.size > self._kept_tokens else None
        (pooled,) = self._session.run(["pooled"], feeds, shrink)
        return np.asarray(pooled, dtype=np.float32)


def _session(
    model: bytes | str, threads: int, disabled_optimizers: Sequence[str] = (), *, arena: bool = False
) -> Any:
    """`disabled_optimizers`: graph rewrites not to apply besides `SKIP_NORM_FUSION` (never applied).
    `arena`: onnxruntime keeps the memory of one call for the next (the query model's only up to a
    question's size: `OnnxMiniLM.keep_arena_up_to`). Without it every call's buffers are the C library's,
    and a batch's big ones (a layer's activations, attention scores: megabytes) come from the kernel
    afresh at each call: on a textbook's chunks ~200,000 page faults a third of them, ~0.5 s of system CPU
    (4%), where the arena takes ~16,000, holds the same vectors bit for bit and peaks lower (~200 MB
    against ~230 MB resident for that pass).
    """
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    opts.log_severity_level = 3
    # No busy-waiting between kernels: on a small shared box (the API's event loop, the index,
    # other processes) spinning threads steal the very cores they wait for.
    opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
    opts.enable_cpu_mem_arena = arena
    disabled = sorted({SKIP_NORM_FUSION, *disabled_optimizers})
    return ort.InferenceSession(model, opts, providers=["CPUExecutionProvider"], disabled_optimizers=disabled)
