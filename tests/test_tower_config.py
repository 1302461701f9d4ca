"""config/dice_tower.yaml and the choice of port the app makes from it."""

from __future__ import annotations

import pytest

from companion.app import tower_config
from companion.app.tower_config import DiceTowerConfig, UsbIds, choose_url, load_tower_config
from companion.config import loads_typed
from companion.errors import ConfigError
from firmware_bridge.host import discovery
from firmware_bridge.host.discovery import PortInfo


def test_shipped_config_loads():
    cfg = load_tower_config()
    assert cfg.port == "auto" and cfg.usb.vid == 0x2E8A and cfg.simulate_when_absent


@pytest.mark.parametrize("text, where", [
    ("usb: {vid: 0x12345}\n", "dice_tower.yaml:1: usb.vid: 0x12345 is not a 16-bit USB id"),
    ("baudrates: [9]\n", "dice_tower.yaml:1: baudrates[0]: 9 is not a serial baud rate"),
    ("port: ''\n", "dice_tower.yaml:1: port: empty"),
    ("prot: auto\n", "dice_tower.yaml:1: prot: unknown key"),
    ("simulate_when_absent: maybe\n", "simulate_when_absent: expected true or false"),
])
def test_bad_tower_config_names_file_line_and_key(text, where):
    with pytest.raises(ConfigError) as err:
        loads_typed(DiceTowerConfig, text, "dice_tower.yaml")
    assert where in str(err.value)


def _ports(monkeypatch, ports):
    monkeypatch.setattr(discovery, "serial_ports", lambda: ports)


PICO = PortInfo("/dev/ttyACM3", "Board in FS mode", 0x2E8A, 0x0005, "E6614C", "MicroPython")
OTHER = PortInfo("/dev/ttyUSB0", "CP2102", 0x10C4, 0xEA60, "0001", "Silicon Labs")


def test_auto_finds_the_tower_by_usb_ids_and_keeps_looking_on_reconnect(monkeypatch):
    _ports(monkeypatch, [OTHER, PICO])
    url, simulated, why = choose_url(DiceTowerConfig(usb=UsbIds(0x2E8A, 0x0005)))
    assert (url, simulated) == (None, False) and "/dev/ttyACM3" in why


def test_serial_number_picks_one_of_two_towers(monkeypatch):
    twin = PortInfo("/dev/ttyACM4", "Board", 0x2E8A, 0x0005, "AAAA", "MicroPython")
    _ports(monkeypatch, [twin, PICO])
    assert discovery.find_tower(discovery.UsbMatch(0x2E8A, 0x0005, "E6614C")).device == "/dev/ttyACM3"


def test_auto_without_a_tower_simulates_and_says_why(monkeypatch):
    _ports(monkeypatch, [OTHER])
    url, simulated, why = choose_url(DiceTowerConfig(usb=UsbIds(0x2E8A, 0x0005)))
    assert url == tower_config.SIM_URL and simulated
    assert "no serial port with VID 2E8A, PID 0005" in why and "/dev/ttyUSB0" in why


def test_auto_without_a_tower_and_no_simulation_reports_not_found(monkeypatch):
    _ports(monkeypatch, [])
    url, simulated, why = choose_url(DiceTowerConfig(usb=UsbIds(0x2E8A), simulate_when_absent=False))
    assert url is None and not simulated and "no USB serial ports seen" in why


def test_explicit_port_and_command_line_win(monkeypatch):
    _ports(monkeypatch, [PICO])
    assert choose_url(DiceTowerConfig(port="/dev/ttyUSB7"))[0] == "/dev/ttyUSB7"
    assert choose_url(DiceTowerConfig(), "socket://10.0.0.2:7000")[:2] == ("socket://10.0.0.2:7000", False)
