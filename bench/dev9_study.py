"""What the ninth development set (bench/questions/dev9-*, followups-dev9-*; splits dev9 / dev9hold) showed,
and what was changed for it.

    PYTHONHASHSEED=0 .venv/bin/python bench/dev9_study.py table PREFIX SET:SPLIT [SET:SPLIT ...]
    PYTHONHASHSEED=0 .venv/bin/python bench/dev9_study.py diff BEFORE AFTER SET:SPLIT [SET:SPLIT ...]

Both read bench/results/<PREFIX>-<SET>-<SPLIT>.json, as written by

    PYTHONHASHSEED=0 .venv/bin/python bench/answer_quality.py \\
        D/textbook-a bench/questions/SET-textbook-a.jsonl ... (b, c, d) --split SPLIT --out PREFIX-SET-SPLIT

(D=/work/shared/data/textbooks; the base: the same with PYTHONPATH=/tmp/base/src, main's src). `table` prints
per set, and pooled over the sets given: in-scope answered with a relevant file cited, every keyword among
the answered, follow-ups cited and keywords, near misses and out-of-scope refused, and the AUROC of the
confidence (answerable against unanswerable rows). `diff` lists the rows whose answer, cited relevance,
keywords or search query differ between two runs, marked better or worse.

The set: per book 16 in-scope questions in a reader's words (every one avoids the book's term: "wraps up a
quick job", "turned bright pink after I imported it", "rerun exactly the same test", "hang on to face
scans or fingerprints", "take back their permission"; situations first, yes/no, how many, compare),
6 near misses a neighbouring book covers and this one never mentions (grep-proven: ArUco, Dynamixel,
Gazebo actors, leg tracking, Jacobians/Pinocchio, speaker identification, wind, OpenVINO, Foxglove,
Unitree, TensorRT, zero moment point), 2 out-of-scope; 12 follow-up conversations per book (pronouns,
"and X?", "what makes that the better choice?", "the VSLAM one", two self-contained switches). The
topics avoid the earlier sets' facts where the books allow (book d: its ethics, applications and dialogue
chapters; book c: the module overviews and code READMEs; books a and b are nearly exhausted, so some
sections recur with other facts). bench/check_questions.py is clean against every earlier set.

Findings (Nov 2026, MiniLM, base main b411d95), dev9 (tuned half), before:
in-scope cited 18/32, follow-ups cited 16/24, near misses refused 9/12.

    class (dev9, base)                                      rows
    refused, a relevant file in the top 5                   7   everyday words the passages lack:
                                                                "rerun", "reuse", "risks" (the book
                                                                has psychological_risk_factors),
                                                                "lots", "job", "grab", "blame"
    refused, no relevant file in the top 5                  2
    answered, a relevant file cited, keyword missing        7   the writer's passage is another section
    answered, no relevant file cited                        5
    follow-ups misread                                      4   "what makes that the better choice?"
                                                                -> "what makes course ..."; "the VSLAM
                                                                one" searched alone; "it" after "what
                                                                kinds of personal data does a home robot
                                                                collect?" -> "home robot kinds of
                                                                personal data"
    near misses answered                                    3   Gazebo actors, walking people, speaker
                                                                identification: every word is the
                                                                book's

Kept (each with unit tests; every other tuned row unchanged unless said):
- answerability: a word of a snake_case name counts in any form ("risks" in psychological_risk_factors;
  a name's everyday words such as get/set, zipf >= 5.5, do not); a rare "re-" verb meets its plain verb
  ("rerun", "reuse": zipf < 3.5, the rest >= 2.5; not "remove", "record", "reward"); "lots"/"plenty"
  name no topic. dev9 +3 in-scope, +1 follow-up; train +1 (tc-in-18).
- follow-ups: after a question asking for advice ("recommend", "suggest"), "what makes that ...?" /
  "why is that ...?" is about what was advised (the whole question in brackets); "course", "textbook",
  "tutorial" are never a subject, like "book". dev9 +1 follow-up; one other query loses "course".
- follow-ups: "the <word> one" whose kind the question never names (only how long / how much it asks)
  leans on the previous turn, however much of a name the word is. The query reads right; the answer is
  unchanged (retrieval finds another chapter).
- follow-ups: after "which <things> does <owner> <verb>?", one "it" is the owner, and "kinds of" asks
  for the things. Four queries on the tuned sets read better; answers unchanged.

    set                    before: cited  kw     fu cited  fu kw  NM ref  OOS ref  AUROC
    dev9 (tuned)                  56.2%  47.8%   66.7%    66.7%  75.0%   100%    84.4%
      after                       65.6%  53.8%   75.0%    70.0%  75.0%   100%    85.5%
    dev9hold (held back)          59.4%  47.8%   70.8%    63.6%  91.7%   100%    94.7%
      after                       62.5%  50.0%   70.8%    63.6%  91.7%   100%    95.3%
    other tuned sets, pooled      79.7%  75.1%   95.2%    83.0%  87.5%   100%    96.1%
      after                       79.9%  75.1%   95.2%    83.0%  87.5%   100%    96.1%
    held back, pooled             77.6%  70.3%   84.9%    77.6%  92.5%   100%    96.5%
      after                       77.6%  70.3%   84.3%    77.5%  91.7%   100%    96.4%

(other tuned: reader tune, train all, dev2 all, dev5..dev8 tuned halves, followups-dev..dev8 tuned
halves; held back: reader holdout, fresh, dev5hold..dev8hold, followups-dev4hold..dev8hold. The held-back
pool lost one follow-up (fresh) and one near miss (dev5hold); its rows were not looked at.)

Not fixed: the writer's choice of passage when the right one is in the top 5 (7 keyword misses); the
remaining refusals, whose missing words are everyday synonyms of the book's ("job"/"task",
"grab"/"grasp", "shop"/"retail", "blame"/"responsibility") that no general rule maps; near misses whose
every word the book uses.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from study_tables import main

if __name__ == "__main__":
    main(__doc__)
