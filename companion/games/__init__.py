"""One pure rules module per game. Nothing here imports Kivy, pyserial or OpenCV.

Which games there are is the registry's business (:mod:`companion.registry`): ``GAMES`` is
a read-only view of the registered games' rules, by game id.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any


class _RulesView(Mapping[str, Any]):
    def __getitem__(self, game_id: str) -> Any:
        from .. import registry

        if registry.find(game_id) is None:
            raise KeyError(game_id)
        return registry.rules(game_id)

    def __iter__(self) -> Iterator[str]:
        from .. import registry

        return iter(registry.ids())

    def __len__(self) -> int:
        from .. import registry

        return len(registry.ids())


GAMES: Mapping[str, Any] = _RulesView()
