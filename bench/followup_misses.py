"""Follow-ups the books cannot answer: a covered first question, then a second one that only makes sense
after it and asks for something no book mentions (checked with grep). A change to follow-up handling
that answers more of the answerable follow-ups must still refuse these: the follow-up sets hold only
answerable pairs, so they cannot show an engine that answers every follow-up.

    .venv/bin/python bench/followup_misses.py [--out NAME]

Prints, per book, how many of these the engine refuses (at the last turn) and the search query it used.
"""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path

from common import build, write_result
from lectern.engine import AskOptions
from lectern.events import Done

BOOKS = Path("/work/shared/data/textbooks")
MISSES: dict[str, list[tuple[str, str]]] = {
    "textbook-a": [
        ("What is cuVSLAM?", "who invented it and in what year?"),
        ("How do I simulate a LiDAR in Gazebo?", "can I do the same in Webots?"),
        ("What is Unity used for in the book?", "how do I publish the app to the App Store?"),
        ("What is cuVSLAM?", "how much does a license for it cost?"),
    ],
    "textbook-b": [
        ("What is XACRO?", "can it be converted to MJCF?"),
        ("What is visual SLAM?", "how does it compare with ORB-SLAM3 on the EuRoC benchmark?"),
        ("How do I install Gazebo?", "and on a Raspberry Pi 5?"),
        ("What is XACRO?", "who wrote it?"),
    ],
    "textbook-c": [
        ("What is the ReAct pattern?", "who wrote the original paper on it?"),
        ("What is Unity's ArticulationBody?", "is there something like it in Godot?"),
        (
            "How do I configure an IMU sensor in Gazebo?",
            "how do I calibrate its magnetometer with a figure-eight motion?",
        ),
        ("What is the ReAct pattern?", "is it patented?"),
    ],
    "textbook-d": [
        ("What is forward kinematics?", "how do I do it with screw theory and the product of exponentials?"),
        ("What are the phases of bipedal walking?", "how do hexapod tripod gaits differ?"),
        ("What is dynamics randomization?", "which cloud GPU provider is cheapest for it?"),
        ("What is forward kinematics?", "who came up with it first?"),
    ],
}


async def run() -> dict[str, list[dict[str, object]]]:
    out: dict[str, list[dict[str, object]]] = {}
    for book, pairs in MISSES.items():
        engine, _, _ = build(BOOKS / book)
        rows = []
        for turns in pairs:
            conversation = engine.new_conversation()
            answer = None
            for turn in turns:
                async for event in engine.stream(turn, conversation, AskOptions(top_k=5)):
                    if isinstance(event, Done):
                        answer = event.answer
            assert answer is not None
            refused = not (answer.confidence.should_answer and answer.grounded)
            rows.append(
                {
                    "turns": list(turns),
                    "refused": refused,
                    "level": answer.confidence.confidence_level,
                    "search_query": answer.search_query,
                }
            )
        out[book] = rows
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default="followup-misses")
    args = parser.parse_args()
    result = asyncio.run(run())
    total = sum(len(r) for r in result.values())
    refused = sum(1 for rows in result.values() for r in rows if r["refused"])
    for book, rows in result.items():
        for r in rows:
            print(f"{book} {'refused ' if r['refused'] else 'ANSWERED'} {r['level']:12} {r['search_query']}")
    print(f"refused {refused} of {total}")
    write_result(args.out, result)


if __name__ == "__main__":
    main()
