"""/openapi.json declares what the server enforces (schemathesis proves the rest:
tests/integration/test_schemathesis.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lectern.api import create_app
from lectern.api.chat_models import UUID4_PATTERN
from tests.api_support import ON_TOPIC, client_for, make_settings
from tests.contracts import chat_error


def _spec(tmp_path: Path) -> dict[str, Any]:
    return create_app(make_settings(tmp_path)).openapi()


def test_no_422_and_every_guarded_operation_declares_its_errors(tmp_path: Path) -> None:
    spec = _spec(tmp_path)
    for path, item in spec["paths"].items():
        for method, operation in item.items():
            responses = operation["responses"]
            assert "422" not in responses, (method, path)
            if path != "/health":
                assert {"401", "429", "503"} <= set(responses), (method, path)
            if method == "post":
                assert {"400", "413"} <= set(responses), (method, path)
    for path in ("/v1/models/{model_id}", "/v1/chat/completions"):
        operation = next(iter(spec["paths"][path].values()))
        assert {"400", "404"} <= set(operation["responses"])
    assert "HTTPValidationError" not in spec["components"]["schemas"]


def test_ids_lengths_booleans_and_the_model_are_declared(tmp_path: Path) -> None:
    spec = _spec(tmp_path)
    schemas = spec["components"]["schemas"]
    for path in ("/session/{session_id}/history", "/session/{session_id}"):
        for operation in spec["paths"][path].values():
            (param,) = [p for p in operation["parameters"] if p["name"] == "session_id"]
            assert param["schema"]["pattern"] == UUID4_PATTERN
    chat = schemas["ChatRequest"]["properties"]
    assert chat["message"]["minLength"] == 1
    assert chat["message"]["maxLength"] == 1000
    assert chat["session_id"]["anyOf"][0]["pattern"] == UUID4_PATTERN
    assert chat["selected_text_only"]["type"] == "boolean"
    assert schemas["ChatRequest"]["then"]["required"] == ["user_context"]
    prompt = schemas["PromptRequest"]["properties"]
    assert prompt["prompt"]["minLength"] == 1
    assert prompt["sessionId"]["pattern"] == UUID4_PATTERN
    assert (prompt["topK"]["minimum"], prompt["topK"]["maximum"]) == (1, 20)
    assert schemas["FeedbackRequest"]["properties"]["session_id"]["pattern"] == UUID4_PATTERN
    assert schemas["ChatCompletionRequest"]["properties"]["model"]["enum"] == ["lectern"]
    links = spec["paths"]["/chat/run"]["post"]["responses"]["200"]["links"]
    assert {"History", "FollowUp", "Feedback", "Delete"} <= set(links)


async def test_booleans_are_strict(tmp_path: Path) -> None:
    settings = make_settings(tmp_path)
    async with client_for(settings) as client:
        for value in (0, 1, "true", "yes"):
            response = await client.post("/chat/run", json={"message": ON_TOPIC, "selected_text_only": value})
            assert response.status_code == 400, (value, response.text)
            chat_error(response.json(), "VALIDATION_ERROR")
            stream = await client.post("/chat/run", json={"message": ON_TOPIC, "stream": value})
            assert stream.status_code == 400, (value, stream.text)
        ok = await client.post("/chat/run", json={"message": ON_TOPIC, "stream": False, "top_k": 5.0})
    assert ok.status_code == 200, ok.text
