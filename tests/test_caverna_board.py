"""Caverna home board (shared/rules/caverna.md section 4): the printed board, every tile's placement rule,
bonus icons, stables, the Office room's overhang, fields and sowing, and the text form."""
from __future__ import annotations

import pytest

from cavekit.core.caverna import board as hb
from cavekit.core.caverna.board import (CAVERN, DEEP_TUNNEL, EMPTY, FIELD, LARGE_PASTURE, MEADOW, ORE_MINE, RUBY_MINE,
                                        SMALL_PASTURE, TUNNEL, Placement, PlacementError, initial_board,
                                        legal_placements, parse_board, place, place_with_gains, placement_gains)
from cavekit.core.caverna.furnishings import furnish
from cavekit.core.caverna.rules import make_config

START = initial_board()


def P(tile, *cells_and_halves):
    """Placement shorthand: P('meadow_field', ((3, 2), 'meadow'), ((3, 1), 'field'))."""
    if tile == "stable":
        return Placement("stable", (cells_and_halves[0],), ())
    return Placement(tile, tuple(c for c, _ in cells_and_halves), tuple(h for _, h in cells_and_halves))


def cell_sets(placements):
    return {frozenset(p.cells) for p in placements}


def test_printed_board():
    """Section 4: entry-level dwelling at (3,3), empty cavern at (2,3), everything else empty."""
    assert START.at((3, 3)) == hb.Space(terrain=CAVERN, furnishing="entry_level_dwelling")
    assert START.at((2, 3)) == hb.Space(terrain=CAVERN)
    assert hb.unused_spaces(START) == 22
    assert [(p, s.terrain) for p, s in START.items() if s.terrain != EMPTY] == [((2, 3), CAVERN), ((3, 3), CAVERN)]
    assert hb.render(START) == ". . . | . . .\n. . . | . . .\n. . . | C . .\n. . . | E . ."


def test_areas():
    assert [hb.area((0, c)) for c in range(6)] == ["forest"] * 3 + ["mountain"] * 3
    assert hb.area((2, -1)) == "forest" and hb.area((2, 6)) == "mountain" and hb.area((4, 1)) == "forest"


# -- forest tiles ------------------------------------------------------------------------------------

def test_first_forest_tile_must_cover_the_space_in_front_of_the_entrance():
    placements = legal_placements(START, "meadow_field")
    assert cell_sets(placements) == {frozenset({(3, 2), (2, 2)}), frozenset({(3, 2), (3, 1)})}
    assert len(placements) == 4                      # either half on either space
    reason = hb.check_placement(START, P("meadow_field", ((2, 2), MEADOW), ((1, 2), FIELD)))
    assert "first forest tile must cover (3, 2)" in reason


def test_first_forest_tile_other_reading_allows_either_space_beside_the_preprinted_caverns():
    b_reading = make_config(first_forest_tile_anchor="adjacent_to_either_preprinted_space")
    cells = cell_sets(legal_placements(START, "meadow_field", b_reading))
    assert frozenset({(2, 2), (1, 2)}) in cells and frozenset({(2, 1), (2, 2)}) in cells
    assert all(c & {(2, 2), (3, 2)} for c in cells) and len(cells) == 4
    assert {p.cells for p in legal_placements(START, "meadow", b_reading)} == {((2, 2),), ((3, 2),)}
    assert {p.cells for p in legal_placements(START, "meadow")} == {((3, 2),)}


def test_later_forest_tiles_touch_a_field_meadow_or_pasture():
    b = place(START, "meadow_field", P("meadow_field", ((3, 2), MEADOW), ((3, 1), FIELD)))
    cells = cell_sets(legal_placements(b, "meadow_field"))
    assert frozenset({(2, 1), (1, 1)}) in cells and frozenset({(3, 0), (2, 0)}) in cells
    assert frozenset({(0, 0), (0, 1)}) not in cells
    reason = hb.check_placement(b, P("meadow_field", ((0, 0), MEADOW), ((0, 1), FIELD)))
    assert "adjacent to a field, meadow or pasture" in reason
    assert all(any(n in {(3, 2), (3, 1)} for c in p.cells for n in hb.neighbours(c))
               for p in legal_placements(b, "field"))


def test_meadow_field_only_on_two_adjacent_empty_forest_spaces():
    b = place(START, "meadow_field", P("meadow_field", ((3, 2), MEADOW), ((3, 1), FIELD)))
    assert "not empty" in hb.check_placement(b, P("meadow_field", ((3, 1), MEADOW), ((2, 1), FIELD)))
    assert "adjacent" in hb.check_placement(b, P("meadow_field", ((2, 2), MEADOW), ((2, 0), FIELD)))
    assert "in the forest" in hb.check_placement(b, P("meadow_field", ((2, 2), MEADOW), ((2, 3), FIELD)))
    assert "covers 2 space" in hb.check_placement(b, P("meadow_field", ((2, 2), MEADOW), ((1, 2), MEADOW)))


def test_a_field_may_not_go_under_a_stable_a_meadow_may():
    b = place(START, "stable", P("stable", (3, 2)))
    placements = legal_placements(b, "meadow_field")
    assert placements and all(p.halves[p.cells.index((3, 2))] == MEADOW for p in placements)
    assert "under the stable" in hb.check_placement(b, P("meadow_field", ((3, 1), MEADOW), ((3, 2), FIELD)))
    b = place(b, "meadow_field", P("meadow_field", ((3, 2), MEADOW), ((3, 1), FIELD)))
    assert b.at((3, 2)) == hb.Space(terrain=MEADOW, stable=True)
    assert legal_placements(b, "field") and all((3, 2) not in p.cells for p in legal_placements(b, "field"))


# -- mountain tiles ----------------------------------------------------------------------------------

def test_mountain_twins_extend_the_cave_system():
    cells = cell_sets(legal_placements(START, "cavern_tunnel"))
    assert cells == {frozenset(c) for c in ({(0, 3), (1, 3)}, {(1, 3), (1, 4)}, {(1, 4), (2, 4)}, {(2, 4), (2, 5)},
                                            {(2, 4), (3, 4)}, {(3, 4), (3, 5)})}
    assert len(legal_placements(START, "cavern_tunnel")) == 12       # both orientations
    assert len(legal_placements(START, "cavern_cavern")) == 6        # the same tile either way round
    reason = hb.check_placement(START, P("cavern_tunnel", ((0, 5), CAVERN), ((1, 5), TUNNEL)))
    assert "adjacent to the cave system" in reason
    assert "in the mountain" in hb.check_placement(START, P("cavern_tunnel", ((3, 2), CAVERN), ((3, 1), TUNNEL)))


def test_forest_tiles_do_not_extend_the_cave_nor_cavern_tiles_the_forest():
    b = place(START, "meadow_field", P("meadow_field", ((3, 2), MEADOW), ((2, 2), FIELD)))
    assert all(p.cells[0][1] >= 3 for p in legal_placements(b, "cavern"))
    b = place(START, "cavern_tunnel", P("cavern_tunnel", ((3, 4), CAVERN), ((3, 5), TUNNEL)))
    assert cell_sets(legal_placements(b, "meadow_field")) == cell_sets(legal_placements(START, "meadow_field"))


def test_single_tiles_follow_the_same_adjacency():
    assert {p.cells for p in hb.single_tile_placements(START, "cavern")} == {((1, 3),), ((2, 4),), ((3, 4),)}
    assert {p.cells for p in hb.single_tile_placements(START, "field")} == {((3, 2),)}
    with pytest.raises(PlacementError, match="not a single tile"):
        hb.single_tile_placements(START, "ruby_mine")


def mountain_board():
    return parse_board("""
        . . . | T T .
        . . . | T D .
        . . . | C T:work_room O
        . . . | E R C:work_room
    """)


def test_ore_mine_goes_on_two_adjacent_ordinary_unfurnished_tunnels():
    b = mountain_board()
    pairs = {p.cells for p in legal_placements(b, "ore_mine_deep_tunnel")}
    assert pairs == {((0, 3), (0, 4)), ((0, 4), (0, 3)), ((0, 3), (1, 3)), ((1, 3), (0, 3))}
    assert "2 ordinary unfurnished tunnels" in hb.check_placement(
        b, P("ore_mine_deep_tunnel", ((0, 4), ORE_MINE), ((1, 4), DEEP_TUNNEL)))      # a deep tunnel
    assert "2 ordinary unfurnished tunnels" in hb.check_placement(
        b, P("ore_mine_deep_tunnel", ((1, 4), ORE_MINE), ((2, 4), DEEP_TUNNEL)))      # a furnished tunnel
    b = place(b, "ore_mine_deep_tunnel", P("ore_mine_deep_tunnel", ((0, 3), ORE_MINE), ((0, 4), DEEP_TUNNEL)))
    assert (b.at((0, 3)).terrain, b.at((0, 4)).terrain) == (ORE_MINE, DEEP_TUNNEL)


def test_ruby_mine_goes_on_an_unfurnished_tunnel_or_deep_tunnel():
    b = mountain_board()
    assert {p.cells for p in legal_placements(b, "ruby_mine")} == {((0, 3),), ((0, 4),), ((1, 3),), ((1, 4),)}
    assert "unfurnished tunnel or deep tunnel" in hb.check_placement(b, P("ruby_mine", ((2, 5), RUBY_MINE)))
    assert "unfurnished tunnel or deep tunnel" in hb.check_placement(b, P("ruby_mine", ((2, 3), RUBY_MINE)))


# -- pastures and stables ----------------------------------------------------------------------------

def forest_board():
    return parse_board("""
        . . .  | . . .
        M M .* | . . .
        F M* M | C . .
        . F M  | E . .
    """)


def test_pastures_are_fenced_on_meadows_only():
    b = forest_board()
    assert {p.cells for p in legal_placements(b, "small_pasture")} == {((1, 0),), ((1, 1),), ((2, 1),), ((2, 2),),
                                                                     ((3, 2),)}
    assert "meadows only" in hb.check_placement(b, P("small_pasture", ((2, 0), SMALL_PASTURE)))
    assert cell_sets(legal_placements(b, "large_pasture")) == {frozenset(c) for c in (
        {(1, 0), (1, 1)}, {(1, 1), (2, 1)}, {(2, 1), (2, 2)}, {(2, 2), (3, 2)})}
    b2 = place(b, "large_pasture", P("large_pasture", ((1, 1), LARGE_PASTURE), ((2, 1), LARGE_PASTURE)))
    assert b2.at((1, 1)).partner == (2, 1) and b2.at((2, 1)) == hb.Space(LARGE_PASTURE, stable=True, partner=(1, 1))
    assert hb.pasture_counts(b2) == (0, 1)
    b3 = place(b2, "small_pasture", P("small_pasture", ((1, 0), SMALL_PASTURE)))
    assert hb.pasture_counts(b3) == (1, 1)
    assert not any(p.cells == ((1, 0),) for p in legal_placements(b3, "small_pasture"))


def test_stables_on_forest_meadows_and_pastures_one_per_space_three_in_all():
    b = forest_board()
    spaces = {p.cells[0] for p in legal_placements(b, "stable")}
    assert (2, 0) not in spaces and (3, 1) not in spaces                 # fields
    assert (2, 1) not in spaces and (1, 2) not in spaces                 # already a stable
    assert (0, 0) in spaces and (1, 0) in spaces and not any(c >= 3 for _, c in spaces)
    assert "field" in hb.check_placement(b, P("stable", (2, 0)))
    assert "mountain" in hb.check_placement(b, P("stable", (0, 4)))
    b = place(b, "stable", P("stable", (1, 1)))
    assert hb.stable_count(b) == 3
    assert legal_placements(b, "stable") == []
    assert "all 3 stables" in hb.check_placement(b, P("stable", (0, 0)))


def test_a_large_pasture_may_have_two_stables():
    b = parse_board(". . . | . . .\nLa* . . | . . .\nLa . . | C . .\n. . . | E . .")
    b = place(b, "stable", P("stable", (2, 0)))
    assert b.at((1, 0)).stable and b.at((2, 0)).stable


# -- bonus icons ------------------------------------------------------------------------------------

def test_covering_printed_icons_pays_once():
    gains = placement_gains(START, P("meadow_field", ((3, 2), MEADOW), ((3, 1), FIELD)))
    assert gains == {"food": 1}                                           # the small river
    b = parse_board(". . . | . . .\n. . . | . . .\n. . M | C . .\n. . . | E . .")
    assert placement_gains(b, P("meadow_field", ((1, 2), MEADOW), ((0, 2), FIELD))) == {"wild_boar": 1}
    b, gains = place_with_gains(START, "cavern_tunnel", P("cavern_tunnel", ((3, 4), TUNNEL), ((3, 5), CAVERN)))
    assert gains == {"food": 1}
    b = place(b, "cavern_tunnel", P("cavern_tunnel", ((2, 4), TUNNEL), ((2, 5), CAVERN)))
    assert placement_gains(b, P("ore_mine_deep_tunnel", ((3, 4), ORE_MINE), ((2, 4), DEEP_TUNNEL))) == {}
    c = parse_board(". . . | . . T\n. . . | . . T\n. . . | C . T\n. . . | E . .")
    assert placement_gains(c, P("cavern", ((0, 4), CAVERN))) == {}
    assert placement_gains(c.with_spaces({(0, 5): hb.Space()}), P("tunnel", ((0, 5), TUNNEL))) == {"food": 2}


def test_a_stable_does_not_cover_an_icon_the_tile_under_it_does():
    b = place(START, "stable", P("stable", (2, 0)))
    assert placement_gains(START, P("stable", (2, 0))) == {}
    b = parse_board(". . . | . . .\n. . . | . . .\n.* M . | C . .\n. . . | E . .")
    assert placement_gains(b, P("meadow_field", ((2, 0), MEADOW), ((1, 0), FIELD))) == {"wild_boar": 1}


# -- placing ----------------------------------------------------------------------------------------

def test_place_refuses_with_a_reason_and_never_changes_the_board():
    with pytest.raises(PlacementError, match="must cover"):
        place(START, "meadow_field", P("meadow_field", ((0, 0), MEADOW), ((0, 1), FIELD)))
    with pytest.raises(PlacementError, match="for a meadow_field, not a field"):
        place(START, "field", P("meadow_field", ((3, 2), MEADOW), ((3, 1), FIELD)))
    with pytest.raises(PlacementError, match="unknown tile"):
        legal_placements(START, "castle")
    new = place(START, "cavern", P("cavern", ((3, 4), CAVERN)))
    assert START.at((3, 4)).terrain == EMPTY and new.at((3, 4)).terrain == CAVERN
    assert hash(new) != hash(START) and new != START


def test_every_legal_placement_places():
    b = forest_board()
    for tile in hb.TILES:
        for p in legal_placements(b, tile):
            after = place(b, tile, p)
            for pos, half in zip(p.cells, p.halves):
                assert after.at(pos).terrain == half


# -- Office room overhang -----------------------------------------------------------------------------

def office_board():
    return parse_board("""
        . . . | . . .
        . . . | . . .
        . . . | C:office_room . .
        . . M | E C .
    """)


def test_without_the_office_room_nothing_overhangs():
    assert all(hb.on_board(c) for t in hb.NEW_LAND for p in legal_placements(START, t) for c in p.cells)
    b = parse_board(". . . | . . .\n. . . | . . .\n. . . | C . .\n. . M | E . .")
    reason = hb.check_placement(b, P("meadow_field", ((3, 1), MEADOW), ((4, 1), FIELD)))
    assert "only with the Office room" in reason


def test_office_room_twins_may_overhang_for_two_gold():
    b = office_board()
    hanging = [p for p in legal_placements(b, "meadow_field") if not all(hb.on_board(c) for c in p.cells)]
    assert hanging and all(sum(not hb.on_board(c) for c in p.cells) == 1 for p in hanging)
    p = P("meadow_field", ((3, 1), MEADOW), ((4, 1), FIELD))
    assert p in hanging
    assert placement_gains(b, p) == {"food": 1, "gold": 2}
    b2 = place(b, "meadow_field", p)
    assert b2.at((4, 1)) == hb.Space(terrain=FIELD) and hb.unused_spaces(b2) == hb.unused_spaces(b) - 1
    assert hb.check_placement(b2, P("meadow_field", ((3, 0), MEADOW), ((4, 0), FIELD))) is None
    assert "already covered" in hb.check_placement(b2, P("meadow_field", ((3, 1), MEADOW), ((4, 1), FIELD)))
    mountain = [p for p in legal_placements(b, "cavern_tunnel") if (3, 6) in p.cells or (4, 4) in p.cells]
    assert mountain


def test_only_new_twin_tiles_overhang_never_both_halves():
    b = office_board()
    assert "only one half" in hb.check_placement(b, P("meadow_field", ((4, 2), MEADOW), ((4, 1), FIELD)))
    assert "only a new twin tile" in hb.check_placement(b, P("meadow", ((4, 2), MEADOW)))
    assert "not a usable space" in hb.check_placement(
        b, P("large_pasture", ((3, 2), LARGE_PASTURE), ((4, 2), LARGE_PASTURE)))
    b = b.with_spaces({(4, 2): hb.Space(MEADOW)})          # an overhanging meadow half
    assert "may not cover an overhanging half" in hb.check_placement(
        b, P("large_pasture", ((3, 2), LARGE_PASTURE), ((4, 2), LARGE_PASTURE)))
    assert hb.check_placement(b, P("small_pasture", ((4, 2), SMALL_PASTURE))) is None


@pytest.mark.parametrize("usable", [True, False])
def test_overhang_halves_are_spaces_only_when_usable(usable):
    """Section 14 office_room_overhang: B (usable spaces) vs not usable (gold only)."""
    config = make_config(office_room_overhang_usable=usable)
    b = place(office_board(), "meadow_field", P("meadow_field", ((3, 1), FIELD), ((4, 1), MEADOW)), config)
    b = place(b, "cavern_tunnel", P("cavern_tunnel", ((3, 5), TUNNEL), ((3, 6), CAVERN)), config)
    assert (((4, 1),) in {p.cells for p in legal_placements(b, "small_pasture", config)}) is usable
    assert (((4, 1),) in {p.cells for p in legal_placements(b, "stable", config)}) is usable
    assert (((4, 0),) in {p.cells for p in legal_placements(b, "meadow", config)}) is False   # off the board
    if usable:
        assert ((3, 6), "dwelling") in hb.furnishings_on(furnish(b, "dwelling", (3, 6), config), config)
        assert hb.sowable_fields(b, config) == [(3, 1)]
        assert hb.sowable_fields(place(office_board(), "meadow_field", P("meadow_field", ((3, 1), MEADOW),
                                                                         ((4, 1), FIELD)), config), config) == [(4, 1)]
    else:
        with pytest.raises(PlacementError, match=r"cannot furnish dwelling on \(3, 6\): \(3, 6\) is not a usable space"):
            furnish(b, "dwelling", (3, 6), config)
    # mines never go on overhang halves
    c = b.with_spaces({(3, 6): hb.Space(TUNNEL)})
    assert ((3, 6),) not in {p.cells for p in legal_placements(c, "ruby_mine", config)}


# -- fields -----------------------------------------------------------------------------------------

def test_sowing_and_the_field_phase():
    b = parse_board(". . . | . . .\n. . . | . . .\n. F F | C . .\n. . M | E . .")
    assert hb.sowable_fields(b) == [(2, 1), (2, 2)]
    b = hb.sow(b, (2, 1), "grain")
    b = hb.sow(b, (2, 2), "vegetable")
    assert (b.at((2, 1)).crop_count, b.at((2, 2)).crop_count) == (3, 2)
    assert hb.field_crops(b) == {"grain": 3, "vegetable": 2} and hb.sowable_fields(b) == []
    with pytest.raises(PlacementError, match="already sown"):
        hb.sow(b, (2, 1), "vegetable")
    with pytest.raises(PlacementError, match="not a field"):
        hb.sow(b, (3, 2), "grain")
    with pytest.raises(PlacementError, match="cannot sow 'wood'"):
        hb.sow(b, (2, 1), "wood")
    b, taken = hb.harvest_fields(b)
    assert taken == {"grain": 1, "vegetable": 1} and hb.field_crops(b) == {"grain": 2, "vegetable": 1}
    b, taken = hb.harvest_fields(b)
    assert b.at((2, 2)) == hb.Space(terrain=FIELD) and hb.sowable_fields(b) == [(2, 2)]
    b, taken = hb.harvest_fields(b)
    assert taken == {"grain": 1} and hb.sowable_fields(b) == [(2, 1), (2, 2)]
    assert hb.harvest_fields(b) == (b, {})
    assert "g3" in hb.render(hb.sow(b, (2, 1), "grain"))
    assert rules_sow_limits() == {"grain": 2, "vegetable": 2}


def rules_sow_limits():
    from cavekit.core.caverna.rules import rules
    return rules().sow_max_fields


# -- scoring counts and the text form -----------------------------------------------------------------

def test_unused_spaces_count_tiles_and_stables():
    b = parse_board("""
        .  .* M | . . .
        F  M  . | T . .
        P  La . | C O R
        .  La M | E . D
    """)
    assert hb.unused_spaces(b) == 10 and hb.mine_counts(b) == (1, 1) and hb.pasture_counts(b) == (1, 1)


def test_text_form_round_trips():
    b = parse_board("""
        .  .* M     | T   T:work_room  .
        F:g2 M  .   | D   O  R
        P* La* Lb   | C:dwelling C  C:spare_part_storage+trader
        .  La  Lb   | E   C:office_room .
        @4,1 F:v1
        @1,6 C
    """)
    assert parse_board(hb.render(b)) == b
    assert b.at((2, 5)).overbuilt == "trader" and b.at((1, 6)).terrain == CAVERN
    assert b.at((2, 1)).partner == (3, 1) and b.at((2, 2)).partner == (3, 2)
    with pytest.raises(ValueError, match="a board has 4 rows, got 1"):
        parse_board(". . . | . . .")
    with pytest.raises(ValueError, match="2 adjacent cells"):
        parse_board(". . . | . . .\nLa . . | . . .\n. . . | C . .\nLa . . | E . .")


# -- the board a person reads: row and column labels that match the move notation -------------------------

def labelled_cells(text: str) -> dict[tuple[int, int], str]:
    """{(row, col): token} read off `render_labelled`'s text by its own labels (the overhang lines aside)."""
    lines = [line for line in text.splitlines() if not line.startswith("@")]
    columns = [int(c) for c in lines[0].split()]
    cells = {}
    for line in lines[1:]:
        row, *tokens = line.replace(" | ", " ").split()
        cells.update({(int(row), col): token for col, token in zip(columns, tokens)})
    return cells


def test_the_labelled_board_names_each_space_by_its_row_and_column():
    from cavekit.core.caverna.board import render_labelled
    b = parse_board(". M* F:g2 | T C:stone_supplier .\n. . . | . . .\n. . . | C . .\n. . . | E . .")
    text = render_labelled(b)
    assert text.splitlines()[0].split() == ["0", "1", "2", "3", "4", "5"]
    assert [line.split()[0] for line in text.splitlines()[1:]] == ["0", "1", "2", "3"]
    plain = [row.replace(" | ", " ").split() for row in hb.render(b).splitlines()]
    assert labelled_cells(text) == {(r, c): plain[r][c] for r in range(4) for c in range(6)}
    # Columns stay aligned under their numbers however wide a token is.
    header, first = text.splitlines()[:2]
    assert first.index("C:stone_supplier") == header.index("4") and first.index("F:g2") == header.index("2")


def test_a_placement_shows_up_where_its_notation_says():
    import re
    import numpy as np
    from cavekit.core import load_game
    from cavekit.core.api import CHANCE, sample_chance_outcome
    game = load_game("caverna", players=1)
    state = game.new_initial_state(seed=1)
    rng = np.random.default_rng(5)
    checked = 0
    while not state.is_terminal() and checked < 6:
        if state.current_player() == CHANCE:
            state.apply_action(sample_chance_outcome(state.chance_outcomes(), rng.random()))
            continue
        legal = state.legal_actions()
        placed = [a for a in legal if re.fullmatch(r"(tile|furnish|sow) .* at .*", state.action_to_string(a))]
        action = placed[rng.integers(len(placed))] if placed and rng.random() < 0.7 else legal[rng.integers(len(legal))]
        text = state.action_to_string(action)
        state.apply_action(action)
        if action not in placed:
            continue
        shown = str(state).split("board (a space is row,col", 1)[1].split("\n", 1)[1]
        board = "\n".join(line[4:] for line in shown.splitlines() if line.startswith("    "))
        cells = labelled_cells(board)
        # Every on-board position the notation names now holds what was put there.
        for kind, row, col in re.findall(r"(?:(\w+) )?(-?\d),(-?\d)", text.split(" at ", 1)[1]):
            row, col = int(row), int(col)
            if not (0 <= row < 4 and 0 <= col < 6):
                continue
            token = cells[(row, col)]
            if text.startswith("sow"):
                assert re.search(r":[gv]\d", token), (text, token)
            elif text.startswith("furnish"):
                assert ":" + text.split()[1] in token or token == "E", (text, token)
            else:
                assert token[0] == hb._TERRAIN_CODE[kind], (text, token)
        checked += 1
    assert checked >= 3
