"""The charts of the user docs, written as plain SVG (no plotting library), so they can be regenerated.

    .venv/bin/python bench/doc_charts.py calibration bench/results/calib-*.json \
        [--date YYYY-MM-DD] [--out docs/images/confidence-calibration.svg]
    .venv/bin/python bench/doc_charts.py speed [--out docs/images/speed-llamaindex.svg]

``calibration``: a reliability chart for docs/confidence-calibration.md. For each confidence level
(high, medium, low, and refused), how many answers fell there and the share that were correct, pooled
over bench/answer_quality.py result files (their ``rows``) and computed by its ``calibration``: an
answerable question is correct when answered with a relevant file cited, an unanswerable one when
refused. Only development splits are read (tune, dev, devN, funm); a row of any other split (holdout,
fresh, devNhold, funmhold) stops the script. The result files come from one run per development set:

    D=../shared/data/textbooks
    for SET in reader:tune train:tune dev2:dev2 dev5:dev5 ... dev15:dev15 followups-dev:dev \\
               followups-dev2:dev2 followups-dev3:dev3 followups-dev4:dev4 ... followups-dev15:dev15 \\
               followups-nm:funm; do
      PYTHONHASHSEED=0 PYTHONPATH=src .venv/bin/python bench/answer_quality.py \\
        $D/textbook-a bench/questions/${SET%%:*}-textbook-a.jsonl ... \\
        $D/textbook-d bench/questions/${SET%%:*}-textbook-d.jsonl --split ${SET##*:} --out calib-${SET%%:*}
    done

``speed``: bars of the Lectern / LlamaIndex figures of README.md's "How fast" table, read from that
table (nothing is measured here): edit the table, then regenerate the chart.

Both charts draw on an explicit white background so that they read the same in light and dark themes.
"""

from __future__ import annotations

import argparse
import datetime
import json
import re
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

sys.path.insert(0, str(Path(__file__).resolve().parent))

from answer_quality import LEVELS, calibration

ROOT = Path(__file__).resolve().parent.parent
DEVELOPMENT_SPLIT = re.compile(r"(tune|dev\d*|funm)")
FONT = "font-family=\"-apple-system, 'Segoe UI', Helvetica, Arial, sans-serif\""
INK, MUTED, GRID, BACKGROUND = "#1f2328", "#59636e", "#d1d9e0", "#ffffff"
LEVEL_LABELS = {"high": "high", "medium": "medium", "low": "low", "insufficient": "refused"}
MODEL = ROOT / "src" / "lectern" / "data" / "answerability-local-all-minilm-l6-v2.json"
LEVEL_COLOURS = {"high": "#1a7f37", "medium": "#0969da", "low": "#bf8700", "insufficient": "#6e7781"}
LECTERN, OTHER = "#0969da", "#8c959f"


def text(x: float, y: float, content: str, *, size: int = 13, anchor: str = "start", **attrs: str) -> str:
    extra = "".join(f' {key.replace("_", "-")}="{value}"' for key, value in attrs.items())
    return (
        f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}"{extra}>'
        f"{escape(content)}</text>"
    )


def rect(x: float, y: float, width: float, height: float, fill: str) -> str:
    return (
        f'<rect x="{x:.1f}" y="{y:.1f}" width="{max(width, 0.0):.1f}" height="{height:.1f}" fill="{fill}"/>'
    )


def document(width: int, height: int, title: str, body: Iterable[str]) -> str:
    """An SVG with its title (for screen readers) and an explicit background."""
    return "\n".join(
        [
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" role="img" {FONT} fill="{INK}">',
            f"<title>{escape(title)}</title>",
            rect(0, 0, width, height, BACKGROUND),
            *body,
            "</svg>",
            "",
        ]
    )


def percent(share: float | None) -> str:
    return "–" if share is None else f"{round(100 * share)} %"


def level_bands(model: dict[str, Any]) -> dict[str, str]:
    """The probability band of each level, from the shipped decision's threshold and level bounds."""
    low, medium, high = (f"{model[key]:.3g}" for key in ("threshold", "medium", "high"))
    return {
        "high": f"≥ {high}",
        "medium": f"{medium} – {high}",
        "low": f"{low} – {medium}",
        "insufficient": f"< {low}",
    }


def development_rows(results: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every row of answer_quality result payloads; refuses rows of a held-back split."""
    rows = [row for result in results for book in result["rows"].values() for row in book]
    for row in rows:
        if not DEVELOPMENT_SPLIT.fullmatch(str(row.get("split", "tune"))):
            raise SystemExit(f"refusing a row of split {row.get('split')!r}: only development splits")
    return rows


def calibration_svg(rows: Sequence[dict[str, Any]], caption: str, bands: dict[str, str]) -> str:
    """Reliability chart: one bar per confidence level, its height the share correct, its label the count."""
    levels = calibration(list(rows))
    width, height, left, top, plot_h, slot = 640, 350, 64, 76, 190, 140
    body = [
        text(20, 28, "Share of answers that were right, by confidence level", size=16, font_weight="600"),
        text(
            20,
            48,
            "right: an answer cites a relevant file; a refusal, the documents do not answer the question",
            size=12,
            fill=MUTED,
        ),
    ]
    for tick in range(0, 101, 25):
        y = top + plot_h * (1 - tick / 100)
        body.append(f'<line x1="{left}" y1="{y:.1f}" x2="{left + 4 * slot}" y2="{y:.1f}" stroke="{GRID}"/>')
        body.append(text(left - 8, y + 4, f"{tick} %", size=11, anchor="end", fill=MUTED))
    for i, level in enumerate(LEVELS):
        share, n = levels[level]["correct"], levels[level]["n"]
        x = left + i * slot + 30
        bar = plot_h * (share or 0.0)
        body.append(rect(x, top + plot_h - bar, slot - 60, bar, LEVEL_COLOURS[level]))
        body.append(text(x + (slot - 60) / 2, top + plot_h - bar - 6, percent(share), anchor="middle"))
        centre = x + (slot - 60) / 2
        body.append(text(centre, top + plot_h + 20, LEVEL_LABELS[level], anchor="middle", font_weight="600"))
        body.append(text(centre, top + plot_h + 36, bands[level], size=11, anchor="middle", fill=MUTED))
        noun = "refusals" if level == "insufficient" else "answers"
        body.append(text(centre, top + plot_h + 52, f"{n} {noun}", size=11, anchor="middle", fill=MUTED))
    body.append(text(20, height - 14, caption, size=11, fill=MUTED))
    return document(width, height, "Confidence calibration: share correct per level", body)


@dataclass(frozen=True)
class Panel:
    """One measure: per corpus, Lectern's figure and LlamaIndex's."""

    title: str
    unit: str
    bars: tuple[tuple[str, float, float], ...]


SPEED_ROWS = (
    ("answers/s in one process", "answers/s, higher is better", ""),
    ("CPU per answer", "CPU per answer, lower is better", " ms"),
    ("cold ingest (CPU)", "cold ingest CPU, lower is better", " s"),
)


def readme_speed(readme: str) -> tuple[list[str], list[Panel]]:
    """The corpora (column heads) and the panels of README.md's "How fast" table."""
    section = readme.split("## How fast", 1)[1]
    lines = [line for line in section.splitlines() if line.startswith("|")]
    corpora = [cell.strip() for cell in lines[0].strip("|").split("|")[1:]]
    cells = {
        cell[0].strip(): [c.strip() for c in cell[1:]]
        for cell in (line.strip("|").split("|") for line in lines[2:])
    }
    panels = []
    for label, title, unit in SPEED_ROWS:
        bars = []
        (values,) = (row for head, row in cells.items() if head.startswith(label))
        for corpus, value in zip(corpora, values, strict=True):
            ours, theirs = (float(re.sub(r"[^\d.]", "", part)) for part in value.split("/"))
            bars.append((corpus, ours, theirs))
        panels.append(Panel(title, unit, tuple(bars)))
    return corpora, panels


def figure(value: float, unit: str) -> str:
    return f"{value:,.1f}".removesuffix(".0") + unit


def speed_svg(panels: Sequence[Panel], caption: str) -> str:
    """Per panel, per corpus, a Lectern bar and a LlamaIndex bar, scaled to the panel's largest figure."""
    width, left, bar_w, bar_h = 640, 160, 380, 14
    body = [
        text(20, 28, "Lectern and LlamaIndex on the same 2-core machine", size=16, font_weight="600"),
        rect(20, 40, 12, 12, LECTERN),
        text(38, 51, "Lectern", size=12),
        rect(110, 40, 12, 12, OTHER),
        text(128, 51, "LlamaIndex + Qdrant", size=12),
    ]
    y = 80.0
    for panel in panels:
        body.append(text(20, y, panel.title, font_weight="600"))
        y += 10
        largest = max(max(ours, theirs) for _, ours, theirs in panel.bars)
        for corpus, ours, theirs in panel.bars:
            body.append(text(left - 10, y + bar_h + 4, corpus, size=12, anchor="end", fill=MUTED))
            for value, colour in ((ours, LECTERN), (theirs, OTHER)):
                length = bar_w * value / largest
                body.append(rect(left, y, length, bar_h, colour))
                body.append(text(left + length + 6, y + bar_h - 3, figure(value, panel.unit), size=11))
                y += bar_h + 2
            y += 8
        y += 18
    height = int(y + 10)
    body.append(text(20, height - 14, caption, size=11, fill=MUTED))
    return document(width, height, "Lectern and LlamaIndex: speed", body)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("chart", choices=("calibration", "speed"))
    parser.add_argument("results", nargs="*", type=Path, help="calibration: answer_quality result files")
    parser.add_argument("--date", default=datetime.date.today().isoformat(), help="calibration: as of")
    parser.add_argument("--out", type=Path, help="default: docs/images/<chart>.svg")
    args = parser.parse_args()
    if args.chart == "calibration":
        if not args.results:
            parser.error("give answer_quality result files")
        rows = development_rows([json.loads(path.read_text(encoding="utf-8")) for path in args.results])
        caption = f"{len(rows):,} development questions over four robotics textbooks, measured {args.date}."
        bands = level_bands(json.loads(MODEL.read_text(encoding="utf-8")))
        svg, default = calibration_svg(rows, caption, bands), "confidence-calibration.svg"
    else:
        _, panels = readme_speed((ROOT / "README.md").read_text(encoding="utf-8"))
        caption = (
            "Figures of the table below: bench/compare_llamaindex.py --repeats 3 "
            "on two AMD EPYC cores (AVX-512 VNNI)."
        )
        svg, default = speed_svg(panels, caption), "speed-llamaindex.svg"
    out = args.out or ROOT / "docs" / "images" / default
    out.write_text(svg, encoding="utf-8")
    print(f"-> {out} ({len(svg.encode())} bytes)")


if __name__ == "__main__":
    main()
