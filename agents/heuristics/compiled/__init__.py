"""The heuristics' compiled twins on the batched engine (numba), one module per game that has one."""
