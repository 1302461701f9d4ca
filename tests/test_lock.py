"""The locked test environment (requirements.lock, made by `make lock`): it satisfies what
pyproject.toml asks for, and the venv `make test` runs in holds exactly its versions, so two
fresh machines test the same packages."""

from __future__ import annotations

import re
import sys
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

tomllib = pytest.importorskip("tomllib", reason="reading pyproject.toml needs Python 3.11")

ROOT = Path(__file__).resolve().parent.parent
LOCK = ROOT / "requirements.lock"
# what `pip freeze` leaves out of its list, as the lock does; the project is installed from
# the checkout itself
NOT_LISTED = {"pip", "setuptools", "wheel", "distribute", "tabletop-companion"}


def locked() -> dict[str, str]:
    pins: dict[str, str] = {}
    for n, line in enumerate(LOCK.read_text().splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        name, sep, version = line.partition("==")
        assert sep and version and ";" not in line, f"requirements.lock:{n}: not a pin: {line!r}"
        assert canonicalize_name(name) not in pins, f"requirements.lock:{n}: {name} twice"
        pins[canonicalize_name(name)] = version
    return pins


def project_requirements() -> list[Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    return [Requirement(r) for r in project["dependencies"] + extras["app"] + extras["tower"]
            + extras["test"]]


def test_the_lock_pins_every_requirement_of_the_app_and_its_tests_within_its_range():
    pins = locked()
    for req in project_requirements():
        name = canonicalize_name(req.name)
        assert name in pins, f"{req.name} is not in requirements.lock: run make lock"
        assert req.specifier.contains(pins[name], prereleases=True), (
            f"requirements.lock pins {req.name}=={pins[name]}, outside pyproject.toml's "
            f"{req}: run make lock")


def test_the_wheels_own_dependencies_stay_ranges():
    """A library or app installed by users must not pin exactly: only the lock does."""
    for req in project_requirements():
        assert not any(s.operator in ("==", "===") for s in req.specifier), str(req)


def test_make_installs_pip_at_the_version_the_lock_was_made_with():
    made_with = re.search(r"Made with pip (\S+)", LOCK.read_text())
    make_pins = re.search(r"^PIP_VERSION := (\S+)$", (ROOT / "Makefile").read_text(), re.M)
    assert made_with and make_pins and made_with.group(1) == make_pins.group(1)


@pytest.mark.skipif(Path(sys.prefix).resolve() != (ROOT / ".venv").resolve(),
                    reason="runs in the project's .venv (make test), which the lock describes")
def test_the_venv_holds_exactly_the_locked_versions():
    installed = {canonicalize_name(d.metadata["Name"]): d.version for d in metadata.distributions()}
    installed = {k: v for k, v in installed.items() if k not in NOT_LISTED}
    pins = locked()
    assert installed == pins, (
        f"not locked: {sorted(installed.keys() - pins.keys())}; "
        f"missing: {sorted(pins.keys() - installed.keys())}; "
        f"other versions: {sorted(k for k in installed.keys() & pins.keys() if installed[k] != pins[k])}")
    make_pins = re.search(r"^PIP_VERSION := (\S+)$", (ROOT / "Makefile").read_text(), re.M)
    assert make_pins and metadata.version("pip") == make_pins.group(1)
