"""A sixth game (tests/fakegame: its rules, its screens, its config file) added through the
registry alone is on Home, is played from there in the real window (Xvfb), takes the dice
tower's throws, is undone, listed among the saved games and resumed: nothing outside its own
files was edited for it."""

from __future__ import annotations

import pytest

from tests.gui_support import close_popups, on_screen, open_from_home, tap, wait_for

pytestmark = pytest.mark.gui


@pytest.fixture
def coinrace(app):
    from companion import registry
    from tests.fakegame import ENTRY

    registry.register(ENTRY)
    yield ENTRY
    # the game leaves with its entry: the app must not keep a session the registry no longer
    # knows (the next test's language switch or refresh would look its screen up)
    if app.session is not None and app.session.game == ENTRY.id:
        app.session.close()
        app.session = None
        app.go("home")
    registry.unregister(ENTRY.id)


def test_a_sixth_game_plugs_in_through_the_registry_and_is_played_from_home(app, coinrace):
    close_popups(app)
    setup = open_from_home(app, "coinrace", "coinrace_setup")
    assert setup.summary == "Ada vs Grace, first to 3 coins"     # its own coinrace.yaml
    before = app.session
    tap(setup.ids.start)
    wait_for(lambda: app.session is not before and on_screen(app, "coinrace_game"),
             what="the race")
    game = app.root.get_screen("coinrace_game")
    assert app.session.game == "coinrace" and game.status == "Ada's turn"

    tap(game.ids.coin1)                                  # not Grace's turn: refused
    wait_for(lambda: app.toast_widget is not None and "Ada's turn" in app.toast_widget.text,
             what="the refusal")
    assert app.session.state.coins == (0, 0)
    for button in ("coin0", "coin1", "coin0", "coin1"):
        tap(game.ids[button])
    wait_for(lambda: game.coins == [2, 2], what="four coins")
    tap(game.ids.undo)
    wait_for(lambda: game.coins == [2, 1] and game.status == "Grace's turn", what="undo")
    assert game.undo_text.startswith("Undo: Ada adds a coin")

    # the dice tower's throw goes to the open game through take_throw
    app.simulated_roll("d6")
    wait_for(lambda: game.last_throw.startswith("Rolled "), what="the throw")
    assert len(app.session.rolls) == 1

    tap(game.ids.coin1)
    tap(game.ids.coin0)
    wait_for(lambda: game.status == "Ada wins!", what="the win")
    assert app.session.state.winner == 0

    # the shell lists and reopens it like any other game
    path = app.session.path
    tap(game.ids.home)
    wait_for(lambda: on_screen(app, "home"), what="home")
    saved = []
    app.list_saved(saved.extend)
    wait_for(lambda: saved, what="the saved games")
    mine = next(g for g in saved if g.path == path)
    assert (mine.title, mine.summary, mine.over) == ("Coin Race", "Ada 3 – 2 Grace", True)
    app.open_game(path)
    wait_for(lambda: on_screen(app, "coinrace_game"), what="reopened")
    assert game.coins == [3, 2]
    app.go_home()
    wait_for(lambda: on_screen(app, "home"), what="home")


def test_homes_tiles_follow_the_registry(app, coinrace):
    from companion import registry

    close_popups(app)
    app.go("saved")
    wait_for(lambda: on_screen(app, "saved"))
    app.go("home")
    wait_for(lambda: on_screen(app, "home"))
    home = app.root.get_screen("home")
    assert "tile_coinrace" in home.ids
    registry.unregister("coinrace")
    app.go("saved")
    wait_for(lambda: on_screen(app, "saved"))
    app.go("home")
    wait_for(lambda: on_screen(app, "home"))
    assert "tile_coinrace" not in home.ids
    assert [k for k in home.ids if k.startswith("tile_")] == \
        [f"tile_{g}" for g in registry.ids()]
    registry.register(coinrace)
