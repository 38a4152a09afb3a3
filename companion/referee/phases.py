"""The phases of the game loop (see :mod:`companion.referee.game`) and why a check runs."""

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
