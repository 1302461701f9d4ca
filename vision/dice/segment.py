"""Finding the dice in a tray frame: the empty-tray model, the foreground, touching dice
split apart, and each die's silhouette and top face.

All of it is plain OpenCV on one frame; :mod:`vision.dice.reader` turns the blobs into
readings.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from .model import DiceError

# foreground thresholds (CIE Lab, L in 0..100)
CHROMA_T = 9.0  # a die whose colour differs from the tray's by this much
LIGHTER_T = 10.0  # a die this much lighter than the tray
# or, over a window of LIGHTER_WINDOW pixels, lighter by LIGHTER_SOFT on average and each
# pixel by LIGHTER_LEAST: a white die on a light grey tray (cardboard under an overhead
# light) is only 5 to 10 lighter, a coherent step a camera's noise of a few units hides
LIGHTER_SOFT, LIGHTER_WINDOW, LIGHTER_LEAST = 5.0, 5, 3.0
DARKER_RATIO = 0.60  # a die darker than this fraction of the tray's L (shadows stay above it)
SEAM_RATIO = 0.09  # a dark line (edge between dice or faces) this much darker than around it
SAME_SHADE = 0.06  # parts of a die this close in lightness are one face
MIN_AREA_PX = 180  # smaller foreground is crumbs, not a die
DIM_RATIO = 0.8  # a coloured pixel darker than this fraction of the tray's L may be shadow
NEUTRAL_OF_TINT = 0.35  # a dark pixel this much less colourful than the tray is no shadow,
NEUTRAL_LEAST = 14.0  # where the tray at its lightness would be this colourful (else the
# difference is within the 8-bit Lab's noise of a few units: a shadow on a greyish tray, or
# the soft edge of a blurred die, is grey too)
SHADOW_TINT = 25.0  # (a, b) this far from the line from grey to the tray's colour: no shadow
SHADOW_FEATURES = 0.03  # share of a dark region lighter, coloured or inked: a die, not shadow
SHADOW_LEAST = 0.15  # of the part: a shadow is this large
# a light piece the dark region rings for this share of the band round it is a mark on a
# black die (its symbol reaching the die's edge), if it holds at least MARK_LEAST pixels
RINGED_MARK, MARK_LEAST, MARK_MOST = 0.8, 20, 0.25
LIT_OF_TRAY = 0.8  # inside a dark region, this share of the tray's lightness is no shadow
# A black die's body and the hard shadow it casts make one dark region, which the die's marks
# keep whole (_without_shadow): the die was found with its shadow, its centre in it. The
# shadow is the tray lit by all but the lamp; a black die is darker. So the dark region's
# part lighter than DEEP_RATIO of the tray's light is a shadow where it is broad and holds no
# mark, as a dark region is. On the fifth renderer's light tray e313 its shadows are 0.40 to
# 0.56 of the tray's light, its black dice 0.03 to 0.37. Chosen on the 17 tuning towers from
# 0.35, 0.4 and 0.45 (flat dice clean and right 1,823, 1,831, 1,829 of 2,692; 1,834 without),
# then measured on the 45 others (docs/vision.md, "A black die cut from its shadow")
DEEP_RATIO = 0.4
# ink on a die's shaded side: a mark this much darker than around it, and than the side
INK_RATIO, INK_FLOOR, INK_SHADE = 0.3, 6.0, 0.6
TEXTURE_WINDOW = 9  # pixels: the tray's texture compared over squares this large
TEXTURE_SEEN = 0.6  # the frame's median correlation with the empty tray: a textured tray
TEXTURE_LEAST = 2.0  # grey levels of the empty tray's own detail (9x9 spread) that count
TEXTURE_HIDDEN = 0.25  # less correlated than this: something covers the tray
# A tray's detail counts as its weave only where it is stronger than the camera's noise (when
# the profile knows the noise: several empty-tray frames, Background's ``noise``): its
# variance, less what noise leaves in the mean of the frames, at least TEXTURE_OVER_NOISE
# times the noise's in one frame. A dark tray wall's noise is no weave: each frame's differs,
# so a frame never correlates with the empty tray there, and the wall was taken for a die
# that hides the weave (bench/tray_renderer_b.py tower 101: 113 of its 126 teaching pictures
# refused as "2 dice found")
TEXTURE_OVER_NOISE = 1.0
NOISE_LEVELS = 16  # the noise curve: the noise's spread in each sixteenth of the grey levels
# A noisy camera's dice are found in its frames smoothed (teaching and reading alike, the
# empty tray with them), then read from the frames as they were taken (as_seen_in): a
# Gaussian blur of SMOOTH_PER_NOISE times one frame's noise at the empty tray's own grey level
# (pixels of sigma), where that noise is over SMOOTH_FROM grey levels, at most SMOOTH_MAX.
# Noise breaks a die's outline into crumbs and its shadow's edge into teeth; a blur of a pixel
# or so does not move an outline. Chosen on the tuning towers of the second and third
# independent renderers (b100-b103, b107, b116-b119, c10-c15, c58, c62: noise 0.7 to 8.8),
# everything read smoothed: flat dice clean and right 63.6 -> 69.1 %, dice clean with a wrong
# face 17 -> 8 (of 3,140), tilted dice flagged 82.1 -> 82.8 % (at 0.125 per grey level 67.2 %
# with 17 wrong, at 0.25 68.5 % with 10, from 5 grey levels 67.0 %, from 3 67.9 %); the
# noisiest tower, c62, 3.6 -> 41.3 % (29.3 % as shipped). Read smoothed throughout, fresh
# towers read more wrong faces (20 -> 25 of 2,618 dice: a 6 whose pips ran together read as
# a 2, a pip die taken for a symbol die by the taught-face network, which learned from noisy
# crops); found smoothed and read as taken, 20 -> 14 (tuning towers 68.4 %, 12 wrong, 84.4 %
# flagged). docs/vision.md.
SMOOTH_FROM = 4.0
SMOOTH_PER_NOISE = 0.2
SMOOTH_MAX = 2.0
CAMOUFLAGED = 0.5  # a part whose colour shows less of where the weave stops than this


def quantiles(values: np.ndarray, qs: tuple[float, ...]) -> list[float]:
    """``np.percentile(values, qs)`` (linear interpolation, the same numbers) by partial
    sorting: several times quicker on the few thousand values of one die."""
    v = np.asarray(values).ravel()
    n = v.size
    pos = [q / 100.0 * (n - 1) for q in qs]
    ks = sorted({int(math.floor(p)) for p in pos} | {int(math.ceil(p)) for p in pos})
    part = np.partition(v, ks)
    out = []
    for p in pos:
        lo, hi = int(math.floor(p)), int(math.ceil(p))
        a, b = float(part[lo]), float(part[hi])
        out.append(a + (b - a) * (p - lo))
    return out



@dataclass(frozen=True)
class Unexplained:
    """A place where something that is not the empty tray was seen, of which no die was made:
    a dark piece the shadow cut took away (``around`` False: a die found there lies in
    ``mask``), or a mark too small to be a die (True: a die may lie round it). ``mask``: uint8
    0/255, its box starting at ``x0, y0`` in the frame."""

    x0: int
    y0: int
    mask: np.ndarray
    around: bool


@dataclass
class Blob:
    """One die candidate: its silhouette and top face, in frame pixels."""

    x0: int
    y0: int
    mask: np.ndarray  # silhouette (uint8 0/255) in the box starting at x0, y0
    top: np.ndarray  # the top face's pixels, same box
    area: float
    cx: float  # silhouette centroid
    cy: float
    top_area: float
    top_cx: float
    top_cy: float
    rect: tuple  # cv2.minAreaRect of the silhouette (frame coordinates)
    top_rect: tuple  # the same for the top face
    circularity: float  # of the convex hull: 1 for a disc, 0.785 for a square
    solidity: float  # area / convex hull area
    L: np.ndarray  # the frame's CIE L (0..100) over the box
    Lbg: np.ndarray  # the empty tray's, at the frame's light
    contour: np.ndarray | None = None  # the silhouette's outline, every pixel, in the box

    @property
    def size(self) -> float:
        return math.sqrt(self.area)

    @property
    def aspect(self) -> float:
        w, h = self.rect[1]
        return max(w, h) / max(1e-6, min(w, h))

    @property
    def rectangularity(self) -> float:
        w, h = self.rect[1]
        return self.area / max(1e-6, w * h)

    @property
    def top_offset(self) -> float:
        """Top face centre to silhouette centre, over the die's size."""
        return math.hypot(self.top_cx - self.cx, self.top_cy - self.cy) / self.size

    @property
    def top_fraction(self) -> float:
        return self.top_area / self.area


# the empty tray's floor: its colour, within this (CIE Lab) or this many times the tray's
# median difference from it (Background.wall_distance). On twelve towers of the independent
# renderers a floor's light and colour stray from its median by up to 9 to 20, walls and
# rims by 27 to 60; a fifth less light in the corners is 10
WALL_COLOUR = 15.0
WALL_SPREAD = 4.0
WALL_SCALE = 4  # the map's pixels are this many of the frame's across


class Background:
    """The empty tray: a mean image (from one or more frames), its CIE Lab at full and half
    size (the dice are found at half size, then measured at full size)."""

    def __init__(self, mean_bgr: np.ndarray, noise: Sequence[float] | None = None,
                 frames: int = 1, windows: tuple[np.ndarray, np.ndarray] | None = None,
                 smoothing: float = 0.0) -> None:
        """``noise``: the camera's noise (one frame's grey-level spread) at each of
        NOISE_LEVELS grey levels (:func:`noise_curve`), the mean made of ``frames`` frames;
        None where it is not known (one frame): any detail counts as the tray's weave.
        ``windows``: :meth:`window_stats` of this very image (smoothed as below), kept ready
        (a profile's ready file: worked out at every `dice read`, they cost 1.7 ms), else
        worked out when needed. ``smoothing``: the blur (pixels of sigma) every frame of this
        camera gets before dice are looked for in it (:func:`smoothing_for`,
        :func:`denoised`); the empty tray gets it too."""
        if mean_bgr.ndim != 3 or mean_bgr.shape[2] != 3:
            raise DiceError(f"the background must be a colour image, not shape {mean_bgr.shape}")
        self.noise = None if noise is None else np.asarray(noise, np.float32)
        self.frames = max(1, frames)
        self.smoothing = float(smoothing)
        self.mean = _smoothed(np.asarray(mean_bgr, np.float32), self.smoothing)  # (read only)
        self.height, self.width = self.mean.shape[:2]
        self.gray = cv2.cvtColor(self.mean, cv2.COLOR_BGR2GRAY)
        self.half = (self.width // 2, self.height // 2)
        small = cv2.resize(self.mean, self.half, interpolation=cv2.INTER_AREA)
        self.lab_half = _lab8(np.clip(small + 0.5, 0, 255).astype(np.uint8))  # as frames are
        self._texture: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
        self._woven_full: np.ndarray | None = None
        self._sampled: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
        self._sampled_yet = False
        self._windows = windows
        self._floor: tuple[float, np.ndarray | None] | None = None
        self._balance_ref: np.ndarray | None = None
        self._edges_half: np.ndarray | None = None
        step = 4
        self._sub = (slice(None, None, step), slice(None, None, step))
        self._gray_sub = np.maximum(self.gray[self._sub], 1.0)

    def balance_ref(self) -> np.ndarray:
        """The empty tray's colour at every BALANCE_STEP-th pixel (:func:`balanced`)."""
        if self._balance_ref is None:
            self._balance_ref = np.maximum(
                self.mean[::BALANCE_STEP, ::BALANCE_STEP].reshape(-1, 3), 1.0)
        return self._balance_ref

    def edges_half(self) -> np.ndarray:
        """How strong an edge each pixel of the empty tray lies on, at half size, in its L
        as frames are measured (:func:`_edge_strength`; worked out once)."""
        if self._edges_half is None:
            self._edges_half = _edge_strength(np.ascontiguousarray(self.lab_half[:, :, 0]))
        return self._edges_half

    def lab_box(self, y0: int, y1: int, x0: int, x1: int) -> np.ndarray:
        """CIE Lab of the empty tray over a box (worked out where dice lie, not over the
        whole frame: a reader is made for every `dice read`)."""
        return cv2.cvtColor(np.clip(self.mean[y0:y1, x0:x1] / 255.0, 0, 1), cv2.COLOR_BGR2Lab)

    def sampled_texture(self) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """On every TEXTURE_STEP-th pixel's window: (which are woven, their pixels, their
        spread) where the tray has a weave to see over half of them, else None."""
        if not self._sampled_yet:
            self._sampled_yet = True
            mean, square = self.window_stats()
            spread = np.sqrt(np.maximum(square - mean * mean, 0.0))
            woven = self._woven(spread, mean)
            self._sampled = (woven, mean[woven], spread[woven]) \
                if np.count_nonzero(woven) >= 0.5 * woven.size else None
        return self._sampled

    def window_stats(self) -> tuple[np.ndarray, np.ndarray]:
        """The empty tray's grey mean and mean square over the TEXTURE_WINDOW square round
        every TEXTURE_STEP-th pixel (:func:`_window_means`), float64, one row each."""
        if self._windows is None:
            mean, square = _window_means(self.gray, squares=True)
            self._windows = (mean, square)
        return self._windows

    def wall_distance(self, die_px: float, ys: np.ndarray, xs: np.ndarray) -> float:
        """The least distance (full-size pixels) from the pixels ``ys``, ``xs`` to what is
        not the tray's floor: its walls, its rim, the table beyond, where the empty tray
        shows them. The floor is the largest connected region of the empty tray's own colour
        (blurred over a twelfth of a die, within WALL_COLOUR or WALL_SPREAD times the tray's
        median difference from it, whichever is more: a floor's light falls off towards its
        edges). A tray that fills the frame has no wall: the distance is large. The map is
        worked out once, at a quarter of the frame's size."""
        if self._floor is None or self._floor[0] != die_px:
            f = WALL_SCALE
            small = np.clip(cv2.resize(self.mean, (max(1, self.width // f),
                                                   max(1, self.height // f)),
                                       interpolation=cv2.INTER_AREA) + 0.5, 0, 255
                            ).astype(np.uint8)
            blur = cv2.GaussianBlur(small, (0, 0), max(0.5, die_px / (12.0 * f)))
            lab = _lab8(blur)
            off = cv2.magnitude(*[cv2.absdiff(lab[..., k], float(np.median(lab[..., k])))
                                  for k in (0, 1)])
            off = cv2.magnitude(off, cv2.absdiff(lab[..., 2], float(np.median(lab[..., 2]))))
            floor = (off < max(WALL_COLOUR, WALL_SPREAD * float(np.median(off)))).astype(np.uint8)
            n, labels, stats, _ = cv2.connectedComponentsWithStats(floor)
            if n > 1:
                floor = (labels == 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
                         ).astype(np.uint8)
            dist = None if floor.all() else cv2.distanceTransform(floor * 255, cv2.DIST_L2,
                                                                    cv2.DIST_MASK_PRECISE)
            self._floor = (die_px, dist)
        dist = self._floor[1]
        if dist is None or not len(ys):
            return math.inf
        f = WALL_SCALE
        h, w = dist.shape
        return float(dist[np.minimum(ys // f, h - 1), np.minimum(xs // f, w - 1)].min()) * f

    def texture(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(grey level, its local mean, its local spread) over TEXTURE_WINDOW squares: what
        :func:`covering` compares each frame with (worked out once)."""
        if self._texture is None:
            k = (TEXTURE_WINDOW, TEXTURE_WINDOW)
            mb = cv2.boxFilter(self.gray, -1, k)
            sb = np.sqrt(np.maximum(cv2.sqrBoxFilter(self.gray, -1, k) - mb * mb, 1e-6))
            self._texture = (self.gray, mb, sb)
        return self._texture

    def woven(self) -> np.ndarray:
        """Where the empty tray has a weave to see, pixel by pixel (over TEXTURE_WINDOW
        squares): detail stronger than TEXTURE_LEAST and than the camera's noise (worked out
        once)."""
        if self._woven_full is None:
            _, mb, sb = self.texture()
            self._woven_full = self._woven(sb, mb)
        return self._woven_full

    def _woven(self, spread: np.ndarray, level: np.ndarray) -> np.ndarray:
        woven = spread > TEXTURE_LEAST
        if self.noise is None:
            return woven
        bins = np.clip((level * (NOISE_LEVELS / 256.0)).astype(np.int32), 0, NOISE_LEVELS - 1)
        var = self.noise[bins] ** 2
        return woven & (spread * spread - var / self.frames >= TEXTURE_OVER_NOISE * var)


def smoothing_for(noise: Sequence[float] | None, mean_bgr: np.ndarray) -> float:
    """The blur (pixels of sigma, two decimals) a camera's frames get before dice are
    looked for in them: SMOOTH_PER_NOISE times one frame's noise at the empty tray's median
    grey level, where that is over SMOOTH_FROM grey levels (at most SMOOTH_MAX); 0 where the
    noise is not known (one empty-tray frame) or is lower. ``mean_bgr``: the empty tray, as its PNG keeps it
    (its level is read from the rounded picture, so that a profile loaded again agrees)."""
    if noise is None or len(noise) != NOISE_LEVELS:
        return 0.0
    small = np.clip(np.floor(np.asarray(mean_bgr, np.float32)[::4, ::4] + 0.5), 0, 255
                    ).astype(np.uint8)
    level = float(np.median(cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)))
    at = float(noise[min(NOISE_LEVELS - 1, int(level * NOISE_LEVELS / 256))])
    if at <= SMOOTH_FROM:
        return 0.0
    return round(min(SMOOTH_MAX, SMOOTH_PER_NOISE * at), 2)


def _smoothed(image: np.ndarray, sigma: float) -> np.ndarray:
    return cv2.GaussianBlur(image, (0, 0), sigma) if sigma > 0 else image


def denoised(frame: np.ndarray, bg: Background) -> np.ndarray:
    """The frame the dice are found in: blurred by the tray's camera's ``smoothing`` (a
    noisy camera's), else as it is (the same array)."""
    return _smoothed(frame, bg.smoothing)


def as_seen_in(blobs: list[Blob], seen: np.ndarray, frame: np.ndarray) -> list[Blob]:
    """The dice found in ``seen`` (:func:`denoised` of ``frame``), each with the lightness of
    ``frame``, the same frame unsmoothed, over its box: their outlines are the smoothed
    frame's, their faces, pips and sharpness are read as the camera took them (the networks
    learned from noisy pictures; a blur runs small pips together). Chosen over reading the
    smoothed frame throughout on fresh towers, where that read more wrong faces than the
    code before (docs/vision.md). ``blobs`` as they are where ``seen`` is ``frame``."""
    if seen is frame:
        return blobs
    out = []
    for b in blobs:
        h, w = b.L.shape
        out.append(dataclasses.replace(
            b, L=_lab(frame[b.y0:b.y0 + h, b.x0:b.x0 + w])[:, :, 0].copy()))
    return out


def noise_curve(frames: Sequence[np.ndarray]) -> list[float] | None:
    """The camera's noise from several frames of the empty tray: one frame's grey-level spread
    at each of NOISE_LEVELS grey levels (from the median over the pixels of that level,
    each frame first scaled to the others' light: a flicker is no noise). None from one frame.
    A level no pixel has takes the nearest level's."""
    if len(frames) < 2:
        return None
    grey = [cv2.cvtColor(f, cv2.COLOR_BGR2GRAY).astype(np.float32) for f in frames]
    sub = (slice(None, None, 4), slice(None, None, 4))
    mean = np.maximum(np.mean(grey, axis=0)[sub], 1.0)
    # each frame's light over the mean's (the median ratio, as exposure_gain measures it)
    gains = [max(quantiles(g[sub] / mean, (50,))[0], 1e-3) for g in grey]
    stack = np.stack([g / k for g, k in zip(grey, gains)])
    var = stack.var(axis=0, ddof=1)
    bins = np.clip((stack.mean(axis=0) * (NOISE_LEVELS / 256.0)).astype(np.int32), 0,
                   NOISE_LEVELS - 1)
    # the median of a variance over k = frames - 1 degrees of freedom is about (1 - 2/(9k))^3
    # of the true one (Wilson-Hilferty): 0.70 of it from three frames
    dof = len(frames) - 1
    unbias = (1 - 2 / (9 * dof)) ** 3
    curve: list[float | None] = []
    for b in range(NOISE_LEVELS):
        v = var[bins == b]
        curve.append(math.sqrt(quantiles(v, (50,))[0] / unbias) if v.size >= 50 else None)
    known = {i: c for i, c in enumerate(curve) if c is not None}
    if not known:
        return None
    return [round(known[min(known, key=lambda j: abs(j - i))], 3) for i in range(NOISE_LEVELS)]


def check_frame(frame: np.ndarray, bg: Background, name: str) -> None:
    """A clear error for a frame the reader cannot use at all."""
    if not isinstance(frame, np.ndarray) or frame.dtype != np.uint8:
        raise DiceError(f"{name}: not an 8-bit image")
    if frame.ndim != 3 or frame.shape[2] != 3:
        raise DiceError(f"{name}: not a colour (BGR) image (shape {frame.shape})")
    h, w = frame.shape[:2]
    if (w, h) != (bg.width, bg.height):
        raise DiceError(f"{name}: the image is {w}x{h} but the profile's empty tray is "
                        f"{bg.width}x{bg.height} (same camera and resolution needed)")
    small = frame[::8, ::8]
    mean, std = float(small.mean()), float(small.std())
    if mean < 10 and std < 8:
        raise DiceError(f"{name}: the frame is black (mean level {mean:.1f}): is the light on "
                        f"and the lens uncovered?")
    if mean > 245 and std < 8:
        raise DiceError(f"{name}: the frame is white (mean level {mean:.1f}): overexposed")


def exposure_gain(frame: np.ndarray, bg: Background) -> float:
    """How much brighter the frame is than the empty tray (the median ratio: dice cover little)."""

    g = cv2.cvtColor(frame[bg._sub], cv2.COLOR_BGR2GRAY).astype(np.float32)
    return quantiles(g / bg._gray_sub, (50,))[0]


# a frame whose tray is lit in another colour than the empty tray's (a channel this much
# off), or more than EXPOSURE_FROM brighter or darker, is first brought to the empty tray's
# light (balanced); a smaller change of light alone the reader follows as it is
BALANCE_FROM = 0.06
EXPOSURE_FROM = 0.15
BALANCE_STEP = 8  # (every 8th pixel's row and column is looked at)
BALANCE_LEAST = 30  # the empty tray's least level in every channel where it is looked at


def balanced(frame: np.ndarray, bg: Background) -> tuple[np.ndarray, float]:
    """(the frame brought to the empty tray's light, how much brighter it was). Another lamp,
    the camera's exposure or its white balance scale each colour channel of the whole frame
    (a camera's values are a power of the light: a factor in the light is a factor in them),
    so each channel is divided by its median ratio to the empty tray's (dice cover little of
    the tray; saturated pixels, and where the empty tray is darker than BALANCE_LEAST, left
    out). A change of the light's level alone within EXPOSURE_FROM is left to the reader, which
    follows it (only the colour is taken out then); a frame lit as the empty tray was, within
    BALANCE_FROM in every channel, is returned as it is."""
    light = exposure_gain(frame, bg)
    sub = frame[::BALANCE_STEP, ::BALANCE_STEP].reshape(-1, 3)
    ref = bg.balance_ref()
    # (a ratio of dark values is mostly the camera's noise)
    usable = (sub.max(axis=1) < 250) & (ref.min(axis=1) >= BALANCE_LEAST)
    if np.count_nonzero(usable) < 0.25 * len(sub):
        return frame, light  # a dark tray, or a frame mostly saturated: as it is
    ratios = sub[usable].astype(np.float32) / ref[usable]
    half = len(ratios) // 2
    gains = np.maximum(np.partition(ratios, half, axis=0)[half], 1e-3)
    level = float(np.exp(np.log(gains).mean()))  # the light's change, colour apart
    if abs(level - 1.0) <= EXPOSURE_FROM:
        gains = gains / level  # the colour alone (the reader follows small changes of light)
    if np.abs(gains - 1.0).max() <= BALANCE_FROM:
        return frame, light
    return cv2.transform(frame, np.diag(1.0 / gains).astype(np.float32)), light


_CHROMA2 = np.array([[0, 1, 1]], np.float32)  # a 3-channel pixel -> its a^2 + b^2
_L_ONLY = np.array([[1, 0, 0]], np.float32)


def _differences(lab: np.ndarray, lab_bg: np.ndarray, gain: float
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray, float, np.ndarray]:
    """(another colour, lighter, much darker: each a mask; the light's factor in Lab; how
    much lighter than the tray each pixel is, in L). A few whole-image OpenCV calls (a small
    image's cost is the number of calls)."""
    k = gain ** (1 / 3)  # Lab is roughly a cube root of the light
    d = cv2.scaleAdd(lab_bg, -k, lab)  # the frame minus the tray at the frame's light
    chroma2 = cv2.transform(cv2.multiply(d, d), _CHROMA2)
    lighter = cv2.transform(d, _L_ONLY)
    darker = cv2.transform(cv2.scaleAdd(lab_bg, -DARKER_RATIO * k, lab), _L_ONLY)
    soft = cv2.blur(lighter, (LIGHTER_WINDOW, LIGHTER_WINDOW))
    light = cv2.compare(lighter, LIGHTER_T, cv2.CMP_GT) | (
        cv2.compare(soft, LIGHTER_SOFT, cv2.CMP_GT) & cv2.compare(lighter, LIGHTER_LEAST,
                                                                   cv2.CMP_GT))
    return (cv2.compare(chroma2, CHROMA_T ** 2, cv2.CMP_GT),
            light, cv2.compare(darker, 0, cv2.CMP_LT), k, lighter)


def _fg(lab: np.ndarray, lab_bg: np.ndarray, gain: float) -> tuple[np.ndarray, np.ndarray]:
    """(not the empty tray: a colour away from the tray's, lighter, or much darker (shadows
    stay above DARKER_RATIO); like the tray: its colour, and its L within CAMO_SAME_L, as a
    die of the tray's own shade is (:func:`_camouflaged`))."""
    chroma, lighter, darker, _, dL = _differences(lab, lab_bg, gain)
    like_tray = ~chroma & cv2.compare(cv2.absdiff(dL, 0), CAMO_SAME_L, cv2.CMP_LT)
    return chroma | lighter | darker, like_tray


def _fg_parts(lab: np.ndarray, lab_bg: np.ndarray, gain: float) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_fg` in two parts: what shows a die (lighter, or a colour no shadow on this tray
    has) and what is only dark (a shadow, or a dark die)."""
    chroma, lighter, darker, k, _ = _differences(lab, lab_bg, gain)
    dim = cv2.transform(cv2.scaleAdd(lab_bg, -DIM_RATIO * k, lab), _L_ONLY)
    bright = cv2.compare(dim, 0, cv2.CMP_GE)
    # a shadow's colour is the tray's, darker: its (a, b) lies near the line from grey to
    # the tray's (a, b)
    L, a, b = cv2.split(lab)
    tL, ta, tb = cv2.split(lab_bg)
    tc2 = cv2.max(cv2.add(cv2.multiply(ta, ta), cv2.multiply(tb, tb)), 1.0)
    s = np.clip(cv2.divide(cv2.add(cv2.multiply(a, ta), cv2.multiply(b, tb)), tc2), 0.0, 1.0)
    da, db = cv2.subtract(a, cv2.multiply(s, ta)), cv2.subtract(b, cv2.multiply(s, tb))
    off = cv2.add(cv2.multiply(da, da), cv2.multiply(db, db))
    tinted = cv2.compare(off, SHADOW_TINT ** 2, cv2.CMP_GT)
    # a shadow keeps the tray's colour as it darkens; a black die on a coloured tray is grey
    # (its colourfulness far below what the tray's would be at the same lightness)
    expected = cv2.multiply(cv2.sqrt(tc2), np.clip(cv2.divide(L, cv2.max(tL, 1.0)), 0.0, 1.0))
    grey = cv2.compare(cv2.magnitude(a, b), NEUTRAL_OF_TINT * expected, cv2.CMP_LT) \
        & cv2.compare(expected, NEUTRAL_LEAST, cv2.CMP_GE)
    return (chroma & (bright | tinted | grey)) | lighter, (chroma & ~bright & ~grey) | darker


_LAB8 = np.array([[100 / 255, 0, 0, 0], [0, 1, 0, -128], [0, 0, 1, -128]], np.float32)


def _lab(bgr: np.ndarray) -> np.ndarray:
    return cv2.cvtColor(bgr.astype(np.float32) * (1 / 255.0), cv2.COLOR_BGR2Lab)


def _lab8(bgr: np.ndarray) -> np.ndarray:
    """CIE Lab (L 0..100) of an 8-bit BGR image, by OpenCV's 8-bit conversion (a table:
    about three times quicker than converting floats; within 0.6 of L and 2.5 of a, b):
    good enough to say where the dice are, not to measure them."""
    return cv2.transform(cv2.cvtColor(bgr, cv2.COLOR_BGR2Lab).astype(np.float32), _LAB8)


_ELLIPSE3 = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3))
_ELLIPSE5 = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5))
_ELLIPSE7 = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (7, 7))


def seams(L: np.ndarray, ratio: float = SEAM_RATIO, floor: float = 2.0) -> np.ndarray:
    """Thin dark lines: the rounded edges between touching dice and between a die's faces
    (also pips and dark ink, which the hole filling puts back)."""
    Ls = cv2.GaussianBlur(L, (3, 3), 0.8)
    closed = cv2.morphologyEx(Ls, cv2.MORPH_CLOSE, _ELLIPSE7)
    bh = closed - Ls
    return ((bh > ratio * closed) & (bh > floor)).astype(np.uint8) * 255


def shape_of(circularity: float, rectangularity: float) -> str:
    """"round" (a D12 and the like, seen from above) or "square" (a cube)."""
    return "round" if circularity > 0.915 and rectangularity < 0.86 else "square"


def _fill(mask: np.ndarray) -> np.ndarray:
    cs, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    out = np.zeros_like(mask)
    cv2.drawContours(out, cs, -1, 255, -1)
    return out


# A die of the tray's own shade (a black die on a dark grey tray, lit from the side): neither
# its colour nor its light tells it from the tray, so its body was not found, only its shadow
# and its light symbol, each taken for a die (the symbol read white, the shadow's outline for
# the die's; a teaching picture's die was its symbol: a8975's black symbol die taught 36
# pixels across where it is 75). Its edges are there: the rim of its top face, its seams, its
# lit and shaded sides are edges the empty tray does not have. Where such edges (CAMO_EDGE
# stronger than the tray's own there, twice over), closed over small gaps (CAMO_CLOSE) and
# with what the colours found, enclose a region the colours did not find that looks like the
# tray (within CAMO_SAME_L of its L and CHROMA_T of its colour: no shadow, no die's shaded
# side), at least CAMO_NEW of the reader's least part (min_area; CAMO_UNTAUGHT pixels in a
# teaching picture, whose die's size is not known) and broad (a disc CAMO_BROAD of the largest
# taught die across fits in it: not the strip of a side face beyond a die's top, nor the tray
# left between dice touching all round), that region is part of a die.
# Designed looking at the fresh tower a8975 and the tuning towers a8200 and d9001; this
# project's benchmark trays (bench/dice_bench.py's towers 0 to 3, 100 trays) were to read the
# same tray by tray (a first try changed 15: side-face strips in teaching pictures, a gap
# between three dice: hence CAMO_UNTAUGHT and CAMO_BROAD). Chosen on the 16 tuning towers
# (CAMO_SAME_L 8 to 16, CAMO_EDGE 12 to 20, CAMO_NEW 0.15 and 0.3, CAMO_BROAD 0.1 to 0.2, a
# closing of 5 and 7 half-size pixels): the most flat dice read with no more wrong faces, no
# fewer tilted dice flagged and the benchmark's trays unchanged. On the tuning towers, taught
# again: 1,739 -> 1,751 flat dice clean and right, 355 -> 357 tilted dice flagged, 3 wrong
# faces, dice missed 37 -> 30 (the first renderer's a8621 throws black symbol dice on a dark
# tray: 6 of them missed and 5 unsure are read right now); held out: docs/vision.md, "A die
# of the tray's own shade".
CAMO_EDGE = 16.0  # edge strength (3x3 Sobel of L, 0..100, at half size)
CAMO_CLOSE = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5))  # gaps in its outline
CAMO_NEW = 0.3  # of the reader's least part (min_area): a region the colours did not find
CAMO_SAME_L = 12.0
CAMO_UNTAUGHT = 600.0  # frame pixels, in a teaching picture
CAMO_BROAD = 0.15  # of the largest taught die's size: the disc a region holds
# What the colours saw and made no die of, where the reader asks the die finder whether a die
# lies there (reader.DiceReader._unexplained; docs/vision.md, "A die the colours saw only in
# part"): a mark at least MARK_OF_DIE of the least part (a die of the tray's own shade whose
# outline does not close shows only its light symbol), and a piece the shadow cut took away
# holding a core darker than DEEP_RATIO of the tray's light (no shadow is that dark) at least
# SHADOW_DIE_CORE of a die's side across (a black die cut away with its shadow). A die the
# finder marks there is outlined by die_at: a watershed from its centre and from the tray
# beyond DIE_AT_REACH of its size, what leaked into a shadow or a neighbour (fingers
# DIE_AT_OPEN of it across) opened away, the rest taken as its convex hull. Chosen on the 36
# tuning towers (MARK_OF_DIE 0.02 / 0.05 / 0.1: dice missed 56 / 57 / 58, nothing else
# changed; SHADOW_DIE_CORE 0.3 to 0.5 the same, 0.7 two flat dice fewer: 0.5 asks least)
MARK_OF_DIE = 0.05
SHADOW_DIE_CORE = 0.5
DIE_AT_REACH = 0.85
DIE_AT_OPEN = 0.2


def _edge_strength(L: np.ndarray) -> np.ndarray:
    """How strong an edge each pixel of ``L`` (float32) lies on, smoothed a little first."""
    Ls = cv2.GaussianBlur(L, (3, 3), 0.8)
    return cv2.magnitude(cv2.Sobel(Ls, cv2.CV_32F, 1, 0), cv2.Sobel(Ls, cv2.CV_32F, 0, 1))


def _camouflaged(lab_small: np.ndarray, bg: Background, gain: float, fg_small: np.ndarray,
                 like_tray: np.ndarray, least: float, die_px: float) -> np.ndarray | None:
    """Dice of the tray's own shade in a half-size frame (``lab_small``: its Lab; ``fg_small``
    and ``like_tray``: what its colours found, and where it looks like the tray, :func:`_fg`):
    the regions that edges the empty tray lacks close around, that the colours did not find
    and that look like the tray (CAMO_*), each with the outline around it; None where there
    are none (most frames). ``least``: the least such
    region, in frame pixels; ``die_px``: a die's size: the region must be broad, not the
    strip of a die's side face (CAMO_BROAD)."""
    k = gain ** (1 / 3)
    g = _edge_strength(np.ascontiguousarray(lab_small[:, :, 0]))
    # (the tray's edges scale with its light: a Sobel of L times k is k times the Sobel)
    edges = cv2.compare(g, CAMO_EDGE, cv2.CMP_GT) & cv2.compare(
        g, cv2.add(cv2.multiply(bg.edges_half(), 2.0 * k), CAMO_EDGE), cv2.CMP_GT)
    # (with what the colours found: a die's lit rim or shaded side may close its outline)
    filled = _fill(cv2.morphologyEx(edges, cv2.MORPH_CLOSE, CAMO_CLOSE) | fg_small)
    # what follows, in the box round what the colours did not find (and 3 pixels more, so that
    # the openings and dilations below see the zeros round it: the same as over the frame)
    x, y, w, h = cv2.boundingRect(filled & ~fg_small)
    if not w:
        return None
    H, W = fg_small.shape
    x0, y0, x1, y1 = max(0, x - 3), max(0, y - 3), min(W, x + w + 3), min(H, y + h + 3)
    box = (slice(y0, y1), slice(x0, x1))
    # broad, not a rim along a die the colours found (opened away)
    new = cv2.morphologyEx(filled[box] & ~fg_small[box] & like_tray[box], cv2.MORPH_OPEN,
                           _ELLIPSE5)
    nx, ny, nw, nh = cv2.boundingRect(new)
    if not nw:  # (most frames)
        return None
    inner = (slice(ny, ny + nh), slice(nx, nx + nw))
    n, lab, st, _ = cv2.connectedComponentsWithStats(new[inner], connectivity=8)
    keep = [j for j in range(1, n) if st[j, cv2.CC_STAT_AREA] * 4 >= least
            and _inscribed(lab, j, st[j]) * 2 >= CAMO_BROAD * die_px]
    if not keep:
        return None
    kept = np.zeros_like(new)
    kept[inner] = np.isin(lab, keep).astype(np.uint8) * 255
    out = np.zeros_like(fg_small)
    out[box] = cv2.bitwise_and(cv2.dilate(kept, _ELLIPSE3), filled[box])
    return out


def _inscribed(lab: np.ndarray, j: int, stat: np.ndarray) -> float:
    """The radius of the largest disc region ``j`` of ``lab`` holds (its holes filled)."""
    x, y, w, h = (int(v) for v in stat[:4])
    region = _fill(np.pad(lab[y:y + h, x:x + w] == j, 1).astype(np.uint8) * 255)
    return float(cv2.distanceTransform(region, cv2.DIST_L2, 3).max())


def find_blobs(frame: np.ndarray, bg: Background, gain: float, min_area: float = MIN_AREA_PX,
               die_area: float | None = None, least_area: float = 0.0,
               cut_away: list[Unexplained] | None = None) -> list[Blob]:
    """The dice in a frame. The foreground (not the empty tray, not a shadow on it) is found
    at half size; each part is then cut out at full size. A part that looks like one die
    (convex, not elongated, not much larger than ``die_area`` when known) is one die; any
    other is cut along its dark seams and the pieces are put back together greedily into
    die-like shapes. A die of the tray's own shade is found by the edges the empty tray lacks
    (:func:`_camouflaged`)."""
    small = cv2.resize(frame, bg.half, interpolation=cv2.INTER_AREA)
    covered = covering(frame, bg, gain)
    lab_small = _lab8(small)
    fg_small, like_tray = _fg(lab_small, bg.lab_half, gain)
    if covered is not None:
        fg_small |= cv2.resize(covered, bg.half, interpolation=cv2.INTER_NEAREST)
    fg_small = cv2.morphologyEx(fg_small, cv2.MORPH_OPEN, _ELLIPSE3)
    # a die of the tray's own shade: where edges the tray lacks close around it
    camo = _camouflaged(lab_small, bg, gain, fg_small, like_tray,
                        CAMO_NEW * min_area if die_area is not None else CAMO_UNTAUGHT,
                        math.sqrt(die_area if die_area is not None else CAMO_UNTAUGHT / CAMO_NEW))
    if camo is not None:
        fg_small |= camo
        camo = cv2.resize(camo, (frame.shape[1], frame.shape[0]),
                          interpolation=cv2.INTER_NEAREST)
    # ink edges blend to the tray's grey at half size: bridge the gaps, fill what they
    # enclose (this only says where to look at full size)
    # each part: its outline, filled (what the outline encloses is the part)
    outlines, _ = cv2.findContours(cv2.dilate(fg_small, _ELLIPSE3), cv2.RETR_EXTERNAL,
                                   cv2.CHAIN_APPROX_SIMPLE)
    # in reading order (each outline starts at its part's first pixel)
    outlines = sorted(outlines, key=lambda c: (int(c[0, 0, 1]), int(c[0, 0, 0])))
    h, w = frame.shape[:2]
    k = gain ** (1 / 3)
    blobs = []
    for outline in outlines:
        x, y, bw, bh = cv2.boundingRect(outline)
        pad = 6
        x0, y0 = max(0, 2 * x - pad), max(0, 2 * y - pad)
        x1, y1 = min(w, 2 * (x + bw) + pad), min(h, 2 * (y + bh) + pad)
        sx0, sy0 = x0 // 2, y0 // 2
        part = np.zeros(((y1 + 1) // 2 - sy0, (x1 + 1) // 2 - sx0), np.uint8)
        cv2.drawContours(part, [outline], -1, 255, -1, offset=(-sx0, -sy0))
        seen_px = cv2.countNonZero(part) * 4  # at full size
        if seen_px < min_area:
            if cut_away is not None and seen_px >= MARK_OF_DIE * min_area:
                # a mark too small for a die: perhaps all the colours see of one (its symbol)
                cut_away.append(Unexplained(x0, y0, cv2.resize(
                    part, (x1 - x0, y1 - y0), interpolation=cv2.INTER_NEAREST), True))
            continue
        lab = _lab(frame[y0:y1, x0:x1])
        lab_bg = bg.lab_box(y0, y1, x0, x1)
        shown, dark = _fg_parts(lab, lab_bg, gain)
        if camo is not None:
            shown |= camo[y0:y1, x0:x1]
        fg = shown | dark
        if covered is not None:
            hidden = covered[y0:y1, x0:x1]
            # a die of the felt's own colour is where the weave stops; any other die keeps
            # the outline its colour gives
            if cv2.countNonZero(fg & hidden) < CAMOUFLAGED * cv2.countNonZero(hidden):
                hidden = cv2.dilate(hidden, _WINDOW_BACK)
            fg |= hidden
            shown |= hidden
        near = cv2.resize(cv2.dilate(part, _ELLIPSE3), (x1 - x0, y1 - y0),
                          interpolation=cv2.INTER_NEAREST)
        fg = cv2.morphologyEx(cv2.morphologyEx(fg & near, cv2.MORPH_OPEN, _ELLIPSE3),
                              cv2.MORPH_CLOSE, _ELLIPSE3)
        cs, _ = cv2.findContours(fg, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        cs = [c for c in cs if cv2.contourArea(c) >= min_area * 0.8]
        if not cs:
            continue
        L = lab[:, :, 0].copy()
        Lbg = lab_bg[:, :, 0] * k
        seam = seams(L)
        ink = seams(L, INK_RATIO, INK_FLOOR)  # marks much darker than around them
        for c in cs:  # dice joined at half size may stand apart at full size
            sil = np.zeros_like(fg)
            cv2.drawContours(sil, [c], -1, 255, -1)
            kept = _without_shadow(sil, shown, L, ink, least_area, Lbg, die_area)
            if cut_away is not None and kept is not sil and die_area:
                cut_away.extend(_pieces(x0, y0, cv2.bitwise_and(sil, cv2.bitwise_not(kept)),
                                        L, Lbg, least_area, die_area))
            sil = kept
            parts = [sil] if _single(sil, die_area) else _split(sil, seam, die_area, min_area)
            if len(parts) > 1:  # a dark piece with nothing on it is a shadow cut off a die
                whole = (slice(0, fg.shape[0]), slice(0, fg.shape[1]))
                parts = [q for q in parts if _marked(q, whole, shown, L, ink, Lbg)] or parts
            for part in parts:
                b = _measure(x0, y0, part, seam, L, Lbg)
                if b is not None and b.area >= min_area:
                    blobs.append(b)
    return blobs


def _pieces(x0: int, y0: int, mask: np.ndarray, L: np.ndarray, Lbg: np.ndarray,
            least: float, die_area: float) -> list[Unexplained]:
    """The pieces of ``mask`` (a part's box at ``x0, y0``) of at least ``least`` pixels that
    hold a core darker than DEEP_RATIO of the tray's light, SHADOW_DIE_CORE of a die's side
    (``die_area``) across: what a black die cut away with its shadow leaves (a shadow is
    lighter)."""
    deep = cv2.bitwise_and(mask, cv2.compare(L, DEEP_RATIO * Lbg, cv2.CMP_LT))
    n, lab, st, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    out = []
    for j in range(1, n):
        x, y, w, h = (int(v) for v in st[j, :4])
        if st[j, cv2.CC_STAT_AREA] < least:
            continue
        piece = (lab[y:y + h, x:x + w] == j).astype(np.uint8) * 255
        core = _fill(cv2.bitwise_and(piece, deep[y:y + h, x:x + w]))
        r = float(cv2.distanceTransform(np.pad(core, 1), cv2.DIST_L2, 3).max())
        if 2 * r >= SHADOW_DIE_CORE * math.sqrt(die_area):
            out.append(Unexplained(x0 + x, y0 + y, piece, False))
    return out


_WINDOW_PAST = cv2.getStructuringElement(cv2.MORPH_ELLIPSE,
                                         (TEXTURE_WINDOW + 4, TEXTURE_WINDOW + 4))
_WINDOW_BACK = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (TEXTURE_WINDOW, TEXTURE_WINDOW))


TEXTURE_STEP = 8  # pixels between the windows that decide whether a tray's weave is seen


def tray_windows(mean_bgr: np.ndarray, smoothing: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """:meth:`Background.window_stats` of an empty tray (float32 BGR) smoothed as a
    Background smooths it, without the rest of a Background (a profile keeps them ready
    when it is saved)."""
    mean, square = _window_means(cv2.cvtColor(_smoothed(mean_bgr, smoothing),
                                              cv2.COLOR_BGR2GRAY), squares=True)
    return mean, square


def window_count(height: int, width: int) -> int:
    """How many windows :func:`_window_means` gives an image of this size."""
    return -(-height // TEXTURE_STEP) * -(-width // TEXTURE_STEP)


def _window_means(*images: np.ndarray, squares: bool = False) -> list[np.ndarray]:
    """Each image's mean over the TEXTURE_WINDOW square round every TEXTURE_STEP-th pixel
    (from the first; the border reflected as OpenCV's filters reflect it), in one row: from
    the image's sums, without filtering all of it. With ``squares``, the first image's mean
    square too (last)."""
    r = TEXTURE_WINDOW // 2
    h, w = images[0].shape
    y0 = np.arange(0, h, TEXTURE_STEP)[:, None]
    x0 = np.arange(0, w, TEXTURE_STEP)[None, :]
    y1, x1 = y0 + TEXTURE_WINDOW, x0 + TEXTURE_WINDOW
    n = TEXTURE_WINDOW * TEXTURE_WINDOW

    def box(s: np.ndarray) -> np.ndarray:
        return ((s[y1, x1] - s[y0, x1] - s[y1, x0] + s[y0, x0]) / n).ravel()

    out, extra = [], []
    for k, image in enumerate(images):
        padded = cv2.copyMakeBorder(image, r, r, r, r, cv2.BORDER_REFLECT_101)
        if squares and k == 0:
            total, sq = cv2.integral2(padded, sdepth=cv2.CV_64F, sqdepth=cv2.CV_64F)
            extra.append(box(sq))
        else:
            total = cv2.integral(padded, sdepth=cv2.CV_64F)
        out.append(box(total))
    return out + extra


def covering(frame: np.ndarray, bg: Background, gain: float) -> np.ndarray | None:
    """Where something hides the tray's own texture (felt, wood grain): the frame's fine
    detail no longer correlates with the empty tray's, though the light would show it. A die
    the colour and lightness of the tray (a black die on dark felt) stands out so; a shadow
    keeps the texture. None on a tray with no texture to see (most of the frame, the tray
    itself, does not correlate with the empty tray's either)."""
    # whether there is a weave to see, and the frame shows it, is decided on every 8th
    # pixel's window alone, from the images' sums (most trays have none: the frame is then
    # not filtered at all)
    sampled = bg.sampled_texture()
    if sampled is None:
        return None
    g = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY).astype(np.float32)
    gb = cv2.multiply(g, bg.gray)
    woven_at, mb_at, sb_at = sampled
    mg_at, mgb_at, sqg_at = (m[woven_at] for m in _window_means(g, gb, squares=True))
    cov_at = mgb_at - mg_at * mb_at
    sg_at = np.sqrt(np.maximum(sqg_at - mg_at * mg_at, 1e-6))
    if quantiles(cov_at / (sg_at * sb_at), (50,))[0] < TEXTURE_SEEN:
        return None
    b, mb, sb = bg.texture()  # the correlation does not change with the light's gain
    k = (TEXTURE_WINDOW, TEXTURE_WINDOW)
    mg = cv2.boxFilter(g, -1, k)
    cov = cv2.boxFilter(gb, -1, k) - mg * mb
    ncc = cov / (np.sqrt(np.maximum(cv2.sqrBoxFilter(g, -1, k) - mg * mg, 1e-6)) * sb)
    # a weave to see: fine detail stronger than a camera's noise (a smooth tray's light
    # gradient correlates too, but hides nothing)
    woven = bg.woven()
    hidden = cv2.compare(ncc, TEXTURE_HIDDEN, cv2.CMP_LT) & cv2.compare(
        mg, 0.5 * gain * mb, cv2.CMP_GT) & woven.astype(np.uint8) * 255
    hidden = cv2.morphologyEx(_fill(cv2.morphologyEx(hidden, cv2.MORPH_CLOSE, _ELLIPSE5)),
                              cv2.MORPH_OPEN, _ELLIPSE5)
    # the window reaches half its side past a die's edge (and a little more: this is where a
    # die surely is; _WINDOW_BACK grows it back to a little inside its edge)
    return cv2.erode(hidden, _WINDOW_PAST)


def _marked(region: np.ndarray, box: tuple[slice, slice], shown: np.ndarray, L: np.ndarray,
            ink: np.ndarray, Lbg: np.ndarray | None) -> bool:
    """Whether a dark region (``region``: its mask over ``box`` of the part) holds what a die
    shows and a shadow does not: something lighter or coloured (``shown``), nearly as light as
    the tray, or inked, off its edge (where a shadow's edge meets a die, it looks like ink)."""
    core = cv2.erode(region, _ELLIPSE7)
    n_core = cv2.countNonZero(core)
    if not n_core:
        return False
    enough = SHADOW_FEATURES * n_core
    marks = cv2.bitwise_and(core, shown[box])
    if Lbg is not None:  # a pixel both lighter and lit counts once
        marks |= core & cv2.compare(L[box], LIT_OF_TRAY * Lbg[box], cv2.CMP_GT)
    inside = cv2.countNonZero(marks)
    if inside < enough:
        inside += _ringed_marks(region, shown[box])
    if inside < enough:
        # ink: a mark much darker than around it and than the region's own shade (a
        # shadow is even; where it meets a die its edge looks like a mark)
        Lr = L[box]
        shade = quantiles(Lr[core > 0], (50,))[0]
        inside += int(np.count_nonzero((core > 0) & (ink[box] > 0) & (Lr < INK_SHADE * shade)))
    return inside >= enough


def _ringed_marks(region: np.ndarray, shown: np.ndarray) -> int:
    """The pixels of what is lighter or coloured (``shown``) that ``region`` rings for the
    most part (RINGED_MARK of the band round each piece, beyond ``region``'s box none of it):
    a black die's light symbol that reaches the die's edge is no hole of its dark region, yet
    lies within it; a lighter die beside a shadow is met by the shadow along a side or two."""
    n, lab, st, _ = cv2.connectedComponentsWithStats(
        cv2.bitwise_and(shown, cv2.bitwise_not(region)), connectivity=8)
    out = 0
    most = MARK_MOST * cv2.countNonZero(region)
    pieces = [j for j in range(1, n) if MARK_LEAST <= st[j, cv2.CC_STAT_AREA] <= most]
    if not pieces:
        return 0
    lab, around = np.pad(lab, 3), np.pad(region, 3)  # (the band reaches 2 pixels out)
    for j in pieces:
        x, y, w, h, area = (int(v) for v in st[j])
        box = (slice(y, y + h + 6), slice(x, x + w + 6))
        piece = (lab[box] == j).astype(np.uint8) * 255
        band = cv2.dilate(piece, _ELLIPSE5) & ~piece
        ringed = cv2.countNonZero(band & around[box])
        if ringed >= RINGED_MARK * cv2.countNonZero(band):
            out += area
    return out


def _without_shadow(sil: np.ndarray, shown: np.ndarray, L: np.ndarray, ink: np.ndarray,
                    least: float, Lbg: np.ndarray | None = None,
                    die_area: float | None = None) -> np.ndarray:
    """The part without its shadows: a dark region with nothing lighter, coloured or inked
    inside it (a black die has its pips, symbol or lit edges, a die's shaded side its ink; a
    shadow has none). Lighter is lighter than the tray, or (``Lbg``: the tray's L at the
    frame's light) nearly as light as the tray inside the dark region: no shadow holds that,
    a black die's light symbol on a light tray does. A shadow is broad: a share of the part,
    or of a die (``die_area``, when known) where the part holds several. A black die's marks
    keep the dark region of its hard shadow too: there the shadow is what is lighter than
    DEEP_RATIO of the tray's light, and is cut as a dark region is."""
    # broad, not a seam or a pip: what a 7-pixel disc fits in
    dark = cv2.morphologyEx(cv2.bitwise_and(sil, cv2.bitwise_not(shown)), cv2.MORPH_OPEN,
                            _ELLIPSE7)
    total = cv2.countNonZero(sil)
    broad = SHADOW_LEAST * (min(total, die_area) if die_area else total)
    out = _cut_unmarked(sil, dark, broad, shown, L, ink, Lbg)
    if Lbg is not None:
        lit = cv2.compare(L, DEEP_RATIO * Lbg, cv2.CMP_GT)
        shallow = cv2.bitwise_and(cv2.bitwise_and(out, cv2.bitwise_not(shown)), lit)
        out = _cut_unmarked(out, cv2.morphologyEx(shallow, cv2.MORPH_OPEN, _ELLIPSE7), broad,
                            shown, L, ink, Lbg)
    if out is sil:
        return sil
    out = _fill(cv2.morphologyEx(out, cv2.MORPH_OPEN, _ELLIPSE3))  # pips and ink go back
    # what is left must still be a die: a tilted die's shaded sides can look like a shadow
    return out if cv2.countNonZero(out) >= least else sil


def _cut_unmarked(out: np.ndarray, dark: np.ndarray, broad: float, shown: np.ndarray,
                  L: np.ndarray, ink: np.ndarray, Lbg: np.ndarray | None) -> np.ndarray:
    """``out`` without the regions of ``dark`` at least ``broad`` that hold no mark
    (:func:`_marked`); ``out`` itself where none is cut, else a copy."""
    n, lab, st, _ = cv2.connectedComponentsWithStats(dark, connectivity=8)
    cut = out
    for j in range(1, n):
        x, y, w, h, area = st[j]
        # ink, not a shadow: shadows are broad (beside one die, or round several)
        if area < broad:
            continue
        box = (slice(y, y + h), slice(x, x + w))
        region = _fill((lab[box] == j).astype(np.uint8) * 255)
        # what lies inside it, off its edge (where a shadow's edge meets a die, it looks
        # like ink)
        if not _marked(region, box, shown, L, ink, Lbg):
            if cut is out:
                cut = out.copy()
            cut[box][region > 0] = 0
    return cut


def teaching_blobs(frame: np.ndarray, bg: Background, name: str = "frame"
                   ) -> tuple[list[Blob], float]:
    """The dice of a teaching frame (one die of a kind whose size is not known yet), and the
    frame's light compared with the empty tray's: what is much smaller than the largest part
    is a crumb, not a die."""
    _, blobs, gain = teaching_parts(frame, bg, name)
    return blobs, gain


def teaching_parts(frame: np.ndarray, bg: Background, name: str = "frame"
                   ) -> tuple[np.ndarray, list[Blob], float]:
    """:func:`teaching_blobs`, with the frame they were found in first: a frame under another
    light brought to the empty tray's (:func:`balanced`), and a noisy camera's dice found in
    it smoothed (:func:`denoised`, :func:`as_seen_in`), as :meth:`DiceReader.read` does."""
    check_frame(frame, bg, name)
    frame, _ = balanced(frame, bg)
    gain = exposure_gain(frame, bg)
    seen = denoised(frame, bg)  # a noisy camera's: found smoothed, read as it is
    blobs = find_blobs(seen, bg, gain)
    if blobs:
        big = max(b.area for b in blobs)
        blobs = [b for b in blobs if b.area >= 0.3 * big]
    if len(blobs) > 1:
        whole = _one_die(seen, bg, gain, blobs)
        if whole is not None:
            blobs = [whole]
    return frame, as_seen_in(blobs, seen, frame), gain


JOIN_GAP = 3  # pixels: parts of a teaching picture this close touch
JOIN_ASPECT = 1.5  # a die with a side face seen is at most this elongated; two dice, about 2
# a side face cut off its die is smaller than its top face (0.3 to 0.61 of it on tower 109
# of bench/tray_renderer_b.py); a second die is about as large as the first
JOIN_SMALLER = 0.7


def _one_die(frame: np.ndarray, bg: Background, gain: float, parts: list[Blob]
             ) -> Blob | None:
    """Parts of a teaching picture that are one die cut in two (a black die on a dark tray:
    its lit top face and the side face beyond a seam), put back together: they touch, and
    together they are no more elongated than one die seen with a side face (JOIN_ASPECT;
    two dice side by side, about 2), and all but the largest are smaller than JOIN_SMALLER
    of it (a side face; a second die is as large). None where they are not (two dice:
    refused as before)."""
    big = max(b.area for b in parts)
    if sum(b.area >= JOIN_SMALLER * big for b in parts) > 1:
        return None
    x0 = max(0, min(b.x0 for b in parts) - MEASURE_MARGIN)
    y0 = max(0, min(b.y0 for b in parts) - MEASURE_MARGIN)
    x1 = min(frame.shape[1], max(b.x0 + b.mask.shape[1] for b in parts) + MEASURE_MARGIN)
    y1 = min(frame.shape[0], max(b.y0 + b.mask.shape[0] for b in parts) + MEASURE_MARGIN)
    sil = np.zeros((y1 - y0, x1 - x0), np.uint8)
    for b in parts:
        h, w = b.mask.shape
        sil[b.y0 - y0:b.y0 - y0 + h, b.x0 - x0:b.x0 - x0 + w] |= b.mask
    gap = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * JOIN_GAP + 1, 2 * JOIN_GAP + 1))
    joined = cv2.morphologyEx(sil, cv2.MORPH_CLOSE, gap)
    n, _ = cv2.connectedComponents(joined, connectivity=8)
    if n != 2:
        return None  # apart: not one die
    cs, _ = cv2.findContours(joined, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    (_, _), (rw, rh), _ = cv2.minAreaRect(max(cs, key=cv2.contourArea))
    if max(rw, rh) > JOIN_ASPECT * max(1.0, min(rw, rh)):
        return None
    lab = _lab(frame[y0:y1, x0:x1])
    L = lab[:, :, 0].copy()
    Lbg = bg.lab_box(y0, y1, x0, x1)[:, :, 0] * gain ** (1 / 3)
    return _measure(x0, y0, _fill(joined), seams(L), L, Lbg)


def _shape(mask: np.ndarray, offset: tuple[int, int] = (0, 0)) -> tuple[float, float, float]:
    """(area, solidity, aspect of the minimum-area rectangle). ``offset``: where ``mask``
    lies in the box (the outline's points are the box's, whatever the mask's extent)."""
    cs, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE, offset=offset)
    if not cs:
        return 0.0, 0.0, 99.0
    c = max(cs, key=cv2.contourArea) if len(cs) > 1 else cs[0]
    area = float(cv2.countNonZero(mask))
    hull = max(1.0, cv2.contourArea(cv2.convexHull(c)))
    (_, _), (rw, rh), _ = cv2.minAreaRect(c)
    return area, area / hull if len(cs) == 1 else 0.0, max(rw, rh) / max(1.0, min(rw, rh))


def _single(mask: np.ndarray, die_area: float | None, offset: tuple[int, int] = (0, 0)
            ) -> bool:
    area, solidity, aspect = _shape(mask, offset)
    if die_area and area > 1.85 * die_area:
        return False
    return solidity >= 0.9 and aspect <= 1.45


class _Piece:
    """A mask over a window of a part's box (``x``, ``y``: the window's corner in the box; the
    box is ``shape``): the cuts below work on each piece's own window, not on the whole box
    (in a crowded part, many times a die's size). Every window they dilate, join or fill in
    keeps PIECE_MARGIN pixels round the masks in it, where the box allows (window()), so that
    every morphology sees what it would in the whole box."""

    __slots__ = ("m", "x", "y", "shape", "count", "_pixels")

    def __init__(self, m: np.ndarray, x: int, y: int, shape: tuple[int, ...]) -> None:
        self.m, self.x, self.y, self.shape = m, x, y, shape
        self.count = cv2.countNonZero(m)
        self._pixels = cv2.boundingRect(m)  # (a piece never changes: once)

    @property
    def x1(self) -> int:
        return self.x + self.m.shape[1]

    @property
    def y1(self) -> int:
        return self.y + self.m.shape[0]

    def window(self, margin: int) -> tuple[int, int, int, int]:
        """This piece's pixels' bounding box grown by ``margin`` (within the box)."""
        bx, by, bw, bh = self._pixels
        h, w = self.shape[:2]
        return (max(0, self.x + bx - margin), max(0, self.y + by - margin),
                min(w, self.x + bx + bw + margin), min(h, self.y + by + bh + margin))

    def over(self, x0: int, y0: int, x1: int, y1: int) -> np.ndarray:
        """The mask over the window (x0, y0)-(x1, y1) of the box (0 where it has no pixels)."""
        out = np.zeros((y1 - y0, x1 - x0), np.uint8)
        ax, ay = max(x0, self.x), max(y0, self.y)
        bx, by = min(x1, self.x1), min(y1, self.y1)
        if ax < bx and ay < by:
            out[ay - y0:by - y0, ax - x0:bx - x0] = self.m[ay - self.y:by - self.y,
                                                           ax - self.x:bx - self.x]
        return out


PIECE_MARGIN = 8  # more than the 7x7 disc twice (6) reaches


def _joined(a: _Piece, b: _Piece) -> _Piece:
    """The two pieces as one die: their union closed by a 7x7 disc, holes filled."""
    wa, wb = a.window(PIECE_MARGIN), b.window(PIECE_MARGIN)
    x0, y0 = min(wa[0], wb[0]), min(wa[1], wb[1])
    x1, y1 = max(wa[2], wb[2]), max(wa[3], wb[3])
    u = _fill(cv2.morphologyEx(cv2.bitwise_or(a.over(x0, y0, x1, y1), b.over(x0, y0, x1, y1)),
                               cv2.MORPH_CLOSE, _ELLIPSE7))
    return _Piece(u, x0, y0, a.shape)


def _grown(p: _Piece, iterations: int = 1) -> _Piece:
    """The piece dilated by the 7x7 disc."""
    x0, y0, x1, y1 = p.window(PIECE_MARGIN)
    return _Piece(cv2.dilate(p.over(x0, y0, x1, y1), _ELLIPSE7, iterations=iterations),
                  x0, y0, p.shape)


def _common(a: _Piece, b: _Piece) -> int:
    """How many pixels the two pieces share."""
    (ax, ay, aw, ah), (bx, by, bw, bh) = a._pixels, b._pixels
    x0, y0 = max(a.x + ax, b.x + bx), max(a.y + ay, b.y + by)  # where both have pixels
    x1, y1 = min(a.x + ax + aw, b.x + bx + bw), min(a.y + ay + ah, b.y + by + bh)
    if x0 >= x1 or y0 >= y1:
        return 0
    # (that window lies inside both masks: their own pixels, not copies)
    return cv2.countNonZero(cv2.bitwise_and(a.m[y0 - a.y:y1 - a.y, x0 - a.x:x1 - a.x],
                                            b.m[y0 - b.y:y1 - b.y, x0 - b.x:x1 - b.x]))


def _drop_nested(parts: list[_Piece]) -> list[_Piece]:
    """Nested parts (an inked ring's inside) belong to the part around them."""
    parts = sorted(parts, key=lambda p: p.count, reverse=True)
    kept: list[_Piece] = []
    for p in parts:
        for k in kept:
            if _common(p, k) > 0.5 * p.count:
                break
        else:
            kept.append(p)
    return kept


def _split(sil: np.ndarray, seam: np.ndarray, die_area: float | None,
           min_area: float) -> list[np.ndarray]:
    core = cv2.bitwise_and(sil, cv2.bitwise_not(seam))
    core = cv2.morphologyEx(core, cv2.MORPH_OPEN, _ELLIPSE3)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(core, connectivity=4)
    h, w = sil.shape
    parts = []
    for j in range(1, n):
        x, y, bw, bh = stats[j, :4]
        if bw * bh < 12:
            continue  # filled, still fewer than 12 pixels
        x0, y0 = max(0, x - 1), max(0, y - 1)
        x1, y1 = min(w, x + bw + 1), min(h, y + bh + 1)
        p = _Piece(_fill(cv2.compare(labels[y0:y1, x0:x1], j, cv2.CMP_EQ)), x0, y0, sil.shape)
        if p.count >= 12:
            parts.append(p)
    parts = _drop_nested(parts)
    # greedy: join the two touching parts whose union is the most die-like, while any is
    # (a pair's union does not change while neither part does: each is worked out once)
    grown: dict[_Piece, _Piece] = {}
    unions: dict[tuple[_Piece, _Piece], tuple[float, _Piece] | None] = {}

    def union(pa: _Piece, pb: _Piece) -> tuple[float, _Piece] | None:
        if (pa, pb) not in unions:
            if pa not in grown:
                grown[pa] = _grown(pa)
            found = None
            if _common(grown[pa], pb):
                u = _joined(pa, pb)
                if _single(u.m, die_area, (u.x, u.y)):
                    _, solidity, aspect = _shape(u.m, (u.x, u.y))
                    found = (solidity - 0.2 * (aspect - 1), u)
            unions[(pa, pb)] = found
        return unions[(pa, pb)]

    merged = True
    while merged and len(parts) > 1:
        merged = False
        best = None
        for a in range(len(parts)):
            for b in range(a + 1, len(parts)):
                found = union(parts[a], parts[b])
                if found is not None and (best is None or found[0] > best[0]):
                    best = (found[0], a, b, found[1])
        if best is not None:
            _, a, b, u = best
            parts = [p for k, p in enumerate(parts) if k not in (a, b)] + [u]
            merged = True
    # a part too small to be a die (ink cut a face into pieces the union of two of them does
    # not square up) joins the touching part that makes the most die-like union
    stuck: set[int] = set()
    while len(parts) > 1:
        areas = [p.count for p in parts]
        small = [k for k in range(len(parts)) if areas[k] < 1.5 * min_area and k not in stuck]
        if not small:
            break
        a = min(small, key=lambda k: areas[k])
        grown_a = _grown(parts[a], iterations=2)  # across an inked line
        join = None
        for b in range(len(parts)):
            if b == a or not _common(grown_a, parts[b]):
                continue
            u = _joined(parts[a], parts[b])
            if die_area and u.count > 1.3 * die_area:
                continue
            _, solidity, aspect = _shape(u.m, (u.x, u.y))
            score = solidity - 0.2 * (aspect - 1)
            if join is None or score > join[0]:
                join = (score, b, u)
        if join is None:
            stuck.add(a)
            continue
        _, b, u = join
        parts = [p for k, p in enumerate(parts) if k not in (a, b)] + [u]
        stuck = {k - (k > a) - (k > b) for k in stuck if k != b}
    parts = _drop_nested(parts)  # what the joined parts now enclose
    if len(parts) <= 1 or max(p.count for p in parts) < min_area:
        # one die after all, or one whose faces the seams cut into crumbs (a tilted die
        # whose lit side faces differ from each other): the silhouette is the die
        return [sil]
    # each part back to its full extent: the seam (rim) pixels nearest to it, up to 4 pixels
    # away (the seam between two dice is half one's rim, half the other's). Each part's
    # distances are worked out in its window: a pixel farther out is farther than 4.5 from it
    nearest = np.full((h, w), -1, np.int32)
    least = np.full((h, w), np.inf, np.float32)
    for k, p in enumerate(parts):
        x0, y0, x1, y1 = p.window(PIECE_MARGIN)
        d = cv2.distanceTransform(cv2.bitwise_not(p.over(x0, y0, x1, y1)), cv2.DIST_L2, 3)
        closer = d < least[y0:y1, x0:x1]  # the first of equally near parts keeps a pixel
        least[y0:y1, x0:x1][closer] = d[closer]
        nearest[y0:y1, x0:x1][closer] = k
    near = (least <= 4.5) & (sil > 0)
    out = []
    for k, p in enumerate(parts):  # (a part's pixels all lie in its window)
        x0, y0, x1, y1 = p.window(PIECE_MARGIN)
        whole = np.zeros((h, w), np.uint8)
        whole[y0:y1, x0:x1] = _fill(((nearest[y0:y1, x0:x1] == k) & near[y0:y1, x0:x1]
                                     ).astype(np.uint8) * 255)
        out.append(whole)
    return out


MEASURE_MARGIN = 8  # pixels kept round a silhouette measured in its own bounding box: more
# than any morphology below reaches, so that every value is what the whole box gives


def _measure(x0, y0, sil, seam, L, Lbg) -> Blob | None:
    """One die's Blob from its silhouette ``sil`` in the part's box (at x0, y0 in the frame),
    the box's seams and lightness. The work is done in the silhouette's own bounding box
    (MEASURE_MARGIN round it): in a crowded part the box is many times a die's size, and
    every value (contours, moments, the top face) is the same as over the whole box."""
    h, w = sil.shape
    bx, by, bw, bh = cv2.boundingRect(sil)
    if bw == 0:
        return None
    ox, oy = max(0, bx - MEASURE_MARGIN), max(0, by - MEASURE_MARGIN)
    ex, ey = min(w, bx + bw + MEASURE_MARGIN), min(h, by + bh + MEASURE_MARGIN)
    box = (slice(oy, ey), slice(ox, ex))
    s_, seam_, L_ = sil[box], seam[box], L[box]
    cs, _ = cv2.findContours(s_, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE, offset=(ox, oy))
    if not cs:
        return None
    contour = max(cs, key=cv2.contourArea)
    m = cv2.moments(s_, binaryImage=True)
    if m["m00"] <= 0:
        return None
    area = m["m00"]
    # (the sums over the whole box, exactly: integers)
    cx = (m["m10"] + ox * area) / area + x0
    cy = (m["m01"] + oy * area) / area + y0
    hull = cv2.convexHull(contour)
    hull_area = max(1.0, cv2.contourArea(hull))
    per = cv2.arcLength(hull, True)
    circularity = float(4 * math.pi * hull_area / max(1e-6, per * per))
    rect = cv2.minAreaRect(contour + np.array([x0, y0], np.int32))
    round_die = shape_of(circularity, area / max(1e-6, rect[1][0] * rect[1][1])) == "round"
    # the top face: the largest seam-bounded part of the die (holes of pips and ink filled)
    inner = cv2.bitwise_and(s_, cv2.bitwise_not(seam_))
    inner = cv2.erode(inner, _ELLIPSE3)
    n, lab = cv2.connectedComponents(inner, connectivity=4)
    if n > 1:
        # the largest part, with every part of the same shade (ink lines cut a face into
        # parts; a side face is lit differently)
        labels = lab.ravel()
        areas = np.bincount(labels, minlength=n)
        j = 1 + int(np.argmax(areas[1:]))
        # mean lightness of every part at once
        shades = np.bincount(labels, weights=L_.ravel(), minlength=n) / np.maximum(areas, 1)
        shade = float(shades[j])
        keep = (np.abs(shades - shade) < SAME_SHADE * max(shade, 10.0)) & (areas >= 6)
        keep[0] = False
        if round_die:  # a D12's neighbours can share the top's shade; its numeral is inside
            keep[:] = False
        keep[j] = True
        kept = np.flatnonzero(keep)
        top = _fill(cv2.compare(lab, int(j), cv2.CMP_EQ) if len(kept) == 1
                    else keep[lab].astype(np.uint8) * 255)
        # where the seam around the face has a gap (where three dice meet, where ink nears
        # the edge) the face leaks into its neighbour through a neck: cut it
        opened = cv2.morphologyEx(top, cv2.MORPH_OPEN, _ELLIPSE7 if round_die else _ELLIPSE5)
        if round_die:
            k, olab, ost, _ = cv2.connectedComponentsWithStats(opened, connectivity=4)
            if k > 2:
                opened = (olab == 1 + int(np.argmax(ost[1:, cv2.CC_STAT_AREA]))).astype(
                    np.uint8) * 255
        if cv2.countNonZero(opened) >= 0.5 * cv2.countNonZero(top):
            top = opened
        top = cv2.dilate(top, _ELLIPSE3) & s_
        # a face is convex: what ink of another shade cut out of it goes back
        outlines, _ = cv2.findContours(top, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        if outlines:  # (the hull of the outlines' corners is the hull of every pixel)
            hull_top = np.zeros_like(top)
            cv2.fillConvexPoly(hull_top, cv2.convexHull(np.concatenate(outlines)), 255)
            top = hull_top & s_
    else:
        top = s_
    tm = cv2.moments(top, binaryImage=True)
    if tm["m00"] <= 0:
        top, tm = s_, m
    top_area = tm["m00"]
    tcx = (tm["m10"] + ox * top_area) / top_area + x0
    tcy = (tm["m01"] + oy * top_area) / top_area + y0
    tcs, _ = cv2.findContours(top, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE, offset=(ox, oy))
    tc = max(tcs, key=cv2.contourArea) if tcs else contour
    top_rect = cv2.minAreaRect(tc + np.array([x0, y0], np.int32))
    if top is s_:
        whole_top = sil
    else:
        whole_top = np.zeros_like(sil)
        whole_top[box] = top
    return Blob(x0, y0, sil, whole_top, float(area), cx, cy, float(top_area), tcx, tcy, rect,
                top_rect, circularity, float(area / hull_area), L, Lbg, contour)


# of a die's size: the disc each of the finder's centres grows from. Wide enough to hold
# a symbol and some of the body around it: grown from a light symbol alone, a black die's
# body went to its shadow, which shades into it more gently than the symbol's edge does
SPLIT_SEED = 0.35
# a centre's region under this share of ``rest`` (split_at), with the silhouette and no other
# centre's region round RINGED of it, is a mark on a die, not a die
MARK_OF_REST, RINGED = 0.5, 0.8
REST_CORE = 0.4  # of a die's size: the disc the rest of a cut must hold
REST_SOLIDITY = 0.85  # a piece no centre took is a die when this compact (a shadow's rest is
# ragged)


def _ringed(part: np.ndarray, mask: np.ndarray, markers: np.ndarray, own: int) -> bool:
    """Whether ``part`` (the watershed's region ``own``) lies inside the silhouette ``mask``
    with no other centre's region round it."""
    ring = cv2.dilate(part, _ELLIPSE7) & cv2.bitwise_not(part)
    n = cv2.countNonZero(ring)
    inside = (ring > 0) & (mask > 0) & ((markers < 2) | (markers == own))
    return n > 0 and np.count_nonzero(inside) >= RINGED * n


def die_at(frame: np.ndarray, bg: Background, gain: float, x: float, y: float, size: float
           ) -> Blob | None:
    """The die whose centre the die finder marked at ``x, y`` (frame pixels; ``size``: the die's
    side, about), where the colours did not outline it: a watershed grown from its centre and
    from the tray beyond DIE_AT_REACH of its size, meeting along its outline; what leaked into
    a shadow or a neighbour (DIE_AT_OPEN of the die across) opened away, and the rest taken as
    its convex hull (a die seen from above is convex). None where nothing is left."""
    h, w = frame.shape[:2]
    r = max(4, int(DIE_AT_REACH * size))
    cx, cy = int(round(x)), int(round(y))
    x0, y0, x1, y1 = max(0, cx - r - 4), max(0, cy - r - 4), min(w, cx + r + 5), min(h, cy + r + 5)
    L = _lab(frame[y0:y1, x0:x1])[:, :, 0].copy()
    Lbg = bg.lab_box(y0, y1, x0, x1)[:, :, 0] * gain ** (1 / 3)
    disc = np.zeros(L.shape, np.uint8)
    cv2.circle(disc, (cx - x0, cy - y0), r, 255, -1)
    seam = seams(L)
    region = _measure(x0, y0, disc, seam, L, Lbg)
    if region is None:
        return None
    parts = [b for b in split_at(frame, region, [(x, y, size)]) if b is not region]
    if not parts:
        return None
    # a die seen from above is convex: what the watershed let through to a shadow or a
    # neighbour (fingers DIE_AT_OPEN of the die across) is opened away, the rest taken whole
    b = parts[0]
    d = max(3, int(DIE_AT_OPEN * size) | 1)
    body = cv2.morphologyEx(b.mask, cv2.MORPH_OPEN,
                            cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (d, d)))
    cs, _ = cv2.findContours(body, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    if not cs:
        return None
    hull = np.zeros_like(body)
    cv2.drawContours(hull, [cv2.convexHull(max(cs, key=cv2.contourArea))], -1, 255, -1)
    ox, oy = b.x0 - x0, b.y0 - y0
    mask = np.zeros_like(disc)
    mask[oy:oy + hull.shape[0], ox:ox + hull.shape[1]] = hull
    return _measure(x0, y0, mask, seam, L, Lbg)


def split_at(frame: np.ndarray, blob: Blob, centres: list[tuple[float, float, float]],
             rest: float = 0.0) -> list[Blob]:
    """A part holding the centres of several dice (each ``(x, y, size)`` in frame pixels, from
    the die finder): cut apart by a watershed grown from each centre, along the edges between
    the dice. With ``rest`` (pixels), what no centre took (the tray around the part floods
    it: a die the finder did not see) is a die too where a piece of it that large and
    compact is left."""
    h, w = blob.mask.shape
    crop = np.ascontiguousarray(frame[blob.y0:blob.y0 + h, blob.x0:blob.x0 + w])
    markers = np.zeros((h, w), np.int32)
    markers[cv2.dilate(blob.mask, _ELLIPSE5) == 0] = 1
    for k, (x, y, size) in enumerate(centres):
        seed = np.zeros((h, w), np.uint8)
        cv2.circle(seed, (int(round(x - blob.x0)), int(round(y - blob.y0))),
                   max(2, int(SPLIT_SEED * size)), 255, -1)
        markers[(seed > 0) & (blob.mask > 0)] = k + 2
    cv2.watershed(crop, markers)
    seam = seams(blob.L)
    out = []
    taken = np.zeros((h, w), np.uint8)
    for k in range(len(centres)):
        part = ((markers == k + 2) & (blob.mask > 0)).astype(np.uint8) * 255
        part = _fill(cv2.morphologyEx(part, cv2.MORPH_OPEN, _ELLIPSE3))
        if not cv2.countNonZero(part):
            continue
        if cv2.countNonZero(part) < MARK_OF_REST * rest and _ringed(part, blob.mask, markers,
                                                                      k + 2):
            # a mark the finder took for a die (a black die's white symbol, its edge a ring
            # the watershed does not cross): the die is what is left round it
            continue
        b = _measure(blob.x0, blob.y0, part, seam, blob.L, blob.Lbg)
        if b is not None:
            out.append(b)
            taken |= part
    if rest and out:
        left = cv2.bitwise_and(blob.mask, cv2.bitwise_not(cv2.dilate(taken, _ELLIPSE3)))
        # what a disc of REST_CORE of a die fits in: a die's body, not the bands of shadow
        # around the dice the centres took
        d = max(7, int(REST_CORE * float(np.median([c[2] for c in centres]))) | 1)
        disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (d, d))
        left = cv2.bitwise_and(cv2.dilate(cv2.erode(left, disc), disc), left)
        n, lab, st, _ = cv2.connectedComponentsWithStats(left, connectivity=4)
        for j in range(1, n):
            if st[j, cv2.CC_STAT_AREA] < rest:
                continue
            piece = _fill((lab == j).astype(np.uint8) * 255)
            b = _measure(blob.x0, blob.y0, piece, seam, blob.L, blob.Lbg)
            if b is not None and b.solidity >= REST_SOLIDITY:
                out.append(b)
    return out or [blob]
