"""Screenshots of the tablet UI, reproducible (seeded RNG, temp COMPANION_HOME).

    xvfb-run -a -s "-screen 0 1920x1200x24" .venv/bin/python scripts/screenshots.py docs/screenshots

Every screen of the tour the layout test runs (tests/screen_tour.py: home, each game's
set-up and play screens with a game in progress, saved games, the dice panel, the camera
views) at three window sizes: 1280x800 dp in the given folder (the pictures the README shows
beside the text), 960x600 dp and 1600x1000 dp in its ``960x600`` and ``1600x1000`` subfolders;
and docs/tower.md's tray picture.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
SIZES = ("1280x800", "960x600", "1600x1000")
MAIN_SIZE = "1280x800"      # written in the folder itself


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
    sys.path.insert(0, str(ROOT))
    tower_tray(out)
    from tests.layout_run import parse_size, run_tour

    def shot(name: str, size: str, window) -> None:
        from tests.screen_tour import pump, wait
        window.canvas.ask_update()         # a frame drawn at the new size, not the last one
        wait(0.3)
        pump(3)
        folder = out if size == MAIN_SIZE else out / size
        folder.mkdir(parents=True, exist_ok=True)
        written = window.screenshot(name=str(folder / f"{name}.png"))
        os.replace(written, folder / f"{name}.png")
        print(folder / f"{name}.png", flush=True)

    run_tour([parse_size(s) for s in SIZES], [], os.environ.get("LANGUAGE", "en") or "en",
             on_stop=shot, check=False)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1] if len(sys.argv) > 1 else "docs/screenshots"))
