"""A tour of every screen of the tablet app, each with a game in progress where it has one:
the layout test (tests/layout_run.py) checks each stop at several window sizes, and the
screenshot script (scripts/screenshots.py) photographs them.

``tour(app, stop, only=...)`` drives the running app (seeded, on a temporary COMPANION_HOME)
and calls ``stop(name, top)`` at each screen once it is drawn: ``name`` is the picture's name
(``tekken-mid-round``), ``top`` the widgets to look at (the current screen, and the popups,
banners and sheets open over it). ``only`` limits the tour to some parts (``home``,
``saved``, ``dice``, ``tekken``, ``takkure``, ``kotd``, ``tagteam``, ``danchie``,
``calibrate``).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

PARTS = ("home", "tekken", "saved", "dice", "takkure", "calibrate", "kotd", "tagteam",
         "danchie")


def pump(frames: int = 3) -> None:
    from kivy.base import EventLoop
    for _ in range(frames):
        EventLoop.idle()


def settle(app: Any, cond: Callable[[], Any] = lambda: True, timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        pump(1)
        if cond() and not app.busy and not app.root.transition.is_active:
            pump(3)
            return
        time.sleep(0.005)
    # on stdout: Kivy takes what a tour writes to stderr into its log, and the layout test
    # shows only the tour's lines (a CI run failed with nothing but its last stop)
    print(f"# timed out after {timeout:.0f} s driving the app: screen {app.root.current}, "
          f"busy {app.busy}, condition {'met' if cond() else 'not met'}", flush=True)
    raise SystemExit("timed out driving the app")


def wait(seconds: float) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        pump(1)
        time.sleep(0.01)


def unflash(app: Any) -> None:
    """Take away the toast and banner the last action flashed (each would vanish by itself
    after 3 s): the stop then shows the screen as it stays, without waiting for them."""
    for widget in (app.toast_widget, app.banner_widget):
        if widget is not None and widget.parent is not None:
            widget.parent.remove_widget(widget)
    wait(0.3)


def on_top(app: Any) -> list[Any]:
    """The current screen, then whatever the window shows over it (popups, banners)."""
    from kivy.core.window import Window
    return [app.root.current_screen] + [w for w in reversed(Window.children)
                                        if w is not app.root]


Stop = Callable[[str, list[Any]], None]


def tour(app: Any, stop: Stop, home: Path, only: Iterable[str] = PARTS) -> None:
    parts = set(only)
    unknown = parts - set(PARTS)
    if unknown:
        raise ValueError(f"unknown parts of the tour: {sorted(unknown)}; known: {PARTS}")
    settle(app, lambda: app.status == "ready" and app.tower_state == "connected")

    def at(name: str) -> None:
        stop(name, on_top(app))

    if "home" in parts:
        app.go("home")
        settle(app, lambda: app.root.current == "home")
        at("home")
        app.go("settings")
        settle(app, lambda: app.root.current == "settings")
        at("settings")
        app.set_live("127.0.0.1")          # the live view on: its address and QR code
        settle(app, lambda: bool(app.live_url))
        wait(0.2)
        at("settings-live-view")
        app.set_live(None)
    if "tekken" in parts:
        tekken(app, at)
    if "saved" in parts:
        app.go("home")
        settle(app, lambda: app.root.current == "home")
        app.go("saved")
        settle(app, lambda: app.root.current == "saved" and app.root.get_screen("saved").games)
        at("saved-games")
    if "dice" in parts:
        dice(app, at)
    if "takkure" in parts:
        takkure(app, at, home, calibrate="calibrate" in parts)
    if "kotd" in parts:
        kotd(app, at)
    if "tagteam" in parts:
        tagteam(app, at)
    if "danchie" in parts:
        danchie(app, at)


def tekken(app: Any, at: Callable[[str], None]) -> None:
    app.open_setup("tekken")
    settle(app, lambda: app.root.current == "tekken_setup")
    at("tekken-setup")
    setup = app.root.get_screen("tekken_setup")
    setup.start()
    settle(app, lambda: app.session is not None and app.root.current == "tekken_game")
    game = app.root.get_screen("tekken_game")
    at("tekken-rage-pick")
    a = app.act
    a("tekken.rage_chosen", player=0, card=1)
    a("tekken.rage_chosen", player=1, card=0)
    a("tekken.card", result="hit")
    a("tekken.sweep")
    a("tekken.strike", symbols=[2], cracked_floor=True)
    a("tekken.card", result="blocked")            # Kazuya blocks: his String
    a("tekken.heat")
    a("tekken.card", result="hit")
    a("tekken.strike", symbols=[3, 1])
    a("tekken.card", result="hit")
    settle(app)
    game.add_strike(2)
    game.add_strike(1)
    game.cracked_floor = True
    pump(3)
    wait(0.4)
    at("tekken-mid-round")
    app.set_face_to_face("tekken", True)          # the second fighter's half turned
    settle(app)
    at("tekken-face-to-face")
    app.set_face_to_face("tekken", False)
    settle(app)

    # single tokens until the floor breaks: the banner
    game.clear_strikes()
    while app.session.state.floor.breaks == 0:
        a("tekken.strike", symbols=[1], cracked_floor=True)
        settle(app)
    wait(0.3)
    at("tekken-floor-break")

    # finish the round: a KO asks first, then the round-over card
    while app.session.state.phase == "fight":
        s = app.session.state
        if not s.resolving:
            if s.free_slots == 0:
                a("tekken.end_string")
            else:
                a("tekken.card", result="hit")
            settle(app)
            continue
        target = s.fighters[s.defender]
        a("tekken.strike", symbols=[min(3, max(1, target.hp))])
        settle(app)
        if app.popup is not None:                 # "This ends round 1 ... Confirm?"
            at("tekken-confirm")
            app.popup.content.ids.ok.dispatch("on_release")
            settle(app)
    unflash(app)
    at("tekken-round-over")


def dice(app: Any, at: Callable[[str], None]) -> None:
    """The dice panel after a few throws of the simulated tower, the last with a cocked die
    and six dice."""
    from firmware_bridge.host.urlhandlers import protocol_sim

    name, _ = protocol_sim.parse_url(app.tower_link.url)
    tower = protocol_sim.hub(name)
    app.open_dice()
    settle(app, lambda: app.root.current == "dice")
    for spec in ("kotd", "d6", "takkure", "d12:red:7 d12:red:12 d12:red:?cocked "
                 "d12:yellow:3 d12:yellow:9 d12:yellow:1"):
        before = app.last_roll_text
        tower.roll(spec)
        settle(app, lambda before=before: app.last_roll_text != before)
    wait(0.3)
    at("dice-panel")
    # a tap on the cocked die: set it by hand ("correction in one tap")
    app.tower.check_die(2)
    settle(app, lambda: app.tower.sheet is not None)
    wait(0.2)
    at("dice-check")
    # its faces, and the tower's other kinds' (a die taken for the wrong kind), one tap on
    app.tower.sheet.other(app.tower.sheet.slots[0])
    wait(0.2)
    at("dice-check-kinds")
    app.tower.sheet.dismiss(animation=False)
    settle(app, lambda: app.tower.sheet is None)
    for screen in ("teach", "tray"):    # with this tower they only say why they cannot
        app.go(screen)
        settle(app, lambda screen=screen: app.root.current == screen)
        wait(0.2)
        at(f"{screen}-view")
    demo_camera(app, at)
    # the statistics after a session's worth of throws (sixty of the Takkure set)
    for _ in range(60):
        tower.roll("takkure")
    settle(app, lambda: app.roll_journal is not None and app.roll_journal.recorded_count >= 64)
    app.go("dice_stats")
    settle(app, lambda: app.root.current == "dice_stats")
    wait(0.3)
    unflash(app)                        # the sixty "no game is open" notes
    at("dice-stats")
    app.open_dice()
    settle(app, lambda: app.root.current == "dice")


def demo_camera(app: Any, at: Callable[[str], None]) -> None:
    """Without a camera tower: the demo camera tower, a die being taught on it (a picture to
    name) and its tray with dice read; then the simulated tower again."""
    app.start_demo_camera("teach")
    settle(app, lambda: app.tower_demo and app.tower_state == "connected" and not app.teach_why
           and app.root.current == "teach", timeout=30)
    wait(0.2)
    at("teach-demo")
    teach = app.root.get_screen("teach")
    next(b for b in teach.ids.kinds.children if b.kind == "spawn").dispatch("on_release")
    settle(app, lambda: teach.phase == "teaching")
    app.demo_throw("spawn")
    settle(app, lambda: teach.picture_id and not app.demo_throwing, timeout=30)
    wait(0.3)
    at("teach-demo-picture")
    teach.cancel()
    settle(app, lambda: app.root.current == "dice")
    app.go("tray")
    tray = app.root.get_screen("tray")
    before = app.last_roll_text
    app.demo_throw("kotd")
    settle(app, lambda: app.last_roll_text != before and not app.demo_throwing, timeout=30)
    tray.refresh()
    settle(app, lambda: tray.has_picture, timeout=20)
    wait(0.3)
    at("tray-demo")
    # a die of that throw checked by hand: the tower's picture of it, its likeliest faces
    app.go("dice")
    settle(app, lambda: app.root.current == "dice")
    app.tower.check_die(0)
    sheet = app.tower.sheet
    settle(app, lambda: sheet is not None and sheet.pictures, timeout=20)
    wait(0.3)
    at("dice-check-picture")
    sheet.dismiss(animation=False)
    settle(app, lambda: app.tower.sheet is None)
    app.leave_demo_camera()
    settle(app, lambda: not app.tower_demo and app.tower_state == "connected"
           and app.root.current == "dice", timeout=15)


def takkure(app: Any, at: Callable[[str], None], home: Path, calibrate: bool = True) -> None:
    """A Takkure match mid-half: the made-up demo roster (tests/takkure_support.py) is
    written as the user's roster file, as the roster editor would."""
    from tests.takkure_support import write_demo_roster

    write_demo_roster(home)
    app.game_configs.pop("takkure", None)
    app.go("home")
    settle(app, lambda: app.root.current == "home")
    app.root.get_screen("home").pick("takkure")
    settle(app, lambda: app.root.current == "takkure_setup")
    at("takkure-setup")
    app.go("takkure_roster")
    settle(app, lambda: app.root.current == "takkure_roster")
    app.root.get_screen("takkure_roster").edit("Yokozuna")
    wait(0.2)
    at("takkure-roster")
    app.go("takkure_setup")
    settle(app, lambda: app.root.current == "takkure_setup")
    app.root.get_screen("takkure_setup").start()
    settle(app, lambda: app.session is not None and app.session.game == "takkure"
           and app.root.current == "takkure_game")
    a = app.act
    a("takkure.kickoff", kicking=1)                    # Yamato receive and attack
    a("takkure.ball", team=0, player=1)
    for who in (1, 1, 3):
        a("takkure.activate", team=0, player=who)
    a("takkure.fatigue", team=1, player=0, op="gain")
    a("takkure.fatigue", team=1, player=0, op="flip", token=0)
    a("takkure.wound", team=1, player=3)
    a("takkure.grounded", team=1, player=2, value=True)
    a("takkure.ball", team=0, player=3)                # only the carrier is tackled
    settle(app)
    game = app.root.get_screen("takkure_game")
    game.choose_kind("tackle_dodge")
    game.pick(0, 3)
    game.pick(1, 1)
    game.change_pressure(1)
    game.type_die(4)
    game.type_die(9)
    pump(3)
    unflash(app)
    at("takkure-match")
    # the camera: a pass declared, the demo scene measuring the passer to a receiver
    game.clear_roll()
    app.act("takkure.ball", team=0, player=1)         # Hana has the ball again: she passes
    settle(app)
    game.choose_kind("pass")
    game.pick(0, 1)
    settle(app)
    at("takkure-pass")                                # a roll that needs a distance
    game.open_camera()
    settle(app, lambda: app.root.current == "takkure_measure")
    mv = app.root.get_screen("takkure_measure")
    # pieces count once steady (3 frames): wait for a frame that has them all
    settle(app, lambda: mv.last_frame is not None and mv.last_frame.measurement is not None
           and len(mv.last_frame.measurement.pieces) >= 2)
    m = mv.last_frame.measurement
    passer = mv.selected[0]
    p = m.piece(passer)
    near = min((q for q in m.pieces if q.id != passer),
               key=lambda q: (q.x_in - p.x_in) ** 2 + (q.y_in - p.y_in) ** 2)
    mv.select(near.id)
    settle(app, lambda: mv.reading is not None and mv.reading.steady)
    wait(0.5)
    at("takkure-measure")
    mv.back()
    settle(app, lambda: app.root.current == "takkure_game")
    if not calibrate:
        return
    # the guided calibration, on the demo board, finished
    app.open_calibration("takkure_game")
    settle(app, lambda: app.root.current == "camera_calibrate")
    cal = app.root.get_screen("camera_calibrate")
    settle(app, lambda: not cal.running, timeout=120)
    wait(0.3)
    at("camera-calibrate")
    cal.back()
    settle(app, lambda: app.root.current == "takkure_game")


def kotd(app: Any, at: Callable[[str], None]) -> None:
    """A King of Tokyo Duel turn: the simulated tower throws, dice kept, resolve preview."""
    from firmware_bridge.host.urlhandlers import protocol_sim

    name, _ = protocol_sim.parse_url(app.tower_link.url)
    tower = protocol_sim.hub(name)
    app.go("home")
    settle(app, lambda: app.root.current == "home")
    app.root.get_screen("home").pick("kotd")
    settle(app, lambda: app.root.current == "kotd_setup")
    setup = app.root.get_screen("kotd_setup")
    setup.choose(0, "Gigazaur")
    setup.choose(1, "The King")
    at("kotd-setup")
    setup.start()
    settle(app, lambda: app.session is not None and app.session.game == "kotd"
           and app.root.current == "kotd_game")
    a = app.act
    a("kotd.place_buzz", token="energy", track="fame", cell=3)
    a("kotd.roll", faces=["FAME", "FAME", "CLAW", "HEART", "ENERGY"])
    a("kotd.keep", die=0, kept=True)
    a("kotd.keep", die=1, kept=True)
    a("kotd.keep", die=2, kept=True)
    before = len(app.session.actions)
    tower.roll("kotd:black:FAME kotd:-:POWER")
    settle(app, lambda: len(app.session.actions) > before)
    wait(0.3)
    at("kotd-roll")
    app.set_face_to_face("kotd", True)           # the second monster's half turned
    settle(app)
    at("kotd-face-to-face")
    app.set_face_to_face("kotd", False)
    settle(app)
    app.root.get_screen("kotd_game").open_resolve()
    wait(0.3)
    at("kotd-resolve")
    app.root.get_screen("kotd_game").resolve_view.dismiss(animation=False)
    pump(3)


def tagteam(app: Any, at: Callable[[str], None]) -> None:
    """A Tag Team fight after two turns, the third turn being entered; the board editor."""
    app.go("home")
    settle(app, lambda: app.root.current == "home")
    app.root.get_screen("home").pick("tagteam")
    settle(app, lambda: app.root.current == "tagteam_setup")
    at("tagteam-setup")
    app.root.get_screen("tagteam_setup").start()
    settle(app, lambda: app.session is not None and app.session.game == "tagteam"
           and app.root.current == "tagteam_game")
    app.act("tagteam.turn", sides=[{"active": 0, "effects": [{"kind": "attack"}]},
                                   {"active": 0, "effects": [{"kind": "attack"},
                                                             {"kind": "heal", "amount": 2}]}])
    settle(app)
    game = app.root.get_screen("tagteam_game")
    game.change(0, "block")
    game.change(0, "block_power", 1)
    game.change(1, "attack")
    game.change(1, "direct", 1)
    wait(0.3)
    at("tagteam-fight")
    app.set_face_to_face("tagteam", True)        # the second player's half turned
    settle(app)
    at("tagteam-face-to-face")
    app.set_face_to_face("tagteam", False)
    settle(app)
    game.clear_entry(0)
    game.clear_entry(1)
    # the board editor: a STOP and a POWER GAIN set on Jeanne's track (not saved)
    app.go("tagteam_tracks")
    settle(app, lambda: app.root.current == "tagteam_tracks")
    boards = app.root.get_screen("tagteam_tracks")
    boards.set_brush("stop")
    boards.tap_cell(15)
    boards.set_brush("power_gain")
    boards.tap_cell(12)
    wait(0.3)
    at("tagteam-boards")
    app.go("home")
    settle(app, lambda: app.root.current == "home")


def danchie(app: Any, at: Callable[[str], None]) -> None:
    """Danchie Go: the 5-player set-up table, a race in round 4 (Power-Ups active, two
    action sets, a frozen Dasher, a podium place), and the Tektonpedia at the end."""
    from firmware_bridge.host.urlhandlers import protocol_sim

    name, _ = protocol_sim.parse_url(app.tower_link.url)
    tower = protocol_sim.hub(name)
    app.go("home")
    settle(app, lambda: app.root.current == "home")
    app.root.get_screen("home").pick("danchie")
    settle(app, lambda: app.root.current == "danchie_setup")
    setup = app.root.get_screen("danchie_setup")
    setup.set_count(5)
    for field, player in zip(reversed(setup.ids.names.children),
                             ("Aki", "Ben", "Cleo", "Dana", "Eli")):
        field.text = player
    wait(0.3)
    at("danchie-setup")
    setup.start()
    settle(app, lambda: app.session is not None and app.session.game == "danchie"
           and app.root.current == "danchie_game")
    s = lambda: app.session.state  # noqa: E731

    def me() -> str:
        return s().dashers[s().current].name

    def end_turn() -> None:                           # every action set first, as the rules say
        for _ in range(s().sets_left(s().current)):
            app.act("danchie.action_set", player=me(), kind="full")
        app.act("danchie.end_turn", player=me())
        settle(app)

    def blueprint(player: str) -> None:               # a Blueprint side matching the board
        d = s().dashers[s().index(player)]
        for k, t in enumerate(s().tile_types):
            for _ in range(d.tiles[k] - d.blueprint[d.lap - 1][k]):
                app.act("danchie.blueprint", player=player,
                        side=("green", "red")[d.lap - 1], type=t, delta=1)

    for player, pair in zip(("Aki", "Ben", "Cleo", "Dana", "Eli"),
                            (["red", "blue"], ["green", "yellow"], ["red", "green"],
                             ["blue", "yellow"], ["red", "yellow"])):
        app.act("danchie.start_tiles", player=player, types=pair)
    app.act("danchie.tiles", player=me(), type="red", delta=1)
    while s().round < 3:
        end_turn()
    app.act("danchie.power_tiles", player=me(), delta=1)   # picks a Power-Up Tile: a card
    app.act("danchie.power_up", player=me(), card="Freeze", target="Cleo")
    end_turn()
    blueprint(me())
    app.act("danchie.lap", player=me())               # Ben: first to the Flip line
    app.act("danchie.power_tiles", player=me(), delta=1)
    app.act("danchie.decline_power_up", player=me())
    while s().round < 4:
        end_turn()
    app.act("danchie.tiles", player=me(), type="green", delta=1)
    app.act("danchie.action_set", player=me(), kind="full")
    before = s().last_spawn
    tower.roll("spawn:white:POWER_UP_ON_SPAWN")
    settle(app, lambda: s().last_spawn is not before)
    unflash(app)
    at("danchie-race")
    for player in ("Aki", "Cleo", "Dana", "Eli", "Ben", "Eli", "Aki", "Cleo", "Dana"):
        blueprint(player)
        app.act("danchie.lap", player=player)
    settle(app, lambda: app.root.get_screen("danchie_game").tekton_view is not None)
    wait(0.3)
    at("danchie-tektonpedia")
    app.root.get_screen("danchie_game").tekton_view.dismiss(animation=False)
    pump(3)
