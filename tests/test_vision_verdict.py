"""Verdicts at Takkure's 2/4/8" boundaries: the guard band, steadiness over frames, and no
flicker while noise wanders around the edge of the band."""

from __future__ import annotations

import numpy as np

from vision.measure import Measurement, PairDistance, PiecePosition
from vision.verdict import SteadyPair, verdict


def frame(edge, u=0.004, xa=5.0, seen=(1, 2)):
    r = 0.5
    pa = PiecePosition(1, "Kaze", xa, 5.0, u / 1.5, r, 30, True)
    pb = PiecePosition(2, "Lince", xa + edge + 2 * r, 5.0, u / 1.5, r, 30, True)
    pieces = tuple(p for p in (pa, pb) if p.id in seen)
    dists = (PairDistance(1, 2, edge + 2 * r, edge, u),) if len(pieces) == 2 else ()
    return Measurement("pose", 0.002, (0, 1, 2), pieces, dists)


def test_the_guard_band_at_a_boundary():
    assert verdict(1.990, 0.004, 2.0) == "within"            # 1.990 + 0.008 <= 2
    assert verdict(1.995, 0.004, 2.0) == "too close to call"
    assert verdict(2.000, 0.004, 2.0) == "too close to call"  # exactly 2" is within, but unsure
    assert verdict(2.006, 0.004, 2.0) == "too close to call"
    assert verdict(2.009, 0.004, 2.0) == "beyond"
    assert verdict(2.0, 0.0, 2.0) == "within"                 # a bound is inclusive


def test_steady_only_after_consecutive_frames_with_everything_seen():
    pair = SteadyPair(1, 2, frames=5)
    for i in range(4):
        r = pair.feed(frame(3.0))
        assert not r.steady and r.frames == i + 1 and r.reason.startswith("hold still")
    r = pair.feed(frame(3.0))
    assert r.steady and abs(r.edge_in - 3.0) < 1e-12
    assert r.verdict_at(2.0) == "beyond" and r.verdict_at(4.0) == "within"
    r = pair.feed(frame(3.0), all_anchors=False)
    assert not r.steady and r.reason == "an anchor is hidden: uncover every anchor"
    r = pair.feed(frame(3.0, seen=(1,)))
    assert not r.steady and r.reason == "marker 2 not seen" and r.frames == 0


def test_a_piece_that_moves_starts_the_count_again():
    pair = SteadyPair(1, 2, frames=3)
    for _ in range(3):
        pair.feed(frame(3.0))
    r = pair.feed(frame(3.0, xa=5.5))
    assert not r.steady and r.frames == 1


def test_noise_around_the_edge_of_the_guard_band_does_not_flicker():
    """True edge distance 1.992", u 0.004: the band edge (2 - 0.008) sits right on it. Each
    frame's noise would flip the raw verdict between "within" and "too close to call"."""
    rng = np.random.default_rng(3)
    pair = SteadyPair(1, 2, frames=5, hold=3)
    raw, shown = [], []
    for _ in range(300):
        edge = 1.992 + rng.normal(0, 0.0015)
        raw.append(verdict(edge, 0.004, 2.0))
        r = pair.feed(frame(edge))
        if r.steady:
            shown.append(r.verdict_at(2.0))
    changes = lambda xs: sum(a != b for a, b in zip(xs, xs[1:]))  # noqa: E731
    assert changes(raw) > 30                  # the raw per-frame verdict flips often
    assert changes(shown) <= 2                # what the player sees does not
    assert set(shown) <= {"within", "too close to call"}   # and never says "beyond"


def test_a_real_change_comes_through_after_the_hold():
    pair = SteadyPair(1, 2, frames=3, hold=3)
    for _ in range(5):
        r = pair.feed(frame(1.5))
    assert r.verdict_at(2.0) == "within"
    after = [pair.feed(frame(2.5)) for _ in range(8)]      # the piece was moved away
    assert [r.steady for r in after[:3]] == [False, False, True]
    assert [r.verdict_at(2.0) for r in after[2:]] == ["within", "within", "beyond", "beyond",
                                                     "beyond", "beyond"]
