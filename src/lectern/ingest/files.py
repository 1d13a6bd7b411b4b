"""Which files an ingest reads: a sorted walk with glob include/exclude patterns."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Sequence
from functools import lru_cache
from pathlib import Path

from lectern.ingest.loaders import SUPPORTED_EXTENSIONS

_SKIPPED_DIRS = frozenset({"node_modules", "__pycache__"})


@lru_cache(maxsize=256)
def _glob_regex(pattern: str) -> re.Pattern[str]:
    """Translate a glob to a regex over POSIX paths: ``**`` spans folders, ``*`` and ``?`` do not."""
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("/**", i) and i + 3 == n:
            out.append("(?:/.*)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        elif pattern[i] == "[" and (end := pattern.find("]", i + 2)) != -1:
            body = pattern[i + 1 : end]
            if body.startswith("!"):
                body = "^" + body[1:]
            out.append("[" + body.replace("\\", "\\\\") + "]")
            i = end + 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(out) + r"\Z")


def matches(rel_path: str, pattern: str) -> bool:
    """A pattern with a slash matches the whole relative path; one without matches any single segment
    (like .gitignore), so ``*.md`` means markdown at any depth and ``drafts`` any folder named drafts."""
    pattern = pattern.strip().removeprefix("./").lstrip("/").rstrip("/")
    if not pattern:
        return False
    if "/" in pattern:
        return _glob_regex(pattern).match(rel_path) is not None
    regex = _glob_regex(pattern)
    return any(regex.match(segment) for segment in rel_path.split("/"))


def _any_match(rel_path: str, patterns: Sequence[str]) -> bool:
    return any(matches(rel_path, p) for p in patterns)


def unsupported_files(root: Path, include: Sequence[str] = (), exclude: Sequence[str] = ()) -> list[str]:
    """Files under ``root`` (relative POSIX paths, sorted) that ``iter_files`` passes over for their
    type, so an ingest can list them rather than ignore them silently. Hidden files are not listed."""
    if root.is_file():
        return []
    found: list[str] = []
    for current, dirs, files in os.walk(root):
        rel_dir = Path(current).relative_to(root).as_posix()
        prefix = "" if rel_dir == "." else rel_dir + "/"
        dirs[:] = [
            d
            for d in dirs
            if not d.startswith(".") and d not in _SKIPPED_DIRS and not _any_match(prefix + d, exclude)
        ]
        for name in files:
            rel = prefix + name
            if name.startswith(".") or Path(name).suffix.lower() in SUPPORTED_EXTENSIONS:
                continue
            if (not include or _any_match(rel, include)) and not _any_match(rel, exclude):
                found.append(rel)
    return sorted(found)


def iter_files(root: Path, include: Sequence[str] = (), exclude: Sequence[str] = ()) -> Iterator[Path]:
    """Supported files under ``root`` in sorted order, skipping hidden folders and ``node_modules``.

    ``include``/``exclude`` are globs relative to ``root`` (see ``matches``); only supported types are
    yielded even when an include pattern names others. A file given as ``root`` is yielded as it is
    (unless excluded), so an unsupported type is reported by the loader rather than silently skipped.
    """
    if root.is_file():
        if not _any_match(root.name, exclude):
            yield root
        return
    found: list[tuple[str, Path]] = []
    for current, dirs, files in os.walk(root):
        base = Path(current)
        rel_dir = base.relative_to(root).as_posix()
        prefix = "" if rel_dir == "." else rel_dir + "/"
        # Prune in place so os.walk never descends into skipped folders.
        dirs[:] = [
            d
            for d in dirs
            if not d.startswith(".") and d not in _SKIPPED_DIRS and not _any_match(prefix + d, exclude)
        ]
        for name in files:
            rel = prefix + name
            if name.startswith(".") or Path(name).suffix.lower() not in SUPPORTED_EXTENSIONS:
                continue
            if (not include or _any_match(rel, include)) and not _any_match(rel, exclude):
                found.append((rel, base / name))
    for _, path in sorted(found):
        yield path
