"""Feedback: a reader's thumbs up/down and comment on one answer.

Revision ID: 0003
Revises: 0002
Create Date: 2025-02-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | Sequence[str] | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "feedback",
        sa.Column("thread_id", sa.Uuid(), nullable=False),
        sa.Column("message_seq", sa.Integer(), nullable=False),
        sa.Column("rating", sa.String(8), nullable=False),
        sa.Column("comment", sa.Text(), nullable=True),
        sa.Column("created_at", TS, nullable=False),
        sa.PrimaryKeyConstraint("thread_id", "message_seq", name=op.f("pk_feedback")),
        sa.ForeignKeyConstraint(
            ["thread_id"],
            ["threads.thread_id"],
            name=op.f("fk_feedback_thread_id_threads"),
            ondelete="CASCADE",
        ),
        sa.CheckConstraint("rating IN ('up', 'down')", name=op.f("ck_feedback_rating")),
    )
    op.create_index(op.f("ix_feedback_created_at"), "feedback", ["created_at"])


def downgrade() -> None:
    op.drop_index(op.f("ix_feedback_created_at"), table_name="feedback")
    op.drop_table("feedback")
