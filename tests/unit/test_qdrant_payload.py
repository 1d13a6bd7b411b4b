from __future__ import annotations

from typing import Any

import pytest

from lectern.index.qdrant_payload import legacy_chunk, legacy_hash


@pytest.mark.parametrize(
    "payload",
    [
        {"text": "Nodes talk over topics.", "content_hash": "abc"},
        {"text": "Nodes talk over topics."},  # no hash stored: the text's
        {"content": "Nodes talk over topics.", "url": "https://ex.com/a"},  # the text under another name
        {"text": "", "chunk_text": "Nodes talk over topics."},  # an empty text is no text
        {},
    ],
)
def test_a_foreign_payload_hashes_as_its_chunk(payload: dict[str, Any]) -> None:
    """The key equal scores are ordered by on a collection another pipeline wrote is its chunk's hash."""
    assert legacy_hash(payload) == legacy_chunk(payload).content_hash
