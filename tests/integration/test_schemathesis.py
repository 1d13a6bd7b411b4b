"""schemathesis against a real server, bounded for CI (a longer run: ``python -m tests.contracts.fuzz``):
every operation, examples, coverage, fuzzing and stateful phases, all checks: no 5xx, no response that
breaks its declared schema or status, no schema-valid request refused, no invalid one accepted."""

from __future__ import annotations

import pytest

from tests.contracts.fuzz import run

pytestmark = pytest.mark.integration


def test_schemathesis_finds_no_failure() -> None:
    result = run(max_examples=15, seed=20261123, timeout_s=280)
    assert result["exit_code"] == 0, result["output_tail"][-8000:]
    assert result["requests"] >= 300, result
    assert not [s for s in result["statuses"] if s.startswith("5")], result["statuses"]
