"""The Android app's entry point: buildozer (python-for-android) starts ``main.py`` at the top
of the source folder. On a computer, use the ``companion`` command instead."""

from companion.app.main import run_app

if __name__ == "__main__":
    run_app()
