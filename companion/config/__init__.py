"""The YAML files shipped with the app (this folder, package data read with
:mod:`importlib.resources`, so they are found in a checkout, a wheel or an APK alike), and the
typed YAML loader, defined in :mod:`tabletop_base.typed_yaml` so that ``vision`` loads its
table and camera files the same way without importing ``companion``.

The user's edited copies live in the user's data folder (``<data>/config/NAME.yaml``); see
:func:`companion.files.config_source`.
"""

from __future__ import annotations

from tabletop_base.typed_yaml import dump_yaml, load_typed, loads_typed

__all__ = ["dump_yaml", "load_typed", "loads_typed"]
