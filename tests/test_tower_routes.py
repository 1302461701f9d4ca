"""Where the dice tower's news goes and what became of a throw, decided without Kivy
(companion/tower_routes.py; issue 27: the tower's routing out of CompanionApp)."""

from __future__ import annotations

import pytest

from companion import i18n, tower_routes
from firmware_bridge.host import events as ev


@pytest.fixture(autouse=True)
def english():
    i18n.set_language("en")
    yield
    i18n.set_language("en")


def test_each_link_event_has_its_route() -> None:
    assert tower_routes.route(ev.DeviceReset(old_boot_id=1, new_boot_id=2)) == "reset"
    assert tower_routes.route(ev.LinkLost(port="p", reason="unplugged")) == "retrying"
    assert tower_routes.route(ev.PortNotFound(port="p", detail="no")) == "no_tower"
    assert tower_routes.route(ev.PortBusy(port="p", detail="busy")) == "no_tower"
    assert tower_routes.route(ev.TeachStatus(state="off", kind="", needed=3, faces=(),
                                             message="")) == "teach_status"
    assert tower_routes.route(object()) == "unknown"


def test_every_event_the_link_sends_is_routed() -> None:
    """A new event type added to the link must be given a route (or it is only logged)."""
    routed = {kind for kinds, _name in tower_routes._ROUTES
              for kind in (kinds if isinstance(kinds, tuple) else (kinds,))}
    sent = set(ev.EVENT_NAMES)
    assert not sent - routed, sorted(k.__name__ for k in sent - routed)


def test_a_throw_taken_by_the_screen_needs_no_banner() -> None:
    fate = tower_routes.roll_fate("King of Tokyo Duel", True, recorded=True, taken=True,
                                  late=False, on_dice_panel=False)
    assert fate == tower_routes.RollFate("Taken by the King of Tokyo Duel game", False)


def test_a_recorded_throw_nobody_waited_for_is_shown_unless_on_the_dice_panel() -> None:
    elsewhere = tower_routes.roll_fate("Takkure", True, recorded=True, taken=False, late=False,
                                       on_dice_panel=False)
    assert elsewhere.banner and elsewhere.note.startswith("Written in the Takkure game's log")
    here = tower_routes.roll_fate("Takkure", True, recorded=True, taken=False, late=False,
                                  on_dice_panel=True)
    assert not here.banner


def test_a_late_throw_is_always_shown_and_says_where_it_went() -> None:
    fate = tower_routes.roll_fate("Takkure", True, recorded=True, taken=False, late=True,
                                  on_dice_panel=True)
    assert fate == tower_routes.RollFate("Arrived late; written in the Takkure game's log", True)
    assert tower_routes.roll_fate(None, False, recorded=False, taken=False, late=True,
                                  on_dice_panel=False).note.startswith("No game is open")


def test_unused_throws_say_why_in_french_too() -> None:
    assert tower_routes.unused_note("TEKKEN", False) == "Not used: TEKKEN is played without dice"
    assert tower_routes.unused_note("Tag Team", True) == "Not used: these are not Tag Team's dice"
    i18n.set_language("fr")
    assert "TEKKEN" in tower_routes.unused_note("TEKKEN", False)
    assert not tower_routes.unused_note("TEKKEN", False).startswith("Not used")
