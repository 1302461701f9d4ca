"""Dice reader benchmark: 300 rendered trays of 1 to 8 dice (see vision/dice/bench.py).

    python bench/dice_bench.py [TRAYS] [--seed N]

Prints progress, then the figures as one JSON object on the last line."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from vision.dice.bench import run  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("trays", nargs="?", type=int, default=300)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--per-tower", type=int, default=25)
    args = ap.parse_args()

    def progress(done: int, total: int) -> None:
        print(f"{done}/{total} trays", file=sys.stderr, flush=True)

    figures = run(args.trays, args.seed, trays_per_tower=args.per_tower, progress=progress)
    print(json.dumps(figures))
    return 0 if figures["meets_targets"] else 1


if __name__ == "__main__":
    sys.exit(main())
