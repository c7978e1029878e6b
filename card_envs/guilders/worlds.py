"""Guilders determinization: a full rules state sampled from one player's observation alone.

Public: :func:`sample_world` (exported as ``card_envs.guilders_v0.sample_world``).

``sample_world(observation, rng, **options)`` decodes the observation (``Codec.decode`` gives
the :class:`~card_envs.guilders.view.PlayerView`) and builds a
:class:`~card_envs.guilders.rules.GuildersState` in the observer's frame: the observer is seat
0, the others follow in turn order as the view writes them, so ``view(world, 0)`` encodes to the
same observation, byte for byte. It never sees an env or a true state.

**What the observation fixes.** Every score pile card by card (value and place), the cards
the evil penalty took out of the game, the jokers set aside, the fan's and discard pile's
sizes, the refans left, the turn; the observer's own discards (every discard with
``public_discards``); per call, the misses now in the discard pile (``miss_calls``), the
observer's own (``own_miss_calls``), and each seat's number of misses there; the last turn
(mover, call, what happened, the card if it was shown or the observer drew it).

**What is sampled, and why it is the posterior.** The unseen cards (``unseen``: the fan plus
the others' face-down misses) are placed on the others' miss places and the fan. Each such
miss place holds a card that fails its call (``can_miss``: a ``suit h`` miss is no heart; with
evil or chaotic on no miss is a joker; a joker call's miss is an ordinary card). Every fan is a
uniform shuffle of a multiset everybody knows, the draws take its places in order, and the
history is a function of the arrangement (the calls taken as given, card-blind), so the
posterior is uniform over the arrangements of ``unseen`` that keep every miss consistent
(``card_envs/guilders/odds.py`` derives the same law for the next draw). Sampled exactly:

1. up to 32 rejection proposals, drawn at once: a uniform shuffle of ``unseen`` over the miss
   places and the fan, kept if every miss place holds a card that fails its call. A proposal
   that passes is uniform over the consistent arrangements; the cost is bounded by 32
   proposals whatever the acceptance rate;
2. if none passes, an exact sequential draw: miss places are filled one at a time, place j
   (call a) getting card c with probability proportional to
   ``odds.draw_probabilities(unseen, misses - e_a)[c] * can_miss(a, c)``. Removing j's
   constraint makes it one more fan place, whose marginal ``draw_probabilities`` gives
   exactly; conditioning it on failing its call gives j's marginal under all the constraints.
   Then the place is fixed and the next one drawn from the reduced problem.

The mixture of the two is uniform too (each branch is), so the sample is exact; the fan is then
a uniform shuffle of the cards left.

**Facts the observation does not hold** (none changes what can happen next): which opponent
made which of the others' face-down misses (only the calls' multiset and each seat's number
of misses are observed; the calls are dealt among the opponents uniformly at random, keeping
the last turn's miss with its mover), which own discard went with which own call (any
consistent pairing; with ``public_discards`` the same for every discard), and the discard
pile's order (random, the last turn's miss on top). The world's own ``rng`` is seeded from
``rng``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from card_envs import cards
from card_envs.determinization import check_rng, PlanCache, observation_vector, table, world_rng
from card_envs.guilders import odds
from card_envs.guilders.rules import (
    EVENT_NAMES,
    NUM_ACTIONS,
    VALUE_INDEX,
    VALUES,
    GuildersRules,
    GuildersState,
)
from card_envs.guilders.view import Codec

NAME = "guilders_v0"
NUM_CARDS = cards.NUM_CARDS
#: rejection proposals tried (at once) before the exact sequential draw
PROPOSALS = 32
_BIT = {name: 1 << i for i, name in enumerate(EVENT_NAMES)}


class _Table:
    """What depends on the options only: rules, codec, and ``can_miss`` as a (70, 54) table."""

    def __init__(self, options: dict[str, Any]):
        self.rules = GuildersRules(**options)
        self.config = self.rules.config
        self.codec = Codec(self.rules)
        self.size = self.codec.layout.size
        self.fits = np.array(
            [[self.rules.can_miss(a, c) for c in range(NUM_CARDS)] for a in range(NUM_ACTIONS)], dtype=bool
        )
        self.jokers_can_miss = self.codec.jokers_can_miss
        self.plans = PlanCache(lambda x: _Plan(self, self.codec.decode(x)))


def _cards(counts) -> list[int]:
    return [c for c in range(len(counts)) for _ in range(int(counts[c]))]


def _match(calls: list[int], pool: list[int], fits: np.ndarray) -> list[int]:
    """A card of ``pool`` for each call, every card failing its call (Kuhn's augmenting paths):
    a pairing of known discards with their calls. Which one is not observed and changes
    nothing that can happen next, so one fixed pairing per observation serves every sample."""
    owner = [-1] * len(pool)  # card index -> call index

    def augment(j: int, seen: list[bool]) -> bool:
        for i, c in enumerate(pool):
            if not seen[i] and fits[calls[j], c]:
                seen[i] = True
                if owner[i] < 0 or augment(owner[i], seen):
                    owner[i] = j
                    return True
        return False

    for j in range(len(calls)):
        if not augment(j, [False] * len(pool)):
            raise ValueError(f"{NAME}: no pairing of the known discards with their missed calls")
    got = [0] * len(calls)
    for i, j in enumerate(owner):
        got[j] = pool[i]
    return got


class _Plan:
    """Everything one observation fixes (the random part is :meth:`sample`)."""

    def __init__(self, t: _Table, v):
        cfg = t.config
        self.v = v
        n = self.n = cfg.num_players
        self.public = cfg.public_discards
        self.piles = [list(p) for p in v.piles]
        self.lost = _cards(v.lost)
        aside = np.zeros(NUM_CARDS, dtype=np.int64)
        aside[52:] = v.set_aside
        self.aside_counts = aside
        self.set_aside = _cards(aside)
        self.events = 0
        for name in v.last_events:
            self.events |= _BIT[name]
        missed = bool(self.events & _BIT["missed"])
        refanned = bool(self.events & _BIT["refan"])
        self.mover = -1 if v.last_mover is None else v.last_mover
        # the last turn's miss, still on the discard pile (on top) or shuffled into the fan
        self.last_miss = missed and not refanned
        self.miss_in_fan = missed and refanned
        self.seen = v.last_card is not None
        own_calls = [a for a in range(NUM_ACTIONS) for _ in range(int(v.own_miss_calls[a]))]
        other_calls = [a for a in range(NUM_ACTIONS) for _ in range(int(v.miss_calls[a] - v.own_miss_calls[a]))]
        seat_counts = [int(k) for k in v.seat_misses]
        if min(v.miss_calls - v.own_miss_calls, default=0) < 0 or seat_counts[0] != len(own_calls) or sum(
            seat_counts
        ) != len(own_calls) + len(other_calls) or sum(seat_counts) != v.discard_size:
            raise ValueError(f"{NAME}: the miss counts do not add up to the discard pile")
        self.last_call = -1 if v.last_call is None else v.last_call
        if self.last_miss:  # the top discard is the mover's miss of last_call
            calls = own_calls if self.mover == 0 else other_calls
            if self.last_call not in calls or seat_counts[self.mover] == 0:
                raise ValueError(f"{NAME}: the last turn's miss is not among the discard pile's misses")
            calls.remove(self.last_call)
            seat_counts[self.mover] -= 1
        self.own_calls, self.other_calls, self.seat_counts = own_calls, other_calls, seat_counts
        self.other_seats = np.repeat(np.arange(n), seat_counts)[len(own_calls):] if n > 1 else np.zeros(0, np.int64)
        # the cards: the known discards, and the unseen pool for the others' misses and the fan
        known = _cards(v.known_discards)
        if self.last_miss and self.seen:
            known.remove(v.last_card)
        self.known = known
        self.unseen = np.array(v.unseen, dtype=np.int64)
        hidden = 0 if self.public else len(other_calls) + (1 if self.last_miss and not self.seen else 0)
        if int(self.unseen.sum()) != v.fan_size + hidden:
            raise ValueError(f"{NAME}: {int(self.unseen.sum())} unseen cards for a fan of {v.fan_size} and {hidden} hidden misses")
        # the miss places whose cards are sampled (the others' face-down misses)
        self.places = [] if self.public else other_calls + ([self.last_call] if self.last_miss and not self.seen else [])
        self.place_calls = np.array(self.places, dtype=np.int64)
        self.pool = np.array(_cards(self.unseen), dtype=np.int64)
        if self.public:  # every discard is known: one pairing for all of them
            got = _match(own_calls + other_calls, known, t.fits)
            self.own_cards, self.other_cards = got[: len(own_calls)], got[len(own_calls) :]
        else:
            self.own_cards, self.other_cards = _match(own_calls, known, t.fits), None
        stats = np.zeros((n, 1 + len(VALUES)), dtype=np.int64)
        for p, pile in enumerate(self.piles):
            for _, value in pile:
                stats[p, 0] += value
                stats[p, 1 + VALUE_INDEX[value]] += 1
        self.stats = stats
        ended = v.to_act is None
        self.ended = (ended and v.fan_size == 0, ended and v.fan_size > 0)

    def _miss_cards(self, t: _Table, rng: np.random.Generator) -> tuple[list[int], list[int]]:
        """(cards of the sampled miss places, the fan's cards) from the exact posterior."""
        m = len(self.places)
        pool = self.pool
        if m == 0:
            return [], rng.permutation(pool).tolist()
        keys = rng.random((PROPOSALS, len(pool)))
        perms = np.argsort(keys, axis=1)
        ok = t.fits[self.place_calls, pool[perms[:, :m]]].all(axis=1)
        hit = np.flatnonzero(ok)
        if len(hit):
            row = pool[perms[hit[0]]]
            return row[:m].tolist(), row[m:].tolist()
        # the exact sequential draw (module docstring)
        u = self.unseen.copy()
        misses = np.bincount(self.place_calls, minlength=NUM_ACTIONS)
        got = []
        for a in self.places:
            misses[a] -= 1
            p = odds.draw_probabilities(u, misses, t.jokers_can_miss) * t.fits[a]
            p = np.clip(p, 0.0, None)
            c = int(rng.choice(NUM_CARDS, p=p / p.sum()))
            got.append(c)
            u[c] -= 1
        rest = _cards(u)
        return got, [rest[i] for i in rng.permutation(len(rest))]

    def sample(self, t: _Table, rng: np.random.Generator) -> GuildersState:
        v, n, cfg = self.v, self.n, t.config
        miss_cards, fan = self._miss_cards(t, rng)
        # the discard pile: (seat, call, card) for every miss, the last turn's on top
        others = rng.permutation(len(self.other_calls)).tolist()
        other_seats = self.other_seats.tolist()
        other_cards = self.other_cards if self.public else miss_cards
        entries = [(0, a, c) for a, c in zip(self.own_calls, self.own_cards)]
        entries += [(other_seats[k], self.other_calls[i], other_cards[i]) for k, i in enumerate(others)]
        entries = [entries[i] for i in rng.permutation(len(entries))]
        if self.last_miss:
            card = v.last_card if self.seen else miss_cards[-1]
            entries.append((self.mover, self.last_call, card))

        s = GuildersState()
        s.config = cfg
        s.deck_counts = t.rules.deck_counts
        s.rng = world_rng(rng)
        s.current_player = -1 if v.to_act is None else v.to_act
        s.terminated, s.truncated = self.ended
        s.turn = v.turns
        s.fan = fan
        s.discards = [c for _, _, c in entries]
        s.discard_by = [p for p, _, _ in entries]
        s.discard_call = [a for _, a, _ in entries]
        s.piles = [list(p) for p in self.piles]
        s.lost = list(self.lost)
        s.set_aside = list(self.set_aside)
        s.refans_left = v.refans_left
        s.stats = self.stats.copy()
        s.scored_counts = np.array(v.scored, dtype=np.int64)
        s.lost_counts = np.array(v.lost, dtype=np.int64)
        s.aside_counts = self.aside_counts.copy()
        s.discard_counts = np.bincount(np.array(s.discards, dtype=np.int64), minlength=NUM_CARDS)
        by = np.array(s.discard_by, dtype=np.int64)
        dc = np.array(s.discards, dtype=np.int64)
        calls = np.array(s.discard_call, dtype=np.int64)
        s.known = np.bincount(by * NUM_CARDS + dc, minlength=n * NUM_CARDS).reshape(n, NUM_CARDS)
        s.miss_calls = np.bincount(by * NUM_ACTIONS + calls, minlength=n * NUM_ACTIONS).reshape(n, NUM_ACTIONS)
        copies = t.rules.max_copies
        s.card_holder = np.full((NUM_CARDS, copies), -1, dtype=np.int64)
        s.card_value = np.zeros((NUM_CARDS, copies), dtype=np.int64)
        s.card_place = np.full((NUM_CARDS, copies), -1, dtype=np.int64)
        GuildersRules.index_piles(s)  # copy slots, miss_all, miss_seat, face_down_counts
        # the last turn
        s.last_mover = self.mover
        s.last_call = self.last_call
        s.last_events = self.events
        s.last_gain, s.last_loss = v.last_gain, v.last_loss
        s.last_lost_card = -1 if v.last_lost_card is None else v.last_lost_card
        missed = bool(self.events & _BIT["missed"])
        s.last_public = self.mover >= 0 and (not missed or cfg.public_discards)
        s.last_place = None
        if self.last_miss:
            s.last_place = ("discards", len(s.discards) - 1)
            s.last_card = s.discards[-1]
        elif self.miss_in_fan:  # the refan shuffled it into the fan: one fan place that fits
            if self.seen:
                where = [i for i, c in enumerate(fan) if c == v.last_card]
            else:
                where = [i for i, c in enumerate(fan) if t.fits[self.last_call, c]]
            if not where:
                raise ValueError(f"{NAME}: no fan card can be the last turn's miss")
            i = where[int(rng.integers(len(where)))]
            s.last_place = ("fan", i)
            s.last_card = fan[i]
        else:
            s.last_card = -1 if v.last_card is None else v.last_card
        return s


def sample_world(observation: Any, rng: np.random.Generator, **options: Any) -> GuildersState:
    """A Guilders state consistent with ``observation`` (seat 0 = the observer), its hidden
    cards drawn from the exact posterior (see the module docstring); ``options`` are the env's."""
    t = table(NAME, options, _Table)
    x = observation_vector(observation, t.size, NAME)
    check_rng(rng)
    return t.plans.get(x).sample(t, rng)


__all__ = ["sample_world"]
