"""Towers for link tests: the simulated one and the reference firmware, both behind a pty."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path

from firmware_bridge.host.events import LinkEvent, RollEvent
from firmware_bridge.tower.sim import Faults, NonVolatile, SimServer, SimTower


class SimPtyTower:
    """The simulated tower on a :class:`PtyPort`, with the same controls as FirmwareTower."""

    name = "sim"

    def __init__(self, workdir: Path, *, faults: Faults | None = None, seed: int = 3,
                 ring_size: int = 32) -> None:
        from firmware_bridge.testing.ptyport import PtyPort

        self.port = PtyPort(workdir / "tower")
        self.port.plug()
        self.nv = NonVolatile()
        self.tower = SimTower(seed=seed, ring_size=ring_size, nv=self.nv)
        self.server = SimServer(self.tower, self.port, faults=faults, seed=seed).start()

    @property
    def path(self) -> str:
        return str(self.port.link)

    def roll(self, spec: str = "d12:red:7 d12:yellow:12") -> None:
        self.server.roll(spec)

    def reset(self) -> None:
        self.server.reset()

    def unplug(self) -> None:
        self.port.unplug()

    def replug(self) -> None:
        self.port.plug()

    def stop(self) -> None:
        self.server.stop()
        self.port.unplug()


class Recorder:
    """Collects link events from the reader thread; waits for conditions with a deadline."""

    def __init__(self) -> None:
        self.events: list[tuple[float, LinkEvent]] = []
        self.lock = threading.Lock()

    def __call__(self, event: LinkEvent) -> None:
        with self.lock:
            self.events.append((time.monotonic(), event))

    def of(self, kind: type) -> list:
        with self.lock:
            return [e for _, e in self.events if isinstance(e, kind)]

    def timed(self, kind: type) -> list[tuple[float, LinkEvent]]:
        with self.lock:
            return [(t, e) for t, e in self.events if isinstance(e, kind)]

    def rolls(self) -> list[RollEvent]:
        return self.of(RollEvent)

    def wait(self, condition: Callable[[], bool], timeout: float = 10.0, what: str = "") -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if condition():
                return
            time.sleep(0.02)
        with self.lock:
            seen = [e.to_json().get("event") for _, e in self.events]
        raise AssertionError(f"timed out waiting for {what or condition}; events: {seen}")
