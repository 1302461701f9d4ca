"""The TEKKEN tablet screens, driven through a real window (run under Xvfb).

One window per process: a module fixture builds the app on a temporary COMPANION_HOME and
every test starts its own game by tapping through Home -> TEKKEN -> Start. Assertions check
what the screen shows and the session state behind it.
"""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

from tests.gui_support import TOWER_NAME, close_popups, on_screen, plain, pump, tap, wait_for

pytestmark = pytest.mark.gui

SEED = 20261122


def screen(app, name="tekken_game"):
    return app.root.get_screen(name)


def new_game(app, seed=SEED):
    """Home -> TEKKEN tile -> Start game, all by taps; returns the game screen."""
    close_popups(app)
    app.new_game_rng = random.Random(seed)
    app.go("home")
    wait_for(lambda: on_screen(app, "home"), what="home")
    tap(screen(app, "home").ids.tile_tekken)
    wait_for(lambda: on_screen(app, "tekken_setup"), what="setup screen")
    before = app.session
    tap(screen(app, "tekken_setup").ids.start)
    wait_for(lambda: app.session is not before and on_screen(app, "tekken_game"),
             what="the new game")
    return screen(app)


def hp_text(game, player):
    return plain(game.ids[f"fighter{player}"].ids.hp_label.text)


def log_texts(game):
    return plain(game.ids.log.text).split("\n")


def connect_and_deal(game, *strikes):
    tap(game.ids.card_hit)
    for s in strikes:
        tap(game.ids[f"strike{s}"])
    tap(game.ids.deal)


# --------------------------------------------------------------------------- tests


def test_start_from_setup_screen(app):
    game = new_game(app)
    state = app.session.state
    assert [f.name for f in state.fighters] == ["Jin", "Kazuya"]
    assert state.offensive == 0 and state.rounds_to_win == 3
    assert plain(game.ids.header.text) == "Jin's String (Offensive) – Kazuya defends"
    assert hp_text(game, 0) == "20 / 20" and hp_text(game, 1) == "20 / 20"
    assert [t.text for t in game.ids.slots.children[::-1]] == ["free"] * 3
    assert [t.kind for t in game.ids.tokens.children] == ["hidden"] * 6
    assert "Upperside" in game.ids.stage.text
    # nothing to resolve yet: strikes and walls are off, the String's actions are on
    assert game.ids.deal.disabled and game.ids.wall.disabled and game.ids.strike2.disabled
    assert not game.ids.card_hit.disabled and not game.ids.heat.disabled
    assert game.ids.undo.disabled and game.ids.redo.disabled
    assert app.session.path.parent == Path(os.environ["COMPANION_HOME"]) / "games"


def test_card_connects_then_strike_2(app):
    game = new_game(app)
    tap(game.ids.card_hit)
    assert [t.text for t in game.ids.slots.children[::-1]][0] == "HIT"
    assert not game.ids.strike2.disabled
    unpicked = tuple(game.ids.strike2.bg)
    tap(game.ids.strike2)
    assert plain(game.ids.deal.text) == "Deal: Strike 2"
    # a picked strike looks picked, with how many times (the others stay as they were)
    assert plain(game.ids.strike2.text) == "Strike 2 ×1" and tuple(game.ids.strike2.bg) != unpicked
    assert plain(game.ids.strike1.text) == "Strike 1" and tuple(game.ids.strike1.bg) == unpicked
    tap(game.ids.deal)
    assert plain(game.ids.strike2.text) == "Strike 2" and tuple(game.ids.strike2.bg) == unpicked
    assert hp_text(game, 1) == "18 / 20"
    assert app.session.state.fighters[1].hp == 18
    assert log_texts(game)[0] == "Kazuya -2 HP (Strike 2)"
    assert game.ids.fighter1.ids.hp_bar.hp == 18
    assert plain(game.ids.undo.text) == "Undo: Kazuya -2 HP (Strike 2)"
    assert game.pending == []


def test_heat_adds_a_4th_slot_and_disables_itself(app):
    game = new_game(app)
    tap(game.ids.heat)
    assert app.session.state.heat_this_string
    assert len(game.ids.slots.children) == 4
    assert game.ids.heat_note.text == "Heat active: 4th slot"
    assert game.ids.heat.disabled
    assert plain(game.ids.fighter0.ids.heat.text) == "Heat: ACTIVE"


def test_illegal_action_shows_toast_and_changes_nothing(app):
    game = new_game(app)
    heat = game.ids.heat
    # a double tap lands before the rate-limited redraw disables the button
    tap(heat, frames=0)
    tap(heat, frames=0)
    pump(3)
    assert app.toast_widget is not None and app.toast_widget.parent is not None
    assert "already used" in app.toast_widget.text
    assert len(app.session.actions) == 1
    assert [e.text for e in app.session.log()] == [log_texts(game)[0]]
    assert heat.disabled


def test_red_zone_turns_the_bar_red(app):
    game = new_game(app)
    connect_and_deal(game, 3, 3, 3, 3, 2)          # 14 damage -> 6 HP
    bar = game.ids.fighter1.ids.hp_bar
    assert bar.hp == 6 and tuple(bar.bar_color)[:3] == pytest.approx((0.88, 0.18, 0.18))
    assert tuple(game.ids.fighter0.ids.hp_bar.bar_color)[:3] != tuple(bar.bar_color)[:3]


def pick_rage(app, panel, card):
    """The hand-over, by taps: open it, "show my cards", a card, Done."""
    tap(panel.ids.rage_pick)
    view = panel.rage_view
    assert view is not None and view.step == "hand"
    tap(view.ids.go)
    tap(view.ids[f"card{card}"])
    tap(view.ids.go)
    wait_for(lambda: panel.rage_view is None or panel.rage_view.parent is None, what="the pick closed")


def test_rage_choice_stays_secret_until_revealed(app):
    game = new_game(app)
    panel = game.ids.fighter1
    pick_rage(app, panel, 1)
    assert app.session.state.fighters[1].rage == "chosen"
    assert plain(panel.ids.rage.text) == "Rage card chosen"
    assert panel.ids.rage_pick.disabled
    connect_and_deal(game, 3, 3, 3, 3, 2)          # Kazuya to 6 HP: Rage revealed
    assert app.session.state.fighters[1].rage == "revealed"
    assert "Rage card B" in panel.ids.rage.text and "REVEALED" in panel.ids.rage.text


def visible_texts(widget):
    """Every text a player can see in ``widget`` (shown, non-empty)."""
    out = []
    for w in widget.walk():
        if getattr(w, "opacity", 1) > 0 and getattr(w, "text", "") and w.height > 0:
            out.append(plain(w.text))
    return out


def test_rage_pick_is_a_hand_over_the_opponent_never_sees(app):
    """Hand the tablet over, the others look away: the card names are on screen only at the
    'pick' step, the game screen is covered the whole time, and after the pick nothing says
    which card it was. Cancel chooses nothing."""
    game = new_game(app)
    panel = game.ids.fighter0
    tap(panel.ids.rage_pick)
    view = panel.rage_view
    assert view.parent is not None and tuple(view.size) == tuple(app.root_window.size)
    assert view.background_color[3] == 1               # opaque: the game is hidden behind it
    shown = " ".join(visible_texts(view))
    assert "look away" in shown and "Rage card A" not in shown and "Rage card B" not in shown
    tap(view.ids.cancel)                               # not now: nothing chosen
    assert view.parent is None and app.session.state.fighters[0].rage == "unchosen"
    actions = len(app.session.actions)

    tap(panel.ids.rage_pick)
    view = panel.rage_view
    tap(view.ids.go)                                   # "I'm ...: show my Rage cards"
    shown = " ".join(visible_texts(view))
    assert "Rage card A" in shown and "Rage card B" in shown
    tap(view.ids.card0)
    assert app.session.state.fighters[0].rage == "chosen" and len(app.session.actions) == actions + 1
    shown = " ".join(visible_texts(view))
    assert "Hand the tablet back" in shown and "Rage card A" not in shown
    tap(view.ids.go)                                   # Done
    assert view.parent is None
    assert "Rage card A" not in " ".join(visible_texts(game))
    tap(game.ids.undo)                                 # Undo takes the pick back
    assert app.session.state.fighters[0].rage == "unchosen"
    assert not panel.ids.rage_pick.disabled


def test_rage_hand_over_names_the_player_and_closes_with_the_screen(app):
    game = new_game(app)
    panel = game.ids.fighter1
    tap(panel.ids.rage_pick)
    view = panel.rage_view
    who = app.session.state.fighters[1].player or f"{app.session.state.fighters[1].name}'s player"
    assert who in plain(view.ids.prompt.text)
    app.go("home")
    wait_for(lambda: on_screen(app, "home"), what="home")
    assert view.parent is None and panel.rage_view is None


def test_cracked_floor_reveals_tokens_then_breaks(app):
    game = new_game(app)
    order = app.session.state.floor.order   # the test may know the seeded order
    third = [i for i, c in enumerate(order) if c][2]   # index of the 3rd cracked token
    tap(game.ids.card_hit)
    tap(game.ids.cracked)
    assert game.cracked_floor
    for n in range(1, third + 1):           # one Strike symbol per deal: one reveal each
        tap(game.ids.strike1)
        tap(game.ids.deal)
        kinds = [t.kind for t in game.ids.tokens.children[::-1]]
        assert kinds == (["cracked" if c else "empty" for c in order[:n]]
                         + ["hidden"] * (6 - n))
        assert game.cracked_floor           # the toggle is sticky
    assert app.session.state.floor.breaks == 0
    assert app.banner_widget is None
    tap(game.ids.strike1)
    tap(game.ids.deal)
    state = app.session.state
    assert state.floor.breaks == 1 and state.floor.side == 1
    assert app.banner_widget is not None and app.banner_widget.parent is not None
    assert "FLOOR BREAK!" in app.banner_widget.text
    assert "Underside" in app.banner_widget.text and "Jin gains a Punishment" in \
        app.banner_widget.text
    assert "Underside" in game.ids.stage.text
    assert [t.kind for t in game.ids.tokens.children] == ["hidden"] * 6
    assert state.fighters[0].punishment == 1
    assert plain(game.ids.fighter0.ids.punishment.text) == "Punishment: 1"
    assert plain(game.ids.card_hit.text) == "Punishment card (unblockable)"
    assert game.ids.card_blocked.disabled
    assert "THE FLOOR BREAKS" in log_texts(game)[0]


def test_undo_restores_hp_and_log_and_redo_replays(app):
    game = new_game(app)
    connect_and_deal(game, 2, 1)
    assert hp_text(game, 1) == "17 / 20"
    assert log_texts(game)[0] == "Kazuya -3 HP (Strike 2 + Strike 1)"
    tap(game.ids.undo)
    assert hp_text(game, 1) == "20 / 20"
    assert app.session.state.fighters[1].hp == 20
    assert log_texts(game)[0] == "Jin: card 1 connects"
    assert not game.ids.redo.disabled
    assert plain(game.ids.redo.text) == "Redo: Kazuya -3 HP (Strike 2 + Strike 1)"
    tap(game.ids.redo)
    assert hp_text(game, 1) == "17 / 20" and game.ids.redo.disabled


def test_manual_hp_buttons(app):
    game = new_game(app)
    panel = game.ids.fighter0
    assert panel.ids.plus.disabled            # already at max HP
    tap(panel.ids.minus)
    assert hp_text(game, 0) == "19 / 20"
    assert log_texts(game)[0] == "Jin -1 HP (manual)"
    assert not panel.ids.plus.disabled


def test_blocked_card_switches_the_string(app):
    game = new_game(app)
    tap(game.ids.card_blocked)
    state = app.session.state
    assert state.offensive == 1 and state.fighters[1].punishment == 1
    assert plain(game.ids.header.text) == "Kazuya's String (Offensive) – Jin defends"
    assert plain(game.ids.fighter1.ids.role.text) == "OFFENSIVE"


def test_ko_asks_first_then_round_over_and_next_round(app):
    game = new_game(app)
    connect_and_deal(game, 3, 3, 3, 3, 3, 3, 3)    # 21 damage: a KO
    popup = app.popup
    assert popup is not None, "a KO must ask before the round ends"
    body = popup.content
    assert "This ends round 1: Kazuya is KO." in body.message
    assert app.session.state.phase == "fight" and app.session.state.fighters[1].hp == 20
    tap(body.ids.ok)
    state = app.session.state
    assert state.phase == "round_over" and state.fighters[0].rounds_won == 1
    assert game.ids.fighter0.ids.pips.value == 1
    rv = game.result_view
    assert rv is not None and rv.ids.title.text == "Round 1 to Jin"
    assert "Start round 2 — Kazuya opens" in rv.ids.next_default.text
    assert "resets HP, Heat, Rage, Punishment and Stun" in rv.ids.reset_note.text
    # leaving the screen takes the card away; coming back brings it back
    from kivy.core.window import Window
    app.go("saved")
    wait_for(lambda: on_screen(app, "saved"), what="saved games")
    assert game.result_view is None and not any(type(w).__name__ == "ResultView"
                                                 for w in Window.children)
    app.go(game.name)
    wait_for(lambda: on_screen(app, game.name) and game.result_view is not None,
             what="the round-over card again")
    rv = game.result_view
    tap(rv.ids.next_default)                                # one tap, no second question
    assert app.popup is None
    state = app.session.state
    assert state.phase == "fight" and state.round == 2 and state.offensive == 1
    assert game.result_view is None
    assert hp_text(game, 1) == "20 / 20"
    assert plain(game.ids.round_text.text).startswith("Round 2")


def test_cancelled_ko_changes_nothing(app):
    game = new_game(app)
    connect_and_deal(game, 3, 3, 3, 3, 3, 3, 3)
    tap(app.popup.content.ids.cancel)
    assert app.popup is None
    assert app.session.state.phase == "fight" and len(app.session.actions) == 1
    assert game.pending == [3] * 7                          # the tray keeps the attack


def test_reopen_restores_the_same_screen(app):
    game = new_game(app)
    connect_and_deal(game, 2)
    tap(game.ids.heat)
    shown = (hp_text(game, 1), log_texts(game), game.ids.undo.text,
             len(game.ids.slots.children))
    path = app.session.path
    app.go("home")
    wait_for(lambda: on_screen(app, "home"))
    app.open_game(path)
    wait_for(lambda: on_screen(app, "tekken_game"), what="reopen")
    assert app.session.path == path
    assert (hp_text(game, 1), log_texts(game), game.ids.undo.text,
            len(game.ids.slots.children)) == shown


def test_startup_resumes_the_last_unfinished_game(app):
    game = new_game(app)
    connect_and_deal(game, 1)
    path = app.session.path
    app.go("home")
    result = app._startup_io(app.data_root)            # what on_start does on a worker
    assert result is not None and result.path == path
    app._startup_done(result)
    wait_for(lambda: on_screen(app, "tekken_game"), what="resume")
    assert app.session.path == path and hp_text(game, 1) == "19 / 20"


def test_torn_journal_asks_and_repairs(app):
    game = new_game(app)
    connect_and_deal(game, 2)
    path = app.session.path
    app.go("home")
    wait_for(lambda: on_screen(app, "home"))
    with open(path, "ab") as f:
        f.write(b'{"seq": 4, "type": "tekken.str')       # a torn last line
    app.open_game(path)
    wait_for(lambda: app.popup is not None, what="the repair question")
    body = app.popup.content
    assert path.name in plain(body.message) and "line 4" in body.message
    assert body.ids.ok.text == "Keep the 2 intact actions and continue"
    assert body.ids.cancel.text == "Leave it untouched"
    tap(body.ids.ok)
    wait_for(lambda: on_screen(app, "tekken_game"), what="repaired")
    assert app.session.path == path and len(app.session.actions) == 2
    assert hp_text(game, 1) == "18 / 20"
    assert list(path.parent.glob(path.name + ".damaged-line-4-*"))


def test_a_game_open_elsewhere_opens_read_only(app):
    from companion.session import Session

    game = new_game(app)
    connect_and_deal(game, 2)
    path = app.session.path
    app.go("home")
    wait_for(lambda: on_screen(app, "home"))
    app.open_game(path)                       # our own game again: the app lets go first
    wait_for(lambda: on_screen(app, "tekken_game") and not app.busy, what="reopened")
    assert not app.session.read_only
    app.session.close()
    app.session = None
    elsewhere = Session.open(path)            # another window takes the game
    try:
        app.open_game(path)
        wait_for(lambda: app.session is not None and on_screen(app, "tekken_game")
                 and not app.busy, what="opened read-only")
        assert app.session.read_only
        assert "open elsewhere" in plain(app.banner_widget.text)
        before = path.read_bytes()
        tap(game.ids.card_hit)
        wait_for(lambda: app.toast_widget is not None
                 and "open elsewhere" in app.toast_widget.text, what="the refusal")
        assert path.read_bytes() == before    # nothing written by the read-only window
    finally:
        elsewhere.close()
        app.session.close()
        app.session = None


def test_a_torn_first_line_is_moved_aside(app):
    close_popups(app)
    torn = Path(os.environ["COMPANION_HOME"]) / "games" / "zz-torn.jsonl"
    torn.write_bytes(b'{"seq":1,"type":"game.start","at":"","data":{"game":"tek')
    app.open_game(torn)
    wait_for(lambda: app.popup is not None, what="the move-aside question")
    body = app.popup.content
    assert "its first line is damaged" in plain(body.message)
    assert body.ids.ok.text == "Move it aside"
    tap(body.ids.ok)
    wait_for(lambda: not torn.exists() and not app.busy, what="moved aside")
    assert list(torn.parent.glob("zz-torn.jsonl.damaged-*"))


def test_unreadable_journal_shows_error_and_goes_home(app):
    close_popups(app)
    bad = Path(os.environ["COMPANION_HOME"]) / "games" / "zz-bad.jsonl"
    bad.write_text('{"seq": 1, "type": "nope.start", "at": "", "data": {}}\n'
                   '{"seq": 2, "type": "x", "at": "", "data": {}}\n')
    app.open_game(bad)
    wait_for(lambda: app.popup is not None, what="the error popup")
    assert "zz-bad.jsonl" in app.popup.content.message
    tap(app.popup.content.ids.ok)
    wait_for(lambda: on_screen(app, "home"))
    bad.unlink()


def test_saved_games_lists_and_opens(app):
    game = new_game(app)
    connect_and_deal(game, 3)
    path = app.session.path
    app.go("home")
    wait_for(lambda: on_screen(app, "home"))
    home = screen(app, "home")
    assert home.resume_text.startswith("Resume: Jin 0 – 0 Kazuya")
    tap(home.ids.saved)
    saved = screen(app, "saved")
    wait_for(lambda: saved.ids.rows.children and not app.busy, what="saved list")
    assert path in saved.row_buttons
    row = saved.row_buttons[path]
    assert "in progress" in plain(row.text) and "Jin 0 – 0 Kazuya, round 1" in plain(row.text)
    app.new_game_rng = None
    tap(row)
    wait_for(lambda: on_screen(app, "tekken_game") and app.session.path == path
             and not app.busy, what="open from list")
    assert hp_text(game, 1) == "17 / 20"


def test_save_defaults_and_export(app):
    close_popups(app)
    app.open_setup("tekken")
    wait_for(lambda: on_screen(app, "tekken_setup"))
    setup = screen(app, "tekken_setup")
    f0 = setup.ids.fighter0
    assert "default" in f0.hint
    plus = [w for w in f0.walk() if getattr(w, "text", None) == "+"][0]
    tap(plus)
    tap(plus)
    assert setup.hps[0] == 22 and f0.hint == ""
    tap(setup.ids.save_defaults)
    wait_for(lambda: not app.busy, what="saving")
    from companion import files
    from companion.games.tekken import TekkenConfig
    cfg = files.load_config(TekkenConfig, "tekken", app.data_root)
    jin = cfg.character("Jin")
    assert jin.max_hp == 22 and not jin.max_hp_is_default
    assert cfg.character("Kazuya").max_hp_is_default
    tap(setup.ids.start)
    wait_for(lambda: on_screen(app, "tekken_game"))
    game = screen(app)
    assert hp_text(game, 0) == "22 / 22"
    tap(game.ids.export)
    wait_for(lambda: not app.busy, what="export")
    out = app.data_root / "exports" / f"{app.session.path.stem}.json"
    assert out.exists() and '"game": "tekken"' in out.read_text()
    # the file's name, never its path (words for players)
    assert app.toast_widget.text == f"Exported: {out.name}"
    assert str(app.data_root) not in app.toast_widget.text


def test_screen_never_shows_hidden_tokens(app):
    game = new_game(app)
    state = app.session.state
    assert state.floor.revealed == 0
    assert all(t.kind == "hidden" and t.text == "?" for t in game.ids.tokens.children)
    # the screensaver is held off while the game screen is shown
    from kivy.core.window import Window
    assert Window.allow_screensaver is False
    app.go("home")
    wait_for(lambda: on_screen(app, "home"))
    assert Window.allow_screensaver is True


# -- the dice tower panel ---------------------------------------------------------------------

def _hub():
    from firmware_bridge.host.urlhandlers import protocol_sim

    return protocol_sim.hub(TOWER_NAME)


def test_dice_panel_shows_the_link_and_the_last_roll(app):
    close_popups(app)
    app.go("home")
    wait_for(lambda: on_screen(app, "home"), what="home")
    wait_for(lambda: app.tower_state == "connected",
             what=lambda: f"the simulated tower connects ({app.tower_state}: {app.tower_detail})")
    chip = screen(app, "home").ids.tower
    assert app.tower_simulated
    assert plain(chip.text) == "Simulated tower: Connected"
    tap(chip)
    wait_for(lambda: on_screen(app, "dice"), what="dice panel")
    dice = screen(app, "dice")
    assert plain(dice.ids.state.text) == "Connected"
    assert dice.ids.title.text == "Simulated tower"
    assert "sim 1.1.0" in dice.ids.detail.text
    assert dice.ids.sim_roll.opacity == 1
    from companion.app.main import roll_words

    last = app.roll_journal.recent_rolls(1)
    app.sim_dice = "takkure"  # whatever game an earlier test opened: the 3 red, 3 yellow d12
    tap(dice.ids.sim_roll)   # (the history keeps the last 12: its length may not grow)
    wait_for(lambda: app.roll_journal.recent_rolls(1) != last and app.roll_history
             and app.roll_history[0] == roll_words(app.roll_journal.recent_rolls(1)[0]),
             what="the roll")
    faces = list(reversed(dice.ids.last_roll.children))
    recorded = app.roll_journal.recent_rolls(1)[0]
    assert [f.text for f in faces] == [d.face for d in recorded.dice]
    assert [f.caption for f in faces] == ["red d12"] * 3 + ["yellow d12"] * 3
    assert recorded.text() in dice.ids.history.text


def test_cocked_die_is_flagged_not_hidden(app):
    app.go("dice")
    wait_for(lambda: on_screen(app, "dice"), what="dice panel")
    _hub().roll("d12:red:?cocked d12:yellow:3")
    wait_for(lambda: app.last_roll_unclean, what="the cocked roll")
    faces = list(reversed(screen(app, "dice").ids.last_roll.children))
    assert [(f.text, f.caption) for f in faces] == [("?", "COCKED"), ("3", "yellow d12")]
    assert tuple(faces[0].ring) != (0, 0, 0, 0)


def test_unplug_shows_reconnecting_then_connected(app):
    app.go("dice")
    wait_for(lambda: on_screen(app, "dice"), what="dice panel")
    _hub().unplug()
    wait_for(lambda: app.tower_state in ("reconnecting", "not_found"), what="link lost")
    assert plain(screen(app, "dice").ids.state.text) in ("Reconnecting…", "Not found")
    _hub().replug()
    wait_for(lambda: app.tower_state == "connected", what="reconnected")


@pytest.fixture
def tekken_with_d12():
    """TEKKEN as if it were played with the d12 dice (TEKKEN itself takes none): a game
    open on the tablet that takes the tower's throws, for the delivery tests below."""
    import dataclasses

    from companion import registry

    entry = registry.get("tekken")
    registry.register(dataclasses.replace(entry, dice_kinds=("d12",)))
    yield
    registry.register(entry)


def test_a_roll_reaches_the_open_game_once_and_survives_undo(app, tekken_with_d12):
    new_game(app)
    app.session.do("tekken.adjust_hp", player=0, delta=-1)
    _hub().roll("d12:red:7 d12:yellow:12")
    wait_for(lambda: app.session.rolls, what="the roll in the game")
    session = app.session
    (event,) = session.rolls
    assert event.type == "dice.roll"
    assert [d["face"] for d in event.data["dice"]] == ["7", "12"]
    assert session.log()[-1].text == "Dice tower: red d12 7, yellow d12 12"
    lines = session.path.read_text().splitlines()
    assert sum('"dice.roll"' in line for line in lines) == 1
    # the same roll again (an app restart while the tower resends) is not recorded twice
    assert session.record_roll(event.data["boot_id"], event.data["seq"], event.data["dice"]) is None
    app.undo()  # takes back the HP change recorded before the roll, not the roll
    pump(3)
    assert session.state.fighters[0].hp == session.state.fighters[0].max_hp
    assert len(session.rolls) == 1 and not session.can_undo


def test_a_roll_recorded_but_never_delivered_reaches_the_game_once_late(app, tekken_with_d12):
    """Protocol 1.1, exactly once to the game: a roll in the roll journal that the app never
    handed to the game (it died between the two) is delivered after the next reconnect."""
    from firmware_bridge.host.events import DieReading, RollEvent

    new_game(app)
    session = app.session
    dice = (DieReading(0, "d12", "9", "red", "clean"),)
    app.roll_journal.record(RollEvent(0x5EED, 3, dice))  # recorded and ACKed; app killed here
    for _ in range(2):  # two reconnects: delivered at the first, not again at the second
        _hub().unplug()
        wait_for(lambda: app.tower_state in ("reconnecting", "not_found"), what="link lost")
        _hub().replug()
        wait_for(lambda: app.tower_state == "connected", what="reconnected")
        wait_for(lambda: session.rolls, what="the late roll in the game")
        pump(3)
    (event,) = session.rolls
    assert (event.data["boot_id"], event.data["seq"], event.data["late"]) == (0x5EED, 3, True)
    assert session.log()[-1].text == "Dice tower (arrived late): red d12 9"
    assert app.roll_journal.undelivered() == []


def test_a_game_without_a_screen_is_refused_not_crashed(app, tmp_path, monkeypatch):
    """A journal of a game whose screen is not in this build: opening it says so."""
    import dataclasses
    import random as _random

    from companion import registry
    from companion.session import Session
    from tests.takkure_support import demo_setup

    close_popups(app)
    entry = registry.get("takkure")   # as if its play screen could not be built
    broken = dataclasses.replace(entry, play="takkure_unbuilt", screens={
        **entry.screens, "takkure_unbuilt": "tests.no_such_module:Screen"})
    monkeypatch.setitem(registry._entries, "takkure", broken)
    path = tmp_path / "takkure.jsonl"
    Session.create(path, "takkure", demo_setup(), _random.Random(1)).close()
    before = app.session
    app.open_game(path)
    wait_for(lambda: app.popup is not None, what="the refusal")
    message = app.popup.content.message
    # a sentence for players: no command line, no file path
    assert "Takkure" in message and "companion log" not in message and str(path) not in message
    assert app.session is before
    close_popups(app)


def test_cracked_floor_does_not_carry_over_to_another_string(app):
    """"Defender on Cracked Floor" is about one defender in one String: a new String (the
    card blocked: the other fighter attacks, the first one defends) starts with it off."""
    game = new_game(app)
    tap(game.ids.card_hit)
    tap(game.ids.cracked)
    assert game.cracked_floor
    tap(game.ids.strike1)
    tap(game.ids.deal)
    assert game.cracked_floor                 # same String, same defender: still on
    tap(game.ids.card_blocked)                # Jin's String ends: Kazuya attacks, Jin defends
    state = app.session.state
    assert state.offensive == 1 and state.string_no == 2
    assert not game.cracked_floor
    assert game.ids.cracked.state == "normal"
    tap(game.ids.card_hit)
    tap(game.ids.strike1)
    tap(game.ids.deal)
    # the Strike on Jin was dealt off the cracked floor: no floor token revealed for it
    assert app.session.state.floor.revealed == 1
    assert app.session.actions[-1].data["cracked_floor"] is False


def test_cracked_floor_does_not_survive_undo_into_another_string(app):
    game = new_game(app)
    tap(game.ids.card_blocked)                # Kazuya's String now
    tap(game.ids.card_hit)
    tap(game.ids.cracked)
    assert game.cracked_floor
    app.undo()                                # back to Jin's String against Kazuya
    app.undo()
    pump(3)
    assert app.session.state.offensive == 0
    assert not game.cracked_floor


def test_tekken_records_no_throw_and_the_screen_says_nobody_took_it(app):
    """TEKKEN is played without dice: a throw is in the dice history, not in the game, and
    the banner says why; the dice panel says what became of the last roll."""
    new_game(app)
    wait_for(lambda: app.tower_state == "connected", what="the simulated tower")
    session = app.session
    lines_before = session.path.read_text().splitlines()
    app.last_roll_text = ""                  # the history is capped: wait on the last roll
    _hub().roll("d12:red:4 d12:yellow:8")
    wait_for(lambda: app.last_roll_text, what="the roll")
    wait_for(lambda: app.banner_widget is not None and app.banner_widget.parent is not None,
             what="the banner")
    assert not session.rolls
    assert session.path.read_text().splitlines() == lines_before
    assert "red d12 4" in app.banner_widget.text
    assert "Not used: TEKKEN is played without dice" in app.banner_widget.text
    assert app.roll_journal.undelivered() == []           # not offered again at reconnect
    app.open_dice()                                       # TEKKEN has no tower chip
    wait_for(lambda: on_screen(app, "dice"), what="dice panel")
    assert screen(app, "dice").ids.roll_note.text == "Not used: TEKKEN is played without dice"


def test_a_throw_with_no_game_open_says_so(app):
    close_popups(app)
    if app.session is not None:
        app.session.close()
        app.session = None
    app.go("home")
    wait_for(lambda: on_screen(app, "home"), what="home")
    app.last_roll_text = ""
    _hub().roll("d12:red:5")
    wait_for(lambda: app.last_roll_text, what="the roll")
    wait_for(lambda: app.banner_widget is not None and app.banner_widget.parent is not None,
             what="the banner")
    assert "No game is open" in app.banner_widget.text


def test_every_tower_chip_says_simulated_tower(app):
    assert app.tower_simulated
    chips = {"home": screen(app, "home").ids.tower,
             "kotd_game": screen(app, "kotd_game").ids.tower,
             "takkure_game": screen(app, "takkure_game").ids.dice}
    for name, chip in chips.items():
        assert plain(chip.text).replace("\n", " ").startswith("Simulated tower"), name
    app.tower_simulated = False
    try:
        pump(2)
        for name, chip in chips.items():
            assert plain(chip.text).replace("\n", " ").startswith("Dice tower"), name
    finally:
        app.tower_simulated = True
        pump(2)


def test_back_from_the_dice_panel_returns_where_the_player_came_from(app):
    game = new_game(app)                       # a game is open, the player goes Home
    app.go("home")
    wait_for(lambda: on_screen(app, "home"), what="home")
    tap(screen(app, "home").ids.tower)
    wait_for(lambda: on_screen(app, "dice"), what="dice panel")
    tap(screen(app, "dice").ids.back)
    wait_for(lambda: on_screen(app, "home"), what="back Home, where the player was")
    app.go("tekken_game")
    wait_for(lambda: on_screen(app, "tekken_game"), what="the game")
    app.open_dice()
    wait_for(lambda: on_screen(app, "dice"), what="dice panel")
    tap(screen(app, "dice").ids.back)
    wait_for(lambda: on_screen(app, "tekken_game"), what="back to the game")
    assert game.manager.current == "tekken_game"


def test_delete_a_saved_game_asks_once_and_never_deletes_the_open_game(app):
    first = new_game(app)
    connect_and_deal(first, 2)
    old = app.session.path
    new_game(app, seed=SEED + 1)                 # another game is open now
    current = app.session.path
    assert old != current and old.exists()
    app.go("saved")
    saved = screen(app, "saved")
    wait_for(lambda: on_screen(app, "saved") and old in getattr(saved, "row_buttons", {}),
             what="saved list")
    # the open game's row offers no delete
    assert saved.delete_buttons[current].disabled
    assert plain(saved.delete_buttons[current].text) == "Playing now"
    # cancel keeps the file
    tap(saved.delete_buttons[old])
    body = wait_for(lambda: app.popup, what="the confirmation").content
    assert "Delete this saved game?" in body.message and "cannot be brought back" in body.message
    tap(body.ids.cancel)
    assert old.exists()
    from kivy.uix.modalview import ModalView
    wait_for(lambda: not any(isinstance(w, ModalView) for w in app.root_window.children),
             what="the confirmation closed")
    # confirm deletes it, once, and the list follows
    tap(saved.delete_buttons[old])
    tap(wait_for(lambda: app.popup, what="the confirmation").content.ids.ok)
    wait_for(lambda: not old.exists() and not app.busy and old not in saved.row_buttons,
             what="the deletion")
    assert app.popup is None and current.exists()
    # the open game is refused even when asked directly (the app, then the journal's lock)
    from companion import storage
    from companion.errors import GameLockedError
    from companion.journal import delete

    app.delete_saved(storage.read_saved(current))
    assert app.popup is None and current.exists()
    assert "open" in app.toast_widget.text
    with pytest.raises(GameLockedError):
        delete(current)
    assert current.exists()
    app.go("tekken_game")


def test_players_names_beside_their_characters(app):
    close_popups(app)
    app.new_game_rng = random.Random(SEED)
    app.go("home")
    wait_for(lambda: on_screen(app, "home"), what="home")
    tap(screen(app, "home").ids.tile_tekken)
    wait_for(lambda: on_screen(app, "tekken_setup"), what="setup screen")
    setup = screen(app, "tekken_setup")
    setup.ids.fighter0.ids.player_name.text = " Ada "
    setup.ids.fighter1.ids.player_name.text = "Grace"
    before = app.session
    tap(setup.ids.start)
    wait_for(lambda: app.session is not before and on_screen(app, "tekken_game"),
             what="the new game")
    game = screen(app)
    assert [f.player for f in app.session.state.fighters] == ["Ada", "Grace"]
    assert plain(game.ids.fighter0.ids.role.text) == "OFFENSIVE  ·  Ada"
    assert plain(game.ids.fighter1.ids.role.text) == "Defender  ·  Grace"
    setup.ids.fighter0.ids.player_name.text = ""
    setup.ids.fighter1.ids.player_name.text = ""


def test_the_card_button_looks_as_the_state_says_in_french_too(app):
    """Its colour follows the state (a Punishment card or not), never its English words:
    in French 'La carte touche' is drawn green, as 'Card connects' is."""
    game = new_game(app)
    green = (0.18, 0.55, 0.3, 1)
    assert tuple(game.ids.card_hit.bg) == green and not game.card_punishes
    app.set_language("fr")
    try:
        wait_for(lambda: game.card_text != "Card connects", what="the French card text")
        assert tuple(game.ids.card_hit.bg) == green
    finally:
        app.set_language("en")


def test_defender_on_cracked_floor_is_restored_when_the_game_is_resumed(app):
    """The switch is part of the String as the journal has it: Home, then Resume (the game
    opened again from its file), brings it back on for the rest of that String."""
    game = new_game(app)
    tap(game.ids.card_hit)
    tap(game.ids.cracked)
    tap(game.ids.strike1)
    tap(game.ids.deal)
    assert app.session.actions[-1].data["cracked_floor"] is True
    app.go("home")
    home = screen(app, "home")
    wait_for(lambda: on_screen(app, "home") and home.resume_path is not None, what="home")
    before = app.session
    tap(home.ids.resume)
    wait_for(lambda: app.session is not before and on_screen(app, "tekken_game"), what="resumed")
    assert game.cracked_floor and game.ids.cracked.state == "down"
    tap(game.ids.card_blocked)                # the next String starts with it off
    assert not game.cracked_floor


def test_a_greyed_action_says_why_in_the_rules_words(app):
    """Tapping a greyed-out action is not silent: the toast says what the rules say."""
    game = new_game(app)
    tap(game.ids.card_hit)
    assert game.ids.rage.disabled
    tap(game.ids.rage)
    expected = app.session.why_not("tekken.rage")
    assert expected and app.toast_widget is not None and app.toast_widget.text == expected
    assert "Rage" in expected                      # the engine's sentence, not a generic one
    assert app.session.actions[-1].type == "tekken.card"     # nothing was done
