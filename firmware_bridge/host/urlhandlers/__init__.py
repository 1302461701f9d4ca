"""pyserial URL handlers of the bridge; importing this package registers them.

``serial.serial_for_url("sim://demo")`` then opens an in-process simulated tower
(``protocol_sim.py``), exactly as ``socket://`` or ``loop://`` open pyserial's own, and
``android://`` a USB serial device through Android's USB host API (``protocol_android.py``,
which needs ``usbserial4a`` and so works only in the Android app). pyserial imports a handler
module only when a URL of its scheme is opened.
"""

import serial

if __name__ not in serial.protocol_handler_packages:
    serial.protocol_handler_packages.append(__name__)
