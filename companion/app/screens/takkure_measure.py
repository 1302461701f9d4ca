"""Takkure's measuring view: the overhead camera (or the demo scene) with every piece's base
circle, id and 2" pressure ring drawn over it; tap two players to see the edge-to-edge
distance with its uncertainty, the verdict at 2", 4" and 8" (a guard band, never a coin
flip) and the pass and reception modifiers it implies.

It measures for a declared action: it opens from the roll panel once a roll that needs a
distance is chosen, and "Use" hands the distance to the panel (``receive_distance(inches,
source="camera")``), which records it in the journal with the roll. Capture and measurement
run on their own thread (``vision.capture.LiveMeasure``); this screen polls the newest frame
on the Kivy clock and never waits for the camera.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
from kivy.app import App
from kivy.clock import Clock
from kivy.properties import BooleanProperty, ListProperty, StringProperty
from kivy.uix.screenmanager import Screen

from ...errors import IllegalActionError
from ...games import takkure_dice as dice
from ...i18n import _
from .. import widgets  # noqa: F401  (its rules must load first)
from ..camera_view import CameraView
from ..kv import load_kv

POLL_HZ = 15.0
PRESSURE_IN = 2.0


def modifiers_text(edge_in: float, kind: str | None) -> str:
    """What a distance means for the declared roll: the pass and reception modifiers."""
    parts = []
    try:
        if kind in (None, "pass"):
            (mod,) = dice.pass_modifier(edge_in)
            parts.append(_("Pass {modifier:+d}").format(modifier=mod.value))
        if kind in (None, "reception"):
            m = dice.reception_modifier(edge_in)
            parts.append(_("Reception {modifier:+d}").format(modifier=m.value))
    except IllegalActionError as exc:
        parts.append(str(exc))
    return " · ".join(parts)


class TakkureMeasureScreen(Screen):
    action = StringProperty("")             # the declared roll, e.g. "Pass: Kaze"
    status = StringProperty("")
    pair_text = StringProperty("")
    verdict_lines = ListProperty(["", "", ""])
    modifiers = StringProperty("")
    use_text = StringProperty("")
    can_use = BooleanProperty(False)
    source_text = StringProperty("")

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.live: Any = None
        self.names: dict[int, str] = {}
        self.selected: list[int] = []
        self.pair: Any = None
        self.kind: str | None = None
        self.reading: Any = None
        self.on_use: Callable[[float], bool] | None = None
        self.last_frame: Any = None
        self._event: Any = None
        # opens the camera again for the same roll (set by whoever opened this view)
        self.reopen: Callable[[], None] | None = None
        self._resume = False

    # -- life ----------------------------------------------------------------------------
    def start(self, live: Any, source_text: str, *, action: str, kind: str | None,
              preselect: list[str], on_use: Callable[[float], bool]) -> None:
        """Begin measuring for a declared action (``kind``: "pass", "reception" or None)."""
        self.stop()
        self.live, self.source_text = live, source_text
        self.action, self.kind, self.on_use = action, kind, on_use
        table = live.measurer.table
        self.names = {p.id: (p.name or _("marker {number}").format(number=p.id))
                      for p in table.pieces}
        by_name = {n: i for i, n in self.names.items()}
        self.selected = [by_name[n] for n in preselect if n in by_name][:2]
        self.pair = None
        self.reading = None
        self._new_pair()
        self._show_reading()
        self.status = _("Starting the camera…")
        live.start()
        self._event = Clock.schedule_interval(self.poll, 1.0 / POLL_HZ)

    def stop_workers(self) -> None:
        self.stop()

    def pause_workers(self) -> None:
        """The app is paused: the camera is given back to the system."""
        self._resume = self.live is not None and self.manager is not None \
            and self.manager.current == self.name
        self.stop()

    def resume_workers(self) -> None:
        """Back from a pause while measuring: the camera is opened again for the same roll
        (the players picked stay picked)."""
        if getattr(self, "_resume", False) and self.reopen is not None:
            self._resume = False
            self.reopen()

    def stop(self) -> None:
        if self._event is not None:
            self._event.cancel()
            self._event = None
        if self.live is not None:
            self.live.stop()
            self.live = None

    def on_leave(self, *args: Any) -> None:
        self.stop()

    # -- frames --------------------------------------------------------------------------
    def poll(self, *args: Any) -> None:
        if self.live is None:
            return
        frame = self.live.mailbox.take()
        if frame is None:
            return
        self.last_frame = frame
        view: CameraView = self.ids.view
        if frame.image.shape[0] > 1:
            view.show(frame.image)
        m = frame.measurement
        if m is None:
            self.status = frame.error
        else:
            seen = ", ".join(self.names.get(p.id, str(p.id)) for p in m.pieces) or _("no piece")
            self.status = (_("{anchors} anchors, table fit {fit_in:.3f}\" · seen: {seen}").format(
                anchors=len(m.anchors), fit_in=m.reprojection_error_in, seen=seen)
                + ("" if not m.warnings else " · " + m.warnings[0]))
        if self.pair is not None:
            self.reading = self.pair.feed(m, frame.all_anchors)
        self._show_reading()
        if m is not None and m.fit is not None:
            t = self.live.measurer.table if self.live is not None else None
            if t is not None:
                corners = m.fit.to_image(np.array([[-1.5, -1.5], [t.width_in + 1.5, -1.5],
                                                   [t.width_in + 1.5, t.length_in + 1.5],
                                                   [-1.5, t.length_in + 1.5]]))
                view.set_crop((float(corners[:, 0].min()), float(corners[:, 1].min()),
                               float(corners[:, 0].max()), float(corners[:, 1].max())))
        view.overlays = self._overlays(m)
        view.redraw()

    def _overlays(self, m: Any) -> list[tuple[str, Any]]:
        out: list[tuple[str, Any]] = []
        if m is None or m.fit is None:
            return out
        for p in m.pieces:
            chosen = p.id in self.selected
            base = m.fit.circle(p.x_in, p.y_in, p.radius_in)
            ring = m.fit.circle(p.x_in, p.y_in, p.radius_in + PRESSURE_IN)
            out.append(("poly", (ring, (1.0, 0.62, 0.15, 0.55), 1.2)))
            out.append(("poly", (base, (0.3, 0.8, 1.0, 1) if chosen else (1, 1, 1, 0.9),
                                 3 if chosen else 1.6)))
            top = m.fit.to_image(np.array([[p.x_in, p.y_in - p.radius_in]]))[0]
            out.append(("text", ((float(top[0]), float(top[1]) - 6), self.names.get(p.id, str(p.id)),
                                 (1, 1, 1, 1))))
        if len(self.selected) == 2:
            a, b = (m.piece(i) for i in self.selected)
            if a is not None and b is not None:
                line = m.fit.to_image(np.array([[a.x_in, a.y_in], [b.x_in, b.y_in]]))
                out.append(("poly", (line, (0.3, 0.8, 1.0, 1), 2)))
        return out

    def _show_reading(self) -> None:
        r = self.reading
        names = [self.names.get(i, str(i)) for i in self.selected]
        if len(self.selected) < 2:
            self.pair_text = (_("Tap two players on the image") if not names else
                              _("{player} to ...: tap the other player").format(player=names[0]))
            self.verdict_lines, self.modifiers, self.can_use = ["", "", ""], "", False
            self.use_text = _("Use the distance")
            return
        head = _("{player} to {other}").format(player=names[0], other=names[1])
        if r is None or not r.steady:
            waiting = _("waiting for a frame")
            self.pair_text = _("{pair}: {what}").format(pair=head,
                                                        what=r.reason if r is not None else waiting)
            self.verdict_lines, self.modifiers, self.can_use = ["", "", ""], "", False
            self.use_text = _("Use the distance")
            return
        u2 = 2 * r.uncertainty_in
        self.pair_text = _("{pair}: {what}").format(
            pair=head, what=_("{distance_in:.2f}\" edge to edge (±{uncertainty_in:.2f}\")").format(
                distance_in=r.edge_in, uncertainty_in=u2))
        lines = []
        for bound, v in r.verdicts:
            if v == "within":
                word = _("within {bound_in:g}\"").format(bound_in=bound)
            elif v == "beyond":
                word = _("beyond {bound_in:g}\"").format(bound_in=bound)
            else:
                word = _("{bound_in:g}\": too close to call: measure by hand").format(bound_in=bound)
            lines.append(word)
        self.verdict_lines = lines
        close = [b for b, v in r.verdicts if v == "too close to call"]
        self.modifiers = (_("Measure by hand: too close to {bounds}").format(
            bounds=_(" and ").join(f"{b:g}\"" for b in close))
                          if close else modifiers_text(r.edge_in, self.kind))
        self.can_use = not close and self.on_use is not None
        self.use_text = (_("Use {distance_in:.2f}\"").format(distance_in=r.edge_in) if not close
                         else _("Measure by hand"))

    # -- taps ----------------------------------------------------------------------------
    def tap_image(self, wx: float, wy: float) -> bool:
        frame = self.last_frame
        if frame is None or frame.measurement is None:
            return False
        m = frame.measurement
        px, py = self.ids.view.to_image(wx, wy)
        best, best_d = None, float("inf")
        for p in m.pieces:
            cx, cy = m.fit.to_image(np.array([[p.x_in, p.y_in]]))[0]
            edge = m.fit.to_image(np.array([[p.x_in + p.radius_in, p.y_in]]))[0]
            r = max(math.dist((cx, cy), edge), 20.0)
            d = math.dist((px, py), (cx, cy))
            if d <= r * 1.6 and d < best_d:
                best, best_d = p.id, d
        if best is None:
            return False
        self.select(best)
        return True

    def select(self, marker_id: int) -> None:
        if marker_id in self.selected:
            self.selected.remove(marker_id)
        else:
            self.selected = (self.selected + [marker_id])[-2:]
        self._new_pair()
        self._show_reading()

    def _new_pair(self) -> None:
        from vision.verdict import SteadyPair

        self.pair = SteadyPair(*self.selected) if len(self.selected) == 2 else None
        self.reading = None

    def use(self) -> None:
        r = self.reading
        if not self.can_use or r is None or self.on_use is None:
            return
        if self.on_use(round(r.edge_in, 2)):
            App.get_running_app().go("takkure_game")

    def back(self) -> None:
        App.get_running_app().go("takkure_game")

    def calibrate(self) -> None:
        self.stop()
        App.get_running_app().open_calibration("takkure_game")


class CameraTouch(CameraView):
    def on_touch_down(self, touch: Any) -> bool:
        if self.collide_point(*touch.pos):
            screen = self.parent
            while screen is not None and not isinstance(screen, TakkureMeasureScreen):
                screen = screen.parent
            if screen is not None and screen.tap_image(*touch.pos):
                return True
        return super().on_touch_down(touch)


load_kv(__package__, "takkure_measure.kv")
