"""Typed YAML config: the shipped file loads; every bad file names file, key path, line."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion import files, registry
from companion.config import load_typed, loads_typed
from companion.errors import ConfigError
from companion.games.tekken import DEFAULT_MAX_HP, TekkenConfig

GOOD = """\
characters:
  - name: Jin
    max_hp: 20
  - name: Kazuya
    max_hp: 22
    max_hp_is_default: false
stages:
  - name: Descent into Subconscious
    floor_break: {cracked: 3, empty: 3}
rounds_to_win: 3
"""


def test_shipped_config_has_the_rulebook_characters_stage_and_defaults():
    cfg = loads_typed(TekkenConfig, *files.shipped_config_text("tekken"))
    assert [c.name for c in cfg.characters] == ["Jin", "Kazuya"]
    assert all(c.max_hp == DEFAULT_MAX_HP and c.max_hp_is_default for c in cfg.characters)
    stage = cfg.stage("Descent into Subconscious")
    assert stage.floor_break is not None
    assert (stage.floor_break.cracked, stage.floor_break.empty) == (3, 3)
    assert stage.floor_break.sides == ("Upperside", "Underside")
    assert cfg.rounds_to_win == 3


def test_good_text_loads_into_typed_values():
    cfg = loads_typed(TekkenConfig, GOOD, "t.yaml")
    assert cfg.character("Kazuya").max_hp == 22
    assert cfg.character("Kazuya").max_hp_is_default is False
    assert cfg.character("Jin").max_hp_is_default is True


@pytest.mark.parametrize("text, expected", [
    ("characters: [\n  - name: Jin\n", r"t.yaml:2: malformed YAML: expected the node content"),
    (GOOD.replace("    max_hp: 22\n", "    max_hp: 22\n    colour: red\n"),
     r"t.yaml:6: characters\[1\].colour: unknown key 'colour' \(known keys: max_hp, "
     r"max_hp_is_default, name, rage_cards\)"),
    (GOOD.replace("max_hp: 22", "max_hp: twenty"),
     r"t.yaml:5: characters\[1\].max_hp: expected a whole number, got 'twenty'"),
    (GOOD.replace("max_hp: 22", "max_hp: 22.5"),
     r"t.yaml:5: characters\[1\].max_hp: expected a whole number, got 22.5"),
    (GOOD.replace("max_hp: 22", "max_hp: 3"),
     r"t.yaml:5: characters\[1\].max_hp: max HP must be between 7 and 99, got 3"),
    (GOOD.replace("rounds_to_win: 3", "rounds_to_win: true"),
     r"t.yaml:10: rounds_to_win: expected a whole number, got True"),
    (GOOD.replace("name: Kazuya", "name: Jin"),
     r"t.yaml:4: characters\[1\].name: 'Jin' is listed twice"),
    (GOOD.replace("    floor_break: {cracked: 3, empty: 3}\n", "    floor_break: [3, 3]\n"),
     r"t.yaml:9: stages\[0\].floor_break: expected a mapping of FloorBreakConfig fields"),
    ("stages: []\n", r"t.yaml:1: characters: required key is missing"),
    ("- just\n- a list\n", r"t.yaml:1: \(top level\): expected a mapping"),
    ("", r"t.yaml: the file is empty"),
    (GOOD.replace("    max_hp: 20\n", "    max_hp: 20\n    max_hp: 21\n"),
     r"t.yaml:4: characters\[0\].max_hp: duplicate key"),
])
def test_bad_config_names_file_line_and_key(text, expected):
    with pytest.raises(ConfigError, match=expected):
        loads_typed(TekkenConfig, text, "t.yaml")


def test_missing_and_binary_files(tmp_path):
    with pytest.raises(ConfigError, match="nope.yaml: file not found"):
        load_typed(TekkenConfig, tmp_path / "nope.yaml")
    bad = tmp_path / "bin.yaml"
    bad.write_bytes(b"characters:\n  - name: \xff\xfe\n")
    with pytest.raises(ConfigError, match=r"bin.yaml:2: not UTF-8 text \(byte 22: 0xff\)"):
        load_typed(TekkenConfig, bad)


def test_yaml_tags_that_build_objects_are_refused():
    text = "characters: !!python/object/apply:os.system ['echo hi']\nstages: []\n"
    with pytest.raises(ConfigError, match="t.yaml:1: characters"):
        loads_typed(TekkenConfig, text, "t.yaml")


def test_user_config_overrides_the_shipped_file_and_is_validated_before_writing(tmp_path):
    cfg = registry.load_config("tekken", tmp_path)
    data = registry.config_data("tekken", cfg)
    data["characters"][0]["max_hp"] = 25
    data["characters"][0]["max_hp_is_default"] = False
    files.save_user_config("tekken", data, TekkenConfig, tmp_path)
    again = registry.load_config("tekken", tmp_path)
    assert again.character("Jin").max_hp == 25 and not again.character("Jin").max_hp_is_default
    data["characters"][0]["max_hp"] = 2
    with pytest.raises(ConfigError, match="max HP must be between"):
        files.save_user_config("tekken", data, TekkenConfig, tmp_path)
    assert registry.load_config("tekken", tmp_path).character("Jin").max_hp == 25


@dataclass(frozen=True)
class _Small:
    name: str
    count: int = 1
    ratio: float = 0.5


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200))
def test_any_text_either_loads_or_raises_config_error(text):
    try:
        loads_typed(_Small, text, "fuzz.yaml")
    except ConfigError as exc:
        assert str(exc).startswith("fuzz.yaml")


def test_a_field_can_take_its_yaml_key_from_metadata():
    """A player card's STR and INT are "str" and "int" in YAML, but fields named like the
    builtins would shadow them: the fields are str_ and int_, keyed by metadata."""
    from dataclasses import field

    @dataclass(frozen=True)
    class Card:
        str_: int = field(metadata={"key": "str"})
        ref: int = 1

    assert loads_typed(Card, "str: 8\nref: 3\n", "c.yaml") == Card(8, 3)
    with pytest.raises(ConfigError, match=r"c.yaml:1: str_: unknown key 'str_' \(known keys: "
                                          r"ref, str\)"):
        loads_typed(Card, "str_: 8\n", "c.yaml")
    with pytest.raises(ConfigError, match=r"c.yaml:1: str: required key is missing"):
        loads_typed(Card, "ref: 3\n", "c.yaml")
