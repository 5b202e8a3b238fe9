"""`python -m cavekit.analysis.cli`: the `cavekit` command."""
import sys

from . import main

sys.exit(main())
