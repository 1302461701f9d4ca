"""The one registry of games (companion.registry): the shell names no game, a sixth game
plugs in through the registry alone, and ``vision``/``firmware_bridge`` stay apart from
``companion`` and Kivy."""

from __future__ import annotations

import ast
import dataclasses
import re
import subprocess
import sys
from pathlib import Path

import pytest

from companion import registry
from companion.registry import GameEntry, HomeTile

ROOT = Path(__file__).resolve().parent.parent
BOX_GAMES = ["tekken", "takkure", "kotd", "tagteam", "danchie"]


def test_the_five_games_of_the_box_are_registered_in_homes_order():
    assert registry.ids()[:5] == BOX_GAMES
    for entry in registry.games():
        rules = registry.rules(entry.id)
        assert rules.name == entry.id
        assert entry.setup in entry.screens and entry.play in entry.screens
        assert registry.load_config(entry.id, Path("/nonexistent")) is not None


def test_each_game_loads_its_config_from_package_data_and_the_users_copy_wins(tmp_path):
    from companion.games.kotd import KotdConfig

    shipped = registry.load_config("kotd", tmp_path)
    assert isinstance(shipped, KotdConfig)
    data = registry.config_data("kotd", shipped)
    data["second_player"]["energy"] = shipped.second_player.energy + 1
    cfg = dataclasses.replace(shipped, second_player=dataclasses.replace(
        shipped.second_player, energy=shipped.second_player.energy + 1))
    path = registry.save_config("kotd", cfg, tmp_path)
    assert path == tmp_path / "config" / "kotd.yaml"
    assert registry.load_config("kotd", tmp_path).second_player.energy == \
        shipped.second_player.energy + 1


def test_unknown_game_is_a_journal_error_naming_file_and_line():
    from companion.errors import JournalError

    with pytest.raises(JournalError, match=r"g\.jsonl:1: unknown game 'chess'"):
        registry.rules("chess", "g.jsonl", 1)


def _entry(game_id: str, **changes) -> GameEntry:
    base = GameEntry(id=game_id, rules="tests.fakegame:RULES", setup=f"{game_id}_setup",
                     play=f"{game_id}_game", tile=HomeTile(game_id, "", (0, 0, 0, 1),
                                                           (0, 0, 0, 1)),
                     screens={f"{game_id}_setup": "x:Y", f"{game_id}_game": "x:Z"})
    return dataclasses.replace(base, **changes)


def test_register_refuses_a_screen_name_of_another_game_and_undeclared_screens():
    with pytest.raises(ValueError, match="already 'tekken'"):
        registry.register(_entry("clash", screens={"tekken_game": "x:Y", "clash_setup": "x:Y",
                                                   "clash_game": "x:Z"}))
    with pytest.raises(ValueError, match="not declared"):
        registry.register(_entry("half", screens={"half_setup": "x:Y"}))
    assert "clash" not in registry.ids() and "half" not in registry.ids()


def test_a_game_from_an_installed_package_comes_through_the_entry_point_group(monkeypatch):
    class FakeEntryPoint:
        def load(self):
            return _entry("plugged")

    class BrokenEntryPoint:
        def load(self):
            raise ImportError("a broken plug-in")

    seen = []

    def fake_entry_points(group):
        seen.append(group)
        return [FakeEntryPoint(), BrokenEntryPoint()]

    monkeypatch.setattr(registry, "entry_points", fake_entry_points)
    monkeypatch.setattr(registry, "_entries", {})
    monkeypatch.setattr(registry, "_rules", {})
    monkeypatch.setattr(registry, "_loaded", False)
    assert registry.ids() == BOX_GAMES + ["plugged"]   # the broken one is skipped
    assert seen == ["tabletop_companion.games"]


# -- the shell names no game -------------------------------------------------------------
SHELL = ["companion/app/main.py", "companion/app/game_screen.py",
         "companion/app/screens/home.py", "companion/app/screens/home.kv",
         "companion/app/screens/saved_games.py", "companion/app/screens/saved_games.kv",
         "companion/app/screens/dice.py", "companion/storage.py", "companion/cli.py",
         "companion/session.py", "companion/journal.py"]
GAME_WORDS = re.compile(r"tekken|takkure|kotd|king of tokyo|tag ?team|danchie", re.I)


def _code_words(path: Path) -> list[tuple[int, str]]:
    """Names and string constants of a module (docstrings and comments left out)."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".kv":
        return [(n, line.split("#", 1)[0]) for n, line in enumerate(text.splitlines(), 1)]
    tree = ast.parse(text)
    docstrings = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                docstrings.add(id(body[0].value))
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                and id(node) not in docstrings:
            out.append((node.lineno, node.value))
        elif isinstance(node, ast.Name):
            out.append((node.lineno, node.id))
        elif isinstance(node, ast.Attribute):
            out.append((node.lineno, node.attr))
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            out.append((node.lineno, node.name))
    return out


@pytest.mark.parametrize("name", SHELL)
def test_the_shell_names_no_game(name):
    found = [(line, word) for line, word in _code_words(ROOT / name) if GAME_WORDS.search(word)]
    assert found == [], f"{name} names a game: {found}"


# -- layering ------------------------------------------------------------------------------
def _imports(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            out.append((node.lineno, node.module))
    return out


@pytest.mark.parametrize("package", ["vision", "firmware_bridge", "tabletop_base"])
def test_vision_and_the_bridge_never_import_companion_or_kivy(package):
    bad = [(str(p.relative_to(ROOT)), line, mod)
           for p in sorted((ROOT / package).rglob("*.py"))
           for line, mod in _imports(p) if mod.split(".")[0] in ("companion", "kivy")]
    assert bad == []
    # and at run time: importing every module pulls in neither
    code = ("import importlib, pkgutil, sys\n"
            f"import {package} as pkg\n"
            "for m in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + '.'):\n"
            "    if '.firmware.' in m.name or m.name.endswith('__main__'):\n"
            "        continue  # MicroPython sources (run by the unix port); entry points\n"
            "    importlib.import_module(m.name)\n"
            "print(sorted({n.split('.')[0] for n in sys.modules} & {'companion', 'kivy'}))\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_the_layering_scan_does_catch_an_import(tmp_path):
    """The scan above is not vacuous: an import of companion is found."""
    f = tmp_path / "m.py"
    f.write_text("import os\nfrom companion.errors import CompanionError\n")
    assert [m for _, m in _imports(f)] == ["os", "companion.errors"]
    g = tmp_path / "s.py"
    g.write_text('"""About TEKKEN."""\nX = "tekken_game"  # Takkure\n')
    assert [w for _, w in _code_words(g) if GAME_WORDS.search(w)] == ["tekken_game"]
