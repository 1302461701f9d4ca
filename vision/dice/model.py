"""The dice reader's plain values and its two exceptions."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

MAX_LIKELY = 3
"""Faces in ``DieReading.likely``: the ones a player is offered to pick from."""

Status = Literal["clean", "cocked", "unreadable"]


class DiceError(ValueError):
    """Bad input to the dice reader (a frame, an image file, a kind, a face): the message names
    the file or frame and what is wrong."""


class ProfileError(DiceError):
    """A dice profile cannot be used as it is: names the file, the key path and the line."""

    def __init__(self, file: str, problem: str, key_path: str = "", line: int | None = None):
        self.file, self.problem, self.key_path, self.line = file, problem, key_path, line
        where = f"{file}:{line}" if line is not None else str(file)
        key = f" {key_path}:" if key_path else ""
        super().__init__(f"{where}:{key} {problem}")


@dataclass(frozen=True)
class DieReading:
    """One die in a frame.

    ``status``: ``clean`` (resting flat, face read), ``cocked`` (tilted: ``face`` is the best
    guess or None) or ``unreadable`` (blur, glare, bad light, an unknown die: ``face`` None).
    ``confidence`` in [0, 1] is how sure the reader is of ``face`` being the face on top.
    ``x``, ``y``: the die's centre in pixels. ``likely``: the faces the reader finds likeliest
    for the die, likeliest first (at most 3; empty when it could not rank any), for a person
    to pick from when the die is not clean or its reading is disputed."""

    kind: str | None
    face: str | None
    colour: str | None
    status: Status
    confidence: float
    x: float
    y: float
    likely: tuple[str, ...] = ()  # last: positional construction elsewhere keeps working

    def to_json(self) -> dict:
        out: dict[str, object] = {
            "kind": self.kind, "face": self.face, "colour": self.colour, "status": self.status,
            "confidence": round(self.confidence, 3), "x": round(self.x, 1),
            "y": round(self.y, 1)}
        if self.likely:  # only when ranked: the other keys stay as they were
            out["likely"] = list(self.likely)
        return out
