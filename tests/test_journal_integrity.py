"""Nothing a file or a second window can do loses a game (issue 17): one writer per game,
checksummed lines, replay checks like play, repair of a damaged end, bounded parsing, the
saved-games index, private files, and a full disk or read-only folder for a new game."""

from __future__ import annotations

import errno
import json
import os
import random
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion import cli, files, journal, storage
from companion.errors import (
    CompanionError,
    GameLockedError,
    IllegalActionError,
    JournalError,
    JournalTailError,
)
from companion.journal import Event, move_aside, read_events
from companion.session import Session, replay

from .test_session import SETUP

ROOT = Path(__file__).resolve().parent.parent


def play(path: Path, undo: bool = True) -> Session:
    """A short TEKKEN game left open: 4 actions, one undone (5 lines after game.start)."""
    s = Session.create(path, "tekken", SETUP, rng=random.Random(4))
    s.do("tekken.card", result="hit")
    s.do("tekken.sweep")
    s.do("tekken.strike", symbols=[2])
    s.do("tekken.adjust_hp", player=0, delta=-1)
    if undo:
        s.undo()
    return s


def closed_game(path: Path) -> Path:
    play(path).close()
    return path


def lines_of(path: Path) -> list[bytes]:
    return path.read_bytes().split(b"\n")[:-1]


def write_lines(path: Path, lines: list[bytes]) -> None:
    path.write_bytes(b"".join(line + b"\n" for line in lines))


# ------------------------------------------------------------------ one writer per game

def test_a_second_writer_is_refused_and_may_only_read(tmp_path):
    path = tmp_path / "g.jsonl"
    first = play(path)
    with pytest.raises(GameLockedError, match="g.jsonl: this game is open elsewhere"):
        Session.open(path)
    viewer = Session.open(path, read_only=True)
    assert viewer.read_only and viewer.state == first.state
    with pytest.raises(IllegalActionError, match="open elsewhere"):
        viewer.do("tekken.heat")
    with pytest.raises(IllegalActionError, match="open elsewhere"):
        viewer.undo()
    first.do("tekken.adjust_hp", player=1, delta=-1)   # the writer is not disturbed
    first.close()
    again = Session.open(path)                         # free once the first one closed
    assert again.state == first.state
    again.close()


def test_two_writers_never_interleave_lines(tmp_path):
    """The issue's failure: two windows on one game gave a duplicated sequence number after
    37 actions. Two sessions in turn, each refused while the other holds the game."""
    path = tmp_path / "g.jsonl"
    Session.create(path, "tekken", SETUP, rng=random.Random(4)).close()
    for round_ in range(40):
        writer = Session.open(path)
        with pytest.raises(GameLockedError):
            Session.open(path)
        writer.do("tekken.adjust_hp", player=round_ // 2 % 2, delta=1 if round_ % 2 else -1)
        writer.close()
    events = read_events(path)
    assert [e.seq for e in events] == list(range(1, 42))


HOLDER = r"""
import random, sys, time
from companion.session import Session
s = Session.open(sys.argv[1])
print("open", flush=True)
sys.stdin.readline()
s.do("tekken.adjust_hp", player=1, delta=-1)
s.close()
print("closed", flush=True)
"""


def test_another_process_holding_the_game_locks_out_the_app_and_the_cli(tmp_path):
    path = closed_game(tmp_path / "g.jsonl")
    hp = replay(read_events(path)).state.fighters[1].hp
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(path)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True, env=env, cwd=ROOT)
    try:
        assert holder.stdout.readline().strip() == "open"
        with pytest.raises(GameLockedError):
            Session.open(path)
        assert cli.main(["replay", str(path)]) == 0        # reading needs no lock
        with pytest.raises(GameLockedError):
            move_aside(path)
        holder.stdin.write("\n")
        holder.stdin.flush()
        assert holder.stdout.readline().strip() == "closed"
    finally:
        holder.wait(timeout=30)
    s = Session.open(path)
    assert s.state.fighters[1].hp == hp - 1                # the holder's action is there
    s.close()


# ------------------------------------------------------------------ checksummed lines

def test_every_line_carries_a_checksum_and_stays_plain_json(tmp_path):
    path = closed_game(tmp_path / "g.jsonl")
    for line in lines_of(path):
        obj = json.loads(line)
        assert list(obj)[-1] == "crc" and len(obj["crc"]) == 8


def test_a_changed_byte_in_the_middle_is_found_and_located(tmp_path):
    """The corrupted-middle test: "delta":-1 -> "delta":-7 is still valid JSON and a legal
    action, so only the checksum can tell."""
    path = closed_game(tmp_path / "g.jsonl")
    lines = lines_of(path)
    assert b'"delta":-1' in lines[4]
    lines[4] = lines[4].replace(b'"delta":-1', b'"delta":-7')
    lines.append(Event(7, "tekken.heat", {}).to_line().rstrip(b"\n"))
    write_lines(path, lines)
    with pytest.raises(JournalError, match=r"g.jsonl:5: the line's checksum does not match") \
            as info:
        Session.open(path)
    assert not isinstance(info.value, JournalTailError)   # not offered as a repair
    assert cli.main(["replay", str(path)]) == 5


def test_journals_written_before_checksums_still_open_and_continue(tmp_path):
    path = closed_game(tmp_path / "g.jsonl")
    expected = replay(read_events(path)).state
    legacy = []
    for line in lines_of(path):
        obj = json.loads(line)
        del obj["crc"]
        legacy.append(json.dumps(obj).encode())
    write_lines(path, legacy)
    s = Session.open(path)
    assert s.state == expected
    s.do("tekken.adjust_hp", player=1, delta=-1)          # appended with a checksum
    s.close()
    assert b'"crc"' in lines_of(path)[-1]
    assert len(read_events(path)) == len(legacy) + 1
    # after a checksummed line, a line without one is damage
    lines = lines_of(path) + [json.dumps({"seq": 8, "type": "tekken.heat", "at": "",
                                          "data": {}}).encode()]
    lines.append(Event(9, "tekken.heat", {}).to_line().rstrip(b"\n"))
    write_lines(path, lines)
    with pytest.raises(JournalError, match="g.jsonl:8: the line has no checksum"):
        read_events(path)


# ------------------------------------------------------------------ replay checks like play

def start_line(path: Path, change) -> None:
    lines = lines_of(path)
    obj = json.loads(lines[0])
    del obj["crc"]
    change(obj["data"])
    lines[0] = Event(1, "game.start", obj["data"], obj["at"]).to_line().rstrip(b"\n")
    write_lines(path, lines)


@pytest.mark.parametrize("max_hp", [1_000_000_000, -5, "20", True])
def test_a_game_start_outside_the_live_bounds_is_refused(tmp_path, max_hp):
    path = closed_game(tmp_path / "g.jsonl")
    start_line(path, lambda d: d["fighters"][1].update(max_hp=max_hp))
    with pytest.raises(JournalError, match=r"g.jsonl:1: bad game.start: "
                                           r"data.fighters\[1\].max_hp: expected a whole number "
                                           r"7 to 99"):
        Session.open(path)
    with pytest.raises(IllegalActionError, match="max HP must be 7-99"):
        Session.create(tmp_path / "new.jsonl", "tekken",
                       dict(SETUP, fighters=[{"name": "Jin", "max_hp": 1_000_000_000},
                                             SETUP["fighters"][1]]))
    assert not (tmp_path / "new.jsonl").exists()


@pytest.mark.parametrize("game, data, problem", [
    ("takkure", {"teams": [{"name": "A", "players": [{}] * 5000}] * 2}, "four players"),
    ("kotd", {"monsters": [{"name": "A", "hp": 10**9}] * 2}, r"data.monsters\[0\].hp"),
    ("tagteam", {"teams": [{"fighters": [{"max_hp": -5}] * 2}] * 2},
     r"data.teams\[0\].fighters\[0\].max_hp"),
])
def test_every_game_checks_its_start_on_replay(tmp_path, game, data, problem):
    path = tmp_path / "g.jsonl"
    path.write_bytes(Event(1, "game.start", {"game": game, **data}).to_line())
    with pytest.raises(JournalError, match=rf"g.jsonl:1: bad game.start: .*{problem}"):
        Session.open(path)


@pytest.mark.parametrize("dice, field", [
    (6, r"data.dice: expected a list of dice"),
    (["7", "3"], r"data.dice\[0\]: expected a die"),
    ([{"kind": "d12", "face": [1]}], r"data.dice\[0\].face: expected a face name"),
    ([{"kind": "d12", "face": "7", "status": "melted"}], r"data.dice\[0\].status"),
])
def test_a_malformed_tower_roll_is_refused_live_and_on_replay(tmp_path, dice, field):
    path = tmp_path / "g.jsonl"
    s = play(path, undo=False)
    with pytest.raises(IllegalActionError, match=field):
        s.record_roll(1, 1, dice)                           # live: nothing written
    s.close()
    before = len(lines_of(path))
    assert before == 5
    with open(path, "ab") as f:
        f.write(Event(6, "dice.roll", {"boot_id": 1, "seq": 1, "dice": dice}).to_line())
    with pytest.raises(JournalError, match=rf"g.jsonl:6: dice.roll: {field}"):
        Session.open(path)


def test_a_bad_game_is_listed_as_damaged_and_the_good_one_still_resumes(tmp_path):
    games = files.games_dir(tmp_path)
    good = closed_game(games / "2026-01-01-good.jsonl")
    bad = closed_game(games / "2026-01-02-bad.jsonl")
    start_line(bad, lambda d: d["fighters"][0].update(max_hp=1_000_000_000))
    os.utime(good, (time.time() - 60, time.time() - 60))   # the bad one is the newest
    listed = {g.path.name: g for g in storage.list_saved(tmp_path)}
    assert listed[bad.name].game == "?" and "max_hp" in listed[bad.name].problem
    assert listed[good.name].problem is None
    assert storage.last_unfinished(tmp_path).path == good


# ------------------------------------------------------------------ bounded parsing

@pytest.mark.parametrize("line, problem", [
    (b'{"seq":2,"type":"tekken.heat","at":"","data":{"n":' + b"9" * 5000 + b"}}",
     "unreadable JSON value"),
    (b'{"seq":2,"type":"tekken.heat","at":"","data":' + b"[" * 100_000 + b"]" * 100_000
     + b"}", "nested too deeply"),
    (b'{"seq":2,"type":"tekken.heat","at":"' + b"x" * (journal.MAX_LINE_BYTES + 1) + b'"}',
     "more than the 1,048,576 an event may take"),
])
def test_hostile_json_is_a_located_error_everywhere(tmp_path, capsys, line, problem):
    games = files.games_dir(tmp_path)
    good = closed_game(games / "a-good.jsonl")
    bad = games / "b-bad.jsonl"
    bad.write_bytes(lines_of(good)[0] + b"\n" + line + b"\n"
                    + Event(3, "tekken.heat", {}).to_line())
    with pytest.raises(JournalError, match=f"b-bad.jsonl:2: .*{problem}"):
        read_events(bad)
    assert cli.main(["replay", str(bad)]) == 5
    assert cli.main(["--data-dir", str(tmp_path), "games"]) == 0
    out = capsys.readouterr()
    assert "Traceback" not in out.err and "a-good.jsonl" in out.out and "b-bad.jsonl:2" in out.out
    assert storage.last_unfinished(tmp_path).path == good


# ------------------------------------------------------------------ repairing the end

def test_truncation_at_every_byte_of_the_last_two_events(tmp_path):
    path = closed_game(tmp_path / "g.jsonl")
    raw = path.read_bytes()
    lines = lines_of(path)
    cut_from = len(raw) - len(lines[-1]) - len(lines[-2]) - 2
    events = read_events(path)
    for cut in range(cut_from, len(raw)):
        copy = tmp_path / "cut.jsonl"
        copy.write_bytes(raw[:cut])
        whole = raw[:cut].count(b"\n")                       # complete lines kept
        expected = replay(events[:whole])
        try:
            s = Session.open(copy)
        except JournalTailError as err:
            assert len(err.good_events) == whole and err.line == whole + 1
            assert err.actions_in_force == len(expected.actions)
            s = Session.open(copy, repair=err)
            sidecars = list(tmp_path.glob("cut.jsonl.damaged-line-*"))
            assert [p.read_bytes() for p in sidecars] == [raw[len(b"".join(
                line + b"\n" for line in lines[:whole])):cut]]
            for p in sidecars:
                p.unlink()
        else:
            assert raw[cut - 1:cut] == b"\n"
        assert s.state == expected.state and len(s.actions) == len(expected.actions)
        s.do("tekken.adjust_hp", player=1, delta=-1)        # appends cleanly
        s.close()
        assert len(read_events(copy)) == whole + 1


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(junk=st.binary(min_size=1, max_size=300))
def test_random_bytes_after_the_last_good_line_are_a_repairable_end(tmp_path, junk):
    path = tmp_path / "g.jsonl"
    if not path.exists():
        closed_game(path)
    good = path.read_bytes()
    path.write_bytes(good + junk)
    try:
        with pytest.raises(JournalTailError) as info:
            Session.open(path)
        assert info.value.good_bytes == len(good) and info.value.actions_in_force == 3
    finally:
        path.write_bytes(good)


def test_repair_counts_actions_in_force_not_undo_lines(tmp_path):
    path = tmp_path / "g.jsonl"
    s = play(path)            # 4 actions, then an undo: 3 in force, 5 lines after the start
    s.undo()
    s.close()
    with open(path, "ab") as f:
        f.write(b'{"seq":8,"type":"tekken.he')
    with pytest.raises(JournalTailError) as info:
        Session.open(path)
    assert len(info.value.good_events) == 7 and info.value.actions_in_force == 2


def test_a_torn_first_line_is_moved_aside_with_a_clear_message(tmp_path, capsys):
    games = files.games_dir(tmp_path)
    games.mkdir(parents=True)
    path = games / "torn.jsonl"
    path.write_bytes(b'{"seq":1,"type":"game.start","at":"","data":{"game":"tek')
    with pytest.raises(JournalTailError) as info:
        Session.open(path)
    assert info.value.good_events == [] and info.value.actions_in_force == 0
    assert cli.main(["replay", str(path), "--ignore-torn-tail"]) == 6
    assert "its first line is damaged, so no game can be read" in capsys.readouterr().err
    [listed] = storage.list_saved(tmp_path)
    assert listed.game == "?" and "move it aside" in listed.problem
    aside = move_aside(path)
    assert not path.exists() and aside.read_bytes().startswith(b'{"seq":1')
    assert storage.list_saved(tmp_path) == []


# ------------------------------------------------------------------ full disk, read-only

@pytest.mark.parametrize("err, words", [(errno.ENOSPC, "No space left on device"),
                                        (errno.EROFS, "Read-only file system")])
def test_new_game_on_a_full_disk_or_read_only_folder(tmp_path, monkeypatch, capsys, err, words):
    real = journal._write_private

    def failing(path, data):
        real(path, data[: len(data) // 2])                   # a part written, then refused
        raise OSError(err, os.strerror(err))

    monkeypatch.setattr(journal, "_write_private", failing)
    code = cli.main(["--data-dir", str(tmp_path), "new", "tekken", "--no-app"])
    out = capsys.readouterr()
    assert code == 9 and "Traceback" not in out.err
    assert "cannot create the game" in out.err and words in out.err
    assert list(files.games_dir(tmp_path).iterdir()) == []   # nothing half-created
    monkeypatch.setattr(journal, "_write_private", real)
    assert cli.main(["--data-dir", str(tmp_path), "new", "tekken", "--no-app"]) == 0
    [made] = files.games_dir(tmp_path).iterdir()
    assert read_events(made)[0].type == "game.start"


def test_new_game_where_the_folder_cannot_be_made(tmp_path, capsys):
    blocker = tmp_path / "home"
    blocker.write_text("a file where the data folder should be")
    code = cli.main(["--data-dir", str(blocker), "new", "tekken", "--no-app"])
    out = capsys.readouterr()
    assert code == 9 and "cannot create the folder" in out.err and "Traceback" not in out.err


# ------------------------------------------------------------------ private files

@pytest.mark.skipif(os.name != "posix", reason="POSIX permission bits")
def test_journals_config_and_folders_are_private(tmp_path):
    from vision.config import CameraConfig, save_camera

    cam = save_camera(tmp_path / "cam" / "camera.yaml", CameraConfig(
        (640, 480), ((500.0, 0.0, 320.0), (0.0, 500.0, 240.0), (0.0, 0.0, 1.0)),
        (0.0, 0.0, 0.0, 0.0)))
    assert stat.S_IMODE(cam.stat().st_mode) == 0o600
    from companion import registry

    root = tmp_path / "data"
    path = files.new_game_path("tekken", "x", root)
    Session.create(path, "tekken", SETUP).close()
    mode = lambda p: stat.S_IMODE(p.stat().st_mode)   # noqa: E731
    assert mode(path) == 0o600
    assert mode(path.parent) == 0o700 and mode(root) == 0o700
    os.chmod(path, 0o644)                               # a journal from before
    Session.open(path).close()
    assert mode(path) == 0o600
    cfg = registry.load_config("tekken", root)
    saved = registry.save_config("tekken", cfg, root)
    assert mode(saved) == 0o600 and mode(saved.parent) == 0o700
    out = journal.write_private_file(root / "exports" / "e.json", b"{}")
    assert mode(out) == 0o600 and mode(out.parent) == 0o700
    storage.list_saved(root)
    assert mode(files.games_dir(root) / storage.INDEX_NAME) == 0o600


# ------------------------------------------------------------------ the saved-games index

def test_the_index_answers_for_unchanged_journals_and_follows_changes(tmp_path, monkeypatch):
    games = files.games_dir(tmp_path)
    a = closed_game(games / "a.jsonl")
    b = closed_game(games / "b.jsonl")
    first = storage.list_saved(tmp_path)
    index = games / storage.INDEX_NAME
    assert set(json.loads(index.read_bytes())["games"]) == {"a.jsonl", "b.jsonl"}

    reads = []
    real = storage.read_events
    monkeypatch.setattr(storage, "read_events", lambda p: reads.append(Path(p).name) or real(p))
    assert storage.list_saved(tmp_path) == first and reads == []   # nothing replayed
    s = Session.open(b)
    s.do("tekken.adjust_hp", player=0, delta=-1)
    s.close()
    listed = {g.path.name: g for g in storage.list_saved(tmp_path)}
    assert reads == ["b.jsonl"]                            # only the changed one re-read
    assert json.loads(index.read_bytes())["games"]["b.jsonl"]["size"] == b.stat().st_size
    a.unlink()
    assert [g.path.name for g in storage.list_saved(tmp_path)] == ["b.jsonl"]
    assert set(json.loads(index.read_bytes())["games"]) == {"b.jsonl"}
    for broken in (b"", b"[]", b'{"version":1,"games":{"b.jsonl":{"size":"x"}}}',
                   b"[" * 100_000):
        index.write_bytes(broken)                  # unreadable or foreign: rebuilt
        reads.clear()
        assert [g.summary for g in storage.list_saved(tmp_path)] == [listed["b.jsonl"].summary]
        assert reads == ["b.jsonl"]


def test_resuming_reads_journals_newest_first_only_until_one_is_unfinished(tmp_path,
                                                                          monkeypatch):
    games = files.games_dir(tmp_path)
    for i, name in enumerate(["a.jsonl", "b.jsonl", "c.jsonl"]):
        closed_game(games / name)
        os.utime(games / name, (time.time() - 60 + i, time.time() - 60 + i))
    reads = []
    real = storage.read_events
    monkeypatch.setattr(storage, "read_events", lambda p: reads.append(Path(p).name) or real(p))
    assert storage.last_unfinished(tmp_path).path.name == "c.jsonl"    # no index yet
    assert reads == ["c.jsonl"]
    reads.clear()
    assert storage.last_unfinished(tmp_path).path.name == "c.jsonl" and reads == []
    assert len(storage.list_saved(tmp_path)) == 3
    assert sorted(reads) == ["a.jsonl", "b.jsonl"]                     # the rest, once


def test_a_huge_journal_is_listed_from_its_first_line_and_not_resumed(tmp_path, monkeypatch):
    games = files.games_dir(tmp_path)
    small = closed_game(games / "a-small.jsonl")
    closed_game(games / "b-huge.jsonl")
    os.utime(small, (time.time() - 60, time.time() - 60))
    monkeypatch.setattr(storage, "LARGE_JOURNAL_BYTES", small.stat().st_size - 1)
    monkeypatch.setattr(storage, "read_events", lambda p: pytest.fail(f"{p} read whole"))
    listed = {g.path.name: g for g in storage.list_saved(tmp_path)}
    assert listed["b-huge.jsonl"].title == "TEKKEN – The Board Game"
    assert not listed["b-huge.jsonl"].known and "open it to see" in listed["b-huge.jsonl"].summary
    assert storage.last_unfinished(tmp_path) is None   # neither is known to be unfinished


def test_the_log_panel_reads_only_the_newest_entries(tmp_path):
    s = play(tmp_path / "g.jsonl", undo=False)
    s.record_roll(3, 1, [{"slot": 0, "kind": "d12", "face": "7", "status": "clean"}])
    s.do("tekken.heat")
    full = s.log()
    assert [s.log(last=n) for n in (1, 3, 40)] == [full[-1:], full[-3:], full]
    s.close()


# ------------------------------------------------------------------ fuzzing

JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False)
                    | st.text(max_size=20),
                    lambda inner: st.lists(inner, max_size=4)
                    | st.dictionaries(st.text(max_size=8), inner, max_size=4), max_leaves=12)
TYPES = st.sampled_from(["game.start", "session.undo", "session.redo", "dice.roll",
                         "tekken.strike", "tekken.adjust_hp", "tekken.card", "tekken.heat",
                         "kotd.roll", "x"])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(where=st.integers(0, 5), type_=TYPES, data=JSON, raw=st.binary(max_size=80),
       as_event=st.booleans(), seq_shift=st.integers(-1, 1))
def test_fuzz_journal_lines(tmp_path_factory, where, type_, data, raw, as_event, seq_shift):
    """Any line anywhere: a located CompanionError or a game, never another exception, and
    the other saved game untouched."""
    root = tmp_path_factory.mktemp("fuzz")
    games = files.games_dir(root)
    other = closed_game(games / "a-other.jsonl")
    other_bytes = other.read_bytes()
    path = closed_game(games / "b-fuzzed.jsonl")
    lines = lines_of(path)
    if as_event:
        payload = data if isinstance(data, dict) else {"value": data}
        new = Event(where + 1 + seq_shift, type_, payload).to_line().rstrip(b"\n")
    else:
        new = raw.replace(b"\n", b" ")
    lines[where] = new
    write_lines(path, lines)
    try:
        s = Session.open(path)
    except CompanionError as exc:
        assert "b-fuzzed.jsonl" in str(exc)
    else:
        s.close()
    assert cli.main(["replay", str(path)]) in (0, 5, 6)
    listed = {g.path.name: g for g in storage.list_saved(root)}
    assert listed["a-other.jsonl"].problem is None
    assert other.read_bytes() == other_bytes


def _configs() -> list[tuple[str, type, str]]:
    from companion import registry
    from companion.app.tower_config import DiceTowerConfig
    from tabletop_base.typed_yaml import dump_yaml
    from vision.config import CameraConfig, OverheadConfig, camera_data

    out = []
    for entry in registry.games():
        if entry.config is not None:
            text, _ = files.shipped_config_text(entry.config.name, entry.config.shipped)
            out.append((entry.config.name, registry.resolve(entry.config.type), text))
    for name, cls in (("dice_tower", DiceTowerConfig), ("overhead_camera", OverheadConfig)):
        out.append((name, cls, files.shipped_config_text(name)[0]))
    camera = CameraConfig((1920, 1080), ((1400.0, 0.0, 960.0), (0.0, 1400.0, 540.0),
                                         (0.0, 0.0, 1.0)), (0.1, -0.2, 0.0, 0.0, 0.05), 0.3, 20)
    out.append(("camera", CameraConfig, dump_yaml(camera_data(camera))))
    return out


CONFIGS = _configs()
YAML_BITS = st.sampled_from(["2001-13-45", "9" * 5000, "[" * 5000, "&a [1, 2]", "*a", "*b",
                             "-5", "1000000000", "null", "{", "]", "'", ": :", "\t", "~",
                             "!!python/object:os.system", "0x1F", ".inf", "yes", "- x"])


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(which=st.integers(0, len(CONFIGS) - 1), line=st.integers(0, 400),
       bit=YAML_BITS | st.text(max_size=30), replace_value=st.booleans())
def test_fuzz_every_config_file(tmp_path_factory, which, line, bit, replace_value):
    """Every config file with a value or a line replaced: loads or a located ConfigError."""
    from tabletop_base.typed_yaml import loads_typed

    name, cls, text = CONFIGS[which]
    lines = text.split("\n")
    i = line % len(lines)
    if replace_value and ":" in lines[i]:
        key = lines[i].split(":", 1)[0]
        lines[i] = f"{key}: {bit}"
    else:
        lines[i] = bit
    try:
        loads_typed(cls, "\n".join(lines), f"{name}.yaml")
    except CompanionError as exc:
        assert f"{name}.yaml" in str(exc)


def test_a_yaml_alias_bomb_is_refused_before_it_is_expanded():
    from companion.games.tekken import TekkenConfig
    from tabletop_base.errors import ConfigError
    from tabletop_base.typed_yaml import loads_typed

    bomb = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]\n" for i in range(1, 9))
    assert len(bomb) < 24_000
    with pytest.raises(ConfigError, match=r"bomb.yaml:\d+: its aliases expand to more than"):
        loads_typed(TekkenConfig, bomb, "bomb.yaml")
    many = "x: [" + ", ".join(["*a"] * 101) + "]\n"
    with pytest.raises(ConfigError, match=r"more than 100 aliases"):
        loads_typed(TekkenConfig, "a: &a 1\n" + many, "many.yaml")
