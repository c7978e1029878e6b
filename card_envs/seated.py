"""A game with a person in one seat and agents in the others: every text the person is shown.

The terminal game (:mod:`agents.play`) prints these texts as they come; any other front end for a
person (a notebook, a web table) shows the same ones. Each is made from the person's seat alone:

- another seat's action, as the table saw it (``public_action_to_string``): a hidden choice (a
  Collector or Hot commitment, a Fiddlesticks swap pick) is only "commits" or "picks a card";
  what was chosen shows in the person's view once the rules reveal it;
- the table as the person's seat sees it (``render_view``) and the names of its legal actions;
- the hidden choices of the other seats once the rules make them public (the commitments of a
  Collector or Hot phase when its last one is made, the Fiddlesticks swap picks when the swap
  ends), as ``player_1 revealed: play 7``;
- at the end, the person's final table and result (scores and ranks are public then), and whether
  the game ended by its rules or was cut short by a turn or round limit.

Every text carries ``step``, the number of actions applied when it was made: it may depend on
nothing that happened later, and on no card the person's seat could not see then. The tests in
``tests/information/test_what_a_person_is_shown.py`` hold every game to that.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np


@dataclass(frozen=True)
class Shown:
    """One text shown to the person, made after ``step`` actions of the game were applied."""

    step: int
    text: str


class SeatedGame:
    """Run one game of ``env`` (reset, not yet played) with ``person`` (``"player_0"``, ...) at
    the table and ``players`` (agent name -> an object with ``act(observation, agent, env_name)``)
    in every other seat.

    :meth:`advance` plays the agents' turns until the person must act (or the game is over) and
    returns what the person was shown meanwhile; :meth:`act` applies the person's action.
    ``recorder`` (a :class:`card_envs.records.Recorder`) gets every action applied. The protocol's
    ``start_game`` and ``end_game`` hooks are the caller's (the players may be shared by tables).
    """

    def __init__(self, env: Any, person: str, players: Mapping[str, Any], env_name: str, recorder: Any = None):
        if person not in env.possible_agents:
            raise ValueError(f"unknown seat {person!r}; seats: {', '.join(env.possible_agents)}")
        missing = [a for a in env.possible_agents if a != person and a not in players]
        if missing:
            raise ValueError(f"no player for {', '.join(missing)}: every seat but the person's needs one")
        self.env = env
        self.raw = env.unwrapped
        self.person = person
        self.players = dict(players)
        self.env_name = env_name
        self.recorder = recorder
        self.steps = 0  # actions applied so far
        self.total = dict.fromkeys(env.possible_agents, 0.0)  # every seat's reward of the game
        self.final: dict[str, tuple[dict, dict]] = {}  # every seat's last observation and info
        self.result: dict | None = None  # the person's final info (score, rank) once the game is over
        self.legal: dict[int, str] = {}  # the person's legal actions and their names, on its turn
        #: every action applied, as the person saw it: (step, actor, name); another seat's hidden
        #: choice is what the table saw ("commits"), the person's own is its name; once the rules
        #: make the hidden choices public, an entry per seat ``revealed: play 7``
        self.moves: list[tuple[int, str, str]] = []
        self.over = False
        #: how the game ended: "terminated" (by its rules) or "truncated" (cut short by a limit)
        self.end: str | None = None
        self._hidden: list[tuple[str, int, str]] = []  # other seats' hidden choices not yet public
        self._unsaid: list[str] = []  # texts made while the person acted, said by the next advance

    # ----------------------------------------------------------------------------- the game
    def advance(self, limit: int | None = None) -> list[Shown]:
        """Play the other seats' turns until the person must act or the game ends; what the person
        is shown meanwhile: each other seat's action as the table saw it, then the person's screen
        (the table as its seat sees it and its legal actions) or, at the end, the final table and
        the person's result. ``limit``: play at most that many of the other seats' actions (a
        front end showing them one at a time calls ``advance(1)`` until :attr:`waiting` is
        False)."""
        env, raw, me = self.env, self.raw, self.person
        shown: list[Shown] = [Shown(self.steps, text) for text in self._unsaid]
        self._unsaid = []
        say = lambda text: shown.append(Shown(self.steps, text))  # noqa: E731
        while env.agents:
            agent = env.agent_selection
            obs, reward, term, trunc, info = env.last()
            self.total[agent] += reward
            if term or trunc:
                self.final[agent] = (obs, dict(info))
                if self.end is None:
                    self.end = "terminated" if term else "truncated"
                if agent == me:
                    self.result = info
                    say(raw.render_view(me))
                    cut = "" if term else " (cut short by the table's turn or round limit: no one finished by the rules)"
                    say(f"Game over{cut}: your score {info.get('score')}, rank {info.get('rank')}, "
                        f"reward {self.total[me]:+.3f}")
                env.step(None)
                continue
            if agent != me:
                if limit is not None and limit <= 0:
                    return shown
                action = self.players[agent].act(obs, agent, self.env_name)
                say(self.caption(agent, action))
                public = self.raw.public_action_to_string(action)
                self.moves.append((self.steps, agent, public))
                private = self.raw.action_to_string(action)
                if public != private:
                    self._hidden.append((agent, int(action), private))
                for text in self._apply(action):
                    say(text)
                limit = None if limit is None else limit - 1
                continue
            self.legal = {int(a): raw.action_to_string(int(a)) for a in np.flatnonzero(obs["action_mask"])}
            say("")
            say(raw.render_view(me))
            say(self.actions_text())
            return shown
        self.over = True
        self.legal = {}
        return shown

    def caption(self, agent: str, action: int) -> str:
        """Another seat's action, about to be applied, as the table saw it: ``player_1: commits``
        for a hidden commitment, ``player_1: replace 4`` for an open one."""
        return f"{agent}: {self.raw.public_action_to_string(action)}"

    def actions_text(self) -> str:
        """The person's legal actions, numbered: ``your actions: [4] play 5, [9] play 10``."""
        return "your actions: " + ", ".join(f"[{a}] {name}" for a, name in self.legal.items())

    def parse(self, text: str) -> int:
        """The person's typed action (its name or its number) as a legal action index; a
        ValueError saying what is wrong otherwise (naming only the person's own legal actions)."""
        text = text.strip()
        try:
            action = int(text) if text.lstrip("-").isdigit() else self.raw.string_to_action(text)
        except ValueError as e:
            raise ValueError(f"not an action: {e}") from None
        if action not in self.legal:
            raise ValueError(f"'{text}' is not legal now; legal: " + ", ".join(self.legal.values()))
        return action

    def act(self, action: int) -> None:
        """Apply the person's ``action`` (one of :attr:`legal`)."""
        if self.over or self.env.agent_selection != self.person:
            raise ValueError("it is not the person's turn: call advance() first")
        if action not in self.legal:
            raise ValueError(f"action {action!r} is not legal now; legal: " + ", ".join(self.legal.values()))
        self.legal = {}
        self.moves.append((self.steps, self.person, self.raw.action_to_string(action)))
        self._unsaid += self._apply(action)

    @property
    def waiting(self) -> bool:
        """Whether another seat is to act next (the game is not over and the person has no legal
        actions to choose from yet): :meth:`advance` plays on."""
        return not self.over and not self.legal

    def _apply(self, action: int) -> list[str]:
        """Apply ``action``; the texts of the hidden choices it made public (``player_1
        revealed: play 7``), each also added to :attr:`moves`."""
        public = self.raw.reveals_choices(action)
        if self.recorder is not None:
            self.recorder.add(action)
        self.env.step(action)
        self.steps += 1
        if not public or not self._hidden:
            return []
        texts = []
        for seat in self.env.possible_agents:  # seat order; a seat's several picks by action index,
            names = [name for _, _, name in sorted(h for h in self._hidden if h[0] == seat)]  # never their order
            if names:
                self.moves.append((self.steps, seat, "revealed: " + ", ".join(names)))
                texts.append(f"{seat} revealed: " + ", ".join(names))
        self._hidden = []
        return texts
