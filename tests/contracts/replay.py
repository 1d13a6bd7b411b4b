"""Replay every request example of the reference contracts against a live server and validate every
response, every SSE event and every NDJSON line against the contracts' schemas.

    .venv/bin/python -m tests.contracts.replay [../shared/reference]

Each example is sent twice: verbatim (its ids name sessions this server may not have: a documented
error status whose body must be the family's error shape) and with the ids of a live session made for
it (a 2xx whose body, events or lines must match the success schemas). Path parameter examples are
replayed the same way. Prints one line per exchange and the number of schema violations (0 to pass).
"""

from __future__ import annotations

import json
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import yaml

from tests.contracts import violations

SOURCES = {
    "chat": "rag-agent-api.openapi.yaml",
    "generation": "streaming-rag.generation-service.openapi.yaml",
}
ERROR_SCHEMA = {"chat": ("chat", "Error"), "generation": ("generation", "ErrorResponse")}


@dataclass
class Outcome:
    exchanges: list[str] = field(default_factory=list)
    violations: list[str] = field(default_factory=list)
    checked: int = 0  # bodies, events and lines validated

    def check(self, family: str, name: str, body: Any, where: str) -> None:
        self.checked += 1
        self.violations.extend(f"{where}: {name}: {v}" for v in violations(family, name, body))

    def require(self, ok: bool, where: str, what: str) -> None:
        self.checked += 1
        if not ok:
            self.violations.append(f"{where}: {what}")


@dataclass(frozen=True)
class Example:
    family: str
    method: str
    path: str
    name: str
    body: dict[str, Any] | None
    params: dict[str, str]
    documented: frozenset[str]


def examples(reference: Path) -> list[Example]:
    found: list[Example] = []
    for family, file in SOURCES.items():
        doc = yaml.safe_load((reference / file).read_text(encoding="utf-8"))
        for path, item in doc["paths"].items():
            for method, op in item.items():
                if not isinstance(op, dict):
                    continue
                documented = frozenset(str(code) for code in op.get("responses", {}))
                params = {p["name"]: str(p["example"]) for p in op.get("parameters", []) if "example" in p}
                bodies = {
                    name: ex["value"]
                    for content in op.get("requestBody", {}).get("content", {}).values()
                    for name, ex in (content.get("examples") or {}).items()
                }
                if bodies:
                    for name, body in bodies.items():
                        found.append(Example(family, method.upper(), path, name, body, params, documented))
                elif params or method.upper() == "GET":
                    found.append(
                        Example(family, method.upper(), path, "parameters", None, params, documented)
                    )
    return found


def _live_ids(client: httpx.Client) -> dict[str, str]:
    """A session made through the chat API and one through the generation API, with a finished prompt."""
    chat = client.post("/chat/run", json={"message": "What is a ROS 2 node?"}).json()["session_id"]
    gen = client.post("/api/generation/session", json={}).json()["sessionId"]
    stream = client.post("/api/generation/stream", json={"sessionId": gen, "prompt": "What is a ROS 2 node?"})
    return {"chat": chat, "generation": gen, "prompt": stream.headers["x-prompt-id"]}


def _with_live_ids(example: Example, ids: dict[str, str]) -> tuple[dict[str, Any] | None, dict[str, str]]:
    body = dict(example.body) if example.body is not None else None
    if body is not None:
        if "session_id" in body:
            body["session_id"] = ids["chat"]
        if "sessionId" in body:
            body["sessionId"] = ids["generation"]
        if "promptId" in body:
            body["promptId"] = ids["prompt"]
        if "idempotencyKey" in body:
            body["idempotencyKey"] = f"{body['idempotencyKey']}-{ids['generation'][:8]}"
    params = {k: ids["chat"] if k == "session_id" else v for k, v in example.params.items()}
    return body, params


def _validate(out: Outcome, example: Example, response: httpx.Response, where: str) -> None:
    status = str(response.status_code)
    out.require(status in example.documented or status in {"400", "404"}, where, f"undocumented {status}")
    out.require(response.status_code < 500, where, f"server error {status}")
    content_type = response.headers.get("content-type", "")
    if response.status_code >= 400:
        family, name = ERROR_SCHEMA[example.family]
        out.check(family, name, response.json(), where)
        return
    if response.status_code == 204:
        out.require(not response.content, where, "a 204 with a body")
        return
    if content_type.startswith("text/event-stream"):
        _validate_sse(out, response.text, where)
    elif content_type.startswith("application/x-ndjson"):
        lines = [json.loads(line) for line in response.text.splitlines() if line.strip()]
        out.require(bool(lines), where, "an empty NDJSON stream")
        for n, line in enumerate(lines):
            out.check("delta", "GenerationDelta", line, f"{where} line {n}")
            out.check("generation", "GenerationDelta", line, f"{where} line {n}")
        out.require(lines[-1]["type"] in {"done", "error"}, where, "the stream does not end with done/error")
    else:
        body = response.json()
        name = {
            ("POST", "/chat/run"): "ChatResponse",
            ("GET", "/session/{session_id}/history"): "ConversationThread",
            ("POST", "/api/generation/session"): "SessionResponse",
        }.get((example.method, example.path))
        if name is not None:
            out.check(example.family, name, body, where)
        else:
            out.require(isinstance(body, dict), where, "not a JSON object")


def _validate_sse(out: Outcome, text: str, where: str) -> None:
    events = [block for block in text.replace("\r\n", "\n").split("\n\n") if block.strip()]
    data = []
    for block in events:
        fields = dict(
            line.split(": ", 1) for line in block.split("\n") if ": " in line and not line.startswith(":")
        )
        out.require("event" not in fields, where, "a named SSE event (EventSource.onmessage misses it)")
        out.require("id" in fields, where, "an SSE event without id")
        if "data" in fields:
            data.append(json.loads(fields["data"]))
    out.require(bool(data), where, "no SSE data events")
    for n, event in enumerate(data):
        kind = event.get("type")
        if kind == "token":
            out.require(isinstance(event.get("content"), str), f"{where} event {n}", "token without content")
        elif kind == "done":
            out.check("chat", "ChatResponse", event["metadata"], f"{where} event {n}")
        elif kind == "error":
            out.check("chat", "Error", {k: v for k, v in event.items() if k != "type"}, f"{where} event {n}")
        else:
            out.require(False, f"{where} event {n}", f"unknown event type {kind!r}")
    out.require(data[-1].get("type") in {"done", "error"}, where, "the stream does not end with done/error")


def replay(client: httpx.Client, reference: Path) -> Outcome:
    out = Outcome()
    ids = _live_ids(client)
    # Deleting comes last: it removes the live session the other examples use.
    ordered = sorted(examples(reference), key=lambda e: e.method == "DELETE")
    for example in ordered:
        for mode in ("verbatim", "live"):
            body, params = (
                (example.body, example.params) if mode == "verbatim" else _with_live_ids(example, ids)
            )
            path = example.path.format(**params) if params else example.path
            response = client.request(example.method, path, json=body)
            where = f"{example.method} {path} [{example.name}, {mode}]"
            out.exchanges.append(f"{where} -> {response.status_code}")
            _validate(out, example, response, where)
            if mode == "live" and example.path.endswith("/cancel"):
                # The live prompt has finished by now: the contract's 409 (a running one would be 204).
                out.require(response.status_code in (204, 409), where, f"cancel got {response.status_code}")
            elif mode == "live":
                out.require(response.status_code < 300, where, f"a live replay got {response.status_code}")
    return out


def main() -> None:
    from lectern.api import create_app
    from tests.api_support import LiveServer, make_engine, make_settings

    reference = Path(sys.argv[1] if len(sys.argv) > 1 else "../shared/reference")
    with tempfile.TemporaryDirectory(prefix="lectern-replay-") as tmp:
        settings = make_settings(Path(tmp))
        with (
            LiveServer(create_app(settings, engine=make_engine(settings))) as live,
            httpx.Client(base_url=live.url, timeout=60) as client,
        ):
            out = replay(client, reference)
    for line in out.exchanges:
        print(line)
    print(f"{len(out.exchanges)} exchanges, {out.checked} checks, {len(out.violations)} violations")
    for v in out.violations:
        print(" -", v)
    sys.exit(1 if out.violations else 0)


if __name__ == "__main__":
    main()
