"""The Android paths, tested here with fakes of what only a tablet has: the ``android://``
dice tower port (usbserial4a on Android's USB host API), Kivy's camera as a frame source,
and the choice of port on Android."""

from __future__ import annotations

import sys
import types

import numpy as np
import pytest
import serial

from firmware_bridge.host.events import Connected
from firmware_bridge.host.link import Link
from firmware_bridge.host.rolls import RollJournal
from firmware_bridge.host.urlhandlers import protocol_android, protocol_sim
from tests.bridge_support import Recorder


class FakeDevice:
    def __init__(self, name: str, vid: int, pid: int) -> None:
        self.name, self.vid, self.pid = name, vid, pid

    def getDeviceName(self) -> str:  # noqa: N802 - the Java API's names
        return self.name

    def getVendorId(self) -> int:  # noqa: N802
        return self.vid

    def getProductId(self) -> int:  # noqa: N802
        return self.pid


class FakeAndroidUsb:
    """``usb4a.usb`` and ``usbserial4a.serial4a`` as a tablet would give them: the port the
    driver opens is an in-process simulated tower (``sim://``)."""

    def __init__(self, devices: list[FakeDevice], granted: bool = True,
                 sim_name: str = "android-test") -> None:
        self.devices = devices
        self.granted = granted
        self.asked: list[str] = []
        self.opened: list[tuple] = []
        self.sim_name = sim_name
        usb = types.ModuleType("usb4a.usb")
        usb.get_usb_device_list = lambda: list(self.devices)
        usb.has_usb_permission = lambda d: self.granted
        usb.request_usb_permission = lambda d: self.asked.append(d.getDeviceName())
        serial4a = types.ModuleType("usbserial4a.serial4a")

        def get_serial_port(name, baudrate, bytesize, parity, stopbits, timeout=None):
            self.opened.append((name, baudrate, bytesize, parity, stopbits))
            return serial.serial_for_url(f"sim://{self.sim_name}", baudrate=baudrate,
                                         timeout=timeout)

        serial4a.get_serial_port = get_serial_port
        self.modules = {"usb4a": types.ModuleType("usb4a"), "usb4a.usb": usb,
                        "usbserial4a": types.ModuleType("usbserial4a"),
                        "usbserial4a.serial4a": serial4a}


@pytest.fixture
def android_usb(monkeypatch):
    def install(devices, **kw):
        fake = FakeAndroidUsb(devices, **kw)
        for name, module in fake.modules.items():
            monkeypatch.setitem(sys.modules, name, module)
        return fake
    return install


TOWER = FakeDevice("/dev/bus/usb/001/004", 0x1209, 0x0001)
OTHER = FakeDevice("/dev/bus/usb/001/002", 0x046D, 0xC52B)


def test_android_urls_name_a_device_or_usb_ids():
    assert protocol_android.parse_url("android://") == (None, None, None)
    assert protocol_android.parse_url("android://?vid=0x1209&pid=1") == (None, 0x1209, 1)
    assert protocol_android.parse_url("android:///dev/bus/usb/001/004") == \
        ("/dev/bus/usb/001/004", None, None)
    with pytest.raises(serial.SerialException, match="unknown option 'baud'"):
        protocol_android.parse_url("android://?baud=9600")
    with pytest.raises(serial.SerialException, match="vid=0x12345 is not a USB id"):
        protocol_android.parse_url("android://?vid=0x12345")


def test_off_android_the_port_says_it_exists_only_there(monkeypatch):
    monkeypatch.setitem(sys.modules, "usb4a", None)
    monkeypatch.setitem(sys.modules, "usb4a.usb", None)
    with pytest.raises(serial.SerialException, match="only in the Android app"):
        serial.serial_for_url("android://")


def test_the_tower_is_picked_by_its_usb_ids_and_permission_is_asked_first(android_usb):
    fake = android_usb([OTHER, TOWER], granted=False)
    with pytest.raises(serial.SerialException, match="asking whether this app may use"):
        serial.serial_for_url("android://?vid=0x1209&pid=0x0001")
    assert fake.asked == [TOWER.name] and fake.opened == []
    fake.granted = True
    port = serial.serial_for_url("android://?vid=0x1209&pid=0x0001", baudrate=115200,
                                 timeout=0.1)
    assert port.is_open and fake.opened == [(TOWER.name, 115200, 8, "N", 1)]
    port.close()
    assert not port.is_open
    with pytest.raises(serial.SerialException,
                       match=r"no USB device 1209:0002 is plugged in \(plugged in: "
                             r"/dev/bus/usb/001/002 \(046d:c52b\), /dev/bus/usb/001/004"):
        serial.serial_for_url("android://?vid=0x1209&pid=0x0002")


def test_the_link_handshakes_and_records_a_roll_over_android_usb(android_usb, tmp_path):
    android_usb([TOWER], sim_name="android-link")
    rec = Recorder()
    journal = RollJournal(tmp_path / "rolls.jsonl")
    with Link("android://?vid=0x1209", journal, rec):
        rec.wait(lambda: rec.of(Connected), what="the handshake over android://")
        protocol_sim.hub("android-link").roll("d12:red:7 d12:yellow:12")
        rec.wait(lambda: rec.rolls(), what="the roll")
    roll = rec.rolls()[0]
    assert [(d.kind, d.colour, d.face) for d in roll.dice] == \
        [("d12", "red", "7"), ("d12", "yellow", "12")]
    journal.close()


def test_on_android_auto_picks_the_usb_tower_or_the_simulated_one(android_usb, monkeypatch):
    from companion.app.tower_config import DiceTowerConfig, UsbIds, choose_url

    monkeypatch.setenv("ANDROID_ARGUMENT", "/data/app")
    cfg = DiceTowerConfig(usb=UsbIds(vid=0x1209, pid=0x0001))
    android_usb([TOWER])
    assert choose_url(cfg) == ("android://?vid=0x1209&pid=0x0001", False,
                               f"found on USB ({TOWER.name})")
    android_usb([OTHER])
    url, simulated, why = choose_url(cfg)
    assert url == "sim://demo" and simulated and "no USB device 1209:0001" in why


# -- Kivy's camera as a frame source ------------------------------------------------------
class FakeTexture:
    def __init__(self, image_bgr: np.ndarray) -> None:
        h, w = image_bgr.shape[:2]
        rgba = np.dstack([image_bgr[:, :, ::-1], np.full((h, w), 255, np.uint8)])
        self.pixels = rgba[::-1].tobytes()      # Kivy: RGBA, first row at the bottom
        self.width, self.height = w, h


class FakeKivyCamera:
    def __init__(self) -> None:
        self.callbacks: list = []
        self.texture: FakeTexture | None = None
        self.playing = False

    def bind(self, on_texture):
        self.callbacks.append(on_texture)

    def unbind(self, on_texture):
        self.callbacks.remove(on_texture)

    def start(self):
        self.playing = True

    def stop(self):
        self.playing = False

    def show(self, image):
        self.texture = FakeTexture(image)
        for cb in list(self.callbacks):
            cb(self)


def test_kivy_camera_frames_reach_the_worker_as_opencv_images():
    from kivy.clock import Clock

    from companion.app.kivy_camera import KivyCameraSource

    cam = FakeKivyCamera()
    source = KivyCameraSource(camera_factory=lambda: cam, timeout_s=0.2)
    assert cam.playing
    assert source.read() == (False, None)          # no picture yet: the worker waits
    rng = np.random.default_rng(1)
    first = rng.integers(0, 256, (48, 64, 3), np.uint8)
    second = rng.integers(0, 256, (48, 64, 3), np.uint8)
    cam.show(first)
    cam.show(second)                               # the newest picture wins
    ok, frame = source.read()
    assert ok and frame.shape == (48, 64, 3) and np.array_equal(frame, second)
    assert source.read() == (False, None)          # each picture is read once
    source.release()
    Clock.tick()
    assert not cam.playing and cam.callbacks == []
    assert source.read() == (False, None)


def test_the_measuring_view_uses_kivys_camera_on_android(monkeypatch):
    from companion.app import kivy_camera, overhead

    made = []

    class Recorded:
        def __init__(self, index, size):
            made.append((index, size))

    monkeypatch.setattr(kivy_camera, "KivyCameraSource", Recorded)
    monkeypatch.setenv("ANDROID_ARGUMENT", "/data/app")
    overhead._open_camera("0", (1280, 720))
    assert made == [(0, (1280, 720))]


def test_the_buildozer_spec_asks_for_what_a_table_tablet_needs():
    import configparser
    import xml.etree.ElementTree as ET
    from pathlib import Path

    from companion import files
    from companion.app.tower_config import DiceTowerConfig
    from companion.config import loads_typed

    root = Path(__file__).resolve().parent.parent
    spec = configparser.ConfigParser()
    spec.read(root / "buildozer.spec")
    app = spec["app"]
    assert app["orientation"] == "landscape" and app["android.wakelock"] == "True"
    assert "CAMERA" in app["android.permissions"]
    assert "android.hardware.usb.host" in app["android.features"]
    needs = {r.split("==")[0] for r in app["requirements"].split(",")}
    assert {"kivy", "pyserial", "pyyaml", "numpy", "opencv", "platformdirs", "usb4a",
            "usbserial4a"} <= needs
    assert (root / app["android.manifest.intent_filters"]).is_file()
    # the tablet's package leaves the tower's MicroPython firmware and the test tools out
    excluded = {d.strip() for d in app["source.exclude_dirs"].split(",")}
    assert {"tests", "bench", "firmware_bridge/testing", "firmware_bridge/tower/firmware"} <= excluded
    assert (root / "main.py").is_file() and "run_app" in (root / "main.py").read_text()
    # the shipped tower's USB ids open the app when it is plugged in
    tower = loads_typed(DiceTowerConfig, *files.shipped_config_text("dice_tower"))
    devices = ET.parse(root / app["android.res_xml"]).getroot().findall("usb-device")
    ids = {(int(d.get("vendor-id")), int(d.get("product-id"))) for d in devices}
    assert (tower.usb.vid, tower.usb.pid) in ids
