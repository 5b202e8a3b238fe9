"""Caverna: The Cave Farmers (1-7 players): rules data, home board, furnishings, husbandry and scoring.

Step 1: the rules modules (`rules`, `board`, `furnishings`, `husbandry`, `scoring`, `summary`). Step 2: the game on
the common API (`game`: the Game object, notation, records, returns; `actions`: the action table; `reference`:
the readable reference State), registered as `load_game("caverna", players=1..7)`.
"""
