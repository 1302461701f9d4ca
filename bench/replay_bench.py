"""Benchmark: replay a 100,000-event TEKKEN journal (read + parse + fold).

Builds a journal of random legal play (with undo/redo, ~10%) once, writing it the way the
session does (same line format) but without an fsync per line, then times
``read_events`` + ``replay`` several times. Prints one JSON object on its last line.

    python bench/replay_bench.py [--events 100000] [--repeat 5] [--seed 1]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from companion.games.tekken import RULES  # noqa: E402
from companion.games.tekken_play import DEMO_SETUP as SETUP  # noqa: E402
from companion.games.tekken_play import random_action
from companion.journal import Event, read_events  # noqa: E402
from companion.session import REDO, START, UNDO, replay  # noqa: E402


def build_journal(path: Path, n_events: int, seed: int) -> None:
    """Random legal play of one game with n_events lines (restarting play with a very low
    damage rate so that a single game holds them all)."""
    rng = random.Random(seed)
    start = {"game": "tekken", **RULES.start(SETUP, rng)}
    lines = [Event(1, START, start, "2026-11-22T00:00:00.000Z").to_line()]
    state = RULES.initial(start)
    history, redo = [state], []
    seq = 1
    while seq < n_events:
        seq += 1
        r = rng.random()
        if r < 0.06 and len(history) > 1:
            redo.append(history.pop())
            lines.append(Event(seq, UNDO, {}, "2026-11-22T00:00:00.000Z").to_line())
            continue
        if r < 0.09 and redo:
            history.append(redo.pop())
            lines.append(Event(seq, REDO, {}, "2026-11-22T00:00:00.000Z").to_line())
            continue
        state = history[-1]
        action = random_action(state, rng, damage=0.004)
        if action is None:
            raise RuntimeError("the game ended before the journal was long enough")
        type_, data = action
        full = RULES.decide(state, type_, data, rng)
        history.append(RULES.apply(state, type_, full))
        redo.clear()
        lines.append(Event(seq, type_, full, "2026-11-22T00:00:00.000Z").to_line())
    path.write_bytes(b"".join(lines))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.jsonl"
        build_journal(path, args.events, args.seed)
        times = []
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            fold = replay(read_events(path), str(path))
            times.append(time.perf_counter() - t0)
        tracemalloc.start()
        fold = replay(read_events(path), str(path))
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        result = {
            "benchmark": "replay",
            "events": args.events,
            "journal_mb": round(path.stat().st_size / 1e6, 2),
            "actions_in_force": len(fold.actions),
            "rounds_played": fold.state.round,
            "replay_s_median": round(statistics.median(times), 3),
            "replay_s_min": round(min(times), 3),
            "replay_s_max": round(max(times), 3),
            "events_per_s": int(args.events / statistics.median(times)),
            "peak_mem_mb": round(peak / 1e6, 1),
            "target_s": 1.0,
            "meets_target": statistics.median(times) < 1.0,
        }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
