"""Bots across the two libraries: this library's agents as OpenSpiel bots, and OpenSpiel's bots as
this library's agents.

    from agents.openspiel import AgentBot, openspiel_bot
    bot = AgentBot("heuristic", game, player=1)       # any agents.load spec, in evaluate_bots
    ismcts = openspiel_bot("ismcts", game, player=0, simulations=200, seed=0)

    agents.load("openspiel:ismcts:simulations=200")    # OpenSpiel's IS-MCTS in a tournament

**Which OpenSpiel search.** OpenSpiel's C++ ``ISMCTSBot`` resamples worlds through the C++
``ResampleFromInfostate``, which OpenSpiel does not forward to games written in Python, and its C++
``MCTSBot`` accepts only games whose rewards come at the end (these games' score mode pays as it
goes), so both bots here are OpenSpiel's own Python implementations of the same algorithms
(``open_spiel.python.algorithms.ismcts`` and ``mcts``). IS-MCTS calls this adapter's
``resample_from_infostate`` (the exact posterior of the game's ``sample_world``); MCTS searches the
state it is given: at an OpenSpiel table that is the true state, every card seen (a cheating upper
reference, not a fair player), and seated by this library a world sampled from its observation
(so it is PIMC-like: one sampled world, searched as if it were the truth).

**An OpenSpiel bot seated by this library** decides from the observation alone: the seat's
observation becomes an OpenSpiel state through ``sample_world`` (one world its seat cannot tell
from the truth), and the bot searches from there; IS-MCTS then resamples from that world's
information state, which is the observation's.
"""

from __future__ import annotations

from typing import Any

import numpy as np

try:
    import pyspiel
except ImportError as e:  # pragma: no cover - the extra is missing
    raise ImportError(f"OpenSpiel's bots need OpenSpiel ({e}): pip install -e '.[openspiel]'") from None

import card_envs.openspiel  # noqa: F401,E402 - registers the games

#: the OpenSpiel bots this library seats, with their keys and defaults
BOT_KEYS = {
    "ismcts": {"simulations": 200, "uct_c": 2.0, "rollouts": 1, "seed": 0},
    "mcts": {"simulations": 200, "uct_c": 2.0, "rollouts": 1, "seed": 0},
    "random": {"seed": 0},
}


def openspiel_bot(kind: str, game: Any, player: int, **keys: Any) -> pyspiel.Bot:
    """OpenSpiel's bot of ``kind`` (:data:`BOT_KEYS`) for ``player`` in ``game``."""
    if kind not in BOT_KEYS:
        raise ValueError(f"unknown OpenSpiel bot {kind!r}; bots: {', '.join(BOT_KEYS)}")
    unknown = sorted(set(keys) - set(BOT_KEYS[kind]))
    if unknown:
        raise ValueError(f"openspiel:{kind} takes {', '.join(BOT_KEYS[kind])}; unknown: {', '.join(unknown)}")
    o = {**BOT_KEYS[kind], **keys}
    if kind == "random":
        return pyspiel.make_uniform_random_bot(player, int(o["seed"]))
    from open_spiel.python.algorithms import ismcts, mcts

    seed = int(o["seed"])
    evaluator = mcts.RandomRolloutEvaluator(int(o["rollouts"]), np.random.RandomState(seed))
    if kind == "mcts":
        return mcts.MCTSBot(game, float(o["uct_c"]), int(o["simulations"]), evaluator,
                            random_state=np.random.RandomState(seed), solve=False)
    bot = ismcts.ISMCTSBot(game, evaluator, float(o["uct_c"]), int(o["simulations"]),
                           random_state=np.random.RandomState(seed))
    bot.set_resampler(seeded_resampler(seed))
    return bot


def seeded_resampler(seed: int):
    """IS-MCTS's resampler with its own seeded draws: OpenSpiel's ``ISMCTSBot`` otherwise samples
    each world with a ``UniformProbabilitySampler`` seeded by the operating system, so the same
    bot seed would search different worlds in every run."""
    draws = np.random.RandomState(seed + 1)  # not the bot's own stream: that one picks actions

    def resample(state: Any, player: int) -> Any:
        return state.resample_from_infostate(player, draws.random_sample)

    return resample


class AgentBot(pyspiel.Bot):
    """Any agent of this library (an ``agents.load`` spec or an object) as an OpenSpiel bot for
    ``player``: it is shown that player's observation and action mask, as in the env."""

    def __init__(self, agent: Any, game: Any, player: int, seed: int | None = 0):
        pyspiel.Bot.__init__(self)
        if isinstance(agent, str):
            import agents

            agent = agents.load(agent, seed=seed)
        from agents.base import start_game

        self.agent, self.player = agent, int(player)
        self.table = game.table
        self.name = f"player_{self.player}"
        start_game(agent, self.table.env_name, self.table.options, self.name)

    def restart_at(self, state: Any) -> None:
        from agents.base import start_game

        start_game(self.agent, self.table.env_name, self.table.options, self.name)

    def step(self, state: Any) -> int:
        mask = np.zeros(self.table.rules.num_actions, dtype=np.int8)
        mask[state.legal_actions(self.player)] = 1
        observation = {"observation": np.asarray(state.observation_tensor(self.player), dtype=np.float32),
                       "action_mask": mask}
        return int(self.agent.act(observation, self.name, self.table.env_name))


class OpenSpielAgent:
    """One of OpenSpiel's bots as this library's agent (``agents.load("openspiel:KIND:k=v,...")``):
    at each decision the observation becomes an OpenSpiel state (a world from ``sample_world``)
    and the bot chooses from it."""

    def __init__(self, kind: str, seed: int | str | None = None, **keys: Any):
        if kind not in BOT_KEYS:
            raise ValueError(f"unknown OpenSpiel bot {kind!r}; bots: {', '.join(BOT_KEYS)}")
        unknown = sorted(set(keys) - set(BOT_KEYS[kind]))
        if unknown:
            raise ValueError(f"openspiel:{kind} takes {', '.join(BOT_KEYS[kind])}; unknown: {', '.join(unknown)}")
        named = dict(keys)  # for the name
        if "seed" in keys:  # given as a key too: the key wins
            seed = keys.pop("seed")
        try:
            self.kind, self.keys = kind, {k: float(v) if k == "uct_c" else int(v) for k, v in keys.items()}
            if seed is not None:
                self.keys["seed"] = int(seed)
        except ValueError:
            raise ValueError(f"openspiel:{kind}: {', '.join(BOT_KEYS[kind])} take numbers, got "
                             f"{dict(keys, **({} if seed is None else {'seed': seed}))}") from None
        self.name = f"openspiel:{kind}" + (":" + ",".join(f"{k}={v}" for k, v in named.items()) if named else "")
        self.rng = np.random.default_rng(self.keys.get("seed", 0))
        self._games: dict[str, Any] = {}
        self._bots: dict[tuple[str, int], pyspiel.Bot] = {}

    def start_game(self, env_name: str, config: dict | None, agent: str | None = None) -> None:
        from card_envs.openspiel import load_game

        config = {k: v for k, v in dict(config or {}).items() if k != "render_mode"}
        self._games[env_name] = load_game(env_name, config)

    def end_game(self, observation: dict, reward: float, info: dict) -> None:
        """Nothing to learn: each decision is searched afresh."""

    def act(self, observation: dict, agent: str, env_name: str) -> int:
        from card_envs.openspiel.game import CardEnvsState

        if env_name not in self._games:
            raise ValueError(f"openspiel:{self.kind} needs the table's options: start_game before act")
        game = self._games[env_name]
        player = int(agent.rsplit("_", 1)[1])
        legal = np.flatnonzero(observation["action_mask"])
        if len(legal) == 1:
            return int(legal[0])
        state = CardEnvsState.from_observation(game, observation["observation"], player, self.rng)
        key = (env_name, player)
        if key not in self._bots:
            self._bots[key] = openspiel_bot(self.kind, game, player, **self.keys)
        action = int(self._bots[key].step(state))
        if action not in legal:
            raise AssertionError(f"openspiel:{self.kind} chose illegal action {action}")
        return action


def play(game: Any, bots: list[Any], seed: int = 0) -> list[float]:
    """One game of ``game`` between OpenSpiel ``bots`` (one per player, in order): chance outcomes
    drawn with their probabilities from ``seed``; returns every player's return. (OpenSpiel's
    ``evaluate_bots`` asks every bot to ``restart_at`` the state, which its Python IS-MCTS does
    not implement; this loop asks each bot only to ``step``.)"""
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            state.apply_action(int(outcomes[rng.choice(len(outcomes), p=np.asarray(probs) / sum(probs))]))
        else:
            state.apply_action(int(bots[state.current_player()].step(state)))
    return list(state.returns())
