"""Screenshots of the tablet UI, reproducible (seeded RNG, temp COMPANION_HOME).

    xvfb-run -a -s "-screen 0 1920x1200x24" .venv/bin/python scripts/screenshots.py docs/screenshots
    xvfb-run -a -s "-screen 0 1920x1200x24" .venv/bin/python scripts/screenshots.py \
        --lang fr docs/screenshots/fr

Every screen of the tour the layout test runs (tests/screen_tour.py: home, each game's
set-up and play screens with a game in progress, saved games, the dice panel, the camera
views). In English at three window sizes: 960x600 dp, the smallest tablet, in the given
folder (the pictures the README shows beside the text), 1280x800 dp and 1600x1000 dp in its
``1280x800`` and ``1600x1000`` subfolders; and docs/tower.md's tray picture. In another
language (``--lang fr``): at 960x600 dp only, in the given folder.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
SIZES = ("960x600", "1280x800", "1600x1000")
MAIN_SIZE = "960x600"       # written in the folder itself


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


def main(argv: list[str]) -> int:
    import argparse

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lang", default="en", help="the app's language (en, fr)")
    ap.add_argument("out_dir", nargs="?", default="docs/screenshots")
    args = ap.parse_args(argv)
    out = Path(args.out_dir).resolve()
    out.mkdir(parents=True, exist_ok=True)
    sys.path.insert(0, str(ROOT))
    sizes = SIZES if args.lang == "en" else (MAIN_SIZE,)
    if args.lang == "en":
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

    run_tour([parse_size(s) for s in sizes], [], args.lang, on_stop=shot, check=False)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
