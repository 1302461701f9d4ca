"""Tag Team in the real window (Xvfb): set up the first-game teams, enter both revealed
cards, see the turn's result, apply it, and undo."""

from __future__ import annotations

import pytest

from tests.gui_support import close_popups, on_screen, plain, tap, wait_for

pytestmark = pytest.mark.gui


def screen(app, name="tagteam_game"):
    return app.root.get_screen(name)


def new_fight(app):
    close_popups(app)
    app.go("home")
    wait_for(lambda: on_screen(app, "home"), what="home")
    tap(screen(app, "home").ids.tile_tagteam)
    wait_for(lambda: on_screen(app, "tagteam_setup"), what="the fight set-up")
    setup = screen(app, "tagteam_setup")
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
    tap(game.ids.next_round)
    assert game.title == "Round 2 · turn 1 of 3"
    tap(game.ids.undo)
    tap(game.ids.undo)
    assert s.state.turn == 2 and s.state.phase == "combat"
