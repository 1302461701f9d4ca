"""Teach a die and the Tray view without a camera tower (issue 28): the dice panel offers the
demo camera tower, which is the real camera tower program on a local socket, its camera a
renderer. A player can teach it a die and see its tray; its throws reach no game, no dice
statistics and not the app's roll journal; leaving the dice screens brings the real tower
back. Run under Xvfb."""

from __future__ import annotations

import pytest

from tests.gui_support import TOWER_URL, on_screen, tap, wait_for

pytestmark = pytest.mark.gui


def _accept(app) -> None:
    from kivy.core.window import Window
    from kivy.uix.popup import Popup

    popup = next(w for w in Window.children if isinstance(w, Popup))
    assert "demo camera tower" in popup.content.message.lower()
    assert "protocol 1.1" in popup.content.message          # it says why first
    tap(popup.content.ids.ok)


def test_a_die_is_taught_to_the_demo_camera_tower(app, dice_panel):
    panel = dice_panel
    assert app.teach_why and panel.ids.teach.text == "Teach a die (demo)"
    recorded = app.roll_journal.recorded_count
    tap(panel.ids.teach)
    _accept(app)
    wait_for(lambda: app.tower_demo and app.tower_state == "connected" and not app.teach_why,
             timeout=20, what=lambda: f"the demo tower ({app.tower_state}: {app.tower_detail})")
    wait_for(lambda: on_screen(app, "teach"), what="Teach a die on the demo tower")
    assert app.tower_detail.startswith("Demo camera tower on this tablet, protocol 1.3")
    teach = app.root.get_screen("teach")
    assert teach.ids.pick_demo.opacity == 1                 # marked as a demo
    spawn = next(b for b in teach.ids.kinds.children if b.text == "Danchie Go spawn die")
    tap(spawn)
    wait_for(lambda: teach.phase == "teaching", what="teaching")
    bar = teach.ids.teach_demo
    assert bar.throw_kind == "spawn" and not bar.ids.demo_throw.disabled
    tap(bar.ids.demo_throw)
    wait_for(lambda: teach.picture_id, timeout=30, what="a picture of a spawn die to name")
    faces = dict(teach.faces)
    face = teach.guess or next(iter(faces))
    teach.answer(face)
    wait_for(lambda: dict(teach.faces)[face] == faces[face] + 1, timeout=10,
             what="the answer counted by the tower")
    teach.cancel()
    wait_for(lambda: on_screen(app, "dice"), what="back on the dice panel")
    assert app.roll_journal.recorded_count == recorded      # nothing in the real journal


def test_the_demo_tray_is_seen_and_its_throws_reach_no_game(app, dice_panel):
    from tests.test_app_kotd import new_duel

    game = new_duel(app)
    session = app.session
    actions = len(session.actions)
    app.open_dice()
    wait_for(lambda: on_screen(app, "dice"), what="the dice panel")
    recorded = app.roll_journal.recorded_count
    tap(dice_panel.ids.tray)
    _accept(app)
    wait_for(lambda: app.tower_demo and on_screen(app, "tray"), timeout=20, what="the demo tray")
    tray = app.root.get_screen("tray")
    tap(tray.ids.tray_demo.ids.demo_throw)
    wait_for(lambda: app.last_roll_note.startswith("Demo camera tower"), timeout=30,
             what="the demo throw read")
    assert len(app.last_roll) == 3 and all(d["kind"] == "kotd" for d in app.last_roll)
    tray.refresh()
    wait_for(lambda: tray.has_picture, timeout=20, what="the tray's picture")
    assert len(session.actions) == actions and app.roll_journal.recorded_count == recorded
    # leaving the dice screens ends the demo: the simulated tower is back, the duel untouched
    app.go("kotd_game")
    wait_for(lambda: not app.tower_demo and app.tower_link.url == TOWER_URL, what="the demo ended")
    wait_for(lambda: app.tower_state == "connected", timeout=10, what="the simulated tower again")
    assert app.teach_why and game.session is session and len(session.actions) == actions
