"""Hot (rules, view, env) on the round it shares with Collector (``card_envs.set_collecting``): see ``card_envs.hot_v0``."""
