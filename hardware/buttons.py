"""Debounce and long press for one gpiozero ``Button``, on the panel's clock.

The gpiozero ``Button`` is built with ``bounce_time`` and ``hold_time``; pin
factories that debounce in their driver (lgpio, RPi.GPIO, pigpio) use
``bounce_time`` there. Because ``MockPin`` ignores ``bounce_time`` and
gpiozero's hold thread runs on wall time, the panel adds its own edge logic
driven by the panel's scheduler, so the same rules hold on every factory and
tests can step through them with a :class:`~hardware.timing.ManualClock`:

* leading-edge debounce: the first edge counts at once (no added latency);
  edges during the next ``bounce_s`` are ignored; when that window closes the
  button's actual level is read again, so a bounce that ended in the other
  level is not lost;
* a press that stays down ``hold_s`` is *held* (``hold`` event); its release
  is then not a short press.

Events: ``press``, ``hold``, ``release`` (after a short press) and
``release-held`` (after a hold).
"""

from __future__ import annotations

import threading
from typing import Callable

from gpiozero import Button

from .timing import Scheduler, Timer

PRESS = "press"
HOLD = "hold"
RELEASE = "release"
RELEASE_HELD = "release-held"


class ButtonLogic:
    """Turns the raw edges of ``button`` into debounced press/hold/release events."""

    def __init__(self, name: str, button: Button, scheduler: Scheduler, lock: threading.RLock,
                 emit: Callable[[str, str], None], bounce_s: float, hold_s: float) -> None:
        self.name = name
        self.button = button
        self._scheduler = scheduler
        self._lock = lock
        self._emit = emit
        self.bounce_s = bounce_s
        self.hold_s = hold_s
        self._pressed = bool(button.is_pressed)
        # A button already down when the panel starts (stuck, or leaned on) counts
        # as held: its release must not act as a short press.
        self._held = self._pressed
        self._quiet_until = -1.0
        self._resync: Timer | None = None
        self._hold_timer: Timer | None = None
        self.ignored_edges = 0
        button.when_pressed = self._on_pressed
        button.when_released = self._on_released

    @property
    def is_pressed(self) -> bool:
        return self._pressed

    @property
    def is_held(self) -> bool:
        return self._pressed and self._held

    def _on_pressed(self) -> None:
        self._edge(True)

    def _on_released(self) -> None:
        self._edge(False)

    def _edge(self, level: bool) -> None:
        events: list[str] = []
        with self._lock:
            now = self._scheduler.now()
            if now < self._quiet_until or level == self._pressed:
                self.ignored_edges += 1
                return
            self._accept(level, now, events)
        for event in events:
            self._emit(self.name, event)

    def _accept(self, level: bool, now: float, events: list[str]) -> None:
        self._pressed = level
        self._quiet_until = now + self.bounce_s
        if self._resync is not None:
            self._resync.cancel()
        self._resync = self._scheduler.call_at(self._quiet_until, self._end_of_bounce)
        if level:
            self._held = False
            if self._hold_timer is not None:
                self._hold_timer.cancel()
            self._hold_timer = self._scheduler.call_at(now + self.hold_s, self._hold)
            events.append(PRESS)
        else:
            if self._hold_timer is not None:
                self._hold_timer.cancel()
                self._hold_timer = None
            events.append(RELEASE_HELD if self._held else RELEASE)

    def _end_of_bounce(self) -> None:
        events: list[str] = []
        with self._lock:
            self._resync = None
            try:
                level = bool(self.button.is_pressed)
            except Exception:  # closed while the timer was pending
                return
            if level != self._pressed:
                self._accept(level, self._scheduler.now(), events)
        for event in events:
            self._emit(self.name, event)

    def _hold(self) -> None:
        with self._lock:
            self._hold_timer = None
            if not self._pressed:
                return
            self._held = True
        self._emit(self.name, HOLD)

    def close(self) -> None:
        with self._lock:
            for timer in (self._resync, self._hold_timer):
                if timer is not None:
                    timer.cancel()
            self._resync = self._hold_timer = None
