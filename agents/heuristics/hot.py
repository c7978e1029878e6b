"""Hot heuristic: Collector's (play duplicates first, take revealed cards of missing ranks);
in Hot a take also draws one card, and DRAW_TWO is the fallback."""

from agents.heuristics.collector import choose, explain_world  # noqa: F401
