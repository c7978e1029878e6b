"""The record format: its fields, the checks of a line's form, the trace and the checksum."""

from __future__ import annotations

import hashlib
import json
import warnings
from functools import lru_cache
from typing import Any, Callable, Mapping

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


def _num_players(rec: Mapping[str, Any]) -> int:
    return int(_table(rec["env"], rec["options"]).num_players)


def _fail(rec: Any, text: str) -> None:
    where = ""
    if isinstance(rec, Mapping) and isinstance(rec.get("env"), str):
        where = f" ({rec['env']}, seed {rec.get('seed')!r})"
    raise ValueError(f"game record{where}: {text}")


def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _is_number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _is_hex(text: str) -> bool:
    return all(c in "0123456789abcdef" for c in text)


def _short(x: Any) -> str:
    text = repr(x)
    return text if len(text) <= 60 else text[:57] + "..."


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

    def copy(self) -> "Trace":
        """An independent trace in the same state (the same codes, the same running digest)."""
        out = Trace.__new__(Trace)
        out._hash, out.codes = self._hash.copy(), list(self.codes)
        return out

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


def _spec_error(spec: str) -> str | None:
    """Why ``spec`` is not an agent spec the library can parse (None: it is). Only its form
    is checked (no file is opened, no agent built)."""
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
