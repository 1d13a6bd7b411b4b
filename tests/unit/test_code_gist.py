"""What a code block is embedded from: its lead-in, title and comments, not its syntax."""

from __future__ import annotations

from lectern.writers.code_gist import code_gist
from lectern.writers.units import units_of


def _gist(text: str, *, identifiers: bool = False) -> str:
    units = units_of(text)
    (position,) = [u.position for u in units if u.kind == "code"]
    return code_gist(units, position, identifiers=identifiers)


def test_a_blocks_lead_in_and_comments_say_what_it_does() -> None:
    text = (
        "Check how the topic is doing with these commands:\n\n"
        "```bash\n# Get topic statistics\nros2 topic hz /chatter\n"
        "ros2 topic echo /cmd_vel  # watch commands\n```\n"
    )
    gist = "Check how the topic is doing with these commands. Get topic statistics. watch commands"
    assert _gist(text) == gist


def test_a_short_lead_in_a_title_and_c_style_comments_are_read_and_markup_is_not() -> None:
    text = (
        "Config:\n\n"
        '```csharp title="HeadController.cs"\n'
        "/// <summary>\n/// Turns the head toward a person.\n/// </summary>\n"
        "public float maxYaw = 45f; // degrees\n/* Pitch limit */\nprivate float maxPitch = 30f;\n"
        "#include <stdio.h>\n```\n"
    )
    assert _gist(text) == "Config. HeadController.cs. Turns the head toward a person. degrees. Pitch limit"


def test_identifiers_split_into_words_on_request_and_a_bare_block_has_no_gist() -> None:
    text = "Some prose first.\n\n```python\nmax_yaw = compute_limit(maxPitch)\nprint(max_yaw)\n```\n"
    assert _gist(text) == ""  # nothing says in words what it does: no vector
    assert _gist(text, identifiers=True) == "max yaw compute limit pitch print"


def test_a_url_is_not_a_comment() -> None:
    text = "Download it:\n\n```bash\ncurl -sSL https://example.org/key.gpg -o key.gpg\nls\n```\n"
    assert _gist(text) == "Download it"
