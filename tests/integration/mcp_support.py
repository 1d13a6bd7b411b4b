"""A small documentation set for the MCP and OpenAI-compatible tests, ingested once per test session with
the real local embedder into LanceDB by the real CLI (``lectern ingest``)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from lectern.settings import Settings, load_settings

# Fictional product documentation, written for these tests. Paths include a folder and a space so the
# resource URIs must carry slashes and percent-encoding.
DOCS: dict[str, str] = {
    "guide/retention.md": """---
title: Message retention
---

# Message retention

## Default retention period

Heron keeps every message for seven days by default. After seven days the broker deletes the oldest
segment files of a partition. Change the period with the `retention.days` setting of a topic.

## Retention by size

A topic can also be limited by size with `retention.bytes`. When a partition grows past that size,
Heron deletes its oldest segments first, even if they are younger than the retention period.
""",
    "guide/consumer groups.md": """# Consumer groups

## How consumer groups share work

A consumer group is a set of consumers that share the partitions of a topic. Heron assigns each
partition to exactly one consumer of the group, so every message is processed once per group.

## Rebalancing

When a consumer joins or leaves a group, Heron rebalances: it pauses the group for a moment and assigns
the partitions again. Rebalancing takes about three seconds with the default `session.timeout`.
""",
    "reference/cli.md": """# Command line

## heron topic create

`heron topic create NAME --partitions N` creates a topic with N partitions. The default is one
partition; more partitions let more consumers of a group read in parallel.

## heron broker start

`heron broker start --port 7400` starts a broker. The default port is 7400 and the data directory is
`/var/lib/heron`.
""",
}

ON_TOPIC = "How many days does Heron keep messages by default?"
FOLLOW_UP = "How can I limit them by size?"
OFF_TOPIC = "What is the best recipe for chocolate cake with strawberries?"
API_KEY = "test-key-3f9a1c"

# The local model's scores sit lower than the shipped defaults assume while calibration is in flux;
# these keep the on-topic questions answered and the off-topic one refused.
THRESHOLDS = {"confidence_high": 0.6, "confidence_medium": 0.45, "confidence_low": 0.3}


@dataclass(frozen=True)
class Ingested:
    root: Path
    docs: Path
    data_dir: Path

    @property
    def env(self) -> dict[str, str]:
        """Environment for a `lectern` subprocess over this data directory."""
        env = {"LECTERN_DATA_DIR": str(self.data_dir)}
        env.update({f"LECTERN_{k.upper()}": str(v) for k, v in THRESHOLDS.items()})
        return env

    def settings(self, **overrides: Any) -> Settings:
        values: dict[str, Any] = {"data_dir": self.data_dir, "rate_limit": "", **THRESHOLDS}
        values.update(overrides)
        return load_settings(**values)


def lectern_command() -> list[str]:
    """The installed `lectern` console script next to this interpreter (else `python -m lectern.cli`)."""
    script = Path(sys.executable).with_name("lectern")
    return [str(script)] if script.exists() else [sys.executable, "-m", "lectern.cli"]


def subprocess_env(extra: dict[str, str]) -> dict[str, str]:
    keep = {k: v for k, v in os.environ.items() if not k.startswith("LECTERN_")}
    return {**keep, **extra}


@pytest.fixture(scope="session")
def ingested(tmp_path_factory: pytest.TempPathFactory) -> Ingested:
    root = tmp_path_factory.mktemp("heron")
    docs = root / "docs"
    for path, text in DOCS.items():
        target = docs / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    found = Ingested(root=root, docs=docs, data_dir=root / "data")
    result = subprocess.run(
        [*lectern_command(), "ingest", str(docs), "--base-url", "https://heron.example.com/docs"],
        cwd=root,
        env=subprocess_env(found.env),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr + result.stdout
    return found


def copy_data(ingested: Ingested, target: Path) -> Ingested:
    """A private copy of the ingested data directory (its conversation database included)."""
    shutil.copytree(ingested.data_dir, target / "data")
    return Ingested(root=target, docs=ingested.docs, data_dir=target / "data")
