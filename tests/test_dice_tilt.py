"""The tilt network (vision/dice/tilt.py) and how the reader weighs it against the tilt rules."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest

import vision.dice.reader as reader_module
import vision.dice.tilt as tilt
from vision.dice import DiceReader, netrun
from vision.dice.bench import bench_tray, teach_tower, tower_style
from vision.dice.netrun import Net, OnnxNet, OrtNet, meta_of
from vision.dice.reader import (
    RULES_LEANING,
    RULES_SHARE_UNKNOWN,
    TILT_NET_ALONE,
    TILT_NET_CONFIRMS,
    TILT_NET_UNRULED,
    TOWER_LEANING,
    _tilted_by,
    rules_share,
)
from vision.dice.taught import A_FRESH_SEEDS, B_MEASURED_SEEDS, D_MEASURED_SEEDS, MEASURED_SEEDS, seeds_of

SEED = 2026  # the benchmark's trays: scripts/train_tilt.py learns from seed 4242's


def test_the_rules_decide_without_the_network():
    assert _tilted_by(True, None) and not _tilted_by(False, None)


def test_the_network_confirms_or_overrules_the_rules():
    confirms = 0.2  # as a tower whose flat dice look a little tilted asks
    low, mid, high = confirms / 2, (confirms + TILT_NET_ALONE) / 2, 0.99
    assert not _tilted_by(True, low, confirms)    # the rules' tilt, overruled
    assert _tilted_by(True, mid, confirms)        # ... and confirmed
    assert not _tilted_by(False, mid, confirms)   # not enough to call a die the rules pass
    assert _tilted_by(False, high, confirms)      # ... this is
    assert TILT_NET_CONFIRMS < TILT_NET_ALONE
    # where the tower's flat dice look flat to both, the rules decide
    assert TILT_NET_CONFIRMS == 0.0 and _tilted_by(True, 0.0) and not _tilted_by(False, 0.3)


def test_in_a_tower_whose_flat_dice_look_tilted_the_network_needs_more_to_confirm_the_rules():
    mid = (TILT_NET_CONFIRMS + TILT_NET_ALONE) / 2
    assert _tilted_by(True, mid) and not _tilted_by(True, mid, confirms=mid + 0.01)
    assert _tilted_by(True, mid, confirms=mid)
    # what the network says alone is not changed by it
    assert _tilted_by(False, TILT_NET_ALONE, confirms=TILT_NET_ALONE)
    assert not _tilted_by(False, mid, confirms=TILT_NET_CONFIRMS)


@pytest.fixture(scope="module")
def taught_tower():
    return teach_tower(tower_style(2, SEED), SEED + 2, kinds=["d6pips", "kotd"])


def test_each_teaching_picture_keeps_how_tilted_its_flat_die_looks(taught_tower):
    for kind in ("d6pips", "kotd"):
        m = taught_tower.kinds[kind]
        assert len(m.leaning) == len(m.sizes) > 0
        assert all(0.0 <= v <= 1.0 for v in m.leaning)
        assert len(m.looks_tilted) == len(m.sizes) and all(isinstance(v, bool) for v in m.looks_tilted)
    leaning = [v for m in taught_tower.kinds.values() for v in m.leaning]
    # this project's renders show flat dice from straight above: they look flat, to the network
    # and to the rules
    assert np.mean(leaning) < 0.1
    share = rules_share(taught_tower.kinds.values())
    assert share is not None and share < 0.1
    assert DiceReader(taught_tower).tilt_confirms == pytest.approx(
        TILT_NET_CONFIRMS + TOWER_LEANING * np.mean(leaning) + RULES_LEANING * share)


def test_the_share_the_rules_call_tilted_counts_each_pictures_outline_and_size(taught_tower,
                                                                               monkeypatch):
    m = taught_tower.kinds["d6pips"]
    others = [k for k in taught_tower.kinds.values() if k is not m]
    for k in others:
        monkeypatch.setattr(k, "looks_tilted", [])  # kept by none of them: not counted
    n = len(m.sizes)
    monkeypatch.setattr(m, "looks_tilted", [True] + [False] * (n - 1))
    monkeypatch.setattr(m, "shapes", ["square"] * n)
    monkeypatch.setattr(m, "sizes", [m.size_px] * n)
    assert rules_share([m]) == pytest.approx(1 / n)
    # a picture whose die is larger than the kind's flat size is called tilted by its size
    monkeypatch.setattr(m, "sizes", [m.size_px] * (n - 1) + [1.3 * m.size_px])
    assert rules_share(taught_tower.kinds.values()) == pytest.approx(2 / n)
    # pictures whose outlines were not all kept (taught before they were): not counted
    monkeypatch.setattr(m, "looks_tilted", [False] * (n - 1))
    assert rules_share(taught_tower.kinds.values()) is None


def test_the_towers_flat_dice_set_what_confirms_the_rules(taught_tower, monkeypatch):
    def confirms_with(leaning, looks=False):
        for m in taught_tower.kinds.values():
            monkeypatch.setattr(m, "leaning", [leaning] * len(m.leaning))
            monkeypatch.setattr(m, "looks_tilted", [looks] * len(m.sizes))
        return DiceReader(taught_tower).tilt_confirms

    assert confirms_with(0.0) == pytest.approx(TILT_NET_CONFIRMS)
    assert confirms_with(0.3) == pytest.approx(TILT_NET_CONFIRMS + TOWER_LEANING * 0.3)
    assert TILT_NET_CONFIRMS < confirms_with(0.3) < TILT_NET_ALONE
    # never more than the network alone needs
    assert confirms_with(1.0, looks=True) == TILT_NET_ALONE
    # every flat die taught called tilted by the rules: the rules are worth less here
    assert confirms_with(0.0, looks=True) == pytest.approx(
        min(TILT_NET_ALONE, TILT_NET_CONFIRMS + RULES_LEANING))
    assert confirms_with(0.0, looks=True) > confirms_with(0.0)
    # a profile taught before either was kept: the rules' share as an unknown tower's
    for m in taught_tower.kinds.values():
        monkeypatch.setattr(m, "leaning", [])
        monkeypatch.setattr(m, "looks_tilted", [])
    reader = DiceReader(taught_tower)
    assert reader.tilt_confirms == pytest.approx(TILT_NET_CONFIRMS
                                                 + RULES_LEANING * RULES_SHARE_UNKNOWN)
    # and the reader asks with it
    calls = _spy_on_verdicts(monkeypatch)
    reader.tilt_confirms = 0.33
    reader.read(bench_tray(2, 5003, SEED)[0])
    assert calls and {confirms for _, _, confirms in calls} == {0.33}


def test_where_the_rules_misfire_on_the_towers_flat_dice_the_network_alone_decides(
        taught_tower, monkeypatch):
    # a close or tilted camera shows flat dice's side faces: the rules call 10 to 85 % of the
    # independent renderers' taught dice tilted (none of this project's). There they are not
    # asked, and the network calls a die tilted from TILT_NET_UNRULED
    frame = bench_tray(2, 5003, SEED)[0]

    def verdicts(looks: bool) -> tuple[DiceReader, list[tuple]]:
        for m in taught_tower.kinds.values():
            monkeypatch.setattr(m, "looks_tilted", [looks] * len(m.sizes))
        reader = DiceReader(taught_tower)
        asked: list[tuple] = []
        real = reader_module._tilted_by

        def spy(rules, leaning, confirms, alone_from=reader_module.TILT_NET_ALONE):
            asked.append((rules, alone_from))
            return real(rules, leaning, confirms, alone_from)

        monkeypatch.setattr(reader_module, "_tilted_by", spy)
        reader.read(frame)
        monkeypatch.setattr(reader_module, "_tilted_by", real)
        return reader, asked

    reader, asked = verdicts(False)                 # this project's camera: the rules asked
    assert reader.rules_trusted and asked
    assert {a for _, a in asked} == {TILT_NET_ALONE} and any(r for r, _ in asked)
    reader, asked = verdicts(True)                  # every flat die taught looks tilted to them
    assert not reader.rules_trusted and asked
    assert {a for _, a in asked} == {TILT_NET_UNRULED} and not any(r for r, _ in asked)
    assert TILT_NET_UNRULED < TILT_NET_ALONE
    # the verdict itself: the network's answer against the threshold it is given
    assert _tilted_by(False, 0.4, 0.0, TILT_NET_UNRULED) and not _tilted_by(False, 0.4, 0.0)
    assert _tilted_by(True, None, 0.0, TILT_NET_UNRULED)   # no network: the rules decide


def _spy_on_verdicts(monkeypatch) -> list[tuple]:
    """Every (rules, leaning, confirms) the reader's tilt verdict is asked with, from now."""
    calls: list[tuple] = []
    real = reader_module._tilted_by

    def spy(rules, leaning, confirms, alone_from=reader_module.TILT_NET_ALONE):
        calls.append((rules, leaning, confirms))
        return real(rules, leaning, confirms, alone_from)

    monkeypatch.setattr(reader_module, "_tilted_by", spy)
    return calls


def _blob(cx: float, cy: float, size: float):
    """What tilt_input reads of a die: its centre and size."""
    return SimpleNamespace(cx=cx, cy=cy, size=size)


def test_the_network_sees_the_frame_around_the_die_at_twice_its_size():
    frame = np.zeros((120, 160, 3), np.uint8)
    frame[50:70, 70:90] = (0, 0, 255)  # a red die of 20 pixels, its centre at (80, 60)
    x = tilt.tilt_input(frame, _blob(80.0, 60.0, 20.0))
    assert x.shape == (3, tilt.SIDE, tilt.SIDE) and x.dtype == np.float32
    assert x.min() >= -0.5 and x.max() <= 0.5
    red = x[2] > 0
    ys, xs = np.nonzero(red)
    # half of the crop's side: the die is REACH times smaller than what is seen around it
    assert abs(red.sum() - (tilt.SIDE / tilt.REACH) ** 2) < 0.1 * (tilt.SIDE / tilt.REACH) ** 2
    assert abs(ys.mean() - (tilt.SIDE - 1) / 2) < 1 and abs(xs.mean() - (tilt.SIDE - 1) / 2) < 1


def test_the_canonical_view_turns_the_way_from_the_frames_middle_up():
    # (scripts/train_tilt.py --view canonical) a red die away from the frame's middle, a blue
    # mark beyond it: seen canonically, the blue mark is straight above the die, wherever the
    # die lies in the frame
    for cx, cy in ((120.0, 60.0), (30.0, 60.0), (80.0, 15.0), (130.0, 100.0)):
        frame = np.zeros((120, 160, 3), np.uint8)
        dx, dy = cx - 79.5, cy - 59.5
        ux, uy = dx / math.hypot(dx, dy), dy / math.hypot(dx, dy)
        frame[int(cy) - 5:int(cy) + 5, int(cx) - 5:int(cx) + 5] = (0, 0, 255)
        bx, by = cx + 8 * ux, cy + 8 * uy
        frame[int(by) - 1:int(by) + 2, int(bx) - 1:int(bx) + 2] = (255, 0, 0)
        # the die's centre: its square's
        x = tilt.tilt_input(frame, _blob(int(cx) - 0.5, int(cy) - 0.5, 10.0), canonical=True)
        ys, xs = np.nonzero(x[0] > 0)  # the blue mark
        assert len(ys) and ys.mean() < tilt.SIDE / 2 - 8 and abs(xs.mean() - tilt.SIDE / 2) < 3
        ys, xs = np.nonzero(x[2] > 0)  # the die
        assert abs(ys.mean() - (tilt.SIDE - 1) / 2) < 1.5 and abs(xs.mean() - (tilt.SIDE - 1) / 2) < 1.5
    # not canonical: as the frame shows it (the mark below and right of the die)
    plain = tilt.tilt_input(frame, _blob(129.5, 99.5, 10.0))
    ys, xs = np.nonzero(plain[0] > 0)
    assert ys.mean() > tilt.SIDE / 2 and xs.mean() > tilt.SIDE / 2


def test_the_shipped_network_runs_the_same_from_its_onnx_twin_and_its_weights():
    model = tilt.MODEL
    x = np.random.default_rng(1).uniform(-0.5, 0.5, size=(5, 3, tilt.SIDE, tilt.SIDE)
                                         ).astype(np.float32)
    for runtime, kind in (("opencv", OnnxNet), ("onnxruntime", OrtNet)):
        onnx = netrun.load(model, classic=True, runtime=runtime, int8=False)
        assert isinstance(onnx, kind)
        assert np.allclose(onnx(x), Net.load(model)(x), atol=1e-4)


def test_the_shipped_network_says_where_it_comes_from():
    meta = meta_of(tilt.MODEL)
    assert meta["renderer"] == "bench/tray_renderer.py" and meta["network"] == "tilt"
    # never the towers bench/independent_dice_bench.py measures that renderer on, nor the
    # benchmark's own trays
    assert not set(seeds_of(meta["seeds"])) & (MEASURED_SEEDS | A_FRESH_SEEDS)
    assert meta["own_seed"] != SEED
    # the second and fourth renderers too, never their measured towers, and never the third
    # renderer (which chose the thresholds with the second's)
    assert meta["b_renderer"] == "bench/tray_renderer_b.py"
    assert seeds_of(meta["b_seeds"], B_MEASURED_SEEDS) and seeds_of(meta["d_seeds"],
                                                                    D_MEASURED_SEEDS)
    assert not any("tray_renderer_c" in str(v) for v in meta.values())
    assert meta["steps"] >= 15000


def test_the_network_reads_every_die_of_a_frame_in_one_pass():
    net = tilt.shipped()
    assert net is not None and tilt.problem() is None
    x = np.random.default_rng(2).uniform(-0.5, 0.5, size=(3, 3, tilt.SIDE, tilt.SIDE)
                                         ).astype(np.float32)
    together = net.tilted(list(x))
    alone = np.concatenate([net.tilted([v]) for v in x])
    assert together.shape == (3,) and np.allclose(together, alone, atol=1e-5)
    assert ((together >= 0) & (together <= 1)).all()
    assert net.tilted([]).shape == (0,)


def test_only_dice_whose_answer_is_unsure_are_turned_three_more_ways():
    net = tilt.shipped()
    assert net is not None
    x = np.random.default_rng(3).uniform(-0.5, 0.5, size=(3, 3, tilt.SIDE, tilt.SIDE)
                                         ).astype(np.float32)
    seen = net._answer(x)
    turned = np.mean([net._answer(np.ascontiguousarray(np.rot90(x, k, axes=(2, 3))))
                      for k in range(4)], axis=0)
    assert not np.allclose(seen, turned, atol=1e-3)  # the turns change the answers
    # each die's own band: the first is never unsure, the second always, the third as the
    # reader asks of a die the rules pass
    got = net.tilted(list(x), [(2.0, 3.0), (0.0, 1.0), reader_module.TILT_NET_UNSURE[False]])
    lo, hi = reader_module.TILT_NET_UNSURE[False]
    assert np.isclose(got[0], seen[0], atol=1e-5) and np.isclose(got[1], turned[1], atol=1e-5)
    assert np.isclose(got[2], turned[2] if lo <= seen[2] <= hi else seen[2], atol=1e-5)
    # each band holds the threshold the verdict of such a die turns on
    # (a tower whose taught dice look flat to the network and the rules confirms them at under
    # the band: there an answer as seen stands, and the rules decide)
    confirms, alone = reader_module.TILT_NET_UNSURE[True], reader_module.TILT_NET_UNSURE[False]
    assert confirms[0] < 0.05 < confirms[1] and alone[0] < TILT_NET_ALONE < alone[1]
    # a tower whose flat dice look tilted confirms at up to TILT_NET_ALONE: still in the band
    assert confirms[0] < TILT_NET_ALONE < confirms[1]
    # without bands, the one band UNSURE
    got = net.tilted(list(x))
    for g, s, t in zip(got, seen, turned):
        assert np.isclose(g, t if tilt.UNSURE[0] <= s <= tilt.UNSURE[1] else s, atol=1e-5)


@pytest.fixture(scope="module")
def bench_dice():
    """(how likely the network says each die is tilted, whether it is) over trays of the
    benchmark's tower 2, which it never learned from."""
    reader = DiceReader(teach_tower(tower_style(2, SEED), SEED + 2))
    net = tilt.shipped()
    ps, truth = [], []
    for k in range(30):
        frame, dice = bench_tray(2, 5000 + k, SEED)
        blobs, _ = reader.blobs(frame)
        for b in blobs:
            near = [d for d in dice if math.hypot(d.x - b.cx, d.y - b.cy) < 0.5 * b.size]
            if near:
                x = tilt.tilt_input(frame, b)
                # as seen, and turned a quarter (the camera may face the tray any way)
                ps.append([float(v) for v in net.tilted([x, np.rot90(x, 1, axes=(1, 2)).copy()])])
                truth.append(not near[0].flat)
    return np.array(ps), np.array(truth)


@pytest.mark.parametrize("view", [0, 1])
def test_the_network_tells_tilted_dice_from_flat_ones(bench_dice, view):
    p, tilted = bench_dice[0][:, view], bench_dice[1]
    assert tilted.sum() >= 15 and (~tilted).sum() >= 100
    # the chance that a tilted die is given more than a flat one
    auc = (p[tilted][:, None] > p[~tilted][None]).mean()
    assert auc > 0.85
    assert np.median(p[~tilted]) < 0.05 < TILT_NET_ALONE < np.median(p[tilted])


def test_without_the_network_the_rules_decide_and_the_reader_says_so(monkeypatch):
    reader = DiceReader(teach_tower(tower_style(2, SEED), SEED + 2, kinds=["d6pips"]))
    frame, _ = bench_tray(2, 5003, SEED)
    monkeypatch.setattr(tilt, "MODEL", tilt.MODEL.with_name("missing.npz"))
    tilt._loaded.cache_clear()
    try:
        assert tilt.shipped() is None and "missing.npz" in tilt.problem()
        (said,) = [p for p in reader_module.network_problems() if "missing.npz" in p]
        assert "tilt rules alone" in said
        without = reader.read(frame)
    finally:
        tilt._loaded.cache_clear()
    monkeypatch.undo()
    assert tilt.shipped() is not None
    calls = _spy_on_verdicts(monkeypatch)
    with_net = reader.read(frame)
    assert len(without) == len(with_net) and calls \
        and all(leaning is not None for _, leaning, _ in calls)


def test_where_the_tower_confirms_the_rules_under_the_band_their_dice_are_not_turned(
        monkeypatch):
    reader = DiceReader(teach_tower(tower_style(2, SEED), SEED + 2, kinds=["d6pips"]))
    bands: list = []
    real = tilt.TiltNet.tilted

    def spy(self, inputs, unsure=None):
        bands.append((list(unsure), _spy_rules[-len(inputs):] if inputs else []))
        return real(self, inputs, unsure)

    _spy_rules: list[bool] = []
    real_rules = DiceReader._tilted

    def rules_spy(b, shape, ref):
        v = real_rules(b, shape, ref)
        _spy_rules.append(v)
        return v

    monkeypatch.setattr(tilt.TiltNet, "tilted", spy)
    monkeypatch.setattr(DiceReader, "_tilted", staticmethod(rules_spy))
    lo = reader_module.TILT_NET_UNSURE[True][0]
    for confirms, want in ((lo / 2, reader_module.NOT_TURNED),
                           (lo * 2, reader_module.TILT_NET_UNSURE[True])):
        reader.tilt_confirms = confirms
        bands.clear()
        for k in range(10):
            reader.read(bench_tray(2, 5000 + k, SEED)[0])
        asked = [(band, r) for got, rules in bands for band, r in zip(got, rules)]
        assert any(r for _, r in asked) and any(not r for _, r in asked)
        assert all(band == (want if r else reader_module.TILT_NET_UNSURE[False])
                   for band, r in asked)
