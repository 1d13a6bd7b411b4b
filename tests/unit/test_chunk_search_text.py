"""`Chunk.search_text` is made once per chunk object, and made again once what it is made of changes."""

from __future__ import annotations

import copy
import pickle

from lectern.models import Chunk, SearchHit


def _chunk(**fields: object) -> Chunk:
    values: dict[str, object] = {
        "text": "Body text.",
        "content_hash": "h",
        "chunk_index": 0,
        "token_count": 3,
    }
    values.update(fields)
    return Chunk.model_validate(values)


def test_the_search_text_is_the_heading_path_then_the_text_made_once() -> None:
    chunk = _chunk(heading_hierarchy=["Book", "Chapter"])
    first = chunk.search_text
    assert first == "Book > Chapter\n\nBody text."
    assert chunk.search_text is first
    assert _chunk(title="Title").search_text == "Title\n\nBody text."
    assert _chunk().search_text == "Body text."


def test_a_copy_or_a_change_makes_it_again() -> None:
    chunk = _chunk(heading_hierarchy=["Book"])
    assert chunk.search_text == "Book\n\nBody text."
    assert chunk.model_copy(update={"text": "Other."}).search_text == "Book\n\nOther."
    assert chunk.model_copy(update={"heading_hierarchy": []}).search_text == "Body text."
    assert chunk.model_copy(update={"heading_hierarchy": [], "title": "T"}).search_text == "T\n\nBody text."
    chunk.heading_hierarchy.append("Part")  # changed in place
    assert chunk.search_text == "Book > Part\n\nBody text."
    chunk.text = "New body."
    assert chunk.search_text == "Book > Part\n\nNew body."
    assert copy.deepcopy(chunk).search_text == chunk.search_text
    assert pickle.loads(pickle.dumps(chunk)).search_text == chunk.search_text


def test_what_is_kept_is_no_field() -> None:
    chunk, fresh = _chunk(heading_hierarchy=["Book"]), _chunk(heading_hierarchy=["Book"])
    _ = chunk.search_text
    assert chunk == fresh
    assert fresh == chunk
    assert chunk.model_dump() == fresh.model_dump()
    assert chunk.model_dump_json() == fresh.model_dump_json()
    assert repr(chunk) == repr(fresh)
    hit = SearchHit(chunk=chunk, similarity=0.5, score=0.5, rank=1)
    assert hit == SearchHit(chunk=fresh, similarity=0.5, score=0.5, rank=1)
    assert hit.model_dump() == SearchHit(chunk=fresh, similarity=0.5, score=0.5, rank=1).model_dump()
