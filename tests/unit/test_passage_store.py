"""Passages' units and terms stored next to the index: read back equal, never from another code's rows,
and no store (or one that cannot be opened) only means working them out."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from lectern import passage_store
from lectern.models import Chunk, content_hash
from lectern.passage_store import PassageStore
from lectern.writers import units
from lectern.writers.units import Unit, passage_terms, split_units, stem_terms, units_of

TEXT = (
    "## Setup\n\nInstall the simulator first. Then run the spring-mass demo, e.g. with a fixed step.\n\n"
    "Solutions:\n\n- Check the frame names in the URDF file.\n- Use\n- Retry\n\n"
    "| Option | Meaning |\n| --- | --- |\n| step | The fixed time step of every update |\n\n"
    "```bash\nsudo apt-get update\nsudo apt-get install gz-harmonic\ngz sim\n```\n"
)


pytestmark = pytest.mark.usefixtures("no_passage_store")


def test_stored_units_and_terms_read_back_equal(tmp_path: Path) -> None:
    made = split_units(TEXT)
    assert any(u.items for u in made)  # every field is used
    assert any(u.kind == "code" for u in made)
    store = PassageStore(tmp_path / "p.sqlite3")
    store.keep_units(TEXT, made)
    store.keep_terms(TEXT, stem_terms(TEXT))
    fresh = PassageStore(tmp_path / "p.sqlite3")  # another process
    assert fresh.units(TEXT) == made
    assert fresh.terms(TEXT) == stem_terms(TEXT)
    assert fresh.units("another text") is None
    assert fresh.stored() == 2


def test_rows_of_another_fingerprint_are_never_read_and_are_dropped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "p.sqlite3"
    old = PassageStore(path)
    old._version = "made-by-other-code"
    old.keep_units(TEXT, (Unit("Not what this code splits.", "sentence", 0, frozenset(), 5),))
    assert old.units(TEXT) is not None
    new = PassageStore(path)
    assert new.units(TEXT) is None  # worked out again, never the other code's units
    assert sqlite3.connect(path).execute("SELECT COUNT(*) FROM passages").fetchone()[0] == 0


def test_the_fingerprint_follows_the_code_that_splits(monkeypatch: pytest.MonkeyPatch) -> None:
    before = passage_store.fingerprint()
    passage_store.fingerprint.cache_clear()
    monkeypatch.setattr(passage_store, "FORMAT", passage_store.FORMAT + 1)
    try:
        assert passage_store.fingerprint() != before
    finally:
        passage_store.fingerprint.cache_clear()


def test_units_of_reads_the_store_and_keeps_what_it_lacks(tmp_path: Path) -> None:
    store = passage_store.configure(tmp_path)
    assert store is not None
    assert units_of(TEXT) == split_units(TEXT)  # worked out, then kept
    assert PassageStore(store.path).units(TEXT) == split_units(TEXT)
    long = "A passage long enough to be stored rather than cached as a few words. " * 2
    assert passage_terms(long) == stem_terms(long)
    assert PassageStore(store.path).terms(long) == stem_terms(long)
    planted = (Unit("Planted to show who answered.", "sentence", 0, frozenset({"plant"}), 5),)
    store.keep_units("Some other passage.", planted)
    assert units_of("Some other passage.") == planted  # read from the store, not split


def test_a_store_that_cannot_be_opened_only_means_working_passages_out(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    passage_store.configure(blocker / "data")
    assert units_of(TEXT) == split_units(TEXT)
    assert units.passage_terms(TEXT) == stem_terms(TEXT)


def test_ingest_keeps_each_chunks_units_and_search_terms(tmp_path: Path) -> None:
    chunk = Chunk(
        text=TEXT, content_hash=content_hash(TEXT), chunk_index=0, token_count=9, heading_hierarchy=["Guide"]
    )
    passage_store.keep([chunk])  # no store: nothing kept, no error
    store = passage_store.configure(tmp_path)
    assert store is not None
    passage_store.keep([chunk])
    fresh = PassageStore(store.path)
    assert fresh.units(chunk.text) == split_units(chunk.text)
    assert fresh.terms(chunk.search_text) == stem_terms(chunk.search_text)


def test_a_damaged_row_is_worked_out_again(tmp_path: Path) -> None:
    store = PassageStore(tmp_path / "p.sqlite3")
    store.write_many([(0, TEXT, (("too", "few"),)), (1, TEXT, "not a set")])
    assert store.units(TEXT) is None
    assert store.terms(TEXT) is None
    db = sqlite3.connect(store.path)
    db.execute("UPDATE passages SET data = x'00'")
    db.commit()
    assert store.units(TEXT) is None
