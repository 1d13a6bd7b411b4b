"""What a server answering from a collection that `lectern ingest` built keeps out of its memory: the fp32
document graph (queries use the int8 one; sentence vectors were stored at ingest), wordfreq's in-memory
word list (the ingest-built tables answer every word), and the MCP SDK (until /mcp is asked)."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.integration.mcp_support import ON_TOPIC, Ingested, copy_data, ingested, subprocess_env

__all__ = ["ingested"]  # the session fixture, imported for pytest

# Builds the engine as `lectern serve` does (lectern.api.app._build_engine), then answers questions whose
# words include some that are not plain letters (a digit, an apostrophe).
PROBE = """
import asyncio, json, sys
import wordfreq
from lectern.api.app import _build_engine
from lectern.embeddings import local
from lectern.settings import get_settings

engine = _build_engine(get_settings())
async def ask() -> None:
    for question in sys.argv[1:]:
        await engine.run(question, engine.new_conversation())
asyncio.run(ask())
print(json.dumps({
    "fp32_runtimes": local._load_runtime.cache_info().currsize,
    "int8_models": local.load_query_model.cache_info().currsize,
    "wordfreq_lists": wordfreq.get_frequency_dict.cache_info().currsize,
    "mcp_sdk": "mcp" in sys.modules,
}))
"""


QUESTIONS = [ON_TOPIC, "Does heron's port 7400 need root?", "What does retention.bytes do in v2?"]


def _probe(ingested: Ingested, questions: list[str], script: str = PROBE) -> dict[str, Any]:
    """Run `script` in a fresh interpreter (what it loads is the point) and read its last line's JSON."""
    done = subprocess.run(
        # -X faulthandler: a crash (seen once, at exit, after the JSON line) prints every thread's stack
        [sys.executable, "-X", "faulthandler", "-c", script, *questions],
        env=subprocess_env(ingested.env),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    loaded: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return loaded


def test_a_server_loads_only_the_int8_query_graph(ingested: Ingested) -> None:
    loaded = _probe(ingested, QUESTIONS)
    assert loaded == {"fp32_runtimes": 0, "int8_models": 1, "wordfreq_lists": 0, "mcp_sdk": False}


def test_sentences_missing_from_the_store_are_embedded_without_the_fp32_graph(
    ingested: Ingested, tmp_path: Path
) -> None:
    """A collection whose sentence vectors are not stored (a replica that did not ingest, a store from
    another version): the server embeds them as it answers, with the int8 graph it has for questions,
    and stores them under the int8 model's name."""
    copy = copy_data(ingested, tmp_path)
    stores = sorted(copy.data_dir.glob("sentences-*.sqlite3"))
    assert [p.name for p in stores] == ["sentences-local-all-minilm-l6-v2-int8-v5.sqlite3"]
    for path in copy.data_dir.glob("sentences-*"):
        path.unlink()
    loaded = _probe(copy, QUESTIONS)
    assert loaded == {"fp32_runtimes": 0, "int8_models": 1, "wordfreq_lists": 0, "mcp_sdk": False}
    with sqlite3.connect(stores[0]) as db:
        assert db.execute("SELECT COUNT(*) FROM unit_vectors").fetchone()[0] > 0


# An engine built as `lectern serve` builds it answers; its library pages are released
# (LECTERN_RELEASE_CODE_PAGES), and it answers the same again with fewer of LanceDB's code pages resident.
RELEASE_PROBE = """
import asyncio, json, sys
from lectern import code_pages
from lectern.api.app import _build_engine
from lectern.settings import get_settings

def lancedb_kb() -> int:
    kb, current = 0, False
    for line in open("/proc/self/smaps"):
        first = line.split(" ", 1)[0]
        if not first.endswith(":"):
            current = "_lancedb" in line and " r-xp " in line
        elif current and first == "Rss:":
            kb += int(line.split()[1])
    return kb

engine = _build_engine(get_settings())
async def ask() -> list[str]:
    answers = [await engine.run(q, engine.new_conversation()) for q in sys.argv[1:]]
    return [a.model_dump_json(exclude={"timings", "timestamp"}) for a in answers]
before = asyncio.run(ask())
held = lancedb_kb()
code_pages.enable()
released = code_pages.release_code_pages()
after = asyncio.run(ask())
print(json.dumps({"same": before == after, "released_kb": released, "held_kb": held,
                  "after_kb": lancedb_kb()}))
"""


def test_released_library_pages_give_the_same_answers(ingested: Ingested) -> None:
    found = _probe(ingested, QUESTIONS, RELEASE_PROBE)
    assert found["same"] is True
    assert found["released_kb"] >= found["held_kb"] > 0  # LanceDB's among them
    assert found["after_kb"] < found["held_kb"]  # answering ran only part of what was released
