#!/usr/bin/env python3
"""Independent synthetic dice-tray renderer "D".

Written 2026-11-30 by a helper that read neither the dice reader under test nor
the other synthetic renderers of this project, so that its images share no
blind spots with them.  Only numpy, OpenCV and the standard library are used.

Usage
-----
    python bench/tray_renderer_d.py OUT_DIR --seed N [--trays 80]
                                    [--width 640] [--height 480] [--quiet]

Output contract
---------------
One seed = one "dice tower": a fixed camera looking down into a dice tray, one
lighting set-up and one set of physical dice, all drawn from the seed (fully
deterministic per seed).

* OUT_DIR/empty/empty-1.png .. empty-3.png: the empty tray; the three differ
  only by sensor noise and slight light flicker / auto-exposure drift.
* OUT_DIR/teach/<kind>/<colour>/<face>-<k>.png, k = 1..3: one die resting
  flat showing <face> on top at three random positions and turns, for every
  (kind, colour) the tower owns and every face of that kind.
* OUT_DIR/trays/tray-0001.png ..: 1..8 dice thrown in the tray; dice may
  touch; about 15 % are "cocked" (tilted 12-35 deg, d12 at most 28 deg),
  standing on one bottom edge on the floor with the lifted side resting
  against a neighbour die or the tray wall (no floating, no interpenetration).
* OUT_DIR/truth.json:
  {"seed": N, "size": [W, H], "trays": {"tray-0001.png": [{"kind": "d6pips",
   "colour": "white", "face": "4", "x": 312.5, "y": 220.1, "tilted": false},
   ...], ...}}
  x, y = pixel position (pixel centres at integer coordinates) of the centre
  of the die's top face (outward normal most upward) projected through the
  same camera model as the image, lens distortion included.

Kinds: "d6pips" (faces "1".."6", opposite faces sum to 7), "d12" (faces
"1".."12" as numerals, 6 and 9 underlined or dotted, opposite faces sum to
13), "kotd" (CLAW, HEART, ENERGY, FAME, DESTRUCTION, POWER symbols).

How it renders
--------------
* World: millimetres, z up, tray floor at z = 0.  Camera: pinhole, OpenCV
  axes, 150-500 mm above the floor, 0-25 deg tilt in any azimuth, any roll,
  principal point up to 3 % off centre, one-coefficient radial distortion
  (barrel to pincushion).  Every pixel centre (integer u, v) is un-distorted
  (Newton on the radius) into a world ray once per tower; the truth points
  use the forward model (project()).
* Tray: analytic ray casting of an open box (floor, inner walls, rim, outer
  walls, table) or an endless mat; procedural albedo textures (felt,
  neoprene, wood, cork, printed mat, leather, paper) generated in world
  millimetre space and looked up with cv2.remap.
* Dice: each die is a convex polyhedron (cube or dodecahedron) whose edges
  and corners are rounded by a log-sum-exp "soft max" of its face planes,
  f(p) = k log sum exp((n_i.p - h)/k).  f is convex, so along every camera
  ray it is found analytically-bounded by the sharp hull (slab test) and the
  first root is reached by monotone Newton steps; silhouettes are
  anti-aliased from the minimum of f along near-miss rays.  The face under a
  hit is the largest plane term; pips, numerals and symbols are anti-aliased
  ink textures drawn with OpenCV in each face's 2-D frame.
* Shading: linear radiometry; 1-3 lights (overhead panel, desk lamp, ring
  light at the lens, window daylight) with colour temperatures; Lambert +
  normalised Blinn-Phong, a fake environment reflection with Fresnel for
  glossy dice, wrap lighting for translucent ones, marbling by turbulence.
  Shadows are traced: area lights are sampled per pixel against the sharp
  hulls of the dice and against the tray walls (soft and hard shadows),
  plus contact ambient occlusion.  The empty tray's radiance (per light and
  ambient) is computed once per tower; per image only the dice, their
  shadows on the background (traced at half resolution, blurred by about
  the penumbra width, upsampled) and the contact occlusion are added.
* Speed: one 640x480 tower of 80 trays (plus its teach images) takes
  roughly 20-50 s on one core.
* Physics-light placement: resting dice are lowered until the rounded body
  touches the floor (surface point cloud); cocked dice are rotated about one
  bottom edge and slid horizontally until they touch a wall or a neighbour
  (binary search with point-cloud vs implicit-surface collision tests).
* Camera effects: auto exposure with error, white balance error, natural
  vignetting, defocus, occasional motion blur, signal-dependent noise, tone
  curve, sRGB, JPEG round trip at quality 70-95, saved as PNG.
"""
import os
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")
import argparse
import json
import math
import sys
import time

import numpy as np
import cv2

cv2.setNumThreads(1)

F32 = np.float32
INF = 1e30

# ---------------------------------------------------------------------------
# small helpers
# ---------------------------------------------------------------------------


def srgb2lin(c):
    c = np.asarray(c, np.float64) / 255.0
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def normalize(v):
    n = np.linalg.norm(v, axis=-1, keepdims=True)
    return v / np.maximum(n, 1e-12)


def rot_axis(axis, ang):
    a = np.asarray(axis, float)
    a = a / np.linalg.norm(a)
    x, y, z = a
    c, s = math.cos(ang), math.sin(ang)
    C = 1 - c
    return np.array([[c + x * x * C, x * y * C - z * s, x * z * C + y * s],
                     [y * x * C + z * s, c + y * y * C, y * z * C - x * s],
                     [z * x * C - y * s, z * y * C + x * s, c + z * z * C]])


def rot_a_to_b(a, b):
    a = a / np.linalg.norm(a)
    b = b / np.linalg.norm(b)
    ax = np.cross(a, b)
    s = np.linalg.norm(ax)
    c = float(np.dot(a, b))
    if s < 1e-9:
        if c > 0:
            return np.eye(3)
        p = np.cross(a, [1, 0, 0])
        if np.linalg.norm(p) < 1e-6:
            p = np.cross(a, [0, 1, 0])
        return rot_axis(p, math.pi)
    return rot_axis(ax, math.atan2(s, c))


def rotz(a):
    return rot_axis([0, 0, 1], a)


def kelvin_rgb(K):
    t = K / 100.0
    r = 255.0 if t <= 66 else 329.698727446 * ((t - 60) ** -0.1332047592)
    g = (99.4708025861 * math.log(t) - 161.1195681661) if t <= 66 else \
        288.1221695283 * ((t - 60) ** -0.0755148492)
    if t >= 66:
        b = 255.0
    elif t <= 19:
        b = 0.0
    else:
        b = 138.5177312231 * math.log(t - 10) - 305.0447927307
    c = srgb2lin(np.clip([r, g, b], 0, 255))
    lum = 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2]
    return c / lum


def lse(P, Nn, h, k):
    D = P @ Nn.T - h
    m = D.max(1)
    E = np.exp((D - m[:, None]) / k)
    S = E.sum(1)
    return m + k * np.log(S)


def lse_grad(P, Nn, h, k):
    D = P @ Nn.T - h
    m = D.max(1)
    E = np.exp((D - m[:, None]) / k)
    S = E.sum(1)
    return m + k * np.log(S), (E @ Nn) / S[:, None], D


def fib_dirs(n):
    i = np.arange(n) + 0.5
    ph = np.arccos(1 - 2 * i / n)
    th = math.pi * (1 + 5 ** 0.5) * i
    return np.stack([np.cos(th) * np.sin(ph), np.sin(th) * np.sin(ph), np.cos(ph)], 1)


def smooth_noise(rng, h, w, cell):
    """Smooth value noise of roughly unit variance, feature size `cell` texels."""
    cell = max(float(cell), 1.0)
    gh = int(h / cell) + 4
    gw = int(w / cell) + 4
    g = rng.standard_normal((gh, gw)).astype(F32)
    big = cv2.resize(g, (int(gw * cell), int(gh * cell)), interpolation=cv2.INTER_CUBIC)
    oy = int(rng.integers(0, max(1, big.shape[0] - h)))
    ox = int(rng.integers(0, max(1, big.shape[1] - w)))
    out = big[oy:oy + h, ox:ox + w]
    if out.shape != (h, w):
        out = cv2.resize(out, (w, h))
    return out / max(float(out.std()), 1e-6)


def fine_noise(rng, h, w, sigma):
    n = rng.standard_normal((h, w)).astype(F32)
    if sigma > 0.2:
        n = cv2.GaussianBlur(n, (0, 0), sigma)
    return n / max(float(n.std()), 1e-6)


# ---------------------------------------------------------------------------
# dice geometry
# ---------------------------------------------------------------------------

KOTD_FACES = ["CLAW", "HEART", "ENERGY", "FAME", "DESTRUCTION", "POWER"]


class Shape:
    """Convex polyhedron with soft-max rounded edges (die-local frame)."""

    def __init__(self, kind, size, kfrac, rng):
        self.kind = kind
        if kind == "d12":
            phi = (1 + 5 ** 0.5) / 2
            ns = []
            for s1 in (1, -1):
                for s2 in (1, -1):
                    ns += [(0, s1, s2 * phi), (s1, s2 * phi, 0), (s2 * phi, 0, s1)]
            Nn = normalize(np.array(ns, float))
        else:
            Nn = np.array([[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [0, 0, -1]], float)
        self.N = Nn
        self.n = len(Nn)
        self.h = size / 2.0
        self.size = size
        self.k = kfrac * size
        h = self.h
        # vertices from plane triples
        vs = []
        n = self.n
        for i in range(n):
            for j in range(i + 1, n):
                for l in range(j + 1, n):
                    A = Nn[[i, j, l]]
                    if abs(np.linalg.det(A)) < 1e-6:
                        continue
                    v = np.linalg.solve(A, np.full(3, h))
                    if np.all(Nn @ v <= h + 1e-7):
                        if not any(np.linalg.norm(v - u) < 1e-6 for u in vs):
                            vs.append(v)
        self.verts = np.array(vs)
        self.rad = float(np.linalg.norm(self.verts, axis=1).max())
        self.opp = np.array([int(np.argmin(Nn @ Nn[i])) for i in range(n)])
        # face polygons and 2-D frames
        self.faces = []
        self.e1 = np.zeros((n, 3))
        self.e2 = np.zeros((n, 3))
        self.scale = np.zeros(n)
        for i in range(n):
            c = Nn[i] * h
            idx = np.nonzero(np.abs(self.verts @ Nn[i] - h) < 1e-6)[0]
            a = normalize(np.cross(Nn[i], [0.123, 0.456, 0.789]))
            b = np.cross(Nn[i], a)
            ang = np.arctan2((self.verts[idx] - c) @ b, (self.verts[idx] - c) @ a)
            idx = idx[np.argsort(ang)]
            self.faces.append(idx)
            m = len(idx)
            e = int(rng.integers(0, m))
            mid = (self.verts[idx[e]] + self.verts[idx[(e + 1) % m]]) / 2 - c
            up = mid / np.linalg.norm(mid)
            self.e2[i] = up
            self.e1[i] = np.cross(up, Nn[i])
            if kind == "d12":
                self.scale[i] = float(np.linalg.norm(self.verts[idx] - c, axis=1).max())
            else:
                self.scale[i] = h
        # surface point cloud of the rounded body
        dirs = fib_dirs(2400)
        lo = np.zeros(len(dirs))
        hi = np.full(len(dirs), self.rad * 1.05)
        for _ in range(32):
            mid = (lo + hi) / 2
            f = lse(dirs * mid[:, None], Nn, h, self.k)
            inside = f < 0
            lo = np.where(inside, mid, lo)
            hi = np.where(inside, hi, mid)
        self.cloud = dirs * ((lo + hi) / 2)[:, None]


# ---------------------------------------------------------------------------
# glyph textures
# ---------------------------------------------------------------------------


def _pt(x, y, S):
    return (int(round((x + 1) / 2 * S * 16)), int(round((1 - y) / 2 * S * 16)))


def _poly(img, pts, S, val=255):
    arr = np.array([_pt(x, y, S) for x, y in pts], np.int32)
    cv2.fillPoly(img, [arr], val, cv2.LINE_AA, shift=4)


def draw_glyph(kind, label, style, S):
    img = np.zeros((S, S), np.uint8)
    if kind == "d6pips":
        n = int(label)
        p = style["pip_sp"]
        P = {1: [(0, 0)], 2: [(-p, p), (p, -p)], 3: [(-p, p), (0, 0), (p, -p)],
             4: [(-p, -p), (p, -p), (-p, p), (p, p)],
             5: [(-p, -p), (p, -p), (-p, p), (p, p), (0, 0)],
             6: [(-p, -p), (-p, 0), (-p, p), (p, -p), (p, 0), (p, p)]}[n]
        r = style["pip_r"] * (style["one_scale"] if n == 1 else 1.0)
        for x, y in P:
            cv2.circle(img, _pt(x, y, S), int(r * S / 2 * 16), 255, -1, cv2.LINE_AA, shift=4)
    elif kind == "d12":
        font = style["font"]
        th = max(1, int(round(style["thick"] * S)))
        (w0, h0), _ = cv2.getTextSize(label, font, 1.0, th)
        sc = style["text_h"] * S / 2 / max(h0, 1)
        (w, hh), _ = cv2.getTextSize(label, font, sc, th)
        if w > 1.0 * S / 2:
            sc *= 1.0 * S / 2 / w
            (w, hh), _ = cv2.getTextSize(label, font, sc, th)
        mark = label in ("6", "9")
        dy = -0.05 * S / 2 if (mark and style["mark"] == "under") else 0
        ox = S / 2 - w / 2 - (0.04 * S / 2 if (mark and style["mark"] == "dot") else 0)
        oy = S / 2 + hh / 2 + dy
        cv2.putText(img, label, (int(ox), int(oy)), font, sc, 255, th, cv2.LINE_AA)
        if mark:
            if style["mark"] == "under":
                y = int(oy + 0.10 * S / 2)
                cv2.line(img, (int(ox), y), (int(ox + w), y), 255, max(1, int(th * 0.9)), cv2.LINE_AA)
            else:
                cv2.circle(img, (int(ox + w + 0.09 * S / 2), int(oy - th / 2)), max(2, int(th * 0.8)), 255, -1,
                           cv2.LINE_AA)
    else:  # kotd
        s = style["sym"]
        if label == "HEART":
            t = np.linspace(0, 2 * math.pi, 80)
            x = 16 * np.sin(t) ** 3
            y = 13 * np.cos(t) - 5 * np.cos(2 * t) - 2 * np.cos(3 * t) - np.cos(4 * t)
            _poly(img, list(zip(x / 17 * 0.62 * s, (y + 2.5) / 17 * 0.62 * s)), S)
        elif label == "FAME":
            pts = []
            for i in range(10):
                a = math.pi / 2 + i * math.pi / 5
                r = 0.66 * s if i % 2 == 0 else 0.27 * s
                pts.append((r * math.cos(a), r * math.sin(a)))
            _poly(img, pts, S)
        elif label == "ENERGY":
            pts = [(0.10, 0.70), (-0.38, -0.05), (-0.05, -0.05), (-0.18, -0.70), (0.38, 0.12),
                   (0.05, 0.12), (0.28, 0.70)]
            _poly(img, [(x * s, y * s) for x, y in pts], S)
        elif label == "CLAW":
            for i in (-1, 0, 1):
                u = np.linspace(0, 1, 24)
                cx = (0.30 * i + 0.14 - 0.30 * u - 0.10 * np.sin(math.pi * u)) * s
                cy = (0.66 - 1.30 * u - 0.06 * abs(i)) * s
                wdt = (0.10 * np.sin(math.pi / 2 * np.minimum(u * 4, 1)) * (1 - u) ** 0.9 + 0.004) * s
                left = [(x - w, y) for x, y, w in zip(cx, cy, wdt)]
                right = [(x + w, y) for x, y, w in zip(cx, cy, wdt)][::-1]
                _poly(img, left + right, S)
        elif label == "DESTRUCTION":
            xs = np.linspace(-0.66, 0.66, 7) * s
            hts = [0.35, 0.75, 0.5, 0.95, 0.45, 0.7]
            base = -0.55 * s
            for j in range(6):
                _poly(img, [(xs[j] + 0.01, base), (xs[j + 1] - 0.01, base),
                            (xs[j + 1] - 0.01, base + hts[j] * s), (xs[j] + 0.01, base + hts[j] * s)], S)
            _poly(img, [(xs[3] + 0.08 * s, base + 0.95 * s), (xs[3] + 0.11 * s, base + 0.95 * s),
                        (xs[3] + 0.10 * s, base + 1.15 * s)], S)
            for j in range(6):
                for q in range(int(hts[j] / 0.2)):
                    yy = base + 0.1 * s + q * 0.2 * s
                    xm = (xs[j] + xs[j + 1]) / 2
                    _poly(img, [(xm - 0.03 * s, yy), (xm + 0.03 * s, yy), (xm + 0.03 * s, yy + 0.07 * s),
                                (xm - 0.03 * s, yy + 0.07 * s)], S, 0)
        elif label == "POWER":
            cv2.circle(img, _pt(0, 0, S), int(0.45 * s * S / 2 * 16), 255, -1, cv2.LINE_AA, shift=4)
            for i in range(8):
                a = i * math.pi / 4
                ca, sa = math.cos(a), math.sin(a)
                pts = []
                for (r, t) in ((0.3, -0.1), (0.64, -0.08), (0.64, 0.08), (0.3, 0.1)):
                    pts.append(((r * ca - t * sa) * s, (r * sa + t * ca) * s))
                _poly(img, pts, S)
            cv2.circle(img, _pt(0, 0, S), int(0.18 * s * S / 2 * 16), 0, -1, cv2.LINE_AA, shift=4)
    return img


def build_atlas(shape, labels, style, T):
    S = 512
    atlas = np.zeros((shape.n, T, T, 2), F32)
    kern = np.ones((9, 9), np.uint8)
    for i in range(shape.n):
        g = draw_glyph(shape.kind, labels[i], style, S)
        rim = cv2.subtract(cv2.dilate(g, kern), g)
        atlas[i, :, :, 0] = cv2.resize(g, (T, T), interpolation=cv2.INTER_AREA) / 255.0
        atlas[i, :, :, 1] = cv2.resize(rim, (T, T), interpolation=cv2.INTER_AREA) / 255.0
    return atlas


def sample_atlas(atlas, f, col, row):
    T = atlas.shape[1]
    col = np.clip(col, 0, T - 1.001)
    row = np.clip(row, 0, T - 1.001)
    c0 = col.astype(np.int32)
    r0 = row.astype(np.int32)
    fc = (col - c0)[:, None]
    fr = (row - r0)[:, None]
    return (atlas[f, r0, c0] * (1 - fc) * (1 - fr) + atlas[f, r0, c0 + 1] * fc * (1 - fr)
            + atlas[f, r0 + 1, c0] * (1 - fc) * fr + atlas[f, r0 + 1, c0 + 1] * fc * fr)


# ---------------------------------------------------------------------------
# materials
# ---------------------------------------------------------------------------

BODY = {"white": (238, 236, 230), "ivory": (232, 220, 186), "black": (30, 30, 33), "red": (182, 26, 32),
        "blue": (26, 62, 168), "green": (28, 128, 58), "yellow": (238, 196, 34), "purple": (104, 46, 142),
        "orange": (238, 110, 26)}
LIGHT_BODIES = ("white", "ivory", "yellow", "orange")
INK = {"black": (18, 18, 20), "white": (245, 245, 240), "red": (190, 20, 25), "darkblue": (20, 30, 90),
       "gold": (212, 168, 62), "silver": (185, 188, 192), "green": (20, 90, 40), "grey": (120, 120, 120),
       "darkgrey": (58, 58, 60), "cream": (240, 228, 196)}


class DieSet:
    def __init__(self, kind, colour, rng, T):
        self.kind = kind
        self.colour = colour
        if kind == "d12":
            size = rng.uniform(16, 22)
        else:
            size = rng.uniform(14, 20)
        kfrac = rng.uniform(0.022, 0.045) if kind != "d12" else rng.uniform(0.018, 0.032)
        self.shape = Shape(kind, size, kfrac, rng)
        sh = self.shape
        # labels with opposite-face rules
        labels = [None] * sh.n
        pairs = []
        for i in range(sh.n):
            j = int(sh.opp[i])
            if i < j:
                pairs.append((i, j))
        order = rng.permutation(len(pairs))
        if kind == "d6pips":
            vals = [(1, 6), (2, 5), (3, 4)]
            for (i, j), o in zip(pairs, order):
                a, b = vals[o]
                if rng.random() < 0.5:
                    a, b = b, a
                labels[i], labels[j] = str(a), str(b)
        elif kind == "d12":
            for (i, j), o in zip(pairs, order):
                a = int(o) + 1
                b = 13 - a
                if rng.random() < 0.5:
                    a, b = b, a
                labels[i], labels[j] = str(a), str(b)
        else:
            syms = list(rng.permutation(KOTD_FACES))
            for (i, j), o in zip(pairs, order):
                labels[i], labels[j] = syms[2 * o], syms[2 * o + 1]
        self.labels = labels
        self.faces = sorted(set(labels), key=lambda s: (len(s), s)) if kind != "kotd" else list(KOTD_FACES)
        # appearance
        base = np.array(BODY[colour], float) + rng.normal(0, 7, 3)
        self.body = srgb2lin(np.clip(base, 0, 255))
        light = colour in LIGHT_BODIES
        if light:
            inks = ["black", "black", "darkblue", "red", "green"] + (["grey"] if colour == "white" else ["white"])
        else:
            inks = ["white", "white", "gold", "silver", "cream"] + (["darkgrey"] if colour == "black" else ["black"])
        ink = inks[int(rng.integers(0, len(inks)))]
        self.ink = srgb2lin(np.array(INK[ink], float))
        self.ink_name = ink
        u = rng.random()
        self.finish = "glossy" if u < 0.38 else "matte" if u < 0.62 else "marbled" if u < 0.84 else "translucent"
        if self.finish == "glossy":
            self.ks, self.kexp = rng.uniform(0.035, 0.065), rng.uniform(150, 800)
        elif self.finish == "matte":
            self.ks, self.kexp = rng.uniform(0.01, 0.025), rng.uniform(6, 20)
        elif self.finish == "marbled":
            self.ks, self.kexp = rng.uniform(0.035, 0.06), rng.uniform(80, 400)
            vein = self.body * rng.uniform(0.25, 0.6) if rng.random() < 0.5 else \
                np.minimum(self.body * 2.5 + 0.15, 0.9)
            self.vein = vein
            self.mw = [normalize(rng.normal(size=3)) * (2 ** j) for j in range(4)]
            self.mp = rng.uniform(0, 6.3, 4)
            self.mfreq = rng.uniform(1.5, 3.5) / size
        else:
            self.ks, self.kexp = rng.uniform(0.05, 0.08), rng.uniform(200, 800)
            self.body = np.minimum(self.body * 1.2 + 0.03, 0.95)
        self.engraved = rng.random() < 0.5
        self.opacity = 0.55 if self.finish == "translucent" else 1.0
        style = {"pip_sp": rng.uniform(0.44, 0.54), "pip_r": rng.uniform(0.15, 0.2),
                 "one_scale": 1.0 if rng.random() < 0.6 else rng.uniform(1.2, 1.6),
                 "font": [cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_TRIPLEX,
                          cv2.FONT_HERSHEY_COMPLEX][int(rng.integers(0, 4))],
                 "thick": rng.uniform(0.035, 0.055), "text_h": rng.uniform(0.50, 0.62),
                 "mark": "under" if rng.random() < 0.7 else "dot", "sym": rng.uniform(0.82, 1.0)}
        self.atlas = build_atlas(sh, labels, style, T)

    def albedo(self, pl):
        if self.finish != "marbled":
            return np.broadcast_to(self.body, (len(pl), 3))
        q = pl * self.mfreq
        turb = np.zeros(len(pl))
        for j in range(1, 4):
            turb += np.sin(q @ self.mw[j] + self.mp[j]) / j
        m = 0.5 + 0.5 * np.sin(q @ self.mw[0] * 3 + 2.5 * turb + self.mp[0])
        v = (m ** 6)[:, None] * 0.85
        return self.body * (1 - v) + self.vein * v


# ---------------------------------------------------------------------------
# camera
# ---------------------------------------------------------------------------


class Camera:
    def __init__(self, rng, W, H):
        self.W, self.H = W, H
        sc = W / 640.0
        for _ in range(10000):
            hgt = rng.uniform(150, 500)
            tilt = math.radians(rng.uniform(0, 25))
            wpx = rng.uniform(36, 90)
            D = hgt / math.cos(tilt)
            f = wpx * D / 16.0
            hfov = 2 * math.degrees(math.atan(320.0 / f))
            if 28 <= hfov <= 95:
                break
        self.height, self.tilt, self.wpx, self.hfov = hgt, tilt, wpx, hfov
        self.f = f * sc
        self.cx = (W - 1) / 2 + rng.uniform(-0.03, 0.03) * W
        self.cy = (H - 1) / 2 + rng.uniform(-0.03, 0.03) * H
        rc2 = ((W / 2) ** 2 + (H / 2) ** 2) / self.f ** 2
        self.dist = rng.uniform(-0.08, 0.04)
        self.k1 = self.dist / rc2
        az = rng.uniform(0, 2 * math.pi)
        T = np.array([rng.uniform(-25, 25), rng.uniform(-25, 25), 0.0])
        self.C = T + D * np.array([math.sin(tilt) * math.cos(az), math.sin(tilt) * math.sin(az), math.cos(tilt)])
        zc = normalize(T - self.C)
        if tilt < 1e-4:
            xc = np.array([1.0, 0, 0])
        else:
            xc = normalize(np.cross(zc, [0, 0, 1.0]))
        yc = np.cross(zc, xc)
        if rng.random() < 0.35:
            roll = math.radians(90 * int(rng.integers(0, 4)) + rng.normal(0, 1.5))
        else:
            roll = rng.uniform(0, 2 * math.pi)
        self.roll = roll
        xr = math.cos(roll) * xc + math.sin(roll) * yc
        yr = -math.sin(roll) * xc + math.cos(roll) * yc
        self.R = np.stack([xr, yr, zc])
        # per-pixel rays
        u, v = np.meshgrid(np.arange(W, dtype=np.float64), np.arange(H, dtype=np.float64))
        xd = (u - self.cx) / self.f
        yd = (v - self.cy) / self.f
        rd = np.sqrt(xd * xd + yd * yd)
        r = rd.copy()
        for _ in range(12):
            g = r * (1 + self.k1 * r * r) - rd
            r = r - g / (1 + 3 * self.k1 * r * r)
        s = np.where(rd > 1e-12, r / np.maximum(rd, 1e-12), 1.0)
        x, y = xd * s, yd * s
        d = x[..., None] * self.R[0] + y[..., None] * self.R[1] + self.R[2]
        self.dirs = normalize(d).astype(np.float64)
        cosang = 1 / np.sqrt(1 + x * x + y * y)
        self.cos4 = cosang ** 4
        self.pixang = 1.0 / self.f

    def project(self, P):
        P = np.atleast_2d(P)
        Xc = (P - self.C) @ self.R.T
        x = Xc[:, 0] / Xc[:, 2]
        y = Xc[:, 1] / Xc[:, 2]
        d = 1 + self.k1 * (x * x + y * y)
        return np.stack([self.f * x * d + self.cx, self.f * y * d + self.cy], 1)


# ---------------------------------------------------------------------------
# surfaces (floor, frame, table)
# ---------------------------------------------------------------------------

FLOOR_COLS = {
    "felt": [(30, 92, 48), (112, 26, 34), (32, 52, 112), (26, 26, 30), (92, 92, 96), (62, 36, 84), (40, 70, 60)],
    "neoprene": [(28, 28, 30), (40, 44, 52), (22, 40, 80), (60, 60, 62)],
    "wood": [(150, 100, 58), (190, 150, 102), (96, 62, 38), (168, 120, 70)],
    "cork": [(176, 134, 88), (160, 118, 76)],
    "mat": [(28, 60, 110), (40, 100, 96), (196, 176, 130), (70, 40, 70), (160, 60, 40)],
    "leather": [(100, 58, 34), (30, 26, 24), (160, 110, 70), (30, 60, 40), (90, 20, 25)],
    "paper": [(236, 233, 224), (242, 240, 236), (190, 160, 120)],
}
FLOOR_SPEC = {"felt": (0.0, 1), "neoprene": (0.012, 8), "wood": (0.02, 30), "cork": (0.0, 1), "mat": (0.012, 10),
              "leather": (0.015, 12), "paper": (0.0, 1), "plastic": (0.02, 20)}


def make_tex(ftype, base_srgb, h, w, res, rng):
    """Albedo texture (linear RGB) for a surface; res = mm per texel."""
    base = srgb2lin(np.clip(np.array(base_srgb, float), 0, 255)).astype(F32)
    one = np.ones((h, w), F32)
    if ftype == "felt":
        m = 1 + 0.05 * fine_noise(rng, h, w, 0.6 / res * 0.2) + 0.05 * smooth_noise(rng, h, w, 8 / res)
        img = base * m[..., None]
    elif ftype == "neoprene":
        m = 1 + 0.04 * fine_noise(rng, h, w, 0.5) + 0.02 * smooth_noise(rng, h, w, 20 / res)
        img = base * m[..., None]
    elif ftype == "wood":
        spacing = rng.uniform(3, 9) / res
        yy = np.arange(h, dtype=F32)[:, None] * one
        warp = 2.5 * smooth_noise(rng, h, w, 60 / res)
        ring = 0.5 + 0.5 * np.sin(2 * math.pi * (yy / spacing + warp))
        fib = cv2.resize(rng.standard_normal((h, max(2, w // 25))).astype(F32), (w, h),
                         interpolation=cv2.INTER_LINEAR)
        fib = cv2.GaussianBlur(fib, (0, 0), 0.6)
        m = 0.82 + 0.22 * ring ** 2 + 0.05 * fib + 0.04 * smooth_noise(rng, h, w, 40 / res)
        img = base * m[..., None]
        img[..., 2] *= (0.95 + 0.05 * ring)
    elif ftype == "cork":
        g = smooth_noise(rng, h, w, 0.9 / res)
        g2 = fine_noise(rng, h, w, 0.8)
        m = 1 + 0.12 * g + 0.05 * g2 - 0.25 * (g2 > 2.0)
        img = base * m[..., None]
    elif ftype == "mat":
        img = base * one[..., None]
        img = np.ascontiguousarray(np.broadcast_to(img, (h, w, 3))).astype(F32)
        for _ in range(int(rng.integers(2, 6))):
            col = srgb2lin(rng.uniform(20, 230, 3)).astype(F32)
            cx, cy = rng.uniform(0, w), rng.uniform(0, h)
            rad = rng.uniform(25, 90) / res
            yy, xx = np.ogrid[:h, :w]
            wgt = np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * rad * rad)).astype(F32)
            wgt = wgt * (0.4 + 0.4 * (smooth_noise(rng, h, w, 15 / res) > 0))
            img = img * (1 - wgt[..., None]) + col * wgt[..., None]
        # printed grid lines (square or hex-ish)
        sp = rng.uniform(20, 40) / res
        lw = max(1.0, 0.5 / res)
        yy, xx = np.mgrid[:h, :w].astype(F32)
        if rng.random() < 0.5:
            d = np.minimum(np.abs((xx % sp) - sp / 2), np.abs((yy % sp) - sp / 2))
        else:
            d = np.full((h, w), 1e9, F32)
            for a in (0, 60, 120):
                c, s = math.cos(math.radians(a)), math.sin(math.radians(a))
                t = xx * c + yy * s
                d = np.minimum(d, np.abs((t % sp) - sp / 2))
        line = np.clip(1.0 - np.abs(d - sp / 2) / lw, 0, 1)
        lc = srgb2lin(rng.uniform(150, 250, 3)).astype(F32)
        img = img * (1 - 0.7 * line[..., None]) + lc * 0.7 * line[..., None]
        img *= (1 + 0.03 * fine_noise(rng, h, w, 0.5))[..., None]
    elif ftype == "leather":
        n = int(h * w * res * res / 4.0) + 10
        pts = np.zeros((h, w), np.uint8) + 255
        ys = rng.integers(0, h, n)
        xs = rng.integers(0, w, n)
        pts[ys, xs] = 0
        dist = cv2.distanceTransform(pts, cv2.DIST_L2, 3) * res
        lab = cv2.GaussianBlur(dist, (0, 0), 1.0)
        crease = np.clip(lab / 1.2, 0, 1)
        m = 0.8 + 0.2 * crease + 0.06 * smooth_noise(rng, h, w, 25 / res)
        img = base * m[..., None]
    elif ftype == "paper":
        m = 1 + 0.015 * fine_noise(rng, h, w, 0.7) + 0.015 * smooth_noise(rng, h, w, 30 / res)
        img = base * m[..., None]
    elif ftype == "plastic":
        m = 1 + 0.02 * smooth_noise(rng, h, w, 30 / res)
        img = base * m[..., None]
    else:
        img = base * one[..., None]
    return np.clip(np.asarray(img, F32), 0.003, 0.95)


class Surface:
    def __init__(self, ftype, col, rng, xr, yr, res_hint, rot=None):
        self.type = ftype
        self.ks, self.kexp = FLOOR_SPEC.get(ftype, (0.03, 10))
        x0, x1 = xr
        y0, y1 = yr
        ext = max(x1 - x0, y1 - y0) * 1.42 + 4
        res = max(res_hint, ext / 2400.0)
        n = int(ext / res) + 2
        self.res = res
        self.c = np.array([(x0 + x1) / 2, (y0 + y1) / 2])
        self.n = n
        self.rot = rng.uniform(0, 2 * math.pi) if rot is None else rot
        self.tex = make_tex(ftype, col, n, n, res, rng)

    def sample(self, X, Y):
        c, s = math.cos(self.rot), math.sin(self.rot)
        dx, dy = X - self.c[0], Y - self.c[1]
        u = ((c * dx - s * dy) / self.res + self.n / 2).ravel().astype(F32)
        v = ((s * dx + c * dy) / self.res + self.n / 2).ravel().astype(F32)
        n = len(u)
        if n == 0:
            return np.zeros((0, 3), F32)
        cols = 1024
        rows = (n + cols - 1) // cols
        pad = rows * cols - n
        u = np.concatenate([u, np.zeros(pad, F32)]).reshape(rows, cols)
        v = np.concatenate([v, np.zeros(pad, F32)]).reshape(rows, cols)
        out = cv2.remap(self.tex, u, v, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT_101)
        return out.reshape(-1, 3)[:n]


# ---------------------------------------------------------------------------
# lights
# ---------------------------------------------------------------------------


class Light:
    pass


def make_lights(rng, cam):
    nl = int(rng.choice([1, 2, 3], p=[0.45, 0.35, 0.2]))
    kinds = list(rng.choice(["panel", "lamp", "ring", "window"], size=nl, p=[0.32, 0.3, 0.16, 0.22]))
    lights = []
    ws = rng.uniform(0.35, 1.0, nl)
    ws[0] = 1.0
    ws = ws / ws.sum()
    for kind, w in zip(kinds, ws):
        L = Light()
        L.kind = kind
        L.w = w
        L.directional = False
        if kind == "panel":
            L.pos = np.array([rng.uniform(-250, 250), rng.uniform(-250, 250), rng.uniform(600, 1300)])
            size = rng.uniform(250, 700)
            a = rng.uniform(0, math.pi)
            ex = np.array([math.cos(a), math.sin(a), 0]) * size / 2
            ey = np.array([-math.sin(a), math.cos(a), 0]) * size / 2
            uv = rng.uniform(-1, 1, (32, 2))
            L.samples = L.pos + uv[:, :1] * ex + uv[:, 1:] * ey
            L.K = rng.uniform(4000, 6500)
            L.ang = size / 2 / L.pos[2]
            L.ns = 3
        elif kind == "lamp":
            el = math.radians(rng.uniform(15, 50))
            az = rng.uniform(0, 2 * math.pi)
            dist = rng.uniform(300, 750)
            L.pos = dist * np.array([math.cos(el) * math.cos(az), math.cos(el) * math.sin(az), math.sin(el)])
            L.pos[2] = max(L.pos[2], 80)
            rad = rng.uniform(4, 30)
            L.samples = L.pos + normalize(rng.normal(size=(32, 3))) * rad * np.cbrt(rng.uniform(0, 1, (32, 1)))
            L.K = rng.uniform(2700, 4200)
            L.ang = rad / dist
            L.ns = 2 if rad > 10 else 1
        elif kind == "ring":
            rad = rng.uniform(40, 90)
            a = np.linspace(0, 2 * math.pi, 32, endpoint=False)
            L.pos = cam.C.copy()
            L.samples = cam.C + rad * (np.cos(a)[:, None] * cam.R[0] + np.sin(a)[:, None] * cam.R[1])
            L.K = rng.uniform(5000, 6500)
            L.ang = rad / cam.C[2]
            L.rad = rad
            L.width = rng.uniform(8, 20)
            L.ns = 2
        else:
            el = math.radians(rng.uniform(18, 55))
            az = rng.uniform(0, 2 * math.pi)
            L.directional = True
            L.dir = np.array([math.cos(el) * math.cos(az), math.cos(el) * math.sin(az), math.sin(el)])
            ang = rng.uniform(0.04, 0.22)
            pert = rng.normal(size=(32, 3)) * ang * 0.6
            L.samples = normalize(L.dir + pert - (pert @ L.dir)[:, None] * L.dir)
            L.K = rng.uniform(5500, 8000)
            L.ang = ang
            L.ns = 3
        L.col = kelvin_rgb(L.K)
        L.emax = min(2000.0, 2.0 / max(L.ang, 0.02) ** 2)
        # intensity so that unshadowed irradiance at the origin on the floor = w
        if L.directional:
            L.I = w / L.dir[2]
        else:
            v = L.pos
            r = np.linalg.norm(v)
            cosn = v[2] / r
            fall = cosn / (r * r)
            if kind == "panel":
                fall *= cosn
            L.I = w / fall
        lights.append(L)
    return lights


def light_terms(L, P, N):
    """Direction towards the light, distance, irradiance factor (without cos) and cos."""
    if L.directional:
        Ld = np.broadcast_to(L.dir, P.shape)
        dist = np.full(len(P), INF)
        fall = np.full(len(P), L.I)
    else:
        v = L.pos - P
        dist = np.linalg.norm(v, axis=1)
        Ld = v / dist[:, None]
        fall = L.I / (dist * dist)
        if L.kind == "panel":
            fall = fall * np.clip(Ld[:, 2], 0, 1)
    cos = np.einsum("ij,ij->i", N, Ld)
    return Ld, dist, fall, cos


# ---------------------------------------------------------------------------
# tray geometry
# ---------------------------------------------------------------------------


class Tray:
    pass


def trace_tray(cam, tr):
    C = cam.C
    D = cam.dirs.reshape(-1, 3)
    M = len(D)
    dz = D[:, 2]
    lab = np.zeros(M, np.int8)
    N = np.zeros((M, 3))
    N[:, 2] = 1
    with np.errstate(divide="ignore", invalid="ignore"):
        if not tr.walls:
            t = -C[2] / dz
            P = C + t[:, None] * D
            return P, N, lab, t
        A, B, Hw, w, tb = tr.A, tr.B, tr.Hw, tr.w, tr.tb
        t = np.full(M, INF)
        ttop = (Hw - C[2]) / dz
        Pt = C + ttop[:, None] * D
        inside = (np.abs(Pt[:, 0]) <= A) & (np.abs(Pt[:, 1]) <= B)
        dxs = np.where(D[:, 0] == 0, 1e-12, D[:, 0])
        dys = np.where(D[:, 1] == 0, 1e-12, D[:, 1])
        tx = np.where(dxs > 0, (A - C[0]) / dxs, (-A - C[0]) / dxs)
        ty = np.where(dys > 0, (B - C[1]) / dys, (-B - C[1]) / dys)
        tz = -C[2] / dz
        te = np.stack([tx, ty, tz], 1)
        which = te.argmin(1)
        tcav = te.min(1)
        # cavity
        t = np.where(inside, tcav, t)
        wx = inside & (which == 0)
        wy = inside & (which == 1)
        lab[wx | wy] = 1
        N[wx] = np.stack([-np.sign(dxs[wx]), 0 * dxs[wx], 0 * dxs[wx]], 1)
        N[wy] = np.stack([0 * dys[wy], -np.sign(dys[wy]), 0 * dys[wy]], 1)
        rim = ~inside & (np.abs(Pt[:, 0]) <= A + w) & (np.abs(Pt[:, 1]) <= B + w)
        lab[rim] = 2
        t = np.where(rim, ttop, t)
        rest = ~inside & ~rim
        # outer box entry
        Ao, Bo = A + w, B + w
        t1x, t2x = (-Ao - C[0]) / dxs, (Ao - C[0]) / dxs
        t1y, t2y = (-Bo - C[1]) / dys, (Bo - C[1]) / dys
        tinx, tiny = np.minimum(t1x, t2x), np.minimum(t1y, t2y)
        toutx, touty = np.maximum(t1x, t2x), np.maximum(t1y, t2y)
        t1z, t2z = (-tb - C[2]) / dz, (Hw - C[2]) / dz
        tinz, toutz = np.minimum(t1z, t2z), np.maximum(t1z, t2z)
        tin = np.maximum(np.maximum(tinx, tiny), tinz)
        tout = np.minimum(np.minimum(toutx, touty), toutz)
        side = rest & (tin < tout) & (tin > 0) & (np.maximum(tinx, tiny) >= tinz)
        sx = side & (tinx >= tiny)
        sy = side & (tiny > tinx)
        lab[side] = 3
        t = np.where(side, tin, t)
        N[sx] = np.stack([-np.sign(dxs[sx]), 0 * dxs[sx], 0 * dxs[sx]], 1)
        N[sy] = np.stack([0 * dys[sy], -np.sign(dys[sy]), 0 * dys[sy]], 1)
        table = rest & ~side
        lab[table] = 4
        t = np.where(table, (-tb - C[2]) / dz, t)
    P = C + t[:, None] * D
    return P, N, lab, t


def tray_blocked(tr, P, lab, Ld):
    """True where the tray walls block the ray P + s*Ld (s>0)."""
    if not tr.walls:
        return np.zeros(len(P), bool)
    A, B, Hw = tr.A, tr.B, tr.Hw
    out = np.zeros(len(P), bool)
    cav = (lab == 0) | (lab == 1) | (lab == 9)
    with np.errstate(divide="ignore", invalid="ignore"):
        lz = np.where(Ld[:, 2] <= 1e-6, 1e-6, Ld[:, 2])
        s = (Hw - P[:, 2]) / lz
        X = P[:, 0] + s * Ld[:, 0]
        Y = P[:, 1] + s * Ld[:, 1]
        esc = (np.abs(X) <= A + 1e-6) & (np.abs(Y) <= B + 1e-6) & (P[:, 2] <= Hw)
        out = np.where(cav, ~esc, out)
        tab = lab == 4
        if tab.any():
            Ao, Bo = A + tr.w, B + tr.w
            Pt, Lt = P[tab], Ld[tab]
            lx = np.where(Lt[:, 0] == 0, 1e-12, Lt[:, 0])
            ly = np.where(Lt[:, 1] == 0, 1e-12, Lt[:, 1])
            t1x, t2x = (-Ao - Pt[:, 0]) / lx, (Ao - Pt[:, 0]) / lx
            t1y, t2y = (-Bo - Pt[:, 1]) / ly, (Bo - Pt[:, 1]) / ly
            t1z, t2z = (-tr.tb - Pt[:, 2]) / np.where(Lt[:, 2] == 0, 1e-12, Lt[:, 2]), \
                (Hw - Pt[:, 2]) / np.where(Lt[:, 2] == 0, 1e-12, Lt[:, 2])
            tin = np.maximum(np.maximum(np.minimum(t1x, t2x), np.minimum(t1y, t2y)), np.minimum(t1z, t2z))
            tout = np.minimum(np.minimum(np.maximum(t1x, t2x), np.maximum(t1y, t2y)), np.maximum(t1z, t2z))
            out[tab] = (tin < tout) & (tout > 1e-3)
    return out


# ---------------------------------------------------------------------------
# dice placement
# ---------------------------------------------------------------------------


class Die:
    def __init__(self, dset, R, pos, tilted):
        self.dset, self.R, self.pos, self.tilted = dset, R, np.asarray(pos, float), tilted
        self.sh = dset.shape

    def world(self, pl):
        return pl @ self.R.T + self.pos

    def top_face(self):
        return int(np.argmax((self.sh.N @ self.R.T)[:, 2]))


def flat_R(sh, top, yaw):
    Rf = rot_a_to_b(sh.N[sh.opp[top]], np.array([0, 0, -1.0]))
    return rotz(yaw) @ Rf


def rest_z(sh, R):
    return -float((sh.cloud @ R.T)[:, 2].min())


def collide(a, b, tol=0.01):
    if np.linalg.norm(a.pos - b.pos) > a.sh.rad + b.sh.rad + 0.05:
        return False
    Pa = (a.world(a.sh.cloud) - b.pos) @ b.R
    if (lse(Pa, b.sh.N, b.sh.h, b.sh.k) < -tol).any():
        return True
    Pb = (b.world(b.sh.cloud) - a.pos) @ a.R
    return bool((lse(Pb, a.sh.N, a.sh.h, a.sh.k) < -tol).any())


def tilted_R(sh, top, d, theta, rng):
    """Rotation of a die resting on one bottom edge, lifted side towards horizontal direction d."""
    R = flat_R(sh, top, 0.0)
    bot = sh.opp[top]
    idx = sh.faces[bot]
    m = len(idx)
    e = int(rng.integers(0, m))
    mid = (sh.verts[idx[e]] + sh.verts[idx[(e + 1) % m]]) / 2 - sh.N[bot] * sh.h
    mw = R @ mid
    # pivot-edge outward direction must be -d (plus a little jitter)
    want = -d
    ang = math.atan2(want[1], want[0]) - math.atan2(mw[1], mw[0]) + rng.normal(0, math.radians(4))
    R = rotz(ang) @ R
    mw = normalize((R @ mid) * np.array([1, 1, 0]))
    R = rot_axis(np.cross([0, 0, 1.0], mw), theta) @ R
    return R


class Scene:
    pass


def sample_point(tw, rng):
    i = int(rng.integers(0, len(tw.cand)))
    return tw.candP[i].copy()


def valid(tw, die, others, check_walls=True):
    cam, tr = tw.cam, tw.tray
    cw = die.world(die.sh.cloud)
    if cw[:, 2].min() < -0.05:
        return False
    if tr.walls:
        if (np.abs(cw[:, 0]) > tr.A + 0.03).any() or (np.abs(cw[:, 1]) > tr.B + 0.03).any():
            return False
    vw = die.world(die.sh.verts)
    uv = cam.project(vw)
    m = 3
    if (uv[:, 0] < m).any() or (uv[:, 0] > cam.W - 1 - m).any() or (uv[:, 1] < m).any() or \
            (uv[:, 1] > cam.H - 1 - m).any():
        return False
    if tr.walls:
        d = vw - cam.C
        s = (tr.Hw - cam.C[2]) / d[:, 2]
        X = cam.C[0] + s * d[:, 0]
        Y = cam.C[1] + s * d[:, 1]
        low = vw[:, 2] < tr.Hw
        if (low & ((np.abs(X) > tr.A) | (np.abs(Y) > tr.B))).any():
            return False
    for o in others:
        if collide(die, o):
            return False
    return True


def slide_contact(make, start, d, smax, target):
    """Largest s in [0,smax] with make(start+s d) not colliding with target."""
    if collide(make(start), target):
        return None
    lo, hi = 0.0, smax
    if not collide(make(start + hi * d), target):
        return None
    for _ in range(24):
        mid = (lo + hi) / 2
        if collide(make(start + mid * d), target):
            hi = mid
        else:
            lo = mid
    return start + lo * d


def place_flat(tw, rng, dset, top, placed):
    sh = dset.shape
    for attempt in range(80):
        yaw = rng.uniform(0, 2 * math.pi)
        R = flat_R(sh, top, yaw)
        z = rest_z(sh, R)
        if placed and rng.random() < 0.3:
            nb = placed[int(rng.integers(0, len(placed)))]
            a = rng.uniform(0, 2 * math.pi)
            d = np.array([math.cos(a), math.sin(a), 0])
            smax = nb.sh.rad + sh.rad + 1
            start = nb.pos * np.array([1, 1, 0]) - d * smax + np.array([0, 0, z])
            p = slide_contact(lambda q: Die(dset, R, q, False), start, d, smax, nb)
            if p is None:
                continue
        else:
            p = sample_point(tw, rng)
            p[2] = z
        die = Die(dset, R, p, False)
        if valid(tw, die, placed):
            return die
    return None


def place_cocked(tw, rng, dset, top, placed):
    sh = dset.shape
    tr = tw.tray
    tmax = 28.0 if dset.kind == "d12" else 35.0
    flats = [p for p in placed if not p.tilted]
    for attempt in range(40):
        theta = math.radians(rng.uniform(12, tmax))
        use_wall = tr.walls and (not flats or rng.random() < 0.45)
        if use_wall:
            wi = int(rng.integers(0, 4))
            d = [np.array([1.0, 0, 0]), np.array([-1.0, 0, 0]), np.array([0, 1.0, 0]), np.array([0, -1.0, 0])][wi]
            R = tilted_R(sh, top, d, theta, rng)
            if int(np.argmax((sh.N @ R.T)[:, 2])) != top:
                continue
            z = rest_z(sh, R)
            cw = sh.cloud @ R.T
            ext = float((cw @ d).max())
            lim = tr.A if wi < 2 else tr.B
            other = tr.B if wi < 2 else tr.A
            lat = rng.uniform(-other + sh.rad, other - sh.rad) if other > sh.rad else 0.0
            p = d * (lim - ext - 0.002) + np.array([0, 0, z])
            if wi < 2:
                p[1] = lat
            else:
                p[0] = lat
            # contact height must be below the wall top
            ci = int(np.argmax(cw @ d))
            if cw[ci, 2] + z > tr.Hw - 0.5:
                continue
            die = Die(dset, R, p, True)
        else:
            if not flats:
                return None
            nb = flats[int(rng.integers(0, len(flats)))]
            if nb.sh.kind != "d12" and rng.random() < 0.75:
                sides = nb.sh.N @ nb.R.T
                sides = sides[np.abs(sides[:, 2]) < 0.3]
                n = sides[int(rng.integers(0, len(sides)))]
                d = -normalize(n * np.array([1, 1, 0]))
                d = rotz(rng.normal(0, math.radians(6))) @ d
            else:
                a = rng.uniform(0, 2 * math.pi)
                d = np.array([math.cos(a), math.sin(a), 0])
            R = tilted_R(sh, top, d, theta, rng)
            if int(np.argmax((sh.N @ R.T)[:, 2])) != top:
                continue
            z = rest_z(sh, R)
            perp = np.array([-d[1], d[0], 0])
            smax = nb.sh.rad + sh.rad + 1
            start = nb.pos * np.array([1, 1, 0]) - d * smax + perp * rng.uniform(-0.3, 0.3) * nb.sh.size \
                + np.array([0, 0, z])
            p = slide_contact(lambda q: Die(dset, R, q, True), start, d, smax, nb)
            if p is None:
                continue
            die = Die(dset, R, p, True)
        if valid(tw, die, placed):
            return die
    return None


# ---------------------------------------------------------------------------
# tower
# ---------------------------------------------------------------------------


class Tower:
    def __init__(self, seed, W, H):
        rng = np.random.default_rng(seed)
        self.seed = seed
        self.W, self.H = W, H
        cam = Camera(rng, W, H)
        self.cam = cam
        # die sets
        pal = list(BODY.keys())
        self.sets = []
        face_px = cam.wpx * W / 640.0
        T = int(np.clip(2 ** math.ceil(math.log2(max(face_px * 1.6, 32))), 32, 256))
        for kind in ("d6pips", "d12", "kotd"):
            nc = int(rng.integers(1, 3))
            cols = rng.choice(pal, size=nc, replace=False)
            for c in cols:
                self.sets.append(DieSet(kind, str(c), rng, T))
        # tray
        tr = Tray()
        flo = cam.dirs.reshape(-1, 3)
        t0 = -cam.C[2] / flo[:, 2]
        P0 = cam.C + t0[:, None] * flo
        hx = float(np.abs(P0[:, 0]).max())
        hy = float(np.abs(P0[:, 1]).max())
        foot = max(hx, hy)
        tr.walls = rng.random() < 0.65
        if tr.walls:
            s = rng.uniform(0.45, 1.2)
            asp = rng.uniform(1.0, 1.5)
            tr.A = max(55.0, foot * s * (asp if rng.random() < 0.5 else 1.0))
            tr.B = max(55.0, foot * s * (1.0 if tr.A > foot * s else asp))
            tr.Hw = rng.uniform(18, 45)
            tr.w = rng.uniform(8, 25)
            tr.tb = rng.uniform(3, 12)
        self.tray = tr
        # surfaces
        ftype = str(rng.choice(list(FLOOR_COLS.keys())))
        fcols = FLOOR_COLS[ftype]
        fcol = np.array(fcols[int(rng.integers(0, len(fcols)))], float)
        if rng.random() < 0.2:
            ds = self.sets[int(rng.integers(0, len(self.sets)))]
            fcol = np.array(BODY[ds.colour], float) * rng.uniform(0.8, 1.05)
        fcol = np.clip(fcol + rng.normal(0, 6, 3), 0, 255)
        self.ftype = ftype
        P, N, lab, tdist = trace_tray(cam, tr)
        self.bgP, self.bgN, self.bglab = P, N, lab
        self.bgt = tdist
        pix_mm = cam.C[2] / cam.f
        res_hint = max(0.12, pix_mm * 0.9)
        fl = lab == 0
        rngx = (P[fl, 0].min(), P[fl, 0].max())
        rngy = (P[fl, 1].min(), P[fl, 1].max())
        self.floor = Surface(ftype, fcol, rng, rngx, rngy, res_hint)
        alb = np.zeros((len(P), 3), F32)
        ks = np.full(len(P), self.floor.ks, F32)
        kexp = np.full(len(P), self.floor.kexp, F32)
        alb[fl] = self.floor.sample(P[fl, 0].reshape(-1, 1), P[fl, 1].reshape(-1, 1)).reshape(-1, 3)
        if tr.walls:
            frame = str(rng.choice(["wood", "plastic", "leather", "plastic"]))
            if frame == "plastic":
                col = [(25, 25, 28), (60, 60, 64), (200, 200, 196), (110, 30, 30), (30, 40, 80)][int(rng.integers(0, 5))]
            elif frame == "leather":
                col = FLOOR_COLS["leather"][int(rng.integers(0, 5))]
            else:
                col = FLOOR_COLS["wood"][int(rng.integers(0, 4))]
            ext = (-(tr.A + tr.w + tr.B + tr.w) * 1.1, (tr.A + tr.w + tr.B + tr.w) * 1.1)
            self.frame = Surface(frame, col, rng, ext, ext, max(0.2, pix_mm), rot=0.0)
            self.frame_type = frame
            m = (lab == 1) | (lab == 3)
            # wall coordinates: (along wall, z)
            along = np.where(np.abs(N[m, 0]) > 0.5, P[m, 1] + 3 * tr.A * np.sign(N[m, 0]),
                             P[m, 0] + 7 * tr.B * np.sign(N[m, 1]))
            alb[m] = self.frame.sample(along.reshape(-1, 1), (P[m, 2] * 1.0).reshape(-1, 1)).reshape(-1, 3)
            m2 = lab == 2
            alb[m2] = self.frame.sample(P[m2, 0].reshape(-1, 1), P[m2, 1].reshape(-1, 1)).reshape(-1, 3)
            ks[(lab >= 1) & (lab <= 3)] = 0.015 if frame != "wood" else 0.02
            kexp[(lab >= 1) & (lab <= 3)] = 20
            tt = str(rng.choice(["wood", "plastic", "felt", "paper"]))
            tcol = FLOOR_COLS.get(tt, [(150, 150, 150), (90, 90, 92), (200, 198, 190)])
            tcol = tcol[int(rng.integers(0, len(tcol)))]
            m4 = lab == 4
            if m4.any():
                ext2 = (P[m4, :2].min() - 10, P[m4, :2].max() + 10)
                self.table = Surface(tt, tcol, rng, ext2, ext2, max(0.25, pix_mm))
                alb[m4] = self.table.sample(P[m4, 0].reshape(-1, 1), P[m4, 1].reshape(-1, 1)).reshape(-1, 3)
        else:
            self.frame_type = "-"
        self.bgA, self.bgks, self.bgkexp = alb, ks, kexp
        # lights
        self.lights = make_lights(rng, cam)
        lc = sum(L.col * L.w for L in self.lights)
        has_win = any(L.kind == "window" for L in self.lights)
        sky = 0.7 * lc + 0.3 * (kelvin_rgb(9000) if has_win else lc)
        self.amb = rng.uniform(0.10, 0.35) * sky
        self.floor_mean = srgb2lin(fcol)
        # background radiance terms
        V = -cam.dirs.reshape(-1, 3)
        self.bg_amb = (alb * self.amb * (0.75 + 0.25 * N[:, 2:3])).astype(F32)
        if tr.walls:
            # wall/floor corner occlusion
            dwall = np.minimum(tr.A - np.abs(P[:, 0]), tr.B - np.abs(P[:, 1]))
            ao = 1 - 0.35 * np.exp(-np.maximum(dwall, 0) / 6.0) * (lab == 0) \
                - 0.35 * np.exp(-np.maximum(P[:, 2], 0) / 6.0) * (lab == 1)
            self.bg_amb *= ao[:, None].astype(F32)
        self.bg_dir = []
        nsamp = 12
        for L in self.lights:
            Ld, dist, fall, cos = light_terms(L, P, N)
            vis = np.zeros(len(P))
            for s in range(nsamp):
                if L.directional:
                    Lds = np.broadcast_to(L.samples[s], P.shape)
                else:
                    Lds = normalize(L.samples[s] - P)
                vis += ~tray_blocked(tr, P, lab, Lds)
            vis /= nsamp
            E = fall * np.clip(cos, 0, None)
            Hh = normalize(Ld + V)
            e = np.minimum(kexp, L.emax)
            spec = ks * (e + 2) / 2 * np.clip(np.einsum("ij,ij->i", N, Hh), 0, 1) ** e * E
            rad = (alb * E[:, None] + spec[:, None]) * L.col * vis[:, None]
            self.bg_dir.append(rad.astype(F32).reshape(H, W, 3))
        self.bg_amb = self.bg_amb.reshape(H, W, 3)
        # placement candidates: floor pixels eroded
        fm = (lab == 0).reshape(H, W).astype(np.uint8)
        er = int(max(2, 0.5 * face_px))
        fm2 = cv2.erode(fm, np.ones((2 * er + 1, 2 * er + 1), np.uint8))
        if fm2.sum() < 50:
            fm2 = fm
        ys, xs = np.nonzero(fm2)
        self.cand = np.stack([ys, xs], 1)
        Hh, Wh = (H + 1) // 2, (W + 1) // 2
        Pf = np.pad(P.reshape(H, W, 3), ((0, 2 * Hh - H), (0, 2 * Wh - W), (0, 0)), mode="edge")
        self.bgP_half = Pf.reshape(Hh, 2, Wh, 2, 3).mean((1, 3))
        self.Hh, self.Wh = Hh, Wh
        self.pix_mm_half = 2.0 * cam.C[2] / cam.f
        self.candP = P.reshape(H, W, 3)[ys, xs]
        # camera response
        ref = sum(self.bg_dir) + self.bg_amb
        lum = ref @ np.array([0.2126, 0.7152, 0.0722], F32)
        mean = float(np.median(lum))
        target = 0.18 * (mean / 0.18) ** 0.35
        self.exposure = target / max(mean, 1e-4) * 2 ** rng.uniform(-0.5, 0.4)
        awb = 1.0 / lc
        awb = awb / awb[1]
        alpha = rng.uniform(0.3, 0.95)
        wb = awb ** alpha * np.exp(rng.normal(0, 0.05, 3))
        self.wb = (wb / wb[1]).astype(F32)
        self.vign = (cam.cos4 ** rng.uniform(0.3, 1.0) * (1 - rng.uniform(0, 0.15) *
                                                         ((np.arange(W)[None, :] - cam.cx) ** 2 +
                                                          (np.arange(H)[:, None] - cam.cy) ** 2) /
                                                         ((W / 2) ** 2 + (H / 2) ** 2))).astype(F32)
        self.defocus = rng.uniform(0.3, 1.1)
        self.noise_a = rng.uniform(0.0004, 0.004)
        self.noise_b = rng.uniform(0.001, 0.005)
        self.jpeg_q = int(rng.integers(70, 96))
        self.pixang = cam.pixang

    # -- rendering -----------------------------------------------------------

    def trace_die(self, die):
        cam = self.cam
        sh = die.sh
        vw = die.world(sh.verts)
        uv = cam.project(vw)
        x0 = max(0, int(math.floor(uv[:, 0].min())) - 3)
        x1 = min(self.W, int(math.ceil(uv[:, 0].max())) + 4)
        y0 = max(0, int(math.floor(uv[:, 1].min())) - 3)
        y1 = min(self.H, int(math.ceil(uv[:, 1].max())) + 4)
        if x1 <= x0 or y1 <= y0:
            return None
        yy, xx = np.mgrid[y0:y1, x0:x1]
        yy = yy.ravel()
        xx = xx.ravel()
        Dw = cam.dirs[yy, xx]
        ol = (cam.C - die.pos) @ die.R
        dl = Dw @ die.R
        Nn, h, k = sh.N, sh.h, sh.k
        a = Nn @ ol - h
        b = dl @ Nn.T
        dist0 = np.linalg.norm(cam.C - die.pos)
        marg = 1.5 * dist0 * self.pixang
        bs = np.where(np.abs(b) < 1e-12, 1e-12, b)
        tt = -(a - marg) / bs
        tin = np.where(b < 0, tt, -INF).max(1)
        tout = np.where(b > 0, tt, INF).min(1)
        ok = (tin < tout) & (tout > 0)
        idx = np.nonzero(ok)[0]
        if len(idx) == 0:
            return None
        B = b[idx]
        tin, tout = tin[idx], tout[idx]
        t = tin.copy()
        for _ in range(9):
            Dm = a + t[:, None] * B
            m = Dm.max(1)
            E = np.exp((Dm - m[:, None]) / k)
            S = E.sum(1)
            g = m + k * np.log(S)
            gp = (E * B).sum(1) / S
            step = np.where(gp < -1e-9, -g / np.minimum(gp, -1e-9), 0.0)
            t = t + np.clip(step, 0, None)
        Dm = a + t[:, None] * B
        m = Dm.max(1)
        E = np.exp((Dm - m[:, None]) / k)
        S = E.sum(1)
        g = m + k * np.log(S)
        pixmm = t * self.pixang
        hit = g < 0.02 * pixmm
        # minimum of g along the chord for non-converged rays (bisection on g')
        nh = np.nonzero(~hit)[0]
        gmin = np.zeros(len(idx))
        tmin = t.copy()
        if len(nh):
            lo, hi = tin[nh].copy(), tout[nh].copy()
            Bn = B[nh]
            for _ in range(14):
                mid = (lo + hi) / 2
                Dm2 = a + mid[:, None] * Bn
                m2 = Dm2.max(1)
                E2 = np.exp((Dm2 - m2[:, None]) / k)
                gp2 = (E2 * Bn).sum(1) / E2.sum(1)
                neg = gp2 < 0
                lo = np.where(neg, mid, lo)
                hi = np.where(neg, hi, mid)
            tm = (lo + hi) / 2
            Dm2 = a + tm[:, None] * Bn
            m2 = Dm2.max(1)
            g2 = m2 + k * np.log(np.exp((Dm2 - m2[:, None]) / k).sum(1))
            gmin[nh] = g2
            tmin[nh] = tm
            inside = g2 < 0
            hit[nh[inside]] = True
        # alpha
        tmid = (tin + tout) / 2
        Dm3 = a + tmid[:, None] * B
        m3 = Dm3.max(1)
        gmid = m3 + k * np.log(np.exp((Dm3 - m3[:, None]) / k).sum(1))
        alpha = np.where(hit, np.clip(0.5 - gmid / pixmm, 0.5, 1.0), np.clip(0.5 - gmin / pixmm, 0.0, 0.5))
        keep = alpha > 0.004
        idx, t, alpha, hit, tmin = idx[keep], t[keep], alpha[keep], hit[keep], tmin[keep]
        gmin = gmin[keep]
        tuse = np.where(hit, t, tmin)
        pl = ol + tuse[:, None] * dl[idx]
        f, grad, Dm = lse_grad(pl, Nn, h, k)
        gn = np.maximum(np.einsum("ij,ij->i", grad, grad), 1e-9)
        pl = pl - (f / gn)[:, None] * grad
        nl = normalize(grad)
        face = Dm.argmax(1)
        return dict(yy=yy[idx], xx=xx[idx], t=tuse, alpha=alpha, pl=pl, nl=nl, face=face)

    def shadow_frac(self, P, L, ns, dice, rng):
        """Fraction of light L blocked at points P by dice (list)."""
        blk = np.zeros(len(P))
        if not dice:
            return blk
        for s in range(ns):
            si = rng.integers(0, len(L.samples), len(P))
            S = L.samples[si]
            if L.directional:
                Ld = S
                tmax = np.full(len(P), INF)
            else:
                v = S - P
                tmax = np.linalg.norm(v, axis=1)
                Ld = v / tmax[:, None]
            trans = np.ones(len(P))
            for d in dice:
                o = (P - d.pos) @ d.R
                dl = Ld @ d.R
                a = o @ d.sh.N.T - d.sh.h
                b = dl @ d.sh.N.T
                bs = np.where(np.abs(b) < 1e-12, 1e-12, b)
                tt = -a / bs
                tin = np.where(b < 0, tt, -INF).max(1)
                tout = np.where(b > 0, tt, INF).min(1)
                hitd = (tin < tout) & (tout > 1e-3) & (tin < tmax)
                trans = trans * np.where(hitd, 1 - d.dset.opacity, 1.0)
            blk += 1 - trans
        return blk / ns

    def render(self, dice, rng, flicker=0.01, motion=False):
        W, H = self.W, self.H
        cam = self.cam
        fl = [1 + rng.normal(0, flicker) for _ in self.lights]
        # shadows and occlusion on the background are computed at half resolution
        Hh, Wh = self.Hh, self.Wh
        vis = [np.ones((Hh, Wh), F32) for _ in self.lights]
        ao = np.ones((Hh, Wh), F32)
        bgP = self.bgP_half
        traced = []
        for die in dice:
            tr = self.trace_die(die)
            traced.append(tr)
        # shadows of dice on the background + contact occlusion
        for di, die in enumerate(dice):
            sh = die.sh
            vw = die.world(sh.verts)
            for li, L in enumerate(self.lights):
                pts = [vw]
                for S in L.samples[::4]:
                    if L.directional:
                        sdir = S
                        lam = (vw[:, 2] + 15) / max(sdir[2], 0.05)
                        pts.append(vw - lam[:, None] * sdir)
                    else:
                        dv = vw - S
                        dz = np.minimum(dv[:, 2], -1e-3)
                        lam = (-15 - S[2]) / dz
                        lam = np.minimum(lam, 50)
                        pts.append(S + lam[:, None] * dv)
                pts = np.concatenate(pts)
                uv = cam.project(pts)
                uv = np.nan_to_num(uv, nan=0, posinf=1e6, neginf=-1e6) / 2.0
                x0 = int(np.clip(np.floor(uv[:, 0].min()) - 3, 0, Wh))
                x1 = int(np.clip(np.ceil(uv[:, 0].max()) + 4, 0, Wh))
                y0 = int(np.clip(np.floor(uv[:, 1].min()) - 3, 0, Hh))
                y1 = int(np.clip(np.ceil(uv[:, 1].max()) + 4, 0, Hh))
                if x1 <= x0 or y1 <= y0:
                    continue
                Pb = bgP[y0:y1, x0:x1].reshape(-1, 3)
                b = self.shadow_frac(Pb, L, L.ns, [die], rng)
                vis[li][y0:y1, x0:x1] *= (1 - b).reshape(y1 - y0, x1 - x0).astype(F32)
            # contact AO
            uv = cam.project(vw) / 2.0
            c = uv.mean(0)
            r = (uv.max(0) - uv.min(0)).max() * 0.9
            x0, x1 = int(np.clip(c[0] - r, 0, Wh)), int(np.clip(c[0] + r + 1, 0, Wh))
            y0, y1 = int(np.clip(c[1] - r, 0, Hh)), int(np.clip(c[1] + r + 1, 0, Hh))
            if x1 > x0 and y1 > y0:
                Pb = bgP[y0:y1, x0:x1].reshape(-1, 3)
                pl = (Pb - die.pos) @ die.R
                dd = (pl @ sh.N.T - sh.h).max(1)
                occ = 1 - 0.55 * np.exp(-np.maximum(dd, 0) / (0.22 * sh.size))
                ao[y0:y1, x0:x1] *= occ.reshape(y1 - y0, x1 - x0).astype(F32)

        def up(a):
            return cv2.resize(a, (2 * Wh, 2 * Hh), interpolation=cv2.INTER_LINEAR)[:H, :W]

        ao = up(ao) if dice else np.ones((H, W), F32)
        for li, L in enumerate(self.lights):
            v = vis[li]
            if dice and L.ns > 1:
                # hide the per-pixel light sampling noise: blur about the penumbra width
                sig = float(np.clip(0.35 * L.ang * 15.0 / self.pix_mm_half, 0.7, 3.0))
                v = cv2.GaussianBlur(v, (0, 0), sig)
            vis[li] = up(v) if dice else np.ones((H, W), F32)
        img = self.bg_amb * ao[..., None]
        for li, L in enumerate(self.lights):
            img = img + self.bg_dir[li] * (vis[li] * fl[li])[..., None]
        # dice
        zbuf = np.full((H, W), INF)
        order = np.argsort([-np.linalg.norm(d.pos - cam.C) for d in dice])
        for di in order:
            die, tr = dice[di], traced[di]
            if tr is None or len(tr["t"]) == 0:
                continue
            col = self.shade_die(die, tr, [d for j, d in enumerate(dice) if j != di], rng, fl)
            yy, xx, a = tr["yy"], tr["xx"], tr["alpha"]
            front = tr["t"] < zbuf[yy, xx]
            yy, xx, a, col = yy[front], xx[front], a[front], col[front]
            img[yy, xx] = img[yy, xx] * (1 - a[:, None]) + col * a[:, None]
            z = tr["t"][front]
            sel = a > 0.5
            zbuf[yy[sel], xx[sel]] = z[sel]
        return self.finish(img, rng, motion)

    def shade_die(self, die, tr, others, rng, fl):
        ds = die.dset
        sh = die.sh
        pl, nl, face = tr["pl"], tr["nl"], tr["face"]
        P = die.world(pl)
        N = nl @ die.R.T
        V = normalize(self.cam.C - P)
        alb = np.array(ds.albedo(pl), float)
        # ink
        e1 = sh.e1[face]
        e2 = sh.e2[face]
        sc = sh.scale[face]
        X = np.einsum("ij,ij->i", pl, e1) / sc
        Y = np.einsum("ij,ij->i", pl, e2) / sc
        T = ds.atlas.shape[1]
        s = sample_atlas(ds.atlas, face, (X + 1) / 2 * (T - 1), (1 - Y) / 2 * (T - 1))
        ink = s[:, 0:1]
        rim = s[:, 1:2]
        alb = alb * (1 - ink) + ds.ink * ink
        if ds.engraved:
            alb = alb * (1 - 0.45 * rim) * (1 - 0.15 * ink)
        ks = ds.ks * (1 - 0.4 * ink[:, 0])
        near = [o for o in others if np.linalg.norm(o.pos - die.pos) < 400]
        zrel = np.maximum(P[:, 2], 0)
        aod = 1 - 0.45 * np.exp(-zrel / (0.12 * sh.size))
        transl = ds.finish == "translucent"
        # ambient incl. floor bounce
        up = np.clip(N[:, 2], -1, 1)
        amb = self.amb * (0.6 + 0.4 * up)[:, None] + \
            0.25 * self.floor_mean * sum(L.w * L.col for L in self.lights) * np.clip(-up, 0, 1)[:, None] * 0.6
        if transl:
            # light scattered inside the body: thin silhouettes glow, thick centres stay saturated
            ndv0 = np.clip(np.einsum("ij,ij->i", N, V), 0, 1)
            alb = alb * (0.8 + 0.45 * (1 - ndv0) ** 2)[:, None]
            alb = np.minimum(alb, 0.97)
        out = alb * amb * aod[:, None] * (1.3 if transl else 1.0)
        lab9 = np.full(len(P), 9, np.int8)
        for li, L in enumerate(self.lights):
            Ld, dist, fall, cos = light_terms(L, P, N)
            if transl:
                cosd = np.clip((cos + 0.45) / 1.45, 0, None)
            else:
                cosd = np.clip(cos, 0, None)
            Lc = L.dir if L.directional else normalize(L.pos - die.pos)
            occl = []
            for o in near:
                v = o.pos - die.pos
                along = float(v @ Lc)
                if along < -(o.sh.rad + sh.rad):
                    continue
                perp = float(np.linalg.norm(v - along * Lc))
                if perp > o.sh.rad + sh.rad + 1.5 * L.ang * max(along, 0) + 1:
                    continue
                occl.append(o)
            blk = self.shadow_frac(P, L, L.ns, occl, rng) if occl else 0.0
            vis = 1 - blk
            if self.tray.walls:
                vb = 0
                for q in range(3):
                    S = L.samples[int(rng.integers(0, len(L.samples)))]
                    Lds = np.broadcast_to(S, P.shape) if L.directional else normalize(S - P)
                    vb = vb + (~tray_blocked(self.tray, P, lab9, Lds))
                vis = vis * vb / 3.0
            E = fall * cosd * vis * fl[li]
            Hh = normalize(Ld + V)
            if L.kind == "ring":
                # mirror reflection of an annulus around the lens
                ndv = np.einsum("ij,ij->i", N, V)
                Rr = 2 * ndv[:, None] * N - V
                beta = np.arccos(np.clip(np.einsum("ij,ij->i", Rr, Ld), -1, 1))
                dist_ = np.linalg.norm(L.pos - P, axis=1)
                al = L.rad / dist_
                wr = np.maximum(L.width / dist_, 0.07)
                wr = np.maximum(wr, 3.0 / max(ds.kexp, 1) ** 0.5 * 0.1)
                lobe = np.exp(-((beta - al) / wr) ** 2)
                spec = ks * lobe / (2 * al * wr * 1.77) * fall * np.clip(cos, 0, None) * vis * fl[li]
            else:
                e = min(ds.kexp, L.emax)
                nh = np.clip(np.einsum("ij,ij->i", N, Hh), 0, 1)
                spec = ks * (e + 2) / 2 * nh ** e * fall * np.clip(cos, 0, None) * vis * fl[li]
            out = out + (alb * E[:, None] + spec[:, None]) * L.col
        # environment reflection
        if ds.ks > 0.03:
            ndv = np.clip(np.einsum("ij,ij->i", N, V), 0, 1)
            Rz = (2 * ndv[:, None] * N - V)[:, 2]
            fres = (1 + 20 * (1 - ndv) ** 5) / 4.0
            env = self.amb * 1.6 * (0.25 + 0.75 * np.clip(Rz, 0, 1))[:, None] + \
                self.floor_mean * 0.3 * np.clip(-Rz, 0, 1)[:, None]
            out = out + env * (fres * ds.ks * 2.0)[:, None]
        return out

    def finish(self, img, rng, motion):
        img = img * (self.exposure * 2 ** rng.normal(0, 0.015)) * self.wb * self.vign[..., None]
        img = img.astype(F32)
        if self.defocus > 0.25:
            img = cv2.GaussianBlur(img, (0, 0), self.defocus)
        if motion:
            L = int(rng.integers(3, 7))
            ker = np.zeros((L, L), F32)
            a = rng.uniform(0, math.pi)
            c = (L - 1) / 2
            cv2.line(ker, (int(round(c - c * math.cos(a))), int(round(c - c * math.sin(a)))),
                     (int(round(c + c * math.cos(a))), int(round(c + c * math.sin(a)))), 1.0, 1)
            ker /= ker.sum()
            img = cv2.filter2D(img, -1, ker)
        sd = np.sqrt(self.noise_a * np.clip(img, 0, None) + self.noise_b ** 2)
        img = img + sd * rng.standard_normal(img.shape, dtype=F32)
        # tone curve with soft shoulder, then sRGB
        x = np.clip(img, 0, None)
        x = np.where(x < 0.8, x, 0.8 + 0.2 * np.tanh((x - 0.8) / 0.2))
        lut = _SRGB_LUT
        q = lut[np.clip((x * 4095).astype(np.int32), 0, 4095)]
        bgr = np.ascontiguousarray(q[..., ::-1])
        qual = int(np.clip(self.jpeg_q + rng.integers(-3, 4), 70, 95))
        ok, buf = cv2.imencode(".jpg", bgr, [cv2.IMWRITE_JPEG_QUALITY, qual])
        return cv2.imdecode(buf, cv2.IMREAD_COLOR)


_lx = np.linspace(0, 1, 4096)
_SRGB_LUT = np.clip(np.round(255 * np.where(_lx <= 0.0031308, 12.92 * _lx, 1.055 * _lx ** (1 / 2.4) - 0.055)),
                    0, 255).astype(np.uint8)


# ---------------------------------------------------------------------------
# main
# ---------------------------------------------------------------------------


def truth_entry(tw, die):
    f = die.top_face()
    c = die.world(die.sh.N[f:f + 1] * die.sh.h)
    uv = tw.cam.project(c)[0]
    return {"kind": die.dset.kind, "colour": die.dset.colour, "face": die.dset.labels[f],
            "x": round(float(uv[0]), 2), "y": round(float(uv[1]), 2), "tilted": bool(die.tilted)}


def throw_dice(tw, rng):
    """1..8 dice for one tray; about 15 % cocked against a wall or a neighbour."""
    n = int(rng.integers(1, 9))
    plan = []
    for _ in range(n):
        ds = tw.sets[int(rng.integers(0, len(tw.sets)))]
        face = ds.faces[int(rng.integers(0, len(ds.faces)))]
        plan.append((ds, ds.labels.index(face), rng.random() < 0.17))
    plan.sort(key=lambda p: p[2])
    placed = []
    for ds, top, cocked in plan:
        die = None
        if cocked:
            die = place_cocked(tw, rng, ds, top, placed)
        if die is None:
            die = place_flat(tw, rng, ds, top, placed)
        if die is not None:
            placed.append(die)
    if not placed:
        placed = [place_flat(tw, rng, plan[0][0], plan[0][1], [])]
    order = rng.permutation(len(placed))
    return [placed[j] for j in order]


def main(argv=None):
    ap = argparse.ArgumentParser(description="Independent synthetic dice-tray renderer D")
    ap.add_argument("out_dir")
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--trays", type=int, default=80)
    ap.add_argument("--width", type=int, default=640)
    ap.add_argument("--height", type=int, default=480)
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args(argv)
    t0 = time.time()
    W, H = args.width, args.height
    tw = Tower(args.seed, W, H)
    out = args.out_dir
    for sub in ("empty", "teach", "trays"):
        os.makedirs(os.path.join(out, sub), exist_ok=True)
    # empties
    for k in range(1, 4):
        rng = np.random.default_rng([args.seed, 0, k])
        img = tw.render([], rng, flicker=0.012)
        cv2.imwrite(os.path.join(out, "empty", "empty-%d.png" % k), img)
    # teach
    for si, ds in enumerate(tw.sets):
        d = os.path.join(out, "teach", ds.kind, ds.colour)
        os.makedirs(d, exist_ok=True)
        sh = ds.shape
        for fi, face in enumerate(ds.faces):
            top = ds.labels.index(face)
            for k in range(1, 4):
                rng = np.random.default_rng([args.seed, 1, si, fi, k])
                die = place_flat(tw, rng, ds, top, [])
                if die is None:
                    raise RuntimeError("cannot place teach die")
                img = tw.render([die], rng)
                cv2.imwrite(os.path.join(d, "%s-%d.png" % (face, k)), img)
    # trays
    truth = {}
    ncocked = ndice = 0
    for i in range(1, args.trays + 1):
        rng = np.random.default_rng([args.seed, 2, i])
        placed = throw_dice(tw, rng)
        img = tw.render(placed, rng, motion=rng.random() < 0.08)
        name = "tray-%04d.png" % i
        cv2.imwrite(os.path.join(out, "trays", name), img)
        truth[name] = [truth_entry(tw, d) for d in placed]
        ndice += len(placed)
        ncocked += sum(d.tilted for d in placed)
    with open(os.path.join(out, "truth.json"), "w") as fh:
        json.dump({"seed": args.seed, "size": [W, H], "trays": truth}, fh, indent=1)
    if not args.quiet:
        cam = tw.cam
        print("tower seed=%d cam h=%.0fmm tilt=%.1fdeg roll=%.0fdeg f=%.0fpx hfov=%.0fdeg die16=%.0fpx dist=%+.3f "
              "pp=(%.0f,%.0f) floor=%s walls=%s lights=%s sets=%s dice=%d cocked=%d time=%.1fs" % (
                  args.seed, cam.height, math.degrees(cam.tilt), math.degrees(cam.roll) % 360, cam.f, cam.hfov,
                  cam.wpx * W / 640, cam.dist, cam.cx, cam.cy, tw.ftype,
                  ("%s %.0fx%.0fx%.0f" % (tw.frame_type, 2 * tw.tray.A, 2 * tw.tray.B, tw.tray.Hw))
                  if tw.tray.walls else "none",
                  "+".join(L.kind for L in tw.lights),
                  ",".join("%s/%s/%s" % (s.kind, s.colour, s.finish) for s in tw.sets), ndice, ncocked,
                  time.time() - t0))
    return 0


if __name__ == "__main__":
    sys.exit(main())
