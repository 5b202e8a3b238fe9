import sys
from pathlib import Path

# Test helper modules (cvc_scenarios, cvc_positions) live beside the tests.
sys.path.insert(0, str(Path(__file__).parent))
