"""The dice tower as the app configures it: which port, which USB ids, the simulated fallback.

Kivy-free (the CLI checks it before a window opens). The link itself is ``firmware_bridge``;
only ``companion.app`` imports it, as DESIGN.md wants.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from firmware_bridge.host.discovery import PortNotFoundError, UsbMatch, find_tower
from tabletop_base.platform import on_android

from .. import files
from ..i18n import _

SIM_URL = "sim://demo"


@dataclass(frozen=True)
class UsbIds:
    vid: int | None = None
    pid: int | None = None
    serial_number: str | None = None

    def validate(self) -> tuple[str, str] | None:
        for key in ("vid", "pid"):
            value = getattr(self, key)
            if value is not None and not 0 <= value <= 0xFFFF:
                return key, f"{value:#x} is not a 16-bit USB id (0 to 0xFFFF)"
        return None


@dataclass(frozen=True)
class DiceTowerConfig:
    port: str = "auto"
    usb: UsbIds = field(default_factory=UsbIds)
    baudrates: tuple[int, ...] = (115200,)
    simulate_when_absent: bool = True

    def validate(self) -> tuple[str, str] | None:
        if not self.port.strip():
            return "port", "empty: write auto, a port path or a URL"
        if not self.baudrates:
            return "baudrates", "needs at least one baud rate"
        for i, baud in enumerate(self.baudrates):
            if not 300 <= baud <= 4_000_000:
                return f"baudrates[{i}]", f"{baud} is not a serial baud rate"
        return None

    @property
    def usb_match(self) -> UsbMatch:
        return UsbMatch(self.usb.vid, self.usb.pid, self.usb.serial_number)


def load_tower_config(root: Path | None = None) -> DiceTowerConfig:
    return files.load_config(DiceTowerConfig, "dice_tower", root)


def choose_url(cfg: DiceTowerConfig, override: str | None = None) -> tuple[str | None, bool, str]:
    """(url for the link, simulated?, why). ``None`` as url means "find by USB ids on every
    reconnect" (the device node may change on replug)."""
    if override:
        return override, override.startswith("sim://"), _("chosen when the app was started")
    if cfg.port != "auto":
        return cfg.port, cfg.port.startswith("sim://"), _("from the dice tower settings")
    if on_android():
        return _choose_android(cfg)
    try:
        port = find_tower(cfg.usb_match)
    except PortNotFoundError as exc:
        if cfg.simulate_when_absent:
            return SIM_URL, True, _("no tower plugged in ({problem})").format(problem=exc)
        return None, False, str(exc)
    return None, False, _("found at {port}").format(port=port.device)


def android_url(cfg: DiceTowerConfig) -> str:
    """``android://?vid=..&pid=..`` for the tower's USB ids (any device without them)."""
    query = [f"{key}=0x{value:04x}" for key, value in (("vid", cfg.usb.vid), ("pid", cfg.usb.pid))
             if value is not None]
    return "android://" + ("?" + "&".join(query) if query else "")


def _choose_android(cfg: DiceTowerConfig) -> tuple[str | None, bool, str]:
    """On Android USB devices are reached through the USB host API (``android://``)."""
    from serial import SerialException

    from firmware_bridge.host.urlhandlers import protocol_android

    url = android_url(cfg)
    try:
        usb, _rest = protocol_android._android_modules()
        device = protocol_android.find_device(usb, *protocol_android.parse_url(url))
    except SerialException as exc:
        if cfg.simulate_when_absent:
            return SIM_URL, True, _("no tower plugged in ({problem})").format(problem=exc)
        return url, False, str(exc)
    return url, False, _("found on USB ({device})").format(device=device.getDeviceName())
