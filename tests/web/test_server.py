"""The web server without a browser: hostile requests, the passphrase, the live clients' limits, the port,
and the one promise that matters most: the game loop's side never waits for the server."""

from __future__ import annotations

import json
import socket
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from companion.referee.journal import Journal
from companion.referee.view import GameView, VerdictView
from companion.rules.position import Position
from companion.web.hub import CLIENT_QUEUE, Client, Hub
from companion.web.launch import open_page
from companion.web.server import MAX_BODY, WebError, WebServer
from companion.web.settings import WebSettings, parse_host_port

PASSPHRASE = "correct horse battery"
START = Position.start().to_string()


def view(seq: int = 1, verdict: VerdictView | None = None) -> GameView:
    return GameView(seq=seq, game_id=1, phase="playing", step="idle", position=START, start=START, turns=(),
                    options=(), starting_side="white", result=None, reason=None, last_verdict=verdict, blank=(),
                    status="game 1, turn 1: White to move", recent=())


class Sink:
    """Stands for the game loop's request door: records what the page asked."""

    def __init__(self) -> None:
        self.events: list[tuple] = []

    def __call__(self, event: tuple) -> bool:
        self.events.append(event)
        return True


@pytest.fixture
def served(tmp_path: Path):
    journal = tmp_path / "journal.sqlite"
    with Journal(journal) as j:
        j.new_game([], START)
    hub = Hub(max_clients=2)
    sink = Sink()
    hub.take_requests(sink)
    hub.game_changed(view())
    server = WebServer(WebSettings(bind="127.0.0.1", port=0, max_clients=2, controls=True, passphrase=PASSPHRASE),
                       hub, journal)
    server.start()
    yield server, hub, sink
    server.stop()


def raw(port: int, data: bytes, timeout: float = 10.0) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(data)
        chunks = []
        while True:
            try:
                chunk = s.recv(65536)
            except socket.timeout:
                break
            if not chunk:
                break
            chunks.append(chunk)
        return b"".join(chunks)


def request(port: int, method: str, path: str, body: Any = None, content_type: str = "application/json",
            raw_body: bytes | None = None) -> tuple[int, dict[str, str], bytes]:
    data = raw_body if raw_body is not None else (json.dumps(body).encode() if body is not None else b"")
    head = (f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
            f"Content-Type: {content_type}\r\nContent-Length: {len(data)}\r\n\r\n").encode()
    reply = raw(port, head + data)
    top, _, payload = reply.partition(b"\r\n\r\n")
    lines = top.decode("latin-1").split("\r\n")
    headers = {k.lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
    return int(lines[0].split()[1]), headers, payload


def error_of(payload: bytes) -> str:
    return json.loads(payload)["error"]


def test_state_json_has_what_other_tools_need(served) -> None:
    server, _, _ = served
    status, headers, payload = request(server.port, "GET", "/api/state")
    assert status == 200 and headers["content-type"].startswith("application/json")
    state = json.loads(payload)
    assert state["position"] == START and state["ply"] == 0 and state["options"] == []
    assert state["last_verdict"] is None and state["result"] is None
    assert [e["square"] for e in state["energy"]] == ["a1", "b1", "c1", "d1", "e1", "f1"]


def test_the_win_in_the_state() -> None:
    from dataclasses import replace

    from companion.web.state import state_json

    over = replace(view(), phase="over", result="black wins", reason="White has no robot left",
                   turns=("a1-a2", "a6-a5"), last_verdict=VerdictView("accepted", "Black: a6-a5", 2, "a6-a5", (), ()))
    state = state_json(over)
    assert (state["result"], state["result_text"], state["reason"]) == ("black", "black wins", "White has no robot left")
    assert state["to_move"] is None and state["energy"] == [] and state["ply"] == 2
    assert [t["side"] for t in state["turns"]] == ["white", "black"]
    assert state["last_verdict"] == {"kind": "accepted", "diagnosis": "Black: a6-a5", "ply": 2, "turn": "a6-a5",
                                     "squares": [], "points": [], "note": None}


@pytest.mark.parametrize("path, status, words", [
    ("/api/games/abc", 400, "bad game id 'abc'"),
    ("/api/games/0", 400, "game ids start at 1"),
    ("/api/games/99999999999999999999999", 400, "game ids go up to"),
    ("/api/games/%ff%fe", 400, "bad game id"),
    ("/api/games/7", 404, "no game 7 in the journal"),
    ("/api/games/1/ply/x", 400, "bad ply 'x'"),
    ("/api/games/1/ply/3", 404, "has 0 turns"),
    ("/static/../../../etc/passwd", 404, "no such page"),
    ("/%2e%2e/%2e%2e/etc/passwd", 404, "no such page"),
    ("/static/app.py", 404, "no such page"),
])
def test_bad_paths_and_game_ids_get_a_message(served, path: str, status: int, words: str) -> None:
    server, _, sink = served
    got, _, payload = request(server.port, "GET", path)
    assert got == status and words in error_of(payload)
    assert sink.events == []


def test_state_changing_requests_need_a_post_with_the_passphrase(served) -> None:
    server, _, sink = served
    port = server.port
    assert request(port, "GET", "/api/control/undo")[0] == 405
    status, _, payload = request(port, "POST", "/api/control/undo", {})
    assert status == 403 and error_of(payload) == "the passphrase is missing: this request needs it"
    status, _, payload = request(port, "POST", "/api/control/undo", {"passphrase": "correct horse"})
    assert status == 403 and error_of(payload) == "wrong passphrase"
    status, _, payload = request(port, "POST", "/api/control/undo", {"passphrase": PASSPHRASE},
                                 content_type="text/plain")
    assert status == 415
    assert sink.events == []
    assert request(port, "POST", "/api/control/undo", {"passphrase": PASSPHRASE})[0] == 202
    assert request(port, "POST", "/api/control/confirm", {"passphrase": PASSPHRASE, "side": "white"})[0] == 202
    status, _, payload = request(port, "POST", "/api/control/new-game",
                                 {"passphrase": PASSPHRASE, "options": ["must-capture"], "starting_side": "black"})
    assert status == 202
    assert sink.events == [("undo",), ("confirm", "white"), ("new_game", ("must-capture",), "black")]
    status, _, payload = request(port, "POST", "/api/control/new-game", {"passphrase": PASSPHRASE, "options": ["fly"]})
    assert status == 400 and "unknown rule option 'fly'" in error_of(payload)
    status, _, payload = request(port, "POST", "/api/control/confirm", {"passphrase": PASSPHRASE, "side": "red"})
    assert status == 400 and error_of(payload) == 'side must be "white" or "black" (the player confirming), not "red"'
    status, _, payload = request(port, "POST", "/api/control/confirm", {"passphrase": PASSPHRASE, "side": None})
    assert status == 400 and error_of(payload).startswith("no side to confirm for")  # the page's, once the game is over
    assert len(sink.events) == 3


def test_bodies_too_large_not_utf8_or_not_json_are_refused(served) -> None:
    server, _, sink = served
    port = server.port
    status, _, payload = request(port, "POST", "/api/control/undo", raw_body=b"{" + b" " * (4 * MAX_BODY) + b"}")
    assert status == 413 and "too large" in error_of(payload)
    status, _, payload = request(port, "POST", "/api/control/undo", raw_body=b'{"passphrase": "\xff\xfe"}')
    assert status == 400 and error_of(payload) == "the request body is not UTF-8"
    status, _, payload = request(port, "POST", "/api/control/undo", raw_body=b"[[[[")
    assert status == 400 and error_of(payload) == "the request body is not JSON"
    status, _, payload = request(port, "POST", "/api/control/undo", raw_body=b'"just a string"')
    assert status == 400 and "JSON object" in error_of(payload)
    bad_path = raw(port, b"GET /\xff\xfe\x00 HTTP/1.1\r\nHost: x\r\n\r\n")
    assert bad_path.split(b"\r\n")[0].endswith(b" 400 Bad Request") and b"Invalid char in url path" in bad_path
    assert raw(port, b"NONSENSE\r\n\r\n").split(b"\r\n")[0].endswith(b" 400 Bad Request")
    huge_header = raw(port, b"GET /api/state HTTP/1.1\r\nHost: x\r\nX-Long: " + b"a" * 9000 + b"\r\n\r\n")
    assert huge_header.split(b"\r\n")[0].endswith(b" 400 Bad Request")
    assert sink.events == []
    assert request(port, "GET", "/api/state")[0] == 200  # and the server serves on


def test_read_only_pages_never_ask_anything_of_the_game(served) -> None:
    server, _, sink = served
    for path in ("/", "/static/app.js", "/static/app.css", "/api/state", "/api/config", "/api/games",
                 "/api/games/1", "/api/games/1/ply/0", "/api/games/1/record"):
        assert request(server.port, "GET", path)[0] == 200, path
    status, headers, payload = request(server.port, "GET", "/api/games/1/record")
    assert headers["content-disposition"] == 'attachment; filename="netzwerk-game-1.txt"'
    status, headers, payload = request(server.port, "GET", "/")
    assert headers["x-frame-options"] == "DENY" and "frame-ancestors 'none'" in headers["content-security-policy"]
    assert b"https://" not in payload and b"http://" not in payload  # no outside file: every asset ships
    assert sink.events == []


def test_the_camera_view_needs_the_passphrase(served) -> None:
    server, hub, _ = served
    port = server.port
    assert request(port, "POST", "/api/setup/frame", {})[0] == 403
    status, _, payload = request(port, "POST", "/api/setup/frame", {"passphrase": PASSPHRASE})
    assert status == 503 and error_of(payload) == "no camera frame yet"
    hub.frame_seen(np.full((480, 640, 3), 90, np.uint8), None, None)
    status, headers, payload = request(port, "POST", "/api/setup/frame", {"passphrase": PASSPHRASE})
    assert status == 200 and headers["content-type"] == "image/jpeg" and payload[:2] == b"\xff\xd8"
    assert "not calibrated yet" in headers["x-netzwerk-reading"]


def test_the_game_side_never_waits_for_a_stuck_server_or_a_silent_client(served) -> None:
    server, hub, _ = served
    port = server.port
    slow = socket.create_connection(("127.0.0.1", port))  # slowloris: half a request, never finished
    slow.sendall(b"GET /api/state HTTP/1.1\r\nHost: x\r\n")
    silent = socket.create_connection(("127.0.0.1", port))  # a live client that never reads
    silent.sendall(b"GET /api/events HTTP/1.1\r\nHost: x\r\n\r\n")
    stuck = threading.Event()
    server._loop.call_soon_threadsafe(stuck.wait, 30)  # the server's thread is stuck as badly as it can be
    done = threading.Event()

    def loop_side() -> None:
        for seq in range(2, 20_002):
            hub.game_changed(view(seq, VerdictView("rejected", "robot c1 moved diagonally", 1, None, (2,), ())))
            hub.frame_seen(None, None, None)
        done.set()

    t = threading.Thread(target=loop_side, daemon=True)
    t.start()
    finished = done.wait(20)
    stuck.set()
    assert finished, "the game loop's side waited for the server"
    status, _, payload = request(port, "GET", "/api/state")  # the server caught up with the newest view
    assert status == 200 and json.loads(payload)["seq"] == 20_001
    assert json.loads(payload)["last_verdict"]["squares"] == ["c1"]
    slow.close()
    silent.close()


def test_a_slow_client_loses_old_updates_not_the_newest() -> None:
    client = Client()
    for i in range(10):
        client.offer(i, f"update {i}".encode())
    client.offer(9, b"update 9")  # one it has already is not queued twice
    assert client.queue.qsize() == CLIENT_QUEUE and client.dropped == 10 - CLIENT_QUEUE
    left = [client.queue.get_nowait() for _ in range(CLIENT_QUEUE)]
    assert left[-1] == b"update 9" and b"update 9" not in left[:-1]


def test_a_live_client_gets_a_change_that_another_request_built_first() -> None:
    """The loop's change wakes the server; before the wake-up runs, a scoreboard's GET /api/state builds the
    newest JSON. The browsers following the game must still be sent it."""
    import asyncio

    loop = asyncio.new_event_loop()
    try:
        hub = Hub(max_clients=2)
        hub.game_changed(view(1))
        hub.attach(loop)
        client = hub.join()
        client.offer(*hub.message())  # what /api/events does for a new browser
        loop.run_until_complete(asyncio.sleep(0))  # the wake-up of attach: nothing new for this client
        hub.game_changed(view(2, VerdictView("rejected", "robot c1 moved diagonally", 1, None, (2,), ())))
        assert hub.state()["seq"] == 2  # GET /api/state, between the wake-up and its run
        loop.run_until_complete(asyncio.sleep(0))
        sent = [client.queue.get_nowait() for _ in range(client.queue.qsize())]
        assert [m.split(b"\n")[1] for m in sent] == [b"id: 1", b"id: 2"]
    finally:
        loop.close()


def test_at_most_max_clients_follow_the_game(served) -> None:
    server, _, _ = served
    port = server.port
    live = []
    for _ in range(2):
        s = socket.create_connection(("127.0.0.1", port), timeout=10)
        s.sendall(b"GET /api/events HTTP/1.1\r\nHost: x\r\n\r\n")
        assert s.recv(4096).startswith(b"HTTP/1.1 200")
        live.append(s)
    status, _, payload = request(port, "GET", "/api/events")
    assert status == 503 and "2 browsers follow the game already" in error_of(payload)
    for s in live:
        s.close()


def listening_addresses(port: int) -> list[str]:
    found = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            local, state = line.split()[1], line.split()[3]
            address, _, hexport = local.partition(":")
            if state == "0A" and int(hexport, 16) == port:
                found.append(address)
    return found


@pytest.mark.skipif(not Path("/proc/net/tcp").exists(), reason="no /proc/net/tcp on this system")
def test_the_page_binds_where_it_is_told_and_nowhere_else(served) -> None:
    server, _, _ = served
    assert listening_addresses(server.port) == ["0100007F"]  # 127.0.0.1, in the kernel's byte order


def test_a_port_in_use_is_a_message_and_no_page(capsys: pytest.CaptureFixture) -> None:
    holder = socket.socket()
    holder.bind(("127.0.0.1", 0))
    holder.listen()
    port = holder.getsockname()[1]
    try:
        with pytest.raises(WebError, match=f"port {port} is in use on 127.0.0.1"):
            WebServer(WebSettings(bind="127.0.0.1", port=port), Hub(2), None).start()
        hub, server = open_page(WebSettings(bind="127.0.0.1", port=port), None, "run")
        assert hub is None and server is None
        err = capsys.readouterr().err
        assert err.startswith("netzwerk run: the web page cannot be served: port") and "the game goes on" in err
        assert err.count("\n") == 1
    finally:
        holder.close()


@pytest.mark.parametrize("text, words", [
    ("8080", "expected HOST:PORT"),
    ("pi.local:8080", "'pi.local' is not an IP address"),
    ("0.0.0.0:http", "the port must be a number"),
    ("0.0.0.0:70000", "the port must be a number"),
    ("[::1:8080", "expected HOST:PORT"),
])
def test_bad_web_options_name_what_is_wrong(text: str, words: str) -> None:
    with pytest.raises(ValueError, match=words):
        parse_host_port(text)
    assert parse_host_port("[::1]:8080") == ("::1", 8080)
    assert WebSettings().with_option("off").enabled is False


@pytest.mark.parametrize("command", ["run", "demo"])
def test_the_commands_refuse_a_bad_web_option_in_one_line(command: str, capsys: pytest.CaptureFixture) -> None:
    from companion.cli import main

    assert main([command, "--web", "localhost:99999"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"netzwerk {command}: --web 'localhost:99999':") and err.count("\n") == 1


def test_the_loop_takes_the_page_s_requests_as_button_presses(tmp_path: Path) -> None:
    from companion.referee.game import PLAYING
    from companion.rules.geometry import BLACK
    from game.helpers import close, make, ready

    comp, _ = make(tmp_path)
    try:
        ready(comp)
        assert not comp.request(("confirm", "red")) and not comp.request(("format_disk",)) and not comp.request(())
        assert comp.request(("new_game", ("must-capture",), "black"))
        comp.run_for(0.5)
        assert comp.rules.names() == ["must-capture"] and comp.starting_side == BLACK
        # the start position stands on the table: the new game begins, Black to move, under its option
        assert comp.phase == PLAYING and comp.game_id == 2 and comp.referee.position.to_move == BLACK
        assert comp.journal.game(2).rules == ("must-capture",)
        view = comp.view()
        assert view.options == ("must-capture",) and view.starting_side == "black" and view.position.endswith(" b")
    finally:
        close(comp)


def test_a_fault_in_the_server_is_one_line_and_the_server_goes_on(served, capfd: pytest.CaptureFixture) -> None:
    from dataclasses import replace

    server, hub, _ = served
    hub.game_changed(replace(view(2), position="not a position"))  # a fault of ours, in the fan-out and the route
    status, _, payload = request(server.port, "GET", "/api/state")
    assert status == 500 and "the server failed on this request" in error_of(payload)
    hub.game_changed(view(3))
    assert json.loads(request(server.port, "GET", "/api/state")[2])["seq"] == 3
    err = capfd.readouterr().err
    assert "Traceback" not in err and err.strip() and all(line.startswith("netzwerk web: ") for line in err.splitlines())


def test_without_aiohttp_the_game_goes_on_without_the_page(monkeypatch: pytest.MonkeyPatch,
                                                            capsys: pytest.CaptureFixture) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "companion.web.server", None)  # as if aiohttp were not installed
    assert open_page(WebSettings(bind="127.0.0.1", port=0), None, "run") == (None, None)
    err = capsys.readouterr().err
    assert err.startswith("netzwerk run: the web page needs the aiohttp package") and "the game goes on without it" in err


def test_stopping_the_server_with_browsers_following_is_quiet(tmp_path: Path, capfd: pytest.CaptureFixture) -> None:
    """`netzwerk demo` ends (or `run` stops) while phones follow the game: their streams end, and nothing is
    said on stderr (no "Task was destroyed but it is pending")."""
    hub = Hub(max_clients=2)
    hub.game_changed(view())
    server = WebServer(WebSettings(bind="127.0.0.1", port=0, max_clients=2), hub, None)
    server.start()
    live = socket.create_connection(("127.0.0.1", server.port), timeout=10)
    live.sendall(b"GET /api/events HTTP/1.1\r\nHost: x\r\n\r\n")
    got = b""
    while b"event: state" not in got:
        got += live.recv(65536)
    server.stop()
    while chunk := live.recv(65536):  # the stream ends (the end of the chunked answer, then the connection)
        got += chunk
    live.close()
    assert got.endswith(b"0\r\n\r\n")
    # the page is told why (not "reconnecting…" for ever): the last event before the end
    assert b'event: bye\ndata: {"reason": "the companion has stopped"}\n\n' in got
    assert got.rindex(b"event: bye") > got.rindex(b"event: state")
    assert capfd.readouterr().err == ""


def test_after_the_game_loop_has_ended_the_controls_say_so(served) -> None:
    server, hub, sink = served
    hub.no_more_requests()  # the demo's game is over and its page stays up
    status, _, payload = request(server.port, "POST", "/api/control/undo", {"passphrase": PASSPHRASE})
    assert status == 503 and error_of(payload) == "no game loop takes requests now" and sink.events == []
    assert request(server.port, "GET", "/api/state")[0] == 200  # the last state stays


def closed_by_the_server(s: socket.socket, within: float = 20.0) -> bytes:
    """Everything the server sent until it closed the connection (a socket timeout fails the test)."""
    s.settimeout(within)
    got = b""
    while chunk := s.recv(65536):
        got += chunk
    return got


def test_idle_half_sent_and_slow_connections_are_let_go(tmp_path: Path) -> None:
    """A connection that sends nothing, one that trickles a request head that never ends, and a request whose
    body never arrives: each is closed by the server after its limit (a socket timeout here is the failure)."""
    from companion.web.limits import Limits

    hub = Hub(max_clients=2)
    hub.game_changed(view())
    server = WebServer(WebSettings(bind="127.0.0.1", port=0, controls=True, passphrase=PASSPHRASE), hub, None,
                       Limits(idle=0.5, body=0.5))
    server.start()
    try:
        silent = socket.create_connection(("127.0.0.1", server.port))
        trickle = socket.create_connection(("127.0.0.1", server.port))
        trickle.sendall(b"GET /api/state HTTP/1.1\r\nHost: x\r\n")
        slow_body = socket.create_connection(("127.0.0.1", server.port))
        slow_body.sendall(b"POST /api/control/undo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                          b"Content-Length: 100\r\n\r\n{")
        trickled = threading.Event()

        def keep_trickling() -> None:  # a header line now and then: the head is never finished
            try:
                while not trickled.wait(0.1):
                    trickle.sendall(b"X-Slow: 1\r\n")
            except OSError:
                pass  # closed by the server

        t = threading.Thread(target=keep_trickling, daemon=True)
        t.start()
        assert closed_by_the_server(silent) == b""
        try:
            assert b"200 OK" not in closed_by_the_server(trickle)
        except ConnectionResetError:
            pass  # closed with our header lines unread: a reset is the same end
        trickled.set()
        answer = closed_by_the_server(slow_body)
        assert answer.startswith(b"HTTP/1.1 408 ") and b"the request body did not arrive within 0.5 s" in answer
        for s in (silent, trickle, slow_body):
            s.close()
        assert request(server.port, "GET", "/api/state")[0] == 200  # a whole request in time is served
    finally:
        server.stop()


def test_connections_over_the_limit_are_refused_at_once_and_the_page_serves_on(tmp_path: Path) -> None:
    from companion.web.limits import Limits

    hub = Hub(max_clients=2)
    hub.game_changed(view())
    server = WebServer(WebSettings(bind="127.0.0.1", port=0), hub, None, Limits(idle=60.0, connections=4))
    server.start()
    try:
        held = [socket.create_connection(("127.0.0.1", server.port)) for _ in range(4)]  # idle, within the limit
        held[0].sendall(b"GET /api/state HTTP/1.1\r\nHost: x\r\n\r\n")  # a kept-alive connection is one of them
        assert held[0].recv(65536).startswith(b"HTTP/1.1 200 OK")
        for _ in range(20):  # a flood beyond the limit: each one told and closed, none kept
            s = socket.create_connection(("127.0.0.1", server.port))
            answer = closed_by_the_server(s)
            s.close()
            assert answer.startswith(b"HTTP/1.1 503 ") and b"4 connections open already" in answer
        held.pop().close()
        status = 503
        for _ in range(100):  # the server notices the closed one; then a request is served again
            status = request(server.port, "GET", "/api/state")[0]
            if status == 200:
                break
            time.sleep(0.05)
        assert status == 200
        for s in held:
            s.close()
        for _ in range(30):  # connections come and go: none of them stays counted
            assert request(server.port, "GET", "/api/config")[0] in (200, 503)
        assert any(request(server.port, "GET", "/api/config")[0] == 200 for _ in range(100))
        assert server.gate.open <= 4
    finally:
        server.stop()


def test_the_connection_limit_leaves_the_game_file_descriptors(monkeypatch: pytest.MonkeyPatch) -> None:
    import resource

    from companion.web.limits import Limits, connection_limit

    for soft, clients, limit in [(1024, 8, 64), (1024, 1000, 512), (100, 8, 50), (resource.RLIM_INFINITY, 8, 64)]:
        monkeypatch.setattr(resource, "getrlimit", lambda which, soft=soft: (soft, resource.RLIM_INFINITY))
        assert connection_limit(clients) == limit  # room for the browsers, never more than half of `ulimit -n`
        assert Limits().for_clients(clients).connections == limit and Limits(connections=3).for_clients(clients).connections == 3


def test_no_answer_names_a_path_of_the_server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                              capfd: pytest.CaptureFixture) -> None:
    """The journal's errors and the loop's log lines name files for the operator; the browser never sees them:
    not in an error answer, not in the live state, not in a hint's reason."""
    import companion.hints.players

    secret = tmp_path / "secret-folder-4711"
    secret.mkdir()
    journal = secret / "journal.sqlite"
    journal.write_bytes(b"this is not a database at all")
    hub = Hub(max_clients=2)
    told = (f"the turn c1-c3 could not be written to the journal (journal {journal} cannot be written "
            f"(attempt to write a readonly database): check the permissions of the folder {secret}); press confirm again")
    hub.game_changed(view(1, VerdictView("unreadable", told, 1, None, (), ())))
    server = WebServer(WebSettings(bind="127.0.0.1", port=0, max_clients=2), hub, journal)
    server.start()

    def hint_fails(*a: Any, **kw: Any) -> Any:
        raise PermissionError(13, "Permission denied", str(tmp_path / "numba-cache" / "fastcore.nbi"))

    monkeypatch.setattr(companion.hints.players, "hint", hint_fails)
    try:
        answers = {}
        for method, path in [("GET", "/api/games"), ("GET", "/api/games/1"), ("GET", "/api/games/1/record"),
                             ("GET", "/api/state"), ("POST", "/api/hint")]:
            status, _, payload = request(server.port, method, path)
            answers[path] = (status, payload.decode())
        live = socket.create_connection(("127.0.0.1", server.port), timeout=10)
        live.sendall(b"GET /api/events HTTP/1.1\r\nHost: x\r\n\r\n")
        stream = b""
        while b"\n\n" not in stream.partition(b"event: state")[2]:
            stream += live.recv(65536)
        live.close()
        answers["/api/events"] = (200, stream.decode())
    finally:
        server.stop()
    for path, (status, text) in answers.items():
        assert str(tmp_path) not in text and "secret-folder" not in text and "numba-cache" not in text, (path, text)
    status, text = answers["/api/games"]
    assert status == 503 and json.loads(text)["error"] == \
        "<server path> is not a Netzwerk journal (not an SQLite database); it was left untouched"
    state = json.loads(answers["/api/state"][1])
    assert state["last_verdict"]["diagnosis"].startswith("the turn c1-c3 could not be written to the journal (journal "
                                                         "<server path> cannot be written")
    assert json.loads(answers["/api/hint"][1]) == {"turn": None, "reason": "no hint: [Errno 13] Permission denied: "
                                                                           "'<server path>'"}
    assert "<server path>" in answers["/api/events"][1]
    assert str(journal) in capfd.readouterr().err  # the operator reads the whole message on the server's side


@pytest.mark.parametrize("text", [
    START, "BBBBBB/6/2W3/6/6/WW1WWW 7/xxxxxxx/7/7/7/xxxxxxx/7 b", "c1-c2 d1-d3 C2-C3 E2-E1",
    "no such page: see / for the page and docs/readme-web.md for the API", "http://127.0.0.1:8080/api/state",
    "robot c1 moved diagonally (R-3): from b2 or from d2", "bad ply '1/2': expected a number",
])
def test_the_scrubber_leaves_the_game_s_own_texts_alone(text: str) -> None:
    from companion.web.privacy import Scrubber

    assert Scrubber(Path("journal.sqlite"))(text) == text
    assert Scrubber()(f"{text} (/var/lib/netzwerk/frames/12)") == f"{text} (<server path>)"


def test_a_port_the_service_unit_does_not_allow_is_one_line_naming_the_drop_in() -> None:
    import errno

    from companion.web.server import bind_problem

    unit = bind_problem(OSError(errno.EPERM, "Operation not permitted"), "0.0.0.0", 8090)
    assert "not allowed to serve on 0.0.0.0:8090: the service unit allows only the ports of its SocketBindAllow=" in unit
    assert '"Another port: a drop-in"' in unit and "the game goes on without it" in unit and "\n" not in unit
    low = bind_problem(OSError(errno.EACCES, "Permission denied"), "0.0.0.0", 80)
    assert "ports below 1024 need privileges" in low and "drop-in" not in low


def test_the_printed_address_is_one_to_open_on_a_phone() -> None:
    """Bound to every address, the page's address printed at start is this machine's on its network (the
    source of its default route), not a placeholder; the placeholder only without any network."""
    import ipaddress

    from companion.web.settings import machine_address, url_of

    found = {socket.AF_INET: "192.168.1.23", socket.AF_INET6: "fd12::5"}
    assert url_of("0.0.0.0", 8080, found.get) == "http://192.168.1.23:8080/"
    assert url_of("::", 8080, found.get) == "http://[fd12::5]:8080/"
    assert url_of("0.0.0.0", 8080, lambda family: None) == "http://<this machine's address>:8080/"
    assert url_of("127.0.0.1", 8080, found.get) == "http://127.0.0.1:8080/"
    assert url_of("::1", 8080, found.get) == "http://[::1]:8080/"
    here = machine_address()
    assert here is None or not ipaddress.ip_address(here).is_loopback  # this machine's, if it has a network


@pytest.mark.parametrize("ending", [b"\n\n", b"\r\n\n", b"\n\r\n"], ids=["LF LF", "CRLF LF", "LF CRLF"])
def test_a_head_ended_with_bare_newlines_is_answered_and_not_timed_out(ending: bytes) -> None:
    """However a client ends its request head, the gate lets go of its timer once aiohttp has the head: the
    client is answered at once (aiohttp's C parser answers bare LF with a 400), not held until the limit; where
    aiohttp's parser waits on (the pure-Python one of 3.9-3.13: AIOHTTP_NO_EXTENSIONS=1) the head's limit
    closes it; and a live stream opened in time is never cut by the head's timer."""
    from companion.web.limits import Limits

    hub = Hub(max_clients=2)
    hub.game_changed(view())
    server = WebServer(WebSettings(bind="127.0.0.1", port=0), hub, None, Limits(idle=1.0, body=1.0))
    server.start()
    try:
        head = b"GET /api/state HTTP/1.1" + ending.replace(b"\n\r\n", b"\n") + b"Host: x" + ending
        s = socket.create_connection(("127.0.0.1", server.port))
        began = time.monotonic()
        s.sendall(head)
        try:
            answer = closed_by_the_server(s, within=5.0)
        except ConnectionResetError:
            answer = b""
        s.close()
        # answered at once; or, where aiohttp's parser still waits for its blank line (the pure-Python
        # parser and LF CRLF), closed at the head's limit as a half-sent head is
        assert answer.startswith((b"HTTP/1.1 200 ", b"HTTP/1.0 400 ", b"HTTP/1.1 400 ")) or \
            (answer == b"" and time.monotonic() - began >= 0.9), answer
        live = socket.create_connection(("127.0.0.1", server.port), timeout=3.0)
        live.sendall(b"GET /api/events HTTP/1.1\r\nHost: x\r\n\r\n")
        got = b""
        while b"event: state" not in got:
            got += live.recv(65536)
        time.sleep(2.0)  # twice the head's limit: the stream goes on
        live.setblocking(False)
        try:
            assert live.recv(65536) != b""  # b"": closed by the server
        except BlockingIOError:
            pass  # open, nothing to read: as it should be
        live.close()
    finally:
        server.stop()


def test_the_gate_stops_timing_once_aiohttp_has_the_head_whatever_its_line_endings() -> None:
    """The gate asks aiohttp's protocol whether it parsed a request (its own count), so a parser that takes
    bare LF (a lenient one) is followed too; a protocol without that count: CRLF CRLF only (a parser that
    waits on after LF LF must still be timed out)."""
    import asyncio

    from companion.web.limits import ConnectionGate, Limits

    class Lenient(asyncio.Protocol):  # stands for an aiohttp protocol whose parser takes bare LF line endings
        def __init__(self) -> None:
            self._request_count = 0
            self.seen = b""

        def data_received(self, data: bytes) -> None:
            self.seen += data
            self._request_count = self.seen.replace(b"\r\n", b"\n").count(b"\n\n")

    class Uncounted(asyncio.Protocol):
        def data_received(self, data: bytes) -> None:
            pass

    class Transport:
        closed = False

        def close(self) -> None:
            self.closed = True

    async def timing(inner: asyncio.Protocol, parts: list[bytes]) -> bool:
        gate = ConnectionGate(Limits(idle=60.0, connections=4))
        gate.factory = lambda: inner
        watched = gate()
        watched.connection_made(Transport())
        for part in parts:
            watched.data_received(part)
        still = watched.timer is not None
        watched.connection_lost(None)
        assert gate.open == 0
        return still

    for inner in (Lenient, Uncounted):
        assert asyncio.run(timing(inner(), [b"GET / HTTP/1.1\r\nHost: x\r", b"\n\r\n"])) is False
        assert asyncio.run(timing(inner(), [b"GET / HTTP/1.1\r\nHost: x\r\n"])) is True  # half a head: timed
    assert asyncio.run(timing(Lenient(), [b"GET / HTTP/1.1\nHost: x\n", b"\n"])) is False  # its parser has it
    assert asyncio.run(timing(Uncounted(), [b"GET / HTTP/1.1\nHost: x\n", b"\n"])) is True  # nobody says so


def test_a_max_clients_beyond_the_open_file_limit_is_lowered_and_said(monkeypatch: pytest.MonkeyPatch,
                                                                     capsys: pytest.CaptureFixture) -> None:
    """[web] max_clients is the most browsers following the game: where half of `ulimit -n` cannot hold the
    connections they need, fewer are let follow (never more than the connections can serve) and one line on
    stderr says so; the page says the lowered number (/api/config) and refuses the one more."""
    import resource

    from companion.web.limits import capacity

    monkeypatch.setattr(resource, "getrlimit", lambda which: (1024, 524288))
    room = capacity(8)
    assert (room.connections, room.clients, room.lowered) == (64, 8, None)
    assert capacity(82).lowered is None and capacity(83).clients == 82
    hub, server = open_page(WebSettings(bind="127.0.0.1", port=0, max_clients=1000), None, "run")
    try:
        assert (server.limits.connections, hub.max_clients) == (512, 82)
        err = capsys.readouterr().err
        assert err == ("netzwerk run: [web] max_clients 1000 needs 6016 connections at once (6 per browser and 16), "
                       "more than half of this process's open-file limit (ulimit -n 1024): the page takes at most "
                       "512 connections and 82 browsers following the game (more: raise the limit, LimitNOFILE= in "
                       "a drop-in of the service unit or ulimit -n; or a lower max_clients)\n")
        status, _, payload = request(server.port, "GET", "/api/config")
        assert status == 200 and json.loads(payload)["max_clients"] == 82
        assert all(hub.join() is not None for _ in range(82)) and hub.join() is None  # the 83rd: come back later
    finally:
        server.stop()
    hub, server = open_page(WebSettings(bind="127.0.0.1", port=0, max_clients=8), None, "run")
    try:
        assert (server.limits.connections, hub.max_clients, server.lowered) == (64, 8, None)
        assert capsys.readouterr().err == ""  # nothing lowered, nothing said
    finally:
        server.stop()
