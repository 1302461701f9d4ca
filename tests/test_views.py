"""What the game screens show, checked without a window (issue 27: thin screens). The view
builders in ``companion.views`` take a session and give plain values; these tests run in
milliseconds, and the GUI tests keep a few end-to-end checks per game."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from companion import i18n
from companion.config import load_typed
from companion.games import danchie as dg
from companion.games import kotd as k
from companion.games.takkure_panel import RollPanel
from companion.session import Session
from companion.views import common, danchie, kotd, tagteam, takkure, tekken
from tests import tekken_support
from tests.takkure_support import demo_setup

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def english():
    i18n.set_language("en")
    yield
    i18n.set_language("en")


def new(tmp_path: Path, game: str, setup: dict[str, Any]) -> Session[Any]:
    return Session.create(tmp_path / f"{game}.jsonl", game, setup, random.Random(1))


def test_the_views_import_no_kivy() -> None:
    code = ("import sys, companion.views.common, companion.views.tekken, companion.views.takkure,"
            " companion.views.kotd, companion.views.tagteam, companion.views.danchie;"
            " print(sorted(m for m in sys.modules if m.split('.')[0] == 'kivy'))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                         check=True).stdout.strip()
    assert out == "[]"


def test_undo_and_redo_say_what_they_would_do_in_full(tmp_path: Path) -> None:
    s = new(tmp_path, "tekken", tekken_support.start_data())
    assert common.undo_view(s) == {"can_undo": False, "can_redo": False, "undo_text": "Undo",
                                   "redo_text": "Redo"}
    s.do("tekken.rage_chosen", player=0, card=1)
    v = common.undo_view(s)
    assert v["can_undo"] and v["undo_text"] == "Undo: Jin picks a secret Rage card"
    s.undo()
    v = common.undo_view(s)
    assert v["can_redo"] and v["redo_text"].startswith("Redo: Jin picks")
    assert "…" not in v["redo_text"]


def test_tekken_shows_hp_the_string_and_the_log(tmp_path: Path) -> None:
    s = new(tmp_path, "tekken", tekken_support.start_data())
    for player in (0, 1):
        s.do("tekken.rage_chosen", player=player, card=0)
    s.do("tekken.card", result="hit")
    s.do("tekken.strike", symbols=[2])
    v = tekken.tekken_view(s, [("A", "B"), ("A", "B")])
    assert v["fighters"][1]["hp_text"] == "18 / 20" and v["fighters"][0]["hp_text"] == "20 / 20"
    assert v["header"] == "Jin's String (Offensive) – Kazuya defends"
    assert v["log_lines"][0] == "Kazuya -2 HP (Strike 2)"
    assert not tekken.cracked_floor_in_force(s)


def test_kotd_says_whose_turn_and_how_many_dice_to_throw(tmp_path: Path) -> None:
    cfg = load_typed(k.KotdConfig, "config/kotd.yaml")
    s = new(tmp_path, "kotd", k.setup_from_config(cfg, ("Gigazaur", "The King")))
    v = kotd.kotd_view(s, [])
    assert v["title"].startswith("Turn 1 · Gigazaur")
    assert "throw 5 dice" in v["status"]
    assert [m["name"] for m in v["monsters"]] == ["Gigazaur", "The King"]
    s.do("kotd.roll", faces=["FAME", "FAME", "FAME", "CLAW", "HEART"])
    assert kotd.kotd_view(s, [])["title"].endswith("roll 1/3")
    assert kotd.resolution_preview(s.state)       # three FAME: Resolve would say so


def test_takkure_cards_carry_names_positions_and_what_can_be_done(tmp_path: Path) -> None:
    s = new(tmp_path, "takkure", demo_setup())
    v = takkure.takkure_view(s, RollPanel())
    assert v["team_names"][0] == s.state.teams[0].name
    assert v["phase_text"] == "Kick-off: the referee roll decides who kicks"
    assert v["score_text"] == f"{s.state.teams[0].name} [b]0 – 0[/b] {s.state.teams[1].name}"
    assert not v["can_take"]                       # no tokens before the kick-off
    card = takkure.card_view(s, RollPanel(), 0, 0)
    assert card["pname"] == s.state.teams[0].players[0].name
    assert card["position"] == "Wing"
    i18n.set_language("fr")
    assert takkure.card_view(s, RollPanel(), 0, 0)["position"] == "Ailier"


def test_danchie_rows_say_lap_turn_and_finish(tmp_path: Path) -> None:
    cfg = load_typed(dg.DanchieConfig, Path("config/danchie.yaml"))
    s = new(tmp_path, "danchie", dg.setup_from_config(cfg, ["Aki", "Ben", "Cleo"]))
    assert danchie.dasher_line(s.state, 0) == "Lap 1"
    assert danchie.dasher_state(s.state, 0) == "TURN"
    assert danchie.dasher_state(s.state, 1) == ""
    assert danchie.tile_rgba("Red") == danchie.TILE_RGBA["red"]


def test_tagteam_decks_line_and_an_entry(tmp_path: Path) -> None:
    from tests.test_rules_properties import TAGTEAM_SETUP

    s = new(tmp_path, "tagteam", TAGTEAM_SETUP)
    assert tagteam.decks_text(s.state) == ("Combat deck: 2 cards, 2 to reveal · "
                                           "Construction deck: 18 cards")
    entry = tagteam.TurnEntry()
    assert entry.text() == "no effect"
    entry.attack = True
    assert entry.text() == "Attack"
