"""How the benchmarks of renders by other hands pair true dice with readings
(bench/independent_dice_bench.py's ``score``, which bench/webcam_dice_bench.py uses too)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent / "bench"


def _bench():
    sys.path.insert(0, str(BENCH))
    try:
        spec = importlib.util.spec_from_file_location("independent_dice_bench",
                                                      BENCH / "independent_dice_bench.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(BENCH))


def _die(x, face, kind="d6pips", tilted=False):
    return {"x": x, "y": 100.0, "face": face, "kind": kind, "tilted": tilted, "colour": "red"}


def _reading(x, face, status="clean", kind="d6pips"):
    return {"x": x, "y": 100.0, "face": face, "kind": kind, "status": status, "colour": "red"}


def test_a_missed_die_does_not_take_its_neighbours_reading():
    # two touching dice, a 3 at x=100 and a 5 at x=130; the reader found the 5 alone. Taken in
    # the truth's order, the 3 took the 5's reading (30 px away): a wrong face and a miss
    bench = _bench()
    truth = {"a.jpg": [_die(100, "3"), _die(130, "5")]}
    results = {"a.jpg": {"ok": True, "dice": [_reading(128, "5")]}}
    figures = bench.score(truth, results, pips_only=True)
    assert figures["wrong_clean"] == 0
    assert figures["flat_clean_right"] == 0.5 and figures["missed"] == 1


def test_a_face_read_wrong_on_its_own_die_is_still_wrong_and_far_readings_pair_nothing():
    bench = _bench()
    truth = {"a.jpg": [_die(100, "3"), _die(300, "5")]}
    results = {"a.jpg": {"ok": True, "dice": [_reading(104, "2"), _reading(345, "5")]}}
    figures = bench.score(truth, results, pips_only=True)
    assert figures["wrong_clean"] == 0.5          # the 3 read as 2: one of two dice
    assert figures["missed"] == 1                 # 45 px from the 5: not its reading
    assert figures["flat_clean_right"] == 0


def test_nearest_pairs_takes_the_nearest_pair_first_and_each_reading_once():
    bench = _bench()
    dice = [_die(100, "1"), _die(120, "2"), _die(500, "3")]
    readings = [_reading(118, "2"), _reading(103, "1"), _reading(111, "4")]
    assert bench.nearest_pairs(dice, readings) == {0: 1, 1: 0}
    assert bench.nearest_pairs(dice, readings, reach=2.5) == {1: 0}


def test_a_face_read_clean_on_a_die_of_another_kind_is_counted_apart():
    bench = _bench()
    truth = {"a.jpg": [_die(100, "HEART", kind="kotd"), _die(200, "4")]}
    results = {"a.jpg": {"ok": True, "dice": [_reading(102, "1"), _reading(205, "4")]}}
    figures = bench.score(truth, results, pips_only=True)
    assert figures["clean_on_other_kinds"] == 1
    assert figures["dice"] == 1 and figures["flat_clean_right"] == 1 and figures["wrong_clean"] == 0


def _seen_close(x, top_y, box, face):
    # a die close to a low camera: its top face's centre near the top of its outline
    return {"x": x, "y": top_y, "face": face, "kind": "d6pips", "tilted": False,
            "colour": "red", "box": box}


def test_a_die_read_where_its_outline_is_is_paired_and_its_face_counted():
    # the top face's centre 60 px above the outline's centre, where the reader puts the die:
    # paired with the top face alone (within 40 px) the die was missed and its face, wrong
    # here (its front face read), counted nowhere
    bench = _bench()
    truth = {"a.jpg": [_seen_close(100, 50, [40, 30, 160, 170], "2")]}
    wrong = {"a.jpg": {"ok": True, "dice": [{**_reading(100, "4"), "y": 110.0}]}}
    figures = bench.score(truth, wrong, pips_only=True)
    assert figures["missed"] == 0 and figures["wrong_clean"] == 1
    right = {"a.jpg": {"ok": True, "dice": [{**_reading(100, "2"), "y": 110.0}]}}
    assert bench.score(truth, right, pips_only=True)["flat_clean_right"] == 1


def test_a_reading_beyond_half_the_outline_is_not_the_dies():
    bench = _bench()
    dice = [_seen_close(100, 50, [40, 30, 160, 170], "2")]
    readings = [{**_reading(100, "2"), "y": 171.0}, {**_reading(171, "2"), "y": 100.0}]
    assert bench.nearest_pairs(dice, readings) == {}
    # and a small die keeps MATCH_PX around its top face
    small = [_seen_close(100, 100, [90, 90, 110, 110], "5")]
    assert bench.nearest_pairs(small, [_reading(139, "5")]) == {0: 0}
    assert bench.nearest_pairs(small, [_reading(141, "5")]) == {}


def test_touching_dice_seen_close_each_take_the_reading_on_their_own_outline():
    # two large dice side by side, their outlines overlapping by 20 px: each reading, at an
    # outline's centre, is within half of either outline, and goes to its own die
    bench = _bench()
    dice = [_seen_close(100, 60, [40, 40, 160, 160], "3"),
            _seen_close(200, 60, [140, 40, 260, 160], "6")]
    readings = [{**_reading(202, "6"), "y": 100.0}, {**_reading(99, "3"), "y": 100.0}]
    assert bench.nearest_pairs(dice, readings) == {0: 1, 1: 0}


def test_faces_read_clean_where_no_die_is_are_counted_apart():
    bench = _bench()
    truth = {"a.jpg": [_die(100, "3")], "b.jpg": [_die(100, "4")]}
    results = {"a.jpg": {"ok": True, "dice": [_reading(101, "3"), _reading(300, "5"),
                                              _reading(400, "2", status="unreadable")]},
               "b.jpg": {"ok": True, "dice": [_reading(99, "4"), _reading(120, "4")]}}
    figures = bench.score(truth, results, pips_only=True)
    assert figures["flat_clean_right"] == 1 and figures["wrong_clean"] == 0
    # a 5 where no die is, and the 4 read a second time 20 px from its first reading
    assert figures["clean_where_no_die"] == 2
