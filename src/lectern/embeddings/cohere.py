"""Cohere embeddings (``embed-english-v3.0`` by default) through the official ``cohere`` SDK (v2 API).

Cohere embeds documents and queries differently: ``input_type`` is ``search_document`` for
``embed_documents`` and ``search_query`` for ``embed_query``. The SDK's own retries are off so that
retries, backoff and the final error are Lectern's.
"""

from __future__ import annotations

import os
from typing import Literal

import cohere
import httpx
from cohere.core.api_error import ApiError

from lectern.embeddings.remote import InputKind, ModelSpec, RemoteEmbedder
from lectern.embeddings.retry import Failure, RetryPolicy, retry_after, status_is_retryable
from lectern.errors import ConfigError

COHERE_DEFAULT_MODEL = "embed-english-v3.0"
COHERE_MODELS: dict[str, ModelSpec] = {
    "embed-english-v3.0": ModelSpec(1024, 512),
    "embed-multilingual-v3.0": ModelSpec(1024, 512),
    "embed-english-light-v3.0": ModelSpec(384, 512),
    "embed-multilingual-light-v3.0": ModelSpec(384, 512),
    "embed-v4.0": ModelSpec(1536, 128_000),
}
INPUT_TYPES: dict[InputKind, Literal["search_document", "search_query"]] = {
    "document": "search_document",
    "query": "search_query",
}


class CohereEmbedder(RemoteEmbedder):
    """``Embedder`` over Cohere's ``POST /v2/embed``."""

    provider = "Cohere"
    max_batch = 96  # texts per call, the API's limit

    def __init__(
        self,
        *,
        model: str = COHERE_DEFAULT_MODEL,
        api_key: str,
        base_url: str = "",
        timeout_s: float = 30.0,
        batch_size: int = 96,
        policy: RetryPolicy | None = None,
        client: cohere.ClientV2 | None = None,
    ) -> None:
        spec = COHERE_MODELS.get(model)
        super().__init__(
            name=f"cohere:{model}",
            model=model,
            max_tokens=spec.max_tokens if spec else 512,
            batch_size=batch_size,
            policy=policy or RetryPolicy(),
            dimension=spec.dimension if spec else None,
            config_hint=f"LECTERN_EMBEDDING_BASE_URL={base_url}" if base_url else "",
        )
        self.timeout_s = timeout_s
        self._client = client or cohere.ClientV2(
            api_key=api_key,
            base_url=base_url or None,
            timeout=timeout_s,
            max_retries=0,
            log_warning_experimental_features=False,
        )

    def _request(self, texts: list[str], kind: InputKind) -> list[list[float]]:
        response = self._client.embed(
            model=self.model,
            input_type=INPUT_TYPES[kind],
            texts=texts,
            embedding_types=["float"],
            truncate="END",  # like the local model: an over-long text is cut, not refused
        )
        vectors = response.embeddings.float_
        if vectors is None:
            return []
        return vectors

    def _classify(self, exc: BaseException) -> Failure | None:
        return classify_cohere_error(exc, self.timeout_s)


def classify_cohere_error(exc: BaseException, timeout_s: float) -> Failure | None:
    if isinstance(exc, httpx.TimeoutException):
        return Failure(True, f"no response within {timeout_s:g}s", timed_out=True)
    if isinstance(exc, httpx.TransportError):
        return Failure(True, f"could not connect ({exc})")
    if isinstance(exc, ApiError):
        return Failure(
            status_is_retryable(exc.status_code),
            _body_message(exc.body),
            status=exc.status_code,
            retry_after_s=retry_after(exc.headers or {}),
        )
    return None


def _body_message(body: object) -> str:
    if isinstance(body, dict) and isinstance(body.get("message"), str):
        return str(body["message"])[:300]
    return str(body)[:300] if body else "no details"


def resolve_cohere_key(configured: str) -> str:
    key = configured or os.environ.get("CO_API_KEY", "") or os.environ.get("COHERE_API_KEY", "")
    if not key:
        raise ConfigError(
            "LECTERN_EMBEDDER=cohere needs an API key: set LECTERN_EMBEDDING_API_KEY (or CO_API_KEY)."
        )
    return key
