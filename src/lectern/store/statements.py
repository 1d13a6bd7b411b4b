"""Hot statements run without SQLAlchemy's per-execution machinery on SQLite.

A chat turn's two writes (store the question, store the answer) run a handful of small statements each.
On SQLite, SQLAlchemy's work per execution (an execution context, the cache-key lookup, events, result
wrapping) and per transaction (pool checkout, ``begin`` hooks, commit events) cost several times what
SQLite itself spends on them: ~1 ms of CPU per turn of ~1.4. ``Statements`` lets such a write be written
once over two executors:

* ``CoreStatements``: a SQLAlchemy ``Connection`` (PostgreSQL, and anything else);
* ``SqliteStatements``: the standard library's driver connection, with each statement compiled once by
  SQLAlchemy for this dialect (``Prepared``): the same SQL text, parameters converted by the same
  column types' bind processors, results by their result processors. Only what SQLAlchemy does to
  carry the statement is skipped, never what it does to the values.

Driver errors are raised as SQLAlchemy's ``DBAPIError`` subclasses (``OperationalError``...), as they
would be through SQLAlchemy, so the store's retry and outage handling see the same exceptions.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol, TypeVar, cast

from sqlalchemy.engine import Connection, Dialect
from sqlalchemy.exc import DBAPIError
from sqlalchemy.sql import Insert
from sqlalchemy.sql.base import Executable
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.elements import ClauseElement

T = TypeVar("T")
Params = Mapping[str, Any]


class Statements(Protocol):
    def rows(self, stmt: Executable, params: Params) -> Sequence[Sequence[Any]]:
        """The rows a SELECT (or a DML statement with RETURNING) gives, as tuples in column order."""
        ...

    def run(self, stmt: Executable, params: Params | Sequence[Params]) -> None:
        """Execute, once or (given a list of parameter sets) once per set."""
        ...


class CoreStatements:
    """``Statements`` on a SQLAlchemy connection (inside the runner's transaction)."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn

    def rows(self, stmt: Executable, params: Params) -> Sequence[Sequence[Any]]:
        return self.conn.execute(stmt, dict(params)).all()

    def run(self, stmt: Executable, params: Params | Sequence[Params]) -> None:
        if isinstance(params, Mapping):
            self.conn.execute(stmt, dict(params))
        else:
            self.conn.execute(stmt, [dict(p) for p in params])


class Prepared:
    """One statement compiled for a dialect with the qmark paramstyle (SQLite's), with what turns
    parameters and result values into driver and Python values."""

    def __init__(self, stmt: Executable, dialect: Dialect, column_keys: Sequence[str] | None = None) -> None:
        keys = list(column_keys) if column_keys else None
        compiled = cast(SQLCompiler, cast(ClauseElement, stmt).compile(dialect=dialect, column_keys=keys))
        if compiled.insert_prefetch or compiled.update_prefetch:
            # Python-side defaults and onupdate values need SQLAlchemy's execution context.
            raise ValueError("a prepared statement cannot have Python-side column defaults")
        if compiled.positiontup is None:
            raise ValueError(f"dialect {dialect.name} does not use positional parameters")
        self.stmt = stmt  # kept alive: the cache is keyed by its id
        self.sql = compiled.string
        slots: list[tuple[str, bool, Any, Callable[[Any], Any] | None]] = []
        for name in compiled.positiontup:
            bind = compiled.binds[name]
            if bind.expanding:
                raise ValueError("expanding (IN) parameters are not supported")
            processor = bind.type.dialect_impl(dialect).bind_processor(dialect)
            slots.append((name, bool(bind.required), bind.effective_value, processor))
        self._slots = slots
        columns = getattr(stmt, "exported_columns", ())
        self._results = [c.type.dialect_impl(dialect).result_processor(dialect, None) for c in columns]
        self._any_result_processor = any(p is not None for p in self._results)

    def parameters(self, params: Params) -> tuple[Any, ...]:
        values = []
        for name, required, default, processor in self._slots:
            if name in params:
                value = params[name]
            elif required:
                raise KeyError(f"missing parameter {name!r} for: {self.sql}")
            else:
                value = default
            values.append(value if processor is None else processor(value))
        return tuple(values)

    def result(self, rows: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
        if not self._any_result_processor:
            return rows
        processors = self._results
        return [tuple(v if p is None else p(v) for p, v in zip(processors, row, strict=True)) for row in rows]


class PreparedCache:
    """Statements compiled on first use, per statement object (and insert column set)."""

    def __init__(self, dialect: Dialect) -> None:
        self.dialect = dialect
        self._prepared: dict[tuple[int, tuple[str, ...]], Prepared] = {}
        self._lock = threading.Lock()

    def get(self, stmt: Executable, column_keys: Sequence[str] = ()) -> Prepared:
        key = (id(stmt), tuple(column_keys))
        found = self._prepared.get(key)
        if found is None:
            with self._lock:
                found = self._prepared.get(key)
                if found is None:
                    found = Prepared(stmt, self.dialect, column_keys or None)
                    self._prepared[key] = found
        return found


class SqliteStatements:
    """``Statements`` on the standard library's SQLite connection (inside a raw transaction)."""

    def __init__(self, raw: sqlite3.Connection, cache: PreparedCache) -> None:
        self.raw = raw
        self.cache = cache

    def rows(self, stmt: Executable, params: Params) -> Sequence[Sequence[Any]]:
        prepared = self.cache.get(stmt, _insert_keys(stmt, params))
        values = prepared.parameters(params)
        try:
            found = self.raw.execute(prepared.sql, values).fetchall()
        except sqlite3.Error as exc:
            raise _wrapped(exc, prepared.sql, values) from exc
        return prepared.result(found)

    def run(self, stmt: Executable, params: Params | Sequence[Params]) -> None:
        if isinstance(params, Mapping):
            prepared = self.cache.get(stmt, _insert_keys(stmt, params))
            values: Any = prepared.parameters(params)
            execute: Callable[[str, Any], Any] = self.raw.execute
        else:
            if not params:
                return
            prepared = self.cache.get(stmt, _insert_keys(stmt, params[0]))
            values = [prepared.parameters(p) for p in params]
            execute = self.raw.executemany
        try:
            execute(prepared.sql, values).close()
        except sqlite3.Error as exc:
            raise _wrapped(exc, prepared.sql, values) from exc


def _insert_keys(stmt: Executable, params: Params) -> tuple[str, ...]:
    """An INSERT's columns are the ones its parameters name (the first set's, like SQLAlchemy's
    executemany); other statements say theirs."""
    return tuple(params) if isinstance(stmt, Insert) else ()


def sqlite_transaction(
    raw: sqlite3.Connection, cache: PreparedCache, work: Callable[[Statements], T], *, begin: str
) -> T:
    """``work`` in one transaction on a driver connection in autocommit mode (the store's connections
    issue their own BEGIN): committed when it returns, rolled back when it raises."""
    _begin(raw, begin)
    try:
        result = work(SqliteStatements(raw, cache))
    except BaseException:
        if raw.in_transaction:
            raw.rollback()
        raise
    _commit(raw)
    return result


Outcome = tuple[bool, Any]  # (True, the work's result) or (False, the exception it raised)
SAVEPOINT = "lectern_batch"


def sqlite_batch(
    raw: sqlite3.Connection, cache: PreparedCache, works: Sequence[Callable[[Statements], Any]], *, begin: str
) -> list[Outcome]:
    """Several independent works in one transaction, committed once (a group commit): each in its own
    savepoint, so one that raises is rolled back alone and reported as its outcome while the others
    commit. Nothing is reported before the commit; a failure of the transaction itself (BEGIN, COMMIT,
    or an error after which SQLite rolled the whole transaction back) is raised, and none of the works
    took effect."""
    _begin(raw, begin)
    outcomes: list[Outcome] = []
    statement = ""
    try:
        for work in works:
            statement = f"SAVEPOINT {SAVEPOINT}"
            raw.execute(statement)
            try:
                result = work(SqliteStatements(raw, cache))
            except Exception as exc:
                if not raw.in_transaction:  # SQLite gave up the transaction (a full disk, an I/O error)
                    raise
                statement = f"ROLLBACK TO {SAVEPOINT}"
                raw.execute(statement)
                outcomes.append((False, exc))
            else:
                outcomes.append((True, result))
            statement = f"RELEASE {SAVEPOINT}"
            raw.execute(statement)
    except BaseException as exc:
        if raw.in_transaction:
            raw.rollback()
        if isinstance(exc, sqlite3.Error):
            raise _wrapped(exc, statement, ()) from exc
        raise
    _commit(raw)
    return outcomes


def _begin(raw: sqlite3.Connection, begin: str) -> None:
    try:
        raw.execute(f"BEGIN {begin}")
    except sqlite3.Error as exc:
        raise _wrapped(exc, f"BEGIN {begin}", ()) from exc


def _commit(raw: sqlite3.Connection) -> None:
    """COMMIT, or roll back what is left of the transaction and raise the driver's error as SQLAlchemy's."""
    try:
        raw.commit()
    except sqlite3.Error as exc:
        if raw.in_transaction:
            raw.rollback()
        raise _wrapped(exc, "COMMIT", ()) from exc


def _wrapped(exc: sqlite3.Error, sql: str, params: Any) -> DBAPIError:
    """The driver's error as SQLAlchemy raises it (``OperationalError`` for "database is locked"...)."""
    return cast(DBAPIError, DBAPIError.instance(sql, params, exc, sqlite3.Error, hide_parameters=True))
