"""`lectern serve` (no public address without keys; workers use the factory) and `lectern db upgrade`."""

from __future__ import annotations

import asyncio
import json
import shlex
from pathlib import Path
from typing import Any

import pytest
import typer

from lectern.cli import serve_cmd
from lectern.index.base import DocumentSummary
from lectern.store import current_revision, head_revision


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> list[tuple[tuple[Any, ...], dict[str, Any]]]:
    """uvicorn.run recorded instead of run; logging left as pytest set it up."""
    import uvicorn

    import lectern.api.logs
    from lectern import word_frequency
    from lectern.index import heap

    monkeypatch.setenv("LECTERN_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("LECTERN_API_KEYS", raising=False)
    # serve --workers hands these to its workers through the environment; undo that after the test.
    monkeypatch.setenv("LECTERN_COLLECTION", "docs")
    monkeypatch.setenv("LECTERN_LOG_LEVEL", "info")
    monkeypatch.setenv("LECTERN_LOG_FORMAT", "json")
    recorded: list[tuple[tuple[Any, ...], dict[str, Any]]] = []
    monkeypatch.setattr(uvicorn, "run", lambda *a, **k: recorded.append((a, k)))
    monkeypatch.setattr(lectern.api.logs, "configure_logging", lambda level="info", fmt="json": None)
    # The ports named here may be busy on the test machine; whether they are is not what these test.
    monkeypatch.setattr(serve_cmd, "port_problem", lambda host, port: None)
    # building the word table takes seconds; test_serve_prepares_the_word_table_apart checks the call
    monkeypatch.setattr(word_frequency, "prepare_apart", lambda folder: recorded.append(((folder,), {})))
    # the arena cap would hold for the rest of the test process; test_serve_caps_malloc_arenas checks it
    monkeypatch.setattr(heap, "limit_arenas", lambda: recorded.append((("arenas",), {})))
    monkeypatch.setattr(heap, "map_large_blocks", lambda: recorded.append((("mmap",), {})))
    monkeypatch.setattr(heap, "system_arrow_pool", lambda: recorded.append((("arrow",), {})))
    return recorded


def serve(**options: Any) -> None:
    values: dict[str, Any] = {
        "host": "127.0.0.1",
        "port": 8000,
        "workers": 1,
        "insecure": False,
        "collection": None,
        "log_level": "info",
    }
    serve_cmd.serve(**{**values, **options})


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True),
        ("127.0.0.2", True),
        ("::1", True),
        ("[::1]", True),
        ("localhost", True),
        ("0.0.0.0", False),
        ("::", False),
        ("192.168.1.10", False),
        ("example.com", False),
    ],
)
def test_loopback(host: str, loopback: bool) -> None:
    assert serve_cmd.is_loopback(host) is loopback


def test_refuses_a_public_address_without_keys(calls: list[Any], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(typer.Exit) as exc:
        serve(host="0.0.0.0")
    assert exc.value.exit_code == 1
    assert "LECTERN_API_KEYS" in capsys.readouterr().err
    assert calls == []


def test_serves_a_public_address_with_keys_or_insecure(
    calls: list[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    serve(host="0.0.0.0", insecure=True)
    monkeypatch.setenv("LECTERN_API_KEYS", '["sk-one"]')
    serve(host="0.0.0.0", port=9000)
    runs = [k for _, k in calls if k]
    assert [k["host"] for k in runs] == ["0.0.0.0", "0.0.0.0"]
    assert runs[1]["port"] == 9000
    assert runs[0]["access_log"] is False


def test_serve_caps_malloc_arenas_and_prepares_the_word_table_apart(calls: list[Any]) -> None:
    serve()
    arenas, mmap, arrow, prepared, run = calls
    assert arenas == (("arenas",), {})  # first: before LanceDB's and onnxruntime's threads start
    assert mmap == (("mmap",), {})
    assert arrow == (("arrow",), {})  # before pyarrow's first buffer
    assert prepared == ((serve_cmd.settings().model_cache_dir,), {})
    assert run[1]["host"] == "127.0.0.1"


def test_workers_run_the_factory(calls: list[Any]) -> None:
    serve(workers=3)
    (args, kwargs) = calls[-1]
    assert args == ("lectern.api.app:app_factory",)
    assert kwargs["factory"] is True
    assert kwargs["workers"] == 3


def test_db_upgrade(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LECTERN_DATA_DIR", str(tmp_path))
    serve_cmd.db_upgrade("head")
    url = f"sqlite+aiosqlite:///{(tmp_path / 'lectern.sqlite3').resolve()}"
    assert asyncio.run(current_revision(url)) == head_revision()


def _doc(path: str, title: str, chunks: int) -> DocumentSummary:
    return DocumentSummary(source_path=path, title=title, url="", chunks=chunks)


def test_the_banner_suggests_a_question_about_the_largest_document() -> None:
    documents = [_doc("a.md", "Getting started", 3), _doc("b.md", "HTTP API", 40), _doc("c.md", "Widget", 9)]
    assert serve_cmd.suggested_question(documents) == "Tell me about HTTP API."


def test_the_banner_skips_unwieldy_titles_and_falls_back_to_a_generic_question() -> None:
    long_title = "A " + "very " * 20 + "long title"
    assert serve_cmd.suggested_question([_doc("a.md", long_title, 9), _doc("b.md", "Setup", 2)]) == (
        "Tell me about Setup."
    )
    assert serve_cmd.suggested_question([_doc("a.md", "", 9)]) == serve_cmd.GENERIC_QUESTION
    assert serve_cmd.suggested_question([]) == serve_cmd.GENERIC_QUESTION


def test_the_suggested_curl_line_survives_the_shell() -> None:
    line = serve_cmd.curl_example("http://127.0.0.1:8000", 'Tell me about Bob\'s "quoted" guide.')
    argv = shlex.split(line)
    assert argv[:3] == ["curl", "-s", "http://127.0.0.1:8000/chat/run"]
    assert json.loads(argv[-1]) == {"message": 'Tell me about Bob\'s "quoted" guide.'}
