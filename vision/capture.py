"""Frames from a camera (or the demo scene) on their own thread, latest frame wins.

``LiveMeasure`` runs capture *and* measurement on one worker thread: it reads a frame,
measures it, and leaves the newest (frame, measurement or error) in a one-slot mailbox.
The GUI polls the mailbox on its clock and never waits for the camera; frames the GUI had
no time to show are simply replaced (a slow tablet shows fewer frames, never older ones).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from .config import CameraConfig, TableConfig
from .measure import Measurement, Measurer, VisionError

log = logging.getLogger(__name__)


class FrameSource(Protocol):
    def read(self) -> tuple[bool, np.ndarray | None]: ...

    def release(self) -> None: ...


class CameraSource:
    """A real camera through OpenCV (``index`` as for ``cv2.VideoCapture``)."""

    def __init__(self, index: int | str = 0, size: tuple[int, int] | None = None) -> None:
        import cv2

        self.cap = cv2.VideoCapture(index)
        if not self.cap.isOpened():
            raise VisionError(f"camera {index!r}: cannot be opened (not plugged in, or in use)")
        if size is not None:
            self.cap.set(cv2.CAP_PROP_FRAME_WIDTH, size[0])
            self.cap.set(cv2.CAP_PROP_FRAME_HEIGHT, size[1])

    def read(self) -> tuple[bool, np.ndarray | None]:
        return self.cap.read()

    def release(self) -> None:
        self.cap.release()


@dataclass(frozen=True)
class Frame:
    seq: int
    image: np.ndarray
    measurement: Measurement | None
    error: str
    all_anchors: bool
    ms: float                   # measuring time


class Mailbox:
    """One slot: ``put`` replaces, ``take`` empties (thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._item: Any = None

    def put(self, item: Any) -> None:
        with self._lock:
            self._item = item

    def take(self) -> Any:
        with self._lock:
            item, self._item = self._item, None
            return item


STEADY_FRAMES = 3   # a marker is a piece once seen (declared, right size) in 3 frames in a row


class LiveMeasure:
    def __init__(self, source: FrameSource, table: TableConfig, camera: CameraConfig | None,
                 *, max_fps: float = 30.0, on_frame: Callable[[], None] | None = None,
                 steady_frames: int = STEADY_FRAMES) -> None:
        self.source = source
        self.measurer = Measurer(table, camera, steady_frames=steady_frames)
        self.mailbox = Mailbox()
        self.min_interval = 1.0 / max_fps
        self.on_frame = on_frame
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.frames = 0
        self.failures = 0
        self.errors = 0           # exceptions from the camera or OpenCV, logged, survived

    def start(self) -> LiveMeasure:
        self._thread = threading.Thread(target=self._run, name="vision-capture", daemon=True)
        self._thread.start()
        return self

    def stop(self, timeout: float = 2.0) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)
        try:
            self.source.release()
        except Exception:  # noqa: BLE001  (a camera that fails to close must not stop us)
            pass

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def _run(self) -> None:
        n_anchors = len(self.measurer.table.anchors)
        while not self._stop.is_set():
            t0 = time.perf_counter()
            try:
                ok, image = self.source.read()
            except Exception:  # noqa: BLE001 - an OpenCV or driver error must not end the thread
                log.exception("the camera failed to give a frame")
                ok, image = False, None
                self.errors += 1
            if not ok or image is None:
                self.failures += 1
                self.mailbox.put(Frame(self.frames, np.zeros((1, 1, 3), np.uint8), None,
                                       "The camera stopped giving pictures: check its cable. "
                                       "It is tried again.", False, 0.0))
                self._stop.wait(0.2)
                continue
            t1 = time.perf_counter()
            try:
                m: Measurement | None = self.measurer.measure(image)
                error = ""
            except VisionError as exc:
                m, error = None, str(exc)
            except Exception:  # noqa: BLE001 - an OpenCV error on one frame: the next is tried
                log.exception("a camera frame could not be measured")
                self.errors += 1
                m, error = None, "This picture could not be measured; the next one is tried."
            ms = (time.perf_counter() - t1) * 1000
            self.frames += 1
            self.mailbox.put(Frame(self.frames, image, m, error,
                                   m is not None and len(m.anchors) == n_anchors, ms))
            if self.on_frame is not None:
                self.on_frame()
            rest = self.min_interval - (time.perf_counter() - t0)
            if rest > 0:
                self._stop.wait(rest)
