"""What a test on real photographs does when they are not on this machine: skip, saying in
one line where it looked, or fail where the run must have them (.ci/run sets
REQUIRE_REAL_PHOTOS=1: CI has ../shared beside its clone, so a skip there would hide a
missing folder)."""

from __future__ import annotations

import os
from typing import NoReturn

import pytest


def missing(message: str) -> NoReturn:
    if os.environ.get("REQUIRE_REAL_PHOTOS") == "1":
        pytest.fail(message + " (REQUIRE_REAL_PHOTOS=1: this run must have them)", pytrace=False)
    pytest.skip(message)
