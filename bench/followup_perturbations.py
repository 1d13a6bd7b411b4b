"""Does the follow-up rewrite read a question the same way when it is dressed differently? A probe of
rules fitted to one phrasing: each later turn of the tuned follow-up records is rewritten as asked and
in variants that mean the same (a courtesy word at either end, an acknowledgement or an "ok," before
it, a capital letter, no question mark), and a variant whose search query has other content words
than the plain question's counts as a break. Seconds, no index or model.

    .venv/bin/python bench/followup_perturbations.py [--rounds design|pseudo-held] [--show N]
    .venv/bin/python bench/followup_perturbations.py --write DIR   # dressed question files, end to end:
    bench/answer_quality.py $D/textbook-a DIR/VARIANT/followups-devN-textbook-a.jsonl ... --split devN

The rounds are those of bench/followup_rounds.py (design: followups-dev, dev2, dev3, dev4..dev13 tuned
halves and followups-nm funm; pseudo-held: dev14..dev16 tuned halves). Held-back splits are never read.
"and ..." before a question is no variant that means the same (it makes a question lean on the
previous one), so it is left out.

Breaks per variant (please-end, please-start, thanks-start, ok-start, also-start, then-end, capital,
lower, no-mark). Main 68d2493 + the general "one" (cf6eb6f): design rounds (416 later turns) 39, 81, 81,
25, 86, 85, 1, 7, 0; pseudo-held (80) 5, 11, 11, 6, 11, 26, 0, 0, 0. With courtesy words, acknowledgements
and fillers set apart before the question read past (`lectern.courtesy.without_courtesy`):
design 0, 0, 0, 0, 0, 85, 1, 7, 0; pseudo-held 0, 0, 0, 0, 0, 26, 0, 0, 0. "lower" is names told by
their capitals ("palm-e", "vosk", "gpus"). Of the 595 tuned follow-up queries (bench/followup_query_ab.py)
3 changed: rb-fu-01 and ta-fu-05 drop their "ok,", d4c-fu-07 "wait, what's a namespace?" now carries the
previous question (answered and cited as before: no tuned outcome changed).

End to end (--write, then bench/answer_quality.py per round; bench/followup_rounds.py sums; follow-ups
cited / near misses refused; design rounds 388 follow-ups and 28 near misses, pseudo-held 80):
- as asked: main 363 / 19, pseudo 74; this branch 364 / 19, pseudo 74.
- ", please?": main 357 / 17, pseudo 69; this branch 365 / 18, pseudo 74.
- "thanks! ...": main 335 / 20, pseudo 69; this branch 364 / 18, pseudo 74.
- "also, ...": main 337 / 18, pseudo 70; this branch 363 / 16, pseudo 74.
- "and" dropped: main 354 / 20, pseudo 72; this branch 358 / 20, pseudo 72 (fragments read as "and ...").
The near misses refused under a variant fall back to what the branch refuses as asked (19): main refused
more of them dressed only because it no longer read them as follow-ups at all.
- "... then?": main 363 / 14, pseudo 76, self-contained kept as asked 2 of 47 (pseudo 0 of 16): a closing
"then" glues the previous topic onto any question. Tried: "then" leaning only for a question naming
SELF_CONTAINED_WORDS topic words or fewer: as asked 39 of 47 (pseudo 13 of 16), but cited 362, pseudo 74
(d14c-fu-09, d16a-fu-09 lost: "which command line tools should I try while experimenting then?" leans
with five topic words); reverted, as it loses on the pseudo-held rounds.
"""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Callable
from pathlib import Path

from lectern.followups import content_words, standalone_query

QUESTIONS = Path(__file__).parent / "questions"
DESIGN = [("followups-dev", "dev"), ("followups-dev2", "dev2"), ("followups-dev3", "dev3")]
DESIGN += [(f"followups-dev{n}", f"dev{n}") for n in range(4, 14)] + [("followups-nm", "funm")]
PSEUDO_HELD = [(f"followups-dev{n}", f"dev{n}") for n in (14, 15, 16)]
_OK = re.compile(r"^(?:ok|okay)\s*,\s*", re.IGNORECASE)


def _lower_first(q: str) -> str:
    return q[:1].lower() + q[1:]


VARIANTS: dict[str, Callable[[str], str]] = {
    "please-end": lambda q: q.rstrip("?").rstrip() + ", please?",
    "please-start": lambda q: "please " + _lower_first(q),
    "thanks-start": lambda q: "thanks! " + _lower_first(q),
    "ok-start": lambda q: q if _OK.match(q) else "ok, " + _lower_first(q),
    "also-start": lambda q: "also, " + _lower_first(q),
    "then-end": lambda q: q.rstrip("?").rstrip() + " then?",
    "capital": lambda q: q[:1].upper() + q[1:],
    "lower": lambda q: q.lower(),
    "no-mark": lambda q: q.rstrip("?").rstrip(),
    "drop-and": lambda q: re.sub(r"^and\s+", "", q, flags=re.IGNORECASE),
}


def records(rounds: list[tuple[str, str]]) -> list[dict[str, object]]:
    out = []
    for name, split in rounds:
        for path in sorted(QUESTIONS.glob(f"{name}-textbook-?.jsonl")):
            for line in path.read_text().splitlines():
                if line.strip():
                    r = json.loads(line)
                    if r.get("split") == split and len(r.get("turns") or []) >= 2:
                        out.append(r)
    return out


def write(out: Path) -> None:
    """Every follow-up question file of the design and pseudo-held rounds with its later turns dressed,
    one folder per variant (DIR/VARIANT/NAME-textbook-X.jsonl), tuned records only, for
    bench/answer_quality.py to ask end to end."""
    for label, dress in VARIANTS.items():
        folder = out / label
        folder.mkdir(parents=True, exist_ok=True)
        for name, split in DESIGN + PSEUDO_HELD:
            for path in sorted(QUESTIONS.glob(f"{name}-textbook-?.jsonl")):
                kept = []
                for line in path.read_text().splitlines():
                    if not line.strip():
                        continue
                    r = json.loads(line)
                    if r.get("split") != split:
                        continue  # another round's or a held-back record: not copied
                    if len(r.get("turns") or []) >= 2:
                        r["turns"][-1] = dress(r["turns"][-1])
                    kept.append(json.dumps(r))
                (folder / path.name).write_text("\n".join(kept) + "\n")


def _words(text: str) -> set[str]:
    return {w.lower() for w in content_words(text)} - {"please", "thanks", "ok", "okay"}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rounds", choices=("design", "pseudo-held"), default="design")
    parser.add_argument("--show", type=int, default=5, help="breaks to print per variant")
    parser.add_argument("--write", metavar="DIR", help="write the dressed question files under DIR/VARIANT")
    args = parser.parse_args()
    if args.write:
        write(Path(args.write))
        return
    rows = records(DESIGN if args.rounds == "design" else PSEUDO_HELD)
    print(f"{args.rounds}: {len(rows)} later turns")
    for label, dress in VARIANTS.items():
        breaks = []
        for r in rows:
            turns = [str(t) for t in r["turns"]]  # type: ignore[attr-defined]
            plain = standalone_query(turns[-1], turns[:-1])
            dressed = standalone_query(dress(turns[-1]), turns[:-1])
            if _words(dressed) != _words(plain):
                breaks.append((r["id"], turns[-2], dress(turns[-1]), plain, dressed))
        print(f"{label:13} {len(breaks)} breaks")
        for rid, before, asked, plain, dressed in breaks[: args.show]:
            print(
                f"    {rid} after {before!r}: {asked!r}\n      plain   {plain!r}\n      dressed {dressed!r}"
            )


if __name__ == "__main__":
    main()
