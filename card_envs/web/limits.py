"""What one request may ask of the web table: the bounds that keep any request (from the page, a
script, or anyone who can reach the server) from freezing, filling or crashing it.

Every bound is checked before the work it guards starts: a table's options before the table is
built, a body's size from its ``Content-Length`` and again while it streams in, a record's table
before the record is replayed. A request past a bound is refused with one line that names the
bound; nothing is built and nothing is kept.
"""

from __future__ import annotations

import json
import math
from typing import Any, Mapping

#: the largest request body the server reads (a records upload; every other body is small)
MAX_BODY = 8 * 1024 * 1024

#: the most tables open at once (each a game in memory with its agents)
MAX_TABLES = 64
#: a live game left without a request this long may be closed to make room for a new table
EVICT_IDLE_SECONDS = 300.0

#: uploaded records kept for the replay viewer, by count and by the size of their text; past
#: either, the oldest uploads are dropped (records of ``--records FILE`` are the person's own
#: and are not counted)
MAX_UPLOADED_RECORDS = 2000
MAX_UPLOADED_BYTES = 32 * 1024 * 1024
#: replayed steps kept (their pictures), for all records together
STEP_CACHE = 256

#: the upper bound of each option a table served over HTTP may take (where the game has it):
#: the sizes that decide how much memory a table holds and how long its game can run
OPTION_BOUNDS: dict[str, int] = {
    "num_players": 8,
    "num_decks": 4,
    "jokers_per_deck": 4,
    "hand_size": 13,
    "initial_flips": 6,
    "refan_discards": 10,
    "num_rounds": 50,
    "target_score": 500,
    "target_points": 50,
    "max_rounds": 500,
    "max_turns": 5000,
    "max_turns_per_round": 1000,
    "max_rounds_per_deal": 500,
    "max_deals": 200,
}

#: a seed a request may give: 0 .. 2**63 - 1
MAX_SEED = 2**63 - 1

#: the search agents' budgets a request may ask for (key -> the largest value)
SEARCH_BOUNDS: dict[str, dict[str, float]] = {
    "pimc": {"worlds": 256, "batch": 64, "ms": 1000.0},
    "ismcts": {"iterations": 5000, "ms": 1000.0},
}
#: a search agent's time budget per move at the web table when its spec gives none (ms): its
#: count budget still ends the search first where it is reached sooner
SEARCH_MS = 250.0
#: the period (seconds) on which the moves of an agent without a time budget (random, heuristic,
#: a policy) are released; a search agent's period is its time budget plus a margin
MOVE_PERIOD = 0.025


def search_period(ms: float) -> float:
    """The period (seconds) on which a search agent's moves with a budget of ``ms`` milliseconds
    are released: the budget, a quarter more for the overrun of its last world or iteration,
    and 50 ms."""
    return ms / 1000 * 1.25 + 0.05


def release_delay(elapsed: float, period: float) -> float:
    """How much longer to wait, ``elapsed`` seconds after a move began, before releasing it: to
    the end of the first whole ``period`` not already passed (at least one)."""
    if period <= 0:
        return 0.0
    periods = max(1, math.ceil(elapsed / period - 1e-9))
    return max(0.0, periods * period - elapsed)


def check_bounds(env_name: str, options: Mapping[str, Any]) -> None:
    """A ValueError naming the first option of ``options`` past its bound, and every bound of
    the game (the game itself checks the values it takes, after this)."""
    for key, value in options.items():
        bound = OPTION_BOUNDS.get(key)
        if bound is None or isinstance(value, bool) or not isinstance(value, (int, float)):
            continue
        if not value <= bound:  # NaN too
            raise ValueError(f"{key}={value!r} is over the web table's bound {bound}; {bounds_text(env_name)} "
                             "(play larger tables from Python)")


def bounds_text(env_name: str) -> str:
    """``"the web table serves golf_v0 with num_players <= 8, ..."``."""
    from card_envs.cli import game_option_names

    names = [k for k in game_option_names(env_name) if k in OPTION_BOUNDS]
    return f"the web table serves {env_name} with " + ", ".join(f"{k} <= {OPTION_BOUNDS[k]}" for k in names)


def json_object(text: str | bytes, what: str) -> dict[str, Any]:
    """``text`` read as a JSON object; a ValueError saying what is wrong with ``what`` otherwise
    (not JSON, JSON nested too deeply, a number too long, not an object)."""
    try:
        data = json.loads(text)
    except RecursionError:
        raise ValueError(f"{what} is JSON nested too deeply") from None
    except ValueError as e:  # a JSONDecodeError, bad UTF-8, an integer of too many digits
        raise ValueError(f"{what} is not JSON: {' '.join(str(e).split())}") from None
    if not isinstance(data, dict):
        raise ValueError(f"{what} must be a JSON object")
    return data
