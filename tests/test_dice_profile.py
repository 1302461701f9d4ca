"""Dice profiles on disk: saved and loaded whole; every damage named with file, key and line."""

from __future__ import annotations

import os
import re
import struct

import cv2
import numpy as np
import pytest

from vision.dice import DiceReader, Profile, ProfileError
from vision.dice.features import gradient_bank
from vision.dice.reader import rules_share
from vision.dice.render import SceneDie, TrayStyle, empty_tray, render_tray, single_die

STYLE = TrayStyle(tray_bgr=(96, 110, 112), perspective=2.0, seed=3, tray_seed=11)


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    folder = tmp_path_factory.mktemp("profile")
    p = Profile()
    for k in range(2):
        p.add_background(empty_tray(STYLE, seed=k))
    for i, face in enumerate(("CLAW", "HEART")):
        for j in range(2):
            frame, _ = single_die("kotd", face, "black", 10 * i + j, STYLE)
            p.add_example("kotd", face, frame, colour="black")
    p.add_example("d6pips", "3", single_die("d6pips", "3", "red", 5, STYLE)[0], colour="red")
    path = p.save(folder / "tower.yaml")
    return p, path


def fresh_copy(saved, tmp_path):
    """The saved profile copied to tmp_path (YAML and its folder), to damage."""
    _, path = saved
    text = path.read_text()
    (tmp_path / "tower.d").mkdir()
    for f in path.with_suffix(".d").rglob("*"):
        dest = tmp_path / "tower.d" / f.relative_to(path.with_suffix(".d"))
        if f.is_dir():
            dest.mkdir(exist_ok=True)
        else:
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_bytes(f.read_bytes())
    out = tmp_path / "tower.yaml"
    out.write_text(text)
    return out


def test_saved_profile_reads_the_same(saved):
    p, path = saved
    loaded = Profile.load(path)
    assert loaded.background_frames == 2 and loaded.image_size == (640, 480)
    assert {f: len(c) for f, c in loaded.kinds["kotd"].examples.items()} == {"CLAW": 2,
                                                                              "HEART": 2}
    assert loaded.missing("kotd") == p.missing("kotd") == {"CLAW": 1, "HEART": 1, "ENERGY": 3,
                                                           "FAME": 3, "DESTRUCTION": 3,
                                                           "POWER": 3}
    frame, _ = render_tray([SceneDie("kotd", "HEART", "black", 200, 240, 2.0),
                            SceneDie("d6pips", "6", "red", 430, 220, 0.5)],
                           STYLE.__class__(**{**STYLE.__dict__, "seed": 99}))
    before = [(r.kind, r.face, r.colour, r.status) for r in DiceReader(p).read(frame)]
    after = [(r.kind, r.face, r.colour, r.status) for r in DiceReader(loaded).read(frame)]
    assert before == after
    assert sorted(before) == [("d6pips", "6", "red", "clean"), ("kotd", "HEART", "black",
                                                                 "clean")]


def damage(path, old, new):
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))


def line_of(path, needle):
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if needle in line)


def test_unsupported_version_is_named(saved, tmp_path):
    path = fresh_copy(saved, tmp_path)
    damage(path, "dice_profile: 1", "dice_profile: 7")
    with pytest.raises(ProfileError, match=re.escape(f"{path}:2: dice_profile: unsupported "
                                                     f"version 7")):
        Profile.load(path)


def test_broken_yaml_gives_its_line(saved, tmp_path):
    path = fresh_copy(saved, tmp_path)
    damage(path, "  frames: 2", "  frames: [2")
    with pytest.raises(ProfileError, match=rf"^{re.escape(str(path))}:\d+: not valid YAML"):
        Profile.load(path)


def test_wrong_type_names_key_and_line(saved, tmp_path):
    path = fresh_copy(saved, tmp_path)
    damage(path, "  frames: 2", "  frames: two")
    line = line_of(path, "frames: two")
    with pytest.raises(ProfileError, match=re.escape(f"{path}:{line}: background.frames: "
                                                     f"expected int, got 'two'")):
        Profile.load(path)


def test_the_cameras_noise_is_saved_with_the_empty_tray(saved, tmp_path):
    p, path = saved
    assert p.background_noise is not None and len(p.background_noise) == 16
    assert Profile.load(path).background_noise == p.background_noise
    # a profile written before the noise was measured: no weave is told from noise
    old = fresh_copy(saved, tmp_path)
    old.write_text(re.sub(r"  noise:\n(  - .*\n)+", "", old.read_text()))
    assert "noise" not in old.read_text()
    assert Profile.load(old).background_noise is None


def test_a_bad_noise_curve_is_named(saved, tmp_path):
    path = fresh_copy(saved, tmp_path)
    path.write_text(re.sub(r"  noise:\n(  - .*\n)+", "  noise: [1.5, 2.0]\n", path.read_text()))
    line = line_of(path, "noise: [1.5")
    with pytest.raises(ProfileError, match=re.escape(f"{path}:{line}: background.noise: expected "
                                                     "16 spreads")):
        Profile.load(path)
    path.write_text(path.read_text().replace("noise: [1.5, 2.0]", "noise: [1.5, lots]"))
    with pytest.raises(ProfileError, match=re.escape("background.noise.1: expected a number, "
                                                     "got 'lots'")):
        Profile.load(path)


def test_missing_and_damaged_images_are_named(saved, tmp_path):
    path = fresh_copy(saved, tmp_path)
    (tmp_path / "tower.d" / "kotd" / "HEART-1.png").unlink()
    with pytest.raises(ProfileError, match=r"kinds\.kotd\.examples\.HEART\.1: cannot read "
                                           r".*HEART-1\.png"):
        Profile.load(path)
    (tmp_path / "b").mkdir()
    path = fresh_copy(saved, tmp_path / "b")
    bg = tmp_path / "b" / "tower.d" / "background.png"
    bg.write_bytes(bg.read_bytes()[:200])  # cut short
    line = line_of(path, "file: tower.d/background.png")
    with pytest.raises(ProfileError, match=re.escape(f"{path}:{line}: background.file: ")
                       + r".*background\.png is not a readable image"):
        Profile.load(path)


def test_unknown_key_and_face_are_refused(saved, tmp_path):
    path = fresh_copy(saved, tmp_path)
    damage(path, "image_size:", "colour_space: srgb\nimage_size:")
    with pytest.raises(ProfileError, match="colour_space: unknown key 'colour_space'"):
        Profile.load(path)
    path.write_text(path.read_text().replace("colour_space: srgb\n", "")
                    .replace("      HEART:\n", "      SKULL:\n"))
    with pytest.raises(ProfileError, match="kinds.kotd.examples.SKULL: kind 'kotd' has no "
                                           "face 'SKULL'"):
        Profile.load(path)


def test_a_missing_profile_says_how_to_make_one(tmp_path):
    with pytest.raises(ProfileError, match="no such profile .*dice background"):
        Profile.load(tmp_path / "nope.yaml")


def test_saved_crops_are_images_a_person_can_open(saved):
    _, path = saved
    crop = cv2.imread(str(path.with_suffix(".d") / "kotd" / "CLAW-0.png"), cv2.IMREAD_GRAYSCALE)
    assert crop.shape == (64, 64) and crop.std() > 10  # a face, not a blank


def test_the_taught_pictures_sharpness_is_kept(saved, tmp_path):
    # the reader judges blur against how sharp this tower's camera shows each kind
    p, path = saved
    loaded = Profile.load(path)
    for kind in ("kotd", "d6pips"):
        assert len(loaded.kinds[kind].sharpness) == len(p.kinds[kind].sizes)
        assert loaded.kinds[kind].usual_sharpness == pytest.approx(
            p.kinds[kind].usual_sharpness, abs=1e-3)
        assert loaded.kinds[kind].usual_sharpness > 0.3  # this renderer's dice are crisp
    # a profile taught before sharpness was kept has none: the fixed threshold applies
    old = fresh_copy(saved, tmp_path)
    lines, kept, skipping = old.read_text().splitlines(keepends=True), [], False
    for line in lines:
        if line == "    sharpness:\n":
            skipping = True
            continue
        if skipping and line.startswith("    - "):
            continue
        skipping = False
        kept.append(line)
    old.write_text("".join(kept))
    assert all(m.usual_sharpness is None for m in Profile.load(old).kinds.values())


def test_a_sharpness_that_is_no_number_is_named(saved, tmp_path):
    path = fresh_copy(saved, tmp_path)
    text = path.read_text()
    start = text.index("    sharpness:\n") + len("    sharpness:\n")
    line = text[:start].count("\n") + 1
    end = text.index("\n", start)
    path.write_text(text[:start] + "    - sharp" + text[end:])
    with pytest.raises(ProfileError, match=re.escape(f"{path}:{line}: kinds.")
                       + r"\w+" + re.escape(".sharpness.0: expected a number, got 'sharp'")):
        Profile.load(path)


def test_how_tilted_each_taught_die_looks_is_kept(saved, tmp_path):
    # the reader asks more of the tilt network in a tower whose flat dice look tilted
    p, path = saved
    loaded = Profile.load(path)
    for kind in ("kotd", "d6pips"):
        assert len(p.kinds[kind].leaning) == len(p.kinds[kind].sizes)
        assert loaded.kinds[kind].leaning == pytest.approx(p.kinds[kind].leaning, abs=1e-4)
    assert DiceReader(loaded).tilt_confirms == pytest.approx(DiceReader(p).tilt_confirms,
                                                             abs=1e-4)
    # a die taught from a throw (the camera tower teaches so: a die the reader did not call
    # tilted) counts too, with the frame around it as the reader sees it
    frame, _ = render_tray([SceneDie("kotd", "CLAW", "black", 200, 200, 0.2),
                            SceneDie("kotd", "HEART", "black", 420, 300, 0.5)], STYLE)
    before = list(loaded.kinds["kotd"].leaning)
    loaded.add_example("kotd", "HEART", frame, colour="black", at=(420, 300))
    after = loaded.kinds["kotd"].leaning
    assert after[:-1] == before and len(after) == len(loaded.kinds["kotd"].sizes)
    assert 0.0 <= after[-1] < 0.15  # a flat die, seen from straight above
    # a leaning that is not from 0 to 1 is named
    path = fresh_copy(saved, tmp_path)
    text = path.read_text()
    start = text.index("    leaning:\n") + len("    leaning:\n")
    line = text[:start].count("\n")  # the key's
    end = text.index("\n", start)
    path.write_text(text[:start] + "    - 1.5" + text[end:])
    with pytest.raises(ProfileError, match=re.escape(f"{path}:{line}: kinds.") + r"\w+"
                       + re.escape(".leaning: a leaning is from 0 to 1")):
        Profile.load(path)


def test_what_the_tilt_rules_make_of_each_taught_die_is_kept(saved, tmp_path):
    # the reader asks more of the tilt network in a tower whose flat dice the rules call
    # tilted (reader.rules_share)
    p, path = saved
    loaded = Profile.load(path)
    for kind in ("kotd", "d6pips"):
        assert len(p.kinds[kind].looks_tilted) == len(p.kinds[kind].sizes)
        assert loaded.kinds[kind].looks_tilted == p.kinds[kind].looks_tilted
    assert rules_share(loaded.kinds.values()) == rules_share(p.kinds.values())
    # a value that is not true or false is named, with its line
    path = fresh_copy(saved, tmp_path)
    text = path.read_text()
    start = text.index("    looks_tilted:\n") + len("    looks_tilted:\n")
    line = text[:start].count("\n")
    end = text.index("\n", start)
    path.write_text(text[:start] + "    - maybe" + text[end:])
    with pytest.raises(ProfileError, match=re.escape(f"{path}:{line + 1}: kinds.") + r"\w+"
                       + re.escape(".looks_tilted.0: expected true or false, got 'maybe'")):
        Profile.load(path)


def test_the_ready_pictures_are_the_pngs_and_never_stale(saved, tmp_path):
    # a `dice read` loads the empty tray and the examples from one file beside their PNGs;
    # the PNGs stay what counts
    p, _ = saved
    path = fresh_copy(saved, tmp_path)
    ready = path.with_suffix(".d") / "examples.npz"
    assert ready.exists()
    fast = Profile.load(path)
    ready.unlink()
    slow = Profile.load(path)
    assert np.array_equal(fast.background, slow.background)
    for kind in ("kotd",):
        for face, crops in slow.kinds[kind].examples.items():
            assert all(np.array_equal(a, b) for a, b in zip(crops, fast.kinds[kind].examples[face]))
    # a PNG changed after the save: its picture is decoded, not taken from the stale file
    p.save(path)
    heart = path.with_suffix(".d") / "kotd" / "HEART-0.png"
    changed = 255 - cv2.imread(str(heart), cv2.IMREAD_GRAYSCALE)
    cv2.imwrite(str(heart), changed)
    assert np.array_equal(Profile.load(path).kinds["kotd"].examples["HEART"][0], changed)
    background = path.with_suffix(".d") / "background.png"
    dimmer = cv2.imread(str(background)) // 2
    cv2.imwrite(str(background), dimmer)
    assert np.array_equal(Profile.load(path).background, dimmer.astype(np.float32))
    # a damaged ready file (not one at all, or cut short): the PNGs are read
    whole = ready.read_bytes()
    for damaged in (b"not a numpy file", whole[:len(whole) // 2]):
        ready.write_bytes(damaged)
        assert np.array_equal(Profile.load(path).kinds["kotd"].examples["HEART"][0], changed)


def test_the_empty_trays_texture_windows_are_kept_ready_and_never_stale(saved, tmp_path):
    # worked out from the empty tray at every `dice read` (1.7 ms), they are saved with it
    from vision.dice.segment import Background

    path = fresh_copy(saved, tmp_path)
    fast = Profile.load(path)
    assert fast._windows is not None
    worked_out = Background(fast.background).window_stats()
    kept = fast.tray().window_stats()
    assert all(np.array_equal(a, b) for a, b in zip(kept, worked_out))
    # the empty tray changed since: its windows are worked out again, from it
    background = path.with_suffix(".d") / "background.png"
    dimmer = cv2.imread(str(background)) // 2
    cv2.imwrite(str(background), dimmer)
    slow = Profile.load(path)
    assert slow._windows is None
    mean, _ = slow.tray().window_stats()
    assert np.allclose(mean, Background(dimmer.astype(np.float32)).window_stats()[0])
    assert not np.allclose(mean, worked_out[0])
    # windows of another shape (another frame size, a damaged file): not used
    Profile.load(path).save(path)
    ready = path.with_suffix(".d") / "examples.npz"
    with np.load(ready) as z:
        arrays = {k: z[k] for k in z.files}
    arrays["background_windows"] = arrays["background_windows"][:, :-1]
    np.savez(ready, **arrays)
    assert Profile.load(path)._windows is None
    # an empty-tray frame added to a loaded profile: the kept windows are of the tray before
    (tmp_path / "again").mkdir()
    again = fresh_copy(saved, tmp_path / "again")
    p = Profile.load(again)
    assert p._windows is not None
    p.add_background(cv2.imread(str(again.with_suffix(".d") / "background.png")) // 2)
    mean, _ = p.tray().window_stats()
    assert np.array_equal(mean, Background(p.background).window_stats()[0])
    assert not np.allclose(mean, worked_out[0])


def test_a_ready_file_damaged_inside_is_not_used(saved, tmp_path):
    # read in one go for speed, each array is still checked against its CRC-32: a flipped
    # byte in a crop is not taken for the picture
    import zipfile

    path = fresh_copy(saved, tmp_path)
    ready = path.with_suffix(".d") / "examples.npz"
    whole = bytearray(ready.read_bytes())
    with zipfile.ZipFile(ready) as z:
        info = z.getinfo("crops.npy")
    name_len, extra_len = struct.unpack_from("<HH", whole, info.header_offset + 26)
    data = info.header_offset + 30 + name_len + extra_len
    whole[data + info.file_size - 100] ^= 0x40  # in the last crop's pixels
    ready.write_bytes(bytes(whole))
    damaged = Profile.load(path)
    ready.unlink()
    pngs = Profile.load(path)
    for kind, m in pngs.kinds.items():
        assert m.example_crops()[0] == damaged.kinds[kind].example_crops()[0]
        assert all(np.array_equal(a, b) for a, b in
                   zip(m.example_crops()[1], damaged.kinds[kind].example_crops()[1]))
    # and a ready file written by numpy, compressed, is read as well (or not at all)
    Profile.load(path).save(path)
    with np.load(ready) as z:
        arrays = {k: z[k] for k in z.files}
    np.savez_compressed(ready, **arrays)
    again = Profile.load(path)
    assert np.array_equal(again.background, pngs.background)


def test_pictures_unchanged_since_the_save_are_not_read_and_a_changed_one_is(saved, tmp_path,
                                                                             monkeypatch):
    # a `dice read` compares each picture's size and times with the ready file's instead of
    # reading its bytes; a copied profile, or a picture written again, is read as before
    from vision.dice import profile as profile_module

    path = fresh_copy(saved, tmp_path)
    reads: list[str] = []
    real_read = profile_module._Loader.read

    def counted(self, rel, keys):
        reads.append(rel)
        return real_read(self, rel, keys)

    monkeypatch.setattr(profile_module._Loader, "read", counted)
    copied = Profile.load(path)
    # copied: new files, so every picture is read and compared
    assert {"tower.d/background.png", "tower.d/kotd/HEART-0.png"} <= set(reads)
    copied.save(path)
    reads.clear()
    fast = Profile.load(path)
    assert reads == []
    assert np.array_equal(fast.background, copied.background)
    # a picture changed in place, its size and modification time put back as they were:
    # its change time tells, so its bytes are read (here damaged: the file is named)
    heart = path.with_suffix(".d") / "kotd" / "HEART-0.png"
    before = heart.stat()
    data = bytearray(heart.read_bytes())
    data[len(data) // 2] ^= 0xFF
    heart.write_bytes(bytes(data))
    os.utime(heart, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert heart.stat().st_size == before.st_size
    with pytest.raises(ProfileError, match="HEART-0.png"):
        Profile.load(path)
    # a picture gone is named as before, unread or not
    heart.unlink()
    with pytest.raises(ProfileError, match=r"cannot read .*HEART-0.png"):
        Profile.load(path)


def test_the_ready_file_keeps_the_examples_features_and_never_stale_ones(saved, tmp_path):
    # the edge-direction features of every taught crop at every turn are worked out at the
    # save, not at every `dice read`; a changed PNG, an older ready file without them, or
    # features of the wrong shape are worked out again from the pictures
    path = fresh_copy(saved, tmp_path)
    ready = path.with_suffix(".d") / "examples.npz"
    fast = Profile.load(path).kinds["kotd"]
    assert fast._gradients is not None  # read, not worked out
    worked_out = gradient_bank(np.stack(fast.example_crops()[1]))

    def same(a, b, atol=1e-6):
        return all(np.allclose(x, y, atol=atol) for x, y in zip(a, b))

    assert same(fast.gradients(), worked_out, atol=2e-3)  # the full ones kept as float16
    with np.load(ready) as z:
        arrays = {k: z[k] for k in z.files}
    full, coarse = arrays["gradients"], arrays["gradients_coarse"]
    for changed in ({"gradients": None}, {"gradients_coarse": None},
                    {"gradients": full[:, :5]}, {"gradients_coarse": coarse[:, :, :7]},
                    {"gradients": np.full_like(full, np.nan)},
                    # one feature infinite, or below 0 (the features never are): not theirs
                    {"gradients": np.where(np.arange(full.size).reshape(full.shape) == 7,
                                           np.float16(np.inf), full)},
                    {"gradients": np.where(np.arange(full.size).reshape(full.shape) == 7,
                                           np.float16(-0.25), full)},
                    {"gradients_coarse": coarse.astype(np.float16)}):
        older = {k: v for k, v in {**arrays, **changed}.items() if v is not None}
        np.savez(ready, **older)
        m = Profile.load(path).kinds["kotd"]
        assert m._gradients is None
        assert same(m.gradients(), worked_out)
    # a PNG changed after the save: its features are its picture's
    heart = path.with_suffix(".d") / "kotd" / "HEART-0.png"
    np.savez(ready, **arrays)
    # (mirrored: its edges point elsewhere; a negative would have the same features)
    cv2.imwrite(str(heart), cv2.imread(str(heart), cv2.IMREAD_GRAYSCALE)[:, ::-1])
    m = Profile.load(path).kinds["kotd"]
    assert not same(m.gradients(), worked_out, atol=2e-3)
    assert same(m.gradients(), gradient_bank(np.stack(m.example_crops()[1])))


def test_a_kinds_shape_in_a_tie_is_its_first_pictures_in_every_process():
    """As many pictures of a kind show a round outline as a square one: the kind takes the
    first picture's shape, whatever the process's string hash seed (a tower taught twice gave
    its symbol die another shape, and 2 dice in 772 another reading)."""
    import subprocess
    import sys

    script = (
        "import vision.dice.segment as seg\n"
        "from vision.dice.profile import Profile\n"
        "from vision.dice.render import TrayStyle, empty_tray, single_die\n"
        "style = TrayStyle(tray_bgr=(96, 110, 112), perspective=2.0, seed=3, tray_seed=11)\n"
        "shapes = iter(['round', 'square', 'square', 'round'])\n"
        "measured = seg.shape_of\n"
        "def shape_of(*a):  # a picture's outline as teaching sees it: scripted\n"
        "    import sys\n"
        "    if sys._getframe(1).f_code.co_name == 'add_example':\n"
        "        return next(shapes)\n"
        "    return measured(*a)\n"
        "seg.shape_of = shape_of\n"
        "p = Profile()\n"
        "p.add_background(empty_tray(style, seed=0))\n"
        "for k, face in enumerate(('CLAW', 'HEART')):\n"
        "    p.add_example('kotd', face, single_die('kotd', face, 'black', k, style)[0])\n"
        "a = p.kinds['kotd'].shape\n"
        "for k, face in enumerate(('FAME', 'POWER')):\n"
        "    p.add_example('kotd', face, single_die('kotd', face, 'black', 5 + k, style)[0])\n"
        "print(a, p.kinds['kotd'].shape)\n")
    runs = [subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True,
                             env={**os.environ, "PYTHONHASHSEED": str(seed)})
            for seed in range(8)]
    said = {run.communicate(timeout=120)[0].strip() for run in runs}
    assert said == {"round round"}


def test_an_example_taught_after_a_load_is_in_the_features(saved, tmp_path):
    path = fresh_copy(saved, tmp_path)
    p = Profile.load(path)
    before = len(p.kinds["kotd"].gradients()[0])
    frame, _ = single_die("kotd", "FAME", "black", 77, STYLE)
    p.add_example("kotd", "FAME", frame, colour="black")
    assert len(p.kinds["kotd"].gradients()[0]) == before + 1


def test_each_kind_keeps_the_colours_it_was_taught_in(saved, tmp_path):
    # the reader prefers a die's own kind's colours (vision/dice/reader.py: _colour)
    p, path = saved
    loaded = Profile.load(path)
    assert loaded.kinds["kotd"].colours == ["black"]
    assert loaded.kinds["d6pips"].colours == ["red"]
    assert "    colours:\n    - black\n" in path.read_text()
    # a profile taught before they were kept has none: every colour is a candidate
    old = fresh_copy(saved, tmp_path)
    old.write_text(old.read_text().replace("    colours:\n    - black\n", "")
                   .replace("    colours:\n    - red\n", ""))
    assert all(m.colours == [] for m in Profile.load(old).kinds.values())
    # a kind's colour the profile has no measure of is named with its key and line
    old.write_text(path.read_text().replace("    colours:\n    - black\n",
                                            "    colours:\n    - blue\n"))
    line = line_of(old, "    - blue")
    with pytest.raises(ProfileError, match=re.escape(
            f"{old}:{line - 1}: kinds.kotd.colours: colour 'blue' is not among the "
            f"profile's colours")):
        Profile.load(old)


def test_how_the_colours_were_measured_is_kept_and_an_older_profile_keeps_its_way(saved,
                                                                                  tmp_path):
    # since 2026-12-06 a die's hue is its own, not its ratio to the tray under it (which
    # changes from patch to patch of a patterned tray): a profile taught before keeps measuring
    # the first way, so that its taught colours and a thrown die's are alike measures
    from vision.dice.profile import COLOUR_MEASURE

    p, path = saved
    assert COLOUR_MEASURE == 2 and p.own_hue
    assert "colour_measure: 2\n" in path.read_text()
    assert Profile.load(path).own_hue
    old = fresh_copy(saved, tmp_path)
    damage(old, "colour_measure: 2\n", "")
    before = Profile.load(old)
    assert before.colour_measure == 1 and not before.own_hue
    # saved again, it stays a profile of the first measure
    again = Profile.load(before.save(tmp_path / "again.yaml"))
    assert again.colour_measure == 1 and "colour_measure" not in (tmp_path / "again.yaml").read_text()
    # with no colour taught yet, nothing was measured: it takes today's measure
    bare = Profile()
    bare.add_background(empty_tray(STYLE, seed=0))
    none_taught = Profile.load(bare.save(tmp_path / "bare.yaml"))
    assert none_taught.own_hue
    for i, bad in enumerate(("3", "0", "two", "true", "2.0")):
        (tmp_path / f"bad{i}").mkdir()
        damaged = fresh_copy(saved, tmp_path / f"bad{i}")
        damage(damaged, "colour_measure: 2", f"colour_measure: {bad}")
        line = line_of(damaged, f"colour_measure: {bad}")
        with pytest.raises(ProfileError, match=re.escape(
                f"{damaged}:{line}: colour_measure: expected 1 to 2 (how the colours were "
                f"measured)")):
            Profile.load(damaged)


def values(p: Profile) -> tuple:
    """What a profile says, comparable."""
    return (p.background_frames, p.image_size,
            {c: [f.tolist() for f in fs] for c, fs in p.colours.items()},
            {k: (m.faces, m.shape, m.sizes, m.shapes, m.sharpness, m.patch_radius_px, m.colours,
                 {f: len(c) for f, c in m.examples.items()}) for k, m in p.kinds.items()})


def test_an_unchanged_profile_is_not_parsed_again_and_reads_the_same(saved, tmp_path,
                                                                      monkeypatch):
    # a `dice read` takes the values the save kept beside the pictures (parsing the YAML
    # took 4 ms of it) while the YAML is the text saved with them
    import vision.dice.profile as profile_module
    _, path = saved
    with monkeypatch.context() as m:
        m.setattr(profile_module._Loader, "_ready_values", lambda self, text: None)
        parsed = Profile.load(path)
    monkeypatch.setattr(profile_module._Loader, "_parse", lambda self, text: pytest.fail(
        "the YAML was parsed"))
    ready = Profile.load(path)
    assert values(ready) == values(parsed)
    assert np.array_equal(ready.background, parsed.background)


def test_an_edited_profile_is_parsed_and_its_errors_keep_their_lines(saved, tmp_path):
    path = fresh_copy(saved, tmp_path)
    damage(path, "  frames: 2", "  frames: 5")  # edited by hand: the ready values are stale
    assert Profile.load(path).background_frames == 5
    (tmp_path / "b").mkdir()
    path = fresh_copy(saved, tmp_path / "b")  # unchanged, but a picture is gone: the error
    (tmp_path / "b" / "tower.d" / "kotd" / "HEART-1.png").unlink()  # names its line too
    line = line_of(path, "tower.d/kotd/HEART-1.png")
    with pytest.raises(ProfileError, match=re.escape(f"{path}:{line}: kinds.kotd.examples."
                                                     f"HEART.1: cannot read")):
        Profile.load(path)


@pytest.mark.parametrize("array", [
    np.zeros((72, 36, 576), np.float16), np.zeros(()), np.array(["d12", "kotd"]),
    np.asfortranarray(np.ones((3, 4))), np.zeros((0, 5), np.int64), np.zeros(7, np.uint8),
    np.zeros(2, [("a", "<f4"), ("b", "<i2")]),   # not a plain array: numpy parses its header
    np.array("x" * 70000),                       # a header too long for version 1.0
], ids=["float16", "0-d", "strings", "fortran", "empty", "uint8", "structured", "v2"])
def test_a_ready_files_array_headers_are_read_as_numpy_reads_them(array):
    import io

    from vision.dice.profile import _npy_header

    out = io.BytesIO()
    np.lib.format.write_array(out, array)
    head, ref = io.BytesIO(out.getvalue()), io.BytesIO(out.getvalue())
    version = np.lib.format.read_magic(ref)
    expected = (np.lib.format.read_array_header_1_0(ref) if version == (1, 0)
                else np.lib.format.read_array_header_2_0(ref))
    assert _npy_header(head) == expected
    assert head.tell() == ref.tell()  # the array's bytes follow


def test_a_damaged_array_header_in_the_ready_file_is_refused(saved, tmp_path):
    from vision.dice.profile import _read_stored_npz

    path = fresh_copy(saved, tmp_path)
    ready = path.with_suffix(".d") / "examples.npz"
    data = bytearray(ready.read_bytes())
    at = data.index(b"'shape': (")
    data[at + 10:at + 11] = b"x"                 # the shape no longer a number
    ready.write_bytes(bytes(data))
    with pytest.raises(ValueError):
        _read_stored_npz(ready)
    assert Profile.load(path).kinds["kotd"]._gradients is None   # worked out from the PNGs


def test_a_kinds_rows_of_the_ready_file_are_a_slice_where_they_follow_each_other():
    from vision.dice.profile import _rows

    assert _rows([3, 4, 5]) == slice(3, 6)
    assert _rows([3, 5]) == [3, 5] and _rows([]) == []
    rows = np.arange(10)[:, None] * np.ones(4)
    assert (rows[_rows([3, 4, 5])] == rows[[3, 4, 5]]).all()


def _taught(pieces_first: bool, monkeypatch) -> Profile:
    """A profile taught CLAW and HEART twice each; with ``pieces_first`` the first picture's
    die is found with a top face a ninth of its area (a die found in pieces, or a light
    symbol on a dark die taken for the whole face)."""
    from dataclasses import replace

    from vision.dice import segment

    real = segment.teaching_parts
    calls = []

    def parts(frame, bg, name="frame"):
        lit, blobs, gain = real(frame, bg, name)
        calls.append(name)
        if pieces_first and len(calls) == 1:
            blobs = [replace(b, top_area=b.top_area / 9) for b in blobs]
        return lit, blobs, gain

    monkeypatch.setattr(segment, "teaching_parts", parts)
    p = Profile()
    p.add_background(empty_tray(STYLE, seed=0))
    for i, face in enumerate(("CLAW", "HEART")):
        for j in range(2):
            p.add_example("kotd", face, single_die("kotd", face, "black", 10 * i + j, STYLE)[0],
                          colour="black")
    monkeypatch.setattr(segment, "teaching_parts", real)
    return p


def test_a_picture_whose_die_is_found_in_pieces_does_not_set_the_kinds_scale(monkeypatch):
    # Every picture of a kind used to be cut, and every die read, at the first picture's
    # scale: on an independent renderer's tower whose first picture of a symbol die was found
    # 21 pixels across (the others 47), every symbol die read at random
    good, bad = _taught(False, monkeypatch), _taught(True, monkeypatch)
    g, b = good.kinds["kotd"], bad.kinds["kotd"]
    assert len(b.patch_radii) == 4
    assert b.patch_radii[0] == pytest.approx(g.patch_radii[0] / 3, rel=1e-3)
    # the kind's scale is its pictures' median: the three found whole set it
    assert b.patch_radius_px == pytest.approx(g.patch_radius_px, rel=0.05)
    # each picture is cut at its own scale: the others are what they are in a good profile
    assert np.array_equal(b.examples["CLAW"][1], g.examples["CLAW"][1])
    assert all(np.array_equal(x, y) for x, y in zip(b.examples["HEART"], g.examples["HEART"]))
    assert not np.array_equal(b.examples["CLAW"][0], g.examples["CLAW"][0])
    # and a die is read as in the good profile
    frame, _ = render_tray([SceneDie("kotd", "HEART", "black", 250, 220, 0.3)], STYLE)
    read = [(d.kind, d.face, d.status) for d in DiceReader(bad).read(frame)]
    assert read == [(d.kind, d.face, d.status) for d in DiceReader(good).read(frame)]
    assert read == [("kotd", "HEART", "clean")]


def test_each_pictures_scale_is_kept_and_a_profile_without_them_keeps_its_one(saved, tmp_path):
    p, path = saved
    loaded = Profile.load(path)
    kotd = loaded.kinds["kotd"]
    assert kotd.patch_radii == pytest.approx(p.kinds["kotd"].patch_radii, abs=1e-3)
    assert len(kotd.patch_radii) == 4
    assert kotd.patch_radius_px == pytest.approx(float(np.median(kotd.patch_radii)), abs=1e-3)
    # one scale too few is named, with its line
    path = fresh_copy(saved, tmp_path)
    text = path.read_text()
    start = text.index("    patch_radii_px:\n") + len("    patch_radii_px:\n")
    line = text[:start].count("\n")
    path.write_text(text[:start] + text[text.index("\n", start) + 1:])
    with pytest.raises(ProfileError, match=re.escape(f"{path}:{line}: kinds.kotd.patch_radii_px: "
                                                     "expected 4 radii over 0 pixels")):
        Profile.load(path)
    # a profile taught before each picture's scale was kept: its pictures were all cut at its
    # one scale, and a picture taught to it now is cut there too
    path.write_text(text[:text.index("    patch_radii_px:\n")]
                    + text[text.index("    colours:", start):])
    old = Profile.load(path)
    radius = old.kinds["kotd"].patch_radius_px
    assert old.kinds["kotd"].patch_radii == [] and radius is not None
    old.add_example("kotd", "ENERGY", single_die("kotd", "ENERGY", "black", 30, STYLE)[0],
                    colour="black")
    assert old.kinds["kotd"].patch_radius_px == radius and old.kinds["kotd"].patch_radii == []


def test_a_kinds_taught_state_is_all_that_teaching_changes_and_restores_it(saved):
    # the camera tower's undo of a picture taught puts the kind back from this state: a field
    # teaching changes that it left out (patch_radii, once) left the profile unloadable
    from dataclasses import fields

    from vision.dice.profile import KindModel

    kept = {f.name for f in fields(KindModel) if not f.name.startswith("_")}
    assert kept - set(KindModel.TAUGHT) == {"name", "faces"}
    _, path = saved
    p = Profile.load(path)
    m = p.kinds["kotd"]
    before = m.taught_state()
    p.add_example("kotd", "ENERGY", single_die("kotd", "ENERGY", "black", 30, STYLE)[0],
                  colour="black")
    changed = m.taught_state()
    assert {k for k in before if repr(before[k]) != repr(changed[k])} >= {
        "patch_radii", "examples", "sizes", "shapes", "sharpness", "leaning", "looks_tilted"}
    m.restore(before)
    assert repr(m.taught_state()) == repr(before)
    p.save(path.parent / "again.yaml")  # loads: one scale per example
    assert Profile.load(path.parent / "again.yaml").kinds["kotd"].patch_radii == \
        pytest.approx(before["patch_radii"], abs=1e-3)


def _picture_with(part: str) -> np.ndarray:
    """A teaching picture of a black symbol die showing CLAW (centre about (399, 288), 51
    pixels across) with something else on the tray: ``far`` a thin dark-red strip well away
    from it (as the far end of a long soft shadow looks once its dark core is cut off),
    ``near`` the same strip beside it (as a piece of the die cut off its body would lie),
    ``square`` a light square far from it (a thing the die finder takes for a die, a little)."""
    style = TrayStyle(tray_bgr=(128, 118, 104), perspective=2.5, seed=4, tray_seed=21)
    frame = single_die("kotd", "CLAW", "black", 40, style)[0].copy()
    x, y, w, h, colour = {"far": (120, 120, 160, 10, (70, 90, 150)),
                          "near": (330, 340, 120, 9, (70, 90, 150)),
                          "square": (120, 120, 80, 30, (70, 90, 150))}[part]
    frame[y:y + h, x:x + w] = colour
    return frame


@pytest.fixture(scope="module")
def tray_for_parts():
    style = TrayStyle(tray_bgr=(128, 118, 104), perspective=2.5, seed=4, tray_seed=21)
    p = Profile()
    for k in range(2):
        p.add_background(empty_tray(style, seed=k))
    return p


def test_a_teaching_picture_is_taught_where_the_die_finder_sees_one_die_clear_of_the_rest(
        tray_for_parts):
    # a part the segmentation finds beside the die (the far end of a long shadow) refused
    # the picture ("2 dice found"): 22 pictures of one tower of the fourth renderer. Where the
    # die finder sees a die in one part only, and the others lie clear of it, the die is taught
    from vision.dice import DiceError

    p = tray_for_parts
    p.add_example("kotd", "CLAW", _picture_with("far"), colour="black", name="far.png")
    assert p.kinds["kotd"].sizes[-1] == pytest.approx(51, abs=4)  # the die's, not the strip's
    # a part within the die the finder sees (a piece of it) or one it takes for a die a
    # little: refused as before, named
    for part in ("near", "square"):
        with pytest.raises(DiceError, match=f"{part}.png: 2 dice found"):
            p.add_example("kotd", "CLAW", _picture_with(part), colour="black",
                          name=f"{part}.png")
    assert len(p.kinds["kotd"].sizes) == 1
