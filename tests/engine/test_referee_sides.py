"""The referee and the batteries' sides (R-23): a note on the accepted verdict, never a rejection."""

from __future__ import annotations

import numpy as np
import pytest
from fake_readings import camera_reading_of, reading_of

from companion.referee.referee import ACCEPTED, Referee
from companion.vision_bridge import table_reading
from companion.rules.engine import apply_turn
from companion.rules.geometry import parse_point
from companion.rules.position import Position
from companion.rules.sides import BLANK, PRINTED

START = Position.start()


def pts(*names: str) -> list[int]:
    return [parse_point(n) for n in names]


def printed_but(pos: Position, *blank: str) -> dict:
    return {"printed": [p for p in pos.batteries if p not in pts(*blank)], "blank": pts(*blank)}


def started(sides: bool = True) -> Referee:
    ref = Referee(sides=sides)
    ref.see_sides(reading_of(START, **printed_but(START)))
    return ref


def test_the_right_batteries_turned_no_note_and_they_are_to_be_turned_back() -> None:
    ref = started()
    after = apply_turn(START, "c1-c3")
    v = ref.judge(reading_of(after, **printed_but(after, "C2", "D2")))
    assert v.kind == ACCEPTED and v.note is None
    assert v.turn_back == tuple(pts("C2", "D2"))
    assert v.to_json()["turn_back"] == ["C2", "D2"] and v.to_json()["note"] is None
    ref.accept(v)
    assert ref.sides_seen[parse_point("C2")] == BLANK and ref.sides_seen[parse_point("A2")] == PRINTED


def test_a_missing_turn_is_a_note_on_the_accepted_verdict() -> None:
    ref = started()
    after = apply_turn(START, "c1-c3")
    v = ref.judge(reading_of(after, **printed_but(after, "C2")))
    assert v.kind == ACCEPTED and str(v.turn) == "c1-c3"
    assert v.note is not None and v.note.startswith("c1→c3 used 2 energy but only 1 battery beside c1 was turned (C2)")
    assert v.line().startswith("accepted: c1-c3 -- note: c1→c3 used 2 energy")
    assert v.note_points == tuple(pts("C2"))
    ref.accept(v)
    assert ref.position == after


def test_the_next_turn_is_compared_with_the_last_accepted_board() -> None:
    ref = started()
    one = apply_turn(START, "c1-c3")
    ref.accept(ref.judge(reading_of(one, **printed_but(one, "C2", "D2"))))
    two = apply_turn(one, "c6-c5")
    # Black turned C2 and D2 back and drew on C6: right
    v = ref.judge(reading_of(two, **printed_but(two, "C6")))
    assert v.note is None and v.turn_back == tuple(pts("C6"))
    # Black left D2 blank (already blank: says nothing) and drew on D6: right too
    v = ref.judge(reading_of(two, **printed_but(two, "D2", "D6")))
    assert v.note is None and v.turn_back == tuple(pts("D2", "D6"))
    # Black turned C2 back, then turned it again for nothing: it is beside no Black robot
    v = ref.judge(reading_of(two, **printed_but(two, "C6", "A2")))
    assert v.note == "A2 is turned but no moved robot stands beside it"
    # an undo goes back to the sides seen before the undone turn
    ref.accept(v)
    ref.undo()
    assert ref.sides_seen[parse_point("C2")] == BLANK


def test_option_off_and_unknown_sides_are_silent() -> None:
    after = apply_turn(START, "c1-c3")
    off = started(sides=False)
    v = off.judge(reading_of(after, **printed_but(after, "F6")))
    assert v.kind == ACCEPTED and v.note is None and v.turn_back == ()
    on = started()
    assert on.judge(reading_of(after)).note is None  # a reader that tells no side
    v = on.judge(reading_of(after, blank=pts("C2")))  # only C2 told: D2 may have paid
    assert v.note is None and v.turn_back == tuple(pts("C2"))
    fresh = Referee()  # the start board's sides never seen: nothing is known to have gone printed to blank
    assert fresh.judge(reading_of(after, **printed_but(after, "C2", "D2", "F6"))).note is None
    # ... but a battery seen printed after the turn was not drawn on, whatever it showed before
    assert fresh.judge(reading_of(after, **printed_but(after, "F6"))).note.startswith("c1→c3 used 2 energy")


def test_sides_of_a_reading() -> None:
    r = camera_reading_of(START, blank=pts("C2"), printed=pts("D2"))
    assert table_reading(r).sides_of(START.batteries) == {parse_point("C2"): BLANK, parse_point("D2"): PRINTED}
    assert table_reading(r).sides_of(set(pts("C2"))) == {parse_point("C2"): BLANK}  # only the board's batteries
    r.printed_probs = None  # a reader that tells no side
    assert table_reading(r).sides_of(START.batteries) == {}
    r.printed_probs = np.full(49, 0.5)  # unsure
    assert table_reading(r).sides_of(START.batteries) == {}
    r.printed_probs = "not numbers"
    assert table_reading(r).sides_of(START.batteries) == {}


def test_something_that_is_not_a_reading_is_refused_with_a_message() -> None:
    with pytest.raises(ValueError, match="not a camera reading"):
        table_reading(object())
    r = camera_reading_of(START)
    r.square_probs = np.zeros((35, 3))
    with pytest.raises(ValueError, match="square_probs must be 36x3"):
        table_reading(r)
