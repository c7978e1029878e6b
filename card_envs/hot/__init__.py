"""Hot (rules, view, env) on the engine it shares with Collector: see ``card_envs.hot_v0``."""
