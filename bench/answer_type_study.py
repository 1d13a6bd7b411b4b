"""Answer-type and named-thing signals for the answerability decision (a study; nothing here ships).

    .venv/bin/python bench/answer_type_study.py $BASE $DEV2 --splits tune dev2 [--reuse] [--target 0.94]

($BASE: the eleven pairs of the training command, docs/confidence-calibration.md; $DEV2: the four
dev2-textbook-* pairs; run from bench/.) Builds `train_answerability.examples`' rows (retrievals from
`lobo_answerability`'s cache) with `TYPE_EXTRA` appended, then for the shipped signals and each
candidate added runs `answerability_study.held_out` (leave one book out, trained as shipped: tune splits
only, the dev2 sets measured, never trained on; 200 stumps; threshold keeping 94 % of the training
books' answerable examples) and prints `answerability_study.report`'s lines.

The idea: a refused answerable question often asks for a thing of a kind ("Is there one command
that...", "How often should ... publish", "What are the building blocks of ...") that a best-matching
sentence of the passages holds (`ros2 doctor`, "100 Hz", a list), and a near miss that gets through
names a product or protocol ("CAN bus", "Unreal Engine") that no passage writes. Signals (general
English, over the writer's units and the stored sentence vectors; `type_signals`):
- answer type from the wording (`answer_type`: command / number / tool / list / yes-no; `strict_type`:
  only where the question asks for the thing itself, "which command", "how often");
- `at_found`: a unit among the three most like the question (or the three covering half its words)
  holds a candidate of the type (code span / snake_case / code block after a lead-in; a digit or number
  word; a capitalised name; a bulleted or comma list); 0.5 untyped; `at_found_near`: ... that unit also
  holds a question word of rarity >= 0.3; `at_close`: strict type, a candidate token within 8 tokens of
  a question word; `at_sent` / `at_close_sent` / `at_gap`: the cosine of the best unit with a
  candidate, and sent_max minus it;
- `unit_cov` / `unit_cov_best3`: rarity-weighted share of the question's words in one unit;
- `acr_miss`: an acronym of the question, case kept ("CAN"), no passage writes; `name_miss`: the rarest
  name-like question word (`guardrail.is_name`) absent from the passages' text; `name_phrase_miss`: a
  run of capitalised words ("Unreal Engine") no passage writes; `rare_unit_miss`: the rarest question
  word that none of the three best units holds.

Findings (Nov 2026, main 08a7dec, MiniLM; held out: reader + train sets ~390 answerable, 120 near
misses, one near miss 0.8 points, one answerable 0.26; dev2 109 answerable, 48 near misses, one near
miss 2.1 points):

    variant                      reader + train held out        | dev2 held out
                                 answ.  nm   AUROC  answ.@nm90  | answ.  nm   AUROC  answ.@nm90
    shipped                      91.3  89.2  96.71  89.5        | 78.2  79.2  92.22  62.7
    + at_found                   91.8  90.8  96.74  92.1        | 79.1  79.2  92.32  60.9
    + at_found_near              91.5  90.0  96.71  91.0        | 78.2  81.2  92.37  61.8
    + at_sent                    89.2  90.0  96.73  87.2        | 78.2  83.3  92.43  59.1
    + at_gap                     90.0  88.3  96.71  86.2        | 78.2  83.3  92.44  60.0
    + at_close (strict type)     91.3  90.0  96.77  89.7        | 79.1  79.2  92.22  60.0
    + at_close_sent              89.7  90.0  96.74  87.9        | 78.2  81.2  92.36  60.0
    + unit_cov                   91.5  85.0  96.42  82.1        | 78.2  77.1  92.12  61.8
    + unit_cov_best3             91.8  85.0  96.60  83.6        | 78.2  79.2  92.30  62.7
    + acr_miss                   91.0  89.2  96.71  90.0        | 78.2  79.2  91.99  63.6
    + name_miss                  90.8  90.0  96.64  89.0        | 79.1  79.2  92.50  60.9
    + name_phrase_miss           92.1  88.3  96.79  90.8        | 79.1  79.2  92.60  62.7
    + rare_unit_miss             90.0  90.8  96.62  91.0        | 79.1  79.2  92.20  60.9
    + at_found + at_gap          89.7  88.3  96.75  86.2        | 80.0  81.2  92.50  60.9
    + at_found_near + acr_miss   91.0  90.0  96.71  90.8        | 78.2  79.2  92.02  61.8
    + at_close + name_phrase_m.  90.8  89.2  96.78  88.7        | 79.1  79.2  92.61  60.0
    + at_found_near + name_ph.m. 92.1  88.3  96.79  90.3        | 79.1  81.2  92.81  61.8

Nothing lifts both groups beyond noise; nothing ships. Paired bootstrap of the AUROC change (500
resamples of the held-out questions): at_found +0.03 (95 % -0.06..+0.12) / dev2 +0.10 (-0.21..+0.40);
name_phrase_miss +0.08 (-0.11..+0.29) / +0.38 (-0.42..+1.67); at_found_near + name_phrase_miss +0.08
(-0.13..+0.31) / +0.60 (-0.19..+1.87); acr_miss -0.00 / -0.23. The one variant better everywhere at
0.94, `at_found` (3 answerable more answered, 2 near misses more refused, none worse), is refit jitter:
both near misses it newly refuses are untyped ("Docker container ... NVIDIA GPU", "hand-eye
calibration"), so its signal is the same as the shipped model's for them, and at target 0.945 it is 1
better / 4 worse, as plain logistic (0 stumps) 3 / 4 at 0.94.

Why (the rows, all books): the answer type reaches few of the questions and separates nothing but the
out-of-scope ones, which are refused anyway. Typed (loose): 124 of 636 answerable, 18 of 220 near
misses; strict: 115 and 14. A candidate of the type in a best unit: answerable 73 %, constructed near
misses (relevant files removed) 69 %, near misses 72 %, out-of-scope 1 of 12 (loose); strict and
close to a question word: 52 / 45 / 57 %, 1 of 12. A technical book's best passages on the topic hold
a number, a code name or a list whether or not they answer. Of the refused answerable questions
(shipped, held out) only 4 of 34 (reader + train) and 4 of 24 (dev2) are typed with a candidate: the
rest ask "how do I" / "why" (no answer type) or yes/no. The brief's examples move by +0.01 to +0.05 of
log-odds margin, needing +0.06 to +0.18 ("one command that diagnoses": candidate found, but no rare
question word in its unit; "how often ... publish": found and near, top_sim 0.37 decides; "building
blocks": found). Named things: `acr_miss` fires for 3 answerable, 44 near misses, 10 out-of-scope, but
only 5 near misses (and 3 answerable, 18 constructed) beyond `miss_name_unknown`; `name_phrase_miss`
for 4 answerable, 36 near misses, 2 beyond it. Of the near misses the shipped decision answers (held
out), they reach 1 of 13 (reader + train: "Docker ... NVIDIA GPU") and 3 of 10 (dev2: CI, "CAN bus"
by `acr_miss`, "Unreal Engine" by `name_phrase_miss`, whose margin drops 0.40 -> 0.26, still answered);
the rest are in ordinary words (gear ratios, body skeleton, thermal camera, drone: "drone" and "Isaac
Sim" are both in the passages). What `miss_rare` / `miss_name_unknown` already see, these mostly repeat;
what they miss is meaning, as the phrase study found. Cost: `type_signals` (all ten, unoptimised) p50
0.13 ms, p90 0.46 ms per answer on textbook-a's reader questions (warm caches).
"""

from __future__ import annotations

import argparse
import pickle
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

import answerability_study as study
import lobo_answerability as lobo
import train_answerability as ta
from common import RESULTS, build
from lectern.answerability import FEATURES, PASSAGES, Signals, question_terms, rarity
from lectern.engine import Engine
from lectern.models import RetrievalResult, SearchHit
from lectern.sentences import UnitVectors
from lectern.writers.units import Unit, stem_terms

Row = dict[str, Any]

TYPE_EXTRA = (
    "at_found",  # typed question: 1 a candidate of its type in a best unit, 0 none; untyped 0.5
    "at_found_near",  # ... the candidate's unit also holds a rare-ish question word
    "at_sent",  # typed: cosine of the best unit holding a candidate; untyped: sent_max
    "at_gap",  # typed: sent_max - at_sent (0 untyped): the answer's type is further than the topic
    "unit_cov",  # rarity-weighted share of the question's words in the single best-covering unit
    "unit_cov_best3",  # ... among the three units most like the question
    "acr_miss",  # an acronym of the question (case kept: "CAN") no passage writes
    "name_miss",  # a name of the question (capitalised, acronym, code) whose words no passage holds
    "name_phrase_miss",  # a multiword name ("Unreal Engine", "Isaac Sim") no passage writes as a phrase
    "rare_unit_miss",  # the rarest question word that no top-3 unit holds (passages may elsewhere)
    "at_close",  # strict type: 1 a candidate within `WINDOW` tokens of a question word, 0 none; else 0.5
    "at_close_sent",  # strict type: cosine of the best unit with a close candidate; untyped sent_max
)
ALL = (*FEATURES, *TYPE_EXTRA)
TOP_UNITS = 3  # the units most like the question, across the five passages
WINDOW = 8  # tokens between an answer candidate and a question word for "close"

_COMMAND = re.compile(
    r"\b(commands?|cli|terminal|function|method|api|flags?|arguments?|syntax|type in|what do i (type|run)"
    r"|which (package|node|topic|file|service|message|class|module|parameter|option)"
    r"|what (package|node|topic|file|service|message|class|module|parameter|option))\b"
)
_NUMBER = re.compile(
    r"\bhow (many|much|often|long|fast|far|big|large|small|heavy|high|low|quickly|frequently|wide|tall|"
    r"accurate|precise|old)\b|\b(what|which|at what) (rate|frequency|resolution|speed|percentage|percent|"
    r"value|size|number|range|latency|bandwidth|voltage|torque|weight|mass|angle|distance|duration|"
    r"threshold|temperature|price|cost|ratio|limit|period|interval|hz|fps)\b"
)
_TOOL = re.compile(
    r"\b(which|what) (tools?|library|libraries|software|simulators?|frameworks?|packages?|programs?|apps?|"
    r"models?|sensors?|algorithms?|engines?|platforms?|products?|devices?|hardware|boards?|protocols?|"
    r"languages?|formats?)\b"
)
_LIST = re.compile(
    r"\b(what are the|which are the|name the|list)\b|\b(components|parts|steps|stages|building blocks|"
    r"ingredients|layers|pieces|elements|types|kinds|categories|modules|phases|ingredients|pillars)\b"
)
_YES_NO = frozenset(
    ("is", "are", "can", "could", "does", "do", "should", "will", "would", "has", "have", "did", "was",
     "were", "may", "must")
)  # fmt: skip

_CODE = re.compile(
    r"`[^`]+`|\b[a-z]\w*_\w+\b|\b\w+\(\)|(?<![\w-])--?[a-z][\w-]+|\b[a-z]+\d\b|\b\w+\.\w{1,4}\b"
)
_NUMBER_WORD = (
    r"\b(one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|fifty|hundred|"
    r"thousand|million|dozen|half|double|twice|percent)\b"
)
_NUM = re.compile(r"\d|" + _NUMBER_WORD, re.I)
_CAPITAL = re.compile(r"(?<=[\w,;:)] )[A-Z][A-Za-z0-9]+|\b[A-Z]{2,}\b|\b[A-Z][a-z]+[A-Z]\w*")
_ACRONYM = re.compile(r"\b[A-Z][A-Z0-9]{1,}s?\b")
_NAME_RUN = re.compile(r"(?<!^)(?<![.?!] )\b([A-Z][A-Za-z0-9]*(?:[ -][A-Z][A-Za-z0-9]*)+)")
# Strict typing: the question asks for the thing itself ("which command", "one command that",
# "how often"), not a question that merely mentions it ("the robot hears commands").
_STRICT = (
    (
        "command",
        re.compile(
            r"\b(which|what|one|a|the|single|any) (\w+ )?(command|function|method|flag|"
            r"argument|package|node|topic|service|message type|parameter|option|api|call)s?\b"
            r"|\bwhat do i (type|run)\b"
        ),
    ),
    ("number", _NUMBER),
    ("tool", _TOOL),
    (
        "list",
        re.compile(
            r"\b(what|which) (are|were) the (main |key |basic |different |three |two |four )?"
            r"\w*\s?(components|parts|steps|stages|building blocks|ingredients|layers|pieces|"
            r"elements|types|kinds|categories|modules|phases|pillars)\b|\b(list|name) the\b"
        ),
    ),
)
_TOKEN = re.compile(r"`[^`]+`|[A-Za-z0-9_./-]+")


def answer_type(question: str) -> str | None:
    """The kind of answer the question asks for, from its wording (general English)."""
    q = question.lower()
    if _COMMAND.search(q):
        return "command"
    if _NUMBER.search(q):
        return "number"
    if _TOOL.search(q):
        return "tool"
    if _LIST.search(q):
        return "list"
    first = q.split()[0] if q.split() else ""
    return "yesno" if first in _YES_NO else None


def strict_type(question: str) -> str | None:
    q = question.lower()
    return next((kind for kind, pattern in _STRICT if pattern.search(q)), None)


def _is_candidate(kind: str, token: str, first: bool) -> bool:
    if kind == "command":
        return token.startswith("`") or _CODE.fullmatch(token) is not None or "_" in token
    if kind == "number":
        return any(c.isdigit() for c in token) or _NUM.fullmatch(token) is not None
    if kind == "tool":
        return not first and (token[:1].isupper() or token.startswith("`") or "_" in token)
    return False


def close_candidate(kind: str, unit: Unit, after: Unit | None, stems: list[frozenset[str]]) -> bool:
    """A candidate of the kind within `WINDOW` tokens of one of the question's words (`stems`)."""
    if kind == "list":
        listed = unit.bullet or bool(unit.items) or unit.text.count(",") >= 2
        return listed and any(s and s <= unit.terms for s in stems)
    if kind == "command" and after is not None and after.kind == "code":
        return any(s and s <= unit.terms for s in stems)
    tokens = _TOKEN.findall(" ".join((unit.text, *unit.items)))
    hits = [i for i, t in enumerate(tokens) if any(s and s <= stem_terms(t.strip("`")) for s in stems)]
    cands = [i for i, t in enumerate(tokens) if _is_candidate(kind, t, i == 0)]
    return any(abs(i - j) <= WINDOW and i != j for i in hits for j in cands)


def has_candidate(kind: str, unit: Unit) -> bool:
    """Whether the unit holds an answer of that kind."""
    text = " ".join((unit.text, *unit.items))
    if kind == "command":
        return unit.kind == "code" or _CODE.search(text) is not None
    if kind == "number":
        return _NUM.search(text) is not None
    if kind == "tool":
        return _CAPITAL.search(text) is not None or _CODE.search(text) is not None
    if kind == "list":
        return unit.bullet or bool(unit.items) or text.count(",") >= 2 or (":" in text and "," in text)
    return True  # yes/no: any sentence can say yes or no


def _ranked_units(
    query_vector: np.ndarray | None, units: Sequence[UnitVectors] | None
) -> list[tuple[float, Unit, Unit | None]]:
    """(cosine, unit, the unit right after it) for every sentence unit of the five passages, best first;
    a code unit right after a sentence rides with it (its lead-in is what is compared)."""
    out: list[tuple[float, Unit, Unit | None]] = []
    if query_vector is None or not units:
        return out
    q = np.asarray(query_vector, dtype=np.float32).reshape(-1)
    for passage_units, matrix in units[:PASSAGES]:
        sims = matrix @ q if matrix.shape[0] else np.zeros(0)
        for i, u in enumerate(passage_units):
            if u.kind == "sentence" and i < len(sims):
                after = passage_units[i + 1] if i + 1 < len(passage_units) else None
                out.append((float(sims[i]), u, after))
    out.sort(key=lambda t: -t[0])
    return out


def type_signals(
    question: str,
    hits: Sequence[SearchHit],
    query_vector: np.ndarray | None,
    units: Sequence[UnitVectors] | None,
    sent_max: float,
) -> list[float]:
    kind = answer_type(question)
    ranked = _ranked_units(query_vector, units)
    terms = [(w, stem_terms(w), 0.4 + rarity(w)) for w, _ in question_terms(question)]
    total = sum(w for _, _, w in terms) or 1.0

    def coverage(unit: Unit, after: Unit | None) -> float:
        have = unit.terms | (after.terms if after is not None else frozenset())
        return sum(w for _, s, w in terms if s and s <= have) / total

    def rare_near(unit: Unit, after: Unit | None) -> bool:
        have = unit.terms | (after.terms if after is not None else frozenset())
        return any(s and s <= have and rarity(word) >= 0.3 for word, s, _ in terms)

    def candidate(unit: Unit, after: Unit | None) -> bool:
        return kind is not None and (
            has_candidate(kind, unit) or (after is not None and after.kind == "code" and kind == "command")
        )

    best = ranked[:TOP_UNITS]
    near = [t for t in ranked if coverage(t[1], t[2]) >= 0.5][:TOP_UNITS]
    pool = best + near
    if kind is None or kind == "yesno":
        found = found_near = 0.5
        at_sent, at_gap = sent_max, 0.0
    else:
        found = 1.0 if any(candidate(u, a) for _, u, a in pool) else 0.0
        found_near = 1.0 if any(candidate(u, a) and rare_near(u, a) for _, u, a in pool) else 0.0
        with_candidate = [s for s, u, a in ranked if candidate(u, a)]
        at_sent = with_candidate[0] if with_candidate else 0.0
        at_gap = sent_max - at_sent
    unit_cov = max((coverage(u, a) for _, u, a in ranked), default=0.0)
    unit_cov3 = max((coverage(u, a) for _, u, a in best), default=0.0)

    top = list(hits[:PASSAGES])
    raw = "\n".join(h.chunk.search_text for h in top)
    lower = raw.lower()
    words = question.split()
    acronyms = [a for a in _ACRONYM.findall(question) if a.rstrip("s") not in raw and a not in raw]
    acr_miss = 1.0 if acronyms and not (words and words[0] == acronyms[0]) else 0.0
    names = [w for w, name in question_terms(question) if name]
    name_miss = max((rarity(w) for w in names if w.lower() not in lower), default=0.0)
    runs = _NAME_RUN.findall(question)
    name_phrase_miss = 1.0 if any(r.lower() not in lower for r in runs) else 0.0
    best_terms = frozenset().union(*(u.terms for _, u, _ in best)) if best else frozenset()
    rare_unit_miss = max((rarity(w) for w, s, _ in terms if s and not s <= best_terms), default=0.0)
    strict = strict_type(question)
    if strict is None:
        close, close_sent = 0.5, sent_max
    else:
        stems = [s for _, s, _ in terms]
        close_found = [(c, u, a) for c, u, a in ranked if close_candidate(strict, u, a, stems)]
        close = 1.0 if any(t in close_found for t in pool) else 0.0
        close_sent = close_found[0][0] if close_found else 0.0
    return [found, found_near, at_sent, at_gap, unit_cov, unit_cov3, acr_miss, name_miss, name_phrase_miss,
            rare_unit_miss, close, close_sent]  # fmt: skip


# The signals a study appends to the shipped ones: (question, top hits, question vector, their units'
# vectors, the shipped sent_max) -> extra values. Shared with bench/code_signal_study.py.
ExtraSignals = Callable[
    [str, Sequence[SearchHit], np.ndarray | None, Sequence[UnitVectors] | None, float], list[float]
]


def examples(engine: Engine, records: list[Row], name: str, extra: ExtraSignals | None = None) -> list[Row]:
    """`train_answerability.examples`' rows with the `extra` signals appended (default: `TYPE_EXTRA`)."""
    plain = engine._signals
    more = extra or type_signals

    def signals(query: str, result: RetrievalResult) -> Signals:
        s = plain(query, result)
        top = result.hits[:PASSAGES]
        vector = result.query_vector() if result.query_embedding else None
        units = engine.retriever.sentences.of([h.chunk for h in top]) if vector is not None else None
        values = more(query, top, vector, units, s.values[FEATURES.index("sent_max")])
        return Signals(s.values + tuple(values), s.missing, s.unknown)

    engine._signals = signals  # type: ignore[method-assign]
    try:
        return ta.examples(engine, records, name)
    finally:
        engine._signals = plain  # type: ignore[method-assign]


def rows_for(
    pairs: list[tuple[Path, Path]], splits: Sequence[str], extra: ExtraSignals | None = None
) -> list[Row]:
    store: dict[str, RetrievalResult] = {}
    if lobo.CACHE.exists():
        store = pickle.loads(lobo.CACHE.read_bytes())
    rows: list[Row] = []
    for corpus, questions in pairs:
        engine, _, _ = build(corpus)
        book = corpus.resolve().name
        ta.retrieve = lobo.cached_retrieve(store, book)  # type: ignore[assignment]
        records = ta.training_records(questions, splits)
        rows += [{**r, "book": book} for r in examples(engine, records, questions.stem, extra)]
        print(f"{questions.stem}: {len(rows)} rows", flush=True)
    lobo.CACHE.write_bytes(pickle.dumps(store))
    return rows


def arguments_and_rows(saved: str, extra: ExtraSignals | None = None) -> tuple[argparse.Namespace, list[Row]]:
    """A study's command line (CORPUS QUESTIONS pairs, --splits, --target, --reuse) and its rows, saved
    as bench/results/`saved` (read back with --reuse). Shared with bench/code_signal_study.py."""
    parser = argparse.ArgumentParser()
    parser.add_argument("pairs", nargs="+")
    parser.add_argument("--splits", nargs="+", default=list(ta.TRAIN_SPLITS))
    parser.add_argument("--target", type=float, default=0.94)
    parser.add_argument("--reuse", action="store_true")
    args = parser.parse_args()
    pairs = [(Path(args.pairs[i]), Path(args.pairs[i + 1])) for i in range(0, len(args.pairs), 2)]
    rows_file = RESULTS / saved
    if args.reuse and rows_file.exists():
        return args, pickle.loads(rows_file.read_bytes())
    rows = rows_for(pairs, ta.split_names(parser, args.splits), extra)
    rows_file.write_bytes(pickle.dumps(rows))
    return args, rows


def main() -> None:
    args, rows = arguments_and_rows("answer-type-rows.pkl")
    study.ALL = ALL  # type: ignore[assignment]  # the study's fold trainer names its columns from this
    base = list(range(len(FEATURES)))
    at = {name: len(FEATURES) + k for k, name in enumerate(TYPE_EXTRA)}
    variants: dict[str, list[int]] = {"shipped": base}
    for name in TYPE_EXTRA:
        variants[f"+ {name}"] = [*base, at[name]]
    variants["+ at_found + at_gap"] = [*base, at["at_found"], at["at_gap"]]
    variants["+ at_found_near + acr_miss"] = [*base, at["at_found_near"], at["acr_miss"]]
    variants["+ at_close + name_phrase_miss"] = [*base, at["at_close"], at["name_phrase_miss"]]
    variants["+ at_found_near + name_phrase_miss"] = [*base, at["at_found_near"], at["name_phrase_miss"]]
    for label, columns in variants.items():
        study.report(label, args.target, study.held_out(rows, columns, args.target, study.Variant(dev2=0.0)))


if __name__ == "__main__":
    main()
