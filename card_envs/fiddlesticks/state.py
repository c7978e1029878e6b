"""Fiddlesticks' full-information state (``env.state()``): privileged, for centralized critics.

Everything on the table, by absolute seat: where every card lies (the census: each hand, the
face-up cards, the face-down slots, the SWAP picks so far, the stock in order, the pile in
order, the cleared cards), the ranks each hand is publicly known to hold and known not to hold
(what the view encodes from forced pick-ups), the pile's top run, the dealt face-up and hand
ranks and the picks made in the SWAP phase, the phase, the player to act, the dealer, who is
out and in which order, the turn counter and how the game ended. Cards are :mod:`card_envs.cards`
ints (suits included, though Fiddlesticks never looks at them). Left out: the random generator
(nothing is shuffled after the deal) and the order of cards within a hand or the face-up row,
which never matters (a hand plays its cards of a rank as interchangeable copies).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from card_envs import cards
from card_envs.encoding import CardCensus, Layout, Zone, write_one_hot
from card_envs.fiddlesticks.rules import (
    NUM_RANKS,
    NUM_SLOTS,
    PHASE_NAMES,
    RANK_NAMES,
    FiddlesticksRules,
    FiddlesticksState,
)


@lru_cache(maxsize=None)
def _census(num_players: int, num_decks: int) -> CardCensus:
    total = 52 * num_decks
    zones = []
    for p in range(num_players):
        zones += [
            Zone(f"hand {p}", total, "set", f"seat {p}'s hand"),
            Zone(f"face-up {p}", 2 * NUM_SLOTS, "set",
                 f"seat {p}'s face-up cards (in SWAP: the dealt ones not picked yet)"),
            Zone(f"face-down {p}", NUM_SLOTS, "seq", f"seat {p}'s face-down cards, position = slot 0..2"),
            Zone(f"picked {p}", NUM_SLOTS, "set", f"the cards seat {p} has picked to lie face up (SWAP phase)"),
        ]
    zones += [
        Zone("stock", total, "stack", "the stock, position 0 its top"),
        Zone("pile", total, "stack", "the pile, position 0 its top"),
        Zone("cleared", total, "set", "cards cleared from the pile (out of play)"),
    ]
    return CardCensus(sorted(cards.make_deck(num_decks)), zones, cards.to_str)


@lru_cache(maxsize=None)
def _layout(num_players: int, num_decks: int, max_turns: int) -> Layout:
    n = num_players
    k = 4 * num_decks
    ranks = " ".join(RANK_NAMES)
    return Layout(
        _census(n, num_decks).segments()
        + [
            ("known", (n, NUM_RANKS),
             f"cards of each rank ({ranks}) every player knows to be in each hand, divided by {k}"),
            ("absent", (n, NUM_RANKS),
             "1 where everyone knows the hand holds no card of that rank beyond the known ones"),
            ("run_rank", NUM_RANKS + 1, f"one-hot rank of the pile's top run ({ranks}, then: empty pile)"),
            ("run_length", 1, f"cards in the pile's top run of equal ranks, divided by {k}"),
            ("dealt_up", (n, NUM_RANKS), "ranks of each seat's dealt face-up cards, counts divided by 3"),
            ("dealt_hand", (n, NUM_RANKS), "ranks of each seat's dealt hand, counts divided by 3"),
            ("swap_picks", n, "face-up picks each seat has made in the SWAP phase, divided by 3"),
            ("phase", len(PHASE_NAMES), "one-hot phase: " + ", ".join(PHASE_NAMES)),
            ("to_act", n, "one-hot seat of the player to act (zeros once the game is over)"),
            ("dealer", n, "one-hot seat of the dealer (its left plays first)"),
            ("finish_order", (n, n), "[seat, k] = 1 if the seat went out k-th (0 = first)"),
            ("turns", 1, f"play actions so far, divided by max_turns ({max_turns})"),
            ("ended", 2, "[terminated, truncated]"),
        ]
    )


def layout(rules: FiddlesticksRules) -> Layout:
    """The state's layout for this configuration."""
    c = rules.config
    return _layout(c.num_players, c.num_decks, c.max_turns)


class Codec:
    """Encodes a :class:`FiddlesticksState` as the state vector; decodes a vector's census."""

    def __init__(self, rules: FiddlesticksRules):
        c = rules.config
        self.rules = rules
        self.n = c.num_players
        self.copies = 4 * c.num_decks
        self.census = _census(c.num_players, c.num_decks)
        self.layout = layout(rules)
        self.max_turns = c.max_turns

    def encode(self, s: FiddlesticksState) -> np.ndarray:
        lay = self.layout
        sl = lay.slices
        x = lay.zeros()
        self.census.encode(x, lay, self.rules.zones(s) | {f"face-down {p}": s.face_down[p] for p in range(self.n)})
        x[sl["known"]] = np.asarray(s.known, dtype=np.float64).ravel() / self.copies
        x[sl["absent"]] = np.asarray(s.absent, dtype=np.float32).ravel()
        write_one_hot(x, lay, "run_rank", s.run_rank)
        x[sl["run_length"]] = s.run_len / self.copies
        x[sl["dealt_up"]] = np.asarray(s.dealt_up, dtype=np.float64).ravel() / 3.0
        x[sl["dealt_hand"]] = np.asarray(s.dealt_hand, dtype=np.float64).ravel() / 3.0
        x[sl["swap_picks"]] = np.asarray(s.swap_picks, dtype=np.float64) / 3.0
        write_one_hot(x, lay, "phase", s.phase)
        write_one_hot(x, lay, "to_act", s.current_player)
        write_one_hot(x, lay, "dealer", s.dealer)
        for k, p in enumerate(s.places):
            write_one_hot(x, lay, "finish_order", k, row=p)
        x[sl["turns"]] = s.turns / self.max_turns
        x[sl["ended"]] = (float(s.terminated), float(s.truncated))
        return x

    def decode(self, vector: np.ndarray) -> dict[str, list[int]]:
        """The card census (``rules.zones``' names) a state vector encodes."""
        return self.census.decode(vector, self.layout)


def table(rules: FiddlesticksRules) -> str:
    """The state layout, its zones and its card rows, for the environment's docs."""
    return _census(rules.config.num_players, rules.config.num_decks).document(layout(rules))
