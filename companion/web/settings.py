"""Where the page is served and what it allows: ``[web]`` of the config, ``--web HOST:PORT|off``."""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, replace
from typing import Any

#: The address ``netzwerk demo`` binds to unless ``--web`` says otherwise.
DEMO_BIND = "127.0.0.1"


@dataclass(frozen=True)
class WebSettings:
    enabled: bool = True
    bind: str = "0.0.0.0"
    port: int = 8080
    max_clients: int = 8
    controls: bool = False
    passphrase: str | None = None

    @classmethod
    def from_config(cls, web: Any) -> "WebSettings":
        """From the config's ``[web]`` section (:class:`companion.config.WebConfig`)."""
        return cls(web.enabled, web.bind, web.port, web.max_clients, web.controls, web.passphrase)

    def with_option(self, option: str | None) -> "WebSettings":
        """``--web HOST:PORT`` or ``--web off`` applied; ValueError naming what is wrong."""
        if option is None:
            return self
        if option.strip().lower() == "off":
            return replace(self, enabled=False)
        host, port = parse_host_port(option)
        return replace(self, enabled=True, bind=host, port=port)


def parse_host_port(text: str) -> tuple[str, int]:
    """``HOST:PORT`` (``[::1]:8080`` for IPv6) as (address, port); ValueError naming what is wrong."""
    what = f"--web {text!r}"
    raw = text.strip()
    if raw.startswith("["):
        host, sep, port = raw[1:].partition("]:")
    else:
        host, sep, port = raw.rpartition(":")
    if not sep or not host:
        raise ValueError(f"{what}: expected HOST:PORT (e.g. 0.0.0.0:8080, 127.0.0.1:8080, [::1]:8080) or off")
    try:
        address = str(ipaddress.ip_address(host))
    except ValueError:
        raise ValueError(f"{what}: {host!r} is not an IP address (e.g. 0.0.0.0 for every address, "
                         "127.0.0.1 for this machine)") from None
    if not port.isascii() or not port.isdigit() or not 0 <= int(port) <= 65535:
        raise ValueError(f"{what}: the port must be a number 0..65535 (0: any free port), not {port!r}")
    return address, int(port)


def url_of(host: str, port: int) -> str:
    """The address to open in a browser (every address: this machine's name is not known here)."""
    shown = "<this machine's address>" if host in ("0.0.0.0", "::") else host
    if ":" in shown and not shown.startswith("<"):
        shown = f"[{shown}]"
    return f"http://{shown}:{port}/"
