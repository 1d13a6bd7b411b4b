"""The MCP face: Lectern's knowledge base as tools and resources for other agents.

Tools
    ``search_docs``  the retrieved chunks (text, cosine score, title, section, URL, heading path), through
                     the engine's `Retriever`: the same validation, threshold and dedup as every face.
    ``ask``          a grounded answer with numbered sources, confidence and ``should_answer``, through the
                     engine's event stream. Conversation state lives in the conversation store (the same
                     threads as the HTTP API's sessions): pass the returned ``session_id`` back for a
                     follow-up, from any transport and after a restart.
Resources
    ``lectern://documents``                 the ingested documents (JSON)
    ``lectern://documents/{+source_path}``  one document's chunks in order (JSON)

Transports: stdio (``lectern mcp``, built here with its own engine and store) and streamable HTTP mounted in
the API at ``/mcp`` (`lectern.mcp.http`, reusing the app's engine and store). A failure is an MCP tool
error (``isError``) with the engine's message, never a crash.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError, ToolError
from mcp_types import CallToolResult, TextContent, ToolAnnotations
from pydantic import BaseModel, Field

import lectern
from lectern.api.logs import LogSink
from lectern.api.session_queue import SessionQueue
from lectern.api.turns import Turn, Turns
from lectern.engine import AskOptions, Engine
from lectern.errors import LecternError
from lectern.events import Done, Failed
from lectern.index.base import PAYLOAD_KEYS, SearchFilters, prepare_in_memory
from lectern.mcp.models import (
    DOCUMENT_TEMPLATE,
    DOCUMENTS_URI,
    AskResult,
    DocumentChunk,
    DocumentChunks,
    DocumentEntry,
    DocumentList,
    SearchDocsResult,
)
from lectern.retrieval import CHAT_MAX_TOP_K, TOOL_MAX_TOP_K
from lectern.settings import Settings
from lectern.store import ConversationStore, upgrade_database
from lectern.writers.selection import MAX_USER_CONTEXT_CHARS

log = logging.getLogger("lectern.mcp")

QUESTION_MAX = 1000  # seed 000 ChatRequest.message
FILTER_KEYS = (*PAYLOAD_KEYS, "url_prefix")

INSTRUCTIONS = (
    "Lectern answers questions from an ingested documentation set only, with numbered citations. "
    "Use `ask` for an answer (pass its session_id back for follow-ups); it says when the documents do "
    "not cover a question (should_answer=false) instead of guessing. Use `search_docs` for the raw "
    "passages. The resource lectern://documents lists the documents; lectern://documents/{path} holds "
    "one document's chunks."
)


@dataclass
class Backend:
    """What the tools use: the engine (its retriever for search, its event stream for answers) and the
    store-backed turns that keep each session's conversation."""

    engine: Engine
    turns: Turns
    settings: Settings


class BackendSlot:
    """Filled when the transport's lifespan has built (stdio) or been handed (HTTP) the backend."""

    def __init__(self, backend: Backend | None = None) -> None:
        self.backend = backend

    def get(self) -> Backend:
        if self.backend is None:
            raise LecternError("Lectern is starting or shutting down; try again in a moment.")
        return self.backend


# --- tool inputs (the seeds' ranges, so the JSON schema states them) -------------------------------------

Query = Annotated[str, Field(min_length=1, max_length=QUESTION_MAX, description="What to look for.")]
SearchTopK = Annotated[
    int, Field(ge=1, le=TOOL_MAX_TOP_K, description=f"Chunks to return, 1-{TOOL_MAX_TOP_K}.")
]
Filters = Annotated[
    dict[str, str | int | list[str]] | None,
    Field(
        description=(
            "Equality filters on chunk metadata (a list means any of): "
            + ", ".join(PAYLOAD_KEYS)
            + '; plus url_prefix to keep URLs that start with it. Example: {"chapter": "Chapter 3"}.'
        )
    ),
]
Threshold = Annotated[
    float | None,
    Field(ge=0.0, le=1.0, description="Minimum cosine similarity, 0.0-1.0 (default: the server's)."),
]
Question = Annotated[
    str,
    Field(min_length=1, max_length=QUESTION_MAX, description=f"The question, 1-{QUESTION_MAX} characters."),
]
SessionId = Annotated[
    str | None,
    Field(
        description="UUID v4 of a conversation from an earlier `ask` result, for a follow-up; "
        "leave it out to start a new one.",
        min_length=36,
        max_length=36,
    ),
]
AskTopK = Annotated[
    int | None,
    Field(ge=1, le=CHAT_MAX_TOP_K, description=f"Chunks to retrieve, 1-{CHAT_MAX_TOP_K} (default 5)."),
]
UserContext = Annotated[
    str | None,
    Field(
        max_length=MAX_USER_CONTEXT_CHARS,
        description=f"Text the user selected, up to {MAX_USER_CONTEXT_CHARS} characters: it is cited "
        "as a source and answers questions about it ('explain this').",
    ),
]


def _result(model: BaseModel, text: str) -> CallToolResult:
    """Structured content (validated against the tool's output schema) plus a readable text block."""
    return CallToolResult(
        content=[TextContent(type="text", text=text)], structured_content=model.model_dump(mode="json")
    )


def _owner(ctx: Context) -> str | None:
    """The API key id of an HTTP caller (set by the API's guard); None over stdio or without keys."""
    try:
        request = ctx.request_context.request
    except ValueError:
        return None
    scope = getattr(request, "scope", None)
    if not isinstance(scope, dict):
        return None
    owner = (scope.get("state") or {}).get("owner")
    return owner if isinstance(owner, str) else None


def _session(value: str | None) -> uuid.UUID | None:
    if value is None:
        return None
    try:
        parsed = uuid.UUID(value)
    except ValueError:
        parsed = None
    if parsed is None or parsed.version != 4:
        raise ToolError("session_id must be a UUID v4 from an earlier ask result.")
    return parsed


def _filters(raw: dict[str, str | int | list[str]] | None) -> SearchFilters | None:
    if not raw:
        return None
    unknown = sorted(set(raw) - set(FILTER_KEYS))
    if unknown:
        raise ToolError(f"Unknown filter key(s) {', '.join(unknown)}; use {', '.join(FILTER_KEYS)}.")
    equals = {k: v for k, v in raw.items() if k != "url_prefix"}
    prefix = raw.get("url_prefix")
    if prefix is not None and not isinstance(prefix, str):
        raise ToolError("url_prefix must be a string.")
    return SearchFilters(equals=equals, url_prefix=prefix)


def create_mcp_server(
    slot: BackendSlot,
    *,
    lifespan: Callable[[MCPServer[Any]], AbstractAsyncContextManager[Any]] | None = None,
) -> MCPServer[Any]:
    """The MCP server over whatever backend `slot` holds when a request arrives."""
    server: MCPServer[Any] = MCPServer(
        name="lectern",
        title="Lectern",
        description="Grounded answers from your documentation, with citations.",
        instructions=INSTRUCTIONS,
        version=lectern.__version__,
        lifespan=lifespan,
        # The SDK configures the root logger when none is; WARNING matches Python's own last resort.
        log_level="WARNING",
    )

    @server.tool(
        name="search_docs",
        title="Search the documentation",
        annotations=ToolAnnotations(read_only_hint=True, idempotent_hint=True, open_world_hint=False),
    )
    async def search_docs(
        query: Query,
        top_k: SearchTopK = 5,
        filters: Filters = None,
        similarity_threshold: Threshold = None,
    ) -> Annotated[CallToolResult, SearchDocsResult]:
        """Search the ingested documentation and return the best-matching chunks, best first, each with
        its text, cosine similarity score, title, section, URL and heading path. No answer is written."""
        try:
            backend = slot.get()
            retriever = backend.engine.retriever
            params = retriever.params(
                query,
                top_k=top_k,
                threshold=similarity_threshold,
                filters=_filters(filters),
                max_top_k=TOOL_MAX_TOP_K,
            )
            started = time.perf_counter()
            result = await retriever.retrieve(params)
            confidence = retriever.confidence(result)
        except LecternError as exc:
            raise ToolError(exc.message) from None
        elapsed_ms = (time.perf_counter() - started) * 1000
        backend.turns.sink.emit(
            "retrieval_performed",
            duration_ms=elapsed_ms,
            face="mcp",
            results=len(result.hits),
            candidates=result.total_candidates,
        )
        out = SearchDocsResult.of(result, confidence, elapsed_ms)
        return _result(out, out.text())

    @server.tool(
        name="ask",
        title="Ask the documentation",
        annotations=ToolAnnotations(read_only_hint=False, idempotent_hint=False, open_world_hint=False),
    )
    async def ask(
        question: Question,
        ctx: Context,
        session_id: SessionId = None,
        top_k: AskTopK = None,
        similarity_threshold: Threshold = None,
        user_context: UserContext = None,
    ) -> Annotated[CallToolResult, AskResult]:
        """Answer a question from the documentation only. The answer cites its sources as [n], lists
        them with URLs and scores, and reports its confidence; when the documents do not cover the
        question it says so (should_answer=false) rather than guessing. Pass session_id back to ask a
        follow-up ("what about its parameters?") in the same conversation."""
        if not question.strip():
            raise ToolError("The question is empty; please type a question.")
        started = time.perf_counter()
        given = _session(session_id)
        try:
            backend = slot.get()
            turn = Turn(
                session_id=given or uuid.uuid4(),
                owner=_owner(ctx),
                question=question,
                options=AskOptions(
                    top_k=top_k,
                    threshold=similarity_threshold,
                    user_context=user_context,
                    max_top_k=CHAT_MAX_TOP_K,
                ),
            )
            async with backend.turns.queue.turn(turn.session_id):  # the session's earlier question first
                conversation = await backend.turns.begin(turn, new=given is None)
                # closed here at Done or Failed, not later through the event loop (see Engine.stream)
                async with contextlib.aclosing(backend.turns.events(turn, conversation)) as events:
                    async for event in events:
                        if isinstance(event, Done):
                            await backend.turns.complete(turn, event.answer, started)
                            out = AskResult.of(event.answer, str(turn.session_id))
                            return _result(out, out.text())
                        if isinstance(event, Failed):
                            raise ToolError(event.message)
        except LecternError as exc:
            raise ToolError(exc.message) from None
        raise ToolError("The answer stream ended without an answer.")

    @server.resource(
        DOCUMENTS_URI,
        name="documents",
        title="Ingested documents",
        description="Every ingested document: path, title, URL, chunk count and its own resource URI.",
        mime_type="application/json",
    )
    async def documents() -> str:
        try:
            backend = slot.get()
            index = backend.engine.retriever.index
            found = await asyncio.to_thread(index.documents)
        except LecternError as exc:
            raise ResourceError(exc.message) from None
        listing = DocumentList(
            collection=backend.engine.retriever.collection, documents=[DocumentEntry.of(d) for d in found]
        )
        return listing.model_dump_json(indent=2)

    @server.resource(
        DOCUMENT_TEMPLATE,
        name="document",
        title="One document's chunks",
        description="The chunks of one ingested document, in order. The path may keep its slashes "
        "(lectern://documents/guide/install.md) or encode them (guide%2Finstall.md).",
        mime_type="application/json",
    )
    async def document(source_path: str) -> str:
        try:
            backend = slot.get()
            index = backend.engine.retriever.index
            chunks = await asyncio.to_thread(index.chunks_of, source_path)
        except LecternError as exc:
            raise ResourceError(exc.message) from None
        if not chunks:
            raise ResourceNotFoundError(
                f"No document {source_path!r} in the collection; see {DOCUMENTS_URI}."
            )
        body = DocumentChunks(
            source_path=source_path, title=chunks[0].title, chunks=[DocumentChunk.of(c) for c in chunks]
        )
        return body.model_dump_json(indent=2)

    return server


# --- stdio: the server builds its own engine and store ------------------------------------------------


def _build_engine(settings: Settings) -> Engine:
    engine = Engine.from_settings(settings)
    engine.retriever.index.info()
    engine.retriever.embedder.embed_query("warm up")  # load the model before the first question
    prepare_in_memory(engine.retriever.index)  # and the index's in-memory search structures
    return engine


@asynccontextmanager
async def standalone_backend(settings: Settings) -> AsyncIterator[Backend]:
    """The engine and the conversation store of a process of its own (``lectern mcp``)."""
    await upgrade_database(settings.effective_database_url)
    store = ConversationStore.from_settings(settings)
    try:
        engine = await asyncio.to_thread(_build_engine, settings)
        sink = LogSink(store)
        sink.start()
        try:
            queue = SessionQueue(
                max_waiting=settings.session_max_waiting, wait_s=settings.session_turn_wait_s
            )
            turns = Turns(engine, store, sink, history=settings.max_history, queue=queue)
            yield Backend(engine, turns, settings)
        finally:
            await sink.stop()
    finally:
        await store.close()


def stdio_server(settings: Settings) -> MCPServer[Any]:
    slot = BackendSlot()

    @asynccontextmanager
    async def lifespan(_server: MCPServer[Any]) -> AsyncIterator[None]:
        async with standalone_backend(settings) as backend:
            slot.backend = backend
            log.info("mcp_ready", extra={"collection": backend.engine.retriever.collection})
            try:
                yield
            finally:
                slot.backend = None

    return create_mcp_server(slot, lifespan=lifespan)


async def run_stdio(settings: Settings) -> None:
    """Serve MCP on stdin/stdout until the client closes them. Nothing else may write to stdout."""
    await stdio_server(settings).run_stdio_async()
