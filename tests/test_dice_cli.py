"""`python -m vision dice background|teach|read`: the issue's contract, as users' scripts use it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.dice.render import SceneDie, TrayStyle, empty_tray, render_tray, single_die

ROOT = Path(__file__).resolve().parent.parent
STYLE = TrayStyle(tray_bgr=(128, 118, 104), perspective=2.5, seed=4, tray_seed=21)


def dice(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "vision", "dice", *args], capture_output=True,
                          text=True, cwd=cwd, env=env, timeout=120)


@pytest.fixture(scope="module")
def images(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("dice-cli")
    for k in range(2):
        cv2.imwrite(str(d / f"empty{k}.png"), empty_tray(STYLE, seed=k))
    for face in ("CLAW", "HEART", "ENERGY", "FAME", "DESTRUCTION", "POWER"):
        for j in range(3):
            cv2.imwrite(str(d / f"{face}{j}.png"),
                        single_die("kotd", face, "black", 40 + 3 * len(face) + j, STYLE)[0])
    frame, truth = render_tray([SceneDie("d6pips", "4", "white", 180, 160, 0.3),
                                SceneDie("kotd", "ENERGY", "black", 430, 300, 1.9)],
                               STYLE.__class__(**{**STYLE.__dict__, "seed": 77}))
    cv2.imwrite(str(d / "tray.jpg"), frame)
    cv2.imwrite(str(d / "black.png"), np.zeros_like(frame))
    cv2.imwrite(str(d / "small.png"), frame[:200, :300])
    (d / "junk.png").write_bytes(b"not a picture")
    return d


def test_background_teach_read(images):
    r = dice("background", "--profile", "p.yaml", "empty0.png", "empty1.png", cwd=images)
    assert r.returncode == 0, r.stderr
    assert "empty tray from 2 frame(s), 640x480" in r.stdout
    for face in ("CLAW", "HEART", "ENERGY", "FAME", "DESTRUCTION"):
        r = dice("teach", "--profile", "p.yaml", "--kind", "kotd", "--face", face,
                 "--colour", "black", f"{face}0.png", f"{face}1.png", f"{face}2.png",
                 "--json", cwd=images)
        assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["ok"] and out["examples"] == 3 and out["missing"] == {"POWER": 3}
    assert out["pictures_alike"] >= 0.85  # this project's renders: each face's pictures alike
    r = dice("teach", "--profile", "p.yaml", "--kind", "kotd", "--face", "POWER",
             "POWER0.png", "POWER1.png", "POWER2.png", cwd=images)
    assert r.returncode == 0 and "every face known" in r.stdout
    assert "unlike" not in r.stdout
    r = dice("read", "--profile", "p.yaml", "tray.jpg", "--json", cwd=images)
    assert r.returncode == 0, r.stderr
    (line,) = r.stdout.splitlines()
    got = json.loads(line)
    assert got["ok"] is True
    assert sorted((d["kind"], d["face"], d["status"]) for d in got["dice"]) == [
        ("d6pips", "4", "clean"), ("kotd", "ENERGY", "clean")]
    for d in got["dice"]:
        # the keys it always had, and the ranked faces (likeliest first: the face read)
        assert set(d) == {"kind", "face", "colour", "status", "confidence", "x", "y", "likely"}
        assert d["likely"][0] == d["face"] and len(d["likely"]) <= 3
        assert 0.5 <= d["confidence"] <= 1
    energy = next(d for d in got["dice"] if d["kind"] == "kotd")
    assert energy["colour"] == "black" and abs(energy["x"] - 430) < 4 and abs(energy["y"] - 300) < 4


def test_teaching_pictures_unlike_each_other_are_pointed_out(images):
    # faces taught with each other's pictures (a player's slip, or a camera that shows the
    # die differently each time): told, with what helps, and read clean only when very sure
    dice("background", "--profile", "u.yaml", "empty0.png", cwd=images)
    faces = ("CLAW", "HEART", "ENERGY", "FAME", "DESTRUCTION", "POWER")
    for i, face in enumerate(faces):
        r = dice("teach", "--profile", "u.yaml", "--kind", "kotd", "--face", face, "--json",
                 *(f"{faces[(i + k) % 6]}{k}.png" for k in range(3)), cwd=images)
        assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["pictures_alike"] < 0.85
    r = dice("teach", "--profile", "u.yaml", "--kind", "kotd", "--face", "POWER", "POWER0.png",
             cwd=images)
    assert r.returncode == 0
    assert "kotd's pictures of one face look unlike each other" in r.stdout
    assert "check that each picture shows the face it was taught as" in r.stdout


def test_bad_images_one_error_line_each(images):
    dice("background", "--profile", "q.yaml", "empty0.png", cwd=images)
    r = dice("read", "--profile", "q.yaml", "black.png", "small.png", "junk.png", "gone.png",
             "tray.jpg", "--json", cwd=images)
    assert r.returncode == 2
    lines = [json.loads(x) for x in r.stdout.splitlines()]
    assert [x["ok"] for x in lines] == [False, False, False, False, True]
    assert lines[0]["error"].startswith("black.png: the frame is black")
    assert lines[1]["error"] == ("small.png: the image is 300x200 but the profile's empty tray "
                                 "is 640x480 (same camera and resolution needed)")
    assert lines[2]["error"].startswith("junk.png: not an image OpenCV can read")
    assert lines[3]["error"] == "gone.png: no such file"


def test_a_damaged_image_is_said_in_the_commands_words_alone(images):
    # a PNG cut short: libpng's complaint came out through OpenCV's log on stderr
    # ("[ WARN:0@0.2] global grfmt_png.cpp:793 readFromStreamOrBuffer ..."): the command's
    # own line says what is wrong, and nothing else is printed
    (images / "cut.png").write_bytes((images / "empty0.png").read_bytes()[:3000])
    for args in (("read", "cut.png", "--json"), ("read", "cut.png"),
                 ("background", "--profile", "cut.yaml", "cut.png", "--json")):
        r = dice(*args, cwd=images)
        assert r.returncode == 2
        assert "WARN" not in r.stderr and "grfmt" not in r.stderr
        assert "cut.png: not an image OpenCV can read" in r.stdout + r.stderr


def test_unknown_kind_and_damaged_profile(images):
    dice("background", "--profile", "u.yaml", "empty0.png", cwd=images)
    r = dice("teach", "--profile", "u.yaml", "--kind", "d7", "--face", "1", "CLAW0.png",
             "--json", cwd=images)
    assert r.returncode == 2
    assert json.loads(r.stdout) == {"ok": False, "error": (
        "unknown kind 'd7': known kinds are d12, d6pips, kotd, spawn; a new kind needs its "
        "faces (--faces A,B,C)")}
    (images / "u.yaml").write_text((images / "u.yaml").read_text().replace(
        "dice_profile: 1", "dice_profile: 1\nkinds: [oops"))
    r = dice("read", "--profile", "u.yaml", "tray.jpg", "--json", cwd=images)
    assert r.returncode == 2
    err = json.loads(r.stdout)["error"]
    assert err.startswith("u.yaml:") and "not valid YAML" in err
    r = dice("read", "--profile", "none.yaml", "tray.jpg", cwd=images)
    assert r.returncode == 2 and "none.yaml: no such profile" in r.stderr


def test_teach_leaves_out_a_picture_it_cannot_use_and_keeps_the_others(images):
    # one picture of three that shows two dice used to throw the other two away with it
    dice("background", "--profile", "t.yaml", "empty0.png", "empty1.png", cwd=images)
    r = dice("teach", "--profile", "t.yaml", "--kind", "kotd", "--face", "CLAW",
             "CLAW0.png", "tray.jpg", "CLAW2.png", "--json", cwd=images)
    assert r.returncode == 2
    out = json.loads(r.stdout)
    assert out["ok"] is False and out["examples"] == 2
    assert out["error"].startswith("tray.jpg: 2 dice found; a teaching image shows exactly one")
    # what a player with one black die on a dark tray, refused so, can do about it
    assert "found in pieces" in out["error"] and "more light or a lighter tray" in out["error"]
    assert out["missing"]["CLAW"] == 1
    # they were saved: one more picture completes the face
    r = dice("teach", "--profile", "t.yaml", "--kind", "kotd", "--face", "CLAW", "CLAW1.png",
             "--json", cwd=images)
    assert r.returncode == 0 and json.loads(r.stdout)["examples"] == 3
    # without --json, the refused picture is named on stderr, what was taught on stdout
    r = dice("teach", "--profile", "t.yaml", "--kind", "kotd", "--face", "HEART",
             "junk.png", "HEART0.png", cwd=images)
    assert r.returncode == 2 and "HEART: 1 example(s)" in r.stdout
    assert "error: junk.png: not an image OpenCV can read" in r.stderr
    assert "this picture was not taught" in r.stderr
    # nothing usable: nothing saved, one error naming every picture
    before = (images / "t.yaml").read_text()
    r = dice("teach", "--profile", "t.yaml", "--kind", "kotd", "--face", "FAME",
             "junk.png", "tray.jpg", "--json", cwd=images)
    assert r.returncode == 2
    err = json.loads(r.stdout)
    assert err["ok"] is False and err["error"].startswith("junk.png: ")
    assert "; tray.jpg: 2 dice found" in err["error"]
    assert (images / "t.yaml").read_text() == before


def test_a_picture_whose_die_is_found_oddly_sized_is_pointed_out(images):
    # a die found with a dark patch beside it (its shadow, a dark wall) is found a third
    # larger than its kind's other pictures show it: kept, and the player told what helps
    frame = cv2.imread(str(images / "HEART0.png"))
    grey = cv2.cvtColor(cv2.absdiff(frame, empty_tray(STYLE, seed=0)), cv2.COLOR_BGR2GRAY)
    ys, xs = np.nonzero(grey > 40)
    x1, y0, side = int(xs.max()), int(ys.min()), int(ys.max() - ys.min())
    frame[y0:y0 + side, x1 - side // 4:x1 - side // 4 + side] = (20, 20, 20)
    cv2.imwrite(str(images / "HEART-shadow.png"), frame)
    dice("background", "--profile", "odd.yaml", "empty0.png", cwd=images)
    r = dice("teach", "--profile", "odd.yaml", "--kind", "kotd", "--face", "HEART", "--json",
             "HEART0.png", "HEART1.png", "HEART2.png", cwd=images)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["odd_pictures"] == []
    r = dice("teach", "--profile", "odd.yaml", "--kind", "kotd", "--face", "HEART", "--json",
             "HEART-shadow.png", "HEART1.png", cwd=images)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["odd_pictures"] == ["HEART-shadow.png"] and out["examples"] == 5
    r = dice("teach", "--profile", "odd.yaml", "--kind", "kotd", "--face", "HEART",
             "HEART-shadow.png", cwd=images)
    assert r.returncode == 0
    assert "note: HEART-shadow.png: the die was found" in r.stdout
    assert "found with its shadow or in pieces, perhaps" in r.stdout


def test_odd_pictures_are_judged_among_those_taught_with_them():
    from vision.dice.cli import odd_pictures

    # three pictures of one face: the one found half as large is odd, whatever the kind's
    # other pictures (another colour of it may be another size)
    taught = [("a.png", 50.0), ("b.png", 52.0), ("c.png", 26.0)]
    assert odd_pictures(taught, [100.0] * 9 + [50.0, 52.0, 26.0]) == [("c.png", 26.0, 50.0)]
    # fewer than three: judged among all the kind's pictures, once there are three
    assert odd_pictures([("d.png", 70.0)], [50.0, 51.0, 70.0]) == [("d.png", 70.0, 51.0)]
    assert odd_pictures([("d.png", 70.0)], [50.0, 70.0]) == []
    assert odd_pictures([("e.png", 60.0)], [50.0, 51.0, 60.0]) == []  # within a quarter


def test_a_folder_stands_for_the_images_in_it(images, tmp_path):
    # `dice background|teach|read FOLDER`: the folder's images, sorted by name, as if each had
    # been named; what is not an image (a note, a hidden file, a folder in it) is passed over
    import shutil

    empties, claws, trays = (tmp_path / n for n in ("empty", "claw", "trays"))
    for folder, names in ((empties, ["empty1.png", "empty0.png"]),
                          (claws, ["CLAW2.png", "CLAW0.png", "CLAW1.png"]),
                          (trays, ["tray.jpg", "small.png", "black.png"])):
        folder.mkdir()
        for name in names:
            shutil.copy(images / name, folder / name)
    (trays / "notes.txt").write_text("the second throw")
    (trays / ".tray.jpg").write_bytes((images / "tray.jpg").read_bytes())
    (trays / "more").mkdir()
    shutil.copy(images / "tray.jpg", trays / "more" / "tray.jpg")
    (tmp_path / "nothing").mkdir()

    r = dice("background", "--profile", "f.yaml", "--json", str(empties), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["background_frames"] == 2
    r = dice("teach", "--profile", "f.yaml", "--kind", "kotd", "--face", "CLAW", "--colour",
             "black", "--json", str(claws), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["examples"] == 3

    r = dice("read", "--profile", "f.yaml", "--json", str(trays), "nothing", cwd=tmp_path)
    assert r.returncode == 2
    lines = [json.loads(x) for x in r.stdout.splitlines()]
    # black.png, small.png, tray.jpg: by name; then the empty folder, named
    assert [x["ok"] for x in lines] == [False, False, True, False]
    assert lines[0]["error"].startswith(f"{trays / 'black.png'}: the frame is black")
    assert lines[1]["error"].startswith(f"{trays / 'small.png'}: the image is 300x200")
    assert lines[3]["error"].startswith("nothing: a folder with no images in it (looked for png")
    one = dice("read", "--profile", "f.yaml", "--json", str(trays / "tray.jpg"), cwd=tmp_path)
    assert json.loads(one.stdout) == lines[2]
    r = dice("read", "--profile", "f.yaml", str(trays), cwd=tmp_path)
    assert f"{trays / 'tray.jpg'}: " in r.stdout and "notes.txt" not in r.stdout + r.stderr
