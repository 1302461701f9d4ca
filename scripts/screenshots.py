"""Screenshots of the tablet UI, reproducible (seeded RNG, temp COMPANION_HOME).

    xvfb-run -a -s "-screen 0 1280x800x24" .venv/bin/python scripts/screenshots.py docs/screenshots

Writes home, tekken-setup, tekken-mid-round, tekken-floor-break, tekken-round-over,
saved-games, the games' and the dice tower's PNGs (1280x800) into the given folder; the
teaching and Tray view ones (teach-pick, teach-picture, tray-view) with a camera tower on a
pty fed by rendered throws.
"""

from __future__ import annotations

import os
import random
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

SEED = 7


def tower_tray(out: Path) -> None:
    """docs/tower.md's picture: a rendered tray (left) and the reader's verdicts drawn on it
    (right), as the tower's camera would see it."""
    import cv2

    from vision.dice import DiceReader
    from vision.dice.bench import teach_tower
    from vision.dice.render import random_tray

    frame, _, style = random_tray(2027, n_dice=6, tilted_prob=0.2)
    reader = DiceReader(teach_tower(style, 11))
    drawn = frame.copy()
    colours = {"clean": (60, 200, 60), "cocked": (0, 170, 255), "unreadable": (60, 60, 230)}
    for die in reader.read(frame):
        colour = colours.get(die.status, (200, 200, 200))
        centre = (int(round(die.x)), int(round(die.y)))
        cv2.circle(drawn, centre, 38, colour, 3, cv2.LINE_AA)
        label = f"{die.face or '?'} {die.status}"
        cv2.putText(drawn, label, (centre[0] - 40, centre[1] + 56), cv2.FONT_HERSHEY_SIMPLEX,
                    0.55, (0, 0, 0), 4, cv2.LINE_AA)
        cv2.putText(drawn, label, (centre[0] - 40, centre[1] + 56), cv2.FONT_HERSHEY_SIMPLEX,
                    0.55, colour, 1, cv2.LINE_AA)
    cv2.imwrite(str(out / "tower-tray.png"), np.hstack([frame, drawn]))
    print(out / "tower-tray.png")


def main(out_dir: str) -> int:
    out = Path(out_dir).resolve()
    out.mkdir(parents=True, exist_ok=True)
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    tower_tray(out)
    home = Path(tempfile.mkdtemp(prefix="companion-shots-"))
    os.environ["COMPANION_HOME"] = str(home)
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

    from kivy.base import EventLoop, runTouchApp
    from kivy.core.window import Window

    from companion.app.main import CompanionApp  # first: it configures the window

    app = CompanionApp(data_root=home, tower_url="sim://shots?seed=5")
    app.new_game_rng = random.Random(SEED)
    app._run_prepare()
    runTouchApp(embedded=True)

    def pump(frames: int = 3) -> None:
        for _ in range(frames):
            EventLoop.idle()

    def settle(cond=lambda: True, timeout: float = 10.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            pump(1)
            if cond() and not app.busy and not app.root.transition.is_active:
                pump(3)
                return
            time.sleep(0.005)
        raise SystemExit("timed out driving the app")

    def shot(name: str, wait: float = 0.0) -> None:
        end = time.monotonic() + wait
        while time.monotonic() < end:
            pump(1)
            time.sleep(0.01)
        pump(4)
        written = Window.screenshot(name=str(out / f"{name}.png"))
        os.replace(written, out / f"{name}.png")
        print(out / f"{name}.png")

    settle(lambda: app.status == "ready" and app.tower_state == "connected")
    shot("home")
    app.open_setup("tekken")
    settle(lambda: app.root.current == "tekken_setup")
    shot("tekken-setup")

    setup = app.root.get_screen("tekken_setup")
    setup.start()
    settle(lambda: app.session is not None and app.root.current == "tekken_game")
    game = app.root.get_screen("tekken_game")
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
    settle()
    game.add_strike(2)
    game.add_strike(1)
    game.cracked_floor = True
    pump(3)
    shot("tekken-mid-round", wait=0.4)

    # Reveal single tokens until the floor breaks, and catch the banner.
    game.clear_strikes()
    while app.session.state.floor.breaks == 0:
        a("tekken.strike", symbols=[1], cracked_floor=True)
        settle()
    shot("tekken-floor-break", wait=0.5)
    pump(2)

    # Finish the round: a KO asks first, then the round-over overlay.
    while app.session.state.phase == "fight":
        s = app.session.state
        if not s.resolving:
            if s.free_slots == 0:
                a("tekken.end_string")
            else:
                a("tekken.card", result="hit")
            settle()
            continue
        target = s.fighters[s.defender]
        a("tekken.strike", symbols=[min(3, max(1, target.hp))])
        settle()
        if app.popup is not None:                 # "This ends round 1 ... Confirm?"
            app.popup.content.ids.ok.dispatch("on_release")
            settle()
    shot("tekken-round-over", wait=3.5)

    app.go("home")
    settle(lambda: app.root.current == "home")
    app.go("saved")
    settle(lambda: app.root.current == "saved" and app.root.get_screen("saved").games)
    shot("saved-games")

    # The dice panel after a few throws of the simulated tower, the last with a cocked die.
    from firmware_bridge.urlhandlers import protocol_sim

    tower = protocol_sim.hub("shots")
    app.go("dice")
    settle(lambda: app.root.current == "dice")
    for spec in ("kotd", "d6", "takkure", "d12:red:7 d12:red:12 d12:red:?cocked "
                 "d12:yellow:3 d12:yellow:9 d12:yellow:1"):
        before = app.last_roll_text
        tower.roll(spec)
        settle(lambda before=before: app.last_roll_text != before)
    shot("dice-panel", wait=0.3)

    takkure(app, settle, shot, pump, home)
    kotd(app, settle, shot, pump)
    tagteam(app, settle, shot)
    danchie(app, settle, shot, tower)
    teaching(app, settle, shot, home)
    app.stop()
    return 0


def teaching(app, settle, shot, home: Path) -> None:
    """Teach a die and the Tray view, against a camera tower on a pty fed by rendered throws
    (the tower knows King of Tokyo Duel's die and is taught Danchie Go's spawn die)."""
    import collections
    import math
    import threading

    from firmware_bridge.camera_tower import CameraTower, IterSource
    from firmware_bridge.ptyport import PtyPort
    from vision.dice.bench import teach_tower
    from vision.dice.render import TrayStyle, throw_sequence

    style = TrayStyle(tray_bgr=(120, 104, 66), light_dir=(0.12, -0.08), vignette=0.2,
                      gradient=(0.06, -0.04), perspective=3.0, blur_sigma=0.6,
                      noise_sigma=2.0, jpeg_quality=88, seed=1, tray_seed=7)
    profile = teach_tower(style, 41, kinds=["kotd"])
    queue: collections.deque = collections.deque()
    stop = threading.Event()

    def frames():
        last = None
        while not stop.is_set():
            if queue:
                last = queue.popleft()
            elif last is None:
                time.sleep(0.01)
                continue
            else:
                time.sleep(1 / 30)
            yield last

    port = PtyPort(home / "camera-tower")
    port.plug()
    tower = CameraTower(profile, IterSource(frames()), port, ring_file=home / "ring.json",
                        still_frames=4, seed=3, log=lambda text: None,
                        profile_path=home / "tower.yaml")
    tower.start_link()
    thread = tower.run_in_thread()
    try:
        app.connect_tower(str(port.link))
        settle(lambda: app.tower_state == "connected" and not app.teach_why)
        app.go("teach")
        settle(lambda: app.root.current == "teach")
        shot("teach-pick")
        teach = app.root.get_screen("teach")
        spawn = next(b for b in teach.ids.kinds.children if b.text == "Danchie Go spawn die")
        spawn.dispatch("on_release")
        settle(lambda: teach.phase == "teaching" and teach.message == "throw the dice")
        for seed in (100, 101, 102):
            seq = throw_sequence(seed, n_dice=3, kinds=["spawn"], style=style)
            truth = next(f for f in seq if f.phase == "settled").truth
            queue.extend(f.image for f in seq[:-4])
            settle(lambda: teach.picture_id and not queue and not tower.teacher.streaming
                   and teach.waiting == len(tower.teacher.waiting), timeout=30)
            if seed == 102:
                break
            while teach.picture_id:
                pic = teach.current()
                die = min(truth, key=lambda t: math.hypot(t.x - pic.x, t.y - pic.y))
                before = dict(teach.faces)[die.face]
                teach.answer(die.face)
                settle(lambda face=die.face, before=before: dict(teach.faces)[face] > before)
            queue.extend(f.image for f in seq[-4:])
        settle(lambda: teach.waiting >= 1)
        shot("teach-picture", wait=0.3)
        teach.cancel()
        settle(lambda: app.root.current == "dice" and not tower.teacher.teaching)
        seq = throw_sequence(21, n_dice=4, kinds=["kotd"], style=style)
        sent = len(tower.sent)
        queue.extend(f.image for f in seq[:-4])
        settle(lambda: len(tower.sent) > sent, timeout=30)
        app.go("tray")
        tray = app.root.get_screen("tray")
        settle(lambda: app.root.current == "tray" and tray.has_picture, timeout=20)
        shot("tray-view", wait=0.3)
        app.go("home")
    finally:
        stop.set()
        tower.stop()
        thread.join(5)
        port.unplug()


def takkure(app, settle, shot, pump, home: Path) -> None:
    """A Takkure match mid-half: the made-up demo roster (tests/takkure_support.py) is
    written as the user's roster file, as the roster editor would."""
    from tests.takkure_support import write_demo_roster

    write_demo_roster(home)
    app.game_configs.pop("takkure", None)
    app.go("home")
    settle(lambda: app.root.current == "home")
    app.root.get_screen("home").pick("takkure")
    settle(lambda: app.root.current == "takkure_setup")
    shot("takkure-setup")
    app.go("takkure_roster")
    settle(lambda: app.root.current == "takkure_roster")
    app.root.get_screen("takkure_roster").edit("Yokozuna")
    shot("takkure-roster", wait=0.2)
    app.go("takkure_setup")
    settle(lambda: app.root.current == "takkure_setup")
    app.root.get_screen("takkure_setup").start()
    settle(lambda: app.session is not None and app.session.game == "takkure"
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
    settle()
    game = app.root.get_screen("takkure_game")
    game.choose_kind("tackle_dodge")
    game.pick(0, 3)
    game.pick(1, 1)
    game.change_pressure(1)
    game.type_die(4)
    game.type_die(9)
    pump(3)
    shot("takkure-match", wait=3.8)
    # the camera: a pass declared, the demo scene measuring the passer to a receiver
    game.clear_roll()
    app.act("takkure.ball", team=0, player=1)         # Hana has the ball again: she passes
    settle()
    game.choose_kind("pass")
    game.pick(0, 1)
    game.open_camera()
    settle(lambda: app.root.current == "takkure_measure")
    mv = app.root.get_screen("takkure_measure")
    # pieces count once steady (3 frames): wait for a frame that has them all
    settle(lambda: mv.last_frame is not None and mv.last_frame.measurement is not None
           and len(mv.last_frame.measurement.pieces) >= 2)
    names = {v: k for k, v in mv.names.items()}
    m = mv.last_frame.measurement
    passer = mv.selected[0]
    a = m.piece(passer)
    near = min((p for p in m.pieces if p.id != passer),
               key=lambda p: (p.x_in - a.x_in) ** 2 + (p.y_in - a.y_in) ** 2)
    mv.select(near.id)
    settle(lambda: mv.reading is not None and mv.reading.steady)
    shot("takkure-measure", wait=0.5)
    mv.back()
    settle(lambda: app.root.current == "takkure_game")
    assert names
    # the guided calibration, on the demo board, finished
    app.open_calibration("takkure_game")
    settle(lambda: app.root.current == "camera_calibrate")
    cal = app.root.get_screen("camera_calibrate")
    settle(lambda: not cal.running, timeout=120)
    shot("camera-calibrate", wait=0.3)
    cal.back()
    settle(lambda: app.root.current == "takkure_game")


def kotd(app, settle, shot, pump) -> None:
    """A King of Tokyo Duel turn: the simulated tower throws, dice kept, resolve preview."""
    from firmware_bridge.urlhandlers import protocol_sim

    tower = protocol_sim.hub("shots")
    app.go("home")
    settle(lambda: app.root.current == "home")
    app.root.get_screen("home").pick("kotd")
    settle(lambda: app.root.current == "kotd_setup")
    setup = app.root.get_screen("kotd_setup")
    setup.choose(0, "Gigazaur")
    setup.choose(1, "The King")
    setup.start()
    settle(lambda: app.session is not None and app.session.game == "kotd"
           and app.root.current == "kotd_game")
    a = app.act
    a("kotd.place_buzz", token="energy", track="fame", cell=3)
    a("kotd.roll", faces=["FAME", "FAME", "CLAW", "HEART", "ENERGY"])
    a("kotd.keep", die=0, kept=True)
    a("kotd.keep", die=1, kept=True)
    a("kotd.keep", die=2, kept=True)
    before = len(app.session.actions)
    tower.roll("kotd:black:FAME kotd:-:POWER")
    settle(lambda: len(app.session.actions) > before)
    shot("kotd-roll", wait=0.3)
    app.root.get_screen("kotd_game").open_resolve()
    shot("kotd-resolve", wait=0.3)
    app.root.get_screen("kotd_game").resolve_view.dismiss(animation=False)


def tagteam(app, settle, shot) -> None:
    """A Tag Team fight after two turns, the third turn being entered."""
    app.go("home")
    settle(lambda: app.root.current == "home")
    app.root.get_screen("home").pick("tagteam")
    settle(lambda: app.root.current == "tagteam_setup")
    app.root.get_screen("tagteam_setup").start()
    settle(lambda: app.session is not None and app.session.game == "tagteam"
           and app.root.current == "tagteam_game")
    app.act("tagteam.turn", sides=[{"active": 0, "effects": [{"kind": "attack"}]},
                                   {"active": 0, "effects": [{"kind": "attack"},
                                                             {"kind": "heal", "amount": 2}]}])
    settle()
    game = app.root.get_screen("tagteam_game")
    game.change(0, "block")
    game.change(0, "block_power", 1)
    game.change(1, "attack")
    game.change(1, "direct", 1)
    shot("tagteam-fight", wait=0.3)
    game.clear_entry(0)
    game.clear_entry(1)
    # the board editor: a STOP and a POWER GAIN set on Jeanne's track (not saved)
    app.go("tagteam_tracks")
    settle(lambda: app.root.current == "tagteam_tracks")
    boards = app.root.get_screen("tagteam_tracks")
    boards.set_brush("stop")
    boards.tap_cell(15)
    boards.set_brush("power_gain")
    boards.tap_cell(12)
    shot("tagteam-boards", wait=0.3)
    app.go("home")


def danchie(app, settle, shot, tower) -> None:
    """Danchie Go: the 5-player set-up table, a race in round 4 (Power-Ups active, two
    action sets, a frozen Dasher, a podium place), and the Tektonpedia at the end."""
    app.go("home")
    settle(lambda: app.root.current == "home")
    app.root.get_screen("home").pick("danchie")
    settle(lambda: app.root.current == "danchie_setup")
    setup = app.root.get_screen("danchie_setup")
    setup.set_count(5)
    for field, name in zip(reversed(setup.ids.names.children), ("Aki", "Ben", "Cleo", "Dana", "Eli")):
        field.text = name
    shot("danchie-setup", wait=0.3)
    setup.start()
    settle(lambda: app.session is not None and app.session.game == "danchie"
           and app.root.current == "danchie_game")
    s = lambda: app.session.state  # noqa: E731

    def me() -> str:
        return s().dashers[s().current].name

    def end_turn() -> None:                           # every action set first, as the rules say
        for _ in range(s().sets_left(s().current)):
            app.act("danchie.action_set", player=me(), kind="full")
        app.act("danchie.end_turn", player=me())
        settle()

    def blueprint(name: str) -> None:                 # a Blueprint side matching the board
        d = s().dashers[s().index(name)]
        for k, t in enumerate(s().tile_types):
            for _ in range(d.tiles[k] - d.blueprint[d.lap - 1][k]):
                app.act("danchie.blueprint", player=name, side=("green", "red")[d.lap - 1],
                        type=t, delta=1)

    for name, pair in zip(("Aki", "Ben", "Cleo", "Dana", "Eli"),
                          (["red", "blue"], ["green", "yellow"], ["red", "green"],
                           ["blue", "yellow"], ["red", "yellow"])):
        app.act("danchie.start_tiles", player=name, types=pair)
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
    settle(lambda: s().last_spawn is not before)
    shot("danchie-race", wait=4.5)
    for name in ("Aki", "Cleo", "Dana", "Eli", "Ben", "Eli", "Aki", "Cleo", "Dana"):
        blueprint(name)
        app.act("danchie.lap", player=name)
    settle(lambda: app.root.get_screen("danchie_game").tekton_view is not None)
    shot("danchie-tektonpedia", wait=0.3)
    app.root.get_screen("danchie_game").tekton_view.dismiss(animation=False)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1] if len(sys.argv) > 1 else "docs/screenshots"))
