"""Pointer steps from square and point indices (the numbering the rules use), without the game."""

from __future__ import annotations

import pytest

from hardware.pointer import PointerTarget, move_steps, targets_at


def test_indices_name_the_same_fields_as_the_rules() -> None:
    assert PointerTarget.at_square(0).name == "a1" and PointerTarget.at_square(14).name == "c3"
    assert PointerTarget.at_square(35).name == "f6"
    assert PointerTarget.at_point(0).name == "A1" and PointerTarget.at_point(10).name == "D2"
    assert PointerTarget.at_point(48).name == "G7"


def test_targets_at_squares_then_points() -> None:
    steps = targets_at([14, 2], [10], blink=True)
    assert [str(t) for t in steps] == ["c3*", "c1*", "D2*"]
    assert targets_at() == []


def test_move_steps_blink_the_source_and_hold_the_destination() -> None:
    steps = move_steps([(2, 14)], [(10, 12)])
    assert [str(t) for t in steps] == ["c1*", "c3", "D2*", "F2"]


@pytest.mark.parametrize("bad", [-1, 36, 1.5, True])
def test_a_bad_square_index_is_refused_with_a_message(bad) -> None:
    with pytest.raises(ValueError, match="square index must be an integer 0..35"):
        PointerTarget.at_square(bad)
