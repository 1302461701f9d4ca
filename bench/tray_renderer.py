#!/usr/bin/env python3
"""Independent photo-like test-data renderer for the camera dice reader.

Written without looking at the reader or at its own renderer, so that the
images do not share its blind spots.  One run simulates ONE dice tower (one
camera, one tray, one lighting set-up, one set of physical dice), all drawn
from the seed, and writes:

    OUT_DIR/empty/empty-{1,2,3}.png
    OUT_DIR/teach/<kind>/<colour>/<face>-<k>.png       k = 1..3, one flat die
    OUT_DIR/trays/tray-0001.png ...                     1..8 dice, ~15 % cocked
    OUT_DIR/truth.json

How it renders (all in linear light, millimetres, world z up, tray floor z=0):

* camera: pinhole 250-400 mm above the floor, tilted 0-15 deg, small roll,
  focal length chosen so a 16 mm die is ~55-75 px wide at 640x480, mild
  radial distortion, principal point off-centre;
* tray floor (felt / wood / neoprene / rubber / cardboard) is a procedural
  texture in world millimetres with a bump map, seen through the camera; some
  towers have tray walls, a rim and the table outside, ray-cast per pixel;
* lights: one or two point/area lights (ring light at the camera, overhead
  panel, side lamps) with colour temperatures, inverse-square fall-off, a
  sky/ambient term and sometimes a window-like gradient; the walls and every
  die cast soft shadows on the floor, dice get contact shadows / ambient
  occlusion, translucent dice cast tinted shadows;
* dice are ray-marched signed-distance solids: rounded cubes (d6 with
  recessed pips, King-of-Tokyo-like symbol dice) and a rounded dodecahedron
  (d12 with engraved numerals); Lambert + Blinn-Phong + Fresnel environment
  reflection, floor bounce light, optional translucency, colour mottling;
* the frame is rendered 2x supersampled, then lens distortion, downsampling,
  defocus, occasional motion blur, vignetting, exposure, white-balance error,
  shot/read noise, saturation, tone curve, sharpening and a JPEG round trip.

Only numpy and opencv are used.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time

import cv2
import numpy as np

SS = 2                      # supersampling factor of the internal render
TAU = 2.0 * math.pi
F32 = np.float32
PHI = (1.0 + 5.0 ** 0.5) / 2.0

COMBOS = [("d6pips", "white"), ("d6pips", "red"), ("d12", "red"),
          ("d12", "yellow"), ("kotd", "black")]
KOTD_FACES = ["CLAW", "HEART", "ENERGY", "FAME", "DESTRUCTION", "POWER"]
D6_FACES = [str(i) for i in range(1, 7)]
D12_FACES = [str(i) for i in range(1, 13)]


# ----------------------------------------------------------------- helpers
def unit(v):
    v = np.asarray(v, float)
    return v / np.linalg.norm(v, axis=-1, keepdims=True)


def rot_axis(axis, ang):
    x, y, z = unit(axis)
    c, s = math.cos(ang), math.sin(ang)
    C = 1.0 - c
    return np.array([[c + x * x * C, x * y * C - z * s, x * z * C + y * s],
                     [y * x * C + z * s, c + y * y * C, y * z * C - x * s],
                     [z * x * C - y * s, z * y * C + x * s, c + z * z * C]])


def rot_z(a):
    return rot_axis((0, 0, 1), a)


def rot_from_to(a, b):
    a, b = unit(a), unit(b)
    v = np.cross(a, b)
    c = float(np.dot(a, b))
    sn = float(np.linalg.norm(v))
    if sn < 1e-9:
        if c > 0:
            return np.eye(3)
        p = np.array([1.0, 0, 0]) if abs(a[0]) < 0.9 else np.array([0, 1.0, 0])
        return rot_axis(np.cross(a, p), math.pi)
    return rot_axis(v, math.atan2(sn, c))


def s2l(c):
    """sRGB 0..255 -> linear 0..1."""
    c = np.asarray(c, float) / 255.0
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


_LUT_N = 8192
_L2S_LUT = None


def l2s_lut(x):
    """Linear 0..1 -> sRGB 0..1 through a lookup table (fast)."""
    global _L2S_LUT
    if _L2S_LUT is None:
        t = np.linspace(0, 1, _LUT_N)
        _L2S_LUT = np.where(t <= 0.0031308, 12.92 * t,
                            1.055 * np.power(t, 1 / 2.4) - 0.055).astype(F32)
    idx = (np.clip(x, 0.0, 1.0) * (_LUT_N - 1) + 0.5).astype(np.int32)
    return _L2S_LUT[idx]


def kelvin_rgb(T):
    """Colour of a black body (approx.), linear RGB with luminance 1."""
    t = T / 100.0
    r = 255.0 if t <= 66 else 329.698727446 * ((t - 60) ** -0.1332047592)
    g = (99.4708025861 * math.log(t) - 161.1195681661) if t <= 66 else \
        288.1221695283 * ((t - 60) ** -0.0755148492)
    b = 255.0 if t >= 66 else (0.0 if t <= 19 else
                               138.5177312231 * math.log(t - 10) - 305.0447927307)
    c = s2l(np.clip([r, g, b], 0, 255))
    return c / (0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2])


def lum(c):
    return 0.2126 * c[..., 0] + 0.7152 * c[..., 1] + 0.0722 * c[..., 2]


def smooth_noise(rng, h, w, cell):
    """Smooth zero-mean noise, roughly unit variance, feature size ~cell px."""
    gh = max(2, int(round(h / cell)) + 2)
    gw = max(2, int(round(w / cell)) + 2)
    g = rng.standard_normal((gh, gw)).astype(F32)
    # smooth on an intermediate grid (~4 px per cell), then interpolate up
    f = min(1.0, 4.0 / max(cell, 1e-3))
    ih, iw = max(2, int(h * f)), max(2, int(w * f))
    mid = cv2.resize(g, (iw, ih), interpolation=cv2.INTER_CUBIC)
    mid = cv2.GaussianBlur(mid, (0, 0), max(0.5, cell * f * 0.25))
    out = cv2.resize(mid, (w, h), interpolation=cv2.INTER_CUBIC) if (iw, ih) != (w, h) else mid
    sd = float(out.std()) or 1.0
    return out / sd


def fractal(rng, h, w, cell, octaves=3, gain=0.5):
    out = np.zeros((h, w), F32)
    a, tot = 1.0, 0.0
    for _ in range(octaves):
        if cell < 1.0:
            break
        out += a * smooth_noise(rng, h, w, cell)
        tot += a * a
        a *= gain
        cell /= 2.0
    return out / math.sqrt(max(tot, 1e-9))


def smoothstep(e0, e1, x):
    t = np.clip((x - e0) / (e1 - e0), 0.0, 1.0)
    return t * t * (3 - 2 * t)


# ----------------------------------------------------------------- camera
class Camera:
    def __init__(self, W, H, f, cx, cy, R, C, k1):
        self.W, self.H, self.f, self.cx, self.cy = W, H, f, cx, cy
        self.R = R            # rows: camera right, down, forward (world)
        self.C = C            # centre (world, mm)
        self.k1 = k1          # radial distortion of the output image

    def dirs(self, xs, ys):
        a = ((xs - self.cx) / self.f)[..., None]
        b = ((ys - self.cy) / self.f)[..., None]
        d = a * self.R[0] + b * self.R[1] + self.R[2]
        return d / np.linalg.norm(d, axis=-1, keepdims=True)

    def project(self, P):
        q = (np.asarray(P, float) - self.C) @ self.R.T
        return np.stack([self.f * q[:, 0] / q[:, 2] + self.cx,
                         self.f * q[:, 1] / q[:, 2] + self.cy], -1)

    def floor_point(self, x, y, z=0.0):
        d = self.dirs(np.asarray(x, float), np.asarray(y, float))
        t = (z - self.C[2]) / d[..., 2]
        return self.C + t[..., None] * d

    def distort(self, pts):
        """Undistorted pixel coords -> coords in the distorted output."""
        pts = np.asarray(pts, float)
        xn = (pts[:, 0] - self.cx) / self.f
        yn = (pts[:, 1] - self.cy) / self.f
        xd, yd = xn.copy(), yn.copy()
        for _ in range(20):
            s = 1.0 + self.k1 * (xd * xd + yd * yd)
            xd, yd = xn / s, yn / s
        return np.stack([xd * self.f + self.cx, yd * self.f + self.cy], -1)


# ----------------------------------------------------------------- die models
class CubeModel:
    """Rounded cube, faces +Z,-Z,+X,-X,+Y,-Y."""

    def __init__(self, size, rr):
        self.h = size / 2.0
        self.rr = rr
        self.core = self.h - rr
        self.normals = np.array([[0, 0, 1], [0, 0, -1], [1, 0, 0], [-1, 0, 0],
                                 [0, 1, 0], [0, -1, 0]], float)
        self.e1 = np.array([[1, 0, 0], [1, 0, 0], [0, 1, 0], [0, -1, 0],
                            [0, 0, 1], [0, 0, -1]], float)
        self.e2 = np.array([[0, 1, 0], [0, -1, 0], [0, 0, 1], [0, 0, 1],
                            [1, 0, 0], [1, 0, 0]], float)
        self.offsets = np.full(6, self.h)
        self.verts = np.array([[a, b, c] for a in (-1, 1) for b in (-1, 1)
                               for c in (-1, 1)], float) * self.h
        # points of the rounded solid used for shadows / footprints
        self.shadow_verts = self.verts * (1.0 - 0.29 * rr / self.h)
        self.low_z_core = self.core   # resting offset below centre, flat

    def rest_height(self, R):
        core = self.verts * (self.core / self.h)
        return -(core @ R.T)[:, 2].min() + self.rr

    def sdf(self, x, y, z):
        c = self.core
        qx = np.abs(x) - c
        qy = np.abs(y) - c
        qz = np.abs(z) - c
        mx = np.maximum(qx, 0)
        my = np.maximum(qy, 0)
        mz = np.maximum(qz, 0)
        return (np.sqrt(mx * mx + my * my + mz * mz)
                + np.minimum(np.maximum(qx, np.maximum(qy, qz)), 0) - self.rr)

    def normal(self, P):
        c = self.core
        m = np.maximum(np.abs(P) - c, 0) * np.sign(P)
        n = np.linalg.norm(m, axis=1, keepdims=True)
        bad = n[:, 0] < 1e-9
        if bad.any():
            k = np.argmax(np.abs(P[bad]), axis=1)
            mm = np.zeros((bad.sum(), 3))
            mm[np.arange(k.size), k] = np.sign(P[bad][np.arange(k.size), k])
            m[bad] = mm
            n[bad] = 1.0
        return m / n


def _dodeca_geometry():
    V = [(a, b, c) for a in (-1, 1) for b in (-1, 1) for c in (-1, 1)]
    for s1 in (-1, 1):
        for s2 in (-1, 1):
            V += [(0, s1 / PHI, s2 * PHI), (s1 / PHI, s2 * PHI, 0), (s1 * PHI, 0, s2 / PHI)]
    V = np.array(V, float)
    N = []
    for s1 in (-1, 1):
        for s2 in (-1, 1):
            N += [(0, s1 * PHI, s2), (s1 * PHI, s2, 0), (s1, 0, s2 * PHI)]
    N = unit(np.array(N, float))
    r_in = float((V @ N[0]).max())
    return V, N, r_in


_DV, _DN, _DR = _dodeca_geometry()


class DodecaModel:
    """Dodecahedron with edges rounded by a log-sum-exp soft maximum."""

    def __init__(self, face_to_face, k):
        s = (face_to_face / 2.0) / _DR
        self.r_in = face_to_face / 2.0
        self.k = k
        self.verts = _DV * s
        self.normals = _DN.copy()
        self.offsets = np.full(12, self.r_in)
        self.shadow_verts = self.verts * 0.98
        e1, e2 = [], []
        for n in self.normals:
            d = self.verts @ n
            fv = self.verts[np.abs(d - d.max()) < 1e-6]
            ctr = n * self.r_in
            up = unit(fv[0] - ctr)          # numeral points at a vertex
            e2.append(up)
            e1.append(np.cross(up, n))
        self.e1, self.e2 = np.array(e1), np.array(e2)
        self.circum = float(np.linalg.norm(fv[0] - ctr))   # pentagon circumradius
        # opposite faces sum to 13
        labels = [None] * 12
        nxt = 1
        for i in range(12):
            if labels[i] is None:
                j = int(np.argmin(self.normals @ self.normals[i]))
                labels[i], labels[j] = nxt, 13 - nxt
                nxt += 1
        self.face_numbers = labels

    def rest_height(self, R):
        return -(self.verts @ R.T)[:, 2].min() - 0.15 * self.k

    def sdf(self, x, y, z):
        N = self.normals
        v = N[:, 0:1] * x + N[:, 1:2] * y + N[:, 2:3] * z - self.r_in
        m = v.max(0)
        return m + self.k * np.log(np.exp((v - m) / self.k).sum(0))

    def normal(self, P):
        v = P @ self.normals.T - self.r_in
        w = np.exp((v - v.max(1, keepdims=True)) / self.k)
        g = w @ self.normals
        return g / np.linalg.norm(g, axis=1, keepdims=True)


# ----------------------------------------------------------------- glyphs
def _claw(img, T):
    for i in (-1, 0, 1):
        a = np.array([0.5 * T + i * 0.15 * T + 0.13 * T, 0.2 * T])
        b = np.array([0.5 * T + i * 0.15 * T - 0.13 * T, 0.82 * T])
        d = unit(b - a)
        perp = np.array([-d[1], d[0]])
        ts = np.linspace(0, 1, 24)
        mid = a[None] + (b - a)[None] * ts[:, None] + perp[None] * (0.06 * T * np.sin(math.pi * ts))[:, None]
        w = (0.055 * T * np.sin(math.pi * np.clip(ts * 1.05, 0, 1)) ** 0.6 + 0.004 * T)
        left = mid + perp[None] * w[:, None]
        right = mid - perp[None] * w[:, None]
        poly = np.concatenate([left, right[::-1]]).astype(np.int32)
        cv2.fillPoly(img, [poly], 255, cv2.LINE_AA)


def _heart(img, T):
    r = int(0.16 * T)
    cv2.circle(img, (int(0.36 * T), int(0.40 * T)), r, 255, -1, cv2.LINE_AA)
    cv2.circle(img, (int(0.64 * T), int(0.40 * T)), r, 255, -1, cv2.LINE_AA)
    pts = np.array([[0.215 * T, 0.47 * T], [0.785 * T, 0.47 * T], [0.5 * T, 0.80 * T]], np.int32)
    cv2.fillConvexPoly(img, pts, 255, cv2.LINE_AA)
    cv2.rectangle(img, (int(0.36 * T), int(0.40 * T)), (int(0.64 * T), int(0.5 * T)), 255, -1)


def _bolt(img, T):
    p = np.array([[0.60, 0.14], [0.30, 0.54], [0.47, 0.54], [0.36, 0.88],
                  [0.72, 0.42], [0.54, 0.42], [0.68, 0.14]]) * T
    cv2.fillPoly(img, [p.astype(np.int32)], 255, cv2.LINE_AA)


def _star(img, T):
    pts = []
    for i in range(10):
        r = 0.36 * T if i % 2 == 0 else 0.15 * T
        a = -math.pi / 2 + i * math.pi / 5
        pts.append([0.5 * T + r * math.cos(a), 0.53 * T + r * math.sin(a)])
    cv2.fillPoly(img, [np.array(pts, np.int32)], 255, cv2.LINE_AA)


def _building(img, T):
    p = np.array([[0.28, 0.84], [0.28, 0.30], [0.38, 0.30], [0.38, 0.22], [0.47, 0.22],
                  [0.52, 0.36], [0.57, 0.26], [0.62, 0.40], [0.70, 0.34], [0.70, 0.84]]) * T
    cv2.fillPoly(img, [p.astype(np.int32)], 255, cv2.LINE_AA)
    for cx in (0.35, 0.48):
        for cy in (0.44, 0.56, 0.68):
            cv2.rectangle(img, (int(cx * T), int(cy * T)),
                          (int((cx + 0.07) * T), int((cy + 0.07) * T)), 0, -1)
    crack = np.array([[0.63, 0.42], [0.58, 0.52], [0.64, 0.60], [0.57, 0.72], [0.60, 0.84]]) * T
    crack = crack.astype(np.int32)
    cv2.polylines(img, [crack], False, 0, max(2, T // 45), cv2.LINE_AA)
    for (x, y, s) in ((0.78, 0.22, 0.06), (0.84, 0.34, 0.045), (0.76, 0.12, 0.035)):
        q = np.array([[x, y], [x + s, y + 0.3 * s], [x + 0.7 * s, y + s], [x - 0.2 * s, y + 0.7 * s]]) * T
        cv2.fillConvexPoly(img, q.astype(np.int32), 255, cv2.LINE_AA)


def _fist(img, T):
    def P(x, y):
        return (int(x * T), int(y * T))
    cv2.rectangle(img, P(0.27, 0.36), P(0.73, 0.68), 255, -1)
    for i in range(4):
        cv2.ellipse(img, P(0.33 + i * 0.113, 0.36), (int(0.07 * T), int(0.09 * T)),
                    0, 0, 360, 255, -1, cv2.LINE_AA)
    cv2.ellipse(img, P(0.50, 0.68), (int(0.23 * T), int(0.08 * T)), 0, 0, 180, 255, -1, cv2.LINE_AA)
    cv2.rectangle(img, P(0.38, 0.70), P(0.64, 0.88), 255, -1)
    lw = max(2, T // 50)
    for i in range(3):
        x = 0.39 + i * 0.113
        cv2.line(img, P(x, 0.30), P(x, 0.50), 0, lw, cv2.LINE_AA)
    cv2.line(img, P(0.27, 0.52), P(0.60, 0.52), 0, lw, cv2.LINE_AA)
    cv2.line(img, P(0.60, 0.52), P(0.66, 0.44), 0, lw, cv2.LINE_AA)
    cv2.line(img, P(0.36, 0.73), P(0.66, 0.73), 0, lw, cv2.LINE_AA)


_ICONS = {"CLAW": _claw, "HEART": _heart, "ENERGY": _bolt, "FAME": _star,
          "DESTRUCTION": _building, "POWER": _fist}


def sample_rows(img, cols, rows):
    """Bilinear samples of a multi-channel image at arbitrary points."""
    n = cols.size
    w = 1024
    h = (n + w - 1) // w
    mx = np.zeros(h * w, F32)
    my = np.zeros(h * w, F32)
    mx[:n], my[:n] = cols, rows
    out = cv2.remap(img, mx.reshape(h, w), my.reshape(h, w), cv2.INTER_LINEAR,
                    borderMode=cv2.BORDER_CONSTANT)
    return out.reshape(h * w, -1)[:n]


def make_atlas(tiles, tile_half_mm, T=128, blur_mm=0.06):
    """Stack of glyph masks (T x T*n) plus d(mask)/du, d(mask)/dv per mm."""
    m = np.concatenate([t.astype(F32) / 255.0 for t in tiles], axis=1)
    mm_per_tex = 2.0 * tile_half_mm / T
    mb = cv2.GaussianBlur(m, (0, 0), max(0.6, blur_mm / mm_per_tex))
    gx = cv2.Sobel(mb, cv2.CV_32F, 1, 0, ksize=3) / (8.0 * mm_per_tex)
    gy = -cv2.Sobel(mb, cv2.CV_32F, 0, 1, ksize=3) / (8.0 * mm_per_tex)
    return np.dstack([m, gx, gy]).astype(F32)


def numeral_tiles(model, font, thick_frac, height_frac, T=128):
    tiles = []
    R = model.circum
    for fi in range(12):
        num = model.face_numbers[fi]
        big = 4 * T
        img = np.zeros((big, big), np.uint8)
        text = str(num)
        target_h = height_frac * R / (2 * R) * big     # numeral cap height in px
        (tw, th), _ = cv2.getTextSize(text, font, 1.0, 1)
        scale = target_h / th
        thick = max(1, int(round(thick_frac * target_h)))
        (tw, th), base = cv2.getTextSize(text, font, scale, thick)
        x = big / 2 - tw / 2
        yb = int(big / 2 + th / 2)
        for ch in text:
            (cw, _), _ = cv2.getTextSize(ch, font, scale, thick)
            if ch == "0":
                # OpenCV's built-in zero is slashed; dice use a plain oval of
                # the size of an "8" and the stroke width of a "1"
                tmp = np.zeros((big, big), np.uint8)
                cv2.putText(tmp, "8", (int(x), yb), font, scale, 255, thick, cv2.LINE_AA)
                ys_, xs_ = np.nonzero(tmp > 127)
                cv2.putText(tmp, "1", (int(x), yb), font, scale, 128, thick, cv2.LINE_AA)
                mid = (tmp[(ys_.min() + ys_.max()) // 2] == 128)
                stem = max(2, int(mid.sum()))
                cx_, cy_ = (xs_.min() + xs_.max()) / 2.0, (ys_.min() + ys_.max()) / 2.0
                ax = (xs_.max() - xs_.min() - stem) / 2.0
                ay = (ys_.max() - ys_.min() - stem) / 2.0
                cv2.ellipse(img, (int(cx_), int(cy_)), (int(ax), int(ay)), 0, 0, 360, 255, stem, cv2.LINE_AA)
            else:
                cv2.putText(img, ch, (int(x), yb), font, scale, 255, thick, cv2.LINE_AA)
            x += cw
        if num in (6, 9):
            y = int(big / 2 + th / 2 + 0.22 * th)
            cv2.line(img, (int(big / 2 - 0.3 * tw), y), (int(big / 2 + 0.3 * tw), y), 255,
                     max(1, int(thick * 0.9)), cv2.LINE_AA)
        tiles.append(cv2.resize(img, (T, T), interpolation=cv2.INTER_AREA))
    return tiles


def icon_tiles(labels, scale, T=128):
    tiles = []
    for lab in labels:
        big = 4 * T
        img = np.zeros((big, big), np.uint8)
        _ICONS[lab](img, big)
        # shrink icon about the centre by `scale`
        M = np.array([[scale, 0, big / 2 * (1 - scale)], [0, scale, big / 2 * (1 - scale)]], F32)
        img = cv2.warpAffine(img, M, (big, big), flags=cv2.INTER_AREA)
        tiles.append(cv2.resize(img, (T, T), interpolation=cv2.INTER_AREA))
    return tiles


# pip layouts in units of the pip offset, u right, v up
PIP_LAYOUT = {
    1: [(0, 0)],
    2: [(-1, -1), (1, 1)],
    3: [(-1, -1), (0, 0), (1, 1)],
    4: [(-1, -1), (1, 1), (-1, 1), (1, -1)],
    5: [(-1, -1), (1, 1), (-1, 1), (1, -1), (0, 0)],
    6: [(-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)],
}
D6_LABELS = ["1", "6", "2", "5", "3", "4"]          # faces +Z,-Z,+X,-X,+Y,-Y (right-handed)


class DiceSet:
    """One physical set of dice of a kind and colour in this tower."""

    def __init__(self, kind, colour, rng):
        self.kind, self.colour = kind, colour
        r = rng.uniform
        if kind == "d6pips":
            self.size = r(15.3, 16.7)
            self.rr = r(0.9, 2.0)
            self.pip_off = r(0.255, 0.285)
            self.pip_r = r(0.082, 0.098)
            self.one_r = self.pip_r * r(1.0, 1.35)
            self.dimple = r(0.25, 0.45)
            if colour == "white":
                self.body = s2l([r(228, 245), r(226, 242), r(214, 235)])
                self.paint = s2l([r(10, 30)] * 3)
                self.trans = r(0.0, 0.25) if rng.random() < 0.25 else 0.0
            else:
                self.body = s2l([r(170, 215), r(14, 40), r(18, 45)])
                self.paint = s2l([r(228, 248), r(228, 246), r(220, 240)])
                self.trans = r(0.25, 0.65) if rng.random() < 0.55 else 0.0
            self.labels = D6_LABELS
        elif kind == "kotd":
            self.size = r(17.3, 19.3)
            self.rr = r(1.5, 2.6)
            self.body = s2l([r(18, 40)] * 3) * np.array([1, r(0.95, 1.05), r(0.95, 1.12)])
            self.paint = s2l([r(225, 245), r(225, 245), r(220, 240)])
            self.trans = r(0.1, 0.3) if rng.random() < 0.2 else 0.0
            perm = rng.permutation(6)
            self.labels = [KOTD_FACES[i] for i in perm]
            self.icon_scale = r(0.78, 0.95)
            self.atlas = make_atlas(icon_tiles(self.labels, self.icon_scale), self.size / 2.0)
        else:
            self.size = r(17.5, 20.0)                  # face to face
            self.k = r(0.22, 0.45)
            if colour == "red":
                self.body = s2l([r(160, 205), r(12, 36), r(16, 40)])
                self.paint = s2l([r(228, 248), r(228, 246), r(220, 240)])
                self.trans = r(0.25, 0.65) if rng.random() < 0.5 else 0.0
            else:
                self.body = s2l([r(225, 248), r(180, 212), r(15, 60)])
                self.paint = s2l([r(12, 35)] * 3)
                self.trans = r(0.15, 0.4) if rng.random() < 0.25 else 0.0
            proto = DodecaModel(self.size, self.k)
            font = [cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX,
                    cv2.FONT_HERSHEY_TRIPLEX][rng.integers(3)]
            self.numeral_h = r(0.78, 0.95)
            tiles = numeral_tiles(proto, font, 0.0 if rng.random() < 0.4 else 0.15, self.numeral_h)
            self.atlas = make_atlas(tiles, proto.circum)
            self.labels = [str(n) for n in proto.face_numbers]
        glossy = rng.random() > 0.15
        self.ks = r(0.6, 1.2) if glossy else r(0.15, 0.35)
        self.shin = r(60, 300) if glossy else r(10, 30)
        self.engrave = r(0.06, 0.16)
        self.mottle = r(0.02, 0.07)

    def make_model(self, rng):
        if self.kind == "d12":
            return DodecaModel(self.size * (1 + rng.normal(0, 0.01)), self.k)
        s = self.size * (1 + rng.normal(0, 0.012))
        return CubeModel(s, self.rr * (1 + rng.normal(0, 0.05)))


class Die:
    def __init__(self, dset, model, face, rng):
        self.set, self.model = dset, model
        self.kind, self.colour, self.face = dset.kind, dset.colour, face
        self.face_idx = dset.labels.index(face)
        self.body = dset.body * rng.uniform(0.9, 1.07) * rng.uniform(0.96, 1.04, 3)
        self.paint = dset.paint * rng.uniform(0.93, 1.03)
        nw = 4
        self.wave_k = rng.normal(0, 1, (nw, 3)) * (TAU / rng.uniform(5, 22, (nw, 1)))
        self.wave_p = rng.uniform(0, TAU, nw)
        self.wave_a = rng.uniform(0.3, 1.0, nw) * dset.mottle / math.sqrt(nw / 2)
        self.tilted = False
        self.R = np.eye(3)
        self.c = np.zeros(3)

    def pose(self, yaw, tilt=0.0, tilt_toward=None):
        """Face `face` up, yawed; optionally tilted so the top leans away
        from the horizontal unit vector `tilt_toward`; centre (0,0,zrest)."""
        n = self.model.normals[self.face_idx]
        R = rot_z(yaw) @ rot_from_to(n, [0, 0, 1])
        if tilt:
            u = np.array([tilt_toward[0], tilt_toward[1], 0.0])
            R = rot_axis(np.cross(u, [0, 0, 1]), tilt) @ R
            self.tilted = True
        self.R = R
        self.c = np.array([0.0, 0.0, self.model.rest_height(R)])

    @property
    def Vw(self):
        return self.model.verts @ self.R.T + self.c

    @property
    def Sw(self):
        return self.model.shadow_verts @ self.R.T + self.c

    def footprint(self):
        pts = self.Sw[:, :2].astype(F32)
        return cv2.convexHull(pts).reshape(-1, 2)

    def top_face(self):
        nz = (self.model.normals @ self.R.T)[:, 2]
        return int(np.argmax(nz))

    def top_centre(self):
        fi = self.top_face()
        return self.c + self.R @ (self.model.normals[fi] * self.model.offsets[fi])


# ----------------------------------------------------------------- tray textures
def _fibres(rng, h, w, n, len_px, bend, thick=1):
    canvas = np.zeros((h, w), np.uint8)
    if n <= 0:
        return canvas.astype(F32)
    p0 = rng.uniform(0, 1, (n, 2)) * [w, h]
    ang = rng.uniform(0, TAU, n)
    L = rng.uniform(len_px[0], len_px[1], n)
    d = np.stack([np.cos(ang), np.sin(ang)], 1)
    pp = np.stack([-d[:, 1], d[:, 0]], 1)
    b = rng.normal(0, bend, n)[:, None] * L[:, None]
    pts = np.stack([p0, p0 + d * L[:, None] * 0.5 + pp * b, p0 + d * L[:, None]], 1)
    pts = np.round(pts * 4).astype(np.int32)
    cv2.polylines(canvas, list(pts), False, 255, thick, cv2.LINE_AA, 2)
    return canvas.astype(F32) / 255.0


def make_floor_texture(kind, rng, h, w, res):
    """Returns albedo (h,w,3) linear, height (h,w) mm, ks, shininess."""
    r = rng.uniform
    def mm(x):                                    # mm -> texels
        return max(1.0, x / res)
    ks, shin = 0.0, 10.0
    if kind == "felt":
        name = ["blue", "green", "red", "black", "grey"][rng.integers(5)]
        base = {"blue": (38, 62, 130), "green": (34, 100, 58), "red": (135, 28, 34),
                "black": (32, 32, 35), "grey": (108, 108, 112)}[name]
        base = s2l(np.array(base) * rng.uniform(0.85, 1.15) * rng.uniform(0.95, 1.05, 3))
        mott = 0.05 * fractal(rng, h, w, mm(35)) + 0.035 * smooth_noise(rng, h, w, mm(3))
        fib_l = _fibres(rng, h, w, int(h * w / r(60, 140)), (mm(1.2), mm(4.0)), 0.25)
        fib_d = _fibres(rng, h, w, int(h * w / r(60, 140)), (mm(1.2), mm(4.0)), 0.25)
        grain = cv2.GaussianBlur(rng.standard_normal((h, w)).astype(F32), (0, 0), 0.8)
        f = 1 + mott + r(0.12, 0.25) * (fib_l - fib_d) + 0.06 * grain
        alb = base[None, None, :] * f[..., None]
        height = 0.05 * (fib_l - 0.5 * fib_d) + 0.02 * grain
        height = cv2.GaussianBlur(height, (0, 0), 0.8)
    elif kind == "wood":
        pal = [((196, 152, 102), (150, 104, 62)), ((122, 80, 48), (84, 54, 32)),
               ((168, 108, 72), (126, 72, 46)), ((214, 184, 140), (176, 140, 98))]
        lo, hi = pal[rng.integers(len(pal))]
        light, dark = s2l(lo), s2l(hi)
        yy, xx = np.mgrid[0:h, 0:w].astype(F32)
        th = r(0, math.pi)
        a = (xx * math.cos(th) + yy * math.sin(th)) * res
        b = (-xx * math.sin(th) + yy * math.cos(th)) * res
        plank_w = r(70, 160)
        pshift = r(0, plank_w)
        pid = np.floor((b + pshift) / plank_w)
        def prand(k):                             # one random number per plank
            return ((np.sin(pid * 12.9898 + k * 78.233) * 43758.5453) % 1.0).astype(F32)
        # gentle, large-scale bending of the grain, different per plank
        warp = r(2, 9) * fractal(rng, h, w, mm(r(90, 160)), 2) + 0.25 * smooth_noise(rng, h, w, mm(12))
        bb = b + warp + prand(1) * 500.0
        per = r(1.2, 3.5)
        ring = bb / per
        ri = np.floor(ring).astype(np.int64)
        rf = ring - ri
        ring_lut = rng.uniform(0.3, 1.0, 4096).astype(F32)
        g = (smoothstep(0.5, 0.85, rf) * (1 - smoothstep(0.85, 1.0, rf))) * ring_lut[ri % 4096]
        lut = rng.standard_normal(8192).astype(F32)
        lut = cv2.GaussianBlur(lut.reshape(1, -1), (0, 0), 1.0).ravel()
        lut /= lut.std()
        streak = lut[((bb / 0.08).astype(np.int64)) % 8192]
        along = smooth_noise(rng, h, w, mm(25))
        t = (r(0.25, 0.45) * g + 0.07 * streak * (0.6 + 0.4 * along) + 0.05 * along
             + 0.25 * (prand(2) - 0.5) + 0.06 * smooth_noise(rng, h, w, mm(70)) + 0.3)
        t = np.clip(t, 0, 1)
        alb = light[None, None] * (1 - t[..., None]) + dark[None, None] * t[..., None]
        fine = cv2.GaussianBlur(rng.standard_normal((h, w)).astype(F32), (0, 0), 0.7)
        alb = alb * (1 + 0.03 * fine)[..., None]
        seam = (np.abs((b + pshift) % plank_w) < 0.25).astype(F32)
        alb = alb * (1 - 0.55 * seam)[..., None]
        height = -0.02 * g - 0.25 * seam + 0.004 * streak
        height = cv2.GaussianBlur(height.astype(F32), (0, 0), 1.0)
        ks, shin = r(0.03, 0.2), r(15, 60)
    elif kind in ("neoprene", "rubber"):
        base = [(28, 28, 32), (26, 40, 84), (72, 72, 78), (30, 54, 40), (44, 44, 50)][rng.integers(5)]
        base = s2l(np.array(base) * rng.uniform(0.85, 1.15))
        stip = cv2.GaussianBlur(rng.standard_normal((h, w)).astype(F32), (0, 0), mm(0.12))
        stip /= stip.std()
        mott = 0.04 * fractal(rng, h, w, mm(40))
        f = 1 + mott + 0.05 * stip
        alb = base[None, None] * f[..., None]
        height = 0.03 * stip
        if kind == "rubber":
            yy, xx = np.mgrid[0:h, 0:w].astype(F32)
            per = r(1.4, 3.0) / res
            th = r(0, math.pi / 2)
            a = xx * math.cos(th) + yy * math.sin(th)
            b = -xx * math.sin(th) + yy * math.cos(th)
            pat = np.abs(np.sin(math.pi * a / per)) + np.abs(np.sin(math.pi * b / per))
            pat = (pat / 2).astype(F32)
            height = height + 0.12 * pat
            alb = alb * (0.88 + 0.12 * pat)[..., None]
            ks, shin = r(0.01, 0.05), r(5, 15)
        else:
            if rng.random() < 0.35:          # faint printed playmat art
                c2 = s2l(rng.uniform(30, 200, 3))
                t = smoothstep(0.3, 1.5, fractal(rng, h, w, mm(50), 3))[..., None] * r(0.08, 0.2)
                alb = alb * (1 - t) + c2[None, None] * t
            ks, shin = r(0.01, 0.05), r(4, 12)
    else:  # cardboard
        base = [(168, 166, 158), (182, 150, 108), (196, 190, 176), (140, 138, 132)][rng.integers(4)]
        base = s2l(np.array(base) * rng.uniform(0.9, 1.08))
        mott = 0.025 * fractal(rng, h, w, mm(30)) + 0.02 * smooth_noise(rng, h, w, mm(2))
        fib = _fibres(rng, h, w, int(h * w / 150), (mm(0.6), mm(1.8)), 0.2)
        grain = cv2.GaussianBlur(rng.standard_normal((h, w)).astype(F32), (0, 0), 0.7)
        f = 1 + mott + 0.06 * fib + 0.03 * grain
        spk = np.zeros((h, w), np.uint8)
        n = int(h * w * res * res / r(60, 200))
        ctr = (rng.uniform(0, 1, (n, 2)) * [w, h]).astype(np.int32)
        rad = np.maximum(1, (rng.uniform(0.06, 0.3, n) / res)).astype(int)
        for (x, y), rr in zip(ctr, rad):
            cv2.circle(spk, (int(x), int(y)), int(rr), 255, -1, cv2.LINE_AA)
        spk = cv2.GaussianBlur(spk.astype(F32) / 255.0, (0, 0), 0.7)
        f = f * (1 - r(0.3, 0.6) * spk)
        alb = base[None, None] * f[..., None]
        height = 0.02 * grain + 0.02 * fib
    return np.clip(alb, 0, 1).astype(F32), height.astype(F32), ks, shin


# ----------------------------------------------------------------- tower
class Light:
    def __init__(self, pos, col, weight, size):
        self.pos = np.asarray(pos, float)
        self.col = np.asarray(col, float)
        self.weight = weight
        self.size = size
        self.I = 1.0


class Tower:
    def __init__(self, seed, W, H):
        self.seed, self.W, self.H = seed, W, H
        rng = np.random.default_rng([seed, 7001])
        self._camera(rng)
        self._tray(rng)
        self._lights(rng)
        self.sets = {(k, c): DiceSet(k, c, rng) for k, c in COMBOS}
        self._isp(rng)
        self._background(rng)

    # ---- set-up
    def _camera(self, rng):
        W, H = self.W, self.H
        Hc = rng.uniform(250, 400)
        tilt = math.radians(15.0 * rng.uniform(0, 1) ** 0.8)
        az = rng.uniform(0, TAU)
        roll = math.radians(rng.normal(0, 2.5)) + (math.pi / 2 if rng.random() < 0.2 else 0.0)
        die_px = rng.uniform(57, 73) * W / 640.0
        f = die_px * (Hc / math.cos(tilt) - 16.0) / 16.0
        r0, d0, f0 = np.array([1.0, 0, 0]), np.array([0, -1.0, 0]), np.array([0, 0, -1.0])
        Rr = rot_axis(f0, roll)
        r0, d0 = Rr @ r0, Rr @ d0
        Rt = rot_axis([math.cos(az), math.sin(az), 0], tilt)
        Rc = np.stack([Rt @ r0, Rt @ d0, Rt @ f0])
        target = np.array([rng.normal(0, 8), rng.normal(0, 8), 0.0])
        C = target - Rc[2] * (Hc / -Rc[2][2])
        cx = (W - 1) / 2.0 + rng.normal(0, 0.012 * W)
        cy = (H - 1) / 2.0 + rng.normal(0, 0.012 * H)
        k1 = rng.uniform(-0.03, 0.12)
        self.cam = Camera(W, H, f, cx, cy, Rc, C, k1)
        self.die_px = die_px
        self.px_per_mm = f / Hc

    def _tray(self, rng):
        W, H = self.W, self.H
        cor = self.cam.floor_point(np.array([0, W - 1, W - 1, 0.0]), np.array([0, 0, H - 1, H - 1.0]))
        xs, ys = np.sort(cor[:, 0]), np.sort(cor[:, 1])
        self.vis_bounds = (xs[0], xs[3], ys[0], ys[3])
        self.walls = rng.random() < 0.5
        if self.walls:
            vis = rng.random(4) < 0.5
            if not vis.any():
                vis[rng.integers(4)] = True
            spanx, spany = xs[2] - xs[1], ys[2] - ys[1]
            x0 = xs[1] + rng.uniform(0.02, 0.12) * spanx if vis[0] else xs[0] - rng.uniform(20, 60)
            x1 = xs[2] - rng.uniform(0.02, 0.12) * spanx if vis[1] else xs[3] + rng.uniform(20, 60)
            y0 = ys[1] + rng.uniform(0.02, 0.12) * spany if vis[2] else ys[0] - rng.uniform(20, 60)
            y1 = ys[2] - rng.uniform(0.02, 0.12) * spany if vis[3] else ys[3] + rng.uniform(20, 60)
            self.rect = (x0, x1, y0, y1)
            self.wall_vis = vis
            self.hw = rng.uniform(14, 35)
            self.rim_w = rng.uniform(4, 16)
            self.table_z = -rng.uniform(3, 10)
        else:
            self.rect = (-1e4, 1e4, -1e4, 1e4)
            self.wall_vis = np.zeros(4, bool)
            self.hw = 0.0
        self.floor_kind = ["felt", "wood", "neoprene", "rubber", "cardboard"][
            rng.choice(5, p=[0.36, 0.17, 0.17, 0.12, 0.18])]

    def _lights(self, rng):
        cfg = rng.choice(["ring", "overhead", "side", "two"], p=[0.22, 0.3, 0.2, 0.28])
        C = self.cam.C
        T0 = rng.uniform(2700, 6500)
        lights = []

        def side(az):
            d = rng.uniform(140, 380)
            return np.array([d * math.cos(az), d * math.sin(az), rng.uniform(180, 480)])
        if cfg == "ring":
            pos = C + np.array([rng.normal(0, 25), rng.normal(0, 25), rng.uniform(0, 15)])
            lights.append(Light(pos, kelvin_rgb(T0), 1.0, rng.uniform(40, 110)))
        elif cfg == "overhead":
            pos = np.array([rng.normal(0, 90), rng.normal(0, 90), rng.uniform(320, 700)])
            lights.append(Light(pos, kelvin_rgb(T0), 1.0, rng.uniform(120, 320)))
        elif cfg == "side":
            lights.append(Light(side(rng.uniform(0, TAU)), kelvin_rgb(T0), 1.0, rng.uniform(30, 140)))
        else:
            a = rng.uniform(0, TAU)
            b = a + rng.uniform(math.pi / 2, 1.5 * math.pi)
            T1 = T0 if rng.random() < 0.6 else rng.uniform(2700, 6500)
            lights.append(Light(side(a), kelvin_rgb(T0), 1.0, rng.uniform(30, 160)))
            lights.append(Light(side(b), kelvin_rgb(T1), rng.uniform(0.3, 0.9), rng.uniform(30, 160)))
        for L in lights:        # irradiance `weight` on the floor at the tray centre
            v = L.pos - np.array([0, 0, 0.0])
            d2 = float(v @ v)
            L.I = L.weight * d2 / (v[2] / math.sqrt(d2))
        self.lights = lights
        self.light_cfg = cfg
        self.amb_level = rng.uniform(0.1, 0.4)
        self.amb_col = kelvin_rgb(T0 + (rng.uniform(5000, 7000) - T0) * rng.uniform(0.0, 0.6))
        g = rng.uniform(0.0, 0.004) if rng.random() < 0.4 else 0.0
        ga = rng.uniform(0, TAU)
        self.grad = np.array([g * math.cos(ga), g * math.sin(ga)])
        self.env_level = rng.uniform(1.0, 3.0)

    def _isp(self, rng):
        r = rng.uniform
        # auto white balance: estimate of the illuminant with an error
        ill = sum(L.col * L.weight for L in self.lights) + self.amb_col * self.amb_level
        ill = ill / lum(ill)
        full = r(0.6, 1.0)                        # how far AWB corrects
        gains = (1.0 / ill) ** full * np.exp(rng.normal(0, 0.045, 3))
        self.wb = gains / lum(gains * ill)
        self.exposure = r(0.68, 0.95) * r(0.85, 1.12)
        self.noise_a = r(0.00015, 0.0012)
        self.noise_b = r(1e-6, 1.2e-5)
        self.sat = r(0.85, 1.2)
        self.chroma_nr = r(0.6, 1.6)
        self.sharpen = r(0.0, 0.7)
        self.defocus = r(0.3, 1.25)
        self.p_motion = r(0.0, 0.3)
        self.vignette = r(0.05, 0.35)
        self.jq = (int(r(70, 86)), 0)
        self.jq = (self.jq[0], int(min(95, self.jq[0] + r(3, 12))))
        self.contrast = r(-0.1, 0.25)

    # ---- background pre-computation (SS resolution)
    def _background(self, rng):
        cam = self.cam
        Ws, Hs = self.W * SS, self.H * SS
        xs = ((np.arange(Ws) + 0.5) / SS - 0.5).astype(F32)
        ys = ((np.arange(Hs) + 0.5) / SS - 0.5).astype(F32)
        X, Y = np.meshgrid(xs, ys)
        D = cam.dirs(X, Y).astype(F32)
        dx, dy, dz = D[..., 0], D[..., 1], D[..., 2]
        Cx, Cy, Cz = cam.C
        t = (-Cz / dz).astype(F32)
        cls = np.zeros((Hs, Ws), np.int8)      # 0 floor 1..4 walls 5 rim 6 table
        x0, x1, y0, y1 = self.rect
        if self.walls:
            hw = self.hw
            tt = (hw - Cz) / dz
            Tx, Ty = Cx + tt * dx, Cy + tt * dy
            Px, Py = Cx + t * dx, Cy + t * dy
            in_top = (Tx > x0) & (Tx < x1) & (Ty > y0) & (Ty < y1)
            in_fl = (Px > x0) & (Px < x1) & (Py > y0) & (Py < y1)
            with np.errstate(divide="ignore", invalid="ignore"):
                tx = np.where(dx < 0, (x0 - Cx) / dx, (x1 - Cx) / dx)
                ty = np.where(dy < 0, (y0 - Cy) / dy, (y1 - Cy) / dy)
            tx = np.where(np.isfinite(tx), tx, 1e9)
            ty = np.where(np.isfinite(ty), ty, 1e9)
            wall = in_top & ~in_fl
            wx = tx < ty
            wid = np.where(wx, np.where(dx < 0, 1, 2), np.where(dy < 0, 3, 4)).astype(np.int8)
            cls[wall] = wid[wall]
            t = np.where(wall, np.minimum(tx, ty), t)
            rw = self.rim_w
            in_outer = (Tx > x0 - rw) & (Tx < x1 + rw) & (Ty > y0 - rw) & (Ty < y1 + rw)
            rim = ~in_top & in_outer
            out = ~in_top & ~in_outer
            cls[rim] = 5
            cls[out] = 6
            t = np.where(rim, tt, t)
            t = np.where(out, (self.table_z - Cz) / dz, t)
        t = t.astype(F32)
        PX = (Cx + t * dx).astype(F32)
        PY = (Cy + t * dy).astype(F32)
        PZ = (Cz + t * dz).astype(F32)
        self.t_bg = t
        self.cls = cls
        self.floor_mask = (cls == 0)

        # floor texture in world mm
        res = 1.05 / (self.px_per_mm * SS)
        bx0, bx1, by0, by1 = self.vis_bounds
        m = 25.0
        bx0, by0 = max(bx0, x0 - 40) - m, max(by0, y0 - 40) - m
        bx1, by1 = min(bx1, x1 + 40) + m, min(by1, y1 + 40) + m
        tw, th = int((bx1 - bx0) / res) + 2, int((by1 - by0) / res) + 2
        alb_t, hgt, ks, shin = make_floor_texture(self.floor_kind, rng, th, tw, res)
        gx = cv2.Sobel(hgt, cv2.CV_32F, 1, 0, ksize=3) / (8 * res)
        gy = cv2.Sobel(hgt, cv2.CV_32F, 0, 1, ksize=3) / (8 * res)
        # texture coordinates; walls are "unfolded" outwards from the floor
        U, V = PX.copy(), PY.copy()
        if self.walls:
            up = PZ
            U = np.where(cls == 1, x0 - up, U)
            U = np.where(cls == 2, x1 + up, U)
            V = np.where(cls == 3, y0 - up, V)
            V = np.where(cls == 4, y1 + up, V)
        mx = ((U - bx0) / res).astype(F32)
        my = ((V - by0) / res).astype(F32)
        alb = cv2.remap(alb_t, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT_101)
        GX = cv2.remap(gx, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT_101)
        GY = cv2.remap(gy, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT_101)
        bump = rng.uniform(0.6, 1.4)
        NX, NY, NZ = -GX * bump, -GY * bump, np.ones_like(GX)
        if self.walls:
            rims = [(22, 22, 25), (120, 84, 52), (200, 198, 192), (60, 60, 66)]
            rim_col = s2l(rims[rng.integers(len(rims))])
            tab_col = s2l([(225, 225, 220), (150, 112, 76), (40, 40, 44), (190, 192, 196)][rng.integers(4)])
            nz = 1 + 0.04 * smooth_noise(rng, Hs, Ws, 40) + 0.02 * smooth_noise(rng, Hs, Ws, 4)
            for c, col in ((5, rim_col), (6, tab_col)):
                mk = cls == c
                alb[mk] = (col[None, :] * nz[mk][:, None]).astype(F32)
            for c, n in ((1, (1, 0, 0)), (2, (-1, 0, 0)), (3, (0, 1, 0)), (4, (0, -1, 0))):
                mk = cls == c
                NX[mk], NY[mk], NZ[mk] = n
                alb[mk] *= 0.97
            for c in (5, 6):
                mk = cls == c
                NX[mk], NY[mk], NZ[mk] = 0, 0, 1
        nn = np.sqrt(NX * NX + NY * NY + NZ * NZ)
        NX, NY, NZ = NX / nn, NY / nn, NZ / nn
        self.alb = alb.astype(F32)

        # ambient with ambient occlusion near walls and an optional gradient
        amb = np.ones((Hs, Ws), F32)
        if self.walls:
            dwall = np.minimum(np.minimum(PX - x0, x1 - PX), np.minimum(PY - y0, y1 - PY))
            fl = cls == 0
            amb[fl] = 1 - 0.45 * np.exp(-np.maximum(dwall[fl], 0) / (0.5 * self.hw))
            wl = (cls >= 1) & (cls <= 4)
            amb[wl] = 0.75 * (1 - 0.35 * np.exp(-np.maximum(PZ[wl], 0) / (0.35 * self.hw)))
            amb[cls == 6] *= 0.9
        amb *= np.clip(1 + self.grad[0] * PX + self.grad[1] * PY, 0.4, 1.6).astype(F32)
        self.amb = amb * self.amb_level
        self.amb_grad_at = lambda p: float(np.clip(1 + self.grad @ p[:2], 0.4, 1.6))

        # direct light per light: irradiance and floor specular
        self.E, self.Spec = [], []
        VX, VY, VZ = -dx, -dy, -dz
        for L in self.lights:
            lx, ly, lz = L.pos[0] - PX, L.pos[1] - PY, L.pos[2] - PZ
            d2 = lx * lx + ly * ly + lz * lz
            dl = np.sqrt(d2)
            lx, ly, lz = lx / dl, ly / dl, lz / dl
            ndl = NX * lx + NY * ly + NZ * lz
            E = (L.I * np.maximum(ndl, 0) / d2).astype(F32)
            if self.walls:
                # shadow of the tray walls on the floor (soft)
                fl = cls == 0
                px, py = PX[fl], PY[fl]
                Lx, Ly, Lz = L.pos
                with np.errstate(divide="ignore", invalid="ignore"):
                    sx = np.where(Lx > x1, (x1 - px) / (Lx - px),
                                  np.where(Lx < x0, (x0 - px) / (Lx - px), np.inf))
                    sy = np.where(Ly > y1, (y1 - py) / (Ly - py),
                                  np.where(Ly < y0, (y0 - py) / (Ly - py), np.inf))
                s = np.minimum(sx, sy)
                s = np.where(np.isfinite(s) & (s > 0), s, 10.0)
                zc = s * Lz
                pen = np.maximum(L.size * s / np.maximum(1 - s, 0.05), 0.5)
                vis = np.clip((zc - self.hw) / pen + 0.5, 0, 1)
                E[fl] *= vis.astype(F32)
            self.E.append(E)
            if ks > 0:
                hx, hy, hz = lx + VX, ly + VY, lz + VZ
                hn = np.sqrt(hx * hx + hy * hy + hz * hz)
                ndh = np.clip((NX * hx + NY * hy + NZ * hz) / hn, 0, 1)
                sp = (ks * ndh ** shin * (ndl > 0) * L.I / d2).astype(F32)
                if self.walls:
                    sp[cls != 0] = 0
                self.Spec.append(sp)
            else:
                self.Spec.append(None)

        # the lit tray without dice (dice shadows are added per frame)
        lit = self.amb[..., None] * self.amb_col.astype(F32)
        spec = np.zeros_like(lit)
        for i, L in enumerate(self.lights):
            lit += self.E[i][..., None] * L.col.astype(F32)
            if self.Spec[i] is not None:
                spec += self.Spec[i][..., None] * L.col.astype(F32)
        self.base = (self.alb * lit + spec).astype(F32)

        # exposure: auto-exposure on the empty tray, partly compensating albedo
        irr_c = self.amb_level + sum(L.weight for L in self.lights)
        fl_lum = float(lum(self.alb[self.floor_mask]).mean()) if self.floor_mask.any() else 0.2
        ae = float(np.clip((0.2 / max(fl_lum, 0.01)) ** 0.3, 0.85, 1.6))
        self.expo = self.exposure * ae / irr_c
        # colour bouncing from the floor onto dice sides
        self.bounce = self.alb[self.floor_mask].mean(0) * irr_c if self.floor_mask.any() else np.full(3, 0.2)

        # distortion maps (SS resolution), vignette (final resolution)
        cam = self.cam
        xn = (X - cam.cx) / cam.f
        yn = (Y - cam.cy) / cam.f
        sc = 1 + cam.k1 * (xn * xn + yn * yn)
        self.dmapx = (((xn * sc) * cam.f + cam.cx + 0.5) * SS - 0.5).astype(F32)
        self.dmapy = (((yn * sc) * cam.f + cam.cy + 0.5) * SS - 0.5).astype(F32)
        yy, xx = np.mgrid[0:self.H, 0:self.W].astype(F32)
        rr2 = ((xx - cam.cx) ** 2 + (yy - cam.cy) ** 2) / cam.f ** 2
        rmax2 = ((self.W / 2) ** 2 + (self.H / 2) ** 2) / cam.f ** 2
        self.vig = ((1 / (1 + rr2)) ** 2 * (1 - self.vignette * rr2 / rmax2)).astype(F32)
        self.ramp_x = ((xx - self.W / 2) / (self.W / 2)).astype(F32)
        self.ramp_y = ((yy - self.H / 2) / (self.H / 2)).astype(F32)
        rd = self.defocus
        k = int(math.ceil(rd)) + 1
        g = np.mgrid[-k:k + 1, -k:k + 1].astype(F32)
        sub = 4
        o = (np.arange(sub) + 0.5) / sub - 0.5
        ker = np.zeros((2 * k + 1, 2 * k + 1), F32)
        for a in o:
            for b in o:
                ker += ((g[0] + a) ** 2 + (g[1] + b) ** 2 <= rd * rd)
        if ker.sum() == 0:
            ker[k, k] = 1
        ker = cv2.GaussianBlur(ker / ker.sum(), (0, 0), 0.4)
        self.defocus_k = ker / ker.sum()

    # ---- placement helpers
    def inside_tray(self, die, margin=0.5):
        x0, x1, y0, y1 = self.rect
        fp = die.footprint()
        return (fp[:, 0].min() > x0 + margin and fp[:, 0].max() < x1 - margin and
                fp[:, 1].min() > y0 + margin and fp[:, 1].max() < y1 - margin)

    def in_view(self, die, margin=3.0):
        uv = self.cam.distort(self.cam.project(die.Vw))
        return (uv[:, 0].min() > margin and uv[:, 0].max() < self.W - 1 - margin and
                uv[:, 1].min() > margin and uv[:, 1].max() < self.H - 1 - margin)

    def random_floor_xy(self, rng, z):
        m = 0.55 * self.die_px
        u = rng.uniform(m, self.W - 1 - m)
        v = rng.uniform(m, self.H - 1 - m)
        p = self.cam.floor_point(np.array(u), np.array(v), z)
        return p[:2]

    def new_die(self, kind, colour, face, rng):
        dset = self.sets[(kind, colour)]
        return Die(dset, dset.make_model(rng), face, rng)

    # ---- rendering
    def frame(self, dice, rng):
        """Render one camera frame (uint8 BGR) of the tray with `dice`."""
        jit = [1.0 for _ in self.lights]
        img = self.base.copy()
        if dice:
            self._shadows(dice, img)
        zbuf = self.t_bg.copy()
        for d in dice:
            self.render_die(d, img, zbuf, jit)
        return self.finish(img, rng)

    def _shadows(self, dice, img):
        """Re-light the floor near the dice: soft cast shadows of every light
        (three height slices, sharper near the base), ambient occlusion and
        contact shadows.  Only a crop around the dice is recomputed."""
        cam = self.cam
        W, H = self.W, self.H
        FR = (0.35, 0.7, 1.0)
        polys = []          # (kind, light, slice, pts(final px), colour)
        for d in dice:
            Sw = d.Sw
            op = tuple(float(x) for x in np.clip(1 - d.set.trans * 0.9 * d.body / d.body.max(), 0.15, 1.0))
            for i, L in enumerate(self.lights):
                Lp = L.pos
                for j, fr in enumerate(FR):
                    Sf = Sw.copy()
                    Sf[:, 2] *= fr
                    k = Lp[2] / np.maximum(Lp[2] - Sf[:, 2], 1.0)
                    G = Lp[None] + (Sf - Lp[None]) * k[:, None]
                    G[:, 2] = 0.0
                    polys.append(("S", i, j, cam.project(G), op))
            G = Sw.copy()
            G[:, 2] = 0
            polys.append(("AO", 0, 0, cam.project(G), 1.0))
            low = Sw[Sw[:, 2] < Sw[:, 2].min() + 1.5].copy()
            low[:, 2] = 0
            polys.append(("CT", 0, 0, cam.project(low), 1.0))
        ppm = self.px_per_mm
        sig = {}
        for i, L in enumerate(self.lights):
            for j, fr in enumerate(FR):
                hgt = 17.0 * fr
                pen_mm = L.size * hgt / max(L.pos[2] - hgt, 50.0)
                sig[(i, j)] = max(0.6, 0.45 * pen_mm * ppm)
        s_ao = 0.3 * self.die_px
        s_ct = max(0.8, 0.045 * self.die_px)
        allp = np.concatenate([p[3] for p in polys])
        margin = 3.0 * max([s_ao] + list(sig.values())) + 4
        x0 = int(max(0, math.floor(allp[:, 0].min() - margin)))
        x1 = int(min(W, math.ceil(allp[:, 0].max() + margin)))
        y0 = int(max(0, math.floor(allp[:, 1].min() - margin)))
        y1 = int(min(H, math.ceil(allp[:, 1].max() + margin)))
        if x1 <= x0 or y1 <= y0:
            return
        h, w = y1 - y0, x1 - x0
        off = np.array([x0, y0], float)
        S = {(i, j): np.zeros((h, w, 3), F32) for i in range(len(self.lights)) for j in range(len(FR))}
        AO = np.zeros((h, w), F32)
        CT = np.zeros((h, w), F32)
        for kind, i, j, pts, col in polys:
            q = pts - off
            if kind == "CT" and len(q) < 3:
                uv = np.round(q * 16).astype(np.int32)
                cv2.polylines(CT, [uv], False, 1.0, max(1, int(0.1 * self.die_px)), cv2.LINE_8, 4)
                continue
            hull = np.round(cv2.convexHull(q.astype(F32)).reshape(-1, 2) * 16).astype(np.int32)
            tgt = S[(i, j)] if kind == "S" else (AO if kind == "AO" else CT)
            cv2.fillConvexPoly(tgt, hull, col, cv2.LINE_8, 4)
        Sl = []
        for i in range(len(self.lights)):
            acc = None
            for j in range(len(FR)):
                b = cv2.GaussianBlur(S[(i, j)], (0, 0), sig[(i, j)])
                acc = b if acc is None else np.maximum(acc, b)
            Sl.append(acc)
        AO = cv2.GaussianBlur(AO, (0, 0), s_ao)
        CT = cv2.GaussianBlur(CT, (0, 0), s_ct)
        def up(a):
            return cv2.resize(a, (w * SS, h * SS), interpolation=cv2.INTER_LINEAR)
        R = (slice(y0 * SS, y1 * SS), slice(x0 * SS, x1 * SS))
        fm = self.floor_mask[R].astype(F32)
        AOs = up(AO) * fm
        CTs = up(CT) * fm
        lit = (self.amb[R] * (1 - 0.55 * AOs))[..., None] * self.amb_col.astype(F32)
        spec = None
        for i, L in enumerate(self.lights):
            vis = (1 - up(Sl[i]) * fm[..., None]) * (1 - 0.45 * CTs)[..., None]
            lcol = L.col.astype(F32)
            lit = lit + (self.E[i][R][..., None] * lcol) * vis
            if self.Spec[i] is not None:
                sp = (self.Spec[i][R][..., None] * lcol) * vis
                spec = sp if spec is None else spec + sp
        out = self.alb[R] * lit
        if spec is not None:
            out += spec
        img[R] = out

    def render_die(self, die, img, zbuf, jit):
        cam = self.cam
        model = die.model
        uv = cam.project(die.Vw)
        Hs, Ws = img.shape[:2]
        j0 = max(0, int(math.floor((uv[:, 0].min() + 0.5) * SS - 0.5)) - 2)
        j1 = min(Ws, int(math.ceil((uv[:, 0].max() + 0.5) * SS - 0.5)) + 3)
        i0 = max(0, int(math.floor((uv[:, 1].min() + 0.5) * SS - 0.5)) - 2)
        i1 = min(Hs, int(math.ceil((uv[:, 1].max() + 0.5) * SS - 0.5)) + 3)
        if j1 <= j0 or i1 <= i0:
            return
        jj, ii = np.meshgrid(np.arange(j0, j1), np.arange(i0, i1))
        jj, ii = jj.ravel(), ii.ravel()
        Dw = cam.dirs((jj + 0.5) / SS - 0.5, (ii + 0.5) / SS - 0.5)
        R = die.R
        Dl = Dw @ R                      # world -> local (row vectors)
        o = (cam.C - die.c) @ R
        # clip to the sharp convex polyhedron
        nd = model.normals @ Dl.T                    # (F, N)
        num = (model.offsets + 0.02) - model.normals @ o
        with np.errstate(divide="ignore", invalid="ignore"):
            tp = num[:, None] / nd
        t0 = np.where(nd < 0, tp, -np.inf).max(0)
        t1 = np.where(nd > 0, tp, np.inf).min(0)
        ok = (t0 < t1) & (t1 > 0)
        if not ok.any():
            return
        idx = np.nonzero(ok)[0]
        dl = Dl[idx]
        t = np.maximum(t0[idx], 0)
        tmax = t1[idx]
        dx, dy, dz = dl[:, 0], dl[:, 1], dl[:, 2]
        act = np.arange(idx.size)
        hit = np.zeros(idx.size, bool)
        for _ in range(64):
            ta = t[act]
            dist = model.sdf(o[0] + ta * dx[act], o[1] + ta * dy[act], o[2] + ta * dz[act])
            ta = ta + dist
            t[act] = ta
            h = dist < 2e-3
            mi = ta > tmax[act]
            hit[act[h]] = True
            act = act[~(h | mi)]
            if act.size == 0:
                break
        if act.size:
            ta = t[act]
            dist = model.sdf(o[0] + ta * dx[act], o[1] + ta * dy[act], o[2] + ta * dz[act])
            hit[act[np.abs(dist) < 0.03]] = True
        sel = np.nonzero(hit)[0]
        if sel.size == 0:
            return
        gi = idx[sel]
        tt = t[sel]
        pix_i, pix_j = ii[gi], jj[gi]
        front = tt < zbuf[pix_i, pix_j]
        if not front.any():
            return
        sel, gi, tt = sel[front], gi[front], tt[front]
        pix_i, pix_j = pix_i[front], pix_j[front]
        P = o[None] + tt[:, None] * dl[sel]
        col = self.shade(die, P, Dw[gi], jit)
        img[pix_i, pix_j] = col.astype(F32)
        zbuf[pix_i, pix_j] = tt

    def shade(self, die, P, Dw, jit):
        def dot(a, b):
            return np.einsum("ij,ij->i", a, b)
        model, dset = die.model, die.set
        Nl = model.normal(P)
        fi = np.argmax(P @ model.normals.T - model.offsets, axis=1)
        E1, E2, NF = model.e1[fi], model.e2[fi], model.normals[fi]
        u = dot(P, E1)
        v = dot(P, E2)
        n = P.shape[0]
        cav = np.ones(n)
        aa = 0.55 / (self.px_per_mm * SS)         # ~half a sub-pixel, in mm
        if die.kind == "d6pips":
            s = 2 * model.h
            off = dset.pip_off * s
            best = np.full(n, 1e9)
            bdu, bdv, brp = np.zeros(n), np.zeros(n), np.ones(n)
            for f, lab in enumerate(dset.labels):
                mk = fi == f
                if not mk.any():
                    continue
                k = int(lab)
                rp = (dset.one_r if k == 1 else dset.pip_r) * s
                uf, vf = u[mk], v[mk]
                bb = np.full(uf.size, 1e9)
                du_b, dv_b = np.zeros(uf.size), np.zeros(uf.size)
                for (a, b) in PIP_LAYOUT[k]:
                    du, dv = uf - a * off, vf - b * off
                    r2 = du * du + dv * dv
                    better = r2 < bb
                    bb = np.where(better, r2, bb)
                    du_b = np.where(better, du, du_b)
                    dv_b = np.where(better, dv, dv_b)
                best[mk], bdu[mk], bdv[mk], brp[mk] = bb, du_b, dv_b, rp
            rho = np.sqrt(best)
            m = np.clip((brp - rho) / aa + 0.5, 0, 1)
            dfr = dset.dimple
            Rs = brp * (1 + dfr * dfr) / (2 * dfr)
            hz = np.sqrt(np.maximum(Rs * Rs - rho * rho, 1e-6))
            nd = -bdu[:, None] * E1 - bdv[:, None] * E2 + hz[:, None] * NF
            nd /= np.linalg.norm(nd, axis=1, keepdims=True)
            Nl = Nl * (1 - m[:, None]) + nd * m[:, None]
            Nl /= np.linalg.norm(Nl, axis=1, keepdims=True)
            q = np.clip(rho / brp, 0, 1)
            cav = 1 - m * (0.12 + 0.3 * q ** 3)
        else:
            atlas = dset.atlas
            T = atlas.shape[0]
            half = model.h if die.kind == "kotd" else model.circum
            uc = np.clip(u / half, -0.999, 0.999)
            vc = np.clip(v / half, -0.999, 0.999)
            smp = sample_rows(atlas, (uc + 1) * 0.5 * T - 0.5 + fi * T, (1 - vc) * 0.5 * T - 0.5)
            # local face coordinates are the atlas size in mm / model size ratio
            m = np.clip(smp[:, 0], 0, 1)
            gs = dset.engrave
            Nl = Nl + gs * (smp[:, 1:2] * E1 + smp[:, 2:3] * E2)
            Nl /= np.linalg.norm(Nl, axis=1, keepdims=True)
            cav = 1 - 0.1 * m
        R = die.R
        Nw = Nl @ R.T
        Pw = P @ R.T + die.c
        V = -Dw
        mot = (np.sin(P @ die.wave_k.T + die.wave_p) * die.wave_a).sum(1)
        body = die.body[None] * (1 + mot)[:, None]
        alb = body * (1 - m[:, None]) + die.paint[None] * m[:, None]
        trans = dset.trans * (1 - m)
        wrap = 0.6 * trans
        diff = np.zeros((n, 3))
        spec = np.zeros((n, 3))
        ndv = np.clip(dot(Nw, V), 0, 1)
        irr_tot = np.zeros(n)
        for i, L in enumerate(self.lights):
            lv = L.pos[None] - Pw
            d2 = dot(lv, lv)
            ldir = lv / np.sqrt(d2)[:, None]
            ndl = dot(Nw, ldir)
            irr = L.I * jit[i] / d2
            dif = np.clip((ndl + wrap) / (1 + wrap), 0, None)
            diff += (dif * irr)[:, None] * L.col[None]
            irr_tot += irr * np.clip(ndl, 0, None)
            hv = ldir + V
            hv /= np.linalg.norm(hv, axis=1, keepdims=True)
            ndh = np.clip(dot(Nw, hv), 0, 1)
            ang = L.size * 0.5 / math.sqrt(float(d2.mean()))
            shin = min(dset.shin, 2.0 / max(ang * ang, 1e-4))
            hdv = np.clip(dot(hv, V), 0, 1)
            fr = 0.04 + 0.96 * (1 - hdv) ** 5
            sp = dset.ks * fr * ndh ** shin * smoothstep(0.0, 0.15, ndl) * irr * (shin + 8) / (8 * math.pi)
            spec += sp[:, None] * L.col[None]
        ambw = self.amb_level * self.amb_grad_at(die.c)
        nz = Nw[:, 2]
        amb = ambw * (0.55 + 0.45 * nz)[:, None] * self.amb_col[None] + \
            (0.25 * (1 - nz))[:, None] * self.bounce[None]
        zao = 1 - 0.45 * np.exp(-np.maximum(Pw[:, 2], 0) / 2.5)
        col = alb * (diff * (1 - 0.5 * trans[:, None]) + amb * zao[:, None]) * cav[:, None]
        col += (0.45 * trans * (irr_tot + ambw))[:, None] * body ** 1.4 * zao[:, None]
        fres = 0.04 + 0.96 * (1 - ndv) ** 5
        rz = Dw[:, 2] - 2 * dot(Dw, Nw) * Nw[:, 2]
        env = np.where(rz[:, None] > 0,
                       (self.env_level * ambw / math.pi * (0.5 + np.clip(rz, 0, 1)))[:, None]
                       * self.amb_col[None],
                       self.bounce[None] / math.pi)
        col += (fres * min(1.0, dset.ks))[:, None] * env * cav[:, None] + spec
        return col

    def finish(self, img, rng):
        W, H = self.W, self.H
        img = cv2.remap(img, self.dmapx, self.dmapy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT_101)
        img = cv2.resize(img, (W, H), interpolation=cv2.INTER_AREA)
        img = cv2.filter2D(img, -1, self.defocus_k)
        if rng.random() < self.p_motion:
            L = rng.uniform(1.5, 3.5)
            a = rng.uniform(0, math.pi)
            k = int(math.ceil(L / 2)) + 1
            ker = np.zeros((2 * k + 1, 2 * k + 1), np.uint8)
            p0 = (k - L / 2 * math.cos(a), k - L / 2 * math.sin(a))
            p1 = (k + L / 2 * math.cos(a), k + L / 2 * math.sin(a))
            cv2.line(ker, (int(p0[0] * 16), int(p0[1] * 16)), (int(p1[0] * 16), int(p1[1] * 16)),
                     255, 1, cv2.LINE_AA, 4)
            ker = ker.astype(F32)
            img = cv2.filter2D(img, -1, ker / ker.sum())
        expo = self.expo * float(rng.normal(1, 0.02))
        # tiny frame-to-frame change of the light balance across the tray
        gx, gy = rng.normal(0, 0.012, 2)
        gain = self.vig * (1 + gx * self.ramp_x + gy * self.ramp_y)
        img = img * (gain[..., None] * expo) * self.wb.astype(F32)[None, None]
        # sensor noise: shot + read, partly correlated across channels (demosaic)
        sig = np.sqrt(self.noise_a * np.clip(img, 0, 2) + self.noise_b)
        nl = rng.standard_normal((H, W, 1), dtype=F32)
        nc = cv2.GaussianBlur(rng.standard_normal((H, W, 3), dtype=F32), (0, 0), 0.6) * 1.5
        img = img + sig * (0.6 * nl + 0.7 * nc)
        # ISP: chroma noise reduction and saturation
        g = img.mean(-1, keepdims=True)
        ch = cv2.GaussianBlur(img - g, (0, 0), self.chroma_nr)
        img = g + ch * self.sat
        # tone curve: soft shoulder, sRGB, mild S-curve
        x = np.maximum(img, 0)
        knee = 0.8
        x = np.where(x > knee, knee + (1 - knee) * np.tanh((x - knee) / (1 - knee)), x)
        y = l2s_lut(x)
        c = self.contrast
        y = y + c * y * (1 - y) * (2 * y - 1)
        if self.sharpen > 0:
            y = y + self.sharpen * (y - cv2.GaussianBlur(y, (0, 0), 1.0))
        out = np.clip(y * 255 + 0.5, 0, 255).astype(np.uint8)[..., ::-1]
        q = int(rng.integers(self.jq[0], self.jq[1] + 1))
        ok, buf = cv2.imencode(".jpg", np.ascontiguousarray(out), [cv2.IMWRITE_JPEG_QUALITY, q])
        return cv2.imdecode(buf, cv2.IMREAD_COLOR)

    def truth_xy(self, die):
        p = self.cam.distort(self.cam.project(die.top_centre()[None]))[0]
        return float(p[0]), float(p[1])


# ----------------------------------------------------------------- scenes
def overlap(a, b, grow=0.0):
    pa, pb = a.footprint(), b.footprint()
    if grow:
        ca = pa.mean(0)
        pa = (ca + (pa - ca) * (1 + grow / 8.0)).astype(F32)
    area, _ = cv2.intersectConvexConvex(pa.astype(F32), pb.astype(F32))
    return area > 0.05


def place_flat(tower, die, rng, others, touch_prob=0.0):
    for _ in range(200):
        die.pose(rng.uniform(0, TAU))
        if others and rng.random() < touch_prob:
            a = others[rng.integers(len(others))]
            phi = rng.uniform(0, TAU)
            u = np.array([math.cos(phi), math.sin(phi)])
            lo, hi = 0.0, 40.0
            for _ in range(12):
                mid = 0.5 * (lo + hi)
                die.c[:2] = a.c[:2] + u * mid
                if overlap(die, a):
                    lo = mid
                else:
                    hi = mid
            die.c[:2] = a.c[:2] + u * (hi + 0.05)
            clash = any(overlap(die, o, 0.3) for o in others if o is not a)
        else:
            die.c[:2] = tower.random_floor_xy(rng, die.c[2])
            clash = any(overlap(die, o, 1.0) for o in others)
        if clash or not tower.inside_tray(die, 0.6) or not tower.in_view(die):
            continue
        return True
    return False


def place_tilted(tower, die, rng, others):
    """Cock the die against a flat neighbour or a visible tray wall."""
    cands = [o for o in others if not o.tilted]
    walls = [i for i in range(4) if tower.wall_vis[i]]
    x0, x1, y0, y1 = tower.rect
    for _ in range(60):
        lean_wall = walls and (not cands or rng.random() < 0.3)
        lo, hi = (17.0, 33.0) if die.kind != "d12" else (15.0, 23.0)
        tilt = math.radians(rng.uniform(lo, hi))
        if lean_wall:
            w = walls[rng.integers(len(walls))]
            u = [np.array([-1.0, 0]), np.array([1.0, 0]), np.array([0, -1.0]), np.array([0, 1.0])][w]
        else:
            sup = cands[rng.integers(len(cands))]
            if sup.kind == "d12":
                phi = rng.uniform(0, TAU)
                m = np.array([math.cos(phi), math.sin(phi)])
            else:
                fx = sup.R @ np.array([1.0, 0, 0])
                if abs(fx[2]) > 0.5:
                    fx = sup.R @ np.array([0, 1.0, 0])
                if abs(fx[2]) > 0.5:
                    fx = sup.R @ np.array([0, 0, 1.0])
                base = math.atan2(fx[1], fx[0]) + rng.integers(4) * math.pi / 2
                m = np.array([math.cos(base), math.sin(base)])
            u = -m
        yaw_u = math.atan2(u[1], u[0])
        die.pose(yaw_u + rng.normal(0, math.radians(8)) + rng.integers(4) * math.pi / 2,
                 tilt, u)
        Vr = die.Vw - die.c * np.array([1, 1, 0])
        e = float((Vr[:, :2] @ u).max())
        if lean_wall:
            if w in (0, 1):
                pos = x0 if w == 0 else x1
                along = tower.random_floor_xy(rng, die.c[2])[1]
                die.c[:2] = (pos + (e + 0.1) if w == 0 else pos - (e + 0.1), along)
            else:
                pos = y0 if w == 2 else y1
                along = tower.random_floor_xy(rng, die.c[2])[0]
                die.c[:2] = (along, pos + (e + 0.1) if w == 2 else pos - (e + 0.1))
            inside = True
            fp = die.footprint()
            if fp[:, 0].min() < x0 - 0.01 or fp[:, 0].max() > x1 + 0.01 or \
               fp[:, 1].min() < y0 - 0.01 or fp[:, 1].max() > y1 + 0.01:
                inside = False
            rest = others
        else:
            Vs = sup.Sw - sup.c * np.array([1, 1, 0])
            zc = float(Vr[np.argmax(Vr[:, :2] @ u), 2]) + 1.0
            lowS = Vs[Vs[:, 2] <= max(zc, Vs[:, 2].min() + 1.0)]
            eS = float((lowS[:, :2] @ m).max())
            lat = np.array([-m[1], m[0]]) * rng.uniform(-0.3, 0.3) * die.model.verts.max()
            die.c[:2] = sup.c[:2] + m * (eS + e + 0.15) + lat
            inside = tower.inside_tray(die, 0.3)
            rest = [o for o in others if o is not sup]
        if not inside or not tower.in_view(die):
            continue
        if any(overlap(die, o, 0.5) for o in rest):
            continue
        if die.top_face() != die.face_idx:
            continue
        return True
    return False


def make_tray_scene(tower, rng):
    n = int(rng.integers(1, 9))
    specs = []
    for _ in range(n):
        kind, colour = COMBOS[rng.integers(len(COMBOS))]
        face = tower.sets[(kind, colour)].labels[rng.integers(6 if kind != "d12" else 12)]
        specs.append((kind, colour, face, rng.random() < 0.165))
    if n == 1 and not tower.wall_vis.any():
        specs[0] = specs[0][:3] + (False,)
    flat = [s for s in specs if not s[3]]
    tilt = [s for s in specs if s[3]]
    if tilt and not flat and not tower.wall_vis.any():
        flat.append(tilt.pop()[:3] + (False,))
    dice = []
    for kind, colour, face, _ in flat:
        d = tower.new_die(kind, colour, face, rng)
        if place_flat(tower, d, rng, dice, touch_prob=0.3):
            dice.append(d)
    for kind, colour, face, _ in tilt:
        d = tower.new_die(kind, colour, face, rng)
        if (dice or tower.wall_vis.any()) and place_tilted(tower, d, rng, dice):
            dice.append(d)
        else:
            d = tower.new_die(kind, colour, face, rng)
            if place_flat(tower, d, rng, dice, touch_prob=0.3):
                dice.append(d)
    order = rng.permutation(len(dice))
    return [dice[i] for i in order]


# ----------------------------------------------------------------- main
def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out_dir")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--trays", type=int, default=60)
    ap.add_argument("--width", type=int, default=640)
    ap.add_argument("--height", type=int, default=480)
    args = ap.parse_args(argv)
    out = args.out_dir
    t_start = time.time()
    tower = Tower(args.seed, args.width, args.height)
    t_tower = time.time()

    def frame_rng(*tag):
        return np.random.default_rng([args.seed, 99] + list(tag))

    def write(path, img):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        cv2.imwrite(path, img)

    for k in range(1, 4):
        write(os.path.join(out, "empty", f"empty-{k}.png"), tower.frame([], frame_rng(1, k)))
    for ci, (kind, colour) in enumerate(COMBOS):
        faces = KOTD_FACES if kind == "kotd" else (D12_FACES if kind == "d12" else D6_FACES)
        for fi, face in enumerate(faces):
            for k in range(1, 4):
                rng = frame_rng(2, ci, fi, k)
                d = tower.new_die(kind, colour, face, rng)
                if not place_flat(tower, d, rng, []):
                    raise RuntimeError("could not place a teach die")
                write(os.path.join(out, "teach", kind, colour, f"{face}-{k}.png"), tower.frame([d], rng))
    t_teach = time.time()
    truth = {}
    for t in range(1, args.trays + 1):
        rng = frame_rng(3, t)
        dice = make_tray_scene(tower, rng)
        name = f"tray-{t:04d}.png"
        write(os.path.join(out, "trays", name), tower.frame(dice, rng))
        recs = []
        for d in dice:
            x, y = tower.truth_xy(d)
            recs.append({"kind": d.kind, "colour": d.colour, "face": d.face,
                         "x": round(x, 1), "y": round(y, 1), "tilted": bool(d.tilted)})
        truth[name] = recs
    t_trays = time.time()
    with open(os.path.join(out, "truth.json"), "w") as fh:
        json.dump({"trays": truth, "size": [args.width, args.height], "seed": args.seed}, fh, indent=1)
    print(f"tower seed {args.seed}: floor={tower.floor_kind} walls={tower.walls} "
          f"light={tower.light_cfg} cam_h={tower.cam.C[2]:.0f}mm die_px={tower.die_px:.0f}; "
          f"setup {t_tower - t_start:.1f}s, empty+teach {t_teach - t_tower:.1f}s, "
          f"{args.trays} trays {t_trays - t_teach:.1f}s", file=sys.stderr)


if __name__ == "__main__":
    main()
