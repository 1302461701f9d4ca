"""Check the dice: what the tablet shows for the dice of a throw a player sets by hand (issue
26, "correction in one tap"), without Kivy.

A throw whose dice the tower was not sure of (``cocked`` or ``unreadable``) is held back from
the game; each such die is shown with its picture from the tray (when the tower sends one,
protocol 1.3) and the faces the tower finds likeliest as large buttons, every other face of
its kind one tap further, and with them the faces of the tower's other kinds of dice (a die
the tower took for another kind: on other renderers' towers a fifth of the dice it was not
sure of). A player may also dispute a die the tower read cleanly. What the player sets
replaces the reading: the die becomes ``clean`` with the face set (and the kind, where the
player set a face of another kind), and keeps what the tower read (``read_face``,
``read_status``, ``read_kind``) for the record. What the tower took for a die and is none (a
shadow, a coin, a crumb) the player marks **Not a die** (:data:`NOT_A_DIE`): the throw goes on
without it (the roll journal's line of the throw keeps what the tower read).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from firmware_bridge.wire.messages import UNKNOWN_KIND

from ..dice_stats import KNOWN_FACES
from ..dice_words import STATUS_WORDS, die_group_words, face_words
from ..i18n import _

FIRST = 3   # likeliest faces shown as buttons at once
# what the player sets a "die" to that is none: no face of any kind (names a tower gives
# faces are printable)
NOT_A_DIE = "\x00not a die"


@dataclass(frozen=True)
class OtherKind:
    """A kind of die the tower knows other than the one it took a die for."""

    kind: str
    name: str                  # in players' words: "d12", "King of Tokyo Duel die"
    faces: tuple[str, ...]


@dataclass(frozen=True)
class DieToCheck:
    slot: int
    name: str                  # the die in players' words: "red d12", "d6", "King of Tokyo die"
    read: str                  # what the tower made of it, in words
    first: tuple[str, ...]     # faces offered at once, likeliest first
    rest: tuple[str, ...]      # every other face of its kind, in the kind's order
    chosen: str | None         # the face the player set (None: not yet)
    unsure: bool               # the tower was not sure of it (not a dispute)
    others: tuple[OtherKind, ...] = ()  # the tower's other kinds, with their faces
    chosen_kind: str | None = None      # the other kind the player set it to (None: its own)

    @property
    def gone(self) -> bool:
        """The player said it is not a die."""
        return self.chosen == NOT_A_DIE

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


def other_kinds(kind: str, kind_faces: Mapping[str, Sequence[str]]) -> tuple[OtherKind, ...]:
    """The kinds the tower knows (its HELLO_REPLY, in its order) other than ``kind`` and the
    die of no known kind, each with its faces: what a player picks from when the tower took a
    die for the wrong kind."""
    out = []
    for k in kind_faces:
        faces = faces_of(k, kind_faces)
        if k not in (kind, UNKNOWN_KIND) and faces:
            out.append(OtherKind(k, die_group_words(k, None), faces))
    return tuple(out)


def to_check(dice: Sequence[Mapping[str, Any]], slots: Sequence[int],
             likely: Mapping[int, Sequence[str]], kind_faces: Mapping[str, Sequence[str]],
             chosen: Mapping[int, str], kinds: Mapping[int, str] | None = None
             ) -> list[DieToCheck]:
    """The dice of ``slots`` (in the roll's order) as the sheet shows them. ``kinds``: the
    slots the player set to a face of another kind, with that kind."""
    out = []
    for i, die in enumerate(dice):
        slot = int(die.get("slot", i))
        if slot not in slots:
            continue
        kind = str(die.get("kind", ""))
        first, rest = offer(die, likely.get(slot, ()), faces_of(kind, kind_faces))
        out.append(DieToCheck(slot, die_name(die), read_words(die), first, rest,
                              chosen.get(slot), die.get("status", "clean") != "clean",
                              other_kinds(kind, kind_faces), (kinds or {}).get(slot)))
    return out


def corrected(dice: Sequence[Mapping[str, Any]], chosen: Mapping[int, str],
              kinds: Mapping[int, str] | None = None) -> list[dict[str, Any]]:
    """The roll as it really came up: each die the player set is ``clean`` with that face,
    keeping what the tower read as ``read_face`` and ``read_status``; one set to a face of
    another kind (``kinds``: slot -> kind) is of that kind, and keeps the kind the tower read
    as ``read_kind``; one the player said is not a die (:data:`NOT_A_DIE`) is left out; the
    others unchanged (every die keeps its slot)."""
    out = []
    for i, die in enumerate(dice):
        d = dict(die)
        slot = int(d.get("slot", i))
        if chosen.get(slot) == NOT_A_DIE:
            continue
        if slot in chosen:
            d["read_face"], d["read_status"] = d.get("face"), d.get("status", "clean")
            d["face"], d["status"] = chosen[slot], "clean"
            d.pop("confidence", None)       # the tower's, for the face it read
            kind = (kinds or {}).get(slot)
            if kind is not None and kind != d.get("kind"):
                d["read_kind"], d["kind"] = d.get("kind"), kind
        out.append(d)
    return out


def complete(slots: Sequence[int], chosen: Mapping[int, str]) -> bool:
    """Every die asked about has a face set (or was said to be no die)."""
    return all(s in chosen for s in slots)
