"""The camera tower's error at start."""

from __future__ import annotations


class CameraTowerError(ValueError):
    """Bad input at start (a profile the protocol cannot carry, a folder with no frames, a
    ring file that cannot be written): the message names the file."""
