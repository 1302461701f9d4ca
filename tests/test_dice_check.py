"""Checking dice by hand (issue 26, item 6): a throw with a die the tower was not sure of waits
for the player to set it, one tap a die, in the real window; a die read cleanly can be
disputed from the dice panel; what the player set is kept in the roll journal beside what the
tower read. The sheet's words and choices are tested without a window first."""

from __future__ import annotations

import json

import pytest

from companion.views import dice_check as v
from tests.gui_support import on_screen, open_from_home, plain, tap, wait_for

DICE = [{"slot": 0, "kind": "spawn", "face": None, "colour": "white", "status": "cocked"},
        {"slot": 1, "kind": "d12", "face": "7", "colour": "red", "status": "clean",
         "confidence": 0.9}]


def test_the_likeliest_faces_first_then_every_other_face_of_the_kind():
    first, rest = v.offer(DICE[1], ["1", "7"], v.faces_of("d12", {}))
    assert first == ("1", "7") and rest == tuple(str(i) for i in range(2, 13) if i != 7)
    # no picture yet: the face the tower read, else nothing first and every face after
    assert v.offer(DICE[1], [], v.faces_of("d12", {}))[0] == ("7",)
    first, rest = v.offer(DICE[0], [], v.faces_of("spawn", {}))
    assert first == () and len(rest) == 6
    # the tower's own list of faces wins, and a face only it names is still offered
    assert v.offer(DICE[1], ["13", "7", "1", "2"], v.faces_of("d12", {"d12": ["1", "7"]})) == (
        ("13", "7", "1"), ())


def test_what_the_tower_read_in_words_and_the_roll_as_it_came_up():
    rows = v.to_check(DICE, [0, 1], {}, {}, {1: "1"})
    assert [(r.name, r.read, r.chosen, r.unsure) for r in rows] == [
        ("white spawn die", "cocked: no face read", None, True),
        ("red d12", "read as 7", "1", False)]
    assert v.unsure(DICE) == [0] and not v.complete([0, 1], {1: "1"})
    fixed = v.corrected(DICE, {0: "NO_SPAWN", 1: "1"})
    assert fixed[0] == {"slot": 0, "kind": "spawn", "face": "NO_SPAWN", "colour": "white",
                        "status": "clean", "read_face": None, "read_status": "cocked"}
    assert fixed[1]["face"] == "1" and fixed[1]["read_face"] == "7" and "confidence" not in fixed[1]
    assert DICE[0]["face"] is None                      # the reading itself is left alone


def test_what_the_tower_took_for_a_die_and_is_none_is_left_out_of_the_throw():
    # a long shadow's end, a coin, a crumb: the player says it is not a die
    row, _ = v.to_check(DICE, [0, 1], {}, {}, {0: v.NOT_A_DIE})
    assert row.gone and row.chosen == v.NOT_A_DIE and v.complete([0], {0: v.NOT_A_DIE})
    assert not v.to_check(DICE, [0], {}, {}, {0: "NO_SPAWN"})[0].gone
    fixed = v.corrected(DICE, {0: v.NOT_A_DIE})
    assert fixed == [DICE[1]]                           # the other die as it was, its slot kept
    assert v.corrected(DICE, {0: v.NOT_A_DIE, 1: v.NOT_A_DIE}) == []


def test_the_faces_of_the_towers_other_kinds_for_a_die_taken_for_the_wrong_kind():
    # on other renderers' towers a fifth of the dice the tower was not sure of were taken for
    # another kind (a pip die for a King of Tokyo die): their face is not among their kind's
    towers = {"d6": ["1", "2", "3", "4", "5", "6"], "d12": [str(i) for i in range(1, 13)],
              "kotd": ["CLAW", "HEART"], "unknown": ["?"], "mystery": []}
    die = {"slot": 0, "kind": "kotd", "face": None, "colour": "white", "status": "unreadable"}
    row, = v.to_check([die], [0], {0: ["HEART"]}, towers, {})
    assert row.first == ("HEART",) and row.rest == ("CLAW",)
    # the tower's other kinds, in its order, in players' words: not the die's own, not a die
    # of no kind, not a kind whose faces neither the tower nor the app knows
    assert [(o.kind, o.name) for o in row.others] == [("d6", "d6"), ("d12", "d12")]
    assert row.others[1].faces == tuple(towers["d12"]) and row.chosen_kind is None
    # set as a d6 showing 3: a clean d6, keeping what the tower read
    row, = v.to_check([die], [0], {}, towers, {0: "3"}, {0: "d6"})
    assert (row.chosen, row.chosen_kind) == ("3", "d6")
    fixed, = v.corrected([die], {0: "3"}, {0: "d6"})
    assert fixed == {"slot": 0, "kind": "d6", "face": "3", "colour": "white", "status": "clean",
                     "read_face": None, "read_status": "unreadable", "read_kind": "kotd"}
    # a face of its own kind set: the kind stays, nothing more recorded
    assert "read_kind" not in v.corrected([die], {0: "CLAW"}, {0: "kotd"})[0]
    assert "read_kind" not in v.corrected([die], {0: "CLAW"})[0]


def modal(kind):
    from kivy.core.window import Window

    return wait_for(lambda: next((w for w in Window.children if type(w).__name__ == kind), None),
                    what=kind)


def button(parent, text):
    return next(w for w in parent.walk() if plain(getattr(w, "text", "") or "") == text)


def dispute_first_die(app, throw):
    """The simulated tower throws ``throw`` (its first die a red d12 read as 7); the player
    taps that die on the dice panel: its sheet."""
    from firmware_bridge.host.urlhandlers import protocol_sim
    from tests.gui_support import TOWER_NAME

    wait_for(lambda: app.tower_state == "connected", what="the simulated tower")
    app.go("dice")
    wait_for(lambda: on_screen(app, "dice"), what="the dice panel")
    panel = app.root.get_screen("dice")
    protocol_sim.hub(TOWER_NAME).roll(throw)
    wait_for(lambda: app.last_roll and app.last_roll[0].get("face") == "7"
             and app.tower.last is not None, what="the throw")
    tap(list(reversed(panel.ids.last_roll.children))[0])
    return modal("CheckDiceSheet")


def journal_lines(app):
    return [json.loads(x) for x in (app.data_root / "rolls.jsonl").read_text().splitlines()]


@pytest.mark.gui
def test_an_unsure_spawn_die_waits_for_the_player_then_goes_to_the_race(app, pty_tower):
    setup = open_from_home(app, "danchie", "danchie_setup", "the race set-up")
    tap(button(setup.ids.counts, "3"))
    for field, name in zip(reversed(setup.ids.names.children), ("Aki", "Ben", "Cleo")):
        field.text = name
    before = app.session
    tap(setup.ids.start)
    wait_for(lambda: app.session is not before and on_screen(app, "danchie_game"), what="the race")
    s = app.session
    game = app.root.get_screen("danchie_game")
    pty_tower.roll("spawn:white:?cocked")
    sheet = modal("CheckDiceSheet")
    assert sheet.title == "Which face is up?" and "not sure of this die" in sheet.note
    assert s.state.last_spawn is None                  # the race waits for the die
    assert "Waiting for you to set" in app.last_roll_note
    row = sheet.ids.rows.children[0]
    assert plain(row.line) == "white spawn die: cocked: no face read"
    # no picture from this tower and no face read: every face at once, one tap sets it
    assert not [w for w in row.walk() if plain(getattr(w, "text", "") or "") == "Other face"]
    tap(button(row, "No spawn"))
    wait_for(lambda: s.state.last_spawn is not None, what="the spawn in the race")
    assert s.actions[-1].type == "danchie.spawn" and s.actions[-1].data["source"] == "tower"
    assert sheet.done and sheet.title == "Dice set"
    lines = journal_lines(app)
    roll = [x for x in lines if x["type"] == "roll"][-1]
    fix = [x for x in lines if x["type"] == "corrected"][-1]
    assert fix["type"] == "corrected" and (fix["boot_id"], fix["seq"]) == (roll["boot_id"], roll["seq"])
    assert fix["dice"][0]["face"].startswith("NO_SPAWN") and fix["dice"][0]["read_status"] == "cocked"
    assert roll["dice"][0]["face"] is None             # what the tower read stays
    tap(sheet.ids.close)
    wait_for(lambda: sheet.parent is None, what="the sheet closed")
    assert game.spawn_text.startswith("No spawn")


def _race_of_two(app):
    """A Danchie Go race of Aki and Ben begun: its session."""
    setup = open_from_home(app, "danchie", "danchie_setup", "the race set-up")
    for field, name in zip(reversed(setup.ids.names.children), ("Aki", "Ben")):
        field.text = name
    before = app.session
    tap(setup.ids.start)
    wait_for(lambda: app.session is not before and on_screen(app, "danchie_game"), what="the race")
    return app.session


@pytest.mark.gui
def test_a_second_throw_replaces_one_never_set_and_roll_again_leaves_it_out(app, pty_tower):
    s = _race_of_two(app)
    pty_tower.roll("spawn:white:?unreadable")
    sheet = modal("CheckDiceSheet")
    tap(sheet.ids.roll_again)
    wait_for(lambda: "Thrown again" in app.last_roll_note, what="the throw left out")
    assert s.state.last_spawn is None and app.tower.held is None
    pty_tower.roll("spawn:white:?cocked")
    first = modal("CheckDiceSheet")
    tap(first.ids.close)                               # later: the throw stays held
    key = app.tower.held.key
    pty_tower.roll("spawn:white:TILE_UNDER_YOU")        # thrown again, read cleanly
    wait_for(lambda: s.state.last_spawn is not None, what="the clean throw in the race")
    assert app.tower.held is None
    lines = journal_lines(app)
    delivered = {(x["boot_id"], x["seq"]) for x in lines if x["type"] == "delivered"}
    assert key in delivered and not any(x["type"] == "corrected" and (x["boot_id"], x["seq"]) == key
                                        for x in lines)


@pytest.mark.gui
def test_a_die_read_cleanly_disputed_from_the_dice_panel(app):
    sheet = dispute_first_die(app, "d12:red:7 d12:yellow:3")
    assert sheet.title == "Set this die's face" and not sheet.held
    row = sheet.ids.rows.children[0]
    assert row.line == "red d12: read as 7"
    tap(button(row, "Other face"))
    tap(button(sheet.ids.rows.children[0], "9"))
    wait_for(lambda: app.last_roll[0]["face"] == "9", what="the die set by hand")
    assert app.roll_history[0].startswith("red d12 9")
    fix = [x for x in journal_lines(app) if x["type"] == "corrected"][-1]
    assert [d["face"] for d in fix["dice"]] == ["9", "3"] and fix["dice"][0]["read_face"] == "7"
    tap(sheet.ids.close)


@pytest.mark.gui
def test_a_throw_held_for_a_die_that_is_none_is_left_out_of_the_game(app, pty_tower):
    """What the tower took for a die and is none (a shadow's end, a coin): one tap on Not a
    die. A throw held for it alone is left out of the game (and a die of a delivered throw
    disputed so leaves the throw with the others, below), as the journal keeps it."""
    s = _race_of_two(app)
    pty_tower.roll("spawn:white:?unreadable")
    sheet = modal("CheckDiceSheet")
    tap(button(sheet.ids.rows.children[0], "Not a die"))
    wait_for(lambda: "No die in that throw" in app.last_roll_note, what="the throw left out")
    assert s.state.last_spawn is None and app.tower.held is None and sheet.done
    assert any(plain(getattr(w, "text", "") or "") == "Not a die: left out of the throw"
               for w in sheet.ids.rows.children[0].walk())
    assert app.last_roll == [] and app.roll_history[0] == "no die"
    lines = journal_lines(app)
    roll = [x for x in lines if x["type"] == "roll"][-1]
    fix = [x for x in lines if x["type"] == "corrected"][-1]
    assert (fix["boot_id"], fix["seq"]) == (roll["boot_id"], roll["seq"]) and fix["dice"] == []
    assert roll["dice"][0]["status"] == "unreadable"    # what the tower read stays
    assert (roll["boot_id"], roll["seq"]) in {(x["boot_id"], x["seq"]) for x in lines
                                              if x["type"] == "delivered"}
    tap(sheet.ids.close)
    wait_for(lambda: sheet.parent is None, what="the sheet closed")


@pytest.mark.gui
def test_a_die_of_a_delivered_throw_that_is_none_is_left_out(app):
    sheet = dispute_first_die(app, "d12:red:7 d12:yellow:3")
    tap(button(sheet.ids.rows.children[0], "Not a die"))
    wait_for(lambda: len(app.last_roll) == 1, what="the throw without it")
    assert app.last_roll[0]["face"] == "3" and app.roll_history[0] == "yellow d12 3"
    fix = [x for x in journal_lines(app) if x["type"] == "corrected"][-1]
    assert [(d["slot"], d["face"]) for d in fix["dice"]] == [(1, "3")]
    tap(sheet.ids.close)


@pytest.mark.gui
def test_a_die_taken_for_the_wrong_kind_is_set_as_the_kind_it_is(app):
    """A die the tower read as a red d12 is a d6 showing 3: its sheet offers the tower's other
    kinds one tap further; the roll then has a d6, and its picture cannot be kept as a
    teaching example (the tower would keep it as a d12)."""
    sheet = dispute_first_die(app, "d12:red:7")
    assert "d6" in app.tower.kind_faces and "d12" in app.tower.kind_faces
    # as a camera tower's picture of the die would make it, one it could keep
    sheet.picture(sheet.slots[0], b"", ["7"], keepable=True)
    assert sheet.can_keep == {sheet.slots[0]}
    row = sheet.ids.rows.children[0]
    assert not [w for w in row.walk() if plain(getattr(w, "text", "") or "") == "Or a d6:"]
    tap(button(row, "Other face"))
    row = sheet.ids.rows.children[0]
    labels = [plain(w.text) for w in row.walk() if plain(getattr(w, "text", "") or "").startswith("Or a ")]
    assert "Or a d6:" in labels and "Or a d12:" not in labels
    # the 3 under "Or a d6:", not the d12's own 3 above it
    texts = [w for w in row.walk() if getattr(w, "text", None) is not None]
    at = next(i for i, w in enumerate(texts) if plain(w.text) == "Or a d6:")
    tap(next(w for w in texts[at:] if plain(w.text) == "3"))
    wait_for(lambda: sheet.done and app.last_roll[0]["kind"] == "d6", what="the die set as a d6")
    assert app.last_roll[0]["face"] == "3"
    row = sheet.ids.rows.children[0]
    assert any(plain(getattr(w, "text", "") or "") == "Set to 3, a d6" for w in row.walk())
    assert not [w for w in row.walk() if "teaching example" in (getattr(w, "text", "") or "")]
    assert "teaching example" not in sheet.note
    fix = [x for x in journal_lines(app) if x["type"] == "corrected"][-1]
    assert (fix["dice"][0]["kind"], fix["dice"][0]["face"], fix["dice"][0]["read_kind"],
            fix["dice"][0]["read_face"]) == ("d6", "3", "d12", "7")
    tap(sheet.ids.close)


@pytest.mark.gui
def test_a_die_of_the_demo_camera_tower_checked_with_its_picture_and_kept(app, dice_panel):
    """The demo camera tower is the real camera tower program (protocol 1.3): a die tapped on
    the dice panel comes with the tower's picture of it and its likeliest faces; once set, one
    more tap keeps it as a teaching example, which the tower confirms."""
    from companion.dice_words import face_words

    app.start_demo_camera("tray")
    wait_for(lambda: app.tower_demo and app.tower_state == "connected"
             and app.tower_detail.endswith("protocol 1.3"), timeout=20, what="the demo tower")
    app.demo_throw("kotd")
    assert app.demo_throwing
    wait_for(lambda: app.last_roll_note.startswith("Demo camera tower") and app.last_roll
             and not app.demo_throwing, timeout=30, what="the demo throw read")
    assert not app.tower._demo.busy      # Throw dice comes back once the tray is still
    app.go("dice")
    wait_for(lambda: on_screen(app, "dice"), what="the dice panel")
    index = next(i for i, d in enumerate(app.last_roll) if d["status"] == "clean")
    tap(list(reversed(dice_panel.ids.last_roll.children))[index])
    sheet = modal("CheckDiceSheet")
    slot = sheet.slots[0]
    wait_for(lambda: slot in sheet.pictures, timeout=20, what="the tower's picture of the die")
    row = sheet.ids.rows.children[0]
    assert any(type(w).__name__ == "Image" for w in row.ids.picture.children)
    read = app.last_roll[index]["face"]
    assert sheet.likely[slot][0] == read           # the face read, likeliest first
    others = [f for f in ("CLAW", "HEART", "ENERGY", "FAME", "DESTRUCTION", "POWER") if f != read]
    tap(button(row, "Other face"))
    tap(button(sheet.ids.rows.children[0], face_words(others[0])))
    wait_for(lambda: sheet.done and app.last_roll[index]["face"] == others[0], what="the die set")
    tap(button(sheet.ids.rows.children[0], "Keep as a teaching example"))
    wait_for(lambda: app.toast_widget is not None and "kept as a teaching example"
             in app.toast_widget.text, timeout=10,
             what=lambda: f"the tower's answer ({app.toast_widget.text if app.toast_widget else ''})")
    tap(sheet.ids.close)


def _duel_with_the_simulated_tower(app):
    """A King of Tokyo Duel (Gigazaur, five dice, first) and the simulated tower connected:
    the duel's session and what throws a set of dice ("kotd:black:FAME ...")."""
    from firmware_bridge.host.urlhandlers import protocol_sim
    from tests.gui_support import TOWER_NAME

    setup = open_from_home(app, "kotd", "kotd_setup", "the duel set-up")
    setup.choose(0, "Gigazaur")
    setup.choose(1, "Alienoid")
    tap(setup.ids.first0)
    before = app.session
    tap(setup.ids.start)
    wait_for(lambda: app.session is not before and on_screen(app, "kotd_game"), what="the duel")
    wait_for(lambda: app.tower_state == "connected", what="the simulated tower")
    return app.session, protocol_sim.hub(TOWER_NAME).roll


@pytest.mark.gui
def test_a_throw_the_game_refused_for_a_die_too_many_goes_to_it_once_that_is_no_die(app):
    """King of Tokyo Duel's first roll is five dice; the tower saw six (a shadow taken for a
    die, unreadable): the duel refuses the throw. The player taps that "die" on the dice
    panel, Not a die: the duel takes the throw as it came up."""
    s, throw = _duel_with_the_simulated_tower(app)
    throw("kotd:black:FAME kotd:black:FAME kotd:black:CLAW "
          "kotd:black:HEART kotd:black:ENERGY kotd:black:?unreadable")
    wait_for(lambda: len(app.last_roll) == 6 and app.toast_widget is not None
             and "not in the game" in app.toast_widget.text, what="the throw refused")
    assert "may be none: tap it on the Dice tower screen" in app.toast_widget.text
    assert s.state.rolls == 0
    app.go("dice")
    wait_for(lambda: on_screen(app, "dice"), what="the dice panel")
    tap(list(reversed(app.root.get_screen("dice").ids.last_roll.children))[5])
    sheet = modal("CheckDiceSheet")
    tap(button(sheet.ids.rows.children[0], "Not a die"))
    wait_for(lambda: s.state.rolls == 1, what="the throw in the duel")
    assert [d.face for d in s.state.dice] == ["FAME", "FAME", "CLAW", "HEART", "ENERGY"]
    assert "now has the throw as it came up" in app.last_roll_note
    tap(sheet.ids.close)


@pytest.mark.gui
def test_a_throw_the_game_has_stays_as_it_was_where_it_refuses_it_without_a_die(app):
    """The duel took a throw of five dice; the player says one of them is no die: the duel
    will not take four for a first roll, so it keeps the throw as it had it, and says why."""
    s, throw = _duel_with_the_simulated_tower(app)
    throw("kotd:black:FAME kotd:black:FAME kotd:black:CLAW "
          "kotd:black:HEART kotd:black:ENERGY")
    wait_for(lambda: s.state.rolls == 1, what="the throw in the duel")
    app.go("dice")
    wait_for(lambda: on_screen(app, "dice"), what="the dice panel")
    tap(list(reversed(app.root.get_screen("dice").ids.last_roll.children))[0])
    sheet = modal("CheckDiceSheet")
    tap(button(sheet.ids.rows.children[0], "Not a die"))
    wait_for(lambda: app.toast_widget is not None and "5 dice; 4 came in" in app.toast_widget.text,
             what="the duel refusing four dice")
    assert s.state.rolls == 1 and [d.face for d in s.state.dice] == [
        "FAME", "FAME", "CLAW", "HEART", "ENERGY"]
    assert s.actions[-1].type == "dice.roll" and len(s.actions[-1].data["dice"]) == 5
    tap(sheet.ids.close)
