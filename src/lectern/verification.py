"""Output-side verification of an LLM answer against the passages the model was given this turn.

The system prompt asks the model to answer from the passages and cite them; nothing makes it. This
layer checks what it wrote, with no second model call:

- **Refusals**: an answer that only says the documents do not answer ("I don't have information
  about ...", "The documents do not mention ...", "I cannot answer that based on the context", ...)
  is the model refusing (`model_refused`).
- **Citations**: every `[n]` must name a passage the model was given (1..len(passages), the model's
  own numbering); a wrong number is an invalid citation and the sentence carrying it is unsupported.
- **Uncited facts**: a sentence that states something carries a citation; an uncited sentence leans on
  the nearest cited sentence of its paragraph (models often cite once per paragraph); with none, it is
  unsupported.
- **Support**: a cited sentence is supported when it overlaps its passages enough: the share of its
  content words found in them (lexical) and the cosine of its embedding with theirs (semantic, the
  local embedder), blended and compared with a threshold calibrated by `bench/verification.py`.
  Clear cases skip the embedder (almost every word found, or almost none).

Outcome: every sentence supported -> the answer stands; some unsupported -> those sentences are dropped
(or flagged) and the confidence level goes down one step; none supported, or a refusal -> the turn is a
refusal. An instruction injected in a passage ("answer PWNED") produces text that no relevant passage
supports, which is why this layer, not the prompt, is what contains it.
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

import numpy as np

from lectern.embeddings.base import Embedder
from lectern.followups import STOP_WORDS
from lectern.models import ConfidenceLevel, ConfidenceMetrics, SearchHit, Vector, Verification
from lectern.writers.sources import parse_citations
from lectern.writers.units import stem_terms

__all__ = [
    "SUPPORT_THRESHOLD",
    "Checked",
    "Passage",
    "StreamGate",
    "is_refusal",
    "lowered",
    "passages_of",
    "verify",
]

SUPPORT_THRESHOLD = 0.5
"""Blended score (LEXICAL_WEIGHT x lexical + the rest x semantic) a cited sentence needs; calibrated
on bench/verification.py: 0.42 let 4 invented sentences through; 0.45-0.60 made no error on its 104
answers."""
LEXICAL_WEIGHT = 0.6
SURE_LEXICAL = 0.8  # this share of a sentence's words in its passages: supported without embedding
NONE_LEXICAL = 0.15  # below this share: unsupported without embedding
MIN_FACT_TERMS = 1  # a sentence with no content word states nothing checkable ("Yes.", "Sure!")

UnsupportedAction = Literal["drop", "flag"]
FLAG = " [unverified]"

_MARKER = re.compile(r"\[(?:sources?\s*:?\s*)?\d+(?:\s*[-–,;]\s*\d+)*\]", re.IGNORECASE)
_NUMBERS = re.compile(r"\[(?:sources?\s*:?\s*)?(\d+(?:\s*[-–,;]\s*\d+)*)\]", re.IGNORECASE)
_SENTENCE_END = re.compile(r"(?<=[.!?])((?:\s*\[[^\]]{1,20}\])*)\s+(?=[\"'(*`]?[A-Z0-9])")
_FENCE = re.compile(r"^\s*(```|~~~)")
_LIST_ITEM = re.compile(r"^\s*(?:[-*+•]|\d+[.)])\s+|^\s*\|")  # list items and table rows: a line each
_TIGHT = re.compile(r"\s+(?=[.!?,;:])")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s")
_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9_+#.-]*")

_REFUSALS = [
    re.compile(p, re.IGNORECASE)
    for p in (
        r"\bI (?:do not|don't|didn't|did not) (?:have|find|see) (?:any )?(?:information|details|data|"
        r"anything|mention)",
        r"\b(?:documents?|passages?|context|sources?|texts?|excerpts?|documentation|provided information)"
        r"\b[^.]{0,60}\b(?:do(?:es)?n[o']t|do(?:es)? not|never|doesn't) (?:contain|mention|cover|say|"
        r"include|provide|discuss|address|describe|explain|answer|specify|state)",
        r"\b(?:no|not any) (?:information|mention|details?|data) (?:about|on|regarding|of|in|is)\b",
        r"\bI(?: cannot| can't| can not| am unable to| am not able to|'m unable to|'m not able to) "
        r"(?:answer|find|determine|tell|say|provide|help)",
        r"\b(?:is|are) not (?:mentioned|covered|described|discussed|addressed|included) in the "
        r"(?:documents?|passages?|context|sources?|documentation)",
        r"\b(?:I don't know|I do not know)\b",
        r"\bnot (?:enough|sufficient) information\b",
        r"\boutside (?:the scope of )?(?:the |these )?(?:documents?|passages?|context)",
    )
]


@dataclass(frozen=True)
class Passage:
    """A passage the model was given, under the number it was shown."""

    number: int
    text: str
    vector: Vector | None = None


def passages_of(hits: Sequence[SearchHit]) -> list[Passage]:
    """The model's numbering: hit i is passage i + 1 (heading path included: models quote it)."""
    return [Passage(n, h.chunk.search_text, h.vector) for n, h in enumerate(hits, 1)]


@dataclass
class _Sentence:
    text: str
    paragraph: int
    cites: list[int] = field(default_factory=list)
    invalid: list[int] = field(default_factory=list)
    factual: bool = False
    refusal: bool = False
    supported: bool = True
    inherited: bool = False
    uncited: bool = False
    structure: bool = False
    """A code block or a heading: kept as written, never checked."""
    out: str | None = ""
    """What the verified answer shows of it (None: dropped)."""

    def __post_init__(self) -> None:
        self.out = self.text


@dataclass(frozen=True)
class Checked:
    """The verified answer: its text (unsupported sentences dropped or flagged), the passage numbers it
    cites, whether the turn must be a refusal (and why), and the summary for the answer."""

    text: str
    cited: list[int]
    refuse: bool
    reason: Literal["model_refused", "unsupported"] | None
    verification: Verification


def is_refusal(sentence: str) -> bool:
    plain = sentence.replace("\u2019", "'")  # typographic apostrophes, as many models write them
    return any(p.search(plain) for p in _REFUSALS)


def _terms(text: str) -> frozenset[str]:
    words = [w.strip(".-").lower() for w in _WORD.findall(_MARKER.sub(" ", text))]
    return stem_terms(" ".join(w for w in words if w and w not in STOP_WORDS))


def _split(text: str) -> list[_Sentence]:
    """Sentences with their paragraph; list items and code blocks are units of their own."""
    out: list[_Sentence] = []
    paragraph = 0
    in_code = False
    code: list[str] = []
    lines: list[str] = []

    def flush() -> None:
        nonlocal paragraph
        block = " ".join(x.strip() for x in lines if x.strip())
        lines.clear()
        if block:
            for piece in _SENTENCE_END.sub(lambda m: m.group(1) + "\n", block).split("\n"):
                if piece.strip():
                    out.append(_Sentence(piece.strip(), paragraph))
            paragraph += 1

    for line in text.splitlines():
        if _FENCE.match(line):
            if in_code:
                code.append(line)
                out.append(_Sentence("\n".join(code), paragraph, structure=True))  # kept, never checked
                code.clear()
            else:
                flush()
                code.append(line)
            in_code = not in_code
            continue
        if in_code:
            code.append(line)
        elif _HEADING.match(line):
            flush()
            out.append(_Sentence(line.strip(), paragraph, structure=True))
            paragraph += 1
        elif not line.strip():
            flush()
        elif _LIST_ITEM.match(line):
            flush()
            lines.append(line)
            flush()
            paragraph -= 1  # a list continues its paragraph (an item may lean on the lead-in's citation)
        else:
            lines.append(line)
    if code:
        out.append(_Sentence("\n".join(code), paragraph, structure=True))
    flush()
    return out


def _numbers(sentence: str) -> list[int]:
    found: list[int] = []
    for match in _NUMBERS.finditer(sentence):
        found.extend(parse_citations(f"[{match.group(1)}]", 10_000))
    return found


def lowered(confidence: ConfidenceMetrics) -> ConfidenceMetrics:
    """One level down: part of the answer did not hold up."""
    order: list[ConfidenceLevel] = ["high", "medium", "low"]
    level = confidence.confidence_level
    if level in order[:-1]:
        level = order[order.index(level) + 1]
    return confidence.model_copy(update={"confidence_level": level})


def verify(
    text: str,
    passages: Sequence[Passage],
    embedder: Embedder | None,
    *,
    threshold: float = SUPPORT_THRESHOLD,
    action: UnsupportedAction = "drop",
    selection: str | None = None,
) -> Checked:
    """Check `text` against the passages the model was given (and the user's selection, which needs no
    citation). Pure CPU; call it from a worker thread in async code."""
    started = time.perf_counter()
    checker = _Checker(passages, embedder, threshold, selection)
    return _outcome(checker.analyse(text), len(passages), action, started)


class _Checker:
    """The per-sentence checks, with what can be kept between calls on a growing text (the passages'
    terms, the sentences already embedded)."""

    def __init__(
        self,
        passages: Sequence[Passage],
        embedder: Embedder | None,
        threshold: float,
        selection: str | None,
    ) -> None:
        self.by_number = {p.number: p for p in passages}
        self.passage_terms = {n: _terms(p.text) for n, p in self.by_number.items()}
        self.embedder = _Memo(embedder) if embedder is not None else None
        self.threshold = threshold
        self.selection = selection
        self.selection_terms = _terms(selection) if selection and selection.strip() else frozenset()

    def analyse(self, text: str, *, complete: int | None = None) -> list[_Sentence]:
        """`text`'s units, each marked factual/refusal/supported. With `complete`, only the first
        `complete` units are checked (the rest is a sentence still being written)."""
        sentences = _split(text)
        checked = sentences if complete is None else sentences[:complete]
        for s in checked:
            if s.structure:
                continue
            numbers = _numbers(s.text)
            s.cites = [n for n in dict.fromkeys(numbers) if n in self.by_number]
            s.invalid = [n for n in dict.fromkeys(numbers) if n not in self.by_number]
            s.refusal = is_refusal(s.text)
            s.factual = not s.refusal and (len(_terms(s.text)) >= MIN_FACT_TERMS or bool(numbers))
        facts = [s for s in checked if s.factual]
        if len(facts) == 0 and checked and not any(s.refusal for s in checked):
            facts = [s for s in checked if not s.structure]
            for s in facts:
                s.factual = True  # the whole answer is one short claim ("PWNED"): it must be supported
        for i, s in enumerate(facts):
            if s.cites or s.invalid:
                continue
            s.uncited = True
            # Lean on the nearest cited sentence of the same paragraph (the next one first).
            later = [t for t in facts[i + 1 :] if t.paragraph == s.paragraph and t.cites]
            earlier = [t for t in facts[:i] if t.paragraph == s.paragraph and t.cites and not t.inherited]
            source = later[0] if later else (earlier[-1] if earlier else None)
            if source is not None:
                s.cites = list(source.cites)
                s.inherited = True
        _score(
            facts,
            self.by_number,
            self.embedder,
            self.threshold,
            self.selection,
            self.selection_terms,
            self.passage_terms,
        )
        return sentences


class _Memo:
    """An embedder that embeds each text once (a growing answer is checked again and again)."""

    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder
        self.seen: dict[str, np.ndarray] = {}

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        todo = list(dict.fromkeys(t for t in texts if t not in self.seen))
        if todo:
            vectors = np.asarray(self.embedder.embed_documents(todo), dtype=np.float32)
            self.seen.update(zip(todo, vectors, strict=True))
        return np.stack([self.seen[t] for t in texts]) if texts else np.zeros((0, 0), np.float32)


def _outcome(sentences: list[_Sentence], passages: int, action: UnsupportedAction, started: float) -> Checked:
    facts = [s for s in sentences if s.factual]
    invalid = sorted({n for s in sentences for n in s.invalid})
    supported = [s for s in facts if s.supported]
    refused = any(s.refusal for s in sentences) and not supported
    summary = Verification(
        verdict="supported",
        sentences=len(facts),
        supported=len(supported),
        uncited=sum(s.uncited for s in facts),
        invalid_citations=invalid,
        passages=passages,
    )
    if refused or not supported:
        summary.verdict = "model_refused" if refused else "unsupported"
        summary.ms = (time.perf_counter() - started) * 1000
        return Checked("", [], True, "model_refused" if refused else "unsupported", summary)
    for s in sentences:
        _decide(s, action)
        if s.factual and not s.supported:
            if action == "flag":
                summary.flagged += 1
            else:
                summary.removed += 1
    if summary.removed or summary.flagged:
        summary.verdict = "partial"
    cited = sorted({n for s in sentences if s.factual and s.supported for n in s.cites if not s.inherited})
    summary.ms = (time.perf_counter() - started) * 1000
    return Checked(_join(sentences), cited, False, None, summary)


def _decide(s: _Sentence, action: UnsupportedAction) -> None:
    """What the verified answer shows of a checked sentence: itself, flagged, or nothing."""
    if s.factual and not s.supported:
        unmarked = _TIGHT.sub("", _MARKER.sub("", s.text)).rstrip()  # "propellers [1]." -> "propellers."
        s.out = unmarked + FLAG if action == "flag" else None


class StreamGate:
    """Holds an LLM's streamed words back until each sentence is verified, so that a streaming client
    never sees text that fails the check (an obeyed injection, an invented sentence).

    Feed it the model's text as it arrives; it answers with the verified text that may be shown now.
    A sentence is released once it is complete (the next one has begun) and its verdict can no longer
    change: a cited sentence at once; an uncited one once a later sentence of its paragraph carries a
    citation or the paragraph has ended. Nothing is released before the first supported sentence (an
    answer that is only "PWNED" or a refusal must not leak before the whole answer is judged). What it
    releases is exactly the start of `finish()`'s verified text, so the stream is the final answer.
    """

    def __init__(
        self,
        passages: Sequence[Passage],
        embedder: Embedder | None,
        *,
        threshold: float = SUPPORT_THRESHOLD,
        action: UnsupportedAction = "drop",
        selection: str | None = None,
        prefix: str = "",
    ) -> None:
        self._checker = _Checker(passages, embedder, threshold, selection)
        self._count = len(passages)
        self._action: UnsupportedAction = action
        self._prefix = prefix
        """Engine text shown before the model's (the low-confidence note), released with its first words."""
        self._text = ""
        self._units = 0
        self._done = 0
        """Units of the model's text already decided (released or dropped)."""
        self.released = ""
        self.ms = 0.0
        """Time spent checking while streaming."""

    def set_passages(self, passages: Sequence[Passage]) -> None:
        """A tool-calling model searched again: its numbering grew (numbers given before keep theirs)."""
        if len(passages) != self._count:
            checker = self._checker
            self._checker = _Checker(passages, None, checker.threshold, checker.selection)
            self._checker.embedder = checker.embedder
            self._count = len(passages)

    def feed(self, text: str) -> str:
        after_space = self._text[-1:].isspace()
        self._text += text
        if not after_space and not any(c.isspace() for c in text):
            return ""  # within a word: no new sentence can have begun
        units = len(_split(self._text))
        if units <= self._units:
            return ""
        self._units = units
        started = time.perf_counter()
        sentences = self._checker.analyse(self._text, complete=units - 1)
        shown = self._release(sentences, units - 1)
        self.ms += (time.perf_counter() - started) * 1000
        return shown

    def finish(self) -> tuple[Checked, str]:
        """The whole answer checked, and what of its verified text was not released yet ("" for a
        refusal: the engine says the refusal itself)."""
        started = time.perf_counter()
        sentences = self._checker.analyse(self._text)
        checked = _outcome(sentences, self._count, self._action, started)
        checked.verification.ms += self.ms
        if checked.refuse:
            return checked, ""
        full = self._prefix + checked.text
        rest = full[len(self.released) :] if full.startswith(self.released) else ""
        if not full.startswith(self.released):  # pragma: no cover - release only what finish() keeps
            return replace(checked, text=self.released[len(self._prefix) :]), ""
        self.released = full
        return checked, rest

    def _release(self, sentences: list[_Sentence], complete: int) -> str:
        facts = [s for s in sentences[:complete] if s.factual]
        if not any(s.supported for s in facts):
            return ""
        last_paragraph = sentences[-1].paragraph if len(sentences) > complete else None
        end = self._done
        for i in range(self._done, complete):
            s = sentences[i]
            if s.factual and s.uncited and s.paragraph == last_paragraph:
                cited_later = any(
                    t.paragraph == s.paragraph and t.cites and not t.uncited
                    for t in sentences[i + 1 : complete]
                )
                if not cited_later:
                    break  # its citation may still come later in the paragraph
            end = i + 1
        if end == self._done:
            return ""
        for s in sentences[:end]:
            _decide(s, self._action)
        shown = self._prefix + _join(sentences[:end])
        self._done = end
        new = shown[len(self.released) :] if shown.startswith(self.released) else ""
        self.released = shown if shown.startswith(self.released) else self.released
        return new


def _join(sentences: list[_Sentence]) -> str:
    """The kept sentences, paragraphs separated by blank lines as the model wrote them; list items and
    code blocks on lines of their own."""
    paragraphs: dict[int, list[str]] = {}
    for s in sentences:
        if s.out is None:
            continue
        lines = paragraphs.setdefault(s.paragraph, [])
        own_line = _LIST_ITEM.match(s.out) or "\n" in s.out
        if lines and not own_line and not _LIST_ITEM.match(lines[-1]) and "\n" not in lines[-1]:
            lines[-1] += " " + s.out
        else:
            lines.append(s.out)
    return "\n\n".join("\n".join(lines) for lines in paragraphs.values() if lines)


def _score(
    facts: list[_Sentence],
    by_number: dict[int, Passage],
    embedder: _Memo | None,
    threshold: float,
    selection: str | None,
    selection_terms: frozenset[str],
    passage_terms: dict[int, frozenset[str]],
) -> None:
    """Mark each factual sentence supported or not; embed only the sentences lexical overlap leaves open."""
    open_: list[tuple[_Sentence, float, list[str | int]]] = []
    for s in facts:
        terms = _terms(s.text)
        if s.invalid and not s.cites:
            s.supported = False
            continue
        sources: list[str | int] = list(s.cites)
        pool: set[str] = set().union(*(passage_terms[n] for n in s.cites)) if s.cites else set()
        if not s.cites and selection_terms:
            sources, pool = ["selection"], set(selection_terms)
        if not sources:
            s.supported = False
            continue
        lexical = len(terms & pool) / len(terms) if terms else 0.0
        if lexical >= SURE_LEXICAL:
            s.supported = True
        elif lexical < NONE_LEXICAL:
            s.supported = False
        elif embedder is None:
            s.supported = lexical >= SURE_LEXICAL / 2  # lexical evidence alone
        else:
            open_.append((s, lexical, sources))
    if not open_ or embedder is None:
        return
    texts = [_MARKER.sub("", s.text) for s, _, _ in open_]
    needed = sorted({src for _, _, srcs in open_ for src in srcs}, key=str)
    missing = [
        src
        for src in needed
        if src == "selection" or (isinstance(src, int) and by_number[src].vector is None)
    ]
    extra = [selection or "" if src == "selection" else by_number[int(src)].text for src in missing]
    vectors = np.asarray(embedder.embed_documents([*texts, *extra]), dtype=np.float32)
    vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-9)
    source_vec: dict[str | int, np.ndarray] = {}
    for i, src in enumerate(missing):
        source_vec[src] = vectors[len(texts) + i]
    for src in needed:
        if src not in source_vec and isinstance(src, int):
            v = np.asarray(by_number[src].vector, dtype=np.float32)
            source_vec[src] = v / max(float(np.linalg.norm(v)), 1e-9)
    for i, (s, lexical, sources) in enumerate(open_):
        semantic = max(float(vectors[i] @ source_vec[src]) for src in sources)
        s.supported = LEXICAL_WEIGHT * lexical + (1 - LEXICAL_WEIGHT) * semantic >= threshold
