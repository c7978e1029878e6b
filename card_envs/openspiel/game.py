"""One card_envs game as a ``pyspiel.Game``: the same rules engine as ``raw_env()``, its
randomness as explicit chance nodes, its observations as OpenSpiel's observer.

**Parameters.** The game's options, with the same names and defaults. OpenSpiel's parameters
have one type each, so an option that takes a number or a word (``dealer``: a seat or
``"random"``; ``num_decks``: a count or ``"auto"``) or a number or nothing (``num_rounds``) is an
integer parameter in which -1 stands for the word or for nothing (``{"dealer": 2}``,
``{"dealer": -1}`` for "random", ``{"num_rounds": 1}``); a word or nothing (Guillotine's
``contract``) is a string, ``"none"`` for nothing. A bad option is refused with the environment's
own ValueError.

**Dynamics.** Sequential, with explicit chance: the first draw of a seat (dealer, first player) is
one chance node, every shuffle (the deal, and during the game Golf's rebuilt stock, later rounds'
deals, Guilders' new fans) is a chance node per card (``card_envs/openspiel/chance.py``), exactly
as probable as in the env. Collector's and Hot's simultaneous commitments are played as the env
plays them: in turn, each one hidden from the others until all are revealed (OpenSpiel's
sequential imperfect-information form, so every OpenSpiel algorithm for such games applies; a
simultaneous-move game would exclude most of them). A player's action that draws cards (Golf's
stock running out) is applied once the draw's chance nodes are decided; until then the
observation is the one before that action.

**Rewards.** ``rewards()`` and ``returns()`` are the env's: with ``reward_mode="rank"`` the rank
reward at the end (+1 first to −1 last; the game's reward model is then ``TERMINAL``), with
``"score"`` the game's step rewards as they come (``REWARDS``). Both sum to 0 over the players.

**Observations.** ``observation_tensor(player)`` is the env's ``observe()`` vector of that seat (the
same float32 values), ``observation_string`` its readable view (``view.readable()``). The
information state (``information_state_*``) is the same: every environment's observation keeps
all that its seat was shown (a tested promise of the library: two histories that differ in a
fact the seat saw give different observations), so the observation is the seat's perfect-recall
information state. ``resample_from_infostate`` draws the hidden cards from the game's exact
posterior (``sample_world``).
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import numpy as np
import pyspiel

from card_envs.openspiel.chance import INTEGERS, ChanceGenerator, NeedChance
from card_envs.scoring import rank_rewards

PREFIX = "card_envs_"
#: the longest game OpenSpiel is told of (every game ends far sooner, by its rules or a cap)
MAX_GAME_LENGTH = 100_000


#: the word an option takes besides a number, which its OpenSpiel parameter writes as -1
WORDS = {"dealer": "random", "first_dealer": "random", "start_player": "random", "num_decks": "auto"}
#: the parameter value that stands for an option's word or for no value (None)
OTHER = -1


def _kind(f: dataclasses.Field) -> str:
    return str(f.type).replace(" ", "")


def parameter_specification(config_class: type) -> dict[str, Any]:
    """The game's options as OpenSpiel parameters, with the same names and defaults: ``int``,
    ``bool``, ``float`` and ``str`` options keep their type; an option that is a number or a word
    (``dealer``: a seat or "random"; ``num_decks``: a count or "auto") or a number or nothing
    (``num_rounds``) is an ``int`` parameter, -1 standing for the word or for nothing; an option
    that is a word or nothing is a ``str`` parameter, "none" for nothing. (OpenSpiel writes a
    game's parameters into its name when it saves a state: a string holding a number would be
    read back as a number.)"""
    spec: dict[str, Any] = {}
    for f in dataclasses.fields(config_class):
        kind = _kind(f)
        if kind in ("int", "bool", "str", "float"):
            spec[f.name] = f.default
        elif kind in ("int|str", "int|None"):
            if kind == "int|str" and f.name not in WORDS:
                raise ValueError(f"{config_class.__name__}.{f.name}: no word is known for its value -1")
            spec[f.name] = f.default if isinstance(f.default, int) else OTHER
        elif kind == "str|None":
            spec[f.name] = "none" if f.default is None else f.default
        else:
            raise ValueError(f"{config_class.__name__}.{f.name}: options of type {kind} have no OpenSpiel parameter")
    return spec


def options_from(params: dict[str, Any], config_class: type) -> dict[str, Any]:
    """OpenSpiel parameters -> the env's options (-1 -> the option's word or None, "none" -> None)."""
    kinds = {f.name: _kind(f) for f in dataclasses.fields(config_class)}
    out = {}
    for name, value in params.items():
        kind = kinds.get(name)
        if kind == "int|str" and value == OTHER:
            value = WORDS[name]
        elif kind == "int|None" and value == OTHER:
            value = None
        elif kind == "str|None" and value == "none":
            value = None
        out[name] = value
    return out


def parameters_of(options: dict[str, Any], config_class: type) -> dict[str, Any]:
    """The env's options -> OpenSpiel parameters (the inverse of :func:`options_from`)."""
    kinds = {f.name: _kind(f) for f in dataclasses.fields(config_class)}
    out = {}
    for name, value in options.items():
        kind = kinds.get(name)
        if kind in ("int|str", "int|None") and (value is None or isinstance(value, str)):
            value = OTHER
        elif kind == "str|None" and value is None:
            value = "none"
        out[name] = value
    return out


class Table:
    """What every state of one configuration shares: the env (rules, codec, view, names)."""

    def __init__(self, env_name: str, options: dict[str, Any]):
        import card_envs

        self.env_name = env_name
        self.module = card_envs.ENVIRONMENTS[env_name]
        self.env = self.module.raw_env(**options)  # a bad option: the env's own ValueError
        self.rules = self.env.rules
        self.options = dict(options)
        self.num_players = self.rules.num_players
        self.size = self.env.observation_layout.size
        self.zero = np.zeros(self.size, dtype=np.float32)
        self.rank_mode = self.rules.reward_mode == "rank"

    def observation(self, s: Any, player: int) -> np.ndarray:
        return self.env._encode(s, player)

    def readable(self, s: Any, player: int) -> str:
        return json.dumps(self.env.view_of(s, player).readable(), sort_keys=True, separators=(",", ":"))


class CardEnvsState(pyspiel.State):
    """A game in progress: the rules state, and the chance event being decided (if any)."""

    def __init__(self, game: "CardEnvsGame", _copy: "CardEnvsState | None" = None):
        super().__init__(game)
        table = self._t
        if _copy is not None:
            self._s = None if _copy._s is None else _copy._s.copy()
            self._pending = _copy._pending if _copy._pending is None else (
                _copy._pending[0], None if _copy._pending[1] is None else _copy._pending[1].copy())
            self._request = None if _copy._request is None else (
                _copy._request[0], _copy._request[1], list(_copy._request[2]))
            self._decided = list(_copy._decided)
            self._returns = _copy._returns.copy()
            self._rewards = _copy._rewards.copy()
            self._offset = _copy._offset
            return
        self._s = None  # the rules state, once dealt
        self._pending: tuple[int | None, Any] | None = (None, None)  # (action or None for the deal, state before)
        self._request: tuple[str, int, list[int]] | None = None  # (kind, n, outcomes so far)
        self._decided: list[Any] = []  # results of the chance events decided for the pending step
        self._returns = np.zeros(table.num_players)
        self._rewards = np.zeros(table.num_players)
        #: OpenSpiel's player p is the rules state's seat (p - offset) mod n: 0, except in a state
        #: resampled from a player's information state (a world in that player's frame)
        self._offset = 0
        self._advance()

    @property
    def _t(self) -> Table:
        """The game's table (kept on the game, not in the state: OpenSpiel copies a state's
        ``__dict__`` when it clones one)."""
        return self.get_game().table

    # ------------------------------------------------------------------ the rules, run
    def _advance(self) -> None:
        """Run the pending step (the deal, or a player's action) with the chance results decided
        so far; at an undecided draw, become a chance node for it."""
        action, before = self._pending
        rules = self._t.rules
        try:
            if action is None:
                s = rules.new_game(ChanceGenerator(self._decided), None)
                shaped = None
            else:
                s = before.copy()
                s.rng.feed(self._decided)
                shaped = rules.apply(s, action)
        except NeedChance as need:
            self._request = (need.kind, need.n, [])
            if need.kind != INTEGERS and need.n <= 1:  # nothing to decide
                self._finish_request([0][: need.n])
            return
        self._s, self._pending, self._decided, self._request = s, None, [], None
        rewards = np.zeros(self._t.num_players)
        if shaped is not None and not self._t.rank_mode:
            rewards += np.asarray(shaped, dtype=float)
        if (s.terminated or s.truncated) and self._t.rank_mode:
            rewards += np.asarray(rank_rewards(rules.ranks(s)), dtype=float)
        self._rewards = np.roll(rewards, self._offset)  # seat k of the rules state is player k + offset
        self._returns += self._rewards

    def _finish_request(self, result: list[int]) -> None:
        kind, n, _ = self._request
        self._decided.append(result[0] if kind == INTEGERS else list(result))
        self._request = None
        self._advance()

    # ------------------------------------------------------------------ OpenSpiel's API
    def current_player(self) -> int:
        if self._request is not None:
            return pyspiel.PlayerId.CHANCE
        if self._s.terminated or self._s.truncated:
            return pyspiel.PlayerId.TERMINAL
        return (int(self._s.current_player) + self._offset) % self._t.num_players

    def seat(self, player: int) -> int:
        """The rules state's seat of OpenSpiel's ``player``."""
        return (int(player) - self._offset) % self._t.num_players

    def _legal_actions(self, player: int) -> list[int]:
        if self._request is not None or player != self.current_player():
            return []
        return np.flatnonzero(self._t.rules.legal_mask(self._s)).tolist()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        kind, n, taken = self._request
        if kind == INTEGERS:
            return [(i, 1.0 / n) for i in range(n)]
        left = sorted(set(range(n)) - set(taken))
        return [(i, 1.0 / len(left)) for i in left]

    def _apply_action(self, action: int) -> None:
        action = int(action)
        if self._request is not None:
            kind, n, taken = self._request
            if kind == INTEGERS:
                if not 0 <= action < n:
                    raise ValueError(f"chance outcome {action} is not a seat in 0..{n - 1}")
                self._finish_request([action])
                return
            if not 0 <= action < n or action in taken:
                raise ValueError(f"chance outcome {action} is not a card position left to deal (of {n})")
            taken.append(action)
            if len(taken) == n - 1:  # the last position is forced
                taken.append(next(iter(set(range(n)) - set(taken))))
                self._finish_request(taken)
            return
        mask = self._t.rules.legal_mask(self._s)
        if not 0 <= action < len(mask) or not mask[action]:
            raise ValueError(f"action {action} is illegal for player {self.current_player()} now; legal actions: "
                             f"{np.flatnonzero(mask).tolist()}")
        self._pending = (action, self._s)
        self._advance()

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            kind, n, taken = self._request
            return f"seat {action}" if kind == INTEGERS else f"card {len(taken) + 1}/{n}: position {action}"
        return self._t.rules.action_to_string(self._s, int(action))

    def is_terminal(self) -> bool:
        return self._request is None and (self._s.terminated or self._s.truncated)

    def returns(self) -> list[float]:
        return self._returns.tolist()

    def rewards(self) -> list[float]:
        return self._rewards.tolist()

    def resample_from_infostate(self, player_id: int, probability_sampler: Any = None) -> "CardEnvsState":
        """A state ``player_id`` cannot tell from this one, every card it cannot see drawn from the
        exact posterior its observation leaves (the game's ``sample_world``). The world is built in
        that player's frame and relabelled (``seat``), so OpenSpiel's players are the same; its
        later draws are chance nodes again. ``probability_sampler`` (a callable giving floats in
        [0, 1), OpenSpiel's convention) seeds the draw; without one, numpy's default."""
        if self._request is not None or self._s is None:
            raise ValueError("resample_from_infostate is defined at players' decisions, not at chance nodes")
        seed = None if probability_sampler is None else int(probability_sampler() * 2**63)
        x = self._t.observation(self._s, self.seat(player_id))
        return CardEnvsState.from_observation(self.get_game(), x, player_id, np.random.default_rng(seed), self)

    @classmethod
    def from_observation(cls, game: "CardEnvsGame", observation: Any, player: int, rng: np.random.Generator,
                         like: "CardEnvsState | None" = None) -> "CardEnvsState":
        """A state ``player`` cannot tell from the one it observes (``observation``: its env
        observation vector): a world from the game's ``sample_world``, relabelled so that OpenSpiel's
        players are the table's, its later draws chance nodes again. ``like``: a state whose
        returns so far the new one keeps."""
        world = game.table.module.sample_world(np.asarray(observation, dtype=np.float32), rng, **game.table.options)
        world.rng = ChanceGenerator()
        twin = cls(game, _copy=like if like is not None else game.new_initial_state())
        twin._s, twin._offset = world, int(player) % game.table.num_players
        twin._pending, twin._request, twin._decided = None, None, []
        return twin

    def __str__(self) -> str:
        if self._s is None:
            return "(dealing)"
        return self._t.env._render_state(self._s)

    def __deepcopy__(self, memo: dict) -> "CardEnvsState":
        return CardEnvsState(self.get_game(), _copy=self)

    def __reduce__(self):
        """Pickled as its game and history (every action and chance outcome), replayed on load."""
        game = self.get_game()
        return _replay, (game.get_type().short_name, game.get_parameters(), self.history())

    # the rules state, for the tests and the bots of this library
    @property
    def rules_state(self) -> Any:
        return self._s


class CardEnvsObserver:
    """OpenSpiel's observer: the env's observation of a seat (``tensor``) and its readable view
    (``string_from``); the same for the information state (see the module docstring)."""

    def __init__(self, table: Table, iig_obs_type: Any, params: dict | None):
        if params:
            raise ValueError(f"observer parameters are not supported, got {params}")
        if iig_obs_type is not None and (iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER
                                         or not iig_obs_type.public_info):
            raise ValueError("the observer is a seat's own observation (private information of that seat and the "
                             "public information); other observation types are not provided")
        self._t = table
        self.tensor = np.zeros(table.size, dtype=np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: CardEnvsState, player: int) -> None:
        s = state.rules_state
        self.tensor[:] = self._t.zero if s is None else self._t.observation(s, state.seat(player))

    def string_from(self, state: CardEnvsState, player: int) -> str:
        s = state.rules_state
        return "(dealing)" if s is None else self._t.readable(s, state.seat(player))


class CardEnvsGame(pyspiel.Game):
    """One card_envs game (the class is made per game by :func:`register`)."""

    env_name = ""
    game_type: Any = None

    def __init__(self, params: dict | None = None):
        import card_envs

        config_class = type(card_envs.ENVIRONMENTS[self.env_name].raw_env().rules.config)
        params = dict(params or {})
        self.table = Table(self.env_name, options_from(params, config_class))
        rules = self.table.rules
        n = rules.num_players
        bound = 1.0 if self.table.rank_mode else 1e6
        info = pyspiel.GameInfo(
            num_distinct_actions=int(rules.num_actions),
            max_chance_outcomes=int(max(len(rules.deck()), n)),
            num_players=int(n),
            min_utility=-bound, max_utility=bound,
            utility_sum=0.0,
            max_game_length=MAX_GAME_LENGTH)
        super().__init__(self._type_for(self.table.rank_mode), info, params)

    @classmethod
    def _type_for(cls, rank_mode: bool) -> Any:
        """The registered type, with the reward model of this table: rank rewards come at the end
        only (``TERMINAL``, which OpenSpiel's MCTS requires); score rewards as the game goes."""
        t = cls.game_type
        if not rank_mode:
            return t
        return pyspiel.GameType(
            short_name=t.short_name, long_name=t.long_name, dynamics=t.dynamics, chance_mode=t.chance_mode,
            information=t.information, utility=t.utility, reward_model=pyspiel.GameType.RewardModel.TERMINAL,
            max_num_players=t.max_num_players, min_num_players=t.min_num_players,
            provides_information_state_string=True, provides_information_state_tensor=True,
            provides_observation_string=True, provides_observation_tensor=True,
            parameter_specification=t.parameter_specification)

    def new_initial_state(self) -> CardEnvsState:
        return CardEnvsState(self)

    def __reduce__(self):
        return pyspiel.load_game, (self.game_type.short_name, self.get_parameters())

    def make_py_observer(self, iig_obs_type: Any = None, params: dict | None = None) -> CardEnvsObserver:
        return CardEnvsObserver(self.table, iig_obs_type, params)


def register(env_name: str) -> type:
    """Register ``card_envs_<game>`` with OpenSpiel; returns the game class."""
    import card_envs

    raw = card_envs.ENVIRONMENTS[env_name].raw_env()
    config_class = type(raw.rules.config)
    short = PREFIX + env_name.removesuffix("_v0")
    game_type = pyspiel.GameType(
        short_name=short,
        long_name=f"card_envs {env_name}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,  # rank and score rewards both sum to 0
        reward_model=pyspiel.GameType.RewardModel.REWARDS,
        max_num_players=64,
        min_num_players=1,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=parameter_specification(config_class),
    )
    name = f"{short.title().replace('_', '')}Game"
    cls = type(name, (CardEnvsGame,), {"env_name": env_name, "game_type": game_type, "__module__": __name__})
    globals()[name] = cls  # found by name, as pickle looks a class up
    pyspiel.register_game(game_type, cls)
    return cls


def _replay(short_name: str, params: dict, history: list[int]) -> CardEnvsState:
    """A state rebuilt from its game and history (unpickling)."""
    state = pyspiel.load_game(short_name, params).new_initial_state()
    for action in history:
        state.apply_action(action)
    return state
