"""Deterministic follow-up rewriting: "How do I install it?" after "What is Gazebo Harmonic?" searches
for "How do I install Gazebo Harmonic?".

A question is a follow-up when it points back (it, this, they, ...), or is too short or too generic to
name a topic of its own ("Can you give an example?", "Tell me more"). Its search query then carries the
topic of the previous standalone question: the pronoun is replaced by the topic, or the topic is added.
Chains work because the previous question is itself rewritten first. A "that" which stands for what
the previous answer proposed ("does that hurt accuracy much?" after a how-to) is searched with the whole
doing (`with_previous_doing`). What the sentence has no place for comes after it in brackets ("how do
I configure it (sensor simulation)?"), never glued onto its last words; a "what if ...?" and a follow-up
to a report take the whole previous turn there ("and what if the window stays black there (How do I
install Gazebo on Windows)?").

The same topic extraction names what a refusal is about ("I don't have information about X ...").
"""

# The package's modules, lowest first (none imports one after it): vocabulary (word lists and word
# tests), pointing (words that point back), detection (`is_followup`), topics (`topic_of`), context
# (a rewritten query read back), phrases and subjects (`subject_parts`), doings (what "it" stands for
# when it is a doing), leaning (`_leans_on`), pronouns (`_rewrite`), shapes, picks and alternatives
# (follow-ups the rewrite treats apart), rewrite (`standalone_query`).
from lectern.followups.context import has_pronoun, without_context
from lectern.followups.detection import INDEFINITES, is_followup
from lectern.followups.leaning import RARE_TOPIC_ZIPF, names_little
from lectern.followups.pointing import FOLLOWUP_OPENERS, points_back
from lectern.followups.rewrite import standalone_query, with_previous_doing, with_previous_topic
from lectern.followups.shapes import purpose_as_infinitive
from lectern.followups.subjects import subject_parts
from lectern.followups.topics import refusal_topic, topic_of
from lectern.followups.vocabulary import (
    ACTION_WORDS,
    ANAPHORA,
    GENERIC_WORDS,
    MIN_OWN_CONTENT_WORDS,
    REPLACEABLE,
    SELF_CONTAINED_WORDS,
    STOP_WORDS,
    TOPIC_ROOT_CHARS,
    content_words,
    words,
)

__all__ = [
    "ACTION_WORDS",
    "ANAPHORA",
    "FOLLOWUP_OPENERS",
    "GENERIC_WORDS",
    "INDEFINITES",
    "MIN_OWN_CONTENT_WORDS",
    "RARE_TOPIC_ZIPF",
    "REPLACEABLE",
    "SELF_CONTAINED_WORDS",
    "STOP_WORDS",
    "TOPIC_ROOT_CHARS",
    "content_words",
    "has_pronoun",
    "is_followup",
    "names_little",
    "points_back",
    "purpose_as_infinitive",
    "refusal_topic",
    "standalone_query",
    "subject_parts",
    "topic_of",
    "with_previous_doing",
    "with_previous_topic",
    "without_context",
    "words",
]
