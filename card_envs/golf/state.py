"""Golf's full-information state (``env.state()``): privileged, for centralized critics.

Everything on the table, by absolute seat: where every card lies (the census: each seat's six
slots, the stock in order, the discard pile in order, the card in hand), which slots are face up
and which columns closed, where the card in hand came from, the phase, the player to act, the
flips left in setup, the dealer, the trigger of the final turns, the turn and round counters,
the totals and last round's scores, whether the stock was rebuilt this round and the layouts
revealed at the end of the previous round (by rank: those cards are back in the deck and only
their ranks are shown to anyone). Left out: the random generator (later shuffles and deals).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from card_envs import cards
from card_envs.encoding import CardCensus, Layout, Zone, write_one_hot
from card_envs.golf.rules import NUM_SLOTS, PHASE_NAMES, GolfRules, GolfState

TOTAL_SCALE = 100.0


@lru_cache(maxsize=None)
def _census(num_players: int, num_decks: int) -> CardCensus:
    total = 52 * num_decks
    zones = [
        Zone(f"grid {p}", NUM_SLOTS, "seq", f"seat {p}'s layout, position = slot 0..5") for p in range(num_players)
    ]
    zones += [
        Zone("stock", total, "stack", "the stock, position 0 its top (the next card drawn)"),
        Zone("discard", total, "stack", "the discard pile, position 0 its top"),
        Zone("pending", 1, "seq", "the card the player to act holds (drawn, not yet placed)"),
    ]
    return CardCensus(sorted(cards.make_deck(num_decks)), zones, cards.to_str)


@lru_cache(maxsize=None)
def _layout(num_players: int, num_decks: int, max_turns: int, round_limit: int, initial_flips: int) -> Layout:
    n = num_players
    return Layout(
        _census(n, num_decks).segments()
        + [
            ("face_up", (n, NUM_SLOTS), "1 if the slot of each seat (absolute) is face up"),
            ("closed", (n, 3), "1 if the column is closed (a face-up pair)"),
            ("pending_from_discard", 1,
             "1 if the card in hand was taken from the discard pile (it cannot be discarded)"),
            ("phase", len(PHASE_NAMES), "one-hot phase: " + ", ".join(PHASE_NAMES)),
            ("to_act", n, "one-hot seat of the player to act (zeros once the game is over)"),
            ("flips_left", 1, f"setup flips the player to act has left, divided by {max(initial_flips, 1)}"),
            ("dealer", n, "one-hot seat of the dealer"),
            ("trigger", n, "one-hot seat that turned all six face up (the final turns)"),
            ("turns", 1, f"turns played this round, divided by max_turns_per_round ({max_turns})"),
            ("round", 1, f"rounds played, divided by {round_limit}"),
            ("totals", n, f"cumulative scores, divided by {TOTAL_SCALE:g}", 60.0 * round_limit / TOTAL_SCALE),
            ("last_round", n, "each seat's score in the previous round, divided by 60"),
            ("stock_known", 1, "1 once the stock has been rebuilt from the discard pile this round"),
            ("last_round_grid", (n, NUM_SLOTS, 13),
             "one-hot rank (A..K) of each slot as revealed at the end of the previous round (zeros before)"),
            ("ended", 2, "[terminated, truncated]"),
        ]
    )


def layout(rules: GolfRules) -> Layout:
    """The state's layout for this configuration."""
    c = rules.config
    return _layout(c.num_players, c.decks, c.max_turns_per_round, c.round_limit, c.initial_flips)


class Codec:
    """Encodes a :class:`GolfState` as the state vector; decodes a vector's card census."""

    def __init__(self, rules: GolfRules):
        c = rules.config
        self.rules = rules
        self.n = c.num_players
        self.census = _census(c.num_players, c.decks)
        self.layout = layout(rules)
        self.max_turns = c.max_turns_per_round
        self.round_limit = c.round_limit
        self.flips = max(c.initial_flips, 1)

    def encode(self, s: GolfState) -> np.ndarray:
        lay = self.layout
        sl = lay.slices
        x = lay.zeros()
        self.census.encode(x, lay, self.rules.zones(s))
        x[sl["face_up"]] = np.asarray(s.face_up, dtype=np.float32).ravel()
        x[sl["closed"]] = np.asarray(s.closed, dtype=np.float32).ravel()
        x[sl["pending_from_discard"]] = float(s.pending is not None and s.pending_from_discard)
        write_one_hot(x, lay, "phase", s.phase)
        write_one_hot(x, lay, "to_act", s.current_player)
        x[sl["flips_left"]] = (s.flips_left if s.phase == 0 else 0) / self.flips
        write_one_hot(x, lay, "dealer", s.dealer)
        write_one_hot(x, lay, "trigger", s.trigger)
        x[sl["turns"]] = s.turns / self.max_turns
        x[sl["round"]] = s.round / self.round_limit
        x[sl["totals"]] = np.asarray(s.totals, dtype=np.float64) / TOTAL_SCALE
        x[sl["last_round"]] = np.asarray(s.last_round, dtype=np.float64) / 60.0
        x[sl["stock_known"]] = float(s.stock_known)
        if s.last_layouts is not None:
            ranks = np.asarray(s.last_layouts, dtype=np.int64) % 13
            base = lay.by_name["last_round_grid"].start
            x[base + np.arange(ranks.size) * 13 + ranks.ravel()] = 1.0
        x[sl["ended"]] = (float(s.terminated), float(s.truncated))
        return x

    def decode(self, vector: np.ndarray) -> dict[str, list[int]]:
        """The card census (``rules.zones``' names) a state vector encodes."""
        return self.census.decode(vector, self.layout)


def table(rules: GolfRules) -> str:
    """The state layout, its zones and its card rows, for the environment's docs."""
    return _census(rules.config.num_players, rules.config.decks).document(layout(rules))
