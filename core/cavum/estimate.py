"""The constants of Cavum's heuristic estimate of a position (`cavum_evaluate` in search/cavum_agents.py, and
its C twin `evaluate` in compiled.pyx, which the compiled searches reach through the engine interface). They
live in core so that the engine's C evaluation reads them without importing a search module."""

CAVUM_SCALE = 15.0          # points of lead that make tanh about 0.76
ORDER_SHARE = 0.8           # an order that can be fulfilled is not yet fulfilled
