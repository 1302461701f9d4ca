"""Tag Team in the real window (Xvfb): set up the first-game teams, enter both revealed
cards, see the turn's result, apply it, and undo."""

from __future__ import annotations

import pytest

from tests.gui_support import on_screen, open_from_home, plain, tap, wait_for

pytestmark = pytest.mark.gui


def screen(app, name="tagteam_game"):
    return app.root.get_screen(name)


def new_fight(app):
    setup = open_from_home(app, "tagteam", "tagteam_setup", "the fight set-up")
    assert setup.picks == [["Jeanne", "Ching Shih"], ["Bödvar", "Wong Fei-Hung"]]
    before = app.session
    tap(setup.ids.start)
    wait_for(lambda: app.session is not before and on_screen(app, "tagteam_game"), what="the fight")
    return screen(app)


def button(entry, text):
    return next(w for w in entry.walk() if getattr(w, "text", None) == text)


def test_a_turn_entered_by_both_players_resolved_at_once_and_undone(app):
    game = new_fight(app)
    s = app.session
    assert game.title == "Round 1 · turn 1 of 2"
    jeanne, bodvar = game.columns[0][0], game.columns[1][0]
    assert (jeanne.power, bodvar.power) == (1, 3) and jeanne.active and bodvar.active
    # Jeanne attacks; Bödvar attacks and heals 2
    tap(button(game.ids.entry0, "Attack"))
    tap(button(game.ids.entry1, "Attack"))
    tap(button(game.ids.entry1, "Heal +1"))
    tap(button(game.ids.entry1, "Heal +1"))
    assert game.entry_texts == ["Attack", "Attack, heal 2"]
    lit = (0.16, 0.5, 0.9, 1)
    assert tuple(button(game.ids.entry0, "Attack").bg) == lit
    assert tuple(button(game.ids.entry0, "Block").bg) != lit
    assert game.ids.entry1.ids.text.text == "Bödvar: Attack, heal 2"
    tap(game.ids.resolve)
    view = wait_for(lambda: game.resolve_view, what="the turn's result")
    assert plain(view.lines) == ("Jeanne 20 -> 17 HP (3 lost)\n"
                                 "Bödvar 20 -> 20 HP (1 lost, 2 healed)")   # capped at the top
    tap(view.ids.apply)
    st = s.state
    assert (st.teams[0][0].hp, st.teams[1][0].hp) == (17, 20) and st.turn == 2
    assert jeanne.hp == 17 and game.entry_texts == ["no effect", "no effect"]
    # switch the active fighter on one side, block the other's attack
    tap(game.columns[0][1].ids.name)
    assert game.columns[0][1].active and not jeanne.active
    tap(button(game.ids.entry0, "Block"))
    tap(button(game.ids.entry1, "Attack"))
    tap(game.ids.resolve)
    view = wait_for(lambda: game.resolve_view, what="the second turn")
    assert "Ching Shih blocks 1 attack" in view.lines
    tap(view.ids.apply)
    assert s.state.teams[0][1].hp == 20 and s.state.phase == "building"
    assert not game.ids.next_round.disabled and game.ids.resolve.disabled
    # the decks: 18 Construction cards, and "exhausted" is refused while 3 can be drawn
    assert game.ids.decks.text == "Combat deck: 2 cards · Construction deck: 18 cards"
    assert game.ids.exhausted.disabled
    tap(game.ids.next_round)
    assert game.title == "Round 2 · turn 1 of 3"
    assert game.ids.decks.text == "Combat deck: 3 cards, 3 to reveal · Construction deck: 17 cards"
    tap(game.ids.undo)
    tap(game.ids.undo)
    assert s.state.turn == 2 and s.state.phase == "combat"


def test_fighter_sheet_flips_bodvar_corrects_by_hand_and_undoes(app):
    game = new_fight(app)
    s = app.session
    bodvar = game.columns[1][0]
    tap(bodvar.ids.more)
    from kivy.core.window import Window
    sheet = wait_for(lambda: next((w for w in Window.children if type(w).__name__ == "FighterSheet"),
                                  None), what="the fighter sheet")
    assert sheet.fname == "Bödvar" and sheet.other_side == "Ours Berserk"
    assert sheet.ids.hp_up.disabled and not sheet.ids.hp_down.disabled   # already at the top
    tap(sheet.ids.flip)
    assert s.state.teams[1][0].name == "Ours Berserk" and bodvar.fname == "Ours Berserk"
    assert sheet.fname == "Ours Berserk" and sheet.other_side == "Bödvar"
    tap(sheet.ids.hp_down)
    tap(sheet.ids.power_up)
    f = s.state.teams[1][0]
    assert (f.hp, f.power) == (19, 4) and sheet.status == "19/20 HP · power 4"
    assert game.log_lines[0] == "Ours Berserk +1 power (by hand)"
    tap(sheet.ids.close)
    # their partner takes the attack
    tap(button(game.ids.entry0, "Attack their partner"))
    assert game.entry_texts[0] == "attack their partner"
    tap(game.ids.resolve)
    view = wait_for(lambda: game.resolve_view, what="the turn's result")
    assert plain(view.lines) == "Wong Fei-Hung 20 -> 19 HP (1 lost)"
    tap(view.ids.apply)
    for _ in range(4):
        tap(game.ids.undo)
    assert s.state.teams[1][0].name == "Bödvar" and bodvar.fname == "Bödvar"


def test_a_ko_by_hand_shows_the_result_at_once_and_undo_takes_it_back(app):
    """FIN DE LA PARTIE: a Fighter whose HP reaches 0 loses the fight for their player, also
    when the last point is taken by hand (a card effect the turn entry lacks)."""
    game = new_fight(app)
    s = app.session
    s.do("tagteam.adjust", team=0, fighter=0, what="hp", delta=-19)   # Jeanne at 1
    tap(game.columns[0][0].ids.more)
    from kivy.core.window import Window
    sheet = wait_for(lambda: next((w for w in Window.children if type(w).__name__ == "FighterSheet"),
                                  None), what="the fighter sheet")
    tap(sheet.ids.hp_down)                                              # Jeanne KO
    assert s.state.phase == "over" and s.state.result == "1"
    wait_for(lambda: sheet.parent is None, what="the sheet to give way to the result")
    winner = s.state.names[1]
    assert game.title == "Fight over" and game.status == f"{winner} wins"
    assert game.ids.resolve.disabled
    assert game.log_lines[0] == f"Jeanne -1 hp (by hand); Jeanne is KO: {winner} wins"
    tap(game.ids.undo)
    assert s.state.phase == "combat" and s.state.teams[0][0].hp == 1
    assert game.title == "Round 1 · turn 1 of 2" and not game.ids.resolve.disabled


def test_board_editor_sets_a_track_adds_a_fighter_and_the_next_fight_uses_it(app):
    import os
    from pathlib import Path

    import yaml

    open_from_home(app, "tagteam", "tagteam_setup", "the fight set-up")
    tap(screen(app, "tagteam_setup").ids.boards)
    wait_for(lambda: on_screen(app, "tagteam_tracks"), what="the board editor")
    ed = screen(app, "tagteam_tracks")
    assert ed.fname == "Jeanne" and ed.hp_default and ed.ids.save.disabled
    tap(ed.ids.max_hp.children[2])            # the stepper's "-" (children run backwards)
    assert ed.max_hp == 19 and not ed.hp_default and not ed.ids.save.disabled

    def cell(hp):
        return next(b for b in ed.ids.cells.children if b.text.split("\n")[0] == str(hp))

    tap(ed.ids.brush_stop)
    tap(cell(15))
    ed.ids.special.text = "Holy"
    tap(ed.ids.brush_special)
    tap(cell(10))
    tap(cell(10))                              # toggled off again
    tap(cell(9))
    assert ed.summary == "Icons: 15: STOP, 9: Holy"
    ed.ids.new_name.text = "Golem"
    tap(ed.ids.add)
    assert ed.fname == "Golem" and ed.power == 0
    tap(ed.ids.power.children[0])             # "+"
    tap(ed.ids.power.children[0])
    assert ed.power == 2
    ed.ids.new_name.text = "jeanne"
    tap(ed.ids.add)
    assert app.toast_widget is not None and "already on the list" in app.toast_widget.text
    tap(ed.ids.save)
    path = Path(os.environ["COMPANION_HOME"]) / "config" / "tagteam.yaml"
    wait_for(lambda: path.exists() and ed.ids.save.disabled, what="the saved boards")
    saved = yaml.safe_load(path.read_text())["fighters"]
    jeanne = saved[0]
    assert (jeanne["max_hp"], jeanne["icons"]) == (
        19, [{"hp": 15, "icon": "stop"}, {"hp": 9, "icon": "Holy"}])
    assert "defaults" not in jeanne                  # both set from the board now
    assert saved[1]["defaults"] == ["max_hp", "icons"]   # Ching Shih untouched
    assert saved[-1] == {"name": "Golem", "max_hp": 20, "initial_power": 2}
    try:
        tap(ed.ids.back)
        setup = screen(app, "tagteam_setup")
        wait_for(lambda: on_screen(app, "tagteam_setup"), what="the set-up again")
        assert "Golem" in [b.text for b in setup.ids.pick00.children]
        assert "Ours Berserk" not in [b.text for b in setup.ids.pick00.children]
        before = app.session
        tap(setup.ids.start)
        wait_for(lambda: app.session is not before and on_screen(app, "tagteam_game"),
                 what="the fight")
        j = app.session.state.teams[0][0]
        assert (j.name, j.max_hp, j.hp, j.icons) == ("Jeanne", 19, 19, ((15, "stop"), (9, "Holy")))
    finally:
        path.unlink()
        app.game_configs.pop("tagteam", None)


def test_a_turn_entry_does_not_carry_into_another_turn_by_undo(app):
    """The cards entered for turn 2 are not turn 1's: an undo back to turn 1 clears the
    entry (the active fighters stay as chosen)."""
    game = new_fight(app)
    s = app.session
    tap(button(game.ids.entry0, "Attack"))
    tap(game.ids.resolve)
    tap(wait_for(lambda: game.resolve_view, what="turn 1's result").ids.apply)
    assert s.state.turn == 2
    tap(game.columns[0][1].ids.name)                  # Ching Shih is active now
    tap(button(game.ids.entry0, "Block"))
    tap(button(game.ids.entry1, "Attack"))
    assert game.entry_texts == ["Block", "Attack"]
    tap(game.ids.undo)                                # back to turn 1
    assert s.state.turn == 1
    assert game.entry_texts == ["no effect", "no effect"]
    assert game.columns[0][1].active


def test_players_names_are_typed_at_set_up_and_shown_beside_their_fighters(app):
    setup = open_from_home(app, "tagteam", "tagteam_setup", "the fight set-up")
    setup.ids.player0.text = "  Ada  "
    setup.ids.player1.text = ""
    assert setup.players == ["Ada", ""]
    labels = [w.text for w in setup.walk() if getattr(w, "text", "").endswith(", fighter 1")]
    assert sorted(labels) == ["Ada, fighter 1", "Player 2, fighter 1"]
    before = app.session
    tap(setup.ids.start)
    wait_for(lambda: app.session is not before and on_screen(app, "tagteam_game"), what="the fight")
    assert app.session.state.names == ("Ada", "Player 2")
    game = screen(app)
    assert game.names == ["Ada", "Player 2"]
    shown = [w.text for w in game.walk() if getattr(w, "text", None) in ("Ada", "Player 2")]
    assert "Ada" in shown and "Player 2" in shown
    setup.ids.player0.text = ""


def test_a_greyed_round_button_says_why_when_tapped(app):
    game = new_fight(app)
    assert game.ids.next_round.disabled and game.why_next_round     # mid-round
    tap(game.ids.next_round)
    assert app.toast_widget is not None and app.toast_widget.text == game.why_next_round
    assert game.why_next_round == app.session.why_not("tagteam.next_round")
