"""King of Tokyo Duel in the real window (Xvfb): the simulated tower throws over a
pseudo-terminal, the screen shows the dice, the player keeps, throws again, sets a cocked
die by hand, sees the resolution and applies it."""

from __future__ import annotations

import pytest

from tests.gui_support import close_popups, on_screen, open_from_home, plain, pump, tap, wait_for

pytestmark = pytest.mark.gui


def screen(app, name="kotd_game"):
    return app.root.get_screen(name)


def new_duel(app, first=0):
    setup = open_from_home(app, "kotd", "kotd_setup", "the duel set-up")
    setup.choose(0, "Gigazaur")
    setup.choose(1, "Alienoid")
    tap(setup.ids[f"first{first}"])
    before = app.session
    tap(setup.ids.start)
    wait_for(lambda: app.session is not before and on_screen(app, "kotd_game"), what="the duel")
    return screen(app)


def dice_widgets(game):
    return list(reversed(game.ids.dice.children))


def test_a_turn_with_tower_rolls_over_a_pty_keep_reroll_cocked_die_resolve(app, pty_tower):
    game = new_duel(app)
    s = app.session
    assert game.title == "Turn 1 · Gigazaur · roll 0/3" and "throw 5 dice" in game.status
    pty_tower.roll("kotd:black:FAME kotd:black:FAME kotd:black:CLAW kotd:black:HEART "
                   "kotd:black:ENERGY")
    wait_for(lambda: s.state.rolls == 1, what="the first throw in the game")
    assert [w.text for w in dice_widgets(game)] == ["FAME", "FAME", "CLAW", "HEART", "ENERGY"]
    assert s.actions[-1].type == "dice.roll" and game.title.endswith("roll 1/3")
    tap(dice_widgets(game)[0])
    tap(dice_widgets(game)[1])
    assert [d.kept for d in s.state.dice] == [True, True, False, False, False]
    assert "throw the other 3" in game.status
    # the second throw: 3 dice, one of them cocked
    pty_tower.roll("kotd:black:FAME kotd:black:CLAW kotd:black:?cocked")
    wait_for(lambda: s.state.rolls == 2, what="the second throw")
    assert s.state.pending == (4,) and "not read cleanly" in game.status
    assert game.ids.resolve.disabled                   # nothing on a partial roll
    cocked = dice_widgets(game)[4]
    assert cocked.text == "?" and cocked.pending
    tap(cocked)
    tap(game.ids.face_fame)                            # set it by hand
    assert s.state.dice[4].face == "FAME" and not game.ids.resolve.disabled
    tap(game.ids.resolve)
    view = wait_for(lambda: game.resolve_view, what="the resolution")
    assert plain(view.lines) == ("1 CLAW: Alienoid -1 HP\n"
                                 "4 FAME: pull the Fame pawn 2 cells")
    tap(view.ids.apply)
    st = s.state
    assert st.phase == "buy" and st.monsters[1].hp == 9 and st.track("fame").pawn == 3
    assert game.ids.track_fame.ids.cells.children[::-1][3].pawn == "F"
    tap(game.ids.gain)
    tap(game.ids.end_turn)
    assert s.state.current == 1 and game.title == "Turn 2 · Alienoid · roll 0/3"
    # undo takes back the end of the turn, then the energy
    tap(game.ids.undo)
    tap(game.ids.undo)
    assert s.state.phase == "buy" and s.state.monsters[0].energy == 0


def test_typed_faces_make_a_roll_when_no_tower_throws(app):
    game = new_duel(app, first=1)                      # Alienoid starts with 5 dice
    s = app.session
    faces = {b.face: b for b in game.ids.face_claw.parent.children}
    for face in ("CLAW", "CLAW", "CLAW", "HEART"):
        tap(faces[face])
    assert s.state.rolls == 0 and game.typed_text.startswith("CLAW CLAW CLAW HEART")
    tap(faces["POWER"])                                # the 5th face completes the throw
    assert s.state.rolls == 1 and s.actions[-1].type == "kotd.roll"
    tap(game.ids.resolve)
    view = wait_for(lambda: game.resolve_view, what="the resolution")
    assert "3 CLAW: Gigazaur -3 HP" in view.lines and "1 POWER: Alienoid's power" in view.lines
    tap(view.ids.back)                                 # back to the dice: nothing applied
    assert s.state.phase == "roll" and s.state.monsters[0].hp == 10
    pump(2)


def test_default_hp_is_marked_editable_and_saved_as_the_users_defaults(app):
    from companion.config import load_typed
    from companion.games.kotd import KotdConfig

    close_popups(app)
    app.game_configs.pop("kotd", None)
    app.go("home")
    wait_for(lambda: on_screen(app, "home"))
    tap(screen(app, "home").ids.tile_kotd)
    wait_for(lambda: on_screen(app, "kotd_setup"))
    setup = screen(app, "kotd_setup")
    setup.choose(0, "Cyber Kitty")
    setup.choose(1, "Space Penguin")
    assert setup.hints[0].startswith("Starting HP is a default")
    for _ in range(2):
        tap(setup.ids.hp_plus0)
    assert setup.hps[0] == 12 and not setup.hints[0].startswith("Starting HP is a default")
    tap(setup.ids.save_defaults)
    path = app.data_root / "config" / "kotd.yaml"
    wait_for(lambda: path.exists() and not app.busy, what="the user's kotd.yaml")
    kitty = load_typed(KotdConfig, path).monster("Cyber Kitty")
    assert kitty.hp == 12 and "hp" not in kitty.defaults and "power" in kitty.defaults
    before = app.session
    tap(setup.ids.start)
    wait_for(lambda: app.session is not before and on_screen(app, "kotd_game"))
    assert app.session.state.monsters[0].max_hp == 12 == app.session.state.monsters[0].hp
    path.unlink()
    app.game_configs.pop("kotd", None)


def test_end_turn_shows_and_gains_the_free_energy_of_a_turn_without_purchase(app):
    """3. ACHETER DES CARTES ÉNERGIE OU GAGNER 1⚡: a turn with no purchase gains 1 energy;
    the End turn button says so and cannot skip it."""
    game = new_duel(app)
    s = app.session
    s.do("kotd.roll", faces=["HEART", "HEART", "CLAW", "CLAW", "POWER"])
    s.do("kotd.resolve")
    pump()
    assert game.ids.end_turn.text == "End turn (+1 energy)" and not game.ids.end_turn.disabled
    tap(game.ids.end_turn)
    assert s.state.current == 1 and s.state.monsters[0].energy == 1
    assert "Gigazaur buys nothing: +1 energy" in s.log()[-1].text
    assert game.ids.end_turn.text == "End turn"        # the next turn is in its roll phase


def test_typed_faces_do_not_carry_into_another_throw(app):
    """Faces typed by hand belong to the throw being typed: a tower throw (or an undo) in
    between starts the next throw with none typed."""
    from firmware_bridge.host.urlhandlers import protocol_sim
    from tests.gui_support import TOWER_NAME

    game = new_duel(app)
    s = app.session
    wait_for(lambda: app.tower_state == "connected", what="the simulated tower")
    tap(game.ids.face_fame)
    tap(game.ids.face_claw)
    assert game.typed == ["FAME", "CLAW"]
    protocol_sim.hub(TOWER_NAME).roll("kotd:black:FAME kotd:black:FAME kotd:black:CLAW "
                                      "kotd:black:HEART kotd:black:ENERGY")
    wait_for(lambda: s.state.rolls == 1, what="the tower's throw")
    assert game.typed == [] and "FAME" not in game.typed_text
    tap(dice_widgets(game)[0])                          # keep one: 4 to throw again
    tap(game.ids.face_claw)
    assert game.typed == ["CLAW"]
    app.undo()                                          # the keep is taken back: 5 to throw
    wait_for(lambda: not s.state.dice[0].kept, what="the undo")
    pump(3)
    assert game.typed == []


def test_players_names_typed_at_set_up_stand_beside_their_monsters(app):
    setup = open_from_home(app, "kotd", "kotd_setup", "the duel set-up")
    setup.choose(0, "Gigazaur")
    setup.choose(1, "Alienoid")
    setup.ids.player_name0.text = "  Ana "
    setup.ids.player_name1.text = ""
    before = app.session
    tap(setup.ids.start)
    wait_for(lambda: app.session is not before and on_screen(app, "kotd_game"), what="the duel")
    game = screen(app)
    assert [m.player for m in app.session.state.monsters] == ["Ana", ""]
    assert game.ids.monster0.name_text == "Gigazaur · Ana"
    assert game.ids.monster1.name_text == "Alienoid"
    setup.ids.player_name0.text = ""


def test_the_monsters_adjust_buttons_follow_what_the_rules_allow(app):
    """-1 HP is open at full HP, +1 HP is not; after -1 HP both are. (The buttons read
    ``root.can.get(...)``, which kv never re-evaluated: they kept their state from when the
    screen was built.)"""
    game = new_duel(app)
    panel = game.ids.monster0
    assert not panel.ids.hp_minus.disabled and panel.ids.hp_plus.disabled
    tap(panel.ids.hp_minus)
    assert app.session.state.monsters[0].hp == app.session.state.monsters[0].max_hp - 1
    assert not panel.ids.hp_plus.disabled and not panel.ids.hp_minus.disabled
    for key in ("hp_minus", "hp_plus", "en_minus", "en_plus", "tok_minus", "tok_plus"):
        assert panel.ids[key].disabled is not panel.can[key], key


def test_a_greyed_action_says_why_in_the_rules_words(app):
    game = new_duel(app)
    assert game.ids.resolve.disabled                                   # nothing thrown yet
    tap(game.ids.resolve)
    expected = app.session.why_not("kotd.resolve")
    assert expected and app.toast_widget is not None and app.toast_widget.text == expected
    assert app.session.actions == ()                                   # nothing was done
