"""The MiniLM ONNX graphs, built once from the bundled weights and kept as files in the data dir.

Building the graph from the safetensors costs a second and a second copy of the weights in memory at
every load; onnxruntime loading a serialised graph from a file costs neither. Three precisions:

- ``fp32``: the graph of :mod:`lectern.embeddings.minilm_onnx`, for documents (and queries if asked);
  its residual norms are Add + LayerNormalization, not onnxruntime's slower SkipLayerNormalization
  kernel (`minilm_onnx.unfuse_skip_norms`; since graph version 4, ~7 % less CPU per chunk). Since
  graph version 5 its word-embedding lookup is outside the graph too (`lookup_outside`): the vectors
  are bit for bit the same, and the 47 MB table no longer stays mapped into a server that embeds.
- ``int8``: the same graph dynamically quantised (int8 weights per output channel, activations
  quantised per call) for queries: about 40% less CPU per query. The word embeddings stay fp32 (a
  gather, not a product) and so does every layer's feed-forward down projection, whose input (the
  GELU's output, long-tailed) loses most to 8-bit activations: cosine to the fp32 vectors >= 0.995 on
  SciFact's and textbook-a's questions, >= 0.99 on the reference texts (with the down projections
  quantised too, 0.990 and 0.980). Documents keep fp32 vectors. The weights are signed (s8) where the
  CPU multiplies unsigned activations by signed weights exactly (VNNI); on x86 CPUs without it
  onnxruntime's u8 x s8 kernels add pairs of products in 16 bits, which saturate (cosine 0.981 on the
  reference texts on an AVX2 EPYC), so there the weights are unsigned (u8 x u8 widens first: 0.988,
  for the same CPU per query). `int8_weights` tells which; the file's key says which it holds. Its
  word-embedding lookup is outside the graph (`lookup_outside`) as the fp32 graph's it is quantised
  from: the graph takes the token rows, read from the weights file.
- ``int8-partial``: the same recipe on fewer products, for documents when asked
  (``LECTERN_EMBEDDING_DOCUMENT_PRECISION=int8-partial``): only the attention-output and feed-forward
  up projections (5/12 of the layers' matrix FLOPs); the QKV products and the attention stay fp32.
  On textbook-a's chunks: ~24 % less CPU than fp32 (the ``int8`` graph: ~38 %), cosine to the fp32
  vectors >= 0.9957, mean 0.9984 (``int8``: >= 0.9949, mean 0.9975); bench/partial_int8_study.py.
- ``int8-smooth``: every product of the layers 8-bit, for chunks and their sentences when asked
  (``LECTERN_EMBEDDING_DOCUMENT_PRECISION=int8``). The fp32 graph is first prepared
  (`minilm_smooth.prepare`): SmoothQuant moves the outlier channels of the LayerNorm outputs feeding
  the QKV and up products into their weights, and the feed-forward down projections (whose GELU input
  is long-tailed by token, not by channel) get per-token activation scales; then every product is
  quantised as in ``int8``. Cosine to the fp32 vectors >= 0.9958
  (mean 0.9987) on the reference texts, against 0.9903 for ``int8``, and about a third less CPU per text
  than ``int8`` (bench/smooth_int8_study.py). Queries keep the ``int8`` graph: the answerability
  decision is fitted to its question vectors. Its recipe is `SMOOTH_RECIPE`.

Nothing is downloaded: both are derived from the installed model package. A file's name carries a key
of what it was built from (the weights' size and time, the builder's version, onnxruntime's); its
sidecar ``.json`` records the sha256 of the weights and of the graph. The graph's tensors live in a
``.onnx.data`` file beside it, which onnxruntime memory-maps. Files are written under a temporary
name and renamed, so processes building at once never read half a file.

Once a graph is built, the cache drops the graphs of older recipes (`remove_stale`): ~112 MB a
GRAPH_VERSION bump would otherwise leave behind for good.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import platform
import re
import shutil
import tempfile
import time
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

from lectern.apart import run_apart
from lectern.embeddings import minilm_assets as assets
from lectern.embeddings.minilm_onnx import WORD_VECTORS, Flavour, build_model
from lectern.embeddings.weight_quant import vectorised

log = logging.getLogger(__name__)

Precision = Literal["fp32", "int8", "int8-partial", "int8-smooth"]
Int8Weights = Literal["s8", "u8"]
# Bump when build_model or the quantisation recipe changes: older files are then rebuilt.
# 4: the fp32 graph's norms unfused too (vectors within ~2e-7 of version 3's); 5: its word lookup
# outside too (the same vectors bit for bit; the int8 graph, already so, is rebuilt the same)
GRAPH_VERSION = 5
# Bump when only the int8 recipe changes (the fp32 graphs, and document vectors, stay as they are).
INT8_RECIPE = 3  # 3: the word-embedding lookup outside the graph
# The ``int8-smooth`` graph's recipe (numbered after the int8 recipes it grew from); bump when it changes.
SMOOTH_RECIPE = 4  # 4: smoothed QKV and up inputs, per-token down projections, every product int8
_RECIPES: dict[str, int] = {"int8": INT8_RECIPE, "int8-partial": INT8_RECIPE, "int8-smooth": SMOOTH_RECIPE}
# The weights whose products the ``int8-partial`` graph quantises (see the module's docstring).
PARTIAL_PRODUCTS = (".out_w", ".up_w")
_WORD_TABLE = "word_emb"  # the initializer build_model names
# The three files of one graph, as `_graph_file` names them: the graph, its tensors, its sidecar.
_GRAPH_FILE = re.compile(
    r"(minilm-(fused|standard)-(fp32|int8|int8-partial|int8-smooth)-[0-9a-f]{16})\.(onnx|onnx\.data|json)"
)
_BUILDING = "minilm-building-"  # the prefix of a build's temporary folder
_ABANDONED_S = 24 * 3600  # a build takes a minute at most: a folder this old is a killed process's
# Cache folders where this process built an fp32 graph itself (`build_apart`).
_BUILT_HERE: set[Path] = set()


def graph_path(cache_dir: Path, flavour: Flavour, precision: Precision) -> Path:
    """The graph file, built now if missing (under a second of CPU each on 2 cores)."""
    model_dir = assets.model_dir()
    path = _graph_file(cache_dir, flavour, precision)
    if _valid(path):
        return path
    cache_dir.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    import onnx

    with tempfile.TemporaryDirectory(dir=cache_dir, prefix=_BUILDING) as tmp:
        if precision == "fp32":
            built = build_model(assets.load_weights(model_dir), assets.load_config(model_dir), flavour)
            model = lookup_outside(built)
            _BUILT_HERE.add(cache_dir.resolve())
        else:
            quantised = Path(tmp) / "int8-one-file.onnx"
            # the lookup already outside
            quantise(
                graph_path(cache_dir, flavour, "fp32"),
                quantised,
                partial=precision == "int8-partial",
                smooth=precision == "int8-smooth",
            )
            model = lookup_outside(onnx.load(str(quantised)))
        # The weights go to a file of their own beside the graph: onnxruntime memory-maps it instead
        # of parsing them into a protobuf and copying them out (80 MB less at the peak for int8).
        staged = Path(tmp) / path.name
        onnx.save(
            model,
            str(staged),
            save_as_external_data=True,
            all_tensors_to_one_file=True,
            location=_data_file(path).name,
            size_threshold=1024,
        )
        os.replace(_data_file(staged), _data_file(path))  # the data first: the graph names it
        os.replace(staged, path)
    for written in (path, _data_file(path)):
        os.chmod(written, 0o644)  # like any file the data dir holds, not the temporary folder's 0700
    weights = model_dir / "model.safetensors"
    sidecar = {
        "graph_version": GRAPH_VERSION,
        "flavour": flavour,
        "precision": precision,
        "onnxruntime": _ort_version(),
        "weights": str(weights),
        "weights_sha256": _weights_sha256(str(weights), weights.stat().st_size, weights.stat().st_mtime_ns),
        "graph_sha256": _sha256(path),
        "graph_bytes": path.stat().st_size,
        "data_sha256": _sha256(_data_file(path)),
        "data_bytes": _data_file(path).stat().st_size,
    }
    recipe = recipe_of(precision)
    if recipe is not None:
        sidecar["int8_recipe"] = recipe
        sidecar["int8_weights"] = int8_weights()
    _write_atomic(path.with_suffix(".json"), json.dumps(sidecar, indent=2).encode())
    log.info(
        "minilm_graph_built",
        extra={"path": str(path), "precision": precision, "seconds": round(time.perf_counter() - started, 2)},
    )
    remove_stale(cache_dir)
    return path


def remove_stale(cache_dir: Path) -> list[str]:
    """Remove the graphs of older recipes from `cache_dir`; the names of the graphs removed.

    Only files named by `_graph_file`'s scheme are touched, and only those of a recipe older than this
    code's, which no process of this version or a later one ever loads: a graph whose name is the key
    an older GRAPH_VERSION or INT8_RECIPE gives with these weights and this onnxruntime, or whose
    sidecar records an older graph version, int8 recipe or onnxruntime. Graphs of the current recipe,
    newer ones, and any whose age cannot be told are kept. Called after a new graph is written, so the
    files replaced are those an upgrade left behind. On Linux a process that still maps a removed file
    keeps its pages. Files another process removes first, and a cache this process may not write to
    (a read-only mount, another user's files), are passed over. Build folders of a killed process (a
    day old) go too."""
    try:
        names = [entry.name for entry in os.scandir(cache_dir)]
    except OSError:
        return []
    older = _older_keys()
    removed: list[str] = []
    for stem in sorted({m.group(1) for m in map(_GRAPH_FILE.fullmatch, names) if m}):
        graph = cache_dir / f"{stem}.onnx"
        if not (stem in older or _sidecar_older(graph.with_suffix(".json"))):
            continue
        # the graph first (no process finds it valid from then on), the sidecar last (what tells its age)
        if all(_unlink(file) for file in (graph, _data_file(graph), graph.with_suffix(".json"))):
            removed.append(graph.name)
    for name in names:
        folder = cache_dir / name
        if name.startswith(_BUILDING) and _age_s(folder) > _ABANDONED_S:
            shutil.rmtree(folder, ignore_errors=True)
    if removed:
        log.info("minilm_graphs_removed", extra={"cache_dir": str(cache_dir), "graphs": removed})
    return removed


def build_apart(cache_dir: Path, flavour: Flavour, precision: Precision, timeout_s: float = 600.0) -> bool:
    """`graph_path` in a Python process of its own when the graph is missing: building the int8 graph
    (the fp32 graph, the quantiser) peaks at ~620 MB, which a server's peak resident memory would keep
    recording after an upgrade. Whether the graph is there now; if not, `graph_path` builds it in this
    process, as before. A process that built the fp32 graph in `cache_dir` itself (a cold `lectern
    ingest`) builds the int8 graph in process: right after that build it reuses the memory the build
    freed (a fresh process measured 423 MB after the fp32 build and after both), and no interpreter and
    imports are paid for (~0.3 s of CPU)."""
    if _valid(_graph_file(cache_dir, flavour, precision)):
        return True
    if cache_dir.resolve() in _BUILT_HERE:
        graph_path(cache_dir, flavour, precision)
        return True
    code = "import sys; from pathlib import Path; from lectern.embeddings.minilm_graphs import graph_path; "
    code += "graph_path(Path(sys.argv[1]), sys.argv[2], sys.argv[3])"
    args = [str(cache_dir), flavour, precision]
    run_apart(code, args, timeout_s=timeout_s, event="minilm_graph_not_built_apart")
    return _valid(_graph_file(cache_dir, flavour, precision))


def quantise(source: Path, target: Path, *, partial: bool = False, smooth: bool = False) -> None:
    """Dynamic int8 quantisation of the fp32 graph at `source` (see the module's docstring); `partial`:
    only the attention-output and feed-forward up products (`PARTIAL_PRODUCTS`); `smooth`: every
    product, after `minilm_smooth.prepare` (the ``int8-smooth`` graph)."""
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    model = onnx.load(str(source))
    keep_fp32 = [node.name for node in model.graph.node if any(i.endswith(".down_w") for i in node.input)]
    only = [n.name for n in model.graph.node if any(i.endswith(PARTIAL_PRODUCTS) for i in n.input)]
    if smooth:
        from lectern.embeddings import minilm_smooth

        keep_fp32 = []
        source = target.with_name(target.stem + "-smoothed.onnx")  # beside `target`: the build's folder
        prepared = minilm_smooth.prepare(model)
        onnx.save(prepared, str(source), save_as_external_data=True, location=source.name + ".data")
    del model
    root = logging.getLogger()
    level = root.level
    root.setLevel(logging.ERROR)  # the quantiser logs a pre-processing hint on the root logger
    try:
        with vectorised():  # the same weights, a second less CPU than channel by channel
            quantize_dynamic(
                str(source),
                str(target),
                weight_type=QuantType.QUInt8 if int8_weights() == "u8" else QuantType.QInt8,
                per_channel=True,
                op_types_to_quantize=["MatMul", "Attention"],
                nodes_to_exclude=keep_fp32,
                nodes_to_quantize=only if partial else None,
                # com.microsoft ops have no ONNX shape inference; their outputs are float
                extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT},
            )
    finally:
        root.setLevel(level)


def lookup_outside(model: Any) -> Any:
    """The graph without its word-embedding table: input `WORD_VECTORS` (float32, [batch, seq, hidden])
    takes the rows the Gather on input_ids would have produced (`minilm_assets.WordRows` reads them),
    and the sequence length comes from the attention mask. The rest of the graph adds the very same
    floats, so its outputs are unchanged; the 47 MB table is no longer mapped into the process. A graph
    already without the lookup comes back as it is."""
    from onnx import TensorProto, helper

    graph = model.graph
    gathers = [n for n in graph.node if n.op_type == "Gather" and n.input[0] == _WORD_TABLE]
    if not gathers and any(i.name == WORD_VECTORS for i in graph.input):
        return model
    (gather,) = gathers
    table = next(t for t in graph.initializer if t.name == _WORD_TABLE)
    renamed = {gather.output[0]: WORD_VECTORS, "input_ids": "attention_mask"}
    for node in graph.node:
        node.input[:] = [renamed.get(name, name) for name in node.input]
    graph.node.remove(gather)
    graph.initializer.remove(table)
    (ids,) = [i for i in graph.input if i.name == "input_ids"]
    rows = helper.make_tensor_value_info(WORD_VECTORS, TensorProto.FLOAT, ["batch", "seq", table.dims[1]])
    graph.input.remove(ids)
    graph.input.insert(0, rows)
    return model


def _graph_file(cache_dir: Path, flavour: Flavour, precision: Precision) -> Path:
    return cache_dir / f"minilm-{flavour}-{precision}-{_key(assets.model_dir(), flavour, precision)}.onnx"


def _key(model_dir: Path, flavour: Flavour, precision: Precision) -> str:
    return _recipe_key(model_dir, flavour, precision, GRAPH_VERSION, recipe_of(precision), int8_weights())


def recipe_of(precision: Precision) -> int | None:
    """The current recipe of an int8 `precision`'s graph (None for fp32)."""
    return _RECIPES.get(precision)


def _recipe_key(
    model_dir: Path,
    flavour: Flavour,
    precision: Precision,
    version: int,
    int8_recipe: int | None,
    weights: Int8Weights = "s8",
) -> str:
    stat = (model_dir / "model.safetensors").stat()
    recipe = f"|int8-{int8_recipe}" if precision != "fp32" and int8_recipe is not None else ""
    if recipe and weights == "u8":  # signed weights keep the key they always had
        recipe += "|u8"
    raw = f"{version}|{flavour}|{precision}|{stat.st_size}|{stat.st_mtime_ns}|{_ort_version()}{recipe}"
    return hashlib.sha256(raw.encode()).hexdigest()[:16]


@lru_cache(maxsize=1)
def int8_weights() -> Int8Weights:
    """The int8 graph's weight type on this CPU: unsigned on x86 without VNNI (see the module's
    docstring), signed elsewhere (VNNI, other architectures, a CPU whose flags cannot be read)."""
    if platform.machine().lower() not in {"x86_64", "amd64"}:
        return "s8"
    flags = _cpu_flags()
    if not flags or flags & {"avx512_vnni", "avx_vnni", "amx_int8"}:
        return "s8"
    return "u8"


def _cpu_flags() -> set[str]:
    """The CPU's feature flags from /proc/cpuinfo (Linux); empty where there is none."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            for line in info:
                if line.startswith("flags"):
                    return set(line.partition(":")[2].split())
    except OSError:
        pass
    return set()


def _older_keys() -> set[str]:
    """The file stems every older recipe gives with these weights and this onnxruntime (int8 keys had
    no recipe part before INT8_RECIPE)."""
    model_dir = assets.model_dir()
    recipes: list[tuple[Precision, int | None]] = [("fp32", None), ("int8", None)]
    recipes += [("int8", r) for r in range(1, INT8_RECIPE + 1)]
    recipes += [("int8-partial", r) for r in range(1, INT8_RECIPE + 1)]
    recipes += [("int8-smooth", SMOOTH_RECIPE)]  # its first recipe: older graph versions only
    flavours: tuple[Flavour, ...] = ("fused", "standard")
    stems: set[str] = set()
    for flavour in flavours:
        for version in range(1, GRAPH_VERSION + 1):
            for precision, recipe in recipes:
                if version == GRAPH_VERSION and recipe == recipe_of(precision):
                    continue  # the current recipe
                key = _recipe_key(model_dir, flavour, precision, version, recipe)
                stems.add(f"minilm-{flavour}-{precision}-{key}")
    return stems


def _sidecar_older(sidecar: Path) -> bool:
    """The sidecar records an older graph version, int8 recipe or onnxruntime than this code's."""
    try:
        meta: dict[str, Any] = json.loads(sidecar.read_text(encoding="utf-8"))
        version = int(meta["graph_version"])
    except (OSError, ValueError, KeyError, TypeError):
        return False  # missing, half-written or not ours: its age cannot be told
    if version != GRAPH_VERSION:
        return version < GRAPH_VERSION
    recipe = meta.get("int8_recipe")
    current = _RECIPES.get(str(meta.get("precision")))
    if current is not None and isinstance(recipe, int) and recipe < current:
        return True
    return _older_release(str(meta.get("onnxruntime", "")), _ort_version())


def _older_release(theirs: str, ours: str) -> bool:
    """`theirs` is an earlier release than `ours` by their leading numbers (1.22.1 < 1.23.0); False
    where either has none."""
    numbers = [re.match(r"\d+(?:\.\d+)*", v) for v in (theirs, ours)]
    if not all(numbers):
        return False
    first, second = (tuple(int(n) for n in m.group().split(".")) for m in numbers if m)
    return first < second


def _unlink(path: Path) -> bool:
    """Whether `path` is gone: removed now, or by another process before."""
    try:
        path.unlink(missing_ok=True)
    except OSError as exc:  # read-only file system, another user's file, Windows' open files
        log.debug("minilm_graph_not_removed", extra={"path": str(path), "error": str(exc)})
        return False
    return True


def _age_s(path: Path) -> float:
    try:
        return time.time() - path.stat().st_mtime
    except OSError:
        return 0.0


def _valid(path: Path) -> bool:
    """The graph and its sidecar exist and agree on the size (a cheap check; the key covers the rest)."""
    sidecar = path.with_suffix(".json")
    if not path.is_file() or not sidecar.is_file():
        return False
    try:
        meta: dict[str, Any] = json.loads(sidecar.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    data = _data_file(path)
    return (
        data.is_file()
        and meta.get("graph_bytes") == path.stat().st_size
        and meta.get("data_bytes") == data.stat().st_size
    )


def _data_file(graph: Path) -> Path:
    return graph.with_name(graph.name + ".data")


def _write_atomic(path: Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.chmod(tmp, 0o644)  # like any file the data dir holds, not mkstemp's 0600
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


@lru_cache(maxsize=2)
def _weights_sha256(path: str, size: int, mtime_ns: int) -> str:
    """The weights' digest, once per process while the file stays the same (both graphs record it)."""
    del size, mtime_ns  # the cache key
    return _sha256(Path(path))


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _ort_version() -> str:
    import onnxruntime

    return str(onnxruntime.__version__)
