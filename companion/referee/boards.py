"""Boards as the players and the camera see them: where a board differs from the one expected, and the camera's state index of a board's field."""

from __future__ import annotations

from ..rules.geometry import point_name, square_name
from ..rules.position import Placement


def square_state(board: Placement, s: int) -> int:
    """The camera's index of what ``board`` holds on square ``s``: 0 empty, 1 a White robot, 2 a Black one
    (the columns of a reading's square probabilities)."""
    return 1 if s in board.white else 2 if s in board.black else 0


def point_state(board: Placement, p: int) -> int:
    """The camera's index of what ``board`` holds at point ``p``: 0 empty, 1 a battery."""
    return 1 if p in board.batteries else 0


def first_difference(expected: Placement, seen: Placement) -> tuple[str, tuple[int, ...], tuple[int, ...]]:
    """(description, squares, points) of the first field where ``seen`` differs from ``expected``."""

    def sq_text(b: Placement, s: int) -> str:
        return "a White robot" if s in b.white else "a Black robot" if s in b.black else "empty"

    for s in range(36):
        if (s in expected.white, s in expected.black) != (s in seen.white, s in seen.black):
            return f"{square_name(s)} should be {sq_text(expected, s)}, the board shows {sq_text(seen, s)}", (s,), ()
    for p in range(49):
        if (p in expected.batteries) != (p in seen.batteries):
            want = "a battery" if p in expected.batteries else "empty"
            got = "a battery" if p in seen.batteries else "empty"
            return f"{point_name(p)} should be {want}, the board shows {got}", (), (p,)
    return "", (), ()


def count_differences(a: Placement, b: Placement) -> int:
    n = sum(1 for s in range(36) if (s in a.white, s in a.black) != (s in b.white, s in b.black))
    return n + len(a.batteries ^ b.batteries)


def differing_fields(a: Placement, b: Placement) -> list[str]:
    """Names of the fields where two boards differ, squares first (e.g. ``['c3', 'D4']``)."""
    out = [square_name(s) for s in range(36)
           if (s in a.white, s in a.black) != (s in b.white, s in b.black)]
    out += [point_name(p) for p in range(49) if (p in a.batteries) != (p in b.batteries)]
    return out


def differing_indices(boards: list[Placement]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(squares, points) where some of ``boards`` differ from the first."""
    first = boards[0]
    squares = tuple(s for s in range(36)
                    if any((s in b.white, s in b.black) != (s in first.white, s in first.black) for b in boards[1:]))
    points = tuple(p for p in range(49) if any((p in b.batteries) != (p in first.batteries) for b in boards[1:]))
    return squares, points
