"""The full-information state of Collector and Hot (``env.state()``): privileged, for
centralized critics.

Everything on the table, by absolute seat: where every card lies (the census: each hand, the
stock in order, this round's revealed cards by seat), which hand cards are publicly known (taken
cards, stock cards drawn after they were seen face up), how many cards at the stock's top were
never seen, every pending commitment of the current phase (hidden from the players until the
phase closes), who the phase asks, the phase, the player to act, the dealer and the lead seat,
the round, last round's plays, takes, claims and draw counts, the hands laid down, the winners
and who shares first place, and, in Hot, the game totals, the deal number and the last deal's
points. Left out: the random generator (the later deals' shuffles) and the order of cards
within a hand, which never matters (suits are irrelevant; a play of rank r takes a publicly
known copy first, marked in ``card_known``).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from card_envs import cards
from card_envs.encoding import CardCensus, Layout, Zone, write_one_hot
from card_envs.set_collecting.engine import NUM_RANKS, PHASE_NAMES, RANK_NAMES, SetState
from card_envs.set_collecting.variant import SetVariant


@lru_cache(maxsize=None)
def _census(num_players: int) -> CardCensus:
    zones = [Zone(f"hand {p}", 52, "set", f"seat {p}'s hand") for p in range(num_players)]
    zones += [
        Zone("stock", 52, "seq", "the stock, position 0 its top (the next card drawn)"),
        Zone("played", num_players, "seq", "the cards revealed this round, position = the seat that played it"),
    ]
    return CardCensus(range(52), zones, cards.to_str)


@lru_cache(maxsize=None)
def _layout(n: int, num_actions: int, variant: SetVariant, max_rounds: int, target_points: int,
            max_deals: int) -> Layout:
    ranks = " ".join(RANK_NAMES)
    deals = variant.deals
    segments = _census(n).segments() + [
        ("card_known", 52, "1 if the card is publicly known to be in its holder's hand"),
        ("stock_unknown", 1, "cards at the top of the stock nobody has seen, divided by 52"),
        ("pending", (n, num_actions), "one-hot action each seat has committed in the current phase (hidden from "
         "the players until the phase closes)"),
        ("asked", n, "1 for each seat the current phase asks"),
        ("phase", len(PHASE_NAMES), "one-hot phase: " + ", ".join(PHASE_NAMES)),
        ("to_act", n, "one-hot seat of the player to act (zeros once the game is over)"),
        ("dealer", n, "one-hot seat of the dealer"),
        ("lead", n, "one-hot lead seat of this round (the phase asks clockwise from it)"),
        ("round", 1, f"rounds played{' this deal' if deals else ''}, divided by {max_rounds}"),
        ("last_played", (n, 52), "one-hot card each seat played in the last resolved round"),
        ("last_taken_by", (n, n), "[discarder, taker] = 1 if the taker got the discarder's card last round"),
        ("last_claimed", (n, n), "[claimant, discarder] = 1 if the claimant chose to take that card last round"),
        ("last_drawn", n, "stock cards each seat drew last round, divided by 2"),
        ("laid_down", 1, "1 while the hands are laid down (shown)"),
        ("shown", (n, NUM_RANKS), f"the ranks ({ranks}) of every hand laid down at the end (of the last scored "
         "deal in Hot), counts divided by 4"),
        ("winners", n,
         "seats that completed a set at the last check" + (" (the last deal's callers)" if deals else "")),
        ("first_place", n, "1 where the seat shares first place (once the game is over)"),
        ("ended", 2, "[terminated, truncated]"),
    ]
    if deals:
        most_deal = 13 * (n - 1)
        segments += [
            ("totals", n, f"game totals, divided by target_points ({target_points})",
             (target_points - 1 + most_deal) / target_points),
            ("deal", 1, f"deals finished, divided by max_deals ({max_deals})"),
            ("last_deal_points", n, f"each seat's points in the last finished deal, divided by {most_deal}"),
        ]
    return Layout(segments)


def layout(rules) -> Layout:
    """The state's layout for this configuration of Collector or Hot (a game of deals, its variant
    says, adds the totals, the deal number and the last deal's points)."""
    c = rules.config
    return _layout(
        rules.num_players, rules.num_actions, rules.variant, rules.max_rounds,
        getattr(c, "target_points", 11), getattr(c, "max_deals", 100),
    )


class Codec:
    """Encodes a :class:`SetState` as the state vector; decodes a vector's card census."""

    def __init__(self, rules):
        self.rules = rules
        self.n = rules.num_players
        self.deals = rules.variant.deals
        self.census = _census(self.n)
        self.layout = layout(rules)
        self.max_rounds = rules.max_rounds
        c = rules.config
        self.target = getattr(c, "target_points", 11)
        self.max_deals = getattr(c, "max_deals", 100)

    def encode(self, s: SetState) -> np.ndarray:
        lay = self.layout
        sl = lay.slices
        n = self.n
        x = lay.zeros()
        contents = {f"hand {p}": s.hands[p] for p in range(n)}
        contents["stock"] = list(s.stock)
        contents["played"] = [c if c >= 0 else None for c in s.played]
        self.census.encode(x, lay, contents)
        ks = lay.by_name["card_known"].start
        for known in s.known:
            if known:
                x[ks + np.asarray(known)] = 1.0
        x[sl["stock_unknown"]] = s.stock_unknown / 52.0
        for p in range(n):
            write_one_hot(x, lay, "pending", s.pending[p], row=p)
            write_one_hot(x, lay, "last_played", s.last_played[p], row=p)
            write_one_hot(x, lay, "last_taken_by", s.last_taker[p], row=p)
            write_one_hot(x, lay, "last_claimed", s.last_claim[p], row=p)
        if s.phase != 2:
            x[lay.by_name["asked"].start + np.asarray(s.order, dtype=np.int64)] = 1.0
        write_one_hot(x, lay, "phase", s.phase)
        write_one_hot(x, lay, "to_act", s.current_player)
        write_one_hot(x, lay, "dealer", s.dealer)
        write_one_hot(x, lay, "lead", s.lead)
        x[sl["round"]] = s.round / self.max_rounds
        x[sl["last_drawn"]] = np.asarray(s.last_drawn, dtype=np.float64) / 2.0
        x[sl["laid_down"]] = float(s.laid_down)
        if s.shown is not None:
            x[sl["shown"]] = np.asarray(s.shown, dtype=np.float64).ravel() / 4.0
        ws = lay.by_name["winners"].start
        for p in s.winners:
            x[ws + p] = 1.0
        x[sl["first_place"]] = np.asarray(s.first_place, dtype=np.float32)
        x[sl["ended"]] = (float(s.terminated), float(s.truncated))
        if self.deals:
            x[sl["totals"]] = np.asarray(s.scores, dtype=np.float64) / self.target
            x[sl["deal"]] = s.deal / self.max_deals
            x[sl["last_deal_points"]] = np.asarray(s.last_deal_points, dtype=np.float64) / (13 * (n - 1))
        return x

    def decode(self, vector: np.ndarray) -> dict[str, list[int]]:
        """The card census (``rules.zones``' names) a state vector encodes."""
        return self.census.decode(vector, self.layout)


def table(rules) -> str:
    """The state layout, its zones and its card rows, for the environment's docs."""
    return _census(rules.num_players).document(layout(rules))
