"""The per-game contract: everything a game provides, written once.

A game is one folder, ``card_envs/<game>/``, of modules with fixed names, and one module
``card_envs/<game>_v0.py`` (PettingZoo's naming) listed in :data:`card_envs.ENVIRONMENTS`. The
shared code finds each part through :func:`part` (never by spelling the path itself), and the
conformance suite (``tests/conformance/test_contract.py``) checks every registered game against
the protocols below. The documentation's "adding a game" page is the checklist.

=============  ==========================================  ====================================
module         provides                                    its shared half (the code using it)
=============  ==========================================  ====================================
``rules``      the rules class (:class:`Rules`) and its    ``schema.py`` (the state's fields,
               state (:class:`GameState`): pure Python,    declared once); ``base.py``, search
               the whole game, no PettingZoo               agents, the kernels' reference
``view``       :class:`ViewModule`: ``view(state, seat)``  ``views.py`` (readable views) and
               is the only filter of hidden information;   ``encoding.py`` (layouts, codecs);
               the observation layout and its ``Codec``    ``base.py`` reads it; heuristics
``state``      :class:`StateModule`: the full-information  ``base.CardGameEnv.state()``
               ``state()`` vector's codec and its table    (privileged)
``env``        the env class (``raw_env``, a               ``base.py`` (``CardGameEnv``, the
               ``CardGameEnv`` naming ``Rules`` and        one AEC env); ``<game>_v0.py``
               ``View``), its docs, ``BENCHMARK_CONFIG``
``kernels``    :class:`KernelsModule`: the batched twin    ``vector.py`` (``vector_env``, the
               of the rules over fixed-shape arrays        one batched env)
``picture``    :class:`PictureModule`: the table as a      ``pictures.py`` (the drawing)
               scene to draw (spectator or one seat)
``worlds``     :class:`WorldsModule`: ``sample_world``,    ``determinization.py`` (the
               full states consistent with one             plumbing); search agents (PIMC,
               observation                                 ISMCTS)
=============  ==========================================  ====================================

The shared modules keep their own names rather than the per-game ones (``base.py`` for
``env.py``, ``vector.py`` for ``kernels.py``, ``pictures.py`` for ``picture.py``, ...):
``card_envs.base``, ``card_envs.vector`` and ``card_envs.pictures`` are imported by users and
named in the documentation, so renaming them for symmetry would break imports without changing
what anything does. This table is where the two sides pair.

Beyond the protocols' members, the shared code needs a few things of a game that only a check can
name: the full-information state's layout has the segments ``to_act`` and ``ended`` (an env ends
a game on an illegal action by writing them); a kernels class built on
:class:`card_envs.vector.GameKernels` sets ``CURRENT`` (the ``row`` field of the seat to act) and
``LOWER_IS_BETTER`` and defines ``points`` (it inherits ``current`` and ``results``); the kernels
module declares its configuration array as ``CONFIG`` (a :class:`card_envs.schema.ConfigArray`,
the kernels' ``cfg``); the rules module declares its state as ``STATE`` (a
:class:`card_envs.schema.StateSchema`); the env module declares :data:`ENV_DECLARES`.
:func:`check` lists everything a game lacks, every member by name, at once
(``tests/conformance/test_contract.py`` runs it first).

Beside the package, a game has its test cases (``tests/cases/<game>.py``: the configurations the
conformance suite runs, the rare branches the hidden-information process must reach) and its
rules page (``docs/rules/<game>.md``); a heuristic (``agents/heuristics/<game>.py``) is optional.
"""

from __future__ import annotations

import difflib
import importlib
import importlib.util
import inspect
from functools import lru_cache
from types import ModuleType
from typing import Any, Iterable, Mapping, Protocol, runtime_checkable

import numpy as np

#: the modules of a game's folder, in the order above
PARTS = ("rules", "view", "state", "env", "kernels", "picture", "worlds")


@runtime_checkable
class GameState(Protocol):
    """A game in progress (the rules' state object)."""

    current_player: int  # the seat to act, -1 once the game is over
    terminated: bool
    truncated: bool

    def copy(self) -> "GameState":
        """An independent copy (search and the tests mutate copies)."""


@runtime_checkable
class Rules(Protocol):
    """A game's rules, built from its options (``Rules(**options)``; a ValueError names a bad one)."""

    name: str  # the environment's name, "golf_v0"
    num_players: int
    num_actions: int
    reward_mode: str  # "rank" or "score"
    config: Any  # the checked options (a dataclass)

    def deck(self) -> list[int]:
        """The first deal's multiset of cards (a stacked deck must match it)."""

    def new_game(self, rng: np.random.Generator, deck: list[int] | None) -> GameState:
        """A new game: ``deck`` (card ints, top first) stacks the first deal, None shuffles with ``rng``."""

    def legal_mask(self, state: GameState) -> np.ndarray:
        """int8 mask of the seat to act; never depends on a card that seat cannot see."""

    def apply(self, state: GameState, action: int) -> list[float] | None:
        """Apply a legal action in place; the step's score-mode rewards (zero-sum), or None."""

    def scores(self, state: GameState) -> list:
        """Every seat's game points."""

    def ranks(self, state: GameState) -> list[int]:
        """Every seat's competition rank (1 = best)."""

    def action_to_string(self, state: GameState | None, action: int) -> str:
        """The action's name in this state's phase."""

    def string_to_action(self, state: GameState | None, text: str) -> int:
        """The action a name spells (a ValueError lists the names)."""

    def public_action(self, state: GameState | None, action: int) -> str:
        """What every seat sees of an action about to be applied: its name, or what the table saw
        of a hidden choice ("commits")."""

    def zones(self, state: GameState) -> dict[str, list[int]]:
        """Every card, each in exactly one zone."""

    def reveals(self, state: GameState, action: int, seat: int) -> Any:
        """Whether applying ``action`` turns up, to ``seat``, something it could not see (False,
        True, or a value describing the public outcome the revealed cards decide)."""


@runtime_checkable
class Codec(Protocol):
    """Observation vectors of one configuration's views, and back."""

    def encode(self, view: Any) -> np.ndarray: ...

    def decode(self, vector: np.ndarray) -> Any: ...


@runtime_checkable
class ViewModule(Protocol):
    """``card_envs/<game>/view.py``: what one player may know, and its observation vector."""

    PlayerView: type

    def Codec(self, rules: Rules) -> Codec: ...  # noqa: N802  (a class in the module)

    def layout(self, rules: Rules) -> Any:
        """The observation's :class:`card_envs.encoding.Layout` for this configuration."""

    def view(self, state: GameState, seat: int) -> Any:
        """What ``seat`` may know of ``state``: the only place hidden information is filtered."""

    def render(self, view: Any) -> str:
        """The table as the view's seat sees it, as text, from the view alone."""

    def render_state(self, state: GameState) -> str:
        """Every card, hidden ones included (debugging only)."""


@runtime_checkable
class StateModule(Protocol):
    """``card_envs/<game>/state.py``: the full-information ``state()`` vector."""

    def Codec(self, rules: Rules) -> Any: ...  # noqa: N802  (layout, encode(state), decode(vector))

    def table(self, rules: Rules) -> str:
        """The layout as a documentation table."""


@runtime_checkable
class Kernels(Protocol):
    """The batched twin of the rules for one configuration, over fixed-shape arrays (one row a game)."""

    num_players: int
    num_actions: int
    obs_size: int

    def allocate(self, n: int) -> dict: ...

    def new_games(self, arrays: dict, rows: np.ndarray, decks: np.ndarray | None) -> None: ...

    def step(self, arrays: dict, actions: np.ndarray, rewards: np.ndarray, terminated: np.ndarray,
             truncated: np.ndarray) -> None: ...

    def legal(self, arrays: dict, mask: np.ndarray) -> None: ...

    def encode(self, arrays: dict, rows: np.ndarray, seats: np.ndarray, out: np.ndarray) -> None: ...

    def current(self, arrays: dict, out: np.ndarray) -> None: ...

    def results(self, arrays: dict, rows: np.ndarray, scores: np.ndarray, ranks: np.ndarray) -> None: ...

    def dump(self, arrays: dict, i: int) -> GameState: ...

    def load(self, arrays: dict, i: int, state: GameState) -> None: ...


@runtime_checkable
class KernelsModule(Protocol):
    """``card_envs/<game>/kernels.py``."""

    def Kernels(self, rules: Rules) -> Kernels: ...  # noqa: N802  (a class in the module)


@runtime_checkable
class PictureModule(Protocol):
    """``card_envs/<game>/picture.py``: the table as a scene :mod:`card_envs.pictures` draws."""

    def scene(self, rules: Rules, state: GameState, observer: int, private: bool) -> Any:
        """The table through ``observer``'s view; ``private=False`` leaves out what only that
        seat sees, which leaves what every seat (a spectator) sees."""


@runtime_checkable
class WorldsModule(Protocol):
    """``card_envs/<game>/worlds.py``: determinization."""

    def sample_world(self, observation: Any, rng: np.random.Generator, **options: Any) -> GameState:
        """A full state in the observer's frame whose view encodes to ``observation``, the unseen
        cards drawn from the posterior it leaves."""


@runtime_checkable
class GameModule(Protocol):
    """``card_envs/<game>_v0.py``: the environment's public module (PettingZoo's convention)."""

    BENCHMARK_CONFIG: Mapping[str, Any]  # the table the benchmarks and the baselines play

    def env(self, **options: Any) -> Any: ...

    def raw_env(self, **options: Any) -> Any: ...

    def vector_env(self, num_envs: int = 1024, **options: Any) -> Any: ...

    def sample_world(self, observation: Any, rng: np.random.Generator, **options: Any) -> GameState: ...


#: the protocol each part of a game's folder keeps (``env`` is checked through :class:`GameModule`)
PART_PROTOCOLS: dict[str, type] = {
    "view": ViewModule,
    "state": StateModule,
    "kernels": KernelsModule,
    "picture": PictureModule,
    "worlds": WorldsModule,
}


def game_of(thing: str | Any) -> str:
    """The game's short name (``"golf"``) of ``"golf_v0"`` or ``"golf"``, of a module of the game,
    or of an env class or instance (a subclass defined elsewhere, e.g. in a test, counts as the
    game it subclasses)."""
    if isinstance(thing, str):
        return thing.rsplit("_v", 1)[0]
    if isinstance(thing, ModuleType):
        modules = [thing.__name__]
    else:
        cls = thing if isinstance(thing, type) else type(thing)
        modules = [c.__module__ for c in cls.__mro__]
    for name in modules:
        parts = name.split(".")
        if len(parts) >= 2 and parts[0] == "card_envs" and parts[1].rsplit("_v", 1)[0] in games():
            return parts[1].rsplit("_v", 1)[0]
    raise ValueError(f"{thing!r} is not part of a card_envs game")


def part(game: str | Any, name: str) -> ModuleType:
    """The module ``name`` (one of :data:`PARTS`) of ``game`` (``"golf"``, ``"golf_v0"``, or
    anything :func:`game_of` takes): ``card_envs.<game>.<name>``."""
    if name not in PARTS:
        raise ValueError(f"unknown part {name!r} of a game; parts: {', '.join(PARTS)}")
    return _part(game_of(game), name)


@lru_cache(maxsize=None)
def _part(game: str, name: str) -> ModuleType:
    return importlib.import_module(f"card_envs.{game}.{name}")


def games() -> Iterable[str]:
    """The registered games' short names (``"golf"``, ...), in registry order."""
    import card_envs

    return tuple(game_of(name) for name in card_envs.ENVIRONMENTS)


# ------------------------------------------------------------------------------ the check
def members(protocol: type) -> list[str]:
    """The public members a protocol names: its methods and its annotated attributes."""
    names: list[str] = []
    for cls in reversed(protocol.__mro__):
        if cls in (object, Protocol) or cls.__module__ == "typing":
            continue
        for name in list(vars(cls).get("__annotations__", {})) + list(vars(cls)):
            if not name.startswith("_") and name not in names:
                names.append(name)
    return names


def _positional(fn: Any) -> tuple[int, int]:
    """How many positional parameters ``fn`` requires, and how many it takes."""
    params = [p for p in inspect.signature(fn).parameters.values() if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return sum(p.default is p.empty for p in params), len(params)


def lacks(obj: Any, protocol: type, where: str) -> list[str]:
    """What ``obj`` lacks of ``protocol``, one line a member, each saying where (``where``):
    a missing member (with the name it has that is closest, where one is: a misnamed member),
    and a function whose positional parameters cannot be called as the protocol's are (more
    required, or fewer taken; extra optional parameters are allowed)."""
    problems = []
    wanted = members(protocol)
    present = [n for n in dir(obj) if not n.startswith("_") and n not in wanted]  # a member the contract does not name
    for name in wanted:
        if not hasattr(obj, name):
            close = difflib.get_close_matches(name, present, n=1, cutoff=0.7)
            hint = f" (it has {close[0]!r}: misnamed?)" if close else ""
            problems.append(f"{where}: missing {name}{hint}")
            continue
        want = getattr(protocol, name, None)
        have = getattr(obj, name)
        if inspect.isfunction(want) and callable(have) and not inspect.isclass(have):
            expected = _positional(want)[1] - 1  # the protocol's self
            try:
                required, taken = _positional(have)
            except (TypeError, ValueError):  # a builtin without a signature: not checked
                continue
            if not required <= expected <= taken:
                problems.append(f"{where}: {name} takes {required}..{taken} positional parameters, the contract {expected}")
    return problems


def _load(game: str, name: str, problems: list[str]) -> ModuleType | None:
    try:
        return part(game, name)
    except ModuleNotFoundError as e:
        if e.name == f"card_envs.{game}.{name}":
            problems.append(f"card_envs/{game}/{name}.py: missing (the module of the game's folder for {name})")
        else:
            problems.append(f"card_envs/{game}/{name}.py: importing it failed: {e}")
    except Exception as e:  # noqa: BLE001  a module that fails to import is reported, not raised
        problems.append(f"card_envs/{game}/{name}.py: importing it failed: {type(e).__name__}: {e}")
    return None


def check(game: str) -> list[str]:
    """Everything ``game`` (``"golf"``) lacks of the contract, one line each, every member by name
    (an empty list: the game keeps it). The kernels are checked where numba is installed."""
    import card_envs

    game = game_of(game)
    public = card_envs.ENVIRONMENTS.get(f"{game}_v0")
    if public is None:
        return [f"{game}_v0 is not registered: add {game!r} to card_envs.REGISTERED (card_envs/__init__.py)"]
    problems = lacks(public, GameModule, f"card_envs/{game}_v0.py")
    modules = {name: _load(game, name, problems) for name in PARTS}
    problems += _modules_lack(game, modules)
    return problems + _table_lacks(game, public, modules)


#: what a game's env module declares beside ``raw_env``, for the tables that list every game
ENV_DECLARES = {
    "BENCHMARK_CONFIG": "the table the speed benchmarks, the benchmark protocol and training play",
    "PLAYERS": "how many players, for the README's games table (e.g. \"2–4\")",
    "SUMMARY": "the game in one line, for the README's games table",
}


def _modules_lack(game: str, modules: dict[str, ModuleType | None]) -> list[str]:
    """What the modules of the game's folder lack, by their protocols and beyond."""
    from card_envs.base import CardGameEnv
    from card_envs.schema import ConfigArray, StateSchema

    problems = []
    env = modules["env"]
    if env is not None:
        raw = getattr(env, "raw_env", None)
        if not (isinstance(raw, type) and issubclass(raw, CardGameEnv)):
            problems.append(f"card_envs/{game}/env.py: raw_env must be a card_envs.base.CardGameEnv subclass")
        elif raw.View is not modules["view"]:
            problems.append(f"card_envs/{game}/env.py: raw_env.View must be the game's view module (card_envs.{game}.view)")
        problems += [f"card_envs/{game}/env.py: missing {name} ({meaning})"
                     for name, meaning in ENV_DECLARES.items() if not hasattr(env, name)]
    if modules["rules"] is not None and not isinstance(getattr(modules["rules"], "STATE", None), StateSchema):
        problems.append(f"card_envs/{game}/rules.py: missing STATE, the state declared once (a card_envs.schema.StateSchema)")
    for name, protocol in PART_PROTOCOLS.items():
        if modules[name] is not None and (name != "kernels" or _has_numba()):
            problems += lacks(modules[name], protocol, f"card_envs/{game}/{name}.py")
    if modules["kernels"] is not None and not isinstance(getattr(modules["kernels"], "CONFIG", None), ConfigArray):
        problems.append(f"card_envs/{game}/kernels.py: missing CONFIG, the configuration array (a "
                        "card_envs.schema.ConfigArray; the kernels' cfg is CONFIG.array(rules))")
    return problems


def _table_lacks(game: str, public: ModuleType, modules: dict[str, ModuleType | None]) -> list[str]:
    """What the game's objects at one table (its BENCHMARK_CONFIG) lack: the rules, a state, the
    view's and the state's codecs, the kernels."""
    try:
        rules = public.raw_env.Rules(**public.BENCHMARK_CONFIG)
        state = rules.new_game(np.random.default_rng(0), None)
    except Exception as e:  # noqa: BLE001  reported with the rest
        return [f"card_envs/{game}/rules.py: the rules at BENCHMARK_CONFIG fail to start a game: {type(e).__name__}: {e}"]
    problems = lacks(rules, Rules, f"card_envs/{game}/rules.py (the rules)")
    problems += lacks(state, GameState, f"card_envs/{game}/rules.py (the state)")
    if getattr(rules, "name", None) != f"{game}_v0":
        problems.append(f"card_envs/{game}/rules.py: the rules' name must be {game}_v0, got {getattr(rules, 'name', None)!r}")
    for name, what in (("view", "Codec"), ("state", "Codec"), ("kernels", "Kernels")):
        module = modules[name]
        if module is None or not callable(getattr(module, what, None)) or (name == "kernels" and not _has_numba()):
            continue
        try:
            made = getattr(module, what)(rules)
        except Exception as e:  # noqa: BLE001
            problems.append(f"card_envs/{game}/{name}.py: {what}(rules) fails: {type(e).__name__}: {e}")
            continue
        if name == "view":
            problems += lacks(made, Codec, f"card_envs/{game}/view.py (Codec)")
        elif name == "state":
            problems += _state_lacks(game, made)
        else:
            problems += _kernels_lack(game, made)
    return problems


def _state_lacks(game: str, codec: Any) -> list[str]:
    segments = getattr(getattr(codec, "layout", None), "by_name", None)
    if segments is None:
        return [f"card_envs/{game}/state.py (Codec): missing layout, the state's card_envs.encoding.Layout"]
    return [f"card_envs/{game}/state.py: the state layout needs a segment {segment!r} ({meaning})"
            for segment, meaning in (("to_act", "one-hot seat to act"), ("ended", "[terminated, truncated]"))
            if segment not in segments]


def _kernels_lack(game: str, kernels: Any) -> list[str]:
    from card_envs.vector import GameKernels

    where = f"card_envs/{game}/kernels.py"
    problems = lacks(kernels, Kernels, f"{where} (Kernels)")
    if not hasattr(kernels, "cfg"):
        problems.append(f"{where} (Kernels): missing cfg, the configuration (CONFIG.array(rules))")
    if isinstance(kernels, GameKernels):
        cls = type(kernels)
        for name, meaning in (("CURRENT", "the row field of the seat to act"),
                              ("LOWER_IS_BETTER", "whether fewer points rank first")):
            if not hasattr(cls, name):
                problems.append(f"{where} (Kernels): missing {name} ({meaning}), which the inherited current and "
                                "results read")
        if cls.points is GameKernels.points:
            problems.append(f"{where} (Kernels): missing points(arrays), each seat's game points, which the "
                            "inherited results read")
    return problems


def _has_numba() -> bool:
    return importlib.util.find_spec("numba") is not None
