"""The dice reader's quicker computations give the numbers of the plain ones they replace."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.dice import features as F


@pytest.mark.parametrize("n", [1, 2, 7, 100, 1001])
def test_quantiles_are_numpys_percentiles(n):
    v = np.random.default_rng(n).normal(size=n).astype(np.float32)
    assert F.quantiles(v, (1, 50, 75, 99)) == pytest.approx(
        np.percentile(v, (1, 50, 75, 99)).tolist(), abs=1e-6)


def test_the_batched_polar_spectra_are_those_of_polar_at_every_centre_shift():
    rng = np.random.default_rng(0)
    crops = np.stack([cv2.GaussianBlur((rng.random((64, 64)) * 255).astype(np.float32),
                                       (0, 0), 1.5) for _ in range(3)])
    got = F.spectra(crops)  # D x S x R x F
    for d, crop in enumerate(crops):
        for s, (dx, dy) in enumerate(F.CENTRE_SHIFTS):
            plain = F.polar_fft(F.polar(crop, dx, dy))  # F x R
            assert np.abs(got[d, s] - plain.T).max() < 1e-4


def test_matching_several_dice_at_once_gives_each_die_its_own_scores():
    rng = np.random.default_rng(8)
    faces = [cv2.GaussianBlur((rng.random((64, 64)) * 255).astype(np.float32), (0, 0), 2.0)
             for _ in range(4)]
    bank = F.template_bank(faces)
    queries = np.stack([cv2.warpAffine(f, cv2.getRotationMatrix2D((32, 32), 40.0 * i, 1.0),
                                       (64, 64), borderMode=cv2.BORDER_REPLICATE)
                        for i, f in enumerate(faces[::-1])])
    scores, angles = F.match_many(queries, bank)
    assert scores.shape == angles.shape == (4, 4)
    for i, q in enumerate(queries):
        one, one_angles = F.match(q, bank)
        assert np.abs(scores[i] - one).max() < 1e-5
        assert np.abs(angles[i] - one_angles).max() < 1e-3
        assert int(np.argmax(scores[i])) == 3 - i  # each query found its own face


@pytest.mark.parametrize("turn", [10.0, 11.0, 13.0, 97.3, 250.6])
def test_match_finds_a_turn_between_its_angle_samples(turn):
    base = cv2.GaussianBlur((np.random.default_rng(3).random((64, 64)) * 255)
                            .astype(np.float32), (0, 0), 2.0)
    templates = F.template_bank([base])
    m = cv2.getRotationMatrix2D((32, 32), turn, 1.0)
    query = cv2.warpAffine(base, m, (64, 64), borderMode=cv2.BORDER_REPLICATE)
    scores, angles = F.match(query, templates)
    assert abs((angles[0] - turn + 180) % 360 - 180) < 0.5  # samples are 4 degrees apart
    assert F.verify(query, base, float(angles[0])) > 0.97


def test_sharpness_samples_the_sobel_gradient_on_the_outline():
    from vision.dice.segment import Blob

    rng = np.random.default_rng(5)
    L = cv2.GaussianBlur((rng.random((60, 70)) * 40 + 30).astype(np.float32), (0, 0), 1.0)
    mask = np.zeros((60, 70), np.uint8)
    cv2.rectangle(mask, (15, 12), (50, 45), 255, -1)
    L[mask > 0] += 30
    blob = Blob(0, 0, mask, mask, float(cv2.countNonZero(mask)), 32.5, 28.5, 0.0, 32.5, 28.5,
                ((0, 0), (1, 1), 0), ((0, 0), (1, 1), 0), 0.8, 1.0, L, np.full_like(L, 45.0))
    cs, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    pts = cs[0].reshape(-1, 2)
    g = cv2.magnitude(cv2.Sobel(L, cv2.CV_32F, 1, 0, ksize=3),
                      cv2.Sobel(L, cv2.CV_32F, 0, 1, ksize=3))[pts[:, 1], pts[:, 0]] * 0.125
    inner = cv2.erode(mask, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5)))
    outside = cv2.dilate(mask, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5)),
                         iterations=2) == 0
    contrast = abs(L[inner > 0].mean() - 45.0)
    assert outside.any()
    assert F.sharpness(blob) == pytest.approx(np.percentile(g, 75) / contrast, rel=1e-4)


def _face_blob(pips, strip=False, pale=()):
    """A blob whose top face (60x60, light) has dark pips at ``pips`` (x, y); with ``strip``
    the top taken in a dark band of the side face seen with it, along its left edge. The
    pips at ``pale`` are shaded paler (a lamp or a glossy face shading them unevenly)."""
    L = np.full((80, 80), 40.0, np.float32)
    L[10:70, 10:70] = 90.0
    if strip:
        L[10:70, 10:17] = 30.0
    for x, y in pips:
        cv2.circle(L, (x, y), 4, 10.0, -1)
    for x, y in pale:
        cv2.circle(L, (x, y), 4, 60.0, -1)
    top = np.zeros((80, 80), np.uint8)
    top[10:70, 10:70] = 255
    return _blob_at_100(L, top, 3600.0, 140.0, 140.0)


def _blob_at_100(L, mask, area, cx, cy):
    """A die candidate lying at (100, 100) in the frame whose silhouette and top face are both
    ``mask`` (uint8 0/255, ``area`` pixels, centred at ``cx, cy`` in the frame) over lightness
    ``L``, on a tray of lightness 40."""
    from vision.dice.segment import Blob

    rect = cv2.minAreaRect(cv2.findNonZero(mask) + 100)
    return Blob(100, 100, mask.copy(), mask, area, cx, cy, area, cx, cy, rect, rect, 0.785, 1.0,
                L, np.full_like(L, 40.0))


def _ivory_die(pips, pip_bgr=(205, 215, 230)):
    """A frame (200x200, BGR) and the die in it whose box starts at (100, 100): its top face
    (60x60) a peach ivory, its pips at ``pips`` (x, y in the box) ``pip_bgr``: by default
    whitish, 7 lighter than the face (CIE L 87 and 80) and 20 apart from it in colour."""
    frame = np.full((200, 200, 3), 60, np.uint8)
    box = frame[100:180, 100:180]
    box[10:70, 10:70] = (150, 190, 235)
    for x, y in pips:
        cv2.circle(box, (x, y), 4, pip_bgr, -1)
    L = cv2.cvtColor(box.astype(np.float32) / 255, cv2.COLOR_BGR2Lab)[:, :, 0].copy()
    top = np.zeros((80, 80), np.uint8)
    top[10:70, 10:70] = 255
    return frame, _blob_at_100(L, top, 3600.0, 140.0, 140.0)


def test_pale_pips_on_an_ivory_face_are_counted_by_their_colour():
    five = [(25, 25), (55, 25), (40, 40), (25, 55), (55, 55)]
    frame, blob = _ivory_die(five)
    assert F.read_pips(blob) == (None, 0.0)  # hardly lighter than their face: no count
    face, conf = F.colour_pips(blob, frame)
    assert face == "5" and conf > 0.6
    # marks of the face's own colour are no pips
    frame, blob = _ivory_die(five, pip_bgr=(150, 190, 235))
    assert F.colour_pips(blob, frame) == (None, 0.0)
    # dark pips stand apart by their colour as by their lightness
    frame, blob = _ivory_die(five[:2] + five[3:], pip_bgr=(40, 40, 40))
    assert F.colour_pips(blob, frame)[0] == F.read_pips(blob)[0] == "4"


def test_a_side_face_seen_with_the_top_is_no_pip():
    four = [(25, 25), (55, 25), (25, 55), (55, 55)]
    assert F.read_pips(_face_blob(four))[0] == "4"
    # the dark band along the edge was "not a pip: an edge", and the die was not read
    assert F.read_pips(_face_blob(four, strip=True))[0] == "4"


def test_pips_shaded_unevenly_leave_the_count_unsure():
    # a 4 whose pips on one diagonal are paler: counted at half the darkest pips' contrast
    # it shows two, on the diagonal a 2 has them; a pale pip where a 2 has none says it is not
    # sure (under the profile reader's 0.5, so the taught faces and the classifier are asked)
    dark, pale = [(25, 25), (55, 55)], [(55, 25), (25, 55)]
    assert F.read_pips(_face_blob(dark))[1] > 0.9
    face, conf = F.read_pips(_face_blob(dark, pale=pale))
    assert face == "2" and conf == F.FAINT_PIPS < 0.5
    # the same with a lone dark pip: a 3 whose corner pips are pale is no sure 1
    assert F.read_pips(_face_blob([(40, 40)]))[1] > 0.9
    face, conf = F.read_pips(_face_blob([(40, 40)], pale=[(25, 25), (55, 55)]))
    assert face == "1" and conf == F.FAINT_PIPS
    # pips all as dark are read as before, and so are pips all as pale
    assert F.read_pips(_face_blob(dark + pale))[0] == "4"
    assert F.read_pips(_face_blob([], pale=dark + pale))[0] == "4"


def test_a_pip_cut_by_the_faces_edge_leaves_the_count_unsure():
    # four pips seen whole and one cut by the edge of the top face found: not a "4"
    face, _ = F.read_pips(_face_blob([(25, 25), (55, 25), (25, 55), (55, 55), (12, 40)]))
    assert face is None


def test_pips_the_top_face_was_found_cut_at_are_counted_where_three_or_more_show():
    # the face's light stopped at dark pips near its right edge: the face as found ends there
    # and those pips lie on its outline
    def cut(pips, at=61):
        b = _face_blob(pips)
        b.top[:, at:] = 0
        return b

    four = [(25, 25), (55, 25), (25, 55), (55, 55)]
    assert F.read_pips(_face_blob(four))[0] == "4"
    face, conf = F.read_pips(cut(four))
    assert face == "4" and conf > 0.9  # was None: the count gave up
    three = [(22, 22), (40, 40), (58, 58)]
    assert F.read_pips(cut(three))[0] == "3"
    # fewer than RIM_PIPS_LEAST: a lone pip with a pip-like spot on the edge beside it is no
    # sure 2 (the spot may be the edge's, or a side face's pip)
    assert F.read_pips(cut([(40, 40), (58, 58)]))[0] is None
    assert F.read_pips(_face_blob([(40, 40), (58, 58)]))[0] is None  # (no 2's layout either)
    assert F.read_pips(cut([(25, 25), (55, 55)]))[0] is None
    assert F.read_pips(_face_blob([(25, 25), (55, 55)]))[0] == "2"  # seen whole, it is a 2


def test_a_corner_pip_cut_out_of_the_top_face_is_no_lone_1(monkeypatch):
    # a 3 whose corner pips were cut out of the top face found with the tray (dark pips at
    # the corners of a white die on a light tray: notches in the face's outline)
    three = [(22, 22), (40, 40), (58, 58)]
    assert F.read_pips(_face_blob(three))[0] == "3"
    notched = _face_blob(three)
    for x, y in ((22, 22), (58, 58)):
        cv2.circle(notched.top, (x, y), 9, 0, -1)  # the notch takes the pip and its rim
    notched.top[10:20, 10:20] = 0
    notched.top[60:70, 60:70] = 0
    # within the face's convex outline the pips are seen again: never a sure 1
    face, conf = F.read_pips(notched)
    assert face != "1"
    # the face as found, notches and all, would be read as a 1, surely
    monkeypatch.setattr(F, "_convex", lambda face: face)
    face, conf = F.read_pips(notched)
    assert face == "1" and conf > 0.9


@pytest.mark.parametrize("face", ["1", "2", "3", "4", "5", "6"])
def test_pips_are_counted_the_same_in_a_die_sized_box_and_in_a_crowds(face):
    # the count works in the top face's own box: a die whose part is many dice large (a
    # crowd pressed together) reads exactly as it would alone
    import dataclasses

    from vision.dice.render import TrayStyle, empty_tray, single_die
    from vision.dice.segment import Background, teaching_blobs

    style = TrayStyle(tray_bgr=(96, 110, 112), perspective=2.0, seed=3, tray_seed=11)
    frame, _ = single_die("d6pips", face, "white", 40 + int(face), style)
    (b,), _ = teaching_blobs(frame, Background(empty_tray(style, seed=0).astype(np.float32)))
    pad = ((30, 90), (40, 70))  # empty part's box round the die: above, below; left, right

    def wide(a):
        return np.pad(a, pad, constant_values=0)

    crowd = dataclasses.replace(b, x0=b.x0 - 40, y0=b.y0 - 30, mask=wide(b.mask),
                                top=wide(b.top), L=wide(b.L), Lbg=wide(b.Lbg),
                                contour=None if b.contour is None else b.contour + (40, 30))
    alone = F.read_pips(b)
    assert alone[0] == face and alone[1] > 0.5
    assert F.read_pips(crowd) == pytest.approx(alone, abs=1e-12)


def _whole_die(pips, side=(), pale=(), ink=76.0):
    """A pip die seen close and from one side, found as one part whose top face was not cut
    apart from its side face (as a close camera, or a pale die on a tray of its shade, leave
    it): a light top face (60x60) with faint pips (``ink``) at ``pips``, below it a shaded side
    face (60x20) with its own pips, squashed, at ``side``; ``top`` is the whole die. The pips
    at ``pale`` are fainter still."""
    L = np.full((100, 90), 40.0, np.float32)
    L[10:70, 15:75] = 90.0
    L[70:90, 15:75] = 62.0
    for x, y in pips:
        cv2.circle(L, (x, y), 5, ink, -1)
    for x, y in pale:
        cv2.circle(L, (x, y), 5, 87.0, -1)
    for x, y in side:
        cv2.ellipse(L, (x, y), (5, 2), 0, 0, 360, 45.0, -1)
    L = cv2.GaussianBlur(L, (0, 0), 1.0)
    mask = np.zeros(L.shape, np.uint8)
    mask[10:90, 15:75] = 255
    return _blob_at_100(L, mask, 4800.0, 145.0, 150.0)


FIVE = [(30, 25), (60, 25), (45, 40), (30, 55), (60, 55)]
SIDE_TWO = [(30, 80), (60, 80)]


def test_pips_on_their_grid_are_counted_where_the_top_face_was_not_found_apart():
    die = _whole_die(FIVE, side=SIDE_TWO)
    assert F.read_pips(die)[0] is None  # the side face within the top as found: no count
    assert F.grid_pips(die) == "5"  # the side face's pips lie off the grid: not counted
    assert F.grid_pips(_whole_die(FIVE[:2] + FIVE[3:], side=SIDE_TWO)) == "4"
    assert F.grid_pips(_whole_die([(30, 25), (45, 40), (60, 55)])) == "3"
    six = [(30, 25), (60, 25), (30, 40), (60, 40), (30, 55), (60, 55)]
    assert F.grid_pips(_whole_die(six, side=SIDE_TWO)) == "6"
    # light pips on a dark die count the same
    dark = _whole_die(FIVE)
    dark.L[:] = 130.0 - dark.L
    assert F.grid_pips(dark) == "5"


def test_a_place_of_the_grid_faintly_marked_is_a_pip_the_grid_count_missed():
    # a 5 whose middle pip is too faint to count among the marks, yet marked: no 4 (with
    # GRID_EMPTY out of the way it was one)
    assert F.grid_pips(_whole_die(FIVE[:2] + FIVE[3:], pale=[FIVE[2]])) != "4"
    # marks on no grid (a symbol's dots, scattered): no count
    assert F.grid_pips(_whole_die([(28, 22), (52, 30), (41, 58)])) is None
    # and a lone mark is no grid: the 1 is left to the other readings
    assert F.grid_pips(_whole_die([(45, 40)])) is None
