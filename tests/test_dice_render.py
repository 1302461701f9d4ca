"""The dice renderer's camera: straight down for the tower, from the side for a webcam on a desk
(the pip networks learn side views from it; see scripts/train_dice.py)."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from vision.dice.render import (
    KINDS,
    SceneDie,
    TrayStyle,
    _pose,
    _project,
    random_dice,
    random_style,
    random_tray,
    render_tray,
    rotation,
    tray_point,
)


def _top_face_quad(die: SceneDie, style: TrayStyle) -> np.ndarray:
    _spec, pts, faces, normals, _slots = _pose(die)
    top = int(np.argmax([n[2] for n in normals]))
    return _project(pts[faces[top][1]], style)


def _extent(quad: np.ndarray) -> tuple[float, float]:
    return float(np.ptp(quad[:, 0])), float(np.ptp(quad[:, 1]))


def test_from_above_a_flat_die_is_seen_square():
    style = TrayStyle()
    die = SceneDie("d6pips", "3", "white", 320, 240, 0.0, size_px=46)
    w, h = _extent(_top_face_quad(die, style))
    assert w == pytest.approx(h, rel=1e-6)
    assert w == pytest.approx(46 * 3000 / (3000 - 46), rel=1e-6)  # its top is 46 px nearer


@pytest.mark.parametrize("elevation", [25.0, 40.0, 65.0])
def test_from_the_side_the_top_face_is_foreshortened_by_the_elevation(elevation):
    style = TrayStyle(camera_elevation_deg=elevation, camera_height_px=5000.0)
    die = SceneDie("d6pips", "3", "white", 320, 240, 0.0, size_px=20)
    w, h = _extent(_top_face_quad(die, style))
    assert h / w == pytest.approx(math.sin(math.radians(elevation)), abs=0.02)


def test_a_pixel_seen_from_the_side_is_a_point_of_the_tray_that_projects_back_to_it():
    style = TrayStyle(camera_elevation_deg=35.0, camera_height_px=700.0)
    for u, v in [(0, 0), (639, 0), (320, 240), (10, 470), (600, 300)]:
        x, y = tray_point(u, v, style)
        assert _project(np.array([x, y, 0.0]), style) == pytest.approx([u, v], abs=1e-6)
    # the far edge of the frame holds more of the tray than the near one
    far = tray_point(639, 0, style)[0] - tray_point(0, 0, style)[0]
    near = tray_point(639, 479, style)[0] - tray_point(0, 479, style)[0]
    assert far > 1.3 * near


def test_from_the_side_the_nearest_side_face_shows_below_the_top_face():
    style = TrayStyle(camera_elevation_deg=30.0, camera_height_px=800.0, noise_sigma=0,
                      jpeg_quality=0, blur_sigma=0)
    die = SceneDie("d6pips", "3", "white", 320, 240, 0.0, size_px=60)
    frame, truth = render_tray([die], style)
    top = _top_face_quad(die, style)
    diff = np.abs(frame.astype(int) - render_tray([], style)[0].astype(int)).sum(axis=2) > 40
    ys = np.nonzero(diff.any(axis=1))[0]
    # the die's outline reaches well below its top face: the front face, nearly as tall as
    # it is wide at 30 degrees, against the top face's half
    assert ys.max() - top[:, 1].max() > 0.6 * _extent(top)[0]
    assert truth[0].face == "3" and truth[0].flat
    assert truth[0].size_px == pytest.approx(60, rel=0.1)


def test_oblique_trays_are_seen_whole_and_nearer_dice_look_larger():
    checked = 0
    for seed in range(8):
        _frame, truth, style = random_tray(910_000 + seed, kinds=["d6pips"], oblique=True)
        assert 25 <= style.camera_elevation_deg <= 65
        for t in truth:
            assert 0 <= t.x < style.width and 0 <= t.y < style.height
        flat = sorted((t for t in truth if t.flat), key=lambda t: t.y)
        for a, b in zip(flat, flat[1:]):
            if b.y - a.y > 100:  # lower in the frame is nearer the camera (sizes vary by 2 %)
                assert b.size_px > a.size_px
                checked += 1
    assert checked >= 5


def test_the_towers_camera_is_the_side_cameras_limit():
    """Straight down takes the old formula (the tower's renders, which every dice test and the
    benchmark are built on, do not move by a bit); the side camera at nearly 90 degrees agrees
    with it to well under a pixel."""
    style = TrayStyle()
    die = SceneDie("d6pips", "5", "red", 300, 200, 0.3, size_px=KINDS["d6pips"].side_px)
    straight = _top_face_quad(die, style)
    nearly = _top_face_quad(die, dataclasses.replace(style, camera_elevation_deg=89.9999))
    assert np.abs(straight - nearly).max() < 0.05


def test_a_low_webcam_is_asked_for_and_the_default_trays_do_not_move():
    """``elevation`` sets how high the side camera is (the classifier's training asks for a
    webcam low on a desk); the default draws the same trays, pixel for pixel."""
    low_frame, low_truth, low = random_tray(910_100, oblique=True, elevation=(12.0, 14.0))
    assert 12 <= low.camera_elevation_deg <= 14
    frame, truth, style = random_tray(910_100, oblique=True)
    again, _, _ = random_tray(910_100, oblique=True, elevation=(25.0, 65.0))
    assert np.array_equal(frame, again) and 25 <= style.camera_elevation_deg <= 65
    # the same dice on the same desk, only the camera lower
    assert len(low_truth) == len(truth) and not np.array_equal(low_frame, frame)
    for t_low, t in zip(low_truth, truth):
        assert (t_low.kind, t_low.face) == (t.kind, t.face)


@pytest.mark.parametrize("seed", range(40))
def test_a_tilted_die_of_a_random_tray_leans_on_a_flat_die_or_the_frame_edge(seed):
    # a die cannot rest tilted on nothing: its raised side faces its support, its top leans
    # away from it
    rng = np.random.default_rng(seed)
    style = random_style(rng)
    dice = random_dice(rng, 8, list(KINDS), style, tilted_prob=0.5)
    for d in dice:
        if not d.tilt_deg:
            continue
        top = rotation(d.yaw, math.radians(d.tilt_deg), d.tilt_dir) @ np.array([0.0, 0.0, 1.0])
        size = KINDS[d.kind].side_px
        flat = [o for o in dice if not o.tilt_deg and math.hypot(o.x - d.x, o.y - d.y)
                <= 1.1 * (size + KINDS[o.kind].side_px)]
        edge = min(d.x, d.y, style.width - d.x, style.height - d.y) < size
        # leaning away from a flat die beside it, or at the frame's edge
        assert edge or any(top[0] * (d.x - o.x) + top[1] * (d.y - o.y) > 0 for o in flat), d
