"""Semantic coverage for the answerability decision: do word vectors rescue the paraphrase's missing words?

    PYTHONHASHSEED=0 .venv/bin/python bench/semantic_coverage_study.py [--results TAG] [--words]

`--words` prints, instead of the arms, each signal's AUROC among rows with a missing word and the passage
word each missing word met best, for the dev questions the shipped decision wrongly refuses and the near
misses.

Rows are cached in bench/results/semcov-rows.json (delete it after a change to retrieval or the signals).
Result: negative. No semantic signal gains in-scope answers without losing near misses, none raises the
AUROC clearly, and all of them lower the held-out near-miss refusal under leave-one-book-out; src/ is
unchanged. Findings at the end.

The lexical coverage signals (`cov`, `cov_top1`, `miss_rare`, ...) count a question word as covered only
when the passages write it (as a word, stem, spelling variant). A reader's everyday words ("crawls along
on my laptop", "thousands of copies", "headroom") are missing from passages that answer the question, and
pull its probability under the threshold. This study measures a signal issue 8 suggested and nobody built:
coverage measured semantically. For each question word the passages lack (`Signals.missing`), its best
cosine to any content word or adjacent content-word pair of the top five passages, the vectors from the
local model on the bare word (batched, cached per word). From these:

- `semcov_lin`: coverage share where a missing word counts at weight f(cos), f a ramp from `RAMP_LO` to
  `RAMP_HI` (each word weighed as the shipped `cov` weighs it: 0.4 + rarity);
- `semcov_t60` / `semcov_t70`: a missing word counts as covered when its best cosine is above 0.6 / 0.7;
- `sem_miss_rare`: rarity of the missing word with the lowest best cosine (0 when none is missing);
- `sem_gap`: the largest rarity * (1 - f(cos)) over missing words (the `miss_rare` the ramp leaves);
- `min_cos`: the lowest best cosine of a missing word (1 when none is missing);
- `min_z` / `semcov_z`: the best cosine in standard deviations above the word's mean cosine to the units
  (the lowest over missing words; a coverage share with a ramp from 3 to 6);
- `semcov_everyday`: `semcov_lin`, but only an everyday missing word (rarity under `OFF_TOPIC_RARITY`)
  earns credit by meaning: a rare one (a name, a term) must be written;
- `phrase_sent`: each missing word with its neighbouring question content words as a phrase, its best
  cosine to the passages' stored sentence vectors (the lowest over the missing words; 1 when none).

Training replays `bench/train_answerability.py` (the shipped training sets, split `tune`; its examples,
fitting functions, stumps and threshold rule: keep 94 % of the answerable training examples) with the
shipped twelve signals and with each candidate added (or replacing the lexical one it refines). It then
replays the decision (probability against that threshold; the engine's retry with the previous topic is
not replayed, the same for every arm) on the development sets that are not trained on, from the queries
the engine searched in a `bench/answer_quality.py` result (`/work/notes/TAG-SET.json`): dev2 (all), dev5,
dev6, dev7, followups-dev5/dev6/dev7. Counted: in-scope answered with a relevant file in the top five,
near misses refused, out-of-scope refused, follow-ups answered with a relevant file in the top five, and the
AUROC of the probability (in-scope with a relevant file in the top five vs near misses and out-of-scope).
Leave-one-book-out (as bench/lobo_models.py) on the training examples gives the same held-out figures.

Findings (Nov 2026, MiniLM int8, main 40bd106; dev rows from the `review7` results, whose single-turn
decisions the replay of the shipped model reproduces on 303 of 303 rows; the retrained shipped arm's
threshold is 0.471 against the file's 0.475). Per set: in-scope answered with a relevant file in the top
five | near misses refused | out-of-scope refused | AUROC; follow-up sets: answered with a relevant file in
the top five. LOBO: held-out reader + train-* answerable answered / near misses refused, AUROC.

    in-scope answered (top 5) | near misses refused | AUROC      follow-ups     LOBO
    arm                    dev2        dev5        dev6        dev7        fu5 fu6 fu7  held out
    shipped (retrained)    90 41 94.2  28 9 95.2   24 11 97.2  20 12 97.3  21 22 23  88.7/90.8 96.64
    + semcov_lin           89 42 94.4  28 9 94.6   25 11 96.6  18 12 98.0  20 22 22  89.7/85.8 96.35
    + semcov_t60           89 41 94.3  28 10 94.8  24 11 96.4  19 12 98.0  20 22 22  89.2/85.0 96.44
    + semcov_t70           89 41 94.1  27 9 94.4   25 11 96.8  19 12 98.0  21 22 22  88.5/85.8 96.39
    + sem_miss_rare        90 41 94.3  28 8 95.2   24 11 97.2  20 12 97.3  21 23 23  88.5/91.7 96.64
    + sem_gap              92 41 94.4  28 10 95.4  24 11 96.8  18 12 97.3  21 22 23  89.7/87.5 96.47
    + min_cos              90 38 93.7  28 8 95.0   25 11 97.0  19 12 97.1  21 22 23  87.9/88.3 96.55
    + phrase_sent          90 40 93.9  28 9 95.4   23 11 96.8  20 12 97.5  21 22 23  87.9/87.5 96.39
    + min_z                91 40 94.0  28 8 95.6   24 11 97.2  19 12 97.1  21 22 23  89.7/88.3 96.64
    + semcov_z             90 40 94.4  28 9 94.0   24 11 96.6  19 12 98.2  20 23 22  89.2/85.0 96.31
    + semcov_everyday      89 42 94.1  28 9 94.6   26 11 96.6  19 12 96.9  20 21 22  89.5/86.7 96.25
    semcov_everyday for cov 89 39 93.9 28 9 95.0   25 11 96.6  19 12 96.9  20 20 23  88.7/86.7 96.03
    semcov_lin for cov     88 40 94.0  28 10 95.0  25 11 96.6  18 12 96.9  20 21 23  89.0/85.8 96.10
    sem_gap for miss_rare  93 41 94.2  28 10 95.2  24 11 96.6  18 12 97.1  21 22 23  89.5/86.7 96.35
    + semcov_lin + sem_gap 92 42 94.4  28 10 95.0  25 11 96.6  18 12 97.8  20 22 23  89.2/85.8 96.22

    Out of: dev2 120 in-scope, 48 near misses; dev5/dev6/dev7 32 and 12 each; follow-ups 24 each.
    Out-of-scope refused by every arm: 16/16, 4/4, 4/4, 4/4.

The best arms move in-scope answers between sets (sem_gap: dev2 +2, dev7 -2) and every arm but sem_miss_rare
loses 3-6 points of held-out near-miss refusal (90.8 -> 85-88 %); sem_miss_rare changes one near miss
(refused -> answered) and one follow-up. Crediting only everyday words by meaning (semcov_everyday) gains
dev6 +2 but loses dev2 -1, dev7 -1 and a follow-up on each of fu5/fu6/fu7. The reason is in the words. Among
rows with a missing word, each signal's AUROC answerable vs near miss (training | dev2/5/6/7 | dev in-scope
wrongly refused vs dev near misses): cov 0.867 | 0.790 | 0.559, miss_rare 0.899 | 0.794 | 0.671, semcov_lin
0.820 | 0.747 | 0.578, sem_gap 0.864 | 0.764 | 0.635, sem_miss_rare 0.803 | 0.683 | 0.651, min_cos 0.705 |
0.609 | 0.563, min_z 0.613 | 0.538 | 0.528, phrase_sent 0.627 | 0.575 | 0.495, semcov_everyday 0.899 | 0.822
| 0.661: the semantic versions separate less than the lexical ones, save semcov_everyday, which alone
separates the dev rows better than cov (0.822 against 0.790) but adds nothing to the model beside miss_rare
(it is cov with credit where miss_rare is low), and on the hard pairs (the paraphrases the decision refuses
vs the near misses) none beats miss_rare. The best cosine of a missing word is 0.43 (median) for the wrongly
refused paraphrases and 0.43 for the near misses (0.45 / 0.41 in training; min_cos correlates 0.71 with
cov). MiniLM's bare-word cosine measures relatedness, not sameness, and a near miss is by construction about
the book's domain: its words meet a related word as readily as a paraphrase meets its synonym. Paraphrases
met: thousands -> millions, spinning -> rotation, forever -> unlimited, laser -> lidar, Mac -> macos, replay
-> playback, rotation-rate -> "angular velocity" (a word pair), weight -> mass; but also hum -> bool,
headset -> noise, crawls -> robots, eats -> task, redoing -> relu. Near misses met: hydraulic -> motor,
buoyancy -> gravity, swimming -> dive, grab -> pick, Open-RMF -> "open urdf", ros2_control -> "ros control",
database -> table. The best over ~250-800 passage words and pairs is a maximum over many noisy cosines, so
it is high for any word (min_z, the best in standard deviations above the word's mean cosine to the units,
does not fix it: 0.538 on dev).

CPU (2 shared cores; vectors batched through `embed_sentences`, cosine 0.98-0.996 to `embed_query`'s int8
vector of the same word, which costs 1.6 ms a word alone against 0.6-0.9 ms batched): ~0.9 ms a word or pair
embedded; a question's five passages hold 250-530 content words and pairs, so a cold book's first answers
cost 0.17-0.33 s CPU each; over the training and dev questions a book embedded 11,000-22,400 distinct units
(10.5-19.9 s CPU). Warm (every vector cached, passage words tokenised again): 3.2-7.1 ms CPU (two runs) a
question with a missing word, as written here (stacking cached vectors, dot products, phrase lookup),
against the engine's 15 ms p50 budget at 10k chunks; per-chunk unit matrices stored at ingest would make it
cheaper warm, at the price of embedding every chunk's vocabulary when a book is added.

Not tried: a cross-lingual or paraphrase-trained word model (the local model is the only one shipped); a
learned per-word synonym threshold (fitting it on these sets would be a word list fitted to questions).
"""

from __future__ import annotations

import argparse
import json
import re
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

import train_answerability as ta
from common import TEXTBOOKS, build
from lectern import answerability
from lectern.answerability import FEATURES, measures_asked, question_terms, rarity
from lectern.engine import Engine
from lectern.followups import STOP_WORDS
from lectern.models import SearchHit

ROOT = Path(__file__).resolve().parent.parent
QUESTIONS = ROOT / "bench" / "questions"
NOTES = Path("/work/notes")
TRAINING = [
    ("a", "reader"), ("b", "reader"), ("c", "reader"), ("d", "reader"),
    ("a", ""), ("b", ""), ("d", "validation"),
    ("a", "train"), ("b", "train"), ("c", "train"), ("d", "train"),
]  # fmt: skip
DEV_SETS = ("dev2", "dev5", "dev6", "dev7", "fudev5", "fudev6", "fudev7")
RAMP_LO, RAMP_HI = 0.35, 0.75
Z_LO, Z_HI = 3.0, 6.0  # a best cosine this many standard deviations above the word's mean over the units
BEST_UNIT: dict[str, str] = {}  # the passage unit each missing word met best (for reading the rows)
NEW = ("semcov_lin", "semcov_t60", "semcov_t70", "sem_miss_rare", "sem_gap", "min_cos", "phrase_sent")
NEW += ("min_z", "semcov_z", "semcov_everyday")
_TOKEN = re.compile(r"[a-z][a-z0-9+#'\-]*[a-z0-9+#]|[a-z]")
Array = NDArray[np.float64]


class WordVectors:
    """Vectors of bare words and word pairs from the embedder, cached per text; counts the CPU spent."""

    def __init__(self, engine: Engine) -> None:
        self.embedder = engine.retriever.embedder
        self.cache: dict[str, NDArray[np.float32]] = {}
        self.cpu = 0.0
        self.embedded = 0

    def get(self, texts: Sequence[str]) -> NDArray[np.float32]:
        new = sorted({t for t in texts if t not in self.cache})
        if new:
            started = time.process_time()
            vectors = self.embedder.embed_sentences(new)
            self.cpu += time.process_time() - started
            self.embedded += len(new)
            self.cache.update(zip(new, vectors, strict=True))
        if not texts:
            return np.zeros((0, 384), dtype=np.float32)
        return np.stack([self.cache[t] for t in texts])


_UNITS: dict[str, list[str]] = {}


def passage_units(text: str) -> list[str]:
    """Content words and adjacent content-word pairs of a passage, lower-cased, each once."""
    if text not in _UNITS:
        tokens = _TOKEN.findall(text.lower())
        units: dict[str, None] = {}
        for a, b in zip(tokens, [*tokens[1:], ""], strict=True):
            if a in STOP_WORDS or len(a) < 2:
                continue
            units[a] = None
            if b and b not in STOP_WORDS and len(b) > 1:
                units[f"{a} {b}"] = None
        _UNITS[text] = list(units)
    return _UNITS[text]


def ramp(c: float) -> float:
    return min(1.0, max(0.0, (c - RAMP_LO) / (RAMP_HI - RAMP_LO)))


def new_features(
    engine: Engine, vectors: WordVectors, query: str, hits: Sequence[SearchHit], missing: Sequence[str]
) -> list[float]:
    top = list(hits[: answerability.PASSAGES])
    missing_set = set(missing)
    asked = measures_asked(query)
    terms = [w for w, _ in question_terms(query) if w.lower() not in asked or w not in missing_set]
    weights = {w: answerability.WORD_WEIGHT + rarity(w) for w in terms}
    total = sum(weights.values()) or 1.0
    units = sorted({u for h in top for u in passage_units(h.chunk.search_text)})
    best: dict[str, float] = {}
    zscore: dict[str, float] = {}  # the best cosine against the word's own spread over the units
    if missing and units:
        sims = vectors.get([m.lower() for m in missing]) @ vectors.get(units).T
        best = {m: float(s.max()) for m, s in zip(missing, sims, strict=True)}
        zscore = {
            m: float((s.max() - s.mean()) / (s.std() + 1e-6)) for m, s in zip(missing, sims, strict=True)
        }
        BEST_UNIT.update({m: units[int(s.argmax())] for m, s in zip(missing, sims, strict=True)})
    elif missing:
        best = dict.fromkeys(missing, 0.0)
        zscore = dict.fromkeys(missing, 0.0)
    present = sum(weights[w] for w in terms if w not in missing_set)

    def share(credit: dict[str, float]) -> float:
        if not terms:
            return 1.0
        return (present + sum(weights.get(m, 0.0) * credit[m] for m in missing)) / total

    lin = share({m: ramp(c) for m, c in best.items()})
    t60 = share({m: float(c > 0.6) for m, c in best.items()})
    t70 = share({m: float(c > 0.7) for m, c in best.items()})
    worst = min(best, key=lambda m: best[m]) if best else None
    sem_miss_rare = rarity(worst) if worst else 0.0
    sem_gap = max((rarity(m) * (1 - ramp(c)) for m, c in best.items()), default=0.0)
    min_cos = min(best.values(), default=1.0)
    phrase = phrase_sentence(engine, vectors, query, top, missing)
    min_z = min(zscore.values(), default=Z_HI)
    semcov_z = share({m: min(1.0, max(0.0, (z - Z_LO) / (Z_HI - Z_LO))) for m, z in zscore.items()})
    # only an everyday word earns credit by meaning; a rare one (a name, a term) must be written
    everyday = share(
        {m: ramp(c) if rarity(m) < answerability.OFF_TOPIC_RARITY else 0.0 for m, c in best.items()}
    )
    return [lin, t60, t70, sem_miss_rare, sem_gap, min_cos, phrase, min_z, semcov_z, everyday]


def phrase_sentence(
    engine: Engine, vectors: WordVectors, query: str, top: list[SearchHit], missing: Sequence[str]
) -> float:
    """Each missing word with its neighbouring question content words, against the passages' sentences."""
    if not missing:
        return 1.0
    words = [w for w, _ in question_terms(query)]
    phrases = []
    for m in missing:
        i = words.index(m) if m in words else -1
        phrases.append(" ".join(words[max(0, i - 1) : i + 2]) if i >= 0 else m)
    units = engine.retriever.sentences.of([h.chunk for h in top])
    rows = []
    for passage_units_, vecs in units or []:
        keep = [i for i, u in enumerate(passage_units_) if u.kind == "sentence" and i < vecs.shape[0]]
        if keep:
            rows.append(vecs[keep])
    if not rows:
        return 0.0
    sims = vectors.get([p.lower() for p in phrases]) @ np.vstack(rows).T
    return float(sims.max(axis=1).min())


def example_rows(
    engine: Engine, vectors: WordVectors, records: list[dict[str, Any]], name: str
) -> list[dict[str, Any]]:
    """bench/train_answerability.py `examples`, with the new signals beside the shipped ones."""

    def describe(query: str, result: Any) -> dict[str, Any]:
        s = engine._signals(query, result)
        extra = new_features(engine, vectors, query, result.hits, s.missing)
        return {"x": list(s.values), "z": extra, "missing": list(s.missing)}

    return ta.examples(engine, records, name, describe)


def dev_rows(
    engine: Engine, vectors: WordVectors, rows: list[dict[str, Any]], name: str
) -> list[dict[str, Any]]:
    """The rows of an answer_quality result, searched again with the query the engine searched."""
    out = []
    for r in rows:
        query = r["search_query"] or r["question"]
        result = ta.retrieve(engine, query, 5)
        if not result.hits:  # refused before any signal ("no_passages"): counted, never answered
            base = {"set": name, "id": r["id"], "kind": r["kind"], "query": query}
            zeros = {"x": [0.0] * len(FEATURES), "z": [0.0] * len(NEW), "missing": []}
            out.append({**base, **zeros, "y": 0, "top5": False, "nohits": True})
            continue
        s = engine._signals(query, result)
        extra = new_features(engine, vectors, query, result.hits, s.missing)
        top5 = bool(set(r.get("expected") or []) & {h.chunk.source_path for h in result.hits[:5]})
        y = 1 if r["kind"] in ("in_scope", "followup") and top5 else 0
        out.append({"set": name, "id": r["id"], "kind": r["kind"], "query": query, "x": list(s.values),
                    "z": extra, "missing": list(s.missing), "best": [BEST_UNIT.get(m, "") for m in s.missing],
                    "y": y, "top5": top5})  # fmt: skip
    return out


def matrix(rows: list[dict[str, Any]], extra: Sequence[str], drop: Sequence[str]) -> Array:
    keep = [i for i, f in enumerate(FEATURES) if f not in drop]
    cols = [NEW.index(f) for f in extra]
    return np.asarray([[r["x"][i] for i in keep] + [r["z"][j] for j in cols] for r in rows], dtype=np.float64)


def train(rows: list[dict[str, Any]], extra: Sequence[str], drop: Sequence[str]) -> tuple[ta.Fitted, float]:
    """The training script's model and threshold over the shipped signals (less `drop`) plus `extra`."""
    names = tuple(f for f in FEATURES if f not in drop) + tuple(extra)
    ta.FEATURES = names
    answerability.FEATURES = names  # StepFunction checks its feature's name against this
    ta.MONOTONE.update(
        {
            "semcov_everyday": 1,
            "semcov_lin": 1,
            "semcov_t60": 1,
            "semcov_t70": 1,
            "min_cos": 1,
            "phrase_sent": 1,
        }
    )
    ta.MONOTONE.update({"sem_miss_rare": -1, "sem_gap": -1})
    try:
        x = matrix(rows, extra, drop)
        y = np.asarray([r["y"] for r in rows], dtype=np.float64)
        sw = np.asarray([ta.CONSTRUCTED_WEIGHT if r["kind"] == "constructed" else 1.0 for r in rows])
        model = ta.fit_model(x, y, sw, ta.STUMPS)
        pos = np.sort(ta.predict(model, x)[y == 1])
        return model, float(pos[int((1 - ta.TARGET_ANSWERED) * len(pos))])
    finally:
        ta.FEATURES = FEATURES
        answerability.FEATURES = FEATURES


def tally(rows: list[dict[str, Any]], p: Array, threshold: float) -> dict[str, Any]:
    def count(kind: str, want: bool, need_top5: bool = False) -> str:
        of = [(r, q) for r, q in zip(rows, p, strict=True) if r["kind"] == kind]
        if not of:
            return "-"
        hit = sum(1 for r, q in of if (q >= threshold) == want and (not need_top5 or r["top5"]))
        return f"{hit}/{len(of)}"

    pos = [float(q) for r, q in zip(rows, p, strict=True) if r["y"] == 1 and r["kind"] == "in_scope"]
    neg = [float(q) for r, q in zip(rows, p, strict=True) if r["kind"] in ("near_miss", "out_of_scope")]
    auc = ta.auroc(pos, neg)
    return {
        "in": count("in_scope", True, True),
        "nm": count("near_miss", False),
        "oos": count("out_of_scope", False),
        "fu": count("followup", True, True),
        "auc": "-" if np.isnan(auc) else f"{auc * 100:.1f}",
    }


def lobo(rows: list[dict[str, Any]], extra: Sequence[str], drop: Sequence[str]) -> str:
    """Held-out books: answerable answered / near misses refused at the training rule, and the AUROC."""
    pos: list[float] = []
    nm: list[float] = []
    oos: list[float] = []
    for book in sorted({r["book"] for r in rows}):
        train_rows = [r for r in rows if r["book"] != book]
        test = [r for r in rows if r["book"] == book and r["set"].startswith(("reader-", "train-"))]
        model, threshold = train(train_rows, extra, drop)
        ta.FEATURES = tuple(f for f in FEATURES if f not in drop) + tuple(extra)
        margins = ta.predict(model, matrix(test, extra, drop)) - threshold
        ta.FEATURES = FEATURES
        for r, m in zip(test, margins, strict=True):
            (
                pos
                if r["y"] == 1
                else nm
                if r["kind"] == "near_miss"
                else oos
                if r["kind"] == "out_of_scope"
                else []
            ).append(float(m))
    answered = np.mean(np.asarray(pos) >= 0) * 100
    refused = np.mean(np.asarray(nm) < 0) * 100
    auc = ta.auroc(pos, nm + oos) * 100
    return f"{answered:.1f}/{refused:.1f} AUROC {auc:.2f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--results", default="review7", help="answer_quality result tag in /work/notes")
    parser.add_argument("--words", action="store_true", help="the signals' separation and the words met")
    parser.add_argument("--cache", type=Path, default=ROOT / "bench" / "results" / "semcov-rows.json")
    args = parser.parse_args()
    if args.cache.exists():
        data = json.loads(args.cache.read_text())
        training, dev = data["training"], data["dev"]
    else:
        training, dev = collect(args.results)
        args.cache.write_text(json.dumps({"training": training, "dev": dev}))
    if args.words:
        words(training, dev)
        return
    arms: list[tuple[str, tuple[str, ...], tuple[str, ...]]] = [("shipped", (), ())]
    arms += [(f"+ {f}", (f,), ()) for f in NEW]
    arms += [
        ("+ min_z + semcov_z", ("min_z", "semcov_z"), ()),
        ("semcov_everyday for cov", ("semcov_everyday",), ("cov",)),
        ("semcov_z for cov", ("semcov_z",), ("cov",)),
        ("semcov_lin for cov", ("semcov_lin",), ("cov",)),
        ("sem_gap for miss_rare", ("sem_gap",), ("miss_rare",)),
        ("+ semcov_lin + sem_gap", ("semcov_lin", "sem_gap"), ()),
        ("+ semcov_t70 + sem_miss_rare", ("semcov_t70", "sem_miss_rare"), ()),
    ]
    header = "arm".ljust(30) + "".join(f"{s:>26}" for s in DEV_SETS) + "   LOBO reader+train"
    print(
        "per set: in-scope answered w/ relevant top5 | near miss refused | oos refused | follow-ups | AUROC"
    )
    print(header)
    for name, extra, drop in arms:
        model, threshold = train(training, extra, drop)
        ta.FEATURES = tuple(f for f in FEATURES if f not in drop) + tuple(extra)
        cells = []
        for s in DEV_SETS:
            of = [r for r in dev if r["set"] == s]
            p = ta.predict(model, matrix(of, extra, drop))
            p[[bool(r.get("nohits")) for r in of]] = 0.0
            t = tally(of, p, threshold)
            cells.append(" ".join(t[k] for k in ("in", "nm", "oos", "fu", "auc") if t[k] != "-"))
        ta.FEATURES = FEATURES
        print(
            f"{name:30}" + "".join(f"{c:>26}" for c in cells) + f"   {lobo(training, extra, drop)}",
            flush=True,
        )


def words(training: list[dict[str, Any]], dev: list[dict[str, Any]]) -> None:
    """Each signal's AUROC (answerable vs near miss) among rows with a missing word, and the words met."""
    model = answerability.load_model("local:all-MiniLM-L6-v2")
    assert model is not None

    def prob(r: dict[str, Any]) -> float:
        return model.probability(answerability.Signals(tuple(r["x"]), (), ()))

    tr = [r for r in training if r["missing"]]
    dv = [r for r in dev if r["missing"] and r["set"] in ("dev2", "dev5", "dev6", "dev7")]
    pos, nm = [r for r in tr if r["y"] == 1], [r for r in tr if r["kind"] == "near_miss"]
    dpos = [r for r in dv if r["kind"] == "in_scope" and r["top5"]]
    dnm = [r for r in dv if r["kind"] == "near_miss"]
    wrong = [r for r in dpos if prob(r) < model.threshold]
    print(
        "AUROC answerable vs near miss, rows with a missing word: "
        "training | dev | dev wrongly refused vs dev nm"
    )
    lexical = [("cov", 5, 1), ("miss_rare", 7, -1)]
    for name, i, sign in [
        *lexical,
        *((f, len(FEATURES) + j, -1 if "rare" in f or "gap" in f else 1) for j, f in enumerate(NEW)),
    ]:

        def get(r: dict[str, Any], i: int = i, sign: int = sign) -> float:
            return sign * (r["x"] + r["z"])[i]

        aucs = [
            ta.auroc([get(r) for r in a], [get(r) for r in b])
            for a, b in ((pos, nm), (dpos, dnm), (wrong, dnm))
        ]
        print(f"  {name:16} " + " | ".join(f"{v:.3f}" for v in aucs))
    for label, of in (("wrongly refused", wrong), ("near misses", dnm)):
        print(f"\n{label}: missing word -> the passage word or pair it met best")
        for r in of:
            met = ", ".join(f"{m} -> {b}" for m, b in zip(r["missing"], r.get("best", []), strict=False))
            print(f"  {r['id']} p={prob(r):.2f} {met}")


def collect(tag: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    training: list[dict[str, Any]] = []
    dev: list[dict[str, Any]] = []
    for book in "abcd":
        engine = build(TEXTBOOKS / f"textbook-{book}")[0]
        vectors = WordVectors(engine)
        started = time.process_time()
        n = 0
        for book_of, prefix in TRAINING:
            if book_of != book:
                continue
            stem = f"{prefix}-textbook-{book}" if prefix else f"textbook-{book}"
            records = ta.training_records(QUESTIONS / f"{stem}.jsonl")
            rows = example_rows(engine, vectors, records, stem)
            training += [{**r, "book": book} for r in rows]
            n += len(rows)
        for s in DEV_SETS:
            result = json.loads((NOTES / f"{tag}-{s}.json").read_text())["rows"]
            for set_name, rows in result.items():
                if set_name.endswith(f"textbook-{book}"):
                    got = [{**r, "book": book} for r in dev_rows(engine, vectors, rows, s)]
                    dev += got
                    n += len(got)
        total = time.process_time() - started
        warm = [r for r in dev if r["set"] in DEV_SETS and r.get("book") == book and r["missing"]]
        _UNITS.clear()  # the passages' words found again: only the word vectors are warm
        t0 = time.process_time()
        for r in warm:
            result = ta.retrieve(engine, r["query"], 5)
            new_features(engine, vectors, r["query"], result.hits, r["missing"])
        t_features = time.process_time() - t0
        t0 = time.process_time()
        for r in warm:
            ta.retrieve(engine, r["query"], 5)
        t_retrieve = time.process_time() - t0
        print(
            f"  warm: {(t_features - t_retrieve) / max(1, len(warm)) * 1000:.2f} ms CPU a question "
            f"({len(warm)} with a missing word)"
        )
        print(
            f"textbook-{book}: {n} examples, {vectors.embedded} words/pairs embedded, word vectors "
            f"{vectors.cpu:.1f} s CPU of {total:.1f} s",
            flush=True,
        )
    return training, dev


if __name__ == "__main__":
    main()
