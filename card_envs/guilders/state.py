"""The Game of Guilders' full-information state (``env.state()``): privileged, for centralized
critics.

Everything on the table, by absolute seat: where every card lies (the census: the fan in draw
order, the discard pile in the order of its misses, each score pile in scoring order, the lost
and the set-aside cards), the value each scored card earned, who drew each discard and which
call it missed, the refans left, the turn counter, the player to act, and the turn just played
(mover, call, card drawn, whether it was shown, what happened, points gained and lost, the card
the evil joker took, and the card that missed). Left out: the random generator (refans and
chaotic reshuffles).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from card_envs import cards
from card_envs.encoding import CardCensus, Layout, Zone, write_one_hot
from card_envs.guilders.rules import (
    CARD_BASE,
    EVENT_NAMES,
    JOKER_CALL,
    JOKER_POINTS,
    NUM_ACTIONS,
    RANK_BASE,
    GuildersRules,
    GuildersState,
)

#: the parts of a call: [suit, rank, card, joker] kind, then its suit (c d h s), then its rank (A..K)
CALL_PARTS = 4 + 4 + 13


@lru_cache(maxsize=None)
def _census(num_players: int, deck: tuple[int, ...]) -> CardCensus:
    total = len(deck)
    zones = [
        Zone("fan", total, "stack", "the face-down fan, position 0 the next card drawn"),
        Zone("discards", total, "seq", "the discard pile, position = order of the misses (0 = the oldest)"),
    ]
    zones += [
        Zone(f"score pile {p}", total, "seq", f"seat {p}'s score pile, position = scoring order")
        for p in range(num_players)
    ]
    zones += [
        Zone("lost", total, "set", "cards the evil joker took out of the game"),
        Zone("set aside", total, "set", "jokers revealed and set aside"),
    ]
    return CardCensus(deck, zones, cards.to_str)


def _census_of(rules: GuildersRules) -> CardCensus:
    return _census(rules.num_players, tuple(sorted(rules.deck())))


@lru_cache(maxsize=None)
def _layout(census: CardCensus, n: int, max_turns: int, refans: int, max_score: int) -> Layout:
    m = census.num_cards
    return Layout(
        census.segments()
        + [
            ("card_value", m, f"the points each scored card earned (1, 5, 10 or 15), divided by {JOKER_POINTS}"),
            ("card_drawer", (m, n), "for each card in the discard pile: one-hot seat that drew it"),
            ("card_missed_call", (m, CALL_PARTS), "for each card in the discard pile, the call it missed: "
             "one-hot kind [suit, rank, card, joker], then the called suit (c d h s), then the called rank (A..K)"),
            ("card_missed_last", m, "1 for the card the last turn's call missed (wherever it lies now)"),
            ("refans_left", 2, f"[refans left divided by {max(refans, 1)}, 1 if unlimited]"),
            ("turn", 1, f"turns played, divided by max_turns ({max_turns})"),
            ("to_act", n, "one-hot seat of the player to act (zeros once the game is over)"),
            ("scores", n, f"each seat's score, divided by {max_score}"),
            ("last_mover", n, "one-hot seat that played the last turn"),
            ("last_call", NUM_ACTIONS, "one-hot call of the last turn"),
            ("last_card", cards.NUM_CARDS, "one-hot card drawn last turn (cards.py ints, jokers 52, 53)"),
            ("last_public", 1, "1 if the last drawn card was shown to everyone"),
            ("last_events", len(EVENT_NAMES), "what happened last turn: " + ", ".join(EVENT_NAMES)),
            ("last_gain", 1, f"points the last turn scored, divided by {JOKER_POINTS}"),
            ("last_loss", 1, f"points the evil joker took last turn, divided by {JOKER_POINTS}"),
            ("last_lost_card", cards.NUM_CARDS, "one-hot card the evil joker took last turn"),
            ("ended", 2, "[terminated, truncated]"),
        ]
    )


def layout(rules: GuildersRules) -> Layout:
    """The state's layout for this configuration."""
    c = rules.config
    return _layout(_census_of(rules), c.num_players, c.max_turns, c.refan_discards, rules.max_score)


def _call_parts(call: int) -> tuple[int, ...]:
    """Indices set in a ``card_missed_call`` row for ``call``."""
    if call < RANK_BASE:
        return (0, 4 + call)
    if call < CARD_BASE:
        return (1, 8 + call - RANK_BASE)
    if call < JOKER_CALL:
        c = call - CARD_BASE
        return (2, 4 + c // 13, 8 + c % 13)
    return (3,)


_CALL_ROWS = np.zeros((NUM_ACTIONS, CALL_PARTS), dtype=np.float32)
for _a in range(NUM_ACTIONS):
    _CALL_ROWS[_a, list(_call_parts(_a))] = 1.0


class Codec:
    """Encodes a :class:`GuildersState` as the state vector; decodes a vector's card census."""

    def __init__(self, rules: GuildersRules):
        c = rules.config
        self.rules = rules
        self.n = c.num_players
        self.census = _census_of(rules)
        self.layout = layout(rules)
        self.max_turns = c.max_turns
        self.refans = max(c.refan_discards, 1)
        self.max_score = rules.max_score
        names = [z.name for z in self.census.zones]
        self._fan, self._discards = names.index("fan"), names.index("discards")
        self._piles = [names.index(f"score pile {p}") for p in range(self.n)]

    def encode(self, s: GuildersState) -> np.ndarray:
        lay = self.layout
        sl = lay.slices
        n = self.n
        x = lay.zeros()
        zone, idx = self.census.encode(x, lay, self.rules.zones(s))
        m = self.census.num_cards
        by = lay.by_name
        for p in range(n):
            rows = np.flatnonzero(zone == self._piles[p])
            if rows.size:
                pile = s.piles[p]
                x[by["card_value"].start + rows] = [pile[i][1] / JOKER_POINTS for i in idx[rows]]
        rows = np.flatnonzero(zone == self._discards)
        if rows.size:
            at = idx[rows]
            drawer = np.asarray(s.discard_by, dtype=np.int64)[at]
            x[by["card_drawer"].start + rows * n + drawer] = 1.0
            calls = x[sl["card_missed_call"]].reshape(m, CALL_PARTS)
            calls[rows] = _CALL_ROWS[np.asarray(s.discard_call, dtype=np.int64)[at]]
        if s.last_place is not None:
            where, i = s.last_place
            z = self._fan if where == "fan" else self._discards
            hit = np.flatnonzero((zone == z) & (idx == i))
            x[by["card_missed_last"].start + hit] = 1.0
        x[sl["refans_left"]] = (max(s.refans_left, 0) / self.refans, float(s.refans_left < 0))
        x[sl["turn"]] = s.turn / self.max_turns
        write_one_hot(x, lay, "to_act", s.current_player)
        x[sl["scores"]] = s.stats[:, 0] / self.max_score
        write_one_hot(x, lay, "last_mover", s.last_mover)
        write_one_hot(x, lay, "last_call", s.last_call)
        write_one_hot(x, lay, "last_card", s.last_card)
        x[sl["last_public"]] = float(s.last_public)
        x[sl["last_events"]] = (s.last_events >> np.arange(len(EVENT_NAMES))) & 1
        x[sl["last_gain"]] = s.last_gain / JOKER_POINTS
        x[sl["last_loss"]] = s.last_loss / JOKER_POINTS
        write_one_hot(x, lay, "last_lost_card", s.last_lost_card)
        x[sl["ended"]] = (float(s.terminated), float(s.truncated))
        return x

    def decode(self, vector: np.ndarray) -> dict[str, list[int]]:
        """The card census (``rules.zones``' names) a state vector encodes."""
        return self.census.decode(vector, self.layout)


def table(rules: GuildersRules) -> str:
    """The state layout, its zones and its card rows, for the environment's docs."""
    return _census_of(rules).document(layout(rules))
