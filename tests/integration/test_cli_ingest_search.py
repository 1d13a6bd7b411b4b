"""`lectern ingest`, `search`, `index stats` end to end with the real model and LanceDB."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lectern.cli import app

pytestmark = pytest.mark.integration

GAZEBO = """---
title: Simulation with Gazebo
---

# Simulation with Gazebo

## Installing Gazebo Harmonic

Install Gazebo Harmonic on Ubuntu with `sudo apt install ros-jazzy-ros-gz`, then start it with `gz sim`.

## Physics engines

Gazebo can run the DART, Bullet or ODE physics engines; DART is the default.
"""

URDF = """# Robot descriptions

## URDF links and joints

A URDF file describes a robot as links connected by joints, each joint with a parent and a child link.
"""


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("cli")
    docs = base / "docs"
    (docs / "module-2-simulation").mkdir(parents=True)
    (docs / "module-1-ros").mkdir()
    (docs / "module-2-simulation" / "gazebo.md").write_text(GAZEBO, encoding="utf-8")
    (docs / "module-1-ros" / "urdf.md").write_text(URDF, encoding="utf-8")
    (docs / "broken.pdf").write_bytes(b"%PDF-1.4 not really a pdf")
    data = base / "data"
    runner = CliRunner()
    result = runner.invoke(
        app, ["--data-dir", str(data), "ingest", str(docs), "--base-url", "https://example.com/book"]
    )
    assert result.exit_code == 0, result.output
    assert "files added" in result.output
    assert "broken.pdf" in result.output  # reported as skipped, the run goes on
    v2 = base / "docs-v2"
    v2.mkdir()
    (v2 / "intro.md").write_text("# Version two\n\nVersion two adds a navigation stack.\n", encoding="utf-8")
    result = runner.invoke(app, ["--data-dir", str(data), "ingest", str(v2), "--collection", "v2"])
    assert result.exit_code == 0, result.output
    return data


def search(data_dir: Path, *args: str) -> list[dict[str, object]]:
    result = CliRunner().invoke(app, ["--data-dir", str(data_dir), "search", *args, "--json"])
    assert result.exit_code == 0, result.output
    hits: list[dict[str, object]] = json.loads(result.output)
    return hits


@pytest.mark.parametrize("mode", ["hybrid", "dense", "keyword"])
def test_search_finds_the_install_section(data_dir: Path, mode: str) -> None:
    hits = search(data_dir, "how do I install gazebo", "--mode", mode)
    assert hits[0]["url"] == "https://example.com/book/module-2-simulation/gazebo#installing-gazebo-harmonic"
    assert hits[0]["section"] == "Installing Gazebo Harmonic"
    assert hits[0]["module_name"] == "Module 2 Simulation"
    assert 0.0 <= float(hits[0]["similarity"]) <= 1.0  # type: ignore[arg-type]


def test_filters_restrict_results(data_dir: Path) -> None:
    hits = search(data_dir, "robot joints", "--filter", "module_name=Module 2 Simulation", "--top-k", "10")
    assert hits
    assert {h["module_name"] for h in hits} == {"Module 2 Simulation"}
    hits = search(data_dir, "robot joints", "--filter", "url_prefix=https://example.com/book/module-1-ros")
    assert {h["source_path"] for h in hits} == {"module-1-ros/urdf.md"}


def test_collections_live_side_by_side(data_dir: Path) -> None:
    hits = search(data_dir, "navigation stack", "--collection", "v2")
    assert {h["source_path"] for h in hits} == {"intro.md"}
    hits = search(data_dir, "navigation stack")
    assert "intro.md" not in {h["source_path"] for h in hits}


def test_index_stats(data_dir: Path) -> None:
    result = CliRunner().invoke(app, ["--data-dir", str(data_dir), "index", "stats", "--json"])
    assert result.exit_code == 0, result.output
    stats = json.loads(result.output)
    assert stats["documents"] == 2
    assert stats["chunks"] >= 3
    assert stats["embedder_name"] == "local:all-MiniLM-L6-v2"
    assert stats["dimension"] == 384


def test_bad_filter_is_one_clear_error(data_dir: Path) -> None:
    result = CliRunner().invoke(app, ["--data-dir", str(data_dir), "search", "x", "--filter", "nonsense"])
    assert result.exit_code == 1
    assert "key=value" in result.output
    assert "Traceback" not in result.output
