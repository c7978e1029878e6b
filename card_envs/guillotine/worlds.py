"""Guillotine worlds from one player's observation alone (determinization).

:func:`sample_world` ``(observation, rng, **options)`` returns a full
:class:`~card_envs.guillotine.rules.GuillotineState` in the observer's frame (the observation
is written from the observer's seat, index 0 first, so the observer is seat 0 of the world)
whose ``view(world, 0)`` encodes to the same bytes. It reads only the decoded observation (the
PlayerView) and the options; never an env or a true state.

**What is public** (``card_envs.guillotine.view``): the observer's hand; every hand's size;
every card played this deal and by whom (the current trick, the Domino layout), each player's
taken cards, the first trick's winner, the anchor, the finishing order, the dealer, the
contract, every dealer's used contracts, the deal number, the totals and the last deal's
points, and ``known_absent``: the cards public play proves a player does not hold (a suit it
failed to follow; the playable cards when it passed on a compulsory Domino turn).

**The hidden cards** are the 32 minus the observer's hand and every card played this deal.
They lie in the other three hands, and the only public constraints on them are the hand sizes
and ``known_absent`` (nothing else a play shows narrows a hand: following suit, leading, a
Domino card laid or a STOP in a bonus is legal with any holding of the kept cards). Each hidden
card may go to the players not known to lack it.

**Why the sample follows the posterior.** The deal is a uniform permutation, and given the
public play each current arrangement of the hidden cards is exactly one deal (the deal is the
current hands plus each seat's played cards). When the opponents' play is card-blind (their
choices, contract choice included, do not depend on which consistent cards they hold), the
likelihood of the public history is the same for every arrangement that satisfies the
constraints and zero for every other, so the posterior is uniform over the consistent
arrangements. Several players' voids couple (a card two players lack must go to the third), so
the hands are dealt exactly (:class:`_HiddenDeal`): the hidden cards fall into classes by the
set of opponents that may hold them (at most seven); a card only one opponent may hold is
that opponent's; :class:`card_envs.determinization.CountDeal` draws how many cards of each
class each opponent gets, with probabilities proportional to the number of arrangements each
split allows (a small dynamic programme, or a sequential hypergeometric draw when the allowed
sets are nested; no rejection); each class's cards are then handed out in uniformly random
order. Every consistent arrangement is equally likely and no other is ever drawn.

**Public facts rebuilt from the observation**: the first dealer (``dealer - deal``, mod 4), the
Domino table (every card played in Domino) and its playable cards (the anchor rank of the suits
with no row, and the cards next to each row's ends), the tricks done and each player's tricks
won (taken cards / 4), the leader (shown during a trick). **Not in the observation, and not
needed**: once the game is over, the leader of the last trick and the last trick's winner (only
the deal's scoring read them, and it is done); the world sets them to -1.

The world's generator is new, seeded from ``rng``: the later deals are sampled too. Everything
random comes from ``rng``; what depends only on the options (the rules, the codec) and on the
observation (its decoding and the constraint tables) is cached, so a search drawing many worlds
of one observation pays the decoding once.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

from card_envs.determinization import CountDeal, observation_vector, table, world_rng
from card_envs.guillotine.rules import (
    ALL_CARDS,
    DOMINO,
    NEIGHBOURS,
    NUM_PLAYERS,
    OVER,
    PHASE_NAMES,
    SUIT_MASK,
    TRICK,
    GuillotineRules,
    GuillotineState,
    cards_of,
)
from card_envs.guillotine.view import LAYOUT, Codec

GAME = "guillotine_v0"
N = NUM_PLAYERS


_CODEC = Codec()


def _rules(options: dict[str, Any]) -> GuillotineRules:
    return GuillotineRules(**options)


def playable_cards(table: int, anchor: int) -> int:
    """The cards the Domino layout ``table`` (anchor rank ``anchor``) accepts: the anchor-rank
    card of every suit with no row yet, and the cards next to each row's ends (none before the
    opening card)."""
    if table == 0:
        return 0
    out = 0
    for suit in range(4):
        row = table & SUIT_MASK[suit]
        if row == 0:
            out |= 1 << (8 * suit + anchor)
        else:
            for c in cards_of(row):
                out |= NEIGHBOURS[c]
    return out & ~table


class _Template:
    """What one observation fixes: every public field of the state, and the hidden-card problem."""

    __slots__ = ("fields", "hand", "deal")


class _HiddenDeal:
    """The hidden cards dealt to the three opponents (world seats 1..3), uniformly over every
    arrangement that gives each its hand size and no card it is known to lack.

    Each card's class is the set of opponents that may hold it. A card only one opponent may
    hold is that opponent's (forced). When one class is left, the split is a plain shuffle.
    Otherwise :class:`~card_envs.determinization.CountDeal` draws how many cards of each class
    each opponent gets (exact: weights are the numbers of arrangements), with an opponent that
    may hold every class as its free group when there is one (a smaller programme), and each
    class's cards are then handed out in uniformly random order."""

    __slots__ = ("forced", "pool", "card_class", "count_deal", "groups", "free", "room")

    def __init__(self, pool: list[int], absent: list[int], room: tuple[int, ...]):
        kinds = [tuple(k for k in range(1, N) if not absent[k] >> c & 1) for c in pool]
        self.forced = [0] * N
        left = list(room)
        rest, rest_kinds = [], []
        for c, kind in zip(pool, kinds):
            if len(kind) == 1:
                self.forced[kind[0]] |= 1 << c
                left[kind[0] - 1] -= 1
            else:
                rest.append(c)
                rest_kinds.append(kind)
        if any(x < 0 for x in left) or not all(kinds):
            raise ValueError(f"{GAME}.sample_world: the observation is inconsistent: no arrangement of the "
                             "hidden cards gives every opponent its hand size and none a card it is known to lack")
        self.pool = rest
        self.room = left
        classes = sorted(set(rest_kinds))
        self.card_class = [classes.index(kind) for kind in rest_kinds]
        seats = [k for k in range(1, N) if left[k - 1] > 0]
        self.count_deal = None
        self.free = self.groups = None
        if len(classes) > 1:
            full = [k for k in seats if all(k in kind for kind in classes)]
            self.free = full[0] if full else None
            self.groups = [k for k in seats if k != self.free]
            counts = [rest_kinds.count(kind) for kind in classes]
            allowed = [[k in kind for kind in classes] for k in self.groups]
            try:
                self.count_deal = CountDeal(counts, [left[k - 1] for k in self.groups], allowed)
            except ValueError as e:
                raise ValueError(f"{GAME}.sample_world: the observation is inconsistent: {e}") from None
        elif classes and any(left[k - 1] for k in range(1, N) if k not in classes[0]):
            raise ValueError(f"{GAME}.sample_world: the observation is inconsistent: an opponent's hand "
                             "cannot be filled with cards it may hold")

    def hands(self, hand: int, rng: np.random.Generator) -> list[int]:
        """The four hands of one uniformly drawn arrangement (``hand``: the observer's)."""
        hands = self.forced[:]
        hands[0] = hand
        pool = self.pool
        if not pool:
            return hands
        if self.count_deal is None:  # one class: a plain shuffle
            order = rng.permutation(len(pool)).tolist()
            i = 0
            for k in range(1, N):
                for j in order[i : i + self.room[k - 1]]:
                    hands[k] |= 1 << pool[j]
                i += self.room[k - 1]
            return hands
        split = self.count_deal.sample(rng)  # split[g][c]: class-c cards of group g
        slots = []  # per class, the seat of each of its cards in dealing order
        for c in range(len(split[0]) if split else 0):
            seats = []
            for k, row in zip(self.groups, split):
                seats += [k] * row[c]
            slots.append(seats)
        if not slots:
            slots = [[] for _ in range(max(self.card_class) + 1)]
        used = [0] * len(slots)
        card_class, free = self.card_class, self.free
        for i in rng.permutation(len(pool)).tolist():
            c = card_class[i]
            u = used[c]
            seat = slots[c][u] if u < len(slots[c]) else free
            hands[seat] |= 1 << pool[i]
            used[c] = u + 1
        return hands


@lru_cache(maxsize=2048)
def _template(obs_bytes: bytes, num_deals: int) -> _Template:
    x = np.frombuffer(obs_bytes, dtype=np.float32)
    v = _CODEC.decode(x)
    if v.num_deals != num_deals:
        raise ValueError(
            f"{GAME}.sample_world: the observation is of a {v.num_deals}-deal game but the options give "
            f"{num_deals} deal(s) (mode='single' is one deal, 'full' 24): pass the env's options"
        )
    phase = PHASE_NAMES.index(v.phase)
    played_all = v.played[0] | v.played[1] | v.played[2] | v.played[3]
    hidden = ALL_CARDS & ~v.hand & ~played_all
    room = tuple(v.hand_sizes[1:])
    if v.hand & played_all or v.hand.bit_count() != v.hand_sizes[0] or hidden.bit_count() != sum(room):
        raise ValueError(f"{GAME}.sample_world: the observation is inconsistent (its hands and played cards "
                         "do not make up the 32 cards)")
    domino = v.contract == DOMINO
    table = played_all if domino else 0
    anchor = -1 if v.anchor is None else v.anchor
    trick = [-1 if c is None else c for c in v.trick]
    taken_cards = sum(t.bit_count() for t in v.taken)
    fields = {
        "phase": phase,
        "current_player": -1 if v.to_act is None else v.to_act,
        "terminated": phase == OVER,
        "truncated": False,
        "deal": v.deal,
        "num_deals": v.num_deals,
        "first_dealer": (v.dealer - v.deal) % N,
        "dealer": v.dealer,
        "contract": -1 if v.contract is None else v.contract,
        "used": list(v.used_contracts),
        "played": list(v.played),
        "absent": list(v.known_absent),
        "trick": trick,
        "trick_size": sum(c >= 0 for c in trick),
        "leader": v.trick_leader if (phase == TRICK and v.trick_leader is not None) else -1,
        "led": -1 if v.led_suit is None else v.led_suit,
        "tricks_done": taken_cards // N,
        "taken": list(v.taken),
        "tricks_won": [t.bit_count() // N for t in v.taken],
        "first_winner": -1 if v.first_trick_winner is None else v.first_trick_winner,
        "last_winner": -1,
        "table": table,
        "playable": playable_cards(table, anchor) if domino else 0,
        "anchor": anchor,
        "out": list(v.out_order),
        "totals": list(v.totals),
        "last_deal": list(v.last_deal),
    }
    t = _Template()
    t.fields = fields
    t.hand = v.hand
    t.deal = _HiddenDeal(cards_of(hidden), v.known_absent, room)
    return t


def sample_world(observation: Any, rng: np.random.Generator, **options: Any) -> GuillotineState:
    """A Guillotine state consistent with ``observation`` (the observer is seat 0), its hidden
    cards drawn uniformly over the arrangements the public play allows (see the module doc).

    ``observation``: the observation vector, or ``env.observe(agent)``'s dict. ``rng``: a numpy
    Generator, the only source of randomness. ``options``: the env's options (``env(**options)``).
    ``view(world, 0)`` encodes to the same bytes as ``observation``; the world has its own
    generator (seeded from ``rng``), so its later deals are sampled too.
    """
    if not isinstance(rng, np.random.Generator):
        raise ValueError(f"{GAME}.sample_world: rng must be a numpy Generator (np.random.default_rng(seed)), "
                         f"got {type(rng).__name__}")
    rules = table(GAME, options, _rules)
    x = observation_vector(observation, LAYOUT.size, GAME)
    t = _template(x.tobytes(), rules.config.num_deals)
    s = GuillotineState()
    for name, value in t.fields.items():
        setattr(s, name, value[:] if isinstance(value, list) else value)
    s.hands = t.deal.hands(t.hand, rng)
    s.rng = world_rng(rng)
    return s


__all__ = ["sample_world", "playable_cards"]
