"""The chunker with a whitespace tokenizer: token bound incl. heading prefix, no text lost, overlap,
code kept whole, exact metadata."""

from __future__ import annotations

import itertools
import re
import time
from collections.abc import Sequence
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lectern.ingest.chunker import chunk_document
from lectern.ingest.loaders import load_document
from lectern.models import Chunk, Document, Section, content_hash

DOCS = Path(__file__).resolve().parents[1] / "fixtures" / "docs"


class WhitespaceTokenizer:
    """One token per whitespace-separated word; counts every call so tests can check batching."""

    def __init__(self) -> None:
        self.calls = 0

    def count_tokens(self, text: str) -> int:
        self.calls += 1
        return len(text.split())

    def count_tokens_many(self, texts: Sequence[str]) -> list[int]:
        self.calls += 1
        return [len(t.split()) for t in texts]


TOK = WhitespaceTokenizer()


def words(n: int, start: int = 0) -> list[str]:
    return [f"w{i}" for i in range(start, start + n)]


def paragraph(ws: list[str], sentence: int = 7) -> str:
    """Words grouped into sentences ending with a period."""
    out = []
    for i in range(0, len(ws), sentence):
        out.append(" ".join(ws[i : i + sentence]) + ".")
    return " ".join(out)


def doc_of(
    *sections: Section, title: str = "Doc", source_path: str = "mod-a/page.md", **kw: object
) -> Document:
    return Document(source_path=source_path, format="markdown", title=title, sections=list(sections), **kw)  # type: ignore[arg-type]


def is_subsequence(needle: list[str], haystack: list[str]) -> bool:
    it = iter(haystack)
    return all(any(w == h for h in it) for w in needle)


def chunk_words(chunks: list[Chunk]) -> list[str]:
    return [w.rstrip(".") for c in chunks for w in c.text.split()]


def assert_bounded(chunks: list[Chunk], max_tokens: int) -> None:
    for chunk in chunks:
        assert chunk.token_count == len(chunk.search_text.split())
        assert chunk.token_count <= max_tokens, chunk.search_text


# --- bounds and coverage ----------------------------------------------------------------------------


def test_long_section_is_cut_within_budget_without_losing_text() -> None:
    ws = words(1000)
    text = "\n\n".join(paragraph(ws[i : i + 90]) for i in range(0, 1000, 90))
    doc = doc_of(Section(heading_hierarchy=["Doc", "Long Part"], anchor="long-part", text=text))
    chunks = chunk_document(doc, TOK, max_tokens=64, overlap_tokens=8)
    assert len(chunks) > 15
    assert_bounded(chunks, 64)
    assert is_subsequence(ws, chunk_words(chunks))
    assert [c.chunk_index for c in chunks] == list(range(len(chunks)))


def test_small_sections_are_never_merged() -> None:
    doc = doc_of(
        Section(heading_hierarchy=["Doc", "A"], anchor="a", text="alpha one."),
        Section(heading_hierarchy=["Doc", "B"], anchor="b", text="beta two."),
    )
    chunks = chunk_document(doc, TOK, max_tokens=100)
    assert [(c.text, c.section, c.url) for c in chunks] == [
        ("alpha one.", "A", "/mod-a/page#a"),
        ("beta two.", "B", "/mod-a/page#b"),
    ]


def test_empty_sections_give_no_chunks() -> None:
    doc = doc_of(Section(heading_hierarchy=["Doc", "Empty"], text="  \n"), Section(text="body"))
    assert [c.text for c in chunk_document(doc, TOK, max_tokens=50)] == ["body"]


def test_overlap_repeats_the_tail_of_the_previous_chunk() -> None:
    text = "\n\n".join(paragraph(words(30, i * 30)) for i in range(6))
    doc = doc_of(Section(heading_hierarchy=["Doc"], text=text))
    chunks = chunk_document(doc, TOK, max_tokens=60, overlap_tokens=10)
    assert len(chunks) >= 3
    for first, second in itertools.pairwise(chunks):
        head = second.text.split()[:3]
        tail = first.text.split()
        assert any(tail[i : i + 3] == head for i in range(len(tail) - 2)), (first.text, second.text)
    no_overlap = chunk_document(doc, TOK, max_tokens=60, overlap_tokens=0)
    assert sum(len(c.text.split()) for c in no_overlap) == len(text.split())


def test_overlap_prefers_whole_lines_of_a_list() -> None:
    items = "\n".join(f"- item {i} has words" for i in range(40))
    doc = doc_of(Section(heading_hierarchy=["Doc"], text=items))
    chunks = chunk_document(doc, TOK, max_tokens=50, overlap_tokens=10)
    assert len(chunks) > 2
    assert all(c.text.startswith("- item ") for c in chunks)


def test_absurd_heading_path_is_shortened_to_fit() -> None:
    long_heading = " ".join(["very"] * 200)
    doc = doc_of(
        Section(
            heading_hierarchy=["Doc", long_heading, "Middle", long_heading + " end"],
            text=paragraph(words(100)),
        ),
        title="Doc " + " ".join(["title"] * 100),
    )
    chunks = chunk_document(doc, TOK, max_tokens=40, overlap_tokens=4)
    assert_bounded(chunks, 40)
    assert is_subsequence(words(100), chunk_words(chunks))
    for chunk in chunks:
        assert len(chunk.heading_hierarchy) == 2
        assert chunk.heading_hierarchy[0] == chunk.title
        assert chunk.heading_hierarchy[-1].endswith("…")
    assert chunks[0].chapter.startswith("Doc title")  # metadata keeps the real title


def test_words_longer_than_a_chunk_are_split() -> None:
    class CharTokenizer(WhitespaceTokenizer):
        def count_tokens_many(self, texts: Sequence[str]) -> list[int]:
            return [len(t) for t in texts]

    blob = "x" * 500
    doc = doc_of(Section(text=f"before {blob} after"))
    chunks = chunk_document(doc, CharTokenizer(), max_tokens=64, overlap_tokens=0)
    assert all(c.token_count <= 64 for c in chunks)
    assert "".join(c.text.replace(" ", "") for c in chunks) == f"before{blob}after"


def test_tokenizers_that_count_joins_are_still_bounded() -> None:
    """Like BPE, where a newline is a token of its own: sums of parts undercount; the chunker re-cuts."""

    class NewlineTokenizer(WhitespaceTokenizer):
        def count_tokens_many(self, texts: Sequence[str]) -> list[int]:
            return [len(t.split()) + t.count("\n") for t in texts]

    code = "```\n" + "\n".join(f"x{i} = {i}" for i in range(80)) + "\n```"
    text = "\n\n".join([paragraph(words(50)), "\n".join(f"- item {i}" for i in range(50)), code])
    doc = doc_of(Section(heading_hierarchy=["Doc", "Part"], text=text))
    tokenizer = NewlineTokenizer()
    chunks = chunk_document(doc, tokenizer, max_tokens=40, overlap_tokens=6)
    for chunk in chunks:
        assert chunk.token_count == tokenizer.count_tokens_many([chunk.search_text])[0] <= 40


def test_max_tokens_must_leave_room() -> None:
    with pytest.raises(ValueError, match="max_tokens"):
        chunk_document(doc_of(Section(text="x")), TOK, max_tokens=1)


# --- code -------------------------------------------------------------------------------------------

CODE = "```python\n# not a heading\nimport os\n\n\ndef main():\n    return os.getcwd()\n```"


def test_code_block_that_fits_is_never_split() -> None:
    text = "\n\n".join([paragraph(words(40)), CODE, paragraph(words(40, 40))])
    doc = doc_of(Section(heading_hierarchy=["Doc", "Code"], anchor="code", text=text))
    chunks = chunk_document(doc, TOK, max_tokens=45, overlap_tokens=5)
    assert_bounded(chunks, 45)
    assert sum(CODE in c.text for c in chunks) >= 1
    for chunk in chunks:
        assert chunk.text.count("```") % 2 == 0, chunk.text


def test_long_code_block_is_cut_between_lines_and_refenced() -> None:
    lines = [f"value_{i} = compute({i}, {i + 1})" for i in range(60)]
    code = "```python\n" + "\n".join(lines) + "\n```"
    doc = doc_of(Section(heading_hierarchy=["Doc"], text=code))
    chunks = chunk_document(doc, TOK, max_tokens=40, overlap_tokens=5)
    assert len(chunks) > 3
    assert_bounded(chunks, 40)
    for chunk in chunks:
        assert chunk.text.startswith("```python\n")
        assert chunk.text.endswith("\n```")
    seen = [line for c in chunks for line in c.text.split("\n")[1:-1]]
    assert [line for line in lines if line not in seen] == []


# --- metadata ---------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def mdx_chunks() -> list[Chunk]:
    doc = load_document(DOCS / "module-1-ros2" / "01-basics.mdx", DOCS)
    return chunk_document(doc, TOK, max_tokens=200, base_url="https://example.com/docs/")


def test_chunk_metadata_from_a_docusaurus_page(mdx_chunks: list[Chunk]) -> None:
    first = mdx_chunks[0]
    assert first.title == first.chapter == "Chapter 1: ROS 2 Basics"
    assert first.module_name == "Module 1 Ros2"
    assert first.chapter_id == "module-1-ros2/ch1-basics"
    assert first.source_path == "module-1-ros2/01-basics.mdx"
    assert first.page is None
    assert first.extra == {
        "description": "Nodes, topics and the command line.",
        "sidebar_position": 2,
        "keywords": ["nodes", "topics"],
        "content_kind": "prose",
    }
    assert [(c.section, c.url) for c in mdx_chunks] == [
        ("Chapter 1: ROS 2 Basics", "https://example.com/docs/module-1-ros2/ch1-basics"),
        ("What is ROS 2?", "https://example.com/docs/module-1-ros2/ch1-basics#what-is-ros-2"),
        ("Installing ROS 2", "https://example.com/docs/module-1-ros2/ch1-basics#install"),
        ("Your First Node", "https://example.com/docs/module-1-ros2/ch1-basics#your-first-node"),
        ("Running It", "https://example.com/docs/module-1-ros2/ch1-basics#running-it"),
        ("Your First Node", "https://example.com/docs/module-1-ros2/ch1-basics#your-first-node-1"),
        ("Deep Detail", "https://example.com/docs/module-1-ros2/ch1-basics#deep-detail"),
    ]
    for chunk in mdx_chunks:
        assert chunk.content_hash == content_hash(chunk.text)
        assert chunk.token_count == len(chunk.search_text.split())
    assert mdx_chunks[4].heading_hierarchy == ["Chapter 1: ROS 2 Basics", "Your First Node", "Running It"]
    assert mdx_chunks[4].search_text == (
        "Chapter 1: ROS 2 Basics > Your First Node > Running It\n\n"
        "Run the node with `ros2 run demo minimal_node`."
    )


def test_url_without_base_is_the_doc_path() -> None:
    doc = load_document(DOCS / "intro.md", DOCS)
    chunks = chunk_document(doc, TOK, max_tokens=100)
    assert [c.url for c in chunks] == ["/", "/#what-youll-learn"]
    assert chunks[0].module_name == ""
    assert chunks[0].chapter_id == "intro"
    assert chunks[0].heading_hierarchy == ["Robotics Handbook"]
    # The H1 heads the path; the front-matter title is not repeated in front of it.
    assert chunks[0].search_text.startswith("Robotics Handbook\n\n")


def test_pdf_pages_link_to_their_page() -> None:
    doc = Document(
        source_path="manuals/safety.pdf",
        format="pdf",
        title="Safety",
        sections=[Section(heading_hierarchy=["Safety"], text="one", page=1), Section(text="three", page=3)],
        doc_url_path="/manuals/safety.pdf",
    )
    chunks = chunk_document(doc, TOK, max_tokens=20, base_url="https://x.org")
    assert [(c.page, c.url) for c in chunks] == [
        (1, "https://x.org/manuals/safety.pdf#page=1"),
        (3, "https://x.org/manuals/safety.pdf#page=3"),
    ]
    assert chunks[0].module_name == "Manuals"


# --- speed ------------------------------------------------------------------------------------------


def test_counts_in_batches_and_is_fast() -> None:
    def body(k: int) -> str:
        return "\n\n".join(paragraph(words(120, k * 1000 + i * 120)) for i in range(5))

    sections = [Section(heading_hierarchy=["Doc", f"S{k}"], anchor=f"s{k}", text=body(k)) for k in range(100)]
    doc = doc_of(*sections)
    tokenizer = WhitespaceTokenizer()
    started = time.perf_counter()
    chunks = chunk_document(doc, tokenizer, max_tokens=254)
    assert time.perf_counter() - started < 2.0  # 60k words
    assert len(chunks) >= 200
    assert tokenizer.calls < len(chunks)


# --- properties -------------------------------------------------------------------------------------

WORD = st.text(alphabet="abcdefghijklmnop", min_size=1, max_size=8)
PARAGRAPH = st.lists(
    st.lists(WORD, min_size=1, max_size=25).map(lambda ws: " ".join(ws) + "."), min_size=1, max_size=6
)
BLOCK = st.one_of(
    PARAGRAPH.map(" ".join),
    PARAGRAPH.map("\n".join),
    st.lists(WORD, min_size=1, max_size=40).map(lambda ws: "```\n" + "\n".join(ws) + "\n```"),
)
SECTION = st.builds(
    lambda heads, blocks: Section(heading_hierarchy=heads, text="\n\n".join(blocks)),
    st.lists(st.lists(WORD, min_size=1, max_size=6).map(" ".join), max_size=4),
    st.lists(BLOCK, min_size=1, max_size=8),
)


@settings(max_examples=200, deadline=None)
@given(
    sections=st.lists(SECTION, min_size=1, max_size=4),
    max_tokens=st.integers(min_value=6, max_value=120),
    overlap=st.integers(min_value=0, max_value=30),
)
def test_property_bounded_and_nothing_lost(sections: list[Section], max_tokens: int, overlap: int) -> None:
    doc = doc_of(*sections)
    chunks = chunk_document(doc, TOK, max_tokens=max_tokens, overlap_tokens=overlap)
    assert_bounded(chunks, max_tokens)
    assert [c.chunk_index for c in chunks] == list(range(len(chunks)))
    source = [w for s in sections for w in re.findall(r"[a-z]+", s.text)]
    assert is_subsequence(source, [w for c in chunks for w in re.findall(r"[a-z]+", c.text)])
    for chunk in chunks:
        assert chunk.text
        assert chunk.text == chunk.text.strip()
