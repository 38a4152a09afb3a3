"""The one error type for rejected input, and the one for illegal turns."""

from __future__ import annotations


class NotationError(ValueError):
    """A position string, turn string or coordinate that cannot be parsed.

    The message always names the offending token.
    """


class IllegalTurn(Exception):
    """A well-formed turn that the rules forbid in the given position.

    ``reason`` is a sentence a player understands; ``squares`` and ``points``
    name the pieces it concerns (for the panel's pointer LEDs).
    """

    def __init__(self, reason: str, squares: tuple[int, ...] = (), points: tuple[int, ...] = ()) -> None:
        super().__init__(reason)
        self.reason = reason
        self.squares = squares
        self.points = points
