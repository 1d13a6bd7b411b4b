"""Fixtures shared by unit test modules."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from lectern import passage_store
from lectern.writers.units import passage_terms, units_of


@pytest.fixture
def no_passage_store() -> Iterator[None]:
    """The test starts and ends without a passage store and with empty passage caches: the store is
    one per process, and a configured one would reach later tests."""
    passage_store.configure(None)
    units_of.cache_clear()
    passage_terms.cache_clear()
    yield
    passage_store.configure(None)
    units_of.cache_clear()
    passage_terms.cache_clear()
