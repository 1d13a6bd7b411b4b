"""``/openapi.json`` as the server behaves, so generated clients and contract fuzzers see no drift.

FastAPI documents a 422 ``HTTPValidationError`` for every operation with parameters, but invalid requests
are a 400 in each family's own error shape (the contracts say so). This rewrites the generated document:
422 becomes 400, every operation declares the answers the middleware gives to any request (401 without a
key, 413 for a large body, 429 over the rate limit) and ``/v1`` its OpenAI errors (400, 404).
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi

_COMMON = {
    "401": "Missing or invalid API key.",
    "429": "Rate limit exceeded (or too many failed authentications); see Retry-After.",
    "503": "A dependency (database, index, embedder, model provider) is unavailable; see Retry-After.",
}
_WITH_BODY = {"413": "Request body too large.", "400": "Invalid request (the message names the field)."}
_OPENAI = {
    "400": "Invalid request, in OpenAI's error shape.",
    "404": "Unknown model, in OpenAI's error shape.",
}
_OPEN = {"/health", "/openapi.json"}  # no key, no limit


def _respond(operation: dict[str, Any], status: str, description: str) -> None:
    operation.setdefault("responses", {}).setdefault(status, {"description": description})


# OpenAPI links: how one answer feeds the next request (what a stateful client or fuzzer follows).
_LINKS: dict[tuple[str, str, str], dict[str, Any]] = {
    ("/chat/run", "post", "200"): {
        "History": {
            "operationId": "session_history_session__session_id__history_get",
            "parameters": {"session_id": "$response.body#/session_id"},
        },
        "FollowUp": {
            "operationId": "chat_run_chat_run_post",
            "requestBody": {"message": "And what else?", "session_id": "$response.body#/session_id"},
        },
        "Feedback": {
            "operationId": "post_feedback_feedback_post",
            "requestBody": {
                "session_id": "$response.body#/session_id",
                "message_seq": "$response.body#/message_seq",
                "rating": "up",
            },
        },
        "Delete": {
            "operationId": "delete_session_session__session_id__delete",
            "parameters": {"session_id": "$response.body#/session_id"},
        },
    },
    ("/api/generation/session", "post", "201"): {
        "Stream": {
            "operationId": "stream_api_generation_stream_post",
            "requestBody": {"sessionId": "$response.body#/sessionId", "prompt": "What is a node?"},
        },
        "History": {
            "operationId": "session_history_session__session_id__history_get",
            "parameters": {"session_id": "$response.body#/sessionId"},
        },
    },
    ("/api/generation/stream", "post", "200"): {
        "Cancel": {
            "operationId": "cancel_api_generation_cancel_post",
            "requestBody": {
                "sessionId": "$request.body#/sessionId",
                "promptId": "$response.header.X-Prompt-Id",
            },
        },
    },
}


def rewrite(document: dict[str, Any], *, model_name: str | None = None) -> dict[str, Any]:
    for path, item in document.get("paths", {}).items():
        for method, operation in item.items():
            if not isinstance(operation, dict) or "responses" not in operation:
                continue
            responses = operation["responses"]
            invalid = responses.pop("422", None)
            if invalid is not None:
                responses.setdefault("400", {"description": "Invalid request (the message names the field)."})
            if path in _OPEN or path.startswith("/docs") or path in {"/", "/widget.js"}:
                continue
            for status, description in _COMMON.items():
                _respond(operation, status, description)
            if method in {"post", "put", "patch"}:
                for status, description in _WITH_BODY.items():
                    _respond(operation, status, description)
            if path.startswith("/v1/"):
                for status, description in _OPENAI.items():
                    _respond(operation, status, description)
    operation_ids = {
        op.get("operationId") for item in document.get("paths", {}).values() for op in item.values()
    }
    for (path, method, status), links in _LINKS.items():
        response = document.get("paths", {}).get(path, {}).get(method, {}).get("responses", {}).get(status)
        known = {k: v for k, v in links.items() if v["operationId"] in operation_ids}
        if response is not None and known:
            response["links"] = known
    schemas = document.get("components", {}).get("schemas", {})
    for name in ("HTTPValidationError", "ValidationError"):
        schemas.pop(name, None)
    if model_name is not None:
        # /v1 serves one model: any other name is a 404 (model_not_found).
        request = schemas.get("ChatCompletionRequest", {}).get("properties", {})
        if "model" in request:
            request["model"]["enum"] = [model_name]
        for parameter in (
            document.get("paths", {}).get("/v1/models/{model_id}", {}).get("get", {}).get("parameters", [])
        ):
            if parameter.get("name") == "model_id":
                parameter["schema"]["enum"] = [model_name]
    return document


def install(app: FastAPI, *, model_name: str | None = None) -> None:
    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = rewrite(
                get_openapi(
                    title=app.title,
                    version=app.version,
                    summary=app.summary,
                    description=app.description,
                    routes=app.routes,
                ),
                model_name=model_name,
            )
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
