"""Starting the page beside ``netzwerk run`` / ``netzwerk demo``: the address printed, or why there is no page."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from .settings import WebSettings

if TYPE_CHECKING:
    from .hub import Hub
    from .server import WebServer


def open_page(settings: WebSettings, journal: Path | None, command: str,
              out: TextIO | None = None) -> tuple["Hub | None", "WebServer | None"]:
    """Serve the page in its own thread; (hub, server), or (None, None) when it is off or cannot be served
    (said in one line on stderr: the game goes on without the page)."""
    if not settings.enabled:
        return None, None
    try:
        from .hub import Hub
        from .server import WebError, WebServer
    except ImportError as exc:  # an install without the web server's package
        print(f"netzwerk {command}: the web page needs the aiohttp package (pip install aiohttp; here: {exc}); "
              "the game goes on without it", file=sys.stderr, flush=True)
        return None, None

    hub = Hub(settings.max_clients)
    server = WebServer(settings, hub, journal)
    try:
        url = server.start()
    except WebError as exc:
        print(f"netzwerk {command}: {exc}", file=sys.stderr, flush=True)
        return None, None
    controls = "controls on (passphrase)" if settings.controls else "controls off"
    print(f"netzwerk {command}: the web page is at {url} (bound to {settings.bind} port {server.port}; {controls})",
          file=out or sys.stdout, flush=True)
    if server.lowered:
        print(f"netzwerk {command}: {server.lowered}", file=sys.stderr, flush=True)
    return hub, server
