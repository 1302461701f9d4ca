"""The tower end of a pseudo-terminal, reachable at a stable path.

A real tower appears as ``/dev/serial/by-id/usb-...``: a symlink udev removes on unplug and
makes again, to a possibly different ``/dev/ttyACM*``, on replug. :class:`PtyPort` does the
same with a pty: ``plug()`` opens a new pty and points ``link`` at its slave, ``unplug()``
closes it (the host's next read or write fails as it does on a real unplug) and removes the
link. The host opens ``link`` with pyserial like any serial port.

Writes never block: while no host reads, the kernel buffer fills and further frames are
dropped (counted in ``dropped_writes``), as a USB device's are.

POSIX only (Linux, macOS): on Windows this module imports, and ``PtyPort`` says that
pseudo-terminals do not exist there.
"""

from __future__ import annotations

import errno
import os
import select
import threading
from pathlib import Path

from ..tower.sim import SimServer, SimTower

try:  # POSIX only: pseudo-terminals do not exist on Windows
    import pty
    import tty
except ImportError:  # pragma: no cover - exercised by the no-POSIX import test
    pty = tty = None  # type: ignore[assignment]


class PtyUnavailable(OSError):
    """Pseudo-terminals (the pty tools: the simulated tower on a port, the firmware runner)
    exist only on Linux, macOS and other POSIX systems."""


class PtyPort:
    def __init__(self, link: str | Path) -> None:
        if pty is None or tty is None:
            raise PtyUnavailable("the pty tools need pseudo-terminals, which exist only on "
                                 "Linux and macOS: on Windows use the sim:// tower instead")
        self.link = Path(link)
        self._master: int | None = None
        self._slave: int | None = None
        self._lock = threading.Lock()
        self.slave_name: str | None = None
        self.dropped_writes = 0
        self.plugs = 0

    @property
    def plugged(self) -> bool:
        return self._master is not None

    def plug(self) -> str:
        """Open a fresh pty and (re)point the link at it; returns the slave's real path."""
        with self._lock:
            if self._master is not None:
                return self.slave_name or ""
            master, slave = pty.openpty()
            tty.setraw(slave)
            os.set_blocking(master, False)
            name = os.ttyname(slave)
            tmp = self.link.with_name(self.link.name + ".new")
            try:
                tmp.unlink()
            except FileNotFoundError:
                pass
            os.symlink(name, tmp)
            os.replace(tmp, self.link)
            self._master, self._slave, self.slave_name = master, slave, name
            self.plugs += 1
            return name

    def unplug(self) -> None:
        with self._lock:
            try:
                self.link.unlink()
            except FileNotFoundError:
                pass
            for fd in (self._master, self._slave):
                if fd is not None:
                    try:
                        os.close(fd)
                    except OSError:
                        pass
            self._master = self._slave = None

    close = unplug

    def fileno(self) -> int | None:
        return self._master

    def write(self, data: bytes) -> bool:
        """Send ``data`` whole or not at all; ``False`` when unplugged or the buffer is full."""
        with self._lock:
            master = self._master
            if master is None:
                return False
            try:
                written = os.write(master, data)
            except OSError as exc:
                if exc.errno in (errno.EAGAIN, errno.EWOULDBLOCK, errno.EIO):
                    self.dropped_writes += 1
                    return False
                raise
            if written < len(data):  # a torn frame: the receiver's CRC will catch it
                self.dropped_writes += 1
                return False
            return True

    def read(self, timeout: float) -> bytes:
        """Whatever the host wrote, waiting up to ``timeout`` s; ``b""`` if nothing or unplugged."""
        master = self._master
        if master is None:
            return b""
        try:
            ready, _, _ = select.select([master], [], [], timeout)
        except (OSError, ValueError):
            return b""
        if not ready:
            return b""
        try:
            return os.read(master, 4096)
        except OSError:
            return b""


def pty_server(link: str | Path, **kwargs) -> SimServer:
    """A simulated tower on a fresh pty reachable at ``link`` (started)."""
    port = PtyPort(link)
    port.plug()
    tower_kwargs = {k: kwargs.pop(k) for k in ("ring_size", "nv") if k in kwargs}
    return SimServer(SimTower(seed=kwargs.get("seed"), **tower_kwargs), port, **kwargs).start()
