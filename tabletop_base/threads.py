"""One thread for numpy's matrix products, set before numpy is first imported.

The dice reader's products are small (a die's features against a face's few taught
pictures: 81 x 576 by 576 x 216). OpenBLAS spreads each over every core, and on a core
another process is using (the camera's capture, the tablet's screen, a second program) its
threads wait on each other: on a busy two-core host one such product took 16 ms instead of
0.5, and a whole `dice read` 155 ms at the median instead of 55 to 78 (docs/vision.md,
"Speed"). Called first by each program's entry point (``python -m vision``, ``python -m
firmware_bridge``, ``python -m companion``); a setting the user made is kept."""

from __future__ import annotations

import os

BLAS_THREADS = ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def one_blas_thread() -> None:
    for name in BLAS_THREADS:
        os.environ.setdefault(name, "1")
