"""A channel plays patterns on one output (an LED, the pointer chain, the buzzer).

A channel has a *base* pattern (what it shows) and may have a finite *overlay*
(a short flash, e.g. the wrong-player blink); when the overlay ends the base
pattern continues where it would be. Every change is applied by a scheduler
timer at the exact time the pattern says, and only when the value changes.
"""

from __future__ import annotations

import enum
import math
import threading
from dataclasses import dataclass
from typing import Callable, Hashable

from .patterns import Pattern, steady
from .timing import Scheduler, Timer


class LedMode(enum.Enum):
    OFF = "off"
    ON = "on"
    BLINKING = "blinking"


@dataclass(frozen=True)
class _Playing:
    pattern: Pattern
    start: float

    def at(self, now: float) -> tuple[Hashable, float]:
        return self.pattern.at(now - self.start)

    def finished(self, now: float) -> bool:
        return now - self.start + 1e-9 >= self.pattern.duration


class Channel:
    """One output driven by patterns on a scheduler. Thread-safe through ``lock``."""

    def __init__(self, name: str, apply: Callable[[Hashable], None], scheduler: Scheduler,
                 lock: threading.RLock, idle: Hashable = False) -> None:
        self.name = name
        self._apply = apply
        self._scheduler = scheduler
        self._lock = lock
        self._idle = idle
        self._base = _Playing(steady(idle, "off"), scheduler.now())
        self._overlay: _Playing | None = None
        self._timer: Timer | None = None
        self._value: Hashable = object()  # force the first apply
        self._closed = False
        self.update()

    # -- control -------------------------------------------------------------
    def play(self, pattern: Pattern) -> None:
        """Show ``pattern`` from now on (an overlay in progress keeps running)."""
        with self._lock:
            self._base = _Playing(pattern, self._scheduler.now())
            self.update()

    def flash(self, pattern: Pattern) -> None:
        """Show the finite ``pattern`` over the base pattern, then go back to it."""
        if math.isinf(pattern.duration):
            raise ValueError(f"flash pattern {pattern.name!r} must be finite")
        with self._lock:
            self._overlay = _Playing(pattern, self._scheduler.now())
            self.update()

    def off(self) -> None:
        with self._lock:
            self._overlay = None
            self.play(steady(self._idle, "off"))

    # -- state ---------------------------------------------------------------
    @property
    def value(self) -> Hashable:
        """The value last written to the output."""
        return self._value

    def active(self) -> _Playing:
        with self._lock:
            now = self._scheduler.now()
            if self._overlay is not None and not self._overlay.finished(now):
                return self._overlay
            return self._base

    @property
    def pattern_name(self) -> str:
        """Name of the pattern showing now; ``off`` once a finite one has ended."""
        with self._lock:
            playing = self.active()
            if playing.finished(self._scheduler.now()):
                return "off" if playing.pattern.final in (False, None, 0) else "steady"
            return playing.pattern.name

    def remaining_values(self) -> frozenset[Hashable]:
        """The values the channel will still show (the final value if its pattern has ended)."""
        with self._lock:
            playing = self.active()
            if playing.finished(self._scheduler.now()):
                return frozenset({playing.pattern.final})
            return playing.pattern.values

    def mode(self) -> LedMode:
        """For a boolean channel: off, on, or blinking (a pattern with both values)."""
        values = {bool(v) for v in self.remaining_values()}
        if values == {True}:
            return LedMode.ON
        if values == {False}:
            return LedMode.OFF
        return LedMode.BLINKING

    # -- machinery -----------------------------------------------------------
    def update(self) -> None:
        with self._lock:
            if self._closed:
                return
            now = self._scheduler.now()
            if self._overlay is not None and self._overlay.finished(now):
                self._overlay = None
            if self._overlay is not None:
                value, wait = self._overlay.at(now)
                wait = min(wait, self._overlay.start + self._overlay.pattern.duration - now)
            else:
                value, wait = self._base.at(now)
            if value != self._value or type(value) is not type(self._value):
                self._value = value
                self._apply(value)
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            if math.isfinite(wait):
                self._timer = self._scheduler.call_at(now + max(wait, 1e-9), self.update)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
