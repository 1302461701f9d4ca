"""Translation for the words of :mod:`tabletop_base` (and of ``vision``, which may use it):
``_`` is the identity until the app installs its translator (:mod:`companion.i18n` does on
import), so this package stays free of ``companion`` and of gettext catalogues."""

from __future__ import annotations

from collections.abc import Callable


def _identity(message: str) -> str:
    return message


_translate: Callable[[str], str] = _identity


def _(message: str) -> str:
    """``message`` in the language the app speaks (the message itself before it says)."""
    return _translate(message)


def install(translate: Callable[[str], str]) -> None:
    """Translate this package's messages with ``translate`` from now on."""
    global _translate
    _translate = translate
