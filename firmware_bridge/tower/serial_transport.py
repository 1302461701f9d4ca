"""The camera tower's end of a real serial port (the USB gadget ``/dev/ttyGS0``)."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any


class SerialTransport:
    """The tower's end of a serial port (``/dev/ttyGS0``, the USB gadget): reopened after an
    error; writes never block (a frame nobody takes is lost, as on a real USB device)."""

    def __init__(self, url: str, baudrate: int = 115200,
                 warn: Callable[[str], None] | None = None) -> None:
        self.url = url
        self.baudrate = baudrate
        self.warn = warn or (lambda text: print(text, file=sys.stderr, flush=True))
        self.port: Any = None
        self._retry_at = 0.0
        self.dropped_writes = 0
        self.error = ""

    def _open(self) -> Any:
        import serial

        if self.port is not None:
            return self.port
        now = time.monotonic()
        if now < self._retry_at:
            return None
        self._retry_at = now + 0.5
        try:
            self.port = serial.serial_for_url(self.url, baudrate=self.baudrate, timeout=0,
                                              write_timeout=0)
        except (serial.SerialException, OSError, ValueError) as exc:
            error = f"{self.url}: {exc}"
            if error != self.error:  # said once, then tried again every 0.5 s
                self.warn(f"{error} (trying again)")
            self.error = error
            return None
        if self.error:
            self.warn(f"{self.url}: open")
            self.error = ""
        return self.port

    def _lost(self) -> None:
        try:
            self.port.close()
        except Exception:  # noqa: BLE001 - the port is gone either way
            pass
        self.port = None

    def write(self, data: bytes) -> bool:
        import serial

        port = self._open()
        if port is None:
            return False
        try:
            port.write(data)
            return True
        except serial.SerialTimeoutException:
            self.dropped_writes += 1
            return False
        except (serial.SerialException, OSError):
            self._lost()
            return False

    def read(self, timeout: float) -> bytes:
        import serial

        port = self._open()
        if port is None:
            time.sleep(timeout)
            return b""
        try:
            if port.timeout != timeout:  # pyserial reconfigures the tty on every change
                port.timeout = timeout
            return bytes(port.read(4096))
        except (serial.SerialException, OSError):
            self._lost()
            time.sleep(timeout)
            return b""

    def close(self) -> None:
        if self.port is not None:
            self._lost()
