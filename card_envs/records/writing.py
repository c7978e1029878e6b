"""Writing records: :class:`Recorder`, the one writer of the format, which a loop feeds as it plays;
:func:`record`, which plays a game with agents and records it; :func:`dumps` and :func:`write`."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

import numpy as np

from card_envs.players import end_game, start_game
from card_envs.records.format import (
    FIELDS_V1,
    FORMAT,
    FORMAT_VERSION,
    SEAL,
    Trace,
    agents_hook,
    checksum,
    _dumps,
    _env_name,
    _library_version,
    new_seed,
    _plain,
    _table,
)
from card_envs.records.reading import _new_env, parse


class Recorder:
    """Writes the record of one game while a loop plays it: the one writer of the format.

    Make it right after ``env.reset(seed=seed, options={"deck": deck} or None)``, call
    :meth:`add` with each action just before ``env.step(action)`` (not for the ``None`` of a
    finished agent), and :meth:`finish` after the game::

        env.reset(seed=seed)
        rec = records.Recorder(env, seed, options=config, agents=["heuristic", "random"])
        for agent in env.agent_iter():
            obs, reward, term, trunc, info = env.last()
            total[agent] += reward
            if term or trunc:
                env.step(None)
                continue
            action = players[agent].act(obs, agent, "golf_v0")
            rec.add(action)
            env.step(action)
        line = rec.finish(rewards=total)

    ``options`` must build the env's own table (checked: a record of other options would not
    replay); ``deck`` is read as ``reset`` reads it and stored by card name.
    """

    def __init__(self, env, seed: int, deck: Sequence[str | int] | None = None,
                 options: Mapping[str, Any] | None = None, agents: Sequence[str | None] | None = None,
                 meta: Mapping[str, Any] | None = None):
        from card_envs import cards

        raw = env.unwrapped
        self.env = env
        self.raw = raw
        name = raw.metadata["name"]
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or int(seed) < 0:
            raise ValueError(f"a record needs the int seed >= 0 the game was reset with, got {seed!r}")
        options = {k: v for k, v in _plain(dict(options or {})).items() if k != "render_mode"}
        if _table(name, options).config != raw.rules.config:
            raise ValueError(f"the options {options} do not build this {name} env's table "
                             f"({raw.rules.config}): pass the options the env was made with")
        if deck is not None:
            deck = [cards.to_str(c) for c in cards.check_stacked_deck(deck, raw.rules.deck(), name)]
        n = len(raw.possible_agents)
        if agents is not None:
            agents = list(agents)
            if len(agents) != n or any(a is not None and not isinstance(a, str) for a in agents):
                raise ValueError(f"agents must be {n} specs (str, or None where unknown), one per seat, got {agents!r}")
        self.record: dict[str, Any] = {  # the sealed fields but the trace; finish() completes it
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "library_version": _library_version(),
            "env": name,
            "options": options,
            "seed": int(seed),
            "deck": deck,
            "agents": agents,
            "actions": [],
            "end": None,
            "scores": None,
            "ranks": None,
            "rewards": None,
        }
        self.meta = _plain(dict(meta)) if meta else None
        _dumps([self.record, self.meta])  # options or meta that JSON cannot hold fail now, not after the game
        self._actions = self.record["actions"]
        self._trace = Trace()
        self._trace.add(raw)  # the deal

    def add(self, action: int) -> None:
        """Note the action the agent to act (``env.agent_selection``) is about to take."""
        action = int(action)
        if self._actions:  # the state the previous action left
            self._trace.add(self.raw)
        self._actions.append([self.env.agent_selection, action, self.raw.action_to_string(action)])

    def finish(self, rewards: Mapping[str, float] | Sequence[float] | None = None) -> dict[str, Any]:
        """The finished game's record (a dict; :func:`write` or :func:`dumps` makes it a line).

        ``rewards``: each seat's total reward (by agent name, or in seat order), as the loop
        summed what ``env.last()`` gave it; None leaves them out of the record.
        """
        raw = self.raw
        state = raw.game_state
        if not raw._done:
            raise ValueError(f"finish() before the {raw.metadata['name']} game is over "
                             f"({len(self._actions)} actions recorded, {raw.agent_selection} to act)")
        rec = self.record
        agents = raw.possible_agents
        if state.terminated or state.truncated:
            rec["end"] = "terminated" if state.terminated else "truncated"
            rec["scores"] = _plain(list(raw.rules.scores(state)))
            rec["ranks"] = [int(r) for r in raw.rules.ranks(state)]
        else:
            rec["end"] = "illegal"
        if rewards is not None:
            values = [rewards[a] for a in agents] if isinstance(rewards, Mapping) else list(rewards)
            if len(values) != len(agents):
                raise ValueError(f"rewards must give each of the {len(agents)} seats its total, got {len(values)}")
            rec["rewards"] = [float(r) for r in values]
        trace = self._trace.copy()  # the running digest so far, plus the last action's state
        if self._actions:
            trace.add(raw)
        out = {k: rec[k] for k in FIELDS_V1}
        out["trace"], out["digest"] = trace.text, trace.digest
        if self.meta is not None:
            out["meta"] = self.meta
        out[SEAL] = checksum(out)
        return out


def _seat_players(agents: Any, n: int, seed: int) -> tuple[list[Any], list[str | None]]:
    """One player per seat from specs or Agent objects: a single one plays every seat."""
    listed = [agents] if isinstance(agents, str) or callable(getattr(agents, "act", None)) else list(agents)
    if len(listed) == 1:
        listed = listed * n
    if len(listed) != n:
        raise ValueError(f"give one agent for every seat ({n}), or one for all, got {len(listed)}")
    players, specs, loaded = [], [], {}
    for k, a in enumerate(listed):
        if isinstance(a, str):
            if a not in loaded:  # the same spec listed twice is one agent, as in a tournament
                load = agents_hook("load")
                if load is None:
                    raise ValueError(f"seat {k}: the spec {a!r} needs the agents package (not installed); "
                                     "pass an agent object instead")
                child = int(np.random.SeedSequence([seed, k]).generate_state(1)[0])
                loaded[a] = load(a, seed=child)
            players.append(loaded[a])
            specs.append(a)
        elif callable(getattr(a, "act", None)):
            players.append(a)
            specs.append(None)
        else:
            raise ValueError(f"seat {k}: {a!r} is neither an agent spec (str) nor an agent (an object with act())")
    return players, specs


def record(env_name: str, agents: Any, config: Mapping[str, Any] | None = None, seed: int | None = None,
           deck: Sequence[str | int] | None = None, meta: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Play one game of ``env_name`` (``"golf"`` or ``"golf_v0"``) and return its record (a dict).

    ``agents``: one agent per seat in seat order, or one for every seat: specs for
    ``agents.load`` (``"random"``, ``"heuristic"``, ``"ppo"``, ...; the same spec twice is one
    agent holding both seats, seeded from ``seed``) or Agent objects (``act(observation, agent,
    env_name)``; their specs are recorded as null). ``config``: the table's options.
    ``seed`` (default: a fresh one, recorded) and ``deck`` (a stacked first deal, top card first)
    go to ``reset``. Every player hears the protocol's ``start_game`` / ``end_game`` hooks.
    """
    name = _env_name(env_name)
    options = dict(config or {})
    env = _new_env(name, options)
    if seed is None:
        seed = new_seed()
    players, specs = _seat_players(agents, len(env.possible_agents), int(seed))
    env.reset(seed=int(seed), options={"deck": list(deck)} if deck is not None else None)
    rec = Recorder(env, int(seed), deck, options, specs, meta)
    seats = env.possible_agents
    for a, p in zip(seats, players):
        start_game(p, name, options, a)
    total = dict.fromkeys(seats, 0.0)
    final: dict[str, tuple[Any, dict]] = {}
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        total[agent] += reward
        if term or trunc:
            final[agent] = (obs, dict(info))
            env.step(None)
            continue
        action = players[seats.index(agent)].act(obs, agent, name)
        rec.add(action)
        env.step(action)
    for a, p in zip(seats, players):
        end_game(p, final[a][0], total[a], final[a][1])
    return rec.finish(total)


def dumps(rec: Mapping[str, Any]) -> str:
    """One record as its JSON line (no newline); its form and checksum checked first
    (:func:`parse`), so an edited or bad record is never written."""
    return _dumps(parse(rec))


def write(path: str | os.PathLike, recs: Iterable[Mapping[str, Any]], append: bool = False) -> Path:
    """Write records to a JSON Lines file, one per line (``append``: after what it holds)."""
    path = Path(path)
    lines = [dumps(r) for r in recs]  # all checked before the file is touched
    if path.parent != Path(""):
        path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a" if append else "w", encoding="utf-8") as f:
        for line in lines:
            f.write(line + "\n")
    return path
