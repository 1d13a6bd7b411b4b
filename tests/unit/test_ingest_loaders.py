"""Loaders: Markdown/MDX (front matter, MDX syntax, admonitions, code), HTML, text, PDF, and refusals."""

from __future__ import annotations

import hashlib
import io
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from reportlab.pdfgen import canvas

from lectern.errors import IngestError
from lectern.ingest.loaders import load_document
from lectern.models import Document, Section

DOCS = Path(__file__).resolve().parents[1] / "fixtures" / "docs"


def by_heading(doc: Document) -> dict[str, Section]:
    return {s.heading_hierarchy[-1]: s for s in doc.sections}


def all_text(doc: Document) -> str:
    return "\n\n".join(s.text for s in doc.sections)


# --- MDX -------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def mdx() -> Document:
    return load_document(DOCS / "module-1-ros2" / "01-basics.mdx", DOCS)


def test_mdx_front_matter_title_and_url(mdx: Document) -> None:
    assert mdx.format == "mdx"
    assert mdx.source_path == "module-1-ros2/01-basics.mdx"
    assert mdx.title == "Chapter 1: ROS 2 Basics"
    assert mdx.front_matter["id"] == "ch1-basics"
    assert mdx.front_matter["keywords"] == ["nodes", "topics"]
    assert mdx.front_matter["tags"] == ["intro"]
    assert mdx.doc_url_path == "/module-1-ros2/ch1-basics"
    data = (DOCS / "module-1-ros2" / "01-basics.mdx").read_bytes()
    assert mdx.file_hash == hashlib.sha256(data).hexdigest()


def test_mdx_sections_paths_and_anchors(mdx: Document) -> None:
    got = [(s.heading_hierarchy, s.anchor) for s in mdx.sections]
    title = "Chapter 1: ROS 2 Basics"
    assert got == [
        ([title], ""),  # the H1 links to the top of the page
        ([title, "What is ROS 2?"], "what-is-ros-2"),
        ([title, "Installing ROS 2"], "install"),
        ([title, "Your First Node"], "your-first-node"),
        ([title, "Your First Node", "Running It"], "running-it"),
        ([title, "Your First Node"], "your-first-node-1"),
        ([title, "Your First Node", "Deep Detail"], "deep-detail"),
    ]


def test_mdx_syntax_is_removed_but_text_kept(mdx: Document) -> None:
    text = all_text(mdx)
    noise = ["import Tabs", "export const", "@site/", "<Callout", "</TabItem>", "console.log", ":::"]
    noise += ["MDX comment", "HTML comment", "chapterPath", "{/*", "**", "https://example.com"]
    for fragment in noise:
        assert fragment not in text, fragment
    sections = by_heading(mdx)
    assert sections["Chapter 1: ROS 2 Basics"].text == "You need Ubuntu 22.04 and a working shell."
    assert "ROS 2 is a robotics middleware. Nodes talk over topics." in sections["What is ROS 2?"].text


def test_admonitions_become_plain_text(mdx: Document) -> None:
    text = by_heading(mdx)["What is ROS 2?"].text
    assert "Note: ROS 2 is not an operating system." in text
    assert "Tip: Pro Tip\n\nSource the setup file in every new terminal." in text
    assert "Caution: Old distributions\n\nFoxy is end-of-life." in text


def test_code_fences_are_verbatim_and_never_headings(mdx: Document) -> None:
    install = by_heading(mdx)["Installing ROS 2"].text
    assert (
        "```bash\n# Add the ROS 2 apt repository\nsudo apt install ros-jazzy-desktop\n# Source it\n"
        "source /opt/ros/jazzy/setup.bash\n```"
    ) in install
    node = mdx.sections[3].text
    assert node.startswith('```python title="minimal_node.py"\nimport rclpy\nfrom rclpy.node import Node\n')
    assert "# A heading-looking comment inside code" in node
    assert "super().__init__('minimal_node')  # <Tag> inside code stays\n```" in node
    assert all("comment" not in h for s in mdx.sections for h in s.heading_hierarchy)


def test_codeblock_component_becomes_fenced_code(mdx: Document) -> None:
    second = mdx.sections[5].text
    assert '```yaml title="params.yaml"\nnode:\n  rate: 10  # Hz\n```' in second


def test_inline_code_kept_and_minor_headings_stay_in_text(mdx: Document) -> None:
    assert by_heading(mdx)["Running It"].text == "Run the node with `ros2 run demo minimal_node`."
    assert by_heading(mdx)["Deep Detail"].text == (
        "Level four heading text.\n\nMinor Heading\n\nText under an H5 stays in the H4 section."
    )


# --- Markdown --------------------------------------------------------------------------------------


def write(tmp_path: Path, name: str, content: str | bytes) -> Path:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, str):
        path.write_text(content, encoding="utf-8")
    else:
        path.write_bytes(content)
    return path


def test_markdown_title_falls_back_to_h1_then_file_name(tmp_path: Path) -> None:
    with_h1 = load_document(write(tmp_path, "guide/02-setup.md", "# Setting Up\n\nText.\n"), tmp_path)
    assert with_h1.title == "Setting Up"
    assert with_h1.doc_url_path == "/guide/setup"
    bare = load_document(write(tmp_path, "guide/03-more.md", "## Part\n\nText.\n"), tmp_path)
    assert bare.title == "more"
    assert bare.sections[0].heading_hierarchy == ["more", "Part"]


def test_markdown_lists_tables_and_links(tmp_path: Path) -> None:
    source = (
        "# T\n\n- one\n- two\n  1. nested\n\n| A | B |\n|---|---|\n| 1 | 2 |\n\n"
        "See [the docs](https://x.org) and ![a diagram](d.png).\n"
    )
    doc = load_document(write(tmp_path, "t.md", source), tmp_path)
    assert doc.sections[0].text == "- one\n- two\n  1. nested\n\nA | B\n1 | 2\n\nSee the docs and a diagram."


def test_text_before_the_first_heading_sits_under_the_title(tmp_path: Path) -> None:
    doc = load_document(
        write(tmp_path, "p.md", "---\ntitle: Page\n---\nIntro.\n\n## Next\n\nMore.\n"), tmp_path
    )
    assert [(s.heading_hierarchy, s.text) for s in doc.sections] == [
        (["Page"], "Intro."),
        (["Page", "Next"], "More."),
    ]


def test_invalid_front_matter_is_ignored(tmp_path: Path) -> None:
    doc = load_document(write(tmp_path, "p.md", "---\ntitle: [unclosed\n---\n# Real\n\nBody.\n"), tmp_path)
    assert doc.title == "Real"
    assert doc.front_matter == {}


# --- HTML, text ------------------------------------------------------------------------------------


def test_html_main_content_sections_and_code() -> None:
    doc = load_document(DOCS / "guide" / "page.html", DOCS)
    assert doc.format == "html"
    assert doc.title == "Gazebo Guide"
    text = all_text(doc)
    for noise in ("Site banner", "Home", "tracking", "color: red", "Copyright", "Related: see", "Mobile TOC"):
        assert noise not in text, noise
    got = [(s.heading_hierarchy, s.anchor, s.text) for s in doc.sections]
    assert got == [
        (["Gazebo Guide"], "", "Gazebo is a physics simulator.\nIt runs headless too."),
        (
            ["Gazebo Guide", "Installing Gazebo"],
            "install-gazebo",
            "Install it with apt.\n\n```bash\nsudo apt install gz-harmonic\n# verify\ngz sim --version\n```",
        ),
        (
            ["Gazebo Guide", "Installing Gazebo", "Supported Platforms"],
            "supported-platforms",
            "- Ubuntu 24.04\n- macOS (experimental)\n\nVersion | Status\nHarmonic | LTS",
        ),
    ]


def test_plain_text_is_one_section() -> None:
    doc = load_document(DOCS / "notes.txt", DOCS)
    assert doc.format == "text"
    assert doc.title == "notes"
    assert len(doc.sections) == 1
    assert doc.sections[0].text.startswith("Field notes on robot calibration.\n\nCalibrate the IMU")


# --- PDF -------------------------------------------------------------------------------------------


def make_pdf(pages: list[list[str]], title: str = "", **kwargs: object) -> bytes:
    buffer = io.BytesIO()
    pdf = canvas.Canvas(buffer, **kwargs)
    if title:
        pdf.setTitle(title)
    for lines in pages:
        y = 800
        for line in lines:
            pdf.drawString(72, y, line)
            y -= 14
        pdf.showPage()
    pdf.save()
    return buffer.getvalue()


def test_pdf_one_section_per_page_with_text(tmp_path: Path) -> None:
    data = make_pdf([["Robot safety manual", "Always wear goggles."], [], ["Emergency stop is red."]])
    doc = load_document(write(tmp_path, "manuals/safety.pdf", data), tmp_path)
    assert doc.format == "pdf"
    assert doc.title == "safety"
    assert [s.page for s in doc.sections] == [1, 3]
    assert "Always wear goggles." in doc.sections[0].text
    assert "Emergency stop is red." in doc.sections[1].text
    assert doc.doc_url_path == "/manuals/safety.pdf"


def test_pdf_title_from_metadata(tmp_path: Path) -> None:
    doc = load_document(write(tmp_path, "m.pdf", make_pdf([["Text."]], title="Safety Manual")), tmp_path)
    assert doc.title == "Safety Manual"
    assert doc.sections[0].heading_hierarchy == ["Safety Manual"]


def test_pdf_without_text_is_refused(tmp_path: Path) -> None:
    with pytest.raises(IngestError, match="no extractable text"):
        load_document(write(tmp_path, "blank.pdf", make_pdf([[], []])), tmp_path)


def test_broken_pdf_is_refused(tmp_path: Path) -> None:
    with pytest.raises(IngestError, match="broken PDF"):
        load_document(write(tmp_path, "bad.pdf", b"%PDF-1.4\nthis is not really a pdf\n"), tmp_path)


def test_encrypted_pdf_is_refused(tmp_path: Path) -> None:
    data = make_pdf([["secret text"]], encrypt="s3cret")
    with pytest.raises(IngestError, match="encrypted PDF"):
        load_document(write(tmp_path, "locked.pdf", data), tmp_path)


# --- refusals --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "content", "reason"),
    [
        ("bin.md", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "binary file"),
        ("empty.md", b"", "empty"),
        ("blank.txt", b"  \n\t\n", "empty"),
        ("only-front-matter.md", b"---\ntitle: Nothing\n---\n", "empty"),
        ("only-jsx.mdx", b"import X from 'x';\n\n<X />\n", "empty"),
        ("empty.html", b"<html><body><nav>menu</nav></body></html>", "empty"),
        ("empty.pdf", b"", "empty"),
        ("picture.png", b"\x89PNG", "unsupported type"),
    ],
)
def test_unreadable_files_raise_ingest_error(tmp_path: Path, name: str, content: bytes, reason: str) -> None:
    with pytest.raises(IngestError) as raised:
        load_document(write(tmp_path, name, content), tmp_path)
    assert raised.value.message == reason


@pytest.mark.parametrize("encoding", ["latin-1", "cp1252"])
def test_latin1_and_windows_1252_text_is_read(tmp_path: Path, encoding: str) -> None:
    data = "# Café\n\nCrème brûlée, “quoted”.\n".encode(encoding, errors="replace")
    document = load_document(write(tmp_path, "old.md", data), tmp_path)
    assert document.title == "Café"
    assert "Crème brûlée" in document.sections[0].text


def test_missing_file_is_an_ingest_error(tmp_path: Path) -> None:
    with pytest.raises(IngestError, match="unreadable"):
        load_document(tmp_path / "gone.md", tmp_path)


def test_single_file_root_uses_its_name(tmp_path: Path) -> None:
    path = write(tmp_path, "solo.md", "# Solo\n\nText.\n")
    assert load_document(path, path).source_path == "solo.md"


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    data=st.one_of(
        st.binary(max_size=400),
        st.text(max_size=400).map(lambda t: t.encode("utf-8")),
        st.lists(
            st.sampled_from(["# h", "```", "<X a={", "}", ":::tip", "---", "import a", "\n", "text "])
        ).map(lambda parts: "".join(parts).encode("utf-8")),
    ),
    ext=st.sampled_from([".md", ".mdx", ".html", ".txt", ".pdf"]),
)
def test_any_bytes_give_a_document_or_an_ingest_error(tmp_path: Path, data: bytes, ext: str) -> None:
    path = write(tmp_path, "fuzz" + ext, data)
    try:
        doc = load_document(path, tmp_path)
    except IngestError:
        return
    assert doc.sections
    assert all(s.text.strip() for s in doc.sections)
