"""The extractive writer: traceable sentences, citations that map to sources, exact token stream."""

from __future__ import annotations

import math
import re
from dataclasses import replace
from typing import Any

import numpy as np

from lectern.conversation import Message
from lectern.models import Chunk, RetrievalResult, SearchHit, content_hash
from lectern.retrieval import Retriever
from lectern.writers.base import RetrieveCall, WriteRequest, Written
from lectern.writers.extractive import ExtractiveWriter
from lectern.writers.extractive.candidates import _by_source, _Candidate, _idf
from lectern.writers.extractive.code_choice import _answering, _best_code, _drawing
from lectern.writers.extractive.code_files import _titled, _with_named_code
from lectern.writers.extractive.code_lines import _with_code_lines
from lectern.writers.extractive.code_quoting import _with_following_code
from lectern.writers.extractive.context import _solution_after, _with_context
from lectern.writers.extractive.headings import _heading_line, _names
from lectern.writers.extractive.lead_ins import _with_lead_ins, _without_dangling_lead_ins
from lectern.writers.extractive.listings import _with_listing_continued
from lectern.writers.extractive.mmr import (
    DUPLICATE,
    MAX_PROSE_WORDS,
    MAX_SENTENCES,
    MEANING_SHARE,
    MMR_LAMBDA,
    OWN_WORDS_SHARE,
    RELATIVE_FLOOR,
    SOURCE_DIVERSITY,
    _adds_to,
    _best,
    _meaning_swap,
    _mmr,
    _mmr_value,
    _quotable,
    _quotable_pool,
    _similarity,
)
from lectern.writers.extractive.query import _IGNORED, _query_terms
from lectern.writers.extractive.render import _closed, _render
from lectern.writers.extractive.scoring import _favour_cues
from lectern.writers.question_kind import question_kind
from lectern.writers.selection import SELECTED_TITLE, quotable_of, reserve_of, sources_of
from lectern.writers.units import Unit, count_tokens, split_tokens, stem_terms, units_of
from tests.fakes.hash_embedder import HashEmbedder
from tests.unit.answer_support import answer_settings, filled_index

_CITE = re.compile(r"\s?\[(\d+)\]")


async def _no_retrieve(call: RetrieveCall) -> RetrievalResult:
    raise AssertionError("the extractive writer never retrieves")


def request(question: str, result: RetrievalResult | None, user_context: str | None = None) -> WriteRequest:
    history: list[Message] = []
    return WriteRequest(
        question=question,
        search_query=question,
        history=history,
        system_prompt="",
        retrieval=result,
        confidence=None,
        user_context=user_context,
        retrieve=_no_retrieve,
    )


async def retrieve(question: str, top_k: int = 3) -> tuple[RetrievalResult, HashEmbedder]:
    index, embedder = filled_index()
    retriever = Retriever(embedder, index, answer_settings())
    return await retriever.retrieve(retriever.params(question, top_k=top_k, threshold=0.0)), embedder


async def write(writer: ExtractiveWriter, req: WriteRequest) -> tuple[str, Written]:
    tokens = []
    written = None
    async for event in writer.write(req):
        if isinstance(event, Written):
            written = event
        else:
            tokens.append(event.text)
    assert written is not None
    return "".join(tokens), written


async def test_joined_tokens_equal_the_text_and_citations_map_to_sources() -> None:
    result, embedder = await retrieve("What is a ROS 2 node?")
    req = request("What is a ROS 2 node?", result)
    streamed, written = await write(ExtractiveWriter(embedder), req)
    assert streamed == written.text
    assert written.text
    sources = sources_of(req)
    numbers = {int(n) for n in _CITE.findall(written.text)}
    assert numbers == set(written.cited)
    assert numbers <= set(range(1, len(sources) + 1))
    # Every sentence of the answer is a unit of the chunk its citation names.
    for paragraph in written.text.split("\n\n"):
        for sentence, number in re.findall(r"(.*?)\s?\[(\d+)\]", paragraph):
            source_units = {u.text for u in units_of(sources[int(number) - 1].chunk.text)}
            last = sentence.strip()
            assert any(unit.rstrip(".!?:;").endswith(last.split(". ")[-1]) for unit in source_units), last


async def test_how_to_question_keeps_the_code_block_whole() -> None:
    result, embedder = await retrieve("How do I install Gazebo Harmonic?")
    _, written = await write(ExtractiveWriter(embedder), request("How do I install Gazebo Harmonic?", result))
    assert "```bash\nsudo apt-get update\nsudo apt-get install gz-harmonic\n```" in written.text


async def test_without_a_query_vector_no_model_is_called() -> None:
    embedder = HashEmbedder()
    selection = "Quaternions represent rotations without gimbal lock. They have four components."
    empty = RetrievalResult(query="q")
    req = request("Why are quaternions used?", empty, user_context=selection)
    _, written = await write(ExtractiveWriter(embedder), req)
    assert embedder.document_calls == []
    assert embedder.query_calls == 0
    assert written.cited == [1]
    assert sources_of(req)[0].chunk.title == SELECTED_TITLE
    assert "gimbal lock" in written.text


def test_units_split_sentences_lists_and_code() -> None:
    text = (
        "# Heading\n\nFirst sentence is here. Second one, e.g. this, follows.\n\n"
        "- a list item with enough words\n\nRun this:\n\n```python\nprint(1)\nprint(2)\n```\n"
    )
    units = units_of(text)
    kinds = [(u.kind, u.text) for u in units]
    assert ("sentence", "First sentence is here.") in kinds
    assert ("sentence", "Second one, e.g. this, follows.") in kinds
    assert ("sentence", "a list item with enough words") in kinds
    assert ("code", "```python\nprint(1)\nprint(2)\n```") in kinds
    assert any(u.lead_in and u.text == "Run this:" for u in units)


def test_units_keep_abbreviations_and_clean_markup() -> None:
    # "approx." (the longest abbreviation) does not end a sentence; "vs." inside a longer word does
    text = (
        "The arm weighs approx. 5 kg in total. It moves the Canvs. Then the next sentence starts.\n\n"
        "A **bold** [linked](https://example.org) <b>tagged</b>\u00a0and  spaced __line__ of words."
    )
    assert [u.text for u in units_of(text)] == [
        "The arm weighs approx. 5 kg in total.",
        "It moves the Canvs.",
        "Then the next sentence starts.",
        "A bold linked tagged and spaced line of words.",
    ]


def test_tags_named_in_inline_code_stay() -> None:
    # "the `<link>` element" names a tag: stripped like markup, the answer read "the ` ` element"
    text = "Within the `<link>` element, add <b>mass</b> and a `<surface><friction>` block. Odd ` <i>x</i>"
    assert [u.text for u in units_of(text)] == [
        "Within the `<link>` element, add mass and a `<surface><friction>` block.",
        "Odd ` x",
    ]


def test_rule_lines_end_a_paragraph_and_hyphenated_terms_bring_their_parts() -> None:
    # a line of rule characters alone ("* * *", "== :: ==") is no text; one word among them is text
    text = "Words before a rule.\n* * * - = _ :\nThe next paragraph is state-of-the-art work."
    units = units_of(text)
    assert [u.text for u in units] == ["Words before a rule.", "The next paragraph is state-of-the-art work."]
    assert {"state-of-the-art", "state", "art"} <= units[1].terms  # the hyphenated term and its parts
    assert not any("-" in t for t in units[0].terms)
    assert [u.text for u in units_of("Words before a rule.\n== :: ==\nWords after the rule.")] == [
        "Words before a rule.",
        "Words after the rule.",
    ]
    assert [u.text for u in units_of("Words before a rule.\n== x ==\nWords after the rule.")] == [
        "Words before a rule. == x == Words after the rule."
    ]


def test_split_tokens_round_trips() -> None:
    for text in ["a b  c", " leading", "line\n\n```x\ny\n```", ""]:
        assert "".join(split_tokens(text)) == text


def test_count_tokens_counts_what_split_tokens_splits() -> None:
    texts = [
        "a b  c",
        " leading",
        "line\n\n```x\ny\n```",
        "",
        "   ",
        "\n",
        "trailing \n",
        "x\u00a0y",
        "\u2003z",
    ]
    texts += ["a\x1cb", "\x1f", "tab\there\r\n", "\u200bzero-width", "mixed \u3000 ideographic"]
    for text in texts:
        assert count_tokens(text) == len(split_tokens(text)), repr(text)


def test_a_diagram_is_told_by_its_lines_and_code_without_drawing_characters_is_not_one() -> None:
    assert _drawing("```\n┌──┐\n│ A │──► B\n└──┘\n```")
    assert not _drawing("```\nros2 run demo talker\n```")
    assert not _drawing("```\n```")
    assert not _drawing("```\na\nb\nc\nd -> ►\n```")  # one line in four: under DRAWN_SHARE


def _hit(text: str, rank: int, heading: str = "Troubleshooting") -> SearchHit:
    chunk = Chunk(
        text=text,
        content_hash=content_hash(text),
        chunk_index=rank - 1,
        token_count=len(text.split()),
        heading_hierarchy=[heading],
        source_path=f"doc-{rank}.md",
    )
    return SearchHit(chunk=chunk, similarity=0.6, keyword_score=1.0, score=1.0 / rank, rank=rank)


async def test_a_quoted_symptom_brings_its_solution_and_the_code_it_introduces() -> None:
    text = (
        "### Error: Context Lost After Error\n\n"
        "**Symptom**: Robot forgets the conversation after recovering from an error.\n\n"
        "**Solution**: Preserve context through error handling:\n\n"
        "```python\nsaved_context = self.dialogue.context.copy()\nawait recover()\n"
        "self.dialogue.context = saved_context\n```\n"
    )
    question = "My robot forgets the conversation after recovering from an error"
    result = RetrievalResult(query=question, hits=[_hit(text, 1)])
    _, written = await write(ExtractiveWriter(), request(question, result))
    assert "Preserve context through error handling" in written.text
    assert "saved_context = self.dialogue.context.copy()" in written.text


async def test_a_short_list_the_answer_quotes_from_comes_whole() -> None:
    first = "Robots adapt to new places by domain adaptation and transfer learning of earlier skills."
    second = (
        "Maintaining previously learned knowledge while learning new skills:\n\n"
        "- Elastic weights consolidation\n- Progressive neural networks\n- Experience replay mechanisms\n"
    )
    question = "Do robots keep old skills when learning new ones through experience replay mechanisms?"
    result = RetrievalResult(query=question, hits=[_hit(first, 1, "Adaptation"), _hit(second, 2)])
    _, written = await write(ExtractiveWriter(), request(question, result))
    for item in ("Elastic weights consolidation", "Progressive neural networks", "Experience replay"):
        assert item in written.text


async def test_quoted_items_keep_the_heading_that_names_them() -> None:
    text = (
        "#### Simbody\n\n- **Pros**: Highly accurate, good for biomechanical simulation\n"
        "- **Cons**: Complex setup, slower for simple scenarios\n"
    )
    question = "Which physics engine is accurate for biomechanical simulation?"
    result = RetrievalResult(query=question, hits=[_hit(text, 1, "Physics engines")])
    _, written = await write(ExtractiveWriter(), request(question, result))
    assert written.text.startswith("Simbody:\n\n- Pros: Highly accurate")


async def test_a_heading_the_quote_already_names_is_not_repeated() -> None:
    text = "### Gravity\n\nGravity pulls every link of the robot down at 9.81 m/s squared."
    question = "How strong is gravity in the simulator?"
    result = RetrievalResult(query=question, hits=[_hit(text, 1, "Physics")])
    _, written = await write(ExtractiveWriter(), request(question, result))
    assert written.text.startswith("Gravity pulls every link")


async def test_the_sentence_that_introduces_a_list_can_lead_the_answer() -> None:
    text = (
        "System identification characterises the real robot's behaviour to improve simulation accuracy:\n\n"
        "- Collect real-world data under controlled conditions\n"
        "- Estimate model parameters that match observed behaviour\n"
    )
    distractor = "Simulation accuracy matters for every real robot that must characterise its behaviour."
    question = "How do I characterise the real robot's behaviour to improve simulation accuracy?"
    result = RetrievalResult(query=question, hits=[_hit(text, 1, "Sim-to-real"), _hit(distractor, 2, "Why")])
    _, written = await write(ExtractiveWriter(), request(question, result))
    assert written.text.startswith("Sim-to-real:\n\nSystem identification characterises")
    assert "- Collect real-world data" in written.text


async def test_a_solution_that_introduces_code_is_quoted_with_its_code() -> None:
    text = (
        "### Issue: High latency over half a second end-to-end\n\n"
        "**Solution**: Use CycloneDDS, faster than FastDDS for local communication:\n\n"
        "```bash\nexport RMW_IMPLEMENTATION=rmw_cyclonedds_cpp\nros2 daemon stop\nros2 daemon start\n```\n"
    )
    distractor = "Latency of the navigation stack depends on the local planner frequency."
    question = "End-to-end latency is over half a second. Anything quick to try?"
    result = RetrievalResult(query=question, hits=[_hit(text, 1), _hit(distractor, 2, "Planners")])
    _, written = await write(ExtractiveWriter(), request(question, result))
    assert "Use CycloneDDS" in written.text
    assert "export RMW_IMPLEMENTATION=rmw_cyclonedds_cpp" in written.text


async def test_a_lead_in_whose_list_is_not_quoted_is_left_out() -> None:
    best = "Gazebo uses the ODE physics engine by default for its physics simulation."
    dangling = "With the ODE physics engine, Gazebo physics simulation lets you build robots that can:"
    question = "Which physics engine does Gazebo use by default for physics simulation?"
    result = RetrievalResult(query=question, hits=[_hit(best, 1, "Physics"), _hit(dangling, 2, "Gazebo")])
    _, written = await write(ExtractiveWriter(), request(question, result))
    assert written.text.startswith("Gazebo uses the ODE physics engine")
    assert "robots that can" not in written.text


async def test_the_code_line_that_says_what_was_asked_is_quoted_with_its_neighbours() -> None:
    text = (
        "Proxemics describes how close people stand to each other in conversation.\n\n"
        "Edward Hall's model of proxemics defines four distance zones that robots should respect.\n\n"
        "```python\nclass ProxemicSpace:\n    def __init__(self):\n"
        "        # Distances in meters based on Hall's model\n"
        "        self.intimate_zone = (0.0, 0.45)    # 0-1.5 feet - intimate relationships\n"
        "        self.personal_zone = (0.45, 1.2)    # 1.5-4 feet - close friends and family\n"
        "        self.social_zone = (1.2, 3.6)       # 4-12 feet - casual relationships\n"
        "        self.public_zone = (3.6, 10.0)      # 12+ feet - public speaking\n"
        "        self.robot_speed = 0.5\n        self.robot_name = 'pepper'\n```\n"
    )
    question = "How big is the intimate zone around a person?"
    result = RetrievalResult(query=question, hits=[_hit(text, 1, "Personal space")])
    _, written = await write(ExtractiveWriter(), request(question, result))
    assert "self.intimate_zone = (0.0, 0.45)    # 0-1.5 feet" in written.text
    assert "personal_zone" in written.text  # the line after it, for context
    assert "public_zone" not in written.text  # not the whole block
    assert written.text.count("```") == 2
    assert written.cited == [1]


async def test_no_code_line_is_quoted_when_none_holds_the_question() -> None:
    text = (
        "Hall's model defines four distance zones that robots should respect.\n\n"
        "```python\nzones = load()\nrobot.keep(zones)\nrobot.speak('hello')\n```\n"
    )
    question = "How big is the intimate zone around a person?"
    result = RetrievalResult(query=question, hits=[_hit(text, 1, "Personal space")])
    _, written = await write(ExtractiveWriter(), request(question, result))
    assert "```" not in written.text


def test_a_lead_in_too_short_to_quote_stays_with_its_code() -> None:
    units = units_of(
        "Cause: the package was not built.\n\n**Solution**:\n\n```bash\ncolcon build\nsource x\n```\n"
    )
    code = [u for u in units if u.kind == "code"]
    assert [u.text for u in units if u.kind == "sentence"] == ["Cause: the package was not built."]
    assert [u.intro for u in code] == ["Solution:"]


async def test_a_quoted_cause_brings_the_solution_code_after_it() -> None:
    text = (
        "Cause: Custom message package not built or sourced.\n\n**Solution**:\n\n"
        "```bash\ncd ~/ws\ncolcon build --packages-select my_interfaces\nsource install/setup.bash\n```\n"
    )
    question = "ROS says my custom service type is not found. What did I forget?"
    result = RetrievalResult(query=question, hits=[_hit(text, 1)])
    _, written = await write(ExtractiveWriter(), request(question, result))
    assert "Cause: Custom message package not built or sourced [1]. Solution:" in written.text
    assert "colcon build --packages-select my_interfaces" in written.text


async def test_a_code_block_the_question_quotes_gives_way_to_the_fix_after_it() -> None:
    text = (
        "```\n[Error] Failed to create Vulkan instance\n```\n\nSolutions:\n\n"
        "```bash\n# Install Vulkan\nsudo apt install vulkan-tools\nvulkaninfo\n```\n"
    )
    other = "Install the simulator from the launcher and start it from the library tab."
    question = "The simulator fails with 'Failed to create Vulkan instance'. What do I install?"
    result = RetrievalResult(query=question, hits=[_hit(text, 1), _hit(other, 2, "Installation")])
    _, written = await write(ExtractiveWriter(), request(question, result))
    assert "sudo apt install vulkan-tools" in written.text
    assert "[Error] Failed to create Vulkan instance" not in written.text


async def test_a_code_block_is_quoted_once() -> None:
    # The lead-in brings its code, and the how-to path picks the same block as the best code.
    text = (
        "Solution: Check that the bridge matches the simulator topic names:\n\n"
        "```bash\n# List the topics to find the real topic name\ngz topic -l\n# Bridge it\n"
        "ros2 run ros_gz_bridge parameter_bridge /joint_states\n```\n"
    )
    other = (
        "Launch files start several nodes at once. Each node has its own parameters. Logs go to the console."
    )
    question = "How do I list the topics to find the real topic names for the bridge?"
    result = RetrievalResult(query=question, hits=[_hit(text, 1), _hit(other, 2, "Launch")])
    _, written = await write(ExtractiveWriter(), request(question, result))
    assert written.text.count("gz topic -l") == 1


async def test_a_best_source_of_only_code_is_quoted_and_cited() -> None:
    code = (
        "Solution: Adjust ray tracing settings:\n\n"
        "```\nRender Settings -> Path Tracing\n- Max Bounces: 4 (increase for transparency)\n"
        "- Samples Per Pixel: 64+ for quality\n```\n"
    )
    prose = "The RTX renderer enables photorealistic visualization of transparent objects for perception."
    question = "Transparent objects look glitchy in my renders. Which render settings should I raise?"
    result = RetrievalResult(query=question, hits=[_hit(code, 1, "Rendering"), _hit(prose, 2, "RTX")])
    _, written = await write(ExtractiveWriter(), request(question, result))
    assert "Max Bounces: 4" in written.text
    assert "Solution: Adjust ray tracing settings [1]:" in written.text
    assert written.cited == [1, 2]


async def test_code_quoted_alone_has_its_heading_carry_the_citation() -> None:
    code = "```python\nenable_contact_report(\n    prim_path='/World/robot/foot',\n)\n```\n"
    prose = "The simulator supports Python scripting through the Script Editor for robots."
    question = "How can my code find out when the robot foot touches the ground?"
    result = RetrievalResult(
        query=question, hits=[_hit(code, 1, "Contact sensing"), _hit(prose, 2, "Scripting")]
    )
    _, written = await write(ExtractiveWriter(), request(question, result))
    assert "Contact sensing [1]:\n\n```python\nenable_contact_report(" in written.text


async def test_any_short_lead_in_ties_the_code_to_the_sentence_before_it() -> None:
    text = (
        "Scenario: 0.9m doorway, robot width 0.8m (tight clearance).\n\nAdjust:\n\n"
        "```yaml\ninflation_radius: 0.45  # Reduce from 0.55m\nxy_goal_tolerance: 0.2\n```\n"
    )
    bare = "Scenario: a long corridor with people walking.\n\n```yaml\nmax_vel_x: 0.3\nmin_vel_x: 0.0\n```\n"
    question = "Our robot must pass a 0.9 m wide doorway. What should we change?"
    result = RetrievalResult(query=question, hits=[_hit(text, 1), _hit(bare, 2, "Corridor")])
    _, written = await write(ExtractiveWriter(), request(question, result))
    assert "Adjust:\n\n```yaml\ninflation_radius: 0.45" in written.text
    assert "max_vel_x" not in written.text  # code after prose without a lead-in is not tied to it


async def test_a_best_source_of_code_gives_the_fix_not_the_error_the_question_quotes() -> None:
    code = (
        "```\nNullReferenceException in UrdfRobotExtensions\n```\n\n"
        "Solution: Check URDF validity and mesh paths:\n\n"
        "```bash\n# Verify URDF before import\ncheck_urdf humanoid.urdf\n```\n"
    )
    prose = "Unity can import robot models from various formats. The most common workflow is URDF to Unity."
    question = "Importing into Unity dies with a NullReferenceException in UrdfRobotExtensions. What now?"
    result = RetrievalResult(query=question, hits=[_hit(code, 1, "Import errors"), _hit(prose, 2, "Import")])
    _, written = await write(ExtractiveWriter(), request(question, result))
    assert "check_urdf humanoid.urdf" in written.text
    assert "Solution: Check URDF validity and mesh paths [1]:" in written.text
    assert "NullReferenceException in UrdfRobotExtensions\n```" not in written.text


async def test_a_code_line_that_names_the_asked_thing_by_its_initials_is_quoted() -> None:
    prose = "Design a camera sensor for the robot head with a realistic image resolution and noise."
    code = (
        "```xml\n<sensor name='camera' type='camera'>\n  <update_rate>30.0</update_rate>\n"
        "  <horizontal_fov>1.047</horizontal_fov> <!-- 60 degrees -->\n  <width>640</width>\n"
        "  <height>480</height>\n</sensor>\n```\n"
    )
    question = "What's the field of view of the example head camera?"
    result = RetrievalResult(query=question, hits=[_hit(prose, 1, "Sensors"), _hit(code, 2, "Example")])
    _, written = await write(ExtractiveWriter(), request(question, result))
    assert "<horizontal_fov>1.047</horizontal_fov> <!-- 60 degrees -->" in written.text
    assert "<height>480</height>" not in written.text  # the line and its neighbours, not the block


def test_a_list_keeps_the_short_lead_in_above_it_on_its_first_item() -> None:
    units = units_of(
        "Symptom: links fly apart.\n\nCauses:\n- Joint limits are missing\n- Joint forces are too high\n\n"
        "Fix:\n1. Add joint damping\n"
    )
    assert [(u.text, u.intro) for u in units if u.bullet] == [
        ("Joint limits are missing", "Causes:"),
        ("Joint forces are too high", ""),
        ("Add joint damping", "Fix:"),
    ]


async def test_a_quoted_symptom_brings_the_fix_steps_after_it_with_their_code() -> None:
    text = (
        "Symptom: Window opens but the viewport remains black.\n\nSolutions:\n\n"
        "1. Update the graphics driver:\n"
        "```bash\nubuntu-drivers devices\nsudo ubuntu-drivers autoinstall\n```\n"
        "2. Verify Vulkan support:\n```bash\nvulkaninfo | grep GPU\n# Should show your GPU model\n```\n"
    )
    other = "Launch the simulator from the launcher; the first launch takes a few minutes."
    question = "The simulator window opens but the viewport stays black. What should I try?"
    result = RetrievalResult(query=question, hits=[_hit(text, 1, "Black screen"), _hit(other, 2, "Launch")])
    _, written = await write(ExtractiveWriter(), request(question, result))
    assert "remains black. Solutions:\n\n- Update the graphics driver:" in written.text
    assert "sudo ubuntu-drivers autoinstall" in written.text
    assert "vulkaninfo | grep GPU" in written.text


def test_a_hyphenated_word_also_matches_its_parts() -> None:
    (unit,) = units_of("- Models walking as a spring-mass system")
    assert {"spring-mass", "spring", "mass"} <= unit.terms
    (numbered,) = units_of("RT-1 maps camera images to action tokens.")
    assert "rt" not in numbered.terms  # a part with digits or of two letters is no word


async def test_a_sentence_that_names_the_question_in_a_hyphenated_word_is_quoted() -> None:
    hyphenated = "Another option describes the body as a spring-mass system."
    other = "The simplest model of walking treats the robot leg as an inverted pendulum."
    question = "Is there a walking model that treats the leg like a bouncing spring?"
    result = RetrievalResult(query=question, hits=[_hit(other, 1, "Walking"), _hit(hyphenated, 2, "Walking")])
    _, written = await write(ExtractiveWriter(), request(question, result))
    assert "spring-mass system" in written.text


def _listing_hit(text: str, rank: int) -> SearchHit:
    """A chunk of one long code listing: same file, same heading."""
    hit = _hit(text, rank, "Microphone setup")
    return SearchHit(
        chunk=hit.chunk.model_copy(update={"source_path": "audio.md"}),
        similarity=hit.similarity,
        keyword_score=hit.keyword_score,
        score=hit.score,
        rank=rank,
    )


async def test_a_best_ranked_listing_tail_gives_way_to_the_part_of_the_listing_that_matches() -> None:
    tail = "```python\n        sd.wait()\n        return recording.flatten()\n```\n"
    head = (
        "```python\n@dataclass\nclass AudioConfig:\n    sample_rate: int = 16000\n    channels: int = 1\n\n"
        "class AudioCapture:\n    '''Capture audio from the microphone for speech recognition.'''\n```\n"
    )
    prose = "Speech recognition turns recorded audio into text for the robot."
    question = "What sample rate should the robot capture microphone audio at?"
    hits = [_listing_hit(tail, 1), _listing_hit(head, 2), _hit(prose, 3, "Speech")]
    result = RetrievalResult(query=question, hits=hits)
    _, written = await write(ExtractiveWriter(), request(question, result))
    assert "sample_rate: int = 16000" in written.text
    assert "recording.flatten()" not in written.text


async def test_the_part_of_a_listing_is_matched_by_its_identifiers_too() -> None:
    tail = "```python\n# Test temperature safety\nreadings = {'left_arm': 75}\nprint(check(readings))\n```\n"
    head = "```python\nself.temperature_limits = {\n    'servo_motor': 70,\n    'gearbox': 65,\n}\n```\n"
    prose = "Joint safety keeps every motor of the humanoid inside its rated range."
    question = "What's the temperature limit for the servo motors in the joint safety example?"
    hits = [_listing_hit(tail, 1), _listing_hit(head, 2), _hit(prose, 3, "Safety")]
    result = RetrievalResult(query=question, hits=hits)
    _, written = await write(ExtractiveWriter(), request(question, result))
    assert "'servo_motor': 70," in written.text
    assert "print(check(readings))" not in written.text


async def test_a_problem_brings_the_command_of_the_passage_that_answers_it() -> None:
    # The command shares no word with the question; the passage it sits in names the symptom.
    text = (
        "Symptom: the viewer warns that a frame does not exist.\n\n"
        "Check that the frame names match the link names.\n\n"
        "```bash\nros2 run tf2_ros tf2_echo map base_link\n```\n"
    )
    question = "The viewer keeps warning that a frame does not exist"
    result = RetrievalResult(query=question, hits=[_hit(text, 1)])
    _, written = await write(ExtractiveWriter(), request(question, result))
    assert "tf2_echo map base_link" in written.text


def _candidate(text: str, source: int, score: float) -> Any:
    unit = units_of(text)[0]
    hit = _hit(text, source)
    return _Candidate(unit, source, hit, lexical=0.5, rank_prior=1.0, score=score)


def test_a_source_not_quoted_yet_gets_a_place_over_the_best_sources_last_sentence() -> None:
    # Sentences that share no word: only their scores and their sources tell them apart.
    words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf"]
    best = [_candidate(f"{w} {w}1 {w}2 {w}3.", 1, 1.0 - i / 100) for i, w in enumerate(words)]
    other = _candidate("hotel hotel1 hotel2 hotel3.", 3, 0.945)
    chosen = _mmr([*best, other])
    assert other in chosen
    assert len(chosen) == MAX_SENTENCES
    # the quotable units handed in (as compose does, once for the pick and the swap): the same pick
    assert _mmr([*best, other], quotable=list(_quotable([*best, other]))) == chosen


def _adds_to_as_written(c: Any, top: Any, chosen: list[Any]) -> bool:
    """`_adds_to` as first written, every condition asked of the chosen units at once."""
    if c.score < RELATIVE_FLOOR * top.score:
        return False
    follows = not c.unit.lead_in and any(
        s.source == c.source and 0 < c.unit.position - s.unit.position <= 2 for s in chosen
    )
    closer = c.cosine is not None and top.cosine is not None and c.cosine >= MEANING_SHARE * top.cosine
    own = c.lexical + c.heading >= OWN_WORDS_SHARE * (top.lexical + top.heading)
    return follows or closer or own


def _mmr_asking_each_round(candidates: list[Any], limit: int) -> list[Any]:
    """`_mmr` as its formula reads, and as it was written before its eligibility was worked out once per
    candidate: `_adds_to` asked of every candidate in the pool, and each one's greatest similarity to
    all the chosen, every round."""
    pool = _quotable_pool(candidates)  # the loop is what this oracle checks, not the pool
    if not pool:
        return []
    top = pool[0]
    chosen = [pool.pop(0)]
    words = top.unit.words
    room = MAX_PROSE_WORDS
    while pool and sum(0.5 if c.unit.bullet else 1.0 for c in chosen) < limit and words < room:
        eligible = [c for c in pool if _adds_to_as_written(c, top, chosen)]
        if not eligible:
            break
        quoted = {s.source for s in chosen}
        lam = MMR_LAMBDA
        scored = [
            (
                lam * c.score
                - (1 - lam) * max(_similarity(c, s) for s in chosen)
                + (SOURCE_DIVERSITY if c.source not in quoted else 0.0),
                c,
            )
            for c in eligible
        ]
        value, pick = max(scored, key=lambda x: x[0])
        pool.remove(pick)
        if value <= 0 or max(_similarity(pick, s) for s in chosen) >= DUPLICATE:
            continue
        chosen.append(pick)
        words += pick.unit.words
    return chosen


def test_mmr_picks_what_asking_adds_to_of_every_candidate_every_round_picks() -> None:
    # Few sources and positions, so that following a chosen unit (one or two on) often decides.
    rng = np.random.default_rng(7)
    names = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet"]
    for trial in range(40):
        candidates = []
        for i in range(int(rng.integers(3, 30))):
            name = names[int(rng.integers(len(names)))]
            c = _candidate(f"{name} {name}{i} {name}{trial} words here.", int(rng.integers(1, 4)), 0.0)
            c.unit = replace(c.unit, position=int(rng.integers(0, 8)))
            c.score = float(rng.uniform(0.1, 1.0))
            c.lexical, c.heading = float(rng.uniform(0, 0.6)), float(rng.uniform(0, 0.3))
            c.cosine = None if rng.random() < 0.3 else float(rng.uniform(0.2, 0.8))
            candidates.append(c)
        limit = int(rng.integers(2, 7))
        picked = _mmr(list(candidates), limit)
        assert [id(c) for c in picked] == [id(c) for c in _mmr_asking_each_round(list(candidates), limit)]


def test_a_sentence_nearly_as_near_the_question_in_meaning_as_the_best_one_is_quoted_in_other_words() -> None:
    # The best sentence's heading shares the question's words; the other passage's sentence shares
    # none of them, but is nearer the question in meaning: it is about the question too.
    top = _candidate("alpha alpha1 alpha2 alpha3.", 1, 1.0)
    top.lexical, top.heading, top.cosine = 0.1, 0.4, 0.5
    answer = _candidate("golf golf1 golf2 golf3.", 3, 0.8)
    answer.lexical, answer.cosine = 0.1, 0.6
    assert _adds_to(answer, top, [top])
    answer.cosine = 0.45  # nearly as near the question as the best one: about it too
    assert _adds_to(answer, top, [top])
    answer.cosine = 0.4  # farther in meaning, and in too few of the question's words
    assert not _adds_to(answer, top, [top])
    answer.cosine = None  # no vector: the words decide
    assert not _adds_to(answer, top, [top])


def test_of_code_blocks_alike_in_words_the_one_nearer_the_question_in_meaning_is_quoted() -> None:
    def block(text: str, rank: int, similarity: float) -> Any:
        c = _candidate(f"```xml\n{text}\n```", rank, 0.0)
        c.rank_prior, c.lexical, c.chunk = 1.0 - (rank - 1) / 5, 0.1, 0.1
        c.hit = c.hit.model_copy(update={"similarity": similarity})
        return c

    first = block('<slider name="elbow"/>', 1, 0.35)
    nearer = block('<axis xyz="0 1 0"/>', 2, 0.45)
    assert _best_code([first, nearer], [], strict=False) is nearer
    nearer.hit = nearer.hit.model_copy(update={"similarity": 0.30})
    assert _best_code([first, nearer], [], strict=False) is first


def test_an_answer_quotes_up_to_six_sentences_down_to_four_tenths_of_the_best_ones_score() -> None:
    # Sentences that share no word: only their scores tell them apart.
    words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"]
    best = [_candidate(f"{w} {w}1 {w}2 {w}3.", 1, 1.0 - i / 100) for i, w in enumerate(words)]
    assert len(_mmr(best)) == 6
    top = _candidate("alpha alpha1 alpha2 alpha3.", 1, 1.0)
    weaker = _candidate("india india1 india2 india3.", 2, 0.45)
    assert weaker in _mmr([top, weaker])
    weaker.score = 0.35
    assert _mmr([top, weaker]) == [top]


def test_mmr_keeps_the_greatest_similarity_to_the_chosen_as_the_formula_does() -> None:
    # `_mmr` brings each candidate's similarity to the chosen up to date pick by pick; near-duplicate
    # vectors (some skipped as duplicates) and several sources exercise every branch.
    rng = np.random.default_rng(7)
    for trial in range(20):
        base = rng.normal(size=(4, 8)).astype(np.float32)
        candidates = []
        for i in range(12):
            c = _candidate(
                f"word{trial}x{i} says a few more words here.", 1 + i % 3, float(rng.uniform(0.5, 1))
            )
            vector = base[i % 4] + rng.normal(scale=0.05 if i % 2 else 1.0, size=8).astype(np.float32)
            c.vector = vector / np.linalg.norm(vector)
            candidates.append(c)
        expected = _mmr_asking_each_round(list(candidates), MAX_SENTENCES)
        assert _mmr(list(candidates)) == expected


def test_stem_terms_of_short_and_long_texts() -> None:
    short = "Running robots"
    long = " ".join(["Running robots navigate corridors"] * 10)
    assert stem_terms(short) == frozenset({"run", "robot"})
    assert stem_terms(short) is stem_terms(short)  # kept
    assert stem_terms(long) == frozenset({"run", "robot", "navig", "corridor"})


def test_a_sentence_with_the_cue_the_question_calls_for_is_lifted() -> None:
    plain = _candidate("The robot pauses before it replies to a person.", 1, 0.5)
    number = _candidate("The robot pauses 0.5 seconds before it replies.", 1, 0.5)
    _favour_cues([plain, number], question_kind("How long should the robot pause?"))
    assert number.score > plain.score


def test_a_question_that_asks_what_the_book_uses_lifts_the_sentence_that_names_the_tool() -> None:
    plain = _candidate("The map shows walls and free space in the room.", 1, 0.5)
    tool = _candidate("Use ROS 2 `slam_toolbox` to generate the occupancy grid map.", 1, 0.5)
    question = "I want a floor plan from my laser scans. What does the book use for that?"
    _favour_cues([plain, tool], question_kind(question))
    assert tool.score > plain.score


def test_a_yes_no_question_is_matched_on_its_verb_too() -> None:
    def terms(question: str) -> frozenset[str]:
        return _query_terms(question, question)

    # "need" and "know" are generic ("what do I need?"), but a yes/no question turns on them.
    assert {"need", "know"} <= terms("Does the publisher need to know who reads the topic?")
    assert "need" not in terms("What do I need for the simulator?")
    # A request to the assistant is not a yes/no question.
    assert "show" not in terms("Can you show me how to write a service?")
    # The sentence that answers shares the verb; the other shares more of the question's nouns.
    yes_no = _candidate("Publishers don't need to know their subscribers.", 2, 0.0)
    other = _candidate("A publisher sends messages that any node reads.", 1, 0.0)
    question = "Does the publisher need to know who reads the topic?"
    candidates, _ = ExtractiveWriter()._candidates([other.hit, yes_no.hit], terms(question))
    assert candidates[1].lexical > candidates[0].lexical


def test_list_items_too_short_to_be_units_go_with_the_unit_above_them() -> None:
    text = (
        "Parameters are configuration values that can be changed at runtime:\n\n"
        "- Camera resolution\n- Control gains\n- Safety thresholds\n\n"
        "**Curriculum Learning**\n\n"
        "- Start with narrow randomization ranges\n- Gradually expand the domain\n"
    )
    units = units_of(text)
    # No unit is added or moved: stored sentence vectors keep lining up with the units.
    assert [u.text for u in units] == [
        "Parameters are configuration values that can be changed at runtime:",
        "Start with narrow randomization ranges",
        "Gradually expand the domain",
    ]
    assert units[0].items == ("Camera resolution", "Control gains", "Safety thresholds")
    assert units[1].section == "Curriculum Learning"  # a line of its own titles what follows


def test_a_short_item_under_another_heading_does_not_join_the_list_above() -> None:
    units = units_of("- A long first item of the list\n\n### Next\n\n- Short one\n")
    assert units[0].items == ()


async def test_a_lead_in_of_short_items_is_quoted_with_them_as_a_list() -> None:
    text = (
        "Parameters are configuration values that can be changed at runtime:\n\n"
        "- Camera resolution\n- Control gains\n- Safety thresholds\n"
    )
    question = "What are parameters used for?"
    result = RetrievalResult(query=question, hits=[_hit(text, 1, "Parameters")])
    _, written = await write(ExtractiveWriter(), request(question, result))
    assert written.text.endswith(
        "changed at runtime [1]:\n\n- Camera resolution\n- Control gains\n- Safety thresholds"
    )


def test_a_quoted_issue_brings_the_solutions_after_its_list_of_causes() -> None:
    text = (
        "Issue: Grasp attempts fail repeatedly\n\nPossible Causes:\n\n- Pose estimate inaccurate\n"
        "- Object geometry unsuitable for the gripper\n- Motion planning failed\n\nSolutions:\n\n"
        "1. Calibrate the depth camera for better poses\n2. Add multiple approach angles\n\n"
        "Issue: System becomes unresponsive\n\nSolutions:\n\n1. Restart the crashed node\n"
    )
    hit = _hit(text, 1)
    candidates = [_Candidate(u, 1, hit, 0.0) for u in units_of(text)]
    quoted = _with_context([candidates[0]], candidates)
    assert [c.unit.text for c in quoted] == [
        "Issue: Grasp attempts fail repeatedly",
        "Calibrate the depth camera for better poses",
        "Add multiple approach angles",
    ]


def test_the_solution_of_a_problem_is_looked_for_only_before_the_next_problem() -> None:
    text = (
        "Issue: Robot drives to the wrong room\n\nPossible Causes:\n\n- Map outdated\n- Bad coordinates\n\n"
        "Issue: System becomes unresponsive\n\nSolutions:\n\n1. Restart the crashed node\n"
    )
    hit = _hit(text, 1)
    same = {u.position: _Candidate(u, 1, hit, 0.0) for u in units_of(text)}
    first, second = (p for p, c in same.items() if c.unit.text.startswith("Issue"))
    assert _solution_after(same, first) is None
    found = _solution_after(same, second)
    assert found is not None
    assert found.unit.text == "Restart the crashed node"


async def test_a_short_solution_lead_in_can_lead_the_answer_with_its_code() -> None:
    fix = (
        "Solution: Check the drive configuration:\n\n"
        "```\n1. Joint type must be revolute\n2. The drive must have non-zero stiffness\n```\n"
    )
    listing = (
        "```csharp\npublic class JointPanel : MonoBehaviour\n{\n    public Slider slider;\n"
        "    void Move() { joint.drive = slider.value; }\n}\n```\n"
    )
    question = "My joints won't move when I drag the sliders. What should I check?"
    result = RetrievalResult(
        query=question, hits=[_hit(listing, 1, "Joint sliders"), _hit(fix, 2, "Error: Joints don't move")]
    )
    _, written = await write(ExtractiveWriter(), request(question, result))
    assert "Solution: Check the drive configuration" in written.text
    assert "non-zero stiffness" in written.text


async def test_a_quoted_sentence_that_names_a_file_brings_the_opening_of_that_files_code() -> None:
    files = (
        "- `params.yaml` - Navigation parameters tuned for the robot\n"
        "- `send_goal.py` - Send navigation goals to the robot programmatically\n"
    )
    tail = (
        '```python title="examples/send_goal.py"\n        goal.pose.x = x\n'
        "        self.client.send_goal_async(goal)\n```\n"
    )
    head = (
        '```python title="examples/send_goal.py"\nimport rclpy\nfrom nav_msgs.action import GoToPose\n\n'
        "class GoalSender:\n    pass\n```\n"
    )
    question = "How do I send navigation goals to the robot from a script?"
    hits = [_hit(files, 1, "Files"), _hit(tail, 2, "Script"), _hit(head, 3, "Script")]
    result = RetrievalResult(query=question, hits=hits)
    _, written = await write(ExtractiveWriter(), request(question, result))
    assert "from nav_msgs.action import GoToPose" in written.text
    assert "send_goal_async" not in written.text


def test_a_file_name_is_matched_whole_in_a_blocks_title() -> None:
    block = '```python title="examples/resend_goal.py"\nimport rclpy\nprint(1)\n```'
    hit = _hit(block, 2)
    code = _Candidate(units_of(block)[0], 2, hit, 0.0)
    text = "- `send_goal.py` - Send navigation goals programmatically"
    sentence = _Candidate(units_of(text)[0], 1, _hit(text, 1), 0.0)
    assert _with_named_code([sentence], [code], [sentence]) == [sentence]


async def test_a_quoted_comment_on_code_brings_the_code_above_it() -> None:
    text = (
        "### Velocity limits\n\n```yaml\nmax_vel_x: 0.5      # m/s forward walking speed\n"
        "acc_lim_x: 0.5      # m/s² smooth acceleration\n```\n\n"
        "Rationale: Slower than wheeled robots to keep the humanoid balanced.\n"
    )
    other = "Wheeled robots drive at one to two metres per second on flat ground."
    question = "How fast should a humanoid walk compared to wheeled robots?"
    result = RetrievalResult(query=question, hits=[_hit(text, 1, "Navigation"), _hit(other, 2, "Wheels")])
    _, written = await write(ExtractiveWriter(), request(question, result))
    assert "Rationale: Slower than wheeled robots" in written.text
    assert "max_vel_x: 0.5" in written.text


def _context_of(best_text: str, list_text: str, pick: int) -> list[str]:
    """`_with_context` for the best sentence of source 1 and item `pick` of the list of source 2."""
    best = _Candidate(units_of(best_text)[0], 1, _hit(best_text, 1), 0.0)
    listed = [_Candidate(u, 2, _hit(list_text, 2), 0.0) for u in units_of(list_text)]
    quoted = _with_context([best, listed[pick]], [best, *listed])
    return [c.unit.text for c in quoted if c.source == 2]


def test_another_list_of_terse_items_comes_whole_and_one_of_long_items_does_not() -> None:
    best = "The bridge node connects the robot to the language model."
    terse = "".join(f"- Part {n}: does step {n}\n" for n in "ABCDEFG")
    assert len(_context_of(best, terse, 2)) == 7
    wordy = "".join(
        f"- Part {n}: does a long step {n} with many words that explain it in detail and again "
        "in more detail than anyone needs, then once more for the reader who skipped the first two\n"
        for n in "ABC"
    )
    assert _context_of(best, wordy, 1) == [units_of(wordy)[1].text]


def test_a_lead_in_to_a_list_too_long_to_quote_brings_its_best_item() -> None:
    best = "The bridge node connects the robot to the language model."
    lead = "The simulator offers a rich set of features for modern robots:\n"
    wordy = lead + "".join(
        f"- Feature {n}: does a long step {n} with many words that explain it in detail and again "
        "in more detail than anyone needs, then once more for the reader who skipped the first two\n"
        for n in "ABC"
    )
    first = _Candidate(units_of(best)[0], 1, _hit(best, 1), 0.0, score=1.0)
    listed = [_Candidate(u, 2, _hit(wordy, 2), 0.0) for u in units_of(wordy)]
    listed[0].score, listed[2].score = 0.8, 0.6  # the lead-in, then the item that answers
    quoted = _with_context([first, listed[0]], [first, *listed])
    assert [c.unit.text for c in quoted if c.source == 2] == [listed[0].unit.text, listed[2].unit.text]


def _listing_part(text: str, rank: int, index: int) -> _Candidate:
    """The first unit of chunk `index` of one listing's file, retrieved at `rank`."""
    chunk = Chunk(
        text=text,
        content_hash=content_hash(text),
        chunk_index=index,
        token_count=len(text.split()),
        heading_hierarchy=["Pacing"],
        source_path="pacing.md",
    )
    hit = SearchHit(chunk=chunk, similarity=0.6, keyword_score=1.0, score=1.0 / rank, rank=rank)
    return _Candidate(units_of(text)[0], rank, hit, 0.0)


def test_a_quoted_block_cut_on_an_open_value_brings_the_values_from_the_next_chunk() -> None:
    head = _listing_part("```python\ndef pause_for(urgency):\n    pauses = {\n```\n", 1, 4)
    tail = _listing_part(
        '```python\n        "urgent": 0.2,\n        "normal": 0.5,\n    }\n'
        "    return pauses[urgency]\n\ndef other():\n    pass\n```\n",
        2,
        5,
    )
    quoted = _with_listing_continued([head], [head, tail])
    assert len(quoted) == 2
    assert quoted[1].unit.text == '```python\n        "urgent": 0.2,\n        "normal": 0.5,\n    }\n```'
    # Not the next chunk of the listing, or a block of statements: nothing comes.
    far = _listing_part(tail.unit.text, 2, 7)
    assert _with_listing_continued([head], [head, far]) == [head]
    block = _listing_part("```csharp\nvoid Start()\n{\n    if (ready)\n    {\n```\n", 1, 4)
    assert _with_listing_continued([block], [block, tail]) == [block]


def test_a_list_quoted_nearly_whole_brings_its_last_items() -> None:
    text = "Architecture:\n\n" + "".join(f"- Part {n}: does step {n} of the bridge\n" for n in "ABCDEFGH")
    hit = _hit(text, 1)
    units = [_Candidate(u, 1, hit, 0.0) for u in units_of(text)]
    items = [c for c in units if c.unit.bullet]

    def quoted(picked: list[_Candidate]) -> list[str]:
        chosen = _with_lead_ins(picked, units)
        return [c.unit.text for c in chosen if c.unit.bullet]

    assert len(quoted([items[0], items[5]])) == 8  # six of eight quoted: the last two come too
    assert len(quoted([items[0], items[2]])) == 3  # three of eight: the list stays cut


async def test_a_code_line_setting_a_value_answers_a_quantity_question_with_fewer_of_its_words() -> None:
    text = (
        "Humanoid robots must limit interaction forces during physical contact.\n\n"
        "```python\nclass ForceLimiter:\n    def __init__(self):\n"
        "        self.smoothing_window = 5  # samples\n"
        "        self.emergency_stop_force = 50.0  # N - emergency stop threshold\n"
        "        self.warning_force = 20.0  # N\n```\n"
    )
    hits = [_hit(text, 1, "Force limiting")]
    question = "At what contact force should a humanoid's safety system trigger an emergency stop?"
    _, written = await write(
        ExtractiveWriter(), request(question, RetrievalResult(query=question, hits=hits))
    )
    assert "self.emergency_stop_force = 50.0" in written.text
    # The same words, not asking for a quantity: three of eight are too few for a code line.
    question = "Which contact force makes a humanoid's safety system trigger an emergency stop?"
    assert question_kind(question) != "quantity"
    _, written = await write(
        ExtractiveWriter(), request(question, RetrievalResult(query=question, hits=hits))
    )
    assert "emergency_stop_force" not in written.text


async def test_a_question_ending_in_how_brings_the_code_that_does_it() -> None:
    text = (
        "Exercise 4: Export static images.\n\nTask: Save ten of them to disk for the report.\n\n"
        "Steps:\n\n```bash\nros2 bag play demo_bag\nros2 run image_view extract_images \\\n"
        "  image:=/camera/image_raw\n```\n\n"
        "Validation: Check the folder for camera frames exported as images.\n"
    )
    question = "I have a recording of the camera topic and want to pull out single frames as images. How?"
    result = RetrievalResult(query=question, hits=[_hit(text, 1, "Exercises")])
    _, written = await write(ExtractiveWriter(), request(question, result))
    assert "extract_images" in written.text


def test_a_text_diagram_never_stands_for_the_code_a_how_to_asks_for() -> None:
    drawing = "```\nMicrophone\n    │\n    ▼\n┌──────────┐\n│  Buffer  │\n└──────────┘\n```"
    command = '```bash\npython3 -c "import sounddevice; print(sounddevice.query_devices())"\n```'
    assert _drawing(drawing)
    assert not _drawing(command)
    blocks = [_Candidate(units_of(b)[0], n, _hit(b, n), 0.5) for n, b in enumerate((drawing, command), 1)]
    assert [c.unit.text for c in _answering(blocks, frozenset({"microphon"}))] == [command]


def test_a_code_line_that_heads_a_list_in_comments_brings_the_list() -> None:
    block = (
        "```csharp\n// Recommended effects for robot visualization\n// - Ambient Occlusion: subtle depth\n"
        "// - Bloom: highlight reflections\n// - Color Grading: professional colour\nvar volume = 1;\n```"
    )
    code = _Candidate(units_of(block)[0], 1, _hit(block, 1), 0.5, rank_prior=1.0)
    query = "Which effects are recommended for robot visualization?"
    terms = stem_terms(query) - _IGNORED
    chosen = _with_code_lines([], [code], [], query, terms)
    quoted = "\n".join(c.unit.text for c in chosen)
    assert "Bloom: highlight reflections" in quoted
    assert "Color Grading" in quoted
    assert "var volume" not in quoted


async def test_a_question_that_names_a_file_brings_the_block_that_is_that_file() -> None:
    files = (
        "Make the script executable and run it while you move the robot around:\n\n"
        "```bash\nchmod +x record_data.sh\n./record_data.sh\n```\n"
    )
    script = (
        '```bash title="scripts/record_data.sh"\n#!/bin/bash\n# Record 60 seconds of sensor data\n'
        "ros2 bag record -o demo /camera/image_raw &\nsleep 60\n```\n"
    )
    question = "How long does record_data.sh record for?"
    result = RetrievalResult(query=question, hits=[_hit(files, 1, "Record"), _hit(script, 2, "Scripts")])
    _, written = await write(ExtractiveWriter(), request(question, result))
    assert "Record 60 seconds" in written.text
    assert _titled(script.strip(), "record_data.sh")
    assert not _titled("```bash\nchmod +x record_data.sh\n```", "record_data.sh")


def test_a_sentence_brings_the_short_lead_in_it_completes() -> None:
    text = (
        '"Relocalization" in the context of visual SLAM refers to:\n\n'
        "A) The initial mapping process B) The robot's ability to recover its pose after getting lost\n"
    )
    units = [_Candidate(u, 1, _hit(text, 1), 0.0) for u in units_of(text)]
    lead, options = units
    assert lead.unit.lead_in
    quoted = _with_lead_ins([options], units)
    assert [c.unit.text for c in quoted] == [options.unit.text, lead.unit.text]
    text, _ = _render(quoted)
    assert '"Relocalization" in the context of visual SLAM refers to: A) The initial' in text


async def test_a_short_block_that_shares_more_of_the_question_than_any_sentence_comes_with_it() -> None:
    server = "A service server handles requests from clients and returns responses."
    calls = (
        "Two ways to call:\n\n```python\n# blocks this node\nresponse = client.call(request)\n"
        "# until the server replies\nfuture = client.call_async(request)  # no waiting\n"
        "# the result, once it is there\nresponse = future.result()\n```\n"
    )
    question = "When my node asks a server for something, what changes between waiting and not waiting?"
    result = RetrievalResult(query=question, hits=[_hit(server, 1, "Services"), _hit(calls, 2, "Calls")])
    _, written = await write(ExtractiveWriter(), request(question, result))
    assert "A service server handles" in written.text
    assert "response = future.result()" in written.text


def test_a_sentence_that_announces_the_chapters_aims_is_not_exposition() -> None:
    text = (
        "In this chapter, you will learn to describe robot bodies with URDF.\n\n"
        "By the end of this chapter, you will be able to:\n\n- Define links and joints in a robot model\n\n"
        "A link is a rigid body of the robot with a visual and a collision geometry.\n"
    )
    hit = _hit(text, 1)
    candidates, _ = ExtractiveWriter()._candidates([hit], frozenset({"link", "robot"}))
    kinds = {c.unit.text: c.exposition for c in candidates}
    assert kinds == {
        "In this chapter, you will learn to describe robot bodies with URDF.": False,
        "By the end of this chapter, you will be able to:": False,
        "Define links and joints in a robot model": False,
        "A link is a rigid body of the robot with a visual and a collision geometry.": True,
    }


def test_an_exercise_counts_as_exposition_when_the_question_names_it() -> None:
    lab = _hit("Set the torque limit of every joint to 40 Nm in the robust controller.", 1, "Lab Exercises")
    terms = frozenset({"torqu", "limit"})
    writer = ExtractiveWriter()
    plain, _ = writer._candidates([lab], terms)
    named, _ = writer._candidates([lab], terms, asked=frozenset({"exercise"}))
    assert [c.exposition for c in plain] == [False]
    assert [c.exposition for c in named] == [True]


def test_a_landing_pages_list_of_topics_is_exposition_only_when_the_course_is_asked_about() -> None:
    text = "- Isaac Sim and Omniverse\n- Isaac ROS perception\n- Nav2 for humanoids\n"
    chunk = _hit(text, 1, "Topics Covered").chunk.model_copy(update={"source_path": "module-3/index.md"})
    hit = SearchHit(chunk=chunk, similarity=0.6, keyword_score=1.0, score=1.0, rank=1)
    writer = ExtractiveWriter()
    plain, _ = writer._candidates([hit], frozenset({"isaac"}))
    asked, _ = writer._candidates([hit], frozenset({"isaac"}), asked=frozenset({"navigation"}))
    assert not any(c.exposition for c in plain)
    assert all(c.exposition for c in asked)


def test_the_aims_list_is_exposition_when_the_question_asks_for_the_objectives() -> None:
    text = "By the end of this chapter, you will be able to:\n\n- Define links and joints in a robot model\n"
    candidates, _ = ExtractiveWriter()._candidates(
        [_hit(text, 1, "Links")], frozenset({"link"}), asked=frozenset({"overview"})
    )
    assert all(c.exposition for c in candidates)


def test_a_question_heading_is_not_followed_by_a_colon() -> None:
    assert _heading_line("What is URDF?") == "What is URDF?"
    assert _heading_line("Costmaps") == "Costmaps:"


def _reserve_case() -> tuple[str, RetrievalResult]:
    """Two sources that name the physics engines without listing them, and a reserve passage that does."""
    question = "Which physics engines can Gazebo use?"
    first = "Gazebo simulates physics for robots. Physics engines compute the contacts and forces in Gazebo."
    second = "A robot model needs realistic inertia values before Gazebo can simulate it well."
    listed = "Gazebo can use the DART physics engine, which models contacts of humanoids accurately."
    result = RetrievalResult(
        query=question,
        hits=[_hit(first, 1, "Physics"), _hit(second, 2, "Inertia")],
        reserve=[_hit(listed, 3, "Engines"), _hit(first, 4, "Physics")],  # a source again: not a reserve
    )
    return question, result


def test_the_reserve_is_numbered_after_the_sources_and_the_selection() -> None:
    question, result = _reserve_case()
    req = request(question, result, user_context="Selected words about something else entirely.")
    quotable = quotable_of(req)
    assert [h.chunk.text for h in quotable[:2]] == [h.chunk.text for h in result.hits]
    assert quotable[2].chunk.title == SELECTED_TITLE
    assert [h.chunk.text for h in reserve_of(req)] == [result.reserve[0].chunk.text]
    assert quotable[3:] == reserve_of(req)


async def test_a_reserve_passage_is_quoted_beside_the_sources_and_cited_past_them() -> None:
    question, result = _reserve_case()
    req = request(question, result)
    streamed, written = await write(ExtractiveWriter(), req)
    assert streamed == written.text
    assert "DART physics engine" in written.text
    assert 3 in written.cited  # the reserve passage: the number after the two sources
    quotable = quotable_of(req)
    assert quotable[2].chunk.text == result.reserve[0].chunk.text
    # It never leads: the answer opens with a source's sentence.
    assert written.text.index("[1]") < written.text.index("[3]")
    assert {int(n) for n in _CITE.findall(written.text)} == set(written.cited)


async def test_an_answer_from_code_alone_ignores_the_reserve() -> None:
    question = "How do I launch Gazebo?"
    code = "```bash\ngz sim shapes.sdf\n```"
    listed = "Launch Gazebo from a terminal with the gz sim command and a world file."
    result = RetrievalResult(
        query=question, hits=[_hit(code, 1, "Launch")], reserve=[_hit(listed, 2, "Launch")]
    )
    _, written = await write(ExtractiveWriter(), request(question, result))
    assert "gz sim shapes.sdf" in written.text
    assert written.cited == [1]


def test_no_reserve_without_a_retrieved_hit() -> None:
    question, result = _reserve_case()
    selected = result.model_copy(update={"hits": []})
    assert reserve_of(request(question, selected, user_context="Gazebo can use several engines.")) == []


class _StoredVectors:
    """A `SentenceVectors` stand-in: each chunk's unit rows, as `rows` gives them for its units."""

    def __init__(self, rows: dict[str, list[list[float]]]) -> None:
        self.rows = rows

    def of(self, chunks: list[Chunk]) -> list[tuple[Any, np.ndarray]]:
        out = []
        for c in chunks:
            matrix = np.asarray(self.rows[c.content_hash], dtype=np.float32)
            norms = np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-9)
            out.append((units_of(c.text), matrix / norms))
        return out


def test_a_code_block_about_as_near_the_question_in_meaning_as_the_best_sentence_is_quoted() -> None:
    # The block shares no word with the question; its comment says in other words what was asked.
    text = (
        "Topics carry messages between the nodes of the graph.\n\n"
        "```bash\n# Get topic statistics\nros2 topic hz /chatter\n```\n"
    )
    question = "Is there a quick way to see how often messages arrive?"
    hit = _hit(text, 1, "Topics")
    result = RetrievalResult(query=question, hits=[hit], query_embedding=[1.0, 0.0, 0.0, 0.0])

    def answer(code_row: list[float]) -> str:
        rows = {hit.chunk.content_hash: [[0.5, 0.866, 0.0, 0.0], code_row]}
        req = replace(request(question, result), sentences=_StoredVectors(rows))  # type: ignore[arg-type]
        return ExtractiveWriter().compose(req)[0]

    assert [u.kind for u in units_of(text)] == ["sentence", "code"]
    assert "ros2 topic hz" in answer([0.45, 0.0, 0.893, 0.0])  # 0.45 >= 0.8 x 0.5
    assert "ros2 topic hz" not in answer([0.3, 0.0, 0.954, 0.0])  # farther in meaning
    assert "ros2 topic hz" not in answer([0.0, 0.0, 0.0, 0.0])  # a block with no vector: words decide


def test_a_why_question_gets_no_listing_for_its_meaning_alone() -> None:
    # "why" is answered in words: a block near it in meaning would only make the answer longer
    text = (
        "Topics decouple the nodes, because a publisher never waits for its subscribers.\n\n"
        "```bash\n# Get topic statistics\nros2 topic hz /chatter\n```\n"
    )
    question = "Why are messages sent without waiting for whoever reads them?"
    hit = _hit(text, 1, "Topics")
    result = RetrievalResult(query=question, hits=[hit], query_embedding=[1.0, 0.0, 0.0, 0.0])
    rows = {hit.chunk.content_hash: [[0.5, 0.866, 0.0, 0.0], [0.45, 0.0, 0.893, 0.0]]}
    req = replace(request(question, result), sentences=_StoredVectors(rows))  # type: ignore[arg-type]
    assert "ros2 topic hz" not in ExtractiveWriter().compose(req)[0]


async def test_a_rewritten_follow_up_picks_sentences_for_its_own_words_not_the_bracketed_context(
    monkeypatch: Any,
) -> None:
    # "which one has the language model write code (robot systems that go from camera to actions)?":
    # the brackets keep the search on the previous topic; the sentences answer the follow-up itself.
    seen: list[str] = []
    terms = _query_terms

    def spy(question: str, query: str) -> frozenset[str]:
        seen.append(query)
        return terms(question, query)

    monkeypatch.setattr("lectern.writers.extractive.writer._query_terms", spy)
    result, embedder = await retrieve("What is a ROS 2 node?")
    asked = "and how do I create a publisher node?"
    req = replace(request(asked, result), search_query=f"{asked[:-1]} (ROS 2 node)?")
    await write(ExtractiveWriter(embedder), req)
    assert seen == ["and how do I create a publisher node?"]
    seen.clear()
    # with too few words of its own, the context stays: "give me an example" says nothing of what about
    req = replace(request("give me an example", result), search_query="give me an example (ROS 2 node)?")
    await write(ExtractiveWriter(embedder), req)
    assert seen == ["give me an example (ROS 2 node)?"]


def test_best_is_the_first_candidate_max_finds_by_mmr_value_ties_included() -> None:
    rng = np.random.default_rng(3)
    for trial in range(200):
        candidates = [
            _candidate(f"word{trial} unit{i} text here.", int(rng.integers(1, 4)), 0.0) for i in range(6)
        ]
        for c in candidates:
            c.score = float(rng.choice([0.2, 0.5, 0.8]))  # few values: ties are common
        closest = {c: float(rng.choice([0.0, 0.3, 0.6])) for c in candidates}
        quoted = {int(s) for s in rng.integers(1, 4, size=int(rng.integers(0, 3)))}
        pick, value = _best(candidates, closest, quoted)
        expected = max(candidates, key=lambda c: _mmr_value(c, closest[c], quoted))
        assert pick is expected
        assert value == _mmr_value(expected, closest[expected], quoted)


def test_a_heading_is_named_exactly_when_the_quoted_texts_terms_hold_its_words() -> None:
    # `_names` rules a heading out by the units' own terms before it stems the quoted text: a unit's
    # terms hold its text's (and the parts of hyphenated words, its short items'), so the answer is the
    # text's terms' either way, including where only a hyphen's part or an item has the heading's word.
    text = (
        "### Spring-mass damping\n\nThe spring-mass model damps the joint at every simulation step.\n\n"
        "Contact forces are solved after the damping is applied to each link:\n\n"
        "- Damping\n- Friction\n\n"
        "```python\nset_damping(link, 0.2)\n```\n\nSpring constants are tuned by hand for each robot."
    )
    units = units_of(text)
    headings = ["Spring-mass damping", "Damping", "Friction", "Spring constants", "Mass", "Link forces"]
    headings += ["Overview", "Simulation step", "set_damping", "Robot tuning by hand"]
    for start in range(len(units)):
        for end in range(start + 1, len(units) + 1):
            run = units[start:end]
            joined = " ".join(u.text for u in run)
            for heading in headings:
                wanted = stem_terms(heading) - _IGNORED
                assert _names(run, heading) == (not wanted or wanted <= stem_terms(joined))
    assert any(u.terms > stem_terms(u.text) for u in units)  # terms beyond the text's were there to skip


def test_of_code_blocks_the_one_whose_section_heading_names_the_question_is_quoted() -> None:
    # "What do I install before the GPU works in Docker?": the block under "Step 1: Install NVIDIA
    # Container Toolkit" shares none of the question's words in its commands, its heading does.
    def block(text: str, rank: int, heading: float) -> Any:
        c = _candidate(f"```bash\n{text}\n```", rank, 0.0)
        c.rank_prior, c.lexical, c.chunk, c.heading = 1.0 - (rank - 1) / 5, 0.1, 0.3, heading
        c.hit = c.hit.model_copy(update={"similarity": 0.6})
        return c

    first = block("cd docker/ && docker-compose up", 1, 0.0)
    headed = block("sudo apt-get install -y toolkit-x", 3, 0.5)
    assert _best_code([first, headed], [], strict=False) is headed
    headed.heading = 0.0  # no heading that names the question: the better-ranked block
    assert _best_code([first, headed], [], strict=False) is first


def test_a_how_to_gets_a_block_of_another_passage_near_it_in_meaning_when_none_shares_its_words() -> None:
    # "list the microphones" / "# List available audio devices": no block shares the question's words,
    # the comment says it in other words; a block that starts inside a listing says nothing on its own.
    question = "How do I see how often messages arrive?"
    prose = _hit("Topics carry messages between the nodes of the graph.", 1, "Topics")

    def answer(block: str) -> str:
        code = _hit(f"```bash\n{block}\n```", 2, "Statistics")
        result = RetrievalResult(query=question, hits=[prose, code], query_embedding=[1.0, 0.0, 0.0, 0.0])
        rows = {
            prose.chunk.content_hash: [[0.5, 0.866, 0.0, 0.0]],
            code.chunk.content_hash: [[0.45, 0.0, 0.893, 0.0]],
        }
        req = replace(request(question, result), sentences=_StoredVectors(rows))  # type: ignore[arg-type]
        return ExtractiveWriter().compose(req)[0]

    assert "ros2 topic hz" in answer("# Get topic statistics\nros2 topic hz /chatter")
    assert "ros2 topic hz" not in answer("    # Get topic statistics\n    ros2 topic hz /chatter")


def test_a_list_item_brings_only_its_own_lists_lead_in() -> None:
    text = (
        "Install these first:\n\n- Python 3.10 or newer\n- A C compiler\n\n"
        "The build takes a few minutes on a laptop.\n\n"
        "Then run these steps:\n\n- Clone the repository\n- Run the build script\n"
    )
    other = "Before you start:\n\n- Read the overview of the whole system\n"
    units = [_Candidate(u, 1, _hit(text, 1), 0.0) for u in units_of(text)]
    units += [_Candidate(u, 2, _hit(other, 2), 0.0) for u in units_of(other)]
    leads = [c.unit.text for c in units if c.unit.lead_in]
    assert leads == ["Install these first:", "Then run these steps:", "Before you start:"]
    step = next(c for c in units if c.unit.text == "Run the build script")
    chosen = _with_lead_ins([step], units)
    # its list's lead-in (list items between them), not the first list's (prose between) or source 2's
    assert [c.unit.text for c in chosen] == ["Run the build script", "Then run these steps:"]
    first = next(c for c in units if c.unit.text == "A C compiler")
    # (a lead-in after the item has nothing between them but comes too: as before, not a rule wanted)
    assert [c.unit.text for c in _with_lead_ins([first], units)] == [
        "A C compiler",
        "Install these first:",
        "Then run these steps:",
    ]


def _meant(text: str, source: int, score: float, cosine: float) -> Any:
    candidate = _candidate(text, source, score)
    candidate.cosine = cosine
    return candidate


def test_the_answers_unit_farthest_in_meaning_gives_way_to_a_much_nearer_reserve_unit() -> None:
    # Two passages' units fill the answer on their passage's rank; the reserve's unit (source 3 of 2
    # sources) is far nearer the question in meaning than the answer's weakest unit.
    lead = _meant("alpha alpha1 alpha2 alpha3.", 1, 0.6, 0.5)
    weak = _meant("bravo bravo1 bravo2 bravo3.", 1, 0.5, 0.05)
    fair = _meant("charlie charlie1 charlie2 charlie3.", 2, 0.45, 0.35)
    near = _meant("delta delta1 delta2 delta3.", 3, 0.3, 0.45)
    chosen = _meaning_swap([lead, weak, fair], [lead, weak, fair, near], 2)
    assert chosen == [lead, near, fair]


def test_no_swap_when_the_reserve_unit_is_not_much_nearer_or_would_lead() -> None:
    lead = _meant("alpha alpha1 alpha2 alpha3.", 1, 0.6, 0.1)
    weak = _meant("bravo bravo1 bravo2 bravo3.", 1, 0.5, 0.3)
    near = _meant("delta delta1 delta2 delta3.", 3, 0.3, 0.35)
    # the lead stays however far it is; the weakest other unit is only 0.05 farther
    assert _meaning_swap([lead, weak], [lead, weak, near], 2) == [lead, weak]
    # a lone unit is never swapped
    assert _meaning_swap([lead], [lead, near], 2) == [lead]


def test_no_swap_for_a_unit_that_shares_more_of_the_questions_words_or_from_the_sources() -> None:
    lead = _meant("alpha alpha1 alpha2 alpha3.", 1, 0.6, 0.3)
    weak = _meant("bravo bravo1 bravo2 bravo3.", 1, 0.5, 0.0)
    near = _meant("delta delta1 delta2 delta3.", 3, 0.3, 0.5)
    near.lexical = 0.1  # the weak unit (0.5) shares more of the question's words
    assert _meaning_swap([lead, weak], [lead, weak, near], 2) == [lead, weak]
    # a source's own unit, however near, is the selection's to rank: only the reserve's swaps in
    other = _meant("echo echo1 echo2 echo3.", 2, 0.3, 0.5)
    assert _meaning_swap([lead, weak], [lead, weak, other], 2) == [lead, weak]


def test_the_swap_takes_the_nearest_reserve_unit_that_repeats_no_chosen_one() -> None:
    lead = _meant("alpha alpha1 alpha2 alpha3.", 1, 0.6, 0.5)
    weak = _meant("bravo bravo1 bravo2 bravo3.", 1, 0.5, 0.05)
    # the nearest repeats the lead word for word (a duplicate): the next nearest swaps in
    again = _meant("alpha alpha1 alpha2 alpha3.", 3, 0.3, 0.48)
    near = _meant("delta delta1 delta2 delta3.", 3, 0.3, 0.45)
    assert _meaning_swap([lead, weak], [lead, weak, again, near], 2) == [lead, near]
    # equally near: the better scored, then the first in the candidates' order
    better = _meant("echo echo1 echo2 echo3.", 3, 0.35, 0.45)
    twin = _meant("foxtrot foxtrot1 foxtrot2 foxtrot3.", 3, 0.35, 0.45)
    assert _meaning_swap([lead, weak], [lead, weak, near, twin, better], 2) == [lead, twin]
    # only those below the floors left: no swap
    far = _meant("golf golf1 golf2 golf3.", 3, 0.3, 0.15)
    assert _meaning_swap([lead, weak], [lead, weak, again, far], 2) == [lead, weak]


def _units_as_candidates(text: str, source: int = 1) -> list[Any]:
    hit = _hit(text, source)
    return [_Candidate(u, source, hit, lexical=0.0, rank_prior=1.0) for u in units_of(text)]


def test_a_lead_in_right_after_a_chosen_item_needs_merit_of_its_own() -> None:
    # "Next steps:" heads another list: following a chosen item does not make it that item's next line,
    # as the item's sibling is.
    text = "- alpha item one here\n- bravo item two here\n\nNext steps:\n\n- charlie item three here\n"
    first, sibling, lead, _ = _units_as_candidates(text)
    assert lead.unit.lead_in
    assert sibling.unit.bullet
    first.score, first.lexical = 1.0, 0.5
    for c in (sibling, lead):
        c.score, c.lexical = 0.9, 0.0  # nearly as good, but sharing none of the question's words
    assert _adds_to(sibling, first, [first])
    assert not _adds_to(lead, first, [first])
    assert lead not in _mmr([first, sibling, lead])


def test_a_solution_that_says_the_fix_stays_without_its_code_a_bare_label_does_not() -> None:
    text = (
        "Symptom: the robot sinks into the floor.\n\nSolution: Spawn above ground level:\n\n```bash\nx\n```\n"
    )
    symptom, stated, _ = _units_as_candidates(text)
    assert stated.unit.lead_in
    assert _without_dangling_lead_ins([symptom, stated]) == [symptom, stated]
    # "Fix it like this:" names no fix: without its code it says nothing
    bare = _units_as_candidates("Fix it like this:\n\n```bash\nx\n```\n", 2)[0]
    assert bare.unit.lead_in
    assert _without_dangling_lead_ins([symptom, bare]) == [symptom]


def test_a_stated_lead_in_quoted_without_its_code_ends_as_a_statement() -> None:
    text = (
        "Symptom: the robot sinks into the floor.\n\nSolution: Spawn above ground level:\n\n```bash\nx\n```\n"
    )
    symptom, stated, code = _units_as_candidates(text)
    alone, _ = _render([symptom, stated])
    assert alone.endswith("Solution: Spawn above ground level [1].")
    # with its code quoted the colon still points at it
    with_code, _ = _render([symptom, stated, code])
    assert "Solution: Spawn above ground level [1]:" in with_code
    # a bare label keeps its colon: it says nothing as a statement
    assert _closed("Solutions:") == "Solutions:"
    assert _closed("Cause: TF not published. Solution:") == "Cause: TF not published. Solution:"
    # a colon inside the text is no lead-in's end
    assert _closed("Solution: spawn above ground level.") == "Solution: spawn above ground level."


async def test_a_question_about_what_a_program_prints_gets_its_console_output() -> None:
    text = (
        "The importer reads the CSV export and writes each record to the staging database.\n\n"
        "Run the importer from the project folder:\n\n"
        "```bash\n./importer --source export.csv\n./importer --check\n```\n\n"
        "Expected output:\n\n"
        "```\nLoaded 42 rows into staging\nDone in 3.1 s\n```\n"
    )
    question = "How many records should the importer report at the end?"
    result = RetrievalResult(query=question, hits=[_hit(text, 1, "Importing")])
    _, written = await write(ExtractiveWriter(), request(question, result))
    # the output shares no word with the question: only the question's ask brings it
    assert "Loaded 42 rows into staging" in written.text
    assert "Expected output" in written.text  # with its lead-in
    assert written.cited == [1]
    # the same passage, a question that asks something else: no output block
    other = "What does the importer write each record to?"
    result = RetrievalResult(query=other, hits=[_hit(text, 1, "Importing")])
    _, written = await write(ExtractiveWriter(), request(other, result))
    assert "Loaded 42 rows" not in written.text


def test_by_source_groups_candidates_in_their_order() -> None:
    a, b, c, d = (_candidate(f"Sentence {i} says enough words.", s, 0.5) for i, s in enumerate((2, 1, 2, 3)))
    grouped = _by_source([a, b, c, d])
    assert list(grouped) == [2, 1, 3]  # sources in order of first sight
    assert grouped[2] == [a, c]
    assert grouped[1] == [b]
    assert grouped[3] == [d]
    assert _by_source([]) == {}


def test_idf_counts_the_units_holding_each_query_term() -> None:
    shared = [[frozenset({"a", "b"}), frozenset({"a"})], [frozenset()]]  # three units, "a" in two
    idf = _idf(shared, frozenset({"a", "b", "c"}))
    assert idf == {"a": math.log(1.0 + 4 / 3), "b": math.log(1.0 + 4 / 2), "c": math.log(1.0 + 4 / 1)}


def test_an_introduced_block_right_after_a_quoted_sentence_comes_with_it() -> None:
    def unit(kind: Any, position: int, intro: str = "") -> Unit:
        return Unit(
            "colcon build" if kind == "code" else "Cause: not built.",
            kind,
            position,
            frozenset(),
            3,
            intro=intro,
        )

    hit = _hit("Cause: not built.", 1)
    sentence = _Candidate(unit("sentence", 4), 1, hit, 0.0)
    fix = _Candidate(unit("code", 5, intro="Solution:"), 1, hit, 0.0)
    bare = _Candidate(unit("code", 5), 1, hit, 0.0)  # a bare block after prose may be anything
    elsewhere = _Candidate(unit("code", 5, intro="Fix:"), 2, hit, 0.0)  # another source's
    later = _Candidate(unit("code", 6, intro="Then:"), 1, hit, 0.0)  # not right after it
    assert _with_following_code([sentence], [bare, later, elsewhere, fix]) == [sentence, fix]
    assert _with_following_code([sentence, fix], [fix]) == [sentence, fix]  # not twice
    assert _with_following_code([sentence], []) == [sentence]
