"""Incremental, crash-safe ingestion of folders into one collection.

A run scans the folders, hashes every file, and compares with the manifest:
- an unchanged file costs one hash and nothing else;
- a new or changed file is loaded, chunked, and only chunks whose content is not yet in the index
  are embedded;
- a file gone from the folder has its chunks removed.

Order of writes, which is what makes a killed run safe to repeat: chunks go into the index first,
then the manifest records them in one transaction; chunks nobody references are deleted last. So the
index may briefly hold extra chunks, never miss referenced ones, and the next run's reconciliation
(`_collect_garbage`) removes the extras. The end state equals a clean run's.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import numpy as np

from lectern import passage_store, prune
from lectern.embeddings.base import Embedder, Vectors
from lectern.errors import IngestError
from lectern.index.base import VectorIndex
from lectern.ingest.chunker import chunk_document
from lectern.ingest.files import iter_files
from lectern.ingest.loaders import load_document
from lectern.ingest.manifest import Manifest, OwnerKey
from lectern.models import Chunk, CollectionInfo, Document
from lectern.sentences import SentenceVectors


class IngestProgress(Protocol):
    """What the pipeline reports while it runs; the CLI renders it as a progress bar."""

    def start(self, total_files: int) -> None: ...

    def file_done(self, source_path: str, status: str) -> None: ...

    def chunks_embedded(self, count: int, seconds: float) -> None: ...


class _NoProgress:
    def start(self, total_files: int) -> None:
        pass

    def file_done(self, source_path: str, status: str) -> None:
        pass

    def chunks_embedded(self, count: int, seconds: float) -> None:
        pass


@dataclass
class IngestReport:
    added: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    sentences_backfilled: int = 0
    """Chunks of an unchanged collection whose sentence vectors were computed this run."""
    side_rows_pruned: int = 0
    """Rows of the sentence and passage stores dropped because no chunk needs them any more."""
    chunks_total: int = 0
    chunks_embedded: int = 0
    chunks_deleted: int = 0
    embed_seconds: float = 0.0
    seconds: float = 0.0


@dataclass
class _Pending:
    root: str
    document: Document
    chunks: list[Chunk]


@dataclass
class _Plan:
    """One CLI path: its root, the files under it with their hashes, and whether to mirror it."""

    root: Path
    files: list[Path]
    mirror: bool
    hashes: dict[Path, str | OSError]


@dataclass
class IngestOptions:
    include: Sequence[str] = ()
    exclude: Sequence[str] = ()
    base_url: str = ""
    max_tokens: int = 0  # 0: the embedder's window
    overlap_tokens: int = 32
    # Documents are written in groups so the index sees few large writes rather than many small
    # ones, while a crash loses at most one group of work.
    flush_chunks: int = 512


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


class IngestPipeline:
    """Keeps one collection of an index in step with a set of folders."""

    def __init__(
        self,
        *,
        collection: str,
        embedder: Embedder,
        index: VectorIndex | Callable[[], VectorIndex],
        manifest: Manifest,
        progress: IngestProgress | None = None,
        sentences: SentenceVectors | None = None,
        data_dir: Path | None = None,
    ) -> None:
        """`index` may be a factory: a run with nothing to do then never opens the index. `sentences`
        stores the vectors of every new chunk's sentences, so answering never embeds them. `data_dir`:
        whose side stores (sentence vectors, passage units) lose the rows of chunks a run took out."""
        self.collection = collection
        self.embedder = embedder
        self._index_source = index
        self._index: VectorIndex | None = None
        self.manifest = manifest
        self.progress: IngestProgress = progress or _NoProgress()
        self._stored: set[str] = set()  # hashes the index holds, read once per run
        self.sentences = sentences
        self.data_dir = data_dir
        self._took_out = False  # a chunk left the index or was replaced: its side rows may be dead

    @property
    def index(self) -> VectorIndex:
        if self._index is None:
            source = self._index_source
            self._index = source if isinstance(source, VectorIndex) else source()
        return self._index

    # --- public API ------------------------------------------------------------------------------
    def ingest_paths(self, paths: Sequence[Path], options: IngestOptions | None = None) -> IngestReport:
        """Ingest files and folders; each folder is mirrored exactly (its removed files are removed)."""
        options = options or IngestOptions()
        started = time.perf_counter()
        report = IngestReport()
        plans = [self._scan(Path(p), options) for p in paths]
        self.progress.start(sum(len(plan.files) for plan in plans))
        if self._up_to_date(plans, report):
            self._backfill_sentences(report)
            report.seconds = time.perf_counter() - started
            return report

        self._prepare()
        for plan in plans:
            self._ingest_root(plan, options, report)
        self._finish(report, started)
        return report

    def preview(self, paths: Sequence[Path], options: IngestOptions | None = None) -> IngestReport:
        """What `ingest_paths` would do, reading only file hashes and the manifest; writes nothing.
        Files whose content changed count as changed even when they end up skipped as unreadable."""
        options = options or IngestOptions()
        report = IngestReport()
        for plan in (self._scan(Path(p), options) for p in paths):
            known = self.manifest.entries(self.collection, str(plan.root))
            seen: set[str] = set()
            for path in plan.files:
                source_path = path.relative_to(plan.root).as_posix()
                seen.add(source_path)
                file_hash = plan.hashes[path]
                entry = known.get(source_path)
                if isinstance(file_hash, OSError):
                    report.skipped.append((source_path, file_hash.strerror or str(file_hash)))
                elif entry is None:
                    report.added.append(source_path)
                elif entry.file_hash != file_hash:
                    report.changed.append(source_path)
                else:
                    report.unchanged.append(source_path)
            if plan.mirror:
                report.removed.extend(sorted(set(known) - seen))
        state = self.manifest.state(self.collection)
        report.chunks_total = state.chunks if state else 0
        return report

    def ingest_documents(
        self, documents: Iterable[Document], *, root: str, options: IngestOptions | None = None
    ) -> IngestReport:
        """Ingest already-parsed documents (evaluation corpora, API uploads) under a logical root."""
        options = options or IngestOptions()
        started = time.perf_counter()
        report = IngestReport()
        self._prepare()
        known = self.manifest.entries(self.collection, root)
        pending: list[_Pending] = []
        for document in documents:
            entry = known.get(document.source_path)
            if entry is not None and entry.file_hash == document.file_hash:
                report.unchanged.append(document.source_path)
                self.progress.file_done(document.source_path, "unchanged")
                continue
            (report.changed if entry else report.added).append(document.source_path)
            pending.append(_Pending(root, document, self._chunk(document, options)))
            self.progress.file_done(document.source_path, "changed" if entry else "added")
            if sum(len(p.chunks) for p in pending) >= options.flush_chunks:
                self._flush(pending, report)
                pending = []
        self._flush(pending, report)
        self._finish(report, started)
        return report

    # --- steps -----------------------------------------------------------------------------------
    def _prepare(self) -> None:
        name, dimension = self.embedder.name, self.embedder.dimension
        self.index.create(CollectionInfo(name=self.collection, embedder_name=name, dimension=dimension))
        self.manifest.mark_dirty(self.collection, name, dimension)
        self._stored = self.index.hashes()

    def _backfill_sentences(self, report: IngestReport) -> None:
        """An unchanged collection whose sentence vectors are missing (ingested by a version that split
        sentences differently, or before they existed) gets them now, so no answer has to embed them."""
        if self.sentences is None or self.sentences.stored() >= report.chunks_total:
            return
        embedded = 0
        for document in self.index.documents():
            embedded += self.sentences.precompute(self.index.chunks_of(document.source_path))
        report.sentences_backfilled = embedded

    def _scan(self, path: Path, options: IngestOptions) -> _Plan:
        """Resolve a CLI path into the files to look at. A single file never removes its siblings."""
        path = path.expanduser().resolve()
        if not path.exists():
            raise IngestError(f"{path} does not exist")
        if path.is_file():
            root, files, mirror = path.parent, [path], False
        else:
            root, files, mirror = path, list(iter_files(path, options.include, options.exclude)), True
        hashes: dict[Path, str | OSError] = {}
        for file in files:
            try:
                hashes[file] = file_sha256(file)
            except OSError as exc:
                hashes[file] = exc
        return _Plan(root, files, mirror, hashes)

    def _up_to_date(self, plans: list[_Plan], report: IngestReport) -> bool:
        """True when the last run finished and no file was added, changed or removed since."""
        state = self.manifest.state(self.collection)
        if state is None or not state.clean:
            return False
        if (state.embedder_name, state.dimension) != (self.embedder.name, self.embedder.dimension):
            return False  # the full path reports the mismatch
        unchanged: list[str] = []
        for plan in plans:
            known = self.manifest.entries(self.collection, str(plan.root))
            current = {f.relative_to(plan.root).as_posix(): plan.hashes[f] for f in plan.files}
            if plan.mirror and set(known) != set(current):
                return False
            for source_path, file_hash in current.items():
                entry = known.get(source_path)
                if entry is None or entry.file_hash != file_hash:
                    return False
            unchanged.extend(current)
        report.unchanged.extend(unchanged)
        for source_path in unchanged:
            self.progress.file_done(source_path, "unchanged")
        report.chunks_total = state.chunks
        return True

    def _ingest_root(self, plan: _Plan, options: IngestOptions, report: IngestReport) -> None:
        root, root_key = plan.root, str(plan.root)
        known = self.manifest.entries(self.collection, root_key)
        seen: set[str] = set()
        pending: list[_Pending] = []
        for path in plan.files:
            source_path = path.relative_to(root).as_posix()
            seen.add(source_path)
            try:
                file_hash = plan.hashes[path]
                if isinstance(file_hash, OSError):
                    raise file_hash
                entry = known.get(source_path)
                if entry is not None and entry.file_hash == file_hash:
                    report.unchanged.append(source_path)
                    self.progress.file_done(source_path, "unchanged")
                    continue
                document = load_document(path, root)
                document.file_hash = file_hash
                chunks = self._chunk(document, options)
            except IngestError as exc:
                report.skipped.append((source_path, exc.message))
                self.progress.file_done(source_path, "skipped")
                continue
            except OSError as exc:
                report.skipped.append((source_path, exc.strerror or str(exc)))
                self.progress.file_done(source_path, "skipped")
                continue
            (report.changed if entry else report.added).append(source_path)
            pending.append(_Pending(root_key, document, chunks))
            self.progress.file_done(source_path, "changed" if entry else "added")
            if sum(len(p.chunks) for p in pending) >= options.flush_chunks:
                self._flush(pending, report)
                pending = []
        self._flush(pending, report)

        if plan.mirror:
            gone = sorted(set(known) - seen)
            if gone:
                self._remove(root_key, gone, report)

    def _chunk(self, document: Document, options: IngestOptions) -> list[Chunk]:
        limit = options.max_tokens or self.embedder.max_tokens
        return chunk_document(
            document,
            self.embedder,
            max_tokens=min(limit, self.embedder.max_tokens),
            overlap_tokens=options.overlap_tokens,
            base_url=options.base_url,
        )

    def _flush(self, pending: list[_Pending], report: IngestReport) -> None:
        """Write a group of documents: index first, then the manifest, then drop orphans."""
        if not pending:
            return
        replacing = frozenset((p.root, p.document.source_path) for p in pending)
        batch_owners: dict[str, tuple[OwnerKey, Chunk]] = {}
        for item in pending:
            for chunk in item.chunks:
                key: OwnerKey = (item.root, item.document.source_path, chunk.chunk_index)
                current = batch_owners.get(chunk.content_hash)
                if current is None or key < current[0]:
                    batch_owners[chunk.content_hash] = (key, chunk)
        previous_hashes = self.manifest.hashes_of(self.collection, replacing)
        self._write_owners(set(batch_owners) | previous_hashes, replacing, batch_owners, report)
        self._record(pending)
        orphans = previous_hashes - self.manifest.referenced_hashes(self.collection)
        self._delete(orphans, report)

    def _record(self, pending: list[_Pending]) -> None:
        for root in sorted({p.root for p in pending}):
            self.manifest.record_documents(
                self.collection,
                root,
                [
                    (p.document.source_path, p.document.file_hash, p.document.title, p.chunks)
                    for p in pending
                    if p.root == root
                ],
            )

    def _remove(self, root: str, source_paths: list[str], report: IngestReport) -> None:
        removing = frozenset((root, p) for p in source_paths)
        affected = self.manifest.hashes_of(self.collection, removing)
        # Shared chunks owned by a removed document pass to their next owner before it goes.
        self._write_owners(affected, removing, {}, report)
        self.manifest.forget_documents(self.collection, root, source_paths)
        orphans = affected - self.manifest.referenced_hashes(self.collection)
        self._delete(orphans, report)
        report.removed.extend(source_paths)
        for path in source_paths:
            self.progress.file_done(path, "removed")

    def _write_owners(
        self,
        hashes: set[str],
        replacing: frozenset[tuple[str, str]],
        batch_owners: dict[str, tuple[OwnerKey, Chunk]],
        report: IngestReport,
    ) -> None:
        """Upsert the rows whose canonical chunk is new or differs from what the index holds."""
        if not hashes:
            return
        before = self.manifest.canonical_chunks(self.collection, hashes)
        after = self.manifest.canonical_chunks(self.collection, hashes, exclude=replacing)
        for content_hash, owner in batch_owners.items():
            current = after.get(content_hash)
            if current is None or owner[0] < current[0]:
                after[content_hash] = owner
        stored = self._stored
        to_write = [
            chunk
            for content_hash, (_, chunk) in sorted(after.items())
            if content_hash not in stored or before.get(content_hash, (None, None))[1] != chunk
        ]
        if not to_write:
            return
        started = time.perf_counter()
        vectors = _embed_shortest_first(self.embedder, to_write)
        if self.sentences is not None:
            passage_store.keep(to_write)  # the data dir's store (`SentenceVectors.for_data_dir`)
            self.sentences.precompute(to_write)
        elapsed = time.perf_counter() - started
        report.embed_seconds += elapsed
        report.chunks_embedded += len(to_write)
        self.progress.chunks_embedded(len(to_write), elapsed)
        self.index.upsert(to_write, vectors)
        self._took_out = self._took_out or any(c.content_hash in stored for c in to_write)
        stored.update(c.content_hash for c in to_write)

    def _delete(self, hashes: set[str], report: IngestReport) -> None:
        if not hashes:
            return
        self.index.delete_hashes(sorted(hashes))
        self._stored.difference_update(hashes)
        self._took_out = True
        report.chunks_deleted += len(hashes)

    def _collect_garbage(self, report: IngestReport) -> None:
        """Remove chunks no document references (left by a run that was killed mid-way)."""
        orphans = self._stored - self.manifest.referenced_hashes(self.collection)
        self._delete(orphans, report)

    def _finish(self, report: IngestReport, started: float) -> None:
        self._collect_garbage(report)
        if report.chunks_embedded or report.chunks_deleted:
            self.index.optimize()
        report.chunks_total = self.index.count()
        self.manifest.mark_clean(self.collection, report.chunks_total)
        if self._took_out and self.data_dir is not None:
            names = [c.name for c in self.manifest.collections()]
            pruned = prune.prune_data_dir(self.data_dir, self.index, names)
            if pruned is not None:
                report.side_rows_pruned = pruned.sentence_rows + pruned.passage_rows
        report.seconds = time.perf_counter() - started


def _embed_shortest_first(embedder: Embedder, chunks: Sequence[Chunk]) -> Vectors:
    """The chunks' vectors, in their order, embedded shortest first by their exact token counts (the
    chunker's): an embedder that batches texts as they come (`ResumableEmbedder`, batches of 32) then
    pads each batch little. Ordered by characters instead, a flush of textbook-a's chunks made ~4% of
    the model's tokens padding; by tokens, ~1%."""
    order = sorted(range(len(chunks)), key=lambda i: chunks[i].token_count)
    embedded = np.asarray(embedder.embed_documents([chunks[i].search_text for i in order]), dtype=np.float32)
    vectors = np.empty_like(embedded)
    vectors[order] = embedded
    return vectors
