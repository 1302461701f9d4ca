"""Each game played in French through a random sequence of legal actions, in the real window
(issue 28): every text looked up while the game is shown must come from the French catalogue,
and no text on screen may carry an English word that French never uses.

- **Untranslated lookups**: ``companion.i18n.record_misses`` notes each message that ``_``,
  ``ngettext``, ``pgettext`` or the kv files' ``tr._`` asked for and the French catalogue
  does not have (what a French player would read in English).
- **English words**: text built without any lookup (an f-string) is not seen by the
  recorder, so every label, button and toast on screen is also read word by word. A word is
  English-only when it occurs in the English texts of the catalogue and in none of the French
  ones ("lost", "manual", "the"); names that come from the game's set-up are left out.

The actions are drawn by the generators of ``tests/test_rules_properties.py`` (TEKKEN's are
here), kept to those the rules accept at that point, then done through ``app.act`` as a tap
would; now and then an illegal one is tried too, so that its refusal (a toast) is read as
well. Hypothesis draws them from a fixed seed: the same sequence on every run.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion import i18n
from companion.errors import IllegalActionError
from tests import test_rules_properties as props
from tests.gui_support import close_popups, plain, pump

pytestmark = pytest.mark.gui

STEPS = 40
WORD = re.compile(r"[A-Za-zÀ-ÿ][A-Za-zÀ-ÿ'’-]*")


def _words(text: str) -> set[str]:
    return {w.strip("'’-").lower() for w in WORD.findall(text)} - {""}


def english_only_words() -> set[str]:
    """Words of the English texts that no French text uses."""
    from babel.messages.pofile import read_po

    root = i18n.catalogue_path("fr").parent
    with open(root / "companion.po", "rb") as f:
        cat = read_po(f, locale="fr")
    english: set[str] = set()
    french: set[str] = set()
    for m in cat:
        if not m.id:
            continue
        ids = [str(t) for t in (m.id if isinstance(m.id, (tuple, list)) else (m.id,))]
        strs = [str(t or "") for t in (m.string if isinstance(m.string, (tuple, list))
                                       else (m.string,))]
        for t in ids:
            english |= _words(re.sub(r"\{[^}]*\}|\[[^\]]*\]", " ", t))
        for t in strs:
            french |= _words(re.sub(r"\{[^}]*\}|\[[^\]]*\]", " ", t))
    return ({w for w in english - french if len(w) > 2} | COMMON_ENGLISH) - french


# English words text built in Python without a lookup would carry (the catalogue's English
# texts may not hold them all)
COMMON_ENGLISH = {"the", "and", "with", "your", "you", "lost", "manual", "from", "has", "have",
                  "this", "that", "wins", "turn", "rolled", "roll", "into", "gets", "takes",
                  "gains", "loses", "draws", "player", "dice", "tower", "round", "lap", "not",
                  "now", "waiting", "left", "right", "undo", "redo", "back", "damage"}


def tekken_command(s: Any, draw: Callable[[Any], Any]) -> tuple[str, dict[str, Any]]:
    who = draw(st.integers(0, 1))
    options = [
        ("tekken.rage_chosen", {"player": who, "card": draw(st.integers(0, 2))}),
        ("tekken.rage_chosen", {"player": who, "card": draw(st.integers(0, 2))}),
        ("tekken.card", {"result": draw(st.sampled_from(["hit", "blocked"]))}),
        ("tekken.card", {"result": "hit"}),
        ("tekken.strike", {"symbols": [draw(st.integers(1, 3)) for _ in range(draw(st.integers(1, 3)))],
                           "cracked_floor": draw(st.booleans())}),
        ("tekken.heat", {}),
        ("tekken.wall", {"kind": draw(st.sampled_from(["solid", "breakable"]))}),
        ("tekken.sweep", {}),
        ("tekken.stun", {}),
        ("tekken.rage", {}),
        ("tekken.end_string", {}),
        ("tekken.adjust_hp", {"player": who, "delta": draw(st.integers(-3, 3))}),
        ("tekken.next_round", {}),
    ]
    return draw(st.sampled_from(options))


COMMANDS: dict[str, Callable[[Any, Callable[[Any], Any]], tuple[str, dict[str, Any]]]] = {
    "tekken": tekken_command, "takkure": props.takkure_command, "kotd": props.kotd_command,
    "tagteam": props.tagteam_command, "danchie": props.danchie_command,
}
SCREENS = {"tekken": "tekken_game", "takkure": "takkure_game", "kotd": "kotd_game",
           "tagteam": "tagteam_game", "danchie": "danchie_game"}


def start(app: Any, game: str) -> None:
    """A new game of ``game`` from its set-up screen's defaults."""
    from tests.screen_tour import settle

    close_popups(app)
    if game == "takkure":
        from tests.takkure_support import write_demo_roster

        write_demo_roster(app.data_root)
        app.game_configs.pop("takkure", None)
    app.go("home")
    settle(app, lambda: app.root.current == "home")
    app.root.get_screen("home").pick(game)
    settle(app, lambda: app.root.current == f"{game}_setup")
    setup = app.root.get_screen(f"{game}_setup")
    if game == "danchie":
        setup.set_count(3)
        for field, player in zip(reversed(setup.ids.names.children), ("Aki", "Ben", "Cleo")):
            field.text = player
        pump(3)
    before = app.session
    setup.start()
    settle(app, lambda: app.session is not None and app.session is not before
           and app.root.current == SCREENS[game])


def shown_texts(app: Any) -> list[str]:
    """Every text drawn in the window now: the screen shown, popups and toasts."""
    from kivy.core.window import Window

    out = []
    seen: set[int] = set()

    def walk(w: Any) -> None:
        if id(w) in seen or getattr(w, "opacity", 1) == 0:
            return
        seen.add(id(w))
        text = getattr(w, "text", None)
        if isinstance(text, str) and text.strip():
            out.append(plain(text))
        title = getattr(w, "title", None)
        if isinstance(title, str) and title.strip():
            out.append(title)
        if hasattr(w, "current_screen") and w.current_screen is not None:
            walk(w.current_screen)
            return
        for child in getattr(w, "children", []):
            walk(child)

    for child in Window.children:
        walk(child)
    return out


def accept_confirmations(app: Any) -> None:
    """A confirmation the action asked for (ending a Round): say yes, as the player would."""
    from kivy.core.window import Window
    from kivy.uix.popup import Popup

    pump(2)
    for w in list(Window.children):
        if isinstance(w, Popup):
            ok = getattr(w.content, "ids", {}).get("ok")
            if ok is not None and not ok.disabled:
                ok.dispatch("on_release")
                pump(3)


@pytest.fixture
def french(app):
    close_popups(app)
    before = i18n.language()
    app.set_language("fr")
    pump(3)
    misses = i18n.record_misses()
    yield misses
    i18n.stop_recording()
    close_popups(app)
    app.set_language(before)
    pump(3)


@pytest.mark.parametrize("game", list(COMMANDS))
def test_a_game_played_in_french_shows_only_french(app, french, game) -> None:
    start(app, game)
    names = _setup_names(app.session)
    english = english_only_words() - names
    found: dict[str, set[str]] = {}
    played: list[str] = []

    @settings(max_examples=1, derandomize=True, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(data=st.data())
    def play(data: Any) -> None:
        session = app.session
        for step in range(STEPS):
            if session.rules.is_over(session.state):
                break
            type_, payload = COMMANDS[game](session.state, data.draw)
            refusal = _refusal(session, type_, payload)
            tries = 0
            while refusal is not None and tries < 40 and step % 9:
                type_, payload = COMMANDS[game](session.state, data.draw)
                refusal = _refusal(session, type_, payload)
                tries += 1
            app.act(type_, **payload)           # an illegal one: its refusal is shown
            accept_confirmations(app)
            played.append(type_ if refusal is None else f"{type_} (refused: {refusal})")
            pump(2)
            for text in shown_texts(app):
                if "{'" in text:
                    # a malformed command's data echoed in its refusal: no tap sends one
                    continue
                bad = _words(text) & english
                if bad:
                    found.setdefault(text[:90], set()).update(bad)
            close_popups(app)

    play()
    assert sum("(refused" not in p for p in played) >= 10, played
    assert not french, f"{game}: looked up but not in the French catalogue: {sorted(french)}"
    assert not found, f"{game}: English words on a French screen: " + "; ".join(
        f"{t!r} ({', '.join(sorted(w))})" for t, w in found.items())


def _refusal(session: Any, type_: str, payload: dict[str, Any]) -> str | None:
    """Why the rules refuse this action now, or None when they accept it."""
    try:
        session.preview(type_, **payload)
    except IllegalActionError as exc:
        return str(exc)
    return None


def _setup_names(session: Any) -> set[str]:
    """The words of the names the game was set up with (fighters, players, teams): data a
    player typed or chose, not words of the app."""
    names: set[str] = set()

    def collect(value: Any) -> None:
        if isinstance(value, dict):
            for key, item in value.items():
                if key in ("name", "player", "players", "fighter", "team", "monster", "names") \
                        and isinstance(item, str):
                    names.update(_words(item))
                collect(item)
        elif isinstance(value, (list, tuple)):
            for item in value:
                if isinstance(item, str):
                    names.update(_words(item))
                else:
                    collect(item)

    collect(session.start_event.data)
    return names
