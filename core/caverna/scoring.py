"""End scoring (rules file section 12): every category from the data's formulas, and the total.

Categories, in the data's order: animals (+1 each, dogs included), missing farm animal types (-2 each), grain
(half a point each, rounded up, supply and fields), vegetables, rubies, dwarfs, unused spaces (-1 each),
pastures (2 / 4), mines (3 / 4), furnishing points (printed; Simple dwellings per `simple_dwelling_vp`;
an overbuilt Trader or Spare part storage scores nothing), bonus points (the yellow tiles' formulas; the
Writing chamber's formula refunds up to 7 of the missing-type, unused-space and begging points), gold and
begging markers (-3 each). Highest total wins; ties are shared.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from . import board as hb
from . import furnishings as fu
from .rules import Config, default_config, formula, rules
from .summary import PlayerSummary, base_variables


@dataclass(frozen=True)
class ScoreSheet:
    """Points per category (data order), per furnishing tile (id, printed points, bonus points), and the total."""

    categories: dict[str, int]
    furnishings: tuple[tuple[str, int, int], ...]
    total: int

    def __str__(self) -> str:
        lines = [f"{name:<28}{points:>5}" for name, points in self.categories.items()]
        lines.append(f"{'total':<28}{self.total:>5}")
        return "\n".join(lines)


def score(summary: PlayerSummary, config: Config | None = None) -> ScoreSheet:
    """The score sheet of one player."""
    config = config or default_config()
    tiles = [fid for _, fid in hb.furnishings_on(summary.board, config) if fid != rules().entry_level_dwelling.id]
    rows = tuple((fid, fu.vp(fid, config), fu.bonus_points(fid, summary, config)) for fid in tiles)
    variables: dict[str, object] = dict(base_variables(summary, config))
    variables.update(vp=[points for _, points, _ in rows], bonus=[bonus for _, _, bonus in rows])
    categories = {c.id: formula(c.formula)(variables) for c in rules().scoring}
    return ScoreSheet(categories, rows, sum(categories.values()))


def winners(totals: Sequence[int]) -> list[int]:
    """Seats with the highest total (ties are shared wins)."""
    best = max(totals)
    return [seat for seat, total in enumerate(totals) if total == best]
