"""Installed like real software: the sdist and the wheel built from it, installed into a
fresh virtualenv (not this checkout), start and find their shipped files."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.install


def run(*args: str | Path, cwd: Path, env: dict[str, str] | None = None,
        timeout: float = 900) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(a) for a in args], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout, env=env)


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> tuple[Path, Path]:
    """(the fresh virtualenv, the wheel) — the wheel built from the sdist, as pip would."""
    tmp = tmp_path_factory.mktemp("install")
    dist = tmp / "dist"
    env = clean_env(tmp / "home")   # nothing of this checkout on the path: pip sees a fresh system
    out = run(sys.executable, "-m", "build", "--outdir", dist, ROOT, cwd=tmp, env=env)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    wheels = list(dist.glob("*.whl"))
    assert len(wheels) == 1 and list(dist.glob("*.tar.gz"))
    env_dir = tmp / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    py = env_dir / "bin" / "python"
    # the wheel's dependencies are ranges; the test installs the locked versions of them, as
    # the rest of the suite runs with (requirements.lock); the app with its window (Kivy)
    out = run(py, "-m", "pip", "install", "--quiet", "--constraint", ROOT / "requirements.lock",
              f"{wheels[0]}[app]", cwd=tmp, env=env)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    return env_dir, wheels[0]


def test_the_tower_installs_without_kivy(installed, tmp_path):
    """The dice tower's board installs the wheel with the `tower` extra: no Kivy, no segno,
    and the camera tower's program runs; `companion` there says what the window needs."""
    _, wheel = installed
    env = clean_env(tmp_path / "home")
    env_dir = tmp_path / "tower"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    py = env_dir / "bin" / "python"
    out = run(py, "-m", "pip", "install", "--quiet", "--constraint", ROOT / "requirements.lock",
              f"{wheel}[tower]", cwd=tmp_path, env=env)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    out = run(py, "-c", "import importlib.util as u; print(u.find_spec('kivy'), u.find_spec('segno'))",
              cwd=tmp_path, env=env, timeout=60)
    assert out.stdout.split() == ["None", "None"], out.stdout + out.stderr
    out = run(py, "-m", "firmware_bridge", "camera-tower", "--help", cwd=tmp_path, env=env,
              timeout=120)
    assert out.returncode == 0 and "--profile" in out.stdout, out.stderr
    code = ("import sys, firmware_bridge.tower.camera_tower, firmware_bridge.tower.sim, "
            "vision.dice.reader; print(sorted(m for m in sys.modules if m.split('.')[0] in "
            "('kivy', 'companion')))")
    out = run(py, "-c", code, cwd=tmp_path, env=env, timeout=60)
    assert out.returncode == 0 and out.stdout.strip() == "[]", out.stdout + out.stderr
    # the dice reader's networks run in ONNX Runtime there, which the wheel brings on the
    # machines it has wheels for (pyproject.toml's marker); elsewhere in OpenCV
    runner = "OrtNet" if platform.machine() in ("x86_64", "AMD64", "aarch64", "arm64") else "OnnxNet"
    code = ("from vision.dice import pips; r = pips.shipped_reader(); "
            "t = pips.shipped_reader(tower=True); print(type(r.finder).__name__, "
            "type(r.faces).__name__, type(t.faces).__name__, t.faces.meta != r.faces.meta)")
    out = run(py, "-c", code, cwd=tmp_path, env=env, timeout=60)
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.stdout.split() == [runner, runner, runner, "True"], out.stdout
    out = run(env_dir / "bin" / "companion", cwd=tmp_path, env=env, timeout=120)
    assert out.returncode != 0 and "tabletop-companion[app]" in out.stderr, out.stderr
    assert "Traceback" not in out.stderr


def clean_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "COMPANION_CONFIG_DIR", "VIRTUAL_ENV")}
    env["COMPANION_HOME"] = str(home)
    return env


def test_the_wheel_holds_the_shipped_files(installed):
    _, wheel = installed
    names = set(zipfile.ZipFile(wheel).namelist())
    for game in ("tekken", "takkure", "kotd", "tagteam", "danchie"):
        assert f"companion/config/{game}.yaml" in names
    assert {"companion/config/dice_tower.yaml", "companion/config/overhead_camera.yaml",
            "companion/app/widgets.kv", "companion/app/screens/home.kv",
            "firmware_bridge/tower/firmware/main.py", "tabletop_base/typed_yaml.py",
            "companion/locale/fr/LC_MESSAGES/companion.mo",
            "companion/locale/en/LC_MESSAGES/companion.mo",
            "vision/dice/models/finder.npz", "vision/dice/models/faces.onnx",
            "vision/dice/models/tilt.npz", "vision/dice/models/tilt.onnx",
            "vision/dice/models/taught.npz", "vision/dice/models/taught.int8.onnx",
            "vision/dice/models/faces-tower.npz", "vision/dice/models/faces-tower.onnx",
            "vision/dice/models/finder-tower.npz", "vision/dice/models/finder-tower.onnx",
            "vision/dice/models/threshold.json", "vision/dice/models/README.md"} <= names
    assert not any(n.startswith(("tests/", "config/")) for n in names)
    # the link's test and bench tools stay out: neither the app nor the tower imports them
    assert "firmware_bridge/tower/camera_tower.py" in names
    assert not any(n.startswith("firmware_bridge/testing/") for n in names)


def test_the_installed_commands_run_outside_the_checkout(installed, tmp_path):
    env_dir, _ = installed
    bin_dir = env_dir / "bin"
    env = clean_env(tmp_path / "home")
    out = run(bin_dir / "companion", "--help", cwd=tmp_path, env=env, timeout=120)
    assert out.returncode == 0 and "Tabletop Companion" in out.stdout, out.stderr
    out = run(bin_dir / "companion", "new", "tekken", "--no-app", cwd=tmp_path, env=env,
              timeout=120)
    assert out.returncode == 0, out.stderr
    journal = Path(out.stdout.strip())
    assert journal.is_file() and journal.parent == tmp_path / "home" / "games"
    out = run(bin_dir / "companion", "replay", journal, cwd=tmp_path, env=env, timeout=120)
    assert out.returncode == 0 and "Jin" in out.stdout, out.stderr
    out = run(bin_dir / "python", "-m", "vision", "--help", cwd=tmp_path, env=env, timeout=120)
    assert out.returncode == 0 and "measure" in out.stdout, out.stderr
    # the pip-dice networks ship with the package: a photograph read without a profile
    import cv2
    import numpy as np
    cv2.imwrite(str(tmp_path / "tray.png"), np.full((240, 320, 3), 170, np.uint8))
    out = run(bin_dir / "python", "-m", "vision", "dice", "read", "--json", "tray.png", cwd=tmp_path,
              env=env, timeout=120)
    assert out.returncode == 0 and json.loads(out.stdout) == {"ok": True, "dice": []}, out.stderr
    # and it is the installed copy that ran, not this checkout
    out = run(bin_dir / "python", "-c", "import companion; print(companion.__file__)",
              cwd=tmp_path, env=env, timeout=60)
    assert str(env_dir) in out.stdout and str(ROOT) not in out.stdout
    # the installed catalogues: French from the system's language, English otherwise
    words = "from companion import i18n; print(i18n.language(), i18n._('Saved games'))"
    out = run(bin_dir / "python", "-c", words, cwd=tmp_path, env=dict(env, LANGUAGE="fr_FR"),
              timeout=60)
    assert out.stdout.strip() == "fr Parties enregistrées", out.stderr
    out = run(bin_dir / "python", "-c", words, cwd=tmp_path, env=dict(env, LANGUAGE="de"),
              timeout=60)
    assert out.stdout.strip() == "en Saved games", out.stderr
