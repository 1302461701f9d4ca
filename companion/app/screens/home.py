"""Home: the game picker, "Resume" for the last unfinished game, and "Saved games"."""

from __future__ import annotations

from pathlib import Path

from kivy.app import App
from kivy.lang import Builder
from kivy.properties import ObjectProperty, StringProperty
from kivy.uix.screenmanager import Screen

# (title, enabled) - the games of the design card.
GAMES = (
    ("TEKKEN", True),
    ("Takkure", True),
    ("King of Tokyo Duel", True),
    ("Tag Team", True),
    ("Danchie Go", False),
)


class HomeScreen(Screen):
    resume_text = StringProperty("")          # "" hides the Resume button
    resume_path = ObjectProperty(None, allownone=True)

    def on_pre_enter(self, *args):
        app = App.get_running_app()
        if app is not None and app.status == "ready":
            app.find_unfinished(self.show_unfinished)

    def show_unfinished(self, saved) -> None:
        if saved is None:
            self.resume_text, self.resume_path = "", None
        else:
            self.resume_text = f"Resume: {saved.summary}"
            self.resume_path = saved.path

    def pick(self, title: str) -> None:
        app = App.get_running_app()
        if title == "TEKKEN":
            app.go("tekken_setup")
        elif title == "Takkure":
            app.load_takkure(lambda: app.go("takkure_setup"))
        elif title == "King of Tokyo Duel":
            app.load_kotd(lambda: app.go("kotd_setup"))
        elif title == "Tag Team":
            app.load_tagteam(lambda: app.go("tagteam_setup"))
        elif title == "Danchie Go":
            app.load_danchie(lambda: app.go("danchie_setup"))

    def resume(self) -> None:
        if self.resume_path is not None:
            App.get_running_app().open_game(self.resume_path)


Builder.load_file(str(Path(__file__).with_name("home.kv")))
