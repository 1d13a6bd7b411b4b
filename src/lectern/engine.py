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

The engine's pieces that need no engine live next to it: the turn's options and state (`lectern.turn`),
how a follow-up is searched next to the previous answer (`lectern.followup_search`), the citation
renumbering (`lectern.citations`), a writer's stream as the engine reads it (`lectern.writer_stream`) and
the confidence of an answer from the selection (`lectern.writers.selection`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncGenerator, AsyncIterator, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from lectern import answerability, guardrail, spelling, word_frequency
from lectern.answerability import AnswerabilityModel, load_model
from lectern.citations import _citations, _numbering
from lectern.confidence import no_context, refused
from lectern.conversation import Conversation, Message, iso_timestamp
from lectern.courtesy import without_courtesy
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
from lectern.followup_search import (
    FOLLOWUP_POOL,
    PREVIOUS_SOURCE_BONUS,
    PREVIOUS_SOURCE_PASSAGES,
    _context_free,
    _favours_previous_sources,
    _judged,
    _retry_query,
    favour_previous_sources,
    with_second_search,
)
from lectern.followups import names_little, standalone_query
from lectern.models import (
    Answer,
    AnswerTimings,
    Citation,
    ConfidenceMetrics,
    RefusalReason,
    RetrievalResult,
    RetrievalTimings,
    SearchHit,
    TokenUsage,
)
from lectern.retrieval import RetrievalParams, Retriever
from lectern.settings import Settings
from lectern.turn import AskOptions, Decided, _carried, _decision_query, _Prepared, _Retry, _Turn, _validate
from lectern.verification import StreamGate, lowered, passages_of
from lectern.writer_stream import _END, _pump, _remainder
from lectern.writers.base import (
    AnswerWriter,
    Composed,
    ComposingWriter,
    ReserveQuoting,
    Retrieve,
    RetrieveCall,
    WriteRequest,
    Written,
)
from lectern.writers.selection import (
    SELECTION_RELATED,
    SHORT_SELECTION_WORDS,
    _selection_confidence,
    quotable_of,
    selection_coverage,
    selection_hit,
    sources_of,
)
from lectern.writers.sources import union_hits
from lectern.writers.units import split_tokens

if TYPE_CHECKING:
    from lectern.runtime import Runtime

log = logging.getLogger(__name__)

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


RETRY_LEVELS = ("high", "medium")  # a question searched again with the previous topic is answered at these


class Engine:
    def __init__(self, retriever: Retriever, writer: AnswerWriter, settings: Settings) -> None:
        self.retriever = retriever
        self.writer = writer
        self.settings = settings
        # Word rarity (the answerability decision) from a table next to the model graphs.
        word_frequency.configure(settings.model_cache_dir)

    @classmethod
    def from_settings(
        cls, settings: Settings, collection: str | None = None, runtime: Runtime | None = None
    ) -> Engine:
        """The configured embedder, index and writer (imported lazily: faces that never answer skip them).
        A face that already opened the collection (to check it) passes its `runtime`."""
        from lectern.runtime import Runtime
        from lectern.writers import create_writer

        runtime = runtime or Runtime(settings, collection or "")
        retriever = Retriever(runtime.embedder, runtime.index, settings, collection=runtime.collection)
        return cls(retriever, create_writer(settings, embedder=runtime.embedder), settings)

    def new_conversation(self, session_id: str | None = None) -> Conversation:
        """A conversation with no turns yet; a new session id unless given."""
        if session_id is None:
            return Conversation(system_prompt=SYSTEM_PROMPT, max_history=self.settings.max_history)
        return Conversation(
            system_prompt=SYSTEM_PROMPT, max_history=self.settings.max_history, session_id=session_id
        )

    @property
    def writer(self) -> AnswerWriter:
        return self._writer

    @writer.setter
    def writer(self, writer: AnswerWriter) -> None:
        # What the writer is, worked out when it is set: an isinstance check against a
        # runtime-checkable protocol costs 4-16 us, and answers asked three.
        self._writer = writer
        # The writer, when the engine may compose its answers for it (`ComposingWriter`).
        self._composer = writer if isinstance(writer, ComposingWriter) else None
        self._reserve_quoting = writer if isinstance(writer, ReserveQuoting) else None

    @property
    def _quotes_reserve(self) -> bool:
        """Whether the writer's answers may cite the retrieval's reserve (`ReserveQuoting`)."""
        return self._reserve_quoting is not None and self._reserve_quoting.quotes_reserve

    # --- public API ---------------------------------------------------------------------------------
    async def stream(
        self, question: str, conversation: Conversation, options: AskOptions | None = None
    ) -> AsyncGenerator[Event, None]:
        """The turn's events; every failure ends the stream with one `Failed`, never an exception.

        `Done` (or `Failed`) is the last event: a caller that stops there should close the stream
        (``contextlib.aclosing``), which closes the turn with it at once. An async generator left open
        is closed later through the event loop instead (a wake-up and a task of its own per answer)."""
        try:
            turn = self._turn(question, conversation, options or AskOptions())
            async with contextlib.aclosing(turn) as events:
                async for event in events:
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
        options = replace(options or AskOptions(), stream_tokens=False)  # nobody sees the words
        async with contextlib.aclosing(self.stream(question, conversation, options)) as events:
            async for event in events:
                if isinstance(event, Done):
                    return event.answer
                if isinstance(event, Failed):
                    raise _ERRORS.get(event.code, LecternError)(event.message, code=event.code)
        raise LecternError("The answer stream ended without an answer.")

    # --- one turn -----------------------------------------------------------------------------------
    async def _turn(
        self, question: str, conversation: Conversation, options: AskOptions
    ) -> AsyncGenerator[Event, None]:
        question = _validate(question, options)
        # "Hi! How do I X?" is searched, judged and written for as "How do I X?"; stored as asked
        plain = without_courtesy(question)
        previous = [m.content for m in conversation.history if m.role == "user"]
        spelled, previous = await self._respelt(plain, previous, options)
        turn = _Turn(
            question,
            self._search_query(spelled, previous, options),
            options,
            previous,
            _last_sources(conversation),
            _last_section(conversation),
            spelled if spelled != question else None,
            plain if plain != question else None,
        )
        log.debug("query_received", extra={"session_id": conversation.session_id})
        prepare = getattr(self.writer, "prepare", None)
        if prepare is not None:  # an LLM writer learns once whether its server can call tools
            await prepare()
        if options.selected_text_only:
            body = self._selected_only(turn, conversation)
        elif self.writer.retrieves_itself:
            body = self._tool_calling(turn, conversation)
        else:
            body = self._retrieve_then_write(turn, conversation)
        answer: Answer | None = None
        numbering = _numbering(options)
        async for event in body:
            if isinstance(event, Done):
                answer = event.answer
            elif isinstance(event, Token):
                # Markers leave with their display numbers (1..k by first appearance), never renumbered later.
                numbering.streamed.append(event.text)
                shown = numbering.renumberer.feed(event.text)
                if shown:
                    yield event if shown is event.text else Token(shown)
            else:
                if isinstance(event, Retrieved):
                    numbering.book.add(event.result)
                    numbering.reserve = len(event.result.reserve) if self._quotes_reserve else 0
                yield event
        if answer is None:  # pragma: no cover - every path ends with Done
            raise LecternError("The turn produced no answer.")
        rest = numbering.renumberer.flush()
        if rest:
            yield Token(rest)
        answer = numbering.apply(answer)
        self._remember(conversation, turn, answer)
        yield Done(answer)

    async def _respelt(
        self, question: str, previous: list[str], options: AskOptions
    ) -> tuple[str, list[str]]:
        """The question and the conversation's earlier ones with their misspelt words put right: a slip
        ("insted", "conecting") reads as a name the documents never mention, and the question would be
        refused as off topic. The keyword lookups run in a worker thread, only for a rare word."""
        texts = [question, *previous]
        if options.selected_text_only or not any(spelling.misspelt(t) for t in texts):
            return question, previous
        knows = self.retriever.knows
        fixed = await asyncio.to_thread(lambda: [spelling.respelt(t, knows) for t in texts])
        return fixed[0], fixed[1:]

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
        result, confidence = await self.retriever.retrieve_assessed(params, conversation.cache)
        turn.retrievals.append((result, confidence))
        return Retrieved(result, confidence)

    # --- extractive: retrieve, decide, write ---------------------------------------------------------
    async def _retrieve_then_write(self, turn: _Turn, conversation: Conversation) -> AsyncIterator[Event]:
        favoured = _favours_previous_sources(turn)
        if favoured:
            retrieved, prepared = await self._retrieve_followup(turn, conversation), _Prepared()
        else:
            retrieved, prepared = await self._retrieve_to_decide(turn, conversation)
        yield retrieved
        result, confidence = retrieved.result, retrieved.confidence
        context = turn.options.user_context
        related = result.hits
        confidence, reason = prepared.decided or await self._decide(
            turn, result, confidence, prepared.signals
        )
        if reason and favoured:
            plain = await self._plain_followup(turn, conversation)
            if plain is not None:
                yield plain[0]
                result, confidence, reason = plain[0].result, plain[1], None
                related = result.hits
        if reason:
            bare = await self._bare_followup(turn, conversation)
            if bare is not None:
                yield bare[0]
                result, confidence, reason = bare[0].result, bare[1], None
                related = result.hits
        if reason:
            section = await self._in_previous_section(turn, conversation, result)
            if section is not None:
                yield section[0]
                result, confidence, reason = section[0].result, section[1], None
                related = result.hits
        if reason:
            again = await self._with_previous_topic(turn, conversation, result, prepared.retry)
            if again is not None:
                yield again[0]
                result, confidence, reason = again[0].result, again[1], None
                related = result.hits
        if not reason:
            clearer = await self._clearer_with_previous_topic(turn, conversation, result, confidence)
            if clearer is not None:
                yield clearer[0]
                result, confidence = clearer[0].result, clearer[1]
                related = result.hits
                prepared = _Prepared()  # its request was made for the search as asked
        if reason and context and selection_coverage(turn.read, context) >= SELECTION_RELATED:
            # The documents do not cover it, but the user's selection does: answer from the selection.
            result = result.model_copy(update={"hits": [], "reserve": []})
            confidence = _selection_confidence(turn.read, context)
            reason = None
        if not result.hits and not result.total_candidates:
            turn.warnings.append(self._empty_warning())
        if reason:
            async for event in self._refusal(turn, conversation, confidence, reason, related):
                yield event
            return
        # prepared: decided to answer, so neither the result nor the confidence changed since
        request = prepared.request or self._request(turn, conversation, result, confidence)
        if self._verifies:
            self._gate_stream(turn, list(result.hits), confidence)
        async for event in self._write(turn, request, confidence):
            yield event
        if self._verifies:
            async for event in self._verified(turn, conversation, confidence, list(result.hits)):
                yield event
            return
        # An extractive answer may cite the retrieval's reserve, numbered after the sources.
        sources = quotable_of(request) if self._quotes_reserve else sources_of(request)
        yield Done(self._answer(turn, conversation, confidence, _citations(turn.written, sources)))

    async def _retrieve_followup(self, turn: _Turn, conversation: Conversation) -> Retrieved:
        """The turn's retrieval; a follow-up's favours the files the previous answer cited ("which of
        those details ..." is answered next to where the details were)."""
        params = self._params(turn)
        pool = replace(params, top_k=max(params.top_k, FOLLOWUP_POOL))
        found, _ = await self.retriever.retrieve_assessed(pool, conversation.cache)
        bare = _context_free(turn)
        if bare is not None:
            other, _ = await self.retriever.retrieve_assessed(replace(pool, query=bare), conversation.cache)
            found = found.model_copy(update={"hits": with_second_search(found.hits, other.hits)})
        hits = favour_previous_sources(found.hits, turn.previous_sources, params.top_k)
        result = self.retriever.narrowed(found, hits, params.top_k)
        confidence = self.retriever.confidence(result)
        turn.retrievals.append((result, confidence))
        return Retrieved(result, confidence)

    async def _plain_followup(
        self, turn: _Turn, conversation: Conversation
    ) -> tuple[Retrieved, ConfidenceMetrics] | None:
        """A rewritten follow-up refused on the passages that favour the previous answer's files: the
        same query searched as any question is, and decided on what that finds. Favouring the previous
        files (and mixing in the search without the bracketed context) ranks the passages for writing
        next to the previous answer, but it can push out the passage the decision needed ("what
        categories does it block?" after a question about a dialogue system's safety) or hold on to a
        previous answer that cited the wrong file. None when that decision refuses too."""
        retrieved = await self._retrieve(turn, conversation, self._params(turn))
        confidence, reason = await self._decide(turn, retrieved.result, retrieved.confidence)
        return None if reason else (retrieved, confidence)

    async def _bare_followup(
        self, turn: _Turn, conversation: Conversation
    ) -> tuple[Retrieved, ConfidenceMetrics] | None:
        """A rewritten follow-up refused with its bracketed context, searched and decided once more
        without it when its own words name the previous subject ("where do I set how aggressive voice
        node is (reacting to background chatter)?" -> "where do I set how aggressive voice node is?"):
        the context keeps the search on the conversation's topic, but words of it that no passage
        answering the follow-up has make it look unanswered. Only a clear answer (`RETRY_LEVELS`)."""
        bare = None if turn.options.user_context or turn.search_query == turn.asked else _context_free(turn)
        if bare is None:
            return None
        retrieved = await self._retrieve(turn, conversation, self._params(turn, bare))
        # decided on the words searched
        searched = replace(turn, search_query=bare)
        confidence, reason = await self._decide(searched, retrieved.result, retrieved.confidence)
        if reason or confidence.confidence_level not in RETRY_LEVELS:
            return None
        turn.search_query = bare
        return retrieved, confidence

    async def _in_previous_section(
        self, turn: _Turn, conversation: Conversation, rewritten: RetrievalResult
    ) -> tuple[Retrieved, ConfidenceMetrics] | None:
        """A rewritten follow-up refused however its rewrite was searched: the question as asked,
        searched with where the previous answer came from (its first source's outermost and innermost
        headings, `_Turn.previous_section`) in brackets, and answered when the passages found answer
        the rewrite (its words, embedding and carried words: judged as the rewrite was). The rewrite carries
        the previous question's words, which may not be the document's ("what props does it take?"
        after a question on showing an author in a card: the section is the card component's); the
        heading says where the conversation is in the document's own words. None when that is refused
        too or answered only at low confidence by a question that names a thing of its own, or the turn
        is not rewritten, has a selection or follows no cited answer."""
        if not turn.previous_section or turn.options.user_context or turn.search_query == turn.asked:
            return None
        query = f"{turn.asked.rstrip(' ?')} ({turn.previous_section})?"
        retry = await self._search_with_topic(turn, conversation, query, rewritten)
        confidence = await self._taken_retry(turn, retry)
        if confidence is None:
            return None
        return Retrieved(retry.result, retry.confidence), confidence

    async def _with_previous_topic(
        self,
        turn: _Turn,
        conversation: Conversation,
        as_asked: RetrievalResult,
        searched_already: _Retry | None = None,
    ) -> tuple[Retrieved, ConfidenceMetrics] | None:
        """A second question that reads as self-contained but cannot be answered as asked may still lean
        on the turn before ("when should I pick small over base?" after "What Whisper model sizes are
        there?"): searched again with the previous topic, it is answered when the passages found
        answer the question as asked (its own words and meaning: the topic's words would make any
        question look answered). A question already rewritten, or explained by a selection, is not
        tried again. `searched_already`: that search, made in the first search's worker call."""
        query = _retry_query(turn)
        if query is None:
            return None
        if searched_already is not None and searched_already.query == query:
            retry = searched_already
            self.retriever.remember(self._params(turn, query), retry.result, conversation.cache)
        else:
            retry = await self._search_with_topic(turn, conversation, query, as_asked)
        confidence = await self._taken_retry(turn, retry)
        if confidence is None:
            return None
        turn.search_query = query
        return Retrieved(retry.result, retry.confidence), confidence

    async def _taken_retry(self, turn: _Turn, retry: _Retry) -> ConfidenceMetrics | None:
        """A second search of the turn (`_with_previous_topic`, `_in_previous_section`) decided, and
        its confidence when it is taken; None when it is refused or not clear enough."""
        turn.retrievals.append((retry.result, retry.confidence))
        confidence, reason = await self._decide(turn, retry.judged, retry.confidence, retry.signals)
        # Only a clear answer: on the training sets every near miss the second search let through was a
        # low-confidence one (a question the documents miss looks half-covered next to the topic) that
        # named a topic of its own ("can I use a Dutch oven instead?"); a question that names too little
        # to stand alone ("how do I refuse a bad value?" after a question on changing a node's
        # parameters) is about the topic, so a low one will do.
        levels = (*RETRY_LEVELS, "low") if names_little(turn.asked) else RETRY_LEVELS
        if reason or confidence.confidence_level not in levels:
            return None
        return confidence

    async def _clearer_with_previous_topic(
        self,
        turn: _Turn,
        conversation: Conversation,
        as_asked: RetrievalResult,
        confidence: ConfidenceMetrics,
    ) -> tuple[Retrieved, ConfidenceMetrics] | None:
        """A second question answered as asked, but only at low confidence, that names too little to be a
        topic of its own ("how long does the first part take?" after "how do I set up the sourdough
        starter?"): searched again with the previous topic, that reading is taken when it is answered
        clearly (`RETRY_LEVELS`) and more probably than as asked. Asked alone, such a question lands on
        whichever page uses its generic words; a refused one is tried again already
        (`_with_previous_topic`), a low answer was kept. A question naming a thing ("which Gazebo
        library ...?") is never read with the previous topic here, however its low answer compares."""
        if confidence.confidence_level != "low" or confidence.answerability is None:
            return None
        query = _retry_query(turn)
        if query is None or not names_little(turn.asked):
            return None
        retry = await self._search_with_topic(turn, conversation, query, as_asked)
        decided, reason = await self._decide(turn, retry.judged, retry.confidence, retry.signals)
        clearer = decided.answerability is not None and decided.answerability > confidence.answerability
        if reason or decided.confidence_level not in RETRY_LEVELS or not clearer:
            return None
        turn.retrievals.append((retry.result, retry.confidence))
        turn.search_query = query
        return Retrieved(retry.result, retry.confidence), decided

    async def _search_with_topic(
        self, turn: _Turn, conversation: Conversation, query: str, as_asked: RetrievalResult
    ) -> _Retry:
        """The search with the previous topic, judged as the question was asked (its words and
        embedding: the topic's words would make any question look answered), its signals worked out in
        the search's worker call: one hand-off to a thread and back instead of two."""
        model = load_model(self.retriever.embedder.name)

        def judge(result: RetrievalResult, searched: ConfidenceMetrics) -> _Retry:
            return self._judged_retry(turn, query, model, as_asked, result, searched)

        result, searched, made = await self.retriever.retrieve_assessed_then(
            self._params(turn, query), conversation.cache, judge
        )
        return made or _Retry(query, result, searched, _judged(result, as_asked), None)

    def _judged_retry(
        self,
        turn: _Turn,
        query: str,
        model: AnswerabilityModel | None,
        as_asked: RetrievalResult,
        result: RetrievalResult,
        confidence: ConfidenceMetrics,
    ) -> _Retry:
        """In a worker thread: the search with the previous topic, judged as the question was asked."""
        judged = _judged(result, as_asked)
        found = (
            self._signals(_decision_query(turn), judged, _carried(turn))
            if model is not None and judged.hits
            else None
        )
        return _Retry(query, result, confidence, judged, found)

    def _retry_here(
        self, turn: _Turn, conversation: Conversation, model: AnswerabilityModel, as_asked: RetrievalResult
    ) -> _Retry | None:
        """In the first search's worker thread, for a question refused as asked: the search with the
        previous topic that `_with_previous_topic` would make next (one hand-off to a thread per answer
        instead of two); None when it would not search (or would take the result from the session's
        cache)."""
        query = _retry_query(turn)
        if query is None:
            return None
        params = self._params(turn, query)
        if conversation.cache is not None and params.cache_key() in conversation.cache:
            return None
        result = self.retriever.retrieve_sync(params)
        return self._judged_retry(turn, query, model, as_asked, result, self.retriever.confidence(result))

    async def _retrieve_to_decide(
        self, turn: _Turn, conversation: Conversation
    ) -> tuple[Retrieved, _Prepared]:
        """The turn's retrieval and, in the same worker call, the answerability decision and, when it
        answers, the composed answer, when it refuses, the search with the previous topic (`_prepare`):
        one hand-off to a thread and back per answer. Nothing is prepared without a model to decide,
        without a hit, or for a retrieval from the session's cache (`_decide`, `_with_previous_topic`
        and the writer then do it)."""
        model = load_model(self.retriever.embedder.name)
        if model is None:
            return await self._retrieve(turn, conversation, self._params(turn)), _Prepared()

        def prepare(result: RetrievalResult, confidence: ConfidenceMetrics) -> _Prepared:
            return self._prepare(turn, conversation, model, result, confidence)

        result, confidence, prepared = await self.retriever.retrieve_assessed_then(
            self._params(turn), conversation.cache, prepare
        )
        turn.retrievals.append((result, confidence))
        return Retrieved(result, confidence), prepared or _Prepared()

    def _prepare(
        self,
        turn: _Turn,
        conversation: Conversation,
        model: AnswerabilityModel,
        result: RetrievalResult,
        confidence: ConfidenceMetrics,
    ) -> _Prepared:
        """In the retrieval's worker thread: the signals and the decision on them; for an answer, the
        request and, from a `ComposingWriter`, its answer (what `_retrieve_then_write` would write)."""
        if not result.hits:
            return _Prepared()
        found = self._signals(_decision_query(turn), result, _carried(turn))
        decided = _decided(model, confidence, found)
        if decided[1] is not None:
            return _Prepared(found, decided, retry=self._retry_here(turn, conversation, model, result))
        composer = self._composer
        if composer is None:
            return _Prepared(found, decided)
        request = self._request(turn, conversation, result, decided[0])
        started = time.perf_counter()
        text, cited = composer.compose(request)
        request.composed = Composed(text, cited, (time.perf_counter() - started) * 1000)
        return _Prepared(found, decided, request)

    async def _decide(
        self,
        turn: _Turn,
        result: RetrievalResult,
        confidence: ConfidenceMetrics,
        found: answerability.Signals | None = None,
    ) -> tuple[ConfidenceMetrics, RefusalReason | None]:
        """The answerability decision: the confidence to answer with, or why the question is refused.
        `found`: the signals, when the retrieval's worker call worked them out already."""
        if not result.hits:
            return refused(confidence), "no_passages"
        query = _decision_query(turn)
        model = load_model(self.retriever.embedder.name)
        if model is None:  # an embedder without a trained model: similarity thresholds and the term check
            if not confidence.should_answer:
                return refused(confidence), "not_answerable"
            if not self.settings.guardrail_term_check:
                return confidence, None
            cover = await asyncio.to_thread(guardrail.coverage, query, result.hits, self.retriever.knows)
            return (confidence, None) if cover.covered else (refused(confidence), "off_topic")
        if found is None:
            found = await asyncio.to_thread(self._signals, query, result, _carried(turn))
        return _decided(model, confidence, found)

    def _signals(
        self, query: str, result: RetrievalResult, carried: frozenset[str] = frozenset()
    ) -> answerability.Signals:
        top = result.hits[: answerability.PASSAGES]
        vector = result.query_vector() if result.query_embedding else None
        units = self.retriever.sentences.of([h.chunk for h in top]) if vector is not None else None
        return answerability.signals(query, top, vector, units, self.retriever.knows, carried)

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
            turn.given.append(event.result)
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
                    if turn.gate is not None:  # the model searched again: its passage numbers grew
                        turn.gate.set_passages(passages_of(union_hits(turn.given)))
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
                        related = best[0].hits if best else []
                        async for event in self._refusal(
                            turn, conversation, refused(confidence), gate[2] or "not_answerable", related
                        ):
                            yield event
                        return
                    if self._verifies:
                        self._gate_stream(turn, union_hits(turn.given), decided)
                    if decided.confidence_level == "low":
                        for token in split_tokens(guardrail.LOW_CONFIDENCE_DISCLAIMER):
                            turn.text.append(token)
                            if turn.gate is None:
                                yield Token(token)
                if isinstance(item, Token):
                    turn.text.append(item.text)
                    shown = await self._shown(turn, item.text)
                    if shown:
                        yield Token(shown)
                elif isinstance(item, Written):
                    turn.written = item
                    rest = _remainder("".join(turn.text), item.text, decided)
                    if rest:
                        turn.text.append(rest)
                        shown = await self._shown(turn, rest)
                        if shown:
                            yield Token(shown)
        finally:
            if not task.done():
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
        turn.generation_ms = (time.perf_counter() - written_at) * 1000
        if decided is None:  # the writer ended without a word
            raise LecternError("The answer writer returned nothing.")
        if self._verifies:
            # Checked against what the model's own searches returned (its numbering), never against
            # passages the engine retrieved to decide and the model never saw.
            async for event in self._verified(turn, conversation, decided, union_hits(turn.given)):
                yield event
            return
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
    ) -> tuple[ConfidenceMetrics | None, list[Event], RefusalReason | None]:
        """The confidence the answer stands on, or None to refuse (and why); plus any retrieval made
        to decide."""
        events: list[Event] = []
        if not turn.retrievals:
            events.append(await self._retrieve(turn, conversation, self._params(turn)))
        best = turn.best()
        assert best is not None
        result, confidence = best
        decided, reason = await self._decide(turn, result, confidence)
        if reason is None:
            return decided, events, None
        context = turn.options.user_context
        if context and selection_coverage(turn.read, context) >= SELECTION_RELATED:
            return _selection_confidence(turn.read, context), events, None
        return None, events, reason

    # --- the user's selection only -------------------------------------------------------------------
    async def _selected_only(self, turn: _Turn, conversation: Conversation) -> AsyncIterator[Event]:
        context = (turn.options.user_context or "").strip()
        if not context:
            raise InvalidInput("selected_text_only needs the selected text (user_context).")
        turn.search_query = turn.question  # nothing is searched
        confidence = _selection_confidence(turn.read, context)
        if not confidence.should_answer:
            text = guardrail.selection_mismatch(turn.question)
            for token in split_tokens(text):
                turn.text.append(token)
                yield Token(token)
            yield Done(
                self._answer(
                    turn, conversation, confidence, [], grounded=False, refusal_reason="selection_mismatch"
                )
            )
            return

        async def no_search(call: RetrieveCall) -> RetrievalResult:
            raise LecternError(
                "Searching is off: answer from the selected text only.", code=RETRIEVAL_DISABLED
            )

        empty = RetrievalResult(query=turn.question, collection=self.retriever.collection)
        request = self._request(turn, conversation, empty, confidence, no_search)
        if self._verifies:
            self._gate_stream(turn, [], confidence)
        async for event in self._write(turn, request, confidence):
            yield event
        if self._verifies:
            async for event in self._verified(turn, conversation, confidence, []):
                yield event
            return
        if len(context.split()) < SHORT_SELECTION_WORDS:
            turn.text.append(guardrail.SHORT_SELECTION_NOTE)
            yield Token(guardrail.SHORT_SELECTION_NOTE)
        citations = _citations(turn.written, sources_of(request)) or [
            Citation.from_hit(1, selection_hit(context))
        ]
        yield Done(self._answer(turn, conversation, confidence, citations))

    # --- LLM answers: verified against the passages the model was given --------------------------------
    @property
    def _verifies(self) -> bool:
        return bool(getattr(self.writer, "verifies", False))

    def _gate_stream(self, turn: _Turn, hits: list[SearchHit], confidence: ConfidenceMetrics) -> None:
        """Hold the model's words back until each sentence is verified against the passages it was given:
        a streaming client never sees a sentence the check would drop (an obeyed injection)."""
        low = confidence.confidence_level == "low"
        turn.gate = StreamGate(
            passages_of(hits),
            self.retriever.embedder,
            threshold=self.settings.llm_support_threshold,
            action=self.settings.llm_unsupported,
            selection=turn.options.user_context,
            prefix=guardrail.LOW_CONFIDENCE_DISCLAIMER if low else "",
        )

    async def _shown(self, turn: _Turn, text: str) -> str:
        """What of the model's words may be shown now (all of them when nothing gates the stream)."""
        if turn.gate is None:
            return text
        return await asyncio.to_thread(turn.gate.feed, text)

    async def _verified(
        self, turn: _Turn, conversation: Conversation, confidence: ConfidenceMetrics, hits: list[SearchHit]
    ) -> AsyncIterator[Event]:
        """The end of an LLM turn: the verified text not yet released, then its Done (citations and level
        describe the verified text), or the refusal when nothing held up."""
        context = turn.options.user_context
        if turn.gate is None:  # pragma: no cover - every verifying path gates its stream
            self._gate_stream(turn, hits, confidence)
        gate = turn.gate
        assert gate is not None
        checked, rest = await asyncio.to_thread(gate.finish)
        update: dict[str, object] = {"verification": checked.verification}
        if checked.refuse:
            # Nothing of the model's was shown: the refusal is the whole stream.
            turn.text = [guardrail.REFUSAL]
            for token in split_tokens(guardrail.REFUSAL):
                yield Token(token)
            related = [Citation.from_hit(n, h) for n, h in enumerate(guardrail.related_sections(hits), 1)]
            answer = self._answer(
                turn,
                conversation,
                refused(confidence),
                [],
                grounded=False,
                related=related,
                refusal_reason=checked.reason,
            )
            yield Done(answer.model_copy(update=update))
            return
        if checked.verification.verdict == "partial":
            # The level goes down; the text keeps the note it streamed with (the stream is the answer).
            confidence = lowered(confidence)
        if rest:
            yield Token(rest)
        turn.text = [gate.released]
        citations = [Citation.from_hit(n, hits[n - 1]) for n in checked.cited]
        if context and context.strip():
            citations.append(Citation.from_hit(len(hits) + 1, selection_hit(context)))
        yield Done(self._answer(turn, conversation, confidence, citations).model_copy(update=update))

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
            question=turn.read,
            search_query=turn.search_query,
            history=list(conversation.history),
            system_prompt=conversation.system_prompt,
            retrieval=result,
            confidence=confidence,
            user_context=turn.options.user_context,
            retrieve=retrieve or refuse_retrieval,
            sentences=self.retriever.sentences,
            stream=turn.options.stream_tokens,
        )

    async def _write(
        self, turn: _Turn, request: WriteRequest, confidence: ConfidenceMetrics
    ) -> AsyncIterator[Event]:
        """What the writer writes, as shown: word by word, or as one token (`AskOptions.stream_tokens`).
        An answer composed ahead (`WriteRequest.composed`) counts its composing time as generation."""
        started = time.perf_counter() - (request.composed.ms / 1000 if request.composed else 0.0)
        if turn.options.stream_tokens:
            async for text in self._shown_words(turn, request, confidence):
                yield Token(text)
        else:
            held = [text async for text in self._shown_words(turn, request, confidence)]
            if held:
                yield Token("".join(held))
        turn.generation_ms = (time.perf_counter() - started) * 1000

    async def _shown_words(
        self, turn: _Turn, request: WriteRequest, confidence: ConfidenceMetrics
    ) -> AsyncIterator[str]:
        if confidence.confidence_level == "low":
            for token in split_tokens(guardrail.LOW_CONFIDENCE_DISCLAIMER):
                turn.text.append(token)
                if turn.gate is None:  # a gated stream shows it with the first verified words
                    yield token
        async for event in self.writer.write(request):
            if isinstance(event, Token):
                turn.text.append(event.text)
                # no await per word when nothing gates the stream (the extractive writer's case)
                shown = event.text if turn.gate is None else await self._shown(turn, event.text)
                if shown:
                    yield shown
            else:
                turn.written = event
                rest = _remainder("".join(turn.text), event.text, confidence)
                if rest:
                    turn.text.append(rest)
                    shown = await self._shown(turn, rest)
                    if shown:
                        yield shown

    async def _refusal(
        self,
        turn: _Turn,
        conversation: Conversation,
        confidence: ConfidenceMetrics,
        reason: RefusalReason,
        close: Sequence[SearchHit] = (),
    ) -> AsyncIterator[Event]:
        turn.text.clear()
        tokens = split_tokens(guardrail.REFUSAL) if turn.options.stream_tokens else [guardrail.REFUSAL]
        for token in tokens:
            turn.text.append(token)
            yield Token(token)
        related = [Citation.from_hit(n, hit) for n, hit in enumerate(guardrail.related_sections(close), 1)]
        yield Done(
            self._answer(
                turn,
                conversation,
                refused(confidence),
                [],
                grounded=False,
                related=related,
                refusal_reason=reason,
            )
        )

    def _answer(
        self,
        turn: _Turn,
        conversation: Conversation,
        confidence: ConfidenceMetrics,
        citations: list[Citation],
        *,
        grounded: bool | None = None,
        related: list[Citation] | None = None,
        refusal_reason: RefusalReason | None = None,
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
            related=related or [],
            refusal_reason=refusal_reason,
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


def _decided(
    model: AnswerabilityModel, confidence: ConfidenceMetrics, found: answerability.Signals
) -> Decided:
    """The model's decision on the signals, as the confidence to answer with or the refusal reason."""
    decision = model.decide(found)
    if log.isEnabledFor(logging.DEBUG):  # the signals are listed only for a line that is written
        log.debug("answerability", extra={"p": decision.probability, "signals": found.as_dict()})
    decided = confidence.model_copy(
        update={
            "confidence_level": decision.level,
            "should_answer": decision.answer,
            "answerability": decision.probability,
        }
    )
    return decided, decision.reason


def _last_sources(conversation: Conversation) -> frozenset[str]:
    """The files the conversation's last answer cited (none after a refusal)."""
    for message in reversed(conversation.history):
        if message.role == "assistant":
            return frozenset(c.source_path for c in message.citations)
    return frozenset()


def _last_section(conversation: Conversation) -> str:
    """Where the conversation's last answer came from, in the document's words: its first source's
    outermost and innermost headings ("Knife Skills: Dicing an Onion"), one when they are the same or
    only one is known; empty when the last answer cited nothing."""
    for message in reversed(conversation.history):
        if message.role == "assistant":
            if not message.citations:
                return ""
            first = message.citations[0]
            headings = [h for h in first.heading_hierarchy if h.strip()] or [first.section or first.title]
            outer, inner = headings[0].strip(), headings[-1].strip()
            return inner if outer == inner or not outer else f"{outer}: {inner}"
    return ""


__all__ = [
    "FOLLOWUP_POOL",
    "PREVIOUS_SOURCE_BONUS",
    "PREVIOUS_SOURCE_PASSAGES",
    "AskOptions",
    "Engine",
    "favour_previous_sources",
    "with_second_search",
]
