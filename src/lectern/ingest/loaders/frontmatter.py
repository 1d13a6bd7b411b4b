"""YAML front matter at the top of a Markdown/MDX file."""

from __future__ import annotations

import logging
import re
from typing import Any

import yaml

from lectern.ingest.loaders.common import json_safe

log = logging.getLogger(__name__)

_FRONT_MATTER = re.compile(r"\A---[ \t]*\n(?:(.*?)\n)?---[ \t]*(?:\n|\Z)", re.DOTALL)


def split_front_matter(text: str, source_path: str = "") -> tuple[dict[str, Any], str]:
    """(front matter, body). Invalid YAML is logged and dropped rather than failing the whole file."""
    match = _FRONT_MATTER.match(text)
    if match is None:
        return {}, text
    body = text[match.end() :]
    try:
        data = yaml.safe_load(match.group(1) or "")
    except yaml.YAMLError as exc:
        log.warning("ignoring invalid front matter in %s: %s", source_path, exc)
        return {}, body
    if not isinstance(data, dict):
        return {}, body
    return json_safe(data), body
