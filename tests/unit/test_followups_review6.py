"""Review 6 (fu12): 57 probe conversations (two or three turns) over kinds of documents earlier probe
files do not use (a hospital visitor guide, a board-game rulebook, a bike-repair guide, an espresso
machine manual, a password manager's help, an airline baggage policy, a transit pass guide, a mortgage
guide, a solar installer, a recycling guide, an animal shelter, a tenancy guide, a sewing machine
manual, an aquarium guide, a kayak rental, a marathon plan, a piano tuner), in the ways readers follow
up: pronouns across sentences, "the former"/"the latter", "same for X?", "what about on Windows?", "and if
it fails?", "how about the cheaper plan?", "explain the second step", "why?", "is it safe?", examples,
"in fewer words?", corrections, a change of topic, comparatives, negation, quantities and time. The
readings were written before the probes were run; an acceptable reading keeps the meaning with the
previous question or subject in brackets, and a dropped article counts as right.

Read against main (2f93e60), the 52 follow-ups: 10 right, 30 acceptable, 12 wrong ("what's the weight
limit for the latter?" and "does the former cover night buses?" searched alone; "sorry, international
flights" searched alone; "which lasts longer?" searched alone; "I don't get step 3" searched alone;
"I turned the barrel adjuster but it still skips. what now?" searched alone; "how often should I change
a saltwater water in a freshwater tank?"), and 5 of 5 second questions as asked. After the rules of this
review: 15 right, 33 acceptable, 4 wrong (the xfails), 5 of 5 as asked. The rules: "the former" / "the
latter" always point back, and a pair of phrases with their articles ("a monthly pass or a pay-as-you-go
card") is a pair to pick from; "which lasts longer?" (which, a verb and a comparison) picks among what
was just talked about; "step 3" with nothing saying of what is a step just talked about; "no, X" or
"sorry, X" with a short phrase is a correction as "no, I meant X" is, and "the numerical kind" is a kind
of the thing put right as "the numerical one" is; "a saltwater one" is another of a thing named with a
word of its kind ("a freshwater tank"), not of the bare thing asked about; a question that ends "what
now?" or "what next?" leans on what was just talked about; words that may be verbs before the verb a
question ends with are nouns of its subject ("what does the basic support plan include?"), so "how about
the cheaper plan?" swaps the plan. "what is the adoption fee for a dog?" asks an attribute ("the ...") of
an owner after "of" or "for": "and cats?" (no "the", no name) or a phrase with the owner's noun is
another owner ("what is the adoption fee for cats?", was "what is the cats for a dog?"), "and the
deposit?" another attribute; "what's ..." reads as "what is ...", and "same for X?" swaps as "and X?"
does.

A second set of 12, written after the rules and before running them (`test_second_set`): main 2 right,
3 acceptable, 7 wrong; now 7 right, 4 acceptable, 1 wrong ("sorry, a river" after "do I need a fishing
licence for a lake?" keeps the previous question in brackets, as "no, I meant a river" does on main).
"""

import pytest

from lectern.followups import is_followup, standalone_query


# each reading as the rules give it; the acceptable ones keep the previous question or subject in brackets
@pytest.mark.parametrize(
    ("previous", "question", "query"),
    [
        # right
        (["what is the adoption fee for a dog?"], "same for cats?", "what is the adoption fee for cats?"),
        (
            ["what does the premium commuter plan include?"],
            "how about the cheaper plan?",
            "what does the cheaper plan include?",
        ),
        (
            ["how do I adjust the rear derailleur?"],
            "I turned the barrel adjuster but it still skips. what now?",
            "I turned the barrel adjuster but rear derailleur still skips. what now?",
        ),
        (
            ["how do I descale the espresso machine?"],
            "how often should I do it?",
            "how often should I descale the espresso machine?",
        ),
        (
            ["how do I install the browser extension on macOS?"],
            "what about on Windows?",
            "how do I install the browser extension on Windows?",
        ),
        (
            ["how do I thread the needle on the sewing machine?"],
            "what about the bobbin?",
            "how do I thread the bobbin on the sewing machine?",
        ),
        (
            ["how often should I change the water in a freshwater tank?"],
            "what about a saltwater one?",
            "how often should I change the water in a saltwater tank?",
        ),
        (
            ["how do I bleed hydraulic disc brakes?"],
            "and if the lever still feels spongy?",
            "how do I bleed hydraulic disc brakes if the lever still feels spongy?",
        ),
        (["how do I reset the inverter?"], "and if it fails?", "how do I reset the inverter if it fails?"),
        (
            ["what is an amortisation schedule?"],
            "could you show me one?",
            "could you show me amortisation schedule?",
        ),
        (["how do I adjust the front brake?"], "no, I meant the rear one", "how do I adjust the rear brake?"),
        (
            ["what's the baggage allowance on domestic flights?"],
            "sorry, international flights",
            "what's the baggage allowance on international flights?",
        ),
        (["how do I clean the steam wand?"], "no, I meant the grinder", "how do I clean the grinder?"),
        (
            ["when does the last train leave the central station?"],
            "and on Sundays?",
            "when does the last train leave the central station on Sundays?",
        ),
        (
            ["how do I export my vault from the password manager?", "what format is it in?"],
            "can I import it into another app?",
            "can I import vault from the password manager into another app?",
        ),
        # acceptable
        (
            ["how do I bleed hydraulic disc brakes?", "what tools do I need?"],
            "where do I buy them?",
            "where do I buy tools (bleed hydraulic disc brakes)?",
        ),
        (
            ["how do I export my vault from the password manager?"],
            "is it encrypted?",
            "is vault from the password manager encrypted?",
        ),
        (
            ["what's the difference between carry-on and checked baggage?"],
            "what's the weight limit for the latter?",
            "what's the weight limit for checked baggage (carry-on and checked baggage)?",
        ),
        (
            ["should I buy a monthly pass or a pay-as-you-go card?"],
            "does the former cover night buses?",
            "does monthly pass cover night buses (monthly pass and pay-as-you-go card)?",
        ),
        (
            ["what are fixed-rate and variable-rate mortgages?"],
            "which one is riskier?",
            "which one is riskier (fixed-rate and variable-rate mortgages)?",
        ),
        (
            ["should I get a string inverter or microinverters?"],
            "what does the second one cost?",
            "what does the second one cost (string inverter or microinverters)?",
        ),
        (
            ["can I put pizza boxes in the paper recycling?"],
            "same for egg cartons?",
            "same for egg cartons (can I put pizza boxes in the paper recycling)?",
        ),
        (
            ["how much notice do I have to give before moving out?"],
            "same for my landlord?",
            "same for my landlord (how much notice do I have to give before moving out)?",
        ),
        (
            ["how many players can play the base game?"],
            "what about with the expansion?",
            "how many players can play the base game with the expansion?",
        ),
        (
            ["how do I set up two-factor authentication for the vault?"],
            "and if I lose my phone?",
            "how do I set up two-factor authentication for the vault if I lose my phone?",
        ),
        (
            ["what does the flexible fare let me change?"],
            "how about the basic fare?",
            "how about the basic fare (what does the flexible fare let me change)?",
        ),
        (
            ["how much does a double kayak cost for a full day?"],
            "how about half a day?",
            "how about half a day (how much does a double kayak cost for a full day)?",
        ),
        (
            ["what are the steps to fix a flat tyre?"],
            "explain the second step",
            "explain the second step (flat tyre)",
        ),
        (
            ["what are the phases of the marathon training plan?"],
            "tell me more about the third one",
            "tell me more about the third phase (of the marathon training plan)?",
        ),
        (["how do I wind the bobbin?"], "I don't get step 3", "I don't get step 3 (bobbin)"),
        (
            ["do visitors have to wear masks in the oncology ward?"],
            "why?",
            "why (visitors have to wear masks in the oncology ward)?",
        ),
        (
            ["should I cycle the tank before adding fish?"],
            "why?",
            "why (should I cycle the tank before adding fish)?",
        ),
        (
            ["can I use vinegar to descale the machine?"],
            "is it safe?",
            "is vinegar to descale the machine safe?",
        ),
        (
            ["how do I lube the chain?"],
            "is WD-40 safe for that?",
            "is WD-40 safe for that to lube the chain?",
        ),
        (
            ["what counts as a legal move in the endgame?"],
            "can you give an example?",
            "can you give an example (counts as a legal move in the endgame)?",
        ),
        (
            ["what does the lease say about subletting?"],
            "in fewer words?",
            "what does the lease say about subletting in fewer words?",
        ),
        (
            ["how does patient parking work at the main entrance?"],
            "can you put that more simply?",
            "can you put patient parking more simply (work at the main entrance)?",
        ),
        (
            ["what ticket types does the transit pass guide list?"],
            "which is cheapest for tourists?",
            "which is cheapest for tourists (transit pass ticket types)?",
        ),
        (
            ["should I use rim brakes or disc brakes?"],
            "which is lighter?",
            "which is lighter (rim brakes or disc brakes)?",
        ),
        (
            ["what panel types does the installer sell?"],
            "which lasts longer?",
            "which lasts longer (installer panel types)?",
        ),
        (
            ["do I need a walking foot to sew quilts?"],
            "what if I don't have one?",
            "what if I don't have one (do I need a walking foot to sew quilts)?",
        ),
        (
            ["do I need a visitor pass to enter the children's ward?"],
            "what if I don't have one?",
            "what if I don't have one (do I need a visitor pass to enter the children's ward)?",
        ),
        (
            ["do I need a fenced yard to adopt a dog?"],
            "what if I don't have one?",
            "what if I don't have one (do I need a fenced yard to adopt a dog)?",
        ),
        (
            ["which pieces does each player start with?"],
            "how many of them?",
            "how many of the player pieces?",
        ),
        (
            ["which fish can live with neon tetras?"],
            "how many of them can I keep in a 60-litre tank?",
            "how many of the fish with neon tetras can I keep in a 60-litre tank?",
        ),
        (
            ["what bins does the council collect?"],
            "how many can I have?",
            "how many can I have (what bins does the council collect)?",
        ),
        (
            ["what happens at the end of the fixed lease term?"],
            "and after that?",
            "and after that (what happens at the end of the fixed lease term)?",
        ),
        (
            ["how long is the trial period after adopting a cat?"],
            "and what happens after that?",
            "and what happens after that (how long is the trial period after adopting a cat)?",
        ),
    ],
)
def test_reads_as_meant(previous: list[str], question: str, query: str) -> None:
    assert standalone_query(question, previous) == query


# second questions of their own stay as asked
@pytest.mark.parametrize(
    ("previous", "question"),
    [
        (["how do I adjust the front brake?"], "What are the opening hours of the hospital cafeteria?"),
        (["what is the adoption fee for a dog?"], "How do I set up a Raspberry Pi as a print server?"),
        (["what's the baggage allowance on domestic flights?"], "Which houseplants are toxic to cats?"),
        (["how do I descale the espresso machine?"], "Can I deduct home office expenses on my tax return?"),
        (
            ["what are the phases of the marathon training plan?"],
            "How long does a ferry from Dover to Calais take?",
        ),
    ],
)
def test_second_question_of_its_own(previous: list[str], question: str) -> None:
    assert standalone_query(question, previous) == question


@pytest.mark.xfail(strict=True, reason='"then" for the time just asked about is not read as pointing back')
def test_misread_1() -> None:
    # main and now: 'can children come then too?'
    assert (
        standalone_query(
            "can children come then too?", ["what are the visiting hours on the maternity ward?"]
        )
        == "can children come during visiting hours on the maternity ward?"
    )


@pytest.mark.xfail(
    strict=True,
    reason='two pronouns for two different things ("they" the players, "them" the cards) take one subject',
)
def test_misread_2() -> None:
    # main and now: 'and can player cards at the start trade them?'
    assert (
        standalone_query("and can they trade them?", ["how many cards does each player draw at the start?"])
        == "can players trade the cards they draw at the start?"
    )


@pytest.mark.xfail(
    strict=True,
    reason='a bare verb with no object ("can siblings visit?") is not read as needing the place just named',
)
def test_misread_4() -> None:
    # main and now: 'can siblings visit?'
    assert (
        standalone_query(
            "can siblings visit?",
            ["what are the visiting hours on the maternity ward?", "and on the children's ward?"],
        )
        == "can siblings visit the children's ward?"
    )


@pytest.mark.xfail(
    strict=True, reason='a passive question ("should a piano be tuned") gives no doing to ask the cost of'
)
def test_misread_5() -> None:
    # main and now: 'how much does piano be tuned cost?'
    assert (
        standalone_query("how much does it cost?", ["how often should a piano be tuned?"])
        == "how much does it cost to tune a piano?"
    )


# the rules, each on a few more words


@pytest.mark.parametrize(
    ("previous", "question", "query"),
    [
        (
            "should I rent a city bike or an electric scooter?",
            "is the latter allowed on cycle paths?",
            "is electric scooter allowed on cycle paths (city bike and electric scooter)?",
        ),
        (
            "what's the difference between a fixed fee and an hourly rate?",
            "when is the former better?",
            "when is fixed fee better (fixed fee and hourly rate)?",
        ),
    ],
)
def test_former_and_latter_pick_of_the_pair(previous: str, question: str, query: str) -> None:
    assert standalone_query(question, [previous]) == query


def test_former_with_a_noun_of_its_own_is_no_pick() -> None:
    # "the former president" names its own noun
    assert not is_followup("Where was the former president of the club born in 1950?")


@pytest.mark.parametrize("question", ["which lasts longer?", "which costs less?", "so which works better?"])
def test_which_with_a_comparison_points_back(question: str) -> None:
    assert is_followup(question)


def test_which_with_its_own_choices_stands_alone() -> None:
    assert not is_followup("Which database handles time series better, InfluxDB or TimescaleDB?")


@pytest.mark.parametrize(
    ("question", "followup"),
    [
        ("I don't get step 3", True),
        ("what does part 2 mean?", True),
        ("What happens in step 3 of the Kubernetes operator install?", False),
    ],
)
def test_numbered_step(question: str, followup: bool) -> None:
    assert is_followup(question) == followup


@pytest.mark.parametrize(
    ("previous", "question", "query"),
    [
        (
            "how do I clean the front wheel bearings?",
            "sorry, the rear wheel bearings",
            "how do I clean the rear wheel bearings?",
        ),
        (
            "what are analytical inverse kinematics solutions?",
            "no, the numerical kind",
            "what are the numerical inverse kinematics solutions?",
        ),
    ],
)
def test_correction_without_i_meant(previous: str, question: str, query: str) -> None:
    assert standalone_query(question, [previous]) == query


@pytest.mark.parametrize("question", ["sorry, never mind", "no, still broken", "no, just wondering"])
def test_answering_back_is_no_correction(question: str) -> None:
    # a word of negation or time after "no," answers back: nothing is put right
    assert "cleaning" not in standalone_query(question, ["how long does cleaning take?"]).split("(")[0]


def test_kind_one_takes_the_phrase_with_a_word_of_its_kind() -> None:
    query = standalone_query("and a wooden one?", ["how do I paint the trim on a metal door?"])
    assert query == "how do I paint the trim on a wooden door?"


@pytest.mark.parametrize(
    ("previous", "question", "query"),
    [
        (
            "how do I install the printer driver?",
            "The installer says access denied. What next?",
            "The installer says access denied. What next (printer driver)?",
        ),
    ],
)
def test_what_now_leans_on_the_previous_question(previous: str, question: str, query: str) -> None:
    assert standalone_query(question, [previous]) == query


# written after the rules, before they were run on them
@pytest.mark.parametrize(
    ("previous", "question", "query"),
    [
        (
            "should I choose a gas hob or an induction hob?",
            "is the latter more efficient?",
            "is induction hob more efficient (gas hob and induction hob)?",
        ),
        (
            "which lenses does the camera kit include?",
            "which weighs less?",
            "which weighs less (camera kit lenses)?",
        ),
        (
            "how do I replace the printer's fuser unit?",
            "I'm stuck on step 4",
            "I'm stuck on step 4 (printer's fuser unit)",
        ),
        ("how do I renew a library book online?", "sorry, an e-book", "how do I renew an e-book?"),
        (
            "what does the family ticket cover at the zoo?",
            "what about the senior ticket?",
            "what does the senior ticket cover at the zoo?",
        ),
        ("how long should I boil a soft egg?", "and a hard one?", "how long should I boil a hard egg?"),
        (
            "how do I pair the headphones with my laptop?",
            "it shows up but won't connect, what now?",
            "headphones with my laptop shows up but won't connect, what now?",
        ),
        (
            "what's the difference between a Roth IRA and a traditional IRA?",
            "which is better for young savers?",
            "which is better for young savers (Roth IRA and traditional IRA)?",
        ),
        (
            "what does the basic support plan include?",
            "no, the enterprise one",
            "what does the enterprise support plan include?",
        ),
        (
            "how do I clean the filter in a top-loading washer?",
            "what about a front-loading one?",
            "how do I clean the filter in a front-loading washer?",
        ),
        (
            "what does the monthly membership include?",
            "no worries, and the annual one?",
            "no worries, and the annual membership (monthly membership)?",
        ),
    ],
)
def test_second_set(previous: str, question: str, query: str) -> None:
    assert standalone_query(question, [previous]) == query


@pytest.mark.xfail(
    strict=True, reason="an indefinite place put right finds no phrase to swap, as with 'I meant'"
)
def test_correction_of_an_indefinite_place() -> None:
    query = standalone_query("sorry, a river", ["do I need a fishing licence for a lake?"])
    assert query == "do I need a fishing licence for a river?"


# "what is <the attribute> of/for <owner>?": a new thing without "the" is another owner
@pytest.mark.parametrize(
    ("previous", "question", "query"),
    [
        ("what is the adoption fee for a dog?", "and cats?", "what is the adoption fee for cats?"),
        ("what is the adoption fee for a dog?", "and the deposit?", "what is the deposit for a dog?"),
        ("what is the boiling point of water?", "and ethanol?", "what is the boiling point of ethanol?"),
        ("what's the price of a monthly pass?", "and an annual pass?", "what's the price of an annual pass?"),
        (
            "what are the opening hours of the main library?",
            "and the science library?",
            "what are the opening hours of the science library?",
        ),
        (
            "what's the weight limit for a carry-on bag?",
            "what about a checked bag?",
            "what's the weight limit for a checked bag?",
        ),
        (
            "what are the benefits of a static walk?",
            "and the drawbacks?",
            "what are the drawbacks of a static walk?",
        ),
    ],
)
def test_another_owner_of_the_attribute(previous: str, question: str, query: str) -> None:
    assert standalone_query(question, [previous]) == query


# "them" after a follow-up that asks for things by their kind is those things
@pytest.mark.parametrize(
    ("previous", "question", "query"),
    [
        (
            ["how do I repot an orchid?", "which pots should I use?"],
            "are they expensive?",
            "are pots expensive (orchid)?",
        ),
        (
            ["how do I set up the editor?", "what plugins do you recommend?"],
            "how do I install them?",
            "how do I install plugins (editor)?",
        ),
    ],
)
def test_them_after_a_follow_up_asking_for_things(previous: list[str], question: str, query: str) -> None:
    assert standalone_query(question, previous) == query
