"""Seed 004 generations in flight: one task per prompt that any number of requests follow, and cancel.

A generation runs in its own task, not in the request that started it, so that:

- *cancel* is ``task.cancel()`` on the engine's work: the ``CancelledError`` lands wherever the engine
  awaits, an in-flight request to an LLM provider included (httpx closes the connection);
- an idempotent *duplicate* arriving mid-stream follows the same task from ``seq`` 0 instead of starting
  a second generation;
- a client that *disconnects* cancels it once nobody else follows it.

Deltas are numbered here, kept in memory for followers, and stored in one write when the prompt
finishes (with its final status), which is what a later duplicate replays. With Redis configured a
cancel is published so that the replica running the prompt stops it (DESIGN: cancel signals in process
by default, Redis for replicas). Without Redis a cancel that reaches another process (another worker
on the same database) is recorded in the store, and the process running the prompt, which polls the
status of its running prompts while it has any, stops it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import time
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import replace
from typing import Any
from uuid import UUID

from lectern import debug, errors, metrics
from lectern.api.chat_models import answer_confidence
from lectern.api.turns import INTERNAL_ERROR, Turn, Turns, shielded
from lectern.events import Done, Failed, Token
from lectern.models import Answer
from lectern.store import ConversationStore, NewDelta, Prompt, PromptStatus
from lectern.store.models import Delta
from lectern.store.prompts import awaits_owner

log = logging.getLogger("lectern.api.generations")

Wire = dict[str, Any]
CANCEL_CHANNEL = "lectern:generation:cancel"
TAIL_POLL_S = 0.1
HEARTBEAT_S = 2.0  # how often this process renews the lease of the prompts it generates
LEASE_S = 6.0  # an InFlight prompt whose lease is older belongs to a process that died
# How often each process closes prompts whose lease lapsed (their replica died and did not come back,
# and nobody retries them by key): so no prompt stays InFlight for ever.
SWEEP_S = 30.0
# Without Redis, how often a process with generations running reads their status for a cancel recorded
# by another process: well inside the contract's 200 ms from the cancel to the final delta.
CANCEL_POLL_S = 0.1
# How long a replay waits for the owner of a prompt cancelled elsewhere to store its deltas.
OWNER_FINISH_WAIT_S = 2.0


def delta(
    prompt_id: UUID,
    seq: int,
    type_: str,
    *,
    text: str | None = None,
    role: str = "assistant",
    metadata: dict[str, Any] | None = None,
) -> Wire:
    """A GenerationDelta as sent: unset optional fields are left out, as the contract's examples do."""
    out: Wire = {"promptId": str(prompt_id), "type": type_, "seq": seq, "role": role}
    if text is not None:
        out["text"] = text
    if metadata is not None:
        out["metadata"] = metadata
    return out


def stored_delta(d: Delta) -> Wire:
    return delta(d.prompt_id, d.seq, d.type, text=d.text, role=d.role, metadata=d.metadata)


def _new_delta(d: Wire) -> NewDelta:
    return NewDelta(
        type=d["type"], text=d.get("text"), role=d["role"], metadata=d.get("metadata"), seq=d["seq"]
    )


def done_metadata(answer: Answer, tokens: int) -> dict[str, Any]:
    return {
        "tokenCount": tokens,
        "finishReason": "stop",
        "confidence": round(answer_confidence(answer), 4),
        "confidenceLevel": answer.confidence.confidence_level,
        "shouldAnswer": answer.confidence.should_answer,
        "model": answer.model_used,
        "citations": [
            {
                "number": c.number,
                "title": c.title,
                "chapter": c.chapter,
                "section": c.section,
                "url": c.url,
                "similarityScore": round(c.similarity_score, 4),
            }
            for c in answer.citations
        ],
        "refusalReason": answer.refusal_reason,
        "related": [
            {"number": c.number, "title": c.title, "section": c.section, "url": c.url} for c in answer.related
        ],
        "verification": _camel(answer.verification.model_dump(mode="json")) if answer.verification else None,
        **debug.report(answer),  # timings; warnings such as a TOKEN_LIMIT trim
    }


def _camel(fields: dict[str, Any]) -> dict[str, Any]:
    """This contract's metadata keys are camelCase (`invalid_citations` -> `invalidCitations`)."""
    return {re.sub(r"_([a-z])", lambda m: m.group(1).upper(), k): v for k, v in fields.items()}


class Generation:
    """One prompt being generated. ``follow`` yields every delta from seq 0; ``cancel`` stops it."""

    def __init__(
        self,
        turn: Turn,
        turns: Turns,
        store: ConversationStore,
        on_exit: Callable[[Generation], None],
        *,
        keyed: bool = False,
    ):
        assert turn.prompt_id is not None
        # A prompt with an idempotency key outlives its client: a retry after a dropped connection
        # follows or replays the whole answer instead of a stream cut short by the disconnect.
        self.keyed = keyed
        self.turn = turn
        self.prompt_id: UUID = turn.prompt_id
        self.deltas: list[Wire] = []
        self.finished = False
        self.cancel_reason: str | None = None
        self._turns = turns
        self._store = store
        self._on_exit = on_exit
        self._tick = asyncio.Event()
        self._followers = 0
        self._text: list[str] = []
        # starting (loading, storing the question) → streaming (engine at work) → finishing (storing).
        # Only `streaming` is interrupted at once: a cancelled database write helps nobody.
        self._phase = "starting"
        self._started = time.perf_counter()
        self._inner: asyncio.Task[Answer | Failed] = asyncio.create_task(self._generate())
        self.task: asyncio.Task[None] = asyncio.create_task(
            self._supervise(), name=f"generation-{self.prompt_id}"
        )

    # --- followers ---------------------------------------------------------------------------

    def join(self) -> None:
        self._followers += 1

    def leave(self) -> None:
        """A follower's response ended; the last one to leave an unfinished generation cancels it."""
        self._followers -= 1
        if self._followers <= 0 and not self.finished and not self.keyed:
            self.cancel("client_disconnected")

    async def follow(self) -> AsyncIterator[Wire]:
        sent = 0
        while True:
            while sent < len(self.deltas):
                sent += 1
                yield self.deltas[sent - 1]
            if self.finished:
                return
            await self._tick.wait()

    def cancel(self, reason: str) -> bool:
        """Stop the engine's work now. False when it is too late: the answer is complete."""
        if self.finished or self._phase == "finishing":
            return False
        if self.cancel_reason is None:
            self.cancel_reason = reason
            metrics.CANCELS.labels(reason).inc()
            if self._phase in ("queued", "streaming"):
                self._inner.cancel()
        return True

    # --- the work ----------------------------------------------------------------------------

    def _push(self, d: Wire) -> None:
        self.deltas.append(d)
        if d["type"] != "token":
            self.finished = True
        tick, self._tick = self._tick, asyncio.Event()
        tick.set()

    def _next(self, type_: str, **fields: Any) -> Wire:
        return delta(self.prompt_id, len(self.deltas), type_, **fields)

    async def _generate(self) -> Answer | Failed:
        self._phase = "queued"  # waiting for the session's earlier question: a cancel ends the wait
        async with self._turns.queue.turn(self.turn.session_id):
            self._phase = "starting"
            return await self._answer()

    async def _answer(self) -> Answer | Failed:
        conversation = await self._turns.begin(self.turn, may_create=False)
        if self.cancel_reason is not None:
            raise asyncio.CancelledError  # cancelled while starting
        self._phase = "streaming"
        # closed here at Done or Failed, not later through the event loop (see Engine.stream)
        async with contextlib.aclosing(self._turns.events(self.turn, conversation)) as events:
            async for event in events:
                if isinstance(event, Token):
                    if event.text:
                        self._text.append(event.text)
                        self._push(self._next("token", text=event.text))
                elif isinstance(event, Done):
                    self._phase = "finishing"
                    await self._turns.complete(self.turn, event.answer, self._started)
                    return event.answer
                elif isinstance(event, Failed):
                    self._phase = "finishing"
                    return event
        self._phase = "finishing"
        return Failed(INTERNAL_ERROR, "The generation ended without an answer.")

    async def _supervise(self) -> None:
        try:
            try:
                await asyncio.wait({self._inner})
            except asyncio.CancelledError:
                self.cancel("shutdown")
                raise
            if self._inner.cancelled():
                await self._finish_cancelled()
            elif (exc := self._inner.exception()) is not None:
                if isinstance(exc, errors.LecternError):
                    await self._finish_failed(Failed(exc.code, exc.message))
                else:
                    log.error("generation failed", exc_info=exc, extra={"prompt_id": str(self.prompt_id)})
                    await self._finish_failed(Failed(INTERNAL_ERROR, "An unexpected error occurred."))
            else:
                outcome = self._inner.result()
                if isinstance(outcome, Failed):
                    await self._finish_failed(outcome)
                else:
                    await self._finish_done(outcome)
        finally:
            if not self.finished:  # only when the supervisor itself was torn down
                self._push(
                    self._next("done", metadata={"finishReason": "cancelled", "reason": "interrupted"})
                )
            self._on_exit(self)

    async def _finish_done(self, answer: Answer) -> None:
        tokens = len(self.deltas)
        final = self._next("done", metadata=done_metadata(answer, tokens))
        # Stored before it is sent: a client that saw `done` and repeats its key finds it replayable.
        await self._store_finish(PromptStatus.DONE, [*self.deltas, final], tokens)
        self._push(final)

    async def _finish_failed(self, failed: Failed) -> None:
        final = self._next("error", role="system", metadata={"code": failed.code, "message": failed.message})
        await self._store_finish(PromptStatus.ERROR, [*self.deltas, final], len(self.deltas), failed)
        self._push(final)

    async def _finish_cancelled(self) -> None:
        tokens = len(self.deltas)
        final = self._next(
            "done", metadata={"finishReason": "cancelled", "reason": self.cancel_reason, "tokenCount": tokens}
        )
        # Sent first: the cancel must show within 200 ms, the bookkeeping can follow.
        self._push(final)
        try:
            await self._turns.save_partial(self.turn, "".join(self._text))
        except Exception:
            log.warning(
                "could not save the partial answer", exc_info=True, extra={"prompt_id": str(self.prompt_id)}
            )
        await self._store_finish(PromptStatus.CANCELLED, self.deltas, tokens)

    async def _store_finish(
        self, status: PromptStatus, deltas: list[Wire], tokens: int, failed: Failed | None = None
    ) -> None:
        """The final status with every delta, in one write: what an idempotent repeat replays."""
        try:
            await self._store.finish_prompt(
                self.prompt_id,
                status,
                owner=self.turn.owner,
                token_count=tokens,
                error_code=None if failed is None else failed.code[:64],
                error_message=None if failed is None else failed.message,
                deltas=[_new_delta(d) for d in deltas],
            )
        except errors.Conflict:
            # Finished elsewhere meanwhile (marked abandoned, or cancelled as an orphan).
            log.warning("prompt finished elsewhere", extra={"prompt_id": str(self.prompt_id)})
        except errors.StoreUnavailable:
            log.warning(
                "could not store the prompt's outcome: database unavailable",
                extra={"prompt_id": str(self.prompt_id)},
            )
        except Exception:
            log.exception("could not store the prompt's outcome", extra={"prompt_id": str(self.prompt_id)})


class Generations:
    """This process's generations by prompt id, and the cancel signal between replicas."""

    def __init__(self, turns: Turns, store: ConversationStore, *, redis_url: str = "") -> None:
        self._turns = turns
        self._store = store
        self._runs: dict[UUID, Generation] = {}
        self._key_locks: dict[tuple[UUID, str], tuple[asyncio.Lock, int]] = {}
        self._bus = CancelBus(redis_url, self.cancel_local) if redis_url else None
        self._heartbeat: asyncio.Task[None] | None = None
        self._watch: asyncio.Task[None] | None = None

    async def start(self) -> None:
        # Prompts left InFlight by a process that died (its lease lapsed) are Error `interrupted`; a
        # retry with the key runs them again (`ConversationStore.create_prompt`).
        try:
            recovered = await self._store.recover_interrupted(LEASE_S)
            if recovered:
                log.info("recovered interrupted prompts", extra={"prompts": recovered})
        except Exception:
            log.warning("could not recover interrupted prompts", exc_info=True)
        self._heartbeat = asyncio.create_task(self._beat(), name="lectern-prompt-heartbeat")
        if self._bus is not None:
            await self._bus.start()

    async def _beat(self) -> None:
        swept = time.monotonic()
        while True:
            await asyncio.sleep(HEARTBEAT_S)
            try:
                await self._store.heartbeat(self._running())
            except errors.StoreUnavailable:
                pass  # the store logs the outage itself, once per interval
            except Exception:
                log.warning("prompt heartbeat failed", exc_info=True)
            if time.monotonic() - swept >= SWEEP_S:
                swept = time.monotonic()
                try:
                    if recovered := await self._store.recover_interrupted(LEASE_S):
                        log.info("closed prompts of a process that died", extra={"prompts": recovered})
                except Exception:
                    log.warning("could not close interrupted prompts", exc_info=True)

    async def open(self, turn: Turn, key: str | None) -> tuple[Prompt, Generation | None, bool]:
        """The prompt for a request, and the generation to follow (None: replay what is stored).

        A repeated key whose prompt is InFlight with no generation here runs elsewhere or ran in a
        process that died: its lease says which. While the lease is fresh we wait for it to finish (or
        lapse); a lapsed one is run again here under the same prompt id.
        """
        deadline = time.monotonic() + LEASE_S + HEARTBEAT_S
        while True:
            async with self.claim(turn.session_id, key):
                prompt, created = await self._store.create_prompt(
                    turn.session_id, turn.question, owner=turn.owner, idempotency_key=key, lease_s=LEASE_S
                )
                if created:
                    started = replace(turn, prompt_id=prompt.prompt_id)
                    return prompt, self.start_generation(started, keyed=key is not None), True
                run: Generation | None = self.get(prompt.prompt_id)
            if run is not None or prompt.status.finished or time.monotonic() > deadline:
                return prompt, run, False
            await asyncio.sleep(TAIL_POLL_S * 5)

    async def drain(self, timeout_s: float) -> int:
        """Let the generations running now finish, up to ``timeout_s``; how many were still running."""
        runs = list(self._runs.values())
        if runs and timeout_s > 0:
            await asyncio.wait([r.task for r in runs], timeout=timeout_s)
        return sum(not r.task.done() for r in runs)

    async def close(self, grace_s: float = 5.0) -> None:
        for task in (self._heartbeat, self._watch):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        runs = list(self._runs.values())
        for run in runs:
            run.cancel("shutdown")
        if runs:
            await asyncio.wait([r.task for r in runs], timeout=grace_s)
        if self._bus is not None:
            await self._bus.close()

    @contextlib.asynccontextmanager
    async def claim(self, session_id: UUID, key: str | None) -> AsyncIterator[None]:
        """Serialise requests with the same idempotency key in this process, so a duplicate finds the
        first one's generation registered (the store's unique key settles races between replicas)."""
        if key is None:
            yield
            return
        slot = (session_id, key)
        lock, users = self._key_locks.get(slot, (asyncio.Lock(), 0))
        self._key_locks[slot] = (lock, users + 1)
        try:
            async with lock:
                yield
        finally:
            lock, users = self._key_locks[slot]
            if users <= 1:
                del self._key_locks[slot]
            else:
                self._key_locks[slot] = (lock, users - 1)

    def start_generation(self, turn: Turn, *, keyed: bool = False) -> Generation:
        run = Generation(turn, self._turns, self._store, self._forget, keyed=keyed)
        self._runs[run.prompt_id] = run
        if self._bus is None and (self._watch is None or self._watch.done()):
            self._watch = asyncio.create_task(self._watch_cancels(), name="lectern-cancel-watch")
        return run

    def _running(self) -> list[UUID]:
        return [run.prompt_id for run in self._runs.values() if not run.finished]

    async def _watch_cancels(self) -> None:
        """Without Redis, stop the prompts running here that another process cancelled (recorded in the
        store by ``ConversationStore.cancel_prompt``). Runs only while this process generates."""
        while True:
            await asyncio.sleep(CANCEL_POLL_S)
            running = self._running()
            if not running:
                return
            try:
                statuses = await self._store.prompt_statuses(running)
            except errors.StoreUnavailable:
                continue  # the store logs the outage itself
            except Exception:
                log.warning("could not read the status of running prompts", exc_info=True)
                continue
            for prompt_id, status in statuses.items():
                if status is PromptStatus.CANCELLED:
                    self.cancel_local(prompt_id)

    def get(self, prompt_id: UUID) -> Generation | None:
        return self._runs.get(prompt_id)

    def __iter__(self) -> Iterator[Generation]:
        return iter(list(self._runs.values()))

    def __len__(self) -> int:
        return len(self._runs)

    def _forget(self, run: Generation) -> None:
        if self._runs.get(run.prompt_id) is run:
            del self._runs[run.prompt_id]

    def cancel_local(self, prompt_id: UUID, reason: str = "client_cancelled") -> bool:
        run = self._runs.get(prompt_id)
        return run is not None and run.cancel(reason)

    async def cancel(self, prompt: Prompt) -> None:
        """Cancel an InFlight prompt that may run anywhere: here, on another replica (Redis), in another
        process on the same database (recorded in the store, where that process looks), or nowhere any
        more (its process died, its lease lapsed): then it is finished here as Cancelled."""
        if self.cancel_local(prompt.prompt_id):
            return
        if self._bus is not None:
            await self._bus.publish(prompt.prompt_id)
            return
        final = NewDelta(
            type="done", metadata={"finishReason": "cancelled", "reason": "orphaned"}, seq=prompt.delta_count
        )
        await self._store.cancel_prompt(prompt.prompt_id, owner=prompt.owner, lease_s=LEASE_S, final=final)

    async def replay(self, prompt: Prompt) -> AsyncIterator[Wire]:
        """A finished prompt's stored deltas; a prompt still running on another replica is waited for
        (polling the store) and then replayed; so is one cancelled elsewhere whose owner has yet to
        store its deltas."""
        owner_wait = time.monotonic() + OWNER_FINISH_WAIT_S
        while not prompt.status.finished or (awaits_owner(prompt) and time.monotonic() < owner_wait):
            await asyncio.sleep(TAIL_POLL_S)
            local = self.get(prompt.prompt_id)
            if local is not None:  # it started here after all
                async for live in local.follow():
                    yield live
                return
            prompt = await shielded(self._store.get_prompt(prompt.prompt_id, owner=prompt.owner))
        stored = await shielded(self._store.get_deltas(prompt.prompt_id, owner=prompt.owner))
        for row in stored:
            yield stored_delta(row)
        if not stored or stored[-1].type == "token":
            # Finished without a final delta (abandoned by a dead replica): end the stream properly.
            seq = stored[-1].seq + 1 if stored else 0
            if prompt.status is PromptStatus.ERROR:
                meta = {
                    "code": prompt.error_code or INTERNAL_ERROR,
                    "message": prompt.error_message or "Failed.",
                }
                yield delta(prompt.prompt_id, seq, "error", role="system", metadata=meta)
            else:
                finish = "cancelled" if prompt.status is PromptStatus.CANCELLED else "stop"
                yield delta(prompt.prompt_id, seq, "done", metadata={"finishReason": finish})


class CancelBus:
    """Cancel signals between replicas over Redis pub/sub: every replica listens, the one running the
    prompt stops it."""

    def __init__(self, redis_url: str, on_cancel: Callable[[UUID, str], bool]) -> None:
        self._url = redis_url
        self._on_cancel = on_cancel
        self._task: asyncio.Task[None] | None = None
        self._client: Any = None
        self._ready = asyncio.Event()

    async def start(self) -> None:
        import redis.asyncio as redis

        self._client = redis.from_url(self._url)
        self._task = asyncio.create_task(self._listen(), name="lectern-cancel-bus")
        # Subscribed before serving, so a cancel published right after start is not missed.
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._ready.wait(), 5.0)

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        if self._client is not None:
            await self._client.aclose()

    async def publish(self, prompt_id: UUID) -> None:
        await self._client.publish(CANCEL_CHANNEL, str(prompt_id))

    async def _listen(self) -> None:
        backoff = 0.1
        while True:
            try:
                async with self._client.pubsub() as pubsub:
                    await pubsub.subscribe(CANCEL_CHANNEL)
                    self._ready.set()
                    backoff = 0.1
                    async for message in pubsub.listen():
                        if message.get("type") != "message":
                            continue
                        data = message["data"]
                        with contextlib.suppress(ValueError):
                            self._on_cancel(
                                UUID(data.decode() if isinstance(data, bytes) else str(data)),
                                "client_cancelled",
                            )
            except asyncio.CancelledError:
                raise
            except Exception:
                log.warning("cancel bus lost its Redis subscription; reconnecting", exc_info=True)
                await asyncio.sleep(backoff)
                backoff = min(backoff * 2, 5.0)
