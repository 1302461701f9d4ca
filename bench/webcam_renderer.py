#!/usr/bin/env python3
"""Independent synthetic test-data renderer: cheap USB webcam, oblique view, pip dice on a desk.

Usage
-----
    python bench/webcam_renderer.py OUT_DIR --seed N --images K [--width 640 --height 480]

Writes OUT_DIR/img-0001.jpg ... and OUT_DIR/truth.json::

    {"seed": N, "size": [W, H], "images": {"img-0001.jpg": [
        {"face": "4", "x": 312.5, "y": 220.1, "tilted": false, "colour": "ivory",
         "box": [290.1, 195.0, 336.8, 248.3]}, ...], ...}}

face    number of pips on the face pointing most upward ("1".."6")
x, y    image position (output pixels) of the centre of that face, projected through the
        camera including its lens distortion.  Pixel centres are at integer coordinates
        (the centre of the top-left pixel is (0, 0)).
tilted  true for "cocked" dice (leaning on another die or on an object, 15-40 deg)
colour  body colour of the die: ivory, white, red, black, blue or green
box     the die's outline's bounding box (x0, y0, x1, y1): its eight corners projected (added
        2026-12-01 for learning from its images; the corners of a rounded die, so a little
        larger than its outline)

Only dice that are fully inside the frame, whose silhouette and whose top face are each
at least two thirds visible are listed (placement already avoids most other cases).

Model (all parameters drawn from the seed; one seed = one "setup")
-----------------------------------------------------------------
* camera: pinhole + radial distortion (k1, k2), diagonal FOV 55-78 deg, 25-65 deg elevation
  (--elevation: another range),
  25-60 cm from the dice, slight roll, principal point offset, fixed-focus or autofocus
  defocus (depth dependent), lens softness, vignetting, lateral chromatic aberration,
  optional camera-shake motion blur, auto exposure with error and gain-dependent noise
  (shot + read, correlated chroma noise), grey-world auto white balance with residual
  cast, saturation, tone curve with black lift, unsharp-mask sharpening (halos), chroma
  blur and JPEG compression.
* scene: procedural desk textures evaluated in world coordinates (wood, laminate, painted,
  paper sheet on a desk, cutting mat, felt/cloth, dark gaming mat), desk back edge with
  floor and wall behind it, pencils and erasers/blocks as clutter and as supports.
* dice: rounded cubes (14-19 mm), true spherical pip dimples (ray traced), right-handed
  standard layout (1-2-3 counter-clockwise around their corner, opposite faces sum to 7),
  oriented 2/3/6 layouts, plastic shading (wrap diffuse, Blinn-Phong + Fresnel,
  environment reflection), pip ambient occlusion and rim self-shadowing.
* light: ceiling panel, desk lamp (spot, 1/r^2) or window (directional area light / sun),
  optional second light, hemispherical ambient, colour temperatures, soft ray-marched
  shadows (penumbra from light size), contact shadows / ambient occlusion.
Rendering is 2x supersampled (configurable with --ss).

Only numpy and OpenCV are used.
"""
import argparse
import itertools
import json
import math
import os
import sys
import time

import cv2
import numpy as np

try:
    cv2.setNumThreads(1)
except Exception:  # pragma: no cover
    pass

LUM = np.array([0.2126, 0.7152, 0.0722])
EZ = np.array([0.0, 0.0, 1.0])
SIGNS = np.array(list(itertools.product([-1.0, 1.0], repeat=3)))


# --------------------------------------------------------------------------- small helpers
def nrm(v):
    n = np.sqrt((v * v).sum(-1, keepdims=True))
    return v / np.maximum(n, 1e-12)


def smoothstep(e0, e1, x):
    t = np.clip((x - e0) / (e1 - e0), 0.0, 1.0)
    return t * t * (3.0 - 2.0 * t)


def rot_axis(axis, ang):
    a = np.asarray(axis, float)
    a = a / np.linalg.norm(a)
    x, y, z = a
    c, s = math.cos(ang), math.sin(ang)
    C = 1.0 - c
    return np.array([[c + x * x * C, x * y * C - z * s, x * z * C + y * s],
                     [y * x * C + z * s, c + y * y * C, y * z * C - x * s],
                     [z * x * C - y * s, z * y * C + x * s, c + z * z * C]])


def rot_z(a):
    return rot_axis(EZ, a)


def cct_rgb(T):
    """Linear sRGB colour (luminance 1) of a black body at T kelvin (Kim et al. fit)."""
    T = float(np.clip(T, 1700.0, 20000.0))
    if T <= 4000:
        x = -0.2661239e9 / T ** 3 - 0.2343589e6 / T ** 2 + 0.8776956e3 / T + 0.179910
    else:
        x = -3.0258469e9 / T ** 3 + 2.1070379e6 / T ** 2 + 0.2226347e3 / T + 0.240390
    if T <= 2222:
        y = -1.1063814 * x ** 3 - 1.34811020 * x ** 2 + 2.18555832 * x - 0.20219683
    elif T <= 4000:
        y = -0.9549476 * x ** 3 - 1.37418593 * x ** 2 + 2.09137015 * x - 0.16748867
    else:
        y = 3.0817580 * x ** 3 - 5.87338670 * x ** 2 + 3.75112997 * x - 0.37001483
    XYZ = np.array([x / y, 1.0, (1.0 - x - y) / y])
    M = np.array([[3.2406, -1.5372, -0.4986], [-0.9689, 1.8758, 0.0415], [0.0557, -0.2040, 1.0570]])
    rgb = np.maximum(M @ XYZ, 0.02)
    return rgb / float(rgb @ LUM)


# --------------------------------------------------------------------------- procedural noise
def _hash(ix, iy, seed):
    h = (ix.astype(np.int64).astype(np.uint32) * np.uint32(0x27D4EB2D)) ^ \
        (iy.astype(np.int64).astype(np.uint32) * np.uint32(0x165667B1)) ^ np.uint32(seed & 0xFFFFFFFF)
    h = h ^ (h >> np.uint32(15))
    h = h * np.uint32(0x2C1B3C6D)
    h = h ^ (h >> np.uint32(12))
    h = h * np.uint32(0x297A2D39)
    h = h ^ (h >> np.uint32(15))
    return h.astype(np.float32) * np.float32(2.0 ** -32)


def hash1(i, seed):
    i = np.asarray(i)
    return _hash(i, np.zeros_like(i), seed)


def vnoise(x, y, seed):
    xf = np.floor(x)
    yf = np.floor(y)
    fx = (x - xf).astype(np.float32)
    fy = (y - yf).astype(np.float32)
    xi = xf.astype(np.int64)
    yi = yf.astype(np.int64)
    u = fx * fx * (3 - 2 * fx)
    v = fy * fy * (3 - 2 * fy)
    a = _hash(xi, yi, seed)
    b = _hash(xi + 1, yi, seed)
    c = _hash(xi, yi + 1, seed)
    d = _hash(xi + 1, yi + 1, seed)
    ab = a + (b - a) * u
    cd = c + (d - c) * u
    return ab + (cd - ab) * v


def fbm(x, y, seed, octaves=4, fp=None, gain=0.5, lac=2.03):
    """Fractal value noise in [0,1] (mean 0.5).  fp = pixel footprint in noise units;
    octaves finer than the pixel are faded to their mean (anti-aliasing)."""
    tot = 0.0
    norm = 0.0
    amp = 1.0
    f = 1.0
    for o in range(octaves):
        n = vnoise(x * f + 17.31 * o, y * f - 9.17 * o, seed + 1013 * o)
        if fp is not None:
            w = fp * f
            fade = np.clip((0.6 - w) / 0.35, 0.0, 1.0).astype(np.float32)
            n = 0.5 + (n - 0.5) * fade
        tot = tot + amp * n
        norm += amp
        amp *= gain
        f *= lac
    return tot / norm


def line_cov(x, period, width, fp):
    """Box-filtered coverage of lines of given width centred on multiples of period."""
    fp = np.maximum(fp, 1e-9)

    def F(z):
        zz = z + width / 2.0
        k = np.floor(zz / period)
        return k * width + np.minimum(zz - k * period, width)

    return np.clip((F(x + fp / 2) - F(x - fp / 2)) / fp, 0.0, 1.0)


def fp_dir(G, ca, sa):
    dXu, dYu, dXv, dYv = G
    return np.abs(dXu * ca + dYu * sa) + np.abs(dXv * ca + dYv * sa)


# --------------------------------------------------------------------------- desk textures
WOOD_PALETTES = [
    ((0.52, 0.36, 0.19), (0.30, 0.17, 0.07)),     # oak
    ((0.62, 0.46, 0.27), (0.42, 0.26, 0.11)),     # pine
    ((0.20, 0.11, 0.055), (0.085, 0.045, 0.022)),  # walnut
    ((0.42, 0.19, 0.085), (0.22, 0.085, 0.035)),  # cherry
    ((0.44, 0.41, 0.37), (0.26, 0.23, 0.20)),     # grey wash
    ((0.60, 0.50, 0.36), (0.45, 0.34, 0.22)),     # beech / birch
]


def make_wood(rng, contrast=1.0, planks=True, palette=None):
    if palette is None:
        palette = WOOD_PALETTES[rng.integers(len(WOOD_PALETTES))]
    light = np.array(palette[0]) * rng.uniform(0.9, 1.1)
    dark = np.array(palette[1]) * rng.uniform(0.9, 1.1)
    ang = rng.uniform(0, math.pi)
    seed = int(rng.integers(1, 1 << 30))
    Wp = rng.uniform(0.07, 0.22) if planks else 50.0
    ring_f = rng.uniform(120, 380)
    pore_k = rng.uniform(0.6, 1.4)
    cath = rng.uniform(10, 45)      # large warps: cathedral / flame figure (in ring periods)
    line_k = rng.uniform(0.35, 0.8)

    def f(X, Y, G):
        ca, sa = math.cos(ang), math.sin(ang)
        A = X * ca + Y * sa
        B = -X * sa + Y * ca
        fA = fp_dir(G, ca, sa)
        fB = fp_dir(G, -sa, ca)
        pidx = np.floor(B / Wp)
        ph = hash1(pidx, seed).astype(np.float64)
        ph2 = hash1(pidx, seed + 1).astype(np.float64)
        A2 = A + ph * 7.0
        warp = (fbm(A2 * 3, B * 30, seed + 2, 4, fp=np.maximum(fA * 3, fB * 30)) - 0.5) * 4.0 \
            + (fbm(A2 * 0.6, B * 4, seed + 3, 3, fp=np.maximum(fA * 0.6, fB * 4)) - 0.5) * 10.0
        big = (fbm(A2 * 1.1 + 3.3, B * 5, seed + 7, 3, fp=np.maximum(fA * 1.1, fB * 5)) - 0.5) * cath
        spacing = 1 + 0.6 * (fbm(A2 * 0.3, B * 2.5, seed + 8, 2) - 0.5)
        g = B * ring_f * spacing + warp + big + ph2 * 10
        cg = 0.5 + 0.5 * np.cos(2 * np.pi * g)
        lines = smoothstep(0.55, 1.0, cg)
        fade = np.clip((0.45 - ring_f * fB * 1.5) / 0.25, 0, 1)
        lines = 0.22 + (lines - 0.22) * fade
        pores = fbm(A2 * 25, B * 900, seed + 4, 4, fp=np.maximum(fA * 25, fB * 900))
        low = fbm(A2 * 1.5, B * 8, seed + 5, 3, fp=np.maximum(fA * 1.5, fB * 8))
        t = np.clip(0.15 + contrast * (line_k * lines + 1.2 * pore_k * (pores - 0.5)
                                       + 0.8 * (low - 0.5)), 0, 1)
        col = light[None] * (1 - t)[:, None] + dark[None] * t[:, None]
        tint = 1 + (hash1(pidx, seed + 6) - 0.5) * 0.2 * contrast
        col = col * tint[:, None]
        if planks:
            cov = line_cov(B, Wp, 0.0006, fB)
            col = col * (1 - 0.6 * cov)[:, None]
        return col
    return f


def make_desk(rng):
    """Return (kind, albedo function(X, Y, G) -> (N,3), material function -> dict of arrays)."""
    kind = rng.choice(['wood', 'laminate', 'painted', 'paper', 'cutmat', 'felt', 'gamingmat'],
                      p=[0.2, 0.16, 0.13, 0.14, 0.13, 0.12, 0.12])
    mat = {}

    def glossy(n_lo, n_hi, sk_lo, sk_hi, env_lo, env_hi):
        return dict(F0=0.04, n=rng.uniform(n_lo, n_hi), spec_k=rng.uniform(sk_lo, sk_hi),
                    env_k=rng.uniform(env_lo, env_hi), wrap=0.0)

    def solid_base(rng_):
        cols = [(0.72, 0.71, 0.68), (0.45, 0.45, 0.44), (0.60, 0.50, 0.37), (0.045, 0.045, 0.045),
                (0.25, 0.26, 0.28), (0.62, 0.58, 0.50)]
        return np.array(cols[rng_.integers(len(cols))]) * rng_.uniform(0.9, 1.08)

    if kind == 'wood':
        fw = make_wood(rng, contrast=rng.uniform(0.7, 1.2), planks=rng.random() < 0.7)
        mat = glossy(15, 150, 0.2, 0.9, 0.2, 0.9)
        alb = fw
    elif kind == 'laminate':
        mat = glossy(40, 300, 0.3, 1.0, 0.3, 1.0)
        if rng.random() < 0.5:
            alb = make_wood(rng, contrast=rng.uniform(0.35, 0.7), planks=rng.random() < 0.3)
        else:
            base = solid_base(rng)
            seed = int(rng.integers(1, 1 << 30))
            sp = rng.uniform(0.03, 0.12)

            def alb(X, Y, G, base=base, seed=seed, sp=sp):
                fp = np.maximum(np.hypot(G[0], G[1]), np.hypot(G[2], G[3]))
                n1 = fbm(X * 600, Y * 600, seed, 3, fp=fp * 600)
                n2 = fbm(X * 8, Y * 8, seed + 9, 3, fp=fp * 8)
                k = 1 + sp * 2 * (n1 - 0.5) + 0.05 * (n2 - 0.5)
                return base[None] * k[:, None]
    elif kind == 'painted':
        cols = [(0.75, 0.75, 0.72), (0.32, 0.32, 0.31), (0.035, 0.035, 0.037), (0.33, 0.43, 0.53),
                (0.35, 0.48, 0.35), (0.70, 0.62, 0.45), (0.55, 0.18, 0.12)]
        base = np.array(cols[rng.integers(len(cols))]) * rng.uniform(0.9, 1.08)
        mat = glossy(8, 60, 0.15, 0.6, 0.1, 0.5)
        seed = int(rng.integers(1, 1 << 30))
        bang = rng.uniform(0, math.pi)

        def alb(X, Y, G, base=base, seed=seed):
            ca, sa = math.cos(bang), math.sin(bang)
            A = X * ca + Y * sa
            B = -X * sa + Y * ca
            fp = np.maximum(np.hypot(G[0], G[1]), np.hypot(G[2], G[3]))
            n1 = fbm(X * 5, Y * 5, seed, 3, fp=fp * 5)
            n2 = fbm(A * 20, B * 400, seed + 3, 3, fp=fp * 400)
            n3 = fbm(X * 900, Y * 900, seed + 5, 2, fp=fp * 900)
            k = 1 + 0.08 * (n1 - 0.5) + 0.06 * (n2 - 0.5) + 0.05 * (n3 - 0.5)
            return base[None] * k[:, None]
    elif kind == 'paper':
        under = rng.choice(['wood', 'laminate', 'painted'])
        if under == 'painted':
            base = solid_base(rng)

            def ualb(X, Y, G, base=base):
                return np.broadcast_to(base[None], (len(X), 3)).copy()
        else:
            ualb = make_wood(rng, contrast=rng.uniform(0.5, 1.1), planks=rng.random() < 0.5)
        umat = glossy(15, 200, 0.2, 0.8, 0.2, 0.8)
        pc = np.array([rng.uniform(-0.06, 0.06), rng.uniform(-0.05, 0.07)])
        pang = rng.uniform(-0.4, 0.4) + (math.pi / 2 if rng.random() < 0.5 else 0.0)
        hw, hh = (0.105, 0.1485) if rng.random() < 0.7 else (0.108, 0.1397)
        pcol = np.array([0.83, 0.82, 0.79]) * rng.uniform(0.92, 1.03) * (1 + rng.normal(0, 0.015, 3))
        ruling = rng.choice(['plain', 'ruled', 'grid'], p=[0.5, 0.3, 0.2])
        seed = int(rng.integers(1, 1 << 30))

        def paper_geom(X, Y, G):
            ca, sa = math.cos(pang), math.sin(pang)
            pu = (X - pc[0]) * ca + (Y - pc[1]) * sa
            pv = -(X - pc[0]) * sa + (Y - pc[1]) * ca
            fu = fp_dir(G, ca, sa) + 1e-6
            fv = fp_dir(G, -sa, ca) + 1e-6
            cov = np.clip((hw - np.abs(pu)) / fu + 0.5, 0, 1) * np.clip((hh - np.abs(pv)) / fv + 0.5, 0, 1)
            return pu, pv, fu, fv, cov

        def alb(X, Y, G):
            u = ualb(X, Y, G)
            pu, pv, fu, fv, cov = paper_geom(X, Y, G)
            fp = np.maximum(fu, fv)
            fib = fbm(X * 1500, Y * 1500, seed, 3, fp=fp * 1500)
            p = pcol[None] * (1 + 0.06 * (fib - 0.5))[:, None]
            if ruling == 'ruled':
                lc = line_cov(pv, 0.0085, 0.0003, fv)
                p = p * (1 - lc[:, None] * np.array([0.35, 0.2, 0.02])[None])
            elif ruling == 'grid':
                lc = 1 - (1 - line_cov(pv, 0.005, 0.00022, fv)) * (1 - line_cov(pu, 0.005, 0.00022, fu))
                p = p * (1 - lc[:, None] * np.array([0.25, 0.15, 0.05])[None])
            dout = np.maximum(np.abs(pu) - hw, np.abs(pv) - hh)
            sh = 1 - 0.3 * np.exp(-np.maximum(dout, 0) / 0.0007)
            u = u * np.where(dout > 0, sh, 1.0)[:, None]
            return u * (1 - cov)[:, None] + p * cov[:, None]

        def matf(X, Y, G):
            cov = paper_geom(X, Y, G)[4]
            pm = dict(F0=0.03, n=6.0, spec_k=0.15, env_k=0.1, wrap=0.05)
            return {k: umat[k] * (1 - cov) + pm[k] * cov for k in pm}
        return 'paper', alb, matf
    elif kind == 'cutmat':
        cols = [(0.035, 0.16, 0.085), (0.02, 0.05, 0.13), (0.08, 0.08, 0.085), (0.02, 0.02, 0.022),
                (0.05, 0.12, 0.13)]
        base = np.array(cols[rng.integers(len(cols))]) * rng.uniform(0.85, 1.15)
        lcol = np.array([(0.45, 0.55, 0.45), (0.6, 0.6, 0.58), (0.55, 0.5, 0.12)][rng.integers(3)])
        gang = rng.uniform(-0.35, 0.35)
        off = rng.uniform(0, 0.05, 2)
        wmin = rng.uniform(0.00022, 0.0004)
        diag = rng.random() < 0.35
        seed = int(rng.integers(1, 1 << 30))
        mat = dict(F0=0.035, n=12.0, spec_k=0.3, env_k=0.25, wrap=0.0)

        def alb(X, Y, G):
            ca, sa = math.cos(gang), math.sin(gang)
            A = X * ca + Y * sa + off[0]
            B = -X * sa + Y * ca + off[1]
            fA = fp_dir(G, ca, sa)
            fB = fp_dir(G, -sa, ca)
            c1 = 1 - (1 - line_cov(A, 0.01, wmin, fA)) * (1 - line_cov(B, 0.01, wmin, fB))
            c2 = 1 - (1 - line_cov(A, 0.05, 2.2 * wmin, fA)) * (1 - line_cov(B, 0.05, 2.2 * wmin, fB))
            cov = 1 - (1 - c1) * (1 - c2)
            if diag:
                D = (A + B) / math.sqrt(2)
                cov = 1 - (1 - cov) * (1 - line_cov(D, 0.0707, wmin, (fA + fB) / math.sqrt(2)))
            fp = np.maximum(fA, fB)
            m = fbm(X * 20, Y * 20, seed, 4, fp=fp * 20)
            col = base[None] * (1 + 0.15 * (m - 0.5))[:, None]
            return col * (1 - cov)[:, None] + lcol[None] * cov[:, None]
    elif kind == 'felt':
        cols = [(0.03, 0.17, 0.06), (0.25, 0.03, 0.03), (0.03, 0.06, 0.2), (0.17, 0.17, 0.17),
                (0.42, 0.36, 0.27), (0.16, 0.09, 0.05)]
        base = np.array(cols[rng.integers(len(cols))]) * rng.uniform(0.85, 1.15)
        weave = rng.random() < 0.4
        wp = rng.uniform(0.0006, 0.0012)
        seed = int(rng.integers(1, 1 << 30))
        mat = dict(F0=0.02, n=2.0, spec_k=0.05, env_k=0.0, wrap=0.25)

        def alb(X, Y, G):
            fp = np.maximum(np.hypot(G[0], G[1]), np.hypot(G[2], G[3]))
            fib = fbm(X * 2500, Y * 2500, seed, 3, fp=fp * 2500)
            mot = fbm(X * 25, Y * 25, seed + 7, 4, fp=fp * 25)
            k = 1 + 0.5 * (fib - 0.5) + 0.3 * (mot - 0.5)
            if weave:
                wv = np.sin(2 * np.pi * X / wp) * np.sin(2 * np.pi * Y / wp)
                fade = np.clip((0.45 - fp / wp) / 0.25, 0, 1)
                k = k + 0.15 * wv * fade
            return base[None] * k[:, None]
    else:  # gaming mat
        base = np.array([0.028, 0.028, 0.032]) * rng.uniform(0.6, 1.5)
        c1 = np.array([(0.02, 0.03, 0.08), (0.06, 0.02, 0.07), (0.02, 0.05, 0.04),
                       (0.04, 0.04, 0.04)][rng.integers(4)])
        neb = rng.uniform(0.0, 1.2)
        seed = int(rng.integers(1, 1 << 30))
        mat = dict(F0=0.03, n=6.0, spec_k=0.2, env_k=0.15, wrap=0.05)

        def alb(X, Y, G):
            fp = np.maximum(np.hypot(G[0], G[1]), np.hypot(G[2], G[3]))
            nb = fbm(X * 4, Y * 4, seed, 5, fp=fp * 4)
            fab = fbm(X * 1800, Y * 1800, seed + 3, 2, fp=fp * 1800)
            col = base[None] + neb * c1[None] * smoothstep(0.4, 0.75, nb)[:, None]
            return col * (1 + 0.25 * (fab - 0.5))[:, None]

    def matf(X, Y, G, mat=mat):
        return {k: np.full(len(X), v, np.float64) for k, v in mat.items()}
    return str(kind), alb, matf


# --------------------------------------------------------------------------- camera
class Camera:
    def __init__(self, W, H, f, cx, cy, k1, k2, R, C):
        self.W, self.H, self.f, self.cx, self.cy = W, H, f, cx, cy
        self.k1, self.k2 = k1, k2
        self.R = R
        self.C = C

    def project(self, P):
        Xc = (np.atleast_2d(P) - self.C) @ self.R.T
        z = Xc[:, 2]
        zz = np.where(np.abs(z) < 1e-9, 1e-9, z)
        x = Xc[:, 0] / zz
        y = Xc[:, 1] / zz
        r2 = x * x + y * y
        d = 1 + self.k1 * r2 + self.k2 * r2 * r2
        return np.stack([self.f * x * d + self.cx, self.f * y * d + self.cy], 1), z

    def ray_dirs(self, u, v):
        xd = (u - self.cx) / self.f
        yd = (v - self.cy) / self.f
        xu, yu = xd.copy(), yd.copy()
        for _ in range(30):
            r2 = xu * xu + yu * yu
            d = 1 + self.k1 * r2 + self.k2 * r2 * r2
            xu = xd / d
            yu = yd / d
        dc = np.stack([xu, yu, np.ones_like(xu)], -1)
        return nrm(dc) @ self.R

    def backproject_plane(self, u, v, z0):
        d = self.ray_dirs(np.atleast_1d(np.asarray(u, float)), np.atleast_1d(np.asarray(v, float)))
        t = (z0 - self.C[2]) / d[:, 2]
        return self.C[None] + t[:, None] * d, t


# --------------------------------------------------------------------------- lights
class Light:
    def __init__(self, kind, rgb, pos=None, direction=None, radius=0.0, tana=0.0, spot_axis=None,
                 cos_in=None, cos_out=None, lambert_emit=False, shadows=True):
        self.kind = kind
        self.rgb = np.asarray(rgb, float)
        self.pos = None if pos is None else np.asarray(pos, float)
        self.dir = None if direction is None else nrm(np.asarray(direction, float))
        self.radius = radius
        self.tana = tana
        self.spot_axis = None if spot_axis is None else nrm(np.asarray(spot_axis, float))
        self.cos_in, self.cos_out = cos_in, cos_out
        self.lambert_emit = lambert_emit
        self.shadows = shadows

    def dirs(self, P):
        M = len(P)
        if self.kind == 'dir':
            return np.broadcast_to(self.dir, (M, 3)), np.full(M, 10.0), np.full(M, self.tana)
        v = self.pos[None] - P
        d = np.sqrt((v * v).sum(1))
        return v / d[:, None], d, self.radius / d

    def eval(self, P):
        L, d, tana = self.dirs(P)
        M = len(P)
        if self.kind == 'dir':
            return np.broadcast_to(self.rgb, (M, 3)), L, d, tana
        f = 1.0 / (d * d)
        if self.spot_axis is not None:
            f = f * smoothstep(self.cos_out, self.cos_in, -(L @ self.spot_axis))
        if self.lambert_emit:
            f = f * np.clip(L[:, 2], 0, 1)
        return f[:, None] * self.rgb[None], L, d, tana

    def horiz_irr(self):
        E, L, _, _ = self.eval(np.zeros((1, 3)))
        return E[0] * max(L[0, 2], 0.0)


# --------------------------------------------------------------------------- geometry objects
def sd_rbox(p, b, r):
    q = np.abs(p) - b
    mq = np.maximum(q, 0.0)
    return np.sqrt((mq * mq).sum(1)) + np.minimum(q.max(1), 0.0) - r


def rbox_normal(p, b):
    q = np.abs(p) - b
    mq = np.maximum(q, 0.0)
    n = np.sign(p) * mq
    ln = np.sqrt((n * n).sum(1))
    bad = ln < 1e-12
    if bad.any():
        ax = np.argmax(q[bad], 1)
        nb = np.zeros((bad.sum(), 3))
        nb[np.arange(len(ax)), ax] = np.sign(p[bad][np.arange(len(ax)), ax])
        n[bad] = nb
        ln[bad] = 1.0
    return n / ln[:, None]


def trace_rbox(o, d, b, r, iters=48):
    """Sphere-trace rays o + t d (local frame, o shared) against a rounded box."""
    B = b + r
    dd = np.where(np.abs(d) < 1e-12, 1e-12, d)
    inv = 1.0 / dd
    t1 = (-B[None] - o[None]) * inv
    t2 = (B[None] - o[None]) * inv
    tn = np.minimum(t1, t2).max(1)
    tf = np.maximum(t1, t2).min(1)
    idx = np.nonzero((tf > tn) & (tf > 0))[0]
    t = np.maximum(tn[idx], 0.0)
    tfar = tf[idx]
    di = d[idx]
    ok = np.zeros(len(idx), bool)
    act = np.arange(len(idx))
    for _ in range(iters):
        if len(act) == 0:
            break
        p = o[None] + t[act, None] * di[act]
        dist = sd_rbox(p, b, r)
        conv = dist < 2e-7
        ok[act[conv]] = True
        t[act] += np.where(conv, 0.0, dist)
        keep = (~conv) & (t[act] <= tfar[act])
        act = act[keep]
    if len(act):
        p = o[None] + t[act, None] * di[act]
        ok[act[sd_rbox(p, b, r) < 2e-5]] = True
    idx, t, di = idx[ok], t[ok], di[ok]
    return idx, t, o[None] + t[:, None] * di, di


class RBoxObj:
    """Rounded box (eraser / wooden block)."""
    kind = 'box'

    def __init__(self, c, R, b, r, albedo, mat):
        self.c = np.asarray(c, float)
        self.R = np.asarray(R, float)
        self.b = np.asarray(b, float)
        self.r = float(r)
        self.brad = float(np.linalg.norm(self.b) + self.r)
        self.albedo = np.asarray(albedo, float)
        self.mat = mat

    def outer(self):
        return self.b + self.r

    def corners(self):
        return self.c[None] + (SIGNS * self.outer()[None]) @ self.R.T

    def sdf(self, P):
        return sd_rbox((P - self.c[None]) @ self.R, self.b, self.r)

    def near(self, P, margin):
        d2 = ((P - self.c[None]) ** 2).sum(1)
        return np.nonzero(d2 < (self.brad + margin) ** 2)[0]

    def shadow_range(self, P, L, tmax, tana):
        oc = self.c[None] - P
        tp = (oc * L).sum(1)
        d2 = (oc * oc).sum(1) - tp * tp
        Re = self.brad + np.maximum(tp, 0) * tana + 5e-4
        cand = (d2 < Re * Re) & (tp > -self.brad) & (tp - self.brad < tmax)
        idx = np.nonzero(cand)[0]
        half = np.sqrt(np.maximum(Re[idx] ** 2 - d2[idx], 0))
        return idx, np.maximum(tp[idx] - half, 1e-4), np.minimum(tp[idx] + half, tmax[idx])

    def trace(self, orig, D):
        o = (orig - self.c) @ self.R
        idx, t, p, d = trace_rbox(o, D @ self.R, self.b, self.r)
        return dict(idx=idx, t=t, ploc=p, nloc=rbox_normal(p, self.b))

    def shade(self, h, S, lights, occs, k, P, V):
        N = nrm(h['nloc'] @ self.R.T)
        M = len(P)
        n = fbm(h['ploc'][:, 0] * 3000, (h['ploc'][:, 1] + h['ploc'][:, 2]) * 3000, 77, 2)
        alb = self.albedo[None] * (1 + 0.08 * (n - 0.5))[:, None]
        ao = ambient_occ(P, N, occs, exclude=k)
        vis = [soft_shadow(P, Lt, occs, exclude=k) if Lt.shadows else np.ones(M) for Lt in lights]
        Ed, Sp = lighting(P, N, V, lights, vis, ao, self.mat, S)
        return alb * Ed + Sp


class CylObj:
    """Pencil: capped cylinder along local x."""
    kind = 'cyl'

    def __init__(self, c, R, rho, hl, paint, mat, eraser_end=True):
        self.c = np.asarray(c, float)
        self.R = np.asarray(R, float)
        self.rho = float(rho)
        self.hl = float(hl)
        self.brad = math.hypot(hl, rho)
        self.paint = np.asarray(paint, float)
        self.mat = mat
        self.eraser_end = eraser_end
        self.axis = self.R[:, 0]
        self.A = self.c - self.axis * self.hl
        self.U = 2 * self.hl * self.axis

    def outer(self):
        return np.array([self.hl, self.rho, self.rho])

    def corners(self):
        return self.c[None] + (SIGNS * self.outer()[None]) @ self.R.T

    def sdf(self, P):
        p = (P - self.c[None]) @ self.R
        dr = np.sqrt(p[:, 1] ** 2 + p[:, 2] ** 2) - self.rho
        dx = np.abs(p[:, 0]) - self.hl
        return np.minimum(np.maximum(dr, dx), 0) + np.sqrt(np.maximum(dr, 0) ** 2 + np.maximum(dx, 0) ** 2)

    def seg_dist(self, P):
        w = P - self.A[None]
        t = np.clip((w @ self.U) / (self.U @ self.U), 0, 1)
        return np.sqrt(((w - t[:, None] * self.U[None]) ** 2).sum(1))

    def near(self, P, margin):
        return np.nonzero(self.seg_dist(P) < self.rho + margin)[0]

    def shadow_range(self, P, L, tmax, tana):
        u = self.U
        w0 = P - self.A[None]
        b = L @ u
        c = u @ u
        d = (L * w0).sum(1)
        e = w0 @ u
        den = np.maximum(c - b * b, 1e-12)
        tc = np.clip((e - d * b) / den, 0, 1)
        sc = ((self.A[None] + tc[:, None] * u[None] - P) * L).sum(1)
        cl = P + sc[:, None] * L - (self.A[None] + tc[:, None] * u[None])
        dist = np.sqrt((cl * cl).sum(1))
        Re = self.rho + np.maximum(sc, 0) * tana + 5e-4
        cand = (dist < Re) & (sc > -self.rho) & (sc - self.rho < tmax)
        idx = np.nonzero(cand)[0]
        sinang = np.sqrt(np.maximum(1 - (b[idx] ** 2) / c, 0))
        span = np.minimum(Re[idx] / np.maximum(sinang, 0.05) + self.rho, 2 * self.hl + 2 * self.rho)
        return idx, np.maximum(sc[idx] - span, 1e-4), np.minimum(sc[idx] + span, tmax[idx])

    def trace(self, orig, D):
        o = (orig - self.c) @ self.R
        d = D @ self.R
        rho, hl = self.rho, self.hl
        a = d[:, 1] ** 2 + d[:, 2] ** 2
        b = 2 * (o[1] * d[:, 1] + o[2] * d[:, 2])
        c = o[1] ** 2 + o[2] ** 2 - rho * rho
        disc = b * b - 4 * a * c
        big = 1e9
        with np.errstate(invalid='ignore', divide='ignore'):
            ts = (-b - np.sqrt(np.maximum(disc, 0))) / (2 * np.maximum(a, 1e-15))
            xs = o[0] + ts * d[:, 0]
            ts = np.where((disc > 0) & (a > 1e-12) & (np.abs(xs) <= hl) & (ts > 0), ts, big)
            tcs = []
            for sg in (1.0, -1.0):
                tcp = (sg * hl - o[0]) / np.where(np.abs(d[:, 0]) < 1e-12, 1e-12, d[:, 0])
                py = o[1] + tcp * d[:, 1]
                pz = o[2] + tcp * d[:, 2]
                tcs.append(np.where((py * py + pz * pz <= rho * rho) & (tcp > 0), tcp, big))
        T = np.stack([ts, tcs[0], tcs[1]], 1)
        part = np.argmin(T, 1)
        t = T[np.arange(len(T)), part]
        idx = np.nonzero(t < big / 2)[0]
        t = t[idx]
        part = part[idx]
        p = o[None] + t[:, None] * d[idx]
        n = np.zeros_like(p)
        side = part == 0
        n[side, 1] = p[side, 1] / rho
        n[side, 2] = p[side, 2] / rho
        n[part == 1, 0] = 1.0
        n[part == 2, 0] = -1.0
        return dict(idx=idx, t=t, ploc=p, nloc=n, part=part)

    def shade(self, h, S, lights, occs, k, P, V):
        N = nrm(h['nloc'] @ self.R.T)
        M = len(P)
        x = h['ploc'][:, 0]
        rr = np.sqrt(h['ploc'][:, 1] ** 2 + h['ploc'][:, 2] ** 2)
        alb = np.broadcast_to(self.paint, (M, 3)).copy()
        F0 = np.full(M, self.mat['F0'])
        nexp = np.full(M, self.mat['n'])
        if self.eraser_end:
            er = x > self.hl - 0.008
            fe = (x > self.hl - 0.014) & ~er
            alb[er] = (0.62, 0.24, 0.22)
            alb[fe] = (0.45, 0.44, 0.40)
            F0[fe] = 0.5
            nexp[fe] = 60
            alb[er] *= 1.0
        cap = h['part'] == 2
        alb[cap] = (0.55, 0.38, 0.2)
        alb[cap & (rr < 0.0011)] = (0.04, 0.04, 0.04)
        ao = ambient_occ(P, N, occs, exclude=k)
        vis = [soft_shadow(P, Lt, occs, exclude=k) if Lt.shadows else np.ones(M) for Lt in lights]
        mat = dict(self.mat)
        mat['F0'] = F0
        mat['n'] = nexp
        Ed, Sp = lighting(P, N, V, lights, vis, ao, mat, S)
        return alb * Ed + Sp


# --------------------------------------------------------------------------- dice
# Right-handed die: 1, 2, 3 counter-clockwise around their common corner (seen from outside)
FACE_NORMALS = {1: (1, 0, 0), 2: (0, 1, 0), 3: (0, 0, 1), 4: (0, 0, -1), 5: (0, -1, 0), 6: (-1, 0, 0)}
FN = np.array([FACE_NORMALS[v] for v in range(1, 7)], float)
FACE_TABLE = np.array([1, 6, 2, 5, 3, 4])  # index axis*2 + (sign<0)
PIP_LAYOUT = {
    1: [(0, 0)],
    2: [(-1, -1), (1, 1)],
    3: [(-1, -1), (0, 0), (1, 1)],
    4: [(-1, -1), (-1, 1), (1, -1), (1, 1)],
    5: [(-1, -1), (-1, 1), (0, 0), (1, -1), (1, 1)],
    6: [(-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)],
}


def _cube_rotations():
    out = []
    for perm in itertools.permutations(range(3)):
        for signs in itertools.product([1, -1], repeat=3):
            M = np.zeros((3, 3))
            for i in range(3):
                M[i, perm[i]] = signs[i]
            if np.linalg.det(M) > 0.5:
                out.append(M)
    return out


CUBE_ROTS = _cube_rotations()


def pick_cube_rot(face, rng):
    c = [M for M in CUBE_ROTS if (M @ FN[face - 1])[2] > 0.5]
    return c[rng.integers(len(c))]


def top_face(R):
    return int(np.argmax(FN @ R[2, :])) + 1


def build_pips(ph):
    s = ph['s']
    h = s / 2
    PC, PR, PN, PV, PD = [], [], [], [], []
    for val in range(1, 7):
        n = np.array(FACE_NORMALS[val], float)
        k = int(np.argmax(np.abs(n)))
        e1 = np.zeros(3)
        e1[(k + 1) % 3] = 1
        e2 = np.zeros(3)
        e2[(k + 2) % 3] = 1
        for (pu, pv) in PIP_LAYOUT[val]:
            if (val == 2 and ph['flip2']) or (val == 3 and ph['flip3']):
                pv = -pv
            if val == 6 and ph['rot6']:
                pu, pv = pv, pu
            rp = ph['pip_r'] * s * (ph['one_scale'] if val == 1 else 1.0)
            dp = ph['pip_d'] * s * (1.15 if val == 1 and ph['one_scale'] > 1.1 else 1.0)
            Rs = (rp * rp + dp * dp) / (2 * dp)
            c = n * h + (pu * e1 + pv * e2) * ph['pip_a'] * s + n * (Rs - dp)
            PC.append(c)
            PR.append(Rs)
            PN.append(n)
            PV.append(val)
            PD.append(rp)
    return np.array(PC), np.array(PR), np.array(PN), np.array(PV), np.array(PD)


class DieObj:
    kind = 'die'

    def __init__(self, ph, c, R, tilted=False, yaw=0.0):
        self.ph = ph
        self.c = np.asarray(c, float)
        self.R = np.asarray(R, float)
        self.s = ph['s']
        self.r = ph['r']
        self.b = np.full(3, self.s / 2 - self.r)
        self.brad = math.sqrt(3) * (self.s / 2 - self.r) + self.r
        self.tilted = tilted
        self.yaw = yaw
        self.face = top_face(self.R)
        self.PC, self.PR, self.PN, self.PV, self.PD = ph['pips']
        self.support = None

    outer = RBoxObj.outer
    corners = RBoxObj.corners
    sdf = RBoxObj.sdf
    near = RBoxObj.near
    shadow_range = RBoxObj.shadow_range

    def top_centre(self):
        return self.c + self.R @ (FN[self.face - 1] * self.s / 2)

    def top_normal(self):
        return self.R @ FN[self.face - 1]

    def trace(self, orig, D):
        o = (orig - self.c) @ self.R
        dl = D @ self.R
        idx, t, p, d = trace_rbox(o, dl, self.b, self.r)
        M = len(idx)
        nloc = rbox_normal(p, self.b) if M else np.zeros((0, 3))
        ax = np.argmax(np.abs(p), 1) if M else np.zeros(0, int)
        sg = p[np.arange(M), ax] if M else np.zeros(0)
        face = FACE_TABLE[ax * 2 + (sg < 0)] if M else np.zeros(0, int)
        pip = np.zeros(M, bool)
        pj = np.zeros(M, int)
        depth = np.zeros(M)
        if M:
            diff = p[:, None, :] - self.PC[None]
            d2 = np.einsum('ijk,ijk->ij', diff, diff) - self.PR[None] ** 2
            j = np.argmin(d2, 1)
            ins = d2[np.arange(M), j] < 0
            if ins.any():
                ii = np.nonzero(ins)[0]
                jj = j[ii]
                oc = p[ii] - self.PC[jj]
                dd = d[ii]
                bq = (oc * dd).sum(1)
                cq = (oc * oc).sum(1) - self.PR[jj] ** 2
                tadd = -bq + np.sqrt(np.maximum(bq * bq - cq, 0))
                p2 = p[ii] + tadd[:, None] * dd
                t[ii] += tadd
                p[ii] = p2
                nloc[ii] = (self.PC[jj] - p2) / self.PR[jj][:, None]
                face[ii] = self.PV[jj]
                depth[ii] = self.s / 2 - (p2 * self.PN[jj]).sum(1)
                pip[ii] = True
                pj[ii] = jj
        return dict(idx=idx, t=t, ploc=p, nloc=nloc, face=face, pip=pip, pj=pj, depth=depth)

    def shade(self, h, S, lights, occs, k, P, V):
        ph = self.ph
        N = nrm(h['nloc'] @ self.R.T)
        M = len(P)
        pip = h['pip']
        alb = np.broadcast_to(ph['body'], (M, 3)).copy()
        # faint mottling of the plastic
        q = h['ploc']
        n = fbm((q[:, 0] + q[:, 2]) * 1200, (q[:, 1] - q[:, 2]) * 1200, ph['nseed'], 2)
        alb *= (1 + 0.05 * (n - 0.5))[:, None]
        alb[pip] = ph['pipcol']
        ao = ambient_occ(P, N, occs, exclude=k)
        if pip.any():
            rp = self.PD[h['pj'][pip]]
            ao[pip] *= 1 - np.clip(1.1 * h['depth'][pip] / rp, 0, 0.65)
        vis = []
        for Lt in lights:
            v = soft_shadow(P, Lt, occs, exclude=k) if Lt.shadows else np.ones(M)
            if pip.any():
                L, _, tana = Lt.dirs(P[pip])
                Lloc = L @ self.R
                qq = q[pip]
                jj = h['pj'][pip]
                cj = self.PC[jj]
                tex = -2 * ((qq - cj) * Lloc).sum(1)
                ex = qq + tex[:, None] * Lloc
                hgt = (ex * self.PN[jj]).sum(1) - self.s / 2
                w = np.maximum(4e-5, np.maximum(tex, 0) * tana)
                v[pip] *= np.where(tex > 0, smoothstep(-w, w, hgt), 1.0)
            vis.append(v)
        mat = dict(F0=np.where(pip, ph['pipF0'], ph['F0']), n=np.where(pip, ph['pipn'], ph['gloss']),
                   spec_k=np.where(pip, 0.5, ph['spec_k']), env_k=np.where(pip, 0.3, ph['env_k']),
                   wrap=np.where(pip, 0.0, ph['wrap']))
        Ed, Sp = lighting(P, N, V, lights, vis, ao, mat, S)
        return alb * Ed + Sp


# --------------------------------------------------------------------------- light transport
AO_H = np.array([0.0012, 0.003, 0.006, 0.011, 0.018])
AO_W = np.array([0.30, 0.26, 0.20, 0.14, 0.10])


def ambient_occ(P, N, occs, exclude=-1, plane=True, strength=1.0):
    M = len(P)
    dmin = np.full((len(AO_H), M), np.inf)
    if plane:
        for i, hh in enumerate(AO_H):
            dmin[i] = P[:, 2] + N[:, 2] * hh
    for k, ob in enumerate(occs):
        if k == exclude:
            continue
        idx = ob.near(P, AO_H[-1] + 0.002)
        if len(idx) == 0:
            continue
        for i, hh in enumerate(AO_H):
            dmin[i, idx] = np.minimum(dmin[i, idx], ob.sdf(P[idx] + N[idx] * hh))
    occ = np.zeros(M)
    for i, hh in enumerate(AO_H):
        occ += AO_W[i] * np.clip((hh - dmin[i]) / hh, 0, 1)
    return np.clip(1 - strength * occ, 0.05, 1.0)


def soft_shadow(P, light, occs, exclude=-1, nsteps=36):
    M = len(P)
    vis = np.ones(M)
    if M == 0:
        return vis
    L, tmax, tana = light.dirs(P)
    L = np.ascontiguousarray(L)
    for k, ob in enumerate(occs):
        if k == exclude:
            continue
        idx, t0, t1 = ob.shadow_range(P, L, tmax, tana)
        if len(idx) == 0:
            continue
        Pi, Li, ta = P[idx], L[idx], tana[idx]
        t = t0.copy()
        res = np.full(len(idx), 1e9)
        act = np.arange(len(idx))
        for _ in range(nsteps):
            pts = Pi[act] + t[act, None] * Li[act]
            d = ob.sdf(pts)
            res[act] = np.minimum(res[act], d / (t[act] * ta[act] + 2e-5))
            t[act] += np.clip(d, 3e-4, 4e-3)
            keep = (t[act] < t1[act]) & (res[act] > -1)
            act = act[keep]
            if len(act) == 0:
                break
        x = np.clip(res, -1, 1) * 0.5 + 0.5
        vis[idx] *= x * x * (3 - 2 * x)
    return vis


def lighting(P, N, V, lights, vis_list, ao, mat, S):
    """Returns diffuse irradiance (to multiply by albedo) and specular radiance."""
    M = len(P)
    Ed = np.zeros((M, 3))
    Sp = np.zeros((M, 3))
    F0 = mat['F0']
    nexp = mat['n']
    sk = mat['spec_k']
    wrap = mat['wrap']
    for li, Lt in enumerate(lights):
        E, L, _, tana = Lt.eval(P)
        ndl = (N * L).sum(1)
        dif = np.clip((ndl + wrap) / (1 + wrap), 0, None)
        v = vis_list[li]
        H = nrm(L + V)
        ndh = np.clip((N * H).sum(1), 0, 1)
        vdh = np.clip((V * H).sum(1), 0, 1)
        F = F0 + (1 - F0) * (1 - vdh) ** 5
        neff = 1.0 / (1.0 / nexp + tana * tana / 8.0)
        spec = sk * F * (neff + 8) / 8 * ndh ** neff * np.clip(ndl, 0, None)
        Ed += E * (dif * v)[:, None]
        Sp += E * (spec * v)[:, None]
    hemi = 0.5 + 0.5 * N[:, 2]
    amb = S.sky[None] * hemi[:, None] + S.ground[None] * (1 - hemi)[:, None]
    Ed += amb * ao[:, None]
    ndv = np.clip((N * V).sum(1), 0, 1)
    Rr = 2 * ndv[:, None] * N - V
    Fv = F0 + (1 - F0) * (1 - ndv) ** 5
    up = np.clip(Rr[:, 2], 0, 1)
    env = np.where((Rr[:, 2] > 0)[:, None], S.sky[None] * (0.5 + 1.0 * up[:, None]), S.ground[None])
    Sp += env * (mat['env_k'] * Fv * ao)[:, None]
    return Ed, Sp


# --------------------------------------------------------------------------- setup
COLOUR_BODY = {
    'ivory': lambda rng: np.array([0.80, 0.74, 0.60])
    + (np.array([0.68, 0.57, 0.38]) - np.array([0.80, 0.74, 0.60])) * rng.uniform(0, 1),
    'white': lambda rng: np.array([0.84, 0.84, 0.82])
    + (np.array([0.79, 0.77, 0.70]) - np.array([0.84, 0.84, 0.82])) * rng.uniform(0, 1),
    'red': lambda rng: np.array([0.45, 0.035, 0.03]) * rng.uniform(0.75, 1.1),
    'black': lambda rng: np.array([0.02, 0.02, 0.022]) * rng.uniform(0.8, 1.4),
    'blue': lambda rng: np.array([0.025, 0.065, 0.33]) * rng.uniform(0.7, 1.15),
    'green': lambda rng: np.array([0.03, 0.22, 0.065]) * rng.uniform(0.7, 1.15),
}


def die_style(rng, s0):
    r = rng.uniform(0.06, 0.12)
    pip_r = rng.uniform(0.075, 0.10)
    pip_a = min(rng.uniform(0.25, 0.29), 0.5 - r - pip_r - 0.012)
    return dict(s=s0, r=r, pip_r=pip_r, pip_a=pip_a, pip_d=rng.uniform(0.03, 0.06),
                one_scale=1.0 if rng.random() < 0.6 else rng.uniform(1.2, 1.7),
                flip2=bool(rng.random() < 0.5), flip3=bool(rng.random() < 0.5), rot6=bool(rng.random() < 0.5),
                gloss=rng.uniform(60, 450), F0=rng.uniform(0.035, 0.05), spec_k=rng.uniform(0.5, 1.0),
                env_k=rng.uniform(0.4, 1.0), pipF0=0.04, pipn=rng.uniform(10, 80))


def finish_die(st, colour, rng):
    ph = dict(st)
    ph['r'] = ph['r'] * ph['s']
    ph['colour'] = colour
    ph['body'] = COLOUR_BODY[colour](rng) * (1 + rng.normal(0, 0.015, 3))
    if colour in ('ivory', 'white'):
        ph['pipcol'] = np.array([0.025, 0.025, 0.028]) * rng.uniform(0.6, 1.4)
        ph['wrap'] = rng.uniform(0.15, 0.35)
    else:
        ph['pipcol'] = np.array([0.76, 0.76, 0.73]) * rng.uniform(0.85, 1.05)
        ph['wrap'] = 0.05 if colour == 'black' else rng.uniform(0.08, 0.2)
    ph['nseed'] = int(rng.integers(1, 1 << 30))
    ph['pips'] = build_pips(ph)
    return ph


def make_dice_set(rng, s0):
    base = die_style(rng, s0)
    scheme = rng.random()
    coloured = ['red', 'black', 'blue', 'green']
    light = 'ivory' if rng.random() < 0.6 else 'white'
    if scheme < 0.55:
        cols = [light] * 6
    elif scheme < 0.8:
        k = int(rng.integers(1, 3))
        cols = [light] * (6 - k) + [coloured[rng.integers(4)] for _ in range(k)]
    elif scheme < 0.92:
        cols = [coloured[rng.integers(4)]] * 6
    else:
        cols = [rng.choice(['ivory', 'white', 'red', 'black', 'blue', 'green']) for _ in range(6)]
    phys = []
    for c in cols:
        st = dict(base)
        st['s'] = s0 + rng.normal(0, 0.00015)
        phys.append(finish_die(st, str(c), rng))
    if rng.random() < 0.15:  # an odd die from another set
        s1 = float(np.clip(s0 + rng.uniform(-0.003, 0.003), 0.014, 0.019))
        st = die_style(rng, s1)
        phys[int(rng.integers(6))] = finish_die(st, str(rng.choice(list(COLOUR_BODY))), rng)
    return phys


class Setup:
    pass


def build_setup(seed, W, H, ss, elevation=(25, 65)):
    rng = np.random.default_rng([seed, 1])
    S = Setup()
    S.seed, S.W, S.H, S.ss = seed, W, H, ss
    S.W2, S.H2 = W * ss, H * ss
    scale = W / 640.0
    # ---------------- camera
    diag = 0.5 * math.hypot(W, H)
    for _ in range(100000):
        dfov = rng.uniform(55, 78)
        k1 = rng.uniform(-0.22, 0.03)
        k2 = rng.uniform(-0.02, 0.06) * (1.0 if k1 < -0.1 else 0.4)
        ru = math.tan(math.radians(dfov / 2))
        if 1 + 3 * k1 * (1.1 * ru) ** 2 + 5 * k2 * (1.1 * ru) ** 4 < 0.35:
            continue
        rd = ru * (1 + k1 * ru ** 2 + k2 * ru ** 4)
        f = diag / rd
        s0 = rng.uniform(0.014, 0.019)
        target = rng.uniform(40, 78) * scale
        D = f * 1.55 * s0 / target
        if 0.25 <= D <= 0.60:
            break
    el = math.radians(rng.uniform(*elevation))
    C = np.array([0.0, -D * math.cos(el), D * math.sin(el)])
    aim = np.array([rng.uniform(-0.015, 0.015), rng.uniform(-0.015, 0.015), 0.0])
    fwd = nrm(aim - C)
    right = nrm(np.cross(fwd, EZ))
    down = np.cross(fwd, right)
    roll = math.radians(rng.uniform(-4, 4))
    r2 = math.cos(roll) * right + math.sin(roll) * down
    d2 = -math.sin(roll) * right + math.cos(roll) * down
    R = np.stack([r2, d2, fwd])
    cx = (W - 1) / 2 + rng.uniform(-0.02, 0.02) * W
    cy = (H - 1) / 2 + rng.uniform(-0.02, 0.02) * H
    S.cam = Camera(W, H, f, cx, cy, k1, k2, R, C)
    S.cam_info = dict(dfov=dfov, f=f, k1=k1, k2=k2, elev=math.degrees(el), dist=D, roll=math.degrees(roll))
    S.fwd = fwd
    # ---------------- desk / room
    S.y_back = rng.uniform(0.1, 0.8)
    S.y_wall = S.y_back + (0.0 if rng.random() < 0.35 else rng.uniform(0.15, 1.5))
    S.desk_h = rng.uniform(0.70, 0.78)
    S.desk_kind, desk_alb, desk_mat = make_desk(rng)
    wall_col = np.array([(0.75, 0.73, 0.68), (0.6, 0.62, 0.64), (0.7, 0.64, 0.52), (0.45, 0.5, 0.42),
                         (0.35, 0.38, 0.45), (0.8, 0.8, 0.8)][rng.integers(6)]) * rng.uniform(0.6, 1.05)
    floor_col = np.array([0.12, 0.09, 0.06]) * rng.uniform(0.4, 1.6)
    wseed = int(rng.integers(1, 1 << 30))
    # ---------------- pixel geometry (ss grid and 1x grid)
    def grid(scl):
        u = (np.arange(W * scl) + 0.5) / scl - 0.5
        v = (np.arange(H * scl) + 0.5) / scl - 0.5
        uu, vv = np.meshgrid(u, v)
        return S.cam.ray_dirs(uu, vv)

    S.dirs2 = grid(ss)
    dirs1 = grid(1)

    def bg_geom(dirs):
        dz = dirs[..., 2]
        dy = dirs[..., 1]
        with np.errstate(divide='ignore', invalid='ignore'):
            td = -C[2] / dz
            yd = C[1] + td * dy
            desk = (dz < -1e-6) & (yd <= S.y_back)
            tf = (-S.desk_h - C[2]) / dz
            yf = C[1] + tf * dy
            floor = (~desk) & (dz < -1e-6) & (yf <= S.y_wall)
            tw = (S.y_wall - C[1]) / np.maximum(dy, 1e-6)
        # (the rest is the wall)
        t = np.where(desk, td, np.where(floor, tf, tw))
        P = C[None, None] + t[..., None] * dirs
        kind = np.where(desk, 0, np.where(floor, 1, 2))
        return t, P, kind

    S.t_bg2, P2, kind2 = bg_geom(S.dirs2)
    t1, P1, kind1 = bg_geom(dirs1)
    S.cosax2 = (S.dirs2 @ fwd)
    # texture coordinates and footprints on the ss grid
    TX = P2[..., 0]
    TY = np.where(kind2 == 2, P2[..., 2], P2[..., 1])
    gXv, gXu = np.gradient(TX)
    gYv, gYu = np.gradient(TY)
    cap = 0.05
    G = [np.clip(g, -cap, cap) for g in (gXu, gYu, gXv, gYv)]
    alb2 = np.zeros((S.H2, S.W2, 3))
    matn = ['F0', 'n', 'spec_k', 'env_k', 'wrap']
    mat2 = {k: np.zeros((S.H2, S.W2)) for k in matn}
    m = kind2 == 0
    Gm = tuple(g[m] for g in G)
    alb2[m] = desk_alb(TX[m], TY[m], Gm)
    dm = desk_mat(TX[m], TY[m], Gm)
    for k in matn:
        mat2[k][m] = dm[k]
    m = kind2 == 1
    if m.any():
        fp = np.maximum(np.hypot(G[0][m], G[1][m]), np.hypot(G[2][m], G[3][m]))
        nn = fbm(TX[m] * 8, TY[m] * 8, wseed, 4, fp=fp * 8)
        alb2[m] = floor_col[None] * (0.6 + 0.8 * nn)[:, None]
        for k, v in dict(F0=0.04, n=10.0, spec_k=0.2, env_k=0.1, wrap=0.0).items():
            mat2[k][m] = v
    m = kind2 == 2
    if m.any():
        fp = np.maximum(np.hypot(G[0][m], G[1][m]), np.hypot(G[2][m], G[3][m]))
        nn = fbm(TX[m] * 3, TY[m] * 3, wseed + 1, 4, fp=fp * 3)
        alb2[m] = wall_col[None] * (0.93 + 0.14 * nn)[:, None]
        for k, v in dict(F0=0.03, n=4.0, spec_k=0.05, env_k=0.0, wrap=0.0).items():
            mat2[k][m] = v
    S.alb2 = np.clip(alb2, 0, 1).astype(np.float32)
    S.kind2 = kind2
    # 1x shading data
    S.P1 = P1.reshape(-1, 3)
    S.kind1 = kind1.ravel()
    N1 = np.zeros_like(S.P1)
    N1[S.kind1 != 2, 2] = 1.0
    N1[S.kind1 == 2, 1] = -1.0
    S.N1 = N1
    S.V1 = -dirs1.reshape(-1, 3)
    S.mat1 = {k: mat2[k].reshape(H, ss, W, ss).mean(axis=(1, 3)).ravel() for k in matn}
    S.desk_idx1 = np.nonzero(S.kind1 == 0)[0]
    # mean desk albedo near the dice (for bounce light)
    near = (kind2 == 0) & (np.hypot(P2[..., 0], P2[..., 1]) < 0.2)
    S.desk_mean = alb2[near].mean(0) if near.any() else alb2[kind2 == 0].mean(0)
    # ---------------- lights
    S.light_spec = make_light_spec(rng)
    # ---------------- dice set
    S.phys = make_dice_set(rng, s0)
    S.clutter_p = rng.uniform(0.0, 0.35)
    # ---------------- camera pipeline
    S.cp = make_camera_pipeline(rng, D)
    return S


def make_light_spec(rng):
    key = str(rng.choice(['ceiling', 'lamp', 'window'], p=[0.36, 0.38, 0.26]))
    spec = dict(key=key)
    lights = []

    def ceiling(ratio):
        return dict(kind='ceiling', pos=np.array([rng.uniform(-0.9, 0.9), rng.uniform(-0.7, 1.0),
                                                       rng.uniform(1.3, 2.1)]),
                    radius=rng.uniform(0.08, 0.35), T=rng.uniform(2700, 5600), ratio=ratio)

    def lamp(ratio):
        az = rng.uniform(0, 2 * math.pi)
        hd = rng.uniform(0.2, 0.55)
        pos = np.array([hd * math.cos(az), hd * math.sin(az), rng.uniform(0.2, 0.5)])
        tgt = np.array([rng.uniform(-0.08, 0.08), rng.uniform(-0.08, 0.08), 0.0])
        cout = math.radians(rng.uniform(40, 70))
        T = rng.uniform(2600, 3300) if rng.random() < 0.6 else rng.uniform(4000, 6500)
        return dict(kind='lamp', pos=pos, radius=rng.uniform(0.01, 0.04), axis=tgt - pos,
                    cos_out=math.cos(cout), cos_in=math.cos(cout * rng.uniform(0.4, 0.8)), T=T, ratio=ratio)

    def window(ratio):
        az = rng.uniform(0, 2 * math.pi)
        elv = math.radians(rng.uniform(15, 45))
        sun = rng.random() < 0.2
        return dict(kind='window', dir=np.array([math.cos(elv) * math.cos(az),
                                                      math.cos(elv) * math.sin(az), math.sin(elv)]),
                    tana=0.0047 if sun else rng.uniform(0.08, 0.3),
                    T=rng.uniform(5000, 5800) if sun else rng.uniform(5500, 7500),
                    ratio=ratio)

    mk = dict(ceiling=ceiling, lamp=lamp, window=window)
    lights.append(mk[key](1.0))
    if rng.random() < 0.35:
        other = str(rng.choice([k for k in mk if k != key]))
        lights.append(mk[other](rng.uniform(0.2, 0.6)))
    spec['lights'] = lights
    if key == 'window':
        spec['amb_T'] = rng.uniform(6500, 11000)
        spec['amb'] = rng.uniform(0.25, 0.7)
    else:
        spec['amb_T'] = lights[0]['T'] + rng.uniform(-600, 800)
        spec['amb'] = rng.uniform(0.15, 0.55)
    spec['tint'] = np.array([1.0, 1.0 + rng.normal(0, 0.02), 1.0])
    return spec


def make_lights(S, rng):
    sp = S.light_spec
    out = []
    for L in sp["lights"]:
        col = cct_rgb(L['T']) * sp['tint']
        if L['kind'] == 'ceiling':
            lt = Light('point', col, pos=L['pos'] + rng.normal(0, 0.01, 3),
                       radius=L['radius'], lambert_emit=True)
        elif L['kind'] == 'lamp':
            lt = Light('point', col, pos=L['pos'] + rng.normal(0, 0.015, 3), radius=L['radius'],
                       spot_axis=L['axis'], cos_in=L['cos_in'], cos_out=L['cos_out'])
        else:
            lt = Light('dir', col, direction=L['dir'], tana=L['tana'])
        irr = float(lt.horiz_irr() @ LUM)
        lt.rgb = lt.rgb * (L['ratio'] / max(irr, 1e-6)) * rng.uniform(0.88, 1.12)
        out.append(lt)
    S.sky = cct_rgb(sp['amb_T']) * sp['amb'] * rng.uniform(0.9, 1.1)
    key_irr = sum(lt.horiz_irr() for lt in out)
    S.ground = S.desk_mean * (key_irr + S.sky) * 0.5
    return out


def make_camera_pipeline(rng, D):
    cp = {}
    if rng.random() < 0.4:     # autofocus on the dice
        cp['zf'] = D * rng.uniform(0.9, 1.15)
    else:                      # fixed focus
        cp['zf'] = rng.uniform(0.5, 2.5)
    coc_d = rng.uniform(0.0, 1.6)
    cp['cmax'] = float(min(6.0, coc_d / max(abs(1 - cp['zf'] / D), 0.05)))
    cp['lens_sigma'] = rng.uniform(0.25, 0.75)
    cp['vignette'] = rng.uniform(0.05, 0.45)
    cp['ca'] = rng.uniform(0, 0.0025)
    cp['shot'] = 10 ** rng.uniform(-3.6, -2.6)
    cp['read'] = 10 ** rng.uniform(-3.3, -2.5)
    cp['LF'] = 10 ** rng.uniform(-0.6, 0.3)
    cp['gain_max'] = rng.uniform(4, 10)
    cp['ae_target'] = rng.uniform(0.13, 0.26)
    cp['ae_bias'] = rng.uniform(-0.35, 0.35)
    cp['ae_jitter'] = rng.uniform(0.03, 0.2)
    cp['awb_strength'] = rng.uniform(0.45, 0.9)
    cp['awb_green'] = rng.uniform(0.15, 0.45)
    cp['awb_bias'] = 1 + rng.normal(0, 0.04, 3)
    cp['sat'] = rng.uniform(0.75, 1.3)
    cp['gamma'] = rng.uniform(0.88, 1.12)
    cp['contrast'] = rng.uniform(0.0, 0.45)
    cp['black'] = rng.uniform(0.0, 0.035)
    cp['sharpen'] = rng.uniform(0.15, 1.3)
    cp['sharpen_sigma'] = rng.uniform(0.6, 1.5)
    cp['chroma_blur'] = rng.uniform(0.4, 1.3)
    cp['denoise'] = rng.uniform(0.03, 0.12) if rng.random() < 0.5 else 0.0
    cp['demosaic_ea'] = bool(rng.random() < 0.5)
    cp['ae_hl'] = rng.uniform(0.85, 1.8)
    cp['flicker'] = rng.uniform(0.008, 0.035) if rng.random() < 0.15 else 0.0
    cp['flicker_period'] = rng.uniform(40, 220)
    cp['motion_p'] = rng.uniform(0.0, 0.25)
    cp['jpeg_q'] = int(rng.integers(45, 93))
    return cp


# --------------------------------------------------------------------------- placement
def obb_separated(c1, R1, e1, c2, R2, e2, tol=2e-5):
    A = [R1[:, i] for i in range(3)]
    B = [R2[:, i] for i in range(3)]
    axes = A + B + [np.cross(a, b) for a in A for b in B]
    d = c2 - c1
    for ax in axes:
        n = np.linalg.norm(ax)
        if n < 1e-9:
            continue
        ax = ax / n
        r1 = sum(e1[i] * abs(A[i] @ ax) for i in range(3))
        r2 = sum(e2[i] * abs(B[i] @ ax) for i in range(3))
        if abs(d @ ax) >= r1 + r2 - tol:
            return True
    return False


def collide(a, b):
    """True if objects a and b intersect (conservative for boxes)."""
    if np.linalg.norm(a.c - b.c) > a.brad + b.brad:
        return False
    if a.kind == 'cyl' and b.kind == 'cyl':
        return True
    if a.kind == 'cyl' or b.kind == 'cyl':
        cy, bx = (a, b) if a.kind == 'cyl' else (b, a)
        ts = np.linspace(-cy.hl, cy.hl, max(3, int(2 * cy.hl / 0.002)))
        pts = cy.c[None] + ts[:, None] * cy.axis[None]
        return bool(bx.sdf(pts).min() < cy.rho + 2e-4)
    return not obb_separated(a.c, a.R, a.outer(), b.c, b.R, b.outer())


def hull_mask(S, ob):
    uv, z = S.cam.project(ob.corners())
    m = np.zeros((S.H, S.W), np.uint8)
    pts = np.round(uv * 4).astype(np.int32)
    hull = cv2.convexHull(pts)
    cv2.fillConvexPoly(m, hull, 1, lineType=cv2.LINE_8, shift=2)
    return m.astype(bool)


def die_ok(S, die):
    uv, z = S.cam.project(die.corners())
    if (z < 0.05).any():
        return False
    m = 3
    if ((uv[:, 0] < m).any() or (uv[:, 0] > S.W - 1 - m).any() or (uv[:, 1] < m).any()
            or (uv[:, 1] > S.H - 1 - m).any()):
        return False
    size = max(np.ptp(uv[:, 0]), np.ptp(uv[:, 1]))
    sc = S.W / 640.0
    if size < 33 * sc or size > 92 * sc:
        return False
    if (die.corners()[:, 1] > S.y_back - 0.003).any():
        return False
    tc = die.top_centre()
    v = nrm(S.cam.C - tc)
    if die.top_normal() @ v < 0.3:
        return False
    return True


def obj_on_desk(S, ob):
    cs = ob.corners()
    return bool((cs[:, 1] < S.y_back - 0.003).all())


def sample_desk_point(S, rng, z0, cluster):
    if cluster is not None:
        ctr, rad = cluster
        a = rng.uniform(0, 2 * math.pi)
        rr = rad * math.sqrt(rng.uniform(0, 1))
        return np.array([ctr[0] + rr * math.cos(a), ctr[1] + rr * math.sin(a), z0])
    u = rng.uniform(0.05, 0.95) * S.W
    v = rng.uniform(0.07, 0.95) * S.H
    P, t = S.cam.backproject_plane(u, v, z0)
    return P[0]


def flat_die(ph, xy, rng, yaw=None, Rc=None):
    face = int(rng.integers(1, 7))
    Rc = pick_cube_rot(face, rng) if Rc is None else Rc
    yaw = rng.uniform(0, 2 * math.pi) if yaw is None else yaw
    return DieObj(ph, (xy[0], xy[1], ph['s'] / 2), rot_z(yaw) @ Rc, False, yaw)


def cocked_pose(ph, theta, support, eu, rng):
    s, r = ph['s'], ph['r']
    h = s / 2 - r
    c, sn = math.cos(theta), math.sin(theta)
    cz = h * (sn + c) + r
    if support[0] == 'wall':
        cu = -(h * (c + sn) + r)
    else:
        _, su, sz, rho = support
        Qu = su - (rho + r + (sz - r) * c) / sn
        tc = (su - Qu) * c + (sz - r) * sn
        if not (1.05 * h <= tc <= 1.95 * h):
            return None
        cu = Qu + h * (c - sn)
    ev = np.cross(EZ, eu)
    face = int(rng.integers(1, 7))
    Rc = pick_cube_rot(face, rng)
    yaw = math.atan2(eu[1], eu[0]) + int(rng.integers(4)) * math.pi / 2
    R0 = rot_z(yaw) @ Rc
    Rt = rot_axis(ev, -theta)
    if (Rt @ eu)[2] < 0:
        Rt = rot_axis(ev, theta)
    return cu, cz, Rt @ R0


PENCIL_COLS = [(0.62, 0.42, 0.03), (0.42, 0.03, 0.02), (0.03, 0.06, 0.3), (0.04, 0.2, 0.06),
               (0.03, 0.03, 0.03), (0.5, 0.33, 0.17)]
BLOCK_COLS = [(0.75, 0.75, 0.72), (0.68, 0.3, 0.3), (0.55, 0.62, 0.75), (0.5, 0.35, 0.18), (0.3, 0.3, 0.32)]


def make_pencil(rng, c, axis):
    rho = rng.uniform(0.0033, 0.0040)
    hl = rng.uniform(0.045, 0.09)
    ax = nrm(np.asarray(axis, float))
    ev = np.cross(EZ, ax)
    R = np.stack([ax, ev, EZ], 1)
    if rng.random() < 0.5:
        R = np.stack([-ax, -ev, EZ], 1)
    col = np.array(PENCIL_COLS[rng.integers(len(PENCIL_COLS))])
    mat = dict(F0=0.045, n=rng.uniform(20, 80), spec_k=0.7, env_k=0.5, wrap=0.05)
    return CylObj(c, R, rho, hl, col, mat, eraser_end=rng.random() < 0.7)


def make_block(rng, c_u_origin, eu, lat, H, hu, hv, re):
    ev = np.cross(EZ, eu)
    R = np.stack([eu, ev, EZ], 1)
    c = c_u_origin + hu * eu + lat * ev + (H / 2) * EZ
    col = np.array(BLOCK_COLS[rng.integers(len(BLOCK_COLS))]) * rng.uniform(0.85, 1.1)
    mat = dict(F0=0.035, n=rng.uniform(5, 25), spec_k=0.3, env_k=0.2, wrap=0.1)
    return RBoxObj(c, R, np.array([hu - re, hv - re, H / 2 - re]), re, col, mat)


def cocked_on_die(S, rng, ph, B):
    hz = [i for i in range(3) if abs(B.R[2, i]) < 0.5]
    ax = B.R[:, hz[int(rng.integers(2))]] * (1 if rng.random() < 0.5 else -1)
    eo = nrm(np.array([ax[0], ax[1], 0.0]))
    eu = -eo
    orig = np.array([B.c[0], B.c[1], 0.0]) + eo * B.s / 2
    theta = math.radians(rng.uniform(15, 40))
    pose = cocked_pose(ph, theta, ('wall',), eu, rng)
    cu, cz, R = pose
    ev = np.cross(EZ, eu)
    lat = rng.uniform(-1, 1) * 0.3 * min(ph['s'], B.s)
    c = orig + cu * eu + lat * ev + cz * EZ
    d = DieObj(ph, c, R, True)
    d.support = B
    return d, []


def cocked_on_object(S, rng, ph, X):
    kind = str(rng.choice(['pencil', 'block_edge', 'block_wall'], p=[0.35, 0.35, 0.3]))
    phi = rng.uniform(0, 2 * math.pi)
    eu = np.array([math.cos(phi), math.sin(phi), 0.0])
    ev = np.cross(EZ, eu)
    s, r = ph['s'], ph['r']
    h = s / 2 - r
    for _ in range(15):
        theta = math.radians(rng.uniform(15, 40))
        if kind == 'pencil':
            rho = rng.uniform(0.0033, 0.0040)
            support = ('circle', 0.0, rho, rho)
        elif kind == 'block_edge':
            Hb = rng.uniform(0.004, 0.010)
            re = rng.uniform(0.0005, 0.0015)
            support = ('circle', re, Hb - re, re)
        else:
            re = rng.uniform(0.0005, 0.0015)
            Hb = rng.uniform(2 * h * math.sin(theta) + r + re + 0.002, 0.022)
            support = ('wall',)
        pose = cocked_pose(ph, theta, support, eu, rng)
        if pose is not None:
            break
    else:
        return None, []
    cu, cz, R = pose
    orig = np.array([X[0], X[1], 0.0]) - cu * eu
    c = np.array([X[0], X[1], cz])
    d = DieObj(ph, c, R, True)
    if kind == 'pencil':
        pen = make_pencil(rng, np.zeros(3), ev)
        pen.rho = rho
        lat = rng.uniform(-0.5, 0.5) * pen.hl
        pen = CylObj(orig + rho * EZ + lat * ev, pen.R, rho, pen.hl, pen.paint, pen.mat, pen.eraser_end)
        obj = pen
    else:
        hu = rng.uniform(0.008, 0.015)
        hv = rng.uniform(max(0.012, 0.6 * s), 0.028)
        lat = rng.uniform(-1, 1) * max(0.0, hv - 0.6 * s)
        obj = make_block(rng, orig, eu, lat, Hb, hu, hv, re)
    d.support = obj
    return d, [obj]


def place_scene(S, rng):
    n = int(rng.integers(1, 7))
    order = rng.permutation(len(S.phys))[:n]
    dice, objs, masks = [], [], []
    # clutter object
    if rng.random() < S.clutter_p:
        for _ in range(30):
            X = sample_desk_point(S, rng, 0.0, None)
            yaw = rng.uniform(0, 2 * math.pi)
            ax = np.array([math.cos(yaw), math.sin(yaw), 0.0])
            if rng.random() < 0.5:
                ob = make_pencil(rng, np.zeros(3), ax)
                ob = CylObj(X + ob.rho * EZ, ob.R, ob.rho, ob.hl, ob.paint, ob.mat, ob.eraser_end)
            else:
                ob = make_block(rng, X, ax, 0.0, rng.uniform(0.005, 0.012), rng.uniform(0.008, 0.015),
                                rng.uniform(0.012, 0.028), rng.uniform(0.0005, 0.0015))
            if obj_on_desk(S, ob):
                objs.append(ob)
                break
    cluster = None
    if rng.random() < 0.5:
        ctr = sample_desk_point(S, rng, 0.0, None)
        cluster = (ctr, rng.uniform(0.025, 0.08))
    for pid in order:
        ph = S.phys[pid]
        for att in range(250):
            r = rng.random()
            flats = [d for d in dice if not d.tilted]
            new_objs = []
            cl = cluster if (cluster is not None and att < 120) else None
            if r < 0.11:
                if flats and rng.random() < 0.65:
                    die, new_objs = cocked_on_die(S, rng, ph, flats[int(rng.integers(len(flats)))])
                else:
                    X = sample_desk_point(S, rng, 0.0, cl)
                    die, new_objs = cocked_on_object(S, rng, ph, X)
            elif r < 0.23 and flats:
                B = flats[int(rng.integers(len(flats)))]
                hz = [i for i in range(3) if abs(B.R[2, i]) < 0.5]
                ax = B.R[:, hz[int(rng.integers(2))]] * (1 if rng.random() < 0.5 else -1)
                ax = nrm(np.array([ax[0], ax[1], 0.0]))
                perp = np.cross(EZ, ax)
                gap = rng.uniform(0.0, 0.0004)
                lat = rng.uniform(-0.6, 0.6) * (B.s + ph['s']) / 2
                xy = B.c[:2] + ax[:2] * (B.s / 2 + ph['s'] / 2 + gap) + perp[:2] * lat
                die = flat_die(ph, xy, rng, yaw=B.yaw + int(rng.integers(4)) * math.pi / 2)
            else:
                X = sample_desk_point(S, rng, ph['s'] / 2, cl)
                die = flat_die(ph, X[:2], rng)
            if die is None:
                continue
            if not die_ok(S, die):
                continue
            bad = False
            for o in dice:
                if o is die.support:
                    continue
                if collide(die, o):
                    bad = True
                    break
            if bad:
                continue
            for o in objs:
                if o is die.support:
                    continue
                if collide(die, o):
                    bad = True
                    break
            if bad:
                continue
            for ob in new_objs:
                if not obj_on_desk(S, ob):
                    bad = True
                for o in dice + objs:
                    if collide(ob, o):
                        bad = True
                        break
                if bad:
                    break
            if bad:
                continue
            # projected overlap pre-check (avoid heavily hidden dice)
            m = hull_mask(S, die)
            area = m.sum()
            dcam = np.linalg.norm(die.c - S.cam.C)
            for o, mo in zip(dice, masks):
                ov = np.count_nonzero(m & mo)
                if ov == 0:
                    continue
                far_area = area if dcam > np.linalg.norm(o.c - S.cam.C) else mo.sum()
                lim = 0.45 if o is die.support else 0.3
                if ov / max(far_area, 1) > lim:
                    bad = True
                    break
            if bad:
                continue
            dice.append(die)
            masks.append(m)
            objs.extend(new_objs)
            break
    return dice, objs


# --------------------------------------------------------------------------- rendering
def obj_rect(S, ob, pad=3):
    uv, z = S.cam.project(ob.corners())
    ss = S.ss
    u = (uv[:, 0] + 0.5) * ss - 0.5
    v = (uv[:, 1] + 0.5) * ss - 0.5
    if (z < 0.01).any():
        return 0, 0, S.W2, S.H2
    x0 = int(max(0, math.floor(u.min()) - pad * ss))
    x1 = int(min(S.W2, math.ceil(u.max()) + pad * ss + 1))
    y0 = int(max(0, math.floor(v.min()) - pad * ss))
    y1 = int(min(S.H2, math.ceil(v.max()) + pad * ss + 1))
    return x0, y0, x1, y1


def upsample_by_kind(S, X1):
    """Upsample a 1x background quantity to the supersampled grid without mixing
    desk / floor / wall (normalised convolution per surface kind)."""
    H2, W2 = S.H2, S.W2
    X1 = X1.reshape(S.H, S.W, 3).astype(np.float32)
    k1 = S.kind1.reshape(S.H, S.W)
    out = cv2.resize(X1, (W2, H2), interpolation=cv2.INTER_NEAREST)
    for kd in (0, 1, 2):
        m1 = (k1 == kd).astype(np.float32)
        if not m1.any() or m1.all():
            if m1.all():
                return cv2.resize(X1, (W2, H2), interpolation=cv2.INTER_LINEAR)
            continue
        num = cv2.resize(X1 * m1[..., None], (W2, H2), interpolation=cv2.INTER_LINEAR)
        den = cv2.resize(m1, (W2, H2), interpolation=cv2.INTER_LINEAR)
        sel = (S.kind2 == kd) & (den > 1e-3)
        out[sel] = num[sel] / den[sel][:, None]
    return out


def render_radiance(S, lights, occs):
    H2, W2 = S.H2, S.W2
    tbuf = S.t_bg2.ravel().copy()
    ibuf = np.full(H2 * W2, -1, np.int32)
    hits = []
    C = S.cam.C
    for k, ob in enumerate(occs):
        x0, y0, x1, y1 = obj_rect(S, ob)
        if x1 <= x0 or y1 <= y0:
            hits.append(None)
            continue
        D = S.dirs2[y0:y1, x0:x1].reshape(-1, 3)
        yy, xx = np.mgrid[y0:y1, x0:x1]
        pix = (yy * W2 + xx).ravel()
        h = ob.trace(C, D)
        h['pix'] = pix[h['idx']]
        h['D'] = D[h['idx']]
        m = h['t'] < tbuf[h['pix']]
        tbuf[h['pix'][m]] = h['t'][m]
        ibuf[h['pix'][m]] = k
        hits.append(h)
    # background lighting on the 1x grid
    P1 = S.P1
    M1 = len(P1)
    vis1 = []
    di = S.desk_idx1
    for Lt in lights:
        v = np.ones(M1)
        if Lt.shadows and len(occs):
            v[di] = soft_shadow(P1[di], Lt, occs)
        vis1.append(v)
    ao1 = np.ones(M1)
    if len(occs):
        ao1[di] = ambient_occ(P1[di], S.N1[di], occs, plane=False)
    Ed, Sp = lighting(P1, S.N1, S.V1, lights, vis1, ao1, S.mat1, S)
    fl = S.kind1 == 1
    Ed[fl] *= 0.3
    Sp[fl] *= 0.3
    Ed2 = upsample_by_kind(S, Ed)
    Sp2 = upsample_by_kind(S, Sp)
    rad = (S.alb2 * Ed2 + Sp2).reshape(-1, 3)
    stats = []
    for k, ob in enumerate(occs):
        h = hits[k]
        if h is None or len(h['idx']) == 0:
            stats.append(None)
            continue
        win = ibuf[h['pix']] == k
        st = dict(own=len(h['idx']), vis=int(win.sum()))
        if ob.kind == 'die':
            top = h['face'] == ob.face
            st['own_top'] = int(top.sum())
            st['vis_top'] = int((top & win).sum())
        stats.append(st)
        if not win.any():
            continue
        sub = {key: (val[win] if isinstance(val, np.ndarray) and len(val) == len(win) else val)
               for key, val in h.items()}
        P = C[None] + sub['t'][:, None] * sub['D']
        col = ob.shade(sub, S, lights, occs, k, P, -sub['D'])
        rad[sub['pix']] = col
    depth = (tbuf * S.cosax2.ravel()).reshape(H2, W2)
    return rad.reshape(H2, W2, 3).astype(np.float32), depth, stats


def srgb_oetf(x):
    return np.where(x <= 0.0031308, 12.92 * x, 1.055 * np.power(np.maximum(x, 0.0031308), 1 / 2.4) - 0.055)


def camera_pipeline(S, img, depth, rng):
    cp = S.cp
    ss = S.ss
    H, W = S.H, S.W
    # --- defocus (depth dependent) + lens softness, on the supersampled image
    coc = cp['cmax'] * np.abs(1 - cp['zf'] / np.maximum(depth, 1e-3))
    sig = np.sqrt((coc * ss * 0.42) ** 2 + (cp['lens_sigma'] * ss) ** 2).astype(np.float32)
    levels = [0.0, 0.7, 1.4, 2.8, 5.6, 11.2]
    smax = float(sig.max())
    stack = [img]
    for lv in levels[1:]:
        stack.append(cv2.GaussianBlur(img, (0, 0), lv))
        if lv >= smax:
            break
    lv = np.array(levels[:len(stack)], np.float32)
    pos = np.interp(sig, lv, np.arange(len(stack), dtype=np.float32)).astype(np.float32)
    out = np.zeros_like(img)
    for i, im in enumerate(stack):
        w = np.clip(1 - np.abs(pos - i), 0, 1)
        out += im * w[..., None]
    img = out
    # --- camera shake
    if rng.random() < cp['motion_p']:
        Lm = rng.uniform(1.0, 4.0) * ss
        a = rng.uniform(0, math.pi)
        ks = int(math.ceil(Lm)) * 2 + 1
        kern = np.zeros((ks, ks), np.float32)
        c0 = ks // 2
        for tt in np.linspace(-Lm / 2, Lm / 2, 4 * ks):
            x = c0 + tt * math.cos(a)
            y = c0 + tt * math.sin(a)
            x0, y0 = int(math.floor(x)), int(math.floor(y))
            fx, fy = x - x0, y - y0
            for dx, dy, w in ((0, 0, (1 - fx) * (1 - fy)), (1, 0, fx * (1 - fy)),
                              (0, 1, (1 - fx) * fy), (1, 1, fx * fy)):
                if 0 <= x0 + dx < ks and 0 <= y0 + dy < ks:
                    kern[y0 + dy, x0 + dx] += w
        kern /= kern.sum()
        img = cv2.filter2D(img, -1, kern, borderType=cv2.BORDER_REFLECT)
    # --- sensor resolution
    img = cv2.resize(img, (W, H), interpolation=cv2.INTER_AREA)
    # --- lateral chromatic aberration
    if cp['ca'] > 1e-5:
        xx, yy = np.meshgrid(np.arange(W, dtype=np.float32), np.arange(H, dtype=np.float32))
        cx, cy = S.cam.cx, S.cam.cy
        chans = [img[..., 0], img[..., 1], img[..., 2]]
        for ci, e in ((0, cp['ca']), (2, -cp['ca'])):
            mx = (cx + (xx - cx) * (1 + e)).astype(np.float32)
            my = (cy + (yy - cy) * (1 + e)).astype(np.float32)
            chans[ci] = cv2.remap(np.ascontiguousarray(chans[ci]), mx, my, cv2.INTER_LINEAR,
                                  borderMode=cv2.BORDER_REPLICATE)
        img = np.stack(chans, -1)
    # --- vignetting
    xx, yy = np.meshgrid(np.arange(W, dtype=np.float32), np.arange(H, dtype=np.float32))
    r2 = ((xx - S.cam.cx) ** 2 + (yy - S.cam.cy) ** 2) / (0.25 * (W * W + H * H))
    img = img * (1 - cp['vignette'] * r2 + 0.3 * cp['vignette'] * r2 * r2)[..., None]
    # --- auto exposure
    Y = img @ LUM.astype(np.float32)
    wgt = np.exp(-r2 / (2 * 0.35 ** 2))
    meanY = float((Y * wgt).sum() / wgt.sum())
    expo = cp['ae_target'] / max(meanY, 1e-6) * 2 ** (cp['ae_bias'] + rng.normal(0, cp['ae_jitter']))
    # highlight protection (caps exposure by a high percentile of luminance)
    hi = float(np.percentile(Y[::2, ::2], 99.7))
    expo = min(expo, cp['ae_hl'] / max(hi, 1e-6))
    ref = 0.4 * cp['LF']
    gain = max(1.0, expo / ref)
    if gain > cp['gain_max']:
        gain = cp['gain_max']
        expo = gain * ref
    raw = img * expo
    # --- mains flicker banding (rolling shutter under AC lighting)
    if cp['flicker'] > 0:
        ph = rng.uniform(0, 2 * math.pi)
        band = 1 + cp['flicker'] * np.sin(2 * math.pi * np.arange(H) / cp['flicker_period'] + ph)
        raw = raw * band[:, None, None].astype(np.float32)
    # --- Bayer sensor (RGGB): per-photosite shot + read noise, 10-bit ADC, demosaicing
    mos = np.empty((H, W), np.float32)
    mos[0::2, 0::2] = raw[0::2, 0::2, 0]
    mos[0::2, 1::2] = raw[0::2, 1::2, 1]
    mos[1::2, 0::2] = raw[1::2, 0::2, 1]
    mos[1::2, 1::2] = raw[1::2, 1::2, 2]
    sig = np.sqrt(np.maximum(mos, 0) * cp['shot'] * gain + (cp['read'] * gain) ** 2)
    mos = mos + sig * rng.standard_normal((H, W)).astype(np.float32)
    mos = np.clip(np.round(np.clip(mos, 0, 1) * 1023) / 1023, 0, 1)
    m16 = (mos * 65535).astype(np.uint16)
    code = getattr(cv2, 'COLOR_BayerRGGB2RGB' + ('_EA' if cp['demosaic_ea'] else ''),
                   getattr(cv2, 'COLOR_BayerBG2RGB' + ('_EA' if cp['demosaic_ea'] else '')))
    raw = cv2.demosaicing(m16, code).astype(np.float32) / 65535.0
    if cp['denoise'] > 0:
        raw = cv2.bilateralFilter(raw, 5, cp['denoise'], 1.5)
    # --- auto white balance (grey world, partial)
    mean_c = raw.reshape(-1, 3).mean(0) + 1e-6
    est = np.log(mean_c / float(mean_c @ LUM))
    u1 = np.array([1.0, 0.0, -1.0]) / math.sqrt(2)      # amber - blue axis
    u2 = np.array([-1.0, 2.0, -1.0]) / math.sqrt(6)     # green - magenta axis
    a_lo = float(np.log(cct_rgb(8500)) @ u1)           # AWB search range limited to
    a_hi = float(np.log(cct_rgb(2600)) @ u1)           # plausible illuminants
    a = float(np.clip(est @ u1, a_lo, a_hi))
    b = float(np.clip(est @ u2, -0.15, 0.15))
    corr = -cp['awb_strength'] * (a * u1 + cp['awb_green'] * b * u2)
    est = np.exp(est)
    g = np.exp(corr) * cp['awb_bias'] * (1 + rng.normal(0, 0.01, 3))
    g = np.clip(g / float((g * est) @ LUM), 0.4, 3.0)
    img = raw * g.astype(np.float32)[None, None]
    # --- colour saturation
    Y = (img @ LUM.astype(np.float32))[..., None]
    img = Y + cp['sat'] * (img - Y)
    img = np.clip(img, 0, 1)
    # --- tone curve
    y = srgb_oetf(img).astype(np.float32)
    y = np.power(np.clip(y, 0, 1), cp['gamma'])
    y = (1 - cp['contrast']) * y + cp['contrast'] * y * y * (3 - 2 * y)
    y = cp['black'] + (1 - cp['black']) * y
    y = np.clip(y, 0, 1).astype(np.float32)
    # --- ISP: sharpen luma, blur chroma
    ycc = cv2.cvtColor(y, cv2.COLOR_RGB2YCrCb)
    L = ycc[..., 0]
    bl = cv2.GaussianBlur(L, (0, 0), cp['sharpen_sigma'])
    ycc[..., 0] = L + cp['sharpen'] * (L - bl)
    for ci in (1, 2):
        ycc[..., ci] = cv2.GaussianBlur(ycc[..., ci], (0, 0), cp['chroma_blur'])
    y = cv2.cvtColor(ycc, cv2.COLOR_YCrCb2RGB)
    out = np.clip(np.round(y * 255), 0, 255).astype(np.uint8)
    return cv2.cvtColor(out, cv2.COLOR_RGB2BGR)


def render_image(S, index):
    rng = np.random.default_rng([S.seed, index, 4242])
    lights = make_lights(S, rng)
    dice, objs = place_scene(S, rng)
    occs = dice + objs
    rad, depth, stats = render_radiance(S, lights, occs)
    bgr = camera_pipeline(S, rad, depth, rng)
    truth = []
    for k, d in enumerate(dice):
        st = stats[k]
        if st is None or st['own'] == 0 or st['own_top'] < 8:
            continue
        if st['vis'] / st['own'] < 2 / 3 or st['vis_top'] / st['own_top'] < 2 / 3:
            continue
        uv, _ = S.cam.project(d.top_centre()[None])
        # the die's outline's box: its eight corners projected (for learning from; the
        # benchmark reads the top face's centre)
        corners = d.c + (np.array(list(itertools.product((-1, 1), repeat=3)), float) * d.s / 2) @ d.R.T
        cuv, _ = S.cam.project(corners)
        box = [round(float(v), 1) for v in (*cuv.min(axis=0), *cuv.max(axis=0))]
        truth.append({"face": str(d.face), "x": round(float(uv[0, 0]), 2), "y": round(float(uv[0, 1]), 2),
                      "tilted": bool(d.tilted), "colour": d.ph['colour'], "box": box})
    return bgr, truth


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('out_dir')
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--images', type=int, default=10)
    ap.add_argument('--width', type=int, default=640)
    ap.add_argument('--height', type=int, default=480)
    ap.add_argument('--ss', type=int, default=2, help='supersampling factor (default 2)')
    ap.add_argument('--quiet', action='store_true')
    ap.add_argument('--elevation', default='25,65',
                    help="the camera's elevation above the desk, degrees: LO,HI (default 25,65; "
                         "added 2026-12-02 to learn from lower webcams)")
    a = ap.parse_args(argv)
    try:
        elevation = tuple(float(v) for v in a.elevation.split(','))
        if len(elevation) != 2 or not 5 <= elevation[0] <= elevation[1] <= 85:
            raise ValueError
    except ValueError:
        ap.error(f"--elevation: LO,HI in degrees from 5 to 85, LO <= HI, not {a.elevation!r}")
    os.makedirs(a.out_dir, exist_ok=True)
    t0 = time.time()
    S = build_setup(a.seed, a.width, a.height, max(1, a.ss), elevation)
    if not a.quiet:
        ci = S.cam_info
        print(f"setup seed={a.seed}: desk={S.desk_kind} light={S.light_spec['key']}"
              f"{'+' + S.light_spec['lights'][1]['kind'] if len(S.light_spec['lights']) > 1 else ''} "
              f"elev={ci['elev']:.0f}deg dist={ci['dist'] * 100:.0f}cm dfov={ci['dfov']:.0f}deg "
              f"k1={ci['k1']:.3f} "
              f"dice={[p['colour'] for p in S.phys]} ({time.time() - t0:.1f}s)", file=sys.stderr)
    images = {}
    for i in range(1, a.images + 1):
        t1 = time.time()
        bgr, truth = render_image(S, i)
        name = f"img-{i:04d}.jpg"
        ok, buf = cv2.imencode('.jpg', bgr, [int(cv2.IMWRITE_JPEG_QUALITY), S.cp['jpeg_q']])
        with open(os.path.join(a.out_dir, name), 'wb') as fh:
            fh.write(buf.tobytes())
        images[name] = truth
        if not a.quiet:
            print(f"  {name}: {len(truth)} dice {[t['face'] + ('*' if t['tilted'] else '') for t in truth]} "
                  f"({time.time() - t1:.2f}s)", file=sys.stderr)
    with open(os.path.join(a.out_dir, 'truth.json'), 'w') as fh:
        json.dump({"seed": a.seed, "size": [a.width, a.height], "images": images}, fh, indent=1)
    return 0


if __name__ == '__main__':
    sys.exit(main())
