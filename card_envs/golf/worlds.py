"""Golf determinization: a full rules state sampled from one player's observation alone.

Public: :func:`sample_world` (exported as ``card_envs.golf_v0.sample_world``).

``sample_world(observation, rng, **options)`` decodes the observation (``Codec.decode`` gives
the :class:`~card_envs.golf.view.PlayerView`) and builds a :class:`~card_envs.golf.rules.GolfState`
in the observer's frame: the observer is seat 0 and the others follow clockwise, as the view
writes them, so ``view(world, 0)`` encodes to the same observation, byte for byte. It never
sees an env or a true state.

**What is fixed by the observation.** Every face-up grid card, the closed columns, the discard
pile (its top card and the count of every rank under it: every discard was face up), the card
in hand when the observer may know it (drawn by itself, or taken from the discard pile), the
stock's size, a rebuilt stock's composition (``stock_counts``), and the public counters:
phase, player to act, dealer, trigger, turns, round, totals, last round's scores and layouts.
Golf's views hold ranks only, so each placed card gets a uniformly random copy (suit) of its
rank: suits never matter in Golf.

**What is sampled, and why it is the posterior.** The cards nobody at the table has seen lie
in the face-down slots (the observer's own included: nobody sees a face-down card), the stock,
and a card another player drew from the stock and holds. Golf's flips and replacements are
blind, so the history says nothing about which of these places holds which unseen card:

- before the stock is rebuilt, all of them are one uniformly dealt pool, the deck minus every
  card the observation places: a uniform shuffle of that pool over those places is the exact
  posterior (every consistent deal is equally likely);
- once the stock has been rebuilt from the discards (``stock_known``), its composition is
  public: the stock (with a card another player drew from it) is a uniform shuffle of
  ``stock_counts``, and the face-down slots a uniform shuffle of the rest of the deck.

No constraint couples two places otherwise, so there is nothing to reject: each sample is one
permutation per group. The order of the discard pile under its top card is not in the
observation; it is drawn uniformly, which cannot matter: nothing under the top is ever taken
again, and a rebuild shuffles the pile. The world's own ``rng`` (for future rebuilds and the
next round's deal) is seeded from ``rng``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from card_envs import cards
from card_envs.determinization import PlanCache, check_rng, observation_vector, shuffled_by_rank, table, world_rng
from card_envs.golf.rules import FLIP, NUM_SLOTS, OVER, PHASE_NAMES, RANK_OF, GolfRules, GolfState
from card_envs.golf.view import Codec

NAME = "golf_v0"
_RANK_OF = np.array(RANK_OF, dtype=np.int64)


class _Table:
    """What depends on the options only: the rules, the codec and the deck."""

    def __init__(self, options: dict[str, Any]):
        self.rules = GolfRules(**options)
        self.codec = Codec(self.rules)
        self.size = self.codec.layout.size
        self.deck = np.array(self.rules.deck(), dtype=np.int64)
        self.plans = PlanCache(lambda x: _Plan(self, self.codec.decode(x)))


class _Plan:
    """Everything one observation fixes (the random part is :meth:`sample`)."""

    def __init__(self, t: _Table, v):
        cfg = t.rules.config
        n = cfg.num_players
        self.v = v
        copies = 4 * cfg.decks
        seen = [0] * 13
        self.up = [(k, i, r) for k, row in enumerate(v.grids) for i, r in enumerate(row) if r is not None]
        under = list(v.discard_counts)
        if v.discard_top is not None:
            under[v.discard_top] -= 1
        if min(under) < 0:
            raise ValueError(f"{NAME}: the discard counts do not include the discard pile's top card")
        self.under = [r for r in range(13) for _ in range(under[r])]
        self.hidden_pending = v.pending_source == "stock" and v.pending is None
        for _, _, r in self.up:
            seen[r] += 1
        for r in range(13):
            seen[r] += v.discard_counts[r]
        if v.pending is not None:
            seen[v.pending] += 1
        self.stock_group = [r for r in range(13) for _ in range(v.stock_counts[r])] if v.stock_known else []
        for r in self.stock_group:
            seen[r] += 1
        if any(k > copies for k in seen):
            r = max(range(13), key=lambda q: seen[q])
            raise ValueError(f"{NAME}: the observation shows more cards of rank {RANKS[r]} than the deck holds")
        self.slots = [(k, i) for k in range(n) for i in range(NUM_SLOTS) if v.grids[k][i] is None]
        self.stock_places = v.stock_size + (1 if self.hidden_pending else 0)
        unseen = 52 * cfg.decks - sum(seen)
        if v.stock_known:
            if len(self.stock_group) != self.stock_places:
                raise ValueError(
                    f"{NAME}: a rebuilt stock of {v.stock_size} card(s){' and one in hand' if self.hidden_pending else ''} "
                    f"cannot hold the {len(self.stock_group)} known card(s) of stock_counts"
                )
            places = len(self.slots)
        else:
            places = len(self.slots) + self.stock_places
        if unseen != places:
            raise ValueError(f"{NAME}: the observation leaves {unseen} unseen card(s) for {places} hidden place(s)")
        self.face_up = [[r is not None for r in row] for row in v.grids]
        self.phase = PHASE_NAMES.index(v.phase)
        self.current_player = -1 if v.to_act is None else v.to_act
        # in the FLIP phase every face-up card of the player to act is one of its setup flips
        self.flips_left = cfg.initial_flips - sum(self.face_up[self.current_player]) if self.phase == FLIP else 0
        # the revealed layouts are kept as ranks (any copy: they are out of play)
        self.last_layouts = None if v.last_grids is None else [[cards.card(r, 0) for r in row] for row in v.last_grids]
        if self.phase == OVER:
            over = cfg.num_rounds is not None or max(v.totals) >= cfg.target_score
            self.ended = (over, not over)
        else:
            self.ended = (False, False)

    def sample(self, t: _Table, rng: np.random.Generator) -> GolfState:
        v = self.v
        n = len(v.grids)
        byrank = shuffled_by_rank(t.deck, _RANK_OF, 13, rng)
        pops = [row.pop for row in byrank]
        s = GolfState()
        s.grid = [[-1] * NUM_SLOTS for _ in range(n)]
        s.face_up = [list(row) for row in self.face_up]
        for k, i, r in self.up:
            s.grid[k][i] = pops[r]()
        below = [pops[r]() for r in self.under]
        s.discard = [below[i] for i in rng.permutation(len(below))]
        if v.discard_top is not None:
            s.discard.append(pops[v.discard_top]())
        s.pending_from_discard = v.pending_source == "discard"
        s.pending = pops[v.pending]() if v.pending is not None else None
        # the unseen cards: face-down slots, the stock, another player's card drawn from the stock
        if v.stock_known:
            group = [pops[r]() for r in self.stock_group]
            stock_cards = [group[i] for i in rng.permutation(len(group))]
            rest = [c for row in byrank for c in row]
            down = [rest[i] for i in rng.permutation(len(rest))]
        else:
            rest = [c for row in byrank for c in row]
            pool = [rest[i] for i in rng.permutation(len(rest))]
            down, stock_cards = pool[: len(self.slots)], pool[len(self.slots) :]
        for (k, i), c in zip(self.slots, down):
            s.grid[k][i] = c
        if self.hidden_pending:
            s.pending = stock_cards.pop()
        s.stock = stock_cards  # end of the list = top of the stock
        s.closed = [list(row) for row in v.closed]
        s.stock_known = bool(v.stock_known)
        s.phase = self.phase
        s.current_player = self.current_player
        s.flips_left = self.flips_left
        s.dealer = v.dealer
        s.trigger = v.trigger
        s.turns = v.turns
        s.round = v.round
        s.totals = list(v.totals)
        s.last_round = list(v.last_round)
        s.last_layouts = None if self.last_layouts is None else [list(row) for row in self.last_layouts]
        s.terminated, s.truncated = self.ended
        s.rng = world_rng(rng)
        return s


def sample_world(observation: Any, rng: np.random.Generator, **options: Any) -> GolfState:
    """A Golf state consistent with ``observation`` (seat 0 = the observer), its hidden cards
    drawn from the exact posterior (see the module docstring); ``options`` are the env's."""
    t = table(NAME, options, _Table)
    x = observation_vector(observation, t.size, NAME)
    check_rng(rng)
    return t.plans.get(x).sample(t, rng)


RANKS = tuple(r.replace("T", "10") for r in cards.RANKS)

__all__ = ["sample_world"]
