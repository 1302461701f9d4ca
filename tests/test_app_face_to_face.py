"""Face to face: the far player's half of a two-player screen turned 180 degrees toward them,
with touches turned too, and the choice remembered per game (run under Xvfb)."""

from __future__ import annotations

import json

import pytest

from companion.app import face_to_face
from companion.errors import CompanionError
from tests.gui_support import close_popups, on_screen, pump, tap, wait_for

pytestmark = pytest.mark.gui


def tekken_game(app):
    close_popups(app)
    app.go("home")
    wait_for(lambda: on_screen(app, "home"), what="home")
    tap(app.root.get_screen("home").ids.tile_tekken)
    wait_for(lambda: on_screen(app, "tekken_setup"), what="the set-up")
    before = app.session
    tap(app.root.get_screen("tekken_setup").ids.start)
    wait_for(lambda: app.session is not before and on_screen(app, "tekken_game"),
             what="the new game")
    return app.root.get_screen("tekken_game")


def test_tekken_face_to_face_turns_the_second_half_and_its_touches(app):
    game = tekken_game(app)
    panel = game.ids.fighter1
    minus = panel.ids.minus
    app.act("tekken.adjust_hp", player=1, delta=-2, reason="manual")   # so +1 is allowed
    pump(4)
    hp = [f.hp for f in app.session.state.fighters]
    upright = minus.to_window(*minus.center)
    assert game.ids.turn1.rotation == 0
    tap(game.ids.face_to_face)                              # the toggle in the top bar
    wait_for(lambda: app.face_to_face.get("tekken"), what="face to face on")
    pump(4)
    assert game.ids.turn1.rotation == pytest.approx(180)
    turned = minus.to_window(*minus.center)
    # the -1 HP button is drawn upside down in the same half: mirrored about its centre
    half = game.ids.turn1
    cx, cy = half.parent.to_window(*half.center)
    assert turned[0] - upright[0] > 40                      # from the left of the half to its right
    assert turned == pytest.approx((2 * cx - upright[0], 2 * cy - upright[1]), abs=2)
    # a finger where the button is drawn now changes the far player's HP, and only theirs
    tap(minus)
    assert [f.hp for f in app.session.state.fighters] == [hp[0], hp[1] - 1]
    tap(panel.ids.plus)
    assert [f.hp for f in app.session.state.fighters] == hp
    # the near player's half is not turned: its button is where the far one's was
    near = game.ids.fighter0.ids.minus
    assert near.to_window(*near.center)[1] == pytest.approx(upright[1], abs=2)


def test_face_to_face_is_remembered_per_game(app):
    game = tekken_game(app)
    app.set_face_to_face("tekken", True)
    wait_for(lambda: not app.busy, what="the setting written")
    path = app.data_root / face_to_face.FILE
    assert json.loads(path.read_text()) == ["tekken"]
    assert face_to_face.load(app.data_root) == {"tekken"}
    assert game.ids.turn1.rotation == pytest.approx(180)
    app.set_face_to_face("tekken", False)
    wait_for(lambda: not app.busy, what="the setting written")
    pump(3)
    assert json.loads(path.read_text()) == []
    assert game.ids.turn1.rotation == pytest.approx(0)


def test_a_damaged_setting_file_is_named(tmp_path):
    (tmp_path / face_to_face.FILE).write_text('{"tekken": true}')
    with pytest.raises(CompanionError, match=r"face_to_face\.json: expected a list of game ids"):
        face_to_face.load(tmp_path)
    (tmp_path / face_to_face.FILE).write_text("[tekken")
    with pytest.raises(CompanionError, match=r"face_to_face\.json: line 1: not JSON"):
        face_to_face.load(tmp_path)
    (tmp_path / face_to_face.FILE).unlink()
    assert face_to_face.load(tmp_path) == set()


def test_king_of_tokyo_duel_face_to_face_turns_the_second_monster(app):
    from tests.test_app_kotd import new_duel

    game = new_duel(app)
    panel = game.ids.monster1
    pull = panel.ids.pull_fame
    upright = pull.to_window(*pull.center)
    tap(game.ids.face_to_face)
    wait_for(lambda: "kotd" in app.face_to_face, what="face to face on")
    pump(4)
    assert game.ids.turn1.rotation == pytest.approx(180)
    half = game.ids.turn1
    cx, cy = half.parent.to_window(*half.center)
    turned = pull.to_window(*pull.center)
    assert turned == pytest.approx((2 * cx - upright[0], 2 * cy - upright[1]), abs=2)
    before = app.session.state.track("fame")
    tap(pull)                                   # where Pull Fame is drawn on the turned half
    after = app.session.state.track("fame")
    assert after != before
    undo = app.session.next_undo_text()
    assert app.session.state.monsters[1].name in undo   # pulled toward the far monster
    app.set_face_to_face("kotd", False)
    wait_for(lambda: not app.busy, what="the setting written")


def test_tag_team_face_to_face_turns_the_second_players_half(app):
    from tests.test_app_tagteam import new_fight

    game = new_fight(app)
    tap(game.ids.face_to_face)
    wait_for(lambda: "tagteam" in app.face_to_face, what="face to face on")
    pump(4)
    assert game.ids.turn1.rotation == pytest.approx(180)
    attack = game.ids.entry1.ids.attack
    half = game.ids.turn1
    cx, cy = half.parent.to_window(*half.center)
    x, y = attack.to_window(*attack.center)
    assert x > cx and y > cy          # Attack, drawn at the top right of the turned half
    tap(attack)                                 # ... is player 2's, and only theirs
    assert game.entries[1].attack and not game.entries[0].attack
    app.set_face_to_face("tagteam", False)
    wait_for(lambda: not app.busy, what="the setting written")
