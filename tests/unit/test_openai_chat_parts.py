"""The pure parts of the tool-calling writer: tool arguments, tool results, source numbering and
citations, the token budget, prompts and the `--llm` spec."""

from __future__ import annotations

import json

import pytest

from lectern.errors import ConfigError
from lectern.index.base import SearchFilters
from lectern.writers.base import RetrieveCall
from lectern.writers.budget import estimate_tokens, fit_history, message_tokens
from lectern.writers.llm_spec import LLMSpec, parse_llm_spec
from lectern.writers.prompts import REFUSAL_TEMPLATE, system_prompt, user_message
from lectern.writers.sources import SourceBook, parse_citations, union_hits
from lectern.writers.tool_schema import (
    MAX_TOOL_TOP_K,
    RETRIEVE_CONTEXT_TOOL,
    TOOL_TEXT_CHARS,
    ToolArgumentError,
    hit_entry,
    parse_tool_arguments,
    tool_error_json,
    tool_response_json,
    truncate_text,
)
from tests.fakes.retrieval_results import hit, result

# --- tool arguments -------------------------------------------------------------------------------


def test_schema_matches_the_reference_function() -> None:
    fn = RETRIEVE_CONTEXT_TOOL["function"]
    assert fn["name"] == "retrieve_context"
    props = fn["parameters"]["properties"]
    assert fn["parameters"]["required"] == ["query"]
    assert (props["top_k"]["minimum"], props["top_k"]["maximum"]) == (1, 10)
    assert (props["threshold"]["minimum"], props["threshold"]["maximum"]) == (0.0, 1.0)
    assert props["filters"]["type"] == "object"


def test_valid_arguments() -> None:
    call = parse_tool_arguments(
        '{"query": " ROS 2 nodes ", "top_k": 3, "threshold": 0.7,'
        ' "filters": {"chapter": "Ch 1", "module_name": ["A", "B"], "url_prefix": "https://x/"}}'
    )
    assert call == RetrieveCall(
        query="ROS 2 nodes",
        top_k=3,
        threshold=0.7,
        filters=SearchFilters(equals={"chapter": "Ch 1", "module_name": ["A", "B"]}, url_prefix="https://x/"),
    )


def test_optional_arguments_default_to_none_and_integral_floats_pass() -> None:
    assert parse_tool_arguments('{"query": "q"}') == RetrieveCall("q")
    assert parse_tool_arguments('{"query": "q", "top_k": 4.0, "threshold": 1}') == RetrieveCall(
        "q", top_k=4, threshold=1.0
    )
    assert parse_tool_arguments('{"query": "q", "filters": {}}') == RetrieveCall("q")


@pytest.mark.parametrize(
    ("raw", "fragment"),
    [
        ('{"query": "ros', "not valid JSON"),
        ("", '"query" is required'),
        ("[1, 2]", "JSON object"),
        ('{"top_k": 3}', '"query" is required'),
        ('{"query": "   "}', '"query" is required'),
        ('{"query": 5}', '"query" is required'),
        ('{"query": "q", "top_k": 0}', "between 1 and 10"),
        (f'{{"query": "q", "top_k": {MAX_TOOL_TOP_K + 1}}}', "between 1 and 10"),
        ('{"query": "q", "top_k": "five"}', "integer"),
        ('{"query": "q", "top_k": true}', "integer"),
        ('{"query": "q", "top_k": 2.5}', "integer"),
        ('{"query": "q", "threshold": 1.5}', "between 0 and 1"),
        ('{"query": "q", "threshold": -0.1}', "between 0 and 1"),
        ('{"query": "q", "threshold": "high"}', "number"),
        ('{"query": "q", "filters": "chapter=1"}', "object"),
        ('{"query": "q", "filters": {"chapter": {"a": 1}}}', "filters.chapter"),
        ('{"query": "q", "filters": {"chapter": []}}', "filters.chapter"),
        ('{"query": "q", "filters": {"url_prefix": 3}}', "url_prefix"),
    ],
)
def test_malformed_arguments_are_explained(raw: str, fragment: str) -> None:
    parsed = parse_tool_arguments(raw)
    assert isinstance(parsed, ToolArgumentError)
    assert fragment in parsed.message


def test_argument_error_keeps_the_query_when_known() -> None:
    parsed = parse_tool_arguments('{"query": "ros", "top_k": 99}')
    assert isinstance(parsed, ToolArgumentError)
    assert parsed.query == "ros"


# --- tool results ---------------------------------------------------------------------------------


def test_truncation_keeps_at_most_500_chars() -> None:
    long = "word " * 300
    cut = truncate_text(long)
    assert len(cut) <= TOOL_TEXT_CHARS
    assert cut.endswith("…")
    assert truncate_text("short text") == "short text"
    assert len(truncate_text("x" * 1000)) == TOOL_TEXT_CHARS


def test_tool_response_has_the_seed_003_shape() -> None:
    h = hit("A" * 800, similarity=0.87654, title="ROS 2", section="Nodes", url="https://d/x#n")
    entry = hit_entry(4, h)
    assert entry == {
        "source": 4,
        "text": entry["text"],
        "url": "https://d/x#n",
        "title": "ROS 2",
        "section": "Nodes",
        "score": 0.877,
    }
    assert len(entry["text"]) <= 500
    payload = json.loads(tool_response_json(query="q", entries=[entry], execution_time_s=0.1234))
    assert payload == {
        "results": [entry],
        "total": 1,
        "query": "q",
        "error": None,
        "message": None,
        "execution_time": 0.12,
    }


def test_tool_error_has_error_and_message_and_no_results() -> None:
    payload = json.loads(tool_error_json(error="INVALID_ARGUMENTS", message="bad", query="q"))
    assert payload["error"] == "INVALID_ARGUMENTS"
    assert payload["message"] == "bad"
    assert payload["results"] == []
    assert payload["total"] == 0
    assert set(payload) == {"results", "total", "query", "error", "message", "execution_time"}


# --- numbering and citations ----------------------------------------------------------------------


def test_sources_are_the_union_in_retrieval_order_deduplicated() -> None:
    a, b, c = hit("alpha"), hit("beta"), hit("gamma")
    book = SourceBook()
    assert book.add(result("q1", [a, b])) == [1, 2]
    assert book.add(result("q2", [hit("beta", similarity=0.5), c])) == [2, 3]
    assert [h.chunk.text for h in book.hits] == ["alpha", "beta", "gamma"]
    assert [h.chunk.text for h in union_hits([result("q1", [a, b]), result("q2", [b, c])])] == [
        "alpha",
        "beta",
        "gamma",
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Nodes talk over topics [1]. Services reply [3].", [1, 3]),
        ("Both [2][1] and again [1].", [1, 2]),
        ("A list [1, 3] and [2; 4].", [1, 2, 3, 4]),
        ("A range [2-4].", [2, 3, 4]),
        ("Named [Source 2] and [source: 3].", [2, 3]),
        ("Out of range [9] and [0] are ignored [5].", [5]),
        ("No markers at all; arrays like x[i] too.", []),
    ],
)
def test_parse_citations(text: str, expected: list[int]) -> None:
    assert parse_citations(text, 5) == expected


# --- token budget ---------------------------------------------------------------------------------


def test_estimate_tokens() -> None:
    assert estimate_tokens("") == 0
    assert estimate_tokens("abcd" * 10) == 10
    assert estimate_tokens("日本語") == 3
    assert message_tokens({"role": "user", "content": "abcd"}) == 5


def test_fit_history_drops_the_oldest_whole_turns() -> None:
    history = [
        {"role": "user", "content": "u1 " * 40},
        {"role": "assistant", "content": "a1 " * 40},
        {"role": "user", "content": "u2 " * 40},
        {"role": "assistant", "content": "a2 " * 40},
    ]
    each = message_tokens(history[0])
    assert fit_history(history, 10_000).dropped == 0
    fitted = fit_history(history, 3 * each)  # three fit, but the oldest kept would be an assistant
    assert fitted.dropped == 2
    assert [m["content"][:2] for m in fitted.history] == ["u2", "a2"]
    assert fit_history(history, 0).dropped == 4


# --- prompts --------------------------------------------------------------------------------------


def test_system_prompt_has_the_grounding_rules() -> None:
    prompt = system_prompt(3)
    assert "retrieve_context" in prompt
    assert "[1]" in prompt
    assert REFUSAL_TEMPLATE.format(topic="<topic>") in prompt
    assert "at most 3 searches" in prompt
    assert "{" not in prompt.replace("{topic}", "")
    assert system_prompt(3, "Answer in French.").endswith("Answer in French.\n")
    assert system_prompt(3, prompt) == prompt


def test_user_message_delimits_the_selection_and_adds_the_standalone_query() -> None:
    plain = user_message("What is it?", None, "What is it?")
    assert plain == "What is it?"
    msg = user_message("How does it work?", "It </selected_text> works", "How does ROS 2 work?")
    assert msg.startswith("The user selected this text and asks about it:")
    assert msg.count("</selected_text>") == 1
    assert "Question: How does it work?" in msg
    assert msg.endswith("(Standalone form of this question, for searching: How does ROS 2 work?)")


# --- --llm ----------------------------------------------------------------------------------------


def test_parse_llm_spec() -> None:
    assert parse_llm_spec("openai:gpt-4o-mini") == LLMSpec("openai", "gpt-4o-mini", "")
    assert parse_llm_spec("extractive") == LLMSpec("extractive", "")
    ollama = parse_llm_spec("ollama:llama3.1:8b")
    assert ollama == LLMSpec("openai", "llama3.1:8b", "http://127.0.0.1:11434/v1")
    assert ollama.settings_overrides() == {
        "llm_provider": "openai",
        "llm_model": "llama3.1:8b",
        "llm_base_url": "http://127.0.0.1:11434/v1",
    }
    assert "llm_base_url" not in ollama.settings_overrides("http://gpu-box:11434/v1")
    assert parse_llm_spec("extractive").settings_overrides() == {"llm_provider": "extractive"}


@pytest.mark.parametrize("spec", ["openai", "openai:", "nope:model", "extractive:x", ""])
def test_parse_llm_spec_rejects(spec: str) -> None:
    with pytest.raises(ConfigError):
        parse_llm_spec(spec)
