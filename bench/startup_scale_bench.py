"""Benchmark: start-up with many and large saved games costs what it costs with none.

The issue's target (17): with 500 saved games of 2,000 events plus one journal of 1 GB, the
app's first frame comes within 1.3x of an empty Home's, and the app's peak memory stays under
200 MB. Start-up must not replay the journals: the saved-games index (``games/index.json``)
answers for every journal whose size and time it recorded, and a journal over 32 MB that it
does not know is listed from its first line alone.

Spawns the real app (``python -m companion``, this checkout first on the path; it needs an X
display: run under xvfb-run, as ``make bench`` does) with COMPANION_EXIT_AFTER_FIRST_FRAME and
COMPANION_EXIT_WHEN_READY, which print ``FIRST_FRAME <s>`` and ``READY <s> <screen>``. Peak
memory is the app's own maximum resident set, printed as it exits. Data folders:

* empty: Home, the baseline;
* many (500 finished games and the 1 GB one, the newest), index missing: the first start
  after an upgrade (reported);
* many, index present: every later start (held to the target: both land on Home);
* many plus one game in progress, which start-up resumes, and that game alone: what
  resuming a game costs, with and without the others (reported: the game screen and the
  game's replay are the same in both).

Prints one JSON object on its last line.

    xvfb-run -a python bench/startup_scale_bench.py [--runs 5] [--games 500] [--large-mb 1024]
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
from companion.journal import Event  # noqa: E402
from companion.session import Session  # noqa: E402

EVENTS_PER_GAME = 2000


# The app, with its own peak resident set printed as it exits (KB on Linux).
LAUNCH = ("import atexit, resource, runpy\n"
          "atexit.register(lambda: print('PEAK_RSS_MB', "
          "resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, flush=True))\n"
          "runpy.run_module('companion', run_name='__main__')\n")


def one_start(home: Path) -> tuple[float, float, str, float]:
    """(first frame s, landed s, landing screen, peak RSS MB) for one launch."""
    env = dict(os.environ, COMPANION_HOME=str(home), COMPANION_EXIT_AFTER_FIRST_FRAME="1",
               COMPANION_EXIT_WHEN_READY="1", KIVY_NO_CONSOLELOG="1",
               PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT),
                                                        os.environ.get("PYTHONPATH")])))
    t0 = time.time()
    env["COMPANION_T0"] = repr(t0)
    proc = subprocess.run([sys.executable, "-c", LAUNCH], env=env, capture_output=True,
                          text=True, timeout=180)
    first = ready = peak = None
    screen = ""
    for line in proc.stdout.splitlines():
        if line.startswith("PEAK_RSS_MB "):
            peak = float(line.split()[1])
        elif line.startswith("FIRST_FRAME "):
            first = float(line.split()[1])
        elif line.startswith("READY "):
            _, seconds, screen = line.split()
            ready = float(seconds)
    if first is None or ready is None or peak is None:
        raise RuntimeError(f"no FIRST_FRAME/READY/PEAK_RSS_MB line (exit {proc.returncode}):"
                           f"\n{proc.stderr[-2000:]}")
    return first, ready, screen, peak


def make_game(folder: Path, finished: bool) -> bytes:
    """One real 2,000-line TEKKEN journal (played with the rules, so it replays), finished
    or in progress."""
    path = folder / "seed.jsonl"
    session = Session.create(path, "tekken", SETUP, rng=random.Random(1))
    rng = random.Random(2)
    for _ in range(EVENTS_PER_GAME // 2):
        action = random_action(session.state, rng, damage=1.0 if finished else 0.02)
        if action is None:
            break
        after = session.preview(action[0], **action[1])
        if session.rules.is_over(after) and not finished:
            break
        session.do(action[0], **action[1])
    if session.rules.is_over(session.state) != finished:
        raise RuntimeError("the benchmark's game did not end as wanted")
    n = len(session.actions) + 1
    session.close()
    data = path.read_bytes()
    path.unlink()
    # fill up to 2,000 lines with tower rolls (facts in the log, valid on replay)
    with_rolls = bytearray(data)
    die = {"slot": 0, "kind": "d12", "face": "7", "colour": "red", "status": "clean"}
    for seq in range(n + 1, EVENTS_PER_GAME + 1):
        with_rolls += Event(seq, "dice.roll", {"boot_id": 1, "seq": seq, "dice": [die]},
                            "2026-11-23T10:00:00.000Z").to_line()
    return bytes(with_rolls)


def make_large(path: Path, start: bytes, megabytes: int) -> None:
    """A valid journal of ``megabytes`` MB: a game.start, then dice tower rolls of 64 dice."""
    first = start.split(b"\n", 1)[0] + b"\n"
    dice = [{"slot": i, "kind": "d12", "face": str(i % 12 + 1), "colour": "red",
             "status": "clean"} for i in range(64)]
    target = megabytes << 20
    with open(path, "wb") as f:
        f.write(first)
        size, seq = len(first), 2
        while size < target:
            chunk = b"".join(Event(s, "dice.roll", {"boot_id": 7, "seq": s, "dice": dice},
                                   "2026-11-23T10:00:00.000Z").to_line()
                             for s in range(seq, seq + 1000))
            f.write(chunk)
            size += len(chunk)
            seq += 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--games", type=int, default=500)
    parser.add_argument("--large-mb", type=int, default=1024)
    args = parser.parse_args()
    if not os.environ.get("DISPLAY"):
        sys.exit("startup_scale_bench needs an X display: run it under xvfb-run (make bench)")
    with tempfile.TemporaryDirectory() as empty, tempfile.TemporaryDirectory() as many:
        games = Path(many) / "games"
        games.mkdir(mode=0o700)
        t = time.perf_counter()
        finished = make_game(Path(many), finished=True)
        playing = make_game(Path(many), finished=False)
        now = time.time()
        for i in range(args.games):
            p = games / f"2026-01-01-{i:04d}-tekken-bench.jsonl"
            p.write_bytes(finished)
            os.utime(p, (now - 3600 + i, now - 3600 + i))
        large = games / "2026-01-02-0000-tekken-long.jsonl"
        make_large(large, finished, args.large_mb)   # the newest: its state is not known
        build_s = time.perf_counter() - t

        one_start(Path(empty))  # warm the OS file cache once, as a second launch would be
        base = [one_start(Path(empty)) for _ in range(args.runs)]
        (games / "index.json").unlink(missing_ok=True)
        rebuild = one_start(Path(many))            # no index: the first start after an upgrade
        indexed = [one_start(Path(many)) for _ in range(args.runs)]
        # the same folder with one game in progress (resumed at start-up), and that game
        # alone: what resuming costs, with and without 500 others and the 1 GB one
        old = now - 7200
        (games / "2026-01-01-9999-tekken-playing.jsonl").write_bytes(playing)
        os.utime(games / "2026-01-01-9999-tekken-playing.jsonl", (old, old))
        resumed = [one_start(Path(many)) for _ in range(args.runs)]
        alone = Path(empty) / "games"
        alone.mkdir(mode=0o700)
        (alone / "2026-01-01-9999-tekken-playing.jsonl").write_bytes(playing)
        resumed_alone = [one_start(Path(empty)) for _ in range(args.runs)]
    screens = ({r[2] for r in base + indexed + [rebuild]},
               {r[2] for r in resumed + resumed_alone})
    if screens != ({"home"}, {"tekken_game"}):
        raise RuntimeError(f"unexpected landing screens: {base} {rebuild} {indexed} "
                           f"{resumed} {resumed_alone}")
    base_first = statistics.median(r[0] for r in base)
    many_first = statistics.median(r[0] for r in indexed)
    peak = max(r[3] for r in indexed)
    result = {
        "benchmark": "startup_scale",
        "runs": args.runs,
        "saved_games": args.games,
        "events_per_game": EVENTS_PER_GAME,
        "large_journal_mb": args.large_mb,
        "data_built_s": round(build_s, 1),
        "empty_first_frame_s_median": round(base_first, 3),
        "many_first_frame_s_median": round(many_first, 3),
        "first_frame_ratio": round(many_first / base_first, 3),
        "empty_home_ready_s_median": round(statistics.median(r[1] for r in base), 3),
        "many_home_ready_s_median": round(statistics.median(r[1] for r in indexed), 3),
        "index_rebuild_first_frame_s": round(rebuild[0], 3),
        "index_rebuild_home_ready_s": round(rebuild[1], 3),
        "empty_peak_rss_mb": round(max(r[3] for r in base), 1),
        "many_peak_rss_mb": round(peak, 1),
        "index_rebuild_peak_rss_mb": round(rebuild[3], 1),
        "resumed_among_many_on_screen_s_median": round(statistics.median(
            r[1] for r in resumed), 3),
        "resumed_alone_on_screen_s_median": round(statistics.median(
            r[1] for r in resumed_alone), 3),
        "resumed_among_many_peak_rss_mb": round(max(r[3] for r in resumed), 1),
        "resumed_alone_peak_rss_mb": round(max(r[3] for r in resumed_alone), 1),
        "target_ratio": 1.3,
        "target_peak_mb": 200,
        "meets_target": many_first / base_first <= 1.3 and peak < 200,
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
