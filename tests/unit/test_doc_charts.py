"""bench/doc_charts.py writes well-formed SVG; every image the docs reference exists."""

from __future__ import annotations

import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

import doc_charts  # noqa: E402

SVG = "{http://www.w3.org/2000/svg}"


def _row(kind: str, level: str, *, answered: bool, cited: bool, split: str = "tune") -> dict[str, Any]:
    return {"kind": kind, "level": level, "answered": answered, "relevant_cited": cited, "split": split}


def _texts(svg: str) -> list[str]:
    root = ET.fromstring(svg)
    assert root.tag == f"{SVG}svg"
    assert root.find(f"{SVG}title") is not None
    return ["".join(node.itertext()) for node in root.iter(f"{SVG}text")]


def test_calibration_chart_from_a_tiny_result() -> None:
    # a gardening collection: three answers at high (two cite the right file), one refusal that was right
    result = {
        "rows": {
            "gardening": [
                _row("in_scope", "high", answered=True, cited=True),
                _row("in_scope", "high", answered=True, cited=True),
                _row("followup", "high", answered=True, cited=False, split="dev3"),
                _row("near_miss", "insufficient", answered=False, cited=False, split="funm"),
            ]
        }
    }
    rows = doc_charts.development_rows([result])
    bands = doc_charts.level_bands({"threshold": 0.4749, "medium": 0.7, "high": 0.85})
    texts = _texts(doc_charts.calibration_svg(rows, "4 questions about tomatoes", bands))
    assert {"67 %", "3 answers", "100 %", "1 refusals", "< 0.475", "0 answers"} <= set(texts)
    assert "4 questions about tomatoes" in texts


@pytest.mark.parametrize("split", ["holdout", "fresh", "dev7hold", "funmhold"])
def test_held_back_rows_stop_the_chart(split: str) -> None:
    result = {"rows": {"travel": [_row("in_scope", "low", answered=True, cited=True, split=split)]}}
    with pytest.raises(SystemExit):
        doc_charts.development_rows([result])


def test_speed_chart_reads_the_readme_table() -> None:
    readme = (
        "# Tool\n\n## How fast\n\n| | small (1k) | large (10k) |\n|---|---|---|\n"
        "| answers/s in one process, A / B | 200 / 100 | 50 / 10 |\n"
        "| CPU per answer | 4 / 8 ms | 9 / 90 ms |\n"
        "| cold ingest (CPU) | 1,200 / 2,400 s | 3 / 6 s |\n"
    )
    corpora, panels = doc_charts.readme_speed(readme)
    assert corpora == ["small (1k)", "large (10k)"]
    assert panels[2].bars == (("small (1k)", 1200.0, 2400.0), ("large (10k)", 3.0, 6.0))
    texts = _texts(doc_charts.speed_svg(panels, "a bakery's laptop"))
    assert {"200", "100", "90 ms", "1,200 s"} <= set(texts)


def test_every_docs_image_exists() -> None:
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    found = []
    for page in pages:
        for target in re.findall(r"!\[[^\]]*\]\(([^)\s]+)", page.read_text(encoding="utf-8")):
            if "://" not in target:
                found.append(target)
                assert (page.parent / target).is_file(), f"{page.name}: {target}"
    assert any(target.endswith(".svg") for target in found)
