"""Check the dice: what the tablet shows for the dice of a throw a player sets by hand (issue
26, "correction in one tap"), without Kivy.

A throw whose dice the tower was not sure of (``cocked`` or ``unreadable``) is held back from
the game; each such die is shown with its picture from the tray (when the tower sends one,
protocol 1.3) and the faces the tower finds likeliest as large buttons, every other face of
its kind one tap further. A player may also dispute a die the tower read cleanly. What the
player sets replaces the reading: the die becomes ``clean`` with the face set, and keeps what
the tower read (``read_face``, ``read_status``) for the record.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..dice_stats import KNOWN_FACES
from ..dice_words import STATUS_WORDS, die_group_words, face_words
from ..i18n import _

FIRST = 3   # likeliest faces shown as buttons at once


@dataclass(frozen=True)
class DieToCheck:
    slot: int
    name: str                  # the die in players' words: "red d12", "d6", "King of Tokyo die"
    read: str                  # what the tower made of it, in words
    first: tuple[str, ...]     # faces offered at once, likeliest first
    rest: tuple[str, ...]      # every other face of its kind, in the kind's order
    chosen: str | None         # the face the player set (None: not yet)
    unsure: bool               # the tower was not sure of it (not a dispute)

    @property
    def line(self) -> str:
        """The die and what the tower read, as the sheet's row says it."""
        return _("{die}: {read}").format(die=self.name, read=self.read)


def unsure(dice: Sequence[Mapping[str, Any]]) -> list[int]:
    """The slots of the dice the tower was not sure of."""
    return [int(d.get("slot", i)) for i, d in enumerate(dice) if d.get("status", "clean") != "clean"]


def faces_of(kind: str, kind_faces: Mapping[str, Sequence[str]]) -> tuple[str, ...]:
    """Every face of ``kind``: as the tower named them (its HELLO_REPLY), else as the app
    knows the kind, else none."""
    faces = kind_faces.get(kind) or KNOWN_FACES.get(kind) or ()
    return tuple(str(f) for f in faces)


def offer(die: Mapping[str, Any], likely: Sequence[str], all_faces: Sequence[str]
          ) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(the faces offered at once, the rest). At once: the tower's likeliest faces (from its
    picture of the die), else the face it read; at most :data:`FIRST`. The rest: every other
    face of the kind, in order. A face the tower names that the kind does not list is still
    offered (a kind taught since the tablet connected)."""
    first: list[str] = []
    for face in [*likely, die.get("face")]:
        if face is not None and str(face) not in first and len(first) < FIRST:
            first.append(str(face))
    rest = tuple(f for f in all_faces if f not in first)
    return tuple(first), rest


def read_words(die: Mapping[str, Any]) -> str:
    """What the tower made of a die, in a short phrase."""
    status = str(die.get("status", "clean"))
    face = die.get("face")
    if status == "clean":
        return _("read as {face}").format(face=face_words(face))
    what = _(STATUS_WORDS[status]) if status in STATUS_WORDS else status
    if face is None:
        return _("{status}: no face read").format(status=what)
    return _("{status}: perhaps {face}").format(status=what, face=face_words(face))


def die_name(die: Mapping[str, Any]) -> str:
    kind = str(die.get("kind", ""))
    colour = die.get("colour")
    return die_group_words(kind, None if colour is None else str(colour))


def to_check(dice: Sequence[Mapping[str, Any]], slots: Sequence[int],
             likely: Mapping[int, Sequence[str]], kind_faces: Mapping[str, Sequence[str]],
             chosen: Mapping[int, str]) -> list[DieToCheck]:
    """The dice of ``slots`` (in the roll's order) as the sheet shows them."""
    out = []
    for i, die in enumerate(dice):
        slot = int(die.get("slot", i))
        if slot not in slots:
            continue
        first, rest = offer(die, likely.get(slot, ()), faces_of(str(die.get("kind", "")), kind_faces))
        out.append(DieToCheck(slot, die_name(die), read_words(die), first, rest,
                              chosen.get(slot), die.get("status", "clean") != "clean"))
    return out


def corrected(dice: Sequence[Mapping[str, Any]], chosen: Mapping[int, str]) -> list[dict[str, Any]]:
    """The roll as it really came up: each die the player set is ``clean`` with that face,
    keeping what the tower read as ``read_face`` and ``read_status``; the others unchanged."""
    out = []
    for i, die in enumerate(dice):
        d = dict(die)
        slot = int(d.get("slot", i))
        if slot in chosen:
            d["read_face"], d["read_status"] = d.get("face"), d.get("status", "clean")
            d["face"], d["status"] = chosen[slot], "clean"
            d.pop("confidence", None)       # the tower's, for the face it read
        out.append(d)
    return out


def complete(slots: Sequence[int], chosen: Mapping[int, str]) -> bool:
    """Every die asked about has a face set."""
    return all(s in chosen for s in slots)
