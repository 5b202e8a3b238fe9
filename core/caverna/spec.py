"""Caverna: The Cave Farmers as the generic layers see it (see `cavekit.core.spec`)."""
from __future__ import annotations

from ..spec import GameSpec, Parameter, Preset
from .rules import CONFIG_CHOICES, make_config


def _parameters() -> tuple[Parameter, ...]:
    defaults = make_config().as_dict()
    return tuple(Parameter(name, defaults[name], choices) if choices else
                 Parameter(name, defaults[name], allowed="one to three action spaces of the 1-3 player boards")
                 for name, choices in CONFIG_CHOICES.items())


SPEC = GameSpec(
    name="caverna",
    title="Caverna: The Cave Farmers",
    player_counts=(1, 2, 3, 4, 5, 6, 7),
    default_players=2,
    engines=("compiled", "reference"),
    parameters=_parameters(),
    zero_sum=True,              # returns are shared-win returns (see cavekit.core.caverna.game)
    information="perfect",
    game_class="cavekit.core.caverna.game:Caverna",
    evaluator="cavekit.search.caverna_agents:caverna_evaluate",
    dealer="cavekit.core.caverna.deal",
    agents=("cavekit.search.caverna_agents", "cavekit.search.caverna_fast"),
    analysis="cavekit.analysis.caverna",
    presets=(
        # measured 2026-12-02 on the shared 2-core machine (search/caverna_fast.pyx; solo: seeds 0-29, chance
        # from numpy seeded by the game number; two players: `cavekit match caverna --agents
        # caverna_pilot:candidates=3,horizon=2 caverna_greedy --games 20 --seed 0 --jobs 1`)
        Preset("easy", "caverna_greedy", cost="0.01 CPU-s a solo game",
               strength="solo 47.6 points (30 games), never grows its family"),
        Preset("medium", "caverna_pilot:candidates=2,horizon=1"),
        Preset("hard", "caverna_pilot:candidates=3,horizon=2",
               strength="20-0 against caverna_greedy, two players, seats alternating (57.3 points to 31.0)"),
        Preset("strongest", "caverna_pilot:candidates=8,horizon=0", cost="1.5 CPU-s a solo game",
               strength="solo 63.8 points (30 games, sd 6.1), family 2.6 at the end"),
    ),
)
