"""The weight tuner scores candidates on the same seeded games and leaves the evaluation as it found it."""
from cavekit.analysis.cvc.tune import hill_climb, solo_mean_score
from cavekit.core import load_game
from cavekit.search.cvc_evaluation import heuristic_values
from cavekit.search.cvc_heuristic import CVC_WEIGHTS


def test_solo_score_is_reproducible_and_restores_the_weights():
    state = load_game("cvc").new_initial_state(seed=1)
    before = heuristic_values(state)
    odd = dict(CVC_WEIGHTS, wood=5.0)
    first = solo_mean_score(odd, games=2, iterations=50, seed=3)
    assert solo_mean_score(odd, games=2, iterations=50, seed=3) == first
    assert heuristic_values(state) == before


def test_hill_climb_never_returns_worse_than_its_start():
    start = solo_mean_score(CVC_WEIGHTS, games=1, iterations=30, seed=0)
    weights, score = hill_climb(rounds=1, games=1, iterations=30, seed=0)
    assert set(weights) == set(CVC_WEIGHTS) and score >= start
