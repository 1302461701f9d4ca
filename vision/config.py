"""The camera measurement's files: the table (anchors and pieces) and the camera (intrinsics).

Both are YAML loaded through :mod:`tabletop_base.typed_yaml` (typed, every error names the file, the
key path and the line). Units: the pitch frame is in inches, origin at a pitch corner, seen
from above x to the right and y downward; heights are millimetres above the table (as
miniatures are measured). The world frame used in the geometry is right-handed with z
pointing *into* the table, so a point ``h`` inches above the table has ``z = -h``; a camera
straight above the pitch, image x right and image y down, then has the identity rotation.

Formats are documented in ``docs/vision.md``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from tabletop_base.typed_yaml import dump_yaml, load_typed

MM_PER_IN = 25.4

Refinement = Literal["none", "subpix", "contour", "apriltag"]

DICTIONARIES = ("DICT_4X4_50", "DICT_4X4_100", "DICT_4X4_250", "DICT_5X5_50", "DICT_5X5_100",
                "DICT_5X5_250", "DICT_6X6_50", "DICT_6X6_100", "DICT_6X6_250",
                "DICT_APRILTAG_36h11")


@dataclass(frozen=True)
class DetectorConfig:
    """How markers are found; the defaults are what ``make bench`` measured best."""

    refinement: Refinement = "contour"
    # markers smaller than this (in pixels of side) are not looked for
    min_side_px: float = 16.0
    refinement_window_px: int = 5

    def validate(self) -> tuple[str, str] | None:
        if not 4 <= self.min_side_px <= 400:
            return ("min_side_px", f"{self.min_side_px} is out of range (4 to 400)")
        if not 2 <= self.refinement_window_px <= 20:
            return ("refinement_window_px", f"{self.refinement_window_px} is out of range (2 to 20)")
        return None


@dataclass(frozen=True)
class AnchorConfig:
    """A marker printed square to the pitch at a known place: its centre and side."""

    id: int
    x_in: float
    y_in: float
    side_in: float

    def validate(self) -> tuple[str, str] | None:
        if self.id < 0:
            return ("id", f"{self.id} is not a marker id")
        if not 0.2 <= self.side_in <= 12:
            return ("side_in", f"{self.side_in} is out of range (0.2 to 12 inches)")
        return None

    def corners(self) -> tuple[tuple[float, float], ...]:
        """Its four corners on the pitch, in the marker's own order (top-left, top-right,
        bottom-right, bottom-left; top towards y = 0)."""
        h = self.side_in / 2
        x, y = self.x_in, self.y_in
        return ((x - h, y - h), (x + h, y - h), (x + h, y + h), (x - h, y + h))


@dataclass(frozen=True)
class PieceConfig:
    """A miniature's marker: on its base or on top of it (``height_mm`` above the table,
    the printed face's height), centred over a round base of ``base_mm``."""

    id: int
    side_in: float
    base_mm: float
    height_mm: float = 0.0
    name: str = ""

    def validate(self) -> tuple[str, str] | None:
        if self.id < 0:
            return ("id", f"{self.id} is not a marker id")
        if not 0.2 <= self.side_in <= 4:
            return ("side_in", f"{self.side_in} is out of range (0.2 to 4 inches)")
        if not 10 <= self.base_mm <= 200:
            return ("base_mm", f"{self.base_mm} is out of range (10 to 200 mm)")
        if self.side_in * MM_PER_IN > self.base_mm * 1.5:
            return ("side_in", f"a {self.side_in}\" marker does not fit a {self.base_mm:g} mm base")
        if not 0 <= self.height_mm <= 200:
            return ("height_mm", f"{self.height_mm} is out of range (0 to 200 mm)")
        return None

    @property
    def radius_in(self) -> float:
        return self.base_mm / MM_PER_IN / 2

    @property
    def height_in(self) -> float:
        return self.height_mm / MM_PER_IN


@dataclass(frozen=True)
class TableConfig:
    dictionary: str = "DICT_4X4_50"
    anchors: tuple[AnchorConfig, ...] = ()
    pieces: tuple[PieceConfig, ...] = ()
    width_in: float = 22.0           # the pitch (x), for drawing and sanity checks
    length_in: float = 30.0          # (y)
    max_error_in: float = 0.03       # refuse to measure when the table fit is worse
    min_anchors: int = 3
    detector: DetectorConfig = field(default_factory=DetectorConfig)

    def validate(self) -> tuple[str, str] | None:
        if self.dictionary not in DICTIONARIES:
            return ("dictionary", f"{self.dictionary!r} is not one of {', '.join(DICTIONARIES)}")
        if len(self.anchors) < 3:
            return ("anchors", f"{len(self.anchors)} anchor(s): at least 3 are needed")
        if not 3 <= self.min_anchors <= len(self.anchors):
            return ("min_anchors", f"{self.min_anchors}: 3 to the number of anchors")
        if not 0.001 <= self.max_error_in <= 1:
            return ("max_error_in", f"{self.max_error_in} is out of range (0.001 to 1 inch)")
        seen: dict[int, str] = {}
        marked: list[tuple[str, int, int]] = (
            [("anchors", i, a.id) for i, a in enumerate(self.anchors)]
            + [("pieces", i, p.id) for i, p in enumerate(self.pieces)])
        for kind, i, marker in marked:
            if marker in seen:
                return (f"{kind}[{i}].id", f"marker {marker} is already used by {seen[marker]}")
            seen[marker] = f"{kind}[{i}]"
        ids = [a.id for a in self.anchors]
        spread = max(math.dist((a.x_in, a.y_in), (b.x_in, b.y_in))
                     for a in self.anchors for b in self.anchors)
        if spread < 4:
            return ("anchors", f"anchors {ids} lie within {spread:.1f}\" of each other: spread "
                               "them over the pitch")
        return None

    def anchor(self, marker_id: int) -> AnchorConfig | None:
        return next((a for a in self.anchors if a.id == marker_id), None)

    def piece(self, marker_id: int) -> PieceConfig | None:
        return next((p for p in self.pieces if p.id == marker_id), None)


@dataclass(frozen=True)
class CameraConfig:
    """Intrinsics and lens distortion, as written by ``python -m vision calibrate``."""

    image_size: tuple[int, int]
    camera_matrix: tuple[tuple[float, float, float], tuple[float, float, float],
                         tuple[float, float, float]]
    dist_coeffs: tuple[float, ...]
    reprojection_error_px: float | None = None
    views: int | None = None

    def validate(self) -> tuple[str, str] | None:
        w, h = self.image_size
        if not (16 <= w <= 20000 and 16 <= h <= 20000):
            return ("image_size", f"{w}x{h} is not an image size")
        (fx, s, cx), (z0, fy, cy), last = self.camera_matrix
        if not (fx > 0 and fy > 0):
            return ("camera_matrix", f"focal lengths must be positive (fx {fx}, fy {fy})")
        if s != 0 or z0 != 0 or tuple(last) != (0, 0, 1):
            return ("camera_matrix", "expected [[fx, 0, cx], [0, fy, cy], [0, 0, 1]]")
        if not (0 < cx < w and 0 < cy < h):
            return ("camera_matrix", f"the principal point ({cx}, {cy}) is outside the "
                                     f"{w}x{h} image")
        if len(self.dist_coeffs) not in (4, 5, 8, 12, 14):
            return ("dist_coeffs", f"{len(self.dist_coeffs)} values: expected 4, 5, 8, 12 or 14 "
                                   "(k1, k2, p1, p2[, k3, ...])")
        if any(not math.isfinite(v) for v in self.dist_coeffs):
            return ("dist_coeffs", "every coefficient must be a finite number")
        return None

    def matrix(self):  # -> np.ndarray (3, 3) float64
        import numpy as np

        return np.array(self.camera_matrix, dtype=np.float64)

    def distortion(self):  # -> np.ndarray (n,) float64
        import numpy as np

        return np.array(self.dist_coeffs, dtype=np.float64)

    @classmethod
    def from_arrays(cls, image_size: tuple[int, int], matrix, distortion,
                    reprojection_error_px: float | None = None,
                    views: int | None = None) -> CameraConfig:
        m = [[float(v) for v in row] for row in matrix]
        m[0][1] = m[1][0] = m[2][0] = m[2][1] = 0.0
        m[2][2] = 1.0
        return cls((int(image_size[0]), int(image_size[1])),
                   (tuple(m[0]), tuple(m[1]), tuple(m[2])),  # type: ignore[arg-type]
                   tuple(float(v) for v in list(distortion)[:5]),
                   None if reprojection_error_px is None else round(float(reprojection_error_px), 4),
                   views)


@dataclass(frozen=True)
class CharucoSpec:
    """A calibration board. The default is the project's (``python -m vision markers``
    prints it): a ChArUco board of 9 x 6 squares of 1", markers 0.75", from a dictionary
    the table does not use. ``kind="chessboard"``: a plain chessboard of ``squares_x`` x
    ``squares_y`` squares (its inner corners one fewer each way; no markers)."""

    squares_x: int = 9
    squares_y: int = 6
    square_in: float = 1.0
    marker_in: float = 0.75
    dictionary: str = "DICT_5X5_100"
    kind: Literal["charuco", "chessboard"] = "charuco"

    def validate(self) -> tuple[str, str] | None:
        if self.kind not in ("charuco", "chessboard"):
            return ("kind", f"{self.kind!r}: charuco or chessboard")
        if not (3 <= self.squares_x <= 60 and 3 <= self.squares_y <= 60):
            return ("squares", f"{self.squares_x} x {self.squares_y}: 3 to 60 squares each way")
        if not 0 < self.square_in <= 20:
            return ("square", f"{self.square_in}: a square is more than 0 and at most 20 inches")
        if self.kind == "charuco":
            if self.dictionary not in _ALL_DICTIONARIES:
                return ("dictionary", f"{self.dictionary!r} is not an OpenCV ArUco dictionary")
            if not 0 < self.marker_in < self.square_in:
                return ("marker", f"{self.marker_in}: a marker is smaller than its square "
                                  f"({self.square_in})")
        return None

    @property
    def inner_corners(self) -> tuple[int, int]:
        return (self.squares_x - 1, self.squares_y - 1)

    def describe(self) -> str:
        """The board in words, as an error message names it."""
        if self.kind == "chessboard":
            return (f"a chessboard of {self.squares_x} x {self.squares_y} squares of "
                    f"{self.square_in:.4g}\" ({self.squares_x - 1} x {self.squares_y - 1} inner "
                    "corners)")
        return (f"a ChArUco board of {self.squares_x} x {self.squares_y} squares of "
                f"{self.square_in:.4g}\", markers {self.marker_in:.4g}\" from {self.dictionary}")

    def board(self):  # -> cv2.aruco.CharucoBoard
        import cv2

        if self.kind != "charuco":
            raise ValueError(f"{self.describe()} has no ArUco markers")
        d = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, self.dictionary))
        return cv2.aruco.CharucoBoard((self.squares_x, self.squares_y), self.square_in,
                                      self.marker_in, d)

    def object_points(self, ids):  # -> np.ndarray (n, 3) float32
        """The board-plane coordinates (inches) of the inner corners numbered ``ids``."""
        import numpy as np

        ids = np.asarray(ids, np.int64).ravel()
        if self.kind == "charuco":
            return np.asarray(self.board().getChessboardCorners(), np.float32)[ids]
        nx = self.squares_x - 1
        return np.c_[(ids % nx) * self.square_in, (ids // nx) * self.square_in,
                     np.zeros(len(ids))].astype(np.float32)


_ALL_DICTIONARIES = DICTIONARIES + (
    "DICT_4X4_1000", "DICT_5X5_1000", "DICT_6X6_1000", "DICT_7X7_50", "DICT_7X7_100",
    "DICT_7X7_250", "DICT_7X7_1000", "DICT_ARUCO_ORIGINAL", "DICT_APRILTAG_16h5",
    "DICT_APRILTAG_25h9", "DICT_APRILTAG_36h10")


CHARUCO = CharucoSpec()


def load_table(path: str | Path) -> TableConfig:
    return load_typed(TableConfig, path)


def load_camera(path: str | Path) -> CameraConfig:
    return load_typed(CameraConfig, path)


def camera_data(cam: CameraConfig) -> dict:
    out: dict = {"image_size": list(cam.image_size),
                 "camera_matrix": [list(r) for r in cam.camera_matrix],
                 "dist_coeffs": list(cam.dist_coeffs)}
    if cam.reprojection_error_px is not None:
        out["reprojection_error_px"] = cam.reprojection_error_px
    if cam.views is not None:
        out["views"] = cam.views
    return out


def save_camera(path: str | Path, cam: CameraConfig) -> Path:
    """Write a camera file atomically (checked first: what is written loads back)."""
    import os

    from tabletop_base.typed_yaml import loads_typed

    path = Path(path)
    text = ("# Camera intrinsics and lens distortion, written by `python -m vision calibrate`.\n"
            + dump_yaml(camera_data(cam)))
    loads_typed(CameraConfig, text, str(path))
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)  # user config: owner only
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)
    return path


@dataclass(frozen=True)
class OverheadConfig:
    """The app's overhead camera (``config/overhead_camera.yaml``).

    ``source``: ``auto`` (the first camera OpenCV opens, else the demo scene), ``demo``, a
    device index (``"0"``) or a device path / stream URL. ``intrinsics``: the camera file
    written by ``python -m vision calibrate``, relative to the user's config directory
    (``""``: none, and then heights are not corrected). ``table``: the anchors and the
    pieces; a piece's ``name`` is the Takkure player it stands for."""

    source: str = "auto"
    resolution: tuple[int, int] = (1920, 1080)
    intrinsics: str = "camera.yaml"
    table: TableConfig | None = None

    def validate(self) -> tuple[str, str] | None:
        w, h = self.resolution
        if not (160 <= w <= 8000 and 120 <= h <= 8000):
            return ("resolution", f"{w}x{h} is not a camera resolution")
        if self.table is not None:
            names = [p.name for p in self.table.pieces if p.name]
            for i, n in enumerate(names):
                if n in names[:i]:
                    return ("table.pieces", f"{n!r} has two markers")
        return None
