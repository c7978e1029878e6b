"""Renumbering the seats of a rules state: a world sampled for one player, into the table's seats.

A game's ``sample_world`` builds a world in the observer's frame: the observer is seat 0 and the
others follow in order. The OpenSpiel adapter turns such a world into the table's numbering
(the observer back in its own seat) with :func:`turn`, so a resampled state names its seats as
the table does (its ``str()``, its rewards, who acts).

Each game declares how its state's fields hold seats (:data:`SEATS`): ``by_seat`` fields have one
entry per seat (turned: seat k's entry becomes seat k + shift's), ``seat`` fields hold a seat
(-1 or None for none), ``seats`` fields hold seats as entries (an order of seats, the seat that
drew each discard), and ``free`` fields hold no seat. A field may be both ``by_seat`` and
``seats`` (the seat whose card each seat took). Every field of the state is declared once in
some list: ``tests/openspiel`` checks that, and that a turned state is the same game (every
seat's observation is its old seat's, the legal actions and who acts follow, and play goes on
the same way step after step).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class Seats:
    """How one game's rules state holds seats (see the module docstring)."""

    by_seat: tuple[str, ...] = ()
    seat: tuple[str, ...] = ()
    seats: tuple[str, ...] = ()
    free: tuple[str, ...] = ()

    @property
    def fields(self) -> set[str]:
        return set(self.by_seat) | set(self.seat) | set(self.seats) | set(self.free)


_SET_COLLECTING = Seats(
    by_seat=("hands", "counts", "known", "known_counts", "played", "pending", "last_played", "last_taker",
             "last_drawn", "last_claim", "first_place", "shown", "scores", "last_deal_points"),
    seat=("current_player", "dealer", "lead"),
    seats=("order", "winners", "last_taker", "last_claim"),
    # pending holds actions, and a take names its target relative to the taker: no seat to renumber
    free=("num_players", "stock", "stock_unknown", "phase", "pos", "round", "terminated", "truncated", "laid_down",
          "deal", "rng"),
)

SEATS: dict[str, Seats] = {
    "golf_v0": Seats(
        by_seat=("grid", "face_up", "closed", "last_layouts", "totals", "last_round"),
        seat=("current_player", "dealer", "trigger"),
        free=("stock", "discard", "pending", "pending_from_discard", "phase", "flips_left", "turns", "round",
              "terminated", "truncated", "stock_known", "rng"),
    ),
    "fiddlesticks_v0": Seats(
        by_seat=("hand", "hand_counts", "hand_size", "face_up", "face_up_counts", "face_down", "known", "absent",
                 "picked", "picked_counts", "dealt_up", "dealt_hand", "swap_picks", "out"),
        seat=("current_player", "dealer", "first"),
        seats=("places",),
        free=("stock", "pile", "pile_counts", "run_rank", "run_len", "cleared", "cleared_counts", "phase", "turns",
              "terminated", "truncated", "rng"),
    ),
    "guillotine_v0": Seats(
        by_seat=("used", "hands", "played", "absent", "trick", "taken", "tricks_won", "totals", "last_deal"),
        seat=("current_player", "first_dealer", "dealer", "leader", "first_winner", "last_winner"),
        seats=("out",),
        free=("phase", "terminated", "truncated", "rng", "deal", "num_deals", "contract", "trick_size", "led",
              "tricks_done", "table", "playable", "anchor"),
    ),
    "collector_v0": _SET_COLLECTING,
    "hot_v0": _SET_COLLECTING,
    "guilders_v0": Seats(
        by_seat=("piles", "stats", "known", "miss_calls", "miss_seat"),
        seat=("current_player", "last_mover"),
        seats=("discard_by", "card_holder"),
        free=("config", "deck_counts", "rng", "terminated", "truncated", "turn", "refans_left", "fan", "discards",
              "discard_call", "lost", "set_aside", "miss_all", "scored_counts", "lost_counts", "aside_counts",
              "discard_counts", "face_down_counts", "card_value", "card_place", "last_call", "last_card",
              "last_public", "last_events", "last_gain", "last_loss", "last_lost_card", "last_place"),
    ),
}


def state_fields(state: Any) -> set[str]:
    """Every field of a rules state (its classes' ``__slots__``)."""
    return {name for cls in type(state).__mro__ for name in getattr(cls, "__slots__", ())}


def _roll(value: Any, shift: int) -> Any:
    if value is None:
        return None
    if isinstance(value, np.ndarray):
        return np.roll(value, shift, axis=0)
    rolled = list(value)
    n = len(rolled)
    return [rolled[(k - shift) % n] for k in range(n)]


def _renumber(value: Any, shift: int, n: int) -> Any:
    if value is None:
        return None
    if isinstance(value, np.ndarray):
        return np.where(value >= 0, (value + shift) % n, value).astype(value.dtype)
    if isinstance(value, (list, tuple)):
        return type(value)(_renumber(v, shift, n) for v in value)
    return value if value < 0 else (value + shift) % n


def turn(env_name: str, state: Any, shift: int, num_players: int) -> Any:
    """A copy of the rules ``state`` with every seat k renumbered k + ``shift`` (mod the seats)."""
    seats = SEATS[env_name]
    twin = state.copy()
    shift %= num_players
    if not shift:
        return twin
    for name in seats.by_seat:
        setattr(twin, name, _roll(getattr(twin, name), shift))
    for name in seats.seat + seats.seats:
        setattr(twin, name, _renumber(getattr(twin, name), shift, num_players))
    return twin
