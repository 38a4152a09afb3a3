"""What the game loop shows of its phase between events: the status line and the turn LED.

The status line (systemd's ``STATUS=``, the web page) names the phase: waiting for the board
to calibrate, checking the board (and why), the game and turn with the player to move, the
result. On entering a phase the panel's turn LED shows the player to move while a game is
played (also during the check after a restart or an undo, when that player may still
confirm a turn), none otherwise; amber while the camera is not calibrated.
"""

from __future__ import annotations

from typing import Any, Callable

from .check import BoardCheck
from .phases import CHECK, OVER, PLAYING, RESUME, SETUP, UNDO
from .referee import Referee


def status_text(phase: str, check: BoardCheck, game_id: int | None, referee: Referee) -> str:
    """The status line of the loop in ``phase`` (``check``: the board check of the loop)."""
    if phase == SETUP:
        return "waiting for the board to calibrate the camera"
    if phase == CHECK:
        return f"checking the board ({check.purpose})"
    if phase == OVER:
        return f"game {game_id} over: {referee.status.result}"
    return f"game {game_id}, turn {len(referee.history) + 1}: {referee.position.to_move.label} to move"


def turn_light(phase: str, check: BoardCheck, game_id: int | None) -> bool:
    """Does the turn LED show the player to move in ``phase``?"""
    return phase == PLAYING or (phase == CHECK and game_id is not None and check.purpose in (RESUME, UNDO))


def show_phase(panel: Any, status: Callable[[str], None], phase: str, check: BoardCheck, game_id: int | None,
               referee: Referee) -> None:
    """The signals of a phase just entered: the turn LED, amber during setup, the status line
    (``status(text)``); the win pattern of ``over`` stays as it is."""
    if phase == OVER:
        return
    panel.show_turn(referee.position.to_move.name.lower() if turn_light(phase, check, game_id) else None)
    if phase == SETUP:
        panel.signal_unreadable()
    status(status_text(phase, check, game_id, referee))
