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
    agents=("cavekit.search.caverna_agents",),
    analysis="cavekit.analysis.caverna",
    presets=(
        Preset("easy", "caverna_heuristic"),
        Preset("medium", "caverna_rollout:candidates=2,horizon=1"),
        Preset("hard", "caverna_rollout:candidates=3,horizon=2"),
        Preset("strongest", "caverna_rollout:candidates=3,horizon=0"),
    ),
)
