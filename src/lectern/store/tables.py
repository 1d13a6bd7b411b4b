"""The schema as SQLAlchemy Core tables: the queries use these, the migrations create the same thing.

``tests/integration/test_store_migrations.py`` compares this metadata with a migrated database, so the two
cannot drift apart silently.
"""

from __future__ import annotations

import sqlalchemy as sa

from lectern.store.types import UTCDateTime, bigint_pk, json_type

# Explicit names keep constraints identical across dialects and addressable by later migrations.
NAMING_CONVENTION = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

metadata = sa.MetaData(naming_convention=NAMING_CONVENTION)

ROLES = ("user", "assistant", "system")
PROMPT_STATUSES = ("InFlight", "Done", "Cancelled", "Error")
DELTA_TYPES = ("token", "done", "error")
EVENT_TYPES = ("query_received", "embedding_generated", "retrieval_performed", "response_sent", "error")


def _one_of(column: str, values: tuple[str, ...]) -> str:
    return f"{column} IN ({', '.join(repr(v) for v in values)})"


threads = sa.Table(
    "threads",
    metadata,
    sa.Column("thread_id", sa.Uuid(), primary_key=True),
    sa.Column("owner", sa.String(128), nullable=True),
    sa.Column("created_at", UTCDateTime(), nullable=False),
    sa.Column("updated_at", UTCDateTime(), nullable=False),
    # Last request of any kind; drives idle archiving (updated_at is the last message, per seed 000).
    sa.Column("last_active_at", UTCDateTime(), nullable=False),
    # NULL means active; a timestamp means archived (cold) since then.
    sa.Column("archived_at", UTCDateTime(), nullable=True),
    sa.Column("topic_summary", sa.String(200), nullable=True),
    sa.Column("metadata", json_type(), nullable=False),
    # The next message seq; read and bumped under the thread row lock.
    sa.Column("message_count", sa.Integer(), nullable=False, server_default="0"),
    sa.Column("turn_count", sa.Integer(), nullable=False, server_default="0"),
    sa.Column("retrieval_count", sa.Integer(), nullable=False, server_default="0"),
    sa.Column("total_tokens", sa.BigInteger(), nullable=False, server_default="0"),
)
sa.Index("ix_threads_updated_at", threads.c.updated_at.desc())
sa.Index("ix_threads_created_at", threads.c.created_at.desc())
sa.Index("ix_threads_owner_updated_at", threads.c.owner, threads.c.updated_at.desc())
# Only active threads are candidates for the idle sweep, so index only those.
sa.Index(
    "ix_threads_active_last_active_at",
    threads.c.last_active_at,
    sqlite_where=threads.c.archived_at.is_(None),
    postgresql_where=threads.c.archived_at.is_(None),
)

messages = sa.Table(
    "messages",
    metadata,
    sa.Column("message_id", bigint_pk(), primary_key=True, autoincrement=True),
    sa.Column(
        "thread_id",
        sa.Uuid(),
        sa.ForeignKey("threads.thread_id", ondelete="CASCADE"),
        nullable=False,
    ),
    sa.Column("seq", sa.Integer(), nullable=False),
    sa.Column("role", sa.String(16), nullable=False),
    sa.Column("content", sa.Text(), nullable=False),
    sa.Column("timestamp", UTCDateTime(), nullable=False),
    sa.Column("confidence", sa.Float(), nullable=True),
    sa.Column("sources", json_type(), nullable=True),
    sa.Column("citations", json_type(), nullable=True),
    sa.Column("prompt_id", sa.Uuid(), nullable=True),
    # Outside the active window (the last N messages); kept, never deleted.
    sa.Column("archived", sa.Boolean(), nullable=False, server_default=sa.false()),
    sa.UniqueConstraint("thread_id", "seq"),
    sa.CheckConstraint(_one_of("role", ROLES), name="role"),
    sa.CheckConstraint("confidence IS NULL OR role = 'assistant'", name="confidence_assistant_only"),
)

prompts = sa.Table(
    "prompts",
    metadata,
    sa.Column("prompt_id", sa.Uuid(), primary_key=True),
    sa.Column(
        "thread_id",
        sa.Uuid(),
        sa.ForeignKey("threads.thread_id", ondelete="CASCADE"),
        nullable=False,
    ),
    sa.Column("owner", sa.String(128), nullable=True),
    sa.Column("text", sa.Text(), nullable=False),
    sa.Column("idempotency_key", sa.String(255), nullable=True),
    sa.Column("status", sa.String(16), nullable=False),
    sa.Column("token_count", sa.Integer(), nullable=False, server_default="0"),
    sa.Column("delta_count", sa.Integer(), nullable=False, server_default="0"),
    sa.Column("error_code", sa.String(64), nullable=True),
    sa.Column("error_message", sa.Text(), nullable=True),
    sa.Column("created_at", UTCDateTime(), nullable=False),
    sa.Column("finished_at", UTCDateTime(), nullable=True),
    # Renewed while a process generates it: a lapsed lease on an InFlight prompt means that process died.
    sa.Column("heartbeat_at", UTCDateTime(), nullable=True),
    # NULL keys are distinct on both engines, so prompts without a key never collide.
    sa.UniqueConstraint("thread_id", "idempotency_key"),
    sa.CheckConstraint(_one_of("status", PROMPT_STATUSES), name="status"),
)

prompt_deltas = sa.Table(
    "prompt_deltas",
    metadata,
    sa.Column(
        "prompt_id",
        sa.Uuid(),
        sa.ForeignKey("prompts.prompt_id", ondelete="CASCADE"),
        primary_key=True,
    ),
    sa.Column("seq", sa.Integer(), primary_key=True),
    sa.Column("type", sa.String(8), nullable=False),
    sa.Column("text", sa.Text(), nullable=True),
    sa.Column("role", sa.String(16), nullable=False),
    # JSON, not JSONB: kept as written, so a replay is byte-identical to the first stream.
    sa.Column("metadata", sa.JSON(none_as_null=True), nullable=True),
    sa.CheckConstraint(_one_of("type", DELTA_TYPES), name="type"),
    sa.CheckConstraint(_one_of("role", ROLES), name="role"),
)

RATINGS = ("up", "down")

# A reader's verdict on one answer (the assistant message at ``message_seq``); one per answer, the last
# one given wins.
feedback = sa.Table(
    "feedback",
    metadata,
    sa.Column(
        "thread_id",
        sa.Uuid(),
        sa.ForeignKey("threads.thread_id", ondelete="CASCADE"),
        primary_key=True,
    ),
    sa.Column("message_seq", sa.Integer(), primary_key=True),
    sa.Column("rating", sa.String(8), nullable=False),
    sa.Column("comment", sa.Text(), nullable=True),
    sa.Column("created_at", UTCDateTime(), nullable=False),
    sa.CheckConstraint(_one_of("rating", RATINGS), name="rating"),
)
sa.Index("ix_feedback_created_at", feedback.c.created_at)

log_events = sa.Table(
    "log_events",
    metadata,
    sa.Column("event_id", bigint_pk(), primary_key=True, autoincrement=True),
    sa.Column("timestamp", UTCDateTime(), nullable=False),
    sa.Column("event_type", sa.String(32), nullable=False),
    # No foreign key: stateless requests log without a stored thread; delete_thread removes a
    # thread's events itself.
    sa.Column("thread_id", sa.Uuid(), nullable=True),
    sa.Column("details", json_type(), nullable=False),
    sa.Column("duration_ms", sa.Float(), nullable=True),
    sa.CheckConstraint(_one_of("event_type", EVENT_TYPES), name="event_type"),
)
sa.Index("ix_log_events_thread_id_timestamp", log_events.c.thread_id, log_events.c.timestamp)
sa.Index("ix_log_events_timestamp", log_events.c.timestamp)
