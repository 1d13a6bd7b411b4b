"""The first hour with the CLI: version, help, completion, stdin, readable answers, chat commands,
one-line settings errors, logs, a busy port. Fakes stand in for the model and the index."""

from __future__ import annotations

import io
import json
import logging
import socket
from pathlib import Path
from typing import Any

import pytest
import typer.main
from rich.console import Console
from typer.testing import CliRunner

from lectern import __version__
from lectern.api.logs import JsonFormatter, TextFormatter, log_formatter_name
from lectern.cli import ask_cmd
from lectern.cli.main import app
from lectern.cli.render import MarkdownStream, print_footer
from lectern.engine import Engine
from lectern.errors import ConfigError
from lectern.models import Answer, Citation, ConfidenceMetrics
from lectern.retrieval import CHAT_MAX_TOP_K
from lectern.settings import load_settings
from tests.unit.answer_support import make_engine

runner = CliRunner()
LONG_URL = (
    "https://docs.example.com/robotics/module-2-simulation/gazebo-harmonic-installation#installing-gazebo"
)


@pytest.fixture
def engine(monkeypatch: pytest.MonkeyPatch) -> Engine:
    built, _, _ = make_engine()
    monkeypatch.setattr(ask_cmd, "_engine", lambda *args, **kwargs: built)
    return built


def citation(number: int, url: str = LONG_URL, title: str = "Simulation") -> Citation:
    return Citation(
        number=number,
        chunk_id=f"c{number}",
        chunk_text="Install Gazebo Harmonic with apt.",
        similarity_score=0.61,
        title=title,
        section="Installing Gazebo",
        url=url,
        heading_hierarchy=[title, "Installing Gazebo"],
    )


def answer(**fields: object) -> Answer:
    values: dict[str, object] = {
        "text": "Run `sudo apt install gz-harmonic` [1].",
        "citations": [citation(1)],
        "confidence": ConfidenceMetrics(
            average_similarity=0.61,
            min_similarity=0.5,
            max_similarity=0.7,
            num_chunks=1,
            chunk_diversity=0.0,
            confidence_level="medium",
            should_answer=True,
        ),
        "grounded": True,
        "retrieval_used": True,
        "model_used": "extractive",
        "timestamp": "2026-01-01T00:00:00.000Z",
    }
    values.update(fields)
    return Answer.model_validate(values)


# --- version, help, completion -------------------------------------------------------------------


def test_version() -> None:
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0
    assert result.output.strip() == f"lectern {__version__}"


def test_completion_can_be_installed_and_completes_commands_and_options() -> None:
    assert "--install-completion" in runner.invoke(app, ["--help"]).output
    for words, expected in (("lectern as", "ask"), ("lectern ask --co", "--collection")):
        env = {
            "_LECTERN_COMPLETE": "complete_bash",
            "COMP_WORDS": words,
            "COMP_CWORD": str(len(words.split()) - 1),
        }
        result = runner.invoke(app, [], env=env, prog_name="lectern")
        assert result.exit_code == 0
        assert result.output.split() == [expected]


def _commands(command: Any, path: str = "lectern") -> list[tuple[str, Any]]:
    """Every command and subcommand (Typer's own copy of Click: duck typing, not isinstance)."""
    found = [(path, command)]
    for name, sub in getattr(command, "commands", {}).items():
        found += _commands(sub, f"{path} {name}")
    return found


def test_every_option_has_help_and_flags_read_as_flags() -> None:
    commands = _commands(typer.main.get_command(app))
    assert {"lectern ask", "lectern index stats", "lectern collections delete"} <= {p for p, _ in commands}
    for path, command in commands:
        for param in command.params:
            if param.param_type_name != "option" or param.hidden:
                continue
            assert param.help, f"{path} {param.opts[0]} has no help text"
        help_text = runner.invoke(app, [*path.split()[1:], "--help"], env={"COLUMNS": "120"}).output
        assert "Usage:" in help_text, path
        assert "<bool>" not in help_text, path
        assert "BOOLEAN" not in help_text, path


def test_the_cli_max_top_k_is_the_engines() -> None:
    assert ask_cmd.CHAT_MAX_TOP_K == CHAT_MAX_TOP_K


# --- stdin ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("args", [["ask", "-"], ["ask"]])
def test_the_question_can_come_from_stdin(engine: Engine, args: list[str]) -> None:
    result = runner.invoke(app, args, input="What is a ROS 2 node?\n")
    assert result.exit_code == 0, result.output
    assert "confidence:" in result.output
    assert "node" in result.output.lower()


def test_empty_stdin_is_an_empty_question(engine: Engine) -> None:
    result = runner.invoke(app, ["ask", "-"], input="  \n")
    assert result.exit_code == 1
    assert "The question is empty" in result.output


# --- rendering -----------------------------------------------------------------------------------


def render(a: Answer, width: int = 80) -> str:
    out = Console(file=io.StringIO(), width=width, color_system=None)
    print_footer(out, out, a)
    return out.file.getvalue()  # type: ignore[attr-defined]


def test_sources_are_one_per_line_with_the_whole_url() -> None:
    text = render(answer())
    assert "1 Source" in text
    assert "1 Sources" not in text
    assert LONG_URL in text  # never folded by Rich: the terminal keeps it one clickable link
    assert "[1] Simulation › Installing Gazebo (0.61)" in text
    two = render(answer(citations=[citation(1), citation(2, url="/b")]))
    assert "2 Sources" in two


def test_a_refusal_shows_why_and_related_reading_not_sources() -> None:
    refusal = answer(
        text="I don't have information about that in the documents.",
        citations=[],
        grounded=False,
        refusal_reason="not_answerable",
        related=[citation(1, url="/gazebo#physics", title="Gazebo")],
        confidence=ConfidenceMetrics(
            average_similarity=0.3,
            min_similarity=0.3,
            max_similarity=0.3,
            num_chunks=1,
            chunk_diversity=0.0,
            confidence_level="insufficient",
            should_answer=False,
        ),
    )
    text = render(refusal)
    assert "Source" not in text
    assert "why: the closest passages do not answer the question" in text
    assert "Related reading" in text
    assert "Gazebo › Installing Gazebo" in text
    assert "/gazebo#physics" in text


def test_json_carries_related_and_refusal_reason(engine: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    async def refused(*args: object, **kwargs: object) -> Answer:
        return answer(citations=[], grounded=False, refusal_reason="no_passages", related=[citation(1)])

    monkeypatch.setattr(engine, "run", refused)
    payload = json.loads(runner.invoke(app, ["ask", "--json", "What is Gazebo?"]).output)
    assert payload["refusal_reason"] == "no_passages"
    assert payload["related"][0]["url"] == LONG_URL


def test_markdown_is_rendered_and_wrapped_at_words_on_a_terminal() -> None:
    out = Console(file=io.StringIO(), width=80, force_terminal=True, color_system=None)
    stream = MarkdownStream(out)
    text = (
        "Gazebo **Harmonic** installs from the OSRF repository on Ubuntu, and the simulator then "
        "starts with a single command once the packages are in place [1].\n\n"
        "- first, add the repository key;\n- then install the package.\n\n"
        "```bash\nsudo apt-get install gz-harmonic\n```\n"
    )
    for piece in text.split(" "):
        stream.feed(piece + " ")
    stream.close()
    shown = out.file.getvalue()  # type: ignore[attr-defined]
    assert "**" not in shown  # Markdown, rendered
    assert all(len(line) <= 80 for line in shown.splitlines())
    words = {w.strip(".,;[]*`") for w in shown.split()}
    assert {"repository", "simulator", "packages", "Harmonic"} <= words  # no word cut in two
    assert "sudo apt-get install gz-harmonic" in shown


def test_piped_output_is_the_answer_as_written() -> None:
    out = Console(file=io.StringIO(), width=80, color_system=None)
    stream = MarkdownStream(out)
    stream.feed("Use **bold** here [1].")
    stream.close()
    assert out.file.getvalue() == "Use **bold** here [1].\n"  # type: ignore[attr-defined]


# --- chat ----------------------------------------------------------------------------------------


def test_chat_commands(engine: Engine) -> None:
    result = runner.invoke(app, ["chat"], input="/help\n/session\nhelp\nreset\nexit\nWhat is Gazebo?\n")
    assert result.exit_code == 0, result.output
    out = result.output
    for command in ("/sources", "/reset", "/session", "/exit", "/help"):
        assert command in out
    assert "session " in out
    assert "(taken as /help" in out
    assert "(taken as /reset" in out
    assert "(taken as /exit" in out
    assert "Conversation forgotten" in out
    assert "Gazebo Harmonic" not in out  # left at the bare `exit`: the next line was never asked


# --- settings ------------------------------------------------------------------------------------


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    monkeypatch.chdir(tmp_path)
    for name in list(__import__("os").environ):
        if name.startswith("LECTERN_"):
            monkeypatch.delenv(name)
    return tmp_path


@pytest.mark.parametrize(
    ("value", "expected"),
    [("key1", ["key1"]), ("key1, key2", ["key1", "key2"]), ('["a", "b"]', ["a", "b"])],
)
def test_lists_are_comma_separated_or_json(
    clean_env: Path, monkeypatch: pytest.MonkeyPatch, value: str, expected: list[str]
) -> None:
    monkeypatch.setenv("LECTERN_API_KEYS", value)
    monkeypatch.setenv("LECTERN_CORS_ORIGINS", "https://a.example,https://b.example")
    settings = load_settings()
    assert [k.get_secret_value() for k in settings.api_keys] == expected
    assert settings.cors_origins == ["https://a.example", "https://b.example"]


def test_a_broken_json_list_is_one_line(clean_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LECTERN_API_KEYS", '["a"')
    with pytest.raises(ConfigError, match=r"LECTERN_API_KEYS: .*not a JSON list"):
        load_settings()


def test_unknown_variable_names_the_closest(clean_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LECTERN_TOPK", "3")
    result = runner.invoke(app, ["index", "stats"])
    assert result.exit_code == 1
    assert result.output.strip() == "error: unknown setting LECTERN_TOPK (did you mean LECTERN_TOP_K?)"


def test_config_file_errors_name_file_line_and_key(clean_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (clean_env / "lectern.toml").write_text("top_k = 3\nsimilarity_treshold = 0.4\n", encoding="utf-8")
    with pytest.raises(
        ConfigError,
        match=r"lectern.toml: unknown key 'similarity_treshold' \(did you mean similarity_threshold\?\)",
    ):
        load_settings()
    (clean_env / "lectern.toml").write_text("top_k = 3\ntop_k =\n", encoding="utf-8")
    result = runner.invoke(app, ["index", "stats"])
    assert result.exit_code == 1
    assert "lectern.toml" in result.output
    assert "line 2" in result.output
    assert "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1
    monkeypatch.setenv("LECTERN_CONFIG", str(clean_env / "missing.toml"))
    with pytest.raises(ConfigError, match=r"LECTERN_CONFIG: the file .*missing\.toml does not exist"):
        load_settings()


def test_a_good_config_file_is_read(clean_env: Path) -> None:
    (clean_env / "lectern.toml").write_text('top_k = 7\napi_keys = ["k"]\n', encoding="utf-8")
    settings = load_settings()
    assert settings.top_k == 7
    assert settings.api_keys[0].get_secret_value() == "k"


# --- logs and serve ------------------------------------------------------------------------------


def test_logs_are_text_for_people_and_json_for_machines() -> None:
    record = logging.LogRecord("lectern.api", logging.INFO, __file__, 1, "request", None, None)
    record.status = 200
    text = TextFormatter().format(record)
    assert "INFO" in text
    assert "request" in text
    assert "status=200" in text
    assert not text.startswith("{")
    assert json.loads(JsonFormatter().format(record))["status"] == 200
    assert log_formatter_name("auto") == "json"  # under pytest stderr is not a terminal
    assert log_formatter_name("text") == "text"


def test_a_busy_port_is_one_line_before_anything_loads(monkeypatch: pytest.MonkeyPatch) -> None:
    import lectern.api.app

    def never(*args: object, **kwargs: object) -> None:
        raise AssertionError("the app was built although the port is busy")

    monkeypatch.setattr(lectern.api.app, "create_app", never)
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = runner.invoke(app, ["serve", "--port", str(port)])
    assert result.exit_code == 1
    assert result.output.strip() == f"error: port {port} is in use (try --port {port + 1})"


def test_data_dir_reaches_the_command(clean_env: Path) -> None:
    from lectern.ingest.manifest import Manifest

    data = clean_env / "elsewhere"
    manifest = Manifest(data / "ingest.sqlite3")
    manifest.mark_dirty("notes", "fake:hash", 64)
    manifest.mark_clean("notes", 3)
    manifest.close()
    listed = json.loads(runner.invoke(app, ["--data-dir", str(data), "collections", "--json"]).output)
    assert [(c["name"], c["chunks"], c["clean"]) for c in listed] == [("notes", 3, True)]
    assert listed[0]["ingested_at"].endswith("Z")
    # The next invocation in the same process does not inherit it.
    assert "No collections yet" in runner.invoke(app, ["collections"]).output


def test_serve_warns_on_an_empty_collection_and_prints_a_banner(
    clean_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import uvicorn

    import lectern.api.app
    import lectern.store
    from lectern.runtime import Runtime
    from tests.fakes.memory_index import MemoryIndex

    served: dict[str, object] = {}
    monkeypatch.setattr(lectern.api.app, "create_app", lambda config, **kwargs: "app")
    monkeypatch.setattr(lectern.store, "upgrade_database_apart", lambda url: None)
    monkeypatch.setattr(uvicorn, "run", lambda app, **options: served.update(options))
    monkeypatch.setattr(Runtime, "index", property(lambda self: MemoryIndex("docs")))
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    result = runner.invoke(app, ["serve", "--port", str(port)])
    assert result.exit_code == 0, result.output
    out = " ".join(result.output.split())
    assert "warning: collection 'docs' does not exist" in out
    assert "/ready answers 503" in out
    assert f"serving collection docs (0 chunks) on http://127.0.0.1:{port}" in out
    assert f"curl -s http://127.0.0.1:{port}/chat/run" in out
    assert served["port"] == port
