"""Citation renumbering: markers 1..k by first appearance, streamed safely (a split marker is held)."""

from __future__ import annotations

import itertools
import random
import re

from lectern.citations import Renumberer, _CodeState, display_markers, marker_numbers
from lectern.models import Citation


def _stream(text: str, cuts: list[int], resolvable: int | None = None) -> tuple[list[str], Renumberer]:
    r = Renumberer((lambda n: 1 <= n <= resolvable) if resolvable is not None else None)
    pieces, last = [], 0
    out = []
    for cut in [*sorted(cuts), len(text)]:
        pieces.append(text[last:cut])
        last = cut
    for piece in pieces:
        out.append(r.feed(piece))
    out.append(r.flush())
    return out, r


def test_markers_take_numbers_in_order_of_first_appearance() -> None:
    out, r = _stream("Nodes talk [4]. Topics carry messages [2][4]. Services [Source 5].", [])
    assert "".join(out) == "Nodes talk [1]. Topics carry messages [2][1]. Services [3]."
    assert r.mapping == {4: 1, 2: 2, 5: 3}
    assert r.text == "".join(out)


def test_lists_and_ranges_become_single_markers() -> None:
    out, _ = _stream("A [3, 1]. B [2-3]. C [source: 1].", [])
    assert "".join(out) == "A [1][2]. B [3][1]. C [2]."


def test_a_marker_split_across_tokens_is_held_until_it_closes() -> None:
    r = Renumberer()
    assert r.feed("Nodes [1") == "Nodes "
    assert r.feed("2") == ""
    assert r.feed("] talk.") == "[1] talk."
    assert r.flush() == ""
    assert r.mapping == {12: 1}


def test_every_split_of_a_text_gives_the_same_stream() -> None:
    text = "See [7] and [Source 3]; also `a[1]` in code, [2-4], [x] and arr [9999].\n```\nb[2]\n```\n[3]"
    whole, _ = _stream(text, [])
    rng = random.Random(7)
    for _ in range(300):
        cuts = rng.sample(range(1, len(text)), rng.randint(1, 20))
        pieces, r = _stream(text, cuts)
        assert "".join(pieces) == "".join(whole) == r.text


def test_word_tokens_give_the_same_stream_as_the_whole_text() -> None:
    # Plain words take a shortcut past the marker scan; a newline inside them still ends inline code.
    texts = [
        "An `unclosed span\nthen [3] cites, and `a[1]` does not [2].",
        "Words only, no markers at all.\n\nA second paragraph [4].",
        "```\ncode [1]\n```\nprose [1] and `x`\n[2]",
    ]
    for text in texts:
        whole, _ = _stream(text, [])
        words = re.findall(r"\S+\s*|\s+", text)
        cuts = list(itertools.accumulate(len(w) for w in words))[:-1]
        pieces, r = _stream(text, cuts)
        assert "".join(pieces) == "".join(whole) == r.text


def test_code_and_non_markers_are_left_alone() -> None:
    out, r = _stream("Use `items[2]` [5].\n```py\nx = a[1]\n```\nA year [2024] and [x] and [ 7", [])
    assert "".join(out) == "Use `items[2]` [1].\n```py\nx = a[1]\n```\nA year [2024] and [x] and [ 7"
    assert r.mapping == {5: 1}


def test_markers_naming_no_source_are_dropped() -> None:
    out, r = _stream("Real [2]. Invented [9]. Mixed [9, 1].", [], resolvable=3)
    assert "".join(out) == "Real [1]. Invented . Mixed [2]."
    assert r.mapping == {2: 1, 1: 2}


def _citation(number: int, path: str = "") -> Citation:
    return Citation(
        number=number,
        chunk_id=f"c{number}",
        chunk_text=f"text {number}",
        similarity_score=0.5,
        source_path=path or f"doc{number}.md",
    )


def test_sources_follow_the_markers() -> None:
    r = Renumberer()
    r.feed("B [3]. A [1]. B again [3].")
    r.flush()
    cited = r.citations([_citation(1), _citation(2), _citation(3)], keep_uncited=lambda c: False)
    assert [(c.number, c.source_path) for c in cited] == [(1, "doc3.md"), (2, "doc1.md")]
    assert display_markers(r.text) == [1, 2]


def test_uncited_sources_kept_only_when_asked_or_when_nothing_is_marked() -> None:
    r = Renumberer()
    r.feed("Only [2].")
    r.flush()
    sel = _citation(3, "selected-text")
    cited = r.citations([_citation(2), sel], keep_uncited=lambda c: c.source_path == "selected-text")
    assert [(c.number, c.source_path) for c in cited] == [(1, "doc2.md"), (2, "selected-text")]
    plain = Renumberer()
    plain.feed("No markers here.")
    plain.flush()
    kept = plain.citations([_citation(4), _citation(6)], keep_uncited=lambda c: False)
    assert [c.number for c in kept] == [1, 2]


def test_marker_numbers() -> None:
    assert marker_numbers("1-3, 5") == [1, 2, 3, 5]
    assert marker_numbers("2;2") == [2]
    assert marker_numbers("1-99") == []


def test_a_line_break_ends_inline_code_in_text_without_backticks() -> None:
    # the text between markers often has no backtick: only its line breaks can change the code state
    assert display_markers("`open [5]\nthen [1], `a[2]` and\n```\n[4]\n```\n[3]") == [1, 3]
    assert display_markers("`open [5] no break [1]") == []


def test_code_state_follows_backticks_and_line_breaks_as_a_scan_of_each() -> None:
    def scanned(texts: list[str]) -> list[tuple[bool, bool]]:  # every backtick run and line break in turn
        fence = inline = False
        states = []
        for text in texts:
            for run in re.finditer(r"`+|\n", text):
                token = run.group(0)
                if token == "\n":
                    inline = False
                elif len(token) >= 3:
                    fence, inline = not fence, False
                elif not fence:
                    inline = not inline
            states.append((fence, inline))
        return states

    rng = random.Random(7)
    for _ in range(2000):
        texts = ["".join(rng.choice("ab `\n[") for _ in range(rng.randint(0, 12))) for _ in range(4)]
        state = _CodeState()
        states = []
        for text in texts:
            state.advance(text)
            states.append((state.fence, state.inline))
        assert states == scanned(texts), texts
