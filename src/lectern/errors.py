"""The error hierarchy every face maps to its protocol.

Each error carries a stable ``code`` (the seeds' error states where they name one) and an HTTP status
that the API uses; the CLI prints the message in one red line, MCP returns it as a tool error.
"""

from __future__ import annotations


class LecternError(Exception):
    """Base class: a failure that a user should see as a clear message, never as a stack trace."""

    code: str = "internal_error"
    http_status: int = 500
    retry_after_s: int | None = None  # sent as Retry-After with a 503

    def __init__(self, message: str, *, code: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code

    def __str__(self) -> str:
        return self.message


class ConfigError(LecternError):
    """A setting is missing or out of range; the message names the variable."""

    code = "config_error"
    http_status = 500


class InvalidInput(LecternError):
    """Seed 001 INVALID_INPUT: the request itself is wrong."""

    code = "INVALID_INPUT"
    http_status = 400


class NotFound(LecternError):
    code = "not_found"
    http_status = 404


class Conflict(LecternError):
    code = "conflict"
    http_status = 409


class IngestError(LecternError):
    """A file could not be read or parsed. Ingest reports it and goes on."""

    code = "ingest_error"
    http_status = 422


class EmbedderMissing(LecternError):
    """The local model package is not installed."""

    code = "embedder_missing"
    http_status = 503


class EmbedderMismatch(LecternError):
    """A query embedder differs from the one the collection was built with."""

    code = "embedder_mismatch"
    http_status = 409


class ProviderError(LecternError):
    """Seed 001 API_ERROR: a remote embedding or chat provider failed after its retries."""

    code = "API_ERROR"
    http_status = 503


class ProviderTimeout(ProviderError):
    """A provider stalled longer than its stall timeout (seed 004)."""

    code = "provider_timeout"


class VectorIndexError(LecternError):
    """Seed 001 QDRANT_ERROR: any failure of the vector index."""

    code = "QDRANT_ERROR"
    http_status = 503


class TokenLimit(LecternError):
    """Seed 001 TOKEN_LIMIT: the context does not fit the model."""

    code = "TOKEN_LIMIT"
    http_status = 413


class StoreUnavailable(LecternError):
    """The conversation database cannot be reached (down, restarting, refusing connections). A 503
    with Retry-After: the request may be repeated once it is back; nothing acknowledged was lost."""

    code = "database_unavailable"
    http_status = 503
    retry_after_s = 5
