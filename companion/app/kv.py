"""Kivy language files shipped as package data: read with :mod:`importlib.resources`, so a
screen's .kv is found in a checkout, an installed wheel or an APK alike."""

from __future__ import annotations

from importlib import resources

from kivy.lang import Builder


def load_kv(package: str, name: str) -> None:
    """Load ``name`` (a .kv file beside the modules of ``package``) once."""
    key = f"{package}:{name}"
    if key in Builder.files:
        return
    text = resources.files(package).joinpath(name).read_text(encoding="utf-8")
    Builder.load_string(text, filename=key)
