"""Protocol 1.2 on the camera tower: teaching a kind of die from the tablet, and the tray
snapshot (docs/protocol.md, section 4.8; docs/tower.md, "Teaching from the tablet").

:class:`Teacher` is driven by the camera tower's frame thread: ``command(msg)`` for each 1.2
message from the host, ``throw(frame)`` for each settled throw while teaching, ``tick()``
for resends and the periodic status. It sends packets through ``send`` and never touches the
port. Bounded: at most ``MAX_WAITING`` pictures wait for an answer (their frames are held),
``UNDO_DEPTH`` answers can be taken back, one snapshot is in flight.

This module may import ``vision`` but never Kivy or ``companion``.
"""

from __future__ import annotations

import math
import os
import struct
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from ..wire import messages as m

MAX_WAITING = 8
UNDO_DEPTH = 4
CROP_PX = 192  # a teaching picture: the die and a margin, this many pixels square
STATUS_EVERY = 1.0  # while teaching, the status is said again this often (a lost one heals)
RESEND_FIRST, RESEND_MAX = 0.2, 2.0
FRAMES_PER_TICK = 4  # picture frames (about 4 kB) per tick of the tower's command thread
WIRE_KIND = {"d6pips": "d6"}
PROFILE_KIND = {v: k for k, v in WIRE_KIND.items()}


def _jpeg(img: np.ndarray, quality: int = 85) -> bytes:
    import cv2

    while True:
        ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, quality])
        if not ok:  # pragma: no cover - OpenCV encodes any 8-bit BGR image
            raise ValueError("cannot encode a JPEG")
        if buf.size <= m.MAX_PICTURE or quality <= 20:
            return buf.tobytes()[:m.MAX_PICTURE]
        quality -= 15


def die_jpeg(frame: np.ndarray, cx: float, cy: float, size: float) -> bytes:
    """A picture of one die as the player is shown it: the die and a margin, CROP_PX square,
    the die ringed (a neighbour may be in the picture too)."""
    import cv2

    h, w = frame.shape[:2]
    half = int(max(24, 1.1 * size))
    x0, y0 = max(0, int(cx) - half), max(0, int(cy) - half)
    x1, y1 = min(w, int(cx) + half), min(h, int(cy) + half)
    crop = cv2.resize(frame[y0:y1, x0:x1], (CROP_PX, CROP_PX), interpolation=cv2.INTER_AREA)
    sx, sy = CROP_PX / max(1, x1 - x0), CROP_PX / max(1, y1 - y0)
    cv2.ellipse(crop, (round((cx - x0) * sx), round((cy - y0) * sy)),
                (round(0.8 * size * sx), round(0.8 * size * sy)), 0, 0, 360,
                (0, 215, 255), 2, cv2.LINE_AA)
    return _jpeg(crop)


@dataclass
class _Out:
    """A picture on its way, streamed a few frames per tick (a serial port's or a pty's
    buffer takes a few kilobytes, not a whole picture at once), then resent whole, from its
    header, until the host acknowledges it. 1.3: a DIE_PICTURE's header goes the same way."""

    header: m.Picture | m.DiePicture
    jpeg: bytes
    due: float = 0.0
    wait: float = RESEND_FIRST
    acked: bool = False
    next: int = 0  # the next frame to stream: 0 the header, then the data frames

    @property
    def n_frames(self) -> int:
        return 1 + -(-len(self.jpeg) // m.PICTURE_CHUNK)

    @property
    def streaming(self) -> bool:
        return not self.acked and self.next < self.n_frames

    def frame(self, i: int) -> bytes:
        if i == 0:
            return self.header.pack()
        off = (i - 1) * m.PICTURE_CHUNK
        return m.PictureData(self.header.picture_id, off,
                             self.jpeg[off:off + m.PICTURE_CHUNK]).pack()


@dataclass
class _Waiting:
    out: _Out
    frame: np.ndarray
    at: tuple[float, float]


@dataclass
class _Answer:
    picture_id: int
    face: str
    waiting: _Waiting
    before: tuple  # the kind's model and colours before the example (undo restores them)


@dataclass
class Teacher:
    profile: Any  # vision.dice.Profile, changed in place
    profile_path: Path | None
    send: Callable[[bytes], None]
    reader: Callable[[], Any]  # the tower's current DiceReader
    on_changed: Callable[[bool], None]  # teaching ended: True when the profile was saved
    log: Callable[[str], None]
    clock: Callable[[], float] = time.monotonic
    kind: str | None = None  # the profile's name of the kind being taught
    state: int = 0
    message: str = ""
    waiting: OrderedDict = field(default_factory=OrderedDict)  # picture id -> _Waiting
    answers: list = field(default_factory=list)
    snapshot_out: _Out | None = None
    _start_state: tuple | None = None
    # each picture taught since teaching started: its colour and its die's size (an oddly
    # sized one is pointed out: _odd)
    _taught: list = field(default_factory=list)
    _next_status: float = 0.0
    _next_id: int = 0
    checks: Any = None  # 1.3: the tower's DieChecks (die_check.py), which share its stream

    def __post_init__(self) -> None:
        self._next_id = struct.unpack("<I", os.urandom(4))[0] | 1

    @property
    def teaching(self) -> bool:
        return self.state == 1

    # ---------------------------------------------------------------- status
    def _wire(self, kind: str | None) -> str:
        return WIRE_KIND.get(kind or "", kind or "")

    def status(self) -> m.TeachStatus:
        from vision.dice import MIN_EXAMPLES

        faces: tuple[tuple[str, int], ...] = ()
        if self.kind is not None and self.kind in self.profile.kinds:
            model = self.profile.kinds[self.kind]
            faces = tuple((f, len(model.examples.get(f, []))) for f in model.faces)
        return m.TeachStatus(self.state, self._wire(self.kind), MIN_EXAMPLES, faces,
                             _clip(self.message))

    def _say_status(self) -> None:
        self.send(self.status().pack())
        self._next_status = self.clock() + STATUS_EVERY

    def next_id(self) -> int:
        """A new picture id: every picture of this tower, teaching's, the snapshot's and the
        dice to check, counts from one random start."""
        return self._id()

    def _id(self) -> int:
        self._next_id = self._next_id % 0xFFFFFFFF + 1
        return self._next_id

    # ---------------------------------------------------------------- commands
    def command(self, msg: m.Message) -> None:
        if isinstance(msg, m.PictureAck):
            for w in self.waiting.values():
                if w.out.header.picture_id == msg.picture_id:
                    w.out.acked = True
            if self.snapshot_out is not None \
                    and self.snapshot_out.header.picture_id == msg.picture_id:
                self.snapshot_out = None
            if self.checks is not None:
                self.checks.acked(msg.picture_id)
        elif isinstance(msg, (m.DieLook, m.KeepExample)):
            if self.checks is not None:
                self.checks.command(msg)
        elif isinstance(msg, m.TeachStart):
            self._start(msg)
        elif isinstance(msg, m.TeachStop):
            if self.teaching:
                self._cancel()
                self.message = "stopped: nothing saved"
            self._say_status()
        elif isinstance(msg, m.TeachAnswer):
            self._answer(msg.picture_id, msg.face)
        elif isinstance(msg, m.TeachAnswerC):
            self._answer(msg.picture_id, msg.face, msg.colour or None)
        elif isinstance(msg, m.TeachUndo):
            self._undo(msg.picture_id)
        elif isinstance(msg, m.Snapshot):
            self.snapshot_out = None  # a newer request replaces one still on its way

    def _refuse(self, kind: str, why: str) -> None:
        self.log(f"teaching {kind!r} refused: {why}")
        self.state, self.kind, self.message = 3, None, why
        self._say_status()

    def _start(self, msg: m.TeachStart) -> None:
        from vision.dice import DiceError

        kind = PROFILE_KIND.get(msg.kind, msg.kind)
        if self.teaching and kind == self.kind:  # a repeated start: say where we stand
            for w in self.waiting.values():
                w.out.acked, w.out.due, w.out.wait = False, self.clock(), RESEND_FIRST
            self._say_status()
            return
        if self.teaching:
            self._cancel()
        if kind == "d6pips":
            return self._refuse(msg.kind, "the pip D6 is read without teaching")
        if self.profile_path is None:
            return self._refuse(msg.kind, "the tower has no profile file to save to")
        from vision.dice import KNOWN_KINDS

        if not msg.faces and kind not in self.profile.kinds and kind not in KNOWN_KINDS:
            return self._refuse(msg.kind, f"{kind!r} is new: a new kind needs its faces")
        existed = kind in self.profile.kinds
        before = self._state_of(kind) if existed else None
        try:
            self.profile.kind(kind, list(msg.faces) or None)
            self.kind = kind
            if len(self.status().pack()) > 1019:
                raise ValueError(f"kind {kind!r}: too many faces for one TEACH_STATUS")
        except (DiceError, ValueError) as exc:
            if not existed:
                self.profile.kinds.pop(kind, None)
            return self._refuse(msg.kind, str(exc))
        self._start_state = (kind, existed, before,
                             {c: list(v) for c, v in self.profile.colours.items()})
        self.kind, self.state = kind, 1
        self.message = "throw the dice"
        self.log(f"teaching {kind!r}")
        self._say_status()

    def _state_of(self, kind: str) -> tuple:
        """What teaching one picture changes in the profile (undo puts it back): the kind's
        examples and what is kept of each taught picture (KindModel.taught_state), and the
        colours taught."""
        return (self.profile.kinds[kind].taught_state(),
                {c: list(v) for c, v in self.profile.colours.items()})

    def _restore(self, kind: str, state: tuple) -> None:
        taught, colours = state
        self.profile.kinds[kind].restore(taught)
        self.profile.colours.clear()
        self.profile.colours.update({c: list(v) for c, v in colours.items()})

    def _cancel(self) -> None:
        """Teaching stops unsaved: the profile is as it was before it started."""
        if self._start_state is not None:
            kind, existed, before, colours = self._start_state
            if existed:
                self._restore(kind, before)
            else:
                self.profile.kinds.pop(kind, None)
            self.profile.colours.clear()  # colours taught with the faces go too
            self.profile.colours.update(colours)
        self._end()
        self.on_changed(False)

    def _end(self) -> None:
        self.state = 0
        self._taught.clear()
        self.waiting.clear()
        self.answers.clear()
        self._start_state = None

    def _answer(self, picture_id: int, face: str, colour: str | None = None) -> None:
        from vision.dice import DiceError

        w = self.waiting.get(picture_id)
        if not self.teaching or w is None:
            self._say_status()  # answered already, or from before a stop: nothing to do
            return
        del self.waiting[picture_id]
        if not face:
            # the count makes each skip's status differ from the last one's, so the host
            # sees that this answer arrived (4.8: a lost command shows as no change)
            left = len(self.waiting)
            self.message = f"skipped: {left} picture{'s' if left != 1 else ''} still to answer"
            self._say_status()
            return
        assert self.kind is not None
        before = self._state_of(self.kind)
        try:
            self.profile.add_example(self.kind, face, w.frame, name=f"picture {picture_id}",
                                     at=w.at, colour=colour)
        except DiceError as exc:
            self.message = str(exc)
            self._say_status()
            return
        self.answers.append(_Answer(picture_id, face, w, before))
        del self.answers[:-UNDO_DEPTH]
        self._taught.append((colour, self.profile.kinds[self.kind].sizes[-1]))
        self.message = f"{face}: thanks" + self._odd()
        if not self.profile.kinds[self.kind].missing():
            self._save()
            return
        self.on_changed(False)  # the reader learns the example (fewer pictures next throw)
        self._say_status()

    def _odd(self) -> str:
        """What to add to the thanks for the picture just taught where its die was found
        oddly larger or smaller than the other dice of its colour taught since teaching
        started (vision.dice.profile.odd_pictures): found with its shadow or in pieces, it
        compares poorly, and the player may take it back and skip it."""
        from vision.dice.profile import odd_pictures

        colour, size = self._taught[-1]
        odd = odd_pictures([("", size)], [s for c, s in self._taught if c == colour])
        if not odd:
            return ""
        _, _, usual = odd[0]
        return (f"; found {'larger' if size > usual else 'smaller'} than the others "
                f"({size:.0f} pixels across, usually {usual:.0f})")

    def _undo(self, picture_id: int) -> None:
        if not self.teaching or not self.answers or self.answers[-1].picture_id != picture_id:
            self._say_status()  # only the last answer given can be taken back
            return
        a = self.answers.pop()
        assert self.kind is not None
        self._restore(self.kind, a.before)
        del self._taught[-1:]
        # the picture is asked again under a new id (the host is done with the old one)
        pid = self._id()
        out = _Out(replace(a.waiting.out.header, picture_id=pid), a.waiting.out.jpeg)
        self.waiting[pid] = _Waiting(out, a.waiting.frame, a.waiting.at)
        self.message = f"{a.face}: taken back"
        self.on_changed(False)
        self._say_status()

    def _save(self) -> None:
        from vision.dice import DiceError

        assert self.profile_path is not None and self.kind is not None
        try:
            self.profile.save(self.profile_path)
        except (DiceError, OSError) as exc:
            self.message = f"{self.profile_path}: cannot save ({exc})"
            self.log(self.message)
            self._say_status()
            return
        self.log(f"taught {self.kind!r}: saved {self.profile_path}")
        self.message = f"saved {self.profile_path.name}"
        self._end()
        self.state = 2
        self._say_status()
        self.on_changed(True)

    # ---------------------------------------------------------------- throws
    def throw(self, frame: np.ndarray, name: str) -> None:
        """A settled throw while teaching: a picture of each die whose face is not known
        enough yet (nothing else; no ROLL)."""
        from vision.dice import DiceError

        if not self.teaching:
            return
        assert self.kind is not None
        reader = self.reader()
        try:
            blobs, _ = reader.blobs(frame, name, teaching=True)
            readings = reader.read(frame, name)
        except DiceError as exc:
            self.message = str(exc)
            self._say_status()
            return
        if not blobs:
            return  # the dice were taken out
        model = self.profile.kinds[self.kind]
        left_out = 0
        sent = 0
        for b in sorted(blobs, key=lambda b: (round(b.cy / 20), b.cx)):
            r = min(readings, key=lambda r: math.hypot(r.x - b.cx, r.y - b.cy), default=None)
            if r is not None and math.hypot(r.x - b.cx, r.y - b.cy) > b.size:
                r = None
            if r is not None and r.status == "cocked":
                continue  # a tilted die teaches nothing
            guess = r.face if r is not None and r.kind == self.kind else None
            if r is not None and guess is not None and r.status == "clean" \
                    and len(model.examples.get(guess, [])) >= self.status().needed:
                continue  # a face it knows well enough
            if len(self.waiting) >= MAX_WAITING:
                left_out += 1
                continue
            self._picture(frame, b, guess or "")
            sent += 1
        self.message = (f"{sent} picture{'s' if sent != 1 else ''} sent" if sent else
                        "every die there has a face known already: throw again")
        if left_out:
            self.message = f"{left_out} dice left out (answer the pictures first)"
        self._say_status()

    def _picture(self, frame: np.ndarray, b: Any, guess: str) -> None:
        jpeg = die_jpeg(frame, b.cx, b.cy, b.size)
        pid = self._id()
        header = m.Picture(pid, m.PURPOSE_TEACH, len(jpeg), CROP_PX, CROP_PX,
                           self._wire(self.kind), min(int(b.cx), 0xFFFF),
                           min(int(b.cy), 0xFFFF), _clip(guess))
        self.waiting[pid] = _Waiting(_Out(header, jpeg), frame, (float(b.cx), float(b.cy)))

    # ---------------------------------------------------------------- the tray snapshot
    def snapshot(self, frame: np.ndarray | None, max_width: int, reader: Any) -> None:
        import cv2

        if frame is None:
            img = np.zeros((240, 320, 3), np.uint8)
            cv2.putText(img, "no frame (camera missing)", (12, 124),
                        cv2.FONT_HERSHEY_SIMPLEX, 0.6, (255, 255, 255), 1, cv2.LINE_AA)
            caption = "camera missing"
        else:
            img, caption = draw_reading(frame, reader)
        h, w = img.shape[:2]
        width = max(16, min(max_width, w, 0xFFFF))
        if width < w:
            img = cv2.resize(img, (width, max(1, round(h * width / w))),
                             interpolation=cv2.INTER_AREA)
        jpeg = _jpeg(img, 80)
        header = m.Picture(self._id(), m.PURPOSE_SNAPSHOT, len(jpeg), img.shape[1],
                           img.shape[0], "", 0, 0, _clip(caption))
        self.snapshot_out = _Out(header, jpeg)

    # ---------------------------------------------------------------- timers
    @property
    def streaming(self) -> bool:
        """A picture is being streamed (the caller ticks again soon)."""
        return any(w.out.streaming for w in self.waiting.values()) or (
            self.snapshot_out is not None and self.snapshot_out.streaming) or (
            self.checks is not None and any(o.streaming for o in self.checks.outs()))

    def tick(self) -> None:
        """Stream the pictures on their way (FRAMES_PER_TICK frames in all), restart those
        whose resend is due, and say the status once a second while teaching."""
        now = self.clock()
        outs = [w.out for w in self.waiting.values()]
        if self.checks is not None:  # 1.3: dice to check, after teaching's (one stream)
            outs += self.checks.outs()
        if self.snapshot_out is not None:
            outs.insert(0, self.snapshot_out)  # the player is looking at the tray view
        budget = FRAMES_PER_TICK
        for out in outs:
            if out.acked:
                continue
            if not out.streaming and out.due <= now:
                out.next = 0  # resend whole: the host takes data only in order
            while out.streaming and budget > 0:
                self.send(out.frame(out.next))
                out.next += 1
                budget -= 1
                if not out.streaming:  # all sent: wait for the ACK, then again
                    out.due, out.wait = now + out.wait, min(out.wait * 2, RESEND_MAX)
            if budget == 0:
                break
        if self.teaching and now >= self._next_status:
            self._say_status()


def _clip(text: str) -> str:
    """A string field: at most 64 bytes of UTF-8, cut on a character boundary."""
    raw = text.encode("utf-8")[:64]
    return raw.decode("utf-8", "ignore")


STATUS_COLOURS = {"clean": (80, 200, 80), "cocked": (40, 160, 255), "unreadable": (60, 60, 230)}


def draw_reading(frame: np.ndarray, reader: Any) -> tuple[np.ndarray, str]:
    """The frame with each die's box, face and confidence drawn; and the reading in words."""
    import cv2

    from vision.dice import DiceError

    img = frame.copy()
    try:
        readings = reader.read(frame, "the tray")
    except DiceError as exc:
        cv2.putText(img, str(exc)[:60], (10, 28), cv2.FONT_HERSHEY_SIMPLEX, 0.6,
                    (60, 60, 230), 2, cv2.LINE_AA)
        return img, str(exc)
    sizes = [k.size_px for k in reader.profile.kinds.values() if k.size_px]
    default = max(sizes) if sizes else 40.0
    for r in readings:
        model = reader.profile.kinds.get(r.kind) if r.kind else None
        half = int(0.75 * (model.size_px if model is not None and model.size_px else default))
        colour = STATUS_COLOURS.get(r.status, (200, 200, 200))
        x, y = int(r.x), int(r.y)
        cv2.rectangle(img, (x - half, y - half), (x + half, y + half), colour, 2)
        label = f"{r.face if r.face is not None else '?'} {round(100 * r.confidence)}%"
        if r.status != "clean":
            label += f" {r.status}"
        cv2.putText(img, label, (x - half, max(14, y - half - 6)), cv2.FONT_HERSHEY_SIMPLEX,
                    0.5, colour, 2, cv2.LINE_AA)
    clean = sum(1 for r in readings if r.status == "clean")
    caption = (f"{len(readings)} dice, {clean} clean" if readings else "the tray is empty")
    return img, caption
