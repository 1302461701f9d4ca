"""A made-up Takkure roster for the tests and the screenshot script.

Only Yokozuna is a printed card (config/takkure.yaml); every other card below is invented
test data with plausible values, written to a temporary user roster file the way the app's
roster editor would write it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from companion.config import dump_yaml, loads_typed
from companion.games.takkure import TakkureConfig, lineup_setup


def _card(name: str, positions: list[str], skill: str, **stats: Any) -> dict[str, Any]:
    card = {"name": name, "mov": [4, 2], "bac": [7, 11], "str": 7, "ref": 7, "int": 6,
            "prt": 1, "bdy": 4, "base_mm": 30, "positions": positions,
            "position_skill": skill}
    card.update(stats)
    return card


DEMO_ROSTER: dict[str, Any] = {"teams": [
    {"name": "Yamato", "team_skill": "yamato", "players": [
        _card("Yokozuna", ["Forward"], "Onslaught", mov=[4, 2], bac=[7, 11], str=8, ref=6,
              int=7, prt=0, bdy=5, base_mm=40,
              skills=[{"name": "Sumo", "training": True,
                       "text": "Once per action when this player performs a successful "
                               "BREAKTHROUGH or TACKLE, you can force your opponent to "
                               "reroll the ENDURANCE roll."}]),
        _card("Kaze", ["Wing"], "Side step", ref=8),
        _card("Hana", ["Scrum-Half"], "Precise Pass", bac=[8, 10]),
        _card("Tetsu", ["Full-Back", "Wing"], "Expert Tackler", str=7),
    ]},
    {"name": "Teriomorphs", "team_skill": "teriomorphs", "players": [
        _card("Kitsune", ["Wing"], "Side step", ref=6),
        _card("Oso", ["Forward"], "Onslaught", str=9, bdy=6, base_mm=40),
        _card("Lince", ["Scrum-Half"], "Precise Pass"),
        _card("Lobo", ["Full-Back"], "Expert Tackler", str=8),
    ]},
]}

LINEUPS = (
    {"Wing": "Kaze", "Scrum-Half": "Hana", "Full-Back": "Tetsu", "Forward": "Yokozuna"},
    {"Wing": "Kitsune", "Scrum-Half": "Lince", "Full-Back": "Lobo", "Forward": "Oso"},
)


def demo_config() -> TakkureConfig:
    return loads_typed(TakkureConfig, dump_yaml(DEMO_ROSTER), "demo-roster.yaml")


def demo_setup() -> dict[str, Any]:
    cfg = demo_config()
    return {"teams": [lineup_setup(cfg.team(t.name), LINEUPS[i])
                      for i, t in enumerate(cfg.teams)]}


def write_demo_roster(root: Path) -> Path:
    """Put the demo roster where the app reads the user's roster file."""
    path = root / "config" / "takkure.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(dump_yaml(DEMO_ROSTER), encoding="utf-8")
    return path
