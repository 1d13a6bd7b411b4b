"""bench/answer_quality.py selects questions by any split name its files use (tune, holdout, fresh, ...)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))

import answer_quality  # noqa: E402


def _write(path: Path, records: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def test_any_split_name_in_the_files_is_known(tmp_path: Path) -> None:
    a = _write(tmp_path / "a.jsonl", [{"id": "1", "split": "fresh"}, {"id": "2"}])
    b = _write(tmp_path / "b.jsonl", [{"id": "3", "split": "holdout"}])
    assert answer_quality.splits_in([a, b]) == {"fresh", "tune", "holdout"}


def test_selected_keeps_only_the_split_asked_for() -> None:
    records: list[dict[str, object]] = [
        {"id": "1", "split": "fresh"},
        {"id": "2"},
        {"id": "3", "split": "fresh"},
        {"id": "4", "split": "holdout"},
    ]
    assert [r["id"] for r in answer_quality.selected(records, "fresh")] == ["1", "3"]
    assert [r["id"] for r in answer_quality.selected(records, "tune")] == ["2"]
    assert len(answer_quality.selected(records, "all")) == 4


def test_an_unknown_split_is_refused_before_any_corpus_is_built(tmp_path: Path) -> None:
    questions = _write(tmp_path / "q.jsonl", [{"id": "1", "split": "fresh"}])
    script = str(BENCH / "answer_quality.py")
    done = subprocess.run(
        [sys.executable, script, str(tmp_path / "no-corpus"), str(questions), "--split", "frsh"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    assert "the files have fresh" in done.stderr
