"""The players' words in their language: gettext catalogues shipped with the app.

Python code calls ``_("Undo")`` (or ``ngettext(singular, plural, n)`` for counts) where the
text is built, so it is translated at call time; module-level constants are marked with
``N_()`` and translated with ``_()`` when shown. Placeholders are named (``%(name)s`` or
``{name}``) so that a translator can reorder them.

Kivy language files use ``#:import tr companion.i18n.tr`` and ``text: tr._("Undo")``: ``tr``
remembers the kv rules that call it and re-evaluates them when the language is switched.

The catalogues are ``companion/locale/<code>/LC_MESSAGES/companion.mo`` (package data, read
with :mod:`importlib.resources`). The language is the system's by default, English when the
system's is not one the app has. This module does not import Kivy until ``tr`` is first
used, so the rule engines can use ``_`` and stay free of it.
"""

from __future__ import annotations

import gettext
import locale
import logging
import os
from collections.abc import Callable
from importlib import resources
from typing import Any

from tabletop_base import words

DOMAIN = "companion"
FALLBACK = "en"
# each language the app speaks, in its own words (what the language switch shows)
LANGUAGES: dict[str, str] = {"en": "English", "fr": "Français"}
SYSTEM = "system"

log = logging.getLogger(__name__)

_translation: gettext.NullTranslations = gettext.NullTranslations()
_language = FALLBACK
_listeners: list[Callable[[], None]] = []
_misses: set[str] | None = None     # recording: each message the catalogue lacked


def _missed(key: Any, message: str) -> None:
    """Note ``message`` when the current catalogue has no translation for it (``key``: the
    catalogue's key, a msgid, (msgid, n) for plurals, or "context\x04msgid")."""
    catalog = getattr(_translation, "_catalog", None)
    if _misses is not None and catalog is not None and message and key not in catalog:
        _misses.add(message)


def _(message: str) -> str:
    """``message`` in the current language."""
    if _misses is not None:
        _missed(message, message)
    return _translation.gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    """The form of ``singular``/``plural`` that the current language uses for ``n``."""
    if _misses is not None:
        _missed((singular, 0), singular)
    return _translation.ngettext(singular, plural, n)


def pgettext(context: str, message: str) -> str:
    """``message`` in the current language, told apart from the same English word used
    elsewhere by ``context``."""
    if _misses is not None:
        _missed(f"{context}\x04{message}", message)
    return _translation.pgettext(context, message)


def record_misses() -> set[str]:
    """From now on, collect in the returned set every message looked up that the current
    language's catalogue does not translate (what a player would read in English on a French
    screen); :func:`stop_recording` ends it. English has no catalogue: nothing is a miss."""
    global _misses
    _misses = set()
    return _misses


def stop_recording() -> None:
    global _misses
    _misses = None


def N_(message: str) -> str:
    """Marks ``message`` for translation without translating it (module-level constants:
    translate them with ``_()`` where they are shown)."""
    return message


def decimal(value: float, spec: str) -> str:
    """``value`` formatted with ``spec`` (e.g. ".2f") and the current language's decimal
    mark: 0.25 in English, 0,25 in French."""
    return format(value, spec).replace(".", pgettext("decimal mark", "."))


def grouped(n: int) -> str:
    """``n`` with the current language's thousands separator: 300,000 or 300 000."""
    return f"{n:,}".replace(",", pgettext("thousands separator", ","))


def ordinal(n: int) -> str:
    """``n`` as a place in the current language: 1st, 2nd... or 1er, 2e..."""
    if _language == "fr":
        return "1er" if n == 1 else f"{n}e"
    if n % 100 in (11, 12, 13):
        return f"{n}th"
    return f"{n}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th') }"


def system_language() -> str:
    """The code of the system's language if the app speaks it, else English."""
    for code in _system_codes():
        lang = code.split(".")[0].split("@")[0].replace("-", "_").split("_")[0].lower()
        if lang in LANGUAGES:
            return lang
        if lang and lang not in ("c", "posix"):
            return FALLBACK
    return FALLBACK


def _system_codes() -> list[str]:
    codes: list[str] = []
    for var in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = os.environ.get(var)
        if value:
            codes.extend(value.split(":"))
            break
    try:
        from tabletop_base.platform import on_android
        if on_android():    # pragma: no cover - the Android app only
            from jnius import autoclass
            codes.insert(0, str(autoclass("java.util.Locale").getDefault().getLanguage()))
    except Exception:       # pragma: no cover - no Java bridge: the environment decides
        pass
    try:
        found = locale.getlocale(locale.LC_MESSAGES)[0] if hasattr(locale, "LC_MESSAGES") else None
    except ValueError:
        found = None
    if found:
        codes.append(found)
    return codes


def language() -> str:
    """The code of the language the app speaks now (``"en"`` or ``"fr"``)."""
    return _language


def catalogue_path(code: str) -> Any:
    """The compiled catalogue of ``code`` (a Traversable: a file in a checkout or wheel)."""
    return resources.files("companion") / "locale" / code / "LC_MESSAGES" / f"{DOMAIN}.mo"


def _load(code: str) -> gettext.NullTranslations:
    path = catalogue_path(code)
    try:
        with path.open("rb") as fp:
            return gettext.GNUTranslations(fp)
    except FileNotFoundError:
        if code != FALLBACK:
            log.warning("i18n: no catalogue for %r (%s): the app speaks English", code, path)
        return gettext.NullTranslations()
    except (OSError, ValueError, UnicodeDecodeError) as e:
        log.warning("i18n: the catalogue %s cannot be read (%s): the app speaks English", path, e)
        return gettext.NullTranslations()


def set_language(code: str | None) -> str:
    """Speak ``code`` (``"en"``, ``"fr"``; ``None`` or ``"system"``: the system's language)
    from now on: every kv rule using ``tr._`` is re-evaluated and every listener told.
    Returns the code of the language now spoken."""
    global _translation, _language
    if code is None or code == SYSTEM:
        code = system_language()
    if code not in LANGUAGES:
        raise ValueError(f"language {code!r} is not one the app speaks "
                         f"({', '.join(sorted(LANGUAGES))} or {SYSTEM!r})")
    _translation = _load(code)
    _language = code
    words.install(_)
    if _tr is not None:
        _tr.switched()
    for callback in list(_listeners):
        callback()
    return code


def subscribe(callback: Callable[[], None]) -> Callable[[], None]:
    """Call ``callback()`` after each language switch (for text built in Python); returns a
    function that unsubscribes it."""
    _listeners.append(callback)

    def unsubscribe() -> None:
        if callback in _listeners:
            _listeners.remove(callback)
    return unsubscribe


_tr: Any = None


def _make_tr() -> Any:
    """The kv-side translator: a Kivy ``Observable`` whose ``_`` kv rules bind to. Kivy's
    rule builder calls ``fbind("_", ...)`` for ``tr._(...)`` and ``unbind_uid`` when the
    widget goes; a switch calls the recorded rules again (the Kivy gettext example's
    pattern)."""
    from kivy.event import Observable

    class Translator(Observable):
        def __init__(self) -> None:
            super().__init__()
            self._observers: dict[int, tuple[Callable[..., Any], tuple[Any, ...], dict[str, Any]]] = {}
            self._next_uid = 1

        def _(self, message: str) -> str:
            return _(message)

        def ngettext(self, singular: str, plural: str, n: int) -> str:
            return ngettext(singular, plural, n)

        @property
        def language(self) -> str:
            return _language

        def fbind(self, name: str, func: Callable[..., Any], *largs: Any, **kwargs: Any) -> int:
            if name in ("_", "ngettext"):
                uid = self._next_uid
                self._next_uid += 1
                self._observers[uid] = (func, largs, kwargs)
                return uid
            return super().fbind(name, func, *largs, **kwargs)

        def funbind(self, name: str, func: Callable[..., Any], *largs: Any, **kwargs: Any) -> None:
            if name in ("_", "ngettext"):
                for uid, seen in self._rules():
                    if seen == (func, largs, kwargs):
                        del self._observers[uid]
                return
            super().funbind(name, func, *largs, **kwargs)

        def unbind_uid(self, name: str, uid: int) -> None:
            if name in ("_", "ngettext"):
                self._observers.pop(uid, None)
                return
            super().unbind_uid(name, uid)

        def _rules(self) -> list[tuple[int, tuple[Callable[..., Any], tuple[Any, ...], dict[str, Any]]]]:
            """The rules recorded, listed with the collector held off: listing them makes
            objects, so it could run in the middle and let go of a collected widget's rule
            (Kivy calls unbind_uid then), changing what is being listed."""
            import gc

            was = gc.isenabled()
            gc.disable()
            try:
                return list(self._observers.items())
            finally:
                if was:
                    gc.enable()

        def switched(self) -> None:
            for uid, (func, largs, kwargs) in self._rules():
                try:
                    func(*largs, self, None, **kwargs)
                except ReferenceError:      # the rule's widget is gone
                    self._observers.pop(uid, None)

    return Translator()


def __getattr__(name: str) -> Any:
    global _tr
    if name == "tr":
        if _tr is None:
            _tr = _make_tr()
        return _tr
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


set_language(None)
