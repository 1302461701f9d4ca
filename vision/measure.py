"""One frame in, the pieces' positions and every pair's distances out, in inches.

``Measurer(table, camera)`` is configured once; ``measure(frame)`` detects the markers, ties
the image to the pitch through the anchors, places each piece's base centre (height
corrected when there is a camera file) and measures every pair centre to centre and edge to
edge (bases touching or overlapping: 0"), each distance with its 1-sigma uncertainty derived
from the detection. Anything that makes a measurement untrustworthy is a ``VisionError``
naming what is at fault (the anchors not found, the fit error, the file).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import cv2
import numpy as np

from tabletop_base.errors import CompanionError

from .config import CameraConfig, TableConfig
from .detect import Detection, Detector
from .geometry import TableFit, TableFitError, fit_table, locate


PARALLAX_SLOPE = 0.3   # 1-sigma share of a marker's height it may be off without a camera model


class VisionError(CompanionError, ValueError):
    """A frame or file that cannot be measured; the message names what is at fault."""

    exit_code = 7


@dataclass(frozen=True)
class PiecePosition:
    id: int
    name: str
    x_in: float
    y_in: float
    sigma_in: float          # 1-sigma per axis
    radius_in: float
    side_px: float
    height_corrected: bool


@dataclass(frozen=True)
class PairDistance:
    a: int
    b: int
    center_in: float
    edge_in: float           # 0 when the bases touch or overlap
    uncertainty_in: float    # 1-sigma; the app's verdicts use twice this (about 95%)

    @property
    def contact(self) -> bool:
        return self.edge_in == 0.0


@dataclass(frozen=True)
class Measurement:
    mode: Literal["pose", "homography"]
    reprojection_error_in: float
    anchors: tuple[int, ...]
    pieces: tuple[PiecePosition, ...]
    distances: tuple[PairDistance, ...]
    warnings: tuple[str, ...] = ()
    missing_pieces: tuple[int, ...] = ()
    unknown_markers: tuple[int, ...] = ()
    detections: tuple[Detection, ...] = field(default=(), repr=False)
    fit: TableFit | None = field(default=None, repr=False, compare=False)

    def piece(self, marker_id: int) -> PiecePosition | None:
        return next((p for p in self.pieces if p.id == marker_id), None)

    def distance(self, a: int, b: int) -> PairDistance | None:
        return next((d for d in self.distances if {d.a, d.b} == {a, b}), None)

    def to_json(self) -> dict[str, Any]:
        r = 4
        return {
            "ok": True,
            "mode": self.mode,
            "reprojection_error_in": round(self.reprojection_error_in, r),
            "anchors": list(self.anchors),
            "pieces": [{"id": p.id, "name": p.name, "x_in": round(p.x_in, r),
                        "y_in": round(p.y_in, r), "sigma_in": round(p.sigma_in, r)}
                       for p in self.pieces],
            "distances": [{"a": d.a, "b": d.b, "center_in": round(d.center_in, r),
                           "edge_in": round(d.edge_in, r),
                           "uncertainty_in": round(d.uncertainty_in, r)}
                          for d in self.distances],
            "missing_pieces": list(self.missing_pieces),
            "warnings": list(self.warnings),
        }


def read_image(path: str | Path) -> np.ndarray:
    """An image file as BGR, or a VisionError naming the file and what is wrong with it."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise VisionError(f"{path}: no such file") from None
    except OSError as exc:
        raise VisionError(f"{path}: cannot read ({exc.strerror})") from None
    if not data:
        raise VisionError(f"{path}: empty file (0 bytes)")
    image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    if image is None:
        raise VisionError(f"{path}: not an image OpenCV can read ({len(data)} bytes, "
                          f"starting {data[:8].hex(' ')})")
    return image


class Measurer:
    def __init__(self, table: TableConfig, camera: CameraConfig | None = None) -> None:
        self.table = table
        self.camera = camera
        self.detector = Detector(table.detector, table.dictionary)

    def check_size(self, image_size: tuple[int, int]) -> None:
        if self.camera is not None and tuple(self.camera.image_size) != tuple(image_size):
            cw, ch = self.camera.image_size
            raise VisionError(f"the camera file is for {cw}x{ch} images, this image is "
                              f"{image_size[0]}x{image_size[1]}: calibrate this camera at this "
                              "resolution")

    def measure(self, image: np.ndarray) -> Measurement:
        if image is None or image.size == 0:
            raise VisionError("empty frame")
        self.check_size((image.shape[1], image.shape[0]))
        return self.measure_detections(self.detector.detect(image))

    def measure_detections(self, detections: list[Detection]) -> Measurement:
        table = self.table
        try:
            fit = fit_table(detections, table, self.camera)
        except TableFitError as exc:
            raise VisionError(str(exc)) from None
        if fit.error_in > table.max_error_in:
            hint = ("check the camera file (is it this camera's?) and " if fit.mode == "pose"
                    else "")
            raise VisionError(
                f"the table fit is off by {fit.error_in:.3f}\" at the anchors, worse than "
                f"max_error_in {table.max_error_in}\": {hint}check the anchors' positions in "
                "the table file and that they lie flat")
        warnings = []
        missing_anchors = [a.id for a in table.anchors if a.id not in fit.anchors]
        if missing_anchors:
            warnings.append("anchor " + ", ".join(map(str, missing_anchors)) + " not seen: "
                            f"measuring from {len(fit.anchors)} anchors")
        if fit.mode == "homography":
            warnings.append("no camera file: lens distortion and marker heights are not "
                            "corrected (calibrate the camera for exact distances)")
        pieces = self._pieces(fit, detections, warnings)
        seen = {p.id for p in pieces}
        known = {a.id for a in table.anchors} | {p.id for p in table.pieces}
        return Measurement(
            mode=fit.mode, reprojection_error_in=fit.error_in, anchors=fit.anchors,
            pieces=tuple(pieces), distances=tuple(pairs(pieces, fit.error_in)),
            warnings=tuple(warnings),
            missing_pieces=tuple(p.id for p in table.pieces if p.id not in seen),
            unknown_markers=tuple(sorted(d.id for d in detections if d.id not in known)),
            detections=tuple(detections), fit=fit)

    def _pieces(self, fit: TableFit, detections: list[Detection],
                warnings: list[str]) -> list[PiecePosition]:
        out = []
        for d in detections:
            cfg = self.table.piece(d.id)
            if cfg is None:
                continue
            corrected = fit.mode == "pose"
            loc = locate(fit, d, cfg.side_in, cfg.height_in if corrected else 0.0)
            sigma = loc.sigma_in
            if not corrected:
                # no camera model: the top of a miniature is placed where its ray meets the
                # table, off by up to its height x the ray's slope (about 0.6 at a 1080p
                # frame's edge); lens distortion is left in the table fit's error
                sigma = math.hypot(sigma, PARALLAX_SLOPE * cfg.height_in, fit.error_in)
            # refined corners sit up to ~0.75 px inside the square: allow for it on small ones
            if corrected and abs(loc.side_in / cfg.side_in - 1) > 0.06 + 1.5 / d.side_px:
                warnings.append(f"marker {d.id} measures {loc.side_in:.2f}\" across, configured "
                                f"{cfg.side_in:g}\": check its side_in and height_mm")
            out.append(PiecePosition(d.id, cfg.name, loc.x_in, loc.y_in, sigma,
                                     cfg.radius_in, d.side_px, corrected))
        out.sort(key=lambda p: p.id)
        return out


def pairs(pieces: list[PiecePosition], table_error_in: float = 0.0) -> list[PairDistance]:
    """Every pair: centre to centre, edge to edge (round bases), and the uncertainty.

    The two centres' errors are independent; the table fit adds a share of its error
    (mostly common to both pieces, so it largely cancels in a distance)."""
    out = []
    for i, a in enumerate(pieces):
        for b in pieces[i + 1:]:
            centre = math.hypot(a.x_in - b.x_in, a.y_in - b.y_in)
            edge = max(0.0, centre - a.radius_in - b.radius_in)
            u = math.sqrt(a.sigma_in ** 2 + b.sigma_in ** 2 + (table_error_in / 4) ** 2)
            out.append(PairDistance(a.id, b.id, centre, edge, u))
    return out
