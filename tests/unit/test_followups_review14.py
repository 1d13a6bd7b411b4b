"""Review 14 (fu20): a question of its own whose topic is one word rare in general English ("how does
photosynthesis work?", "what is an idempotency key?") read as naming too little and given the previous
question in brackets ("how does photosynthesis work (existing stack into Pulumi)?"). A definition question
("what is [a] X?", "how does X work?", "what does X mean?") whose topic starts with a word rare in general
English (wordfreq) that shares no root with the previous turn names its topic as a name would: it stands
alone; a lone rare adjective with no article ("what is reimbursable?") still leans. Written before the
rule; on main 11 of the 12 questions of their own were bracketed ("what's a sourdough starter?" names two
words and stood alone) and the 16 follow-ups below leaned as they do now (domains no earlier probe file
used: travel expenses, a gym, a piano school, a library, orchids, a harbour office, a pottery class,
Grafana, cacti, Nginx, a fishing licence, Jenkins, a council, Kotlin, kayaks, Django, Terraform, MongoDB,
Lambda, Postgres, a sauna, GitLab, a tennis club, Lightroom, a marathon).
"""

import pytest

from lectern.followups import standalone_query


@pytest.mark.parametrize(
    ("previous", "question"),
    [
        ("how do I import an existing stack into Pulumi?", "how does photosynthesis work?"),
        ("how do Stripe webhooks retry failed deliveries?", "what is an idempotency key?"),
        ("how do I book a piano lesson?", "what is sharding?"),
        ("how do I renew my library card?", "what is a quorum?"),
        ("how do I repot an orchid?", "what is mitochondria?"),
        ("how do I enrol in the evening pottery class?", "how does osmosis work?"),
        ("how do I set up a Grafana dashboard?", "what is a haiku?"),
        ("how often should I water a cactus?", "how does a sundial work?"),
        ("how do I configure Nginx as a reverse proxy?", "what does tectonics mean?"),
        ("how do I apply for a fishing licence?", "how does cryptography work?"),
        ("how do I migrate a Jenkins pipeline to GitHub Actions?", "what are sonnets?"),
        ("how do I file a noise complaint with the council?", "what's a sourdough starter?"),
    ],
)
def test_rare_topic_stands_alone(previous: str, question: str) -> None:
    assert standalone_query(question, [previous]) == question


@pytest.mark.parametrize(
    ("previous", "question"),
    [
        ("how do I cancel a Kotlin coroutine?", "what is a good timeout?"),
        ("how do I rent a kayak at the harbour?", "how much does it cost?"),
        ("how do I set up a Django project?", "what about caching?"),
        ("how do I rent a kayak at the harbour?", "is there a limit?"),
        ("how do I install Terraform?", "and on Windows?"),
        # a rare topic word that shares a root with the previous turn is that turn's topic
        ("how do I shard a MongoDB collection?", "how does sharding work?"),
        ("how do I write an idempotent Lambda handler?", "what is idempotency?"),
        ("how do Stripe webhooks retry failed deliveries?", "how do retries work?"),
        # an everyday word first ("good") asks for a choice within the previous topic
        ("how do I enable encryption at rest in Postgres?", "what is a good cipher?"),
        # a rare adjective with no article asks which of the previous topic's things are so
        ("how do I claim travel expenses?", "what is reimbursable?"),
        ("how do I cancel my gym membership?", "what is refundable?"),
        ("how do I book a sauna session at the leisure centre?", "how long does it last?"),
        ("how do I add a webhook in GitLab?", "what is the payload?"),
        ("how do I join the tennis club?", "is there a waiting list?"),
        ("how do I export photos from Lightroom?", "what about metadata?"),
        ("how do I sign up for the marathon?", "is there a deadline?"),
    ],
)
def test_short_followup_still_leans(previous: str, question: str) -> None:
    assert standalone_query(question, [previous]) != question
