"""The app's life on a tablet, in the real window (Xvfb): Android's pause and resume stop and
restart the dice tower's reader thread and the camera; unexpected errors are logged with
their traceback and the player reads a sentence; the log file is the user's alone."""

from __future__ import annotations

import logging
import os
import stat

import pytest

from tests.gui_support import close_popups, on_screen, tap, wait_for
from tests.test_app_takkure import card, choose_roll, new_match, screen

pytestmark = pytest.mark.gui


def test_pause_stops_the_tower_and_the_camera_and_resume_brings_them_back(app):
    game = new_match(app)
    tap(card(game, 0, 2).ids.ball)                        # only the carrier passes
    choose_roll(app, game, "Pass")
    tap(card(game, 0, 2).ids.pick)                        # Tetsu passes
    tap(game.ids.camera)
    wait_for(lambda: on_screen(app, "takkure_measure"), timeout=15, what="the measuring view")
    mv = screen(app, "takkure_measure")
    wait_for(lambda: mv.last_frame is not None, timeout=10, what="a frame")
    link, live = app.tower_link, mv.live
    assert link is not None and live.running

    assert app.on_pause() is True
    assert app.tower_link is None and app.tower_state == "stopped"
    assert not link.running                               # its reader thread ended
    assert mv.live is None and not live.running          # the camera is given back
    rolls = len(app.session.rolls)

    app.on_resume()
    wait_for(lambda: app.tower_state == "connected", timeout=10, what="the tower again")
    assert app.tower_link is not None and app.tower_link is not link
    wait_for(lambda: mv.live is not None and mv.live.running, timeout=15,
             what="the camera again")
    assert on_screen(app, "takkure_measure") and mv.action == "Pass: Tetsu"
    assert [mv.names[i] for i in mv.selected] == ["Tetsu"]   # the pick is kept
    app.simulated_roll("takkure")   # the new link takes throws (Takkure takes d12s)
    wait_for(lambda: len(app.session.rolls) == rolls + 1, what="a throw after resume")
    tap(mv.ids.back)
    wait_for(lambda: on_screen(app, "takkure_game"), what="back to the roll")


def test_a_failing_background_task_is_logged_and_told_in_a_sentence(app, caplog):
    close_popups(app)

    def work(root):
        return {}["missing"]                                 # a programming error

    failures = []
    with caplog.at_level(logging.ERROR, logger="companion.app.main"):
        app.in_background(work, lambda r: None, failures.append)
        wait_for(lambda: failures, what="the failure")
    shown = str(failures[0])
    assert shown == ("Something unexpected went wrong. Nothing was lost; the details are in "
                     "the app's log.")
    assert "KeyError" not in shown and isinstance(failures[0].__cause__, KeyError)
    record = next(r for r in caplog.records if "background task" in r.getMessage())
    assert record.exc_info[0] is KeyError

    def unreadable(root):
        raise PermissionError(13, "Permission denied", str(root / "games" / "g.jsonl"))

    failures.clear()
    app.in_background(unreadable, lambda r: None, failures.append)
    wait_for(lambda: failures, what="the failure")
    assert str(failures[0]) == ("The tablet could not read or write a file (g.jsonl): "
                                "Permission denied.")


def test_an_error_in_a_screens_code_does_not_close_the_app(app, caplog):
    from kivy.base import ExceptionManager

    from companion.app.main import KeepPlaying

    close_popups(app)
    with caplog.at_level(logging.ERROR, logger="companion.app.main"):
        outcome = KeepPlaying().handle_exception(ZeroDivisionError("division by zero"))
    assert outcome == ExceptionManager.PASS
    wait_for(lambda: app.popup is not None, what="the popup")
    assert app.popup.title == "Something went wrong"
    assert "division" not in app.popup.content.message
    assert any(r.exc_info and r.exc_info[0] is ZeroDivisionError for r in caplog.records)
    assert KeepPlaying().handle_exception(KeyboardInterrupt()) == ExceptionManager.RAISE
    close_popups(app)


def test_the_log_file_is_in_the_data_folder_and_private(app):
    from companion import logs

    path = logs.current_file()
    assert path is not None and path == app.data_root / "logs" / "companion.log"
    logging.getLogger("companion.test").warning("a line for the log file")
    for handler in logging.getLogger().handlers:
        handler.flush()
    assert "a line for the log file" in path.read_text(encoding="utf-8")
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(path.parent).st_mode) == 0o700
