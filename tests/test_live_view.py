"""The live view end to end: `companion serve` with a simulated tower on a socket and a game
in its data folder, and the page in a real headless Chromium (the system's chromium and
chromium-driver, installed by `make test`), driven by Selenium."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from companion.live.feed import compose
from companion.live.server import LiveServer, LiveState

ROOT = Path(__file__).resolve().parent.parent
RED7 = {"kind": "d12", "colour": "red", "face": "7", "status": "clean"}
GAME = {"title": "TEKKEN", "game": "tekken", "status": "Round 1", "over": False, "winner": None,
        "sides": [{"name": "Jin", "figures": [{"label": "HP", "value": "20", "of": 20}],
                   "notes": ["<img src=x onerror=alert(1)>"]}], "lines": []}


def get_json(url: str) -> dict:
    with urllib.request.urlopen(url, timeout=5) as r:
        return json.loads(r.read())


def wait_until(cond, timeout=10.0, what="it"):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        value = cond()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def test_companion_serve_follows_the_tower_and_the_last_game(tmp_path):
    env = dict(os.environ, COMPANION_HOME=str(tmp_path), PYTHONPATH=str(ROOT))
    subprocess.run([sys.executable, "-m", "companion", "--data-dir", str(tmp_path), "new",
                    "tekken", "--p1", "Jin", "--p2", "Kazuya", "--no-app"], check=True, env=env,
                   capture_output=True)
    tower = subprocess.Popen([sys.executable, "-m", "firmware_bridge", "simulate", "--socket",
                              "127.0.0.1:0", "--seed", "3"], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True, env=env, cwd=ROOT)
    serve = None
    try:
        where = json.loads(tower.stdout.readline())["serving"]
        serve = subprocess.Popen([sys.executable, "-m", "companion", "--data-dir", str(tmp_path),
                                  "serve", "--port", "0", "--tower", where],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                 env=env, cwd=ROOT)
        first = serve.stdout.readline()
        assert first.startswith("Live view: http://127.0.0.1:") and "token=" in first
        url = first.split(": ", 1)[1].strip()
        state_url = url.replace("/?token=", "/state.json?token=")
        state = wait_until(lambda: get_json(state_url).get("game"), what="the game's summary")
        assert state["title"] == "TEKKEN" and [s["name"] for s in state["sides"]] == ["Jin", "Kazuya"]
        with pytest.raises(urllib.error.HTTPError) as no_token:
            urllib.request.urlopen(url.split("?")[0] + "state.json", timeout=5)
        assert no_token.value.code == 403
        tower.stdin.write("roll d12:red:7 d12:yellow:11 kotd:black:CLAW\n")
        tower.stdin.flush()
        roll = wait_until(lambda: get_json(state_url).get("roll"), what="the tower's roll")
        assert [d["words"] for d in roll["dice"]] == ["7", "11", "CLAW"] and roll["total"] == 18
        assert (tmp_path / "rolls.jsonl").read_text().count('"type":"roll"') == 1
        port = int(url.split(":")[2].split("/")[0])
        serve.send_signal(signal.SIGTERM)
        assert serve.wait(timeout=10) == 0
        assert "Live view stopped" in serve.stdout.read()
        with pytest.raises(OSError):
            socket.create_connection(("127.0.0.1", port), timeout=1)
    finally:
        for p in (serve, tower):
            if p is not None and p.poll() is None:
                p.kill()
                p.wait()


@pytest.fixture(scope="module")
def browser():
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    driver_path = shutil.which("chromedriver")
    if not chromium or not driver_path:
        pytest.fail("the live view's browser test needs Chromium and ChromeDriver (Debian: "
                    "chromium chromium-driver; `make test` installs them)")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", "--disable-quic"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    driver.set_script_timeout(10)
    yield driver
    driver.quit()


@pytest.fixture
def live():
    state = LiveState()
    state.publish(compose(None, None, GAME))
    server = LiveServer(state).start()
    yield state, server
    server.stop()


def test_the_page_in_a_real_browser_shows_a_roll_within_200_ms(browser, live):
    state, server = live
    base = f"http://127.0.0.1:{server.port}/"
    browser.get(base)                                           # no token: 403, no page
    assert "Last roll" not in browser.page_source
    browser.get(server.url)
    wait_until(lambda: browser.execute_script("return document.body.dataset.version"),
               what="the page's first state")
    assert browser.find_element("id", "rolltitle").text == "Last roll"
    assert browser.find_element("id", "gametitle").text == "TEKKEN"
    notes = browser.find_element("id", "sides").text
    assert "<img src=x onerror=alert(1)>" in notes              # shown as text, never run
    assert not browser.find_elements("css selector", "#sides img")
    # the time the dice appear, in the page's clock, against the time the roll was published
    browser.execute_script("""
        window.seen = null;
        new MutationObserver(() => { if (!window.seen) window.seen = Date.now(); })
            .observe(document.getElementById('dice'), {childList: true});""")
    published = time.time() * 1000
    state.publish(compose([RED7, RED7, {**RED7, "colour": "yellow", "face": "11"}], time.time(), GAME))
    seen = wait_until(lambda: browser.execute_script("return window.seen"), what="the dice")
    assert seen - published < 200, f"{seen - published:.0f} ms"
    dice = [d.text for d in browser.find_elements("css selector", "#dice .die")]
    assert dice == ["7", "7", "11"] and browser.find_element("id", "total").text == "Total 25"
    # whatever the page could send changes nothing
    version = browser.execute_script("return document.body.dataset.version")
    codes = browser.execute_async_script("""
        const done = arguments[arguments.length - 1];
        const t = new URL(location.href).searchParams.get('token');
        Promise.all(['POST', 'PUT', 'DELETE', 'PATCH'].map((m) =>
            fetch('/state.json?token=' + t, {method: m, body: '{"roll": null}'}).then((r) => r.status)))
          .then(done);""")
    assert codes == [405, 405, 405, 405]
    time.sleep(0.3)
    assert browser.execute_script("return document.body.dataset.version") == version
    assert get_json(server.url.replace("/?token=", "/state.json?token="))["roll"]["total"] == 25


def test_the_overlay_is_transparent_large_and_shows_a_sample_roll(browser, live):
    _state, server = live
    browser.get(server.url + "&overlay=1&size=64&show=roll,total&sample=1")
    wait_until(lambda: browser.execute_script("return document.body.dataset.version"),
               what="the overlay's first state")
    assert browser.execute_script(
        "return getComputedStyle(document.body).backgroundColor") == "rgba(0, 0, 0, 0)"
    assert browser.execute_script("return getComputedStyle(document.body).fontSize") == "64px"
    assert browser.find_element("id", "rolltitle").text == "Sample roll"
    assert [d.text for d in browser.find_elements("css selector", "#dice .die")][:2] == ["7", "12"]
    assert not browser.find_element("id", "game").is_displayed()    # not asked for
