"""Regenerate `schemas.json` from the published reference contracts (run from the repository root):

    .venv/bin/python -m tests.contracts.extract ../shared/reference

Only the component schemas (and the delta schema) are kept, without descriptions or examples: the
shapes, not the prose.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import yaml

SOURCES = {
    "chat": "rag-agent-api.openapi.yaml",
    "generation": "streaming-rag.generation-service.openapi.yaml",
    "textbook": "textbook-chat.chat-api.openapi.yaml",
}
_DROP = {"description", "example", "examples", "summary", "title", "$id", "$schema"}


def _strip(node: Any) -> Any:
    if isinstance(node, dict):
        out = {k: _strip(v) for k, v in node.items() if k not in _DROP}
        if out.pop("nullable", False) is True and isinstance(out.get("type"), str):
            out["type"] = [out["type"], "null"]  # OpenAPI 3.0's nullable as JSON Schema
        return out
    if isinstance(node, list):
        return [_strip(v) for v in node]
    return node


def extract(reference: Path) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for family, name in SOURCES.items():
        doc = yaml.safe_load((reference / name).read_text(encoding="utf-8"))
        out[family] = _strip(doc["components"]["schemas"])
    delta = json.loads((reference / "streaming-rag.generation-delta.schema.json").read_text(encoding="utf-8"))
    out["delta"] = _strip(delta)
    return out


if __name__ == "__main__":
    reference = Path(sys.argv[1] if len(sys.argv) > 1 else "../shared/reference")
    target = Path(__file__).parent / "schemas.json"
    target.write_text(json.dumps(extract(reference), indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {target}")
