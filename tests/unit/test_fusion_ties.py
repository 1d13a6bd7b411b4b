from __future__ import annotations

import numpy as np

from lectern.index.fusion import cut_inside_ties, tied_at_nth_or_better


def test_a_page_cut_inside_ties_asks_for_more() -> None:
    assert cut_inside_ties([0.9, 0.5, 0.5], 2, asked=3)  # the third ties with the second
    assert not cut_inside_ties([0.9, 0.5, 0.4], 2, asked=3)  # the third scores below
    assert not cut_inside_ties([0.5, 0.5, 0.5], 2, asked=4)  # fewer than asked: every row came
    assert not cut_inside_ties([0.5, 0.5], 0, asked=1)


def test_every_score_tied_with_the_nth_is_kept() -> None:
    scores = np.array([0.2, 0.7, 0.5, 0.5, 0.1, 0.5], dtype=np.float32)
    assert tied_at_nth_or_better(scores, 2).tolist() == [False, True, True, True, False, True]
