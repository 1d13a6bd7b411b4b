"""Sentence vectors held as float16 (as stored) and handed out as float32: the same values a restart reads."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from lectern.embeddings.base import Vectors
from lectern.embeddings.cache import with_query_cache
from lectern.models import Chunk
from lectern.sentences import SentenceVectors
from tests.fakes.hash_embedder import HashEmbedder

TEXT = (
    "The robot reads its wheel encoders forty times a second. "
    "A Kalman filter fuses them with the inertial unit. "
    "The fused pose is published on the odometry topic."
)


def _chunk(text: str = TEXT) -> Chunk:
    return Chunk(
        text=text, content_hash=hashlib.sha256(text.encode()).hexdigest(), chunk_index=0, token_count=20
    )


def test_vectors_from_memory_equal_those_a_fresh_process_reads(tmp_path: Path) -> None:
    embedder = HashEmbedder()
    path = tmp_path / "sentences.sqlite3"
    writer = SentenceVectors(embedder, path)
    ((units, first),) = writer.of([_chunk()])
    ((_, again),) = writer.of([_chunk()])  # from memory
    reader = SentenceVectors(HashEmbedder(), path)
    ((_, stored),) = reader.of([_chunk()])  # from disk
    ((_, remembered),) = reader.of([_chunk()])  # from disk, then memory

    assert len(units) == first.shape[0] >= 3
    for matrix in (first, again, stored, remembered):
        assert matrix.dtype == np.float32
    # the first answer gets the model's own vectors; from then on the stored (float16) values, exactly
    np.testing.assert_array_equal(again, first.astype(np.float16).astype(np.float32))
    np.testing.assert_array_equal(stored, again)
    np.testing.assert_array_equal(remembered, stored)
    assert np.abs(first - stored).max() < 1e-3


def test_handed_out_vectors_cannot_change_what_is_held(tmp_path: Path) -> None:
    """The float32 matrices handed out from memory are shared between calls (`_wide`): read-only, so a
    caller scribbling on one fails at once instead of changing what later answers read."""
    vectors = SentenceVectors(HashEmbedder(), tmp_path / "sentences.sqlite3")
    vectors.of([_chunk()])
    ((_, matrix),) = vectors.of([_chunk()])
    with pytest.raises(ValueError, match="read-only"):
        matrix[:] = 0.0
    ((_, fresh),) = vectors.of([_chunk()])
    assert np.abs(fresh).sum() > 0


def test_a_passage_is_widened_once_while_kept(tmp_path: Path) -> None:
    vectors = SentenceVectors(HashEmbedder(), tmp_path / "sentences.sqlite3")
    vectors.of([_chunk()])  # embedded: held as float16
    ((units, first),) = vectors.of([_chunk()])
    ((again, second),) = vectors.of([_chunk()])
    assert second is first
    assert again is units
    vectors._wide.clear()  # evicted from the float32 cache: widened afresh, to the same values
    ((_, third),) = vectors.of([_chunk()])
    assert third is not first
    assert np.array_equal(third, first)
    assert third.dtype == np.float32


class _SentencesApart(HashEmbedder):
    """An embedder that embeds sentences with a model of their own (as the local one's int8 graph)."""

    sentence_model = "hash/sentences"

    def __init__(self) -> None:
        super().__init__()
        self.documents: list[str] = []
        self.sentences: list[str] = []

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        self.documents.extend(texts)
        return super().embed_documents(texts)

    def embed_sentences(self, texts: Sequence[str]) -> Vectors:
        self.sentences.extend(texts)
        return -super().embed_documents(texts)  # not what embed_documents gives


def test_an_embedder_with_a_sentence_model_embeds_and_names_the_sentences(tmp_path: Path) -> None:
    embedder = _SentencesApart()
    store = SentenceVectors.for_data_dir(with_query_cache(embedder, 8), tmp_path)  # as a server holds it
    ((units, matrix),) = store.of([_chunk()])
    assert embedder.documents == []
    assert embedder.sentences == [u.text for u in units]
    np.testing.assert_allclose(matrix, -HashEmbedder().embed_documents([u.text for u in units]), atol=1e-6)
    # the file is named after the sentence model: another model's vectors are never read back
    assert [p.name for p in tmp_path.glob("sentences-*.sqlite3")] == ["sentences-hash-sentences-v5.sqlite3"]
    plain = SentenceVectors.for_data_dir(HashEmbedder(), tmp_path)
    assert plain.stored() == 0
    assert {p.name for p in tmp_path.glob("sentences-*.sqlite3")} == {
        "sentences-hash-sentences-v5.sqlite3",
        "sentences-fake-hash-v5.sqlite3",
    }


def test_stores_of_earlier_unit_versions_are_deleted(tmp_path: Path) -> None:
    from lectern.sentences import UNITS_VERSION

    old = tmp_path / f"sentences-fake-hash-v{UNITS_VERSION - 1}.sqlite3"
    old_wal = old.with_name(old.name + "-wal")
    other_model = tmp_path / f"sentences-hash-sentences-v{UNITS_VERSION - 1}.sqlite3"
    for path in (old, old_wal, other_model):
        path.write_bytes(b"")
    SentenceVectors.for_data_dir(HashEmbedder(), tmp_path)
    assert not old.exists()
    assert not old_wal.exists()
    assert other_model.exists()  # another model's store is not this one's to delete
    assert (tmp_path / f"sentences-fake-hash-v{UNITS_VERSION}.sqlite3").exists()


def test_a_code_block_is_embedded_from_what_says_what_it_does_and_a_bare_one_gets_a_zero_row(
    tmp_path: Path,
) -> None:
    text = (
        "Check the rate of a topic with this command:\n\n"
        "```bash\n# Get topic statistics\nros2 topic hz /chatter\n```\n\n"
        "The rate is printed every second.\n\n"
        "```python\nrate = node.create_rate(10)\nrate.sleep()\n```\n"
    )
    embedder = _SentencesApart()
    ((units, matrix),) = SentenceVectors(embedder, tmp_path / "sentences.sqlite3").of([_chunk(text)])
    kinds = [u.kind for u in units]
    assert kinds == ["sentence", "code", "sentence", "code"]
    gist = "Check the rate of a topic with this command. Get topic statistics"
    assert embedder.sentences == [units[0].text, gist, units[2].text]  # the code's syntax is never read
    np.testing.assert_allclose(matrix[1], -HashEmbedder().embed_documents([gist])[0], atol=1e-6)
    assert not matrix[3].any()
