import sys
from pathlib import Path

# Test helper modules (cvc_scenarios, cvc_positions) live beside the tests.
sys.path.insert(0, str(Path(__file__).parent))


def pytest_addoption(parser):
    parser.addoption("--update-golden", action="store_true", default=False,
                     help="rewrite the golden playthroughs under tests/golden/ (accept a reviewed change); "
                          "the environment variable CAVEKIT_UPDATE_GOLDEN=1 does the same")
