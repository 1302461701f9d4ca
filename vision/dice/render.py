"""Synthetic dice-tray frames with exact ground truth, for the dice reader's tests and benchmark.

A camera looks straight down at the tray at the bottom of the dice tower (640x480 by
default). Each die is a real polyhedron (a cube for the pip D6, the six-symbol die and the
spawn die; a dodecahedron for the numeral D12) placed in 3D: resting flat on one face, or
*tilted* (propped on the wall or on another die, 12 to 40 degrees off flat). Every visible
face is drawn by ``cv2.warpPerspective`` of its printed texture through the pinhole camera
(slight perspective: the camera is ``camera_height_px`` above the tray), shaded by a
Lambertian light from above, with dark seams along the rounded edges and a soft shadow on
the tray. The tray has a felt texture and uneven light (vignetting and a gradient); the
frame then gets blur, sensor noise and JPEG compression. "Bad" frames (too dark, heavy
blur, glare on a die) are for the reader's ``unreadable`` verdicts.

Ground truth (:class:`TrueDie`): kind, top face, colour, tilt and the projected centre of the
die in pixels. :func:`throw_sequence` renders a throw as a camera would see it: empty tray,
dice falling in (moving, motion-blurred), settled for a while, then taken out.

Coordinates: x right and y down as in the image, z up towards the camera, in pixels at the
tray's plane. Everything is deterministic for a seed.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field

import cv2
import numpy as np

PHI = (1 + 5 ** 0.5) / 2
TEX = 96  # texture side, pixels

# body colours (BGR) and the ink printed on them
COLOURS: dict[str, tuple[tuple[int, int, int], tuple[int, int, int]]] = {
    "white": ((212, 214, 216), (30, 30, 34)),
    "red": ((40, 38, 178), (235, 235, 235)),
    "yellow": ((52, 196, 232), (34, 30, 30)),
    "black": ((38, 36, 36), (225, 228, 228)),
    "blue": ((170, 90, 30), (235, 235, 235)),
    "ivory": ((190, 222, 232), (40, 34, 30)),
    "green": ((60, 140, 40), (235, 235, 235)),
}
TRAY_COLOURS = [(120, 104, 66), (96, 110, 112), (128, 118, 104)]  # teal, grey, blue-grey felt
# what a die lies on when a webcam looks from the side: a desk, paper, a mat, a tablecloth
DESK_COLOURS = [(70, 110, 160), (40, 70, 110), (100, 150, 195), (222, 224, 226), (60, 60, 62),
                (150, 150, 146), (60, 110, 60), (170, 200, 215)]
# the pip dice such a camera sees most (ivory ones often, the rest of the colours too)
DESK_PIP_COLOURS = ("ivory", "ivory", "white", "red", "blue", "black", "green")

SYMBOLS = ("CLAW", "HEART", "ENERGY", "FAME", "DESTRUCTION", "POWER")
SPAWN_FACES = ("TILE_UNDER_YOU", "POWER_UP_ON_SPAWN", "TILE_ON_SPAWN", "TILE_ON_SPAWN_2",
               "NO_SPAWN", "NO_SPAWN_2")


@dataclass(frozen=True)
class KindSpec:
    """A kind of die the renderer can draw: its solid, its faces and its colours."""

    name: str
    solid: str  # "cube" | "d12"
    faces: tuple[str, ...]
    colours: tuple[str, ...]
    side_px: float  # edge of the cube / twice the inradius scaled: the die's size from above


KINDS: dict[str, KindSpec] = {
    "d6pips": KindSpec("d6pips", "cube", tuple("123456"), ("white", "red", "blue"), 46.0),
    "d12": KindSpec("d12", "d12", tuple(str(i) for i in range(1, 13)), ("red", "yellow"), 58.0),
    "kotd": KindSpec("kotd", "cube", SYMBOLS, ("black",), 48.0),
    "spawn": KindSpec("spawn", "cube", SPAWN_FACES, ("white",), 46.0),
}


# ---------------------------------------------------------------- face textures

def _blank(body) -> np.ndarray:
    img = np.empty((TEX, TEX, 3), np.uint8)
    img[:] = body
    return img


PIP_LAYOUT = {1: [(0, 0)], 2: [(-1, -1), (1, 1)], 3: [(-1, -1), (0, 0), (1, 1)],
              4: [(-1, -1), (1, -1), (-1, 1), (1, 1)],
              5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
              6: [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)]}


def _pips(n: int, body, ink) -> np.ndarray:
    img = _blank(body)
    c, step, r = TEX / 2, TEX * 0.27, TEX * 0.085
    for dx, dy in PIP_LAYOUT[n]:
        cv2.circle(img, (int(round((c + dx * step) * 16)), int(round((c + dy * step) * 16))),
                   int(r * 16), ink, -1, cv2.LINE_AA, 4)
    return img


def _poly(img, pts, ink, scale=TEX / 100.0):
    p = (np.array(pts, np.float64) * scale * 16).round().astype(np.int32)
    cv2.fillPoly(img, [p], ink, cv2.LINE_AA, 4)


def _symbol(name: str, body, ink) -> np.ndarray:
    img = _blank(body)
    s = TEX / 100.0
    if name == "CLAW":  # three slanted slashes
        for k in (-18, 0, 18):
            _poly(img, [(30 + k, 78), (38 + k, 78), (70 + k, 22), (62 + k, 22)], ink)
    elif name == "HEART":
        for cx in (37, 63):
            cv2.circle(img, (int(cx * s * 16), int(40 * s * 16)), int(15 * s * 16), ink, -1,
                       cv2.LINE_AA, 4)
        _poly(img, [(23, 46), (77, 46), (50, 80)], ink)
    elif name == "ENERGY":  # lightning bolt
        _poly(img, [(56, 14), (30, 54), (48, 54), (40, 86), (72, 42), (54, 42), (64, 14)], ink)
    elif name == "FAME":  # five-pointed star
        pts = []
        for k in range(10):
            r = 36 if k % 2 == 0 else 15
            a = -math.pi / 2 + k * math.pi / 5
            pts.append((50 + r * math.cos(a), 52 + r * math.sin(a)))
        _poly(img, pts, ink)
    elif name == "DESTRUCTION":  # a broken building
        _poly(img, [(26, 84), (26, 34), (40, 24), (46, 38), (56, 20), (74, 30), (74, 84)], ink)
        for x in (34, 50, 62):
            for y in (46, 62):
                cv2.rectangle(img, (int(x * s), int(y * s)), (int((x + 6) * s), int((y + 8) * s)),
                              body, -1)
    elif name == "POWER":  # a ring with a dot
        cv2.circle(img, (int(50 * s * 16), int(50 * s * 16)), int(30 * s * 16), ink,
                   max(2, int(10 * s)), cv2.LINE_AA, 4)
        cv2.circle(img, (int(50 * s * 16), int(50 * s * 16)), int(9 * s * 16), ink, -1,
                   cv2.LINE_AA, 4)
    else:
        raise ValueError(f"no picture for symbol {name!r}")
    return img


def _spawn(name: str, body, ink) -> np.ndarray:
    img = _blank(body)
    s = TEX / 100.0
    if name == "TILE_UNDER_YOU":  # a tile with an arrow down
        cv2.rectangle(img, (int(28 * s), int(62 * s)), (int(72 * s), int(82 * s)), ink, -1)
        _poly(img, [(44, 16), (56, 16), (56, 38), (66, 38), (50, 56), (34, 38), (44, 38)], ink)
    elif name == "POWER_UP_ON_SPAWN":  # a bolt in a frame
        cv2.rectangle(img, (int(20 * s), int(20 * s)), (int(80 * s), int(80 * s)), ink,
                      max(2, int(6 * s)))
        _poly(img, [(54, 26), (36, 54), (48, 54), (44, 74), (64, 46), (52, 46), (58, 26)], ink)
    elif name.startswith("TILE_ON_SPAWN"):  # a tile in a circle (the _2 face: two tiles)
        cv2.circle(img, (int(50 * s * 16), int(50 * s * 16)), int(34 * s * 16), ink,
                   max(2, int(6 * s)), cv2.LINE_AA, 4)
        if name.endswith("_2"):
            cv2.rectangle(img, (int(32 * s), int(36 * s)), (int(48 * s), int(64 * s)), ink, -1)
            cv2.rectangle(img, (int(54 * s), int(36 * s)), (int(70 * s), int(64 * s)), ink, -1)
        else:
            cv2.rectangle(img, (int(36 * s), int(40 * s)), (int(64 * s), int(60 * s)), ink, -1)
    elif name.startswith("NO_SPAWN"):  # a crossed circle (the _2 face: a cross)
        if name.endswith("_2"):
            _poly(img, [(24, 32), (32, 24), (76, 68), (68, 76)], ink)
            _poly(img, [(68, 24), (76, 32), (32, 76), (24, 68)], ink)
        else:
            cv2.circle(img, (int(50 * s * 16), int(50 * s * 16)), int(32 * s * 16), ink,
                       max(2, int(7 * s)), cv2.LINE_AA, 4)
            _poly(img, [(27, 33), (33, 27), (73, 67), (67, 73)], ink)
    else:
        raise ValueError(f"no picture for spawn face {name!r}")
    return img


def _pentagon_tex(body, ink, label: str) -> np.ndarray:
    """A pentagon face (vertex 0 at the top) with its numeral; 6 and 9 are underlined."""
    img = np.zeros((TEX, TEX, 3), np.uint8)
    cv2.fillConvexPoly(img, (PENTAGON_TEX * 16).round().astype(np.int32), body, cv2.LINE_AA, 4)
    font, scale, thick = cv2.FONT_HERSHEY_DUPLEX, 1.5 if len(label) == 1 else 1.2, 4
    (w, h), _ = cv2.getTextSize(label, font, scale, thick)
    org = (int(TEX / 2 - w / 2), int(TEX * 0.54 + h / 2))
    cv2.putText(img, label, org, font, scale, ink, thick, cv2.LINE_AA)
    if label in ("6", "9"):
        y = org[1] + 9
        cv2.line(img, (org[0] + 2, y), (org[0] + w - 2, y), ink, 4, cv2.LINE_AA)
    return img


_R_PENT = TEX * 0.5
PENTAGON_TEX = np.array([(TEX / 2 + _R_PENT * math.cos(-math.pi / 2 + k * 2 * math.pi / 5),
                          TEX * 0.54 + _R_PENT * math.sin(-math.pi / 2 + k * 2 * math.pi / 5))
                         for k in (0, 4, 3, 2, 1)], np.float64)  # the solid's vertex order
SQUARE_TEX = np.array([(0, 0), (TEX, 0), (TEX, TEX), (0, TEX)], np.float64)


def face_texture(kind: str, face: str, colour: str) -> np.ndarray:
    body, ink = COLOURS[colour]
    if kind == "d6pips":
        return _pips(int(face), body, ink)
    if kind == "kotd":
        return _symbol(face, body, ink)
    if kind == "spawn":
        return _spawn(face, body, ink)
    if kind == "d12":
        return _pentagon_tex(body, ink, face)
    raise ValueError(f"no such kind: {kind!r}")


# ---------------------------------------------------------------- solids

def _cube():
    """Unit cube (edge 1): vertices, faces (vertex indices in order), face of each side.

    D6 convention: opposite faces sum to 7."""
    v = np.array([(x, y, z) for x in (-.5, .5) for y in (-.5, .5) for z in (-.5, .5)])
    faces = []
    for axis in range(3):
        for sign in (1, -1):
            n = np.zeros(3)
            n[axis] = sign
            idx = [i for i in range(8) if v[i][axis] * sign > 0]
            faces.append((n, _order(v, idx, n)))
    return v, faces


def _dodecahedron():
    corners: list[tuple[float, float, float]] = [(x, y, z) for x in (-1, 1) for y in (-1, 1)
                                                  for z in (-1, 1)]
    for a in (-1, 1):
        for b in (-1, 1):
            corners += [(0, a / PHI, b * PHI), (a / PHI, b * PHI, 0), (a * PHI, 0, b / PHI)]
    v = np.array(corners, np.float64)
    normals: list[tuple[float, float, float]] = []
    for a in (-1, 1):
        for b in (-1, 1):
            normals += [(0, a * PHI, b), (a * PHI, b, 0), (a, 0, b * PHI)]
    faces = []
    for n in normals:
        n = np.array(n, np.float64) / np.linalg.norm(n)
        d = v @ n
        idx = list(np.argsort(-d)[:5])
        faces.append((n, _order(v, idx, n)))
    edge = np.linalg.norm(v[faces[0][1][0]] - v[faces[0][1][1]])
    return v / edge, faces  # edge 1


def _order(v, idx, n):
    """The face's vertices counter-clockwise seen from outside (right-handed x, y, z)."""
    c = v[idx].mean(axis=0)
    e1 = v[idx[0]] - c
    e1 /= np.linalg.norm(e1)
    e2 = np.cross(n, e1)
    ang = [math.atan2((v[i] - c) @ e2, (v[i] - c) @ e1) for i in idx]
    return [i for _, i in sorted(zip(ang, idx))]


CUBE = _cube()
D12 = _dodecahedron()
D12_INRADIUS = float(max(D12[0] @ D12[1][0][0]))
# cube sides in the order of CUBE's faces (+x, -x, +y, -y, +z, -z): opposite pairs sum to 7
CUBE_FACE_SLOTS = (0, 5, 1, 4, 2, 3)  # index into the kind's faces list
def _d12_slots():
    """Which face of the kind each D12 side carries: opposite sides sum to 13."""
    normals = [n for n, _ in D12[1]]
    slots: list[int | None] = [None] * 12
    nxt = 0
    for i, n in enumerate(normals):
        if slots[i] is not None:
            continue
        j = min(range(12), key=lambda k: float(normals[k] @ n))  # the opposite face
        slots[i], slots[j] = nxt, 11 - nxt
        nxt += 1
    return tuple(slots)


D12_FACE_SLOTS = _d12_slots()


def rotation(yaw: float, tilt: float, tilt_dir: float) -> np.ndarray:
    """Yaw about z, then a tilt of ``tilt`` radians about the horizontal axis at ``tilt_dir``."""
    cz, sz = math.cos(yaw), math.sin(yaw)
    rz = np.array([[cz, -sz, 0], [sz, cz, 0], [0, 0, 1]])
    ax = np.array([math.cos(tilt_dir), math.sin(tilt_dir), 0.0])
    k = np.array([[0, -ax[2], ax[1]], [ax[2], 0, -ax[0]], [-ax[1], ax[0], 0]])
    rt = np.eye(3) + math.sin(tilt) * k + (1 - math.cos(tilt)) * (k @ k)
    return rt @ rz


def _face_up_rotation(normal: np.ndarray) -> np.ndarray:
    """A rotation taking ``normal`` to +z (towards the camera)."""
    z = np.array([0.0, 0.0, 1.0])
    v = np.cross(normal, z)
    s, c = np.linalg.norm(v), float(normal @ z)
    if s < 1e-9:
        return np.eye(3) if c > 0 else np.diag([1.0, -1.0, -1.0])
    k = np.array([[0, -v[2], v[1]], [v[2], 0, -v[0]], [-v[1], v[0], 0]]) / s
    ang = math.atan2(s, c)
    return np.eye(3) + math.sin(ang) * k + (1 - math.cos(ang)) * (k @ k)


# ---------------------------------------------------------------- scene

@dataclass(frozen=True)
class SceneDie:
    kind: str
    face: str  # the face on top when flat (before the tilt)
    colour: str
    x: float
    y: float
    yaw: float  # radians
    tilt_deg: float = 0.0
    tilt_dir: float = 0.0
    size_px: float = 0.0  # 0: the kind's default


@dataclass(frozen=True)
class TrueDie:
    kind: str
    face: str  # the face most towards the camera
    colour: str
    x: float  # projected centre of the die, pixels
    y: float
    tilt_deg: float
    size_px: float = 0.0  # the die's edge as it looks at its place in the image, pixels

    @property
    def flat(self) -> bool:
        return self.tilt_deg < 1.0


@dataclass(frozen=True)
class TrayStyle:
    width: int = 640
    height: int = 480
    tray_bgr: tuple[int, int, int] = TRAY_COLOURS[0]
    light_dir: tuple[float, float] = (0.15, -0.1)  # horizontal part of the light direction
    vignette: float = 0.25  # light falls by this much in the corners
    gradient: tuple[float, float] = (0.08, -0.05)  # linear light change across x and y
    camera_height_px: float = 3000.0  # the camera's distance from the point it looks at
    # how far above the tray's plane the camera looks from: 90 straight down (the tower); a
    # webcam on a desk looks from 25 to 65 degrees, from the bottom edge of the frame
    camera_elevation_deg: float = 90.0
    perspective: float = 0.0  # corner shift of a final homography, pixels
    blur_sigma: float = 0.5
    noise_sigma: float = 2.0
    jpeg_quality: int = 90  # 0: no JPEG
    exposure: float = 1.0
    glare: tuple[float, float, float] | None = None  # x, y, radius of a saturated spot
    seed: int = 0  # sensor noise
    tray_seed: int = 0  # the felt's texture (the same tray in every frame)


def tray_background(style: TrayStyle) -> np.ndarray:
    """The empty tray as float32 BGR, lit (felt texture, vignette, gradient), before noise."""
    rng = np.random.default_rng(style.tray_seed * 7919 + 17)
    h, w = style.height, style.width
    tex = rng.normal(0, 1, (h // 4 + 2, w // 4 + 2)).astype(np.float32)
    tex = cv2.resize(cv2.GaussianBlur(tex, (0, 0), 1.2), (w, h))[:, :, None] * 4.0
    img = np.empty((h, w, 3), np.float32)
    img[:] = style.tray_bgr
    img += tex
    return img * _light_field(style)[:, :, None]


def _light_field(style: TrayStyle) -> np.ndarray:
    h, w = style.height, style.width
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    nx, ny = (xx - w / 2) / (w / 2), (yy - h / 2) / (h / 2)
    r2 = (nx ** 2 + ny ** 2) / 2
    return (1 - style.vignette * r2) * (1 + style.gradient[0] * nx + style.gradient[1] * ny)


def _pose(d: SceneDie):
    spec = KINDS[d.kind]
    verts, faces = CUBE if spec.solid == "cube" else D12
    slots = CUBE_FACE_SLOTS if spec.solid == "cube" else D12_FACE_SLOTS
    size = d.size_px or spec.side_px
    if spec.solid == "d12":
        size /= 2 * D12_INRADIUS  # size_px is across opposite faces; the model's edge is 1
    top = spec.faces.index(d.face)
    fi = slots.index(top)
    r0 = _face_up_rotation(faces[fi][0])
    r = rotation(d.yaw, math.radians(d.tilt_deg), d.tilt_dir) @ r0
    pts = (verts * size) @ r.T
    pts[:, 2] -= pts[:, 2].min()  # resting on the tray
    pts[:, 0] += d.x
    pts[:, 1] += d.y
    normals = [r @ n for n, _ in faces]
    return spec, pts, faces, normals, slots


def _camera(style: TrayStyle) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The camera's position and its right, down and forward axes, in tray coordinates. It
    looks at the middle of the frame's tray from ``camera_height_px`` away, at
    ``camera_elevation_deg`` above the tray; its focal length is that distance (a pixel of
    the tray at that point is a pixel of the image across)."""
    e = math.radians(style.camera_elevation_deg)
    target = np.array([style.width / 2, style.height / 2, 0.0])
    forward = np.array([0.0, -math.cos(e), -math.sin(e)])
    down = np.array([0.0, math.sin(e), -math.cos(e)])
    return target - forward * style.camera_height_px, np.array([1.0, 0.0, 0.0]), down, forward


def _project(p: np.ndarray, style: TrayStyle) -> np.ndarray:
    cx, cy, hc = style.width / 2, style.height / 2, style.camera_height_px
    if style.camera_elevation_deg >= 90.0:        # straight down: the tower's camera
        s = hc / (hc - p[..., 2])
        return np.stack([cx + (p[..., 0] - cx) * s, cy + (p[..., 1] - cy) * s], axis=-1)
    cam, right, down, forward = _camera(style)
    rel = p - cam
    depth = rel @ forward
    return np.stack([cx + hc * (rel @ right) / depth, cy + hc * (rel @ down) / depth], axis=-1)


def tray_point(u: float, v: float, style: TrayStyle) -> tuple[float, float]:
    """The point of the tray's plane seen at pixel (u, v)."""
    if style.camera_elevation_deg >= 90.0:
        return u, v
    cam, right, down, forward = _camera(style)
    ray = forward + right * (u - style.width / 2) / style.camera_height_px \
        + down * (v - style.height / 2) / style.camera_height_px
    t = -cam[2] / ray[2]
    return float(cam[0] + t * ray[0]), float(cam[1] + t * ray[1])


def render_tray(dice: list[SceneDie], style: TrayStyle) -> tuple[np.ndarray, list[TrueDie]]:
    """A BGR uint8 frame of the tray with ``dice`` on it, and the truth for each die."""
    rng = np.random.default_rng(style.seed)
    h, w = style.height, style.width
    light = np.array([style.light_dir[0], style.light_dir[1], 1.0])
    light /= np.linalg.norm(light)
    img = tray_background(style)
    posed = [_pose(d) for d in dice]
    # shadows: each die's vertices pushed along the light onto the tray
    shade = np.ones((h, w), np.float32)
    for _, pts, *_ in posed:
        flat = pts[:, :2] - pts[:, 2:3] * light[:2] / light[2] * 1.0
        hull = cv2.convexHull(_project(np.c_[flat, np.zeros(len(flat))], style)
                              .astype(np.float32))
        cv2.fillConvexPoly(shade, (hull * 16).round().astype(np.int32), 0.7, cv2.LINE_AA, 4)
    shade = cv2.GaussianBlur(shade, (0, 0), 3.0)
    img *= shade[:, :, None]
    truth: list[TrueDie | None] = [None] * len(dice)
    lf = _light_field(style)
    order = sorted(range(len(dice)), key=lambda i: posed[i][1][:, 2].max())
    cam = np.array([w / 2, h / 2, style.camera_height_px]) if style.camera_elevation_deg >= 90 \
        else _camera(style)[0]
    for i in order:
        d = dice[i]
        spec, pts, faces, normals, slots = posed[i]
        centre = pts.mean(axis=0)
        ups = [float(n[2]) for n in normals]
        top = int(np.argmax(ups))
        cx, cy = (float(v) for v in _project(centre, style))
        near = math.dist((cx, cy), (float(v) for v in _project(centre + (1.0, 0, 0), style)))
        truth[i] = TrueDie(d.kind, spec.faces[slots[top]], d.colour, cx, cy,
                           math.degrees(math.acos(min(1.0, ups[top]))),
                           (d.size_px or spec.side_px) * near)
        for fi, (_, idx) in enumerate(faces):
            nn = normals[fi]
            if float((cam - pts[idx[0]]) @ nn) <= 0:
                continue
            quad = _project(pts[idx], style)
            tex = face_texture(d.kind, spec.faces[slots[fi]], d.colour).astype(np.float32)
            src = SQUARE_TEX if spec.solid == "cube" else PENTAGON_TEX
            bright = 0.22 + 0.78 * max(0.0, float(nn @ light))
            _draw_face(img, tex, src, quad, bright, lf)
    if style.glare is not None:
        gx, gy, gr = style.glare
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        spot = np.exp(-((xx - gx) ** 2 + (yy - gy) ** 2) / (2 * (gr / 2) ** 2))
        img += spot[:, :, None] * 400.0
    img *= style.exposure
    if style.blur_sigma > 0:
        img = cv2.GaussianBlur(img, (0, 0), style.blur_sigma)
    if style.noise_sigma > 0:
        img += rng.normal(0, style.noise_sigma, img.shape).astype(np.float32)
    out = np.clip(img, 0, 255).astype(np.uint8)
    dice_truth = [t for t in truth if t is not None]   # every die was drawn
    if style.perspective > 0:
        out, dice_truth = _warp(out, dice_truth, style)
    if style.jpeg_quality:
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, style.jpeg_quality])
        out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return out, dice_truth


def _draw_face(img, tex, src, quad, bright, lf):
    x0, y0 = np.floor(quad.min(axis=0)).astype(int) - 2
    x1, y1 = np.ceil(quad.max(axis=0)).astype(int) + 3
    h, w = img.shape[:2]
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
    if x1 <= x0 or y1 <= y0:
        return
    n = len(quad)
    pick = [0, 1, 2, 3] if n == 4 else [0, 1, 3, 4]
    hm = cv2.getPerspectiveTransform(src[pick].astype(np.float32),
                                     (quad[pick] - (x0, y0)).astype(np.float32))
    size = (x1 - x0, y1 - y0)
    face = cv2.warpPerspective(tex, hm, size, flags=cv2.INTER_LINEAR)
    mask = np.zeros((y1 - y0, x1 - x0), np.float32)
    q16 = ((quad - (x0, y0)) * 16).round().astype(np.int32)
    cv2.fillConvexPoly(mask, q16, 1.0, cv2.LINE_AA, 4)
    # rounded edges: a darker rim along the face's outline
    rim = np.ones_like(mask)
    cv2.polylines(rim, [q16], True, 0.45, 2, cv2.LINE_AA, 4)
    rim = cv2.GaussianBlur(rim, (0, 0), 0.6)
    roi = img[y0:y1, x0:x1]
    shaded = face * (bright * rim * lf[y0:y1, x0:x1])[:, :, None]
    roi[:] = roi * (1 - mask[:, :, None]) + shaded * mask[:, :, None]


def _warp(img, truth, style):
    """The camera slightly off square to the tray: the same homography in every frame of a
    tray (it comes from ``tray_seed``), empty trays included."""
    rng = np.random.default_rng(style.tray_seed + 1)
    h, w = img.shape[:2]
    src = np.array([(0, 0), (w, 0), (w, h), (0, h)], np.float32)
    dst = src + rng.uniform(-style.perspective, style.perspective, (4, 2)).astype(np.float32)
    hm = cv2.getPerspectiveTransform(src, dst)
    out = cv2.warpPerspective(img, hm, (w, h), borderMode=cv2.BORDER_REFLECT)
    pts = cv2.perspectiveTransform(np.array([[(t.x, t.y)] for t in truth], np.float32)
                                   .reshape(-1, 1, 2), hm).reshape(-1, 2) if truth else []
    return out, [dataclasses.replace(t, x=float(p[0]), y=float(p[1])) for t, p in zip(truth, pts)]


# ---------------------------------------------------------------- random trays

def random_style(rng: np.random.Generator, width: int = 640, height: int = 480,
                 bad: str | None = None, oblique: bool = False,
                 elevation: tuple[float, float] = (25.0, 65.0)) -> TrayStyle:
    """A tray's look: felt colour, light, blur, noise, JPEG. ``bad``: "dark", "blur" or
    "glare" for a frame the reader must not guess on (the glare spot is placed later).
    ``oblique``: a webcam's view of dice on a desk instead, ``elevation`` degrees above it
    (by default 25 to 65)."""
    style = TrayStyle(
        width=width, height=height,
        tray_bgr=TRAY_COLOURS[int(rng.integers(len(TRAY_COLOURS)))],
        light_dir=(float(rng.uniform(-0.25, 0.25)), float(rng.uniform(-0.25, 0.25))),
        vignette=float(rng.uniform(0.1, 0.35)),
        gradient=(float(rng.uniform(-0.12, 0.12)), float(rng.uniform(-0.12, 0.12))),
        perspective=float(rng.uniform(0, 6)),
        blur_sigma=float(rng.uniform(0.3, 0.9)),
        noise_sigma=float(rng.uniform(1.0, 3.5)),
        jpeg_quality=int(rng.integers(70, 96)),
        exposure=float(rng.uniform(0.92, 1.05)),
        seed=int(rng.integers(1 << 30)), tray_seed=int(rng.integers(1 << 30)))
    if bad == "dark":
        style = _replace(style, exposure=float(rng.uniform(0.12, 0.22)))
    elif bad == "blur":
        style = _replace(style, blur_sigma=float(rng.uniform(3.5, 6.0)))
    elif bad not in (None, "glare"):
        raise ValueError(f"no such bad frame: {bad!r}")
    if oblique:
        style = _replace(
            style, camera_elevation_deg=float(rng.uniform(*elevation)),
            camera_height_px=float(rng.uniform(450, 1000)), perspective=0.0,
            tray_bgr=DESK_COLOURS[int(rng.integers(len(DESK_COLOURS)))],
            light_dir=(float(rng.uniform(-0.8, 0.8)), float(rng.uniform(-0.8, 0.8))),
            vignette=float(rng.uniform(0.1, 0.5)))
    return style


def _replace(style: TrayStyle, **kw) -> TrayStyle:
    return dataclasses.replace(style, **kw)


def random_dice(rng: np.random.Generator, n: int, kinds: list[str], style: TrayStyle,
                tilted_prob: float = 0.15, touching_prob: float = 0.3,
                scale: float = 1.0, pip_colours: tuple[str, ...] | None = None,
                propped: bool = True) -> list[SceneDie]:
    """``n`` dice at random places (some touching a neighbour), flat or tilted. ``scale``: the
    dice's size over their kinds'; ``pip_colours``: other colours for the pip dice. Seen from
    above, a tilted die then leans on a flat one or on a wall beyond the frame's edge
    (:func:`_propped`); ``propped=False``: where it was drawn, on nothing (the benchmark's
    trays before 2026-11-29, kept for the cases pinned on them)."""
    dice: list[SceneDie] = []
    margin = 48
    oblique = style.camera_elevation_deg < 90.0

    def seen(x: float, y: float) -> bool:
        u, v = _project(np.array([x, y, 0.0]), style) if oblique else (x, y)
        return bool(margin <= u <= style.width - margin and margin <= v <= style.height - margin)

    tries = 0
    while len(dice) < n and tries < 2000:
        tries += 1
        kind = kinds[int(rng.integers(len(kinds)))]
        spec = KINDS[kind]
        size = spec.side_px * float(rng.uniform(0.98, 1.02)) * scale
        tilted = rng.random() < tilted_prob
        radius = size * (0.75 if spec.solid == "cube" else 0.95) * (1.25 if tilted else 1.0)
        if dice and rng.random() < touching_prob and not tilted:
            # touch a flat neighbour, edge to edge (the hard case for segmentation)
            other = dice[int(rng.integers(len(dice)))]
            if other.tilt_deg or KINDS[other.kind].solid != "cube" or spec.solid != "cube":
                continue
            osize = other.size_px
            ang = other.yaw + rng.integers(4) * math.pi / 2
            dist = (osize + size) / 2 + float(rng.uniform(0.0, 1.5))
            x = other.x + dist * math.cos(ang) + float(rng.uniform(-0.2, 0.2)) * size * math.sin(ang)
            y = other.y + dist * math.sin(ang) - float(rng.uniform(-0.2, 0.2)) * size * math.cos(ang)
            yaw = other.yaw + float(rng.uniform(-0.04, 0.04))
        else:
            x = float(rng.uniform(margin, style.width - margin))
            y = float(rng.uniform(margin, style.height - margin))
            if oblique:
                x, y = tray_point(x, y, style)
            yaw = float(rng.uniform(0, 2 * math.pi))
        if not seen(x, y):
            continue
        clear = True
        for o in dice:
            ospec = KINDS[o.kind]
            orad = o.size_px * (0.75 if ospec.solid == "cube" else 0.95) * (1.25 if o.tilt_deg else 1.0)
            dmin = (radius + orad) if (tilted or o.tilt_deg or spec.solid != "cube"
                                       or ospec.solid != "cube") else (size + o.size_px) / 2 - 1
            if math.hypot(o.x - x, o.y - y) < dmin + 3:
                clear = False
                break
        if not clear:
            continue
        face = spec.faces[int(rng.integers(len(spec.faces)))]
        colours = pip_colours if pip_colours and kind == "d6pips" else spec.colours
        colour = colours[int(rng.integers(len(colours)))]
        tilt = float(rng.uniform(14, 40)) if tilted else 0.0
        dice.append(SceneDie(kind, face, colour, x, y, yaw, tilt,
                             float(rng.uniform(0, 2 * math.pi)), size))
    if propped and not oblique:
        for i, d in enumerate(dice):
            if d.tilt_deg:
                dice[i] = _propped(d, dice, style)
    return dice


def lean(die: SceneDie, on: SceneDie | None, style: TrayStyle, side: float = 0.0) -> SceneDie:
    """``die`` tilted as it is, moved to lean on die ``on`` (which is flat), its top tilted
    away from it; or, where ``on`` is None, on a tray wall just beyond the frame's edge
    nearest ``side`` radians from the middle of the frame (0: the right-hand edge). A die
    cannot rest tilted on a flat tray by itself."""
    t = math.radians(die.tilt_deg)
    size = die.size_px or KINDS[die.kind].side_px
    reach = size / 2 * (math.cos(t) + math.sin(t))  # its footprint out from its centre
    if on is not None:
        osize = on.size_px or KINDS[on.kind].side_px
        # square to one of the support's faces, the one facing ``die`` now
        ang = math.atan2(die.y - on.y, die.x - on.x)
        ang = on.yaw + round((ang - on.yaw) / (math.pi / 2)) * math.pi / 2
        dist = osize / 2 + reach - 0.05 * size
        x, y = on.x + dist * math.cos(ang), on.y + dist * math.sin(ang)
    else:
        ang = round(side / (math.pi / 2)) * math.pi / 2
        ux, uy = round(math.cos(ang)), round(math.sin(ang))
        x = die.x if ux == 0 else (style.width - 4 - reach if ux > 0 else 4 + reach)
        y = die.y if uy == 0 else (style.height - 4 - reach if uy > 0 else 4 + reach)
        ang += math.pi  # the wall is beyond the die: the die is on the frame's side of it
    # the support lies at -ang from the die, its side face towards the support raised; its
    # top leans away, towards ang: (sin d, -cos d) (rotation)
    d = math.atan2(math.cos(ang), -math.sin(ang))
    return dataclasses.replace(die, x=x, y=y, yaw=d, tilt_dir=d)


def _propped(die: SceneDie, dice: list[SceneDie], style: TrayStyle) -> SceneDie:
    """A tilted ``die`` of :func:`random_dice` moved to lean on the nearest flat die it fits
    beside, else on the frame's nearest edge (a wall beyond it); flat where it is where
    neither has room. No random numbers: the other dice of a tray stay as they were."""
    spec = KINDS[die.kind]
    cands = sorted((d for d in dice if not d.tilt_deg),
                   key=lambda d: math.hypot(d.x - die.x, d.y - die.y))
    tries = [lean(die, d, style) for d in cands]
    ang = math.atan2(die.y - style.height / 2, die.x - style.width / 2)
    tries += [lean(die, None, style, ang + k * math.pi / 2) for k in (0, 1, -1, 2)]
    size = die.size_px or spec.side_px
    radius = size * (0.75 if spec.solid == "cube" else 0.95) * 1.25
    for moved in tries:
        ok = True
        for o in dice:
            if o is die:
                continue
            osize = o.size_px or KINDS[o.kind].side_px
            orad = osize * (0.75 if KINDS[o.kind].solid == "cube" else 0.95) \
                * (1.25 if o.tilt_deg else 1.0)
            near = math.hypot(o.x - moved.x, o.y - moved.y)
            if near < radius + orad + 3 and not (
                    not o.tilt_deg and near >= (osize + size) / 2 * 0.9):
                ok = False  # overlaps a die (its support only touches it)
                break
        if ok and 0 <= moved.x < style.width and 0 <= moved.y < style.height:
            return moved
    return dataclasses.replace(die, tilt_deg=0.0)  # nothing to lean on: it lies flat


def random_tray(seed: int, n_dice: int | None = None, kinds: list[str] | None = None,
                tilted_prob: float = 0.15, bad: str | None = None, width: int = 640,
                height: int = 480, oblique: bool = False,
                elevation: tuple[float, float] = (25.0, 65.0)):
    """A random tray: (frame, truth, style). Deterministic for ``seed``. ``oblique``: dice on
    a desk seen by a webcam from the side, ``elevation`` degrees above it (see
    :func:`random_style`), of other sizes and colours."""
    rng = np.random.default_rng(seed)
    style = random_style(rng, width, height, bad, oblique, elevation)
    n = n_dice if n_dice is not None else int(rng.integers(1, 9))
    if oblique:
        dice = random_dice(rng, n, kinds or list(KINDS), style, tilted_prob,
                           scale=float(rng.uniform(0.55, 1.3)), pip_colours=DESK_PIP_COLOURS)
    else:
        dice = random_dice(rng, n, kinds or list(KINDS), style, tilted_prob)
    if bad == "glare" and dice:
        d = dice[0]
        style = _replace(style, glare=(d.x, d.y, KINDS[d.kind].side_px * 0.9))
    frame, truth = render_tray(dice, style)
    return frame, truth, style


def empty_tray(style: TrayStyle, seed: int | None = None) -> np.ndarray:
    """An empty-tray frame in ``style`` (new sensor noise for ``seed``)."""
    s = dataclasses.replace(style, seed=style.seed if seed is None else seed, glare=None)
    frame, _ = render_tray([], s)
    return frame


def single_die(kind: str, face: str, colour: str, seed: int, style: TrayStyle | None = None,
               tilt_deg: float = 0.0) -> tuple[np.ndarray, TrueDie]:
    """A tray with exactly one die of ``kind`` with ``face`` up, as `teach` wants it."""
    rng = np.random.default_rng(seed)
    style = style or random_style(rng)
    spec = KINDS[kind]
    d = SceneDie(kind, face, colour, float(rng.uniform(150, style.width - 150)),
                 float(rng.uniform(120, style.height - 120)), float(rng.uniform(0, 2 * math.pi)),
                 tilt_deg, float(rng.uniform(0, 2 * math.pi)),
                 spec.side_px * float(rng.uniform(0.98, 1.02)))
    frame, truth = render_tray([d], _replace(style, seed=seed))
    return frame, truth[0]


# ---------------------------------------------------------------- throw sequence

@dataclass(frozen=True)
class ThrowFrame:
    image: np.ndarray
    phase: str  # "empty" | "falling" | "settled" | "removed"
    truth: tuple[TrueDie, ...] = field(default=())


def throw_sequence(seed: int, n_dice: int = 3, kinds: list[str] | None = None,
                   empty_frames: int = 4, falling_frames: int = 6, settled_frames: int = 10,
                   removed_frames: int = 4, style: TrayStyle | None = None) -> list[ThrowFrame]:
    """Frames of one throw: the empty tray, dice tumbling in (moving and motion-blurred,
    drawn at random intermediate poses), settled and still, then taken out."""
    rng = np.random.default_rng(seed)
    style = style or random_style(rng)
    final = random_dice(rng, n_dice, kinds or ["d6pips"], style, tilted_prob=0.0)
    frames: list[ThrowFrame] = []
    k = 0

    def noise_seed() -> int:
        nonlocal k
        k += 1
        return seed * 1000 + k

    for _ in range(empty_frames):
        frames.append(ThrowFrame(render_tray([], _replace(style, seed=noise_seed()))[0], "empty"))
    for f in range(falling_frames):
        a = (f + 1) / (falling_frames + 1)
        moving = []
        for d in final:
            spec = KINDS[d.kind]
            moving.append(SceneDie(d.kind, spec.faces[int(rng.integers(len(spec.faces)))],
                                   d.colour, d.x + (1 - a) * float(rng.uniform(-120, 120)),
                                   d.y + (1 - a) * float(rng.uniform(-90, 90)),
                                   float(rng.uniform(0, 2 * math.pi)), float(rng.uniform(10, 45)),
                                   float(rng.uniform(0, 2 * math.pi)), d.size_px))
        img, truth = render_tray(moving, _replace(style, seed=noise_seed(), blur_sigma=2.5))
        frames.append(ThrowFrame(img, "falling", tuple(truth)))
    for _ in range(settled_frames):
        img, truth = render_tray(final, _replace(style, seed=noise_seed()))
        frames.append(ThrowFrame(img, "settled", tuple(truth)))
    for _ in range(removed_frames):
        frames.append(ThrowFrame(render_tray([], _replace(style, seed=noise_seed()))[0],
                                 "removed"))
    return frames
