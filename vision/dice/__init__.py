"""The dice tower's camera: reads the dice in the tray (pure: numpy and OpenCV only).

    from vision.dice import DiceReader, Profile, ThrowDetector
    reader = DiceReader(Profile.load("tower.yaml"))
    detector = ThrowDetector(still_frames=5)
    for frame in frames:
        settled = detector.update(frame)
        if settled:
            dice = reader.read(settled.frame)   # [DieReading(kind, face, colour, status, ...)]

See ``docs/vision.md`` (the dice reader) for the profile's format and the command line.
"""

from .model import DiceError, DieReading, ProfileError
from .profile import KNOWN_KINDS, MIN_EXAMPLES, Profile
from .reader import DiceReader
from .throw import Settled, ThrowDetector

__all__ = ["DiceError", "DieReading", "ProfileError", "Profile", "KNOWN_KINDS", "MIN_EXAMPLES",
           "DiceReader", "ThrowDetector", "Settled"]
