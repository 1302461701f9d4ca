"""Camera measurement benchmark: 200 seeded 1080p scenes (see vision/bench.py).

Prints progress, then the figures as one JSON object on the last line."""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from vision.bench import run  # noqa: E402


def main() -> int:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 200

    def progress(done: int, total: int) -> None:
        if done % 25 == 0 or done == total:
            print(f"{done}/{total} scenes", file=sys.stderr, flush=True)

    figures = run(n, progress=progress)
    print(json.dumps(figures))
    return 0 if figures["meets_targets"] else 1


if __name__ == "__main__":
    sys.exit(main())
