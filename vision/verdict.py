"""Turning a noisy distance into a verdict a player can trust, frame after frame.

Takkure's modifiers jump at 2", 4" and 8" ("within 2"" is 2" or less). A distance near a
boundary is not a coin flip: with the expanded uncertainty ``U = 2 u`` (about 95%),

* "within" only when ``d + U <= boundary``,
* "beyond" only when ``d - U > boundary``,
* otherwise "too close to call: measure by hand".

``SteadyPair`` feeds on frames: a frame counts only with every anchor and both pieces seen;
the reading is steady after ``frames`` consecutive counted frames whose positions agree. A
verdict is entered only with a margin (half of ``U``) but kept without one, and changes only
when the new one has held for ``hold`` steady readings, so it does not flicker while the
camera noise wanders around a guard band's edge (and a shown "within" or "beyond" always
meets the guard band).
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass
from typing import Literal

from .measure import Measurement

BOUNDARIES = (2.0, 4.0, 8.0)
COVERAGE_K = 2.0
Verdict = Literal["within", "beyond", "too close to call"]
TOO_CLOSE: Verdict = "too close to call"


def verdict(distance_in: float, uncertainty_in: float, boundary_in: float,
            k: float = COVERAGE_K) -> Verdict:
    u = k * uncertainty_in
    if distance_in + u <= boundary_in:
        return "within"
    if distance_in - u > boundary_in:
        return "beyond"
    return TOO_CLOSE


def entering_verdict(distance_in: float, uncertainty_in: float, boundary_in: float,
                     shown: Verdict | None = None, k: float = COVERAGE_K) -> Verdict:
    """The verdict a steady reading shows: ``verdict`` with a margin (half the expanded
    uncertainty) to *enter* "within" or "beyond", none to keep the one already ``shown``."""
    u = k * uncertainty_in
    margin = 0.5 * u
    if distance_in + u <= boundary_in - (0.0 if shown == "within" else margin):
        return "within"
    if distance_in - u > boundary_in + (0.0 if shown == "beyond" else margin):
        return "beyond"
    return TOO_CLOSE


@dataclass(frozen=True)
class SteadyReading:
    steady: bool
    frames: int                        # consecutive counted frames so far
    edge_in: float | None = None       # mean over the window
    center_in: float | None = None
    uncertainty_in: float | None = None
    verdicts: tuple[tuple[float, Verdict], ...] = ()
    reason: str = ""                   # why it is not steady

    def verdict_at(self, boundary: float) -> Verdict | None:
        return dict(self.verdicts).get(boundary)


class SteadyPair:
    """The distance between two pieces over consecutive frames."""

    def __init__(self, a: int, b: int, *, frames: int = 5, hold: int = 3,
                 move_tolerance_in: float = 0.03, n_anchors: int | None = None) -> None:
        self.a, self.b = a, b
        self.frames, self.hold = frames, hold
        self.tolerance = move_tolerance_in
        self.n_anchors = n_anchors
        self.window: deque[tuple[float, float, float, tuple[float, float, float, float]]] = \
            deque(maxlen=frames)
        self.shown: dict[float, Verdict] = {}
        self.pending: dict[float, tuple[Verdict, int]] = {}

    def reset(self) -> None:
        self.window.clear()

    def feed(self, m: Measurement | None, all_anchors: bool = True) -> SteadyReading:
        reason = ""
        if m is None:
            reason = "no measurement in this frame"
        elif not all_anchors:
            reason = "an anchor is hidden: uncover every anchor"
        else:
            pa, pb, d = m.piece(self.a), m.piece(self.b), m.distance(self.a, self.b)
            if pa is None or pb is None or d is None:
                missing = [str(i) for i, p in ((self.a, pa), (self.b, pb)) if p is None]
                reason = "marker " + ", ".join(missing) + " not seen"
            else:
                pos = (pa.x_in, pa.y_in, pb.x_in, pb.y_in)
                if self.window and max(abs(u - v) for u, v in zip(pos, self.window[-1][3])) \
                        > self.tolerance:
                    self.window.clear()        # a piece moved: start again
                self.window.append((d.edge_in, d.center_in, d.uncertainty_in, pos))
        if reason:
            self.window.clear()
            return SteadyReading(False, 0, reason=reason)
        n = len(self.window)
        if n < self.frames:
            return SteadyReading(False, n, reason=f"hold still ({n}/{self.frames} frames)")
        edges = [w[0] for w in self.window]
        centres = [w[1] for w in self.window]
        edge = sum(edges) / n
        spread = math.sqrt(sum((e - edge) ** 2 for e in edges) / (n - 1)) if n > 1 else 0.0
        # conservative: the per-frame uncertainty, or the frames' own scatter if larger
        u = max(sorted(w[2] for w in self.window)[n // 2], spread)
        verdicts = tuple((b, self._hold(b, self._classify(edge, u, b))) for b in BOUNDARIES)
        return SteadyReading(True, n, edge, sum(centres) / n, u, verdicts)

    def _classify(self, d: float, u: float, boundary: float) -> Verdict:
        """``verdict`` with a margin to *enter* "within" or "beyond" (half the expanded
        uncertainty) but none to stay: a shown verdict always meets the guard band, and
        noise at the band's edge cannot make it come and go."""
        return entering_verdict(d, u, boundary, self.shown.get(boundary))

    def _hold(self, boundary: float, new: Verdict) -> Verdict:
        shown = self.shown.get(boundary)
        if shown is None or new == shown:
            self.shown[boundary] = new
            self.pending.pop(boundary, None)
            return new
        seen, count = self.pending.get(boundary, (new, 0))
        count = count + 1 if seen == new else 1
        if count >= self.hold:
            self.shown[boundary] = new
            self.pending.pop(boundary, None)
            return new
        self.pending[boundary] = (new, count)
        return shown
