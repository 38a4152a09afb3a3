"""The web server: aiohttp in a background thread with its own event loop.

aiohttp (asyncio) serves the page, the JSON and the live updates from one
thread: many idle phones cost a coroutine each, not a thread, and the game
loop's thread is never touched (the :class:`.hub.Hub` hands the views over).
The thread is a daemon: a server that hangs can never keep the companion from
stopping.
"""

from __future__ import annotations

import asyncio
import errno
import logging
import sys
import threading
from pathlib import Path
from typing import Any

from aiohttp import web

from . import controls, games, keys, live
from .hub import Hub
from .limits import ConnectionGate, Limits, capacity
from .privacy import Scrubber
from .replies import guard, security_headers
from .settings import WebSettings, url_of

#: The largest request body (the controls' JSON is a few hundred bytes).
MAX_BODY = 16 * 1024
#: How long start() waits for the socket.
START_TIMEOUT = 15.0


def quiet_aiohttp() -> None:
    """aiohttp's own log lines (a client's malformed request, with a traceback) stay out of the companion's
    output: the client has its 400 with the reason; our own faults are said in one line (replies.guard)."""
    for name in ("aiohttp.server", "aiohttp.access", "aiohttp.web", "aiohttp.internal"):
        log = logging.getLogger(name)
        log.propagate = False
        log.setLevel(logging.CRITICAL + 1)


class WebError(Exception):
    """The page cannot be served (the port is in use, the address is not this machine's ...)."""


def make_app(settings: WebSettings, hub: Hub, journal: Path | None, limits: Limits | None = None) -> web.Application:
    app = web.Application(middlewares=[guard], client_max_size=MAX_BODY)
    app[keys.SETTINGS] = settings
    app[keys.HUB] = hub
    app[keys.JOURNAL] = journal
    app[keys.MAX_BODY] = MAX_BODY
    app[keys.LIMITS] = (limits or Limits()).for_clients(settings.max_clients)
    app[keys.SCRUB] = hub.scrub = Scrubber(journal)  # no server path in an answer (privacy.py)
    app[keys.HINTS] = live.HintDesk()
    live.routes(app)
    games.routes(app)
    controls.routes(app)

    async def close_hints(app: web.Application) -> None:
        keys.hints_of(app).close()

    async def end_streams(app: web.Application) -> None:
        hub.end_streams()  # the live streams end now, not at the shutdown's timeout

    app.on_shutdown.append(end_streams)
    app.on_cleanup.append(close_hints)
    app.on_response_prepare.append(security_headers)
    return app


def bind_problem(exc: OSError, host: str, port: int) -> str:
    where = f"{host}:{port}"
    if exc.errno == errno.EADDRINUSE:
        why = f"port {port} is in use on {host} (another program, or another netzwerk)"
    elif exc.errno in (errno.EACCES, errno.EPERM) and 0 < port < 1024:
        why = f"not allowed to serve on {where}: ports below 1024 need privileges (a port from 1024 up, e.g. 8080)"
    elif exc.errno in (errno.EACCES, errno.EPERM):
        why = (f"not allowed to serve on {where}: the service unit allows only the ports of its SocketBindAllow= "
               '(tcp:8080 as shipped); another port needs a drop-in (docs/readme-web.md, "Another port: a drop-in")')
    elif exc.errno == errno.EADDRNOTAVAIL:
        why = f"{host} is not an address of this machine"
    else:
        why = f"{where}: {exc.strerror or exc}"
    return (f"the web page cannot be served: {why}; the game goes on without it "
            "(another address: --web HOST:PORT, or [web] bind / port in the config)")


def _one_line(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
    """A fault in the server's event loop: one line on stderr, never a traceback; the server and the game go on."""
    exc = context.get("exception")
    why = f": {type(exc).__name__}: {exc}" if exc is not None else ""
    print(f"netzwerk web: {context.get('message', 'a fault in the web server')}{why}", file=sys.stderr, flush=True)


def _finish(loop: asyncio.AbstractEventLoop) -> None:
    """What is still running on the server's loop (a request cut off by the stop) ends before the loop closes,
    so that nothing is said about tasks destroyed while pending."""
    pending = [t for t in asyncio.all_tasks(loop) if not t.done()]
    for task in pending:
        task.cancel()
    if pending:
        loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
    loop.run_until_complete(loop.shutdown_asyncgens())


class _BindFailed(Exception):
    def __init__(self, error: OSError) -> None:
        super().__init__(str(error))
        self.error = error


class WebServer:
    """``start()`` binds and serves in a thread of its own; ``stop()`` ends it."""

    def __init__(self, settings: WebSettings, hub: Hub, journal: Path | None, limits: Limits | None = None) -> None:
        self.settings = settings
        self.hub = hub
        self.journal = journal
        given = limits or Limits()
        self.limits = given.for_clients(settings.max_clients)
        self.lowered: str | None = None  # why fewer browsers than [web] max_clients may follow (ulimit -n)
        if given.connections <= 0:  # the room the open files leave: maybe fewer browsers too
            room = capacity(settings.max_clients)
            self.lowered = room.lowered
            hub.max_clients = min(hub.max_clients, room.clients)
        self.gate = ConnectionGate(self.limits)
        self.port: int | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._runner: web.AppRunner | None = None
        self._listener: asyncio.AbstractServer | None = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self._error: str | None = None

    @property
    def url(self) -> str:
        return url_of(self.settings.bind, self.port or self.settings.port)

    def start(self) -> str:
        """Serve; the page's address. WebError with a message naming the trouble when it cannot."""
        self._thread = threading.Thread(target=self._main, name="netzwerk-web", daemon=True)
        self._thread.start()
        if not self._ready.wait(START_TIMEOUT):
            raise WebError(f"the web page did not start within {START_TIMEOUT:g} s; the game goes on without it")
        if self._error is not None:
            raise WebError(self._error)
        return self.url

    def stop(self, reason: str | None = None) -> None:
        """Stop serving: every live stream is told ``reason`` (default: "the companion has stopped") and ends,
        then the connections close."""
        if reason:
            self.hub.stop_reason = reason
        loop = self._loop
        if loop is not None and loop.is_running():
            loop.call_soon_threadsafe(loop.stop)
        if self._thread is not None:
            self._thread.join(timeout=5.0)

    def _main(self) -> None:
        quiet_aiohttp()
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        loop.set_exception_handler(_one_line)
        try:
            try:
                app = make_app(self.settings, self.hub, self.journal, self.limits)
                loop.run_until_complete(self._serve(app))
            except _BindFailed as exc:
                self._error = bind_problem(exc.error, self.settings.bind, self.settings.port)
                loop.run_until_complete(self._cleanup())
                return
            except Exception as exc:  # the page's fault (its files missing ...), not the game's
                self._error = f"the web page cannot be served: {type(exc).__name__}: {exc}; the game goes on without it"
                return
            finally:
                self._ready.set()
            self._loop = loop
            self.hub.attach(loop)
            loop.run_forever()
            self.hub.detach()
            loop.run_until_complete(self._cleanup())
        finally:
            _finish(loop)
            loop.close()

    async def _serve(self, app: web.Application) -> None:
        # keepalive_timeout: an idle connection after an answer (the first request head: the gate's timer);
        # lingering_time: the rest of a body refused (too large, too slow) is read and dropped for 1 s at most
        self._runner = web.AppRunner(app, access_log=None, keepalive_timeout=self.limits.idle, shutdown_timeout=1.0,
                                     lingering_time=1.0, max_line_size=4096, max_field_size=4096, max_headers=64)
        await self._runner.setup()
        self.gate.factory = self._runner.server  # aiohttp's protocol factory, behind the gate's limits
        try:
            self._listener = await asyncio.get_running_loop().create_server(
                self.gate, self.settings.bind, self.settings.port, backlog=64, reuse_address=True)
        except OSError as exc:
            raise _BindFailed(exc) from None
        sockets = list(self._listener.sockets or [])
        self.port = sockets[0].getsockname()[1] if sockets else self.settings.port

    async def _cleanup(self) -> None:
        if self._listener is not None:
            self._listener.close()  # no new connections; the open ones are closed by the runner below
            self._listener = None
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
