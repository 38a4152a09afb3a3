"""The referee: verdicts, the rules as a prior on unsure readings, undo."""

from __future__ import annotations

import pytest
from fake_readings import reading_of

from companion.rules.engine import apply_turn
from companion.rules.position import Placement, Position
from companion.referee.referee import ACCEPTED, GAME_OVER, QUESTION, REJECTED, UNCHANGED, UNREADABLE, Referee
from companion.rules.options import Rules

START = Position.start()


def test_accepts_and_advances():
    ref = Referee()
    after = apply_turn(START, "c1-c3 C2-C1")
    v = ref.judge(reading_of(after))
    assert v.kind == ACCEPTED and str(v.turn) == "c1-c3 C2-C1"
    assert ref.position == START  # judging changes nothing
    ref.accept(v)
    assert ref.position == after
    assert ref.judge(reading_of(after)).kind == UNCHANGED


def test_each_positions_status_is_worked_out_once_and_stays_right(monkeypatch):
    """The game's status is asked for by every judgement and every view of the game: the referee
    works it out once per position (the accepted turn's status is the next position's)."""
    import companion.referee.referee as referee_module

    asked: list[Position] = []
    real = referee_module.status

    def counting(position, rules):  # noqa: ANN001, ANN202
        asked.append(position)
        return real(position, rules)

    monkeypatch.setattr(referee_module, "status", counting)
    ref = Referee()
    after = apply_turn(START, "c1-c3 C2-C1")
    v = ref.judge(reading_of(after))
    ref.accept(v)
    for _ in range(3):
        assert ref.status == real(after, Rules())
    assert ref.judge(reading_of(after)).kind == UNCHANGED
    assert asked == [START, after]
    ref.undo()
    assert ref.status == real(START, Rules()) and asked == [START, after]  # START's status is still known
    ref.rules = Rules.from_names(["must-capture"])  # other rules: worked out again
    assert ref.status == real(START, ref.rules) and asked == [START, after, START]


def test_rejects_with_diagnosis_and_pointer():
    ref = Referee()
    board = Placement(START.white - {2} | {20}, START.black, START.batteries)
    v = ref.judge(reading_of(board))
    assert v.kind == REJECTED
    assert "needs 3 energy" in v.reason and v.squares == (2,)
    assert ref.position == START


def test_rules_prior_resolves_an_unsure_square():
    """c3 is unsure between empty and White: only 'White' makes the board legal (5 robots otherwise)."""
    ref = Referee()
    after = apply_turn(START, "c1-c3")
    v = ref.judge(reading_of(after, {14: [0.45, 0.5, 0.05]}))
    assert v.kind == ACCEPTED and str(v.turn) == "c1-c3"


def test_two_legal_readings_ask_instead_of_guessing():
    """b2 unsure between empty and White while the board also shows c1-c3: both b1-b2 + c1-c3 and c1-c3 are legal."""
    ref = Referee()
    after = apply_turn(START, "c1-c3")
    v = ref.judge(reading_of(after, {7: [0.5, 0.45, 0.05], 1: [0.45, 0.5, 0.05]}))
    assert v.kind == QUESTION and "more than one legal position" in v.reason
    assert [str(c.turn) for c in v.candidates] == ["c1-c3", "b1-b2 c1-c3"]  # the more likely first
    assert all(c.kind == ACCEPTED for c in v.candidates) and (v.squares, v.points) == ((1, 7), ())
    assert v.position == START and ref.position == START  # nothing is played until one is picked
    ref.accept(v.candidates[1])
    assert ref.position == apply_turn(START, "b1-b2 c1-c3")
    # with nobody to ask (the audit): unreadable, check those fields
    unasked = v.unasked()
    assert unasked.kind == UNREADABLE and not unasked.candidates
    assert "more than one legal position" in unasked.reason and unasked.reason.endswith("confirm again")


def test_too_many_legal_readings_are_unreadable_not_a_question():
    """a1, b1, d1 unsure between White and empty, a2, b2, d2 between empty and White, after c1-c3: each
    robot may have stepped forward or not, more legal turns than a question offers."""
    ref = Referee()
    after = apply_turn(START, "c1-c3")
    unsure = {s: [0.45, 0.5, 0.05] for s in (0, 1, 3)} | {s: [0.5, 0.45, 0.05] for s in (6, 7, 9)}
    v = ref.judge(reading_of(after, unsure))
    assert v.kind == UNREADABLE and "more than one legal position" in v.reason


def test_unsure_and_illegal_is_unreadable_not_rejected():
    ref = Referee()
    board = Placement(START.white - {2} | {20}, START.black, START.batteries)
    v = ref.judge(reading_of(board, {32: [0.4, 0.1, 0.5]}))
    assert v.kind == UNREADABLE
    assert "no reading of those fields is a legal turn" in v.reason


def test_the_verdict_on_unsure_fields_repeats_the_cameras_word_on_why():
    """What the players can fix: an unreadable verdict or a question about unsure fields says why the
    camera is unsure of them, where it says (a robot that may hide a point, a colour it cannot tell);
    an accepted verdict says nothing of it, nor does a reading whose camera gives no cause."""
    ref = Referee()
    board = Placement(START.white - {2} | {20}, START.black, START.batteries)
    why = {"a6": "a robot whose colour is unclear (55% White's colour)"}
    v = ref.judge(reading_of(board, {32: [0.4, 0.1, 0.5]}, doubts=why))
    assert v.kind == UNREADABLE and "no reading of those fields is a legal turn" in v.reason
    assert v.reason.endswith("[camera: a6: a robot whose colour is unclear (55% White's colour)]")
    assert "[camera:" not in ref.judge(reading_of(board, {32: [0.4, 0.1, 0.5]})).reason
    after = apply_turn(START, "c1-c3")
    q = ref.judge(reading_of(after, {7: [0.5, 0.45, 0.05], 1: [0.45, 0.5, 0.05]},
                             doubts={"b1": "w1", "b2": "w2", "C2": "w3", "D2": "w4", "E2": "w5"}))
    assert q.kind == QUESTION and q.reason.endswith("[camera: b1: w1; b2: w2; C2: w3; D2: w4; 1 more]")
    assert q.unasked().reason.endswith("1 more]")
    ok = ref.judge(reading_of(after, {14: [0.45, 0.5, 0.05]}, doubts={"c3": "unsure"}))
    assert ok.kind == ACCEPTED and "camera" not in (ok.reason or "")


def test_hand_over_the_board_is_unreadable():
    ref = Referee()
    r = reading_of(START, {s: [0.34, 0.33, 0.33] for s in range(12, 20)},
                   reason="something covers the board (30% of it unexplained): a hand or an object over the board?",
                   occluded_fraction=0.3)
    v = ref.judge(r)
    assert v.kind == UNREADABLE and "hand" in v.reason


def test_too_many_unsure_fields():
    ref = Referee(max_uncertain=3)
    v = ref.judge(reading_of(START, {s: [0.5, 0.45, 0.05] for s in range(12, 17)}))
    assert v.kind == UNREADABLE and "cannot be read with confidence" in v.reason


def _row_two_hidden(lean: float, names: tuple[str, ...]):
    """White's first turn, each of ``names`` (points) read in its true state at ``lean`` only (as
    points behind tall robots are)."""
    from companion.rules.geometry import point_name

    after = apply_turn(START, "a1-a2 b1-b2 c1-c2 d1-d2 e1-e2 f1-f2")
    index = {point_name(i): i for i in range(49)}
    unsure = {("p", index[n]): [1 - lean, lean] if index[n] in after.batteries else [lean, 1 - lean]
              for n in names}
    return after, reading_of(after, unsure, threshold=0.98)


ROW_TWO = ("A2", "B2", "C2", "D2", "E2", "F2", "G2", "A3")


def test_eight_doubtful_points_the_rules_settle_are_taken():
    """Seven points behind a row of robots and one more, each leaning its true way: 256 boards, of
    which only the true one has 14 batteries and a legal turn at states the camera gives a chance.
    With the bound of six unsure fields of before, unreadable."""
    after, reading = _row_two_hidden(0.97, ROW_TWO)
    v = Referee().judge(reading)
    assert v.kind == ACCEPTED and str(v.turn) == "a1-a2 b1-b2 c1-c2 d1-d2 e1-e2 f1-f2" and v.position == after
    assert Referee(max_uncertain=6).judge(reading).kind == UNREADABLE
    # leaning only 0.7 each way: a battery gone from A2 to A3 fits as well, and is asked about, never taken
    _, loose = _row_two_hidden(0.7, ROW_TWO)
    w = Referee().judge(loose)
    assert w.kind in (QUESTION, UNREADABLE) and "A2" in w.reason and "A3" in w.reason


def test_more_boards_than_the_bound_are_unreadable_however_few_the_fields():
    """The work grows with the boards tried (the product of each unsure field's states), not the fields:
    twelve doubtful points are 4,096 boards, over MAX_BOARDS (1,024); a field with one state the camera
    gives a chance adds none."""
    from companion.referee.referee import MAX_BOARDS, _boards

    names = ROW_TWO + ("B3", "C3", "D3", "E3")
    _, reading = _row_two_hidden(0.97, names)
    assert 2 ** len(names) > MAX_BOARDS >= 2 ** len(ROW_TWO)
    v = Referee(max_uncertain=40).judge(reading)
    assert v.kind == UNREADABLE and "12 fields cannot be read with confidence" in v.reason
    assert Referee(max_uncertain=40, max_boards=2 ** len(names)).judge(reading).kind == ACCEPTED
    sp = [[0.5, 0.5, 0.0], [0.9995, 0.0005, 0.0], [0.4, 0.3, 0.3]]
    assert _boards(sp, [[0.5, 0.5]], (0, 1, 2), (0,)) == 2 * 1 * 3 * 2


def test_only_the_likeliest_reading_is_diagnosed_and_the_search_stops_once_too_many_legal_readings_rival(
        monkeypatch):
    """Ten doubtful points each at 50% (1,024 boards, 120 of them with 14 batteries): on a board no legal
    turn makes, every plausible reading is asked of the rules, only the first with its diagnosis (which it
    says); where the readings are legal, the search stops at the fifth legal one (a question offers four):
    unreadable, the two first legal readings named as before."""
    import companion.referee.referee as referee_module

    calls: list[bool] = []
    real = referee_module.explain

    def counting(before, board, rules, *, diagnose=True):  # noqa: ANN001, ANN202
        calls.append(diagnose)
        return real(before, board, rules, diagnose=diagnose)

    monkeypatch.setattr(referee_module, "explain", counting)
    names = ROW_TWO + ("B3", "C3")
    after, legal = _row_two_hidden(0.5, names)
    v = Referee().judge(legal)
    assert v.kind == UNREADABLE and "more than one legal position" in v.reason
    assert calls.count(True) == 1 and len(calls) < 40            # stopped long before the 120
    bad = Placement(after.white - {6} | {20}, after.black, after.batteries)    # a robot where none can be
    unsure = {("p", p): [0.5, 0.5] for p in legal.unsure_points}
    calls.clear()
    w = Referee().judge(reading_of(bad, unsure, threshold=0.98))
    assert w.kind == UNREADABLE and "no reading of those fields is a legal turn; as read it would be illegal" in w.reason
    assert calls[0] is True and calls.count(True) == 1 and len(calls) == 120      # C(10, 7): 14 batteries


def test_undo_and_replay():
    ref = Referee()
    ref.replay(["c1-c3", "c6-c4"])
    assert len(ref.history) == 2
    last = ref.undo()
    assert str(last.turn) == "c6-c4"
    assert ref.position == apply_turn(START, "c1-c3")


def test_game_over_after_win():
    pos = Position.from_string("1BBBBB/W5/6/6/6/6 7/xxxxxxx/7/7/7/xxxxxxx/7 w")
    ref = Referee(position=pos)
    v = ref.judge(Placement(frozenset({30}), pos.black - {30}, pos.batteries))
    assert v.kind == ACCEPTED and v.status.result == "white wins"
    ref.accept(v)
    assert ref.judge(Placement(frozenset({30}), pos.black - {30}, pos.batteries)).kind == UNCHANGED
    v2 = ref.judge(Placement(frozenset({31}), pos.black - {30}, pos.batteries))
    assert v2.kind == GAME_OVER
    with pytest.raises(ValueError):
        ref.accept(v2)


def test_options_reach_the_referee():
    ref = Referee(rules=Rules.from_names(["must-capture"]),
                  position=Position.from_string("BBBBB1/6/6/6/2B3/WWWWWW 7/xxxxxxx/7/7/7/xxxxxxx/7 w"))
    v = ref.judge(apply_turn(ref.position, "a1-a2"))
    assert v.kind == REJECTED and "must-capture" in v.reason


def test_R19_a_board_read_with_a_stack_is_a_rejected_turn_without_stacking():
    ref = Referee()
    board = Placement.from_string("BBBBBB/6/6/6/2W3/WW1WWW 7/xxxxxxx/7/7/7/xxy1xxx/7")  # c1-c2, D2 onto C2
    v = ref.judge(board)
    assert v.kind == REJECTED
    assert "stacks need the option stacking (R-19)" in v.reason
    assert v.points == (9,)  # C2


def test_a_stacking_step_is_accepted_under_stacking():
    ref = Referee(rules=Rules.from_names(["stacking"]))
    board = Placement.from_string("BBBBBB/6/6/6/2W3/WW1WWW 7/xxxxxxx/7/7/7/xxy1xxx/7")
    v = ref.judge(board)
    assert v.kind == ACCEPTED and str(v.turn) == "c1-c2 D2-C2"
    assert v.position.height(9) == 2


def test_a_stale_verdict_is_not_played():
    """accept() plays a verdict only on the position it was judged on (the turn is not played a second time)."""
    ref = Referee()
    first = ref.judge(reading_of(apply_turn(START, "c1-c3")))
    other = ref.judge(reading_of(apply_turn(START, "d1-d3")))
    ref.accept(first)
    with pytest.raises(ValueError, match="judged on another position"):
        ref.accept(other)
    assert ref.position == apply_turn(START, "c1-c3") and len(ref.history) == 1


def test_a_likely_enough_legal_reading_is_asked_about_not_dropped():
    """A turn read by the any-set reader in a game (design 9,300,022, camera 0, turn 10): a battery left
    standing at D5 read empty at 0.914, the point B5 that a battery left read as a battery at 0.175.
    Trying only states the camera gives at least ``min_field_prob`` (0.12) dropped D5's battery, and the
    one legal reading left was a turn nobody made, only 2.3 times as likely as the true one. Both are
    legal and about as likely: the players are asked, the true turn among the candidates."""
    pos = Position.from_string("6/BWB2B/1W1B2/W3W1/3B1W/6 7/1x1x2x/1x1xx2/xxx4/xx3x1/3x2x/7 b")
    board = Placement(frozenset({11, 12, 16, 19}), frozenset({3, 18, 20, 25, 28}),
                      frozenset({10, 13, 14, 15, 16, 19, 22, 24, 28, 32, 36, 38, 41}))
    unsure = {("p", 10): [0.093, 0.907], ("p", 22): [0.06, 0.94], ("p", 29): [0.825, 0.175],
              ("p", 31): [0.914, 0.086], ("p", 41): [0.481, 0.519]}
    truth = apply_turn(pos, "d2-d1 d4-c4 a5-a4 c5xb5 f5-e5 A4-D4 B5-A5 C4-C3")
    v = Referee(position=pos).judge(reading_of(board, unsure, threshold=0.98))
    assert v.kind == QUESTION, v.line()
    assert truth in [c.position for c in v.candidates] and len(v.candidates) == 2
    assert v.points == (29, 31)                      # where the two readings differ: B5 and D5


def test_a_legal_reading_far_less_likely_than_the_likeliest_is_asked_about_unless_the_referee_may_weigh_it():
    """b2 read empty at 0.975, White at 0.012: b1-b2 c1-c3 is legal too, 90 times less likely than
    c1-c3. A doubtful field's leaning is no calibrated probability (``DECISIVE``): the referee asks.
    Told to weigh such odds (``decisive`` 50), it takes c1-c3; a state the camera gives less than
    ``TRY_FLOOR`` is not tried at all."""
    after = apply_turn(START, "c1-c3")
    r = reading_of(after, {7: [0.975, 0.012, 0.013], 1: [0.45, 0.5, 0.05]}, threshold=0.98)
    v = Referee().judge(r)
    assert v.kind == QUESTION and [str(c.turn) for c in v.candidates] == ["c1-c3", "b1-b2 c1-c3"]
    v = Referee(decisive=50).judge(r)
    assert v.kind == ACCEPTED and str(v.turn) == "c1-c3"
    r = reading_of(after, {7: [0.9745, 0.0005, 0.025], 1: [0.45, 0.5, 0.05]}, threshold=0.98)
    v = Referee().judge(r)
    assert v.kind == ACCEPTED and str(v.turn) == "c1-c3"


def test_the_only_legal_reading_on_a_state_the_camera_thinks_unlikely_is_not_taken():
    """a1 read White at 0.89, empty at 0.08 after a1-a2: only 'empty' is legal, but the camera gave it
    less than ``min_field_prob``: the players are asked to check the board (the audit, with one photo,
    tries lower)."""
    after = apply_turn(START, "a1-a2")
    v = Referee().judge(reading_of(after, {0: [0.08, 0.89, 0.03]}))
    assert v.kind == UNREADABLE and "thinks unlikely" in v.reason and v.squares == (0,)


def test_a_turn_forced_by_a_doubtful_field_is_asked_when_a_nearly_sure_field_may_be_the_misread():
    """After c1-c3 (no battery moved) the camera misses the battery at D2, read empty at 0.988 (sure
    enough not to be doubtful), and the empty D3 beside it is doubtful (a battery at 0.23). Taking D2 as
    read, only a battery at D3 gives 14: c1-c3 D2-D3, a turn nobody made, was accepted (the any-set
    reader's benchmark, design 11,000,000 camera 1). That turn needs D3 in its less likely state, so D2,
    read below NEAR_SURE, is tried as a battery too: c1-c3 is legal and 1/25 as likely, a rival: asked."""
    after = apply_turn(START, "c1-c3")
    r = reading_of(after, {("p", 10): [0.988, 0.012], ("p", 17): [0.77, 0.23]}, threshold=0.98)
    v = Referee().judge(r)
    assert v.kind == QUESTION, v.line()
    assert [str(c.turn) for c in v.candidates] == ["c1-c3 D2-D3", "c1-c3"]
    assert v.points == (10, 17)                      # where the two readings differ: D2 and D3


def test_a_battery_read_empty_at_0_997_is_a_nearly_sure_field_the_turn_may_rest_on_a_misread_of():
    """The same board with D2 read empty at 0.997 and D3 behind a robot doubtful (a battery at 0.26):
    the any-set reader's benchmark had such a misread (design 19,500,011 camera 1: a small blank battery
    beside a robot that had just come), and the battery step it made the only legal turn was accepted.
    D2 is tried as a battery too (below NEAR_SURE): asked. A field read surer than NEAR_SURE is taken
    as read."""
    after = apply_turn(START, "c1-c3")
    r = reading_of(after, {("p", 10): [0.997, 0.003], ("p", 17): [0.74, 0.26]}, threshold=0.98)
    v = Referee().judge(r)
    assert v.kind == QUESTION, v.line()
    assert [str(c.turn) for c in v.candidates] == ["c1-c3 D2-D3", "c1-c3"]
    r = reading_of(after, {("p", 10): [0.9995, 0.0005], ("p", 17): [0.74, 0.26]}, threshold=0.98)
    v = Referee().judge(r)
    assert v.kind == ACCEPTED and str(v.turn) == "c1-c3 D2-D3"


def test_a_turn_forced_by_a_doubtful_field_is_taken_when_no_nearly_sure_field_offers_another():
    """c3 read empty at 0.55, White at 0.4 after c1-c3: only White is legal (five White robots
    otherwise); every other field is read surely (no field below NEAR_SURE): c1-c3 is taken."""
    after = apply_turn(START, "c1-c3")
    v = Referee().judge(reading_of(after, {14: [0.55, 0.4, 0.05]}))
    assert v.kind == ACCEPTED and str(v.turn) == "c1-c3"
