"""Text notations (docs/rules.md, section 5), R-13 and R-17, rules profile names
(section 4): parse errors, canonical output, round trips. Engine API only.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.rules.errors import IllegalTurn, NotationError
from companion.rules.geometry import BLACK, WHITE
from companion.rules.position import Position, START_STRING
from referees import board

START = "BBBBBB/6/6/6/6/WWWWWW 7/xxxxxxx/7/7/7/xxxxxxx/7 w"
BATS = "7/xxxxxxx/7/7/7/xxxxxxx/7"
ROBOTS = "BBBBBB/6/6/6/6/WWWWWW"


# ------------------------------------------------------- position string ----

def test_start_position_string():
    pos = Position.start()
    assert str(pos) == START == START_STRING
    assert Position.from_string(START) == pos
    assert len(pos.white) == 6 and len(pos.black) == 6 and len(pos.batteries) == 14
    assert pos.to_move is WHITE
    assert {s // 6 for s in pos.white} == {0} and {s // 6 for s in pos.black} == {5}
    assert {p // 7 for p in pos.batteries} == {1, 5}


def test_position_coordinates():
    """Section 1 geometry: ranks 6 down to 1, files a..f; lines 7 down to 1, points A..G."""
    pos = Position.from_string("5W/6/6/6/6/B5 6x/7/7/7/xxxxxxx/xxxxxx1/7 w")
    assert pos.white == frozenset({35})  # f6
    assert pos.black == frozenset({0})  # a1
    assert 48 in pos.batteries  # G7
    assert set(range(14, 21)) <= pos.batteries  # A3..G3 (line 3)
    assert set(range(7, 13)) <= pos.batteries  # A2..F2 (line 2)
    assert len(pos.batteries) == 14


@pytest.mark.parametrize("text,token", [
    # a rank that does not add up to exactly 6 squares
    ("BBBBB/6/6/6/6/WWWWWW " + BATS + " w", "BBBBB"),
    ("BBBBBBB/6/6/6/6/WWWWW " + BATS + " w", "BBBBBBB"),
    ("BBBBBB/5W1/6/6/6/WWWWW " + BATS + " w", "5W1"),
    # a line that does not add up to 7 points
    (ROBOTS + " 7/xxxxxx/7/7/7/xxxxxxxx/7 w", "xxxxxx"),
    (ROBOTS + " 6/xxxxxxx/7/7/7/xxxxxxx/7 w", "6"),
    # digit 0, or above 6 in a rank / above 7 in a line
    ("BBBBBB/06/6/6/6/WWWWWW " + BATS + " w", "0"),
    ("BBBBBB/7/6/6/6/WWWWWW " + BATS + " w", "7"),
    (ROBOTS + " 07/xxxxxxx/7/7/7/xxxxxxx/7 w", "0"),
    (ROBOTS + " 8/xxxxxxx/7/7/7/xxxxxxx/7 w", "8"),
    # other than 6 ranks or 7 lines
    ("BBBBBB/6/6/6/WWWWWW " + BATS + " w", "BBBBBB/6/6/6/WWWWWW"),
    ("BBBBBB/6/6/6/6/6/WWWWWW " + BATS + " w", "BBBBBB/6/6/6/6/6/WWWWWW"),
    (ROBOTS + " xxxxxxx/7/7/7/xxxxxxx/7 w", "xxxxxxx/7/7/7/xxxxxxx/7"),
    (ROBOTS + " 7/7/xxxxxxx/7/7/7/xxxxxxx/7 w", "7/7/xxxxxxx/7/7/7/xxxxxxx/7"),
    # more than 6 robots of one colour
    ("BBBBBB/B5/6/6/6/WWWWWW " + BATS + " w", "7"),
    ("BBBBBB/6/6/6/W5/WWWWWW " + BATS + " w", "7"),
    # other than 14 batteries
    (ROBOTS + " 7/xxxxxxx/7/7/7/xxxxxx1/7 w", "13"),
    (ROBOTS + " x6/xxxxxxx/7/7/7/xxxxxxx/7 w", "15"),
    # a side other than lower-case w or b
    (ROBOTS + " " + BATS + " W", "W"),
    (ROBOTS + " " + BATS + " B", "B"),
    (ROBOTS + " " + BATS + " white", "white"),
    (ROBOTS + " " + BATS + " x", "x"),
    # a missing or extra field
    (ROBOTS + " " + BATS, None),
    (ROBOTS + " " + BATS + " w w", None),
    (ROBOTS, None),
    ("", None),
    # any other character (case matters)
    ("BBBBBB/6/6/6/6/wWWWWW " + BATS + " w", "w"),
    ("bBBBBB/6/6/6/6/WWWWWW " + BATS + " w", "b"),
    (ROBOTS + " 7/Xxxxxxx/7/7/7/xxxxxxx/7 w", "X"),
    (ROBOTS + " 7/xxxxxxx/7/7/7/xxxoxxx/7 w", "o"),
    ("BBBBBB/6/6/6/6/WWWWW. " + BATS + " w", "."),
    ("BBBBBB/6/6/6/6/WWWWWW " + BATS.replace("7/7/7", "7/7-7") + " w", "-"),
])
def test_position_parse_errors(text, token):
    """Section 5: each rejection of the position parser, with a message that
    says what is wrong (naming the offending token where there is one)."""
    with pytest.raises(NotationError) as exc:
        Position.from_string(text)
    msg = str(exc.value)
    assert msg.strip()
    if token is not None:
        assert token in msg, msg


def test_position_parse_error_is_not_a_bare_index_or_key_error():
    for text in ["", "/", "//////// //////// w", "9 9 9", "W" * 40 + " x w"]:
        with pytest.raises(NotationError):
            Position.from_string(text)


def test_R17_whitespace_and_canonical_output():
    """R-17: runs of whitespace separate fields; output is canonical (digits
    merged)."""
    lenient = "  BBBBBB/33/6/111111/6/WWWWWW \t 7/xxxxxxx/34/7/1111111/xxxxxxx/7 \n w  "
    pos = Position.from_string(lenient)
    assert pos == Position.start()
    assert str(pos) == START


def test_R17_zero_robots_is_a_valid_position():
    """R-17: a colour with 0 robots is a valid position (the game is over)."""
    pos = Position.from_string("6/6/6/6/6/3W2 " + BATS + " b")
    assert pos.black == frozenset() and len(pos.white) == 1
    assert str(pos) == "6/6/6/6/6/3W2 " + BATS + " b"


@st.composite
def positions(draw):
    squares = draw(st.lists(st.integers(0, 35), unique=True, max_size=12))
    n_white = draw(st.integers(0, min(6, len(squares))))
    white = frozenset(squares[:n_white])
    black = frozenset(squares[n_white:n_white + 6])
    bats = frozenset(draw(st.lists(st.integers(0, 48), unique=True, min_size=14, max_size=14)))
    side = draw(st.sampled_from([WHITE, BLACK]))
    return Position(white, black, bats, side)


@settings(max_examples=200, deadline=None)
@given(positions())
def test_position_string_round_trip(pos):
    """Section 5: parse(format(p)) == p, and the format is canonical (no two
    digits in a row, each rank/line adds up)."""
    s = str(pos)
    assert Position.from_string(s) == pos
    robots, bats, side = s.split(" ")
    for field, width in ((robots, 6), (bats, 7)):
        for row in field.split("/"):
            assert not any(a.isdigit() and b.isdigit() for a, b in zip(row, row[1:]))
            assert sum(int(c) if c.isdigit() else 1 for c in row) == width
    assert side in ("w", "b")


# ----------------------------------------------------------- turn string ----

def test_turn_parse_and_canonical_string():
    from companion.rules.moves import BatteryMove, RobotMove, Turn

    t = Turn.parse("c1-c2 d1-d3 C2-C3 E2-E1")
    assert str(t) == "c1-c2 d1-d3 C2-C3 E2-E1"
    assert RobotMove is not None and BatteryMove is not None
    assert str(Turn.parse("d4xd5")) == "d4xd5"


@pytest.mark.parametrize("text", [
    "a1-a2", "d4xd5", "c1-c3 b1-b2", "c1-c2 C2-C3", "c1-c2 d1-d3 C2-C3 E2-E1",
    "f6-a6 G7-A7 A1-G1", "a1xb1 c1xc2 A2-A1",
])
def test_turn_string_round_trip(text):
    from companion.rules.moves import Turn

    t = Turn.parse(text)
    assert str(t) == text
    assert str(Turn.parse(str(t))) == text
    assert Turn.parse(str(t)) == t


def test_R17_turn_whitespace():
    """R-17: runs of whitespace separate moves; output is canonical."""
    from companion.rules.moves import Turn

    t = Turn.parse("  c1-c2 \t d1-d3\n  C2-C3   E2-E1 ")
    assert str(t) == "c1-c2 d1-d3 C2-C3 E2-E1"


@pytest.mark.parametrize("text,token", [
    # unknown or off-board coordinates
    ("c1-c2 g7-g8", "g7"),
    ("c0-c1", "c0"),
    ("c6-c7", "c7"),
    ("c1-c2 H2-H3", "H2"),
    ("c1-c2 A7-A8", "A8"),
    ("c1-C2", "C2"),
    ("C1-c2", ("C1-c2", "C1", "c2")),
    ("c1-c2 C2-c3", "c3"),
    ("c1c2", "c1c2"),
    ("c1--c2", "c1--c2"),
    ("c1-c2-c3", "c1-c2-c3"),
    ("c1+c2", "c1+c2"),
    ("c1-c2 foo", "foo"),
    # interpretation: a battery never captures, so 'x' in a battery move is malformed
    ("c1-c2 C2xC3", "C2xC3"),
    # a robot move after a battery move
    ("c1-c2 C2-C3 d1-d2", "d1-d2"),
    ("c1-c2 C2-C3 E2-E3 d1xd2", "d1xd2"),
    # a battery move with no robot move before it
    ("C2-C3", "C2-C3"),
    ("C2-C3 E2-E1", "C2-C3"),
    # an empty turn
    ("", None),
    ("   \t ", None),
])
def test_turn_parse_errors(text, token):
    """Section 5: the turn parser's rejections, each message naming the
    offending token."""
    from companion.rules.moves import Turn

    with pytest.raises(NotationError) as exc:
        Turn.parse(text)
    msg = str(exc.value)
    assert msg.strip()
    if token is not None:
        tokens = token if isinstance(token, tuple) else (token,)
        assert any(t in msg for t in tokens), msg


def test_battery_move_before_robot_move_is_a_parse_error():
    """Section 5: 'C2-C3 c1-c2' is both a battery move with no robot move
    before it and a robot move after a battery move; either token may be named."""
    from companion.rules.moves import Turn

    with pytest.raises(NotationError) as exc:
        Turn.parse("C2-C3 c1-c2")
    assert "C2-C3" in str(exc.value) or "c1-c2" in str(exc.value)


@pytest.mark.parametrize("text", ["c3-c3", "c2xc3", "c2-c3", "c2-c3 C2-C5", "c2-c3 C2-C2"])
def test_R13_position_dependent_notation_parses(text):
    """R-13: these are well-formed turns; only the position can make them
    illegal, so the parser accepts them."""
    from companion.rules.moves import Turn

    assert str(Turn.parse(text)) == text


def r13_position():
    """White b2 c2 d2, Black c3 (and a6 b6); batteries B2 C2 D2 E2 B3 D3."""
    return board("b2 c2 d2", "c3 a6 b6", "B2 C2 D2 E2 B3 D3", "w", keep_empty="C3 C4 D4")


@pytest.mark.parametrize("turn,why", [
    ("c2-c2", "zero-length move"),
    ("c2-c3", "'-' onto an enemy robot"),
    ("b2xb3", "'x' onto an empty square"),
    ("c2xd2", "'x' onto an own robot"),
    ("b2-b3 C2-C4", "battery passing the first empty point C3"),
    ("b2-b3 D2-D3", "battery onto an occupied point (the first empty one is D4)"),
    ("b2-b3 C2-C2", "zero-length battery move"),
])
def test_R13_notation_checked_against_the_position(turn, why):
    """R-13: notation that does not match the board is an illegal turn
    (IllegalTurn with a reason), not a parse error."""
    from companion.rules.engine import apply_turn
    from companion.rules.options import Rules

    pos = r13_position()
    for ok in ("c2xc3", "b2-b3", "b2-b3 C2-C3", "b2-b3 D2-D4"):
        apply_turn(pos, ok, Rules())
    with pytest.raises(IllegalTurn) as exc:
        apply_turn(pos, turn, Rules())
    assert exc.value.reason.strip(), why


def test_apply_accepts_turn_object_and_string():
    from companion.rules.engine import apply_turn
    from companion.rules.moves import Turn
    from companion.rules.options import Rules

    pos = Position.start()
    a = apply_turn(pos, "c1-c2 C2-C3", Rules())
    b = apply_turn(pos, Turn.parse("c1-c2 C2-C3"), Rules())
    c = apply_turn(pos, "c1-c2 C2-C3")
    assert a == b == c
    assert a.to_move is BLACK
    assert str(a) == "BBBBBB/6/6/6/2W3/WW1WWW 7/xxxxxxx/7/7/2x4/xx1xxxx/7 b"


def test_apply_turn_parse_error_is_notation_error():
    from companion.rules.engine import apply_turn

    with pytest.raises(NotationError) as exc:
        apply_turn(Position.start(), "c1-c2 g7-g8")
    assert "g7" in str(exc.value)


# ---------------------------------------------------------------- profile ----

def test_rules_profile_names():
    """Section 4: the default profile is 'original'; every option can be
    switched on by name; an unknown name is a NotationError naming it."""
    from companion.rules.options import Rules

    Rules()
    for name in ["must-capture", "contested-frozen", "strength-capture", "jump-enemies",
                 "no-line-limit", "controlled-energy"]:
        Rules.from_names([name])
    Rules.from_names(["must-capture", "jump-enemies"])
    Rules.from_names(["stacking"])
    Rules.from_names(["stack-unsplit"])
    with pytest.raises(NotationError) as exc:
        Rules.from_names(["stacks"])
    assert "'stacks'" in str(exc.value)


def test_rules_profile_default_is_original():
    """Section 4: no option named = the default profile 'original'."""
    from companion.rules.options import Rules

    assert Rules.from_names([]) == Rules()
    assert Rules.from_names(["jump-enemies"]) != Rules()


def test_impossible_positions_are_rejected_with_a_reason():
    """Issue 2: two pieces on one square, more than 6 robots of a colour, a
    battery count other than 14 are rejected (NotationError, with a reason)."""
    bats = Position.start().batteries
    with pytest.raises(NotationError) as exc:
        Position(frozenset({0}), frozenset({0}), bats, WHITE)
    assert "a1" in str(exc.value)
    with pytest.raises(NotationError):
        Position(frozenset(range(7)), frozenset(), bats, WHITE)
    with pytest.raises(NotationError) as exc:
        Position(frozenset({0}), frozenset({35}), frozenset(list(bats)[:13]), WHITE)
    assert "13" in str(exc.value)
