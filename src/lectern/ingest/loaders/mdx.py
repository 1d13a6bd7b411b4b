"""MDX to plain Markdown: what a reader sees, without the JavaScript around it.

Docusaurus parses ``.md`` as MDX too, so both go through here before markdown-it. Fenced code is
left untouched; outside it, ESM ``import``/``export`` blocks, JSX tags, MDX and HTML comments are dropped
(the text between tags is kept), ``<CodeBlock>`` components become fenced code, and admonitions
(``:::tip Title``) become a plain ``Tip: Title`` line.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

# --- fenced code ----------------------------------------------------------------------------------

# Any indentation: fences inside list items are indented, and their lines must stay untouched.
_FENCE_OPEN = re.compile(r"^[ \t]*(`{3,}|~{3,})(.*)$")


def split_fences(text: str) -> Iterator[tuple[bool, str]]:
    """(is_code, segment) pairs that join back to ``text``; an unclosed fence runs to the end."""
    lines = text.splitlines(keepends=True)
    prose: list[str] = []
    i = 0
    while i < len(lines):
        match = _FENCE_OPEN.match(lines[i].rstrip("\n"))
        if match is None or (match.group(1)[0] == "`" and "`" in match.group(2)):
            prose.append(lines[i])
            i += 1
            continue
        if prose:
            yield False, "".join(prose)
            prose = []
        fence = match.group(1)
        closing = re.compile(rf"^[ \t]*{re.escape(fence[0])}{{{len(fence)},}}[ \t]*$")
        j = i + 1
        while j < len(lines) and not closing.match(lines[j].rstrip("\n")):
            j += 1
        yield True, "".join(lines[i : j + 1])
        i = j + 1
    if prose:
        yield False, "".join(prose)


# --- JSX tags -------------------------------------------------------------------------------------

_TAG_NAME = re.compile(r"[A-Za-z][\w.:-]*")
_ATTR_NAME = re.compile(r"[A-Za-z_:][\w:.-]*")
_UNQUOTED_VALUE = re.compile(r"[^\s\"'=<>`{}]+")
_AUTOLINK = re.compile(r"<([A-Za-z][A-Za-z0-9+.-]{1,31}:[^<>\s]*|[\w.+-]+@[\w-]+(?:\.[\w-]+)+)>")
# Expressions longer than this are not JSX but stray braces; give up rather than scan the whole file.
_MAX_EXPRESSION = 20_000


def _skip_ws(text: str, i: int) -> int:
    while i < len(text) and text[i] in " \t\n":
        i += 1
    return i


def _match_braces(text: str, i: int) -> int | None:
    """End (exclusive) of the ``{...}`` expression starting at ``i``, aware of JS strings."""
    depth = 0
    quote = ""
    limit = min(len(text), i + _MAX_EXPRESSION)
    j = i
    while j < limit:
        ch = text[j]
        if quote:
            if ch == "\\":
                j += 2
                continue
            if ch == quote:
                quote = ""
        elif ch in "\"'`":
            quote = ch
        elif ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return j + 1
        j += 1
    return None


def tag_end(text: str, i: int) -> int | None:
    """End (exclusive) of a JSX/HTML tag starting at ``text[i] == '<'``, or None if it is not one."""
    j = i + 1
    closing = text.startswith("/", j)
    if closing:
        j += 1
    if text.startswith(">", j):  # fragments: <> and </>
        return j + 1
    name = _TAG_NAME.match(text, j)
    if name is None:
        return None
    j = name.end()
    if closing:
        j = _skip_ws(text, j)
        return j + 1 if text.startswith(">", j) else None
    if j < len(text) and text[j] not in " \t\n/>":
        return None
    while True:
        j = _skip_ws(text, j)
        if text.startswith(">", j):
            return j + 1
        if text.startswith("/>", j):
            return j + 2
        if text.startswith("{", j):  # {...spread}
            end = _match_braces(text, j)
            if end is None:
                return None
            j = end
            continue
        attr = _ATTR_NAME.match(text, j)
        if attr is None:
            return None
        j = _skip_ws(text, attr.end())
        if not text.startswith("=", j):
            continue
        j = _skip_ws(text, j + 1)
        value_end = _attribute_value_end(text, j)
        if value_end is None:
            return None
        j = value_end


def _attribute_value_end(text: str, j: int) -> int | None:
    if j >= len(text):
        return None
    if text[j] in "\"'":
        end = text.find(text[j], j + 1)
        return None if end == -1 else end + 1
    if text[j] == "{":
        return _match_braces(text, j)
    unquoted = _UNQUOTED_VALUE.match(text, j)
    return unquoted.end() if unquoted else None


def _code_span_end(text: str, i: int) -> int:
    """End of the inline code span opening at ``i`` (a run of backticks), or the run's end if unclosed."""
    run = i
    while run < len(text) and text[run] == "`":
        run += 1
    ticks = text[i:run]
    # A code span never crosses a blank line; look no further than the paragraph.
    stop = text.find("\n\n", run)
    stop = len(text) if stop == -1 else stop
    for match in re.finditer(rf"(?<!`){ticks}(?!`)", text[run:stop]):
        return run + match.end()
    return run


_SPECIAL = re.compile(r"[\\`<{]")
_BREAK_TAG = re.compile(r"<br\b", re.IGNORECASE)


def strip_jsx(text: str) -> str:
    """Remove tags and comments, keep the text between tags, keep inline code and autolinks' URLs."""
    out: list[str] = []
    i = 0
    n = len(text)
    while i < n:
        # Copy plain text up to the next character that may start markup in one go.
        special = _SPECIAL.search(text, i)
        if special is None:
            out.append(text[i:])
            break
        if special.start() > i:
            out.append(text[i : special.start()])
            i = special.start()
        ch = text[i]
        if ch == "\\" and i + 1 < n:
            out.append(text[i : i + 2])
            i += 2
        elif ch == "`":
            end = _code_span_end(text, i)
            out.append(text[i:end])
            i = end
        elif ch == "<" and text.startswith("<!--", i):
            end = text.find("-->", i + 4)
            i = n if end == -1 else end + 3
        elif ch == "<" and (link := _AUTOLINK.match(text, i)):
            out.append(link.group(1))
            i = link.end()
        elif ch == "<" and (tag := tag_end(text, i)) is not None:
            # A line break tag separates words; every other tag just goes.
            if _BREAK_TAG.match(text, i):
                out.append(" ")
            i = tag
        elif ch == "{" and text.startswith("{/*", i):
            end = text.find("*/}", i + 3)
            i = n if end == -1 else end + 3
        else:
            out.append(ch)
            i += 1
    return "".join(out)


# --- <CodeBlock> components -------------------------------------------------------------------------

_CODEBLOCK_OPEN = re.compile(r"^[ \t]*<CodeBlock\b", re.MULTILINE)
_CODEBLOCK_CLOSE = re.compile(r"</CodeBlock\s*>")
_LANGUAGE_ATTR = re.compile(r"""\b(?:language|lang)\s*=\s*["']([\w+#.-]+)["']|language-([\w+#.-]+)""")
_TITLE_ATTR = re.compile(r"""\btitle\s*=\s*(["'])(.*?)\1""")


def _template_body(content: str) -> str:
    """The code of ``{`...`}`` (a JS template literal), or the children as written."""
    body = content.strip()
    if body.startswith("{") and body.endswith("}"):
        inner = body[1:-1].strip()
        if len(inner) >= 2 and inner[0] == inner[-1] and inner[0] in "`\"'":
            body = inner[1:-1]
            body = body.replace("\\`", "`").replace("\\${", "${").replace("\\\\", "\\")
    return body.strip("\n")


def _fenced(code: str, info: str) -> str:
    """Fenced code whose fence is longer than any backtick run inside it."""
    longest = max((len(m) for m in re.findall(r"`+", code)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{info}\n{code}\n{fence}\n"


def split_code_components(text: str) -> Iterator[tuple[bool, str]]:
    """Turn ``<CodeBlock language="py">{`...`}</CodeBlock>`` into fenced code segments."""
    pos = 0
    for match in _CODEBLOCK_OPEN.finditer(text):
        if match.start() < pos:
            continue
        lt = text.index("<", match.start())
        open_end = tag_end(text, lt)
        close = _CODEBLOCK_CLOSE.search(text, open_end) if open_end is not None else None
        if open_end is None or close is None:
            continue
        tag = text[lt:open_end]
        language = _LANGUAGE_ATTR.search(tag)
        title = _TITLE_ATTR.search(tag)
        info = (language.group(1) or language.group(2)) if language else ""
        if title:
            info += f' title="{title.group(2)}"'
        if pos < match.start():
            yield False, text[pos : match.start()]
        yield True, _fenced(_template_body(text[open_end : close.start()]), info)
        pos = close.end()
        # Drop the rest of the closing tag's line break so no stray blank text follows.
        if text.startswith("\n", pos):
            pos += 1
    if pos < len(text):
        yield False, text[pos:]


# --- line-level rules ------------------------------------------------------------------------------

_ESM_START = re.compile(r"^(?:import|export)\s")
_ADMONITION_OPEN = re.compile(r"^[ \t]*:{3,}[ \t]*([A-Za-z][\w-]*)(?:\[([^\]]*)\])?[ \t]*(.*?)[ \t]*$")
_ADMONITION_CLOSE = re.compile(r"^[ \t]*:{3,}[ \t]*$")


def drop_esm(text: str) -> str:
    """Drop ``import``/``export`` blocks: from such a line at a paragraph start to the next blank line."""
    out: list[str] = []
    in_esm = False
    previous_blank = True
    for line in text.split("\n"):
        blank = not line.strip()
        if in_esm:
            in_esm = not blank
        elif previous_blank and _ESM_START.match(line):
            in_esm = True
        if not in_esm:
            out.append(line)
        previous_blank = blank
    return "\n".join(out)


def rewrite_admonitions(text: str) -> str:
    """``:::tip Title`` → ``Tip: Title`` on its own paragraph; an untitled ``:::note`` prefixes the
    first line of its body with ``Note:``; closing ``:::`` lines go."""
    out: list[str] = []
    for line in text.split("\n"):
        if _ADMONITION_CLOSE.match(line):
            out.append("")
            continue
        match = _ADMONITION_OPEN.match(line)
        if match is None:
            out.append(line)
            continue
        kind = match.group(1).capitalize()
        title = (match.group(2) or match.group(3) or "").strip()
        out.extend(["", f"{kind}: {title}", ""] if title else ["", f"{kind}:"])
    return "\n".join(out)


def _clean_prose(text: str) -> str:
    return strip_jsx(rewrite_admonitions(drop_esm(text)))


def clean_mdx(text: str) -> str:
    """Markdown that markdown-it can read, with MDX-only syntax removed and code left as written."""
    parts: list[str] = []
    for is_code, segment in split_fences(text):
        if is_code:
            parts.append(segment)
            continue
        for is_component_code, piece in split_code_components(segment):
            if is_component_code:
                if parts and not parts[-1].endswith("\n"):
                    parts.append("\n")
                parts.append(piece)
            else:
                parts.append(_clean_prose(piece))
    return "".join(parts)
