"""The only place a question and a conversation become an answer: a typed stream of events.

    Retrieved(result, confidence)*  Token(text)*  then  Done(answer) | Failed(code, message)

The engine owns retrieval, confidence and the guardrail; a writer only writes.

- An extractive writer (`retrieves_itself=False`): the engine retrieves first and refuses without
  calling the writer when the confidence is insufficient.
- A tool-calling writer (`retrieves_itself=True`): it retrieves through the engine's callback (counted,
  capped at `llm_max_tool_calls`, cached per session, each reported as `Retrieved`). Retrieval happens
  before an answer's first token, so the engine holds the writer's tokens back until that first token,
  decides on what was retrieved so far (retrieving itself with the search query when the writer did
  not), and then either forwards the stream or cancels the writer and refuses.
- `selected_text_only` answers from the user's selection alone: neither the embedder nor the index is
  touched.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

from lectern import guardrail
from lectern.confidence import better, no_context, refused
from lectern.conversation import Conversation, Message, iso_timestamp
from lectern.errors import (
    ConfigError,
    EmbedderMismatch,
    InvalidInput,
    LecternError,
    NotFound,
    ProviderError,
    ProviderTimeout,
    TokenLimit,
    VectorIndexError,
)
from lectern.events import Done, Event, Failed, Retrieved, Token
from lectern.followups import standalone_query
from lectern.index.base import SearchFilters
from lectern.models import (
    Answer,
    AnswerTimings,
    Citation,
    ConfidenceMetrics,
    RetrievalResult,
    RetrievalTimings,
    SearchHit,
    SearchModeName,
    TokenUsage,
)
from lectern.retrieval import TOOL_MAX_TOP_K, RetrievalParams, Retriever
from lectern.settings import Settings
from lectern.writers.base import AnswerWriter, Retrieve, RetrieveCall, WriteRequest, Written
from lectern.writers.selection import (
    MAX_USER_CONTEXT_CHARS,
    SHORT_SELECTION_WORDS,
    selection_coverage,
    selection_hit,
    sources_of,
)
from lectern.writers.sources import union_hits
from lectern.writers.units import split_tokens

log = logging.getLogger(__name__)

MAX_QUESTION_CHARS = 10_000
SELECTION_RELATED = 0.5  # share of the question's topic words found in the selection
SEARCH_CONTEXT_CHARS = 400  # how much of a selection joins the search query
TOOL_CALL_LIMIT = "TOOL_CALL_LIMIT"
RETRIEVAL_DISABLED = "RETRIEVAL_DISABLED"

_ERRORS: dict[str, type[LecternError]] = {
    cls.code: cls
    for cls in (
        InvalidInput,
        VectorIndexError,
        ProviderError,
        ProviderTimeout,
        TokenLimit,
        EmbedderMismatch,
        ConfigError,
        NotFound,
    )
}


@dataclass(frozen=True)
class AskOptions:
    """Per-question options; None means the settings' default."""

    top_k: int | None = None
    threshold: float | None = None
    filters: SearchFilters | None = None
    mode: SearchModeName | None = None
    user_context: str | None = None
    selected_text_only: bool = False
    max_top_k: int = TOOL_MAX_TOP_K
    """Faces narrow this (chat: 10, seed 000)."""


@dataclass
class _Turn:
    """What one turn has gathered so far."""

    question: str
    search_query: str
    options: AskOptions
    started: float = field(default_factory=time.perf_counter)
    retrievals: list[tuple[RetrievalResult, ConfidenceMetrics]] = field(default_factory=list)
    text: list[str] = field(default_factory=list)
    generation_ms: float = 0.0
    written: Written | None = None
    warnings: list[str] = field(default_factory=list)

    def best(self) -> tuple[RetrievalResult, ConfidenceMetrics] | None:
        best: tuple[RetrievalResult, ConfidenceMetrics] | None = None
        for pair in self.retrievals:
            if best is None or better(pair[1], best[1]):
                best = pair
        return best


class Engine:
    def __init__(self, retriever: Retriever, writer: AnswerWriter, settings: Settings) -> None:
        self.retriever = retriever
        self.writer = writer
        self.settings = settings

    @classmethod
    def from_settings(cls, settings: Settings, collection: str | None = None) -> Engine:
        """The configured embedder, index and writer (imported lazily: faces that never answer skip them)."""
        from lectern.runtime import Runtime
        from lectern.writers import create_writer

        runtime = Runtime(settings, collection or "")
        retriever = Retriever(runtime.embedder, runtime.index, settings, collection=runtime.collection)
        return cls(retriever, create_writer(settings, embedder=runtime.embedder), settings)

    def new_conversation(self) -> Conversation:
        return Conversation(system_prompt=SYSTEM_PROMPT, max_history=self.settings.max_history)

    # --- public API ---------------------------------------------------------------------------------
    async def stream(
        self, question: str, conversation: Conversation, options: AskOptions | None = None
    ) -> AsyncIterator[Event]:
        """The turn's events; every failure ends the stream with one `Failed`, never an exception."""
        try:
            async for event in self._turn(question, conversation, options or AskOptions()):
                yield event
        except LecternError as exc:
            log.info("error", extra={"code": exc.code, "session_id": conversation.session_id})
            yield Failed(exc.code, exc.message)
        except Exception:
            log.exception("error", extra={"session_id": conversation.session_id})
            yield Failed("internal_error", "Something went wrong while answering; please try again.")

    async def run(
        self, question: str, conversation: Conversation, options: AskOptions | None = None
    ) -> Answer:
        """The answer of one turn; a failure raises the matching LecternError."""
        async for event in self.stream(question, conversation, options):
            if isinstance(event, Done):
                return event.answer
            if isinstance(event, Failed):
                raise _ERRORS.get(event.code, LecternError)(event.message, code=event.code)
        raise LecternError("The answer stream ended without an answer.")

    # --- one turn -----------------------------------------------------------------------------------
    async def _turn(
        self, question: str, conversation: Conversation, options: AskOptions
    ) -> AsyncIterator[Event]:
        question = _validate(question, options)
        previous = [m.content for m in conversation.history if m.role == "user"]
        turn = _Turn(question, self._search_query(question, previous, options), options)
        log.debug("query_received", extra={"session_id": conversation.session_id})
        if options.selected_text_only:
            body = self._selected_only(turn, conversation)
        elif self.writer.retrieves_itself:
            body = self._tool_calling(turn, conversation)
        else:
            body = self._retrieve_then_write(turn, conversation)
        answer: Answer | None = None
        async for event in body:
            if isinstance(event, Done):
                answer = event.answer
            else:
                yield event
        if answer is None:  # pragma: no cover - every path ends with Done
            raise LecternError("The turn produced no answer.")
        self._remember(conversation, turn, answer)
        yield Done(answer)

    def _search_query(self, question: str, previous: list[str], options: AskOptions) -> str:
        context = (options.user_context or "").strip()
        if context and not options.selected_text_only:
            # "Explain this" with a selection: the selection says what "this" is (and sharpens the search).
            return f"{question} {' '.join(context[:SEARCH_CONTEXT_CHARS].split())}"
        return standalone_query(question, previous)

    def _params(
        self, turn: _Turn, query: str | None = None, call: RetrieveCall | None = None
    ) -> RetrievalParams:
        o = turn.options
        return self.retriever.params(
            query or turn.search_query,
            top_k=(call.top_k if call and call.top_k is not None else o.top_k),
            threshold=(call.threshold if call and call.threshold is not None else o.threshold),
            mode=o.mode,
            filters=(call.filters if call and call.filters is not None else o.filters),
            max_top_k=o.max_top_k,
        )

    async def _retrieve(self, turn: _Turn, conversation: Conversation, params: RetrievalParams) -> Retrieved:
        result = await self.retriever.retrieve(params, conversation.cache)
        confidence = self.retriever.confidence(result)
        turn.retrievals.append((result, confidence))
        return Retrieved(result, confidence)

    # --- extractive: retrieve, decide, write ---------------------------------------------------------
    async def _retrieve_then_write(self, turn: _Turn, conversation: Conversation) -> AsyncIterator[Event]:
        retrieved = await self._retrieve(turn, conversation, self._params(turn))
        yield retrieved
        result, confidence = retrieved.result, retrieved.confidence
        context = turn.options.user_context
        refuse = await self._refuses(turn, result, confidence)
        if refuse and context and selection_coverage(turn.question, context) >= SELECTION_RELATED:
            # The documents do not cover it, but the user's selection does: answer from the selection.
            result = result.model_copy(update={"hits": []})
            confidence = _selection_confidence(turn.question, context)
            refuse = False
        if not result.hits and not result.total_candidates:
            turn.warnings.append(self._empty_warning())
        if refuse:
            async for event in self._refusal(turn, conversation, confidence):
                yield event
            return
        request = self._request(turn, conversation, result, confidence)
        async for event in self._write(turn, request, confidence):
            yield event
        sources = sources_of(request)
        yield Done(self._answer(turn, conversation, confidence, _citations(turn.written, sources)))

    async def _refuses(self, turn: _Turn, result: RetrievalResult, confidence: ConfidenceMetrics) -> bool:
        """Layer 3 (confidence), then layer 2 (the question's distinctive terms are in the chunks)."""
        if not confidence.should_answer:
            return True
        if not self.settings.guardrail_term_check:
            return False
        # With a selection the search query carries the selection's words; only the question's count.
        query = turn.question if turn.options.user_context else turn.search_query
        cover = await asyncio.to_thread(guardrail.coverage, query, result.hits, self.retriever.knows)
        if not cover.covered:
            log.debug("guardrail_refusal", extra={"unknown_terms": list(cover.unknown)})
        return not cover.covered

    # --- tool-calling writer: gate its stream on what it retrieved -----------------------------------
    async def _tool_calling(self, turn: _Turn, conversation: Conversation) -> AsyncIterator[Event]:
        queue: asyncio.Queue[object] = asyncio.Queue()
        cap = self.settings.llm_max_tool_calls
        calls = 0

        async def retrieve(call: RetrieveCall) -> RetrievalResult:
            nonlocal calls
            if calls >= cap:
                raise LecternError(f"The search limit of {cap} per answer is reached.", code=TOOL_CALL_LIMIT)
            calls += 1
            event = await self._retrieve(turn, conversation, self._params(turn, call.query, call))
            queue.put_nowait(event)
            return event.result

        request = self._request(turn, conversation, None, None, retrieve)
        task = asyncio.create_task(_pump(self.writer, request, queue))
        written_at = time.perf_counter()
        decided: ConfidenceMetrics | None = None
        try:
            while True:
                item = await queue.get()
                if item is _END:
                    break
                if isinstance(item, BaseException):
                    raise item
                if isinstance(item, Retrieved):
                    yield item
                    continue
                if decided is None:
                    # The first words of the answer: decide now, on everything retrieved before them.
                    gate = await self._gate(turn, conversation)
                    for event in gate[1]:
                        yield event
                    decided = gate[0]
                    if decided is None:  # refused
                        task.cancel()
                        best = turn.best()
                        confidence = best[1] if best else no_context()
                        async for event in self._refusal(turn, conversation, refused(confidence)):
                            yield event
                        return
                    if decided.confidence_level == "low":
                        for token in split_tokens(guardrail.LOW_CONFIDENCE_DISCLAIMER):
                            turn.text.append(token)
                            yield Token(token)
                if isinstance(item, Token):
                    turn.text.append(item.text)
                    yield item
                elif isinstance(item, Written):
                    turn.written = item
                    rest = _remainder("".join(turn.text), item.text, decided)
                    if rest:
                        turn.text.append(rest)
                        yield Token(rest)
        finally:
            if not task.done():
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
        turn.generation_ms = (time.perf_counter() - written_at) * 1000
        if decided is None:  # the writer ended without a word
            raise LecternError("The answer writer returned nothing.")
        union = union_hits(result for result, _ in turn.retrievals)
        context = turn.options.user_context
        citations = _citations(turn.written, union)
        if not citations and union:
            # The model cited nothing: the passages it was given are the answer's sources.
            best = turn.best()
            chosen = {h.chunk.content_hash for h in best[0].hits} if best else set()
            citations = [
                Citation.from_hit(n, h) for n, h in enumerate(union, 1) if h.chunk.content_hash in chosen
            ]
        if context and context.strip():
            citations.append(Citation.from_hit(len(union) + 1, selection_hit(context)))
        yield Done(self._answer(turn, conversation, decided, citations))

    async def _gate(
        self, turn: _Turn, conversation: Conversation
    ) -> tuple[ConfidenceMetrics | None, list[Event]]:
        """The confidence the answer stands on, or None to refuse; plus any retrieval made to decide."""
        events: list[Event] = []
        if not turn.retrievals:
            events.append(await self._retrieve(turn, conversation, self._params(turn)))
        best = turn.best()
        assert best is not None
        result, confidence = best
        if not await self._refuses(turn, result, confidence):
            return confidence, events
        context = turn.options.user_context
        if context and selection_coverage(turn.question, context) >= SELECTION_RELATED:
            return _selection_confidence(turn.question, context), events
        return None, events

    # --- the user's selection only -------------------------------------------------------------------
    async def _selected_only(self, turn: _Turn, conversation: Conversation) -> AsyncIterator[Event]:
        context = (turn.options.user_context or "").strip()
        if not context:
            raise InvalidInput("selected_text_only needs the selected text (user_context).")
        turn.search_query = turn.question  # nothing is searched
        confidence = _selection_confidence(turn.question, context)
        if not confidence.should_answer:
            text = guardrail.selection_mismatch(turn.question)
            for token in split_tokens(text):
                turn.text.append(token)
                yield Token(token)
            yield Done(self._answer(turn, conversation, confidence, [], grounded=False))
            return

        async def no_search(call: RetrieveCall) -> RetrievalResult:
            raise LecternError(
                "Searching is off: answer from the selected text only.", code=RETRIEVAL_DISABLED
            )

        empty = RetrievalResult(query=turn.question, collection=self.retriever.collection)
        request = self._request(turn, conversation, empty, confidence, no_search)
        async for event in self._write(turn, request, confidence):
            yield event
        if len(context.split()) < SHORT_SELECTION_WORDS:
            turn.text.append(guardrail.SHORT_SELECTION_NOTE)
            yield Token(guardrail.SHORT_SELECTION_NOTE)
        citations = _citations(turn.written, sources_of(request)) or [
            Citation.from_hit(1, selection_hit(context))
        ]
        yield Done(self._answer(turn, conversation, confidence, citations))

    # --- shared pieces -------------------------------------------------------------------------------
    def _request(
        self,
        turn: _Turn,
        conversation: Conversation,
        result: RetrievalResult | None,
        confidence: ConfidenceMetrics | None,
        retrieve: Retrieve | None = None,
    ) -> WriteRequest:
        async def refuse_retrieval(call: RetrieveCall) -> RetrievalResult:
            raise LecternError("This writer was given its sources already.", code=RETRIEVAL_DISABLED)

        return WriteRequest(
            question=turn.question,
            search_query=turn.search_query,
            history=list(conversation.history),
            system_prompt=conversation.system_prompt,
            retrieval=result,
            confidence=confidence,
            user_context=turn.options.user_context,
            retrieve=retrieve or refuse_retrieval,
        )

    async def _write(
        self, turn: _Turn, request: WriteRequest, confidence: ConfidenceMetrics
    ) -> AsyncIterator[Event]:
        started = time.perf_counter()
        if confidence.confidence_level == "low":
            for token in split_tokens(guardrail.LOW_CONFIDENCE_DISCLAIMER):
                turn.text.append(token)
                yield Token(token)
        async for event in self.writer.write(request):
            if isinstance(event, Token):
                turn.text.append(event.text)
                yield event
            else:
                turn.written = event
                rest = _remainder("".join(turn.text), event.text, confidence)
                if rest:
                    turn.text.append(rest)
                    yield Token(rest)
        turn.generation_ms = (time.perf_counter() - started) * 1000

    async def _refusal(
        self, turn: _Turn, conversation: Conversation, confidence: ConfidenceMetrics
    ) -> AsyncIterator[Event]:
        turn.text.clear()
        # With a selection the search query carries the selection's words; the question names the topic.
        topic_from = turn.question if turn.options.user_context else turn.search_query
        for token in split_tokens(guardrail.refusal(topic_from)):
            turn.text.append(token)
            yield Token(token)
        yield Done(self._answer(turn, conversation, refused(confidence), [], grounded=False))

    def _answer(
        self,
        turn: _Turn,
        conversation: Conversation,
        confidence: ConfidenceMetrics,
        citations: list[Citation],
        *,
        grounded: bool | None = None,
    ) -> Answer:
        timings = RetrievalTimings()
        for result, _ in turn.retrievals:
            t = result.timings
            timings.embedding_ms += t.embedding_ms
            timings.search_ms += t.search_ms
            timings.ranking_ms += t.ranking_ms
            timings.cached = timings.cached or t.cached
        written = turn.written
        usage = written.usage if written else TokenUsage()
        text = "".join(turn.text)
        return Answer(
            text=text,
            citations=citations,
            confidence=confidence,
            grounded=bool(citations) if grounded is None else grounded,
            retrieval_used=bool(turn.retrievals),
            retrieval_count=len(turn.retrievals),
            search_query=turn.search_query,
            model_used=(written.model if written and written.model else self.writer.name),
            usage=usage,
            timings=AnswerTimings(
                retrieval=timings,
                generation_ms=turn.generation_ms,
                total_ms=(time.perf_counter() - turn.started) * 1000,
            ),
            turn_number=conversation.turns + 1,
            timestamp=iso_timestamp(),
            warnings=[*turn.warnings, *(written.warnings if written else [])],
        )

    def _remember(self, conversation: Conversation, turn: _Turn, answer: Answer) -> None:
        conversation.add(Message("user", turn.question))
        conversation.add(
            Message(
                "assistant",
                answer.text,
                confidence=answer.confidence.average_similarity,
                citations=list(answer.citations),
            )
        )
        conversation.retrievals += answer.retrieval_count
        conversation.tokens += answer.usage.total_tokens
        log.debug(
            "response_sent", extra={"session_id": conversation.session_id, "ms": answer.timings.total_ms}
        )

    def _empty_warning(self) -> str:
        return (
            f"The collection '{self.retriever.collection}' has no matching chunks; "
            "if it is empty, ingest documents first (lectern ingest PATH)."
        )


SYSTEM_PROMPT = (
    "You answer questions from the documents only, cite every source, and say plainly when the documents "
    "do not answer."
)

_END = object()


async def _pump(writer: AnswerWriter, request: WriteRequest, queue: asyncio.Queue[object]) -> None:
    """Run the writer, putting its events (or its exception) on the queue, then the end marker."""
    try:
        async for event in writer.write(request):
            queue.put_nowait(event)
    except asyncio.CancelledError:
        raise
    except BaseException as exc:
        queue.put_nowait(exc)
    queue.put_nowait(_END)


def _validate(question: str, options: AskOptions) -> str:
    if not isinstance(question, str) or not question.strip():
        raise InvalidInput("The question is empty; please type a question.")
    if len(question) > MAX_QUESTION_CHARS:
        raise InvalidInput(f"The question is longer than {MAX_QUESTION_CHARS} characters.")
    context = options.user_context
    if context is not None and len(context) > MAX_USER_CONTEXT_CHARS:
        raise InvalidInput(f"The selected text is longer than {MAX_USER_CONTEXT_CHARS} characters.")
    if options.selected_text_only and not (context and context.strip()):
        raise InvalidInput("selected_text_only needs the selected text (user_context).")
    return " ".join(question.split())


def _remainder(streamed: str, final: str, confidence: ConfidenceMetrics | None) -> str:
    """What of the writer's final text was not streamed yet (all of it when it streamed nothing)."""
    prefix = (
        guardrail.LOW_CONFIDENCE_DISCLAIMER if confidence and confidence.confidence_level == "low" else ""
    )
    already = streamed[len(prefix) :] if streamed.startswith(prefix) else streamed
    return final[len(already) :] if final.startswith(already) else ""


def _citations(written: Written | None, sources: list[SearchHit]) -> list[Citation]:
    if written is None:
        return []
    return [
        Citation.from_hit(n, sources[n - 1]) for n in sorted(set(written.cited)) if 1 <= n <= len(sources)
    ]


def _selection_confidence(question: str, context: str) -> ConfidenceMetrics:
    """Confidence of an answer from the user's selection: one source, scored by how much of the
    question's topic the selection contains (no embedding: the selection alone is consulted)."""
    share = selection_coverage(question, context)
    related = share >= SELECTION_RELATED
    return ConfidenceMetrics(
        average_similarity=share,
        min_similarity=share,
        max_similarity=share,
        num_chunks=1,
        chunk_diversity=0.0,
        confidence_level="medium" if related else "insufficient",
        should_answer=related,
    )


__all__ = ["AskOptions", "Engine"]
