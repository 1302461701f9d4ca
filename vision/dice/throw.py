"""Telling when a throw has landed: the tray changed, then held still.

A small pure state machine over frames (no camera, no clock): feed it every frame; it
answers with the frame to read once the tray, after changing, has stayed still for
``still_frames`` frames in a row. The camera tower reads that frame and sends one ROLL;
taking the dice out is a change too, and the empty tray that follows is reported as well
(the caller reads no dice there and sends nothing).

Frames are compared at 80x60 in grey (noise and JPEG vanish there): a frame differs from
another where at least ``min_pixels`` of those pixels changed by more than ``level`` grey
levels (a die is about 30 such pixels at 640x480).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from .model import DiceError


@dataclass(frozen=True)
class Settled:
    """The tray has come to rest: ``frame`` is the one to read (index ``index``)."""

    index: int
    frame: np.ndarray


class ThrowDetector:
    """``update(frame)`` returns a :class:`Settled` once per throw, else None.

    Moving: consecutive frames differ. Changed: the still tray differs from the view last
    reported (a new throw, or the dice taken out)."""

    def __init__(self, still_frames: int = 5, level: float = 20.0, min_pixels: int = 6,
                 size: tuple[int, int] = (80, 60)) -> None:
        if still_frames < 1:
            raise DiceError(f"still_frames must be 1 or more, not {still_frames}")
        self.still_frames = still_frames
        self.level = level
        self.min_pixels = min_pixels
        self.size = size
        self.reset()

    def reset(self) -> None:
        self._prev: np.ndarray | None = None
        self._settled: np.ndarray | None = None  # the view last reported (or the first)
        self._still = 0
        self._index = -1
        self.changing = False

    def _small(self, frame: np.ndarray) -> np.ndarray:
        if not isinstance(frame, np.ndarray) or frame.ndim not in (2, 3):
            raise DiceError(f"frame {self._index}: not an image")
        g = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY) if frame.ndim == 3 else frame
        return cv2.resize(g, self.size, interpolation=cv2.INTER_AREA).astype(np.float32)

    def _differ(self, a: np.ndarray, b: np.ndarray) -> bool:
        return int(np.count_nonzero(cv2.absdiff(a, b) > self.level)) >= self.min_pixels

    def update(self, frame: np.ndarray) -> Settled | None:
        self._index += 1
        small = self._small(frame)
        prev, self._prev = self._prev, small
        if prev is None:
            self._settled = small  # the tray as the tower found it
            return None
        moving = self._differ(small, prev)
        if moving:
            self._still = 0
            self.changing = True
            return None
        self._still += 1
        settled = self._settled if self._settled is not None else small
        if not self.changing:
            # a slow change (light drifting) or a change seen only between still frames
            if self._differ(small, settled):
                self.changing = True
                self._still = 1
            return None
        if self._still < self.still_frames:
            return None
        self.changing = False
        self._still = 0
        if not self._differ(small, settled):
            return None  # something passed over the tray and left it as it was
        self._settled = small
        return Settled(self._index, frame)
