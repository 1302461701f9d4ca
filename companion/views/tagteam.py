"""Tag Team's screen view: the turn being entered (what each side's cards do) and the decks'
line."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..games import tagteam as tt
from ..i18n import N_, _, ngettext

ICON_MARK = {tt.STOP: N_("STOP"), tt.POWER_GAIN: N_("+P")}


@dataclass
class TurnEntry:
    """What one player's revealed card does, as counters the player taps."""

    active: int = 0
    attack: bool = False
    attack_partner: bool = False   # the card attacks the opponent's partner
    partner_attack: bool = False
    direct: int = 0          # to the opponent's active fighter
    direct_self: int = 0     # to your own active fighter (a card's cost)
    block: bool = False
    block_power: int = 0     # the block's bonus: power for your active fighter
    heal: int = 0
    heal_partner: int = 0
    heal_on_hit: bool = False  # the attack's bonus: heal as much as your power
    power: int = 0
    partner_power: int = 0
    transfer: int = 0        # power to your partner
    extra: list[dict[str, Any]] = field(default_factory=list)

    def effects(self) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        if self.attack:
            a: dict[str, Any] = {"kind": "attack"}
            if self.heal_on_hit:
                a["bonus"] = [{"kind": "heal", "amount": "power"}]
            out.append(a)
        if self.attack_partner:
            out.append({"kind": "attack", "target": "opponent_partner"})
        if self.partner_attack:
            out.append({"kind": "attack", "by": "partner", "target": "opponent"})
        if self.direct:
            out.append({"kind": "direct", "target": "opponent", "amount": self.direct})
        if self.direct_self:
            out.append({"kind": "direct", "target": "self", "amount": self.direct_self})
        if self.block:
            b: dict[str, Any] = {"kind": "block"}
            if self.block_power:
                b["bonus"] = [{"kind": "power", "delta": self.block_power}]
            out.append(b)
        if self.heal:
            out.append({"kind": "heal", "amount": self.heal})
        if self.heal_partner:
            out.append({"kind": "heal", "target": "partner", "amount": self.heal_partner})
        if self.power:
            out.append({"kind": "power", "delta": self.power})
        if self.partner_power:
            out.append({"kind": "power", "target": "partner", "delta": self.partner_power})
        if self.transfer:
            out.append({"kind": "transfer", "from": "self", "to": "partner",
                        "amount": self.transfer})
        return out + list(self.extra)

    def text(self) -> str:
        parts = []
        if self.attack:
            parts.append(_("Attack (heal = power if it lands)") if self.heal_on_hit else _("Attack"))
        if self.attack_partner:
            parts.append(_("attack their partner"))
        if self.partner_attack:
            parts.append(_("partner attacks"))
        if self.direct:
            parts.append(_("{count} direct damage").format(count=self.direct))
        if self.direct_self:
            parts.append(_("{count} direct damage to self").format(count=self.direct_self))
        if self.block:
            parts.append(_("Block (bonus +{count} power)").format(count=self.block_power)
                         if self.block_power else _("Block"))
        if self.heal:
            parts.append(_("heal {count}").format(count=self.heal))
        if self.heal_partner:
            parts.append(_("heal partner {count}").format(count=self.heal_partner))
        if self.power:
            parts.append(_("power {delta:+d}").format(delta=self.power))
        if self.partner_power:
            parts.append(_("partner power {delta:+d}").format(delta=self.partner_power))
        if self.transfer:
            parts.append(_("give {count} power to partner").format(count=self.transfer))
        return ", ".join(parts) or _("no effect")

    def side(self) -> dict[str, Any]:
        return {"active": self.active, "effects": self.effects()}


def decks_text(s: tt.TagTeamState) -> str:
    """Each player's Combat deck (cards left this round) and Construction deck."""
    left = (ngettext(", {count} to reveal", ", {count} to reveal", s.combat_left).format(
        count=s.combat_left) if s.phase == "combat" else "")
    same = s.combat[0] == s.combat[1] and s.construction[0] == s.construction[1]
    if same:
        return (ngettext("Combat deck: {count} card", "Combat deck: {count} cards",
                         s.combat[0]).format(count=s.combat[0]) + left + " · " +
                ngettext("Construction deck: {count} card", "Construction deck: {count} cards",
                         s.construction[0]).format(count=s.construction[0]))
    return " · ".join(_("{player}: Combat {combat}, Construction {construction}").format(
        player=s.names[p], combat=s.combat[p], construction=s.construction[p])
        for p in (0, 1)) + left
