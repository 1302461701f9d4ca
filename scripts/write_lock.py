"""Write requirements.lock: the packages of the venv this runs in, as `pip freeze` lists them
(the project itself left out), under a header saying how it was made. `make lock` runs it in
a scratch venv that holds only `pip install '.[test]'`.

    python scripts/write_lock.py requirements.lock
"""

from __future__ import annotations

import platform
import subprocess
import sys
from pathlib import Path

PROJECT = "tabletop-companion"


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    out = subprocess.run([sys.executable, "-m", "pip", "freeze", "--exclude", PROJECT,
                          "--disable-pip-version-check"],
                         check=True, capture_output=True, text=True).stdout
    pins = [line for line in out.splitlines() if line and not line.startswith("#")]  # pip's order
    bad = [line for line in pins if "==" not in line]
    if bad:
        print(f"write_lock: not a pinned version: {bad[0]!r}", file=sys.stderr)
        return 1
    pip = subprocess.run([sys.executable, "-m", "pip", "--version"], check=True,
                         capture_output=True, text=True).stdout.split()[1]
    header = [
        "# The development and test environment, locked: `make run` and `make test` install",
        "# exactly these versions (pip freeze equals this list). Made by `make lock`, which",
        "# resolves pyproject.toml's dependencies and its `app` and `test` extras to the newest versions",
        "# their ranges allow; do not edit by hand, and commit its diff like code.",
        f"# Made with pip {pip} on Python {platform.python_version()} "
        f"({platform.system()} {platform.machine()}).",
    ]
    Path(argv[1]).write_text("\n".join(header + pins) + "\n")
    print(f"{argv[1]}: {len(pins)} packages")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
