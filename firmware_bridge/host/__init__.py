"""The tablet's (host's) side of the dice tower link (docs/protocol.md).

``protocol`` (the host's state machine, no I/O), ``link`` (the one reader loop that owns the
port), ``rolls`` (the fsynced roll journal), ``events`` (what the link tells the app),
``discovery`` (finding the tower's serial port), ``urlhandlers`` (pyserial's ``sim://`` and
``android://``). Built on ``firmware_bridge.wire``; imports nothing of ``firmware_bridge.tower``
except where the ``sim://`` handler opens a simulated tower in-process.
"""
