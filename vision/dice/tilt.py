"""Whether a die the reader found lies tilted (leaning on another die or on the tray's wall),
as a small network sees it.

The tilt rules (vision/dice/tiltrules.py's ``TILT``: an outline too long, too large or too
small, a top face off centre) hold on this project's renders, where a die's top face is cut
free by its dark seams. On trays rendered by other hands the seams are not there, and
the rules called a third to a half of the flat dice tilted (docs/vision.md, "Tilt"). The
network (``models/tilt.npz``, trained by ``scripts/train_tilt.py``) looks at the die where
the reader found it: the frame around it in colour (twice its size, :data:`SIDE` pixels
square), and says how likely it is tilted. It is not shown the reader's outline of the die:
so taught (on 17 of the first renderer's towers), it told flat from tilted dice of a
renderer it never saw a little better (AUC 0.843 and 0.812 against 0.821 and 0.799). The
reader asks it to confirm or overrule the rules (``reader.TILT_NET_*``).

Since 2026-11-30 it is one network, wider and learned three times longer, from the second and
fourth independent renderers' towers as well, whose close and tilted cameras show flat dice's
side faces: it tells tilted dice from flat ones better than the two networks before it (the
first renderer's and this project's alone, and a second opinion from all of them) on every
renderer, the third, which it never saw, included (docs/vision.md, "One tilt network,
learned longer").
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from .netrun import Runnable, load_shipped
from .segment import Blob

SIDE = 48  # the network's input, pixels square
REACH = 2.0  # of the die's size: the frame around it the network sees
MODEL = Path(__file__).resolve().parent / "models" / "tilt.npz"
# the network's answer for a die as seen, clear enough to stand alone where the caller does
# not say (the reader does: reader.TILT_NET_UNSURE): outside these, it is not turned three
# more ways (which cost 9 ms a frame of nine dice, where the whole read is
# about 40). On the towers that chose the reader's thresholds (docs/vision.md; 2,273 dice)
# no verdict differs from those of the four turns for every die; from 0.05, 7 did (a cube
# leaning 19 degrees was 0.03 as seen, 0.2 over the four turns). A sixth of this project's
# dice are unsure, most of the other renderer's.
UNSURE = (0.02, 0.9)


def tilt_input(frame: np.ndarray, b: Blob, canonical: bool = False) -> np.ndarray:
    """The network's input for die ``b`` of ``frame`` (BGR uint8): 3 x SIDE x SIDE float32
    from -0.5 to 0.5, the frame around the die (REACH times its size, its centre in the
    middle; the frame's edge repeated beyond it). ``canonical``: turned so that the way from
    the frame's middle to the die points up, as ``scripts/train_tilt.py --view canonical``
    learns (a second network tried, not shipped: docs/vision.md, "A fourth renderer by
    another hand")."""
    s = SIDE / (REACH * max(b.size, 1.0))
    if canonical:
        h, w = frame.shape[:2]
        away = math.degrees(math.atan2(b.cy - (h - 1) / 2, b.cx - (w - 1) / 2))
        m = cv2.getRotationMatrix2D((b.cx, b.cy), away + 90.0, s)
        m[0, 2] += SIDE / 2 - b.cx
        m[1, 2] += SIDE / 2 - b.cy
    else:
        m = np.array([[s, 0, SIDE / 2 - s * b.cx], [0, s, SIDE / 2 - s * b.cy]], np.float32)
    colour = cv2.warpAffine(frame, m, (SIDE, SIDE), flags=cv2.INTER_AREA,
                            borderMode=cv2.BORDER_REPLICATE)
    return colour.transpose(2, 0, 1).astype(np.float32) * np.float32(1 / 255.0) - np.float32(0.5)


class TiltNet:
    def __init__(self, net: Runnable) -> None:
        self.net = net

    def _answer(self, x: np.ndarray) -> np.ndarray:
        """The network's answer (0..1) for each input of ``x``."""
        return _sigmoid(self.net(x)).reshape(len(x))

    def tilted(self, inputs: list[np.ndarray],
               unsure: Sequence[tuple[float, float]] | None = None) -> np.ndarray:
        """How likely each die is tilted (0..1), from :func:`tilt_input`'s inputs: the
        network's answer for the die as seen, all dice of a frame in one pass; where that is
        not clear (from the die's ``unsure[i]``, else UNSURE: the caller knows which answers
        its verdict turns on), the mean of its answers for the die turned by 0, 90, 180 and
        270 degrees (a tilt has no direction the network should prefer)."""
        if not inputs:
            return np.zeros(0, np.float32)
        x = np.stack(inputs)
        p = self._answer(x)
        lo, hi = (np.array(unsure, np.float32).T if unsure is not None
                  else (np.float32(UNSURE[0]), np.float32(UNSURE[1])))
        unsure_ = np.flatnonzero((p >= lo) & (p <= hi))
        if len(unsure_):
            turned = np.concatenate([np.rot90(x[unsure_], k, axes=(2, 3)) for k in (1, 2, 3)])
            q = self._answer(np.ascontiguousarray(turned)).reshape(3, len(unsure_))
            p[unsure_] = (p[unsure_] + q.sum(axis=0)) / 4
        return p


def _sigmoid(logits: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-np.asarray(logits, np.float32)))


@lru_cache(maxsize=1)
def _loaded() -> tuple[TiltNet | None, str | None]:
    return load_shipped(MODEL, TiltNet)


def shipped() -> TiltNet | None:
    """The shipped network, or None where its file is missing or cannot be used (the reader
    then goes by the tilt rules alone: :func:`problem` says why)."""
    return _loaded()[0]


def problem() -> str | None:
    """Why the shipped network cannot be used (its file named), or None."""
    return _loaded()[1]
