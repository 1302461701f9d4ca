"""The camera dice tower and the app (Xvfb): a rendered throw of King of Tokyo dice (they
fall in, settle, are taken out) is read by the camera tower on a real pseudo-terminal; the
app's link receives it and the King of Tokyo Duel screen shows the faces. A tower with no
camera still connects, and the dice panel says "camera missing"."""

from __future__ import annotations

from collections import Counter

import pytest

from tests.camera_tower_support import PtyCameraTower, throw
from tests.gui_support import TOWER_URL, on_screen, wait_for
from tests.test_app_kotd import dice_widgets, new_duel
from tests.test_camera_tower import LateCamera

pytestmark = pytest.mark.gui


@pytest.fixture
def camera_tower(app, tmp_path):
    """A camera tower on a pty; the app's link moved onto it and back afterwards."""
    def start(source=None) -> PtyCameraTower:
        tower = PtyCameraTower(tmp_path, source=source, seed=len(started) + 31)
        started.append(tower)
        wait_for(lambda: app.roll_journal is not None, what="the tower link's start")
        app.connect_tower(tower.path)
        wait_for(lambda: app.tower_state == "connected", timeout=10,
                 what=lambda: f"the camera tower ({app.tower_state}: {app.tower_detail})")
        return tower

    started: list[PtyCameraTower] = []
    yield start
    app.connect_tower(TOWER_URL)
    for tower in started:
        tower.stop()
    wait_for(lambda: app.tower_state == "connected", timeout=10, what="back on sim://")


def test_a_camera_read_throw_shows_its_faces_on_the_duel_screen(app, camera_tower):
    tower = camera_tower()
    assert app.tower_detail.startswith("camera-tower 1.2.0 on ")
    game = new_duel(app)
    s = app.session
    assert "throw 5 dice" in game.status
    frames, truth = throw(21, 5)
    tower.play(frames)
    wait_for(lambda: s.state.rolls == 1, timeout=30, what="the camera tower's throw in the game")
    assert on_screen(app, "kotd_game")
    assert Counter(w.text for w in dice_widgets(game)) == truth
    assert Counter(d.face for d in s.state.dice) == truth and not s.state.pending
    assert s.actions[-1].type == "dice.roll" and game.title.endswith("roll 1/3")


def test_no_camera_the_dice_panel_says_camera_missing(app, camera_tower):
    camera_tower(LateCamera([], missing=10**6))
    assert app.tower_detail.startswith("camera-tower 1.2.0; camera missing on ")
    app.go("dice")
    panel = app.root.get_screen("dice")
    wait_for(lambda: "camera missing" in panel.ids.detail.text, what="the dice panel")
    app.go("home")
