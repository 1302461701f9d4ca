"""The segmentation's cuts work in each die's own window, not the whole part's box: the
same values as the whole box gives (vision/dice/segment.py: MEASURE_MARGIN, PIECE_MARGIN)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import vision.dice.segment as segment
from vision.dice.render import SceneDie, TrayStyle, empty_tray, render_tray
from vision.dice.segment import Background, balanced, exposure_gain, find_blobs

STYLE = TrayStyle(tray_bgr=(120, 104, 66), light_dir=(0.12, -0.08), vignette=0.2,
                  gradient=(0.06, -0.04), perspective=3.0, blur_sigma=0.6, noise_sigma=2.0,
                  jpeg_quality=88, seed=3, tray_seed=7)
# a crowd pressed together, as dice land in a small tray: one part of the frame holds them all
CROWD = [SceneDie("d6pips", "5", "white", 250, 200, 0.3), SceneDie("d6pips", "2", "red", 306, 204, 0.1),
         SceneDie("kotd", "CLAW", "black", 262, 257, 0.6), SceneDie("d12", "7", "yellow", 320, 262, 0.2),
         SceneDie("d6pips", "6", "white", 376, 232, 1.0), SceneDie("kotd", "HEART", "white", 200, 246, 0.9)]


@pytest.fixture(scope="module")
def crowd():
    """The calls find_blobs makes to cut and measure the crowd: (split calls, measure calls)."""
    bg = Background(empty_tray(STYLE, seed=100).astype(np.float32))
    frame, _ = render_tray(CROWD, dataclasses.replace(STYLE, seed=8))
    splits, measures = [], []
    split, measure = segment._split, segment._measure
    mp = pytest.MonkeyPatch()
    mp.setattr(segment, "_split", lambda *a: splits.append(a) or split(*a))
    mp.setattr(segment, "_measure", lambda *a: measures.append(a) or measure(*a))
    try:
        blobs = find_blobs(frame, bg, exposure_gain(frame, bg), die_area=60.0 ** 2)
    finally:
        mp.undo()
    assert len(blobs) >= 4 and splits and measures
    assert max(a[2].size for a in measures) > 4 * 60 ** 2  # a box many dice large
    return splits, measures


def windowed_and_whole(fn, calls, monkeypatch) -> list[tuple]:
    """Each call's result as the code works it out (in windows), and over the whole box."""
    windowed = [fn(*a) for a in calls]
    monkeypatch.setattr(segment, "MEASURE_MARGIN", 10 ** 6)
    monkeypatch.setattr(segment, "PIECE_MARGIN", 10 ** 6)
    return list(zip(windowed, (fn(*a) for a in calls)))


def test_a_die_measured_in_its_window_is_measured_as_in_the_whole_box(crowd, monkeypatch):
    for got, want in windowed_and_whole(segment._measure, crowd[1], monkeypatch):
        assert (got is None) == (want is None)
        if want is None:
            continue
        for f in dataclasses.fields(want):
            g, w = getattr(got, f.name), getattr(want, f.name)
            if isinstance(w, np.ndarray):
                assert np.array_equal(g, w), f.name
            else:
                assert g == w, f.name


def test_a_part_cut_in_its_pieces_windows_is_cut_as_in_the_whole_box(crowd, monkeypatch):
    for got, want in windowed_and_whole(segment._split, crowd[0], monkeypatch):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            # a rim pixel equally near two dice may go to either: the distances of a window
            # and of the whole box can differ in their last bit
            assert np.count_nonzero(g != w) <= 2


def test_the_tray_wall_is_where_the_empty_tray_stops_being_its_floor():
    # the felt's own light falls off towards the corners (vignetting): still floor; a dark
    # wall along the right-hand side and a light rim beyond it are not
    tray = empty_tray(STYLE, seed=100)
    walled = tray.copy()
    walled[:, 560:600] = (walled[:, 560:600] * 0.3).astype(np.uint8)
    walled[:, 600:] = (200, 190, 180)
    bg, open_tray = Background(walled.astype(np.float32)), Background(tray.astype(np.float32))
    at = lambda b, x, y: b.wall_distance(50.0, np.array([y]), np.array([x]))  # noqa: E731
    assert at(open_tray, 10, 10) == at(open_tray, 620, 470) == float("inf")
    assert at(bg, 570, 240) == 0 and at(bg, 620, 10) == 0
    # the wall begins where it was drawn (give or take the map's 4 pixels and its blur)
    assert at(bg, 20, 240) == pytest.approx(540, abs=10)
    assert at(bg, 500, 240) == pytest.approx(60, abs=10)


def test_a_frame_under_another_light_is_brought_to_the_empty_trays():
    tray = empty_tray(STYLE, seed=100)
    bg = Background(empty_tray(STYLE, seed=101).astype(np.float32))
    frame, _ = render_tray(CROWD, dataclasses.replace(STYLE, seed=8))
    same, light = balanced(frame, bg)
    assert same is frame and light == pytest.approx(1.0, abs=0.03)  # its own light: as it is
    def ratio(a):  # each channel's median ratio to the empty tray's
        return np.median(a[::8, ::8].reshape(-1, 3) / np.maximum(tray[::8, ::8].reshape(-1, 3), 1),
                         axis=0)

    # a warmer lamp, a tenth dimmer: its colour taken out (every channel a tenth dimmer,
    # within 2 %: the reader follows that much change of light as it is)
    cast = np.clip(frame * np.array([0.78, 0.9, 1.0], np.float32), 0, 255).astype(np.uint8)
    back, light = balanced(cast, bg)
    assert light == pytest.approx(0.89, abs=0.03)
    assert np.allclose(ratio(back), 0.89, atol=0.02)
    # a lamp a quarter dimmer and warmer: every channel back to the tray's, within 2 %
    dimmer_cast = np.clip(frame * np.array([0.6, 0.75, 0.85], np.float32), 0, 255).astype(np.uint8)
    assert np.allclose(ratio(balanced(dimmer_cast, bg)[0]), 1.0, atol=0.02)
    # a tenth dimmer alone: left to the reader, which follows such a change as it is
    dimmer = (frame * 0.9).astype(np.uint8)
    assert balanced(dimmer, bg)[0] is dimmer
    # a tray too dark to tell its light from the camera's noise: as it is
    dark = Background((tray * 0.1).astype(np.float32))
    assert balanced(cast, dark)[0] is cast


def _tray_and_frame(draw) -> tuple[Background, np.ndarray]:
    """An even grey tray (its empty picture, noisy), and a frame of it with ``draw``(frame)
    drawn on it, noisy alike."""
    import cv2

    rng = np.random.default_rng(5)
    tray = np.full((240, 320, 3), (70, 72, 76), np.float32)
    frame = tray.copy()
    draw(frame, cv2)
    noisy = [np.clip(x + rng.normal(0, 1.5, x.shape), 0, 255).astype(np.uint8)
             for x in (tray, frame)]
    return Background(noisy[0].astype(np.float32)), noisy[1]


def test_a_die_of_the_trays_own_shade_is_found_by_the_edges_the_tray_lacks(monkeypatch):
    # a black die on a dark grey tray lit from the side (the first renderer's a8621, a8975):
    # its top face is the tray's light and colour; the colours found only its shadow and
    # its light symbol, and each was taken for a die (the symbol's colour white, the
    # shadow's outline the die's). Its rim is there: a dark seam round its top, lit on
    # the side towards the lamp
    cx, cy, s = 150, 120, 44

    def draw(frame, cv2):
        frame[cy - s // 2 + 9:cy + s // 2 + 9, cx - s // 2 + 9:cx + s // 2 + 9] *= 0.55
        frame[cy - s // 2:cy + s // 2, cx - s // 2:cx + s // 2] = (68, 70, 74)
        cv2.rectangle(frame, (cx - s // 2, cy - s // 2), (cx + s // 2 - 1, cy + s // 2 - 1),
                      (32, 32, 34), 2)
        cv2.line(frame, (cx - s // 2 + 2, cy - s // 2 + 2), (cx + s // 2 - 3, cy - s // 2 + 2),
                 (118, 120, 124), 1)
        cv2.circle(frame, (cx, cy), 8, (235, 235, 235), -1)

    bg, frame = _tray_and_frame(draw)

    def the_die():
        blobs = find_blobs(frame, bg, 1.0, min_area=0.3 * s * s, die_area=s * s)
        return [b for b in blobs if abs(b.cx - cx) < 5 and abs(b.cy - cy) < 5
                and 0.8 * s * s <= b.area <= 1.3 * s * s]

    assert len(the_die()) == 1
    # without the edges, the colours alone: no blob is that die
    monkeypatch.setattr(segment, "_camouflaged", lambda *a: None)
    assert the_die() == []


def test_a_strip_of_the_trays_shade_beside_a_die_is_not_a_die(monkeypatch):
    # this project's renders show a strip of a die's side face beyond its top, of the tray's
    # shade, enclosed by edges: no die is that narrow (CAMO_BROAD), and the die keeps its
    # outline
    cx, cy, s = 150, 120, 44

    def draw(frame, cv2):
        frame[cy - s // 2:cy + s // 2, cx - s // 2:cx + s // 2] = (225, 225, 228)
        # the strip: 8 pixels of the tray's shade, a dark line beyond it and at its ends
        cv2.rectangle(frame, (cx - s // 2, cy - s // 2 - 9), (cx + s // 2 - 1, cy - s // 2 - 1),
                      (30, 30, 32), 1)

    bg, frame = _tray_and_frame(draw)
    blobs = find_blobs(frame, bg, 1.0, min_area=0.3 * s * s, die_area=s * s)
    (die,) = [b for b in blobs if abs(b.cx - cx) < 4 and abs(b.cy - cy) < 4]
    assert die.area <= 1.1 * s * s
    # (what keeps it out: a strip that narrow would be taken with no bar on breadth)
    monkeypatch.setattr(segment, "CAMO_BROAD", 0.0)
    blobs = find_blobs(frame, bg, 1.0, min_area=0.3 * s * s, die_area=s * s)
    assert not [b for b in blobs if abs(b.cx - cx) < 4 and abs(b.cy - cy) < 4
                and b.area <= 1.1 * s * s]
