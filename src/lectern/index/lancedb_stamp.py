"""The table version a search needs, without asking LanceDB when the table cannot have changed.

Reading ``version()`` through LanceDB is a hand-off to its event loop thread: ~0.5-0.8 ms of wall time on
the answering thread and ~0.7 ms of CPU elsewhere per search. A local Lance dataset gains an entry in its
``_versions/`` directory with every commit (a manifest written beside it, then renamed into place), and
cleanup removes entries: each changes the directory's mtime and ctime. One ``os.stat`` (a few us) tells
whether the directory is as it was when LanceDB last gave the version.

Timestamps have a granularity (a clock tick on ext4, 1 s on HFS+, 2 s on FAT): a commit in the same tick
as the previous change would leave the directory's times as they were. So a version is remembered only
from a stat taken once the directory had been still for ``settle_s``: any commit after that stat lands
in a later tick and shows. Network and FUSE file systems (cached attributes, another host's clock) and
non-local roots always ask LanceDB; so does a connection whose reads are not strongly consistent (its
version may lag the directory, and skipping would hold it there).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple, Protocol

# How long the directory must have been still before its stat may vouch for a version: more than the
# coarsest timestamp granularity (FAT's 2 s); after an ingest searches ask LanceDB for this long.
SETTLE_S = 3.0
# File systems whose attributes may be cached or stamped by another host's clock.
REMOTE_FS = ("nfs", "nfs4", "cifs", "smb3", "smbfs", "9p", "ceph", "glusterfs", "lustre", "gpfs", "afs")


class DirStat(Protocol):
    """What the stamp reads of a stat (``os.stat_result`` has it)."""

    @property
    def st_dev(self) -> int: ...
    @property
    def st_ino(self) -> int: ...
    @property
    def st_mtime_ns(self) -> int: ...
    @property
    def st_ctime_ns(self) -> int: ...


class Seen(NamedTuple):
    """The ``_versions`` directory as one stat saw it."""

    dev: int
    ino: int
    mtime_ns: int
    ctime_ns: int
    settled: bool  # still for settle_s when seen: no commit after it can keep these times


class VersionStamp:
    """Remembers the version LanceDB gave while the table's ``_versions`` directory stays unchanged."""

    def __init__(
        self,
        versions_dir: Path | None,
        settle_s: float = SETTLE_S,
        stat: Callable[[Path], DirStat] = os.stat,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._dir = versions_dir
        self._settle_ns = int(settle_s * 1e9)
        self._stat = stat
        self._clock = clock
        # (directory seen before the read, version read): one tuple, replaced whole, so threads share it
        self._known: tuple[Seen, int] | None = None

    @classmethod
    def of(cls, dataset: str | None, strongly_consistent: bool) -> VersionStamp:
        """The stamp of a table at `dataset` (its path or URI); one that never vouches unless the table is
        a local directory on a local file system and its reads always see the latest version."""
        if not strongly_consistent or not dataset or "://" in dataset or not os.path.isdir(dataset):
            return cls(None)
        path = Path(dataset).resolve()
        return cls(None if _remote(path) else path / "_versions")

    def look(self) -> Seen | None:
        """The directory now; None when it cannot vouch (not local, or gone)."""
        if self._dir is None:
            return None
        try:
            st = self._stat(self._dir)
        except OSError:
            return None
        now_ns = int(self._clock() * 1e9)
        settled = now_ns - max(st.st_mtime_ns, st.st_ctime_ns) >= self._settle_ns
        return Seen(st.st_dev, st.st_ino, st.st_mtime_ns, st.st_ctime_ns, settled)

    def version(self, seen: Seen | None) -> int | None:
        """The version remembered for a directory seen as `seen`, if it has not changed since."""
        known = self._known
        if seen is None or known is None or not seen.settled:
            return None
        return known[1] if known[0] == seen else None

    def remember(self, seen: Seen | None, version: int) -> None:
        """`version`, read from LanceDB after the directory was seen as `seen`: any commit since that
        stat changed the directory, so the pair holds while it is unchanged, once it was settled."""
        if seen is not None and seen.settled:
            self._known = (seen, version)

    def clear(self) -> None:
        self._known = None


def _remote(path: Path) -> bool:
    """Whether `path` lies on a network or FUSE file system (Linux's mount table; elsewhere, local)."""
    try:
        with open("/proc/self/mountinfo", encoding="utf-8") as mounts:
            lines = mounts.read().splitlines()
    except OSError:
        return False
    best, fstype = "", ""
    text = str(path)
    for line in lines:
        fields = line.split(" - ", 1)
        parts = fields[0].split()
        if len(fields) < 2 or len(parts) < 5:
            continue
        point = parts[4].replace("\\040", " ")
        inside = text == point or text.startswith(point.rstrip("/") + "/")
        if inside and len(point) >= len(best):
            best, fstype = point, fields[1].split()[0]
    return fstype.startswith("fuse") or fstype.split(".")[0] in REMOTE_FS
