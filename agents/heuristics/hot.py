"""Hot heuristic: Collector's (play duplicates first, take revealed cards of missing ranks);
in Hot a take also draws one card, and DRAW_TWO is the fallback. Its opponent model and its
compiled twin on the batched engine are Collector's too."""

from agents.heuristics.collector import choose, choose_rows, explain_world

__all__ = ["choose", "choose_rows", "explain_world"]
