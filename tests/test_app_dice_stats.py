"""The Dice statistics screen in the real app window (Xvfb): reached from the dice panel, a
card per kind and colour of die the tower read, new throws counted while it shows, and
"I changed dice" set aside and taken back with one tap each."""

from __future__ import annotations

import pytest

from companion import dice_stats
from companion.app.stats_view import card_view
from tests.gui_support import TOWER_NAME, close_popups, on_screen, plain, tap, wait_for

pytestmark = pytest.mark.gui


def cards(screen):
    return {c.key: c for c in screen.ids.cards.children}


def throws(card):
    return int(plain(card.counted).split()[0])


def test_dice_statistics_count_the_towers_throws_and_i_changed_dice(app):
    from firmware_bridge.host.urlhandlers import protocol_sim

    wait_for(lambda: app.tower_state == "connected", what="the simulated tower")
    # no game open: a game of d12s left open by an earlier test (Takkure) holds the cocked
    # throw below until its die is set, and the sheet that asks for it takes the taps
    close_popups(app)
    if app.session is not None:
        app.session.close()
        app.session = None
    app.go("dice")
    panel = app.root.get_screen("dice")
    wait_for(lambda: on_screen(app, "dice"), what="the dice panel")
    protocol_sim.hub(TOWER_NAME).roll("d12:red:7 d12:red:7 d12:yellow:?cocked")
    wait_for(lambda: "cocked" in app.last_roll_text, what="the throw")
    tap(panel.ids.stats)
    # the screen is built on its first visit (its module, its rules, the roll journal read):
    # on a CI machine running two test workers that once took over 5 s
    wait_for(lambda: on_screen(app, "dice_stats"), timeout=15, what="the statistics screen")
    screen = app.root.get_screen("dice_stats")
    red = cards(screen)["d12/red"]
    assert plain(red.title) == "red d12" and throws(red) >= 2
    assert [b["face"] for b in red.ids.histogram.bars] == [str(i) for i in range(1, 13)]
    before = throws(red)
    sevens = red.ids.histogram.bars[6]["count"]
    # a throw while the screen shows is counted at once; the cocked die is counted apart
    protocol_sim.hub(TOWER_NAME).roll("d12:red:7 d12:yellow:?unreadable")
    wait_for(lambda: throws(cards(screen)["d12/red"]) == before + 1, what="the new throw")
    red = cards(screen)["d12/red"]
    assert red.ids.histogram.bars[6]["count"] == sevens + 1
    assert "not sure, not counted" in cards(screen)["d12/yellow"].counted
    # "I changed dice": the red d12 starts again at 0, one tap takes it back
    assert red.ids.take_back.disabled
    tap(red.ids.changed)
    wait_for(lambda: throws(cards(screen)["d12/red"]) == 0, what="the reset")
    red = cards(screen)["d12/red"]
    assert red.verdict == "Too few throws for a verdict: 0 of the 60 needed"
    assert "counted since" in red.ids.detail.text and not red.ids.take_back.disabled
    assert "counted again from now" in app.toast_widget.text
    tap(red.ids.take_back)
    wait_for(lambda: throws(cards(screen)["d12/red"]) == before + 1, what="the reset taken back")
    assert not dice_stats._load_resets(app.data_root).get("d12/red")
    tap(screen.ids.back)
    wait_for(lambda: on_screen(app, "dice"), what="back on the dice panel")


def test_a_card_in_words_with_the_fair_share_and_the_verdicts_colour():
    s = dice_stats.DieStats("spawn", "white", dice_stats.KNOWN_FACES["spawn"], (10, 5, 5, 5, 5, 30),
                            not_clean=2)
    view = card_view(s)
    assert view["title"] == "white spawn die"
    assert view["counted"] == "60 throws · 2 readings not sure, not counted"
    assert [b["face"] for b in view["bars"]] == ["Tile under you", "Power-Up on Spawn",
                                                 "Tile on Spawn", "Tile on Spawn", "No spawn",
                                                 "No spawn"]
    assert view["bars"][5]["height"] == 1.0 and view["fair"] == pytest.approx(10 / 30)
    assert view["verdict"].startswith("No spawn comes up too often: p < 0.001 after 60 throws")
    assert view["verdict_rgba"][:3] == (1.0, 0.62, 0.15) and not view["can_undo"]
