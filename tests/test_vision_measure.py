"""The measurement geometry on exact synthetic corners (projected with a known camera, lens
distortion and noise): height correction, the homography fallback, anchors missing, a fit
that is too poor, contact, and uncertainties that cover the real error."""

from __future__ import annotations

import dataclasses
import json
import math

import cv2
import numpy as np
import pytest

from vision.config import AnchorConfig, CameraConfig, PieceConfig, TableConfig
from vision.detect import Detection
from vision.geometry import UNIT_SQUARE
from vision.measure import Measurer, VisionError, pairs, read_image

ANCHORS = tuple(AnchorConfig(i, x, y, 1.5) for i, (x, y) in enumerate(
    [(1.2, 1.2), (20.8, 1.2), (1.2, 15), (20.8, 15), (1.2, 28.8), (20.8, 28.8)]))
PIECES = (PieceConfig(10, 0.75, 40, 30, "Kaze"), PieceConfig(11, 0.75, 40, 30, "Lince"),
          PieceConfig(12, 0.6, 30, 0, "Oso"), PieceConfig(13, 1.0, 50, 35, "Yokozuna"))
TABLE = TableConfig(anchors=ANCHORS, pieces=PIECES)
K = np.array([[1000.0, 0, 960], [0, 1000.0, 540], [0, 0, 1]])
DIST = np.array([-0.06, 0.01, 0.0005, -0.0003, 0.0])
CAMERA = CameraConfig.from_arrays((1920, 1080), K, DIST)
# the pitch's long side along the image's x: camera rotated 90 degrees, 34" up, tilted a bit
RVEC = cv2.Rodrigues(cv2.Rodrigues(np.array([0.0, 0.0, math.pi / 2]))[0]
                     @ cv2.Rodrigues(np.array([0.12, -0.05, 0.0]))[0])[0].ravel()


def tvec_for(rvec, centre=(11.0, 15.0), height=34.0):
    rot, _ = cv2.Rodrigues(rvec)
    cam = np.array([centre[0], centre[1], -height])
    return -rot @ cam


TVEC = tvec_for(RVEC)
POSITIONS = {10: (5.0, 8.0, 20), 11: (7.6, 8.9, 75), 12: (15.0, 22.0, 0), 13: (6.0, 24.0, 40)}


def project(world, rvec=RVEC, tvec=TVEC, k=K, dist=DIST):
    img, _ = cv2.projectPoints(np.asarray(world, dtype=np.float64), rvec, tvec, k, dist)
    return img.reshape(-1, 2)


def corners_3d(x, y, side, angle_deg, height_in):
    a = math.radians(angle_deg)
    rot = np.array([[math.cos(a), math.sin(a)], [-math.sin(a), math.cos(a)]])
    xy = UNIT_SQUARE * side @ rot + (x, y)
    return np.c_[xy, np.full(4, -height_in)]


def detections(noise=0.0, rng=None, skip=(), positions=POSITIONS, pieces=PIECES, **proj):
    out = []
    for a in ANCHORS:
        if a.id not in skip:
            out.append((a.id, corners_3d(a.x_in, a.y_in, a.side_in, 0, 0)))
    for p in pieces:
        if p.id in positions and p.id not in skip:
            x, y, ang = positions[p.id]
            out.append((p.id, corners_3d(x, y, p.side_in, ang, p.height_in)))
    dets = []
    for marker_id, world in out:
        img = project(world, **proj)
        if noise:
            img = img + rng.normal(0, noise, img.shape)
        dets.append(Detection(marker_id, tuple(map(tuple, img))))
    return dets


def true_distance(a, b):
    (xa, ya, _), (xb, yb, _) = POSITIONS[a], POSITIONS[b]
    return math.hypot(xa - xb, ya - yb)


def test_exact_corners_give_exact_height_corrected_positions_and_distances():
    m = Measurer(TABLE, CAMERA).measure_detections(detections())
    assert m.mode == "pose" and m.reprojection_error_in < 1e-6 and m.warnings == ()
    for p in m.pieces:
        x, y, _ = POSITIONS[p.id]
        assert math.hypot(p.x_in - x, p.y_in - y) < 1e-6 and p.height_corrected
    d = m.distance(10, 13)
    assert abs(d.center_in - true_distance(10, 13)) < 1e-6
    assert abs(d.edge_in - (d.center_in - (20 + 25) / 25.4)) < 1e-9   # 40 mm and 50 mm bases
    assert [p.name for p in m.pieces] == ["Kaze", "Lince", "Oso", "Yokozuna"]


def test_without_a_camera_file_the_homography_places_tops_where_their_rays_meet_the_table():
    m = Measurer(TABLE, None).measure_detections(detections(dist=np.zeros(5)))
    assert m.mode == "homography" and m.reprojection_error_in < 1e-6
    assert any("heights are not corrected" in w for w in m.warnings)
    oso = m.piece(12)                                   # a marker on the table: exact
    assert math.hypot(oso.x_in - 15.0, oso.y_in - 22.0) < 1e-6
    kaze = m.piece(10)                                  # 30 mm up: off by the parallax
    assert math.hypot(kaze.x_in - 5.0, kaze.y_in - 8.0) > 0.1


def test_fewer_than_three_anchors_names_the_ones_not_found():
    with pytest.raises(VisionError, match=r"anchor markers 0, 2, 3, 5 not found: 2 of 6 seen"):
        Measurer(TABLE, CAMERA).measure_detections(detections(skip=(0, 2, 3, 5)))
    m = Measurer(TABLE, CAMERA).measure_detections(detections(skip=(3,)))
    assert m.warnings == ("anchor 3 not seen: measuring from 5 anchors",)


def test_a_wrong_intrinsics_file_is_refused_by_the_table_fit():
    wrong = CameraConfig.from_arrays((1920, 1080), K * [[1.0], [1.0], [1.0]], [0.15, 0, 0, 0, 0])
    with pytest.raises(VisionError, match=r"the table fit is off by 0\.\d+\" at the anchors.*"
                                          r"check the camera file"):
        Measurer(TABLE, wrong).measure_detections(detections())
    with pytest.raises(VisionError, match="camera file is for 1920x1080 images, this image is "
                                          "1280x720"):
        Measurer(TABLE, CAMERA).measure(np.zeros((720, 1280, 3), np.uint8))


def test_bases_in_contact_measure_0_and_pairs_are_every_pair_once():
    close = dict(POSITIONS)
    close[11] = (5.0 + 40 / 25.4 - 0.002, 8.0, 0)         # overlapping by a hair: contact
    m = Measurer(TABLE, CAMERA).measure_detections(detections(positions=close))
    assert m.distance(10, 11).edge_in == 0.0 and m.distance(10, 11).contact
    assert len(m.distances) == 6 and {(d.a, d.b) for d in m.distances} == {
        (10, 11), (10, 12), (10, 13), (11, 12), (11, 13), (12, 13)}


def test_uncertainty_comes_from_the_detection_and_covers_the_error():
    rng = np.random.default_rng(5)
    inside = total = 0
    small, large = [], []
    table = dataclasses.replace(TABLE, max_error_in=0.1)
    for noise, bucket in ((0.02, small), (0.6, large)):
        for _ in range(60):
            m = Measurer(table, CAMERA).measure_detections(detections(noise, rng))
            for d in m.distances:
                err = abs(d.center_in - true_distance(d.a, d.b))
                bucket.append(d.uncertainty_in)
                total += 1
                inside += err <= 2 * d.uncertainty_in
    assert np.median(large) > 3 * np.median(small)    # not a constant
    assert inside / total > 0.9                        # 2 sigma covers ~95% of the errors


def test_measurement_json_has_the_documented_keys():
    m = Measurer(TABLE, CAMERA).measure_detections(detections())
    data = json.loads(json.dumps(m.to_json()))
    assert data["ok"] is True and set(data["pieces"][0]) >= {"id", "x_in", "y_in"}
    assert set(data["distances"][0]) >= {"a", "b", "center_in", "edge_in", "uncertainty_in"}


def test_unreadable_image_files_are_named(tmp_path):
    empty = tmp_path / "empty.png"
    empty.write_bytes(b"")
    with pytest.raises(VisionError, match=r"empty\.png: empty file \(0 bytes\)"):
        read_image(empty)
    bad = tmp_path / "corrupt.jpg"
    bad.write_bytes(b"\xff\xd8\xff\xe0garbage" * 10)
    with pytest.raises(VisionError, match=r"corrupt\.jpg: not an image OpenCV can read"):
        read_image(bad)
    with pytest.raises(VisionError, match=r"missing\.png: no such file"):
        read_image(tmp_path / "missing.png")


def test_pairs_add_uncertainties_in_quadrature():
    from vision.measure import PiecePosition
    a = PiecePosition(1, "", 0, 0, 0.003, 0.5, 30, True)
    b = PiecePosition(2, "", 3, 4, 0.004, 0.5, 30, True)
    (d,) = pairs([a, b])
    assert (d.center_in, d.edge_in) == (5.0, 4.0) and abs(d.uncertainty_in - 0.005) < 1e-12


def test_circles_on_the_table_map_back_onto_the_image():
    m = Measurer(TABLE, CAMERA).measure_detections(detections())
    poly = m.fit.circle(15.0, 22.0, 0.5, n=8)
    truth = project(np.c_[15.0 + 0.5 * np.cos(np.linspace(0, 2 * np.pi, 8, endpoint=False)),
                          22.0 + 0.5 * np.sin(np.linspace(0, 2 * np.pi, 8, endpoint=False)),
                          np.zeros(8)])
    assert np.abs(poly - truth).max() < 1e-6
    back = m.fit.to_plane(m.fit.to_image(np.array([[3.0, 4.0]]), 0.7), 0.7)
    assert np.abs(back - [[3.0, 4.0]]).max() < 1e-9


def test_without_a_camera_file_the_uncertainty_owns_up_to_the_parallax():
    m = Measurer(TABLE, None).measure_detections(detections(dist=np.zeros(5)))
    kaze, oso = m.piece(10), m.piece(12)                  # 30 mm up, on the table
    assert kaze.sigma_in > 0.3 * 30 / 25.4 * 0.99 and oso.sigma_in < 0.01
    err = math.hypot(kaze.x_in - 5.0, kaze.y_in - 8.0)
    assert err < 2 * kaze.sigma_in


# -- the anchor layout's error ---------------------------------------------------------


FLAT = dataclasses.replace(TABLE, pieces=tuple(dataclasses.replace(p, height_mm=0)
                                               for p in PIECES))


def moved_table(anchor_id, shift, table=TABLE):
    """The table file saying ``anchor_id`` lies ``shift`` (dx, dy) from where it really is."""
    return dataclasses.replace(table, max_error_in=0.2, anchors=tuple(
        dataclasses.replace(a, x_in=a.x_in + shift[0], y_in=a.y_in + shift[1])
        if a.id == anchor_id else a for a in table.anchors))


@pytest.mark.parametrize("camera", [CAMERA, None], ids=["camera file", "homography"])
@pytest.mark.parametrize("shift_in", [0.05, 0.1])
def test_one_anchor_moved_grows_the_uncertainty_and_covers_the_truth(camera, shift_in):
    rng = np.random.default_rng(11)
    # the pieces at table height in both modes (the homography cannot correct heights)
    table = FLAT
    kw = {} if camera is not None else {"dist": np.zeros(5)}

    def dets():
        return detections(0.05, rng, pieces=FLAT.pieces, **kw)

    base = Measurer(dataclasses.replace(table, max_error_in=0.2), camera).measure_detections(dets())
    for anchor in (0, 3, 5):
        shift = (0.6 * shift_in, -0.8 * shift_in)
        m = Measurer(moved_table(anchor, shift, table), camera).measure_detections(dets())
        assert len(m.distances) == 6
        for d in m.distances:
            assert abs(d.center_in - true_distance(d.a, d.b)) <= 2 * d.uncertainty_in, (anchor, d)
            assert d.uncertainty_in > base.distance(d.a, d.b).uncertainty_in
        assert max(d.uncertainty_in / base.distance(d.a, d.b).uncertainty_in
                   for d in m.distances) > 2


def test_four_anchors_and_no_camera_file_say_so_and_widen_the_uncertainty():
    four = dataclasses.replace(FLAT, anchors=tuple(a for a in ANCHORS if a.id in (0, 1, 4, 5)))
    rng = np.random.default_rng(3)
    flat = detections(0.05, rng, dist=np.zeros(5), pieces=FLAT.pieces)
    m4 = Measurer(four, None).measure_detections([d for d in flat if d.id not in (2, 3)])
    m6 = Measurer(FLAT, None).measure_detections(flat)
    assert not m4.layout_checked and m6.layout_checked
    assert any("cannot be noticed" in w and "lay 6 anchors" in w for w in m4.warnings)
    assert m4.layout_sigma_in == TABLE.max_error_in
    oso_yoko4, oso_yoko6 = m4.distance(12, 13), m6.distance(12, 13)
    assert oso_yoko4.uncertainty_in > 2 * oso_yoko6.uncertainty_in
    # with a camera file 4 anchors leave 2 degrees of freedom: checked
    assert Measurer(four, CAMERA).measure_detections(
        [d for d in detections() if d.id not in (2, 3)]).layout_checked


# -- no phantom pieces -----------------------------------------------------------------


def with_extra(dets, marker_id, x, y, side, **proj):
    """``dets`` plus a marker ``marker_id`` of ``side`` inches lying at (x, y) on the table."""
    img = project(corners_3d(x, y, side, 10, 0), **proj)
    return dets + [Detection(marker_id, tuple(map(tuple, img)))]


def lens(camera):
    """The projection for a mode: distortion with a camera file, none for the homography
    (which cannot correct it)."""
    return {} if camera is not None else {"dist": np.zeros(5)}


@pytest.mark.parametrize("camera", [CAMERA, None], ids=["camera file", "homography"])
def test_a_marker_the_table_does_not_declare_never_becomes_a_piece(camera):
    m = Measurer(TABLE, camera, steady_frames=3)
    for _ in range(10):
        r = m.measure_detections(with_extra(detections(**lens(camera)), 17, 12.0, 12.0, 0.75,
                                            **lens(camera)))
        assert r.piece(17) is None and all(d.a != 17 and d.b != 17 for d in r.distances)
    assert r.unknown_markers == (17,)
    assert r.ignored_counts["not declared"] == 1
    assert any(i.id == 17 and i.reason == "not declared" for i in r.ignored)


@pytest.mark.parametrize("camera", [CAMERA, None], ids=["camera file", "homography"])
@pytest.mark.parametrize("side", [0.4, 1.2, 2.0])
def test_a_marker_of_the_wrong_size_never_becomes_a_piece(camera, side):
    """Oso's id printed at another size (a glass icon read as its id): never Oso."""
    others = {k: v for k, v in POSITIONS.items() if k != 12}
    m = Measurer(TABLE, camera, steady_frames=3)
    for _ in range(10):
        r = m.measure_detections(with_extra(detections(positions=others, **lens(camera)), 12,
                                            15.0, 22.0, side, **lens(camera)))
        assert r.piece(12) is None and 12 in r.missing_pieces
    assert r.ignored_counts == {"wrong size": 1}
    assert "declared 0.6\"" in next(i.detail for i in r.ignored if i.id == 12)
    # its own topper, at its declared size, is a piece
    ok = Measurer(TABLE, camera).measure_detections(detections(**lens(camera)))
    assert ok.piece(12) is not None and ok.ignored == ()
    assert len(ok.pieces) == 4        # the toppers 30-35 mm up pass the check too


def test_a_piece_appears_only_after_the_steady_frame_count():
    m = Measurer(TABLE, CAMERA, steady_frames=3)
    without_kaze = {k: v for k, v in POSITIONS.items() if k != 10}
    for _ in range(3):
        m.measure_detections(detections(positions=without_kaze))
    shown = []
    for _ in range(4):
        r = m.measure_detections(detections())
        shown.append(r.piece(10) is not None)
    assert shown == [False, False, True, True]
    assert r.ignored == ()
    first = Measurer(TABLE, CAMERA, steady_frames=3).measure_detections(detections())
    assert first.pieces == () and first.ignored_counts == {"not steady yet": 4}
    # a frame without it starts its count again
    m.measure_detections(detections(positions=without_kaze))
    assert m.measure_detections(detections()).piece(10) is None
    with pytest.raises(ValueError, match="steady_frames 0: at least 1"):
        Measurer(TABLE, CAMERA, steady_frames=0)
