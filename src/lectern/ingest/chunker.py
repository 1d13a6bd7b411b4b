"""Document → Chunks: one section per chunk boundary, every chunk's ``search_text`` within ``max_tokens``.

Sections are never merged, so each chunk's heading path, anchor and URL are exact. A long section is
cut by the packer (paragraphs, then lines, sentences, words) with a small overlap between its pieces.
Tokens are counted with the embedder's own tokenizer, in batches.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from lectern.content_kind import classify
from lectern.embeddings.base import Tokenizer
from lectern.ingest import slugs
from lectern.ingest.packer import TokenCounter, atomise, pack
from lectern.models import Chunk, Document, Section, content_hash, heading_prefix

log = logging.getLogger(__name__)

_EXTRA_KEYS = ("description", "sidebar_position", "keywords")
# A heading path may take at most this share of a chunk; longer paths are shortened.
_PREFIX_SHARE = 2
# Retries with a tighter budget when a tokenizer counts joined text higher than its parts.
_MAX_REFITS = 6
_ELLIPSIS = "…"
# A section longer than this many characters per token of budget is guessed too long to fit whole
# (English runs ~4-5 characters per token) and skips the whole-section count. A wrong guess costs one
# extra counting pass over that section, never correctness.
_CHARS_PER_TOKEN_GUESS = 5


@dataclass(frozen=True)
class _DocMeta:
    chapter_id: str
    module_name: str
    url_base: str
    extra: dict[str, Any]


@dataclass(frozen=True)
class _Heading:
    """The heading path a section's chunks carry, possibly shortened to fit."""

    hierarchy: list[str]
    title: str
    tokens: int

    @property
    def prefix(self) -> str:
        return heading_prefix(self.hierarchy, self.title)


@dataclass
class _Plan:
    section: Section
    heading: _Heading
    pieces: list[str]
    counts: list[int] = field(default_factory=list)  # tokens of each piece's search_text


def _doc_meta(doc: Document, base_url: str) -> _DocMeta:
    fm = doc.front_matter
    path = doc.doc_url_path or slugs.doc_url_path(doc.source_path, fm)
    return _DocMeta(
        chapter_id=slugs.doc_id(doc.source_path, fm),
        module_name=slugs.module_name(doc.source_path),
        # Percent-encode the page path (spaces, non-ASCII) the way a browser would request it.
        url_base=base_url.rstrip("/") + quote(path, safe="/-._~!$&'()*+,;=:@%"),
        extra={key: fm[key] for key in _EXTRA_KEYS if key in fm},
    )


def _url(meta: _DocMeta, section: Section) -> str:
    if section.anchor:
        return f"{meta.url_base}#{section.anchor}"
    if section.page is not None:
        return f"{meta.url_base}#page={section.page}"
    return meta.url_base


def _shorten(text: str, words: int) -> str:
    parts = text.split()
    return text if len(parts) <= words else " ".join(parts[:words]) + _ELLIPSIS


def _fit_heading(hierarchy: list[str], title: str, limit: int, counter: TokenCounter) -> _Heading:
    """Keep the heading path when it fits ``limit`` tokens; otherwise keep the title and the innermost
    heading, then trim their words, so the text always keeps most of the chunk."""
    tokens = counter.one(heading_prefix(hierarchy, title))
    if tokens <= limit:
        return _Heading(hierarchy, title, tokens)
    parts = list(hierarchy)
    if title and (not parts or parts[0] != title):
        parts.insert(0, title)
    parts = [parts[0], parts[-1]] if len(parts) > 1 else parts
    words = max(len(p.split()) for p in parts)
    while True:
        short = [_shorten(p, words) for p in parts]
        # The title field must equal the path's head, or heading_prefix would add it back.
        short_title = short[0] if title else ""
        tokens = counter.one(heading_prefix(short, short_title))
        if tokens <= limit or words <= 1:
            return _Heading(short, short_title, tokens)
        words = max(1, words // 2)


def _section_name(section: Section, title: str) -> str:
    return section.heading_hierarchy[-1] if section.heading_hierarchy else title


def _pieces(text: str, budget: int, overlap: int, counter: TokenCounter) -> list[str]:
    return pack(atomise(text, budget, counter), budget, overlap, counter)


def chunk_document(
    doc: Document,
    tokenizer: Tokenizer,
    *,
    max_tokens: int,
    overlap_tokens: int = 32,
    base_url: str = "",
) -> list[Chunk]:
    """Cut a document into chunks whose ``search_text`` (heading path + text) has ≤ ``max_tokens``."""
    if max_tokens < 2:
        raise ValueError("max_tokens must be at least 2")
    counter = TokenCounter(tokenizer)
    meta = _doc_meta(doc, base_url)
    sections = [s for s in doc.sections if s.text.strip()]
    texts = [s.text.strip() for s in sections]
    prefixes = [heading_prefix(s.heading_hierarchy, doc.title) for s in sections]
    # Most sections fit whole: count each as it will be embedded, in one batch, and be done. Sections
    # far longer than a chunk skip that count; they are cut and their pieces counted instead.
    maybe_whole = [
        len(p) + len(t) <= max_tokens * _CHARS_PER_TOKEN_GUESS for p, t in zip(prefixes, texts, strict=True)
    ]
    whole = iter(counter.many([p + t for p, t, m in zip(prefixes, texts, maybe_whole, strict=True) if m]))
    plans: list[_Plan] = []
    to_cut: list[int] = []
    for k, section in enumerate(sections):
        tokens = next(whole) if maybe_whole[k] else max_tokens + 1
        if tokens <= max_tokens:
            plans.append(
                _Plan(section, _Heading(section.heading_hierarchy, doc.title, 0), [texts[k]], [tokens])
            )
        else:
            plans.append(_Plan(section, _Heading(section.heading_hierarchy, doc.title, 0), []))
            to_cut.append(k)
    # Count every line of the sections to cut in one batch; blocks and code parts are sums of lines.
    counter.by_lines([texts[k] for k in to_cut])
    counter.many([prefixes[k] for k in to_cut])
    for k in to_cut:
        plan = plans[k]
        plan.heading = _fit_heading(
            plan.section.heading_hierarchy, doc.title, max_tokens // _PREFIX_SHARE, counter
        )
        plan.pieces = _pieces(texts[k], max(1, max_tokens - plan.heading.tokens), overlap_tokens, counter)
    _verify(plans, max_tokens, overlap_tokens, counter)

    chunks: list[Chunk] = []
    for plan in plans:
        section, heading = plan.section, plan.heading
        for text, tokens in zip(plan.pieces, plan.counts, strict=True):
            chunks.append(
                Chunk(
                    text=text,
                    content_hash=content_hash(text),
                    chunk_index=len(chunks),
                    token_count=tokens,
                    heading_hierarchy=heading.hierarchy,
                    title=heading.title,
                    chapter=doc.title,
                    section=_section_name(section, doc.title),
                    module_name=meta.module_name,
                    chapter_id=meta.chapter_id,
                    url=_url(meta, section),
                    source_path=doc.source_path,
                    page=section.page,
                    extra={**meta.extra, "content_kind": classify(doc.source_path, heading.hierarchy, text)},
                )
            )
    return chunks


def _search_texts(plan: _Plan) -> list[str]:
    return [plan.heading.prefix + piece for piece in plan.pieces]


def _verify(plans: list[_Plan], max_tokens: int, overlap: int, counter: TokenCounter) -> None:
    """Count the search_text of every cut piece in one batch. A section whose joined pieces count
    higher than the sum of their parts (BPE merges across joins) is re-cut with a budget tightened by
    the excess."""
    todo = [plan for plan in plans if not plan.counts]
    flat = iter(counter.many([t for plan in todo for t in _search_texts(plan)]))
    for plan in todo:
        plan.counts = [next(flat) for _ in plan.pieces]
        budget = max_tokens - plan.heading.tokens
        for _ in range(_MAX_REFITS):
            excess = max(plan.counts) - max_tokens
            if excess <= 0 or budget <= 1:
                break
            budget = max(1, budget - excess)
            plan.pieces = _pieces(plan.section.text.strip(), budget, overlap, counter)
            plan.counts = counter.many(_search_texts(plan))
        if max(plan.counts) > max_tokens:
            log.warning(
                "a chunk of %s has %d tokens, over the limit of %d",
                plan.section.heading_hierarchy,
                max(plan.counts),
                max_tokens,
            )
