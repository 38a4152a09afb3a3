"""What the audit added to the shared referee, on hand-made readings (no rendering)."""

from __future__ import annotations

from fake_readings import reading_of

from companion.rules.engine import apply_turn
from companion.rules.position import Placement, Position
from companion.referee.referee import ACCEPTED, GAME_OVER, REJECTED, UNCHANGED, UNREADABLE, Referee

START = Position.start()


def test_thirteen_batteries_from_the_camera_are_unreadable_not_illegal():
    board = Placement(START.white, START.black, START.batteries - {7})
    v = Referee().judge(reading_of(board))
    assert v.kind == UNREADABLE and "13 batteries read, there are always 14" in v.reason
    # a board typed in (not from the camera) is still diagnosed
    assert Referee().judge_board(board).kind == REJECTED


def test_seven_robots_of_a_colour_from_the_camera_are_unreadable():
    board = Placement(START.white, START.black | {20}, START.batteries)
    v = Referee().judge(reading_of(board))
    assert v.kind == UNREADABLE and "7 Black robots read, at most 6" in v.reason


def test_a_confident_illegal_board_is_still_rejected():
    board = Placement(START.white - {2} | {20}, START.black, START.batteries)
    assert Referee().judge(reading_of(board)).kind == REJECTED


def _won() -> Referee:
    pos = Position.from_string("1BBBBB/W5/6/6/6/6 7/xxxxxxx/7/7/7/xxxxxxx/7 w")
    ref = Referee(position=pos)
    v = ref.judge(Placement(frozenset({30}), pos.black - {30}, pos.batteries))
    assert v.kind == ACCEPTED and v.status.over
    ref.accept(v)
    return ref


def test_after_the_win_an_unsure_reading_is_unchanged_or_game_over():
    ref = _won()
    final = ref.position
    # unsure whether a robot stands on an empty square: game over (nothing is accepted), not "more than one position"
    v = ref.judge(reading_of(final, {20: [0.5, 0.45, 0.05]}))
    assert v.kind == GAME_OVER and "game is over" in v.reason
    # unsure whether a6 holds a White or a Black robot: one reading is a changed board -> game over
    v = ref.judge(reading_of(final, {30: [0.02, 0.6, 0.38]}))
    assert v.kind == GAME_OVER
    # unsure, but only the final board is plausible: unchanged
    v = ref.judge(reading_of(final, {30: [0.05, 0.88, 0.07]}))
    assert v.kind == UNCHANGED
    assert ref.judge(reading_of(final)).kind == UNCHANGED


def test_a_black_frame_keeps_the_readers_reason():
    from vision.reading import unreadable

    from companion.vision_bridge import table_reading

    v = Referee().judge(table_reading(unreadable("the frame is black (mean brightness 3 of 255): lens covered or no light?")))
    assert v.kind == UNREADABLE and "the frame is black" in v.reason


def test_unsure_legal_turn_is_still_resolved_by_the_rules():
    after = apply_turn(START, "c1-c3")
    v = Referee().judge(reading_of(after, {14: [0.45, 0.5, 0.05]}))
    assert v.kind == ACCEPTED and v.position == after


def test_the_audit_tries_less_likely_states_of_an_unsure_field():
    """a1 left by a1-a2, but the photo says 'White robot' at 89%, 'empty' at 8%: one look is all the audit
    gets, so it tries the 8% reading too (the live referee asks again instead)."""
    from companion.referee.audit import AUDIT_MIN_FIELD_PROB

    after = apply_turn(START, "a1-a2")
    r = reading_of(after, {0: [0.08, 0.89, 0.03]})
    assert Referee().judge(r).kind == UNREADABLE
    v = Referee(min_field_prob=AUDIT_MIN_FIELD_PROB).judge(r)
    assert v.kind == ACCEPTED and v.position == after
