"""The messages of protocol 1.1 (docs/protocol.md, section 4): packets <-> typed values.

``parse(packet)`` turns a CRC-checked packet (``type | body``) into one of the message classes
or raises :class:`BadMessage` (:class:`UnknownType` for a type this version does not know,
which a receiver ignores: later minor versions add types); each class's ``pack()`` gives the
packet back. No I/O.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

from .codec import crc32

PROTO_MAJOR = 1
PROTO_MINOR = 1

HELLO = 0x01
ACK = 0x02
ACK_DROPPED = 0x03  # 1.1
HELLO_REPLY = 0x81
ROLL = 0x82
HEARTBEAT = 0x83
DROPPED = 0x84

NONE = 255
"""Face or colour not known."""
MAX_DICE = 46
"""Dice in one ROLL (its packet stays within 250 bytes)."""
MAX_DROP_COUNT = 4096
"""Rolls one DROPPED notice can name; the host reads a larger count as this many."""

STATUS_NAMES = ("clean", "cocked", "unreadable")
CLEAN, COCKED, UNREADABLE = 0, 1, 2

DROP_OVERFLOW = 1
DROP_REBOOT = 2
DROP_REASONS = {DROP_OVERFLOW: "ring overflow", DROP_REBOOT: "lost in a reboot"}


class BadMessage(ValueError):
    """A packet whose CRC was right but whose type or body is not protocol 1.x."""


class UnknownType(BadMessage):
    """A type this version does not know (a later minor version's): ignored, not an error."""


class _Reader:
    __slots__ = ("data", "pos")

    def __init__(self, data: bytes, pos: int = 1) -> None:
        self.data = data
        self.pos = pos

    def take(self, fmt: str) -> tuple:
        size = struct.calcsize(fmt)
        if self.pos + size > len(self.data):
            raise BadMessage(f"body ends at byte {len(self.data)}, "
                             f"a field needs bytes {self.pos}..{self.pos + size - 1}")
        values = struct.unpack_from(fmt, self.data, self.pos)
        self.pos += size
        return values

    def u8(self) -> int:
        return self.take("<B")[0]

    def u16(self) -> int:
        return self.take("<H")[0]

    def u32(self) -> int:
        return self.take("<I")[0]

    def str(self) -> str:
        n = self.u8()
        if n > 64:
            raise BadMessage(f"string of {n} bytes at byte {self.pos - 1}; the limit is 64")
        if self.pos + n > len(self.data):
            raise BadMessage(f"string at byte {self.pos - 1} runs past the end")
        raw = self.data[self.pos:self.pos + n]
        self.pos += n
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise BadMessage(f"string at byte {self.pos - n - 1} is not UTF-8") from exc

    def end(self) -> None:
        if self.pos != len(self.data):
            raise BadMessage(f"{len(self.data) - self.pos} unexpected bytes after byte {self.pos - 1}")


def _str(text: str) -> bytes:
    raw = text.encode("utf-8")
    if len(raw) > 64:
        raise ValueError(f"string {text!r} is over 64 bytes")
    return bytes((len(raw),)) + raw


@dataclass(frozen=True, slots=True)
class Hello:
    nonce: int
    proto_major: int = PROTO_MAJOR
    proto_minor: int = PROTO_MINOR

    def pack(self) -> bytes:
        return struct.pack("<BBBI", HELLO, self.proto_major, self.proto_minor, self.nonce)


@dataclass(frozen=True, slots=True)
class Ack:
    boot_id: int
    seq: int

    def pack(self) -> bytes:
        return struct.pack("<BII", ACK, self.boot_id, self.seq)


@dataclass(frozen=True, slots=True)
class AckDropped:
    """1.1: the acknowledgement of one DROPPED notice, as the host received it."""

    boot_id: int
    first_seq: int
    count: int

    def pack(self) -> bytes:
        return struct.pack("<BIII", ACK_DROPPED, self.boot_id, self.first_seq, self.count)


@dataclass(frozen=True, slots=True)
class DieKind:
    name: str
    faces: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class HelloReply:
    proto_major: int
    proto_minor: int
    nonce: int
    boot_id: int
    next_seq: int
    ring_size: int
    firmware: str
    colours: tuple[str, ...]
    kinds: tuple[DieKind, ...]
    n_slots: int

    def pack(self) -> bytes:
        out = bytearray(struct.pack("<BBBIIIH", HELLO_REPLY, self.proto_major, self.proto_minor,
                                    self.nonce, self.boot_id, self.next_seq, self.ring_size))
        out += _str(self.firmware)
        out.append(len(self.colours))
        for colour in self.colours:
            out += _str(colour)
        out.append(len(self.kinds))
        for kind in self.kinds:
            out += _str(kind.name)
            out.append(len(kind.faces))
            for face in kind.faces:
                out += _str(face)
        out.append(self.n_slots)
        return bytes(out)


@dataclass(frozen=True, slots=True)
class Die:
    slot: int
    kind: int
    face: int
    colour: int = NONE
    status: int = CLEAN


@dataclass(frozen=True, slots=True)
class Roll:
    boot_id: int
    seq: int
    uptime_ms: int
    attempt: int
    dice: tuple[Die, ...] = field(default_factory=tuple)

    def pack(self) -> bytes:
        out = bytearray(struct.pack("<BIIIBB", ROLL, self.boot_id, self.seq,
                                    self.uptime_ms & 0xFFFFFFFF, min(self.attempt, 255),
                                    len(self.dice)))
        for die in self.dice:
            out += struct.pack("<BBBBB", die.slot, die.kind, die.face, die.colour, die.status)
        return bytes(out)

    def fingerprint(self) -> int:
        """What every copy of this roll has in common (uptime and dice, not the attempt):
        with the same boot id and seq but another fingerprint, it is another roll (a boot id
        the tower used again), not a copy."""
        out = bytearray(struct.pack("<I", self.uptime_ms & 0xFFFFFFFF))
        for die in self.dice:
            out += bytes((die.slot, die.kind, die.face, die.colour, die.status))
        return crc32(bytes(out)) or 1


@dataclass(frozen=True, slots=True)
class Heartbeat:
    boot_id: int
    next_seq: int
    uptime_ms: int
    unacked: int
    dropped_total: int

    def pack(self) -> bytes:
        return struct.pack("<BIIIHI", HEARTBEAT, self.boot_id, self.next_seq,
                           self.uptime_ms & 0xFFFFFFFF, self.unacked, self.dropped_total)


@dataclass(frozen=True, slots=True)
class Dropped:
    boot_id: int
    first_seq: int
    count: int
    reason: int

    def pack(self) -> bytes:
        return struct.pack("<BIIIB", DROPPED, self.boot_id, self.first_seq, self.count,
                           self.reason)


Message = Hello | Ack | AckDropped | HelloReply | Roll | Heartbeat | Dropped


def _boot(boot_id: int, what: str, at: int = 1) -> int:
    if boot_id == 0:
        raise BadMessage(f"{what} with boot id 0 (bytes {at}..{at + 3}): boot ids are non-zero")
    return boot_id


def parse(packet: bytes) -> Message:
    """A CRC-checked packet -> its message. Raises :class:`BadMessage`."""
    if not packet:
        raise BadMessage("empty packet")
    kind = packet[0]
    r = _Reader(packet)
    msg: Message
    if kind == HELLO:
        major, minor, nonce = r.take("<BBI")
        msg = Hello(nonce, major, minor)
    elif kind == ACK:
        boot_id, seq = r.take("<II")
        msg = Ack(boot_id, seq)
    elif kind == ACK_DROPPED:
        msg = AckDropped(*r.take("<III"))
    elif kind == HELLO_REPLY:
        major, minor, nonce, boot_id, next_seq, ring_size = r.take("<BBIIIH")
        if major == PROTO_MAJOR:  # another major's reply is only read for its version
            _boot(boot_id, "HELLO_REPLY", 7)
        firmware = r.str()
        colours = tuple(r.str() for _ in range(r.u8()))
        kinds = []
        for _ in range(r.u8()):
            name = r.str()
            faces = tuple(r.str() for _ in range(r.u8()))
            kinds.append(DieKind(name, faces))
        n_slots = r.u8()
        msg = HelloReply(major, minor, nonce, boot_id, next_seq, ring_size, firmware,
                         colours, tuple(kinds), n_slots)
    elif kind == ROLL:
        boot_id, seq, uptime, attempt, n = r.take("<IIIBB")
        _boot(boot_id, "ROLL")
        if n > MAX_DICE:
            raise BadMessage(f"ROLL of {n} dice (byte 14); the limit is {MAX_DICE}")
        dice = tuple(Die(*r.take("<BBBBB")) for _ in range(n))
        msg = Roll(boot_id, seq, uptime, attempt, dice)
    elif kind == HEARTBEAT:
        msg = Heartbeat(*r.take("<IIIHI"))
        _boot(msg.boot_id, "HEARTBEAT")
    elif kind == DROPPED:
        msg = Dropped(*r.take("<IIIB"))
        _boot(msg.boot_id, "DROPPED")
    else:
        raise UnknownType(f"unknown message type 0x{kind:02X}")
    r.end()
    return msg
