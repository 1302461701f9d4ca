"""When whatever reads a command's output goes away (``... | head -1``).

Nothing is wrong and there is no one to tell: the rest of the output goes nowhere, as
Python's documentation on SIGPIPE advises, so that the interpreter's last flush raises no
second BrokenPipeError. Each command that prints lines (``python -m vision``, ``python -m
firmware_bridge listen``, ``python -m companion``) calls this and then stops with status 0."""

from __future__ import annotations

import os
import sys


def output_gone() -> None:
    """Send what is still to be written to stdout to the null device."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
