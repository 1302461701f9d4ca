"""A simulated dice tower: protocol 1.1's tower side in CPython, with fault injection.

It speaks 1.1 unless told otherwise (``minor``); the camera tower runs it as 1.3 with its
teaching and die pictures behind ``on_command``. As 1.3 with no ``on_command`` (the simulated
tower has no camera) it answers DIE_LOOK and KEEP_EXAMPLE with a TEACH_STATUS saying so.

:class:`SimTower` is the tower's logic (ring, resends with backoff, heartbeats, drop notices,
ring kept across resets as if in non-volatile memory); it does no I/O. :class:`FaultyWire`
sits between it and a transport and drops, duplicates, corrupts, truncates or delays frames.
:class:`SimServer` drives both on a thread over a transport: a pty (``simulate --pty``, a
:class:`~firmware_bridge.testing.ptyport.PtyPort`), a TCP socket (``simulate --socket``) or
in-process (``sim://`` URLs, see ``host/urlhandlers/protocol_sim.py``).

The reference firmware (``firmware/``) is a separate implementation of the same spec, so the
two check each other against the host.
"""

from __future__ import annotations

import random
import socket
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from ..wire import messages as m
from ..wire.codec import FrameDecoder, encode_frame

FIRMWARE = "sim 1.1.0"
NO_CAMERA = "no camera: this tower has no pictures of its dice"
D6 = m.DieKind("d6", tuple(str(i) for i in range(1, 7)))
D12 = m.DieKind("d12", tuple(str(i) for i in range(1, 13)))
KOTD = m.DieKind("kotd", ("CLAW", "HEART", "ENERGY", "FAME", "DESTRUCTION", "POWER"))
SPAWN = m.DieKind("spawn", ("TILE_UNDER_YOU", "POWER_UP_ON_SPAWN", "TILE_ON_SPAWN",
                            "TILE_ON_SPAWN_2", "NO_SPAWN", "NO_SPAWN_2"))
KINDS = (D6, D12, KOTD, SPAWN)
COLOURS = ("red", "yellow", "white", "black")
N_SLOTS = 8
DEFAULT_RING = 32

DICE_SETS: dict[str, list[tuple[str, str | None]]] = {
    "takkure": [("d12", "red"), ("d12", "red"), ("d12", "red"),
                ("d12", "yellow"), ("d12", "yellow"), ("d12", "yellow")],
    "kotd": [("kotd", "black")] * 6,
    "d6": [("d6", "white")] * 2,
    "spawn": [("spawn", "white")],
}
"""Named dice sets for random rolls: (kind, colour) per die."""


def _kind_index(name: str) -> int:
    for i, kind in enumerate(KINDS):
        if kind.name == name:
            return i
    raise ValueError(f"unknown die kind {name!r}; the simulated tower reads "
                     + ", ".join(k.name for k in KINDS))


def parse_dice(spec: str, rng: random.Random) -> tuple[m.Die, ...]:
    """``"takkure"`` (a named set, random faces), or dice like ``d12:red:7 kotd:-:CLAW
    d12:yellow:?cocked d6:white:?unreadable`` (kind:colour:face, ``-`` = colour unknown)."""
    spec = spec.strip()
    if spec in DICE_SETS:
        dice = []
        for slot, (kind_name, colour) in enumerate(DICE_SETS[spec]):
            k = _kind_index(kind_name)
            dice.append(m.Die(slot, k, rng.randrange(len(KINDS[k].faces)),
                              COLOURS.index(colour) if colour else m.NONE, m.CLEAN))
        return tuple(dice)
    dice = []
    for slot, token in enumerate(spec.split()):
        parts = token.split(":")
        if len(parts) != 3:
            raise ValueError(f"die {token!r}: write kind:colour:face, e.g. d12:red:7")
        kind_name, colour, face = parts
        k = _kind_index(kind_name)
        colour_i = m.NONE if colour in ("-", "") else COLOURS.index(colour)
        status = m.CLEAN
        if face.startswith("?"):
            unread = {"?cocked": m.COCKED, "?unreadable": m.UNREADABLE}.get(face)
            if unread is None:
                raise ValueError(f"die {token!r}: ?cocked or ?unreadable")
            status = unread
            face_i = m.NONE
        elif face == "*":
            face_i = rng.randrange(len(KINDS[k].faces))
        else:
            if face not in KINDS[k].faces:
                raise ValueError(f"die {token!r}: {kind_name} has faces {', '.join(KINDS[k].faces)}")
            face_i = KINDS[k].faces.index(face)
        dice.append(m.Die(slot, k, face_i, colour_i, status))
    if not dice:
        raise ValueError("a roll needs at least one die")
    if len(dice) > N_SLOTS:
        raise ValueError(f"{len(dice)} dice; the tray has {N_SLOTS} slots")
    return tuple(dice)


@dataclass
class _Pending:
    roll: m.Roll | None
    drop: m.Dropped | None
    due: float
    wait: float
    attempts: int = 0
    silent: int = 0  # copies still to be lost on the wire (fault injection after a reset)


@dataclass
class NonVolatile:
    """What survives a reset of the simulated tower: its ring (as flash or RTC memory would)."""

    ring: list[tuple[int, m.Roll]] = field(default_factory=list)  # (order, roll)
    boots: int = 0
    last_boot_id: int = 0  # 1.1: the next boot counts up from it

    def save(self) -> None:
        """Called after every change of the ring and at every boot; memory needs nothing.
        A subclass keeps it on disk (the camera tower's ring file)."""


class SimTower:
    RESEND_FIRST = 0.2
    RESEND_MAX = 2.0
    HEARTBEAT = 1.0

    def __init__(self, *, ring_size: int = DEFAULT_RING, seed: int | None = None,
                 nv: NonVolatile | None = None, clock: Callable[[], float] = time.monotonic,
                 kinds: tuple[m.DieKind, ...] = KINDS, colours: tuple[str, ...] = COLOURS,
                 n_slots: int = N_SLOTS, firmware: str = FIRMWARE, minor: int = 1,
                 on_command: Callable[[m.Message], None] | None = None) -> None:
        """``kinds``, ``colours``, ``n_slots`` and ``firmware``: the dice table and name its
        HELLO_REPLY declares (the camera tower passes its profile's). ``minor``: the protocol
        minor version it declares (the simulated tower speaks 1.1; the camera tower 1.3, and
        takes the 1.2 and 1.3 host -> tower messages in ``on_command``, on the server's
        thread)."""
        self.rng = random.Random(seed)
        self.minor = minor
        self.on_command = on_command
        self.kinds, self.colours, self.n_slots, self.firmware = kinds, colours, n_slots, firmware
        self.ring_size = max(1, ring_size)
        self.nv = nv if nv is not None else NonVolatile()
        self.clock = clock
        self.decoder = FrameDecoder()
        self._lock = threading.RLock()
        self.rolls_made = 0
        self.dropped_total = 0
        self.frames_out: list[tuple[int, int, int, float]] = []  # filled by the server if asked
        self.boot()

    # -- state --------------------------------------------------------------------------
    def boot(self, *, lose_resends: int = 0) -> None:
        """Power on (or reset): new boot id, ring restored, an unprompted HELLO_REPLY.
        ``lose_resends``: the first so many copies of each restored roll are lost on the wire.

        1.1 boot ids: random at the first boot, then one more than the previous boot's (kept
        with the ring), skipping 0 and any boot id still named in the ring."""
        with self._lock:
            self.nv.boots += 1
            in_ring = {roll.boot_id for _, roll in self.nv.ring}
            boot_id = self.nv.last_boot_id or self.rng.randrange(1, 2**32)
            if self.nv.last_boot_id:
                boot_id = boot_id % 0xFFFFFFFF + 1
            while boot_id in in_ring:
                boot_id = boot_id % 0xFFFFFFFF + 1
            self.boot_id = self.nv.last_boot_id = boot_id
            self.host_minor = 0  # until a HELLO says otherwise: a 1.0 host
            self.booted_at = self.clock()
            self.next_seq = 0
            self.dropped_total = 0
            now = self.clock()
            self._queue: deque[bytes] = deque()
            # a roll's key (boot id, seq), or ("drop", (boot id, first seq)) for a notice
            self._pending: dict[Any, _Pending] = {}
            self._order = 0
            for order, roll in sorted(self.nv.ring, key=lambda t: t[0]):
                self._pending[(roll.boot_id, roll.seq)] = _Pending(roll, None, now, self.RESEND_FIRST,
                                                                   silent=lose_resends)
                self._order = max(self._order, order + 1)
            self._next_heartbeat = now + self.HEARTBEAT
            self.nv.save()  # the new boot id, before anything names it on the wire
            self._queue.append(self._hello_reply(0))

    def _hello_reply(self, nonce: int) -> bytes:
        return m.HelloReply(m.PROTO_MAJOR, self.minor, nonce, self.boot_id, self.next_seq,
                            self.ring_size, self.firmware, self.colours, self.kinds,
                            self.n_slots).pack()

    def _persist(self) -> None:
        self.nv.ring = [(i, p.roll) for i, p in enumerate(self._pending.values()) if p.roll]
        self.nv.save()

    def notices(self) -> list[tuple[int, int, int]]:
        """Drop notices waiting for their ACK: (boot id, first seq, count)."""
        with self._lock:
            return [(p.drop.boot_id, p.drop.first_seq, p.drop.count)
                    for p in self._pending.values() if p.drop is not None]

    @property
    def unacked(self) -> int:
        with self._lock:
            return sum(1 for p in self._pending.values() if p.roll is not None)

    def _wire(self, roll: m.Roll) -> bytes:
        """A roll's packet for this host: a ROLL_C (confidences) when both sides speak 1.2."""
        return roll.pack(confidence=self.minor >= 2 and self.host_minor >= 2)

    def host_takes(self, minor: int) -> bool:
        """Both sides speak ``minor`` or later: the types it adds may go to this host (the
        tower's own minor, and the last HELLO's of this boot; section 9)."""
        return self.minor >= minor and self.host_minor >= minor

    def send(self, packet: bytes) -> None:
        """Queue a packet (the camera tower's 1.2 frames) for the next poll."""
        with self._lock:
            self._queue.append(packet)

    # -- inputs -------------------------------------------------------------------------
    def roll(self, dice: tuple[m.Die, ...]) -> int:
        """A throw landed in the tray: store it in the ring, then send it."""
        with self._lock:
            now = self.clock()
            seq = self.next_seq
            self.next_seq += 1
            self.rolls_made += 1
            roll = m.Roll(self.boot_id, seq, int((now - self.booted_at) * 1000), 0, dice)
            rolls = [k for k, p in self._pending.items() if p.roll is not None]
            if len(rolls) >= self.ring_size:
                oldest = rolls[0]
                del self._pending[oldest]
                self.dropped_total += 1
                drop = m.Dropped(oldest[0], oldest[1], 1, m.DROP_OVERFLOW)
                self._pending[("drop", oldest)] = _Pending(
                    None, drop, now + self.RESEND_FIRST, 2 * self.RESEND_FIRST)
                self._queue.append(drop.pack())
            self._pending[(self.boot_id, seq)] = _Pending(roll, None, now + self.RESEND_FIRST,
                                                          2 * self.RESEND_FIRST)
            self._persist()
            self._queue.append(self._wire(roll))
            return seq

    def feed(self, data: bytes) -> None:
        """Bytes from the host."""
        with self._lock:
            for packet in self.decoder.feed(data):
                try:
                    msg = m.parse(packet)
                except m.BadMessage:
                    continue
                if isinstance(msg, m.Hello):
                    self._queue.append(self._hello_reply(msg.nonce))
                    self.host_minor = msg.proto_minor
                    now = self.clock()
                    for p in self._pending.values():  # resend all now, waits back to 200 ms
                        p.due, p.wait = now, self.RESEND_FIRST
                elif isinstance(msg, m.Ack):
                    key = (msg.boot_id, msg.seq)
                    if self._pending.pop(key, None) is not None:
                        self._persist()
                    if self.host_minor == 0:  # a 1.0 host acknowledges notices so
                        self._pending.pop(("drop", key), None)
                elif isinstance(msg, m.AckDropped):
                    notice = ("drop", (msg.boot_id, msg.first_seq))
                    waiting = self._pending.get(notice)
                    if waiting is not None and waiting.drop is not None \
                            and waiting.drop.count == msg.count:
                        del self._pending[notice]
                elif self.minor >= 2 and self.on_command is not None and isinstance(
                        msg, (m.TeachStart, m.TeachStop, m.TeachAnswer, m.TeachAnswerC, m.TeachUndo,
                              m.PictureAck, m.Snapshot)):
                    self.on_command(msg)
                elif self.minor >= 3 and isinstance(msg, (m.DieLook, m.KeepExample)):
                    if self.on_command is not None:
                        self.on_command(msg)
                    else:  # no camera: no picture to send, no die to keep; said, not silent
                        self._queue.append(m.TeachStatus(0, "", 3, (), NO_CAMERA).pack())
                elif self.minor >= 3 and isinstance(msg, (m.TeachStart, m.TeachStop,
                                                          m.TeachAnswer, m.TeachAnswerC,
                                                          m.TeachUndo)):
                    # a 1.3 tower speaks 1.2 too: without a camera it cannot be taught
                    self._queue.append((m.TeachStatus(3, msg.kind, 3, (), NO_CAMERA)
                                        if isinstance(msg, m.TeachStart) else
                                        m.TeachStatus(0, "", 3, (), NO_CAMERA)).pack())
                # anything else (a later minor's type, a tower -> host echo): dropped

    def poll(self) -> list[bytes]:
        """Packets (``type | body``) to send now: queued ones, due resends, the heartbeat."""
        with self._lock:
            now = self.clock()
            out = list(self._queue)
            self._queue.clear()
            for p in self._pending.values():  # insertion order = oldest first
                if p.due <= now:
                    p.attempts += 1
                    if p.silent > 0:
                        p.silent -= 1
                    elif p.roll is not None:
                        out.append(self._wire(replace(p.roll, attempt=min(p.attempts, 255))))
                    elif p.drop is not None:
                        out.append(p.drop.pack())
                    p.due = now + p.wait
                    p.wait = min(p.wait * 2, self.RESEND_MAX)
            if now >= self._next_heartbeat:
                self._next_heartbeat = now + self.HEARTBEAT
                out.append(m.Heartbeat(self.boot_id, self.next_seq,
                                       int((now - self.booted_at) * 1000) & 0xFFFFFFFF,
                                       self.unacked, self.dropped_total).pack())
            return out


@dataclass
class Faults:
    """Per-frame probabilities for tower -> host traffic (``corrupt``: one bit of one byte of
    the frame is flipped; ``ack_drop``: a host -> tower write is lost)."""

    drop: float = 0.0
    duplicate: float = 0.0
    corrupt: float = 0.0
    truncate: float = 0.0
    delay: float = 0.0
    delay_max_s: float = 0.05
    ack_drop: float = 0.0  # host -> tower frames lost

    @classmethod
    def parse(cls, text: str) -> Faults:
        """``drop=0.01,duplicate=0.01,corrupt=0.01`` -> Faults."""
        faults = cls()
        for item in filter(None, (p.strip() for p in text.split(","))):
            name, _, value = item.partition("=")
            if not hasattr(faults, name):
                raise ValueError(f"unknown fault {name!r}; known: drop, duplicate, corrupt, "
                                 "truncate, delay, delay_max_s, ack_drop")
            setattr(faults, name, float(value))
        return faults


class FaultyWire:
    """Turns packets into wire bytes, damaging them as :class:`Faults` says."""

    def __init__(self, faults: Faults, rng: random.Random) -> None:
        self.faults = faults
        self.rng = rng
        self._delayed: list[tuple[float, bytes]] = []
        self.stats = {"dropped": 0, "duplicated": 0, "corrupted": 0, "truncated": 0, "delayed": 0}

    def _corrupt(self, frame: bytes) -> bytes:
        """With probability ``corrupt``, flip one bit of one byte (the delimiter included)."""
        if not self.faults.corrupt or self.rng.random() >= self.faults.corrupt:
            return frame
        out = bytearray(frame)
        out[self.rng.randrange(len(out))] ^= 1 << self.rng.randrange(8)
        self.stats["corrupted"] += 1
        return bytes(out)

    def frames(self, packets: list[bytes], now: float) -> list[bytes]:
        f, rng = self.faults, self.rng
        out: list[bytes] = []
        for packet in packets:
            frame = encode_frame(packet)
            if f.drop and rng.random() < f.drop:
                self.stats["dropped"] += 1
                continue
            if f.truncate and rng.random() < f.truncate:
                self.stats["truncated"] += 1
                frame = frame[:rng.randrange(1, len(frame))]  # no delimiter: it merges with the next
            copies = 2 if f.duplicate and rng.random() < f.duplicate else 1
            if copies == 2:
                self.stats["duplicated"] += 1
            for _ in range(copies):
                wire = self._corrupt(frame)
                if f.delay and rng.random() < f.delay:
                    self.stats["delayed"] += 1
                    self._delayed.append((now + rng.uniform(0, f.delay_max_s), wire))
                else:
                    out.append(wire)
        if self._delayed:
            due = [w for t, w in self._delayed if t <= now]
            self._delayed = [(t, w) for t, w in self._delayed if t > now]
            out.extend(due)
        return out

    def keep_ack(self) -> bool:
        return not (self.faults.ack_drop and self.rng.random() < self.faults.ack_drop)


class Transport(Protocol):
    def write(self, data: bytes) -> bool: ...
    def read(self, timeout: float) -> bytes: ...


class SocketTransport:
    """One TCP client at a time (``socket://host:port`` on the host side)."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        self.server = socket.create_server((host, port))
        self.server.settimeout(0)
        self.address = self.server.getsockname()
        self.conn: socket.socket | None = None

    def _accept(self) -> None:
        try:
            conn, _ = self.server.accept()
        except (TimeoutError, BlockingIOError, OSError):
            return
        if self.conn is not None:
            self.conn.close()
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        conn.setblocking(True)
        self.conn = conn

    def write(self, data: bytes) -> bool:
        self._accept()
        if self.conn is None:
            return False
        try:
            self.conn.sendall(data)
            return True
        except OSError:
            self.conn = None
            return False

    def read(self, timeout: float) -> bytes:
        self._accept()
        conn = self.conn
        if conn is None:
            time.sleep(timeout)
            return b""
        conn.settimeout(timeout)
        try:
            data = conn.recv(4096)
        except TimeoutError:
            return b""
        except OSError:
            self.conn = None
            return b""
        if not data:
            self.conn = None
        return data

    def unplug(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None

    def plug(self) -> str:
        return f"socket://{self.address[0]}:{self.address[1]}"

    def close(self) -> None:
        self.unplug()
        self.server.close()


class SimServer:
    """Runs a :class:`SimTower` over a transport on a thread; rolls and faults on demand."""

    def __init__(self, tower: SimTower, transport: Transport, *, faults: Faults | None = None,
                 seed: int | None = None, log_frames: bool = False) -> None:
        self.tower = tower
        self.transport = transport
        self.wire = FaultyWire(faults or Faults(), random.Random(seed))
        self.log_frames = log_frames
        self.frame_log: list[tuple[int, int, int, float]] = []  # (boot, seq, attempt, t_written)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self.plug_times: list[float] = []

    def start(self) -> SimServer:
        self._thread = threading.Thread(target=self._run, name="sim-tower", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(2)

    def _run(self) -> None:
        while not self._stop.is_set():
            data = self.transport.read(0.005)
            if data and self.wire.keep_ack():
                self.tower.feed(data)
            self.flush()

    def flush(self) -> None:
        with self._lock:
            packets = self.tower.poll()
            if not packets:
                return
            now = time.monotonic()
            frames = self.wire.frames(packets, now)
            if not frames:
                return
            ok = self.transport.write(b"".join(frames))
            if ok and self.log_frames:
                t = time.monotonic()
                for packet in packets:
                    if packet[0] == m.ROLL:
                        r = m.parse(packet)
                        assert isinstance(r, m.Roll)
                        self.frame_log.append((r.boot_id, r.seq, r.attempt, t))

    def roll(self, spec: str = "takkure") -> int:
        seq = self.tower.roll(parse_dice(spec, self.tower.rng))
        self.flush()
        return seq

    def reset(self, lose_resends: int = 0) -> None:
        self.tower.boot(lose_resends=lose_resends)
        self.flush()

    def unplug(self) -> None:
        unplug = getattr(self.transport, "unplug", None)
        if unplug is not None:
            unplug()

    def replug(self) -> None:
        plug = getattr(self.transport, "plug", None)
        if plug is not None:
            plug()
            self.plug_times.append(time.monotonic())

