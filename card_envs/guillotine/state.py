"""Guillotine's full-information state (``env.state()``): privileged, for centralized critics.

Everything on the table, by absolute seat: where every card lies (the census: the four hands,
the current trick by seat, each seat's taken cards, the Domino layout), every card each seat
has played this deal, what public play proves each seat does not hold, the led suit, the
trick's leader, tricks done and won, the first and last trick's winners, the Domino anchor,
the cards that may be played next and the finishing order, the phase, the player to act, the
dealer and the first dealer, the contract and the contracts each seat has used, the deal
number, the totals and the last deal's points. The census rows are Guillotine's 32 cards in its
own order (deck index ``8·suit + rank``, ranks 7..A) and the census names cards as
:mod:`card_envs.cards` ints, as ``rules.zones`` does; the card segments (``played``, ...) are
indexed by deck index. Left out: the random generator (the later deals).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from card_envs.encoding import CardCensus, Layout, Zone, signed_segments, write_one_hot, write_signed
from card_envs.guillotine.rules import (
    BONUS,
    CONTRACT_NAMES,
    DECK_CARD,
    DOMINO_TURN,
    NUM_CARDS,
    NUM_CONTRACTS,
    NUM_DEALS,
    NUM_PLAYERS,
    NUM_TRICKS,
    PHASE_NAMES,
    GuillotineRules,
    GuillotineState,
)
from card_envs.cards import to_str

N = NUM_PLAYERS
SCORE_SCALE = 100.0
_BIT = np.arange(NUM_CARDS, dtype=np.uint64)


@lru_cache(maxsize=None)
def _census() -> CardCensus:
    zones = [Zone(f"hand {p}", NUM_CARDS, "set", f"seat {p}'s hand") for p in range(N)]
    zones.append(Zone("trick", N, "seq", "the current trick, position = the seat that played the card"))
    zones += [
        Zone(f"taken {p}", NUM_CARDS, "set", f"the cards of the tricks seat {p} has won this deal") for p in range(N)
    ]
    zones.append(Zone("layout", NUM_CARDS, "set", "the Domino layout"))
    return CardCensus(DECK_CARD, zones, to_str)


def _bits(masks) -> np.ndarray:
    """Card masks (ints over deck indices) as rows of 0/1."""
    a = np.asarray(masks, dtype=np.uint64)
    return ((a[..., None] >> _BIT) & np.uint64(1)).astype(np.float32)


@lru_cache(maxsize=None)
def _layout() -> Layout:
    return Layout(
        _census().segments()
        + [
            ("played", (N, NUM_CARDS), "every card each seat has played this deal (by deck index 8·suit + rank)"),
            ("known_absent", (N, NUM_CARDS), "cards public play proves each seat does not hold"),
            ("playable", NUM_CARDS, "Domino: the cards that extend the layout (by deck index)"),
            ("led_suit", 4, "one-hot suit led to the current trick (c d h s)"),
            ("trick_leader", N, "one-hot seat that leads the current trick"),
            ("tricks_done", 1, f"tricks completed this deal, divided by {NUM_TRICKS}"),
            ("tricks_won", N, f"tricks each seat has won this deal, divided by {NUM_TRICKS}"),
            ("first_trick_winner", N, "one-hot seat that won this deal's first trick"),
            ("last_trick_winner", N, "one-hot seat that won this deal's last trick"),
            ("anchor", 8, "one-hot Domino anchor rank (7..A)"),
            ("out_order", (N, 2), "Domino: 1 if the seat went out [first, second]"),
            ("phase", len(PHASE_NAMES), "one-hot phase: " + ", ".join(PHASE_NAMES)),
            ("to_act", N, "one-hot seat of the player to act (zeros once the game is over)"),
            ("dealer", N, "one-hot seat of the dealer"),
            ("first_dealer", N, "one-hot seat of the first deal's dealer"),
            ("contract", NUM_CONTRACTS, "one-hot contract of this deal: " + ", ".join(CONTRACT_NAMES)),
            ("used_contracts", (N, NUM_CONTRACTS), "contracts each seat has chosen as dealer"),
            ("deal", NUM_DEALS, f"one-hot index of the current deal, 0-based (of {NUM_DEALS}, or of 1 in single mode)"),
            ("single_deal", 1, "1 if the game is one deal (mode='single')"),
        ]
        + signed_segments("totals", N, "each seat's total", SCORE_SCALE, 1780.0, -740.0)
        + signed_segments("last_deal", N, "each seat's points in the last finished deal", SCORE_SCALE, 250.0, -80.0)
        + [("ended", 2, "[terminated, truncated]")]
    )


def layout(rules: GuillotineRules) -> Layout:
    """The state's layout (the same for every configuration)."""
    return _layout()


class Codec:
    """Encodes a :class:`GuillotineState` as the state vector; decodes a vector's census."""

    def __init__(self, rules: GuillotineRules):
        self.rules = rules
        self.census = _census()
        self.layout = _layout()

    def encode(self, s: GuillotineState) -> np.ndarray:
        lay = self.layout
        sl = lay.slices
        x = lay.zeros()
        contents = self.rules.zones(s)
        contents["trick"] = [DECK_CARD[c] if c >= 0 else None for c in s.trick]
        self.census.encode(x, lay, contents)
        x[sl["played"]] = _bits(s.played).ravel()
        x[sl["known_absent"]] = _bits(s.absent).ravel()
        if s.phase in (DOMINO_TURN, BONUS):
            x[sl["playable"]] = _bits(s.playable)
        write_one_hot(x, lay, "led_suit", s.led)
        write_one_hot(x, lay, "trick_leader", s.leader if s.phase == 1 else -1)
        x[sl["tricks_done"]] = s.tricks_done / NUM_TRICKS
        x[sl["tricks_won"]] = np.asarray(s.tricks_won, dtype=np.float64) / NUM_TRICKS
        write_one_hot(x, lay, "first_trick_winner", s.first_winner)
        write_one_hot(x, lay, "last_trick_winner", s.last_winner)
        write_one_hot(x, lay, "anchor", s.anchor)
        for k, p in enumerate(s.out):
            write_one_hot(x, lay, "out_order", k, row=p)
        write_one_hot(x, lay, "phase", s.phase)
        write_one_hot(x, lay, "to_act", s.current_player)
        write_one_hot(x, lay, "dealer", s.dealer)
        write_one_hot(x, lay, "first_dealer", s.first_dealer)
        write_one_hot(x, lay, "contract", s.contract)
        x[sl["used_contracts"]] = ((np.asarray(s.used)[:, None] >> np.arange(NUM_CONTRACTS)) & 1).ravel()
        write_one_hot(x, lay, "deal", s.deal)
        x[sl["single_deal"]] = float(s.num_deals == 1)
        write_signed(x, lay, "totals", s.totals, SCORE_SCALE)
        write_signed(x, lay, "last_deal", s.last_deal, SCORE_SCALE)
        x[sl["ended"]] = (float(s.terminated), float(s.truncated))
        return x

    def decode(self, vector: np.ndarray) -> dict[str, list[int]]:
        """The card census (``rules.zones``' names, cards.py ints) a state vector encodes."""
        return self.census.decode(vector, self.layout)


def table(rules: GuillotineRules) -> str:
    """The state layout, its zones and its card rows, for the environment's docs."""
    return _census().document(layout(rules))



__all__ = ["Codec", "layout", "table"]
