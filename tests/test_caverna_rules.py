"""Caverna rules data (shared/rules/caverna.md sections 1-3, 5, 7, 8, 10, 14): the table, the per-player-count
views and every parameter."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from cavekit.core.api import ConfigError
from cavekit.core.caverna import rules as ru
from cavekit.core.caverna.rules import (BANNED_FURNISHINGS_OPTIONS, CONFIG_CHOICES, Config, accumulation,
                                        board_space_ids, formula, harvest_marker_mix, harvest_marker_rounds,
                                        imitation_cost, load_rules_data, loot_available, loot_items, make_config,
                                        round_card_ids, rounds_played, rules, stage_rounds, starting_food)

SHARED = Path(__file__).resolve().parents[2] / "shared" / "rules" / "caverna.json"
R = rules()


@pytest.mark.skipif(not SHARED.exists(), reason="the shared rules reference is not beside this checkout")
def test_packaged_rules_data_matches_the_shared_reference():
    assert load_rules_data() == json.loads(SHARED.read_text(encoding="utf-8")), \
        "core/caverna/data/caverna.json differs from shared/rules/caverna.json: copy the corrected file in"


# -- section 1 / 2: sizes ------------------------------------------------------------------------------

def test_component_counts():
    assert len(R.furnishings) == 48
    cats = [f.category for f in R.furnishings]
    assert (cats.count("dwelling"), cats.count("green"), cats.count("yellow")) == (6, 24, 18)
    assert [f.id for f in R.furnishings if f.unlimited] == ["dwelling"]
    assert sum(f.yellow_tag for f in R.furnishings) == 18
    assert len(R.action_spaces) == 51 and len(R.round_cards) == 12 and len(R.loot) == 23
    assert len(R.special_spaces) == 5 and R.rows * R.cols == 24
    assert R.entry_level_dwelling.id not in {f.id for f in R.furnishings}


@pytest.mark.parametrize("players,board,cards,total", [(1, 8, 11, 19), (2, 12, 11, 23), (3, 15, 12, 27),
                                                       (4, 13, 12, 25), (5, 19, 12, 31), (6, 19, 12, 31),
                                                       (7, 22, 12, 34)])
def test_action_spaces_by_player_count(players, board, cards, total):
    """Section 1: printed spaces + round cards = action spaces by the last round."""
    spaces = board_space_ids(players)
    assert len(spaces) == board and len(set(spaces)) == board
    assert len(round_card_ids(players)) == cards
    assert board + cards == total
    assert all(players in R.action_spaces[s].player_counts for s in spaces if players > 1)


def test_availability_matrix_matches_the_data():
    for players in range(1, 8):
        assert board_space_ids(players) == R.board_space_ids_by_players[players]


def test_goods_and_animals():
    assert ru.FARM_ANIMALS == ("sheep", "donkey", "wild_boar", "cattle")
    assert ru.ANIMALS == ru.FARM_ANIMALS + ("dog",)
    assert set(ru.GOODS) == {"wood", "stone", "ore", "grain", "vegetable", "ruby", "gold", "food"}


# -- section 3: setup ----------------------------------------------------------------------------------

def test_starting_food_by_seat_and_solo():
    assert [starting_food(seat, 7) for seat in range(7)] == [1, 1, 2, 3, 3, 3, 3]
    assert [starting_food(seat, 3) for seat in range(3)] == [1, 1, 2]
    assert starting_food(0, 1) == 2


def test_dwarfs_and_stables_at_setup():
    assert (R.dwarfs_at_start, R.dwarfs_in_supply, R.stables_per_player, R.family_limit) == (2, 3, 3, 5)


@pytest.mark.parametrize("players", [1, 2])
def test_one_and_two_players_skip_round_9(players):
    assert rounds_played(players) == (1, 2, 3, 4, 5, 6, 7, 8, 10, 11, 12)


@pytest.mark.parametrize("players", [3, 4, 5, 6, 7])
def test_three_or_more_players_play_12_rounds(players):
    assert rounds_played(players) == tuple(range(1, 13))


def test_round_cards_without_exploration_for_one_and_two_players():
    assert "exploration" not in round_card_ids(2) and "exploration" not in round_card_ids(1)
    assert "exploration" in round_card_ids(3)
    assert "urgent_wish_for_children" not in round_card_ids(4)       # a flip side, not a card


def test_stages_and_rounds():
    assert stage_rounds(2) == {1: (1, 2, 3), 2: (4, 5, 6), 3: (7, 8), 4: (10, 11, 12)}
    assert stage_rounds(4) == {1: (1, 2, 3), 2: (4, 5, 6), 3: (7, 8, 9), 4: (10, 11, 12)}
    for card in R.round_cards:      # the data's rounds per card lie in its stage's rounds (3+ players)
        assert set(card.rounds) <= set(stage_rounds(4)[card.stage])
    assert R.round_card("wish_for_children").rounds == (4,) and R.round_card("donkey_farming").rounds == (5, 6)


def test_wish_for_children_is_fixed_in_round_4_and_flips():
    wish = R.action_spaces["wish_for_children"]
    assert wish.fixed_round == 4 and wish.flips_to == "urgent_wish_for_children"
    assert R.action_spaces["urgent_wish_for_children"].fixed_round == 4


def test_solo_round_order_is_fixed():
    assert R.solo_round_order[4] == "wish_for_children" and R.solo_round_order[9] is None
    assert [R.solo_round_order[n] for n in rounds_played(1)] == [
        "blacksmithing", "sheep_farming", "ore_mine_construction", "wish_for_children", "donkey_farming",
        "ruby_mine_construction", "ore_delivery", "family_life", "ore_trading", "adventure", "ruby_delivery"]


def test_harvest_markers():
    assert harvest_marker_rounds(1) == () and harvest_marker_mix(1) == (0, 0)
    assert harvest_marker_rounds(2) == (6, 7, 8, 10, 11, 12) and harvest_marker_mix(2) == (3, 3)
    assert harvest_marker_rounds(5) == (6, 7, 8, 9, 10, 11, 12) and harvest_marker_mix(5) == (4, 3)
    assert R.harvest_red_events == ("no_harvest", "feed_1_per_dwarf", "field_or_breeding")


@pytest.mark.parametrize("players", [1, 2, 4])
def test_which_rounds_end_with_a_harvest(players):
    """Section 6: none, none, harvest, feed 1 per dwarf, harvest; then the marker (solo: always a harvest)."""
    events = [ru.harvest_event(n, players) for n in rounds_played(players)]
    assert events[:5] == ["none", "none", "normal", "feed_1_per_dwarf", "normal"]
    assert set(events[5:]) == ({"normal"} if players == 1 else {"marker"})


# -- section 8: action spaces --------------------------------------------------------------------------

def test_effects_parse_into_the_dsl():
    used = {atom.kind for space in R.action_spaces.values() for atom in space.effect.atoms()}
    used |= {x.effect.kind for x in R.loot}
    assert used == set(R.raw["effect_dsl"]["atoms"])
    blacksmithing = R.action_spaces["blacksmithing"].effect
    assert blacksmithing.kind == "by_weapon" and len(blacksmithing.parts) == 2
    drift = R.action_spaces["drift_mining_1_3"].effect
    assert drift.kind == "all" and drift.parts[1].optional and drift.parts[1].arg("tiles") == ("cavern_tunnel",)
    assert R.action_spaces["supplies"].effect.arg("goods") == {"wood": 1, "stone": 1, "ore": 1, "food": 1, "gold": 2}


def test_unknown_effect_atoms_are_refused():
    with pytest.raises(ValueError, match="unknown effect atom"):
        ru._parse_effect({"do": "teleport"}, set(R.raw["effect_dsl"]["atoms"]))


def test_starting_player_and_imitation_cannot_be_imitated():
    not_imitable = {s.id for s in R.action_spaces.values() if not s.imitable}
    assert {"starting_player_1_3", "starting_player_4_7"} <= not_imitable
    assert {s for s in not_imitable if s.startswith("imitation")} == {
        "imitation_3p", "imitation_4_7", "imitation_5p", "imitation_6_7", "imitation_7p"}


def test_accumulation_if_empty_otherwise():
    assert accumulation("ore_mining_4_7") == (ru.Accumulation("ore", 3, 2),)
    assert accumulation("sustenance_4_7") == (ru.Accumulation("grain", 1, 0), ru.Accumulation("vegetable", 0, 1))


def test_logging_accumulation_both_readings():
    """Section 14 logging_accumulation: B (default) vs A (the two Logging spaces swapped)."""
    assert accumulation("logging_1_3") == (ru.Accumulation("wood", 3, 1),)
    assert accumulation("logging_4_7") == (ru.Accumulation("wood", 3, 3),)
    a = make_config(logging_accumulation="A")
    assert accumulation("logging_1_3", a) == (ru.Accumulation("wood", 3, 3),)
    assert accumulation("logging_4_7", a) == (ru.Accumulation("wood", 3, 1),)


def test_ruby_mining_pauses_in_rounds_1_and_2_with_two_players_only():
    assert accumulation("ruby_mining", players=2, round_no=1) == ()
    assert accumulation("ruby_mining", players=2, round_no=2) == ()
    assert accumulation("ruby_mining", players=2, round_no=3) == (ru.Accumulation("ruby", 1, 1),)
    assert accumulation("ruby_mining", players=1, round_no=1) == (ru.Accumulation("ruby", 1, 1),)
    assert accumulation("ruby_mining", players=4, round_no=1) == (ru.Accumulation("ruby", 1, 1),)


def test_imitation_costs_both_readings():
    """Section 14 imitation_costs: A fixed per space (default) vs B by player count; same multiset per count."""
    fixed = make_config()
    by_count = make_config(imitation_cost_table="by_player_count")
    assert imitation_cost("imitation_6_7", 6, fixed) == 1 and imitation_cost("imitation_6_7", 6, by_count) == 2
    assert imitation_cost("imitation_7p", 7, fixed) == 0 and imitation_cost("imitation_7p", 7, by_count) == 2
    for players in range(3, 8):
        spaces = [s for s in board_space_ids(players) if s.startswith("imitation")]
        assert sorted(imitation_cost(s, players, fixed) for s in spaces) == \
            sorted(imitation_cost(s, players, by_count) for s in spaces)
    with pytest.raises(ValueError, match="housework is not an Imitation space"):
        imitation_cost("housework", 4)


def test_imitation_table_form_of_the_default_is_accepted():
    assert make_config(imitation_cost_table=R.raw["config_defaults"]["imitation_cost_table"]) == make_config()
    with pytest.raises(ConfigError, match=r"imitation_cost_table=\{'imitation_3p': 9\} is not allowed; allowed values: "
                                          r"'fixed_per_space', 'by_player_count' \(or the rules data's own"):
        make_config(imitation_cost_table={"imitation_3p": 9})


def test_solo_covered_spaces_both_ways():
    """Section 13/14: solo uses the 2-player boards minus the covered spaces."""
    assert board_space_ids(1) == tuple(s for s in board_space_ids(2) if s not in (
        "drift_mining_1_3", "supplies", "clearing_1_3", "starting_player_1_3"))
    other = make_config(solo_covered_spaces=["supplies", "wood_gathering"])
    assert "drift_mining_1_3" in board_space_ids(1, other) and "wood_gathering" not in board_space_ids(1, other)
    assert make_config(solo_covered_spaces="supplies, housework").solo_covered_spaces == ("supplies", "housework")
    with pytest.raises(ConfigError, match="not on the 1-3"):
        make_config(solo_covered_spaces=["growth"])


def test_small_scale_drift_mining_both_readings():
    assert "small_scale_drift_mining_5p" in board_space_ids(5)
    assert "small_scale_drift_mining_5p" not in board_space_ids(6)
    r_reading = make_config(small_scale_drift_mining_counts="5_to_7")
    for players in (6, 7):
        ids = board_space_ids(players, r_reading)
        assert "small_scale_drift_mining_5p" in ids and "drift_mining_6_7" not in ids
        assert len(ids) == len(board_space_ids(players))
    assert board_space_ids(5, r_reading) == board_space_ids(5)


# -- sections 7, 10: conversions and loot ---------------------------------------------------------------

def test_food_conversion_table():
    table = {(c.pay, c.get) for c in R.food_conversions}
    for gold, food in ((2, 1), (3, 2), (4, 3)):
        assert ((("gold", gold),), (("food", food),)) in table
    assert ((("donkey", 2),), (("food", 3),)) in table and ((("cattle", 1),), (("food", 3),)) in table
    assert R.ruby_cattle == (("ruby", 1), ("food", 1)) and R.ruby_tiles == {"meadow": 1, "field": 1, "tunnel": 1,
                                                                          "cavern": 2}


def test_loot_counts_by_strength():
    """Section 10: items available per weapon strength."""
    counts = {1: 3, 2: 5, 3: 7, 4: 9, 5: 10, 6: 11, 7: 12, 8: 13, 9: 15, 10: 17, 11: 19, 12: 21, 13: 21, 14: 23}
    assert {s: len(loot_available(s)) for s in counts} == counts


def test_meadow_loot_strength_both_readings():
    assert next(x for x in loot_items() if x.id == "meadow").min_strength == 11
    ten = make_config(meadow_loot_min_strength=10)
    assert next(x for x in loot_items(ten) if x.id == "meadow").min_strength == 10
    assert "meadow" in {x.id for x in loot_available(10, ten)} and "meadow" not in {x.id for x in loot_available(10)}


def test_weapons():
    assert R.weapon_max_strength == 14 and R.forge_range == (1, 8)


# -- section 14: parameters -----------------------------------------------------------------------------

def test_every_config_default_is_a_parameter_with_the_data_default():
    defaults = R.raw["config_defaults"]
    config = make_config()
    for key, value in defaults.items():
        assert hasattr(config, key), key
        if key == "imitation_cost_table":
            assert config.imitation_cost_table == "fixed_per_space"
        elif isinstance(value, list):
            assert list(getattr(config, key)) == value
        else:
            assert getattr(config, key) == value, key
        if key != "solo_covered_spaces":
            assert CONFIG_CHOICES[key][0] == getattr(config, key), "the default is listed first"


def test_every_open_question_is_a_parameter_or_documented_as_not_one():
    keys = {q["id"]: q["config_key"] for q in R.raw["open_questions"]}
    extra = {"logging_accumulation": "logging_accumulation",
             "small_scale_drift_mining_counts": "small_scale_drift_mining_counts",
             "furnishing_cost_outliers": "furnishing_cost_source"}
    not_parameters = {"furnishing_count", "loot_list", "ruby_mining_availability"}
    fields = set(Config.__dataclass_fields__)
    for qid, key in keys.items():
        if key:
            assert key in fields, qid
        elif qid in extra:
            assert extra[qid] in fields, qid
        else:
            assert qid in not_parameters, f"{qid} is neither a parameter nor listed as deliberately not one"
    assert not_parameters <= set(keys)
    # a ruling the rules file notes outside section 14 (the Guest room's Extension, section 11's notes)
    outside_section_14 = {"guest_room_extension_both"}
    # the furnishing bans are analysis variants (the paired tile-value study), not readings of the rules
    assert set(R.raw["config_defaults"]) | set(extra.values()) | outside_section_14 \
        == fields - set(BANNED_FURNISHINGS_OPTIONS)


@pytest.mark.parametrize("name", sorted(set(CONFIG_CHOICES) - {"solo_covered_spaces"}))
def test_every_allowed_value_is_accepted(name):
    for value in CONFIG_CHOICES[name]:
        assert getattr(make_config(**{name: value}), name) == value


def test_unknown_parameters_and_values_are_refused_with_the_allowed_ones():
    with pytest.raises(ConfigError, match="known parameters:.*dog_capacity_rule"):
        make_config(dog_rule="x")
    with pytest.raises(ConfigError, match="allowed values: 'max_of_both', 'dogs_replace_capacity'"):
        make_config(dog_capacity_rule="dogs_add")
    with pytest.raises(ConfigError, match="simple_dwelling_vp"):
        make_config(simple_dwelling_vp=False)            # a bool is not the integer 0
    with pytest.raises(ConfigError, match="solo_cleanup_min_goods=5 is not allowed; allowed values: 7, 6"):
        make_config(solo_cleanup_min_goods=5)
    with pytest.raises(ConfigError, match="harvest_marker_reveal='end_of_round' is not allowed; allowed values: 'start_of_round'"):
        make_config(harvest_marker_reveal="end_of_round")


def test_config_as_dict_round_trips():
    config = make_config(dog_capacity_rule="dogs_replace_capacity", solo_covered_spaces=["supplies"])
    assert Config(**config.as_dict()) == config


def test_furnishing_cost_reading_a_is_read_from_the_data():
    assert R.furnishing_costs_a == {"trader": (("wood", 2),), "working_cave": (("wood", 1), ("stone", 2)),
                                    "state_parlor": (("gold", 5), ("wood", 3)),
                                    "ore_storage": (("wood", 1), ("ore", 2)), "seam": (("stone", 2),)}
    b_text = next(q for q in R.raw["open_questions"] if q["id"] == "furnishing_cost_outliers")["readings"]["B+S+G"]
    b_costs = ru._cost_reading(b_text, {f.name: f.id for f in R.furnishings})
    assert all(b_costs[fid] == R.furnishing(fid).cost for fid in b_costs), "the default is the printed data"


# -- the formula evaluator -------------------------------------------------------------------------------

def test_formulas_evaluate_and_refuse_anything_else():
    assert formula("ceil(grain_total / 2)")({"grain_total": 5}) == 3
    assert formula("{5: 5, 6: 10}.get(dwarfs, 0)")({"dwarfs": 6}) == 10
    assert formula("8 if armed_dwarfs == dwarfs else 0")({"armed_dwarfs": 3, "dwarfs": 3}) == 8
    for bad, why in (("__import__('os')", "unknown function __import__"),
                     ("x.__class__", r"only \{...\}.get\(...\) may use an attribute"),
                     ("open('f')", "unknown function open"), ("[x for x in y]", "ListComp is not allowed"),
                     ("lambda: 1", "Lambda is not allowed")):
        with pytest.raises(ValueError, match=why):
            formula(bad)
    with pytest.raises(KeyError, match="needs sheep"):
        formula("sheep + 1")({})


def test_numbers_inside_sentences_fail_loudly_when_the_wording_changes():
    with pytest.raises(ValueError, match="cannot read"):
        ru.read_numbers(r"take (\d+) ore", "take some ore", "a test")


def test_guest_room_extension_default_follows_the_extension_spaces_note():
    """The Extension space's data note limits the Guest room's both halves to once per game: the default."""
    note = next(a for a in R.raw["action_spaces"] if a["id"] == "extension_7p")["guest_room_note"]
    assert "once per game" in note
    assert make_config().guest_room_extension_both == "once_per_game"
