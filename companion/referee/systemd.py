"""What the game loop tells systemd (``Type=notify``, :mod:`companion.sd_notify`): ``READY=1`` once the
camera and the panel are up, a ``STATUS=`` line for every change the players see, ``WATCHDOG=1``
every ``watchdog_seconds`` (else every half ``WatchdogSec=``), ``STOPPING=1``. Without a notifier (the
demo, the tests) nothing is told."""

from __future__ import annotations

from typing import Any


class ServiceNotes:
    """The loop's notes to systemd. ``notifier``: a :class:`companion.sd_notify.Notifier`, or None;
    ``watchdog_seconds``: how often to tell the watchdog (0: as systemd asks, ``$WATCHDOG_USEC``)."""

    def __init__(self, notifier: Any, watchdog_seconds: float) -> None:
        self.notifier = notifier
        self.watchdog_seconds = watchdog_seconds
        self._every: float | None = None  # known once ready
        self._last = -1e18

    def ready(self, status: str) -> None:
        if self.notifier is None:
            return
        self._every = self.watchdog_seconds or self.notifier.watchdog_interval()
        self.notifier.ready(status)

    def status(self, text: str) -> None:
        if self.notifier is not None:
            self.notifier.status(text)

    def watchdog(self, now: float) -> None:
        """The loop is alive at clock time ``now``: tell the watchdog when it is due."""
        if self.notifier is None or not self._every:
            return
        if now - self._last >= self._every:
            self._last = now
            self.notifier.watchdog()

    def stopping(self) -> None:
        if self.notifier is not None:
            self.notifier.stopping("stopping")
