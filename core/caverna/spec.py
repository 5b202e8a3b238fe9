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
    agents=("cavekit.search.caverna_agents", "cavekit.search.caverna_fast", "cavekit.search.caverna_nrpa"),
    analysis="cavekit.analysis.caverna",
    presets=(
        # measured on the shared 2-core machine with the tuned weights (search/data/caverna_weights.json; the
        # solo ones refined for the pilot), wall seconds a game from the games table.
        # Solo, 2026-12-05, with the solo weights from 6 restarts of the tuning (train_weights --solo-restarts);
        # re-measured 2026-12-06 with the weapon-aware evaluator: `cavekit strength caverna --parts solo,ladder
        # --solo-games 100 --jobs 2 --out results/caverna_strength/report` (20 games a preset on the same seeds;
        # wall seconds a game with 2 games at a time on 2 cores).
        # Two players: `cavekit match caverna --agents A B --duplicate --games N --seed S` (seats swapped on
        # every deal; draws, shared wins on points, count half), and the report's ladder (seed 0).
        Preset("easy", "caverna_greedy", players=(1,), cost="0.02 s a solo game",
               strength="solo 76.2 points [72.8, 79.7] (20 games, max 85), family 3.0 at the end"),
        Preset("medium", "caverna_pilot:candidates=3", players=(1,), cost="0.5 s a solo game",
               strength="solo 84.2 points [83.5, 84.9] (20 games, max 87), family 3.0"),
        Preset("hard", "caverna_pilot:candidates=3,level=2", players=(1,), cost="14 s a solo game",
               strength="solo 89.8 points [88.7, 90.9] (20 games, max 92), family 3.0"),
        # Solo: the nested pilot with noisy rollouts (caverna_pilot's `noise`), which keeps the best of more
        # distinct games; the noiseless level 3 (candidates=2) scored 85.5 over 20 games in 43 s.
        Preset("strongest", "caverna_pilot:candidates=3,rollouts=2,noise=1,level=2", players=(1,),
               cost="50 s a solo game (the report's ladder, 2 games at a time on 2 cores; 77 s on 2026-12-05)",
               strength="solo 94.7 points [94.0, 95.3] over 100 games (87 to 100, 2% reach 100), family 3.0 "
                        "(cavekit strength caverna --parts solo,ladder --solo-games 100 --jobs 2, 2026-12-06; "
                        "95.2 on 2026-12-05 before the weapon-aware evaluator, 88.4 and a family of 2.1 with the "
                        "solo weights before)"),
        # Two or more players, 2026-12-06, after the evaluator began seeing a weapon forged during its dwarf's turn
        # and the heuristic began settling its one-step choices (caverna_agents.SETTLE_STEPS), which costs about
        # 2-2.8 times the CPU (CPU seconds a two-player game, both seats, measured in one process on the same
        # deals, 4-20 games: easy 0.03 -> 0.06, medium 0.19 -> 0.49, hard 0.67 -> 1.90, strongest 1.05 -> 2.84).
        # The ladder: `cavekit strength caverna --parts players,ladder` (results/caverna_strength/README.md).
        Preset("easy", "caverna_greedy", players=(2, 3, 4, 5, 6, 7),
               cost="0.06 CPU-s a two-player game (both seats)",
               strength="33 of 40 against caverna_greedy:weights=hand (the hand-set evaluator; seed 0), 61.7 "
                        "points a seat to 32.6"),
        Preset("medium", "caverna_pilot:candidates=2,horizon=1", players=(2, 3, 4, 5, 6, 7),
               cost="0.5 CPU-s a two-player game (both seats)",
               strength="19 of 20 against caverna_greedy (seed 0; 64.1 points to 37.2), 87% [79, 92] of 100 "
                        "(seed 0, the report's ladder; 63.7 points to 40.7)"),
        Preset("hard", "caverna_pilot:candidates=3,horizon=2", players=(2, 3, 4, 5, 6, 7),
               cost="1.9 CPU-s a two-player game (both seats)",
               strength="56.5% [47, 66] of 100 against medium (seed 0, the report's ladder), 50.8 points a seat "
                        "to 49.8"),
        Preset("strongest", "caverna_pilot:candidates=5,horizon=2", players=(2, 3, 4, 5, 6, 7),
               cost="2.8 CPU-s a two-player game (both seats)",
               strength="58.0% [48, 67] of 100 against hard (seed 0, the report's ladder), 50.8 points a seat to "
                        "45.1; self-play 44.9 points a seat at 2 players, 53.7 at 3, 45.7 at 4, 56.9 at 7 (20 "
                        "games each); against caverna_rollout 87.8% [82, 92] of 200 games (seats swapped), 62.0 "
                        "points a seat [60.5, 63.4] to 35.4 (the report's versus part; before 2026-12-06: "
                        "79.8% [74, 85] of 200, 53.9 points a seat); horizon 3, 4 rollouts or "
                        "level 2 did not beat hard (20-100 games, before 2026-12-06)"),
    ),
)
