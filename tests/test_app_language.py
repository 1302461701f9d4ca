"""The language switch in Settings, live on the open screens, remembered; and words for
players on every screen in both languages: no enum names, command lines, file paths or
Python text."""

from __future__ import annotations

import json
import re

import pytest
from kivy.metrics import dp
from kivy.uix.label import Label

from companion import i18n, registry
from tests.gui_support import close_popups, on_screen, open_from_home, plain, tap, wait_for

pytestmark = pytest.mark.gui

# what must never reach a player's screen
NOT_FOR_PLAYERS = {
    "an enum name": re.compile(r"\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b"),
    "an identifier": re.compile(r"\b[a-z]+_[a-z0-9_]+\b|\b[a-z]+\.[a-z]+_[a-z_]+\b"),
    "a command line": re.compile(r"python -m|\bcompanion (?:log|replay|games|simulate)\b|\s--[a-z]"),
    "a file path": re.compile(r"(?:^|[\s(])/(?:tmp|home|root|usr|var|etc)/|\w\.(?:jsonl|ya?ml|py|mo|po)\b|"
                              r"[A-Za-z]:\\"),
    "Python text": re.compile(r"Traceback|\bNone\b|\bTrue\b|\bFalse\b|<[\w.]+ object at|"
                              r"\{[a-z_0-9]*(?:![rsa])?(?::[^}]*)?\}|%\(\w+\)[sd]|\bself\.\w"),
}


def visible_texts(widget):
    """Every text a Label or button under ``widget`` shows (markup removed)."""
    out = []
    for w in widget.walk(restrict=True):
        if isinstance(w, Label) and w.text and w.opacity > 0:
            out.append(plain(w.text))
        for attr in ("hint_text", "title"):
            value = getattr(w, attr, None)
            if isinstance(value, str) and value:
                out.append(value)
    return out


def offences(texts):
    found = []
    for text in texts:
        for what, pattern in NOT_FOR_PLAYERS.items():
            m = pattern.search(text)
            if m:
                found.append(f"{what} {m.group(0)!r} in {text!r}")
    return found


def go(app, name):
    close_popups(app)
    app.go(name)
    wait_for(lambda: on_screen(app, name), what=name)
    return app.root.get_screen(name)


def switch_in_settings(app, button):
    settings = go(app, "settings")
    tap(settings.ids[button])
    wait_for(lambda: not app.busy, what="the setting saved")
    return settings


@pytest.fixture
def english_after(app):
    yield
    close_popups(app)
    app.set_language("en")
    wait_for(lambda: not app.busy, what="the setting saved")


def start(app, game):
    """A new game of ``game`` from Home, by taps: its play screen."""
    entry = registry.get(game)
    setup = open_from_home(app, game, entry.setup)
    before = app.session
    tap(setup.ids.start)
    wait_for(lambda: app.session is not before and on_screen(app, entry.play),
             what=f"the new {game} game")
    return app.root.get_screen(entry.play)


def test_settings_switch_home_and_a_game_live_and_back(app, english_after):
    home = go(app, "home")
    assert home.ids.settings.height >= dp(48) and home.ids.settings.width >= dp(48)
    tap(home.ids.settings)                                        # one tap from Home
    wait_for(lambda: on_screen(app, "settings"), what="Settings")
    game = start(app, "tekken")
    assert game.ids.export.text == "Export JSON" and game.undo_text == "Undo"
    tekken_words = set(visible_texts(game))

    switch_in_settings(app, "lang_fr")
    assert i18n.language() == "fr"
    assert json.loads((app.data_root / "settings.json").read_text()) == {"language": "fr"}
    home = app.root.get_screen("home")
    assert home.ids.saved.text == "Parties enregistrées"          # a kv text, switched live
    assert "TEKKEN" in plain(home.ids.tile_tekken.text)
    # the game screen already open follows: kv texts and the texts built in Python
    assert game.ids.export.text == "Exporter en JSON"
    assert game.undo_text == "Annuler"
    assert game.ids.header.text != "" and set(visible_texts(game)) != tekken_words
    go(app, game.name)
    assert game.ids.end_string.text == "Fin de la String"

    settings = switch_in_settings(app, "lang_en")
    assert settings.ids.lang_en.state == "down"
    assert home.ids.saved.text == "Saved games" and game.ids.export.text == "Export JSON"
    assert game.undo_text == "Undo" and set(visible_texts(game)) == tekken_words


def test_the_system_choice_names_the_tablets_language(app, english_after):
    settings = switch_in_settings(app, "lang_system")
    assert app.settings.language == "system"
    assert settings.ids.lang_system.text == f"System ({i18n.LANGUAGES[i18n.system_language()]})"


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_every_screen_speaks_to_players(app, english_after, lang):
    """Every screen, with a game in progress where it has one, in both languages: each
    visible text is checked against enum names, identifiers, command lines, file paths and
    Python text."""
    app.set_language(lang)
    wait_for(lambda: not app.busy, what="the setting saved")
    seen, found = [], []
    for name in ("home", "saved", "dice", "settings"):
        screen = go(app, name)
        wait_for(lambda: not app.busy, what=name)
        seen.append(name)
        found += [f"{name}: {o}" for o in offences(visible_texts(screen))]
    for entry in registry.games():
        play = start(app, entry.id)
        found += [f"{entry.play}: {o}" for o in offences(visible_texts(play))]
        found += [f"{entry.play} log: {o}" for o in offences(getattr(play, "log_lines", []))]
        seen.append(entry.play)
        for name in entry.screens:
            if name in (entry.play, "takkure_measure"):     # the camera view: test_app_measure
                continue
            screen = go(app, name)
            found += [f"{name}: {o}" for o in offences(visible_texts(screen))]
            seen.append(name)
    assert {"tekken_game", "kotd_game", "tagteam_game", "takkure_game", "danchie_game",
            "tagteam_tracks", "takkure_roster"} <= set(seen)
    assert not found, "\n".join(found)


def test_the_towers_line_and_the_roll_sentence_follow_a_language_switch(app, english_after):
    """'Simulated tower sim 1.1.0 on ..., protocol 1.1' was left in English after a switch to
    French, and the journal's roll sentence was English with the tower's ids."""
    wait_for(lambda: app.tower_state == "connected", what="the simulated tower")
    assert app.tower_detail.startswith("Simulated tower sim ")
    switch_in_settings(app, "lang_fr")
    wait_for(lambda: app.tower_detail.startswith("Tour à dés simulée sim "), what="the French line")
    from companion.session import roll_text

    text = roll_text({"dice": [{"kind": "d12", "colour": "red", "face": "7", "status": "clean"},
                               {"kind": "spawn", "colour": "white", "face": "TILE_ON_SPAWN_2",
                                "status": "clean"}]})
    assert text == "Tour à dés : d12 rouge 7, Tile au Spawn"   # the rulebook's words
