"""The synthetic scene renderer: exact geometry (lens distortion included), ground truth,
determinism."""

from __future__ import annotations

import dataclasses
import math
import time

import cv2
import numpy as np
import pytest

from vision.config import AnchorConfig, TableConfig
from vision.render import (
    SKIN_BGR,
    Scene,
    ScenePiece,
    anchor_corners_world,
    camera_pose,
    default_camera,
    default_table,
    piece_corners_world,
    project,
    random_scene,
    render,
)


def _detector() -> cv2.aruco.ArucoDetector:
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    params.cornerRefinementMinAccuracy = 0.01
    params.cornerRefinementMaxIterations = 100
    d = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    return cv2.aruco.ArucoDetector(d, params)


def _detect(image: np.ndarray) -> dict[int, np.ndarray]:
    corners, ids, _ = _detector().detectMarkers(image)
    if ids is None:
        return {}
    return {int(i): c.reshape(4, 2) for c, i in zip(corners, ids.ravel())}


def _small_table() -> TableConfig:
    """Four 1.5" anchors around the middle of the pitch (a close camera sees them all)."""
    return TableConfig(anchors=(AnchorConfig(0, 6.0, 10.0, 1.5), AnchorConfig(1, 16.0, 10.0, 1.5),
                                AnchorConfig(2, 6.0, 20.0, 1.5), AnchorConfig(3, 16.0, 20.0, 1.5)))


def _pieces(height_mm: float) -> tuple[ScenePiece, ...]:
    h = height_mm / 25.4
    return (ScenePiece(10, 9.0, 13.0, 20.0, h, 40, 1.1),
            ScenePiece(11, 13.0, 13.5, -35.0, h, 40, 1.1),
            ScenePiece(12, 9.5, 17.0, 70.0, h, 50, 1.4),
            ScenePiece(13, 13.0, 17.5, 5.0, h, 30, 0.85))


def test_camera_pose_identity():
    rvec, tvec = camera_pose((11, 15), 40.0)
    assert np.allclose(rvec, 0)
    assert np.allclose(tvec, (-11, -15, 40))


def test_camera_pose_tilted_looks_at_target_from_height():
    rvec, tvec = camera_pose((8, 12), 30.0, tilt_deg=20, tilt_dir_deg=30, roll_deg=15)
    r = cv2.Rodrigues(np.array(rvec))[0]
    centre = -r.T @ np.array(tvec)
    assert centre[2] == pytest.approx(-30.0)                  # 30" above the table
    target_cam = r @ np.array([8, 12, 0.0]) + tvec
    assert target_cam[:2] == pytest.approx((0, 0), abs=1e-9)  # on the optical axis
    axis = r.T @ np.array([0, 0, 1.0])
    assert math.degrees(math.acos(axis[2])) == pytest.approx(20)
    assert math.degrees(math.atan2(axis[1], axis[0])) == pytest.approx(30)
    # roll 90 puts pitch y along image x
    rvec, tvec = camera_pose((11, 15), 40.0, roll_deg=90)
    p = project(default_camera(), rvec, tvec, [(11, 15, 0), (11, 16, 0)])
    assert p[1, 0] - p[0, 0] > 30 and abs(p[1, 1] - p[0, 1]) < 1e-6


def test_identity_pose_maps_pitch_points_to_expected_pixels():
    cam = default_camera((960, 540))
    (fx, _, cx), (_, fy, cy), _ = cam.camera_matrix
    table = _small_table()
    rvec, tvec = camera_pose((11, 15), 30.0)
    out = render(Scene(table, (), cam, rvec, tvec))
    found = _detect(out.image)
    assert sorted(found) == [0, 1, 2, 3]
    assert out.anchors_visible == (0, 1, 2, 3)
    for a in table.anchors:
        expected = np.array([(fx * (x - 11) / 30 + cx, fy * (y - 15) / 30 + cy)
                             for x, y in a.corners()])
        assert np.allclose(project(cam, rvec, tvec, anchor_corners_world(a)), expected)
        assert np.abs(found[a.id] - expected).max() < 0.5


def test_distortion_maps_invert_project_points():
    from vision.render import _geometry_for

    cam = default_camera((960, 540), k1=-0.08, k2=0.015, p1=4e-4, p2=-3e-4)
    g = _geometry_for(cam)
    k = cam.matrix()
    ox, oy = g.offset
    ys, xs = np.mgrid[0:540:5, 0:960:5]
    ux = g.mapx[ys, xs].astype(np.float64) - ox
    uy = g.mapy[ys, xs].astype(np.float64) - oy
    rays = np.stack([(ux - k[0, 2]) / k[0, 0], (uy - k[1, 2]) / k[1, 1], np.ones_like(ux)], -1)
    back = project(cam, (0, 0, 0), (0, 0, 0), rays.reshape(-1, 3))
    err = np.abs(back - np.stack([xs.ravel(), ys.ravel()], -1))
    assert err.max() < 2e-3


def test_rendered_markers_match_projected_corners_tilted_and_distorted():
    cam = default_camera((960, 540), k1=-0.05)
    rvec, tvec = camera_pose((11, 15), 20.0, tilt_deg=20, tilt_dir_deg=60, roll_deg=8)
    scene = Scene(_small_table(), _pieces(30.0), cam, rvec, tvec)
    out = render(scene)
    found = _detect(out.image)
    assert sorted(found) == [0, 1, 2, 3, 10, 11, 12, 13]
    expected = {a.id: project(cam, rvec, tvec, anchor_corners_world(a))
                for a in scene.table.anchors}
    expected.update({p.id: project(cam, rvec, tvec, piece_corners_world(p))
                     for p in scene.pieces})
    for t in out.truth:
        assert np.allclose(t.corners_px, expected[t.id])
        assert t.visible and not t.occluded
        assert t.marker_side_px == pytest.approx(
            np.mean(np.linalg.norm(expected[t.id] - np.roll(expected[t.id], -1, 0), axis=1)))
    # ArUco's sub-pixel corners of small markers lean ~0.2 px towards the marker centre (a
    # detector trait: the chessboard corners below, found the same way, have no such bias)
    errors = np.concatenate([np.linalg.norm(found[i] - expected[i], axis=1) for i in found])
    assert errors.mean() < 0.3, errors
    # the piece markers are where their height puts them, not where their base is
    flat = project(cam, rvec, tvec,
                   piece_corners_world(dataclasses.replace(scene.pieces[0], height_in=0)))
    assert np.linalg.norm(flat - found[10], axis=1).mean() > 3


def test_board_view_corners_are_exact_with_distortion():
    """Chessboard (X) corners have no detector bias: the rendering itself is exact to a
    few hundredths of a pixel, with strong distortion and tilt."""
    from vision.config import CHARUCO
    from vision.render import random_board_poses, render_board_view

    cam = default_camera((960, 540), 69.0, k1=-0.08, k2=0.015, p1=3e-4)
    obj = CHARUCO.board().getChessboardCorners()
    errors = []
    for rvec, tvec in random_board_poses(np.random.default_rng(5), cam, 4):
        gray = cv2.cvtColor(render_board_view(cam, rvec, tvec), cv2.COLOR_BGR2GRAY)
        truth = project(cam, rvec, tvec, obj).astype(np.float32)
        found = cv2.cornerSubPix(gray, truth.reshape(-1, 1, 2).copy(), (5, 5), (-1, -1),
                                 (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_COUNT, 100, 1e-4))
        d = found.reshape(-1, 2) - truth
        errors.append(d)
    d = np.concatenate(errors)
    assert np.linalg.norm(d, axis=1).mean() < 0.12
    assert np.abs(d.mean(axis=0)).max() < 0.03                # no bias


def test_random_scene_and_render_are_deterministic():
    table = default_table()
    a = random_scene(np.random.default_rng(42), table, image_size=(640, 360), occlusion_prob=0.3)
    b = random_scene(np.random.default_rng(42), table, image_size=(640, 360), occlusion_prob=0.3)
    c = random_scene(np.random.default_rng(43), table, image_size=(640, 360), occlusion_prob=0.3)
    assert a == b and a != c
    ra, rb = render(a), render(b)
    assert np.array_equal(ra.image, rb.image)
    assert ra.truth == rb.truth and ra.anchors_visible == rb.anchors_visible
    assert not np.array_equal(ra.image, render(dataclasses.replace(a, seed=a.seed + 1)).image)


def test_random_scene_places_valid_pieces():
    table = default_table()
    assert table.validate() is None
    for seed in range(4):
        scene = random_scene(np.random.default_rng(seed), table, image_size=(960, 540),
                             noise=False, blur=False, lighting=False)
        assert scene.table.validate() is None
        assert scene.table.anchors == table.anchors
        assert 4 <= len(scene.pieces) <= 10
        assert [p.id for p in scene.table.pieces] == [p.id for p in scene.pieces]
        for p, cfg in zip(scene.pieces, scene.table.pieces):
            assert 10 <= p.id <= 29 and cfg.validate() is None
            assert cfg.side_in == p.side_in and cfg.base_mm == p.base_mm
            assert cfg.height_in == pytest.approx(p.height_in, abs=1e-3)
            assert 0 <= cfg.height_mm <= 35
            r = p.base_mm / 25.4 / 2
            assert r <= p.x_in <= table.width_in - r and r <= p.y_in <= table.length_in - r
        for i, p in enumerate(scene.pieces):
            for q in scene.pieces[i + 1:]:
                gap = math.dist((p.x_in, p.y_in), (q.x_in, q.y_in))
                assert gap > (p.base_mm + q.base_mm) / 50.8
        out = render(scene)
        assert out.anchors_visible == (0, 1, 2, 3, 4, 5)
        assert all(t.visible and not t.occluded for t in out.truth)


def test_hidden_anchors_are_not_drawn():
    table = default_table()
    scene = random_scene(np.random.default_rng(5), table, image_size=(1280, 720), noise=False,
                         blur=False, lighting=False)
    shown = render(scene)
    hidden = render(dataclasses.replace(scene, hidden_anchors=(1, 4)))
    assert set(_detect(shown.image)) >= {0, 1, 2, 3, 4, 5}
    found = set(_detect(hidden.image))
    assert {0, 2, 3, 5} <= found and not found & {1, 4}
    assert hidden.anchors_visible == (0, 2, 3, 5)


def test_occluded_piece_is_flagged_and_covered_by_the_fraction():
    cam = default_camera((960, 540))
    rvec, tvec = camera_pose((11, 15), 26.0, tilt_deg=10, tilt_dir_deg=200)
    pieces = list(_pieces(20.0))
    pieces[2] = dataclasses.replace(pieces[2], occlusion=0.4)
    scene = Scene(_small_table(), tuple(pieces), cam, rvec, tvec, seed=3)
    out = render(scene)
    truth = {t.id: t for t in out.truth}
    assert truth[12].occluded and not truth[12].visible
    assert all(truth[i].visible for i in (10, 11, 13))
    assert 12 not in _detect(out.image)
    # the skin-coloured part of the marker is the requested fraction
    quad = np.array(truth[12].corners_px)
    inside = np.zeros(out.image.shape[:2], np.uint8)
    cv2.fillPoly(inside, [np.round(quad * 16).astype(np.int32)], 1, cv2.LINE_8, shift=4)
    skin = np.all(np.abs(out.image.astype(int) - SKIN_BGR) < 40, axis=2)
    fraction = (skin & (inside > 0)).sum() / inside.sum()
    assert fraction == pytest.approx(0.4, abs=0.05)


def test_render_time_1080p():
    table = default_table()
    scene = random_scene(np.random.default_rng(7), table, occlusion_prob=0.2)
    render(scene)                                   # distortion maps are cached per camera
    times = []
    for _ in range(3):
        t0 = time.perf_counter()
        out = render(scene)
        times.append(time.perf_counter() - t0)
    assert out.image.shape == (1080, 1920, 3) and out.image.dtype == np.uint8
    print(f"\nrender 1920x1080, {len(scene.pieces)} pieces: best {min(times) * 1000:.0f} ms")
