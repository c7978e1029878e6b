"""The agents a web table offers: what a request may seat in the other seats, and nothing else.

A request chooses an agent from the server's offer; it never names code or a file:

=====================================  ==========================================================
``random``, ``heuristic``              the baselines
``ppo`` (flags ``sample``, ``greedy``,  the policy shipped for the game, read as data (weights and
``any_table``)                         JSON settings: nothing in a policy file runs)
``pimc[:KEY=VALUE,...]``,              the search agents with their keys, each budget bounded
``ismcts[:KEY=VALUE,...]``             (:data:`card_envs.web.limits.SEARCH_BOUNDS`)
``NAME``                               an agent the person named when starting the server
                                       (``--agent NAME=SPEC``: any agent spec, a file or a
                                       module too, since the person chose it)
=====================================  ==========================================================

Anything else (``py:``, ``ppo:PATH``, ``rllib:``, ``openspiel:``) is refused with one line naming
the rule, before anything is imported or any file is looked at, so the answer never says whether
a file exists.

A search agent at the web table always has a time budget: the ``ms`` its agent spec gives or, without one,
:data:`card_envs.web.limits.SEARCH_MS` beside the game's count budget (whichever ends the search
first). Its moves are released on a fixed period just above that budget, so how long a move takes
to reach the person does not depend on the cards or the choices the agent had
(:mod:`card_envs.web.tables`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping

from card_envs.web import limits

#: the agents every server offers
BUILT_IN = ("random", "heuristic", "ppo", "pimc", "ismcts")
SEARCH = ("pimc", "ismcts")
PPO_FLAGS = ("greedy", "sample", "any_table")
#: the longest agent spec a request may give, and the most specs in one request
MAX_SPEC = 200
MAX_SPECS = 16


@dataclass(frozen=True)
class Choice:
    """One agent a request chose: ``shown`` is how the table names it (the request's spec, or
    the start-up name), ``spec`` what ``agents.load`` is given, ``search`` the search agent's
    kind (``pimc``, ``ismcts``) or None."""

    shown: str
    spec: str
    search: str | None = None


class Offer:
    """The agents a server offers: the built-in ones and ``named`` (name -> agent spec, the
    person's ``--agent NAME=SPEC`` at start-up, trusted since the person chose them)."""

    def __init__(self, named: Mapping[str, str] | None = None,
                 parse_spec: Callable[[str], Any] | None = None):
        self._parse = parse_spec
        self.named: dict[str, str] = {}
        for name, spec in dict(named or {}).items():
            key = str(name).strip()
            if not key or not key.replace("_", "").replace("-", "").isalnum():
                raise ValueError(f"agent name {name!r}: a name is letters, digits, '_' and '-' (--agent NAME=SPEC)")
            if key.lower() in BUILT_IN:
                raise ValueError(f"agent name {key!r} is taken by a built-in agent ({', '.join(BUILT_IN)}); "
                                 "choose another name")
            self.parse_spec(str(spec))  # a bad spec fails at start-up, not at the first table
            self.named[key] = str(spec)

    def parse_spec(self, spec: str) -> Any:
        parse = self._parse
        if parse is None:
            from card_envs.records import agents_hook

            parse = self._parse = agents_hook("parse_spec")
            if parse is None:
                raise ValueError("agent specs need the agents package (installed with card_envs: pip install -e .)")
        return parse(spec)

    def rule(self) -> str:
        named = f", or one named at start-up ({', '.join(self.named)})" if self.named else ""
        return ("a request chooses random, heuristic, ppo[,sample][,any_table], pimc[:KEY=VALUE,...] or "
                f"ismcts[:KEY=VALUE,...]{named}; code, files, rllib: and openspiel: agents are named when the "
                "server starts (--agent NAME=SPEC)")

    def choose(self, text: Any) -> Choice:
        """The agent a request's spec chooses; a ValueError naming the rule for anything the
        offer does not hold (no file is looked at, no module imported)."""
        if not isinstance(text, str) or not text.strip():
            raise ValueError(f"an agent is a non-empty string, got {_short(text)}; {self.rule()}")
        if len(text) > MAX_SPEC:
            raise ValueError(f"an agent spec is at most {MAX_SPEC} characters; {self.rule()}")
        spec = text.strip()
        if spec in self.named:
            named = self.named[spec]
            kind = self.parse_spec(named)[0]
            return Choice(spec, named, kind if kind in SEARCH else None)
        head, *flags = [p.strip() for p in spec.split(",")]
        kind, colon, arg = head.partition(":")
        kind = kind.strip().lower()
        if kind in ("random", "heuristic") and not colon and not flags:
            return Choice(kind, kind)
        if kind == "ppo" and not colon and all(f in PPO_FLAGS for f in flags):
            self.parse_spec(spec)  # contradicting flags are refused there
            return Choice(spec, spec)
        if kind in SEARCH:
            self.parse_spec(spec)  # unknown keys and bad values, named
            keys = _keys(",".join(p for p in [arg, *flags] if p.strip()))
            for key, bound in limits.SEARCH_BOUNDS[kind].items():
                if key in keys and not float(keys[key]) <= bound:
                    raise ValueError(f"agent {spec!r}: {key}={keys[key]} is over the web table's bound {bound:g} "
                                     f"({kind} takes at most " + ", ".join(
                                         f"{k}={v:g}" for k, v in limits.SEARCH_BOUNDS[kind].items()) + ")")
            return Choice(spec, spec, kind)
        raise ValueError(f"agent {_short(spec)} is not offered here: {self.rule()}")

    def choose_all(self, specs: Any) -> list[Choice]:
        """A request's list of specs (or one spec) as choices; at least one."""
        if isinstance(specs, str):
            specs = [specs]
        if not isinstance(specs, (list, tuple)) or not specs:
            raise ValueError(f"opponents must be a list of agent specs, got {_short(specs)}; {self.rule()}")
        if len(specs) > MAX_SPECS:
            raise ValueError(f"at most {MAX_SPECS} agent specs (they are cycled over the other seats)")
        return [self.choose(s) for s in specs]

    def timed(self, choice: Choice, agent: Any, env_name: str, load: Callable[[str, int | None], Any],
              seed: int | None) -> tuple[Any, str, float]:
        """``(agent, spec, period)``: the agent as the table seats it, the spec the record keeps and
        the period (seconds) its moves are released on. A search agent without a time budget is
        loaded again with one (:data:`limits.SEARCH_MS`) beside its count budget, its full spec
        written out."""
        if choice.search is None:
            return agent, choice.spec, limits.MOVE_PERIOD
        spec = agent.spec_for(env_name)
        keys = _keys(spec.partition(":")[2])
        if "ms" not in keys:
            spec = f"{spec},ms={limits.SEARCH_MS:g}"
            agent = load(spec, seed)
            keys["ms"] = str(limits.SEARCH_MS)
        return agent, spec, limits.search_period(float(keys["ms"]))

    def describe(self) -> list[dict[str, str]]:
        """The offer as the page lists it: each agent's name and what it is."""
        out = [
            {"agent": "random", "about": "uniform over the legal actions"},
            {"agent": "heuristic", "about": "the rule-based player"},
            {"agent": "ppo", "about": "the PPO policy shipped for the game (flags: sample, any_table)"},
            {"agent": "pimc", "about": "perfect-information Monte Carlo; keys: " + _bounds_text("pimc")},
            {"agent": "ismcts", "about": "information-set MCTS; keys: " + _bounds_text("ismcts")},
        ]
        return out + [{"agent": name, "about": "named at start-up"} for name in self.named]


def _bounds_text(kind: str) -> str:
    return ", ".join(f"{k} <= {v:g}" for k, v in limits.SEARCH_BOUNDS[kind].items()) + (
        f" (default ms={limits.SEARCH_MS:g} beside the game's own budget)")


def _keys(text: str) -> dict[str, str]:
    out = {}
    for item in text.split(","):
        key, _, value = item.partition("=")
        if key.strip():
            out[key.strip().lower()] = value.strip()
    return out


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
