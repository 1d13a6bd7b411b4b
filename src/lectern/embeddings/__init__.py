"""Embedders, chosen by ``LECTERN_EMBEDDER`` through a registry (no if-chains).

Provider modules are imported inside their factory, so choosing ``local`` never imports the openai
or cohere SDKs, and vice versa.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from lectern.embeddings.base import Embedder, Tokenizer, Vectors, l2_normalise
from lectern.embeddings.retry import RetryPolicy
from lectern.errors import ConfigError

if TYPE_CHECKING:  # settings pull in pydantic-settings; the bench imports embedders without them
    from lectern.settings import Settings

EmbedderFactory = Callable[["Settings"], Embedder]
_LOCAL_MODEL_NAMES = frozenset({"all-MiniLM-L6-v2", "sentence-transformers/all-MiniLM-L6-v2"})


def _policy(settings: Settings) -> RetryPolicy:
    return RetryPolicy(max_attempts=settings.provider_max_attempts)


def _local(settings: Settings) -> Embedder:
    from lectern.embeddings.local import get_local_embedder

    if settings.embedding_model and settings.embedding_model not in _LOCAL_MODEL_NAMES:
        raise ConfigError(
            f"LECTERN_EMBEDDING_MODEL={settings.embedding_model!r} is not available locally; the local "
            "embedder runs all-MiniLM-L6-v2 only (leave LECTERN_EMBEDDING_MODEL empty)."
        )
    return get_local_embedder(
        settings.embedding_backend,
        settings.embedding_batch_size,
        settings.embedding_threads,
        settings.model_cache_dir,
        settings.embedding_query_precision,
        settings.embedding_document_precision,
        settings.embedding_sentence_precision,
    )


def _openai(settings: Settings) -> Embedder:
    from lectern.embeddings.openai import OPENAI_DEFAULT_MODEL, OpenAIEmbedder, resolve_openai_key

    return OpenAIEmbedder(
        model=settings.embedding_model or OPENAI_DEFAULT_MODEL,
        api_key=resolve_openai_key(settings.embedding_api_key.get_secret_value()),
        base_url=settings.embedding_base_url,
        timeout_s=settings.provider_timeout_s,
        batch_size=settings.embedding_batch_size,
        policy=_policy(settings),
    )


def _openai_compatible(settings: Settings) -> Embedder:
    from lectern.embeddings.openai import OpenAIEmbedder

    missing = [
        name
        for name, value in (
            ("LECTERN_EMBEDDING_BASE_URL", settings.embedding_base_url),
            ("LECTERN_EMBEDDING_MODEL", settings.embedding_model),
        )
        if not value
    ]
    if missing:
        raise ConfigError(
            f"LECTERN_EMBEDDER=openai-compatible needs {' and '.join(missing)} "
            "(e.g. LECTERN_EMBEDDING_BASE_URL=http://localhost:11434/v1 "
            "LECTERN_EMBEDDING_MODEL=nomic-embed-text)."
        )
    return OpenAIEmbedder(
        model=settings.embedding_model,
        api_key=settings.embedding_api_key.get_secret_value(),
        base_url=settings.embedding_base_url,
        compatible=True,
        timeout_s=settings.provider_timeout_s,
        batch_size=settings.embedding_batch_size,
        policy=_policy(settings),
    )


def _cohere(settings: Settings) -> Embedder:
    from lectern.embeddings.cohere import COHERE_DEFAULT_MODEL, CohereEmbedder, resolve_cohere_key

    return CohereEmbedder(
        model=settings.embedding_model or COHERE_DEFAULT_MODEL,
        api_key=resolve_cohere_key(settings.embedding_api_key.get_secret_value()),
        base_url=settings.embedding_base_url,
        timeout_s=settings.provider_timeout_s,
        batch_size=settings.embedding_batch_size,
        policy=_policy(settings),
    )


EMBEDDERS: dict[str, EmbedderFactory] = {
    "local": _local,
    "openai": _openai,
    "openai-compatible": _openai_compatible,
    "cohere": _cohere,
}


def create_embedder(settings: Settings) -> Embedder:
    """The embedder ``settings.embedder`` names. The local model is loaded once per process."""
    try:
        factory = EMBEDDERS[settings.embedder]
    except KeyError:
        raise ConfigError(
            f"LECTERN_EMBEDDER={settings.embedder!r} is unknown; choose one of {', '.join(EMBEDDERS)}."
        ) from None
    return factory(settings)


__all__ = [
    "EMBEDDERS",
    "Embedder",
    "EmbedderFactory",
    "Tokenizer",
    "Vectors",
    "create_embedder",
    "l2_normalise",
]
