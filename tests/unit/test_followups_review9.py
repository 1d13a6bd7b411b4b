"""Review 9 (fu15): probe conversations over kinds of documents no earlier probe file used (a smart lock app,
a CRM tool, an e-reader, a Terraform guide, a pet insurance policy, a robot lawn mower manual, a rail pass
FAQ, a baby monitor), written with the reading expected before anything was run. Three patterns the
thirteenth tuned set showed: a pronoun inside a subordinate clause of the second turn ("what happens when it
runs out of battery?", "what if they slow down the app?", "what about when it connects but ...?"); a
follow-up with no pronoun that only makes sense after the first turn ("can I get away without admin
rights?", "do I need the vet's receipts?", "does the ground need to be level?"); and the first turn's verb
carried into the rewrite ("what does the pet insurance policy exclude?" then "does it mention hereditary
conditions?" read "does pet insurance policy exclude mention ..."). Eight questions of their own and six
topic switches must stay as asked. An acceptable reading keeps the meaning with the previous question or
subject in brackets.

Read against main (f0edcee), the 27 follow-ups: 7 right, 10 acceptable, 10 wrong ("what happens when
e-reader sync my highlights can't reach the server?"; "do I still need a seat reservation when I use it?"
searched alone; "what should I check when it connects ..." and "what should I do if it gets corrupted?"
with the clause's subject lost; "does the ground need to be level?", "do I need the vet's receipts?" and
"do I need to stop everyone else from running apply first?" searched alone; "does pet insurance policy
exclude mention ...", "which section does onboarding checklist ask new CRM users start with?", "what
temperature does mower's winter storage section tell recommend?"); 8 of 8 questions of their own and 6 of 6
topic switches as asked. After the rules: 20 right, 6 acceptable, 1 wrong (`test_still_misread`), 8 of 8
and 6 of 6 as asked. The rules (`lectern.followups`, one in `lectern.swaps`):
- a verb no word list has ends the subject of "what/how does X <verb> ...?" (`_unlisted_verb`): the word
  before an object pronoun or possessive ("ask me to", "sync my highlights"), a verb that asks someone to
  do something ("ask new users to"), or the last word when it is a bare verb; no "-ing", "-ed" or plural,
  not after a listed verb or (for the last word) a number. A "what does X <verb>?" keeps the verb as X's
  doing ("and Unity?" after "what does Gazebo simulate?" still reads "(Gazebo simulate)");
- an "it" or "they" that opens a clause swapped in for the previous question's ("what about when it
  connects but ...?") is that clause's subject when the number agrees (`_named_in_clause`), and a "when"
  and an "if" condition swap for each other (`swaps.swap_phrase`), not a "while";
- an "it" or "they" that opens "what if" is the previous question's subject, a short thing named after
  "the", "my" or "which" whose number agrees (`_what_if_named`);
- a need asked with nothing saying for what and few words of its own, no pronoun ("do I need the vet's
  receipts?", "is a phone required?") after a how-to is a need of the whole doing (`_asks_need_of_doing`);
- leaving out one thing, even a named one, with at most two topic words ("can I get away without
  installing Ubuntu?") is a follow-up (`_leaves_out_one_thing`); after a how-to it takes the whole doing.

A second set of 12 follow-ups, 2 questions of their own and 1 topic switch (a hotel booking site, GitHub
Actions, an electric kettle, a library e-loan app, a tax app, a bicycle child seat), written after those
rules and before running them (`test_second_set`): main 1 right, 4 acceptable, 7 wrong; with the rules 8
right, 2 acceptable, 2 wrong ("and if it switches on but never boils?" after "... when the kettle won't
switch on?" and its "what about when ..." twin after an "if" question glued the new clause on, since only
the same word was swapped), 3 of 3 as asked. That gap is general, so the "when"/"if" swap above came of
it; with it and two fixes that kept earlier probes as they were (a "what does X <verb>?" verb kept as
the doing, which puts "(exclude)" after two readings here), the second set reads 8 right, 4 acceptable, 0
wrong.
"""

import pytest

from lectern.followups import is_followup, standalone_query


@pytest.mark.parametrize(
    ("previous", "question", "query"),
    [
        (
            ["how do I install the smart lock on my door?"],
            "what happens when it runs out of battery?",
            "what happens when smart lock on my door runs out of battery?",
        ),
        (
            ["which plugins does the CRM support?"],
            "what if they slow down the app?",
            "what if CRM plugins slow down the app (which plugins does the CRM support)?",
        ),
        (
            ["how does the e-reader sync my highlights?"],
            "what happens when it can't reach the server?",
            "what happens when e-reader can't reach the server (sync my highlights)?",
        ),
        (
            ["what does terraform plan show?"],
            "what should I do if it shows changes I didn't make?",
            "what should I do if terraform plan shows changes I didn't make?",
        ),
        (
            ["how do Terraform modules get versioned?"],
            "what happens when they change upstream?",
            "what happens when Terraform modules change upstream (get versioned)?",
        ),
        (
            ["how long is the waiting period on the pet insurance policy?"],
            "can I claim if my dog gets sick during it?",
            "can I claim if my dog gets sick during waiting period (pet insurance policy)?",
        ),
        (
            ["how does the robot mower find its way back to the charging station?"],
            "what if it gets stuck on the way?",
            "what if robot mower gets stuck on the way (how does the robot mower find its way back to the "
            "charging station)?",
        ),
        (
            ["what are the CRM's deal stages?"],
            "what happens when they are skipped?",
            "what happens when CRM's deal stages are skipped?",
        ),
        (
            ["how do I pair the baby monitor camera with the parent unit?"],
            "what happens when they lose connection?",
            "what happens when baby monitor camera lose connection (parent unit)?",
        ),
        (
            ["what should I check when the smart lock won't connect to Wi-Fi?"],
            "what about when it connects but the app shows it offline?",
            "what should I check when the smart lock connects but the app shows it offline?",
        ),
        (
            ["what should I do if my Terraform state file gets locked?"],
            "and if it gets corrupted instead?",
            "what should I do if my Terraform state file gets corrupted?",
        ),
        (
            ["how do I set up the e-reader for the first time?"],
            "can I skip creating an account?",
            "can I skip creating an account (set up the e-reader for the first time)?",
        ),
        (
            ["what do I need to install Terraform on Windows?"],
            "can I get away without admin rights?",
            "can I get away without admin rights (install Terraform on Windows)?",
        ),
        (
            ["how do I set up the robot mower's charging station?"],
            "does the ground need to be level?",
            "does the ground need to be level (set up the robot mower's charging station)?",
        ),
        (
            ["how do I make a claim on my pet insurance?"],
            "do I need the vet's receipts?",
            "do I need the vet's receipts (make a claim on my pet insurance)?",
        ),
        (
            ["how do I import leads into the CRM?"],
            "what happens to duplicates?",
            "what happens to duplicates (leads into the CRM)?",
        ),
        (
            ["how do I book a seat with my rail pass?"],
            "do I have to print anything?",
            "do I have to print anything (book a seat with my rail pass)?",
        ),
        (
            ["what equipment do I need to set up the baby monitor?"],
            "is a phone required?",
            "is a phone required (equipment to set up the baby monitor)?",
        ),
        (
            ["how do I change the smart lock's batteries?"],
            "will the codes be erased?",
            "will the codes be erased (smart lock's batteries)?",
        ),
        (
            ["how do I migrate Terraform state to a remote backend?"],
            "do I need to stop everyone else from running apply first?",
            "do I need to stop everyone else from running apply first (migrate Terraform state to a remote "
            "backend)?",
        ),
        (
            ["what does the pet insurance policy exclude?"],
            "does it mention hereditary conditions?",
            "does pet insurance policy mention hereditary conditions (exclude)?",
        ),
        (
            ["what does the Terraform style guide recommend for naming?"],
            "what does it say about variables?",
            "what does Terraform style guide say about variables?",
        ),
        (
            ["what does the onboarding checklist ask new CRM users to do?"],
            "which section does it start with?",
            "which section does onboarding checklist start with?",
        ),
        (
            ["what does the rail pass FAQ say to do if a train is cancelled?"],
            "does it mention refunds?",
            "does rail pass FAQ mention refunds?",
        ),
        (
            ["what does the mower's winter storage section tell me to do?"],
            "what temperature does it recommend?",
            "what temperature does mower's winter storage section recommend?",
        ),
        (["what does the CRM dashboard show?"], "can I customise it?", "can I customise CRM dashboard?"),
    ],
)
def test_reads_as_meant(previous: list[str], question: str, query: str) -> None:
    assert standalone_query(question, previous) == query


# questions of their own stay as asked
@pytest.mark.parametrize(
    ("previous", "question"),
    [
        (
            ["how do I install the smart lock?"],
            "How do I reset the smart lock keypad code to factory settings?",
        ),
        (
            ["what does the pet insurance cover?"],
            "What is the excess on the pet insurance policy for a cat over eight years old?",
        ),
        (["how do I write a Terraform module?"], "How does Terraform store remote state in an S3 bucket?"),
        (
            ["which plugins does the CRM support?"],
            "In the CRM, how do I merge two duplicate contact records?",
        ),
        (
            ["how do I charge the robot mower?"],
            "What cutting height does the robot mower use for wet grass in spring?",
        ),
        (["what is the rail pass?"], "Can children under four travel free on Eurostar with a rail pass?"),
        (
            ["how do I pair the baby monitor?"],
            "What does the red light on the baby monitor parent unit mean?",
        ),
        (
            ["what does the e-reader's dark mode do?"],
            "How many books can the e-reader store on its 8 GB model?",
        ),
    ],
)
def test_question_of_its_own(previous: list[str], question: str) -> None:
    assert standalone_query(question, previous) == question


# a switch of topic drags nothing of the previous one in
@pytest.mark.parametrize(
    ("previous", "question"),
    [
        (["how do I set up the smart lock's auto-lock?"], "how do I share access with a guest?"),
        (["how do I file a pet insurance claim?"], "what does the policy say about cancellation?"),
        (["how do I undo a terraform apply?"], "what is a Terraform workspace?"),
        (["what happens when the robot mower hits an obstacle?"], "how do I update the mower firmware?"),
        (["how do I log a call in the CRM?"], "how do I create a sales report?"),
        (["can I bring a bike on the train with a rail pass?"], "how do refunds work for unused passes?"),
    ],
)
def test_topic_switch_stays_as_asked(previous: list[str], question: str) -> None:
    assert standalone_query(question, previous) == question


@pytest.mark.parametrize(
    ("question", "followup"),
    [
        ("can I get away without installing Ubuntu?", True),
        ("can I skip the Docker step?", True),
        ("Can I skip the PostgreSQL install and use SQLite?", False),
    ],
)
def test_is_followup(question: str, followup: bool) -> None:
    assert is_followup(question) == followup


def test_what_about_verb_stays_with_its_thing() -> None:
    # the verb is all "what does X <verb>?" asks of X: a question about another thing keeps it
    assert (
        standalone_query("and the Braava?", ["what can the Roomba clean?"])
        == "and the Braava (Roomba clean)?"
    )


def test_while_is_no_condition_to_swap() -> None:
    previous = ["what kinds of failures can a walking robot hit while following a route?"]
    assert standalone_query("and if the floor turns out to be slippery?", previous) == (
        "what kinds of failures can a walking robot hit while following a route if the floor turns out to be "
        "slippery?"
    )


@pytest.mark.parametrize(
    ("previous", "question", "query"),
    [
        (
            ["what does the rail pass include?"],
            "do I still need a seat reservation when I use it?",
            "do I still need a seat reservation when I use rail pass?",
        ),
    ],
)
def test_still_misread(previous: list[str], question: str, query: str) -> None:
    # a strict xfail in review 9; review 10 reads it: a need's indefinite object ("a seat reservation") is
    # no thing yet for a later "it" to stand for, so the "it" points back
    assert standalone_query(question, previous) == query


@pytest.mark.parametrize(
    ("previous", "question", "query"),
    [
        (
            ["how does the hotel booking site hold my card details?"],
            "what happens when they expire?",
            "what happens when card details expire (hotel booking site)?",
        ),
        (
            ["how do GitHub Actions runners pick up jobs?"],
            "what if they run out of disk space?",
            # review 10: the subject right after "do" is named ("they" stayed before)
            "what if GitHub Actions runners run out of disk space (how do GitHub Actions runners pick up "
            "jobs)?",
        ),
        (
            ["what should I check when the kettle won't switch on?"],
            "and if it switches on but never boils?",
            "what should I check if the kettle switches on but never boils?",
        ),
        (
            ["what should I do if my e-loan won't download to the app?"],
            "what about when it downloads but won't open?",
            "what should I do when my e-loan downloads but won't open?",
        ),
        (
            ["what does the tax app import from my bank?"],
            "what if it gets a transaction wrong?",
            "what if tax app import gets a transaction wrong (what does the tax app import from my bank)?",
        ),
        (
            ["how do I fit the child seat to my bike?"],
            "do I need any tools?",
            "do I need any tools (fit the child seat to my bike)?",
        ),
        (
            ["how do I file my return in the tax app?"],
            "can I skip the deductions section?",
            "can I skip the deductions section (file my return in the tax app)?",
        ),
        (
            ["how do I borrow an e-book from the library app?"],
            "is a library card required?",
            "is a library card required (borrow an e-book from the library app)?",
        ),
        (
            ["what does the GitHub Actions setup page require?"],
            "can I get away without a self-hosted runner?",
            "can I get away without a self-hosted runner (GitHub Actions setup page)?",
        ),
        (
            ["what does the hotel cancellation policy exclude?"],
            "does it cover illness?",
            "does hotel cancellation policy cover illness (exclude)?",
        ),
        (
            ["what does the child seat manual warn parents to avoid?"],
            "what age does it recommend?",
            "what age does child seat manual recommend?",
        ),
        (
            ["what does the workflow syntax page explain?"],
            "does it list the triggers?",
            "does workflow syntax page list the triggers (explain)?",
        ),
        (
            ["how do I book a room?"],
            "What is the check-in time at the hotel on weekends?",
            "What is the check-in time at the hotel on weekends?",
        ),
        (
            ["what does the tax app cost?"],
            "How do I import last year's return into the tax app from a PDF?",
            "How do I import last year's return into the tax app from a PDF?",
        ),
        (
            ["how do I fit the child seat?"],
            "how do I adjust the saddle height?",
            "how do I adjust the saddle height?",
        ),
    ],
)
def test_second_set(previous: list[str], question: str, query: str) -> None:
    assert standalone_query(question, previous) == query
