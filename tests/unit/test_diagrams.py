"""Mermaid diagrams become lines a reader can quote; list items and diagram lines stay whole."""

from __future__ import annotations

from lectern.writers.diagrams import diagram_lines
from lectern.writers.units import units_of

FLOWCHART = """flowchart TD
    subgraph Export["Export"]
        COCO[COCO Format]
        KITTI[KITTI Format]
    end
    RENDER[Rendering] -->|labelled| COCO
    RENDER --> KITTI
    style Export fill:#fff
"""


def test_flowchart_groups_and_arrows_read_as_text() -> None:
    lines = diagram_lines(FLOWCHART)
    assert "Export: COCO Format; KITTI Format" in lines
    assert "Rendering → COCO Format (labelled); KITTI Format" in lines
    assert not any("fill" in line for line in lines)


def test_state_transitions_name_their_events() -> None:
    source = "stateDiagram-v2\n    [*] --> Unconfigured: create\n    Unconfigured --> Inactive: configure\n"
    assert diagram_lines(source) == ["start → Unconfigured (create)", "Unconfigured → Inactive (configure)"]


def test_sequence_pie_and_unknown_diagrams() -> None:
    sequence = "sequenceDiagram\n participant U as User\n U->>Robot: pick up the cup\n"
    assert diagram_lines(sequence) == ["User → Robot: pick up the cup"]
    assert diagram_lines('pie\n "GPU" : 60\n "CPU" : 40\n') == ["GPU: 60", "CPU: 40"]
    assert diagram_lines("gantt\n title Plan\n") == []


def test_a_diagram_in_a_chunk_becomes_list_units() -> None:
    text = "Isaac Sim exports labelled data.\n\n```mermaid\n" + FLOWCHART + "```\n"
    units = units_of(text)
    assert any(u.bullet and u.text == "Export: COCO Format; KITTI Format" for u in units)
    assert all("```" not in u.text for u in units)


def test_a_list_item_of_several_sentences_is_one_unit() -> None:
    text = (
        "Common options include:\n\n"
        "* **ODE**: A library for rigid body dynamics. It's often the default choice in Gazebo.\n"
        "* **Bullet**: A popular library for collision detection.\n"
    )
    items = [u.text for u in units_of(text) if u.bullet]
    assert items[0] == "ODE: A library for rigid body dynamics. It's often the default choice in Gazebo."
