#!/usr/bin/env python3
"""Synthetic oblique-webcam photographs of pip dice (renderer "d").

An independent renderer of six-sided pip dice (D6) lying on a table, seen by a
webcam or phone held obliquely.  It writes JPEG images plus a truth file and is
meant to test a dice reader on the cases readers get wrong: low cameras (where
a die's front face can look bigger than its top face), small dice, dark dice,
translucent dice and busy backgrounds.  Only numpy and OpenCV are used.

Usage
-----
    python bench/webcam_renderer_d.py OUT_DIR --seed N --images K
                                      [--width 640] [--height 480] [--quiet]

One seed is one *setup* (one camera, one table, one light set, one dice set);
the K images are different throws of the same setup, and the camera moves a
little between images.  Image i depends only on (seed, i, width, height), so
the same arguments always give byte-identical files.  Without --quiet one short
line is printed per image.

Output
------
OUT_DIR/img-0001.jpg ... img-000K.jpg and OUT_DIR/truth.json (one die per line)::

    {"seed": N, "size": [W, H], "images": {"img-0001.jpg": [
        {"face": "4", "x": 312.5, "y": 220.1, "tilted": false, "colour": "ivory",
         "box": [290.1, 195.0, 336.8, 248.3]}, ...], ...}}

face    number of pips on the face whose outward normal points most upward
        ("1".."6"); for a cocked die this is still the most upward face.
x, y    output-pixel position of the centre of that top face, projected through
        the camera *including* its lens distortion.  Pixel centres are at
        integer coordinates (the centre of the top-left pixel is (0, 0)).
tilted  true for a cocked die (leaning 15-40 degrees against another die, a
        book/box or a tray rim), false for a die lying on a face (resting dice
        may still have a tilt below 1.5 degrees).
colour  one-word name of the die body colour: white, ivory, black, red, blue,
        green, yellow or purple (translucent "white" is clear/frosted; marbled
        dice are named after their base colour).
box     (x0, y0, x1, y1) bounding box of the die's projected (distorted)
        outline, from the vertices of its rounded-cube mesh.

A die is listed only if its whole outline is inside the frame, at least two
thirds of its top face is visible (occlusion by other dice and objects is
measured with an id buffer) and the top face is seen at more than ~11.5 deg
from its own plane (placement keeps every die above ~14.5 deg, so this never
drops a die).  Dice that are not listed are therefore cut by the frame edge or
partly hidden (top face less than 2/3 visible).  Every image lists 1 to 8
dice (about 3.8 on average); a throw with nothing listable is thrown again.

Model (what varies, all drawn from the seed)
--------------------------------------------
Camera   pinhole + radial distortion k1 in [-0.2, 0.08], k2 in [0, 0.04]
         (about half of the setups nearly distortion-free); horizontal field
         of view 48-78 deg; principal point offset (sd 1.2%); elevation above
         the table 15-75 deg (29% of setups 15-25 deg, 42% 25-50, 29% 50-75);
         distance 150-800 mm, chosen so that dice are about 14-120 px wide at
         640 px width (15% small 14-22 px); roll up to ~6 deg.  Per image the
         elevation moves +-3 deg, azimuth +-10 deg, distance +-7%, the aim
         point a few % of the view and roll ~1 deg.
Dice     size 10-25 mm; rounded (edge radius 5-15% of size) or sharp casino
         cubes (1%); opaque, translucent (tinted transmission, pips of the far
         faces seen through, lighter coloured shadows) or marbled (swirled
         two-colour) bodies; drilled pips (shaded spherical dimples) or flush
         painted ones; pip colours black / white / gold (metallic) / red; pip
         radius 6.5-9.5% and spacing 24-30% of the size, sometimes a larger 1;
         Asian sets with a large red 1 (sometimes red 4 too); glossy or matte.
         Layout: 1/6, 2/5, 3/4 opposite, 1-2-3 counter-clockwise around their
         shared corner, the 2, 3 and 6 aligned with the face edges.  Sets of
         1-8 dice: matched, two styles, or all different.
Throws   clustered or spread; dice touching face to face; 15-50% of images of
         a setup have one (sometimes two) cocked dice; ~10% of images have an
         extra die cut by the frame edge.
Surface  wood (planks, growth rings, pores), laminate, felt/cloth, glossy dark
         surface or dark wood with mirror reflections of the objects, playmat
         (artwork colour fields, ink lines, printed grid/hex/dots, stitched
         edge), paper sheet (printed text / ruled / squared) on a desk,
         leather dice tray (stitching, 3-D rim) on a desk.  The table ends in
         an edge in ~65% of setups; a wall (paint, pictures, shelves with
         books, windows, screens, doors) and a floor are seen beyond it.
Clutter  0-6 items per setup, placed per image: coins (stacks), poker chips,
         wooden tokens, playing cards, pencils, erasers, books, boxes.
Light    overhead lamp (small bulb or panel), side lamp (hard shadows), window
         (soft, cool), dim room, coloured LED cast; optional fill light;
         shadows with penumbra growing with occluder height; contact
         occlusion; Blinn-Phong highlights; Fresnel reflection of the room.
Sensor   autofocus on the dice (sometimes on the aim point) with focus errors
         and a thin-lens depth of field (aperture 0.5-2.5 mm), lens softness,
         occasional motion blur, lateral chromatic aberration, centre-weighted
         auto exposure with bias (~12% under-, ~12% over-exposed) and a gain
         limit (very dim rooms come out dark), partial white balance plus
         error, vignetting, shot + read noise scaled by the gain and blotchy
         chroma noise, optional denoise smear, none/mild/strong sharpening,
         tone curve, JPEG quality 60-95.

Rendering method: every object is a convex polyhedron (dice are rounded-cube
meshes), rasterised with OpenCV polygon fills into a supersampled layer; die
faces are per-render shaded textures (albedo, pip coverage, dimple normals)
warped with cv2.warpPerspective.  Layers are composited into a 2x supersampled
pinhole canvas with a per-pixel depth test (the depth of a convex object is
the ray's entry point over its front planes) and an object-id buffer.  The
table is a procedural texture (near and far levels) warped by the table-plane
homography.  The canvas is remapped through the lens distortion, area-
downsampled, and passed through the sensor model.  selftest() checks the pip
layouts (connected pip count per face), opposite faces and top-face logic.
"""

from __future__ import annotations

import argparse
import json
import math
import os

import numpy as np
import cv2

cv2.setNumThreads(1)

SS = 2  # supersampling factor of the main canvas (some code assumes exactly 2)
FLOOR_Z = -740.0  # floor height below the table top (mm)

# Die-local face frames: outward normal N, in-face axes U (right) and V (up),
# U x V = N.  1/6, 2/5 and 3/4 are opposite; faces 1 (+z), 2 (+x), 3 (+y) meet
# at the (+,+,+) corner counter-clockwise seen from outside (a right-handed die).
FACE_N = {1: (0, 0, 1), 6: (0, 0, -1), 2: (1, 0, 0), 5: (-1, 0, 0), 3: (0, 1, 0), 4: (0, -1, 0)}
FACE_U = {1: (1, 0, 0), 6: (1, 0, 0), 2: (0, 1, 0), 5: (0, -1, 0), 3: (0, 0, 1), 4: (0, 0, -1)}
FACE_V = {1: (0, 1, 0), 6: (0, -1, 0), 2: (0, 0, 1), 5: (0, 0, 1), 3: (1, 0, 0), 4: (1, 0, 0)}
FACE_N = {k: np.array(v, float) for k, v in FACE_N.items()}
FACE_U = {k: np.array(v, float) for k, v in FACE_U.items()}
FACE_V = {k: np.array(v, float) for k, v in FACE_V.items()}


# ============================================================ small helpers
def unit(v):
    v = np.asarray(v, dtype=np.float64)
    return v / np.linalg.norm(v)


def rot_axis(axis, ang):
    x, y, z = unit(axis)
    c, s = math.cos(ang), math.sin(ang)
    C = 1.0 - c
    return np.array([[c + x * x * C, x * y * C - z * s, x * z * C + y * s],
                     [y * x * C + z * s, c + y * y * C, y * z * C - x * s],
                     [z * x * C - y * s, z * y * C + x * s, c + z * z * C]])


def rot_between(a, b):
    """Rotation matrix taking unit vector a onto unit vector b."""
    a, b = unit(a), unit(b)
    v = np.cross(a, b)
    c = float(np.dot(a, b))
    if np.linalg.norm(v) < 1e-9:
        if c > 0:
            return np.eye(3)
        perp = np.cross(a, [1.0, 0, 0])
        if np.linalg.norm(perp) < 1e-6:
            perp = np.cross(a, [0, 1.0, 0])
        return rot_axis(perp, math.pi)
    return rot_axis(v, math.atan2(np.linalg.norm(v), c))


def smoothstep(e0, e1, x):
    t = np.clip((x - e0) / (e1 - e0), 0.0, 1.0)
    return t * t * (3.0 - 2.0 * t)


def ihash(*ints):
    """Fast deterministic hash of integer arrays -> float32 in [0, 1)."""
    h = np.full(np.broadcast_shapes(*[np.shape(i) for i in ints]), 0x2545F491, np.int64)
    for k, a in enumerate(ints):
        h = (h ^ (np.asarray(a, np.int64) * (0x9E3779B1 + 2 * k))) * 0x85EBCA77
        h = h ^ (h >> 13)
    return ((h & 0xFFFFFF).astype(np.float32) / np.float32(16777216.0))


def srgb_to_lin(c):
    c = np.asarray(c, np.float64)
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def lin_to_srgb(x):
    x = np.clip(x, 0.0, 1.0)
    return np.where(x <= 0.0031308, 12.92 * x, 1.055 * np.power(x, 1 / 2.4) - 0.055)


def lin(rgb255):
    return srgb_to_lin(np.asarray(rgb255, np.float64) / 255.0).astype(np.float32)


def jitter_rgb(rng, rgb255, amt=0.05):
    c = np.asarray(rgb255, np.float64)
    c = c * (1.0 + rng.normal(0, amt, 3)) * (1.0 + rng.normal(0, amt))
    return lin(np.clip(c, 0, 255))


def kelvin_rgb(k):
    """Approximate linear RGB of a black body, normalised to luminance 1."""
    t = k / 100.0
    r = 255.0 if t <= 66 else 329.698727446 * (t - 60) ** -0.1332047592
    g = 99.4708025861 * math.log(t) - 161.1195681661 if t <= 66 else 288.1221695283 * (t - 60) ** -0.0755148492
    b = 255.0 if t >= 66 else (0.0 if t <= 19 else 138.5177312231 * math.log(t - 10) - 305.0447927307)
    c = lin(np.clip([r, g, b], 1, 255))
    return c / (0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2])


def pick(rng, items, weights=None):
    if weights is None:
        return items[int(rng.integers(len(items)))]
    w = np.asarray(weights, float)
    return items[int(rng.choice(len(items), p=w / w.sum()))]


def fixpts(p):
    """Polygon points for cv2 fill functions with 4 fractional bits."""
    return np.round(np.asarray(p, np.float64).reshape(-1, 2) * 16.0).astype(np.int32).reshape(-1, 1, 2)


def newell_normal(P):
    P = np.asarray(P, float)
    Q = np.roll(P, -1, axis=0)
    n = np.array([np.sum((P[:, 1] - Q[:, 1]) * (P[:, 2] + Q[:, 2])),
                  np.sum((P[:, 2] - Q[:, 2]) * (P[:, 0] + Q[:, 0])),
                  np.sum((P[:, 0] - Q[:, 0]) * (P[:, 1] + Q[:, 1]))])
    return unit(n)


def clip_poly_z(Pc, znear):
    """Sutherland-Hodgman clip of a camera-space polygon (N,3) to z >= znear."""
    out = []
    n = len(Pc)
    for i in range(n):
        a, b = Pc[i], Pc[(i + 1) % n]
        ina, inb = a[2] >= znear, b[2] >= znear
        if ina:
            out.append(a)
        if ina != inb:
            t = (znear - a[2]) / (b[2] - a[2])
            out.append(a + t * (b - a))
    return np.array(out) if len(out) >= 3 else None


def hull2d(P):
    h = cv2.convexHull(np.asarray(P, np.float32).reshape(-1, 1, 2))
    return h.reshape(-1, 2).astype(np.float64)


def polys_overlap(A, B, margin=0.0):
    """Separating-axis test for two convex 2-D polygons (with a clearance margin)."""
    for P in (A, B):
        n = len(P)
        for i in range(n):
            e = P[(i + 1) % n] - P[i]
            ln = math.hypot(e[0], e[1])
            if ln < 1e-9:
                continue
            ax = np.array([-e[1], e[0]]) / ln
            pa, pb = A @ ax, B @ ax
            if pa.max() + margin <= pb.min() or pb.max() + margin <= pa.min():
                return False
    return True


# ============================================================ procedural noise
class NoiseBank:
    """A few periodic smooth noise tiles sampled at world coordinates."""

    def __init__(self, rng, n=256, count=6):
        self.n = n
        f = np.fft.fftfreq(n)
        filt = np.exp(-2 * np.pi ** 2 * 1.5 ** 2 * (f[None, :] ** 2 + f[:, None] ** 2))
        self.tiles = []
        for _ in range(count):
            w = rng.standard_normal((n, n))
            t = np.real(np.fft.ifft2(np.fft.fft2(w) * filt))
            self.tiles.append(((t - t.mean()) / t.std()).astype(np.float32))

    def at(self, X, Y, feat, k=0, texel=None, ox=0.0, oy=0.0):
        """Noise (mean 0, sd ~1) with features of about `feat` mm at X, Y (mm).
        With `texel` (mm per sample) the amplitude fades where features alias."""
        sc = np.float32(4.0 / feat)
        u = np.asarray(X, np.float32) * sc + np.float32(ox)
        v = np.asarray(Y, np.float32) * sc + np.float32(oy)
        # remap works on 16-bit coordinates: wrap only when needed
        if max(abs(float(u.min())), abs(float(u.max()))) > 30000:
            u = np.mod(u, self.n).astype(np.float32)
        if max(abs(float(v.min())), abs(float(v.max()))) > 30000:
            v = np.mod(v, self.n).astype(np.float32)
        out = cv2.remap(self.tiles[k % len(self.tiles)], u, v, cv2.INTER_LINEAR,
                        borderMode=cv2.BORDER_WRAP)
        if texel is not None:
            out *= float(np.clip((feat / texel - 1.0) / 2.0, 0.0, 1.0))
        return out


# ============================================================ camera
class Intrinsics:
    """Output camera (W x H, focal f, principal point, radial k1/k2) plus the
    padded pinhole canvas (supersampled by SS) the scene is rendered on."""

    def __init__(self, W, H, f, cx, cy, k1, k2):
        self.W, self.H, self.f, self.cx, self.cy = W, H, f, cx, cy
        # keep the distortion invertible over the frame
        xs = np.array([0, W - 1, 0, W - 1], float)
        ys = np.array([0, 0, H - 1, H - 1], float)
        rdmax = float(np.max(np.hypot((xs - cx) / f, (ys - cy) / f)))
        for _ in range(30):
            r = np.linspace(0, 3, 601)
            g = r * (1 + k1 * r ** 2 + k2 * r ** 4)
            dg = 1 + 3 * k1 * r ** 2 + 5 * k2 * r ** 4
            bad = np.nonzero(dg < 0.35)[0]
            rlim = r[bad[0]] if len(bad) else 3.0
            glim = np.interp(rlim, r, g)
            if glim > rdmax * 1.05 and (rlim >= 3.0 or rlim > 1.2 * rdmax):
                break
            k1 *= 0.7
            k2 *= 0.7
        self.k1, self.k2 = k1, k2
        # pad the canvas so the pinhole image covers the whole distorted frame
        t = np.linspace(0, 1, 200)
        bx = np.concatenate([t * (W - 1), t * (W - 1), np.zeros(200), np.full(200, W - 1.0)])
        by = np.concatenate([np.zeros(200), np.full(200, H - 1.0), t * (H - 1), t * (H - 1)])
        ux, uy = self.undistort_px(bx, by)
        self.ox1 = int(math.ceil(max(0.0, -ux.min()))) + 3
        self.oy1 = int(math.ceil(max(0.0, -uy.min()))) + 3
        self.cw1 = int(math.ceil(max(ux.max(), W - 1.0))) + self.ox1 + 4
        self.ch1 = int(math.ceil(max(uy.max(), H - 1.0))) + self.oy1 + 4
        self.cw1 += self.cw1 % 2          # even, so that a half-size grid aligns exactly
        self.ch1 += self.ch1 % 2
        self.CW, self.CH = self.cw1 * SS, self.ch1 * SS
        # canvas intrinsics: hi-res (h) and 1x (c1)
        self.fh = SS * f
        self.cxh = SS * (cx + self.ox1) + (SS - 1) / 2.0
        self.cyh = SS * (cy + self.oy1) + (SS - 1) / 2.0
        self.cx1 = cx + self.ox1
        self.cy1 = cy + self.oy1
        # distortion maps: output pixel -> canvas pixel (hi-res and 1x)
        hx, hy = np.meshgrid(np.arange(W * SS, dtype=np.float64), np.arange(H * SS, dtype=np.float64))
        ox_, oy_ = self.undistort_px((hx - (SS - 1) / 2.0) / SS, (hy - (SS - 1) / 2.0) / SS, fast=True)
        mx = (SS * (ox_ + self.ox1) + (SS - 1) / 2.0).astype(np.float32)
        my = (SS * (oy_ + self.oy1) + (SS - 1) / 2.0).astype(np.float32)
        self.map_h = cv2.convertMaps(mx, my, cv2.CV_16SC2)
        gx, gy = np.meshgrid(np.arange(W, dtype=np.float64), np.arange(H, dtype=np.float64))
        ux1, uy1 = self.undistort_px(gx, gy, fast=True)
        self.map1_x = (ux1 + self.ox1).astype(np.float32)
        self.map1_y = (uy1 + self.oy1).astype(np.float32)

    def undistort_n(self, xd, yd):
        rd = np.hypot(xd, yd)
        r = rd.copy()
        for _ in range(12):
            r2 = r * r
            g = r * (1 + self.k1 * r2 + self.k2 * r2 * r2) - rd
            dg = 1 + 3 * self.k1 * r2 + 5 * self.k2 * r2 * r2
            r = r - g / dg
        s = np.where(rd > 1e-12, r / np.maximum(rd, 1e-12), 1.0)
        return xd * s, yd * s

    def undistort_px(self, u, v, fast=False):
        xd = (np.asarray(u, float) - self.cx) / self.f
        yd = (np.asarray(v, float) - self.cy) / self.f
        if fast:      # radial scale from a finely sampled 1-D table (error << 1e-6 px)
            rd = np.hypot(xd, yd)
            tab = np.linspace(0, float(rd.max()) * 1.001 + 1e-6, 8192)
            tx, _ = self.undistort_n(tab, np.zeros_like(tab))
            sc = np.interp(rd, tab[1:], tx[1:] / tab[1:])
            xu, yu = xd * sc, yd * sc
        else:
            xu, yu = self.undistort_n(xd, yd)
        return self.f * xu + self.cx, self.f * yu + self.cy

    def distort_n(self, x, y):
        r2 = x * x + y * y
        s = 1 + self.k1 * r2 + self.k2 * r2 * r2
        return x * s, y * s


class View:
    """One camera pose (world -> camera rotation R, centre C) with intrinsics."""

    def __init__(self, intr, pos, target, roll):
        self.I = intr
        fwd = unit(np.asarray(target, float) - pos)
        right = unit(np.cross(fwd, [0.0, 0.0, 1.0]))
        down = np.cross(fwd, right)
        cr, sr = math.cos(roll), math.sin(roll)
        self.R = np.stack([cr * right + sr * down, -sr * right + cr * down, fwd])
        self.C = np.asarray(pos, float)
        self.target = np.asarray(target, float)

    def cam(self, P):
        return (np.asarray(P, float) - self.C) @ self.R.T

    def to_canvas(self, P):
        Pc = self.cam(P)
        z = Pc[..., 2]
        I = self.I
        return np.stack([I.fh * Pc[..., 0] / z + I.cxh, I.fh * Pc[..., 1] / z + I.cyh], -1), z

    def to_output(self, P):
        Pc = self.cam(P)
        xd, yd = self.I.distort_n(Pc[..., 0] / Pc[..., 2], Pc[..., 1] / Pc[..., 2])
        return np.stack([self.I.f * xd + self.I.cx, self.I.f * yd + self.I.cy], -1)

    def ray_world(self, u, v):
        """World direction of the ray through output pixel (u, v)."""
        xu, yu = self.I.undistort_n((u - self.I.cx) / self.I.f, (v - self.I.cy) / self.I.f)
        return self.R.T @ np.array([xu, yu, 1.0])

    def backproject(self, u, v, zh):
        d = self.ray_world(u, v)
        if d[2] > -1e-6:
            return None
        t = (zh - self.C[2]) / d[2]
        return self.C + t * d

    def plane_h(self, hires=True):
        """Homography world table plane (X, Y, 1) -> canvas pixels."""
        I = self.I
        K = (np.array([[I.fh, 0, I.cxh], [0, I.fh, I.cyh], [0, 0, 1.0]]) if hires else
             np.array([[I.f, 0, I.cx1], [0, I.f, I.cy1], [0, 0, 1.0]]))
        return K @ np.column_stack([self.R[:, 0], self.R[:, 1], -self.R @ self.C])

    def poly_to_canvas(self, Pw, hires=True, znear=5.0):
        """Project a world polygon, clipped to the near plane, to canvas points."""
        Pc = clip_poly_z(self.cam(Pw), znear)
        if Pc is None:
            return None
        I = self.I
        if hires:
            return np.stack([I.fh * Pc[:, 0] / Pc[:, 2] + I.cxh, I.fh * Pc[:, 1] / Pc[:, 2] + I.cyh], -1)
        return np.stack([I.f * Pc[:, 0] / Pc[:, 2] + I.cx1, I.f * Pc[:, 1] / Pc[:, 2] + I.cy1], -1)


# ============================================================ lighting
class Light:
    def __init__(self, kind, vec, colour, size, shadow=True):
        self.kind = kind                    # 'dir' (vec = direction to light) or 'point' (vec = position)
        self.vec = np.asarray(vec, float)
        self.colour = np.asarray(colour, np.float32)
        self.size = size                    # point: emitter size (mm); dir: angular size (rad)
        self.shadow = shadow
        self.ref = float(np.linalg.norm(self.vec)) if kind == 'point' else 1.0


class Env:
    def __init__(self, lights, sky, ground, refl_top, refl_bot):
        self.lights = lights
        self.sky = np.asarray(sky, np.float32)
        self.ground = np.asarray(ground, np.float32)
        self.refl_top = np.asarray(refl_top, np.float32)
        self.refl_bot = np.asarray(refl_bot, np.float32)


def shade(env, P, N, V=None, shin=40.0, key_shadow=None, wrap=0.0):
    """Hemisphere ambient, direct irradiance and a unit-strength Blinn-Phong
    lobe for points P with unit normals N (arrays (..., 3)); V = unit vectors
    towards the viewer.  Returns (ambient, direct, specular)."""
    P = np.asarray(P, np.float32)
    N = np.asarray(N, np.float32)
    Nz = N[..., 2:3]
    amb = env.sky * (0.5 + 0.5 * Nz) + env.ground * (0.5 - 0.5 * Nz)
    shape = np.broadcast_shapes(P.shape, N.shape)
    direct = np.zeros(shape, np.float32)
    spec = np.zeros(shape, np.float32)
    for li, L in enumerate(env.lights):
        if L.kind == 'dir':
            Ld = np.broadcast_to(L.vec.astype(np.float32), shape)
            E = L.colour
        else:
            D = L.vec.astype(np.float32) - P
            d2 = np.sum(D * D, axis=-1, keepdims=True)
            Ld = D / np.sqrt(d2)
            E = L.colour * (np.float32(L.ref ** 2) / d2)
        ndl = np.sum(N * Ld, axis=-1, keepdims=True)
        if wrap > 0:
            ndl = (ndl + wrap) / (1 + wrap)
        ndl = np.clip(ndl, 0, None)
        if li == 0 and key_shadow is not None:
            ndl = ndl * key_shadow
        direct += E * ndl
        if V is not None:
            Hh = Ld + V
            Hh = Hh / np.maximum(np.sqrt(np.sum(Hh * Hh, axis=-1, keepdims=True)), np.float32(1e-6))
            ndh = np.clip(np.sum(N * Hh, axis=-1, keepdims=True), 0, 1)
            spec += E * (np.float32((shin + 8) / (8 * math.pi)) * ndh ** np.float32(shin) * np.clip(ndl, 0, 1))
    return amb, direct, spec


def env_reflection(env, N, V, F0=0.04):
    """Fresnel-weighted reflection of the room (bright above, dark below)."""
    ndv = np.clip(np.sum(N * V, axis=-1, keepdims=True), 0, 1)
    Rz = 2 * ndv * N[..., 2:3] - V[..., 2:3]
    w = smoothstep(-0.15, 0.7, Rz).astype(np.float32)
    F = F0 + (1 - F0) * (1 - ndv) ** 5
    return (env.refl_top * w + env.refl_bot * (1 - w)) * F


# ============================================================ dice
COLOUR_SWATCHES = {
    'white': [(246, 246, 242), (238, 240, 242), (250, 250, 248)],
    'ivory': [(238, 228, 200), (230, 216, 182), (244, 236, 214)],
    'black': [(24, 24, 26), (36, 34, 38), (16, 16, 20)],
    'red': [(196, 28, 30), (150, 14, 22), (222, 52, 40)],
    'blue': [(32, 84, 192), (20, 40, 118), (56, 118, 214)],
    'green': [(30, 140, 62), (14, 86, 40), (70, 166, 84)],
    'yellow': [(244, 202, 30), (250, 222, 64), (232, 182, 24)],
    'purple': [(112, 46, 152), (68, 24, 108), (146, 74, 176)],
}
PIP_SWATCHES = {'black': (18, 18, 20), 'white': (242, 242, 238), 'gold': (226, 178, 70),
                'red': (196, 18, 24)}


def pip_layout(v, a, style):
    """Pip centres (x, y) in face coordinates for value v with offset a."""
    diag2 = [(-a, a), (a, -a)] if style.diag2 == 0 else [(a, a), (-a, -a)]
    diag3 = [(-a, a), (a, -a)] if style.diag3 == 0 else [(a, a), (-a, -a)]
    corners = [(-a, -a), (a, -a), (-a, a), (a, a)]
    if v == 1:
        return [(0.0, 0.0)]
    if v == 2:
        return diag2
    if v == 3:
        return [diag3[0], (0.0, 0.0), diag3[1]]
    if v == 4:
        return corners
    if v == 5:
        return corners + [(0.0, 0.0)]
    if style.rot6:
        return [(x, y) for y in (-a, a) for x in (-a, 0.0, a)]
    return [(x, y) for x in (-a, a) for y in (-a, 0.0, a)]


def rounded_cube_mesh(h, r, m):
    """Rounded cube of half size h and edge radius r with m facets per half
    quarter-arc.  Returns verts, quads (CCW seen from outside), quad normals,
    and the index of each face's flat central quad (by face value)."""
    t = [h - r + r * math.tan(math.pi / 4 * k / m) for k in range(1, m + 1)]
    g = [-x for x in reversed(t)] + [-(h - r), h - r] + t
    G = len(g)
    verts, vnorm, quads, flat = [], [], [], {}
    for v in range(1, 7):
        n, u, w = FACE_N[v], FACE_U[v], FACE_V[v]
        base = len(verts)
        for b in g:
            for a in g:
                q = n * h + u * a + w * b
                inner = np.clip(q, -(h - r), h - r)
                d = unit(q - inner)
                verts.append(inner + r * d)
                vnorm.append(d)
        for j in range(G - 1):
            for i in range(G - 1):
                if i == m and j == m:
                    flat[v] = len(quads)
                quads.append([base + j * G + i, base + j * G + i + 1,
                              base + (j + 1) * G + i + 1, base + (j + 1) * G + i])
    verts = np.array(verts)
    vnorm = np.array(vnorm)
    quads = np.array(quads)
    qn = vnorm[quads].mean(1)
    qn /= np.linalg.norm(qn, axis=1, keepdims=True)
    return verts, quads, qn, flat


class DieStyle:
    """Look of one kind of die (shared by all dice of a matched set)."""

    def __init__(self, rng, noise, kind=None, size=None):
        self.noise = noise
        kind = kind or pick(rng, ['standard', 'casino', 'asian', 'translucent', 'marbled'],
                            [0.40, 0.10, 0.10, 0.22, 0.18])
        self.kind = kind
        if size is None:
            size = {'standard': rng.uniform(11, 22), 'casino': rng.uniform(16, 25),
                    'asian': rng.uniform(10, 18), 'translucent': rng.uniform(12, 21),
                    'marbled': rng.uniform(13, 20)}[kind]
            if rng.random() < 0.12:
                size = rng.uniform(10, 12.5)
        self.size = float(size)
        s = self.size
        self.material = {'translucent': 'translucent', 'casino': 'translucent',
                         'marbled': 'marbled'}.get(kind, 'opaque')
        if kind == 'casino' and rng.random() < 0.3:
            self.material = 'opaque'
        # body colour
        if kind == 'asian':
            name = pick(rng, ['white', 'ivory'])
        elif self.material == 'translucent':
            name = pick(rng, ['red', 'blue', 'green', 'purple', 'yellow', 'white'],
                        [0.3, 0.22, 0.16, 0.12, 0.1, 0.1])
        else:
            name = pick(rng, ['white', 'ivory', 'black', 'red', 'blue', 'green', 'yellow', 'purple'],
                        [0.2, 0.13, 0.16, 0.14, 0.12, 0.09, 0.08, 0.08])
        self.colour = name
        self.body = jitter_rgb(rng, pick(rng, COLOUR_SWATCHES[name]), 0.04)
        self.body2 = None
        if self.material == 'marbled':
            b2 = pick(rng, ['white', 'black', 'gold', 'mix'])
            if b2 == 'white':
                self.body2 = lin((235, 235, 232))
            elif b2 == 'black':
                self.body2 = lin((20, 20, 22))
            elif b2 == 'gold':
                self.body2 = lin((214, 170, 72))
            else:
                other = pick(rng, [c for c in COLOUR_SWATCHES if c != name])
                self.body2 = jitter_rgb(rng, COLOUR_SWATCHES[other][0], 0.05)
            if b2 == 'white' and name in ('white', 'ivory'):
                self.body2 = lin((120, 120, 125))
            self.marble_amt = rng.uniform(0.15, 0.35)   # base colour stays dominant (it names the die)
            self.marble_feat = rng.uniform(0.25, 0.6) * s
        # pips
        light_body = name in ('white', 'ivory', 'yellow')
        if kind == 'asian':
            pipname = 'black'
        elif kind == 'casino':
            pipname = pick(rng, ['white', 'white', 'gold', 'black'] if not light_body else ['black', 'red'])
        elif light_body:
            pipname = pick(rng, ['black', 'red', 'gold'], [0.78, 0.14, 0.08])
            if name == 'yellow' and pipname == 'gold':
                pipname = 'black'
        elif name == 'black':
            pipname = pick(rng, ['white', 'gold', 'red'], [0.55, 0.3, 0.15])
        else:
            pipname = pick(rng, ['white', 'gold', 'black'], [0.6, 0.25, 0.15])
            if name in ('blue', 'purple') and pipname == 'black':
                pipname = 'white'
        self.pipname = pipname
        self.pip = lin(PIP_SWATCHES[pipname]) * (1 + rng.normal(0, 0.03))
        self.pip_metal = pipname == 'gold' and rng.random() < 0.85
        self.red = lin(PIP_SWATCHES['red'])
        self.asian = kind == 'asian'
        self.red4 = self.asian and rng.random() < 0.5
        self.drilled = (kind != 'casino') and rng.random() < 0.68
        # geometry
        if kind == 'casino':
            self.r = 0.01 * s
            m = 1
        else:
            self.r = rng.uniform(0.05, 0.15) * s
            m = 2
        h = s / 2
        self.hf = h - self.r                       # half size of the flat face
        self.pip_r = rng.uniform(0.065, 0.095) * s
        self.pip_a = rng.uniform(0.24, 0.30) * s
        self.pip_a = min(self.pip_a, self.hf - 0.035 * s - self.pip_r)
        self.pip_a = max(self.pip_a, 2.15 * self.pip_r)
        self.one_r = self.pip_r * (rng.uniform(1.0, 1.35) if rng.random() < 0.35 else 1.0)
        if self.asian:
            self.one_r = rng.uniform(0.15, 0.19) * s
        self.one_r = min(self.one_r, self.hf - 0.03 * s)
        self.dimple = rng.uniform(0.45, 0.8)
        self.diag2 = int(rng.integers(2))
        self.diag3 = int(rng.integers(2))
        self.rot6 = bool(rng.random() < 0.5)
        # surface finish
        glossy = self.material == 'translucent' or rng.random() < 0.55
        self.ks = rng.uniform(0.25, 0.55) if glossy else rng.uniform(0.04, 0.12)
        self.shin = rng.uniform(60, 260) if glossy else rng.uniform(12, 40)
        self.F0 = 0.045 if glossy else 0.02
        if self.material == 'translucent':
            self.alpha_front = rng.uniform(0.15, 0.35)
            self.alpha_vol = rng.uniform(0.15, 0.4)
            mx = max(float(self.body.max()), 1e-3)
            self.tint = np.clip(self.body / mx, 0.02, 1.0) ** 0.5
            if name == 'white':          # clear / frosted
                self.tint = np.array([0.92, 0.93, 0.95])
                self.body = self.body * 0.6
        self.verts, self.quads, self.qn, self.flat = rounded_cube_mesh(h, self.r, m)
        self.salt = rng.uniform(0, 200, 2)
        self._maps = {}

    # ---- face maps (albedo, pip coverage, local normals, ...) per texture size
    def grid(self, T):
        l = ((np.arange(T) + 0.5) / T * 2 - 1) * self.hf
        X = np.broadcast_to(l[None, :], (T, T)).astype(np.float32)
        Y = np.broadcast_to(-l[:, None], (T, T)).astype(np.float32)
        return X, Y

    def pips(self, v):
        """List of (x, y, radius, colour) for face value v."""
        out = []
        for (x, y) in pip_layout(v, self.pip_a, self):
            rad, col = self.pip_r, self.pip
            if v == 1:
                rad = self.one_r
                if self.asian:
                    col = self.red
            if v == 4 and self.red4:
                col = self.red
            out.append((x, y, rad, col))
        return out

    def maps(self, v, T):
        key = (v, T)
        if key in self._maps:
            return self._maps[key]
        if T < 128:                      # smaller sizes: area-resampled from the 128 px master
            m = self.maps(v, 128)
            rs = {k: cv2.resize(a, (T, T), interpolation=cv2.INTER_AREA) for k, a in m.items()}
            rs['N'] /= np.linalg.norm(rs['N'], axis=-1, keepdims=True)
            self._maps[key] = rs
            return rs
        X, Y = self.grid(T)
        px = 2 * self.hf / T
        alb = np.empty((T, T, 3), np.float32)
        alb[:] = self.body
        if self.material == 'marbled':
            N = self.noise
            o = self.salt + v * 37.0
            Xs, Ys = X + o[0] * 10, Y + o[1] * 10
            w1 = N.at(Xs, Ys, self.marble_feat * 1.6, 3)
            sw = np.sin((Xs * 0.8 + Ys * 0.5) / self.marble_feat * 2.2 + 2.6 * w1 +
                        1.2 * N.at(Xs, Ys, self.marble_feat * 0.6, 4))
            mk = smoothstep(1 - 2 * self.marble_amt, 1.0, sw * 0.5 + 0.5 + 0.15 * N.at(Xs, Ys, self.marble_feat * 0.3, 5))
            alb = alb * (1 - mk[..., None]) + self.body2.astype(np.float32) * mk[..., None]
        cov = np.zeros((T, T), np.float32)
        nx = np.zeros((T, T), np.float32)
        ny = np.zeros((T, T), np.float32)
        ao = np.ones((T, T), np.float32)
        metal = np.zeros((T, T), np.float32)
        for (x0, y0, rad, col) in self.pips(v):
            dx, dy = X - x0, Y - y0
            d = np.hypot(dx, dy)
            c = np.clip((rad - d) / px + 0.5, 0, 1).astype(np.float32)
            alb = alb * (1 - c[..., None]) + np.asarray(col, np.float32) * c[..., None]
            cov = np.maximum(cov, c)
            if self.drilled:
                rr = np.clip(d / rad, 0, 0.96)
                slope = np.clip(self.dimple * rr / np.sqrt(1 - rr * rr), 0, 2.5)
                inside = d < rad
                dd = np.maximum(d, 1e-6)
                nx += np.where(inside, -dx / dd * slope, 0).astype(np.float32)
                ny += np.where(inside, -dy / dd * slope, 0).astype(np.float32)
                ao *= (1 - 0.35 * c * (1 - 0.5 * rr)).astype(np.float32)
            if self.pip_metal and col is self.pip:
                metal = np.maximum(metal, c)
        Nl = np.stack([nx, ny, np.ones_like(nx)], -1)
        Nl /= np.linalg.norm(Nl, axis=-1, keepdims=True)
        res = dict(alb=alb, cov=cov, N=Nl.astype(np.float32), ao=ao, metal=metal)
        self._maps[key] = res
        return res


class Die:
    def __init__(self, style, P, R, tilted):
        self.style, self.P, self.R, self.tilted = style, np.asarray(P, float), R, tilted
        self.uid = -1

    @property
    def top(self):
        z = {v: (self.R @ FACE_N[v])[2] for v in range(1, 7)}
        return max(z, key=z.get)

    def world_verts(self):
        return self.P + self.style.verts @ self.R.T

    def footprint(self):
        V = self.world_verts()
        return hull2d(V[:, :2])

    def top_centre(self):
        return self.P + self.R @ FACE_N[self.top] * (self.style.size / 2)


def die_rotation(rng, top, yaw):
    """Die orientation with face `top` up and yaw angle about the vertical."""
    return rot_axis([0, 0, 1], yaw) @ rot_between(FACE_N[top], [0, 0, 1])


# ============================================================ layers
class Layer:
    """Supersampled drawing surface for one object over a canvas ROI.
    C: premultiplied colour, A: coverage, Tr: transmittance (translucent)."""

    def __init__(self, x0, y0, w, h, q, translucent=False):
        self.x0, self.y0, self.w, self.h, self.q = x0, y0, w, h, q
        self.C = np.zeros((h * q, w * q, 3), np.float32)
        self.A = np.zeros((h * q, w * q), np.float32)
        self.Tr = np.ones((h * q, w * q, 3), np.float32) if translucent else None
        self.empty = True

    def L(self, pts):
        return (np.asarray(pts, np.float64) - (self.x0, self.y0)) * self.q + (self.q - 1) / 2.0

    def fill(self, pts, colour):
        p = [fixpts(pts)]
        cv2.fillPoly(self.C, p, tuple(float(c) for c in colour), cv2.LINE_8, 4)
        cv2.fillPoly(self.A, p, (1.0,), cv2.LINE_8, 4)
        if self.Tr is not None:
            cv2.fillPoly(self.Tr, p, (0.0, 0.0, 0.0), cv2.LINE_8, 4)
        self.empty = False

    def blend_fills(self, polys, colours, alpha, tint):
        """Translucent flat polygons (non-overlapping): one blend for all."""
        allp = np.concatenate([np.asarray(p, float).reshape(-1, 2) for p in polys])
        Hl, Wl = self.A.shape
        x0 = max(int(math.floor(allp[:, 0].min())) - 1, 0)
        y0 = max(int(math.floor(allp[:, 1].min())) - 1, 0)
        x1 = min(int(math.ceil(allp[:, 0].max())) + 2, Wl)
        y1 = min(int(math.ceil(allp[:, 1].max())) + 2, Hl)
        if x1 <= x0 or y1 <= y0:
            return
        Cb = np.zeros((y1 - y0, x1 - x0, 3), np.float32)
        M = np.zeros((y1 - y0, x1 - x0), np.float32)
        for p, c in zip(polys, colours):
            fp = [fixpts(np.asarray(p, float).reshape(-1, 2) - (x0, y0))]
            cv2.fillPoly(Cb, fp, tuple(float(x) for x in c), cv2.LINE_8, 4)
            cv2.fillPoly(M, fp, (1.0,), cv2.LINE_8, 4)
        m = M[..., None]
        K = 1 - m + m * np.float32(1 - alpha) * np.asarray(tint, np.float32)
        sl = (slice(y0, y1), slice(x0, x1))
        if self.empty:                   # nothing drawn yet: C = 0, Tr = 1, A = 0
            self.C[sl] = Cb * (m * np.float32(alpha))
            if self.Tr is not None:
                self.Tr[sl] = K
            self.A[sl] = M
        else:
            self.C[sl] = self.C[sl] * K + Cb * (m * np.float32(alpha))
            if self.Tr is not None:
                self.Tr[sl] *= K
            self.A[sl] = np.maximum(self.A[sl], M)
        self.empty = False

    def warp(self, tex4, corners, trans4=None):
        """Warp a premultiplied (T,T,4) texture onto the quad `corners` (layer
        coords, order: top-left, top-right, bottom-right, bottom-left)."""
        T = tex4.shape[0]
        Hl, Wl = self.A.shape
        x0 = max(int(math.floor(corners[:, 0].min())) - 1, 0)
        y0 = max(int(math.floor(corners[:, 1].min())) - 1, 0)
        x1 = min(int(math.ceil(corners[:, 0].max())) + 2, Wl)
        y1 = min(int(math.ceil(corners[:, 1].max())) + 2, Hl)
        if x1 <= x0 or y1 <= y0:
            return
        src = np.float32([[-0.5, -0.5], [T - 0.5, -0.5], [T - 0.5, T - 0.5], [-0.5, T - 0.5]])
        dst = (corners - (x0, y0)).astype(np.float32)
        Hm = cv2.getPerspectiveTransform(src, dst)
        size = (x1 - x0, y1 - y0)
        w = cv2.warpPerspective(tex4, Hm, size, flags=cv2.INTER_LINEAR,
                                borderMode=cv2.BORDER_CONSTANT, borderValue=0)
        m = w[..., 3]
        sl = (slice(y0, y1), slice(x0, x1))
        if trans4 is None:
            K = (1 - m)[..., None]
        else:
            wt = cv2.warpPerspective(trans4, Hm, size, flags=cv2.INTER_LINEAR,
                                     borderMode=cv2.BORDER_CONSTANT, borderValue=0)
            K = 1 - wt[..., 3:4] + wt[..., :3]
        self.C[sl] = self.C[sl] * K + w[..., :3]
        if self.Tr is not None:
            self.Tr[sl] *= K
        self.A[sl] = np.maximum(self.A[sl], m)
        self.empty = False

    def finish(self):
        if self.q == 1:
            return self.C, self.A, self.Tr
        sz = (self.w, self.h)
        C = cv2.resize(self.C, sz, interpolation=cv2.INTER_AREA)
        A = cv2.resize(self.A, sz, interpolation=cv2.INTER_AREA)
        Tr = None if self.Tr is None else cv2.resize(self.Tr, sz, interpolation=cv2.INTER_AREA)
        return C, A, Tr


def roi_for(uv, intr, pad=3):
    x0 = int(math.floor(uv[:, 0].min())) - pad
    y0 = int(math.floor(uv[:, 1].min())) - pad
    x1 = int(math.ceil(uv[:, 0].max())) + pad + 1
    y1 = int(math.ceil(uv[:, 1].max())) + pad + 1
    x0, y0 = max(x0, 0), max(y0, 0)
    x1, y1 = min(x1, intr.CW), min(y1, intr.CH)
    if x1 - x0 < 2 or y1 - y0 < 2:
        return None
    return x0, y0, x1, y1


def convex_depth(view, planes, x0, y0, w, h, mirror=False):
    """Per-pixel camera depth of a convex object over a canvas ROI: the ray's
    entry point = max over the object's front-facing planes (n . X = k)."""
    I = view.I
    xn = ((np.arange(x0, x0 + w, dtype=np.float32) - I.cxh) / I.fh)[None, :]
    yn = ((np.arange(y0, y0 + h, dtype=np.float32) - I.cyh) / I.fh)[:, None]
    depth = np.full((h, w), 1e-3, np.float32)
    for n, k in planes:
        if mirror:
            n = n * np.array([1, 1, -1.0])
        dc = k - float(n @ view.C)
        if dc >= 0:            # back-facing plane
            continue
        nc = view.R @ n
        den = nc[0] * xn + nc[1] * yn + nc[2]
        z = np.where(den < -1e-6, dc / np.minimum(den, -1e-6), 1e-3).astype(np.float32)
        depth = np.maximum(depth, z)
    return depth


def choose_q(uv):
    ext = max(np.ptp(uv[:, 0]), np.ptp(uv[:, 1]), 1.0)
    return int(np.clip(math.ceil(110.0 / ext), 1, 4))


# ------------------------------------------------------------ die drawing
def face_texture(env, sty, v, T, Pf, uw, vw, nw, cam, back=False):
    """Lit, premultiplied RGBA texture of face v (plus transmission texture
    for translucent dice).  Lighting is evaluated on a grid of at most 48x48
    texels (it is smooth) and upsampled; albedo and pip coverage are full size."""
    Tl = min(T, 48)
    mp = sty.maps(v, T)
    ml = sty.maps(v, Tl)
    X, Y = sty.grid(Tl)
    f32 = np.float32
    Pw = Pf.astype(f32) + X[..., None] * uw.astype(f32) + Y[..., None] * vw.astype(f32)
    Nl = ml['N']
    Nw = Nl[..., 0:1] * uw.astype(f32) + Nl[..., 1:2] * vw.astype(f32) + Nl[..., 2:3] * nw.astype(f32)

    def up(a):
        return a if Tl == T else cv2.resize(a, (T, T), interpolation=cv2.INTER_LINEAR)

    cov = mp['cov'][..., None]
    trans = sty.material == 'translucent'
    if back:
        # pips of a far face seen through a translucent body
        amb, dif, _ = shade(env, Pw, -Nw, None, wrap=0.8)
        col = mp['alb'] * up((amb + 0.6 * dif) * 0.8)
        a = cov * 0.75
        return np.concatenate([col * a, a], -1).astype(f32), None
    Vd = cam.astype(f32) - Pw
    Vd /= np.sqrt(np.sum(Vd * Vd, axis=-1, keepdims=True))
    amb, dif, spl = shade(env, Pw, Nw, Vd, sty.shin, wrap=0.5 if trans else 0.0)
    metal = ml['metal'][..., None]
    kspec = sty.ks * (1 - metal) + metal * 0.7 * np.asarray(sty.pip / max(sty.pip.max(), 1e-3), f32)
    refl = env_reflection(env, Nw, Vd, sty.F0)
    covl = ml['cov'][..., None]
    diff_l = up(amb * ml['ao'][..., None] + dif)
    spec_l = up(spl * kspec + refl * (1 - covl * 0.5))
    alb = mp['alb'] * (1 - 0.55 * mp['metal'][..., None])
    col = alb * diff_l + spec_l
    if not trans:
        return np.concatenate([col, np.ones_like(cov)], -1).astype(f32), None
    # translucent: body lets light through, pips are opaque paint
    alpha = sty.alpha_front * (1 - cov) + cov
    glow = up(amb + 0.7 * dif) * (sty.body.astype(f32) * 0.9)
    colb = col * cov + (glow + spec_l) * (1 - cov)
    tex = np.concatenate([colb * alpha, alpha], -1).astype(f32)
    t = (1 - alpha) * np.asarray(sty.tint, f32)
    tr = np.concatenate([t, np.ones_like(cov)], -1).astype(f32)
    return tex, tr


def tex_size(corners, cap=128):
    e = max(np.linalg.norm(corners[1] - corners[0]), np.linalg.norm(corners[3] - corners[0]),
            np.linalg.norm(corners[2] - corners[1]), np.linalg.norm(corners[2] - corners[3]))
    T = 16
    while T < e and T < cap:
        T *= 2
    return T


def draw_die(view, env, die, mirror=False):
    sty = die.style
    R, P = die.R, die.P
    Mz = np.array([1, 1, -1.0])
    Vw = die.world_verts()
    Vp = Vw * Mz if mirror else Vw
    cam = view.C * Mz if mirror else view.C       # viewer for shading the real geometry
    uv, z = view.to_canvas(Vp)
    if z.min() < 5:
        return None
    roi = roi_for(uv, view.I)
    if roi is None:
        return None
    x0, y0, x1, y1 = roi
    q = 1 if mirror else choose_q(uv)          # reflections are dim and blurred: draw them cheaply
    tcap = 32 if mirror else 128
    trans = sty.material == 'translucent'
    layer = Layer(x0, y0, x1 - x0, y1 - y0, q, trans)
    Lp = layer.L(uv)
    qn = sty.qn @ R.T
    cent = Vw[sty.quads].mean(1)
    Vd = cam - cent
    Vd /= np.linalg.norm(Vd, axis=1, keepdims=True)
    facing = np.sum(Vd * qn, axis=1) > 0
    amb, dif, spl = shade(env, cent, qn, Vd, sty.shin, wrap=0.5 if trans else 0.0)
    refl = env_reflection(env, qn, Vd, sty.F0)
    body = sty.body if sty.material != 'marbled' else 0.7 * sty.body + 0.3 * sty.body2
    if trans:
        qcol = body * (amb + 0.7 * dif) * 0.9 + spl * sty.ks + refl
    else:
        qcol = body * (amb + dif) + spl * sty.ks + refl
    flat_q = set(sty.flat.values())
    bevel = [i for i in np.nonzero(facing)[0] if i not in flat_q]
    hull = hull2d(Lp)
    h = sty.size / 2
    if not trans:
        hc = qcol[bevel].mean(0) if bevel else body * 0.5
        layer.fill(hull, hc)
        for i in bevel:
            layer.fill(Lp[sty.quads[i]], qcol[i])
    else:
        vol = body * (env.sky + 0.5 * sum(float(np.mean(L.colour)) for L in env.lights)) * 0.5
        layer.blend_fills([hull], [vol], sty.alpha_vol, sty.tint)
        for v in range(1, 7):                      # far faces: pips seen through the body
            qi = sty.flat[v]
            if facing[qi] or mirror:
                continue
            corners = face_corners_world(die, v, sty.hf)
            cl = layer.L(view.to_canvas(corners * Mz if mirror else corners)[0])
            T = tex_size(cl, 64)
            tex, _ = face_texture(env, sty, v, T, P + R @ FACE_N[v] * h, R @ FACE_U[v], R @ FACE_V[v],
                                  R @ FACE_N[v], cam, back=True)
            layer.warp(tex, cl)
        if bevel:
            layer.blend_fills([Lp[sty.quads[i]] for i in bevel], [qcol[i] for i in bevel],
                              min(1.0, sty.alpha_front * 1.6), sty.tint)
    for v in range(1, 7):
        qi = sty.flat[v]
        if not facing[qi]:
            continue
        corners = face_corners_world(die, v, sty.hf)
        cl = layer.L(view.to_canvas(corners * Mz if mirror else corners)[0])
        T = tex_size(cl, tcap)
        tex, tr = face_texture(env, sty, v, T, P + R @ FACE_N[v] * h, R @ FACE_U[v], R @ FACE_V[v],
                               R @ FACE_N[v], cam)
        layer.warp(tex, cl, tr)
    C, A, Tr = layer.finish()
    planes = [(R @ FACE_N[v], float((R @ FACE_N[v]) @ P + h)) for v in range(1, 7)]
    depth = convex_depth(view, planes, x0, y0, x1 - x0, y1 - y0, mirror)
    res = dict(x0=x0, y0=y0, w=x1 - x0, h=y1 - y0, C=C, A=A, Tr=Tr, depth=depth)
    if not mirror:
        tv = die.top
        sq = face_corners_world(die, tv, h)
        tp = view.to_canvas(sq)[0] - (x0, y0)
        tm = np.zeros((y1 - y0, x1 - x0), np.uint8)
        cv2.fillPoly(tm, [fixpts(tp)], 1, cv2.LINE_8, 4)
        res['topmask'] = tm
    return res


def face_corners_world(die, v, half):
    R, P = die.R, die.P
    n, u, w = R @ FACE_N[v], R @ FACE_U[v], R @ FACE_V[v]
    c = P + n * (die.style.size / 2)
    return np.array([c - u * half + w * half, c + u * half + w * half,
                     c + u * half - w * half, c - u * half - w * half])


# ============================================================ clutter parts
class Part:
    """Convex polyhedral prop.  faces: list of dicts with 'idx' (vertex
    indices, CCW from outside), 'alb' (linear RGB) and optionally 'tex'
    (RGBA linear texture) + 'tc' (4 world points of its corners TL,TR,BR,BL)."""

    def __init__(self, verts, faces, name, ks=0.05, shin=30.0, shadow=True):
        self.V = np.asarray(verts, float)
        self.faces = faces
        self.name = name
        self.ks, self.shin, self.shadow = ks, shin, shadow
        c = self.V.mean(0)
        for f in faces:
            Pf = self.V[f['idx']]
            n = newell_normal(Pf)
            if np.dot(n, Pf.mean(0) - c) < 0:
                n = -n
            f['n'] = n
            f['k'] = float(n @ Pf.mean(0))
        self.height = float(self.V[:, 2].max())
        self.uid = -1

    def footprint(self):
        return hull2d(self.V[:, :2])

    @property
    def centre(self):
        return self.V.mean(0)


def place_local(Vloc, R, t):
    return np.asarray(Vloc, float) @ R.T + t


def make_box(t, yaw, dims, albs, z0=0.0, top_tex=None, side_tex=None, name='box', ks=0.05, shin=30.0,
             R=None):
    lx, ly, lz = dims[0] / 2, dims[1] / 2, dims[2]
    loc = np.array([[-lx, -ly, z0], [lx, -ly, z0], [lx, ly, z0], [-lx, ly, z0],
                    [-lx, -ly, z0 + lz], [lx, -ly, z0 + lz], [lx, ly, z0 + lz], [-lx, ly, z0 + lz]])
    Rm = R if R is not None else rot_axis([0, 0, 1], yaw)
    V = place_local(loc, Rm, np.asarray(t, float))
    faces = [dict(idx=[4, 5, 6, 7], alb=albs[0]), dict(idx=[3, 2, 1, 0], alb=albs[0] * 0.8),
             dict(idx=[1, 2, 6, 5], alb=albs[1]), dict(idx=[3, 0, 4, 7], alb=albs[2]),
             dict(idx=[2, 3, 7, 6], alb=albs[3]), dict(idx=[0, 1, 5, 4], alb=albs[4])]
    if top_tex is not None:
        faces[0]['tex'] = top_tex
        faces[0]['tc'] = V[[7, 6, 5, 4]]
    if side_tex is not None:            # page edges etc. on the long sides
        for fi, order in ((2, [6, 5, 1, 2]), (4, [7, 6, 2, 3]), (5, [5, 4, 0, 1]), (3, [4, 7, 3, 0])):
            if side_tex[fi - 2] is not None:
                faces[fi]['tex'] = side_tex[fi - 2]
                faces[fi]['tc'] = V[order]
    return Part(V, faces, name, ks, shin)


def make_prism(profile, length, R, t, albs, name, tex_top=None, ks=0.08, shin=40.0):
    """Prism along local +z from 0 to length with a CCW 2-D profile (x, y)."""
    n = len(profile)
    loc = np.concatenate([np.c_[profile, np.zeros(n)], np.c_[profile, np.full(n, length)]])
    V = place_local(loc, R, t)
    faces = [dict(idx=list(range(n, 2 * n)), alb=albs[0]), dict(idx=list(range(n - 1, -1, -1)), alb=albs[0] * 0.8)]
    for i in range(n):
        j = (i + 1) % n
        faces.append(dict(idx=[i, j, n + j, n + i], alb=albs[1] if len(albs) == 2 else albs[1 + i % (len(albs) - 1)]))
    if tex_top is not None:
        rad = np.abs(profile).max()
        sq = np.array([[-rad, rad, length], [rad, rad, length], [rad, -rad, length], [-rad, -rad, length]])
        faces[0]['tex'] = tex_top
        faces[0]['tc'] = place_local(sq, R, t)
    return Part(V, faces, name, ks, shin)


def make_frustum(r0, r1, n, length, R, t, alb0, alb1, name, rot=0.0):
    """Convex frustum along local +z: radius r0 at 0, r1 at length (r1 may be ~0)."""
    a = rot + np.arange(n) * 2 * np.pi / n
    ring0 = np.c_[r0 * np.cos(a), r0 * np.sin(a), np.zeros(n)]
    if r1 < 1e-3:
        loc = np.vstack([ring0, [[0, 0, length]]])
        V = place_local(loc, R, t)
        faces = [dict(idx=list(range(n - 1, -1, -1)), alb=alb0)]
        for i in range(n):
            faces.append(dict(idx=[i, (i + 1) % n, n], alb=alb1))
    else:
        ring1 = np.c_[r1 * np.cos(a), r1 * np.sin(a), np.full(n, length)]
        V = place_local(np.vstack([ring0, ring1]), R, t)
        faces = [dict(idx=list(range(n - 1, -1, -1)), alb=alb0), dict(idx=list(range(n, 2 * n)), alb=alb1)]
        for i in range(n):
            j = (i + 1) % n
            faces.append(dict(idx=[i, j, n + j, n + i], alb=alb1))
    return Part(V, faces, name, 0.05, 20.0)


def regular_polygon(n, r, rot=0.0):
    a = rot + np.arange(n) * 2 * np.pi / n
    return np.c_[r * np.cos(a), r * np.sin(a)]


def draw_part(view, env, part, mirror=False):
    Mz = np.array([1, 1, -1.0])
    Vp = part.V * Mz if mirror else part.V
    cam = view.C * Mz if mirror else view.C
    uv, z = view.to_canvas(Vp)
    if z.min() < 8:
        return None
    roi = roi_for(uv, view.I)
    if roi is None:
        return None
    x0, y0, x1, y1 = roi
    q = 1 if max(np.ptp(uv[:, 0]), np.ptp(uv[:, 1])) > 200 else 2
    layer = Layer(x0, y0, x1 - x0, y1 - y0, q)
    Lp = layer.L(uv)
    vis = []
    for f in part.faces:
        Pf = part.V[f['idx']]
        c = Pf.mean(0)
        Vd = unit(cam - c)
        if np.dot(Vd, f['n']) <= 0:
            continue
        amb, dif, spl = shade(env, c[None], f['n'][None], Vd[None], part.shin)
        refl = env_reflection(env, f['n'][None].astype(np.float32), Vd[None].astype(np.float32), 0.03)
        vis.append((f, (amb + dif)[0], (spl * part.ks + refl * part.ks * 4)[0]))
    if not vis:
        return None
    meanc = np.mean([f['alb'] * l + s for f, l, s in vis], axis=0)
    layer.fill(hull2d(Lp), meanc)
    for f, l, s in vis:
        layer.fill(Lp[f['idx']], f['alb'] * l + s)
    for f, l, s in vis:
        if 'tex' in f:
            tex = f['tex']
            col = tex[..., :3] * l + s
            a = tex[..., 3:4]
            t4 = np.concatenate([col * a, a], -1).astype(np.float32)
            tc = f['tc'] * Mz if mirror else f['tc']
            layer.warp(t4, layer.L(view.to_canvas(tc)[0]))
    C, A, _ = layer.finish()
    planes = [(f['n'], f['k']) for f in part.faces]
    depth = convex_depth(view, planes, x0, y0, x1 - x0, y1 - y0, mirror)
    return dict(x0=x0, y0=y0, w=x1 - x0, h=y1 - y0, C=C, A=A, Tr=None, depth=depth)


def composite(img, zbuf, idbuf, res, uid):
    sl = (slice(res['y0'], res['y0'] + res['h']), slice(res['x0'], res['x0'] + res['w']))
    A, depth = res['A'], res['depth']
    zs = zbuf[sl]
    m = (A > 1e-3) & (depth < zs)
    S = img[sl]
    if res['Tr'] is None:
        new = res['C'] + S * (1 - A)[..., None]
    else:
        new = res['C'] + S * res['Tr']
    np.copyto(S, new, where=m[..., None])
    solid = m & (A > 0.5)
    np.copyto(zs, depth, where=solid)
    if idbuf is not None:
        np.copyto(idbuf[sl], np.int16(uid), where=solid)


# ============================================================ textures for props
def card_texture(rng, face_up):
    T = 176
    W_, H_ = 126, 176
    img = np.zeros((T, T, 4), np.float32)
    x = np.arange(T)[None, :].repeat(T, 0).astype(np.float32)
    y = np.arange(T)[:, None].repeat(T, 1).astype(np.float32)
    ox = (T - W_) / 2
    cx = np.clip(x - ox, 0, W_)
    rr = 8.0
    dx = np.maximum(np.maximum(rr - (x - ox), (x - ox) - (W_ - rr)), 0)
    dy = np.maximum(np.maximum(rr - y, y - (H_ - rr)), 0)
    inside = (np.hypot(dx, dy) <= rr) & (x >= ox) & (x < ox + W_)
    col = np.empty((T, T, 3), np.float32)
    col[:] = lin((244, 244, 240))
    if not face_up:
        c = lin(pick(rng, [(170, 24, 30), (26, 52, 140), (20, 90, 60), (40, 40, 40)]))
        m = (cx > 7) & (cx < W_ - 7) & (y > 7) & (y < H_ - 7)
        lat = (np.abs(np.sin((cx + y) * 0.35)) < 0.25) | (np.abs(np.sin((cx - y) * 0.35)) < 0.25)
        col[m] = c
        col[m & lat] = c * 0.5 + 0.4
    else:
        c = lin(pick(rng, [(200, 20, 28), (20, 20, 24)]))
        n = int(rng.integers(2, 9))
        for k in range(n):
            px = ox + 30 + (k % 2) * 66
            py = 26 + (k // 2) * 36
            m = np.hypot(x - px, y - py) < 8
            col[m] = c
        for (px, py) in ((ox + 10, 14), (ox + W_ - 10, H_ - 14)):
            m = (np.abs(x - px) < 5) & (np.abs(y - py) < 8)
            col[m] = c
    img[..., :3] = col
    img[..., 3] = inside
    return cv2.GaussianBlur(img, (3, 3), 0.6)


def coin_texture(rng, metal):
    T = 64
    y, x = np.mgrid[0:T, 0:T].astype(np.float32)
    r = np.hypot(x - (T - 1) / 2, y - (T - 1) / 2) / (T / 2)
    img = np.zeros((T, T, 4), np.float32)
    relief = 0.85 + 0.15 * np.sin(r * 22) * (r < 0.8) + 0.2 * (np.abs(r - 0.9) < 0.04)
    relief = relief * (1 + 0.12 * rng.standard_normal((T, T)).astype(np.float32) * (r < 0.75))
    img[..., :3] = metal[None, None, :] * relief[..., None]
    img[..., 3] = np.clip((1.0 - r) * T / 2 + 0.5, 0, 1)
    return cv2.GaussianBlur(img, (3, 3), 0.7)


def chip_texture(rng, colour):
    T = 64
    y, x = np.mgrid[0:T, 0:T].astype(np.float32)
    dx, dy = x - (T - 1) / 2, y - (T - 1) / 2
    r = np.hypot(dx, dy) / (T / 2)
    ang = np.arctan2(dy, dx)
    img = np.zeros((T, T, 4), np.float32)
    col = np.empty((T, T, 3), np.float32)
    col[:] = colour
    stripes = (r > 0.78) & (np.mod(ang * 8 / np.pi, 2) < 0.7)
    col[stripes] = lin((240, 240, 236))
    col[np.abs(r - 0.62) < 0.03] = lin((240, 240, 236))
    img[..., :3] = col
    img[..., 3] = np.clip((1.0 - r) * T / 2 + 0.5, 0, 1)
    return img


def cover_texture(rng, base):
    T = 128
    img = np.zeros((T, T, 4), np.float32)
    img[..., :3] = base
    img[..., 3] = 1
    for _ in range(int(rng.integers(1, 5))):
        x0, y0 = rng.integers(8, 96, 2)
        w, h = rng.integers(10, 60), rng.integers(6, 30)
        c = lin(rng.integers(0, 255, 3)) if rng.random() < 0.6 else lin((240, 236, 220))
        img[y0:y0 + h, x0:x0 + w, :3] = c
    if rng.random() < 0.5:
        cy, cx = rng.integers(30, 100, 2)
        yy, xx = np.mgrid[0:T, 0:T]
        m = np.hypot(xx - cx, yy - cy) < rng.integers(12, 30)
        img[m, :3] = lin(rng.integers(0, 255, 3))
    return img


def pages_texture(length_px=128):
    img = np.zeros((16, length_px, 4), np.float32)
    img[..., :3] = lin((236, 230, 214))
    rows = (np.arange(16) % 2 == 0)
    img[rows, :, :3] *= 0.86
    img[..., 3] = 1
    return img


# ============================================================ table surfaces
WOODS = [((205, 165, 112), (140, 96, 56)), ((124, 84, 52), (62, 38, 22)), ((226, 192, 142), (176, 130, 80)),
         ((152, 74, 46), (88, 36, 20)), ((172, 162, 150), (108, 98, 90)), ((226, 222, 212), (190, 184, 172)),
         ((96, 64, 44), (44, 30, 22))]


class Surface:
    """Procedural table top: albedo(X, Y, texel) on world mm coordinates."""

    def __init__(self, rng, noise, kind):
        self.kind, self.N = kind, noise
        self.ks, self.shin, self.mirror = 0.02, 10.0, 0.0
        self.desk = self._desk(rng)
        if kind == 'wood':
            self.desk = ('wood', self._wood(rng))
            self.ks, self.shin = rng.uniform(0.02, 0.12), rng.uniform(8, 40)
        elif kind == 'laminate':
            self.desk = ('laminate', self._laminate(rng))
            self.ks, self.shin = rng.uniform(0.03, 0.1), rng.uniform(10, 40)
        elif kind == 'felt':
            self.felt = jitter_rgb(rng, pick(rng, [(30, 100, 50), (20, 70, 40), (130, 24, 30), (30, 50, 120),
                                                    (90, 90, 92), (28, 28, 30), (110, 80, 50), (60, 30, 80)]), 0.05)
            self.ks = 0.0
        elif kind == 'glossy':
            if rng.random() < 0.6:
                self.gcol = jitter_rgb(rng, pick(rng, [(18, 18, 20), (30, 30, 34), (20, 24, 40), (40, 30, 26)]), 0.05)
                self.gwood = None
            else:
                w = self._wood(rng)
                w['light'] = w['light'] * 0.25
                w['dark'] = w['dark'] * 0.25
                self.gwood = w
            self.ks, self.shin = rng.uniform(0.4, 1.0), rng.uniform(300, 1500)
            self.mirror = rng.uniform(0.12, 0.4)
        elif kind == 'playmat':
            self.mat = self._playmat(rng)
            self.ks, self.shin = rng.uniform(0.0, 0.06), rng.uniform(6, 20)
        elif kind == 'paper':
            self.paper = self._paper(rng)
        elif kind == 'tray':
            self.tray = self._tray(rng)

    # --- parameter samplers
    def _wood(self, rng):
        light, dark = pick(rng, WOODS)
        ang = rng.uniform(-0.4, 0.4) + pick(rng, [0.0, math.pi / 2])
        return dict(light=jitter_rgb(rng, light, 0.04), dark=jitter_rgb(rng, dark, 0.04), ca=math.cos(ang),
                    sa=math.sin(ang), pw=pick(rng, [rng.uniform(70, 200), 1e5]), plen=rng.uniform(600, 2000),
                    spacing=rng.uniform(3, 10), warp=rng.uniform(5, 40),
                    salti=int(rng.integers(1, 1 << 20)))

    def _laminate(self, rng):
        return dict(col=jitter_rgb(rng, pick(rng, [(236, 236, 232), (200, 200, 196), (150, 150, 150), (60, 60, 62),
                                                   (222, 210, 186), (170, 190, 200)]), 0.03),
                    speck=rng.uniform(0, 0.08))

    def _desk(self, rng):
        if rng.random() < 0.6:
            return ('wood', self._wood(rng))
        return ('laminate', self._laminate(rng))

    def _playmat(self, rng):
        pal = [jitter_rgb(rng, rng.integers(20, 255, 3), 0.02) for _ in range(int(rng.integers(3, 6)))]
        ang = rng.uniform(-0.5, 0.5)
        return dict(pal=pal, feat=rng.uniform(30, 120), ink=rng.uniform(0.3, 0.8),
                    ink_col=lin(pick(rng, [(20, 20, 20), (60, 30, 20), (240, 240, 230)])),
                    pattern=pick(rng, ['grid', 'hex', 'dots', 'none'], [0.3, 0.25, 0.2, 0.25]),
                    pspace=rng.uniform(18, 35), pcol=lin(pick(rng, [(240, 230, 200), (30, 30, 30), (200, 170, 60)])),
                    ca=math.cos(ang), sa=math.sin(ang), cx=rng.uniform(-60, 60), cy=rng.uniform(-40, 40),
                    hw=pick(rng, [305, 400, 460]), hh=pick(rng, [178, 250, 300]), sat=rng.uniform(0.5, 1.0))

    def _paper(self, rng):
        ang = rng.uniform(-0.6, 0.6)
        return dict(ca=math.cos(ang), sa=math.sin(ang), cx=rng.uniform(-30, 30), cy=rng.uniform(-30, 30),
                    hw=pick(rng, [105, 108, 148]) * rng.uniform(1.0, 1.25), hh=pick(rng, [148, 140, 210]) * rng.uniform(1.0, 1.25),
                    col=jitter_rgb(rng, pick(rng, [(244, 244, 240), (240, 236, 222), (236, 240, 244)]), 0.01),
                    style=pick(rng, ['text', 'ruled', 'grid', 'text'], None),
                    spacing=rng.uniform(4.2, 7.5), ink=lin(pick(rng, [(30, 30, 34), (40, 40, 80), (60, 60, 60)])),
                    margin=rng.uniform(12, 25), word=rng.uniform(9, 16))

    def _tray(self, rng):
        ang = rng.uniform(-0.35, 0.35)
        leather = jitter_rgb(rng, pick(rng, [(96, 58, 34), (40, 30, 26), (110, 24, 30), (26, 60, 40),
                                              (30, 36, 70), (150, 100, 60), (22, 22, 24)]), 0.05)
        hw, hh = rng.uniform(90, 150), rng.uniform(70, 110)
        return dict(ca=math.cos(ang), sa=math.sin(ang), ang=ang, cx=rng.uniform(-10, 10), cy=rng.uniform(-10, 10),
                    hw=hw, hh=hh, leather=leather, thread=lin(pick(rng, [(220, 200, 150), (230, 230, 225), (200, 60, 40)])),
                    rim_h=rng.uniform(16, 32), rim_t=rng.uniform(8, 16),
                    rim_col=leather * rng.uniform(0.8, 1.1) if rng.random() < 0.7 else lin((120, 80, 50)))

    # --- albedo evaluation (on a TexGrid)
    def albedo(self, G):
        k = self.kind
        if k == 'felt':
            return self._felt(G)
        if k == 'glossy':
            if self.gwood is not None:
                return self._wood_alb(G, self.gwood)
            n = G.smooth(lambda X, Y, t: self.N.at(X, Y, 40, 1), 40)
            return (self.gcol * (1 + 0.05 * n[..., None])).astype(np.float32)
        base = self._desk_alb(G)
        if k == 'playmat':
            return self._overlay(G, base, self.mat, self._playmat_content)
        if k == 'paper':
            return self._overlay(G, base, self.paper, self._paper_content)
        if k == 'tray':
            return self._overlay(G, base, self.tray, self._tray_content)
        return base

    def _overlay(self, G, base, p, content):
        """Paste content (a rotated rectangle p: cx, cy, ca, sa, hw, hh) over base;
        the content is only evaluated on the rectangle's bounding box."""
        r = G.rect_box(p['cx'], p['cy'], p['ca'], p['sa'], p['hw'], p['hh'])
        if r is None:
            return base
        r0, r1, c0, c1 = r
        col, inside = content(G.sub(r0, r1, c0, c1))
        dst = base[r0:r1, c0:c1]
        np.copyto(dst, col, where=inside[..., None])
        return base

    def _desk_alb(self, G):
        kind, p = self.desk
        if kind == 'wood':
            return self._wood_alb(G, p)
        X, Y = G.XY()
        n = G.smooth(lambda X, Y, t: self.N.at(X, Y, 60, 2), 60) * 0.03 + self.N.at(X, Y, 1.2, 3, G.texel) * p['speck']
        return (p['col'] * (1 + n[..., None])).astype(np.float32)

    def _wood_alb(self, G, p):
        N = self.N
        f32 = np.float32
        ca, sa = f32(p['ca']), f32(p['sa'])
        texel = G.texel
        X, Y = G.XY()
        U = X * ca + Y * sa                             # along the grain
        V = -X * sa + Y * ca
        plank = np.floor(V / f32(p['pw'])).astype(np.int64)
        seg = np.floor((U + ihash(plank, p['salti']) * f32(p['plen'])) / f32(p['plen'])).astype(np.int64)
        hs = ihash(seg, plank, p['salti'])
        # growth rings: long smooth waves along the grain, a narrow dark late-wood band per ring
        warp = G.smooth(lambda X, Y, t: N.at((X * ca + Y * sa) / 12.0, (-X * sa + Y * ca) / 5.0, 30, 0), 100)
        warp = warp * f32(p['warp']) + N.at(U / 8.0, V, 5, 1, texel) * f32(min(1.2, p['spacing'] * 0.15))
        ring = (V + hs * 500 + warp) / f32(p['spacing'])
        fr = ring - np.floor(ring)
        band = smoothstep(0.5, 0.85, fr) * (1 - smoothstep(0.88, 1.0, fr))
        att = f32(np.clip((p['spacing'] / texel - 3.0) / 4.0, 0, 1))
        g = att * band + (1 - att) * f32(0.22)
        pores = N.at(U / 25.0, V, 0.45, 2, texel)
        big = G.smooth(lambda X, Y, t: N.at((X * ca + Y * sa) / 4.0, -X * sa + Y * ca, 60, 3), 50)
        t = np.clip(f32(0.6) * g + 0.12 * pores + 0.12 * big + 0.3 * (hs - 0.5) + 0.22, 0, 1)
        col = p['light'] * (1 - t[..., None]) + p['dark'] * t[..., None]
        if p['pw'] < 1e4:
            dv = np.abs(V - (plank.astype(f32) + 0.5) * f32(p['pw']))
            gap = smoothstep(p['pw'] / 2 - max(0.8, texel), p['pw'] / 2 - 0.2, dv)
            col *= (1 - 0.6 * gap)[..., None]
        return col.astype(f32)

    def _felt(self, G):
        N = self.N
        X, Y = G.XY()
        fib = N.at(X, Y, 0.6, 0, G.texel) * 0.5 + N.at(X / 4.0, Y, 0.4, 1, G.texel) * 0.25
        mid = G.smooth(lambda X, Y, t: N.at(X, Y, 25, 2), 25)
        return (self.felt * (1 + 0.12 * fib + 0.05 * mid)[..., None]).astype(np.float32)

    @staticmethod
    def _uv(X, Y, p):
        U = (X - p['cx']) * p['ca'] + (Y - p['cy']) * p['sa']
        V = -(X - p['cx']) * p['sa'] + (Y - p['cy']) * p['ca']
        return U, V

    def _playmat_content(self, G):
        p, N = self.mat, self.N
        X, Y = G.XY()
        texel = G.texel
        U, V = self._uv(X, Y, p)
        pal = np.array(p['pal'], np.float32)

        def art(X, Y, t):
            fields = np.stack([N.at(X + 300 * i, Y - 170 * i, p['feat'], i) for i in range(len(pal))], -1)
            w = np.exp(3.0 * fields)
            w /= w.sum(-1, keepdims=True)
            return ((w @ pal) * p['sat'] + (1 - p['sat']) * pal.mean(0)).astype(np.float32)

        col = G.smooth(art, p['feat'] * 0.6)
        detail = G.smooth(lambda X, Y, t: N.at(X, Y, p['feat'] * 0.15, 4, t), p['feat'] * 0.15)
        col = col * (1 + 0.25 * detail[..., None])
        inkf = G.smooth(lambda X, Y, t: N.at(X, Y, p['feat'] * 0.8, 5), p['feat'] * 0.5)
        lw = max(0.06, texel / p['feat'] * 2)
        ink = np.exp(-(inkf / np.float32(lw)) ** 2) * np.float32(p['ink'])
        col = col * (1 - ink[..., None]) + p['ink_col'] * ink[..., None]
        sp = p['pspace']
        lwp = max(0.5, texel * 0.7)
        if p['pattern'] == 'grid':
            du = np.abs(np.mod(U, sp) - sp / 2)
            dv = np.abs(np.mod(V, sp) - sp / 2)
            pm = np.maximum(smoothstep(sp / 2 - lwp, sp / 2, du), smoothstep(sp / 2 - lwp, sp / 2, dv))
        elif p['pattern'] == 'hex':
            a1 = np.abs(np.mod(U, sp) - sp / 2)
            a2 = np.abs(np.mod(U * 0.5 + V * 0.866, sp) - sp / 2)
            a3 = np.abs(np.mod(U * 0.5 - V * 0.866, sp) - sp / 2)
            pm = np.maximum.reduce([smoothstep(sp / 2 - lwp, sp / 2, a) for a in (a1, a2, a3)])
        elif p['pattern'] == 'dots':
            du = np.mod(U, sp) - sp / 2
            dv = np.mod(V, sp) - sp / 2
            pm = smoothstep(sp * 0.12 + texel, sp * 0.12, np.hypot(du, dv))
        else:
            pm = np.zeros_like(U)
        pm = pm * np.float32(0.85)
        col = col * (1 - pm[..., None]) + p['pcol'] * pm[..., None]
        edge = np.minimum(p['hw'] - np.abs(U), p['hh'] - np.abs(V))
        col = col * (1 - 0.5 * (edge < 3))[..., None]
        return col.astype(np.float32), edge > 0

    def _paper_content(self, G):
        p, N = self.paper, self.N
        X, Y = G.XY()
        texel = G.texel
        U, V = self._uv(X, Y, p)
        col = np.empty(U.shape + (3,), np.float32)
        col[:] = p['col']
        col *= (1 + 0.02 * N.at(X, Y, 3, 0, texel))[..., None]
        sp = p['spacing']
        row = np.floor(V / sp)
        fv = V / sp - row
        inm = (np.abs(U) < p['hw'] - p['margin']) & (np.abs(V) < p['hh'] - p['margin'])
        if p['style'] == 'text':
            irow = row.astype(np.int64)
            lend = p['hw'] - p['margin'] - np.where(ihash(irow, 3) < 0.2, ihash(irow, 5) * 120, 0)
            band = (fv > 0.3) & (fv < 0.62) & (U < lend)
            # words: cells of 9-16 mm, each partly filled by letters
            cell = np.float32(p['word'])
            xw = U + ihash(irow, 7) * cell
            wid = np.floor(xw / cell).astype(np.int64)
            wfill = 0.35 + 0.6 * ihash(wid, irow, 11)
            inword = (xw / cell - wid) < wfill
            lt = np.float32(sp * 0.3)                          # letter pitch
            xl = xw / lt
            lid = np.floor(xl).astype(np.int64)
            letter = ((xl - lid) < 0.72) & (ihash(lid, irow, 13) > 0.06)
            stroke = 0.55 + 0.45 * (N.at(U, V, sp * 0.12, 2, texel) > -0.2)
            ink = (band & inword & letter & inm) * stroke * np.float32(0.9)
            att = float(np.clip((sp * 0.3 / texel - 1.0) / 2.0, 0, 1))
            ink = ink * att + (1 - att) * (band & inword & inm) * np.float32(0.45)
        else:
            lw = max(0.25, texel * 0.6)
            d = np.abs(fv - 0.5) * sp
            ink = smoothstep(lw, 0, d) * 0.55
            if p['style'] == 'grid':
                du = np.abs(np.mod(U, sp) / sp - 0.5) * sp
                ink = np.maximum(ink, smoothstep(lw, 0, du) * 0.55)
            ink = ink * (np.abs(V) < p['hh'] - 8)
        ink_col = p['ink'] if p['style'] == 'text' else lin((120, 150, 210))
        col = col * (1 - ink[..., None]) + ink_col * ink[..., None]
        return col.astype(np.float32), (np.abs(U) < p['hw']) & (np.abs(V) < p['hh'])

    def _tray_content(self, G):
        p, N = self.tray, self.N
        X, Y = G.XY()
        texel = G.texel
        U, V = self._uv(X, Y, p)
        crink = -np.abs(N.at(X, Y, 2.5, 0, texel)) * 0.5 + N.at(X, Y, 0.7, 1, texel) * 0.12
        big = G.smooth(lambda X, Y, t: N.at(X, Y, 40, 2), 40)
        col = p['leather'] * (1 + 0.25 * crink + 0.05 * big)[..., None]
        edge = np.minimum(p['hw'] - np.abs(U), p['hh'] - np.abs(V))
        along = np.where(p['hw'] - np.abs(U) < p['hh'] - np.abs(V), V, U)
        stitch = (np.abs(edge - 7) < 0.5) & (np.mod(along, 4.0) < 2.6)
        col = np.where(stitch[..., None], p['thread'], col)
        col = col * (1 - 0.45 * smoothstep(5, 0, edge))[..., None]
        return col.astype(np.float32), edge > 0


class TexGrid:
    """Regular grid of texture sample centres (world mm): xs (columns), ys (rows)."""

    def __init__(self, xs, ys, texel):
        self.xs = np.asarray(xs, np.float32)
        self.ys = np.asarray(ys, np.float32)
        self.texel = float(texel)
        self.shape = (len(self.ys), len(self.xs))

    def XY(self):
        return (np.broadcast_to(self.xs[None, :], self.shape), np.broadcast_to(self.ys[:, None], self.shape))

    def sub(self, r0, r1, c0, c1):
        return TexGrid(self.xs[c0:c1], self.ys[r0:r1], self.texel)

    def rect_box(self, cx, cy, ca, sa, hw, hh, align=8):
        """Index box (r0, r1, c0, c1) covering a rotated rectangle, aligned to `align`."""
        ex, ey = np.array([ca, sa]), np.array([-sa, ca])
        pts = np.array([[cx, cy]]) + np.array([[i * hw, j * hh] for i in (-1, 1) for j in (-1, 1)]) @ np.stack([ex, ey])
        t = self.texel
        c0 = int(math.floor((pts[:, 0].min() - self.xs[0]) / t)) - 1
        c1 = int(math.ceil((pts[:, 0].max() - self.xs[0]) / t)) + 2
        r0 = int(math.floor((pts[:, 1].min() - self.ys[0]) / t)) - 1
        r1 = int(math.ceil((pts[:, 1].max() - self.ys[0]) / t)) + 2
        c0, r0 = max(0, c0 - c0 % align), max(0, r0 - r0 % align)
        c1 = min(len(self.xs), c1 + (-c1) % align)
        r1 = min(len(self.ys), r1 + (-r1) % align)
        if c1 <= c0 or r1 <= r0:
            return None
        return r0, r1, c0, c1

    def smooth(self, fn, feat):
        """fn(X, Y, texel) for a field with features of at least `feat` mm:
        evaluated on a grid up to 8x coarser and upsampled (aligned)."""
        k = 1
        while (k < 8 and feat / (2 * k * self.texel) >= 6 and len(self.xs) % (2 * k) == 0
               and len(self.ys) % (2 * k) == 0):
            k *= 2
        if k == 1:
            X, Y = self.XY()
            return fn(X, Y, self.texel)
        xs = self.xs.reshape(-1, k).mean(1)
        ys = self.ys.reshape(-1, k).mean(1)
        c = TexGrid(xs, ys, self.texel * k)
        X, Y = c.XY()
        out = np.ascontiguousarray(fn(X, Y, c.texel), dtype=np.float32)
        return cv2.resize(out, (len(self.xs), len(self.ys)), interpolation=cv2.INTER_LINEAR)


# ============================================================ background
def make_wall(rng):
    """Wall texture 6000 x 3000 mm (10 mm/px): lit albedo and emission."""
    Wp, Hp = 600, 300
    paint = jitter_rgb(rng, pick(rng, [(236, 232, 222), (210, 214, 216), (190, 200, 180), (200, 180, 160),
                                        (120, 130, 150), (80, 80, 86), (226, 210, 190)]), 0.04)
    alb = np.empty((Hp, Wp, 3), np.float32)
    alb[:] = paint
    yy = np.linspace(0, 1, Hp, dtype=np.float32)[:, None, None]
    alb *= 0.8 + 0.3 * yy * rng.uniform(-0.5, 1.0) + 0.1
    emis = np.zeros((Hp, Wp, 3), np.float32)
    for _ in range(int(rng.integers(1, 6))):
        kind = pick(rng, ['frame', 'shelf', 'window', 'monitor', 'door', 'curtain'], [0.3, 0.25, 0.15, 0.1, 0.1, 0.1])
        w, h = int(rng.integers(30, 130)), int(rng.integers(30, 120))
        x0 = int(rng.integers(0, Wp - w))
        y0 = int(rng.integers(20, max(21, 215 - h)))
        if kind == 'frame':
            alb[y0:y0 + h, x0:x0 + w] = lin(pick(rng, [(30, 25, 20), (200, 190, 170), (20, 20, 20)]))
            b = max(2, w // 12)
            sub = alb[y0 + b:y0 + h - b, x0 + b:x0 + w - b]
            for _ in range(6):
                cy, cx = rng.integers(0, max(1, sub.shape[0])), rng.integers(0, max(1, sub.shape[1]))
                cv2.circle(sub, (int(cx), int(cy)), int(rng.integers(3, 20)), tuple(lin(rng.integers(0, 255, 3)).tolist()), -1)
        elif kind == 'shelf':
            alb[y0 + h - 4:y0 + h, x0:x0 + w] = lin((120, 80, 50))
            x = x0
            while x < x0 + w - 2:
                bw = int(rng.integers(2, 6))
                bh = int(rng.integers(h // 3, h - 4))
                alb[y0 + h - 4 - bh:y0 + h - 4, x:x + bw] = lin(rng.integers(20, 230, 3))
                x += bw + int(rng.integers(0, 2))
        elif kind == 'window':
            sky = lin(pick(rng, [(200, 220, 250), (240, 240, 240), (150, 190, 240)]))
            emis[y0:y0 + h, x0:x0 + w] = sky * rng.uniform(2.0, 6.0)
            alb[y0:y0 + h, x0:x0 + w] = 0
            emis[y0:y0 + h, x0 + w // 2 - 1:x0 + w // 2 + 1] = 0
            emis[y0 + h // 2 - 1:y0 + h // 2 + 1, x0:x0 + w] = 0
            alb[y0:y0 + h, x0 + w // 2 - 1:x0 + w // 2 + 1] = 0.6
        elif kind == 'monitor':
            alb[y0:y0 + h, x0:x0 + w] = 0.01
            emis[y0 + 2:y0 + h - 2, x0 + 2:x0 + w - 2] = lin(rng.integers(40, 255, 3)) * rng.uniform(0.6, 1.5)
        elif kind == 'door':
            y0 = 75
            h = 220
            alb[y0:min(Hp, y0 + h), x0:x0 + w] = lin(pick(rng, [(140, 100, 70), (230, 230, 225)]))
        else:
            alb[y0:y0 + h, x0:x0 + w] = lin(rng.integers(40, 230, 3)) * (
                0.8 + 0.2 * np.sin(np.arange(w) * 0.6))[None, :, None]
    return alb, emis


# ============================================================ setup
class Setup:
    """Everything fixed for one seed: camera, table, lights, dice set, clutter, sensor."""

    def __init__(self, seed, W, H):
        self.seed = seed
        self.seed_u = int(seed) % (2 ** 32)
        rng = np.random.default_rng([self.seed_u, 1001])
        self.W, self.H = W, H
        self.noise = NoiseBank(rng)
        N = self.noise
        # ---------------- intrinsics
        hfov = math.radians(rng.uniform(48, 78))
        f = (W / 2) / math.tan(hfov / 2)
        dk = rng.random()
        if dk < 0.5:
            k1, k2 = rng.uniform(-0.03, 0.03), 0.0
        elif dk < 0.85:
            k1, k2 = rng.uniform(-0.2, -0.05), rng.uniform(0.0, 0.04)
        else:
            k1, k2 = rng.uniform(0.02, 0.08), 0.0
        cx = (W - 1) / 2 + rng.normal(0, 0.012 * W)
        cy = (H - 1) / 2 + rng.normal(0, 0.012 * H)
        self.intr = Intrinsics(W, H, f, cx, cy, k1, k2)
        # ---------------- dice set
        n_set = int(pick(rng, list(range(1, 9)), [0.1, 0.15, 0.18, 0.17, 0.14, 0.11, 0.08, 0.07]))
        mode = pick(rng, ['matched', 'two', 'mixed'], [0.45, 0.35, 0.2])
        if mode == 'matched' or n_set == 1:
            st = DieStyle(rng, N)
            styles = [st] * n_set
        elif mode == 'two':
            a, b = DieStyle(rng, N), DieStyle(rng, N)
            na = int(rng.integers(1, n_set)) if n_set > 1 else 1
            styles = [a] * na + [b] * (n_set - na)
        else:
            styles = [DieStyle(rng, N) for _ in range(n_set)]
        self.dice_styles = styles
        # ---------------- camera placement
        ec = rng.random()
        if ec < 0.3:
            elev = rng.uniform(15, 25)
        elif ec < 0.75:
            elev = rng.uniform(25, 52)
        else:
            elev = rng.uniform(52, 75)
        self.elev = elev
        f640 = f * 640.0 / W
        smed = float(np.median([s.size for s in styles]))
        pc = rng.random()
        px = rng.uniform(14, 22) if pc < 0.15 else (rng.uniform(22, 60) if pc < 0.75 else rng.uniform(60, 120))
        self.dist = float(np.clip(f640 * smed / px, 150, 800))
        self.roll = rng.normal(0, 2.5) if rng.random() < 0.7 else rng.uniform(-6, 6)
        self.vis_w = 2 * self.dist * math.tan(hfov / 2)
        # ---------------- surface, table extent, background
        kind = pick(rng, ['wood', 'laminate', 'playmat', 'felt', 'glossy', 'paper', 'tray'],
                    [0.2, 0.07, 0.16, 0.13, 0.12, 0.14, 0.18])
        self.surface = Surface(rng, N, kind)
        self.table_rot = rng.uniform(-0.25, 0.25)
        self.table_edge = rng.uniform(120, 1400) if rng.random() < 0.65 else 4000.0
        self.table_halfw = rng.uniform(500, 1600)
        self.wall_gap = rng.uniform(80, 1500)
        self.wall_alb, self.wall_emis = make_wall(rng)
        self.floor_col = jitter_rgb(rng, pick(rng, [(90, 60, 40), (60, 60, 64), (150, 130, 110), (40, 36, 34)]), 0.05)
        # ---------------- lights
        self.env, self.level, self.key_colour = self._lights(rng)
        # ---------------- props / clutter kinds
        self.rim_parts = self._tray_rim() if kind == 'tray' else []
        density = pick(rng, ['none', 'light', 'busy'], [0.3, 0.42, 0.28])
        nclut = {'none': 0, 'light': int(rng.integers(1, 3)), 'busy': int(rng.integers(3, 7))}[density]
        self.clutter = [self._clutter_spec(rng) for _ in range(nclut)]
        self.prop_prob = rng.uniform(0.0, 0.5)
        self.cocked_prob = rng.uniform(0.15, 0.5)
        self.touch_prob = rng.uniform(0.05, 0.3)
        # ---------------- sensor / post
        self.post = self._post(rng)
        # ---------------- table textures
        self._textures()

    # ---------------------------------------------------------- lights
    def _lights(self, rng):
        scen = pick(rng, ['overhead', 'lamp', 'window', 'dim', 'coloured'], [0.3, 0.22, 0.24, 0.12, 0.12])
        self.light_scenario = scen
        az = rng.uniform(0, 2 * math.pi)
        level = rng.uniform(0.7, 1.3)
        lights = []
        sky_k = rng.uniform(5000, 9000)
        if scen in ('overhead', 'dim') and rng.random() < 0.7:
            hgt = rng.uniform(600, 1800)
            off = rng.uniform(0, 700)
            pos = [off * math.cos(az), off * math.sin(az), hgt]
            col = kelvin_rgb(rng.uniform(2800, 6500))
            size = pick(rng, [rng.uniform(15, 60), rng.uniform(150, 500)])
            lights.append(Light('point', pos, col, size))
            amb = rng.uniform(0.15, 0.35)
        elif scen == 'window':
            el = math.radians(rng.uniform(10, 40))
            d = [math.cos(el) * math.cos(az), math.cos(el) * math.sin(az), math.sin(el)]
            lights.append(Light('dir', unit(d), kelvin_rgb(rng.uniform(5200, 7500)), rng.uniform(0.04, 0.2)))
            amb = rng.uniform(0.25, 0.5)
        else:
            el = math.radians(rng.uniform(15, 45))
            dist = rng.uniform(250, 700)
            pos = [dist * math.cos(el) * math.cos(az), dist * math.cos(el) * math.sin(az), dist * math.sin(el)]
            lights.append(Light('point', pos, kelvin_rgb(rng.uniform(2600, 3700)), rng.uniform(5, 40)))
            amb = rng.uniform(0.05, 0.16)
        key = lights[0]
        if scen == 'dim':
            level = rng.uniform(0.04, 0.14)
        if scen == 'coloured':
            hue = lin(pick(rng, [(255, 60, 230), (60, 200, 255), (255, 150, 40), (80, 255, 90), (255, 50, 60),
                                 (120, 80, 255)]))
            hue = hue / (0.2126 * hue[0] + 0.7152 * hue[1] + 0.0722 * hue[2])
            mixw = rng.uniform(0.35, 0.8)
            key.colour = ((1 - mixw) * key.colour + mixw * hue).astype(np.float32)
        key.colour = (key.colour * level).astype(np.float32)
        if rng.random() < 0.35:
            az2 = az + rng.uniform(1.5, 4.8)
            el2 = math.radians(rng.uniform(30, 70))
            d = [math.cos(el2) * math.cos(az2), math.cos(el2) * math.sin(az2), math.sin(el2)]
            lights.append(Light('dir', unit(d), kelvin_rgb(rng.uniform(3000, 7000)) * level * rng.uniform(0.12, 0.35),
                                0.3, shadow=False))
        skyc = kelvin_rgb(sky_k) * 0.5 + key.colour / max(level, 1e-6) * 0.5
        sky = skyc * amb * level
        ground = sky * rng.uniform(0.2, 0.5)
        refl_top = (sky * 2.0 + key.colour * 0.5) * rng.uniform(0.6, 1.4)
        refl_bot = sky * 0.3
        return Env(lights, sky, ground, refl_top, refl_bot), level, key.colour / level

    def _tray_rim(self):
        p = self.surface.tray
        parts = []
        ca, sa = p['ca'], p['sa']
        ex, ey = np.array([ca, sa, 0.0]), np.array([-sa, ca, 0.0])
        c = np.array([p['cx'], p['cy'], 0.0])
        t, hgt = p['rim_t'], p['rim_h']
        col = p['rim_col']
        albs = [col * 1.05, col, col, col, col]
        for sx in (-1, 1):
            parts.append(make_box(c + ex * sx * (p['hw'] + t / 2), p['ang'], (t, 2 * (p['hh'] + t), hgt), albs,
                                  name='rim', ks=0.08, shin=25))
        for sy in (-1, 1):
            parts.append(make_box(c + ey * sy * (p['hh'] + t / 2), p['ang'], (2 * p['hw'], t, hgt), albs,
                                  name='rim', ks=0.08, shin=25))
        return parts

    def _clutter_spec(self, rng):
        kind = pick(rng, ['coin', 'chip', 'token', 'card', 'pencil', 'eraser', 'book', 'box'],
                    [0.22, 0.1, 0.12, 0.14, 0.16, 0.08, 0.08, 0.1])
        spec = dict(kind=kind)
        if kind == 'coin':
            metal = pick(rng, [(214, 176, 90), (196, 198, 200), (184, 112, 70)])
            spec.update(r=rng.uniform(8, 13), h=rng.uniform(1.4, 2.2), col=jitter_rgb(rng, metal, 0.04),
                        stack=int(pick(rng, [1, 1, 1, 2, 3])))
            spec['tex'] = coin_texture(rng, spec['col'])
        elif kind == 'chip':
            spec.update(r=19.5, h=3.3, col=jitter_rgb(rng, pick(rng, [(200, 30, 30), (30, 60, 170), (30, 130, 60),
                                                                        (30, 30, 30), (240, 240, 236)]), 0.04),
                        stack=int(pick(rng, [1, 1, 2, 4])))
            spec['tex'] = chip_texture(rng, spec['col'])
        elif kind == 'token':
            spec.update(r=rng.uniform(6, 10), h=rng.uniform(6, 14),
                        col=jitter_rgb(rng, pick(rng, [(220, 40, 40), (40, 90, 220), (40, 170, 60), (240, 200, 40),
                                                        (240, 240, 236), (30, 30, 30), (150, 60, 190)]), 0.05))
        elif kind == 'card':
            spec['tex'] = card_texture(rng, rng.random() < 0.5)
        elif kind == 'pencil':
            spec.update(L=rng.uniform(90, 175), col=jitter_rgb(rng, pick(rng, [(240, 196, 30), (200, 30, 30),
                                                                                (30, 60, 160), (30, 120, 60),
                                                                                (30, 30, 30), (230, 230, 230)]), 0.05))
        elif kind == 'eraser':
            spec.update(dims=(rng.uniform(30, 50), rng.uniform(15, 22), rng.uniform(8, 12)),
                        col=jitter_rgb(rng, pick(rng, [(240, 150, 160), (240, 240, 236), (70, 120, 220)]), 0.05))
        elif kind in ('book', 'box'):
            if kind == 'book':
                dims = (rng.uniform(120, 170), rng.uniform(170, 240), rng.uniform(14, 36))
            else:
                dims = (rng.uniform(50, 120), rng.uniform(40, 90), rng.uniform(22, 50))
            col = jitter_rgb(rng, rng.integers(20, 240, 3), 0.02) if rng.random() < 0.7 else lin((176, 140, 96))
            spec.update(dims=dims, col=col, tex=cover_texture(rng, col))
        return spec

    # ---------------------------------------------------------- sensor
    def _post(self, rng):
        p = {}
        r = rng.random()
        p['ev'] = rng.uniform(-1.4, -0.6) if r < 0.12 else (rng.uniform(0.6, 1.4) if r < 0.24 else rng.normal(0, 0.25))
        p['wb_beta'] = rng.uniform(0.35, 1.0)
        p['wb_err'] = rng.normal(0, 0.05, 3)
        p['vignette'] = rng.uniform(0, 0.45)
        p['k_shot'] = rng.uniform(0.0003, 0.0015)
        p['k_read'] = rng.uniform(0.0005, 0.002)
        p['gain_max'] = rng.uniform(5.0, 14.0)
        p['chroma'] = rng.uniform(0.2, 1.0)
        p['denoise'] = rng.random() < 0.35
        r = rng.random()
        p['sharpen'] = 0.0 if r < 0.45 else (rng.uniform(0.3, 0.7) if r < 0.8 else rng.uniform(1.0, 2.0))
        p['sharpen_sigma'] = rng.uniform(0.7, 1.5)
        p['jpeg'] = int(rng.integers(60, 96))
        p['aperture'] = rng.uniform(0.5, 2.5)
        p['soft'] = rng.uniform(0.25, 0.75)
        p['motion_prob'] = rng.uniform(0.0, 0.2)
        p['ca'] = rng.uniform(0.3, 1.3) if rng.random() < 0.4 else 0.0
        p['contrast'] = rng.uniform(-0.15, 0.3)
        p['shoulder'] = rng.random() < 0.5
        p['gamma'] = rng.uniform(0.9, 1.1)
        return p

    def tone_lut(self):
        """Linear [0, 1] (16384 steps) -> display value: sRGB, gamma, S-curve."""
        if getattr(self, '_tone', None) is None:
            p = self.post
            y = lin_to_srgb(np.linspace(0, 1, 16384)) ** p['gamma']
            y = y - p['contrast'] * np.sin(2 * np.pi * y) / (2 * np.pi)
            self._tone = np.clip(y, 0, 1).astype(np.float32)
        return self._tone

    # ---------------------------------------------------------- table textures
    def _textures(self):
        srf = self.surface
        near_half = float(np.clip(1.0 * self.vis_w, 120, 900))
        far_half = float(np.clip(max(self.table_edge, 3 * self.vis_w) * 1.2, near_half * 1.5, 3000))
        self.tex = []
        for half, n, feather in ((near_half, 1280, True), (far_half, 640, False)):
            texel = 2 * half / n
            l = (-half + (np.arange(n, dtype=np.float64) + 0.5) * texel).astype(np.float32)
            alb = srf.albedo(TexGrid(l, l, texel))
            img = (lin_to_srgb(alb) * 255 + 0.5).astype(np.uint8)
            if feather:
                e = np.minimum(np.arange(n), np.arange(n)[::-1]).astype(np.float32) / (0.05 * n)
                a = np.clip(np.minimum(e[None, :], e[:, None]), 0, 1)
                img = np.dstack([img, (a * 255 + 0.5).astype(np.uint8)])
            A_inv = np.array([[texel, 0, -half + 0.5 * texel], [0, texel, -half + 0.5 * texel], [0, 0, 1.0]])
            self.tex.append((img, A_inv))
        self.lut = srgb_to_lin(np.arange(256) / 255.0).astype(np.float32).reshape(256, 1)
        self.alut = (np.arange(256) / 255.0).astype(np.float32).reshape(256, 1)

    # ---------------------------------------------------------- per-image camera
    def view_for_image(self, rng):
        elev = float(np.clip(self.elev + rng.uniform(-3, 3), 15, 75))
        az = math.radians(-90 + rng.uniform(-10, 10))
        dist = self.dist * rng.uniform(0.93, 1.07)
        tgt = np.array([rng.normal(0, 0.05), rng.normal(0, 0.05), 0.0]) * self.vis_w
        e = math.radians(elev)
        pos = tgt + dist * np.array([math.cos(e) * math.cos(az), math.cos(e) * math.sin(az), math.sin(e)])
        roll = math.radians(self.roll + rng.normal(0, 0.8))
        return View(self.intr, pos, tgt, roll)


# ============================================================ throwing dice
def die_in_frame(view, die, margin=2.0):
    uv = view.to_output(die.world_verts())
    W, H = view.I.W, view.I.H
    return (uv[:, 0].min() >= margin and uv[:, 1].min() >= margin and
            uv[:, 0].max() <= W - 1 - margin and uv[:, 1].max() <= H - 1 - margin)


def top_cos(view, die):
    """Cosine between the top face normal and the direction to the camera."""
    d = unit(view.C - die.top_centre())
    return float((die.R @ FACE_N[die.top]) @ d)


def die_view_ok(view, die):
    """Top face seen at >= ~14.5 deg from its plane (listing needs >= 11.5 deg)."""
    return top_cos(view, die) >= (0.3 if die.tilted else 0.25)


def supports_of_die(d):
    """Vertical faces of a flat die usable as a leaning support."""
    out = []
    s = d.style.size
    for v in range(1, 7):
        n = d.R @ FACE_N[v]
        if abs(n[2]) > 0.2:
            continue
        w = unit([n[0], n[1], 0.0])
        O = d.P.copy()
        O[2] = 0.0
        out.append(dict(O=O + w * s / 2, w=w, half=s / 2, height=s, owner=d))
    return out


def supports_of_box(part, centre_xy, yaw, dims):
    out = []
    c = np.array([centre_xy[0], centre_xy[1], 0.0])
    ex, ey = np.array([math.cos(yaw), math.sin(yaw), 0.0]), np.array([-math.sin(yaw), math.cos(yaw), 0.0])
    for w, half_n, half_l in ((ex, dims[0] / 2, dims[1] / 2), (-ex, dims[0] / 2, dims[1] / 2),
                              (ey, dims[1] / 2, dims[0] / 2), (-ey, dims[1] / 2, dims[0] / 2)):
        out.append(dict(O=c + w * half_n, w=w, half=half_l, height=dims[2], owner=part))
    return out


def cocked_die(rng, style, sup, top):
    """A die of `style` leaning against support `sup` (bottom edge on the
    table, raised edge against the support's vertical face)."""
    s = style.size
    tmax = math.degrees(math.asin(min(1.0, 0.95 * sup['height'] / s)))
    tmax = min(40.0, tmax)
    if tmax < 15.0:
        return None
    th = math.radians(rng.uniform(15.0, tmax))
    w = sup['w']
    l = np.cross([0, 0, 1.0], w)
    lat_max = max(0.0, sup['half'] - 0.45 * s)
    lat = rng.uniform(-lat_max, lat_max) if lat_max > 0 else 0.0
    yaw = math.atan2(w[1], w[0]) + int(rng.integers(4)) * math.pi / 2
    R = rot_axis(np.cross([0, 0, 1.0], w), th) @ die_rotation(rng, top, yaw)
    a = (s / 2) * (math.cos(th) + math.sin(th))
    P = sup['O'] + w * a + l * lat + np.array([0, 0, a])
    return Die(style, P, R, True)


def throw(st, view, rng, simple=False):
    """Place dice and clutter for one image.  Returns (dice, parts).
    simple: fallback throw without clutter, props or cocked dice."""
    W, H = st.W, st.H
    styles = list(st.dice_styles)
    if len(styles) > 2 and rng.random() < 0.3:
        styles.pop(int(rng.integers(len(styles))))
    order = rng.permutation(len(styles))
    styles = [styles[i] for i in order]
    parts = list(st.rim_parts)
    blocked = [(p.footprint(), p) for p in parts]     # (footprint, owner) that dice must avoid
    supports = []
    tray = st.surface.kind == 'tray'
    if tray:
        p = st.surface.tray
        ex = np.array([p['ca'], p['sa'], 0.0])
        ey = np.array([-p['sa'], p['ca'], 0.0])
        c = np.array([p['cx'], p['cy'], 0.0])
        for rp, (sx, sy) in zip(st.rim_parts, ((-1, 0), (1, 0), (0, -1), (0, 1))):
            w = -(ex * sx + ey * sy)                    # rim inner face normal (towards the tray centre)
            half_n = p['hw'] if sx else p['hh']
            half_l = p['hh'] if sx else p['hw']
            supports.append(dict(O=c - w * half_n, w=w, half=half_l, height=p['rim_h'], owner=rp))

    def free(fp, margin=0.3, ignore=None):
        for b, owner in blocked:
            if ignore is not None and owner is ignore:
                continue
            if polys_overlap(fp, b, margin):
                return False
        return True

    def in_tray(P, s):
        if not tray:
            return True
        p = st.surface.tray
        U = (P[0] - p['cx']) * p['ca'] + (P[1] - p['cy']) * p['sa']
        V = -(P[0] - p['cx']) * p['sa'] + (P[1] - p['cy']) * p['ca']
        return abs(U) < p['hw'] - 0.72 * s and abs(V) < p['hh'] - 0.72 * s

    # ---- a prop (book / box) to lean on, sometimes
    smax = max(s.size for s in styles)
    if not tray and not simple and rng.random() < st.prop_prob:
        for _ in range(20):
            kind = pick(rng, ['book', 'box'])
            dims = ((rng.uniform(120, 170), rng.uniform(170, 240), rng.uniform(18, 36)) if kind == 'book' else
                    (rng.uniform(50, 110), rng.uniform(40, 80), rng.uniform(max(22, smax * 0.8), 50)))
            c = view.backproject(rng.uniform(0.1, 0.9) * W, rng.uniform(0.05, 0.55) * H, 0.0)
            if c is None:
                continue
            yaw = rng.uniform(0, 2 * math.pi)
            part = build_box_prop(rng, kind, c[:2], yaw, dims)
            if not prop_ok(view, part):
                continue
            parts.append(part)
            blocked.append((part.footprint(), part))
            supports += supports_of_box(part, c[:2], yaw, dims)
            break
    # ---- cards lie under everything: place them first (dice may rest on them)
    specs = [c for c in st.clutter if rng.random() < 0.85] if not simple else []
    for spec in [c for c in specs if c['kind'] == 'card']:
        for _ in range(10):
            c = view.backproject(rng.uniform(-0.1, 1.1) * W, rng.uniform(0.0, 1.1) * H, 0.0)
            if c is None:
                continue
            part = make_box(np.array([c[0], c[1], 0.0]), rng.uniform(0, 2 * math.pi), (63, 88, 0.35),
                            [lin((240, 240, 236))] * 5, top_tex=spec['tex'], name='card', ks=0.12, shin=40)
            part.shadow = False
            if prop_ok(view, part) and free(part.footprint(), 1.0):
                parts.append(part)
                break
    # ---- dice
    dice = []
    n_cocked_target = 0
    if rng.random() < st.cocked_prob and not simple:
        n_cocked_target = 1 if rng.random() < 0.8 else 2
    cluster = rng.random() < 0.6
    anchor = None
    for _ in range(20):
        anchor = view.backproject(rng.uniform(0.25, 0.75) * W, rng.uniform(0.35, 0.8) * H, 0.0)
        if anchor is not None:
            break
    spread = rng.uniform(1.5, 3.5)
    n_cocked = 0
    for sty in styles:
        s = sty.size
        for attempt in range(60):
            top = int(rng.integers(1, 7))
            mode = 'free'
            flat_dice = [d for d in dice if not d.tilted]
            if n_cocked < n_cocked_target and (flat_dice or supports) and attempt < 30:
                mode = 'cocked'
            elif flat_dice and rng.random() < st.touch_prob and attempt < 30:
                mode = 'touch'
            ign = None
            if mode == 'cocked':
                sups = [sp for d in flat_dice for sp in supports_of_die(d)] + supports
                sup = sups[int(rng.integers(len(sups)))]
                die = cocked_die(rng, sty, sup, top)
                if die is None:
                    continue
                ign = sup['owner']
            elif mode == 'touch':
                a = flat_dice[int(rng.integers(len(flat_dice)))]
                sps = supports_of_die(a)
                sp = sps[int(rng.integers(len(sps)))]
                lat = rng.uniform(-0.4, 0.4) * min(s, a.style.size)
                l = np.cross([0, 0, 1.0], sp['w'])
                P = sp['O'] + sp['w'] * (s / 2 + 0.25) + l * lat + np.array([0, 0, s / 2])
                yaw = math.atan2(sp['w'][1], sp['w'][0]) + rng.uniform(-0.03, 0.03)
                die = Die(sty, P, die_rotation(rng, top, yaw), False)
                ign = a
            else:
                if cluster and anchor is not None and attempt < 40:
                    xy = anchor[:2] + rng.normal(0, spread * s, 2)
                    P = np.array([xy[0], xy[1], s / 2])
                elif tray and attempt < 50:
                    p = st.surface.tray
                    U = rng.uniform(-1, 1) * (p['hw'] - s)
                    V = rng.uniform(-1, 1) * (p['hh'] - s)
                    P = np.array([p['cx'] + U * p['ca'] - V * p['sa'], p['cy'] + U * p['sa'] + V * p['ca'], s / 2])
                else:
                    P = view.backproject(rng.uniform(0.06, 0.94) * W, rng.uniform(0.08, 0.94) * H, s / 2)
                    if P is None:
                        continue
                R = die_rotation(rng, top, rng.uniform(0, 2 * math.pi))
                if rng.random() < 0.5:                        # tiny resting tilt, still "flat"
                    R = rot_axis([rng.normal(), rng.normal(), 0], math.radians(rng.uniform(0, 1.5))) @ R
                die = Die(sty, P, R, False)
            if not in_tray(die.P, s) or not die_in_frame(view, die) or not die_view_ok(view, die):
                continue
            fp = die.footprint()
            if not free(fp, 0.4 if mode == 'free' else 0.05, ign):
                continue
            dice.append(die)
            blocked.append((fp, die))
            if die.tilted:
                n_cocked += 1
            break
    # ---- sometimes one more die cut by the frame edge (never listed)
    if dice and not simple and rng.random() < 0.1:
        sty = styles[int(rng.integers(len(styles)))]
        s = sty.size
        for _ in range(30):
            side = int(rng.integers(4))
            u = [rng.uniform(-0.01, 0.02) * W, rng.uniform(0.98, 1.01) * W, rng.uniform(0.1, 0.9) * W,
                 rng.uniform(0.1, 0.9) * W][side]
            v = [rng.uniform(0.1, 0.9) * H, rng.uniform(0.1, 0.9) * H, rng.uniform(-0.01, 0.02) * H,
                 rng.uniform(0.98, 1.01) * H][side]
            P = view.backproject(u, v, s / 2)
            if P is None:
                continue
            die = Die(sty, P, die_rotation(rng, int(rng.integers(1, 7)), rng.uniform(0, 6.3)), False)
            if die_in_frame(view, die, -1.0) or not in_tray(die.P, s):
                continue
            fp = die.footprint()
            if free(fp, 0.4):
                dice.append(die)
                blocked.append((fp, die))
                break
    # ---- other clutter
    for spec in [c for c in specs if c['kind'] != 'card']:
        for _ in range(12):
            c = view.backproject(rng.uniform(-0.05, 1.05) * W, rng.uniform(0.0, 1.05) * H, 0.0)
            if c is None:
                continue
            new = build_clutter(rng, spec, c[:2])
            if not new or not all(prop_ok(view, p) for p in new):
                continue
            fps = [p.footprint() for p in new]
            if all(free(fp, 1.0) for fp in fps):
                parts += new
                blocked.extend(zip(fps, new))
                break
    return dice, parts


def prop_ok(view, part):
    Pc = view.cam(part.V)
    return Pc[:, 2].min() > 40.0


def build_box_prop(rng, kind, xy, yaw, dims):
    col = jitter_rgb(rng, rng.integers(20, 240, 3), 0.02) if rng.random() < 0.75 else lin((176, 140, 96))
    tex = cover_texture(rng, col)
    if kind == 'book':
        pages = pages_texture()
        part = make_box(np.array([xy[0], xy[1], 0.0]), yaw, dims, [col, lin((236, 230, 214)), col,
                                                                     lin((236, 230, 214)), lin((236, 230, 214))],
                        top_tex=tex, side_tex=[pages, None, pages, pages], name='book', ks=0.1, shin=30)
    else:
        part = make_box(np.array([xy[0], xy[1], 0.0]), yaw, dims, [col, col * 0.9, col * 0.9, col, col],
                        top_tex=tex, name='box', ks=0.08, shin=30)
    return part


def build_clutter(rng, spec, xy):
    k = spec['kind']
    yaw = rng.uniform(0, 2 * math.pi)
    t = np.array([xy[0], xy[1], 0.0])
    if k in ('coin', 'chip'):
        out = []
        n = 28
        for i in range(spec['stack']):
            off = np.array([rng.normal(0, 0.6), rng.normal(0, 0.6), i * spec['h']]) if i else np.zeros(3)
            prof = regular_polygon(n, spec['r'], yaw)
            out.append(make_prism(prof, spec['h'], np.eye(3), t + off, [spec['col'], spec['col'] * 0.8], k,
                                  tex_top=spec['tex'] if i == spec['stack'] - 1 else None,
                                  ks=0.6 if k == 'coin' else 0.1, shin=60 if k == 'coin' else 20))
        return out
    if k == 'token':
        prof = regular_polygon(20, spec['r'], yaw)
        return [make_prism(prof, spec['h'], np.eye(3), t, [spec['col'] * 1.05, spec['col']], k, ks=0.05, shin=15)]
    if k == 'eraser':
        return [make_box(t, yaw, spec['dims'], [spec['col']] * 5, name=k, ks=0.02, shin=10)]
    if k in ('book', 'box'):
        return [build_box_prop(rng, k, xy, yaw, spec['dims'])]
    if k == 'pencil':
        L = spec['L']
        rad = 3.7
        zc = rad * math.cos(math.pi / 6)
        # local pencil axis = +z of the prism; rotate so that it lies along the table at `yaw`
        R = rot_axis([0, 0, 1], yaw) @ rot_axis([0, 1, 0], math.pi / 2)
        c = t + np.array([0, 0, zc])
        ax = R @ np.array([0, 0, 1.0])
        hexp = regular_polygon(6, rad, 0.0)   # flat faces at +-x (x is world-down after rotation)
        wood = lin((224, 186, 136))
        body = make_prism(hexp, L, R, c - ax * L / 2, [wood, spec['col']], 'pencil', ks=0.2, shin=40)
        tip = make_frustum(rad, 1.0, 6, 16, R, c + ax * L / 2, wood, wood, 'pencil')
        lead = make_frustum(1.0, 0.0, 6, 3, R, c + ax * (L / 2 + 16), lin((50, 50, 54)), lin((50, 50, 54)), 'pencil')
        fer = make_prism(regular_polygon(10, rad * 1.02), 8, R, c - ax * (L / 2 + 8), [lin((190, 190, 190)),
                                                                                     lin((200, 200, 205))],
                         'pencil', ks=0.5, shin=60)
        era = make_prism(regular_polygon(10, rad * 0.98), 6, R, c - ax * (L / 2 + 14),
                         [lin((236, 140, 150)), lin((230, 130, 140))], 'pencil', ks=0.02, shin=10)
        return [body, tip, lead, fer, era]
    return []


# ============================================================ shadows
def shadow_maps(st, view, dice, parts):
    """Key-light shadow and contact-occlusion maps on the 1x canvas."""
    I = view.I
    sh = np.zeros((I.ch1, I.cw1), np.float32)
    ao = np.zeros((I.ch1, I.cw1), np.float32)
    key = st.env.lights[0]
    items = [(d.world_verts(), 0.55 if d.style.material == 'translucent' else 1.0, d.style.size) for d in dice]
    items += [(p.V, 1.0, max(p.height, 2.0)) for p in parts if p.shadow]
    for V, strength, size in items:
        hgt = max(V[:, 2].max(), 0.5)
        if key.kind == 'dir':
            d = key.vec
            if d[2] < 0.05:
                continue
            G = V - (V[:, 2] / d[2])[:, None] * d
            pen = key.size * hgt / d[2]
            zc = np.linalg.norm(view.C - V.mean(0))
        else:
            Lp = key.vec
            if Lp[2] <= hgt + 1:
                continue
            s = Lp[2] / (Lp[2] - V[:, 2])
            G = Lp + (V - Lp) * s[:, None]
            dl = np.linalg.norm(Lp - V.mean(0))
            pen = key.size * hgt / max(dl - hgt, 1.0)
            zc = np.linalg.norm(view.C - V.mean(0))
        sig_mm = 0.45 * pen + 0.25
        draw_blurred_poly(view, sh, G, sig_mm, zc, strength)
        # contact occlusion: footprint (low vertices) straight down
        low = V[V[:, 2] < max(0.35 * size, 1.0)]
        if len(low) >= 3:
            G2 = low.copy()
            G2[:, 2] = 0
            draw_blurred_poly(view, ao, G2, 0.22 * size, zc, 0.8 * min(1.0, hgt / 6.0 + 0.3))
    return sh, ao


def draw_blurred_poly(view, target, G, sig_mm, zc, strength):
    I = view.I
    hull = hull2d(G[:, :2])
    Pw = np.c_[hull, np.zeros(len(hull))]
    pts = view.poly_to_canvas(Pw, hires=False, znear=10.0)
    if pts is None:
        return
    sig = max(0.5, sig_mm * I.f / max(zc, 1.0))
    pad = int(3 * sig) + 2
    x0 = max(int(math.floor(pts[:, 0].min())) - pad, 0)
    y0 = max(int(math.floor(pts[:, 1].min())) - pad, 0)
    x1 = min(int(math.ceil(pts[:, 0].max())) + pad + 1, I.cw1)
    y1 = min(int(math.ceil(pts[:, 1].max())) + pad + 1, I.ch1)
    if x1 <= x0 or y1 <= y0:
        return
    m = np.zeros((y1 - y0, x1 - x0), np.float32)
    cv2.fillPoly(m, [fixpts(pts - (x0, y0))], (float(strength),), cv2.LINE_8, 4)
    m = cv2.GaussianBlur(m, (0, 0), sig)
    np.maximum(target[y0:y1, x0:x1], m, out=target[y0:y1, x0:x1])


# ============================================================ image rendering
def ray_grid(view, w, h, step, off):
    """World ray directions (dx, dy, dz) for 1x-canvas coordinates step*j + off."""
    I = view.I
    xn = ((np.arange(w, dtype=np.float32) * step + off - I.cx1) / I.f)[None, :]
    yn = ((np.arange(h, dtype=np.float32) * step + off - I.cy1) / I.f)[:, None]
    R = view.R.astype(np.float32)
    dx = R[0, 0] * xn + R[1, 0] * yn + R[2, 0]
    dy = R[0, 1] * xn + R[1, 1] * yn + R[2, 1]
    dz = R[0, 2] * xn + R[1, 2] * yn + R[2, 2]
    return dx, dy, dz


def render_environment(st, view, shadow, ao):
    """Table (with lighting, shadows) and background on the hi-res canvas.
    Smooth terms are computed on a half-size grid of the 1x canvas (pixel j at
    1x coordinate 2j + 0.5), shadows at 1x, the table texture at full
    resolution.  Also returns the 1x depth map of the environment."""
    I = view.I
    env = st.env
    srf = st.surface
    C = view.C.astype(np.float32)
    ca, sa = math.cos(st.table_rot), math.sin(st.table_rot)
    w2, h2 = I.cw1 // 2, I.ch1 // 2
    # ---- half-size grid: table points, lighting terms without shadows
    dx, dy, dz = ray_grid(view, w2, h2, 2.0, 0.5)
    hit = dz < -1e-4
    t = np.where(hit, -C[2] / np.where(hit, dz, -1), 1e6).astype(np.float32)
    X = C[0] + t * dx
    Y = C[1] + t * dy
    P = np.stack([X, Y, np.zeros_like(X)], -1)
    Vd = np.stack([C[0] - X, C[1] - Y, np.broadcast_to(C[2], X.shape)], -1)
    Vd /= np.sqrt(np.sum(Vd * Vd, axis=-1, keepdims=True))
    Nn = np.array([0, 0, 1.0], np.float32)
    amb = np.broadcast_to(env.sky, P.shape)
    terms = []                                   # (direct, specular) per light
    for L in env.lights:
        if L.kind == 'dir':
            Ld = np.broadcast_to(L.vec.astype(np.float32), P.shape)
            E = L.colour
        else:
            D = L.vec.astype(np.float32) - P
            d2 = np.sum(D * D, axis=-1, keepdims=True)
            Ld = D / np.sqrt(d2)
            E = L.colour * (np.float32(L.ref ** 2) / d2)
        ndl = np.clip(Ld[..., 2:3], 0, None)
        Hh = Ld + Vd
        Hh /= np.sqrt(np.sum(Hh * Hh, axis=-1, keepdims=True))
        sp = E * (np.float32((srf.shin + 8) / (8 * math.pi)) * np.clip(Hh[..., 2:3], 0, 1) ** np.float32(srf.shin) * ndl)
        terms.append((E * ndl, sp * np.float32(srf.ks)))
    key_d, key_s = terms[0]
    oth_d = sum((d for d, _ in terms[1:]), np.zeros_like(key_d))
    oth_s = sum((s_ for _, s_ in terms[1:]), np.zeros_like(key_s))
    if srf.kind == 'glossy':
        oth_s = oth_s + env_reflection(env, np.broadcast_to(Nn, Vd.shape), Vd, 0.04) * 0.6
    elif srf.kind in ('wood', 'laminate', 'playmat'):
        oth_s = oth_s + env_reflection(env, np.broadcast_to(Nn, Vd.shape), Vd, 0.02) * 0.3
    up1 = (I.cw1, I.ch1)
    r1 = [cv2.resize(np.ascontiguousarray(a, dtype=np.float32), up1, interpolation=cv2.INTER_LINEAR)
          for a in (amb, key_d, oth_d, key_s, oth_s)]
    # ---- combine with 1x shadow / contact occlusion
    ksh = (1 - shadow)[..., None]
    ao3 = ao[..., None]
    light = r1[0] * (1 - 0.6 * ao3) + (r1[1] * ksh + r1[2]) * (1 - 0.3 * ao3)
    spec = r1[3] * ksh + r1[4]
    # ---- 1x depth of the table
    dx1, dy1, dz1 = ray_grid(view, I.cw1, I.ch1, 1.0, 0.0)
    hit1 = dz1 < -1e-4
    t1 = np.where(hit1, -C[2] / np.where(hit1, dz1, -1), 1e6).astype(np.float32)
    X1, Y1 = C[0] + t1 * dx1, C[1] + t1 * dy1
    on_table = hit1 & ((-X1 * sa + Y1 * ca) < st.table_edge) & (np.abs(X1 * ca + Y1 * sa) < st.table_halfw)
    depth1 = t1
    # ---- background (half size): wall beyond the table edge, floor below
    need_bg = not bool(on_table.all())
    if need_bg:
        nx_, ny_ = -sa, ca                          # wall normal (table frame +v)
        wall_d = st.table_edge + st.wall_gap
        den = dx * nx_ + dy * ny_
        tw = np.where(den > 1e-4, (wall_d - (C[0] * nx_ + C[1] * ny_)) / np.where(den > 1e-4, den, 1), 1e7)
        zw = C[2] + tw * dz
        tf = np.where(dz < -1e-4, (FLOOR_Z - C[2]) / np.where(dz < -1e-4, dz, -1), 1e7)
        use_floor = ((zw < FLOOR_Z) | (den <= 1e-4)) & (dz < -1e-4)
        tb = np.minimum(np.where(use_floor, tf, tw), 2e4).astype(np.float32)
        Xb, Yb = C[0] + tb * dx, C[1] + tb * dy
        lat = Xb * ca + Yb * sa
        mx = np.clip((lat + 3000) / 10.0, 0, 599).astype(np.float32)
        my = np.clip((2250 - (C[2] + tb * dz)) / 10.0, 0, 299).astype(np.float32)
        walb = cv2.remap(st.wall_alb, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        wem = cv2.remap(st.wall_emis, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        wall_light = (env.sky * 1.3 + sum(L.colour for L in env.lights) * 0.25).astype(np.float32)
        wall = walb * wall_light + wem * np.float32(st.level)
        fn = st.noise.at(Xb, Yb, 80, 2)
        floor = (st.floor_col * (1 + 0.15 * fn[..., None]) * wall_light * 0.6).astype(np.float32)
        bg = np.where(use_floor[..., None], floor, wall).astype(np.float32)
        tb1 = cv2.resize(tb, up1, interpolation=cv2.INTER_NEAREST)
        depth1 = np.where(on_table, t1, tb1).astype(np.float32)
    # ---- hi-res table albedo by homography warps
    # table outline at full resolution
    corners = np.array([[-st.table_halfw, -3000], [st.table_halfw, -3000], [st.table_halfw, st.table_edge],
                        [-st.table_halfw, st.table_edge]], float)
    cw = np.c_[corners[:, 0] * ca - corners[:, 1] * sa, corners[:, 0] * sa + corners[:, 1] * ca, np.zeros(4)]
    tmask = np.zeros((I.CH, I.CW), np.uint8)
    poly = view.poly_to_canvas(cw, True, 2.0)
    if poly is not None:
        cv2.fillPoly(tmask, [fixpts(poly)], 1, cv2.LINE_8, 4)
    Hw = view.plane_h(True)
    (near, An), (far, Af) = st.tex
    wn = cv2.warpPerspective(near, Hw @ An, (I.CW, I.CH), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                             borderValue=0)
    alpha8 = np.ascontiguousarray(wn[..., 3])
    rgb8 = cv2.cvtColor(wn, cv2.COLOR_RGBA2RGB)
    up = (I.CW, I.CH)
    if int(alpha8[tmask > 0].min(initial=255)) < 255:       # near texture does not cover all: blend in far
        # the far texture is coarse: warp it at 1x and upsample
        S2 = np.array([[0.5, 0, -0.25], [0, 0.5, -0.25], [0, 0, 1.0]])     # hi-res -> 1x canvas pixels
        wf = cv2.warpPerspective(far, S2 @ Hw @ Af, (I.cw1, I.ch1), flags=cv2.INTER_LINEAR,
                                 borderMode=cv2.BORDER_REFLECT)
        wf = cv2.resize(wf, up, interpolation=cv2.INTER_LINEAR)
        a = cv2.LUT(alpha8, st.alut)
        rgb8 = cv2.blendLinear(rgb8, wf, a, 1.0 - a)
    alb = cv2.LUT(rgb8, st.lut)
    table = cv2.multiply(alb, cv2.resize(light.astype(np.float32), up, interpolation=cv2.INTER_LINEAR))
    if float(spec.max()) > 1e-4:
        cv2.add(table, cv2.resize(spec.astype(np.float32), up, interpolation=cv2.INTER_LINEAR), dst=table)
    if need_bg:
        out = cv2.resize(bg, up, interpolation=cv2.INTER_LINEAR)
        cv2.copyTo(table, tmask, out)
    else:
        out = table
    return out, depth1, tmask


def render_image(st, idx):
    """Render image number idx of the setup: (jpeg bytes, truth list, view, info).
    A throw in which no die qualifies for listing is thrown again."""
    rng = np.random.default_rng([st.seed_u, 2002, idx])
    for attempt in range(12):
        view = st.view_for_image(rng)
        dice, parts = throw(st, view, rng, simple=attempt >= 8)
        if not dice and attempt < 11:
            continue
        lin_img, dep, truth = render_scene(st, view, dice, parts)
        if truth or attempt == 11:
            break
    # autofocus: mostly on the dice, sometimes on the aim point
    if dice and rng.random() < 0.75:
        zf = float(np.median([view.cam(d.P)[2] for d in dice]))
    else:
        zf = float(np.linalg.norm(view.C - view.target))
    jpg = post_process(st, view, lin_img, dep, rng, zf)
    return jpg, truth, view, dict(n_dice=len(dice), n_parts=len(parts), attempts=attempt + 1)


def render_scene(st, view, dice, parts):
    """Linear output-size image, its depth map and the truth list for one throw."""
    I = st.intr
    for i, d in enumerate(dice):
        d.uid = i
    for j, p in enumerate(parts):
        p.uid = len(dice) + j
    shadow, ao = shadow_maps(st, view, dice, parts)
    img, depth1, tmask = render_environment(st, view, shadow, ao)
    env = st.env
    # ---- mirror reflections on glossy tables
    if st.surface.mirror > 0:
        refl = np.zeros_like(img)
        zr = np.full(img.shape[:2], np.inf, np.float32)
        objs = [(d, True) for d in dice] + [(p, False) for p in parts if p.height > 3]
        objs.sort(key=lambda o: -np.linalg.norm(view.C - (o[0].P if o[1] else o[0].centre)))
        bx = [I.CW, I.CH, 0, 0]                       # bounding box of all reflections
        for o, isdie in objs:
            res = draw_die(view, env, o, True) if isdie else draw_part(view, env, o, True)
            if res is not None:
                composite(refl, zr, None, res, 0)
                bx = [min(bx[0], res['x0']), min(bx[1], res['y0']),
                      max(bx[2], res['x0'] + res['w']), max(bx[3], res['y0'] + res['h'])]
        if bx[2] > bx[0] and bx[3] > bx[1]:
            sl = (slice(max(bx[1] - 4, 0), bx[3] + 4), slice(max(bx[0] - 4, 0), bx[2] + 4))
            r = cv2.GaussianBlur(refl[sl], (0, 0), 1.2) * np.float32(st.surface.mirror)
            img[sl] += r * (tmask[sl] > 0)[..., None]
    # ---- objects, far to near, depth tested
    zbuf = np.full(img.shape[:2], np.inf, np.float32)
    idb = np.full(img.shape[:2], -1, np.int16)
    objs = [(d, True) for d in dice] + [(p, False) for p in parts]
    objs.sort(key=lambda o: -np.linalg.norm(view.C - (o[0].P if o[1] else o[0].centre)))
    topmasks = {}
    for o, isdie in objs:
        res = draw_die(view, env, o) if isdie else draw_part(view, env, o)
        if res is None:
            continue
        composite(img, zbuf, idb, res, o.uid)
        if isdie:
            topmasks[o.uid] = (res['x0'], res['y0'], res['topmask'])
    # ---- truth
    truth = []
    for d in dice:
        if d.uid not in topmasks or not die_in_frame(view, d, 0.0):
            continue
        x0, y0, tm = topmasks[d.uid]
        h_, w_ = tm.shape
        tot = int(tm.sum())
        if tot == 0:
            continue
        visible = int(np.count_nonzero((idb[y0:y0 + h_, x0:x0 + w_] == d.uid) & (tm > 0)))
        if visible / tot < 2.0 / 3.0 or top_cos(view, d) < 0.2:
            continue
        xy = view.to_output(d.top_centre()[None])[0]
        uv = view.to_output(d.world_verts())
        truth.append({"face": str(d.top), "x": round(float(xy[0]), 2), "y": round(float(xy[1]), 2),
                      "tilted": bool(d.tilted), "colour": d.style.colour,
                      "box": [round(float(uv[:, 0].min()), 2), round(float(uv[:, 1].min()), 2),
                              round(float(uv[:, 0].max()), 2), round(float(uv[:, 1].max()), 2)]})
    # ---- lens distortion + downsample
    hi = cv2.remap(img, I.map_h[0], I.map_h[1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    lin_img = cv2.resize(hi, (I.W, I.H), interpolation=cv2.INTER_AREA)
    zb = np.minimum(np.minimum(zbuf[0::2, 0::2], zbuf[1::2, 0::2]), np.minimum(zbuf[0::2, 1::2], zbuf[1::2, 1::2]))
    dep = np.where(np.isfinite(zb), zb, depth1).astype(np.float32)
    dep = cv2.remap(dep, I.map1_x, I.map1_y, cv2.INTER_NEAREST, borderMode=cv2.BORDER_REPLICATE)
    return lin_img, dep, truth


# ============================================================ sensor model
def post_process(st, view, img, depth, rng, zf):
    p = st.post
    H, W = img.shape[:2]
    f = st.intr.f
    # ---- depth of field (thin lens) + lens softness
    zf = zf * (1 + (rng.normal(0, 0.05) if rng.random() < 0.85 else rng.uniform(-0.3, 0.3)))
    coc = p['aperture'] * f * np.abs(1.0 / zf - 1.0 / np.maximum(depth, 1.0))
    sigma = np.sqrt(p['soft'] ** 2 + (coc / 2.4) ** 2).astype(np.float32)
    levels = [0.3, 0.7, 1.4, 2.8, 5.5]
    smax = float(sigma.max())
    nl = 1
    while nl < len(levels) and levels[nl - 1] < smax:
        nl += 1
    lv = np.array(levels[:nl], np.float32)
    fi = np.interp(sigma, lv, np.arange(nl, dtype=np.float32)).astype(np.float32)
    out = np.zeros_like(img)
    half = None
    for k in range(nl):                          # per-pixel linear blend of blur levels
        wk = np.clip(1 - np.abs(fi - k), 0, 1)
        if float(wk.max()) <= 0:
            continue
        if lv[k] < 2.5:
            b = cv2.GaussianBlur(img, (0, 0), float(lv[k]))
        else:                                    # wide blurs on a half-size image
            if half is None:
                half = cv2.resize(img, ((W + 1) // 2, (H + 1) // 2), interpolation=cv2.INTER_AREA)
            b = cv2.resize(cv2.GaussianBlur(half, (0, 0), float(lv[k]) / 2), (W, H), interpolation=cv2.INTER_LINEAR)
        out += b * wk[..., None]
    # ---- motion blur
    if rng.random() < p['motion_prob']:
        ln = rng.uniform(2, 8)
        ang = rng.uniform(0, math.pi)
        k = np.zeros((11, 11), np.float32)
        dx, dy = math.cos(ang) * ln / 2, math.sin(ang) * ln / 2
        cv2.line(k, (int(round((5 - dx) * 16)), int(round((5 - dy) * 16))),
                 (int(round((5 + dx) * 16)), int(round((5 + dy) * 16))), 1.0, 1, cv2.LINE_AA, 4)
        out = cv2.filter2D(out, -1, k / k.sum())
    # ---- chromatic aberration (lateral): scale R and B about the centre
    if p['ca'] > 0:
        rmax = math.hypot(W / 2, H / 2)
        for ch, sgn in ((0, 1), (2, -1)):
            sc = 1 + sgn * p['ca'] / rmax
            M = np.float32([[sc, 0, (1 - sc) * (W - 1) / 2], [0, sc, (1 - sc) * (H - 1) / 2]])
            out[..., ch] = cv2.warpAffine(np.ascontiguousarray(out[..., ch]), M, (W, H), flags=cv2.INTER_LINEAR,
                                          borderMode=cv2.BORDER_REPLICATE)
    # ---- white balance (partial adaptation + error) and auto exposure
    illum = st.key_colour * 0.7 + st.env.sky / max(float(st.env.sky.mean()), 1e-6) * 0.3
    wb = (1.0 / np.maximum(illum, 1e-3)) ** p['wb_beta'] * (1 + p['wb_err'])
    wb = wb / wb[1]
    out = out * wb.astype(np.float32)
    lum = out @ np.array([0.2126, 0.7152, 0.0722], np.float32)
    xs = ((np.arange(W, dtype=np.float32) - W / 2) / (W / 2))[None, :]
    ys = ((np.arange(H, dtype=np.float32) - H / 2) / (H / 2))[:, None]
    wgt = np.exp(-(xs * xs + ys * ys) / 0.81).astype(np.float32)
    mean = float((np.minimum(lum, 4.0) * wgt).sum() / wgt.sum())
    gain = min(0.2 * 2 ** p['ev'] / max(mean, 1e-5), p['gain_max'])     # dim rooms end up underexposed
    # ---- vignetting
    r2 = (xs * xs * W * W + ys * ys * H * H) / (W * W + H * H)
    out *= (gain * (1 - p['vignette'] * r2 ** 1.5)).astype(np.float32)[..., None]
    # ---- sensor noise: shot + read, scaled by the analogue gain
    g = max(gain, 0.3)                      # analogue gain relative to a normally lit scene (0.2 mean grey)
    sig = np.sqrt(np.clip(out, 0, None) * p['k_shot'] * g + (p['k_read'] * g) ** 2)
    nz = rng.standard_normal((H, W, 3), dtype=np.float32)
    lumn = rng.standard_normal((H, W, 1), dtype=np.float32)
    nz = 0.6 * nz + 0.8 * lumn
    small = rng.standard_normal((H // 4 + 1, W // 4 + 1, 3), dtype=np.float32)
    blot = cv2.resize(small, (W, H), interpolation=cv2.INTER_CUBIC)
    out = out + sig * (nz + p['chroma'] * blot * 0.8)
    # ---- tone curve
    if p['shoulder']:
        out = np.where(out > 0.6, 0.6 + 0.4 * (1 - np.exp(-(out - 0.6) / 0.4)), out)
    y = np.take(st.tone_lut(), (np.clip(out, 0, 1) * 16383 + 0.5).astype(np.int32))
    if p['denoise']:
        y = cv2.bilateralFilter(y, 5, 0.08, 2.0)
    if p['sharpen'] > 0:
        bl = cv2.GaussianBlur(y, (0, 0), p['sharpen_sigma'])
        y = y + p['sharpen'] * (y - bl)
    y8 = (np.clip(y, 0, 1) * 255 + 0.5).astype(np.uint8)
    ok, buf = cv2.imencode('.jpg', cv2.cvtColor(y8, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, p['jpeg']])
    return buf.tobytes()


# ============================================================ self test
def selftest():
    """Pip counts per face, opposite faces, top-face detection."""
    rng = np.random.default_rng(5)
    noise = NoiseBank(rng)
    for kind in ('standard', 'casino', 'asian', 'translucent', 'marbled'):
        for _ in range(6):
            sty = DieStyle(rng, noise, kind)
            for v in range(1, 7):
                cov = sty.maps(v, 128)['cov']
                n, _ = cv2.connectedComponents((cov > 0.5).astype(np.uint8))
                assert n - 1 == v, (kind, v, n - 1)
                assert len(pip_layout(v, 1.0, sty)) == v
                assert np.allclose(FACE_N[v] + FACE_N[7 - v], 0), v
                assert np.allclose(np.cross(FACE_U[v], FACE_V[v]), FACE_N[v]), v
            for top in range(1, 7):
                d = Die(sty, np.zeros(3), die_rotation(rng, top, rng.uniform(0, 6.3)), False)
                assert d.top == top
    # right-handed: 1 (+z), 2 (+x), 3 (+y) counter-clockwise around their corner
    assert np.dot(np.cross(FACE_N[2], FACE_N[3]), FACE_N[1]) > 0
    return True


# ============================================================ main
def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('out_dir')
    ap.add_argument('--seed', type=int, required=True)
    ap.add_argument('--images', type=int, required=True)
    ap.add_argument('--width', type=int, default=640)
    ap.add_argument('--height', type=int, default=480)
    ap.add_argument('--quiet', action='store_true')
    a = ap.parse_args(argv)
    os.makedirs(a.out_dir, exist_ok=True)
    st = Setup(a.seed, a.width, a.height)
    images = {}
    for i in range(1, a.images + 1):
        jpg, truth, view, info = render_image(st, i)
        name = 'img-%04d.jpg' % i
        with open(os.path.join(a.out_dir, name), 'wb') as fh:
            fh.write(jpg)
        images[name] = truth
        if not a.quiet:
            off = view.C - view.target
            el = math.degrees(math.atan2(off[2], math.hypot(off[0], off[1])))
            print('%s: %d dice listed (%s)%s, elev %.1f deg, dist %.0f mm, %s' % (
                name, len(truth), ' '.join(t['face'] for t in truth),
                ', %d tilted' % sum(t['tilted'] for t in truth) if any(t['tilted'] for t in truth) else '',
                el, np.linalg.norm(off), st.surface.kind))
    # one die per line keeps the file readable and diff-able
    lines = ['{"seed": %s, "size": [%d, %d], "images": {' % (json.dumps(a.seed), a.width, a.height)]
    names = list(images)
    for k, name in enumerate(names):
        dice = ',\n  '.join(json.dumps(d) for d in images[name])
        lines.append('%s: [%s%s]%s' % (json.dumps(name), '\n  ' if dice else '', dice, ',' if k < len(names) - 1 else ''))
    lines.append('}}')
    with open(os.path.join(a.out_dir, 'truth.json'), 'w') as fh:
        fh.write('\n'.join(lines) + '\n')


if __name__ == '__main__':
    main()
