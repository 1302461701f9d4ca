"""Screenshots of teaching a die and of the Tray view, against a camera tower on a pty fed by
rendered throws (the tower knows King of Tokyo Duel's die and is taught Danchie Go's spawn
die); reproducible (seeded renders, temp COMPANION_HOME).

    xvfb-run -a -s "-screen 0 1280x800x24" .venv/bin/python scripts/teach_screenshots.py docs/screenshots

Writes teach-pick, teach-picture, teach-colour (Takkure's D12: colour and face) and
tray-view (the window at its default 800x600) into the given folder. The other
screens are scripts/screenshots.py's (the layout tour).
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path


def main(out_dir: str) -> int:
    out = Path(out_dir).resolve()
    out.mkdir(parents=True, exist_ok=True)
    home = Path(tempfile.mkdtemp(prefix="companion-shots-"))
    os.environ["COMPANION_HOME"] = str(home)
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

    from kivy.base import runTouchApp
    from kivy.core.window import Window

    from companion.app.main import CompanionApp  # first: it configures the window

    app = CompanionApp(data_root=home, tower_url="sim://shots?seed=5")
    app._run_prepare()
    runTouchApp(embedded=True)

    from tests.screen_tour import pump, wait
    from tests.screen_tour import settle as settle_app

    def settle(cond=lambda: True, timeout: float = 10.0) -> None:
        settle_app(app, cond, timeout)

    def shot(name: str, wait_s: float = 0.0) -> None:
        wait(wait_s)
        pump(4)
        written = Window.screenshot(name=str(out / f"{name}.png"))
        os.replace(written, out / f"{name}.png")
        print(out / f"{name}.png")

    settle(lambda: app.status == "ready" and app.tower_state == "connected")
    teaching(app, settle, shot, home)
    app.stop()
    return 0


def teaching(app, settle, shot, home: Path) -> None:
    """Teach a die and the Tray view, against a camera tower on a pty fed by rendered throws
    (the tower knows King of Tokyo Duel's die and is taught Danchie Go's spawn die)."""
    import collections
    import math
    import threading

    from firmware_bridge.testing.ptyport import PtyPort
    from firmware_bridge.tower.camera_tower import CameraTower
    from firmware_bridge.tower.frames import IterSource
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
        shot("teach-picture", wait_s=0.3)
        teach.cancel()
        settle(lambda: app.root.current == "dice" and not tower.teacher.teaching)
        # Takkure's D12: its colour (red or yellow) is taught with its face
        app.go("teach")
        settle(lambda: app.root.current == "teach" and teach.phase == "pick")
        d12 = next(b for b in teach.ids.kinds.children if b.text == "Takkure D12")
        d12.dispatch("on_release")
        settle(lambda: teach.phase == "teaching" and teach.message == "throw the dice")
        seq = throw_sequence(7, n_dice=3, kinds=["d12"], style=style)
        truth = next(f for f in seq if f.phase == "settled").truth
        queue.extend(f.image for f in seq[:-4])
        settle(lambda: teach.picture_id and not queue and not tower.teacher.streaming
               and teach.waiting == len(tower.teacher.waiting), timeout=30)
        pic = teach.current()
        teach.pick_colour(min(truth, key=lambda t: math.hypot(t.x - pic.x, t.y - pic.y)).colour)
        shot("teach-colour", wait_s=0.3)
        teach.cancel()
        queue.extend(f.image for f in seq[-4:])
        settle(lambda: app.root.current == "dice" and not tower.teacher.teaching)
        seq = throw_sequence(21, n_dice=4, kinds=["kotd"], style=style)
        sent = len(tower.sent)
        queue.extend(f.image for f in seq[:-4])
        settle(lambda: len(tower.sent) > sent, timeout=30)
        app.go("tray")
        tray = app.root.get_screen("tray")
        settle(lambda: app.root.current == "tray" and tray.has_picture, timeout=20)
        shot("tray-view", wait_s=0.3)
        app.go("home")
    finally:
        stop.set()
        tower.stop()
        thread.join(5)
        port.unplug()



if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "docs/screenshots"))
