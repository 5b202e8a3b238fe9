"""The rules documents shipped in docs/rules/ are the project's rules reference, word for word."""
from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "rules"
DOCUMENTS = ("cave-vs-cave.md", "cavum.md", "the-cave-pairs.md", "caverna.md")


@pytest.mark.parametrize("name", DOCUMENTS)
def test_every_games_rules_document_ships_with_the_repository(name):
    text = (ROOT / "docs" / "rules" / name).read_text(encoding="utf-8")
    assert text.startswith("#") and len(text) > 2000


@pytest.mark.skipif(not SHARED.is_dir(), reason="the shared rules reference is not beside this checkout")
@pytest.mark.parametrize("name", DOCUMENTS)
def test_the_shipped_rules_document_matches_the_shared_reference(name):
    assert (ROOT / "docs" / "rules" / name).read_bytes() == (SHARED / name).read_bytes(), \
        f"docs/rules/{name} differs from shared/rules/{name}: copy the corrected file in"


def test_the_readme_points_at_the_shipped_rules_not_outside_the_repository():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "docs/rules/" in readme and "shared/rules/cave-vs-cave.md" not in readme
