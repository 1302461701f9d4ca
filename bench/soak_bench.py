"""The dice tower soak (issue 4): rolls through a faulty simulated tower over a real pty.

Defaults are the issue's: 10,000 rolls, 1% of frames with a flipped bit, 1% dropped, 1%
duplicated, 3 unplug/replug cycles, 2 device resets. Targets: 0 lost, 0 counted twice, 0
declared dropped (default ring), reconnect under 2 s, p99 frame-to-journal under 20 ms.
Prints one JSON object last.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from firmware_bridge.soak import run_soak  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rolls", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    result = run_soak(rolls=args.rolls, seed=args.seed, progress=True)
    result["meets_target"] = (result["lost"] == 0 and result["duplicated"] == 0
                              and result["declared_dropped"] == 0
                              and (result["max_reconnect_s"] or 0) < 2.0
                              and result["p99_latency_ms"] < 20.0)
    print(json.dumps({"benchmark": "dice_soak", **result}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
