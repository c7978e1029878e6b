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

Beside the package, a game has its test cases (``tests/cases/<game>.py``: the configurations the
conformance suite runs, the rare branches the hidden-information process must reach) and, in the
``agents`` package, its heuristic (``agents/heuristics/<game>.py``).
"""

from __future__ import annotations

import importlib
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
