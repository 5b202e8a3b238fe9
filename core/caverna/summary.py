"""A player's position as scoring sees it (`PlayerSummary`) and the variables the data's formulas read.

The scoring categories (rules file section 12) and the yellow furnishings' bonus formulas (section 11) are
formula strings in the data file over named quantities (`sheep`, `grain_total`, `armed_dwarfs`, ...); this
module computes those quantities from a summary, so scoring and furnishing bonuses stay data-driven.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from . import board as hb
from .rules import ANIMALS, FARM_ANIMALS, GOODS, Config, Pos, default_config, formula, freeze_goods, rules


@dataclass(frozen=True)
class PlayerSummary:
    """One player's end-of-game (or any-time) position: home board, supply, animals, dwarfs, weapons, begging."""

    board: hb.Board
    goods: tuple[tuple[str, int], ...] = ()      # personal supply (wood ... food)
    animals: tuple[tuple[str, int], ...] = ()    # animals on the home board, dogs included
    dwarfs: int = 2
    weapons: tuple[int, ...] = ()                # strength of each armed dwarf's weapon
    begging_markers: int = 0

    def __post_init__(self) -> None:
        for name, _ in self.goods:
            if name not in GOODS:
                raise ValueError(f"unknown good {name!r}; goods: {', '.join(GOODS)}")
        for name, _ in self.animals:
            if name not in ANIMALS:
                raise ValueError(f"unknown animal {name!r}; animals: {', '.join(ANIMALS)}")
        if len(self.weapons) > self.dwarfs:
            raise ValueError(f"{len(self.weapons)} weapons for {self.dwarfs} dwarfs")

    @classmethod
    def make(cls, board: hb.Board | None = None, goods: Mapping[str, int] | None = None,
             animals: Mapping[str, int] | None = None, dwarfs: int = 2, weapons: tuple[int, ...] = (),
             begging_markers: int = 0) -> PlayerSummary:
        """A summary from plain dicts (board: the setup board when omitted)."""
        return cls(board or hb.initial_board(), freeze_goods(goods), freeze_goods(animals), dwarfs,
                   tuple(weapons), begging_markers)

    def good(self, name: str) -> int:
        """Amount of a good in the personal supply."""
        return dict(self.goods).get(name, 0)

    def animal(self, name: str) -> int:
        """Number of animals of a type on the home board."""
        return dict(self.animals).get(name, 0)

    @property
    def armed_dwarfs(self) -> int:
        """Dwarfs carrying a weapon."""
        return len(self.weapons)


def adjacent_dwellings(board: hb.Board, pos: Pos, config: Config | None = None) -> int:
    """Dwellings (the entry-level dwelling included) orthogonally adjacent to a position."""
    count = 0
    for n in hb.neighbours(pos):
        space = board.at(n)
        if space is None or (not hb.on_board(n) and not (config or default_config()).office_room_overhang_usable):
            continue
        if space.furnishing and rules().furnishing(space.furnishing).is_dwelling:
            count += 1
    return count


def base_variables(s: PlayerSummary, config: Config | None = None) -> dict[str, int]:
    """The scoring categories' variables except the furnishing lists (`vp`, `bonus`)."""
    config = config or default_config()
    crops = hb.field_crops(s.board, config)
    small, large = hb.pasture_counts(s.board, config)
    ore_mines, ruby_mines = hb.mine_counts(s.board)
    v = {a: s.animal(a) for a in ANIMALS}
    v.update(types_with_zero=sum(1 for a in FARM_ANIMALS if s.animal(a) == 0),
             grain_total=s.good("grain") + crops["grain"], vegetable_total=s.good("vegetable") + crops["vegetable"],
             rubies=s.good("ruby"), dwarfs=s.dwarfs, unused_spaces=hb.unused_spaces(s.board), small=small,
             large=large, ore_mines=ore_mines, ruby_mines=ruby_mines, gold=s.good("gold"),
             begging_markers=s.begging_markers)
    return v


# bonus-formula penalty variables -> the scoring category each one is
PENALTY_CATEGORIES = {"missing_types_penalty": "missing_farm_animal_types", "unused_penalty": "unused_spaces",
                      "begging_penalty": "begging"}


def category_value(category_id: str, variables: Mapping[str, object]) -> int:
    """One scoring category's points from the variables."""
    category = next(c for c in rules().scoring if c.id == category_id)
    return formula(category.formula)(variables)


def bonus_variables(s: PlayerSummary, config: Config | None = None, pos: Pos | None = None) -> dict[str, int]:
    """Variables of the bonus formulas; `pos` is the furnishing's own space (State parlor adjacency)."""
    config = config or default_config()
    base = base_variables(s, config)
    v = dict(base)
    v.update(stone=s.good("stone"), ore=s.good("ore"), armed_dwarfs=s.armed_dwarfs,
             farm_animals=sum(s.animal(a) for a in FARM_ANIMALS),
             yellow_tiles_owned=sum(1 for _, fid in hb.furnishings_on(s.board, config)
                                    if rules().furnishing(fid).yellow_tag),
             adjacent_dwellings=adjacent_dwellings(s.board, pos, config) if pos is not None else 0)
    if config.food_chamber_counts == "supply_only":
        v.update(grain_total=s.good("grain"), vegetable_total=s.good("vegetable"))
    for name, category in PENALTY_CATEGORIES.items():
        v[name] = category_value(category, base)
    return v
