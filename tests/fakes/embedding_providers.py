"""Fake OpenAI-compatible and Cohere embedding endpoints for ``FakeHTTPServer``.

Vectors are deterministic per (text, dimension), so a test can check that each output row belongs
to its input text, whatever the batching.
"""

from __future__ import annotations

import hashlib

import numpy as np

from tests.fakes.http_server import FakeHTTPServer, Handler, Recorded, Reply

OPENAI_PATH = "/v1/embeddings"
COHERE_PATH = "/v2/embed"


def fake_vector(text: str, dimension: int) -> list[float]:
    seed = int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "little")
    vector = np.random.default_rng(seed).standard_normal(dimension)
    return [float(x) for x in vector / np.linalg.norm(vector)]


def openai_embeddings(dimension: int) -> Handler:
    """``POST /v1/embeddings`` as OpenAI answers it (``encoding_format: float``)."""

    def handle(request: Recorded) -> Reply:
        body = request.json
        inputs = body["input"] if isinstance(body["input"], list) else [body["input"]]
        # Answer out of order: the API returns an index per item, and clients must use it.
        data = [
            {"object": "embedding", "index": i, "embedding": fake_vector(text, dimension)}
            for i, text in reversed(list(enumerate(inputs)))
        ]
        tokens = sum(len(t.split()) for t in inputs)
        return Reply(
            json={
                "object": "list",
                "data": data,
                "model": body["model"],
                "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
            }
        )

    return handle


def cohere_embed(dimension: int) -> Handler:
    """``POST /v2/embed`` as Cohere answers it for ``embedding_types: ["float"]``."""

    def handle(request: Recorded) -> Reply:
        body = request.json
        texts = body["texts"]
        return Reply(
            json={
                "id": "fake-embed",
                "response_type": "embeddings_by_type",
                "embeddings": {"float": [fake_vector(t, dimension) for t in texts]},
                "texts": texts,
                "meta": {"api_version": {"version": "2"}, "billed_units": {"input_tokens": len(texts)}},
            }
        )

    return handle


def serve_openai_embeddings(server: FakeHTTPServer, dimension: int = 1536) -> str:
    """Install the route; returns the ``base_url`` to hand the openai SDK."""
    server.route("POST", OPENAI_PATH, openai_embeddings(dimension))
    return server.base_url + "/v1"


def serve_cohere_embed(server: FakeHTTPServer, dimension: int = 1024) -> str:
    server.route("POST", COHERE_PATH, cohere_embed(dimension))
    return server.base_url
