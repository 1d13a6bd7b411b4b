"""The rewrite itself: `standalone_query` turns a follow-up into a self-contained search query with the
previous turn's topic (`with_previous_topic`) or what the previous answer proposed doing
(`with_previous_doing`); chains work because the previous question is rewritten first.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from lectern.courtesy import without_courtesy
from lectern.english import AUXILIARIES, VERBS, word_set
from lectern.followups.alternatives import (
    _asks_of_another_thing,
    _is_bare_thing,
    _named_in_clause,
    _swapped,
    _what_if_named,
)
from lectern.followups.context import has_pronoun
from lectern.followups.detection import (
    _IS_THERE_BARE,
    _LEAVES_OUT,
    _QUESTION_OPENERS,
    _bare_setting,
    _is_statement,
    _names_only_doing,
    is_followup,
)
from lectern.followups.doings import _DEMONSTRATIVE_SUBJECT, _doing_asked, _names_the_topic, _the_doing_for_it
from lectern.followups.leaning import (
    _WHAT_FOLLOWS,
    _anchor,
    _asks_need_of_doing,
    _asks_what_qualifies,
    _leans_on,
)
from lectern.followups.picks import (
    _WHAT_PASSED_ON,
    _one_of_each,
    _picked_of_two,
    _picks_one,
    _the_kind_picked,
    _the_one_picked,
)
from lectern.followups.pointing import _ANAPHORA_WORD, _BE
from lectern.followups.pronouns import _SINGULAR_PRONOUN, _before_a_verb, _rewrite
from lectern.followups.shapes import (
    _ASKS_A_DOING,
    _ASKS_ADVICE,
    _COMPARED,
    _FOR_A_DOING,
    _HOW_COME,
    _THAT_ADVISED,
    _WHAT_IF,
    _WHY_THAT,
    _after_statement,
    _another_doing,
    _another_measure,
    _asks_back_after_a_question,
    _asks_nothing_of_its_own,
    _asks_yes_or_no,
    _bare_demonstrative,
    _covers,
    _reports_first,
    _that_for_what_was_asked,
    purpose_as_infinitive,
)
from lectern.followups.subjects import (
    _PASSIVE_BE,
    _PLURAL_PRONOUN,
    _owner_of_things,
    _says_of_it,
    _subject_phrase,
    subject_parts,
)
from lectern.followups.topics import _HOW_TO, topic_of
from lectern.followups.vocabulary import REPLACEABLE, STOP_WORDS, _is_specific, _tokens, content_words, words
from lectern.ordinals import (
    kind_named_before,
    kind_of_the_listed,
    one_asked_for,
    ordinal_of_the_listed,
    page_asked_again,
    part_asked_about,
)
from lectern.situations import asks_of_a_situation, cuts_a_measure, it_for_the_event, measure_for_that
from lectern.swaps import (
    and_phrase,
    corrected_words,
    correction_then_question,
    noun_phrase_of,
    swap_phrase,
    swapped_question,
    what_about,
)


def standalone_query(question: str, previous_questions: Sequence[str]) -> str:
    """The search query for `question` given the earlier user questions of the conversation (oldest first).
    Courtesy words are read past (`without_courtesy`): "and the subscriber, please?" is rewritten as
    "and the subscriber?" is; a question that stands alone is still searched as asked."""
    return _standalone_query(question, tuple(previous_questions))


# A rewrite reads the earlier turns as they were rewritten, and a turn after a pick reads the two before it
# (`_the_kind_picked`): without this cache each earlier turn was rewritten again at every level, doubling
# the work per turn of a long conversation (16 turns: ~0.7 s). Rewrites are pure functions of the text.
@lru_cache(maxsize=1024)
def _standalone_query(question: str, previous_questions: tuple[str, ...]) -> str:
    question = " ".join(question.split())
    plain = without_courtesy(question)
    previous = [without_courtesy(q) for q in previous_questions]
    query = _standalone(plain, previous)
    if previous and _is_fragment(plain) and (query == plain or _only_bracketed(query, plain)):
        # "the subscriber?" after "how do I write a minimal publisher?", "if the floor is icy?" after "what
        # friction should the soles have on concrete?": a fragment, read as "and the subscriber?" is when
        # read alone it is left as asked or only given the previous topic in brackets
        anded = _standalone(f"and {plain}", previous)
        if anded.lower() != f"and {plain}".lower() and not _only_bracketed(anded, f"and {plain}"):
            return anded[4:] if anded.lower().startswith("and ") else anded
    return question if query == plain else query


# "if the floor is icy?", "when both hands do the same thing?", "unless it rains?": a clause with no
# main clause of its own (not "when is the report due?", whose "when" asks)
_SUBORDINATE = re.compile(
    r"^(?:if|unless|when|whenever|while)\s+(?!(?:" + "|".join(sorted(AUXILIARIES)) + r")\b)\w", re.I
)


def _is_fragment(question: str) -> bool:
    """Whether `question` is only a fragment that continues the previous question: a short noun phrase
    naming a thing ("the subscriber?", "max_step_size?"; not "example?", "any cheaper option?", "the
    first one?", "explain the third prompt more?") or a subordinate clause ("if the floor is icy?"),
    asked with a question mark, with no opener ("and ...", "what about ...") or second clause."""
    if not question.rstrip().endswith("?") or "," in question or noun_phrase_of(question) is not None:
        return False
    if _SUBORDINATE.match(question):
        return True
    first = question.split()[0].lower()
    return (
        noun_phrase_of(f"and {question}") is not None
        and bool(content_words(question))
        and first not in _NOT_A_THING | _QUESTION_OPENERS | VERBS
        and not _PICKS_ONE.search(question)
    )


# quantifiers and "other" name no thing of their own to ask the previous question of
_NOT_A_THING = word_set("any some another other others more less no each every all both either")
_PICKS_ONE = re.compile(r"\bones?\b", re.IGNORECASE)


def _only_bracketed(query: str, question: str) -> bool:
    """Whether `query` is `question` with only the previous topic added in brackets."""
    stripped = question.rstrip("?.! ")
    return query.startswith(stripped + " (")


def _standalone(question: str, previous_questions: Sequence[str]) -> str:
    if correction_then_question(question) is not None:
        # "no, I meant Isaac Sim, how do I install that?": a question of its own about the thing it
        # names, which stands alone and is searched as asked (its "that" is no doing of the previous turn)
        return question
    if not previous_questions or not _leans_on(question, previous_questions[-1]):
        return question
    # "how come?" asks why; "come" is no word of the topic to search for
    return _with_previous(_HOW_COME.sub("why", question), previous_questions)


def with_previous_topic(question: str, previous_questions: Sequence[str]) -> str:
    """`question` with the previous turn's topic, even when it reads as self-contained: a second try for
    a question the documents cannot answer as asked ("when should I pick small over base?" after "What
    Whisper model sizes are there?"). The question itself when there is no earlier turn; courtesy words
    read past as `standalone_query` reads them."""
    question = " ".join(question.split())
    if not previous_questions:
        return question
    return _with_previous(without_courtesy(question), [without_courtesy(q) for q in previous_questions])


def with_previous_doing(question: str, previous_questions: Sequence[str]) -> str | None:
    """The query for a follow-up whose "that" stands for what the previous answer proposed: "does that
    hurt accuracy much?" after "How do I make Whisper run faster on my GPU?" asks about the way to do it,
    so the query carries the whole doing ("... to make Whisper run faster on my GPU"), not the words
    after the verb. None when the previous question is no how-to, or the follow-up names the previous
    topic with a pronoun of its own ("how do I undo it?")."""
    question = " ".join(question.split())
    if not previous_questions or not is_followup(question):
        return None
    return _with_doing(question, standalone_query(previous_questions[-1], previous_questions[:-1]))


def _with_doing(question: str, previous: str) -> str | None:
    doing = _HOW_TO.match(previous.rstrip("?.! "))
    if not doing or not _DEMONSTRATIVE_SUBJECT.search(question) or _names_the_topic(question):
        return None
    stripped = question.rstrip("?.! ")
    return f"{stripped} to {' '.join(doing.group(1).split())}{question[len(stripped) :]}"


def _asks_of_the_doing(question: str, previous: str) -> bool:
    """Whether a question after a how-to (`previous`) asks of the whole doing ("roll back a deployment"),
    not of its object ("deployment"):
    - it names no thing, only how far or a verb with its particle: "how far back can I go?" after "how do
      I roll back a deployment?", "can I opt out later?" after "how do I enrol in the pension plan?";
    - "is there a fee?" after "how do I cancel a booking ...?": a fee for cancelling, not a booking fee;
    - a step left out: "can I skip creating an account?" after "how do I set up the e-reader ...?";
    - a need: "do I need the vet's receipts?" after "how do I make a claim on my pet insurance?";
    - what qualifies: "what documents count as proof of address?" after "how do I register my child ...?";
    - what follows: "will I lose my contacts?" after "how do I reset the phone to factory settings?";
    - a name the swaps left alone: "and PETG?" after "how do I load PLA?" may be another thing to do it
      to or a place to do it in ("and Windows?" after "how do I install Gazebo?"); either way it asks
      of the doing, which the bare object ("PLA") leaves out."""
    if _names_only_doing(question) or _IS_THERE_BARE.match(question) or _WHAT_FOLLOWS.match(question):
        return True
    if _LEAVES_OUT.search(question) and not _ANAPHORA_WORD.search(question):
        return True
    if _asks_need_of_doing(question, previous) or _asks_what_qualifies(question, previous):
        return True
    name = noun_phrase_of(question)
    return name is not None and all(_is_specific(w) for w in words(name))


def _with_previous(question: str, previous_questions: Sequence[str]) -> str:
    previous_questions = [purpose_as_infinitive(q) for q in previous_questions]
    if _bare_setting(question):
        # "in a virtual environment?" is read as "and in a virtual environment?", without the "and"
        query = _with_previous(f"and {question}", previous_questions)
        return query[4:] if query.lower().startswith("and ") else query
    previous = standalone_query(previous_questions[-1], previous_questions[:-1])
    picked_one = _the_one_picked(question, previous_questions)
    if picked_one is None and len(previous_questions) > 1:
        before = standalone_query(previous_questions[-2], previous_questions[:-2])
        picked_one = _the_kind_picked(question, " ".join(previous_questions[-1].split()), before)
    if picked_one is not None:
        return picked_one
    doing = (
        _another_doing(question, previous)
        or _another_measure(question, previous)
        or _the_doing_for_it(question, previous)
    )
    if doing is not None:
        return doing
    listed = ordinal_of_the_listed(question, previous)
    if listed is not None:
        # "and the sixth?" after "what are the learning outcomes of the module?": the sixth learning
        # outcome, the plural head kept singular, not "the sixth" in its place
        return listed
    one = one_asked_for(question, previous)
    if one is not None:
        # "how much does that one cost?" after "which blender size does the cookbook recommend?": the
        # blender size it recommends, not "the one"
        return one
    kind_named = kind_named_before(question, previous)
    if kind_named is not None:
        # "how do I create the async one?" after "... a sync client and an async client?": the async
        # client, not the previous question's subject ("library")
        return kind_named
    kind = kind_of_the_listed(question, previous)
    if kind is not None:
        # "which version of the URDF one?" after "which Robotics Hub packages do I add to Unity?": the
        # URDF package, the previous subject in brackets
        question = kind
    part = part_asked_about(question, previous)
    if part is not None:
        # "what's the goal of that part?" after "what does the final project say about manipulation?":
        # the manipulation part, not the final project
        return part
    page = page_asked_again(question, previous)
    if page is not None:
        # "what else does it cover?" after "what does the setup guide say about backups?": the guide
        return page
    meant = corrected_words(question)
    if meant is not None and swapped_question(previous, question) is None:
        # "no, I meant the thing it ends up learning, its strategy": no part of the previous question to
        # swap, so what was meant is asked in the previous question's setting (what the previous
        # question asked of it is what the reader did not mean)
        head, context = subject_parts(previous)
        setting = context or head
        return f"{meant} ({setting})?" if setting else f"{meant}?"
    phrase = and_phrase(question)
    if phrase and _FOR_A_DOING.match(phrase) and swap_phrase(previous, phrase) is None:
        # "and for walking around?" asks the same of another purpose, which the previous question's
        # doing does not take after it ("... move the robot's arms for walking around"); "and for
        # medicine?", "for international students?" ask it of another thing, which it does
        phrase = None
    # "and on a real robot, where do ... come from?" asks a question of its own after the phrase
    compared = _COMPARED.match(question)
    other = (
        what_about(question)
        or (phrase if phrase and "," not in phrase else None)
        or (compared.group(1) if compared else None)
    )
    if other is not None:
        # "What about on Windows?", "and at half speed?" ask the previous question again about something
        # else.
        swapped = _named_in_clause(_swapped(previous, question), previous)
        if swapped is None and _is_statement(previous):
            # "what about running it on the GPU?" after "Whisper is too slow on my laptop": a report is
            # no question to ask again, so the follow-up is asked after it, as any follow-up to a report
            return _after_statement(question, previous)
        if swapped is None and "(" not in previous and _is_bare_thing(other):
            # "what about slopes?" after "how high a step can a two-legged robot take ...?": a thing
            # glued after the last words reads as part of them ("... its path slopes"), so the follow-up
            # is asked as it stands with the previous question after it in brackets
            return _after_statement(question, previous)
        return swapped or f"{previous.rstrip('?.! ')} {other}?"
    # "and in Isaac Sim?", "and the motor commands?": the previous question asked again about the new thing
    swapped = _named_in_clause(_swapped(previous, question), previous)
    if swapped:
        return swapped
    doing = _with_doing(question, previous)
    if doing is not None:
        return doing  # "does that hurt accuracy much?" after a how-to: "that" is the doing, not a thing
    picked = _picked_of_two(question, " ".join(previous_questions[-1].split()))
    if picked is not None:
        return picked
    anchor = _anchor(previous_questions, question)
    raw = " ".join(previous_questions[-1].split())
    if anchor != raw and has_pronoun(question) and _asks_of_another_thing(raw, previous):
        # "do they need a tax form?" after "what about contractors?" after "how do I add a new employee
        # ...?": the pronoun is the thing the last turn swapped in, so the last turn as read is the anchor
        anchor = previous
    if _is_statement(anchor):
        return _after_statement(question, anchor)
    head, context = subject_parts(anchor)
    topic = _subject_phrase(anchor)
    if anchor == raw and previous != raw and ("(" not in previous or _PLURAL_PRONOUN.search(question)):
        # "and how much RAM?" after "what GPU do I need for it?" after "How do I install Isaac Sim?": the
        # previous turn's subject ("GPU"), and what its pronoun stood for ("Isaac Sim") as its setting
        kept = {w.lower() for w in words(raw)}
        extra = [w for w in _tokens(previous) if w.lower() not in kept and w.lower() not in STOP_WORDS]
        if extra:
            added = " ".join(extra)
            context = f"{context}, {added}" if context else added
            topic = f"{topic}, {added}" if topic else added
    owner = _owner_of_things(anchor)
    if owner is not None and _SINGULAR_PRONOUN.search(question) and not _PLURAL_PRONOUN.search(question):
        # "how long should it keep location data?" after "what kinds of personal data does a home robot
        # collect?": one "it" is the one that has the things, not the things
        head, context = owner
        topic = f"{head} {context}"
    if anchor == previous and _WHAT_PASSED_ON.match(anchor) and _SINGULAR_PRONOUN.search(question):
        # "can I switch it off?" after "what does Grafana send to Slack?": "it" is what is sent (or the
        # sending), which the whole question describes; cut into a subject it loses its verb
        return _after_statement(question, anchor)
    if _reports_first(anchor) or _asks_back_after_a_question(anchor):
        # "my simulated humanoid shakes uncontrollably even with nothing pushing it, is there an exercise
        # on that?": a question after a report of its own is followed up like a report, whole
        return _after_statement(question, anchor)
    standing = previous == " ".join(previous_questions[-1].split())
    if standing and _WHY_THAT.match(question) and _picks_one(previous) and not _before_a_verb(question):
        # "why is that so hard?" after "what's the hardest part of hooking a planner up to a robot?": the
        # "that" is the part the answer picked, which the whole question describes, not the words it
        # picked among ("why does that help?" after "What is intermittent fasting?" is about the fasting)
        return _after_statement(question, previous)
    if standing and _ASKS_ADVICE.search(previous) and _THAT_ADVISED.match(question):
        # "what makes that the better choice?" after "what does the course recommend for structuring the
        # system?": "that" is what the answer recommended, which the whole question describes, not the
        # one who recommends it
        return _after_statement(question, previous)
    if standing and _ASKS_A_DOING.match(previous) and _bare_demonstrative(question):
        # "can I change that?" after "What does the robot do when the user is silent?": "that" is what
        # the robot does then, which the whole question describes, not the robot
        return _after_statement(question, previous)
    if standing and _asks_yes_or_no(previous) and _that_for_what_was_asked(question):
        # "so what should I use for that?" after "can a URDF describe a whole room with furniture in
        # it?": "that" is what the whole question asked about (describing the room), not its subject
        return _after_statement(question, previous)
    if (
        standing
        and _that_for_what_was_asked(question)
        and (asks_of_a_situation(previous) or cuts_a_measure(question, previous))
    ):
        # "isn't that slow though?" after "when should the robot redo its whole route ...?": "that" is
        # the doing or event asked about, not a noun cut from it (a clause glued in reads as nothing);
        # "how can I cut that down?" cuts the measure the question named ("memory")
        return _after_statement(measure_for_that(question, previous), previous)
    if standing and it_for_the_event(question, previous):
        # "how do I avoid it?" after "why does the arm overshoot the target ...?": "it" is the event the
        # question asked about, which the whole question describes, not its doer ("the arm")
        return _after_statement(question, previous)
    each = _one_of_each(question, previous) if standing else None
    if each is not None:
        # "what's due at the end of the second one?" after "how many weeks does each stage of the final
        # project take?": one of the stages, not of the weeks counted for each
        return _after_statement(each, previous)
    if standing and _WHAT_IF.match(question):
        # "what if I hand one in late?" after "what format do my code submissions need to follow?": the
        # same situation with one thing changed, so the whole question is its setting
        return _after_statement(_what_if_named(question, previous), previous)
    how_to = _doing_asked(previous)
    if standing and how_to and _asks_of_the_doing(question, previous):
        return _after_statement(question, " ".join(how_to.group(1).split()))
    if _asks_nothing_of_its_own(question) and "(" not in previous and not _covers(topic, previous):
        # "give me an example", "why?" after a question that stood alone: nothing of its own to place a
        # subject in, and the subject cut out of the question lost some of its words ("keep" in "how do
        # I keep the robot from doing something dangerous ...?"), so the whole question comes instead
        return _after_statement(question, previous)
    if not head:
        head = topic = topic_of(previous) or " ".join(content_words(previous))
    if not head:
        return question
    if (
        standing
        and _says_of_it(head, _BE if how_to else _PASSIVE_BE)
        and any(w.lower() in REPLACEABLE for w in words(question))
    ):
        # "what does it print when the file is fine?" after "how do I check that my URDF file is valid?":
        # a pronoun stands for a thing, never for a clause ("URDF file is valid", "piano be tuned"); the
        # pronoun stays and the whole doing or question comes in brackets
        return _after_statement(question, " ".join(how_to.group(1).split()) if how_to else previous)
    own = {w.lower() for w in content_words(question)}
    named = content_words(topic)
    if topic.lower() in question.lower() or (own and named and all(w.lower() in own for w in named)):
        return question
    return _rewrite(question, head, context, topic)
