"""Tabletop Companion: tracks the tokens and dials of five board games beside a real table."""

from tabletop_base.threads import one_blas_thread

# before numpy is imported (the Tray view's dice reader): tabletop_base/threads.py says why.
# Here, not in cli.py: the `companion` command and `python -m companion` both start here
one_blas_thread()


__version__ = "0.1.0"
