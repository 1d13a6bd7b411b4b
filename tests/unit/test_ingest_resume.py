"""Ctrl-C during ingest keeps what was embedded; the rerun resumes. Also: dry-run previews, eval progress,
and readiness of an empty collection. Fake embedder and in-memory index, real pipeline and manifest."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from pathlib import Path
from types import SimpleNamespace

import pytest
from typer.testing import CliRunner

from lectern.api.app import default_probes
from lectern.cli.main import app
from lectern.embeddings.base import Vectors
from lectern.evaluation.beir import load_beir
from lectern.evaluation.retrieval import evaluate_retrieval
from lectern.ingest.manifest import Manifest
from lectern.ingest.pipeline import IngestOptions, IngestPipeline
from lectern.ingest.resume import ResumableEmbedder
from lectern.runtime import Runtime
from tests.fakes.hash_embedder import HashEmbedder
from tests.fakes.memory_index import MemoryIndex


class CountingEmbedder(HashEmbedder):
    """Counts the texts it embeds; raises Ctrl-C once `stop_after` texts are done."""

    def __init__(self, stop_after: int | None = None) -> None:
        super().__init__()
        self.embedded = 0
        self.stop_after = stop_after

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        if self.stop_after is not None and self.embedded >= self.stop_after:
            raise KeyboardInterrupt
        self.embedded += len(texts)
        return super().embed_documents(texts)


def corpus(root: Path, files: int = 12) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for i in range(files):
        body = "\n\n".join(f"## Part {j}\n\nTopic {i} detail {j} about sensors and joints." for j in range(4))
        (root / f"page{i:02}.md").write_text(f"# Page {i}\n\n{body}\n", encoding="utf-8")
    return root


def pipeline(tmp_path: Path, embedder: ResumableEmbedder, index: MemoryIndex) -> IngestPipeline:
    return IngestPipeline(
        collection="docs",
        embedder=embedder,
        index=index,
        manifest=Manifest(tmp_path / "data" / "ingest.sqlite3"),
    )


def test_resume_keeps_each_batch_and_a_rerun_reuses_it(tmp_path: Path) -> None:
    docs = corpus(tmp_path / "docs")
    resume_file = tmp_path / "data" / "ingest-resume.sqlite3"
    seen: list[int] = []
    first = CountingEmbedder(stop_after=24)
    index = MemoryIndex("docs")
    options = IngestOptions(flush_chunks=10_000)  # one group: nothing reaches the index before the stop
    wrapped = ResumableEmbedder(first, resume_file, lambda n, s: seen.append(n), batch=8)
    with pytest.raises(KeyboardInterrupt):
        pipeline(tmp_path, wrapped, index).ingest_paths([docs], options)
    assert seen == [8, 8, 8]  # progress moved batch by batch before the stop
    assert wrapped.pending() == 24

    second = CountingEmbedder()
    again = ResumableEmbedder(second, resume_file, batch=8)
    report = pipeline(tmp_path, again, index).ingest_paths([docs], options)
    total = report.chunks_embedded
    assert again.reused == 24
    assert second.embedded == total - 24  # only what the first run had not embedded
    again.finished()
    assert again.pending() == 0

    clean = MemoryIndex("docs")
    reference = IngestPipeline(
        collection="docs",
        embedder=HashEmbedder(),
        index=clean,
        manifest=Manifest(tmp_path / "ref" / "ingest.sqlite3"),
    ).ingest_paths([docs], options)
    assert reference.chunks_total == report.chunks_total
    assert set(index.rows) == set(clean.rows)  # the same index a clean run builds


class BatchRecorder(HashEmbedder):
    """Records the texts of each call."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[list[str]] = []

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        self.calls.append(list(texts))
        return super().embed_documents(texts)


def test_batches_follow_the_callers_order_and_vectors_come_back_in_it(tmp_path: Path) -> None:
    # the pipeline hands texts shortest first by exact token counts: the wrapper must not reorder them
    texts = [("word " * n) + str(i) for i, n in enumerate([3, 3, 5, 40, 41, 60])]
    inner = BatchRecorder()
    vectors = ResumableEmbedder(inner, tmp_path / "resume.sqlite3", batch=2).embed_documents(texts)
    assert inner.calls == [texts[0:2], texts[2:4], texts[4:6]]
    assert vectors.tolist() == HashEmbedder().embed_documents(texts).tolist()


def test_the_cli_pipeline_batches_chunks_by_token_count_not_characters(tmp_path: Path) -> None:
    # Few long words against many short ones: by characters the two kinds interleave (30, 33, 36, 39,
    # 42, 45 characters), so batches would pad 3 words to 15 or more; by token count they do not.
    bodies = {"a": "a " * 15, "b": f"{'x' * 10} " * 3, "c": "a " * 18}
    bodies |= {"d": f"{'y' * 12} " * 3, "e": "a " * 21, "f": f"{'z' * 14} " * 3}
    docs = tmp_path / "docs"
    docs.mkdir()
    for name, body in bodies.items():
        (docs / f"{name}.txt").write_text(body, encoding="utf-8")
    inner = BatchRecorder()
    embedder = ResumableEmbedder(inner, tmp_path / "resume.sqlite3", batch=3)
    index = MemoryIndex()
    pipeline(tmp_path, embedder, index).ingest_paths([docs])
    tokens = [[inner.count_tokens(t) for t in call] for call in inner.calls]
    assert tokens == [[4, 4, 4], [16, 19, 22]]  # shortest first (the words and the title before them)
    assert len(index.rows) == 6
    for chunk, vector in index.rows.values():  # each vector is its own chunk's
        assert vector.tolist() == HashEmbedder().embed_documents([chunk.search_text])[0].tolist()


def test_ctrl_c_in_the_cli_says_the_work_is_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    docs = corpus(tmp_path / "docs")
    stopping = CountingEmbedder(stop_after=32)
    index = MemoryIndex("docs")
    monkeypatch.setattr(Runtime, "embedder", property(lambda self: stopping))
    monkeypatch.setattr(Runtime, "index", property(lambda self: index))
    monkeypatch.setenv("LECTERN_INGEST_FLUSH_CHUNKS", "10000")
    data = tmp_path / "data"
    result = CliRunner().invoke(app, ["--data-dir", str(data), "ingest", str(docs)])
    assert result.exit_code == 130
    assert "interrupted after embedding 32 chunks; they are kept" in " ".join(result.output.split())
    monkeypatch.setattr(Runtime, "embedder", property(lambda self: CountingEmbedder()))
    result = CliRunner().invoke(app, ["--data-dir", str(data), "ingest", str(docs)])
    assert result.exit_code == 0, result.output
    assert "Resumed: 32 chunks embedded by the interrupted run were reused." in result.output


def test_preview_reports_and_writes_nothing(tmp_path: Path) -> None:
    docs = corpus(tmp_path / "docs", files=3)
    index = MemoryIndex("docs")
    run = IngestPipeline(
        collection="docs",
        embedder=HashEmbedder(),
        index=index,
        manifest=Manifest(tmp_path / "m.sqlite3"),
    )
    first = run.preview([docs])
    assert sorted(first.added) == ["page00.md", "page01.md", "page02.md"]
    assert not index.rows
    run.ingest_paths([docs])
    (docs / "page01.md").write_text("# Changed\n\nNew text.\n", encoding="utf-8")
    (docs / "page02.md").unlink()
    later = run.preview([docs])
    assert (later.added, later.changed, later.unchanged, later.removed) == (
        [],
        ["page01.md"],
        ["page00.md"],
        ["page02.md"],
    )


def test_eval_reports_progress_per_stage(tmp_path: Path) -> None:
    beir = tmp_path / "tiny"
    (beir / "qrels").mkdir(parents=True)
    docs = [("d1", "Gazebo", "Gazebo simulates robots."), ("d2", "URDF", "URDF describes links.")]
    (beir / "corpus.jsonl").write_text(
        "".join(json.dumps({"_id": i, "title": t, "text": x}) + "\n" for i, t, x in docs), encoding="utf-8"
    )
    (beir / "queries.jsonl").write_text(
        json.dumps({"_id": "q1", "text": "robot simulator"})
        + "\n"
        + json.dumps({"_id": "q2", "text": "robot links"})
        + "\n",
        encoding="utf-8",
    )
    (beir / "qrels" / "test.tsv").write_text(
        "query-id\tcorpus-id\tscore\nq1\td1\t1\nq2\td2\t1\n", encoding="utf-8"
    )
    calls: list[tuple[str, int, int]] = []
    evaluate_retrieval(
        load_beir(beir, "test"),
        name="tiny",
        split="test",
        embedder=HashEmbedder(),
        index=MemoryIndex("beir-tiny"),
        manifest=Manifest(tmp_path / "m.sqlite3"),
        collection="beir-tiny",
        modes=["dense", "keyword"],
        progress=lambda stage, done, total: calls.append((stage, done, total)),
    )
    last = {stage: (done, total) for stage, done, total in calls}
    assert last == {
        "ingesting documents": (2, 2),
        "embedding queries": (2, 2),
        "searching (dense)": (2, 2),
        "searching (keyword)": (2, 2),
    }


def test_an_empty_collection_is_not_ready() -> None:
    empty = SimpleNamespace(
        retriever=SimpleNamespace(index=MemoryIndex("docs"), collection="docs", embedder=HashEmbedder())
    )
    probes = default_probes(empty, SimpleNamespace(), SimpleNamespace(), SimpleNamespace(redis_url=""))  # type: ignore[arg-type]
    with pytest.raises(LookupError, match="collection 'docs' is empty or does not exist"):
        asyncio.run(probes["index"]())
