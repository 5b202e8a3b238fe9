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
        Preset("easy", "caverna_heuristic", cost="0.9 s a solo game, 2.8 s a two-player game (2026-11-30)",
               strength="solo 43 points; 10-0 against random in two-player games (search/caverna_agents.py)"),
        Preset("medium", "caverna_rollout:candidates=2,horizon=1"),
        Preset("hard", "caverna_rollout:candidates=3,horizon=2", cost="about 30 s a two-player game",
               strength="8-0 against caverna_heuristic, two players, seats rotated (results/caverna_strength)"),
        Preset("strongest", "caverna_rollout:candidates=3,horizon=0", cost="24 CPU-s a solo game",
               strength="solo 63 points (search/caverna_agents.py)"),
    ),
)
