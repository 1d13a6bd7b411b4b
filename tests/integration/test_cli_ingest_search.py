"""`lectern ingest`, `search`, `index stats` end to end with the real model and LanceDB."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import Result
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


def lectern(data_dir: Path, *args: str, stdin: str | None = None) -> Result:
    return CliRunner().invoke(app, ["--data-dir", str(data_dir), *args], input=stdin)


def test_keyword_hits_report_their_real_similarity(data_dir: Path) -> None:
    hits = search(data_dir, "physics engines DART", "--mode", "keyword")
    assert hits
    assert all(float(h["similarity"]) > 0.1 for h in hits)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "command", [["ask", "What is Gazebo?"], ["search", "gazebo"], ["index", "stats"], ["chat"]]
)
def test_an_unknown_collection_is_an_error_that_lists_the_collections(
    data_dir: Path, command: list[str]
) -> None:
    result = lectern(data_dir, *command, "--collection", "nosuch", stdin="")
    assert result.exit_code == 1
    assert "collection 'nosuch' does not exist; collections: docs, v2" in result.output


def test_an_empty_collection_says_to_ingest(data_dir: Path, tmp_path: Path) -> None:
    (tmp_path / "only.rst").write_text("Title\n=====\n\nText.\n", encoding="utf-8")
    result = lectern(data_dir, "ingest", str(tmp_path), "--collection", "empty")
    assert result.exit_code == 1
    assert "only.rst" in result.output
    assert "unsupported type .rst" in result.output
    assert "warning: no file could be ingested" in result.output
    result = lectern(data_dir, "ask", "--collection", "empty", "What is Gazebo?")
    assert result.exit_code == 1
    assert "collection 'empty' is empty: run lectern ingest PATH -c empty" in result.output


@pytest.mark.parametrize(
    ("flt", "message"),
    [
        ("chapterr=Simulation with Gazebo", "no chunk in 'docs' has chapterr=Simulation with Gazebo"),
        ("chapter=Nowhere", "no chunk in 'docs' has chapter=Nowhere. Known keys: title, chapter"),
        ("url_prefix=https://elsewhere.example", "no chunk in 'docs' has a URL starting with"),
    ],
)
def test_a_filter_that_matches_nothing_says_so(data_dir: Path, flt: str, message: str) -> None:
    for command in (["search", "gazebo"], ["ask", "How do I install Gazebo?"]):
        result = lectern(data_dir, *command, "--filter", flt)
        assert result.exit_code == 1, result.output
        assert message in " ".join(result.output.split())
        assert "ingest" not in result.output  # not a refusal that suggests ingesting


def test_collections_are_listed_and_deleted(data_dir: Path, tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("# Scratch\n\nA scratch page about lidar sensors.\n", encoding="utf-8")
    assert lectern(data_dir, "ingest", str(tmp_path), "-c", "scratch").exit_code == 0
    listed = lectern(data_dir, "collections")
    assert listed.exit_code == 0
    rows = {line.split()[0]: line.split() for line in listed.output.splitlines()[1:] if line.strip()}
    assert rows["docs"][1] == "2"
    assert int(rows["docs"][2]) >= 3
    assert rows["scratch"][1] == "1"
    assert "UTC" in listed.output
    as_json = json.loads(lectern(data_dir, "collections", "--json").output)
    assert {c["name"] for c in as_json} >= {"docs", "v2", "scratch"}
    assert lectern(data_dir, "collections", "delete", "scratch", "--yes").exit_code == 0
    assert "scratch" not in lectern(data_dir, "collections").output
    gone = lectern(data_dir, "collections", "delete", "scratch", "--yes")
    assert gone.exit_code == 1
    assert "does not exist" in gone.output


def test_index_stats_speaks_to_users(data_dir: Path) -> None:
    plain = lectern(data_dir, "index", "stats").output
    for label in ("documents", "chunks", "embedder", "last ingest", "size on disk"):
        assert label in plain
    assert "has_ann_index" not in plain
    assert "ANN index" not in plain
    assert "ANN index" in lectern(data_dir, "index", "stats", "--verbose").output


def test_dry_run_shows_what_would_change_and_changes_nothing(data_dir: Path, tmp_path: Path) -> None:
    docs = tmp_path / "dry"
    docs.mkdir()
    (docs / "keep.md").write_text("# Keep\n\nThis page stays as it is.\n", encoding="utf-8")
    (docs / "edit.md").write_text("# Edit\n\nThis page is edited.\n", encoding="utf-8")
    (docs / "drop.md").write_text("# Drop\n\nThis page is removed.\n", encoding="utf-8")
    assert lectern(data_dir, "ingest", str(docs), "-c", "dry").exit_code == 0
    (docs / "edit.md").write_text("# Edit\n\nThis page was edited today.\n", encoding="utf-8")
    (docs / "drop.md").unlink()
    (docs / "new.md").write_text("# New\n\nA new page.\n", encoding="utf-8")
    preview = lectern(data_dir, "ingest", str(docs), "-c", "dry", "--dry-run")
    assert preview.exit_code == 0
    out = preview.output
    assert "would add    new.md" in out
    assert "would change edit.md" in out
    assert "would remove drop.md" in out
    assert "keep.md" not in out
    again = lectern(data_dir, "ingest", str(docs), "-c", "dry", "--dry-run")
    assert again.output == out  # nothing was written


def test_latin1_files_are_read_and_urls_are_refused(data_dir: Path, tmp_path: Path) -> None:
    (tmp_path / "old.txt").write_bytes("Crème brûlée recipes from the café.\n".encode("latin-1"))
    result = lectern(data_dir, "ingest", str(tmp_path), "-c", "latin")
    assert result.exit_code == 0, result.output
    assert "Skipped" not in result.output
    url = lectern(data_dir, "ingest", "https://example.com/docs")
    assert url.exit_code == 1
    assert "https://example.com/docs is a URL" in " ".join(url.output.split())
