"""Danchie Go – King's Call in the real window (Xvfb): the set-up table by player count, a
race played by taps (action sets, board counters, the spawn die thrown by the simulated tower
over a pseudo-terminal and tapped by hand, a Freeze from round 3, laps, two action sets), the
Tektonpedia at the end, and undo."""

from __future__ import annotations

import pytest

from tests.gui_support import on_screen, open_from_home, plain, pump, tap, wait_for

pytestmark = pytest.mark.gui


def screen(app, name="danchie_game"):
    return app.root.get_screen(name)


def modal(kind):
    from kivy.core.window import Window
    return wait_for(lambda: next((w for w in Window.children if type(w).__name__ == kind), None),
                    what=kind)


def button(parent, text):
    return next(w for w in parent.walk() if plain(getattr(w, "text", "") or "").startswith(text))


def counter(game, kind):
    return next(c for c in game.ids.counters.children if c.kind == kind)


def ready(session, name):
    """Enter the Blueprint side of the player's lap to match their board (one Tile if the
    board is empty), through the session: the sheet's own controls are tested below."""
    i = session.state.index(name)
    d = session.state.dashers[i]
    types_ = session.state.tile_types
    if not any(d.tiles):
        session.do("danchie.tiles", player=name, type=types_[0], delta=1)
    d = session.state.dashers[i]
    side = ("green", "red")[d.lap - 1]
    for k, t in enumerate(types_):
        for _ in range(d.tiles[k] - d.blueprint[d.lap - 1][k]):
            session.do("danchie.blueprint", player=name, side=side, type=t, delta=1)
    pump()


def new_race(app, names=("Aki", "Ben", "Cleo")):
    setup = open_from_home(app, "danchie", "danchie_setup", "the race set-up")
    tap(button(setup.ids.counts, str(len(names))))
    for field, name in zip(reversed(setup.ids.names.children), names):
        field.text = name
    before = app.session
    tap(setup.ids.start)
    wait_for(lambda: app.session is not before and on_screen(app, "danchie_game"), what="the race")
    return screen(app)


def test_setup_table_follows_the_player_count(app):
    setup = open_from_home(app, "danchie", "danchie_setup", "the race set-up")
    tap(button(setup.ids.counts, "3"))
    table = plain(setup.table_text)
    assert "3 racing lanes" in table and "12 obstacles" in table and "6 Tiles of each" in table
    assert "the rulebook text shows 13" in setup.notes_text
    assert "pre-made layouts" in setup.notes_text
    names = list(reversed(setup.ids.names.children))
    assert not names[2].disabled and names[3].disabled
    tap(button(setup.ids.counts, "6"))
    table = plain(setup.table_text)
    assert "24 obstacles" in table and "P5 Special, P6 Special" in table
    assert "Special set: Special Spawn, Special Stack, Special Boost, Block" in table
    assert "12 Tiles of each" in table and "18 flipped to Power-Up" in table
    assert not names[5].disabled


def test_a_race_by_taps_with_the_tower_spawn_die_a_freeze_laps_and_the_tektonpedia(app, pty_tower):
    game = new_race(app)
    s = app.session
    assert game.title == "Round 1" and game.current_name == "Aki's turn"
    assert game.ids.power_up.disabled and game.ids.power_up.text == "Power-Ups from round 3"
    assert "1 action set per turn" in game.status
    # Aki takes two red Tiles and does the one action set of round 1
    tap(counter(game, "red").ids.plus)
    tap(counter(game, "red").ids.plus)
    assert s.state.dashers[0].tiles[0] == 2 and counter(game, "red").count == 2
    tap(game.ids.action_set)
    assert game.sets_text == "Action sets: 1 of 1 done" and game.ids.action_set.disabled
    tap(game.ids.end_turn)
    assert game.current_name == "Ben's turn" and game.rows[1].badge == "TURN"
    # Ben throws the spawn die through the tower
    pty_tower.roll("spawn:white:POWER_UP_ON_SPAWN")
    wait_for(lambda: s.state.last_spawn is not None, what="the tower's spawn")
    assert game.spawn_text == "Power-Up Tile on the Spawn area"
    assert s.actions[-1].type == "danchie.spawn" and s.actions[-1].data["source"] == "tower"
    # the result is spawn_text, in words; the detail names who, when and how, never the face id
    assert game.spawn_detail == "Ben, round 1 (tower)"
    tap(button(game.ids.faces, "No spawn"))      # and one tapped by hand
    assert game.spawn_text == "No spawn" and s.state.last_spawn.source == "hand"
    with_sets_done = game.ids.end_turn.disabled   # a turn cannot end before its action set
    assert with_sets_done
    tap(game.ids.end_turn)                        # greyed: it says why, in the rules' words
    assert app.toast_widget is not None and app.toast_widget.text == game.ids.end_turn.why
    assert game.ids.end_turn.why and game.ids.end_turn.why == s.why_not("danchie.end_turn", player="Ben")
    tap(game.ids.action_set)
    tap(game.ids.end_turn)                       # Cleo's turn: Ben's spawn is not hers
    assert game.current_name == "Cleo's turn" and game.spawn_detail == ""
    assert game.spawn_text == "Roll the spawn die (tower) or tap its face"
    for _ in range(4):                           # Cleo; Aki, Ben, Cleo
        tap(game.ids.action_set)
        tap(game.ids.end_turn)
    assert game.title == "Round 3" and game.ids.power_up.disabled   # no card drawn yet
    # round 3: Aki picks a Power-Up Tile up, draws Freeze and freezes Ben
    tap(counter(game, "").ids.plus)
    assert s.state.dashers[0].cards == 1 and not game.ids.power_up.disabled
    tap(game.ids.power_up)
    picker = modal("PowerUpPicker")
    tap(button(picker.ids.choices, "Freeze"))
    assert picker.prompt.startswith("Freeze: on whom?")
    assert "Aki" not in [b.text for b in picker.ids.choices.children]
    tap(button(picker.ids.choices, "Ben"))
    assert s.state.dashers[1].frozen == 1 and s.state.dashers[0].sabotage == 1
    assert game.rows[1].badge == "FROZEN 1" and game.rows[0].sabotage == 1
    tap(game.ids.action_set)
    tap(game.ids.end_turn)
    assert game.current_name == "Cleo's turn" and s.state.dashers[1].frozen == 0
    assert "Ben is frozen: turn skipped" in s.log()[-1].text
    # Cleo reaches the Flip line first: two action sets for everyone from round 4
    assert game.ids.lap.disabled                 # her green Blueprint is not matched yet
    ready(s, "Cleo")
    tap(game.ids.lap)
    assert "podium" in game.rows[2].line and game.rows[2].badge.endswith("RESTS 1 turn")
    tap(game.ids.action_set)
    tap(game.ids.end_turn)
    assert game.title == "Round 4" and "2 action sets per turn" in game.status
    assert game.sets_text == "Action sets: 0 of 2 done"
    tap(game.ids.action_set)
    tap(game.ids.special)
    assert game.ids.action_set.disabled
    # undo takes back the last two taps
    tap(game.ids.undo)
    tap(game.ids.undo)
    assert s.state.dashers[0].sets_done == 0 and not game.ids.action_set.disabled
    # the rest of the race through the Dashers' sheets: lap 1 Aki 2nd, Ben 3rd; lap 2
    # Ben 1st, Cleo 2nd, Aki 3rd
    for i in (0, 1, 1, 2, 0):
        ready(s, s.state.dashers[i].name)
        tap(game.rows[i].ids.more)
        sheet = modal("DasherSheet")
        tap(sheet.ids.lap)
        if not s.state.over:
            tap(sheet.ids.close)
    assert sheet.parent is None          # the race's end closes the sheet for the Tektonpedia
    view = wait_for(lambda: game.tekton_view, what="the Tektonpedia")
    cards = {c[0]: (c[1], c[2]) for c in view.cards}
    assert cards == {"Aki": ("2-3", "Tekton"), "Ben": ("3-1", "Tekton"), "Cleo": ("1-2", "Tekton")}
    assert "Race over" in game.status and game.ids.end_turn.disabled
    tap(view.ids.close)
    assert game.tekton_view.parent is None, "closed"
    assert not game.ids.undo.disabled, game.undo_text
    tap(game.ids.undo)
    assert not s.state.over and not game.ids.tektonpedia.disabled   # Ben, Cleo finished


def test_the_simulated_towers_spawn_die_from_the_race_screen(app):
    game = new_race(app, names=("Dana", "Eli", "Fay", "Gus"))
    s = app.session
    assert app.tower_simulated and not game.ids.sim_spawn.disabled
    tap(game.ids.sim_spawn)
    wait_for(lambda: s.state.last_spawn is not None, what="the simulated spawn die")
    spawn = s.state.last_spawn
    assert (spawn.player, spawn.source) == ("Dana", "tower")
    assert game.spawn_text == dict(
        tile_under_you="Regular Tile under your position",
        power_up_on_spawn="Power-Up Tile on the Spawn area",
        tile_on_spawn="Regular Tile on the Spawn area", no_spawn="No spawn")[spawn.meaning]


def test_dasher_sheet_starting_tiles_blueprint_specialty_and_a_returned_tile(app):
    """PLAYER BOARD SETUP (2 starting Tiles of different colours, a Blueprint), DASHER
    SPECIALTY TOKEN (once per game, a second after lap 1), and a returned Power-Up Tile's
    one-round cooldown, each by taps on a Dasher's sheet."""
    game = new_race(app)
    s = app.session
    tap(game.rows[0].ids.more)
    sheet = modal("DasherSheet")
    reds = [b for b in sheet.ids.start_tiles.children if b.text == "red"][0]
    blues = [b for b in sheet.ids.start_tiles.children if b.text == "blue"][0]
    tap(reds)
    assert sheet.start_text == "Starting Tiles: tap 2 colours (red …)" and not s.actions
    tap(blues)
    assert s.state.dashers[0].start_tiles == ("red", "blue")
    assert s.state.dashers[0].tiles == (1, 1, 0, 0)
    assert sheet.start_text == "Starting Tiles: red and blue" and reds.disabled
    # the green Blueprint: 1 red, 1 blue
    assert sheet.blueprint_text == "Green Blueprint (Tiles per colour): not entered"
    assert sheet.ids.lap.disabled
    bp = {c.kind: c for c in sheet.ids.blueprint.children}
    tap(bp["red"].ids.plus)
    tap(bp["blue"].ids.plus)
    assert s.state.dashers[0].blueprint[0] == (1, 1, 0, 0) and bp["red"].count == 1
    assert sheet.blueprint_text == "Green Blueprint (Tiles per colour): matches the board"
    assert not sheet.ids.lap.disabled
    # a Specialty token, once
    assert sheet.specialty_text == "Specialty tokens: 1 of 1 left (2nd after lap 1)"
    tap(sheet.ids.specialty)
    assert sheet.specialty_text == "Specialty tokens: 0 of 1 left (2nd after lap 1)"
    assert sheet.ids.specialty.disabled
    tap(sheet.ids.lap)                                   # lap 1 done: a second token
    assert sheet.specialty_text == "Specialty tokens: 1 of 2 left"
    assert sheet.blueprint_text == "Red Blueprint (Tiles per colour): not entered"
    assert not sheet.ids.specialty.disabled and sheet.ids.returned.disabled
    tap(sheet.ids.close)
    tap(game.ids.undo)                                   # the lap
    assert s.state.dashers[0].lap == 1 and s.state.dashers[0].specialty == 1
    # a returned Power-Up Tile cools down for a round
    for _ in range(6):                                   # to round 3
        tap(game.ids.action_set)
        tap(game.ids.end_turn)
    assert game.title == "Round 3" and game.current_name == "Aki's turn"
    tap(counter(game, "").ids.plus)
    tap(game.ids.decline)
    assert "Power-Up Tile returned by Aki: cooling down until round 5" in game.status
    tap(game.rows[1].ids.more)
    sheet = modal("DasherSheet")
    assert sheet.ids.returned.disabled                   # cooling down
    tap(sheet.ids.close)


def test_each_dashers_tiles_are_coloured_chips_with_counts(app):
    """Issue 28: 'R 1 B 0 G 0 Y 0 PU 0' said the Tiles in letters; each is now a chip in its
    colour with its count (Power-Up Tiles in the purple of their counter)."""
    from companion.views.danchie import tile_rgba

    game = new_race(app)
    row = game.rows[0]
    chips = [w for w in row.walk(restrict=True) if type(w).__name__ == "TileChip"]
    assert len(chips) == 5
    s = app.session.state
    assert [int(c.count) for c in chips[:4]] == list(s.dashers[0].tiles)
    assert int(chips[4].count) == s.dashers[0].power_up_tiles
    assert [tuple(c.chip) for c in chips[:4]] == [tuple(tile_rgba(t)) for t in s.tile_types]
    assert not any("PU" in getattr(w, "text", "") for w in row.walk(restrict=True))
