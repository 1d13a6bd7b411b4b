"""Docusaurus URL rules: heading anchors (github-slugger), doc ids and doc URL paths.

The rules follow Docusaurus's defaults so that a cited URL opens the page and heading it came from:
number prefixes (``01-intro``) are stripped from path segments, ``index``/``README`` pages take their
folder's path, front-matter ``id`` replaces the file name and front-matter ``slug`` overrides the path.
"""

from __future__ import annotations

import posixpath
import re
import unicodedata
from collections.abc import Mapping
from typing import Any

# --- heading anchors --------------------------------------------------------------------------------

# github-slugger keeps Alphabetic, Mark, Decimal_Number, Connector_Punctuation, Join_Control, space and '-'.
_KEPT_CATEGORIES = ("L", "M", "Nd", "Nl", "Pc")
_KEPT_CHARS = frozenset(" -\u200c\u200d")


def _kept(char: str) -> bool:
    return char in _KEPT_CHARS or unicodedata.category(char).startswith(_KEPT_CATEGORIES)


def slugify(text: str) -> str:
    """One heading's anchor, without duplicate handling (github-slugger's ``slug``)."""
    return "".join(c for c in text.lower() if _kept(c)).replace(" ", "-")


class Slugger:
    """Unique anchors within one page, as github-slugger does: ``foo``, ``foo-1``, ``foo-2``."""

    def __init__(self) -> None:
        self._occurrences: dict[str, int] = {}

    def slug(self, text: str) -> str:
        original = slugify(text)
        slug = original
        while slug in self._occurrences:
            self._occurrences[original] += 1
            slug = f"{original}-{self._occurrences[original]}"
        self._occurrences[slug] = 0
        return slug


_HEADING_ID = re.compile(r"\s*\{#([^{}\s]+)\}\s*$")


def split_heading_id(text: str) -> tuple[str, str | None]:
    """``Install {#setup}`` → (``Install``, ``setup``); a heading without an explicit id → (text, None)."""
    match = _HEADING_ID.search(text)
    if match is None:
        return text, None
    return text[: match.start()].rstrip(), match.group(1)


# --- number prefixes ---------------------------------------------------------------------------------

# Docusaurus's DefaultNumberPrefixParser: dates (2021-01-foo) and versions (1.2-foo) are not prefixes.
_IGNORED_PREFIX = re.compile(r"^((\d{2}|\d{4})[-_.]\d{2}([-_.](\d{2}|\d{4}))?)|^(\d+[-_.]\d+)")
_NUMBER_PREFIX = re.compile(r"^(\d+)\s*[-_.]+\s*(.*)$")


def strip_number_prefix(segment: str) -> str:
    """``01-intro`` → ``intro``; ``4.2-walking`` and ``2021-01-02-post`` stay as they are."""
    if _IGNORED_PREFIX.match(segment):
        return segment
    match = _NUMBER_PREFIX.match(segment)
    # A bare prefix ("01-") would leave nothing; keep the segment then.
    return match.group(2) if match and match.group(2) else segment


# --- doc ids and URL paths ---------------------------------------------------------------------------

_INDEX_NAMES = frozenset({"index", "readme"})


def _split(source_path: str) -> tuple[str, str]:
    """``a/b/01-c.mdx`` → (``a/b``, ``01-c``): the folder and the file name without extension."""
    folder, name = posixpath.split(source_path)
    stem = name.rsplit(".", 1)[0] if "." in name else name
    return folder, stem


def _fm_str(front_matter: Mapping[str, Any], key: str) -> str | None:
    value = front_matter.get(key)
    if value is None:
        return None
    text = str(value).strip()
    return text or None


def is_category_index(source_path: str) -> bool:
    """``index.md``, ``README.md`` or ``guides/guides.md`` give their folder's URL."""
    folder, stem = _split(source_path)
    names = set(_INDEX_NAMES)
    if folder:
        names.add(posixpath.basename(folder).lower())
    return stem.lower() in names


def doc_id(source_path: str, front_matter: Mapping[str, Any] | None = None) -> str:
    """Docusaurus doc id: the folder as written plus front-matter ``id`` or the unprefixed file name."""
    folder, stem = _split(source_path)
    base = _fm_str(front_matter or {}, "id") or strip_number_prefix(stem)
    return f"{folder}/{base}" if folder else base


def doc_url_path(source_path: str, front_matter: Mapping[str, Any] | None = None) -> str:
    """The page's path on the site, e.g. ``/module-1/intro``; ``/`` for the site root."""
    fm = front_matter or {}
    folder, stem = _split(source_path)
    slug = _fm_str(fm, "slug")
    if slug is not None and slug.startswith("/"):
        return _clean_path(slug)
    folder_slug = "/" + "/".join(strip_number_prefix(s) for s in folder.split("/")) if folder else "/"
    if slug is None and is_category_index(source_path):
        return _clean_path(folder_slug)
    base = slug or _fm_str(fm, "id") or strip_number_prefix(stem)
    return _clean_path(posixpath.join(folder_slug, base))


def _clean_path(path: str) -> str:
    """Resolve ``.``/``..`` and drop a trailing slash, keeping the root as ``/``."""
    # normpath keeps a leading "//" (POSIX allows it a meaning), so strip before anchoring at "/".
    cleaned = posixpath.normpath("/" + path.strip().lstrip("/"))
    return cleaned if cleaned == "/" else cleaned.rstrip("/")


# Folders that hold the modules rather than being one (``modules/module-1-ros2/...``).
_MODULE_CONTAINERS = frozenset(
    {"modules", "docs", "doc", "content", "contents", "chapters", "parts", "src", "pages"}
)


def module_name(source_path: str) -> str:
    """The module folder's name, prettified: ``module-1-ros2/x.md`` and ``modules/module-1-ros2/x.md`` →
    ``Module 1 Ros2`` (a folder that only holds modules is skipped); empty at the root."""
    for folder in source_path.split("/")[:-1]:
        name = strip_number_prefix(folder)
        if not name or name.lower() in _MODULE_CONTAINERS:
            continue
        words = re.split(r"[-_\s]+", name)
        return " ".join(w[:1].upper() + w[1:] for w in words if w)
    return ""
