"""`python -m cavekit`: the `cavekit` command."""
import sys

from cavekit.launch import main

if __name__ == "__main__":
    sys.exit(main())
