"""What every loader shares: turning bytes into text, the reasons a file is refused, and titles."""

from __future__ import annotations

import datetime as dt
import posixpath
import re
from collections.abc import Mapping
from typing import Any

from lectern.errors import IngestError
from lectern.ingest.slugs import strip_number_prefix

# A NUL byte early in the file is the classic sign of a binary file (images, archives, UTF-16).
_BINARY_SNIFF_BYTES = 8192


def decode_text(data: bytes) -> str:
    """Text with a BOM removed and newlines normalised, or an IngestError saying why not.

    UTF-8 first; a file that is not UTF-8 is read as Windows-1252 (a superset of Latin-1 for text),
    then as Latin-1, which decodes any byte: older docs are often in one of them."""
    if not data.strip():
        raise IngestError("empty")
    if b"\x00" in data[:_BINARY_SNIFF_BYTES]:
        raise IngestError("binary file")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        try:
            text = data.decode("cp1252")
        except UnicodeDecodeError:
            text = data.decode("latin-1")
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if not text.strip():
        raise IngestError("empty")
    return text


def fallback_title(source_path: str) -> str:
    """A title from the path: the file name without extension or number prefix (the folder for index)."""
    folder, name = posixpath.split(source_path)
    stem = name.rsplit(".", 1)[0] if "." in name else name
    if stem.lower() in ("index", "readme") and folder:
        stem = posixpath.basename(folder)
    return strip_number_prefix(stem) or stem


_BLANK_RUNS = re.compile(r"\n[ \t]*\n(?:[ \t]*\n)+")


def tidy(text: str) -> str:
    """Trailing spaces off, at most one blank line in a row, no blank edges."""
    text = "\n".join(line.rstrip() for line in text.split("\n"))
    return _BLANK_RUNS.sub("\n\n", text).strip("\n")


def json_safe(value: Any) -> Any:
    """Front matter as JSON-compatible values (YAML dates become ISO strings) so every index can store it."""
    if isinstance(value, Mapping):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set):
        return [json_safe(v) for v in value]
    if isinstance(value, dt.date | dt.datetime | dt.time):
        return value.isoformat()
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return str(value)
