"""Constructed Cave vs Cave end games whose best play is known, for the searchers' tests."""
from __future__ import annotations

import numpy as np

from cavekit.core import load_game
from cavekit.core.api import CHANCE, sample_chance_outcome
from cavekit.core.cvc.compiled import CompiledState
from cavekit.core.cvc.rules import rules
from cavekit.search.cvc_planner import GreedyPolicy

from cvc_positions import build, give, place, tile, to_display, two_player_position

TILES_TAKEN_IN_THE_LAST_ROUND = ("furnishing", "masonry", "undermining", "breach", "expansion", "drift_mining",
                                 "renovation")


def last_turn_of_the_game():
    """Round 8, the game's last turn, player 0 to move and 3 points behind.

    Player 0 holds 1 wood and 4 food and no gold: only Housework furnishes (a Spinning Wheel or Shelf on s4
    for the 4 food per turn), which wins; every other tile left (Cultivation, Excavation, Undergrowth,
    Expedition) scores nothing.
    """
    s = two_player_position(starter=1, round=7)
    s.turn = 7
    for t in TILES_TAKEN_IN_THE_LAST_ROUND:
        s.taken |= 1 << tile(t)
    give(s, 0, all=0, wood=1, food=4)
    give(s, 1, all=0, gold=3)
    assert s.current_player() == 0 and s.scores() == [0, 3]
    return s


def compiled(reference_state):
    """The same position in the compiled engine (the searches are much faster there)."""
    return CompiledState.from_dict(load_game("cvc"), reference_state.to_dict(), [])


def last_round(untaken: tuple[str, ...], turn: int):
    """Round 8 (the last), player 0 starting, `turn` turns played; every tile but `untaken` taken."""
    s = two_player_position(starter=0, round=7)
    s.turn = turn
    for t in range(12):
        s.taken |= 1 << t
    for t in untaken:
        s.taken &= ~(1 << tile(t))
    return s


def treasury_by_renovation():
    """Last turn, player 1 (3 points behind) to move: only Renovation furnishes the Treasury on the walled s4.

    The Treasury (10 points for 3 gold) wins by 1; Housework cannot pay for it (4 food, or 1 more gold) and
    the Weaving Room (5 points for 2 wood) or the other tiles leave player 1 behind.
    """
    s = last_round(("housework", "renovation", "cultivation", "undergrowth", "masonry"), turn=7)
    place(s, 0, "state_room", "s0")
    place(s, 0, "gold_vein", "s1")                       # player 0: 21 points
    place(s, 1, "bakehouse", "s0")
    place(s, 1, "stall", "s1")                           # player 1: 12 + 3 gold = 15
    s.players[1].spaces[5] = -2                          # s5 dug out, where the Weaving Room fits
    build(s, 1, "w4", "w6", "w7")                        # s4 closed on four sides: the Treasury fits
    to_display(s, "treasury", "weaving_room")
    give(s, 0, all=0)
    give(s, 1, all=0, gold=3, wood=2, stone=1)
    assert s.current_player() == 1 and s.scores() == [21, 15]
    return s


def treasury_after_conversions():
    """Last turn, player 1 to move: Housework furnishes the Treasury paying 4 food, after turning emmer into food."""
    s = last_round(("housework", "cultivation", "undergrowth", "excavation"), turn=7)
    place(s, 0, "state_room", "s0")
    place(s, 0, "gold_vein", "s1")
    place(s, 1, "bakehouse", "s0")
    place(s, 1, "stall", "s1")
    build(s, 1, "w4", "w6", "w7")
    to_display(s, "treasury")
    give(s, 0, all=0)
    give(s, 1, all=0, gold=3, food=2, emmer=2)
    assert s.current_player() == 1 and s.scores() == [21, 15]
    return s


def block_the_housework():
    """Second-to-last turn, player 0 (3 points ahead, no goods) to move, player 1 moves last.

    Player 1 (3 gold, 4 food, a walled s4) would take Housework and furnish the Treasury (+7): player 0 wins
    only by taking Housework first, which gains nothing now; every other tile gains a little (goods) and loses.
    """
    s = last_round(("housework", "cultivation", "undergrowth", "excavation"), turn=6)
    place(s, 0, "state_room", "s0")
    place(s, 0, "junction_room", "s1")                   # player 0: 18 points
    place(s, 1, "storeroom", "s0")
    place(s, 1, "stall", "s1")                           # player 1: 12 + 3 gold = 15
    build(s, 1, "w4", "w6", "w7")
    to_display(s, "treasury")
    give(s, 0, all=0)
    give(s, 1, all=0, gold=3, food=4)
    assert s.current_player() == 0 and s.scores() == [18, 15]
    return s


def play_turn(state, agent) -> list[str]:
    """Let the agent play the rest of its turn (chance inside it sampled); the actions it chose, by name."""
    player, played = state.current_player(), []
    rng = np.random.default_rng(0)
    while not state.is_terminal() and state.current_player() in (player, CHANCE):
        if state.current_player() == CHANCE:
            state.apply_action(sample_chance_outcome(state.chance_outcomes(), rng.random()))
            continue
        action = agent.step(state)
        assert action in state.legal_actions()
        played.append(state.action_to_string(action))
        state.apply_action(action)
    return played


def play_to_last_turn(deal, game):
    """Greedy play on `deal` up to the start of the solo game's last turn."""
    policy = GreedyPolicy(value="heuristic", players=1)
    state = game.new_initial_state()
    rounds = len(rules().turns[1])
    while not state.is_terminal():
        if state.current_player() == CHANCE:
            state.apply_action(deal.outcome(state))
            continue
        d = state.to_dict()
        if d["round"] == rounds - 1 and d["turn"] == 3 and d["tile"] < 0:
            return state
        for action in policy.best_segments(state)[0]:
            state.apply_action(action)
    raise AssertionError("the game ended before its last turn")


def final_score_after(state, actions, deal):
    """The score once `actions` are played and the game is finished by greedy play on `deal`."""
    state = state.clone()
    for action in actions:
        state.apply_action(action)
    policy = GreedyPolicy(value="heuristic", players=1)
    while not state.is_terminal():
        if state.current_player() == CHANCE:
            state.apply_action(deal.outcome(state))
        else:
            for action in policy.best_segments(state)[0]:
                state.apply_action(action)
    return state.scores()[0]
