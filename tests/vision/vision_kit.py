"""Helpers shared by the vision tests."""

from __future__ import annotations

import numpy as np

from vision.layout import BoardLayout

START = BoardLayout.from_sets(white=range(6), black=range(30, 36), batteries=list(range(7, 14)) + list(range(35, 42)))
SETUP_SEED = 9001
ANYSET_DESIGN = 5_000_005   # a development design (training uses 3,000,000+, the benchmark 9,000,000+)
ANYSET_SEED = ANYSET_DESIGN * 16


def random_layout(rng: np.random.Generator) -> BoardLayout:
    """Any layout with 14 batteries and at most 6 robots per colour."""
    sq = rng.permutation(36)
    nw, nb = int(rng.integers(0, 7)), int(rng.integers(0, 7))
    return BoardLayout.from_sets(white=sq[:nw], black=sq[nw:nw + nb], batteries=rng.permutation(49)[:14])


def wrong_fields(reading, truth: BoardLayout) -> tuple[list[int], list[int]]:
    states_s = ("empty", "white", "black")
    states_p = ("empty", "battery")
    ws = [i for i in range(36) if states_s[int(reading.square_probs[i].argmax())] != truth.squares[i].value]
    wp = [i for i in range(49) if states_p[int(reading.point_probs[i].argmax())] != truth.points[i].value]
    return ws, wp


def assert_no_confident_misread(reading, truth: BoardLayout) -> None:
    ws, wp = wrong_fields(reading, truth)
    assert set(ws) <= set(reading.low_confidence_squares), f"confidently wrong squares {ws}"
    assert set(wp) <= set(reading.low_confidence_points), f"confidently wrong points {wp}"
    if reading.readable:
        assert reading.layout == truth
