"""The live view's web server: read-only, token-guarded, bounded, never in the game's way.

    state = LiveState()
    server = LiveServer(state, bind="127.0.0.1", port=0).start()
    print(server.url)                    # http://127.0.0.1:PORT/?token=...
    state.publish({...})                 # what the page shows (companion/live/feed.py)
    server.stop()                        # the port is closed

Endpoints (each needs ``?token=`` with the token of this run, else 403 with no body):

- ``GET /`` the page (``?overlay=1`` for a streaming program's browser source; see
  :mod:`companion.live.page`);
- ``GET /state.json`` what the page shows, as JSON;
- ``GET /events`` the same as Server-Sent Events: one ``data:`` line per change.

By construction:

- nothing changes anything: only GET and HEAD are served (any other method: 405);
- the token is 128 random bits, new each time the server starts, compared in constant time;
- it binds to the address given (loopback by default) and serves no file: the page and its
  script are built in memory, with no external script, font or image;
- at most :data:`MAX_VIEWERS` connections at once; one more is answered 503 and closed by the
  accepting thread without a thread of its own, so thousands of connections cost nothing;
- a request line over :data:`MAX_URL` bytes, or headers past the standard library's limits
  (64 KiB a line, 100 lines), are refused; a request must arrive within
  :data:`REQUEST_SECONDS`;
- a viewer holds a reference to the latest state, never a queue: memory per viewer is a
  socket and a thread; a viewer that does not read is dropped after :data:`SEND_SECONDS`;
  :meth:`LiveState.publish` never waits for any viewer.
"""

from __future__ import annotations

import hmac
import json
import secrets
import select
import socket
import threading
import time
from collections.abc import Callable
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

MAX_VIEWERS = 16
MAX_URL = 2048
REQUEST_SECONDS = 10.0
SEND_SECONDS = 5.0
KEEPALIVE_SECONDS = 15.0


class LiveState:
    """The latest public state, JSON-encoded once per change, with a version number that
    viewers wait on. Thread-safe; :meth:`publish` never blocks on a viewer."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._version = 0
        self._body = b"{}"

    def publish(self, state: dict[str, Any]) -> int:
        body = json.dumps({**state, "version": self._version + 1}, ensure_ascii=False,
                          separators=(",", ":")).encode("utf-8")
        with self._cond:
            self._version += 1
            self._body = body
            self._cond.notify_all()
            return self._version

    def snapshot(self) -> tuple[int, bytes]:
        with self._cond:
            return self._version, self._body

    def wait_newer(self, version: int, timeout: float) -> tuple[int, bytes]:
        """The state once its version is past ``version`` (or as it is after ``timeout``)."""
        with self._cond:
            self._cond.wait_for(lambda: self._version != version, timeout)
            return self._version, self._body


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 64

    def __init__(self, address: tuple[str, int], live: LiveServer) -> None:
        self.live = live
        self.slots = threading.BoundedSemaphore(MAX_VIEWERS)
        family = socket.AF_INET6 if ":" in address[0] else socket.AF_INET
        self.address_family = family
        super().__init__(address, _Handler)

    def process_request(self, request: Any, client_address: Any) -> None:
        # one thread per viewer, at most MAX_VIEWERS: past that, a 503 from this thread
        if not self.slots.acquire(blocking=False):
            try:
                request.settimeout(0.5)
                request.sendall(b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n"
                                b"Connection: close\r\nRetry-After: 5\r\n\r\n")
            except OSError:
                pass
            self.shutdown_request(request)
            return
        try:
            super().process_request(request, client_address)
        except Exception:
            self.slots.release()
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.slots.release()

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass   # a viewer that went away mid-answer: nothing to report


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"
    server_version = "TabletopCompanion"
    sys_version = ""
    timeout = REQUEST_SECONDS

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass   # no access log (the token is in every URL)

    # every method goes through here: the token first, then GET/HEAD only
    def handle_one_request(self) -> None:
        try:
            self.raw_requestline = self.rfile.readline(MAX_URL + 1)
            if len(self.raw_requestline) > MAX_URL:
                self.requestline, self.request_version, self.command = "", "HTTP/1.1", ""
                self._bare(HTTPStatus.REQUEST_URI_TOO_LONG)
                return
            if not self.raw_requestline:
                self.close_connection = True
                return
            if not self.parse_request():   # answers 400/431 itself
                return
            self._dispatch()
            self.wfile.flush()
        except (TimeoutError, OSError):
            self.close_connection = True

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        self._bare(HTTPStatus(code))

    def _bare(self, status: HTTPStatus, extra: dict[str, str] | None = None) -> None:
        """A status and nothing else (no body, no server words)."""
        self.close_connection = True
        try:
            self.send_response_only(status)
            self.send_header("Content-Length", "0")
            self.send_header("Connection", "close")
            for k, v in (extra or {}).items():
                self.send_header(k, v)
            self.end_headers()
        except OSError:
            pass

    def _dispatch(self) -> None:
        parts = urlsplit(self.path)
        query = parse_qs(parts.query, max_num_fields=20)
        token = query.get("token", [""])[0]
        if not hmac.compare_digest(token.encode("utf-8", "replace"),
                                   self.server.live.token.encode()):
            self._bare(HTTPStatus.FORBIDDEN)
            return
        if self.command not in ("GET", "HEAD"):
            self._bare(HTTPStatus.METHOD_NOT_ALLOWED, {"Allow": "GET, HEAD"})
            return
        live = self.server.live
        if parts.path == "/":
            self._send(live.page(query), "text/html; charset=utf-8")
        elif parts.path == "/state.json":
            self._send(live.state.snapshot()[1], "application/json; charset=utf-8")
        elif parts.path == "/events":
            self._events()
        else:
            self._bare(HTTPStatus.NOT_FOUND)

    def _headers(self, content_type: str) -> None:
        self.send_header("Content-Type", content_type)
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Referrer-Policy", "no-referrer")
        self.send_header("X-Frame-Options", "DENY")
        self.send_header("Content-Security-Policy",
                         "default-src 'none'; script-src 'unsafe-inline'; style-src "
                         "'unsafe-inline'; connect-src 'self'; img-src data:; "
                         "base-uri 'none'; form-action 'none'; frame-ancestors 'none'")

    def _send(self, body: bytes, content_type: str) -> None:
        self.send_response(HTTPStatus.OK)
        self._headers(content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command == "GET":
            self.wfile.write(body)

    def _events(self) -> None:
        """Server-Sent Events: the state now, then each new one, until the viewer or the
        server goes. A write that cannot go out within SEND_SECONDS drops the viewer."""
        self.close_connection = True
        self.send_response(HTTPStatus.OK)
        self._headers("text/event-stream; charset=utf-8")
        self.send_header("Connection", "close")
        self.end_headers()
        if self.command != "GET":
            return
        live = self.server.live
        self.connection.settimeout(SEND_SECONDS)
        version, body = live.state.snapshot()
        self.wfile.write(b"retry: 1000\ndata: " + body + b"\n\n")
        self.wfile.flush()
        last_sent = time.monotonic()
        while not live.stopping.is_set():
            newer, body = live.state.wait_newer(version, 0.5)
            if live.stopping.is_set() or self._gone():
                break
            if newer != version:
                version = newer
                self.wfile.write(b"data: " + body + b"\n\n")
                self.wfile.flush()
                last_sent = time.monotonic()
            elif time.monotonic() - last_sent > KEEPALIVE_SECONDS:
                self.wfile.write(b": still here\n\n")
                self.wfile.flush()
                last_sent = time.monotonic()


    def _gone(self) -> bool:
        """The viewer closed its end (a viewer sends nothing after its request)."""
        try:
            readable, _w, _x = select.select([self.connection], [], [], 0)
            return bool(readable) and not self.connection.recv(1, socket.MSG_PEEK)
        except (OSError, ValueError):
            return True


class LiveServer:
    """The live view's server on ``bind``:``port`` (0: a free port), serving ``state``.
    ``page(query) -> bytes`` builds the page (:func:`companion.live.page.render` by default)."""

    def __init__(self, state: LiveState, bind: str = "127.0.0.1", port: int = 0,
                 page: Callable[[dict[str, list[str]]], bytes] | None = None) -> None:
        self.state = state
        self.bind, self.port = bind, port
        self.token = secrets.token_urlsafe(16)
        self.stopping = threading.Event()
        if page is None:
            from .page import render

            def page(query: dict[str, list[str]]) -> bytes:
                return render(self.token, query)
        self.page = page
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    def start(self) -> LiveServer:
        """Listen (OSError names the address when it cannot: in use, not this machine's)."""
        self._server = _Server((self.bind, self.port), self)
        self.port = self._server.server_address[1]
        self._thread = threading.Thread(target=self._server.serve_forever,
                                        kwargs={"poll_interval": 0.2}, name="live-view",
                                        daemon=True)
        self._thread.start()
        return self

    @property
    def running(self) -> bool:
        return self._server is not None

    @property
    def url(self) -> str:
        host = self.bind if self.bind not in ("0.0.0.0", "::", "") else _lan_address()
        if ":" in host:
            host = f"[{host}]"
        return f"http://{host}:{self.port}/?token={self.token}"

    def stop(self) -> None:
        """Stop serving; the port is closed when this returns."""
        self.stopping.set()
        server, self._server = self._server, None
        if server is not None:
            server.shutdown()
            server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None


def _lan_address() -> str:
    """This machine's address on the local network (no packet is sent: a UDP socket is only
    pointed at a private address to learn which interface would be used)."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        s.connect(("192.168.255.255", 9))
        return str(s.getsockname()[0])
    except OSError:
        return "127.0.0.1"
    finally:
        s.close()


def local_addresses() -> list[tuple[str, str]]:
    """(address, what it is) the live view can be bound to: loopback first (this tablet
    only), then this machine's address on the local network when there is one."""
    out = [("127.0.0.1", "loopback")]
    lan = _lan_address()
    if lan != "127.0.0.1":
        out.append((lan, "network"))
    return out
