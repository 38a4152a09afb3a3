"""Energy (docs/rules.md, section 2.1): where a robot draws it, and whether a robot phase can pay.

A robot draws from the batteries on the four corner points of the square it
starts its move from (R-14), each battery gives at most one point per turn to
one robot, and control does not matter -- except under ``controlled-energy``
(R-10, :mod:`.variants.controlled_energy`), where only batteries the mover
controls by the normal rule count, judged at the start of the turn.  This module is the one home of that rule
(:func:`drawable`, :func:`sources_by_square`): the engine's robot phase
(apply, explain, outcomes, status), the game's energy gauge
(:func:`energy_available`) and the hints' Python search use it; the hints' compiled core has its port
(``fastcore.make_sources``), checked against it by a parity test.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .geometry import point_name, square_name
from .masks import CORNER_LAYERS, CORNER_MASK, LAYER, POINTS, bits, height, layered, mask_of, spread

if TYPE_CHECKING:
    from .options import Rules
    from .position import Position


def drawable(own: int, enemy: int, batteries: int, rules: Rules) -> int:
    """The batteries the side with robots ``own`` may draw energy from this turn.

    All of them (the profile's ``drawable`` hook); under ``controlled-energy``
    (R-10, :mod:`.variants.controlled_energy`) only the ones it controls by
    the normal rule of section 2.2, on the position at the start of the turn.
    """
    return rules.drawable(own, enemy, batteries)


def energy_available(pos: Position, rules: Rules) -> int:
    """Energy the player to move can draw this turn: the batteries on a corner of one of their
    robots (each gives one point per turn, every battery of a stack one, R-21); with
    ``controlled-energy`` only controlled ones."""
    own = mask_of(pos.robots(pos.to_move))
    enemy = mask_of(pos.robots(pos.to_move.other))
    allowed = spread(drawable(own, enemy, mask_of(pos.batteries), rules)) & layered(pos.batteries, pos.stacks)
    reach = 0
    for s in pos.robots(pos.to_move):
        reach |= CORNER_MASK[s]
    return (spread(reach) & allowed).bit_count()


def sources_by_square(own: int, enemy: int, batteries: int, rules: Rules) -> tuple[int, ...]:
    """Per start square: the batteries a robot starting its move there may draw from.

    ``batteries`` are layered (:func:`.masks.layered`): each battery of a
    stack is a bit of its own, so a stack of three on a corner gives three
    points (R-21) and a set of sources' bit count is its energy."""
    if not batteries >> LAYER:  # no stacks: one bit a battery as it is
        allowed = drawable(own, enemy, batteries, rules)
        return tuple(CORNER_MASK[s] & allowed for s in range(36))
    allowed = spread(drawable(own, enemy, batteries & POINTS, rules)) & batteries
    return tuple(CORNER_LAYERS[s] & allowed for s in range(36))


def hall_violation(demands: list[tuple[int, int]]) -> tuple[int, int, int] | None:
    """Check that each robot can get ``cost`` distinct batteries from its ``sources``.

    ``demands`` are (sources mask, cost).  By Hall's theorem for this
    b-matching (each battery gives at most one point per turn, to one robot)
    it is feasible iff every subset of robots has at least as many sources
    as it needs points.  Returns None if feasible, else the smallest violating
    subset as (subset bitmask over ``demands``, needed, available).
    """
    n = len(demands)
    worst = None
    for subset in range(1, 1 << n):
        union = 0
        need = 0
        for i in range(n):
            if subset >> i & 1:
                union |= demands[i][0]
                need += demands[i][1]
        have = union.bit_count()
        if need > have:
            if worst is None or subset.bit_count() < worst[0].bit_count():
                worst = (subset, need, have)
    return worst


def _source_name(union: int, p: int) -> str:
    h = height(union, p)
    return f"{point_name(p)} (a stack of {h})" if h > 1 else point_name(p)


def unsplit_message(chosen: list[tuple[int, int, str]], sources: tuple[int, ...]) -> str:
    """A player's sentence for a robot phase that ``stack-unsplit`` (R-21) cannot pay."""
    union = 0
    for s, _, _ in chosen:
        union |= sources[s]
    stacks = [p for p in bits(union & POINTS) if height(union, p) > 1]
    named = ", ".join(f"{point_name(p)} ({height(union, p)})" for p in stacks)
    who = " and ".join(f"{label} ({c})" for _, c, label in chosen)
    return (
        f"robots {who} cannot share the stack{'s' if len(stacks) != 1 else ''} {named}: under stack-unsplit "
        "a stack gives its energy to one robot only (R-21)"
    )


def energy_message(chosen: list[tuple[int, int, str]], sources: tuple[int, ...], rules: Rules) -> str:
    """A player's sentence for an energy shortage.

    ``chosen`` are the robots of a violating Hall subset as (start square,
    cost, label such as ``c2→c5``); ``sources`` the batteries each start square
    may draw from.
    """
    union = 0
    need = 0
    for s, c, _ in chosen:
        union |= sources[s]
        need += c
    have = union.bit_count()
    listed = f" ({', '.join(_source_name(union, p) for p in bits(union & POINTS))})" if have else ""
    restriction = rules.energy_restriction
    nb = f"{have} batter{'y' if have == 1 else 'ies'}"
    if len(chosen) == 1:
        s, cost, label = chosen[0]
        verb = "touches" if have == 1 else "touch"
        return f"robot {label} needs {cost} energy but only {nb}{restriction} {verb} {square_name(s)}{listed}"
    who = " and ".join(f"{label} ({c})" for _, c, label in chosen)
    return (
        f"robots {who} need {need} energy together but only {nb}{restriction} touch their start squares"
        f"{listed}: each battery gives one point per turn"
    )
