"""Shared fixtures. The GUI tests share one real Kivy window per process (Kivy cannot open
a second one): the session fixture ``app`` builds the app on a temporary COMPANION_HOME."""

from __future__ import annotations

import os
import sys

import pytest

# the tests read the app's English words: the system's language must not change them (the
# language tests switch it themselves)
os.environ["LANGUAGE"] = "en"
# Kivy's own folder (config.ini, logs) for each test process its own, made before Kivy is
# imported: on a fresh machine two processes importing Kivy at once both try to make
# ~/.kivy (and its mods folder) and one fails with FileExistsError; and a player's settings
# there must not reach the tests. The xdist workers inherit the first process's variables,
# so a folder this file made is replaced, one that somebody set is kept.
if os.environ.get("KIVY_HOME") in (None, os.environ.get("COMPANION_TESTS_KIVY_HOME")):
    import atexit
    import shutil
    import tempfile
    os.environ["KIVY_HOME"] = os.environ["COMPANION_TESTS_KIVY_HOME"] = \
        tempfile.mkdtemp(prefix="kivy-home-")
    atexit.register(shutil.rmtree, os.environ["KIVY_HOME"], ignore_errors=True)

from tests.gui_support import TOWER_URL, stop_drawing, wait_for


def pytest_collection_modifyitems(config, items):
    """The GUI tests run last: the one app (and its simulated dice tower's reader thread)
    then lives only while they run, not beside the timing-sensitive link tests."""
    items.sort(key=lambda item: item.get_closest_marker("gui") is not None)


@pytest.hookimpl(trylast=True)
def pytest_runtest_teardown(item):
    """A test that is not a GUI test must not open Kivy's window (importing kivy.core.window,
    or asking Kivy for the screen's dpi, opens it): the app must open it first, at its own
    size, or every GUI test that runs after it in the same process fails, depending on
    which process the test files went to. Said here, at the test that did it."""
    if item.get_closest_marker("gui") is None and "kivy.core.window" in sys.modules \
            and not _APP_STARTED:
        pytest.fail(f"{item.nodeid} opened Kivy's window before the app did: mark it "
                    "@pytest.mark.gui and give it the app fixture, or run it in a subprocess",
                    pytrace=False)


_APP_STARTED: list[bool] = []


@pytest.fixture(scope="session")
def app(tmp_path_factory):
    if not os.environ.get("DISPLAY"):
        pytest.fail("the GUI tests need an X display: run them under xvfb-run")
    home = tmp_path_factory.mktemp("companion-home")
    saved_env = os.environ.get("COMPANION_HOME")
    os.environ["COMPANION_HOME"] = str(home)
    from kivy.base import runTouchApp

    _APP_STARTED.append(True)
    from companion.app.main import CompanionApp  # first: it configures the window

    the_app = CompanionApp(data_root=home, tower_url=TOWER_URL)
    from kivy.core.window import Window
    assert tuple(Window.size) == (1280, 800)
    if os.environ.get("GUI_TESTS_DRAW") != "1":
        # the tests read widgets (sizes, texts, states), which Kivy lays out and updates
        # whether or not a frame is drawn: no frame is drawn and flipped (in Xvfb's software
        # GL that was 85 % of the GUI tests' CPU, on threads taken from the other worker).
        # The start-up benchmarks' smoke tests and the screenshot script still draw;
        # GUI_TESTS_DRAW=1 draws here too.
        stop_drawing(Window)
    the_app._run_prepare()
    runTouchApp(embedded=True)
    wait_for(lambda: the_app.status == "ready" and not the_app.busy, what="start-up")
    yield the_app
    the_app.stop()
    if saved_env is None:
        os.environ.pop("COMPANION_HOME", None)
    else:
        os.environ["COMPANION_HOME"] = saved_env




_PTY_SEEDS: list[int] = []


@pytest.fixture
def pty_tower(app, tmp_path):
    """The simulated tower on a real pseudo-terminal, the app's link moved onto it (and
    back to the in-process sim:// tower afterwards)."""
    from tests.bridge_support import SimPtyTower

    # a new seed each time: the same seed is the same tower boot id, and the app's roll
    # journal rightly ignores a boot's roll numbers it has already taken
    _PTY_SEEDS.append(len(_PTY_SEEDS) + 11)
    tower = SimPtyTower(tmp_path, seed=_PTY_SEEDS[-1])
    wait_for(lambda: app.roll_journal is not None, what="the tower link's start")
    app.connect_tower(tower.path)
    wait_for(lambda: app.tower_state == "connected", timeout=10,
             what=lambda: f"the pty tower ({app.tower_state}: {app.tower_detail})")
    yield tower
    app.connect_tower(TOWER_URL)
    tower.stop()
    wait_for(lambda: app.tower_state == "connected", timeout=10, what="back on sim://")


@pytest.fixture
def dice_panel(app):
    """The dice panel on the simulated tower; afterwards any demo camera tower is left and
    the simulated tower is back (the demo camera tests)."""
    from tests.gui_support import close_popups, on_screen

    close_popups(app)
    wait_for(lambda: app.tower_state == "connected", timeout=10, what="the simulated tower")
    app.open_dice()
    wait_for(lambda: on_screen(app, "dice"), what="the dice panel")
    yield app.root.get_screen("dice")
    app.leave_demo_camera(then=None)
    close_popups(app)
    if app.tower_link.url != TOWER_URL:
        app.connect_tower(TOWER_URL)
    wait_for(lambda: app.tower_state == "connected" and app.tower_link.url == TOWER_URL,
             timeout=10, what="back on the simulated tower")
