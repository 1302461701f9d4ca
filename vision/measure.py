"""One frame in, the pieces' positions and every pair's distances out, in inches.

``Measurer(table, camera)`` is configured once; ``measure(frame)`` detects the markers, ties
the image to the pitch through the anchors, places each piece's base centre (height
corrected when there is a camera file) and measures every pair centre to centre and edge to
edge (bases touching or overlapping: 0"), each distance with its 1-sigma uncertainty: the
two markers' own (from how well their corners agree) and the anchor layout's (how far the
anchors may lie from where the table file says, estimated from the fit's residuals and
carried to each pair through the fit). Anything that makes a measurement untrustworthy is a
``VisionError`` naming what is at fault (the anchors not found, the fit error, the file).

A piece is only a marker whose id the table declares, whose apparent size agrees with its
declared size, and (``steady_frames``) that has been seen so in that many frames in a row;
anything else is ignored and counted in ``Measurement.ignored``: a glass icon read as a
topper's id does not become a miniature.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

import cv2
import numpy as np

from tabletop_base.errors import CompanionError

from .config import CameraConfig, TableConfig
from .detect import Detection, Detector
from .geometry import PAPER_FLOOR_IN, TableFit, TableFitError, fit_table, locate

PARALLAX_SLOPE = 0.3   # 1-sigma share of a marker's height it may be off without a camera model
# A marker's measured side against its declared side: the relative difference allowed (plus
# 1.5 px of corner refinement, which sits up to ~0.75 px inside the square on small ones).
SIZE_TOLERANCE = 0.10
# Without a camera file a marker's height is not corrected: it looks larger by H / (H - h)
# for a camera H above the table; no overhead camera sits lower than this.
MIN_CAMERA_HEIGHT_IN = 20.0
SMALLEST_LOOKED_FOR_PX = 4.0   # the second look, to say why a marker was not read


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
class Ignored:
    """A marker seen in the frame that did not become a piece, and why."""

    id: int
    reason: Literal["not declared", "wrong size", "not steady yet"]
    detail: str = ""


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
    layout_sigma_in: float = 0.0     # the anchor layout's error used (1-sigma per axis)
    layout_checked: bool = True      # False: too few anchors for the residuals to show it
    ignored: tuple[Ignored, ...] = ()

    @property
    def ignored_counts(self) -> dict[str, int]:
        """How many markers were ignored, by reason (the diagnostics)."""
        out: dict[str, int] = {}
        for i in self.ignored:
            out[i.reason] = out.get(i.reason, 0) + 1
        return out

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
            "layout_sigma_in": round(self.layout_sigma_in, r),
            "layout_checked": self.layout_checked,
            "ignored": [{"id": i.id, "reason": i.reason} for i in self.ignored],
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
    image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_UNCHANGED)
    if image is None:
        raise VisionError(f"{path}: not an image OpenCV can read ({len(data)} bytes, "
                          f"starting {data[:8].hex(' ')})")
    try:
        return to_bgr8(image)
    except ValueError as exc:
        raise VisionError(f"{path}: {exc}") from None


def to_bgr8(image: np.ndarray) -> np.ndarray:
    """Any frame as 8-bit BGR (grey stays one channel): 16-bit and float data scaled by the
    range they really use (a 12-bit sensor's values in a 16-bit file read as bright as
    8-bit ones, not 16 times darker), an alpha channel dropped. ValueError says why not."""
    if image is None or image.size == 0:
        raise ValueError("empty frame")
    if image.ndim == 3 and image.shape[2] == 1:
        image = image[:, :, 0]
    if image.ndim == 3 and image.shape[2] == 4:
        image = image[:, :, :3]
    if image.ndim == 3 and image.shape[2] == 2:      # grey + alpha
        image = image[:, :, 0]
    if image.ndim not in (2, 3) or (image.ndim == 3 and image.shape[2] != 3):
        raise ValueError(f"an image of shape {image.shape}: expected grey, BGR or BGRA")
    if image.dtype == np.uint8:
        return image
    if image.dtype.kind in "ui":
        top = int(image.max())
        if top <= 0:
            raise ValueError(f"every pixel is 0 ({image.dtype} data): a black frame")
        # the sensor's real range: the smallest whole number of bits that holds the data
        # (12-bit data in a 16-bit file: 0-4095), so an exposure reads the same at any depth
        full = float(2 ** max(8, int(top).bit_length()) - 1)
        return np.clip(image.astype(np.float32) * (255.0 / full) + 0.5, 0, 255).astype(np.uint8)
    if image.dtype.kind == "f":
        finite = image[np.isfinite(image)]
        if finite.size == 0:
            raise ValueError("no finite pixel values (float data)")
        peak = float(finite.max())
        full = 1.0 if peak <= 1.0 else peak
        img = np.nan_to_num(image.astype(np.float32), nan=0.0, posinf=full, neginf=0.0)
        return np.clip(img * (255.0 / full) + 0.5, 0, 255).astype(np.uint8)
    raise ValueError(f"pixels of type {image.dtype}: expected integers or floats")


class Measurer:
    """``steady_frames``: a declared marker of the right size becomes a piece once it has
    been seen so in that many consecutive frames (1: at once, for single images)."""

    def __init__(self, table: TableConfig, camera: CameraConfig | None = None, *,
                 steady_frames: int = 1) -> None:
        if steady_frames < 1:
            raise ValueError(f"steady_frames {steady_frames}: at least 1")
        self.table = table
        self.camera = camera
        self.detector = Detector(table.detector, table.dictionary)
        self.steady_frames = steady_frames
        self._streak: dict[int, int] = {}

    def check_size(self, image_size: tuple[int, int]) -> None:
        if self.camera is not None and tuple(self.camera.image_size) != tuple(image_size):
            cw, ch = self.camera.image_size
            raise VisionError(f"the camera file is for {cw}x{ch} images, this image is "
                              f"{image_size[0]}x{image_size[1]}: calibrate this camera at this "
                              "resolution")

    def measure(self, image: np.ndarray) -> Measurement:
        if image is None or image.size == 0:
            raise VisionError("empty frame")
        try:
            image = to_bgr8(image)
        except ValueError as exc:
            raise VisionError(str(exc)) from None
        self.check_size((image.shape[1], image.shape[0]))
        detections = self.detector.detect(image)
        try:
            return self.measure_detections(detections)
        except VisionError as exc:
            raise VisionError(self._why_not_read(image, detections, str(exc))) from None

    def _why_not_read(self, image: np.ndarray, detections: list[Detection], message: str) -> str:
        """When anchors were not found, look again for smaller markers: if the missing
        anchors are there but under ``min_side_px``, say so."""
        seen = {d.id for d in detections}
        missing = [a.id for a in self.table.anchors if a.id not in seen]
        if not missing or "not found" not in message:
            return message
        floor = self.table.detector.min_side_px
        cfg = replace(self.table.detector, min_side_px=SMALLEST_LOOKED_FOR_PX)
        small = [d for d in Detector(cfg, self.table.dictionary).detect(image)
                 if d.id in missing and d.side_px < floor]
        if not small:
            return message
        sides = sorted(d.side_px for d in small)
        ids = ", ".join(str(d.id) for d in sorted(small, key=lambda d: d.id))
        across = (f"{sides[0]:.0f} px" if sides[0] == sides[-1] or round(sides[0]) == round(sides[-1])
                  else f"{sides[0]:.0f}-{sides[-1]:.0f} px")
        return (f"{message}. Anchor{'s' if len(small) > 1 else ''} {ids}: markers {across} "
                f"across, {floor:g} px is the smallest read (move the camera closer or print "
                "larger anchors)")

    def reset(self) -> None:
        """Forget the steady-frame counts (the camera moved, a new scene)."""
        self._streak.clear()

    def measure_detections(self, detections: list[Detection]) -> Measurement:
        table = self.table
        try:
            fit = fit_table(detections, table, self.camera)
        except TableFitError as exc:
            self._streak.clear()
            raise VisionError(str(exc)) from None
        if fit.error_in > table.max_error_in:
            self._streak.clear()
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
        layout, marker, checked = layout_sigma(fit, table)
        if not checked:
            warnings.append(
                f"{len(fit.anchors)} anchors and no camera file: any {len(fit.anchors)} "
                "anchors fit exactly, so a misplaced one cannot be noticed; the ± assumes "
                f"each lies within {table.max_error_in:g}\" of the table file (lay 6 anchors "
                "to check it)")
        anchor_ids = {a.id for a in table.anchors}
        ignored: list[Ignored] = []
        located = self._pieces(fit, detections, ignored, marker)
        pieces = self._steady(located, ignored, anchor_ids, detections)
        seen = {d.id: d for d in detections}
        quads = [seen[p.id].array() for p in pieces] + [seen[i].array() for i in fit.anchors]
        jac = fit.layout_jacobian(quads) if pieces else None
        per_anchor = (anchor_sigmas(fit, jac[len(pieces):], layout)
                      if jac is not None and checked else layout)
        placed_ids = {p.id for p in pieces}
        known = anchor_ids | {p.id for p in table.pieces}
        return Measurement(
            mode=fit.mode, reprojection_error_in=fit.error_in, anchors=fit.anchors,
            pieces=tuple(pieces), distances=tuple(pairs(pieces, jac, per_anchor)),
            warnings=tuple(warnings),
            missing_pieces=tuple(p.id for p in table.pieces if p.id not in placed_ids),
            unknown_markers=tuple(sorted(d.id for d in detections if d.id not in known)),
            detections=tuple(detections), fit=fit, layout_sigma_in=layout,
            layout_checked=checked, ignored=tuple(sorted(ignored, key=lambda i: i.id)))

    def _steady(self, located: list[PiecePosition], ignored: list[Ignored],
                anchor_ids: set[int], detections: list[Detection]) -> list[PiecePosition]:
        """Pieces that have held for ``steady_frames`` frames in a row; the streaks of
        markers not placed in this frame start again."""
        now = {p.id for p in located}
        self._streak = {i: n for i, n in self._streak.items() if i in now}
        out = []
        for p in located:
            n = self._streak.get(p.id, 0) + 1
            self._streak[p.id] = n
            if n >= self.steady_frames:
                out.append(p)
            else:
                ignored.append(Ignored(p.id, "not steady yet", f"{n}/{self.steady_frames} frames"))
        for d in detections:
            if d.id not in anchor_ids and self.table.piece(d.id) is None:
                ignored.append(Ignored(d.id, "not declared"))
        return out

    def size_range(self, cfg, corrected: bool, side_px: float) -> tuple[float, float]:
        """The measured / declared side ratios a marker may show and still be this piece."""
        slack = SIZE_TOLERANCE + 1.5 / max(side_px, 1e-9)
        low, high = 1 - slack, 1 + slack
        if not corrected:
            # measured on the table plane: a marker h up looks H / (H - h) times larger
            h = cfg.height_in
            high *= MIN_CAMERA_HEIGHT_IN / max(MIN_CAMERA_HEIGHT_IN - h, 1e-9)
        return low, high

    def _pieces(self, fit: TableFit, detections: list[Detection], ignored: list[Ignored],
                marker_in: float = 0.0) -> list[PiecePosition]:
        out = []
        for d in detections:
            cfg = self.table.piece(d.id)
            if cfg is None:
                continue
            corrected = fit.mode == "pose"
            loc = locate(fit, d, cfg.side_in, cfg.height_in if corrected else 0.0)
            # what its corners show, and what they cannot: the larger of the corner floor
            # and the misfit the anchors' residuals show on every marker
            sigma = math.hypot(loc.noise_in, max(loc.floor_in, marker_in))
            if not corrected:
                # no camera model: the top of a miniature is placed where its ray meets the
                # table, off by up to its height x the ray's slope (about 0.6 at a 1080p
                # frame's edge); lens distortion is left in the table fit's error
                sigma = math.hypot(sigma, PARALLAX_SLOPE * cfg.height_in)
            low, high = self.size_range(cfg, corrected, d.side_px)
            if not low <= loc.side_in / cfg.side_in <= high:
                # not this piece's topper (a print that happens to read as its id, a marker
                # of another size): never a piece
                ignored.append(Ignored(d.id, "wrong size",
                                       f"{loc.side_in:.2f}\" across, declared {cfg.side_in:g}\""))
                continue
            out.append(PiecePosition(d.id, cfg.name, loc.x_in, loc.y_in, sigma,
                                     cfg.radius_in, d.side_px, corrected))
        out.sort(key=lambda p: p.id)
        return out


def layout_sigma(fit: TableFit, table: TableConfig) -> tuple[float, float, bool]:
    """(layout, marker, checked): the anchor layout's error, 1-sigma per axis of an anchor
    centre, from the fit's residuals with their degrees of freedom and never below
    :data:`PAPER_FLOOR_IN`; the share of that misfit any marker's centre may carry (the
    residual alone: a print, a bent sheet, a lens the fit does not model move a topper as
    they move an anchor); and whether the residuals could show it at all. With no degrees
    of freedom left (4 anchors, no camera file) nothing can be checked: the table's
    ``max_error_in`` is assumed for the layout instead."""
    if fit.layout_residual_in is None:
        return max(table.max_error_in, PAPER_FLOOR_IN), PAPER_FLOOR_IN, False
    return max(fit.layout_residual_in, PAPER_FLOOR_IN), fit.layout_residual_in, True


def anchor_sigmas(fit: TableFit, anchor_jacobian: np.ndarray, layout_in: float) -> np.ndarray:
    """Each anchor coordinate's 1-sigma (2 x anchors): the layout's, or larger for an anchor
    whose own residual says it lies further off. A fit absorbs much of one anchor's error
    (its leverage h: with 6 anchors and a homography about two thirds), so the residual
    shows only part of it; its residual over sqrt(1 - h) is its own error's estimate
    (``anchor_jacobian``: :meth:`TableFit.layout_jacobian` of the anchors themselves)."""
    assert fit.anchor_residuals is not None
    out = np.full(2 * len(fit.anchors), layout_in)
    for k, r in enumerate(fit.anchor_residuals):
        h = float(np.trace(anchor_jacobian[k][:, 2 * k:2 * k + 2])) / 2
        shown = float(np.hypot(*r)) / math.sqrt(max(1.0 - h, 0.05)) / math.sqrt(2)
        out[2 * k:2 * k + 2] = max(layout_in, shown)
    return out


def pairs(pieces: list[PiecePosition], layout_jacobian: np.ndarray | None = None,
          layout_sigma_in: float | np.ndarray = 0.0) -> list[PairDistance]:
    """Every pair: centre to centre, edge to edge (round bases), and the uncertainty.

    The two centres' own errors are independent. The anchor layout's error moves both
    through the same fit: ``layout_jacobian[i]`` (2, 2 x anchors) says how piece i moves
    per inch of each anchor coordinate, so the pair's distance moves by the difference
    along the line between them (near pieces move together and it cancels; far apart, it
    does not). ``layout_sigma_in``: one 1-sigma for every anchor coordinate, or one each."""
    sig2 = np.square(np.asarray(layout_sigma_in, dtype=np.float64))
    out = []
    for i, a in enumerate(pieces):
        for j in range(i + 1, len(pieces)):
            b = pieces[j]
            dx, dy = a.x_in - b.x_in, a.y_in - b.y_in
            centre = math.hypot(dx, dy)
            edge = max(0.0, centre - a.radius_in - b.radius_in)
            var = a.sigma_in ** 2 + b.sigma_in ** 2
            if layout_jacobian is not None and np.any(sig2 > 0) and centre > 0:
                unit = np.array([dx, dy]) / centre
                grad = unit @ (layout_jacobian[i] - layout_jacobian[j])
                var += float(np.sum(sig2 * grad * grad))
            out.append(PairDistance(a.id, b.id, centre, edge, math.sqrt(var)))
    return out
