"""``android://[DEVICE][?vid=0x1209&pid=0x0001]``: a USB serial device on an Android tablet.

Android gives apps no ``/dev/tty*`` for a USB device: the app talks to it through the USB host
API, which ``usbserial4a`` (on ``usb4a`` and pyjnius) wraps as a pyserial port. This handler
makes that port one more pyserial URL, registered the pyserial way (the ``urlhandlers``
package is in ``serial.protocol_handler_packages``, and pyserial imports this module only
when an ``android://`` URL is opened), so the link opens it like any other port.

* ``android://`` opens the first USB device (the tower is the only one plugged in);
  ``?vid=..&pid=..`` picks the device with those USB ids (hex or decimal);
  ``android:///dev/bus/usb/001/002`` names the device as Android lists it.
* The first time, Android asks the player whether the app may use the device: opening fails
  with a clear message until they accept, and the link simply tries again.

``usb4a`` and ``usbserial4a`` are imported when a port is opened, so this module loads
anywhere; on any other system opening a port says that it exists only on Android.
"""

from __future__ import annotations

import importlib
import urllib.parse
from typing import Any

from serial.serialutil import PortNotOpenError, SerialBase, SerialException


def parse_url(url: str) -> tuple[str | None, int | None, int | None]:
    """(device name or None, vid or None, pid or None) of an ``android://`` URL."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme != "android":
        raise SerialException(f"{url!r}: not an android:// URL")
    device = (parts.netloc + parts.path) or None
    vid = pid = None
    for key, values in urllib.parse.parse_qs(parts.query, keep_blank_values=True).items():
        if key not in ("vid", "pid"):
            raise SerialException(f"{url!r}: unknown option {key!r} (vid, pid)")
        try:
            number = int(values[-1], 0)
        except ValueError:
            raise SerialException(f"{url!r}: {key}={values[-1]!r} is not a USB id") from None
        if not 0 <= number <= 0xFFFF:
            raise SerialException(f"{url!r}: {key}={values[-1]} is not a USB id (0 to 0xffff)")
        if key == "vid":
            vid = number
        else:
            pid = number
    return device, vid, pid


def _android_modules() -> tuple[Any, Any]:
    try:
        usb = importlib.import_module("usb4a.usb")
        serial4a = importlib.import_module("usbserial4a.serial4a")
    except ImportError:
        raise SerialException("android:// ports exist only in the Android app "
                              "(usb4a and usbserial4a are not installed here)") from None
    return usb, serial4a


def find_device(usb: Any, device: str | None, vid: int | None, pid: int | None) -> Any:
    """The Android UsbDevice the URL names (SerialException naming what is plugged in)."""
    devices = list(usb.get_usb_device_list() or [])
    for d in devices:
        if device is not None and d.getDeviceName() != device:
            continue
        if vid is not None and d.getVendorId() != vid:
            continue
        if pid is not None and d.getProductId() != pid:
            continue
        return d
    seen = ", ".join(f"{d.getDeviceName()} ({d.getVendorId():04x}:{d.getProductId():04x})"
                     for d in devices) or "none"
    wanted = device or (f"{vid or 0:04x}:{pid or 0:04x}" if vid or pid else "any")
    raise SerialException(f"no USB device {wanted} is plugged in (plugged in: {seen})")


class Serial(SerialBase):
    """A pyserial port on an Android USB serial device."""

    is_open: bool

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._port_impl: Any = None
        super().__init__(*args, **kwargs)

    def open(self) -> None:
        if self._port is None:
            raise SerialException("port must be configured before use")
        if self.is_open:
            raise SerialException("port already open")
        device_name, vid, pid = parse_url(self._port)
        usb, serial4a = _android_modules()
        device = find_device(usb, device_name, vid, pid)
        if not usb.has_usb_permission(device):
            usb.request_usb_permission(device)
            raise SerialException("the tablet is asking whether this app may use the dice "
                                  "tower: accept, and it connects")
        try:
            port = serial4a.get_serial_port(device.getDeviceName(), self._baudrate,
                                            self._bytesize, self._parity, self._stopbits,
                                            timeout=self._timeout)
        except Exception as exc:  # noqa: BLE001 - the driver's own errors are not pyserial's
            raise SerialException(f"{device.getDeviceName()}: cannot be opened ({exc})") from None
        if port is None or not getattr(port, "is_open", False):
            raise SerialException(f"{device.getDeviceName()}: cannot be opened")
        self._port_impl = port
        self.is_open = True

    def _reconfigure_port(self) -> None:
        if self._port_impl is not None:
            self._port_impl.baudrate = self._baudrate
            self._port_impl.timeout = self._timeout

    def close(self) -> None:
        if self._port_impl is not None:
            try:
                self._port_impl.close()
            finally:
                self._port_impl = None
        self.is_open = False

    def _impl(self) -> Any:
        if not self.is_open or self._port_impl is None:
            raise PortNotOpenError()
        return self._port_impl

    @property
    def in_waiting(self) -> int:
        return int(self._impl().in_waiting)

    def read(self, size: int = 1) -> bytes:
        try:
            return bytes(self._impl().read(size))
        except SerialException:
            raise
        except Exception as exc:  # noqa: BLE001 - an unplugged device raises Java errors
            raise SerialException(f"the dice tower's USB device stopped answering ({exc})") \
                from None

    def write(self, data: bytes) -> int | None:
        try:
            return self._impl().write(bytes(data))
        except SerialException:
            raise
        except Exception as exc:  # noqa: BLE001
            raise SerialException(f"the dice tower's USB device stopped answering ({exc})") \
                from None

    def reset_input_buffer(self) -> None:
        self._impl().reset_input_buffer()

    def reset_output_buffer(self) -> None:
        self._impl().reset_output_buffer()

    def flush(self) -> None:
        impl = self._impl()
        if hasattr(impl, "flush"):
            impl.flush()
