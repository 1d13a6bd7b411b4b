"""Structured JSON logs: one line per event, with the request id and key id of the request in progress.

Seed 002's event types (``query_received``, ``embedding_generated``, ``retrieval_performed``,
``response_sent``, ``error``) are also kept as log events in the conversation store, written in batches
by ``LogSink`` so a turn never waits on a log write.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import queue
import sys
import threading
import time
from contextvars import ContextVar
from typing import Any, Protocol
from uuid import UUID

from lectern.errors import StoreUnavailable
from lectern.store.models import EventType, NewLogEvent

log = logging.getLogger("lectern.api")

request_id_var: ContextVar[str | None] = ContextVar("lectern_request_id", default=None)
key_id_var: ContextVar[str | None] = ContextVar("lectern_key_id", default=None)

# Record attributes that are not fields of the line (uvicorn adds an ANSI-coloured copy of its message).
_RESERVED = set(logging.makeLogRecord({}).__dict__) | {
    "message",
    "asctime",
    "request_id",
    "key_id",
    "color_message",
}
_base_factory = logging.getLogRecordFactory()


def _record_with_context(*args: Any, **kwargs: Any) -> logging.LogRecord:
    """Stamp the request's ids on each record when it is made: a handler may format it later, after
    the request (and its context) has gone."""
    record = _base_factory(*args, **kwargs)
    record.request_id = request_id_var.get()
    record.key_id = key_id_var.get()
    return record


logging.setLogRecordFactory(_record_with_context)


class JsonFormatter(logging.Formatter):
    """Every record as one JSON object; ``extra=`` fields become top-level keys."""

    # One encoder for every line: json.dumps with options builds a new one per call. Each line's
    # second is formatted once per second, not once per line (a server writes ~5 lines per answer).
    _encoder = json.JSONEncoder(default=str, ensure_ascii=False)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._second: tuple[int, str] = (-1, "")

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "ts": f"{self._stamp(record.created)}.{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "event": record.getMessage(),
        }
        request_id = getattr(record, "request_id", None) or request_id_var.get()
        if request_id:
            line["request_id"] = request_id
        key_id = getattr(record, "key_id", None) or key_id_var.get()
        if key_id:
            line["key_id"] = key_id
        for name, value in record.__dict__.items():
            if name not in _RESERVED and not name.startswith("_"):
                line[name] = value
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        return self._encoder.encode(line)

    def _stamp(self, created: float) -> str:
        second = int(created)
        known, text = self._second  # one tuple: another thread formatting sees a matching pair
        if second != known:
            text = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(second))
            self._second = (second, text)
        return text


class TextFormatter(JsonFormatter):
    """One readable line per record for a person at a terminal: time, level, event, then key=value."""

    def format(self, record: logging.LogRecord) -> str:
        fields = json.loads(super().format(record))
        ts, level, event = fields.pop("ts"), fields.pop("level"), fields.pop("event")
        fields.pop("logger", None)
        exception = fields.pop("exception", None)
        extras = " ".join(f"{key}={value}" for key, value in fields.items())
        line = f"{ts[11:23]} {level.upper():<7} {event}" + (f"  {extras}" if extras else "")
        return line + (f"\n{exception}" if exception else "")


def log_formatter_name(fmt: str = "auto") -> str:
    """``text`` when stderr is a terminal (or asked for), ``json`` otherwise: logs are read by people
    at a terminal and by collectors everywhere else."""
    if fmt == "auto":
        return "text" if sys.stderr.isatty() else "json"
    return fmt


def _formatter(fmt: str) -> logging.Formatter:
    return TextFormatter() if log_formatter_name(fmt) == "text" else JsonFormatter()


class BackgroundStreamHandler(logging.Handler):
    """Log lines formatted and written by a thread of their own, whatever is queued in one write.

    A write to stderr releases the GIL and waits to take it back; on the event loop that stalled
    every request in flight (~5 lines per answer). Records carry their request ids from the moment
    they are made, so formatting them later is safe. The writer, woken by a line, lets
    ``GATHER_S`` pass before it takes what is queued: a busy server's lines go out a few dozen at a
    time, one wake-up of the thread (and one hand-over of the GIL) each, instead of one per line.
    Lines still queued are written at exit; a hard kill loses at most the last ~``GATHER_S`` of them.
    """

    GATHER_S = 0.02

    def __init__(self, stream: Any = None) -> None:
        super().__init__()
        self.stream = stream if stream is not None else sys.stderr
        self._queue: queue.SimpleQueue[logging.LogRecord | None] = queue.SimpleQueue()
        self._writer = threading.Thread(target=self._write_queued, name="lectern-log-writer", daemon=True)
        self._writer.start()  # logging.shutdown, at exit, closes the handler: queued lines are written

    def handle(self, record: logging.LogRecord) -> bool:
        # Without Handler.handle's lock around emit: the queue is thread-safe on its own.
        if not self.filter(record):
            return False
        self.emit(record)
        return True

    def emit(self, record: logging.LogRecord) -> None:
        self._queue.put(record)

    def _write_queued(self) -> None:
        while True:
            batch = [self._queue.get()]
            if batch[0] is not None:
                time.sleep(self.GATHER_S)
            with contextlib.suppress(queue.Empty):
                while len(batch) < 1000 and batch[-1] is not None:
                    batch.append(self._queue.get_nowait())
            lines = [line for record in batch if record is not None and (line := self._line(record))]
            if lines:
                with contextlib.suppress(Exception):  # a closed or broken stream must not kill the writer
                    self.stream.write("\n".join(lines) + "\n")
                    self.stream.flush()
            if batch[-1] is None:
                return

    def _line(self, record: logging.LogRecord) -> str:
        try:
            return self.format(record)
        except Exception:
            self.handleError(record)
            return ""

    def close(self) -> None:
        """Write what is queued, then stop the writer (at exit, or when logging is configured again)."""
        if self._writer.is_alive():
            self._queue.put(None)
            self._writer.join(timeout=5)
        super().close()


def configure_logging(level: str = "info", fmt: str = "json") -> None:
    """Log lines on stderr for lectern and uvicorn (JSON unless `fmt` says otherwise); called by
    ``lectern serve`` and the worker factory."""
    handler = BackgroundStreamHandler(sys.stderr)
    handler.setFormatter(_formatter(fmt))
    # What no line of ours shows, not gathered for every record (the logging HOWTO's "Optimization"):
    # the caller's file and line (a stack walk), thread, process and multiprocessing names.
    logging._srcfile = None
    logging.logThreads = False
    logging.logProcesses = False
    logging.logMultiprocessing = False
    replaced: set[logging.Handler] = set()
    for name in ("lectern", "uvicorn", "uvicorn.error"):
        logger = logging.getLogger(name)
        replaced.update(logger.handlers)
        logger.handlers[:] = [handler]
        logger.setLevel(level.upper())
        logger.propagate = False
    for old in replaced:
        if isinstance(old, BackgroundStreamHandler):
            old.close()  # its writer thread stops once its lines are out


def uvicorn_log_config(level: str = "info", fmt: str = "json") -> dict[str, Any]:
    """uvicorn's own loggers in the same JSON shape (its access log is off: we log requests ourselves)."""
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {
            "json": {
                "()": "lectern.api.logs."
                + ("TextFormatter" if log_formatter_name(fmt) == "text" else "JsonFormatter")
            }
        },
        "handlers": {
            "stderr": {
                "class": "lectern.api.logs.BackgroundStreamHandler",
                "formatter": "json",
                "stream": "ext://sys.stderr",
            }
        },
        "loggers": {
            "uvicorn": {"handlers": ["stderr"], "level": level.upper(), "propagate": False},
            "uvicorn.error": {"handlers": ["stderr"], "level": level.upper(), "propagate": False},
            "lectern": {"handlers": ["stderr"], "level": level.upper(), "propagate": False},
        },
    }


class LogStore(Protocol):
    async def log_events(self, events: list[NewLogEvent]) -> None: ...


class LogSink:
    """Seed 002 events: logged at once, and stored in batches by one background task.

    On SQLite every write transaction queues for one lock; a batch per half second instead of a write
    per stage keeps logging off the answer's path.
    """

    def __init__(self, store: LogStore | None, *, flush_every_s: float = 0.5, batch: int = 500) -> None:
        self._store = store
        self._flush_every_s = flush_every_s
        self._batch = batch
        self._pending: list[NewLogEvent] = []
        self._wake = asyncio.Event()
        self._stopping = False
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        if self._store is not None and self._task is None:
            self._task = asyncio.create_task(self._run(), name="lectern-log-sink")

    async def stop(self) -> None:
        # Woken, not cancelled: a cancelled write could leave SQLite's write lock held.
        self._stopping = True
        self._wake.set()
        if self._task is not None:
            await self._task
            self._task = None
        await self.flush()

    def emit(
        self,
        event_type: EventType,
        *,
        thread_id: UUID | None = None,
        duration_ms: float | None = None,
        level: int = logging.INFO,
        **details: Any,
    ) -> None:
        fields = {"event_type": event_type, **details}
        if thread_id is not None:
            fields["thread_id"] = str(thread_id)
        if duration_ms is not None:
            fields["duration_ms"] = round(duration_ms, 3)
        log.log(level, event_type, extra=fields)
        if self._store is None:
            return
        stored = {**details, "request_id": request_id_var.get(), "key_id": key_id_var.get()}
        self._pending.append(
            NewLogEvent(
                event_type=event_type,
                thread_id=thread_id,
                details={k: v for k, v in stored.items() if v is not None},
                duration_ms=None if duration_ms is None else max(duration_ms, 0.0),
            )
        )
        if len(self._pending) >= self._batch:
            self._wake.set()

    async def flush(self) -> None:
        if self._store is None or not self._pending:
            return
        batch, self._pending = self._pending, []
        try:
            await self._store.log_events(batch)
        except StoreUnavailable:
            pass  # the store logs the outage once per interval; these rows are in the JSON lines
        except Exception:
            # Losing log rows must never fail requests; the JSON lines above already have them.
            log.warning("could not store %d log events", len(batch), exc_info=True)

    async def _run(self) -> None:
        while not self._stopping:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), self._flush_every_s)
            self._wake.clear()
            await self.flush()
