"""What each game's screen shows, as plain values built from the session: Kivy-free, so that
it is tested in milliseconds without a window (``tests/test_views.py``); the screens in
``companion.app.screens`` only bind these values to widgets and forward taps.

One module per game (``views.<game>``) and :mod:`views.common` for what every game screen
shares (the undo and redo buttons).
"""
