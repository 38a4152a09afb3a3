"""The game loop's state machine (see :mod:`companion.referee.game`): its phases, the steps of a
turn, which phase may follow which, and why a check runs.

Phases: ``setup`` (no calibration yet) -> ``check`` (the board must show an expected
position) -> ``playing`` -> ``over`` (the win); an undo or a new game goes back to ``check``.

A turn's steps (in ``playing``, and in a resume or undo ``check``): ``idle`` -- a confirm
press -> ``waiting`` (for a stable reading after the press: :mod:`companion.referee.press`) --
the referee's verdict:

* accepted: journal, green, the next turn (or ``over``): ``idle``
* rejected, unchanged, unreadable at the timeout: red or amber: ``idle``
* unreadable before the timeout: amber, the board is read again: ``waiting``
* question: ``asking`` (the candidates in turn); a confirm press takes the one shown
  (accepted, as above); a different board, an undo or a new game drops it: ``idle``
"""

from __future__ import annotations

SETUP = "setup"
CHECK = "check"
PLAYING = "playing"
OVER = "over"

# Why a check is running.
START = "start"        # the first game of this run
NEW_GAME = "new-game"  # new game pressed
RESUME = "resume"      # restarted with an open game in the journal
UNDO = "undo"          # a turn was taken back: the board must be put back

# The steps of a turn.
IDLE = "idle"        # no confirm press pending
WAITING = "waiting"  # a confirm press waits for a stable reading
ASKING = "asking"    # a question verdict: the candidates are shown in turn, confirm picks one

#: the phases each phase may step to (anything else is a bug of the loop, not a game event)
NEXT: dict[str, frozenset[str]] = {
    SETUP: frozenset({SETUP, CHECK, OVER}),           # calibrated; a resumed game that was already won
    CHECK: frozenset({CHECK, SETUP, PLAYING, OVER}),  # the board matches; a turn confirmed during a resume check
    PLAYING: frozenset({PLAYING, CHECK, SETUP, OVER}),  # undo or new game; the win
    OVER: frozenset({OVER, CHECK, SETUP}),            # undo of the win, new game
}


def check_step(old: str, new: str) -> None:
    """Refuse a phase change the state machine does not have (a programming error)."""
    if new not in NEXT.get(old, frozenset()):
        raise RuntimeError(f"the game loop cannot go from phase {old!r} to {new!r}")
