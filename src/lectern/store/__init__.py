"""Conversation and prompt persistence: SQLite by default, PostgreSQL by URL, migrated by Alembic."""

from lectern.store.migrate import (
    current_revision,
    head_revision,
    upgrade_database,
    upgrade_database_apart,
    upgrade_database_sync,
)
from lectern.store.models import (
    Delta,
    LogEvent,
    Message,
    NewDelta,
    NewLogEvent,
    NewMessage,
    Prompt,
    PromptStatus,
    Thread,
    ThreadInfo,
    WindowMessage,
)
from lectern.store.store import ConversationStore
from lectern.store.summary import Summarizer, extractive_summary

__all__ = [
    "ConversationStore",
    "Delta",
    "LogEvent",
    "Message",
    "NewDelta",
    "NewLogEvent",
    "NewMessage",
    "Prompt",
    "PromptStatus",
    "Summarizer",
    "Thread",
    "ThreadInfo",
    "WindowMessage",
    "current_revision",
    "extractive_summary",
    "head_revision",
    "upgrade_database",
    "upgrade_database_apart",
    "upgrade_database_sync",
]
