"""Fiddlesticks determinization: a full rules state sampled from one player's observation alone.

Public: :func:`sample_world` (exported as ``card_envs.fiddlesticks_v0.sample_world``).

``sample_world(observation, rng, **options)`` decodes the observation (``Codec.decode`` gives
the :class:`~card_envs.fiddlesticks.view.PlayerView`) and builds a
:class:`~card_envs.fiddlesticks.rules.FiddlesticksState` in the observer's frame: the observer
is seat 0, the others follow clockwise as the view writes them, so ``view(world, 0)`` encodes
to the same observation, byte for byte. It never sees an env or a true state.

**What the observation fixes.** The observer's hand; every face-up row; which face-down slots
still hold a card; every hand's size and its publicly known cards (``known``); the pile (its
count of every rank and its top run), the cleared cards, the stock's size; who is out and in
which place; the turn counter. Views hold ranks only, so each card placed gets a uniformly
random copy (suit) of its rank: suits never matter in Fiddlesticks.

**What is sampled.** The unseen cards are the deck less everything above: they lie in the
face-down slots (everyone's, the observer's own too: nobody has seen them), the stock, and the
opponents' hands beyond their known cards. The one constraint is ``absent``: an opponent whose
forced pick-up showed it held nothing playable holds no card of those ranks beyond its known
ones. Taking the opponents' play as card-blind, every arrangement of the unseen cards that
keeps those constraints is equally likely, so the posterior is uniform over them. Several
opponents may be constrained at once, and their constraints couple through the shared pool,
so the rank counts of their hidden cards are drawn exactly with
:class:`card_envs.determinization.CountDeal` (a dynamic programme over ranks whose state is the
constrained hands' remaining sizes; cached per observation, no rejection), and every group's
cards are then put in uniformly random order on its places (the free group: face-down slots,
stock, unconstrained hands).

In the SWAP phase nothing is known to be absent: the unseen cards (the opponents' dealt hands,
the face-down cards, the stock) are one uniform shuffle. An opponent's picks so far are a
hidden commitment the observation says nothing about beyond their number; they are drawn as a
uniformly random subset of its six pool cards (its own choice, not a card-blind event: this is
the modelling choice, the same as the test suite's resampler of hidden cards).

**Facts the observation does not hold.** After the SWAP phase the dealer (and so the first
player) and the dealt face-up and hand ranks are not in the observation; no rule reads them
after the SWAP (only the debugging ``render_state`` prints the dealer), so the world sets the
dealer to the last seat (the observer first) and the dealt ranks to the current face-up rows.
In the SWAP phase the first player is derived: players pick in turn from the first, so it is
the player to act less the players who have finished picking. The order of the pile under its
top run is not observed and cannot matter (a pick-up takes the whole pile, a clear removes it).
The world's own ``rng`` is seeded from ``rng``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from card_envs.determinization import check_rng, CountDeal, PlanCache, observation_vector, shuffled_by_rank, table, world_rng
from card_envs.fiddlesticks.rules import (
    EMPTY,
    GAME_RANK,
    NUM_RANKS,
    NUM_SLOTS,
    OVER,
    PHASE_NAMES,
    RANK_NAMES,
    SWAP,
    FiddlesticksRules,
    FiddlesticksState,
)
from card_envs.fiddlesticks.view import Codec

NAME = "fiddlesticks_v0"
_GAME_RANK = np.array(GAME_RANK, dtype=np.int64)


class _Table:
    """What depends on the options only: the rules, the codec, the deck and its rank counts."""

    def __init__(self, options: dict[str, Any]):
        self.rules = FiddlesticksRules(**options)
        self.codec = Codec(self.rules)
        self.size = self.codec.layout.size
        self.deck = np.array(self.rules.deck(), dtype=np.int64)
        self.copies = self.rules.copies
        self.plans = PlanCache(self._plan)

    def _plan(self, x: np.ndarray) -> "_Plan":
        return _Plan(self, self.codec.decode(x))


def _ranks(counts) -> list[int]:
    return [r for r in range(NUM_RANKS) for _ in range(counts[r])]


class _Plan:
    """Everything one observation fixes: the unseen pool by rank, the hidden places, the
    constrained hands' deal, the pile, the counters (the random part is :meth:`sample`)."""

    def __init__(self, t: _Table, v):
        self.v = v
        n = self.n = t.rules.num_players
        self.swap = swap = v.phase == PHASE_NAMES[SWAP]
        unseen = [t.copies] * NUM_RANKS
        placed = [v.hand, v.pile_counts, v.cleared] + v.face_up + ([] if swap else v.known[1:])
        for counts in placed:
            for r in range(NUM_RANKS):
                unseen[r] -= counts[r]
        if min(unseen) < 0:
            r = min(range(NUM_RANKS), key=lambda q: unseen[q])
            raise ValueError(f"{NAME}: the observation places more {RANK_NAMES[r]}s than the deck holds")
        self.down_slots = [(k, j) for k in range(n) for j in range(NUM_SLOTS) if v.face_down[k][j]]
        if swap:
            hidden_hand = [0] + [NUM_SLOTS] * (n - 1)  # the opponents' dealt hands
            bound = []
        else:
            hidden_hand = [0] + [v.hand_sizes[k] - sum(v.known[k]) for k in range(1, n)]
            bound = [k for k in range(1, n)
                     if hidden_hand[k] and any(v.absent[k][r] and unseen[r] for r in range(NUM_RANKS))]
        if min(hidden_hand) < 0 or (not swap and sum(v.hand) != v.hand_sizes[0]):
            raise ValueError(f"{NAME}: a hand is smaller than the cards known to be in it")
        places = len(self.down_slots) + v.stock_size + sum(hidden_hand)
        if places != sum(unseen):
            raise ValueError(f"{NAME}: the observation leaves {sum(unseen)} unseen card(s) for {places} hidden place(s)")
        self.unseen, self.hidden_hand, self.bound = unseen, hidden_hand, bound
        self.deal = None
        if bound:
            self.deal = CountDeal(unseen, [hidden_hand[k] for k in bound], [[not a for a in v.absent[k]] for k in bound])
        self.pool = np.array(_ranks(unseen), dtype=np.int64)
        # the pile: copies of the top run's rank that are not part of the run lie lowest, then
        # the other ranks, then the run (the order under the run is not observed)
        under = list(v.pile_counts)
        self.run_rank = EMPTY if v.pile_top is None else v.pile_top
        self.run_len = 0 if self.run_rank == EMPTY else v.pile_run
        if self.run_rank != EMPTY:
            under[self.run_rank] -= self.run_len
        if min(under) < 0:
            raise ValueError(f"{NAME}: the pile's top run is longer than its count of that rank")
        low = [self.run_rank] * under[self.run_rank] if self.run_rank != EMPTY else []
        self.pile = low + [r for r in range(NUM_RANKS) if r != self.run_rank for _ in range(under[r])] + [self.run_rank] * self.run_len
        self.cleared = _ranks(v.cleared)
        self.face_up = [_ranks(row) for row in v.face_up]
        self.own_hand = _ranks(v.hand)
        self.known = [_ranks(row) for row in v.known]
        self.places = sorted((k for k in range(n) if v.out[k]), key=lambda k: v.out[k])
        self.phase = PHASE_NAMES.index(v.phase)
        if self.phase == OVER:
            # the game ends when a player goes out (first_out) or one is left (rank_all); else max_turns cut it
            ended = len(self.places) >= 1 if t.rules.config.end_mode == "first_out" else len(self.places) == n - 1
            self.ended = (ended, not ended)
        else:
            self.ended = (False, False)
        if swap:
            self.first = (v.to_act - sum(1 for p in v.swap_picks if p == NUM_SLOTS)) % n
            self.dealer = (self.first - 1) % n
        else:
            self.first, self.dealer = 0, n - 1  # not observed after the SWAP, read by no rule (module docstring)

    def sample(self, t: _Table, rng: np.random.Generator) -> FiddlesticksState:
        v, n = self.v, self.n
        # ---- the posterior: constrained hands' ranks exactly, then a uniform shuffle of the rest
        hidden_ranks: dict[int, list[int]] = {}
        if self.deal is not None:
            free = list(self.unseen)
            for k, got in zip(self.bound, self.deal.sample(rng)):
                hidden_ranks[k] = _ranks(got)
                for r in range(NUM_RANKS):
                    free[r] -= got[r]
            pool = _ranks(free)
            pool = [pool[i] for i in rng.permutation(len(pool))]
        else:
            pool = rng.permutation(self.pool).tolist()
        byrank = shuffled_by_rank(t.deck, _GAME_RANK, NUM_RANKS, rng)
        pops = [row.pop for row in byrank]

        s = FiddlesticksState()
        s.face_down = [[None] * NUM_SLOTS for _ in range(n)]
        for k, j in self.down_slots:
            s.face_down[k][j] = pops[pool.pop()]()
        s.stock = [pops[pool.pop()]() for _ in range(v.stock_size)]  # end of the list = top
        for k in range(1, n):
            if k not in hidden_ranks:
                hidden_ranks[k] = [pool.pop() for _ in range(self.hidden_hand[k])]
        s.pile = [pops[r]() for r in self.pile]
        s.pile_counts = list(v.pile_counts)
        s.run_rank, s.run_len = self.run_rank, self.run_len
        s.cleared = [pops[r]() for r in self.cleared]
        s.cleared_counts = list(v.cleared)

        # ---- hands, face-up rows, SWAP picks
        s.hand = [[[] for _ in range(NUM_RANKS)] for _ in range(n)]
        s.face_up = [[] for _ in range(n)]
        s.picked = [[] for _ in range(n)]
        s.picked_counts = [[0] * NUM_RANKS for _ in range(n)]
        s.swap_picks = list(v.swap_picks)
        s.known = [list(row) for row in v.known]
        s.absent = [list(row) for row in v.absent]
        s.dealt_up = [list(row) for row in v.face_up]
        s.dealt_hand = [[0] * NUM_RANKS for _ in range(n)]
        if self.swap:
            for k in range(n):
                dealt_hand = self.own_hand if k == 0 else hidden_ranks[k]
                for r in dealt_hand:
                    s.dealt_hand[k][r] += 1
                if k == 0:
                    picks = list(v.picked)
                else:  # a uniformly random subset of its six pool cards (see the module docstring)
                    six = self.face_up[k] + dealt_hand
                    picks = [0] * NUM_RANKS
                    if v.swap_picks[k]:
                        for i in rng.choice(len(six), size=v.swap_picks[k], replace=False).tolist():
                            picks[six[i]] += 1
                up, hand = list(v.face_up[k]), list(s.dealt_hand[k])
                for r in range(NUM_RANKS):
                    from_up = min(picks[r], up[r])  # a pick takes a face-up card of its rank first
                    up[r] -= from_up
                    hand[r] -= picks[r] - from_up
                    if hand[r] < 0:
                        raise ValueError(f"{NAME}: seat {k} picked more {RANK_NAMES[r]}s than its pool holds")
                s.picked[k] = [pops[r]() for r in _ranks(picks)]
                s.picked_counts[k] = picks
                s.face_up[k] = [pops[r]() for r in _ranks(up)]
                for r in _ranks(hand):
                    s.hand[k][r].append(pops[r]())
        else:
            for k in range(n):
                s.face_up[k] = [pops[r]() for r in self.face_up[k]]
                ranks = self.own_hand if k == 0 else self.known[k] + hidden_ranks[k]
                hand = s.hand[k]
                for r in ranks:
                    hand[r].append(pops[r]())
        s.dealer, s.first = self.dealer, self.first
        s.hand_counts = [[len(h) for h in s.hand[k]] for k in range(n)]
        s.hand_size = [sum(row) for row in s.hand_counts]
        s.face_up_counts = [[0] * NUM_RANKS for _ in range(n)]
        for k in range(n):
            for c in s.face_up[k]:
                s.face_up_counts[k][GAME_RANK[c]] += 1

        # ---- the counters
        s.phase = self.phase
        s.current_player = -1 if v.to_act is None else v.to_act
        s.out = [bool(p) for p in v.out]
        s.places = list(self.places)
        s.turns = v.turns
        s.terminated, s.truncated = self.ended
        s.rng = world_rng(rng)
        return s


def sample_world(observation: Any, rng: np.random.Generator, **options: Any) -> FiddlesticksState:
    """A Fiddlesticks state consistent with ``observation`` (seat 0 = the observer), its hidden
    cards drawn from the exact posterior (see the module docstring); ``options`` are the env's."""
    t = table(NAME, options, _Table)
    x = observation_vector(observation, t.size, NAME)
    check_rng(rng)
    return t.plans.get(x).sample(t, rng)


__all__ = ["sample_world"]
