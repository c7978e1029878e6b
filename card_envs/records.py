"""Game records: one game per line of a JSON Lines file, replayed bit for bit.

    from card_envs import records
    line = records.record("golf_v0", ["heuristic", "random"], {"num_players": 2, "num_rounds": 1}, seed=7)
    records.write("games.jsonl", [line])
    env = records.replay(records.read("games.jsonl")[0], step=10)   # the table after 10 actions
    env.unwrapped.render_state()

    python -m training.evaluate golf heuristic random --games 100 --save-games games.jsonl
    python -m agents.play golf_v0 --save-games mine.jsonl
    python -m card_envs.records show games.jsonl --game 3 --seat player_0   # or --spectator, --full
    python -m card_envs.records check games.jsonl

A record holds what it takes to play the game again: the environment and its options, the seed
(and the stacked deck, if one was used) given to ``reset``, and every action in order. Replaying
builds ``env(**options)``, resets it the same way and applies the actions; the environment is
deterministic (``reset(seed)`` then the same actions give the same trajectory), so every
observation, mask, reward and info of the replay is the original's, byte for byte.

A record is what was played, or it is refused. Two things tie it to the game:

- the **trace**: the full-information ``state()`` and the random generator's state after the
  reset and after every action, hashed in order as the game is recorded (a running BLAKE2b digest: a short code per step, the whole
  digest at the end). The replay recomputes it and stops at the first step whose state is not the
  recorded one: a seed or a deck edited, an action swapped for another legal one, a record of
  another library version whose rules changed;
- the **checksum**: SHA-256 of every field but ``meta`` (free-form: edit it at will) and the
  checksum itself, so an edit anywhere else is refused when the line is read, before any replay.
  A line must also be exactly as the writer wrote it (compact JSON): a line that parses to the
  same values but is spelled otherwise is refused too.

The rest of the record is checked as well: each action's name and actor, the end, the scores,
ranks and rewards, the agent specs (each one the library can parse, or null). Every refusal is a
ValueError that names the first field or action where the line departs from the game; an edited
line also says that its checksum does not match. :func:`parse` checks a line's form and checksum
(what :func:`read` does for a file); :func:`check` and ``python -m card_envs.records check`` also
replay it in full. A record written by another library version replays with a warning naming
both versions (and, if its game no longer replays, the error names them too). Records of
``format_version`` 1 (written before the trace and checksum) still read and replay, with a
warning that only their actions and results can be checked.

Format (``format_version`` 2), one JSON object per line, fields in this order:

==================  =====================  ====================================================
field               type                   meaning
==================  =====================  ====================================================
``format``          str                    ``"card_envs.records"``
``format_version``  int                    ``1``; a reader refuses a version it does not know
``library_version`` str                    ``card_envs.__version__`` of the writer
``env``             str                    the environment's ``metadata["name"]``, its version
                                           in the suffix (``"golf_v0"``)
``options``         object                 the table's options, as passed to ``env(**options)``
``seed``            int >= 0               ``env.reset(seed=seed, ...)``; with a stacked deck it
                                           still draws what the deck does not fix (the dealer,
                                           later rounds' shuffles)
``deck``            list[str] or null      the stacked deck, top card first, in the cards.py
                                           notation (``"As"``, ``"Td"``, ``"RJ"``): ``reset(seed=
                                           seed, options={"deck": deck})``; null: shuffled
``agents``          list[str|null] or null each seat's agent spec (``agents.load``), in seat
                                           order; null where unknown (a person, an object)
``actions``         list[list]             every action in the order played, each
                                           ``[actor, action, name]``: ``["player_1", 6, "draw
                                           stock"]``, the seat that acted, the action's index,
                                           its name (``env.unwrapped.action_to_string`` just
                                           before the step)
``end``             str                    ``"terminated"``, ``"truncated"`` (the game's own
                                           cut-off) or ``"illegal"`` (the last action was illegal:
                                           ``env()`` ended the game, -1 for its actor)
``scores``          list or null           each seat's final ``infos[agent]["score"]``; null
                                           after an illegal action (no scores are given then)
``ranks``           list[int] or null      each seat's final ``infos[agent]["rank"]`` (1 = best)
``rewards``         list[float] or null    each seat's total reward of the game: the sum of
                                           every reward ``env.last()`` gave it; null when the
                                           writer did not count them
``trace``           str                    4 hex digits per step (the reset, then each action):
                                           the first digits of the running BLAKE2b-128 digest of
                                           every ``state()`` (and generator state) so far
``digest``          str                    the running digest after the last step, 32 hex digits
``meta``            object (optional)      anything the writer adds (``source``, ``deal``,
                                           ``game``); never checked, not in the checksum
``checksum``        str                    SHA-256 (64 hex digits) of the line's other fields but
                                           ``meta``, as compact JSON in this order
==================  =====================  ====================================================

A line missing a field, holding an unknown one, a value of the wrong type, an unknown
environment or format version is a ValueError naming the field; so is a replay that does not
match (see :func:`steps`). The writers (:func:`record`, ``training.evaluate --save-games``,
``agents.play --save-games``) all go through :class:`Recorder`, so there is one format writer.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import pickle
import sys
import warnings
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Mapping, Sequence, TextIO

import numpy as np

FORMAT = "card_envs.records"
FORMAT_VERSION = 2
#: the format versions this library reads (1: no trace, digest or checksum)
READ_VERSIONS = (1, 2)
ENDS = ("terminated", "truncated", "illegal")
FIELDS_V1 = ("format", "format_version", "library_version", "env", "options", "seed", "deck", "agents",
             "actions", "end", "scores", "ranks", "rewards")
#: the fields the checksum seals, in the line's order; ``meta`` and ``checksum`` follow them
FIELDS = FIELDS_V1 + ("trace", "digest")
OPTIONAL_FIELDS = ("meta",)
SEAL = "checksum"
#: hex digits of the running digest kept per step in ``trace``
TRACE_DIGITS = 4


# -------------------------------------------------------------------------------- helpers
def _environments() -> dict:
    import card_envs

    return card_envs.ENVIRONMENTS


def _library_version() -> str:
    import card_envs

    return card_envs.__version__


def _env_name(name: Any) -> str:
    """``"golf"`` or ``"golf_v0"`` -> ``"golf_v0"``; anything else is a ValueError naming them."""
    envs = _environments()
    if isinstance(name, str):
        if name in envs:
            return name
        if f"{name}_v0" in envs:
            return f"{name}_v0"
        base = name.rsplit("_v", 1)[0]
        known = [n for n in envs if n.rsplit("_v", 1)[0] == base]
        if known:
            raise ValueError(f"environment {name!r} is not in card_envs {_library_version()}, which has "
                             f"{', '.join(known)} (another version of the environment)")
    raise ValueError(f"unknown environment {name!r}; environments: {', '.join(envs)}")


def new_seed() -> int:
    """A fresh seed (from the operating system's entropy) for a game that must be replayable."""
    # 53 bits: a JSON number every reader holds exactly (JavaScript's are doubles)
    return int(np.random.SeedSequence().generate_state(1, np.uint64)[0]) >> 11


def _plain(x: Any) -> Any:
    """Numbers, strings, lists and dicts as JSON has them (numpy scalars and tuples converted)."""
    if isinstance(x, dict):
        return {str(k): _plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    if isinstance(x, np.ndarray):
        return _plain(x.tolist())
    if isinstance(x, (bool, np.bool_)):
        return bool(x)
    if isinstance(x, (int, np.integer)):
        return int(x)
    if isinstance(x, (float, np.floating)):
        return float(x)
    return x


def _dumps(rec: Mapping[str, Any]) -> str:
    try:
        return json.dumps(rec, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError) as e:
        raise ValueError(f"a game record must hold only JSON values (str, int, float, bool, None, lists and "
                         f"objects of them): {e}") from e


_CONFIGS: dict[tuple[str, str], Any] = {}


def _table(env_name: str, options: Mapping[str, Any]):
    """The game's checked config dataclass for ``options`` (cached): the game's ValueError when bad."""
    key = (env_name, json.dumps(options, sort_keys=True, default=repr))
    if key not in _CONFIGS:
        _CONFIGS[key] = _environments()[env_name].raw_env.Rules(**options)
    return _CONFIGS[key]


_TEMPLATES: dict[tuple[str, str, str | None], bytes] = {}


def _new_env(env_name: str, options: Mapping[str, Any], render_mode: str | None = None):
    """A new ``env(**options)``, not yet reset. Built once per table and then unpickled (the
    environment pickles whole, ``CardGameEnv.__getstate__``): about 0.1 ms instead of the ~6 ms
    a construction takes (gymnasium's Box prints its bounds), which matters when a file of
    thousands of games is checked."""
    key = (env_name, json.dumps(options, sort_keys=True), render_mode)
    if key not in _TEMPLATES:
        kwargs = dict(options) if render_mode is None else dict(options, render_mode=render_mode)
        _TEMPLATES[key] = pickle.dumps(_environments()[env_name].env(**kwargs))
    return pickle.loads(_TEMPLATES[key])


def _num_players(rec: Mapping[str, Any]) -> int:
    return int(_table(rec["env"], rec["options"]).num_players)


# ---------------------------------------------------------------------- trace and checksum
class Trace:
    """The running digest of a game: ``state()`` and the random generator's state after the reset
    and after every action, hashed in order (BLAKE2b, 16 bytes). :attr:`codes` keeps
    :data:`TRACE_DIGITS` hex digits per step."""

    def __init__(self):
        self._hash = hashlib.blake2b(b"card_envs.records trace", digest_size=16)
        self.codes: list[str] = []

    def add(self, raw: Any) -> str:
        """Hash the next step of the unwrapped env ``raw``: its ``state()`` and its random
        generator's state (with the state, everything that decides what happens next); its code."""
        self._hash.update(raw.state().tobytes())
        self._hash.update(repr(raw._rng.bit_generator.state).encode("ascii"))
        code = self._hash.hexdigest()[:TRACE_DIGITS]
        self.codes.append(code)
        return code

    @property
    def digest(self) -> str:
        return self._hash.hexdigest()

    @property
    def text(self) -> str:
        return "".join(self.codes)


def checksum(rec: Mapping[str, Any]) -> str:
    """SHA-256 (hex) of a record's sealed fields (every field but ``meta`` and ``checksum``), as
    compact JSON in the format's order."""
    sealed = {k: rec[k] for k in FIELDS}
    return hashlib.sha256(_dumps(sealed).encode("utf-8")).hexdigest()


# -------------------------------------------------------------------------------- writing
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
        trace = Trace.__new__(Trace)  # the running digest so far, plus the last action's state
        trace._hash, trace.codes = self._trace._hash.copy(), list(self._trace.codes)
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
        hook = getattr(p, "start_game", None)
        if callable(hook):
            hook(name, dict(options), a)
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
        hook = getattr(p, "end_game", None)
        if callable(hook):
            hook(final[a][0], float(total[a]), final[a][1])
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


# -------------------------------------------------------------------------------- reading
def _fail(rec: Any, text: str) -> None:
    where = ""
    if isinstance(rec, Mapping) and isinstance(rec.get("env"), str):
        where = f" ({rec['env']}, seed {rec.get('seed')!r})"
    raise ValueError(f"game record{where}: {text}")


def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _is_number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def parse(line: str | bytes | Mapping[str, Any]) -> dict[str, Any]:
    """The record a line (or a record dict) holds, its form and checksum checked: every field
    present, of its type, the environment and the format version known, the options accepted by
    the game, each agent spec one the library can parse, the line exactly as the writer wrote it
    and its checksum matching its fields (only ``meta`` may be edited). A ValueError names the
    first field that is wrong; for an edited line, it says so and replays the game to name the
    first action or field where it departs. (:func:`check` replays every line in full.)"""
    rec = _parse_form(line)
    if rec["format_version"] >= 2 and rec[SEAL] != checksum(rec):
        where = _departure(rec)
        _fail(rec, "the line was edited after it was recorded: its checksum does not match its fields (only "
                   "'meta' may be edited)" + (f"; replaying it: {where}" if where else
                                             "; the game replays as recorded, so the edit is in a field the "
                                             "replay cannot check (agents, library_version, or the checksum)"))
    return rec


def check(line: str | bytes | Mapping[str, Any]) -> dict[str, Any]:
    """The record a line (or a record dict) holds, checked in full: its form and checksum
    (:func:`parse`), then a replay of the whole game (:func:`replay`: every action, every state
    of the trace, the end, scores, ranks and rewards). The first disagreement is a ValueError."""
    rec = parse(line)
    replay(rec)
    return rec


def _departure(rec: dict[str, Any]) -> str | None:
    """Where the game of an edited record departs from it: the replay's error, or None."""
    try:
        for _ in _replay_steps(rec, None, warn=False):
            pass
    except ValueError as e:
        return str(e).split(": ", 1)[-1] if str(e).startswith("game record") else str(e)
    return None


def _parse_form(line: str | bytes | Mapping[str, Any]) -> dict[str, Any]:
    """:func:`parse` but the checksum."""
    text = None
    if isinstance(line, (str, bytes)):
        text = line.decode("utf-8") if isinstance(line, bytes) else line
        try:
            rec = json.loads(line)
        except json.JSONDecodeError as e:
            raise ValueError(f"game record: not a JSON line ({e.msg} at character {e.pos})") from e
    else:
        rec = line
    if not isinstance(rec, Mapping):
        raise ValueError(f"game record: a line must hold a JSON object, got {type(rec).__name__}")
    if rec.get("format") != FORMAT:
        _fail(rec, f"field 'format' must be {FORMAT!r}, got {rec.get('format')!r} (is this a card_envs game record?)")
    version = rec.get("format_version")
    if version not in READ_VERSIONS or not _is_int(version):
        _fail(rec, f"format_version {version!r} is not supported: card_envs {_library_version()} reads "
                   f"format_version {', '.join(map(str, READ_VERSIONS))}")
    fields = FIELDS_V1 if version == 1 else FIELDS + (SEAL,)
    missing = [f for f in fields if f not in rec]
    if missing:
        _fail(rec, f"missing field{'s' if len(missing) > 1 else ''} {', '.join(map(repr, missing))}; "
                   f"a record has {', '.join(fields)} (and optionally meta)")
    unknown = [f for f in rec if f not in fields and f not in OPTIONAL_FIELDS]
    if unknown:
        _fail(rec, f"unknown field{'s' if len(unknown) > 1 else ''} {', '.join(map(repr, unknown))}; "
                   f"a record has {', '.join(fields)} (and optionally meta, for anything else)")
    if not isinstance(rec["library_version"], str):
        _fail(rec, f"field 'library_version' must be a str, got {rec['library_version']!r}")
    try:
        name = _env_name(rec["env"])
    except ValueError as e:
        _fail(rec, f"field 'env': {e}")
    if name != rec["env"]:
        _fail(rec, f"field 'env' must be the environment's full name {name!r}, got {rec['env']!r}")
    if not isinstance(rec["options"], Mapping) or not all(isinstance(k, str) for k in rec["options"]):
        _fail(rec, f"field 'options' must be an object of the game's options, got {rec['options']!r}")
    try:
        n = _num_players(rec)
    except ValueError as e:
        _fail(rec, f"field 'options' is not a {name} table: {e}")
    if not _is_int(rec["seed"]) or rec["seed"] < 0:
        _fail(rec, f"field 'seed' must be an int >= 0 (what reset(seed=...) was given), got {rec['seed']!r}")
    deck = rec["deck"]
    if deck is not None and (not isinstance(deck, list) or not all(isinstance(c, str) for c in deck)):
        _fail(rec, f"field 'deck' must be null or a list of card names (top first), got {deck!r}")
    agents = rec["agents"]
    if agents is not None and (not isinstance(agents, list) or len(agents) != n
                               or not all(a is None or isinstance(a, str) for a in agents)):
        _fail(rec, f"field 'agents' must be null or {n} agent specs (str or null), one per seat, got {agents!r}")
    for seat, spec in enumerate(agents or []):
        if spec is not None and (error := _spec_error(spec)):
            _fail(rec, f"field 'agents': seat {seat}'s spec {spec!r} is not one the library can load: {error}")
    actions = rec["actions"]
    if not isinstance(actions, list):
        _fail(rec, f"field 'actions' must be a list, got {type(actions).__name__}")
    for i, a in enumerate(actions):
        if (not isinstance(a, list) or len(a) != 3 or not isinstance(a[0], str) or not _is_int(a[1])
                or not isinstance(a[2], str)):
            _fail(rec, f"action {i} must be [actor, action, name] (a str, an int, a str), got {a!r}")
    if rec["end"] not in ENDS:
        _fail(rec, f"field 'end' must be one of {', '.join(ENDS)}, got {rec['end']!r}")
    for key, ok, what in (("scores", _is_number, "numbers"), ("ranks", _is_int, "ints"), ("rewards", _is_number, "numbers")):
        v = rec[key]
        if v is not None and (not isinstance(v, list) or len(v) != n or not all(ok(x) for x in v)):
            _fail(rec, f"field {key!r} must be null or {n} {what}, one per seat, got {v!r}")
    if "meta" in rec and not isinstance(rec["meta"], Mapping):
        _fail(rec, f"field 'meta' must be an object, got {rec['meta']!r}")
    if version == 1:
        warnings.warn(f"a {rec['env']} record of format_version 1 has no trace or checksum: its replay checks "
                      "the actions, the end and the results, not every state, and an edit that keeps them is not "
                      "caught", stacklevel=3)
        return dict(rec)
    trace = rec["trace"]
    if not (isinstance(trace, str) and len(trace) % TRACE_DIGITS == 0 and _is_hex(trace)):
        _fail(rec, f"field 'trace' must be {TRACE_DIGITS} hex digits for the deal and for each action, "
                   f"got {_short(trace)}")
    if not (isinstance(rec["digest"], str) and len(rec["digest"]) == 32 and _is_hex(rec["digest"])):
        _fail(rec, f"field 'digest' must be 32 hex digits, got {_short(rec['digest'])}")
    if not (isinstance(rec[SEAL], str) and len(rec[SEAL]) == 64 and _is_hex(rec[SEAL])):
        _fail(rec, f"field 'checksum' must be 64 hex digits (SHA-256), got {_short(rec[SEAL])}")
    order = [k for k in rec if k != "meta"]
    if order != list(FIELDS) + [SEAL] or (text is not None and _dumps(rec) != text.rstrip("\r\n")):
        _fail(rec, "the line is not as the writer wrote it (compact JSON, the fields in the format's order): "
                   "it was edited")
    return dict(rec)


def _is_hex(text: str) -> bool:
    return all(c in "0123456789abcdef" for c in text)


def _short(x: Any) -> str:
    text = repr(x)
    return text if len(text) <= 60 else text[:57] + "..."


def _spec_error(spec: str) -> str | None:
    """Why ``spec`` is not an agent spec the library can parse (None: it is). Only the spec's
    form is checked (no file is opened, no agent built)."""
    parse_spec = agents_hook("parse_spec")
    if parse_spec is None:  # no agents package installed: the form cannot be checked
        return None
    try:
        parse_spec(spec)
    except ValueError as e:
        return str(e)
    return None


@lru_cache(maxsize=None)
def agents_hook(name: str) -> Callable[..., Any] | None:
    """The agents package's ``name`` (``load`` or ``parse_spec``), found through the
    ``card_envs.agents`` entry points an installed distribution declares (this one's
    ``pyproject.toml``), or None. card_envs itself never imports the agents package."""
    from importlib.metadata import entry_points

    for point in entry_points(group="card_envs.agents"):
        if point.name == name:
            return point.load()
    return None


def read(path: str | os.PathLike) -> list[dict[str, Any]]:
    """The records of a JSON Lines file, in order (blank lines skipped), each line's form and
    checksum checked by :func:`parse` (not replayed: :func:`check_file` replays them); a bad line
    is a ValueError naming the file and the line number."""
    out = []
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                out.append(parse(line))
            except ValueError as e:
                raise ValueError(f"{path} line {number}: {e}") from e
    return out


# ------------------------------------------------------------------------------- replaying
def steps(line: str | Mapping[str, Any], render_mode: str | None = None) -> Iterator[tuple[int, Any]]:
    """Replay a record step by step: yields ``(k, env)`` with the env after its first ``k``
    actions, for ``k = 0`` (just reset) to ``len(actions)`` (the game over). The same env object
    each time, moved on between yields: copy what you keep. It is ``env(**options)`` of the
    record (``render_mode`` as given), so it behaves as the writer's did.

    The line's form and checksum are checked first (:func:`parse`). The deal's state is checked
    against the trace; each action is checked before it is applied (its actor is the agent to
    act, it is legal — the last one may be illegal only in a record that says so, ``end ==
    "illegal"`` — and its name is the one ``action_to_string`` gives now) and the state it leaves
    after (the trace). After the last action: the game is over, ended as recorded, with the
    recorded digest, scores, ranks and rewards. The first disagreement is a ValueError naming the
    action (by its index in ``actions``) or the field, and what the replay found. A record of
    another library version replays with a warning naming both versions.
    """
    yield from _replay_steps(parse(line), render_mode, warn=True)


def _replay_steps(rec: dict[str, Any], render_mode: str | None, warn: bool) -> Iterator[tuple[int, Any]]:
    """:func:`steps` of a record whose form was checked (its checksum need not match)."""
    name = rec["env"]
    if warn and rec["library_version"] != _library_version():
        warnings.warn(f"this {name} record was written by card_envs {rec['library_version']}; this is card_envs "
                      f"{_library_version()}: it replays only if {name}'s rules are the same", stacklevel=3)
    env = _new_env(name, rec["options"], render_mode)
    raw = env.unwrapped
    try:
        env.reset(seed=rec["seed"], options={"deck": rec["deck"]} if rec["deck"] is not None else None)
    except ValueError as e:
        _fail(rec, f"field 'deck': {e}")
    actions = rec["actions"]
    n = len(actions)
    versions = ("" if rec["library_version"] == _library_version() else
                f" (the record was written by card_envs {rec['library_version']}, this is {_library_version()})")
    traced = rec["format_version"] >= 2
    trace = Trace()
    recorded = rec.get("trace", "")

    def check_state(k: int) -> None:
        code = trace.add(raw)
        if not traced or code == recorded[TRACE_DIGITS * k:TRACE_DIGITS * (k + 1)]:
            return
        if k == 0:
            _fail(rec, "the deal departs from the recorded game: the state after reset is not the one recorded "
                       f"(field 'seed' or 'deck' is not the game's){versions}")
        actor, action, text = actions[k - 1]
        _fail(rec, f"action {k - 1} ({actor}: {action} {text!r}): the state after it departs from the recorded "
                   f"game (the trace differs from here){versions}")

    seats = raw.possible_agents
    total = dict.fromkeys(seats, 0.0)  # summed as a loop over env.last() sums them
    check_state(0)
    yield 0, env
    k = 0
    while not (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
        agent = env.agent_selection
        total[agent] += env._cumulative_rewards[agent]
        if k == n:
            _fail(rec, f"the record ends after {n} actions, but the game is not over: {agent} is to act{versions}")
        actor, action, text = actions[k]
        if actor != agent:
            _fail(rec, f"action {k} ({actor}: {text}): recorded for {actor}, but {agent} is to act{versions}")
        if not 0 <= action < raw.rules.num_actions:
            _fail(rec, f"action {k} ({actor}: {text}): {action} is not an action of {name} "
                       f"(0..{raw.rules.num_actions - 1})")
        replayed = raw.action_to_string(action)
        if replayed != text:
            _fail(rec, f"action {k} ({actor}: {action}): recorded as {text!r}, but action {action} is "
                       f"{replayed!r} now{versions}")
        if not raw._legal_mask()[action] and not (k == n - 1 and rec["end"] == "illegal"):
            _fail(rec, f"action {k} ({actor}: {action} {text!r}) is illegal at this point; legal: "
                       + ", ".join(raw.legal_action_names()) + versions)
        env.step(action)
        k += 1
        check_state(k)
        yield k, env
    if k < n:
        _fail(rec, f"the game is over after {k} actions, but the record has {n}{versions}")
    for a in seats:  # what each seat's last env.last() adds
        total[a] += env._cumulative_rewards[a]
    state = raw.game_state
    end = "terminated" if state.terminated else "truncated" if state.truncated else "illegal"
    if end != rec["end"]:
        _fail(rec, f"field 'end': the game ended {end!r}, the record says {rec['end']!r}{versions}")
    if end != "illegal":
        found = {"scores": _plain([env.infos[a]["score"] for a in seats]),
                 "ranks": [int(env.infos[a]["rank"]) for a in seats]}
    else:
        found = {"scores": None, "ranks": None}
    for key in ("scores", "ranks"):
        if rec[key] != found[key]:
            _fail(rec, f"field {key!r}: the replay gives {found[key]}, the record says {rec[key]}{versions}")
    if rec["rewards"] is not None:
        got = [float(total[a]) for a in seats]
        if got != [float(r) for r in rec["rewards"]]:
            _fail(rec, f"field 'rewards': the replay gives {got}, the record says {rec['rewards']}{versions}")
    if traced and len(recorded) != TRACE_DIGITS * (n + 1):
        _fail(rec, f"field 'trace': {len(recorded) // TRACE_DIGITS} steps recorded, the game has {n + 1} "
                   f"(the deal and {n} actions)")
    if traced and trace.digest != rec["digest"]:
        _fail(rec, f"field 'digest': the replayed game's digest is {trace.digest}, the record says "
                   f"{rec['digest']}{versions}")


def replay(line: str | Mapping[str, Any], step: int | None = None, render_mode: str | None = None):
    """The environment of a record after its first ``step`` actions (None: all of them), bit for
    bit the original's (observations, masks, rewards, infos, the random generator's state).

    Every action up to ``step`` is checked as :func:`steps` says; a full replay (``step`` None
    or the record's length) also checks the end, scores, ranks and rewards. ``step`` out of
    ``0..len(actions)`` is a ValueError. The returned env is ``env(**options)``: call
    ``render_state()``, ``observe(agent)``, ``last()`` on it, or play on from an intermediate step.
    """
    rec = parse(line)
    n = len(rec["actions"])
    if step is not None and (not _is_int(step) or not 0 <= step <= n):
        raise ValueError(f"step must be an int in 0..{n} (the record has {n} actions), got {step!r}")
    env = None
    for k, env in _replay_steps(rec, render_mode, warn=True):
        if step is not None and k == step and step < n:
            return env
    return env


def frames(line: str | Mapping[str, Any], seat: str | None = None, at: Iterable[int] | None = None) -> list[np.ndarray]:
    """The pictures of a replayed game, one per step (``len(actions) + 1``: the deal, then after
    each action), or only at the steps ``at``: ``(H, W, 3)`` uint8 images of the table as a
    spectator sees it (``env.render()`` in ``render_mode="rgb_array"``: what every seat sees), or
    as ``seat`` (``"player_0"``) sees it (``render_view(seat, mode="rgb_array")``). Every frame
    of a game has the same shape, so they make a video (``card_envs.pictures.save_video``)."""
    rec = parse(line)
    n = len(rec["actions"])
    seats = [f"player_{i}" for i in range(_num_players(rec))]
    if seat is not None and seat not in seats:
        raise ValueError(f"unknown seat {seat!r}; seats: {', '.join(seats)}")
    wanted = set(range(n + 1)) if at is None else set(at)
    bad = sorted(k for k in wanted if not _is_int(k) or not 0 <= k <= n)
    if bad:
        raise ValueError(f"steps must be ints in 0..{n} (the record has {n} actions), got {bad}")
    out = []
    for k, env in steps(rec, render_mode="rgb_array"):
        if k in wanted:
            picture = env.render() if seat is None else env.unwrapped.render_view(seat, mode="rgb_array")
            out.append(np.array(picture, dtype=np.uint8, copy=True))
        if k >= max(wanted, default=-1):
            break
    return out


# --------------------------------------------------------------------------------- viewer
VIEWS = ("spectator", "seat", "full")


def _item_text(item: Any) -> str:
    from card_envs import pictures as P

    if item is P.BACK:
        return "##"
    if item is P.GAP:
        return ".."
    if item.joker:
        return "RJ" if item.joker == "red" else "BJ"
    return item.rank + ("" if item.suit is None else P.SUIT_LETTERS[item.suit])


def scene_text(table: Any) -> str:
    """A :class:`card_envs.pictures.Table` (the scene a game's picture is drawn from) as text:
    the same cards, ``##`` face down, ``..`` an empty place, ``[..]`` a framed card, ``>`` the
    seat to act. The spectator's text is the spectator picture's scene, so it shows exactly
    what that picture shows."""

    def group(g) -> list[str]:
        cards = [(f"[{_item_text(c)}]" if i in set(g.marks) else _item_text(c)) for i, c in enumerate(g.cards)]
        if g.columns:
            lines = [" ".join(cards[i:i + g.columns]) for i in range(0, len(cards), g.columns)] or [""]
        else:
            lines = [" ".join(cards)]
        head = f"{g.caption}: " if g.caption else ""
        return [head + lines[0]] + [" " * len(head) + line for line in lines[1:]]

    def row(r) -> list[str]:
        out = [("> " if r.highlight else "  ") + " | ".join(t for t in r.label if t.strip())]
        for g in r.groups:
            out += ["      " + line for line in group(g)]
        return out

    lines = [table.title] + [t for t in table.status if t.strip()]
    for r in list(table.rows) + list(table.seats):
        lines += row(r)
    return "\n".join(lines)


def _spectator_text(raw: Any) -> str:
    from card_envs import pictures as P

    return scene_text(P.picture_module(raw).scene(raw.rules, raw.game_state, 0, False))


def _as_seen(raw: Any, view: str, seat: str | None, actor: str, action: int, name: str) -> str:
    """An action about to be applied, as the viewer saw it: its name where the viewer is the actor
    (or sees everything), else what every seat saw (the rules' ``public_action``: another seat's
    hidden commitment is only "commits")."""
    if view == "full" or (view == "seat" and actor == seat):
        return name
    return raw.public_action_to_string(action)


def screens(line: str | Mapping[str, Any], view: str = "spectator", seat: str | None = None) -> list[str]:
    """The viewer's text at every step of a replayed game (``len(actions) + 1`` screens): the
    table as a ``"spectator"`` sees it (what every seat sees), as ``seat`` sees it (``view=
    "seat"``: ``render_view(seat)``), or every card (``"full"``: ``render_state()``, hidden cards
    included, said in the first line). Each screen names the action just taken as that viewer saw
    it (another seat's hidden commitment is not named) and, at the end, the result."""
    rec = parse(line)
    if view not in VIEWS:
        raise ValueError(f"view must be one of {', '.join(VIEWS)}, got {view!r}")
    seats = [f"player_{i}" for i in range(_num_players(rec))]
    if view == "seat" and seat not in seats:
        raise ValueError(f"unknown seat {seat!r}; seats: {', '.join(seats)}")
    who = {"spectator": "as a spectator sees it (no hidden card)",
           "seat": f"as {seat} sees it",
           "full": "FULL STATE: every card shown, hidden ones included"}[view]
    # the seed decides every hidden card: only the full view, which shows them anyway, names it
    seed = f" seed {rec['seed']}" if view == "full" else ""
    header = f"{rec['env']} {rec['options']}{seed}, {who}"
    actions = rec["actions"]
    n = len(actions)
    out, seen = [], []
    for k, env in steps(rec):
        raw = env.unwrapped
        if view == "full":
            text = raw.render_state()
        elif view == "seat":
            text = raw.render_view(seat)
        else:
            text = _spectator_text(raw)
        # how long the game lasts depends on hidden cards: only the full view says it at every step
        lines = [f"{header} -- step {k}" + (f"/{n}" if view == "full" else "")]
        lines.append("the deal, no action yet" if k == 0 else f"action {k - 1}: {actions[k - 1][0]}: {seen[k - 1]}")
        lines.append(text)
        if k == n:
            if rec["end"] == "illegal":
                lines.append(f"game over: {actions[-1][0]}'s last action was illegal (-1 for it)")
            else:
                lines.append(f"game over ({rec['end']}): scores {rec['scores']}, ranks {rec['ranks']}"
                             + ("" if rec["rewards"] is None else f", rewards {rec['rewards']}"))
        else:
            actor, action, name = actions[k]
            seen.append(_as_seen(raw, view, seat, actor, action, name))
        out.append("\n".join(lines))
    return out


def show(path: str | os.PathLike, game: int = 0, view: str = "spectator", seat: str | None = None,
         step: int = 0, all_steps: bool = False, input_fn: Callable[[str], str] = input,
         out: TextIO | None = None) -> None:
    """The terminal viewer: game ``game`` (0 = the file's first line) of a records file, one
    screen per step (:func:`screens`). Interactive: Enter or ``n`` the next step, ``b`` back, a
    number jumps to that step, ``q`` quits; ``all_steps`` prints every screen from ``step`` to
    the end instead."""
    recs = read(path)
    if not recs:
        raise ValueError(f"{path} holds no game records")
    if not _is_int(game) or not 0 <= game < len(recs):
        raise ValueError(f"{path} holds {len(recs)} game{'s' if len(recs) > 1 else ''}: --game must be in "
                         f"0..{len(recs) - 1}, got {game!r}")
    rec = recs[game]
    n = len(rec["actions"])
    if not _is_int(step) or not 0 <= step <= n:
        raise ValueError(f"--step must be in 0..{n} (game {game} has {n} actions), got {step!r}")
    pages = [f"{path} game {game}: {text}" for text in screens(rec, view, seat)]
    say = lambda text: print(text, file=out or sys.stdout, flush=True)  # noqa: E731
    if all_steps:
        for k in range(step, n + 1):
            say(pages[k] + "\n")
        return
    k = step
    while True:
        say(pages[k])
        try:
            key = input_fn("[Enter/n] next  [b] back  [number] go to step  [q] quit > ").strip().lower()
        except EOFError:
            return
        if key in ("q", "quit", "exit"):
            return
        if key in ("", "n", "next"):
            k = min(k + 1, n)
        elif key in ("b", "back"):
            k = max(k - 1, 0)
        elif key.isdigit() and int(key) <= n:
            k = int(key)
        else:
            say(f"keys: Enter or n (next), b (back), a step number 0..{n}, q (quit); got {key!r}")


def check_file(path: str | os.PathLike, out: TextIO | None = None) -> int:
    """:func:`check` every game of a records file (its form, its checksum and a full replay);
    the first that does not match is a ValueError naming its line. Returns the number of games."""
    count = 0
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                check(line)
            except ValueError as e:
                raise ValueError(f"{path} line {number}: {e}") from e
            count += 1
    print(f"{path}: {count} game{'s' if count != 1 else ''} checked: each line as written, and replayed with "
          "every action, state, end, score, rank and reward as recorded", file=out or sys.stdout)
    return count


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m card_envs.records show FILE --game K [--spectator | --seat player_0 | --full] [--step S]
    [--all]``
    and ``python -m card_envs.records check FILE``; a user error is one line and exit status 2."""
    ap = argparse.ArgumentParser(prog="python -m card_envs.records", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    sh = sub.add_parser("show", help="step through one recorded game in the terminal")
    sh.add_argument("file")
    sh.add_argument("--game", type=int, default=0, help="which game of the file (0 = its first line)")
    who = sh.add_mutually_exclusive_group()
    who.add_argument("--spectator", action="store_true",
                     help="the table as a spectator sees it: what every seat sees (the default)")
    who.add_argument("--seat", help="the table as this seat (player_0, ...) sees it")
    who.add_argument("--full", action="store_true", help="every card, hidden ones included")
    sh.add_argument("--step", type=int, default=0, help="start at this step (0 = the deal)")
    sh.add_argument("--all", action="store_true", help="print every step from --step to the end, no keys")
    ck = sub.add_parser("check", help="check every game of a file: each line as written (its checksum) and a "
                                      "full replay matching it (every action, state and result)")
    ck.add_argument("file")
    args = ap.parse_args(argv)
    try:
        if args.command == "show":
            view = "full" if args.full else "seat" if args.seat else "spectator"
            show(args.file, args.game, view, args.seat, args.step, args.all)
        else:
            check_file(args.file)
    except (ValueError, OSError) as e:
        print(f"error: {' '.join(str(e).split())}", file=sys.stderr, flush=True)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
