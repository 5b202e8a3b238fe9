"""The `cavekit` command's entry point: small, so that a Ctrl-C while the command's modules load (numpy,
pandas and scipy take a second or two) ends as quietly as one while it runs."""
import sys


def main() -> int:
    """Load and run the `cavekit` command (`cavekit.analysis.cli.main`); the exit status."""
    try:
        from cavekit.analysis.cli import main as run
    except KeyboardInterrupt:
        print("cavekit: interrupted", file=sys.stderr)
        return 130
    return run()
