"""Teaching the camera tower, for tests: a tower that knows only the empty tray, throws of
Danchie Go's spawn die, and the player's answers taken from the renderer's ground truth."""

from __future__ import annotations

import copy
import math
from functools import lru_cache

import numpy as np

from tests.camera_tower_support import STYLE
from vision.dice import Profile
from vision.dice.render import throw_sequence


@lru_cache(maxsize=1)
def _empty_tray_profile() -> Profile:
    from vision.dice.bench import teach_tower

    return teach_tower(STYLE, 43, kinds=[])


def empty_tray_profile() -> Profile:
    """A fresh copy each time: teaching changes the profile it is given."""
    return copy.deepcopy(_empty_tray_profile())


def spawn_throw(seed: int, n_dice: int = 3):
    """(frames, the settled dice's truth) of one throw of spawn dice."""
    frames = throw_sequence(seed, n_dice=n_dice, kinds=["spawn"], style=STYLE)
    settled = next(f for f in frames if f.phase == "settled")
    return [f.image for f in frames], list(settled.truth)


def true_face(truth, x: float, y: float) -> str:
    """The face of the die nearest (x, y): what the player sees on the picture."""
    die = min(truth, key=lambda t: math.hypot(t.x - x, t.y - y))
    assert math.hypot(die.x - x, die.y - y) < 30, (x, y, truth)
    return die.face


def decode(jpeg: bytes) -> np.ndarray:
    import cv2

    img = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
    assert img is not None, "not a JPEG"
    return img
