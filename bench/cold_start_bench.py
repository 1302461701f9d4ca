"""Benchmark: app cold start to first frame, and to a resumed game on screen.

The issue's target is first frame under 3 s; we also report when the landing screen is
drawn (Home, or the game resumed from a 300-action journal), which is what a player waits
for.

Spawns the real ``companion`` command (needs an X display: run under xvfb-run, as
``make bench`` does) with COMPANION_EXIT_AFTER_FIRST_FRAME=1, which makes the app print
``FIRST_FRAME <s>`` once its first frame is drawn and quit. Times are from just before the
spawn (passed in as COMPANION_T0) to that frame. Runs with an empty data directory and
with a saved game in progress. Prints one JSON object on its last line.

    xvfb-run -a python bench/cold_start_bench.py [--runs 5]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from companion.games.tekken_play import DEMO_SETUP as SETUP  # noqa: E402
from companion.games.tekken_play import random_action
from companion.session import Session  # noqa: E402


def companion_command() -> list[str]:
    exe = Path(sys.executable).with_name("companion")
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "companion"]


def one_start(home: Path) -> tuple[float, float, str]:
    """(first frame s, landed s, landing screen) for one launch."""
    env = dict(os.environ, COMPANION_HOME=str(home), COMPANION_EXIT_AFTER_FIRST_FRAME="1",
               COMPANION_EXIT_WHEN_READY="1", KIVY_NO_CONSOLELOG="1")
    t0 = time.time()
    env["COMPANION_T0"] = repr(t0)
    proc = subprocess.run(companion_command(), env=env, capture_output=True, text=True,
                          timeout=120)
    first = ready = None
    screen = ""
    for line in proc.stdout.splitlines():
        if line.startswith("FIRST_FRAME "):
            first = float(line.split()[1])
        elif line.startswith("READY "):
            _, seconds, screen = line.split()
            ready = float(seconds)
    if first is None or ready is None:
        raise RuntimeError(f"no FIRST_FRAME/READY line (exit {proc.returncode}):\n"
                           f"{proc.stderr[-2000:]}")
    return first, ready, screen


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    if not os.environ.get("DISPLAY"):
        sys.exit("cold_start_bench needs an X display: run it under xvfb-run (make bench)")
    with tempfile.TemporaryDirectory() as empty, tempfile.TemporaryDirectory() as saved:
        session = Session.create(Path(saved) / "games" / "g.jsonl", "tekken", SETUP,
                                 rng=random.Random(1))
        rng = random.Random(2)
        for _ in range(300):
            action = random_action(session.state, rng, damage=0.2)
            if action is None:
                break
            session.do(action[0], **action[1])
        session.close()
        one_start(Path(empty))  # warm the OS file cache once, as a second launch would be
        fresh = [one_start(Path(empty)) for _ in range(args.runs)]
        resumed = [one_start(Path(saved)) for _ in range(args.runs)]
    if {r[2] for r in fresh} != {"home"} or {r[2] for r in resumed} != {"tekken_game"}:
        raise RuntimeError(f"unexpected landing screens: {fresh} {resumed}")
    first = [r[0] for r in fresh + resumed]
    result = {
        "benchmark": "cold_start",
        "runs": args.runs,
        "first_frame_s_median": round(statistics.median(first), 3),
        "first_frame_s_max": round(max(first), 3),
        "home_ready_s_median": round(statistics.median(r[1] for r in fresh), 3),
        "resumed_game_on_screen_s_median": round(statistics.median(r[1] for r in resumed), 3),
        "resumed_game_on_screen_s_max": round(max(r[1] for r in resumed), 3),
        "resumed_game_actions": 300,
        "target_s": 3.0,
        "meets_target": max(first) < 3.0,
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
