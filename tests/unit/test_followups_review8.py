"""Review 8 (fu14): probe conversations over kinds of documents no earlier probe file used (a home, car and
travel insurance policy, a fitness-tracker FAQ, a Python client library's API reference, a pharmacy's
prescription service, a VPN app guide, an e-bike owner's manual, a payroll admin guide, an airline's
check-in page), written with the reading expected before anything was run: pronouns, "what about X?", "and
for Y?", ordinals, "how?", "is that the default?", "what's the maximum?", "example?", "what if it fails?",
"is there a fee?", "which one should I pick?", corrections, comparisons, API questions ("what does it
return?", "what are its parameters?", "is it async?"), three-turn conversations, and nine questions that
change the topic. An acceptable reading keeps the meaning with the previous question or subject in
brackets.

Read against main (91674de), the 52 follow-ups: 21 right, 24 acceptable, 7 wrong ("what about mould?" after
"what does the home insurance policy cover for water damage?": "what does the mould cover for water
damage?"; "is there a time limit?" and "is retries optional?" searched alone; "do they need a tax form?"
after "what about contractors?" took the first turn's "new employee"; "where do I see the results?"
searched alone in a third turn; "how do I create the async one?" after "a sync client and an async client":
"the async library"; "and the Premium one?" after "what does the Standard plan ... cover?" kept the
question unasked); 9 of 9 questions of their own as asked. After the rules: 24 right, 25 acceptable, 3
wrong (`test_still_misread`; 26 / 23 / 3 with the rule the second set led to, below), 9 of 9 as asked. The
rules: "is/are there (a/any) X?" whose X is one or two common words with nothing after it is a follow-up
(`_IS_THERE_BARE`); "see" names no topic, as "find" does; a pronoun after a "what about X?" that swapped a
common thing in stands for that thing, the last turn as read being its anchor (`_asks_of_another_thing`);
"the <word> one" whose word the previous question put before a noun ("an async client") is that noun
(`ordinals.kind_named_before`). On the tuned and held-back follow-up sets no query changed
(bench/followup_query_ab.py).

A second set of 10 follow-ups and 2 questions of their own (a coworking space, a bike-share scheme, a
charting library, a podcast platform, a language app), written after those rules and before running them
(`test_second_set`): main 2 right, 2 acceptable, 6 wrong; with the rules 4 right, 5 acceptable, 1 wrong
("is there a fee?" after "how do I cancel a booking ...?" read "is there a fee (booking on the coworking
space app)?", a booking fee, not a cancellation fee); 2 of 2 as asked both times. That one showed a general
gap, so one more rule: "is there a X?" after a how-to takes the whole doing in brackets ("is there a fee
(cancel a booking on the coworking space app)?"), as "will I lose my contacts?" does; it changed two
readings of the first set from acceptable to right ("file a claim", "change my seat") and no tuned or
held-back query. The second set now: 5 right, 5 acceptable, 0 wrong.
"""

import pytest

from lectern.followups import is_followup, standalone_query


@pytest.mark.parametrize(
    ("previous", "question", "query"),
    [
        (
            ["what is the deductible on the comprehensive car policy?"],
            "and for third party?",
            "what is the deductible on the comprehensive car policy for third party?",
        ),
        (
            ["how do I file a claim after a car accident?"],
            "is there a time limit?",
            "is there a time limit (file a claim after a car accident)?",
        ),
        (
            ["does the travel insurance cover cancelled flights?"],
            "what if I cancel myself?",
            "what if I cancel myself (does the travel insurance cover cancelled flights)?",
        ),
        (
            ["what discounts does the car insurance offer?"],
            "which one should I pick?",
            "which discount should I pick (car insurance)?",
        ),
        (
            ["how do I turn on sleep tracking on the fitness tracker?"],
            "does it work with naps?",
            "does sleep tracking work with naps (fitness tracker)?",
        ),
        (
            ["how accurate is the heart rate sensor?"],
            "what about during swimming?",
            "how accurate is the heart rate sensor during swimming?",
        ),
        (
            ["how long does the tracker battery last?"],
            "what's the maximum?",
            "what's the maximum (tracker battery last long)?",
        ),
        (
            ["how do I sync the tracker with my phone?"],
            "and on Mac?",
            "how do I sync the tracker with my phone on Mac?",
        ),
        (
            ["what workout modes does the tracker have?"],
            "what does the third one measure?",
            "what does the third workout mode measure (tracker)?",
        ),
        (
            ["how do I reset the fitness tracker?"],
            "will I lose my data?",
            "will I lose my data (reset the fitness tracker)?",
        ),
        (["what does tablekit.read_csv do?"], "what does it return?", "what does tablekit.read_csv return?"),
        (
            ["what does tablekit.read_csv do?"],
            "what are its parameters?",
            "what are tablekit.read_csv's parameters?",
        ),
        (
            ["how do I open a connection with the client library?"],
            "is it async?",
            "is connection with the client library async?",
        ),
        (["what does the merge function do?"], "example?", "example (merge function)?"),
        (
            ["what is the default timeout of the fetch function?"],
            "can I change it?",
            "can I change default timeout of the fetch function?",
        ),
        (
            ["what exceptions does the parse function raise?"],
            "what if the input is empty?",
            "what if the input is empty (what exceptions does the parse function raise)?",
        ),
        (
            ["what is the difference between load and loads?"],
            "which one should I use for files?",
            "which one should I use for files (load and loads)?",
        ),
        (
            ["how do I install the client library?"],
            "and on Windows?",
            "how do I install the client library on Windows?",
        ),
        (["what does the encode method return?"], "what about decode?", "what does the decode return?"),
        (
            ["what is the maximum batch size for the upload function?"],
            "is that the default?",
            "is maximum batch size the default (upload function)?",
        ),
        (
            ["how do I request a prescription refill online?"],
            "how long does it take?",
            "how long does it take to request a prescription refill online?",
        ),
        (
            ["can the pharmacy deliver prescriptions?"],
            "is there a fee?",
            "is there a fee (pharmacy deliver prescriptions)?",
        ),
        (
            ["what are the pharmacy's opening hours?"],
            "on Sundays?",
            "what are the pharmacy's opening hours on Sundays?",
        ),
        (
            ["can I transfer a prescription from another pharmacy?"],
            "how?",
            "how (can I transfer a prescription from another pharmacy)?",
        ),
        (
            ["how do I enable the kill switch in the VPN app?"],
            "is that the default?",
            "is that the default to enable the kill switch in the VPN app?",
        ),
        (
            ["which protocols does the VPN app support?"],
            "which one is fastest?",
            "which protocol is fastest (VPN app)?",
        ),
        (
            ["how many devices can I connect to one VPN account?"],
            "what about on the free plan?",
            "how many devices can I connect to one VPN account on the free plan?",
        ),
        (
            ["why does the VPN disconnect when my laptop sleeps?"],
            "how do I fix it?",
            "how do I fix VPN disconnect (laptop sleeps)?",
        ),
        (
            ["how do I set up split tunneling in the VPN app?"],
            "where do I set that on Android?",
            "where do I set split tunneling on Android (VPN app)?",
        ),
        (
            ["what is the range of the e-bike battery?"],
            "how do I make it last longer?",
            "how do I make range of the e-bike battery last longer?",
        ),
        (
            ["what are the assist levels on the e-bike?"],
            "the second one?",
            "what is the second assist level on the e-bike?",
        ),
        (
            ["how do I charge the e-bike battery?"],
            "can I leave it charging overnight?",
            "can I leave e-bike battery charging overnight?",
        ),
        (
            ["what does error code E10 mean on the e-bike display?"],
            "and E12?",
            "what does error code E12 mean on the e-bike display?",
        ),
        (
            ["how do I remove the e-bike battery?"],
            "what if it is stuck?",
            "what if e-bike battery is stuck (how do I remove the e-bike battery)?",
        ),
        (
            ["how do I add a new employee in the payroll system?"],
            "what about contractors?",
            "how do I add contractors in the payroll system?",
        ),
        (
            ["how do I run payroll for the month?"],
            "what if it fails?",
            "what if it fails (how do I run payroll for the month)?",
        ),
        (
            ["which roles can approve payroll runs?"],
            "can the second one edit salaries?",
            "can the second role edit salaries (approve payroll runs)?",
        ),
        (
            ["where do I set the pay date in the payroll system?"],
            "can I change it after the run?",
            "can I change pay date after the run (payroll system)?",
        ),
        (
            ["how is overtime calculated in the payroll system?"],
            "why not for salaried staff?",
            "why not for salaried staff (overtime calculated in the payroll system)?",
        ),
        (
            ["when does online check-in open?"],
            "and for international flights?",
            "when does online check-in open for international flights?",
        ),
        (
            ["can I change my seat after check-in?"],
            "is there a fee?",
            "is there a fee (change my seat after check-in)?",
        ),
        (
            ["what is the baggage allowance for economy?"],
            "sorry, I meant business class",
            "what is the baggage allowance for business class?",
        ),
        (
            ["how do I pause the subscription in the fitness app?"],
            "no, cancel it",
            "no, cancel subscription in the fitness app",
        ),
        (
            ["what is the deductible for the basic plan?"],
            "how does that compare with the premium plan?",
            "how does that compare with the premium plan (deductible for the basic plan)?",
        ),
        (
            ["is the WireGuard protocol faster than OpenVPN?"],
            "which is more secure?",
            "which is more secure (WireGuard protocol faster than OpenVPN)?",
        ),
        (
            ["how do I add a new employee in the payroll system?", "what about contractors?"],
            "do they need a tax form?",
            "do contractors in the payroll system need a tax form?",
        ),
        (
            ["what does tablekit.read_csv do?", "what does it return?"],
            "and if the file is missing?",
            "what does tablekit.read_csv return if the file is missing?",
        ),
        (
            ["how do I turn on sleep tracking on the fitness tracker?", "does it work with naps?"],
            "where do I see the results?",
            "where do I see the results (sleep tracking on the fitness tracker)?",
        ),
        (
            ["does the library have a sync client and an async client?"],
            "how do I create the async one?",
            "how do I create the async client (does the library have a sync client and an async client)?",
        ),
    ],
)
def test_reads_as_meant(previous: list[str], question: str, query: str) -> None:
    assert standalone_query(question, previous) == query


# questions of their own stay as asked
@pytest.mark.parametrize(
    ("previous", "question"),
    [
        (
            ["what does the home insurance policy cover for water damage?"],
            "How do I reset my fitness tracker to factory settings?",
        ),
        (
            ["how do I request a prescription refill online?"],
            "What is the maximum file size the upload function accepts?",
        ),
        (["what are the assist levels on the e-bike?"], "Which VPN protocols work in China?"),
        (["how do I run payroll for the month?"], "Does the travel insurance cover lost luggage?"),
        (["what does tablekit.read_csv do?"], "What are the parameters of the merge function?"),
        (["when does online check-in open?"], "Is the pharmacy open on Sundays?"),
        (["how accurate is the heart rate sensor?"], "How do I export my payroll reports to Excel?"),
        (
            ["which protocols does the VPN app support?"],
            "Explain the second step of the visa application process",
        ),
        (["what workout modes does the tracker have?"], "How long is the warranty on the e-bike frame?"),
    ],
)
def test_question_of_its_own(previous: list[str], question: str) -> None:
    assert standalone_query(question, previous) == question


@pytest.mark.parametrize(
    ("question", "followup"),
    [
        ("is there a time limit?", True),
        ("are there any late fees?", True),
        ("and is there a waiting period?", True),
        ("where do I see the results?", True),
        ("is there a time limit on Azure Functions?", False),
        ("Is there a Python SDK?", False),
        ("Is there a limit on how many devices can use one VPN account?", False),
    ],
)
def test_is_followup(question: str, followup: bool) -> None:
    assert is_followup(question) == followup


def test_pronoun_after_a_swapped_thing_takes_it() -> None:
    previous = ["how do I add a new employee in the payroll system?", "what about contractors?"]
    assert standalone_query("do they need a tax form?", previous) == (
        "do contractors in the payroll system need a tax form?"
    )


def test_pronoun_after_a_swapped_setting_keeps_the_subject() -> None:
    # "on Windows" is a setting, not a thing "it" could stand for
    previous = ["how do I install Gazebo?", "what about on Windows?"]
    assert (
        standalone_query("how long does it take?", previous)
        == "how long does it take to install Gazebo on Windows?"
    )


@pytest.mark.parametrize(
    ("previous", "question", "query"),
    [
        (
            "does the SDK have a blocking client and a streaming client?",
            "how do I close the streaming one?",
            "how do I close the streaming client"
            " (does the SDK have a blocking client and a streaming client)?",
        ),
        (
            "should I use the gas grill or the charcoal grill?",
            "how do I clean the charcoal one?",
            "how do I clean the charcoal grill (should I use the gas grill or the charcoal grill)?",
        ),
    ],
)
def test_kind_named_with_its_noun(previous: str, question: str, query: str) -> None:
    assert standalone_query(question, [previous]) == query


@pytest.mark.xfail(
    strict=True, reason='"the <word> one" before a word that is no known verb is not told a follow-up'
)
def test_kind_one_before_an_unknown_verb() -> None:
    previous = ["does the SDK have a blocking client and a streaming client?"]
    assert standalone_query("does the streaming one retry?", previous) == (
        "does the streaming client retry (does the SDK have a blocking client and a streaming client)?"
    )


@pytest.mark.parametrize(
    ("previous", "question", "query", "main"),
    [
        (
            ["what does the home insurance policy cover for water damage?"],
            "what about mould?",
            "what does the home insurance policy cover for mould?",
            "what does the mould cover for water damage?",
        ),
        (
            ["what parameters does the Session class take?"],
            "is retries optional?",
            "is retries optional (Session class)?",
            "is retries optional?",
        ),
        (
            ["what does the Standard plan of the home insurance cover?"],
            "and the Premium one?",
            "what does the Premium plan of the home insurance cover?",
            "and the Premium one (Standard plan of the home insurance)?",
        ),
    ],
)
@pytest.mark.xfail(
    strict=True,
    reason="the swap takes the subject, not the thing after 'for'; a name-like parameter word reads as a "
    "topic of its own; 'and the <word> one?' is no and-phrase for the swaps",
)
def test_still_misread(previous: list[str], question: str, query: str, main: str) -> None:
    assert standalone_query(question, previous) == query


@pytest.mark.parametrize(
    ("previous", "question", "query"),
    [
        (
            ["how do I cancel a booking on the coworking space app?"],
            "is there a fee?",
            "is there a fee (cancel a booking on the coworking space app)?",
        ),
        (
            ["how do I unlock a bike with the bike-share app?"],
            "is there a time limit?",
            "is there a time limit (unlock a bike with the bike-share app)?",
        ),
        (
            ["how do I add a line chart with the charting library?", "what about bar charts?"],
            "do they support tooltips?",
            "do bar charts support tooltips (charting library)?",
        ),
        (
            ["does the charting library have a canvas renderer and an SVG renderer?"],
            "how do I switch to the SVG one?",
            "how do I switch to the SVG renderer"
            " (does the charting library have a canvas renderer and an SVG renderer)?",
        ),
        (
            ["how do I upload an episode to the podcast platform?"],
            "where do I see the stats?",
            "where do I see the stats (episode to the podcast platform)?",
        ),
        (
            ["what does the chart.update method do?"],
            "what does it return?",
            "what does chart.update method return?",
        ),
        (
            ["how do I set a daily goal in the language app?"],
            "can I change it later?",
            "can I change daily goal later (language app)?",
        ),
        (
            ["what plans does the podcast platform offer?"],
            "which one should I pick for a new show?",
            "which plan should I pick for a new show (podcast platform)?",
        ),
        (
            ["how do I book a desk at the coworking space?", "what about meeting rooms?"],
            "how much do they cost?",
            "how much do meeting rooms cost (coworking space)?",
        ),
        (
            ["what languages does the app teach?"],
            "are there any exams?",
            "are there any exams (app languages)?",
        ),
        # questions of their own
        (
            ["how do I unlock a bike with the bike-share app?"],
            "Is there a student discount for the podcast platform?",
            "Is there a student discount for the podcast platform?",
        ),
        (
            ["what plans does the podcast platform offer?"],
            "Where do I see the render options of the charting library?",
            "Where do I see the render options of the charting library?",
        ),
    ],
)
def test_second_set(previous: list[str], question: str, query: str) -> None:
    assert standalone_query(question, previous) == query
