"""``sim://NAME?option=value...``: a simulated tower inside this process, as a pyserial port.

Options: ``seed``, ``ring`` (ring size), ``minor`` (the protocol minor version it declares:
1, the default, or 3, which answers teaching and a die's picture or example with "no
camera"), and the faults of :class:`firmware_bridge.tower.sim.Faults`
(``drop``, ``duplicate``, ``corrupt``, ``truncate``, ``delay``, ``ack_drop``). Every port opened
with the same NAME talks to the same tower, so it keeps its ring and boot id across a close and
reopen, as a real one does. :func:`hub` gives the tower's controls (roll, reset, unplug, replug).
"""

from __future__ import annotations

import errno
import random
import threading
import time
import urllib.parse

from serial.serialutil import PortNotOpenError, SerialBase, SerialException

from firmware_bridge.tower.sim import Faults, FaultyWire, SimTower, parse_dice


class SimHub:
    """One simulated tower and whichever port has it open."""

    def __init__(self, name: str, *, seed: int | None, ring: int, faults: Faults,
                 minor: int = 1) -> None:
        self.name = name
        self.tower = SimTower(seed=seed, ring_size=ring, minor=minor)
        self.wire = FaultyWire(faults, random.Random(None if seed is None else seed + 1))
        self.lock = threading.RLock()
        self.plugged = True
        self.owner: Serial | None = None
        self.rolls = 0

    def pump(self) -> None:
        with self.lock:
            packets = self.tower.poll()
            if packets and self.owner is not None:
                self.owner._rx += b"".join(self.wire.frames(packets, time.monotonic()))

    def roll(self, spec: str = "takkure") -> int:
        with self.lock:
            seq = self.tower.roll(parse_dice(spec, self.tower.rng))
            self.rolls += 1
            self.pump()
            return seq

    def reset(self) -> None:
        with self.lock:
            self.tower.boot()
            self.pump()

    def unplug(self) -> None:
        with self.lock:
            self.plugged = False
            if self.owner is not None:
                self.owner._unplugged = True

    def replug(self) -> None:
        with self.lock:
            self.plugged = True


_HUBS: dict[str, SimHub] = {}
_HUBS_LOCK = threading.Lock()


def hub(name: str = "demo", **options) -> SimHub:
    """The simulated tower called NAME, made on first use."""
    with _HUBS_LOCK:
        found = _HUBS.get(name)
        if found is None:
            faults = options.pop("faults", None) or Faults()
            found = _HUBS[name] = SimHub(name, seed=options.get("seed"),
                                         ring=int(options.get("ring", 32)), faults=faults,
                                         minor=int(options.get("minor", 1)))
        return found


def forget(name: str) -> None:
    with _HUBS_LOCK:
        _HUBS.pop(name, None)


def parse_url(url: str) -> tuple[str, dict]:
    parts = urllib.parse.urlsplit(url)
    if parts.scheme != "sim":
        raise SerialException(f"expected a URL of the form sim://NAME?..., not {url!r}")
    name = parts.netloc or parts.path.strip("/") or "demo"
    options: dict = {}
    faults = Faults()
    for key, values in urllib.parse.parse_qs(parts.query).items():
        value = values[-1]
        try:
            if key == "seed":
                options["seed"] = int(value)
            elif key == "ring":
                options["ring"] = int(value)
            elif key == "minor":
                if int(value) not in (1, 3):
                    raise SerialException(f"{url}: option minor={value!r}: 1 or 3")
                options["minor"] = int(value)
            elif hasattr(faults, key):
                setattr(faults, key, float(value))
            else:
                raise SerialException(f"{url}: unknown option {key!r}")
        except ValueError as exc:
            raise SerialException(f"{url}: option {key}={value!r} is not a number") from exc
    options["faults"] = faults
    return name, options


class Serial(SerialBase):
    """pyserial's port API over a :class:`SimHub`."""

    is_open: bool

    def open(self) -> None:
        if self.is_open:
            raise SerialException("Port is already open.")
        if self._port is None:
            raise SerialException("Port must be configured before it can be used.")
        name, options = parse_url(self.port)
        h = hub(name, **options)
        with h.lock:
            if not h.plugged:
                raise SerialException(errno.ENOENT, f"could not open port {self.port}: "
                                      "[Errno 2] No such file or directory (the simulated "
                                      "tower is unplugged)")
            if h.owner is not None and h.owner.is_open:
                raise SerialException(errno.EBUSY, f"Could not exclusively lock port {self.port}: "
                                      "[Errno 16] the simulated tower is open elsewhere")
            self._hub = h
            self._rx = bytearray()
            self._unplugged = False
            h.owner = self
        self.is_open = True

    def close(self) -> None:
        h = getattr(self, "_hub", None)
        if h is not None:
            with h.lock:
                if h.owner is self:
                    h.owner = None
        self.is_open = False

    def _reconfigure_port(self) -> None:
        pass

    def _check(self) -> SimHub:
        if not self.is_open:
            raise PortNotOpenError()
        if self._unplugged:
            raise SerialException("device reports readiness to read but returned no data "
                                  "(the simulated tower was unplugged)")
        return self._hub

    @property
    def in_waiting(self) -> int:
        h = self._check()
        h.pump()
        return len(self._rx)

    def read(self, size: int = 1) -> bytes:
        h = self._check()
        deadline = None if self._timeout is None else time.monotonic() + self._timeout
        while True:
            h.pump()
            with h.lock:
                if self._rx:
                    out = bytes(self._rx[:size])
                    del self._rx[:size]
                    return out
            if deadline is not None and time.monotonic() >= deadline:
                return b""
            time.sleep(0.002)
            h = self._check()

    def write(self, data: bytes) -> int:
        h = self._check()
        with h.lock:
            if h.wire.keep_ack():
                h.tower.feed(bytes(data))
        h.pump()
        return len(data)

    def reset_input_buffer(self) -> None:
        self._check()
        with self._hub.lock:
            self._rx.clear()

    def reset_output_buffer(self) -> None:
        pass
