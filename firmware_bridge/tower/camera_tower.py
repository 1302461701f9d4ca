"""The camera dice tower: a camera over the tray, the dice reader, and protocol 1.3's tower side.

    python -m firmware_bridge camera-tower --camera 0 --port /dev/ttyGS0 --profile P.yaml

Frames come from a :class:`~firmware_bridge.tower.frames.FrameSource` (``frames.py``: a
camera, a folder of images, or any object with ``read()`` for tests). Each frame goes to a
:class:`vision.dice.ThrowDetector`; when the tray has changed and then held still, the settled
frame is read once with :class:`vision.dice.DiceReader` and the dice go out as one ROLL through
:class:`firmware_bridge.tower.sim.SimTower`, the CPython tower-side state machine (ring,
resends, heartbeats, drop notices), here with the profile's dice table (``dice_table.py``) and
with its ring kept in a file (``ring_file.py``) so that a restart resends what the host never
acknowledged. The tablet's end is a serial port (``serial_transport.py``).

Protocol 1.2 (``teach.py``): the host can teach the tower a kind of die (each throw
then sends pictures, not a ROLL, until every face has enough examples and the profile is
saved) and ask for a snapshot of the tray with the reading drawn on it; a 1.2 host gets each
die's confidence with the roll (ROLL_C).

Protocol 1.3 (``die_check.py``): to a 1.3 host, each roll's dice not read cleanly follow it
as DIE_PICTUREs with the reader's likeliest faces; the host can ask for any die of the last
4 rolls (DIE_LOOK) and keep a die it was shown as a taught example (KEEP_EXAMPLE).

No camera: the tower still handshakes and heartbeats; its HELLO_REPLY's ``firmware`` field
says ``camera missing`` (the app shows that field on the dice panel). When the camera comes
back (or goes away) the tower starts a new boot with the other name: its ring is restored and
resent like after any reboot (docs/protocol.md, 6.3).

This module may import ``vision`` (the reader) but never Kivy or ``companion``.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..wire import messages as m
from .dice_table import (
    CAMERA_MISSING,
    FIRMWARE,
    MAX_HELLO_REPLY,
    N_SLOTS,
    SMALL_HELLO_REPLY,
    TOWER_MINOR,
    DiceTable,
)
from .frames import FrameSource
from .ring_file import RingFile
from .sim import SimServer, SimTower, Transport

if TYPE_CHECKING:
    from vision.dice.profile import Profile


@dataclass(frozen=True)
class SentRoll:
    """One throw sent: its key, dice, the settled frame's name and the time the frame was
    read (``t_frame``) and the ROLL handed to the port (``t_sent``), time.monotonic()."""

    boot_id: int
    seq: int
    dice: tuple[m.Die, ...]
    frame: str
    t_frame: float
    t_sent: float


class CameraTower:
    """Frames in, one ROLL per throw out, over ``transport`` (a serial port or a pty).

    ``run()`` loops until ``stop()`` (or, with ``stop_when_done``, until a finite source is
    done and every roll is acknowledged). The link side (host bytes, resends, heartbeats)
    runs on the :class:`SimServer` thread; the frames on the caller's."""

    def __init__(self, profile: Profile, source: FrameSource, transport: Transport, *,
                 ring_file: str | Path, profile_name: str = "the profile",
                 still_frames: int = 5, seed: int | None = None,
                 log: Callable[[str], None] | None = None,
                 on_roll: Callable[[SentRoll], None] | None = None,
                 profile_path: str | Path | None = None) -> None:
        """``profile_path``: where teaching saves the profile (default: the file it was
        loaded from; none: teaching is refused)."""
        import queue

        from vision.dice import DiceReader, ThrowDetector
        from vision.dice.reader import network_problems

        from .die_check import DieChecks
        from .teach import Teacher

        self.log = log or (lambda text: print(text, file=sys.stderr, flush=True))
        self.table = DiceTable.of(profile, profile_name)
        if self.table.hello_reply_size() > SMALL_HELLO_REPLY:
            self.log(f"{profile_name}: the HELLO_REPLY is {self.table.hello_reply_size()} "
                     f"bytes; small receivers take {SMALL_HELLO_REPLY} (this app takes "
                     f"{MAX_HELLO_REPLY})")
        self.profile = profile
        self.reader = DiceReader(profile)
        for problem in network_problems():
            self.log(f"the dice reader: {problem}")
        self.detector = ThrowDetector(still_frames=still_frames)
        self.size = profile.image_size
        self.source = source
        self.on_roll = on_roll
        self.nv = RingFile(ring_file, warn=self.log)
        probe = getattr(source, "probe", None)
        self.camera_ok = bool(probe()) if probe is not None else True
        if not self.camera_ok:
            self.log(f"{getattr(source, 'error', 'no camera')}: the tower says "
                     f"{CAMERA_MISSING!r} and keeps trying")
        self.profile_name = profile_name
        self._commands: queue.SimpleQueue = queue.SimpleQueue()  # 1.2, from the link thread
        self._work = threading.RLock()  # a frame or a command at a time
        self.latest: np.ndarray | None = None  # the last good frame (the tray snapshot's)
        path = profile_path if profile_path is not None else getattr(profile, "path", None)
        self.teacher = Teacher(profile, Path(path) if path is not None else None,
                               self._send, lambda: self.reader, self._taught, self.log)
        self.tower = SimTower(seed=seed, nv=self.nv, kinds=self.table.kinds,
                              colours=self.table.colours, n_slots=N_SLOTS,
                              firmware=FIRMWARE if self.camera_ok
                              else f"{FIRMWARE}; {CAMERA_MISSING}",
                              minor=TOWER_MINOR, on_command=self._commands.put)
        self.server = SimServer(self.tower, transport)
        self.checks = DieChecks(self.teacher, lambda: self.table,
                                lambda: self.tower.host_takes(3))
        self.teacher.checks = self.checks
        self.sent: list[SentRoll] = []
        self.errors: list[str] = []
        self.frames = 0
        self.done = False
        self._stop = threading.Event()
        self._last_error = ""
        self._link_started = False

    # -- 1.2: teaching and snapshots ------------------------------------------------------
    def _send(self, packet: bytes) -> None:
        self.tower.send(packet)

    def _taught(self, saved: bool) -> None:
        """The profile changed (an example, an undo, a cancel, a save): read with it. Saved
        with a kind the dice table did not have: a new boot declares the new table."""
        from vision.dice import DiceReader

        self.reader = DiceReader(self.profile)
        if not saved:
            return
        table = DiceTable.of(self.profile, self.profile_name)
        if table.kinds != self.table.kinds or table.colours != self.table.colours:
            self.table = table
            self.tower.kinds, self.tower.colours = table.kinds, table.colours
            self.log("the dice table changed: a new boot declares it")
            self.server.flush()  # what was said about it goes before the new boot
            self.server.reset()

    def _command_loop(self) -> None:
        """The 1.2 commands' thread: a camera may block in read() (no frame yet), and the
        host's answers must not wait for the next frame. Frames and commands take turns
        (``_work``); the link's thread only queues."""
        import queue

        while not self._stop.is_set():
            try:  # quickly again while a picture is being streamed
                msg = self._commands.get(timeout=0.005 if self.teacher.streaming else 0.05)
            except queue.Empty:
                msg = None
            try:
                with self._work:
                    if isinstance(msg, m.Snapshot):
                        self.teacher.command(msg)
                        self.teacher.snapshot(self.latest, msg.max_width, self.reader)
                    elif msg is not None:
                        self.teacher.command(msg)
                    self.teacher.tick()
            except Exception as exc:  # noqa: BLE001 - said, and the tower goes on
                import traceback

                self.log(f"{type(msg).__name__ if msg is not None else 'timer'} failed: "
                         f"{exc!r}\n{traceback.format_exc()}")
            self.server.flush()

    # -- camera state --------------------------------------------------------------------
    def _camera(self, ok: bool, why: str = "") -> None:
        """The camera came or went: a new boot with the name that says so."""
        if ok == self.camera_ok:
            return
        self.camera_ok = ok
        self.tower.firmware = FIRMWARE if ok else f"{FIRMWARE}; {CAMERA_MISSING}"
        self.log(f"{why}: the tower says {CAMERA_MISSING!r}" if not ok
                 else "camera back: reading throws")
        self.detector.reset()
        self.server.reset()

    # -- frames --------------------------------------------------------------------------
    def _error(self, name: str, text: str) -> None:
        """A frame that sends nothing: said on the log, once per run of the same fault (a
        camera at the wrong size would otherwise say it 30 times a second)."""
        self.errors.append(text)
        fault = text[len(name):] if text.startswith(name) else text
        if fault != self._last_error:
            self.log(text)
        self._last_error = fault

    def step(self) -> bool:
        """Take one frame; False when a finite source is done."""
        try:
            got = self.source.read()
        except StopIteration:
            return False
        with self._work:
            return self._step(got)

    def _step(self, got: tuple[str, np.ndarray] | None) -> bool:
        from vision.dice import DiceError

        if got is None:
            self._camera(False, getattr(self.source, "error", "") or "no camera")
            return True
        t_frame = time.monotonic()
        self._camera(True)
        name, frame = got
        self.frames += 1
        if not isinstance(frame, np.ndarray) or frame.ndim != 3 or frame.shape[2] != 3 \
                or frame.dtype != np.uint8:
            self._error(name, f"{name}: not an 8-bit colour image: skipped")
            return True
        h, w = frame.shape[:2]
        if self.size is not None and (w, h) != tuple(self.size):
            self._error(name, f"{name}: the image is {w}x{h} but the profile's empty tray is "
                        f"{self.size[0]}x{self.size[1]} (same camera and resolution needed): "
                        "skipped")
            return True
        self.latest = frame
        try:
            settled = self.detector.update(frame)
            if settled is None:
                return True
            if self.teacher.teaching:  # a teaching throw: pictures, no ROLL
                self.teacher.throw(settled.frame, name)
                self.server.flush()
                return True
            readings = self.reader.read(settled.frame, name)
        except DiceError as exc:
            self._error(name, f"{exc} (nothing sent)")
            return True
        self._last_error = ""
        if not readings:
            return True  # the dice were taken out: an empty tray is no throw
        if len(readings) > N_SLOTS:
            self.log(f"{name}: {len(readings)} dice; a roll carries {N_SLOTS}: the others are "
                     "left out")
        ordered = self.table.ordered(readings)
        dice = self.table.dice(ordered)
        seq = self.tower.roll(dice)
        # 1.3: the dice to check follow the roll (the command thread streams them)
        self.checks.roll(self.tower.boot_id, seq, settled.frame, list(zip(dice, ordered)),
                         send=self.tower.host_takes(3))
        self.server.flush()
        sent = SentRoll(self.tower.boot_id, seq, dice, name, t_frame, time.monotonic())
        self.sent.append(sent)
        if self.on_roll is not None:
            self.on_roll(sent)
        return True

    # -- running -------------------------------------------------------------------------
    def start_link(self) -> CameraTower:
        if not self._link_started:
            self._link_started = True
            self.server.start()
            threading.Thread(target=self._command_loop, name="camera-tower-commands",
                             daemon=True).start()
        return self

    def run(self, stop_when_done: bool = False) -> None:
        """Frames until stop() (or, with ``stop_when_done``, until the source is done and
        the ring is empty)."""
        self.start_link()
        while not self._stop.is_set():
            if self.done:
                if stop_when_done and self.tower.unacked == 0:
                    return
                self._stop.wait(0.05)
                continue
            if not self.step():
                self.done = True

    def run_in_thread(self) -> threading.Thread:
        thread = threading.Thread(target=self.run, name="camera-tower", daemon=True)
        thread.start()
        return thread

    def stop(self) -> None:
        self._stop.set()
        self.server.stop()
        self.source.close()
