"""Agents behind one small protocol (``agents/base.py``): ``act(observation, agent, env_name) -> int``,
plus the optional ``start_game`` / ``end_game`` hooks every runner calls.

    import agents
    a = agents.load("random")          # uniform over legal actions
    h = agents.load("heuristic")       # the rule-based player of every game
    p = agents.load("ppo")             # the pretrained PPO policy shipped for every game
    q = agents.load("ppo:runs/golf_v0/20250101-120000")          # a run folder (its final.zip)
    q = agents.load("ppo:runs/golf_v0/20250101-120000/final.zip")
    s = agents.load("ppo,sample,any_table", seed=3)              # sampled, at any table
    r = agents.load("rllib:runs/golf_v0/20250101-120000")   # an RLlib run (pip install -e ".[distributed]")
    m = agents.load("py:my_package.my_module:MyAgent")      # any agent class

Specs: ``KIND[:ARG][,FLAG...]``

===============================  =============================================================
``random``                       uniform over the legal actions
``heuristic``                    the rule-based player (plays by the table's options it is told)
``ppo``                          the PPO policy shipped for the game (``agents/pretrained``)
``ppo:PATH``                     a policy ``.zip``, or a training run folder (its ``final.zip``),
                                 read as data (a zip holding only SB3's pickle is refused:
                                 ``agents/ppo.py`` says how to convert one you trust)
``rllib:PATH``                   an RLlib run folder or checkpoint (``agents/rllib_agent.py``)
``py:package.module:Class``      any agent class (``py:path/to/file.py:Class`` works too),
                                 built as ``Class(seed=seed)`` when it takes ``seed``, else
                                 ``Class()``
``pimc[:KEY=VALUE,...]``         perfect-information Monte Carlo over sampled worlds: alone,
                                 the game's strongest setting within 100 ms a decision
                                 (``agents/search_defaults.py``); each key overrides that key
                                 (``pimc:worlds=64,rollout=heuristic``, ``pimc:ms=100``)
``ismcts[:KEY=VALUE,...]``       single-observer ISMCTS, the same way (``ismcts:iterations=2000``)
``openspiel:KIND[:KEY=VALUE]``   one of OpenSpiel's bots (``ismcts``, ``mcts``, ``random``;
                                 ``agents/openspiel.py``; the ``openspiel`` extra)
===============================  =============================================================

The search agents (``agents/search.py``) take comma-separated ``key=value`` options instead of
flags: ``pimc`` worlds, ms, rollout (random|heuristic|ppo), engine (batched|rules), batch, prior
(none|heuristic|ppo), z, model (none|heuristic); ``ismcts`` iterations, ms, rollout, c, prior, z,
model. ``seed`` comes from ``load(spec, seed=...)``.

Flags, for the learned policies (``ppo``, ``rllib``) only:

- ``greedy`` (the default): play the most probable legal action;
- ``sample``: sample from the masked policy with the agent's generator (seeded by ``seed``);
- ``any_table``: play even at a table whose options differ from the policy's training options
  (without it ``start_game`` refuses such a table with a ValueError naming each option).

A path holding a comma cannot be written as a spec; construct the agent directly
(``agents.ppo.PPOAgent(path)``). A bad spec is a ValueError naming the problem and the forms.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import sys
from pathlib import Path
from typing import Any, Sequence

from agents.base import Agent, RandomAgent, end_game, start_game, table_options

__all__ = ["Agent", "RandomAgent", "end_game", "load", "parse_spec", "split_specs", "start_game", "table_options"]

FORMS = ("random", "heuristic", "ppo", "ppo:PATH", "rllib:PATH", "py:package.module:Class",
         "pimc[:KEY=VALUE,...]", "ismcts[:KEY=VALUE,...]", "openspiel:KIND[:KEY=VALUE,...]")
SEARCH = ("pimc", "ismcts")
FLAGS = ("greedy", "sample", "any_table")
LEARNED = ("ppo", "rllib")
_FORMS_TEXT = (f"allowed forms: {', '.join(FORMS)}, with flags ,{' ,'.join(FLAGS)} for ppo and rllib "
               "(e.g. 'ppo:runs/golf_v0/RUN,sample')")


def parse_spec(spec: str) -> tuple[str, str, frozenset[str]]:
    """``"ppo:runs/x,sample"`` -> ``("ppo", "runs/x", {"sample"})``; a bad spec is a ValueError."""
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"an agent spec is a non-empty string, got {spec!r}; {_FORMS_TEXT}")
    head, *flags = [part.strip() for part in spec.strip().split(",")]
    kind, colon, arg = head.partition(":")
    kind = kind.strip().lower()
    if kind in SEARCH:  # key=value options, comma-separated: the head's and every later part
        from agents.search import parse_options

        options = ",".join(p for p in [arg.strip(), *flags] if p)
        parse_options(kind, options)
        return kind, options, frozenset()
    if kind == "openspiel":  # openspiel:KIND[:key=value,...]
        bot, _, keys = arg.strip().partition(":")
        items = [p for p in [keys.strip(), *flags] if p]
        bad = [p for p in items if "=" not in p]
        if not bot or bad:
            raise ValueError(f"agent spec {spec!r}: write openspiel:KIND[:key=value,...] (KIND ismcts, mcts or random)")
        return kind, ",".join([bot.strip().lower() + (":" if items else "")] + items).replace(":,", ":"), frozenset()
    if kind not in ("random", "heuristic", "ppo", "rllib", "py"):
        raise ValueError(f"unknown agent spec {spec!r} (unknown kind {kind!r}); {_FORMS_TEXT}")
    if kind in ("random", "heuristic") and colon:
        raise ValueError(f"agent spec {spec!r}: {kind} takes no argument; {_FORMS_TEXT}")
    if kind in ("rllib", "py") and not arg:
        form = "rllib:PATH" if kind == "rllib" else "py:package.module:Class"
        raise ValueError(f"agent spec {spec!r}: {kind} needs an argument ({form}); {_FORMS_TEXT}")
    if kind == "ppo" and colon and not arg:
        raise ValueError(f"agent spec {spec!r}: 'ppo:' needs a PATH (or write 'ppo' for the shipped policy); {_FORMS_TEXT}")
    unknown = [f for f in flags if f not in FLAGS]
    if unknown:
        raise ValueError(f"agent spec {spec!r}: unknown flag {', '.join(map(repr, unknown))} "
                         f"(flags: {', '.join(FLAGS)}); a path holding a comma cannot be a spec")
    if flags and kind not in LEARNED:
        raise ValueError(f"agent spec {spec!r}: the flags {', '.join(FLAGS)} are for learned policies "
                         f"(ppo, rllib), not {kind}")
    if "greedy" in flags and "sample" in flags:
        raise ValueError(f"agent spec {spec!r}: 'greedy' and 'sample' contradict each other; give one")
    return kind, arg, frozenset(flags)


def split_specs(text: str | Sequence[str]) -> list[str]:
    """A comma-separated list of agent specs, keeping each spec's own flags with it:
    ``"heuristic,ppo,any_table,random"`` -> ``["heuristic", "ppo,any_table", "random"]``."""
    parts = [p.strip() for p in (text.split(",") if isinstance(text, str) else
                                 [q for t in text for q in str(t).split(",")]) if p.strip()]
    out: list[str] = []
    for p in parts:
        if out and (p in FLAGS or ("=" in p and ":" not in p)):  # a flag, or a key=value of the spec before
            out[-1] = f"{out[-1]},{p}"
        else:
            out.append(p)
    return out


def load(spec: str, seed: int | None = None) -> Agent:
    """The agent a spec names (see the module docstring for the forms and flags)."""
    kind, arg, flags = parse_spec(spec)
    deterministic = "sample" not in flags
    any_table = "any_table" in flags
    if kind == "random":
        return RandomAgent(seed)
    if kind == "heuristic":
        from agents.heuristic import HeuristicAgent

        return HeuristicAgent(seed)
    if kind == "ppo":
        from agents.ppo import PPOAgent

        return PPOAgent(arg or None, deterministic=deterministic, seed=seed, any_table=any_table)
    if kind in SEARCH:
        from agents.search import make

        return make(kind, arg, seed)
    if kind == "openspiel":
        from agents.openspiel import OpenSpielAgent

        bot, _, keys = arg.partition(":")
        options = dict(k.split("=", 1) for k in keys.split(",") if k)
        agent = OpenSpielAgent(bot, seed=options.pop("seed", seed), **options)  # a seed in the spec wins
        agent.name = f"openspiel:{arg}"
        return agent
    if kind == "rllib":
        from agents.rllib_agent import RLlibAgent

        return RLlibAgent.load(arg, deterministic=deterministic, seed=seed, any_table=any_table)
    return load_class(arg, seed)


def load_class(target: str, seed: int | None = None) -> Any:
    """``package.module:Class`` (or ``path/to/file.py:Class``) imported, checked to have
    ``act()``, and constructed as ``Class(seed=seed)`` when it accepts ``seed``, else ``Class()``."""
    module_name, colon, attr = target.rpartition(":")
    if not colon or not module_name or not attr:
        raise ValueError(f"agent spec 'py:{target}': write py:package.module:Class (the module, a colon, the class)")
    if module_name.endswith(".py"):
        path = Path(module_name).expanduser()
        if not path.is_file():
            raise ValueError(f"agent spec 'py:{target}': no Python file {path}")
        name = f"_card_envs_agent_{path.stem}"
        module_spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(module_spec)
        sys.modules[name] = module  # so that its classes pickle by name in this process
        try:
            module_spec.loader.exec_module(module)
        except Exception as e:
            del sys.modules[name]
            raise ValueError(f"agent spec 'py:{target}': importing {path} failed: {type(e).__name__}: {e}") from e
    else:
        try:
            module = importlib.import_module(module_name)
        except ImportError as e:
            raise ValueError(f"agent spec 'py:{target}': cannot import module {module_name!r} ({e}); "
                             "is it on the Python path (installed, or in the current folder)?") from e
    cls = getattr(module, attr, None)
    if cls is None:
        public = sorted(n for n, v in vars(module).items() if inspect.isclass(v) and not n.startswith("_"))
        raise ValueError(f"agent spec 'py:{target}': module {module_name!r} has no {attr!r}"
                         + (f" (its classes: {', '.join(public)})" if public else ""))
    if not callable(getattr(cls, "act", None)):
        raise ValueError(f"agent spec 'py:{target}': {attr} has no act() method, so it is not an agent "
                         "(an agent has act(observation, agent, env_name) -> int)")
    if not callable(cls):
        raise ValueError(f"agent spec 'py:{target}': {attr} is not a class that can be constructed")
    try:
        params = inspect.signature(cls).parameters
        takes_seed = "seed" in params or any(p.kind is p.VAR_KEYWORD for p in params.values())
    except (TypeError, ValueError):
        takes_seed = False
    try:
        return cls(seed=seed) if takes_seed else cls()
    except Exception as e:
        how = f"{attr}(seed={seed!r})" if takes_seed else f"{attr}()"
        raise ValueError(f"agent spec 'py:{target}': constructing {how} failed: {type(e).__name__}: {e}") from e
