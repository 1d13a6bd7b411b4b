"""Which follow-up search queries a change to the rewriting (`lectern.followups`) changes: every
follow-up record of the question sets, its later turns rewritten by two source trees, compared. Seconds,
no index or model, so a rewrite change can be checked before the answer benchmark runs.

    .venv/bin/python bench/followup_query_ab.py BASE_SRC NEW_SRC

(BASE_SRC: e.g. `git -C /work/main archive main src | tar -x -C /tmp/base` and /tmp/base/src.) Prints,
for the tuning splits, each record whose queries differ (every later turn's `standalone_query` and the
last turn's `with_previous_topic`, the engine's second try). Held-back splits are only run with
`--held-back` (for whoever may run them), and then only how many differ is printed, since their rows
are not to be read.

Review 3 of follow-up readings (the probes in tests/unit/test_followups_more_documents.py), base main
b411d95: of the 292 tuning follow-ups (followups-dev dev, dev2 and dev3 all, dev4..dev8 tuned halves,
reader tune) 3 changed: d2c-fu-07 ("can i do it from rviz instead" after "how do i send a navigation goal
from python": "can i send a navigation goal from rviz", was "can i do navigation goal from python from
rviz instead"), d6b-fu-05 ("and for robots that drive around outdoors?" after "which sensors can Gazebo
fake for me?": "which sensors can Gazebo fake for robots that drive around outdoors?") and d3d-fu-10's
middle turn ("how long do I have (redo a project after I get feedback)?", was "(project after ...)"); of
the 172 held-back ones (followups-dev4hold..dev8hold, reader holdout, fresh) 6 changed. With
bench/answer_quality.py on the same sets: d2c-fu-07 is now refused (answerability 0.885 -> 0.157: any
query with "send ... from rviz" is, the first question asked that way too, since the book says "click 2D
Goal Pose" in RViz2; answered and cited again since coverage meets "rviz" in "RViz2"), d6b-fu-05
kept its answer; held back, followups-dev4hold follow-ups cited 95.0% -> 90.0% and keywords 85.0% ->
84.2%, every other held-back figure (dev5hold..dev8hold, reader holdout, fresh) unchanged;
bench/followup_misses.py refuses the same 23 of 28 and 107 of 120.

Review 4, a "that" for a situation (lectern/situations.py; the probes in
tests/unit/test_followups_clauses.py), base main 5d0df04; the tuning splits now take dev9 and train (all)
too. Of the 383 tuning follow-ups 4 changed, each from a clause glued in to the "that" kept with the
whole previous question in brackets: d8c-fu-05 ("how can I cut memory down (which model eats the most
memory in the capstone stack)?", was "how can I cut model eats the most memory down (capstone stack)?"),
d5d-fu-03 ("isn't that slow though (when should the robot redo ...)?"), d7b-fu-03 ("why is that so
important for the map (what happens when a mapping robot comes back ...)?") and d2c-fu-06 ("which file
do i change that in (How fast can the walking robot go forward under Nav2)"); of the 196 held-back ones
none. With bench/answer_quality.py: d8c-fu-05 is now answered, citing the expected file with every
keyword (answerability 0.369 -> 0.482; followups-dev8 dev8 cited 91.7% -> 95.8%, keywords 69.6% ->
70.8%); d5d-fu-03 still refused (0.146 -> 0.375), d7b-fu-03 (0.485 -> 0.656) and d2c-fu-06 (0.864 ->
0.944) answered as before; every other tuning row the same (followups-dev dev, dev2/dev3 all, dev4..dev9
tuned halves, reader tune, train all), and every held-back aggregate the same (followups-dev4hold..
dev9hold, reader holdout, fresh). The readings weighed, each asked alone (bench/answer_quality.py on
one book, so without the previous answer's files): for d5d-fu-03 the "that" with the whole previous
question scores 0.375, the doing as a gerund 0.176 ("isn't redoing its whole route slow though (robot,
instead of ...)?") or 0.182 ("... the robot's whole route ..."), all refused; for d8c-fu-05 the measure
for the "that" 0.607, the "that" kept 0.535, the clause glued in 0.369 (refused).

Review 5, the readings the eleventh set's misread follow-ups lacked (lectern/ordinals.py and
followups.py; the probes in tests/unit/test_followups_review5.py), base main 21c087d; the tuning splits
now take dev11 too. Of the 439 tuning follow-ups 10 changed, all of dev11: d11a-fu-13 and d11d-fu-09 (a
turn naming no thing, a letter grade) now carry the previous topic in brackets; d11d-fu-07 "what is the
sixth learning outcome of the humanoid robotics module?" (was "what are the sixth of ..."); d11c-fu-13
"what's the second failure mode (VLA diagrams file)?" (was "the second modes"); d11a-fu-07, d11b-fu-03,
d11b-fu-11, d11d-fu-05 name the listed thing ("the sixth exercise", "the third AI prompt", "the second
prompt", "the fourth area"); d11b-fu-01 "... of the manipulation part (final project)?"; d11b-fu-13
keeps its "it" with the VSLAM page in brackets. Of the 252 held-back ones 5 changed. With
bench/answer_quality.py: followups-dev11 dev11 cited 84.4% -> 90.6% (d11a-fu-13, d11d-fu-09 now
answered and cited), keywords 67.9% -> 70.0% (d11d-fu-07); d11b-fu-01 still refused (0.260 -> 0.398);
every other tuning set the same (followups-dev dev, dev2/dev3 all, dev4..dev10 tuned halves, reader tune).
Then "the <kind> one" after a question that lists things takes the listed head, singular
(`ordinals.kind_of_the_listed`): 5 more tuning queries changed, d7d-fu-03 "how far away does the public
zone start?" (was "the public one"), d9c-fu-01 "the VSLAM chapter", d10a-fu-01 "the most detailed
setting" (was "settings"), d11c-fu-05 "which version of the URDF package" (was "the URDF Unity"),
tc-fu-03 "the odometry topic"; of the held-back ones 1 more (6 in all against main). With
bench/answer_quality.py d7d-fu-03 loses its keyword ("3.6"; the same file cited, the writer takes the
code line `self.public_zone[0]` instead of the zone table: followups-dev7 keywords 91.7% -> 87.5%);
dev9, dev10, dev11 and train all the same.

Review 6, readings from 57 probe conversations over new kinds of documents (tests/unit/
test_followups_review6.py: the former/latter with a pair of phrases, "which lasts longer?", "step 3", "no,
X" and "sorry, X" as corrections, "the numerical kind", "a saltwater one", "... what now?", verb-like
nouns before a question's last verb, "which is better for young savers?", another owner after "what is
the <thing> of/for <owner>?" ("and cats?"), "same for X?" as "and X?", "them" after "what tools do I
need?"), base main 2f93e60. Of the 439
tuning follow-ups 2 changed: d7d-fu-07 "no, the numerical kind" after "what are analytical inverse
kinematics solutions?" is now "what are the numerical inverse kinematics solutions?" (was "no, the
numerical kind (analytical inverse kinematics solutions)"), and td-fu-04 (train) drops an article in its
brackets ("(static walk and dynamic walk)", was "(static walk and a dynamic walk)"); of the 252 held-back
ones 4 (not read). With bench/answer_quality.py (followups-dev dev, dev2/dev3 all, dev4..dev11 tuned
halves, followups-nm funm, reader tune, train all) only d7d-fu-07's answer text changed (cited, every
keyword, as before; score 0.851 -> 0.937) and td-fu-04 answered the same; every figure the same,
self-contained second questions 100% as asked where a set has them. Tried and dropped: a question
ending in "too" or "as well" pointing back as one ending in "instead" does ("can children come then
too?"); it read d2d-nm-12 "is mujoco one of the options too (physics engines for the simulations)?",
the meant reading, but that near miss was then answered (score 0.542, was refused with no passages):
followups-dev2 near misses refused 75.0% -> 62.5%.

Review 7, the twelfth set's misread follow-ups (tests/unit/test_followups_review7.py: ordinal picks after
"list the X ...", "number N", a counting ordinal as no topic word, "on what graphics card?", "that one"
after "which X ...?", a subject cut before a comparison, an adverb after a which-question's verb, a
pronoun for a how-to's or a passive's clause kept with the doing in brackets, a describing word swapped
by a correction), base main 6323d8f; the tuning splits now take dev12 and followups-nm funm too. Of the
491 tuning follow-ups 7 changed: d12a-fu-13 "what does the second practice task ask me to build (at the
end of the speech chapter)?" (was "the second one"), d12b-fu-11 "explain the third prompt more
(try-with-AI page for rclpy suggest exploring)" and d12c-fu-16 "on what graphics card (GPU VSLAM chapter
process fast camera frames)?" (both searched alone before), d12d-fu-08 "explain the fifth course-level
learning objective?" (was "explain number five"), d12c-fu-08 "and what does it print when the file is
fine (check that my URDF file is valid)?" (was "what does URDF file is valid print ..."), d12c-fu-11
"how much GPU memory does the speech model size need (diagram notes)?" (was "the one"), and the near miss
fnma-03 "so can Nav2 climb stairs (harder for a walking robot than a wheeled)?" (was "Nav2 harder"); of
the 304 held-back ones 3 (not read). With bench/answer_quality.py (followups-dev dev, dev2/dev3 all,
dev4..dev12 tuned halves, followups-nm funm, reader tune): followups-dev12 dev12 cited 84.4% -> 90.6%
(d12b-fu-11, d12c-fu-08 now cite the expected file), keywords 80.0% -> 83.3% (d12c-fu-16); d12a-fu-13
still answered from the wrong chapter (0.855 -> 0.839), d12d-fu-08 still refused (0.423 -> 0.402; asked
alone "explain course-level learning objective 5" is answered but cites no expected file), d12c-fu-11
answered and cited as before; fnma-03 answered as before (it was already; funm near misses refused
65.0% both); every other figure the same, self-contained second questions 100% as asked. Tried and
dropped: a pronoun for any clause with a "be" or an auxiliary kept with the whole previous question in
brackets; it also answered the near miss d2a-nm-12 ("does it work on a macbook with apple silicon
(which graphics card is the minimum for nvidia's photoreal simulator)?", score 0.373 -> 0.585), so only
a how-to's clause or a passive's is read so. Also dropped: "it" after a how-to as the object without its
prepositional phrase ("headphones", the "with my laptop" of "pair ... with" in brackets): 2 more tuning
queries changed (d11b-fu-07 "how many exercises does numbers show (MetricBadge component)?", d11c-fu-01
"service client (rclpy)"), 5 more held-back ones, and 16 earlier probe readings broke ("where are they
stored?" after "how do I configure backups for the database cluster?" is about those backups: a phrase
after the object may be part of the thing, and nothing in the words says which).

Review 8 (the probes in tests/unit/test_followups_review8.py: "is there a time limit?", "where do I see
the results?", a pronoun after a "what about X?" that swapped a thing in, "the async one" after "an async
client", "is there a fee?" after a how-to), base main 91674de: of the 491 tuning follow-ups none changed,
of the 304 held-back ones none. bench/answer_quality.py on followups-dev dev, followups-dev2/dev3 all,
followups-dev4..dev12 tuned halves, followups-nm funm and reader tune, base and new: no row changed
(answered, cited, keywords, query, text), so every figure is the same (follow-ups cited e.g. dev 97.9%,
dev2 97.5%, dev3 87.5%, dev10 83.3%, dev12 90.6%; near misses refused funm 65.0%, dev2 75.0%). The rules
fire only on wordings the tuned sets do not use; the probes are their evidence.

Review 9 (fu15; the probes in tests/unit/test_followups_review9.py: a pronoun opening a swapped clause or
a "what if", a verb no word list has ending the subject, a need or a step left out after a how-to, a
"when" and an "if" condition swapping for each other), base main f0edcee; the tuning splits now take
dev13 (and the held-back ones dev13hold). Of the 515 tuning follow-ups 9 changed: d13b-fu-01, -03, -05,
-09 lost the carried verb ("what task does conceptual RL environment prompt assume?", was "... prompt ask
assume?"; -03 and -09 keep a last-word verb in brackets, "(ask for)", "(ask)"), d13c-fu-05 "can I get
away without installing Ubuntu (module 1 software)?" (was searched alone), d13d-fu-01 "what should I
check when my robot model loads but ...?" and d13d-fu-05 "what should I do if my controllers load but
...?" (was "it"/"they"), d10d-fu-11 and d11d-fu-11 the second try's brackets without "ask me to ...";
of the 328 held-back ones 11. bench/answer_quality.py, base and new, on followups-dev dev, dev2/dev3 all,
dev4..dev13 tuned halves, followups-nm funm, reader tune and train all: followups-dev13 dev13 cited 17
-> 19 of 24, keywords 14 -> 15, answered 20 -> 21 (d13d-fu-01 now answered and cited, 0.149 -> 0.840;
d13d-fu-05 now cites the expected file; d13b-fu-09 now has its keyword); d13b-fu-05 still refused (0.375
-> 0.307), d13c-fu-05 still refused (0.000 -> 0.121), d11d-fu-11 answered and cited as before (0.811 ->
0.739); every other row of every set the same, funm near misses refused 13 of 20 both.

Review 10 (fu16; the probes in tests/unit/test_followups_review10.py: a follow-up with no pronoun that takes
the previous turn as said, `_presupposes_previous`: "each"/"every" and a noun with nothing saying of what,
what falls or counts under a heading, "the <kind>" one of the things a contents or which-things question
asked for, a need's indefinite object before "when I use it"; and a "what if they/it" naming a subject
right after do/does/can, `_named_after_auxiliary`), base main a71edf2. Of the 515 tuning follow-ups 3
changed, the three the previous round left: d13a-fu-07 "what counts under learning performance (rubric for
the sensorimotor learning exercises weigh)?", d13c-fu-09 "what does the visual grounding node combine
(VLA module's code examples folder)?", d13d-fu-09 "how many points is each written answer worth (week 1
quiz)?" (each was searched alone first, and the engine's second try already searched the bracketed
query); of the 328 held-back ones 4 (not read). bench/answer_quality.py, base and new, on followups-dev
dev, dev2/dev3 all, dev4..dev13 tuned halves, followups-nm funm, reader tune and train all: only those
three rows changed, each answered and cited with its keyword before and after; d13a-fu-07 score 0.724 ->
0.828, d13d-fu-09 0.663 -> 0.825 (low -> medium), d13c-fu-09 0.605 -> 0.536 (low both; an expected file now
in the top five); every figure the same (followups-dev13 dev13 answered 21, cited 19, keywords 15 of 24),
funm near misses refused 13 of 20 both.

Review 11 (fu17; the probes in tests/unit/test_followups_review11.py: what counts under a standard after a
how-to, `_asks_what_qualifies`; "is X extra/included/covered?", `_EXTRA_OR_INCLUDED`; a participle or
adjective after the kind asked for, `_without_predicate`; a contraction after a named "they"/"it",
`_uncontracted`), base main 3077887, tuning splits only (held-back ones now run only with --held-back):
of the 515 tuning follow-ups none changed. bench/answer_quality.py, base and new, on followups-dev dev,
followups-dev2 dev2, followups-dev3 dev3, followups-dev4..13 devN, followups-nm funm, reader tune and
dev13 dev13: no row differs (every field but the timings).

Review 12 (fu18; the probes in tests/unit/test_followups_review12.py: a closing "then", "the X supposed to", a
measure or time of "the X" after a how-to, "count as" a gerund, "counts for/towards the <part or mark>", the
measure verb ending "how much does X cost?", a label's number before a last-word verb, "which of them" without
the agreeing verb, "the <two words> one", a name's verb before a preposition), base main 9f10ece; the tuning
splits now take dev14 (and the held-back ones dev14hold). Of the 539 tuning follow-ups 8 changed: d10b-fu-03
"does DDS include any protection against outsiders (bring to ROS 2)?" (was "does DDS bring to ROS 2 include
...?"; refused both, 0.365 -> 0.425); d14a-fu-05 "what does the sensor model one mean (listed in the digital
twin module)?" (alone before; the brackets lose "key concepts", which `topic_of` drops as document words),
d14c-fu-07 "when should I pick a service then (decision guide for topics, services and actions)?" and
d14b-fu-03 "which package is the model file supposed to sit in (second URDF try-with-AI prompt ask for)?"
(both searched alone before), d14a-fu-09 "what counts for the conversation part (module 4 skills)?" (alone
before), d14c-fu-01 "... before starting chapter 3 of the ROS module (teach)?" (was "... module teach?"),
d14a-fu-07 "which of the code examples starts several nodes at once (...)?" (was "... examples come starts
..."), d6d-fu-07 "what graphics card then (computer for this course)?". bench/answer_quality.py, base and new,
on followups-dev dev, followups-dev2 dev2, followups-dev3 dev3, followups-dev4..14 devN, followups-nm funm,
reader tune and dev14 dev14: followups-dev14 dev14 answered 21 -> 23, cited 19 -> 21 of 24, keywords 10 -> 14
(d14a-fu-05 gains its keyword, 0.846 -> 0.942; d14c-fu-07 0.162 -> 0.890 and d14b-fu-03 0.340 -> 0.807 now
answered, cited, with the keyword; d14a-fu-09 gains its keyword, 0.679 -> 0.814; d14c-fu-01 0.741 -> 0.873 and
d14a-fu-07 0.901 -> 0.929 the same marks); d6d-fu-07 answered, cited, keyword as before (0.694 -> 0.562, low
both); every other row of every set the same; bench/followup_misses.py refuses 23 of 28 and 107 of 120 before
and after.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

QUESTIONS = Path(__file__).parent / "questions"
TUNING = [
    ("followups-dev", "dev"),
    ("followups-dev2", "all"),
    ("followups-dev3", "all"),
    *((f"followups-dev{n}", f"dev{n}") for n in range(4, 17)),
    ("followups-nm", "funm"),
    ("reader", "tune"),
    ("train", "all"),
]
HELD_BACK = [
    *((f"followups-dev{n}", f"dev{n}hold") for n in range(4, 17)),
    ("followups-nm", "funmhold"),
    ("reader", "holdout"),
    ("fresh", "fresh"),
]

# Run under each source tree: the queries of every follow-up record of the sets named on its stdin.
_QUERIES = """
import json, sys
from lectern.followups import standalone_query, with_previous_topic
out = {}
for name, split, path in json.load(sys.stdin):
    for line in open(path, encoding="utf-8"):
        record = json.loads(line)
        turns = record.get("turns")
        if not turns or (split != "all" and record.get("split", "tune") != split):
            continue
        queries = [standalone_query(turns[i], turns[:i]) for i in range(1, len(turns))]
        queries.append(with_previous_topic(turns[-1], turns[:-1]))
        out[f"{name}:{split}/{record['id']}"] = {"turns": turns, "queries": queries}
print(json.dumps(out))
"""


def queries(src: str, sets: list[tuple[str, str]]) -> dict[str, dict[str, list[str]]]:
    files = [
        (name, split, str(p))
        for name, split in sets
        for p in sorted(QUESTIONS.glob(f"{name}-textbook-*.jsonl"))
    ]
    env = {**os.environ, "PYTHONPATH": src, "PYTHONHASHSEED": "0"}
    done = subprocess.run(
        [sys.executable, "-c", _QUERIES],
        input=json.dumps(files),
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout)


def main() -> None:
    # only the tuning splits are run unless asked: held-back rows are the lead's to run (the count only)
    base, new = sys.argv[1:3]
    runs = [("tuning", TUNING)]
    if "--held-back" in sys.argv[3:]:
        runs.append(("held back", HELD_BACK))
    for label, sets in runs:
        before, after = queries(base, sets), queries(new, sets)
        changed = [key for key in before if before[key]["queries"] != after[key]["queries"]]
        print(f"{label}: {len(before)} follow-ups, {len(changed)} with a changed query")
        if label == "tuning":
            for key in changed:
                print(f"  {key} {before[key]['turns']}")
                for old, now in zip(before[key]["queries"], after[key]["queries"], strict=True):
                    if old != now:
                        print(f"    was: {old}\n    now: {now}")


if __name__ == "__main__":
    main()
