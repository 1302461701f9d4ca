"""Dice statistics (companion/dice_stats.py, `companion dice-stats`): the tower's readings
counted per kind and colour, and a fair die told from a loaded one as the docstring states."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from companion import dice_stats as ds
from companion.cli import main

D6 = tuple("123456")


def write_rolls(root, rolls, torn: bytes = b""):
    """rolls: (time, [(kind, colour, face, status)...]) as the roll journal writes them."""
    root.mkdir(parents=True, exist_ok=True)
    lines = [json.dumps({"type": "tracking", "at": 0})]
    for seq, (at, dice) in enumerate(rolls):
        lines.append(json.dumps({"type": "roll", "boot_id": 7, "seq": seq, "late": False, "at": at,
                                 "dice": [{"slot": i, "kind": k, "colour": c, "face": f, "status": s}
                                          for i, (k, c, f, s) in enumerate(dice)]}))
        lines.append(json.dumps({"type": "delivered", "boot_id": 7, "seq": seq}))
    (root / ds.JOURNAL).write_bytes(("\n".join(lines) + "\n").encode() + torn)


def counts_of(rng, probs, n):
    return tuple(int(c) for c in rng.multinomial(n, probs))


def test_the_chi_square_tail_matches_its_tables():
    assert ds.chi2_sf(3.841, 1) == pytest.approx(0.05, abs=2e-4)
    assert ds.chi2_sf(11.070, 5) == pytest.approx(0.05, abs=2e-4)
    assert ds.chi2_sf(15.086, 5) == pytest.approx(0.01, abs=1e-4)
    assert ds.chi2_sf(24.725, 11) == pytest.approx(0.01, abs=1e-4)
    assert ds.chi2_sf(0.0, 5) == 1.0 and ds.chi2_sf(200.0, 5) < 1e-30
    assert ds.chi2_critical(5) == pytest.approx(15.086, abs=1e-3)
    # the non-central tail at nc=0 is the central one, and grows with nc
    assert ds.noncentral_chi2_sf(15.086, 5, 0.0) == pytest.approx(0.01, abs=1e-4)
    assert ds.noncentral_chi2_sf(15.086, 5, 17.87) == pytest.approx(0.8, abs=0.01)


def test_a_fair_die_is_called_biased_about_once_in_a_hundred_looks():
    rng = np.random.default_rng(2026)
    looks = 2000
    alarms = sum(ds.DieStats("d6", "white", D6, counts_of(rng, [1 / 6] * 6, 600)).biased
                 for _ in range(looks))
    # ALPHA is 1 %: 20 expected, the binomial's 99.9 % range is about 7 to 36
    assert 7 <= alarms <= 36


def test_a_die_loaded_to_a_quarter_is_called_within_the_throws_it_says():
    loaded = [0.25] + [0.15] * 5
    effect = sum((p - 1 / 6) ** 2 * 6 for p in loaded)
    n = math.ceil(ds.noncentrality_for_power(5) / effect)       # 358 throws
    assert 300 < n < 420
    rng = np.random.default_rng(7)
    runs = [ds.DieStats("d6", "white", D6, counts_of(rng, loaded, n)) for _ in range(600)]
    called = [s for s in runs if s.biased]
    assert len(called) / len(runs) >= 0.74                      # 80 % power, give or take
    named = sum(s.furthest() == ("1", 1) for s in called)      # the loaded face, too often
    assert named / len(called) >= 0.95
    # after 1,000 throws the loaded die is named in the verdict
    s = ds.DieStats("d6", "white", D6, counts_of(np.random.default_rng(3), loaded, 1000))
    assert s.verdict().startswith("1 comes up too often: p < 0.001 after 1000 throws")
    assert s.throws_needed is not None and s.throws_needed < 1000


def test_verdicts_in_words_and_too_few_throws():
    few = ds.DieStats("d12", "red", tuple(str(i) for i in range(1, 13)), (1,) * 12)
    assert few.p_value is None and few.throws_needed is None and not few.biased
    assert few.verdict() == "Too few throws for a verdict: 12 of the 60 needed"
    even = ds.DieStats("d6", "white", D6, (40,) * 6)
    assert even.verdict() == "No sign of bias after 240 throws"
    assert even.detail() == "The counts are exactly even" and even.throws_needed is None
    slight = ds.DieStats("d6", "white", D6, (45, 38, 40, 39, 41, 37))
    assert slight.verdict() == "No sign of bias after 240 throws"
    assert slight.throws_needed > 1000 and "more throws before a bias as small" in slight.detail()
    rare = ds.DieStats("d6", "white", D6, (100, 100, 100, 100, 100, 40))
    assert rare.verdict().startswith("6 comes up too rarely: p < 0.001 after 540 throws")


def test_the_journal_counted_per_kind_and_colour_and_unsure_readings_apart(tmp_path):
    write_rolls(tmp_path, [
        (1.0, [("d12", "red", "7", "clean"), ("d12", "yellow", "3", "clean"),
               ("d12", "red", None, "cocked")]),
        (2.0, [("d12", "red", "7", "clean"), ("kotd", "black", "CLAW", "clean"),
               ("d12", "red", "12", "unreadable")]),
    ], torn=b'{"type": "roll", "boot')                          # a torn last line: skipped
    stats = {s.key: s for s in ds.statistics(tmp_path)}
    assert list(stats) == ["d12/red", "d12/yellow", "kotd/black"]
    red = stats["d12/red"]
    assert red.faces == tuple(str(i) for i in range(1, 13)) and red.faces_known
    assert red.counts[6] == 2 and red.throws == 2 and red.not_clean == 2
    assert stats["kotd/black"].counts == (1, 0, 0, 0, 0, 0)


def test_i_changed_dice_counts_again_from_then_and_can_be_taken_back(tmp_path):
    write_rolls(tmp_path, [(1.0, [("d6", "white", "6", "clean")]),
                           (5.0, [("d6", "white", "2", "clean")])])
    ds.reset(tmp_path, "d6/white", at=3.0)
    (s,) = ds.statistics(tmp_path)
    assert s.counts == (0, 1, 0, 0, 0, 0) and s.since == 3.0
    ds.reset(tmp_path, "d6/white", at=9.0)
    (s,) = ds.statistics(tmp_path)
    assert s.throws == 0 and s.key == "d6/white"                # still listed, at 0
    assert ds.undo_reset(tmp_path, "d6/white")
    assert ds.statistics(tmp_path)[0].throws == 1
    assert ds.undo_reset(tmp_path, "d6/white") and ds.statistics(tmp_path)[0].throws == 2
    assert not ds.undo_reset(tmp_path, "d6/white")


def test_a_damaged_journal_or_resets_file_is_named(tmp_path):
    write_rolls(tmp_path, [(1.0, [("d6", "white", "6", "clean")])])
    path = tmp_path / ds.JOURNAL
    path.write_bytes(path.read_bytes().replace(b'"dice": [', b'"dice": 5, "x": [', 1))
    with pytest.raises(ds.DiceStatsError, match=r"rolls.jsonl, line 2: not a roll"):
        ds.statistics(tmp_path)
    write_rolls(tmp_path, [(1.0, [("d6", "white", "6", "clean")])])
    (tmp_path / ds.RESETS).write_text('{"resets": {"d6/white": ["yesterday"]}}')
    with pytest.raises(ds.DiceStatsError, match=r"dice_stats.json: resets.d6/white: a list of times"):
        ds.statistics(tmp_path)


def test_the_command_prints_text_json_and_csv(tmp_path, capsys):
    rng = np.random.default_rng(1)
    rolls = [(float(i), [("d6", "white", str(int(f) + 1), "clean")])
             for i, f in enumerate(rng.choice(6, size=300, p=[0.25] + [0.15] * 5))]
    rolls.append((400.0, [("d6", "white", None, "cocked")]))
    write_rolls(tmp_path, rolls)
    assert main(["--data-dir", str(tmp_path), "dice-stats"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("white d6: 300 throws (1 not read cleanly, not counted)\n")
    assert "1 comes up too often" in text
    assert main(["--data-dir", str(tmp_path), "dice-stats", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    (die,) = data["dice"]
    assert die["throws"] == 300 and die["not_clean"] == 1 and die["biased"] is True
    assert sum(die["counts"].values()) == 300 and die["p_value"] < ds.ALPHA
    assert main(["--data-dir", str(tmp_path), "dice-stats", "--csv"]) == 0
    rows = capsys.readouterr().out.splitlines()
    assert rows[0].startswith("kind,colour,face,count,expected") and len(rows) == 7
    assert main(["--data-dir", str(tmp_path), "dice-stats", "--reset", "d6"]) == 2
    assert "write the die as KIND/COLOUR" in capsys.readouterr().err
    assert main(["--data-dir", str(tmp_path), "dice-stats", "--reset", "d6/white"]) == 0
    capsys.readouterr()
    assert main(["--data-dir", str(tmp_path), "dice-stats", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["dice"][0]["throws"] == 0


def test_a_players_correction_counts_as_the_face_that_came_up(tmp_path):
    """A die the tower was not sure of, set by the player, is a face thrown; a clean reading
    the player disputed counts as the face they set, not the one the tower read."""
    from firmware_bridge.host.events import DieReading, RollEvent
    from firmware_bridge.host.rolls import RollJournal

    journal = RollJournal(tmp_path / ds.JOURNAL, fsync=False)
    dice = (DieReading(0, "d12", None, "red", "cocked", 0.3),
            DieReading(1, "d12", "7", "red", "clean", 0.9))
    roll = RollEvent(7, 0, dice)
    journal.record(roll)
    journal.record(RollEvent(7, 1, (DieReading(0, "d12", "2", "red", "clean", 0.9),)))
    fixed = [dict(dice[0].to_json(), face="11", status="clean", read_status="cocked"),
             dict(dice[1].to_json(), face="1", read_face="7")]
    journal.record_correction(roll.key, fixed)
    with pytest.raises(KeyError, match="no roll"):
        journal.record_correction((7, 5), fixed)
    # the history shows what the player set, the journal still holds what the tower read
    assert [d.face for d in journal.recent_rolls(2)[0].dice] == ["11", "1"]
    journal.close()
    red = {s.key: s for s in ds.statistics(tmp_path)}["d12/red"]
    assert (red.counts[10], red.counts[0], red.counts[1], red.counts[6]) == (1, 1, 1, 0)
    assert red.not_clean == 0
    # read again from the file: the correction stands after a restart, and the roll's own
    # line is untouched
    again = RollJournal(tmp_path / ds.JOURNAL, fsync=False)
    assert [d.face for d in again.recent_rolls(2)[0].dice] == ["11", "1"]
    # a roll held back for the player and not yet handed to the game goes with its faces set
    assert [d.face for d in again.undelivered()[0].dice] == ["11", "1"]
    lines = [json.loads(x) for x in (tmp_path / ds.JOURNAL).read_text().splitlines()]
    assert [d["face"] for d in lines[1]["dice"]] == [None, "7"]
    again.close()
