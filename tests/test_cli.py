"""The `companion` command: new/replay/log/games, and bad input -> message + exit code."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from companion.session import Session

from .test_session import SETUP

COMPANION = [str(Path(sys.executable).with_name("companion"))] \
    if Path(sys.executable).with_name("companion").exists() else [sys.executable, "-m",
                                                                 "companion"]


def run(*args: str, home: Path, config_dir: Path | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ, COMPANION_HOME=str(home))
    if config_dir is not None:
        env["COMPANION_CONFIG_DIR"] = str(config_dir)
    return subprocess.run([*COMPANION, *args], capture_output=True, text=True, env=env,
                          timeout=60)


@pytest.fixture
def game(tmp_path) -> Path:
    s = Session.create(tmp_path / "g.jsonl", "tekken", SETUP, rng=random.Random(4))
    s.do("tekken.card", result="hit")
    s.do("tekken.sweep")
    s.do("tekken.strike", symbols=[2])
    s.do("tekken.stun")
    s.undo()
    s.close()
    return tmp_path / "g.jsonl"


def test_new_creates_a_saved_game_and_prints_its_path(tmp_path):
    out = run("new", "tekken", "--p1", "Kazuya", "--p2", "Jin", "--hp1", "25", "--rounds",
              "2", "--offensive", "2", "--no-app", home=tmp_path)
    assert out.returncode == 0, out.stderr
    path = Path(out.stdout.strip())
    assert path.parent == tmp_path / "games" and path.exists()
    state = json.loads(run("replay", str(path), "--json", home=tmp_path).stdout)["state"]
    assert [f["name"] for f in state["fighters"]] == ["Kazuya", "Jin"]
    assert state["fighters"][0]["max_hp"] == 25 and state["rounds_to_win"] == 2
    assert state["offensive"] == 1
    listing = run("games", home=tmp_path)
    assert "Kazuya 0 – 0 Jin, round 1 (in progress)" in listing.stdout


def test_replay_json_prints_the_final_state(game, tmp_path):
    out = run("replay", str(game), "--json", home=tmp_path)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["game"] == "tekken" and data["events"] == 6 and data["actions_in_force"] == 3
    kazuya = data["state"]["fighters"][1]
    assert kazuya["hp"] == 17 and kazuya["knocked_down"] and kazuya["stun_cards"] == 0
    assert "order" not in data["state"]["floor"]
    hidden = json.loads(run("replay", str(game), "--json", "--reveal-hidden",
                            home=tmp_path).stdout)
    assert len(hidden["state"]["floor"]["order"]) == 6


def test_log_prints_the_readable_action_log(game, tmp_path):
    out = run("log", str(game), home=tmp_path)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[1].endswith("Jin: card 1 connects")
    assert lines[2].endswith("Kazuya is knocked down (Sweep)")
    assert lines[3].endswith("Kazuya -3 HP (Strike 2, knocked down +1)")
    assert len(lines) == 5 and "Jin 0 – 0 Kazuya, round 1" in lines[4]


def test_torn_last_line_gives_line_number_exit_6_and_changes_nothing(game, tmp_path):
    with open(game, "ab") as f:
        f.write(b'{"seq":7,"type":"tekken.ca')
    before = game.read_bytes()
    out = run("replay", str(game), "--json", home=tmp_path)
    assert out.returncode == 6 and "Traceback" not in out.stderr
    assert "g.jsonl:7: the last line is cut off" in out.stderr
    assert "the 6 events before it are intact" in out.stderr
    assert game.read_bytes() == before
    salvaged = run("replay", str(game), "--json", "--ignore-torn-tail", home=tmp_path)
    assert salvaged.returncode == 0 and json.loads(salvaged.stdout)["events"] == 6


def test_a_journal_of_another_game_gives_exit_5(tmp_path):
    bad = tmp_path / "other.jsonl"
    bad.write_text('{"seq":1,"type":"game.start","at":"","data":{"game":"chess"}}\n')
    out = run("log", str(bad), home=tmp_path)
    assert out.returncode == 5 and "Traceback" not in out.stderr
    assert "other.jsonl:1: unknown game 'chess'" in out.stderr
    bad.write_text('{"seq":1,"type":"game.start","at":"","data":{"game":"takkure"}}\n')
    out = run("log", str(bad), home=tmp_path)
    assert out.returncode == 5 and "other.jsonl:1: bad game.start" in out.stderr


def test_missing_journal_gives_exit_5(tmp_path):
    out = run("replay", str(tmp_path / "nope.jsonl"), home=tmp_path)
    assert out.returncode == 5 and "nope.jsonl: no such saved game" in out.stderr


@pytest.mark.parametrize("yaml_text, message", [
    ("characters: [\n", "tekken.yaml:2: malformed YAML"),
    ("characters:\n  - name: Jin\n    hp: 3\nstages: []\n",
     "tekken.yaml:3: characters[0].hp: unknown key 'hp'"),
    ("characters:\n  - name: Jin\n    max_hp: lots\nstages: []\n",
     "tekken.yaml:3: characters[0].max_hp: expected a whole number, got 'lots'"),
])
def test_bad_config_gives_exit_3_naming_file_line_and_key(tmp_path, yaml_text, message):
    config = tmp_path / "config"
    config.mkdir()
    (config / "tekken.yaml").write_text(yaml_text)
    home = tmp_path / "home"
    out = run("new", "tekken", "--no-app", home=home, config_dir=config)
    assert out.returncode == 3 and "Traceback" not in out.stderr
    assert message in out.stderr
    assert not (home / "games").exists()
    # The app refuses to start on it too, before any window opens.
    out = run(home=home, config_dir=config)
    assert out.returncode == 3 and message in out.stderr


def test_unknown_character_is_a_clear_error(tmp_path):
    out = run("new", "tekken", "--p1", "Heihachi", "--no-app", home=tmp_path)
    assert out.returncode == 2 and "unknown character 'Heihachi'" in out.stderr
