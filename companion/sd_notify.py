"""A tiny pure-Python ``sd_notify``: tell systemd we are ready, alive, stopping.

The service manager passes ``$NOTIFY_SOCKET`` (an absolute path, or ``@name`` for
the abstract namespace) to a ``Type=notify`` service; each state is one datagram
of ``KEY=value`` lines. Without ``$NOTIFY_SOCKET`` (a terminal, a test, the demo)
every call is a no-op that returns False.

    notifier = Notifier()
    notifier.ready("waiting for the start position")
    interval = notifier.watchdog_interval()   # None when WatchdogSec= is not set
    ... every `interval` seconds from the loop: notifier.watchdog()
    notifier.stopping()
"""

from __future__ import annotations

import os
import socket
from typing import Mapping


class Notifier:
    """Sends notifications to ``$NOTIFY_SOCKET`` (read once, at construction)."""

    def __init__(self, env: Mapping[str, str] | None = None) -> None:
        env = os.environ if env is None else env
        self._address = _address(env.get("NOTIFY_SOCKET", ""))
        self._watchdog_usec = env.get("WATCHDOG_USEC", "")
        self._watchdog_pid = env.get("WATCHDOG_PID", "")
        self._sock: socket.socket | None = None

    @property
    def enabled(self) -> bool:
        """True when there is a service manager to notify."""
        return self._address is not None

    def notify(self, *states: str) -> bool:
        """Send ``KEY=value`` states in one datagram; False when disabled or it failed."""
        if self._address is None or not states:
            return False
        for state in states:
            if "=" not in state:
                raise ValueError(f"bad notification {state!r}: expected KEY=value")
        message = "\n".join(states).encode("utf-8")
        try:
            if self._sock is None:
                self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC)
            self._sock.sendto(message, self._address)
        except OSError:
            # The manager went away (or the socket is not ours to use): notifying is
            # best effort, the service keeps running.
            self.close()
            return False
        return True

    def ready(self, status: str | None = None) -> bool:
        return self.notify("READY=1", *([f"STATUS={_one_line(status)}"] if status else []))

    def status(self, text: str) -> bool:
        return self.notify(f"STATUS={_one_line(text)}")

    def watchdog(self) -> bool:
        return self.notify("WATCHDOG=1")

    def stopping(self, status: str | None = None) -> bool:
        return self.notify("STOPPING=1", *([f"STATUS={_one_line(status)}"] if status else []))

    def watchdog_interval(self) -> float | None:
        """Seconds between watchdog pings (half of ``WatchdogSec=``), or None without a watchdog."""
        try:
            usec = int(self._watchdog_usec)
        except ValueError:
            return None
        if usec <= 0:
            return None
        if self._watchdog_pid:
            try:
                if int(self._watchdog_pid) != os.getpid():
                    return None
            except ValueError:
                return None
        return usec / 2_000_000

    def close(self) -> None:
        if self._sock is not None:
            self._sock.close()
            self._sock = None

    def __enter__(self) -> "Notifier":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _address(value: str) -> str | bytes | None:
    if value.startswith("@") and len(value) > 1:
        return b"\0" + value[1:].encode("utf-8")
    if value.startswith("/"):
        return value
    return None  # unset, or not an address systemd would give


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def notify(*states: str, env: Mapping[str, str] | None = None) -> bool:
    """One-shot ``sd_notify``: ``notify("READY=1", "STATUS=playing")``."""
    with Notifier(env) as n:
        return n.notify(*states)
