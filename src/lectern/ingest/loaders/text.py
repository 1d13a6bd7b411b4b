"""Plain text → Document: one section; the chunker splits it at blank lines as usual."""

from __future__ import annotations

from lectern.ingest.loaders.common import decode_text, fallback_title, tidy
from lectern.models import Document, Section


def load_text(data: bytes, source_path: str) -> Document:
    text = tidy(decode_text(data))
    title = fallback_title(source_path)
    return Document(
        source_path=source_path,
        format="text",
        title=title,
        sections=[Section(heading_hierarchy=[title], text=text)],
        doc_url_path="/" + source_path,
    )
