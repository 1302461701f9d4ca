"""Test and bench tools of the dice tower link; neither the tablet nor the tower needs them
(the app's wheel leaves this package out).

``ptyport`` (a pseudo-terminal standing in for a serial port), ``mpy_tower`` (the reference
firmware under the MicroPython unix port, behind a pty), ``soak`` (the link soak through a
faulty simulated tower), ``camera_bench`` (the camera tower's latency bench). They may import
``wire``, ``host`` and ``tower``; nothing there imports them.
"""
