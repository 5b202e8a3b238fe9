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
        # Solo, 2026-12-03 (after 34b1546): `cavekit strength caverna --parts players,ladder --jobs 2 --out
        # results/caverna_strength/report` (20 games a preset on the same seeds).
        # Two players: `cavekit match caverna --agents A B --duplicate --games N --seed S` (seats swapped on
        # every deal; draws, shared wins on points, count half), and the report's ladder (seed 0).
        Preset("easy", "caverna_greedy", players=(1,), cost="0.02 s a solo game",
               strength="solo 54.5 points (20 games; the solo weights are tuned for the pilot, greedy alone "
                        "played 62.2 with the greedy-stage weights), family 2 at the end"),
        Preset("medium", "caverna_pilot:candidates=3", players=(1,), cost="0.4 s a solo game",
               strength="solo 75.5 points [73.4, 77.7] (20 games, max 86), family 2.2"),
        Preset("hard", "caverna_pilot:candidates=3,level=2", players=(1,), cost="9 s a solo game",
               strength="solo 83.0 points [81.9, 84.2] (20 games, max 89), family 2.1"),
        # Solo: the nested pilot with noisy rollouts (caverna_pilot's `noise`), which keeps the best of more
        # distinct games; the noiseless level 3 (candidates=2) scored 85.5 over 20 games in 43 s.
        Preset("strongest", "caverna_pilot:candidates=3,rollouts=2,noise=1,level=2", players=(1,),
               cost="about 19 CPU-s a solo game (4 games, process time; 40 s wall in the report's run, 4 "
                    "processes on 2 cores)",
               strength="solo 88.4 points [87.8, 88.9] over 100 games (max 96), 88.9 [87.5, 90.3] over the "
                        "ladder's 20, family 2.1 (cavekit strength caverna --parts solo,ladder --solo-games 100 "
                        "--jobs 2, 2026-12-04)"),
        Preset("easy", "caverna_greedy", players=(2, 3, 4, 5, 6, 7), cost="0.01 s a two-player game (both seats)",
               strength="27 of 40 against caverna_greedy:weights=hand (the hand-set evaluator; seed 0), 55.1 "
                        "points a seat to 37.0"),
        Preset("medium", "caverna_pilot:candidates=2,horizon=1", players=(2, 3, 4, 5, 6, 7),
               cost="0.25 s a two-player game against easy (both seats)",
               strength="19 of 20 against caverna_greedy (seed 0; 62.9 points to 35.0), 86% [78, 91] of 100 "
                        "(seed 0, the report's ladder; 60.0 points to 36.4)"),
        Preset("hard", "caverna_pilot:candidates=3,horizon=2", players=(2, 3, 4, 5, 6, 7),
               cost="0.7 s a two-player game against medium (both seats)",
               strength="54.5% of 100 against medium (seed 1; 95% interval 45-64%), 53.0% [43, 62] of 100 "
                        "(seed 0, the report's ladder), 46 points a seat"),
        Preset("strongest", "caverna_pilot:candidates=5,horizon=2", players=(2, 3, 4, 5, 6, 7),
               cost="1.0 s a two-player game against hard (both seats)",
               strength="57% of 100 against hard (seed 1; 95% interval 47-66%), 46.9 points a seat to 43.4; "
                        "51.0% [41, 61] of 100 (seed 0, the report's ladder); horizon 3, 4 rollouts or level 2 "
                        "did not beat hard (20-100 games)"),
    ),
)
