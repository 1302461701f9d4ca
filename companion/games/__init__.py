"""One pure rules module per game. Nothing here imports Kivy, pyserial or OpenCV."""

from __future__ import annotations

from .danchie import RULES as DANCHIE
from .kotd import RULES as KOTD
from .tagteam import RULES as TAGTEAM
from .takkure import RULES as TAKKURE
from .tekken import RULES as TEKKEN

GAMES = {TEKKEN.name: TEKKEN, TAKKURE.name: TAKKURE, KOTD.name: KOTD, TAGTEAM.name: TAGTEAM,
         DANCHIE.name: DANCHIE}
