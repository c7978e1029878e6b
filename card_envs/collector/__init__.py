"""Collector (rules, view, env) and the engine it shares with Hot: see ``card_envs.collector_v0``."""
