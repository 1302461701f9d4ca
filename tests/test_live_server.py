"""The live view's server (companion/live/server.py), over real sockets: the token, read-only
by construction, bounded connections, live updates, a stalled viewer, and the port closed
when it stops; and its page (no external asset, nothing from the state read as markup)."""

from __future__ import annotations

import json
import socket
import time
import urllib.error
import urllib.request

import pytest

from companion.live.feed import compose, roll_view
from companion.live.server import MAX_VIEWERS, LiveServer, LiveState

RED7 = {"kind": "d12", "colour": "red", "face": "7", "status": "clean"}


@pytest.fixture
def live():
    state = LiveState()
    state.publish(compose(None, None, None))
    server = LiveServer(state).start()
    yield state, server
    server.stop()


def request(server, path, method="GET", headers=None, body=None):
    req = urllib.request.Request(f"http://127.0.0.1:{server.port}{path}", method=method,
                                 headers=headers or {}, data=body)
    try:
        with urllib.request.urlopen(req, timeout=5) as r:
            return r.status, dict(r.headers), r.read()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read()


def raw(server, data: bytes, timeout: float = 5.0) -> bytes:
    with socket.create_connection(("127.0.0.1", server.port), timeout=timeout) as s:
        s.sendall(data)
        out = b""
        while True:
            try:
                chunk = s.recv(65536)
            except (ConnectionResetError, TimeoutError):
                break
            if not chunk:
                break
            out += chunk
        return out


def events(server):
    """A viewer of /events: yields each state sent."""
    s = socket.create_connection(("127.0.0.1", server.port), timeout=5)
    s.sendall(f"GET /events?token={server.token} HTTP/1.1\r\nHost: t\r\n\r\n".encode())
    f = s.makefile("rb")
    assert f.readline().startswith(b"HTTP/1.1 200")

    def next_state():
        while True:
            line = f.readline()
            if not line:
                raise EOFError
            if line.startswith(b"data: "):
                return json.loads(line[6:])
    return s, next_state


def test_without_the_token_403_and_nothing_else(live):
    _state, server = live
    for path in ("/", "/state.json", "/events", "/?token=wrong", "/state.json?token=" +
                 server.token[:-1], "/../../etc/passwd", "/favicon.ico"):
        for method in ("GET", "HEAD", "POST", "DELETE"):
            status, headers, body = request(server, path, method)
            assert (status, body) == (403, b""), (path, method)
            assert "Python" not in headers.get("Server", "")      # no versions said


def test_read_only_by_construction(live):
    state, server = live
    before = state.snapshot()
    t = f"?token={server.token}"
    for method in ("POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "FOO"):
        status, headers, body = request(server, "/state.json" + t, method, body=b"{}")
        assert status == 405 and body == b"" and headers["Allow"] == "GET, HEAD", method
    assert request(server, "/nothing" + t)[0] == 404
    assert request(server, "/..%2f..%2fetc%2fpasswd" + t)[0] == 404
    assert request(server, "/" + "a" * 5000 + t)[0] == 414
    huge = raw(server, f"GET /state.json{t} HTTP/1.1\r\nHost: x\r\nX: {'y' * 70000}\r\n\r\n".encode())
    assert huge.split(b"\r\n")[0].split()[1] in (b"400", b"431")
    many = "".join(f"X{i}: y\r\n" for i in range(150))
    assert raw(server, f"GET /state.json{t} HTTP/1.1\r\nHost: x\r\n{many}\r\n".encode()
               ).split(b"\r\n")[0].split()[1] == b"431"
    assert state.snapshot() == before                     # nothing changed anything


def test_the_state_the_page_and_its_headers(live):
    state, server = live
    state.publish(compose([RED7, RED7], 1000.0, None))
    status, headers, body = request(server, f"/state.json?token={server.token}")
    data = json.loads(body)
    assert status == 200 and data["roll"]["total"] == 14 and data["roll"]["counts"] == [["7", 2]]
    assert headers["Cache-Control"] == "no-store" and headers["Referrer-Policy"] == "no-referrer"
    assert "default-src 'none'" in headers["Content-Security-Policy"]
    status, headers, page = request(server, f"/?token={server.token}")
    text = page.decode()
    assert status == 200 and headers["Content-Type"].startswith("text/html")
    # no external script, font, style or image: nothing the page loads is elsewhere
    for outside in ("<link", "src=", "@import", "url(", "http://", "https://"):
        assert outside not in text, outside
    assert "innerHTML" not in text and "textContent" in text   # state drawn as text only
    overlay = request(server, f"/?token={server.token}&overlay=1&size=90&show=roll,total")[2]
    assert b"background: transparent" in overlay and b"--base: 90px" in overlay
    assert b'new Set(["roll", "total"])' in overlay
    assert b"background: transparent" not in page


def test_a_roll_reaches_every_viewer_at_once_and_a_stalled_one_slows_nobody(live):
    state, server = live
    stalled = socket.create_connection(("127.0.0.1", server.port))   # never reads
    stalled.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    stalled.sendall(f"GET /events?token={server.token} HTTP/1.1\r\nHost: t\r\n\r\n".encode())
    sock, next_state = events(server)
    first = next_state()
    assert first["roll"] is None
    big = [RED7] * 2000                                   # ~300 kB a state: the stalled
    for _ in range(20):                                    # viewer's buffers fill at once
        state.publish(compose(big, 1.0, None))
    start = time.perf_counter()
    state.publish(compose([RED7], 2.0, None))
    publish_s = time.perf_counter() - start
    while True:
        got = next_state()
        if got["roll"]["total"] == 7:
            break
    assert publish_s < 0.05                                # publish never waits on a viewer
    sock.close()
    stalled.close()


def test_at_most_sixteen_viewers_and_the_port_closed_when_off():
    state = LiveState()
    server = LiveServer(state).start()
    first_token = server.token
    viewers = [events(server)[0] for _ in range(MAX_VIEWERS)]
    refused = raw(server, f"GET /state.json?token={server.token} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
    assert refused.startswith(b"HTTP/1.1 503")
    for v in viewers:
        v.close()
    time.sleep(0.8)                                        # their threads see them go
    assert request(server, f"/state.json?token={server.token}")[0] == 200
    port = server.port
    server.stop()
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", port), timeout=1)
    again = LiveServer(state).start()
    try:
        assert again.token != first_token and len(again.token) >= 22
    finally:
        again.stop()


def test_a_roll_in_players_words():
    view = roll_view([RED7, {"kind": "d12", "colour": "yellow", "face": None, "status": "cocked"},
                      {"kind": "kotd", "colour": "black", "face": "DESTRUCTION", "status": "clean"},
                      {"kind": "spawn", "colour": None, "face": "TILE_ON_SPAWN_2", "status": "clean"}])
    assert [d["words"] for d in view["dice"]] == ["7", "?", "DESTRUCTION", "Tile on Spawn"]
    assert [d["clean"] for d in view["dice"]] == [True, False, True, True]
    assert view["total"] == 7                       # the numbered dice read cleanly
    assert view["dice"][1]["title"] == "yellow d12 ? (cocked)"
    assert roll_view([view_die for view_die in ()])["total"] is None


def test_a_fuzz_of_bad_requests_and_thousands_of_connections_leaves_it_serving(live):
    """Bad paths, methods, headers and bytes, no token, and 1,500 connections opened and
    dropped: the state is untouched, the server still answers, and its threads are bounded."""
    import random
    import threading

    state, server = live
    before = state.snapshot()
    rng = random.Random(29)
    junk = [b"\x00\xff" * 50, b"GET\r\n\r\n", b"GET / HTTP/9.9\r\n\r\n", b"BREW /coffee HTTP/1.1\r\n\r\n",
            b"GET /state.json?token=" + b"%" * 300 + b" HTTP/1.1\r\n\r\n",
            b"POST /state.json?token=" + server.token.encode()
            + b" HTTP/1.1\r\nContent-Length: 99999999\r\n\r\n",
            b"GET /events?token=" + server.token.encode() + b" HTTP/1.0\r\nRange: bytes=0-\r\n\r\n"]
    for _ in range(30):
        data = rng.choice(junk) if rng.random() < 0.7 else bytes(rng.randrange(256) for _ in range(200))
        try:
            raw(server, data, timeout=0.2)                  # an answer, or the server waits
        except OSError:
            pass
    threads_before = threading.active_count()
    opened = []
    for _ in range(1500):
        try:
            opened.append(socket.create_connection(("127.0.0.1", server.port), timeout=0.3))
        except OSError:
            pass                                              # the backlog is full: refused
        if len(opened) >= 40:
            for s in opened:
                s.close()
            opened = []
    for s in opened:
        s.close()
    assert threading.active_count() <= threads_before + 16    # one thread a viewer, at most 16
    assert state.snapshot() == before
    wait = time.monotonic() + 15
    while request(server, f"/state.json?token={server.token}")[0] != 200:
        assert time.monotonic() < wait, "the server does not answer again"
        time.sleep(0.2)
