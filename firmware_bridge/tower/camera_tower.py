"""The camera dice tower: a camera over the tray, the dice reader, and protocol 1.2's tower side.

    python -m firmware_bridge camera-tower --camera 0 --port /dev/ttyGS0 --profile P.yaml

Frames come from a :class:`FrameSource` (a camera, a folder of images, or any object with
``read()`` for tests). Each frame goes to a :class:`vision.dice.ThrowDetector`; when the tray
has changed and then held still, the settled frame is read once with
:class:`vision.dice.DiceReader` and the dice go out as one ROLL through
:class:`firmware_bridge.tower.sim.SimTower`, the CPython tower-side state machine (ring, resends,
heartbeats, drop notices), here with the profile's dice table and with its ring kept in a
file (:class:`RingFile`) so that a restart resends what the host never acknowledged.

Dice table: the profile's kinds in its order (the built-in ``d6pips`` is called ``d6`` on the
wire, as the simulated tower and the reference firmware call a pip D6), then ``unknown`` (no
faces) for a die whose kind the reader cannot tell; the profile's colours in its order.

Protocol 1.2 (``teach.py``): the host can teach the tower a kind of die (each throw
then sends pictures, not a ROLL, until every face has enough examples and the profile is
saved) and ask for a snapshot of the tray with the reading drawn on it; a 1.2 host gets each
die's confidence with the roll (ROLL_C).

No camera: the tower still handshakes and heartbeats; its HELLO_REPLY's ``firmware`` field
says ``camera missing`` (the app shows that field on the dice panel). When the camera comes
back (or goes away) the tower starts a new boot with the other name: its ring is restored and
resent like after any reboot (docs/protocol.md, 6.3).

This module may import ``vision`` (the reader) but never Kivy or ``companion``.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from ..wire import messages as m
from .sim import NonVolatile, SimServer, SimTower, Transport

VERSION = "1.2.0"
FIRMWARE = f"camera-tower {VERSION}"
CAMERA_MISSING = "camera missing"
UNKNOWN_KIND = "unknown"
N_SLOTS = 16  # dice in one throw; more are left out of the roll (and said on stderr)
WIRE_KIND = {"d6pips": "d6"}  # profile kind -> the name every tower uses on the wire
MAX_HELLO_REPLY = 1024  # a packet's limit (protocol.md, 2)
SMALL_HELLO_REPLY = 250  # what small receivers take (protocol.md, 6.4): a warning above it
TOWER_MINOR = 2  # the protocol minor version this tower speaks (teaching, snapshots)
IMAGE_EXTENSIONS = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp")


class CameraTowerError(ValueError):
    """Bad input at start (a profile the protocol cannot carry, a folder with no frames, a
    ring file that cannot be written): the message names the file."""


# ---------------------------------------------------------------- the dice table

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
            if wire == UNKNOWN_KIND:
                raise CameraTowerError(f"{source}: kind {name!r}: the name {UNKNOWN_KIND!r} is "
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
        kinds.append(m.DieKind(UNKNOWN_KIND, ()))
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

    def dice(self, readings: Iterable[Any]) -> tuple[m.Die, ...]:
        """Readings (``vision.dice.DieReading``) -> the dice of a ROLL, one slot each in
        reading order (top to bottom, then left to right)."""
        out = []
        ordered = sorted(readings, key=lambda r: (round(r.y / 20), r.x))
        for slot, r in enumerate(ordered[:N_SLOTS]):
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


# ---------------------------------------------------------------- the ring on disk

class RingFile(NonVolatile):
    """The unacknowledged ring and the last boot id in a file, rewritten (temporary file,
    fsync, rename) at every change, so a restart of the tower resends what the host never
    acknowledged, with its original boot id and seq (as the firmware's ring.bin).

    Format: one JSON object ``{"camera_tower_ring": 1, "last_boot_id", "rolls": [[order,
    boot_id, seq, uptime_ms, [[slot, kind, face, colour, status, confidence], ...]], ...],
    "crc"}`` (a file of 1.1 has no confidence: read as not known);
    ``crc`` is the CRC-32 of the object without it. A damaged file is moved aside to
    ``NAME.damaged`` and said on stderr; the tower then starts with an empty ring."""

    def __init__(self, path: str | Path, warn: Callable[[str], None] | None = None) -> None:
        super().__init__()
        self.path = Path(path)
        self.warn = warn or (lambda text: print(text, file=sys.stderr, flush=True))
        self.saves = 0
        self._load()

    @staticmethod
    def _body(data: dict) -> bytes:
        return json.dumps({k: v for k, v in data.items() if k != "crc"},
                          sort_keys=True, separators=(",", ":")).encode()

    def _load(self) -> None:
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            return
        except OSError as exc:
            raise CameraTowerError(f"{self.path}: cannot read the ring file ({exc.strerror})"
                                   ) from None
        try:
            data = json.loads(raw)
            if not isinstance(data, dict) or data.get("camera_tower_ring") != 1:
                raise ValueError("not a camera tower ring file (camera_tower_ring: 1)")
            if data.get("crc") != zlib.crc32(self._body(data)):
                raise ValueError("its checksum does not match")
            last = data["last_boot_id"]
            ring = []
            for order, boot_id, seq, uptime, dice in data["rolls"]:
                ring.append((int(order), m.Roll(int(boot_id), int(seq), int(uptime), 0,
                                                tuple(m.Die(*map(int, d)) for d in dice))))
            if not isinstance(last, int) or not 0 <= last <= 0xFFFFFFFF:
                raise ValueError(f"last_boot_id {last!r}")
        except (ValueError, KeyError, TypeError) as exc:
            aside = self.path.with_name(self.path.name + ".damaged")
            os.replace(self.path, aside)
            self.warn(f"{self.path}: damaged ring file ({exc}); moved to {aside.name}, "
                      "starting with an empty ring: rolls it held are lost")
            return
        self.ring, self.last_boot_id = ring, last

    def save(self) -> None:
        data: dict[str, Any] = {
            "camera_tower_ring": 1, "last_boot_id": self.last_boot_id,
            "rolls": [[order, r.boot_id, r.seq, r.uptime_ms,
                       [[d.slot, d.kind, d.face, d.colour, d.status, d.confidence]
                        for d in r.dice]]
                      for order, r in self.ring]}
        data["crc"] = zlib.crc32(self._body(data))
        tmp = self.path.with_name(self.path.name + ".tmp")
        with open(tmp, "wb") as f:
            f.write(json.dumps(data).encode())
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, self.path)
        self.saves += 1


# ---------------------------------------------------------------- frame sources

class FrameSource(Protocol):
    """Where frames come from. ``read()`` returns ``(name, frame)``, ``None`` when no frame is
    there now (a camera missing or lost: the tower says so and retries), and raises
    ``StopIteration`` when a finite source is done."""

    def read(self) -> tuple[str, np.ndarray] | None: ...

    def close(self) -> None: ...


class IterSource:
    """Frames from any iterable of images, paced at ``fps`` (0: as fast as they are read):
    the frame-source object of the tests and the benchmark. ``handed[i]`` is the time frame
    ``i`` was handed out."""

    def __init__(self, frames: Iterable[np.ndarray], fps: float = 0.0) -> None:
        self._it: Iterator[np.ndarray] = iter(frames)
        self.period = 1.0 / fps if fps else 0.0
        self.handed: list[float] = []
        self._next = time.monotonic()

    def read(self) -> tuple[str, np.ndarray] | None:
        frame = next(self._it)  # StopIteration: done
        if self.period:
            delay = self._next - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            self._next = max(self._next + self.period, time.monotonic() - self.period)
        self.handed.append(time.monotonic())
        return f"frame {len(self.handed) - 1}", frame

    def close(self) -> None:
        pass


class FolderSource:
    """The images of a folder in name order (``--frames DIR``), paced at ``fps``. A file that
    is not a readable image is named on stderr and skipped."""

    def __init__(self, folder: str | Path, fps: float = 30.0,
                 warn: Callable[[str], None] | None = None) -> None:
        self.folder = Path(folder)
        if not self.folder.is_dir():
            raise CameraTowerError(f"{self.folder}: no such folder of frames")
        self.files = sorted(p for p in self.folder.iterdir()
                            if p.suffix.lower() in IMAGE_EXTENSIONS)
        if not self.files:
            raise CameraTowerError(f"{self.folder}: no images ({', '.join(IMAGE_EXTENSIONS)})")
        self.warn = warn or (lambda text: print(text, file=sys.stderr, flush=True))
        self.period = 1.0 / fps if fps else 0.0
        self._i = 0
        self._next = time.monotonic()

    def read(self) -> tuple[str, np.ndarray] | None:
        import cv2

        while True:
            if self._i >= len(self.files):
                raise StopIteration
            path = self.files[self._i]
            self._i += 1
            try:
                data = np.fromfile(path, np.uint8)
            except OSError as exc:
                self.warn(f"{path}: cannot be read ({exc.strerror or exc}): skipped")
                continue
            frame = cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None
            if frame is None:
                self.warn(f"{path}: not a readable image ({data.size} bytes): skipped")
                continue
            if self.period:
                delay = self._next - time.monotonic()
                if delay > 0:
                    time.sleep(delay)
                self._next = max(self._next + self.period, time.monotonic() - self.period)
            return str(path), frame

    def close(self) -> None:
        pass


class CameraSource:
    """An OpenCV camera (``--camera 0`` or a device path), opened at the profile's size.
    Missing or lost: ``read()`` returns None and the camera is tried again every
    ``retry_s``."""

    def __init__(self, device: str | int, size: tuple[int, int] | None,
                 retry_s: float = 2.0) -> None:
        self.device = int(device) if str(device).isdigit() else str(device)
        self.size = size
        self.retry_s = retry_s
        self.cap: Any = None
        self._retry_at = 0.0
        self.index = -1
        self.error = ""
        try:  # OpenCV's own warning at every retry of a missing camera: said once by us
            import cv2

            cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_ERROR)
        except AttributeError:  # pragma: no cover - an OpenCV without the logging module
            pass

    def probe(self) -> bool:
        """Whether the camera opens now (the tower's first boot says so)."""
        return self.cap is not None or self._open()

    def _open(self) -> bool:
        import cv2

        now = time.monotonic()
        if now < self._retry_at:
            time.sleep(min(0.05, self._retry_at - now))
            return False
        self._retry_at = now + self.retry_s
        cap = cv2.VideoCapture(self.device)
        if not cap.isOpened():
            cap.release()
            self.error = f"camera {self.device}: cannot be opened (not connected?)"
            return False
        if self.size is not None:
            cap.set(cv2.CAP_PROP_FRAME_WIDTH, self.size[0])
            cap.set(cv2.CAP_PROP_FRAME_HEIGHT, self.size[1])
        self.cap = cap
        return True

    def read(self) -> tuple[str, np.ndarray] | None:
        if self.cap is None and not self._open():
            return None
        ok, frame = self.cap.read()
        if not ok or frame is None:
            self.cap.release()
            self.cap = None
            self.error = f"camera {self.device}: no frame (unplugged?)"
            return None
        self.index += 1
        return f"camera {self.device} frame {self.index}", frame

    def close(self) -> None:
        if self.cap is not None:
            self.cap.release()
            self.cap = None


# ---------------------------------------------------------------- the tower

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

    def __init__(self, profile: Any, source: FrameSource, transport: Transport, *,
                 ring_file: str | Path, profile_name: str = "the profile",
                 still_frames: int = 5, seed: int | None = None,
                 log: Callable[[str], None] | None = None,
                 on_roll: Callable[[SentRoll], None] | None = None,
                 profile_path: str | Path | None = None) -> None:
        """``profile_path``: where teaching saves the profile (default: the file it was
        loaded from; none: teaching is refused)."""
        import queue

        from vision.dice import DiceReader, ThrowDetector

        from .teach import Teacher

        self.log = log or (lambda text: print(text, file=sys.stderr, flush=True))
        self.table = DiceTable.of(profile, profile_name)
        if self.table.hello_reply_size() > SMALL_HELLO_REPLY:
            self.log(f"{profile_name}: the HELLO_REPLY is {self.table.hello_reply_size()} "
                     f"bytes; small receivers take {SMALL_HELLO_REPLY} (this app takes "
                     f"{MAX_HELLO_REPLY})")
        self.profile = profile
        self.reader = DiceReader(profile)
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
        dice = self.table.dice(readings)
        seq = self.tower.roll(dice)
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


# ---------------------------------------------------------------- a serial port

class SerialTransport:
    """The tower's end of a serial port (``/dev/ttyGS0``, the USB gadget): reopened after an
    error; writes never block (a frame nobody takes is lost, as on a real USB device)."""

    def __init__(self, url: str, baudrate: int = 115200,
                 warn: Callable[[str], None] | None = None) -> None:
        self.url = url
        self.baudrate = baudrate
        self.warn = warn or (lambda text: print(text, file=sys.stderr, flush=True))
        self.port: Any = None
        self._retry_at = 0.0
        self.dropped_writes = 0
        self.error = ""

    def _open(self) -> Any:
        import serial

        if self.port is not None:
            return self.port
        now = time.monotonic()
        if now < self._retry_at:
            return None
        self._retry_at = now + 0.5
        try:
            self.port = serial.serial_for_url(self.url, baudrate=self.baudrate, timeout=0,
                                              write_timeout=0)
        except (serial.SerialException, OSError, ValueError) as exc:
            error = f"{self.url}: {exc}"
            if error != self.error:  # said once, then tried again every 0.5 s
                self.warn(f"{error} (trying again)")
            self.error = error
            return None
        if self.error:
            self.warn(f"{self.url}: open")
            self.error = ""
        return self.port

    def _lost(self) -> None:
        try:
            self.port.close()
        except Exception:  # noqa: BLE001 - the port is gone either way
            pass
        self.port = None

    def write(self, data: bytes) -> bool:
        import serial

        port = self._open()
        if port is None:
            return False
        try:
            port.write(data)
            return True
        except serial.SerialTimeoutException:
            self.dropped_writes += 1
            return False
        except (serial.SerialException, OSError):
            self._lost()
            return False

    def read(self, timeout: float) -> bytes:
        import serial

        port = self._open()
        if port is None:
            time.sleep(timeout)
            return b""
        try:
            if port.timeout != timeout:  # pyserial reconfigures the tty on every change
                port.timeout = timeout
            return bytes(port.read(4096))
        except (serial.SerialException, OSError):
            self._lost()
            time.sleep(timeout)
            return b""

    def close(self) -> None:
        if self.port is not None:
            self._lost()
