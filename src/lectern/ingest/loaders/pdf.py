"""PDF → Document: one section per page with text, ``page`` 1-based."""

from __future__ import annotations

import io
import logging
from typing import TYPE_CHECKING

from lectern.errors import IngestError
from lectern.ingest.loaders.common import fallback_title, tidy
from lectern.models import Document, Section

if TYPE_CHECKING:
    from pypdf import PdfReader

# pypdf logs every recoverable oddity of a file; the ingest report already says what failed.
logging.getLogger("pypdf").setLevel(logging.ERROR)


def _open(data: bytes) -> PdfReader:
    from pypdf import PdfReader  # imported with the first PDF: a folder without any never pays for it

    try:
        reader = PdfReader(io.BytesIO(data))
    except Exception as exc:
        raise IngestError("broken PDF") from exc
    if reader.is_encrypted:
        # Many PDFs are "encrypted" with an empty user password and open in any viewer; try that only.
        try:
            opened = bool(reader.decrypt(""))
        except Exception:
            opened = False
        if not opened:
            raise IngestError("encrypted PDF")
    return reader


# Placeholder titles that PDF tools write when the author set none.
_NO_TITLE = frozenset({"", "untitled", "untitled document"})


def _title(reader: PdfReader) -> str:
    try:
        meta = reader.metadata
        title = str(meta.title).strip() if meta is not None and meta.title else ""
    except Exception:
        return ""
    return "" if title.lower() in _NO_TITLE else title


def load_pdf(data: bytes, source_path: str) -> Document:
    if not data.strip():
        raise IngestError("empty")
    reader = _open(data)
    try:
        pages = [tidy(page.extract_text() or "") for page in reader.pages]
    except IngestError:
        raise
    except Exception as exc:
        raise IngestError("broken PDF") from exc
    title = _title(reader) or fallback_title(source_path)
    sections = [
        Section(heading_hierarchy=[title], text=text, page=number)
        for number, text in enumerate(pages, start=1)
        if text
    ]
    if not sections:
        raise IngestError("no extractable text")
    return Document(
        source_path=source_path,
        format="pdf",
        title=title,
        sections=sections,
        doc_url_path="/" + source_path,
    )
