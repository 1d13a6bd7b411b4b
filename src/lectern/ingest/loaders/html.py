"""HTML → Document: the page's main content, sections at h1-h4, code in ``<pre>`` kept verbatim."""

from __future__ import annotations

import re
from typing import Any

from selectolax.lexbor import LexborHTMLParser

from lectern.errors import IngestError
from lectern.ingest.loaders.common import decode_text, fallback_title, tidy
from lectern.ingest.slugs import Slugger
from lectern.models import Document, Section

_MAIN_SELECTORS = ("main", "article", "[role=main]", "body")
# Page chrome; an <article>'s own <header> holds its title and stays.
_NOISE = ", ".join(
    [
        "nav, footer, script, style, aside, noscript, template, svg, button",
        # Docusaurus page furniture inside the article: mobile table of contents, edit link, tags.
        ".theme-doc-toc-mobile, .theme-doc-footer, .theme-doc-version-badge, .table-of-contents",
    ]
)
_SECTION_TAGS = frozenset({"h1", "h2", "h3", "h4"})
_MINOR_HEADINGS = frozenset({"h5", "h6"})
_BLOCK_TAGS = frozenset(
    {
        "address", "article", "blockquote", "dd", "details", "div", "dl", "dt", "fieldset", "figcaption",
        "figure", "header", "li", "main", "ol", "p", "section", "summary", "table", "tbody", "td", "tfoot",
        "th", "thead", "tr", "ul", "hr",
    }
)  # fmt: skip
_GROUP_TAGS = frozenset({"ul", "ol", "table", "dl"})
_SPACES = re.compile(r"[ \t\r\n\f\v\u00a0]+")
_LANGUAGE = re.compile(r"(?:^|\s)(?:language|lang)-([\w+#.-]+)")


def _inline(text: str) -> str:
    return _SPACES.sub(" ", text.replace("\u200b", ""))


class _Walker:
    """Turns the content tree into sections of plain-text blocks in one pass."""

    def __init__(self) -> None:
        self.sections: list[tuple[list[tuple[int, str]], str, list[str]]] = [([], "", [])]
        self.first_h1 = ""
        self._stack: list[tuple[int, str]] = []
        self._slugger = Slugger()
        self._buffer: list[str] = []
        self._groups = 0
        self._group: list[str] = []

    def finish(self) -> None:
        self._flush()

    def _flush(self) -> None:
        text = "\n".join(line.strip() for line in "".join(self._buffer).split("\n")).strip()
        self._buffer = []
        if not text:
            return
        if self._groups:
            self._group.append(text)
        else:
            self.sections[-1][2].append(text)

    def walk(self, node: Any) -> None:
        for child in node.iter(include_text=True):
            tag = child.tag
            if tag == "-text":
                self._buffer.append(_inline(child.text(deep=False)))
            elif tag in _SECTION_TAGS or tag in _MINOR_HEADINGS:
                self._heading(child)
            elif tag == "pre":
                self._flush()
                self._buffer.append(_pre(child))
                self._flush()
            elif tag == "br":
                self._buffer.append("\n")
            elif tag == "img":
                self._buffer.append(_inline(child.attributes.get("alt") or ""))
            elif tag in ("td", "th"):
                self._buffer.append(" | " if self._buffer and "".join(self._buffer).strip() else "")
                self.walk(child)
            elif tag in _BLOCK_TAGS:
                self._block(child, tag)
            elif tag is not None and not tag.startswith("-"):
                self.walk(child)

    def _block(self, node: Any, tag: str) -> None:
        self._flush()
        grouped = tag in _GROUP_TAGS
        if grouped:
            self._groups += 1
        if tag == "li":
            self._buffer.append("- ")
        self.walk(node)
        self._flush()
        if grouped:
            self._groups -= 1
            if self._groups == 0 and self._group:
                group, self._group = self._group, []
                self.sections[-1][2].append("\n".join(group))

    def _heading(self, node: Any) -> None:
        self._flush()
        level = int(node.tag[1])
        text = _inline(node.text(deep=True)).strip()
        explicit = node.attributes.get("id") or ""
        anchor = explicit or self._slugger.slug(text)
        if level == 1 and not self.first_h1:
            self.first_h1 = text
        if node.tag in _MINOR_HEADINGS or self._groups or not text:
            self._buffer.append(text)
            self._flush()
            return
        while self._stack and self._stack[-1][0] >= level:
            self._stack.pop()
        self._stack.append((level, text))
        # An h1 without an id is the page title: link to the top of the page.
        self.sections.append((list(self._stack), "" if level == 1 and not explicit else anchor, []))


def _pre(node: Any) -> str:
    code = node.text(deep=True).strip("\n")
    classes = " ".join(n.attributes.get("class") or "" for n in [node, *node.css("code")])
    language = _LANGUAGE.search(classes)
    return f"```{language.group(1) if language else ''}\n{code}\n```"


def _content_root(tree: LexborHTMLParser) -> Any:
    for selector in _MAIN_SELECTORS:
        node = tree.css_first(selector)
        if node is not None:
            return node
    return tree.root


def _drop_noise(root: Any) -> None:
    for node in root.css(_NOISE):
        node.decompose()
    for node in root.css("header"):
        parent = node.parent
        while parent is not None and parent.tag != "article":
            parent = parent.parent
        if parent is None:
            node.decompose()


def load_html(data: bytes, source_path: str) -> Document:
    text = decode_text(data)
    tree = LexborHTMLParser(text)
    page_title_node = tree.css_first("title")
    page_title = _inline(page_title_node.text(deep=True)).strip() if page_title_node is not None else ""
    root = _content_root(tree)
    if root is None:
        raise IngestError("empty")
    _drop_noise(root)
    walker = _Walker()
    walker.walk(root)
    walker.finish()
    title = walker.first_h1 or page_title or fallback_title(source_path)
    sections: list[Section] = []
    for headings, anchor, blocks in walker.sections:
        body = tidy("\n\n".join(blocks))
        if not body:
            continue
        names = [name for _, name in headings]
        if not headings or headings[0][0] != 1:
            names.insert(0, title)
        sections.append(Section(heading_hierarchy=names, anchor=anchor, text=body))
    if not sections:
        raise IngestError("empty")
    return Document(
        source_path=source_path,
        format="html",
        title=title,
        sections=sections,
        doc_url_path="/" + source_path,
    )
