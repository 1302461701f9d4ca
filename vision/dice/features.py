"""What the reader measures on one die: its face as a rotation-free polar patch and as edge
directions, pips, colour, sharpness and glare. Shared by teaching (examples) and reading (queries)."""

from __future__ import annotations

import math

import cv2
import numpy as np

from .segment import Blob, _lab, quantiles  # noqa: F401  (quantiles: features.quantiles as before)

PATCH_SIDE = 64  # a taught example is kept as a 64x64 crop around the top face's centre
PATCH_MARGIN = 1.25  # the crop covers the patch radius times this
POLAR_ANGLES = 90
POLAR_RADII = 24

_RADIAL_W = np.sqrt((np.arange(POLAR_RADII) + 0.5) / POLAR_RADII).astype(np.float32)


def face_crop(blob: Blob, radius_px: float) -> np.ndarray:
    """The top face around its centre, scaled so that ``radius_px`` becomes the same number
    of crop pixels for every die of a kind (uint8, PATCH_SIDE square)."""
    s = (PATCH_SIDE / 2) / (radius_px * PATCH_MARGIN)
    m = np.array([[s, 0, PATCH_SIDE / 2 - s * (blob.top_cx - blob.x0)],
                  [0, s, PATCH_SIDE / 2 - s * (blob.top_cy - blob.y0)]], np.float32)
    return cv2.warpAffine(blob.L, m, (PATCH_SIDE, PATCH_SIDE), flags=cv2.INTER_AREA
                          if s < 1 else cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def polar(crop: np.ndarray, dx: float = 0.0, dy: float = 0.0) -> np.ndarray:
    """Rows are angles, columns radii (about the crop's centre moved by dx, dy); weighted by
    radius (area), zero mean at each radius, unit norm."""
    c = PATCH_SIDE / 2
    p = cv2.warpPolar(crop.astype(np.float32), (POLAR_RADII, POLAR_ANGLES), (c + dx, c + dy),
                      c / PATCH_MARGIN, cv2.INTER_LINEAR + cv2.WARP_POLAR_LINEAR)
    p -= p.mean(axis=0)  # what every face shares at a radius says nothing about which face
    p = p * _RADIAL_W
    n = float(np.linalg.norm(p))
    return p / n if n > 1e-6 else p


def polar_fft(p: np.ndarray) -> np.ndarray:
    return np.fft.rfft(p, axis=0)


CENTRE_SHIFTS = [(0, 0), (-2, -2), (2, 2)]  # crop pixels (the upright check shifts further)
_FREQS = POLAR_ANGLES // 2 + 1
# Parseval over a real signal's half spectrum: the bins that stand for two (+k and -k)
_PARSEVAL = np.full(_FREQS, 2.0, np.float32)
_PARSEVAL[0] = 1.0
if POLAR_ANGLES % 2 == 0:
    _PARSEVAL[-1] = 1.0


def _polar_maps(n_crops: int, shifts: list[tuple[int, int]]) -> tuple[np.ndarray, np.ndarray]:
    """cv2.remap maps sampling :func:`polar`'s points (the same as cv2.warpPolar's) of
    ``n_crops`` crops stacked one above the other, at every centre shift: rows are (crop,
    shift, radius), columns angles."""
    c, radius = PATCH_SIDE / 2, PATCH_SIDE / 2 / PATCH_MARGIN
    rho = np.arange(POLAR_RADII) * radius / POLAR_RADII
    phi = np.arange(POLAR_ANGLES) * 2 * np.pi / POLAR_ANGLES
    mx = np.concatenate([c + dx + rho[:, None] * np.cos(phi[None, :]) for dx, _ in shifts])
    my = np.concatenate([c + dy + rho[:, None] * np.sin(phi[None, :]) for _, dy in shifts])
    mx = np.tile(mx, (n_crops, 1))
    my = np.concatenate([my + PATCH_SIDE * k for k in range(n_crops)])
    return mx.astype(np.float32), my.astype(np.float32)


_MAPS: dict[tuple[int, int], tuple[np.ndarray, np.ndarray]] = {}


def spectra(crops: np.ndarray, shifts: int = len(CENTRE_SHIFTS)) -> np.ndarray:
    """:func:`polar_fft` of :func:`polar` for a stack of crops (D x PATCH_SIDE x PATCH_SIDE)
    at the first ``shifts`` centre shifts, all at once: D x S x R x F, complex64. Taking out
    each radius's mean is zeroing its angle spectrum's first bin; the norm comes from
    Parseval."""
    d = len(crops)
    maps = _MAPS.get((d, shifts))
    if maps is None:
        maps = _MAPS[(d, shifts)] = _polar_maps(d, CENTRE_SHIFTS[:shifts])
    tall = np.ascontiguousarray(crops, np.float32).reshape(d * PATCH_SIDE, PATCH_SIDE)
    p = cv2.remap(tall, maps[0], maps[1], cv2.INTER_LINEAR,
                  borderMode=cv2.BORDER_REPLICATE)
    x = np.fft.rfft(p.reshape(d, shifts, POLAR_RADII, POLAR_ANGLES), axis=-1)
    x[..., 0] = 0
    x *= _RADIAL_W[:, None]
    energy = np.einsum("dsrf,f->ds", x.real ** 2 + x.imag ** 2, _PARSEVAL) / POLAR_ANGLES
    x /= np.sqrt(np.where(energy > 1e-12, energy, 1.0))[:, :, None, None]
    return x.astype(np.complex64, copy=False)


def template_bank(crops: list[np.ndarray]) -> np.ndarray:
    """Taught crops as :func:`match_many` takes them: F x R x n (their polar spectra at the
    crop's centre)."""
    x = spectra(np.stack(crops), shifts=1)[:, 0]  # n x R x F
    return np.ascontiguousarray(x.transpose(2, 1, 0))


def match_many(crops: np.ndarray, bank: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Best normalised correlation of each query crop (D x PATCH_SIDE x PATCH_SIDE) with each
    template of ``bank`` (:func:`template_bank`), over every rotation and a few centre
    shifts (the top face's centre is known to a pixel or two). Either contrast counts (dark
    numerals on a yellow die match light ones on a red die). Returns (scores, best rotation
    in degrees), each D x n. One call for all the dice of a frame: the work is a few array
    operations whatever the number of dice."""
    q = spectra(crops)  # D x S x R x F
    d, s = q.shape[:2]
    qf = np.conj(q).reshape(d * s, POLAR_RADII, _FREQS).transpose(2, 0, 1)  # F x DS x R
    prod = np.matmul(qf, bank)  # F x DS x n
    corr = np.abs(np.fft.irfft(prod, n=POLAR_ANGLES, axis=0))  # A x DS x n
    corr = corr.reshape(POLAR_ANGLES, d, s, -1).max(axis=2)  # A x D x n
    k = corr.argmax(axis=0)  # D x n
    c0 = np.take_along_axis(corr, k[None], 0)[0]
    cm = np.take_along_axis(corr, (k - 1)[None] % POLAR_ANGLES, 0)[0]
    cp = np.take_along_axis(corr, (k + 1)[None] % POLAR_ANGLES, 0)[0]
    # the peak between the sampled angles (a parabola through the best and its neighbours)
    curv = cm - 2 * c0 + cp
    frac = np.where(curv < -1e-9, 0.5 * (cm - cp) / np.where(curv < -1e-9, curv, -1.0), 0.0)
    return c0, (k + np.clip(frac, -0.5, 0.5)) * (360.0 / POLAR_ANGLES)


def match(crop: np.ndarray, bank: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`match_many` for one crop: (scores, angles), each n."""
    scores, angles = match_many(crop[None], bank)
    return scores[0], angles[0]


# the template's middle that is compared: the symbol or numeral, not the face's corners
# (which every face of a kind shares: a D12's pentagon turns with its numeral)
VERIFY_MARGIN = 14
_INNER = slice(VERIFY_MARGIN, PATCH_SIDE - VERIFY_MARGIN)
VERIFY_SHIFT = 4  # crop pixels either way (the top face's centre is known to a pixel or two)
_VERIFY_SIDE = PATCH_SIDE - 2 * VERIFY_MARGIN + 2 * VERIFY_SHIFT


def middle(template: np.ndarray) -> np.ndarray:
    """The part of a taught crop :func:`verify` compares (cut once per template)."""
    return np.ascontiguousarray(template[_INNER, _INNER], np.float32)


def verify(crop: np.ndarray, template: np.ndarray, angle: float) -> float:
    """Normalised correlation of the template's middle with the query crop turned by
    ``angle`` (the polar match's, refined between its samples), over shifts of up to
    VERIFY_SHIFT pixels; either contrast. Sharper than the polar score: it tells 11 from
    12 and 6 from 9."""
    t = template if template.shape[0] == PATCH_SIDE - 2 * VERIFY_MARGIN else middle(template)
    off = (PATCH_SIDE - _VERIFY_SIDE) / 2  # only the middle of the turned crop is needed
    m = cv2.getRotationMatrix2D((PATCH_SIDE / 2, PATCH_SIDE / 2), -angle, 1.0)
    m[:, 2] -= off
    r = cv2.warpAffine(crop, m, (_VERIFY_SIDE, _VERIFY_SIDE), flags=cv2.INTER_LINEAR,
                       borderMode=cv2.BORDER_REPLICATE)
    lo, hi, _, _ = cv2.minMaxLoc(cv2.matchTemplate(r, t, cv2.TM_CCOEFF_NORMED))
    return max(0.0, float(hi), float(-lo))


# ---------------------------------------------------------------- gradients
# The taught face's symbol as the directions of its strokes: a histogram of edge directions
# in 8x8 cells of the crop's middle (the top face's symbol or numeral, not its neighbours).
# Edge directions do not care about shading, which differs between where a die was taught
# and where it lands (the light is to one side; a tray is lit unevenly), nor about which of
# ink and body is lighter. Each taught crop is kept at every GRAD_TURN degrees, and a die is
# compared with all of them at a few centre shifts: the nearest taught face is its reading.
GRAD_SIDE = 32  # crop pixels: the middle compared (a crop covers 2.5 patch radii in 64)
GRAD_CELL = 4
GRAD_BINS = 9  # directions over 180 degrees: a stroke's either side
GRAD_TURNS = 36  # every 10 degrees
GRAD_SHIFTS = [(dx, dy) for dy in (-3, 0, 3) for dx in (-3, 0, 3)]  # the centre is known
GRAD_DIM = (GRAD_SIDE // GRAD_CELL) ** 2 * GRAD_BINS  # to a few pixels
GRAD_COARSE_DIM = GRAD_DIM // 4
_GRAD_PAD = GRAD_SIDE + 2  # a pixel more each side for the differences
_GRAD_EDGE = (PATCH_SIDE - _GRAD_PAD) // 2  # the crop's pixels around its middle


def _middles(crops: np.ndarray, moves: list[tuple[float, float, float]]) -> np.ndarray:
    """Each crop's middle (with its pad) after each (turn in degrees, dx, dy): N x M x P x P."""
    n = len(crops)
    out = np.empty((n, len(moves), _GRAD_PAD, _GRAD_PAD), np.float32)
    if all(turn == 0 and float(dx).is_integer() and float(dy).is_integer()
           and abs(dx) <= _GRAD_EDGE and abs(dy) <= _GRAD_EDGE for turn, dx, dy in moves):
        # whole-pixel shifts, not turned (a die's crop): the same pixels, cut out
        for j, (_, dx, dy) in enumerate(moves):
            y, x = _GRAD_EDGE + int(dy), _GRAD_EDGE + int(dx)
            out[:, j] = crops[:, y:y + _GRAD_PAD, x:x + _GRAD_PAD]
        return out
    c = PATCH_SIDE / 2
    for j, (turn, dx, dy) in enumerate(moves):
        m = cv2.getRotationMatrix2D((c + dx, c + dy), turn, 1.0)
        m[0, 2] -= (PATCH_SIDE - _GRAD_PAD) / 2 + dx
        m[1, 2] -= (PATCH_SIDE - _GRAD_PAD) / 2 + dy
        for i in range(n):
            out[i, j] = cv2.warpAffine(crops[i], m, (_GRAD_PAD, _GRAD_PAD),
                                       flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return out


def _binned(gx: np.ndarray, gy: np.ndarray, base: np.ndarray, stride: int,
            size: int) -> np.ndarray:
    """Each pixel's edge strength (``gx``, ``gy``: float32) shared between its two nearest
    of GRAD_BINS directions over 180 degrees, summed into slot ``base + direction * stride``
    (``base``: each pixel's first slot): a flat array of ``size`` slots."""
    mag, angle = cv2.cartToPolar(gx, gy)  # angle 0..2 pi: a stroke's two sides fold below
    pos = angle * np.float32(GRAD_BINS / np.pi)
    low = pos.astype(np.int32)
    w_high = mag * (pos - low)
    b0 = low % GRAD_BINS
    b1 = b0 + 1
    b1[b1 == GRAD_BINS] = 0
    # each side counted on its own (joining the two first took most of the time)
    h = np.bincount((base + b0 * stride).ravel(), (mag - w_high).ravel(), size)
    h += np.bincount((base + b1 * stride).ravel(), w_high.ravel(), size)
    return h


def _histograms(middles: np.ndarray) -> np.ndarray:
    """Edge-direction histograms of padded middles (... x P x P): n x cells x cells x bins,
    each pixel's edge strength shared between its two nearest directions."""
    m = middles.reshape(-1, _GRAD_PAD, _GRAD_PAD).astype(np.float32, copy=False)
    n = len(m)
    gx = np.ascontiguousarray(m[:, 1:-1, 2:] - m[:, 1:-1, :-2]).reshape(-1, GRAD_SIDE)
    gy = np.ascontiguousarray(m[:, 2:, 1:-1] - m[:, :-2, 1:-1]).reshape(-1, GRAD_SIDE)
    h = _binned(gx, gy, _cell_base(n), 1, n * _CELLS * _CELLS * GRAD_BINS)
    return h.reshape(n, _CELLS, _CELLS, GRAD_BINS)


_CELLS = GRAD_SIDE // GRAD_CELL
_BASES: dict[int, np.ndarray] = {}


def _cell_base(n: int) -> np.ndarray:
    """Each pixel's first histogram slot (its image's and cell's), for n stacked middles."""
    base = _BASES.get(n)
    if base is None:
        cell = np.arange(GRAD_SIDE) // GRAD_CELL
        cell_of = (cell[:, None] * _CELLS + cell[None, :])[None]
        base = ((np.arange(n, dtype=np.int32)[:, None, None] * _CELLS * _CELLS + cell_of)
                * GRAD_BINS).astype(np.int32).reshape(-1, GRAD_SIDE)
        if n <= 512:  # the reader's sizes, not a teaching bank's
            _BASES[n] = base
    return base


def _unit(h: np.ndarray) -> np.ndarray:
    """Square roots of the cells' sums (a few strong edges do not outweigh the rest), of
    unit length: n x features."""
    d = np.sqrt(h.reshape(len(h), -1)).astype(np.float32)
    d /= np.linalg.norm(d, axis=1, keepdims=True) + 1e-6
    return d


def _coarse(h: np.ndarray) -> np.ndarray:
    """The histograms over cells twice as wide (2x2 cells summed): the quick first look."""
    n, c = len(h), h.shape[1] // 2
    return _unit(h.reshape(n, c, 2, c, 2, GRAD_BINS).sum(axis=(2, 4)))


def gradient_features(middles: np.ndarray) -> np.ndarray:
    """Edge-direction features of padded middles (... x P x P): ... x GRAD_DIM, of unit
    length."""
    return _unit(_histograms(middles)).reshape(*middles.shape[:-2], GRAD_DIM)


def gradient_bank(crops: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Taught crops (N x 64 x 64) at every turn: their features (N x GRAD_TURNS x GRAD_DIM)
    and the coarse ones (N x GRAD_TURNS x GRAD_COARSE_DIM), float32."""
    n = len(crops)
    if n == 0:
        return (np.zeros((0, GRAD_TURNS, GRAD_DIM), np.float32),
                np.zeros((0, GRAD_TURNS, GRAD_COARSE_DIM), np.float32))
    moves = [(k * 360.0 / GRAD_TURNS, 0.0, 0.0) for k in range(GRAD_TURNS)]
    h = _histograms(_middles(np.asarray(crops, np.float32), moves))
    return (_unit(h).reshape(n, GRAD_TURNS, GRAD_DIM),
            _coarse(h).reshape(n, GRAD_TURNS, GRAD_COARSE_DIM))


def gradient_scores(crops: np.ndarray, bank: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """Each query crop's (D x 64 x 64) best likeness to each taught crop of ``bank``
    (:func:`gradient_bank`), over every turn and centre shift: D x N, 0..1. The coarse
    features find each taught crop's best turn and shift; the full ones are compared there
    and at the turns either side (a tenth of the work of comparing all of them)."""
    fine, coarse = bank
    n = len(fine)
    if len(crops) == 0 or n == 0:
        return np.zeros((len(crops), n), np.float32)
    shifts = [(0.0, float(dx), float(dy)) for dx, dy in GRAD_SHIFTS]
    h = _histograms(_middles(np.asarray(crops, np.float32), shifts))
    d, s = len(crops), len(shifts)
    qf = _unit(h).reshape(d, s, GRAD_DIM)
    qc = _coarse(h)  # DS x coarse
    sims = (qc @ coarse.reshape(-1, GRAD_COARSE_DIM).T).reshape(d, s, n, GRAD_TURNS)
    best = sims.transpose(0, 2, 1, 3).reshape(d, n, s * GRAD_TURNS).argmax(axis=2)  # D x N
    shift, turn = best // GRAD_TURNS, best % GRAD_TURNS
    q = qf[np.arange(d)[:, None], shift]  # D x N x GRAD_DIM: each pair's best shift
    turns = (turn[:, :, None] + np.array([-1, 0, 1])) % GRAD_TURNS  # D x N x 3
    rows = (np.arange(n)[None, :, None] * GRAD_TURNS + turns).ravel()
    t = _float32(np.take(fine.reshape(n * GRAD_TURNS, GRAD_DIM), rows, axis=0)
                 ).reshape(d, n, 3, GRAD_DIM)  # D x N x 3 x GRAD_DIM
    return np.einsum("dnk,dnjk->dnj", q, t).max(axis=2)


def _float32(rows: np.ndarray) -> np.ndarray:
    """Rows of features (R x GRAD_DIM) as float32: a profile's ready bank is float16, which
    numpy widens several times slower than OpenCV does (the same values: x + 0 is x)."""
    if rows.dtype == np.float16 and len(rows):
        try:
            return cv2.add(rows, 0.0, dtype=cv2.CV_32F)
        except cv2.error:  # an OpenCV without half-float arithmetic
            pass
    return rows.astype(np.float32, copy=False)


# A closer look at two faces a die's likeness cannot tell apart (a D12's 3 and 5, 11 and 12,
# 6 and 9): the die's crop moved by every whole pixel up to FINE_SHIFT either way, not in
# steps of 3, and each taught crop compared at every turn and, either side of its best, half
# a turn (GRAD_TURN / 2) further. A numeral's strokes are 2 to 3 pixels wide here, its
# cells 4; 16 pixels from the middle, a 10-degree turn moves them almost 3.
FINE_SHIFT = 4
_FINE_SHIFTS = [(0.0, float(dx), float(dy)) for dy in range(-FINE_SHIFT, FINE_SHIFT + 1)
                for dx in range(-FINE_SHIFT, FINE_SHIFT + 1)]


_FINE_SIDE = GRAD_SIDE + 2 * FINE_SHIFT  # the pixels whose edges some move counts
_FINE_FIRST = _GRAD_EDGE + 1 - FINE_SHIFT  # the first of them, in the crop
_FINE_CELL_AT = np.arange(GRAD_SIDE // GRAD_CELL) * GRAD_CELL
# each move's cells' first rows and columns in those pixels (moves x cells x 1, moves x 1 x
# cells), in _FINE_SHIFTS's order
_FINE_ROWS = np.array([FINE_SHIFT + int(dy) for _, _, dy in _FINE_SHIFTS])[:, None, None] \
    + _FINE_CELL_AT[None, :, None]
_FINE_COLS = np.array([FINE_SHIFT + int(dx) for _, dx, _ in _FINE_SHIFTS])[:, None, None] \
    + _FINE_CELL_AT[None, None, :]
_FINE_PIXELS = np.arange(_FINE_SIDE * _FINE_SIDE).reshape(_FINE_SIDE, _FINE_SIDE)


def fine_features(crop: np.ndarray) -> np.ndarray:
    """A die's crop's (64 x 64) features at every whole-pixel move up to FINE_SHIFT (in
    _FINE_SHIFTS's order): moves x GRAD_DIM, as :func:`gradient_features` gives them for
    each move's middle. A pixel's edge is the same whichever middle it is in: the edges are
    binned once, and each move's cells summed from their integral images (81 middles
    histogrammed one by one took six times as long)."""
    c, n, e = np.asarray(crop, np.float32), _FINE_SIDE, _FINE_FIRST
    gx = np.ascontiguousarray(c[e:e + n, e + 1:e + n + 1] - c[e:e + n, e - 1:e + n - 1])
    gy = np.ascontiguousarray(c[e + 1:e + n + 1, e:e + n] - c[e - 1:e + n - 1, e:e + n])
    maps = _binned(gx, gy, _FINE_PIXELS, n * n, GRAD_BINS * n * n)  # a map per direction
    sums = np.zeros((GRAD_BINS, n + 1, n + 1))
    sums[:, 1:, 1:] = maps.reshape(GRAD_BINS, n, n).cumsum(1).cumsum(2)
    r, q, g = _FINE_ROWS, _FINE_COLS, GRAD_CELL
    cells = sums[:, r + g, q + g] - sums[:, r, q + g] - sums[:, r + g, q] + sums[:, r, q]
    # (a cell's sum is no less than 0: what differencing leaves under it is rounding)
    return _unit(np.maximum(cells, 0.0).transpose(1, 2, 3, 0))


def fine_likeness(moves: np.ndarray, crops: np.ndarray, bank: np.ndarray) -> float:
    """The best likeness of a die's moved features (:func:`fine_features`) to a face's
    taught crops (N x 64 x 64), whose full features at every turn are ``bank`` (N x
    GRAD_TURNS x GRAD_DIM, float16 or float32: :func:`gradient_bank`): at every turn, and
    half a turn either side of each crop's best. 0 without any crop."""
    n = len(crops)
    if n == 0:
        return 0.0
    sims = (moves @ _float32(bank.reshape(-1, GRAD_DIM)).T).max(axis=0).reshape(n, GRAD_TURNS)
    step = 360.0 / GRAD_TURNS
    halves = np.empty((n, 2, _GRAD_PAD, _GRAD_PAD), np.float32)
    for i, k in enumerate(sims.argmax(axis=1)):
        halves[i] = _middles(np.asarray(crops[i], np.float32)[None],
                             [((k + h) * step, 0.0, 0.0) for h in (-0.5, 0.5)])[0]
    turned = gradient_features(halves).reshape(-1, GRAD_DIM)
    return max(float(sims.max()), float((moves @ turned.T).max()))


# ---------------------------------------------------------------- pips

_LAYOUTS = {1: {(0, 0)}, 2: {(-1, -1), (1, 1)}, 3: {(-1, -1), (0, 0), (1, 1)},
            4: {(-1, -1), (1, -1), (-1, 1), (1, 1)},
            5: {(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)},
            6: {(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)}}
_ELLIPSE3 = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3))


def _rot90(cells):
    return {(-y, x) for x, y in cells}


PIP_MARGIN = 4  # pixels round the top face: more than its erosion (2) reaches


def read_pips(blob: Blob, L: np.ndarray | None = None) -> tuple[str | None, float]:
    """(face "1".."6" or None, confidence): the spots on the top face that contrast with it,
    if every one is round and pip-sized and together they sit on a pip D6's 3x3 grid (in
    the face's own orientation, spaced as the face's size allows). ``L``: what is counted
    in, over the blob's box: its lightness (``blob.L``) unless given (:func:`colour_pips`)."""
    # in the top face's own box (PIP_MARGIN round it), not the part's: a crowd's part is
    # many dice large
    tx, ty, tw, th = cv2.boundingRect(blob.top)
    bh, bw = blob.top.shape
    wx, wy = max(0, tx - PIP_MARGIN), max(0, ty - PIP_MARGIN)
    box = (slice(wy, min(bh, ty + th + PIP_MARGIN)), slice(wx, min(bw, tx + tw + PIP_MARGIN)))
    L = (blob.L if L is None else L)[box]
    inner = cv2.erode(_convex(blob.top[box]), _ELLIPSE3, iterations=2)
    vals = L[inner > 0]
    if vals.size < 50:
        return None, 0.0
    lo, body, hi = quantiles(vals, (1, 50, 99))
    dark = (body - lo) > (hi - body)
    contrast = float(body - lo if dark else hi - body)
    if contrast < 8:
        return None, 0.0
    side = math.sqrt(blob.top_area)
    expect = math.pi * (0.085 * side) ** 2
    # what touches the face's edge is an edge (a rim, a side face seen with the top), not a pip
    ring = cv2.subtract(inner, cv2.erode(inner, _ELLIPSE3))
    pts = _pip_spots(L, inner, ring, body - contrast / 2 if dark else body + contrast / 2,
                     dark, expect)
    if pts is None:
        return None, 0.0
    local = pts
    pts = [c + (wx, wy) for c in pts]  # in the part's box
    k = len(pts)
    if k not in _LAYOUTS:
        return None, 0.0
    p = np.array(pts, np.float64)
    p -= p.mean(axis=0)  # every pip layout is centred on the face
    a = math.radians(blob.top_rect[2])
    rot = np.array([[math.cos(a), math.sin(a)], [-math.sin(a), math.cos(a)]])
    if k == 1:
        (cx, cy), _, _ = blob.top_rect
        off = math.hypot(pts[0][0] + blob.x0 - cx, pts[0][1] + blob.y0 - cy) / side
        conf = _clip01(1.0 - (off - 0.08) / 0.15) * min(1.0, contrast / 25)
        if conf <= 0:
            return None, 0.0
        if _faintest(L, inner, np.array(local, np.float64), rot, ONE_STEP * side, {(0, 0)},
                     body, side) >= FAINT:
            conf = min(conf, FAINT_PIPS)
        return "1", conf
    q = p @ rot.T
    step = float(np.abs(q).max(axis=0).mean()) if k > 3 else float(np.abs(q).max())
    if not 0.17 * side <= step <= 0.4 * side:
        return None, 0.0
    g = q / step
    if k in (2, 3):  # on a diagonal: the grid is the face's, turned 45 degrees or not
        g = np.abs(q).max(axis=1, keepdims=True) * np.sign(q) / step
    cells = [tuple(int(round(v)) for v in row) for row in g]
    if any(abs(c) > 1 for cell in cells for c in cell) or len(set(cells)) != k:
        return None, 0.0
    got = set(cells)
    if got != _LAYOUTS[k] and got != _rot90(_LAYOUTS[k]):
        return None, 0.0
    worst = float(np.abs(g - np.array(cells)).max())
    conf = _clip01(1.0 - (worst - 0.15) / 0.3) * min(1.0, contrast / 25)
    if _faintest(L, inner, np.array(local, np.float64), rot, step, set(cells), body,
                 side) >= FAINT:
        conf = min(conf, FAINT_PIPS)  # a paler pip where the count saw none: not sure
    return str(k), conf


# Pips of another colour than their face but hardly lighter or darker: an ivory die's pale
# pips under a lamp (on the fourth renderer's tuning tower d9161 its face peach, its pips
# whitish, 3 to 5 apart in lightness: read_pips finds no count) are counted as read_pips counts
# by lightness, in how far each pixel's colour lies from the face's median (CIE Lab, its
# lightness weighed PIP_LIGHTNESS: shading moves lightness most). Not a reading alone: the reader
# takes it where the face classifier's likeliest face is the same (reader._pips_agree).
# Measured on the 36 tuning towers of bench/tower_sets.py: of the 2,069 flat pip dice found,
# read_pips counted none on 616; this count was right and at least 0.6 sure on 89, 88 and 98
# of them at weights 0, 1 and 0.5, and wrong so on 1, 2 and 2 (docs/vision.md, "Pips of
# another colour than their face").
PIP_LIGHTNESS = 0.5


def colour_pips(blob: Blob, frame: np.ndarray) -> tuple[str | None, float]:
    """:func:`read_pips` of the die's pips by their colour in ``frame`` (BGR uint8, where
    the blob was found): what is counted is each pixel's distance from the top face's median
    colour (CIE Lab, L 0..100; PIP_LIGHTNESS)."""
    inner = cv2.erode(_convex(blob.top), _ELLIPSE3, iterations=2)
    if cv2.countNonZero(inner) < 50:
        return None, 0.0
    h, w = blob.top.shape
    lab = _lab(frame[blob.y0:blob.y0 + h, blob.x0:blob.x0 + w])
    d = lab - np.median(lab[inner > 0], axis=0).astype(np.float32)
    d[..., 0] *= np.float32(PIP_LIGHTNESS)
    return read_pips(blob, np.sqrt((d * d).sum(axis=2)))


# Pips a lamp or a glossy face shades unevenly: counted at half the contrast of the darkest,
# the pale ones are lost (a 4 with two dark pips read as a 2, a 6 as a 3). Where a place of
# the face's 3x3 grid the count left empty is FAINT of the way from the face's lightness to
# its pips', a pale pip stands there: the count is not sure (FAINT_PIPS: under
# CLEAN_CONFIDENCE, so the taught faces and the face classifier are asked too). On 33 tuning
# towers of three independent renderers (b100-b103, b107, b116-b119, c10-c15, d9000-d9011,
# a8100, a8200, a8620-a8623), the empty places of 1,141 flat pip dice counted right were at
# most 0.12 of the way in 99 of 100 (3 from 0.25); of 38 counts of a wrong face (or of
# another kind's die), 21 were 0.25 or more.
FAINT = 0.25
FAINT_PIPS = 0.45
# ... the grid's step round a lone pip (the others' give it): 0.23 to 0.29 of the face's side
# (5th to 95th percentile of the faces of 4 to 6 pips on towers of four renderers)
ONE_STEP = 0.26


def _faintest(L: np.ndarray, inner: np.ndarray, pips: np.ndarray, rot: np.ndarray,
              step: float, cells: set[tuple[int, ...]], body: float, side: float) -> float:
    """How far the darkest of the 3x3 grid's places without a pip (``cells`` hold them: the
    grid turned by ``rot``, ``step`` apart, centred on the ``pips``' mean) is from the face's
    lightness ``body`` towards the pips' (0: as light as the face, 1: as dark as its pips):
    the mean of a small disc (half a pip's radius) there, wholly inside the face ``inner``.
    0 where no place can be seen."""
    r = max(1, int(round(0.5 * 0.085 * side)))
    disc = np.zeros((2 * r + 1, 2 * r + 1), np.uint8)
    cv2.circle(disc, (r, r), r, 1, -1)
    h, w = L.shape

    def mean_at(x: float, y: float) -> float | None:
        xi, yi = int(round(x)), int(round(y))
        if not (r <= xi < w - r and r <= yi < h - r):
            return None
        win = (slice(yi - r, yi + r + 1), slice(xi - r, xi + r + 1))
        if (inner[win][disc > 0] == 0).any():
            return None
        return float(L[win][disc > 0].mean())

    centre = pips.mean(axis=0)
    ink = [m for m in (mean_at(x, y) for x, y in pips) if m is not None]
    depth = float(np.mean(ink)) - body if ink else 0.0
    if abs(depth) < 1e-6:
        return 0.0
    faintest = 0.0
    for cx in (-1, 0, 1):
        for cy in (-1, 0, 1):
            if (cx, cy) in cells:
                continue
            x, y = centre + np.array([cx, cy], np.float64) * step @ rot
            m = mean_at(x, y)
            if m is not None:
                faintest = max(faintest, (m - body) / depth)
    return faintest


def _convex(face: np.ndarray) -> np.ndarray:
    """A top face's mask filled to its convex outline. A flat face is convex; a dark pip at
    its corner can be cut out of it with the tray (a light tray, white dice with grey pips:
    the fourth renderer's tower 9140), which left a 3 with only its middle pip inside, read
    as a 1 at 0.97. Within the convex outline such a pip is counted, or touches the face's
    edge and the count is not sure (on fresh towers of four renderers, 2,618 dice: wrong faces
    14 -> 9, flat dice read right 1,265 -> 1,268; on the tuning towers 12 -> 13 and 1,841 ->
    1,842)."""
    pts = cv2.findNonZero(face)
    if pts is None:
        return face
    out = np.zeros_like(face)
    cv2.fillConvexPoly(out, cv2.convexHull(pts), 255)
    return out


# A pip-like spot on the top face's edge as found: the face's light stopped at a dark pip near
# its edge, so the face was found smaller than it is and the pip lies on its outline (the first
# renderer's a8200: 39 of its 55 flat pip dice counted no face; the fifth's e340, 30 of 40).
# Such a spot counts as a pip where the face then shows RIM_PIPS_LEAST pips or more, each on
# the 3x3 grid of the face's layout (read_pips checks it); fewer, the count is not sure: a lone
# pip or a 3's middle one with a pip-like spot of the edge beside it makes a 2 (on the 36 tuning
# towers of bench/tower_sets.py, of the counts such a spot changed, read 0.6 sure or more, all 10
# wrong ones were a 2, as were 40 right ones; none of 3 pips or more was wrong). Read so, on
# those towers: flat dice clean and right 1,807 -> 1,808 and 1,954 -> 1,966, no wrong face more,
# no tilted die fewer flagged; where not tuned, five fresh towers 508 -> 509, the fifth
# renderer's e318-e321 372 -> 373, six unseen towers 635 -> 641, no other figure changed
RIM_PIPS_LEAST = 3


def _pip_spots(L: np.ndarray, inner: np.ndarray, ring: np.ndarray, thr: float, dark: bool,
               expect: float) -> list[np.ndarray] | None:
    """The centres of the spots of the face ``inner`` darker (``dark``) or lighter than
    ``thr``, each round and pip-sized (about ``expect`` pixels); None where a spot is not a
    pip (a symbol, a numeral, an edge). A pip-like spot touching the face's edge (``ring``)
    is a pip the face as found was cut at, where RIM_PIPS_LEAST spots or more are counted;
    else the count is not sure (None). A spot on the ring that is not pip-like is an edge:
    left out."""
    pip = (((L < thr) if dark else (L > thr)).astype(np.uint8) * 255) & inner
    n, labels, st, cen = cv2.connectedComponentsWithStats(pip, connectivity=8)
    on_rim = set(np.unique(labels[ring > 0]).tolist())
    pts = []
    cut = False  # a pip-like spot on the face's edge
    for i in range(1, n):
        area = st[i, cv2.CC_STAT_AREA]
        if area < 0.15 * expect:
            continue  # noise
        bw, bh = st[i, cv2.CC_STAT_WIDTH], st[i, cv2.CC_STAT_HEIGHT]
        pip_like = (0.3 * expect <= area <= 3.0 * expect
                    and max(bw, bh) <= 1.8 * min(bw, bh) + 1 and area >= 0.5 * bw * bh)
        if i in on_rim:
            if not pip_like:
                continue  # an edge
            cut = True
        elif not pip_like:
            return None
        pts.append(cen[i])
    if cut and len(pts) < RIM_PIPS_LEAST:
        return None
    return pts


# ---------------------------------------------------------------- pips on their grid alone

# Pips counted with no top face: where the face as found is the whole die (a close camera
# shows a flat die's side faces, a pale die's top does not stand apart from them), its side
# faces' shading and edges lie within it and read_pips finds no count. The pips are the
# spot-like marks (at a pip's size, darker or lighter than round them) of which some lie on
# a pip face's 3x3 grid, in one of its layouts, and no other strong mark lies on that grid:
# every layout but the 1 has two pips at opposite corners, so each two marks are tried as
# those corners. Measured on the 36 tuning towers of bench/tower_sets.py (docs/vision.md, "Pips
# on their grid"): of the pip dice this count and the face classifier's likeliest face name
# alike, none was another face.
GRID_PIP = 0.072  # a pip's radius, of the die's size as found (0.085 of its top face's side)
GRID_SPOTS = 10  # the strongest marks looked at
GRID_WEAK = 0.35  # a mark this much as strong as the strongest, or less: not looked at
GRID_STEP = (0.17, 0.36)  # the grid's step, of the die's size
GRID_CENTRE = 0.3  # the grid's middle at most this far from the die's centre, of its size
GRID_ON = 0.3  # a mark this near a place of the grid (of its step) is on it
GRID_OFF = 0.55  # ... a strong mark (half the strongest's) off the grid this near one: no grid
GRID_FIT = 0.25  # every pip within this of its place, of the step
GRID_EMPTY = 0.15  # a place without a pip marked this much of the weakest pip's mark: a pip
GRID_POLARITY = 1.5  # the counts of dark and light marks that differ: the one this much stronger
_GRID_CELLS = np.array([(x, y) for y in (-1, 0, 1) for x in (-1, 0, 1)], np.float64)
_GRID_FACES = {frozenset(cells): str(k) for k, layout in _LAYOUTS.items() if k > 1
               for cells in (layout, _rot90(layout))}


def grid_pips(blob: Blob) -> str | None:
    """The face ("2".."6") whose pips lie on their grid among the die's spot-like marks
    (:data:`GRID_PIP` and the rest), read with no top face; None where no layout fits, or
    where dark marks and light ones fit two layouts about as strongly. Not a reading on its
    own: the reader takes it where the face classifier's likeliest face is the same."""
    found = {dark: _grid_count(blob, dark) for dark in (True, False)}
    fits = [f for f in found.values() if f is not None]
    if len(fits) == 2 and fits[0][0] != fits[1][0]:
        (a_face, a), (b_face, b) = fits
        if max(a, b) < GRID_POLARITY * min(a, b):
            return None
        return a_face if a > b else b_face
    return fits[0][0] if fits else None


def _marks(blob: Blob, dark: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                                              float] | None:
    """The die's spot-like marks at a pip's size, ``dark`` or light: their places (N x 2, in
    the blob's box) and strengths (N, the strongest first, GRID_SPOTS of them at most, none
    GRID_WEAK of the strongest or weaker), the strength everywhere (the Hessian's smaller
    eigenvalue of the lightness smoothed to a pip's size: large at a spot, small along an
    edge), the smoothed lightness (negated for light marks) and its median over the die;
    None where no mark is seen."""
    size = blob.size
    sigma = max(0.8, GRID_PIP * size / math.sqrt(2))
    g = cv2.GaussianBlur(blob.L.astype(np.float32), (0, 0), sigma)
    if not dark:
        g = -g
    gxx = cv2.Sobel(g, cv2.CV_32F, 2, 0, ksize=3)
    gyy = cv2.Sobel(g, cv2.CV_32F, 0, 2, ksize=3)
    gxy = cv2.Sobel(g, cv2.CV_32F, 1, 1, ksize=3)
    trace = gxx + gyy
    mark = (trace - np.sqrt(np.maximum(trace * trace - 4 * (gxx * gyy - gxy * gxy), 0))) \
        * np.float32(sigma * sigma / 2)
    reach = max(1, int(round(0.7 * GRID_PIP * size)))
    inner = cv2.erode(blob.mask, _ELLIPSE3, iterations=reach)
    peaks = (mark >= cv2.dilate(mark, np.ones((3, 3), np.uint8))) & (mark > 0) & (inner > 0)
    ys, xs = np.nonzero(peaks)
    if len(xs) < 1:
        return None
    v = mark[ys, xs]
    order = np.argsort(-v)[:GRID_SPOTS]
    order = order[v[order] > GRID_WEAK * v[order[0]]]
    pts = np.stack([xs[order], ys[order]], axis=1).astype(np.float64)
    return pts, v[order].astype(np.float64), mark, g, float(np.median(g[inner > 0]))


def _grid_count(blob: Blob, dark: bool) -> tuple[str, float] | None:
    """(face, the weakest pip's mark) of the largest layout whose pips, ``dark`` or light
    marks (:func:`_marks`), fit their grid in ``blob``; None where none does."""
    marks = _marks(blob, dark)
    if marks is None or len(marks[0]) < 2:
        return None
    pts, v, mark, g, body = marks
    size = blob.size
    centre = np.array([blob.cx - blob.x0, blob.cy - blob.y0])
    h, w = mark.shape
    best: tuple[int, float] | None = None
    for i in range(len(pts)):
        for j in range(i + 1, len(pts)):
            diag = pts[j] - pts[i]
            d = math.hypot(diag[0], diag[1]) / (2 * math.sqrt(2))
            mid = (pts[i] + pts[j]) / 2
            if not GRID_STEP[0] * size <= d <= GRID_STEP[1] * size \
                    or math.hypot(*(mid - centre)) > GRID_CENTRE * size:
                continue
            turn = math.atan2(diag[1], diag[0]) - math.pi / 4
            u = d * np.array([math.cos(turn), math.sin(turn)])
            places = mid + _GRID_CELLS[:, :1] * u + _GRID_CELLS[:, 1:] * np.array([-u[1], u[0]])
            far = np.linalg.norm(pts[:, None, :] - places[None, :, :], axis=2) / d  # N x 9
            near, at = far.min(axis=1), far.argmin(axis=1)
            on = near <= GRID_ON
            taken = set(at[on].tolist())
            if (~on & (near <= GRID_OFF) & (v >= 0.5 * v[0])).any() \
                    or len(taken) != int(on.sum()) or near[on].max() > GRID_FIT:
                continue
            face = _GRID_FACES.get(frozenset(tuple(_GRID_CELLS[k].astype(int)) for k in taken))
            if face is None:
                continue
            weakest = float(v[on].min())
            empty = [mark[int(round(y)), int(round(x))] for k, (x, y) in enumerate(places)
                     if k not in taken and 0 <= round(x) < w and 0 <= round(y) < h]
            if empty and max(empty) >= GRID_EMPTY * weakest:
                continue  # a pip the marks missed
            ink = float(np.mean([g[int(round(y)), int(round(x))] for x, y in pts[on]]))
            if ink >= body:
                continue  # marks no darker (lighter) than the die: not its pips
            if best is None or (int(face), weakest) > best:
                best = (int(face), weakest)
    return None if best is None else (str(best[0]), best[1])


def _clip01(v: float) -> float:
    return max(0.0, min(1.0, v))


# ---------------------------------------------------------------- colour, quality

# a die whose top face is SATURATED or more in every channel over BLOWN of it (a lamp's
# reflection filling the face) shows its colour only beside that: the rest of the die is
# measured (on the fourth renderer's towers 9142 and 9143, blue pip dice and red symbol dice
# under such a light were named white like the taught dice whose tops were blown out too, and
# ivory pip dice white). Chosen looking at those two towers: 9143's colour 75.2 -> 86.4 %,
# 9142's 74.5 % (its errors moved between white and ivory, dice that look alike there); on
# the 55 other towers of five renderers measured since 2026-11-30 no reading changed
SATURATED = 240
BLOWN = 0.4


def body_feature(frame: np.ndarray, bg_mean: np.ndarray, gain: float, blob: Blob,
                 raw: np.ndarray | None = None, own_hue: bool = False) -> np.ndarray:
    """The die's colour as log ratios to the empty tray under it (light falls off the same
    way on both): (log brightness, log B/G, log R/G). Ink (pips, numerals) is left out:
    only top-face pixels near the face's median lightness count; where the top face is blown
    out (BLOWN: ``raw``, the frame as the camera gave it, saturated there), the die's
    pixels that are not, near their median lightness. ``own_hue``: the hue (log B/G, log
    R/G) is the die's own in ``frame`` (balanced to the empty tray's light), not its ratio to
    the tray under it, whose own colour varies on a patterned tray (profile.COLOUR_MEASURE);
    the brightness stays a ratio to the tray under the die."""
    h, w = blob.top.shape
    roi = frame[blob.y0:blob.y0 + h, blob.x0:blob.x0 + w]
    part = blob.top
    src = roi if raw is None else raw[blob.y0:blob.y0 + h, blob.x0:blob.x0 + w]
    sat = cv2.inRange(src, (SATURATED,) * 3, (255,) * 3)
    top_n = cv2.countNonZero(blob.top)
    if top_n and cv2.countNonZero(sat & blob.top) >= BLOWN * top_n:
        rest = blob.mask & cv2.bitwise_not(sat)
        if cv2.countNonZero(rest) >= 10:
            part = rest
    Lmed = quantiles(blob.L[part > 0][::2], (50,))[0]
    body = cv2.inRange(blob.L, Lmed - 8, Lmed + 8) & part
    if cv2.countNonZero(body) < 10:
        body = part
    med = np.array(cv2.mean(roi, body)[:3], np.float32) + 1.0
    bgr = np.array(cv2.mean(bg_mean[blob.y0:blob.y0 + h, blob.x0:blob.x0 + w], body)[:3],
                   np.float32) * gain + 1.0
    r = np.log(med / bgr)
    hue = np.log(med) if own_hue else r
    return np.array([r.mean(), hue[0] - hue[1], hue[2] - hue[1]], np.float32)


# a die whose body (its top face's median) is this light in every channel is white under a
# bright light: its saturated pixels are its body, not a glare on it (on the independent
# renderer's tuning towers, 16 flat white pip dice a person reads at a glance were refused as
# glared: 14 are now read right, and none of them is misread)
GLARE_BODY = 235


# ... unless nothing on its face stands out: its median lightness within GLARE_INK (of 100) of
# its darkest hundredth. A face washed out by the light (a close camera over-exposed: every
# face of a white die alike, a 4 read as a D12's 8) is glared (of 26 such dice on the tuning
# towers of three independent renderers, none was read right and one clean with a wrong face;
# the white dice whose pips stand out are 10 or more apart, most of them 45)
GLARE_INK = 10.0


def glare_fraction(frame: np.ndarray, blob: Blob) -> float:
    """The share of the die's pixels saturated in every channel: a glare hiding what is on
    it. Nothing (0) on a die whose own body is that light (GLARE_BODY): a glare on it cannot be
    told from it, and its pips or symbols still stand out, as a person sees them (where they
    do not, GLARE_INK, the light has washed the face out: it is glared)."""
    h, w = blob.mask.shape
    roi = frame[blob.y0:blob.y0 + h, blob.x0:blob.x0 + w]
    sat = cv2.inRange(roi, (250, 250, 250), (255, 255, 255)) & blob.mask
    n = cv2.countNonZero(sat)
    if n and np.median(roi[blob.top > 0], axis=0).min() >= GLARE_BODY:
        inner = cv2.erode(blob.top, _ELLIPSE3, iterations=2)
        ink = blob.L[inner > 0] if cv2.countNonZero(inner) else blob.L[blob.top > 0]
        darkest, body = quantiles(ink, (1, 50))
        if body - darkest >= GLARE_INK:
            return 0.0
    return n / max(1.0, blob.area)


_BAND = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5))


def sharpness(blob: Blob, face: bool = False) -> float:
    """How steep the die's outline is: the median gradient on the silhouette's contour over
    the die/tray contrast (about 1/(2.5 sigma) for a Gaussian blur of sigma pixels; ink
    inside the face does not count). With ``face``, where the top face stands apart from the
    rest of the die (TOP_APART), the steeper of that and the top face's own outline against
    the rest of the die: a blur softens every edge, a soft shadow the silhouette takes in only
    its outline."""
    roi = blob.L
    inner = cv2.erode(blob.mask, _BAND)
    outside = cv2.bitwise_not(cv2.dilate(blob.mask, _BAND, iterations=2))
    if not cv2.countNonZero(outside) or not cv2.countNonZero(inner):
        return 0.0
    if blob.contour is not None:
        pts = blob.contour.reshape(-1, 2)
    else:
        cs, _ = cv2.findContours(blob.mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
        if not cs:
            return 0.0
        pts = max(cs, key=len).reshape(-1, 2)
    # the 3x3 Sobel gradient (at the outlines' points only)
    grad = cv2.magnitude(cv2.Sobel(roi, cv2.CV_32F, 1, 0), cv2.Sobel(roi, cv2.CV_32F, 0, 1))
    contrast = abs(cv2.mean(roi, inner)[0] - cv2.mean(blob.Lbg, outside)[0])
    steep = _steepness(grad, pts, contrast)
    if face and blob.top_area < TOP_APART * blob.area:
        top_inner = cv2.erode(blob.top, _BAND)
        ring = cv2.dilate(blob.top, _BAND, iterations=2) & cv2.bitwise_not(
            cv2.dilate(blob.top, _BAND)) & blob.mask
        cs, _ = cv2.findContours(blob.top, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
        if cs and cv2.countNonZero(top_inner) and cv2.countNonZero(ring):
            across = abs(cv2.mean(roi, top_inner)[0] - cv2.mean(roi, ring)[0])
            steep = max(steep, _steepness(grad, max(cs, key=len).reshape(-1, 2), across))
    return steep


TOP_APART = 0.95  # a top face under this share of the silhouette has an outline of its own


def _steepness(grad: np.ndarray, pts: np.ndarray, contrast: float) -> float:
    """The upper quartile of the gradient at an outline's points (a side touching another
    die has no edge against the tray), over the contrast across it."""
    g = grad[pts[:, 1], pts[:, 0]] * 0.125
    return quantiles(g, (75,))[0] / max(contrast, 4.0)
