"""The camera tower's dice table: the profile's kinds, faces and colours as its HELLO_REPLY
declares them, and a reading's dice as a ROLL carries them.

The profile's kinds in its order (the built-in ``d6pips`` is called ``d6`` on the wire, as the
simulated tower and the reference firmware call a pip D6), then ``unknown`` (no faces) for a
die whose kind the reader cannot tell; the profile's colours in its order. The camera tower's
name and protocol version are here too: the HELLO_REPLY's size depends on them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ..wire import messages as m
from .errors import CameraTowerError

VERSION = "1.3.0"
FIRMWARE = f"camera-tower {VERSION}"
CAMERA_MISSING = "camera missing"
N_SLOTS = 16  # dice in one throw; more are left out of the roll (and said on stderr)
WIRE_KIND = {"d6pips": "d6"}  # profile kind -> the name every tower uses on the wire
MAX_HELLO_REPLY = 1024  # a packet's limit (protocol.md, 2)
SMALL_HELLO_REPLY = 250  # what small receivers take (protocol.md, 6.4): a warning above it
TOWER_MINOR = 3  # the protocol minor version this tower speaks (teaching, snapshots, dice
# to check)


@dataclass(frozen=True)
class DiceTable:
    """The profile's kinds, faces and colours as the HELLO_REPLY declares them."""

    kinds: tuple[m.DieKind, ...]
    colours: tuple[str, ...]
    profile_kinds: tuple[str, ...]  # the profile's name of each wire kind (None: unknown)

    @classmethod
    def of(cls, profile: Any, source: str = "the profile") -> DiceTable:
        """Raises :class:`CameraTowerError` naming ``source`` for anything the protocol cannot
        carry: a name over 64 bytes, more than 254 faces or colours (255 means *not known*),
        more than 254 kinds, a HELLO_REPLY over 1024 bytes."""
        kinds: list[m.DieKind] = []
        names: list[str] = []
        for name, model in profile.kinds.items():
            wire = WIRE_KIND.get(name, name)
            faces = tuple(model.faces)
            if wire == m.UNKNOWN_KIND:
                raise CameraTowerError(f"{source}: kind {name!r}: the name {m.UNKNOWN_KIND!r} is "
                                       "the tower's, for dice of no known kind; rename the kind")
            if wire in (k.name for k in kinds):
                raise CameraTowerError(f"{source}: kind {name!r} is another name of kind "
                                       f"{wire!r} on the wire; rename it")
            _check_str(source, f"kind {name!r}", wire)
            if len(faces) >= m.NONE:
                raise CameraTowerError(f"{source}: kind {name!r} has {len(faces)} faces; the "
                                       f"protocol carries at most {m.NONE - 1}")
            for face in faces:
                _check_str(source, f"kind {name!r} face", face)
            kinds.append(m.DieKind(wire, faces))
            names.append(name)
        kinds.append(m.DieKind(m.UNKNOWN_KIND, ()))
        colours = tuple(str(c) for c in profile.colours)
        if len(colours) >= m.NONE:
            raise CameraTowerError(f"{source}: {len(colours)} colours; the protocol carries at "
                                   f"most {m.NONE - 1}")
        for colour in colours:
            _check_str(source, "colour", colour)
        if len(kinds) >= m.NONE:
            raise CameraTowerError(f"{source}: {len(kinds) - 1} kinds; the protocol carries at "
                                   f"most {m.NONE - 2}")
        table = cls(tuple(kinds), colours, tuple(names))
        size = table.hello_reply_size()
        if size > MAX_HELLO_REPLY:
            raise CameraTowerError(f"{source}: its kinds, faces and colours make a HELLO_REPLY "
                                   f"of {size} bytes; a packet holds {MAX_HELLO_REPLY}: "
                                   "fewer kinds, faces or colours")
        return table

    def hello_reply_size(self) -> int:
        firmware = f"{FIRMWARE}; {CAMERA_MISSING}"
        return len(m.HelloReply(m.PROTO_MAJOR, TOWER_MINOR, 0, 1, 0, 0xFFFF, firmware,
                                self.colours, self.kinds, N_SLOTS).pack())

    @staticmethod
    def ordered(readings: Iterable[Any]) -> list[Any]:
        """The readings a roll carries, in slot order (top to bottom, then left to right):
        slot i is the i-th."""
        return sorted(readings, key=lambda r: (round(r.y / 20), r.x))[:N_SLOTS]

    def dice(self, readings: Iterable[Any]) -> tuple[m.Die, ...]:
        """Readings (``vision.dice.DieReading``) -> the dice of a ROLL, one slot each in
        reading order (top to bottom, then left to right)."""
        out = []
        ordered = self.ordered(readings)
        for slot, r in enumerate(ordered):
            if r.kind in self.profile_kinds:
                kind = self.profile_kinds.index(r.kind)
                faces = self.kinds[kind].faces
                face = faces.index(r.face) if r.face in faces else m.NONE
            else:
                kind, face = len(self.kinds) - 1, m.NONE
            status = m.STATUS_NAMES.index(r.status)
            if face == m.NONE and status == m.CLEAN:
                status = m.UNREADABLE  # a clean die always has a face; never sent without one
            if status == m.UNREADABLE:
                face = m.NONE
            colour = self.colours.index(r.colour) if r.colour in self.colours else m.NONE
            conf = max(0, min(100, round(100 * float(r.confidence))))
            out.append(m.Die(slot, kind, face, colour, status, conf))
        return tuple(out)


def _check_str(source: str, what: str, text: str) -> None:
    raw = str(text).encode("utf-8")
    if not raw or len(raw) > 64:
        raise CameraTowerError(f"{source}: {what} {text!r}: the protocol carries names of 1 to "
                               "64 bytes")
