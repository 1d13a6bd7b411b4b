"""The per-passage caches a server fills while answering are bounded by one figure (`PASSAGES_KEPT`):
on a 10k-chunk collection they otherwise hold most of its passages' terms, units and sentence vectors."""

from __future__ import annotations

import hashlib

from lectern import answerability
from lectern.index import lancedb_snapshot
from lectern.models import Chunk
from lectern.sentences import SentenceVectors
from lectern.writers import units
from lectern.writers.units import PASSAGES_KEPT, passage_terms, units_of
from tests.fakes.hash_embedder import HashEmbedder


def test_passage_caches_keep_passages_kept() -> None:
    assert passage_terms.cache_info().maxsize == PASSAGES_KEPT
    assert units_of.cache_info().maxsize == PASSAGES_KEPT
    assert answerability._hyphenless.cache_info().maxsize == PASSAGES_KEPT
    assert SentenceVectors(HashEmbedder()).memory == PASSAGES_KEPT
    assert lancedb_snapshot.MAX_CHUNKS <= PASSAGES_KEPT


def test_sentence_vectors_keep_at_most_their_memory() -> None:
    vectors = SentenceVectors(HashEmbedder(), memory=2)
    texts = [f"Passage {i} says one thing. It says another." for i in range(5)]
    chunks = [
        Chunk(text=t, content_hash=hashlib.sha256(t.encode()).hexdigest(), chunk_index=0, token_count=9)
        for t in texts
    ]
    for chunk in chunks:
        vectors.of([chunk])
    assert len(vectors._cache) == 2
    assert units.passage_terms("A passage, kept.") == units.stem_terms("A passage, kept.")


def test_medium_texts_are_stemmed_once_and_as_before() -> None:
    """A heading path or a line of code (past `SHORT_TEXT`, up to `MEDIUM_TEXT`) recurs across answers:
    its terms come from a bounded cache, the same set as stemming it afresh; a passage is not kept there."""
    heading = "Chapter 3: Sensors and Perception > Inertial measurement units > Calibrating the IMU drift"
    assert units.SHORT_TEXT < len(heading) <= units.MEDIUM_TEXT
    first = units.stem_terms(heading)
    assert first == units._terms(heading)
    assert {"calibr", "drift", "imu"} <= first
    assert units.stem_terms(heading) is first
    assert units._medium_terms.cache_info().maxsize == units.MEDIUM_KEPT
    passage = "A long passage. " * 40
    before = units._medium_terms.cache_info().currsize
    assert units.stem_terms(passage) == units._terms(passage)
    assert units._medium_terms.cache_info().currsize == before
