"""Windows has no termios, fcntl, pty or tty: every module of the app must still import, and
the pty tools (POSIX only) say so instead of failing obscurely."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
POSIX_ONLY = ("termios", "fcntl", "pty", "tty")

PROBE = r"""
import importlib, pkgutil, sys
# third-party packages take their own platform's path: load them first
import serial, serial.tools.list_ports, yaml, numpy, cv2, platformdirs
import kivy.core.window, kivy.core.text, kivy.input.providers
for name in {posix!r}:
    sys.modules[name] = None            # `import termios` now raises ImportError
ours = [n for n in sys.modules if n.split(".")[0] in
        ("companion", "firmware_bridge", "vision", "tabletop_base")]
assert not ours, f"imported before the block: {{ours}}"
failed = []
count = 0
for top in ("tabletop_base", "companion", "firmware_bridge", "vision"):
    pkg = importlib.import_module(top)
    for m in pkgutil.walk_packages(pkg.__path__, top + "."):
        if ".firmware." in m.name or m.name.endswith("__main__"):
            continue   # MicroPython sources (the unix port runs them); entry points
        try:
            importlib.import_module(m.name)
            count += 1
        except ImportError as exc:
            failed.append(f"{{m.name}}: {{exc}}")
print("FAILED", failed)
print("COUNT", count)
from firmware_bridge.testing.ptyport import PtyPort, PtyUnavailable
try:
    PtyPort("/tmp/never-made")
except PtyUnavailable as exc:
    print("PTY", exc)
from firmware_bridge.host import link
print("ERRORS", [e.__name__ for e in link.PORT_ERRORS])
"""


@pytest.mark.skipif(not os.environ.get("DISPLAY"), reason="the app's modules open a Kivy window")
def test_every_module_imports_without_termios_fcntl_pty_and_tty():
    env = dict(os.environ, KIVY_NO_ARGS="1", KIVY_NO_CONSOLELOG="1")
    out = subprocess.run([sys.executable, "-c", PROBE.format(posix=POSIX_ONLY)], cwd=ROOT,
                         capture_output=True, text=True, timeout=300, env=env)
    assert out.returncode == 0, out.stderr[-3000:]
    lines = dict(line.split(" ", 1) for line in out.stdout.splitlines()
                 if line.split(" ", 1)[0] in ("FAILED", "COUNT", "PTY", "ERRORS"))
    assert lines["FAILED"] == "[]"
    assert int(lines["COUNT"]) > 60               # every module was really imported
    assert "only on Linux and macOS" in lines["PTY"]
    assert lines["ERRORS"] == "['SerialException', 'OSError']"


def test_the_probe_does_catch_a_posix_import(tmp_path):
    """Blocking works as the probe assumes: a module importing termios fails to import."""
    (tmp_path / "posixy.py").write_text("import termios\n")
    code = ("import sys; sys.modules['termios'] = None\n"
            "try:\n    import posixy\nexcept ImportError as e:\n    print('blocked', e)\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                         text=True, timeout=60)
    assert out.stdout.startswith("blocked")
