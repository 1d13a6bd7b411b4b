"""The answerability decision's pieces: word rarity, the signals, the model's levels and reasons, and the
sentence-vector store behind the sentence signals."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from numpy.typing import NDArray

from lectern.answerability import (
    FEATURES,
    WORD_WEIGHT,
    AnswerabilityModel,
    Signals,
    StepFunction,
    _numeral_forms,
    _with_root,
    carried_words,
    clause_parts,
    done_again,
    everyday_form,
    is_compound,
    load_model,
    measures_asked,
    question_terms,
    rarity,
    sentence_parts,
    signals,
    uncapitalised,
    written_forms,
)
from lectern.english import clipped_forms, with_question_mark
from lectern.models import Chunk
from lectern.sentences import SentenceVectors
from lectern.writers.units import units_of
from tests.fakes.hash_embedder import HashEmbedder
from tests.unit.answer_support import hit

PASSAGES = [
    hit("Gazebo simulates robots with physics engines, cameras and lidar sensors.", 0.62),
    hit("A ROS 2 node publishes laser scans on a topic; RViz shows them.", 0.48),
]


def test_rare_words_weigh_more_than_everyday_ones() -> None:
    assert rarity("webots") > 0.9
    assert rarity("laptop") < 0.4
    assert rarity("the") == 0.0


def test_a_hyphenated_ordinary_word_is_rarer_than_its_rarest_part() -> None:
    # wordfreq reads "hand-eye" about as often as "eye": as one term it names something much rarer.
    assert rarity("hand-eye") > max(rarity("hand"), rarity("eye")) + 0.1
    assert rarity("text-to-speech") > rarity("speech") + 0.1
    # A name joined by a hyphen is looked up whole, as before.
    assert rarity("ML-Agents") == rarity.__wrapped__("ML-Agents")


def test_a_missing_everyday_word_still_weighs_in_coverage() -> None:
    # "keep" is everyday English, yet a question whose one rare word is covered loses some coverage to it.
    s = signals("How does Gazebo keep lidar?", PASSAGES, None, None, known=lambda w: True)
    assert s.missing == ("keep",)
    keep, gazebo, lidar = rarity("keep"), rarity("Gazebo"), rarity("lidar")
    expected = 1 - (WORD_WEIGHT + keep) / (3 * WORD_WEIGHT + keep + gazebo + lidar)
    assert s.as_dict()["cov"] == pytest.approx(expected)


def test_an_adjective_that_asks_for_a_measure_is_no_topic_word_when_missing() -> None:
    assert measures_asked("How far can the laser see, and how big is it?") == {"far", "big"}
    assert measures_asked("How does a far-field microphone work?") == frozenset()
    assert measures_asked("How many lidar beams?") == frozenset()  # "many" is no topic word anyway
    # Missing, "far" neither lowers coverage nor is reported missing ...
    s = signals("How far can Gazebo lidar see?", PASSAGES, None, None, known=lambda w: True)
    assert "far" not in s.missing
    plain = signals("Can Gazebo lidar see?", PASSAGES, None, None, known=lambda w: True)
    assert s.as_dict()["cov"] == plain.as_dict()["cov"]
    # ... while a missing "far" anywhere else in the question still counts.
    s = signals("Can Gazebo lidar see far?", PASSAGES, None, None, known=lambda w: True)
    assert "far" in s.missing
    # Present in the passages, the word counts like any other.
    near = [*PASSAGES, hit("The lidar reaches far: 30 m.", 0.4)]
    s = signals("How far can Gazebo lidar fly?", near, None, None, known=lambda w: True)
    assert s.missing == ("fly",)
    weights = {w: WORD_WEIGHT + rarity(w) for w in ("far", "Gazebo", "lidar", "fly")}
    assert s.as_dict()["cov"] == pytest.approx(1 - weights["fly"] / sum(weights.values()))


@pytest.mark.parametrize("word", ["suggest", "suggested", "advise"])
def test_a_word_asking_for_advice_is_no_topic_word_when_missing(word: str) -> None:
    # "which lidar does Gazebo suggest?": the passages give the advice, not the reader's word for asking.
    s = signals(f"Which lidar does Gazebo {word}?", PASSAGES, None, None, known=lambda w: True)
    assert word not in s.missing
    plain = signals("Which lidar does Gazebo have?", PASSAGES, None, None, known=lambda w: True)
    assert s.as_dict()["cov"] == plain.as_dict()["cov"] == 1.0
    # Present in the passages, it counts like any other word.
    advised = [*PASSAGES, hit(f"We {word} a 2D lidar.", 0.4)]
    s = signals(f"Which lidar does Gazebo {word} for flying?", advised, None, None, known=lambda w: True)
    assert s.missing == ("flying",)
    weights = {w: WORD_WEIGHT + rarity(w) for w in ("lidar", "Gazebo", word, "flying")}
    assert s.as_dict()["cov"] == pytest.approx(1 - weights["flying"] / sum(weights.values()))


def test_compound_names_must_appear_as_written() -> None:
    assert is_compound("ros2_control")
    assert is_compound("GPT4")
    assert not is_compound("box-shaped")
    assert "ros 2" in written_forms("ROS2")


def test_a_hyphen_before_a_capital_or_digit_joins_a_name() -> None:
    for name in ("ML-Agents", "RTAB-Map", "micro-ROS", "6-DoF", "Denavit-Hartenberg"):
        assert is_compound(name), name
    for modifier in ("LLM-driven", "camera-based", "ALOHA-style", "long-range"):
        assert not is_compound(modifier), modifier
    assert "ml agents" in written_forms("ML-Agents")


def test_a_hyphenated_name_is_missing_when_only_its_parts_appear() -> None:
    passages = [hit("Unity renders the scene; the agents are trained with reinforcement learning (ML).", 0.6)]
    s = signals("Can I train with ML-Agents in Unity?", passages, None, None, known=lambda w: True)
    assert s.missing == ("ML-Agents",)
    written = [hit("Unity's ML-Agents toolkit trains agents with reinforcement learning.", 0.6)]
    assert signals("Can I train with ML-Agents in Unity?", written, None, None).missing == ()


def test_a_missing_unknown_name_is_flagged() -> None:
    s = signals("How do I simulate lidar in Webots?", PASSAGES, None, None, known=lambda w: False)
    values = s.as_dict()
    assert s.missing == ("Webots",)
    assert s.unknown == ("Webots",)
    assert values["miss_name_unknown"] == 1.0
    assert values["miss_rare"] > 0.9
    covered = signals("How does Gazebo simulate lidar?", PASSAGES, None, None, known=lambda w: True)
    assert covered.missing == ()
    assert covered.as_dict()["cov"] == 1.0


def test_a_discourse_word_names_no_topic() -> None:
    # "though", "anyway": how the reader talks, not what about; no passage needs to say them
    assert question_terms("isn't that slow though?") == [("slow", False)]
    assert question_terms("so which oven setting is it anyway?") == [("oven", False), ("setting", False)]
    assert question_terms("although the invoice is paid, why is the account locked?") == [
        ("invoice", False),
        ("paid", False),
        ("account", False),
        ("locked", False),
    ]


def test_carried_words_are_the_words_a_rewrite_put_in_brackets() -> None:
    # a follow-up rewritten with the previous question in brackets: the bracket's own words
    query = "isn't that slow though (when should the robot redo its whole route)?"
    assert carried_words(query, "isn't that slow though?") == {"robot", "redo", "whole", "route"}
    # a word the follow-up has itself is its own, not carried
    query = "how do I stop the planner (the language planner keeps inventing moves)?"
    assert "planner" not in carried_words(query, "how do I stop the planner?")
    # brackets the reader wrote, or no brackets at all: nothing carried
    asked = "How do I install ROS 2 (on Ubuntu 22.04)?"
    assert carried_words(asked, asked) == frozenset()
    assert (
        carried_words("what are the downsides of domain randomization?", "what are its downsides?") == set()
    )


def test_a_carried_word_counts_only_where_a_passage_has_it() -> None:
    # Other documents: a recipe site. "braise" is the previous question's, carried in brackets; no passage
    # says it, so it neither lowers coverage nor is missing. Present, "oven" counts like any word.
    passages = [hit("Cast iron pans go in the oven up to 260 C; season them after washing.", 0.6)]
    query = "can the pan go in the oven (braise short ribs)?"
    carried = carried_words(query, "can the pan go in the oven?")
    assert {"braise", "ribs"} <= carried
    plain = signals(query, passages, None, None, known=lambda w: True)
    assert "braise" in plain.missing
    s = signals(query, passages, None, None, known=lambda w: True, carried=carried)
    assert s.missing == ()
    assert s.as_dict()["cov"] == 1.0 > plain.as_dict()["cov"]
    # the follow-up's own words still count when missing ("wok" is no word of the passages)
    own = signals("can the wok go in the oven (braise short ribs)?", passages, None, None, carried=carried)
    assert own.missing == ("wok",)


def test_a_question_of_several_sentences_is_covered_as_its_best_covered_sentence() -> None:
    # The reader's situation ("my flat has a balcony and a wooden floor") names nothing the passages say;
    # the question sentence is covered whole.
    question = "My flat has a balcony and a wooden floor. Can Gazebo simulate lidar sensors?"
    s = signals(question, PASSAGES, None, None, known=lambda w: True)
    alone = signals("Can Gazebo simulate lidar sensors?", PASSAGES, None, None, known=lambda w: True)
    assert s.as_dict()["cov"] == alone.as_dict()["cov"] == 1.0
    assert s.as_dict()["cov_top1"] == alone.as_dict()["cov_top1"]
    # The missing words still count where a name or rare word matters.
    assert "balcony" in s.missing
    assert s.as_dict()["miss_rare"] == max(rarity(w) for w in s.missing)


def test_a_missing_name_weighs_in_whichever_sentence_it_stands() -> None:
    question = "Gazebo simulates my lidar sensors. How do I run the same robot in Webots?"
    s = signals(question, PASSAGES, None, None, known=lambda w: False)
    assert s.as_dict()["miss_name_unknown"] == 1.0
    assert s.as_dict()["cov"] == 1.0  # the first sentence is covered: the name decides, not coverage


def test_sentence_parts() -> None:
    assert sentence_parts("How do I simulate lidar in Gazebo?") == []
    assert sentence_parts("Our lab has big windows. Which camera struggles in sunlight?") == [
        "Our lab has big windows.",
        "Which camera struggles in sunlight?",
    ]
    # a sentence naming fewer than two topic words is no part; one part is no split
    assert sentence_parts("Gazebo keeps crashing on start. Any ideas?") == []
    # a Latin abbreviation or "vs." ends no sentence
    assert sentence_parts("Can I train a policy with e.g. PPO in Isaac Sim?") == []
    assert sentence_parts("Is Gazebo vs. Unity better for lidar sensors?") == []
    # a follow-up's query carries the previous question in brackets: left whole
    assert sentence_parts("how do I stop it? (my robot arm shakes. it hits the table)") == []


def test_clause_parts() -> None:
    # a phrase or clause framing the request is cut where the request begins
    assert clause_parts("For the lidar exercises, how much of the grade goes to the write-up?") == [
        "For the lidar exercises",
        "how much of the grade goes to the write-up?",
    ]
    assert clause_parts("If my camera frames arrive too fast, which delivery setting should I use?") == [
        "If my camera frames arrive too fast",
        "which delivery setting should I use?",
    ]
    assert clause_parts("When my two ROS nodes start on two laptops - which network setting matters?") == [
        "When my two ROS nodes start on two laptops",
        "which network setting matters?",
    ]
    # a comma before no question word is no cut ("like a drawer")
    assert clause_parts("For a sliding part, like a drawer, which joint type fits the slide?") == [
        "For a sliding part, like a drawer",
        "which joint type fits the slide?",
    ]
    # a situation told as a clause of its own is not cut: there it often is the topic
    assert clause_parts("my humanoid has to climb stairs, how do I plan where each foot lands?") == []
    assert clause_parts("How do I simulate lidar in Gazebo?") == []
    # a part naming fewer than two topic words is no part; one part is no split
    assert clause_parts("For Gazebo lidar sensors, why?") == []
    # a follow-up's query carries the previous question in brackets: left whole
    assert clause_parts("For my arm, how do I stop it? (my robot arm shakes, it hits the table)") == []


def test_a_framed_question_is_covered_as_well_as_its_request() -> None:
    framed = "For my grandmother's birthday party, how does Gazebo simulate lidar sensors?"
    plain = "How does Gazebo simulate lidar sensors for my grandmother's birthday party?"
    s_framed = signals(framed, PASSAGES, None, None, known=lambda w: True)
    s_plain = signals(plain, PASSAGES, None, None, known=lambda w: True)
    assert s_framed.as_dict()["cov"] == 1.0
    assert s_plain.as_dict()["cov"] < 1.0
    # the missing-word signals still read the whole question
    assert s_framed.missing == s_plain.missing
    assert s_framed.missing


def test_sentence_signals_use_the_best_sentence() -> None:
    embedder = HashEmbedder()
    query = embedder.embed_query("Gazebo simulates robots with physics engines, cameras and lidar sensors.")
    units = SentenceVectors(embedder).of([h.chunk for h in PASSAGES])
    s = signals("How does Gazebo simulate lidar?", PASSAGES, query, units)
    assert s.as_dict()["sent_max"] > 0.99


def test_a_code_blocks_vector_never_moves_the_sentence_signals() -> None:
    # The block's comment is the question itself: its row is the nearest, but the decision reads
    # sentence rows only (the writer alone compares code by meaning).
    embedder = HashEmbedder()
    question = "How do I check how often messages arrive on a topic?"
    code = hit(
        "The tools help here:\n\n```bash\n# How do I check how often messages arrive on a topic?\n"
        "ros2 topic hz /chatter\n```\n\nThe rate is printed every second by the tool.",
        0.5,
    )
    units = SentenceVectors(embedder).of([code.chunk])
    ((found, matrix),) = units
    assert [u.kind for u in found] == ["sentence", "code", "sentence"]
    assert matrix[1].any()
    query = embedder.embed_query(question)
    s = signals(question, [code], query, units).as_dict()
    sentence_rows = matrix[[0, 2]] @ query
    assert s["sent_max"] == pytest.approx(float(sentence_rows.max()))
    assert s["sent_max"] < float(matrix[1] @ query)


def test_root_shared_with_another_derivation_counts_as_present() -> None:
    s = signals(
        "Why does the simulator behave like this?", [hit("The behavior of a simulation.", 0.5)], None, None
    )
    assert "behave" not in s.missing
    assert "simulator" not in s.missing
    life = signals("What is a lifecycle?", [hit("Life on a shelf.", 0.5)], None, None)
    assert "lifecycle" in life.missing


def test_the_terms_sharing_a_root_are_those_that_begin_with_it_in_the_sets_order() -> None:
    terms = frozenset({"behavior", "behav", "beh", "simul", "simulation", "xbehav", "life"})
    assert _with_root("behav", terms) == [t for t in terms if t.startswith("behav")]
    assert sorted(_with_root("behav", terms)) == ["behav", "behavior"]
    assert _with_root("simul", terms) == [t for t in terms if t.startswith("simul")]
    assert _with_root("lifec", terms) == []
    # a term with a line break of its own (never a stem) is still read whole
    odd = frozenset({"behav\nior", "behaves"})
    assert sorted(_with_root("behav", odd)) == ["behav\nior", "behaves"]


def test_a_word_is_present_however_the_documents_write_it() -> None:
    passage = [
        hit(
            "Particle filters suit non-linear systems. Brushed aluminum looks metallic; optimize the color. "
            "Set enable_imu_fusion to true and call the add_two_ints service from a PDDL planner.",
            0.5,
        )
    ]
    s = signals(
        "Which filter for a nonlinear system? Does aluminium colour need optimising? Should I turn on "
        "fusion for add-two-ints, PDDL-style?",
        passage,
        None,
        None,
    )
    for word in ("nonlinear", "aluminium", "colour", "optimising", "fusion", "add-two-ints", "PDDL-style"):
        assert word not in s.missing
    # A part of an identifier counts only as a whole part; a guessed spelling only when it is there.
    other = signals("Any confusion?", [hit("Set enable_confusion_x.", 0.5)], None, None)
    assert "confusion" not in other.missing
    assert signals("Is there confusion?", [hit("Set fusion_x.", 0.5)], None, None).missing == ("confusion",)


def test_a_tool_is_present_where_the_documents_name_one_release_of_it() -> None:
    passage = [hit("Click 2D Goal Pose in RViz2; the node runs on python3.10.", 0.5)]
    s = signals("Can I send a goal from rviz with python?", passage, None, None)
    assert "rviz" not in s.missing
    assert "python" not in s.missing
    # only a version number glued on, as a whole word; and not the other way round
    assert "rviz" in signals("Open rviz?", [hit("Open rviz2d and myrviz2.", 0.5)], None, None).missing
    assert "ROS1" in signals("Does ROS1 work?", [hit("ROS works.", 0.5)], None, None).missing
    assert "mp" in signals("Any mp files?", [hit("Save an mp3.", 0.5)], None, None).missing


def test_a_word_of_a_code_name_counts_in_any_form() -> None:
    # a snake_case name is stemmed as one term; its words are there for a reader who writes them apart,
    # inflected as the reader likes ("risks", "attachments")
    passage = [hit("self.psychological_risk_factors = ['emotional_attachment', 'dependency']", 0.5)]
    s = signals("Which psychological risks and emotional attachments come up?", passage, None, None)
    assert "risks" not in s.missing
    assert "attachments" not in s.missing
    # a name's everyday verb ("get" in get_logger) is the code's, not a reader's "getting"
    code = [hit("Call self.get_logger().info(msg) and set_parameters().", 0.5)]
    assert "getting" in signals("Is the robot getting tired?", code, None, None).missing


def test_a_verb_done_again_meets_the_plain_verb() -> None:
    passage = [hit("Experiments can be run again and reproduced. Code is free to use.", 0.5)]
    s = signals("Can I rerun the experiments and reuse the code?", passage, None, None)
    assert "rerun" not in s.missing
    assert "reuse" not in s.missing
    # a word of its own that begins with "re" is no "again": "remove" is not "move" again
    assert signals("How do I remove it?", [hit("Move it.", 0.5)], None, None).missing == ("remove",)
    # the plain verb as a word of its own, not inside another ("use" in "because", "used" in "focused")
    inside = [hit("Because the camera is focused, it is fine.", 0.5)]
    assert signals("Can I reuse the camera once reused?", inside, None, None).missing == ("reuse", "reused")


def test_done_again() -> None:
    assert done_again("rerun") == "run"
    assert done_again("Retrain") == "train"
    assert done_again("reused") == "used"
    for word in ("record", "remove", "restart", "reason", "reward", "re"):
        assert done_again(word) is None


def test_lots_of_is_no_topic_word() -> None:
    s = signals("Why are there lots of warnings, plenty of them?", [hit("Warnings appear.", 0.5)], None, None)
    assert s.missing == ()


def test_a_clipped_word_meets_its_full_form_and_back() -> None:
    passage = [hit("Recommended Specifications: 16 GB RAM. Edit the launch config and the microphone.", 0.5)]
    s = signals("What computer specs do I need? Where is the configuration? Which mic?", passage, None, None)
    for word in ("specs", "configuration", "mic"):
        assert word not in s.missing
    # a clipping counts only as its own full word: "spec" is no "special", "app" no "apple"
    other = signals("Which app and spec?", [hit("A special apple.", 0.5)], None, None)
    assert set(other.missing) == {"app", "spec"}


def test_clipped_forms() -> None:
    assert clipped_forms("specs") == ("specifications",)
    assert clipped_forms("Config") == ("configuration",)
    assert clipped_forms("libs") == ("libraries",)
    assert clipped_forms("configurations") == ("configs",)
    assert clipped_forms("docs") == ("documentation",)
    assert clipped_forms("status") == clipped_forms("robot") == ()


def test_words_for_the_book_itself_are_not_the_topic() -> None:
    s = signals("How far can the head turn in the book's example neck joint?", PASSAGES, None, None)
    assert "book" not in s.missing


def test_latin_abbreviations_are_not_the_topic() -> None:
    s = signals("How do I train a policy, e.g. PPO, i.e. quickly?", [hit("A policy.", 0.5)], None, None)
    assert s.missing == ("PPO", "quickly")


def test_a_stop_word_in_capitals_is_an_acronym() -> None:
    passages = [hit("Read the motor controllers on a bus.", 0.5)]
    s = signals(
        "How can I read the motor controllers over a CAN bus?",
        passages,
        None,
        None,
        known=lambda w: w != "CAN",
    )
    assert s.missing == ("CAN",)
    assert s.as_dict()["miss_name_unknown"] == 1.0
    # as a plain word, or in a question shouted in capitals, it is the stop word
    assert signals("Can I read the motor controllers over a bus?", passages, None, None).missing == ()
    assert question_terms("HOW CAN I READ THE BUS?") == [("READ", True), ("BUS", True)]


@pytest.mark.parametrize(
    ("question", "acronym"),
    [
        ("How do I read the motor currents of a real humanoid over its CAN bus?", "CAN"),
        ("Who on the IT team sets up the lab machines?", "IT"),
        ("Which safety rules apply in the US?", "US"),
    ],
)
def test_a_stop_word_in_capitals_after_a_determiner_is_an_acronym(question: str, acronym: str) -> None:
    assert (acronym, True) in question_terms(question)


@pytest.mark.parametrize(
    "question",
    [
        "Should I use Gazebo OR Webots for a walking robot?",
        "Is IT safe to run a simulated humanoid on my laptop?",
        "Do I need a GPU, OR can I train on a CPU?",
        "I AM new to robotics, where do I start with ROS 2?",
        "Is it OK to publish AS fast as possible on a topic?",
        "Is Gazebo free AS in open source?",
        "How do I make IT work with Isaac Sim?",
    ],
)
def test_a_stop_word_in_capitals_for_emphasis_is_no_name(question: str) -> None:
    # read as a name the documents never use, the word would have the question refused
    assert not {word for word, _ in question_terms(question)} & {"CAN", "IT", "US", "OR", "AM", "AS"}


def test_per_of_a_rate_is_not_the_topic() -> None:
    s = signals(
        "How many scans per minute does the lidar publish?",
        [hit("The lidar publishes scans at 10 Hz.", 0.5)],
        None,
        None,
    )
    assert s.missing == ("minute",)


def test_per_in_capitals_is_a_name() -> None:
    # "PER" (prioritised experience replay) is the topic, not the preposition of a rate
    assert ("PER", True) in question_terms("How does PER sample transitions?")
    assert question_terms("Per the course, how many scans per minute?") == [
        ("scans", False),
        ("minute", False),
    ]
    assert [w for w, _ in question_terms("HOW MANY SCANS PER MINUTE?")] == ["SCANS", "MINUTE"]


def test_a_small_number_counts_in_words_or_digits() -> None:
    digits = [hit("Planning takes 5 seconds on the 3 cards.", 0.5)]
    s = signals("Why does planning take five seconds on three cards?", digits, None, None)
    assert "five" not in s.missing
    assert "three" not in s.missing
    words = [hit("The arm has seven joints.", 0.5)]
    assert "7" not in signals("Why does the arm have 7 joints?", words, None, None).missing
    # Only the same number: "six" is not "7".
    other = signals("Why does the arm have six joints?", [hit("It has 7 joints.", 0.5)], None, None)
    assert "six" in other.missing


def test_an_ordinal_counts_in_words_or_digits() -> None:
    weeks = [hit("Week 1: install the tools. The 3rd lab builds a node.", 0.5)]
    s = signals("What happens in the first week, and in the third lab?", weeks, None, None)
    assert "first" not in s.missing
    assert "third" not in s.missing
    words = [hit("In the first week you install the tools.", 0.5)]
    assert signals("What do I install in week 1 or the 1st lab?", words, None, None).missing == ("lab",)
    # "second" is as often time as an ordinal, and only the same number counts
    assert _numeral_forms("second") == ()
    assert "fifth" in signals("What is the fifth step?", weeks, None, None).missing


def test_a_word_hyphenated_to_say_how_is_as_rare_as_its_head() -> None:
    assert rarity("chatbot-style") == rarity("chatbot")
    assert rarity("camera-based") == rarity("camera")
    # ... where a hyphen joining two ordinary words still names something rarer than either part.
    assert rarity("hand-eye") > rarity("hand")


def test_acronym_plurals_and_word_pairs_are_written_as_the_documents_write_them() -> None:
    imu = [hit("The IMU reports angular velocity; the talker publishes and the listener subscribes.", 0.5)]
    s = signals("Are IMUs noisy in the talker/listener demo?", imu, None, None, known=lambda w: w != "IMUs")
    assert s.missing == ("noisy", "demo")  # not "IMU", "talker" or "listener": the passage has them
    assert s.as_dict()["miss_name_unknown"] == 0.0
    path = signals("Where is src/main.py?", imu, None, None, known=lambda w: False)
    assert path.missing == ("src/main.py",)  # a path stays one name


def test_a_passage_of_code_alone_has_no_sentence_signal() -> None:
    embedder = HashEmbedder()
    code = hit("```python\nprint('scan')\n```", 0.41)
    query = embedder.embed_query("How do I print a scan?")
    units = SentenceVectors(embedder).of([code.chunk])
    s = signals("How do I print a scan?", [code], query, units).as_dict()
    assert units[0][0][0].kind == "code"
    assert s["sent_max"] == s["top_sim"] == 0.41  # the passage's own similarity, not a zero row


def test_question_length_is_a_signal() -> None:
    short = signals("How does Gazebo simulate lidar?", PASSAGES, None, None).as_dict()["q_words"]
    wordy = signals(
        "I'm new to all this and my laptop is slow, so how does Gazebo simulate lidar for a robot?",
        PASSAGES,
        None,
        None,
    ).as_dict()["q_words"]
    assert short == np.log(10)  # up to ten words, every question counts as equally long
    assert wordy == np.log(19)


def _model(**overrides: float) -> AnswerabilityModel:
    n = len(FEATURES)
    weights = [0.0] * n
    weights[FEATURES.index("top_sim")] = 10.0
    params = {"threshold": 0.4, "medium": 0.7, "high": 0.85} | overrides
    return AnswerabilityModel("fake", (0.5,) * n, (0.1,) * n, tuple(weights), 0.0, report={}, **params)


def _with_top(sim: float, unknown: tuple[str, ...] = ()) -> Signals:
    values = [0.5] * len(FEATURES)
    values[FEATURES.index("top_sim")] = sim
    return Signals(tuple(values), unknown, unknown)


def test_levels_follow_the_probability_and_a_refusal_says_why() -> None:
    model = _model()
    assert model.decide(_with_top(0.9)).level == "high"
    assert model.decide(_with_top(0.51)).level == "medium"
    assert model.decide(_with_top(0.5)).level == "low"
    low = model.decide(_with_top(0.3))
    assert (low.answer, low.level, low.reason) == (False, "insufficient", "not_answerable")
    named = model.decide(_with_top(0.3, unknown=("Webots",)))
    assert named.reason == "off_topic"
    everyday = model.decide(_with_top(0.3, unknown=("minutes",)))
    assert everyday.reason == "not_answerable"


def test_model_round_trips_and_the_local_model_ships() -> None:
    model = _model()
    assert AnswerabilityModel.from_json(model.to_json()) == model
    assert "steps" not in model.to_json()  # a plain logistic model's file, as other embedders' are
    stepped = replace(model, steps=(StepFunction("cov", (0.48,), (-0.5, 0.1)),))
    assert AnswerabilityModel.from_json(stepped.to_json()) == stepped
    shipped = load_model("local:all-MiniLM-L6-v2")
    assert shipped is not None
    assert shipped.report["positives"] > 100
    assert load_model("openai:text-embedding-3-small") is None


def test_step_functions_add_to_the_log_odds_by_interval() -> None:
    step = StepFunction("cov", (0.3, 0.6), (-1.0, 0.0, 0.5))
    assert [step(v) for v in (0.0, 0.3, 0.31, 0.6, 0.61, 1.0)] == [-1.0, -1.0, 0.0, 0.0, 0.5, 0.5]
    plain = _model()
    stepped = replace(plain, steps=(step,))
    signals_ = _with_top(0.5)  # logistic log-odds 0: probability one half
    values = list(signals_.values)
    for cov, logit in ((0.2, -1.0), (0.5, 0.0), (0.9, 0.5)):
        values[FEATURES.index("cov")] = cov
        s = Signals(tuple(values), (), ())
        assert plain.probability(s) == 0.5
        assert abs(stepped.probability(s) - 1 / (1 + np.exp(-logit))) < 1e-12


def test_a_step_function_over_an_unknown_signal_is_refused() -> None:
    with pytest.raises(ValueError, match="malformed step function"):
        StepFunction("no_such_signal", (0.5,), (0.0, 1.0))
    with pytest.raises(ValueError, match="malformed step function"):
        StepFunction("cov", (0.5,), (0.0,))  # one value short


def test_sentence_vectors_are_stored_and_read_back(tmp_path: Path) -> None:
    embedder = HashEmbedder()
    chunk = Chunk(
        text="First sentence here is long enough. Second one follows it.\n\n"
        "```python\nprint(1)\nx = 2\ny = 3\n```",
        content_hash="c1",
        chunk_index=0,
        token_count=20,
    )
    store = SentenceVectors(embedder, tmp_path / "s.sqlite3")
    assert store.precompute([chunk]) == 1
    assert store.precompute([chunk]) == 0  # already stored
    store.close()
    units, matrix = SentenceVectors(embedder, tmp_path / "s.sqlite3").of([chunk])[0]
    assert units == units_of(chunk.text)
    assert matrix.shape == (len(units), embedder.dimension)
    code = [i for i, u in enumerate(units) if u.kind == "code"]
    assert code
    assert not np.any(matrix[code[0]])  # code is never compared by meaning
    expected = embedder.embed_documents([units[0].text])[0]
    assert np.allclose(matrix[0], expected, atol=1e-2)  # stored as float16


def test_a_sentence_two_chunks_share_is_embedded_once(tmp_path: Path) -> None:
    """Overlapping chunks repeat their edge sentences: each distinct text is embedded once, and every
    chunk's row for it holds the same vector."""
    embedded: list[str] = []

    class Counting(HashEmbedder):
        def embed_documents(self, texts: Sequence[str]) -> NDArray[np.float32]:
            embedded.extend(texts)
            return super().embed_documents(texts)

    embedder = Counting()
    shared = "The shared sentence sits at both edges."
    chunks = [
        Chunk(text=f"The first chunk opens here. {shared}", content_hash="a", chunk_index=0, token_count=9),
        Chunk(text=f"{shared} The second chunk goes on.", content_hash="b", chunk_index=1, token_count=9),
    ]
    store = SentenceVectors(embedder, tmp_path / "s.sqlite3")
    assert store.precompute(chunks) == 2
    assert sorted(embedded) == sorted({u.text for c in chunks for u in units_of(c.text)})
    (units_a, a), (units_b, b) = store.of(chunks)
    row_a = next(i for i, u in enumerate(units_a) if u.text == shared)
    row_b = next(i for i, u in enumerate(units_b) if u.text == shared)
    np.testing.assert_array_equal(a[row_a], b[row_b])
    assert np.any(a[row_a])


def test_a_word_in_the_best_passage_is_in_the_passages() -> None:
    """`signals` looks at the other passages only for a word the best one lacks: that holds only while
    `_present` is monotone (more terms, more text, more hyphenless terms never make a word absent)."""
    from lectern.answerability import _hyphenless, _present
    from lectern.writers.units import passage_terms

    texts = [
        "Setup > Sensors\n\nCalibrate the IMU with imu_tools; rviz2 shows the non-linear drift of 5 axes."
        " Rerun the node after the first week.",
        "Gazebo Harmonic loads the robot_description; python3 scripts run the controllers.",
    ]
    per = [passage_terms(t) for t in texts]
    everything, all_text = frozenset().union(*per), "\n".join(t.lower() for t in texts)
    hyphenless = frozenset().union(*map(_hyphenless, per))
    words = [
        "calibrate", "calibration", "IMU", "imu", "tools", "rviz", "nonlinear", "non-linear", "five", "5",
        "run", "rerun", "first", "1st", "drift-based", "python", "Gazebo", "controller", "ros2", "week",
        "robot", "description", "harmonic", "absent", "Webots",
    ]  # fmt: skip
    for word in words:
        if _present(word, per[0], texts[0].lower(), _hyphenless(per[0])):
            assert _present(word, everything, all_text, hyphenless), word
    # and the signals read as before: the best passage's words, then the other passages' ones
    s = signals(
        "How do I calibrate the IMU and load the robot description in Gazebo?",
        [hit(t, 0.5) for t in texts],
        None,
        None,
    )
    assert s.missing == ()
    s = signals("How do I calibrate the Webots IMU?", [hit(t, 0.5) for t in texts], None, None)
    assert s.missing == ("Webots",)


def test_a_rare_word_is_a_name_where_the_reader_writes_no_capitals() -> None:
    # "Grafana" capitalised is a name; typed in lower case it is one still, by its rarity in English
    assert ("Grafana", True) in question_terms("How do I send the app's logs to Grafana?")
    assert ("grafana", True) in question_terms("how do i send the app's logs to grafana?")
    # a question in sentence case capitalises its names: a lower-case rare word there is none
    assert ("grafana", False) in question_terms("How do I send the app's logs to grafana?")
    # an everyday word stays one
    assert ("app", False) in question_terms("how do i send the app's logs to grafana?")


def test_a_missing_rare_word_of_a_lower_case_question_is_flagged_as_a_name() -> None:
    passages = [hit("Deploy the app with the deploy command; it uploads the bundle.", 0.5)]
    unknown = lambda w: False  # noqa: E731
    as_written = signals("How do I send the app's logs to Grafana?", passages, None, None, known=unknown)
    lowered = signals("how do i send the app's logs to grafana", passages, None, None, known=unknown)
    assert as_written.as_dict()["miss_name_unknown"] == lowered.as_dict()["miss_name_unknown"] == 1.0


def test_capitals_still_decide_where_the_reader_writes_them() -> None:
    # a capitalised question's lower-case rare word is no name: the reader's capitals say which are
    assert ("sourdough", False) in question_terms("Can I bake sourdough in the Dutch oven?")
    assert uncapitalised("how do i bake sourdough?")
    assert uncapitalised("how do I bake sourdough? i'm new.")
    assert not uncapitalised("How do I bake sourdough? I'm new.")  # sentence case
    assert not uncapitalised("How do I bake it in the Dutch oven?")


@pytest.mark.parametrize(
    ("text", "meant"),
    [
        ("how do i reset my password", "how do i reset my password?"),
        ("Which plan includes backups", "Which plan includes backups?"),
        ("My export fails halfway. Can I resume it", "My export fails halfway. Can I resume it?"),
        ("how do i reset my password?", "how do i reset my password?"),
        ("Once it is installed, how do I log in", "Once it is installed, how do I log in?"),
        ("what's the limit", "what's the limit?"),
        ("explain the billing page", "explain the billing page"),
        ("The export failed.", "The export failed."),
        ("what about the other one (the cheaper plan)", "what about the other one (the cheaper plan)"),
    ],
)
def test_a_question_mark_left_off_is_put_back(text: str, meant: str) -> None:
    assert with_question_mark(text) == meant


@pytest.mark.parametrize("word", ["snappier", "cruder", "runnable", "glitchy", "mishears", "unzipping"])
def test_a_rare_form_of_an_everyday_word_is_no_name(word: str) -> None:
    # wordfreq counts each form apart: a form of a common word reads as rare as a product's name
    assert everyday_form(word)
    assert ("cruder", False) in question_terms("why does the app render cruder fonts on linux?")


@pytest.mark.parametrize("word", ["grafana", "memcached", "pytorch", "terraform"])
def test_a_product_name_is_no_everyday_form(word: str) -> None:
    assert not everyday_form(word)
    assert (word, True) in question_terms(f"how do i set up {word} for the app?")
