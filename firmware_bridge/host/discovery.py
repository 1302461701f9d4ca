"""Finding the tower's serial port: by USB VID/PID/serial number, or an explicit URL.

A USB tower's device node (``/dev/ttyACM0``) can change on every replug, so the link asks
again each time it reconnects. An explicit port (a path, ``socket://``, ``loop://``,
``sim://``) always wins.
"""

from __future__ import annotations

from dataclasses import dataclass

from serial.tools import list_ports


@dataclass(frozen=True, slots=True)
class UsbMatch:
    """Which USB device is the tower. ``None`` fields match anything."""

    vid: int | None = None
    pid: int | None = None
    serial_number: str | None = None

    def matches(self, port: PortInfo) -> bool:
        if self.vid is None and self.pid is None and self.serial_number is None:
            return False
        return ((self.vid is None or port.vid == self.vid)
                and (self.pid is None or port.pid == self.pid)
                and (self.serial_number is None or port.serial_number == self.serial_number))

    def describe(self) -> str:
        parts = []
        if self.vid is not None:
            parts.append(f"VID {self.vid:04X}")
        if self.pid is not None:
            parts.append(f"PID {self.pid:04X}")
        if self.serial_number is not None:
            parts.append(f"serial number {self.serial_number!r}")
        return ", ".join(parts) or "no USB ids configured"


@dataclass(frozen=True, slots=True)
class PortInfo:
    device: str
    description: str
    vid: int | None
    pid: int | None
    serial_number: str | None
    manufacturer: str | None

    def to_json(self) -> dict:
        return {"device": self.device, "description": self.description,
                "vid": None if self.vid is None else f"{self.vid:04X}",
                "pid": None if self.pid is None else f"{self.pid:04X}",
                "serial_number": self.serial_number, "manufacturer": self.manufacturer}


class PortNotFoundError(LookupError):
    pass


def serial_ports() -> list[PortInfo]:
    """Every serial port the OS lists, USB ones first."""
    ports = [PortInfo(p.device, p.description or "", p.vid, p.pid, p.serial_number,
                      p.manufacturer) for p in list_ports.comports()]
    return sorted(ports, key=lambda p: (p.vid is None, p.device))


def find_tower(usb: UsbMatch, ports: list[PortInfo] | None = None) -> PortInfo:
    """The one port matching ``usb``; :class:`PortNotFoundError` names what was looked for."""
    ports = serial_ports() if ports is None else ports
    found = [p for p in ports if usb.matches(p)]
    if not found:
        seen = ", ".join(f"{p.device} ({p.vid or 0:04X}:{p.pid or 0:04X})" for p in ports if p.vid)
        raise PortNotFoundError(f"no serial port with {usb.describe()}"
                                + (f"; USB ports seen: {seen}" if seen else "; no USB serial ports seen"))
    return found[0]


def resolve(url: str | None, usb: UsbMatch) -> str:
    """The URL to open: ``url`` unless it is empty or ``auto``, else the port matching ``usb``."""
    if url and url != "auto":
        return url
    return find_tower(usb).device
