"""The dice tower's (device's) side of the link (docs/protocol.md, docs/tower.md).

``sim`` (the tower's protocol logic in CPython: ring, resends, heartbeats; the simulated
tower and its servers), ``camera_tower`` (the camera tower that runs on the tower's board,
with ``teach``: protocol 1.2's teaching), ``demo_camera`` (a rendered camera tower the app can
run in-process), ``firmware/`` (the reference firmware, MicroPython). Built on
``firmware_bridge.wire``; imports nothing of ``firmware_bridge.host`` or ``firmware_bridge.testing``.
"""
