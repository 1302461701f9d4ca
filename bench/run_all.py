"""`make bench`: runs every benchmark and prints all figures as one JSON object last."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
BENCHES = ["replay_bench.py", "cold_start_bench.py", "startup_scale_bench.py",
           "log_panel_bench.py", "soak_bench.py", "vision_bench.py", "dice_bench.py",
           "camera_tower_bench.py", "independent_dice_bench.py", "webcam_dice_bench.py",
           "webcam_dice_bench.py --renderer b", "dice_read_speed_bench.py"]


def main() -> int:
    results = {}
    failed = False
    for name in BENCHES:
        print(f"== {name}", flush=True)
        script, *args = name.split()
        proc = subprocess.run([sys.executable, str(HERE / script), *args], capture_output=True,
                              text=True)
        sys.stdout.write(proc.stdout)
        sys.stderr.write(proc.stderr[-3000:] if proc.returncode else "")
        lines = proc.stdout.strip().splitlines()
        failed = failed or bool(proc.returncode)
        try:
            figures = json.loads(lines[-1]) if lines else None
        except json.JSONDecodeError:
            figures = None
        if not isinstance(figures, dict):
            results[name] = {"error": f"exit {proc.returncode}"}
            continue
        if proc.returncode:  # a target missed: the figures still say by how much
            figures["exit"] = proc.returncode
        results[figures.pop("benchmark", name)] = figures
    print(json.dumps(results))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
