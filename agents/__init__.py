"""Baseline agents behind one small protocol: ``agent.act(observation, agent, env_name) -> int``.

    import agents
    a = agents.load("random")          # uniform over legal actions
    h = agents.load("heuristic")       # the rule-based player of every game
    p = agents.load("ppo")             # the pretrained PPO policy shipped for every game
    q = agents.load("ppo:runs/golf_v0/final.zip")
    r = agents.load("rllib:runs/golf_v0/20250101-120000")   # an RLlib run (pip install -e ".[distributed]")
"""

from __future__ import annotations

from agents.base import Agent, RandomAgent

__all__ = ["Agent", "RandomAgent", "load"]


def load(spec: str, seed: int | None = None) -> Agent:
    """An agent from its spec: ``"random"``, ``"heuristic"``, ``"ppo"``, ``"ppo:PATH"`` or ``"rllib:PATH"``
    (an RLlib run folder or checkpoint, see ``agents/rllib_agent.py``)."""
    if not isinstance(spec, str):
        raise ValueError(
            f"an agent spec is a string like 'random', 'heuristic', 'ppo', 'ppo:PATH' or 'rllib:PATH', got {spec!r}"
        )
    kind, _, arg = spec.partition(":")
    if kind == "random" and not arg:
        return RandomAgent(seed)
    if kind == "heuristic" and not arg:
        from agents.heuristic import HeuristicAgent

        return HeuristicAgent(seed)
    if kind == "ppo":
        from agents.ppo import PPOAgent

        return PPOAgent(arg or None, seed=seed)
    if kind == "rllib" and arg:
        from agents.rllib_agent import RLlibAgent

        return RLlibAgent.load(arg, seed=seed)
    raise ValueError(f"unknown agent spec {spec!r}; use 'random', 'heuristic', 'ppo', 'ppo:PATH' or 'rllib:PATH'")
