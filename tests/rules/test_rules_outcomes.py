"""R-16 outcome sets (the perft of this game): the engine's robot-phase and
battery-phase outcome sets must equal the naive oracle's, for the default
profile and for each option (and all options together), from the start
position and from hand-chosen mid-game positions. The counts are asserted
exactly; they were worked out by the naive brute-force checker (``naive.py``)
and the start-position ones are also the spec's own figures (2,524 / 22,599).
"""

from __future__ import annotations

import pytest

import naive
from referees import EngineReferee
from companion.rules.geometry import BLACK
from companion.rules.position import Position

OPTION_SETS = [(), *[(o,) for o in naive.OPTIONS], tuple(naive.OPTIONS)]
OPTION_IDS = ["original", *naive.OPTIONS, "all-options"]

# position -> [(robot outcomes, battery outcomes)] in OPTION_SETS order
COUNTS = {
    # the start position (section 1); R-16 gives 2,524 and 22,599
    "BBBBBB/6/6/6/6/WWWWWW 7/xxxxxxx/7/7/7/xxxxxxx/7 w":
        [(2524, 22599), (2524, 22599), (2524, 22599), (2524, 22599), (2524, 22599),
         (2524, 48639), (2524, 22599), (2524, 48639)],
    # two fronts on ranks 3/4: captures of every strength (e3 is weaker than
    # e4), contested batteries between the fronts, enemies to jump
    "6/3B1B/BBB1B1/W1W1W1/1W1W1W/6 x5x/7/3xxx1/1x1x1x1/xxx1x2/7/x5x w":
        [(622, 8429), (402, 8429), (622, 324), (554, 8429), (758, 8429),
         (622, 13522), (466, 8429), (211, 506)],
    # captures available (c4, c3 against b4, d5, e3), own robots to jump (a2 b2)
    "B1B2B/3B2/1BW3/2W1B1/WW4/3W1W 7/x1x1x2/1x3x1/2xx3/x2x1x1/1x5/xxx4 w":
        [(206, 1425), (47, 1425), (206, 1425), (206, 1425), (206, 1425),
         (206, 2077), (206, 1425), (47, 2077)],
    # robots on the target rows (White a6 e6, Black a1 d1), Black to move
    "W1B1W1/5B/1W4/2B1W1/6/BW1B1W 3x3/x5x/1x3x1/2x4/x1x1x1x/1x3x1/x5x b":
        [(239, 27200), (120, 27200), (239, 1200), (239, 27200), (239, 27200),
         (239, 30240), (239, 27200), (120, 1200)],
    # a crowded battery block (B4..D6) with consecutive batteries to pass
    "1B4/1B2B1/1W4/3W1B/1W2W1/6 x5x/1xxx3/1x1x3/1xx4/1x2x2/7/4xxx w":
        [(163, 2046), (28, 2046), (163, 457), (163, 2046), (163, 2046),
         (163, 3532), (163, 2046), (28, 683)],
    # an endgame: 2 White robots against 1
    "6/2B3/6/1W4/4W1/6 7/2x4/1xx4/xx1x3/1x3xx/2xxxx1/3x3 w":
        [(47, 1425), (47, 1425), (47, 1425), (47, 1425), (47, 1425),
         (47, 2451), (47, 1425), (47, 2451)],
    # interleaved columns b/c, Black to move: jumps over own robots, captures
    "1BB3/1W1B2/1BW3/1WB3/1WB3/6 xx5/x1xx3/6x/xx1x3/2x1x2/x5x/4x2 b":
        [(879, 3530), (214, 3530), (879, 67), (879, 3530), (879, 3530),
         (879, 6524), (879, 3530), (214, 72)],
    # Black to move, captures both direct and after clearing moves
    "B2B2/1B2B1/2B2B/1WW3/W3WW/2W3 7/4x2/2x2xx/1x1x3/xx2xx1/2xx3/2xx3 b":
        [(689, 2045), (54, 2045), (689, 393), (689, 2045), (689, 2045),
         (689, 2595), (689, 2045), (54, 511)],
    # from a random game: jump-enemies and controlled-energy change the set
    "1B2B1/2B2B/6/1BBWW1/WW1WW1/6 3xxxx/x6/1x3x1/2x4/xxx4/6x/x4x1 b":
        [(254, 798), (102, 798), (254, 798), (254, 798), (271, 798),
         (254, 1122), (152, 798), (34, 1122)],
}

ENGINE = EngineReferee()
CASES = [(pos, i) for pos in COUNTS for i in range(len(OPTION_SETS))]
CASE_IDS = [f"{n}-{OPTION_IDS[i]}" for n, pos in enumerate(COUNTS) for i in range(len(OPTION_SETS))]

# To keep the suite fast, the two positions with the largest battery-phase
# sets are checked in the battery phase only with the default profile and the
# two options that concern battery moves (contested-frozen, no-line-limit);
# every other position is checked with every option set.
_BIG = {list(COUNTS)[0], list(COUNTS)[3]}
_BATTERY_OPTIONS = {i for i, o in enumerate(OPTION_SETS)
                    if o in ((), ("contested-frozen",), ("no-line-limit",))}
BATTERY_CASES = [(t, i) for (t, i) in CASES if t not in _BIG or i in _BATTERY_OPTIONS]
BATTERY_IDS = [cid for (t, i), cid in zip(CASES, CASE_IDS) if t not in _BIG or i in _BATTERY_OPTIONS]


@pytest.mark.parametrize("text,i", CASES, ids=CASE_IDS)
def test_robot_phase_outcomes_equal_naive(text, i):
    """R-16: the distinct robot placements after a legal robot phase of at
    least one move (under must-capture only capturing ones when any exists)."""
    pos = Position.from_string(text)
    options = OPTION_SETS[i]
    expected = naive.robot_outcomes(pos, options)
    assert len(expected) == COUNTS[text][i][0]
    got = ENGINE.robot_outcomes(pos, options)
    assert all(isinstance(w, frozenset) and isinstance(b, frozenset) for w, b in got)
    missing, extra = expected - got, got - expected
    assert not missing and not extra, (
        f"{len(missing)} missing, e.g. {_show_robots(pos, missing)}; "
        f"{len(extra)} extra, e.g. {_show_robots(pos, extra)}"
    )


@pytest.mark.parametrize("text,i", BATTERY_CASES, ids=BATTERY_IDS)
def test_battery_phase_outcomes_equal_naive(text, i):
    """R-16: the distinct battery placements after a legal battery phase of
    zero or more moves, robots as they stand, the side to move moving."""
    pos = Position.from_string(text)
    options = OPTION_SETS[i]
    expected = naive.battery_outcomes(pos, options)
    assert len(expected) == COUNTS[text][i][1]
    assert pos.batteries in expected  # zero moves
    got = ENGINE.battery_outcomes(pos, options)
    missing, extra = expected - got, got - expected
    assert not missing and not extra, (
        f"{len(missing)} missing, e.g. {_show_bats(pos, missing)}; {len(extra)} extra, e.g. {_show_bats(pos, extra)}"
    )


def test_start_position_counts_black_to_move():
    """R-1 + R-16: with Black starting, the same counts by symmetry."""
    pos = Position.start(BLACK)
    assert len(ENGINE.robot_outcomes(pos)) == 2524 == len(naive.robot_outcomes(pos))
    assert len(ENGINE.battery_outcomes(pos)) == 22599


def _show_robots(pos, placements):
    for w, b in sorted(placements, key=lambda k: (sorted(k[0]), sorted(k[1])))[:1]:
        return str(Position(w, b, pos.batteries, pos.to_move))
    return "-"


def _show_bats(pos, placements):
    for bats in sorted(placements, key=sorted)[:1]:
        return str(Position(pos.white, pos.black, bats, pos.to_move))
    return "-"
