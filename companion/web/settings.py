"""Where the page is served and what it allows: ``[web]`` of the config, ``--web HOST:PORT|off``."""

from __future__ import annotations

import ipaddress
import socket
from dataclasses import dataclass, replace
from typing import Any, Callable

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


#: Where the machine's own address is looked for: documentation addresses (RFC 5737, RFC 3849), never reached
#: (a UDP socket's connect sends nothing; the kernel only picks the route and the source address).
_PROBES = {socket.AF_INET: "192.0.2.1", socket.AF_INET6: "2001:db8::1"}


def machine_address(family: int = socket.AF_INET) -> str | None:
    """This machine's address on its network (the source of its default route), or None without one."""
    try:
        with socket.socket(family, socket.SOCK_DGRAM) as s:
            s.connect((_PROBES[family], 9))
            address = ipaddress.ip_address(s.getsockname()[0].split("%")[0])
    except (OSError, ValueError, KeyError):
        return None
    if address.is_loopback or address.is_unspecified or address.is_link_local:
        return None
    return str(address)


def url_of(host: str, port: int, address: Callable[[int], str | None] = machine_address) -> str:
    """The address to open in a browser: for every address (0.0.0.0, ::), this machine's address on its network
    (``address(family)``), or a placeholder when it has none."""
    shown: str | None = host
    if host in ("0.0.0.0", "::"):
        shown = address(socket.AF_INET6 if host == "::" else socket.AF_INET)
    if shown is None:
        shown = "<this machine's address>"
    elif ":" in shown:
        shown = f"[{shown}]"
    return f"http://{shown}:{port}/"
