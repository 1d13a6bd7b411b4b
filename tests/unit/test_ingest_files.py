"""Which files an ingest reads: sorted, supported types only, hidden and node_modules skipped, globs."""

from __future__ import annotations

from pathlib import Path

import pytest

from lectern.ingest.files import iter_files, matches

TREE = [
    "a.md",
    "b.mdx",
    "c.html",
    "d.txt",
    "e.pdf",
    "image.png",
    ".dotfile.md",
    ".hidden/x.md",
    "node_modules/pkg/y.md",
    "drafts/wip.md",
    "sub/deep/z.md",
    "sub/page.htm",
]


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    for name in TREE:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("# x\n", encoding="utf-8")
    return tmp_path


def rel(root: Path, paths: list[Path]) -> list[str]:
    return [p.relative_to(root).as_posix() for p in paths]


def test_default_walk_is_sorted_and_skips_hidden_and_unsupported(tree: Path) -> None:
    assert rel(tree, list(iter_files(tree))) == [
        "a.md",
        "b.mdx",
        "c.html",
        "d.txt",
        "drafts/wip.md",
        "e.pdf",
        "sub/deep/z.md",
        "sub/page.htm",
    ]


@pytest.mark.parametrize(
    ("include", "exclude", "expected"),
    [
        (["**/*.md"], [], ["a.md", "drafts/wip.md", "sub/deep/z.md"]),
        (["*.md"], [], ["a.md", "drafts/wip.md", "sub/deep/z.md"]),
        (["sub/**"], [], ["sub/deep/z.md", "sub/page.htm"]),
        (["**/*.md", "*.mdx"], ["drafts/**"], ["a.md", "b.mdx", "sub/deep/z.md"]),
        ([], ["drafts"], ["a.md", "b.mdx", "c.html", "d.txt", "e.pdf", "sub/deep/z.md", "sub/page.htm"]),
        ([], ["sub/*/*.md", "*.pdf", "[cd].*"], ["a.md", "b.mdx", "drafts/wip.md", "sub/page.htm"]),
        (["?.md"], [], ["a.md", "sub/deep/z.md"]),
        (["./sub/**"], ["**/deep/**"], ["sub/page.htm"]),
    ],
)
def test_include_and_exclude_globs(
    tree: Path, include: list[str], exclude: list[str], expected: list[str]
) -> None:
    assert rel(tree, list(iter_files(tree, include, exclude))) == expected


def test_a_file_as_root_is_yielded_even_when_unsupported(tree: Path) -> None:
    assert list(iter_files(tree / "image.png")) == [tree / "image.png"]
    assert list(iter_files(tree / "a.md", exclude=["*.md"])) == []


@pytest.mark.parametrize(
    ("path", "pattern", "expected"),
    [
        ("docs/a.md", "**/*.md", True),
        ("a.md", "**/*.md", True),
        ("docs/a.md", "docs/*.md", True),
        ("docs/x/a.md", "docs/*.md", False),
        ("docs/x/a.md", "docs/**", True),
        ("docs", "docs/**", True),
        ("docsx/a.md", "docs/**", False),
        ("a/drafts/b.md", "drafts", True),
        ("a/b.md", "", False),
    ],
)
def test_matches(path: str, pattern: str, expected: bool) -> None:
    assert matches(path, pattern) is expected
