"""The real-photograph measure of the dice reader (vision/dice/realphotos.py): the held-out
split is fixed by the file names, and each labelled die is scored against the readings."""

from __future__ import annotations

import json

import pytest

from tests.real_photos import missing
from vision.dice.model import DieReading
from vision.dice.realphotos import (
    DEFAULT_SET,
    LabelledDie,
    LabelledPhoto,
    PhotoSetError,
    Score,
    byler_sessions,
    held_out,
    load,
    load_other_camera,
    load_yolo,
    score_photo,
    source_of,
)


def reading(face, x, y, status="clean"):
    return DieReading("d6pips", face, None, status, 0.9 if status == "clean" else 0.2, x, y)


def test_the_held_out_part_is_a_fifth_fixed_by_the_file_name_alone():
    names = [f"IMG_{i:04d}.jpg" for i in range(2000)]
    out = [n for n in names if held_out(n)]
    assert 0.17 < len(out) / len(names) < 0.23
    assert all(held_out(f"images/{n}") == held_out(n) for n in names[:50])  # the folder is no part
    assert [n for n in names if held_out(n)] == out                        # the same every time


def test_each_die_is_scored_once_against_the_nearest_reading():
    photo = LabelledPhoto(DEFAULT_SET / "x.jpg", (
        LabelledDie("3", 100, 100, 40), LabelledDie("5", 200, 100, 40),
        LabelledDie("1", 300, 100, 40), LabelledDie("6", 400, 100, 40)))
    score = Score()
    score_photo(photo, [reading("3", 104, 98),                 # right
                        reading("2", 199, 103),                # wrong face, read clean
                        reading(None, 300, 100, "cocked"),     # flagged
                        reading("6", 460, 100),                # too far from the 6: missed
                        reading("4", 600, 300)], score)        # near no die: extra
    assert (score.dice, score.clean_right, score.clean_wrong, score.flagged, score.missed,
            score.extra_clean) == (4, 1, 1, 1, 1, 2)
    assert score.wrong == ["x.jpg: a 5 at (200, 100) read clean as 2"]
    f = score.figures()
    assert (f["clean_right_rate"], f["wrong_clean_rate"], f["missed_rate"]) == (0.25, 0.25, 0.25)


def test_a_bad_label_file_names_the_photo_and_the_die(tmp_path):
    (tmp_path / "labels.json").write_text(json.dumps({"images/a.jpg": {"dice": [{"face": "2"}]}}))
    with pytest.raises(PhotoSetError, match=r"labels.json: images/a.jpg: dice\[0\]: needs face"):
        load(tmp_path, "all")
    with pytest.raises(PhotoSetError, match="labels.json: not found"):
        load(tmp_path / "nowhere", "all")


def test_the_real_set_splits_into_a_tuning_part_and_a_held_out_part():
    if not (DEFAULT_SET / "labels.json").exists():
        missing(f"the labelled dice photographs are not in {DEFAULT_SET} "
                "(../shared/dice-photos/README.md)")
    tune, held, every = load(DEFAULT_SET, "tune"), load(DEFAULT_SET, "held_out"), load(DEFAULT_SET, "all")
    assert len(tune) + len(held) == len(every) == 200
    assert {p.path for p in tune}.isdisjoint({p.path for p in held})
    # 1,487 labelled dice, and one die the labels lack (TUNING_LABEL_FIXES)
    assert 30 <= len(held) <= 50 and sum(len(p.dice) for p in every) == 1488


def test_label_fixes_touch_the_tuning_part_only():
    """The held-out part is measured as labelled: a correction there, made after seeing what
    a reader says, would tune the measure to the reader."""
    from vision.dice.realphotos import TUNING_LABEL_FIXES

    assert TUNING_LABEL_FIXES and not any(held_out(name) for name in TUNING_LABEL_FIXES)


def _yolo_set(tmp_path, labels: dict[str, str]):
    import cv2
    import numpy as np

    for split in ("train", "test"):
        (tmp_path / split / "images").mkdir(parents=True)
        (tmp_path / split / "labels").mkdir(parents=True)
    for rel, text in labels.items():
        split, name = rel.split("/")
        cv2.imwrite(str(tmp_path / split / "images" / name), np.zeros((100, 200, 3), np.uint8))
        (tmp_path / split / "labels" / (name.rsplit(".", 1)[0] + ".txt")).write_text(text)
    return tmp_path


def test_a_yolo_set_is_split_by_source_photograph_and_its_classes_are_faces(tmp_path):
    """A Roboflow export holds several copies of one photograph (SOURCE_jpg.rf.HASH.jpg),
    in any of its splits: every copy falls on the same side, so no held-out photograph is
    tuned on through a copy."""
    sources = [f"IMG_{i:03d}" for i in range(40)]
    labels = {}
    for k, src in enumerate(sources):
        for copy in range(2):
            split = ("train", "test")[(k + copy) % 2]
            labels[f"{split}/{src}_jpg.rf.{copy:032x}.jpg"] = "0 0.5 0.5 0.1 0.2\n5 0.25 0.75 0.2 0.1\n"
    folder = _yolo_set(tmp_path, labels)
    held, tune = load_yolo(folder, "held_out"), load_yolo(folder, "tune")
    assert len(held) + len(tune) == 80 and held and tune
    assert {source_of(p.path.name) for p in held}.isdisjoint(source_of(p.path.name) for p in tune)
    assert all(held_out(source_of(p.path.name)) for p in held)
    gone = source_of(held[0].path.name)
    assert gone not in {source_of(p.path.name) for p in load_yolo(folder, "all", exclude={gone})}
    die1, die6 = held[0].dice
    assert (die1.face, die1.x, die1.y, die1.size) == ("1", 100.0, 50.0, 20.0)
    assert (die6.face, die6.x, die6.y, die6.size) == ("6", 50.0, 75.0, 40.0)


def test_the_other_photographs_of_bylers_sessions_are_left_out_of_a_yolo_set(tmp_path):
    """Rune55 holds photographs of byler-train's sessions that byler-train has not (the
    original set's other splits): moments apart from its held-out ones, they are left out by
    their sessions' name prefix, derived from byler-train's names (a phone's
    IMG_YYYYMMDD_HHMMSS); other names give no prefix."""
    byler = tmp_path / "byler"
    byler.mkdir()
    (byler / "labels.json").write_text(json.dumps(
        {"IMG_20191208_111228.jpg": [], "IMG_20191209_100719.jpg": [], "scan_0001.jpg": []}))
    assert byler_sessions(byler) == ("IMG_20191208_", "IMG_20191209_")
    assert byler_sessions(tmp_path / "nowhere") == ()
    names = ["IMG_20191208_112843", "IMG_20191209_090000", "IMG_20191210_112843", "PXL_1"]
    folder = _yolo_set(tmp_path / "yolo", {f"train/{n}_jpg.rf.{0:032x}.jpg": "0 0.5 0.5 0.1 0.2\n"
                                           for n in names})
    kept = load_yolo(folder, "all", exclude_prefixes=byler_sessions(byler))
    assert sorted(source_of(p.path.name) for p in kept) == ["IMG_20191210_112843", "PXL_1"]
    assert [p.path for p in load_other_camera(folder, "all", byler=byler)] == [p.path for p in kept]
    assert len(load_yolo(folder, "all")) == 4


@pytest.mark.parametrize("line", ["6 0.5 0.5 0.1 0.1", "1 0.5 0.5 0.1", "x 0.5 0.5 0.1 0.1"])
def test_a_bad_yolo_label_names_its_file_and_line(tmp_path, line):
    name = next(f"p{i}" for i in range(100) if held_out(f"p{i}"))
    folder = _yolo_set(tmp_path, {f"test/{name}.jpg": "0 0.5 0.5 0.1 0.1\n" + line + "\n"})
    with pytest.raises(PhotoSetError, match=rf"{name}\.txt: line 2: expected CLASS"):
        load_yolo(folder, "held_out")
    with pytest.raises(PhotoSetError, match="no images/ folder"):
        load_yolo(tmp_path / "test" / "labels", "all")
