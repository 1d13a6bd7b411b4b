"""The side stores lose the rows no chunk of any collection needs, and only those; nothing is pruned
where the index cannot list every collection, nor after a run that took no chunk out."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from lectern import passage_store, prune
from lectern.ingest.manifest import Manifest
from lectern.ingest.pipeline import IngestPipeline
from lectern.models import Chunk, content_hash
from lectern.passage_store import text_key
from lectern.sentences import SentenceVectors
from tests.fakes.hash_embedder import HashEmbedder
from tests.fakes.memory_index import MemoryIndex

TEXTS = [
    "The robot reads its wheel encoders forty times a second, and a filter fuses them with the gyro.",
    "A world file describes the ground, the lights and the physics settings of a simulated scene.",
    "Links are joined by joints; each joint names a parent link and a child link of the robot.",
]


class ListingIndex(MemoryIndex):
    """A collection among others kept together (as LanceDB's tables in one folder)."""

    def __init__(self, collection: str, shelf: dict[str, MemoryIndex]) -> None:
        super().__init__(collection)
        self.shelf = shelf
        shelf[collection] = self

    def collection_names(self) -> list[str]:
        return sorted(self.shelf)

    def every_chunk_text(self) -> Iterator[tuple[str, str, str]] | None:
        return (
            (h, chunk.text, chunk.search_text)
            for index in self.shelf.values()
            for h, (chunk, _) in index.rows.items()
        )


pytestmark = pytest.mark.usefixtures("no_passage_store")


def _chunk(text: str, index: int = 0) -> Chunk:
    return Chunk(
        text=text, content_hash=content_hash(text), chunk_index=index, token_count=20, title="Robots"
    )


def _keys(path: Path) -> set[bytes]:
    with sqlite3.connect(path) as db:
        return {bytes(row[0]) for row in db.execute("SELECT key FROM passages")}


def test_sentence_rows_of_dead_chunks_are_dropped_and_live_ones_read_back(tmp_path: Path) -> None:
    path = tmp_path / "sentences-test-v3.sqlite3"
    chunks = [_chunk(t) for t in TEXTS]
    store = SentenceVectors(HashEmbedder(), path)
    assert store.precompute(chunks) == 3
    store.close()
    assert prune.prune_sentences(path, {chunks[0].content_hash}) == 2
    assert prune.prune_sentences(path, {chunks[0].content_hash}) == 0  # nothing left to drop
    again = SentenceVectors(HashEmbedder(), path)
    assert again.stored() == 1
    assert again.precompute(chunks[:1]) == 0  # read back, not embedded again


def test_passage_rows_are_kept_while_a_live_chunk_has_their_text(tmp_path: Path) -> None:
    store = passage_store.configure(tmp_path)
    assert store is not None
    chunks = [_chunk(t) for t in TEXTS]
    passage_store.keep(chunks)
    assert store.stored() == 6  # units and terms of each
    live = {text_key(chunks[1].text), text_key(chunks[1].search_text)}
    assert prune.prune_passages(store.path, live) == 4
    assert _keys(store.path) == live
    assert store.units(chunks[1].text) is not None  # the open store still reads the kept rows
    assert store.units(chunks[0].text) is None


def test_the_live_set_spans_every_collection_and_needs_a_listing_index() -> None:
    shelf: dict[str, MemoryIndex] = {}
    a, b = ListingIndex("a", shelf), ListingIndex("b", shelf)
    a.rows[_chunk(TEXTS[0]).content_hash] = (_chunk(TEXTS[0]), None)  # type: ignore[assignment]
    b.rows[_chunk(TEXTS[1]).content_hash] = (_chunk(TEXTS[1]), None)  # type: ignore[assignment]
    live = prune.live_chunks(a, ["a", "b"])
    assert live is not None
    assert live.hashes == {content_hash(TEXTS[0]), content_hash(TEXTS[1])}
    assert text_key(_chunk(TEXTS[1]).search_text) in live.keys
    assert prune.live_chunks(a, ["a", "b", "kept-elsewhere"]) is None  # the manifest knows more
    assert prune.live_chunks(MemoryIndex(), []) is None  # an engine that cannot list: no pruning


def test_a_data_dir_is_left_alone_when_the_live_set_is_unknown(tmp_path: Path) -> None:
    path = tmp_path / "sentences-test-v3.sqlite3"
    store = SentenceVectors(HashEmbedder(), path)
    store.precompute([_chunk(t) for t in TEXTS])
    store.close()
    assert prune.prune_data_dir(tmp_path, MemoryIndex()) is None
    assert SentenceVectors(HashEmbedder(), path).stored() == 3
    empty = ListingIndex("a", {})
    assert prune.prune_data_dir(tmp_path / "nothing-here", empty) == prune.Pruned(0, 0)


def _pipeline(tmp_path: Path, index: MemoryIndex, embedder: HashEmbedder) -> IngestPipeline:
    return IngestPipeline(
        collection="docs",
        embedder=embedder,
        index=index,
        manifest=Manifest(tmp_path / "ingest.sqlite3"),
        sentences=SentenceVectors.for_data_dir(embedder, tmp_path),
        data_dir=tmp_path,
    )


def test_ingest_prunes_only_after_taking_chunks_out(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    for i, text in enumerate(TEXTS):
        (docs / f"page{i}.md").write_text(f"# Page {i}\n\n{text}\n", encoding="utf-8")
    index, embedder = ListingIndex("docs", {}), HashEmbedder()
    calls: list[Path] = []
    real = prune.prune_data_dir

    def counted(data_dir: Path, *args: object, **kwargs: object) -> prune.Pruned | None:
        calls.append(data_dir)
        return real(data_dir, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(prune, "prune_data_dir", counted)
    assert _pipeline(tmp_path, index, embedder).ingest_paths([docs]).side_rows_pruned == 0
    (docs / "page3.md").write_text("# Page 3\n\nA page added later says nothing new.\n", encoding="utf-8")
    assert _pipeline(tmp_path, index, embedder).ingest_paths([docs]).side_rows_pruned == 0
    assert _pipeline(tmp_path, index, embedder).ingest_paths([docs]).unchanged
    assert calls == []  # adding and re-reading take nothing out: no pruning, no scan of the index

    (docs / "page0.md").unlink()
    (docs / "page1.md").write_text("# Page 1\n\nThe world file was rewritten.\n", encoding="utf-8")
    report = _pipeline(tmp_path, index, embedder).ingest_paths([docs])
    assert calls == [tmp_path]
    assert report.side_rows_pruned > 0
    [sentences] = tmp_path.glob("sentences-*.sqlite3")
    with sqlite3.connect(sentences) as db:
        assert {r[0] for r in db.execute("SELECT content_hash FROM unit_vectors")} == index.hashes()
    live = {text_key(c.text) for c, _ in index.rows.values()}
    live |= {text_key(c.search_text) for c, _ in index.rows.values() if len(c.search_text) > 64}
    assert _keys(tmp_path / passage_store.FILE_NAME) == live


def test_a_failing_listing_leaves_the_stores_and_never_raises(tmp_path: Path) -> None:
    class Broken(ListingIndex):
        def every_chunk_text(self) -> Iterator[tuple[str, str, str]] | None:
            raise RuntimeError("the engine went away")

    path = tmp_path / "sentences-test-v3.sqlite3"
    store = SentenceVectors(HashEmbedder(), path)
    store.precompute([_chunk(t) for t in TEXTS])
    store.close()
    assert prune.prune_data_dir(tmp_path, Broken("a", {})) is None
    assert SentenceVectors(HashEmbedder(), path).stored() == 3
