"""The Cave (Pairs deck) as the generic layers see it (see `cavekit.core.spec`)."""
from __future__ import annotations

from ..spec import GameSpec, Parameter, Preset
from .rules import (FIRST_DEALER_RANDOM, HAND_VISIBILITIES, MAX_BURN, MAX_CAVE, MAX_HAND, MAX_ROUNDS,
                    ROUNDS_PER_PLAYER, TIE_BREAKS, make_config, rules)


def _parameters() -> tuple[Parameter, ...]:
    d = make_config(players=2).as_dict()
    hand_sizes = ", ".join(f"{n} players: {h}" for n, h in sorted(rules().hand_size.items()))
    return (
        Parameter("tie_break", d["tie_break"], TIE_BREAKS),
        Parameter("burn_cards", d["burn_cards"], allowed=f"an integer from 0 to {MAX_BURN}"),
        Parameter("cave_size", d["cave_size"], allowed=f"an integer from 1 to {MAX_CAVE}"),
        Parameter("hand_size", d["hand_size"], allowed=f"an integer from 1 to {MAX_HAND} (or a table by player count)",
                  default_note=f"by player count ({hand_sizes})"),
        Parameter("rounds", d["rounds"], allowed=f"{ROUNDS_PER_PLAYER!r} (one round per player) or an integer "
                                                 f"from 1 to {MAX_ROUNDS}"),
        Parameter("score_leftover", d["score_leftover"], (False, True)),
        Parameter("first_dealer", d["first_dealer"], allowed=f"{FIRST_DEALER_RANDOM!r} or a seat number"),
        Parameter("hand_visibility", d["hand_visibility"], HAND_VISIBILITIES),
    )


SPEC = GameSpec(
    name="pairs",
    title="The Cave (Pairs deck)",
    player_counts=tuple(range(rules().min_players, rules().max_players + 1)),
    default_players=2,
    engines=("compiled", "reference"),
    parameters=_parameters(),
    zero_sum=True,                  # k co-winners share (n - k) / (k (n - 1)) each, the others -1 / (n - 1)
    information="by_parameters",    # hidden hands and deck unless hand_visibility="open" and nothing is burned
    game_class="cavekit.core.pairs.game:ThePairsCave",
    evaluator="cavekit.search.pairs_agents:pairs_evaluate",
    agents=("cavekit.search.pairs_agents",),
    renderer="cavekit.core.pairs.state:render_state",
    dealer="cavekit.core.pairs.deal",
    analysis="cavekit.analysis.pairs",
    presets=(
        Preset("easy", "pairs_heuristic", cost="under 0.01 s a match",
               strength="86.2% [80.8, 90.3] against random over 200 matches (results/pairs_strength, before deals)"),
        Preset("medium", "mcts:iterations=200,c=0.7"),
        Preset("hard", "compiled_mcts:iterations=32000,c=0.7",
               cost="0.85 CPU-s a match, heuristic opponent included (2026-12-07)",
               strength="70.0% [63.3, 75.9] against pairs_heuristic over 200 matches on deals: cavekit match pairs "
                        "--agents compiled_mcts:iterations=32000,c=0.7 pairs_heuristic --games 200 --seed 0 "
                        "(results/compiled_search_strength; the Python mcts:iterations=1000,c=0.7 at 1.26 CPU-s a "
                        "match scored 60.2% [53.3, 66.8] on the same deals)"),
        Preset("strongest", "compiled_mcts:iterations=128000,c=0.7"),
    ),
)
