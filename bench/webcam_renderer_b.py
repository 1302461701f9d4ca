#!/usr/bin/env python3
"""Synthetic oblique-webcam photographs of pip D6 dice on a table (renderer B).

Independent test-data generator.  Per-pixel ray casting (numpy): dice are
sphere-traced rounded cubes whose pips are exact spherical dimples (analytic
ray/sphere hit), props (pencil, coin, card, cup) are signed-distance solids,
the table / wall / floor are analytic planes with procedural, mip-filtered
textures.  Soft shadows (SDF cone tracing) and ambient occlusion, glossy
highlights, optional mirror reflections on a dark glass table.  The frame is
rendered supersampled and then pushed through a cheap-camera model: defocus
by depth, vignetting, lateral chromatic aberration, occasional motion blur,
auto exposure error, Bayer mosaic + shot/read noise + demosaic, imperfect
auto white balance, saturation/tone curve, sharpening halos, chroma smoothing
and JPEG.

    python bench/webcam_renderer_b.py OUT_DIR --seed N --images K [--width 640 --height 480]

Only numpy and OpenCV.  Deterministic from the seed.
"""
import os

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

import argparse  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

import cv2  # noqa: E402
import numpy as np  # noqa: E402

cv2.setNumThreads(1)

F = np.float32
SS = 3.0            # supersampling factor per axis at 640x480 (fewer samples per pixel for larger frames)
MAX_SAMPLES = 640 * 480 * SS * SS
AXNUM = np.array([2, 5, 3, 4, 1, 6])   # face number of +x,-x,+y,-y,+z,-z
SQ3 = math.sqrt(3.0)


# ----------------------------------------------------------------- helpers
def dot(a, b):
    return np.einsum("...i,...i->...", a, b)


def nrm(v):
    n = np.sqrt(dot(v, v))[..., None]
    return v / np.maximum(n, 1e-9)


def smoothstep(e0, e1, x):
    t = np.clip((x - e0) / (e1 - e0), 0.0, 1.0)
    return t * t * (3.0 - 2.0 * t)


def s2l(c):
    c = np.asarray(c, dtype=np.float64)
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def l2s(x):
    x = np.clip(x, 0.0, 1.0)
    return np.where(x <= 0.0031308, 12.92 * x, 1.055 * np.power(x, 1 / 2.4) - 0.055)


def rot(axis, ang):
    a = np.asarray(axis, dtype=np.float64)
    a = a / np.linalg.norm(a)
    K = np.array([[0, -a[2], a[1]], [a[2], 0, -a[0]], [-a[1], a[0], 0]])
    return np.eye(3) + math.sin(ang) * K + (1 - math.cos(ang)) * (K @ K)


def rotz(a):
    return rot((0, 0, 1), a)


def kelvin(T):
    """Approximate linear RGB of a black body, luminance normalised to 1."""
    t = T / 100.0
    r = 255.0 if t <= 66 else 329.698727446 * (t - 60) ** -0.1332047592
    g = (99.4708025861 * math.log(t) - 161.1195681661) if t <= 66 else 288.1221695283 * (t - 60) ** -0.0755148492
    if t >= 66:
        b = 255.0
    elif t <= 19:
        b = 0.0
    else:
        b = 138.5177312231 * math.log(t - 10) - 305.0447927307
    lin = s2l(np.clip(np.array([r, g, b]) / 255.0, 0, 1))
    return lin / (0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2])


def fft_noise(rng, n, beta=2.0, sx=1.0, sy=1.0, angle=0.0, kmax=None):
    """Periodic (tileable) 1/f^beta noise, zero mean, unit std."""
    fy = np.fft.fftfreq(n)[:, None]
    fx = np.fft.rfftfreq(n)[None, :]
    ca, sa = math.cos(angle), math.sin(angle)
    u = (fx * ca + fy * sa) * sx
    v = (-fx * sa + fy * ca) * sy
    k = np.sqrt(u * u + v * v)
    k[0, 0] = 1.0
    amp = k ** (-beta / 2.0)
    if kmax is not None:
        amp = amp * np.exp(-(k / kmax) ** 2)
    amp[0, 0] = 0.0
    spec = amp * (rng.standard_normal(amp.shape) + 1j * rng.standard_normal(amp.shape))
    img = np.fft.irfft2(spec, s=(n, n))
    img -= img.mean()
    img /= img.std() + 1e-12
    return img.astype(F)


def stripe(x, duty, soft):
    """Anti-aliased periodic band: 1 inside [0,duty) of each unit period."""
    dd = np.abs(np.mod(x - duty * 0.5 + 0.5, 1.0) - 0.5)
    return np.clip((duty * 0.5 - dd) / max(soft, 1e-4) + 0.5, 0.0, 1.0)


def build_pyr(img):
    pyr = [np.ascontiguousarray(img.astype(F))]
    while min(pyr[-1].shape[:2]) >= 16:
        a = pyr[-1]
        p = 4
        pad = np.pad(a, ((p, p), (p, p)) + ((0, 0),) * (a.ndim - 2), mode="wrap")
        d = cv2.pyrDown(pad)
        pyr.append(np.ascontiguousarray(d[p // 2:-(p // 2), p // 2:-(p // 2)]))
    return pyr


def sample_pyr(pyr, tx, ty, fp):
    """Trilinear (mip) sample of a tileable pyramid at texel coords tx,ty with footprint fp texels."""
    lv = np.clip(np.log2(np.maximum(fp, 1e-3)), 0, len(pyr) - 1).astype(F)
    out = None
    for l, im in enumerate(pyr):
        w = np.clip(1.0 - np.abs(lv - l), 0, 1).astype(F)
        if not (w > 0).any():
            continue
        s = float(2 ** l)
        hh, ww = im.shape[:2]
        mx = np.mod((tx + 0.5) / s - 0.5, ww).astype(F)
        my = np.mod((ty + 0.5) / s - 0.5, hh).astype(F)
        smp = cv2.remap(im, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_WRAP)
        if smp.ndim == 3:
            w = w[..., None]
        out = smp * w if out is None else out + smp * w
    return out


def remap_pts(img, x, y):
    """Bilinear wrap-around lookup of img at a flat list of points (any count)."""
    n = x.shape[0]
    w = 1024
    m = (n + w - 1) // w
    xx = np.zeros(m * w, F)
    yy = np.zeros(m * w, F)
    xx[:n] = x
    yy[:n] = y
    r = cv2.remap(img, xx.reshape(m, w), yy.reshape(m, w), cv2.INTER_LINEAR, borderMode=cv2.BORDER_WRAP)
    return r.reshape((m * w,) + r.shape[2:])[:n]


def aa_line(dist, half_w, fp):
    """Coverage of a thin line of half width half_w at distance dist, box filtered by footprint fp."""
    cov = np.clip(1.0 - np.maximum(np.abs(dist) - half_w, 0.0) / (0.5 * fp + 1e-3), 0, 1)
    return cov * np.minimum(1.0, 2 * half_w / np.maximum(fp, 1e-3))


# ----------------------------------------------------------------- tables
WOODS = [("oak", (0.80, 0.60, 0.38), (0.55, 0.36, 0.19)),
         ("pine", (0.88, 0.72, 0.50), (0.70, 0.48, 0.26)),
         ("walnut", (0.45, 0.30, 0.18), (0.22, 0.13, 0.07)),
         ("cherry", (0.66, 0.36, 0.21), (0.42, 0.19, 0.10)),
         ("grey-wash", (0.66, 0.63, 0.58), (0.44, 0.42, 0.38)),
         ("dark-stain", (0.30, 0.19, 0.12), (0.13, 0.08, 0.05)),
         ("birch", (0.90, 0.82, 0.68), (0.74, 0.62, 0.46)),
         ("mahogany", (0.52, 0.24, 0.14), (0.30, 0.11, 0.06)),
         ("teak", (0.70, 0.47, 0.25), (0.47, 0.28, 0.12))]

CLOTH_COLS = [("red", (0.70, 0.10, 0.10)), ("blue", (0.16, 0.27, 0.62)), ("green", (0.16, 0.46, 0.22)),
              ("navy", (0.10, 0.13, 0.30)), ("burgundy", (0.42, 0.08, 0.12)), ("beige", (0.82, 0.74, 0.60)),
              ("grey", (0.50, 0.50, 0.50)), ("yellow", (0.88, 0.74, 0.22)), ("orange", (0.88, 0.45, 0.15)),
              ("teal", (0.10, 0.45, 0.45)), ("brown", (0.40, 0.26, 0.16)), ("pink", (0.90, 0.60, 0.68)),
              ("black", (0.07, 0.07, 0.08)), ("white", (0.88, 0.88, 0.86))]

LAMINATE_COLS = [("white", (0.88, 0.88, 0.86)), ("light-grey", (0.72, 0.72, 0.71)), ("grey", (0.46, 0.46, 0.47)),
                 ("beige", (0.82, 0.76, 0.64)), ("black", (0.07, 0.07, 0.075)), ("charcoal", (0.20, 0.20, 0.21)),
                 ("pale-blue", (0.64, 0.74, 0.82)), ("sage", (0.60, 0.68, 0.57)), ("cream", (0.91, 0.87, 0.75)),
                 ("red", (0.55, 0.12, 0.10)), ("mustard", (0.80, 0.66, 0.30)), ("navy", (0.14, 0.18, 0.32))]


class Table:
    pass


def make_wood(rng, tb):
    n, ms = 1024, 0.6
    per = n * ms
    name, light, dark = WOODS[rng.integers(len(WOODS))]
    jit = np.exp(rng.normal(0, 0.06, 3))
    light = s2l(light) * jit
    dark = s2l(dark) * jit
    k = int(rng.choice([1, 3, 4, 5, 6, 8]))
    pw = per / k
    yy, xx = np.mgrid[0:n, 0:n].astype(F) * ms
    warp = fft_noise(rng, n, 4.0, sx=8.0) * rng.uniform(2, 8)
    pid = (np.floor(yy / pw).astype(np.int32)) % k
    yl = yy - np.floor(yy / pw) * pw
    yc = rng.uniform(0, pw, k)
    fr = 1.0 / rng.uniform(1.5, 6.0, k)
    ph = rng.uniform(0, 1, k)
    arch = rng.uniform(2, 25) * np.sin(2 * np.pi * xx / per * rng.integers(1, 4) + rng.uniform(0, 6.3))
    g = np.abs(yl - yc[pid] + warp + arch) * fr[pid] + ph[pid] + 0.8 * fft_noise(rng, n, 3.5, sx=5.0)
    ring = g - np.floor(g)
    late = np.exp(-((ring - 0.8) / 0.09) ** 2) + 0.35 * smoothstep(0.3, 0.8, ring)
    fib = fft_noise(rng, n, 1.2, sx=20.0)
    blot = fft_noise(rng, n, 3.0, sx=3.0)
    t = np.clip(0.15 + rng.uniform(0.3, 0.55) * late + 0.12 * fib + 0.12 * blot, 0, 1)
    col = light[None, None, :] * (1 - t)[..., None] + dark[None, None, :] * t[..., None]
    tint = np.exp(rng.normal(0, 0.07, (k, 1)) + rng.normal(0, 0.025, (k, 3)))
    col = col * tint[pid]
    if k > 1:
        dd = np.minimum(yl, pw - yl)
        col = col * (1 - 0.65 * np.exp(-(dd / 0.45) ** 2))[..., None]
    tb.name = "wood-" + name + ("" if k == 1 else "-planks")
    tb.macro, tb.ms = build_pyr(col), ms
    tb.det, tb.ds, tb.damp = build_pyr(fft_noise(rng, 512, 1.0, sx=25.0)), 0.08, rng.uniform(0.05, 0.12)
    tb.spec = (0.04, rng.uniform(30, 300), rng.uniform(0.4, 1.0))


def make_cloth(rng, tb):
    n, ms = 1024, 0.5
    per = n * ms
    style = rng.choice(["plain", "gingham", "gingham", "stripes", "felt", "check"])
    cname, c = CLOTH_COLS[rng.integers(len(CLOTH_COLS))]
    c = s2l(c)
    white = s2l((0.92, 0.91, 0.88)) * np.exp(rng.normal(0, 0.03, 3))
    yy, xx = np.mgrid[0:n, 0:n].astype(F) * ms
    if style == "gingham":
        P = per / round(per / rng.uniform(6, 25))
        a = stripe(xx / P, 0.5, 0.6 / P)
        b = stripe(yy / P, 0.5, 0.6 / P)
        m = (0.5 * (a + b))[..., None]
        col = white * (1 - m) + c * m
    elif style == "check":
        P = per / round(per / rng.uniform(15, 50))
        _, c2 = CLOTH_COLS[rng.integers(len(CLOTH_COLS))]
        c2 = s2l(c2)
        a = stripe(xx / P, 0.5, 0.6 / P)
        b = stripe(yy / P, 0.5, 0.6 / P)
        m = np.abs(a - b)[..., None]
        col = c * (1 - m) + c2 * m
    elif style == "stripes":
        P = per / round(per / rng.uniform(12, 60))
        _, c2 = CLOTH_COLS[rng.integers(len(CLOTH_COLS))]
        c2 = s2l(c2)
        m = stripe(xx / P, rng.uniform(0.2, 0.6), 0.6 / P)[..., None]
        col = c * (1 - m) + c2 * m
        m2 = stripe(xx / P - 0.5, 0.08, 0.6 / P)[..., None] * rng.uniform(0, 1)
        col = col * (1 - m2) + white * m2
    else:
        if style == "felt":
            cname, c = [("green", (0.10, 0.36, 0.16)), ("red", (0.50, 0.08, 0.08)),
                        ("blue", (0.10, 0.20, 0.45)), ("black", (0.06, 0.06, 0.06))][rng.integers(4)]
            c = s2l(c)
        col = np.ones((n, n, 1), F) * c
    col = col * (1 + 0.05 * fft_noise(rng, n, 3.0))[..., None]
    wn = fft_noise(rng, n, 4.5)
    gy, gx = np.gradient(wn)
    a = rng.uniform(0, 6.3)
    sh = gx * math.cos(a) + gy * math.sin(a)
    col = col * (1 + rng.uniform(0.03, 0.10) * sh / (sh.std() + 1e-9))[..., None]
    tb.name = "cloth-" + style + "-" + cname
    tb.macro, tb.ms = build_pyr(np.clip(col, 0, 1)), ms
    if style == "felt":
        tb.det, tb.ds, tb.damp = build_pyr(fft_noise(rng, 512, 0.8)), 0.06, rng.uniform(0.10, 0.18)
        tb.weave = None
    else:
        tb.det, tb.ds, tb.damp = build_pyr(fft_noise(rng, 512, 1.5, sx=4.0)), 0.12, rng.uniform(0.04, 0.08)
        tb.weave = (rng.uniform(0.35, 0.9), rng.uniform(0.12, 0.28))
    tb.spec = (0.02, 4.0, 0.15)


def make_mat(rng, tb):
    n, ms = 1024, 0.6
    per = n * ms
    theme = rng.choice(["grass", "desert", "space", "stone", "ocean", "plain", "plain"])
    n1 = fft_noise(rng, n, 3.5)
    n2 = fft_noise(rng, n, 2.2)
    yy, xx = np.mgrid[0:n, 0:n].astype(F) * ms

    def mix3(c1, c2, c3):
        c1, c2, c3 = s2l(c1), s2l(c2), s2l(c3)
        m = smoothstep(-1.2, 1.2, n1)[..., None]
        col = c1 * (1 - m) + c2 * m
        m3 = smoothstep(0.9, 1.6, n2)[..., None]
        return col * (1 - m3) + c3 * m3
    if theme == "grass":
        col = mix3((0.18, 0.32, 0.10), (0.36, 0.46, 0.16), (0.46, 0.40, 0.22))
    elif theme == "desert":
        col = mix3((0.72, 0.55, 0.35), (0.58, 0.40, 0.24), (0.82, 0.70, 0.52))
    elif theme == "ocean":
        col = mix3((0.05, 0.18, 0.35), (0.10, 0.35, 0.50), (0.55, 0.70, 0.75))
    elif theme == "stone":
        col = mix3((0.36, 0.36, 0.35), (0.50, 0.49, 0.46), (0.30, 0.33, 0.28))
        P = per / round(per / rng.uniform(30, 60))
        grout = np.maximum(stripe(xx / P, 0.03, 0.02), stripe((yy + 0.5 * P * (np.floor(xx / P) % 2)) / P, 0.03, 0.02))
        col = col * (1 - 0.6 * grout)[..., None]
    elif theme == "space":
        base = s2l((0.02, 0.025, 0.06))
        neb = s2l([(0.35, 0.10, 0.45), (0.10, 0.25, 0.50), (0.45, 0.15, 0.20)][rng.integers(3)])
        m = smoothstep(0.3, 2.2, n1)[..., None]
        col = base * (1 - m) + neb * m * 0.8
        stars = (rng.random((n, n)) < 0.0015).astype(F)
        stars = cv2.GaussianBlur(stars, (0, 0), 0.8) * 6
        col = col + stars[..., None] * 0.8
    else:
        _, c = [("black", (0.05, 0.05, 0.055)), ("charcoal", (0.13, 0.13, 0.14)), ("navy", (0.05, 0.07, 0.18)),
                ("green", (0.05, 0.20, 0.10)), ("wine", (0.22, 0.04, 0.06)), ("blue", (0.08, 0.20, 0.45))][rng.integers(6)]
        col = np.ones((n, n, 1), F) * s2l(c) * (1 + 0.04 * n1)[..., None]
    if rng.random() < 0.35:
        P = per / round(per / 25.4)
        lc = 0.0 if col.mean() > 0.08 else 0.6
        g = np.maximum(stripe(xx / P, 0.4 / P * 2, 0.5 / P), stripe(yy / P, 0.4 / P * 2, 0.5 / P))[..., None] * 0.45
        col = col * (1 - g) + lc * g
    tb.name = "mat-" + theme
    tb.macro, tb.ms = build_pyr(np.clip(col, 0, 1)), ms
    tb.det, tb.ds, tb.damp = build_pyr(fft_noise(rng, 512, 0.3)), 0.05, rng.uniform(0.04, 0.08)
    tb.spec = (0.025, 6.0, 0.2)


def make_laminate(rng, tb):
    n, ms = 512, 1.0
    cname, c = LAMINATE_COLS[rng.integers(len(LAMINATE_COLS))]
    c = s2l(c) * np.exp(rng.normal(0, 0.04, 3))
    col = np.ones((n, n, 1), F) * c * (1 + 0.03 * fft_noise(rng, n, 3.5))[..., None]
    tb.name = "laminate-" + cname
    tb.macro, tb.ms = build_pyr(col), ms
    tb.det, tb.ds, tb.damp = build_pyr(fft_noise(rng, 512, 0.5)), 0.05, rng.uniform(0.015, 0.04)
    tb.spec = (0.04, rng.uniform(15, 400), rng.uniform(0.5, 1.2))


def make_glass(rng, tb):
    n, ms = 512, 1.0
    c = np.array([0.02, 0.02, 0.022]) * rng.uniform(0.6, 1.5) * np.exp(rng.normal(0, 0.1, 3))
    sm = smoothstep(0.5, 2.5, fft_noise(rng, n, 3.0))
    col = c[None, None, :] * (1 + 0.25 * sm[..., None]) + 0.0015 * sm[..., None]
    tb.name = "glass-dark"
    tb.macro, tb.ms = build_pyr(col.astype(F)), ms
    tb.det, tb.ds, tb.damp = build_pyr(fft_noise(rng, 512, 0.2)), 0.1, 0.1
    tb.spec = (rng.uniform(0.04, 0.06), 3000.0, 1.0)
    tb.mirror = True


def make_table(rng):
    tb = Table()
    tb.weave = None
    tb.mirror = False
    tb.paper = None
    kind = rng.choice(["wood", "wood", "wood", "cloth", "cloth", "mat", "laminate", "laminate", "paper", "glass"])
    if kind == "wood":
        make_wood(rng, tb)
    elif kind == "cloth":
        make_cloth(rng, tb)
    elif kind == "mat":
        make_mat(rng, tb)
    elif kind == "laminate":
        make_laminate(rng, tb)
    elif kind == "glass":
        make_glass(rng, tb)
    else:
        (make_wood if rng.random() < 0.6 else make_laminate)(rng, tb)
        sz = [(105, 148.5), (148.5, 210), (108, 140), (150, 200)][rng.integers(4)]
        tb.paper = dict(c=np.array([rng.normal(0, 30), rng.normal(0, 30)]), a=rng.uniform(0, np.pi),
                        hw=np.array(sz, float), col=s2l([(0.93, 0.93, 0.91), (0.95, 0.92, 0.84),
                                                          (0.90, 0.92, 0.94)][rng.integers(3)]),
                        lines=rng.choice(["blank", "ruled", "grid", "dots"]),
                        sp=rng.choice([5.0, 7.1, 8.0, 8.7]))
        tb.name = "paper-on-" + tb.name
    tb.kind = kind
    tb.rot = rng.uniform(0, 2 * np.pi)
    tb.off = rng.uniform(0, 1000, 2)
    mean = np.mean(tb.macro[-1].reshape(-1, tb.macro[-1].shape[-1] if tb.macro[-1].ndim == 3 else 1), axis=0)
    tb.mean = np.broadcast_to(mean, (3,)).astype(np.float64)
    return tb


def table_albedo(tb, x, y, fp):
    c, s = math.cos(tb.rot), math.sin(tb.rot)
    u = (c * x - s * y + tb.off[0]).astype(F)
    v = (s * x + c * y + tb.off[1]).astype(F)
    col = sample_pyr(tb.macro, u / tb.ms, v / tb.ms, fp / tb.ms)
    if col.ndim == 2:
        col = col[..., None]
    col = np.broadcast_to(col, x.shape + (3,)).astype(F)
    if tb.det is not None:
        d = sample_pyr(tb.det, u / tb.ds, v / tb.ds, fp / tb.ds)
        fade = np.exp(-2.0 * (fp / (6 * tb.ds)) ** 2)
        col = col * (1 + tb.damp * d * np.maximum(fade, 0.25))[..., None]
    if tb.weave is not None:
        pt, amp = tb.weave
        fade = np.exp(-2.5 * (fp / pt) ** 2)
        wv = np.sin(2 * np.pi * u / pt) * np.sin(2 * np.pi * v / pt)
        wv2 = np.sin(np.pi * u / pt) ** 2 - np.sin(np.pi * v / pt) ** 2
        col = col * (1 + amp * fade * (0.6 * wv + 0.4 * np.abs(wv2) - 0.2))[..., None]
    if tb.paper is not None:
        pp = tb.paper
        ca, sa = math.cos(pp["a"]), math.sin(pp["a"])
        px = ca * (x - pp["c"][0]) - sa * (y - pp["c"][1])
        py = sa * (x - pp["c"][0]) + ca * (y - pp["c"][1])
        ex = np.minimum(pp["hw"][0] - np.abs(px), pp["hw"][1] - np.abs(py))
        inside = np.clip(ex / np.maximum(fp, 0.05) + 0.5, 0, 1)
        pc = np.broadcast_to(pp["col"], x.shape + (3,)).astype(F).copy()
        sp = pp["sp"]
        if pp["lines"] == "ruled":
            cov = aa_line(np.mod(py + 1000 + sp * 0.5, sp) - sp * 0.5, 0.15, fp)
            pc = pc * (1 - 0.45 * cov[..., None]) + 0.45 * cov[..., None] * s2l((0.45, 0.62, 0.85))
            cov = aa_line(px + pp["hw"][0] - 28, 0.2, fp)
            pc = pc * (1 - 0.6 * cov[..., None]) + 0.6 * cov[..., None] * s2l((0.85, 0.35, 0.35))
        elif pp["lines"] == "grid":
            cov = np.maximum(aa_line(np.mod(py + 1000 + 2.5, 5) - 2.5, 0.1, fp),
                             aa_line(np.mod(px + 1000 + 2.5, 5) - 2.5, 0.1, fp))
            pc = pc * (1 - 0.35 * cov[..., None]) + 0.35 * cov[..., None] * s2l((0.5, 0.62, 0.8))
        elif pp["lines"] == "dots":
            dx = np.mod(px + 1000 + 2.5, 5) - 2.5
            dy = np.mod(py + 1000 + 2.5, 5) - 2.5
            cov = aa_line(np.sqrt(dx * dx + dy * dy), 0.25, fp)
            pc = pc * (1 - 0.4 * cov[..., None])
        fib = 1 + 0.03 * (sample_pyr(tb.det, u / 0.07, v / 0.07, fp / 0.07) if tb.det is not None else 0)
        pc = pc * np.asarray(fib)[..., None] if np.ndim(fib) else pc
        col = col * (1 - inside[..., None]) + pc * inside[..., None]
    return col


# ----------------------------------------------------------------- room / background
class Room:
    pass


WALL_COLS = [(0.86, 0.85, 0.80), (0.80, 0.76, 0.68), (0.70, 0.72, 0.72), (0.62, 0.70, 0.74), (0.70, 0.74, 0.64),
             (0.45, 0.44, 0.42), (0.88, 0.80, 0.66), (0.30, 0.32, 0.36), (0.75, 0.62, 0.55)]


def make_room(rng, tb):
    rm = Room()
    rm.edge_y = rng.uniform(150, 1100)
    rm.edge_t = rng.uniform(18, 45)
    rm.wall_y = rm.edge_y + rng.uniform(250, 1600)
    rm.floor_z = -rng.uniform(700, 760)
    rm.ceil_z = rng.uniform(1500, 1800)
    rm.wall = s2l(WALL_COLS[rng.integers(len(WALL_COLS))]) * np.exp(rng.normal(0, 0.04, 3))
    rm.floor = s2l([(0.45, 0.32, 0.20), (0.30, 0.20, 0.13), (0.55, 0.50, 0.45), (0.35, 0.35, 0.38)][rng.integers(4)])
    rm.edge = tb.mean * rng.uniform(0.5, 1.0)
    rm.rects = []
    for _ in range(rng.integers(0, 4)):
        w, h = rng.uniform(200, 900), rng.uniform(150, 700)
        x0 = rng.uniform(-1500, 1200)
        z0 = rng.uniform(-200, 900)
        kind = rng.choice(["picture", "shelf", "door", "poster"])
        if kind == "door":
            w, h, z0 = rng.uniform(750, 900), 2000.0, rm.floor_z
        c0 = rng.uniform(0.1, 0.85)
        col = s2l(np.clip(c0 + rng.normal(0, 0.12, 3), 0.03, 0.95))
        rm.rects.append((x0, x0 + w, z0, z0 + h, col, kind, rng.uniform(0, 1)))
    rm.window = None
    rm.tex = build_pyr(fft_noise(rng, 256, 3.0))
    rm.wall, rm.floor, rm.edge = rm.wall.astype(F), rm.floor.astype(F), rm.edge.astype(F)
    rm.rects = [(r[0], r[1], r[2], r[3], r[4].astype(F)) + r[5:] for r in rm.rects]
    return rm


def room_albedo(rm, P, kind):
    """kind: 2 floor, 3 wall, 4 ceiling, 1 table edge.  Returns albedo and emission."""
    M = P.shape[0]
    alb = np.zeros((M, 3), F)
    emit = np.zeros((M, 3), F)
    x, y, z = P[:, 0], P[:, 1], P[:, 2]
    m = kind == 1
    alb[m] = rm.edge
    m = kind == 2
    if m.any():
        nz = remap_pts(rm.tex[0], np.mod(x[m] / 8, 256), np.mod(y[m] / 8, 256))
        alb[m] = rm.floor * (1 + 0.15 * nz)[:, None]
    m = kind == 4
    alb[m] = np.array([0.8, 0.8, 0.78])
    m = np.nonzero(kind == 3)[0]
    if m.size:
        xm, zm = x[m], z[m]
        nz = remap_pts(rm.tex[0], np.mod(xm / 20, 256), np.mod(zm / 20, 256))
        a = rm.wall * (1 + 0.04 * nz)[:, None]
        skirt = zm < rm.floor_z + 90
        a[skirt] = np.array([0.8, 0.8, 0.78], F)
        for (x0, x1, z0, z1, col, kind_r, v) in rm.rects:
            inn = (xm > x0) & (xm < x1) & (zm > z0) & (zm < z1)
            if not inn.any():
                continue
            if kind_r == "picture":
                fr = (xm < x0 + 30) | (xm > x1 - 30) | (zm < z0 + 30) | (zm > z1 - 30)
                pic = col * (F(0.6) + F(0.6) * np.sin(xm[:, None] / F(70) + np.array([0, 1, 2], F) + F(v * 6)) *
                             np.cos(zm[:, None] / F(90)))
                a[inn] = np.where(fr[inn, None], col * 0.3, np.clip(pic[inn], 0.02, 0.9))
            elif kind_r == "shelf":
                band = np.mod(zm - z0, 300) < 25
                a[inn & band] = col * 0.8
                bi = np.floor((xm - x0) / 32)
                bcol = np.stack([np.mod(bi * 0.37 + v, 1.0), np.mod(bi * 0.61 + v, 1.0), np.mod(bi * 0.83, 1.0)], 1)
                bk = inn & ~band & (np.mod(zm - z0, 300) < 25 + 200 + 60 * np.mod(bi * 0.53, 1.0))
                a[bk] = s2l(0.12 + 0.45 * bcol[bk]) * 0.8
            else:
                a[inn] = col
        alb[m] = a
        if rm.window is not None:
            x0, x1, z0, z1, rad = rm.window
            inw = (xm > x0) & (xm < x1) & (zm > z0) & (zm < z1)
            bars = (np.abs(xm - 0.5 * (x0 + x1)) < 25) | (np.abs(zm - 0.5 * (z0 + z1)) < 20)
            e = np.zeros((m.size, 3), F)
            sky = rad.astype(F) * (F(1.0) + F(0.3) * nz)[:, None]
            e[inw & ~bars] = sky[inw & ~bars]
            emit[m] = e
            a2 = alb[m]
            a2[inw & ~bars] = 0
            a2[inw & bars] = 0.8
            alb[m] = a2
    return alb, emit


# ----------------------------------------------------------------- lights
def make_lights(rng, rm):
    kind = str(rng.choice(["ceiling", "desk-lamp", "window", "mixed"], p=[0.3, 0.25, 0.25, 0.2]))
    lights = []

    def point(pos, T, E, size, spot=None):
        pos = np.asarray(pos, float)
        d = np.linalg.norm(pos)
        return dict(type="point", pos=pos, col=kelvin(T) * E * d * d, k=max(d / size, 1.5),
                    shin=float(np.clip(2.0 / (size / d) ** 2, 8, 2000)), spot=spot, size=size)

    def sun(az, el, T, E, soft):
        d = np.array([math.cos(el) * math.cos(az), math.cos(el) * math.sin(az), math.sin(el)])
        return dict(type="dir", dir=d, col=kelvin(T) * E, k=soft, shin=float(np.clip(2.0 / (1 / soft) ** 2, 4, 60)),
                    spot=None, size=0)

    def ceiling(E, T):
        pos = (rng.uniform(-1000, 1000), rng.uniform(-700, min(900, rm.wall_y - 200)), rm.ceil_z - rng.uniform(0, 150))
        return point(pos, T, E, rng.uniform(120, 450))

    def lamp(E, T):
        az = rng.uniform(0, 2 * np.pi)
        r = rng.uniform(250, 600)
        pos = (r * math.cos(az), min(r * math.sin(az), rm.edge_y - 60), rng.uniform(250, 550))
        pos = np.array(pos)
        sd = nrm(-pos + rng.normal(0, 80, 3))
        spot = (sd, math.cos(math.radians(rng.uniform(25, 45))), math.cos(math.radians(rng.uniform(55, 80))))
        return point(pos, T, E, rng.uniform(10, 45), spot)

    def window(E, T):
        az = rng.uniform(0, 2 * np.pi)
        el = math.radians(rng.uniform(15, 50))
        L = sun(az, el, T, E, rng.uniform(3.0, 8.0))
        if L["dir"][1] > 0.35:
            xc = L["dir"][0] / max(L["dir"][1], 0.1) * (rm.wall_y)
            xc = float(np.clip(xc, -1500, 1500))
            ww, z0 = rng.uniform(250, 550), rng.uniform(200, 500)
            rm.window = (xc - ww, xc + ww, z0, z0 + rng.uniform(600, 1100),
                         kelvin(rng.uniform(7000, 11000)) * E * rng.uniform(1.5, 4))
        return L

    if kind == "ceiling":
        T = rng.uniform(2700, 5200)
        lights.append(ceiling(1.0, T))
        amb = kelvin(T + rng.uniform(-300, 800)) * rng.uniform(0.3, 0.6)
        gain = rng.uniform(1.5, 4.0)
    elif kind == "desk-lamp":
        T = rng.uniform(2600, 3400)
        lights.append(lamp(1.0, T))
        amb = kelvin(rng.choice([T, 6500.0, 4000.0])) * rng.uniform(0.04, 0.18)
        gain = rng.uniform(3.0, 8.0)
    elif kind == "window":
        T = rng.uniform(5200, 7000)
        lights.append(window(1.0, T))
        amb = kelvin(rng.uniform(7000, 11000)) * rng.uniform(0.25, 0.65)
        gain = rng.uniform(0.7, 2.0)
    else:
        if rng.random() < 0.5:
            lights.append(window(rng.uniform(0.4, 0.9), rng.uniform(5500, 7500)))
            lights.append(lamp(1.0, rng.uniform(2600, 3200)))
        else:
            lights.append(ceiling(1.0, rng.uniform(2700, 3300)))
            lights.append(window(rng.uniform(0.3, 0.8), rng.uniform(5500, 7500)))
        amb = kelvin(rng.uniform(4000, 8000)) * rng.uniform(0.25, 0.5)
        gain = rng.uniform(1.5, 4.0)
    return kind, lights, amb, gain


def light_at(L, P):
    """Unit direction to light and irradiance (normal incidence) at points P (M,3)."""
    if L["type"] == "point":
        Ld = (L["pos"].astype(F) - P)
        d2 = dot(Ld, Ld)
        Ld = Ld / np.sqrt(d2)[:, None]
        E = L["col"].astype(F)[None, :] / d2[:, None]
        if L["spot"] is not None:
            sd, ci, co = L["spot"]
            cs = -(Ld @ sd.astype(F))
            E = E * (0.04 + 0.96 * smoothstep(co, ci, cs))[:, None]
        return Ld, E, np.sqrt(d2)
    M = P.shape[0]
    return (np.broadcast_to(L["dir"].astype(F), (M, 3)), np.broadcast_to(L["col"].astype(F), (M, 3)),
            np.full(M, 1e7, F))


# ----------------------------------------------------------------- camera
class Camera:
    def __init__(self, rng, W, H):
        self.W, self.H = W, H
        self.el = rng.uniform(20, 70)
        self.dist = 200 + 500 * rng.random() ** 1.4
        self.fov = rng.uniform(50, 85)
        self.cx = (W - 1) / 2 + rng.normal(0, 0.01 * W)
        self.cy = (H - 1) / 2 + rng.normal(0, 0.01 * H)
        self.k1 = rng.uniform(-0.03, 0.22)
        self.k2 = rng.uniform(0.0, 0.06)
        self.tgt = np.array([rng.normal(0, 10), rng.normal(0, 10), 0.0])
        self.roll = float(np.clip(rng.normal(0, 2.0), -5, 5))
        # focus / optics.  thin lens: blur circle (px) = f_px * aperture * |1/z - 1/zf|
        self.autofocus = rng.random() < 0.7
        self.zf_rel = rng.uniform(0.85, 1.2)
        self.zf_fixed = float(rng.uniform(450, 1500))
        self.aper_u = rng.uniform(0.4, 1.6)
        self.s0 = rng.uniform(0.25, 0.65)
        self.build()

    def build(self):
        W, H = self.W, self.H
        self.f = 0.5 * math.hypot(W, H) / math.tan(math.radians(self.fov) / 2)
        el = math.radians(self.el)
        self.pos = self.tgt + self.dist * np.array([0, -math.cos(el), math.sin(el)])
        fw = nrm(self.tgt - self.pos)
        rt = nrm(np.cross(fw, [0, 0, 1.0]))
        up = np.cross(rt, fw)
        Rm = np.stack([rt, -up, fw])
        self.R = rot((0, 0, 1), math.radians(self.roll)) @ Rm
        ss = max(1.0, min(SS, math.sqrt(MAX_SAMPLES / (W * H))))
        self.Ws, self.Hs = int(round(W * ss)), int(round(H * ss))
        us = (np.arange(self.Ws) + 0.5) * W / self.Ws - 0.5
        vs = (np.arange(self.Hs) + 0.5) * H / self.Hs - 0.5
        xd = ((us - self.cx) / self.f)[None, :]
        yd = ((vs - self.cy) / self.f)[:, None]
        r2 = xd * xd + yd * yd
        sc = 1 + self.k1 * r2 + self.k2 * r2 * r2
        dc = np.stack(np.broadcast_arrays(xd * sc, yd * sc, np.ones_like(r2)), -1)
        self.dirs = nrm(dc @ self.R).astype(F)  # world ray directions (Hs,Ws,3)
        xd = ((np.arange(W) - self.cx) / self.f)[None, :]
        yd = ((np.arange(H) - self.cy) / self.f)[:, None]
        r2 = xd * xd + yd * yd
        sc = 1 + self.k1 * r2 + self.k2 * r2 * r2
        dc = np.stack(np.broadcast_arrays(xd * sc, yd * sc, np.ones_like(r2)), -1)
        self.dirs_c = nrm(dc @ self.R).astype(F)  # one ray per output pixel centre
        self.pix_ang = (W / self.Ws) / self.f
        self.zf = self.dist * self.zf_rel if self.autofocus else self.zf_fixed
        self.aper = self.aper_u * 640.0 / self.f

    def project(self, Pw):
        Pw = np.atleast_2d(np.asarray(Pw, dtype=np.float64))
        pc = (Pw - self.pos) @ self.R.T
        z = pc[:, 2]
        zs = np.where(z > 1e-6, z, 1e-6)
        xu, yu = pc[:, 0] / zs, pc[:, 1] / zs
        ru = np.hypot(xu, yu)
        rd = np.minimum(ru, 2.0)
        for _ in range(25):
            fv = rd * (1 + self.k1 * rd ** 2 + self.k2 * rd ** 4) - ru
            fd = 1 + 3 * self.k1 * rd ** 2 + 5 * self.k2 * rd ** 4
            rd = np.clip(rd - fv / np.maximum(fd, 0.1), 0, 2.0)
        sc = np.where(ru > 1e-12, rd / np.maximum(ru, 1e-12), 1.0)
        return self.f * xu * sc + self.cx, self.f * yu * sc + self.cy, z

    def rect(self, Pw, margin=3, coarse=False):
        """Bounding rectangle of world points in the supersampled (or output) grid; None if empty."""
        u, v, z = self.project(Pw)
        Hs, Ws = (self.H, self.W) if coarse else (self.Hs, self.Ws)
        if (z < 5).any():
            return (0, Hs, 0, Ws)
        s = Ws / self.W
        i, j = (u + 0.5) * s - 0.5, (v + 0.5) * s - 0.5
        mx = margin + 0.03 * (i.max() - i.min())
        my = margin + 0.03 * (j.max() - j.min())
        x0 = int(max(0, math.floor(i.min() - mx)))
        x1 = int(min(Ws, math.ceil(i.max() + mx) + 1))
        y0 = int(max(0, math.floor(j.min() - my)))
        y1 = int(min(Hs, math.ceil(j.max() + my) + 1))
        if x1 <= x0 or y1 <= y0:
            return None
        return (y0, y1, x0, x1)


# ----------------------------------------------------------------- SDF primitives
def sdf_rbox(p, b, r):
    q = np.abs(p) - b
    qx, qy, qz = q[:, 0], q[:, 1], q[:, 2]
    mx = np.maximum(np.maximum(qx, qy), qz)
    qm = np.maximum(q, 0)
    return np.sqrt(dot(qm, qm)) + np.minimum(mx, 0) - r


def max3(a):
    return np.maximum(np.maximum(a[:, 0], a[:, 1]), a[:, 2])


def min3(a):
    return np.minimum(np.minimum(a[:, 0], a[:, 1]), a[:, 2])


def dist2(P, c):
    d = P - np.asarray(c, dtype=F)
    return dot(d, d)


def sdf_cyl(rad, ax, R, hh, rr=0.0):
    dx = rad - (R - rr)
    dy = np.abs(ax) - (hh - rr)
    return np.minimum(np.maximum(dx, dy), 0) + np.sqrt(np.maximum(dx, 0) ** 2 + np.maximum(dy, 0) ** 2) - rr


def sdf_cone(rad, ax, h, r1, r2):
    # capped cone along ax, radius r1 at ax=-h and r2 at ax=+h (iq)
    k1x, k1y = r2, h
    k2x, k2y = r2 - r1, 2 * h
    cax = rad - np.minimum(rad, np.where(ax < 0, r1, r2))
    cay = np.abs(ax) - h
    tt = np.clip(((k1x - rad) * k2x + (k1y - ax) * k2y) / (k2x * k2x + k2y * k2y), 0, 1)
    cbx = rad - k1x + k2x * tt
    cby = ax - k1y + k2y * tt
    s = np.where((cbx < 0) & (cay < 0), -1.0, 1.0)
    return s * np.sqrt(np.minimum(cax * cax + cay * cay, cbx * cbx + cby * cby))


class Obj:
    pass


def die_face_info(ob, p):
    ap = np.abs(p)
    k = np.argmax(ap, 1)
    idx = np.arange(p.shape[0])
    s = p[idx, k]
    fi = 2 * k + (s < 0)
    fnum = AXNUM[fi]
    u = p[idx, (k + 1) % 3]
    v = p[idx, (k + 2) % 3]
    pips = ob.pips[fnum]
    du = u[:, None] - pips[..., 0]
    dv = v[:, None] - pips[..., 1]
    d2 = du * du + dv * dv
    j = np.argmin(d2, 1)
    pu, pv = pips[idx, j, 0], pips[idx, j, 1]
    dist = np.sqrt(d2[idx, j])
    a = ob.pa[fnum]
    dep = ob.pdep[fnum]
    Rs = (a * a + dep * dep) / (2 * dep)
    cs = np.zeros_like(p)
    cs[idx, k] = np.sign(s) * (ob.h + Rs - dep)
    cs[idx, (k + 1) % 3] = pu
    cs[idx, (k + 2) % 3] = pv
    return k, s, fnum, dist, a, cs, Rs, ap[idx, k]


def obj_sdf(ob, p, full=False):
    if ob.kind == "die":
        d = sdf_rbox(p, ob.b, ob.r)
        if full:
            _, _, _, _, _, cs, Rs, _ = die_face_info(ob, p)
            dc = cs - p
            d = np.maximum(d, -(np.sqrt(dot(dc, dc)) - Rs))
        return d
    x, y, z = p[:, 0], p[:, 1], p[:, 2]
    if ob.kind == "pencil":
        rad = np.sqrt(y * y + z * z)
        body = sdf_cyl(rad, x - ob.bx, ob.pr, ob.bh, 0.4)
        cone = sdf_cone(rad, x - ob.cx, ob.ch, ob.pr, 0.35)
        return np.minimum(body, cone)
    if ob.kind in ("coin", "cup"):
        rad = np.sqrt(x * x + y * y)
        return sdf_cyl(rad, z, ob.cr, ob.chh, ob.crr)
    if ob.kind == "card":
        qx = np.abs(x) - (ob.hw[0] - ob.rc)
        qy = np.abs(y) - (ob.hw[1] - ob.rc)
        d2 = np.sqrt(np.maximum(qx, 0) ** 2 + np.maximum(qy, 0) ** 2) + np.minimum(np.maximum(qx, qy), 0) - ob.rc
        wz = np.abs(z) - ob.th
        return np.minimum(np.maximum(d2, wz), 0) + np.sqrt(np.maximum(d2, 0) ** 2 + np.maximum(wz, 0) ** 2)
    raise ValueError(ob.kind)


def march(fn, ol, dl, t0, t1, eps, iters=48):
    M = dl.shape[0]
    t = t0.astype(F).copy()
    res = np.full(M, np.inf, F)
    act = np.nonzero(t0 < t1)[0]
    single = ol.ndim == 1
    for _ in range(iters):
        if act.size == 0:
            break
        tt = t[act]
        o = ol if single else ol[act]
        d = fn(o + dl[act] * tt[:, None])
        hit = d < eps
        res[act[hit]] = tt[hit]
        tn = tt + d
        t[act] = tn
        act = act[(~hit) & (tn < t1[act])]
    if act.size:
        tt = t[act]
        o = ol if single else ol[act]
        d = fn(o + dl[act] * tt[:, None])
        ok = d < 25 * eps
        res[act[ok]] = tt[ok]
    return res


def trace_obj(ob, O, D, tmax=None):
    """Ray cast object ob.  O (3,) or (M,3), D (M,3) world.  Returns t, n_world, p_local, fnum, pip."""
    Rf = ob.R.astype(F)
    ol = ((O - ob.c).astype(F)) @ Rf
    dl = D @ Rf
    dd = np.where(np.abs(dl) < 1e-9, 1e-9, dl)
    inv = 1.0 / dd
    hb = ob.hb.astype(F)
    ta = (-hb - ol) * inv
    tb = (hb - ol) * inv
    tn = max3(np.minimum(ta, tb))
    tf = min3(np.maximum(ta, tb))
    t0 = np.maximum(tn, 0.0)
    t1 = tf if tmax is None else np.minimum(tf, tmax)
    M = D.shape[0]
    t = np.full(M, np.inf, F)
    nl = np.zeros((M, 3), F)
    pl = np.zeros((M, 3), F)
    fnum = np.zeros(M, np.int8)
    pip = np.zeros(M, bool)
    cand = np.nonzero(t1 > t0)[0]
    if cand.size == 0:
        return t, nl, pl, fnum, pip
    olc = ol if ol.ndim == 1 else ol[cand]
    dlc = dl[cand]
    eps = ob.eps
    if ob.kind == "die":
        tc = march(lambda p: sdf_rbox(p, ob.b, ob.r), olc, dlc, t0[cand], t1[cand], eps)
    else:
        tc = march(lambda p: obj_sdf(ob, p), olc, dlc, t0[cand], t1[cand], eps)
    h = np.isfinite(tc)
    cand = cand[h]
    if cand.size == 0:
        return t, nl, pl, fnum, pip
    tc = tc[h]
    olc = ol if ol.ndim == 1 else ol[cand]
    dlc = dl[cand]
    p = olc + dlc * tc[:, None]
    if ob.kind == "die":
        n = nrm(p - np.clip(p, -ob.b, ob.b))
        k, s, fn, dist, a, cs, Rs, apk = die_face_info(ob, p)
        inpip = (dist < a) & (apk > ob.h - 0.03 * ob.h)
        fnum[cand] = fn
        if inpip.any():
            oc = (olc if olc.ndim == 1 else olc[inpip]) - cs[inpip]
            dq = dlc[inpip]
            bq = dot(oc, dq)
            cq = dot(oc, oc) - Rs[inpip] ** 2
            t2 = -bq + np.sqrt(np.maximum(bq * bq - cq, 0))
            p2 = (olc if olc.ndim == 1 else olc[inpip]) + dq * t2[:, None]
            n2 = (cs[inpip] - p2) / Rs[inpip][:, None]
            p[inpip] = p2
            n[inpip] = n2
            tc[inpip] = t2
            pip[cand[inpip]] = True
    else:
        e = 0.004 * max(ob.eps / 0.004, 1.0)
        ks = np.array([[1, -1, -1], [-1, -1, 1], [-1, 1, -1], [1, 1, 1]], F)
        n = np.zeros_like(p)
        for kk in ks:
            n += kk[None, :] * obj_sdf(ob, p + e * kk[None, :])[:, None]
        n = nrm(n)
    t[cand] = tc
    nl[cand] = n
    pl[cand] = p
    return t, nl @ Rf.T, pl, fnum, pip


# ----------------------------------------------------------------- dice sets
DICE_STYLES = [
    # name, body sRGB, pip choices, weight
    ("white", (0.93, 0.93, 0.91), ["black", "black", "black", "red1", "blue"], 3.0),
    ("ivory", (0.93, 0.88, 0.74), ["black", "black", "red1"], 2.5),
    ("red", (0.72, 0.07, 0.06), ["white", "white", "gold", "black"], 2.0),
    ("blue", (0.07, 0.20, 0.60), ["white", "white", "gold"], 1.5),
    ("green", (0.06, 0.45, 0.18), ["white", "gold", "black"], 1.2),
    ("black", (0.045, 0.045, 0.05), ["white", "white", "gold", "red"], 1.5),
    ("yellow", (0.95, 0.80, 0.12), ["black"], 0.8),
    ("orange", (0.95, 0.45, 0.08), ["black", "white"], 0.6),
    ("purple", (0.38, 0.14, 0.55), ["white", "gold"], 0.6),
    ("pink", (0.95, 0.55, 0.70), ["white", "black"], 0.4),
    ("grey", (0.48, 0.48, 0.50), ["white", "black"], 0.4),
    ("teal", (0.05, 0.48, 0.50), ["white"], 0.4),
]
PIP_COLS = {"black": (0.04, 0.04, 0.04), "white": (0.93, 0.93, 0.90), "red": (0.75, 0.05, 0.05),
            "blue": (0.08, 0.15, 0.55), "gold": (0.95, 0.75, 0.35), "red1": (0.04, 0.04, 0.04)}


def make_style(rng, h=None):
    w = np.array([s[3] for s in DICE_STYLES])
    name, body, pips, _ = DICE_STYLES[rng.choice(len(DICE_STYLES), p=w / w.sum())]
    st = dict(name=name)
    st["body"] = s2l(body) * np.exp(rng.normal(0, 0.05, 3))
    pipn = str(rng.choice(pips))
    st["pip"] = s2l(PIP_COLS[pipn])
    st["gold"] = pipn == "gold"
    st["one"] = s2l((0.75, 0.05, 0.05)) if pipn == "red1" else None
    st["h"] = rng.uniform(6.0, 10.0) if h is None else h
    h = st["h"]
    st["rf"] = rng.uniform(0.07, 0.2)
    r = st["rf"] * h
    flat = h - r
    g = rng.uniform(0.46, 0.55) * h
    a = rng.uniform(0.15, 0.22) * h
    a = min(a, (g - 0.06 * h) / 2, flat - g - 0.04 * h)
    a = max(a, 0.09 * h)
    big1 = rng.uniform(1.1, 1.7) if rng.random() < 0.35 else 1.0
    a1 = min(a * big1, flat - 0.08 * h)
    dr = rng.uniform(0.25, 0.55)
    st["design"] = dict(g=g, a=a, a1=a1, dr=dr, d2=rng.choice([-1, 1]), d3=rng.choice([-1, 1]),
                        six=int(rng.integers(2)))
    st["matte"] = rng.random() < 0.2
    st["translucent"] = rng.random() < (0.22 if name in ("red", "blue", "green", "purple", "orange", "teal",
                                                         "yellow", "pink") else 0.0)
    st["marble"] = None
    if not st["translucent"] and rng.random() < 0.15:
        st["marble"] = (s2l(rng.choice([(0.9, 0.9, 0.88), (0.05, 0.05, 0.05), (0.6, 0.1, 0.1), (0.1, 0.2, 0.6),
                                        (0.9, 0.75, 0.2)])), rng.uniform(0.35, 0.8))
    if st["translucent"]:
        st["body"] = st["body"] * 0.8
    return st


def design_pips(des):
    g, a, a1, dr = des["g"], des["a"], des["a1"], des["dr"]
    pips = np.full((7, 6, 2), 1e3, F)
    d2, d3 = des["d2"], des["d3"]
    lay = {1: [(0, 0)], 2: [(g, d2 * g), (-g, -d2 * g)], 3: [(g, d3 * g), (0, 0), (-g, -d3 * g)],
           4: [(g, g), (g, -g), (-g, g), (-g, -g)], 5: [(g, g), (g, -g), (-g, g), (-g, -g), (0, 0)]}
    six = [(-g, -g), (-g, 0), (-g, g), (g, -g), (g, 0), (g, g)]
    lay[6] = six if des["six"] else [(y, x) for x, y in six]
    for k, v in lay.items():
        pips[k, :len(v)] = np.array(v, F)
    pa = np.array([a, a1, a, a, a, a, a], F)
    pdep = pa * dr
    return pips, pa, pdep


def make_die(st, c, R, rng):
    ob = Obj()
    ob.kind = "die"
    ob.h = st["h"]
    ob.r = st["rf"] * ob.h
    ob.b = ob.h - ob.r
    ob.c = np.asarray(c, float)
    ob.R = np.asarray(R, float)
    ob.hb = np.array([ob.h] * 3)
    ob.rho = ob.h * SQ3
    ob.ro = ob.h * 1.2
    ob.eps = 0.0025 * ob.h
    ob.pips, ob.pa, ob.pdep = design_pips(st["design"])
    ob.st = st
    ob.body = (st["body"] * np.exp(rng.normal(0, 0.025, 3))).astype(F)
    ob.mphase = rng.uniform(0, 100, 3)
    ob.maxis = nrm(rng.normal(0, 1, (3, 3)))
    return ob


def die_surface_samples(ob, n=5):
    g = np.linspace(-ob.h, ob.h, n)
    pts = []
    for k in range(3):
        for s in (-1, 1):
            a, b = np.meshgrid(g, g)
            q = np.zeros((a.size, 3))
            q[:, k] = s * ob.h
            q[:, (k + 1) % 3] = a.ravel()
            q[:, (k + 2) % 3] = b.ravel()
            pts.append(q)
    q = np.concatenate(pts)
    cl = np.clip(q, -ob.b, ob.b)
    p = cl + ob.r * nrm(q - cl)
    return p @ ob.R.T + ob.c


def collides(ob, others, gap=0.15, pts=None):
    if pts is None:
        pts = die_surface_samples(ob)
    for o2 in others:
        dc = np.linalg.norm(ob.c - o2.c)
        if dc > ob.rho + getattr(o2, "rho", 1e9) + 1:
            continue
        pl = ((pts - o2.c) @ o2.R).astype(F)
        if obj_sdf(o2, pl).min() < gap:
            return True
    return False


FACE_R = {1: np.eye(3), 6: rot((1, 0, 0), np.pi), 2: rot((0, 1, 0), -np.pi / 2), 5: rot((0, 1, 0), np.pi / 2),
          3: rot((1, 0, 0), np.pi / 2), 4: rot((1, 0, 0), -np.pi / 2)}


def rest_height(ob):
    return ob.b * np.abs(ob.R[2, :]).sum() + ob.r


# ----------------------------------------------------------------- props
def make_props(rng, cam):
    props = []
    if rng.random() > 0.45:
        return props
    nprop = 1 if rng.random() < 0.7 else 2
    hw = cam.dist * math.tan(math.atan(cam.W / 2 / cam.f))
    for _ in range(nprop):
        kind = rng.choice(["pencil", "pencil", "coin", "coin", "card", "cup"])
        ob = Obj()
        ob.kind = kind
        a = rng.uniform(0, 2 * np.pi)
        rr = rng.uniform(0.35, 0.9) * hw
        ob.eps = 0.01
        if kind == "pencil":
            ob.pr = rng.uniform(3.2, 4.0)
            L = rng.uniform(90, 180)
            ob.tipL = rng.uniform(14, 22)
            ob.bh = (L - ob.tipL) / 2
            ob.bx = -ob.tipL / 2
            ob.ch = ob.tipL / 2
            ob.cx = L / 2 - ob.tipL / 2
            ob.hb = np.array([L / 2 + 1, ob.pr + 0.5, ob.pr + 0.5])
            ob.rho = L / 2 + 2
            ob.ro = ob.pr * 3.0
            ob.c = np.array([rr * math.cos(a), rr * math.sin(a), ob.pr])
            ob.R = rotz(rng.uniform(0, np.pi))
            ob.L = L
            ob.col = s2l([(0.95, 0.75, 0.10), (0.15, 0.45, 0.20), (0.70, 0.10, 0.10), (0.15, 0.20, 0.55),
                          (0.1, 0.1, 0.1)][rng.integers(5)])
            ob.eraser = rng.random() < 0.7
        elif kind == "coin":
            ob.cr = rng.uniform(8.5, 13.5)
            ob.chh = rng.uniform(0.7, 1.1)
            ob.crr = 0.3
            ob.hb = np.array([ob.cr + 0.2, ob.cr + 0.2, ob.chh + 0.2])
            ob.rho = ob.cr + 1
            ob.ro = ob.cr * 0.5
            ob.c = np.array([rr * 0.6 * math.cos(a), rr * 0.6 * math.sin(a), ob.chh])
            ob.R = rotz(rng.uniform(0, 2 * np.pi))
            ob.col = s2l([(0.80, 0.80, 0.78), (0.78, 0.48, 0.30), (0.85, 0.70, 0.35)][rng.integers(3)])
            ob.eps = 0.005
        elif kind == "card":
            ob.hw = np.array([31.5, 44.0])
            ob.rc = 3.0
            ob.th = 0.15
            ob.hb = np.array([32, 44.5, 0.3])
            ob.rho = 55
            ob.ro = 5.0
            ob.c = np.array([rr * math.cos(a), rr * math.sin(a), ob.th])
            ob.R = rotz(rng.uniform(0, 2 * np.pi))
            ob.col = s2l([(0.70, 0.10, 0.12), (0.12, 0.22, 0.55), (0.10, 0.35, 0.20)][rng.integers(3)])
            ob.face_up = rng.random() < 0.3
            ob.eps = 0.004
        else:
            ob.cr = rng.uniform(35, 45)
            ob.chh = rng.uniform(40, 52)
            ob.crr = 4.0
            ob.hb = np.array([ob.cr + 0.5, ob.cr + 0.5, ob.chh + 0.5])
            ob.rho = math.hypot(ob.cr, ob.chh) + 1
            ob.ro = ob.cr * 1.1
            r2 = max(rr, 0.75 * hw) + ob.cr
            ob.c = np.array([r2 * math.cos(a), r2 * math.sin(a) * 0.7 + 60, ob.chh])
            ob.R = np.eye(3)
            ob.col = s2l([(0.90, 0.90, 0.88), (0.08, 0.08, 0.08), (0.15, 0.30, 0.60), (0.70, 0.15, 0.12),
                          (0.80, 0.65, 0.25)][rng.integers(5)])
        if all(not _prop_overlap(ob, p2) for p2 in props):
            props.append(ob)
    return props


def _prop_overlap(a, b):
    return np.linalg.norm(a.c[:2] - b.c[:2]) < (a.rho + b.rho) * 0.8


# ----------------------------------------------------------------- dice placement
def throw_dice(rng, styles, props, cam, soft_table, edge_y=1e9):
    n = int(rng.choice(np.arange(1, 9), p=np.array([10, 14, 14, 13, 12, 12, 12, 13], float) / 100))
    hw = cam.dist * cam.W / 2 / cam.f
    hmax = max(s["h"] for s in styles)
    spread = max(hw * rng.uniform(0.3, 0.72), 3.0 * hmax * math.sqrt(n) + 8)
    el = math.radians(cam.el)
    sy = spread * min(2.2, max(1.0, 0.72 / math.sin(el)))
    dice = []
    for _ in range(n):
        st = styles[rng.integers(len(styles))] if len(styles) > 1 else styles[0]
        for attempt in range(60):
            flat = [d for d in dice if not d.cocked]
            pencils = [p for p in props if p.kind == "pencil"]
            mode = "free"
            r_ = rng.random()
            if r_ < 0.11 and (flat or pencils):
                mode = "cocked"
            elif r_ < 0.40 and flat:
                mode = "touch"
            top = int(rng.integers(1, 7))
            ob = make_die(st, (0, 0, 0), np.eye(3), rng)
            ob.cocked = False
            ob.support = None
            if mode == "free":
                yaw = rng.uniform(0, 2 * np.pi)
                R = rotz(yaw) @ FACE_R[top]
                if soft_table and rng.random() < 0.5:
                    R = rot(rng.normal(0, 1, 3) * [1, 1, 0] + [1e-6, 0, 0], math.radians(rng.uniform(0, 2.5))) @ R
                ob.R = R
                ang = rng.uniform(0, 2 * np.pi)
                rad = math.sqrt(rng.random())
                xy = np.array([spread * rad * math.cos(ang), sy * rad * math.sin(ang)])
                ob.c = np.array([xy[0], xy[1], rest_height(ob)])
            elif mode == "touch":
                B = flat[rng.integers(len(flat))]
                # B's horizontal local axes in world
                axes = [B.R[:, i] for i in range(3) if abs(B.R[2, i]) < 0.5]
                yawB = math.atan2(axes[0][1], axes[0][0])
                ax = axes[rng.integers(len(axes))] * rng.choice([-1, 1])
                ax = nrm(ax * np.array([1, 1, 0]))
                lat = np.cross([0, 0, 1], ax)
                # put the chosen top face of A up while keeping yaw aligned with B
                R = rotz(yawB + rng.integers(4) * np.pi / 2 + math.radians(rng.normal(0, 2.5))) @ FACE_R[top]
                ob.R = R
                off = rng.uniform(-0.8, 0.8) * min(ob.h, B.h)
                dist = ob.h + B.h + rng.uniform(0.25, 1.0)
                xy = B.c[:2] + ax[:2] * dist + lat[:2] * off
                ob.c = np.array([xy[0], xy[1], rest_height(ob)])
            else:
                use_pencil = pencils and (not flat or rng.random() < 0.4)
                theta = math.radians(rng.uniform(10, 40))
                if use_pencil:
                    S = pencils[rng.integers(len(pencils))]
                    pax = S.R[:, 0]
                    u = np.cross([0, 0, 1], pax) * rng.choice([-1, 1])
                    base = S.c + pax * rng.uniform(-0.3, 0.3) * S.L
                    theta = math.asin(min(0.9, 2 * S.pr / (2 * ob.h * rng.uniform(0.75, 0.95))))
                    theta = float(np.clip(theta, math.radians(10), math.radians(40)))
                    tilt_dir = -u
                else:
                    S = flat[rng.integers(len(flat))]
                    u = nrm(np.array([math.cos(a_ := rng.uniform(0, 2 * np.pi)), math.sin(a_), 0.0]))
                    base = S.c
                    tilt_dir = u
                yaw = math.atan2(u[1], u[0]) + math.radians(rng.normal(0, 4)) + rng.integers(4) * np.pi / 2
                R0 = rotz(yaw) @ FACE_R[top]
                axis = np.cross([0, 0, 1.0], tilt_dir)
                ob.R = rot(axis, theta) @ R0
                zc = rest_height(ob)
                lo, hi = 0.0, 3.0 * (ob.h + (S.h if S.kind == "die" else S.pr)) + 10

                def at(sv):
                    xy = base[:2] - u[:2] * sv
                    ob.c = np.array([xy[0], xy[1], zc])
                    return collides(ob, [S], gap=0.1)
                if at(hi):
                    continue
                for _ in range(14):
                    mid = 0.5 * (lo + hi)
                    if at(mid):
                        lo = mid
                    else:
                        hi = mid
                at(hi + 0.05)
                ob.cocked = True
                ob.support = S
            if ob.c[1] > edge_y - 2.0 * ob.h:      # would hang over the far table edge
                continue
            others = dice + props
            if mode == "cocked":
                others = [o for o in others if o is not ob.support]
            if collides(ob, others):
                continue
            if mode == "cocked" and collides(ob, [ob.support], gap=0.0):
                continue
            dice.append(ob)
            break
    return dice


# ----------------------------------------------------------------- materials / shading
def env_radiance(sc, Rd):
    up = Rd[:, 2]
    w = smoothstep(F(-0.25), F(0.3), up)[:, None]
    g = sc.env_ground.astype(F)[None, :]
    a = sc.amb.astype(F)[None, :]
    return g + (a * (F(0.7) + F(0.5) * np.clip(up, 0, 1))[:, None] - g) * w


def amb_irr(sc, N):
    t = (F(0.5) + F(0.5) * N[:, 2])[:, None]
    g = sc.env_ground.astype(F)[None, :]
    return g + (sc.amb.astype(F)[None, :] - g) * t


def material(ob, Pl, Nw, fnum, pip):
    M = Pl.shape[0]
    spec = np.full((M, 3), 0.045, F)
    shin = np.full(M, 300.0, F)
    wrap = np.zeros(M, F)
    glow = np.zeros(M, F)
    if ob.kind == "die":
        st = ob.st
        alb = np.broadcast_to(ob.body, (M, 3)).astype(F).copy()
        if st["marble"] is not None:
            c2, amt = st["marble"]
            q = Pl @ ob.maxis.T.astype(F) / ob.h
            m = np.sin(3.0 * q[:, 0] + ob.mphase[0] + 1.8 * np.sin(2.3 * q[:, 1] + ob.mphase[1]) +
                       1.2 * np.sin(4.1 * q[:, 2] + ob.mphase[2] + np.sin(5.0 * q[:, 0])))
            m = (smoothstep(0.7, 0.97, m) * amt)[:, None]
            alb = alb * (1 - m) + c2.astype(F) * m
        shin[:] = 60.0 if st["matte"] else 900.0
        if st["translucent"]:
            # light scattered inside the body makes edges and corners glow, face centres look deeper
            q = np.sort(np.abs(Pl) / F(ob.h), axis=1)
            e = smoothstep(F(0.55), F(1.0), q[:, 1])[:, None]
            alb = alb * (F(0.75) + F(0.55) * e)
            wrap[:] = 0.5
            glow[:] = 0.3 + 0.4 * e[:, 0]
        if pip.any():
            pc = np.broadcast_to(st["pip"].astype(F), (M, 3))
            if st["one"] is not None:
                pc = np.where((fnum == 1)[:, None], st["one"].astype(F), pc)
            if st["gold"]:
                alb[pip] = pc[pip] * 0.25
                spec[pip] = pc[pip]
                shin[pip] = 80.0
            else:
                alb[pip] = pc[pip]
                spec[pip] = 0.03
                shin[pip] = 40.0
            wrap[pip] = 0
            glow[pip] = 0
        return alb, spec, shin, wrap, glow, 1.0
    x = Pl[:, 0]
    if ob.kind == "pencil":
        alb = np.broadcast_to(ob.col.astype(F), (M, 3)).copy()
        shin[:] = 120
        cone = x > ob.cx - ob.ch - 0.2
        alb[cone] = s2l((0.80, 0.62, 0.42)).astype(F)
        shin[cone] = 10
        spec[cone] = 0.02
        lead = x > ob.L / 2 - 4.5
        alb[lead] = 0.05
        spec[lead] = 0.2
        shin[lead] = 60
        if ob.eraser:
            e0 = -ob.L / 2
            fer = (x < e0 + 14) & (x > e0 + 7)
            alb[fer] = 0.1
            spec[fer] = s2l((0.8, 0.8, 0.78)).astype(F) * (0.8 + 0.2 * np.sin(x[fer] * 6)[:, None] ** 2)
            shin[fer] = 60
            er = x <= e0 + 7
            alb[er] = s2l((0.90, 0.55, 0.55)).astype(F)
            spec[er] = 0.02
            shin[er] = 8
        return alb, spec, shin, wrap, glow, 1.0
    if ob.kind == "coin":
        rr = np.sqrt(Pl[:, 0] ** 2 + Pl[:, 1] ** 2)
        pat = 0.75 + 0.25 * np.sin(rr * 2.2) * np.sin(np.arctan2(Pl[:, 1], Pl[:, 0]) * 7 + rr)
        rim = rr > ob.cr - 1.2
        pat[rim] = 1.0
        alb = (ob.col.astype(F)[None, :] * 0.3 * pat[:, None])
        spec = ob.col.astype(F)[None, :] * (0.25 + 0.25 * pat[:, None])
        shin[:] = 40
        return alb, spec.astype(F), shin, wrap, glow, 1.0
    if ob.kind == "card":
        alb = np.full((M, 3), 0.85, F)
        ax, ay = np.abs(Pl[:, 0]), np.abs(Pl[:, 1])
        inner = (ax < ob.hw[0] - 4) & (ay < ob.hw[1] - 4)
        if ob.face_up:
            lines = (np.mod(Pl[:, 1], 6.0) < 0.35) & inner
            alb[lines] = s2l((0.5, 0.6, 0.85)).astype(F)
        else:
            pat = np.sin((Pl[:, 0] + Pl[:, 1]) * 1.3) * np.sin((Pl[:, 0] - Pl[:, 1]) * 1.3)
            c = ob.col.astype(F)[None, :] * (0.8 + 0.35 * (pat > 0.3)[:, None])
            alb[inner] = c[inner]
        alb[np.abs(Nw[:, 2]) < 0.5] = 0.7
        spec[:] = 0.035
        shin[:] = 60
        return alb, spec, shin, wrap, glow, 1.0
    # cup
    alb = np.broadcast_to(ob.col.astype(F), (M, 3)).copy()
    foot = Pl[:, 2] < -ob.chh + 5
    alb[foot] = alb[foot] * 0.75 + 0.15
    shin[:] = 250
    spec[:] = 0.05
    return alb, spec, shin, wrap, glow, 1.0


def shade(sc, P, N, V, alb, spec, shin, wrap, glow, envk, ao, shs):
    out = alb * amb_irr(sc, N) * ao[:, None]
    for i, L in enumerate(sc.lights):
        Ld, E, _ = light_at(L, P)
        ndl = dot(N, Ld)
        sh = shs[i]
        dif = np.clip((ndl + wrap) / (1 + wrap), 0, 1)
        out = out + alb * E * (dif * sh)[:, None]
        if glow.any():
            out = out + alb * alb * E * (glow * sh * (0.3 + 0.7 * np.clip(ndl + 0.6, 0, 1)))[:, None]
        Hh = nrm(Ld + V)
        nh = np.clip(dot(N, Hh), 0, 1)
        vh = np.clip(dot(V, Hh), 0, 1)
        se = np.minimum(shin, L["shin"])
        fr = spec + (1 - spec) * ((1 - vh) ** 5)[:, None]
        sp = (se + 8) / (8 * np.pi) * nh ** se * np.clip(ndl, 0, 1) * sh
        out = out + fr * E * sp[:, None]
    nv = np.clip(dot(N, V), 0, 1)
    Rd = 2 * nv[:, None] * N - V
    fr = spec + (1 - spec) * ((1 - nv) ** 5)[:, None]
    out = out + fr * env_radiance(sc, Rd) * (ao * envk)[:, None]
    return out


def soft_shadow(ob, P, Ld, dl_light, k, dlim):
    """Soft shadow factor of points P (M,3) toward light (unit Ld) from object ob."""
    M = P.shape[0]
    res = np.ones(M, F)
    oc = (P - ob.c).astype(F)
    dc = np.sqrt(dot(oc, oc))
    rm_ = ob.rho + (dc + ob.rho) / k
    b = dot(oc, Ld)
    cc = dc * dc - rm_ * rm_
    disc = b * b - cc
    cand = (disc > 0)
    sq = np.sqrt(np.maximum(disc, 0))
    t_in = -b - sq
    t_out = np.minimum(-b + sq, dl_light)
    cand &= (t_out > 0.05)
    idx = np.nonzero(cand)[0]
    if idx.size == 0:
        return res
    Rf = ob.R.astype(F)
    ol = oc[idx] @ Rf
    dl = Ld[idx] @ Rf
    t = np.maximum(t_in[idx], 0.03).astype(F)
    tend = t_out[idx]
    r = np.ones(idx.size, F)
    act = np.arange(idx.size)
    for _ in range(28):
        if act.size == 0:
            break
        tt = t[act]
        hh = obj_sdf(ob, ol[act] + dl[act] * tt[:, None])
        r[act] = np.minimum(r[act], k * hh / tt)
        tn = tt + np.clip(hh, 0.04, None)
        t[act] = tn
        act = act[(r[act] > 0.003) & (tn < tend[act])]
    r = np.clip(r, 0, 1)
    occl = 1 - r * r * (3 - 2 * r)
    # a small occluder cannot hide more of a large light than its own apparent size
    d = dc[idx]
    cap = np.clip((ob.ro * k / np.maximum(d, 1e-3)) ** 2, 0, 1) * smoothstep(dlim, 0.8 * dlim, d)
    res[idx] = 1 - occl * cap
    return res


AO_S = np.array([0.8, 2.5, 6.0, 12.0])
AO_W = np.array([0.22, 0.22, 0.2, 0.18])


def ao_obj(ob, P, N, own, scale):
    M = P.shape[0]
    occ = np.zeros(M, F)
    Rf = ob.R.astype(F)
    for s, w in zip(AO_S * scale, AO_W):
        q = ((P + N * F(s)) - ob.c.astype(F)) @ Rf
        if ob.kind == "die" and own.any():
            d = np.empty(M, F)
            d[~own] = obj_sdf(ob, q[~own])
            d[own] = obj_sdf(ob, q[own], full=True)
        else:
            d = obj_sdf(ob, q)
        occ += F(w) * np.clip((s - d) / s, 0, 1)
    return np.clip(1 - occ, 0, 1)


def obj_corners(ob, grow=0.0):
    s = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], float)
    return (s * (ob.hb + grow)) @ ob.R.T + ob.c


# ----------------------------------------------------------------- scene setup
class Scene:
    pass


def setup_scene(seed, W, H):
    rng = np.random.default_rng([seed, 7771])
    sc = Scene()
    sc.cam = cam = Camera(rng, W, H)
    sc.table = tb = make_table(rng)
    sc.room = rm = make_room(rng, tb)
    sc.light_kind, sc.lights, sc.amb, sc.gain = make_lights(rng, rm)
    key = sum(float(np.mean(L["col"]) / (np.linalg.norm(L["pos"]) ** 2 if L["type"] == "point" else 1.0))
              for L in sc.lights)
    sc.env_ground = (tb.mean * (sc.amb + 0.5 * key)).astype(np.float64)
    sc.props = [p for p in make_props(rng, cam) if p.c[1] < rm.edge_y - p.rho * 0.6]
    nst = int(rng.choice([1, 1, 1, 1, 1, 1, 1, 2, 2, 3]))
    styles = [make_style(rng)]
    for _ in range(nst - 1):
        same = rng.random() < 0.5
        styles.append(make_style(rng, h=styles[0]["h"] if same else None))
    sc.styles = styles
    sc.soft = tb.kind in ("cloth", "mat")
    # camera pipeline parameters (per setup)
    ill = np.array(sc.amb, float)
    for L in sc.lights:
        ill = ill + L["col"] / (np.linalg.norm(L["pos"]) ** 2 if L["type"] == "point" else 1.0)
    sc.illum = ill / ill[1]
    sc.post = dict(ev_bias=rng.normal(0, 0.3), wb_alpha=rng.uniform(0.55, 1.0), wb_beta=rng.uniform(0.0, 0.45),
                   wb_cast=np.exp(rng.normal(0, 0.06, 3)), sat=rng.uniform(0.8, 1.35),
                   contrast=rng.uniform(-0.05, 0.35), black=rng.uniform(0.0, 0.035),
                   sharp=rng.uniform(0.2, 1.6), sharp_sig=rng.uniform(0.7, 1.6),
                   chroma=rng.uniform(0.4, 1.6), vig=rng.uniform(0.05, 0.45), ca=rng.uniform(0, 0.0025),
                   read=0.0015 * sc.gain, shot=0.0007 * sc.gain, jpeg=(60, 95))
    _precompute_static(sc)
    return sc


def _precompute_static(sc):
    cam, tb, rm = sc.cam, sc.table, sc.room
    D = cam.dirs
    O = cam.pos.astype(F)
    Hs, Ws = cam.Hs, cam.Ws
    dz = D[..., 2]
    with np.errstate(divide="ignore", invalid="ignore"):
        t_tab = np.where(dz < -1e-6, -O[2] / dz, np.inf).astype(F)
    Pt = O + D * np.where(np.isfinite(t_tab), t_tab, 0)[..., None]
    table = np.isfinite(t_tab) & (Pt[..., 1] < rm.edge_y)
    kind = np.full((Hs, Ws), 3, np.int8)
    tt = np.where(table, t_tab, np.inf).astype(F)
    # table edge front face
    dy = D[..., 1]
    with np.errstate(divide="ignore", invalid="ignore"):
        te = np.where(dy > 1e-6, (rm.edge_y - O[1]) / dy, np.inf)
    ze = O[2] + D[..., 2] * te
    edge = ~table & (ze < 0) & (ze > -rm.edge_t)
    # floor and wall
    with np.errstate(divide="ignore", invalid="ignore"):
        tfl = np.where(dz < -1e-6, (rm.floor_z - O[2]) / dz, np.inf)
        tw = np.where(dy > 1e-6, (rm.wall_y - O[1]) / dy, np.inf)
    floor = ~table & ~edge & (tfl < tw)
    wall = ~table & ~edge & ~floor
    zw = O[2] + D[..., 2] * tw
    ceil = wall & (zw > rm.ceil_z)
    with np.errstate(divide="ignore", invalid="ignore"):
        tc = np.where(dz > 1e-6, (rm.ceil_z - O[2]) / dz, 1e5)
    tt = np.where(edge, te, tt)
    tt = np.where(floor, tfl, tt)
    tt = np.where(wall & ~ceil, tw, tt)
    tt = np.where(ceil, tc, tt)
    tt = np.where(np.isfinite(tt), tt, 1e5).astype(F)
    kind[table] = 0
    kind[edge] = 1
    kind[floor] = 2
    kind[ceil] = 4
    sc.bg_t = tt
    sc.kind = kind
    Dc = cam.dirs_c
    with np.errstate(divide="ignore", invalid="ignore"):
        tcz = np.where(Dc[..., 2] < -1e-6, -O[2] / Dc[..., 2], 0).astype(F)
    sc.Pc = (O + Dc * tcz[..., None]).astype(F)
    sc.cvalid = (tcz > 0) & (sc.Pc[..., 1] < rm.edge_y + 50)
    P = (O + D * tt[..., None]).astype(F)
    sc.P0 = P
    # ---- table surface (kind 0): albedo via mip textures
    fp = (tt * cam.pix_ang / np.sqrt(np.maximum(np.abs(dz), 0.03))).astype(F)
    x = np.where(table, P[..., 0], 0).astype(F)
    y = np.where(table, P[..., 1], 0).astype(F)
    fpt = np.where(table, fp, 1.0).astype(F)
    alb = table_albedo(tb, x, y, fpt)
    alb = np.where(table[..., None], alb, 0).astype(F)
    sc.alb_table = alb
    V = -D
    Nz = np.zeros_like(D)
    Nz[..., 2] = 1
    F0, tshin, envk = tb.spec
    nv = np.clip(V[..., 2], 0, 1)
    fres = (F0 + (1 - F0) * (1 - nv) ** 5).astype(F)
    Rd = D.copy()
    Rd[..., 2] = -Rd[..., 2]
    flat = table.reshape(-1)
    Pf = P.reshape(-1, 3)[flat]
    M = Pf.shape[0]
    A = np.zeros((Hs * Ws, 3), F)
    A[flat] = alb.reshape(-1, 3)[flat] * amb_irr(sc, np.broadcast_to(np.array([0, 0, 1], F), (M, 3)))
    sc.A_diff = A.reshape(Hs, Ws, 3)
    Aenv = np.zeros((Hs * Ws, 3), F)
    if tb.mirror:
        refl = _room_reflection(sc, Pf, Rd.reshape(-1, 3)[flat])
        Aenv[flat] = refl * (fres.reshape(-1)[flat] * envk)[:, None]
    else:
        Aenv[flat] = env_radiance(sc, Rd.reshape(-1, 3)[flat]) * (fres.reshape(-1)[flat] * envk)[:, None]
    sc.A_env = Aenv.reshape(Hs, Ws, 3)
    sc.fres = fres
    sc.DS = []
    Vf = V.reshape(-1, 3)[flat]
    for L in sc.lights:
        Ld, E, _ = light_at(L, Pf)
        ndl = np.clip(Ld[:, 2], 0, 1)
        Hh = nrm(Ld + Vf)
        nh = np.clip(Hh[:, 2], 0, 1)
        vh = np.clip(dot(Vf, Hh), 0, 1)
        se = min(tshin, L["shin"])
        fr = F0 + (1 - F0) * (1 - vh) ** 5
        sp = (se + 8) / (8 * np.pi) * nh ** se * ndl * fr
        if tb.mirror:
            sp = sp * 0.0
        ds = np.zeros((Hs * Ws, 3), F)
        ds[flat] = alb.reshape(-1, 3)[flat] * E * ndl[:, None] + E * sp[:, None]
        sc.DS.append(ds.reshape(Hs, Ws, 3))
    # ---- background radiance
    bgm = ~table
    Pb = P[bgm]
    kb = kind[bgm]
    albb, emit = room_albedo(rm, Pb, kb)
    Nb = np.zeros_like(Pb)
    Nb[kb == 1, 1] = -1
    Nb[kb == 3, 1] = -1
    Nb[kb == 2, 2] = 1
    Nb[kb == 4, 2] = -1
    irr = amb_irr(sc, Nb) * 0.8
    for L in sc.lights:
        Ld, E, _ = light_at(L, Pb)
        irr = irr + E * np.clip(dot(Nb, Ld), 0, 1)[:, None] * 0.8
    rb = albb * irr + emit
    # darker below the table (table shadow on floor / lower wall)
    under = (Pb[:, 2] < 0) & (kb != 1)
    rb[under] *= 0.55
    bg = np.zeros((Hs, Ws, 3), F)
    bg[bgm] = rb
    sc.bg_rad = bg
    sc.table_mask = table
    st = sc.A_diff + sc.A_env
    for ds in sc.DS:
        st = st + ds
    sc.rad_static = np.where(table[..., None], st, bg).astype(F)


def _room_reflection(sc, P, Rd):
    """Radiance of the room seen along reflected rays (for the glass table)."""
    rm = sc.room
    with np.errstate(divide="ignore", invalid="ignore"):
        tw = np.where(Rd[:, 1] > 1e-4, (rm.wall_y - P[:, 1]) / Rd[:, 1], np.inf)
    Q = P + Rd * np.where(np.isfinite(tw), tw, 0)[:, None]
    hitw = np.isfinite(tw) & (Q[:, 2] < rm.ceil_z)
    out = env_radiance(sc, Rd)
    if hitw.any():
        kb = np.full(int(hitw.sum()), 3, np.int8)
        albb, emit = room_albedo(rm, Q[hitw], kb)
        Nb = np.zeros((kb.size, 3), F)
        Nb[:, 1] = -1
        irr = amb_irr(sc, Nb) * 0.8
        for L in sc.lights:
            Ld, E, _ = light_at(L, Q[hitw])
            irr = irr + E * np.clip(dot(Nb, Ld), 0, 1)[:, None] * 0.8
        out[hitw] = albb * irr + emit
    # light sources as bright discs (radiance consistent with their irradiance and size)
    for L in sc.lights:
        if L["type"] == "point":
            Ld = nrm(L["pos"].astype(F) - P)
            rho = float(np.clip(L["size"] / np.linalg.norm(L["pos"]), 0.01, 0.3))
            Eref = L["col"] / np.linalg.norm(L["pos"]) ** 2
        else:
            if rm.window is not None:
                continue
            Ld = np.broadcast_to(L["dir"].astype(F), P.shape)
            rho = 0.3
            Eref = L["col"]
        c = dot(Ld, Rd)
        g = smoothstep(math.cos(1.25 * rho), math.cos(0.8 * rho), c) / (np.pi * rho * rho)
        out = out + (g[:, None] * Eref[None, :] * 0.4).astype(F)
    return out.astype(F)


# ----------------------------------------------------------------- per-image rendering
def _upcrop(a, cy0, cy1, cx0, cx1, fy0, fy1, fx0, fx1, s):
    """Bilinear upsampling of coarse grid a (one sample per output pixel) onto fine rows fy0:fy1, cols fx0:fx1."""
    fy = (np.arange(fy0, fy1) + 0.5) / s - 0.5
    fx = (np.arange(fx0, fx1) + 0.5) / s - 0.5
    mx, my = np.meshgrid(fx.astype(F), fy.astype(F))
    return cv2.remap(a, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def render_image(sc, rng):
    cam = sc.cam
    Hs, Ws = cam.Hs, cam.Ws
    D = cam.dirs
    O = cam.pos.astype(F)
    dice = throw_dice(rng, sc.styles, sc.props, cam, sc.soft, sc.room.edge_y)
    objs = dice + sc.props
    tbest = sc.bg_t.copy()
    oid = np.full((Hs, Ws), -1, np.int16)
    Nw = np.zeros((Hs, Ws, 3), F)
    Pl = np.zeros((Hs, Ws, 3), F)
    fnum = np.zeros((Hs, Ws), np.int8)
    pip = np.zeros((Hs, Ws), bool)
    alone = []
    rects = []
    for j, ob in enumerate(objs):
        rc = cam.rect(obj_corners(ob, 0.5))
        rects.append(rc)
        if rc is None:
            alone.append(None)
            continue
        y0, y1, x0, x1 = rc
        Dsub = D[y0:y1, x0:x1].reshape(-1, 3)
        t, n, pl, fn, pp = trace_obj(ob, O, Dsub)
        hit = np.isfinite(t)
        hh = hit.reshape(y1 - y0, x1 - x0)
        if ob.kind == "die":
            ys, xs = np.nonzero(hh)
            alone.append((ys + y0, xs + x0) if ys.size else None)
        else:
            alone.append(None)
        tb_sub = tbest[y0:y1, x0:x1].reshape(-1)
        upd = hit & (t < tb_sub)
        if not upd.any():
            continue
        w = x1 - x0
        ui = np.nonzero(upd)[0]
        yy, xx = ui // w + y0, ui % w + x0
        tbest[yy, xx] = t[ui]
        oid[yy, xx] = j
        Nw[yy, xx] = n[ui]
        Pl[yy, xx] = pl[ui]
        fnum[yy, xx] = fn[ui]
        pip[yy, xx] = pp[ui]
    isobj = oid >= 0
    oys, oxs = np.nonzero(isobj)
    own = oid[oys, oxs].astype(np.int32)
    Po = (O + D[oys, oxs] * tbest[oys, oxs][:, None]).astype(F)
    No = Nw[oys, oxs]
    nL = len(sc.lights)
    # table receivers on a coarse grid (one sample per output pixel) on the continuous table plane
    Pt, tvalid = sc.Pc, sc.cvalid
    Hc, Wc = Pt.shape[:2]
    sh_t = [np.ones((Hc, Wc), F) for _ in range(nL)]
    sh_o = [np.ones(Po.shape[0], F) for _ in range(nL)]
    Nup = np.broadcast_to(np.array([0, 0, 1], F), (1, 3))
    # ------------------------------------------------ shadows
    for i, L in enumerate(sc.lights):
        for j, ob in enumerate(objs):
            corners = obj_corners(ob, 0.5)
            if L["type"] == "point":
                lp = L["pos"]
                dz = lp[2] - corners[:, 2]
                if (dz < 5).any():
                    lgeo = 2000.0
                else:
                    Q = lp + (corners - lp) * (lp[2] / dz)[:, None]
                    lgeo = float(np.linalg.norm(Q[:, :2] - ob.c[:2], axis=1).max())
            else:
                ld = L["dir"]
                Q = corners - ld[None, :] * (corners[:, 2] / ld[2])[:, None]
                lgeo = float(np.linalg.norm(Q[:, :2] - ob.c[:2], axis=1).max())
            # beyond dlim the object's shadow is negligible (small occluder / large light) or beyond its tip
            dlim = min(3.0 * ob.ro * L["k"], 1.3 * lgeo + ob.rho + 10.0)
            dlim = max(dlim, ob.rho + 4.0)
            cx, cy = ob.c[0], ob.c[1]
            box = np.array([[cx + sx * dlim, cy + sy * dlim, 0.0] for sx in (-1, 1) for sy in (-1, 1)])
            rc = cam.rect(box, margin=2, coarse=True)
            if rc is not None:
                y0, y1, x0, x1 = rc
                blkv = tvalid[y0:y1, x0:x1].reshape(-1)
                Pb = Pt[y0:y1, x0:x1].reshape(-1, 3)
                sel = blkv & (np.abs(Pb[:, 0] - cx) < dlim) & (np.abs(Pb[:, 1] - cy) < dlim)
                idx = np.nonzero(sel)[0]
                if idx.size:
                    Pq = Pb[idx]
                    Ld, _, dl = light_at(L, Pq)
                    r = soft_shadow(ob, Pq + F(0.02) * Nup, np.ascontiguousarray(Ld), dl, L["k"], dlim)
                    if ob.kind == "die" and ob.st["translucent"]:
                        r = 1 - (1 - r) * 0.7
                    blk = sh_t[i][y0:y1, x0:x1].reshape(-1).copy()
                    blk[idx] *= r
                    sh_t[i][y0:y1, x0:x1] = blk.reshape(y1 - y0, x1 - x0)
            if Po.shape[0]:
                idx = np.nonzero((own != j) & (dist2(Po, ob.c) < dlim * dlim))[0]
                if idx.size:
                    Ld, _, dl = light_at(L, Po[idx])
                    facing = dot(No[idx], Ld) > -0.3
                    idx = idx[facing]
                    if idx.size:
                        r = soft_shadow(ob, Po[idx] + No[idx] * F(0.02), np.ascontiguousarray(Ld[facing]),
                                        dl[facing], L["k"], dlim)
                        if ob.kind == "die" and ob.st["translucent"]:
                            r = 1 - (1 - r) * 0.7
                        sh_o[i][idx] *= r
    # ------------------------------------------------ ambient occlusion
    ao_t = np.ones((Hc, Wc), F)
    ao_o = np.ones(Po.shape[0], F)
    hmean = np.mean([d.h for d in dice]) if dice else 8.0
    scale = hmean / 8.0
    smax = AO_S[-1] * scale
    for j, ob in enumerate(objs):
        lim = ob.rho + smax
        cx, cy = ob.c[0], ob.c[1]
        box = np.array([[cx + sx * lim, cy + sy * lim, 0.0] for sx in (-1, 1) for sy in (-1, 1)])
        rc = cam.rect(box, margin=2, coarse=True)
        if rc is not None:
            y0, y1, x0, x1 = rc
            blkv = tvalid[y0:y1, x0:x1].reshape(-1)
            Pb = Pt[y0:y1, x0:x1].reshape(-1, 3)
            sel = blkv & (dist2(Pb, ob.c) < lim * lim)
            idx = np.nonzero(sel)[0]
            if idx.size:
                a_ = ao_obj(ob, Pb[idx], np.broadcast_to(Nup, (idx.size, 3)), np.zeros(idx.size, bool), scale)
                blk = ao_t[y0:y1, x0:x1].reshape(-1).copy()
                blk[idx] *= a_
                ao_t[y0:y1, x0:x1] = blk.reshape(y1 - y0, x1 - x0)
        if Po.shape[0]:
            ownm = own == j
            idx = np.nonzero(((~ownm) | (ob.kind == "die")) & (dist2(Po, ob.c) < lim * lim))[0]
            if idx.size:
                ao_o[idx] *= ao_obj(ob, Po[idx], No[idx], ownm[idx], scale)
    # AO from the table plane onto objects
    if Po.shape[0]:
        occ = np.zeros(Po.shape[0], F)
        for s_, w in zip(AO_S * scale, AO_W):
            d = Po[:, 2] + No[:, 2] * s_
            occ += F(w) * np.clip((s_ - d) / s_, 0, 1)
        ao_o *= np.clip(1 - occ, 0, 1)
    # ------------------------------------------------ shading
    # table radiance: static frame, re-lit only where shadows / occlusion changed something
    rad = sc.rad_static.copy()
    ch = (ao_t < 0.999)
    for i in range(nL):
        ch |= sh_t[i] < 0.999
    if ch.any():
        ry = np.nonzero(ch.any(1))[0]
        rx = np.nonzero(ch.any(0))[0]
        s_ = Ws / cam.W
        cy0, cy1 = max(0, ry[0] - 2), min(Hc, ry[-1] + 3)
        cx0, cx1 = max(0, rx[0] - 2), min(Wc, rx[-1] + 3)
        fy0, fy1 = int(cy0 * s_), min(Hs, int(math.ceil(cy1 * s_)))
        fx0, fx1 = int(cx0 * s_), min(Ws, int(math.ceil(cx1 * s_)))

        sl = (slice(fy0, fy1), slice(fx0, fx1))
        r = sc.A_diff[sl] * _upcrop(ao_t, cy0, cy1, cx0, cx1, fy0, fy1, fx0, fx1, s_)[..., None] + sc.A_env[sl]
        for i in range(nL):
            r = r + sc.DS[i][sl] * _upcrop(sh_t[i], cy0, cy1, cx0, cx1, fy0, fy1, fx0, fx1, s_)[..., None]
        tm = sc.table_mask[sl][..., None]
        rad[sl] = np.where(tm, r, rad[sl])
    for j, ob in enumerate(objs):
        m = np.nonzero(own == j)[0]
        if m.size == 0:
            continue
        ys, xs = oys[m], oxs[m]
        alb, spec, shin, wrap, glow, envk = material(ob, Pl[ys, xs], No[m], fnum[ys, xs], pip[ys, xs])
        rad[ys, xs] = shade(sc, Po[m], No[m], -D[ys, xs], alb, spec, shin, wrap, glow, envk, ao_o[m],
                            [s_[m] for s_ in sh_o])
    owner = np.where(isobj, oid, np.where(sc.table_mask, -1, -2)).astype(np.int16)
    P = sc.P0
    # ------------------------------------------------ mirror reflections of objects in a glass table
    if sc.table.mirror:
        rt = np.full((Hs, Ws), np.inf, F)
        rr = np.zeros((Hs, Ws, 3), F)
        for j, ob in enumerate(objs):
            cs = obj_corners(ob, 0.5) * [1, 1, -1]
            rc = cam.rect(cs)
            if rc is None:
                continue
            y0, y1, x0, x1 = rc
            ow = owner[y0:y1, x0:x1].reshape(-1)
            idx = np.nonzero(ow == -1)[0]
            if idx.size == 0:
                continue
            Pb = P[y0:y1, x0:x1].reshape(-1, 3)[idx]
            Rd = D[y0:y1, x0:x1].reshape(-1, 3)[idx].copy()
            Rd[:, 2] *= -1
            t, n, pl, fn, pp = trace_obj(ob, Pb, Rd)
            h = np.isfinite(t)
            if not h.any():
                continue
            blk_t = rt[y0:y1, x0:x1].reshape(-1)
            sel = np.nonzero(h)[0]
            sel = sel[t[sel] < blk_t[idx[sel]]]
            if sel.size == 0:
                continue
            Q = Pb[sel] + Rd[sel] * t[sel][:, None]
            alb, spec, shin, wrap, glow, envk = material(ob, pl[sel], n[sel], fn[sel], pp[sel])
            one = np.ones(sel.size, F)
            col = shade(sc, Q, n[sel], -Rd[sel], alb, spec, shin, wrap, glow, envk, one * 0.8, [one] * nL)
            yy, xx = idx[sel] // (x1 - x0) + y0, idx[sel] % (x1 - x0) + x0
            rt[yy, xx] = t[sel]
            rr[yy, xx] = col
        hitr = np.isfinite(rt)
        if hitr.any():
            f = (sc.fres * sc.table.spec[2])[hitr][:, None]
            rad[hitr] = rad[hitr] - sc.A_env[hitr] + f * rr[hitr] * 1.0
    depth = tbest
    # ------------------------------------------------ truth
    truth = []
    s = Ws / cam.W
    for j, ob in enumerate(dice):
        al = alone[j]
        if al is None:
            continue
        ys, xs = al
        if ys.min() <= 0 or xs.min() <= 0 or ys.max() >= Hs - 1 or xs.max() >= Ws - 1:
            continue
        vis = int((oid[ys, xs] == j).sum())
        if vis < (2.0 / 3.0) * ys.size:
            continue
        Rz = ob.R[2, :]
        cand = np.array([Rz[0], -Rz[0], Rz[1], -Rz[1], Rz[2], -Rz[2]])
        fi = int(np.argmax(cand))
        k = fi // 2
        sg = 1.0 if fi % 2 == 0 else -1.0
        ctr = ob.c + ob.R[:, k] * sg * ob.h
        u, v, _ = cam.project(ctr)
        tilt = math.degrees(math.acos(min(1.0, float(cand[fi]))))
        x0 = (xs.min() + 0.5) / s - 0.5 - 0.5 / s
        x1 = (xs.max() + 0.5) / s - 0.5 + 0.5 / s
        y0 = (ys.min() + 0.5) / s - 0.5 - 0.5 / s
        y1 = (ys.max() + 0.5) / s - 0.5 + 0.5 / s
        truth.append({"face": str(int(AXNUM[fi])), "x": round(float(u[0]), 2), "y": round(float(v[0]), 2),
                      "tilted": bool(tilt > 8.0), "colour": ob.st["name"],
                      "box": [round(float(x0), 1), round(float(y0), 1), round(float(x1), 1), round(float(y1), 1)]})
    return rad, depth, truth, dice


# ----------------------------------------------------------------- camera pipeline
def postprocess(sc, rad, depth, rng):
    cam = sc.cam
    W, H = cam.W, cam.H
    pp = sc.post
    img = cv2.resize(rad.astype(F), (W, H), interpolation=cv2.INTER_AREA)
    dep = cv2.resize(np.minimum(depth, 2e4).astype(F), (W, H), interpolation=cv2.INTER_AREA)
    yy, xx = np.mgrid[0:H, 0:W].astype(F)
    r2 = ((xx - cam.cx) ** 2 + (yy - cam.cy) ** 2) / (0.25 * (W * W + H * H))
    img = img * (1 - pp["vig"] * r2)[..., None]
    # depth of field
    coc = cam.f * cam.aper * np.abs(1.0 / np.maximum(dep, 1.0) - 1.0 / cam.zf)
    sig = np.sqrt(cam.s0 ** 2 + (0.5 * coc) ** 2)
    levels = [0.0, 0.6, 1.2, 2.0, 3.2, 5.0]
    sig = np.clip(sig, 0, levels[-1]).astype(F)
    out = np.zeros_like(img)
    for li, lv in enumerate(levels):
        lo = levels[li - 1] if li > 0 else None
        hi = levels[li + 1] if li + 1 < len(levels) else None
        w = np.zeros_like(sig)
        if lo is not None:
            w = np.where((sig >= lo) & (sig <= lv), (sig - lo) / (lv - lo), w)
        else:
            w = np.where(sig <= lv, 1.0, w)
        if hi is not None:
            w = np.where((sig > lv) & (sig < hi), (hi - sig) / (hi - lv), w)
        else:
            w = np.where(sig >= lv, 1.0, w)
        if not (w > 0).any():
            continue
        b = img if lv == 0 else cv2.GaussianBlur(img, (0, 0), lv)
        out += b * w[..., None]
    img = out
    # lateral chromatic aberration
    ca = pp["ca"]
    if ca > 0:
        for ch, sgn in ((0, 1), (2, -1)):
            M = np.array([[1 + sgn * ca, 0, -sgn * ca * cam.cx], [0, 1 + sgn * ca, -sgn * ca * cam.cy]], F)
            img[..., ch] = cv2.warpAffine(img[..., ch], M, (W, H), flags=cv2.INTER_LINEAR,
                                          borderMode=cv2.BORDER_REFLECT)
    # motion blur
    if rng.random() < 0.15:
        L = rng.uniform(1.5, 6.0)
        a = rng.uniform(0, np.pi)
        ks = int(math.ceil(L)) * 2 + 1
        k = np.zeros((ks, ks), F)
        c = ks // 2
        for tt in np.linspace(-L / 2, L / 2, 4 * ks):
            k[int(round(c + tt * math.sin(a))), int(round(c + tt * math.cos(a)))] += 1
        img = cv2.filter2D(img, -1, k / k.sum())
    # auto exposure (centre weighted mean)
    lum = img @ np.array([0.2126, 0.7152, 0.0722], F)
    wgt = np.exp(-r2 * 1.5)
    meter = float((lum * wgt).sum() / wgt.sum())
    target = 0.18 * 2 ** (pp["ev_bias"] + rng.normal(0, 0.25))
    e = target / max(meter, 1e-6)
    hi = float(np.percentile(img.max(-1), 99.7)) * e
    clipmax = rng.uniform(0.9, 1.8)
    if hi > clipmax:            # highlight protection, usually incomplete
        e *= (clipmax / hi) ** rng.uniform(0.3, 0.8)
    img = img * e
    # sensor: Bayer RGGB mosaic + shot/read noise + demosaic
    raw = np.empty((H, W), F)
    raw[0::2, 0::2] = img[0::2, 0::2, 0]
    raw[0::2, 1::2] = img[0::2, 1::2, 1]
    raw[1::2, 0::2] = img[1::2, 0::2, 1]
    raw[1::2, 1::2] = img[1::2, 1::2, 2]
    raw = np.clip(raw, 0, 1)
    sd = np.sqrt(pp["read"] ** 2 + pp["shot"] * raw)
    raw = raw + sd * rng.standard_normal(raw.shape).astype(F)
    if rng.random() < 0.3:
        raw = raw + (rng.standard_normal((H, 1)) * pp["read"] * 0.6).astype(F)
    raw = np.round(np.clip(raw, 0, 1) * 1023) / 1023
    img = cv2.cvtColor((raw * 65535).astype(np.uint16), cv2.COLOR_BayerBG2RGB).astype(F) / 65535
    # auto white balance: partial correction of the illuminant, pulled toward grey world, plus a cast
    m = img.reshape(-1, 3).mean(0) + 1e-6
    corr = (1.0 / sc.illum) ** pp["wb_alpha"]
    gw = np.clip((m[1] / m) / (1.0 / sc.illum), 0.6, 1.6) ** pp["wb_beta"]
    gains = corr * gw * pp["wb_cast"] * np.exp(rng.normal(0, 0.02, 3))
    gains = gains / gains[1]
    img = img * gains.astype(F)
    lum = (img @ np.array([0.2126, 0.7152, 0.0722], F))[..., None]
    img = lum + (img - lum) * pp["sat"]
    img = l2s(np.clip(img, 0, 1)).astype(F)
    c = pp["contrast"]
    img = img - c * np.sin(2 * np.pi * img) / (2 * np.pi)
    img = pp["black"] + (1 - pp["black"]) * img
    ycc = cv2.cvtColor(np.clip(img, 0, 1).astype(F), cv2.COLOR_RGB2YCrCb)
    Y = ycc[..., 0]
    ycc[..., 0] = Y + pp["sharp"] * (Y - cv2.GaussianBlur(Y, (0, 0), pp["sharp_sig"]))
    for ch in (1, 2):
        ycc[..., ch] = cv2.GaussianBlur(ycc[..., ch], (0, 0), pp["chroma"])
    img = cv2.cvtColor(ycc, cv2.COLOR_YCrCb2RGB)
    out8 = np.clip(img * 255 + 0.5, 0, 255).astype(np.uint8)
    q = int(rng.integers(pp["jpeg"][0], pp["jpeg"][1] + 1))
    ok, buf = cv2.imencode(".jpg", cv2.cvtColor(out8, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, q])
    return buf


# ----------------------------------------------------------------- main
def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out_dir")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--images", type=int, default=10)
    ap.add_argument("--width", type=int, default=640)
    ap.add_argument("--height", type=int, default=480)
    a = ap.parse_args(argv)
    os.makedirs(a.out_dir, exist_ok=True)
    t0 = time.time()
    sc = setup_scene(a.seed, a.width, a.height)
    cam = sc.cam
    print(f"seed {a.seed}: table={sc.table.name} light={sc.light_kind} elevation={cam.el:.1f}deg "
          f"distance={cam.dist:.0f}mm fov={cam.fov:.0f}deg props={[str(p.kind) for p in sc.props]} "
          f"dice={[s['name'] for s in sc.styles]} setup {time.time() - t0:.2f}s", file=sys.stderr)
    truth = {"seed": a.seed, "size": [a.width, a.height], "images": {}}
    for i in range(a.images):
        t1 = time.time()
        rng = np.random.default_rng([a.seed, i + 1, 99])
        rad, depth, tr, dice = render_image(sc, rng)
        buf = postprocess(sc, rad, depth, rng)
        name = f"img-{i + 1:04d}.jpg"
        with open(os.path.join(a.out_dir, name), "wb") as fh:
            fh.write(buf.tobytes())
        truth["images"][name] = tr
        print(f"  {name}: {len(dice)} dice thrown, {len(tr)} listed "
              f"({sum(d['tilted'] for d in tr)} tilted), {time.time() - t1:.2f}s", file=sys.stderr)
    with open(os.path.join(a.out_dir, "truth.json"), "w") as fh:
        json.dump(truth, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
