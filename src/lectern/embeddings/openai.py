"""OpenAI embeddings, and any OpenAI-compatible embeddings endpoint (Ollama, vLLM, TEI, LiteLLM).

Uses the official ``openai`` SDK with its own retries switched off, so that retries, backoff and the
final error are Lectern's (the same for every provider).
"""

from __future__ import annotations

import os
from urllib.parse import urlsplit

import openai

from lectern.embeddings.remote import InputKind, ModelSpec, RemoteEmbedder
from lectern.embeddings.retry import Failure, RetryPolicy, retry_after, status_is_retryable
from lectern.errors import ConfigError

OPENAI_DEFAULT_MODEL = "text-embedding-3-small"
OPENAI_MODELS: dict[str, ModelSpec] = {
    "text-embedding-3-small": ModelSpec(1536, 8191),
    "text-embedding-3-large": ModelSpec(3072, 8191),
    "text-embedding-ada-002": ModelSpec(1536, 8191),
}
# An unknown model behind a compatible endpoint: most served embedding models (BGE, E5, GTE) read 512.
COMPATIBLE_DEFAULT_MAX_TOKENS = 512
_NO_KEY = "not-needed"  # the SDK insists on a key; local servers (Ollama, vLLM) ignore it


class OpenAIEmbedder(RemoteEmbedder):
    """``Embedder`` over ``POST {base_url}/embeddings``."""

    provider = "OpenAI"
    max_batch = 2048
    max_request_tokens = 300_000

    def __init__(
        self,
        *,
        model: str = OPENAI_DEFAULT_MODEL,
        api_key: str,
        base_url: str = "",
        compatible: bool = False,
        timeout_s: float = 30.0,
        batch_size: int = 256,
        policy: RetryPolicy | None = None,
        dimension: int | None = None,
        max_tokens: int | None = None,
        client: openai.OpenAI | None = None,
    ) -> None:
        spec = OPENAI_MODELS.get(model)
        host = urlsplit(base_url).netloc if base_url else "api.openai.com"
        super().__init__(
            name=f"{'openai-compatible' if compatible else 'openai'}:{model}",
            model=model,
            max_tokens=max_tokens or (spec.max_tokens if spec else COMPATIBLE_DEFAULT_MAX_TOKENS),
            batch_size=batch_size,
            policy=policy or RetryPolicy(),
            dimension=dimension or (spec.dimension if spec and not compatible else None),
            config_hint=f"LECTERN_EMBEDDING_BASE_URL={base_url}" if base_url else "",
        )
        if compatible:
            self.provider = f"OpenAI-compatible endpoint {host}"
        self.timeout_s = timeout_s
        self._client = client or openai.OpenAI(
            api_key=api_key or _NO_KEY,
            base_url=base_url or None,
            timeout=timeout_s,
            max_retries=0,
        )

    def _request(self, texts: list[str], kind: InputKind) -> list[list[float]]:
        del kind  # OpenAI embeds documents and queries alike
        # The API rejects empty strings; a space embeds as "nothing" without failing the whole batch.
        inputs = [t if t.strip() else " " for t in texts]
        response = self._client.embeddings.create(model=self.model, input=inputs, encoding_format="float")
        return [item.embedding for item in sorted(response.data, key=lambda d: d.index)]

    def _classify(self, exc: BaseException) -> Failure | None:
        return classify_openai_error(exc, self.timeout_s)


def classify_openai_error(exc: BaseException, timeout_s: float) -> Failure | None:
    if isinstance(exc, openai.APITimeoutError):
        return Failure(True, f"no response within {timeout_s:g}s", timed_out=True)
    if isinstance(exc, openai.APIConnectionError):
        return Failure(True, f"could not connect ({exc.__cause__ or exc})")
    if isinstance(exc, openai.APIStatusError):
        return Failure(
            status_is_retryable(exc.status_code),
            _short(exc.message),
            status=exc.status_code,
            retry_after_s=retry_after(exc.response.headers),
        )
    return None


def _short(message: str, limit: int = 300) -> str:
    return message if len(message) <= limit else message[: limit - 1] + "…"


def resolve_openai_key(configured: str) -> str:
    key = configured or os.environ.get("OPENAI_API_KEY", "")
    if not key:
        raise ConfigError(
            "LECTERN_EMBEDDER=openai needs an API key: set LECTERN_EMBEDDING_API_KEY (or OPENAI_API_KEY)."
        )
    return key
