"""Settings -> Live view in the real app window (Xvfb): off by default, on with one tap (its
address as text and a QR code), a tower throw and the language reaching the page's state,
and off again with the port closed."""

from __future__ import annotations

import json
import socket
import urllib.request

import pytest

from tests.gui_support import TOWER_NAME, on_screen, tap, wait_for

pytestmark = pytest.mark.gui


def state(app) -> dict:
    url = app.live_url.replace("/?token=", "/state.json?token=")
    with urllib.request.urlopen(url, timeout=5) as r:
        return json.loads(r.read())


def test_the_live_view_from_settings(app):
    from firmware_bridge.host.urlhandlers import protocol_sim

    wait_for(lambda: app.tower_state == "connected", what="the simulated tower")
    app.go("settings")
    wait_for(lambda: on_screen(app, "settings"), what="Settings")
    screen = app.root.get_screen("settings")
    assert app.live_url == "" and screen.ids.live_off.state == "down"   # off by default
    tap(screen.ids.live_tablet)
    wait_for(lambda: app.live_url, what="the live view's address")
    assert app.live_url.startswith("http://127.0.0.1:") and "token=" in app.live_url
    assert screen.ids.live_address.text == app.live_url
    assert screen.ids.qr.canvas.length() > 100                       # the code is drawn
    protocol_sim.hub(TOWER_NAME).roll("d12:red:5 d12:red:6")
    wait_for(lambda: (state(app).get("roll") or {}).get("total") == 11, what="the throw on the page")
    app.set_language("fr")
    try:
        wait_for(lambda: state(app)["lang"] == "fr", what="the page in French")
        assert state(app)["words"]["last_roll"] == "Dernier lancer"
    finally:
        app.set_language("en")
    port = int(app.live_url.split(":")[2].split("/")[0])
    first = app.live_url
    tap(screen.ids.live_off)
    wait_for(lambda: app.live_url == "", what="the live view off")
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", port), timeout=1)
    tap(screen.ids.live_tablet)                                      # a new address each time
    wait_for(lambda: app.live_url, what="the live view on again")
    assert app.live_url.split("token=")[1] != first.split("token=")[1]
    tap(screen.ids.live_off)
    wait_for(lambda: app.live_url == "", what="off again")
