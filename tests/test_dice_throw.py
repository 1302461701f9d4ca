"""The throw detector on rendered throws: dice fall in, settle, are taken out."""

from __future__ import annotations

import numpy as np
import pytest

from vision.dice import DiceError, DiceReader, Profile, ThrowDetector
from vision.dice.render import throw_sequence


def events(frames, still=4):
    d = ThrowDetector(still_frames=still)
    return [(i, s) for i, f in enumerate(frames) if (s := d.update(f.image)) is not None]


def test_one_read_per_throw_once_still():
    frames = throw_sequence(4, n_dice=3, settled_frames=10, removed_frames=6)
    got = events(frames, still=4)
    phases = [f.phase for f in frames]
    first_settled = phases.index("settled")
    first_removed = phases.index("removed")
    # the throw: after 4 still frames (the first settled frame is still compared with the
    # last falling one); the dice taken out: the empty tray, once still
    assert [i for i, _ in got] == [first_settled + 4, first_removed + 4]
    assert got[0][1].index == first_settled + 4
    assert frames[got[0][0]].phase == "settled" and frames[got[1][0]].phase == "removed"


def test_the_settled_frame_reads_as_thrown():
    frames = throw_sequence(8, n_dice=3, removed_frames=6)
    p = Profile()
    p.add_background(frames[0].image)
    p.add_background(frames[1].image)
    reader = DiceReader(p)
    (i, settled), (j, emptied) = events(frames)
    truth = sorted(t.face for t in frames[i].truth)
    assert sorted(r.face for r in reader.read(settled.frame)) == truth
    assert all(r.status == "clean" for r in reader.read(settled.frame))
    assert reader.read(emptied.frame) == []


def test_noise_alone_is_no_throw():
    style_frames = throw_sequence(2, n_dice=1)
    empty = [f for f in style_frames if f.phase == "empty"]
    d = ThrowDetector(still_frames=2)
    assert [d.update(f.image) for f in empty * 3] == [None] * 12


def test_bad_settings_and_frames_are_refused():
    with pytest.raises(DiceError, match="still_frames must be 1 or more"):
        ThrowDetector(still_frames=0)
    with pytest.raises(DiceError, match="frame 0: not an image"):
        ThrowDetector().update(np.zeros(5))
