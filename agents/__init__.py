"""Baseline agents (random, heuristic, PPO) behind one small protocol."""
