"""Takkure's camera measuring view in the real window (Xvfb), on the demo scene (no camera
here): declare a pass, open the camera, tap the passer's and the receiver's miniatures on
the image, wait for a steady reading, check its distance against the renderer's truth, use
it, and find it recorded with the roll."""

from __future__ import annotations

import math

import pytest

from tests.gui_support import on_screen, plain, tap, wait_for
from tests.test_app_takkure import card, choose_roll, key, new_match, screen

pytestmark = pytest.mark.gui


def tap_piece(view, m, marker_id):
    from kivy.tests.common import UnitTestTouch

    p = m.piece(marker_id)
    px, py = m.fit.to_image([[p.x_in, p.y_in]])[0]
    x, y = view.to_widget(px, py)
    wx, wy = view.to_window(x, y)
    touch = UnitTestTouch(wx, wy)
    touch.touch_down()
    touch.touch_up()


def test_a_pass_measured_by_the_demo_camera_is_used_and_recorded(app):
    game = new_match(app)
    tap(card(game, 0, 2).ids.ball)                        # only the carrier passes
    choose_roll(app, game, "Pass")
    tap(card(game, 0, 2).ids.pick)                        # Tetsu passes
    assert game.needs_distance and not game.ids.camera.disabled
    tap(game.ids.camera)
    wait_for(lambda: on_screen(app, "takkure_measure"), timeout=15, what="the measuring view")
    mv = screen(app, "takkure_measure")
    assert mv.action == "Pass: Tetsu" and mv.source_text.startswith("Demo scene")
    assert mv.pair_text == "Tetsu to ...: tap the other player", (mv.names, mv.selected)
    # a piece shows once it has held for the steady-frame count (vision.capture.STEADY_FRAMES)
    frame = wait_for(lambda: mv.last_frame is not None and mv.last_frame.measurement is not None
                     and mv.last_frame.measurement.pieces and mv.last_frame, timeout=10,
                     what="a measured frame with its pieces steady")
    m = frame.measurement
    assert len(m.pieces) == len(mv.names) >= 8 and frame.all_anchors and not m.missing_pieces
    names = {v: k for k, v in mv.names.items()}
    demo = mv.live.source                 # the demo knows where it put the miniatures
    truth = {p.id: p for p in demo.scene.pieces}

    def true_edge(x, y):
        a, b = truth[names[x]], truth[names[y]]
        return math.hypot(a.x_in - b.x_in, a.y_in - b.y_in) - (a.base_mm + b.base_mm) / 25.4 / 2

    # a receiver whose distance is clear of the 2/4/8" guard bands
    receiver = next(n for n in names if n != "Tetsu" and min(
        abs(true_edge("Tetsu", n) - bound) for bound in (2, 4, 8)) > 0.1)
    tap_piece(mv.ids.view, m, names[receiver])
    assert mv.selected == [names["Tetsu"], names[receiver]]
    wait_for(lambda: mv.reading is not None and mv.reading.steady, timeout=10,
             what=lambda: f"a steady reading ({mv.pair_text})")
    r = mv.reading
    assert abs(r.edge_in - true_edge("Tetsu", receiver)) < 0.01
    assert mv.pair_text.startswith(f"Tetsu to {receiver}: {r.edge_in:.2f}\" edge to edge (±")
    assert all("too close" not in line for line in mv.verdict_lines)
    expected = (2.0, 4.0, 8.0)
    assert mv.verdict_lines == [("within" if r.edge_in <= b else "beyond") + f" {b:g}\""
                                for b in expected]
    assert mv.can_use and mv.use_text == f"Use {r.edge_in:.2f}\""
    assert plain(mv.modifiers).startswith("Pass ") and "Reception" not in mv.modifiers
    tap(mv.ids.use)
    wait_for(lambda: on_screen(app, "takkure_game"), what="back to the roll")
    assert mv.live is None                                    # the camera thread stopped
    assert game.panel.distance == round(r.edge_in, 2) and game.panel.distance_source == "camera"
    tap(key(game, 8))
    tap(game.ids.record)
    data = app.session.actions[-1].data
    assert (data["distance_in"], data["distance_source"]) == (round(r.edge_in, 2), "camera")


def test_back_leaves_the_distance_unset_and_stops_the_camera(app):
    game = new_match(app)
    choose_roll(app, game, "Ball reception")
    tap(game.ids.camera)
    wait_for(lambda: on_screen(app, "takkure_measure"), timeout=15, what="the measuring view")
    mv = screen(app, "takkure_measure")
    assert mv.pair_text == "Tap two players on the image" and not mv.can_use
    live = mv.live
    tap(mv.ids.back)
    wait_for(lambda: on_screen(app, "takkure_game"), what="back to the roll")
    assert mv.live is None and not live.running and game.panel.distance is None


def test_guided_calibration_on_the_demo_board_recovers_the_camera(app):
    import os
    from pathlib import Path

    from vision.config import load_camera

    app.open_calibration("home")
    wait_for(lambda: on_screen(app, "camera_calibrate"), timeout=15, what="the calibration")
    cal = screen(app, "camera_calibrate")
    assert cal.demo and cal.running and cal.ids.save.disabled
    wait_for(lambda: not cal.running, timeout=120, what=lambda: f"calibrating ({cal.progress_text})")
    assert cal.progress_text == "20 of 20 views" and cal.progress == 1.0, cal.warnings
    assert cal.result_text.startswith("Reprojection error 0.")
    truth = cal.run.source.camera                      # the demo's own camera
    cam = cal.camera
    assert abs(cam.camera_matrix[0][0] / truth.camera_matrix[0][0] - 1) < 0.01
    assert cal.ids.save.disabled and cal.ids.save.text == "Demo: nothing to save"
    # with a real camera, Save writes the file the measuring view reads
    cal.demo, cal.can_save = False, True
    tap(cal.ids.save)
    path = Path(os.environ["COMPANION_HOME"]) / "config" / "camera.yaml"
    wait_for(lambda: path.exists(), what="the camera file")
    assert load_camera(path) == cam
    path.unlink()
    tap(cal.ids.back)
    wait_for(lambda: on_screen(app, "home"), what="home")


def test_the_measuring_view_measures_only_the_pair_the_roll_needs(app):
    """Tackle vs Pass: the passer and the tackler are picked, but the pass is measured from
    the passer to the receiver: the tackler is not preselected on the image."""
    game = new_match(app)
    tap(card(game, 0, 2).ids.ball)                        # Tetsu carries
    choose_roll(app, game, "Tackle vs Pass")
    tap(card(game, 0, 2).ids.pick)                        # Tetsu passes
    tap(card(game, 1, 1).ids.pick)                        # Lince tackles
    assert card(game, 1, 1).picked
    tap(game.ids.camera)
    wait_for(lambda: on_screen(app, "takkure_measure"), timeout=15, what="the measuring view")
    mv = screen(app, "takkure_measure")
    assert mv.action == "Tackle vs Pass: Tetsu, Lince"
    assert [mv.names[i] for i in mv.selected] == ["Tetsu"]
    assert mv.pair_text == "Tetsu to ...: tap the other player"
    tap(mv.ids.back)
    wait_for(lambda: on_screen(app, "takkure_game"), what="back to the roll")
