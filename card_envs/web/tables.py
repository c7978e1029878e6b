"""What the web page's server keeps: the tables people play at, and the records they replay.

Everything a seated person is sent is made here from their seat alone, by the same code the
terminal game uses (:class:`card_envs.seated.SeatedGame`): the table as the seat sees it (its picture,
``render_view(seat, mode="rgb_array")``, and its text, ``render_view(seat)``), the names of its
legal actions (``action_to_string``), every other seat's action as the table saw it
(``public_action_to_string``: a hidden commitment is only "commits"), and at the end the result,
which is public then. The state, the seed, the deck and another seat's cards never leave the
server while the game is on; the game's record (which holds the seed, so every card) is given
only once the game is over.

A table belongs to whoever holds its id (a random token, one per browser tab): tables never mix,
and one left alone for :attr:`Tables.idle_seconds` is closed.
"""

from __future__ import annotations

import base64
import io
import secrets
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

import numpy as np


class Conflict(ValueError):
    """A request the table's state does not allow now (a stale or double click, not the person's
    turn, a game that has ended): HTTP 409, nothing changed."""


class Forbidden(ValueError):
    """A request for a seat that is not the person's: HTTP 403, nothing changed."""


class NotFound(KeyError):
    """An unknown (or closed) table or record: HTTP 404."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "not found"


def png_data_url(picture: np.ndarray) -> str:
    """An ``(H, W, 3)`` uint8 picture as a ``data:image/png;base64,...`` URL (deterministic: the
    same picture gives the same text)."""
    from PIL import Image

    buf = io.BytesIO()
    Image.fromarray(np.asarray(picture, dtype=np.uint8)).save(buf, format="PNG", optimize=False)
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


# ------------------------------------------------------------------------------- the games
def game_catalogue() -> list[dict[str, Any]]:
    """Every game the page offers: its environment name, seats, and each option with its default
    and type (the options table of the game's docs), for the page's form."""
    import dataclasses

    import card_envs

    out = []
    for name, module in card_envs.ENVIRONMENTS.items():
        raw = module.raw_env()
        options = []
        for f in dataclasses.fields(raw.rules.config):
            default = f.default if f.default is not dataclasses.MISSING else None
            options.append({"name": f.name, "default": default, "type": str(f.type)})
        out.append({"env": name, "title": name.removesuffix("_v0").capitalize(), "seats": len(raw.possible_agents),
                    "options": options})
    return out


def check_options(env_name: str, options: Any) -> dict[str, Any]:
    """The table's options as the environment takes them; a ValueError naming the game's options
    or the bad value otherwise."""
    from card_envs import cli

    if not isinstance(options, dict):
        raise ValueError(f"options must be an object of option names and values, got {type(options).__name__}")
    try:
        cli.check_game_options(env_name, options)
    except cli.UserError as e:
        raise ValueError(str(e)) from None
    return dict(options)


# ------------------------------------------------------------------------------- a table
@dataclass
class WebTable:
    """One game with a person in one seat and agents in the others."""

    id: str
    env_name: str
    options: dict[str, Any]
    person: str
    specs: list[str | None]  # each seat's agent spec, None for the person
    game: Any  # card_envs.seated.SeatedGame
    players: dict[str, Any]
    recorder: Any
    lock: threading.Lock = field(default_factory=threading.Lock)
    touched: float = field(default_factory=time.monotonic)
    ended: bool = False  # the players' end_game hooks were called

    # ---------------------------------------------------------------- what the person is sent
    def view(self) -> dict[str, Any]:
        """Everything the person's page shows now, made from their seat alone."""
        g, raw, me = self.game, self.game.raw, self.person
        out: dict[str, Any] = {
            "table": self.id, "env": self.env_name, "options": self.options, "seat": me,
            "seats": [{"seat": a, "agent": "you" if a == me else self.specs[i]}
                      for i, a in enumerate(raw.possible_agents)],
            "step": g.steps, "over": g.over, "waiting": g.waiting, "your_turn": bool(g.legal),
            "picture": png_data_url(raw.render_view(me, mode="rgb_array")),
            "text": raw.render_view(me),
            "actions": [{"action": a, "name": name} for a, name in g.legal.items()],
            "moves": [{"step": k, "seat": actor, "name": name} for k, actor, name in g.moves],
            "result": None,
        }
        if g.over:  # scores and ranks are public once the game is over
            out["result"] = {
                "you": {"score": _plain(g.result.get("score")), "rank": _plain(g.result.get("rank")),
                        "reward": round(float(g.total[me]), 6)},
                "seats": [{"seat": a, "score": _plain(g.final[a][1].get("score")),
                           "rank": _plain(g.final[a][1].get("rank")), "reward": round(float(g.total[a]), 6)}
                          for a in raw.possible_agents],
            }
        return out

    # ---------------------------------------------------------------- what the person does
    def advance(self) -> dict[str, Any]:
        """Play the next other seat's action (one, so that the page shows them one at a time)."""
        if self.game.over:
            raise Conflict("the game is over: start a new game")
        if not self.game.waiting:
            raise Conflict("it is your turn: choose one of your actions")
        self.game.advance(1)
        self._finish_if_over()
        return self.view()

    def act(self, action: Any, step: Any, seat: Any = None) -> dict[str, Any]:
        """Apply the person's ``action`` at ``step`` (the step the page showed: a stale or double
        click names an older one and is refused, changing nothing)."""
        g = self.game
        if seat is not None and seat != self.person:
            raise Forbidden(f"you sit at {self.person}, not {seat!r}: you can act only for your own seat")
        if isinstance(action, bool) or not isinstance(action, int):
            raise ValueError(f"action must be an action index (an int), got {action!r}")
        if isinstance(step, bool) or not isinstance(step, int):
            raise ValueError(f"step must be the step the page shows (an int), got {step!r}")
        if g.over:
            raise Conflict("the game is over: start a new game")
        if step != g.steps:
            raise Conflict(f"stale action: it was chosen at step {step}, the game is at step {g.steps}")
        if not g.legal:
            raise Conflict("it is not your turn: another seat is to act")
        if action not in g.legal:
            raise ValueError(f"action {action} is not legal now; legal: "
                             + ", ".join(f"{a} ({n})" for a, n in g.legal.items()))
        g.act(action)
        g.advance(0)  # the person's own result, if that action ended the game
        self._finish_if_over()
        return self.view()

    def record_line(self) -> str:
        """The finished game's record (one JSON line, ``card_envs.records``): only once the game
        is over, since a record holds the seed and so every hidden card."""
        from card_envs.records import dumps

        if not self.game.over:
            raise Conflict("the game is not over: a record holds every card, so it is given only at the end")
        return dumps(self.recorder.finish(self.game.total))

    def _finish_if_over(self) -> None:
        from card_envs.players import end_game

        if self.game.over and not self.ended:
            self.ended = True
            for agent, player in self.players.items():
                obs, info = self.game.final[agent]
                end_game(player, obs, self.game.total[agent], info)


def _plain(value: Any) -> Any:
    from card_envs.views import plain

    return plain(value)


class Tables:
    """The open tables, by id; each closed after ``idle_seconds`` without a request, and the
    least recently used closed beyond ``max_tables``."""

    def __init__(self, idle_seconds: float = 1800.0, max_tables: int = 64,
                 load_agent: Callable[[str, int | None], Any] | None = None):
        self.idle_seconds = float(idle_seconds)
        self.max_tables = int(max_tables)
        self._load = load_agent
        self._tables: dict[str, WebTable] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._tables)

    def open(self, env: Any, options: Any = None, seat: Any = 0, opponents: Any = ("heuristic",),
             seed: Any = None, players: Mapping[str, Any] | None = None,
             deck: Sequence[int] | None = None) -> WebTable:
        """A new table: ``env`` (``"golf"`` or ``"golf_v0"``), its ``options``, the person's
        ``seat`` (an int) and the agent specs of the other seats (cycled over them). Every
        spec must load and accept the table (``start_game``), else a ValueError naming it.
        ``players`` (seat -> agent object) and ``deck`` serve tests and scripts, not the page."""
        import card_envs
        from card_envs import cli
        from card_envs.players import start_game
        from card_envs.records import Recorder, agents_hook, new_seed
        from card_envs.seated import SeatedGame

        try:
            env_name = cli.game_name(env)
        except cli.UserError as e:
            raise ValueError(str(e)) from None
        options = check_options(env_name, {} if options is None else options)
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or seed < 0):
            raise ValueError(f"seed must be a non-negative int or empty, got {seed!r}")
        seed = new_seed() if seed is None else seed
        environment = card_envs.ENVIRONMENTS[env_name].env(render_mode="rgb_array", **options)
        seats = environment.possible_agents
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < len(seats):
            raise ValueError(f"seat must be an int in 0..{len(seats) - 1}, got {seat!r}")
        me = seats[seat]
        specs: list[str | None] = [None] * len(seats)
        if players is None:
            if isinstance(opponents, str):
                opponents = [opponents]
            if not isinstance(opponents, (list, tuple)) or not all(isinstance(s, str) and s.strip() for s in opponents):
                raise ValueError(f"opponents must be a list of agent specs (random, heuristic, ppo, pimc, "
                                 f"ismcts, py:module:Class, ...), got {opponents!r}")
            opponents = [s.strip() for s in opponents] or ["heuristic"]
            players = {}
            load = self._load or agents_hook("load")  # the agents package, found by its entry point
            if load is None:
                raise ValueError("agent specs need the agents package (installed with card_envs: pip install -e .)")
            for k, agent in enumerate(a for a in seats if a != me):
                spec = opponents[k % len(opponents)]
                try:
                    players[agent] = load(spec, seed + 1 + k)
                except (ValueError, ImportError, FileNotFoundError, KeyError) as e:
                    raise ValueError(f"agent {spec!r} for {agent}: {_one_line(e)}") from None
                specs[seats.index(agent)] = spec
        players = dict(players)
        for agent, player in players.items():
            try:
                start_game(player, env_name, options, agent)
            except ValueError as e:
                raise ValueError(f"agent {specs[seats.index(agent)] or agent!r} cannot play this table as "
                                 f"{agent}: {_one_line(e)}") from None
        environment.reset(seed=seed, options=None if deck is None else {"deck": list(deck)})
        recorder = Recorder(environment, seed, options=options, agents=specs, deck=deck,
                            meta={"source": "card_envs.web", "person": me})
        game = SeatedGame(environment, me, players, env_name, recorder)
        table = WebTable(secrets.token_urlsafe(12), env_name, options, me, specs, game, players, recorder)
        game.advance(0)  # the person's screen if they act first
        with self._lock:
            self._sweep()
            while len(self._tables) >= self.max_tables:
                oldest = min(self._tables.values(), key=lambda t: t.touched)
                del self._tables[oldest.id]
            self._tables[table.id] = table
        return table

    def get(self, table_id: str) -> WebTable:
        """The open table ``table_id``; :class:`NotFound` if there is none (never opened, closed,
        or left alone too long)."""
        with self._lock:
            self._sweep()
            table = self._tables.get(table_id)
            if table is None:
                raise NotFound(f"no open table {table_id!r}: it was closed or left alone for more than "
                               f"{self.idle_seconds:.0f} s; start a new game")
            table.touched = time.monotonic()
            return table

    def close(self, table_id: str) -> bool:
        with self._lock:
            return self._tables.pop(table_id, None) is not None

    def _sweep(self) -> None:
        now = time.monotonic()
        for key in [k for k, t in self._tables.items() if now - t.touched > self.idle_seconds]:
            del self._tables[key]


def _one_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return text[0] if text else type(error).__name__


# ------------------------------------------------------------------------------- replays
@dataclass
class StoredRecord:
    id: str
    rec: dict[str, Any]
    source: str  # the file it came from, or "upload"
    line: int  # its line number there (1 = first)
    cache: dict = field(default_factory=dict)

    def summary(self) -> dict[str, Any]:
        rec = self.rec
        return {"record": self.id, "env": rec["env"], "options": rec["options"], "agents": rec["agents"],
                "actions": len(rec["actions"]), "end": rec["end"], "ranks": rec["ranks"], "scores": rec["scores"],
                "source": self.source, "line": self.line,
                "seats": [f"player_{i}" for i in range(_num_players(self.rec))]}


def _num_players(rec: dict[str, Any]) -> int:
    from card_envs.records.format import _num_players as n

    return n(rec)


class Replays:
    """Records to replay, by id: those of ``--records FILE`` and those uploaded."""

    def __init__(self):
        self._records: dict[str, StoredRecord] = {}
        self._lock = threading.Lock()

    def add_text(self, text: str, source: str = "upload") -> list[StoredRecord]:
        """Every record of ``text`` (JSON Lines, blank lines skipped), each checked as
        ``card_envs.records.parse`` checks it; one bad line refuses them all, with a ValueError
        naming its line and what is wrong (nothing is added)."""
        from card_envs import records

        parsed = []
        for k, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                parsed.append((k, records.parse(line)))
            except ValueError as e:
                raise ValueError(f"{source} line {k}: {_one_line(e)}") from None
        if not parsed:
            raise ValueError(f"{source} holds no game records (JSON Lines written by card_envs.records)")
        added = []
        with self._lock:
            for k, rec in parsed:
                stored = StoredRecord(secrets.token_urlsafe(8), rec, source, k)
                self._records[stored.id] = stored
                added.append(stored)
        return added

    def all(self) -> list[StoredRecord]:
        with self._lock:
            return list(self._records.values())

    def get(self, record_id: str) -> StoredRecord:
        with self._lock:
            stored = self._records.get(record_id)
        if stored is None:
            raise NotFound(f"no record {record_id!r}")
        return stored

    def step(self, record_id: str, step: Any, seat: Any = None) -> dict[str, Any]:
        """Record ``record_id`` replayed to ``step`` (0 = the deal), as a spectator sees it (``seat``
        None: what every seat sees) or as ``seat`` sees it: its picture, text, the actions so far as
        that viewer saw them, with their actors, whether this is the last step, and there the
        result. The spectator is also told the number of steps; a seat is not (how long a game
        lasts depends on cards the seat cannot see)."""
        from card_envs.records import replay
        from card_envs.records.viewer import actions_seen, spectator_text

        stored = self.get(record_id)
        rec = stored.rec
        n = len(rec["actions"])
        seats = [f"player_{i}" for i in range(_num_players(rec))]
        if seat in ("", "spectator"):
            seat = None
        if seat is not None and seat not in seats:
            raise ValueError(f"unknown seat {seat!r}; seats: {', '.join(seats)} (or spectator)")
        if isinstance(step, bool) or not isinstance(step, int) or not 0 <= step <= n:
            # a seat does not know how long the game lasts (that depends on cards it cannot see)
            within = "from 0 to the game's last step" if seat is not None else f"in 0..{n} (the record has {n} actions)"
            raise ValueError(f"step must be an int {within}, got {step!r}")
        key = (step, seat)
        if key not in stored.cache:
            if ("seen", seat) not in stored.cache:
                stored.cache[("seen", seat)] = actions_seen(rec, "spectator" if seat is None else "seat", seat)
            seen = stored.cache[("seen", seat)]
            env = replay(rec, step=step, render_mode="rgb_array")
            raw = env.unwrapped
            if seat is None:
                picture, text = env.render(), spectator_text(raw)
            else:
                picture, text = raw.render_view(seat, mode="rgb_array"), raw.render_view(seat)
            out = {"record": stored.id, "env": rec["env"], "options": rec["options"], "seat": seat,
                   "step": step, "last": step == n, "picture": png_data_url(picture), "text": text,
                   "moves": [{"step": k, "seat": rec["actions"][k][0], "name": seen[k]} for k in range(step)],
                   "result": None}
            if seat is None:  # a spectator of the finished game may know its length; a seat learns
                out["steps"] = n  # only that the game is over when it is
            if step == n:
                out["result"] = {"end": rec["end"], "scores": rec["scores"], "ranks": rec["ranks"],
                                 "rewards": rec["rewards"]}
            if len(stored.cache) > 4096:
                stored.cache.clear()
            stored.cache[key] = out
        return stored.cache[key]
