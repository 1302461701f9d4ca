"""Open every screen of the app and check its layout at several window sizes (in dp) in one
Kivy process (its density is fixed by $KIVY_METRICS_DENSITY when Kivy starts).

    KIVY_METRICS_DENSITY=2 xvfb-run -a -s "-screen 0 1920x1200x24" \\
        python -m tests.layout_run --sizes 960x600 --only home,dice,tekken --lang fr

Prints one line per fault (stop, size, widget path, what is wrong), then one JSON object on
its last line: {"density": ..., "lang": ..., "stops": [...], "faults": [...]}. Exit status 0
even with faults (the test reads the JSON).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sys
import tempfile
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
os.environ["KIVY_NO_ARGS"] = "1"      # the options below are ours, not Kivy's


def parse_size(text: str) -> tuple[int, int]:
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise SystemExit(f"--sizes: {text!r} is not WIDTHxHEIGHT in dp") from None
    return w, h


def set_language(lang: str) -> None:
    """The app's language: $LANGUAGE for the system default, and companion.i18n when this
    checkout has it."""
    os.environ["LANGUAGE"] = lang
    try:
        from companion import i18n  # type: ignore[attr-defined]
    except ImportError:
        if lang != "en":
            raise SystemExit(f"--lang {lang}: this checkout has no companion.i18n") from None
        return
    i18n.set_language(lang)


def run_tour(sizes: list[tuple[int, int]], only: list[str], lang: str,
             also: list[tuple[tuple[int, int], tuple[str, ...]]] | None = None,
             on_stop=None, check: bool = True) -> tuple[list[str], list[dict[str, str]]]:
    """Drive the app through the tour; at each stop and size, check the layout (``check``)
    and call ``on_stop(name, size, window)`` (the screenshot script photographs it)."""
    home = Path(tempfile.mkdtemp(prefix="companion-layout-"))
    os.environ["COMPANION_HOME"] = str(home)
    os.environ.setdefault("KIVY_NO_CONSOLELOG", "1")
    sys.path.insert(0, str(ROOT))
    set_language(lang)

    from kivy.base import runTouchApp
    from kivy.core.window import Window
    from kivy.metrics import dp

    from companion.app.main import CompanionApp  # first: it configures the window
    from tests import layout_check, screen_tour
    from tests.gui_support import stop_drawing

    if on_stop is None:
        # the checks read sizes, positions and text extents, which Kivy lays out whether or
        # not a frame is drawn: without a picture to take, no frame is drawn and flipped (in
        # software GL that was 40 % of a tour's time). The screenshot script draws them all.
        stop_drawing(Window)
    app = CompanionApp(data_root=home, tower_url=f"sim://layout{os.getpid()}?seed=5")
    app.new_game_rng = random.Random(7)
    app._run_prepare()
    runTouchApp(embedded=True)
    unit = dp(1)
    stops: list[str] = []
    faults: list[dict[str, str]] = []

    last = [time.monotonic()]

    def stop(name: str, top: list) -> None:
        print(f"# {name}: reached in {time.monotonic() - last[0]:.1f} s", flush=True)
        stops.append(name)
        extra = [size for size, prefixes in also or () if name.startswith(prefixes)]
        for w, h in list(sizes) + extra:
            target = (round(w * unit), round(h * unit))
            Window.size = target
            deadline = time.monotonic() + 3
            while tuple(Window.size) != target and time.monotonic() < deadline:
                screen_tour.pump(1)
            screen_tour.wait(0.12)
            screen_tour.pump(4)
            size = f"{w}x{h}"
            for widget in screen_tour.on_top(app) if check else ():
                if widget.parent is None:
                    continue
                for fault in layout_check.check(widget, Window.size, unit):
                    faults.append({"stop": name, "size": size, "path": fault.path,
                                   "kind": fault.kind, "detail": fault.detail})
            if on_stop is not None:
                on_stop(name, size, Window)
        last[0] = time.monotonic()

    try:
        screen_tour.tour(app, stop, home, only or screen_tour.PARTS)
    finally:
        app.stop()
        # the tour's games, rolls and logs: every layout test and screenshot run left one
        # in the temporary folder
        shutil.rmtree(home, ignore_errors=True)
    return stops, faults


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="960x600,1280x800,1600x1000",
                    help="window sizes in dp, comma-separated")
    ap.add_argument("--only", default="", help="parts of the tour (default: all)")
    ap.add_argument("--also", action="append", default=[],
                    help="SIZE:PREFIX,PREFIX: one more size for the stops whose names start "
                         "so (e.g. 800x360:home,dice,tekken for phone landscape)")
    ap.add_argument("--lang", default="en", help="the app's language (en, fr)")
    args = ap.parse_args(argv)
    sizes = [parse_size(s) for s in args.sizes.split(",") if s]
    from tests.screen_tour import PARTS
    only = [p for p in args.only.split(",") if p] or list(PARTS)
    also = []
    for item in args.also:
        size, _, prefixes = item.partition(":")
        also.append((parse_size(size), tuple(p for p in prefixes.split(",") if p)))
    try:
        stops, faults = run_tour(sizes, only, args.lang, also)
    except Exception:
        # on stdout: Kivy takes stray stderr into its log, which the layout test never shows
        # (a CI run once failed with nothing but "exit 1" after its last stop)
        print("# the tour failed:\n" + traceback.format_exc(), flush=True)
        return 1
    for f in faults:
        print(f"{f['stop']} at {f['size']} dp: {f['path']}: {f['kind']}: {f['detail']}")
    from kivy.metrics import Metrics
    print(json.dumps({"density": Metrics.density, "lang": args.lang, "stops": stops,
                      "faults": faults}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
