"""Mermaid diagrams as lines a reader can quote.

Books draw many answers instead of writing them ("Export: COCO Format, KITTI Format"; "Unconfigured →
Inactive (configure)"). The diagram's source is noise to a reader, but its labels and arrows are the
author's words: each group of a flowchart becomes "Group: label; label", each arrow "A → B (label)",
a state transition "State → State (event)", a message "Alice → Bob: text", a pie slice "Label: 42".
Styling, classes and comments are dropped. Anything not understood is skipped, never guessed.
"""

from __future__ import annotations

import re

MAX_LINES = 24  # a huge diagram yields its first lines; the rest would crowd out the prose

_IGNORED = re.compile(r"^(style|classDef|class|linkStyle|click|direction|%%|accTitle|accDescr)\b")
_OPEN_CLOSE = (
    ("[[", "]]"),
    ("[(", ")]"),
    ("([", "])"),
    ("((", "))"),
    ("{{", "}}"),
    ("[/", "/]"),
    ("[\\", "\\]"),
    ("[", "]"),
    ("(", ")"),
    ("{", "}"),
    (">", "]"),
)
_NODE = re.compile(
    r"(?P<id>[A-Za-z_][\w-]*)\s*(?P<shape>"
    + "|".join(re.escape(o) + r"\s*(?:\"[^\"]*\"|[^\]\)\}\"]*?)\s*" + re.escape(c) for o, c in _OPEN_CLOSE)
    + ")"
)
_ARROW = re.compile(
    r"\s*(?:<?(?:-{2,}|={2,}|-\.+-)[->ox]?|<?-\.+->|--\s+[^-|>]+?\s+-->)\s*(?:\|\s*\"?([^|\"]*)\"?\s*\|)?\s*"
)
_SUBGRAPH = re.compile(r"^subgraph\s+(?:(?P<id>[\w-]+)\s*\[\s*\"?(?P<title>[^\"\]]*)\"?\s*\]|(?P<plain>.+))$")
_STATE = re.compile(r"^(?P<a>\[\*\]|[\w-]+)\s*-->\s*(?P<b>\[\*\]|[\w-]+)\s*(?::\s*(?P<label>.+))?$")
_STATE_ALIAS = re.compile(r"^state\s+\"(?P<label>[^\"]+)\"\s+as\s+(?P<id>[\w-]+)")
_MESSAGE = re.compile(
    r"^(?P<a>[\w-]+)\s*(?:-{1,2}>>|-{1,2}>|-{1,2}x|-{1,2}\))\s*[+-]?(?P<b>[\w-]+)\s*:\s*(?P<m>.+)$"
)
_PARTICIPANT = re.compile(r"^(?:participant|actor)\s+(?P<id>[\w-]+)(?:\s+as\s+(?P<label>.+))?$")
_NOTE = re.compile(r"^note\s+(?:over|left of|right of)\s+[^:]+:\s*(?P<text>.+)$", re.IGNORECASE)
_SLICE = re.compile(r"^\"(?P<label>[^\"]+)\"\s*:\s*(?P<value>[\d.]+)$")
_HTML_BREAK = re.compile(r"<br\s*/?>", re.IGNORECASE)
_DECORATION = re.compile(r"[\[\](){}\"`]|^[>/\\]+|[>/\\]+$")
_WS = re.compile(r"\s+")


def _label(raw: str) -> str:
    text = _HTML_BREAK.sub(" ", raw)
    text = _DECORATION.sub(" ", text.strip())
    return _WS.sub(" ", text).strip(" :;,")


def diagram_lines(source: str) -> list[str]:
    """Readable lines of a Mermaid diagram's source (without its fences); empty when not understood."""
    lines = [line.strip() for line in source.splitlines()]
    lines = [line for line in lines if line and not _IGNORED.match(line)]
    if not lines:
        return []
    kind = lines[0].split()[0].lower()
    body = lines[1:]
    if kind in ("flowchart", "graph"):
        out = _flowchart(body)
    elif kind.startswith("statediagram"):
        out = _state_diagram(body)
    elif kind == "sequencediagram":
        out = _sequence(body)
    elif kind == "pie":
        out = _pie(body)
    elif kind in ("mindmap", "timeline"):
        out = _outline(source.splitlines()[1:])
    else:
        out = []
    unique = [line for line in dict.fromkeys(out) if line]  # in order, each once
    return unique[:MAX_LINES]


def _flowchart(body: list[str]) -> list[str]:
    labels: dict[str, str] = {}
    groups: list[tuple[str, list[str]]] = []
    stack: list[tuple[str, list[str]]] = []
    edges: list[str] = []
    for line in body:
        sub = _SUBGRAPH.match(line)
        if sub:
            title = _label(sub.group("title") or sub.group("plain") or "")
            if sub.group("id") and title:
                labels[sub.group("id")] = title
            stack.append((title, []))
            groups.append(stack[-1])
            continue
        if line == "end":
            if stack:
                stack.pop()
            continue
        defined: list[str] = []
        for match in _NODE.finditer(line):
            shape = match.group("shape")
            label = _label(shape)
            if label:
                labels[match.group("id")] = label
                defined.append(match.group("id"))
        if stack:
            members = stack[-1][1]
            members.extend(i for i in defined if i not in members)
        edges.extend(_edges(line))
    out = [
        f"{title}: {'; '.join(labels.get(i, i) for i in members)}"
        for title, members in groups
        if title and members
    ]
    # One line per source node: "Postprocessing → Detections; Bounding Boxes; Instance Masks".
    targets: dict[str, list[str]] = {}
    for a, label, b in (e.split("\x00") for e in edges):
        target = labels.get(b, b)
        targets.setdefault(labels.get(a, a), []).append(f"{target} ({label})" if label else target)
    out.extend(f"{source} → {'; '.join(ts)}" for source, ts in targets.items())
    return out


def _edges(line: str) -> list[str]:
    """Arrows of one flowchart line as "a\\0label\\0b" (chains "A --> B --> C" give two)."""
    # Node shapes can hold arrow-like text; replace each with its id before splitting on arrows.
    plain = _NODE.sub(lambda m: m.group("id"), line)
    parts = _ARROW.split(plain)
    if len(parts) < 3:
        return []
    # re.split with one capturing group: node, label, node, label, node ...
    nodes = [p.strip() for p in parts[0::2]]
    labels = [(p or "").strip() for p in parts[1::2]]
    out = []
    for i in range(len(nodes) - 1):
        for a in nodes[i].split("&"):
            for b in nodes[i + 1].split("&"):
                a, b = a.strip(), b.strip()
                if re.fullmatch(r"[\w-]+", a) and re.fullmatch(r"[\w-]+", b):
                    out.append(f"{a}\x00{_label(labels[i])}\x00{b}")
    return out


def _state_diagram(body: list[str]) -> list[str]:
    names: dict[str, str] = {}
    out: list[str] = []
    for line in body:
        alias = _STATE_ALIAS.match(line)
        if alias:
            names[alias.group("id")] = _label(alias.group("label"))
            continue
        move = _STATE.match(line)
        if not move:
            continue
        a = "start" if move.group("a") == "[*]" else names.get(move.group("a"), move.group("a"))
        b = "end" if move.group("b") == "[*]" else names.get(move.group("b"), move.group("b"))
        label = _label(move.group("label") or "")
        out.append(f"{a} → {b} ({label})" if label else f"{a} → {b}")
    return out


def _sequence(body: list[str]) -> list[str]:
    names: dict[str, str] = {}
    out: list[str] = []
    for line in body:
        who = _PARTICIPANT.match(line)
        if who:
            names[who.group("id")] = _label(who.group("label") or who.group("id"))
            continue
        note = _NOTE.match(line)
        if note:
            out.append(_label(note.group("text")))
            continue
        message = _MESSAGE.match(line)
        if message:
            a, b = (names.get(message.group(k), message.group(k)) for k in ("a", "b"))
            out.append(f"{a} → {b}: {_label(message.group('m'))}")
    return out


def _pie(body: list[str]) -> list[str]:
    out = []
    for line in body:
        piece = _SLICE.match(line)
        if piece:
            out.append(f"{_label(piece.group('label'))}: {piece.group('value')}")
    return out


def _outline(raw_lines: list[str]) -> list[str]:
    """Mindmaps and timelines: each top-level branch with what hangs under it."""
    entries = [(len(line) - len(line.lstrip()), _label(line)) for line in raw_lines if line.strip()]
    entries = [(depth, text) for depth, text in entries if text and not _IGNORED.match(text)]
    if not entries:
        return []
    root_depth = entries[0][0]
    branch_depth = min((d for d, _ in entries[1:] if d > root_depth), default=None)
    out: list[str] = []
    current: tuple[str, list[str]] | None = None
    for depth, text in entries[1:]:
        if depth == branch_depth:
            if current:
                out.append(f"{current[0]}: {'; '.join(current[1])}" if current[1] else current[0])
            current = (text, [])
        elif current is not None:
            current[1].append(text)
    if current:
        out.append(f"{current[0]}: {'; '.join(current[1])}" if current[1] else current[0])
    return out
