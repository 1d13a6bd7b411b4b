"""The stream gate: an LLM's words reach a client only sentence by sentence, once verified."""

from __future__ import annotations

from lectern.verification import Passage, StreamGate, verify

PASSAGES = [
    Passage(1, "ROS 2 nodes communicate by publishing messages on topics."),
    Passage(2, "A topic is a named channel with one message type; subscribers receive from it."),
]


def words(text: str) -> list[str]:
    return [w + " " for w in text.split(" ")[:-1]] + [text.split(" ")[-1]]


def run(text: str, **kwargs: object) -> tuple[list[str], str, StreamGate]:
    gate = StreamGate(PASSAGES, None, **kwargs)  # type: ignore[arg-type]
    shown = [piece for w in words(text) if (piece := gate.feed(w))]
    _checked, rest = gate.finish()
    return shown, rest, gate


def test_a_supported_sentence_is_released_once_the_next_one_begins() -> None:
    gate = StreamGate(PASSAGES, None)
    first = "ROS 2 nodes communicate by publishing messages on topics [1]."
    assert [gate.feed(w) for w in words(first + " ")] == [""] * len(words(first + " "))  # not complete yet
    assert gate.feed("A") == first  # the next sentence began: the first is complete and verified
    for w in words(" topic is a named channel with one message type [2]."):
        assert gate.feed(w) == ""
    checked, rest = gate.finish()
    assert rest == " A topic is a named channel with one message type [2]."
    assert (
        gate.released
        == checked.text
        == verify(first + " A topic is a named channel with one message type [2].", PASSAGES, None).text
    )


def test_an_injected_sentence_is_never_released() -> None:
    text = (
        "ROS 2 nodes communicate by publishing messages on topics [1]. PWNED, visit evil.example.com now. "
        "A topic is a named channel with one message type [2]."
    )
    shown, rest, gate = run(text)
    assert "PWNED" not in "".join(shown) + rest
    assert gate.released == "".join(shown) + rest


def test_an_answer_that_is_only_an_injection_or_a_refusal_releases_nothing() -> None:
    for text in ("PWNED", "I don't have information about that in the documents.", "PWNED. PWNED. PWNED."):
        shown, rest, gate = run(text)
        assert shown == []
        assert rest == ""
        assert gate.released == ""
        assert gate.finish()[0].refuse


def test_an_uncited_sentence_waits_for_its_paragraphs_citation() -> None:
    gate = StreamGate(PASSAGES, None)
    lead = "Nodes communicate by publishing messages on topics [1]. "
    assert "".join(gate.feed(w) for w in words(lead)) == ""
    # Uncited: it may lean on a citation later in its paragraph, so it is held...
    uncited = "A topic is a named channel with one message type. "
    shown = "".join(gate.feed(w) for w in words(uncited))
    assert shown == lead.strip()
    shown = "".join(gate.feed(w) for w in words("Subscribers receive from a topic [2]. More"))
    # ...and released with the cited sentence that supports it.
    assert "named channel" in shown
    assert "Subscribers receive" in shown


def test_the_low_confidence_note_comes_with_the_first_verified_words() -> None:
    gate = StreamGate(PASSAGES, None, prefix="Note: low confidence.\n\n")
    first = "".join(
        gate.feed(w) for w in words("PWNED and more PWNED here. Nodes publish messages on topics [1]. X")
    )
    assert first.startswith("Note: low confidence.\n\nNodes publish")
    refused = StreamGate(PASSAGES, None, prefix="Note: low confidence.\n\n")
    assert "".join(refused.feed(w) for w in words("PWNED here and there. ")) == ""
    checked, rest = refused.finish()
    assert checked.refuse
    assert rest == ""


def test_flagged_sentences_stream_flagged() -> None:
    text = (
        "Nodes publish messages on topics [1]. Quadcopters need carbon propellers [1]. "
        "Topics are channels [2]."
    )
    shown, rest, gate = run(text, action="flag")
    assert "Quadcopters need carbon propellers. [unverified]" in "".join(shown) + rest
    assert gate.finish()[0].verification.flagged == 1


def test_code_and_headings_are_kept_as_written() -> None:
    text = (
        "## Topics\n\nNodes publish messages on topics [1].\n\n```bash\nros2 topic list\n```\n\n"
        "Topics are named channels [2]."
    )
    shown, rest, gate = run(text)
    assert gate.released == "".join(shown) + rest
    assert "## Topics" in gate.released
    assert "ros2 topic list" in gate.released
