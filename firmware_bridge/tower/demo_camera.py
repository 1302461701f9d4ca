"""A demo camera tower in this process: what a player without a camera tower can try Teach a
die and the Tray view on (issue 28).

It is the real :class:`~firmware_bridge.tower.camera_tower.CameraTower` (protocol 1.2: rolls,
teaching, tray pictures), on a local socket (``socket://127.0.0.1:PORT``: pyserial opens it
like any port), whose camera is a renderer: the tray stays empty until :meth:`throw` drops
dice of a kind in it, which tumble and settle; they stay in the tray (for the Tray view) until
the next throw takes them out first. It starts knowing King of
Tokyo Duel's die (taught on empty trays and three pictures of each face, as a player would);
anything taught to it is saved in its own folder, never in a real tower's profile.

Only the kinds the renderer draws can be thrown (:data:`THROWABLE`). Kivy-free.
"""

from __future__ import annotations

import collections
import itertools
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

KNOWN_AT_START = ("kotd",)           # what the demo tower reads before anything is taught
THROWABLE = ("kotd", "d12", "spawn")  # the kinds its renderer can drop in the tray
FPS = 30.0


def demo_style() -> Any:
    """The look of the demo tray: a blue-grey tray under a slightly uneven light."""
    from vision.dice.render import TrayStyle

    return TrayStyle(tray_bgr=(120, 104, 66), light_dir=(0.12, -0.08), vignette=0.2,
                     gradient=(0.06, -0.04), perspective=3.0, blur_sigma=0.6, noise_sigma=2.0,
                     jpeg_quality=88, seed=1, tray_seed=7)


class DemoCameraTower:
    """``start()`` returns the URL to connect to; ``throw(kind)`` drops dice in its tray;
    ``stop()`` ends it. Every method is safe from any thread."""

    def __init__(self, folder: str | Path, seed: int = 11) -> None:
        self.folder = Path(folder)
        self.seed = seed
        self.style = demo_style()
        self._queue: collections.deque[np.ndarray] = collections.deque()
        self._stop = threading.Event()
        self._throws = itertools.count(seed * 100)
        self._taking_out: list[np.ndarray] = []   # the last throw's dice being taken out
        self._tower: Any = None
        self._thread: threading.Thread | None = None
        self._transport: Any = None
        self.url = ""

    def start(self) -> str:
        """Teach the starting profile (about a second), start the tower; the URL to open."""
        from vision.dice.bench import teach_tower

        from .camera_tower import CameraTower
        from .frames import IterSource
        from .sim import SocketTransport

        self.folder.mkdir(parents=True, exist_ok=True)
        profile = teach_tower(self.style, 41, kinds=list(KNOWN_AT_START))
        self._transport = SocketTransport("127.0.0.1", 0)
        self._tower = CameraTower(profile, IterSource(self._frames()), self._transport,
                                  ring_file=self.folder / "ring.json", still_frames=4,
                                  seed=self.seed, log=lambda text: None,
                                  profile_path=self.folder / "profile.yaml")
        self._tower.start_link()
        self._thread = self._tower.run_in_thread()
        self.url = self._transport.plug()
        return self.url

    def throw(self, kind: str, n_dice: int = 3) -> None:
        """Drop ``n_dice`` dice of ``kind`` in the tray (rendered here: call it off the GUI
        thread), after taking out the last throw's; they settle and stay."""
        from vision.dice.render import throw_sequence

        if kind not in THROWABLE:
            raise ValueError(f"the demo tower cannot draw dice of kind {kind!r}: "
                             f"only {', '.join(THROWABLE)}")
        frames = throw_sequence(next(self._throws), n_dice=n_dice, kinds=[kind],
                                style=self.style, settled_frames=12)
        self._queue.extend(self._taking_out)
        self._queue.extend(f.image for f in frames if f.phase != "removed")
        self._taking_out = [f.image for f in frames if f.phase == "removed"]

    @property
    def busy(self) -> bool:
        """A throw is still falling, settling or being taken out."""
        return bool(self._queue)

    def _frames(self) -> Iterator[np.ndarray]:
        """The camera: the queued throw's frames, else the tray as it last was."""
        from vision.dice.render import render_tray

        last = render_tray([], self.style)[0]
        while not self._stop.is_set():
            if self._queue:
                last = self._queue.popleft()
            yield last
            time.sleep(1 / FPS)

    def stop(self) -> None:
        self._stop.set()
        if self._tower is not None:
            self._tower.stop()
        if self._thread is not None:
            self._thread.join(5)
        if self._transport is not None:
            self._transport.close()
            server = getattr(self._transport, "server", None)
            if server is not None:
                server.close()
