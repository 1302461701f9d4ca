"""The camera dice tower and the app (Xvfb): a rendered throw of King of Tokyo dice (they
fall in, settle, are taken out) is read by the camera tower on a real pseudo-terminal; the
app's link receives it and the King of Tokyo Duel screen shows the faces; a throw of
Takkure's red and yellow D12s fills each coach's side of the roll panel by colour. A tower
with no camera still connects, and the dice panel says "camera missing"."""

from __future__ import annotations

from collections import Counter

import pytest

from tests.camera_tower_support import PtyCameraTower, throw
from tests.gui_support import TOWER_URL, on_screen, tap, wait_for
from tests.test_app_kotd import dice_widgets, new_duel
from tests.test_camera_tower import LateCamera

pytestmark = pytest.mark.gui


@pytest.fixture
def camera_tower(app, tmp_path):
    """A camera tower on a pty; the app's link moved onto it and back afterwards."""
    def start(source=None, profile=None) -> PtyCameraTower:
        tower = PtyCameraTower(tmp_path, source=source, profile=profile, seed=len(started) + 31)
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
    assert app.tower_detail.startswith("camera-tower 1.3.0 on ")
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


def test_a_camera_read_throw_of_red_and_yellow_d12s_fills_takkures_roll_panel(app, camera_tower):
    import re

    from tests.camera_tower_support import STYLE
    from tests.test_app_takkure import card, new_match, plain
    from vision.dice.bench import teach_tower
    from vision.dice.render import throw_sequence

    tower = camera_tower(profile=teach_tower(STYLE, 41, kinds=["d12"]))  # red and yellow
    game = new_match(app)
    tap(card(game, 0, 3).ids.ball)                             # Yokozuna carries the ball
    game.choose_kind("tackle_break")
    tap(card(game, 0, 3).ids.pick)
    tap(card(game, 1, 3).ids.pick)                             # Onslaught: 2 red, 1 yellow
    frames = throw_sequence(3, n_dice=3, kinds=["d12"], style=STYLE)
    truth = next(f for f in frames if f.phase == "settled").truth
    assert sorted(t.colour for t in truth) == ["red", "red", "yellow"]
    tower.play([f.image for f in frames])
    wait_for(lambda: game.explanation, timeout=30, what="the camera tower's dice in the panel")
    said = plain(game.explanation)
    red = re.search(r"Yokozuna: STR 8; rolled ([\d, ]+?)(?:, kept|:)", said)
    yellow = re.search(r"Oso: STR 9; rolled ([\d, ]+?)(?:, kept|:)", said)
    assert red and yellow, said
    assert Counter(red[1].split(", ")) == Counter(t.face for t in truth if t.colour == "red")
    assert yellow[1] == next(t.face for t in truth if t.colour == "yellow")
    tap(game.ids.record)
    done = app.session.actions[-1]
    assert done.type == "takkure.roll" and done.data["source"] == "tower"
    assert Counter(d for r in done.data["rolls"] for d in r["dice"]) == Counter(
        int(t.face) for t in truth)
    # the roll journal keeps how sure the camera was of each die
    journal = app.roll_journal.recent_rolls()[-1]
    assert all(d.clean and 0.5 <= d.confidence <= 1 for d in journal.dice)


def test_no_camera_the_dice_panel_says_camera_missing(app, camera_tower):
    camera_tower(LateCamera([], missing=10**6))
    assert app.tower_detail.startswith("camera-tower 1.3.0; camera missing on ")
    app.go("dice")
    panel = app.root.get_screen("dice")
    wait_for(lambda: "camera missing" in panel.ids.detail.text, what="the dice panel")
    app.go("home")
