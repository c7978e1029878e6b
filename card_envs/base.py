"""The one PettingZoo AEC environment every card_envs game shares.

A game is three parts: its rules (pure Python, ``<game>/rules.py``), its view (the only filter
of hidden information, ``<game>/view.py``) and a few lines of glue (``<game>/env.py``) that
subclass :class:`CardGameEnv`. Everything else lives here once: agent order, reward
accumulation, all-zero masks off turn, spaces built once per configuration, seeding into one
``np.random.Generator``, stacked decks, action names, ``infos`` with ``score`` and ``rank``,
rank rewards, rendering, and the errors for bad input.

The rules object a game supplies (duck-typed) provides::

    Rules(**options)                     ValueError on an unknown/bad option
    .name, .num_players, .num_actions, .reward_mode ("rank" | "score")
    .deck() -> list[int]                 the first deal's multiset (a stacked deck must match it)
    .new_game(rng, deck) -> state        deck: card ints, top first, or None to shuffle with rng
    state.current_player                 seat to act, -1 once the game is over
    state.terminated, state.truncated
    .legal_mask(state) -> int8 array     for state.current_player; never depends on hidden cards
    .apply(state, action) -> list | None the score-mode rewards of this step (zero-sum) or None
    .scores(state), .ranks(state)        game points and competition ranks (1 = best)
    .action_to_string(state, action), .string_to_action(state, text)
    .public_action(state, action) -> str what every seat sees of an action about to be applied:
                                         its name, or for a hidden choice what the table saw
    .zones(state) -> dict[str, list[int]]   every card, each in exactly one zone (for tests)

and the glue subclass names the view module (``View = <game>.view``: ``Codec``, ``layout``,
``view``, ``render``, ``render_state``), or overrides ``_encode``, ``_render_view``,
``_render_state``, ``decode``, ``encode_view`` and ``observation_layout`` itself.

``raw_env`` raises ValueError on an illegal action. ``env()`` switches on, natively, the
behaviour PettingZoo classic gets from its three wrappers (TerminateIllegalWrapper,
AssertOutOfBoundsWrapper, OrderEnforcingWrapper): an illegal action ends the game with -1 for
the mover and a warning; an out-of-range action and acting or observing before ``reset`` are
errors. The wrappers forward every attribute read through ``__getattr__`` and cost about 4×
the throughput of a small env; tests prove the native behaviour equals the wrapped one.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils.env_logger import EnvLogger

from card_envs import cards
from card_envs.checks import action_index, check_reset_options, check_seed
from card_envs.scoring import rank_rewards

RENDER_MODES = ("human", "ansi", "rgb_array")
#: frames per second a video of a game plays at (``metadata["render_fps"]``)
RENDER_FPS = 2
RESET_OPTIONS = ("deck",)
#: the second word of the seed sequence the action spaces are seeded from (``reset(seed)``)
ACTION_SPACE_STREAM = 1


class IllegalActionError(ValueError):
    """An action in range that the rules do not allow now (raw_env only)."""


class ActionOutOfRangeError(ValueError, AssertionError):
    """An action that is not an index of the action space.

    Also an AssertionError, because PettingZoo's AssertOutOfBoundsWrapper raises that.
    """


class ResetNeededError(AssertionError, RuntimeError):
    """Stepping, observing or rendering before ``reset()`` (as OrderEnforcingWrapper raises)."""


class GameOverError(ValueError):
    """``step()`` on ``raw_env()`` once the game is over and every agent has stepped out
    (``env()`` warns and changes nothing instead, as OrderEnforcingWrapper does)."""


class CardGameEnv(AECEnv):
    """PettingZoo AEC environment over a game's rules and view. Subclass per game."""

    metadata: dict[str, Any] = {"name": "card_game", "render_modes": list(RENDER_MODES), "is_parallelizable": False}
    Rules: Callable[..., Any]

    def __init__(self, render_mode: str | None = None, **options: Any):
        super().__init__()
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode must be None, 'human', 'ansi' or 'rgb_array', got {render_mode!r}")
        self.render_mode = render_mode
        self.rules = self.Rules(**options)
        n = self.rules.num_players
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        layout = self.observation_layout
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(layout.low, layout.high, dtype=np.float32),
                "action_mask": spaces.Box(0, 1, (self.rules.num_actions,), dtype=np.int8),
            }
        )
        act_space = spaces.Discrete(self.rules.num_actions)
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: act_space for a in self.possible_agents}
        self._zero_mask = np.zeros(self.rules.num_actions, dtype=np.int8)
        self._checked = False  # env() sets it: the wrappers' behaviour
        self._rng: np.random.Generator | None = None
        self.game_state = None
        self._mask: np.ndarray | None = None  # legal mask of the current state, computed lazily
        self._done = False
        self._illegal_end = False  # env() ended the game on an illegal action
        self._last_action: tuple[str, str] | None = None  # (agent, name), kept for rgb_array only

    def __init_subclass__(cls, **kwargs: Any) -> None:
        # Rendering is this class's, the same for every game: each declares all of RENDER_MODES.
        super().__init_subclass__(**kwargs)
        own = cls.__dict__.get("metadata")
        if own is not None:
            cls.metadata = {**own, "render_modes": list(RENDER_MODES), "render_fps": RENDER_FPS}

    # ----------------------------------------------------------------- glue the game supplies
    #: the game's view module. When set, it provides ``Codec(rules)`` (``encode(view)``,
    #: ``decode(vector)``), ``layout(rules)``, ``view(state, seat)``, ``render(view)`` and
    #: ``render_state(state)``, and the methods below need no override.
    View: Any = None

    @property
    def observation_layout(self):
        """The game's :class:`card_envs.encoding.Layout` for this configuration."""
        return self.View.layout(self.rules)

    @property
    def _codec(self):
        codec = self.__dict__.get("_codec_cache")
        if codec is None:
            codec = self.__dict__["_codec_cache"] = self.View.Codec(self.rules)
        return codec

    def view_of(self, state: Any, seat: int) -> Any:
        """The PlayerView of ``seat`` in a rules state: what ``decode`` gives back from that
        seat's observation vector, without building the vector (search rollouts use it)."""
        return self.View.view(state, seat)

    def _encode(self, state: Any, seat: int) -> np.ndarray:
        codec = self.__dict__.get("_codec_cache") or self._codec  # every observation: no detour
        return codec.encode(self.View.view(state, seat))

    def _render_view(self, state: Any, seat: int) -> str:
        return self.View.render(self.View.view(state, seat))

    def _render_state(self, state: Any) -> str:
        return self.View.render_state(state)

    def decode(self, observation: np.ndarray) -> Any:
        """The game's PlayerView that an observation vector encodes."""
        return self._codec.decode(observation)

    def encode_view(self, view: Any) -> np.ndarray:
        """The observation vector of a PlayerView (``encode_view(decode(x)) == x``)."""
        return self._codec.encode(view)

    # ----------------------------------------------------------------------------- spaces
    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # ------------------------------------------------------------------------------ reset
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        seed = check_seed(seed)
        options = check_reset_options(options, RESET_OPTIONS, self.metadata["name"])
        deck = None
        if options.get("deck") is not None:
            deck = cards.check_stacked_deck(options["deck"], self.rules.deck(), self.metadata["name"])
        if seed is not None:
            self._rng = np.random.default_rng(seed)
            # the action spaces' own generator follows the seed too, so a loop that samples its
            # actions (``action_space(agent).sample(mask)``) replays bit for bit; a stream of its
            # own, not the deal's
            for space in {id(sp): sp for sp in self.action_spaces.values()}.values():
                space.seed(int(np.random.SeedSequence([seed, ACTION_SPACE_STREAM]).generate_state(1)[0]))
        elif self._rng is None:
            self._rng = np.random.default_rng()
        self.game_state = self.rules.new_game(self._rng, deck)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self._mask = None
        self._done = False
        self._illegal_end = False
        self._skip_agent_selection = None
        self._last_action = None
        self.agent_selection = self.possible_agents[self.game_state.current_player]
        if self.game_state.terminated or self.game_state.truncated:  # a game can end at once
            self._finish(None)

    # ------------------------------------------------------------------------------- step
    def step(self, action: Any) -> None:
        if self.game_state is None:
            raise ResetNeededError("reset() needs to be called before step.")
        if not self.agents:
            self._step_after_the_end()
            return
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        action = self._check_range(action)
        mask = self._legal_mask()
        if not mask[action]:
            if self._checked:
                self._terminate_illegal(agent)
                return
            raise IllegalActionError(
                f"action {action} ({self._name(action)}) is illegal for {agent} now; legal actions: "
                + ", ".join(f"{a} ({self._name(a)})" for a in np.flatnonzero(mask))
            )
        state = self.game_state
        if self.render_mode == "rgb_array":  # the picture's "last action" line, as the table saw it
            self._last_action = (agent, self.rules.public_action(state, action))
        shaped = self.rules.apply(state, action)
        self._mask = None
        for a in self.rewards:
            self.rewards[a] = 0.0
        if shaped is not None and self.rules.reward_mode == "score":
            for i, r in enumerate(shaped):
                self.rewards[self.possible_agents[i]] += r
        self._cumulative_rewards[agent] = 0.0
        if state.terminated or state.truncated:
            self._finish(self._seat[agent])
        else:
            self.agent_selection = self.possible_agents[state.current_player]
        self._accumulate_rewards()

    def _finish(self, mover: int | None) -> None:
        """Game over: infos get score and rank, rank rewards are paid, every agent is done."""
        state = self.game_state
        scores = self.rules.scores(state)
        ranks = self.rules.ranks(state)
        if self.rules.reward_mode == "rank":
            for i, r in enumerate(rank_rewards(ranks)):
                self.rewards[self.possible_agents[i]] += r
        for i, a in enumerate(self.possible_agents):
            self.infos[a] = {"score": scores[i], "rank": int(ranks[i])}
            self.terminations[a] = bool(state.terminated)
            self.truncations[a] = bool(state.truncated)
        self._done = True
        n = len(self.possible_agents)
        nxt = 0 if mover is None else (mover + 1) % n
        self.agent_selection = self.possible_agents[nxt]
        if mover is None:
            self._accumulate_rewards()

    def _terminate_illegal(self, agent: str) -> None:
        """TerminateIllegalWrapper's behaviour: -1 for the mover, the game ends for everyone."""
        EnvLogger.warn_on_illegal_move()
        self._cumulative_rewards[agent] = 0
        self.terminations = dict.fromkeys(self.agents, True)
        self.truncations = dict.fromkeys(self.agents, True)
        self.rewards = dict.fromkeys(self.truncations, 0)
        self.rewards[agent] = -1.0
        self._accumulate_rewards()
        self._deads_step_first()
        self._done = True
        self._illegal_end = True

    def _step_after_the_end(self) -> None:
        """``step()`` once every agent has stepped out: ``env()`` warns and changes nothing (as
        PettingZoo's OrderEnforcingWrapper does); ``raw_env()`` raises :class:`GameOverError`."""
        if self._checked:
            EnvLogger.warn_step_after_terminated_truncated()
            return
        how = "it was truncated" if self.game_state.truncated else "it ended by its rules"
        raise GameOverError(f"{self.metadata['name']}: the game is over ({how}) and every agent has stepped out; "
                            "call reset() to deal a new game")

    def _check_range(self, action: Any) -> int:
        n = self.rules.num_actions
        a = action if type(action) is int else action_index(action)  # the common case first
        if a is not None and 0 <= a < n:
            return a
        raise ActionOutOfRangeError(
            f"action {action!r} is not in the action space: an int in 0..{n - 1} (or None once the agent is done)"
        )

    # --------------------------------------------------------------------------- observe
    def _legal_mask(self) -> np.ndarray:
        if self._mask is None:
            self._mask = self.rules.legal_mask(self.game_state)
        return self._mask

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        if self.game_state is None:
            raise ResetNeededError("reset() needs to be called before observe.")
        seat = self._seat[agent]
        if agent == self.agent_selection and not self._done:
            mask = self._legal_mask().copy()
        else:
            mask = self._zero_mask.copy()
        return {"observation": self._encode(self.game_state, seat), "action_mask": mask}

    def action_mask(self, agent: str | None = None) -> np.ndarray:
        """The action mask of ``agent`` (default: the agent to act)."""
        return self.observe(agent or self.agent_selection)["action_mask"]

    # ------------------------------------------------------------------ full-information state
    #: the game's state module (``<game>/state.py``: ``Codec(rules)`` with ``layout``,
    #: ``encode(state)`` and ``decode(vector)``); found by that name when left None
    State: Any = None

    @property
    def _state_codec(self):
        codec = self.__dict__.get("_state_codec_cache")
        if codec is None:
            module = type(self).State or state_module(type(self))
            codec = self.__dict__["_state_codec_cache"] = module.Codec(self.rules)
        return codec

    @property
    def state_layout(self):
        """The :class:`card_envs.encoding.Layout` of :meth:`state` for this configuration."""
        return self._state_codec.layout

    @property
    def state_space(self) -> spaces.Box:
        """``Box(low, high, (size,), float32)`` of :meth:`state`, built once per environment."""
        box = self.__dict__.get("_state_space_cache")
        if box is None:
            layout = self.state_layout
            box = self.__dict__["_state_space_cache"] = spaces.Box(layout.low, layout.high, dtype=np.float32)
        return box

    def state(self) -> np.ndarray:
        """The full-information state of the game (every card where it lies, hidden ones
        included, and everything else that decides what happens next except the random
        generator), as a fixed-size float32 vector laid out by :attr:`state_layout`.

        Privileged: for centralized critics and oracles in training, never for a player's
        policy; no observation contains it.
        """
        if self.game_state is None:
            raise ResetNeededError("reset() needs to be called before state.")
        x = self._state_codec.encode(self.game_state)
        if self._illegal_end:
            # env() ended the game on an illegal action: the rules' state never ended, the env did
            # (every agent terminated and truncated, as TerminateIllegalWrapper leaves them)
            sl = self.state_layout.slices
            x[sl["to_act"]] = 0.0
            x[sl["ended"]] = (1.0, 1.0)
        return x

    def decode_state(self, vector: np.ndarray) -> dict[str, list[int]]:
        """The card census a state vector encodes, zone by zone as ``rules.zones`` names them
        (``card_envs.encoding.CardCensus.decode``)."""
        return self._state_codec.decode(vector)

    # ------------------------------------------------------------------------ action names
    def _name(self, action: int) -> str:
        return self.rules.action_to_string(self.game_state, int(action))

    def action_to_string(self, action: int) -> str:
        """The action's name in the current phase, e.g. ``"replace 4"`` or ``"play 2x9"``."""
        return self._name(self._check_range(action))

    def public_action_to_string(self, action: int) -> str:
        """What every seat sees of ``action``, about to be applied by the agent to act: its name
        (:meth:`action_to_string`) where the action is made in the open, or, for a hidden choice
        (a Collector or Hot commitment, a Fiddlesticks swap pick), what the table saw instead
        (``"commits"``). Anything shown to a seat other than the actor uses this."""
        return self.rules.public_action(self.game_state, self._check_range(action))

    def reveals_choices(self, action: int) -> bool:
        """Whether applying ``action`` (by the agent to act) makes every hidden choice made so far
        public, so that what each seat chose may be named to everyone: in Collector and Hot the
        last commitment of a phase, in Fiddlesticks the last swap pick (each seat's picks show as
        its face-up cards, though not their order). A game whose choices are all made in the open
        has none (its rules need no ``reveals_choices``)."""
        reveals = getattr(self.rules, "reveals_choices", None)
        return bool(reveals(self.game_state, self._check_range(action))) if reveals is not None else False

    def string_to_action(self, text: str) -> int:
        """The action index of a name (as :meth:`action_to_string` spells it) in the current phase."""
        if not isinstance(text, str):
            raise ValueError(f"an action name must be a str, got {type(text).__name__}")
        try:
            return int(self.rules.string_to_action(self.game_state, text))
        except ValueError:
            # the constant-style spelling works too: "DRAW_STOCK", "REPLACE(4)", "PLAY(r,k)"
            spec_style = " ".join(text.replace("_", " ").replace("(", " ").replace(")", " ").replace(",", " ").split())
            if spec_style != text:
                try:
                    return int(self.rules.string_to_action(self.game_state, spec_style))
                except ValueError:
                    pass
            raise

    def legal_action_names(self) -> list[str]:
        """Names of the legal actions of the agent to act."""
        return [self._name(a) for a in np.flatnonzero(self._legal_mask())] if not self._done else []

    # -------------------------------------------------------------------------- rendering
    def render(self) -> str | np.ndarray | None:
        """The table, in ``render_mode``:

        * ``"ansi"`` returns, and ``"human"`` prints, the text of the table as the agent to act
          sees it (only what that seat may know; :meth:`render_state` shows everything);
        * ``"rgb_array"`` returns an ``(H, W, 3)`` uint8 picture of the table as a spectator sees
          it: only what every seat can see (face-down cards as backs, hands as backs unless the
          rules show them), the piles, the scores, whose turn and the last action
          (:mod:`card_envs.pictures`). Its size is fixed per configuration, so frames make a video.
        """
        if self.render_mode is None:
            EnvLogger.warn("You are calling render method without specifying any render mode.")
            return None
        if self.game_state is None:
            raise ResetNeededError("reset() needs to be called before render.")
        if self.render_mode == "rgb_array":
            from card_envs.pictures import render_picture

            return render_picture(self)
        text = self.render_view(self.agent_selection)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def render_view(self, agent: str, mode: str = "ansi") -> str | np.ndarray:
        """The table as ``agent`` sees it: its own private cards, and nothing hidden from it.

        ``mode="ansi"`` (default) gives text; ``mode="rgb_array"`` the picture (the spectator's
        picture with this seat's own cards face up).
        """
        if self.game_state is None:
            raise ResetNeededError("reset() needs to be called before render.")
        if agent not in self._seat:
            raise ValueError(f"unknown agent {agent!r}; agents are {self.possible_agents}")
        if mode == "rgb_array":
            from card_envs.pictures import render_picture

            return render_picture(self, agent)
        if mode != "ansi":
            raise ValueError(f"render_view mode must be 'ansi' or 'rgb_array', got {mode!r}")
        return self._render_view(self.game_state, self._seat[agent])

    def render_state(self) -> str:
        """Every card on the table, hidden ones included: for debugging, never for a player."""
        if self.game_state is None:
            raise ResetNeededError("reset() needs to be called before render.")
        return self._render_state(self.game_state)

    def close(self) -> None:
        pass

    # ---------------------------------------------------------------------------- copies
    def __getstate__(self) -> dict[str, Any]:
        """Pickling, ``copy.deepcopy`` and cloudpickle keep the whole environment.

        The copy has the same configuration, the same behaviour (``env()``'s: an illegal action
        ends the game with -1; ``raw_env()``'s: it raises), the same random generator state and
        the running game, so it continues that game exactly as the original would. (PettingZoo's
        classic environments pickle through ``EzPickle``, which rebuilds from the constructor's
        arguments: that loses ``env()``'s behaviour and the running game, so this class does not
        use it.)
        """
        return self.__dict__.copy()

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.__dict__.setdefault("_illegal_end", False)

    def __str__(self) -> str:
        return self.metadata["name"]


def env_constructors(raw_cls: type[CardGameEnv]):
    """``env()`` and ``raw_env()`` for a game module, PettingZoo's module convention.

    ``env()`` is ``raw_env()`` with the classic wrappers' behaviour switched on natively.
    """

    def env(render_mode: str | None = None, **options: Any) -> CardGameEnv:
        e = raw_cls(render_mode=render_mode, **options)
        e._checked = True
        return e

    env.__doc__ = (f"The {raw_cls.metadata['name']} environment, as PettingZoo's classic environments behave: an "
                   "illegal action ends the game with -1 for the mover (and a warning), an action out of range or "
                   "acting before ``reset()`` is an error. ``render_mode``: None, ``\"human\"``, ``\"ansi\"`` or "
                   "``\"rgb_array\"``; ``options``: the game's options (its page's Arguments), each with its default.")
    return env, raw_cls


def state_module(env_cls: type) -> Any:
    """The state module of a game: ``<package>/state.py`` beside the environment's module."""
    from card_envs.contract import part

    return part(env_cls, "state")


def add_parallel_state(parallel_cls: type) -> type:
    """Give a parallel environment class over an AEC one (``self.aec``) its ``state()`` and
    ``state_space``: the AEC environment's, which the parallel steps drive."""

    def state(self) -> np.ndarray:
        if self.aec.game_state is None:
            raise ResetNeededError("reset() needs to be called before state.")
        return self.aec.state()

    state.__doc__ = CardGameEnv.state.__doc__
    parallel_cls.state = state
    parallel_cls.state_space = property(lambda self: self.aec.state_space, doc=CardGameEnv.state_space.__doc__)
    parallel_cls.state_layout = property(lambda self: self.aec.state_layout, doc=CardGameEnv.state_layout.__doc__)
    parallel_cls.decode_state = lambda self, vector: self.aec.decode_state(vector)
    return parallel_cls


def state_doc(title: str, table: str) -> str:
    """The environment docs' paragraph on :meth:`CardGameEnv.state`, with the layout ``table``."""
    return (
        f"{title}\n\n"
        "`env.unwrapped.state()` is the full-information state of the game: every card where it lies, "
        "the hidden ones included, and everything else that decides what happens next except the random "
        "generator, as a fixed-size float32 vector in `env.unwrapped.state_space` (a `Box`; absolute seats, "
        "not relative ones). It is **privileged**: for centralized critics (CTDE) and oracle-guided training, "
        "never for a policy that plays; no observation contains it, and calling it changes nothing. "
        "`state_layout.split(x)` reads it by segment and `decode_state(x)` gives back the card census "
        "(`rules.zones(state)`: ordered zones as lists in the rules' order, unordered ones sorted). "
        "The parallel API (where a game has one) offers the same `state()` and `state_space`. "
        "Layout at the default table (generated from the game's `state.py`):\n\n" + table
    )


def _entries(box: spaces.Box) -> str:
    return f"entries in [{float(box.low.min()):g}, {float(box.high.max()):g}]"


def environment_doc(doc: str, raw_cls: type, benchmark: dict, state: Any, parallel: bool = False) -> str:
    """A game's module docstring (its documentation page) with the generated parts filled in from
    the environment itself, at the default table (``env()`` with no options), so that the page
    shows exactly what a user gets:

    * ``{properties}``: the rows of the header table after Import and Agents: the action and
      observation spaces with their concrete shapes and value ranges (and the observation's shape
      at the benchmark table), the parallel API, the batched engine and the PettingZoo registry id
      (``pettingzoo.make("aec", id)``);
    * ``{layout}``: the observation layout, segment by segment;
    * ``{state}``: the section on the privileged global state, with its layout (``state`` is the
      game's state module).
    """
    name = raw_cls.metadata["name"]
    env = raw_cls()
    agent = env.possible_agents[0]
    obs = env.observation_space(agent)
    box, mask = obs["observation"], obs["action_mask"]
    bench = raw_cls(**benchmark).observation_space(agent)["observation"].shape
    registry = "card_envs/" + name.replace("_v", "-v")
    rows = [
        f"| Action space | `{env.action_space(agent)}` |",
        f"| Observation space | `Dict(\"observation\": Box({box.shape}, float32), \"action_mask\": Box(0, 1, "
        f"{mask.shape}, int8))` at the default table ({len(env.possible_agents)} seats), observation {_entries(box)} "
        f"(`{bench}` at the benchmark table) |",
        f"| Parallel API | {f'yes: `{name}.parallel_env()`' if parallel else 'no'} |",
        f"| Batched engine | `{name}.vector_env(num_envs, **options)` (the `vector` extra) |",
        f"| Registry id | `{registry}` |",
    ]
    layout = env.observation_layout
    state_table = state.table(env.rules)
    return (doc.replace("{properties}", "\n".join(rows))
            .replace("{layout}", f"The layout at the default table (`{name}.env()`: {layout.size} floats, generated "
                                 f"from the game's view):\n\n" + layout.table())
            .replace("{state}", state_doc("## State (privileged)", state_table)))

