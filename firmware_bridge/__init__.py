"""The dice tower link: protocol 1.3 (docs/protocol.md), split by where each part runs.

``wire`` (what both sides share: ``codec``, bytes <-> packets; ``messages``, packets <-> typed
messages), ``host`` (the tablet's side: the protocol state machine, the one reader loop that
owns the port, the fsynced roll journal), ``tower`` (the tower's side: the simulated tower's
logic, the camera tower, the reference firmware), ``testing`` (test and bench tools, not in
the wheel), and ``cli`` (``python -m firmware_bridge``). Nothing here imports Kivy or
``companion``.
"""
