"""Initial schema: threads, messages, prompts, prompt_deltas, log_events.

Revision ID: 0001
Revises:
Create Date: 2025-01-01
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0001"
down_revision: str | Sequence[str] | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# Frozen copies of the types in lectern.store.types: a migration must not change when the app does.
TS = sa.DateTime(timezone=True)


def _json() -> sa.types.TypeEngine[Any]:
    return sa.JSON(none_as_null=True).with_variant(postgresql.JSONB(none_as_null=True), "postgresql")


def _bigint_pk() -> sa.types.TypeEngine[int]:
    return sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "threads",
        sa.Column("thread_id", sa.Uuid(), nullable=False),
        sa.Column("owner", sa.String(128), nullable=True),
        sa.Column("created_at", TS, nullable=False),
        sa.Column("updated_at", TS, nullable=False),
        sa.Column("last_active_at", TS, nullable=False),
        sa.Column("archived_at", TS, nullable=True),
        sa.Column("topic_summary", sa.String(200), nullable=True),
        sa.Column("metadata", _json(), nullable=False),
        sa.Column("message_count", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("turn_count", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("retrieval_count", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("total_tokens", sa.BigInteger(), nullable=False, server_default="0"),
        sa.PrimaryKeyConstraint("thread_id", name=op.f("pk_threads")),
    )
    op.create_index(op.f("ix_threads_updated_at"), "threads", [sa.text("updated_at DESC")])
    op.create_index(op.f("ix_threads_created_at"), "threads", [sa.text("created_at DESC")])
    op.create_index(op.f("ix_threads_owner_updated_at"), "threads", ["owner", sa.text("updated_at DESC")])
    op.create_index(
        "ix_threads_active_last_active_at",
        "threads",
        ["last_active_at"],
        sqlite_where=sa.text("archived_at IS NULL"),
        postgresql_where=sa.text("archived_at IS NULL"),
    )

    op.create_table(
        "messages",
        sa.Column("message_id", _bigint_pk(), autoincrement=True, nullable=False),
        sa.Column("thread_id", sa.Uuid(), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("role", sa.String(16), nullable=False),
        sa.Column("content", sa.Text(), nullable=False),
        sa.Column("timestamp", TS, nullable=False),
        sa.Column("confidence", sa.Float(), nullable=True),
        sa.Column("sources", _json(), nullable=True),
        sa.Column("citations", _json(), nullable=True),
        sa.Column("prompt_id", sa.Uuid(), nullable=True),
        sa.Column("archived", sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.PrimaryKeyConstraint("message_id", name=op.f("pk_messages")),
        sa.ForeignKeyConstraint(
            ["thread_id"],
            ["threads.thread_id"],
            name=op.f("fk_messages_thread_id_threads"),
            ondelete="CASCADE",
        ),
        sa.UniqueConstraint("thread_id", "seq", name=op.f("uq_messages_thread_id_seq")),
        sa.CheckConstraint("role IN ('user', 'assistant', 'system')", name=op.f("ck_messages_role")),
        sa.CheckConstraint(
            "confidence IS NULL OR role = 'assistant'", name=op.f("ck_messages_confidence_assistant_only")
        ),
    )

    op.create_table(
        "prompts",
        sa.Column("prompt_id", sa.Uuid(), nullable=False),
        sa.Column("thread_id", sa.Uuid(), nullable=False),
        sa.Column("owner", sa.String(128), nullable=True),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("idempotency_key", sa.String(255), nullable=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("token_count", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("delta_count", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("error_code", sa.String(64), nullable=True),
        sa.Column("error_message", sa.Text(), nullable=True),
        sa.Column("created_at", TS, nullable=False),
        sa.Column("finished_at", TS, nullable=True),
        sa.PrimaryKeyConstraint("prompt_id", name=op.f("pk_prompts")),
        sa.ForeignKeyConstraint(
            ["thread_id"],
            ["threads.thread_id"],
            name=op.f("fk_prompts_thread_id_threads"),
            ondelete="CASCADE",
        ),
        sa.UniqueConstraint(
            "thread_id", "idempotency_key", name=op.f("uq_prompts_thread_id_idempotency_key")
        ),
        sa.CheckConstraint(
            "status IN ('InFlight', 'Done', 'Cancelled', 'Error')", name=op.f("ck_prompts_status")
        ),
    )

    op.create_table(
        "prompt_deltas",
        sa.Column("prompt_id", sa.Uuid(), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("type", sa.String(8), nullable=False),
        sa.Column("text", sa.Text(), nullable=True),
        sa.Column("role", sa.String(16), nullable=False),
        sa.Column("metadata", _json(), nullable=True),
        sa.PrimaryKeyConstraint("prompt_id", "seq", name=op.f("pk_prompt_deltas")),
        sa.ForeignKeyConstraint(
            ["prompt_id"],
            ["prompts.prompt_id"],
            name=op.f("fk_prompt_deltas_prompt_id_prompts"),
            ondelete="CASCADE",
        ),
        sa.CheckConstraint("type IN ('token', 'done', 'error')", name=op.f("ck_prompt_deltas_type")),
        sa.CheckConstraint("role IN ('user', 'assistant', 'system')", name=op.f("ck_prompt_deltas_role")),
    )

    op.create_table(
        "log_events",
        sa.Column("event_id", _bigint_pk(), autoincrement=True, nullable=False),
        sa.Column("timestamp", TS, nullable=False),
        sa.Column("event_type", sa.String(32), nullable=False),
        sa.Column("thread_id", sa.Uuid(), nullable=True),
        sa.Column("details", _json(), nullable=False),
        sa.Column("duration_ms", sa.Float(), nullable=True),
        sa.PrimaryKeyConstraint("event_id", name=op.f("pk_log_events")),
        sa.CheckConstraint(
            "event_type IN ('query_received', 'embedding_generated', 'retrieval_performed', "
            "'response_sent', 'error')",
            name=op.f("ck_log_events_event_type"),
        ),
    )
    op.create_index(op.f("ix_log_events_thread_id_timestamp"), "log_events", ["thread_id", "timestamp"])
    op.create_index(op.f("ix_log_events_timestamp"), "log_events", ["timestamp"])


def downgrade() -> None:
    op.drop_table("log_events")
    op.drop_table("prompt_deltas")
    op.drop_table("prompts")
    op.drop_table("messages")
    op.drop_table("threads")
