"""What the fourteenth development set (bench/questions/dev14-*, followups-dev14-*; splits dev14 / dev14hold)
showed. Nothing in src/ was changed for it: this is the set and its failure census.

    PYTHONHASHSEED=0 .venv/bin/python bench/dev14_study.py table PREFIX SET:SPLIT [SET:SPLIT ...]
    PYTHONHASHSEED=0 .venv/bin/python bench/dev14_study.py census PREFIX SET:SPLIT [SET:SPLIT ...]
    PYTHONHASHSEED=0 .venv/bin/python bench/dev14_study.py diff BEFORE AFTER SET:SPLIT [SET:SPLIT ...]

Same commands and classes as bench/dev12_study.py (this file reuses its census), reading
bench/results/<PREFIX>-<SET>-<SPLIT>.json as written by

    PYTHONHASHSEED=0 .venv/bin/python bench/answer_quality.py \\
        D/textbook-a bench/questions/SET-textbook-a.jsonl ... (b, c, d) --split SPLIT --out PREFIX-SET-SPLIT

The set: per book 16 in-scope questions, 6 near misses, 2 out-of-scope and 12 follow-up conversations (10
dependent, one of them three turns: the tuned half's fu-03 for books a, c, d, the held-back fu-04 for b; 2
self-contained second questions, dependent: false). Splits alternate dev14 / dev14hold within each kind (odd
numbers tuned; per book 8/8, 3/3, 1/1, 6/6 with 5+1 dependent+independent each), fixed and committed
before any engine run. Sources: file usage was counted over every bench/questions record's expected files
and the facts came from the least-used files, each keyword checked against every earlier keyword of the
same book whose record expects the same file (a clash with a held-back row was counted, never printed):
book a's course intro, the module-1, module-2 and module-4 indexes (prerequisites, week plan, example
file trees, key concepts, resources, assessment tables); book b's intro and the try-with-AI prompt pages
(VSLAM, capstone, Unity, voice, planning, GPT, URDF, Gazebo, Nav2) and the capstone quiz; book c's intro,
the module-1 index and its ROS-overview chapter (ROS 1 vs 2 table, QoS table, graph example), the
module-3 index; book d's intro, hello page, course conclusion, the module-4 index and 4.4 index, the
module-3 lab template, the module-3 assessment and the perception lab (3.2). Reader wording that avoids
the book's term in 62/64 in-scope questions ("robots that listen and talk" for VLA, "a flat laser
scanner" for a 2D LiDAR, "a Windows laptop" for WSL2, "the part of the simulator that works out how things
move and bump" for the physics engine, "the mapping-and-locating prompt" for VSLAM, "a separate safety
watchdog" for the safety layer, "the route planner ... a robot that walks instead of rolls" for Nav2 on a
biped, "hold on to only the latest few messages" for Keep-last, "the project talk" for the presentation,
"the route-finding questions" for navigation, "graphics card" for GPU); the two that keep it: "what is
an AI Driven system" (b-in-01) and "the robot brain module" (c-in-05, the module's own title). Near
misses grep-proven absent over the whole book and over every earlier question: PX4, tf_echo, GTSAM, udev,
vLLM, harmonic drive, ElevenLabs, tmux, Modbus, BLDC, chrony, Simulink, KiCad, soldering, Teensy,
Iceoryx, Tailscale, Spot SDK, STM32, I2C, Brax, dual boot, VESC, dialout. check_questions.py clean
against every other set of the same book before the first run; every keyword was also grepped over its
book with whitespace squeezed (the other hits are other facts: a reference title, another chapter's
time, a docstring, a CLI mention, another experiment's bounding boxes).

After the first tuned run two records were fixed where a grep showed a second file stating the same fact
(no question changed): d14c-in-07 gained the Nav2 chapter ("Configure Nav2 for bipedal robots
(footprint, velocity limits, inflation radius)") and the VSLAM chapter's "What's Next" (same words), the
keyword is now "footprint", the word all three share; d14b-fu-05 gained the Unity lesson ("Use the
URDF-Importer to bring your humanoid robot model into Unity") and the Unity quiz, keyword now "Importer"
(the prompt page writes "URDF Importer", the others "URDF-Importer"). Both facts had been asked before in
those other files' words (an earlier keyword "footprint" on the Nav2 chapter, "urdf-importer" on the
Unity lesson): the index/prompt sentences were new, the fact was not. Left as written although arguably
strict: d14d-fu-11 (the lab template's Prerequisites list answers "what to check before starting" as
well as its Pre-Lab Setup's "Verify Isaac ROS bridge"), d14a-fu-05 (the Sensors chapter's "Key Sensor
Model Components ... Noise Model" answers in other words than the index's "noise characteristics").

Findings (Nov 2026, MiniLM, main 0cae56c, no src change), the tuned half only:

    set                  ans    cited        kw (answered)  fu cited     fu kw        NM     OOS  AUROC
    dev14 first run      22/32  14/32 43.8%  10/22 45.5%    18/24 75.0%   9/21 42.9%  12/12  4/4  99.8%
    dev14 after the fix  22/32  15/32 46.9%  10/22 45.5%    19/24 79.2%  10/21 47.6%  12/12  4/4  99.8%
                                                                         (pooled with fu: AUROC 99.9%)

(a relevant file in the top 5 for 24/32 in-scope, every keyword in the top 5 for 16/32; paraphrased rows
cited 14/30; the four self-contained follow-ups kept as asked, 4/4. The held-back half was not run.)
This is the hardest set so far on citation (dev13 68.8%, dev12 75.0%): the facts sit in index pages,
prompt lists and answer keys that share their words with the long chapters they summarise.

Failure census of the tuned half after the fix (census main dev14:dev14 followups-dev14:dev14), 36 rows:

    class                                        rows
    answered, cited, a keyword missing            14  the right page, another passage of it led: c-in-07
                                                      (the Nav2 chapter's DWB velocity block, not the
                                                      objectives line), c-in-09 (the overview's DDS and
                                                      history bullets, not the ROS 1 vs 2 table's "Custom
                                                      TCPROS"), c-in-13 (its "What is ROS 2" bullets, not
                                                      the DDS one),
                                                      d-in-11 (the test's question 8 quoted, not its answer
                                                      key "C) Perception Manager"), b-in-09 (the Unity
                                                      lesson's Robotics Hub list, not the prompt's
                                                      sensor_msgs/JointState); follow-ups: a-fu-05, a-fu-09
                                                      (chapter 16's exercise led the index's assessment
                                                      table), b-fu-01, b-fu-09 (the rewrite "what example
                                                      problems does prompt covers moving the final project
                                                      robot list" pulled the planning prompts), c-fu-01
                                                      ("before starting chapter 3 of the ROS module teach?":
                                                      the first turn's verb kept), c-fu-03 (three turns:
                                                      "which controller does chapters of module 3 use?", the
                                                      second turn's frame lost), d-fu-03 (three turns
                                                      compressed to "module 3 assessment's first question":
                                                      section 1's rubric quoted), d-fu-05 (question 13
                                                      quoted, not its answer key), d-fu-11 (see above)
    refused, a relevant file in the top 5         10  everyday words missing from every passage: a-in-11
                                                      "flat" (2D), a-in-15 "look", "breaks" (Common Errors:
                                                      Troubleshooting guides), b-in-07 "watchdog", "eye"
                                                      (safety layer monitors), b-in-11 "online" (cloud-based
                                                      ASR), c-in-05 "word-wise" (23,200+ words), d-in-05
                                                      "wrap-up", "qualifications" (certifications), d-in-13
                                                      "badly", "route-finding" (navigation), d-in-15 "card"
                                                      (GPU); follow-ups c-fu-07 ("when should I pick a
                                                      service then?" searched alone) and c-fu-09 ("which
                                                      command line tools should I try while experimenting?"
                                                      searched alone)
    answered, no relevant file cited               9  a chapter that shares the words led the index or
                                                      intro that holds the fact: a-in-05 (Unity chapter for
                                                      "game engine"; the forum link is in the module index),
                                                      a-in-13 (LLM chapters for the index's assessment row),
                                                      b-in-05 (VSLAM chapter for the prompt's "remote
                                                      monitoring station"), c-in-01 (module-3 index and VLA
                                                      tables for intro's "Python recommended"), c-in-11
                                                      (chapter 2's message table for the overview's QoS
                                                      table), d-in-01 (assessments.md's weights for the
                                                      module-4 index's "presentation 10%"), d-in-07 (module
                                                      2's own pages for the conclusion's summary of module
                                                      2); follow-ups c-fu-05 ("what message type does the
                                                      vision node send out?" searched alone), d-fu-01 ("when
                                                      is the final report due": the capstone's timeline
                                                      pages led the module-4 index)
    refused, none in the top 5                     3  b-in-03 "weigh", "prompt" (the VSLAM prompt's camera
                                                      comparison), c-in-03 "chat", "readers" (GitHub
                                                      Discussions); follow-up b-fu-03 ("which package is the
                                                      model file supposed to sit in?" searched alone)
    near misses / out-of-scope answered            0

(the refused rows' words are from bench/dev7_study.py `why` on main-dev14-dev14.json; the follow-up
rewrites are the rows' search_query.)

What the census says, for the next round (nothing here was tried):
- Summary pages lose to the chapters they summarise (9 rows answered without the right file): an index's
  assessment table, a conclusion's module list, an intro's prerequisites share every content word with a
  longer chapter, and the chapter wins. Citation is the weak figure here, not refusal.
- Four follow-ups were searched alone with no pronoun in the second turn ("when should I pick a service
  then?", "which command line tools should I try while experimenting?", "which package is the model file
  supposed to sit in?", "what message type does the vision node send out?"): the same gap as dev13's
  "can I get away without installing Ubuntu?". Three-turn rewrites (c-fu-03, d-fu-03) kept the first
  turn's frame and dropped the second's.
- Answer keys: two rows (d-in-11, d-fu-05) quote the test question and not the answer-key line below it.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from dev12_study import main

if __name__ == "__main__":
    main(__doc__)
