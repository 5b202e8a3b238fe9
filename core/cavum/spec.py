"""Cavum as the generic layers see it (see `cavekit.core.spec`)."""
from __future__ import annotations

from ..spec import GameSpec, Parameter, Preset
from .rules import CHOICES, KINDS, UNLIMITED, make_config, rules


def _parameters() -> tuple[Parameter, ...]:
    d = make_config(players=2).as_dict()
    colours = ", ".join(rules().colours)
    listed = tuple(Parameter(name, d[name], choices) for name, choices in CHOICES.items())
    return listed + (
        Parameter("sequence_card_dynamite", d["sequence_card_dynamite"],
                  allowed=f"the dynamite kinds of sequence cards 1-4: four distinct kinds among {', '.join(KINDS)}"),
        Parameter("colour_sale_min_bid", d["colour_sale_min_bid"], allowed="an integer from 1 to 9"),
        Parameter("colour_sale_colour_order", d["colour_sale_colour_order"],
                  allowed=f"the colours {colours}, each once, in any order"),
        Parameter("two_chip_supply_limit", d["two_chip_supply_limit"],
                  allowed=f"an integer from 0 to 99 or {UNLIMITED!r}"),
    )


SPEC = GameSpec(
    name="cavum",
    title="Cavum",
    player_counts=tuple(range(rules().min_players, rules().max_players + 1)),
    default_players=2,
    engines=("compiled", "reference"),
    parameters=_parameters(),
    zero_sum=True,                  # shared-win returns: co-winners split the win (see cavekit.core.cavum.game)
    information="by_parameters",    # stones in hand hidden from 3 players on unless stones_in_hand_visibility="public"
    game_class="cavekit.core.cavum.game:Cavum",
    evaluator="cavekit.search.cavum_agents:cavum_evaluate",
    agents=("cavekit.search.cavum_agents",),
    renderer="cavekit.core.cavum.render:render_state",
    dealer="cavekit.core.cavum.deal",
    analysis="cavekit.analysis.cavum",
    presets=(
        Preset("easy", "cavum_heuristic"),
        Preset("medium", "mcts:iterations=100,rollout=none"),
        Preset("hard", "compiled_mcts:iterations=17500,rollout=none",
               cost="5.3 CPU-s a two-player game, heuristic opponent included (2026-12-07)",
               strength="99.0% [96.4, 99.7] against cavum_heuristic over 200 two-player games: cavekit match cavum "
                        "--agents compiled_mcts:iterations=17500,rollout=none cavum_heuristic --games 200 --seed 0 "
                        "(results/compiled_search_strength; the Python mcts:iterations=500,rollout=none at 4.8 "
                        "CPU-s a game scored 83.5% [77.7, 88.0] on the same deals)"),
        Preset("strongest", "compiled_mcts:iterations=70000,rollout=none"),
    ),
)
