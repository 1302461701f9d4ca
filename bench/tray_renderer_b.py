#!/usr/bin/env python3
"""Independent photo-like dice-tray renderer ("B").

Written on 2026-11-29 by a helper given only the output contract below (the same one
bench/tray_renderer.py follows), who read neither the dice reader, this project's renderer
(vision/dice/render.py) nor bench/tray_renderer.py: a second look at what trays can look like,
for bench/independent_dice_bench.py --renderer b. Nothing learns from it.

    python bench/tray_renderer_b.py OUT_DIR --seed N [--trays 80] [--width 640] [--height 480]

writes OUT_DIR/empty/empty-{1,2,3}.png, OUT_DIR/teach/<kind>/<colour>/<face>-<k>.png (k = 1..3,
one flat die), OUT_DIR/trays/tray-NNNN.png (1 to 8 dice, about 15 % tilted 15-35 degrees
against a neighbour or a wall) and OUT_DIR/truth.json ({"seed", "size", "trays": {name:
[{"kind", "colour", "face", "x", "y", "tilted"}]}}; x, y the die's centre projected).

Renders one "dice tower" (fixed camera, tray, lights and dice set drawn from
--seed) as empty / teach / tray images plus truth.json.

Rendering: per-pixel ray casting with 2x2 supersampling.
  * camera: pinhole + radial distortion (k1, k2), tilted, rolled, off-centre
    principal point; every pixel's ray is obtained by numerically inverting the
    distortion, so geometry, truth and image agree exactly.
  * tray: floor / inner walls / rim / outer walls / table are intersected
    analytically; procedural textures (felt, cork, wood, leather, neoprene,
    play-mat, card) in millimetre space; walls cast soft shadows on the floor.
  * dice: cubes are sphere-traced rounded boxes (exact SDF); d12 is an analytic
    convex polyhedron intersection (12 planes + vertex-rounding sphere) with
    soft edge normals.  Faces carry texture maps (ink + height -> normal
    perturbation), so pips are recessed dimples, numerals/symbols engraved.
  * lights: ring light, ceiling lamp, desk spot lamp, window (directional);
    Lambert + Blinn-Phong + Fresnel environment term; dice cast soft shadows on
    the floor (projected hull per light, blurred by penumbra) and contact AO.
  * camera effects: exposure error, white balance error, vignetting, defocus,
    occasional motion blur, shot+read noise, tone curve, JPEG round trip.
Only numpy + cv2.
"""
import argparse
import json
import math
import os
import sys
import time

import cv2
import numpy as np

PHI = (1 + 5 ** 0.5) / 2
KOTD_FACES = ["CLAW", "HEART", "ENERGY", "FAME", "DESTRUCTION", "POWER"]
COMBOS = [("d6pips", "white"), ("d6pips", "red"), ("d12", "red"),
          ("d12", "yellow"), ("kotd", "black")]
SS = 2  # supersampling factor


# ----------------------------------------------------------------- helpers
def normalize(v, axis=-1):
    n = np.linalg.norm(v, axis=axis, keepdims=True)
    return v / np.maximum(n, 1e-12)


def rodrigues(axis, ang):
    axis = np.asarray(axis, float)
    axis = axis / np.linalg.norm(axis)
    K = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
    return np.eye(3) + math.sin(ang) * K + (1 - math.cos(ang)) * K @ K


def rot_z(a):
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1.0]])


def align_to_z(n):
    n = np.asarray(n, float) / np.linalg.norm(n)
    z = np.array([0, 0, 1.0])
    c = float(n @ z)
    if c > 1 - 1e-9:
        return np.eye(3)
    if c < -1 + 1e-9:
        return rodrigues([1, 0, 0], math.pi)
    return rodrigues(np.cross(n, z), math.acos(c))


def smoothstep(e0, e1, x):
    t = np.clip((x - e0) / (e1 - e0), 0, 1)
    return t * t * (3 - 2 * t)


def srgb2lin(c):
    return (np.asarray(c, float) / 255.0) ** 2.2


def kelvin_rgb(K):
    t = K / 100.0
    if t <= 66:
        r = 255.0
        g = 99.4708025861 * math.log(t) - 161.1195681661
    else:
        r = 329.698727446 * ((t - 60) ** -0.1332047592)
        g = 288.1221695283 * ((t - 60) ** -0.0755148492)
    if t >= 66:
        b = 255.0
    elif t <= 19:
        b = 0.0
    else:
        b = 138.5177312231 * math.log(t - 10) - 305.0447927307
    c = srgb2lin(np.clip([r, g, b], 1, 255))
    return c / (0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2])


def fbm(rng, h, w, s):
    """Smooth gaussian noise with feature size s pixels, roughly unit std."""
    if s <= 1.0:
        return rng.standard_normal((h, w)).astype(np.float32)
    gh, gw = int(h / s) + 3, int(w / s) + 3
    g = rng.standard_normal((gh, gw)).astype(np.float32)
    out = cv2.resize(g, (int(gw * s), int(gh * s)), interpolation=cv2.INTER_CUBIC)
    return out[:h, :w] * 1.3


def remap(tex, mx, my, border):
    return cv2.remap(tex, mx.astype(np.float32), my.astype(np.float32),
                     cv2.INTER_LINEAR, borderMode=border)


# ----------------------------------------------------------------- camera
class Camera:
    def __init__(self, rng, W, H):
        self.W, self.H = W, H
        self.height = rng.uniform(250, 500)
        self.tilt = math.radians(min(20.0, abs(rng.normal(0, 9))))
        az = rng.uniform(0, 2 * math.pi)
        self.die_px = rng.uniform(47, 78) * W / 640.0
        self.dist = self.height / math.cos(self.tilt)
        self.f = self.die_px * self.dist / 16.0
        self.look = np.array([rng.uniform(-12, 12), rng.uniform(-12, 12), 0.0])
        self.C = self.look + self.dist * np.array([math.sin(self.tilt) * math.cos(az),
                                                   math.sin(self.tilt) * math.sin(az),
                                                   math.cos(self.tilt)])
        fw = normalize(self.look - self.C)
        self.roll = rng.uniform(-12, 12) + (180.0 if rng.random() < 0.5 else 0.0)
        rr = math.radians(self.roll)
        a = np.array([-math.sin(rr), math.cos(rr), 0.0])
        down = normalize(a - (a @ fw) * fw)
        right = np.cross(down, fw)
        self.R = np.stack([right, down, fw])
        self.fw = fw
        self.cx = W / 2 + float(np.clip(rng.normal(0, 0.025 * W), -0.06 * W, 0.06 * W))
        self.cy = H / 2 + float(np.clip(rng.normal(0, 0.025 * H), -0.06 * H, 0.06 * H))
        self.k1 = rng.uniform(-0.22, 0.10)
        self.k2 = rng.uniform(-0.05, 0.05)

    def project(self, P):
        P = np.atleast_2d(P)
        Xc = (P - self.C) @ self.R.T
        x = Xc[:, 0] / Xc[:, 2]
        y = Xc[:, 1] / Xc[:, 2]
        r2 = x * x + y * y
        fac = 1 + self.k1 * r2 + self.k2 * r2 * r2
        return np.stack([self.f * x * fac + self.cx, self.f * y * fac + self.cy], 1)

    def rays(self, u, v):
        xd = (u - self.cx) / self.f
        yd = (v - self.cy) / self.f
        x, y = xd.copy(), yd.copy()
        for _ in range(12):
            r2 = x * x + y * y
            fac = 1 + self.k1 * r2 + self.k2 * r2 * r2
            x = xd / fac
            y = yd / fac
        d = np.stack([x, y, np.ones_like(x)], -1) @ self.R
        return normalize(d).astype(np.float32)

    def floor_point(self, u, v, z=0.0):
        d = self.rays(np.array([u], float), np.array([v], float))[0].astype(float)
        t = (z - self.C[2]) / d[2]
        return self.C + t * d


# ----------------------------------------------------------------- lights
class Light:
    def __init__(self, kind, col, pos=None, direction=None, size=10.0, max_shin=200.0,
                 spec=1.0, spot=None, grad=None):
        self.kind, self.col = kind, col
        self.pos = None if pos is None else np.asarray(pos, float)
        self.dir = None if direction is None else normalize(np.asarray(direction, float))
        self.size, self.max_shin, self.spec = size, max_shin, spec
        self.spot, self.grad = spot, grad
        self.I = 1.0
        self.d0 = 1.0 if self.pos is None else float(np.linalg.norm(self.pos))

    def eval(self, P, N=None):
        if self.pos is not None:
            v = self.pos[None, :] - P
            dist = np.linalg.norm(v, axis=1)
            l = v / dist[:, None]
            E = self.I * (self.d0 / dist) ** 2
            if self.spot is not None:
                axis, cin, cout = self.spot
                ca = -(l @ axis)
                E = E * (0.08 + 0.92 * smoothstep(cout, cin, ca))
        else:
            l = np.broadcast_to(self.dir, P.shape)
            E = np.full(P.shape[0], self.I)
            if self.grad is not None:
                gdir, gs = self.grad
                E = E * np.clip(1 + gs * (P[:, :2] @ gdir) / 100.0, 0.3, 2.0)
        if N is not None:
            E = E * np.maximum((N * l).sum(1), 0)
        return l, E

    @property
    def lobe(self):
        if self.pos is not None:
            return 0.5 * math.atan(0.5 * self.size / max(self.d0, 1.0))
        return 0.5 * math.atan(self.size)

    def normalise(self, w):
        _, E = self.eval(np.zeros((1, 3)), np.array([[0, 0, 1.0]]))
        self.I = w / max(float(E[0]), 1e-6)

    def floor_proj(self, P):
        if self.pos is not None:
            L = self.pos
            s = L[2] / np.maximum(L[2] - P[:, 2], 1e-3)
            return L + (P - L) * s[:, None]
        return P - self.dir[None, :] * (P[:, 2] / self.dir[2])[:, None]

    def penumbra_mm(self, h_occ=11.0):
        if self.pos is not None:
            return self.size * h_occ / max(self.pos[2] - h_occ, 10.0)
        return self.size * h_occ


# ----------------------------------------------------------------- surfaces
FELT = [(40, 110, 60), (20, 70, 40), (30, 60, 120), (20, 30, 60), (130, 25, 30), (80, 20, 30),
        (25, 25, 28), (90, 90, 95), (70, 40, 100), (160, 140, 100)]
WOOD = [((215, 175, 125), (170, 120, 75)), ((160, 105, 62), (110, 65, 35)), ((95, 60, 38), (55, 32, 20))]
LEATHER = [(110, 70, 45), (35, 30, 30), (170, 120, 75), (90, 30, 30)]
NEOPRENE = [(30, 30, 32), (55, 55, 60), (25, 35, 60), (60, 25, 25)]
CARD = [(235, 235, 230), (180, 180, 180), (220, 205, 170), (190, 210, 230), (170, 135, 95), (120, 120, 125)]
MAT = [((190, 170, 120), (150, 140, 90)), ((90, 140, 80), (60, 100, 60)), ((90, 110, 150), (60, 70, 110)),
       ((60, 60, 70), (40, 40, 50)), ((200, 190, 170), (170, 150, 130))]


def make_surface(kind, rng, h, w, ppm):
    bright = rng.uniform(0.8, 1.15)

    def N(scale_mm):
        return fbm(rng, h, w, scale_mm * ppm)

    if kind == "felt":
        base = srgb2lin(FELT[rng.integers(len(FELT))]) * bright
        m = 1 + 0.07 * N(0.25) + 0.05 * N(0.9) + 0.04 * N(12)
        img = base[None, None, :] * m[..., None]
    elif kind == "cork":
        base = srgb2lin((180, 130, 85)) * rng.uniform(0.7, 1.15)
        n1 = N(0.5)
        m = 1 + 0.22 * n1 + 0.12 * N(2.0) + 0.05 * N(20)
        m = np.where(n1 > 1.6, m * 0.55, m)
        img = base[None, None, :] * m[..., None]
        img *= (1 + 0.05 * N(1.0))[..., None] * np.array([1.0, 0.97, 0.93])
    elif kind == "wood":
        light, dark = WOOD[rng.integers(len(WOOD))]
        light, dark = srgb2lin(light) * bright, srgb2lin(dark) * bright
        trans = rng.random() < 0.5
        hh, ww = (w, h) if trans else (h, w)
        per = rng.uniform(2.0, 7.0) * ppm
        yy = np.arange(hh, dtype=np.float32)[:, None]
        warp = fbm(rng, hh, ww, 60 * ppm) * 2.0 + fbm(rng, hh, ww, 10 * ppm) * 0.35 + fbm(rng, hh, ww, 2.5 * ppm) * 0.05
        phase = yy / per * (1 + 0.2 * fbm(rng, hh, ww, 90 * ppm)) + warp
        line = smoothstep(0.45, 0.97, 0.5 + 0.5 * np.sin(2 * np.pi * phase))
        streak = cv2.resize(rng.standard_normal((max(2, int(hh / (0.2 * ppm))), max(2, int(ww / (12 * ppm))))).astype(np.float32),
                            (ww, hh), interpolation=cv2.INTER_LINEAR)
        t = np.clip(0.2 + 0.55 * line + 0.1 * streak + 0.12 * fbm(rng, hh, ww, 25 * ppm), 0, 1)
        img = light[None, None, :] * (1 - t[..., None]) + dark[None, None, :] * t[..., None]
        if trans:
            img = np.ascontiguousarray(img.transpose(1, 0, 2))
    elif kind == "leather":
        base = srgb2lin(LEATHER[rng.integers(len(LEATHER))]) * bright
        n = N(0.9)
        crease = np.exp(-(n / 0.18) ** 2)
        m = (1 - 0.22 * crease) * (1 + 0.06 * N(8)) * (1 + 0.04 * N(0.3))
        img = base[None, None, :] * m[..., None]
    elif kind == "neoprene":
        base = srgb2lin(NEOPRENE[rng.integers(len(NEOPRENE))]) * bright
        m = 1 + 0.05 * N(0.2) + 0.02 * N(15)
        img = base[None, None, :] * m[..., None]
    elif kind == "playmat":
        c1, c2 = MAT[rng.integers(len(MAT))]
        c1, c2 = srgb2lin(c1) * bright, srgb2lin(c2) * bright
        b = smoothstep(-0.4, 0.4, N(40) + 0.3 * N(8))
        img = c1[None, None, :] * (1 - b[..., None]) + c2[None, None, :] * b[..., None]
        img = img * (1 + 0.03 * N(0.3))[..., None]
        pat = np.zeros((h, w), np.uint8)
        ink = srgb2lin((30, 30, 30)) if rng.random() < 0.7 else srgb2lin((240, 240, 230))
        style = rng.integers(3)
        if style == 0:  # square battle grid
            step = 25.4 * ppm
            off = rng.uniform(0, step, 2)
            th = max(1, int(0.5 * ppm))
            for x in np.arange(off[0], w, step):
                cv2.line(pat, (int(x), 0), (int(x), h), 255, th)
            for y in np.arange(off[1], h, step):
                cv2.line(pat, (0, int(y)), (w, int(y)), 255, th)
        elif style == 1:  # hex grid
            s = rng.uniform(15, 25) * ppm
            th = max(1, int(0.5 * ppm))
            for j, cy in enumerate(np.arange(0, h + s, s * 1.5)):
                for cxv in np.arange((j % 2) * s * 0.866, w + s, s * 1.732):
                    pts = [(cxv + s * math.cos(math.radians(30 + 60 * k)), cy + s * math.sin(math.radians(30 + 60 * k)))
                           for k in range(6)]
                    cv2.polylines(pat, [np.int32(pts)], True, 255, th)
        else:  # printed circles / arcs / glyphs
            for _ in range(int(rng.integers(8, 25))):
                c = (int(rng.uniform(0, w)), int(rng.uniform(0, h)))
                r = int(rng.uniform(5, 60) * ppm)
                cv2.circle(pat, c, r, 255, max(1, int(rng.uniform(0.4, 2.5) * ppm)))
            for _ in range(int(rng.integers(3, 10))):
                txt = "".join(chr(int(rng.integers(65, 91))) for _ in range(int(rng.integers(3, 8))))
                cv2.putText(pat, txt, (int(rng.uniform(0, w)), int(rng.uniform(0, h))), cv2.FONT_HERSHEY_SIMPLEX,
                            rng.uniform(0.1, 0.35) * ppm, 255, max(1, int(0.5 * ppm)))
        pat = cv2.GaussianBlur(pat.astype(np.float32) / 255.0, (0, 0), 0.3 * ppm) * rng.uniform(0.5, 0.9)
        img = img * (1 - pat[..., None]) + ink[None, None, :] * pat[..., None]
    else:  # card
        base = srgb2lin(CARD[rng.integers(len(CARD))]) * bright
        m = 1 + 0.015 * N(0.3) + 0.02 * N(20)
        img = base[None, None, :] * m[..., None]
    return np.clip(img, 0.005, 0.95).astype(np.float32)


# ----------------------------------------------------------------- die textures
def tex_grad(hmap, mm_per_px):
    gx = cv2.Sobel(hmap, cv2.CV_32F, 1, 0, ksize=3) / (8 * mm_per_px)
    gy = cv2.Sobel(hmap, cv2.CV_32F, 0, 1, ksize=3) / (8 * mm_per_px)
    return -gx, -gy


def d6_texture(val, half, T=128, pip_r=1.45, spacing=4.4):
    mm = 2 * half / T
    c = (np.arange(T, dtype=np.float32) + 0.5) * mm - half
    X, Y = np.meshgrid(c, c)
    g = spacing
    lay = {1: [(0, 0)], 2: [(-g, -g), (g, g)], 3: [(-g, -g), (0, 0), (g, g)],
           4: [(-g, -g), (g, -g), (-g, g), (g, g)], 5: [(-g, -g), (g, -g), (0, 0), (-g, g), (g, g)],
           6: [(-g, -g), (-g, 0), (-g, g), (g, -g), (g, 0), (g, g)]}[val]
    rp = pip_r * (1.3 if val == 1 else 1.0)
    Rs = rp * 1.35
    ink = np.zeros((T, T), np.float32)
    hm = np.zeros((T, T), np.float32)
    for px, py in lay:
        q = np.sqrt((X - px) ** 2 + (Y - py) ** 2)
        ink = np.maximum(ink, np.clip((rp - q) / (1.5 * mm) + 0.5, 0, 1))
        inside = q < rp
        depth = np.sqrt(np.maximum(Rs * Rs - np.minimum(q, rp) ** 2, 0)) - math.sqrt(Rs * Rs - rp * rp)
        hm = np.where(inside, -depth, hm)
    hm = cv2.GaussianBlur(hm, (0, 0), 0.6)
    du, dv = tex_grad(hm, mm)
    return np.dstack([ink, du, dv]).astype(np.float32)


def kotd_symbol(name, S=384):
    img = np.zeros((S, S), np.uint8)
    c = S / 2
    k = S / 200.0

    def P(pts):
        return np.int32([[c + x * k, c + y * k] for x, y in pts])

    if name == "CLAW":
        for o in (-30, 0, 30):
            left, right = [], []
            for t in np.linspace(0, 1, 24):
                x = o - 16 + 32 * t + 10 * math.sin(math.pi * t)
                y = -58 + 116 * t
                dx, dy = 32 + 10 * math.pi * math.cos(math.pi * t), 116
                n = math.hypot(dx, dy)
                px, py = -dy / n, dx / n
                wdt = 1 + 9 * math.sin(math.pi * t) ** 0.8
                left.append((x + px * wdt, y + py * wdt))
                right.append((x - px * wdt, y - py * wdt))
            cv2.fillPoly(img, [P(left + right[::-1])], 255, cv2.LINE_AA)
    elif name == "HEART":
        pts = []
        for t in np.linspace(0, 2 * math.pi, 100):
            x = 16 * math.sin(t) ** 3
            y = 13 * math.cos(t) - 5 * math.cos(2 * t) - 2 * math.cos(3 * t) - math.cos(4 * t)
            pts.append((x * 3.8, -y * 3.8 - 8))
        cv2.fillPoly(img, [P(pts)], 255, cv2.LINE_AA)
    elif name == "ENERGY":
        pts = [(12, -66), (-40, 8), (-6, 8), (-22, 66), (42, -14), (6, -14), (30, -66)]
        cv2.fillPoly(img, [P(pts)], 255, cv2.LINE_AA)
    elif name == "FAME":
        pts = []
        for i in range(10):
            r = 66 if i % 2 == 0 else 26
            a = -math.pi / 2 + i * math.pi / 5
            pts.append((r * math.cos(a), r * math.sin(a) + 6))
        cv2.fillPoly(img, [P(pts)], 255, cv2.LINE_AA)
    elif name == "DESTRUCTION":
        cv2.rectangle(img, tuple(P([(-60, -5)])[0]), tuple(P([(-26, 60)])[0]), 255, -1)
        cv2.fillPoly(img, [P([(-20, 60), (-20, -40), (-4, -58), (8, -40), (14, -52), (20, -30), (20, 60)])], 255,
                     cv2.LINE_AA)
        cv2.rectangle(img, tuple(P([(26, 18)])[0]), tuple(P([(60, 60)])[0]), 255, -1)
        for (x0, y0, nx, ny) in ((-54, 4, 2, 4), (-14, -26, 2, 6), (32, 26, 2, 2)):
            for i in range(nx):
                for j in range(ny):
                    a = P([(x0 + i * 12, y0 + j * 12)])[0]
                    cv2.rectangle(img, tuple(a), (int(a[0] + 6 * k), int(a[1] + 6 * k)), 0, -1)
        cv2.polylines(img, [P([(-22, -20), (-8, -4), (-16, 10), (0, 26), (-6, 40)])], False, 0, int(5 * k),
                      cv2.LINE_AA)
        for (x, y) in ((34, -20), (46, -34), (30, -42)):
            cv2.fillPoly(img, [P([(x - 5, y - 4), (x + 6, y - 6), (x + 4, y + 5), (x - 6, y + 4)])], 255, cv2.LINE_AA)
    elif name == "POWER":
        pts = []
        for i in range(24):
            r = 68 if i % 2 == 0 else 42
            a = i * math.pi / 12
            pts.append((r * math.cos(a), r * math.sin(a)))
        cv2.fillPoly(img, [P(pts)], 255, cv2.LINE_AA)
        cv2.circle(img, tuple(P([(0, 0)])[0]), int(20 * k), 0, -1, cv2.LINE_AA)
        cv2.circle(img, tuple(P([(0, 0)])[0]), int(9 * k), 255, -1, cv2.LINE_AA)
    return img.astype(np.float32) / 255.0


def ink_texture(mask_hi, T, half, depth=0.22):
    ink = cv2.resize(mask_hi, (T, T), interpolation=cv2.INTER_AREA)
    mm = 2 * half / T
    hm = -depth * cv2.GaussianBlur(ink, (0, 0), 0.8)
    du, dv = tex_grad(hm, mm)
    return np.dstack([ink, du, dv]).astype(np.float32)


def numeral_mask(num, half, inr, S=320):
    img = np.zeros((S, S), np.uint8)
    txt = str(num)
    font = cv2.FONT_HERSHEY_DUPLEX
    ppm = S / (2 * half)
    th = max(2, int(0.5 * ppm))
    (tw, tht), base = cv2.getTextSize(txt, font, 1.0, 1)
    target_h = 1.0 * inr * ppm
    target_w = 1.45 * inr * ppm
    sc = min(target_h / tht, target_w / tw)
    (tw, tht), base = cv2.getTextSize(txt, font, sc, th)
    org = (int(S / 2 - tw / 2), int(S / 2 + tht / 2))
    cv2.putText(img, txt, org, font, sc, 255, th, cv2.LINE_AA)
    if num in (6, 9):
        y = int(S / 2 + tht / 2 + 0.18 * tht + th)
        cv2.line(img, (int(S / 2 - tw * 0.45), y), (int(S / 2 + tw * 0.45), y), 255, th, cv2.LINE_AA)
    return img.astype(np.float32) / 255.0


# ----------------------------------------------------------------- die model
class DieModel:
    def __init__(self, kind, colour, rng, geo):
        self.kind, self.colour = kind, colour
        self.shape = "d12" if kind == "d12" else "cube"
        if self.shape == "cube":
            self.a = 8.0
            self.r = geo["cube_r"]
            N = np.array([[0, 0, 1], [0, 0, -1], [1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0]], float)
            self.N = N
            self.h = np.full(6, self.a)
            s = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], float)
            self.verts = s * self.a
            self.core = s * (self.a - self.r)
            if kind == "d6pips":
                self.names = ["1", "6", "2", "5", "3", "4"]
            else:
                self.names = list(rng.permutation(KOTD_FACES))
            U = []
            for n in N:
                axes = [e for e in np.eye(3) if abs(e @ n) < 0.5]
                u = axes[rng.integers(2)] * (1 if rng.random() < 0.5 else -1)
                U.append(u)
            self.U = np.array(U)
            self.half = self.a
        else:
            ri = geo["d12_ri"]
            raw = []
            for s1 in (-1, 1):
                for s2 in (-1, 1):
                    raw += [(0, s1 * PHI, s2), (s1 * PHI, s2, 0), (s2, 0, s1 * PHI)]
            N = normalize(np.array(raw, float))
            V = [[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)]
            for s1 in (-1, 1):
                for s2 in (-1, 1):
                    V += [[0, s1 / PHI, s2 * PHI], [s1 / PHI, s2 * PHI, 0], [s2 * PHI, 0, s1 / PHI]]
            V = np.array(V, float)
            inr = float((V @ N[0]).max())
            V *= ri / inr
            self.N, self.verts = N, V
            self.h = np.full(12, ri)
            self.ri = ri
            self.Rc = float(np.linalg.norm(V[0]))
            self.Rs = self.Rc * 0.965
            self.core = V * np.minimum(1, self.Rs / np.linalg.norm(V, axis=1))[:, None]
            edge = ri / 1.1135163644
            self.pent_in = edge * 0.6881909602
            self.half = edge * 0.8506508084 * 1.02
            names = [None] * 12
            done = set()
            vals = list(rng.permutation(6) + 1)
            for i in range(12):
                if i in done:
                    continue
                j = int(np.argmin(N @ N[i]))
                v = vals.pop()
                if rng.random() < 0.5:
                    names[i], names[j] = str(v), str(13 - v)
                else:
                    names[i], names[j] = str(13 - v), str(v)
                done |= {i, j}
            self.names = names
            U = []
            for f, n in enumerate(N):
                fv = V[np.abs(V @ n - ri) < 1e-3]
                vsel = fv[rng.integers(len(fv))]
                up = normalize(vsel - (vsel @ n) * n)
                if rng.random() < 0.5:  # point numeral to an edge midpoint instead of a vertex
                    up = -up
                Dv = -up
                U.append(np.cross(n, Dv))
            self.U = np.array(U)
        self.D = np.cross(self.U, self.N)
        # edges for sampling
        V = self.verts
        dd = np.linalg.norm(V[:, None] - V[None], axis=2)
        emin = dd[dd > 1e-6].min()
        pts = [V]
        for i in range(len(V)):
            for j in range(i + 1, len(V)):
                if abs(dd[i, j] - emin) < 1e-3:
                    for t in (0.2, 0.4, 0.6, 0.8):
                        pts.append(((1 - t) * V[i] + t * V[j])[None])
        self.samples = np.concatenate(pts)
        self.align = [align_to_z(n) for n in self.N]
        self._materials(rng)
        self._textures()

    def _materials(self, rng):
        k, c = self.kind, self.colour
        if c == "white":
            self.body = srgb2lin((rng.uniform(225, 245), rng.uniform(218, 238), rng.uniform(195, 225)))
            self.ink = srgb2lin((18, 18, 20))
        elif c == "red":
            self.body = srgb2lin((rng.uniform(150, 200), rng.uniform(10, 30), rng.uniform(15, 35)))
            self.ink = srgb2lin((235, 232, 225))
        elif c == "yellow":
            self.body = srgb2lin((rng.uniform(225, 250), rng.uniform(180, 210), rng.uniform(10, 50)))
            self.ink = srgb2lin((25, 22, 20)) if rng.random() < 0.8 else srgb2lin((30, 30, 120))
        else:  # black
            self.body = srgb2lin((rng.uniform(12, 26),) * 3)
            t = rng.uniform(0, 0.6)
            self.ink = srgb2lin(np.array((238, 238, 225)) * (1 - t) + np.array((150, 230, 110)) * t)
        self.ks = rng.uniform(0.3, 0.7)
        self.lobe = math.radians(rng.uniform(1.5, 6.0))  # surface roughness (half-width of the gloss lobe)

    def _textures(self):
        self.tex = []
        for f, nm in enumerate(self.names):
            if self.kind == "d6pips":
                self.tex.append(d6_texture(int(nm), self.half))
            elif self.kind == "kotd":
                m = kotd_symbol(nm)
                # symbol spans ~ 70% of the face
                pad = int(m.shape[0] * 0.12)
                m = cv2.copyMakeBorder(m, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=0)
                self.tex.append(ink_texture(m, 192, self.half))
            else:
                self.tex.append(ink_texture(numeral_mask(int(nm), self.half, self.pent_in), 160, self.half))

    # -------- ray intersection in local die coordinates
    def intersect(self, o, d):
        if self.shape == "cube":
            return self._isect_cube(o, d)
        return self._isect_poly(o, d)

    def _isect_cube(self, o, d):
        a, r = self.a, self.r
        b = a - r
        Rb = math.sqrt(3) * a + 0.05
        bb = d @ o
        c = o @ o - Rb * Rb
        disc = bb * bb - c
        sel = np.nonzero(disc > 0)[0]
        dd = d[sel]
        sq = np.sqrt(disc[sel])
        t = -bb[sel] - sq
        t1 = -bb[sel] + sq
        s = None
        for it in range(34):
            p = o + t[:, None] * dd
            q = np.abs(p) - b
            mq = np.maximum(q, 0)
            s = np.sqrt((mq * mq).sum(1)) + np.minimum(q.max(1), 0) - r
            t = t + s
            if it == 14:  # drop rays that clearly left the bounding sphere
                keep = t < t1
                sel, dd, t, t1 = sel[keep], dd[keep], t[keep], t1[keep]
        p = o + t[:, None] * dd
        q = np.abs(p) - b
        mq = np.maximum(q, 0)
        s = np.sqrt((mq * mq).sum(1)) + np.minimum(q.max(1), 0) - r
        ok = (np.abs(s) < 0.03) & (t < t1)
        sel, t, p, q = sel[ok], t[ok], p[ok], q[ok]
        mq = np.maximum(q, 0)
        n = np.sign(p) * mq
        n = normalize(n)
        ax = np.argmax(np.abs(p), 1)
        neg = p[np.arange(len(p)), ax] < 0
        table = np.array([[2, 3], [4, 5], [0, 1]])
        fid = table[ax, neg.astype(int)]
        flat = (q > 0).sum(1) <= 1
        return self._apply_tex(sel, t, p, n, fid, flat)

    def _isect_poly(self, o, d):
        N, h = self.N, self.h
        den = d @ N.T
        num = h - N @ o
        with np.errstate(divide="ignore", invalid="ignore"):
            tp = num[None, :] / den
        entry = np.where(den < 0, tp, -np.inf)
        ext = np.where(den > 0, tp, np.inf)
        ext = np.where((den == 0) & (num[None, :] < 0), -np.inf, ext)
        tin = entry.max(1)
        fid = entry.argmax(1)
        tout = ext.min(1)
        bb = d @ o
        c = o @ o - self.Rs ** 2
        disc = bb * bb - c
        sq = np.sqrt(np.maximum(disc, 0))
        ts0, ts1 = -bb - sq, -bb + sq
        on_sph = ts0 > tin
        t = np.maximum(tin, ts0)
        hit = (disc > 0) & (t < np.minimum(tout, ts1)) & (t > 0)
        sel = np.nonzero(hit)[0]
        t, fid, on_sph = t[sel], fid[sel], on_sph[sel]
        p = o + t[:, None] * d[sel]
        sd = p @ N.T - h
        w = np.exp((sd - sd.max(1, keepdims=True)) / 0.3)
        n = normalize(w @ N)
        n = np.where(on_sph[:, None], normalize(0.4 * n + 0.6 * normalize(p)), n)
        flat = ~on_sph
        return self._apply_tex(sel, t, p, n, fid, flat)

    def _apply_tex(self, sel, t, p, n, fid, flat):
        ink = np.zeros(len(sel), np.float32)
        n = n.copy()
        half = self.half
        for f in range(len(self.N)):
            m = np.nonzero((fid == f) & flat)[0]
            if len(m) == 0:
                continue
            tex = self.tex[f]
            T = tex.shape[0]
            su = p[m] @ self.U[f]
            sv = p[m] @ self.D[f]
            mx = ((su + half) / (2 * half) * T - 0.5).reshape(-1, 1)
            my = ((sv + half) / (2 * half) * T - 0.5).reshape(-1, 1)
            s = remap(tex, mx, my, cv2.BORDER_CONSTANT).reshape(-1, 3)
            ink[m] = s[:, 0]
            n[m] = normalize(n[m] + s[:, 1:2] * self.U[f] + s[:, 2:3] * self.D[f])
        return sel, t, p, n, ink


class Die:
    def __init__(self, model, R, t, tilted):
        self.model, self.R, self.t, self.tilted = model, R, np.asarray(t, float), tilted
        up = (R @ model.N.T)[2]
        self.face_idx = int(np.argmax(up))
        self.face = model.names[self.face_idx]
        self.verts_w = model.verts @ R.T + self.t
        self.samples_w = model.samples @ R.T + self.t

    def inside(self, P, margin):
        loc = (P - self.t) @ self.R
        return ((loc @ self.model.N.T) <= self.model.h + margin).all(1)


def penetrate(A, B, margin=0.0):
    return bool(A.inside(B.samples_w, margin).any() or B.inside(A.samples_w, margin).any())


# ----------------------------------------------------------------- scene
class Tower:
    def __init__(self, seed, W, H):
        self.seed, self.W, self.H = seed, W, H
        rng = self.rng = np.random.default_rng(seed)
        cam = self.cam = Camera(rng, W, H)
        # ray maps
        js = (np.arange(W * SS) + 0.5) / SS - 0.5
        is_ = (np.arange(H * SS) + 0.5) / SS - 0.5
        U, V = np.meshgrid(js, is_)
        self.rays_ss = cam.rays(U, V)
        # tray
        border = [(u, v) for u in np.linspace(0, W, 9) for v in (0, H)] + \
                 [(u, v) for v in np.linspace(0, H, 7) for u in (0, W)]
        fp = np.array([cam.floor_point(u, v) for u, v in border])
        self.Wx = max(abs(fp[:, 0]).max() * rng.uniform(0.72, 1.4), 45.0)
        self.Wy = max(abs(fp[:, 1]).max() * rng.uniform(0.72, 1.4), 45.0)
        self.Hw = rng.uniform(12, 38)
        self.rim = rng.uniform(6, 20)
        self.Tb = rng.uniform(3, 12)
        self.floor_kind = str(rng.choice(["felt", "cork", "wood", "leather", "neoprene", "playmat", "card"],
                                         p=[0.24, 0.1, 0.14, 0.12, 0.14, 0.14, 0.12]))
        self.ppm = 6.0
        fh, fw = int(2 * self.Wy * self.ppm), int(2 * self.Wx * self.ppm)
        self.floor_tex = make_surface(self.floor_kind, rng, fh, fw, self.ppm)
        self.wall_kind = str(rng.choice(["wood", "neoprene", "leather", "card", "felt"]))
        self.wall_tex = make_surface(self.wall_kind, rng, 600, 600, 4.0)
        self.table_kind = str(rng.choice(["wood", "card", "neoprene"]))
        self.table_tex = make_surface(self.table_kind, rng, 700, 700, 2.0)
        # lights
        self._lights(rng)
        # dice set
        geo = {"cube_r": rng.uniform(0.9, 1.8), "d12_ri": rng.uniform(9.0, 10.0)}
        self.models = {cmb: DieModel(cmb[0], cmb[1], rng, geo) for cmb in COMBOS}
        # camera effects
        self.exposure = 2 ** rng.uniform(-0.6, 0.45)
        wb = np.exp(rng.normal(0, 0.07, 3))
        self.wb = wb / wb[1]
        self.defocus = rng.uniform(0.25, 1.0)
        self.shot = 10 ** rng.uniform(-3.6, -2.3)
        self.read = rng.uniform(0.001, 0.006)
        self.contrast = rng.uniform(0.0, 0.35)
        self.jpeg = (int(rng.integers(60, 80)), 95)
        vs = rng.uniform(0.05, 0.4)
        yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
        rn = ((xx - cam.cx) ** 2 + (yy - cam.cy) ** 2) / ((W / 2) ** 2 + (H / 2) ** 2)
        cos4 = (self.rays_ss[::SS, ::SS] @ cam.fw.astype(np.float32)) ** 4
        self.vignette = (cos4 * (1 - vs * rn)).astype(np.float32)
        self._render_base()

    # ---------------------------------------------------------- lights
    def _lights(self, rng):
        cam = self.cam
        kinds = ["ring", "ceiling", "desk", "window"]
        main = str(rng.choice(kinds, p=[0.3, 0.3, 0.2, 0.2]))
        nex = int(rng.choice([0, 1, 2], p=[0.4, 0.45, 0.15]))
        others = [k for k in kinds if k != main]
        extra = list(rng.choice(others, nex, replace=False)) if nex else []
        ws = [1.0] + [rng.uniform(0.2, 0.6) for _ in extra]
        ws = np.array(ws) / sum(ws)
        self.lights = []
        for kind, w in zip([main] + extra, ws):
            if kind == "ring":
                off = rng.normal(0, 15, 3)
                off[2] = abs(off[2])
                L = Light("ring", kelvin_rgb(rng.uniform(4800, 6500)), pos=cam.C + off, size=rng.uniform(60, 140),
                          max_shin=250, spec=1.0)
            elif kind == "ceiling":
                L = Light("ceiling", kelvin_rgb(rng.uniform(2700, 5000)),
                          pos=(rng.uniform(-600, 600), rng.uniform(-600, 600), rng.uniform(1200, 2200)),
                          size=rng.uniform(150, 500), max_shin=60, spec=0.8)
            elif kind == "desk":
                az = rng.uniform(0, 2 * math.pi)
                hd = rng.uniform(250, 550)
                pos = np.array([hd * math.cos(az), hd * math.sin(az), rng.uniform(200, 450)])
                tgt = np.array([rng.uniform(-60, 60), rng.uniform(-60, 60), 0])
                axis = normalize(tgt - pos)
                inner = math.radians(rng.uniform(20, 40))
                outer = inner + math.radians(rng.uniform(10, 30))
                L = Light("desk", kelvin_rgb(rng.uniform(2700, 4200)), pos=pos, size=rng.uniform(30, 100),
                          max_shin=300, spec=1.0, spot=(axis, math.cos(inner), math.cos(outer)))
            else:
                az = rng.uniform(0, 2 * math.pi)
                el = math.radians(rng.uniform(20, 55))
                dr = np.array([math.cos(el) * math.cos(az), math.cos(el) * math.sin(az), math.sin(el)])
                L = Light("window", kelvin_rgb(rng.uniform(5500, 9000)), direction=dr,
                          size=rng.uniform(0.1, 0.35), max_shin=25, spec=0.5,
                          grad=(-np.array([math.cos(az), math.sin(az)]), rng.uniform(0.05, 0.3)))
            L.normalise(w)
            self.lights.append(L)
        self.amb = rng.uniform(0.12, 0.4)
        self.amb_col = kelvin_rgb(rng.uniform(4000, 7500))

    # ---------------------------------------------------------- static background
    def _render_base(self):
        cam, W, H = self.cam, self.W, self.H
        d = self.rays_ss.reshape(-1, 3).astype(np.float64)
        C = cam.C
        Wx, Wy, Hw, rw, Tb = self.Wx, self.Wy, self.Hw, self.rim, self.Tb
        M = len(d)
        tH = (Hw - C[2]) / d[:, 2]
        pH = C + tH[:, None] * d
        inH = (np.abs(pH[:, 0]) < Wx) & (np.abs(pH[:, 1]) < Wy)
        t0 = -C[2] / d[:, 2]
        p0 = C + t0[:, None] * d
        inF = (np.abs(p0[:, 0]) < Wx) & (np.abs(p0[:, 1]) < Wy)
        cls = np.full(M, 3, np.int8)  # 0 floor 1 wall 2 rim 3 table 4 outer wall
        cls[inH & inF] = 0
        cls[inH & ~inF] = 1
        inO = (np.abs(pH[:, 0]) < Wx + rw) & (np.abs(pH[:, 1]) < Wy + rw)
        cls[~inH & inO] = 2
        P = p0.copy()
        Nn = np.zeros((M, 3))
        Nn[:, 2] = 1
        # inner walls
        m = np.nonzero(cls == 1)[0]
        dm = d[m]
        with np.errstate(divide="ignore", invalid="ignore"):
            tx = (np.sign(dm[:, 0]) * Wx - C[0]) / dm[:, 0]
            ty = (np.sign(dm[:, 1]) * Wy - C[1]) / dm[:, 1]
        tx = np.where(np.isfinite(tx), tx, np.inf)
        ty = np.where(np.isfinite(ty), ty, np.inf)
        tw = np.minimum(tx, ty)
        P[m] = C + tw[:, None] * dm
        nx = np.where(tx < ty, -np.sign(dm[:, 0]), 0)
        ny = np.where(tx < ty, 0, -np.sign(dm[:, 1]))
        Nn[m] = np.stack([nx, ny, np.zeros_like(nx)], 1)
        # rim
        m2 = cls == 2
        P[m2] = pH[m2]
        # table & outer wall
        m3 = np.nonzero(cls == 3)[0]
        tT = (-Tb - C[2]) / d[m3, 2]
        pT = C + tT[:, None] * d[m3]
        P[m3] = pT
        inOT = (np.abs(pT[:, 0]) < Wx + rw) & (np.abs(pT[:, 1]) < Wy + rw)
        mo = m3[inOT]
        if len(mo):
            dm = d[mo]
            with np.errstate(divide="ignore", invalid="ignore"):
                tx = (-np.sign(dm[:, 0]) * (Wx + rw) - C[0]) / dm[:, 0]
                ty = (-np.sign(dm[:, 1]) * (Wy + rw) - C[1]) / dm[:, 1]
            tx = np.where(np.isfinite(tx), tx, -np.inf)
            ty = np.where(np.isfinite(ty), ty, -np.inf)
            ti = np.maximum(tx, ty)
            P[mo] = C + ti[:, None] * dm
            nx = np.where(tx > ty, -np.sign(dm[:, 0]), 0)
            ny = np.where(tx > ty, 0, -np.sign(dm[:, 1]))
            Nn[mo] = np.stack([nx, ny, np.zeros_like(nx)], 1)
            cls[mo] = 4
        self.cls_ss = cls
        # albedo
        H2, W2 = H * SS, W * SS
        P2 = P.reshape(H2, W2, 3)
        fl = remap(self.floor_tex, (P2[..., 0] + Wx) * self.ppm - 0.5, (P2[..., 1] + Wy) * self.ppm - 0.5,
                   cv2.BORDER_REFLECT)
        s_w = np.where(np.abs(Nn[:, 0]) > 0.5, P[:, 1], P[:, 0]).reshape(H2, W2)
        wa = remap(self.wall_tex, (s_w + 1000) * 4.0, (Hw - P2[..., 2] + 1000) * 4.0, cv2.BORDER_WRAP)
        ra = remap(self.wall_tex, (P2[..., 0] + 1000) * 4.0, (P2[..., 1] + 1000) * 4.0, cv2.BORDER_WRAP)
        ta = remap(self.table_tex, (P2[..., 0] + 3000) * 2.0, (P2[..., 1] + 3000) * 2.0, cv2.BORDER_WRAP)
        c2 = cls.reshape(H2, W2)[..., None]
        alb = np.where(c2 == 0, fl, np.where((c2 == 1) | (c2 == 4), wa * 0.85, np.where(c2 == 2, ra, ta)))
        # lighting
        Es = []
        floor = cls == 0
        for L in self.lights:
            l, E = L.eval(P, Nn)
            # wall shadows on the floor
            idx = np.nonzero(floor)[0]
            pf = P[idx]
            if L.pos is not None:
                v = L.pos[None, :] - pf
            else:
                v = np.broadcast_to(L.dir * 5000.0, pf.shape)
            with np.errstate(divide="ignore", invalid="ignore"):
                sx = (np.sign(v[:, 0]) * Wx - pf[:, 0]) / v[:, 0]
                sy = (np.sign(v[:, 1]) * Wy - pf[:, 1]) / v[:, 1]
            se = np.minimum(np.where(np.isfinite(sx), sx, np.inf), np.where(np.isfinite(sy), sy, np.inf))
            ze = se * v[:, 2]
            vn = np.linalg.norm(v, axis=1)
            dist_edge = se * vn
            if L.pos is not None:
                pen = L.size * dist_edge / np.maximum(vn * (1 - se), 10) + 0.3
            else:
                pen = L.size * dist_edge + 0.3
            vis = np.where(se >= 1, 1.0, smoothstep(-pen, pen, ze - Hw))
            E[idx] *= vis
            Es.append(E.reshape(H2, W2))
        # ambient with wall occlusion
        amb = 0.6 + 0.4 * Nn[:, 2]
        dw = np.minimum(Wx - np.abs(P[:, 0]), Wy - np.abs(P[:, 1]))
        amb = np.where(floor, amb * (1 - 0.4 * np.exp(-np.maximum(dw, 0) / (0.5 * Hw))), amb)
        amb = np.where(cls == 1, amb * (0.65 + 0.35 * np.clip(P[:, 2] / Hw, 0, 1)), amb)
        # downsample
        ds = lambda a: cv2.resize(a.astype(np.float32), (W, H), interpolation=cv2.INTER_AREA)
        self.albedo = ds(alb)
        self.E = [ds(E) for E in Es]
        self.Eamb = ds(amb.reshape(H2, W2))
        self.floor_mask = ds(floor.reshape(H2, W2).astype(np.float32))

    # ---------------------------------------------------------- placement
    def _frame_ok(self, die, margin=4):
        uv = self.cam.project(die.verts_w)
        return (uv[:, 0].min() >= margin and uv[:, 1].min() >= margin and uv[:, 0].max() <= self.W - 1 - margin
                and uv[:, 1].max() <= self.H - 1 - margin)

    def _tray_ok(self, die):
        P = die.samples_w
        if not ((np.abs(P[:, 0]) <= self.Wx - 0.3).all() and (np.abs(P[:, 1]) <= self.Wy - 0.3).all()):
            return False
        # the line of sight to every point must pass over the wall top (no die hidden behind a wall)
        C = self.cam.C
        low = P[P[:, 2] < self.Hw]
        s = (C[2] - self.Hw) / (C[2] - low[:, 2])
        X = C + (low - C) * s[:, None]
        return bool((np.abs(X[:, 0]) <= self.Wx).all() and (np.abs(X[:, 1]) <= self.Wy).all())

    def _rand_floor_xy(self, margin=30):
        rng = self.rng
        u = rng.uniform(margin, self.W - margin)
        v = rng.uniform(margin, self.H - margin)
        p = self.cam.floor_point(u, v, z=8.0)
        return p[0], p[1]

    def _flat(self, model, fi, yaw, x, y):
        R = rot_z(yaw) @ model.align[fi]
        return Die(model, R, (x, y, model.h[fi]), False)

    def _tilted(self, model, fi, u, alpha):
        R0 = model.align[fi]
        nw = (R0 @ model.N.T).T
        if model.shape == "cube":
            cand = np.nonzero(np.abs(nw[:, 2]) < 0.1)[0]
        else:
            cand = np.nonzero((nw[:, 2] < -0.2) & (nw[:, 2] > -0.7))[0]
        c = cand[self.rng.integers(len(cand))]
        psi = math.atan2(nw[c, 1], nw[c, 0])
        phi = math.atan2(u[1], u[0])
        Rf = rot_z(phi - psi) @ R0
        k = np.array([-u[1], u[0], 0.0])
        R = rodrigues(k, alpha) @ Rf
        core = model.core @ R.T
        zc = -core[:, 2].min() + (model.r if model.shape == "cube" else 0.0)
        return R, zc

    def _clear(self, die, others, margin):
        return all(not penetrate(die, o, margin) for o in others)

    def place_single(self, model, fi):
        for _ in range(500):
            x, y = self._rand_floor_xy(20)
            die = self._flat(model, fi, self.rng.uniform(0, 2 * math.pi), x, y)
            if self._tray_ok(die) and self._frame_ok(die):
                return die
        raise RuntimeError("cannot place single die")

    def layout(self, n):
        rng = self.rng
        dice = []
        for _ in range(n):
            model = self.models[COMBOS[rng.integers(len(COMBOS))]]
            fi = int(rng.integers(len(model.N)))
            placed = None
            u = rng.random()
            mode = "tilt" if u < 0.17 else ("touch" if u < 0.17 + 0.33 else "free")
            for attempt in range(60):
                flats = [d for d in dice if not d.tilted]
                m = mode if attempt < 40 else "free"
                if m == "tilt":
                    placed = self._try_tilt(model, fi, dice, flats)
                elif m == "touch" and flats:
                    placed = self._try_touch(model, fi, dice, flats)
                else:
                    x, y = self._rand_floor_xy(25)
                    die = self._flat(model, fi, rng.uniform(0, 2 * math.pi), x, y)
                    if self._tray_ok(die) and self._frame_ok(die) and self._clear(die, dice, rng.uniform(1.0, 6.0)):
                        placed = die
                if placed is not None:
                    break
            if placed is not None:
                dice.append(placed)
        return dice

    def _try_touch(self, model, fi, dice, flats):
        rng = self.rng
        A = flats[rng.integers(len(flats))]
        phi = rng.uniform(0, 2 * math.pi)
        u = np.array([math.cos(phi), math.sin(phi)])
        yaw = rng.uniform(0, 2 * math.pi)
        lo, hi = 0.0, 40.0
        for _ in range(18):
            mid = 0.5 * (lo + hi)
            die = self._flat(model, fi, yaw, A.t[0] + u[0] * mid, A.t[1] + u[1] * mid)
            if penetrate(die, A, 0.0):
                lo = mid
            else:
                hi = mid
        die = self._flat(model, fi, yaw, A.t[0] + u[0] * (hi + 0.05), A.t[1] + u[1] * (hi + 0.05))
        others = [d for d in dice if d is not A]
        if self._tray_ok(die) and self._frame_ok(die) and self._clear(die, others, 1.0) and \
                not penetrate(die, A, -0.02):
            return die
        return None

    def _try_tilt(self, model, fi, dice, flats):
        rng = self.rng
        amax = 35.0 if model.shape == "cube" else 25.0
        alpha = math.radians(rng.uniform(15, amax))
        if flats and rng.random() < 0.75:
            A = flats[rng.integers(len(flats))]
            phi = rng.uniform(0, 2 * math.pi)
            u = np.array([math.cos(phi), math.sin(phi)])
            R, zc = self._tilted(model, fi, u, alpha)
            lo, hi = 0.0, 45.0
            for _ in range(18):
                mid = 0.5 * (lo + hi)
                die = Die(model, R, (A.t[0] + u[0] * mid, A.t[1] + u[1] * mid, zc), True)
                if penetrate(die, A, 0.0):
                    lo = mid
                else:
                    hi = mid
            die = Die(model, R, (A.t[0] + u[0] * (hi + 0.03), A.t[1] + u[1] * (hi + 0.03), zc), True)
            others = [d for d in dice if d is not A]
            if penetrate(die, A, -0.02):
                return None
        else:
            side = int(rng.integers(4))
            u = np.array([[1, 0], [-1, 0], [0, 1], [0, -1]][side], float)
            wallpos = [-self.Wx, self.Wx, -self.Wy, self.Wy][side]
            R, zc = self._tilted(model, fi, u, alpha)
            rel = model.samples @ R.T
            along = rel[:, :2] @ u
            x, y = self._rand_floor_xy(25)
            p = np.array([x, y])
            coord = -(abs(wallpos)) - along.min() + 0.05  # position along u measured from centre
            p = p - (p @ u) * u + coord * u
            die = Die(model, R, (p[0], p[1], zc), True)
            others = dice
            # the wall must be reasonably close to be plausible in frame; frame check does the rest
        if self._tray_ok(die) and self._frame_ok(die) and self._clear(die, others, 1.0):
            return die
        return None

    # ---------------------------------------------------------- rendering
    def _shade(self, model, pw, nw, v, ink, lscale):
        alb = model.body[None, :] * (1 - ink[:, None]) + model.ink[None, :] * ink[:, None]
        ao = 0.45 + 0.55 * np.clip(pw[:, 2] / 6.0, 0, 1)
        col = alb * (self.amb_col[None, :] * (self.amb * (0.55 + 0.45 * nw[:, 2]) * ao)[:, None])
        ndv = np.clip((nw * v).sum(1), 0, 1)
        for L, ls in zip(self.lights, lscale):
            l, E = L.eval(pw)
            E = E * ls
            ndl = np.maximum((nw * l).sum(1), 0)
            col += alb * (L.col[None, :] * (E * ndl)[:, None])
            hv = normalize(l + v)
            ndh = np.maximum((nw * hv).sum(1), 0)
            th = math.hypot(model.lobe, L.lobe)
            shin = 0.693 / (1 - math.cos(th))
            peak = min(3.0, (math.radians(3.0) / th) ** 2)
            ks = model.ks * (1 - 0.6 * ink)
            sp = ks * peak * ndh ** shin * (ndl > 0) * E
            col += L.col[None, :] * sp[:, None]
        F = 0.04 + 0.96 * (1 - ndv) ** 5
        col += (self.amb_col * self.amb * 0.8)[None, :] * (F * model.ks)[:, None]
        return col

    def render(self, dice, rng):
        W, H, cam = self.W, self.H, self.cam
        lscale = [1 + rng.normal(0, 0.015) for _ in self.lights]
        gscale = 1 + rng.normal(0, 0.02)
        # shadows and AO on floor
        S = [np.zeros((H, W), np.float32) for _ in self.lights]
        AO = np.zeros((H, W), np.float32)
        dist = np.linalg.norm(cam.C)
        pxmm = cam.f / dist
        for d in dice:
            pts = d.verts_w
            for i, L in enumerate(self.lights):
                fpts = L.floor_proj(pts)
                uv = cam.project(fpts)
                if not np.isfinite(uv).all():
                    continue
                hull = cv2.convexHull(np.round(uv * 16).astype(np.int32))
                cv2.fillConvexPoly(S[i], hull, 1.0, cv2.LINE_AA, 4)
            fp = pts.copy()
            fp[:, 2] = 0
            hull = cv2.convexHull(np.round(cam.project(fp) * 16).astype(np.int32))
            cv2.fillConvexPoly(AO, hull, 1.0, cv2.LINE_AA, 4)
        light = self.amb_col[None, None, :] * self.amb * self.Eamb[..., None]
        if dice:
            AO = cv2.GaussianBlur(AO, (0, 0), max(0.5, 2.5 * pxmm))
            light = light * (1 - 0.65 * AO * self.floor_mask)[..., None]
        for i, L in enumerate(self.lights):
            E = self.E[i] * lscale[i]
            if dice:
                sig = max(0.6, 0.5 * L.penumbra_mm() * pxmm)
                Si = (0.45 * cv2.GaussianBlur(S[i], (0, 0), max(0.5, 0.35 * sig)) +
                      0.55 * cv2.GaussianBlur(S[i], (0, 0), sig * 1.3)) * self.floor_mask
                E = E * (1 - 0.97 * Si)
            if dice:
                E = E * (1 - 0.3 * AO * self.floor_mask)
            light = light + L.col[None, None, :] * E[..., None]
        img = self.albedo * light
        vis = []
        if dice:
            img, vis = self._render_dice(dice, img, lscale)
        # camera
        img = img * (self.exposure * gscale * 0.72 / (0.85 * (1 + self.amb)))
        img = img * (self.wb * np.exp(rng.normal(0, 0.01, 3)))[None, None, :] * self.vignette[..., None]
        sig = self.defocus * rng.uniform(0.85, 1.15)
        img = cv2.GaussianBlur(img.astype(np.float32), (0, 0), sig)
        if rng.random() < 0.08:
            ln = rng.uniform(2, 5)
            ang = rng.uniform(0, math.pi)
            ks = int(math.ceil(ln)) * 2 + 1
            k = np.zeros((ks, ks), np.float32)
            c = ks // 2
            cv2.line(k, (int(round(c - math.cos(ang) * ln / 2)), int(round(c - math.sin(ang) * ln / 2))),
                     (int(round(c + math.cos(ang) * ln / 2)), int(round(c + math.sin(ang) * ln / 2))), 1.0, 1,
                     cv2.LINE_AA)
            img = cv2.filter2D(img, -1, k / k.sum())
        img = np.maximum(img, 0)
        noise = rng.standard_normal(img.shape).astype(np.float32)
        img = img + noise * np.sqrt(img * self.shot + self.read ** 2)
        img = np.clip(img, 0, 1) ** (1 / 2.2)
        img = img * (1 - self.contrast) + self.contrast * (img * img * (3 - 2 * img))
        out = np.clip(img * 255 + 0.5, 0, 255).astype(np.uint8)
        out = cv2.cvtColor(out, cv2.COLOR_RGB2BGR)
        q = int(rng.integers(self.jpeg[0], self.jpeg[1] + 1))
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, q])
        out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
        return out, vis

    def _render_dice(self, dice, img, lscale):
        cam = self.cam
        W2, H2 = self.W * SS, self.H * SS
        boxes = []
        for d in dice:
            uv = cam.project(d.verts_w)
            j0 = int(math.floor(SS * (uv[:, 0].min() + 0.5))) - 4
            j1 = int(math.ceil(SS * (uv[:, 0].max() + 0.5))) + 4
            i0 = int(math.floor(SS * (uv[:, 1].min() + 0.5))) - 4
            i1 = int(math.ceil(SS * (uv[:, 1].max() + 0.5))) + 4
            boxes.append((max(0, i0), min(H2, i1), max(0, j0), min(W2, j1)))
        I0 = min(b[0] for b in boxes) // SS * SS
        I1 = -(-max(b[1] for b in boxes) // SS) * SS
        J0 = min(b[2] for b in boxes) // SS * SS
        J1 = -(-max(b[3] for b in boxes) // SS) * SS
        h, w = I1 - I0, J1 - J0
        zb = np.full(h * w, np.inf, np.float32)
        idb = np.full(h * w, -1, np.int16)
        col = np.zeros((h * w, 3), np.float32)
        own = []
        for k, (d, (i0, i1, j0, j1)) in enumerate(zip(dice, boxes)):
            dirs = self.rays_ss[i0:i1, j0:j1].reshape(-1, 3).astype(np.float64)
            o_l = d.R.T @ (cam.C - d.t)
            d_l = dirs @ d.R
            sel, t, p, n, ink = d.model.intersect(o_l, d_l)
            own.append(len(sel))
            if len(sel) == 0:
                continue
            ii, jj = np.divmod(sel, j1 - j0)
            flat = (ii + i0 - I0) * w + (jj + j0 - J0)
            front = t < zb[flat]
            sel, t, n, ink, flat = sel[front], t[front], n[front], ink[front], flat[front]
            zb[flat] = t
            idb[flat] = k
            dw = dirs[sel]
            pw = cam.C + t[:, None] * dw
            nw = n @ d.R.T
            col[flat] = self._shade(d.model, pw, nw, -dw, ink, lscale)
        vis = [float((idb == k).sum()) / max(own[k], 1) for k in range(len(dice))]
        cov = (idb >= 0).astype(np.float32).reshape(h // SS, SS, w // SS, SS).mean((1, 3))
        cds = col.reshape(h // SS, SS, w // SS, SS, 3).mean((1, 3))
        y0, x0 = I0 // SS, J0 // SS
        reg = img[y0:y0 + h // SS, x0:x0 + w // SS]
        img[y0:y0 + h // SS, x0:x0 + w // SS] = reg * (1 - cov[..., None]) + cds
        return img, vis

    def describe(self):
        c = self.cam
        return ("cam h=%.0fmm tilt=%.1fdeg roll=%.0fdeg f=%.0fpx die~%.0fpx k1=%.2f floor=%s walls=%s "
                "tray=%.0fx%.0fmm lights=%s amb=%.2f defocus=%.2f" % (
                    c.height, math.degrees(c.tilt), c.roll, c.f, c.die_px, c.k1, self.floor_kind, self.wall_kind,
                    2 * self.Wx, 2 * self.Wy, "+".join(L.kind for L in self.lights), self.amb, self.defocus))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--trays", type=int, default=80)
    ap.add_argument("--width", type=int, default=640)
    ap.add_argument("--height", type=int, default=480)
    a = ap.parse_args()
    t0 = time.time()
    tw = Tower(a.seed, a.width, a.height)
    t1 = time.time()
    rng = tw.rng
    out = a.out
    for sub in ("empty", "teach", "trays"):
        os.makedirs(os.path.join(out, sub), exist_ok=True)
    for k in range(1, 4):
        im, _ = tw.render([], rng)
        cv2.imwrite(os.path.join(out, "empty", "empty-%d.png" % k), im)
    t2 = time.time()
    nteach = 0
    for (kind, colour) in COMBOS:
        model = tw.models[(kind, colour)]
        dd = os.path.join(out, "teach", kind, colour)
        os.makedirs(dd, exist_ok=True)
        order = (["1", "2", "3", "4", "5", "6"] if kind == "d6pips" else
                 KOTD_FACES if kind == "kotd" else [str(i) for i in range(1, 13)])
        for face in order:
            fi = model.names.index(face)
            for k in range(1, 4):
                die = tw.place_single(model, fi)
                assert die.face == face
                im, _ = tw.render([die], rng)
                cv2.imwrite(os.path.join(dd, "%s-%d.png" % (face, k)), im)
                nteach += 1
    t3 = time.time()
    truth = {"seed": a.seed, "size": [a.width, a.height], "trays": {}}
    ndice = ntilt = 0
    for i in range(1, a.trays + 1):
        n = int(rng.integers(1, 9))
        for attempt in range(12):
            dice = tw.layout(n)
            im, vis = tw.render(dice, rng)
            if all(v >= 0.82 for v in vis):
                break
            if attempt >= 8:  # drop the hidden dice and re-render
                dice = [d for d, v in zip(dice, vis) if v >= 0.82]
                im, vis = tw.render(dice, rng)
                if all(v >= 0.82 for v in vis):
                    break
        name = "tray-%04d.png" % i
        cv2.imwrite(os.path.join(out, "trays", name), im)
        recs = []
        for d in dice:
            uv = tw.cam.project(d.t[None])[0]
            recs.append({"kind": d.model.kind, "colour": d.model.colour, "face": d.face,
                         "x": round(float(uv[0]), 1), "y": round(float(uv[1]), 1), "tilted": bool(d.tilted)})
            ndice += 1
            ntilt += int(d.tilted)
        truth["trays"][name] = recs
    t4 = time.time()
    with open(os.path.join(out, "truth.json"), "w") as f:
        json.dump(truth, f, indent=1)
    print("tray_renderer_b seed=%d %s | teach=%d trays=%d dice=%d tilted=%d | setup %.1fs empty %.1fs teach %.1fs "
          "trays %.1fs total %.1fs" % (a.seed, tw.describe(), nteach, a.trays, ndice, ntilt, t1 - t0, t2 - t1,
                                       t3 - t2, t4 - t3, time.time() - t0), file=sys.stderr)


if __name__ == "__main__":
    main()
