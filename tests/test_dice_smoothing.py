"""A noisy camera's dice are found in its frames smoothed (segment.smoothing_for): the blur
is decided from the noise the empty-tray frames measure, kept in the profile, and given to
the empty tray, the teaching pictures and every frame read alike; each die found is then read
from the frame as the camera took it (segment.as_seen_in)."""

from __future__ import annotations

import dataclasses
import math
import re

import cv2
import numpy as np
import pytest

import vision.dice.segment as segment
from tests.test_dice_profile import fresh_copy
from vision.dice import DiceReader, Profile, ProfileError
from vision.dice.reader import SHADOW_KEEPS
from vision.dice.render import SceneDie, TrayStyle, empty_tray, render_tray, single_die
from vision.dice.segment import (
    NOISE_LEVELS,
    SMOOTH_FROM,
    SMOOTH_MAX,
    SMOOTH_PER_NOISE,
    Background,
    balanced,
    denoised,
    exposure_gain,
    find_blobs,
    smoothing_for,
    tray_windows,
)

STYLE = TrayStyle(tray_bgr=(96, 110, 112), perspective=2.0, seed=3, tray_seed=11)
FACES = ("1", "5", "11")


def flat(level: float) -> np.ndarray:
    return np.full((120, 160, 3), level, np.float32)


def test_a_quiet_camera_is_not_smoothed_and_a_noisy_one_by_its_noise_at_the_trays_level():
    tray = flat(200.0)  # grey 200: the noise curve's level 12
    curve = [1.0] * NOISE_LEVELS
    assert smoothing_for(curve, tray) == 0.0
    assert smoothing_for(None, tray) == 0.0  # one empty frame: the noise is not known
    curve[12] = SMOOTH_FROM  # not over it
    assert smoothing_for(curve, tray) == 0.0
    curve[12] = 7.0
    assert smoothing_for(curve, tray) == pytest.approx(SMOOTH_PER_NOISE * 7.0)
    # the noise of other levels does not count: this tray is not dark
    assert smoothing_for([9.0] * 12 + [1.0] * 4, tray) == 0.0
    curve[12] = 40.0
    assert smoothing_for(curve, tray) == SMOOTH_MAX


def noisy(frame: np.ndarray, sigma: float, rng: np.random.Generator) -> np.ndarray:
    """``frame`` as a camera with ``sigma`` of noise in each channel takes it."""
    return np.clip(frame.astype(np.float32) + rng.normal(0, sigma, frame.shape) + 0.5,
                   0, 255).astype(np.uint8)


def noisy_profile(sigma: float, rng: np.random.Generator) -> tuple[Profile, object]:
    """Empty-tray frames and a D12 taught (faces FACES, two pictures each) through a camera
    with ``sigma`` of noise in each channel, and that camera."""

    def camera(frame: np.ndarray) -> np.ndarray:
        return noisy(frame, sigma, rng)

    p = Profile()
    for k in range(3):
        p.add_background(camera(empty_tray(STYLE, seed=k)))
    for i, face in enumerate(FACES):
        for j in range(2):
            p.add_example("d12", face, camera(single_die("d12", face, "black", 10 * i + j,
                                                          STYLE)[0]), colour="black")
    return p, camera


def read_right(p: Profile, camera) -> tuple[int, int]:
    """(dice read clean with the right face, dice) over four trays of three D12s."""
    reader, right, n = DiceReader(p), 0, 0
    for s in range(4):
        dice = [SceneDie("d12", FACES[(s + k) % 3], "black", 150 + 170 * k,
                         150 + 150 * (s % 2), 20.0 * s + 7 * k) for k in range(3)]
        frame, truth = render_tray(dice, dataclasses.replace(STYLE, seed=100 + s))
        got = reader.read(camera(frame))
        for t in truth:
            n += 1
            near = [r for r in got if math.hypot(r.x - t.x, r.y - t.y) < 20]
            right += bool(near) and near[0].status == "clean" and near[0].face == t.face
    return right, n


def test_a_noisy_cameras_dice_are_read_once_they_are_found_in_its_frames_smoothed(monkeypatch):
    # noise 12 in each channel (about 8 in grey): read as they are, most D12s are unreadable
    p, camera = noisy_profile(12.0, np.random.default_rng(1))
    assert p.background_smoothing == pytest.approx(SMOOTH_PER_NOISE * 8, abs=0.3)
    assert DiceReader(p).bg.smoothing == p.background_smoothing
    right, n = read_right(p, camera)
    assert right == n == 12
    # the same camera, nothing smoothed: the test would see it
    monkeypatch.setattr(segment, "SMOOTH_FROM", 1e9)
    q, camera = noisy_profile(12.0, np.random.default_rng(1))
    assert q.background_smoothing == 0.0
    right, n = read_right(q, camera)
    assert right <= n // 2


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    p, _ = noisy_profile(12.0, np.random.default_rng(2))
    return p, p.save(tmp_path_factory.mktemp("smooth") / "tower.yaml")


def test_the_smoothing_is_saved_and_its_ready_windows_are_of_the_smoothed_tray(saved):
    p, path = saved
    assert p.background_smoothing > 0
    assert f"smoothing: {p.background_smoothing}" in path.read_text()
    loaded = Profile.load(path)
    assert loaded.background_smoothing == p.background_smoothing
    assert loaded._windows is not None  # kept ready: not worked out at every read
    bg = loaded.tray()
    assert bg.smoothing == p.background_smoothing
    mean, square = tray_windows(loaded.background, loaded.background_smoothing)
    np.testing.assert_allclose(bg.window_stats()[0], mean)
    np.testing.assert_allclose(bg.window_stats()[1], square)
    # the same as a Background works them out itself, from its smoothed empty tray
    own = Background(loaded.background, loaded.background_noise, loaded.background_frames,
                     smoothing=loaded.background_smoothing)
    np.testing.assert_allclose(own.window_stats()[0], mean)
    unsmoothed = tray_windows(loaded.background)[1]
    assert not np.allclose(unsmoothed, square)


def test_a_profile_saved_before_the_smoothing_reads_its_frames_as_they_are(saved, tmp_path):
    # its examples were taught from frames as they were: its frames are read so too
    old = fresh_copy(saved, tmp_path)
    old.write_text(re.sub(r"  smoothing: .*\n", "", old.read_text()))
    loaded = Profile.load(old)
    assert loaded.background_smoothing == 0.0
    assert loaded._windows is None  # the ready windows are of the smoothed tray: not used
    assert loaded.tray().smoothing == 0.0


@pytest.mark.parametrize("value, problem", [
    ("lots", "expected a blur of 0 to 2.0 pixels, got 'lots'"),
    ("9.5", "expected a blur of 0 to 2.0 pixels, got 9.5"),
    ("-1", "expected a blur of 0 to 2.0 pixels, got -1"),
    (".nan", "expected a blur of 0 to 2.0 pixels, got nan"),
])
def test_a_bad_smoothing_is_named_with_its_line(saved, tmp_path, value, problem):
    bad = fresh_copy(saved, tmp_path)
    text = re.sub(r"  smoothing: .*\n", f"  smoothing: {value}\n", bad.read_text())
    bad.write_text(text)
    line = next(i for i, s in enumerate(text.splitlines(), 1) if s.startswith("  smoothing:"))
    with pytest.raises(ProfileError, match=re.escape(f"{bad}:{line}: background.smoothing: "
                                                     f"{problem}")):
        Profile.load(bad)


def test_the_smoothing_is_decided_before_any_die_is_taught_and_then_kept():
    rng = np.random.default_rng(3)

    quiet = Profile()
    for k in range(3):
        quiet.add_background(noisy(empty_tray(STYLE, seed=k), 1.0, rng))
    assert quiet.background_smoothing == 0.0
    quiet.add_example("d12", "1", noisy(single_die("d12", "1", "black", 1, STYLE)[0], 1.0, rng))
    # the tray taken again, noisier (less light): the die taught stays comparable
    quiet._empty_frames.clear()
    for k in range(3):
        quiet.add_background(noisy(empty_tray(STYLE, seed=k), 12.0, rng))
    assert max(quiet.background_noise or [0]) > SMOOTH_FROM
    assert quiet.background_smoothing == 0.0
    # nothing taught yet: the noisier tray decides
    fresh = Profile()
    for k in range(3):
        fresh.add_background(noisy(empty_tray(STYLE, seed=k), 12.0, rng))
    assert fresh.background_smoothing > 0


def test_a_die_is_found_in_the_frame_smoothed_and_read_from_the_frame_as_it_was_taken(saved):
    p, _ = saved
    reader = DiceReader(p)
    rng = np.random.default_rng(4)
    frame, truth = render_tray([SceneDie("d12", "5", "black", 320, 240, 0.3)], STYLE)
    frame = noisy(frame, 12.0, rng)
    (b,), _ = reader.blobs(frame)
    assert math.hypot(b.cx - truth[0].x, b.cy - truth[0].y) < 3
    plain, _ = balanced(frame, reader.bg)
    h, w = b.mask.shape
    box = plain[b.y0:b.y0 + h, b.x0:b.x0 + w].astype(np.float32) / 255
    lightness = cv2.cvtColor(box, cv2.COLOR_BGR2Lab)[:, :, 0]
    np.testing.assert_allclose(b.L, lightness, atol=1e-3)  # its face: the camera's
    # its outline: the smoothed frame's (found there as it is, lightness apart)
    seen = denoised(plain, reader.bg)
    assert seen is not plain
    gain = exposure_gain(plain, reader.bg)
    same = [s for s in find_blobs(seen, reader.bg, gain, min_area=reader.min_area,
                                  die_area=reader.die_area,
                                  least_area=SHADOW_KEEPS * (reader.least_die or 0.0))
            if math.hypot(s.cx - b.cx, s.cy - b.cy) < 1]
    assert same and np.array_equal(same[0].mask, b.mask)
    assert not np.allclose(same[0].L, b.L)
