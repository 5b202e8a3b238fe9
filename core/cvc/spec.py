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
            "cavekit.search.cvc_expectimax", "cavekit.search.cvc_planner"),
    analysis="cavekit.analysis.cvc",
    default=True,
    presets=(
        Preset("easy", "greedy", cost="about 0.2 CPU-s a solo game",
               strength="solo 43.4 points over 40 deals (cavekit match cvc --players 1 --agents greedy --games 40 "
                        "--seed 0, 2026-12-02)"),
        Preset("medium", "cvc_expectimax:depth=2,width=16,chance_samples=2", players=(2,),
               cost="0.11 CPU-s a turn on average, 0.72 s at most (python -m cavekit.analysis.web.bench --game cvc "
                    "--ai medium --games 6, 2026-12-02)"),
        Preset("hard", "cvc_turn_mcts:iterations=500", players=(2,), cost="about 13 CPU-s a two-player game",
               strength="75.5% [69.1, 80.9] against greedy over 200 games, seats swapped (results/strength, "
                        "before deals)"),
        Preset("strongest", "cvc_turn_mcts:iterations=6000", players=(2,),
               cost="0.58 CPU-s a move, 59 CPU-s a game against greedy (strength.move_cost, 2 games, 2026-12-03)",
               strength="10 of 12 games against cvc_turn_mcts:iterations=500 (cavekit match cvc --agents "
                        "cvc_turn_mcts:iterations=6000 cvc_turn_mcts:iterations=500 --duplicate --games 12 --seed 11, "
                        "2026-12-03); the 400-game measurement is the strength report's"),
        Preset("medium", "cvc_expectimax:depth=2", players=(1,),
               strength="solo 49.2 points (issue 23's measurement, before deals)"),
        Preset("hard", "cvc_plan:candidates=4,futures=4", players=(1,)),
        Preset("strongest", "cvc_plan", players=(1,), cost="about 23 CPU-s a game (loaded 2-core machine)",
               strength="solo 50.0 points over 20 deals, 60% reaching 50 (cavekit match cvc --players 1 --agents "
                        "cvc_plan:value=heuristic,candidates=8,futures=8 --games 20 --seed 0, 2026-12-02); "
                        "told the deal, 52.0 on the same deals"),
    ),
)
