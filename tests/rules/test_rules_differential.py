"""Differential test of ``apply_turn``: mutated (mostly illegal) turn strings
in random reachable positions. The engine must accept exactly the turns the
naive oracle accepts (same resulting position), and reject the others with
IllegalTurn (or, for a malformed order of moves, NotationError).
"""

from __future__ import annotations

import random

from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st

import naive
from companion.rules.errors import IllegalTurn, NotationError
from companion.rules.geometry import POINT_NAMES, SQUARE_NAMES
from situations import game_situations, rules_for


def mutate(turn: str, rng: random.Random) -> str:
    """One small change to a legal turn string."""
    toks = turn.split()
    i = rng.randrange(len(toks))
    kind = rng.choice(["nudge", "nudge", "sep", "drop", "swap", "dup", "add-robot", "add-battery", "src"])
    t = toks[i]
    robot = t[0].islower()
    names = SQUARE_NAMES if robot else POINT_NAMES
    width = 6 if robot else 7
    if kind == "nudge":  # destination one step off along a file/rank or line
        dst = names.index(t[3:])
        f, r = dst % width, dst // width
        df, dr = rng.choice([(1, 0), (-1, 0), (0, 1), (0, -1)])
        if 0 <= f + df < width and 0 <= r + dr < width:
            toks[i] = t[:3] + names[(r + dr) * width + f + df]
    elif kind == "sep" and robot:  # '-' <-> 'x'
        toks[i] = t[:2] + ("x" if t[2] == "-" else "-") + t[3:]
    elif kind == "drop" and len(toks) > 1:
        del toks[i]
    elif kind == "swap" and len(toks) > 1:
        j = rng.randrange(len(toks))
        if toks[i][0].islower() == toks[j][0].islower():
            toks[i], toks[j] = toks[j], toks[i]
    elif kind == "dup":
        toks.insert(i + 1, t)
    elif kind == "add-robot":
        a, b = rng.randrange(36), rng.randrange(36)
        n_robot = sum(1 for x in toks if x[0].islower())
        toks.insert(rng.randint(0, n_robot), f"{SQUARE_NAMES[a]}{rng.choice('-x')}{SQUARE_NAMES[b]}")
    elif kind == "add-battery":
        a = rng.randrange(49)
        c, r = a % 7, a // 7
        dc, dr = rng.choice([(1, 0), (-1, 0), (0, 1), (0, -1)])
        k = rng.randint(1, 3)
        if 0 <= c + dc * k < 7 and 0 <= r + dr * k < 7:
            toks.append(f"{POINT_NAMES[a]}-{POINT_NAMES[(r + dr * k) * 7 + c + dc * k]}")
    elif kind == "src":  # move from a neighbouring start
        src = names.index(t[:2])
        f, r = src % width, src // width
        df, dr = rng.choice([(1, 0), (-1, 0), (0, 1), (0, -1)])
        if 0 <= f + df < width and 0 <= r + dr < width:
            toks[i] = names[(r + dr) * width + f + df] + t[2:]
    return " ".join(toks)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(game_situations(), st.integers(0, 2**32 - 1))
def test_engine_and_naive_agree_on_mutated_turns(situation, seed):
    from companion.rules.engine import apply_turn

    before, turn, options, _ = situation
    rng = random.Random(seed)
    bad = mutate(turn, rng)
    assume(bad != turn)
    toks = bad.split()
    well_formed = bool(toks) and toks[0][0].islower() and all(
        not (a[0].isupper() and b[0].islower()) for a, b in zip(toks, toks[1:])
    )
    try:
        expected = naive.apply(before, bad, options)
    except naive.NaiveIllegal as e:
        expected = e
    try:
        got = apply_turn(before, bad, rules_for(options))
    except IllegalTurn as e:
        got = e
    except NotationError as e:
        assert not well_formed, f"{bad!r} is well-formed but was refused as notation: {e}"
        got = e
    if isinstance(expected, naive.NaiveIllegal):
        event("illegal")
        assert isinstance(got, Exception), (
            f"engine accepted {bad!r} in {before} ({options}); naive: {expected}"
        )
    else:
        event("legal")
        assert not isinstance(got, Exception), (
            f"engine refused {bad!r} in {before} ({options}): {got}"
        )
        assert got == expected
