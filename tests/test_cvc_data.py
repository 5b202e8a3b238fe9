"""The package's rules data is its own copy of the project's reference, and stays in step with it."""
import json
from pathlib import Path

import pytest

from cavekit.core.cvc.rules import load_rules_data, rules

SHARED = Path(__file__).resolve().parents[2] / "shared" / "rules" / "cave-vs-cave.json"


@pytest.mark.skipif(not SHARED.exists(), reason="the shared rules reference is not beside this checkout")
def test_packaged_rules_data_matches_the_shared_reference():
    assert load_rules_data() == json.loads(SHARED.read_text(encoding="utf-8")), \
        "core/cvc/data/cave-vs-cave.json differs from shared/rules/cave-vs-cave.json: copy the corrected file in"


def test_rules_table_has_every_component():
    r = rules()
    assert len(r.tiles) == 12 and len(r.rooms) == 25 and len(r.spaces) == 12
    assert sum(room.orange for room in r.rooms[:24]) == 19
    assert sum(room.start_display for room in r.rooms) == 6
    assert len(r.wall_slots) == 14 and r.wall_supply == 7
    assert r.turns == {2: (2, 2, 2, 3, 3, 3, 3, 4), 1: (2, 2, 2, 3, 3, 3, 4)}
