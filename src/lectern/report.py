# ruff: noqa: E501  (HTML and SVG templates read better unwrapped)
"""The docs team's report: what readers asked, grouped into topics; what the documentation could not
answer (refused or low-confidence questions, grouped the same way: the gaps); answers readers marked
unhelpful; and which pages answers cite most and which they never cite.

Topics are found by embedding the questions with the collection's embedder and grouping greedily by
cosine similarity to each group's centroid; a group is named by its most frequent words.
"""

from __future__ import annotations

import asyncio
import html
import re
from collections import Counter
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

import numpy as np
from pydantic import BaseModel, Field

from lectern.index.base import DocumentSummary
from lectern.store.feedback import ReportTurn

if TYPE_CHECKING:
    from lectern.embeddings.base import Embedder
    from lectern.index.base import VectorIndex
    from lectern.store import ConversationStore

TOPIC_SIMILARITY = 0.55
EXAMPLES = 5
TOP_PAGES = 10
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9+#.-]*[A-Za-z0-9+#]|[A-Za-z]")
_STOP_WORDS = (
    "a an the and or of to in on for with by at from as is are was were be been being do does did "
    "how what why when where which who whom can could should would will i you we it its this that "
    "these those my your our me use using get set there here about into than then so if not no yes "
    "any some all more most much many one two have has had make makes made way ways need needs want "
    "please tell explain"
)
_STOP = frozenset(_STOP_WORDS.split())

Embed = Callable[[Sequence[str]], Any]


class Topic(BaseModel):
    label: str
    questions: int
    refused: int = 0
    low_confidence: int = 0
    examples: list[str] = Field(default_factory=list)


class FeedbackItem(BaseModel):
    asked_at: str
    question: str
    answer: str
    comment: str | None = None


class PageCount(BaseModel):
    page: str
    title: str = ""
    citations: int = 0


class Day(BaseModel):
    date: str
    questions: int
    refused: int
    low_confidence: int


class Totals(BaseModel):
    questions: int = 0
    sessions: int = 0
    answered: int = 0
    refused: int = 0
    low_confidence: int = 0
    helpful: int = 0
    unhelpful: int = 0


class Report(BaseModel):
    since: str
    until: str
    totals: Totals
    topics: list[Topic]
    gaps: list[Topic] = Field(description="Refused and low-confidence questions, grouped by topic.")
    negative_feedback: list[FeedbackItem]
    most_cited: list[PageCount]
    never_cited: list[PageCount]
    days: list[Day]


def page_of(url: str) -> str:
    return url.split("#", 1)[0]


def is_refused(turn: ReportTurn) -> bool:
    return not turn.citations


def is_low(turn: ReportTurn, low_below: float) -> bool:
    return not is_refused(turn) and (turn.confidence or 0.0) < low_below


def group_topics(questions: Sequence[str], embed: Embed | None) -> list[list[int]]:
    """Indices of ``questions`` grouped by topic, biggest group first."""
    if not questions:
        return []
    if embed is None:
        return [[i] for i in range(len(questions))]
    vectors = np.asarray(embed(list(questions)), dtype=np.float32)
    vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
    groups: list[list[int]] = []
    sums: list[np.ndarray[Any, Any]] = []
    for i, vector in enumerate(vectors):
        best, best_sim = -1, TOPIC_SIMILARITY
        for g, total in enumerate(sums):
            sim = float(vector @ (total / max(float(np.linalg.norm(total)), 1e-12)))
            if sim >= best_sim:
                best, best_sim = g, sim
        if best < 0:
            groups.append([i])
            sums.append(vector.copy())
        else:
            groups[best].append(i)
            sums[best] += vector
    return sorted(groups, key=len, reverse=True)


def topic_label(questions: Sequence[str]) -> str:
    words = Counter(
        w.lower()
        for q in questions
        for w in dict.fromkeys(_WORD.findall(q))
        if w.lower() not in _STOP and len(w) > 1
    )
    top = [w for w, _ in words.most_common(3)]
    return ", ".join(top) if top else (questions[0][:60] if questions else "")


def _topics(turns: Sequence[ReportTurn], embed: Embed | None, low_below: float) -> list[Topic]:
    questions = [t.question for t in turns]
    topics = []
    for group in group_topics(questions, embed):
        members = [turns[i] for i in group]
        texts = [m.question for m in members]
        topics.append(
            Topic(
                label=topic_label(texts),
                questions=len(members),
                refused=sum(is_refused(m) for m in members),
                low_confidence=sum(is_low(m, low_below) for m in members),
                examples=list(dict.fromkeys(texts))[:EXAMPLES],
            )
        )
    return topics


def build_report(
    turns: Sequence[ReportTurn],
    *,
    since: datetime,
    until: datetime,
    documents: Sequence[DocumentSummary] = (),
    embed: Embed | None = None,
    low_below: float = 0.5,
) -> Report:
    """``low_below``: an answer whose confidence (average similarity) is under this is low-confidence
    (the medium threshold, LECTERN_CONFIDENCE_MEDIUM)."""
    refused = [t for t in turns if is_refused(t)]
    low = [t for t in turns if is_low(t, low_below)]
    cited: Counter[str] = Counter()
    titles: dict[str, str] = {}
    for turn in turns:
        for page in dict.fromkeys(
            page_of(str(c.get("url") or c.get("source_path") or "")) for c in turn.citations
        ):
            if page:
                cited[page] += 1
    for turn in turns:
        for c in turn.citations:
            titles.setdefault(
                page_of(str(c.get("url") or c.get("source_path") or "")), str(c.get("title") or "")
            )
    for doc in documents:
        titles.setdefault(page_of(doc.url or doc.source_path), doc.title)
    never = [
        PageCount(page=page_of(d.url or d.source_path), title=d.title)
        for d in documents
        if page_of(d.url or d.source_path) not in cited
    ]
    days: dict[str, Day] = {}
    for turn in turns:
        key = turn.asked_at.date().isoformat()
        day = days.setdefault(key, Day(date=key, questions=0, refused=0, low_confidence=0))
        day.questions += 1
        day.refused += is_refused(turn)
        day.low_confidence += is_low(turn, low_below)
    return Report(
        since=since.isoformat(),
        until=until.isoformat(),
        totals=Totals(
            questions=len(turns),
            sessions=len({t.thread_id for t in turns}),
            answered=len(turns) - len(refused),
            refused=len(refused),
            low_confidence=len(low),
            helpful=sum(t.rating == "up" for t in turns),
            unhelpful=sum(t.rating == "down" for t in turns),
        ),
        topics=_topics(turns, embed, low_below),
        gaps=_topics([*refused, *low], embed, low_below),
        negative_feedback=[
            FeedbackItem(
                asked_at=t.asked_at.isoformat(), question=t.question, answer=t.answer, comment=t.comment
            )
            for t in turns
            if t.rating == "down"
        ],
        most_cited=[
            PageCount(page=p, title=titles.get(p, ""), citations=n) for p, n in cited.most_common(TOP_PAGES)
        ],
        never_cited=sorted(never, key=lambda p: p.page),
        days=sorted(days.values(), key=lambda d: d.date),
    )


# --- HTML: one file, inline CSS and SVG, nothing fetched --------------------------------------------


def _bars(rows: Sequence[tuple[str, int, int]], title: str, first: str, second: str) -> str:
    """A horizontal bar chart of (label, part one, part two) as inline SVG."""
    if not rows:
        return f"<p class=muted>No data for “{html.escape(title)}”.</p>"
    top = max(a + b for _, a, b in rows) or 1
    width, label_w, bar_h = 720, 260, 22
    parts = [
        f'<svg role="img" aria-label="{html.escape(title)}" viewBox="0 0 {width} {len(rows) * (bar_h + 6) + 24}" '
        f'width="100%">'
    ]
    for i, (label, a, b) in enumerate(rows):
        y = i * (bar_h + 6)
        wa = (width - label_w - 60) * a / top
        wb = (width - label_w - 60) * b / top
        parts.append(
            f'<text x="{label_w - 8}" y="{y + 16}" text-anchor="end">{html.escape(label[:40])}</text>'
            f'<rect x="{label_w}" y="{y}" width="{wa:.1f}" height="{bar_h}" class="a"><title>{first}: {a}</title></rect>'
            f'<rect x="{label_w + wa:.1f}" y="{y}" width="{wb:.1f}" height="{bar_h}" class="b"><title>{second}: {b}</title></rect>'
            f'<text x="{label_w + wa + wb + 6:.1f}" y="{y + 16}">{a + b}</text>'
        )
    y = len(rows) * (bar_h + 6) + 16
    parts.append(
        f'<rect x="{label_w}" y="{y - 10}" width="12" height="12" class="a"/><text x="{label_w + 18}" y="{y}">{first}</text>'
        f'<rect x="{label_w + 140}" y="{y - 10}" width="12" height="12" class="b"/>'
        f'<text x="{label_w + 158}" y="{y}">{second}</text></svg>'
    )
    return "".join(parts)


def _table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    if not rows:
        return "<p class=muted>None.</p>"
    head = "".join(f"<th>{html.escape(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def render_html(report: Report) -> str:
    t = report.totals
    share = (t.refused + t.low_confidence) / t.questions if t.questions else 0.0
    days = [(d.date, d.questions - d.refused, d.refused) for d in report.days]
    topics = [(tp.label, tp.questions - tp.refused, tp.refused) for tp in report.topics[:12]]
    return f"""<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>Lectern report</title>
<style>
body{{font-family:system-ui,sans-serif;max-width:960px;margin:2rem auto;padding:0 1rem;color:#1c1e21}}
h1{{margin-bottom:0}} .muted{{color:#555a64}} table{{border-collapse:collapse;width:100%;margin:.5rem 0 1.5rem}}
th,td{{text-align:left;border-bottom:1px solid #d0d4dc;padding:6px;vertical-align:top;font-size:14px}}
.cards{{display:flex;gap:1rem;flex-wrap:wrap;margin:1rem 0}} .card{{border:1px solid #d0d4dc;border-radius:8px;padding:.6rem 1rem}}
.card b{{display:block;font-size:1.6rem}} svg text{{font-size:13px;fill:#1c1e21}} rect.a{{fill:#2e5bd8}} rect.b{{fill:#d9534f}}
</style></head><body>
<h1>What readers asked</h1>
<p class=muted>{html.escape(report.since[:16])} to {html.escape(report.until[:16])} (UTC)</p>
<div class=cards>
<div class=card><b>{t.questions}</b>questions</div><div class=card><b>{t.sessions}</b>conversations</div>
<div class=card><b>{t.refused}</b>not answered</div><div class=card><b>{
        t.low_confidence
    }</b>low confidence</div>
<div class=card><b>{share:.0%}</b>gap rate</div><div class=card><b>{t.helpful} / {
        t.unhelpful
    }</b>👍 / 👎</div>
</div>
<h2>Questions per day</h2>{_bars(days, "Questions per day", "answered", "not answered")}
<h2>Topics</h2>{_bars(topics, "Questions per topic", "answered", "not answered")}
{
        _table(
            ["Topic", "Questions", "Not answered", "Low confidence", "Examples"],
            [
                (tp.label, tp.questions, tp.refused, tp.low_confidence, " · ".join(tp.examples))
                for tp in report.topics
            ],
        )
    }
<h2>Documentation gaps</h2>
<p class=muted>Questions the documents could not answer, or answered with low confidence, by topic:
candidates for new or clearer pages.</p>
{
        _table(
            ["Topic", "Questions", "Examples"],
            [(g.label, g.questions, " · ".join(g.examples)) for g in report.gaps],
        )
    }
<h2>Answers readers marked unhelpful</h2>
{
        _table(
            ["Asked", "Question", "Comment", "Answer"],
            [
                (f.asked_at[:16], f.question, f.comment or "", f.answer[:300])
                for f in report.negative_feedback
            ],
        )
    }
<h2>Most cited pages</h2>{
        _table(
            ["Page", "Title", "Answers citing it"],
            [(p.page, p.title, p.citations) for p in report.most_cited],
        )
    }
<h2>Pages never cited</h2>{_table(["Page", "Title"], [(p.page, p.title) for p in report.never_cited])}
</body></html>
"""


async def make_report(
    store: ConversationStore,
    index: VectorIndex | None,
    embedder: Embedder | None,
    *,
    since: datetime,
    until: datetime,
    low_below: float,
) -> Report:
    """Read the window's turns from the store and the page list from the index, then build the report
    (embedding runs off the event loop)."""
    turns = await store.report_turns(since, until)

    def build() -> Report:
        documents = index.documents() if index is not None else []
        embed = embedder.embed_documents if embedder is not None else None
        return build_report(
            turns, since=since, until=until, documents=documents, embed=embed, low_below=low_below
        )

    return await asyncio.to_thread(build)
