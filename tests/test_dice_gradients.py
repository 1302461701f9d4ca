"""The edge-direction match of taught faces (issue 26): what a die's strokes point at does
not change with the light across it, nor with which of ink and body is the lighter; and a
face is reported clean only when that match, alone or with the upright comparison, is sure."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.dice.features import (
    _FINE_SHIFTS,
    GRAD_COARSE_DIM,
    GRAD_DIM,
    GRAD_SHIFTS,
    GRAD_TURNS,
    PATCH_MARGIN,
    _middles,
    fine_features,
    fine_likeness,
    gradient_bank,
    gradient_features,
    gradient_scores,
)
from vision.dice.reader import (
    CLEAN_CONFIDENCE,
    CLOSER_FROM,
    CLOSER_LIKENESS,
    GRAD_AGREED,
    GRAD_LIKENESS,
    GRAD_SURE,
    PAIR_SURE,
    TAUGHT_CLEAN_CONFIDENCE,
    DiceReader,
)


def numeral(text: str, turn: float = 0.0, body: int = 200, ink: int = 40,
            scale: float = 0.8) -> np.ndarray:
    """A 64x64 crop like a taught one: ``text`` in the middle of a plain face, turned."""
    c = np.full((64, 64), body, np.uint8)
    (w, h), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, 2)
    cv2.putText(c, text, (32 - w // 2, 32 + h // 2), cv2.FONT_HERSHEY_SIMPLEX, scale, ink, 2,
                cv2.LINE_AA)
    m = cv2.getRotationMatrix2D((32, 32), turn, 1.0)
    return cv2.warpAffine(c, m, (64, 64), borderMode=cv2.BORDER_REPLICATE)


FACES = ["3", "5", "7", "8", "11", "12"]


@pytest.fixture(scope="module")
def bank():
    return gradient_bank(np.stack([numeral(f) for f in FACES]))


def best(scores: np.ndarray) -> str:
    return FACES[int(np.argmax(scores))]


def test_the_features_are_kept_at_every_turn(bank):
    full, coarse = bank
    assert full.shape == (len(FACES), GRAD_TURNS, GRAD_DIM)
    assert coarse.shape == (len(FACES), GRAD_TURNS, GRAD_COARSE_DIM)
    assert np.allclose(np.linalg.norm(full, axis=2), 1.0, atol=1e-4)
    assert np.allclose(np.linalg.norm(coarse, axis=2), 1.0, atol=1e-4)


def test_the_coarse_first_look_finds_what_comparing_everything_finds(bank):
    # the full features compared only at each taught crop's best coarse turn and shift
    full, _ = bank
    crops = np.stack([numeral(f, 10.0 * k + 3.0) for k, f in enumerate(FACES)]
                     ).astype(np.float32)
    quick = gradient_scores(crops, bank)
    q = gradient_features(_middles(crops, [(0.0, float(dx), float(dy))
                                           for dx, dy in GRAD_SHIFTS]))
    everything = np.einsum("dsk,ntk->dnst", q, full).max(axis=(2, 3))
    assert [best(s) for s in quick] == FACES
    assert np.abs(quick - everything)[np.arange(len(FACES)), np.arange(len(FACES))].max() < 0.02


@pytest.mark.parametrize("turn", [0.0, 47.0, 133.0, 251.0])
def test_a_turned_face_is_found(bank, turn):
    scores = gradient_scores(numeral("7", turn)[None].astype(np.float32), bank)[0]
    assert best(scores) == "7"
    assert scores.max() > 0.9


def test_a_shifted_face_is_found(bank):
    crop = np.roll(numeral("12", 30.0), (2, -3), axis=(0, 1))
    assert best(gradient_scores(crop[None].astype(np.float32), bank)[0]) == "12"


def test_light_across_the_die_and_either_contrast_change_nothing(bank):
    # a lamp low to one side: the face runs from a third of its light to one and a half
    plain = numeral("5", 20.0).astype(np.float32)
    ramp = np.linspace(0.35, 1.5, 64, dtype=np.float32)[None, :]
    shaded = plain * ramp
    light_on_dark = numeral("5", 20.0, body=60, ink=230).astype(np.float32)
    scores = gradient_scores(np.stack([plain, shaded, light_on_dark]), bank)
    assert [best(s) for s in scores] == ["5", "5", "5"]
    assert scores[1].max() > 0.9 and scores[2].max() > 0.95
    # the lightness itself, correlated, is thrown off by the same light
    flat = plain - plain.mean()
    lit = shaded - shaded.mean()
    assert float((flat * lit).sum() / np.linalg.norm(flat) / np.linalg.norm(lit)) < 0.8


def test_a_die_s_middles_are_cut_out_pixel_for_pixel_as_warping_them_gives(bank):
    # the whole-pixel shifts of a die's crop are cut out, not warped: the same pixels
    crops = np.stack([numeral(f, 17.0 * k) for k, f in enumerate(FACES)]).astype(np.float32)
    crops += np.random.default_rng(3).random(crops.shape, dtype=np.float32)
    shifts = [(0.0, float(dx), float(dy)) for dx, dy in GRAD_SHIFTS]
    cut = _middles(crops, shifts)
    warped = _middles(crops, shifts + [(0.0, 0.5, 0.0)])  # a half pixel: warped, all of them
    assert np.array_equal(cut, warped[:, :len(shifts)])


def test_a_profile_s_half_float_bank_scores_as_its_full_float_values_do(bank):
    # a saved profile keeps the bank in float16; widening it (by OpenCV) changes no value
    half = (bank[0].astype(np.float16), bank[1])
    full = (half[0].astype(np.float32), bank[1])
    crops = np.stack([numeral(f, 9.0 * k + 4.0) for k, f in enumerate(FACES)]
                     ).astype(np.float32)
    assert np.array_equal(gradient_scores(crops, half), gradient_scores(crops, full))


def test_each_pixel_s_edge_is_shared_between_its_two_nearest_directions_in_its_cell():
    # the histograms against a plain loop over the pixels
    from vision.dice.features import _GRAD_PAD, GRAD_BINS, GRAD_CELL, GRAD_SIDE, _histograms

    rng = np.random.default_rng(11)
    middles = (rng.random((2, _GRAD_PAD, _GRAD_PAD)) * 100).astype(np.float32)
    cells = GRAD_SIDE // GRAD_CELL
    want = np.zeros((2, cells, cells, GRAD_BINS))
    for k, m in enumerate(middles.astype(np.float64)):
        for y in range(GRAD_SIDE):
            for x in range(GRAD_SIDE):
                gx = m[y + 1, x + 2] - m[y + 1, x]
                gy = m[y + 2, x + 1] - m[y, x + 1]
                pos = (np.arctan2(gy, gx) % (2 * np.pi)) * GRAD_BINS / np.pi
                low = int(pos)
                strength, share = np.hypot(gx, gy), pos - low
                cell = want[k, y // GRAD_CELL, x // GRAD_CELL]
                cell[low % GRAD_BINS] += strength * (1 - share)
                cell[(low + 1) % GRAD_BINS] += strength * share
    got = _histograms(middles)
    assert got.shape == want.shape
    assert np.allclose(got, want, rtol=2e-3, atol=0.05)


def ranked(*pairs: tuple[float, str]) -> list[tuple[float, str, str]]:
    return [(v, "d12", f) for v, f in pairs]


def test_a_face_far_ahead_of_every_other_is_clean_alone():
    kind, face, conf, likely = DiceReader._combine(
        ranked((0.95, "7"), (0.949 - GRAD_SURE, "1"), (0.8, "4")), None)
    assert (kind, face) == ("d12", "7") and conf >= TAUGHT_CLEAN_CONFIDENCE
    assert likely == ("7", "1", "4")


def test_a_narrow_lead_is_not_clean_alone_but_is_when_the_upright_check_agrees():
    lead = ranked((0.95, "7"), (0.95 - GRAD_AGREED - 0.005, "1"))
    assert DiceReader._combine(lead, None)[2] < TAUGHT_CLEAN_CONFIDENCE
    agrees = ("d12", "7", CLEAN_CONFIDENCE, ("7", "1"))
    assert DiceReader._combine(lead, agrees)[2] >= TAUGHT_CLEAN_CONFIDENCE
    unsure = ("d12", "7", CLEAN_CONFIDENCE - 0.1, ("7", "1"))
    assert DiceReader._combine(lead, unsure)[2] < TAUGHT_CLEAN_CONFIDENCE
    # the upright check sure of another face lends nothing
    other = ("d12", "1", 1.0, ("1", "7"))
    kind, face, conf, _ = DiceReader._combine(lead, other)
    assert face == "7" and conf < TAUGHT_CLEAN_CONFIDENCE
    # a lead too small even for agreement
    close = ranked((0.95, "7"), (0.95 - GRAD_AGREED / 2, "1"))
    assert DiceReader._combine(close, agrees)[2] < TAUGHT_CLEAN_CONFIDENCE


def test_a_face_the_die_looks_little_like_is_never_clean_however_far_ahead():
    # a D12's 5 seen small can be likelier than every other face without looking like a 5
    below = GRAD_LIKENESS - 0.01
    far = ranked((below, "5"), (below - 2 * GRAD_SURE, "3"))
    agrees = ("d12", "5", 1.0, ("5", "3"))
    kind, face, conf, likely = DiceReader._combine(far, agrees)
    assert (face, likely) == ("5", ("5", "3"))  # still the likeliest, offered first
    assert conf < TAUGHT_CLEAN_CONFIDENCE
    at = GRAD_LIKENESS + 0.01
    assert DiceReader._combine(ranked((at, "5"), (at - 2 * GRAD_SURE, "3")), agrees)[2] \
        >= TAUGHT_CLEAN_CONFIDENCE


def test_without_a_taught_face_to_compare_the_upright_reading_stands():
    upright = ("kotd", "CLAW", 0.97, ("CLAW",))
    assert DiceReader._combine([], upright) == upright
    assert DiceReader._combine(None, None) is None


def test_a_face_taught_while_the_reader_runs_is_read_with_its_own_name():
    # the camera tower teaches a die from a throw with its reader running: the new example
    # goes in among its face's others, and every example keeps its face
    import dataclasses

    from vision.dice import Profile
    from vision.dice.render import SceneDie, TrayStyle, empty_tray, render_tray, single_die

    style = TrayStyle(tray_bgr=(96, 110, 112), seed=3, tray_seed=11)
    p = Profile()
    p.add_background(empty_tray(style, seed=1))
    for i, face in enumerate(("CLAW", "HEART", "ENERGY", "FAME", "DESTRUCTION", "POWER")):
        p.add_example("kotd", face, single_die("kotd", face, "black", 40 + i, style)[0])
    reader = DiceReader(p)
    frame, truth = render_tray([SceneDie("kotd", "HEART", "black", 170, 150, 1.0),
                                SceneDie("kotd", "FAME", "black", 450, 330, 2.5)],
                               dataclasses.replace(style, seed=9))

    def read() -> list[tuple[str | None, str]]:
        return [(r.face, r.status) for r in sorted(reader.read(frame), key=lambda r: r.x)]

    assert read() == [("HEART", "clean"), ("FAME", "clean")]
    # one more CLAW, taught now: it goes before every other face's examples
    p.add_example("kotd", "CLAW", single_die("kotd", "CLAW", "black", 60, style)[0])
    assert read() == [("HEART", "clean"), ("FAME", "clean")]


# -- the closer look at two faces a narrow lead cannot tell apart

def moved(crop: np.ndarray, dx: int, dy: int) -> np.ndarray:
    m = np.float32([[1, 0, dx], [0, 1, dy]])
    return cv2.warpAffine(crop, m, (64, 64), borderMode=cv2.BORDER_REPLICATE)


def test_the_closer_look_s_moves_are_the_die_s_middle_moved_pixel_by_pixel():
    # worked out from one pass over the crop's edges, they must be what histogramming each
    # moved middle gives, move by move in _FINE_SHIFTS's order
    rng = np.random.default_rng(5)
    for crop in (numeral("12", turn=33.0), cv2.GaussianBlur(
            rng.integers(0, 256, (64, 64)).astype(np.uint8), (0, 0), 1.2)):
        want = gradient_features(_middles(crop[None].astype(np.float32), _FINE_SHIFTS))[0]
        got = fine_features(crop)
        assert got.shape == want.shape == (len(_FINE_SHIFTS), GRAD_DIM)
        assert np.allclose(got, want, atol=1e-6)


def closer(die: np.ndarray, face: str, turns: tuple[float, ...] = (0.0,)) -> float:
    crops = np.stack([numeral(face, t) for t in turns])
    return fine_likeness(fine_features(die), crops, gradient_bank(crops)[0])


def test_the_closer_look_finds_a_face_between_the_likeness_s_turns_and_shifts():
    # a 3 turned half way between two of the likeness's turns and moved between its shifts:
    # the likeness leads the 5 by less than GRAD_SURE; the closer look sees the 3 as taught
    die = moved(numeral("3", turn=5.0), 2, -2)
    coarse = {f: float(gradient_scores(die[None].astype(np.float32),
                                       gradient_bank(numeral(f)[None]))[0, 0])
              for f in ("3", "5")}
    assert coarse["3"] - coarse["5"] < GRAD_SURE
    near = {f: closer(die, f) for f in ("3", "5", "8")}
    assert near["3"] > 0.99
    assert near["3"] - near["5"] >= PAIR_SURE and near["3"] - near["8"] >= PAIR_SURE
    # taught turned another way, the half turn is looked for beside that crop's own best
    assert closer(moved(numeral("3", turn=-25.0), -1, 3), "3", (0.0, 90.0)) > 0.99
    # on whole turns, the features of every turn (as a profile keeps them) are enough
    assert closer(numeral("3", turn=30.0), "3") > 0.99
    assert fine_likeness(fine_features(die), np.zeros((0, 64, 64), np.uint8),
                         np.zeros((0, GRAD_TURNS, GRAD_DIM), np.float32)) == 0.0


def closer_reader(examples: dict[str, list[np.ndarray]]):
    """What DiceReader._confirmed uses of a reader: a D12 taught ``examples``, whose crop
    radius makes a die's crop its picture pixel for pixel."""
    from types import SimpleNamespace

    from vision.dice.profile import KindModel

    model = KindModel("d12", tuple(examples))
    model.examples = examples
    return SimpleNamespace(_grad_kinds={"d12": (32 / PATCH_MARGIN, model)})


def die_showing(crop: np.ndarray):
    from types import SimpleNamespace

    return SimpleNamespace(L=crop, x0=0, y0=0, top_cx=32.0, top_cy=32.0)


def test_a_narrow_lead_is_confirmed_only_where_the_closer_look_likes_the_first_face_better():
    reader = closer_reader({"3": [numeral("3")], "5": [numeral("5")]})
    die = die_showing(moved(numeral("3", turn=5.0), 2, -2))
    near = GRAD_LIKENESS + 0.05
    assert DiceReader._confirmed(reader, die, ranked((near, "3"), (near - 0.05, "5")))
    # the likeness's first face is not the one the closer look likes
    assert not DiceReader._confirmed(reader, die, ranked((near, "5"), (near - 0.05, "3")))
    # a face taught one more crop while the reader runs (as Profile.add_example teaches it)
    # is looked at with it: taught this very picture as a 5, the 3 is no longer confirmed
    model = reader._grad_kinds["d12"][1]
    model.examples["5"].append(moved(numeral("3", turn=5.0), 2, -2))
    model._gradients = None
    assert not DiceReader._confirmed(reader, die, ranked((near, "3"), (near - 0.05, "5")))


def test_the_closer_look_is_not_asked_where_the_lead_or_the_likeness_decides():
    from types import SimpleNamespace

    reader = SimpleNamespace(_grad_kinds={})  # nothing taught to look at: asking would fail
    die = die_showing(numeral("3"))
    sure = GRAD_LIKENESS + 0.1
    assert not DiceReader._confirmed(reader, die, ranked((sure, "3"), (sure - GRAD_SURE - 1e-6, "5")))
    low = CLOSER_FROM - 0.01
    assert not DiceReader._confirmed(reader, die, ranked((low, "3"), (low - 0.01, "5")))
    assert not DiceReader._confirmed(reader, die, ranked((sure, "3")))
    assert not DiceReader._confirmed(reader, die, None)


def test_under_the_likeness_floor_the_closer_look_must_also_find_the_die_like_the_face():
    reader = closer_reader({"3": [numeral("3")], "5": [numeral("5")]})
    # a 3 drawn larger than taught: the closer look prefers it to the 5 by PAIR_SURE, but
    # finds it no more like a 3 than CLOSER_LIKENESS
    larger = die_showing(numeral("3", scale=1.0))
    mid = (CLOSER_FROM + GRAD_LIKENESS) / 2
    assert DiceReader._confirmed(reader, larger, ranked((GRAD_LIKENESS, "3"),
                                                        (GRAD_LIKENESS - 0.05, "5")))
    assert not DiceReader._confirmed(reader, larger, ranked((mid, "3"), (mid - 0.05, "5")))
    # the 3 as taught, seen between the first look's turns and shifts: like it again
    seen = die_showing(moved(numeral("3", turn=5.0), 2, -2))
    assert DiceReader._confirmed(reader, seen, ranked((mid, "3"), (mid - 0.05, "5")))
    # ... even where the first look's lead was enough, but its likeness was not
    assert DiceReader._confirmed(reader, seen, ranked((mid, "3"), (mid - 2 * GRAD_SURE, "5")))
    assert CLOSER_LIKENESS > GRAD_LIKENESS


def test_a_confirmed_face_is_clean_even_under_the_likeness_floor():
    lead = ranked((0.95, "7"), (0.95 - GRAD_AGREED / 2, "1"))
    assert DiceReader._combine(lead, None)[2] < TAUGHT_CLEAN_CONFIDENCE
    kind, face, conf, _ = DiceReader._combine(lead, None, confirmed=True)
    assert (kind, face) == ("d12", "7") and conf >= TAUGHT_CLEAN_CONFIDENCE
    # the closer look found the die like that face (CLOSER_LIKENESS), where the first did not
    low = ranked((GRAD_LIKENESS - 0.05, "7"), (GRAD_LIKENESS - 0.06, "1"))
    assert DiceReader._combine(low, None)[2] < TAUGHT_CLEAN_CONFIDENCE
    assert DiceReader._combine(low, None, confirmed=True)[2] >= TAUGHT_CLEAN_CONFIDENCE
