"""Every request example of the reference contracts, replayed against a real server (verbatim and with
live ids): every response, SSE event and NDJSON line validates against the contracts' schemas."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from lectern.api import create_app
from tests.api_support import LiveServer, make_engine, make_settings
from tests.contracts.replay import examples, replay

pytestmark = pytest.mark.integration

REFERENCE = Path(__file__).resolve().parents[2].parent / "shared" / "reference"


@pytest.fixture
def live(tmp_path: Path) -> Iterator[LiveServer]:
    settings = make_settings(tmp_path)
    with LiveServer(create_app(settings, engine=make_engine(settings))) as server:
        yield server


def test_every_contract_example_replays_without_a_violation(live: LiveServer) -> None:
    if not REFERENCE.is_dir():
        pytest.skip(f"the reference contracts are not beside the repository ({REFERENCE})")
    assert len(examples(REFERENCE)) >= 10
    with httpx.Client(base_url=live.url, timeout=60) as client:
        outcome = replay(client, REFERENCE)
    assert not outcome.violations, outcome.violations
    assert outcome.checked >= 100
    assert len(outcome.exchanges) == 2 * len(examples(REFERENCE))
