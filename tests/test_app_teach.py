"""Teaching the camera tower from the tablet, in the real app window (Xvfb): the dice panel's
Teach a die, Danchie Go's spawn die picked, rendered throws played into the camera tower on a
real pseudo-terminal, every picture answered by tapping its face (one wrong tap undone, one
picture skipped), until the screen says Saved; the saved profile then reads a new throw. The
Tray view shows the tower's snapshot. A 1.1 tower hides teaching and says why."""

from __future__ import annotations

from collections import Counter

import pytest

from tests.camera_teach_support import empty_tray_profile, spawn_throw, true_face
from tests.camera_tower_support import PtyCameraTower, throw
from tests.gui_support import TOWER_URL, close_popups, on_screen, pump, tap, wait_for
from vision.dice import DiceReader, Profile

pytestmark = pytest.mark.gui


@pytest.fixture
def camera_tower(app, tmp_path):
    """A camera tower on a pty; the app's link moved onto it and back afterwards."""
    def start(profile=None, profile_path=None) -> PtyCameraTower:
        workdir = tmp_path / f"tower{len(started)}"
        workdir.mkdir()
        tower = PtyCameraTower(workdir, profile=profile, seed=len(started) + 71)
        if profile_path is not None:
            tower.tower.teacher.profile_path = profile_path
        started.append(tower)
        wait_for(lambda: app.roll_journal is not None, what="the tower link's start")
        app.connect_tower(tower.path)
        wait_for(lambda: app.tower_state == "connected" and not app.teach_why, timeout=10,
                 what=lambda: f"the camera tower ({app.tower_state}: {app.tower_detail})")
        return tower

    started: list[PtyCameraTower] = []
    yield start
    app.go("home")
    app.connect_tower(TOWER_URL)
    for tower in started:
        tower.stop()
    wait_for(lambda: app.tower_state == "connected", timeout=10, what="back on sim://")


def face_button(screen, face):
    return next(b for b in screen.ids.face_buttons.children if b.face == face)


def test_teaching_a_die_from_the_first_picture_to_saved(app, camera_tower, tmp_path):
    saved = tmp_path / "tower.yaml"
    tower = camera_tower(empty_tray_profile(), saved)
    app.go("dice")
    panel = app.root.get_screen("dice")
    wait_for(lambda: not panel.ids.teach.disabled, what="Teach a die enabled")
    assert panel.ids.teach.text == "Teach a die"
    tap(panel.ids.teach)
    wait_for(lambda: on_screen(app, "teach"), what="the teach screen")
    teach = app.root.get_screen("teach")
    labels = {b.text: b for b in teach.ids.kinds.children}
    assert {"King of Tokyo Duel die", "Takkure D12", "Danchie Go spawn die"} <= set(labels)
    rolls_before = list(app.roll_history)  # (the app is shared: earlier tests' rolls)
    tap(labels["Danchie Go spawn die"])
    wait_for(lambda: teach.phase == "teaching" and teach.message == "throw the dice",
             what="teaching on the tower")
    assert teach.ids.progress.text.startswith("Tile under you: 0/3 (3 more)")
    assert "Tile on Spawn (1): 0/3" in teach.ids.progress.text      # two faces that read alike
    assert "Tile on Spawn (2): 0/3" in teach.ids.progress.text      # are told apart by number
    assert "_" not in teach.ids.progress.text
    assert teach.ids.prompt.text == "Throw the dice through the tower"
    assert teach.ids.skip.disabled and teach.ids.undo.disabled
    seed, undone, skipped = 100, False, False
    teacher = tower.tower.teacher
    while teach.phase != "saved":
        assert seed < 125, f"not saved after 25 throws: {teach.message} {teach.faces}"
        frames, truth = spawn_throw(seed)
        seed += 1
        tower.play(frames)
        wait_for(lambda: not tower.source._frames and not teacher.streaming, timeout=30,
                 what="the throw read by the tower")
        wait_for(lambda: teach.waiting == len(teacher.waiting), timeout=10,
                 what="the throw's pictures on the tablet")
        while teach.picture_id and teach.phase == "teaching":
            pic = teach.current()
            assert teach.ids.picture.texture is not None and teach.ids.picture.opacity == 1
            assert teach.ids.prompt.text == "Which face is on top of the ringed die?"
            face = true_face(truth, pic.x, pic.y)
            buttons = list(teach.ids.face_buttons.children)
            assert len(buttons) == 6 and all(b.height >= 48 for b in buttons)
            assert not any("_" in b.text for b in buttons)     # players' words, not ids
            if not undone:  # a wrong tap, then Undo last answer: the die comes back
                wrong = next(f for f, _ in teach.faces if f != face)
                tap(face_button(teach, wrong))
                wait_for(lambda wrong=wrong: dict(teach.faces)[wrong] == 1, what="the wrong answer")
                assert not teach.ids.undo.disabled
                tap(teach.ids.undo)
                wait_for(lambda wrong=wrong, pic=pic: dict(teach.faces)[wrong] == 0
                         and teach.picture_id and teach.current().jpeg == pic.jpeg,
                         what="the die asked again")
                undone = True
                continue
            if not skipped:
                skipped = True
                n = teach.waiting
                tap(teach.ids.skip)
                wait_for(lambda n=n: teach.waiting == n - 1, what="skipped")
                continue
            before = dict(teach.faces)[face]
            tap(face_button(teach, face))
            wait_for(lambda face=face, before=before: dict(teach.faces)[face] == before + 1
                     or teach.phase == "saved",
                     what=f"{face} counted")
    wait_for(lambda: teach.ids.saved.shown, what="Saved on screen")
    assert teach.ids.saved_title.text == "Saved"
    assert "saved tower.yaml" in teach.message
    # the teaching throws are not rolls (compared with the history before: the app is shared
    # with the other tests, whose last roll may well be a spawn die's)
    assert list(app.roll_history) == rolls_before
    # the profile the tower saved reads a throw it never saw
    frames, truth = spawn_throw(300)
    readings = DiceReader(Profile.load(saved)).read(frames[-6])
    assert Counter(r.face for r in readings if r.status == "clean") == Counter(
        t.face for t in truth)
    tap(teach.ids.done)
    wait_for(lambda: on_screen(app, "dice"), what="back on the dice panel")


def test_takkures_d12_is_taught_with_its_colour_red_or_yellow(app, camera_tower, tmp_path):
    from tests.camera_tower_support import STYLE
    from vision.dice.render import throw_sequence

    tower = camera_tower(empty_tray_profile(), tmp_path / "tower.yaml")
    app.go("teach")
    teach = app.root.get_screen("teach")
    wait_for(lambda: on_screen(app, "teach"), what="the teach screen")
    tap(next(b for b in teach.ids.kinds.children if b.text == "Takkure D12"))
    wait_for(lambda: teach.phase == "teaching" and teach.message == "throw the dice",
             what="teaching on the tower")
    assert teach.colours == ["red", "yellow"]
    frames = throw_sequence(7, n_dice=3, kinds=["d12"], style=STYLE)
    settled = next(f for f in frames if f.phase == "settled")
    teacher = tower.tower.teacher
    tower.play([f.image for f in frames])
    wait_for(lambda: not tower.source._frames and not teacher.streaming, timeout=30,
             what="the throw read by the tower")
    wait_for(lambda: teach.waiting == len(teacher.waiting) > 0, timeout=10,
             what="the throw's pictures on the tablet")
    colours = {b.text: b for b in teach.ids.colour_buttons.children}
    assert set(colours) == {"Red", "Yellow"} and all(b.height >= 48 for b in colours.values())
    assert all(b.disabled for b in teach.ids.face_buttons.children)  # the colour first
    assert teach.ids.message.text == "Tap the die's colour, then its face"
    answered = []
    while teach.picture_id:
        pic = teach.current()
        die = min(settled.truth, key=lambda t: (t.x - pic.x) ** 2 + (t.y - pic.y) ** 2)
        if teach.colour != die.colour:
            tap(next(b for b in teach.ids.colour_buttons.children if b.colour == die.colour))
            wait_for(lambda c=die.colour: teach.colour == c, what="the colour picked")
        n = sum(dict(teach.faces).values())
        tap(face_button(teach, die.face))  # the colour stays picked for the next picture
        wait_for(lambda n=n: sum(dict(teach.faces).values()) == n + 1, what="the answer taken")
        answered.append(die.colour)
    profile = tower.tower.profile
    assert Counter({c: len(v) for c, v in profile.colours.items()}) == Counter(answered)
    tap(teach.ids.cancel)  # nothing saved: the colours go with the faces
    wait_for(lambda: profile.colours == {} and "d12" not in profile.kinds,
             what="teaching stopped on the tower")


def test_cancel_stops_teaching_on_the_tower(app, camera_tower):
    tower = camera_tower(empty_tray_profile(), None)
    tower.tower.teacher.profile_path = tower.ring.with_name("p.yaml")
    app.go("teach")
    teach = app.root.get_screen("teach")
    pump(3)
    teach.ids.new_name.text = "coin"
    teach.ids.new_faces.text = "HEADS, TAILS"
    tap(teach.ids.new_start)
    wait_for(lambda: teach.phase == "teaching" and dict(teach.faces) == {"HEADS": 0, "TAILS": 0}
             and tower.tower.teacher.teaching, what="teaching a coin")
    assert teach.ids.face_buttons.children  # HEADS and TAILS buttons
    tap(teach.ids.cancel)
    wait_for(lambda: on_screen(app, "dice") and not tower.tower.teacher.teaching,
             what="teaching stopped on the tower")
    assert "coin" not in tower.tower.profile.kinds
    # a stop lost on the way (here: teaching started behind the screen's back) is sent again
    # when the tower's next status says it is still teaching: its throws must be rolls
    app.tower_link.teach_start("coin", ["HEADS", "TAILS"])
    wait_for(lambda: tower.log.count("teaching 'coin'") == 2, what="the tower teaching")
    wait_for(lambda: not tower.tower.teacher.teaching, timeout=5, what="stopped again")
    assert "coin" not in tower.tower.profile.kinds
    # a kind without faces is refused on the tablet, before the tower
    app.go("teach")
    pump(3)
    teach.ids.new_name.text = "coin"
    teach.ids.new_faces.text = "HEADS"
    tap(teach.ids.new_start)
    assert teach.phase == "pick" and "two or more different faces" in teach.ids.pick_problem.text


def test_the_tray_view_shows_the_towers_snapshot(app, camera_tower):
    tower = camera_tower()
    frames, _ = throw(21, 3)
    before = app.last_roll
    tower.play(frames[:-4])  # the dice stay in the tray
    wait_for(lambda: app.last_roll is not before and app.last_roll
             and all(d.get("kind") == "kotd" for d in app.last_roll), timeout=30,
             what="the throw read")
    app.go("dice")
    panel = app.root.get_screen("dice")
    wait_for(lambda: on_screen(app, "dice") and not panel.ids.tray.disabled, what="the panel")
    pump(10)
    tap(panel.ids.tray)
    wait_for(lambda: on_screen(app, "tray"), what="the Tray view")
    tray = app.root.get_screen("tray")
    wait_for(lambda: tray.has_picture, timeout=10, what="a snapshot")
    assert tray.ids.picture.texture is not None
    assert tray.ids.caption.text == "What the tower sees: 3 dice, 3 clean"
    n = tray.snapshots
    tap(tray.ids.refresh)
    wait_for(lambda: tray.snapshots > n, what="a refreshed snapshot")
    # the last roll kept each die's confidence
    assert all(0.5 <= d["confidence"] <= 1 for d in app.last_roll)
    # back to the panel, the dice taken out, the Tray view again: the earlier picture is not
    # shown as what the tray holds now; "asking the tower" until the new one comes
    tap(tray.ids.back)
    wait_for(lambda: on_screen(app, "dice"), what="the panel again")
    tower.play(frames[-4:])
    wait_for(lambda: tower.source.idle, what="the dice taken out")
    shown = tray.snapshots
    tap(panel.ids.tray)
    if tray.snapshots == shown:  # (on a loaded machine the answer can come within the tap)
        assert not tray.has_picture
        assert tray.ids.caption.text == "Asking the tower for a picture…"
    wait_for(lambda: tray.snapshots > shown, timeout=10, what="this visit's snapshot")
    assert tray.ids.caption.text == "What the tower sees: the tray is empty"


def test_a_1_1_tower_offers_the_demo_and_says_why(app, pty_tower):
    app.go("dice")
    panel = app.root.get_screen("dice")
    wait_for(lambda: "1.1" in app.teach_why, what="the reason")
    # it cannot be taught: both buttons offer the demo camera tower, and say why first
    assert panel.ids.teach.text == "Teach a die (demo)"
    assert panel.ids.tray.text == "Tray view (demo)"
    tap(panel.ids.teach)
    wait_for(lambda: app.popup is not None, what="the demo's offer")
    assert ("this tower speaks protocol 1.1; teaching needs 1.2 (a camera tower)"
            in app.popup.content.message)
    close_popups(app)
    assert not app.tower_demo
    app.go("home")


def test_the_towers_word_on_an_oddly_sized_picture_is_said_in_the_players_language(app):
    from companion.app.screens.teach import tower_message

    said = "4: thanks; found larger than the others (61 pixels across, usually 44)"
    assert tower_message(said) == ("4: thanks. That die looked larger than the others: if its "
                                   "picture shows a shadow or glare, undo and skip it")
    assert "only part of it" in tower_message("4: thanks; found smaller than the others (20 "
                                              "pixels across, usually 44)")
    assert tower_message("4: thanks") == "4: thanks"
    app.set_language("fr")
    try:
        assert tower_message(said).startswith("4 : merci. Ce dé paraissait plus grand")
    finally:
        app.set_language("en")
