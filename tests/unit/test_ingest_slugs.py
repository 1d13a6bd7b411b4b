"""Docusaurus URL rules: heading anchors, number prefixes, doc ids and doc URL paths."""

from __future__ import annotations

from typing import Any

import pytest

from lectern.ingest.slugs import (
    Slugger,
    doc_id,
    doc_url_path,
    module_name,
    slugify,
    split_heading_id,
    strip_number_prefix,
)


@pytest.mark.parametrize(
    ("heading", "anchor"),
    [
        ("What is ROS 2?", "what-is-ros-2"),
        ("Installing Gazebo", "installing-gazebo"),
        ("1. What is ROS 2?", "1-what-is-ros-2"),
        ("5.3 Anatomy of a Pipeline", "53-anatomy-of-a-pipeline"),
        ("Chapter 1: Intro - The Robot OS", "chapter-1-intro---the-robot-os"),
        ("What You'll Learn", "what-youll-learn"),
        ("snake_case stays", "snake_case-stays"),
        ("Привет non-latin 你好", "привет-non-latin-你好"),
        ("😄 emoji", "-emoji"),
        ("  spaced  out  ", "--spaced--out--"),
        ("C++ & Rust", "c--rust"),
    ],
)
def test_slugify_matches_github_slugger(heading: str, anchor: str) -> None:
    assert slugify(heading) == anchor


def test_slugger_numbers_duplicates_like_github() -> None:
    slugger = Slugger()
    assert [slugger.slug(t) for t in ["foo", "foo", "bar", "foo", "foo-1"]] == [
        "foo",
        "foo-1",
        "bar",
        "foo-2",
        "foo-1-1",
    ]


@pytest.mark.parametrize(
    ("heading", "expected"),
    [
        ("Installing ROS 2 {#install}", ("Installing ROS 2", "install")),
        ("Plain heading", ("Plain heading", None)),
        ("Braces {in} the middle", ("Braces {in} the middle", None)),
    ],
)
def test_split_heading_id(heading: str, expected: tuple[str, str | None]) -> None:
    assert split_heading_id(heading) == expected


@pytest.mark.parametrize(
    ("segment", "stripped"),
    [
        ("01-intro", "intro"),
        ("1_intro", "intro"),
        ("003 - intro", "intro"),
        ("module-1-ros2", "module-1-ros2"),
        ("4.2-locomotion", "4.2-locomotion"),  # version-like, not a prefix
        ("2021-01-02-post", "2021-01-02-post"),  # date-like, not a prefix
        ("01-", "01-"),
        ("intro", "intro"),
    ],
)
def test_strip_number_prefix(segment: str, stripped: str) -> None:
    assert strip_number_prefix(segment) == stripped


CASES: list[tuple[str, dict[str, Any], str, str]] = [
    # source path, front matter, doc URL path, doc id
    ("intro.md", {}, "/intro", "intro"),
    ("intro.md", {"slug": "/"}, "/", "intro"),
    (
        "module-1-ros2/chapter-01-intro.md",
        {},
        "/module-1-ros2/chapter-01-intro",
        "module-1-ros2/chapter-01-intro",
    ),
    ("01-module-ros/01-intro-to-ros2.md", {}, "/module-ros/intro-to-ros2", "01-module-ros/intro-to-ros2"),
    (
        "module-1-ros2/01-basics.mdx",
        {"id": "ch1-basics"},
        "/module-1-ros2/ch1-basics",
        "module-1-ros2/ch1-basics",
    ),
    ("module-1-ros2/index.md", {}, "/module-1-ros2", "module-1-ros2/index"),
    ("module-1-ros2/README.md", {}, "/module-1-ros2", "module-1-ros2/README"),
    ("guides/guides.md", {}, "/guides", "guides/guides"),
    ("index.md", {}, "/", "index"),
    ("a/b.md", {"slug": "custom"}, "/a/custom", "a/b"),
    ("a/b/c.md", {"slug": "../up"}, "/a/up", "a/b/c"),
    ("a/b.md", {"slug": "/absolute/path/"}, "/absolute/path", "a/b"),
    ("a/index.md", {"slug": "landing"}, "/a/landing", "a/index"),
    ("module-4/4.2-walking/index.md", {}, "/module-4/4.2-walking", "module-4/4.2-walking/index"),
    ("docs/page.mdx", {"id": "renamed", "slug": "/x"}, "/x", "docs/renamed"),
]


@pytest.mark.parametrize(("source", "front_matter", "url_path", "identifier"), CASES)
def test_doc_url_path_and_id(
    source: str, front_matter: dict[str, Any], url_path: str, identifier: str
) -> None:
    assert doc_url_path(source, front_matter) == url_path
    assert doc_id(source, front_matter) == identifier


@pytest.mark.parametrize(
    ("source", "name"),
    [
        ("module-1-ros2/ch1-basics.md", "Module 1 Ros2"),
        ("01-module-ros/intro.md", "Module Ros"),
        ("capstone/deep/page.md", "Capstone"),
        ("intro.md", ""),
        # The module folder, not the folder that holds the modules (was "Modules" for every chunk).
        ("modules/module-1-ros2/intro.md", "Module 1 Ros2"),
        ("docs/modules/module-2-digital-twin/gazebo.md", "Module 2 Digital Twin"),
        ("module-4/4.1-humanoid-fundamentals/a.md", "Module 4"),
        ("modules/README.md", ""),
    ],
)
def test_module_name(source: str, name: str) -> None:
    assert module_name(source) == name
