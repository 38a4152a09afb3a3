"""What one connection may hold of the server: time to send its request, and a place among a bounded number.

aiohttp caps request lines, headers and bodies by size; these limits are about
time and numbers, so that idle or half-sent connections cannot use up the
process's file descriptors (the game loop, in the same process, needs some for
the journal and the camera):

* a connection must send its first request head (up to the blank line, as
  aiohttp's parser reads it) within ``Limits.idle`` seconds of opening, or it is
  closed; after an answer, aiohttp's keep-alive timeout (the same value) closes
  it when it sends nothing more;
* a request body must arrive within ``Limits.body`` seconds (else 408);
* at most ``Limits.connections`` connections are open at once; one more is
  answered 503 and closed at once.

:class:`ConnectionGate` is the protocol factory the server listens with: it
stands in front of aiohttp's own (``AppRunner.server``) and counts, times and
refuses connections; everything else is aiohttp's.
"""

from __future__ import annotations

import asyncio
import json
import resource
from dataclasses import dataclass
from typing import Any, Callable

#: Connections allowed beside the live clients' (page loads, the API; a browser opens up to 6 per server).
PER_BROWSER = 6
SPARE = 16


@dataclass(frozen=True)
class Capacity:
    """What the page can take at once for ``[web] max_clients``."""

    connections: int     # connections open at once
    clients: int         # browsers following the live game: max_clients, or fewer where the open files are few
    lowered: str | None  # why fewer than max_clients asks for (said on stderr at start), or None


def open_file_limit() -> int | None:
    """The process's open-file limit (``ulimit -n``, the soft one); None: no limit known."""
    try:
        soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    except (OSError, ValueError):
        return None
    if soft == resource.RLIM_INFINITY or soft <= 0:
        return None
    return soft


def capacity(max_clients: int) -> Capacity:
    """Room for ``max_clients`` browsers (``PER_BROWSER`` connections each, ``SPARE`` more), but never more
    connections than half the process's open files, so that the game always has descriptors left. Where that
    half is too few, the browsers following the game are lowered to fit as well (each holds a connection, and
    page loads need room beside them): ``[web] max_clients`` then holds for that many, and ``lowered`` says so."""
    wanted = PER_BROWSER * max_clients + SPARE
    soft = open_file_limit()
    if soft is None or wanted <= soft // 2:
        return Capacity(wanted, max_clients, None)
    connections = max(8, soft // 2)
    clients = max(1, min(max_clients, (connections - SPARE) // PER_BROWSER))
    return Capacity(connections, clients, (
        f"[web] max_clients {max_clients} needs {wanted} connections at once ({PER_BROWSER} per browser and "
        f"{SPARE}), more than half of this process's open-file limit (ulimit -n {soft}): the page takes at most "
        f"{connections} connections and {clients} browser{'s' if clients != 1 else ''} following the game "
        f"(more: raise the limit, LimitNOFILE= in a drop-in of the service unit or ulimit -n; or a lower "
        f"max_clients)"))


def connection_limit(max_clients: int) -> int:
    """The connections allowed at once for ``max_clients`` live clients (:func:`capacity`)."""
    return capacity(max_clients).connections


@dataclass(frozen=True)
class Limits:
    idle: float = 10.0      # seconds for a connection's first request head, and between requests
    body: float = 10.0      # seconds for a request body
    connections: int = 0    # connections open at once; 0: connection_limit(max_clients)

    def for_clients(self, max_clients: int) -> "Limits":
        if self.connections > 0:
            return self
        return Limits(self.idle, self.body, connection_limit(max_clients))


def _busy_answer(limit: int) -> bytes:
    body = json.dumps({"error": f"the server has {limit} connections open already: try again in a moment"}).encode()
    head = ("HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nCache-Control: no-store\r\n"
            f"Retry-After: 5\r\nConnection: close\r\nContent-Length: {len(body)}\r\n\r\n")
    return head.encode("ascii") + body


class _Busy(asyncio.Protocol):
    """A connection over the limit: the 503 and the end, before anything is read."""

    def __init__(self, answer: bytes) -> None:
        self.answer = answer

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        transport.write(self.answer)  # type: ignore[attr-defined]
        transport.close()


class _Watched(asyncio.Protocol):
    """aiohttp's protocol for one connection, counted, and closed if its first request head is too slow."""

    def __init__(self, gate: "ConnectionGate", inner: asyncio.Protocol) -> None:
        self.gate = gate
        self.inner = inner
        self.transport: asyncio.BaseTransport | None = None
        self.timer: asyncio.TimerHandle | None = None
        self.tail = b""
        self.counted = True

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport
        self.timer = asyncio.get_running_loop().call_later(self.gate.idle, self._too_slow)
        self.inner.connection_made(transport)

    def data_received(self, data: bytes) -> None:
        self.inner.data_received(data)
        if self.timer is not None and self._head_arrived(data):  # the first request head is in: no more timing
            self.timer.cancel()
            self.timer = None
            self.tail = b""

    def _head_arrived(self, data: bytes) -> bool:
        """Whether aiohttp has the first request head: its own count of the requests it parsed (a head, or a
        malformed one it answers 400), whatever line endings its parser takes (aiohttp's C parser answers a
        head of bare LF with a 400 at once; its pure-Python one, 3.9-3.13, waits on for CRLF CRLF, and the
        head's limit closes the connection). Where the protocol keeps no such count: CRLF CRLF seen (a bare
        LF LF is not taken as the end: a parser that waits on would never be timed out)."""
        count = getattr(self.inner, "_request_count", None)
        if isinstance(count, int):
            return count > 0
        seen = self.tail + data
        self.tail = seen[-3:]
        return b"\r\n\r\n" in seen

    def eof_received(self) -> bool | None:
        return self.inner.eof_received()

    def pause_writing(self) -> None:
        self.inner.pause_writing()

    def resume_writing(self) -> None:
        self.inner.resume_writing()

    def connection_lost(self, exc: Exception | None) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        if self.counted:
            self.counted = False
            self.gate.open -= 1
        self.inner.connection_lost(exc)

    def _too_slow(self) -> None:
        self.timer = None
        if self.transport is not None:
            self.transport.close()


class ConnectionGate:
    """The listening socket's protocol factory: ``factory`` (aiohttp's) behind the limits of the module docstring."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.idle = limits.idle
        self.factory: Callable[[], Any] | None = None  # aiohttp's protocol factory (AppRunner.server), set once set up
        self.open = 0
        self.refused = 0
        self._answer = _busy_answer(limits.connections)

    def __call__(self) -> asyncio.Protocol:
        if self.open >= self.limits.connections or self.factory is None:
            self.refused += 1
            return _Busy(self._answer)
        self.open += 1
        return _Watched(self, self.factory())
