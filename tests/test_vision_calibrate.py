"""Calibration, on ChArUco views rendered with a known camera and on real photographs of a
chessboard and of another ChArUco board (``tests/data/real``)."""

from __future__ import annotations

import functools

import cv2
import numpy as np
import pytest

from tests.real_photos import missing
from vision.calibrate import (
    BoardView,
    CalibrationError,
    calibrate,
    calibrate_images,
    calibrate_live,
    coverage,
    coverage_warning,
    detect_board,
    k3_decision,
)
from vision.cli import main as cli_main
from vision.config import CHARUCO, CameraConfig, CharucoSpec, load_camera, save_camera
from vision.photos import PHOTO_DIRS, photo_dir
from vision.render import default_camera, project, random_board_poses, render_board_view

SIZE = (960, 540)


@functools.lru_cache(maxsize=1)
def _true_camera() -> CameraConfig:
    # fx = 700 at 960x540: the same field of view as fx = 1400 at 1920x1080
    cam = default_camera(SIZE, 2 * np.degrees(np.arctan(480 / 700)), k1=-0.05, k2=0.01)
    assert cam.camera_matrix[0][0] == pytest.approx(700)
    return cam


@functools.lru_cache(maxsize=1)
def _frames() -> tuple[np.ndarray, ...]:
    cam = _true_camera()
    poses = random_board_poses(np.random.default_rng(2), cam, 15)
    return tuple(render_board_view(cam, rvec, tvec, noise_sigma=1.5, blur_sigma=0.6, seed=i)
                 for i, (rvec, tvec) in enumerate(poses))


def _write_frames(tmp_path, frames) -> list:
    paths = []
    for i, frame in enumerate(frames):
        path = tmp_path / f"view{i:02d}.png"
        assert cv2.imwrite(str(path), frame)
        paths.append(path)
    return paths


def _assert_close(cam: CameraConfig, truth: CameraConfig) -> None:
    (fx, _, cx), (_, fy, cy), _ = cam.camera_matrix
    (tfx, _, tcx), (_, tfy, tcy), _ = truth.camera_matrix
    assert fx == pytest.approx(tfx, rel=0.005)
    assert fy == pytest.approx(tfy, rel=0.005)
    assert cx == pytest.approx(tcx, rel=0.01)
    assert cy == pytest.approx(tcy, rel=0.01)
    assert cam.reprojection_error_px < 0.5
    assert cam.image_size == truth.image_size


def test_detect_board_finds_projected_corners():
    cam = _true_camera()
    rvec, tvec = random_board_poses(np.random.default_rng(9), cam, 1)[0]
    view = detect_board(render_board_view(cam, rvec, tvec))
    assert view is not None and len(view) >= 30 and view.image_size == SIZE
    obj = CHARUCO.board().getChessboardCorners()[view.ids.ravel()]
    err = np.linalg.norm(view.corners.reshape(-1, 2) - project(cam, rvec, tvec, obj), axis=1)
    assert err.mean() < 0.2
    assert detect_board(np.full((540, 960, 3), 128, np.uint8)) is None


def test_calibration_recovers_the_camera():
    views = [detect_board(f) for f in _frames()]
    assert all(v is not None for v in views)
    calls = []
    cam = calibrate(views, SIZE, progress=lambda done, total: calls.append((done, total)))
    _assert_close(cam, _true_camera())
    assert cam.views == 15 and cam.validate() is None
    assert cam.dist_coeffs[0] == pytest.approx(-0.05, abs=0.01)
    assert cam.dist_coeffs[4] == 0.0                           # k3 fixed
    assert calls[-1] == (16, 16) and len(calls) == 16
    print(f"\nfx {cam.camera_matrix[0][0]:.2f} (700), fy {cam.camera_matrix[1][1]:.2f}, "
          f"cx {cam.camera_matrix[0][2]:.2f} ({_true_camera().camera_matrix[0][2]}), "
          f"cy {cam.camera_matrix[1][2]:.2f}, k1 {cam.dist_coeffs[0]:.4f}, "
          f"rms {cam.reprojection_error_px} px")


def test_too_few_views_are_refused():
    views = [detect_board(f) for f in _frames()[:7]]
    with pytest.raises(CalibrationError) as err:
        calibrate(views, SIZE)
    assert str(err.value) == ("7 views with the board found: at least 8 are needed; show the "
                              "board in more places and angles")


def test_coverage_and_its_warning():
    views = [detect_board(f) for f in _frames()]
    assert coverage(views, SIZE) >= 0.75 and coverage_warning(views, SIZE) is None
    # views only in the right half of the image
    right = [v for v in views if v.corners[:, 0, 0].min() > SIZE[0] / 2]
    fake = [type(v)(v.corners, v.ids, v.image_size) for v in right] or [
        type(views[0])(np.array([[[900.0, 500.0]]], np.float32), np.array([[0]], np.int32), SIZE)]
    warning = coverage_warning(fake, SIZE)
    assert coverage(fake, SIZE) <= 0.5
    assert warning.startswith("the board was never seen in the top-left corner")
    assert "left edge" in warning


def test_calibrate_images_and_save_load_round_trip(tmp_path):
    paths = _write_frames(tmp_path, _frames())
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((540, 960, 3), 90, np.uint8))
    seen = []
    cam, report = calibrate_images(paths + [blank], progress=lambda d, t: seen.append((d, t)))
    _assert_close(cam, _true_camera())
    assert report["images"] == 16 and report["views"] == 15
    assert report["skipped"] == [str(blank)]
    assert any("blank.png" in w for w in report["warnings"])
    assert seen[-1] == (16, 16)
    out = save_camera(tmp_path / "camera.yaml", cam)
    assert load_camera(out) == cam


def test_unreadable_files_are_named(tmp_path):
    paths = _write_frames(tmp_path, _frames()[:9])
    empty = tmp_path / "empty.png"
    empty.write_bytes(b"")
    corrupt = tmp_path / "corrupt.jpg"
    corrupt.write_bytes(b"\xff\xd8\xff\xe0 this is not really a JPEG" * 10)
    missing = tmp_path / "missing.png"
    with pytest.raises(CalibrationError) as err:
        calibrate_images(paths + [empty, corrupt, missing])
    message = str(err.value)
    assert message.startswith("3 image files could not be read")
    assert f"{empty} (empty file)" in message
    assert f"{corrupt} (not an image, or a corrupt one)" in message
    assert f"{missing} (no such file)" in message


def test_images_of_different_sizes_are_refused(tmp_path):
    paths = _write_frames(tmp_path, _frames()[:9])
    small = tmp_path / "small.png"
    cv2.imwrite(str(small), cv2.resize(_frames()[0], (640, 360)))
    with pytest.raises(CalibrationError, match="small.png is 640x360 but .*view00.png is "
                                               "960x540"):
        calibrate_images(paths + [small])


class FakeCapture:
    """A camera that shows each rendered frame three times, with empty frames between."""

    def __init__(self, frames):
        blank = np.full_like(frames[0], 100)
        self.queue = [f for frame in frames for f in (frame, frame, blank, frame)]
        self.reads = 0

    def read(self):
        self.reads += 1
        if not self.queue:
            return False, None
        return True, self.queue.pop(0)


def test_calibrate_live_keeps_distinct_views():
    capture = FakeCapture(list(_frames()))
    kept_calls, shown = [], []
    cam, report = calibrate_live(capture, n_views=12,
                                 progress=lambda k, n: kept_calls.append((k, n)),
                                 on_frame=lambda frame, view, kept: shown.append(kept))
    _assert_close(cam, _true_camera())
    assert report["views"] == 12 == cam.views
    assert kept_calls[-1] == (12, 12) and sum(shown) == 12
    assert report["without_board"] >= 11 and report["similar"] >= 22   # repeats not kept


def test_calibrate_live_with_too_few_distinct_views():
    capture = FakeCapture([_frames()[0]] * 5 + list(_frames()[1:4]))
    with pytest.raises(CalibrationError, match="^4 views with the board found: at least 8"):
        calibrate_live(capture, n_views=20)


# -- any board, and k3 from the views --------------------------------------------------

REAL = photo_dir()


def test_another_board_s_views_name_the_board_expected(tmp_path):
    paths = _write_frames(tmp_path, _frames()[:9])
    other = CharucoSpec(dictionary="DICT_4X4_50")
    with pytest.raises(CalibrationError) as err:
        calibrate_images(paths, other)
    assert str(err.value) == (
        "the board was not found in any of the 9 images: expected a ChArUco board of 9 x 6 "
        "squares of 1\", markers 0.75\" from DICT_4X4_50; for another board give its --board, "
        "--squares, --square, --marker and --dictionary")
    chess = CharucoSpec(10, 7, 1.0, kind="chessboard")
    with pytest.raises(CalibrationError, match=r"in any of the 2 images: expected a chessboard "
                                               r"of 10 x 7 squares of 1\" \(9 x 6 inner corners\)"):
        calibrate_images(paths[:2], chess)


def test_k3_is_free_only_when_the_views_pin_it_down():
    grid = np.stack(np.meshgrid(np.linspace(5, SIZE[0] - 5, 8), np.linspace(5, SIZE[1] - 5, 6)),
                    -1).reshape(-1, 1, 2).astype(np.float32)
    ids = np.arange(len(grid), dtype=np.int32).reshape(-1, 1)
    everywhere = [BoardView(grid, ids, SIZE) for _ in range(12)]
    assert k3_decision(everywhere, SIZE, 0.2, 0.01) == (
        True, "free: the views pin it down (k3 0.2 ± 0.01)")
    free, why = k3_decision(everywhere, SIZE, 0.02, 0.05)
    assert not free and why.startswith("fixed at 0: the views do not pin it down")
    assert k3_decision(everywhere[:9], SIZE, 0.2, 0.01) == (
        False, "fixed at 0: 9 views (a free k3 needs 12 or more)")
    middle = [BoardView(grid * 0.5 + np.float32([240, 135]), ids, SIZE) for _ in range(12)]
    assert k3_decision(middle, SIZE, 0.2, 0.01) == (
        False, "fixed at 0: the board never reached every corner of the image")
    views = [detect_board(f) for f in _frames()]
    decision = {}
    cam = calibrate(views, SIZE, decision=decision)
    assert decision["k3"] in ("free", "fixed") and decision["k3_reason"]
    assert (cam.dist_coeffs[4] == 0.0) == (decision["k3"] == "fixed")
    forced = {}
    calibrate(views, SIZE, fix_k3=True, decision=forced)
    assert forced == {"k3": "fixed", "k3_reason": "fixed at 0 (asked)"}


def _real(pattern):
    paths = sorted(REAL.glob(pattern))
    if not paths:
        missing(f"real photographs ({pattern}) not present in "
                    + " or ".join(str(d) for d in PHOTO_DIRS)
                    + " (tests/data/real/README.md says where they come from)")
    return paths


def test_a_real_chessboard_calibrates_with_board_chessboard(tmp_path):
    paths = _real("chessboard/left*.jpg")
    spec = CharucoSpec(10, 7, 25 / 25.4, kind="chessboard")
    cam, report = calibrate_images(paths, spec)
    assert report["views"] == len(paths) == 13 and report["skipped"] == []
    assert cam.reprojection_error_px < 0.5 and cam.image_size == (640, 480)
    (fx, _, cx), (_, fy, cy), _ = cam.camera_matrix
    assert abs(fx / fy - 1) < 0.01 and 300 < cx < 340 + 40 and 200 < cy < 280
    # these views never reach the image's corners: k3 stays fixed, and says why
    assert report["k3"] == "fixed" and "every corner" in report["k3_reason"]
    assert cam.dist_coeffs[4] == 0.0
    # the default (the project's ChArUco board) is not in them, and the error says so
    with pytest.raises(CalibrationError, match="expected a ChArUco board of 9 x 6"):
        calibrate_images(paths)


def test_the_command_line_takes_a_board(tmp_path):
    paths = _real("chessboard/left*.jpg")
    out = tmp_path / "cam.yaml"
    code = cli_main(["calibrate", *map(str, paths), "--board", "chessboard", "--squares",
                     "10x7", "--square", "25mm", "--out", str(out), "--json"])
    assert code == 0 and load_camera(out).views == 13
    assert cli_main(["calibrate", *map(str, paths), "--squares", "10", "--out", str(out)]) == 2


def test_a_real_charuco_board_of_another_size_is_found():
    paths = _real("img_0*.jpg")
    spec = CharucoSpec(5, 7, 40 / 25.4, 20 / 25.4, "DICT_6X6_250")
    from vision.measure import read_image

    for p in paths:
        view = detect_board(read_image(p), spec)
        assert view is not None and len(view) >= 20, p
        assert detect_board(read_image(p)) is None
    with pytest.raises(CalibrationError, match=r"4 views with the board found \(in 4 images, "
                                               r"looking for a ChArUco board of 5 x 7"):
        calibrate_images(paths, spec)
