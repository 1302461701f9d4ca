#!/usr/bin/env python3
"""webcam_renderer_c.py - synthetic webcam/phone photographs of six-sided pip dice
lying on a table, with exact ground truth.

    python webcam_renderer_c.py OUT_DIR --seed N --images K [--width 640] [--height 480] [--quiet]

Technique: per-pixel ray casting in numpy.  A "setup" (seed) fixes camera, table,
lights, props and the dice set; everything static (table texture with mip-mapping,
wall, props, per-light irradiance) is pre-rendered once per setup at a supersampled
resolution.  Per image the dice are thrown, their shadows and contact occlusion are
rasterised in table space (cv2.fillConvexPoly from jittered light samples) and
applied to the cached table, then every die is ray cast as a rounded cube
(slab test + sphere tracing of the exact rounded-box distance field) with the pips
as part of each face (drilled bowls or painted discs), shaded with several lights,
shadow rays, ambient/contact occlusion, gloss, Fresnel environment reflection and
optional translucency; glossy tables get mirrored dice reflections.  The result is
downsampled, given lens distortion, lateral chromatic aberration, blur, auto
exposure/white balance errors, vignetting, sensor noise, a tone curve, sharpening
and JPEG compression.

Image coordinates in truth.json: continuous pixel coordinates in which pixel (i, j)
covers [i, i+1) x [j, j+1) (so the centre of the top-left pixel is (0.5, 0.5)).
"box" is the bounding box of the die's whole silhouette (all faces the camera sees,
including parts hidden behind other dice/props) clipped to [0, W] x [0, H].
"""
import os
for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
           "NUMEXPR_NUM_THREADS", "VECLIB_MAXIMUM_THREADS"):
    os.environ[_v] = "1"
import sys
import json
import math
import time
import argparse
import numpy as np
import cv2

cv2.setNumThreads(1)
try:
    cv2.ocl.setUseOpenCL(False)
except Exception:
    pass

F32 = np.float32
SS = 2  # supersampling factor


# ----------------------------------------------------------------------------
# small helpers
# ----------------------------------------------------------------------------
def normalize(v):
    n = np.sqrt(np.sum(v * v, axis=-1, keepdims=True))
    return v / np.maximum(n, 1e-12)


def srgb2lin(c):
    c = np.asarray(c, dtype=np.float64) / 255.0
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def kelvin_rgb(k):
    """Linear RGB of a black body of temperature k (Kelvin), luminance 1."""
    t = k / 100.0
    if t <= 66:
        r = 255.0
        g = 99.4708025861 * math.log(t) - 161.1195681661
    else:
        r = 329.698727446 * (t - 60) ** -0.1332047592
        g = 288.1221695283 * (t - 60) ** -0.0755148492
    if t >= 66:
        b = 255.0
    elif t <= 19:
        b = 0.0
    else:
        b = 138.5177312231 * math.log(t - 10) - 305.0447927307
    c = srgb2lin(np.clip([r, g, b], 0, 255))
    lum = 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2]
    return c / lum


def rot_x(a):
    c, s = math.cos(a), math.sin(a)
    return np.array([[1, 0, 0], [0, c, -s], [0, s, c]], dtype=np.float64)


def rot_z(a):
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]], dtype=np.float64)


def smoothstep(e0, e1, x):
    t = np.clip((x - e0) / (e1 - e0), 0.0, 1.0)
    return t * t * (3 - 2 * t)


def fft_noise(rng, n, sx, sy=None, m=None):
    """Periodic (tileable) gaussian-filtered noise, n x m, zero mean, unit std.
    sx, sy: filter sigma in texels along x (columns) and y (rows)."""
    if sy is None:
        sy = sx
    if m is None:
        m = n
    w = rng.standard_normal((n, m))
    fy = np.fft.fftfreq(n)[:, None]
    fx = np.fft.rfftfreq(m)[None, :]
    filt = np.exp(-2.0 * (math.pi ** 2) * ((fx * sx) ** 2 + (fy * sy) ** 2))
    r = np.fft.irfft2(np.fft.rfft2(w) * filt, s=(n, m))
    r -= r.mean()
    r /= (r.std() + 1e-12)
    return r.astype(F32)


# ----------------------------------------------------------------------------
# camera
# ----------------------------------------------------------------------------
class Camera:
    def __init__(self, W, H, hfov_deg, elev_deg, azim, dist, roll_deg, target):
        self.Wn, self.Hn = W, H
        self.W, self.H = W * SS, H * SS
        self.hfov, self.elev, self.dist, self.roll = hfov_deg, elev_deg, dist, roll_deg
        self.fn = (W / 2.0) / math.tan(math.radians(hfov_deg) / 2)
        self.f = self.fn * SS
        self.cx, self.cy = self.W / 2.0, self.H / 2.0
        el = math.radians(elev_deg)
        dirc = np.array([math.cos(el) * math.cos(azim), math.cos(el) * math.sin(azim), math.sin(el)])
        self.target = np.asarray(target, dtype=np.float64)
        self.C = self.target + dist * dirc
        fw = -dirc
        r = normalize(np.cross(fw, [0.0, 0.0, 1.0]))
        d = np.cross(fw, r)
        ro = math.radians(roll_deg)
        r2 = math.cos(ro) * r + math.sin(ro) * d
        d2 = -math.sin(ro) * r + math.cos(ro) * d
        self.Rc = np.stack([r2, d2, fw])  # rows: camera x, y(down), z(forward)
        fh = np.array([fw[0], fw[1], 0.0])
        self.fwd_h = fh / np.linalg.norm(fh)

    def project(self, P):
        """World points (...,3) -> SS pixel coords (...,2) and depth (camera z)."""
        pc = (np.asarray(P) - self.C) @ self.Rc.T
        z = pc[..., 2]
        u = self.cx + self.f * pc[..., 0] / z
        v = self.cy + self.f * pc[..., 1] / z
        return np.stack([u, v], axis=-1), z

    def rays(self, px, py):
        """Unit ray directions through SS pixel centres px, py (integer arrays)."""
        x = ((px + 0.5 - self.cx) / self.f).astype(F32)
        y = ((py + 0.5 - self.cy) / self.f).astype(F32)
        R = self.Rc.astype(F32)
        d = x[..., None] * R[0] + y[..., None] * R[1] + R[2]
        return normalize(d)


# ----------------------------------------------------------------------------
# convex polytope ray casting (props, occluders)
# ----------------------------------------------------------------------------
def slab_cast(O, D, normals, lo, hi, tmin=1e-4):
    """Ray / convex polytope (intersection of slabs).  O: (3,) or (N,3), D: (N,3).
    Returns t_enter, t_exit, index of entering slab, sign of the entering normal."""
    s = (O @ normals.T) if O.ndim == 2 else (normals @ O)[None, :]
    v = D @ normals.T
    v = np.where(np.abs(v) < 1e-9, 1e-9, v)
    inv = 1.0 / v
    t1 = (lo[None, :] - s) * inv
    t2 = (hi[None, :] - s) * inv
    tn = np.minimum(t1, t2)
    tf = np.maximum(t1, t2)
    k = np.argmax(tn, axis=1)
    tenter = tn[np.arange(tn.shape[0]), k]
    texit = tf.min(axis=1)
    sgn = np.where(v[np.arange(v.shape[0]), k] > 0, -1.0, 1.0)
    return tenter, texit, k, sgn


def box_slabs(center, axes, half):
    """axes: (3,3) rows = unit axes.  Returns normals, lo, hi."""
    axes = np.asarray(axes, dtype=np.float64)
    c = axes @ np.asarray(center, dtype=np.float64)
    half = np.asarray(half, dtype=np.float64)
    return axes, c - half, c + half


def box_corners(center, axes, half):
    sg = np.array([[i, j, k] for i in (-1, 1) for j in (-1, 1) for k in (-1, 1)], dtype=np.float64)
    return np.asarray(center) + (sg * half) @ np.asarray(axes)


def occluded(P, Ldir, tmax, occs):
    """P: (N,3) points, Ldir (N,3) or (3,) unit direction to light, tmax (N,) or scalar.
    occs: list of (normals, lo, hi, opacity).  Returns visibility (N,)."""
    vis = np.ones(P.shape[0], dtype=F32)
    if Ldir.ndim == 1:
        Ldir = np.broadcast_to(Ldir, P.shape)
    for (nr, lo, hi, op) in occs:
        te, tx, _, _ = slab_cast(P, Ldir, nr, lo, hi)
        hit = (te < tx) & (tx > 1e-3) & (te < tmax)
        if op >= 0.999:
            vis[hit] = 0.0
        else:
            vis[hit] *= (1.0 - op)
    return vis


# ----------------------------------------------------------------------------
# convex polygon utilities (2-D footprints)
# ----------------------------------------------------------------------------
def hull2d(pts):
    pts = np.asarray(pts, dtype=np.float32).reshape(-1, 1, 2)
    h = cv2.convexHull(pts)
    return h.reshape(-1, 2).astype(np.float64)


def polys_overlap(a, b, margin=0.0):
    """Separating-axis test for two convex polygons (n,2), (m,2)."""
    if (a[:, 0].max() <= b[:, 0].min() + margin or b[:, 0].max() <= a[:, 0].min() + margin or
            a[:, 1].max() <= b[:, 1].min() + margin or b[:, 1].max() <= a[:, 1].min() + margin):
        return False
    e = np.vstack([np.roll(a, -1, axis=0) - a, np.roll(b, -1, axis=0) - b])
    ax = np.stack([-e[:, 1], e[:, 0]], axis=1)
    ln = np.sqrt((ax * ax).sum(1))
    ax = ax[ln > 1e-9] / ln[ln > 1e-9, None]
    pa = a @ ax.T
    pb = b @ ax.T
    sep = (pa.max(0) <= pb.min(0) + margin) | (pb.max(0) <= pa.min(0) + margin)
    return not bool(sep.any())


# ----------------------------------------------------------------------------
# table surfaces (tileable textures, linear albedo)
# ----------------------------------------------------------------------------
WOODS = {
    'oak': ((205, 165, 112), (150, 104, 58)), 'walnut': ((118, 78, 50), (62, 38, 24)),
    'cherry': ((176, 98, 62), (112, 56, 34)), 'pine': ((228, 192, 140), (188, 140, 84)),
    'whitewash': ((218, 208, 192), (172, 162, 146)), 'ebony-stain': ((74, 48, 32), (36, 22, 14)),
    'grey-oak': ((156, 150, 142), (100, 94, 88)), 'teak': ((160, 104, 58), (104, 62, 30)),
}
FELTS = {'green': (32, 100, 52), 'blue': (30, 52, 118), 'red': (128, 26, 32), 'black': (28, 28, 30),
         'purple': (70, 40, 96)}


def lerp3(a, b, t):
    return a[None, None, :] * (1 - t[..., None]) + b[None, None, :] * t[..., None]


def make_surface(rng, kind, N, texel):
    """Returns (tile (N,N,3) linear albedo float32, props dict)."""
    P = {'kind': kind, 'spec': 0.04, 'rough': 30.0, 'refl': 0.0, 'sheen': 0.0, 'name': kind}
    tile_mm = N * texel
    yy, xx = np.mgrid[0:N, 0:N].astype(F32)

    def per(mm):  # closest period (texels) that tiles
        k = max(1, int(round(tile_mm / mm)))
        return N / k

    if kind in ('wood', 'wood-laminate'):
        name = rng.choice(sorted(WOODS))
        c1, c2 = (srgb2lin(c) for c in WOODS[name])
        contrast = 1.0 if kind == 'wood' else 0.55
        plank_w = per(rng.uniform(70, 190))
        plank = np.floor(yy / plank_w)
        nplank = int(round(N / plank_w)) + 1
        ptone = rng.normal(0, 0.10, nplank)
        pphase = rng.uniform(0, 10, nplank)
        poff = rng.uniform(0, N, nplank)
        pidx = plank.astype(np.int64) % nplank
        warp = fft_noise(rng, N, N / 6, N / 40) * rng.uniform(1.5, 4.0)
        warp2 = fft_noise(rng, N, N / 14, N / 90) * 0.6
        ring_p = per(rng.uniform(2.5, 7.0))
        g = (yy + warp * ring_p + warp2 * ring_p) / ring_p + pphase[pidx]
        fr = g - np.floor(g)
        ring = smoothstep(0.0, 0.25, fr) * (1 - smoothstep(0.55, 1.0, fr))
        ring = ring ** rng.uniform(0.7, 1.6)
        fib = fft_noise(rng, N, max(N / 40, 6), 0.6 / texel * 0.35 + 0.5)
        fine = fft_noise(rng, N, 1.2, 1.2)
        t = np.clip(0.5 * ring * contrast + 0.5 * (1 - contrast) * 0.5 + 0.15 * fib * contrast + 0.5 * ptone[pidx] * contrast, 0, 1)
        alb = lerp3(c1, c2, t) * (1 + 0.04 * fine[..., None])
        if kind == 'wood':
            # plank seams (end joints too)
            dy = np.abs(((yy + 0.5) % plank_w) - plank_w / 2) - plank_w / 2 + 0.5
            seam = np.clip(1 + dy / max(0.4 / texel, 0.8), 0, 1)
            jlen = per(rng.uniform(400, 900))
            xs = (xx + poff[pidx]) % jlen
            seam2 = np.clip(1 - np.minimum(xs, jlen - xs) / max(0.4 / texel, 0.8), 0, 1)
            alb *= (1 - 0.65 * np.maximum(seam, seam2))[..., None]
        P.update(spec=rng.uniform(0.03, 0.07), rough=rng.uniform(15, 120), name=f"{kind}-{name}")
        if rng.random() < 0.35:
            P.update(refl=rng.uniform(0.2, 0.5), rough=rng.uniform(150, 600))
    elif kind == 'laminate':
        cols = {'white': (226, 224, 218), 'grey': (150, 150, 148), 'beige': (206, 190, 160),
                'black': (40, 40, 42), 'mint': (170, 206, 190), 'blue-grey': (120, 135, 150)}
        name = rng.choice(sorted(cols))
        c = srgb2lin(cols[name])
        m = fft_noise(rng, N, N / 20) * 0.04 + fft_noise(rng, N, 0.8) * 0.05 + fft_noise(rng, N, 3) * 0.03
        alb = c[None, None, :] * (1 + m[..., None])
        P.update(spec=0.05, rough=rng.uniform(20, 90), refl=rng.uniform(0.0, 0.25), name=f"laminate-{name}")
    elif kind == 'felt':
        name = rng.choice(sorted(FELTS))
        c = srgb2lin(FELTS[name]) * rng.uniform(0.85, 1.15)
        fib = fft_noise(rng, N, max(0.25 / texel, 0.6))
        mot = fft_noise(rng, N, 8.0 / texel) * 0.5 + fft_noise(rng, N, N / 10)
        alb = c[None, None, :] * (1 + 0.22 * fib[..., None] + 0.06 * mot[..., None])
        P.update(spec=0.0, rough=5.0, sheen=rng.uniform(0.15, 0.4), name=f"felt-{name}")
    elif kind in ('cloth-checks', 'cloth-stripes'):
        pal = [(180, 50, 50), (50, 70, 140), (40, 100, 60), (210, 190, 90), (70, 70, 70),
               (225, 220, 210), (110, 70, 130), (200, 120, 60), (100, 140, 180), (150, 40, 50)]
        ids = rng.choice(len(pal), 3, replace=False)
        base = srgb2lin((240, 236, 228)) if rng.random() < 0.5 else srgb2lin(pal[ids[2]])
        c1 = srgb2lin(pal[ids[0]])
        c2 = srgb2lin(pal[ids[1]])
        period = per(rng.uniform(8, 40))
        duty = rng.uniform(0.3, 0.5)
        aa = 1.0

        def band(coord, p, d):
            fr = (coord % p) / p
            return smoothstep(0, aa / p, fr) * (1 - smoothstep(d - aa / p, d, fr))
        bx = band(xx, period, duty)
        by = band(yy, period, duty)
        if kind == 'cloth-checks':
            alb = lerp3(base, c1, 0.55 * bx + 0.55 * by - 0.1 * bx * by)
            if rng.random() < 0.5:  # tartan-ish thin lines
                p2 = period
                lx = band(xx + p2 * 0.7, p2, 0.08)
                ly = band(yy + p2 * 0.7, p2, 0.08)
                alb = alb * (1 - 0.6 * np.maximum(lx, ly))[..., None] + c2[None, None, :] * (0.6 * np.maximum(lx, ly))[..., None]
        else:
            b2 = band(yy + period * 0.5, period, duty * 0.4)
            alb = lerp3(base, c1, by)
            alb = alb * (1 - b2[..., None]) + c2[None, None, :] * b2[..., None]
        wp = per(max(0.7, 3 * texel))
        weave = np.sin(2 * np.pi * xx / wp) * np.sin(2 * np.pi * yy / wp)
        alb *= (1 + 0.08 * weave + 0.05 * fft_noise(rng, N, 1.0))[..., None]
        P.update(spec=0.01, rough=8.0, sheen=0.1, name=kind)
    elif kind == 'paper':
        cols = {'white': (240, 240, 236), 'cream': (238, 230, 206), 'kraft': (186, 150, 110),
                'grey': (205, 205, 202)}
        name = rng.choice(sorted(cols))
        c = srgb2lin(cols[name])
        fib = fft_noise(rng, N, max(0.15 / texel, 0.6), max(0.5 / texel, 0.6))
        alb = c[None, None, :] * (1 + 0.05 * fib[..., None] + 0.03 * fft_noise(rng, N, N / 16)[..., None])
        if name != 'kraft' and rng.random() < 0.6:
            lp = per(rng.choice([5.0, 7.0, 8.0]))
            lw = max(0.25 / texel, 0.6)
            d = np.abs(((yy + lp / 2) % lp) - lp / 2)
            line = np.clip(1 - d / lw, 0, 1)
            if rng.random() < 0.4:
                dx = np.abs(((xx + lp / 2) % lp) - lp / 2)
                line = np.maximum(line, np.clip(1 - dx / lw, 0, 1))
            lc = srgb2lin((120, 160, 220))
            alb = alb * (1 - 0.6 * line[..., None]) + lc[None, None, :] * 0.6 * line[..., None]
        P.update(spec=0.015, rough=6.0, name=f"paper-{name}")
    elif kind == 'cutting-mat':
        cols = {'green': (40, 112, 84), 'blue': (40, 80, 140), 'grey': (90, 94, 98),
                'black': (36, 38, 40), 'pink': (210, 110, 140)}
        name = rng.choice(sorted(cols))
        c = srgb2lin(cols[name])
        lc = srgb2lin((230, 236, 230)) if name != 'pink' else srgb2lin((250, 250, 250))
        g10 = per(10.0)
        lw = max(0.3 / texel, 0.7)

        def lines(coord, p, w):
            d = np.abs(((coord + p / 2) % p) - p / 2)
            return np.clip(1 - d / w, 0, 1)
        L = np.maximum(lines(xx, g10, lw * 0.6), lines(yy, g10, lw * 0.6)) * 0.55
        L = np.maximum(L, np.maximum(lines(xx, g10 * 5, lw), lines(yy, g10 * 5, lw)))
        if rng.random() < 0.5:
            L = np.maximum(L, 0.5 * lines(xx + yy, g10 * 10, lw * 0.7))
        alb = c[None, None, :] * (1 + 0.04 * fft_noise(rng, N, 1.0)[..., None])
        alb = alb * (1 - L[..., None]) + lc[None, None, :] * L[..., None] * 0.8
        P.update(spec=0.03, rough=25.0, name=f"cutting-mat-{name}")
    elif kind == 'dark-glossy':
        cols = {'black': (14, 14, 16), 'charcoal': (34, 34, 36), 'navy': (16, 22, 40),
                'dark-wood': (44, 26, 18), 'burgundy': (40, 12, 16)}
        name = rng.choice(sorted(cols))
        c = srgb2lin(cols[name])
        alb = c[None, None, :] * (1 + 0.05 * fft_noise(rng, N, N / 12)[..., None] + 0.03 * fft_noise(rng, N, 1.0)[..., None])
        P.update(spec=0.05, rough=rng.uniform(300, 2500), refl=rng.uniform(0.7, 1.0), name=f"glossy-{name}")
    else:  # 'playmat' neoprene with printed art
        alb = np.zeros((N, N, 3), F32)
        hue0 = rng.uniform(0, 1)
        for i in range(4):
            s = N / rng.uniform(3, 14)
            w = fft_noise(rng, N, s)
            hsv = np.array([[[((hue0 + rng.normal(0, 0.15)) % 1.0) * 180, rng.uniform(80, 230), rng.uniform(60, 220)]]], np.uint8)
            col = srgb2lin(cv2.cvtColor(hsv, cv2.COLOR_HSV2RGB)[0, 0])
            wt = smoothstep(-0.3, 1.2, w + rng.normal(0, 0.3))
            alb = alb * (1 - wt[..., None]) + col[None, None, :] * wt[..., None] if i else np.broadcast_to(col, (N, N, 3)) * 1.0
        art = fft_noise(rng, N, 2.0 / texel) * 0.12 + fft_noise(rng, N, max(0.2 / texel, 0.6)) * 0.08
        alb = alb * (1 + art[..., None])
        P.update(spec=0.01, rough=6.0, sheen=0.05, name="neoprene-playmat")
    alb = np.clip(alb, 0.003, 0.92).astype(F32)
    P['mean'] = alb.reshape(-1, 3).mean(axis=0)
    return alb, P



def remap_flat(img, mu, mv, border=cv2.BORDER_WRAP, value=0):
    """cv2.remap for 1-D coordinate arrays of any length (OpenCV limits map sizes to < 32767)."""
    mu = np.asarray(mu, dtype=F32).ravel()
    mv = np.asarray(mv, dtype=F32).ravel()
    n = mu.size
    wdt = 4096
    rows = (n + wdt - 1) // wdt
    pad = rows * wdt - n
    mu2 = np.concatenate([mu, np.zeros(pad, F32)]).reshape(rows, wdt)
    mv2 = np.concatenate([mv, np.zeros(pad, F32)]).reshape(rows, wdt)
    out = cv2.remap(img, mu2, mv2, cv2.INTER_LINEAR, borderMode=border, borderValue=value)
    if out.ndim == 2:
        return out.reshape(-1)[:n]
    return out.reshape(rows * wdt, -1)[:n]


def build_mips(tile):
    mips = [tile]
    while mips[-1].shape[0] > 8:
        t = mips[-1]
        n = t.shape[0] // 2
        mips.append(t.reshape(n, 2, n, 2, 3).mean(axis=(1, 3)).astype(F32))
    return mips


def sample_mips(mips, u, v, lod):
    """u, v: base-level texel coordinates (texel centres at integers), lod float. 1-D arrays."""
    out = np.zeros((u.shape[0], 3), F32)
    L = len(mips) - 1
    lod = np.clip(lod, 0, L)
    l0 = np.minimum(np.floor(lod).astype(np.int32), L)
    fr = (lod - l0).astype(F32)
    for l in range(L + 1):
        sel = np.nonzero(l0 == l)[0]
        if sel.size == 0:
            continue
        acc = None
        for ll, w in ((l, 1 - fr[sel]), (min(l + 1, L), fr[sel])):
            sc = 2.0 ** ll
            mu = ((u[sel] + 0.5) / sc - 0.5)
            mv = ((v[sel] + 0.5) / sc - 0.5)
            s = remap_flat(mips[ll], mu, mv)
            acc = s * w[:, None] if acc is None else acc + s * w[:, None]
        out[sel] = acc
    return out


# ----------------------------------------------------------------------------
# dice styles
# ----------------------------------------------------------------------------
BODY = {
    'white': (236, 236, 232), 'ivory': (238, 226, 194), 'black': (30, 30, 32), 'red': (192, 30, 36),
    'blue': (34, 74, 178), 'green': (28, 140, 70), 'yellow': (244, 206, 42), 'orange': (242, 116, 30),
    'purple': (112, 50, 158), 'pink': (246, 134, 178),
}
PIPC = {'black': (18, 18, 20), 'white': (242, 242, 238), 'gold': (214, 170, 68), 'red': (200, 28, 34),
        'blue': (36, 70, 190), 'green': (24, 130, 64)}
LAYOUT = {1: [(0, 0)], 2: [(-1, -1), (1, 1)], 3: [(-1, -1), (0, 0), (1, 1)],
          4: [(-1, -1), (1, -1), (-1, 1), (1, 1)], 5: [(-1, -1), (1, -1), (-1, 1), (1, 1), (0, 0)],
          6: [(-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)]}


def make_style(rng, edge, force_colour=None):
    st = {}
    r = rng.random()
    kind = 'opaque'
    if r < 0.14:
        kind = 'translucent'
    elif r < 0.24:
        kind = 'marbled'
    if force_colour is not None:
        kind = 'opaque'
    casino = kind == 'translucent' and rng.random() < 0.4
    st['kind'] = kind
    cname = force_colour or rng.choice(sorted(BODY))
    if kind == 'translucent':
        cname = rng.choice(['red', 'blue', 'green', 'yellow', 'purple', 'orange', 'pink'])
    st['colour'] = str(cname)
    body = srgb2lin(BODY[cname]) * rng.uniform(0.9, 1.08, 3)
    st['body'] = np.clip(body, 0.01, 0.9)
    if kind == 'marbled':
        other = rng.choice([c for c in ('white', 'black', 'yellow', 'red', 'blue', 'green', 'ivory', 'orange') if c != cname])
        st['body2'] = srgb2lin(BODY[other])
        st['swirl_k'] = rng.normal(0, 1, (3, 3)) * rng.uniform(1.5, 3.5)
        st['swirl_ph'] = rng.uniform(0, 6.28, 3)
        st['swirl_mix'] = rng.uniform(0.25, 0.45)
    # pips
    lum = 0.2126 * body[0] + 0.7152 * body[1] + 0.0722 * body[2]
    if kind == 'translucent':
        pc = 'white' if rng.random() < 0.75 else rng.choice(['black', 'gold'])
    elif cname in ('white', 'ivory', 'yellow', 'pink', 'orange'):
        pc = rng.choice(['black', 'black', 'black', 'red', 'blue', 'gold', 'green']) if cname != 'orange' else rng.choice(['black', 'white'])
    elif cname == 'black':
        pc = rng.choice(['white', 'white', 'gold', 'red'])
    else:
        pc = rng.choice(['white', 'white', 'black', 'gold'])
    if pc == 'gold' and lum > 0.4:
        pc = 'black'
    if kind == 'marbled':
        # pips must stand out against both swirl colours
        def light(c):
            c = np.asarray(c)
            return (0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2]) ** (1 / 2.2)
        l1, l2 = light(body), light(st['body2'])
        best = []
        for cand in ('black', 'white', 'gold', 'red'):
            lp = light(srgb2lin(PIPC[cand]))
            best.append((min(abs(lp - l1), abs(lp - l2)) + rng.uniform(0, 0.05), cand))
        pc = max(best)[1]
    st['pipname'] = str(pc)
    st['pip'] = srgb2lin(PIPC[pc])
    st['red_one'] = cname in ('white', 'ivory') and pc == 'black' and rng.random() < 0.2
    st['drilled'] = (not casino) and rng.random() < 0.75
    st['casino'] = casino
    e = edge
    st['edge'] = e
    st['radius'] = e * (rng.uniform(0.015, 0.035) if casino else rng.uniform(0.05, 0.20))
    rp = e * rng.uniform(0.072, 0.098)
    if casino:
        rp = e * rng.uniform(0.085, 0.1)
    a = e * rng.uniform(0.24, 0.30)
    a = min(a, 0.5 * e - 0.55 * st['radius'] - 0.8 * rp)
    st['pip_r'] = rp
    st['pip_a'] = a
    one = rng.uniform(1.0, 1.3) if rng.random() < 0.8 else rng.uniform(1.5, 1.9)
    st['one_r'] = min(rp * one, 0.19 * e)
    st['pip_depth'] = rng.uniform(0.25, 0.5)  # fraction of radius
    st['gloss'] = rng.uniform(0.5, 1.0) if rng.random() < 0.85 else rng.uniform(0.15, 0.4)
    st['shininess'] = rng.uniform(40, 260)
    st['trans'] = rng.uniform(0.45, 0.75) if kind == 'translucent' else 0.0
    # face values: pairs (1,6), (2,5), (3,4) onto axes, random chirality
    pairs = [(1, 6), (2, 5), (3, 4)]
    order = rng.permutation(3)
    fv = np.zeros(6, np.int64)
    for k in range(3):
        p = pairs[order[k]]
        if rng.random() < 0.5:
            p = (p[1], p[0])
        fv[2 * k], fv[2 * k + 1] = p
    st['fv'] = fv
    # pip centres per local face, (6, 6, 2) in mm (unused = far away) and radius per face
    pips = np.full((6, 6, 2), 1e4, dtype=F32)
    prad = np.zeros(6, F32)
    for fi in range(6):
        val = int(fv[fi])
        rot = rng.integers(0, 4)
        lay = np.array(LAYOUT[val], dtype=np.float64)
        for _ in range(rot):
            lay = np.stack([-lay[:, 1], lay[:, 0]], axis=1)
        pips[fi, :len(lay)] = lay * a
        prad[fi] = st['one_r'] if val == 1 else rp
    st['pips'] = pips
    st['prad'] = prad
    st['desc'] = (f"{'translucent ' if kind == 'translucent' else ''}{'marbled ' if kind == 'marbled' else ''}"
                  f"{cname}/{pc}{' drilled' if st['drilled'] else ' painted'}"
                  f"{' casino' if casino else ''} r={st['radius'] / e:.2f}e")
    return st


# face index helpers: fi = 2*axis + (negative side)
FACE_N = np.array([[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [0, 0, -1]], dtype=np.float64)
FACE_UV = {0: (1, 2), 1: (2, 0), 2: (0, 1)}


def up_rotation(fi):
    """Rotation (signed permutation) taking local face normal FACE_N[fi] to +z."""
    n = FACE_N[fi]
    k = fi // 2
    j = (k + 1) % 3
    r1 = np.zeros(3)
    r1[j] = 1.0
    r3 = n
    r2 = np.cross(r3, r1)
    return np.stack([r1, r2, r3])


SPH_DIRS = normalize(np.array([[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [0, 0, -1],
                               [1, 1, 1], [1, 1, -1], [1, -1, 1], [1, -1, -1], [-1, 1, 1], [-1, 1, -1],
                               [-1, -1, 1], [-1, -1, -1]], dtype=np.float64))


class Die:
    def __init__(self, style, c, R, tilted=False):
        self.st = style
        self.h = style['edge'] / 2.0
        self.r = style['radius']
        self.b = self.h - self.r
        self.c = np.asarray(c, dtype=np.float64)
        self.R = np.asarray(R, dtype=np.float64)
        self.tilted = tilted
        self.support = None
        self.seed = 0

    def inner_corners(self):
        return box_corners(self.c, self.R.T, [self.b] * 3)

    def surface_points(self):
        cs = self.inner_corners()
        return (cs[:, None, :] + self.r * SPH_DIRS[None, :, :]).reshape(-1, 3)

    def footprint(self):
        return hull2d(self.surface_points()[:, :2])

    def up_face(self):
        nz = (self.R @ FACE_N.T)[2]
        fi = int(np.argmax(nz))
        return fi, nz[fi]

    def obb(self, shrink=0.0):
        return box_slabs(self.c, self.R.T, [self.h - shrink] * 3)


# ----------------------------------------------------------------------------
# dice ray casting
# ----------------------------------------------------------------------------
def rbox_sdf(p, b, r):
    q = np.abs(p) - b
    qm = np.maximum(q, 0.0)
    return np.sqrt(np.sum(qm * qm, axis=1)) + np.minimum(q.max(axis=1), 0.0) - r


def cast_die(die, O, D):
    """O: (3,) world origin, D: (N,3) unit dirs.  Returns idx of hits, t, local point, local normal, t_exit."""
    R = die.R
    o = R.T @ (O - die.c)
    dl = (D @ R).astype(np.float64)
    h = die.h
    inv = 1.0 / np.where(np.abs(dl) < 1e-12, 1e-12, dl)
    t1 = (-h - o) * inv
    t2 = (h - o) * inv
    tn = np.minimum(t1, t2).max(axis=1)
    tf = np.maximum(t1, t2).min(axis=1)
    act = np.nonzero((tn < tf) & (tf > 0))[0]
    t = np.maximum(tn[act], 0.0)
    tfa = tf[act]
    b, r = die.b, die.r
    eps = 0.004 * h
    hit_idx = []
    hit_t = []
    for it in range(28):
        if act.size == 0:
            break
        p = o + dl[act] * t[:, None]
        d = rbox_sdf(p, b, r)
        done = d < eps
        if done.any():
            hit_idx.append(act[done])
            hit_t.append(t[done])
        keep = (~done) & (t + d < tfa)
        act, t, tfa = act[keep], t[keep] + d[keep], tfa[keep]
    if not hit_idx:
        return None
    idx = np.concatenate(hit_idx)
    t = np.concatenate(hit_t)
    p = o + dl[idx] * t[:, None]
    n = normalize(p - np.clip(p, -b, b))
    return idx, t, p, n, tf[idx], o, dl[idx]


def marble(st, p, die_seed):
    s = p / st['edge']
    k = st['swirl_k']
    ph = st['swirl_ph'] + die_seed
    w = (np.sin(s @ k[0] + ph[0]) + 0.5 * np.sin(2.1 * (s @ k[1]) + ph[1])
         + 0.25 * np.sin(4.3 * (s @ k[2]) + ph[2] * 1.7))
    m = np.sin(1.3 * (s @ k[2]) + 2.6 * w + ph[2])
    th = 1 - 2 * st['swirl_mix']
    t = smoothstep(th - 0.5, th + 0.5, m) * 0.9
    # thin darker veins along the band edges
    vein = np.exp(-((m - th) / 0.08) ** 2) * 0.25
    return np.clip(t + vein * (0.5 - t), 0, 1)


class Light:
    pass


def light_dirs(light, P, jitter=None):
    """Unit direction(s) to the light, distance, and colour*intensity*falloff per point."""
    if light.kind == 'dir':
        L = light.dir if jitter is None else normalize(light.dir + jitter)
        Ld = np.broadcast_to(L, P.shape)
        return Ld, np.full(P.shape[0], 1e9), np.broadcast_to(light.col, P.shape)
    pos = light.pos if jitter is None else light.pos + jitter
    v = pos - P
    dist = np.sqrt(np.sum(v * v, axis=1))
    Ld = v / dist[:, None]
    fall = (light.ref_dist / dist) ** 2
    if light.cone is not None:
        ca = -(Ld @ light.axis)
        fall = fall * (light.cone_floor + (1 - light.cone_floor) * smoothstep(light.cone[0], light.cone[1], ca))
    return Ld, dist, light.col[None, :] * fall[:, None]


def light_samples(light, n):
    """Deterministic jitter offsets (n,3) over the light's extent."""
    if n <= 1 or light.size <= 0:
        return [None]
    out = []
    ga = math.pi * (3 - math.sqrt(5))
    for i in range(n):
        rr = math.sqrt((i + 0.5) / n)
        a = i * ga + light.phase
        if light.kind == 'dir':
            out.append(light.size * rr * (math.cos(a) * light.e1 + math.sin(a) * light.e2))
        else:
            out.append(light.size * rr * (math.cos(a) * light.e1 + math.sin(a) * light.e2))
    return out


# ----------------------------------------------------------------------------
# the setup
# ----------------------------------------------------------------------------
class Setup:
    def __init__(self, seed, W, H):
        self.seed = seed
        self.W, self.H = W, H
        # independent random streams, so that e.g. the resolution (which changes the
        # texture sampling) does not change the camera, lights, props or dice
        def sub(k):
            return np.random.default_rng([seed, 7919, k])
        self._camera_and_dice(sub(1))
        self._table(sub(2))
        self._lights(sub(3))
        self._props(sub(4))
        self._prerender(sub(5))

    # ------------------------------------------------------------------ camera
    def _camera_and_dice(self, rng):
        W, H = self.W, self.H
        if rng.random() < 0.25:
            elev = rng.uniform(15, 35)
        else:
            elev = rng.uniform(15, 80)
        for _ in range(200):
            hfov = rng.uniform(45, 85)
            e0 = rng.uniform(12, 20)
            fn = (W / 2) / math.tan(math.radians(hfov) / 2)
            dist = math.exp(rng.uniform(math.log(150), math.log(900)))
            size_px = fn * e0 / dist * 640 / W  # edge length in pixels at the aim point (640 wide)
            if 15 <= size_px <= 80:
                break
        roll = rng.uniform(-6, 6)
        azim = rng.uniform(0, 2 * math.pi)
        self.cam = Camera(W, H, hfov, elev, azim, dist, roll, (0.0, 0.0, 0.0))
        self.barrel = 0.0 if rng.random() < 0.45 else rng.uniform(0.02, 0.16)
        self.ca = rng.uniform(0.0, 0.0025) * (W / 640)
        # dice styles
        nst = int(rng.integers(1, 7))
        mixed_size = rng.random() < 0.2
        same_colour = rng.random() < 0.3
        cols = None
        if same_colour:
            cols = str(rng.choice(sorted(BODY)))
        self.styles = []
        for i in range(nst):
            e = rng.uniform(12, 20) if mixed_size else e0 * rng.uniform(0.97, 1.03)
            self.styles.append(make_style(rng, e, force_colour=cols))
        if same_colour and nst > 1 and rng.random() < 0.5:
            # identical dice (a set of one mould)
            self.styles = [self.styles[0]] * nst
        self.e0 = e0
        self.exposure_bias = rng.normal(0, 0.3)
        self.jpeg_q = int(rng.integers(70, 96))
        self.sharpen = rng.uniform(0.0, 0.8)
        self.noise_k = math.exp(rng.uniform(math.log(0.0003), math.log(0.004)))
        self.vignette = rng.uniform(0.05, 0.45)
        self.awb_err = rng.normal(0, 0.06, 3)
        self.awb_strength = rng.uniform(0.6, 1.0)
        self.awb_gw = rng.uniform(0.0, 0.3)
        self.gamma_c = rng.uniform(0.9, 1.15)

    # ------------------------------------------------------------------ table
    def _table(self, rng):
        cam = self.cam
        kinds = ['wood', 'wood', 'wood-laminate', 'laminate', 'felt', 'felt', 'cloth-checks', 'cloth-stripes',
                 'paper', 'cutting-mat', 'dark-glossy', 'dark-glossy', 'playmat']
        self.kind = str(rng.choice(kinds))
        # texel size ~ supersampled pixel footprint at the dice
        fp = cam.dist / cam.f
        self.texel = float(np.clip(fp * rng.uniform(0.7, 1.0), 0.06, 1.0))
        N = 1024 if self.kind not in ('wood', 'wood-laminate') else 2048
        self.tex_N = N
        tile, self.surf = make_surface(rng, self.kind, N, self.texel)
        self.mips = build_mips(tile)
        self.tex_ang = rng.uniform(0, 2 * math.pi)
        self.tex_off = rng.uniform(0, N, 2)
        # low-frequency, non-periodic modulation to hide tiling
        self.lowmod = (rng.uniform(0, 6.28, 4), rng.uniform(200, 900, 2))
        self.wall_dist = rng.uniform(300, 1400)
        wc = {'white': (232, 230, 224), 'beige': (220, 204, 176), 'grey': (160, 162, 164), 'blue': (150, 170, 190),
              'green': (170, 190, 160), 'dark': (70, 70, 74), 'yellow': (230, 214, 160)}
        self.wall_name = str(rng.choice(sorted(wc)))
        self.wall_col = srgb2lin(wc[self.wall_name])
        # wall texture (blurry shapes: shelves, posters, monitor, window)
        wt = np.ones((128, 256, 3), F32) * self.wall_col[None, None, :].astype(F32)
        for _ in range(int(rng.integers(2, 8))):
            x0, y0 = rng.integers(0, 240), rng.integers(0, 110)
            w, h = rng.integers(10, 80), rng.integers(8, 60)
            hsv = np.array([[[rng.uniform(0, 180), rng.uniform(0, 110), rng.uniform(40, 230)]]], np.uint8)
            col = srgb2lin(cv2.cvtColor(hsv, cv2.COLOR_HSV2RGB)[0, 0])
            if rng.random() < 0.12:
                col = srgb2lin((235, 240, 250)) * 2.5
            wt[y0:y0 + h, x0:x0 + w] = col
        self.wall_tex = cv2.GaussianBlur(wt, (0, 0), 2.0)

    # ------------------------------------------------------------------ lights
    def _lights(self, rng):
        lights = []
        r = rng.random()
        if r < 0.3:
            kinds = ['ceiling']
        elif r < 0.5:
            kinds = ['lamp']
        elif r < 0.65:
            kinds = ['window']
        elif r < 0.8:
            kinds = ['lamp', 'ceiling']
        elif r < 0.9:
            kinds = ['window', 'ceiling']
        else:
            kinds = ['lamp', 'window', 'ceiling']
        main = True
        for k in kinds:
            L = Light()
            L.kind = 'point'
            L.cone = None
            L.cone_floor = 1.0
            L.phase = rng.uniform(0, 6.28)
            az = rng.uniform(0, 2 * math.pi)
            if k == 'ceiling':
                hgt = rng.uniform(900, 2200)
                off = rng.uniform(0, 1200)
                L.pos = np.array([off * math.cos(az), off * math.sin(az), hgt])
                L.size = rng.uniform(30, 300)
                temp = rng.uniform(2700, 5000)
            elif k == 'lamp':
                el = math.radians(rng.uniform(12, 50))
                d = rng.uniform(250, 700)
                L.pos = np.array([d * math.cos(el) * math.cos(az), d * math.cos(el) * math.sin(az), d * math.sin(el)])
                L.size = rng.uniform(2, 18)
                temp = rng.uniform(2600, 3600) if rng.random() < 0.65 else rng.uniform(4500, 6500)
                aim = np.array([rng.normal(0, 60), rng.normal(0, 60), 0.0])
                L.axis = normalize(aim - L.pos)
                ca_in = math.cos(math.radians(rng.uniform(15, 35)))
                ca_out = math.cos(math.radians(rng.uniform(45, 70)))
                L.cone = (ca_out, ca_in)
                L.cone_floor = rng.uniform(0.02, 0.15)
            else:  # window (directional, soft)
                L.kind = 'dir'
                el = math.radians(rng.uniform(15, 60))
                L.dir = np.array([math.cos(el) * math.cos(az), math.cos(el) * math.sin(az), math.sin(el)])
                L.size = math.tan(math.radians(rng.uniform(2, 9)))
                temp = rng.uniform(5000, 7500)
            L.name = k
            L.temp = temp
            inten = 1.0 if main else rng.uniform(0.15, 0.6)
            L.main = main
            main = False
            L.col = kelvin_rgb(temp) * inten
            if L.kind == 'point':
                L.ref_dist = float(np.linalg.norm(L.pos))
                L.dir = L.pos / L.ref_dist
            a = L.dir
            e1 = normalize(np.cross(a, [0.0, 0.0, 1.0] if abs(a[2]) < 0.9 else [1.0, 0.0, 0.0]))
            L.e1, L.e2 = e1, np.cross(a, e1)
            # normalise so irradiance on the table at the origin equals intensity
            cosz = max(L.dir[2], 0.05)
            if L.cone is not None:
                ca = float((-L.dir) @ L.axis)
                cf = L.cone_floor + (1 - L.cone_floor) * float(smoothstep(L.cone[0], L.cone[1], np.array(ca)))
            else:
                cf = 1.0
            L.col = L.col / (cosz * max(cf, 0.05))
            L.col = L.col * (0.6 + 0.4 * cosz)  # low lights are weaker
            lights.append(L)
        self.lights = lights
        # ambient (sky) colour
        tm = np.mean([l.temp for l in lights])
        self.sky = kelvin_rgb(tm + rng.uniform(-500, 2500)) * rng.uniform(0.18, 0.5)
        E = self.sky + sum(L.col * max(L.dir[2], 0.15) for L in lights)
        self.illum = E / E[1]
        self.light_desc = "+".join(f"{l.name}({l.temp:.0f}K)" for l in lights)

    # ------------------------------------------------------------------ props
    def _props(self, rng):
        """Props: list of dicts with parts (slabs), corner points, footprint and a material."""
        self.props = []
        self.tray = None
        e = self.e0
        cam = self.cam
        # visible half extent of the table near the target (rough)
        span = cam.dist * math.tan(math.radians(cam.hfov) / 2)
        fwd = cam.fwd_h
        side = np.array([-fwd[1], fwd[0], 0.0])
        self.span = span
        if rng.random() < 0.18 and self.kind in ('felt', 'playmat', 'cloth-checks'):
            # dice tray: rectangle around the dice area, rim walls
            hx = span * rng.uniform(0.6, 1.1)
            hy = span * rng.uniform(0.5, 0.9)
            yaw = math.atan2(fwd[1], fwd[0]) + rng.normal(0, 0.25)
            ax = np.array([[math.cos(yaw), math.sin(yaw), 0], [-math.sin(yaw), math.cos(yaw), 0], [0, 0, 1.0]])
            th = rng.uniform(6, 12)
            hh = rng.uniform(18, 40)
            mat = {'kind': 'solid', 'col': srgb2lin(rng.choice([(90, 55, 30), (30, 30, 32), (60, 38, 26), (140, 96, 60)])),
                   'spec': 0.05, 'rough': 40.0, 'grain': True}
            centre = np.zeros(3)
            for sx, sy, lx, ly in ((1, 0, th / 2, hy + th), (-1, 0, th / 2, hy + th), (0, 1, hx + th, th / 2), (0, -1, hx + th, th / 2)):
                c = centre + ax[0] * sx * (hx + th / 2) + ax[1] * sy * (hy + th / 2) + np.array([0, 0, hh / 2])
                self._add_box('tray-rim', c, ax, [lx, ly, hh / 2], mat, support=True)
            self.tray = (centre, ax, hx, hy)
            # second surface outside the tray
            kinds2 = ['wood', 'laminate', 'wood-laminate']
            k2 = str(rng.choice(kinds2))
            N2 = 1024
            tile2, self.surf2 = make_surface(rng, k2, N2, self.texel * 1.5)
            self.mips2 = build_mips(tile2)
        nprops = 0
        r = rng.random()
        if self.tray is None and r < 0.55:
            nprops = int(rng.integers(1, 4))
        placed_fp = []
        for i in range(nprops):
            kind = str(rng.choice(['book', 'book', 'card', 'coin', 'coin', 'pencil', 'pencil']))
            for attempt in range(20):
                # place around the dice area, mostly away from the centre
                ang = rng.uniform(0, 2 * math.pi)
                rad = span * rng.uniform(0.45, 1.3)
                p = np.array([rad * math.cos(ang), rad * math.sin(ang), 0.0])
                if (p[:2] @ fwd[:2]) / rad < -0.25 and kind in ('book', 'pencil'):
                    continue  # keep tall props off the camera side
                if kind == 'book':
                    if (p[:2] @ fwd[:2]) / rad < 0.2:
                        continue
                    p = p * (1 + 90.0 / rad)
                yaw = rng.uniform(0, 2 * math.pi)
                ax = np.array([[math.cos(yaw), math.sin(yaw), 0], [-math.sin(yaw), math.cos(yaw), 0], [0, 0, 1.0]])
                if kind == 'book':
                    half = np.array([rng.uniform(65, 115), rng.uniform(90, 140), rng.uniform(8, 22)])
                elif kind == 'card':
                    half = np.array([31.5, 44.0, 0.15])
                elif kind == 'coin':
                    rr = rng.uniform(8, 14)
                    half = np.array([rr, rr, rng.uniform(0.7, 1.2)])
                else:
                    half = np.array([rng.uniform(55, 90), 3.6, 3.6])
                fp = hull2d(box_corners(p, ax, half)[:, :2])
                if any(polys_overlap(fp, q, 1.0) for q in placed_fp):
                    continue
                placed_fp.append(fp)
                c = p + np.array([0, 0, half[2]])
                if kind == 'book':
                    hue = rng.uniform(0, 180)
                    hsv = np.array([[[hue, rng.uniform(60, 230), rng.uniform(50, 210)]]], np.uint8)
                    col = srgb2lin(cv2.cvtColor(hsv, cv2.COLOR_HSV2RGB)[0, 0])
                    hsv2 = np.array([[[rng.uniform(0, 180), rng.uniform(0, 150), rng.uniform(30, 240)]]], np.uint8)
                    col2 = srgb2lin(cv2.cvtColor(hsv2, cv2.COLOR_HSV2RGB)[0, 0])
                    mat = {'kind': 'book', 'col': col, 'col2': col2,
                           'pages': srgb2lin((236, 228, 206)), 'spec': 0.06, 'rough': 40.0,
                           'title': (rng.uniform(-0.6, 0.2), rng.uniform(-0.6, 0.2), rng.uniform(0.2, 0.7), rng.uniform(0.1, 0.35))}
                    self._add_box('book', c, ax, half, mat, support=True)
                elif kind == 'card':
                    mat = {'kind': 'card', 'col': srgb2lin((240, 240, 236)),
                           'col2': srgb2lin(rng.choice([(180, 30, 40), (30, 60, 160), (20, 110, 60)])), 'spec': 0.08, 'rough': 60.0}
                    self._add_box('card', c, ax, half, mat, support=False)
                elif kind == 'coin':
                    mcol = srgb2lin(rng.choice([(212, 172, 90), (190, 190, 196), (196, 120, 80)]))
                    mat = {'kind': 'metal', 'col': mcol, 'spec': 0.9, 'rough': 80.0}
                    ns = 20
                    angs = np.arange(ns) * math.pi / ns
                    nrm = np.stack([np.cos(angs), np.sin(angs), np.zeros(ns)], axis=1)
                    nrm = np.vstack([nrm, [[0, 0, 1.0]]])
                    cc = nrm @ c
                    lo = cc - np.r_[np.full(ns, half[0]), half[2]]
                    hi = cc + np.r_[np.full(ns, half[0]), half[2]]
                    a2 = np.arange(2 * ns) * math.pi / ns
                    ring = np.stack([np.cos(a2), np.sin(a2), np.zeros(2 * ns)], axis=1) * half[0] / math.cos(math.pi / (2 * ns))
                    pts = np.vstack([c + ring + [0, 0, half[2]], c + ring - [0, 0, half[2]]])
                    self.props.append({'name': 'coin', 'parts': [(nrm, lo, hi)], 'pts': pts, 'mat': mat,
                                       'fp': hull2d(pts[:, :2]), 'center': c, 'axes': np.eye(3), 'half': half,
                                       'support': False})
                else:  # pencil: hexagonal prism + hexagonal pyramid tip
                    L2 = half[0]
                    rc = half[1]
                    a_ = ax[0]
                    ang3 = np.arange(3) * math.pi / 3 + rng.uniform(0, math.pi / 3)
                    side = ax[1]
                    up = ax[2]
                    nrm = np.array([math.cos(t_) * side + math.sin(t_) * up for t_ in ang3])
                    cpen = p + up * rc
                    body_n = np.vstack([nrm, a_])
                    cc = body_n @ cpen
                    lo = cc - np.r_[np.full(3, rc), L2]
                    hi = cc + np.r_[np.full(3, rc), L2]
                    tipL = rng.uniform(14, 22)
                    # tip: half-spaces  n_k . x <= rc - s*(a.x - end)   (6 slanted planes) + base plane
                    end = a_ @ cpen + L2
                    tn = []
                    tlo = []
                    thi = []
                    for t_ in np.arange(6) * math.pi / 3 + ang3[0]:
                        nn = math.cos(t_) * side + math.sin(t_) * up
                        m = normalize(nn * tipL + a_ * rc)
                        apex = cpen + a_ * (L2 + tipL)
                        tn.append(m)
                        tlo.append(-1e6)
                        thi.append(m @ apex)
                    tn.append(a_)
                    tlo.append(end)
                    thi.append(end + tipL)
                    tn = np.array(tn)
                    mat = {'kind': 'pencil', 'col': srgb2lin(rng.choice([(236, 190, 30), (200, 40, 40), (30, 110, 60), (40, 60, 160), (30, 30, 30)])),
                           'axis': a_, 'c': cpen, 'L': L2, 'tipL': tipL, 'spec': 0.3, 'rough': 60.0}
                    ang6 = np.arange(6) * math.pi / 3 + ang3[0] + math.pi / 6
                    hexr = rc / math.cos(math.pi / 6)
                    ringp = np.array([hexr * (math.cos(t_) * side + math.sin(t_) * up) for t_ in ang6])
                    pts = np.vstack([cpen + ringp - a_ * L2, cpen + ringp + a_ * L2, [cpen + a_ * (L2 + tipL)]])
                    self.props.append({'name': 'pencil', 'parts': [(body_n, lo, hi), (tn, np.array(tlo), np.array(thi))],
                                       'pts': pts, 'mat': mat, 'fp': hull2d(pts[:, :2]), 'center': cpen,
                                       'axes': np.stack([a_, side, up]), 'half': np.array([L2 + tipL, rc, rc]),
                                       'support': True, 'pencil': (cpen, a_, rc, L2)})
                break
        self.prop_desc = ",".join(p['name'] for p in self.props if p['name'] != 'tray-rim') + (",tray" if self.tray is not None else "")

    def _add_box(self, name, c, ax, half, mat, support):
        nr, lo, hi = box_slabs(c, ax, half)
        pts = box_corners(c, ax, half)
        self.props.append({'name': name, 'parts': [(nr, lo, hi)], 'pts': pts, 'mat': mat, 'fp': hull2d(pts[:, :2]),
                           'center': np.asarray(c, dtype=np.float64), 'axes': np.asarray(ax, dtype=np.float64),
                           'half': np.asarray(half, dtype=np.float64), 'support': support})

    # ------------------------------------------------------------------ materials
    def table_albedo(self, X, Y, lod_fp):
        """Table albedo at world points (X, Y) (1-D), lod_fp: footprint in mm per pixel."""
        ca, sa = math.cos(self.tex_ang), math.sin(self.tex_ang)
        u = (ca * X + sa * Y) / self.texel + self.tex_off[0]
        v = (-sa * X + ca * Y) / self.texel + self.tex_off[1]
        lod = np.log2(np.maximum(lod_fp / self.texel, 1e-6))
        alb = sample_mips(self.mips, u, v, lod)
        ph, per = self.lowmod
        m = 1 + 0.05 * np.sin(X / per[0] + ph[0]) * np.sin(Y / per[1] + ph[1]) + 0.03 * np.sin((X + Y) / (0.7 * per[0]) + ph[2])
        alb *= m[:, None].astype(F32)
        if self.tray is not None:
            c, ax, hx, hy = self.tray
            lx = (X - c[0]) * ax[0, 0] + (Y - c[1]) * ax[0, 1]
            ly = (X - c[0]) * ax[1, 0] + (Y - c[1]) * ax[1, 1]
            out = (np.abs(lx) > hx) | (np.abs(ly) > hy)
            if out.any():
                t2 = self.texel * 1.5
                u2 = (X[out]) / t2
                v2 = (Y[out]) / t2
                alb[out] = sample_mips(self.mips2, u2, v2, np.log2(np.maximum(lod_fp[out] / t2, 1e-6)))
        return alb

    def env(self, r):
        """Environment radiance seen along world directions r (N,3)."""
        up = np.clip(r[:, 2], -1, 1)
        sky = self.sky[None, :] * (0.5 + 0.4 * np.clip(up, 0, 1)[:, None])
        gnd = (self.surf['mean'] * (self.sky + 0.5) * 0.4)[None, :] * np.ones_like(r)
        w = smoothstep(-0.15, 0.15, up)[:, None]
        out = gnd * (1 - w) + sky * w
        for L in self.lights:
            if L.kind == 'dir':
                s = np.clip(r @ L.dir, 0, 1) ** 12
                out = out + 0.3 * L.col[None, :] * s[:, None]
        return out

    def prop_material(self, prop, P, N):
        """Albedo, spec, rough for prop surface points."""
        mat = prop['mat']
        n = P.shape[0]
        alb = np.tile(mat['col'][None, :], (n, 1))
        spec = np.full(n, mat['spec'])
        rough = mat['rough']
        if mat['kind'] == 'book':
            ax, c, half = prop['axes'], prop['center'], prop['half']
            lp = (P - c) @ ax.T / half
            nl = N @ ax.T
            top = np.abs(nl[:, 2]) > 0.7
            pages = (~top) & ~(nl[:, 0] < -0.7)
            tx, ty, tw, th = mat['title']
            cn = (np.sin(P[:, 0] * 2.1 + np.sin(P[:, 1] * 1.3) * 2) * np.sin(P[:, 1] * 2.3) * 0.04
                  + np.sin(P[:, 0] * 0.11 + P[:, 1] * 0.07) * 0.05)
            alb = alb * (1 + cn[:, None])
            tit = top & (lp[:, 0] > tx) & (lp[:, 0] < tx + tw) & (lp[:, 1] > ty) & (lp[:, 1] < ty + th)
            alb[tit] = mat['col2']
            # a few 'text' lines under the title and a border
            ly = (lp[:, 1] - (ty + th)) * half[1]
            txt = top & (lp[:, 0] > tx) & (lp[:, 0] < tx + tw * 0.8) & (ly > 4) & (ly < 24) & ((ly % 6.0) < 2.2)
            alb[txt] = alb[txt] * 0.3 + mat['col2'] * 0.5
            brd = top & ((np.abs(np.abs(lp[:, 0]) - 0.9) < 0.01) | (np.abs(np.abs(lp[:, 1]) - 0.93) < 0.008))
            alb[brd] = mat['col2'] * 0.8
            lines = pages & (np.abs(lp[:, 2]) < 0.85)
            stripes = 0.9 + 0.1 * np.sin(lp[:, 2] * half[2] * 9.0)
            alb[lines] = mat['pages'][None, :] * stripes[lines, None]
            spec[lines] = 0.01
        elif mat['kind'] == 'card':
            ax, c, half = prop['axes'], prop['center'], prop['half']
            lp = (P - c) @ ax.T
            inner = (np.abs(lp[:, 0]) < half[0] - 4) & (np.abs(lp[:, 1]) < half[1] - 4)
            pat = (np.sin(lp[:, 0] * 1.3 + lp[:, 1] * 1.3) * np.sin(lp[:, 0] * 1.3 - lp[:, 1] * 1.3)) > 0
            alb[inner & pat] = mat['col2']
            alb[inner & ~pat] = mat['col2'] * 0.6 + 0.3
        elif mat['kind'] == 'pencil':
            s = (P - mat['c']) @ mat['axis']
            L = mat['L']
            fer = (s < -L + 12) & (s > -L + 4)
            era = s <= -L + 4
            tip = s > L
            alb[fer] = srgb2lin((180, 180, 186))
            spec[fer] = 0.8
            alb[era] = srgb2lin((228, 140, 150))
            spec[era] = 0.02
            alb[tip] = srgb2lin((214, 176, 130))
            spec[tip] = 0.02
            lead = s > L + mat['tipL'] * 0.72
            alb[lead] = srgb2lin((50, 50, 54))
            spec[lead] = 0.3
        elif mat.get('grain'):
            ax, c = prop['axes'], prop['center']
            lp = (P - c) @ ax.T
            g = np.sin(lp[:, 0] * 0.9 + 2 * np.sin(lp[:, 1] * 0.05)) * 0.08
            alb = alb * (1 + g[:, None])
        return alb, spec, rough

    # ------------------------------------------------------------------ prerender
    def _prerender(self, rng):
        cam = self.cam
        W, H = cam.W, cam.H
        yy, xx = np.mgrid[0:H, 0:W]
        D = cam.rays(xx.ravel(), yy.ravel())  # (N,3) float32
        npx = D.shape[0]
        C = cam.C
        self.Dflat = D
        # table and wall intersection
        dz = D[:, 2].astype(np.float64)
        t_tab = np.where(dz < -1e-6, -C[2] / np.minimum(dz, -1e-6), np.inf)
        fh = cam.fwd_h
        wall_pos = self.wall_dist  # plane: x . fh = wall_pos
        dh = D.astype(np.float64) @ fh
        t_wall = np.where(dh > 1e-6, (wall_pos - C @ fh) / np.maximum(dh, 1e-6), np.inf)
        is_tab = t_tab < t_wall
        depth = np.where(is_tab, t_tab, np.minimum(t_wall, 1e7))
        surf = np.where(is_tab, 0, 1).astype(np.int8)
        pid = np.full(npx, -1, np.int16)
        # props
        for k, prop in enumerate(self.props):
            for (nr, lo, hi) in prop['parts']:
                # restrict to screen bbox of the prop
                uv, z = cam.project(prop['pts'])
                if (z <= 1).any():
                    sel = np.arange(npx)
                else:
                    x0, y0 = np.floor(uv.min(axis=0)).astype(int) - 2
                    x1, y1 = np.ceil(uv.max(axis=0)).astype(int) + 2
                    x0, y0 = max(x0, 0), max(y0, 0)
                    x1, y1 = min(x1, W), min(y1, H)
                    if x1 <= x0 or y1 <= y0:
                        continue
                    sy, sx = np.mgrid[y0:y1, x0:x1]
                    sel = (sy * W + sx).ravel()
                te, tx, kk, sg = slab_cast(C, D[sel].astype(np.float64), nr, lo, hi)
                hit = (te < tx) & (te > 0) & (te < depth[sel])
                hs = sel[hit]
                depth[hs] = te[hit]
                surf[hs] = 2
                pid[hs] = k
        self.depth0 = depth.astype(F32).reshape(H, W)
        self.surf0 = surf.reshape(H, W)
        P = C[None, :] + D.astype(np.float64) * np.minimum(depth, 1e7)[:, None]
        # occluders from props (for shadows)
        self.prop_occ = []
        self.prop_occ_c = []
        self.prop_occ_r = []
        for prop in self.props:
            if prop['name'] == 'coin' or prop['name'] == 'card':
                continue
            for (nr, lo, hi) in prop['parts'][:1]:
                self.prop_occ.append((nr, lo, hi, 1.0))
                self.prop_occ_c.append(prop['pts'].mean(axis=0))
                self.prop_occ_r.append(float(np.linalg.norm(prop['pts'] - prop['pts'].mean(axis=0), axis=1).max()))
        img = np.zeros((npx, 3), F32)
        nL = len(self.lights)
        self.Tl = [np.zeros((npx, 3), F32) for _ in range(nL)]
        self.Aamb = np.zeros((npx, 3), F32)
        # ---- table
        ti = np.nonzero(surf == 0)[0]
        X, Y = P[ti, 0], P[ti, 1]
        Xg = np.full((H, W), np.nan)
        Yg = np.full((H, W), np.nan)
        Xg.ravel()[ti] = X
        Yg.ravel()[ti] = Y
        # footprint: distance between neighbouring table points
        t_full = np.where(is_tab, t_tab, np.nan).reshape(H, W)
        cosi = np.abs(dz).reshape(H, W)
        fpx = t_full / cam.f / np.maximum(cosi, 0.02)
        fp = fpx.ravel()[ti]
        fp = np.nan_to_num(fp, nan=1e3)
        self.XYmap = (np.nan_to_num(Xg).astype(F32), np.nan_to_num(Yg).astype(F32))
        alb = self.table_albedo(X, Y, fp * 1.2)
        # prop shadows & AO on the table (table space map), setup level
        Vw = -D[ti].astype(np.float64)
        aot = np.ones(ti.size, F32)
        shadows_t = [np.ones(ti.size, F32) for _ in range(nL)]
        if self.props:
            allp = np.vstack([p['pts'] for p in self.props])
            lo2 = allp[:, :2].min(axis=0) - 120
            hi2 = allp[:, :2].max(axis=0) + 120
            tx = max(0.3, float((hi2 - lo2).max()) / 2048)
            mw = int((hi2[0] - lo2[0]) / tx) + 1
            mh = int((hi2[1] - lo2[1]) / tx) + 1
            mapu = ((X - lo2[0]) / tx - 0.5)
            mapv = ((Y - lo2[1]) / tx - 0.5)
            for li, Lt in enumerate(self.lights):
                acc = np.zeros((mh, mw), F32)
                sams = light_samples(Lt, 10)
                for jit in sams:
                    m = np.zeros((mh, mw), np.uint8)
                    for prop in self.props:
                        pts = prop['pts']
                        q = self._project_shadow(Lt, pts, jit)
                        if q is None:
                            continue
                        poly = np.round(((q - lo2) / tx) * 16).astype(np.int32)
                        hpoly = cv2.convexHull(poly.reshape(-1, 1, 2))
                        cv2.fillConvexPoly(m, hpoly, 255, lineType=cv2.LINE_AA, shift=4)
                    acc += m
                acc /= (255.0 * len(sams))
                shadows_t[li] = 1 - remap_flat(acc, mapu, mapv, cv2.BORDER_CONSTANT, 0)
            m = np.zeros((mh, mw), F32)
            for prop in self.props:
                pts = prop['pts']
                low = pts[pts[:, 2] < 8.0]
                if len(low) < 3:
                    continue
                poly = np.round(((low[:, :2] - lo2) / tx) * 16).astype(np.int32)
                cv2.fillConvexPoly(m, cv2.convexHull(poly.reshape(-1, 1, 2)), 1.0, shift=4)
            s1 = max(1.0, 2.0 / tx)
            s2 = max(1.0, 9.0 / tx)
            ao = 1 - 0.45 * cv2.GaussianBlur(m, (0, 0), s1) - 0.35 * cv2.GaussianBlur(m, (0, 0), s2)
            aot = remap_flat(ao.astype(F32), mapu, mapv, cv2.BORDER_CONSTANT, 1)
        # lighting of the table
        sf = self.surf
        Rv = np.stack([-Vw[:, 0], -Vw[:, 1], Vw[:, 2]], axis=1)
        cosv = np.clip(Vw[:, 2], 0, 1)
        fres = 0.04 + 0.96 * (1 - cosv) ** 5
        amb = self.sky[None, :] * aot[:, None]
        self.Aamb[ti] = (alb * amb).astype(F32)
        sheen = sf['sheen'] * (1 - cosv) ** 2
        base = alb * amb
        for li, Lt in enumerate(self.lights):
            Ld, dist, Lc = light_dirs(Lt, P[ti])
            ndl = np.clip(Ld[:, 2], 0, 1)
            Hh = normalize(Ld + Vw)
            nh = np.clip(Hh[:, 2], 0, 1)
            ex = sf['rough']
            specv = sf['spec'] * min((ex + 8) / 8, 12.0) * nh ** ex * ndl * np.minimum((0.04 + 0.96 * (1 - np.clip(np.sum(Hh * Vw, 1), 0, 1)) ** 5) / 0.04, 8.0) * 0.25
            Tv = Lc * (alb * (ndl * (1 + sheen))[:, None] + specv[:, None]) * shadows_t[li][:, None]
            self.Tl[li][ti] = Tv.astype(F32)
        # environment reflection of the table (glossy surfaces)
        refl = sf['refl']
        self.refl_w = None
        if refl > 0:
            er = self._env_wall(Rv, P[ti])
            w = (fres * refl)[:, None]
            base = base * (1 - w) + er * w
            self.refl_w = np.zeros(npx, F32)
            self.refl_w[ti] = (fres * refl).astype(F32)
            self.env_refl = np.zeros((npx, 3), F32)
            self.env_refl[ti] = (er * w).astype(F32)
        img[ti] = base
        # ---- wall
        wi = np.nonzero(surf == 1)[0]
        if wi.size:
            Pw = P[wi]
            side = np.array([-fh[1], fh[0], 0.0])
            s = Pw @ side
            hgt = Pw[:, 2]
            img[wi] = self._wall_colour(s, hgt)
        # ---- props
        self.prop_pix = None
        pi_ = np.nonzero(surf == 2)[0]
        if pi_.size:
            Pp = P[pi_]
            Np = np.zeros((pi_.size, 3))
            for k, prop in enumerate(self.props):
                sel = np.nonzero(pid[pi_] == k)[0]
                if sel.size == 0:
                    continue
                best = None
                for (nr, lo, hi) in prop['parts']:
                    te, tx_, kk, sg = slab_cast(C, D[pi_[sel]].astype(np.float64), nr, lo, hi)
                    ok = (te < tx_) & (te > 0)
                    te = np.where(ok, te, np.inf)
                    nn = nr[kk] * sg[:, None]
                    if best is None:
                        best = (te, nn)
                    else:
                        b = te < best[0]
                        best = (np.where(b, te, best[0]), np.where(b[:, None], nn, best[1]))
                Np[sel] = best[1]
                if prop['name'] == 'coin':
                    # smooth side normals + emboss
                    nn = Np[sel]
                    rel = Pp[sel] - prop['center']
                    sidem = np.abs(nn[:, 2]) < 0.5
                    rad = normalize(np.stack([rel[:, 0], rel[:, 1], np.zeros(sel.size)], 1))
                    nn[sidem] = rad[sidem]
                    rr = np.sqrt(rel[:, 0] ** 2 + rel[:, 1] ** 2) / prop['half'][0]
                    bump = 0.25 * np.sin(rel[:, 0] * 1.7) * np.sin(rel[:, 1] * 1.9) * (rr < 0.8)
                    ring = (rr > 0.84) & (rr < 0.9)
                    nn[~sidem, 0] += bump[~sidem] + 0.3 * ring[~sidem] * rel[~sidem, 0] / (rr[~sidem] * prop['half'][0] + 1e-6)
                    nn[~sidem, 1] += 0.3 * ring[~sidem] * rel[~sidem, 1] / (rr[~sidem] * prop['half'][0] + 1e-6)
                    Np[sel] = normalize(nn)
                if prop['name'] == 'pencil':
                    nn = Np[sel]
                    a_ = prop['mat']['axis']
                    rel = Pp[sel] - prop['center']
                    radial = normalize(rel - (rel @ a_)[:, None] * a_[None, :])
                    body = np.abs(nn @ a_) < 0.5
                    nn[body] = normalize(0.6 * nn[body] + 0.4 * radial[body])
                    Np[sel] = nn
            Vp = -D[pi_].astype(np.float64)
            albp = np.zeros((pi_.size, 3))
            specp = np.zeros(pi_.size)
            roughp = np.zeros(pi_.size)
            for k, prop in enumerate(self.props):
                sel = np.nonzero(pid[pi_] == k)[0]
                if sel.size:
                    a_, s_, r_ = self.prop_material(prop, Pp[sel], Np[sel])
                    albp[sel], specp[sel], roughp[sel] = a_, s_, r_
            aop = 0.75 + 0.25 * np.clip(Np[:, 2], 0, 1)
            hem = 0.5 + 0.5 * Np[:, 2]
            ambp = self.sky[None, :] * hem[:, None] + (self.surf['mean'] * self.sky)[None, :] * (1 - hem)[:, None] * 0.8
            col = albp * ambp * aop[:, None]
            Pp_off = Pp + Np * 0.05
            for li, Lt in enumerate(self.lights):
                Ld, dist, Lc = light_dirs(Lt, Pp)
                ndl = np.clip(np.sum(Np * Ld, 1), 0, 1)
                vis = occluded(Pp_off, Ld, dist, self.prop_occ) if self.prop_occ else np.ones(pi_.size)
                # ignore self-shadowing by own bounding part for curved props
                Hh = normalize(Ld + Vp)
                nh = np.clip(np.sum(Np * Hh, 1), 0, 1)
                ex = roughp
                specv = specp * (ex + 8) / 8 * nh ** ex * ndl * 0.25
                metal = np.array([p['mat']['kind'] == 'metal' for p in self.props])[pid[pi_]]
                sc = np.where(metal[:, None], albp, 1.0)
                Tv = Lc * (albp * ndl[:, None] + specv[:, None] * sc) * np.maximum(vis, 0.0)[:, None]
                self.Tl[li][pi_] = Tv.astype(F32)
            rr_ = Vp - 2 * np.sum(Vp * Np, 1)[:, None] * Np
            rr_ = -rr_
            fr = 0.04 + 0.96 * (1 - np.clip(np.sum(Vp * Np, 1), 0, 1)) ** 5
            col = col + self.env(rr_) * (fr * np.clip(specp * 1.5, 0.05, 1))[:, None]
            self.Aamb[pi_] = (albp * ambp * aop[:, None]).astype(F32)
            img[pi_] = col
            self.prop_pix = (pi_, Pp, Np)
        base_img = img + sum(self.Tl)
        self.base = base_img.reshape(H, W, 3).astype(F32)
        # depth-of-field on far things (background wall and distant table)
        focus = cam.dist
        coc = np.abs(1.0 / focus - 1.0 / np.maximum(self.depth0, 1.0)) * focus
        strength = rng.uniform(0.5, 3.0) * (W / 1280.0) * (150.0 / max(cam.dist, 150.0)) ** 0.5
        sig = coc * strength * 6
        if sig.max() > 0.8:
            b1 = cv2.GaussianBlur(self.base, (0, 0), 1.5)
            b2 = cv2.GaussianBlur(self.base, (0, 0), 4.0)
            w1 = np.clip(sig / 1.5, 0, 1)[..., None]
            w2 = np.clip((sig - 1.5) / 2.5, 0, 1)[..., None]
            self.base = (self.base * (1 - w1) + b1 * w1) * (1 - w2) + b2 * w2
        self.Tl = [t.reshape(H, W, 3) for t in self.Tl]
        self.Aamb = self.Aamb.reshape(H, W, 3)
        # table-space x,y for remapping per-image shadow maps
        self.table_mask = (self.surf0 == 0)

    def _env_wall(self, Rv, P):
        """Radiance of reflected rays from table points: wall or sky (ceiling)."""
        fh = self.cam.fwd_h
        dh = Rv @ fh
        tw = np.where(dh > 1e-6, (self.wall_dist - P @ fh) / np.maximum(dh, 1e-6), np.inf)
        Pw = P + Rv * np.minimum(tw, 1e6)[:, None]
        side = np.array([-fh[1], fh[0], 0.0])
        out = self.env(Rv)
        hitw = np.isfinite(tw) & (Pw[:, 2] < 2400)
        if hitw.any():
            out[hitw] = self._wall_colour(Pw[hitw] @ side, Pw[hitw, 2])
        return out

    def _wall_colour(self, s, hgt):
        wt = self.wall_tex
        u = (s / 4000.0 + 0.5) * wt.shape[1]
        v = (1 - np.clip(hgt / 2000.0, 0, 1)) * wt.shape[0]
        c = remap_flat(wt, u, v, cv2.BORDER_REPLICATE)
        irr = self.sky * 1.2 + sum(l.col for l in self.lights) * 0.35
        shade = (0.85 + 0.15 * np.clip(hgt / 600.0, 0, 1))[:, None]
        return c * irr[None, :] * shade

    def _project_shadow(self, L, pts, jit):
        """Project points onto z=0 along light L (with jitter). Returns (n,2) or None."""
        if L.kind == 'dir':
            d = L.dir if jit is None else normalize(L.dir + jit)
            if d[2] < 0.02:
                return None
            return pts[:, :2] - pts[:, 2:3] / d[2] * d[None, :2]
        lp = L.pos if jit is None else L.pos + jit
        dz = lp[2] - pts[:, 2]
        if (dz < 1.0).any():
            return None
        s = lp[2] / dz
        return lp[None, :2] + (pts[:, :2] - lp[None, :2]) * s[:, None]

    def describe(self):
        cam = self.cam
        ds = "; ".join(st['desc'] for st in self.styles)
        return (f"setup seed={self.seed}: table={self.surf['name']}{' (tray)' if self.tray is not None else ''} "
                f"light={self.light_desc} camera elev={cam.elev:.1f}deg dist={cam.dist:.0f}mm "
                f"hfov={cam.hfov:.1f}deg roll={cam.roll:+.1f}deg barrel={self.barrel:.3f} "
                f"dice {len(self.styles)} style(s) ~{self.e0:.1f}mm [{ds}]"
                f"{' props=' + self.prop_desc if self.prop_desc else ''}")


# ----------------------------------------------------------------------------
# throwing dice
# ----------------------------------------------------------------------------
SGN8 = np.array([[i, j, k] for i in (-1, 1) for j in (-1, 1) for k in (-1, 1)], dtype=np.float64)


def flat_die(style, rng, xy, yaw=None, fi=None):
    if fi is None:
        fi = int(rng.integers(0, 6))
    if yaw is None:
        yaw = rng.uniform(0, 2 * math.pi)
    R = rot_z(yaw) @ up_rotation(fi)
    h = style['edge'] / 2
    d = Die(style, [xy[0], xy[1], h], R)
    d.seed = rng.uniform(0, 100)
    return d


def lean_die(style, rng, t, fi=None, psi=None):
    """Rotation and centre height of a die tilted by psi about a bottom edge, overhanging along t."""
    if fi is None:
        fi = int(rng.integers(0, 6))
    if psi is None:
        psi = math.radians(rng.uniform(12, 40))
    alpha = math.atan2(t[1], t[0])
    R = rot_z(alpha - math.pi / 2) @ rot_x(psi) @ up_rotation(fi)
    b = style['edge'] / 2 - style['radius']
    cr = (SGN8 * b) @ R.T
    cz = style['radius'] + (-cr[:, 2]).max()
    return R, cz, cr, psi


class Thrower:
    def __init__(self, setup, rng):
        self.s = setup
        self.rng = rng
        self.cam = setup.cam
        self.dice = []
        self.fps = []      # footprints of dice
        self.pfps = [p['fp'] for p in setup.props if p['name'] != 'card']
        self.partial_used = False

    def size_ok(self, c, e):
        uv, z = self.cam.project(np.asarray(c)[None, :])
        if z[0] <= 1:
            return False
        px = self.cam.fn * e / z[0] * 640 / self.cam.Wn
        return 11.0 <= px <= 100.0

    def die_px_ok(self, d):
        uv, z = self.cam.project(d.surface_points())
        if (z <= 1).any():
            return False
        ext = (uv.max(axis=0) - uv.min(axis=0)).max() / SS * 640 / self.cam.Wn
        edge = self.cam.fn * d.st['edge'] / float(np.linalg.norm(d.c - self.cam.C)) * 640 / self.cam.Wn
        return ext <= 108 and ext >= 15 and edge >= 11

    def in_frame(self, c, margin):
        uv, z = self.cam.project(np.asarray(c)[None, :])
        u, v = uv[0] / SS
        W, H = self.cam.Wn, self.cam.Hn
        return margin <= u <= W - margin and margin <= v <= H - margin

    def in_tray(self, fp):
        if self.s.tray is None:
            return True
        c, ax, hx, hy = self.s.tray
        l = (fp - c[:2]) @ ax[:2, :2].T
        return (np.abs(l[:, 0]) < hx - 0.5).all() and (np.abs(l[:, 1]) < hy - 0.5).all()

    def free(self, fp, ignore_die=None, ignore_prop=None):
        for i, q in enumerate(self.fps):
            if i != ignore_die and polys_overlap(fp, q, 0.05):
                return False
        for i, q in enumerate(self.pfps):
            if i != ignore_prop and polys_overlap(fp, q, 0.05):
                return False
        return self.in_tray(fp)

    def ray_xy(self, u, v, z):
        """Native pixel (u, v) -> table point at height z."""
        cam = self.cam
        x = (u * SS - cam.cx) / cam.f
        y = (v * SS - cam.cy) / cam.f
        d = x * cam.Rc[0] + y * cam.Rc[1] + cam.Rc[2]
        if d[2] > -1e-6:
            return None
        t = (z - cam.C[2]) / d[2]
        return cam.C + t * d

    def add(self, d):
        self.dice.append(d)
        self.fps.append(d.footprint())

    def random_position(self, style, centre=None, spread=None, partial=False):
        rng = self.rng
        W, H = self.cam.Wn, self.cam.Hn
        e = style['edge']
        for _ in range(40):
            if centre is not None:
                xy = centre + rng.normal(0, spread, 2)
                p = np.array([xy[0], xy[1], e / 2])
            else:
                if partial:
                    side = rng.integers(0, 4)
                    u = rng.uniform(0, W)
                    v = rng.uniform(0, H)
                    if side == 0:
                        u = rng.uniform(-0.01, 0.02) * W
                    elif side == 1:
                        u = W * rng.uniform(0.98, 1.01)
                    elif side == 2:
                        v = rng.uniform(-0.01, 0.02) * H
                    else:
                        v = H * rng.uniform(0.98, 1.01)
                else:
                    m = 0.06
                    if rng.random() < 0.5:
                        u = rng.uniform(m, 1 - m) * W
                        v = rng.uniform(m, 1 - m) * H
                    else:  # people aim the camera at the dice
                        u = float(np.clip(rng.normal(0.5, 0.2), m, 1 - m)) * W
                        v = float(np.clip(rng.normal(0.55, 0.2), m, 1 - m)) * H
                p = self.ray_xy(u, v, e / 2)
                if p is None:
                    continue
            if not self.size_ok(p, e):
                continue
            if not partial and not self.in_frame(p, 0.04 * W):
                continue
            return p
        return None

    def try_flat(self, style, p, yaw=None):
        d = flat_die(style, self.rng, p[:2], yaw=yaw)
        if not self.die_px_ok(d):
            return None
        fp = d.footprint()
        if self.free(fp):
            self.add(d)
            return d
        return None

    def try_cluster(self, style):
        rng = self.rng
        flats = [d for d in self.dice if not d.tilted]
        if not flats:
            return None
        nb = flats[rng.integers(0, len(flats))]
        yaw = None
        if rng.random() < 0.35:
            yaw = math.atan2(nb.R[1, 0], nb.R[0, 0]) + rng.normal(0, 0.06)
        ang = rng.uniform(0, 2 * math.pi)
        if yaw is not None and rng.random() < 0.7:
            ang = yaw + rng.integers(0, 4) * math.pi / 2 + rng.normal(0, 0.15)
        dirv = np.array([math.cos(ang), math.sin(ang)])
        gap = 0.0 if rng.random() < 0.6 else rng.uniform(0.3, 4.0)
        d = flat_die(style, rng, nb.c[:2], yaw=yaw)
        fp0 = d.footprint()
        lo, hi = 0.0, 3.0 * (nb.h + d.h)
        for _ in range(18):
            mid = (lo + hi) / 2
            if polys_overlap(fp0 + dirv * mid, self.fps[self.dice.index(nb)], 0.0):
                lo = mid
            else:
                hi = mid
        dist = hi + gap
        d.c[:2] = nb.c[:2] + dirv * dist
        if not (self.die_px_ok(d) and self.in_frame(d.c, 0.03 * self.cam.Wn)):
            return None
        if self.free(d.footprint()):
            self.add(d)
            return d
        return None

    def try_lean(self, style):
        """Place a tilted die leaning on a die or on a prop.  Returns list of new dice or None."""
        rng = self.rng
        s = self.s
        e = style['edge']
        h = e / 2
        r = style['radius']
        sup_props = [i for i, p in enumerate(s.props) if p['support']]
        use_prop = sup_props and rng.random() < 0.6
        for attempt in range(12):
            ignore_die = None
            ignore_prop = None
            if use_prop:
                pi_ = sup_props[rng.integers(0, len(sup_props))]
                prop = s.props[pi_]
                for k, q in enumerate(self.pfps):
                    if q is prop['fp']:
                        ignore_prop = k
                if prop['name'] == 'pencil':
                    cpen, a_, rc, L2 = prop['pencil']
                    wdir = a_
                    tdir = normalize(np.cross([0, 0, 1.0], a_))
                    if rng.random() < 0.5:
                        tdir = -tdir
                    R, cz, cr, psi = lean_die(style, rng, tdir)
                    proj = cr @ tdir
                    m = proj.max()
                    cand = cr[proj > m - 1e-6]
                    cs = cand[np.argmin(cand[:, 2])]
                    zE = cz + cs[2]
                    sp = cpen @ tdir
                    disc = (r + rc) ** 2 - (rc - zE) ** 2
                    ok = False
                    if disc > 0:
                        ds = math.sqrt(disc)
                        ang = math.atan2(rc - zE, ds)
                        if psi - math.pi / 2 <= ang <= psi:
                            ct = sp - ds - cs @ tdir
                            ok = True
                    if not ok:
                        # underside resting on the pencil
                        ct = sp - (h + rc + (rc - cz) * math.cos(psi)) / math.sin(psi)
                        off = (sp - ct) - rc * math.sin(psi)
                        hs = h * math.sin(psi)
                        bc = (h - r) * math.cos(psi)
                        if not (hs - bc <= off <= hs + bc):
                            continue
                    lat = cpen @ wdir + rng.uniform(-L2 + 16, L2 - 6)
                else:
                    ax, c, half = prop['axes'], prop['center'], prop['half']
                    faces = []
                    for k in range(2):
                        for sg in (-1, 1):
                            n = ax[k] * sg
                            if s.tray is not None and prop['name'] == 'tray-rim' and n @ (-c) <= 0:
                                continue
                            faces.append((n, n @ c + half[k], ax[1 - k], half[1 - k]))
                    Ch = s.cam.C - c
                    front = [f for f in faces if f[0] @ np.array([Ch[0], Ch[1], 0.0]) > 0]
                    if front and rng.random() < 0.85:
                        faces = front
                    n, pB, wdir, hw = faces[rng.integers(0, len(faces))]
                    tdir = -n
                    R, cz, cr, psi = lean_die(style, rng, tdir)
                    proj = cr @ tdir
                    m = proj.max()
                    cand = cr[proj > m - 1e-6]
                    zc = cz + cand[:, 2].min()
                    if zc > 2 * half[2] - 1.0:
                        continue
                    ct = -pB - m - r
                    if hw - h * 1.2 <= 0:
                        continue
                    lat = c @ wdir + rng.uniform(-(hw - 1.2 * h), hw - 1.2 * h)
                cA = ct * tdir + lat * wdir + np.array([0, 0, cz])
                cA = np.array([cA[0], cA[1], cz])
                d = Die(style, cA, R, tilted=True)
                d.seed = rng.uniform(0, 100)
                if not (self.die_px_ok(d) and self.in_frame(d.c, 0.04 * self.cam.Wn)):
                    continue
                fp = d.footprint()
                # the die may touch its support: ignore it in the overlap test
                if not self.free(fp, ignore_prop=ignore_prop):
                    continue
                d.support = prop['name']
                self.add(d)
                return [d]
            else:
                # lean on a die: existing flat die or a new one
                flats = [x for x in self.dice if not x.tilted and x.support is None]
                if flats and rng.random() < 0.5:
                    B = flats[rng.integers(0, len(flats))]
                    newB = False
                else:
                    stB = s.styles[rng.integers(0, len(s.styles))]
                    p = self.random_position(stB)
                    if p is None:
                        continue
                    B = flat_die(stB, rng, p[:2])
                    if not self.die_px_ok(B) or not self.free(B.footprint()) or len(self.dice) + 2 > self.n:
                        continue
                    newB = True
                k = int(rng.integers(0, 4))
                axB = B.R.T  # rows = local axes in world
                hor = [a for a in axB if abs(a[2]) < 0.5]
                n = hor[k // 2] * (1 if k % 2 == 0 else -1)
                pB = n @ B.c + B.h
                tdir = -n
                wdir = np.array([-tdir[1], tdir[0], 0.0])
                R, cz, cr, psi = lean_die(style, rng, tdir)
                proj = cr @ tdir
                m = proj.max()
                cand = cr[proj > m - 1e-6]
                zc = cz + cand[:, 2].min()
                if zc > 2 * B.h - B.r * 1.1:
                    continue
                ct = -pB - m - r
                lat = B.c @ wdir + rng.uniform(-0.35, 0.35) * 2 * B.h
                d = Die(style, [0, 0, 0], R, tilted=True)
                d.c = ct * tdir + lat * wdir
                d.c[2] = cz
                d.seed = rng.uniform(0, 100)
                if not (self.die_px_ok(d) and self.in_frame(d.c, 0.04 * self.cam.Wn)):
                    continue
                fp = d.footprint()
                if newB:
                    self.add(B)
                idxB = self.dice.index(B)
                if not self.free(fp, ignore_die=idxB):
                    if newB:
                        self.dice.pop()
                        self.fps.pop()
                    continue
                d.support = 'die'
                B.support = 'base'
                self.add(d)
                return ([B] if newB else []) + [d]
        return None

    def throw(self):
        rng = self.rng
        s = self.s
        n = int(rng.integers(1, 11))
        self.n = n
        spread_mode = rng.random() < 0.5
        centre = None
        spread = None
        if spread_mode:
            st0 = s.styles[0]
            p = self.random_position(st0)
            if p is not None:
                centre = p[:2]
                spread = st0['edge'] * rng.uniform(1.5, 5.0)
        partial_k = int(rng.integers(0, n)) if rng.random() < 0.18 else -1
        cluster_p = rng.uniform(0.1, 0.5)
        k = 0
        guard = 0
        while len(self.dice) < n and guard < n * 6:
            guard += 1
            style = s.styles[rng.integers(0, len(s.styles))]
            if rng.random() < 0.13:
                res = self.try_lean(style)
                if res:
                    continue
            if self.dice and rng.random() < cluster_p:
                if self.try_cluster(style) is not None:
                    continue
            partial = (len(self.dice) == partial_k)
            if centre is not None and not partial and rng.random() < 0.8:
                p = self.random_position(style, centre=centre, spread=spread)
            else:
                p = self.random_position(style, partial=partial)
            if p is None:
                continue
            self.try_flat(style, p)
        return self.dice


# ----------------------------------------------------------------------------
# per-image rendering
# ----------------------------------------------------------------------------
def dice_table_effects(s, dice, img):
    """Shadows and contact occlusion of the dice on the table (table-space maps)."""
    if not dice:
        return
    cam = s.cam
    pts = [d.surface_points() for d in dice]
    nL = len(s.lights)
    emin = min(d.st['edge'] for d in dice)
    projs = []  # per light: list over samples of list of polygons
    allxy = [np.vstack([p[:, :2] for p in pts])]
    for L in s.lights:
        ns = 10 if L.size > (0.02 if L.kind == 'dir' else 25) else 4
        sams = light_samples(L, ns)
        per = []
        for jit in sams:
            polys = []
            for d, p in zip(dice, pts):
                q = s._project_shadow(L, p, jit)
                if q is None:
                    continue
                op = 1.0 if d.st['kind'] != 'translucent' else 0.55
                polys.append((q, op))
                allxy.append(q)
            per.append(polys)
        projs.append(per)
    allxy = np.vstack(allxy)
    marg = 1.2 * emin
    lo = allxy.min(axis=0) - marg
    hi = allxy.max(axis=0) + marg
    # limit the extent (very long shadows from grazing lights)
    ctr = np.mean([d.c[:2] for d in dice], axis=0)
    lim = 12 * s.span + 200
    lo = np.maximum(lo, ctr - lim)
    hi = np.minimum(hi, ctr + lim)
    tx = max(emin / 40.0, float((hi - lo).max()) / 1100.0)
    mw = int((hi[0] - lo[0]) / tx) + 2
    mh = int((hi[1] - lo[1]) / tx) + 2
    chans = []
    for li in range(nL):
        acc = np.zeros((mh, mw), F32)
        for polys in projs[li]:
            m = np.zeros((mh, mw), np.uint8)
            for q, op in polys:
                poly = np.round(((q - lo) / tx) * 16).astype(np.int32)
                hp = cv2.convexHull(poly.reshape(-1, 1, 2))
                cv2.fillConvexPoly(m, hp, int(255 * op), lineType=cv2.LINE_AA, shift=4)
            acc += m
        acc *= 1.0 / (255.0 * len(projs[li]))
        chans.append(1.0 - acc)
    fpm = np.zeros((mh, mw), F32)
    for d, p in zip(dice, pts):
        low = p[p[:, 2] < 0.45 * d.st['edge']]
        if len(low) < 3:
            continue
        poly = np.round(((low[:, :2] - lo) / tx) * 16).astype(np.int32)
        cv2.fillConvexPoly(fpm, cv2.convexHull(poly.reshape(-1, 1, 2)), 1.0, shift=4)
    s1 = max(0.7, 0.06 * emin / tx)
    s2 = max(1.0, 0.35 * emin / tx)
    ao = 1.0 - 0.55 * cv2.GaussianBlur(fpm, (0, 0), s1) - 0.45 * cv2.GaussianBlur(fpm, (0, 0), s2)
    chans.append(np.clip(ao, 0.1, 1.0))
    # screen region of the map
    corners = np.array([[lo[0], lo[1], 0], [hi[0], lo[1], 0], [lo[0], hi[1], 0], [hi[0], hi[1], 0]])
    uv, z = cam.project(corners)
    W, H = cam.W, cam.H
    if (z <= 1).any():
        x0, y0, x1, y1 = 0, 0, W, H
    else:
        x0 = int(max(0, math.floor(uv[:, 0].min())))
        y0 = int(max(0, math.floor(uv[:, 1].min())))
        x1 = int(min(W, math.ceil(uv[:, 0].max()) + 1))
        y1 = int(min(H, math.ceil(uv[:, 1].max()) + 1))
    if x1 <= x0 or y1 <= y0:
        return
    Xm, Ym = s.XYmap
    mx = ((Xm[y0:y1, x0:x1] - lo[0]) / tx - 0.5).astype(F32)
    my = ((Ym[y0:y1, x0:x1] - lo[1]) / tx - 0.5).astype(F32)
    stack = np.dstack(chans).astype(F32)
    vals = []
    for c0 in range(0, stack.shape[2], 4):
        sub = np.ascontiguousarray(stack[:, :, c0:c0 + 4])
        r = cv2.remap(sub, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=(1, 1, 1, 1))
        if r.ndim == 2:
            r = r[..., None]
        vals.append(r)
    vals = np.concatenate(vals, axis=2)
    tm = s.table_mask[y0:y1, x0:x1]
    reg = img[y0:y1, x0:x1]
    delta = s.Aamb[y0:y1, x0:x1] * (vals[..., nL:nL + 1] - 1.0)
    for li in range(nL):
        delta += s.Tl[li][y0:y1, x0:x1] * (vals[..., li:li + 1] - 1.0)
    reg[tm] += delta[tm]


def dice_on_props(s, dice, img):
    """Shadows cast by dice onto props (ray tests restricted to the shadow volume's screen box)."""
    if s.prop_pix is None or not dice:
        return
    cam = s.cam
    pi_, Pp, Np = s.prop_pix
    if not hasattr(s, 'prop_index'):
        pim = np.full(cam.W * cam.H, -1, np.int64)
        pim[pi_] = np.arange(pi_.size)
        s.prop_index = pim.reshape(cam.H, cam.W)
    Tl = [t.reshape(-1, 3) for t in s.Tl]
    flat = img.reshape(-1, 3)
    for li, L in enumerate(s.lights):
        for d in dice:
            sp = d.surface_points()
            q = s._project_shadow(L, sp, None)
            if q is None:
                continue
            vol = np.vstack([sp, np.c_[q, np.zeros(len(q))]])
            uv, z = cam.project(vol)
            if (z <= 1).any():
                continue
            x0 = int(max(0, uv[:, 0].min() - 2))
            y0 = int(max(0, uv[:, 1].min() - 2))
            x1 = int(min(cam.W, uv[:, 0].max() + 3))
            y1 = int(min(cam.H, uv[:, 1].max() + 3))
            if x1 <= x0 or y1 <= y0:
                continue
            loc = s.prop_index[y0:y1, x0:x1].ravel()
            loc = loc[loc >= 0]
            if loc.size == 0:
                continue
            P = Pp[loc] + Np[loc] * 0.05
            Ld, dist, _ = light_dirs(L, P)
            nr, lo, hi = d.obb(0.25 * d.r)
            vis = occluded(P, Ld, dist, [(nr, lo, hi, 1.0 if d.st['kind'] != 'translucent' else 0.5)])
            m = vis < 1
            if m.any():
                g = pi_[loc[m]]
                flat[g] += Tl[li][g] * (vis[m] - 1.0)[:, None]


def die_occluders(s, die, dice, L):
    """Occluders (slabs) that may shadow `die` from light L (culled)."""
    out = []
    ra = die.h * 1.75
    Ld = L.dir if L.kind == 'dir' else normalize(L.pos - die.c)
    for o in dice:
        if o is die:
            continue
        v = o.c - die.c
        rb = o.h * 1.75
        along = v @ Ld
        if along < -(ra + rb):
            continue
        perp = np.linalg.norm(v - along * Ld)
        if perp > ra + rb:
            continue
        nr, lo, hi = o.obb(0.3 * o.r)
        out.append((nr, lo, hi, 1.0 if o.st['kind'] != 'translucent' else 0.5))
    if s.prop_occ:
        if L.kind == 'dir':
            ang = L.size
        else:
            ang = L.size / max(np.linalg.norm(L.pos - die.c), 1.0)
        for (nr, lo, hi, op), pc, prad in zip(s.prop_occ, s.prop_occ_c, s.prop_occ_r):
            dist = np.linalg.norm(pc - die.c) + prad
            infl = ra + ang * dist * 1.2 + 0.5
            te, tx, _, _ = slab_cast(die.c[None, :], Ld[None, :], nr, lo - infl, hi + infl)
            if te[0] < tx[0] and tx[0] > 0:
                out.append((nr, lo, hi, op))
    return out


def die_bbox(s, die, mirrored=False):
    sp = die.surface_points()
    if mirrored:
        sp = sp * np.array([1, 1, -1.0])
    uv, z = s.cam.project(sp)
    if (z <= 1).any():
        return None
    x0 = int(math.floor(uv[:, 0].min())) - 1
    y0 = int(math.floor(uv[:, 1].min())) - 1
    x1 = int(math.ceil(uv[:, 0].max())) + 2
    y1 = int(math.ceil(uv[:, 1].max())) + 2
    return x0, y0, x1, y1


def shade_die(s, die, dice, p, nl, Dw, t, tf, o_l, dl, img=None, gx=None, gy=None, simple=False):
    st = die.st
    R = die.R
    e = st['edge']
    n = p.shape[0]
    ar = np.arange(n)
    ap = np.abs(p)
    k = np.argmax(ap, axis=1)
    neg = p[ar, k] < 0
    fi = 2 * k + neg
    uidx = np.array([1, 2, 0])[k]
    vidx = np.array([2, 0, 1])[k]
    u = p[ar, uidx]
    v = p[ar, vidx]
    pips = st['pips'][fi]
    du = u[:, None] - pips[..., 0]
    dv = v[:, None] - pips[..., 1]
    d2 = du * du + dv * dv
    j = np.argmin(d2, axis=1)
    rho = np.sqrt(d2[ar, j])
    dU = du[ar, j]
    dV = dv[ar, j]
    rp = st['prad'][fi]
    fpmm = t / s.cam.f
    cosv = np.clip(-np.sum((nl @ R.T) * Dw, axis=1), 0.05, 1.0)
    aa = fpmm / np.sqrt(cosv) * 0.9
    cov = np.clip((rp - rho) / aa + 0.5, 0.0, 1.0)
    # keep pips off the rounded edges' far side (they are drilled into the face)
    cov *= (ap[ar, k] > die.h - 0.35 * die.r - 0.15 * rp)
    ao = np.ones(n)
    nrm = nl.copy()
    if st['drilled']:
        dp = st['pip_depth'] * rp
        Rs = (rp * rp + dp * dp) / (2 * dp)
        inside = cov > 0
        if inside.any():
            ii = np.nonzero(inside)[0]
            nf = FACE_N[fi[ii]]
            tu = np.eye(3)[uidx[ii]]
            tv = np.eye(3)[vidx[ii]]
            rr = np.minimum(rho[ii], rp[ii] * 0.999)
            nz = np.sqrt(np.maximum(Rs[ii] ** 2 - rr ** 2, 1e-9))
            npip = normalize(-(dU[ii, None] * tu + dV[ii, None] * tv) + nz[:, None] * nf)
            c = cov[ii, None]
            nrm[ii] = normalize(nl[ii] * (1 - c) + npip * c)
            q = rr / rp[ii]
            ao[ii] = 1 - cov[ii] * (0.55 * (1 - q * q) * st['pip_depth'] * 2 + 0.25 * np.exp(-((1 - q) / 0.12) ** 2))
    # albedo
    if st['kind'] == 'marbled':
        mt = marble(st, p, die.seed)[:, None]
        alb = st['body'][None, :] * (1 - mt) + st['body2'][None, :] * mt
    else:
        alb = np.tile(st['body'][None, :], (n, 1))
    pipc = np.tile(st['pip'][None, :], (n, 1))
    if st['red_one']:
        one = st['fv'][fi] == 1
        pipc[one] = srgb2lin(PIPC['red'])
    alb = alb * (1 - cov[:, None]) + pipc * cov[:, None]
    gold = (st['pipname'] == 'gold')
    Nw = nrm @ R.T
    Pw = die.c + p @ R.T
    V = -Dw
    # occlusion from the table and neighbouring dice
    zt = Pw[:, 2]
    ao *= 1 - 0.5 * np.exp(-zt / (0.12 * e)) * np.clip(1 - Nw[:, 2], 0, 1) * 0.7
    for o in dice:
        if o is die:
            continue
        if np.linalg.norm(o.c - die.c) > 2.4 * (o.h + die.h):
            continue
        q = (Pw - o.c) @ o.R
        sd = rbox_sdf(q, o.b, o.r)
        dirv = normalize(o.c - Pw)
        fac = np.clip(np.sum(Nw * dirv, 1) * 0.6 + 0.4, 0, 1)
        ao *= 1 - 0.6 * np.clip(1 - sd / (0.5 * e), 0, 1) ** 2 * fac
    # lighting
    hem = 0.5 + 0.5 * Nw[:, 2]
    ground = s.surf['mean'] * (s.sky + sum(L.col * max(L.dir[2], 0.1) for L in s.lights) * 0.5)
    amb = s.sky[None, :] * hem[:, None] + ground[None, :] * (1 - hem)[:, None]
    diff = amb * ao[:, None]
    spec = np.zeros((n, 3))
    shin = st['shininess']
    gl = st['gloss']
    Pofs = Pw + Nw * 0.02
    for L in s.lights:
        Ld, dist, Lc = light_dirs(L, Pw)
        ndl = np.sum(Nw * Ld, 1)
        lit = ndl > -0.2
        vis = np.ones(n)
        if not simple:
            occs = die_occluders(s, die, dice, L)
            if occs and lit.any():
                li = np.nonzero(lit)[0]
                soft = L.size > (0.02 if L.kind == 'dir' else 25) and L.main
                sams = light_samples(L, 3) if soft else [None]
                acc = np.zeros(li.size)
                for jit in sams:
                    if jit is None:
                        Ls = Ld[li]
                        dd = dist[li]
                    else:
                        Ls, dd, _ = light_dirs(L, Pofs[li], jit)
                    acc += occluded(Pofs[li], np.asarray(Ls), dd, occs)
                vis[li] = acc / len(sams)
        w = 0.2
        dfs = np.clip((ndl + w) / (1 + w), 0, 1) ** 1.5
        diff = diff + Lc * (dfs * vis)[:, None]
        Hh = normalize(Ld + V)
        nh = np.clip(np.sum(Nw * Hh, 1), 0, 1)
        vh = np.clip(np.sum(V * Hh, 1), 0, 1)
        fr = 0.04 + 0.96 * (1 - vh) ** 5
        sv = gl * fr * (shin + 8) / 8 * nh ** shin * np.clip(ndl, 0, 1) * vis
        spec += Lc * sv[:, None]
    nv = np.clip(np.sum(Nw * V, 1), 0, 1)
    fres = 0.04 + 0.96 * (1 - nv) ** 5
    rdir = Dw - 2 * np.sum(Dw * Nw, 1)[:, None] * Nw
    envc = s.env(rdir)
    envw = (fres * gl * ao)[:, None]
    if gold:
        gm = cov[:, None]
        spec = spec * (1 + gm * (st['pip'][None, :] * 6 - 1))
        envw = envw * (1 - gm) + gm * 0.5 * st['pip'][None, :]
    col = alb * diff * (1 - fres[:, None] * gl) + spec + envc * envw
    if st['kind'] == 'translucent' and not simple and img is not None:
        tr = st['trans'] * (1 - cov)
        thick = np.clip(tf - t, 0, 2 * e)
        bn = st['body'] / st['body'].max()
        absorb = bn[None, :] ** (1.2 * thick[:, None] / e)
        # refracted background
        camR = s.cam.Rc
        sh = 0.35 * e * s.cam.f / np.maximum(t, 1.0)
        ox = np.round(gx - (Nw @ camR[0]) * sh).astype(np.int64)
        oy = np.round(gy - (Nw @ camR[1]) * sh).astype(np.int64)
        ox = np.clip(ox, 0, s.cam.W - 1)
        oy = np.clip(oy, 0, s.cam.H - 1)
        bg = img[oy, ox]
        # pips of the far faces seen through the body
        pe = o_l + dl * tf[:, None]
        ape = np.abs(pe)
        ke = np.argmax(ape, axis=1)
        fe = 2 * ke + (pe[ar, ke] < 0)
        ue = pe[ar, np.array([1, 2, 0])[ke]]
        ve = pe[ar, np.array([2, 0, 1])[ke]]
        pe_p = st['pips'][fe]
        de = np.sqrt(((ue[:, None] - pe_p[..., 0]) ** 2 + (ve[:, None] - pe_p[..., 1]) ** 2).min(axis=1))
        cove = np.clip((st['prad'][fe] - de) / (aa * 1.5) + 0.5, 0, 1) * 0.8
        irr = s.sky + sum(L.col for L in s.lights) * 0.4
        through = bg * (1 - cove[:, None]) + (st['pip'] * irr)[None, :] * cove[:, None] * 0.7
        glow = st['body'][None, :] * irr[None, :] * 0.25
        body_t = absorb * through + glow * (1 - absorb)
        col = col * (1 - tr[:, None]) + (body_t * (1 - fres[:, None]) + spec + envc * envw) * tr[:, None]
    return col


def render_dice(s, dice, img, depth, ids, rng):
    cam = s.cam
    W, H = cam.W, cam.H
    info = [None] * len(dice)
    order = sorted(range(len(dice)), key=lambda i: -np.linalg.norm(dice[i].c - cam.C))
    for i in order:
        d = dice[i]
        bb = die_bbox(s, d)
        if bb is None:
            continue
        x0, y0, x1, y1 = bb
        x0 = max(x0, -2 * (x1 - x0))
        y0 = max(y0, -2 * (y1 - y0))
        x1 = min(x1, W + 2 * (x1 - x0))
        y1 = min(y1, H + 2 * (y1 - y0))
        if x1 <= 0 or y1 <= 0 or x0 >= W or y0 >= H:
            info[i] = {'own': 1, 'hull': None}
            continue
        gy, gx = np.mgrid[y0:y1, x0:x1]
        gx = gx.ravel()
        gy = gy.ravel()
        Dw = cam.rays(gx, gy).astype(np.float64)
        res = cast_die(d, cam.C, Dw)
        if res is None:
            info[i] = {'own': 1, 'hull': None}
            continue
        idx, t, p, nl, tf, o_l, dl = res
        hx, hy = gx[idx], gy[idx]
        inf = (hx >= 0) & (hx < W) & (hy >= 0) & (hy < H)
        own = idx.size
        hull = None
        if inf.any():
            fx, fy = hx[inf], hy[inf]
            # per-row extremes are enough for the convex hull
            ry = fy - fy.min()
            nr = int(ry.max()) + 1
            xmin = np.full(nr, 1 << 30)
            xmax = np.full(nr, -(1 << 30))
            np.minimum.at(xmin, ry, fx)
            np.maximum.at(xmax, ry, fx)
            okr = xmax >= xmin
            yy_ = np.nonzero(okr)[0] + fy.min()
            ex = np.concatenate([xmin[okr], xmax[okr] + 1])
            ey = np.concatenate([yy_, yy_])
            pts = np.concatenate([np.stack([ex, ey], 1), np.stack([ex, ey + 1], 1)])
            hull = hull2d(pts)
        info[i] = {'own': own, 'hull': hull}
        if not inf.any():
            continue
        sel = np.nonzero(inf)[0]
        sel = sel[t[sel] < depth[hy[sel], hx[sel]]]
        if sel.size == 0:
            continue
        col = shade_die(s, d, dice, p[sel], nl[sel], Dw[idx[sel]], t[sel], tf[sel], o_l, dl[sel],
                        img=img, gx=hx[sel], gy=hy[sel])
        img[hy[sel], hx[sel]] = col
        depth[hy[sel], hx[sel]] = t[sel]
        ids[hy[sel], hx[sel]] = i
    return info


def render_reflections(s, dice, img, ids):
    """Mirror images of the dice in glossy table surfaces."""
    if s.refl_w is None or not dice:
        return
    cam = s.cam
    W, H = cam.W, cam.H
    rw = s.refl_w.reshape(H, W)
    ev = s.env_refl.reshape(H, W, 3)
    M = np.diag([1.0, 1.0, -1.0])
    hits = []
    boxes = []
    for d in dice:
        bb = die_bbox(s, d, mirrored=True)
        if bb is None:
            continue
        x0, y0, x1, y1 = bb
        x0, y0 = max(x0, 0), max(y0, 0)
        x1, y1 = min(x1, W), min(y1, H)
        if x1 <= x0 or y1 <= y0:
            continue
        gy, gx = np.mgrid[y0:y1, x0:x1]
        gx = gx.ravel()
        gy = gy.ravel()
        ok = (s.table_mask[gy, gx]) & (ids[gy, gx] == -1)
        if not ok.any():
            continue
        gx, gy = gx[ok], gy[ok]
        Dw = cam.rays(gx, gy).astype(np.float64)
        md = Die(d.st, M @ d.c, M @ d.R)
        res = cast_die(md, cam.C, Dw)
        if res is None:
            continue
        idx, t, p, nl, tf, o_l, dl = res
        Dm = Dw[idx] * np.array([1, 1, -1.0])
        col = shade_die(s, d, dice, p, nl, Dm, t, tf, o_l, dl, simple=True)
        boxes.append((x0, y0, x1, y1))
        hits.append((gx[idx], gy[idx], t, col))
    if not hits:
        return
    x0 = min(b[0] for b in boxes)
    y0 = min(b[1] for b in boxes)
    x1 = max(b[2] for b in boxes)
    y1 = max(b[3] for b in boxes)
    buf = np.zeros((y1 - y0, x1 - x0, 3), F32)
    al = np.zeros((y1 - y0, x1 - x0), F32)
    rd = np.full((y1 - y0, x1 - x0), np.inf, F32)
    for hx, hy, t, col in hits:
        ly, lx = hy - y0, hx - x0
        nearer = t < rd[ly, lx]
        ly, lx = ly[nearer], lx[nearer]
        rd[ly, lx] = t[nearer]
        buf[ly, lx] = col[nearer]
        al[ly, lx] = 1.0
    sig = float(np.clip(2000.0 / s.surf['rough'], 0.3, 4.0))
    buf = cv2.GaussianBlur(buf, (0, 0), sig)
    al = cv2.GaussianBlur(al, (0, 0), sig)
    reg = img[y0:y1, x0:x1]
    ok = s.table_mask[y0:y1, x0:x1] & (ids[y0:y1, x0:x1] == -1)
    w = rw[y0:y1, x0:x1][..., None]
    newv = reg + w * buf - ev[y0:y1, x0:x1] * al[..., None]
    reg[ok] = newv[ok]


# ----------------------------------------------------------------------------
# camera pipeline
# ----------------------------------------------------------------------------
def distortion_maps(s):
    W, H = s.W, s.H
    k = s.barrel
    ca = s.ca
    cx, cy = W / 2.0, H / 2.0
    R0 = math.hypot(cx, cy)
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float64)
    dx = xx + 0.5 - cx
    dy = yy + 0.5 - cy
    r2 = (dx * dx + dy * dy) / (R0 * R0)
    S = 1.0 / (1.0 + k)
    maps = []
    for ch in range(3):
        sc = S * (1 + k * r2) * (1 + ca * (ch - 1))
        mx = (cx + dx * sc - 0.5).astype(F32)
        my = (cy + dy * sc - 0.5).astype(F32)
        maps.append((mx, my))
    return maps


def distort_points(s, pts):
    """Undistorted native continuous coords (n,2) -> distorted (green channel)."""
    pts = np.asarray(pts, dtype=np.float64)
    k = s.barrel
    if k == 0:
        return pts
    cx, cy = s.W / 2.0, s.H / 2.0
    R0 = math.hypot(cx, cy)
    S = 1.0 / (1.0 + k)
    d = pts - [cx, cy]
    ru = np.sqrt((d ** 2).sum(1)) / R0
    rd = ru.copy()
    for _ in range(30):
        f = S * (rd + k * rd ** 3) - ru
        fp = S * (1 + 3 * k * rd ** 2)
        rd = rd - f / fp
    sc = np.where(ru > 1e-12, rd / np.maximum(ru, 1e-12), 1.0 / S)
    return np.array([cx, cy]) + d * sc[:, None]


def camera_pipeline(s, lin, rng):
    """lin: native-resolution linear image (H,W,3) float32. Returns uint8 BGR."""
    H, W = lin.shape[:2]
    if s.barrel > 0 or s.ca > 0:
        if not hasattr(s, '_dmaps'):
            s._dmaps = distortion_maps(s)
        chs = [cv2.remap(np.ascontiguousarray(lin[..., c]), s._dmaps[c][0], s._dmaps[c][1], cv2.INTER_LINEAR,
                         borderMode=cv2.BORDER_REPLICATE) for c in range(3)]
        lin = np.dstack(chs)
    r = rng.random()
    blur = "none"
    if r < 0.12:
        sg = rng.uniform(0.5, 1.5) * W / 640
        lin = cv2.GaussianBlur(lin, (0, 0), sg)
        blur = f"defocus{sg:.1f}"
    elif r < 0.22:
        L = rng.uniform(2.0, 7.0) * W / 640
        ang = rng.uniform(0, math.pi)
        ks = int(math.ceil(L)) * 2 + 3
        ker = np.zeros((ks, ks), F32)
        c = ks // 2
        cv2.line(ker, (int(round(c * 16 - math.cos(ang) * L * 8)), int(round(c * 16 - math.sin(ang) * L * 8))),
                 (int(round(c * 16 + math.cos(ang) * L * 8)), int(round(c * 16 + math.sin(ang) * L * 8))), 1.0, 1,
                 lineType=cv2.LINE_AA, shift=4)
        ker /= ker.sum()
        lin = cv2.filter2D(lin, -1, ker, borderType=cv2.BORDER_REPLICATE)
        blur = f"motion{L:.1f}"
    # auto exposure
    lum = lin[..., 0] * 0.2126 + lin[..., 1] * 0.7152 + lin[..., 2] * 0.0722
    key = math.exp(float(np.mean(np.log(np.maximum(lum[::2, ::2], 1e-4)))))
    ev = s.exposure_bias + rng.normal(0, 0.15)
    gain = 0.2 / max(key, 1e-4) * 2 ** ev
    # highlight protection (most cameras avoid clipping large bright areas)
    hi = float(np.percentile(lum[::2, ::2], 99.7))
    gain = min(gain, 1.25 / max(hi, 1e-4) * 2 ** (0.5 * ev))
    lin = lin * gain
    # auto white balance: mostly corrects the illuminant, partly fooled by the scene colours
    # (grey world), with a random error
    m = lin.reshape(-1, 3).mean(axis=0) + 1e-6
    g_ill = (1.0 / s.illum) ** s.awb_strength
    g_gw = np.clip(m.mean() / m, 0.6, 1.6)
    corr = g_ill * g_gw ** s.awb_gw * (1 + s.awb_err + rng.normal(0, 0.015, 3))
    corr /= corr[1]
    lin = lin * corr.astype(F32)[None, None, :]
    # vignetting
    if not hasattr(s, '_vig'):
        yy, xx = np.mgrid[0:H, 0:W].astype(F32)
        rr = ((xx - W / 2) ** 2 + (yy - H / 2) ** 2) / ((W / 2) ** 2 + (H / 2) ** 2)
        s._vig = (1 - s.vignette * rr) ** 1.5
    lin = lin * s._vig[..., None]
    # sensor noise (shot + read), stronger with gain
    g = min(max(gain / 2.0, 0.5), 4.0)
    nk = s.noise_k * g
    sig = np.sqrt(np.maximum(lin, 0) * nk + (0.0012 * g) ** 2).astype(F32)
    noise = rng.standard_normal(lin.shape).astype(F32)
    cn = rng.standard_normal((H // 2 + 1, W // 2 + 1, 3)).astype(F32)
    cn = cv2.resize(cn, (W, H), interpolation=cv2.INTER_LINEAR)[:H, :W]
    lin = lin + sig * (0.85 * noise + 0.3 * cn)
    # tone curve
    x = np.maximum(lin, 0)
    x = np.where(x < 0.75, x, 0.75 + 0.25 * np.tanh((x - 0.75) / 0.25))
    y = np.where(x <= 0.0031308, 12.92 * x, 1.055 * np.power(np.maximum(x, 0.0031308), 1 / 2.4) - 0.055)
    y = np.clip(y, 0, 1)
    c = s.gamma_c
    y = np.clip(0.5 + (y - 0.5) * c, 0, 1)
    if s.sharpen > 0.05:
        bl = cv2.GaussianBlur(y, (0, 0), 1.0 * W / 640)
        y = np.clip(y + s.sharpen * (y - bl), 0, 1)
    out = (y * 255 + 0.5).astype(np.uint8)
    return cv2.cvtColor(out, cv2.COLOR_RGB2BGR), blur, gain


def render_image(s, idx):
    rng = np.random.default_rng([s.seed, idx, 104729])
    t0 = time.time()
    for attempt in range(20):
        th = Thrower(s, rng)
        dice = th.throw()
        if dice and any(s.cam.project(d.c[None, :])[1][0] > 0 and
                        0.08 * s.W < s.cam.project(d.c[None, :])[0][0, 0] / SS < 0.92 * s.W and
                        0.08 * s.H < s.cam.project(d.c[None, :])[0][0, 1] / SS < 0.92 * s.H for d in dice):
            break
    cam = s.cam
    img = s.base.copy()
    depth = s.depth0.copy()
    ids = np.full((cam.H, cam.W), -1, np.int16)
    ids[s.surf0 == 2] = -2
    dice_table_effects(s, dice, img)
    dice_on_props(s, dice, img)
    info = render_dice(s, dice, img, depth, ids, rng)
    render_reflections(s, dice, img, ids)
    lin = cv2.resize(img, (s.W, s.H), interpolation=cv2.INTER_AREA)
    bgr, blur, gain = camera_pipeline(s, lin, rng)
    # ground truth
    truth = []
    for i, d in enumerate(dice):
        inf = info[i]
        if inf is None or inf['hull'] is None:
            continue
        vis = int(np.count_nonzero(ids == i))
        frac = vis / max(inf['own'], 1)
        if frac < 0.4:
            continue
        fi, nz = d.up_face()
        cw = d.c + d.R @ (FACE_N[fi] * d.h)
        uv, z = cam.project(cw[None, :])
        xy = distort_points(s, uv / SS)[0]
        hp = distort_points(s, inf['hull'] / SS)
        x0, y0 = hp.min(axis=0)
        x1, y1 = hp.max(axis=0)
        box = [float(np.clip(x0, 0, s.W)), float(np.clip(y0, 0, s.H)), float(np.clip(x1, 0, s.W)), float(np.clip(y1, 0, s.H))]
        tilt = math.degrees(math.acos(min(1.0, nz)))
        truth.append({"face": str(int(d.st['fv'][fi])), "x": round(float(xy[0]), 2), "y": round(float(xy[1]), 2),
                      "tilted": bool(tilt > 10.0), "colour": d.st['colour'],
                      "box": [round(b, 2) for b in box]})
    q = int(np.clip(s.jpeg_q + rng.integers(-3, 4), 70, 95))
    ok, enc = cv2.imencode('.jpg', bgr, [cv2.IMWRITE_JPEG_QUALITY, q])
    ntilt = sum(1 for tr in truth if tr['tilted'])
    return enc.tobytes(), truth, dict(thrown=len(dice), listed=len(truth), tilted=ntilt, blur=blur,
                                      secs=time.time() - t0, q=q)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument('out_dir')
    ap.add_argument('--seed', type=int, required=True)
    ap.add_argument('--images', type=int, required=True)
    ap.add_argument('--width', type=int, default=640)
    ap.add_argument('--height', type=int, default=480)
    ap.add_argument('--quiet', action='store_true')
    a = ap.parse_args(argv)
    os.makedirs(a.out_dir, exist_ok=True)
    t0 = time.time()
    s = Setup(a.seed, a.width, a.height)
    if not a.quiet:
        print(s.describe() + f" (prepared in {time.time() - t0:.1f}s)", flush=True)
    images = {}
    for k in range(1, a.images + 1):
        name = f"img-{k:04d}.jpg"
        data, truth, st = render_image(s, k)
        with open(os.path.join(a.out_dir, name), 'wb') as f:
            f.write(data)
        images[name] = truth
        if not a.quiet:
            print(f"  {name}: thrown {st['thrown']} dice, listed {st['listed']}, tilted {st['tilted']}, "
                  f"blur {st['blur']}, jpeg q{st['q']}, {st['secs']:.2f}s", flush=True)
    with open(os.path.join(a.out_dir, 'truth.json'), 'w') as f:
        json.dump({"seed": a.seed, "size": [a.width, a.height], "images": images}, f, indent=1)
    return 0


if __name__ == '__main__':
    sys.exit(main())
