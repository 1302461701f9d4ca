"""A camera tower for tests: one rendered tray look, a profile taught on it (King of Tokyo
Duel's symbol die, as a player would: empty trays, three images of each face), throws."""

from __future__ import annotations

from collections import Counter
from functools import lru_cache
from pathlib import Path

import numpy as np

from firmware_bridge.testing.ptyport import PtyPort
from firmware_bridge.tower.camera_tower import CameraTower
from firmware_bridge.tower.frames import IterSource
from vision.dice import Profile
from vision.dice.render import TrayStyle, throw_sequence

STYLE = TrayStyle(tray_bgr=(120, 104, 66), light_dir=(0.12, -0.08), vignette=0.2,
                  gradient=(0.06, -0.04), perspective=3.0, blur_sigma=0.6, noise_sigma=2.0,
                  jpeg_quality=88, seed=1, tray_seed=7)


@lru_cache(maxsize=1)
def kotd_profile() -> Profile:
    from vision.dice.bench import teach_tower

    return teach_tower(STYLE, 41, kinds=["kotd"])


def throw(seed: int, n_dice: int) -> tuple[list[np.ndarray], Counter]:
    """The frames of one throw of King of Tokyo dice and the faces that settled."""
    frames = throw_sequence(seed, n_dice=n_dice, kinds=["kotd"], style=STYLE)
    settled = next(f for f in frames if f.phase == "settled")
    return [f.image for f in frames], Counter(t.face for t in settled.truth)


class PtyCameraTower:
    """A :class:`CameraTower` on a pty at ``workdir/tower``, its ring in ``workdir/ring.json``;
    ``play(frames)`` feeds frames on a thread."""

    def __init__(self, workdir: Path, source=None, profile: Profile | None = None,
                 seed: int = 5) -> None:
        self.port = PtyPort(workdir / "tower")
        self.port.plug()
        self.ring = workdir / "ring.json"
        self.log: list[str] = []
        self.source = source if source is not None else QueueSource()
        self.tower = CameraTower(profile or kotd_profile(), self.source, self.port,
                                 ring_file=self.ring, still_frames=4, seed=seed,
                                 log=self.log.append)
        self.tower.start_link()
        self.thread = self.tower.run_in_thread()

    @property
    def path(self) -> str:
        return str(self.port.link)

    def play(self, frames: list[np.ndarray]) -> None:
        self.source.add(frames)

    def stop(self) -> None:
        self.tower.stop()
        self.thread.join(5)
        self.port.unplug()


class QueueSource(IterSource):
    """Frames added while the tower runs; between them the tray's last frame repeats (a
    camera keeps sending the tray as it is)."""

    def __init__(self) -> None:
        super().__init__([])
        import threading

        self._frames: list[np.ndarray] = []
        self._lock = threading.Lock()
        self._last: np.ndarray | None = None
        self.closed = False

    def close(self) -> None:
        self.closed = True

    def add(self, frames: list[np.ndarray]) -> None:
        with self._lock:
            self._frames.extend(frames)

    @property
    def idle(self) -> bool:
        """Every frame added has been handed to the tower (the last one now repeats)."""
        with self._lock:
            return not self._frames

    def read(self):
        import time

        while True:
            if self.closed:
                raise StopIteration
            with self._lock:
                frame = self._frames.pop(0) if self._frames else None
            if frame is not None:
                break
            time.sleep(0.01)
            if self._last is not None:
                frame = self._last
                break
        self._last = frame
        self.handed.append(time.monotonic())
        return f"frame {len(self.handed) - 1}", frame
