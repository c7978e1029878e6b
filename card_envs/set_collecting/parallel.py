"""PettingZoo's Parallel API for games of hidden-commit phases (Collector, Hot).

Each phase is one simultaneous step: every player the phase asks gives its action at once. The
parallel environment drives the game's own AEC environment underneath, feeding the actions in
the order the AEC API asks for them, so the two APIs play the same game from the same seed and
the same choices by construction.

What it needs from the rules (so it can serve any such game): ``rules.phase_actors(state)`` (the
seats asked in the current phase, in asking order), ``rules.mask_for(state, seat)`` (a seat's
legal actions in the current phase; it must not depend on anyone's pending commitment) and
``rules.parallel_mask(state, seat)`` (the same, but only the no-op WAIT for a live seat the phase
does not ask).

**Every live agent has a legal action.** A live agent the current phase does not ask (in these
games: a player whose hand is empty, during PLAY) gets a mask holding only WAIT, the last action
index (Collector 17, Hot 16), so a masked categorical never sees an all-zero mask. WAIT is a
no-op: whatever such an agent sends is ignored (WAIT, any other action, or ``None``). The
game's own action indices are unchanged; WAIT is appended after them and is never legal
in the AEC API, where nobody is asked without something to do.

**Copies.** ``parallel_env`` and ``parallel_raw_env`` are module-level classes, so stdlib
``pickle``, ``copy.deepcopy`` and cloudpickle find them by name; a copy keeps its behaviour
(``parallel_env``'s: an illegal action ends the game with -1; ``parallel_raw_env``'s: it raises)
and the running game (the AEC environment underneath is copied whole), so it continues that
game exactly as the original would.
"""

from __future__ import annotations

from collections.abc import Mapping

from typing import Any

import numpy as np
from pettingzoo.utils.env import ParallelEnv

from card_envs.base import ActionOutOfRangeError, CardGameEnv, IllegalActionError


class CommitParallelEnv(ParallelEnv):
    """Parallel version of a :class:`CardGameEnv` whose turns come in simultaneous phases.

    ``step(actions)`` takes an action for every agent the current phase asks; the other live
    agents' mask holds only WAIT (the no-op) and whatever they send is ignored (WAIT, anything
    else, or ``None``), as PettingZoo's ``parallel_api_test`` sends one for every live agent. A missing or out-of-range action is a ValueError and nothing is applied.
    An illegal action behaves as in the AEC version: ``parallel_env()`` (like ``env()``) ends the
    game with -1 for the first illegal mover in asking order and a warning; the raw class (like
    ``raw_env()``) raises a ValueError and applies nothing.
    """

    aec_class: type[CardGameEnv]
    checked = False  # parallel_env() sets it: illegal actions end the game instead of raising

    def __init__(self, render_mode: str | None = None, **options: Any):
        self.aec = self.aec_class(render_mode=render_mode, **options)
        self.aec._checked = self.checked
        self.metadata = dict(self.aec.metadata)
        self.render_mode = render_mode
        self.possible_agents = self.aec.possible_agents[:]
        self.agents: list[str] = []
        self.observation_spaces = self.aec.observation_spaces
        self.action_spaces = self.aec.action_spaces

    @property
    def rules(self):
        return self.aec.rules

    @property
    def game_state(self):
        return self.aec.game_state

    @property
    def unwrapped(self) -> "CommitParallelEnv":
        return self

    def observation_space(self, agent: str):
        return self.observation_spaces[agent]

    def action_space(self, agent: str):
        return self.action_spaces[agent]

    # ---------------------------------------------------------------------------------------
    def _observations(self) -> dict[str, dict[str, np.ndarray]]:
        state = self.aec.game_state
        rules = self.aec.rules
        out = {}
        for seat, agent in enumerate(self.possible_agents):
            mask = rules.parallel_mask(state, seat)
            out[agent] = {"observation": self.aec._encode(state, seat), "action_mask": mask}
        return out

    def reset(self, seed: int | None = None, options: dict | None = None):
        self.aec.reset(seed=seed, options=options)
        self.agents = self.possible_agents[:] if not self.aec._done else []
        return self._observations(), {a: dict(self.aec.infos[a]) for a in self.possible_agents}

    def step(self, actions: dict[str, Any]):
        aec = self.aec
        if aec.game_state is None:
            raise ValueError("reset() needs to be called before step()")
        if not self.agents:
            raise ValueError(f"{self.metadata['name']}: the game is over and every agent is done; call reset() to deal a new game")
        state = aec.game_state
        rules = aec.rules
        if not isinstance(actions, Mapping):
            raise ValueError(f"actions must be a dict of agent -> action, got {type(actions).__name__}")
        unknown = [a for a in actions if a not in self.possible_agents]
        if unknown:
            raise ValueError(f"unknown agent{'s' if len(unknown) > 1 else ''} {', '.join(map(repr, unknown))} in "
                             f"actions; agents: {', '.join(self.possible_agents)}")
        actors = rules.phase_actors(state)
        chosen = []
        for seat in actors:  # check every action before applying any
            agent = self.possible_agents[seat]
            if agent not in actions or actions[agent] is None:
                raise ValueError(
                    f"{agent} must act in this phase; actions are needed for "
                    + ", ".join(self.possible_agents[p] for p in actors)
                )
            try:
                a = aec._check_range(actions[agent])
            except ActionOutOfRangeError as e:
                raise ValueError(f"{agent}: {e}") from None
            mask = rules.mask_for(state, seat)
            if not mask[a] and not self.checked:
                raise IllegalActionError(
                    f"action {a} ({rules.action_to_string(state, a)}) is illegal for {agent} now; legal actions: "
                    + ", ".join(f"{b} ({rules.action_to_string(state, b)})" for b in np.flatnonzero(mask))
                )
            chosen.append((agent, a))
        rewards = dict.fromkeys(self.possible_agents, 0.0)
        for agent, a in chosen:
            assert aec.agent_selection == agent
            aec.step(a)
            for b, r in aec.rewards.items():
                rewards[b] += r
            if aec._done:  # an illegal action ended the game (checked mode)
                break
        done = aec._done
        live = self.agents
        obs = self._observations()
        terminations = {a: bool(aec.terminations[a]) for a in live}
        truncations = {a: bool(aec.truncations[a]) for a in live}
        infos = {a: dict(aec.infos[a]) for a in live}
        rewards = {a: rewards[a] for a in live}
        obs = {a: obs[a] for a in live}
        if done:
            self.agents = []
        return obs, rewards, terminations, truncations, infos

    # ---------------------------------------------------------------------------------------
    def render(self) -> str | np.ndarray | None:
        """Text: the table as ``player_0`` sees it (every seat acts at once, so there is no seat
        to act to show); ``rgb_array``: the spectator's picture, as the AEC env draws it.
        :meth:`render_view` shows any seat's, :meth:`render_state` everything."""
        if self.render_mode is None:
            return None
        if self.render_mode == "rgb_array":
            return self.aec.render()
        text = self.aec.render_view(self.possible_agents[0])
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def render_view(self, agent: str, mode: str = "ansi") -> str | np.ndarray:
        return self.aec.render_view(agent, mode)

    def render_state(self) -> str:
        return self.aec.render_state()

    def action_to_string(self, action: int) -> str:
        return self.aec.action_to_string(action)

    def string_to_action(self, text: str) -> int:
        return self.aec.string_to_action(text)

    def close(self) -> None:
        self.aec.close()

    def __str__(self) -> str:
        return self.metadata["name"]


def parallel_constructor(raw_cls: type[CardGameEnv]):
    """``(parallel_env, parallel_raw_env)`` for a game module: two classes, to be bound to those
    names in ``raw_cls``'s module (their ``__module__`` and ``__qualname__`` say so, which is what
    stdlib pickle needs). ``parallel_env(**options)`` builds the checked version."""

    name = raw_cls.metadata["name"]
    raw = type(
        "parallel_raw_env",
        (CommitParallelEnv,),
        {"aec_class": raw_cls, "__module__": raw_cls.__module__, "__qualname__": "parallel_raw_env"},
    )
    raw.__doc__ = (
        f"The {name} environment in PettingZoo's Parallel API (one step per phase); "
        "an illegal action raises ValueError."
    )
    checked = type(
        "parallel_env",
        (raw,),
        {"checked": True, "__module__": raw_cls.__module__, "__qualname__": "parallel_env"},
    )
    checked.__doc__ = (
        f"The {name} environment in PettingZoo's Parallel API (one step per phase); "
        "an illegal action ends the game with -1 for the mover, as env() does."
    )
    return checked, raw
