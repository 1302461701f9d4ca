"""The Takkure screens, driven through the real window (under Xvfb) by taps.

The made-up demo roster (tests/takkure_support.py) is written as the user's roster file, as
the roster editor would; every test starts its own match through Home -> Takkure -> Start.
team 0 Yamato (red):  0 Kaze, 1 Hana, 2 Tetsu, 3 Yokozuna
team 1 Teriomorphs (yellow): 0 Kitsune, 1 Lince, 2 Lobo, 3 Oso
"""

from __future__ import annotations

import pytest

from companion.config import load_typed
from companion.games.takkure import TakkureConfig
from tests.gui_support import TOWER_NAME, close_popups, on_screen, plain, pump, tap, wait_for
from tests.takkure_support import write_demo_roster

pytestmark = pytest.mark.gui


def screen(app, name="takkure_game"):
    return app.root.get_screen(name)


def open_line_ups(app):
    """Home -> Takkure tile, with the demo roster as the user's roster file."""
    close_popups(app)
    write_demo_roster(app.data_root)
    app.game_configs.pop("takkure", None)
    app.go("home")
    wait_for(lambda: on_screen(app, "home"), what="home")
    tap(screen(app, "home").ids.tile_takkure)
    wait_for(lambda: on_screen(app, "takkure_setup"), what="the line-up screen")
    return screen(app, "takkure_setup")


def new_match(app):
    """Home -> Takkure tile -> Start the match; then Teriomorphs kick off, Yamato attack."""
    setup = open_line_ups(app)
    assert setup.problems == ["", ""] and not setup.ids.start.disabled
    before = app.session
    tap(setup.ids.start)
    wait_for(lambda: app.session is not before and on_screen(app, "takkure_game"),
             what="the new match")
    game = screen(app)
    assert game.phase == "kickoff" and not game.ids.kick1.disabled
    tap(game.ids.kick1)
    wait_for(lambda: game.phase == "play", what="the kick-off")
    return game


def choose_roll(app, game, title):
    """The roll panel's kind list, then one roll by its title."""
    tap(game.ids.kind)
    picker = wait_for(lambda: next((w for w in app.root_window.children
                                    if "grid" in getattr(w, "ids", {})), None), what="the roll list")
    tap(next(b for b in picker.ids.grid.children if b.text == title))


def card(game, team, index):
    return game.cards[team][index]


def slot(c, i):
    return next(s for s in c.ids.slots.children if s.slot == i)


def key(game, face):
    return next(b for b in game.ids.keypad.children if b.text == str(face))


def test_an_activation_fatigue_tackle_vs_dodge_explained_and_undone(app):
    game = new_match(app)
    s = app.session
    yokozuna, lince = card(game, 0, 3), card(game, 1, 1)
    assert "Yamato attack" in game.phase_text and game.pool == 4
    # activate Yokozuna: one tap
    tap(yokozuna.ids.activate)
    assert s.state.player(0, 3).activations == 1 and game.pool == 3
    # fatigue: tap the first empty slot (+1 active), tap the token (flip it inactive)
    assert [x.kind for x in sorted(yokozuna.ids.slots.children, key=lambda x: x.slot)] == ["empty"] * 4
    tap(slot(yokozuna, 0))
    assert s.state.player(0, 3).fatigue == (True,) and slot(yokozuna, 0).kind == "active"
    assert "lost: Onslaught, Sumo" in yokozuna.note          # 1 active token: skills off
    tap(slot(yokozuna, 0))
    assert s.state.player(0, 3).fatigue == (False,) and slot(yokozuna, 0).kind == "inactive"
    # Yokozuna has the ball (only the carrier is tackled); the roll: Tackle vs Dodge, from the list
    tap(yokozuna.ids.ball)
    assert s.state.ball == (0, 3)
    tap(game.ids.kind)
    picker = wait_for(lambda: next((w for w in app.root_window.children
                                    if "grid" in getattr(w, "ids", {})), None), what="the roll list")
    tap(next(b for b in picker.ids.grid.children if b.text == "Tackle vs Dodge"))
    assert game.kind_title == "Tackle vs Dodge"
    tap(yokozuna.ids.pick)                                     # the dodging carrier
    tap(lince.ids.pick)                                        # the tackler
    assert yokozuna.picked and lince.picked
    tap(game.ids.pressure_plus)
    assert "To do" not in game.prompt and game.ids.record.disabled
    tap(key(game, 6))                                          # Yokozuna's die (red)
    tap(key(game, 5))                                          # Lince's die (yellow)
    expected = ("Yokozuna: REF 6 -1 pressure = 5; rolled 6: fail; Lince: STR 7; rolled 5: "
                "success; Lince wins -> tackle succeeds: both GROUNDED, Yokozuna rolls ENDURANCE")
    assert plain(game.ids.explanation.text) == expected
    rows = list(reversed(game.ids.rollers.children))
    assert [[d.face for d in reversed(r.ids.dice.children)] for r in rows] == [["6"], ["5"]]
    n = len(s.actions)
    tap(game.ids.record)
    assert len(s.actions) == n + 1 and s.actions[-1].data["text"] == expected
    assert game.log_lines[0] == expected
    assert game.follow_texts == ["Lince GROUNDED", "Yokozuna GROUNDED", "ENDURANCE: Yokozuna",
                                 "Superstars +1 token"]
    # one tap per consequence
    grounded = next(b for b in game.ids.follow.children if b.text == "Lince GROUNDED")
    tap(grounded)
    assert s.state.player(1, 1).grounded and lince.grounded
    assert "Lince GROUNDED" not in game.follow_texts
    # undo the consequence, then the roll itself
    tap(game.ids.undo)
    assert not s.state.player(1, 1).grounded
    assert game.undo_text.startswith("Undo: Yokozuna: REF 6")
    tap(game.ids.undo)
    assert len(s.actions) == n and expected not in game.log_lines
    assert game.follow_texts == []                             # they followed an undone roll
    assert s.state.player(0, 3).fatigue == (False,)            # the earlier taps stand


def test_third_activation_reminder_once_never_on_undo_or_redo(app):
    game = new_match(app)
    s = app.session
    kaze = card(game, 0, 0)
    tap(kaze.ids.activate)
    tap(kaze.ids.activate)
    tap(kaze.ids.activate)
    assert s.state.player(0, 0).fatigue == (True,)
    assert "3rd activation: Kaze +1 fatigue" in plain(app.banner_widget.text)
    assert "3rd activation: Kaze +1 fatigue" in game.log_lines[0]
    app.banner_widget.parent.remove_widget(app.banner_widget)
    app.banner_widget = None
    tap(game.ids.undo)
    tap(game.ids.redo)
    assert s.state.player(0, 0).fatigue == (True,)
    assert app.banner_widget is None                           # no second announcement


def test_fourth_fatigue_token_asks_then_injures_and_the_injury_pad_reads_both_tables(app):
    game = new_match(app)
    s = app.session
    tetsu = card(game, 0, 2)
    for i in range(3):
        tap(slot(tetsu, i))
    assert s.state.player(0, 2).fatigue == (True, True, True)
    assert "-1 fatigue" not in tetsu.stats_text and "ffa040" in tetsu.stats_text  # STR 7 -> 6
    n = len(s.actions)
    tap(slot(tetsu, 3))                                        # a 4th: Max Fatigue
    wait_for(lambda: app.popup is not None, what="the confirmation")
    assert "Tetsu is injured: Max Fatigue" in app.popup.content.message
    tap(app.popup.content.ids.ok)
    assert len(s.actions) == n + 1 and s.state.player(0, 2).status == "injured"
    assert tetsu.status == "injured" and tetsu.injury_pending
    tap(tetsu.ids.injury)
    pad = wait_for(lambda: next((w for w in app.root_window.children
                                 if hasattr(w, "ids") and "dice_keys" in w.ids), None), what="pad")
    tap(next(b for b in pad.ids.dice_keys.children if b.text == "12"))   # common 12: grave table
    assert "Grave injuries table" in pad.prompt
    tap(next(b for b in pad.ids.dice_keys.children if b.text == "3"))    # grave 3: broken arm
    assert s.state.player(0, 2).injuries[-1] == "Broken arm"
    assert "Broken arm" in game.log_lines[0]


def test_tower_dice_fill_each_coachs_side_by_colour(app):
    from firmware_bridge.host.urlhandlers import protocol_sim

    game = new_match(app)
    wait_for(lambda: app.tower_state == "connected", what="the simulated tower")
    tap(card(game, 0, 3).ids.ball)                             # Yokozuna carries the ball
    game.choose_kind("tackle_break")
    tap(card(game, 0, 3).ids.pick)
    tap(card(game, 1, 3).ids.pick)
    protocol_sim.hub(TOWER_NAME).roll("d12:yellow:2 d12:red:9 d12:red:10")   # Onslaught: 2 red
    wait_for(lambda: game.explanation, what="the tower's dice in the panel")
    assert plain(game.explanation).startswith("Yokozuna: STR 8; rolled 9, 10, kept 9: fail; "
                                              "Oso: STR 9; rolled 2: success; Oso wins")
    tap(game.ids.record)
    assert app.session.actions[-1].data["source"] == "tower"
    # a throw with the wrong number of dice is refused with a reason, nothing half-taken
    game.choose_kind("tackle_break")
    assert not card(game, 0, 3).picked                         # the next roll starts clean
    tap(card(game, 0, 3).ids.pick)
    tap(card(game, 1, 3).ids.pick)
    protocol_sim.hub(TOWER_NAME).roll("d12:red:3 d12:yellow:5")
    wait_for(lambda: app.toast_widget is not None and "the tower read 1" in app.toast_widget.text,
             what="the refusal")
    assert game.explanation == ""


def test_the_simulated_tower_throws_the_dice_the_roll_waits_for(app):
    """Without a real tower the roll panel has its own "Throw (simulated)": the simulated
    tower throws exactly the D12s still to come, each coach's in its colour, and they fill
    the panel as a real tower's throw does."""
    game = new_match(app)
    wait_for(lambda: app.tower_state == "connected" and app.tower_simulated,
             what="the simulated tower")
    assert game.ids.sim_throw.disabled and plain(game.ids.sim_throw.text) == "Throw (simulated)"
    tap(card(game, 0, 3).ids.ball)                             # Yokozuna carries the ball
    game.choose_kind("tackle_break")
    tap(card(game, 0, 3).ids.pick)
    tap(card(game, 1, 3).ids.pick)
    assert plain(game.ids.sim_throw.text) == "Throw 3 dice (simulated)"  # Onslaught: 2 red + 1
    tap(game.ids.sim_throw)
    wait_for(lambda: game.explanation, what="the simulated dice in the panel")
    faces = [f for _roller, fs in game.panel.slots(app.session.state) for f in fs]
    assert len(faces) == 3 and all(f is not None and 1 <= f <= 12 for f in faces)
    assert game.panel.source == "tower" and game.ids.sim_throw.disabled
    tap(game.ids.record)
    assert app.session.actions[-1].data["source"] == "tower"


def test_an_impossible_line_up_cannot_start(app):
    setup = open_line_ups(app)
    rows = {r.position: r for r in setup.ids.positions0.children}
    tap(next(b for b in rows["Wing"].ids.players.children if b.text == "Tetsu"))
    assert setup.problems[0] == "Yamato: Tetsu is lined up twice (Wing and Full-Back)"
    assert setup.ids.start.disabled
    tap(next(b for b in rows["Wing"].ids.players.children if b.text == "Kaze"))
    assert setup.problems == ["", ""]


def test_a_bad_roster_file_is_named_and_no_match_is_touched(app):
    game = new_match(app)
    journal = app.session.path
    before = journal.read_bytes()
    path = app.data_root / "config" / "takkure.yaml"
    path.write_text(path.read_text().replace("str: 9", "str: 15", 1))
    app.game_configs.pop("takkure", None)
    app.go("home")
    wait_for(lambda: on_screen(app, "home"))
    tap(screen(app, "home").ids.tile_takkure)
    wait_for(lambda: app.popup is not None, what="the error")
    message = app.popup.content.message
    assert str(path) in message and "teams[1].players[1].str: 15 is out of range" in message
    assert message.endswith("[Oso, in Teriomorphs]")
    assert app.root.current == "home" and journal.read_bytes() == before
    close_popups(app)
    assert game.session is app.session


def test_roster_editor_writes_the_users_file_and_refuses_bad_cards(app):
    tap(open_line_ups(app).ids.edit_rosters)
    wait_for(lambda: on_screen(app, "takkure_roster"), what="the roster editor")
    editor = screen(app, "takkure_roster")
    path = app.data_root / "config" / "takkure.yaml"
    original = path.read_bytes()
    # a new card with no name and no position: refused, the file untouched
    tap(editor.ids.new_card)
    tap(editor.ids.save)
    wait_for(lambda: app.toast_widget is not None and "Not saved" in app.toast_widget.text)
    assert "a player needs a name" in app.toast_widget.text and path.read_bytes() == original
    editor.ids.name.text = "Kappa"
    tap(editor.ids.save)
    wait_for(lambda: "positions" in app.toast_widget.text)
    assert path.read_bytes() == original
    # fill it in: REF up twice, Wing, Side step, a training skill
    tap(editor.ids.pos_wing)
    for _ in range(2):
        tap(next(b for b in editor.ids.st_ref.children if getattr(b, "text", "") == "+"))
    editor.ids.skills.text = "Slippery*, Quick"
    plus = next(b for b in editor.ids.st_marker_height_mm.children if getattr(b, "text", "") == "+")
    tap(plus)                                       # the camera marker sits 5 mm up...
    editor.ids.st_marker_id.value = 17              # ...and is topper 17
    tap(editor.ids.save)
    wait_for(lambda: editor.status.startswith("Saved Kappa"), what="the save")
    cfg = load_typed(TakkureConfig, path)
    kappa = cfg.team("Yamato").player("Kappa")
    assert (kappa.ref, kappa.positions, kappa.skills[0].training, kappa.skills[1].training) == \
        (8, ("Wing",), True, False)
    assert (kappa.marker_id, kappa.marker_height_mm) == (17, 5.0)
    assert cfg.team("Yamato").player("Kaze").marker_id is None
    assert cfg.team("Yamato").player("Yokozuna").skills[0].text.startswith("Once per action")
    # a duplicate name is refused
    tap(editor.ids.new_card)
    editor.ids.name.text = "Kaze"
    tap(editor.ids.pos_wing)
    tap(editor.ids.save)
    wait_for(lambda: "already has a player called Kaze" in app.toast_widget.text)
    assert load_typed(TakkureConfig, path) == cfg
    pump(2)


def test_player_sheet_rest_and_team_skill_tokens(app):
    game = new_match(app)
    s = app.session
    lince = card(game, 1, 1)                                   # a defender
    tap(slot(lince, 0))                                        # +1 fatigue, active

    def sheet_button(label):
        close_popups(app)                                      # a sheet left open
        tap(lince.ids.more)
        sheet = wait_for(lambda: next((w for w in app.root_window.children
                                       if "actions" in getattr(w, "ids", {})), None), what="sheet")
        return next(b for b in sheet.ids.actions.children if b.text.startswith(label))

    tap(sheet_button("REST"))                                  # no inactive: flip the active
    assert s.state.player(1, 1).fatigue == (False,)
    tap(sheet_button("REST"))                                  # an inactive one: removed
    assert s.state.player(1, 1).fatigue == ()
    assert sheet_button("REST").disabled                       # nothing left to rest
    tap(sheet_button("Superstars +1"))
    assert s.state.teams[1].skill_tokens == 1
    assert sheet_button("Spend 3").disabled
    tap(sheet_button("Spend 1"))
    assert s.state.teams[1].skill_tokens == 0
    tap(sheet_button("ENDURANCE"))
    assert game.kind_title == "ENDURANCE: defender" and lince.picked
    tap(key(game, 3))                                          # BDY 4 + PRT 1 = 5: no damage
    assert plain(game.explanation) == "Lince: BDY+PRT 5; rolled 3: success; no damage"
    tap(game.ids.record)
    assert s.actions[-1].type == "takkure.endurance" and s.state.player(1, 1).wounds == 0


def test_a_saved_match_reopens_on_its_screen_where_it_was(app):
    game = new_match(app)
    tap(card(game, 0, 1).ids.activate)
    tap(slot(card(game, 1, 2), 0))
    path, state = app.session.path, app.session.state
    app.go("home")
    wait_for(lambda: on_screen(app, "home"))
    app.open_game(path)
    wait_for(lambda: on_screen(app, "takkure_game") and app.session.state == state
             and app.session.path == path, what="the reopened match")
    assert card(game, 1, 2).fatigue[0] == "active" and card(game, 0, 1).activations == 1
    assert game.pool == 3 and game.log_lines[0].startswith("Lobo +1 fatigue")


def test_a_pass_with_a_typed_distance_and_a_bad_one(app):
    game = new_match(app)
    tap(card(game, 0, 2).ids.ball)                             # only the carrier passes
    choose_roll(app, game, "Pass")
    tap(card(game, 0, 2).ids.pick)
    assert game.needs_distance and "type the pass distance in inches" in game.prompt
    field = game.ids.distance
    field.text = "3"
    field.dispatch("on_text_validate")
    pump(3)
    tap(game.ids.pressure_plus)
    tap(key(game, 8))
    assert plain(game.explanation) == ('Tetsu: BaC 7 +2 pass 3" -1 pressure = 8; rolled 8: '
                                       'success -> the ball reaches the receiver')
    assert not game.receive_distance(-2, source="camera")
    assert "a distance is a number of inches" in app.toast_widget.text
    assert game.needs_distance and game.explanation == ""
    assert game.receive_distance(2.0, source="camera")
    tap(key(game, 8))
    tap(game.ids.record)
    data = app.session.actions[-1].data
    assert (data["distance_in"], data["distance_source"]) == (2.0, "camera")
    assert '+4 pass 2"' in data["text"]


def test_a_half_ends_at_box_0_asks_first_then_halftime_rest_and_second_half(app):
    game = new_match(app)                                      # Yamato attack, box 5
    s = app.session
    tap(slot(card(game, 1, 0), 0))                             # Kitsune: one active token
    tap(slot(card(game, 0, 3), 0))                             # Yokozuna: active...
    tap(slot(card(game, 0, 3), 0))                             # ...flipped inactive
    while s.state.box > 1 or s.state.pool:
        if s.state.pool:
            app.act("takkure.activate", team=0, player=s.state.pool % 3)
        else:
            tap(game.ids.take)
        pump(1)
    assert s.state.box == 1 and game.box == 1
    tap(game.ids.take)                                         # box 0: the half ends
    wait_for(lambda: app.popup is not None, what="the confirmation")
    assert "This ends the 1st half" in app.popup.content.message
    tap(app.popup.content.ids.ok)
    assert s.state.phase == "halftime" and game.phase == "halftime"
    assert "Halftime: each player removes one fatigue token" in plain(app.banner_widget.text)
    kitsune, yokozuna = card(game, 1, 0), card(game, 0, 3)
    assert kitsune.ids.rest_active.opacity == 1 and not kitsune.ids.rest_active.disabled
    assert kitsune.ids.rest_inactive.disabled                  # it has no inactive token
    tap(kitsune.ids.rest_active)
    # 6.02 "All players remove a fatigue token": the 2nd half waits for Yokozuna's
    assert game.ids.second_half.disabled
    row = yokozuna.ids.field_row
    assert all(c.right <= row.width + 1 for c in row.children)   # nothing hidden off the card
    tap(yokozuna.ids.rest_inactive)
    assert s.state.player(1, 0).fatigue == () and s.state.player(0, 3).fatigue == ()
    assert kitsune.ids.rest_active.disabled                    # once per player
    assert not game.ids.second_half.disabled
    tap(game.ids.second_half)
    assert s.state.half == 2 and s.state.phase == "kickoff"
    assert game.ids.kick1.disabled and not game.ids.kick0.disabled  # Teriomorphs kicked the 1st


def test_the_roll_list_offers_legal_rolls_and_a_wrong_pick_says_why(app):
    """1.12 TACKLE: "you can only TACKLE the player with the ball"; GROUND TOKEN: a GROUNDED
    player "can only perform the STAND UP action"; a GROUNDED carrier "cannot STAND UP"."""
    game = new_match(app)
    s = app.session
    tap(game.ids.kind)
    picker = wait_for(lambda: next((w for w in app.root_window.children
                                    if "grid" in getattr(w, "ids", {})), None), what="the roll list")
    buttons = {b.text: b for b in picker.ids.grid.children}
    assert buttons["Tackle vs Dodge"].disabled and buttons["Pass"].disabled   # nobody has the ball
    assert not buttons["Pick up the ball"].disabled and not buttons["Kick-off kick"].disabled
    tap(buttons["Pick up the ball"])
    assert game.kind_title == "Pick up the ball"
    tap(card(game, 1, 0).ids.pick)                             # a Teriomorph: not attacking
    wait_for(lambda: app.toast_widget is not None and "Kitsune is not on the attacking team"
             in app.toast_widget.text, what="the refusal")
    assert not card(game, 1, 0).picked
    tap(card(game, 0, 2).ids.ground)                           # Tetsu is knocked down
    assert s.state.player(0, 2).grounded
    tap(card(game, 0, 2).ids.pick)
    wait_for(lambda: "Tetsu is GROUNDED: a GROUNDED player can only STAND UP"
             in app.toast_widget.text, what="the grounded refusal")
    assert not card(game, 0, 2).picked
    tap(card(game, 0, 2).ids.ball)                             # Tetsu holds it, on the ground
    assert s.state.ball == (0, 2) and card(game, 0, 2).ids.ground.disabled   # cannot stand up
    tap(card(game, 0, 1).ids.pick)                             # Hana picks it up from him
    assert card(game, 0, 1).picked and game.shows_pressure    # a 2nd action: PRESSURE counts


def test_the_active_players_actions_and_superstars_from_the_screen(app):
    """1.04/1.08: the active player's first and second actions (4.02: one MOV action with 2
    active fatigue tokens) from the player's sheet; 5.07 Superstars +1 on a roll from the
    roll panel, spent with the roll."""
    game = new_match(app)
    s = app.session
    kaze = card(game, 0, 0)
    tap(slot(kaze, 0))
    tap(slot(kaze, 1))                                         # 2 active tokens
    tap(kaze.ids.activate)
    assert "ACTIVE: no action yet" in kaze.note

    def sheet_button(label):
        kaze.more()
        sheet = wait_for(lambda: next((w for w in app.root_window.children
                                       if type(w).__name__ == "PlayerSheet"), None), what="sheet")
        return sheet, next(b for b in sheet.ids.actions.children if b.text == label)

    sheet, move = sheet_button("MOVE (1st action)")
    tap(move)
    assert s.state.acts == ("MOVE",) and "ACTIVE: MOVE" in kaze.note
    sheet, move2 = sheet_button("MOVE (2nd action)")
    assert move2.disabled                                      # fatigue 2: one MOV action
    sheet.dismiss(animation=False)
    # Superstars: the Teriomorphs tackle Kaze with +1
    s.do("takkure.skill_token", team=1, delta=1)
    tap(kaze.ids.ball)
    choose_roll(app, game, "Tackle")
    tap(card(game, 1, 1).ids.pick)                             # Lince tackles
    row = next(r for r in game.ids.rollers.children if r.team == 1)
    assert row.superstars and row.ids.star.opacity == 1
    tap(row.ids.star)
    assert "+1 Superstars = 8" in plain(game.ids.rollers.children[0].text)
    tap(key(game, 8))
    tap(game.ids.record)
    assert s.state.teams[1].skill_tokens == 0
    assert "(Superstars: 1 token spent)" in game.log_lines[0]


def test_a_superstars_reroll_asks_which_die(app):
    """5.07 Superstars "3x: Reroll a die. (Only once per roll)": Lobo, an Expert Tackler,
    rolls two dice in a Tackle; the re-roll asks which die, throws that one again and keeps
    the other; the roll records the die and spends the 3 tokens with it."""
    game = new_match(app)
    s = app.session
    s.do("takkure.skill_token", team=1, delta=3)
    tap(card(game, 0, 0).ids.ball)                             # Kaze carries
    choose_roll(app, game, "Tackle")
    tap(card(game, 1, 2).ids.pick)                             # Lobo tackles: two dice
    tap(key(game, 2))
    tap(key(game, 9))
    row = next(r for r in game.ids.rollers.children if r.team == 1)
    assert [d.face for d in reversed(row.ids.dice.children)] == ["2", "9"]
    tap(row.ids.reroll)
    picker = wait_for(lambda: next((w for w in app.root_window.children
                                    if type(w).__name__ == "WhichDie"), None), what="which die")
    assert "Lobo: which die is rolled again?" in picker.prompt
    assert [b.text for b in reversed(picker.ids.faces.children)] == ["2", "9"]
    tap(next(b for b in picker.ids.faces.children if b.text == "2"))
    wait_for(lambda: picker.parent is None, what="the picker to close")
    row = next(r for r in game.ids.rollers.children if r.team == 1)
    assert [d.face for d in reversed(row.ids.dice.children)] == ["", "9"]   # the 9 stays
    tap(key(game, 11))
    tap(game.ids.record)
    event = s.actions[-1]
    assert event.type == "takkure.roll"
    assert event.data["rerolls"] == [{"team": 1, "player": 2, "die": 0, "dice": [2]}]
    assert event.data["rolls"][0]["dice"] == [11, 9]
    assert s.state.teams[1].skill_tokens == 0
    assert "(Superstars: 3 tokens spent)" in game.log_lines[0]


def test_the_picked_players_do_not_carry_into_the_next_roll(app):
    """Who rolls, PRESSURE and the distance belong to one roll: once it is recorded, the
    next roll starts with nobody picked (the roll kind stays)."""
    game = new_match(app)
    yokozuna, lince = card(game, 0, 3), card(game, 1, 1)
    tap(yokozuna.ids.ball)
    choose_roll(app, game, "Tackle vs Dodge")
    tap(yokozuna.ids.pick)
    tap(lince.ids.pick)
    tap(game.ids.pressure_plus)
    tap(key(game, 6))
    tap(key(game, 5))
    tap(game.ids.record)
    assert app.session.actions[-1].type == "takkure.roll"
    assert game.kind_title == "Tackle vs Dodge"
    assert not yokozuna.picked and not lince.picked
    assert game.panel.picks == {"attacker": [], "defender": []}
    assert game.panel.pressure == 0 and game.panel.distance is None
    assert not game.ids.rollers.children


def test_picks_do_not_survive_the_ball_changing_sides(app):
    game = new_match(app)
    yokozuna, lince = card(game, 0, 3), card(game, 1, 1)
    tap(yokozuna.ids.ball)
    choose_roll(app, game, "Tackle vs Dodge")
    tap(yokozuna.ids.pick)                     # Yamato's carrier, the attacker side
    assert yokozuna.picked
    app.act("takkure.steal", team=1, player=1)  # Lince steals: Teriomorphs attack now
    wait_for(lambda: app.session.state.attacker == 1, what="the steal")
    pump(3)
    assert game.panel.picks == {"attacker": [], "defender": []}
    assert not yokozuna.picked and not lince.picked


def test_a_match_starts_from_home_in_three_taps_with_the_shipped_demo_teams(app):
    """No roster typed yet: the shipped file's two demo-completed teams line up by default;
    Home's tile, Start, the kick-off. The demo players say they are demo values."""
    close_popups(app)
    (app.data_root / "config" / "takkure.yaml").unlink(missing_ok=True)
    app.game_configs.pop("takkure", None)
    app.go("home")
    wait_for(lambda: on_screen(app, "home"), what="home")
    before = app.session
    tap(screen(app, "home").ids.tile_takkure)                          # 1
    wait_for(lambda: on_screen(app, "takkure_setup"), what="the line-up screen")
    setup = screen(app, "takkure_setup")
    assert setup.teams == ["Yamato", "Teriomorphs"] and setup.problems == ["", ""]
    assert setup.demo_note.startswith("7 demo players lined up: their values are not from "
                                      "printed cards")
    tap(setup.ids.start)                                               # 2
    wait_for(lambda: app.session is not before and on_screen(app, "takkure_game"),
             what="the new match")
    game = screen(app)
    tap(game.ids.kick1)                                                # 3
    wait_for(lambda: game.phase == "play", what="the kick-off")
    names = [p.name for t in app.session.state.teams for p in t.players]
    assert "Yokozuna" in names and sum(n.endswith("(demo)") for n in names) == 7


def test_a_new_match_opens_at_the_top_with_a_roll_it_allows(app):
    game = new_match(app)
    scroll = game.ids.team0.parent
    scroll.scroll_y = 0                                        # the last match scrolled down
    game = new_match(app)
    assert game.ids.team0.parent.scroll_y == 1 and game.ids.team1.parent.scroll_y == 1
    # after the kick-off nobody carries the ball: not Tackle vs Dodge, a roll the list allows
    allowed = [k.title for k, why in game.panel.legal_kinds(app.session.state) if why is None]
    assert game.panel.kind.title in allowed


def test_greyed_take_tokens_and_record_say_why_when_tapped(app):
    game = new_match(app)
    assert game.ids.take.disabled and game.why_take      # the kick-off gave the tokens
    tap(game.ids.take)
    assert app.toast_widget is not None
    assert app.toast_widget.text == app.session.why_not("takkure.take_tokens") == game.why_take
    assert game.ids.record.disabled                      # nobody picked, no dice
    tap(game.ids.record)
    assert app.toast_widget.text == game.prompt and game.prompt.startswith("To do:")
