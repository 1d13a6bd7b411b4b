"""Prompt leases and exact replays: ``prompts.heartbeat_at``; ``prompt_deltas.metadata`` as JSON text.

A running generation renews ``heartbeat_at``; an InFlight prompt whose lease has lapsed belongs to a
process that died, so any replica may recover it. On PostgreSQL the delta metadata moves from JSONB
(which reorders keys) to JSON (kept as written), so a replay is byte-identical to the first stream.

Revision ID: 0002
Revises: 0001
Create Date: 2025-02-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0002"
down_revision: str | Sequence[str] | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("prompts") as batch:
        batch.add_column(sa.Column("heartbeat_at", sa.DateTime(timezone=True), nullable=True))
    if op.get_bind().dialect.name == "postgresql":
        op.alter_column(
            "prompt_deltas",
            "metadata",
            type_=sa.JSON(none_as_null=True),
            existing_type=postgresql.JSONB(none_as_null=True),
            postgresql_using="metadata::json",
        )


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.alter_column(
            "prompt_deltas",
            "metadata",
            type_=postgresql.JSONB(none_as_null=True),
            existing_type=sa.JSON(none_as_null=True),
            postgresql_using="metadata::jsonb",
        )
    with op.batch_alter_table("prompts") as batch:
        batch.drop_column("heartbeat_at")
