"""Camera tower benchmark: rendered throws played at 30 fps through the camera tower on a pty;
the time from "held still" to the ROLL on the wire (see firmware_bridge/testing/camera_bench.py).

    python bench/camera_tower_bench.py [THROWS] [--seed N] [--fps F]

Prints the figures as one JSON object on the last line."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from firmware_bridge.testing.camera_bench import run  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("throws", nargs="?", type=int, default=30)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--fps", type=float, default=30.0)
    args = ap.parse_args()
    figures = run(args.throws, args.seed, fps=args.fps)
    print(json.dumps(figures))
    return 0 if figures["meets_targets"] else 1


if __name__ == "__main__":
    sys.exit(main())
