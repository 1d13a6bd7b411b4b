"""Incremental ingest with a fake embedder and an in-memory index (real loaders, chunker and manifest)."""

from __future__ import annotations

from pathlib import Path

import pytest

from lectern.errors import EmbedderMismatch
from lectern.ingest.manifest import Manifest
from lectern.ingest.pipeline import IngestOptions, IngestPipeline
from tests.fakes.hash_embedder import HashEmbedder
from tests.fakes.memory_index import MemoryIndex

SHARED = "This licence paragraph is repeated word for word in several documents of the corpus."


def write(root: Path, rel: str, body: str) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(body, encoding="utf-8")
    return path


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    root = tmp_path / "docs"
    write(
        root,
        "intro.md",
        "# Introduction\n\nLectern answers questions from documents.\n\n## Install\n\npip install it.\n",
    )
    write(
        root,
        "guide/setup.md",
        f"---\ntitle: Setup\n---\n\n## Config\n\nSet the data directory.\n\n## Legal\n\n{SHARED}\n",
    )
    write(root, "guide/usage.md", f"# Usage\n\nAsk a question with lectern ask.\n\n## Legal\n\n{SHARED}\n")
    return root


def make_pipeline(
    tmp_path: Path, index: MemoryIndex | None = None, embedder: HashEmbedder | None = None
) -> IngestPipeline:
    return IngestPipeline(
        collection="docs",
        embedder=embedder or HashEmbedder(),
        index=index or MemoryIndex(),
        manifest=Manifest(tmp_path / "state" / "ingest.sqlite3"),
    )


def snapshot(index: MemoryIndex) -> dict[str, dict[str, object]]:
    return {h: c.model_dump() for h, (c, _) in index.rows.items()}


def test_first_run_adds_everything(tmp_path: Path, corpus: Path) -> None:
    pipeline = make_pipeline(tmp_path)
    report = pipeline.ingest_paths([corpus])
    assert sorted(report.added) == ["guide/setup.md", "guide/usage.md", "intro.md"]
    assert report.chunks_total == pipeline.index.count() > 0
    assert report.chunks_embedded == report.chunks_total


def test_unchanged_folder_embeds_nothing(tmp_path: Path, corpus: Path) -> None:
    embedder = HashEmbedder()
    pipeline = make_pipeline(tmp_path, embedder=embedder)
    pipeline.ingest_paths([corpus])
    calls = len(embedder.document_calls)
    report = make_pipeline(tmp_path, index=pipeline.index, embedder=embedder).ingest_paths([corpus])
    assert len(report.unchanged) == 3
    assert report.chunks_embedded == 0
    assert len(embedder.document_calls) == calls


def test_changed_file_replaces_only_its_chunks(tmp_path: Path, corpus: Path) -> None:
    index = MemoryIndex()
    make_pipeline(tmp_path, index=index).ingest_paths([corpus])
    before = snapshot(index)
    write(
        corpus,
        "intro.md",
        "# Introduction\n\nLectern answers questions from documents.\n\n## Install\n\nuv sync.\n",
    )
    report = make_pipeline(tmp_path, index=index).ingest_paths([corpus])
    assert report.changed == ["intro.md"]
    after = snapshot(index)
    untouched = {h: v for h, v in before.items() if v["source_path"] != "intro.md"}
    assert all(after[h] == v for h, v in untouched.items())
    assert any("uv sync" in str(v["text"]) for v in after.values())
    assert not any("pip install it" in str(v["text"]) for v in after.values())


def test_removed_file_loses_its_chunks(tmp_path: Path, corpus: Path) -> None:
    index = MemoryIndex()
    make_pipeline(tmp_path, index=index).ingest_paths([corpus])
    (corpus / "intro.md").unlink()
    report = make_pipeline(tmp_path, index=index).ingest_paths([corpus])
    assert report.removed == ["intro.md"]
    assert all(c.source_path != "intro.md" for c, _ in index.rows.values())


def test_identical_chunks_stored_once_and_survive_owner_removal(tmp_path: Path, corpus: Path) -> None:
    index = MemoryIndex()
    make_pipeline(tmp_path, index=index).ingest_paths([corpus])
    shared = [c for c, _ in index.rows.values() if SHARED in c.text]
    assert len(shared) == 1
    assert shared[0].source_path == "guide/setup.md"  # the least path owns it
    (corpus / "guide/setup.md").unlink()
    make_pipeline(tmp_path, index=index).ingest_paths([corpus])
    shared = [c for c, _ in index.rows.values() if SHARED in c.text]
    assert len(shared) == 1
    assert shared[0].source_path == "guide/usage.md"  # passed to the next owner, not lost


def test_incremental_equals_clean_run(tmp_path: Path, corpus: Path) -> None:
    incremental = MemoryIndex()
    make_pipeline(tmp_path / "a", index=incremental).ingest_paths([corpus])
    write(corpus, "guide/usage.md", "# Usage\n\nAsk with lectern chat too.\n")
    write(corpus, "new.md", f"# New\n\n{SHARED}\n")
    (corpus / "intro.md").unlink()
    make_pipeline(tmp_path / "a", index=incremental).ingest_paths([corpus])

    clean = MemoryIndex()
    make_pipeline(tmp_path / "b", index=clean).ingest_paths([corpus])
    assert snapshot(incremental) == snapshot(clean)


def test_unreadable_file_is_skipped_with_reason(tmp_path: Path, corpus: Path) -> None:
    (corpus / "image.md").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00binary")
    (corpus / "empty.md").write_text("   \n", encoding="utf-8")
    report = make_pipeline(tmp_path).ingest_paths([corpus])
    skipped = dict(report.skipped)
    assert set(skipped) == {"image.md", "empty.md"}
    assert all(reason for reason in skipped.values())
    assert len(report.added) == 3


def test_single_file_does_not_remove_siblings(tmp_path: Path, corpus: Path) -> None:
    index = MemoryIndex()
    make_pipeline(tmp_path, index=index).ingest_paths([corpus])
    count = index.count()
    report = make_pipeline(tmp_path, index=index).ingest_paths([corpus / "intro.md"])
    assert report.removed == []
    assert index.count() == count


def test_small_flush_groups_give_same_result(tmp_path: Path, corpus: Path) -> None:
    grouped, single = MemoryIndex(), MemoryIndex()
    make_pipeline(tmp_path / "a", index=grouped).ingest_paths([corpus], IngestOptions(flush_chunks=1))
    make_pipeline(tmp_path / "b", index=single).ingest_paths([corpus])
    assert grouped.upserts > single.upserts
    assert snapshot(grouped) == snapshot(single)


def test_other_embedder_is_refused(tmp_path: Path, corpus: Path) -> None:
    index = MemoryIndex()
    make_pipeline(tmp_path, index=index).ingest_paths([corpus])

    class Other(HashEmbedder):
        name = "fake:other"

    with pytest.raises(EmbedderMismatch):
        make_pipeline(tmp_path, index=index, embedder=Other()).ingest_paths([corpus])


def test_up_to_date_run_never_opens_the_index(tmp_path: Path, corpus: Path) -> None:
    index = MemoryIndex()
    make_pipeline(tmp_path, index=index).ingest_paths([corpus])
    opened: list[int] = []

    def factory() -> MemoryIndex:
        opened.append(1)
        return index

    pipeline = IngestPipeline(
        collection="docs",
        embedder=HashEmbedder(),
        index=factory,
        manifest=Manifest(tmp_path / "state" / "ingest.sqlite3"),
    )
    report = pipeline.ingest_paths([corpus])
    assert opened == []
    assert len(report.unchanged) == 3
    assert report.chunks_total == index.count()
    # An edit takes the full path again.
    write(corpus, "new.md", "# New\n\nA new page.\n")
    report = pipeline.ingest_paths([corpus])
    assert opened == [1]
    assert report.added == ["new.md"]


def test_a_run_that_did_not_finish_is_reconciled_next_time(tmp_path: Path, corpus: Path) -> None:
    index = MemoryIndex()
    make_pipeline(tmp_path, index=index).ingest_paths([corpus])
    manifest = Manifest(tmp_path / "state" / "ingest.sqlite3")
    manifest.mark_dirty("docs", HashEmbedder.name, HashEmbedder.dimension)  # as a killed run leaves it
    stray = next(iter(index.rows.values()))[0].model_copy(update={"content_hash": "e" * 64})
    index.upsert([stray], HashEmbedder().embed_documents(["stray"]))
    report = make_pipeline(tmp_path, index=index).ingest_paths([corpus])
    assert "e" * 64 not in index.rows
    assert report.chunks_deleted == 1
    state = manifest.state("docs")
    assert state is not None
    assert state.clean


def test_unchanged_collection_gets_missing_sentence_vectors_once(tmp_path: Path, corpus: Path) -> None:
    from lectern.sentences import SentenceVectors

    index = MemoryIndex()
    embedder = HashEmbedder()
    make_pipeline(tmp_path, index=index, embedder=embedder).ingest_paths([corpus])  # no sentence store

    def with_store() -> IngestPipeline:
        return IngestPipeline(
            collection="docs",
            embedder=embedder,
            index=index,
            manifest=Manifest(tmp_path / "state" / "ingest.sqlite3"),
            sentences=SentenceVectors(embedder, tmp_path / "sentences.sqlite3"),
        )

    report = with_store().ingest_paths([corpus])
    assert len(report.unchanged) == 3
    assert report.sentences_backfilled == len(index.hashes()) > 0
    assert with_store().ingest_paths([corpus]).sentences_backfilled == 0
