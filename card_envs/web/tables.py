"""What the web page's server keeps: the tables people play at.

Everything a seated person is sent is made here from their seat alone, by the same code the
terminal game uses (:class:`card_envs.seated.SeatedGame`): the table as the seat sees it (its picture,
``render_view(seat, mode="rgb_array")``, and its text, ``render_view(seat)``), the names of its
legal actions (``action_to_string``), every other seat's action as the table saw it
(``public_action_to_string``: a hidden commitment is only "commits", named once the rules reveal
it), and at the end the result, which is public then. The state, the seed, the deck and another
seat's cards never leave the server while the game is on; the game's record (which holds the seed,
so every card) is given only once the game is over.

**Time tells nothing either.** How long an agent takes to choose depends on what it holds (a
search agent with one legal move answers at once, with several it searches), so an agent's move
is released on a fixed period, the same for every move of the table (:data:`WebTable.period`:
a search agent's time budget plus a margin, :func:`card_envs.web.limits.search_period`, or
:data:`card_envs.web.limits.MOVE_PERIOD` for the others), and the person's own action likewise on
:data:`~card_envs.web.limits.MOVE_PERIOD`. The picture is drawn after the release, from the seat's
view alone. A move that overruns its period (a loaded machine) is released at the end of the next
whole period.

**One request at a time per table, none waiting.** A table busy with a move answers every other
request with 409 "busy" at once; the moves run in a small pool of their own
(:meth:`Tables.start`), never in the pool that answers requests.

A table belongs to whoever holds its id (a random token, one per browser tab): tables never mix.
One left alone for :attr:`Tables.idle_seconds` is closed; at :attr:`Tables.max_tables` a new
table closes a finished game, or a game left alone for
:data:`~card_envs.web.limits.EVICT_IDLE_SECONDS`, and says so to whoever asks for it later; with
every table in play, a new one is refused (503).
"""

from __future__ import annotations

import base64
import io
import secrets
import threading
import time
from collections import OrderedDict
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from card_envs.cli import one_line
from card_envs.web import limits
from card_envs.web.offer import Offer


class Conflict(ValueError):
    """A request the table's state does not allow now (a stale or double click, not the person's
    turn, a game that has ended): HTTP 409, nothing changed."""


class Busy(Conflict):
    """The table is playing a move: HTTP 409, ask again in a moment."""


class Forbidden(ValueError):
    """A request for a seat that is not the person's: HTTP 403, nothing changed."""


class NotFound(KeyError):
    """An unknown (or closed) table or record: HTTP 404."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "not found"


class Unavailable(RuntimeError):
    """The server holds as many tables in play as it keeps: HTTP 503, nothing changed."""


def png_data_url(picture: np.ndarray) -> str:
    """An ``(H, W, 3)`` uint8 picture as a ``data:image/png;base64,...`` URL (deterministic: the
    same picture gives the same text)."""
    from PIL import Image

    buf = io.BytesIO()
    Image.fromarray(np.asarray(picture, dtype=np.uint8)).save(buf, format="PNG", optimize=False)
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


# ------------------------------------------------------------------------------- the games
def game_catalogue() -> list[dict[str, Any]]:
    """Every game the page offers: its environment name, the seats at its benchmark table (the
    table a new table starts from), that table's options, and each option with its default, its
    value at the benchmark table (``table``), its type and, where the web table bounds it, its
    largest value (the options table of the game's docs), for the page's form."""
    import dataclasses

    import card_envs

    out = []
    for name, module in card_envs.ENVIRONMENTS.items():
        raw = module.raw_env()
        table = dict(module.BENCHMARK_CONFIG)
        options = []
        for f in dataclasses.fields(raw.rules.config):
            default = f.default if f.default is not dataclasses.MISSING else None
            option = {"name": f.name, "default": default, "table": table.get(f.name, default), "type": str(f.type)}
            if f.name in limits.OPTION_BOUNDS:
                option["max"] = limits.OPTION_BOUNDS[f.name]
            options.append(option)
        seats = len(module.raw_env(**table).possible_agents)
        out.append({"env": name, "title": name.removesuffix("_v0").capitalize(), "seats": seats, "table": table,
                    "options": options})
    return out


def check_options(env_name: str, options: Any) -> dict[str, Any]:
    """The table's options as the environment takes them: the game's benchmark table with
    ``options`` laid over it (no options: the benchmark table, where every agent offered can
    play), within the web table's bounds (:data:`card_envs.web.limits.OPTION_BOUNDS`, checked
    before the table is built); a ValueError naming the game's options, the bound or the bad value
    otherwise."""
    from card_envs import cli

    if not isinstance(options, dict):
        raise ValueError(f"options must be an object of option names and values, got {type(options).__name__}")
    options = {**cli.benchmark_table(env_name), **options}
    limits.check_bounds(env_name, options)
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
    specs: list[str | None]  # each seat's agent as the table names it, None for the person
    game: Any  # card_envs.seated.SeatedGame
    players: dict[str, Any]
    recorder: Any
    #: the period (seconds) every other seat's move is released on (0: at once, for scripts)
    period: float = limits.MOVE_PERIOD
    #: the period the person's own action is released on
    own_period: float = limits.MOVE_PERIOD
    lock: threading.Lock = field(default_factory=threading.Lock)
    touched: float = field(default_factory=time.monotonic)
    ended: bool = False  # the players' end_game hooks were called

    def try_lock(self) -> None:
        """Take the table for one request, or :class:`Busy` at once."""
        if not self.lock.acquire(blocking=False):
            raise Busy("busy: the table is still playing the last move; ask again in a moment")

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
                "end": g.end, "cut_short": g.end == "truncated",
                "you": {"score": _plain(g.result.get("score")), "rank": _plain(g.result.get("rank")),
                        "reward": round(float(g.total[me]), 6)},
                "seats": [{"seat": a, "score": _plain(g.final[a][1].get("score")),
                           "rank": _plain(g.final[a][1].get("rank")), "reward": round(float(g.total[a]), 6)}
                          for a in raw.possible_agents],
            }
        return out

    # ---------------------------------------------------------------- what the person does
    def advance(self) -> dict[str, Any]:
        """Play the next other seat's action (one, so that the page shows them one at a time),
        released on the table's :attr:`period`."""
        if self.game.over:
            raise Conflict("the game is over: start a new game")
        if not self.game.waiting:
            raise Conflict("it is your turn: choose one of your actions")
        began = time.monotonic()
        self.game.advance(1)
        self._finish_if_over()
        time.sleep(limits.release_delay(time.monotonic() - began, self.period))
        return self.view()

    def act(self, action: Any, step: Any, seat: Any = None) -> dict[str, Any]:
        """Apply the person's ``action`` at ``step`` (the step the page showed: a stale or double
        click names an older one and is refused, changing nothing)."""
        g = self.game
        if seat is not None and seat != self.person:
            raise Forbidden(f"you sit at {self.person}, not {_short(seat)}: you can act only for your own seat")
        if isinstance(action, bool) or not isinstance(action, int):
            raise ValueError(f"action must be an action index (an int), got {_short(action)}")
        if isinstance(step, bool) or not isinstance(step, int):
            raise ValueError(f"step must be the step the page shows (an int), got {_short(step)}")
        if g.over:
            raise Conflict("the game is over: start a new game")
        if step != g.steps:
            raise Conflict(f"stale action: it was chosen at step {step}, the game is at step {g.steps}")
        if not g.legal:
            raise Conflict("it is not your turn: another seat is to act")
        if action not in g.legal:
            raise ValueError(f"action {action} is not legal now; legal: "
                             + ", ".join(f"{a} ({n})" for a, n in g.legal.items()))
        began = time.monotonic()
        g.act(action)
        g.advance(0)  # the person's own result, if that action ended the game
        self._finish_if_over()
        time.sleep(limits.release_delay(time.monotonic() - began, self.own_period))
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


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


class Tables:
    """The open tables, by id (see the module docstring for their lifetime and the pacing).

    ``offer``: the agents a request may seat (:class:`card_envs.web.offer.Offer`; the built-in
    ones by default). ``paced=False`` releases every move at once: for scripts and tests that do
    not need the timing promise. ``load_agent(spec, seed)`` replaces ``agents.load``.
    """

    def __init__(self, idle_seconds: float = 1800.0, max_tables: int = limits.MAX_TABLES,
                 load_agent: Callable[[str, int | None], Any] | None = None, offer: Offer | None = None,
                 paced: bool = True, move_workers: int = 4):
        self.idle_seconds = float(idle_seconds)
        self.max_tables = int(max_tables)
        self.offer = Offer() if offer is None else offer
        self.paced = bool(paced)
        self._load = load_agent
        self._tables: dict[str, WebTable] = {}
        self._gone: OrderedDict[str, str] = OrderedDict()  # closed tables' ids -> why, for a clear 404
        self._lock = threading.Lock()
        self._moves = ThreadPoolExecutor(max_workers=move_workers, thread_name_prefix="card_envs-web-move")

    def __len__(self) -> int:
        return len(self._tables)

    def open(self, env: Any, options: Any = None, seat: Any = 0, opponents: Any = ("heuristic",),
             seed: Any = None, players: Mapping[str, Any] | None = None,
             deck: Sequence[int] | None = None) -> WebTable:
        """A new table: ``env`` (``"golf"`` or ``"golf_v0"``), its ``options``, the person's
        ``seat`` (an int) and the agents of the other seats, chosen from :attr:`offer` (cycled
        over them). Every agent must load and accept the table (``start_game``), else a
        ValueError naming it. ``players`` (seat -> agent object) and ``deck`` serve tests and
        scripts, not the page."""
        import card_envs
        from card_envs import cli
        from card_envs.players import start_game
        from card_envs.records import Recorder, agents_hook, new_seed
        from card_envs.seated import SeatedGame

        if not isinstance(env, str) or len(env) > 40:
            raise ValueError(f"env must be a game's name, got {_short(env)}; games: "
                             + ", ".join(n.removesuffix("_v0") for n in card_envs.ENVIRONMENTS))
        try:
            env_name = cli.game_name(env)
        except cli.UserError as e:
            raise ValueError(str(e)) from None
        options = check_options(env_name, {} if options is None else options)
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= limits.MAX_SEED):
            raise ValueError(f"seed must be an int in 0..2**63-1 or empty, got {_short(seed)}")
        seed = new_seed() if seed is None else seed
        with self._lock:
            self._make_room(dry_run=True)
        environment = card_envs.ENVIRONMENTS[env_name].env(render_mode="rgb_array", **options)
        seats = environment.possible_agents
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < len(seats):
            raise ValueError(f"seat must be an int in 0..{len(seats) - 1}, got {_short(seat)}")
        me = seats[seat]
        shown: list[str | None] = [None] * len(seats)
        specs: list[str | None] = [None] * len(seats)
        period = limits.MOVE_PERIOD
        if players is None:
            choices = self.offer.choose_all(["heuristic"] if opponents is None or opponents == [] else opponents)
            load = self._load or agents_hook("load")  # the agents package, found by its entry point
            if load is None:
                raise ValueError("agent specs need the agents package (installed with card_envs: pip install -e .)")
            players = {}
            for k, agent in enumerate(a for a in seats if a != me):
                choice = choices[k % len(choices)]
                try:
                    player = load(choice.spec, seed + 1 + k)
                    player, spec, seat_period = self.offer.timed(choice, player, env_name, load, seed + 1 + k)
                except (ValueError, ImportError, FileNotFoundError, KeyError) as e:
                    raise ValueError(f"agent {choice.shown!r} for {agent}: {one_line(e)}") from None
                players[agent] = player
                i = seats.index(agent)
                shown[i], specs[i] = choice.shown, spec
                period = max(period, seat_period)
        players = dict(players)
        for agent, player in players.items():
            try:
                start_game(player, env_name, options, agent)
            except ValueError as e:
                raise ValueError(f"agent {shown[seats.index(agent)] or agent!r} cannot play this table as "
                                 f"{agent}: {one_line(e)}") from None
        environment.reset(seed=seed, options=None if deck is None else {"deck": list(deck)})
        recorder = Recorder(environment, seed, options=options, agents=specs, deck=deck,
                            meta={"source": "card_envs.web", "person": me})
        game = SeatedGame(environment, me, players, env_name, recorder)
        table = WebTable(secrets.token_urlsafe(12), env_name, options, me, shown, game, players, recorder,
                         period=period if self.paced else 0.0,
                         own_period=limits.MOVE_PERIOD if self.paced else 0.0)
        game.advance(0)  # the person's screen if they act first
        with self._lock:
            self._make_room()
            self._tables[table.id] = table
        return table

    def get(self, table_id: str) -> WebTable:
        """The open table ``table_id``; :class:`NotFound` saying why if there is none (never opened,
        closed, left alone too long, or closed to make room)."""
        with self._lock:
            self._sweep()
            table = self._tables.get(table_id)
            if table is None:
                why = self._gone.get(table_id, "it was never opened here, or the server restarted")
                raise NotFound(f"no open table {_short(table_id)}: {why}; start a new game")
            table.touched = time.monotonic()
            return table

    def close(self, table_id: str) -> bool:
        with self._lock:
            table = self._tables.pop(table_id, None)
            if table is not None:
                self._forget(table_id, "it was closed")
            return table is not None

    def start(self, table: WebTable, method: Callable[..., Any], *args: Any) -> Future:
        """Run ``method(*args)`` (a move: ``table.advance`` or ``table.act``) in the moves' own
        pool, the table taken for it (:class:`Busy` at once if it is taken); the table is freed
        when the move is done, whoever waits for it."""
        table.try_lock()

        def run():
            try:
                return method(*args)
            finally:
                table.lock.release()

        try:
            return self._moves.submit(run)
        except BaseException:
            table.lock.release()
            raise

    # ------------------------------------------------------------------ keeping count
    def _sweep(self) -> None:
        now = time.monotonic()
        for key in [k for k, t in self._tables.items() if now - t.touched > self.idle_seconds]:
            del self._tables[key]
            self._forget(key, f"it was left alone for more than {self.idle_seconds:.0f} s and closed")

    def _make_room(self, dry_run: bool = False) -> None:
        """Below :attr:`max_tables`, or close one table to get there: the least recently used
        finished game, else the game left alone longest if for over
        :data:`limits.EVICT_IDLE_SECONDS`; :class:`Unavailable` if every table is in play."""
        self._sweep()
        while len(self._tables) >= self.max_tables:
            now = time.monotonic()
            done = [t for t in self._tables.values() if t.game.over]
            idle = [t for t in self._tables.values() if now - t.touched > limits.EVICT_IDLE_SECONDS]
            victims = done or idle
            if not victims:
                raise Unavailable(f"the server keeps at most {self.max_tables} tables and every one is in play: "
                                  "finish or close a game (New game closes the page's own), or try again later")
            if dry_run:
                return
            victim = min(victims, key=lambda t: t.touched)
            del self._tables[victim.id]
            self._forget(victim.id, f"it was closed to make room for a new table (the server keeps at most "
                                    f"{self.max_tables}) after {'its game ended' if victim.game.over else 'being left alone'}")

    def _forget(self, table_id: str, why: str) -> None:
        self._gone[table_id] = why
        while len(self._gone) > 4096:
            self._gone.popitem(last=False)

