"""Independent synthetic dice-tray renderer "E" (a per-pixel SDF ray caster).

Written by a helper that read neither the project's dice reader nor the project's other tray
renderers: everything here (geometry, materials, camera model, image pipeline) was made up from
the written brief alone, so that a benchmark built on it does not share another renderer's look.

Command line::

    python bench/tray_renderer_e.py OUT_DIR --seed N [--trays 40] [--width 640] [--height 480]
                                    [--quiet]

Output contract. One seed is one "dice tower": one fixed camera above one dice tray, one lighting
set-up and one set of physical dice, all drawn from the seed; the same seed gives byte-identical
PNG files (8-bit BGR, --width x --height).

* ``OUT_DIR/empty/empty-1.png .. empty-3.png``: the empty tray; the three differ only by sensor
  noise and a slight light flicker / auto-exposure drift.
* ``OUT_DIR/teach/<kind>/<colour>/<face>-<k>.png`` (k = 1..3): one die of that kind and colour
  resting flat with <face> on top, at three random positions and turns, for every (kind, colour)
  the tower owns and every face of that kind.
* ``OUT_DIR/trays/tray-0001.png ..``: 1 to 8 dice thrown in the tray; dice may touch; about 15 %
  are cocked (tilted 12-35 degrees, one bottom edge on the floor, the lifted side leaning on a
  neighbouring die or on the tray wall); the others rest flat on a face.
* ``OUT_DIR/truth.json``: ``{"seed": N, "size": [W, H], "trays": {"tray-0001.png": [{"kind":
  "d6pips", "colour": "white", "face": "4", "x": 312.5, "y": 220.1, "tilted": false}, ...]}}``
  where x, y is the pixel position (pixel centres at integer coordinates) of the centre of the
  die's top face (for a cocked die, the face whose outward normal points most upward) projected
  through the same (distorted) camera model as the image, and "face" is the value on that face.

Kinds: "d6pips" (cube with engraved, painted pips, opposite faces sum to 7), "d12" (rounded
regular dodecahedron with Hershey-font numerals, 6 and 9 marked, opposite faces sum to 13) and
"kotd" (cube with the symbol faces CLAW, HEART, ENERGY, FAME, DESTRUCTION, POWER).

How it renders. All geometry is in centimetres, z up, the tray floor at z = 0. The camera is a
pinhole with radial distortion: every pixel of an internal image (2x supersampled) gets its own
ray, so distortion is exact and the truth points use the same model (Newton-inverted). The tray
(floor slab and walls, a mat on a desk, or a bare desk) is a set of boxes hit analytically; its
surfaces carry procedural textures (felt, leather, rubber, printed play mat, cloth, paper, wood,
laminate) sampled in world coordinates, with bump mapping. Dice are signed distance fields
(exact rounded box; log-sum-exp rounded dodecahedron) found by sphere tracing inside their
screen boxes; each face samples a texture atlas holding paint coverage and an engraving height
(pip dimples, engraved numerals and symbols) whose gradient bends the normal. Shading is linear
RGB: Lambert plus Fresnel-weighted Blinn-Phong per light (point or directional, with colour
temperature; the lobe widens with the light's size; a ring light gives ring-shaped highlights),
soft shadows by SDF cone marching (penumbra from the light's angular size), SDF ambient
occlusion (contact darkening), a fake environment reflection with Fresnel on glossy dice, and
marbled / pearlescent / translucent / worn variants. Dice are placed with collision tests on
sampled surface points; a cocked die is turned about a bottom edge, dropped onto the floor and
slid against its support until they touch. The background and its lighting terms are rendered
once per tower; per image only the rectangles a die can affect are reshaded (shadows and
occlusion at half resolution). The camera pipeline then applies area downsampling, lens blur and
sometimes defocus or motion blur, vignetting, auto exposure (with highlight protection) plus an
exposure error, a Bayer mosaic with shot and read noise (more in dark scenes), edge-aware
demosaicing, white balance with an error, a tone curve, optional sharpening and a JPEG round trip
before the PNG is written.

Known limits: no inter-reflections or caustics; translucency is faked by blending the blurred
floor behind the die; lamps are kept away from the camera's mirror direction, so flat faces glare
only partly; dice never stack on each other.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

SS = 2  # internal supersampling factor (integer, so area downsampling keeps pixel centres)
PHI = (1.0 + 5.0 ** 0.5) / 2.0
Z = np.array([0.0, 0.0, 1.0])

KINDS = ("d6pips", "d12", "kotd")
KOTD_FACES = ["CLAW", "HEART", "ENERGY", "FAME", "DESTRUCTION", "POWER"]

DIE_COLOURS = {
    "white": (238, 236, 230), "ivory": (238, 226, 194), "black": (26, 26, 28),
    "red": (182, 26, 30), "blue": (30, 64, 170), "green": (30, 128, 64),
    "yellow": (242, 204, 44), "purple": (100, 44, 142), "orange": (238, 120, 26),
    "pink": (240, 140, 174), "grey": (128, 128, 132), "teal": (20, 128, 128),
    "brown": (112, 64, 34),
}
LIGHT_BODIES = {"white", "ivory", "yellow", "pink", "orange"}
# paint colours used on each body colour (repeats weight the usual choice)
INK_CHOICES = {
    "white": ["black", "black", "black", "red", "navy"],
    "ivory": ["black", "black", "black", "red", "navy"],
    "yellow": ["black", "black", "red", "navy"],
    "pink": ["black", "black", "navy", "red"],
    "orange": ["black", "black", "navy", "white"],
    "black": ["white", "white", "white", "gold", "red", "silver"],
    "grey": ["black", "white"],
    "red": ["white", "white", "white", "gold", "black"],
    "blue": ["white", "white", "white", "gold", "yellow", "silver"],
    "green": ["white", "white", "white", "gold", "yellow"],
    "purple": ["white", "white", "white", "gold", "yellow", "silver"],
    "teal": ["white", "white", "white", "gold", "black"],
    "brown": ["white", "white", "gold", "yellow"],
}
INKS = {
    "black": (20, 20, 22), "red": (176, 20, 26), "navy": (22, 32, 92), "white": (242, 242, 238),
    "gold": (216, 172, 66), "silver": (196, 196, 202), "yellow": (240, 214, 60),
}

FELT = [(34, 92, 52), (22, 64, 38), (128, 30, 34), (32, 54, 114), (20, 28, 62), (28, 28, 32),
        (74, 38, 94), (94, 94, 100), (94, 64, 42), (20, 98, 98), (88, 22, 38), (150, 122, 72)]
LEATHER = [(98, 60, 34), (62, 38, 24), (142, 98, 58), (30, 26, 24), (82, 26, 30), (38, 54, 42),
           (172, 142, 102)]
RUBBER = [(24, 24, 26), (30, 36, 54), (26, 42, 32), (62, 62, 66), (42, 32, 52), (92, 32, 32)]
CLOTH = [(182, 42, 42), (42, 72, 142), (222, 216, 202), (62, 112, 72), (202, 172, 122),
         (92, 62, 112), (242, 242, 236), (40, 40, 44)]
PAPER = [(242, 240, 232), (238, 228, 202), (202, 172, 124), (250, 250, 248)]
WOODS = [((204, 164, 112), (150, 102, 62)), ((162, 112, 72), (102, 62, 36)),
         ((112, 72, 42), (62, 36, 20)), ((222, 192, 142), (182, 142, 92)),
         ((92, 52, 32), (52, 26, 16)), ((190, 130, 80), (120, 60, 30))]
LAMINATE = [(236, 236, 230), (202, 202, 198), (62, 62, 64), (212, 192, 162), (32, 32, 34),
            (172, 182, 192)]
PLASTIC = [(22, 22, 24), (200, 32, 32), (42, 62, 162), (230, 230, 226), (62, 62, 64),
           (30, 90, 60)]


# --------------------------------------------------------------------------------------------
# small helpers
# --------------------------------------------------------------------------------------------

def srgb_to_lin(rgb) -> np.ndarray:
    """Convert sRGB colour(s) in 0..255 to linear RGB in 0..1."""
    c = np.asarray(rgb, dtype=np.float64) / 255.0
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def luminance(rgb) -> np.ndarray:
    """Rec. 709 luminance of linear RGB (last axis)."""
    rgb = np.asarray(rgb)
    return rgb[..., 0] * 0.2126 + rgb[..., 1] * 0.7152 + rgb[..., 2] * 0.0722


def kelvin_rgb(kelvin: float) -> np.ndarray:
    """Linear RGB of a black body at `kelvin` (Tanner Helland fit), scaled to unit luminance."""
    t = kelvin / 100.0
    r = 255.0 if t <= 66 else 329.698727446 * (t - 60) ** -0.1332047592
    if t <= 66:
        g = 99.4708025861 * math.log(t) - 161.1195681661
    else:
        g = 288.1221695283 * (t - 60) ** -0.0755148492
    if t >= 66:
        b = 255.0
    elif t <= 19:
        b = 0.0
    else:
        b = 138.5177312231 * math.log(t - 10) - 305.0447927307
    lin = srgb_to_lin(np.clip([r, g, b], 1, 255))
    return lin / luminance(lin)


def jitter_colour(rng, rgb, amount: float = 10.0) -> np.ndarray:
    """A slightly varied linear colour around the sRGB colour `rgb` (mostly in brightness)."""
    c = np.asarray(rgb, dtype=np.float64) + rng.normal(0, amount * 0.4, 3) + rng.normal(0, amount)
    return srgb_to_lin(np.clip(c, 2, 253))


def dot3(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Dot products of 3-vectors along the last axis (faster than a length-3 reduction)."""
    return a[..., 0] * b[..., 0] + a[..., 1] * b[..., 1] + a[..., 2] * b[..., 2]


def normalize(v: np.ndarray) -> np.ndarray:
    """Unit vectors along the last axis (of length 3)."""
    return v / np.maximum(np.sqrt(dot3(v, v)), 1e-12)[..., None]


def mul(A: np.ndarray, M: np.ndarray) -> np.ndarray:
    """A @ M for a tall, thin A (n, k) and a small M, without BLAS.

    Threaded BLAS is many times slower than plain broadcasting for these shapes on a busy
    machine, so every per-pixel product goes through here.
    """
    M = np.asarray(M)
    if M.ndim == 1:
        out = A[:, 0] * M[0]
        for i in range(1, len(M)):
            out = out + A[:, i] * M[i]
        return out
    out = A[:, 0:1] * M[0]
    for i in range(1, M.shape[0]):
        out = out + A[:, i:i + 1] * M[i]
    return out


def rot_axis(axis, angle: float) -> np.ndarray:
    """Rotation matrix of `angle` radians about `axis` (Rodrigues)."""
    a = np.asarray(axis, dtype=np.float64)
    a = a / np.linalg.norm(a)
    k = np.array([[0, -a[2], a[1]], [a[2], 0, -a[0]], [-a[1], a[0], 0]])
    return np.eye(3) + math.sin(angle) * k + (1 - math.cos(angle)) * (k @ k)


def rot_between(a, b) -> np.ndarray:
    """A rotation matrix taking unit vector `a` to unit vector `b`."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    v = np.cross(a, b)
    c = float(np.dot(a, b))
    if np.linalg.norm(v) < 1e-9:
        if c > 0:
            return np.eye(3)
        perp = np.cross(a, [1.0, 0, 0]) if abs(a[0]) < 0.9 else np.cross(a, [0, 1.0, 0])
        return rot_axis(perp, math.pi)
    return rot_axis(v, math.atan2(np.linalg.norm(v), c))


def rot_z(angle: float) -> np.ndarray:
    """Rotation about the world z axis."""
    c, s = math.cos(angle), math.sin(angle)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def sample(img: np.ndarray, mx: np.ndarray, my: np.ndarray, border=cv2.BORDER_REPLICATE):
    """Bilinear samples of `img` at float pixel positions (mx, my), any count: (n, channels)."""
    n = len(mx)
    cols = 1024
    rows = max(1, -(-n // cols))
    px = np.zeros(rows * cols, np.float32)
    py = np.zeros(rows * cols, np.float32)
    px[:n] = mx
    py[:n] = my
    out = cv2.remap(img, px.reshape(rows, cols), py.reshape(rows, cols), cv2.INTER_LINEAR,
                    borderMode=border)
    return out.reshape(rows * cols, -1)[:n]


def smoothstep(e0: float, e1: float, x):
    """Hermite smooth step of x between e0 and e1."""
    t = np.clip((x - e0) / (e1 - e0), 0.0, 1.0)
    return t * t * (3 - 2 * t)


def smooth_noise(rng, h: int, w: int, cell_y: float, cell_x: float | None = None) -> np.ndarray:
    """Zero-mean unit-variance value noise with feature sizes `cell_y` x `cell_x` pixels."""
    cell_x = cell_y if cell_x is None else cell_x
    cy, cx = max(cell_y, 1.0), max(cell_x, 1.0)
    gh, gw = int(math.ceil(h / cy)) + 3, int(math.ceil(w / cx)) + 3
    grid = rng.standard_normal((gh, gw)).astype(np.float32)
    big = cv2.resize(grid, (int(gw * cx), int(gh * cy)), interpolation=cv2.INTER_CUBIC)
    oy, ox = int(rng.integers(0, int(cy))), int(rng.integers(0, int(cx)))
    out = big[oy:oy + h, ox:ox + w]
    return (out - out.mean()) / (out.std() + 1e-6)


def fibres(rng, h: int, w: int, texel: float, length_cm: float, per_cm2: float) -> np.ndarray:
    """Random short strokes (light and dark) as a zero-mean float image: felt, paper fibres."""
    out = np.zeros((h, w), np.float32)
    n = int(min(h * w * texel * texel * per_cm2, 40000))
    if n < 1:
        return out
    for sign in (1.0, -1.0):
        m = n // 2
        x = rng.uniform(0, w, m)
        y = rng.uniform(0, h, m)
        ang = rng.uniform(0, math.pi, m)
        ln = rng.uniform(0.4, 1.0, m) * length_cm / texel
        bend = rng.normal(0, 0.3, m)
        p0 = np.stack([x, y], 1)
        p1 = p0 + 0.5 * np.stack([np.cos(ang), np.sin(ang)], 1) * ln[:, None]
        p2 = p1 + 0.5 * np.stack([np.cos(ang + bend), np.sin(ang + bend)], 1) * ln[:, None]
        pts = np.round(np.stack([p0, p1, p2], 1) * 4).astype(np.int32)
        layer = np.zeros((h, w), np.float32)
        cv2.polylines(layer, list(pts), False, 1.0, 1, cv2.LINE_AA, shift=2)
        out += sign * layer
    return cv2.GaussianBlur(out, (0, 0), 0.6)


# --------------------------------------------------------------------------------------------
# die shapes
# --------------------------------------------------------------------------------------------

class Shape:
    """A die body as a signed distance field in die units (cube edge 1, d12 face-to-face 1).

    Faces are indexed like `normals`; `opposite[i]` is the face opposite face i. `half` is the
    half size of the square texture tile laid on each face.
    """

    def __init__(self, kind: str, rounding: float):
        self.kind = kind
        if kind == "cube":
            self.normals = np.array([[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1],
                                     [0, 0, -1]], dtype=np.float64)
            self.opposite = np.array([1, 0, 3, 2, 5, 4])
            self.r = rounding
            self.b = 0.5 - rounding
            self.half = 0.5
            self.face_verts = None
        else:
            raw = []
            for s1 in (1, -1):
                for s2 in (1, -1):
                    # face centres of the dodecahedron whose vertices are listed below
                    raw += [(0, s1 * PHI, s2), (s2, 0, s1 * PHI), (s1 * PHI, s2, 0)]
            base = [v for v in raw if v[np.nonzero(v)[0][0]] > 0]
            base = normalize(np.array(base, dtype=np.float64))
            self.normals = np.concatenate([base, -base])
            self.opposite = np.array([(i + 6) % 12 for i in range(12)])
            verts = [(x, y, z) for x in (1, -1) for y in (1, -1) for z in (1, -1)]
            for s1 in (1, -1):
                for s2 in (1, -1):
                    verts += [(0, s1 / PHI, s2 * PHI), (s1 / PHI, s2 * PHI, 0),
                              (s2 * PHI, 0, s1 / PHI)]
            verts = np.array(verts, dtype=np.float64)
            inr = (verts @ self.normals[0]).max()
            verts *= 0.5 / inr
            self.face_verts = np.stack(
                [verts[np.argsort(-(verts @ n))[:5]] for n in self.normals])
            self.k = rounding
            edge = np.linalg.norm(verts[0] - verts[np.argsort(np.linalg.norm(
                verts - verts[0], axis=1))[1]])
            self.half = edge / (2 * math.sin(math.pi / 5))
        self.surface = self._surface_points(6000)
        self.bound = float(np.linalg.norm(self.surface, axis=1).max()) + 0.004

    def sdf(self, p: np.ndarray) -> np.ndarray:
        """Signed distance of points p (n, 3), in die units."""
        if self.kind == "cube":
            q = np.abs(p) - self.b
            qm = np.maximum(q, 0.0)
            qmax = np.maximum(np.maximum(q[:, 0], q[:, 1]), q[:, 2])
            return np.sqrt(dot3(qm, qm)) + np.minimum(qmax, 0.0) - self.r
        xs = [(mul(p, n) - 0.5) / self.k for n in self.normals]
        m = xs[0]
        for x in xs[1:]:
            m = np.maximum(m, x)
        tot = np.zeros_like(m)
        for x in xs:
            tot += np.exp(x - m)
        return self.k * (m + np.log(tot))

    def sdf_fast(self, p: np.ndarray) -> np.ndarray:
        """A cheap lower bound of `sdf` (the d12 without its rounding), safe for marching."""
        if self.kind == "cube":
            return self.sdf(p)
        m = mul(p, self.normals[0])
        for n in self.normals[1:]:
            m = np.maximum(m, mul(p, n))
        return m - 0.5

    def grad(self, p: np.ndarray) -> np.ndarray:
        """Unit outward normal (SDF gradient) at points p (n, 3)."""
        if self.kind == "cube":
            q = np.abs(p) - self.b
            qm = np.maximum(q, 0.0)
            ln = np.sqrt(dot3(qm, qm))
            g = np.sign(p) * qm / np.maximum(ln, 1e-9)[:, None]
            inner = ln < 1e-9
            if inner.any():
                ax = q[inner].argmax(-1)
                gi = np.zeros((int(inner.sum()), 3))
                gi[np.arange(len(ax)), ax] = np.sign(p[inner][np.arange(len(ax)), ax])
                g[inner] = gi
            return normalize(g)
        x = mul(p, self.normals.T) / self.k
        w = np.exp(x - x.max(-1, keepdims=True))
        return normalize(mul(w, self.normals))

    def face_id(self, p: np.ndarray) -> np.ndarray:
        """Index of the face each point p (n, 3) belongs to."""
        return mul(p, self.normals.T).argmax(-1)

    def _surface_points(self, n: int) -> np.ndarray:
        """About n points spread over the surface (Fibonacci directions, bisection)."""
        i = np.arange(n) + 0.5
        zc = 1 - 2 * i / n
        rr = np.sqrt(1 - zc * zc)
        ph = math.pi * (3 - math.sqrt(5)) * i
        dirs = np.stack([rr * np.cos(ph), rr * np.sin(ph), zc], 1)
        lo = np.zeros(n)
        hi = np.full(n, 1.2)
        for _ in range(40):
            mid = (lo + hi) / 2
            inside = self.sdf(dirs * mid[:, None]) < 0
            lo = np.where(inside, mid, lo)
            hi = np.where(inside, hi, mid)
        return dirs * lo[:, None]

    def lift_dirs(self, top: int) -> np.ndarray:
        """Directions (die units) from the bottom face centre towards which a cocked die lifts.

        For a cube these are the side-face normals (the die then rests on the opposite bottom
        edge); for a d12 the bottom pentagon's vertices (it rests on the opposite edge).
        """
        n = self.normals[top]
        if self.kind == "cube":
            return self.normals[np.abs(self.normals @ n) < 0.5]
        bot = self.opposite[top]
        v = self.face_verts[bot]
        v = v - np.outer(v @ self.normals[bot], self.normals[bot])
        return normalize(v)


# --------------------------------------------------------------------------------------------
# die models (one per (kind, colour) of the tower) and face artwork
# --------------------------------------------------------------------------------------------

@dataclass
class DieModel:
    """One physical kind of die of the tower: shape, size, material and face artwork."""

    kind: str
    colour: str
    shape: Shape
    scale: float                      # cm per die unit
    faces: list                       # face value per face index
    e1: np.ndarray                    # per face: tile x axis (die units)
    e2: np.ndarray                    # per face: tile "up" axis
    atlas: np.ndarray                 # (T, T * F, 4): ink, height, dh/de1, dh/de2
    ink_rgb: np.ndarray               # (F, 3) linear paint colour per face
    body: np.ndarray                  # linear body colour
    mat: dict = field(default_factory=dict)

    @property
    def tile(self) -> int:
        """Texture tile size in texels."""
        return self.atlas.shape[0]


def _pip_layout(value: int, o: float) -> list:
    """Pip centres (face units, y up) of a d6 face showing `value`."""
    c = [(0.0, 0.0)]
    d2 = [(-o, -o), (o, o)]
    d4 = [(-o, -o), (o, o), (-o, o), (o, -o)]
    return {1: c, 2: d2, 3: d2 + c, 4: d4, 5: d4 + c,
            6: d4 + [(-o, 0.0), (o, 0.0)]}[value]


def _tile_grid(T: int, half: float):
    """Face-unit coordinates (a right, b up) of the texel centres of a T x T tile."""
    g = ((np.arange(T) + 0.5) / T - 0.5) * 2 * half
    return np.meshgrid(g, -g)


def _canvas_to_tile(canvas: np.ndarray, T: int) -> np.ndarray:
    """Centre the artwork of a big 8-bit canvas and area-downsample it to a T x T alpha."""
    ys, xs = np.nonzero(canvas > 40)
    if len(xs):
        C = canvas.shape[0]
        dx = C / 2 - (xs.min() + xs.max() + 1) / 2
        dy = C / 2 - (ys.min() + ys.max() + 1) / 2
        m = np.float32([[1, 0, dx], [0, 1, dy]])
        canvas = cv2.warpAffine(canvas, m, (C, C), flags=cv2.INTER_LINEAR)
    return cv2.resize(canvas, (T, T), interpolation=cv2.INTER_AREA).astype(np.float32) / 255.0


def _draw_numeral(rng, text: str, C: int, half: float, style: dict) -> np.ndarray:
    """Draw a d12 numeral (with its 6/9 mark) on a C x C canvas covering +-half face units."""
    canvas = np.zeros((C, C), np.uint8)
    px = C / (2 * half)
    h_px = style["height"] * px * (0.84 if len(text) == 2 else 1.0)
    font = style["font"]
    (_, th), _ = cv2.getTextSize(text, font, 1.0, 1)
    scale = h_px / max(th, 1)
    thick = max(1, int(round(style["weight"] * h_px)))
    (tw, th), _ = cv2.getTextSize(text, font, scale, thick)
    max_w = style["max_width"] * px
    if tw > max_w:
        scale *= max_w / tw
        thick = max(1, int(round(thick * max_w / tw)))
        (tw, th), _ = cv2.getTextSize(text, font, scale, thick)
    org = (int(C / 2 - tw / 2), int(C / 2 + th / 2))
    cv2.putText(canvas, text, org, font, scale, 255, thick, cv2.LINE_AA)
    if text in ("6", "9"):
        if style["mark"] == "underline":
            y = int(org[1] + max(thick, 0.12 * th) + 0.08 * th)
            cv2.line(canvas, (int(C / 2 - tw * 0.42), y), (int(C / 2 + tw * 0.42), y), 255,
                     max(1, int(thick * 0.9)), cv2.LINE_AA)
        else:
            r = max(2, int(thick * 0.75))
            cv2.circle(canvas, (int(org[0] + tw + r + 0.1 * th), int(org[1] - r)), r, 255, -1,
                       cv2.LINE_AA)
    return canvas


def _symbol_polys(name: str, rng, style: dict) -> list:
    """Polygons (face units, y up) of a KOTD symbol, as (points, value) pairs; value 0 cuts."""
    sz = style["size"]
    out = []
    if name == "CLAW":
        for i in (-1, 0, 1):
            t = np.linspace(0, 1, 14)
            x0 = i * 0.42 * sz
            cx = x0 - 0.32 * sz + 0.64 * sz * t + style["claw_bend"] * sz * np.sin(math.pi * t)
            cy = 0.92 * sz - 1.84 * sz * t + 0.06 * i * sz
            dx, dy = np.gradient(cx), np.gradient(cy)
            nrm = np.stack([-dy, dx], 1)
            nrm /= np.linalg.norm(nrm, axis=1, keepdims=True)
            wdt = 0.16 * sz * np.sin(math.pi * np.clip(t * 1.05, 0, 1)) ** 0.6 + 0.01 * sz
            left = np.stack([cx, cy], 1) + nrm * wdt[:, None]
            right = np.stack([cx, cy], 1) - nrm * wdt[:, None]
            out.append((np.concatenate([left, right[::-1]]), 1))
    elif name == "HEART":
        t = np.linspace(0, 2 * math.pi, 80, endpoint=False)
        x = 16 * np.sin(t) ** 3
        y = 13 * np.cos(t) - 5 * np.cos(2 * t) - 2 * np.cos(3 * t) - np.cos(4 * t)
        k = sz / 16.5
        pts = np.stack([x * k, (y + 2.5) * k], 1)
        out.append((pts, 1))
        if style["outline"]:
            out.append((pts * 0.62, 0))
    elif name == "ENERGY":
        p = np.array([(0.05, 1.0), (-0.45, -0.1), (-0.02, -0.1), (-0.25, -1.0), (0.45, 0.18),
                      (0.02, 0.18), (0.35, 1.0)])
        out.append((p * sz, 1))
    elif name == "FAME":
        a = math.pi / 2 + np.arange(10) * math.pi / 5
        r = np.where(np.arange(10) % 2 == 0, sz, sz * style["star_inner"])
        out.append((np.stack([r * np.cos(a), r * np.sin(a) - 0.05 * sz], 1), 1))
    elif name == "DESTRUCTION":
        n = style["spikes"]
        a = np.sort(rng.uniform(0, 2 * math.pi, n))
        a = a * 0.4 + (np.arange(n) * 2 * math.pi / n + rng.uniform(0, 1)) * 0.6
        pts = []
        for i in range(n):
            a0, a1 = a[i], a[(i + 1) % n] + (2 * math.pi if i == n - 1 else 0)
            tip = sz * rng.uniform(0.75, 1.0)
            pts.append((tip * math.cos(a0), tip * math.sin(a0)))
            mid = (a0 + a1) / 2
            r_in = sz * rng.uniform(0.32, 0.45)
            pts.append((r_in * math.cos(mid), r_in * math.sin(mid)))
        pts = np.array(pts)
        out.append((pts, 1))
        if style["burst_hole"]:
            out.append((pts * 0.45, 0))
    elif name == "POWER":
        n = style["rays"]
        for i in range(n):
            a = 2 * math.pi * i / n
            c, s_ = math.cos(a), math.sin(a)
            w = 0.09 * sz
            r0, r1 = 0.6 * sz, 0.98 * sz
            out.append((np.array([(r0 * c - w * s_, r0 * s_ + w * c), (r1 * c - w * s_,
                                                                      r1 * s_ + w * c),
                                  (r1 * c + w * s_, r1 * s_ - w * c),
                                  (r0 * c + w * s_, r0 * s_ - w * c)]), 1))
        t = np.linspace(0, 2 * math.pi, 48, endpoint=False)
        out.append((np.stack([np.cos(t), np.sin(t)], 1) * 0.42 * sz, 1))
        if style["fist"]:
            for j in (-1, 0, 1):
                x = j * 0.14 * sz
                out.append((np.array([(x - 0.02 * sz, -0.22 * sz), (x + 0.02 * sz, -0.22 * sz),
                                      (x + 0.02 * sz, 0.12 * sz), (x - 0.02 * sz, 0.12 * sz)]),
                            0))
    return out


def _draw_symbol(rng, name: str, C: int, half: float, style: dict) -> np.ndarray:
    """Draw a KOTD face symbol on a C x C canvas covering +-half face units."""
    canvas = np.zeros((C, C), np.uint8)
    px = C / (2 * half)
    for pts, val in _symbol_polys(name, rng, style):
        q = np.stack([C / 2 + pts[:, 0] * px, C / 2 - pts[:, 1] * px], 1)
        cv2.fillPoly(canvas, [np.round(q * 16).astype(np.int32)], 255 * val, cv2.LINE_AA,
                     shift=4)
    return canvas


def make_die_model(kind: str, colour: str, rng, tile: int = 128) -> DieModel:
    """Create one physical die design of `kind` and `colour` with randomised details."""
    T = tile
    if kind == "d12":
        shape = Shape("d12", rng.uniform(0.010, 0.028))
        scale = rng.uniform(1.6, 2.1)
        first = list(rng.permutation(np.arange(1, 7)))
        faces = [None] * 12
        for i, v in enumerate(first):
            a, b = (v, 13 - v) if rng.random() < 0.5 else (13 - v, v)
            faces[i], faces[i + 6] = str(a), str(b)
    else:
        shape = Shape("cube", rng.uniform(0.06, 0.2))
        if kind == "d6pips":
            scale = float(np.clip(rng.normal(1.6, 0.18), 1.2, 1.95))
            pairs = [("1", "6"), ("2", "5"), ("3", "4")]
        else:
            scale = rng.uniform(1.6, 2.1)
            perm = [str(x) for x in rng.permutation(KOTD_FACES)]
            pairs = [(perm[0], perm[1]), (perm[2], perm[3]), (perm[4], perm[5])]
        order = rng.permutation(3)
        faces = [None] * 6
        for ax, pi in enumerate(order):
            a, b = pairs[pi] if rng.random() < 0.5 else pairs[pi][::-1]
            faces[2 * ax], faces[2 * ax + 1] = a, b
    nf = len(faces)

    # face axes: e2 ("up" of the artwork) towards an edge or a vertex, e1 = e2 x n
    e1 = np.zeros((nf, 3))
    e2 = np.zeros((nf, 3))
    for f in range(nf):
        n = shape.normals[f]
        if shape.kind == "cube":
            ref = np.array([0.0, 0, 1]) if abs(n[2]) < 0.5 else np.array([1.0, 0, 0])
            ang = rng.integers(4) * math.pi / 2
        else:
            v = shape.face_verts[f][0]
            ref = v - np.dot(v, n) * n
            ang = rng.integers(10) * math.pi / 5
        ref = ref / np.linalg.norm(ref)
        up = rot_axis(n, ang) @ ref
        e2[f] = up
        e1[f] = np.cross(up, n)

    # colours and material
    body = jitter_colour(rng, DIE_COLOURS[colour], 8)
    light_body = colour in LIGHT_BODIES
    ink_name = str(rng.choice(INK_CHOICES[colour]))
    ink = jitter_colour(rng, INKS[ink_name], 6)
    # faint paint only on pips: their engraving still shows them
    low_contrast = kind == "d6pips" and rng.random() < 0.12
    if low_contrast:
        ink = body + (ink - body) * rng.uniform(0.5, 0.7)
    ink_rgb = np.tile(ink, (nf, 1))

    r = rng.random()
    finish = "glossy" if r < 0.45 else ("satin" if r < 0.75 else "matte")
    mat = {
        "spec_k": {"glossy": rng.uniform(0.04, 0.065), "satin": rng.uniform(0.03, 0.045),
                   "matte": rng.uniform(0.02, 0.035)}[finish],
        "spec_exp": {"glossy": rng.uniform(120, 500), "satin": rng.uniform(40, 100),
                     "matte": rng.uniform(8, 20)}[finish],
        "refl": {"glossy": rng.uniform(0.6, 1.0), "satin": rng.uniform(0.25, 0.5),
                 "matte": 0.08}[finish],
        "finish": finish, "marble": 0.0, "pearl": 0.0, "trans": 0.0,
    }
    effect = rng.choice(["plain", "plain", "plain", "marble", "pearl", "translucent", "worn"],
                        p=[0.22, 0.2, 0.18, 0.14, 0.1, 0.1, 0.06])
    if effect == "marble":
        # swirls lighter or darker than the body, on the side away from the paint, so that the
        # faces stay readable
        mat["marble"] = rng.uniform(0.35, 0.7)
        if luminance(ink) > luminance(body):
            mat["body2"] = body * rng.uniform(0.25, 0.5)
        else:
            mat["body2"] = body + (np.array([0.9, 0.88, 0.85]) - body) * rng.uniform(0.35, 0.65)
        mat["marble_dirs"] = normalize(rng.normal(size=(4, 3)))
        mat["marble_freq"] = rng.uniform(3, 9, 4)
        mat["marble_amp"] = rng.uniform(1.5, 4)
        mat["marble_sharp"] = rng.uniform(1.5, 5)
    elif effect == "pearl":
        mat["pearl"] = rng.uniform(0.04, 0.1)
        mat["refl"] = max(mat["refl"], 0.4)
    elif effect == "translucent" and colour != "black":
        mat["trans"] = rng.uniform(0.3, 0.6)
        mat["spec_k"] = max(mat["spec_k"], 0.05)
        mat["spec_exp"] = max(mat["spec_exp"], 150)
        mat["refl"] = max(mat["refl"], 0.6)
        mat["finish"] = "glossy"
    wear = rng.uniform(0.25, 0.45) if effect == "worn" else (rng.uniform(0, 0.2)
                                                           if rng.random() < 0.3 else 0.0)

    # face artwork
    half = shape.half
    texel = 2 * half / T
    atlas = np.zeros((T, T * nf, 4), np.float32)
    C = 4 * T
    aa, bb = _tile_grid(T, half)
    if kind == "d6pips":
        rp = rng.uniform(0.085, 0.115)
        off = min(rng.uniform(0.24, 0.28), 0.5 - 0.8 * shape.r - rp - 0.02)
        rp = min(rp, off / 2.4)
        depth = rng.uniform(0.03, 0.07)
        big_one = light_body and rng.random() < 0.3
        if big_one and ink_name != "red" and not low_contrast:
            ink_rgb[faces.index("1")] = jitter_colour(rng, INKS["red"], 6)
        style = {"rp": rp, "off": off, "depth": depth, "big_one": big_one}
    elif kind == "d12":
        fonts = [cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_COMPLEX,
                 cv2.FONT_HERSHEY_TRIPLEX, cv2.FONT_HERSHEY_PLAIN]
        font = int(rng.choice(fonts))
        if rng.random() < 0.15:
            font |= cv2.FONT_ITALIC
        style = {"font": font, "height": rng.uniform(0.33, 0.38),
                 "weight": rng.uniform(0.13, 0.2), "max_width": 0.58,
                 "mark": rng.choice(["underline", "dot"]), "depth": rng.uniform(0.0, 0.025)}
    else:
        style = {"size": min(rng.uniform(0.3, 0.37), 0.5 - shape.r - 0.05),
                 "claw_bend": rng.uniform(-0.12, 0.12), "outline": rng.random() < 0.2,
                 "star_inner": rng.uniform(0.38, 0.5), "spikes": int(rng.integers(7, 11)),
                 "burst_hole": rng.random() < 0.4, "rays": int(rng.choice([8, 8, 10])),
                 "fist": rng.random() < 0.4, "depth": rng.uniform(0.0, 0.03)}
        if colour in ("white", "ivory", "yellow") and rng.random() < 0.25:
            ink_rgb[faces.index("HEART")] = jitter_colour(rng, INKS["red"], 6)
    for f, val in enumerate(faces):
        if kind == "d6pips":
            ink_a = np.zeros((T, T), np.float32)
            hgt = np.zeros((T, T), np.float32)
            big = style["big_one"] and val == "1"
            rad = style["rp"] * (rng.uniform(1.7, 2.1) if big else 1.0)
            for (pa, pb) in _pip_layout(int(val), style["off"]):
                d = np.hypot(aa - pa, bb - pb)
                ink_a = np.maximum(ink_a, np.clip((rad * 0.97 - d) / texel + 0.5, 0, 1))
                cap = np.sqrt(np.clip(1 - (d / rad) ** 2, 0, 1))
                hgt = np.minimum(hgt, -style["depth"] * (1.3 if big else 1.0) * cap)
            hgt = cv2.GaussianBlur(hgt, (0, 0), 0.7)
        else:
            if kind == "d12":
                canvas = _draw_numeral(rng, val, C, half, style)
            else:
                canvas = _draw_symbol(rng, val, C, half, style)
            ink_a = _canvas_to_tile(canvas, T)
            hgt = -style["depth"] * cv2.GaussianBlur(ink_a, (0, 0), 0.8)
        if wear > 0:
            wmask = smooth_noise(rng, T, T, T / rng.uniform(6, 14)) + 0.5 * smooth_noise(
                rng, T, T, 2.0)
            ink_a = ink_a * (1 - wear * smoothstep(0.3, 1.2, wmask))
        hgt = hgt.astype(np.float32)
        gx = cv2.Sobel(hgt, cv2.CV_32F, 1, 0, ksize=3) / (8 * texel)
        gy = cv2.Sobel(hgt, cv2.CV_32F, 0, 1, ksize=3) / (8 * texel)
        atlas[:, f * T:(f + 1) * T] = np.stack([ink_a, hgt, gx, -gy], -1)
    mat["cavity"] = 1.0 / max(style.get("depth", 0.03), 0.02) if kind == "d6pips" else 20.0
    return DieModel(kind, colour, shape, scale, faces, e1, e2, atlas, ink_rgb, body, mat)


@dataclass
class DieInstance:
    """A die of the tray: its model, pose (local-to-world rotation R, centre c) and flags."""

    model: DieModel
    R: np.ndarray
    c: np.ndarray
    tilted: bool = False
    offset: np.ndarray = field(default_factory=lambda: np.zeros(3))

    @property
    def s(self) -> float:
        """Die scale in cm per die unit."""
        return self.model.scale

    def to_local(self, P: np.ndarray) -> np.ndarray:
        """World points (n, 3) to die units."""
        return mul(P - self.c, self.R) / self.s

    def world_points(self, step: int = 1) -> np.ndarray:
        """The die's sampled surface points in world coordinates."""
        return self.c + self.s * mul(self.model.shape.surface[::step], self.R.T)

    def top_face(self) -> int:
        """Index of the face whose outward normal points most upward."""
        return int(((self.R @ self.model.shape.normals.T)[2]).argmax())


# --------------------------------------------------------------------------------------------
# camera
# --------------------------------------------------------------------------------------------

class Camera:
    """Pinhole camera with polynomial radial distortion, looking down at the tray.

    Distortion is defined from distorted to ideal normalised coordinates,
    r_u = r_d (1 + k1 r_d^2 + k2 r_d^4), so every pixel's ray is exact; projecting a point
    inverts it with Newton steps.
    """

    def __init__(self, W, H, f, cx, cy, k1, k2, Rcw, origin):
        self.W, self.H, self.f, self.cx, self.cy = W, H, f, cx, cy
        self.k1, self.k2 = k1, k2
        self.Rcw = Rcw                   # rows: camera right, down, forward in world coordinates
        self.O = origin

    def rays(self, ss: int) -> np.ndarray:
        """Unit world ray directions (H*ss, W*ss, 3) of the supersampled pixel grid."""
        u = (np.arange(self.W * ss) + 0.5) / ss - 0.5
        v = (np.arange(self.H * ss) + 0.5) / ss - 0.5
        xd, yd = np.meshgrid((u - self.cx) / self.f, (v - self.cy) / self.f)
        r2 = xd * xd + yd * yd
        k = 1 + self.k1 * r2 + self.k2 * r2 * r2
        d = mul(np.stack([xd * k, yd * k, np.ones_like(xd)], -1).reshape(-1, 3), self.Rcw)
        return normalize(d).reshape(len(v), len(u), 3).astype(np.float32)

    def project(self, P: np.ndarray) -> np.ndarray:
        """Pixel coordinates (n, 2) of world points (n, 3); pixel centres are integers."""
        pc = mul(np.atleast_2d(P) - self.O, self.Rcw.T)
        xu, yu = pc[:, 0] / pc[:, 2], pc[:, 1] / pc[:, 2]
        ru = np.hypot(xu, yu)
        rd = ru.copy()
        for _ in range(12):
            r2 = rd * rd
            g = rd * (1 + self.k1 * r2 + self.k2 * r2 * r2) - ru
            rd = rd - g / (1 + 3 * self.k1 * r2 + 5 * self.k2 * r2 * r2)
        sc = np.where(ru > 1e-12, rd / np.maximum(ru, 1e-12), 1.0)
        return np.stack([self.f * xu * sc + self.cx, self.f * yu * sc + self.cy], 1)


# --------------------------------------------------------------------------------------------
# tray surface textures
# --------------------------------------------------------------------------------------------

def make_texture(spec: dict, rng, h: int, w: int, texel: float):
    """Albedo (h, w, 3) linear and height (h, w) in cm for a surface material `spec`."""
    kind = spec["kind"]
    base = spec["base"]
    hgt = np.zeros((h, w), np.float32)
    if kind == "felt":
        mott = 0.06 * smooth_noise(rng, h, w, 4 / texel) + 0.04 * smooth_noise(rng, h, w,
                                                                             0.8 / texel)
        fib = fibres(rng, h, w, texel, 0.3, 25)
        fine = cv2.GaussianBlur(rng.standard_normal((h, w)).astype(np.float32), (0, 0), 0.7)
        lum = 1 + mott + 0.25 * fib + 0.06 * fine
        hgt = 0.004 * fine + 0.01 * fib
        alb = base[None, None] * lum[..., None]
    elif kind == "leather":
        cell = spec["cell"] / texel
        lum = 1 + 0.05 * smooth_noise(rng, h, w, 3 / texel)
        if cell > 1.5:
            npts = int(h * w / (cell * cell))
            img = np.full((h, w), 255, np.uint8)
            img[rng.integers(0, h, npts), rng.integers(0, w, npts)] = 0
            dist = cv2.distanceTransform(img, cv2.DIST_L2, 3)
            bump = np.clip(1 - dist / (0.75 * cell), 0, 1) ** 0.7
            lum = lum + 0.1 * bump
            hgt = 0.02 * bump.astype(np.float32)
        else:
            lum = lum + 0.05 * rng.standard_normal((h, w))
        crease = np.abs(smooth_noise(rng, h, w, 2.5 / texel))
        crease = (1 - smoothstep(0.0, 0.05, crease)) * smoothstep(
            0.2, 1.2, smooth_noise(rng, h, w, 1.5 / texel))
        lum = lum - 0.07 * crease
        hgt = hgt - 0.01 * crease
        alb = base[None, None] * lum[..., None]
    elif kind in ("rubber", "playmat"):
        speck = cv2.GaussianBlur(rng.standard_normal((h, w)).astype(np.float32), (0, 0), 0.6)
        lum = 1 + 0.07 * speck + 0.03 * smooth_noise(rng, h, w, 5 / texel)
        alb = base[None, None] * lum[..., None]
        hgt = 0.003 * speck
        if kind == "playmat":
            alb = _print_playmat(rng, alb, texel, spec)
    elif kind == "cloth":
        alb, hgt = _cloth(rng, h, w, texel, spec)
    elif kind == "paper":
        fib = fibres(rng, h, w, texel, 0.15, 40)
        lum = 1 + 0.04 * smooth_noise(rng, h, w, 6 / texel) + 0.05 * fib
        alb = base[None, None] * lum[..., None]
        lines = spec.get("lines")
        if lines:
            y = np.arange(h)[:, None] * texel
            x = np.arange(w)[None, :] * texel
            ink = srgb_to_lin(spec["line_rgb"])
            d = np.abs((y % lines) - lines / 2)
            a = np.clip(1 - (lines / 2 - d) / max(texel, 0.012), 0, 1)
            if spec.get("grid"):
                dx = np.abs((x % lines) - lines / 2)
                a = np.maximum(a, np.clip(1 - (lines / 2 - dx) / max(texel, 0.012), 0, 1))
            a = a * 0.6 * min(1.0, 0.012 / texel)
            alb = alb * (1 - a[..., None]) + ink * a[..., None]
        hgt = 0.002 * fib
    elif kind == "wood":
        alb, hgt = _wood(rng, h, w, texel, spec)
    else:  # laminate / plastic
        lum = 1 + 0.015 * smooth_noise(rng, h, w, 2 / texel) + 0.01 * rng.standard_normal((h, w))
        alb = base[None, None] * lum[..., None]
        if spec.get("print"):
            wd, _ = _wood(rng, h, w, texel, {"light": base * 1.1, "dark": base * 0.8,
                                             "spacing": 0.5, "planks": 0})
            alb = 0.5 * alb + 0.5 * wd
    return np.clip(alb, 0.002, 0.92).astype(np.float32), hgt.astype(np.float32)


def _wood(rng, h: int, w: int, texel: float, spec: dict):
    """Wood: growth rings along x warped by stretched noise, pores, optional plank seams."""
    y = np.arange(h, dtype=np.float32)[:, None] * texel
    warp = (smooth_noise(rng, h, w, 2.0 / texel, 14 / texel) * 0.8
            + smooth_noise(rng, h, w, 0.4 / texel, 4 / texel) * 0.15)
    spacing = spec["spacing"]
    plank = spec.get("planks", 0)
    yy = y + warp * spacing * 2.2
    if plank:
        idx = np.floor(y / plank)
        yy = yy + (idx * 7.31 % 1.0) * 13.0
    ring = (yy / spacing) % 1.0
    late = ring ** rng.uniform(2.5, 5)
    pores = smooth_noise(rng, h, w, 0.03 / texel, 0.8 / texel)
    tone = np.clip(0.55 * late + 0.08 * pores + 0.15 * smooth_noise(rng, h, w, 3 / texel,
                                                                    30 / texel) + 0.3, 0, 1)
    light, dark = spec["light"], spec["dark"]
    alb = light[None, None] * (1 - tone[..., None]) + dark[None, None] * tone[..., None]
    hgt = 0.002 * pores - 0.001 * late
    if plank:
        d = np.abs((y % plank) - plank / 2)
        seam = np.clip(1 - (plank / 2 - d) / max(texel * 1.2, 0.03), 0, 1)
        alb = alb * (1 - 0.6 * seam[..., None])
        hgt = hgt - 0.05 * seam
    return alb, np.broadcast_to(hgt, (h, w)).astype(np.float32)


def _cloth(rng, h: int, w: int, texel: float, spec: dict):
    """Woven cloth: thread pattern when resolvable, checks or stripes, soft folds."""
    y = np.arange(h, dtype=np.float32)[:, None] * texel
    x = np.arange(w, dtype=np.float32)[None, :] * texel
    sp = spec["thread"]
    base = spec["base"]
    if sp / texel >= 2.2:
        a = np.sin(math.pi * x / sp) ** 2
        b = np.sin(math.pi * y / sp) ** 2
        chk = ((np.floor(x / sp) + np.floor(y / sp)) % 2).astype(np.float32)
        weave = chk * a + (1 - chk) * b
    else:
        weave = 0.5 + 0.3 * rng.standard_normal((h, w)).astype(np.float32)
    lum = 0.88 + 0.2 * weave + 0.04 * smooth_noise(rng, h, w, 2 / texel)
    alb = np.broadcast_to(base, (h, w, 3)).copy()
    pat = spec.get("pattern")
    if pat:
        period = spec["period"]
        sx = ((x % period) < period / 2).astype(np.float32)
        sy = ((y % period) < period / 2).astype(np.float32)
        blur = max(0.6, 0.02 / texel)
        sx = cv2.GaussianBlur(np.broadcast_to(sx, (h, w)).copy(), (0, 0), blur)
        sy = cv2.GaussianBlur(np.broadcast_to(sy, (h, w)).copy(), (0, 0), blur)
        second = spec["second"]
        if pat == "gingham":
            m = (sx + sy) / 2
        else:
            m = sx * 0.8
        alb = alb * (1 - m[..., None]) + second[None, None] * m[..., None]
    alb = alb * lum[..., None]
    folds = smooth_noise(rng, h, w, 9 / texel)
    hgt = 0.5 * spec["folds"] * folds + 0.004 * weave
    return alb, hgt.astype(np.float32)


def _print_playmat(rng, alb: np.ndarray, texel: float, spec: dict) -> np.ndarray:
    """Print artwork on a rubber play mat: colour regions, a square or hex grid, circles."""
    h, w = alb.shape[:2]
    pal = [srgb_to_lin(c) for c in spec["palette"]]
    n = smooth_noise(rng, h, w, spec["art_scale"] / texel)
    edges = np.quantile(n, np.linspace(0, 1, len(pal) + 1)[1:-1])
    idx = np.digitize(n, edges)
    art = np.zeros((h, w, 3), np.float32)
    for i, c in enumerate(pal):
        art[idx == i] = c
    art = cv2.GaussianBlur(art, (0, 0), max(0.8, 0.05 / texel))
    art *= (1 + 0.08 * smooth_noise(rng, h, w, 1.5 / texel))[..., None]
    out = art * (0.85 + 0.15 * alb / max(float(alb.mean()), 1e-4))
    y = np.arange(h, dtype=np.float32)[:, None] * texel
    x = np.arange(w, dtype=np.float32)[None, :] * texel
    g = spec["grid"]
    lw = max(texel, 0.03)
    if spec["grid_kind"] == "square":
        d = np.minimum(np.abs((x % g) - g / 2), np.abs((y % g) - g / 2))
        line = np.clip(1 - (g / 2 - d) / lw, 0, 1)
    else:
        line = np.zeros((h, w), np.float32)
        for ang in (0.0, math.pi / 3, 2 * math.pi / 3):
            p = x * math.cos(ang) + y * math.sin(ang)
            d = np.abs((p % g) - g / 2)
            line = np.maximum(line, np.clip(1 - (g / 2 - d) / lw, 0, 1) * 0.8)
    ink = srgb_to_lin(spec["grid_rgb"])
    a = line * spec["grid_alpha"]
    out = out * (1 - a[..., None]) + ink * a[..., None]
    canvas = np.zeros((h, w), np.uint8)
    for _ in range(int(rng.integers(0, 4))):
        c = (int(rng.integers(0, w)), int(rng.integers(0, h)))
        r = int(rng.uniform(3, 12) / texel)
        cv2.circle(canvas, c, r, 255, max(1, int(0.25 / texel)), cv2.LINE_AA)
    a = canvas.astype(np.float32) / 255 * 0.7
    return out * (1 - a[..., None]) + (out * 0.3 + 0.4 * ink) * a[..., None]


def random_surface(rng, role: str, dice_colours: list) -> dict:
    """Pick a material description for the tray floor, walls, table or a bare desk."""
    if role == "floor_box":
        kind = rng.choice(["felt", "leather", "rubber", "cloth", "wood", "playmat"],
                          p=[0.42, 0.16, 0.12, 0.12, 0.1, 0.08])
    elif role == "floor_mat":
        kind = rng.choice(["rubber", "playmat", "cloth", "paper", "felt"],
                          p=[0.3, 0.32, 0.14, 0.12, 0.12])
    elif role == "desk":
        kind = rng.choice(["wood", "laminate", "paper", "cloth"], p=[0.45, 0.35, 0.1, 0.1])
    elif role == "wall":
        kind = rng.choice(["wood", "plastic", "leather", "felt"], p=[0.45, 0.25, 0.2, 0.1])
    elif role == "edge":
        kind = "plastic"
    else:
        kind = rng.choice(["wood", "laminate"], p=[0.6, 0.4])
    spec = {"kind": str(kind), "spec_k": 0.0, "spec_exp": 10.0, "bump": 1.0}
    if kind == "felt":
        spec["base"] = jitter_colour(rng, FELT[rng.integers(len(FELT))], 8)
    elif kind == "leather":
        spec["base"] = jitter_colour(rng, LEATHER[rng.integers(len(LEATHER))], 8)
        spec.update(cell=rng.uniform(0.06, 0.14), spec_k=rng.uniform(0.03, 0.05),
                    spec_exp=rng.uniform(10, 25))
    elif kind in ("rubber", "playmat"):
        spec["base"] = jitter_colour(rng, RUBBER[rng.integers(len(RUBBER))], 6)
        spec.update(spec_k=rng.uniform(0.02, 0.04), spec_exp=rng.uniform(6, 14))
        if kind == "playmat":
            npal = int(rng.integers(2, 5))
            hue_base = rng.uniform(0, 180)
            pal = []
            for _ in range(npal):
                hsv = np.uint8([[[int((hue_base + rng.normal(0, 20)) % 180),
                                  int(rng.uniform(60, 200)), int(rng.uniform(50, 200))]]])
                pal.append(tuple(int(v) for v in cv2.cvtColor(hsv, cv2.COLOR_HSV2RGB)[0, 0]))
            spec.update(palette=pal, art_scale=rng.uniform(4, 15),
                        grid=rng.choice([2.54, 3.0, 3.8, 5.0]),
                        grid_kind=rng.choice(["square", "hex"]),
                        grid_rgb=(20, 20, 20) if rng.random() < 0.6 else (235, 235, 230),
                        grid_alpha=rng.uniform(0.3, 0.7))
    elif kind == "cloth":
        spec["base"] = jitter_colour(rng, CLOTH[rng.integers(len(CLOTH))], 8)
        spec.update(thread=rng.uniform(0.04, 0.12), folds=rng.uniform(0.0, 0.4),
                    pattern=rng.choice([None, None, "gingham", "stripes"]),
                    period=rng.uniform(0.6, 2.5),
                    second=jitter_colour(rng, CLOTH[rng.integers(len(CLOTH))], 8))
    elif kind == "paper":
        spec["base"] = jitter_colour(rng, PAPER[rng.integers(len(PAPER))], 5)
        r = rng.random()
        spec.update(lines=(0.5 if r < 0.3 else (0.8 if r < 0.5 else None)), grid=r < 0.3,
                    line_rgb=(120, 150, 200) if rng.random() < 0.7 else (150, 150, 150))
    elif kind == "wood":
        light, dark = WOODS[rng.integers(len(WOODS))]
        spec.update(light=jitter_colour(rng, light, 6), dark=jitter_colour(rng, dark, 6),
                    spacing=rng.uniform(0.2, 0.6), base=srgb_to_lin(light),
                    planks=rng.choice([0, 0, rng.uniform(8, 16)]) if role != "wall" else 0,
                    spec_k=rng.uniform(0.02, 0.05), spec_exp=rng.uniform(15, 60))
    elif kind == "laminate":
        spec["base"] = jitter_colour(rng, LAMINATE[rng.integers(len(LAMINATE))], 5)
        spec.update(spec_k=rng.uniform(0.03, 0.06), spec_exp=rng.uniform(30, 120),
                    print=rng.random() < 0.3)
    else:  # plastic
        spec["base"] = jitter_colour(rng, PLASTIC[rng.integers(len(PLASTIC))], 5)
        spec.update(spec_k=rng.uniform(0.04, 0.06), spec_exp=rng.uniform(20, 80))
        if role == "edge":
            spec["base"] = jitter_colour(rng, (30, 30, 32), 4)
    if role.startswith("floor") and kind in ("felt", "cloth", "rubber") and dice_colours \
            and rng.random() < 0.2:
        spec["base"] = jitter_colour(rng, DIE_COLOURS[dice_colours[rng.integers(
            len(dice_colours))]], 12) * rng.uniform(0.6, 1.0)
    return spec


# --------------------------------------------------------------------------------------------
# lights
# --------------------------------------------------------------------------------------------

@dataclass
class Light:
    """A point or directional light; `rgb` is its colour times intensity at the tray centre."""

    kind: str
    rgb: np.ndarray
    alpha: float                      # angular radius (radians) as seen from the tray
    pos: np.ndarray | None = None
    dir: np.ndarray | None = None     # unit vector towards a directional light
    ref_d2: float = 1.0
    ring: bool = False                # a ring light around the lens: ring-shaped highlights

    def towards(self, P: np.ndarray):
        """Unit vectors from points P (n, 3) to the light and the irradiance colour there."""
        if self.kind == "dir":
            L = np.broadcast_to(self.dir, P.shape).astype(P.dtype)
            return L, np.broadcast_to(self.rgb, P.shape).astype(P.dtype)
        v = self.pos - P
        d2 = dot3(v, v)[..., None]
        return v / np.sqrt(d2), (self.rgb * (self.ref_d2 / d2)).astype(P.dtype)


# --------------------------------------------------------------------------------------------
# the tower
# --------------------------------------------------------------------------------------------

def _slab(org, D, lo, hi):
    """Ray-box slab test; returns entry t, exit t and the entry axis per ray."""
    Ds = np.where(np.abs(D) < 1e-9, 1e-9, D)
    t1 = (lo - org) / Ds
    t2 = (hi - org) / Ds
    tn = np.minimum(t1, t2)
    tf = np.maximum(t1, t2)
    return tn.max(-1), tf.min(-1), tn.argmax(-1)


class Tower:
    """A seed's camera, tray, lights and dice set, and the renderer of its images."""

    def __init__(self, seed: int, width: int, height: int, quiet: bool = True):
        self.seed = seed
        self.W, self.H = width, height
        self.quiet = quiet
        rng = self.rng("tower")
        self.models = self._make_dice_set(rng)
        self._make_camera(rng)
        self._make_tray(rng)
        self._make_lights(rng)
        self._make_sensor(rng)
        self._render_background(self.rng("background"))
        self._calibrate_exposure()

    # ---- set-up ---------------------------------------------------------------------------

    def rng(self, *key) -> np.random.Generator:
        """An independent deterministic random stream named by `key`."""
        words = [self.seed % (2 ** 63)] + [zlib.crc32(str(k).encode()) for k in key]
        return np.random.default_rng(words)

    def _make_dice_set(self, rng) -> list:
        """Choose 2-4 (kind, colour) pairs and build their die models."""
        n = int(rng.choice([2, 3, 4], p=[0.15, 0.45, 0.4]))
        if n >= 3 and rng.random() < 0.9:
            kinds = list(KINDS) + list(rng.choice(KINDS, n - 3))
        elif n == 2 and rng.random() < 0.8:
            kinds = list(rng.choice(KINDS, 2, replace=False))
        else:
            kinds = list(rng.choice(KINDS, n))
        names = list(DIE_COLOURS)
        used = set()
        models = []
        for kind in kinds:
            while True:
                colour = names[int(rng.integers(len(names)))]
                if (kind, colour) not in used:
                    break
            used.add((kind, colour))
            models.append(make_die_model(str(kind), colour, rng))
        models.sort(key=lambda m: (KINDS.index(m.kind), m.colour))
        return models

    def _make_camera(self, rng) -> None:
        """Camera height from a target die size in pixels, tilt, roll, focal length, lens."""
        W, H = self.W, self.H
        # size of a 1.6 cm die in pixels at 640 wide, from small to large
        grade = rng.uniform(0, 1)
        target = math.exp(math.log(14) + grade * math.log(60 / 14)) * W / 640
        hfov = math.radians(rng.uniform(48, 88 - 26 * grade))
        f = (W / 2) / math.tan(hfov / 2)
        height = f * 1.6 / target
        # but numerals and symbols must stay readable: a d12 at least 31 px across its faces,
        # a symbol die at least 22 px (at 640 wide)
        for m in self.models:
            least = {"d12": 31, "kotd": 22}.get(m.kind)
            if least:
                height = min(height, f * m.scale / (least * W / 640))
        self.cam_height = height
        tilt = math.radians(rng.uniform(0, 20))
        roll = rng.uniform(0, 2 * math.pi)
        right0 = np.array([math.cos(roll), math.sin(roll), 0.0])
        fwd0 = np.array([0, 0, -1.0])
        down0 = np.cross(fwd0, right0)
        phi = rng.uniform(0, 2 * math.pi)
        Rt = rot_axis([math.cos(phi), math.sin(phi), 0], tilt)
        right, down, fwd = Rt @ right0, Rt @ down0, Rt @ fwd0
        hx = height * math.tan(hfov / 2)
        self.view_half = (hx, hx * H / W)
        look = np.array([rng.normal(0, 0.12 * hx), rng.normal(0, 0.12 * hx), 0.0])
        origin = look - fwd * (height / -fwd[2])
        wide = (math.degrees(hfov) - 48) / 40
        k1 = rng.uniform(0.0, 0.04) + wide * rng.uniform(0.0, 0.1)
        if rng.random() < 0.15:
            k1 = -rng.uniform(0, 0.025)
        k2 = rng.uniform(0, 0.02) * wide
        cx = (W - 1) / 2 + rng.normal(0, 0.01 * W)
        cy = (H - 1) / 2 + rng.normal(0, 0.01 * H)
        self.cam = Camera(W, H, f, cx, cy, k1, k2, np.stack([right, down, fwd]), origin)
        self.hfov = hfov

    def _make_tray(self, rng) -> None:
        """Tray geometry (walled box, mat on a desk, or bare desk) and its materials."""
        hx, hy = self.view_half
        big = max(m.scale * m.shape.bound * 2 for m in self.models)
        r = rng.random()
        self.tray_kind = "box" if r < 0.6 else ("mat" if r < 0.8 else "desk")
        k = rng.uniform(0.55, 1.35)
        A = max(hx * k, 3.4 * big)
        B = max(A * rng.uniform(0.55, 0.95), 2.8 * big, hy * k * 0.8)
        if rng.random() < 0.5:
            A, B = B, A
        self.A, self.B = A, B
        cols = [m.colour for m in self.models]
        boxes = []
        if self.tray_kind == "box":
            w = rng.uniform(0.6, 2.2)
            self.wall_h = hw = rng.uniform(2.0, 5.0)
            fl = rng.uniform(0.3, 1.0)
            boxes.append(((-A - w, -B - w, -fl), (A + w, B + w, 0.0), "floor", "wall"))
            boxes.append(((-A - w, -B - w, 0.0), (-A, B + w, hw), "wall", "wall"))
            boxes.append(((A, -B - w, 0.0), (A + w, B + w, hw), "wall", "wall"))
            boxes.append(((-A, -B - w, 0.0), (A, -B, hw), "wall", "wall"))
            boxes.append(((-A, B, 0.0), (A, B + w, hw), "wall", "wall"))
            self.table_z = -fl
            specs = {"floor": random_surface(rng, "floor_box", cols),
                     "wall": random_surface(rng, "wall", cols),
                     "table": random_surface(rng, "table", cols)}
            if rng.random() < 0.3:
                specs["wall"] = dict(specs["floor"])
        elif self.tray_kind == "mat":
            fl = rng.uniform(0.15, 0.4)
            boxes.append(((-A, -B, -fl), (A, B, 0.0), "floor", "edge"))
            self.table_z = -fl
            self.wall_h = 0.0
            specs = {"floor": random_surface(rng, "floor_mat", cols),
                     "edge": random_surface(rng, "edge", cols),
                     "table": random_surface(rng, "table", cols)}
        else:
            self.A = self.B = 1e4
            self.table_z = None
            self.wall_h = 0.0
            specs = {"floor": random_surface(rng, "desk", cols)}
        self.boxes = [(np.array(lo), np.array(hi), top, side) for lo, hi, top, side in boxes]
        self.surface_specs = specs

    def _make_lights(self, rng) -> None:
        """One to three lights of varied kind, colour temperature and softness, plus ambient."""
        n = int(rng.choice([1, 2, 3], p=[0.35, 0.45, 0.2]))
        kinds = list(rng.choice(["overhead", "side", "window", "ring", "sun"], n,
                                replace=False, p=[0.3, 0.25, 0.2, 0.15, 0.1]))
        lights = []
        # mirror of the camera direction in the tray floor: a lamp near it would glare on every
        # flat glossy face, so lamps are redrawn until they are away from it
        mirror = normalize(self.cam.O * np.array([-1.0, -1.0, 1.0]))
        for i, kind in enumerate(kinds):
            power = 1.0 if i == 0 else rng.uniform(0.25, 0.7)
            for _ in range(30):
                lt = self._random_light(rng, str(kind))
                to = lt.dir if lt.kind == "dir" else normalize(lt.pos)
                if lt.ring or math.degrees(math.acos(np.clip(to @ mirror, -1, 1))) > 28:
                    break
            if lt.kind == "point":
                lt.ref_d2 = float((lt.pos ** 2).sum())
            lt.rgb = lt.rgb * power * 3.0
            lights.append(lt)
        self.lights = lights
        amb_k = rng.uniform(4500, 9000) if "window" in kinds else rng.uniform(3000, 6500)
        self.ambient = kelvin_rgb(amb_k) * rng.uniform(0.5, 1.4)
        self.light_kinds = kinds

    def _random_light(self, rng, kind: str) -> Light:
        """A light of the given kind: overhead lamp, side lamp, window, ring light or sun."""
        H = self.cam_height
        if kind == "overhead":
            off = math.radians(rng.uniform(10, 40))
            az = rng.uniform(0, 2 * math.pi)
            d = max(H * rng.uniform(1.5, 3), rng.uniform(60, 180))
            pos = d * np.array([math.sin(off) * math.cos(az), math.sin(off) * math.sin(az),
                                math.cos(off)])
            return Light("point", kelvin_rgb(rng.uniform(2800, 5000)), math.radians(
                rng.uniform(1.5, 12)), pos=pos)
        if kind == "side":
            el = math.radians(rng.uniform(28, 55))
            az = rng.uniform(0, 2 * math.pi)
            d = rng.uniform(40, 110)
            pos = d * np.array([math.cos(el) * math.cos(az), math.cos(el) * math.sin(az),
                                math.sin(el)])
            return Light("point", kelvin_rgb(rng.uniform(2600, 3600)), math.radians(
                rng.uniform(1, 6)), pos=pos)
        if kind == "ring":
            pos = self.cam.O + rng.normal(0, 0.5, 3)
            ring_r = rng.uniform(6, 18)
            return Light("point", kelvin_rgb(rng.uniform(4500, 6200)),
                         min(math.atan(ring_r / pos[2]), 0.5), pos=pos, ring=True)
        el = math.radians(rng.uniform(28, 60) if kind == "window" else rng.uniform(35, 70))
        az = rng.uniform(0, 2 * math.pi)
        d = np.array([math.cos(el) * math.cos(az), math.cos(el) * math.sin(az), math.sin(el)])
        if kind == "window":
            return Light("dir", kelvin_rgb(rng.uniform(5200, 7500)), math.radians(
                rng.uniform(8, 22)), dir=d)
        return Light("dir", kelvin_rgb(rng.uniform(4800, 5800)), math.radians(
            rng.uniform(0.3, 1.5)), dir=d)

    def _make_sensor(self, rng) -> None:
        """Camera pipeline parameters: exposure error, noise, white balance, blur, JPEG."""
        self.ev_error = float(np.clip(rng.normal(0, 0.3), -0.7, 0.5))
        # photo-electrons per unit of (exposed) signal: the room's light level; a dark tray
        # lowers it further through the auto exposure (see _calibrate_exposure)
        self.photons = math.exp(rng.uniform(math.log(600), math.log(8000)))
        self.optics = rng.uniform(0.4, 0.65)   # lens and anti-alias filter blur (pixels)
        self.read_noise = rng.uniform(0.0008, 0.004)
        self.wb_err = np.exp(rng.normal(0, 0.06, 3))
        self.wb_beta = rng.uniform(0.55, 1.0)
        self.saturation = rng.uniform(0.85, 1.2)
        self.tone = rng.choice(["srgb", "filmic"])
        self.jpeg_q = int(rng.integers(55, 96))
        self.sharpen = rng.uniform(0.0, 0.7) if rng.random() < 0.6 else 0.0
        r = rng.random()
        self.blur = ("defocus", rng.uniform(0.4, 0.8)) if r < 0.2 else (
            ("motion", rng.uniform(1.3, 2.6), rng.uniform(0, math.pi)) if r < 0.3 else None)
        W, H = self.W, self.H
        yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
        rr = ((xx - W / 2) ** 2 + (yy - H / 2) ** 2) / ((W / 2) ** 2 + (H / 2) ** 2)
        self.vignette = (1 - rng.uniform(0.1, 0.5) * rr ** rng.uniform(0.8, 1.5)).astype(
            np.float32)

    # ---- background -------------------------------------------------------------------------

    def _hit_background(self, D: np.ndarray):
        """Intersect rays (n, 3) with the tray boxes and table: t, normal, surface role."""
        org = self.cam.O
        n = len(D)
        best = np.full(n, np.inf)
        role = np.full(n, -1, np.int8)
        axis = np.full(n, 2, np.int8)
        sign = np.ones(n)
        roles = ["floor", "wall", "table", "edge"]
        for lo, hi, top, side in self.boxes:
            tn, tf, ax = _slab(org, D, lo, hi)
            hit = (tf >= tn) & (tn > 0) & (tn < best)
            best[hit] = tn[hit]
            axis[hit] = ax[hit]
            sg = -np.sign(D[np.arange(n), ax])
            sign[hit] = sg[hit]
            is_top = (ax == 2) & (sg > 0)
            role[hit] = np.where(is_top[hit], roles.index(top), roles.index(side))
        plane_z = self.table_z if self.table_z is not None else 0.0
        tp = (plane_z - org[2]) / np.minimum(D[:, 2], -1e-9)
        hit = (tp > 0) & (tp < best)
        best[hit] = tp[hit]
        axis[hit] = 2
        sign[hit] = 1
        role[hit] = roles.index("table") if self.table_z is not None else roles.index("floor")
        N = np.zeros((n, 3))
        N[np.arange(n), axis] = sign
        return best, N, role, roles

    def _render_background(self, rng) -> None:
        """Render the empty tray once: G-buffer, textures, wall shadows, lighting terms."""
        t0 = time.time()
        cam = self.cam
        self.rays = cam.rays(SS)
        Hi, Wi = self.rays.shape[:2]
        D = self.rays.reshape(-1, 3).astype(np.float64)
        t, N, role, roles = self._hit_background(D)
        P = cam.O + D * t[:, None]
        n = len(D)
        alb = np.zeros((n, 3), np.float32)
        spec_k = np.zeros(n, np.float32)
        spec_e = np.full(n, 10.0, np.float32)
        f_int = cam.f * SS
        for ri, name in enumerate(roles):
            sel = np.nonzero(role == ri)[0]
            if len(sel) == 0 or name not in self.surface_specs:
                continue
            spec = self.surface_specs[name]
            ax = np.abs(N[sel]).argmax(1)
            u = np.where(ax == 0, P[sel, 1], P[sel, 0])
            v = np.where(ax == 2, P[sel, 1], P[sel, 2])
            texel = float(np.median(t[sel])) / f_int * 0.9
            u0, v0 = u.min() - 1, v.min() - 1
            w = int((u.max() + 1 - u0) / texel) + 2
            h = int((v.max() + 1 - v0) / texel) + 2
            if max(w, h) > 2600:
                texel *= max(w, h) / 2600
                w = int((u.max() + 1 - u0) / texel) + 2
                h = int((v.max() + 1 - v0) / texel) + 2
            tex, hgt = make_texture(spec, rng, h, w, texel)
            gx = cv2.Sobel(hgt, cv2.CV_32F, 1, 0, ksize=3) / (8 * texel)
            gy = cv2.Sobel(hgt, cv2.CV_32F, 0, 1, ksize=3) / (8 * texel)
            stack = np.concatenate([tex, gx[..., None], gy[..., None]], -1)
            smp = sample(stack, (u - u0) / texel - 0.5, (v - v0) / texel - 0.5,
                         cv2.BORDER_REFLECT)
            alb[sel] = smp[:, :3]
            flat = ax == 2
            bump = spec.get("bump", 1.0)
            Ns = N[sel].copy()
            Ns[flat, 0] -= bump * smp[flat, 3]
            Ns[flat, 1] -= bump * smp[flat, 4]
            N[sel] = normalize(Ns)
            spec_k[sel] = spec.get("spec_k", 0.0)
            spec_e[sel] = spec.get("spec_exp", 10.0)
        V = -D
        # shadows of the walls, softened in image space by the light's size
        vis = np.ones((len(self.lights), n), np.float32)
        Pn = P + N * 1e-3
        wall_boxes = [(lo, hi) for lo, hi, top, side in self.boxes if top == "wall"]
        for li, lt in enumerate(self.lights):
            L, _ = lt.towards(Pn)
            for lo, hi in wall_boxes:
                tn, tf, _ = _slab(Pn, L, lo, hi)
                blocked = (tf >= tn) & (tf > 0)
                vis[li][blocked] = 0.0
            if wall_boxes:
                img = vis[li].reshape(Hi, Wi)
                sig = max(0.7, self.wall_h * math.tan(lt.alpha) * f_int / self.cam_height)
                vis[li] = cv2.GaussianBlur(img, (0, 0), sig).reshape(-1)
        # ambient occlusion in the wall corners
        ao = np.ones(n, np.float32)
        if self.tray_kind == "box":
            fl = role == roles.index("floor")
            dw = np.minimum(self.A - np.abs(P[:, 0]), self.B - np.abs(P[:, 1]))
            ao[fl] = 1 - 0.4 * np.exp(-np.maximum(dw[fl], 0) / (0.35 * self.wall_h))
            wl = (role == roles.index("wall")) & (np.abs(N[:, 2]) < 0.5)
            ao[wl] = 1 - 0.35 * np.exp(-np.maximum(P[wl, 2], 0) / (0.3 * self.wall_h))
        if self.table_z is not None:
            tb = role == roles.index("table")
            dw = np.maximum(np.abs(P[:, 0]) - self.A - 2.2, np.abs(P[:, 1]) - self.B - 2.2)
            ao[tb] = 1 - 0.3 * np.exp(-np.maximum(dw[tb], 0) / 1.0)
        self.bg_t = t.reshape(Hi, Wi).astype(np.float32)
        self.bg_N = N.reshape(Hi, Wi, 3).astype(np.float32)
        self.bg_vis = vis.reshape(-1, Hi, Wi)
        self.bg_ao = ao.reshape(Hi, Wi)
        hemi = (0.6 + 0.4 * N[:, 2:3]).astype(np.float32)
        self.bg_amb = (alb * self.ambient[None].astype(np.float32) * hemi).reshape(Hi, Wi, 3)
        self.bg_dir = np.zeros((len(self.lights), Hi, Wi, 3), np.float32)
        for li in range(len(self.lights)):
            self.bg_dir[li] = self._direct(li, P, N, V, alb, spec_k, spec_e).reshape(Hi, Wi, 3)
        img = self.bg_amb * self.bg_ao[..., None]
        for li in range(len(self.lights)):
            img = img + self.bg_vis[li][..., None] * self.bg_dir[li]
        self.bg_img = img.astype(np.float32)
        self.bg_blur = cv2.GaussianBlur(self.bg_img, (0, 0), 3.0)
        self.floor_mean = self.bg_img.reshape(-1, 3).mean(0)
        # work buffers reused by every frame
        self.owner = np.full((Hi, Wi), -1, np.int16)
        self.dep = self.bg_t.copy()
        self.vis = self.bg_vis.copy()
        self.ao = self.bg_ao.copy()
        self.Nw = self.bg_N.copy()
        if not self.quiet:
            print(f"  background {time.time() - t0:.2f}s", file=sys.stderr)

    def _direct(self, li, P, N, V, alb, spec_k, spec_e) -> np.ndarray:
        """Light `li` reflected towards the camera (no shadowing): Lambert + Blinn-Phong.

        `spec_k` is the normal-incidence Fresnel reflectance (about 0.04 for plastics); the lobe
        is widened by the light's angular size, so big soft lights give broad, dim highlights.
        """
        lt = self.lights[li]
        L, E = lt.towards(P)
        ndl = np.clip(dot3(N, L), 0, None)
        Hv = normalize(L + V)
        ndh = np.clip(dot3(N, Hv), 0, 1)
        f0 = np.asarray(spec_k, np.float64)
        fres = f0 + (np.minimum(4 * f0, 1) - f0) * (1 - np.clip(dot3(Hv, V), 0, 1)) ** 5
        if lt.ring:
            # the mirror image of a ring around the lens is a ring, not a disc
            Rv = 2 * dot3(N, V)[:, None] * N - V
            ang = np.arccos(np.clip(dot3(Rv, L), -1, 1))
            sig = 0.04 + 0.6 / np.sqrt(np.asarray(spec_e, np.float64))
            lobe = np.exp(-(((ang - lt.alpha) / sig) ** 2))
            spec = fres * lobe * ndl / (2 * math.pi ** 1.5 * lt.alpha * sig) * math.pi
        else:
            e = 1.0 / (1.0 / np.asarray(spec_e, np.float64) + 0.5 * lt.alpha ** 2)
            spec = fres * (e + 8) / 8 * ndh ** e * ndl
        return (E * (alb * ndl[:, None] + spec[:, None])).astype(np.float32)

    def _calibrate_exposure(self) -> None:
        """Auto exposure on the empty tray, then the tower's exposure error on top."""
        illum = self.ambient * 0.3
        for lt in self.lights:
            illum = illum + lt.rgb
        wb = (illum[1] / illum) ** self.wb_beta
        self.wb = wb * self.wb_err / (wb * self.wb_err)[1]
        lum = luminance(self.bg_img.reshape(-1, 3) * self.wb).mean()
        # highlight protection: a white die's top face in the middle of the tray stays
        # (mostly) below clipping, as matrix metering would keep it
        P = np.array([[0.0, 0.0, 1.5]])
        N = np.array([[0.0, 0.0, 1.0]])
        V = normalize(self.cam.O - P)
        white = np.full((1, 3), 0.8)
        top = self.ambient * 0.8
        for li in range(len(self.lights)):
            top = top + self._direct(li, P, N, V, white, 0.0, 10.0)[0]
        cap = 0.95 / max(float(luminance(top * self.wb)), 1e-6)
        self.exposure = min(0.2 / max(lum, 1e-6), cap) * 2 ** self.ev_error
        # a dark scene needs more gain, so each output level carries fewer photons
        self.photons *= float(np.clip(lum / 0.35, 0.12, 1.5))

    # ---- placing dice -----------------------------------------------------------------------

    def _flat_pose(self, model: DieModel, face: int, yaw: float) -> np.ndarray:
        """Rotation putting `face` of `model` on top, turned by `yaw`."""
        return rot_z(yaw) @ rot_between(model.shape.normals[face], Z)

    @staticmethod
    def _rest_height(model: DieModel, R: np.ndarray) -> float:
        """Centre height at which the posed die just touches the floor."""
        return -float(mul(model.shape.surface, R[2]).min()) * model.scale

    def _in_frame(self, inst: DieInstance, margin: float = 3.0) -> bool:
        """True if the die's world bounding box projects inside the image."""
        pts = inst.world_points(7)
        lo, hi = pts.min(0), pts.max(0)
        corners = np.array([[x, y, z] for x in (lo[0], hi[0]) for y in (lo[1], hi[1])
                            for z in (lo[2], hi[2])])
        uv = self.cam.project(corners)
        return bool((uv[:, 0] >= margin).all() and (uv[:, 0] <= self.W - 1 - margin).all()
                    and (uv[:, 1] >= margin).all() and (uv[:, 1] <= self.H - 1 - margin).all())

    def _inside_tray(self, inst: DieInstance) -> bool:
        """True if the die stays inside the tray walls (or on the mat)."""
        if self.tray_kind == "desk":
            return True
        pts = inst.world_points(3)
        return bool((np.abs(pts[:, 0]) <= self.A - 0.005).all()
                    and (np.abs(pts[:, 1]) <= self.B - 0.005).all())

    def _visible(self, inst: DieInstance) -> bool:
        """True if no tray wall hides the die's top from the camera."""
        P = inst.c + np.array([0, 0, 0.3 * inst.s])
        D = P - self.cam.O
        ln = np.linalg.norm(D)
        D = (D / ln)[None]
        for lo, hi, top, _ in self.boxes:
            if top != "wall":
                continue
            tn, tf, _ = _slab(self.cam.O, D, lo, hi)
            if tf[0] >= tn[0] and 0 < tn[0] < ln:
                return False
        return True

    @staticmethod
    def _gap(a: DieInstance, b: DieInstance, step: int = 2) -> float:
        """Smallest separation (cm) between two dice (negative when they overlap)."""
        reach = a.s * a.model.shape.bound + b.s * b.model.shape.bound
        if np.linalg.norm(a.c - b.c) > reach + 0.05:
            return 1.0
        d1 = b.model.shape.sdf(b.to_local(a.world_points(step))).min() * b.s
        d2 = a.model.shape.sdf(a.to_local(b.world_points(step))).min() * a.s
        return float(min(d1, d2))

    def _free(self, inst: DieInstance, placed: list, clearance: float = 0.004) -> bool:
        """True if the die overlaps none of the placed dice."""
        return all(self._gap(inst, o, 3) > clearance for o in placed)

    def _ok(self, inst: DieInstance, placed: list) -> bool:
        """All placement checks: in the image, in the tray, visible and overlap free."""
        return (self._in_frame(inst) and self._inside_tray(inst) and self._visible(inst)
                and self._free(inst, placed))

    def _slide_to(self, inst: DieInstance, other: DieInstance, u: np.ndarray, gap: float):
        """Move `inst` along -u from `other` until it is `gap` cm from touching it."""
        reach = inst.s * inst.model.shape.bound + other.s * other.model.shape.bound + 0.05
        lo, hi = 0.0, reach
        base = other.c.copy()
        zc = inst.c[2]
        for _ in range(22):
            mid = (lo + hi) / 2
            inst.c = np.array([base[0] - u[0] * mid, base[1] - u[1] * mid, zc])
            if self._gap(inst, other, 1) < gap:
                lo = mid
            else:
                hi = mid
        inst.c = np.array([base[0] - u[0] * hi, base[1] - u[1] * hi, zc])

    def _random_spot(self, rng, z: float) -> np.ndarray:
        """A random floor point (at height z) seen inside the image."""
        u = rng.uniform(0.06, 0.94) * (self.W - 1)
        v = rng.uniform(0.06, 0.94) * (self.H - 1)
        xd, yd = (u - self.cam.cx) / self.cam.f, (v - self.cam.cy) / self.cam.f
        r2 = xd * xd + yd * yd
        k = 1 + self.cam.k1 * r2 + self.cam.k2 * r2 * r2
        d = np.array([xd * k, yd * k, 1.0]) @ self.cam.Rcw
        t = (z - self.cam.O[2]) / d[2]
        return self.cam.O + t * d

    def place_flat(self, model: DieModel, face: int, rng, placed: list,
                   touch: float = 0.0) -> DieInstance | None:
        """Place a die resting flat with `face` up, optionally touching a placed die."""
        for _ in range(80):
            R = self._flat_pose(model, face, rng.uniform(0, 2 * math.pi))
            z = self._rest_height(model, R)
            inst = DieInstance(model, R, np.zeros(3), False, rng.normal(0, 3, 3))
            flats = [o for o in placed if not o.tilted]
            if flats and rng.random() < touch:
                other = flats[int(rng.integers(len(flats)))]
                a = rng.uniform(0, 2 * math.pi)
                inst.c = np.array([other.c[0], other.c[1], z])
                self._slide_to(inst, other, np.array([math.cos(a), math.sin(a), 0.0]),
                               rng.uniform(0.005, 0.04))
            else:
                inst.c = self._random_spot(rng, z)
                inst.c[2] = z
            if self._ok(inst, placed):
                return inst
        return None

    def place_tilted(self, model: DieModel, face: int, rng, placed: list) -> DieInstance | None:
        """Place a cocked die: one bottom edge on the floor, leaning on a die or a wall."""
        shape = model.shape
        flats = [o for o in placed if not o.tilted]
        walls = self.tray_kind == "box"
        for _ in range(40):
            theta = math.radians(rng.uniform(12, 35))
            R0 = rot_between(shape.normals[face], Z)
            lifts = (R0 @ shape.lift_dirs(face).T).T
            w = lifts[int(rng.integers(len(lifts)))]
            use_wall = walls and (not flats or rng.random() < 0.4)
            if not use_wall and not flats:
                return None
            if use_wall:
                side = int(rng.integers(4))
                u = np.array([[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0]][side], float)
            else:
                a = rng.uniform(0, 2 * math.pi)
                u = np.array([math.cos(a), math.sin(a), 0.0])
            yaw = math.atan2(u[1], u[0]) - math.atan2(w[1], w[0])
            R = rot_axis(np.cross(u, Z), theta) @ rot_z(yaw) @ R0
            z = self._rest_height(model, R)
            inst = DieInstance(model, R, np.array([0, 0, z]), True, rng.normal(0, 3, 3))
            if use_wall:
                spot = self._random_spot(rng, z)
                ext = mul(shape.surface, R.T @ u) * model.scale
                limit = (self.A if side < 2 else self.B) - 0.01
                along = 1 if side < 2 else 0
                c = np.zeros(3)
                c[2] = z
                c[along] = spot[along]
                c[1 - along] = u[1 - along] * (limit - ext.max())
                inst.c = c
            else:
                other = flats[int(rng.integers(len(flats)))]
                inst.c = np.array([other.c[0], other.c[1], z])
                self._slide_to(inst, other, u, rng.uniform(0.0, 0.01))
            if self._ok(inst, placed):
                return inst
        return None

    def throw(self, rng) -> list:
        """Dice for one tray image: 1-8 dice, about 15 % of them cocked."""
        n = int(rng.integers(1, 9))
        placed: list = []
        while not placed:
            picks = [self.models[int(rng.integers(len(self.models)))] for _ in range(n)]
            faces = [int(rng.integers(len(m.faces))) for m in picks]
            tilt = rng.random(n) < 0.155
            touch = rng.uniform(0.1, 0.45)
            order = [i for i in range(n) if not tilt[i]] + [i for i in range(n) if tilt[i]]
            for i in order:
                inst = None
                if tilt[i]:
                    inst = self.place_tilted(picks[i], faces[i], rng, placed)
                if inst is None:
                    inst = self.place_flat(picks[i], faces[i], rng, placed, touch)
                if inst is not None:
                    placed.append(inst)
        return placed

    def truth(self, inst: DieInstance) -> dict:
        """Truth record of a die: kind, colour, top face value and its projected centre."""
        f = inst.top_face()
        centre = inst.c + inst.s * (inst.R @ (inst.model.shape.normals[f] * 0.5))
        x, y = self.cam.project(centre[None])[0]
        return {"kind": inst.model.kind, "colour": inst.model.colour,
                "face": inst.model.faces[f], "x": round(float(x), 2), "y": round(float(y), 2),
                "tilted": bool(inst.tilted)}

    # ---- rendering a frame ------------------------------------------------------------------

    def _bbox(self, pts: np.ndarray, pad: int = 3):
        """Internal-resolution pixel box (x0, y0, x1, y1) around projected world points."""
        uv = (self.cam.project(pts) + 0.5) * SS - 0.5
        Hi, Wi = self.bg_t.shape
        x0 = int(max(0, math.floor(uv[:, 0].min()) - pad))
        y0 = int(max(0, math.floor(uv[:, 1].min()) - pad))
        x1 = int(min(Wi, math.ceil(uv[:, 0].max()) + pad + 1))
        y1 = int(min(Hi, math.ceil(uv[:, 1].max()) + pad + 1))
        return x0, y0, max(x0, x1), max(y0, y1)

    def _regions(self, inst: DieInstance):
        """The die's own pixel box and the box of everything it can shade or occlude."""
        pts = inst.world_points(17)
        own = self._bbox(pts)
        lo, hi = pts.min(0), pts.max(0)
        grow = 0.8 * inst.s
        boxes = [np.array([[x, y, 0.0] for x in (lo[0] - grow, hi[0] + grow)
                           for y in (lo[1] - grow, hi[1] + grow)])]
        for lt in self.lights:
            if lt.kind == "dir":
                fl = pts - np.outer(pts[:, 2] / lt.dir[2], lt.dir)
                lz = lt.dir[2]
            else:
                s = lt.pos[2] / np.maximum(lt.pos[2] - pts[:, 2], 1e-3)
                fl = lt.pos + (pts - lt.pos) * s[:, None]
                lz = float(normalize(lt.pos - inst.c)[2])
            # the penumbra reach used by _shadow, at the far end of the shadow
            tc = hi[2] / max(lz, 0.2) / inst.s
            m = inst.s * (min(tc * min(max(math.tan(lt.alpha), 1e-3), 0.6), 1.2) + 0.15)
            flo, fhi = fl.min(0) - m, fl.max(0) + m
            boxes.append(np.array([[x, y, 0.0] for x in (flo[0], fhi[0])
                                   for y in (flo[1], fhi[1])]))
        return own, self._bbox(np.concatenate([pts] + boxes))

    def _trace(self, inst: DieInstance, box) -> np.ndarray:
        """Sphere-trace the die in its pixel box; world ray distance per pixel (inf = miss)."""
        x0, y0, x1, y1 = box
        D = self.rays[y0:y1, x0:x1].reshape(-1, 3).astype(np.float64)
        out = np.full(len(D), np.inf)
        if len(D) == 0:
            return out.reshape(y1 - y0, x1 - x0)
        shape = inst.model.shape
        o = inst.to_local(self.cam.O[None])[0]
        d = mul(D, inst.R)
        b = mul(d, o)
        disc = b * b - (o @ o - shape.bound ** 2)
        act = np.nonzero(disc > 0)[0]
        sq = np.sqrt(np.maximum(disc[act], 0))
        t = -b[act] - sq
        t1 = -b[act] + sq
        dd = d[act]
        for it in range(80):
            if len(act) == 0:
                break
            p = o + dd * t[:, None]
            dist = shape.sdf_fast(p) if it < 14 else shape.sdf(p)
            done = dist < 4e-4
            out[act[done]] = t[done] * inst.s
            t = t + dist
            keep = ~done & (t < t1)
            act, t, t1, dd = act[keep], t[keep], t1[keep], dd[keep]
        return out.reshape(y1 - y0, x1 - x0)

    def _shadow(self, inst: DieInstance, li: int, P: np.ndarray) -> np.ndarray:
        """Soft visibility (1 = lit) of light `li` at world points P past the die."""
        lt = self.lights[li]
        shape = inst.model.shape
        x = inst.to_local(P)
        L, _ = lt.towards(P)
        lw = mul(L, inst.R)
        res = np.ones(len(P))
        b = dot3(x, lw)
        tc = -b
        d2 = dot3(x, x) - b * b
        k = 1.0 / min(max(math.tan(lt.alpha), 1e-3), 0.6)
        reach = shape.bound + np.minimum(np.maximum(tc, 0) / k, 1.2)
        cand = np.nonzero((tc > 0) & (tc < 5.0) & (d2 < reach * reach))[0]
        if len(cand) == 0:
            return res
        xs, ls = x[cand], lw[cand]
        t = np.maximum(tc[cand] - reach[cand], 2e-3)
        tend = tc[cand] + shape.bound
        r = np.ones(len(cand))
        for _ in range(24):
            h = shape.sdf_fast(xs + ls * t[:, None])
            live = t < tend
            r = np.where(live, np.minimum(r, k * h / t), r)
            t = t + np.clip(h, 0.015, 0.3)
        r = np.clip(r, 0, 1)
        r = r * r * (3 - 2 * r)
        trans = inst.model.mat["trans"]
        if trans > 0:
            r = 1 - (1 - r) * (1 - 0.6 * trans)
        res[cand] = r
        return res

    @staticmethod
    def _occlusion(inst: DieInstance, P: np.ndarray, N: np.ndarray) -> np.ndarray:
        """Ambient occlusion (1 = open) the die casts on points P with normals N."""
        shape = inst.model.shape
        x = inst.to_local(P)
        n = mul(N, inst.R)
        occ = np.zeros(len(P))
        w = 1.0
        for h in (0.04, 0.12, 0.24, 0.4, 0.6):
            d = shape.sdf_fast(x + n * h)
            occ += w * np.maximum(h - d, 0)
            w *= 0.7
        return np.clip(1 - 1.1 * occ, 0, 1)

    def _die_fragments(self, j: int, inst: DieInstance, box):
        """Surface attributes of the die's visible pixels: positions, normals, albedo."""
        x0, y0, x1, y1 = box
        ys, xs = np.nonzero(self.owner[y0:y1, x0:x1] == j)
        ys, xs = ys + y0, xs + x0
        m = inst.model
        shape = m.shape
        D = self.rays[ys, xs].astype(np.float64)
        P = self.cam.O + D * self.dep[ys, xs][:, None].astype(np.float64)
        x = inst.to_local(P)
        ng = shape.grad(x)
        fid = shape.face_id(x)
        e1, e2 = m.e1[fid], m.e2[fid]
        T = m.tile
        hh = shape.half
        tu = np.clip((dot3(x, e1) / (2 * hh) + 0.5) * T - 0.5, 0, T - 1) + fid * T
        tv = np.clip((0.5 - dot3(x, e2) / (2 * hh)) * T - 0.5, 0, T - 1)
        smp = sample(m.atlas, tu, tv).astype(np.float64)
        flat = np.clip((dot3(x, shape.normals[fid]) - 0.488) / 0.01, 0, 1)
        ink = smp[:, 0] * flat
        hgt = smp[:, 1] * flat
        nb = normalize(ng - (smp[:, 2:3] * flat[:, None]) * e1 - (smp[:, 3:4] * flat[:, None])
                       * e2)
        N = mul(nb, inst.R.T)
        mat = m.mat
        body = np.broadcast_to(m.body, (len(P), 3)).copy()
        if mat["marble"] > 0:
            q = x + inst.offset
            turb = np.zeros(len(q))
            for i in range(1, 4):
                turb += np.sin(mul(q, mat["marble_dirs"][i]) * mat["marble_freq"][i] + i) / i
            v = np.sin(mul(q, mat["marble_dirs"][0]) * mat["marble_freq"][0]
                       + mat["marble_amp"] * turb)
            mix = mat["marble"] * (0.5 + 0.5 * v) ** mat["marble_sharp"]
            body = body * (1 - mix[:, None]) + mat["body2"] * mix[:, None]
        V = -D
        ndv = np.clip(dot3(N, V), 0, 1)
        if mat["pearl"] > 0:
            ph = 7 * ndv + inst.offset[0]
            body = body * (1 + mat["pearl"] * np.stack([np.cos(ph), np.cos(ph + 2.1),
                                                        np.cos(ph + 4.2)], 1))
        alb = body * (1 - ink[:, None]) + m.ink_rgb[fid] * ink[:, None]
        cav = 1 - 0.5 * np.clip(-hgt * mat["cavity"], 0, 1)
        return {"ys": ys, "xs": xs, "P": P, "N": N, "V": V, "D": D, "alb": alb, "ink": ink,
                "cav": cav, "ndv": ndv}

    def _shade_die(self, inst: DieInstance, fr: dict) -> np.ndarray:
        """Linear radiance of a die's visible pixels."""
        mat = inst.model.mat
        ys, xs = fr["ys"], fr["xs"]
        P, N, V, alb = fr["P"], fr["N"], fr["V"], fr["alb"]
        n = len(P)
        ink = fr["ink"]
        trans = mat["trans"] * (1 - ink)
        diff_alb = alb * (1 - 0.5 * trans[:, None])
        # occlusion by the floor under the die
        occ = np.zeros(n)
        w = 1.0
        for h in (0.04, 0.12, 0.24, 0.4):
            d = P[:, 2] / inst.s + N[:, 2] * h
            occ += w * np.maximum(h - d, 0)
            w *= 0.7
        ao = self.ao[ys, xs] * np.clip(1 - 1.3 * occ, 0, 1) * fr["cav"]
        col = self.ambient * diff_alb * (ao * (0.6 + 0.4 * N[:, 2]))[:, None]
        spec_k = mat["spec_k"] * (1 - 0.5 * ink)
        irr = np.zeros((n, 3))
        for li in range(len(self.lights)):
            vis = self.vis[li, ys, xs][:, None]
            col += vis * self._direct(li, P, N, V, diff_alb, spec_k, mat["spec_exp"])
            L, E = self.lights[li].towards(P)
            irr += vis * E * (0.5 + 0.5 * dot3(N, L)[:, None])
        # environment reflection with Fresnel
        Rv = fr["D"] - 2 * dot3(fr["D"], N)[:, None] * N
        up = smoothstep(-0.15, 0.35, Rv[:, 2])[:, None]
        room = self.ambient * 0.9 + sum(lt.rgb for lt in self.lights) * 0.08
        env = self.floor_mean * (1 - up) + room * up
        fres = 0.04 + 0.96 * (1 - fr["ndv"]) ** 5
        col += mat["refl"] * (fres * ao)[:, None] * env * (1 - 0.5 * ink[:, None])
        if mat["trans"] > 0:
            tint = inst.model.body / max(inst.model.body.max(), 1e-3)
            tw = (trans * 0.45 * (0.3 + 0.7 * fr["ndv"]))[:, None]
            behind = self.bg_blur[ys, xs] * tint * tint
            glow = inst.model.body * irr * (0.15 + 0.6 * (1 - fr["ndv"][:, None]) ** 2)
            col = col * (1 - tw) + behind * tw + glow * trans[:, None]
        return col

    def _cast(self, j: int, inst: DieInstance, reg) -> None:
        """Multiply die j's shadows and occlusion into the work buffers over its region.

        Both are smooth, so they are evaluated on every second internal pixel and upsampled.
        """
        x0, y0, x1, y1 = reg
        if x1 - x0 < 2 or y1 - y0 < 2:
            return
        sl = (slice(y0, y1), slice(x0, x1))
        sub = (slice(y0, y1, 2), slice(x0, x1, 2))
        gh, gw = self.owner[sub].shape
        yy, xx = np.nonzero(self.owner[sub] != j)
        D = self.rays[sub][yy, xx].astype(np.float64)
        P = self.cam.O + D * self.dep[sub][yy, xx][:, None]
        N = self.Nw[sub][yy, xx].astype(np.float64)
        Pn = P + N * (0.002 * inst.s)
        keep = self.owner[sl] != j
        for li in range(len(self.lights)):
            grid = np.ones((gh, gw), np.float32)
            grid[yy, xx] = self._shadow(inst, li, Pn)
            up = cv2.resize(grid, (x1 - x0, y1 - y0), interpolation=cv2.INTER_LINEAR)
            self.vis[li][sl] *= np.where(keep, up, 1.0)
        x = inst.to_local(P)
        near = np.nonzero(dot3(x, x) < (inst.model.shape.bound + 0.7) ** 2)[0]
        if len(near):
            grid = np.ones((gh, gw), np.float32)
            grid[yy[near], xx[near]] = self._occlusion(inst, P[near], N[near])
            up = cv2.resize(grid, (x1 - x0, y1 - y0), interpolation=cv2.INTER_LINEAR)
            self.ao[sl] *= np.where(keep, up, 1.0)

    def render_linear(self, dice: list) -> np.ndarray:
        """Internal-resolution linear RGB image of the tray with `dice`."""
        img = self.bg_img.copy()
        if not dice:
            return img
        boxes = [self._regions(d) for d in dice]
        for _, (x0, y0, x1, y1) in boxes:
            sl = (slice(y0, y1), slice(x0, x1))
            self.owner[sl] = -1
            self.dep[sl] = self.bg_t[sl]
            self.vis[:, y0:y1, x0:x1] = self.bg_vis[:, y0:y1, x0:x1]
            self.ao[sl] = self.bg_ao[sl]
            self.Nw[sl] = self.bg_N[sl]
        for j, (inst, (own, _)) in enumerate(zip(dice, boxes)):
            x0, y0, x1, y1 = own
            t = self._trace(inst, own)
            sl = (slice(y0, y1), slice(x0, x1))
            nearer = t < self.dep[sl]
            self.dep[sl] = np.where(nearer, t, self.dep[sl])
            self.owner[sl] = np.where(nearer, j, self.owner[sl])
        frags = []
        for j, (inst, (own, _)) in enumerate(zip(dice, boxes)):
            fr = self._die_fragments(j, inst, own)
            self.Nw[fr["ys"], fr["xs"]] = fr["N"]
            frags.append(fr)
        for j, (inst, (_, reg)) in enumerate(zip(dice, boxes)):
            self._cast(j, inst, reg)
        for _, (x0, y0, x1, y1) in boxes:
            sl = (slice(y0, y1), slice(x0, x1))
            col = self.bg_amb[sl] * self.ao[sl][..., None]
            for li in range(len(self.lights)):
                col = col + self.vis[li][sl][..., None] * self.bg_dir[li][sl]
            img[sl] = col
        for inst, fr in zip(dice, frags):
            img[fr["ys"], fr["xs"]] = self._shade_die(inst, fr).astype(np.float32)
        return img

    # ---- camera pipeline --------------------------------------------------------------------

    def develop(self, lin: np.ndarray, rng) -> np.ndarray:
        """Turn an internal linear render into a camera-like 8-bit BGR image."""
        W, H = self.W, self.H
        img = cv2.resize(lin, (W, H), interpolation=cv2.INTER_AREA)
        img = cv2.GaussianBlur(img, (0, 0), self.optics)
        if self.blur is not None:
            if self.blur[0] == "defocus":
                img = cv2.GaussianBlur(img, (0, 0), self.blur[1])
            else:
                ln, ang = self.blur[1], self.blur[2]
                k = np.zeros((15, 15), np.float32)
                c = 7
                dx, dy = math.cos(ang) * ln / 2, math.sin(ang) * ln / 2
                cv2.line(k, (int(round((c - dx) * 16)), int(round((c - dy) * 16))),
                         (int(round((c + dx) * 16)), int(round((c + dy) * 16))), 1.0, 1,
                         cv2.LINE_AA, shift=4)
                img = cv2.filter2D(img, -1, k / k.sum())
        flicker = math.exp(rng.normal(0, 0.02))
        raw = img * (self.vignette * (self.exposure * flicker))[..., None]
        mos = np.empty((H, W), np.float32)
        mos[0::2, 0::2] = raw[0::2, 0::2, 0]
        mos[0::2, 1::2] = raw[0::2, 1::2, 1]
        mos[1::2, 0::2] = raw[1::2, 0::2, 1]
        mos[1::2, 1::2] = raw[1::2, 1::2, 2]
        sig = np.sqrt(np.maximum(mos, 0) / self.photons + self.read_noise ** 2)
        mos = mos + sig * rng.standard_normal((H, W)).astype(np.float32)
        m16 = (np.clip(mos, 0, 1) * 65535 + 0.5).astype(np.uint16)
        rgb = cv2.cvtColor(m16, cv2.COLOR_BayerBG2RGB_EA).astype(np.float32) / 65535
        drift = np.exp(rng.normal(0, 0.004, 3))
        rgb = rgb * (self.wb * drift).astype(np.float32)
        lum = luminance(rgb)[..., None]
        rgb = np.clip(lum + (rgb - lum) * self.saturation, 0, None)
        if self.tone == "filmic":
            x = rgb * 1.6
            rgb = np.clip(x * (2.51 * x + 0.03) / (x * (2.43 * x + 0.59) + 0.14), 0, 1)
        rgb = np.clip(rgb, 0, 1)
        rgb = np.where(rgb <= 0.0031308, 12.92 * rgb, 1.055 * cv2.pow(rgb, 1 / 2.4) - 0.055)
        if self.sharpen > 0:
            rgb = rgb + self.sharpen * (rgb - cv2.GaussianBlur(rgb, (0, 0), 1.0))
        out = np.clip(rgb * 255 + 0.5, 0, 255).astype(np.uint8)[..., ::-1]
        ok, enc = cv2.imencode(".jpg", np.ascontiguousarray(out),
                               [cv2.IMWRITE_JPEG_QUALITY, self.jpeg_q])
        return cv2.imdecode(enc, cv2.IMREAD_COLOR)

    def image(self, dice: list, *key) -> np.ndarray:
        """Render and develop one image; `key` names its independent noise stream."""
        return self.develop(self.render_linear(dice), self.rng("noise", *key))

    def describe(self) -> str:
        """One-line summary of the tower (for progress output)."""
        pairs = ", ".join(f"{m.kind}/{m.colour}({m.mat['finish']})" for m in self.models)
        return (f"tray={self.tray_kind}/{self.surface_specs['floor']['kind']} "
                f"h={self.cam_height:.0f}cm fov={math.degrees(self.hfov):.0f} "
                f"lights={'+'.join(self.light_kinds)} dice=[{pairs}]")


# --------------------------------------------------------------------------------------------
# main
# --------------------------------------------------------------------------------------------

def write_png(path: Path, img: np.ndarray) -> None:
    """Write an 8-bit BGR PNG, creating folders as needed."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if not cv2.imwrite(str(path), img):
        raise OSError(f"cannot write {path}")


def main(argv=None) -> int:
    """Render one tower (empty, teach and tray images plus truth.json) into OUT_DIR."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out_dir")
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--trays", type=int, default=40)
    ap.add_argument("--width", type=int, default=640)
    ap.add_argument("--height", type=int, default=480)
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args(argv)
    cv2.setNumThreads(1)
    t0 = time.time()
    out = Path(args.out_dir)
    tower = Tower(args.seed, args.width, args.height, quiet=args.quiet)
    if not args.quiet:
        print(f"seed {args.seed}: {tower.describe()}", file=sys.stderr)
    for k in range(1, 4):
        write_png(out / "empty" / f"empty-{k}.png", tower.image([], "empty", k))
    for mi, model in enumerate(tower.models):
        for fi, face in enumerate(model.faces):
            for k in range(1, 4):
                rng = tower.rng("teach", mi, fi, k)
                inst = None
                for _ in range(10):
                    inst = inst or tower.place_flat(model, fi, rng, [])
                write_png(out / "teach" / model.kind / model.colour / f"{face}-{k}.png",
                          tower.image([inst] if inst else [], "teach", mi, fi, k))
    if not args.quiet:
        print(f"  teach done {time.time() - t0:.1f}s", file=sys.stderr)
    trays = {}
    for i in range(1, args.trays + 1):
        dice = tower.throw(tower.rng("tray", i))
        name = f"tray-{i:04d}.png"
        write_png(out / "trays" / name, tower.image(dice, "tray", i))
        trays[name] = [tower.truth(d) for d in dice]
    truth = {"seed": args.seed, "size": [args.width, args.height], "trays": trays}
    (out / "truth.json").write_text(json.dumps(truth, indent=1))
    if not args.quiet:
        print(f"  done {time.time() - t0:.1f}s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
