"""sd_notify over a real AF_UNIX datagram socket (a path and the abstract namespace)."""

from __future__ import annotations

import os
import socket
import uuid
from pathlib import Path

import pytest

from companion.sd_notify import Notifier, notify


@pytest.fixture
def path_socket(tmp_path: Path):
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    address = str(tmp_path / "notify")
    sock.bind(address)
    sock.settimeout(2)
    yield sock, address
    sock.close()


@pytest.fixture
def abstract_socket():
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    name = f"netzwerk-test-{uuid.uuid4().hex}"
    sock.bind(b"\0" + name.encode())
    sock.settimeout(2)
    yield sock, "@" + name
    sock.close()


def received(sock: socket.socket) -> list[str]:
    return sock.recv(4096).decode().split("\n")


def test_ready_status_watchdog_stopping_over_a_path_socket(path_socket) -> None:
    sock, address = path_socket
    with Notifier({"NOTIFY_SOCKET": address}) as n:
        assert n.enabled
        assert n.ready("waiting for the start position")
        assert received(sock) == ["READY=1", "STATUS=waiting for the start position"]
        assert n.watchdog()
        assert received(sock) == ["WATCHDOG=1"]
        assert n.status("game 3:\nWhite to move")  # one line, always
        assert received(sock) == ["STATUS=game 3: White to move"]
        assert n.stopping()
        assert received(sock) == ["STOPPING=1"]


def test_abstract_namespace(abstract_socket) -> None:
    sock, address = abstract_socket
    assert notify("READY=1", env={"NOTIFY_SOCKET": address})
    assert received(sock) == ["READY=1"]


def test_no_socket_is_a_no_op() -> None:
    n = Notifier({})
    assert not n.enabled
    assert n.ready() is False and n.watchdog() is False and n.stopping() is False
    assert Notifier({"NOTIFY_SOCKET": "relative/path"}).enabled is False
    assert notify("READY=1", env={}) is False


def test_a_vanished_manager_does_not_crash_the_service(tmp_path: Path) -> None:
    n = Notifier({"NOTIFY_SOCKET": str(tmp_path / "gone")})
    assert n.enabled and n.watchdog() is False


def test_bad_state_is_refused(path_socket) -> None:
    _, address = path_socket
    with pytest.raises(ValueError, match="KEY=value"):
        Notifier({"NOTIFY_SOCKET": address}).notify("READY")


def test_watchdog_interval() -> None:
    pid = str(os.getpid())
    assert Notifier({"WATCHDOG_USEC": "30000000"}).watchdog_interval() == 15.0
    assert Notifier({"WATCHDOG_USEC": "30000000", "WATCHDOG_PID": pid}).watchdog_interval() == 15.0
    assert Notifier({"WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "1"}).watchdog_interval() is None
    assert Notifier({"WATCHDOG_USEC": "0"}).watchdog_interval() is None
    assert Notifier({"WATCHDOG_USEC": "x"}).watchdog_interval() is None
    assert Notifier({}).watchdog_interval() is None
