"""The amber question: two or more legal turns fit a doubtful reading and a player picks one.

The referee's ``question`` verdict carries the candidates (accepted verdicts,
most likely first). The game loop shows them in turn on the panel, each for
``question_seconds``: amber, the pointer walking the candidate's moves (each
source blinking, then its destination) -- the fields in question are among
them, as the candidates differ there -- and the gauge lit to the candidate's
number of all. A confirm press of the player to move takes the candidate
shown; the journal records the choice (event ``chosen``). A different board
before the press (the players fixed the doubtful field) drops the question:
confirm again.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..cameras import Frame
from ..rules.geometry import point_name, square_name
from .referee import QUESTION, Verdict


@dataclass
class Question:
    """An open question of the game loop: what is shown, since when, and the board it is about."""

    verdict: Verdict  # kind QUESTION
    frame: Frame  # the frame judged (the chosen turn's frame)
    signature: tuple  # the reading judged: another stable board drops the question
    since: float  # clock time the shown candidate came up
    index: int = 0  # the candidate shown

    def __post_init__(self) -> None:
        if self.verdict.kind != QUESTION or len(self.verdict.candidates) < 2:
            raise ValueError("a question needs a question verdict with two or more candidates")

    @property
    def candidates(self) -> tuple[Verdict, ...]:
        return self.verdict.candidates

    @property
    def shown(self) -> Verdict:
        """The candidate the panel shows (the one a confirm press takes)."""
        return self.candidates[self.index]

    def due(self, now: float, seconds: float) -> bool:
        """Has the shown candidate been up for ``seconds``?"""
        return now - self.since >= seconds - 1e-9

    def next(self, now: float) -> Verdict:
        """Show the next candidate (after the last, the first again)."""
        self.index = (self.index + 1) % len(self.candidates)
        self.since = now
        return self.shown

    def fields(self) -> list[str]:
        """The names of the fields in question (where the candidates differ)."""
        return [square_name(s) for s in self.verdict.squares] + [point_name(p) for p in self.verdict.points]

    def record(self, ply: int) -> dict:
        """The journal's ``chosen`` event: the turn a player picked, of which, at which fields."""
        return {"ply": ply, "turn": str(self.shown.turn), "candidates": [str(c.turn) for c in self.candidates],
                "fields": self.fields()}
