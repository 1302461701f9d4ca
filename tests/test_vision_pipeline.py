"""The whole measurement on rendered 1080p scenes with known ground truth, each failure the
issue names (no anchors, one anchor hidden, a piece half occluded, a wrong intrinsics file,
an empty or corrupt image file), the command line, and a short version of ``make bench``."""

from __future__ import annotations

import dataclasses
import json
import math
import re
import subprocess
import sys

import cv2
import numpy as np
import pytest

from vision.config import MM_PER_IN, CameraConfig
from vision.measure import Measurer, VisionError
from vision.render import default_table, random_scene, render


def scene(seed, **kw):
    kw.setdefault("occlusion_prob", 0.0)
    return random_scene(np.random.default_rng(seed), default_table(), **kw)


def truth_edges(sc, frame):
    cfg = {p.id: p for p in sc.table.pieces}
    t = {p.id: p for p in frame.truth}
    out = {}
    for a in t:
        for b in t:
            if a < b:
                c = math.hypot(t[a].x_in - t[b].x_in, t[a].y_in - t[b].y_in)
                out[(a, b)] = max(0.0, c - (cfg[a].base_mm + cfg[b].base_mm) / MM_PER_IN / 2)
    return out


def test_a_tilted_distorted_scene_with_tall_miniatures_measures_to_the_hundredth():
    sc = scene(21, max_tilt_deg=25, heights_mm=(25, 35))
    frame = render(sc)
    m = Measurer(sc.table, sc.camera).measure(frame.image)
    assert m.mode == "pose" and m.reprojection_error_in < 0.01 and m.warnings == ()
    assert {p.id for p in m.pieces} == {t.id for t in frame.truth if t.visible}
    truth = {t.id: t for t in frame.truth}
    for p in m.pieces:
        assert math.hypot(p.x_in - truth[p.id].x_in, p.y_in - truth[p.id].y_in) < 0.01
    edges = truth_edges(sc, frame)
    errors = [abs(d.edge_in - edges[(d.a, d.b)]) for d in m.distances]
    assert np.median(errors) < 0.01 and max(errors) < 0.03


def test_without_the_camera_file_the_tall_miniatures_are_off_and_it_says_so():
    sc = scene(21, max_tilt_deg=25, heights_mm=(25, 35))
    frame = render(sc)
    m = Measurer(sc.table, None).measure(frame.image)
    truth = {t.id: t for t in frame.truth}
    worst = max(math.hypot(p.x_in - truth[p.id].x_in, p.y_in - truth[p.id].y_in)
                for p in m.pieces)
    assert worst > 0.1 and any("heights are not corrected" in w for w in m.warnings)


def test_no_anchors_and_too_few_anchors_name_the_ones_missing():
    sc = scene(22)
    with pytest.raises(VisionError, match=r"anchor markers 0, 1, 2, 3, 4, 5 not found: 0 of 6"):
        Measurer(sc.table, sc.camera).measure(render(dataclasses.replace(
            sc, hidden_anchors=(0, 1, 2, 3, 4, 5))).image)
    with pytest.raises(VisionError, match=r"anchor markers 1, 3, 4, 5 not found: 2 of 6 seen"):
        Measurer(sc.table, sc.camera).measure(render(dataclasses.replace(
            sc, hidden_anchors=(1, 3, 4, 5))).image)


def test_one_anchor_hidden_still_measures_and_says_which():
    sc = scene(23)
    frame = render(dataclasses.replace(sc, hidden_anchors=(3,)))
    m = Measurer(sc.table, sc.camera).measure(frame.image)
    assert m.warnings == ("anchor 3 not seen: measuring from 5 anchors",)
    truth = {t.id: t for t in frame.truth}
    assert all(math.hypot(p.x_in - truth[p.id].x_in, p.y_in - truth[p.id].y_in) < 0.01
               for p in m.pieces)


def test_a_half_occluded_piece_is_missing_never_misplaced():
    sc = scene(24, n_pieces=(6, 6))
    victim = sc.pieces[2]
    pieces = tuple(dataclasses.replace(p, occlusion=0.5) if p.id == victim.id else p
                   for p in sc.pieces)
    frame = render(dataclasses.replace(sc, pieces=pieces))
    m = Measurer(sc.table, sc.camera).measure(frame.image)
    truth = {t.id: t for t in frame.truth}
    assert truth[victim.id].occluded
    got = m.piece(victim.id)
    if got is None:
        assert victim.id in m.missing_pieces
    else:       # found despite the finger: then it must still be right
        assert math.hypot(got.x_in - truth[victim.id].x_in, got.y_in - truth[victim.id].y_in) \
            < 2 * got.sigma_in + 0.01
    others = {t.id for t in frame.truth if t.visible and t.marker_side_px >= 24}
    assert others <= {p.id for p in m.pieces} and m.warnings == ()


def test_a_wrong_intrinsics_file_is_refused_not_believed():
    sc = scene(25, max_tilt_deg=20)
    frame = render(sc)
    (fx, _, cx), (_, fy, cy), _ = sc.camera.camera_matrix
    other = CameraConfig.from_arrays(sc.camera.image_size,
                                     [[fx * 1.35, 0, cx], [0, fy * 1.35, cy], [0, 0, 1]],
                                     [0.12, 0, 0, 0, 0])
    with pytest.raises(VisionError, match=r"table fit is off by .* check the camera file"):
        Measurer(sc.table, other).measure(frame.image)


def run_cli(*args):
    proc = subprocess.run([sys.executable, "-m", "vision", *map(str, args)],
                          capture_output=True, text=True, timeout=120)
    return proc.returncode, proc.stdout, proc.stderr


def test_command_line_render_then_measure_as_json(tmp_path):
    img = tmp_path / "scene.png"
    code, out, err = run_cli("render", img, "--seed", 5)
    assert code == 0, err
    code, out, err = run_cli("measure", img, "--table", tmp_path / "scene.table.yaml",
                             "--camera", tmp_path / "scene.camera.yaml", "--json")
    assert code == 0, err
    data = json.loads(out)
    truth = {p["id"]: p for p in json.loads((tmp_path / "scene.truth.json").read_text())["pieces"]}
    assert data["ok"] and data["reprojection_error_in"] < 0.01
    for p in data["pieces"]:
        assert math.hypot(p["x_in"] - truth[p["id"]]["x_in"], p["y_in"] - truth[p["id"]]["y_in"]) < 0.01
    assert {"a", "b", "center_in", "edge_in", "uncertainty_in"} <= set(data["distances"][0])


def test_command_line_failures_are_json_with_a_reason(tmp_path):
    img = tmp_path / "scene.png"
    run_cli("render", img, "--seed", 6)
    table = tmp_path / "scene.table.yaml"
    empty = tmp_path / "empty.png"
    empty.write_bytes(b"")
    code, out, _ = run_cli("measure", empty, "--table", table, "--json")
    assert code != 0 and json.loads(out) == {"ok": False, "error": f"{empty}: empty file (0 bytes)"}
    corrupt = tmp_path / "corrupt.png"
    corrupt.write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * 40)
    code, out, _ = run_cli("measure", corrupt, "--table", table, "--json")
    assert code != 0 and "corrupt.png: not an image OpenCV can read" in json.loads(out)["error"]
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((1080, 1920, 3), 90, np.uint8))
    code, out, _ = run_cli("measure", blank, "--table", table, "--json")
    assert code != 0 and json.loads(out)["error"].startswith(
        "anchor markers 0, 1, 2, 3, 4, 5 not found")
    small = tmp_path / "small.png"
    cv2.imwrite(str(small), np.full((720, 1280, 3), 90, np.uint8))
    code, out, _ = run_cli("measure", small, "--table", table, "--camera",
                           tmp_path / "scene.camera.yaml", "--json")
    assert code != 0 and "camera file is for 1920x1080 images" in json.loads(out)["error"]
    bad_table = tmp_path / "bad.yaml"
    bad_table.write_text("dictionary: DICT_4X4_50\nanchors:\n  - {id: 0, x_in: 1, y_in: 1}\n")
    code, out, _ = run_cli("measure", img, "--table", bad_table, "--json")
    assert code == 3 and "bad.yaml:3: anchors[0]" in json.loads(out)["error"] \
        and "side_in" in json.loads(out)["error"]


def test_short_benchmark_meets_the_accuracy_and_detection_targets():
    """``make bench`` runs 200 scenes; this is 12 of them (accuracy, not speed)."""
    from vision.bench import run

    figures = run(12, seed=99, refinements=("contour",), dictionaries=("DICT_4X4_50",))
    assert figures["detection_rate"] == 1.0
    assert figures["median_error_in"] < 0.01 and figures["p95_error_in"] < 0.03
    assert figures["within_2u"] >= 0.9


def test_command_line_calibrate_from_board_photos(tmp_path):
    from vision.config import load_camera
    from vision.render import default_camera, random_board_poses, render_board_view

    cam = default_camera((960, 540), k1=-0.05)
    paths = []
    for i, (rvec, tvec) in enumerate(random_board_poses(np.random.default_rng(4), cam, 12)):
        path = tmp_path / f"board{i:02d}.png"
        cv2.imwrite(str(path), render_board_view(cam, rvec, tvec, noise_sigma=1.0, seed=i))
        paths.append(path)
    out = tmp_path / "camera.yaml"
    code, stdout, err = run_cli("calibrate", *paths, "--out", out, "--json")
    assert code == 0, err
    report = json.loads(stdout)
    assert report["ok"] and report["views"] == 12 and report["rms_px"] < 0.5
    got = load_camera(out)
    assert abs(got.camera_matrix[0][0] / cam.camera_matrix[0][0] - 1) < 0.01
    (tmp_path / "board00.png").write_bytes(b"")
    code, stdout, _ = run_cli("calibrate", *paths, "--out", out, "--json")
    assert code != 0 and "board00.png" in json.loads(stdout)["error"]


# -- images of any depth, and refusals that say why ------------------------------------


def _measure_file(path, sc):
    from vision.measure import read_image

    return Measurer(sc.table, sc.camera).measure(read_image(path))


def test_16_bit_rgba_and_grey_files_read_and_measure_like_the_8_bit_one(tmp_path):
    sc = scene(21, max_tilt_deg=15)
    img8 = render(sc).image
    cv2.imwrite(str(tmp_path / "eight.png"), img8)
    # a 12-bit sensor's values in a 16-bit PNG (0-4095), as some cameras save them
    twelve = np.round(img8.astype(np.float64) * 4095 / 255).astype(np.uint16)
    cv2.imwrite(str(tmp_path / "twelve.png"), twelve)
    full16 = img8.astype(np.uint16) * 257                       # a true 16-bit range
    cv2.imwrite(str(tmp_path / "sixteen.png"), full16)
    cv2.imwrite(str(tmp_path / "rgba.png"), cv2.cvtColor(img8, cv2.COLOR_BGR2BGRA))
    cv2.imwrite(str(tmp_path / "grey.png"), cv2.cvtColor(img8, cv2.COLOR_BGR2GRAY))
    from vision.measure import read_image

    for name in ("twelve", "sixteen", "rgba"):
        read = read_image(tmp_path / f"{name}.png")
        assert read.dtype == np.uint8 and read.shape == img8.shape
        assert np.abs(read.astype(int) - img8).max() <= 1, name
    ref = _measure_file(tmp_path / "eight.png", sc)
    assert len(ref.anchors) == 6
    for name in ("twelve", "sixteen", "rgba", "grey"):
        m = _measure_file(tmp_path / f"{name}.png", sc)
        assert m.anchors == ref.anchors and [p.id for p in m.pieces] == [p.id for p in ref.pieces]
        for d, r in zip(m.distances, ref.distances):
            assert abs(d.edge_in - r.edge_in) < 0.005, name


def test_a_black_or_strange_image_file_says_why(tmp_path):
    from vision.measure import read_image

    cv2.imwrite(str(tmp_path / "black16.png"), np.zeros((40, 60), np.uint16))
    with pytest.raises(VisionError, match=r"black16\.png: every pixel is 0 \(uint16 data\)"):
        read_image(tmp_path / "black16.png")


def test_markers_too_small_to_read_are_named_with_their_size():
    sc = scene(21, max_tilt_deg=10, noise=False, blur=False)
    small = cv2.resize(render(sc).image, None, fx=0.25, fy=0.25, interpolation=cv2.INTER_AREA)
    with pytest.raises(VisionError) as err:
        Measurer(sc.table, None).measure(small)
    msg = str(err.value)
    assert "not found: 0 of 6 seen" in msg
    assert re.search(r"markers 1\d(-1\d)? px across, 16 px is the smallest read", msg), msg
