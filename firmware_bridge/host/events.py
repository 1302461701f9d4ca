"""What the dice tower link reports: plain frozen values, each with ``to_json()``.

These are the events of docs/protocol.md, section 8. The reader thread creates them; the app
receives them through one callback and crosses to its GUI thread itself.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class DieReading:
    """One die of a roll, with its names resolved from the tower's HELLO_REPLY."""

    slot: int
    kind: str
    face: str | None
    colour: str | None
    status: str  # "clean", "cocked" or "unreadable"
    confidence: float | None = None  # 0..1, from a 1.2 tower that reads dice (ROLL_C)

    @property
    def clean(self) -> bool:
        return self.status == "clean"

    def to_json(self) -> dict[str, Any]:
        out = {"slot": self.slot, "kind": self.kind, "face": self.face,
               "colour": self.colour, "status": self.status}
        if self.confidence is not None:  # absent: a tower that does not say (before 1.2)
            out["confidence"] = self.confidence
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> DieReading:
        conf = data.get("confidence")
        return cls(int(data["slot"]), str(data["kind"]), data.get("face"), data.get("colour"),
                   str(data.get("status", "clean")),
                   float(conf) if isinstance(conf, (int, float)) and not isinstance(conf, bool)
                   else None)


def roll_boot_key(boot_id: int, incarnation: int) -> int:
    return boot_id | incarnation << 32


def fields_of(event: object) -> list[str]:
    """The field names of an event (a slotted dataclass), in order."""
    return [f.name for f in dataclasses.fields(event)]  # type: ignore[arg-type]


@dataclass(frozen=True, slots=True)
class LinkEvent:
    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"event": EVENT_NAMES[type(self)]}
        for name in fields_of(self):
            value = getattr(self, name)
            if isinstance(value, tuple):
                value = [v.to_json() if hasattr(v, "to_json") else v for v in value]
            out[name] = value
        return out


@dataclass(frozen=True, slots=True)
class RollEvent(LinkEvent):
    """A roll, recorded durably before this event exists."""

    boot_id: int
    seq: int
    dice: tuple[DieReading, ...]
    attempt: int = 0
    late: bool = False  # recorded or delivered after a later roll, or after it was called lost
    received_at: float = 0.0  # time.monotonic() when its last byte was read
    recorded_at: float = 0.0  # time.monotonic() after it was fsynced
    incarnation: int = 0  # > 0: the tower used this boot id again after a reboot (1.1)
    fingerprint: int = 0  # uptime and dice of the copy (messages.Roll.fingerprint)

    @property
    def clean(self) -> bool:
        return bool(self.dice) and all(d.clean for d in self.dice)

    @property
    def key(self) -> tuple[int, int]:
        """The roll's identity in the roll journal and in a game: (boot id, seq), the boot id
        with the incarnation above bit 32 when a tower used a boot id again."""
        return (roll_boot_key(self.boot_id, self.incarnation), self.seq)

    def text(self) -> str:
        parts = []
        for d in self.dice:
            face = d.face if d.face is not None else "?"
            colour = f"{d.colour} " if d.colour else ""
            flag = "" if d.clean else f" ({d.status})"
            parts.append(f"{colour}{d.kind} {face}{flag}")
        return ", ".join(parts)


@dataclass(frozen=True, slots=True)
class Connected(LinkEvent):
    port: str
    boot_id: int
    firmware: str
    proto: str
    next_seq: int
    ring_size: int
    kinds: tuple[str, ...] = field(default_factory=tuple)
    colours: tuple[str, ...] = field(default_factory=tuple)
    n_slots: int = 0
    # each kind's face names, in the order of ``kinds`` (what a player may set a die to)
    faces: tuple[tuple[str, ...], ...] = field(default_factory=tuple)


@dataclass(frozen=True, slots=True)
class RollsDropped(LinkEvent):
    boot_id: int
    first_seq: int
    count: int
    reason: str
    declared_by: str  # "tower" or "host"


@dataclass(frozen=True, slots=True)
class RollsMissing(LinkEvent):
    boot_id: int
    seqs: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class DeviceReset(LinkEvent):
    old_boot_id: int
    new_boot_id: int


@dataclass(frozen=True, slots=True)
class LinkLost(LinkEvent):
    port: str
    reason: str


@dataclass(frozen=True, slots=True)
class Reconnecting(LinkEvent):
    port: str
    reason: str


@dataclass(frozen=True, slots=True)
class PortNotFound(LinkEvent):
    port: str
    detail: str


@dataclass(frozen=True, slots=True)
class PortBusy(LinkEvent):
    port: str
    detail: str


@dataclass(frozen=True, slots=True)
class HandshakeTimeout(LinkEvent):
    port: str
    detail: str


@dataclass(frozen=True, slots=True)
class ProtocolMismatch(LinkEvent):
    port: str
    tower_version: str
    host_version: str


@dataclass(frozen=True, slots=True)
class TeachPicture(LinkEvent):
    """1.2: a die the tower is being taught and cannot name yet, as a JPEG: answer it with
    ``Link.teach_answer(picture_id, face)``."""

    picture_id: int
    kind: str
    x: int
    y: int
    guess: str  # the tower's guess, "" for none
    width: int
    height: int
    jpeg: bytes = field(repr=False)  # logs name the event, not its bytes

    def to_json(self) -> dict[str, Any]:
        return {"event": "teach_picture", "picture_id": self.picture_id, "kind": self.kind,
                "x": self.x, "y": self.y, "guess": self.guess, "width": self.width,
                "height": self.height, "jpeg_bytes": len(self.jpeg)}


@dataclass(frozen=True, slots=True)
class TraySnapshot(LinkEvent):
    """1.2: the tray as the tower's camera sees it, its reading drawn on it (a JPEG)."""

    picture_id: int
    caption: str
    width: int
    height: int
    jpeg: bytes = field(repr=False)

    def to_json(self) -> dict[str, Any]:
        return {"event": "tray_snapshot", "picture_id": self.picture_id,
                "caption": self.caption, "width": self.width, "height": self.height,
                "jpeg_bytes": len(self.jpeg)}


@dataclass(frozen=True, slots=True)
class DiePicture(LinkEvent):
    """1.3: one die of a roll as the tower's camera saw it (a JPEG of the die and a margin),
    with the faces the tower finds likeliest for it, likeliest first. A 1.3 tower sends one
    for each die of a roll it did not read cleanly, and one for any die the host asks about
    (``Link.die_look``). ``key`` is the roll's key (``RollEvent.key``); ``slot`` its die's.
    ``Link.keep_example(picture_id, face)`` makes the die a teaching example of ``face``."""

    picture_id: int
    boot_id: int
    seq: int
    slot: int
    kind: str
    x: int
    y: int
    faces: tuple[str, ...]  # the tower's likeliest faces, likeliest first (at most 3)
    width: int
    height: int
    jpeg: bytes = field(repr=False)
    incarnation: int = 0  # as RollEvent's: the roll's boot id used again (1.1)

    @property
    def key(self) -> tuple[int, int]:
        return (roll_boot_key(self.boot_id, self.incarnation), self.seq)

    def to_json(self) -> dict[str, Any]:
        return {"event": "die_picture", "picture_id": self.picture_id, "boot_id": self.boot_id,
                "seq": self.seq, "slot": self.slot, "kind": self.kind, "x": self.x,
                "y": self.y, "faces": list(self.faces), "width": self.width,
                "height": self.height, "jpeg_bytes": len(self.jpeg),
                "incarnation": self.incarnation}


@dataclass(frozen=True, slots=True)
class TeachStatus(LinkEvent):
    """1.2: where teaching stands: ``state`` off, teaching, saved or refused; ``faces``
    (name, examples so far), each face known at ``needed``."""

    state: str
    kind: str
    needed: int
    faces: tuple[tuple[str, int], ...]
    message: str

    @property
    def missing(self) -> dict[str, int]:
        return {f: self.needed - n for f, n in self.faces if n < self.needed}

    def to_json(self) -> dict[str, Any]:
        return {"event": "teach_status", "state": self.state, "kind": self.kind,
                "needed": self.needed, "faces": [list(f) for f in self.faces],
                "message": self.message}


EVENT_NAMES: dict[type, str] = {
    TeachPicture: "teach_picture",
    TraySnapshot: "tray_snapshot",
    DiePicture: "die_picture",
    TeachStatus: "teach_status",
    RollEvent: "roll",
    Connected: "connected",
    RollsDropped: "rolls_dropped",
    RollsMissing: "rolls_missing",
    DeviceReset: "device_reset",
    LinkLost: "link_lost",
    Reconnecting: "reconnecting",
    PortNotFound: "port_not_found",
    PortBusy: "port_busy",
    HandshakeTimeout: "handshake_timeout",
    ProtocolMismatch: "protocol_mismatch",
}
