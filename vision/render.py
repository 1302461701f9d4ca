"""Synthetic overhead-camera frames with exact ground truth.

Used by the vision tests, the benchmark and the app's demo camera. A :class:`Scene` is a
table (pitch, anchors), miniatures (:class:`ScenePiece`) and a camera (intrinsics, lens
distortion and pose); :func:`render` turns it into a BGR frame plus the truth (where every
piece really is, whether its marker can be seen).

Geometry is exact, lens distortion included:

1. An *ideal* pinhole image is painted on a canvas larger than the frame (so that the
   undistorted position of every output pixel lies on it), supersampled (2x by default),
   back to front: the table and its lines, the base discs (z = 0), the anchors (z = 0),
   then the toppers (z = -height), far ones first. Flat polygons are filled
   (antialiased, sub-pixel vertices); printed elements are drawn by
   ``cv2.warpPerspective`` of their texture through the homography from the texture's
   pixels to canvas pixels, ``H = K_canvas [R e1, R e2, R p0 + t] A`` (``A``: texel to
   plane inches, ``e1, e2`` the plane's axes in the world), composited with the warped
   coverage. The canvas is then box-filtered (``INTER_AREA``) down to 1x.
2. Distortion: every output pixel ``u_d`` takes the ideal image at its undistorted position
   ``undistortPoints(u_d, K, dist, P=K)`` (iterated to convergence on a 4-pixel grid,
   cubic-interpolated between grid points; the maps are cached per camera), via
   ``cv2.remap``. A point projected with ``cv2.projectPoints`` (with distortion) therefore
   lands where the feature is drawn.
3. Occluders (a skin-coloured "finger" over ``occlusion`` of a marker's area), a linear
   lighting gradient, Gaussian blur and sensor noise (seeded by ``Scene.seed``).

Coordinates: the pitch frame is in inches, origin at a pitch corner, x right and y down
seen from above; world z points into the table (``z = -h`` is ``h`` inches above it), so a
camera straight above with image x right and y down has the identity rotation. Pixel
coordinates have pixel centres at integers (OpenCV's convention).

Everything is deterministic for a scene (and a seed for :func:`random_scene`).
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist

import cv2
import numpy as np

from vision.config import (
    CHARUCO,
    MM_PER_IN,
    AnchorConfig,
    CameraConfig,
    CharucoSpec,
    PieceConfig,
    TableConfig,
)

Vec3 = tuple[float, float, float]

# Colours (BGR)
TABLE_BGR = (52, 62, 74)          # the table around the pitch
PITCH_BGR = (62, 118, 64)         # green mat
LINE_BGR = (222, 232, 232)        # pitch lines
BASE_BGR = (34, 34, 38)           # miniature bases
SKIN_BGR = (128, 156, 212)        # occluders (a finger)
SKIN_DARK_BGR = (96, 120, 176)
BOARD_BACKGROUND_BGR = (96, 100, 104)

QUIET_RATIO = 1.25                # printed white square side / marker side
DISC_VERTICES = 128


# --------------------------------------------------------------------------------------
# Scene description


@dataclass(frozen=True)
class ScenePiece:
    """A miniature: a round base of ``base_mm`` centred at (``x_in``, ``y_in``) and its
    printed topper (a white square of ``side_in * 1.25`` with the marker of ``side_in``
    centred on it) ``height_in`` above the table, turned by ``angle_deg`` about the
    vertical (positive from pitch x towards pitch y), centred over the base.
    ``occlusion`` (0 to 0.6) is the fraction of the marker hidden by a finger."""

    id: int
    x_in: float
    y_in: float
    angle_deg: float
    height_in: float
    base_mm: float
    side_in: float
    occlusion: float = 0.0


@dataclass(frozen=True)
class Scene:
    """Everything needed to draw one frame. ``rvec``/``tvec`` map world inches to camera
    coordinates as in ``cv2.projectPoints``; anchors in ``hidden_anchors`` are not drawn."""

    table: TableConfig
    pieces: tuple[ScenePiece, ...]
    camera: CameraConfig
    rvec: Vec3
    tvec: Vec3
    noise_sigma: float = 0.0
    blur_sigma: float = 0.0
    light_gradient: float = 0.0
    light_angle_deg: float = 0.0
    seed: int = 0
    hidden_anchors: tuple[int, ...] = ()


@dataclass(frozen=True)
class PieceTruth:
    """Where a piece really is. ``visible``: its four marker corners are inside the frame
    and nothing covers the marker (neither a finger nor another topper); ``occluded``:
    something covers part of it. ``corners_px`` are the marker's corners in the final
    image (marker order: top-left, top-right, bottom-right, bottom-left)."""

    id: int
    x_in: float
    y_in: float
    marker_side_px: float
    visible: bool
    occluded: bool
    corners_px: tuple[tuple[float, float], ...] = ()


@dataclass(frozen=True, eq=False)
class Rendered:
    image: np.ndarray                      # uint8 BGR (h, w, 3)
    truth: tuple[PieceTruth, ...]
    anchors_visible: tuple[int, ...]


# --------------------------------------------------------------------------------------
# Cameras and poses


def default_camera(image_size: tuple[int, int] = (1920, 1080), hfov_deg: float = 62.0,
                   k1: float = 0.0, k2: float = 0.0, p1: float = 0.0, p2: float = 0.0,
                   k3: float = 0.0) -> CameraConfig:
    """A webcam-like camera: square pixels, principal point at the image centre.

    The default 62° horizontal field of view gives fx ≈ 1597 px at 1920x1080; from 40"
    above the pitch with its long side along image x (``roll_deg=90`` in
    :func:`camera_pose`) the 22x30" pitch covers about 1200x880 px, which leaves room for
    the tilts :func:`random_scene` uses (it raises the camera until the pitch fits)."""
    w, h = image_size
    fx = (w / 2) / math.tan(math.radians(hfov_deg) / 2)
    k = ((fx, 0.0, (w - 1) / 2), (0.0, fx, (h - 1) / 2), (0.0, 0.0, 1.0))
    return CameraConfig((int(w), int(h)), k, (float(k1), float(k2), float(p1), float(p2),
                                              float(k3)))


def _rot_z(deg: float) -> np.ndarray:
    c, s = math.cos(math.radians(deg)), math.sin(math.radians(deg))
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def camera_pose(target_xy: tuple[float, float] = (11.0, 15.0), height_in: float = 40.0,
                tilt_deg: float = 0.0, tilt_dir_deg: float = 0.0,
                roll_deg: float = 0.0) -> tuple[Vec3, Vec3]:
    """(rvec, tvec) of a camera ``height_in`` above the table whose optical axis passes
    through ``target_xy`` (on the table), tilted from the vertical by ``tilt_deg`` towards
    the pitch direction ``tilt_dir_deg`` (0 = +x, 90 = +y: the camera sits on the other
    side and looks that way), rolled about its axis by ``roll_deg`` (the image x axis lies
    along pitch direction ``roll_deg`` before tilting: 90 puts the pitch's long side, y,
    along image x). Tilt 0 and roll 0 give the identity rotation."""
    t = math.radians(tilt_deg)
    phi = math.radians(tilt_dir_deg)
    axis = np.array([math.sin(t) * math.cos(phi), math.sin(t) * math.sin(phi), math.cos(t)])
    k = np.array([-math.sin(phi), math.cos(phi), 0.0]) * t
    r_tilt = cv2.Rodrigues(k)[0]
    r_cw = r_tilt @ _rot_z(roll_deg)                # camera axes in the world (columns)
    centre = np.array([target_xy[0], target_xy[1], 0.0]) - axis * (height_in / math.cos(t))
    r_wc = r_cw.T
    rvec = cv2.Rodrigues(r_wc)[0].ravel()
    tvec = -r_wc @ centre
    return (tuple(float(v) for v in rvec), tuple(float(v) for v in tvec))  # type: ignore


def project(camera: CameraConfig, rvec: Sequence[float], tvec: Sequence[float],
            points) -> np.ndarray:
    """World points (n, 3) in inches to pixels (n, 2) with lens distortion
    (``cv2.projectPoints``)."""
    pts = np.asarray(points, dtype=np.float64).reshape(-1, 1, 3)
    out, _ = cv2.projectPoints(pts, np.asarray(rvec, np.float64), np.asarray(tvec, np.float64),
                               camera.matrix(), camera.distortion())
    return out.reshape(-1, 2)


def piece_corners_world(piece: ScenePiece) -> np.ndarray:
    """The marker's corners (4, 3) in world inches, in the marker's own order."""
    return _square_world(piece.x_in, piece.y_in, -piece.height_in, piece.side_in,
                         piece.angle_deg)


def anchor_corners_world(anchor: AnchorConfig) -> np.ndarray:
    """An anchor's corners (4, 3) in world inches (z = 0), as ``AnchorConfig.corners``."""
    return np.array([(x, y, 0.0) for x, y in anchor.corners()])


def _square_world(x: float, y: float, z: float, side: float, angle_deg: float) -> np.ndarray:
    h = side / 2
    local = np.array([(-h, -h), (h, -h), (h, h), (-h, h)])
    rot = _rot_z(angle_deg)[:2, :2]
    xy = local @ rot.T + (x, y)
    return np.column_stack([xy, np.full(4, z)])


# --------------------------------------------------------------------------------------
# Per-camera geometry: canvas margins and distortion maps (cached)


@dataclass(frozen=True, eq=False)
class _FrameGeometry:
    size: tuple[int, int]           # output (w, h)
    offset: tuple[int, int]         # canvas (1x) = ideal pixel + offset
    canvas: tuple[int, int]         # canvas size (1x)
    mapx: np.ndarray | None         # float32 (h, w) canvas coordinates, or None (no distortion)
    mapy: np.ndarray | None


_GRID = 4


def _lagrange_upsample(a: np.ndarray, n: int, axis: int) -> np.ndarray:
    """Values at pixels 0..n-1 along ``axis`` of samples taken every ``_GRID`` pixels from
    pixel ``-2 * _GRID`` on (cubic Lagrange interpolation through 4 samples). Pixel
    ``G m + r`` lies at fraction ``r / G`` between samples ``m + 2`` and ``m + 3``, so each
    phase ``r`` is a weighted sum of four shifted slices."""
    a = np.moveaxis(a, axis, 0)
    out = np.empty((n,) + a.shape[1:], a.dtype)
    for r in range(_GRID):
        rows = len(range(r, n, _GRID))
        t = r / _GRID
        weights = (-t * (t - 1) * (t - 2) / 6, (t + 1) * (t - 1) * (t - 2) / 2,
                   -(t + 1) * t * (t - 2) / 2, (t + 1) * t * (t - 1) / 6)
        acc = a[1:1 + rows] * a.dtype.type(weights[0])
        for k in (1, 2, 3):
            if weights[k] != 0:
                acc += a[1 + k:1 + k + rows] * a.dtype.type(weights[k])
        out[r::_GRID] = acc
    return np.moveaxis(out, 0, axis)


@functools.lru_cache(maxsize=8)
def _frame_geometry(size: tuple[int, int], matrix: tuple, dist: tuple) -> _FrameGeometry:
    w, h = size
    k = np.array(matrix, dtype=np.float64)
    d = np.array(dist, dtype=np.float64)
    if not np.any(d):
        pad = 2
        return _FrameGeometry(size, (pad, pad), (w + 2 * pad, h + 2 * pad), None, None)
    # undistorted positions on a grid of step G (two extra points beyond the frame on
    # every side), then 4-point Lagrange (cubic) interpolation between grid points; this
    # is accurate to ~1e-4 px (cv2.remap/resize would quantise or smooth the field)
    nx = (w - 1) // _GRID + 5
    ny = (h - 1) // _GRID + 5
    gx = (np.arange(nx) - 2) * _GRID
    gy = (np.arange(ny) - 2) * _GRID
    grid = np.stack(np.meshgrid(gx, gy), -1).astype(np.float64)
    crit = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 20, 1e-14)
    und = cv2.undistortPoints(grid.reshape(-1, 1, 2), k, d, R=np.eye(3), P=k,
                              criteria=crit).reshape(ny, nx, 2)
    disp = (und - grid).astype(np.float32)              # smooth: interpolate this
    mapx = _lagrange_upsample(_lagrange_upsample(np.ascontiguousarray(disp[..., 0]), w, 1),
                              h, 0)
    mapy = _lagrange_upsample(_lagrange_upsample(np.ascontiguousarray(disp[..., 1]), w, 1),
                              h, 0)
    mapx += np.arange(w, dtype=np.float32)
    mapy += np.arange(h, dtype=np.float32)[:, None]
    x0, x1 = float(mapx.min()), float(mapx.max())
    y0, y1 = float(mapy.min()), float(mapy.max())
    ox = max(0, math.ceil(-x0)) + 3
    oy = max(0, math.ceil(-y0)) + 3
    cw = max(w, math.ceil(x1) + 1) + ox + 3
    ch = max(h, math.ceil(y1) + 1) + oy + 3
    mapx += ox
    mapy += oy
    mapx.setflags(write=False)
    mapy.setflags(write=False)
    return _FrameGeometry(size, (ox, oy), (cw, ch), mapx, mapy)


def _geometry_for(camera: CameraConfig) -> _FrameGeometry:
    return _frame_geometry(tuple(camera.image_size), tuple(camera.camera_matrix),
                           tuple(float(v) for v in camera.dist_coeffs))


# --------------------------------------------------------------------------------------
# Textures (cached)


@functools.lru_cache(maxsize=512)
def _marker_texture(dictionary: str, marker_id: int, px_per_cell: int) -> np.ndarray:
    """BGR texture: the marker (with its one-cell black border) centred on a white square
    of ``QUIET_RATIO`` times its side; every cell is exactly ``px_per_cell`` texels."""
    d = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, dictionary))
    cells = d.markerSize + 2
    bits = cv2.aruco.generateImageMarker(d, marker_id, cells, borderBits=1)
    marker = cv2.resize(bits, (cells * px_per_cell, cells * px_per_cell),
                        interpolation=cv2.INTER_NEAREST)
    margin = round((QUIET_RATIO - 1) / 2 * cells * px_per_cell)
    tex = cv2.copyMakeBorder(marker, margin, margin, margin, margin, cv2.BORDER_CONSTANT,
                             value=255)
    tex = cv2.cvtColor(tex, cv2.COLOR_GRAY2BGR)
    tex.setflags(write=False)
    return tex


def _marker_cells(dictionary: str) -> int:
    return cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, dictionary)).markerSize + 2


@functools.lru_cache(maxsize=16)
def _board_texture(spec: CharucoSpec, px_per_square: int) -> np.ndarray:
    """The ChArUco board with half a square of white paper around it (BGR)."""
    w = spec.squares_x * px_per_square
    h = spec.squares_y * px_per_square
    img = spec.board().generateImage((w, h), marginSize=0, borderBits=1)
    m = px_per_square // 2
    img = cv2.copyMakeBorder(img, m, m, m, m, cv2.BORDER_CONSTANT, value=255)
    img = cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)
    img.setflags(write=False)
    return img


# --------------------------------------------------------------------------------------
# The ideal (undistorted, supersampled) canvas


class _Canvas:
    """The ideal pinhole image, supersampled ``ss`` times, on a canvas with margins."""

    def __init__(self, camera: CameraConfig, rvec: Sequence[float], tvec: Sequence[float],
                 supersample: int = 2, background: tuple[int, int, int] = TABLE_BGR):
        self.camera = camera
        self.geom = _geometry_for(camera)
        self.ss = ss = int(supersample)
        k = camera.matrix()
        ox, oy = self.geom.offset
        s = np.array([[ss, 0, (ss - 1) / 2], [0, ss, (ss - 1) / 2], [0, 0, 1.0]])
        self.k = s @ np.array([[k[0, 0], 0, k[0, 2] + ox], [0, k[1, 1], k[1, 2] + oy],
                               [0, 0, 1.0]])
        self.r = cv2.Rodrigues(np.asarray(rvec, np.float64))[0]
        self.t = np.asarray(tvec, np.float64).reshape(3)
        cw, ch = self.geom.canvas
        self.img = np.empty((ch * ss, cw * ss, 3), np.uint8)
        cv2.rectangle(self.img, (0, 0), (cw * ss, ch * ss), background, -1)

    # geometry --------------------------------------------------------------------------
    def to_camera(self, pts: np.ndarray) -> np.ndarray:
        return np.asarray(pts, np.float64).reshape(-1, 3) @ self.r.T + self.t

    def to_canvas(self, pts: np.ndarray) -> np.ndarray:
        """World points (n, 3) to canvas pixels (n, 2) (ideal, supersampled)."""
        c = self.to_camera(pts) @ self.k.T
        return c[:, :2] / c[:, 2:3]

    def canvas_to_frame_ideal(self, px: np.ndarray) -> np.ndarray:
        """Canvas pixels to ideal (undistorted) frame pixels."""
        ss = self.ss
        ox, oy = self.geom.offset
        return (np.asarray(px, np.float64) - (ss - 1) / 2) / ss - (ox, oy)

    # drawing ---------------------------------------------------------------------------
    def polygon(self, pts3d: np.ndarray, colour: tuple[int, int, int]) -> None:
        """Fill a planar polygon given by its world vertices (antialiased)."""
        if np.any(self.to_camera(pts3d)[:, 2] <= 1e-6):
            return
        px = self.to_canvas(pts3d)
        shift = 4
        ipts = np.round(px * (1 << shift)).astype(np.int32).reshape(-1, 1, 2)
        cv2.fillPoly(self.img, [ipts], colour, lineType=cv2.LINE_AA, shift=shift)

    def texture(self, tex: np.ndarray, origin: np.ndarray, e1: np.ndarray, e2: np.ndarray,
                texel_in: float) -> np.ndarray | None:
        """Draw ``tex`` on the plane ``origin + a e1 + b e2`` (inches), its top-left texel
        corner at ``origin``, each texel ``texel_in`` inches square. Returns the canvas
        quad of its outline (4, 2), or None when it is not in front of the camera."""
        th, tw = tex.shape[:2]
        wi, hi = tw * texel_in, th * texel_in
        outline = np.array([origin, origin + wi * e1, origin + wi * e1 + hi * e2,
                            origin + hi * e2])
        if np.any(self.to_camera(outline)[:, 2] <= 1e-6):
            return None
        quad = self.to_canvas(outline)
        ch, cw = self.img.shape[:2]
        x0 = max(0, math.floor(quad[:, 0].min()) - 2)
        y0 = max(0, math.floor(quad[:, 1].min()) - 2)
        x1 = min(cw, math.ceil(quad[:, 0].max()) + 3)
        y1 = min(ch, math.ceil(quad[:, 1].max()) + 3)
        if x1 <= x0 or y1 <= y0:
            return quad
        # texel (u, v) -> plane (a, b) -> camera -> canvas -> ROI
        a = np.array([[texel_in, 0, 0.5 * texel_in], [0, texel_in, 0.5 * texel_in],
                      [0, 0, 1.0]])
        plane = np.column_stack([self.r @ e1, self.r @ e2, self.r @ origin + self.t])
        roi = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1.0]])
        hmat = roi @ self.k @ plane @ a
        rgba = np.dstack([tex, np.full((th, tw), 255, np.uint8)])
        warped = cv2.warpPerspective(rgba, hmat, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR,
                                     borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0, 0))
        alpha = warped[..., 3:4].astype(np.float32) * (1 / 255)
        dst = self.img[y0:y1, x0:x1]
        out = dst.astype(np.float32) * (1 - alpha) + warped[..., :3].astype(np.float32)
        np.clip(out + 0.5, 0, 255, out=out)
        dst[...] = out.astype(np.uint8)
        return quad

    def pixels_per_inch(self, pts3d: np.ndarray) -> float:
        """The largest canvas scale (px per inch) along the edges of a world polygon."""
        px = self.to_canvas(pts3d)
        world = np.asarray(pts3d, np.float64)
        best = 0.0
        for i in range(len(px)):
            j = (i + 1) % len(px)
            best = max(best, float(np.linalg.norm(px[j] - px[i]) /
                                   max(1e-9, np.linalg.norm(world[j] - world[i]))))
        return best

    def marker(self, dictionary: str, marker_id: int, centre: np.ndarray, side_in: float,
               angle_deg: float) -> np.ndarray | None:
        """Draw a printed marker (white square of 1.25 sides) centred at ``centre``,
        turned by ``angle_deg`` about the vertical; returns its outline quad."""
        cells = _marker_cells(dictionary)
        outline = _square_world(centre[0], centre[1], centre[2], side_in * QUIET_RATIO,
                                angle_deg)
        ppi = self.pixels_per_inch(outline)
        cell_in = side_in / cells
        # at least one texel per canvas pixel; a multiple of 8 keeps the quiet zone whole
        n = max(8, math.ceil(ppi * cell_in * 1.25 / 8) * 8)
        tex = _marker_texture(dictionary, marker_id, n)
        rot = _rot_z(angle_deg)
        e1, e2 = rot[:, 0], rot[:, 1]
        return self.texture(tex, outline[0], e1, e2, cell_in / n)

    def frame(self) -> np.ndarray:
        """Downsample to 1x and apply the lens distortion: the output frame (h, w, 3)."""
        g = self.geom
        img = self.img
        if self.ss > 1:
            cw, ch = g.canvas
            img = cv2.resize(img, (cw, ch), interpolation=cv2.INTER_AREA)
        if g.mapx is None:
            ox, oy = g.offset
            w, h = g.size
            return np.ascontiguousarray(img[oy:oy + h, ox:ox + w])
        return cv2.remap(img, g.mapx, g.mapy, cv2.INTER_LINEAR,
                         borderMode=cv2.BORDER_REPLICATE)


# --------------------------------------------------------------------------------------
# Post-processing


def _noise_lut(sigma: float) -> np.ndarray:
    """Gaussian noise of ``sigma`` from uniform bytes (inverse CDF, 256 levels, tails
    at ±2.9 sigma): much faster than drawing normals, deterministic for a seed."""
    nd = NormalDist()
    return np.array([sigma * nd.inv_cdf((i + 0.5) / 256) for i in range(256)], np.float32)


def _finish(img: np.ndarray, *, light_gradient: float, light_angle_deg: float,
            blur_sigma: float, noise_sigma: float, seed: int) -> np.ndarray:
    """Lighting ramp, blur and sensor noise, in that order (uint8 in and out)."""
    h, w = img.shape[:2]
    if light_gradient > 0:
        a = math.radians(light_angle_deg)
        c, s = math.cos(a), math.sin(a)
        xs = (np.arange(w, dtype=np.float32) - (w - 1) / 2) * c
        ys = (np.arange(h, dtype=np.float32) - (h - 1) / 2) * s
        half = (abs(c) * (w - 1) + abs(s) * (h - 1)) / 2
        ramp = np.add.outer(ys, xs)
        ramp *= light_gradient / 2 / max(half, 1e-9)
        ramp += 1
        img = cv2.multiply(img, cv2.merge([ramp, ramp, ramp]), dtype=cv2.CV_8U)
    if blur_sigma > 0.05:
        img = cv2.GaussianBlur(img, (0, 0), blur_sigma)
    if noise_sigma > 0:
        rng = np.random.default_rng(seed)
        raw = np.frombuffer(rng.bytes(h * w * 3), np.uint8).reshape(h, w, 3)
        noise = cv2.LUT(raw, _noise_lut(noise_sigma))
        img = cv2.add(img, noise, dtype=cv2.CV_8U)
    return img


# --------------------------------------------------------------------------------------
# Polygons


def _area(poly: np.ndarray) -> float:
    x, y = poly[:, 0], poly[:, 1]
    return 0.5 * abs(float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))))


def _clip_halfplane(poly: np.ndarray, d: np.ndarray, t: float) -> np.ndarray:
    """The part of a convex polygon where p·d >= t (Sutherland-Hodgman)."""
    out = []
    n = len(poly)
    for i in range(n):
        p, q = poly[i], poly[(i + 1) % n]
        fp, fq = float(p @ d) - t, float(q @ d) - t
        if fp >= 0:
            out.append(p)
        if (fp >= 0) != (fq >= 0):
            out.append(p + (q - p) * (fp / (fp - fq)))
    return np.array(out) if out else np.zeros((0, 2))


def _overlap(a: np.ndarray, b: np.ndarray) -> float:
    """Intersection area of two convex polygons (pixels²)."""
    area, _ = cv2.intersectConvexConvex(np.asarray(a, np.float32).reshape(-1, 1, 2),
                                        np.asarray(b, np.float32).reshape(-1, 1, 2))
    return float(area)


def _occluder(quad: np.ndarray, fraction: float, rng: np.random.Generator) -> np.ndarray:
    """A finger-like polygon that covers exactly ``fraction`` of the convex ``quad``'s area:
    it comes in from a random side with a straight edge across the marker and widens to
    a rounded end well beyond the marker (its shape elsewhere does not change the
    fraction)."""
    ang = rng.uniform(0, 2 * math.pi)
    d = np.array([math.cos(ang), math.sin(ang)])      # towards the finger's root
    n = np.array([-d[1], d[0]])
    proj = quad @ d
    total = _area(quad)
    lo, hi = float(proj.min()), float(proj.max())
    for _ in range(60):                                # area beyond t decreases with t
        mid = (lo + hi) / 2
        part = _clip_halfplane(quad, d, mid)
        if (_area(part) if len(part) >= 3 else 0.0) > fraction * total:
            lo = mid
        else:
            hi = mid
    t = (lo + hi) / 2
    across = quad @ n
    side = math.sqrt(total)
    c = float(across.mean())
    half = (float(across.max()) - float(across.min())) / 2 + 0.1 * side
    far = float(proj.max()) + 1.5 * side
    wide = half * 1.3
    pts = [t * d + (c - half) * n, far * d + (c - wide) * n]
    for a in np.linspace(-math.pi / 2, math.pi / 2, 17)[1:-1]:      # a rounded end
        pts.append((far + wide * math.cos(a)) * d + (c + wide * math.sin(a)) * n)
    pts += [far * d + (c + wide) * n, t * d + (c + half) * n]
    return np.array(pts)


# --------------------------------------------------------------------------------------
# Rendering


def _draw_table(cv: _Canvas, table: TableConfig) -> None:
    w, h = table.width_in, table.length_in
    cv.polygon(np.array([(0, 0, 0), (w, 0, 0), (w, h, 0), (0, h, 0)], float), PITCH_BGR)
    lw = 0.06
    lines = [((3.0, h / 2), (w - 3.0, h / 2))]                  # centre line
    if h > 16:
        lines += [((0.0, 6.0), (w, 6.0)), ((0.0, h - 6.0), (w, h - 6.0))]  # deployment
    for (xa, ya), (xb, yb) in lines:
        if xa == xb:
            poly = [(xa - lw, ya, 0), (xa + lw, ya, 0), (xb + lw, yb, 0), (xb - lw, yb, 0)]
        else:
            poly = [(xa, ya - lw, 0), (xb, yb - lw, 0), (xb, yb + lw, 0), (xa, ya + lw, 0)]
        cv.polygon(np.array(poly, float), LINE_BGR)


def _disc(x: float, y: float, r: float, z: float = 0.0) -> np.ndarray:
    a = np.linspace(0, 2 * math.pi, DISC_VERTICES, endpoint=False)
    return np.column_stack([x + r * np.cos(a), y + r * np.sin(a), np.full(len(a), z)])


def _in_frame(px: np.ndarray, size: tuple[int, int], margin: float = 0.0) -> bool:
    w, h = size
    return bool(np.all((px[:, 0] >= margin) & (px[:, 0] <= w - 1 - margin) &
                       (px[:, 1] >= margin) & (px[:, 1] <= h - 1 - margin)))


def render(scene: Scene, *, supersample: int = 2) -> Rendered:
    """Draw a scene; see the module docstring for the method. Deterministic."""
    cam = scene.camera
    size = cam.image_size
    cv = _Canvas(cam, scene.rvec, scene.tvec, supersample)
    table = scene.table
    _draw_table(cv, table)
    for p in scene.pieces:
        cv.polygon(_disc(p.x_in, p.y_in, p.base_mm / MM_PER_IN / 2), BASE_BGR)

    # anchors, then toppers far to near; canvas quads for occlusion between them
    anchors = [a for a in table.anchors if a.id not in scene.hidden_anchors]
    anchor_marker_q = {}
    for a in anchors:
        cv.marker(table.dictionary, a.id, np.array([a.x_in, a.y_in, 0.0]), a.side_in, 0.0)
        anchor_marker_q[a.id] = cv.to_canvas(anchor_corners_world(a))
    order = sorted(scene.pieces, key=lambda p: -float(
        cv.to_camera(np.array([[p.x_in, p.y_in, -p.height_in]]))[0, 2]))
    marker_q: dict[int, np.ndarray] = {}
    covered: set[int] = set()
    covered_anchors: set[int] = set()
    for p in order:
        topper = cv.marker(table.dictionary, p.id, np.array([p.x_in, p.y_in, -p.height_in]),
                           p.side_in, p.angle_deg)
        if topper is None:
            continue
        for other, q in marker_q.items():
            if _overlap(q, topper) > 0.5 * cv.ss ** 2:
                covered.add(other)
        for aid, q in anchor_marker_q.items():
            if _overlap(q, topper) > 0.5 * cv.ss ** 2:
                covered_anchors.add(aid)
        marker_q[p.id] = cv.to_canvas(piece_corners_world(p))

    img = cv.frame()

    # final-image marker corners; fingers
    corners = {p.id: project(cam, scene.rvec, scene.tvec, piece_corners_world(p))
               for p in scene.pieces}
    anchor_px = {a.id: project(cam, scene.rvec, scene.tvec, anchor_corners_world(a))
                 for a in anchors}
    rng = np.random.default_rng([scene.seed, 7919])
    for piece in scene.pieces:
        if piece.occlusion <= 0:
            continue
        quad = corners[piece.id]
        if _area(quad) < 1:
            continue
        poly = _occluder(quad, min(piece.occlusion, 0.95), rng)
        ipts = np.round(poly * 16).astype(np.int32).reshape(-1, 1, 2)
        cv2.fillPoly(img, [ipts], SKIN_BGR, lineType=cv2.LINE_AA, shift=4)
        cv2.polylines(img, [ipts], True, SKIN_DARK_BGR, 2, lineType=cv2.LINE_AA, shift=4)
        covered.add(piece.id)
        for behind in scene.pieces:
            if behind.id != piece.id and _overlap(corners[behind.id], poly) > 0.5:
                covered.add(behind.id)
        for aid, q in anchor_px.items():
            if _overlap(q, poly) > 0.5:
                covered_anchors.add(aid)

    img = _finish(img, light_gradient=scene.light_gradient,
                  light_angle_deg=scene.light_angle_deg, blur_sigma=scene.blur_sigma,
                  noise_sigma=scene.noise_sigma, seed=scene.seed)

    truth = []
    for p in scene.pieces:
        c = corners[p.id]
        side = float(np.mean(np.linalg.norm(c - np.roll(c, -1, axis=0), axis=1)))
        occluded = p.id in covered
        inside = _in_frame(c, size) and p.id in marker_q
        truth.append(PieceTruth(p.id, p.x_in, p.y_in, side, inside and not occluded, occluded,
                                tuple((float(x), float(y)) for x, y in c)))
    visible_anchors = tuple(a.id for a in anchors
                            if _in_frame(anchor_px[a.id], size) and a.id not in covered_anchors)
    return Rendered(img, tuple(truth), visible_anchors)


# --------------------------------------------------------------------------------------
# Random scenes


def default_table() -> TableConfig:
    """A 22x30" pitch with six 1.5" anchors (DICT_4X4_50) centred 1.2" in from the edges:
    ids 0 and 1 at the top corners (y = 1.2), 2 and 3 at the middle of the long edges
    (left, right), 4 and 5 at the bottom corners. No pieces (scenes bring their own)."""
    w, h, m, s = 22.0, 30.0, 1.2, 1.5
    anchors = (AnchorConfig(0, m, m, s), AnchorConfig(1, w - m, m, s),
               AnchorConfig(2, m, h / 2, s), AnchorConfig(3, w - m, h / 2, s),
               AnchorConfig(4, m, h - m, s), AnchorConfig(5, w - m, h - m, s))
    return TableConfig(dictionary="DICT_4X4_50", anchors=anchors, width_in=w, length_in=h)


def marker_side_for_base(base_mm: float) -> float:
    """The topper marker side used for a base: the printed toppers' (``vision.sheets``)."""
    from .sheets import topper_side_in

    return topper_side_in(base_mm)


def _fits(camera: CameraConfig, rvec, tvec, table: TableConfig, margin: float) -> bool:
    w, length = table.width_in, table.length_in
    pts = [(x, y, 0.0) for x in np.linspace(0, w, 5) for y in np.linspace(0, length, 5)
           if x in (0, w) or y in (0, length)]
    r = cv2.Rodrigues(np.asarray(rvec, np.float64))[0]
    if np.any((np.array(pts) @ r.T + np.asarray(tvec))[:, 2] <= 1):
        return False
    return _in_frame(project(camera, rvec, tvec, pts), camera.image_size, margin)


def random_scene(rng: np.random.Generator, table: TableConfig, *,
                 image_size: tuple[int, int] = (1920, 1080), max_tilt_deg: float = 25.0,
                 distortion: bool = True, heights_mm: tuple[float, float] = (0.0, 35.0),
                 noise: bool = True, blur: bool = True, lighting: bool = True,
                 occlusion_prob: float = 0.0,
                 n_pieces: tuple[int, int] = (4, 10)) -> Scene:
    """A random scene on ``table`` (its anchors are kept, its pieces replaced by the ones
    placed: ``Scene.table.pieces`` lists them as PieceConfig).

    * camera: :func:`default_camera` with the field of view jittered ±4 %, principal point
      ±1 %, and (``distortion``) k1 in [-0.08, 0.02], k2 in [-0.02, 0.02], p1, p2 within
      ±5e-4; looking at the pitch centre (±1.5"), tilted up to ``max_tilt_deg`` in any
      direction, rolled 90° ± 12° (either way) so the pitch's long side lies along image x,
      raised until the whole pitch is in the frame (plus 0 to 6" more);
    * pieces: ``n_pieces`` (inclusive range), ids from 10-29 (skipping anchor ids), bases of
      30, 40 or 50 mm with a marker of :func:`marker_side_for_base`, topper heights uniform
      in the ``heights_mm`` range, any angle; inside the pitch, bases and toppers apart,
      away from the anchors, and no topper covering another marker or an anchor in the
      image; with ``occlusion_prob`` a piece gets a finger over 15-60 % of its marker;
    * imaging: noise sigma 0-4, blur sigma 0-1.2, lighting gradient 0-0.4 (each when
      enabled)."""
    w, h = image_size
    hfov = 62.0 * rng.uniform(0.96, 1.04)
    cam = default_camera(image_size, hfov)
    (fx, _, cx), (_, fy, cy), _ = cam.camera_matrix
    cx += rng.uniform(-0.01, 0.01) * w
    cy += rng.uniform(-0.01, 0.01) * h
    dist = (0.0, 0.0, 0.0, 0.0, 0.0)
    if distortion:
        dist = (float(rng.uniform(-0.08, 0.02)), float(rng.uniform(-0.02, 0.02)),
                float(rng.uniform(-5e-4, 5e-4)), float(rng.uniform(-5e-4, 5e-4)), 0.0)
    cam = CameraConfig(cam.image_size, ((fx, 0.0, cx), (0.0, fy, cy), (0.0, 0.0, 1.0)), dist)

    target = (table.width_in / 2 + rng.uniform(-1.5, 1.5),
              table.length_in / 2 + rng.uniform(-1.5, 1.5))
    tilt = float(rng.uniform(0, max_tilt_deg))
    tilt_dir = float(rng.uniform(0, 360))
    roll = float(rng.choice([90.0, -90.0]) + rng.uniform(-12, 12))
    margin = 0.02 * w
    height = 24.0
    while height < 150 and not _fits(cam, *camera_pose(target, height, tilt, tilt_dir, roll),
                                     table, margin):
        height += 1.0
    height += float(rng.uniform(0, 6))
    rvec, tvec = camera_pose(target, height, tilt, tilt_dir, roll)
    r = cv2.Rodrigues(np.asarray(rvec))[0]
    t = np.asarray(tvec)
    k = cam.matrix()

    def ideal(pts: np.ndarray) -> np.ndarray:
        c = (pts @ r.T + t) @ k.T
        return c[:, :2] / c[:, 2:3]

    anchor_ids = {a.id for a in table.anchors}
    ids = [i for i in range(10, 30) if i not in anchor_ids]
    n = int(rng.integers(n_pieces[0], n_pieces[1] + 1))
    ids = [int(i) for i in rng.choice(ids, size=min(n, len(ids)), replace=False)]
    anchor_q = [ideal(_square_world(a.x_in, a.y_in, 0.0, a.side_in * QUIET_RATIO, 0.0))
                for a in table.anchors]
    placed: list[tuple[ScenePiece, float, np.ndarray]] = []   # piece, footprint, topper quad
    for pid in ids:
        for _ in range(400):
            base = float(rng.choice([30.0, 40.0, 50.0]))
            side = marker_side_for_base(base)
            height_mm = round(float(rng.uniform(*heights_mm)), 1)
            foot = max(base / MM_PER_IN / 2, side * QUIET_RATIO / math.sqrt(2))
            x = float(rng.uniform(foot + 0.1, table.width_in - foot - 0.1))
            y = float(rng.uniform(foot + 0.1, table.length_in - foot - 0.1))
            angle = float(rng.uniform(-180, 180))
            if any(math.hypot(x - q.x_in, y - q.y_in) < foot + f + 0.15 for q, f, _ in placed):
                continue
            if any(max(abs(x - a.x_in), abs(y - a.y_in)) < foot + a.side_in * QUIET_RATIO / 2
                   + 0.3 for a in table.anchors):
                continue
            occ = (round(float(rng.uniform(0.15, 0.6)), 3)
                   if occlusion_prob > 0 and rng.random() < occlusion_prob else 0.0)
            piece = ScenePiece(pid, round(x, 4), round(y, 4), round(angle, 3),
                               height_mm / MM_PER_IN, base, side, occ)
            topper = _square_world(piece.x_in, piece.y_in, -piece.height_in,
                                   side * QUIET_RATIO, piece.angle_deg)
            if not _in_frame(project(cam, rvec, tvec, topper), image_size, 4.0):
                continue
            quad = ideal(topper)
            if any(_overlap(quad, q) > 0 for _, _, q in placed):
                continue
            if any(_overlap(quad, q) > 0 for q in anchor_q):
                continue
            placed.append((piece, foot, quad))
            break
    pieces = tuple(p for p, _, _ in placed)
    configs = tuple(PieceConfig(p.id, p.side_in, p.base_mm, round(p.height_in * MM_PER_IN, 1))
                    for p in pieces)
    return Scene(
        table=dataclasses.replace(table, pieces=configs), pieces=pieces, camera=cam,
        rvec=rvec, tvec=tvec,
        noise_sigma=round(float(rng.uniform(0, 4)), 3) if noise else 0.0,
        blur_sigma=round(float(rng.uniform(0, 1.2)), 3) if blur else 0.0,
        light_gradient=round(float(rng.uniform(0, 0.4)), 3) if lighting else 0.0,
        light_angle_deg=round(float(rng.uniform(0, 360)), 2),
        seed=int(rng.integers(0, 2**31 - 1)))


# --------------------------------------------------------------------------------------
# ChArUco views (for calibration tests)


def render_board_view(camera: CameraConfig, rvec: Sequence[float], tvec: Sequence[float],
                      spec: CharucoSpec = CHARUCO, noise_sigma: float = 0.0,
                      blur_sigma: float = 0.0, seed: int = 0, *,
                      supersample: int = 2) -> np.ndarray:
    """A frame of the ChArUco board (on white paper, half a square of margin) lying on
    the z = 0 plane with the board's top-left corner at the world origin, x along its
    squares_x side and y along squares_y (the board's own object coordinates, inches), on
    a grey background; drawn with the same exact pipeline as :func:`render`."""
    cv = _Canvas(camera, rvec, tvec, supersample, BOARD_BACKGROUND_BGR)
    bw, bh = spec.squares_x * spec.square_in, spec.squares_y * spec.square_in
    corners = np.array([(0, 0, 0), (bw, 0, 0), (bw, bh, 0), (0, bh, 0)], float)
    ppi = cv.pixels_per_inch(corners)
    q = max(16, math.ceil(ppi * spec.square_in * 1.25 / 8) * 8)
    tex = _board_texture(spec, q)
    texel = spec.square_in / q
    m = (q // 2) * texel
    cv.texture(tex, np.array([-m, -m, 0.0]), np.array([1.0, 0, 0]), np.array([0, 1.0, 0]),
               texel)
    img = cv.frame()
    return _finish(img, light_gradient=0.0, light_angle_deg=0.0, blur_sigma=blur_sigma,
                   noise_sigma=noise_sigma, seed=seed)


def random_board_poses(rng: np.random.Generator, camera: CameraConfig, n: int,
                       spec: CharucoSpec = CHARUCO) -> list[tuple[Vec3, Vec3]]:
    """``n`` varied poses (rvec, tvec) of the board seen by ``camera``: its centre aimed at
    the cells of a 3x3 grid over the image in turn (so that together they cover it),
    filling 35-65 % of the image width, tilted 5-45° about a random in-plane axis and
    turned ±30° in its plane; every outer board corner stays inside the frame."""
    w, h = camera.image_size
    k = camera.matrix()
    bw, bh = spec.squares_x * spec.square_in, spec.squares_y * spec.square_in
    outline = np.array([(0, 0, 0), (bw, 0, 0), (bw, bh, 0), (0, bh, 0)], float)
    centre = np.array([bw / 2, bh / 2, 0.0])
    cells = [(fx, fy) for fy in (0.25, 0.5, 0.75) for fx in (0.25, 0.5, 0.75)]
    order = [cells[i] for i in rng.permutation(len(cells))]
    poses: list[tuple[Vec3, Vec3]] = []
    attempts = 0
    while len(poses) < n:
        attempts += 1
        if attempts > 200 * n:
            raise RuntimeError("could not find board poses that fit the frame")
        fu, fv = order[len(poses) % len(order)]
        tilt = math.radians(rng.uniform(5, 45))
        axis_ang = rng.uniform(0, 2 * math.pi)
        axis = np.array([math.cos(axis_ang), math.sin(axis_ang), 0.0]) * tilt
        r = cv2.Rodrigues(axis)[0] @ _rot_z(rng.uniform(-30, 30))
        frac = rng.uniform(0.35, 0.65)
        u = fu * w + rng.uniform(-0.05, 0.05) * w
        v = fv * h + rng.uniform(-0.05, 0.05) * h
        for _ in range(12):
            z = k[0, 0] * bw / (frac * w)
            ray = np.array([(u - k[0, 2]) / k[0, 0], (v - k[1, 2]) / k[1, 1], 1.0])
            t = z * ray - r @ centre
            cam_pts = outline @ r.T + t
            normal = r[:, 2]
            view = -(r @ centre + t)
            cos_view = abs(normal @ view) / np.linalg.norm(view)
            if np.all(cam_pts[:, 2] > 1) and cos_view > 0.5:
                rvec = cv2.Rodrigues(r)[0].ravel()
                px = project(camera, rvec, t, outline)
                if _in_frame(px, (w, h), 8.0):
                    poses.append((tuple(float(x) for x in rvec),      # type: ignore
                                  tuple(float(x) for x in t)))
                    break
            # shrink towards the centre and try again
            frac *= 0.9
            u = 0.8 * u + 0.2 * (w - 1) / 2
            v = 0.8 * v + 0.2 * (h - 1) / 2
    return poses
