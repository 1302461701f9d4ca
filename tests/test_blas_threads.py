"""Each program starts numpy's matrix products on one thread (tabletop_base/threads.py): on
a busy core, OpenBLAS's threads waiting on each other made a `dice read` two to three times
slower."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tabletop_base.threads import BLAS_THREADS, one_blas_thread

ROOT = Path(__file__).resolve().parent.parent

# the entry point run as a program would run it, then what numpy would find in the environment
PROBE = """
import os, runpy, sys
sys.argv = [{name!r}, "--help"]
try:
    runpy.run_module({name!r}, run_name="__main__", alter_sys=True)
except SystemExit:
    pass
print("BLAS", os.environ.get("OPENBLAS_NUM_THREADS"), os.environ.get("MKL_NUM_THREADS"))
"""


def test_one_blas_thread_sets_each_library_and_keeps_a_users_choice(monkeypatch):
    for name in BLAS_THREADS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("MKL_NUM_THREADS", "4")
    one_blas_thread()
    assert os.environ["OPENBLAS_NUM_THREADS"] == "1"
    assert os.environ["MKL_NUM_THREADS"] == "4"


def _probe(code: str, env_extra: dict[str, str]) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in BLAS_THREADS}
    env.update(env_extra)
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=120)


@pytest.mark.parametrize("name", ["vision", "firmware_bridge"])
def test_the_command_lines_start_with_one_blas_thread(name):
    out = _probe(PROBE.format(name=name), {})
    assert "BLAS 1 1" in out.stdout, out.stdout + out.stderr
    out = _probe(PROBE.format(name=name), {"OPENBLAS_NUM_THREADS": "2"})
    assert "BLAS 2 1" in out.stdout, out.stdout + out.stderr


def test_the_app_package_sets_it_before_numpy_is_imported():
    out = _probe("import os, sys, companion\n"
                 "print('BLAS', os.environ.get('OPENBLAS_NUM_THREADS'), 'numpy' in sys.modules)", {})
    assert "BLAS 1 False" in out.stdout, out.stdout + out.stderr
