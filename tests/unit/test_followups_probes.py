"""Probe conversations in everyday reader language (robotics docs, a web framework, a cookbook, product
manuals, a course handbook) for the follow-up readings of yes/no questions, name swaps and "its": each
query is one a reader would accept for what they asked; the known misreadings are strict xfails with the
reading a reader means, so a fix shows."""

import pytest

from lectern.followups import standalone_query


@pytest.mark.parametrize(
    ("previous", "question", "query"),
    [
        # a yes/no question's subject, as its "how can ..." question reads it; negated, hedged, or "is ..."
        (
            "can I put the Isaac ROS packages on a Raspberry Pi?",
            "what hardware do they need then?",
            "what hardware do Isaac ROS packages need then (Raspberry Pi)?",
        ),
        ("can I run Gazebo on a Mac?", "how do I install it?", "how do I install Gazebo on a Mac?"),
        (
            "is Django's ORM fast enough for a big site?",
            "how do I speed it up?",
            "how do I speed Django's ORM up (fast enough for a big site)?",
        ),
        ("can I freeze cooked rice?", "how long does it keep?", "how long does cooked rice keep?"),
        (
            "will the dishwasher run without hot water connected?",
            "where is its filter?",
            "where is dishwasher's filter (run without hot water connected)?",
        ),
        (
            "would a Jetson Nano handle Whisper?",
            "how much memory does it have?",
            "how much memory does Jetson Nano have (handle Whisper)?",
        ),
        (
            "isn't the final exam worth half the grade?",
            "when is it?",
            "when is final exam (worth half the grade)?",
        ),
        (
            "can't I just use SQLite in production?",
            "what are its limits?",
            "what are SQLite's limits (production)?",
        ),
        (
            "do we need a lab report for every practical?",
            "how long should it be?",
            "how long should lab report for every practical be?",
        ),
        (
            "can a URDF describe a room?",
            "what about furniture?",
            "what about furniture (can a URDF describe a room)?",
        ),
        (
            "is the late penalty applied per day?",
            "can it be waived?",
            "can late penalty be waived (applied per day)?",
        ),
        ("do I need a GPU for Isaac Sim?", "which one?", "which GPU for Isaac Sim?"),
        ("can the robot arm lift 5 kg?", "what's its reach?", "what's robot arm's reach (lift 5 kg)?"),
        (
            "can I cook pasta in the rice cooker?",
            "how much water does it need?",
            "how much water does pasta in the rice cooker need?",
        ),
        (
            "should we pin our dependencies in requirements.txt?",
            "how do I update them later?",
            "how do I update dependencies in requirements.txt later?",
        ),
        (
            "doesn't Gazebo support Windows?",
            "how do I install it there?",
            "how do I install Gazebo there (support Windows)?",
        ),
        (
            "won't the thermostat learn my schedule?",
            "how long does it take?",
            "how long does thermostat take (learn my schedule)?",
        ),
        ("can a URDF describe a room?", "what are its limits?", "what are URDF's limits (describe a room)?"),
        (
            "should I use Whisper for a robot without internet?",
            "how big is it?",
            "how big is Whisper (robot without internet)?",
        ),
        (
            "does Isaac ROS run on a Jetson?",
            "which version does it need?",
            "which version does Isaac ROS need (run on a Jetson)?",
        ),
        (
            "can you recommend a stand mixer for bread dough?",
            "how much does it cost?",
            "how much does stand mixer for bread dough cost?",
        ),
        (
            "should I use Celery for background jobs in Django?",
            "how do I configure it?",
            "how do I configure Celery (background jobs in Django)?",
        ),
        (
            "could the robot map a room on its own?",
            "how long would it take?",
            "how long would robot take (map a room on its own)?",
        ),
        # a name for the previous question's doer; a setting or an object is no such name
        ("what does RT-1 output?", "and PaLM-E?", "what does PaLM-E output (RT-1)?"),
        ("what does Isaac Sim need?", "and Windows?", "what does Windows need (Isaac Sim)?"),
        ("what does Isaac Sim need?", "what about on a Mac?", "what does Isaac Sim need on a Mac?"),
        ("what does Django use for templates?", "and Flask?", "what does Flask use for templates (Django)?"),
        (
            "what does the Instant Pot need for pressure cooking?",
            "and the Ninja Foodi?",
            "what does the Ninja Foodi need for pressure cooking (Instant Pot)?",
        ),
        ("How do I install Gazebo Harmonic?", "and Windows?", "and Windows (Gazebo Harmonic)?"),
        ("what does RT-1 output?", "and its inputs?", "and RT-1's inputs?"),
        ("what does Module 3 cover?", "and Module 4?", "what does Module 4 cover?"),
        ("what did Lab 1 ask for?", "and Lab 2?", "what did Lab 2 ask for?"),
        ("what does Python 3.12 add?", "and 3.13?", "what does Python 3.13 add?"),
        ("what should Whisper run on?", "and Vosk?", "what should Vosk run on (Whisper)?"),
        ("what does Gazebo simulate?", "and Unity?", "and Unity (Gazebo simulate)?"),
        (
            "what would FastAPI return for a missing field?",
            "and Django REST framework?",
            "and Django REST framework (FastAPI)?",
        ),
        ("what does RT-1 output?", "ok and what about PaLM-E?", "what does PaLM-E output (RT-1)?"),
        ("what can the Roomba clean?", "and the Braava?", "and the Braava (Roomba clean)?"),
        ("what does the final exam cover?", "and the midterm?", "what does the midterm cover?"),
        ("what does Isaac Sim need?", "and a Mac?", "what does a Mac need (Isaac Sim)?"),
        ("what does FastAPI need to run?", "and on Windows?", "what does FastAPI need to run on Windows?"),
        ("what do I need for the Raspberry Pi?", "and Jetson?", "and Jetson (Raspberry Pi)?"),
        (
            "which sensors does Isaac Sim support?",
            "and Gazebo?",
            "which sensors does Gazebo support (Isaac Sim)?",
        ),
        # "its"/"their": the owner, and a setting after a preposition in brackets
        (
            "can I bring my robot description into Unity?",
            "how do I make its joints follow the real robot?",
            "how do I make robot description's joints follow the real robot (Unity)?",
        ),
        (
            "how do I load a URDF in Gazebo?",
            "what are its joint limits?",
            "what are URDF's joint limits (Gazebo)?",
        ),
        ("what are Python's strengths?", "and its weaknesses?", "and Python's weaknesses?"),
        (
            "how do I set up the blender for smoothies?",
            "how do I clean its blades?",
            "how do I clean blender's blades (smoothies)?",
        ),
        (
            "how do I register a model with the Django admin?",
            "what are its options?",
            "what are model's options (Django admin)?",
        ),
        (
            "how do I add a middleware to FastAPI?",
            "what's their order?",
            "what's middleware's order (FastAPI)?",
        ),
        (
            "how do I attach a camera to my robot in Isaac Sim?",
            "what are its settings?",
            "what are camera's settings (robot in Isaac Sim)?",
        ),
        (
            "what is the grading policy for the capstone project?",
            "what's its deadline?",
            "what's grading policy's deadline (capstone project)?",
        ),
        (
            "how do I install ROS 2 on Ubuntu?",
            "what are its dependencies?",
            "what are ROS 2's dependencies (Ubuntu)?",
        ),
        (
            "how do I use the slow cooker on low?",
            "how big is its bowl?",
            "how big is slow cooker's bowl (low)?",
        ),
        (
            "what is the warranty on the washing machine?",
            "what does it cover?",
            "what does warranty on the washing machine cover?",
        ),
        ("what is Nav2?", "what are its main components?", "what are Nav2's main components?"),
        (
            "how do I store fresh herbs in the fridge?",
            "how long do they last?",
            "how long do fresh herbs in the fridge last?",
        ),
        ("what are Gazebo's sensors?", "what are their update rates?", "what are Gazebo's update rates?"),
        (
            "how do I write a recipe card for a cake?",
            "what goes in its header?",
            "what goes in recipe card's header (cake)?",
        ),
        # second questions that stand alone are searched as asked
        (
            "can I run Gazebo on a Mac?",
            "How do I install ROS 2 Humble on Ubuntu 22.04?",
            "How do I install ROS 2 Humble on Ubuntu 22.04?",
        ),
        ("what does RT-1 output?", "What does PaLM-E output?", "What does PaLM-E output?"),
        (
            "is the midterm open book?",
            "When are office hours for the robotics course?",
            "When are office hours for the robotics course?",
        ),
        (
            "can I use Jinja2 with FastAPI?",
            "Is Jinja2 faster than Django templates?",
            "Is Jinja2 faster than Django templates?",
        ),
        (
            "does the dishwasher have a quick wash cycle?",
            "How do I descale the coffee machine?",
            "How do I descale the coffee machine?",
        ),
        (
            "should I brine the chicken?",
            "What temperature should a roast turkey reach inside?",
            "What temperature should a roast turkey reach inside?",
        ),
        # more of the series and "is ..." subjects
        ("what does the Week 3 lecture cover?", "and Week 4?", "what does the Week 4 lecture cover?"),
        (
            "are the lab reports graded by hand?",
            "who grades them?",
            "who grades lab reports (graded by hand)?",
        ),
        (
            "is Gazebo Classic still supported?",
            "what replaces it?",
            "what replaces Gazebo Classic (still supported)?",
        ),
        # an "its"/"their" after the question's own owner, and yes/no questions of their own
        (
            "what does RT-1 output?",
            "Why does Gazebo need its own physics engine?",
            "Why does Gazebo need its own physics engine?",
        ),
        (
            "is the midterm open book?",
            "Can the teaching assistants extend their office hours during exam week?",
            "Can the teaching assistants extend their office hours during exam week?",
        ),
        (
            "can I run Gazebo on a Mac?",
            "Does Isaac Sim run on Windows 11?",
            "Does Isaac Sim run on Windows 11?",
        ),
        (
            "does the Instant Pot have a slow cook mode?",
            "Is the Ninja Foodi dishwasher safe?",
            "Is the Ninja Foodi dishwasher safe?",
        ),
        ("what does Isaac Sim need?", "and on a Mac?", "what does Isaac Sim need on a Mac?"),
        (
            "can a URDF describe a room?",
            "what does its root link look like?",
            "what does URDF's root link look like (describe a room)?",
        ),
    ],
)
def test_a_follow_up_reads_as_a_reader_means_it(previous: str, question: str, query: str) -> None:
    assert standalone_query(question, [previous]) == query


@pytest.mark.parametrize(
    ("previous", "question", "query"),
    [
        # a plural pronoun is the plural thing the previous question named, its one subject the setting
        ("does Flask support websockets?", "how do I add them?", "how do I add websockets (Flask)?"),
        (
            "will Flask work with async views?",
            "how do I set them up?",
            "how do I set async views up (Flask)?",
        ),
        (
            "is the capstone project done in teams?",
            "how big are they?",
            "how big are teams (capstone project)?",
        ),
        ("does the robot have two arms?", "how do I control them?", "how do I control two arms (robot)?"),
        ("does the humanoid use servos?", "are they expensive?", "are servos expensive (humanoid)?"),
        # a plural subject keeps them; a name in capitals ("Windows") is no plural thing
        (
            "can the Isaac ROS packages run on a Raspberry Pi?",
            "what hardware do they need?",
            "what hardware do Isaac ROS packages need (run on a Raspberry Pi)?",
        ),
        (
            "does Gazebo run on Windows?",
            "how do I install them?",
            "how do I install Gazebo (run on Windows)?",
        ),
    ],
)
def test_plural_pronouns(previous: str, question: str, query: str) -> None:
    assert standalone_query(question, [previous]) == query


@pytest.mark.parametrize(
    ("previous", "question", "query"),
    [
        # "it" after "does X have a Y?" is the one thing had, X the setting; a plural keeps its own rule
        (
            "does the pressure cooker have a keep-warm setting?",
            "how do I turn it off?",
            "how do I turn the keep-warm setting off (pressure cooker)?",
        ),
        (
            "does ROS 2 have a parameter server?",
            "how do I use it?",
            "how do I use the parameter server (ROS 2)?",
        ),
        ("does the robot have a lidar?", "what is its range?", "what is the lidar's range (robot)?"),
        ("does the robot have two arms?", "how do I control them?", "how do I control two arms (robot)?"),
        ("does the robot use a lidar?", "how do I calibrate it?", "how do I calibrate robot (use a lidar)?"),
        # a last word only an adjective ends like ("-ous", "-ful", "-less", "-ible", "-able") is said of
        # the subject, not part of it
        (
            "are Django signals synchronous?",
            "how do I make them async?",
            "how do I make Django signals async (synchronous)?",
        ),
        ("is the ROS 2 bridge reliable?", "how do I test it?", "how do I test ROS 2 bridge (reliable)?"),
        (
            "is the old camera driver useless?",
            "how do I remove it?",
            "how do I remove old camera driver (useless)?",
        ),
    ],
)
def test_what_a_yes_no_question_has_or_is(previous: str, question: str, query: str) -> None:
    assert standalone_query(question, [previous]) == query
