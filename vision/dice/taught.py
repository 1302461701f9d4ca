"""What a taught die's top face looks like, as 64 numbers (a unit vector): two pictures of one
face come out close whatever the light, the turn, the blur or the tray.

The network (``models/taught.npz``, trained by ``scripts/train_taught.py``) sees the middle
:data:`EMBED_SIDE` pixels of the reader's face crop (:func:`features.face_crop`, 0..255), each
crop brought to zero mean and unit spread first. The reader compares a die with its tower's
taught pictures by these vectors (vision/dice/reader.py): it never asks the network which face
it is, so a kind the network never saw is read the same way.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import numpy as np

from .netrun import ModelError, Runnable, load_shipped

EMBED_SIDE = 48  # the middle of the 64-pixel face crop the network sees
EMBED_DIM = 64
SPREAD_FLOOR = 4.0  # grey levels added to a crop's spread: a blank face's noise is not scaled up
MODEL = Path(__file__).resolve().parent / "models" / "taught.npz"
# bench/independent_dice_bench.py measures bench/tray_renderer.py's towers on these seeds:
# scripts/train_taught.py never learns from them
MEASURED_SEEDS = frozenset(range(8400, 8403)) | frozenset(range(8500, 8506))
# and bench/tray_renderer_d.py's from 9100
D_MEASURED_SEEDS = frozenset(range(9100, 10000))
# bench/tray_renderer_b.py's towers that chose the reader's thresholds and measured it (100 to
# 199): the training scripts learn from 200 and after only
B_MEASURED_SEEDS = frozenset(range(100, 200))
# the first renderer's fresh towers, measured from 8910 (docs/vision.md)
A_FRESH_SEEDS = frozenset(range(8910, 9000))
# bench/tray_renderer_c.py's towers below 300 chose the reader's thresholds and measure it:
# the tilt network learns from 300 and after only (scripts/train_tilt.py --c-seeds)
C_MEASURED_SEEDS = frozenset(range(0, 300))


# the seeds each tray renderer is measured on, by its letter: never learned from (the fifth,
# bench/tray_renderer_e.py, is never learned from at all)
MEASURED_BY_RENDERER = {"a": MEASURED_SEEDS | A_FRESH_SEEDS, "b": B_MEASURED_SEEDS,
                        "c": C_MEASURED_SEEDS, "d": D_MEASURED_SEEDS}


def seeds_of(text: str, measured: frozenset[int] = MEASURED_SEEDS) -> list[int]:
    """Tower seeds written as "8600-8605,8700": every one, in order. Refuses the ``measured``
    seeds, naming them."""
    out: list[int] = []
    for part in text.split(","):
        a, _, b = part.strip().partition("-")
        out.extend(range(int(a), int(b or a) + 1))
    bad = sorted(set(out) & measured)
    if bad:
        raise ValueError(f"seeds {', '.join(map(str, bad))}: the benchmark measures on them, "
                         f"never learned from")
    return out


def towers_of(text: str) -> list[tuple[str, int]]:
    """Towers written as "a:8600-8603,b:200": (renderer letter, seed) of each. Refuses a
    renderer not in MEASURED_BY_RENDERER (the fifth) and the seeds a renderer is measured on
    (ValueError, naming them)."""
    out: list[tuple[str, int]] = []
    for part in text.split(","):
        renderer, _, seeds = part.strip().partition(":")
        if renderer not in MEASURED_BY_RENDERER:
            raise ValueError(f"{renderer!r} is not a renderer to learn from (one of "
                             f"{', '.join(MEASURED_BY_RENDERER)})")
        try:
            out += [(renderer, s) for s in seeds_of(seeds, MEASURED_BY_RENDERER[renderer])]
        except ValueError as exc:
            raise ValueError(f"renderer {renderer}: {exc}") from None
    return out


def embed_input(crop: np.ndarray, middle: bool = True) -> np.ndarray:
    """The network's input for one crop (0..255): its middle EMBED_SIDE square (``middle``;
    else the crop is that size already), zero mean, unit spread. float32."""
    x = np.asarray(crop, np.float32)
    if middle:
        o = (x.shape[0] - EMBED_SIDE) // 2
        x = x[o:o + EMBED_SIDE, o:o + EMBED_SIDE]
    return (x - x.mean()) / (x.std() + SPREAD_FLOOR)


class TaughtNet:
    def __init__(self, net: Runnable) -> None:
        self.net = net

    def embed(self, crops: np.ndarray | list[np.ndarray]) -> np.ndarray:
        """Unit vectors (N x EMBED_DIM, float32) of face crops (N x 64 x 64, 0..255)."""
        if len(crops) == 0:
            return np.zeros((0, EMBED_DIM), np.float32)
        x = np.stack([embed_input(c) for c in crops])[:, None]
        v = np.asarray(self.net(x), np.float32)
        return v / (np.linalg.norm(v, axis=1, keepdims=True) + 1e-6)


@lru_cache(maxsize=1)
def model_id() -> str:
    """What names the shipped network's vectors in a saved profile: its spec's digest ("" where
    the network is missing), so vectors of another network are worked out again."""
    import hashlib

    from .netrun import meta_of
    try:
        meta = meta_of(MODEL)
    except ModelError:
        return ""
    return hashlib.sha256(repr(sorted(meta.items())).encode()).hexdigest()[:16]


@lru_cache(maxsize=2)
def _loaded(int8: bool = True) -> tuple[TaughtNet | None, str | None]:
    return load_shipped(MODEL, TaughtNet, int8)


def shipped() -> TaughtNet | None:
    """The shipped network, or None where its file is missing or cannot be used (the reader
    then compares the taught pictures by their edges alone: :func:`problem` says why). In
    ONNX Runtime, its 8-bit twin: what a die in a tray is turned into at every read."""
    return _loaded()[0]


def shipped_for_pictures() -> TaughtNet | None:
    """The shipped network as the float network runs it: what a tower's taught pictures are
    turned into, once, when taught (and kept ready with the profile). Their vectors are then
    exact, and only a tray's die carries the 8-bit twin's error: on the 16 tuning towers,
    pictures turned by the twin as well lost 5 flat dice of 2,404 to "unreadable" (both
    sides' errors), pictures turned by the float network none (docs/vision.md)."""
    return _loaded(False)[0]


def problem() -> str | None:
    """Why the shipped network cannot be used (its file named), or None."""
    return _loaded()[1]
