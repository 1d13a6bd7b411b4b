"""Answer writers: the extractive default and any OpenAI-compatible chat model, chosen by
`settings.llm_provider` through a registry (writers import lazily: the extractive path never loads an SDK)."""

from __future__ import annotations

from collections.abc import Callable

from lectern.embeddings.base import Embedder
from lectern.errors import ConfigError
from lectern.settings import Settings
from lectern.writers.base import AnswerWriter

WriterFactory = Callable[[Settings, Embedder | None], AnswerWriter]


def _extractive(settings: Settings, embedder: Embedder | None) -> AnswerWriter:
    from lectern.writers.extractive import ExtractiveWriter

    return ExtractiveWriter(embedder)


def _openai(settings: Settings, embedder: Embedder | None) -> AnswerWriter:
    from lectern.writers.openai_chat import OpenAIChatWriter

    return OpenAIChatWriter(settings)


WRITERS: dict[str, WriterFactory] = {"extractive": _extractive, "openai": _openai}


def create_writer(settings: Settings, *, embedder: Embedder | None = None) -> AnswerWriter:
    """The configured writer. The extractive one ranks sentences with `embedder` when given."""
    try:
        factory = WRITERS[settings.llm_provider]
    except KeyError:
        raise ConfigError(
            f"LECTERN_LLM_PROVIDER: unknown writer {settings.llm_provider!r}; one of {', '.join(WRITERS)}"
        ) from None
    return factory(settings, embedder)


__all__ = ["WRITERS", "AnswerWriter", "create_writer"]
