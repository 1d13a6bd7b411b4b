"""Errors map to HTTP once, here: every error body is ``{"error": {"code", "message", ...}}``.

Route code raises ``LecternError`` subclasses (the engine's and the store's); the middleware answers
401, 413 and 429 with ``error_response``; validation errors become 400 as the contracts say; anything
unexpected becomes a 500 whose body carries only the request id, never a stack trace.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import Response

from lectern import errors
from lectern.api.logs import log, request_id_var

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


def error_body(code: str, message: str, **details: Any) -> dict[str, Any]:
    error: dict[str, Any] = {"code": code, "message": message}
    request_id = request_id_var.get()
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
    body = json.dumps(error_body(code, message, **details), ensure_ascii=False).encode()
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
