"""The wire format both sides of the dice tower link share (docs/protocol.md): ``codec``
(bytes <-> checked packets: COBS, CRC-32) and ``messages`` (packets <-> typed messages).
No I/O; imports nothing else of ``firmware_bridge``."""
