"""The wire contracts' schemas (extracted from the reference files by `extract.py`) and validators.

`check(family, name, body)` validates a JSON body against a schema of the contract with `jsonschema`;
the error helpers check a response's error body in its family's shape.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

HERE = Path(__file__).parent
FORMATS = Draft202012Validator.FORMAT_CHECKER


@cache
def _schemas() -> dict[str, Any]:
    return dict(json.loads((HERE / "schemas.json").read_text(encoding="utf-8")))


@cache
def validator(family: str, name: str) -> Draft202012Validator:
    """A validator for one schema of a contract ("delta": the generation delta schema itself)."""
    schemas = _schemas()
    if family == "delta":
        return Draft202012Validator(schemas["delta"], format_checker=FORMATS)
    root = {"components": {"schemas": schemas[family]}, "$ref": f"#/components/schemas/{name}"}
    return Draft202012Validator(root, format_checker=FORMATS)


def violations(family: str, name: str, body: Any) -> list[str]:
    return [
        f"{'/'.join(map(str, e.absolute_path))}: {e.message}"
        for e in validator(family, name).iter_errors(body)
    ]


def check(family: str, name: str, body: Any) -> None:
    problems = violations(family, name, body)
    assert not problems, (name, problems, body)


def chat_error(body: Any, code: str | None = None) -> dict[str, Any]:
    """rag-agent-api `Error`: `{"error": "VALIDATION_ERROR", "message", "details"?, "timestamp",
    "request_id"}`."""
    check("chat", "Error", body)
    assert isinstance(body["error"], str), body
    assert body["error"] == body["error"].upper(), body
    assert "Traceback" not in body["message"]
    if code is not None:
        assert body["error"] == code, body
    return dict(body)


def generation_error(body: Any, code: str | None = None) -> dict[str, Any]:
    """streaming-rag `ErrorResponse`: `{"code", "message", "details"?}` with a lower-case code."""
    check("generation", "ErrorResponse", body)
    assert body["code"] == body["code"].lower(), body
    if code is not None:
        assert body["code"] == code, body
    return dict(body)
