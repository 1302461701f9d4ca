"""Taught dice read by comparison, with a network that learned to compare dice faces (an
experiment, not used by the app: see README.md beside it).

A tower is taught its dice from a few pictures a face (``dice teach``). The classical reader
(:mod:`vision.dice.reader`) compares a thrown die with those pictures by correlating the top
face; this module compares them through ``models/taught.npz``, a small network that maps a
die's crop to :data:`EMBED` numbers so that two pictures of the same face of the same die lie
close and different faces far apart, whatever the light, the die's place in the tray or its
turn (``scripts/train_taught.py``: trained on hundreds of random die designs nobody makes and
on real pip dice, never on this project's dice nor on the independent renderer's).

Where the dice are comes from the pip reader's finder (:mod:`vision.dice.pips`), which finds
dice of every kind. Each taught picture is kept as a crop (:data:`CROP` pixels, the die
:data:`CROP_SCALE` times its size), with its embedding at :data:`TURNS` turns; a die is the
taught (kind, face) whose pictures its embedding lies nearest, and it is called clean only
when it is nearer that face than any other by :data:`MARGIN` (set on towers of the
independent renderer kept for tuning, never on those it is measured on).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from vision.dice.netrun import ModelError, Net, OnnxNet, load

CROP = 48            # the embedding network's crop, pixels
CROP_SCALE = 1.4     # the crop's side in die sizes (the finder's size, as pips.py)
EMBED = 64           # numbers in an embedding
TURNS = 8            # a taught picture's embedding is kept at this many turns of the die
MARGIN = 0.08        # how much nearer the face read must be than any other face
MIN_SIMILARITY = 0.6  # nearer than this to no taught picture: not a taught die
MODEL = Path("/tmp/taught/taught.npz")   # where train.py --out /tmp/taught writes it


def crop(frame: np.ndarray, x: float, y: float, size: float, angle: float = 0.0) -> np.ndarray:
    """The die at (x, y) of ``size`` pixels, turned by ``angle`` degrees, as CROP x CROP."""
    s = CROP / (size * CROP_SCALE)
    m = cv2.getRotationMatrix2D((x, y), angle, s)
    m[0, 2] += CROP / 2 - x
    m[1, 2] += CROP / 2 - y
    return cv2.warpAffine(frame, m, (CROP, CROP), flags=cv2.INTER_AREA if s < 1 else cv2.INTER_LINEAR,
                          borderMode=cv2.BORDER_REFLECT)


@dataclass(frozen=True)
class Match:
    kind: str
    face: str
    colour: str | None
    similarity: float     # cosine similarity with the nearest picture of that face
    margin: float         # how much nearer than the nearest picture of any other face

    @property
    def clean(self) -> bool:
        return self.margin >= MARGIN and self.similarity >= MIN_SIMILARITY


class Embedder:
    def __init__(self, net: Net | OnnxNet) -> None:
        self.net = net

    def __call__(self, crops: list[np.ndarray]) -> np.ndarray:
        """Unit-length embeddings of BGR crops, one row each."""
        if not crops:
            return np.zeros((0, EMBED), np.float32)
        x = np.stack(crops).astype(np.float32).transpose(0, 3, 1, 2) / 255.0 - 0.5
        e = np.asarray(self.net(x), np.float32)
        return e / np.maximum(np.linalg.norm(e, axis=1, keepdims=True), 1e-6)

    def taught(self, view: np.ndarray) -> np.ndarray:
        """A taught picture's embeddings at TURNS turns (rows)."""
        c = (CROP - 1) / 2
        turns = []
        for k in range(TURNS):
            m = cv2.getRotationMatrix2D((c, c), 360.0 * k / TURNS, 1.0)
            turns.append(cv2.warpAffine(view, m, (CROP, CROP), borderMode=cv2.BORDER_REFLECT))
        return self(turns)


@lru_cache(maxsize=1)
def shipped_embedder() -> Embedder | None:
    """The network shipped with the package, or None when it is not there."""
    if not MODEL.exists():
        return None
    try:
        return Embedder(load(MODEL))
    except ModelError:
        return None


def model_id() -> str:
    """Which network made an embedding (a profile's cached embeddings name it)."""
    import hashlib

    return hashlib.sha256(MODEL.read_bytes()).hexdigest()[:16] if MODEL.exists() else ""


class Gallery:
    """Every taught picture's embeddings, with their (kind, face, colour)."""

    def __init__(self, rows: np.ndarray, labels: list[tuple[str, str, str | None]]) -> None:
        self.rows = rows              # (n * TURNS, EMBED)
        self.labels = labels          # one per row

    def match(self, embedding: np.ndarray) -> Match | None:
        if not len(self.labels):
            return None
        sims = self.rows @ embedding
        best: dict[tuple[str, str], tuple[float, str | None]] = {}
        for s, (kind, face, colour) in zip(sims, self.labels):
            if (kind, face) not in best or s > best[(kind, face)][0]:
                best[(kind, face)] = (float(s), colour)
        ranked = sorted(best.items(), key=lambda kv: -kv[1][0])
        (kind, face), (s1, colour) = ranked[0]
        s2 = ranked[1][1][0] if len(ranked) > 1 else -1.0
        return Match(kind, face, colour, s1, s1 - s2)
