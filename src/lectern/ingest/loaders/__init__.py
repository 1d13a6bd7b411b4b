"""File → Document. A loader is chosen by extension from ``LOADERS``; every failure is an IngestError."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path

from lectern.errors import IngestError
from lectern.ingest.loaders.html import load_html
from lectern.ingest.loaders.markdown import load_markdown, load_mdx
from lectern.ingest.loaders.pdf import load_pdf
from lectern.ingest.loaders.text import load_text
from lectern.models import Document

Loader = Callable[[bytes, str], Document]
"""(file bytes, POSIX path relative to the root) → Document."""

LOADERS: dict[str, Loader] = {
    ".md": load_markdown,
    ".markdown": load_markdown,
    ".mdx": load_mdx,
    ".html": load_html,
    ".htm": load_html,
    ".txt": load_text,
    ".pdf": load_pdf,
}
SUPPORTED_EXTENSIONS = frozenset(LOADERS)


def relative_source_path(path: Path, root: Path) -> str:
    """POSIX path of ``path`` under ``root``; a file given as its own root is named by itself."""
    try:
        relative = path.relative_to(root)
    except ValueError:
        return path.name
    return relative.as_posix() if relative.parts else path.name


def load_document(path: Path, root: Path) -> Document:
    """Read and parse one file. Raises IngestError with a short reason, never anything else."""
    loader = LOADERS.get(path.suffix.lower())
    if loader is None:
        raise IngestError("unsupported type")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise IngestError(f"unreadable: {exc.strerror or exc}") from exc
    source_path = relative_source_path(path, root)
    try:
        document = loader(data, source_path)
    except IngestError:
        raise
    except Exception as exc:
        # A parser bug must not stop an ingest of thousands of files; report it as this file's failure.
        raise IngestError(f"could not parse: {type(exc).__name__}: {exc}") from exc
    document.file_hash = hashlib.sha256(data).hexdigest()
    return document
