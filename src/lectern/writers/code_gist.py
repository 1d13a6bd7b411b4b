"""What a code block is about, in words: the text its meaning vector is embedded from (`sentences.py`).

A block seldom shares the reader's words ("how often do messages arrive?" / `ros2 topic hz`), but the
sentence that introduces it ("Check the publishing rate:"), its file's title and its comments ("# Get
topic statistics") say what it does in prose, which is what the sentence model reads well. Its code
is left out: the whole block, or its identifiers split into words ("maxYaw" -> "max yaw"), made the
vectors noisier and the writer quote worse blocks (bench/code_vectors_study.py).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from lectern.writers.units import Unit

MAX_IDENTIFIER_WORDS = 40  # enough to name what a short block touches; the model reads 256 pieces
MAX_COMMENTS = 8

# A comment that fills its line ("# Get topic statistics", "// Max yaw in degrees", "<!-- ... -->"),
# not a preprocessor line or a shebang.
_LINE_COMMENT = re.compile(
    r"^\s*(?:#(?!!|include|define|pragma|if|endif|else|import)|//|--\s|;+\s|\*(?!\*?/))\s*(.*)$"
)
_TRAILING = re.compile(r"(?:\s#|\s//)\s+(.+)$")  # "maxYaw = 45f  // degrees"
_XML_COMMENT = re.compile(r"<!--\s*(.*?)\s*-->")
_BLOCK_COMMENT = re.compile(r"/\*+\s*(.*?)\s*\*+/")
_DOCSTRING = re.compile(r"(?:\"\"\"|''')\s*(.+?)\s*(?:\"\"\"|''')")
_IDENTIFIER = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
_PARTS = re.compile(r"_+|(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_TAG = re.compile(r"</?[A-Za-z][^>]*>")  # "/// <summary>" in C# doc comments
_TITLE = re.compile(r"title=[\"']([^\"']+)[\"']")
# Words every listing has: they say nothing about what this one does.
_SYNTAX = frozenset(
    re.findall(
        r"\w+",
        "def return import from class self this if else elif for while in is not and or true false none "
        "null int float double void bool str string const let var new public private static auto include "
        "end do then fi done echo sudo std the to of",
    )
)


def code_gist(units: Sequence[Unit], position: int, *, identifiers: bool = False) -> str:
    """The words a code block's meaning is read from: the sentence that introduces it, its title, its
    comments, and with `identifiers` its identifiers split into words. Empty for a block with none."""
    unit = units[position]
    lines = unit.text.split("\n")
    fence, body = lines[0], lines[1:-1]
    parts: list[str] = []
    before = units[position - 1] if position > 0 else None
    if unit.intro:
        parts.append(unit.intro)
    elif before is not None and before.kind == "sentence" and before.lead_in:
        parts.append(before.text)
    title = _TITLE.search(fence)
    if title:
        parts.append(title.group(1))
    comments, code = _comments(body)
    parts += comments[:MAX_COMMENTS]
    words = _identifier_words(code) if identifiers else []
    if words:
        parts.append(" ".join(words[:MAX_IDENTIFIER_WORDS]))
    return ". ".join(p.strip().rstrip(".:") for p in parts if p.strip())


def _comments(body: Sequence[str]) -> tuple[list[str], list[str]]:
    """A block's comments (what its author says it does) and its code lines, comments taken out."""
    comments: list[str] = []
    code: list[str] = []
    for line in body:
        text = _XML_COMMENT.sub(lambda m: _keep(comments, m.group(1)), line)
        text = _BLOCK_COMMENT.sub(lambda m: _keep(comments, m.group(1)), text)
        text = _DOCSTRING.sub(lambda m: _keep(comments, m.group(1)), text)
        whole = _LINE_COMMENT.match(text)
        if whole:
            _keep(comments, whole.group(1))
            continue
        trailing = _TRAILING.search(text)
        if trailing and "://" not in text[max(0, trailing.start() - 1) : trailing.start() + 4]:
            _keep(comments, trailing.group(1))
            text = text[: trailing.start()]
        code.append(text)
    return comments, code


def _keep(comments: list[str], text: str) -> str:
    text = _TAG.sub(" ", text).strip(" #/*-=;").strip()
    if any(ch.isalpha() for ch in text):
        comments.append(text)
    return " "


def _identifier_words(code: Sequence[str]) -> list[str]:
    """Identifiers split into words ("maxYaw", "cmd_vel" -> "max yaw", "cmd vel"), each word once."""
    seen: dict[str, None] = {}
    for line in code:
        for name in _IDENTIFIER.findall(line):
            for part in _PARTS.split(name):
                word = part.lower()
                if len(word) > 1 and word not in _SYNTAX:
                    seen.setdefault(word, None)
    return list(seen)
