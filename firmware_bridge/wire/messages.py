"""The messages of protocol 1.3 (docs/protocol.md, section 4): packets <-> typed values.

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
PROTO_MINOR = 3

HELLO = 0x01
ACK = 0x02
ACK_DROPPED = 0x03  # 1.1
HELLO_REPLY = 0x81
ROLL = 0x82
HEARTBEAT = 0x83
DROPPED = 0x84
# 1.2: teaching the camera tower from the tablet, the tray snapshot, confidences
TEACH_START = 0x04
TEACH_STOP = 0x05
TEACH_ANSWER = 0x06
TEACH_UNDO = 0x07
PICTURE_ACK = 0x08
SNAPSHOT = 0x09
TEACH_ANSWER_C = 0x0A
ROLL_C = 0x85
PICTURE = 0x86
PICTURE_DATA = 0x87
TEACH_STATUS = 0x88
# 1.3: a die to check (a die the tower is not sure of, or one the player disputes)
DIE_LOOK = 0x0B
KEEP_EXAMPLE = 0x0C
DIE_PICTURE = 0x89

NONE = 255
"""Face or colour not known."""
MAX_DICE = 46
"""Dice in one ROLL (its packet stays within 250 bytes)."""
MAX_DROP_COUNT = 4096
"""Rolls one DROPPED notice can name; the host reads a larger count as this many."""

STATUS_NAMES = ("clean", "cocked", "unreadable")
CLEAN, COCKED, UNREADABLE = 0, 1, 2

MAX_PICTURE = 65536
"""Bytes of one picture (a JPEG); a PICTURE announcing more is a bad frame."""
PICTURE_CHUNK = 1000
"""JPEG bytes in one PICTURE_DATA (its packet stays within 1024 bytes)."""
PURPOSE_TEACH, PURPOSE_SNAPSHOT = 1, 2
TEACH_STATES = ("off", "teaching", "saved", "refused")
NO_CONFIDENCE = 255
MAX_LIKELY = 3
"""Faces a DIE_PICTURE offers (the tower's likeliest, likeliest first)."""
UNKNOWN_KIND = "unknown"
"""The kind a roll and a DIE_PICTURE name for a die of no kind the tower knows."""

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
    confidence: int = NO_CONFIDENCE  # 1.2: percent 0..100 (ROLL_C only), 255 not known


@dataclass(frozen=True, slots=True)
class Roll:
    boot_id: int
    seq: int
    uptime_ms: int
    attempt: int
    dice: tuple[Die, ...] = field(default_factory=tuple)

    def pack(self, confidence: bool = False) -> bytes:
        """A ROLL; with ``confidence`` (to a 1.2 host) a ROLL_C, each die with its
        confidence byte."""
        out = bytearray(struct.pack("<BIIIBB", ROLL_C if confidence else ROLL, self.boot_id,
                                    self.seq, self.uptime_ms & 0xFFFFFFFF,
                                    min(self.attempt, 255), len(self.dice)))
        for die in self.dice:
            out += struct.pack("<BBBBB", die.slot, die.kind, die.face, die.colour, die.status)
            if confidence:
                out.append(die.confidence)
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


# ---------------------------------------------------------------- 1.2

@dataclass(frozen=True, slots=True)
class TeachStart:
    """Host -> tower: teach kind ``kind``; ``faces`` empty for a kind the tower knows (its
    profile's or one the games use), else a new kind's faces."""

    kind: str
    faces: tuple[str, ...] = ()

    def pack(self) -> bytes:
        out = bytearray((TEACH_START,)) + _str(self.kind)
        out.append(len(self.faces))
        for face in self.faces:
            out += _str(face)
        return bytes(out)


@dataclass(frozen=True, slots=True)
class TeachStop:
    def pack(self) -> bytes:
        return bytes((TEACH_STOP,))


@dataclass(frozen=True, slots=True)
class TeachAnswer:
    """Host -> tower: picture ``picture_id`` shows face ``face`` ("" : skip it)."""

    picture_id: int
    face: str

    def pack(self) -> bytes:
        return struct.pack("<BI", TEACH_ANSWER, self.picture_id) + _str(self.face)


@dataclass(frozen=True, slots=True)
class TeachAnswerC:
    """Host -> tower: picture ``picture_id`` shows face ``face`` on a die of colour
    ``colour`` (the tower learns both; ``face`` "" skips the die, colour and all)."""

    picture_id: int
    face: str
    colour: str

    def pack(self) -> bytes:
        return (struct.pack("<BI", TEACH_ANSWER_C, self.picture_id) + _str(self.face)
                + _str(self.colour))


@dataclass(frozen=True, slots=True)
class TeachUndo:
    """Host -> tower: take back the answer to ``picture_id`` (the last one given)."""

    picture_id: int

    def pack(self) -> bytes:
        return struct.pack("<BI", TEACH_UNDO, self.picture_id)


@dataclass(frozen=True, slots=True)
class PictureAck:
    """Host -> tower: the whole picture arrived; stop resending it."""

    picture_id: int

    def pack(self) -> bytes:
        return struct.pack("<BI", PICTURE_ACK, self.picture_id)


@dataclass(frozen=True, slots=True)
class Snapshot:
    """Host -> tower: send the tray as the camera sees it now, the reading drawn on it, at
    most ``max_width`` pixels wide."""

    request_id: int
    max_width: int = 640

    def pack(self) -> bytes:
        return struct.pack("<BIH", SNAPSHOT, self.request_id, self.max_width)


@dataclass(frozen=True, slots=True)
class Picture:
    """Tower -> host: a picture's header; its JPEG bytes follow in PICTURE_DATA frames."""

    picture_id: int
    purpose: int  # PURPOSE_TEACH or PURPOSE_SNAPSHOT
    size: int
    width: int
    height: int
    kind: str = ""  # teaching: the kind taught
    x: int = 0  # teaching: the die's centre in the tray frame
    y: int = 0
    caption: str = ""  # teaching: the tower's guess ("" none); snapshot: the reading

    def pack(self) -> bytes:
        return (struct.pack("<BIBIHH", PICTURE, self.picture_id, self.purpose, self.size,
                            self.width, self.height) + _str(self.kind)
                + struct.pack("<HH", self.x, self.y) + _str(self.caption))


@dataclass(frozen=True, slots=True)
class PictureData:
    picture_id: int
    offset: int
    data: bytes

    def pack(self) -> bytes:
        return struct.pack("<BII", PICTURE_DATA, self.picture_id, self.offset) + self.data


@dataclass(frozen=True, slots=True)
class TeachStatus:
    """Tower -> host: where teaching stands. ``faces``: (name, examples so far)."""

    state: int  # index into TEACH_STATES
    kind: str
    needed: int
    faces: tuple[tuple[str, int], ...] = ()
    message: str = ""

    def pack(self) -> bytes:
        out = bytearray((TEACH_STATUS, self.state)) + _str(self.kind)
        out += bytes((self.needed, len(self.faces)))
        for name, count in self.faces:
            out += _str(name) + bytes((min(count, 255),))
        out += _str(self.message)
        return bytes(out)


# ---------------------------------------------------------------- 1.3

@dataclass(frozen=True, slots=True)
class DieLook:
    """Host -> tower: send a DIE_PICTURE of the die in ``slot`` of roll ``(boot_id, seq)``
    (a reading the player disputes)."""

    boot_id: int
    seq: int
    slot: int

    def pack(self) -> bytes:
        return struct.pack("<BIIB", DIE_LOOK, self.boot_id, self.seq, self.slot)


@dataclass(frozen=True, slots=True)
class KeepExample:
    """Host -> tower: keep the die of DIE_PICTURE ``picture_id`` as a taught example of
    ``face`` (and of ``colour``; "" none) for its kind."""

    picture_id: int
    face: str
    colour: str = ""

    def pack(self) -> bytes:
        return (struct.pack("<BI", KEEP_EXAMPLE, self.picture_id) + _str(self.face)
                + _str(self.colour))


@dataclass(frozen=True, slots=True)
class DiePicture:
    """Tower -> host: one die of a roll, as a picture's header (its JPEG follows in
    PICTURE_DATA frames, as a PICTURE's does), with the faces the tower finds likeliest."""

    picture_id: int
    boot_id: int
    seq: int
    slot: int
    size: int
    width: int
    height: int
    kind: str  # the die's kind, as the HELLO_REPLY names it (the pip D6 is "d6")
    x: int  # the die's centre in the tray frame
    y: int
    faces: tuple[str, ...] = ()  # likeliest first, at most MAX_LIKELY

    def pack(self) -> bytes:
        out = bytearray(struct.pack("<BIIIBIHH", DIE_PICTURE, self.picture_id, self.boot_id,
                                    self.seq, self.slot, self.size, self.width, self.height))
        out += _str(self.kind) + struct.pack("<HHB", self.x, self.y, len(self.faces))
        for face in self.faces:
            out += _str(face)
        return bytes(out)


Message = (Hello | Ack | AckDropped | HelloReply | Roll | Heartbeat | Dropped | TeachStart
           | TeachStop | TeachAnswer | TeachAnswerC | TeachUndo | PictureAck | Snapshot | Picture
           | PictureData | TeachStatus | DieLook | KeepExample | DiePicture)


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
    elif kind in (ROLL, ROLL_C):
        name = "ROLL" if kind == ROLL else "ROLL_C"
        boot_id, seq, uptime, attempt, n = r.take("<IIIBB")
        _boot(boot_id, name)
        if n > MAX_DICE:
            raise BadMessage(f"{name} of {n} dice (byte 14); the limit is {MAX_DICE}")
        fmt = "<BBBBB" if kind == ROLL else "<BBBBBB"
        dice = tuple(Die(*r.take(fmt)) for _ in range(n))
        for i, die in enumerate(dice):
            if die.confidence != NO_CONFIDENCE and die.confidence > 100:
                raise BadMessage(f"ROLL_C die {i}: confidence {die.confidence} (byte "
                                 f"{15 + 6 * i + 5}); 0..100 or 255")
        msg = Roll(boot_id, seq, uptime, attempt, dice)
    elif kind == HEARTBEAT:
        msg = Heartbeat(*r.take("<IIIHI"))
        _boot(msg.boot_id, "HEARTBEAT")
    elif kind == DROPPED:
        msg = Dropped(*r.take("<IIIB"))
        _boot(msg.boot_id, "DROPPED")
    elif kind == TEACH_START:
        name = r.str()
        msg = TeachStart(name, tuple(r.str() for _ in range(r.u8())))
    elif kind == TEACH_STOP:
        msg = TeachStop()
    elif kind == TEACH_ANSWER:
        msg = TeachAnswer(r.u32(), r.str())
    elif kind == TEACH_ANSWER_C:
        msg = TeachAnswerC(r.u32(), r.str(), r.str())
    elif kind == TEACH_UNDO:
        msg = TeachUndo(r.u32())
    elif kind == PICTURE_ACK:
        msg = PictureAck(r.u32())
    elif kind == SNAPSHOT:
        request_id, max_width = r.take("<IH")
        if not 16 <= max_width:
            raise BadMessage(f"SNAPSHOT of max width {max_width} (bytes 5..6); 16 or more")
        msg = Snapshot(request_id, max_width)
    elif kind == PICTURE:
        picture_id, purpose, size, width, height = r.take("<IBIHH")
        if picture_id == 0:
            raise BadMessage("PICTURE with picture id 0 (bytes 1..4): ids are non-zero")
        if purpose not in (PURPOSE_TEACH, PURPOSE_SNAPSHOT):
            raise BadMessage(f"PICTURE of purpose {purpose} (byte 5); 1 teach or 2 snapshot")
        if not 0 < size <= MAX_PICTURE:
            raise BadMessage(f"PICTURE of {size} bytes (bytes 6..9); 1 to {MAX_PICTURE}")
        pkind = r.str()
        x, y = r.take("<HH")
        msg = Picture(picture_id, purpose, size, width, height, pkind, x, y, r.str())
    elif kind == PICTURE_DATA:
        picture_id, offset = r.take("<II")
        data = packet[r.pos:]
        if picture_id == 0:
            raise BadMessage("PICTURE_DATA with picture id 0 (bytes 1..4): ids are non-zero")
        if not data or len(data) > PICTURE_CHUNK:
            raise BadMessage(f"PICTURE_DATA of {len(data)} bytes from byte 9; 1 to "
                             f"{PICTURE_CHUNK}")
        if offset + len(data) > MAX_PICTURE:
            raise BadMessage(f"PICTURE_DATA at offset {offset} (bytes 5..8) runs past "
                             f"{MAX_PICTURE} bytes")
        r.pos = len(packet)
        msg = PictureData(picture_id, offset, bytes(data))
    elif kind == TEACH_STATUS:
        state = r.u8()
        if state >= len(TEACH_STATES):
            raise BadMessage(f"TEACH_STATUS state {state} (byte 1); 0..{len(TEACH_STATES) - 1}")
        tkind = r.str()
        needed, n = r.take("<BB")
        counted: list[tuple[str, int]] = []
        for _ in range(n):
            face_name = r.str()
            counted.append((face_name, r.u8()))
        msg = TeachStatus(state, tkind, needed, tuple(counted), r.str())
    elif kind == DIE_LOOK:
        boot_id, seq, slot = r.take("<IIB")
        _boot(boot_id, "DIE_LOOK")
        msg = DieLook(boot_id, seq, slot)
    elif kind == KEEP_EXAMPLE:
        picture_id = r.u32()
        if picture_id == 0:
            raise BadMessage("KEEP_EXAMPLE with picture id 0 (bytes 1..4): ids are non-zero")
        msg = KeepExample(picture_id, r.str(), r.str())
    elif kind == DIE_PICTURE:
        picture_id, boot_id, seq, slot, size, width, height = r.take("<IIIBIHH")
        if picture_id == 0:
            raise BadMessage("DIE_PICTURE with picture id 0 (bytes 1..4): ids are non-zero")
        _boot(boot_id, "DIE_PICTURE", 5)
        if not 0 < size <= MAX_PICTURE:
            raise BadMessage(f"DIE_PICTURE of {size} bytes (bytes 14..17); 1 to {MAX_PICTURE}")
        dkind = r.str()
        x, y, n = r.take("<HHB")
        if n > MAX_LIKELY:
            raise BadMessage(f"DIE_PICTURE of {n} faces (byte {r.pos - 1}); at most "
                             f"{MAX_LIKELY}")
        msg = DiePicture(picture_id, boot_id, seq, slot, size, width, height, dkind, x, y,
                         tuple(r.str() for _ in range(n)))
    else:
        raise UnknownType(f"unknown message type 0x{kind:02X}")
    r.end()
    return msg
