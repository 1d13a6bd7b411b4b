"""Markdown and MDX → Document: sections split at H1-H4, rendered as plain text with code kept verbatim."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.token import Token

from lectern.errors import IngestError
from lectern.ingest.loaders.common import decode_text, fallback_title, tidy
from lectern.ingest.loaders.frontmatter import split_front_matter
from lectern.ingest.loaders.mdx import clean_mdx, strip_jsx
from lectern.ingest.slugs import Slugger, doc_url_path, split_heading_id
from lectern.models import Document, DocumentFormat, Section

SECTION_LEVELS = 4  # H1-H4 start sections; H5/H6 stay in the text.


def _parser(indented_code: bool) -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])
    # MDX has no indented code blocks; text indented inside JSX components must stay prose.
    return md if indented_code else md.disable("code")


_MARKDOWN = _parser(indented_code=True)
_MDX = _parser(indented_code=False)


def render_inline(token: Token, *, code_marks: bool = True) -> str:
    """Plain text of an inline token: emphasis and link syntax dropped, inline code kept in backticks."""
    parts: list[str] = []
    for child in token.children or []:
        kind = child.type
        if kind in ("text", "text_special"):
            parts.append(child.content)
        elif kind == "code_inline":
            parts.append(f"`{child.content}`" if code_marks else child.content)
        elif kind == "softbreak":
            parts.append(" ")
        elif kind == "hardbreak":
            parts.append("\n")
        elif kind == "image":
            parts.append(child.content)
    return "".join(parts)


@dataclass
class _RawSection:
    headings: list[tuple[int, str]]
    anchor: str
    blocks: list[str] = field(default_factory=list)


class _Renderer:
    """Walks markdown-it's flat token stream once, cutting a new section at every H1-H4."""

    def __init__(self) -> None:
        self.sections: list[_RawSection] = [_RawSection([], "")]
        self.first_h1 = ""
        self._slugger = Slugger()
        self._stack: list[tuple[int, str]] = []
        self._containers = 0  # open lists/tables: their lines are kept together as one block
        self._group: list[str] = []
        self._list_numbers: list[int | None] = []
        self._item_prefix: list[str] = []
        self._row: list[str] | None = None

    # --- output ---------------------------------------------------------------------------------
    def _emit(self, text: str) -> None:
        if not text.strip():
            return
        if self._containers:
            self._group.append(text)
        else:
            self.sections[-1].blocks.append(text)

    def _emit_line(self, text: str) -> None:
        """A paragraph inside a list item takes the item's bullet (first paragraph) or indentation."""
        if self._item_prefix:
            prefix = self._item_prefix[-1]
            self._item_prefix[-1] = " " * len(prefix)
            indent = "  " * (len(self._list_numbers) - 1)
            text = indent + prefix + text.replace("\n", "\n" + indent + " " * len(prefix))
        self._emit(text)

    # --- tokens ---------------------------------------------------------------------------------
    def render(self, tokens: Sequence[Token]) -> None:
        i = 0
        while i < len(tokens):
            token = tokens[i]
            kind = token.type
            if kind == "heading_open":
                self._heading(int(token.tag[1]), tokens[i + 1])
                i += 3
                continue
            if kind == "inline":
                text = render_inline(token)
                if self._row is not None:
                    self._row.append(text.strip())
                else:
                    self._emit_line(text)
            elif kind in ("fence", "code_block"):
                self._emit(_fence_text(token))
            elif kind == "html_block":
                self._emit_line(tidy(strip_jsx(token.content)))
            elif kind in ("bullet_list_open", "ordered_list_open"):
                start = token.attrGet("start")
                self._list_numbers.append(
                    (int(start) if start is not None else 1) if kind == "ordered_list_open" else None
                )
                self._open_container()
            elif kind in ("bullet_list_close", "ordered_list_close"):
                self._list_numbers.pop()
                self._close_container()
            elif kind == "list_item_open":
                self._item_prefix.append(self._bullet())
            elif kind == "list_item_close":
                self._item_prefix.pop()
            elif kind == "table_open":
                self._open_container()
            elif kind == "table_close":
                self._close_container()
            elif kind == "tr_open":
                self._row = []
            elif kind == "tr_close":
                row, self._row = self._row or [], None
                self._emit(" | ".join(row))
            i += 1

    def _bullet(self) -> str:
        number = self._list_numbers[-1] if self._list_numbers else None
        if number is None:
            return "- "
        self._list_numbers[-1] = number + 1
        return f"{number}. "

    def _open_container(self) -> None:
        self._containers += 1

    def _close_container(self) -> None:
        self._containers -= 1
        if self._containers == 0 and self._group:
            group, self._group = self._group, []
            self.sections[-1].blocks.append("\n".join(group))

    def _heading(self, level: int, inline: Token) -> None:
        text, custom_id = split_heading_id(render_inline(inline, code_marks=False).strip())
        # Every heading counts towards duplicate anchors, H5/H6 included, as in Docusaurus.
        anchor = custom_id or self._slugger.slug(text)
        if level == 1 and not self.first_h1:
            self.first_h1 = text
        if level > SECTION_LEVELS or self._containers:
            self._emit_line(text)
            return
        while self._stack and self._stack[-1][0] >= level:
            self._stack.pop()
        self._stack.append((level, text))
        # Docusaurus renders H1 without an id: its section links to the top of the page.
        self.sections.append(_RawSection(list(self._stack), "" if level == 1 else anchor))


def _fence_text(token: Token) -> str:
    markup = token.markup or "```"
    body = token.content if token.content.endswith("\n") or not token.content else token.content + "\n"
    return f"{markup}{token.info}\n{body}{markup}"


def _sections(raw: list[_RawSection], title: str) -> list[Section]:
    sections: list[Section] = []
    for item in raw:
        text = tidy("\n\n".join(item.blocks))
        if not text:
            continue
        names = [name for _, name in item.headings]
        # The page title leads the path unless the path already starts at the page's own H1.
        if not item.headings or item.headings[0][0] != 1:
            names.insert(0, title)
        sections.append(Section(heading_hierarchy=names, anchor=item.anchor, text=text))
    return sections


def parse_markdown(text: str, source_path: str, fmt: DocumentFormat) -> Document:
    front_matter, body = split_front_matter(text, source_path)
    md = _MDX if fmt == "mdx" else _MARKDOWN
    renderer = _Renderer()
    renderer.render(md.parse(clean_mdx(body)))
    title = _title(front_matter) or renderer.first_h1 or fallback_title(source_path)
    sections = _sections(renderer.sections, title)
    if not sections:
        raise IngestError("empty")
    return Document(
        source_path=source_path,
        format=fmt,
        title=title,
        sections=sections,
        front_matter=front_matter,
        doc_url_path=doc_url_path(source_path, front_matter),
    )


def _title(front_matter: dict[str, Any]) -> str:
    value = front_matter.get("title")
    return str(value).strip() if value is not None else ""


def load_markdown(data: bytes, source_path: str) -> Document:
    return parse_markdown(decode_text(data), source_path, "markdown")


def load_mdx(data: bytes, source_path: str) -> Document:
    return parse_markdown(decode_text(data), source_path, "mdx")
