"""Cave vs Cave as the generic layers see it (see `cavekit.core.spec`)."""
from __future__ import annotations

from ..spec import GameSpec, Parameter, Preset
from .rules import BANNED_ROOMS_OPTIONS, CONFIG_CHOICES, NUM_ROOMS, make_config, rules


def _parameters() -> tuple[Parameter, ...]:
    defaults = make_config().as_dict()
    rooms = ", ".join(room.id for room in rules().rooms[:NUM_ROOMS])
    listed = tuple(Parameter(name, defaults[name], tuple(list(c) if isinstance(c, tuple) else c for c in choices))
                   for name, choices in CONFIG_CHOICES.items())
    bans = tuple(Parameter(name, [], allowed=f"a list of room ids (analysis variant): {rooms}")
                 for name in BANNED_ROOMS_OPTIONS)
    return listed + bans


SPEC = GameSpec(
    name="cvc",
    title="Caverna: Cave vs Cave",
    player_counts=(1, 2),
    default_players=2,
    engines=("compiled", "reference"),
    parameters=_parameters(),
    zero_sum=True,              # two players: +1 win, -1 loss, 0 draw
    information="perfect",      # nothing is hidden; chance (tiles, rooms turned up) is public once it happens
    game_class="cavekit.core.cvc.game:CaveVsCave",
    observation_encoder="cavekit.core.cvc.tensors:CvcObservationEncoder",
    evaluator="cavekit.search.cvc_heuristic:cvc_evaluate",
    dealer="cavekit.core.cvc.deal",
    agents=("cavekit.search.cvc_greedy", "cavekit.search.cvc_mcts", "cavekit.search.cvc_turn_mcts",
            "cavekit.search.cvc_expectimax"),
    analysis="cavekit.analysis.cvc",
    default=True,
    presets=(
        Preset("easy", "greedy"),
        Preset("medium", "cvc_expectimax:depth=2", players=(2,)),
        Preset("hard", "cvc_turn_mcts:iterations=500", players=(2,)),
        Preset("strongest", "cvc_turn_mcts:iterations=2000", players=(2,)),
        Preset("medium", "cvc_turn_mcts:iterations=500", players=(1,)),
        Preset("hard", "cvc_expectimax:depth=2", players=(1,)),
        Preset("strongest", "cvc_expectimax:depth=3", players=(1,)),
    ),
)
