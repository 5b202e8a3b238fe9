"""Batches of simulated games, summaries and the `cavekit` command line."""
