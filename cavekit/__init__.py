"""cavekit: AI opponents and strategy analysis for cave-themed strategy games."""

__version__ = "0.1.0"
