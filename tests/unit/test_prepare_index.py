"""A server (HTTP, or MCP over stdio) prepares its index before serving where the index can
(`LanceDBIndex.prepare`); an index without it, or one whose preparation fails, serves as before."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from lectern.api.app import _prepare_index


def _engine(index: Any) -> Any:
    return SimpleNamespace(retriever=SimpleNamespace(index=index))


def test_an_index_that_can_prepare_is_prepared() -> None:
    calls: list[str] = []
    _prepare_index(_engine(SimpleNamespace(prepare=lambda: calls.append("prepared") or True)))
    assert calls == ["prepared"]


def test_an_index_without_prepare_is_left_alone() -> None:
    _prepare_index(_engine(object()))


def test_a_failed_preparation_is_logged_not_raised(caplog: pytest.LogCaptureFixture) -> None:
    def fail() -> bool:
        raise OSError("disk gone")

    _prepare_index(_engine(SimpleNamespace(prepare=fail)))
    assert "index_not_prepared" in caplog.text


def test_the_mcp_stdio_server_prepares_its_index_before_the_first_question(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from lectern.engine import Engine
    from lectern.mcp import server
    from lectern.settings import Settings

    calls: list[str] = []
    index = SimpleNamespace(
        info=lambda: calls.append("info"), prepare=lambda: calls.append("prepared") or True
    )
    embedder = SimpleNamespace(embed_query=lambda text: calls.append("model loaded"))
    engine = SimpleNamespace(retriever=SimpleNamespace(index=index, embedder=embedder))
    monkeypatch.setattr(Engine, "from_settings", classmethod(lambda cls, settings: engine))
    assert server._build_engine(Settings()) is engine
    assert calls == ["info", "model loaded", "prepared"]
