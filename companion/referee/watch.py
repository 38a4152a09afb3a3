"""Live watching (option ``live_watch``): during the robot phase every stable reading updates the
energy gauge (energy still available to the player to move) and warns (amber blink, pointer) when
a robot stands where no legal robot phase can have brought it."""

from __future__ import annotations

from typing import Any, Callable

from hardware.pointer import targets_at

from ..rules.energy import energy_available
from ..rules.engine import robot_phase_cost, robot_phase_outcomes
from ..rules.explain import explain
from ..rules.options import Rules
from ..rules.position import Placement, Position


class LiveWatch:
    """The energy gauge and the robot-phase warnings of one game loop.

    ``panel``: the loop's panel; ``log(kind, text, **where)``: the loop's log; ``enabled``: off,
    the gauge is never shown and boards are not watched."""

    def __init__(self, panel: Any, log: Callable[..., None], enabled: bool) -> None:
        self.panel = panel
        self.log = log
        self.enabled = enabled
        self.energy0 = 0  # energy the player to move could draw at the start of the turn
        self._key: tuple | None = None  # the robots last watched
        self._outcomes: tuple[Position, set] | None = None  # robot-phase outcomes of a position

    def restart(self, position: Position, rules: Rules) -> None:
        """A new turn (or the play goes on after a check): the full gauge of the player to move."""
        self.energy0 = energy_available(position, rules)
        self._key = None
        self.show(self.energy0)

    def forget(self) -> None:
        """Watch the next board afresh (the camera was recalibrated)."""
        self._key = None

    def see(self, board: Placement | None, position: Position, rules: Rules) -> None:
        """A stable reading's board during play."""
        if not self.enabled or board is None:
            return
        key = (board.white, board.black)
        if key == self._key:
            return
        self._key = key
        color = position.to_move
        if board.white == position.white and board.black == position.black:
            self.show(self.energy0)
            return
        if len(board.robots(color)) != len(position.robots(color)):
            return  # a robot in a hand: wait until it is set down
        if self._outcomes is None or self._outcomes[0] != position:
            self._outcomes = (position, robot_phase_outcomes(position, rules))
        robots_only = Placement(board.white, board.black, position.batteries)
        if (board.white, board.black) in self._outcomes[1]:
            ex = explain(position, robots_only, rules)
            cost = robot_phase_cost(position, ex.turn, rules) if ex.turn is not None else None
            if cost is not None:
                left = max(0, self.energy0 - cost)
                self.show(left)
                self.log("energy", f"{color.label}: {left} of {self.energy0} energy left after {ex.turn}")
            return
        ex = explain(position, robots_only, rules)
        squares = ex.squares or tuple(sorted((board.robots(color) - position.robots(color))))
        self.panel.blink_wrong_player()
        if squares:
            self.panel.show_sequence(targets_at(squares, blink=True))
        self.log("warning", f"no legal robot phase leads here: {ex.diagnosis or 'check the robots'}", squares=squares)

    def show(self, value: int) -> None:
        """The gauge at ``value`` of the turn's energy (off when the player has none)."""
        if not self.enabled:
            return
        if self.energy0 > 0:
            self.panel.show_gauge(min(value, self.energy0), self.energy0)
        else:
            self.panel.clear_gauge()
