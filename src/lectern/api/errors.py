"""Errors map to HTTP once, here, in the shape of the contract each path belongs to.

- Chat API (``/chat/*``, ``/session/*``, health and everything else): rag-agent-api's ``Error``,
  ``{"error": "VALIDATION_ERROR", "message", "details", "timestamp", "request_id"}`` with its upper-case
  codes (the engine's own code, e.g. ``QDRANT_ERROR``, is kept in ``details.code``).
- Generation API (``/api/generation/*``): the streaming-rag ``ErrorResponse``, ``{"code", "message",
  "details"}`` with lower-case codes (``invalid_request``, ``session_not_found``, ``provider_timeout``).
- ``/v1``: rendered as ``{"error": {"code", "message", "details"}}`` here and rewritten into OpenAI's shape
  by ``openai_compat.OpenAIErrorShape``.
- ``/mcp``: a JSON-RPC error object (the transport's clients read JSON-RPC, never text/plain).

Route code raises ``LecternError`` subclasses (the engine's and the store's); the middleware answers
401, 413 and 429 with ``error_response``; validation errors become 400 as the contracts say; anything
unexpected becomes a 500 whose body carries only the request id, never a stack trace.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from contextvars import ContextVar
from functools import cache
from typing import Any, Literal

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import Response

from lectern import errors
from lectern.api.logs import log, request_id_var
from lectern.conversation import iso_timestamp

_UUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")

DEFAULT_RETRY_AFTER_S = 5  # a 503 says when to try again (index, provider or database back)

Family = Literal["chat", "generation", "openai", "mcp"]

# The path of the request being answered (set by RequestContext): it picks the error shape.
request_path_var: ContextVar[str] = ContextVar("lectern_request_path", default="")

_STATUS_CODES = {
    400: "invalid_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    409: "conflict",
    413: "payload_too_large",
    415: "unsupported_media_type",
    429: "rate_limit_exceeded",
    503: "service_unavailable",
}

# rag-agent-api's codes by status (its examples name these).
_CHAT_CODES = {
    400: "VALIDATION_ERROR",
    401: "AUTHENTICATION_ERROR",
    403: "FORBIDDEN",
    404: "NOT_FOUND",
    405: "METHOD_NOT_ALLOWED",
    409: "CONFLICT",
    413: "PAYLOAD_TOO_LARGE",
    415: "UNSUPPORTED_MEDIA_TYPE",
    422: "VALIDATION_ERROR",
    429: "RATE_LIMIT_EXCEEDED",
    500: "INTERNAL_SERVER_ERROR",
    503: "SERVICE_UNAVAILABLE",
}

# Engine/store codes that are not already the generation API's lower-case vocabulary.
_GENERATION_CODES = {
    "INVALID_INPUT": "invalid_request",
    "API_ERROR": "provider_error",
    "QDRANT_ERROR": "index_unavailable",
    "database_unavailable": "service_unavailable",
    "TOKEN_LIMIT": "token_limit",
    "internal_error": "internal_error",
    "unauthorized": "unauthorized",
}

# JSON-RPC error codes for HTTP statuses on /mcp (the SDK uses -32600 for a bad request).
_JSONRPC_CODES = {400: -32600, 404: -32601, 500: -32603}


def family_of(path: str) -> Family:
    if path.startswith("/api/generation"):
        return "generation"
    if path == "/v1" or path.startswith("/v1/"):
        return "openai"
    if path == "/mcp" or path.startswith("/mcp/"):
        return "mcp"
    return "chat"


def chat_code(status: int, code: str) -> str:
    """The chat contract's code: seed error states that are already upper-case (TOKEN_LIMIT) are kept."""
    if code == "TOKEN_LIMIT":
        return code
    return _CHAT_CODES.get(status, "INTERNAL_SERVER_ERROR" if status >= 500 else "BAD_REQUEST")


def generation_code(status: int, code: str) -> str:
    if code in _GENERATION_CODES:
        return _GENERATION_CODES[code]
    if code and code == code.lower():
        return code
    return _STATUS_CODES.get(status, "internal_error" if status >= 500 else "invalid_request")


def error_body(
    code: str, message: str, *, status: int | None = None, family: Family | None = None, **details: Any
) -> dict[str, Any]:
    """The body of an error in the shape of the family (by default: of the path being answered)."""
    family = family or family_of(request_path_var.get())
    status = status or status_for_code(code)
    request_id = request_id_var.get()
    if family == "chat":
        if chat_code(status, code) != code and code not in _STATUS_CODES.values():
            details = {"code": code, **details}  # the engine's own state, e.g. QDRANT_ERROR
        body: dict[str, Any] = {"error": chat_code(status, code), "message": message}
        if details:
            body["details"] = details
        body["timestamp"] = iso_timestamp()
        if request_id and _UUID.match(request_id):
            body["request_id"] = request_id
        elif request_id:  # a client's own X-Request-ID that is not a UUID (the contract's format)
            body.setdefault("details", {})["request_id"] = request_id
        return body
    if family == "generation":
        out: dict[str, Any] = {"code": generation_code(status, code), "message": message}
        extra = {**details, **({"request_id": request_id} if request_id else {})}
        if extra:
            out["details"] = extra
        return out
    if family == "mcp":
        data = {"status": status, "code": code, **details}
        return {
            "jsonrpc": "2.0",
            "id": None,
            "error": {"code": _JSONRPC_CODES.get(status, -32000), "message": message, "data": data},
        }
    error: dict[str, Any] = {"code": code, "message": message}
    if request_id:
        error["request_id"] = request_id
    if details:
        error["details"] = details
    return {"error": error}


def error_response(
    status: int,
    code: str,
    message: str,
    *,
    headers: Mapping[str, str] | None = None,
    **details: Any,
) -> Response:
    body = json.dumps(error_body(code, message, status=status, **details), ensure_ascii=False).encode()
    return Response(body, status_code=status, headers=headers, media_type="application/json")


@cache
def _status_by_code() -> dict[str, int]:
    """Every error class's code → its HTTP status, so an engine ``Failed(code, ...)`` maps the same way
    as the exception it came from."""
    table: dict[str, int] = {}
    pending: list[type[errors.LecternError]] = [errors.LecternError]
    while pending:
        cls = pending.pop()
        table.setdefault(cls.code, cls.http_status)
        pending.extend(cls.__subclasses__())
    return table


def status_for_code(code: str) -> int:
    return _status_by_code().get(code, 500)


def lectern_error_response(exc: errors.LecternError) -> Response:
    status = exc.http_status
    if status >= 500 and status != 503:
        # A 5xx LecternError (config problems, say) may name internals; keep them in the server log.
        log.error("request failed", extra={"code": exc.code, "error_message": exc.message})
        return error_response(status, exc.code, "The server could not complete the request.")
    headers = {"WWW-Authenticate": "Bearer"} if status == 401 else None
    if status == 503 or exc.retry_after_s is not None:
        headers = {"Retry-After": str(exc.retry_after_s or DEFAULT_RETRY_AFTER_S)}
    return error_response(status, exc.code, exc.message, headers=headers)


def validation_message(exc: RequestValidationError) -> tuple[str, dict[str, Any]]:
    """One readable sentence for the first problem, plus which field it was."""
    problems = exc.errors()
    if not problems:
        return "The request is not valid.", {}
    first = problems[0]
    loc = [str(p) for p in first.get("loc", ()) if p != "body"]
    kind = first.get("type", "")
    if kind == "json_invalid":
        return "The request body is not valid JSON.", {}
    if kind == "missing" and not loc:
        return "A JSON request body is required.", {}
    field = ".".join(loc)
    message = str(first.get("msg", "invalid value"))
    if kind == "missing":
        message = f"{field} is required"
    elif kind in {"model_attributes_type", "dict_type"} and not loc:
        message = "The request body must be a JSON object."
    elif kind != "invalid_request" and field:  # our own messages name their field already
        message = f"{field}: {message}"
    return message, ({"field": field} if field else {})


def install_error_handlers(app: FastAPI) -> None:
    async def on_lectern_error(_request: Request, exc: Exception) -> Response:
        assert isinstance(exc, errors.LecternError)
        return lectern_error_response(exc)

    async def on_validation_error(_request: Request, exc: Exception) -> Response:
        assert isinstance(exc, RequestValidationError)
        message, details = validation_message(exc)
        return error_response(400, "invalid_request", message, **details)

    async def on_http_error(_request: Request, exc: Exception) -> Response:
        assert isinstance(exc, StarletteHTTPException)
        code = _STATUS_CODES.get(exc.status_code, "error")
        message = exc.detail if isinstance(exc.detail, str) else code.replace("_", " ")
        if exc.status_code >= 500:
            message = "The server could not complete the request."
        return error_response(exc.status_code, code, message, headers=exc.headers)

    app.add_exception_handler(errors.LecternError, on_lectern_error)
    app.add_exception_handler(RequestValidationError, on_validation_error)
    app.add_exception_handler(StarletteHTTPException, on_http_error)
