"""Protocol 1.3 on the camera tower: a die to check (docs/protocol.md, section 4.9;
docs/tower.md, "Dice to check").

After each ROLL_C to a 1.3 host the tower sends a DIE_PICTURE of every die of the roll that it
did not read cleanly (at most ``MAX_PER_ROLL``), with the reader's likeliest faces for it; a
DIE_LOOK asks for one of any die of its last ``MAX_ROLLS`` rolls (a reading the player
disputes); a KEEP_EXAMPLE makes the die of one of its last ``MAX_HELD`` die pictures a taught
example of the face the player chose, saved in the profile the way teaching saves it.

:class:`DieChecks` lives beside the :class:`~firmware_bridge.tower.teach.Teacher`, which streams
its pictures with its own (one stream, one picture id counter) and hands it the 1.3 commands;
both are driven under the camera tower's work lock. Bounded: the frames of the last
``MAX_ROLLS`` rolls and of the last ``MAX_HELD`` die pictures.

This module may import ``vision`` but never Kivy or ``companion``.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..wire import messages as m
from .teach import CROP_PX, RESEND_FIRST, WIRE_KIND, Teacher, _clip, _Out, die_jpeg

MAX_ROLLS = 4
"""Rolls whose frames the tower keeps for a DIE_LOOK."""
MAX_HELD = 16
"""Die pictures whose dice (frame and place) the tower keeps for a KEEP_EXAMPLE."""
MAX_PER_ROLL = 8
"""Die pictures sent unasked after one roll (its dice not read cleanly)."""
DEFAULT_SIZE_PX = 40.0  # a die's size when the profile knows none (the ring drawn around it)


@dataclass
class _Throw:
    """A roll's settled frame and its dice by slot: (the wire die, the reader's reading)."""

    frame: np.ndarray
    dice: dict[int, tuple[m.Die, Any]]


@dataclass
class _Held:
    """A die picture sent: its stream, and what keeping its die needs."""

    out: _Out
    frame: np.ndarray
    at: tuple[float, float]
    kind: str | None  # the profile's name of the die's kind (None: not known)
    status: int  # the die's status in its roll
    looked: bool  # made for a DIE_LOOK
    kept: m.TeachStatus | None = None  # the answer of the keep that took it, said again


@dataclass
class DieChecks:
    teacher: Teacher
    table: Callable[[], Any]  # the tower's current DiceTable
    host_takes: Callable[[], bool]  # the host said minor 3 or more in this boot
    throws: OrderedDict = field(default_factory=OrderedDict)  # (boot id, seq) -> _Throw
    held: OrderedDict = field(default_factory=OrderedDict)  # picture id -> _Held

    # ---------------------------------------------------------------- rolls
    def roll(self, boot_id: int, seq: int, frame: np.ndarray,
             dice: list[tuple[m.Die, Any]], send: bool) -> int:
        """A roll went out (its ROLL or ROLL_C queued): keep its frame, and with ``send``
        (a 1.3 host) make a picture of each die not read cleanly. Returns how many."""
        self.throws[(boot_id, seq)] = _Throw(frame, {d.slot: (d, r) for d, r in dice})
        while len(self.throws) > MAX_ROLLS:
            self.throws.popitem(last=False)
        if not send:
            return 0
        unclear = [(d, r) for d, r in dice if d.status != m.CLEAN][:MAX_PER_ROLL]
        for d, r in unclear:
            self._picture(boot_id, seq, frame, d, r, looked=False)
        return len(unclear)

    def _picture(self, boot_id: int, seq: int, frame: np.ndarray, die: m.Die, reading: Any,
                 looked: bool) -> int:
        table = self.table()
        kinds = self.teacher.profile.kinds
        wire = table.kinds[die.kind] if die.kind < len(table.kinds) else None
        profile_kind = (table.profile_kinds[die.kind]
                        if die.kind < len(table.profile_kinds) else None)
        model = kinds.get(profile_kind) if profile_kind is not None else None
        sizes = [k.size_px for k in kinds.values() if k.size_px]
        size = (model.size_px if model is not None and model.size_px
                else max(sizes) if sizes else DEFAULT_SIZE_PX)
        faces = tuple(_clip(f) for f in getattr(reading, "likely", ())
                      if wire is not None and f in wire.faces)[:m.MAX_LIKELY]
        jpeg = die_jpeg(frame, reading.x, reading.y, size)
        pid = self.teacher.next_id()
        header = m.DiePicture(pid, boot_id, seq, die.slot, len(jpeg), CROP_PX, CROP_PX,
                              wire.name if wire is not None else "",
                              min(max(0, int(reading.x)), 0xFFFF),
                              min(max(0, int(reading.y)), 0xFFFF), faces)
        self.held[pid] = _Held(_Out(header, jpeg, due=self.teacher.clock()), frame,
                               (float(reading.x), float(reading.y)), profile_kind,
                               die.status, looked)
        while len(self.held) > MAX_HELD:
            self.held.popitem(last=False)  # its stream ends with it
        return pid

    # ---------------------------------------------------------------- streaming
    def outs(self) -> list[_Out]:
        """The die pictures to stream (none while the host does not speak 1.3: a 1.2 host
        that took over keeps none of them)."""
        if not self.host_takes():
            return []
        return [h.out for h in self.held.values() if not h.out.acked]

    def acked(self, picture_id: int) -> None:
        held = self.held.get(picture_id)
        if held is not None:
            held.out.acked = True

    # ---------------------------------------------------------------- commands
    def command(self, msg: m.Message) -> None:
        if isinstance(msg, m.DieLook):
            self.look(msg)
        elif isinstance(msg, m.KeepExample):
            self.keep(msg)

    def _say(self, message: str, kind: str | None = None) -> m.TeachStatus:
        from vision.dice import MIN_EXAMPLES

        faces: tuple[tuple[str, int], ...] = ()
        model = self.teacher.profile.kinds.get(kind) if kind is not None else None
        if model is not None and not model.builtin:
            faces = tuple((f, len(model.examples.get(f, []))) for f in model.faces)
        status = m.TeachStatus(self.teacher.state, WIRE_KIND.get(kind or "", kind or ""),
                               MIN_EXAMPLES, faces, _clip(message))
        if len(status.pack()) > 1019:  # a kind of very many faces: the message still goes
            status = m.TeachStatus(status.state, status.kind, status.needed, (), status.message)
        self.teacher.send(status.pack())
        return status

    def look(self, msg: m.DieLook) -> None:
        """A DIE_PICTURE of that die, or a TEACH_STATUS saying why not."""
        throw = self.throws.get((msg.boot_id, msg.seq))
        if throw is None:
            self._say(f"roll {msg.seq}: no longer here (the tower keeps the throws of its "
                      f"last {MAX_ROLLS} rolls)")
            return
        if msg.slot not in throw.dice:
            self._say(f"roll {msg.seq} has no die in slot {msg.slot}")
            return
        for held in self.held.values():
            h = held.out.header
            if held.looked and not held.out.acked and (h.boot_id, h.seq, h.slot) == (
                    msg.boot_id, msg.seq, msg.slot):
                # the host asked again before the picture reached it: the same one, now
                held.out.next, held.out.due, held.out.wait = 0, self.teacher.clock(), \
                    RESEND_FIRST
                return
        die, reading = throw.dice[msg.slot]
        self._picture(msg.boot_id, msg.seq, throw.frame, die, reading, looked=True)

    def keep(self, msg: m.KeepExample) -> None:
        """The die of that picture becomes a taught example of ``msg.face`` (and of its
        colour), saved; a TEACH_STATUS says so or why not."""
        from vision.dice import DiceError

        t = self.teacher
        held = self.held.get(msg.picture_id)
        if held is None:
            self._say(f"picture {msg.picture_id}: no longer here (the tower keeps the dice of "
                      f"its last {MAX_HELD} pictures)")
            return
        if held.kept is not None:  # a repeat (our answer was lost): changes nothing
            t.send(held.kept.pack())
            return
        kind = held.kind
        model = t.profile.kinds.get(kind) if kind is not None else None
        if model is None:
            self._say("the tower could not tell this die's kind: teach the kind first")
            return
        if model.builtin:
            self._say("the pip D6 is read without teaching: it takes no examples", kind)
            return
        if held.status == m.COCKED:
            self._say(f"{msg.face}: not kept, a tilted die teaches nothing", kind)
            return
        if t.teaching:
            self._say(f"{msg.face}: not kept while teaching {t._wire(t.kind)}", kind)
            return
        if t.profile_path is None:
            self._say("the tower has no profile file to save to", kind)
            return
        before = t._state_of(kind)
        try:
            t.profile.add_example(kind, msg.face, held.frame,
                                  name=f"die picture {msg.picture_id}", at=held.at,
                                  colour=msg.colour or None)
        except DiceError as exc:
            t._restore(kind, before)
            self._say(str(exc), kind)
            return
        try:  # the way teaching saves: written to a temporary file, renamed over the old
            t.profile.save(t.profile_path)
        except (DiceError, OSError) as exc:
            t._restore(kind, before)  # not kept: what the tower reads is what it saved
            message = f"{t.profile_path.name}: cannot save ({exc})"
            t.log(message)
            self._say(message, kind)
            return
        t.log(f"kept die picture {msg.picture_id} as {kind} {msg.face!r}: saved "
              f"{t.profile_path}")
        held.kept = self._say(f"{msg.face}: kept", kind)
        t.on_changed(True)  # read with it; a new colour is a new dice table (a new boot)
