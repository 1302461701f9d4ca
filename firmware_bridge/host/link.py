"""The one reader loop that owns the tower's port.

:class:`Link` runs a thread that opens the port with ``serial.serial_for_url`` (real ports,
pty paths, ``socket://``, ``loop://``, ``sim://``), feeds what it reads to a
:class:`~firmware_bridge.host.protocol.HostProtocol`, writes that protocol's HELLOs and ACKs, and
reconnects after any failure. Whatever the port throws after an unplug (``SerialException``,
a bare ``OSError``, ``termios.error``) ends only the current connection, never the thread.

Events go to ``on_event`` on the reader thread; a GUI must hop to its own thread there.
"""

from __future__ import annotations

import errno
import logging
import os
import struct
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any

import serial

from ..wire import messages as m
from . import urlhandlers  # noqa: F401  (registers sim://)
from .discovery import PortNotFoundError, UsbMatch, resolve
from .events import (
    Connected,
    HandshakeTimeout,
    LinkEvent,
    LinkLost,
    PortBusy,
    PortNotFound,
    ProtocolMismatch,
    Reconnecting,
)
from .protocol import HostProtocol, TeachingUnavailable
from .rolls import RollStore

log = logging.getLogger(__name__)

try:  # POSIX: pyserial lets termios.error through unwrapped; Windows has no termios
    from termios import error as _TermiosError
    _POSIX_ERRORS: tuple[type[BaseException], ...] = (_TermiosError,)
except ImportError:  # pragma: no cover - exercised by the no-POSIX import test
    _POSIX_ERRORS = ()
PORT_ERRORS: tuple[type[BaseException], ...] = (serial.SerialException, OSError,
                                                *_POSIX_ERRORS)
REOPEN_INTERVAL = 0.2
READ_TIMEOUT = 0.05


class _Reconnect(Exception):
    def __init__(self, reason: str, *, next_baud: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.next_baud = next_baud


def classify_open_error(port: str, exc: BaseException) -> LinkEvent:
    """Port-not-found or port-busy, from what pyserial (or the OS) said."""
    text = str(exc)
    code = getattr(exc, "errno", None)
    if code in (errno.ENOENT, errno.ENODEV, errno.ENXIO) or "No such file" in text \
            or "could not open port" in text and "Errno 2" in text:
        return PortNotFound(port, text)
    if code in (errno.EBUSY, errno.EAGAIN, errno.EACCES) or "exclusively lock" in text \
            or "busy" in text.lower() or "Errno 16" in text or "Errno 11" in text:
        return PortBusy(port, text)
    return PortNotFound(port, text)


def _checked(msg: m.Message) -> m.Message:
    """``msg`` if it can go on the wire; a ValueError for the caller otherwise (the reader
    thread must never be the one to find a field out of range)."""
    try:
        m.parse(msg.pack())
    except (ValueError, struct.error) as exc:
        raise ValueError(f"{type(msg).__name__}: {exc}") from None
    return msg


class Link:
    def __init__(self, url: str | None, store: RollStore,
                 on_event: Callable[[LinkEvent], None] | None = None, *,
                 usb: UsbMatch | None = None, baudrates: Sequence[int] = (115200,),
                 reopen_interval: float = REOPEN_INTERVAL) -> None:
        self.url = url
        self.usb = usb or UsbMatch()
        self.baudrates = tuple(baudrates) or (115200,)
        self.reopen_interval = reopen_interval
        self.protocol = HostProtocol(store, port=url or "auto")
        self._on_event = on_event
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._baud_index = 0
        self.state = "stopped"
        self.reason = ""
        self.port_name = url or "auto"
        self.reconnects = 0
        self.opens = 0
        self.last_reconnect_s: float | None = None
        self._lost_at: float | None = None
        self._opened_at: float | None = None
        self._last_open_problem: str | None = None
        self._commands: deque[m.Message] = deque(maxlen=64)  # 1.2 commands for the reader

    # -- control --------------------------------------------------------------------------
    def start(self) -> Link:
        if self._thread is None:
            self._stop.clear()
            self._thread = threading.Thread(target=self._run, name="dice-tower-link", daemon=True)
            self._thread.start()
        return self

    def stop(self, timeout: float = 2.0) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None
        self._set_state("stopped", "")

    def __enter__(self) -> Link:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    # -- 1.2: teaching and the tray snapshot (any thread) -----------------------------------
    def teaching_unavailable(self) -> str:
        """Why this tower cannot be taught or show its tray ("" when it can)."""
        return self.protocol.teaching_unavailable()

    def command(self, msg: m.Message) -> None:
        """Send a 1.2 command from any thread (the reader thread writes it). Raises
        :class:`~firmware_bridge.host.protocol.TeachingUnavailable` saying why it cannot go."""
        why = self.protocol.commands_refused()
        if why:
            raise TeachingUnavailable(why)
        self._commands.append(msg)

    def teach_start(self, kind: str, faces: Sequence[str] = ()) -> None:
        self.command(m.TeachStart(kind, tuple(faces)))

    def teach_stop(self) -> None:
        self.command(m.TeachStop())

    def teach_answer(self, picture_id: int, face: str | None, colour: str | None = None
                     ) -> None:
        """``face`` None: skip the picture. ``colour``: the die's colour, learned with its
        face (TEACH_ANSWER_C)."""
        if colour and face:
            self.command(m.TeachAnswerC(picture_id, face, colour))
        else:
            self.command(m.TeachAnswer(picture_id, face or ""))

    def teach_undo(self, picture_id: int) -> None:
        self.command(m.TeachUndo(picture_id))

    # -- 1.3: a die to check (any thread) --------------------------------------------------
    def dice_check_unavailable(self) -> str:
        """Why this tower cannot show a die's picture or keep an example ("" when it can)."""
        return self.protocol.checks_refused()

    def die_look(self, key: tuple[int, int], slot: int) -> bool:
        """Ask the tower for a picture of the die in ``slot`` of the roll ``key``
        (``RollEvent.key``): a reading the player disputes. It comes as a ``DiePicture``, or
        a ``TeachStatus`` saying why not (the tower keeps the frames of its last 4 rolls).
        False, and nothing is sent, when the tower does not speak 1.3."""
        if self.protocol.checks_refused():
            return False
        boot_key, seq = key
        self._commands.append(_checked(m.DieLook(boot_key & 0xFFFFFFFF, seq, slot)))
        return True

    def keep_example(self, picture_id: int, face: str, colour: str | None = None) -> bool:
        """Keep the die of ``DiePicture`` ``picture_id`` as a taught example of ``face`` (and
        of ``colour``): the tower saves its profile and answers with a ``TeachStatus``
        (``FACE: kept``, or why not). False, and nothing is sent, when the tower does not
        speak 1.3."""
        if self.protocol.checks_refused():
            return False
        self._commands.append(_checked(m.KeepExample(picture_id, face, colour or "")))
        return True

    def snapshot(self, max_width: int = 640) -> int:
        request = struct.unpack("<I", os.urandom(4))[0] or 1
        self.command(m.Snapshot(request, max_width))
        return request

    def counters(self) -> dict[str, Any]:
        d = self.protocol.decoder.counters
        p = self.protocol.counters
        return {"crc_errors": d.crc_errors, "bad_frames": d.bad_frames,
                "oversized_frames": d.oversized_frames, "frames": d.frames,
                "retransmits": p.retransmits, "duplicates": p.duplicates,
                "rolls_recorded": p.rolls_recorded, "drops_declared": p.drops_declared,
                "rolls_lost": p.rolls_lost, "resets": p.resets, "reconnects": self.reconnects,
                "late_rolls": p.late_rolls, "reused_boot_ids": p.reused_boot_ids,
                "unreadable_dice": p.unreadable_dice, "stale_frames": p.stale_frames,
                "unknown_types": p.unknown_types, "pictures": p.pictures,
                "picture_gaps": p.picture_gaps, "die_pictures": p.die_pictures}

    # -- internals ------------------------------------------------------------------------
    def _emit(self, event: LinkEvent) -> None:
        if self._on_event is not None:
            try:
                self._on_event(event)
            except Exception:  # a listener's bug must not take the link down
                log.exception("dice tower event listener failed on %r", event)

    def _set_state(self, state: str, reason: str) -> None:
        self.state, self.reason = state, reason

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self._connect_once()
            except _Reconnect as exc:
                if exc.next_baud:
                    self._baud_index = (self._baud_index + 1) % len(self.baudrates)
            except Exception as exc:  # never let the thread die: report and start over
                log.exception("dice tower link: unexpected error")
                self._lost(f"unexpected error: {exc!r}")
            self._stop.wait(self.reopen_interval)

    def _lost(self, reason: str) -> None:
        if self.state in ("connected", "connecting"):
            self._emit(LinkLost(self.port_name, reason))
            self._lost_at = time.monotonic()
            self._set_state("reconnecting", reason)
            self._emit(Reconnecting(self.port_name, reason))

    def _connect_once(self) -> None:
        try:
            url = resolve(self.url, self.usb)
        except PortNotFoundError as exc:
            self._open_failed(PortNotFound(self.url or "auto", str(exc)))
            return
        self.port_name = url
        self.protocol.port = url
        try:
            port = serial.serial_for_url(url, baudrate=self.baudrates[self._baud_index],
                                         timeout=READ_TIMEOUT, write_timeout=1.0, exclusive=True)
        except PORT_ERRORS as exc:
            self._open_failed(classify_open_error(url, exc))
            return
        self.opens += 1
        self._last_open_problem = None
        self._opened_at = time.monotonic()
        if self.state != "connected":
            self._set_state("connecting", "")
        try:
            self._pump(port)
        except PORT_ERRORS as exc:
            self._lost(f"{type(exc).__name__}: {exc}")
        finally:
            try:
                port.close()
            except PORT_ERRORS:
                pass

    def _open_failed(self, event: LinkEvent) -> None:
        key = f"{type(event).__name__}:{getattr(event, 'detail', '')}"
        if key != self._last_open_problem:  # say it once per outage, not five times a second
            self._last_open_problem = key
            self._emit(event)
        if self.state in ("connected", "connecting"):
            self._lost(getattr(event, "detail", ""))
        if self.state not in ("reconnecting",):
            self._set_state("not_found" if isinstance(event, PortNotFound) else "busy",
                            getattr(event, "detail", ""))

    def _pump(self, port: serial.SerialBase) -> None:
        proto = self.protocol
        proto.begin(time.monotonic())
        port.write(proto.take_output())
        store = proto.store   # a RollStore: it declares recorded_count and offer_below
        while not self._stop.is_set():
            waiting = port.in_waiting
            data = port.read(waiting if waiting else 1)
            now = time.monotonic()
            before = store.recorded_count
            events = proto.feed(data, now) if data else []
            if any(isinstance(e, Connected) for e in events):
                store.offer_below(before)  # these frames' rolls reach the app as their own events
            events += proto.tick(now)
            while self._commands:
                try:
                    proto.command(self._commands.popleft(), now)
                except TeachingUnavailable as exc:  # the tower changed since it was queued
                    log.info("dice tower command dropped: %s", exc)
            out = proto.take_output()
            if out:
                port.write(out)
            for event in events:
                self._handle(event, now)

    def _handle(self, event: LinkEvent, now: float) -> None:
        if isinstance(event, Connected):
            if self._lost_at is not None:
                self.reconnects += 1
                self.last_reconnect_s = now - self._lost_at
                self._lost_at = None
            self._set_state("connected", "")
        elif isinstance(event, ProtocolMismatch):
            self._set_state("mismatch", f"the tower speaks protocol {event.tower_version}, "
                                        f"this app {event.host_version}")
        self._emit(event)
        if isinstance(event, LinkLost):
            self._lost_at = now
            self._set_state("reconnecting", event.reason)
            self._emit(Reconnecting(self.port_name, event.reason))
            raise _Reconnect(event.reason)
        if isinstance(event, HandshakeTimeout):
            self._set_state("reconnecting", event.detail)
            raise _Reconnect(event.detail, next_baud=len(self.baudrates) > 1)
