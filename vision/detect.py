"""Marker detection: configure once, call per frame, plain values back.

A thin typed layer over ``cv2.aruco.ArucoDetector``: the dictionary and the corner refinement
come from the table file (``detector:``); the minimum marker size is turned into OpenCV's
perimeter rate for each frame size. Corners are in image pixels, in the marker's own order
(top-left, top-right, bottom-right, bottom-left of the printed marker).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from .config import DetectorConfig

REFINEMENTS = {"none": cv2.aruco.CORNER_REFINE_NONE, "subpix": cv2.aruco.CORNER_REFINE_SUBPIX,
               "contour": cv2.aruco.CORNER_REFINE_CONTOUR,
               "apriltag": cv2.aruco.CORNER_REFINE_APRILTAG}


@dataclass(frozen=True, slots=True)
class Detection:
    id: int
    corners: tuple[tuple[float, float], tuple[float, float], tuple[float, float],
                   tuple[float, float]]

    @property
    def side_px(self) -> float:
        """Mean side length in pixels."""
        c = self.corners
        return sum(math.dist(c[i], c[(i + 1) % 4]) for i in range(4)) / 4

    @property
    def centre(self) -> tuple[float, float]:
        return (sum(p[0] for p in self.corners) / 4, sum(p[1] for p in self.corners) / 4)

    def array(self) -> np.ndarray:
        return np.array(self.corners, dtype=np.float64)


def dictionary(name: str) -> Any:
    try:
        return cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, name))
    except AttributeError:
        raise ValueError(f"{name!r} is not an OpenCV ArUco dictionary") from None


def parameters(cfg: DetectorConfig, image_size: tuple[int, int]) -> Any:
    """OpenCV's detector parameters for this config and frame size."""
    p = cv2.aruco.DetectorParameters()
    p.cornerRefinementMethod = REFINEMENTS[cfg.refinement]
    p.cornerRefinementWinSize = int(cfg.refinement_window_px)
    p.cornerRefinementMaxIterations = 50
    p.cornerRefinementMinAccuracy = 0.01
    # a marker of min_side_px has a perimeter of 4 x that, as a share of the larger side
    p.minMarkerPerimeterRate = max(0.005, 4 * cfg.min_side_px / max(image_size))
    p.maxMarkerPerimeterRate = 4.0
    # small markers need small threshold windows, large ones large windows
    p.adaptiveThreshWinSizeMin = 3
    p.adaptiveThreshWinSizeMax = 33
    p.adaptiveThreshWinSizeStep = 6
    return p


class Detector:
    """``Detector(cfg, "DICT_4X4_50").detect(frame)`` → detections, strongest first."""

    def __init__(self, cfg: DetectorConfig | None = None, dictionary_name: str = "DICT_4X4_50") -> None:
        self.cfg = cfg or DetectorConfig()
        self.dictionary_name = dictionary_name
        self._dict = dictionary(dictionary_name)
        self._size: tuple[int, int] | None = None
        self._detector: Any = None

    def _for(self, size: tuple[int, int]) -> Any:
        if size != self._size:
            self._detector = cv2.aruco.ArucoDetector(self._dict, parameters(self.cfg, size))
            self._size = size
        return self._detector

    def raw(self, image: np.ndarray) -> tuple[Any, Any, Any]:
        """OpenCV's own result (corners, ids, rejected), for the benchmark's comparison."""
        gray = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        return self._for((gray.shape[1], gray.shape[0])).detectMarkers(gray)

    def detect(self, image: np.ndarray) -> list[Detection]:
        corners, ids, _ = self.raw(image)
        if ids is None:
            return []
        found = [(int(i), c.reshape(4, 2).astype(np.float64)) for c, i in zip(corners, ids.ravel())]
        counts: dict[int, int] = {}
        for marker_id, _ in found:
            counts[marker_id] = counts.get(marker_id, 0) + 1
        # the same id twice in one frame is ambiguous: neither copy is trusted
        return [Detection(marker_id, tuple((float(x), float(y)) for x, y in pts))  # type: ignore[arg-type]
                for marker_id, pts in found if counts[marker_id] == 1]

    def duplicates(self, image: np.ndarray) -> list[int]:
        """Ids seen more than once in a frame (a second copy of a marker printed)."""
        _, ids, _ = self.raw(image)
        if ids is None:
            return []
        values = [int(i) for i in ids.ravel()]
        return sorted({i for i in values if values.count(i) > 1})
