"""Settings: environment variables, a TOML file, and errors that name the variable."""

from __future__ import annotations

from pathlib import Path

import pytest

from lectern.errors import ConfigError
from lectern.settings import load_settings


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)  # no stray lectern.toml or .env
    for name in ("LECTERN_TOP_K", "LECTERN_DATA_DIR", "LECTERN_CONFIG", "LECTERN_EMBEDDER"):
        monkeypatch.delenv(name, raising=False)


def test_defaults_are_offline() -> None:
    settings = load_settings()
    assert settings.embedder == "local"
    assert settings.index_engine == "lancedb"
    assert settings.llm_provider == "extractive"
    assert settings.effective_database_url.startswith("sqlite+aiosqlite:///")


def test_environment_variable_sets_a_value(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LECTERN_TOP_K", "7")
    monkeypatch.setenv("LECTERN_DATA_DIR", "/srv/lectern")
    settings = load_settings()
    assert settings.top_k == 7
    assert settings.index_dir == Path("/srv/lectern/index")


@pytest.mark.parametrize(
    ("variable", "value", "message"),
    [
        ("LECTERN_TOP_K", "0", "LECTERN_TOP_K"),
        ("LECTERN_TOP_K", "many", "LECTERN_TOP_K"),
        ("LECTERN_LLM_TEMPERATURE", "2.5", "LECTERN_LLM_TEMPERATURE"),
        ("LECTERN_LLM_MAX_TOKENS", "5000", "LECTERN_LLM_MAX_TOKENS"),
        ("LECTERN_EMBEDDER", "word2vec", "LECTERN_EMBEDDER"),
        ("LECTERN_MAX_HISTORY", "101", "LECTERN_MAX_HISTORY"),
    ],
)
def test_invalid_value_names_the_variable(
    monkeypatch: pytest.MonkeyPatch, variable: str, value: str, message: str
) -> None:
    monkeypatch.setenv(variable, value)
    with pytest.raises(ConfigError, match=message):
        load_settings()


def test_config_file_is_read_and_env_wins(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    config = tmp_path / "custom.toml"
    config.write_text('top_k = 3\nsite_base_url = "https://example.com/docs"\n', encoding="utf-8")
    monkeypatch.setenv("LECTERN_CONFIG", str(config))
    settings = load_settings()
    assert settings.top_k == 3
    assert settings.site_base_url == "https://example.com/docs"
    monkeypatch.setenv("LECTERN_TOP_K", "9")
    assert load_settings().top_k == 9


def test_confidence_thresholds_must_be_ordered(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LECTERN_CONFIDENCE_LOW", "0.9")
    with pytest.raises(ConfigError, match="LECTERN_CONFIDENCE_LOW"):
        load_settings()
