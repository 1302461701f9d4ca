#!/usr/bin/env python3
"""Independent synthetic dice-tray renderer "C".

Written on 2026-11-30 by a helper session that read neither the camera dice
reader (vision/, scripts/, tests/, docs/) nor the two other renderers in
bench/ (tray_renderer.py, tray_renderer_b.py, webcam_renderer.py,
independent_dice_bench.py).  It exists as a guard against the reader being
tuned to the look of one renderer: everything here (geometry, materials,
lighting, camera model) was designed from scratch.

Usage
-----
    python bench/tray_renderer_c.py OUT_DIR --seed N [--trays 80] [--width 640] [--height 480]

Only Python 3.11 + numpy + opencv are needed.

Output contract
---------------
One seed = one "dice tower": a fixed overhead camera looking into a dice tray,
one lighting set-up and one set of physical dice, all drawn from the seed.

* OUT_DIR/empty/empty-1.png .. empty-3.png
      the empty tray (same camera; the three differ only by sensor noise,
      a little light flicker / auto-exposure drift and compression).
* OUT_DIR/teach/<kind>/<colour>/<face>-<k>.png, k = 1..3
      ONE flat die showing <face> on top, at three random positions / turns.
      Written for every (kind, colour) the tower owns and every face.
* OUT_DIR/trays/tray-0001.png .. tray-NNNN.png   (--trays of them)
      1..8 dice thrown in the tray; dice may touch; about 15 % are cocked
      (d6/kotd tilted 15-35 deg, d12 20-28 deg because a d12 topples past
      ~31.7 deg), each standing on one bottom edge on the floor and leaning
      with its lifted side against a neighbour die or the tray wall (contact
      is solved geometrically: slide-until-touch with an exact separating-axis
      test, rounded extreme points for floor and wall contact; no floating,
      no interpenetration, centre of mass between pivot and support).
* OUT_DIR/truth.json
      {"seed": N, "size": [W, H], "trays": {"tray-0001.png": [
          {"kind": "d6pips", "colour": "white", "face": "4",
           "x": 312.5, "y": 220.1, "tilted": false}, ...], ...}}
      x, y = image position (pixel centres at integer coordinates) of the
      projected centre of the die's top face (the face whose outward normal
      points most upward), projected through exactly the camera model used
      for the image (pinhole + principal point + radial distortion).
      face = the value on that top face.

Kinds: d6pips (faces "1".."6", real pip layout, opposite faces sum to 7,
right-handed 1-2-3 corner), d12 (dodecahedron, faces "1".."12", numerals,
6 and 9 underlined or dotted, opposite faces sum to 13), kotd (six-sided
symbol die, faces CLAW, HEART, ENERGY, FAME (star), DESTRUCTION (city
skyline), POWER (gear)).  Each tower owns all three kinds, 1-2 colours each;
the colour names are the folder names.

How it renders
--------------
* World in millimetres, z up, tray floor at z = 0.  The camera is a pinhole
  200-450 mm above the floor, tilted up to 20 deg, rolled, with an off-centre
  principal point and two-term radial (barrel) distortion.  A ray direction is
  computed for every sample of a 2x supersampled grid by numerically
  inverting the distortion, so image and truth share one camera model.
* Everything is ray cast analytically: the tray is a floor plane plus four
  wall boxes; every die is a convex polytope (its faces plus bevel planes for
  the edges and corners, offsets taken from the support function of the
  rounded die = core polytope (+) ball).  Shading normals are a smooth-max
  blend of the face normals, giving rounded edges.  Each die is only traced
  inside its screen bounding box and z-buffered against the background.
* Face markings (pips, numerals drawn with Hershey fonts, pictograms drawn as
  polygons) live in per-face texture atlases holding an ink mask and an
  engraving depth map; engraved markings perturb the normal (dimpled pips,
  cut numerals) and get cavity occlusion.
* Materials: per-die albedo (solid, marbled, speckled, translucent-looking
  with tinted shadows), Schlick-Fresnel + a compact normalised specular lobe
  per light emitter point (widened by the emitter's angular size, so panels,
  LED ring lights and bulbs give differently shaped highlights; painted ink
  stays matte and direct glare is soft-capped so a highlight never wipes a
  face out), plus an environment-map reflection (room, windows, the camera
  body); floors are procedural world-space textures (felt, neoprene,
  leather, wood, cork, rubber mat, printed play mats with grids/hexes/art),
  tray walls and the table around the tray have their own materials.
* Lights are sets of emitter points (bulb, spot with falloff, diffuse panel,
  ring light around the lens, window); shadows of dice on the floor and the
  walls are exact area-light shadows made by projecting each die's hull from
  many light samples onto the receiving plane and rasterising the polygons;
  die-on-die and wall-on-die shadows are traced with shadow rays; contact
  darkening/ambient occlusion is analytic.
* Camera: 2x2 box down-sampling, defocus, occasional motion blur, lateral
  chromatic aberration, vignetting, auto exposure (with error, highlight
  protection and per-frame reaction), RGGB mosaic with shot/read noise and
  row noise, fixed hot pixels, OpenCV demosaic, imperfect auto white balance
  (illuminant + a pull towards the scene colour), optional noise reduction,
  tone curve with soft shoulder, saturation, unsharp-mask halos and a real
  JPEG round trip before the PNG is written.
* Randomness: the tower (camera, tray, lights, dice styles, sensor) comes
  from numpy.random.default_rng(seed); every image has its own generator
  seeded from (seed, image kind, index), so output is deterministic.
* Speed: roughly 20-65 s per tower (40 trays + teach + empty) on one core.
"""
import argparse
import json
import math
import os
import time

import numpy as np
import cv2

cv2.setNumThreads(1)
F32 = np.float32
SS = 2  # supersampling factor per axis
PHI = (1.0 + 5.0 ** 0.5) / 2.0


# ----------------------------------------------------------------------------
# small helpers
# ----------------------------------------------------------------------------

def nrm(v):
    v = np.asarray(v, dtype=np.float64)
    n = np.linalg.norm(v, axis=-1, keepdims=True)
    return v / np.maximum(n, 1e-12)


def spec_lobe(nh, a2):
    """Compact specular lobe in half-vector angle with the same integral as the
    Gaussian-like Blinn-Phong lobe of roughness a2 (no long glare tail)."""
    th2 = 2.0 * (1.0 - nh)
    return np.clip(1.0 - th2 / (3.0 * a2), 0, None) ** 2


def dot3(a, b):
    return np.einsum('...i,...i->...', a, b)


def nrm32(v):
    n = np.sqrt(np.einsum('...i,...i->...', v, v))[..., None]
    return (v / np.maximum(n, 1e-9)).astype(F32)


def rot_axis(axis, ang):
    x, y, z = nrm(axis)
    c, s = math.cos(ang), math.sin(ang)
    C = 1.0 - c
    return np.array([[c + x * x * C, x * y * C - z * s, x * z * C + y * s],
                     [y * x * C + z * s, c + y * y * C, y * z * C - x * s],
                     [z * x * C - y * s, z * y * C + x * s, c + z * z * C]])


def rot_z(a):
    return rot_axis((0, 0, 1), a)


def rot_from_to(a, b):
    a = nrm(a)
    b = nrm(b)
    v = np.cross(a, b)
    s = np.linalg.norm(v)
    c = float(np.dot(a, b))
    if s < 1e-9:
        if c > 0:
            return np.eye(3)
        p = np.cross(a, [1.0, 0, 0])
        if np.linalg.norm(p) < 1e-6:
            p = np.cross(a, [0, 1.0, 0])
        return rot_axis(p, math.pi)
    return rot_axis(v / s, math.atan2(s, c))


def smoothstep(e0, e1, x):
    t = np.clip((x - e0) / (e1 - e0), 0.0, 1.0)
    return t * t * (3.0 - 2.0 * t)


def temp_rgb(kelvin):
    table = [(2500, (1.0, 0.50, 0.20)), (3000, (1.0, 0.61, 0.33)), (3500, (1.0, 0.70, 0.46)),
             (4500, (1.0, 0.83, 0.67)), (5500, (1.0, 0.93, 0.86)), (6500, (0.92, 0.95, 1.0)),
             (8000, (0.78, 0.87, 1.0))]
    ks = [t[0] for t in table]
    cols = np.array([t[1] for t in table])
    c = np.array([np.interp(kelvin, ks, cols[:, i]) for i in range(3)])
    return c / (0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2])


def remap_pts(img, mx, my, border=cv2.BORDER_CONSTANT):
    """Bilinear lookup of img at scattered points (mx, my); any count of points."""
    n = len(mx)
    ch = 1 if img.ndim == 2 else img.shape[2]
    if n == 0:
        return np.zeros((0, ch), F32)
    C = 1024
    rows = (n + C - 1) // C
    ax = np.full(rows * C, -100.0, F32)
    ay = np.full(rows * C, -100.0, F32)
    ax[:n] = mx
    ay[:n] = my
    out = cv2.remap(img, ax.reshape(rows, C), ay.reshape(rows, C), cv2.INTER_LINEAR,
                    borderMode=border, borderValue=0)
    return out.reshape(rows * C, ch)[:n]


def ray_convex(o, d, PN, PH):
    """Entry distance of rays o + t d into the convex set {x: PN x <= PH}.
    o: (3,) or (n,3); d: (n,3).  inf where missed."""
    PN = PN.astype(d.dtype)
    den = PN @ d.T                                   # P,n
    if o.ndim == 2:
        num = PH.astype(d.dtype)[:, None] - PN @ o.T.astype(d.dtype)
    else:
        num = (PH - PN @ o).astype(d.dtype)[:, None]
    with np.errstate(divide='ignore', invalid='ignore'):
        tt = num / den
    te = np.where(den < 0, tt, -np.inf).max(0)
    tx = np.where(den > 0, tt, np.inf).min(0)
    bad = ((den == 0) & (num < 0)).any(0)
    hit = (te <= tx) & (te > 1e-6) & ~bad
    return np.where(hit, te, np.inf).astype(F32)


def seg_blocked_convex(o, d, PN, PH):
    """Segments o + t d, t in (0,1]; o: (n,3), d: (n,K,3). -> (n,K) bool."""
    PN = PN.astype(d.dtype)
    den = np.tensordot(PN, d, axes=([1], [2]))        # P,n,K
    num = (PH.astype(d.dtype)[:, None] - PN @ o.T.astype(d.dtype))[:, :, None]  # P,n,1
    with np.errstate(divide='ignore', invalid='ignore'):
        tt = num / den
    te = np.where(den < 0, tt, -np.inf).max(0)
    tx = np.where(den > 0, tt, np.inf).min(0)
    bad = ((den == 0) & (num < 0)).any(0)
    return (np.maximum(te, 1e-4) < np.minimum(tx, 1.0)) & ~bad


def ray_box(o, d, bmin, bmax):
    """Ray(s) vs axis aligned box; returns t_enter (inf if miss), entering axis."""
    dd = np.where(np.abs(d) < 1e-12, 1e-12, d)
    inv = 1.0 / dd
    t1 = (bmin - o) * inv
    t2 = (bmax - o) * inv
    tmin = np.minimum(t1, t2)
    tmax = np.maximum(t1, t2)
    te = tmin.max(-1)
    tx = tmax.min(-1)
    ax = tmin.argmax(-1)
    hit = (te <= tx) & (te > 1e-6)
    return np.where(hit, te, np.inf), ax


def seg_blocked_box(o, d, bmin, bmax):
    dd = np.where(np.abs(d) < 1e-12, 1e-12, d)
    inv = 1.0 / dd
    t1 = (bmin - o) * inv
    t2 = (bmax - o) * inv
    te = np.minimum(t1, t2).max(-1)
    tx = np.maximum(t1, t2).min(-1)
    return np.maximum(te, 1e-4) < np.minimum(tx, 1.0)


# ----------------------------------------------------------------------------
# die geometry
# ----------------------------------------------------------------------------

class Shape:
    """Sharp convex polytope with face loops, frames and adjacency."""

    def __init__(self, V, FN):
        V = np.asarray(V, float)
        FN = nrm(FN)
        self.V = V
        self.FN = FN
        H = (V @ FN.T).max(0)
        self.FH = H
        nf, nv = len(FN), len(V)
        faces = []
        for f in range(nf):
            idx = np.where(V @ FN[f] > H[f] - 1e-6 * max(1.0, H[f]))[0]
            cen = V[idx].mean(0)
            a0 = nrm(V[idx[0]] - cen)
            b0 = np.cross(FN[f], a0)
            ang = np.arctan2((V[idx] - cen) @ b0, (V[idx] - cen) @ a0)
            faces.append(idx[np.argsort(ang)])
        self.faces = faces
        edges = {}
        for f, loop in enumerate(faces):
            for k in range(len(loop)):
                a, b = int(loop[k]), int(loop[(k + 1) % len(loop)])
                edges.setdefault((min(a, b), max(a, b)), []).append(f)
        self.edges = edges
        self.vert_faces = [[f for f in range(nf) if v in faces[f]] for v in range(nv)]
        self.opp = np.array([int(np.argmin(FN @ FN[f])) for f in range(nf)])
        self.fcen = np.array([V[l].mean(0) for l in faces])
        fu, fv, rho = [], [], []
        for f, loop in enumerate(faces):
            mid = 0.5 * (V[loop[0]] + V[loop[1]])
            u = nrm(mid - self.fcen[f])
            fu.append(u)
            fv.append(np.cross(FN[f], u))
            rho.append(np.linalg.norm(mid - self.fcen[f]))
        self.Fu = np.array(fu)
        self.Fv = np.array(fv)
        self.rho = np.array(rho)
        dirs = []
        for (a, b) in edges:
            e = nrm(V[b] - V[a])
            if not any(abs(abs(float(e @ q)) - 1) < 1e-6 for q in dirs):
                dirs.append(e)
        self.edge_dirs = np.array(dirs)
        un = []
        for n in FN:
            if not any(abs(abs(float(n @ q)) - 1) < 1e-6 for q in un):
                un.append(n)
        self.axis_normals = np.array(un)

    def rounded_planes(self, r):
        """Half-spaces circumscribing the rounded die (core (+) ball(r))."""
        k = (self.FH[0] - r) / self.FH[0]
        core = self.V * k
        bev = []
        for (a, b), fl in self.edges.items():
            n1, n2 = self.FN[fl[0]], self.FN[fl[1]]
            bev.append(nrm(n1 + n2))
        for v in range(len(self.V)):
            bev.append(nrm(self.FN[self.vert_faces[v]].sum(0)))
        bev = np.array(bev)
        bh = (core @ bev.T).max(0) + r
        PN = np.concatenate([self.FN, bev]).astype(F32)
        PH = np.concatenate([self.FH, bh]).astype(F32)
        caster = core + r * nrm(core)
        return PN, PH, core, caster


def make_cube(s):
    a = s / 2.0
    V = [(x, y, z) for x in (-a, a) for y in (-a, a) for z in (-a, a)]
    FN = [(1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1)]
    return Shape(V, FN)


def make_d12(D):
    p, q = PHI, 1.0 / PHI
    V = [(x, y, z) for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)]
    for s1 in (-1, 1):
        for s2 in (-1, 1):
            V += [(0, s1 * q, s2 * p), (s1 * q, s2 * p, 0), (s1 * p, 0, s2 * q)]
    FN = []
    for s1 in (-1, 1):
        for s2 in (-1, 1):
            FN += [(0, s1 * p, s2 * 1), (s1 * 1, 0, s2 * p), (s1 * p, s2 * 1, 0)]
    V = np.array(V, float)
    FN = nrm(FN)
    inr = (V @ FN[0])
    scale = (D / 2.0) / inr.max()
    sh = Shape(V * scale, FN)
    assert all(len(l) == 5 for l in sh.faces), "d12 construction"
    return sh


# ----------------------------------------------------------------------------
# face markings
# ----------------------------------------------------------------------------

TEX = 128
TPAD = 4


def uv_grid(T):
    c = (np.arange(T) + 0.5) / T * 2 - 1
    return np.broadcast_to(c[None, :], (T, T)), np.broadcast_to(-c[:, None], (T, T))


def tex_from_mask_depth(mask, depth):
    """Pack ink mask, depth gradients (mm per uv unit) and normalised depth."""
    T = mask.shape[0]
    out = np.zeros((T, T, 4), F32)
    out[..., 0] = mask
    if depth is not None:
        g1 = np.gradient(depth, axis=1) / (2.0 / T)
        g0 = np.gradient(depth, axis=0) / (2.0 / T)
        out[..., 1] = g1
        out[..., 2] = -g0
        mx = depth.max()
        out[..., 3] = depth / mx if mx > 0 else 0
    return out


def pip_positions(v, g):
    P = {1: [(0, 0)], 2: [(-g, -g), (g, g)], 3: [(-g, -g), (0, 0), (g, g)],
         4: [(-g, -g), (g, -g), (-g, g), (g, g)],
         5: [(-g, -g), (g, -g), (-g, g), (g, g), (0, 0)],
         6: [(-g, -g), (-g, 0), (-g, g), (g, -g), (g, 0), (g, g)]}
    return P[v]


def pip_texture(v, g, pr, pr1, depth, engraved):
    U, V = uv_grid(TEX)
    mask = np.zeros((TEX, TEX), np.float64)
    D = np.zeros((TEX, TEX), np.float64)
    for (pu, pv) in pip_positions(v, g):
        rad = pr1 if v == 1 else pr
        dist = np.sqrt((U - pu) ** 2 + (V - pv) ** 2)
        mask = np.maximum(mask, np.clip((rad - dist) / (2.0 / TEX) + 0.5, 0, 1))
        if engraved:
            D = np.maximum(D, depth * np.clip(1 - (dist / rad) ** 2, 0, 1))
    return tex_from_mask_depth(mask, D if engraved else None)


def _cv_pts(pts, N):
    pts = np.asarray(pts, float)
    x = (pts[:, 0] + 1) / 2 * N
    y = (1 - pts[:, 1]) / 2 * N
    return np.round(np.stack([x, y], 1) * 16).astype(np.int32)


def canvas_to_tex(canvas, depth_mm, engraved):
    m = cv2.resize(canvas.astype(F32) / 255.0, (TEX, TEX), interpolation=cv2.INTER_AREA)
    D = None
    if engraved:
        D = cv2.GaussianBlur(m, (0, 0), 0.9).astype(np.float64) * depth_mm
    return tex_from_mask_depth(m, D)


def symbol_canvas(name, rng_style):
    N = TEX * 4
    c = np.zeros((N, N), np.uint8)

    def fill(pts, val=255):
        cv2.fillPoly(c, [_cv_pts(pts, N)], val, lineType=cv2.LINE_AA, shift=4)

    if name == 'HEART':
        t = np.linspace(0, 2 * np.pi, 200)
        x = 16 * np.sin(t) ** 3
        y = 13 * np.cos(t) - 5 * np.cos(2 * t) - 2 * np.cos(3 * t) - np.cos(4 * t)
        y = y - (y.max() + y.min()) / 2
        k = 0.74 / max(np.abs(x).max(), np.abs(y).max())
        fill(np.stack([x * k, y * k], 1))
    elif name == 'FAME':
        ang = np.pi / 2 + np.arange(10) * np.pi / 5
        rr = np.where(np.arange(10) % 2 == 0, 0.80, 0.33)
        fill(np.stack([rr * np.cos(ang), rr * np.sin(ang) - 0.04], 1))
    elif name == 'ENERGY':
        P = np.array([(0.12, 0.82), (-0.42, 0.0), (-0.04, 0.0), (-0.24, -0.82),
                      (0.44, 0.12), (0.05, 0.12), (0.32, 0.82)])
        fill(P)
    elif name == 'CLAW':
        for k in (-1, 0, 1):
            t = np.linspace(0, 1, 40)
            a = np.array([0.48, 0.70]) + k * np.array([0.30, -0.20])
            b = np.array([-0.52, -0.62]) + k * np.array([0.30, -0.20])
            mid = (a + b) / 2 + np.array([0.10, -0.10])
            pts = ((1 - t) ** 2)[:, None] * a + (2 * t * (1 - t))[:, None] * mid + (t ** 2)[:, None] * b
            tang = np.gradient(pts, axis=0)
            nn = nrm(np.stack([-tang[:, 1], tang[:, 0]], 1))
            w = 0.10 * np.sin(np.pi * np.clip(t, 0.02, 0.98)) ** 0.8 + 0.005
            poly = np.concatenate([pts + nn * w[:, None], (pts - nn * w[:, None])[::-1]])
            fill(poly)
    elif name == 'DESTRUCTION':
        # a small city: three separate towers on a ground bar, a few big windows
        base = -0.60
        blds = [(-0.74, -0.36, 0.20), (-0.24, 0.22, 0.66), (0.34, 0.74, -0.02)]
        for (u0, u1, top) in blds:
            fill([(u0, base), (u1, base), (u1, top), (u0, top)])
        fill([(-0.24, 0.66), (-0.01, 0.86), (0.22, 0.66)])  # pointed roof
        fill([(0.50, -0.02), (0.56, -0.02), (0.56, 0.18), (0.50, 0.18)])  # antenna
        fill([(-0.82, base - 0.14), (0.82, base - 0.14), (0.82, base + 0.005), (-0.82, base + 0.005)])
        for (u0, u1, top) in blds:
            ww = (u1 - u0) * 0.36
            x0 = (u0 + u1) / 2 - ww / 2
            v = top - 0.12
            while v - 0.16 > base + 0.10:
                fill([(x0, v - 0.15), (x0 + ww, v - 0.15), (x0 + ww, v), (x0, v)], 0)
                v -= 0.32
    elif name == 'POWER':
        cen = (N // 2, N // 2)
        cv2.circle(c, cen, int(0.46 * N / 2), 255, -1, lineType=cv2.LINE_AA)
        for i in range(8):
            a = i * np.pi / 4
            d = np.array([np.cos(a), np.sin(a)])
            p = np.array([-d[1], d[0]])
            w = 0.11
            pts = [d * 0.36 + p * w, d * 0.76 + p * w * 0.8, d * 0.76 - p * w * 0.8, d * 0.36 - p * w]
            fill(pts)
        cv2.circle(c, cen, int(0.18 * N / 2), 0, -1, lineType=cv2.LINE_AA)
    return c


def numeral_canvas(text, font, scale, thick, mark):
    N = TEX * 4
    c = np.zeros((N, N), np.uint8)
    (w, h), base = cv2.getTextSize(text, font, scale, thick)
    x = (N - w) // 2
    y = (N + h) // 2
    cv2.putText(c, text, (x, y), font, scale, 255, thick, cv2.LINE_AA)
    if text in ('6', '9'):
        if mark == 'underline':
            y0 = y + int(0.16 * h)
            cv2.rectangle(c, (x, y0), (x + w, y0 + max(3, int(0.12 * h))), 255, -1, cv2.LINE_AA)
        else:
            rr = max(4, int(0.10 * h))
            cv2.circle(c, (x + w + int(0.22 * h), y - rr), rr, 255, -1, cv2.LINE_AA)
    return c


# ----------------------------------------------------------------------------
# colours and styles
# ----------------------------------------------------------------------------

BODY = {
    'white': (0.78, 0.78, 0.74), 'ivory': (0.74, 0.63, 0.42), 'red': (0.48, 0.03, 0.028),
    'blue': (0.025, 0.07, 0.40), 'green': (0.035, 0.28, 0.06), 'black': (0.021, 0.021, 0.024),
    'purple': (0.10, 0.03, 0.30), 'orange': (0.72, 0.13, 0.012), 'yellow': (0.78, 0.56, 0.035),
    'pink': (0.78, 0.25, 0.38), 'grey': (0.20, 0.20, 0.20),
}
INK = {
    'white': (0.82, 0.82, 0.80), 'black': (0.018, 0.018, 0.02), 'gold': (0.55, 0.37, 0.09),
    'yellow': (0.80, 0.66, 0.06), 'red': (0.55, 0.025, 0.02), 'green': (0.10, 0.55, 0.10),
    'silver': (0.55, 0.56, 0.58),
}
LIGHT_BODIES = ('white', 'ivory', 'yellow', 'orange', 'pink')


class Style:
    pass


def make_style(rng, kind, colour, size):
    st = Style()
    st.kind = kind
    st.colour = colour
    st.size = size
    if kind == 'd12':
        shape = make_d12(size)
        st.r = size * rng.uniform(0.02, 0.06)
    else:
        shape = make_cube(size)
        st.r = size * (rng.uniform(0.05, 0.17) if kind == 'd6pips' else rng.uniform(0.07, 0.17))
    st.shape = shape
    st.PN, st.PH, st.core, st.caster = shape.rounded_planes(st.r)
    st.FN = shape.FN.astype(F32)
    st.FH = shape.FH.astype(F32)
    st.V = shape.V
    nf = len(shape.FN)
    # face frames with a per-style random turn of the markings
    Fu, Fv = [], []
    for f in range(nf):
        step = 2 * np.pi / len(shape.faces[f])
        a = step * rng.integers(0, len(shape.faces[f]))
        if kind == 'd12' and rng.random() < 0.5:
            a += step / 2
        u = math.cos(a) * shape.Fu[f] + math.sin(a) * shape.Fv[f]
        Fu.append(u)
        Fv.append(np.cross(shape.FN[f], u))
    st.Fu = np.array(Fu, F32)
    st.Fv = np.array(Fv, F32)
    st.rho = shape.rho.astype(F32)

    # --- material -------------------------------------------------------
    base = np.array(BODY[colour])
    st.col1 = base * rng.uniform(0.9, 1.1, 3)
    st.marble = False
    st.speckle = False
    st.translucent = False
    finish = rng.choice(['matte', 'satin', 'glossy'], p=[0.3, 0.4, 0.3])
    if colour not in ('white', 'black', 'ivory') and kind != 'kotd' and rng.random() < 0.2:
        st.translucent = True
        finish = 'glossy'
    elif colour not in ('black',) and rng.random() < 0.18:
        st.marble = True
        # the second colour must not compete with the ink: dark veins under light
        # ink and light veins under dark ink
        other = 'black' if colour not in LIGHT_BODIES else 'ivory'
        if colour in LIGHT_BODIES:
            other = rng.choice(['grey', 'black'])
        st.col2 = np.clip(0.7 * base + 0.3 * np.array(BODY[other]), 0, 1)
        st.marble_w = rng.normal(0, 1, 3)
        st.marble_w *= rng.uniform(0.3, 0.6) / np.linalg.norm(st.marble_w)
        st.waves = nrm(rng.normal(0, 1, (7, 3))) * rng.uniform(0.7, 1.5, (7, 1))
        st.phase = rng.uniform(0, 6.3, 7)
        st.marble_pow = rng.uniform(1.0, 2.2)
    elif rng.random() < 0.15:
        st.speckle = True
        st.sp_cell = rng.uniform(0.25, 0.45)
        st.sp_density = rng.uniform(0.02, 0.07)
        st.sp_col = np.array(INK[rng.choice(['gold', 'silver', 'white', 'black'])])
    if finish == 'matte':
        st.F0, st.sh, st.envk = 0.03, rng.uniform(8, 25), 0.15
    elif finish == 'satin':
        st.F0, st.sh, st.envk = 0.035, rng.uniform(70, 220), 0.45
    else:
        st.F0, st.sh, st.envk = 0.045, 10 ** rng.uniform(4.0, 4.8), 1.0
    st.T = np.clip(base * 0.6, 0, 0.45) if st.translucent else np.zeros(3)
    if st.translucent:
        st.col1 = base * 0.8
    # --- ink --------------------------------------------------------------
    if kind == 'd6pips':
        if colour in ('white', 'ivory', 'yellow', 'pink', 'orange'):
            ink = 'black'
        else:
            ink = 'white'
        st.engraved = bool(rng.random() < 0.65)
    elif kind == 'd12':
        if colour in LIGHT_BODIES:
            ink = 'black'
        elif colour == 'black':
            ink = rng.choice(['white', 'white', 'gold', 'yellow'])
        else:
            ink = rng.choice(['white', 'white', 'white', 'gold'])
        st.engraved = bool(rng.random() < 0.7)
    else:
        if colour in LIGHT_BODIES:
            ink = 'black'
        elif colour == 'black':
            ink = rng.choice(['white', 'green', 'yellow', 'gold'])
        else:
            ink = rng.choice(['white', 'white', 'yellow', 'black'] if colour != 'green' else ['white', 'black', 'yellow'])
        st.engraved = bool(rng.random() < 0.55)
    st.ink_name = ink
    st.ink = np.array(INK[ink]) * rng.uniform(0.92, 1.05)
    st.ink_metal = ink in ('gold', 'silver')
    st.depth = size * rng.uniform(0.03, 0.06)

    # --- face values and textures ---------------------------------------------
    texs = []
    if kind == 'd6pips':
        vals = ['2', '5', '3', '4', '1', '6']
        g = rng.uniform(0.48, 0.56)
        pr = rng.uniform(0.15, 0.20)
        pr1 = pr * (rng.uniform(1.3, 1.7) if rng.random() < 0.35 else 1.0)
        red_one = colour in ('white', 'ivory') and rng.random() < 0.3
        for f in range(6):
            texs.append(pip_texture(int(vals[f]), g, pr, pr1, st.depth, st.engraved))
        st.red_one_face = vals.index('1') if red_one else -1
    elif kind == 'kotd':
        syms = ['CLAW', 'HEART', 'ENERGY', 'FAME', 'DESTRUCTION', 'POWER']
        perm = rng.permutation(6)
        vals = [syms[i] for i in perm]
        for f in range(6):
            texs.append(canvas_to_tex(symbol_canvas(vals[f], rng), st.depth, st.engraved))
        st.red_one_face = -1
    else:
        pairs = [(i, 13 - i) for i in range(1, 7)]
        order = rng.permutation(6)
        vals = [None] * 12
        done = set()
        k = 0
        for f in range(12):
            if f in done:
                continue
            o = int(shape.opp[f])
            a, b = pairs[order[k]]
            k += 1
            if rng.random() < 0.5:
                a, b = b, a
            vals[f], vals[o] = str(a), str(b)
            done.update((f, o))
        font = int(rng.choice([cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX,
                               cv2.FONT_HERSHEY_TRIPLEX, cv2.FONT_HERSHEY_COMPLEX]))
        N = TEX * 4
        th_u = rng.uniform(0.98, 1.12)
        (w10, h1), _ = cv2.getTextSize('10', font, 1.0, 1)
        scale = th_u * N / 2 / h1
        if w10 * scale > 1.72 * N / 2:
            scale = 1.72 * N / 2 / w10
        thick = max(4, int(round(scale * rng.uniform(2.2, 3.2))))
        mark = rng.choice(['underline', 'dot'])
        for f in range(12):
            texs.append(canvas_to_tex(numeral_canvas(vals[f], font, scale, thick, mark), st.depth, st.engraved))
        st.red_one_face = -1
    st.values = vals
    tile = TEX + 2 * TPAD
    atlas = np.zeros((nf * tile, tile, 4), F32)
    for f in range(nf):
        atlas[f * tile + TPAD:f * tile + TPAD + TEX, TPAD:TPAD + TEX] = texs[f]
    st.atlas = atlas
    st.tile = tile
    return st


# ----------------------------------------------------------------------------
# procedural textures
# ----------------------------------------------------------------------------

def tex_noise(rng, h, w, cell):
    cell = max(float(cell), 1.0)
    gh = int(h / cell) + 4
    gw = int(w / cell) + 4
    g = rng.standard_normal((gh, gw)).astype(F32)
    bh, bw = int(round(gh * cell)), int(round(gw * cell))
    big = cv2.resize(g, (bw, bh), interpolation=cv2.INTER_CUBIC)
    oy = int(rng.integers(0, max(1, bh - h)))
    ox = int(rng.integers(0, max(1, bw - w)))
    out = big[oy:oy + h, ox:ox + w]
    return (out - out.mean()) / (out.std() + 1e-6)


def aniso_noise(rng, h, w, cy, cx):
    gh = int(h / max(cy, 1)) + 3
    gw = int(w / max(cx, 1)) + 3
    g = rng.standard_normal((gh, gw)).astype(F32)
    big = cv2.resize(g, (int(gw * max(cx, 1)), int(gh * max(cy, 1))), interpolation=cv2.INTER_CUBIC)
    out = big[:h, :w]
    return (out - out.mean()) / (out.std() + 1e-6)


def fbm(rng, h, w, cell, octaves=3, gain=0.5):
    acc = np.zeros((h, w), F32)
    amp = 1.0
    tot = 0.0
    for _ in range(octaves):
        acc += amp * tex_noise(rng, h, w, cell)
        tot += amp
        amp *= gain
        cell /= 2.0
    return acc / tot


def surface_texture(rng, kind, h, w, tx, col=None, col2=None):
    """Albedo texture (h,w,3) for a material kind; tx = mm per texel."""
    mm = lambda v: v / tx
    col = np.array(col, F32)
    if kind == 'felt':
        low = fbm(rng, h, w, mm(35), 2)
        fine = tex_noise(rng, h, w, mm(0.3))
        mid = tex_noise(rng, h, w, mm(2.0))
        a = 1 + 0.07 * low + 0.09 * fine + 0.05 * mid
        alb = col[None, None] * a[..., None]
        lint = tex_noise(rng, h, w, mm(0.35)) > 3.6
        alb[lint] = 0.8 * alb[lint] + 0.2 * np.array([0.45, 0.45, 0.42], F32)
    elif kind == 'neoprene':
        low = fbm(rng, h, w, mm(25), 2)
        fine = tex_noise(rng, h, w, mm(0.22))
        alb = col[None, None] * (1 + 0.05 * low + 0.12 * fine)[..., None]
    elif kind == 'leather':
        n = fbm(rng, h, w, mm(1.3), 2)
        creases = (1 - np.abs(n) / 1.2).clip(0, 1) ** 8
        pebble = tex_noise(rng, h, w, mm(0.5))
        low = fbm(rng, h, w, mm(30), 2)
        alb = col[None, None] * ((1 - 0.25 * creases) * (1 + 0.10 * low + 0.05 * pebble))[..., None]
    elif kind in ('wood', 'planks'):
        yy = (np.arange(h, dtype=F32) * tx)[:, None]
        xx = (np.arange(w, dtype=F32) * tx)[None, :]
        # grain runs along x: long thin streaks, growth bands that wander slowly
        warp = aniso_noise(rng, h, w, mm(40), mm(260)) * rng.uniform(3, 8) + aniso_noise(rng, h, w, mm(3), mm(60)) * 0.7
        period = rng.uniform(3.0, 9.0)
        band = 0.5 + 0.5 * np.sin(2 * np.pi * (yy + warp) / period)
        band = band ** rng.uniform(2, 5)
        streak = aniso_noise(rng, h, w, mm(0.18), mm(10)) + 0.6 * aniso_noise(rng, h, w, mm(0.6), mm(35))
        pores = (aniso_noise(rng, h, w, mm(0.12), mm(1.5)) > 2.0).astype(F32)
        low = fbm(rng, h, w, mm(50), 2)
        t = np.clip(0.55 * band + 0.12 * streak + 0.12 * low + 0.25, 0, 1)
        c2 = np.array(col2, F32)
        alb = (col[None, None] * (1 - t[..., None]) + c2[None, None] * t[..., None])
        alb *= (1 - 0.25 * pores)[..., None]
        pw = rng.uniform(60, 140)
        if kind == 'planks' or rng.random() < 0.5:
            off = rng.uniform(0, pw)
            seam = np.abs((((yy + off) / pw) % 1.0) - 0.5) * pw
            alb *= np.where(seam > pw / 2 - 0.35, 0.4, 1.0)[..., None]
            tone = np.floor((yy + off) / pw)
            alb *= (1 + 0.10 * np.sin(tone * 12.9898 + 1.3))[..., None]
    elif kind == 'cork':
        g1 = tex_noise(rng, h, w, mm(1.1))
        g2 = tex_noise(rng, h, w, mm(3.5))
        pits = tex_noise(rng, h, w, mm(0.45)) > 2.1
        alb = col[None, None] * (1 + 0.22 * g1 + 0.10 * g2)[..., None]
        alb[pits] *= 0.45
    elif kind == 'rubber':
        sp = rng.uniform(4, 7)
        yy = (np.arange(h, dtype=F32) * tx)[:, None]
        xx = (np.arange(w, dtype=F32) * tx)[None, :]
        dx = ((xx / sp) % 1.0) - 0.5
        dy = ((yy / sp) % 1.0) - 0.5
        dots = smoothstep(0.30, 0.22, np.sqrt(dx * dx + dy * dy))
        fine = tex_noise(rng, h, w, mm(0.3))
        alb = col[None, None] * ((1 + 0.45 * dots) * (1 + 0.08 * fine))[..., None]
    elif kind == 'laminate':
        low = fbm(rng, h, w, mm(60), 2)
        fine = tex_noise(rng, h, w, mm(0.4))
        alb = col[None, None] * (1 + 0.03 * low + 0.03 * fine)[..., None]
    elif kind == 'cloth':
        yy = (np.arange(h, dtype=F32) * tx)[:, None]
        xx = (np.arange(w, dtype=F32) * tx)[None, :]
        per = rng.uniform(0.8, 1.6)
        weave = 0.5 + 0.25 * (np.sin(2 * np.pi * xx / per) + np.sin(2 * np.pi * yy / per))
        check = ((np.floor(xx / 25) + np.floor(yy / 25)) % 2) if rng.random() < 0.5 else 0 * xx
        c2 = np.array(col2, F32)
        alb = col[None, None] * (1 - check[..., None]) + c2[None, None] * check[..., None]
        alb = alb * (0.85 + 0.25 * weave)[..., None]
    elif kind == 'plastic':
        low = fbm(rng, h, w, mm(20), 2)
        alb = col[None, None] * (1 + 0.03 * low)[..., None] + np.zeros((h, w, 3), F32)
    else:
        alb = np.zeros((h, w, 3), F32) + col
    return np.ascontiguousarray(alb, dtype=F32)


def playmat_texture(rng, h, w, tx):
    mm = lambda v: v / tx
    base_cols = [(0.05, 0.10, 0.20), (0.20, 0.12, 0.05), (0.06, 0.15, 0.07), (0.30, 0.28, 0.24),
                 (0.03, 0.03, 0.05), (0.35, 0.20, 0.10), (0.10, 0.05, 0.15)]
    c0 = np.array(base_cols[rng.integers(len(base_cols))], F32)
    alb = surface_texture(rng, 'neoprene', h, w, tx, c0)
    design = rng.choice(['hex', 'grid', 'art', 'art'])
    if design == 'art':
        for _ in range(3):
            m = fbm(rng, h, w, mm(rng.uniform(40, 90)), 3)
            sel = smoothstep(0.2, 0.5, m)
            cc = np.array(rng.uniform(0.02, 0.45, 3), F32)
            alb = alb * (1 - 0.8 * sel[..., None]) + 0.8 * sel[..., None] * cc
        art = np.zeros((h, w), np.uint8)
        for _ in range(int(rng.integers(4, 12))):
            cx, cy = int(rng.integers(0, w)), int(rng.integers(0, h))
            rr = int(mm(rng.uniform(5, 40)))
            if rng.random() < 0.5:
                cv2.circle(art, (cx, cy), rr, 255, max(1, int(mm(rng.uniform(0.5, 2)))), cv2.LINE_AA)
            else:
                ang = rng.uniform(0, np.pi)
                cv2.line(art, (cx, cy), (int(cx + rr * 3 * np.cos(ang)), int(cy + rr * 3 * np.sin(ang))),
                         255, max(1, int(mm(rng.uniform(0.5, 2.5)))), cv2.LINE_AA)
        a = art.astype(F32)[..., None] / 255
        lc = np.array(rng.uniform(0.2, 0.7, 3), F32)
        alb = alb * (1 - a) + a * lc
    else:
        lines = np.zeros((h, w), np.uint8)
        cell = mm(rng.uniform(18, 30))
        th = max(1, int(mm(rng.uniform(0.5, 1.2))))
        if design == 'grid':
            for x in np.arange(rng.uniform(0, cell), w, cell):
                cv2.line(lines, (int(x), 0), (int(x), h), 255, th, cv2.LINE_AA)
            for y in np.arange(rng.uniform(0, cell), h, cell):
                cv2.line(lines, (0, int(y)), (w, int(y)), 255, th, cv2.LINE_AA)
        else:
            rr = cell / 2
            dx = rr * 1.5
            dy = rr * math.sqrt(3)
            for i in range(int(w / dx) + 2):
                for j in range(int(h / dy) + 2):
                    cx = i * dx
                    cy = j * dy + (dy / 2 if i % 2 else 0)
                    ang = np.arange(7) * np.pi / 3
                    pts = np.stack([cx + rr * np.cos(ang), cy + rr * np.sin(ang)], 1)
                    cv2.polylines(lines, [np.round(pts * 16).astype(np.int32)], False, 255, th,
                                  cv2.LINE_AA, shift=4)
        a = lines.astype(F32)[..., None] / 255
        lc = np.array(rng.uniform(0.15, 0.6, 3), F32)
        alb = alb * (1 - a) + a * lc
    return np.ascontiguousarray(alb, dtype=F32)


# ----------------------------------------------------------------------------
# lights
# ----------------------------------------------------------------------------

class Light:
    def __init__(self, pts, rad, normal, col, shadow_pts, spot=None, weights=None):
        self.pts = np.asarray(pts, float).reshape(-1, 3)
        K = len(self.pts)
        self.w = np.ones(K) / K if weights is None else np.asarray(weights) / np.sum(weights)
        self.rad = np.broadcast_to(np.asarray(rad, float), (K,)).copy()
        self.normal = None if normal is None else nrm(normal)
        self.col = np.asarray(col, float)
        self.spot = spot
        self.shadow_pts = np.asarray(shadow_pts, float).reshape(-1, 3)
        self.I = 1.0
        self.centre = self.pts.mean(0)
        self.extent = float(np.linalg.norm(self.shadow_pts - self.centre, axis=1).max()) + 1.0

    def irr(self, P, N, wrap=0.0):
        """P,N (n,3) -> E (n,K) (scalar, without colour), l (n,K,3), d (n,K)."""
        L = self.pts.astype(F32)[None] - P[:, None, :]
        d2 = dot3(L, L)
        d = np.sqrt(d2)
        l = L / d[..., None]
        cosr = np.clip((dot3(l, N[:, None, :]) + wrap) / (1 + wrap), 0, None)
        e = (self.I * self.w.astype(F32))[None] * cosr / d2
        if self.normal is not None:
            e = e * np.clip(-(l @ self.normal.astype(F32)), 0, None)
        if self.spot is not None:
            ax, ex = self.spot
            e = e * np.clip(-(l @ ax.astype(F32)), 0, None) ** ex
        return e.astype(F32), l, d

    def normalise(self, target):
        e, _, _ = self.irr(np.zeros((1, 3), F32), np.array([[0, 0, 1]], F32))
        self.I = target / max(float(e.sum()), 1e-12)


def disk_samples(centre, radius, axis, n, rng):
    axis = nrm(axis)
    a = nrm(np.cross(axis, [0.3, 0.5, 0.8]))
    b = np.cross(axis, a)
    k = np.arange(n) + rng.uniform(0, 1, n)
    r = radius * np.sqrt(k / n)
    th = k * 2.39996
    return centre + r[:, None] * (np.cos(th)[:, None] * a + np.sin(th)[:, None] * b)


def panel_light(rng, centre, normal, wu, wv, col, nshadow=28):
    normal = nrm(normal)
    a = nrm(np.cross(normal, [0.1, 0.2, 1.0]) if abs(normal[2]) < 0.95 else np.cross(normal, [1.0, 0, 0]))
    b = np.cross(normal, a)
    pts = []
    for i in (-1, 0, 1):
        for j in (-1, 0, 1):
            pts.append(centre + a * i * wu / 3 + b * j * wv / 3)
    sp = []
    g = int(math.ceil(math.sqrt(nshadow)))
    for i in range(g):
        for j in range(g):
            if len(sp) >= nshadow:
                break
            u = (i + rng.uniform()) / g - 0.5
            v = (j + rng.uniform()) / g - 0.5
            sp.append(centre + a * u * wu + b * v * wv)
    return Light(pts, 0.95 * max(wu, wv) / 3, normal, col, sp)


def lamp_light(rng, pos, radius, col, spot=None):
    sp = disk_samples(pos, radius, pos, 8, rng)
    return Light([pos], radius, None, col, sp, spot=spot)


# ----------------------------------------------------------------------------
# the tower
# ----------------------------------------------------------------------------

class Die:
    def __init__(self, st, R, c, tilted):
        self.st = st
        self.R = np.asarray(R, float)
        self.c = np.asarray(c, float)
        self.tilted = tilted
        self.Vw = self.c + st.V @ self.R.T
        self.Cw = self.c + st.caster @ self.R.T
        self.Corew = self.c + st.core @ self.R.T
        fnw = st.shape.FN @ self.R.T
        self.fnw = fnw
        self.top = int(np.argmax(fnw[:, 2]))
        self.face = st.values[self.top]
        self.top_centre = self.c + self.R @ (st.shape.FN[self.top] * st.shape.FH[self.top])
        self.axes = st.shape.axis_normals @ self.R.T
        self.edirs = st.shape.edge_dirs @ self.R.T
        self.bound = float(np.linalg.norm(st.V, axis=1).max())

    def moved(self, dxyz):
        return Die(self.st, self.R, self.c + np.asarray(dxyz, float), self.tilted)


def dice_intersect(a, b, tol=0.02):
    if np.linalg.norm(a.c - b.c) > a.bound + b.bound + tol:
        return False
    cr = np.cross(a.edirs[:, None, :], b.edirs[None, :, :]).reshape(-1, 3)
    ln = np.linalg.norm(cr, axis=1)
    cr = cr[ln > 1e-6] / ln[ln > 1e-6, None]
    axes = np.concatenate([a.axes, b.axes, cr])
    pa = a.Vw @ axes.T
    pb = b.Vw @ axes.T
    sep = (pa.max(0) < pb.min(0) + tol) | (pb.max(0) < pa.min(0) + tol)
    return not sep.any()


class Tower:
    def __init__(self, seed, W=640, H=480):
        self.seed = seed
        self.W, self.H = W, H
        self.W2, self.H2 = W * SS, H * SS
        rng = np.random.default_rng(seed)
        self.rng = rng
        self._sizes(rng)
        self._camera(rng)
        self._tray(rng)
        self._styles(rng)
        self._lights(rng)
        self._materials(rng)
        self._sensor(rng)
        self._precompute(rng)

    # ------------------------------------------------------------------ setup
    def _sizes(self, rng):
        base = rng.uniform(13.0, 17.0)
        self.size = {}
        self.size['d6pips'] = float(np.clip(base * rng.uniform(0.92, 1.04), 12, 20))
        if rng.random() < 0.5:
            self.size['kotd'] = self.size['d6pips']
        else:
            self.size['kotd'] = float(np.clip(base * rng.uniform(1.05, 1.25), 12, 20))
        if rng.random() < 0.2:
            self.size['d12'] = float(np.clip(base * rng.uniform(1.0, 1.08), 15, 20))
        else:
            self.size['d12'] = float(np.clip(base * rng.uniform(1.12, 1.35), 16, 20))

    def _camera(self, rng):
        W, H = self.W, self.H
        Hc = rng.uniform(200, 450)
        tilt = math.radians(rng.uniform(0, 20) if rng.random() < 0.7 else rng.uniform(0, 3))
        az = rng.uniform(0, 2 * np.pi)
        look = np.array([rng.uniform(-12, 12), rng.uniform(-12, 12), 0.0])
        C = look + Hc * np.array([math.tan(tilt) * math.cos(az), math.tan(tilt) * math.sin(az), 1.0])
        fwd = nrm(look - C)
        roll = math.radians(rng.uniform(-12, 12)) + rng.choice([0, 0, 0, 0, np.pi / 2, -np.pi / 2, np.pi])
        r0 = np.array([math.cos(roll), math.sin(roll), 0.0])
        xc = nrm(r0 - (r0 @ fwd) * fwd)
        yc = np.cross(fwd, xc)
        self.C = C
        self.Rcw = np.stack([xc, yc, fwd], 1)  # columns: camera axes in world
        self.cam_height = Hc
        self.tilt = math.degrees(tilt)
        Zc = np.linalg.norm(look - C)
        small = min(self.size['d6pips'], self.size['kotd'])
        large = max(self.size['kotd'], 1.12 * self.size['d12'])
        w_small = rng.uniform(36, 60)
        f = w_small * (Zc - small) / small
        if f * large / (Zc - large) > 88:
            f = 88 * (Zc - large) / large
        self.fx = f
        self.fy = f * rng.uniform(0.996, 1.004)
        self.cx = W / 2 + rng.normal(0, 0.025 * W)
        self.cy = H / 2 + rng.normal(0, 0.025 * H)
        rmax = math.hypot(max(self.cx, W - self.cx), max(self.cy, H - self.cy)) / f
        k1 = -rng.uniform(0.02, 0.32)
        k2 = rng.uniform(-0.02, 0.06)
        while 1 + 3 * k1 * rmax ** 2 + 5 * k2 * rmax ** 4 < 0.6 or abs(k1 * rmax ** 2) > 0.12:
            k1 *= 0.8
            k2 *= 0.8
        self.k1, self.k2 = k1, k2
        # rays for every supersample
        u = (np.arange(self.W2) + 0.5) / SS - 0.5
        v = (np.arange(self.H2) + 0.5) / SS - 0.5
        xd = ((u - self.cx) / self.fx)[None, :].repeat(self.H2, 0)
        yd = ((v - self.cy) / self.fy)[:, None].repeat(self.W2, 1)
        x, y = self._undistort(xd, yd)
        D = x[..., None] * xc + y[..., None] * yc + fwd
        self.D = nrm32(D.astype(F32))

    def _undistort(self, xd, yd):
        x, y = xd.copy(), yd.copy()
        for _ in range(30):
            r2 = x * x + y * y
            k = 1 + self.k1 * r2 + self.k2 * r2 * r2
            x = xd / k
            y = yd / k
        return x, y

    def project(self, Pw):
        Pw = np.atleast_2d(np.asarray(Pw, float))
        Pc = (Pw - self.C) @ self.Rcw
        x = Pc[:, 0] / Pc[:, 2]
        y = Pc[:, 1] / Pc[:, 2]
        r2 = x * x + y * y
        k = 1 + self.k1 * r2 + self.k2 * r2 * r2
        return np.stack([self.fx * x * k + self.cx, self.fy * y * k + self.cy], 1)

    def _tray(self, rng):
        # visible floor extents (rays of the image border hitting z = 0)
        D = self.D
        border = np.concatenate([D[0, ::16], D[-1, ::16], D[::16, 0], D[::16, -1]])
        t = -self.C[2] / border[:, 2]
        P = self.C + t[:, None] * border
        self.vis_min = P[:, :2].min(0)
        self.vis_max = P[:, :2].max(0)
        half = (self.vis_max - self.vis_min) / 2
        cen = (self.vis_max + self.vis_min) / 2
        fa = rng.uniform(0.6, 1.45)
        fb = rng.uniform(0.6, 1.45)
        if rng.random() < 0.35:
            fb = fa = min(fa, fb)
        A = half[0] * fa
        B = half[1] * fb
        self.tray_c = np.array([cen[0] + rng.uniform(-0.1, 0.1) * half[0],
                                cen[1] + rng.uniform(-0.1, 0.1) * half[1]])
        self.A, self.B = A, B
        self.hw = rng.uniform(16, 40)
        self.tw = rng.uniform(6, 20)
        tx, ty = self.tray_c
        hw, tw = self.hw, self.tw
        self.walls = [  # (bmin, bmax, inward normal, plane offset h with n.x = h)
            (np.array([tx - A - tw, ty - B - tw, 0]), np.array([tx - A, ty + B + tw, hw]), np.array([1.0, 0, 0]), tx - A),
            (np.array([tx + A, ty - B - tw, 0]), np.array([tx + A + tw, ty + B + tw, hw]), np.array([-1.0, 0, 0]), -(tx + A)),
            (np.array([tx - A, ty - B - tw, 0]), np.array([tx + A, ty - B, hw]), np.array([0, 1.0, 0]), ty - B),
            (np.array([tx - A, ty + B, 0]), np.array([tx + A, ty + B + tw, hw]), np.array([0, -1.0, 0]), -(ty + B)),
        ]

    def _styles(self, rng):
        pools = {'d6pips': ['white', 'ivory', 'red', 'blue', 'green', 'black', 'white', 'red'],
                 'd12': ['white', 'red', 'blue', 'green', 'black', 'purple', 'orange', 'yellow'],
                 'kotd': ['black', 'green', 'red', 'blue', 'purple', 'black', 'orange']}
        self.styles = []
        for kind in ('d6pips', 'd12', 'kotd'):
            n = 1 if rng.random() < 0.45 else 2
            cols = []
            while len(cols) < n:
                c = str(rng.choice(pools[kind]))
                if c not in cols:
                    cols.append(c)
            for c in cols:
                self.styles.append(make_style(rng, kind, c, self.size[kind]))

    def _lights(self, rng):
        setup = rng.choice(['lamp', 'panel', 'ring', 'mixed', 'spot', 'twolamps'],
                           p=[0.2, 0.2, 0.16, 0.16, 0.14, 0.14])
        self.setup = str(setup)
        tc = np.array([self.tray_c[0], self.tray_c[1], 0.0])
        L = []

        def sph(el, az, d):
            el, az = math.radians(el), az
            return tc + d * np.array([math.cos(el) * math.cos(az), math.cos(el) * math.sin(az), math.sin(el)])

        def warmish():
            return temp_rgb(rng.uniform(2700, 4200))

        def coolish():
            return temp_rgb(rng.uniform(5000, 7500))

        if setup == 'lamp':
            l = lamp_light(rng, sph(rng.uniform(42, 78), rng.uniform(0, 6.3), rng.uniform(500, 1000)),
                           rng.uniform(2.5, 9), temp_rgb(rng.uniform(2800, 6000)))
            l.normalise(1.0)
            L.append(l)
            amb = rng.uniform(0.12, 0.3)
        elif setup == 'panel':
            az = rng.uniform(0, 6.3)
            off = rng.uniform(0, 250)
            cen = tc + np.array([off * math.cos(az), off * math.sin(az), rng.uniform(350, 800)])
            l = panel_light(rng, cen, tc - cen, rng.uniform(200, 500), rng.uniform(200, 450),
                            temp_rgb(rng.uniform(3500, 6500)))
            l.normalise(1.0)
            L.append(l)
            amb = rng.uniform(0.15, 0.3)
        elif setup == 'ring':
            fwd = self.Rcw[:, 2]
            a = nrm(np.cross(fwd, [0.1, 0.3, 1.0]))
            b = np.cross(fwd, a)
            rr = rng.uniform(35, 90)
            cen = self.C - fwd * rng.uniform(5, 25)
            ang = np.arange(16) * np.pi / 8
            pts = cen + rr * (np.cos(ang)[:, None] * a + np.sin(ang)[:, None] * b)
            ang2 = np.arange(20) * np.pi / 10 + 0.1
            sp = cen + rr * (np.cos(ang2)[:, None] * a + np.sin(ang2)[:, None] * b)
            l = Light(pts, max(rng.uniform(6, 14), 0.55 * np.pi * rr / 16), fwd, temp_rgb(rng.uniform(4500, 6500)), sp)
            l.normalise(1.0)
            L.append(l)
            amb = rng.uniform(0.10, 0.25)
        elif setup == 'mixed':
            azl = rng.uniform(0, 6.3)
            l = lamp_light(rng, sph(rng.uniform(45, 75), azl, rng.uniform(450, 900)), rng.uniform(3, 10), warmish())
            l.normalise(rng.uniform(0.5, 0.9))
            L.append(l)
            azw = azl + rng.uniform(1.5, 4.7)
            d = rng.uniform(700, 1400)
            cen = sph(rng.uniform(25, 50), azw, d)
            w = panel_light(rng, cen, tc - cen, rng.uniform(400, 900), rng.uniform(500, 1000), coolish())
            w.normalise(rng.uniform(0.4, 0.9))
            L.append(w)
            amb = rng.uniform(0.1, 0.22)
        elif setup == 'spot':
            pos = sph(rng.uniform(35, 65), rng.uniform(0, 6.3), rng.uniform(260, 460))
            aim = tc + np.array([rng.uniform(-60, 60), rng.uniform(-60, 60), 0])
            l = lamp_light(rng, pos, rng.uniform(3, 8), temp_rgb(rng.uniform(2700, 5000)),
                           spot=(nrm(aim - pos), rng.uniform(2, 14)))
            l.normalise(1.0)
            L.append(l)
            amb = rng.uniform(0.12, 0.22)
        else:
            a1 = rng.uniform(0, 6.3)
            l = lamp_light(rng, sph(rng.uniform(45, 80), a1, rng.uniform(500, 1000)), rng.uniform(2.5, 9), warmish())
            l.normalise(1.0)
            L.append(l)
            l2 = lamp_light(rng, sph(rng.uniform(35, 70), a1 + rng.uniform(1.5, 4.7), rng.uniform(500, 1000)),
                            rng.uniform(3, 12), coolish() if rng.random() < 0.5 else warmish())
            l2.normalise(rng.uniform(0.3, 0.7))
            L.append(l2)
            amb = rng.uniform(0.08, 0.2)
        self.lights = L
        self.amb = amb * temp_rgb(rng.uniform(4000, 7500))
        # environment map for reflections
        He, We = 32, 64
        th = (np.arange(He) + 0.5) / He * np.pi
        ph = (np.arange(We) + 0.5) / We * 2 * np.pi - np.pi
        dz = np.cos(th)[:, None] + 0 * ph[None]
        dx = (np.sin(th)[:, None] * np.cos(ph)[None])
        dy = (np.sin(th)[:, None] * np.sin(ph)[None])
        env = (0.25 + 1.6 * np.clip(dz, 0, 1) ** 1.5)[..., None] * self.amb[None, None]
        env *= (1 + 0.3 * tex_noise(rng, He, We, 6))[..., None].clip(0.3, 2)
        for _ in range(int(rng.integers(0, 3))):  # bright windows / fixtures in the room
            cdir = nrm([rng.normal(), rng.normal(), abs(rng.normal()) + 0.3])
            m = (dx * cdir[0] + dy * cdir[1] + dz * cdir[2]) > math.cos(rng.uniform(0.1, 0.35))
            env[m] += self.amb * rng.uniform(3, 10)
        cd = -self.Rcw[:, 2]  # the camera body, seen straight up from the dice
        m = (dx * cd[0] + dy * cd[1] + dz * cd[2]) > math.cos(0.12)
        env[m] *= 0.15
        self.env = env.astype(F32)
        self.env_blur = cv2.GaussianBlur(self.env, (0, 0), 3)

    def _materials(self, rng):
        floors = [
            ('felt', (0.03, 0.16, 0.06)), ('felt', (0.02, 0.04, 0.14)), ('felt', (0.22, 0.02, 0.03)),
            ('felt', (0.018, 0.018, 0.02)), ('felt', (0.11, 0.11, 0.11)), ('felt', (0.07, 0.03, 0.13)),
            ('felt', (0.35, 0.33, 0.30)), ('felt', (0.38, 0.27, 0.15)),
            ('neoprene', (0.025, 0.025, 0.028)), ('neoprene', (0.05, 0.05, 0.06)), ('neoprene', (0.03, 0.05, 0.12)),
            ('leather', (0.16, 0.07, 0.025)), ('leather', (0.38, 0.21, 0.09)), ('leather', (0.03, 0.025, 0.025)),
            ('leather', (0.14, 0.025, 0.025)),
            ('wood', (0.50, 0.33, 0.16), (0.36, 0.21, 0.09)), ('wood', (0.13, 0.06, 0.025), (0.07, 0.03, 0.012)),
            ('wood', (0.30, 0.13, 0.06), (0.20, 0.08, 0.03)),
            ('cork', (0.42, 0.28, 0.14)), ('rubber', (0.035, 0.035, 0.038)), ('rubber', (0.07, 0.07, 0.075)),
            ('playmat',), ('playmat',),
        ]
        fl = floors[rng.integers(len(floors))]
        self.floor_kind = fl[0]
        gloss = {'felt': (0.0, 1), 'neoprene': (0.02, 6), 'leather': (0.035, 20), 'wood': (0.04, 60),
                 'cork': (0.0, 1), 'rubber': (0.03, 12), 'playmat': (0.02, 8)}
        self.floor_F0, self.floor_sh = gloss[fl[0]]
        if fl[0] == 'wood' and rng.random() < 0.4:
            self.floor_F0, self.floor_sh = 0.03, 15
        # texture extents = visible region of the z=0 plane (+ margin)
        x0, y0 = self.vis_min - 8
        x1, y1 = self.vis_max + 8
        span = max(x1 - x0, y1 - y0)
        tx = max(0.1, span / 1800)
        self.ftex_origin = np.array([x0, y0])
        self.ftex_tx = tx
        h, w = int((y1 - y0) / tx) + 2, int((x1 - x0) / tx) + 2
        tr = np.random.default_rng(rng.integers(1 << 31))
        if fl[0] == 'playmat':
            self.floor_tex = playmat_texture(tr, h, w, tx)
        else:
            self.floor_tex = surface_texture(tr, fl[0], h, w, tx, fl[1], fl[2] if len(fl) > 2 else None)
        self.floor_mean = self.floor_tex.reshape(-1, 3).mean(0)
        # table outside the tray
        tabs = [('planks', (0.45, 0.30, 0.15), (0.33, 0.20, 0.09)), ('planks', (0.20, 0.10, 0.04), (0.12, 0.06, 0.02)),
                ('laminate', (0.62, 0.62, 0.60)), ('laminate', (0.25, 0.25, 0.26)), ('laminate', (0.55, 0.50, 0.42)),
                ('cloth', (0.40, 0.05, 0.05), (0.6, 0.6, 0.58)), ('cloth', (0.10, 0.18, 0.35), (0.30, 0.40, 0.55))]
        tb = tabs[rng.integers(len(tabs))]
        ttx = max(0.3, span / 900)
        self.ttex_tx = ttx
        self.table_tex = surface_texture(tr, tb[0], int((y1 - y0) / ttx) + 2, int((x1 - x0) / ttx) + 2, ttx,
                                         tb[1], tb[2] if len(tb) > 2 else None)
        self.table_F0, self.table_sh = (0.04, 40) if tb[0] != 'cloth' else (0.0, 1)
        # walls
        wl = [('wood', (0.45, 0.28, 0.13), (0.32, 0.18, 0.07)), ('wood', (0.12, 0.05, 0.02), (0.07, 0.03, 0.01)),
              ('plastic', (0.03, 0.03, 0.03)), ('plastic', (0.35, 0.35, 0.36)), ('leather', (0.10, 0.04, 0.015)),
              ('leather', (0.03, 0.03, 0.03)), ('same',)]
        w_ = wl[rng.integers(len(wl))]
        L = 2 * max(self.A, self.B) + 2 * self.tw + 20
        wtx = max(0.2, L / 1600)
        self.wtex_tx = wtx
        if w_[0] == 'same' and fl[0] != 'playmat':
            self.wall_tex = surface_texture(tr, fl[0], int((self.hw + self.tw + 5) / wtx) + 2, int(L / wtx) + 2, wtx,
                                            fl[1], fl[2] if len(fl) > 2 else None)
            self.wall_F0, self.wall_sh = self.floor_F0, self.floor_sh
        else:
            if w_[0] == 'same':
                w_ = wl[0]
            self.wall_tex = surface_texture(tr, w_[0], int((self.hw + self.tw + 5) / wtx) + 2, int(L / wtx) + 2, wtx,
                                            w_[1], w_[2] if len(w_) > 2 else None)
            self.wall_F0, self.wall_sh = {'wood': (0.04, 40), 'plastic': (0.045, 150), 'leather': (0.035, 20)}[w_[0]]
        self.wall_L = L

    def _sensor(self, rng):
        self.defocus = rng.uniform(0.5, 1.0) if rng.random() < 0.8 else rng.uniform(1.0, 1.4)
        self.motion_p = rng.uniform(0.0, 0.08)
        self.ca = rng.uniform(0.0, 0.0025)
        self.vig = rng.uniform(0.1, 0.55)
        self.ae_bias = 2 ** rng.normal(0, 0.35)
        self.ae_react = rng.uniform(0.2, 0.7)
        self.shot = 10 ** rng.uniform(-3.7, -2.3)
        self.read = 10 ** rng.uniform(-3.6, -2.4)
        self.wb_strength = rng.uniform(0.55, 0.95)
        self.wb_scene = rng.uniform(0.0, 0.3)
        self.wb_err = np.exp(rng.normal(0, 0.05, 3))
        self.gamma = rng.uniform(1.9, 2.5)
        self.contrast = rng.uniform(0.0, 0.5)
        self.black = rng.uniform(0.0, 0.04)
        self.sat = rng.uniform(0.95, 1.35)
        self.sharp_amt = rng.uniform(0.1, 1.3)
        self.sharp_sig = rng.uniform(0.7, 1.6)
        self.jpeg_q = int(rng.uniform(55, 93))
        self.demosaic = int(rng.choice([cv2.COLOR_BayerBG2BGR, cv2.COLOR_BayerBG2BGR_EA]))
        self.nr = rng.random() < 0.3
        n_hot = int(rng.integers(0, 12))
        self.hot = (rng.integers(0, self.H, n_hot), rng.integers(0, self.W, n_hot), rng.uniform(0.2, 1.0, n_hot))
        yy, xx = np.mgrid[0:self.H, 0:self.W].astype(F32)
        r2 = ((xx - self.cx) ** 2 + (yy - self.cy) ** 2) / (self.fx ** 2)
        self.vig_map = ((1.0 / (1.0 + r2)) ** 2 * (1 - self.vig * r2 * 0.5 / max(r2.max(), 1e-6))).astype(F32)
        self.ae_w = np.exp(-(((xx - self.W / 2) / (0.45 * self.W)) ** 2 + ((yy - self.H / 2) / (0.45 * self.H)) ** 2)).astype(F32)

    # ------------------------------------------------------------ background
    def _precompute(self, rng):
        H2, W2 = self.H2, self.W2
        D = self.D
        o = self.C.astype(F32)
        Df = D.reshape(-1, 3)
        n = Df.shape[0]
        with np.errstate(divide='ignore'):
            t = np.where(Df[:, 2] < -1e-6, -o[2] / Df[:, 2], np.inf).astype(F32)
        N = np.zeros((n, 3), F32)
        N[:, 2] = 1
        sid = np.zeros(n, np.uint8)
        for k, (bmin, bmax, nin, h) in enumerate(self.walls):
            tb, ax = ray_box(o, Df, bmin.astype(F32), bmax.astype(F32))
            m = tb < t
            t[m] = tb[m]
            nn = np.zeros((int(m.sum()), 3), F32)
            axm = ax[m]
            nn[np.arange(len(axm)), axm] = -np.sign(Df[m][np.arange(len(axm)), axm])
            N[m] = nn
            inner = (nn @ nin.astype(F32)) > 0.9
            sid[m] = np.where(inner, k + 1, 5)
        P = o + t[:, None] * Df
        onfloor = sid == 0
        tx0, ty0 = self.tray_c
        inside = (np.abs(P[:, 0] - tx0) < self.A) & (np.abs(P[:, 1] - ty0) < self.B)
        sid[onfloor & ~inside] = 6
        self.bg_t = t.reshape(H2, W2)
        self.bg_P = P.reshape(H2, W2, 3).astype(F32)
        self.bg_N = N.reshape(H2, W2, 3)
        self.bg_id = sid.reshape(H2, W2)
        # albedo
        alb = np.zeros((n, 3), F32)
        F0 = np.zeros(n, F32)
        shn = np.ones(n, F32)
        for ids, tex, txx, f0, shh in (((0,), self.floor_tex, self.ftex_tx, self.floor_F0, self.floor_sh),
                                       ((6,), self.table_tex, self.ttex_tx, self.table_F0, self.table_sh)):
            m = np.isin(sid, ids)
            mx = ((P[m, 0] - self.ftex_origin[0]) / txx).astype(F32)
            my = ((P[m, 1] - self.ftex_origin[1]) / txx).astype(F32)
            alb[m] = remap_pts(tex, mx, my, cv2.BORDER_REFLECT)
            F0[m] = f0
            shn[m] = shh
        m = (sid >= 1) & (sid <= 5)
        Pm = P[m]
        Nm = N[m]
        along = np.where(np.abs(Nm[:, 0]) > 0.5, Pm[:, 1], Pm[:, 0]) + self.wall_L / 2
        up = np.where(np.abs(Nm[:, 2]) > 0.5, self.hw + 0.5 * (np.abs(Pm[:, 0] - tx0) - self.A + np.abs(Pm[:, 1] - ty0) - self.B),
                      Pm[:, 2])
        alb[m] = remap_pts(self.wall_tex, (along / self.wtex_tx).astype(F32),
                           (up / self.wtex_tx).astype(F32), cv2.BORDER_REFLECT)
        F0[m] = self.wall_F0
        shn[m] = self.wall_sh
        # static ambient occlusion near walls
        ao = np.ones(n, F32)
        dwall = np.minimum(self.A - np.abs(P[:, 0] - tx0), self.B - np.abs(P[:, 1] - ty0))
        ao = np.where(sid == 0, 1 - 0.45 * np.exp(-np.maximum(dwall, 0) / (0.35 * self.hw)), ao)
        inner = (sid >= 1) & (sid <= 4)
        ao = np.where(inner, 1 - 0.35 * np.exp(-P[:, 2] / (0.3 * self.hw)), ao)
        dout = np.maximum(np.abs(P[:, 0] - tx0) - self.A - self.tw, np.abs(P[:, 1] - ty0) - self.B - self.tw)
        ao = np.where(sid == 6, 1 - 0.35 * np.exp(-np.maximum(dout, 0) / (0.3 * self.hw)), ao)
        hemi = 0.6 + 0.4 * N[:, 2]
        self.amb_rad = (alb * self.amb.astype(F32) * (ao * hemi)[:, None]).reshape(H2, W2, 3).astype(F32)
        self.bg_alb = alb.reshape(H2, W2, 3)
        # wall shadows at 1x resolution
        Ps = self.bg_P[::SS, ::SS].reshape(-1, 3)
        Ns = self.bg_N[::SS, ::SS].reshape(-1, 3)
        self.direct = []
        V = -Df
        for L in self.lights:
            sp = L.shadow_pts
            if len(sp) > 12:
                sp = sp[np.linspace(0, len(sp) - 1, 12).astype(int)]
            vis = np.zeros(len(Ps), F32)
            O = Ps + Ns * 0.05
            for s in sp:
                blocked = np.zeros(len(Ps), bool)
                seg = (s.astype(F32) - O)
                for (bmin, bmax, _, _) in self.walls:
                    blocked |= seg_blocked_box(O, seg, bmin.astype(F32), bmax.astype(F32))
                vis += ~blocked
            vis /= len(sp)
            vis = vis.reshape(self.H, self.W)
            vis = cv2.GaussianBlur(vis, (0, 0), 0.7)
            vis = cv2.resize(vis, (W2, H2), interpolation=cv2.INTER_LINEAR).reshape(-1)
            out = np.zeros((n, 3), F32)
            for a in range(0, n, 65536):
                b = min(n, a + 65536)
                e, l, dist = L.irr(P[a:b], N[a:b])
                tot = e.sum(1)
                rad = alb[a:b] * tot[:, None]
                f0 = F0[a:b]
                if (f0 > 0).any():
                    hv = nrm32(l + V[a:b, None, :])
                    nh = np.clip(dot3(hv, N[a:b, None, :]), 0, 1)
                    vh = np.clip(dot3(hv, V[a:b, None, :]), 0, 1)
                    a2 = 2.0 / (shn[a:b, None] + 2) + (0.5 * L.rad[None] / dist) ** 2
                    she = 2.0 / a2 - 2
                    F = f0[:, None] + (1 - f0[:, None]) * (1 - vh) ** 5
                    spec = (F * (she + 8) / 8 * spec_lobe(nh, a2) * e).sum(1) * (f0 > 0)
                    rad += spec[:, None]
                out[a:b] = rad * L.col.astype(F32)[None] * vis[a:b, None]
            self.direct.append(out.reshape(H2, W2, 3))
        self.static = self.amb_rad + sum(self.direct)
        # irradiance on the floor at the tray centre (for bounce light)
        self.floor_E = sum(L.col * float(L.irr(np.array([[self.tray_c[0], self.tray_c[1], 0]], F32),
                                                np.array([[0, 0, 1]], F32))[0].sum()) for L in self.lights) + self.amb
        # reference exposure and white balance from the empty tray
        lin = cv2.resize(self.static, (self.W, self.H), interpolation=cv2.INTER_AREA) * self.vig_map[..., None]
        lum = lin @ np.array([0.25, 0.6, 0.15], F32)
        m = float((lum * self.ae_w).sum() / self.ae_w.sum())
        self.ref_exp = 0.20 / max(m, 1e-6)
        # highlight protection: a white die in the middle of the tray should not clip
        white = float(np.dot(self.floor_E, [0.25, 0.6, 0.15])) * 0.8
        self.max_exp = 0.72 / max(white, 1e-6)
        self.glare_cap = F32(0.75 * white)
        self.ref_exp = min(self.ref_exp, self.max_exp)
        means = lin.reshape(-1, 3).mean(0)
        gw = means[1] / np.maximum(means, 1e-6)
        ill = self.floor_E / self.floor_E[1]
        # imperfect auto white balance: mostly corrects the illuminant, is pulled a
        # little by the dominant scene colour (grey-world), plus a fixed error
        self.wb = (1.0 / ill) ** self.wb_strength * gw ** self.wb_scene * self.wb_err
        self.wb = np.clip(self.wb / self.wb[1], 0.6, 1.7)
        self.wb /= self.wb[1]
        # receivers for projected shadows: floor plane + inner wall planes
        self.receivers = [(np.array([0, 0, 1.0]), 0.0, (0, 6), None)]
        for k, (bmin, bmax, nin, h) in enumerate(self.walls):
            self.receivers.append((nin, h, (k + 1,), k))

    # ------------------------------------------------------------ placement
    def in_frame(self, die, margin=2.5):
        uv = self.project(die.Vw)
        return (uv[:, 0].min() >= margin and uv[:, 0].max() <= self.W - 1 - margin and
                uv[:, 1].min() >= margin and uv[:, 1].max() <= self.H - 1 - margin)

    def in_tray(self, die):
        p = die.Cw
        return (np.abs(p[:, 0] - self.tray_c[0]).max() <= self.A + 1e-3 and
                np.abs(p[:, 1] - self.tray_c[1]).max() <= self.B + 1e-3)

    def unoccluded(self, die, others):
        pts = die.c + 0.85 * (die.Vw - die.c)
        pts = np.concatenate([pts, die.top_centre[None]])
        seg = (pts - self.C)
        O = np.broadcast_to(self.C, pts.shape)
        for (bmin, bmax, _, _) in self.walls:
            if seg_blocked_box(O, seg, bmin, bmax).any():
                return False
        tcen = die.top_centre
        for o in others:
            ol = (self.C - o.c) @ o.R
            dl = ((tcen - self.C) @ o.R)[None, None, :]
            if seg_blocked_convex(ol[None], dl, o.st.shape.FN, o.st.shape.FH)[0, 0]:
                return False
        return True

    def valid(self, die, others):
        if not self.in_tray(die) or not self.in_frame(die):
            return False
        for o in others:
            if dice_intersect(die, o):
                return False
        return self.unoccluded(die, others) and all(self.unoccluded(o, [die]) for o in others)

    def random_xy(self, rng, margin):
        lo = np.maximum(self.vis_min, self.tray_c - [self.A, self.B]) + margin
        hi = np.minimum(self.vis_max, self.tray_c + [self.A, self.B]) - margin
        if np.any(hi <= lo):
            return None
        return rng.uniform(lo, hi)

    def flat_die(self, st, face_idx, yaw, xy):
        R = rot_z(yaw) @ rot_from_to(st.shape.FN[face_idx], [0, 0, 1])
        c = np.array([xy[0], xy[1], st.shape.FH[face_idx]])
        return Die(st, R, c, False)

    def slide_to_contact(self, die, direction, support, others, span):
        """Move die along +direction (horizontal) from its start until it touches support."""
        lo, hi = 0.0, span
        if dice_intersect(die, support, tol=0.0):
            return None
        if not dice_intersect(die.moved(direction * hi), support, tol=0.0):
            return None
        for _ in range(32):
            mid = 0.5 * (lo + hi)
            if dice_intersect(die.moved(direction * mid), support, tol=0.0):
                hi = mid
            else:
                lo = mid
        return die.moved(direction * lo)

    def cocked_pose(self, st, rng, face_idx):
        sh = st.shape
        R0 = rot_from_to(sh.FN[face_idx], [0, 0, 1])
        bot = int(sh.opp[face_idx])
        loop = sh.faces[bot]
        k = int(rng.integers(len(loop)))
        a, b = R0 @ sh.V[loop[k]], R0 @ sh.V[loop[(k + 1) % len(loop)]]
        m = 0.5 * (a + b)
        fc = R0 @ sh.fcen[bot]
        psi = fc - m
        psi[2] = 0
        psi = nrm(psi)
        # a d12 leaning more than ~31.7 deg would topple over its edge; keep a margin
        lo, hi = (20, 28) if st.kind == 'd12' else (15, 35)
        theta = math.radians(rng.uniform(lo, hi))
        axis = np.cross(psi, [0, 0, 1.0])
        Rt = rot_axis(axis, theta)
        R = Rt @ R0
        c = m - Rt @ m
        zmin = (st.core @ R.T)[:, 2].min() + c[2] - st.r
        c[2] -= zmin
        return R, c, psi

    def place_cocked(self, st, rng, dice):
        face_idx = int(rng.integers(len(st.values)))
        # walls whose inner face is inside the camera view
        walls_ok = []
        for k, (bmin, bmax, nin, h) in enumerate(self.walls):
            ax = 0 if abs(nin[0]) > 0.5 else 1
            pos = h * nin[ax]
            if self.vis_min[ax] + st.size < pos < self.vis_max[ax] - st.size:
                walls_ok.append(k)
        supports = [d for d in dice if not d.tilted]
        if not supports and not walls_ok:
            return None
        for attempt in range(30):
            R, c, psi = self.cocked_pose(st, rng, face_idx)
            use_wall = walls_ok and ((not supports) or rng.random() < 0.4)
            if use_wall:
                k = int(rng.choice(walls_ok))
                bmin, bmax, nin, h = self.walls[k]
                target = -nin
                ang = math.atan2(target[1], target[0]) - math.atan2(psi[1], psi[0]) + math.radians(rng.uniform(-8, 8))
                Rz = rot_z(ang)
                R2 = Rz @ R
                c2 = Rz @ c
                psi2 = Rz @ psi
                core = c2 + st.core @ R2.T
                ext = (core @ target).max() + st.r   # rounded extreme towards the wall
                wall_pos = -h  # target . x at the wall plane
                xy = self.random_xy(rng, st.size * 0.8)
                if xy is None:
                    continue
                p = np.array([xy[0], xy[1], 0.0])
                p = p - target * (p @ target)  # component along the wall only
                shift = target * (wall_pos - ext) + p
                shift[2] = 0
                die = Die(st, R2, c2 + shift, True)
            else:
                sup = supports[int(rng.integers(len(supports)))]
                fn = sup.fnw
                side = [i for i in range(len(fn)) if abs(fn[i, 2]) < 0.9]
                hdir = fn[side[int(rng.integers(len(side)))]].copy()
                hdir[2] = 0
                hdir = nrm(hdir)
                target = -hdir
                ang = math.atan2(target[1], target[0]) - math.atan2(psi[1], psi[0]) + math.radians(rng.uniform(-6, 6))
                Rz = rot_z(ang)
                R2 = Rz @ R
                c2 = Rz @ c
                psi2 = Rz @ psi
                far = 2.2 * (sup.bound + st.size)
                perp = np.array([-psi2[1], psi2[0], 0])
                start = sup.c.copy()
                start[2] = 0
                start = start - psi2 * far + perp * rng.uniform(-0.25, 0.25) * min(st.size, sup.st.size)
                die0 = Die(st, R2, c2 - np.array([c2[0], c2[1], 0]) + np.array([start[0], start[1], 0]), True)
                die = self.slide_to_contact(die0, np.array([psi2[0], psi2[1], 0]), sup, dice, far)
                if die is None:
                    continue
            if self.valid(die, dice):
                return die
        return None

    def place_flat(self, st, rng, dice, face_idx=None, touch_p=0.3):
        if face_idx is None:
            face_idx = int(rng.integers(len(st.values)))
        for attempt in range(60):
            yaw = rng.uniform(0, 2 * np.pi)
            if dice and rng.random() < touch_p:
                sup = dice[int(rng.integers(len(dice)))]
                ang = rng.uniform(0, 2 * np.pi)
                dvec = np.array([math.cos(ang), math.sin(ang), 0])
                far = 2.2 * (sup.bound + st.size)
                start = sup.c[:2] + dvec[:2] * far
                d0 = self.flat_die(st, face_idx, yaw, start)
                die = self.slide_to_contact(d0, -dvec, sup, dice, far)
                if die is None:
                    continue
            else:
                xy = self.random_xy(rng, st.size * 0.55)
                if xy is None:
                    return None
                die = self.flat_die(st, face_idx, yaw, xy)
            if self.valid(die, dice):
                return die
        return None

    # ------------------------------------------------------------ rendering
    def ss_bbox(self, pts, pad=3):
        uv = self.project(pts) * SS + (SS - 1) / 2.0
        x0 = int(max(0, math.floor(uv[:, 0].min()) - pad))
        y0 = int(max(0, math.floor(uv[:, 1].min()) - pad))
        x1 = int(min(self.W2, math.ceil(uv[:, 0].max()) + pad + 1))
        y1 = int(min(self.H2, math.ceil(uv[:, 1].max()) + pad + 1))
        return x0, y0, x1, y1

    def shadow_polys(self, die, L, rec):
        """Screen-space (SS px) polygons of die's shadow from each light sample onto receiver plane."""
        pn, ph, ids, wk = rec
        Ls = L.shadow_pts
        side = Ls @ pn - ph
        V = die.Cw
        out = []
        if (side <= 1e-6).all():
            return out
        Dv = V[None, :, :] - Ls[:, None, :]             # S,nv,3
        den = Dv @ pn                                    # S,nv
        num = (ph - Ls @ pn)[:, None]
        with np.errstate(divide='ignore', invalid='ignore'):
            t = num / den
        ok = (side > 1e-6) & (den < -1e-9).all(1) & (t >= 1 - 1e-6).all(1) & (t < 60).all(1)
        if not ok.any():
            return out
        X = Ls[:, None, :] + t[..., None] * Dv           # S,nv,3
        a1 = nrm(np.cross(pn, [0.3, 0.2, 0.9]) if abs(pn[2]) < 0.9 else np.cross(pn, [1.0, 0, 0]))
        a2 = np.cross(pn, a1)
        if wk is not None:
            bmin, bmax, _, _ = self.walls[wk]
        hulls = []
        for s in np.where(ok)[0]:
            Xs = X[s]
            if wk is not None and (Xs[:, 2].min() > self.hw or Xs[:, 2].max() < 0):
                continue
            p2 = np.stack([Xs @ a1, Xs @ a2], 1).astype(F32)
            hi = cv2.convexHull(p2, returnPoints=False).reshape(-1)
            hp = Xs[hi]
            nxt = np.roll(hp, -1, 0)
            dens = np.concatenate([hp[:, None] * (1 - w) + nxt[:, None] * w for w in (0.0, 0.34, 0.67)], 1)
            hulls.append(dens.reshape(-1, 3))
        if not hulls:
            return out
        allp = np.concatenate(hulls)
        uv = self.project(allp) * SS + (SS - 1) / 2.0
        k = 0
        for h in hulls:
            out.append(uv[k:k + len(h)])
            k += len(h)
        return out

    def render(self, dice, rng, flicker=0.0, motion=False):
        rad = self.static.copy()
        if dice:
            self._render_dice(rad, dice, rng)
        return self.develop(rad, rng, flicker, motion)

    def _render_dice(self, rad, dice, rng):
        H2, W2 = self.H2, self.W2
        zbuf = self.bg_t.copy()
        owner = np.full((H2, W2), -1, np.int16)
        recs = []
        Cf = self.C.astype(F32)
        for i, d in enumerate(dice):
            x0, y0, x1, y1 = self.ss_bbox(d.Vw)
            Rf = d.R.astype(F32)
            dl = self.D[y0:y1, x0:x1].reshape(-1, 3) @ Rf
            ol = ((self.C - d.c) @ d.R).astype(F32)
            t = ray_convex(ol, dl, d.st.PN, d.st.PH).reshape(y1 - y0, x1 - x0)
            zr = zbuf[y0:y1, x0:x1]
            m = t < zr
            zr[m] = t[m]
            owner[y0:y1, x0:x1][m] = i
            recs.append((x0, y0, x1, y1, t, ol, dl))
        # ---- shadows and occlusion on the background
        jobs = []
        boxes = []
        for i, d in enumerate(dice):
            for li, L in enumerate(self.lights):
                for rec in self.receivers:
                    if rec[3] is not None:
                        # only walls close enough to catch this die's shadow
                        dist = d.c @ rec[0] - rec[1]
                        if dist > 6 * d.st.size + self.hw:
                            continue
                    polys = self.shadow_polys(d, L, rec)
                    if not polys:
                        continue
                    allp = np.concatenate(polys)
                    bx = (int(max(0, allp[:, 0].min() - 4)), int(max(0, allp[:, 1].min() - 4)),
                          int(min(W2, allp[:, 0].max() + 5)), int(min(H2, allp[:, 1].max() + 5)))
                    if bx[2] <= bx[0] or bx[3] <= bx[1]:
                        continue
                    jobs.append(('sh', i, li, rec, polys, bx, len(L.shadow_pts)))
                    boxes.append(bx)
            ring = d.c + np.array([[math.cos(a) * 1.5 * d.st.size, math.sin(a) * 1.5 * d.st.size, 0]
                                   for a in np.linspace(0, 2 * np.pi, 12, endpoint=False)])
            ring[:, 2] = 0
            bx = self.ss_bbox(np.concatenate([ring, d.Vw]), pad=4)
            jobs.append(('ao', i, bx))
            boxes.append(bx)
        bx = np.array(boxes)
        rx0, ry0 = int(bx[:, 0].min()), int(bx[:, 1].min())
        rx1, ry1 = int(bx[:, 2].max()), int(bx[:, 3].max())
        rh, rw = ry1 - ry0, rx1 - rx0
        vis = [np.ones((rh, rw, 3), F32) for _ in self.lights]
        ao_amb = np.ones((rh, rw), F32)
        ao_dir = np.ones((rh, rw), F32)
        ids = self.bg_id[ry0:ry1, rx0:rx1]
        for job in jobs:
            if job[0] == 'sh':
                _, i, li, rec, polys, (x0, y0, x1, y1), S = job
                acc = np.zeros((y1 - y0, x1 - x0), F32)
                tmp = np.zeros((y1 - y0, x1 - x0), np.uint8)
                for p in polys:
                    tmp.fill(0)
                    q = np.round((p - [x0, y0]) * 16).astype(np.int32)
                    cv2.fillPoly(tmp, [q], 1, lineType=cv2.LINE_8, shift=4)
                    cv2.accumulate(tmp, acc)
                cov = cv2.GaussianBlur(acc / S, (0, 0), 1.1)
                msk = np.isin(ids[y0 - ry0:y1 - ry0, x0 - rx0:x1 - rx0], rec[2])
                T = dice[i].st.T.astype(F32)
                f = 1 - (cov * msk)[..., None] * (1 - T)[None, None]
                vis[li][y0 - ry0:y1 - ry0, x0 - rx0:x1 - rx0] *= f
            else:
                _, i, (x0, y0, x1, y1) = job
                d = dice[i]
                P = self.bg_P[y0:y1, x0:x1].reshape(-1, 3)
                N = self.bg_N[y0:y1, x0:x1].reshape(-1, 3)
                vec = d.c.astype(F32) - P
                dist = np.sqrt(dot3(vec, vec)) + 1e-3
                Rs = 0.62 * d.st.size
                occ_s = np.clip(dot3(vec, N) / dist, 0, 1) * np.minimum((Rs / dist) ** 2, 1.0) * 0.85
                Pl = (P - d.c.astype(F32)) @ d.R.astype(F32)
                dd = np.maximum((Pl @ d.st.FN.T - d.st.FH).max(1), 0)
                occ_c = np.exp(-dd / (0.06 * d.st.size))
                occ = np.clip(occ_s + 0.55 * occ_c, 0, 0.92).reshape(y1 - y0, x1 - x0)
                sl = (slice(y0 - ry0, y1 - ry0), slice(x0 - rx0, x1 - rx0))
                ao_amb[sl] *= 1 - occ
                ao_dir[sl] *= 1 - 0.45 * occ_c.reshape(y1 - y0, x1 - x0) - 0.15 * occ
        reg = self.amb_rad[ry0:ry1, rx0:rx1] * ao_amb[..., None]
        for li in range(len(self.lights)):
            reg = reg + self.direct[li][ry0:ry1, rx0:rx1] * vis[li] * ao_dir[..., None]
        rad[ry0:ry1, rx0:rx1] = reg
        # ---- dice
        for i, d in enumerate(dice):
            x0, y0, x1, y1, t, ol, dl = recs[i]
            own = owner[y0:y1, x0:x1] == i
            if not own.any():
                continue
            fl = own.reshape(-1)
            col = self.shade_die(i, d, dice, t.reshape(-1)[fl], ol, dl[fl],
                                 self.D[y0:y1, x0:x1].reshape(-1, 3)[fl])
            rad[y0:y1, x0:x1][own] = col

    def die_visibility(self, i, d, dice, Pw, Nw, L):
        K = len(L.pts)
        n = len(Pw)
        vis = np.ones((n, K), bool)
        O = Pw + Nw * 0.03
        seg = L.pts.astype(F32)[None] - O[:, None, :]
        lc = L.centre
        for j, dj in enumerate(dice):
            if j == i:
                continue
            # cull: does the segment die i -> light pass near die j?
            a = d.c
            bvec = lc - a
            tt = np.clip((dj.c - a) @ bvec / (bvec @ bvec), 0, 1)
            dist = np.linalg.norm(a + tt * bvec - dj.c)
            spread = L.extent * np.linalg.norm(dj.c - a) / max(np.linalg.norm(bvec), 1)
            if dist > d.bound + dj.bound + spread + 1:
                continue
            Rf = dj.R.astype(F32)
            ol = (O - dj.c.astype(F32)) @ Rf
            dl = seg @ Rf
            vis &= ~seg_blocked_convex(ol, dl, dj.st.FN, dj.st.FH)
        segc = L.pts - d.c
        for (bmin, bmax, _, _) in self.walls:
            # conservative cull: segments from the die centre vs the box grown by the die radius
            if not seg_blocked_box(np.broadcast_to(d.c, segc.shape), segc, bmin - d.bound, bmax + d.bound).any():
                continue
            vis &= ~seg_blocked_box(O[:, None, :], seg, bmin.astype(F32), bmax.astype(F32))
        return vis.astype(F32)

    def body_albedo(self, st, Pl):
        if st.marble:
            field = np.zeros(len(Pl), F32)
            for k in range(len(st.waves)):
                field += np.sin(Pl @ st.waves[k].astype(F32) + st.phase[k]) / (k + 1)
            tt = (0.5 + 0.5 * np.sin(Pl @ st.marble_w.astype(F32) + 2.2 * field)) ** st.marble_pow
            return (st.col1[None] * (1 - tt[:, None]) + st.col2[None] * tt[:, None]).astype(F32)
        alb = np.broadcast_to(st.col1.astype(F32), (len(Pl), 3)).copy()
        if st.speckle:
            ci = (np.floor(Pl / st.sp_cell).astype(np.int64) + 4096).astype(np.uint64)
            h = (ci[:, 0] * np.uint64(0x9E3779B97F4A7C15)) ^ (ci[:, 1] * np.uint64(0xC2B2AE3D27D4EB4F)) \
                ^ (ci[:, 2] * np.uint64(0x165667B19E3779F9))
            h ^= h >> np.uint64(29)
            h *= np.uint64(0xBF58476D1CE4E5B9)
            h ^= h >> np.uint64(32)
            sp = ((h & np.uint64(0xFFFF)).astype(F32) / 65535.0) > 1 - st.sp_density
            alb[sp] = st.sp_col
        return alb

    def shade_die(self, i, d, dice, t, ol, dl, Dw):
        st = d.st
        n = len(t)
        Pl = ol[None] + t[:, None] * dl
        dist = Pl @ st.FN.T - st.FH
        fid = dist.argmax(1)
        tau = max(st.r / 3.0, 0.03)
        w = np.exp((dist - dist.max(1, keepdims=True)) / tau)
        Nl = nrm32(w @ st.FN)
        fu = st.Fu[fid]
        fv = st.Fv[fid]
        rho = st.rho[fid]
        U = dot3(Pl, fu) / rho
        V = dot3(Pl, fv) / rho
        out = (np.abs(U) > 1) | (np.abs(V) > 1)
        mx = TPAD + (U + 1) / 2 * TEX - 0.5
        my = fid * st.tile + TPAD + (1 - V) / 2 * TEX - 0.5
        mx[out] = -100
        tex = remap_pts(st.atlas, mx.astype(F32), my.astype(F32))
        mask = np.clip(tex[:, 0], 0, 1)
        if st.engraved:
            Nl = nrm32(Nl + (tex[:, 1] / rho)[:, None] * fu + (tex[:, 2] / rho)[:, None] * fv)
        Rf = d.R.astype(F32)
        Nw = Nl @ Rf.T
        Pw = self.C.astype(F32) + t[:, None] * Dw
        Vv = -Dw
        alb = self.body_albedo(st, Pl)
        ink = np.broadcast_to(st.ink.astype(F32), (n, 3))
        if st.red_one_face >= 0:
            ink = np.where((fid == st.red_one_face)[:, None], np.array(INK['red'], F32), ink)
        alb = alb * (1 - mask[:, None]) + ink * mask[:, None]
        cav = 1 - 0.5 * tex[:, 3] if st.engraved else np.ones(n, F32)
        F0 = (st.F0 + mask * ((0.5 if st.ink_metal else 0.03) - st.F0)).astype(F32)
        shn = np.where(mask > 0.5, 60.0 if st.ink_metal else min(st.sh, 40), st.sh).astype(F32)
        metal_tint = np.where((mask > 0.5)[:, None] & st.ink_metal, st.ink.astype(F32) / max(st.ink.max(), 1e-3), 1.0)
        # occlusion: floor and neighbours
        z = Pw[:, 2]
        ao = 1 - 0.55 * np.exp(-z / (0.10 * st.size)) * np.clip(0.6 - 0.6 * Nw[:, 2], 0, 1)
        for j, dj in enumerate(dice):
            if j == i or np.linalg.norm(dj.c - d.c) > 2.5 * (d.bound + dj.bound):
                continue
            vec = dj.c.astype(F32) - Pw
            dd = np.sqrt(dot3(vec, vec)) + 1e-3
            Rs = 0.62 * dj.st.size
            ao *= 1 - np.clip(dot3(vec, Nw) / dd, 0, 1) * np.minimum((Rs / dd) ** 2, 1) * 0.8
        ao = (ao * cav).astype(F32)
        diff = np.zeros((n, 3), F32)
        spec = np.zeros((n, 3), F32)
        wrap = 0.45 if st.translucent else 0.0
        for L in self.lights:
            e, l, dist_l = L.irr(Pw, Nw, wrap)
            vis = self.die_visibility(i, d, dice, Pw, Nw, L)
            ev = e * vis
            diff += ev.sum(1)[:, None] * L.col.astype(F32)[None]
            hv = nrm32(l + Vv[:, None, :])
            nh = np.clip(dot3(hv, Nw[:, None, :]), 0, 1)
            vh = np.clip(dot3(hv, Vv[:, None, :]), 0, 1)
            a2 = 2.0 / (shn[:, None] + 2) + (0.5 * L.rad[None] / dist_l) ** 2
            she = 2.0 / a2 - 2
            Fr = F0[:, None] + (1 - F0[:, None]) * (1 - vh) ** 5
            s = (Fr * (she + 8) / 8 * spec_lobe(nh, a2) * ev).sum(1)
            spec += s[:, None] * L.col.astype(F32)[None]
        ndv = np.clip(dot3(Nw, Vv), 0, 1)
        Fv = F0 + (1 - F0) * (1 - ndv) ** 5
        Rr = 2 * ndv[:, None] * Nw - Vv
        th = np.arccos(np.clip(Rr[:, 2], -1, 1))
        ph = np.arctan2(Rr[:, 1], Rr[:, 0])
        He, We = self.env.shape[:2]
        ex = ((ph + np.pi) / (2 * np.pi) * We - 0.5).astype(F32)
        ey = (th / np.pi * He - 0.5).astype(F32)
        envimg = self.env if st.sh > 200 else self.env_blur
        envc = remap_pts(envimg, ex, ey, cv2.BORDER_REFLECT)
        # reflections of the floor for downward facing reflections
        envc = np.where((Rr[:, 2] < 0)[:, None], self.floor_mean[None] * self.floor_E[None] * 0.6, envc)
        amb = self.amb.astype(F32)[None] * (0.55 + 0.45 * Nw[:, 2])[:, None]
        bounce = (self.floor_mean * self.floor_E).astype(F32)[None] * (0.5 * np.clip(0.5 - 0.5 * Nw[:, 2], 0, 1))[:, None]
        col = alb * (diff + (amb + bounce) * ao[:, None])
        if st.translucent:
            col += alb * (self.floor_E.astype(F32)[None] * 0.22) * ao[:, None]
        # soft cap on direct-light glare so that lamps cannot wipe out a face
        cap = self.glare_cap
        spec = cap * (1 - np.exp(-spec / cap))
        col += spec * metal_tint
        col += (Fv * st.envk)[:, None] * envc * ao[:, None] * metal_tint
        return col.astype(F32)

    # ------------------------------------------------------------ camera
    def develop(self, rad_ss, rng, flicker=0.0, motion=False):
        W, H = self.W, self.H
        img = cv2.resize(rad_ss, (W, H), interpolation=cv2.INTER_AREA)
        if self.defocus > 0.05:
            img = cv2.GaussianBlur(img, (0, 0), self.defocus)
        if motion:
            L = rng.uniform(2.0, 5.0)
            ang = rng.uniform(0, np.pi)
            k = np.zeros((15, 15), F32)
            cv2.line(k, (int(round(7 - L / 2 * math.cos(ang))), int(round(7 - L / 2 * math.sin(ang)))),
                     (int(round(7 + L / 2 * math.cos(ang))), int(round(7 + L / 2 * math.sin(ang)))), 1.0, 1, cv2.LINE_AA)
            img = cv2.filter2D(img, -1, k / k.sum())
        if self.ca > 0:
            for ch, s in ((0, 1 + self.ca), (2, 1 - self.ca)):
                M = np.array([[s, 0, (1 - s) * self.cx], [0, s, (1 - s) * self.cy]], F32)
                img[..., ch] = cv2.warpAffine(np.ascontiguousarray(img[..., ch]), M, (W, H), flags=cv2.INTER_LINEAR,
                                              borderMode=cv2.BORDER_REFLECT)
        img *= self.vig_map[..., None]
        lum = img @ np.array([0.25, 0.6, 0.15], F32)
        m = float((lum * self.ae_w).sum() / self.ae_w.sum())
        e_img = 0.20 / max(m, 1e-6)
        e = self.ref_exp ** (1 - self.ae_react) * min(e_img, self.max_exp) ** self.ae_react
        e = min(e * self.ae_bias, self.max_exp * 1.15) * (1 + flicker)
        img *= e
        # sensor: RGGB mosaic, shot + read noise, hot pixels
        raw = np.empty((H, W), F32)
        raw[0::2, 0::2] = img[0::2, 0::2, 0]
        raw[0::2, 1::2] = img[0::2, 1::2, 1]
        raw[1::2, 0::2] = img[1::2, 0::2, 1]
        raw[1::2, 1::2] = img[1::2, 1::2, 2]
        sig = np.sqrt(np.maximum(raw, 0) * self.shot + self.read ** 2)
        raw = raw + rng.standard_normal((H, W)).astype(F32) * sig
        raw += (rng.standard_normal((H, 1)).astype(F32) * self.read * 0.3)
        hy, hx, hv = self.hot
        raw[hy, hx] += hv
        raw16 = (np.clip(raw, 0, 1) * 65535).astype(np.uint16)
        bgr = cv2.cvtColor(raw16, self.demosaic).astype(F32) / 65535.0
        img = bgr[..., ::-1] * self.wb.astype(F32)[None, None]
        if self.nr:
            img = cv2.bilateralFilter(np.ascontiguousarray(img), 5, 0.04, 2.0)
        lum = img @ np.array([0.2126, 0.7152, 0.0722], F32)
        img = lum[..., None] + self.sat * (img - lum[..., None])
        img = np.maximum(img, 0)
        img = np.where(img < 0.7, img, 0.7 + 0.3 * (1 - np.exp(-(img - 0.7) / 0.3)))  # soft shoulder
        y = np.clip(img, 0, 1) ** (1 / self.gamma)
        y = (1 - self.contrast) * y + self.contrast * (y * y * (3 - 2 * y))
        y = np.clip((y - self.black) / (1 - self.black), 0, 1)
        bl = cv2.GaussianBlur(y, (0, 0), self.sharp_sig)
        y = y + self.sharp_amt * (y - bl)
        out = np.clip(y * 255 + 0.5, 0, 255).astype(np.uint8)[..., ::-1]
        q = int(np.clip(self.jpeg_q + rng.integers(-3, 4), 40, 97))
        ok, enc = cv2.imencode('.jpg', np.ascontiguousarray(out), [cv2.IMWRITE_JPEG_QUALITY, q])
        return cv2.imdecode(enc, cv2.IMREAD_COLOR)

    # ------------------------------------------------------------ scenes
    def tray_dice(self, rng):
        n = int(rng.integers(1, 9))
        plan = [(self.styles[int(rng.integers(len(self.styles)))], rng.random() < 0.15) for _ in range(n)]
        plan.sort(key=lambda p: p[1])
        dice = []
        for st, cocked in plan:
            die = None
            if cocked:
                die = self.place_cocked(st, rng, dice)
            if die is None:
                die = self.place_flat(st, rng, dice)
            if die is not None:
                dice.append(die)
        order = rng.permutation(len(dice))
        return [dice[k] for k in order]


# ----------------------------------------------------------------------------
# main
# ----------------------------------------------------------------------------

def truth_entry(tower, d):
    uv = tower.project(d.top_centre[None])[0]
    return {"kind": d.st.kind, "colour": d.st.colour, "face": d.face,
            "x": round(float(uv[0]), 2), "y": round(float(uv[1]), 2), "tilted": bool(d.tilted)}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('out')
    ap.add_argument('--seed', type=int, required=True)
    ap.add_argument('--trays', type=int, default=80)
    ap.add_argument('--width', type=int, default=640)
    ap.add_argument('--height', type=int, default=480)
    ap.add_argument('--quiet', action='store_true')
    a = ap.parse_args(argv)
    t0 = time.time()
    tower = Tower(a.seed, a.width, a.height)
    t1 = time.time()
    out = a.out
    os.makedirs(os.path.join(out, 'empty'), exist_ok=True)
    os.makedirs(os.path.join(out, 'trays'), exist_ok=True)
    for k in range(1, 4):
        rng = np.random.default_rng([a.seed, 1, k])
        img = tower.render([], rng, flicker=rng.normal(0, 0.012))
        cv2.imwrite(os.path.join(out, 'empty', 'empty-%d.png' % k), img)
    for si, st in enumerate(tower.styles):
        d = os.path.join(out, 'teach', st.kind, st.colour)
        os.makedirs(d, exist_ok=True)
        for fi, val in enumerate(st.values):
            for k in range(1, 4):
                rng = np.random.default_rng([a.seed, 2, si, fi, k])
                die = tower.place_flat(st, rng, [], face_idx=fi)
                if die is None:
                    raise RuntimeError('could not place a teach die')
                img = tower.render([die], rng, flicker=rng.normal(0, 0.008))
                cv2.imwrite(os.path.join(d, '%s-%d.png' % (val, k)), img)
    t2 = time.time()
    truth = {"seed": a.seed, "size": [a.width, a.height], "trays": {}}
    for k in range(1, a.trays + 1):
        rng = np.random.default_rng([a.seed, 3, k])
        dice = tower.tray_dice(rng)
        motion = rng.random() < tower.motion_p
        img = tower.render(dice, rng, flicker=rng.normal(0, 0.008), motion=motion)
        name = 'tray-%04d.png' % k
        cv2.imwrite(os.path.join(out, 'trays', name), img)
        truth["trays"][name] = [truth_entry(tower, d) for d in dice]
    with open(os.path.join(out, 'truth.json'), 'w') as f:
        json.dump(truth, f, indent=1)
    t3 = time.time()
    if not a.quiet:
        print('seed %d: setup %.1fs, empty+teach %.1fs, %d trays %.1fs, total %.1fs | light=%s floor=%s '
              'cam h=%.0fmm tilt=%.1f f=%.0f k1=%.3f sizes=%s styles=%s' % (
                  a.seed, t1 - t0, t2 - t1, a.trays, t3 - t2, t3 - t0, tower.setup, tower.floor_kind,
                  tower.cam_height, tower.tilt, tower.fx, tower.k1,
                  {k: round(v, 1) for k, v in tower.size.items()},
                  ['%s/%s' % (s.kind, s.colour) for s in tower.styles]))


if __name__ == '__main__':
    main()
