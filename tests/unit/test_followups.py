"""Deterministic follow-up rewriting and refusal topics."""

from __future__ import annotations

import pytest

from lectern.answerability import question_terms
from lectern.followups import (
    content_words,
    is_followup,
    names_little,
    purpose_as_infinitive,
    refusal_topic,
    standalone_query,
    subject_parts,
    topic_of,
    with_previous_doing,
    with_previous_topic,
    without_context,
)
from lectern.swaps import (
    and_phrase,
    asked_about,
    corrected_words,
    correction,
    noun_phrase_of,
    swap_noun_phrase,
    swap_same_head,
    swapped_question,
)


@pytest.mark.parametrize(
    ("previous", "question", "expected"),
    [
        (["What is Gazebo Harmonic?"], "How do I install it?", "How do I install Gazebo Harmonic?"),
        (["What is a ROS 2 node?"], "How do I create one?", "How do I create ROS 2 node?"),
        (
            ["What is Isaac Sim?"],
            "How do I use it for synthetic data?",
            "How do I use Isaac Sim for synthetic data?",
        ),
        (["What is Nav2?"], "What are its main components?", "What are Nav2's main components?"),
        # "its" belongs to the thing, and the thing's setting comes along in brackets
        (
            ["how do I load a URDF in Gazebo?"],
            "what are its joint limits?",
            "what are URDF's joint limits (Gazebo)?",
        ),
        (
            ["can I bring my robot description into Unity?"],
            "and how do I make its joints follow the real robot?",
            "and how do I make robot description's joints follow the real robot (Unity)?",
        ),
        (["What is VSLAM?"], "Explain this in simpler terms", "Explain VSLAM in simpler terms"),
        (
            ["What is the action server in ROS 2?"],
            "How does this work?",
            "How does action server in ROS 2 work?",
        ),
    ],
)
def test_pronouns_take_the_previous_topic(previous: list[str], question: str, expected: str) -> None:
    assert standalone_query(question, previous) == expected


def test_generic_question_gets_the_topic_added() -> None:
    # in brackets after the question, never glued onto its last words
    assert (
        standalone_query("Can you give an example?", ["What is URDF?"]) == "Can you give an example (URDF)?"
    )


def test_standalone_question_is_left_alone() -> None:
    question = "How do I install ROS 2 Humble?"
    assert standalone_query(question, ["What is Gazebo?"]) == question
    assert not is_followup(question)


def test_first_question_is_never_rewritten() -> None:
    assert standalone_query("How do I install it?", []) == "How do I install it?"


def test_chains_carry_the_topic_through_rewritten_turns() -> None:
    history = ["What is Gazebo Harmonic?", "How do I install it?"]
    assert "Gazebo Harmonic" in standalone_query("How do I check that it works?", history)


def test_what_about_keeps_the_previous_question() -> None:
    query = standalone_query("What about on Windows?", ["How do I install Gazebo Harmonic?"])
    assert "install" in query
    assert "Gazebo Harmonic" in query
    assert "Windows" in query


@pytest.mark.parametrize(
    ("previous", "question", "query"),
    [
        # the previous question's phrase that opens with the same word is swapped, not kept beside
        ("How do I install ROS 2 on Ubuntu?", "What about on Windows?", "How do I install ROS 2 on Windows?"),
        ("How do I spawn a robot in Gazebo?", "And in Isaac Sim?", "How do I spawn a robot in Isaac Sim?"),
        # a preposition's phrase ends at the next preposition
        (
            "What QoS should I use for lidar scans in Gazebo?",
            "what about for motor commands?",
            "What QoS should I use for motor commands in Gazebo?",
        ),
        # a clause runs to its comma, even where it opens the question
        (
            "If the bridge fails, what should I restart first?",
            "what about if the camera fails instead?",
            "if the camera fails, what should I restart first?",
        ),
        (
            "What does the guide suggest when the bridge won't connect?",
            "what about when the robot keeps colliding?",
            "What does the guide suggest when the robot keeps colliding?",
        ),
    ],
)
def test_what_about_swaps_the_phrase_it_replaces(previous: str, question: str, query: str) -> None:
    assert standalone_query(question, [previous]) == query


@pytest.mark.parametrize(
    ("previous", "question", "kept"),
    [
        # no phrase of that kind to swap: the new words join the previous question
        ("How do I install Gazebo Harmonic?", "What about on Windows?", "Gazebo Harmonic"),
        # a phrase that opens the question frames it: "for walking around" is another role
        ("For the final project, which tools move the arms?", "and for walking around?", "final project"),
    ],
)
def test_what_about_keeps_what_it_cannot_swap(previous: str, question: str, kept: str) -> None:
    query = standalone_query(question, [previous])
    assert kept in query
    assert question.rstrip("?").split()[-1] in query


@pytest.mark.parametrize(
    ("question", "topic"),
    [
        ("What is Gazebo Harmonic?", "Gazebo Harmonic"),
        ("What is the capital of France?", "capital of France"),
        ("How does a PID controller work?", "PID controller"),
        ("Explain quaternions", "quaternions"),
    ],
)
def test_topic_of(question: str, topic: str) -> None:
    assert topic_of(question) == topic


def test_refusal_topic_reads_naturally() -> None:
    assert refusal_topic("How do I bake sourdough bread?") == "how to bake sourdough bread"
    assert refusal_topic("What is the weather today?") == "weather today"
    assert refusal_topic("???") == "that"


def test_a_choice_among_what_came_before_is_a_followup_however_long() -> None:
    query = standalone_query(
        "which of those is the one meant for running loads of simulations in parallel?",
        ["Which physics engines does Isaac Sim use?"],
    )
    assert "physics engines" in query


def test_a_reply_that_carries_on_and_points_back_is_a_followup() -> None:
    query = standalone_query(
        "ok, but why bother with one instead of just testing on the real robot?",
        ["What's a digital twin in robotics?"],
    )
    assert "digital twin" in query


def test_an_opening_so_alone_does_not_make_a_followup() -> None:
    question = "So how do I install ROS 2 on Ubuntu 22.04?"
    assert standalone_query(question, ["What is Gazebo?"]) == question


@pytest.mark.parametrize(
    "question",
    [
        "how do I look at it in 3D and wiggle the joints with sliders?",
        "which one would I use for climbing stairs on a humanoid?",
        "what would such a prompt look like for making coffee with a robot arm?",
    ],
)
def test_a_pointer_to_the_conversation_makes_a_followup_however_long(question: str) -> None:
    assert is_followup(question)


@pytest.mark.parametrize(
    "question",
    [
        "What is a ROS 2 service and how does it differ from actions?",
        "URDF or SDF, which one should I use to describe my robot and why?",
        "Is there a way to train a model so it can adapt to a new environment from a few examples?",
        "When should a robot play it safe and when should it explore boldly?",
        "Which ones of the Gazebo physics engines support soft contacts?",
    ],
)
def test_a_pronoun_or_choice_inside_the_question_stays_inside(question: str) -> None:
    assert not is_followup(question)


@pytest.mark.parametrize(
    ("previous", "question", "expected"),
    [
        # a last-word object pronoun names nothing in its own question
        (
            ["What does cuVSLAM do on a humanoid?"],
            "should I turn on IMU fusion for it?",
            "should I turn on IMU fusion for cuVSLAM?",
        ),
        # a capitalised generic word ends a name
        (
            ["What is the Capture Point?"],
            "what's the ω in its formula?",
            "what's the ω in Capture Point's formula?",
        ),
    ],
)
def test_follow_ups_that_name_something_of_their_own(
    previous: list[str], question: str, expected: str
) -> None:
    assert standalone_query(question, previous) == expected


@pytest.mark.parametrize(
    "question",
    [
        "What is a launch file and how do I pass arguments to it?",
        "When I open the URDF in RViz, what should I see in it?",
        "What usually causes motor overheating and how can I prevent it?",
    ],
)
def test_a_pronoun_after_its_own_clause_stays_inside_the_question(question: str) -> None:
    assert not is_followup(question)


def test_what_does_x_do_is_about_x() -> None:
    assert topic_of("What does cuVSLAM do on a humanoid?") == "cuVSLAM"
    assert topic_of("What does the robot_state_publisher do?") == "robot_state_publisher"


@pytest.mark.parametrize(
    ("question", "topic"),
    [
        # after an article, a how-to verb is part of a name
        ("What is a launch file used for?", "launch file"),
        ("What is the build system?", "build system"),
        ("How do I install ROS 2?", "ROS 2"),
    ],
)
def test_topics_keep_their_nouns(question: str, topic: str) -> None:
    assert topic_of(question) == topic


@pytest.mark.parametrize(
    ("previous", "question", "expected"),
    [
        # the subject of a "when"/"if" clause, before any word of the question's own topic
        (
            ["What's the Jacobian used for in inverse kinematics?"],
            "what do I do when it can't be inverted directly because the arm is redundant?",
            "what do I do when Jacobian in inverse kinematics can't be inverted directly because "
            "the arm is redundant?",
        ),
        (
            ["What is Gazebo Harmonic?"],
            "what should I check if it crashes right after the window opens on my laptop?",
            "what should I check if Gazebo Harmonic crashes right after the window opens on my laptop?",
        ),
    ],
)
def test_a_clause_subject_that_comes_first_points_back(
    previous: list[str], question: str, expected: str
) -> None:
    assert standalone_query(question, previous) == expected


def test_a_clause_subject_after_its_own_topic_stays_inside() -> None:
    question = "How does the robot decide whether it heard a voice command correctly?"
    assert not is_followup(question)
    assert not is_followup("What happens to a ROS 2 node when it loses its connection to the network?")


def test_with_previous_topic_adds_the_topic_to_a_question_that_reads_alone() -> None:
    question = "when should I pick small over base?"
    assert not is_followup(question)
    assert with_previous_topic(question, ["What Whisper model sizes are there?"]) == (
        "when should I pick small over base (Whisper model sizes)?"
    )
    assert with_previous_topic(question, []) == question


@pytest.mark.parametrize(
    "question",
    ["Is it fast and how do I install it?", "what values go in there and how do I change them?"],
)
def test_a_first_clause_that_points_back_keeps_the_follow_up(question: str) -> None:
    assert is_followup(question)


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        # "that" as the subject is the way the previous answer did it: the whole doing comes along
        (
            "does that hurt accuracy much?",
            "does that hurt accuracy much to make Whisper run faster on my GPU?",
        ),
        ("Is this safe?", "Is this safe to make Whisper run faster on my GPU?"),
        ("and why is that?", "and why is that to make Whisper run faster on my GPU?"),
    ],
)
def test_that_after_a_how_to_carries_the_whole_doing(question: str, expected: str) -> None:
    assert with_previous_doing(question, ["How do I make Whisper run faster on my GPU?"]) == expected
    # the first search already carries the doing, not the topic glued after the question
    assert standalone_query(question, ["How do I make Whisper run faster on my GPU?"]) == expected


def test_the_doing_follows_a_chain_of_follow_ups() -> None:
    assert with_previous_doing("is that free?", ["What is a world file?", "how do I make one?"]) == (
        "is that free to make world file?"
    )


@pytest.mark.parametrize(
    ("question", "previous"),
    [
        ("how do I undo it?", ["How do I install Gazebo Harmonic?"]),  # "it" is the thing, not the doing
        ("does that take long?", ["What is Gazebo Harmonic?"]),  # no how-to before
        ("does that take long?", []),
        ("what's the catch with that approach?", ["How do I install Gazebo Harmonic?"]),  # not a subject
        # a question of its own: its "that" points inside it
        (
            "Which Python version do the launch files for the Gazebo module need, and is that documented?",
            ["How do I install Gazebo Harmonic?"],
        ),
    ],
)
def test_no_doing_without_a_how_to_and_a_that_for_it(question: str, previous: list[str]) -> None:
    assert with_previous_doing(question, previous) is None


@pytest.mark.parametrize(
    ("previous", "question", "expected"),
    [
        # "which of those" is the things the previous question asked for, with who has them
        (
            ["Which sorting algorithms does the standard library use?"],
            "which of those is stable?",
            "which of the standard library sorting algorithms is stable?",
        ),
        (
            ["Which cheeses does the recipe call for?"],
            "which of those melts best?",
            "which of the recipe cheeses melts best?",
        ),
        # the documents themselves ("the guide") are no part of the subject
        (
            ["Which backup tools does the guide recommend for laptops?"],
            "which of them is free?",
            "which of the backup tools for laptops is free?",
        ),
        # "that" as the subject after a what-is question is the thing itself
        (["What is intermittent fasting?"], "why does that help?", "why does intermittent fasting help?"),
        # "that step" is a noun of its own: "the step", and the subject in brackets
        (
            ["What is the Pomodoro technique?"],
            "how long does that step take?",
            "how long does the step take (Pomodoro technique)?",
        ),
        # the verb of "what does X look like" is no part of X ("cover" is a noun there)
        (
            ["What does a typical cover letter look like?"],
            "how long should it be?",
            "how long should typical cover letter be?",
        ),
        # "its" belongs to the owner, not to the whole phrase
        (
            ["What are Python's strengths for data science?"],
            "and what's the point of its type hints?",
            "and what's the point of Python's type hints?",
        ),
        # no pronoun to replace: the subject comes in brackets, not glued after "there"
        (
            ["How do I install Gazebo on Windows?"],
            "and what if the window stays black there?",
            "and what if the window stays black there (How do I install Gazebo on Windows)?",
        ),
        (
            ["What is a sourdough starter?"],
            "which of those jars have to be sealed?",
            "which of the jars have to be sealed (sourdough starter)?",
        ),
        # a long subject: the pronoun takes its head, the rest comes in brackets
        (
            ["How does a thermostat decide when to switch the heating on?"],
            "what happens when it breaks?",
            "what happens when thermostat breaks (decide when to switch the heating on)?",
        ),
    ],
)
def test_follow_ups_take_the_previous_subject_not_its_words(
    previous: list[str], question: str, expected: str
) -> None:
    assert standalone_query(question, previous) == expected


@pytest.mark.parametrize(
    "question",
    [
        "can you give examples of what gets randomized?",
        "which parts are installed first?",
        "how is the model loaded and saved?",
    ],
)
def test_an_action_verb_in_any_form_names_no_topic(question: str) -> None:
    assert is_followup(question)


def test_a_noun_that_looks_like_a_verb_form_still_names_a_topic() -> None:
    # "settings" is no form of "set" here: two topic words of its own
    assert not is_followup("what are the thermostat settings?")


@pytest.mark.parametrize(
    "question",
    ["What about Windows instead?", "what about Windows, then?", "and what about Windows too?"],
)
def test_what_about_drops_the_word_that_marks_the_switch(question: str) -> None:
    query = standalone_query(question, ["How do I install Gazebo Harmonic?"])
    assert query == "How do I install Gazebo Harmonic Windows?"


@pytest.mark.parametrize(
    ("question", "verb", "thing"),
    [
        ("How do I attach stereo cameras to the head?", "attach", "stereo cameras"),
        ("How can I prune the apple trees in winter?", "prune", "apple trees"),
        ("How should we grease the bike chain?", "grease", "bike chain"),
    ],
)
def test_after_how_do_i_the_verb_is_no_part_of_the_subject(question: str, verb: str, thing: str) -> None:
    head, _ = subject_parts(question)
    assert head.startswith(thing)
    assert verb not in head


def test_why_would_i_keeps_its_verb() -> None:
    assert subject_parts("Why would I randomize textures?")[0] == "randomize textures"


@pytest.mark.parametrize(
    ("question", "head", "context"),
    [
        ("What is a heat pump?", "heat pump", ""),
        (
            "Which sorting algorithms does the standard library use?",
            "standard library sorting algorithms",
            "",
        ),
        ("What does the camera module set up in the garden chapter?", "camera module", ""),
        ("How do I open the terminal to check the logs?", "terminal to check the logs", ""),
        ("What is a sourdough starter used for in baking?", "sourdough starter in baking", ""),
        (
            "When would I use a shared memory mutex rather than a semaphore?",
            "shared memory mutex",
            "rather than a semaphore",
        ),
        ("How does a thermostat decide when to heat?", "thermostat", "decide when to heat"),
        ("What does a typical cover letter look like?", "typical cover letter", ""),
    ],
)
def test_subject_parts(question: str, head: str, context: str) -> None:
    assert subject_parts(question) == (head, context)


def test_a_self_contained_second_question_is_searched_as_asked() -> None:
    question = "How much does a geothermal heat pump installation cost in Canada?"
    assert standalone_query(question, ["What is a heat pump?"]) == question


@pytest.mark.parametrize(
    ("previous", "question", "expected"),
    [
        # "the X one" is another of the same kind: the previous question asked again about it, "one"
        # taking the replaced phrase's noun past the word the new one stands against
        (
            ["What does the beginner bread recipe look like?"],
            "and the gluten-free one?",
            "What does the gluten-free bread recipe look like?",
        ),
        # an opening clause names what a later "it" stands for
        (
            ["Once the dishwasher has finished, what should I do with it?"],
            "and how do I stop it?",
            "and how do I stop dishwasher?",
        ),
    ],
)
def test_ones_and_opening_clauses(previous: list[str], question: str, expected: str) -> None:
    assert standalone_query(question, previous) == expected


def test_the_previous_topic_for_a_question_that_reads_alone_comes_in_brackets() -> None:
    assert with_previous_topic(
        "which message type carries the position?", ["Once the tracker is running, what does it publish?"]
    ) == ("which message type carries the position (tracker)?")


def test_without_context_drops_the_brackets_the_rewrite_added() -> None:
    previous = ["What does the camera example in the sensor simulation chapter set up?"]
    question = "what resolution and frame rate does it use?"
    query = standalone_query(question, previous)
    assert query.endswith("(sensor simulation)?")
    assert without_context(query, question) == "what resolution and frame rate does camera example use?"
    # the brackets hold the subject, but the question names enough of its own to be searched without
    assert (
        without_context("are the readings clean (simulated depth cameras)?", "are those readings clean?")
        == "are the readings clean?"
    )


@pytest.mark.parametrize(
    ("query", "question"),
    [
        ("How do I install Gazebo Harmonic?", "How do I install it?"),  # nothing in brackets
        ("how big is it (in metres)?", "how big is it (in metres)?"),  # not rewritten
        ("how big is the Capture Point (in metres)?", "how big is it (in metres)?"),  # the user's own
        ("Can you give an example (URDF)?", "Can you give an example?"),  # too little of its own
        ("why does that help (chain-of-thought prompting)?", "why does that help?"),
    ],
)
def test_without_context_keeps_what_the_rewrite_did_not_add(query: str, question: str) -> None:
    assert without_context(query, question) == query


@pytest.mark.parametrize("word", ["downsides", "drawbacks", "upsides"])
def test_words_for_pros_and_cons_name_no_topic(word: str) -> None:
    # like "disadvantages" and "cons": the question asks about its topic's sides, the documents may
    # call them "limitations"; so the word is no topic a passage must contain
    question = f"What are the {word} of XACRO?"
    assert content_words(question) == ["XACRO"]
    assert [term for term, _ in question_terms(question)] == ["XACRO"]


@pytest.mark.parametrize(
    "question",
    [
        "which file is that in?",
        "how much quicker is that compared to regular ROS 2 transport",
        "can I skip that if I installed the full ROS 2 desktop distro",
        "is this slower than running Whisper base on the Jetson?",
    ],
)
def test_that_after_a_verb_with_no_noun_of_its_own_points_back(question: str) -> None:
    assert is_followup(question)


@pytest.mark.parametrize(
    "question",
    [
        "How do I make sure that the humanoid robot stays upright on stairs?",
        "Is it true that ROS 2 uses DDS middleware for discovery?",
    ],
)
def test_that_opening_a_clause_does_not_point_back(question: str) -> None:
    assert not is_followup(question)


def test_skipping_and_everything_name_no_topic() -> None:
    # "can I skip X" asks how to do without X: the verb is no topic, as "install" is not; "everything"
    # names nothing, as "anything" does not
    assert content_words("can I skip everything after the quantization?") == ["skip", "quantization"]
    assert [word for word, _ in question_terms("can I skip the quantization?")] == ["quantization"]


@pytest.mark.parametrize(
    "question",
    [
        "what if I need to keep the old version installed?",
        "will 4 GB of memory be enough?",
        "could a stale cache be the reason?",
        "so is the firewall the culprit?",
    ],
)
def test_a_question_weighed_against_the_last_one_is_a_followup(question: str) -> None:
    # "enough" for what, "the reason" for what: the situation the previous turn described
    assert is_followup(question)


def test_a_question_of_only_the_previous_questions_words_leans_on_it() -> None:
    previous = ["Should I run the database in one big container or as separate services?"]
    query = standalone_query("what's the downside of the separate services?", previous)
    assert query.startswith("what's the downside of the separate services (")
    assert "database" in query


def test_a_question_that_repeats_a_name_of_the_previous_one_stands_alone() -> None:
    previous = ["What is PostgreSQL?"]
    assert standalone_query("How do I back up PostgreSQL?", previous) == "How do I back up PostgreSQL?"
    # and one with words the previous question never used is its own question
    own = "How are the replication slots monitored?"
    assert standalone_query(own, ["Which backup tools are there?"]) == own


@pytest.mark.parametrize(
    ("report", "question", "expected"),
    [
        (
            "my server crashes the moment the job starts",
            "so how do I stop it crashing?",
            "so how do I stop it crashing (my server crashes the moment the job starts)?",
        ),
        (
            "the scheduler keeps starting jobs twice",
            "how do I stop that",
            "how do I stop that (the scheduler keeps starting jobs twice)?",
        ),
        (
            "I'm running out of disk space during the import",
            "what if I need to keep the old logs?",
            "what if I need to keep the old logs (I'm running out of disk space during the import)?",
        ),
    ],
)
def test_a_followup_to_a_report_keeps_its_words_and_takes_the_whole_report(
    report: str, question: str, expected: str
) -> None:
    # a report has no subject to put in a pronoun's place: cut into one, it loses its verbs
    assert standalone_query(question, [report]) == expected


def test_a_question_without_a_question_mark_is_no_report() -> None:
    query = standalone_query("how do I install it?", ["whats the best way to cache pages in nginx"])
    assert "(" not in query
    assert "nginx" in query.lower()


def test_topic_drops_what_a_contraction_leaves() -> None:
    assert topic_of("I'm running out of disk space") == "running out of disk space"


def test_a_subject_ends_at_its_verb_not_at_one_inside_a_later_clause() -> None:
    # "track" is a verb of the clause; the subject is the job, and the clause is what it is about
    previous = "what should the job do when it loses track of where it is while retrying?"
    assert subject_parts(previous) == ("job", "do when it loses track of where it is while retrying")
    query = standalone_query("and afterwards, how do I tell it where it is again?", [previous])
    assert query.startswith("and afterwards, how do I tell job where it is again (")
    assert "loses track" in query


@pytest.mark.parametrize(
    "question",
    [
        "can I skip installing everything locally and use the cloud?",
        "can I do without the graphical window?",
        "could I bypass the cache warm-up step?",
    ],
)
def test_leaving_a_step_out_presupposes_the_procedure_just_discussed(question: str) -> None:
    assert is_followup(question)


def test_leaving_out_a_named_thing_stands_alone() -> None:
    # a name of its own says what the question is about
    assert not is_followup("Can I skip the PostgreSQL install and use SQLite?")


@pytest.mark.parametrize("request_", ["give me an example", "can you show an example?", "why?", "how so?"])
def test_a_bare_request_takes_the_whole_previous_question(request_: str) -> None:
    previous = "how do I keep the scheduler from starting a job twice when someone retries it?"
    query = standalone_query(request_, [previous])
    assert query.endswith(f"({previous.rstrip('?')})?")


def test_a_bare_request_after_a_rewritten_turn_keeps_the_subject() -> None:
    # the previous turn leaned on the one before: its rewrite is no question to quote
    query = standalone_query("can you show an example?", ["What is PgBouncer?", "How do I install it?"])
    assert "PgBouncer" in query
    assert "(How do I install" not in query


@pytest.mark.parametrize(
    "question",
    [
        "What does the scheduler do when it can't reach the database?",
        "How can a dashboard show that it's out of date?",
        "How does a crawler work out where it is in a site map?",
        "When is it a bad idea to use a Redis-backed queue?",
        "What are the prerequisites for this course?",
        "What exactly does 'blue-green' deployment mean?",
        "When I say 'restart it', which service does the bot restart?",
        "My replica won't catch up with the primary. How can I check what's wrong with it?",
        "My worker nodes don't see each other's jobs at all. What might not match between them?",
    ],
)
def test_a_question_whose_pronouns_point_inside_it_stands_alone(question: str) -> None:
    # the pronoun follows the question's own topic, is a quoted word, or stands for the documents
    assert not is_followup(question)
    assert standalone_query(question, ["How do I install Redis?"]) == question


@pytest.mark.parametrize(
    "question",
    [
        "what does it look at to decide?",
        "why is it crucial for backups?",
        "Thanks. And how do I install it?",
        "how often does it publish?",
    ],
)
def test_a_pronoun_before_any_topic_of_the_question_still_points_back(question: str) -> None:
    assert is_followup(question)


def test_after_a_report_a_question_that_names_nothing_leans_on_it_through_the_conversation() -> None:
    report = "the import slows to a crawl after an hour"
    second = standalone_query("should I lower the batch size?", [report])
    assert second == f"should I lower the batch size ({report})?"
    # the third turn still leans on the report, not on the second turn's words
    third = standalone_query("what else can I turn off?", [report, "should I lower the batch size?"])
    assert third == f"what else can I turn off ({report})?"


def test_after_a_report_a_question_with_a_name_stands_alone() -> None:
    question = "How do I enable WAL archiving in PostgreSQL?"
    assert standalone_query(question, ["the import slows to a crawl after an hour"]) == question


@pytest.mark.parametrize(
    ("previous", "question", "query"),
    [
        # the subject after the auxiliary is the thing asked about
        (
            "what watering schedule should tomato seedlings get in spring?",
            "and the cucumbers?",
            "what watering schedule should the cucumbers get in spring?",
        ),
        # after "how do I <verb>" the object is
        (
            "How do I prune a young apple tree in winter?",
            "what about the pear trees instead?",
            "How do I prune the pear trees in winter?",
        ),
        (
            "what temperature should I give the bread dough when I proof it?",
            "and the pizza dough?",
            "what temperature should I give the pizza dough when I proof it?",
        ),
        ("How do I boil a soft egg?", "and a hard one?", "How do I boil a hard egg?"),
        # "ones" takes the replaced phrase without the word the new one stands against
        (
            "What are the minimum laptop specs for the workshop?",
            "and the recommended ones?",
            "What are the recommended laptop specs for the workshop?",
        ),
        # a code word takes the place of the code word of the same kind, the rest of the phrase stays
        (
            "What does the max_retries option in the config file do?",
            "and retry_delay?",
            "What does the retry_delay option in the config file do?",
        ),
    ],
)
def test_a_noun_phrase_follow_up_swaps_the_thing_asked_about(
    previous: str, question: str, query: str
) -> None:
    assert standalone_query(question, [previous]) == query


@pytest.mark.parametrize(
    ("previous", "question"),
    [
        # a name may stand for the thing or for where it runs: not swapped
        ("How do I install Gazebo Harmonic?", "what about Windows?"),
        ("How do I write a minimal publisher with rclpy?", "and Python?"),
        # no known shape to find the thing asked about in
        ("Can I bake bread without an oven of my own?", "what about a slow cooker?"),
        # not a noun phrase: a verb, a question word, a filler, a clause
        ("What does the bread recipe look like?", "and then?"),
        ("What does the bread recipe look like?", "and how long does it take?"),
        ("What does the bread recipe look like?", "and more details?"),
        # its words are used elsewhere in the previous question: it may replace another part
        ("How do I export point clouds from the simulated scanner?", "and the scanner?"),
    ],
)
def test_a_noun_phrase_follow_up_keeps_todays_rewrite_when_unsure(previous: str, question: str) -> None:
    assert swap_noun_phrase(previous, question) is None


@pytest.mark.parametrize(
    ("question", "phrase"),
    [
        ("and the motor commands?", "the motor commands"),
        ("what about depth images instead?", "depth images"),
        ("and what about the ankles too?", "the ankles"),
        ("the ankles too?", "the ankles"),
        ("and for walking around?", None),
        ("is it one of the options too", None),
        ("the ankles?", None),
    ],
)
def test_noun_phrase_of(question: str, phrase: str | None) -> None:
    assert noun_phrase_of(question) == phrase


def test_asked_about_finds_the_subject_object_or_named_thing() -> None:
    def phrase(question: str) -> str | None:
        span = asked_about(question)
        return None if span is None else " ".join(question.rstrip("?").split()[span[0] : span[1]])

    assert phrase("what delivery settings should camera images use in ROS 2?") == "camera images"
    assert phrase("How do I write a minimal publisher with rclpy?") == "a minimal publisher"
    assert phrase("What does the real_time_factor setting in a world do?") == "the real_time_factor setting"
    assert phrase("What are the minimum computer specs for this course?") == "the minimum computer specs"
    assert phrase("Can I run it on a laptop?") is None


def test_a_singular_it_does_not_stand_for_two_things_joined_by_and() -> None:
    # "it" is one thing: after "show a course's author and chapter count in a card", the card; the
    # pronoun stays and the whole subject comes in brackets. "them" may stand for the two.
    previous = ["how do I show a course's author and chapter count in a card?"]
    assert (
        standalone_query("what props does it take?", previous)
        == "what props does it take (course's author and chapter count in a card)?"
    )
    assert standalone_query("how do I install it?", ["What is Gazebo Harmonic?"]) == (
        "how do I install Gazebo Harmonic?"
    )
    assert standalone_query("how do I install them?", ["What are Gazebo and Unity?"]) == (
        "how do I install Gazebo and Unity?"
    )


def test_a_clause_that_says_which_things_stays_in_the_topic() -> None:
    # "the physics engines Gazebo can use": a modal and its verb after a name end a relative clause
    assert topic_of("is there an exercise comparing the physics engines Gazebo can use?") == (
        "exercise comparing the physics engines Gazebo can use"
    )
    assert (
        standalone_query(
            "which two does it suggest comparing?",
            ["is there an exercise comparing the physics engines Gazebo can use?"],
        )
        == "which two does exercise comparing the physics engines Gazebo can use suggest comparing?"
    )
    # after a pronoun or a question word the modal and verb are the question's own and go
    assert topic_of("Which sensors can I use?") == topic_of("Which sensors?")


@pytest.mark.parametrize(
    ("previous", "question", "expected"),
    [
        (
            "the arm has more joints than it needs to reach a point, how does the solver pick one pose?",
            "what limits does it have to respect?",
            "what limits does it have to respect (the arm has more joints than it needs to reach a point,"
            " how does the solver pick one pose)?",
        ),
        (
            "my simulated humanoid shakes uncontrollably even with nothing pushing it, is there an exercise"
            " on that?",
            "which tools does it suggest for looking into it?",
            "which tools does it suggest for looking into it (my simulated humanoid shakes uncontrollably"
            " even with nothing pushing it, is there an exercise on that)?",
        ),
    ],
)
def test_a_question_after_a_report_of_its_own_is_followed_up_whole(
    previous: str, question: str, expected: str
) -> None:
    # a report cut into a subject for the pronoun loses its sense ("pick one pose in arm has more
    # joints ..."): the follow-up keeps its words and the whole previous turn comes in brackets
    assert standalone_query(question, [previous]) == expected


@pytest.mark.parametrize(
    "previous",
    [
        "In the RL chapter, how is the state of the environment defined?",
        "Once the node is running, what does it publish?",
        "For the final project, which tools should I use to move the robot's arms?",
    ],
)
def test_an_opening_clause_that_sets_the_scene_is_no_report(previous: str) -> None:
    assert f"({previous.rstrip('?')})" not in standalone_query("and how is it reset?", [previous])


def test_what_if_takes_the_whole_previous_question_as_its_setting() -> None:
    # "what if ...?": the same situation with one thing changed, not a subject cut out of it
    previous = ["what format do my code submissions need to follow?"]
    assert standalone_query("what if I hand one in late?", previous) == (
        "what if I hand one in late (what format do my code submissions need to follow)?"
    )


@pytest.mark.parametrize(
    ("previous", "question", "query"),
    [
        # a correction asks the previous question again with the phrase put right
        (
            "How does late fusion of sensors work?",
            "sorry, I meant early fusion",
            "How does early fusion of sensors work?",
        ),
        ("How do I install ROS 2 on Ubuntu?", "no, I meant on Windows", "How do I install ROS 2 on Windows?"),
        (
            "How do I tune the PID gains?",
            "I meant in simulation",
            "How do I tune the PID gains in simulation?",
        ),
        # a name corrected is the thing meant, not a setting of it
        ("How do I install Isaac Sim?", "no, I meant Gazebo", "How do I install Gazebo?"),
        (
            "What does the real_time_factor setting do?",
            "oops, I meant max_step_size",
            "What does the max_step_size setting do?",
        ),
    ],
)
def test_a_correction_swaps_what_it_puts_right(previous: str, question: str, query: str) -> None:
    assert is_followup(question)
    assert standalone_query(question, [previous]) == query


@pytest.mark.parametrize(
    "question",
    [
        # a question of its own after the correction, or a clause that explains rather than corrects
        "no, I meant Isaac Sim, how do I install that?",
        "I mean, what is a namespace?",
    ],
)
def test_a_correction_is_only_a_phrase(question: str) -> None:
    assert correction(question) is None


@pytest.mark.parametrize(
    ("previous", "question", "query"),
    [
        # "so", "ok" before the question word: the question is read from its question word (an "ok,"
        # set apart by its comma is read past, `lectern.courtesy.without_courtesy`)
        (
            "so what value does a static walk have?",
            "and a dynamic walk?",
            "so what value does a dynamic walk have?",
        ),
        (
            "ok, what range should the knee joint have?",
            "and the ankles?",
            "what range should the ankles have?",
        ),
    ],
)
def test_a_lead_word_does_not_hide_what_is_asked_about(previous: str, question: str, query: str) -> None:
    assert standalone_query(question, [previous]) == query


@pytest.mark.parametrize(
    ("previous", "question", "query"),
    [
        # a value with nothing saying of which quantity is one of the quantity just asked about
        (
            "what does duty factor mean for a walking robot?",
            "so what value does a static walk have?",
            "so what value does a static walk have (duty factor)?",
        ),
        ("What is the update rate of the IMU?", "what value should max_update_rate have?", None),
    ],
)
def test_a_bare_value_is_one_of_the_previous_quantity(
    previous: str, question: str, query: str | None
) -> None:
    assert standalone_query(question, [previous]) == (query or question)


def test_a_noun_phrase_swaps_before_the_brackets_a_rewrite_put_in() -> None:
    turns = ["what does duty factor mean for a walking robot?", "so what value does a static walk have?"]
    assert (
        standalone_query("and a dynamic walk?", turns)
        == "so what value does a dynamic walk have (duty factor)?"
    )


@pytest.mark.parametrize(
    ("question", "leans"),
    [
        # back and forth between what: the two just talked about
        ("which package carries the messages back and forth?", True),
        ("what sends data in both directions?", True),
        # the two are named
        ("how do ROS 2 nodes pass messages back and forth?", False),
    ],
)
def test_back_and_forth_between_unnamed_things_leans_on_the_previous_turn(question: str, leans: bool) -> None:
    assert is_followup(question) is leans


@pytest.mark.parametrize(
    ("turns", "query"),
    [
        # a correction of the setting puts right the previous one, whatever word opened it
        (
            ["how do I spawn the humanoid in Gazebo?", "no, I meant on the real robot"],
            "how do I spawn the humanoid on the real robot?",
        ),
        # "and at half speed?": the previous question asked again in that setting
        (
            ["How do I record a rosbag?", "how do I play it back?", "and at half speed?"],
            "how do I play rosbag back at half speed?",
        ),
        (
            ["How do I reset the simulation?", "and when the robot has fallen over?"],
            "How do I reset the simulation when the robot has fallen over?",
        ),
        # "how long does that take?" after a how-to: the doing takes long
        (
            [
                "how do I spawn the humanoid in Gazebo?",
                "what about in Isaac Sim?",
                "and how long does that take?",
            ],
            "and how long does that take to spawn the humanoid in Isaac Sim?",
        ),
        # a bare "how many?" after a rewritten question takes that whole question
        (
            ["What is VSLAM?", "ok and which cameras does it need?", "how many?"],
            "how many (ok and which cameras does VSLAM need)?",
        ),
    ],
)
def test_later_turns_read_the_previous_question_as_rewritten(turns: list[str], query: str) -> None:
    assert standalone_query(turns[-1], turns[:-1]) == query


def test_a_phrase_then_a_question_of_its_own_is_not_appended() -> None:
    query = standalone_query(
        "and on a real robot, where do the joint values come from?",
        ["Why is there a GUI node in the launch file?"],
    )
    assert not query.startswith("Why is there")


@pytest.mark.parametrize(
    ("previous", "question", "expected"),
    [
        # a correction that keeps the noun and changes its kind puts right the phrase ending in that noun
        (
            "What are the drawbacks of late fusion?",
            "sorry, I meant early fusion",
            "What are the drawbacks of early fusion?",
        ),
        (
            "How does late fusion combine the camera and lidar?",
            "no, I meant early fusion",
            "How does early fusion combine the camera and lidar?",
        ),
        (
            "How big should the collision mesh be?",
            "no, I meant the visual mesh",
            "How big should the visual mesh be?",
        ),
    ],
)
def test_a_correction_with_the_same_noun_swaps_its_kind(previous: str, question: str, expected: str) -> None:
    assert standalone_query(question, [previous]) == expected


def test_the_same_head_swap_needs_a_modifier_to_put_right() -> None:
    assert swap_same_head("What is fusion?", "early fusion") is None  # no kind of fusion to replace
    assert swap_same_head("What is late fusion?", "fusion") is None  # one word: a whole thing
    assert swap_same_head("What is late fusion?", "late fusion") is None  # the same phrase again


def test_a_bare_noun_phrase_sharing_the_noun_is_not_read_as_a_correction() -> None:
    # "and the z axis?" may ask of another part of the same thing: not swapped in place
    assert standalone_query("and the z axis?", ["which way does the x axis point on a humanoid?"]) != (
        "which way does the z axis point on a humanoid?"
    )


def test_and_with_a_question_word_and_its_auxiliary_is_a_question_not_a_phrase() -> None:
    # "and when it has to go faster?" is a clause to put in the previous question; "and when is it the
    # wrong choice?" asks a question of its own, whose "it" is the previous subject
    assert and_phrase("and when it has to go faster?") == "when it has to go faster"
    assert and_phrase("and if I need really precise results?") == "if I need really precise results"
    assert and_phrase("and when is it the wrong choice?") is None
    assert and_phrase("but if does it crash?") is None
    query = standalone_query("and when is it the wrong choice?", ["when is Unity a better pick than Gazebo?"])
    assert query == "and when is Unity the wrong choice (better pick than Gazebo)?"


@pytest.mark.parametrize(
    ("question", "parts"),
    [
        ("when is Unity a better pick than Gazebo?", ("Unity", "better pick than Gazebo")),
        ("why is the robot a hazard near stairs?", ("robot", "hazard near stairs")),
        # a determiner after a preposition is inside the subject, not what is said of it
        (
            "Where is the origin of the robot's body frame usually put?",
            ("origin of the robot's body frame usually put", ""),
        ),
    ],
)
def test_a_copula_question_keeps_what_it_says_of_its_subject_out_of_the_subject(
    question: str, parts: tuple[str, str]
) -> None:
    assert subject_parts(question) == parts


def test_the_new_one_points_back() -> None:
    # "the <word> one" before a verb or a small word is another of the thing just talked about
    assert is_followup("does the new one run on a Mac?")
    assert standalone_query(
        "does the new one run on a Mac?", ["what was so bad about the first version of ROS?"]
    ) == ("does the new one run on a Mac (version of ROS)?")
    # a numeral before a noun is no pointer
    assert not is_followup("What is the first one thing to do after installing ROS 2?")


@pytest.mark.parametrize(
    ("previous", "question", "query"),
    [
        # a negated auxiliary takes its demonstrative subject like a plain one (after a question about a
        # doing, "that" is the doing: tests/unit/test_followups_clauses.py)
        ("What is a full replan?", "isn't that slow though?", "isn't full replan slow though?"),
        # a contracted one too, when "that" ends the question or comes before a participle
        ("What is Gazebo?", "what's that for?", "what's Gazebo for?"),
        (
            "What is the Nav2 controller server?",
            "what's that called?",
            "what's Nav2 controller server called?",
        ),
        # "that step" is the step's: not the subject
        ("What is Gazebo?", "what's that step for?", "what's the step for (Gazebo)?"),
    ],
)
def test_a_negated_or_contracted_auxiliary_takes_its_demonstrative_subject(
    previous: str, question: str, query: str
) -> None:
    assert standalone_query(question, [previous]) == query


def test_a_question_then_a_second_one_pointing_back_is_taken_whole() -> None:
    previous = "why did they bother making ROS 2, what was wrong with the first one?"
    assert standalone_query("is it any good on small embedded boards?", [previous]) == (
        f"is it any good on small embedded boards ({previous.rstrip('?')})?"
    )
    # an opening clause that sets the scene still gives the subject
    assert standalone_query("what does it publish?", ["Once the node is running, what does it publish?"]) == (
        "what does node publish?"
    )


@pytest.mark.parametrize(
    ("previous", "question", "query"),
    [
        # "that" is what the answer said: the whole question describes it
        (
            "what's the hardest part of hooking a language model planner up to a real robot?",
            "why is that so hard?",
            "why is that so hard (what's the hardest part of hooking a language model planner up to a real"
            " robot)?",
        ),
        (
            "what's the best way to stop my robot drifting?",
            "and why does this work?",
            "and why does this work (what's the best way to stop my robot drifting)?",
        ),
        # after a question about a thing, "that" is the thing
        ("What is intermittent fasting?", "why does that help?", "why does intermittent fasting help?"),
        # after a how-to, "that" is still the doing
        (
            "How do I build the workspace?",
            "why does that take so long?",
            "why does that take so long to build the workspace?",
        ),
    ],
)
def test_why_of_that_after_a_pick_takes_the_whole_previous_question(
    previous: str, question: str, query: str
) -> None:
    assert standalone_query(question, [previous]) == query


@pytest.mark.parametrize(
    "question",
    ["what makes that the better choice?", "why is that better?", "and why this?"],
)
def test_that_after_advice_is_what_was_advised(question: str) -> None:
    # the answer to a question asking for advice picks something; "that" is it, not the adviser
    previous = "what does the course recommend for structuring the vision-language-action system?"
    assert standalone_query(question, [previous]) == f"{question.rstrip('?')} ({previous.rstrip('?')})?"


def test_the_course_or_tutorial_is_no_subject() -> None:
    # like "the book", the course is where the reader read it, not what the question is about
    previous = "what does the course recommend for structuring the vision-language-action system?"
    assert standalone_query("what makes it slow?", [previous]) == (
        "what makes structuring the vision-language-action system slow?"
    )
    assert standalone_query(
        "is that enough for isaac sim", ["What graphics card does the course recommend?"]
    ) == ("is graphics card enough for isaac sim")


def test_the_x_one_of_an_unnamed_kind_is_one_of_the_previous_things() -> None:
    # "the VSLAM one": one of the chapters just asked about, though "VSLAM" is a name; the "one" takes the
    # listed head, singular (lectern/ordinals.py `kind_of_the_listed`)
    previous = "what chapters are in the navigation module with Isaac and Nav2?"
    assert is_followup("how long does the VSLAM one take?")
    assert standalone_query("how long does the VSLAM one take?", [previous]) == (
        "how long does the VSLAM chapter take (chapters are in the navigation module with Isaac and Nav2)?"
    )
    # a question that names its kind, or a "one" that counts, stands alone
    assert not is_followup("Is the Jetson Orin one fast enough to run Isaac ROS VSLAM at 30 FPS?")
    assert not is_followup("How long does the Isaac ROS VSLAM node take to start on one Jetson?")


@pytest.mark.parametrize(
    ("previous", "question", "query"),
    [
        # one "it" is who has the things asked for, not the things
        (
            "what kinds of personal data does a home robot collect?",
            "how long should it keep location data?",
            "how long should home robot keep location data (personal data)?",
        ),
        (
            "Which physics engines does Isaac Sim use?",
            "can it run on Windows?",
            "can Isaac Sim run on Windows (physics engines)?",
        ),
        # "them" is still the things
        (
            "Which physics engines does Isaac Sim use?",
            "how do I switch between them?",
            "how do I switch between the Isaac Sim physics engines?",
        ),
        # "kinds of" asks for the things themselves
        (
            "what kinds of sensors can Isaac Sim fake?",
            "does that include force sensors?",
            "does Isaac Sim sensors include force sensors?",
        ),
    ],
)
def test_it_after_which_things_is_their_owner(previous: str, question: str, query: str) -> None:
    assert with_previous_topic(question, [previous]) == query


def test_would_x_do_leans_on_the_previous_turn() -> None:
    # "do" for what was just asked: a value or a thing weighed against the previous question
    assert is_followup("would a 3060 do?")
    assert standalone_query("would a 3060 do?", ["What's the recommended GPU for Isaac Sim?"]) == (
        "would a 3060 do (GPU for Isaac Sim)?"
    )
    assert is_followup("will 8 gigs do?")
    # "do" as the question's own verb
    assert not is_followup("What does the controller manager do?")


@pytest.mark.parametrize(
    ("previous", "question", "query"),
    [
        (
            "What is NITROS?",
            "does regular ROS 2 have something like it?",
            "does regular ROS 2 have something like NITROS?",
        ),
        ("What is Gazebo?", "is Webots any faster than it?", "is Webots any faster than Gazebo?"),
    ],
)
def test_a_last_it_after_like_or_than_points_back(previous: str, question: str, query: str) -> None:
    assert is_followup(question)
    assert standalone_query(question, [previous]) == query


@pytest.mark.parametrize(
    ("previous", "question", "query"),
    [
        # help with what was just reported or asked
        (
            "my VSLAM loses tracking in dark rooms",
            "would an IMU help?",
            "would an IMU help (my VSLAM loses tracking in dark rooms)?",
        ),
        (
            "How do I reduce speech latency?",
            "would a smaller model help?",
            "would a smaller model help (speech latency)?",
        ),
        # "the <word> one" before an adverb
        (
            "What is the difference between Gazebo Classic and Gazebo Harmonic?",
            "is the old one still supported?",
            "is the old one still supported (Gazebo Classic and Gazebo Harmonic)?",
        ),
    ],
)
def test_would_x_help_and_the_old_one_still_lean_on_the_previous_turn(
    previous: str, question: str, query: str
) -> None:
    assert standalone_query(question, [previous]) == query


def test_how_does_x_help_stands_alone() -> None:
    assert not is_followup("How does ROS 2 help?")


@pytest.mark.parametrize(
    ("previous", "question", "query"),
    [
        # a word for which value of a quantity stands for the quantity, like "the max one"
        (
            "What is the minimum step time for walking?",
            "and the maximum?",
            "What is the maximum step time for walking?",
        ),
        (
            "What are the minimum computer specs for this course?",
            "and the recommended?",
            "What are the recommended computer specs for this course?",
        ),
    ],
)
def test_and_the_max_swaps_the_value_not_the_quantity(previous: str, question: str, query: str) -> None:
    assert standalone_query(question, [previous]) == query


def test_one_before_its_noun_is_a_number() -> None:
    turns = ["What is cuVSLAM?", "does it need a stereo camera?", "what if I only have one camera?"]
    assert standalone_query(turns[-1], turns[:-1]) == "what if I only have one camera (cuVSLAM)?"
    # before a word that says how, "one" is still the thing
    assert standalone_query("how do I cancel one halfway through?", ["What is an action in ROS 2?"]) == (
        "how do I cancel action in ROS 2 halfway through?"
    )


def test_a_superlative_names_no_topic() -> None:
    assert is_followup("what's the hardest part?")
    assert standalone_query("what's the hardest part?", ["What is sim-to-real transfer?"]) == (
        "what's the hardest part (sim-to-real transfer)?"
    )
    assert not is_followup("What is the best physics engine for humanoid robots?")


def test_a_third_turn_keeps_what_the_second_ones_pronoun_stood_for() -> None:
    turns = ["How do I install Isaac Sim?", "what GPU do I need for it?", "and how much RAM?"]
    assert standalone_query(turns[-1], turns[:-1]) == "and how much RAM (GPU, Isaac Sim)?"


def test_why_not_x_leans_on_the_previous_turn() -> None:
    assert is_followup("why not Cyclone?")
    assert standalone_query("why not Cyclone?", ["Which DDS does ROS 2 use by default?"]) == (
        "why not Cyclone (ROS 2 DDS by default)?"
    )


def test_make_x_do_y_leans_on_x() -> None:
    assert subject_parts("How do I make the robot turn its head toward the speaker?") == (
        "robot",
        "turn its head toward the speaker",
    )
    # a phrase with a preposition before the verb is no plain "make X do"
    assert (
        subject_parts("How do I make my Python ROS 2 node runnable with ros2 run?")[0]
        != "Python ROS 2 node runnable with ros2"
    )


@pytest.mark.parametrize(
    ("previous", "question", "query"),
    [
        (
            "Whisper is too slow on my laptop",
            "what about running it on the GPU?",
            "what about running it on the GPU (Whisper is too slow on my laptop)?",
        ),
        (
            "Isaac Sim crashes on startup with a Vulkan error",
            "and if that doesn't help?",
            "and if that doesn't help (Isaac Sim crashes on startup with a Vulkan error)?",
        ),
        # after a question the phrase still goes into it
        ("How do I install ROS 2 on Ubuntu?", "what about on Windows?", "How do I install ROS 2 on Windows?"),
    ],
)
def test_what_about_after_a_report_is_asked_after_the_report(
    previous: str, question: str, query: str
) -> None:
    assert standalone_query(question, [previous]) == query


@pytest.mark.parametrize(
    ("previous", "question", "query"),
    [
        (
            "How do I spawn a robot in Gazebo?",
            "same thing in Isaac Sim?",
            "How do I spawn a robot in Isaac Sim?",
        ),
        ("How accurate is Whisper?", "compared to Vosk?", "How accurate is Whisper compared to Vosk?"),
        (
            "How do I install ROS 2 on Ubuntu?",
            "ok, what about on Windows?",
            "How do I install ROS 2 on Windows?",
        ),
        ("What is Vosk?", "ok and Whisper?", "ok and Whisper (Vosk)?"),
    ],
)
def test_same_thing_compared_to_and_a_lead_word_before_an_opener(
    previous: str, question: str, query: str
) -> None:
    assert is_followup(question)
    assert standalone_query(question, [previous]) == query


def test_a_bare_that_after_what_does_x_do_is_the_doing() -> None:
    previous = "What does the robot do when the user is silent?"
    assert (
        standalone_query("can I change that?", [previous]) == f"can I change that ({previous.rstrip('?')})?"
    )
    # after "what does X do?" alone, "that" is still the thing
    assert standalone_query("why is that useful?", ["What does cuVSLAM do?"]) == "why is cuVSLAM useful?"


@pytest.mark.parametrize(
    ("question", "query"),
    [
        ("any cheaper option?", "any cheaper option (GPU)?"),
        ("can I use an AMD card instead?", "can I use an AMD card instead (GPU)?"),
    ],
)
def test_a_comparative_or_instead_weighs_against_the_previous_turn(question: str, query: str) -> None:
    assert is_followup(question)
    assert standalone_query(question, ["Which GPU does the course recommend?"]) == query


def test_a_comparison_that_names_its_things_stands_alone() -> None:
    assert not is_followup("Is Isaac Sim faster than Gazebo for training policies?")


@pytest.mark.parametrize(
    ("previous", "question", "query"),
    [
        # a longer correction that says whose thing it is swaps the thing asked about
        (
            "how do I drop a simple box into a running Gazebo world?",
            "no, I meant my whole robot from its URDF file",
            "how do I drop my whole robot from its URDF file into a running Gazebo world?",
        ),
        # "the X one": another kind of the thing the previous question named with words of kind
        (
            "what are the upsides of the one-big-model approach for voice-to-action robots?",
            "no, I meant the split-into-stages one",
            "what are the upsides of the split-into-stages approach for voice-to-action robots?",
        ),
        # nothing to swap: what was meant, in the previous question's setting
        (
            "what does the learner see at each step in reinforcement learning?",
            "no, I meant the thing it ends up learning, its strategy",
            "the thing it ends up learning, its strategy (step in reinforcement learning)?",
        ),
    ],
)
def test_a_correction_of_any_shape_is_read_against_the_previous_question(
    previous: str, question: str, query: str
) -> None:
    assert is_followup(question)
    assert standalone_query(question, [previous]) == query


def test_a_correction_then_a_question_stands_alone() -> None:
    # the question names what it asks about itself: searched as asked, its "that" no doing of the last turn
    for question, previous in [
        ("no, I meant Gazebo, how do I install that?", "How do I install Isaac Sim?"),
        ("no, I meant Gazebo, what is a world file?", "What is Isaac Sim?"),
    ]:
        assert standalone_query(question, [previous]) == question


@pytest.mark.parametrize(
    "question", ["sorry, I mean how do I install Isaac Sim?", "No, I meant is Isaac Sim free"]
)
def test_a_correction_that_is_a_whole_question_is_not_set_in_the_previous_one(question: str) -> None:
    # the previous question's setting ("Gazebo free") is what the reader did not mean
    assert corrected_words(question) is None
    assert "Gazebo" not in standalone_query(question, ["is Gazebo free?"])


@pytest.mark.parametrize(
    ("previous", "question", "query"),
    [
        # the pronoun after the new verb is what the previous doing was done to, not the subject
        (
            "how does the robot pick up the cup?",
            "and put it down again?",
            "how does the robot put the cup down again?",
        ),
        ("how does the robot detect obstacles?", "and avoid them?", "how does the robot avoid obstacles?"),
        # a verb no word list has ends the subject before the next determiner
        (
            "how can the robot grasp the mug?",
            "and then put it on the shelf?",
            "how can the robot put the mug on the shelf?",
        ),
        # a bare how-to verb swaps the verb, not the thing
        (
            "how do I publish a message from the terminal?",
            "and echo?",
            "how do I echo a message from the terminal?",
        ),
    ],
)
def test_and_another_doing_keeps_the_subject(previous: str, question: str, query: str) -> None:
    assert standalone_query(question, [previous]) == query


def test_and_a_noun_is_not_read_as_a_doing() -> None:
    assert standalone_query("and Whisper?", ["how do I install Vosk?"]) != "how do I Whisper?"
    assert "robot" in standalone_query("and then?", ["how does the robot pick up the cup?"])


@pytest.mark.parametrize(
    ("previous", "question", "query"),
    [
        (
            "how far can the robot walk on one charge?",
            "and how fast?",
            "how fast can the robot walk on one charge?",
        ),
        (
            "how long a step can a two-legged robot take?",
            "and how high a step?",
            "how high a step can a two-legged robot take?",
        ),
    ],
)
def test_and_how_another_measure_asks_the_question_again(previous: str, question: str, query: str) -> None:
    assert standalone_query(question, [previous]) == query


def test_and_how_keeps_a_new_thing_or_a_count_beside_the_previous_question() -> None:
    assert standalone_query("and how much memory?", ["how many cores does the computer need?"]).startswith(
        "and how much memory"
    )
    assert standalone_query("and how fast?", ["how do I limit the head's turn?"]).startswith("and how fast")


def test_an_it_for_a_to_clause_leaves_the_subject_the_clause_is_said_of() -> None:
    query = standalone_query(
        "so how does it keep from falling over?", ["why is it so hard for a robot to walk on two legs?"]
    )
    assert query == "so how does robot keep from falling over (walk on two legs)?"


def test_a_that_after_a_noun_opens_a_clause_and_stays() -> None:
    query = standalone_query(
        "and for robots that drive around outdoors?", ["which sensors can Gazebo fake for me?"]
    )
    assert "robots that drive" in query


def test_which_size_without_of_what_is_a_followup() -> None:
    assert is_followup("which size should I use on a Jetson?")
    assert standalone_query("which size should I use on a Jetson?", ["What Whisper models are there?"]) == (
        "which size should I use on a Jetson (Whisper models)?"
    )
    assert not is_followup("which version of ROS 2 does the course use?")


def test_what_about_a_common_thing_takes_the_previous_question_in_brackets() -> None:
    # glued after the last words the thing would read as part of them ("... its path slopes")
    previous = ["how high a step can a two-legged robot take when it plans its path?"]
    assert standalone_query("what about slopes?", previous) == (
        "what about slopes (how high a step can a two-legged robot take when it plans its path)?"
    )
    # a name or a setting still follows the previous question's words
    assert standalone_query("what about on Windows?", ["How do I install Gazebo Harmonic?"]) == (
        "How do I install Gazebo Harmonic on Windows?"
    )


def test_how_come_is_asked_as_why() -> None:
    assert standalone_query("how come?", ["my robot blows apart as soon as it appears in Gazebo"]) == (
        "why (my robot blows apart as soon as it appears in Gazebo)?"
    )
    assert standalone_query("how come Gazebo is slow?", []) == "how come Gazebo is slow?"


@pytest.mark.parametrize(
    ("previous", "question", "query"),
    [
        (
            "can a URDF describe a whole room with furniture in it?",
            "so what should I use for that?",
            "so what should I use for that (can a URDF describe a whole room with furniture in it)?",
        ),
        (
            "can a humanoid use both hands at once?",
            "what's that called?",
            "what's that called (can a humanoid use both hands at once)?",
        ),
        (
            "can the robot redo its whole route?",
            "isn't that slow though?",
            "isn't that slow though (can the robot redo its whole route)?",
        ),
    ],
)
def test_that_after_a_yes_or_no_question_is_what_it_asked(previous: str, question: str, query: str) -> None:
    # "that" is what the whole question asked about, not its subject cut out of it
    assert standalone_query(question, [previous]) == query


def test_that_before_a_noun_or_a_pronoun_after_a_yes_or_no_question_is_not_the_whole_question() -> None:
    assert "(does Nav2" not in standalone_query(
        "what is that node for?", ["does Nav2 have a planner server?"]
    )
    assert standalone_query("how do I install it?", ["is Gazebo Harmonic free?"]).startswith(
        "how do I install Gazebo"
    )


@pytest.mark.parametrize(
    ("previous", "question", "query"),
    [
        # a participle after "is that <word>" marks the word a noun: "the <noun>", the subject in brackets
        (
            "can a URDF describe a whole room with furniture?",
            "Is that node needed for SLAM?",
            "Is the node needed for SLAM (URDF describe a whole room with furniture)?",
        ),
        (
            "can a URDF describe a whole room with furniture?",
            "is this step required?",
            "is the step required (URDF describe a whole room with furniture)?",
        ),
        (
            "can the robot build a map of a room on its own?",
            "was that map saved to disk?",
            "was the map saved to disk (robot build a map of a room on its own)?",
        ),
        (
            "can the robot build a map of a room on its own?",
            "are those maps shared between robots?",
            "are the maps shared between robots (robot build a map of a room on its own)?",
        ),
        # so does an article after it
        ("What is Gazebo?", "is that file a problem?", "is the file a problem (Gazebo)?"),
        (
            "What is Gazebo?",
            "was that model trained on real data?",
            "was the model trained on real data (Gazebo)?",
        ),
        # no noun before the participle: "that" is still the subject
        ("What is Gazebo?", "is that really needed?", "is Gazebo really needed?"),
        # a participle after "does that <verb>" is the verb's object's: "that" is still the subject
        ("What is Gazebo?", "does that hurt trained models?", "does Gazebo hurt trained models?"),
        # a noun or an adjective, unsure: a clause of the previous question is never glued before it; a
        # yes/no question's subject is its noun ("URDF"), read as "What is Gazebo?" is read below
        (
            "can a URDF describe a whole room with furniture?",
            "is that node for SLAM?",
            "is URDF node for SLAM (describe a whole room with furniture)?",
        ),
        ("What is Gazebo?", "is that node for SLAM?", "is Gazebo node for SLAM?"),
    ],
)
def test_that_before_a_noun_takes_no_clause_of_the_previous_question(
    previous: str, question: str, query: str
) -> None:
    assert standalone_query(question, [previous]) == query


@pytest.mark.parametrize(
    ("question", "parts"),
    [
        # the measure is no part of the subject; it goes with what the subject does
        ("how fast can the robot walk?", ("robot", "walk fast")),
        ("how far can the humanoid robot walk on one charge?", ("humanoid robot", "walk far on one charge")),
        ("how high can the robot jump?", ("robot", "jump high")),
        ("how long does a URDF file take to load?", ("URDF file", "take long to load")),
        ("how fast does the robot arm move?", ("robot arm", "move fast")),
        ("how big is the map?", ("map", "")),
        ("how long should I train the model?", ("model", "")),
    ],
)
def test_the_subject_of_a_how_measure_question_is_what_is_measured(
    question: str, parts: tuple[str, str]
) -> None:
    assert subject_parts(question) == parts


@pytest.mark.parametrize(
    ("previous", "question", "query"),
    [
        (
            "how fast can the robot walk?",
            "so how do I make it faster?",
            "so how do I make robot faster (walk fast)?",
        ),
        (
            "how far can the humanoid robot walk on one charge?",
            "so how do I make it go further?",
            "so how do I make humanoid robot go further (walk far on one charge)?",
        ),
        ("how fast does the robot arm move?", "why is it so slow?", "why is robot arm so slow (move fast)?"),
        # another measure still asks the previous question again
        ("how fast can the robot walk?", "and how far?", "how far can the robot walk?"),
    ],
)
def test_a_pronoun_after_a_how_measure_question_is_its_subject(
    previous: str, question: str, query: str
) -> None:
    assert standalone_query(question, [previous]) == query


@pytest.mark.parametrize(
    ("question", "parts"),
    [
        # a yes/no question is read as its "how can ..." is: what the reader does something to ...
        (
            "can I put NVIDIA's accelerated ROS packages on a Raspberry Pi robot?",
            ("NVIDIA's accelerated ROS packages", "Raspberry Pi robot"),
        ),
        ("should I use Whisper for a robot without internet?", ("Whisper", "robot without internet")),
        # ... or the thing that does, with its doing as the context
        ("can a URDF describe a whole room?", ("URDF", "describe a whole room")),
        ("does Isaac ROS run on a Jetson?", ("Isaac ROS", "run on a Jetson")),
    ],
)
def test_a_yes_or_no_question_has_the_subject_its_how_question_has(
    question: str, parts: tuple[str, str]
) -> None:
    assert subject_parts(question) == parts


def test_a_pronoun_after_a_yes_or_no_question_stands_for_its_subject_not_its_clause() -> None:
    previous = "can I put NVIDIA's accelerated ROS packages on a Raspberry Pi robot?"
    assert (
        standalone_query("what hardware do they need then?", [previous])
        == "what hardware do NVIDIA's accelerated ROS packages need then (Raspberry Pi robot)?"
    )


@pytest.mark.parametrize(
    ("previous", "question", "query"),
    [
        # a name for the name that does what the previous question asks: asked of the new name, the old
        # one kept in brackets (it may be the new one's setting)
        ("what does RT-1 output?", "and PaLM-E?", "what does PaLM-E output (RT-1)?"),
        ("what GPU does Isaac Sim need?", "and Gazebo?", "what GPU does Gazebo need (Isaac Sim)?"),
        ("what does Whisper need?", "what about Vosk?", "what does Vosk need (Whisper)?"),
    ],
)
def test_a_name_for_the_doer_asks_the_previous_question_of_it(
    previous: str, question: str, query: str
) -> None:
    assert standalone_query(question, [previous]) == query


@pytest.mark.parametrize(
    ("previous", "question"),
    [
        ("How do I install Gazebo Harmonic?", "what about Windows?"),  # a how-to's object: where, not what
        ("what does Gazebo simulate?", "and Unity?"),  # the subject runs into a verb no list has
    ],
)
def test_a_name_is_not_swapped_for_an_object_or_an_unsure_subject(previous: str, question: str) -> None:
    assert swapped_question(previous, question) is None


def test_a_name_of_the_same_series_asks_the_previous_question_without_the_old_one() -> None:
    # "Module 4" for "Module 3": another of one series, not a setting of it; the old name in brackets
    # would search for the module not asked about
    assert standalone_query("and Module 4?", ["what does Module 3 cover?"]) == "what does Module 4 cover?"
    assert swapped_question("what does Isaac Sim need?", "and Windows?") == (
        "what does Windows need (Isaac Sim)?"
    )


@pytest.mark.parametrize(
    "question",
    [
        "how do I make its joints follow the real robot?",
        "What are their main differences from ROS 1 launch files?",
        "Can its battery be swapped without tools?",
    ],
)
def test_a_possessive_before_any_topic_word_points_back(question: str) -> None:
    assert is_followup(question)


@pytest.mark.parametrize(
    "question",
    [
        "How does a humanoid robot keep its balance on two legs?",
        "what does the oven do when its door is opened mid cycle?",
    ],
)
def test_a_possessive_after_its_owner_points_inside(question: str) -> None:
    assert not is_followup(question)


@pytest.mark.parametrize(
    ("question", "parts"),
    [
        # negated, a yes/no question has the same subject
        ("doesn't Gazebo support Windows?", ("Gazebo", "support Windows")),
        ("can't I use SQLite in production?", ("SQLite in production", "")),
        # a hedge between the person and the verb is no part of the thing
        ("can I just use SQLite in production?", ("SQLite in production", "")),
        ("how do I really need a GPU for Isaac Sim?", ("GPU for Isaac Sim", "")),
    ],
)
def test_a_negated_or_hedged_question_has_the_plain_ones_subject(
    question: str, parts: tuple[str, str]
) -> None:
    assert subject_parts(question) == parts


@pytest.mark.parametrize(
    ("question", "parts"),
    [
        # "is X <said of it>": the subject ends where a participle, a word of degree or an article after a
        # noun opens what is said of it
        ("is the late penalty applied per day?", ("late penalty", "applied per day")),
        ("is Django's ORM fast enough for a big site?", ("Django's ORM", "fast enough for a big site")),
        ("isn't the final exam worth half the grade?", ("final exam", "worth half the grade")),
        ("is Unity a good pick for robots?", ("Unity", "good pick for robots")),
        # an article after a preposition opens no predicate; an unknown adjective shows no end
        ("is the midterm open book?", ("midterm open book", "")),
        # a verb no list has, before a number or a preposition
        ("can the robot arm lift 5 kg?", ("robot arm", "lift 5 kg")),
        ("will the Roomba vacuum under beds?", ("Roomba", "vacuum under beds")),
        ("can a humanoid robot climb stairs?", ("humanoid robot climb stairs", "")),
    ],
)
def test_a_yes_or_no_question_about_what_a_thing_is_or_does_has_its_subject(
    question: str, parts: tuple[str, str]
) -> None:
    assert subject_parts(question) == parts


def test_a_name_of_the_same_series_keeps_the_verb_after_the_old_one() -> None:
    assert standalone_query("and Lab 2?", ["what did Lab 1 ask for?"]) == "what did Lab 2 ask for?"
    assert standalone_query("and Week 4?", ["what does the Week 3 lecture cover?"]) == (
        "what does the Week 4 lecture cover?"
    )


@pytest.mark.parametrize(
    ("question", "little"),
    [
        ("how do I refuse a bad value?", True),
        ("which message type carries the pose estimate?", True),
        ("how much does nvidia riva cost per hour of audio?", False),  # six topic words: its own topic
        ("Which repository do I add on Ubuntu first?", False),  # a name
    ],
)
def test_names_little(question: str, little: bool) -> None:
    assert names_little(question) is little


def test_a_swap_after_a_report_asks_its_question_again_with_the_report_in_brackets() -> None:
    previous = "I need one Python node to answer requests from another, how do I code the server?"
    assert standalone_query("and the client side?", [previous]) == (
        "how do I code the client side (I need one Python node to answer requests from another)?"
    )
    # a previous question without a report swaps as before
    assert standalone_query("and the client side?", ["how do I code the server?"]) == (
        "how do I code the client side?"
    )


@pytest.mark.parametrize(
    ("previous", "searched"),
    [
        # the name before "with"/"against" is what the verb is done to, not the verb: it stays
        (
            "Which kind of speech recognizer does the book compare Vosk with?",
            "how much does the one cost (compare Vosk speech recognizer)?",
        ),
        (
            # "that one" is the camera asked which of (`ordinals.one_asked_for`), the rest in brackets
            "Which camera does the guide compare the Sony A7 against?",
            "how much does the camera cost (guide Sony A7 against)?",
        ),
    ],
)
def test_a_name_before_the_preposition_of_a_which_question_stays_in_its_subject(
    previous: str, searched: str
) -> None:
    assert standalone_query("how much does that one cost?", [previous]) == searched


@pytest.mark.parametrize("question", ["how much disk space?", "how many GPUs?", "so how much RAM?"])
def test_an_amount_asked_without_a_verb_is_an_amount_of_what_was_just_talked_about(question: str) -> None:
    previous = "what hardware do I need for the Isaac navigation module?"
    assert is_followup(question)
    assert standalone_query(question, [previous]).endswith("(hardware for the Isaac navigation module)?")


@pytest.mark.parametrize(
    "question",
    [
        "how much disk space does Isaac Sim need?",  # a verb: it says of what
        "how much VRAM for Isaac Sim?",  # a name after a preposition says of what
        "how many joints does a humanoid arm have?",
    ],
)
def test_an_amount_asked_with_a_verb_or_of_a_named_thing_stands_alone(question: str) -> None:
    assert not is_followup(question)


@pytest.mark.parametrize(
    ("question", "parts"),
    [
        ("how should the launch files be organised?", ("launch files", "be organised")),
        ("how should the final project's folders be laid out?", ("final project's folders", "be laid out")),
        ("can the sensors be calibrated?", ("sensors", "be calibrated")),
    ],
)
def test_the_subject_of_a_passive_ends_at_its_be(question: str, parts: tuple[str, str]) -> None:
    assert subject_parts(question) == parts
    assert (
        standalone_query("and what goes in it?", [question]) == f"and what goes in {parts[0]} ({parts[1]})?"
    )


@pytest.mark.parametrize(
    ("previous", "question", "query"),
    [
        (
            "what tasks with tools can a robot learn in Isaac Sim?",
            "what about with cloth?",
            "what tasks with cloth can a robot learn in Isaac Sim?",
        ),
        (
            "what everyday jobs with objects could a humanoid learn in simulation?",
            "what about with liquids?",
            "what everyday jobs with liquids could a humanoid learn in simulation?",
        ),
        (
            "which sensors work with ROS 2 in Gazebo?",
            "what about with Unity?",
            "which sensors work with Unity in Gazebo?",
        ),
    ],
)
def test_a_swapped_phrase_ends_at_the_auxiliary_of_the_clause_after_it(
    previous: str, question: str, query: str
) -> None:
    assert standalone_query(question, [previous]) == query


@pytest.mark.parametrize(
    ("previous", "question", "query"),
    [
        (
            "how many weeks does each stage of the final project take?",
            "what's due at the end of the second one?",
            "what's due at the end of the second stage"
            " (how many weeks does each stage of the final project take)?",
        ),
        (
            "how many hours does each chapter take?",
            "and the last one?",
            "and the last chapter (how many hours does each chapter take)?",
        ),
    ],
)
def test_the_word_one_after_a_question_of_each_thing_is_one_of_those_things(
    previous: str, question: str, query: str
) -> None:
    # not one of the weeks or hours counted for each
    assert standalone_query(question, [previous]) == query


def test_each_other_names_no_things_for_a_one() -> None:
    assert "second other" not in standalone_query(
        "and the second one?", ["how do the nodes talk to each other?"]
    )


@pytest.mark.parametrize(
    ("question", "head"),
    [
        ("what control methods does the module 4 summary list?", "module 4 summary control methods"),
        ("what does chapter 12 cover?", "chapter 12"),
        ("which sensors does module 2 simulate?", "module 2 sensors"),
        ("which sensors does the book simulate?", "sensors"),  # the book itself is no part of a subject
    ],
)
def test_a_document_word_named_by_a_number_stays_in_the_subject(question: str, head: str) -> None:
    assert subject_parts(question) == (head, "")


def test_a_purpose_clause_reads_as_to_and_its_verb() -> None:
    # "so it can talk": the "it" is the thing just named, the purpose its setting, not a second subject
    unity = "What has to be set up in Unity so it can talk to my robot's ROS 2 side?"
    assert purpose_as_infinitive(unity) == "What has to be set up in Unity to talk to my robot's ROS 2 side?"
    assert standalone_query("which port number should I type in for it?", [unity]) == (
        "which port number should I type in for Unity (talk to my robot's ROS 2 side)?"
    )
    printer = "How do I set up the printer so that it can print over Wi-Fi?"
    assert standalone_query("does it need a password?", [printer]) == (
        "does printer to print over Wi-Fi need a password?"
    )
    postgres = "What settings does Postgres need so it will accept remote connections?"
    assert standalone_query("and MySQL?", [postgres]) == (
        "What settings does MySQL need to accept remote connections (Postgres)?"
    )
    # a clause with a subject of its own, or without a modal, is left as written
    for kept in ("How do I tune it so the robot can see further?", "Why is it slow so often?"):
        assert purpose_as_infinitive(kept) == kept


def test_what_i_need_to_do_is_a_doing_and_its_place() -> None:
    # the need is no doing: "it" is the thing the verb is done to or in, "how long does it take?" the doing
    router = "What do I need to configure in the router?"
    assert (
        standalone_query("which port should I open for it?", [router])
        == "which port should I open for router?"
    )
    jetson = "What do I need to install on the Jetson?"
    assert standalone_query("how much space does it have?", [jetson]) == "how much space does Jetson have?"
    assert (
        standalone_query("how long does it take?", [jetson])
        == "how long does it take to install on the Jetson?"
    )
    kit = "What do I need to buy for the kit?"
    assert standalone_query("how much does it cost?", [kit]) == "how much does it cost to buy for the kit?"
    launch = "What do I have to change in the launch file?"
    assert standalone_query("where is it?", [launch]) == "where is launch file?"


@pytest.mark.parametrize(
    ("previous", "question", "query"),
    [
        ("how do I set up push notifications?", "and email alerts?", "how do I set up email alerts?"),
        ("how do I turn on dark mode?", "and night shift?", "how do I turn on night shift?"),
        ("how do I sign up for the newsletter?", "and the webinar?", "how do I sign up for the webinar?"),
        ("how do I log in to the dashboard?", "and the admin panel?", "how do I log in to the admin panel?"),
        ("how do I back up the database?", "and the logs?", "how do I back up the logs?"),
    ],
)
def test_a_phrasal_verbs_particle_stays_with_the_verb(previous: str, question: str, query: str) -> None:
    # "set up", "sign up for": the object after the particle is what "and X?" swaps, not the particle
    assert standalone_query(question, [previous]) == query
