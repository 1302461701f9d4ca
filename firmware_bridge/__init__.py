"""The dice tower link: protocol 1.2 (docs/protocol.md) on the host side, a simulated tower,
the camera tower and the reference firmware.

Layers, each usable alone: ``codec`` (bytes <-> packets), ``messages`` (packets <-> typed
messages), ``protocol`` (the host's state machine, no I/O), ``link`` (the one reader loop that
owns the port), ``rolls`` (the fsynced roll journal). Nothing here imports Kivy or
``companion``.
"""
