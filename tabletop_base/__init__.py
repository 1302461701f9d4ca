"""What the companion app, the camera (``vision``) and the dice tower link
(``firmware_bridge``) may all build on without importing each other:

* :mod:`tabletop_base.errors`: the base class of every error shown to a user, and the
  located errors (a config file's file, line and key; a journal's file and line);
* :mod:`tabletop_base.typed_yaml`: YAML read into frozen dataclasses, every error located;
* :mod:`tabletop_base.threads`: one thread for numpy's matrix products, set by each program's
  entry point before numpy is imported.

Nothing here imports Kivy, pyserial, OpenCV or any of the three packages above.
"""
