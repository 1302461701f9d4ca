"""From marker corners in the image to positions on the pitch, in inches.

Two ways to tie the image to the pitch, both from the anchor markers' known corners:

* **pose** (with a camera file): the camera's pose is solved from the anchors (planar PnP,
  refined by Levenberg-Marquardt); a detected point is undistorted, its ray intersected with
  the plane of the point's height. A marker 30 mm up is therefore placed exactly above its
  base, not where its ray meets the table (the parallax error the planning measured, ~0.4").
* **homography** (no camera file): a plain image-to-pitch homography. Lens distortion and
  marker heights are not corrected; the measurement says so.

The fit's error is reported in inches on the pitch: each anchor's centre is mapped back onto
the table and compared with where the table file says it is. Those residuals, over the
degrees of freedom the fit leaves (2 per anchor, less 8 for a homography or 6 for a pose),
estimate how far the laid anchors are from the table file; ``TableFit.layout_jacobian``
says how that error reaches any point (``vision.measure`` turns both into each pair's ±).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import cv2
import numpy as np

from .config import CameraConfig, TableConfig
from .detect import Detection

CRITERIA = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 60, 1e-12)
UNIT_SQUARE = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], dtype=np.float64) / 2


class TableFitError(ValueError):
    """The image cannot be tied to the pitch: names the anchors missing or the error."""


# How well laid paper holds the table file's geometry, 1-sigma per axis of an anchor's centre:
# a printed sheet changes size with humidity by about 0.1 % (0.01" over a 10" sheet) and an
# anchor glued by hand sits within a few thousandths of its mark at best. No residual can
# show the layout better than this, so the layout's error is never taken smaller.
PAPER_FLOOR_IN = 0.002
# Parameters each tie fits: a homography 8, a camera pose (intrinsics known) 6.
FIT_PARAMETERS = {"homography": 8, "pose": 6}
# A small shift of one anchor coordinate, to measure how the fit carries it to the pieces.
_NUDGE_IN = 0.01


@dataclass(frozen=True)
class TableFit:
    mode: Literal["pose", "homography"]
    error_in: float                      # RMS distance of the anchor centres, mapped back
    anchors: tuple[int, ...]             # anchor ids used
    rvec: np.ndarray | None = None       # pose mode: world (inches) -> camera
    tvec: np.ndarray | None = None
    matrix: np.ndarray | None = None     # pose mode: K
    distortion: np.ndarray | None = None
    homography: np.ndarray | None = None  # homography mode: pixels -> inches
    # the anchor layout's error, 1-sigma per axis of an anchor centre (see layout_sigma);
    # None when the residuals cannot show it (no degrees of freedom left)
    layout_residual_in: float | None = None
    layout_dof: int = 0
    anchor_image: np.ndarray | None = None   # (4n, 2) anchor corners as fitted (undistorted
    anchor_table: np.ndarray | None = None   # and normalised in pose mode), and on the table
    anchor_residuals: np.ndarray | None = None  # (n, 2) each anchor centre mapped back - file

    # -- mapping image points onto a horizontal plane --------------------------------------
    def to_plane(self, pts: np.ndarray, height_in: float = 0.0) -> np.ndarray:
        """Image points (N, 2) → pitch points (N, 2) on the plane ``height_in`` above the
        table (the homography ignores the height)."""
        pts = np.asarray(pts, dtype=np.float64).reshape(-1, 2)
        if self.mode == "homography":
            assert self.homography is not None
            return cv2.perspectiveTransform(pts.reshape(-1, 1, 2), self.homography).reshape(-1, 2)
        rvec, tvec, matrix, distortion = self._pose()
        norm = cv2.undistortPoints(pts.reshape(-1, 1, 2), matrix, distortion,
                                   R=np.eye(3), P=np.eye(3), criteria=CRITERIA).reshape(-1, 2)
        rot, _ = cv2.Rodrigues(rvec)
        centre = -rot.T @ tvec.reshape(3)
        rays = (rot.T @ np.c_[norm, np.ones(len(norm))].T).T
        z = -height_in                      # z points into the table
        s = (z - centre[2]) / rays[:, 2]
        world = centre + rays * s[:, None]
        return world[:, :2]

    def to_image(self, xy: np.ndarray, height_in: float = 0.0) -> np.ndarray:
        """Pitch points (N, 2) at ``height_in`` → image points (N, 2): the way back, for
        drawing base circles and pressure rings over the camera image."""
        xy = np.asarray(xy, dtype=np.float64).reshape(-1, 2)
        if self.mode == "homography":
            assert self.homography is not None
            inv = np.linalg.inv(self.homography)
            return cv2.perspectiveTransform(xy.reshape(-1, 1, 2), inv).reshape(-1, 2)
        world = np.c_[xy, np.full(len(xy), -height_in)]
        img, _ = cv2.projectPoints(world, *self._pose())
        return img.reshape(-1, 2)

    def circle(self, x_in: float, y_in: float, radius_in: float, n: int = 48) -> np.ndarray:
        """A circle on the table, as an image polygon (lens distortion included)."""
        t = np.linspace(0, 2 * np.pi, n, endpoint=False)
        return self.to_image(np.c_[x_in + radius_in * np.cos(t), y_in + radius_in * np.sin(t)])

    def _plane_points(self, pts: np.ndarray) -> np.ndarray:
        """Image points in the space the layout sensitivity is fitted in: pixels for the
        homography, undistorted normalised coordinates for a pose."""
        pts = np.asarray(pts, dtype=np.float64).reshape(-1, 2)
        if self.mode == "homography":
            return pts
        _, _, matrix, distortion = self._pose()
        return cv2.undistortPoints(pts.reshape(-1, 1, 2), matrix, distortion,
                                   criteria=CRITERIA).reshape(-1, 2)

    def layout_jacobian(self, points: Sequence[np.ndarray]) -> np.ndarray:
        """How each point (an image quad, its centre taken) moves on the pitch when one
        anchor coordinate in the table file moves: (len(points), 2, 2 x anchors), inches
        per inch. The anchors' plane homography (in both modes: for a pose it has 2
        parameters more, so it errs on the large side) is refitted, linear least squares,
        once with each anchor coordinate nudged; all of them in one batch."""
        assert self.anchor_image is not None and self.anchor_table is not None
        n = len(self.anchor_table) // 4
        if not points:
            return np.zeros((0, 2, 2 * n))
        quads = np.concatenate([self._plane_points(p) for p in points])
        img, tab = _normalise(self.anchor_image), _normalise(self.anchor_table)
        u = img[1](self.anchor_image)
        scale = tab[0]
        targets = np.repeat(tab[1](self.anchor_table)[None], 2 * n + 1, axis=0)
        for k in range(n):
            for axis in range(2):
                targets[1 + 2 * k + axis, 4 * k:4 * k + 4, axis] += _NUDGE_IN * scale
        hs = _batch_homographies(u, targets)                     # (2n + 1, 3, 3)
        q = img[1](quads)
        qh = np.c_[q, np.ones(len(q))]
        mapped = np.einsum("mij,pj->mpi", hs, qh)
        centres = (mapped[..., :2] / mapped[..., 2:3]).reshape(2 * n + 1, -1, 4, 2).mean(axis=2)
        diff = (centres[1:] - centres[0]) / (_NUDGE_IN * scale)   # (2n, points, 2)
        return np.transpose(diff, (1, 2, 0))

    def camera_height_in(self) -> float | None:
        if self.mode != "pose":
            return None
        rvec, tvec, _, _ = self._pose()
        rot, _ = cv2.Rodrigues(rvec)
        return float(-(-rot.T @ tvec.reshape(3))[2])

    def _pose(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(rvec, tvec, K, distortion) of a pose fit."""
        if self.rvec is None or self.tvec is None or self.matrix is None \
                or self.distortion is None:
            raise TableFitError("this table fit has no camera pose (a homography fit)")
        return self.rvec, self.tvec, self.matrix, self.distortion


def _normalise(pts: np.ndarray):
    """(scale, f): f moves points to mean 0 and mean distance sqrt(2) (for a well
    conditioned linear fit); scale is how much it multiplies distances."""
    pts = np.asarray(pts, np.float64).reshape(-1, 2)
    mean = pts.mean(axis=0)
    d = float(np.mean(np.linalg.norm(pts - mean, axis=1))) or 1.0
    scale = math.sqrt(2) / d
    return scale, lambda p: (np.asarray(p, np.float64).reshape(-1, 2) - mean) * scale


def _batch_homographies(src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    """Linear least-squares homographies (h33 = 1) from ``src`` (N, 2) to each of ``dst``
    (M, N, 2): (M, 3, 3)."""
    x, y = src[:, 0], src[:, 1]
    X, Y = dst[..., 0], dst[..., 1]
    m, n = X.shape
    one, zero = np.ones((m, n)), np.zeros((m, n))
    xs, ys = np.broadcast_to(x, (m, n)), np.broadcast_to(y, (m, n))
    rows_x = np.stack([xs, ys, one, zero, zero, zero, -xs * X, -ys * X], axis=-1)
    rows_y = np.stack([zero, zero, zero, xs, ys, one, -xs * Y, -ys * Y], axis=-1)
    a = np.concatenate([rows_x, rows_y], axis=1)               # (M, 2N, 8)
    b = np.concatenate([X, Y], axis=1)                          # (M, 2N)
    ata = np.einsum("mki,mkj->mij", a, a)
    atb = np.einsum("mki,mk->mi", a, b)
    h = np.linalg.solve(ata, atb[..., None])[..., 0]
    return np.concatenate([h, np.ones((m, 1))], axis=1).reshape(m, 3, 3)


def fit_table(detections: Sequence[Detection], table: TableConfig,
              camera: CameraConfig | None) -> TableFit:
    """Tie the image to the pitch from the anchors seen (at least ``table.min_anchors``)."""
    seen = {d.id: d for d in detections}
    used = [a for a in table.anchors if a.id in seen]
    missing = [a.id for a in table.anchors if a.id not in seen]
    if len(used) < table.min_anchors:
        names = ", ".join(str(i) for i in missing)
        plural = "s" if len(missing) > 1 else ""
        raise TableFitError(
            f"anchor marker{plural} {names} not found: {len(used)} of {len(table.anchors)} "
            f"seen, at least {table.min_anchors} needed (a pose from fewer is too fragile)")
    obj = np.array([c for a in used for c in a.corners()], dtype=np.float64)
    img = np.array([c for a in used for c in seen[a.id].corners], dtype=np.float64)
    ids = tuple(a.id for a in used)
    if camera is None:
        h, _ = cv2.findHomography(img, obj, 0)
        if h is None:
            raise TableFitError(f"anchors {', '.join(map(str, ids))}: no homography fits them")
        fit = TableFit("homography", 0.0, ids, homography=h)
    else:
        k, dist = camera.matrix(), camera.distortion()
        obj3 = np.c_[obj, np.zeros(len(obj))]
        ok, rvec, tvec = cv2.solvePnP(obj3, img, k, dist, flags=cv2.SOLVEPNP_IPPE)
        if not ok:
            raise TableFitError(f"anchors {', '.join(map(str, ids))}: no camera pose fits them")
        rvec, tvec = cv2.solvePnPRefineLM(obj3, img, k, dist, rvec, tvec, criteria=CRITERIA)
        fit = TableFit("pose", 0.0, ids, rvec=rvec.reshape(3), tvec=tvec.reshape(3), matrix=k,
                       distortion=dist)
        height = fit.camera_height_in()
        if height is not None and height <= 0:
            raise TableFitError("the camera pose puts the camera under the table: check the "
                                "anchors' positions in the table file")
    # The fit's error is where each anchor's centre lands against where it should: the
    # position error a piece measured there would carry. (Refined corners sit a fraction of
    # a pixel inside the printed square, all four alike: that shrinks a marker about its
    # centre, which does not move the centre, so corners would overstate the error.)
    back = fit.to_plane(img, 0.0).reshape(-1, 4, 2).mean(axis=1)
    known = obj.reshape(-1, 4, 2).mean(axis=1)
    sq = float(np.sum((back - known) ** 2))
    error = math.sqrt(sq / len(known))
    # The anchors' own placement error shows in these residuals, less what the fit absorbed:
    # 2 coordinates per anchor, FIT_PARAMETERS fitted, the rest are degrees of freedom. With
    # none left (4 anchors and a homography) the layout cannot be checked at all.
    dof = 2 * len(known) - FIT_PARAMETERS[fit.mode]
    residual = math.sqrt(sq / dof) if dof > 0 else None
    return TableFit(fit.mode, error, ids, fit.rvec, fit.tvec, fit.matrix, fit.distortion,
                    fit.homography, residual, dof, fit._plane_points(img), obj, back - known)


@dataclass(frozen=True)
class Located:
    x_in: float
    y_in: float
    sigma_in: float        # 1-sigma per axis of the centre
    side_in: float         # the marker's side as measured (vs the configured side)
    residual_in: float     # RMS misfit of its corners to a square (any size)
    noise_in: float = 0.0  # the part of sigma_in its corners show (sigma_in without floor)
    floor_in: float = 0.0  # the part no residual can rule out (CORNER_FLOOR_PX, per axis)


CORNER_FLOOR_PX = 0.15    # px: corner noise no residual can rule out (set by make bench: 2u covers ~97%)


def locate(fit: TableFit, det: Detection, side_in: float, height_in: float) -> Located:
    """A marker's centre on the pitch (the base centre under it), with its uncertainty from
    how well its four corners, placed at that height, fit a square."""
    pts = fit.to_plane(det.array(), height_in)
    centre = pts.mean(axis=0)
    z = (pts - centre) @ np.array([1, 1j])            # corners about the centre, as complex
    w = (UNIT_SQUARE * side_in) @ np.array([1, 1j])   # the ideal square, unrotated
    # best similarity (rotation and scale) of the ideal square onto the corners. The scale
    # is left free: refined corners sit a fraction of a pixel inside the printed square,
    # all four alike, which shrinks the square about its centre without moving the centre;
    # only what is left (corners that disagree with each other) is noise on the centre.
    a = np.sum(np.conj(w) * z) / np.sum(np.abs(w) ** 2)
    resid = z - a * w
    # 8 coordinates, 4 fitted parameters (centre, rotation, scale): 4 degrees of freedom
    sigma_corner = math.sqrt(float(np.sum(np.abs(resid) ** 2)) / 4)
    measured_side = float(np.mean(np.linalg.norm(np.roll(pts, -1, axis=0) - pts, axis=1)))
    inch_per_px = measured_side / max(det.side_px, 1e-9)
    floor = CORNER_FLOOR_PX * inch_per_px
    sigma = math.sqrt((sigma_corner ** 2 + floor ** 2) / 4)
    return Located(float(centre[0]), float(centre[1]), sigma, measured_side,
                   float(np.sqrt(np.mean(np.abs(resid) ** 2))), sigma_corner / 2, floor / 2)
