"""The Kivy tablet app. Importing this package does not import Kivy; ``main`` does.

Run it with ``python -m companion.app.main`` (or ``run_app()``).
"""

from __future__ import annotations

__all__ = ["CompanionApp", "run_app"]


def __getattr__(name: str):
    if name in __all__:
        from . import main
        return getattr(main, name)
    raise AttributeError(name)
