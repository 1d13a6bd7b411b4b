"""What the sixteenth development set (bench/questions/dev16-*, followups-dev16-*; splits dev16 / dev16hold)
showed. Nothing in src/ was changed for it: this is the set, its first measurement and its failure census.

    PYTHONHASHSEED=0 .venv/bin/python bench/dev16_study.py table PREFIX SET:SPLIT [SET:SPLIT ...]
    PYTHONHASHSEED=0 .venv/bin/python bench/dev16_study.py census PREFIX SET:SPLIT [SET:SPLIT ...]
    PYTHONHASHSEED=0 .venv/bin/python bench/dev16_study.py diff BEFORE AFTER SET:SPLIT [SET:SPLIT ...]

Same commands and classes as bench/dev12_study.py (this file reuses its census), reading
bench/results/<PREFIX>-<SET>-<SPLIT>.json as written by

    PYTHONHASHSEED=0 .venv/bin/python bench/answer_quality.py \\
        D/textbook-a bench/questions/SET-textbook-a.jsonl ... (b, c, d) --split SPLIT --out PREFIX-SET-SPLIT

Why this round: held-back follow-ups are cited less often (83.7%) than tuned ones (93.6%), so the set is
weighted to follow-ups. Per book 12 in-scope questions, 4 near misses, 2 out-of-scope and 16 follow-up
conversations: 13 dependent (fu-01..fu-12 and fu-16; fu-01..fu-03 three turns) and 3 self-contained second
questions (fu-13, fu-14, fu-15, dependent: false). Splits alternate dev16 / dev16hold within each kind (odd
numbers tuned; per book 6/6 in-scope, 2/2 near misses, 1/1 out-of-scope, 8/8 follow-ups: tuned 6
dependent + 2 self-contained with two three-turn ones, held back 7 + 1 with one). Dependent forms: ellipsis
("and services?", "and on the sensor side?"), pronouns ("how many times a second does it go round?",
"where does it send what it found?"), contrast ("why not just try it on the real robot straight away?",
"why not just run it on the CPU?", "why not just retry every time?", "how is a controlled stop
different?"), what-if ("what if the robot trips, what would it try first?", "what if the room is mostly
blank walls?", "what if it needs to say sorry?"), corrections ("no, I meant just the platform chapter",
"no, I meant the Unity scripts", "no, I mean the extensions it asks you to think about"), a number ("how
much is the presentation worth?", "how many episodes does it run?"), an example ("what would that look
like for grabbing a mug?") and a next step ("what comes after the Unity step?"). Written blind and
committed (6934553) before any engine run; check_questions.py clean against every other question file
of the same book (the dev16 / followups-dev16 pair included). In-scope paraphrase 11/12 (a, b, c) and
12/12 (d); the three that keep the book's term: d16a-in-05 (LangChain), d16b-in-06 (a launch-file
practice prompt), d16c-in-10 ("is ROS 2 an operating system").

Sources: file usage counted over every bench/questions record's expected files (held-back rows counted,
never printed), then, per book, the sections (by heading) in which no earlier keyword of a record
expecting that file falls (bench/check_questions.py-style grep, whitespace squeezed); each new keyword
was checked to be in no earlier record of the book. Books a and b are saturated (almost every section
already holds a keyword), so there the least-used content kinds were taken:
- a: the sensorimotor diagrams page (gantt "Pattern Recognition", dashboard "Cross-Task Transfer"), its
  exercises page (PID baseline, "safe testing", rubric), the capstone page (demo scenario, phases,
  grading), the Module 3 / 4 indexes, and code no earlier keyword touched: the behaviour action server
  ("behavior already in progress", the wave steps), the service server (/enable_motors), the launch file
  ('publish_rate': 50.0), the Unity demo scene manager (H key, 1-9 keys), the link-joint tree
  (l_shin_link), the grounding checks ("is not reachable"), the robot tools' grasp_type enum, the voice
  action client ("Could not understand command", pick_up_object), the speech node's device parameter;
- b: the nodes chapter's radio-station analogy, the cognitive-planning chapter (hierarchical task
  networks, "get mug", "fed back to the LLM", In-Context Learning, move_to_object), the Nav2 and VSLAM
  Isaac ROS sections and quiz answers, the try-with-AI prompts (launch file with an RViz2 instance, knee
  joint's upper_leg_link, RViz launch nodes, multi-robot namespaces, Nav2 recovery, RL balance platform,
  cloud ASR services), the capstone's conclusion;
- c: the Module 4 capstone's untouched parts (launch variants, node list, demo 2 / 3 metrics, error
  recovery, expected results, troubleshooting), the Gazebo balance exercise, Unity walls / ProBuilder /
  workflow, the sensor chapter's LiDAR and IMU collection scripts, the Module 2 index and code README,
  the ROS 2 overview's TODO page ("NOT an OS", "abstraction layer"), the URDF link anatomy, the VSLAM
  tuning exercise, the cleaning-robot prompt exercise;
- d (many unused sections): physical safety's emergency levels and shutdown procedures, the auditory
  feedback presets and voice tones, the kitchen assistant's safety rules, the capstone grade appeal,
  project overview technologies and requirements, texture / dynamics randomization, sources of the
  reality gap, the lab-4 training loop, dynamic-obstacle classes, Isaac lab-1 troubleshooting, the
  Module 3 troubleshooting guide's help section, the perception lab's LiDAR processor, the warehouse
  state machine, the dialogue and ethics exercises, the Module 4 summary's next steps.
Near misses, grep-proven absent over every file of the book and from every earlier question of it:
Porcupine, ElevenLabs, Pinocchio, LeRobot (a); LeRobot, Pinocchio, gRPC, rosbridge (b); LeRobot, gRPC,
ElevenLabs, OpenPose (c); gRPC, Porcupine, ElevenLabs, Segment Anything (d). Every keyword of both halves
was grepped over its book before the commit; where another file states the same fact it was added:
d16b-fu-02 (the voice-to-action chapter's "ask clarifying questions"), d16b-fu-10 (the URDF chapter's
and the Gazebo setup's joint_state_publisher_gui launch), d16d-fu-12 (the six Module 2 pages that say
ROS2 is connected to Gazebo "for hardware-in-the-loop testing"). Hits left as other facts: "3-4 hours"
of Module 1's index, "Command Interpreter" in the URDF chapter, "toy box" in example commands, "10.0"
elsewhere, the Isaac overview's general Stage panel text.

After the first tuned run one keyword was fixed, no question changed (cb6fc18): d16a-fu-07's
"Presentation | 10%" had been copied from a markdown table row, and answers render rows as "Presentation:
Weight: 10%", so it could never match; it is now the row's two cells, "Presentation" and "10%" (a grep
for |, backticks and ** over every keyword of the new sets: the only one).

Findings (Nov 2026, MiniLM, main f4afbea, no src change), the tuned half only:

    set                  cited        kw (of answered)  fu cited     fu kw        NM ref     OOS ref  AUROC
    dev16 first run      15/24 62.5%  12/19 63.2%       29/32 90.6%  15/30 50.0%  8/8 100%   4/4 100% 99.3%
    dev16 after the fix  15/24 62.5%  12/19 63.2%       29/32 90.6%  16/30 53.3%  8/8 100%   4/4 100% 99.3%
                                                                                 (pooled with fu: 99.7%)

(in-scope answered 19/24, a relevant file in the top 5 for 19/24, every keyword in the top 5 for 15/24;
paraphrased rows cited 15/23; follow-ups: dependent cited 21/24, self-contained 8/8 (kept as asked),
three-turn 7/8. The held-back half was not run.) By book, in-scope cited a 3/6, b 6/6, c 4/6, d 2/6;
follow-ups cited a 7/8, b 7/8, c 8/8, d 7/8. Follow-up citation is high, but half the cited follow-up
answers miss the keyword: the page is right, the passage that leads is a neighbour.

Failure census of the tuned half (census main dev16:dev16 followups-dev16:dev16, after the fix), 28 rows;
follow-ups with the search query the engine used:

    class                                        rows
    answered, cited, a keyword missing            16  the fact is in code / a dict / an XML or mermaid
                                                      node and prose of the same page led (8): a-in-01
                                                      (gantt "Pattern Recognition"; the diagram summary
                                                      list led), c-in-11 (the exercise's vacuum_floor;
                                                      the prompt-template list led), fu a-fu-03 ("and
                                                      what steps make up the wave (behavior action
                                                      server in the AI bridge chapter)?": exercise 4.2's
                                                      prose led), a-fu-15 (self-contained; the code's
                                                      learning_rate = 0.01, troubleshooting led), b-fu-11
                                                      ("which two parts does practice prompt about the
                                                      humanoid knee joint connect (ask for)?": the URDF
                                                      chapter's joint text led), c-fu-11 ("how heavy is
                                                      the torso in the example (link like in the URDF
                                                      chapter)?": mass in XML, RViz steps led), d-fu-07
                                                      ("how is a controlled stop different (immediate
                                                      stop procedure)?": the shutdown dict, bipedal
                                                      capturability led), d-fu-15 (self-contained; the
                                                      code comment "z < -0.5", a YAML range led);
                                                      a neighbouring passage of the right page led (7):
                                                      fu a-fu-01 ("and where does example node send its
                                                      commands (sensorimotor learning)?": the loop prose
                                                      led), b-fu-03 ("what's the way
                                                      around cognitive planning challenges for LLMs?":
                                                      the conclusion led), b-fu-09 ("and what is the
                                                      robot supposed to stay balanced on (reinforcement
                                                      learning practice page ...)?": the RL chapter intro
                                                      led), c-fu-07 ("what do the services of the nodes
                                                      chapter say about topics?": the elliptical "and
                                                      services?" swapped into the wrong slot; the
                                                      self-check answers led), c-fu-15 (self-contained;
                                                      Module 4's "10-14 hours" led Module 2's), d-fu-09
                                                      ("what are the conversation part for the module 4
                                                      capstone?": the capstone intro led), d-fu-11 (the
                                                      ethics chapter intro led);
                                                      right in substance (1): d-in-03 (quotes "Use
                                                      procedural texture generation"; the keyword is the
                                                      list's heading "Procedural Textures")
    answered, no relevant file cited               5  a-in-07 (busy action server: ch02 / ch15 / capstone
                                                      led, ch04 in the top 5), c-in-01 (local LLM launch:
                                                      the Whisper chapter and Module 4 index led, none in
                                                      the top 5), d-in-01 ("person getting too close":
                                                      the kitchen assistant and summary led), d-in-05
                                                      (reactive vs predictable obstacles: embodiment
                                                      pages led, none in the top 5), fu b-fu-07 ("what
                                                      does each copy need so spawning don't clash (one
                                                      robot Gazebo practice page)?": the Gazebo setup
                                                      lesson led, not the try-with-AI prompt)
    refused, a relevant file in the top 5          5  c-in-03 p 0.390 (tidy-up demo time), d-in-09 p
                                                      0.109 ("risky to handle" for hot_objects /
                                                      sharp_edges), d-in-11 p 0.223 ("wrap-up" for the
                                                      module summary), fu a-fu-09 p 0.244 ("where do the
                                                      speech side and the vision side come together in
                                                      that picture?": searched alone, the first turn's
                                                      "AI bridge chapter preview" lost), d-fu-03 p 0.393
                                                      (three turns: "and how long until I hear back
                                                      (looks at the appeal)?": the bracket took the second
                                                      turn's words, "grade appeal" lost)
    refused, none in the top 5                     2  a-in-05 p 0.014 (LangChain: only the Module 4
                                                      index's technology table, "LLM orchestration"),
                                                      a-in-09 p 0.181 ("how fast the joint data gets sent
                                                      out" for the launch file's publish_rate)
    near misses / out-of-scope answered            0

What the census says, for the next round (nothing here was tried):
- Follow-ups are cited (29/32) but the keyword is missed in 12 of 29 cited: the bracketed query names the
  page, and the leading passage is the page's prose or intro rather than the code / list item the second
  turn asks about (a-fu-03, c-fu-11, d-fu-07, b-fu-09).
- Two query-building misses: an elliptical "and services?" after "what do the key takeaways ... say about
  topics?" swapped into the wrong slot (c-fu-07), and a three-turn "and how long until I hear back?"
  bracketed with the second turn's words instead of the first turn's topic (d-fu-03, same shape as
  dev15's d-fu-03). A pronoun-free "in that picture" second turn was searched alone (a-fu-09).
- In-scope: book d's reader words for code identifiers ("too close" for human_too_close, "risky to
  handle" for hot_objects) refuse or go to another page.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from dev12_study import main

if __name__ == "__main__":
    main(__doc__)
