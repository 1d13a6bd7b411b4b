"""SearchHit carries its chunk vector as an array (LanceDB) or a list of floats (other engines)."""

from __future__ import annotations

import numpy as np

from lectern.index.payload import ranked_hits
from lectern.models import Chunk
from tests.unit.answer_support import hit


def test_vectors_stay_arrays_and_are_never_serialised() -> None:
    vector = np.arange(4, dtype=np.float32)
    h = hit("text", 0.5).model_copy(update={"vector": vector})
    assert h.vector is vector
    assert "vector" not in h.model_dump()
    assert "vector" not in h.model_dump_json()


def test_hits_compare_their_vectors_by_value() -> None:
    base = hit("text", 0.5)
    a = base.model_copy(update={"vector": np.array([0.25, 0.5], dtype=np.float32)})
    assert a == base.model_copy(update={"vector": np.array([0.25, 0.5], dtype=np.float32)})
    assert a == base.model_copy(update={"vector": [0.25, 0.5]})
    assert a != base.model_copy(update={"vector": np.array([0.25, 0.75], dtype=np.float32)})
    assert a != base  # no vector
    assert a != base.model_copy(update={"similarity": 0.6, "vector": a.vector})
    assert base == hit("text", 0.5)


def test_hits_do_not_keep_the_candidates_matrix() -> None:
    """A session's cached retrieval keeps its hits: their vectors must not be views of the matrix
    of every candidate's vector."""
    texts = ["one passage", "another passage", "a third passage"]
    chunks = {t: Chunk(text=t, content_hash=t, chunk_index=0, token_count=2) for t in texts}
    vectors = np.eye(3, 4, dtype=np.float32)
    hits = ranked_hits([(t, 1.0) for t in texts], chunks, vectors, vectors[0], {}, "hybrid")
    for row, h in zip(vectors, hits, strict=True):
        assert isinstance(h.vector, np.ndarray)
        assert h.vector.tolist() == row.tolist()
        assert not np.shares_memory(h.vector, vectors)
