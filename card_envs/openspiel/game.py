"""One card_envs game as a ``pyspiel.Game``: the same rules engine as ``raw_env()``, its
randomness as explicit chance nodes, its observations and information states as OpenSpiel's
observers.

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
as probable as in the env, each outcome named by its card. Collector's and Hot's simultaneous
commitments are played as the env plays them: in turn, each one hidden from the others until all
are revealed (OpenSpiel's sequential imperfect-information form, so every OpenSpiel algorithm for
such games applies; a simultaneous-move game would exclude most of them). A player's action that
draws cards (Golf's stock running out) is applied once the draw's chance nodes are decided; until
then the observation and the information state are those before that action.

**Rewards.** ``rewards()`` and ``returns()`` are the env's: with ``reward_mode="rank"`` the rank
reward at the end (+1 first to −1 last; the game's reward model is then ``TERMINAL``), with
``"score"`` the game's step rewards as they come (``REWARDS``). A step's reward comes with the
transition that completes it (a player's action, or the last chance node it waits for); every
other chance node pays 0, so the rewards of a game add up to its returns. Two or more players:
zero-sum; Guilders' solitaire pays its points (general-sum). The metadata (game length, chance
nodes, seats, utility bounds) is the table's own: ``card_envs/openspiel/limits.py``.

**Observations.** ``observation_tensor(player)`` is the env's ``observe()`` vector of that seat (the
same float32 values), ``observation_string`` its readable view (``view.readable()``, JSON).

**Information states** are perfect-recall and belong to one player. The string is ``player p``
and then one line per completed step, as that player saw it: who acted, the action (its own by
name, another seat's as the table saw it: ``public_action``; the deal: ``dealt``), and what
changed in its view (the fields of its readable view that changed, JSON; should the observation
change where the readable view does not, the changed observation entries too). It holds every
view the player had, in order, so two histories that differ in anything it saw differ here, and
so do all their continuations; nothing it could not see enters. The tensor has a fixed size,
``num_players + observation size + 128``: the player (one-hot), its current observation, and a
128-bit digest of the same sequence (BLAKE2b, chained step by step over the action as the player
saw it and its observation after the step: the same information as the lines), which tells
information states apart as the string does, but for a 2^-128 chance; learners that generalise
across states should read the observation part (the features every learner of this library
reads), not the digest bits.

**Observers** (``make_py_observer``): the default observation, the perfect-recall information
state, a public observer (the table as a spectator sees it: the same for every player) and a
private one (``player p``, then the cards only that player sees); any other
``IIGObservationType`` gives None, and observer parameters are refused.

**Resampling.** ``resample_from_infostate(p, sampler)`` draws every card ``p`` cannot see from the
exact posterior its observation leaves (the game's ``sample_world``), renumbers that world into
the table's seats (``card_envs/openspiel/seats.py``) and returns a state rooted there: ``p``'s
information state is carried over unchanged and later steps extend it as in any state; the
others' information states start at the sampled world. Its ``str()``, rewards and players are
the table's; it clones, pickles and goes through OpenSpiel's serialization whole; its
``history()`` holds the actions since the world was sampled (no sequence of chance outcomes is
built to lead to the sampled cards). The world is drawn from what the observation keeps: where
that is less than the information state (Golf's observation keeps the discard pile's ranks, not
their order), the world can differ from what the player saw there (in Golf, the card under the
top of the discard pile).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from typing import Any

import numpy as np
import pyspiel

from card_envs import cards as C
from card_envs.openspiel.chance import INTEGERS, ChanceGenerator, NeedChance
from card_envs.openspiel.limits import Limits, limits
from card_envs.openspiel.seats import turn
from card_envs.scoring import rank_rewards

PREFIX = "card_envs_"
#: bits of the seen-history digest in the information state tensor
DIGEST_BITS = 128

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


def _json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


class Table:
    """What every state of one configuration shares: the env (rules, codec, view, names) and
    what OpenSpiel is told about it (:class:`~card_envs.openspiel.limits.Limits`)."""

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
        self.no_rewards = np.zeros(self.num_players)  # shared by every state: never changed in place
        self.no_rewards.flags.writeable = False
        self.rank_mode = self.rules.reward_mode == "rank"
        self.limits: Limits = limits(env_name, self.rules)

    def observation(self, s: Any, seat: int) -> np.ndarray:
        return self.env._encode(s, seat)

    def view(self, s: Any, seat: int) -> dict:
        """The seat's readable view (a JSON-able dict)."""
        return self.env.view_of(s, seat).readable()

    def readable(self, s: Any, seat: int) -> str:
        return _json(self.view(s, seat))


# ---------------------------------------------------------------------- what each player saw
DEALT, ROOT, ACTION = "dealt", "root", "action"


class Step:
    """One completed step of a game: the deal (``DEALT``), a player's action (``ACTION``: ``actor``
    is OpenSpiel's player, ``before`` the rules state it was applied to) or the world a state was
    rooted at (``ROOT``: ``before`` is that world, ``prefix`` maps a player to the
    information-state lines it had seen before, ``sampler`` is the player the world was drawn for,
    ``returns`` the returns so far then). Rules states are never changed once a step is made, so
    clones share their steps, and with them what each player's view of them cost to compute:
    ``obs`` and ``views`` (player -> its observation bytes and readable view of ``before``),
    ``digests`` and ``lines`` (player -> (the state after the step, the digest after it / the
    step's lines))."""

    __slots__ = ("kind", "actor", "action", "before", "prefix", "sampler", "returns", "obs", "views", "digests",
                 "lines")

    def __init__(self, kind: str, actor: int | None = None, action: int | None = None, before: Any = None,
                 prefix: dict[int, tuple[list[str], bytes]] | None = None, sampler: int | None = None,
                 returns: np.ndarray | None = None):
        self.kind, self.actor, self.action, self.before = kind, actor, action, before
        self.prefix, self.sampler, self.returns = prefix or {}, sampler, returns
        self._clear()

    def _clear(self) -> None:
        self.obs: dict[int, bytes] = {}
        self.views: dict[int, dict] = {}
        self.digests: dict[int, tuple[Any, bytes]] = {}
        self.lines: dict[int, tuple[Any, list[str]]] = {}

    def __getstate__(self) -> tuple:
        return self.kind, self.actor, self.action, self.before, self.prefix, self.sampler, self.returns

    def __setstate__(self, state: tuple) -> None:
        self.kind, self.actor, self.action, self.before, self.prefix, self.sampler, self.returns = state
        self._clear()


def _start_digest(player: int) -> bytes:
    return hashlib.blake2b(f"player {player}".encode(), digest_size=DIGEST_BITS // 8).digest()


def _chain(digest: bytes, payload: bytes) -> bytes:
    return hashlib.blake2b(digest + payload, digest_size=DIGEST_BITS // 8).digest()


class Progress:
    """A state's Python side, in one object: OpenSpiel clones a Python state by deep-copying each
    attribute, and this copy shares what never changes (the rules state, the steps)."""

    def __init__(self, num_players: int):
        self.s: Any = None  # the rules state, once dealt
        self.pending: tuple[int | None, Any] | None = (None, None)  # (action or None for the deal, state before)
        self.request: tuple[str, int, list[int], list[int] | None] | None = None  # (kind, n, outcomes so far, cards)
        self.decided: list[Any] = []  # results of the chance events decided for the pending step
        self.returns = np.zeros(num_players)
        self.rewards = np.zeros(num_players)
        self.steps: list[Step] = []
        self.now: dict[int, list] = {}  # player -> [rules state, its observation bytes, its view] (None: not yet)

    def __deepcopy__(self, memo: dict) -> "Progress":
        twin = Progress.__new__(Progress)
        twin.s, twin.pending, twin.decided = self.s, self.pending, list(self.decided)
        twin.request = None if self.request is None else (
            self.request[0], self.request[1], list(self.request[2]), self.request[3])
        twin.returns, twin.rewards = self.returns, self.rewards  # replaced by each step, never changed in place
        twin.steps, twin.now = list(self.steps), dict(self.now)
        return twin

    def __getstate__(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if k != "now"}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self.now = {}


class CardEnvsState(pyspiel.State):
    """A game in progress: the rules state, the chance event being decided (if any) and the steps
    so far (see :class:`Progress`)."""

    def __init__(self, game: "CardEnvsGame", _copy: "CardEnvsState | None" = None):
        super().__init__(game)
        if _copy is not None:
            self._g = _copy._g.__deepcopy__({})
            return
        self._g = Progress(self._t.num_players)
        self._advance()

    @property
    def _t(self) -> Table:
        """The game's table (kept on the game, not in the state: OpenSpiel copies a state's
        ``__dict__`` when it clones one)."""
        return self.get_game().table

    # the rules state, for the tests and the bots of this library (read only: states share it)
    @property
    def rules_state(self) -> Any:
        return self._g.s

    @property
    def _s(self) -> Any:
        return self._g.s

    @_s.setter
    def _s(self, value: Any) -> None:
        self._g.s = value

    # ------------------------------------------------------------------ the rules, run
    def _advance(self) -> None:
        """Run the pending step (the deal, or a player's action) with the chance results decided
        so far; at an undecided draw, become a chance node for it (paying nothing)."""
        g, table = self._g, self._t
        action, before = g.pending
        rules = table.rules
        try:
            if action is None:
                s = rules.new_game(ChanceGenerator(g.decided), None)
                shaped = None
            else:
                s = before.copy()
                s.rng.feed(g.decided)
                shaped = rules.apply(s, action)
        except NeedChance as need:
            g.request = (need.kind, need.n, [], need.cards)
            g.rewards = table.no_rewards
            if need.kind != INTEGERS and need.n <= 1:  # nothing to decide
                self._finish_request([0][: need.n])
            return
        if action is None:
            g.steps.append(Step(DEALT))
        else:
            g.steps.append(Step(ACTION, int(before.current_player), action, before))
        g.s, g.pending, g.decided, g.request = s, None, [], None
        rewards = np.zeros(table.num_players)
        if shaped is not None and not table.rank_mode:
            rewards += np.asarray(shaped, dtype=float)
        if (s.terminated or s.truncated) and table.rank_mode:
            rewards += np.asarray(rank_rewards(rules.ranks(s)), dtype=float)
        g.rewards = rewards
        g.returns = g.returns + rewards

    def _finish_request(self, result: list[int]) -> None:
        kind, n, _, _ = self._g.request
        self._g.decided.append(result[0] if kind == INTEGERS else list(result))
        self._g.request = None
        self._advance()

    # ------------------------------------------------------------------ OpenSpiel's API
    def current_player(self) -> int:
        g = self._g
        if g.request is not None:
            return pyspiel.PlayerId.CHANCE
        if g.s.terminated or g.s.truncated:
            return pyspiel.PlayerId.TERMINAL
        return int(g.s.current_player)

    def seat(self, player: int) -> int:
        """The rules state's seat of OpenSpiel's ``player``: the same number, in every state
        (a sampled world is renumbered into the table's seats)."""
        return int(player)

    def _legal_actions(self, player: int) -> list[int]:
        if self._g.request is not None or player != self.current_player():
            return []
        return np.flatnonzero(self._t.rules.legal_mask(self._g.s)).tolist()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        kind, n, taken, _ = self._g.request
        if kind == INTEGERS:
            return [(i, 1.0 / n) for i in range(n)]
        left = sorted(set(range(n)) - set(taken))
        return [(i, 1.0 / len(left)) for i in left]

    def _apply_action(self, action: int) -> None:
        action = int(action)
        g = self._g
        if g.request is not None:
            kind, n, taken, _ = g.request
            if kind == INTEGERS:
                if not 0 <= action < n:
                    raise ValueError(f"chance outcome {action} is not a seat in 0..{n - 1}")
                self._finish_request([action])
                return
            if not 0 <= action < n or action in taken:
                raise ValueError(f"chance outcome {action} is not a card position left to deal (of {n})")
            taken.append(action)
            g.rewards = self._t.no_rewards
            if len(taken) == n - 1:  # the last position is forced
                taken.append(next(iter(set(range(n)) - set(taken))))
                self._finish_request(taken)
            return
        mask = self._t.rules.legal_mask(g.s)
        if not 0 <= action < len(mask) or not mask[action]:
            raise ValueError(f"action {action} is illegal for player {self.current_player()} now; legal actions: "
                             f"{np.flatnonzero(mask).tolist()}")
        g.pending = (action, g.s)
        self._advance()

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            kind, n, taken, cards = self._g.request
            if kind == INTEGERS:
                return f"seat {action}"
            card = "" if cards is None or not 0 <= action < n else f" {C.to_str(cards[action])}"
            return f"card {len(taken) + 1}/{n}:{card} (position {action})"
        return self._t.rules.action_to_string(self._g.s, int(action))

    def is_terminal(self) -> bool:
        g = self._g
        return g.request is None and (g.s.terminated or g.s.truncated)

    def returns(self) -> list[float]:
        return self._g.returns.tolist()

    def rewards(self) -> list[float]:
        return self._g.rewards.tolist()

    # ------------------------------------------------------------------ what a player saw
    def _cached(self, s: Any, player: int, step: Step | None, what: str) -> Any:
        """``player``'s observation (``"obs"``, bytes) or readable view (``"view"``) of ``s``,
        computed once: cached on ``step`` (whose ``before`` is ``s``) or, for the current state,
        on the state."""
        if step is not None:
            cache = step.obs if what == "obs" else step.views
            if player not in cache:
                cache[player] = self._compute(s, player, what)
            return cache[player]
        now = self._g.now.get(player)
        if now is None or now[0] is not s:
            now = self._g.now[player] = [s, None, None]
        k = 1 if what == "obs" else 2
        if now[k] is None:
            now[k] = self._compute(s, player, what)
        return now[k]

    def _compute(self, s: Any, player: int, what: str) -> Any:
        seat = self.seat(player)
        return self._t.observation(s, seat).tobytes() if what == "obs" else self._t.view(s, seat)

    def _action_seen(self, step: Step, player: int) -> str:
        """A player's action as ``player`` saw it: its own by name, another seat's as the table
        saw it."""
        rules = self._t.rules
        if step.actor == player:
            return rules.action_to_string(step.before, step.action)
        return rules.public_action(step.before, step.action)

    def _after(self, k: int) -> tuple[Any, Step | None]:
        """The rules state after step ``k``, and the step whose ``before`` it is (None: now)."""
        steps = self._g.steps
        if k + 1 < len(steps):
            return steps[k + 1].before, steps[k + 1]
        return self._g.s, None

    def _step_digest(self, step: Step, player: int, k: int, digest: bytes) -> bytes:
        """The digest after step ``k`` (``step``), from the one before it: chained over what
        ``player`` saw of the step (the action as it saw it) and its observation after it."""
        if step.kind == ROOT and player in step.prefix:
            return step.prefix[player][1]
        after, after_step = self._after(k)
        obs = self._cached(after, player, after_step, "obs")
        if step.kind == DEALT:
            head = "dealt"
        elif step.kind == ROOT:
            head = f"world sampled for player {step.sampler}"
        else:
            head = f"player {step.actor}: {self._action_seen(step, player)}"
        return _chain(digest, head.encode() + b"\0" + obs)

    def digest(self, player: int) -> bytes:
        """The digest of ``player``'s information state: equal for equal information states, and
        (but for a 2^-128 chance) different for different ones."""
        player = int(player)
        steps = self._g.steps
        k = len(steps) - 1  # the last step whose digest is known for this state
        while k >= 0:
            cached = steps[k].digests.get(player)
            if cached is not None and cached[0] is self._after(k)[0]:
                break
            k -= 1
        digest = _start_digest(player) if k < 0 else steps[k].digests[player][1]
        for j in range(k + 1, len(steps)):
            digest = self._step_digest(steps[j], player, j, digest)
            steps[j].digests[player] = (self._after(j)[0], digest)
        return digest

    def _step_lines(self, step: Step, player: int, k: int) -> list[str]:
        """What ``player`` saw of step ``k`` (``step``), as information-state lines."""
        if step.kind == ROOT and player in step.prefix:
            return list(step.prefix[player][0])
        after, after_step = self._after(k)
        now = self._cached(after, player, after_step, "view")
        if step.kind == DEALT:
            return [f"dealt {_json(now)}"]
        if step.kind == ROOT:
            return [f"world sampled for player {step.sampler} {_json(now)}"]
        view = self._cached(step.before, player, step, "view")
        changed = {key: v for key, v in now.items() if key not in view or view[key] != v}
        changed.update({key: None for key in view if key not in now})
        line = f"player {step.actor}: {self._action_seen(step, player)}" + (f" {_json(changed)}" if changed else "")
        obs, now_obs = self._cached(step.before, player, step, "obs"), self._cached(after, player, after_step, "obs")
        if not changed and obs != now_obs:  # the readable view missed a change: say it exactly
            a, b = np.frombuffer(obs, np.float32), np.frombuffer(now_obs, np.float32)
            line += " observation " + _json({int(i): float(b[i]) for i in np.flatnonzero(a != b)})
        return [line]

    def seen(self, player: int) -> list[str]:
        """Every line of ``player``'s information state after its first (``player p``): what it
        saw of each step, in order."""
        player = int(player)
        steps = self._g.steps
        lines: list[str] = []
        for k, (step, after) in enumerate(zip(steps, [step.before for step in steps[1:]] + [self._g.s])):
            cached = step.lines.get(player)
            if cached is None or cached[0] is not after:
                cached = step.lines[player] = (after, self._step_lines(step, player, k))
            lines += cached[1]
        return lines

    def _check_player(self, player: int) -> int:
        n = self._t.num_players
        if not 0 <= int(player) < n:
            raise ValueError(f"player {player} is not a player of this {n}-player game (0..{n - 1})")
        return int(player)

    def resample_from_infostate(self, player_id: int, probability_sampler: Any = None) -> "CardEnvsState":
        """A state ``player_id`` cannot tell from this one: every card it cannot see drawn from the
        exact posterior its observation leaves (the game's ``sample_world``), in a world rooted at
        that sample, which carries ``player_id``'s information state unchanged (see the module
        docstring). ``probability_sampler`` (a callable giving floats in [0, 1), OpenSpiel's
        convention) seeds the draw; without one, numpy's default."""
        player = self._check_player(player_id)
        if self._g.request is not None or self._g.s is None:
            raise ValueError("resample_from_infostate is defined at players' decisions, not at chance nodes")
        seed = None if probability_sampler is None else int(probability_sampler() * 2**63)
        x = self._t.observation(self._g.s, self.seat(player))
        return CardEnvsState.from_observation(self.get_game(), x, player, np.random.default_rng(seed), self,
                                              prefix={player: (self.seen(player), self.digest(player))})

    @classmethod
    def from_observation(cls, game: "CardEnvsGame", observation: Any, player: int, rng: np.random.Generator,
                         like: "CardEnvsState | None" = None,
                         prefix: dict[int, tuple[list[str], bytes]] | None = None) -> "CardEnvsState":
        """A state ``player`` cannot tell from the one it observes (``observation``: its env
        observation vector): rooted at a world from the game's ``sample_world``, its seats
        renumbered into the table's (``card_envs/openspiel/seats.py``: the world is drawn with the
        observer in seat 0), its later draws chance nodes again. ``like``: a state whose returns so
        far the new one keeps; ``prefix``: the information state (its lines and digest) each player
        had before (without it, the sampled world is where a player's information state starts)."""
        table = game.table
        world = table.module.sample_world(np.asarray(observation, dtype=np.float32), rng, **table.options)
        world = turn(table.env_name, world, int(player), table.num_players)  # the observer back in its own seat
        return cls._rooted(game, world, int(player), prefix or {}, None if like is None else like._g.returns)

    @classmethod
    def _rooted(cls, game: "CardEnvsGame", world: Any, player: int, prefix: dict[int, tuple[list[str], bytes]],
                returns: np.ndarray | None) -> "CardEnvsState":
        table = game.table
        world.rng = ChanceGenerator()
        twin = game.new_initial_state()
        g = Progress(table.num_players)
        g.s, g.pending = world, None
        if returns is not None:
            g.returns = np.array(returns, dtype=float)
        seen = {int(k): (list(lines), digest) for k, (lines, digest) in prefix.items()}
        g.steps = [Step(ROOT, before=world, prefix=seen, sampler=player, returns=g.returns.copy())]
        twin._g = g
        return twin

    def __str__(self) -> str:
        if self._g.s is None:
            return "(dealing)"
        return self._t.env._render_state(self._g.s)

    def __deepcopy__(self, memo: dict) -> "CardEnvsState":
        return CardEnvsState(self.get_game(), _copy=self)

    def __reduce__(self):
        """Pickled as its game and history (every action and chance outcome), replayed on load; a
        state rooted at a sampled world as that world, what its players had seen before it, and
        the actions since."""
        game = self.get_game()
        name, params = game.get_type().short_name, game.get_parameters()
        root = self._g.steps[0] if self._g.steps else None
        if root is not None and root.kind == ROOT:
            return _replay_rooted, (name, params, root.before, root.sampler, root.prefix, root.returns,
                                    self.history())
        return _replay, (name, params, self.history())


class CardEnvsObserver:
    """OpenSpiel's observer of one kind (see the module docstring): ``tensor`` and ``dict`` (None
    and empty for the public and private observers, which are strings), ``set_from`` and
    ``string_from``."""

    KINDS = ("observation", "information_state", "public", "private")

    def __init__(self, table: Table, kind: str):
        if kind not in self.KINDS:
            raise ValueError(f"unknown observer kind {kind!r}; kinds: {', '.join(self.KINDS)}")
        self._t, self.kind = table, kind
        n = table.num_players
        pieces = {"observation": [("observation", table.size)],
                  "information_state": [("player", n), ("observation", table.size), ("seen", DIGEST_BITS)]}.get(kind)
        if pieces is None:
            self.tensor, self.dict = None, {}
            return
        self.tensor = np.zeros(sum(size for _, size in pieces), dtype=np.float32)
        self.dict, at = {}, 0
        for name, size in pieces:
            self.dict[name] = self.tensor[at:at + size]
            at += size

    def set_from(self, state: CardEnvsState, player: int) -> None:
        if self.tensor is None:
            return
        s = state.rules_state
        if s is None:
            self.dict["observation"][:] = self._t.zero
        elif self.kind == "information_state":  # the bytes its digest read too
            self.dict["observation"][:] = np.frombuffer(state._cached(s, player, None, "obs"), np.float32)
        else:
            self.dict["observation"][:] = self._t.observation(s, state.seat(player))
        if self.kind == "information_state":
            self.dict["player"][:] = 0
            self.dict["player"][player] = 1
            self.dict["seen"][:] = np.unpackbits(np.frombuffer(state.digest(player), dtype=np.uint8))

    def string_from(self, state: CardEnvsState, player: int) -> str:
        s = state.rules_state
        if self.kind == "information_state":
            return "\n".join([f"player {player}", *state.seen(player)])
        if self.kind == "private":  # as OpenSpiel's own games write it: the player, then its cards
            cards = [] if s is None else [_scene_text(self._t, s, state.seat(player), True)]
            return "\n".join([f"player {player}", *cards])
        if s is None:
            return "(dealing)"
        if self.kind == "observation":
            return self._t.readable(s, state.seat(player))
        return _scene_text(self._t, s, state.seat(player), False)


def _scene_text(table: Table, s: Any, seat: int, private: bool) -> str:
    """The table as every seat sees it (the spectator's scene: the same from each seat), or the
    cards only ``seat`` sees (its own scene's cards that are face down in the spectator's), a line
    per place ("" if none)."""
    from card_envs import pictures as P
    from card_envs.records.viewer import scene_text

    module = P.picture_module(table.env)
    public = module.scene(table.rules, s, seat, False)
    if not private:
        return scene_text(public)
    own = module.scene(table.rules, s, seat, True)

    def groups(t: Any) -> list[tuple[str, list[Any]]]:
        return [(g.caption, list(g.cards)) for r in list(t.rows) + list(t.seats) for g in r.groups]

    out = []
    for (caption, mine), (_, shown) in zip(groups(own), groups(public)):
        only = [c for k, c in enumerate(mine) if isinstance(c, P.Face) and (k >= len(shown) or shown[k] != c)]
        if only:
            out.append(f"{caption}: " + " ".join(_face_text(c) for c in only))
    return "\n".join(out)


def _face_text(face: Any) -> str:
    from card_envs import pictures as P

    if face.joker:
        return "RJ" if face.joker == "red" else "BJ"
    return face.rank + ("" if face.suit is None else P.SUIT_LETTERS[face.suit])


def _observer_kind(iig_obs_type: Any) -> str | None:
    """The observer an ``IIGObservationType`` asks for, or None where the game has none."""
    if iig_obs_type is None:
        return "observation"
    private, public, recall = iig_obs_type.private_info, iig_obs_type.public_info, iig_obs_type.perfect_recall
    if private == pyspiel.PrivateInfoType.SINGLE_PLAYER and public:
        return "information_state" if recall else "observation"
    if recall:
        return None  # a perfect-recall history of only the public, or only the private, part
    if private == pyspiel.PrivateInfoType.NONE and public:
        return "public"
    if private == pyspiel.PrivateInfoType.SINGLE_PLAYER and not public:
        return "private"
    return None  # every player's private information, or nothing at all


class CardEnvsGame(pyspiel.Game):
    """One card_envs game (the class is made per game by :func:`register`)."""

    env_name = ""
    game_type: Any = None

    def __init__(self, params: dict | None = None):
        import card_envs

        config_class = type(card_envs.ENVIRONMENTS[self.env_name].raw_env().rules.config)
        params = dict(params or {})
        self.table = Table(self.env_name, options_from(params, config_class))
        rules, lim = self.table.rules, self.table.limits
        n = rules.num_players
        info = pyspiel.GameInfo(
            num_distinct_actions=int(rules.num_actions),
            max_chance_outcomes=int(max(len(rules.deck()), n)),
            num_players=int(n),
            min_utility=float(lim.min_utility), max_utility=float(lim.max_utility),
            utility_sum=0.0 if lim.zero_sum else None,
            max_game_length=int(lim.max_game_length))
        super().__init__(_game_type(self.game_type, self.table.rank_mode, lim), info, params)

    def max_chance_nodes_in_history(self) -> int:
        """The most chance nodes one game can have (``card_envs/openspiel/limits.py``)."""
        return int(self.table.limits.max_chance_nodes)

    def new_initial_state(self) -> CardEnvsState:
        return CardEnvsState(self)

    def __reduce__(self):
        return pyspiel.load_game, (self.game_type.short_name, self.get_parameters())

    def make_py_observer(self, iig_obs_type: Any = None, params: dict | None = None) -> CardEnvsObserver | None:
        """OpenSpiel's observer for ``iig_obs_type`` (see the module docstring), or None where the
        game has none of that type."""
        if params:
            raise ValueError(f"observer parameters are not supported (the observers take none), got {params}")
        kind = _observer_kind(iig_obs_type)
        return None if kind is None else CardEnvsObserver(self.table, kind)


def _game_type(registered: Any, rank_mode: bool, lim: Limits) -> Any:
    """The registered type with this table's facts: the reward model (rank rewards come at the
    end only: ``TERMINAL``, which OpenSpiel's MCTS requires; score rewards as the game goes), the
    utility (general-sum for one player) and the seats the game accepts."""
    t = registered
    return pyspiel.GameType(
        short_name=t.short_name, long_name=t.long_name, dynamics=t.dynamics, chance_mode=t.chance_mode,
        information=t.information,
        utility=pyspiel.GameType.Utility.ZERO_SUM if lim.zero_sum else pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL if rank_mode else pyspiel.GameType.RewardModel.REWARDS,
        max_num_players=lim.max_players, min_num_players=lim.min_players,
        provides_information_state_string=True, provides_information_state_tensor=True,
        provides_observation_string=True, provides_observation_tensor=True,
        provides_factored_observation_string=True,
        parameter_specification=t.parameter_specification)


def register(env_name: str) -> type:
    """Register ``card_envs_<game>`` with OpenSpiel; returns the game class. The registered type
    is the default table's (its seats, its reward model); each loaded table states its own."""
    import card_envs

    raw = card_envs.ENVIRONMENTS[env_name].raw_env()
    config_class = type(raw.rules.config)
    short = PREFIX + env_name.removesuffix("_v0")
    lim = limits(env_name, raw.rules)
    game_type = pyspiel.GameType(
        short_name=short,
        long_name=f"card_envs {env_name}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.REWARDS,
        max_num_players=lim.max_players,
        min_num_players=lim.min_players,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        provides_factored_observation_string=True,
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


def _replay_rooted(short_name: str, params: dict, world: Any, sampler: int, prefix: dict[int, tuple[list[str], bytes]],
                   returns: Any, history: list[int]) -> CardEnvsState:
    """A state rooted at a sampled world, rebuilt from that world and the actions since."""
    game = pyspiel.load_game(short_name, params)
    state = CardEnvsState._rooted(game, world.copy(), sampler, prefix, returns)
    for action in history:
        state.apply_action(action)
    return state
