"""The board's geometry as the camera sees it, in *board units* (1 = one square).

Board coordinates: x grows along the files (a..f, A..G), y along the ranks
(1..6, lines 1..7), both as White sees the board. Point (col, row) sits at
(col, row); square (file, rank) spans [file, file+1] x [rank, rank+1] with its
centre at (file + 0.5, rank + 0.5). Indices: square ``rank*6+file``, point
``row*7+col`` (the project's shared convention; vision keeps its own copy).
"""

from __future__ import annotations

import numpy as np

N_SQUARES = 36
N_POINTS = 49
FILES = "abcdef"
COLS = "ABCDEFG"


def square_name(index: int) -> str:
    return f"{FILES[index % 6]}{index // 6 + 1}"


def point_name(index: int) -> str:
    return f"{COLS[index % 7]}{index // 7 + 1}"


def square_centers() -> np.ndarray:
    """(36, 2) board coordinates of the square centres."""
    idx = np.arange(N_SQUARES)
    return np.stack([idx % 6 + 0.5, idx // 6 + 0.5], axis=1).astype(np.float64)


def point_coords() -> np.ndarray:
    """(49, 2) board coordinates of the points."""
    idx = np.arange(N_POINTS)
    return np.stack([idx % 7, idx // 7], axis=1).astype(np.float64)


# The four outer corners of the 6x6 field, in the order A1, G1, G7, A7.
FIELD_CORNERS = np.array([[0.0, 0.0], [6.0, 0.0], [6.0, 6.0], [0.0, 6.0]])
CORNER_NAMES = ("A1", "G1", "G7", "A7")


def field_neighbours() -> np.ndarray:
    """(85, 85) bool: which fields touch (the 36 squares, then the 49 points): a square and the
    squares beside it, a point and the points beside it on the lines, a square and its four corner
    points -- the fields whose centres lie at most one square apart."""
    c = np.concatenate([square_centers(), point_coords()])
    d = np.sqrt(((c[:, None, :] - c[None, :, :]) ** 2).sum(axis=2))
    near = d <= 1.0 + 1e-9
    np.fill_diagonal(near, False)
    return near


def touching_groups(fields: np.ndarray) -> list[list[int]]:
    """The groups of touching fields (:func:`field_neighbours`) among ``fields`` ((85,) bool: the
    squares, then the points), each a sorted list of field indices."""
    near = _NEIGHBOURS
    left = set(np.flatnonzero(fields).tolist())
    groups = []
    while left:
        todo = [left.pop()]
        group = []
        while todo:
            f = todo.pop()
            group.append(f)
            for g in np.flatnonzero(near[f]).tolist():
                if g in left:
                    left.discard(g)
                    todo.append(g)
        groups.append(sorted(group))
    return sorted(groups)


_NEIGHBOURS = field_neighbours()
