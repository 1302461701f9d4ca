"""The dice tower soak (issues 4 and 19): rolls through a faulty simulated tower over a real
pty, to a game, with the host process killed along the way.

Two runs. Clean: 2,000 rolls, no faults (the latency floor). Under faults, the issue's mix:
10,000 rolls with 5% each of tower frames with a flipped bit, dropped, duplicated and
truncated, 5% of the host's writes (its ACKs) lost, 5 device resets each losing the first
two resends of every restored roll, 3 unplug/replug cycles, 2 host kills (SIGKILL; the first
between a roll's record and its delivery to the game). Targets: 0 lost, 0 doubled, 0
undelivered to the game, 0 doubled in the game; reconnect under 2 s. Reports p99 latency
(the copy that got through -> fsynced in the journal) clean and under faults. Prints one
JSON object last.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from firmware_bridge.testing.soak import run_soak  # noqa: E402

NO_FAULTS = dict(unplugs=0, resets=0, host_kills=0, corrupt=0.0, drop=0.0, duplicate=0.0,
                 truncate=0.0, ack_drop=0.0)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rolls", type=int, default=10_000)
    parser.add_argument("--clean-rolls", type=int, default=2_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    clean = run_soak(rolls=args.clean_rolls, seed=args.seed, **NO_FAULTS)
    faulty = run_soak(rolls=args.rolls, seed=args.seed, progress=True)
    ok = all(r["lost"] == r["duplicated"] == r["undelivered_to_game"] == r["doubled_in_game"] == 0
             for r in (clean, faulty))
    result = {
        "benchmark": "dice_soak",
        **faulty,
        "clean_rolls": clean["rolls_sent"],
        "clean_lost": clean["lost"],
        "clean_p50_latency_ms": clean["p50_latency_ms"],
        "clean_p99_latency_ms": clean["p99_latency_ms"],
        "clean_max_latency_ms": clean["max_latency_ms"],
        "meets_target": ok and (faulty["max_reconnect_s"] or 0) < 2.0,
    }
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
