"""The tilt rules: whether a die the reader found lies tilted, by its outline and its size
against a flat die's of its kind. They hold on this project's renders, where a die's top face
is cut free by its dark seams; a camera that shows flat dice's side faces makes them call
flat dice tilted, which the reader weighs by what they make of the tower's own teaching
pictures (vision/dice/reader.py: ``rules_share``, ``TILT_NET_*``). Kept apart from the reader
so that a profile can keep their verdict on each picture it is taught (Profile.add_example)."""

from __future__ import annotations

from .segment import Blob

# verdict thresholds (measured on the renderer's trays: bench/dice_bench.py)
# a die is tilted when its top face sits off the silhouette's centre, when the silhouette
# is elongated, larger (side faces seen) or smaller (only a foreshortened top face stands out
# from the tray) than the kind's flat size, or when the top face is a small part of it
TILT = {"square": {"offset": 0.075, "aspect": 1.2, "top_aspect": 1.10, "size": 1.10,
                   "size_min": 0.0, "top_fraction": 0.6, "rectangularity": 0.75},
        "round": {"offset": 0.085, "aspect": 1.12, "top_aspect": 1.3, "size": 1.12,
                  "size_min": 0.9, "top_fraction": 0.2, "rectangularity": 0.0}}


def outline_tilted(b: Blob, shape: str) -> bool:
    """The tilt rules (TILT, for a die whose outline looks ``shape``) on die ``b``'s outline,
    its size aside: its top face off the silhouette's centre or not square, the silhouette
    long or not filling its box, the top face a small part of it."""
    t = TILT[shape]
    (_, _), (tw, th), _ = b.top_rect
    top_aspect = max(tw, th) / max(1e-6, min(tw, th))
    return (b.top_offset > t["offset"] or b.aspect > t["aspect"]
            or top_aspect > t["top_aspect"]
            or b.top_fraction < t["top_fraction"] or b.rectangularity < t["rectangularity"])


def size_tilted(size: float, shape: str, ref: float | None) -> bool:
    """The tilt rules on a die's size: larger (side faces seen) or, for a round outline,
    smaller (a foreshortened top face alone stands out) than ``ref``, a flat die's size of
    its kind (None: not known, no verdict)."""
    t = TILT[shape]
    return ref is not None and not t["size_min"] * ref <= size <= t["size"] * ref
