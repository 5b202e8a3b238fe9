"""Animal husbandry (rules file section 9): what a home board can hold, and the optimal accommodation.

Animals may be rearranged at any time, so a player's animals are just counts; what matters is whether some
arrangement houses them. A board offers *holdings*, each keeping animals of one farm type up to a capacity:
- pastures: `2 * spaces * 2**stables` (small 2 / 4 with a stable; large 4 / 8 / 16), any one type;
- a stable on an unfenced meadow: 1 animal of any type; a stable on an uncovered forest space: 1 wild boar;
- each ore or ruby mine: 1 donkey;
- furnishings (`furnishings.animal_rooms`): entry-level and Mixed dwelling 2 of one type, Breakfast room 3
  cattle, Cuddle room as many sheep as dwarfs, Stubble room 1 animal on each unsown field.
Dogs live anywhere without limit. On a meadow or pasture holding d >= 1 dogs and no other farm animal, up to
d + 1 sheep may stay (`watch`): with `dog_capacity_rule="max_of_both"` the better of that and the normal
capacity, with `dogs_replace_capacity` exactly d + 1 sheep whenever dogs are there (`holding_capacity`).
Because dogs may always be moved somewhere harmless, both readings give the same optimum; they differ for
a given layout (`check_layout`).

The optimum is exact (see "The exact optimum" below: holdings reduce to capacity classes, searched type by
type with memoised failures). `can_accommodate` is the fast question the game loop asks after every gain
(animals that do not fit are released one by one); `accommodate` finds the best set to keep under a per-type
value (default: most animals, then most types, then most food value kept) and says what must be released;
`arrange` returns an explicit layout; `breeding_options` lists which newborns fit; `frontier` lists every
Pareto-maximal set of animals that can be kept together (large when the animals far exceed the room).
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations, product

from . import board as hb
from . import furnishings as fu
from .rules import FARM_ANIMALS, Config, Pos, default_config, formula, rules

SHEEP = "sheep"
NUM_FARM = len(FARM_ANIMALS)


@dataclass(frozen=True)
class Holding:
    """A place that keeps farm animals of one type (Stubble-room fields: one animal each)."""

    name: str
    cells: tuple[Pos, ...]
    capacity: int
    types: tuple[str, ...]
    watchable: bool = False        # a meadow or pasture: dogs may watch sheep here


def pasture_capacity(spaces: int, stables: int) -> int:
    """Capacity of a pasture from the data's formula."""
    return formula(rules().pasture_formula)({"spaces": spaces, "stables": stables})


def holdings(board: hb.Board, dwarfs: int, config: Config | None = None) -> list[Holding]:
    """Every holding of a board for a family of `dwarfs` (the Cuddle room counts this round's newborn)."""
    config = config or default_config()
    r = rules()
    result: list[Holding] = []
    items = board.items(config)
    for pos, s in items:
        where = f"{pos[0]},{pos[1]}"
        if s.terrain == hb.SMALL_PASTURE:
            result.append(Holding(f"small pasture {where}", (pos,), pasture_capacity(1, int(s.stable)),
                                  FARM_ANIMALS, True))
        elif s.terrain == hb.LARGE_PASTURE and s.partner is not None and pos < s.partner:
            other = board.at(s.partner)
            stables = int(s.stable) + int(bool(other and other.stable))
            result.append(Holding(f"large pasture {where}+{s.partner[0]},{s.partner[1]}", (pos, s.partner),
                                  pasture_capacity(2, stables), FARM_ANIMALS, True))
        elif s.terrain == hb.MEADOW:
            room = r.holding_rules["meadow_stable"]
            result.append(Holding(f"meadow {where}", (pos,), int(room.capacity) if s.stable else 0, room.types, True))
        elif s.terrain == hb.EMPTY and s.stable and hb.area(pos) == hb.FOREST:
            room = r.holding_rules["forest_stable"]
            result.append(Holding(f"forest stable {where}", (pos,), int(room.capacity), room.types))
        elif s.terrain in hb.MINES:
            room = r.holding_rules["mine"]
            name = s.terrain.replace("_", " ")
            result.append(Holding(f"{name} {where}", (pos,), int(room.capacity), room.types))
    for fid, pos, room in fu.animal_rooms(board, config):
        where = f"{pos[0]},{pos[1]}"
        if room.capacity == "dwarfs":
            result.append(Holding(f"{fid} {where}", (pos,), dwarfs, room.types))
        elif room.capacity == "per_empty_field":
            for field_pos in hb.empty_fields(board, config):
                result.append(Holding(f"{fid} field {field_pos[0]},{field_pos[1]}", (field_pos,), 1, room.types))
        else:
            result.append(Holding(f"{fid} {where}", (pos,), int(room.capacity), room.types))
    return result


def holding_capacity(holding: Holding, animal: str, dogs: int, config: Config | None = None) -> int:
    """How many animals of a type a holding keeps when `dogs` dogs are on it (the dog rule per parameters)."""
    config = config or default_config()
    normal = holding.capacity if animal in holding.types else 0
    if not holding.watchable or dogs <= 0:
        return normal
    if config.dog_capacity_rule == "dogs_replace_capacity":
        return dogs + 1 if animal == SHEEP else 0
    return max(normal, dogs + 1) if animal == SHEEP else normal


# ------------------------------------------------------------------------------------------------------
# The exact optimum
#
# Every holding that takes more than one farm type takes all four (pastures, stables on meadows, dwellings,
# Stubble-room fields), so it is described by its capacity alone: the choice is which capacities go to which
# type. Single-type holdings (mines, forest stables, Breakfast and Cuddle room) are simply added to their type.
# Watching dogs use m meadows/pastures (m <= dogs) for dogs + m sheep; watching on the m smallest ones is never
# worse (a larger one serves any type better). What is left is a multiset of capacities, searched type by type.

Multiset = tuple[int, ...]          # how many holdings of each capacity class are left


@dataclass(frozen=True)
class _Problem:
    """Holdings reduced to: fixed capacity per type, and one capacity multiset per number of watched holdings."""

    fixed: tuple[int, ...]
    values: tuple[int, ...]                                  # capacity classes, largest first
    variants: tuple[tuple[int, Multiset, tuple[Holding, ...]], ...]   # (sheep from dogs, multiset, watched)
    flexible: tuple[Holding, ...]


def _problem(hs: list[Holding], dogs: int) -> _Problem:
    """Reduce holdings to fixed capacities and capacity multisets (one per number of watched holdings)."""
    fixed = [0] * NUM_FARM
    flexible = []
    for h in hs:
        if len(h.types) == 1 and not h.watchable:
            fixed[FARM_ANIMALS.index(h.types[0])] += h.capacity
        elif h.capacity > 0 or h.watchable:
            if set(h.types) != set(FARM_ANIMALS):
                raise ValueError(f"{h.name} takes {h.types}: the accommodation search needs all or one farm type")
            flexible.append(h)
    values = tuple(sorted({h.capacity for h in flexible if h.capacity > 0}, reverse=True))
    watchable = sorted((h for h in flexible if h.watchable), key=lambda h: h.capacity)
    variants = []
    for m in range(0, min(dogs, len(watchable)) + 1):
        watched = tuple(watchable[:m])
        rest = list(flexible)
        for h in watched:
            rest.remove(h)
        counts = tuple(sum(1 for h in rest if h.capacity == v) for v in values)
        variants.append((dogs + m if m else 0, counts, watched))
    return _Problem(tuple(fixed), values, tuple(variants), tuple(flexible))


def _capacity(values: tuple[int, ...], counts: Multiset) -> int:
    """Total capacity of a multiset."""
    return sum(v * n for v, n in zip(values, counts))


def _covers(values: tuple[int, ...], counts: Multiset, need: int) -> list[Multiset]:
    """Minimal sub-multisets whose capacity reaches `need` (dropping any holding would fall short)."""
    result: list[Multiset] = []

    def walk(i: int, chosen: list[int], total: int) -> None:
        if i == len(values):
            return
        for k in range(counts[i] + 1):
            reached = total + k * values[i]
            if reached >= need and k > 0:
                result.append(tuple(chosen + [k] + [0] * (len(values) - i - 1)))
                return
            walk(i + 1, chosen + [k], reached)

    if need <= 0:
        return [(0,) * len(values)]
    walk(0, [], 0)
    return result


def _sub_multisets(counts: Multiset) -> list[Multiset]:
    """Every sub-multiset."""
    return [tuple(c) for c in product(*(range(n + 1) for n in counts))]


def _assign(problem: _Problem, counts: tuple[int, ...]) -> tuple[int, list[Multiset | None]] | None:
    """(variant, multiset given to each type) housing exactly `counts`, or None when they do not fit."""
    for index, (bonus, multiset, _) in enumerate(problem.variants):
        needs = [max(0, counts[t] - problem.fixed[t] - (bonus if t == 0 else 0)) for t in range(NUM_FARM)]
        order = sorted((t for t in range(NUM_FARM) if needs[t] > 0), key=lambda t: -needs[t])
        if _capacity(problem.values, multiset) < sum(needs):
            continue
        failed: set[tuple[int, Multiset]] = set()

        def search(i: int, left: Multiset) -> list[Multiset] | None:
            if i == len(order):
                return []
            if (i, left) in failed:
                return None
            rest = sum(needs[t] for t in order[i + 1:])
            for cover in _covers(problem.values, left, needs[order[i]]):
                remaining = tuple(a - b for a, b in zip(left, cover))
                if _capacity(problem.values, remaining) < rest:
                    continue
                found = search(i + 1, remaining)
                if found is not None:
                    return [cover] + found
            failed.add((i, left))
            return None

        plan = search(0, multiset)
        if plan is not None:
            per_type: list[Multiset | None] = [None] * NUM_FARM
            for t, cover in zip(order, plan):
                per_type[t] = cover
            return index, per_type
    return None


def _frontier(problem: _Problem, counts: tuple[int, ...]) -> list[tuple[int, ...]]:
    """Pareto-maximal vectors of farm animals (capped at `counts`) that can be kept together."""
    kept: set[tuple[int, ...]] = set()
    for bonus, multiset, _ in problem.variants:
        base = [problem.fixed[t] + (bonus if t == 0 else 0) for t in range(NUM_FARM)]
        states: dict[Multiset, set[tuple[int, ...]]] = {multiset: {()}}
        for t in range(NUM_FARM - 1):
            need = counts[t] - base[t]
            new: dict[Multiset, set[tuple[int, ...]]] = {}
            for left, partials in states.items():
                for choice in _choices(problem.values, left, need):
                    amount = min(counts[t], base[t] + _capacity(problem.values, choice))
                    remaining = tuple(a - b for a, b in zip(left, choice))
                    new.setdefault(remaining, set()).update(p + (amount,) for p in partials)
            states = {left: set(_pareto(ps)) for left, ps in new.items()}
        last = NUM_FARM - 1
        for left, partials in states.items():
            amount = min(counts[last], base[last] + _capacity(problem.values, left))
            kept.update(p + (amount,) for p in partials)
    return _pareto(kept)


def _pareto(vectors: set[tuple[int, ...]]) -> list[tuple[int, ...]]:
    """The vectors no other vector dominates (>= everywhere), largest sums first."""
    ordered = sorted(vectors, key=lambda v: (-sum(v), v))
    kept: list[tuple[int, ...]] = []
    for v in ordered:
        if not any(all(k >= x for k, x in zip(w, v)) for w in kept):
            kept.append(v)
    return kept


def _vector(animals: Mapping[str, int]) -> tuple[int, ...]:
    """Farm animal counts in FARM_ANIMALS order."""
    return tuple(int(animals.get(a, 0)) for a in FARM_ANIMALS)


def frontier(board: hb.Board, animals: Mapping[str, int], dwarfs: int,
             config: Config | None = None) -> list[dict[str, int]]:
    """Every Pareto-maximal set of the given animals the board can keep together (dogs always stay)."""
    dogs = int(animals.get("dog", 0))
    problem = _problem(holdings(board, dwarfs, config), dogs)
    return [dict(zip(FARM_ANIMALS, v), dog=dogs) for v in _frontier(problem, _vector(animals))]


def can_accommodate(board: hb.Board, animals: Mapping[str, int], dwarfs: int, config: Config | None = None) -> bool:
    """True when every animal fits on the board at once."""
    problem = _problem(holdings(board, dwarfs, config), int(animals.get("dog", 0)))
    return _assign(problem, _vector(animals)) is not None


def max_keepable(board: hb.Board, animals: Mapping[str, int], dwarfs: int,
                 config: Config | None = None) -> dict[str, int]:
    """For each type, the most of it the board can keep (releasing the other types if need be)."""
    problem = _problem(holdings(board, dwarfs, config), int(animals.get("dog", 0)))
    counts = _vector(animals)
    best = {}
    for t, animal in enumerate(FARM_ANIMALS):
        room = max(problem.fixed[t] + (bonus if t == 0 else 0) + _capacity(problem.values, multiset)
                   for bonus, multiset, _ in problem.variants)
        best[animal] = min(counts[t], room)
    return best


@lru_cache(maxsize=1)
def _food_values() -> dict[str, int]:
    """Food one animal converts to on its own (the printed table)."""
    values = {a: 0 for a in FARM_ANIMALS}
    for c in rules().food_conversions:
        pay = dict(c.pay)
        if len(pay) == 1 and list(pay.values()) == [1] and list(pay)[0] in values:
            values[list(pay)[0]] = dict(c.get)["food"]
    return values


def default_value(animal: str, kept: int) -> tuple[int, int, int]:
    """Value of keeping `kept` of a type, summed over types: animals, then types present, then food value."""
    return kept, int(kept > 0), kept * _food_values()[animal]


@dataclass(frozen=True)
class Accommodation:
    """Animals kept, animals that must be released (converted to food or returned), and one layout."""

    kept: dict[str, int]
    released: dict[str, int]
    layout: Arrangement


def _choices(values: tuple[int, ...], left: Multiset, need: int) -> list[Multiset]:
    """Sub-multisets worth giving a type that needs `need` more: any that falls short, or a minimal cover."""
    if need <= 0:
        return [(0,) * len(values)]
    return [c for c in _sub_multisets(left) if _capacity(values, c) < need] + _covers(values, left, need)


def _add(a: tuple, b: tuple) -> tuple:
    """Element-wise sum."""
    return tuple(x + y for x, y in zip(a, b))


def _best(problem: _Problem, counts: tuple[int, ...],
          value: Callable[[str, int], tuple]) -> tuple[tuple, int, list[Multiset], tuple[int, ...]]:
    """(value, variant, multiset per type, kept) of the best separable value over all assignments."""
    best: tuple[tuple, int, list[Multiset], tuple[int, ...]] | None = None
    for index, (bonus, multiset, _) in enumerate(problem.variants):
        base = [problem.fixed[t] + (bonus if t == 0 else 0) for t in range(NUM_FARM)]
        memo: dict[tuple[int, Multiset], tuple[tuple, list[Multiset], tuple[int, ...]]] = {}

        def solve(t: int, left: Multiset) -> tuple[tuple, list[Multiset], tuple[int, ...]]:
            if (t, left) in memo:
                return memo[(t, left)]
            animal = FARM_ANIMALS[t]
            if t == NUM_FARM - 1:
                amount = min(counts[t], base[t] + _capacity(problem.values, left))
                result = (tuple(value(animal, amount)), [left], (amount,))
            else:
                best_here = None
                for choice in _choices(problem.values, left, counts[t] - base[t]):
                    amount = min(counts[t], base[t] + _capacity(problem.values, choice))
                    rest = solve(t + 1, tuple(a - b for a, b in zip(left, choice)))
                    score = _add(tuple(value(animal, amount)), rest[0])
                    if best_here is None or score > best_here[0]:
                        best_here = (score, [choice] + rest[1], (amount,) + rest[2])
                assert best_here is not None
                result = best_here
            memo[(t, left)] = result
            return result

        score, per_type, kept = solve(0, multiset)
        if best is None or score > best[0]:
            best = (score, index, per_type, kept)
    assert best is not None
    return best


def accommodate(board: hb.Board, animals: Mapping[str, int], dwarfs: int, config: Config | None = None,
                value: Callable[[str, int], tuple] = default_value) -> Accommodation:
    """The animals to keep that maximise the per-type `value` summed over types, what is released, a layout."""
    config = config or default_config()
    hs = holdings(board, dwarfs, config)
    dogs = int(animals.get("dog", 0))
    problem = _problem(hs, dogs)
    counts = _vector(animals)
    _, variant, per_type, kept_vector = _best(problem, counts, value)
    kept = dict(zip(FARM_ANIMALS, kept_vector), dog=dogs)
    released = {a: counts[t] - kept[a] for t, a in enumerate(FARM_ANIMALS) if counts[t] > kept[a]}
    return Accommodation(kept, released, _layout(hs, problem, variant, per_type, kept_vector, dogs))


def breeding_options(board: hb.Board, animals: Mapping[str, int], dwarfs: int, config: Config | None = None,
                     max_types: int | None = None) -> list[tuple[str, ...]]:
    """Largest sets of types (2+ animals, room for every newborn at once) that may breed; [] if none fits."""
    counts = _vector(animals)
    eligible = [t for t in range(NUM_FARM) if counts[t] >= 2]
    problem = _problem(holdings(board, dwarfs, config), int(animals.get("dog", 0)))
    limit = len(eligible) if max_types is None else min(max_types, len(eligible))
    fitting: list[tuple[int, ...]] = []
    for size in range(limit, 0, -1):
        for subset in combinations(eligible, size):
            if any(set(subset) < set(f) for f in fitting):
                continue
            need = tuple(c + (1 if t in subset else 0) for t, c in enumerate(counts))
            if _assign(problem, need) is not None:
                fitting.append(subset)
    return [tuple(FARM_ANIMALS[t] for t in subset) for subset in fitting]


def donkeys_in_mines(board: hb.Board, donkeys: int) -> int:
    """Donkeys that can stand in the Ore and Ruby mines (moving donkeys into a free mine never hurts)."""
    ore, ruby = hb.mine_counts(board)
    return min(donkeys, ore + ruby)


def ore_mines_with_donkeys(board: hb.Board, donkeys: int) -> int:
    """Ore mines that can hold a donkey (the Miner's count; donkeys go to ore mines first)."""
    return min(donkeys, hb.mine_counts(board)[0])


# ------------------------------------------------------------------------------------------------------
# Explicit layouts

@dataclass(frozen=True)
class Arrangement:
    """A concrete layout: (holding name, animal, count, dogs on it) per used holding, plus wandering dogs."""

    placed: tuple[tuple[str, str, int, int], ...]
    wandering_dogs: int = 0


def _layout(hs: list[Holding], problem: _Problem, variant: int, per_type: list[Multiset | None],
            kept: tuple[int, ...], dogs: int) -> Arrangement:
    """The concrete layout of an assignment: single-type holdings, watching dogs, then each type's holdings."""
    counts = list(kept)
    _, _, watched = problem.variants[variant]
    placed: list[tuple[str, str, int, int]] = []
    for h in hs:                                        # single-type holdings first
        if len(h.types) == 1 and not h.watchable:
            t = FARM_ANIMALS.index(h.types[0])
            n = min(h.capacity, counts[t])
            if n:
                placed.append((h.name, h.types[0], n, 0))
                counts[t] -= n
    spare_dogs = dogs - len(watched)
    for k, h in enumerate(watched):                     # dogs watching sheep
        d = 1 + (spare_dogs if k == 0 else 0)
        n = min(d + 1, counts[0])
        placed.append((h.name, SHEEP, n, d))
        counts[0] -= n
    free = [h for h in problem.flexible if h not in watched and h.capacity > 0]
    for t, cover in enumerate(per_type):
        for value, number in zip(problem.values, cover or ()):
            for _ in range(number):
                h = next(h for h in free if h.capacity == value)
                free.remove(h)
                n = min(value, counts[t])
                if n:
                    placed.append((h.name, FARM_ANIMALS[t], n, 0))
                    counts[t] -= n
    assert not any(counts), "the assignment houses every animal kept"
    return Arrangement(tuple(placed), dogs - sum(p[3] for p in placed))


def arrange(board: hb.Board, animals: Mapping[str, int], dwarfs: int,
            config: Config | None = None) -> Arrangement | None:
    """One layout housing all the given animals, or None when they do not fit."""
    config = config or default_config()
    hs = holdings(board, dwarfs, config)
    dogs = int(animals.get("dog", 0))
    problem = _problem(hs, dogs)
    found = _assign(problem, _vector(animals))
    if found is None:
        return None
    variant, per_type = found
    return _layout(hs, problem, variant, per_type, _vector(animals), dogs)


def check_layout(board: hb.Board, layout: Arrangement, dwarfs: int, config: Config | None = None) -> str | None:
    """Why a concrete layout breaks the husbandry rules (None when it is valid)."""
    config = config or default_config()
    by_name = {h.name: h for h in holdings(board, dwarfs, config)}
    contents: dict[str, list[tuple[str, int, int]]] = {}
    for name, animal, count, dogs in layout.placed:
        if name not in by_name:
            return f"no holding named {name!r} on this board"
        contents.setdefault(name, []).append((animal, count, dogs))
    for name, entries in contents.items():
        h = by_name[name]
        types = {a for a, n, _ in entries if n > 0}
        dogs = sum(d for _, _, d in entries)
        if len(types) > 1:
            return f"{name} holds more than one farm animal type ({', '.join(sorted(types))})"
        for animal in types:
            count = sum(n for a, n, _ in entries if a == animal)
            room = holding_capacity(h, animal, dogs, config)
            if count > room:
                return f"{name} holds {count} {animal} but has room for {room}" + (
                    f" with {dogs} dog(s)" if dogs else "")
    return None
