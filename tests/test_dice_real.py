"""The pip D6 reader on real photographs (tests/data/dice/README.md: source, licence, faces).

What is asserted is what the reader must never do on real dice: read one clean with a wrong
face. How many it reads is reported in the README (today: almost none; see there)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import cv2
import numpy as np
import pytest

from tests.real_photos import missing
from vision.dice import DiceReader, Profile

HERE = Path(__file__).resolve().parent / "data" / "dice"
TRUTH = json.loads((HERE / "real.json").read_text())
# the photographs are fetched, not committed (README): here, or in the project's shared
# folder beside the checkout
PLACES = (HERE, Path(__file__).resolve().parents[2] / "shared" / "dice-photos")


def photo(name: str) -> Path:
    for place in PLACES:
        if (place / name).is_file():
            return place / name
    missing(f"real dice photograph {name} not present in "
                + " or ".join(str(p) for p in PLACES)
                + " (tests/data/dice/README.md says where they come from)")


@pytest.mark.parametrize("name", sorted(TRUTH))
def test_real_dice_are_found_and_never_misread(name):
    frame = cv2.imread(str(photo(name)))
    assert frame is not None and frame.shape == (480, 640, 3)
    profile = Profile()
    # no empty-tray frame exists for these photographs: the tray is the photograph with the
    # dice filtered out
    profile.add_background(cv2.medianBlur(frame, 91))
    readings = DiceReader(profile).read(frame)
    truth = TRUTH[name]["dice"]
    found = 0
    for t in truth:
        nearest = min(readings, key=lambda r: math.hypot(r.x - t["x"], r.y - t["y"]))
        found += math.hypot(nearest.x - t["x"], nearest.y - t["y"]) < 40
    assert found == len(truth)
    for r in readings:
        t = min(truth, key=lambda t: math.hypot(r.x - t["x"], r.y - t["y"]))
        assert r.kind == "d6pips" or r.kind is None
        if r.status == "clean":
            assert r.face == t["face"], f"{name}: a {t['face']} read clean as {r.face}"
        assert 0.0 <= r.confidence <= 1.0 and np.isfinite(r.x) and np.isfinite(r.y)
