"""Query focus for wordy, multi-part questions (study: retrieval replay, then end to end).

    .venv/bin/python bench/query_focus_study.py gather OUT.pkl CORPUS QUESTIONS.jsonl [...] --split S
    .venv/bin/python bench/query_focus_study.py score OUT.pkl [OUT2.pkl ...] [--show VARIANT] [--top N]
    PYTHONHASHSEED=0 .venv/bin/python bench/query_focus_study.py answers --min-words 16 --scheme sent \
        CORPUS QUESTIONS.jsonl [...] --split S --out NAME      (bench/answer_quality.py, fusion patched in)

`gather` runs, per in-scope question, the engine's own dense and keyword searches (the depth a hybrid
search with top_k=5 uses: 40 a side) for the whole question and for its parts (`parts_of`): each
sentence that names something (`sent`), each clause (`clause`: sentences cut at ";", ":", a dash, a
comma before and/but/so/which/because/when/...), the report before a final question (`report`), the last
sentence (`last`), the question without filler ("I've got", "I'm trying to", "can you tell me", a
sentence that names nothing such as "What should I check?": `focus`) and without such sentences only
(`content`). A part must name two words that are neither stop words nor asking words
(lectern.followups). `score` replays fusions of those lists exactly as the engine ranks (RRF k=60, the
fusion's top 10, the whole question's cosine >= the threshold, the first 5; the replayed base equals the
engine's top 5 on all 439 questions) and prints, per set, questions with a relevant file / every answer
keyword in the top 5, and questions won / lost against the base. Fusions: `rrf` (each part's dense list
as one more RRF list, optionally weighted), `rrf_shared` (the parts share one list's weight),
`rrf_dense` (dense lists fused first, then with the keyword list), `best` (whole + the part with the
highest top cosine), `replace` (parts instead of the whole), `max` / `mixL` (one dense list by the
chunk's max cosine over whole and parts / whole cosine + L x best part cosine); `n>=N`: only questions of
N words or more; `maxsim`: threshold on the max cosine; `kw-focus`: the keyword side on the `focus` text.

Findings (Nov 2026, MiniLM, base main 8a83dd4; train = train-* --split all, 219 in-scope; tune =
reader-* --split tune, 100; dev2 = dev2-* --split dev2, 120): negative; nothing went into src/.

Retrieval replay, every keyword in the top 5 (base: dev2 86/120, tune 73/100, train 176/219; won/lost):

    variant                      dev2        tune        train       net
    sent rrf n>=16            88 (+2/-0)  73 (+0/-0)  177 (+2/-1)    +3   (best net; tune flat)
    last mix1.0 n>=16         86 (+0/-0)  74 (+1/-0)  178 (+2/-0)    +3   (dev2 relevant file 110 -> 109)
    clause rrf w1.5 n>=16     89 (+3/-0)  74 (+2/-1)  175 (+2/-3)    +3
    clause rrf n>=16          89 (+3/-0)  73 (+1/-1)  175 (+2/-3)    +2
    sent rrf n>=20            87 (+1/-0)  73 (+0/-0)  177 (+1/-0)    +2
    sent rrf n>=0 / n>=12     88 (+2/-0)  73 (+0/-0)  175 (+2/-3)    +1
    focus (filler out) rrf    86 (+0/-0)  74 (+1/-0)  176 (+1/-1)    +1
    kw-focus only             86 (+1/-1)  73 (+0/-0)  176 (+0/-0)     0
    report / content rrf      86 (+0/-0)  73 (+0/-0)  176 (+2/-2)     0
    any max / mix / replace / rrf_dense: net -1 to -8 (the parts' cosines pull in chunks about the
    report's situation, not the fix)

No variant gains on all three sets; neighbouring settings flip sign (sent rrf n>=12: train -1, n>=16:
+1, n>=20: +1), i.e. noise level (+-3 of 439). The ceiling is low: of the questions whose top 5 miss a
keyword (dev2 34, tune 27, train 43), 15 / 11 / 22 have parts at all, a part's own dense top 5 (whole
question's threshold) holds every keyword for 5 / 3 / 7 of them, and fused with the keyword list for 1 /
2 / 2. Most misses are answers the question does not name ("The robot reacts to every conversation in
the room ... How do I fix that?" -> "wake word"), which no part's wording reaches either.

End to end (`answers`, bench/answer_quality.py with the fusion patched into the hybrid search for
questions with parts; hits keep the whole question's cosine, so the threshold and answerability read
the same features of the passages the new order brings). In-scope answered / relevant cited / answers
with every keyword, near misses refused, AUROC; follow-ups-dev (48) answered / cited / keywords:

    variant           train (219)              tune (100)              dev2 (120)              fu-dev (48)
    base              184/173/155 72/80 96.1   91/88/73 36/40 98.2     95/84/62 38/48 91.6     47/46/42
    sent n>=16        185/174/154   =   96.0   90/87/73   =   98.2     97/86/64   =   91.8     =
    sent n>=20        184/173/155   =   96.0   90/87/73   =   98.2     95/84/62   =   91.5     =
    clause n>=16      184/173/153   =   96.1   91/88/75   =   98.2     96/86/65   =   91.8     =
    clause n>=20      183/172/154   =   96.0   91/88/75   =   98.2     94/83/63   =   91.5     =
    focus (all)       185/174/155 71/80 95.5   90/87/73   =   98.3     95/83/62   =   91.6     46/45/39

(= : near misses refused unchanged.) None gains on all three: `sent n>=16` wins dev2 (+2 answered,
+2 cited, +2 keywords: d2a-in-02 and d2a-in-11, refused before, now answered) and loses tune (rd-in-45
refused) and a train keyword answer (ta-in-51); among questions answered both ways no answer gained a
keyword on any set (train lost one): the passages that newly hold the keyword do not change what the
writer quotes (as in bench/rerank_study.py), and the wins and losses come from the answerability
decision moving with the top 5. `clause n>=16` wins tune (+2 keywords: rc-in-47, rd-in-45, the writer
quoting the new passage) and dev2 (+1 answered, +2 cited, +3 keywords; d2c-in-15 newly refused) but
loses train (-2 keywords: ta-in-38 now refused, ta-in-51 quotes other sentences); `clause n>=20` loses
an answer on train and dev2. Splitting "X, and Y?" into clauses also costs compound questions whose two
keywords the whole question already found (replay: ta-in-53, tc-in-18, rc-in-13).
Taking filler out (`focus`, every question) also rewrites follow-ups' searches:
follow-ups-dev keywords 42 -> 39, train near misses refused 72 -> 71.

Cost: a part's encoder call is 4.1-4.4 ms CPU (median per set, uncached MiniLM, process_time; load
average ~5 on 2 shared cores); at n>=16 the `sent` scheme touches 87 of 439 in-scope questions with
1.52 parts each (~6.5 ms more per such question, ~1.3 ms per question overall), plus one dense search
per part (0.55 ms CPU at depth 40). The patched search as measured (it redoes the whole question's two
sides separately) took retrieval from 8.2 to 21.3 ms CPU median on those questions.
"""

from __future__ import annotations

import argparse
import pickle
import re
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from common import build, read_jsonl
from lectern.index.fusion import candidate_depth
from lectern.retrieval import Retriever, fetch_depth, rank

DEPTH = candidate_depth(fetch_depth(5))  # 40: each side of the engine's hybrid search at top_k=5

# --- splitting a question into parts ---------------------------------------------------------------

_SENTENCE = re.compile(r"(?<=[.?!])\s+(?=[\"'(A-Z0-9])")
# a clause boundary: a comma or dash before a conjunction, a semicolon, a colon, a dash
_CLAUSE = re.compile(
    r"\s*(?:;|:\s|\s[-\u2013\u2014]\s|,\s+(?=(?:and|but|so|or|which|because|though|although|even though|"
    r"since|while|then|yet|whereas|if|when)\b))\s*",
    re.IGNORECASE,
)
# conversational openers that say who asks, not what about
_FILLER = re.compile(
    r"\b(?:i've got|i have got|i'm trying to|i am trying to|i'm planning to|i am planning to|i want to|"
    r"i'd like to|i would like to|i need to|i was wondering (?:if|whether)|i wonder (?:if|whether)|"
    r"can you tell me|could you tell me|can you explain|could you explain|please|just|basically|"
    r"actually|really|quick question|any idea|any ideas|help me)\b[,:]?\s*",
    re.IGNORECASE,
)


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.split(" ".join(text.split())) if s.strip()]


def clauses(text: str) -> list[str]:
    out: list[str] = []
    for s in sentences(text):
        out.extend(c.strip(" ,") for c in _CLAUSE.split(s) if c.strip(" ,"))
    return out


def content_words(text: str) -> int:
    """How many words of `text` name something (not a stop word, not an asking word)."""
    from lectern.followups import GENERIC_WORDS, STOP_WORDS

    words = re.findall(r"[a-z0-9_][a-z0-9_'\-]*", text.lower())
    return sum(1 for w in words if w not in STOP_WORDS and w not in GENERIC_WORDS)


def focused(text: str, min_words: int = 2) -> str:
    """The question without content-free sentences ("What should I check?") and without filler."""
    kept = [s for s in sentences(text) if content_words(s) >= min_words] or [text]
    out = _FILLER.sub("", " ".join(kept))
    out = " ".join(out.split())
    return out[:1].upper() + out[1:] if out else text


def parts_of(question: str) -> dict[str, list[str]]:
    """Each scheme's parts of `question` (only parts that name something, and not the whole)."""
    whole = " ".join(question.split())

    def useful(items: list[str]) -> list[str]:
        seen: list[str] = []
        for p in items:
            if p != whole and content_words(p) >= 2 and p not in seen:
                seen.append(p)
        return seen

    sents = sentences(whole)
    report = [s for s in sents if content_words(s) >= 2]
    return {
        "sent": useful(sents),
        "clause": useful(clauses(whole)),
        # the report: all but the last sentence, when the last one asks (the request)
        "report": useful([" ".join(sents[:-1])] if len(sents) > 1 and sents[-1].endswith("?") else []),
        "last": useful([sents[-1]] if len(sents) > 1 else []),
        "focus": useful([focused(whole)]),
        "content": useful([" ".join(report)] if len(report) < len(sents) else []),
    }


# --- gather ------------------------------------------------------------------------------------------


def note(chunks: dict[str, dict[str, Any]], keywords: list[str], hits: list[Any]) -> list[str]:
    """The hits' keys; for each chunk not in `chunks` yet, its file, which `keywords` its text holds
    and its vector."""
    for h in hits:
        if h.chunk.content_hash not in chunks:
            text = h.chunk.text.lower()
            chunks[h.chunk.content_hash] = {
                "path": h.chunk.source_path,
                "kw": [k.lower() in text for k in keywords],
                "vec": np.asarray(h.vector, dtype=np.float32),
            }
    return [h.chunk.content_hash for h in hits]


def gather(args: argparse.Namespace) -> None:
    pairs = list(zip(args.pairs[::2], args.pairs[1::2], strict=True))
    out: list[dict[str, Any]] = []
    for corpus, questions in pairs:
        engine, settings, _ = build(Path(corpus))
        r = engine.retriever
        book = Path(questions).stem
        for record in read_jsonl(Path(questions)):
            if record.get("kind") != "in_scope":
                continue
            if args.split != "all" and record.get("split", "tune") != args.split:
                continue
            q = " ".join(record["question"].split())
            qv = np.asarray(r.embedder.embed_query(q), dtype=np.float32)
            base = rank(
                r.index.search(vector=qv, text=q, mode="hybrid", top_k=10), settings.similarity_threshold, 5
            )
            parts = parts_of(q)
            texts = sorted({p for ps in parts.values() for p in ps})
            vectors = {q: qv}
            started = time.process_time()
            for t in texts:
                vectors[t] = np.asarray(r.embedder.embed_query(t), dtype=np.float32)
            cpu = time.process_time() - started
            chunks: dict[str, dict[str, Any]] = {}

            dense = {
                t: note(
                    chunks, record["keywords"], r.index.search(vector=v, text=t, mode="dense", top_k=DEPTH)
                )
                for t, v in vectors.items()
            }
            kw_texts = {q, *(p for p in parts["focus"])}
            keyword: dict[str, list[tuple[str, float]]] = {}
            for t in kw_texts:
                hits = r.index.search(vector=qv, text=t, mode="keyword", top_k=DEPTH)
                note(chunks, record["keywords"], hits)
                keyword[t] = [(h.chunk.content_hash, float(h.keyword_score or h.score)) for h in hits]
            keys = list(chunks)
            matrix = np.stack([chunks[k]["vec"] for k in keys])
            matrix /= np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-9)
            cos = {t: dict(zip(keys, (matrix @ v).tolist(), strict=True)) for t, v in vectors.items()}
            for c in chunks.values():
                del c["vec"]
            out.append(
                {
                    "id": record["id"],
                    "book": book,
                    "question": q,
                    "expected": set(record.get("expected", [])),
                    "keywords": record["keywords"],
                    "base": [h.chunk.content_hash for h in base],
                    "parts": parts,
                    "dense": dense,
                    "keyword": keyword,
                    "cos": cos,
                    "chunks": chunks,
                    "embed_cpu": cpu,
                    "n_embeds": len(texts),
                    "threshold": settings.similarity_threshold,
                    "rrf_k": settings.rrf_k,
                }
            )
        print(f"{questions}: {sum(1 for o in out if o['book'] == book)}", file=sys.stderr)
    with open(args.out, "wb") as fh:
        pickle.dump(out, fh)


# --- score ---------------------------------------------------------------------------------------------

SCHEMES = ("sent", "clause", "report", "last", "focus", "content")


def fused(q: dict[str, Any], lists: list[list[str]], weights: list[float] | None = None) -> list[str]:
    """RRF of `lists` (weighted), in the engine's tie order (first appearance)."""
    k = q["rrf_k"]
    weights = weights or [1.0] * len(lists)
    scores: dict[str, float] = {}
    for ranking, w in zip(lists, weights, strict=True):
        for i, key in enumerate(ranking, start=1):
            scores[key] = scores.get(key, 0.0) + w / (k + i)
    return [key for key, _ in sorted(scores.items(), key=lambda kv: kv[1], reverse=True)]


def cut(q: dict[str, Any], order: list[str], sim: dict[str, float] | None = None) -> list[str]:
    """As the engine: the fusion's top 10, the whole question's cosine >= threshold, the first 5."""
    sim = sim or q["cos"][q["question"]]
    return [key for key in order[:10] if sim[key] >= q["threshold"]][:5]


def by_cosine(q: dict[str, Any], texts: list[str], how: str = "max", lam: float = 0.5) -> list[str]:
    """One dense list (depth 40) over the union of `texts`' dense lists, by a cosine of the chunk with
    them: the best (`max`), the whole question's plus `lam` x the best part's (`mix`)."""
    pool = {key for t in texts for key in q["dense"][t]}
    whole = q["cos"][q["question"]]
    parts = [t for t in texts if t != q["question"]]

    def value(key: str) -> float:
        best = max(q["cos"][t][key] for t in parts) if parts else 0.0
        if how == "max":
            return float(max(whole[key], best))
        return float(whole[key] + lam * best)

    ranked = sorted(pool, key=lambda key: (-value(key), key))
    return ranked[:DEPTH]


def variant(
    scheme: str,
    how: str,
    min_words: int = 0,
    kw_focus: bool = False,
    max_sim: bool = False,
    weight: float = 1.0,
) -> Any:
    def order(q: dict[str, Any]) -> list[str]:
        whole = q["question"]
        parts = q["parts"][scheme] if len(whole.split()) >= min_words else []
        kw = q["keyword"][whole]
        if kw_focus and q["parts"]["focus"]:
            kw = q["keyword"][q["parts"]["focus"][0]]
        kw_keys = [key for key, _ in kw]
        texts = [whole, *parts]
        if how == "rrf":  # every part's list as one more list (weighted)
            lists = [q["dense"][t] for t in texts] + [kw_keys]
            ranked = fused(q, lists, [1.0] + [weight] * len(parts) + [1.0])
        elif how == "rrf_shared":  # the parts share one list's weight
            n = len(parts)
            lists = [q["dense"][t] for t in texts] + [kw_keys]
            ranked = fused(q, lists, [1.0] + [1.0 / max(1, n)] * n + [1.0])
        elif how == "rrf_dense":  # the dense lists fused first, into one dense list, then with keywords
            dense = fused(q, [q["dense"][t] for t in texts])[:DEPTH]
            ranked = fused(q, [dense, kw_keys])
        elif how == "best":  # the whole question and its best part (the part's top cosine)
            best = max(parts, key=lambda t: q["cos"][t][q["dense"][t][0]]) if parts else None
            lists = [q["dense"][whole]] + ([q["dense"][best]] if best else []) + [kw_keys]
            ranked = fused(q, lists)
        elif how == "replace":  # the parts' fused list instead of the whole question's
            dense = fused(q, [q["dense"][t] for t in parts])[:DEPTH] if parts else q["dense"][whole]
            ranked = fused(q, [dense, kw_keys])
        elif how.startswith("max") or how.startswith("mix"):
            lam = float(how[3:]) if how.startswith("mix") else 0.0
            dense = by_cosine(q, texts, how[:3], lam)
            ranked = fused(q, [dense, kw_keys])
        else:
            raise ValueError(how)
        sim = None
        if max_sim:
            sim = {key: max(q["cos"][t][key] for t in texts) for key in q["chunks"]}
        return cut(q, ranked, sim)

    return order


def base(q: dict[str, Any]) -> list[str]:
    return cut(q, fused(q, [q["dense"][q["question"]], [key for key, _ in q["keyword"][q["question"]]]]))


def judged(q: dict[str, Any], top: list[str]) -> tuple[bool, bool]:
    chunks = [q["chunks"][key] for key in top]
    rel = any(c["path"] in q["expected"] for c in chunks)
    every = all(any(c["kw"][i] for c in chunks) for i in range(len(q["keywords"])))
    return rel, every


def score(args: argparse.Namespace) -> None:
    data: list[dict[str, Any]] = []
    for path in args.data:
        with open(path, "rb") as fh:
            data.extend(pickle.load(fh))
    sets = sorted({q["book"].split("-textbook")[0] for q in data})
    by_set = {s: [q for q in data if q["book"].startswith(s + "-")] for s in sets}
    mismatch = [q["id"] for q in data if base(q) != q["base"]]
    print(f"replayed base differs from the engine's on {len(mismatch)} questions {mismatch[:5]}")
    for s, qs in by_set.items():
        multi = sum(1 for q in qs if q["parts"]["sent"])
        cpu = [q["embed_cpu"] / q["n_embeds"] * 1000 for q in qs if q["n_embeds"]]
        print(
            f"{s}: {len(qs)} questions, {multi} with a naming sentence part; part encodes per question: "
            f"{np.mean([q['n_embeds'] for q in qs]):.2f}, CPU per encode median {np.median(cpu):.1f} ms"
        )
    variants: dict[str, Any] = {"base": base}
    for scheme in SCHEMES:
        for how in ("rrf", "rrf_shared", "rrf_dense", "best", "replace", "max", "mix0.3", "mix0.5", "mix1.0"):
            for min_words in (0, 16):
                variants[f"{scheme} {how} n>={min_words}"] = variant(scheme, how, min_words)
        variants[f"{scheme} rrf n>=0 maxsim"] = variant(scheme, "rrf", 0, max_sim=True)
    for scheme in ("sent", "clause", "last", "focus"):
        for min_words in (12, 20, 24):
            variants[f"{scheme} rrf n>={min_words}"] = variant(scheme, "rrf", min_words)
        for weight in (0.5, 0.75, 1.5):
            for min_words in (0, 16):
                variants[f"{scheme} rrf w{weight} n>={min_words}"] = variant(
                    scheme, "rrf", min_words, weight=weight
                )
    variants["kw-focus only"] = variant("focus", "rrf", 10**6, kw_focus=True)
    variants["focus rrf + kw-focus"] = variant("focus", "rrf", 0, kw_focus=True)
    base_j = {q["id"]: judged(q, base(q)) for q in data}
    rows = []
    for name, fn in variants.items():
        cells = []
        gain = 0
        for s, qs in by_set.items():
            j = [judged(q, fn(q)) for q in qs]
            won = sum(1 for q, (_, e) in zip(qs, j, strict=True) if e and not base_j[q["id"]][1])
            lost = sum(1 for q, (_, e) in zip(qs, j, strict=True) if not e and base_j[q["id"]][1])
            cells.append(f"{s} rel {sum(r for r, _ in j):3d} kw {sum(e for _, e in j):3d} (+{won}/-{lost})")
            gain += won - lost
        rows.append((gain, name, cells))
    print(f"{'variant':34} " + " | ".join(f"{s} (n={len(by_set[s])})" for s in sets))
    for gain, name, cells in [rows[0], *sorted(rows[1:], key=lambda r: -r[0])][: args.top]:
        print(f"{name:34} " + " | ".join(cells) + f"  net {gain:+d}")
    if args.show:
        fn = variants[args.show]
        for q in data:
            a, b = judged(q, base(q)), judged(q, fn(q))
            if a != b:
                print(f"{q['id']:12} base rel/kw {a} -> {b}  {q['question']}")


# --- end to end: the engine with the `sent rrf` fusion, patched in (nothing of it is in src/) ---------


def focus_parts(question: str, min_words: int, scheme: str = "sent") -> list[str]:
    """A `scheme`'s parts (`parts_of`) of a question of at least `min_words` words; `sent`: the sentences
    that name something (two words that are neither stop words nor asking words), when there are two."""
    whole = " ".join(question.split())
    return parts_of(whole)[scheme] if len(whole.split()) >= min_words else []


def patch_engine(min_words: int, scheme: str = "sent") -> None:
    """Every hybrid search of a question with `focus_parts` adds one dense list per part to the fusion
    (RRF k of the index, the whole question's list first, the keyword list last); the hits keep the
    whole question's cosine as their similarity, so the threshold, the confidence and the answerability
    signals read what they read today, of the passages the new order brings."""
    from lectern.index.base import resolve_vector
    from lectern.index.fusion import rrf_fuse
    from lectern.index.lancedb_index import LanceDBIndex

    original = LanceDBIndex.search

    def search(
        self: Any, *, vector: Any, text: str, mode: Any = "hybrid", top_k: int = 5, filters: Any = None
    ) -> Any:
        parts = focus_parts(text, min_words, scheme) if mode == "hybrid" and vector is not None else []
        if not parts:
            return original(self, vector=vector, text=text, mode=mode, top_k=top_k, filters=filters)
        whole = np.asarray(resolve_vector(vector), dtype=np.float32).reshape(-1)
        depth = candidate_depth(top_k)
        hits: dict[str, Any] = {}
        lists: list[list[str]] = []
        for v in [whole, *(np.asarray(_embed(self, p), dtype=np.float32) for p in parts)]:
            dense = original(self, vector=v, text="", mode="dense", top_k=depth, filters=filters)
            lists.append([h.chunk.content_hash for h in dense])
            hits.update({h.chunk.content_hash: h for h in dense if h.chunk.content_hash not in hits})
        keyword = original(self, vector=whole, text=text, mode="keyword", top_k=depth, filters=filters)
        lists.append([h.chunk.content_hash for h in keyword])
        hits.update({h.chunk.content_hash: h for h in keyword if h.chunk.content_hash not in hits})
        bm25 = {h.chunk.content_hash: h.keyword_score for h in keyword}
        unit = whole / (float(np.linalg.norm(whole)) or 1.0)
        out = []
        for i, (key, score) in enumerate(rrf_fuse(lists, self.rrf_k)[:top_k], start=1):
            h = hits[key]
            vec = np.asarray(h.vector, dtype=np.float32)
            sim = float(np.clip(vec @ unit / (float(np.linalg.norm(vec)) or 1.0), 0.0, 1.0))
            update = {"similarity": sim, "score": score, "rank": i, "keyword_score": bm25.get(key)}
            out.append(h.model_copy(update=update))
        return out

    LanceDBIndex.search = search  # type: ignore[method-assign]
    made = Retriever.__init__

    def init(self: Retriever, embedder: Any, index: Any, *args: Any, **kwargs: Any) -> None:
        made(self, embedder, index, *args, **kwargs)
        index.focus_embedder = embedder

    Retriever.__init__ = init  # type: ignore[method-assign]


def _embed(index: Any, text: str) -> Any:
    """A part's query vector, from the embedder of the retriever on `index` (`patch_engine` notes it)."""
    return index.focus_embedder.embed_query(text)


def answers(args: argparse.Namespace) -> None:
    import runpy

    if args.min_words:
        patch_engine(args.min_words, args.scheme)
    sys.argv = ["bench/answer_quality.py", *args.rest]
    runpy.run_path(str(Path(__file__).parent / "answer_quality.py"), run_name="__main__")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("gather")
    g.add_argument("out")
    g.add_argument("pairs", nargs="+")
    g.add_argument("--split", default="all")
    s = sub.add_parser("score")
    s.add_argument("data", nargs="+")
    s.add_argument("--show", default="")
    s.add_argument("--top", type=int, default=1000)
    a = sub.add_parser("answers", help="bench/answer_quality.py with the fusion patched in")
    a.add_argument("--min-words", type=int, default=16, help="0: the engine as it is")
    a.add_argument("--scheme", default="sent", choices=SCHEMES)
    a.add_argument("rest", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    {"gather": gather, "score": score, "answers": answers}[args.cmd](args)


if __name__ == "__main__":
    main()
