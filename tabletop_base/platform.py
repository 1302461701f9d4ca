"""Which system the app runs on, for the few places that differ (no Kivy import: the Android
app's Python is started by python-for-android, which sets ``ANDROID_ARGUMENT``)."""

from __future__ import annotations

import os
import sys


def on_android() -> bool:
    """True inside the Android app (python-for-android, or a CPython built for Android)."""
    return "ANDROID_ARGUMENT" in os.environ or hasattr(sys, "getandroidapilevel")
