"""Caverna: The Cave Farmers (1-7 players): rules data, home board, furnishings, husbandry and scoring.

Step 1 of the engine: the modules the game loop (State, action spaces, rounds, harvest) will call.
"""
