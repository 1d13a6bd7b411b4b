"""Probe conversations in everyday reader language (robotics docs, a web framework, a cookbook, product
manuals, a course handbook) for the follow-up readings of yes/no questions, name swaps and "its": each
query is one a reader would accept for what they asked; the known misreadings are strict xfails with the
reading a reader means, so a fix shows."""

import pytest

from lectern.followups import standalone_query, with_previous_topic


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
        ("How do I install Gazebo Harmonic?", "and Windows?", "and Windows (install Gazebo Harmonic)?"),
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


@pytest.mark.parametrize(
    ("previous", "question", "query"),
    [
        # other kinds of documentation (a Kubernetes operations guide, a personal-finance app's help
        # centre, a game engine manual, a statistics textbook, a camera manual, an employee handbook, a
        # programming language tutorial): pronouns, "and X?", bare phrases, "why X?", picks of one of two
        ("my pod keeps restarting.", "how do I see why?", "how do I see why (my pod keeps restarting)?"),
        ("how do I scale a deployment?", "can I undo that?", "can I undo that to scale a deployment?"),
        (
            "what is a StatefulSet?",
            "how is it different from a Deployment?",
            "how is StatefulSet different from a Deployment?",
        ),
        ("how do I create a ConfigMap?", "and a Secret?", "and a Secret (ConfigMap)?"),
        (
            "how do I roll back a deployment?",
            "how far back can I go?",
            "how far back can I go (roll back a deployment)?",
        ),
        (
            "does kubectl work on Windows?",
            "how do I install it?",
            "how do I install kubectl (work on Windows)?",
        ),
        (
            "what does the Ingress controller do?",
            "which one is the default?",
            "which one is the default (Ingress controller)?",
        ),
        (
            "how do I set memory limits on a container?",
            "what happens if it goes over?",
            "what happens if memory limits on a container goes over?",
        ),
        (
            "is the managed control plane free?",
            "what about the worker nodes?",
            "what about the worker nodes (is the managed control plane free)?",
        ),
        ("how do I drain a node?", "why?", "why (how do I drain a node)?"),
        (
            "how do I enable autoscaling for a node pool?",
            "what are the minimum and maximum?",
            "what are the minimum and maximum (autoscaling for a node pool)?",
        ),
        ("how do I link my bank account?", "is it safe?", "is bank account safe?"),
        ("how do I export my transactions?", "in which formats?", "in which formats (transactions)?"),
        (
            "can I set a monthly budget for groceries?",
            "how do I change it later?",
            "how do I change monthly budget for groceries later?",
        ),
        (
            "what does the premium plan include?",
            "is it free for students?",
            "is premium plan free for students?",
        ),
        ("how do I split a transaction?", "can I undo that?", "can I undo that to split a transaction?"),
        (
            "does the app support multiple currencies?",
            "how are they converted?",
            "how are multiple currencies converted (app)?",
        ),
        (
            "how do I categorise a transaction?",
            "and a recurring one?",
            "how do I categorise a recurring transaction?",
        ),
        ("what are the plans?", "which is cheapest?", "which is cheapest (plans)?"),
        (
            "how do I cancel my subscription?",
            "will I get a refund?",
            "will I get a refund (cancel my subscription)?",
        ),
        ("how do I import a 3D model?", "which formats?", "which formats (3D model)?"),
        ("what is a prefab?", "how do I make one?", "how do I make prefab?"),
        (
            "how do I add physics to an object?",
            "what about collisions?",
            "how do I add collisions to an object?",
        ),
        (
            "does the editor run on Linux?",
            "does that work on Mac?",
            "does that work on Mac (does the editor run on Linux)?",
        ),
        ("how do I build for Android?", "and iOS?", "how do I build for iOS?"),
        (
            "what is the difference between Update and FixedUpdate?",
            "which is faster?",
            "which is faster (Update and FixedUpdate)?",
        ),
        ("how do I bake lighting?", "how long does it take?", "how long does it take to bake lighting?"),
        (
            "how do I play a sound when the player jumps?",
            "how do I make it louder?",
            "how do I make sound when the player jumps louder?",
        ),
        ("what is a p-value?", "how do I compute it?", "how do I compute p-value?"),
        (
            "what is a t-test?",
            "when should I use it instead of a z-test?",
            "when should I use t-test instead of a z-test?",
        ),
        ("what is the standard error?", "and the standard deviation?", "what is the standard deviation?"),
        (
            "how do I check for normality?",
            "what if it fails?",
            "what if it fails (how do I check for normality)?",
        ),
        (
            "what assumptions does linear regression make?",
            "how do I test them?",
            "how do I test linear regression assumptions?",
        ),
        ("what is a confidence interval?", "why 95%?", "why 95% (confidence interval)?"),
        ("what is overfitting?", "how do I avoid it?", "how do I avoid overfitting?"),
        ("what is the median?", "is it better than the mean?", "is median better than the mean?"),
        ("how do I shoot in RAW?", "how much space does that take?", "how much space does RAW take?"),
        ("how do I change the ISO?", "what's the default?", "what's the default (ISO)?"),
        (
            "does the camera have image stabilisation?",
            "how do I turn it off?",
            "how do I turn the image stabilisation off (camera)?",
        ),
        ("how do I charge the battery?", "how long does it last?", "how long does battery last?"),
        ("how do I set the white balance?", "and the exposure?", "how do I set the exposure?"),
        ("can the camera record 4K video?", "for how long?", "for how long (camera record 4K video)?"),
        (
            "how do I transfer photos to my phone?",
            "does that work on Mac?",
            "does that work on Mac to transfer photos to my phone?",
        ),
        (
            "what lenses are compatible?",
            "which is best for portraits?",
            "which is best for portraits (lenses are compatible)?",
        ),
        ("how many vacation days do I get?", "can I carry them over?", "can I carry vacation days over?"),
        ("how do I request parental leave?", "how long is it?", "how long is parental leave?"),
        (
            "what is the remote work policy?",
            "does it apply to contractors?",
            "does remote work policy apply to contractors?",
        ),
        ("how do I submit expenses?", "by when?", "by when (how do I submit expenses)?"),
        (
            "what health insurance plans are offered?",
            "which one covers dental?",
            "which health insurance plan covers dental (offered)?",
        ),
        ("when is payday?", "and if it falls on a holiday?", "when is payday if it falls on a holiday?"),
        ("I'm sick today.", "who do I tell?", "who do I tell (I'm sick today)?"),
        (
            "what's the notice period for resigning?",
            "during probation?",
            "during probation (notice period for resigning)?",
        ),
        ("what is a closure?", "can you give an example?", "can you give an example (closure)?"),
        ("how do I read a file line by line?", "and write one?", "and write file line by line?"),
        (
            "what is a list comprehension?",
            "is it faster than a loop?",
            "is list comprehension faster than a loop?",
        ),
        ("how do I handle exceptions?", "what about finally?", "how do I handle finally?"),
        ("are strings mutable?", "why not?", "why not (strings mutable)?"),
        (
            "what's the difference between a tuple and a list?",
            "when should I use the first?",
            "when should I use tuple (tuple and list)?",
        ),
        (
            "how do I install packages with pip?",
            "in a virtual environment?",
            "how do I install packages with pip in a virtual environment?",
        ),
        (
            "what does the yield keyword do?",
            "how is that different from return?",
            "how is yield keyword different from return?",
        ),
        (
            "how do I sort a dictionary by value?",
            "in reverse?",
            "how do I sort a dictionary by value in reverse?",
        ),
        (
            "which cloud regions support GPU nodes?",
            "is this one in Europe?",
            "is the one in Europe (cloud regions support GPU nodes)?",
        ),
        (
            "how do I back up the database volume?",
            "how often should I do that?",
            "how often should I back up the database volume?",
        ),
        ("what load balancer types are there?", "which is cheapest?", "which is cheapest (load balancer)?"),
        (
            "should I use Helm for deployments?",
            "Kustomize instead?",
            "Kustomize instead (use Helm for deployments)?",
        ),
        (
            "how do I set up a cron job in Kubernetes?",
            "what timezone does it use?",
            "what timezone does cron job in Kubernetes use?",
        ),
        ("how do I connect my credit card?", "is that free?", "is that free to connect my credit card?"),
        (
            "how do I create a savings goal?",
            "can I have more than one?",
            "can I have more than one savings goal?",
        ),
        ("which reports does the app offer?", "can I print those?", "can I print app reports?"),
        (
            "what does the budget overview show?",
            "on mobile?",
            "what does the budget overview show on mobile?",
        ),
        ("how do I make a character jump?", "and double jump?", "how do I make a double jump?"),
        (
            "does the engine support multiplayer?",
            "how many players?",
            "how many players (engine support multiplayer)?",
        ),
        ("how do I create a terrain?", "how big can it be?", "how big can terrain be?"),
        ("what is a sprite sheet?", "do I need one for 3D games?", "do I need sprite sheet for 3D games?"),
        (
            "what is the difference between mean and median?",
            "which is more robust?",
            "which is more robust (mean and median)?",
        ),
        (
            "how do I run an ANOVA?",
            "what if the variances are unequal?",
            "what if the variances are unequal (how do I run an ANOVA)?",
        ),
        ("what does the F statistic mean?", "how is it calculated?", "how is F statistic calculated?"),
        ("how do I read a box plot?", "what are the dots?", "what are the dots (box plot)?"),
        (
            "how do I use the self-timer?",
            "can I set it to 20 seconds?",
            "can I set self-timer to 20 seconds?",
        ),
        ("what does aperture priority mode do?", "and shutter priority?", "what does shutter priority do?"),
        (
            "how long does the battery last when recording video?",
            "on a budget?",
            "how long does the battery last when recording video on a budget?",
        ),
        (
            "how do I update the firmware?",
            "how long does that take?",
            "how long does that take to update the firmware?",
        ),
        (
            "what is the overtime policy?",
            "does that apply to part-time staff?",
            "does overtime policy apply to part-time staff?",
        ),
        (
            "who approves my vacation requests?",
            "and if they're on leave?",
            "who approves my vacation requests if they're on leave?",
        ),
        ("what is the probation period?", "for managers?", "what is the probation period for managers?"),
        (
            "how do I define a function?",
            "with default arguments?",
            "how do I define a function with default arguments?",
        ),
        (
            "what is the difference between == and is?",
            "when should I use the second?",
            "when should I use is (== and is)?",
        ),
        (
            "how do I create a virtual environment?",
            "how do I activate it on Windows?",
            "how do I activate virtual environment on Windows?",
        ),
        ("what is a generator?", "why would I use one?", "why would I use generator?"),
        ("how do I install the SDK?", "is it free?", "is SDK free?"),
        (
            "what does the camera's night mode do?",
            "does that work on video?",
            "does camera's night mode work on video?",
        ),
        (
            "how do I set resource requests for a pod?",
            "what's the default?",
            "what's the default (resource requests for a pod)?",
        ),
        (
            "how do I invite a team member to the workspace?",
            "can they see my transactions?",
            "can team member to the workspace see my transactions?",
        ),
        (
            "my game stutters when many enemies spawn.",
            "how do I find out what's slow?",
            "how do I find out what's slow (my game stutters when many enemies spawn)?",
        ),
        (
            "my photos come out blurry.",
            "what setting should I check first?",
            "what setting should I check first (my photos come out blurry)?",
        ),
        (
            "should I use Helm or Kustomize?",
            "how do I install the second one?",
            "how do I install Kustomize (Helm and Kustomize)?",
        ),
        (
            "what is the difference between merge and rebase?",
            "is the latter safer?",
            "is rebase safer (merge and rebase)?",
        ),
        (
            "how do I create a savings goal?",
            "do I need at least one?",
            "do I need at least one savings goal?",
        ),
        # second questions that stand alone in the same documentation are searched as asked
        (
            "my pod keeps restarting.",
            "How do I view the logs of a Kubernetes pod?",
            "How do I view the logs of a Kubernetes pod?",
        ),
        ("how do I scale a deployment?", "What is a Helm chart?", "What is a Helm chart?"),
        ("how do I link my bank account?", "How do I reset my password?", "How do I reset my password?"),
        (
            "what does the premium plan include?",
            "Can I share my budget with my partner?",
            "Can I share my budget with my partner?",
        ),
        (
            "how do I import a 3D model?",
            "How do I create a particle system for fire?",
            "How do I create a particle system for fire?",
        ),
        ("what is a prefab?", "Does the engine support VR headsets?", "Does the engine support VR headsets?"),
        ("what is a p-value?", "What is the central limit theorem?", "What is the central limit theorem?"),
        (
            "what is a t-test?",
            "When is a chi-square test appropriate?",
            "When is a chi-square test appropriate?",
        ),
        ("how do I shoot in RAW?", "How do I format the memory card?", "How do I format the memory card?"),
        (
            "does the camera have image stabilisation?",
            "Can I use the camera as a webcam?",
            "Can I use the camera as a webcam?",
        ),
        (
            "how many vacation days do I get?",
            "What is the dress code in the office?",
            "What is the dress code in the office?",
        ),
        (
            "how do I request parental leave?",
            "Who approves overtime requests?",
            "Who approves overtime requests?",
        ),
        ("what is a closure?", "How do decorators work in Python?", "How do decorators work in Python?"),
        ("are strings mutable?", "Is Python dynamically typed?", "Is Python dynamically typed?"),
        (
            "how do I handle exceptions?",
            "What does the with statement do in Python?",
            "What does the with statement do in Python?",
        ),
        (
            "what is the difference between a tuple and a list?",
            "Which is better for beginners, Python or JavaScript?",
            "Which is better for beginners, Python or JavaScript?",
        ),
        (
            "how do I install packages with pip?",
            "In Python, how do I reverse a string?",
            "In Python, how do I reverse a string?",
        ),
        (
            "how do I install packages with pip?",
            "With pip, can I install from a Git repository?",
            "With pip, can I install from a Git repository?",
        ),
        (
            "how do I shoot in RAW?",
            "On the X-T5, where is the ISO dial?",
            "On the X-T5, where is the ISO dial?",
        ),
        (
            "how do I link my bank account?",
            "How far back does transaction history go in the app?",
            "How far back does transaction history go in the app?",
        ),
        (
            "what is a confidence interval?",
            "Why do we divide by n minus one in the sample variance?",
            "Why do we divide by n minus one in the sample variance?",
        ),
        # the subject of "what <things> <verb> ...": "come" is a verb, so "one" takes the shaders, singular
        # (lectern/ordinals.py: an ordinal picks one of the listed things)
        ("what shaders come with the engine?", "the second one", "what is the second shader (engine)?"),
        # a verb with its particle ("opt out") names no thing: the follow-up is about the whole doing
        (
            "how do I enrol in the pension plan?",
            "can I opt out later?",
            "can I opt out later (enrol in the pension plan)?",
        ),
    ],
)
def test_follow_ups_in_other_documentation(previous: str, question: str, query: str) -> None:
    assert standalone_query(question, [previous]) == query


def test_a_bare_phrase_reads_the_same_on_the_engines_second_try() -> None:
    # the engine retries a refused follow-up with the previous topic: a bare phrase reads as "and ..."
    previous = ["how do I install packages with pip?"]
    assert with_previous_topic("in a virtual environment?", previous) == (
        "how do I install packages with pip in a virtual environment?"
    )


# A verb no list knew, a verb with its particle, a name after a preposition, a how-to verb used as a
# noun, and how far back: the patterns of the last review's misreadings in other kinds of documents.
@pytest.mark.parametrize(
    ("previous", "question", "query"),
    [
        # "come" is a verb: "one" takes the things that come, singular
        ("what plugins come with the editor?", "the first one", "what is the first plugin (editor)?"),
        ("what sensors come with the kit?", "the third one", "what is the third sensor (kit)?"),
        (
            "what exercises come at the end of chapter 3?",
            "the last one",
            "what is the last exercise (end of chapter 3)?",
        ),
        # a verb with its particle names no thing: the follow-up is about the whole doing
        (
            "how do I subscribe to the newsletter?",
            "can I opt out later?",
            "can I opt out later (subscribe to the newsletter)?",
        ),
        (
            "how do I sign up for the beta?",
            "can I drop out later?",
            "can I drop out later (sign up for the beta)?",
        ),
        (
            "how do I join the team workspace?",
            "can I back out later?",
            "can I back out later (join the team workspace)?",
        ),
        (
            "how do I cancel my subscription?",
            "can I opt back in later?",
            "can I opt back in later (cancel my subscription)?",
        ),
        (
            "how do I enable two-factor login?",
            "can I turn it off later?",
            "can I turn two-factor login off later?",
        ),
        # how far back: in the whole doing, not its object
        ("how do I undo a commit?", "how far back can I go?", "how far back can I go (undo a commit)?"),
        (
            "how do I restore a snapshot?",
            "how far back can I go?",
            "how far back can I go (restore a snapshot)?",
        ),
        (
            "how do I revert a migration?",
            "how far back can I go?",
            "how far back can I go (revert a migration)?",
        ),
        (
            "how do I apply for parental leave?",
            "how soon can I start?",
            "how soon can I start (apply for parental leave)?",
        ),
        # a name for the only name, after a preposition, swaps it
        ("how do I deploy to AWS?", "and Azure?", "how do I deploy to Azure?"),
        ("how do I connect to PostgreSQL?", "and MySQL?", "how do I connect to MySQL?"),
        ("how do I export the report to PDF?", "and CSV?", "how do I export the report to CSV?"),
        ("how do I build for Android?", "what about Windows?", "how do I build for Windows?"),
        ("how do I pair the headphones with Android?", "and iOS?", "how do I pair the headphones with iOS?"),
        # another name in the question: the new name might stand for it, so nothing is swapped
        ("How do I install Gazebo?", "what about Windows?", "How do I install Gazebo Windows?"),
        # after "what" or "which" a how-to verb is a noun
        (
            "which load balancers support TLS?",
            "which is cheapest?",
            "which is cheapest (load balancers support TLS)?",
        ),
        ("what build targets are there?", "which is fastest?", "which is fastest (build targets)?"),
        ("what install options are there?", "which is simplest?", "which is simplest (install options)?"),
        # a plain word between a plural and a preposition is its verb, whatever verb it is
        ("what fonts ship with the theme?", "the second one", "the second one (fonts ship with the theme)"),
        (
            "what trains leave from platform 2?",
            "the first one",
            "the first one (trains leave from platform 2)",
        ),
        # a verb that ends a "how far ...?" names no thing, whatever verb it is ("book")
        (
            "how do I book a meeting room?",
            "how far ahead can I book?",
            "how far ahead can I book (book a meeting room)?",
        ),
        # a name after a determiner ("the CLI") is a thing the new name cannot stand for: the place swaps
        ("how do I install the CLI on macOS?", "and Linux?", "how do I install the CLI on Linux?"),
        # a generic verb after an article opens a compound noun ("the mean squared error")
        ("what is the mean squared error?", "when should I use it?", "when should I use mean squared error?"),
        # "them" is the plural noun a plain verb agrees with, not the clause
        (
            "what tools come with the SDK?",
            "how do I use them?",
            "how do I use the tools (come with the SDK)?",
        ),
    ],
)
def test_verbs_particles_and_named_places(previous: str, question: str, query: str) -> None:
    assert standalone_query(question, [previous]) == query


@pytest.mark.parametrize(
    ("previous", "question"),
    [
        ("how do I build for Android?", "How do I sign an iOS app for the App Store?"),
        (
            "how do I subscribe to the newsletter?",
            "Can I opt out of analytics tracking in the settings page?",
        ),
        ("how do I roll back a deployment?", "How far back does the audit log retain events?"),
        ("what load balancer types are there?", "Which load balancer supports WebSocket connections?"),
        ("what is a confidence interval?", "What is the central limit theorem?"),
        ("how do I book a meeting room?", "How do I reset my password?"),
        ("what shaders come with the engine?", "How do I write a custom post-processing shader?"),
        ("how do I enrol in the pension plan?", "What is the employer match for the 401k plan?"),
        ("how do I deploy to AWS?", "How do I deploy a static site to Netlify?"),
    ],
)
def test_second_questions_of_their_own_stay_as_asked(previous: str, question: str) -> None:
    assert standalone_query(question, [previous]) == question
