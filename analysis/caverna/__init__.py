"""Caverna's analyses (`scores`: scores per player count at a stated search budget)."""
