"""Pooled random UUIDs: version 4, distinct, and never shared with a forked child."""

from __future__ import annotations

import os
import uuid

from lectern.api import ids


def test_ids_are_version_4_and_distinct_across_refills() -> None:
    made = [ids.random_uuid() for _ in range(3 * ids.POOL_BYTES // ids.ID_BYTES + 5)]
    assert all(u.version == 4 and u.variant == uuid.RFC_4122 for u in made)
    assert len(set(made)) == len(made)
    assert uuid.UUID(str(made[0]), version=4) == made[0]


def test_a_forked_child_draws_fresh_bytes() -> None:
    ids.random_uuid()  # the parent's pool holds unused ids now
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: report its next id and leave at once
        os.write(write, ids.random_uuid().bytes)
        os._exit(0)
    os.close(write)
    child = uuid.UUID(bytes=os.read(read, 16))
    os.close(read)
    os.waitpid(pid, 0)
    assert child != ids.random_uuid()
