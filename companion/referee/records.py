"""What the game loop writes beside the turns: the journal's events, rejections and ends of games,
and the frame archive (the start frame of each game, the frame of every judged confirm press).

Writing any of these may fail (a full disk, a damaged folder): the failure is logged and the
game goes on. Only an accepted turn must be on disk before its green light: the loop writes
those itself (:meth:`companion.referee.journal.Journal.record_turn`)."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .journal import Journal, JournalError


class GameRecords:
    """The journal's side records and the frames of the game ``game_id`` given to each call.

    ``frames``: a :class:`companion.referee.frames.FrameArchive`, or None (no frames kept).
    ``log(kind, text)``: the loop's log."""

    def __init__(self, journal: Journal, frames: Any, log: Callable[[str, str], None]) -> None:
        self.journal = journal
        self.frames = frames
        self._log = log
        self._attempts: dict[int, int] = {}  # confirm presses judged per ply (the frames' names)

    def event(self, game_id: int | None, kind: str, detail: Any = None) -> None:
        """Record an event of the game; a journal that cannot take it is logged, never fatal."""
        try:
            self.journal.record_event(game_id, kind, detail)
        except JournalError as exc:
            self._log("info", f"event {kind!r} not written to the journal ({exc})")

    def finish(self, game_id: int | None, result: str, reason: str) -> None:
        """Close the game in the journal (on a failure it stays open there: the next start closes it)."""
        try:
            self.journal.finish_game(game_id, result, reason)
        except JournalError as exc:
            self._log("info", f"the end of game {game_id} not written to the journal ({exc}); "
                              "it is closed when the companion starts again")

    def recalibrated(self, game_id: int | None, ply: int, method: str) -> None:
        """The camera was calibrated again at ``ply`` (so that ``netzwerk games show`` tells why the
        readings changed there); nothing without a game."""
        if game_id is None:
            return
        try:
            self.journal.record_event(game_id, "recalibrated", {"ply": ply, "method": method})
        except JournalError as exc:
            self._log("info", f"recalibration not journalled: {exc}")

    def rejection(self, game_id: int | None, kind: str, reason: str, after: str | None) -> None:
        if game_id is None:
            return
        try:
            self.journal.record_rejection(game_id, kind, " ".join(reason.split()), after)
        except JournalError as exc:
            self._log("info", f"rejection not journalled: {exc}")

    def resume_frames(self, game_id: int) -> None:
        """Go on keeping the frames of a resumed game (if its start frame is kept)."""
        if self.frames is None:
            return
        try:
            if self.frames.resume_game(game_id) is None:
                self._log("info", f"no start frame of game {game_id} is kept: its frames cannot be "
                                  "audited, none are saved for it")
                self.frames.current = None
        except Exception as exc:
            self._log("info", f"frames of game {game_id} not continued: {exc}")

    def start_frames(self, game_id: int, image: np.ndarray | None, rules: list[str], start_position: str) -> None:
        """A new game: keep its start frame (``image``; None: no frame was seen)."""
        self._attempts = {}
        if self.frames is None or image is None:
            return
        try:
            self.frames.start_game(game_id, image, rules=rules, start_position=start_position)
        except Exception as exc:  # losing a frame must never stop a game
            self.frames.current = None
            self._log("info", f"start frame not saved: {exc}")

    def save_press(self, ply: int, image: np.ndarray) -> None:
        """Keep the frame of a judged confirm press of ``ply``."""
        if self.frames is None or getattr(self.frames, "current", None) is None:
            return
        self._attempts[ply] = self._attempts.get(ply, 0) + 1
        try:
            self.frames.save_press(image, ply, self._attempts[ply])
        except Exception as exc:  # keeping frames is for a later audit: never lose the game over it
            self._log("info", f"frame not saved: {exc}")
