"""Benchmark: a game screen's refresh (its view model, log panel included) costs the same at
1,000 actions and at 17,600 (issue 17: it was 66 ms a refresh at 17,600 actions, growing with
the game, because the log panel described every action on every refresh).

Builds TEKKEN journals of random legal play (replay_bench's generator), opens each
read-only and times ``tekken_view`` (what the TEKKEN screen computes on each refresh) and
``Session.log(last=...)`` many times. No window is opened. Prints one JSON object on its
last line.

    python bench/log_panel_bench.py [--small 1000] [--large 17600] [--repeat 200]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))
os.environ.setdefault("KIVY_NO_ARGS", "1")
os.environ.setdefault("KIVY_NO_CONSOLELOG", "1")

from replay_bench import build_journal  # noqa: E402

from companion.session import Session  # noqa: E402


def refresh_ms(path: Path, repeat: int) -> tuple[int, float, float, float]:
    """(actions in force, median ms of one screen view model, of log(last=200), and of the
    whole log(), which is what a refresh used to describe)."""
    from companion.app.screens.tekken_game import tekken_view

    session = Session.open(path, read_only=True)
    names = [("Rage A", "Rage B")] * 2
    views, logs = [], []
    for _ in range(repeat):
        t = time.perf_counter()
        tekken_view(session, names)
        views.append((time.perf_counter() - t) * 1000)
        t = time.perf_counter()
        session.log(last=200)
        logs.append((time.perf_counter() - t) * 1000)
    whole = []
    for _ in range(5):
        t = time.perf_counter()
        session.log()
        whole.append((time.perf_counter() - t) * 1000)
    return (len(session.actions), statistics.median(views), statistics.median(logs),
            statistics.median(whole))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--small", type=int, default=1000)
    parser.add_argument("--large", type=int, default=17600)
    parser.add_argument("--repeat", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        small, large = Path(tmp) / "small.jsonl", Path(tmp) / "large.jsonl"
        # journal lines, ~10% undo/redo: enough lines for the wanted actions in force
        build_journal(small, int(args.small * 1.15), seed=1)
        build_journal(large, int(args.large * 1.15), seed=1)
        n_small, view_small, log_small, _ = refresh_ms(small, args.repeat)
        n_large, view_large, log_large, whole_large = refresh_ms(large, args.repeat)
    ratio = view_large / view_small
    print(json.dumps({
        "benchmark": "log_panel",
        "small_actions": n_small,
        "large_actions": n_large,
        "refresh_ms_small": round(view_small, 3),
        "refresh_ms_large": round(view_large, 3),
        "refresh_ratio": round(ratio, 2),
        "log_ms_small": round(log_small, 3),
        "log_ms_large": round(log_large, 3),
        "whole_log_ms_large": round(whole_large, 3),
        "target": "flat: large within 1.5x of small",
        "meets_target": ratio <= 1.5,
    }))


if __name__ == "__main__":
    main()
