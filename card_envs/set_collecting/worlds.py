"""Collector and Hot worlds from one player's observation alone (determinization).

:func:`sample` ``(Rules, observation, rng, options)``, bound to its rules by each game's
``sample_world(observation, rng, **options)`` (``card_envs.collector_v0.sample_world``,
``card_envs.hot_v0.sample_world``), returns a full :class:`~card_envs.set_collecting.engine.SetState`
in the observer's frame (the view writes seats relative to the observer, so the observer is
seat 0 of the world) whose view encodes to the same bytes. It reads only the decoded
observation and the options, never an env or a true state.

**What is public** (``card_envs.set_collecting.view``): the observer's hand (rank counts) and its own
commitment; who has committed this phase (not what); every hand's and the stock's size; the
cards revealed this round; the last round's plays, claims, takes and draw counts; the cards
publicly known to be in each hand (taken, or drawn back from the seen stock bottom); the seen
bottom of the stock, in order; the hands laid down; winners and first places; in a game of
deals (Hot), the totals, dealer, deal number and last deal's points.

**The hidden cards.** Suits never matter in these games, so the world's cards are drawn by
rank, then every rank's four suits are spread uniformly at random over the places that hold
that rank. The unseen ranks are the deck's less everything above (the observer's hand, the
known cards in every hand, the seen stock bottom, the cards on the table). They lie in the
opponents' hands beyond their known cards (sizes public) and the never-seen top of the stock
(its size less the seen bottom). Hidden too: the other players' pending commitments.

**Constraints, and why the sample follows the posterior.** The deal is a uniform permutation
and the stock is drawn from the top: with card-blind opponents (their plays of a rank and their
claims do not depend on which other unseen cards they hold), every arrangement of the unseen
cards that fits the public record is equally likely. What the record says about them beyond
the sizes: **nobody was complete at the last check** while the game goes on (else it would
have ended or the deal been scored): each opponent's hand (with the card it revealed this
round) lacks some rank. A rejected draw is one where an opponent would complete; a draw is
accepted with the probability ``a`` the constraint leaves, and after 32 rejections an exact
dynamic programme (over the ranks, its state the at-risk hands' remaining room and which of
them already lack a rank; cached per observation) draws the sample instead: both branches give
the exact conditional law, so their mixture does (the rejection branch is taken with
probability ``1 - (1 - a)^32``, and then costs ``1 / a`` draws on average; an opponent whose
hidden cards cannot cover its missing ranks is never at risk, which is most states). A pending
commitment of another player is drawn uniformly among its legal choices given the sampled hand:
the posterior when that player chooses uniformly (it is unobserved, so it changes nothing about
the cards). Earlier checks (hands before the last round) are not in the observation; the view
documents that gap.

**Public facts rebuilt**: Collector's dealer (``lead - 1 - round``, mod N); the commit order
(clockwise from the lead, PLAY skipping empty hands) and how far it has got (``committed``);
whether the game ended by a completed set (callers; in Hot, also a total at the target or a
single deal) or was truncated; whether the hands now on the table are the laid-down ones. The
card each seat played last round is named by its rank only (a card of that rank: only the rank
is public and only the rank is ever read).

The world's generator is new, seeded from ``rng``: Hot's later deals are sampled too.
"""

from __future__ import annotations

from collections import deque
from math import factorial
from typing import Any

import numpy as np

from card_envs.determinization import PlanCache, observation_vector, table, world_rng
from card_envs.set_collecting import view as view_mod
from card_envs.set_collecting.engine import ACQUIRE, NUM_RANKS, OVER, PLAY, SetRules, SetState

REJECTIONS = 32  # draws tried before the exact programme takes over
_SUIT_ROWS = np.tile(np.arange(4), (NUM_RANKS, 1))


class _Table:
    """What depends on the options only: the rules (and their variant), the observation size,
    the plan cache."""

    def __init__(self, rules: SetRules):
        self.game = rules.name
        self.rules = rules
        self.variant = rules.variant
        self.size = view_mod.make_layout(rules.num_players, rules.variant).size
        self.plans = PlanCache(lambda x: _Plan(self, x))


class _Incomplete:
    """Exact sampler of the unseen ranks' split given that no at-risk opponent is complete.

    Places: the at-risk opponents (room ``caps``; ``covered[j]`` the ranks their fixed cards
    hold) and one merged rest (the other hidden places). Uniform over physical arrangements is,
    in rank counts, the weight ``prod_r 1 / (prod_j x[r][j]! * rest[r]!)``; ``ways`` sums it over
    completions, with the set of at-risk opponents already lacking a rank in the state."""

    def __init__(self, pool: list[int], caps: list[int], covered: list[list[bool]]):
        self.pool = pool
        self.caps = tuple(caps)
        self.covered = covered
        self.m = len(caps)
        self.after = [sum(pool[r:]) for r in range(NUM_RANKS + 1)]
        self.inv = [1.0 / factorial(k) for k in range(5)]
        self.memo: dict[tuple, float] = {}
        self.options: dict[tuple, tuple] = {}
        if self.ways(0, self.caps, 0) <= 0.0:
            raise ValueError("no arrangement of the unseen cards leaves every opponent incomplete")

    def _splits(self, r: int, caps: tuple[int, ...]):
        k = self.pool[r]

        def rec(j, left, x):
            if j == self.m:
                yield tuple(x), left
                return
            for a in range(min(left, caps[j]) + 1):
                x.append(a)
                yield from rec(j + 1, left - a, x)
                x.pop()

        yield from rec(0, k, [])

    def ways(self, r: int, caps: tuple[int, ...], lacking: int) -> float:
        key = (r, caps, lacking)
        w = self.memo.get(key)
        if w is not None:
            return w
        full = (1 << self.m) - 1
        if r == NUM_RANKS:
            w = 1.0 if not any(caps) and lacking == full else 0.0
        elif sum(caps) > self.after[r]:
            w = 0.0
        else:
            w = 0.0
            opts = []
            for x, rest in self._splits(r, caps):
                new_caps = tuple(c - a for c, a in zip(caps, x))
                if sum(new_caps) > self.after[r + 1]:
                    continue  # the rest would take more than it can hold
                lack = lacking
                for j in range(self.m):
                    if not x[j] and not self.covered[j][r]:
                        lack |= 1 << j
                weight = self.inv[rest]
                for a in x:
                    weight *= self.inv[a]
                b = self.ways(r + 1, new_caps, lack)
                if b > 0.0:
                    w += weight * b
                    opts.append((w, x, new_caps, lack))
            self.options[key] = tuple(opts)
        self.memo[key] = w
        return w

    def sample(self, rng: np.random.Generator) -> list[tuple[int, ...]]:
        """``x[r]``: the rank-r cards of each at-risk opponent (the rest has the others)."""
        caps, lacking = self.caps, 0
        out = []
        draws = rng.random(NUM_RANKS).tolist()
        for r in range(NUM_RANKS):
            opts = self.options[(r, caps, lacking)]
            target = draws[r] * self.memo[(r, caps, lacking)]
            for cum, x, new_caps, lack in opts:
                if target < cum:
                    break
            out.append(x)
            caps, lacking = new_caps, lack
        return out


class _Plan:
    """Everything one observation fixes, and the hidden-card problem it leaves."""

    def __init__(self, t: _Table, x: np.ndarray):
        game, rules, deals = t.game, t.rules, t.variant.deals
        v = view_mod.decode(x, t.variant)
        n = v.num_players
        if n != rules.num_players:
            raise ValueError(f"{game}.sample_world: the observation is of {n} players, the options give "
                             f"{rules.num_players}: pass the env's options")
        self.rules = rules
        self.n = n
        phase = {"play": PLAY, "acquire": ACQUIRE, "over": OVER}[v.phase]
        self.phase = phase
        over = phase == OVER
        callers = [p for p in range(n) if v.callers[p]]
        if deals:
            ended_scored = over and bool(callers)
            terminated = ended_scored and (max(v.scores) >= rules.config.target_points or rules.config.single_deal)
            laid_down = ended_scored
            dealer = v.dealer
        else:
            terminated = over and bool(callers)
            laid_down = over
            dealer = (v.lead - 1 - v.round) % n
        seats = [(v.lead + i) % n for i in range(n)]
        if phase == PLAY:
            order = [p for p in seats if v.hand_sizes[p] > 0]
        elif phase == ACQUIRE:
            order = seats
        else:
            order = []
        pos = sum(v.committed)
        if set(order[:pos]) != {p for p in range(n) if v.committed[p]}:
            raise ValueError(f"{game}.sample_world: the observation is inconsistent: the seats that have "
                             "committed are not the first ones asked")
        self.fields = {
            "num_players": n,
            "phase": phase,
            "order": order,
            "pos": pos,
            "current_player": order[pos] if pos < len(order) else -1,
            "round": v.round,
            "dealer": dealer,
            "lead": v.lead,
            "last_taker": [-1 if d is None else d for d in v.last_taken_by],
            "last_drawn": list(v.last_drawn),
            "last_claim": [-1 if c is None else c for c in v.last_claimed],
            "first_place": list(v.first_place),
            "terminated": terminated,
            "truncated": over and not terminated,
            "winners": callers,
            "shown": None if v.shown_hands is None else [list(h) for h in v.shown_hands],
            "laid_down": laid_down,
            "scores": list(v.scores) if deals else [0] * n,
            "deal": v.deal if deals else 0,
            "last_deal_points": list(v.last_deal_points) if deals else [0] * n,
        }
        self.last_played = [-1 if r is None else r for r in v.last_played]
        self.own_commit = -1 if v.own_commit is None else v.own_commit
        self.others_committed = [p for p in range(1, n) if v.committed[p]]
        # the fixed ranks of every place: hands' known parts (and the rest, where public), the
        # observer's whole hand, the table, the seen stock bottom
        known = [list(k) for k in v.known_cards]
        self.known = known
        self.played = [-1 if r is None else r for r in v.played]
        self.stock_known = list(v.stock_known)
        self.hidden_fixed = [[0] * NUM_RANKS for _ in range(n)]  # non-known parts that are public
        self.hidden_fixed[0] = [h - k for h, k in zip(v.hand, known[0])]
        if laid_down:
            for p in range(1, n):
                self.hidden_fixed[p] = [h - k for h, k in zip(v.shown_hands[p], known[p])]
        pool = [4] * NUM_RANKS
        for p in range(n):
            for r in range(NUM_RANKS):
                pool[r] -= known[p][r] + self.hidden_fixed[p][r]
            if self.played[p] >= 0:
                pool[self.played[p]] -= 1
        for r in self.stock_known:
            pool[r] -= 1
        self.hidden_size = [0] + [
            0 if laid_down else v.hand_sizes[p] - sum(known[p]) for p in range(1, n)
        ]
        self.stock_unknown = v.stock_size - len(self.stock_known)
        if (min(pool) < 0 or min(self.hidden_size) < 0 or self.stock_unknown < 0
                or sum(pool) != sum(self.hidden_size) + self.stock_unknown
                or any(min(row) < 0 for row in self.hidden_fixed)):
            raise ValueError(f"{game}.sample_world: the observation is inconsistent: its cards do not make "
                             "up one 52-card deck")
        self.tokens = [r for r in range(NUM_RANKS) for _ in range(pool[r])]
        self.pool = pool
        # opponents that could be complete (the game goes on, so none may be)
        self.at_risk = []
        self.covered = {}
        if not over:
            for p in range(1, n):
                have = [known[p][r] > 0 or self.played[p] == r for r in range(NUM_RANKS)]
                missing = [r for r in range(NUM_RANKS) if not have[r]]
                if len(missing) <= self.hidden_size[p] and all(pool[r] for r in missing):
                    self.at_risk.append(p)
                    self.covered[p] = have
        self._exact = None

    def exact(self) -> _Incomplete:
        if self._exact is None:
            self._exact = _Incomplete(self.pool, [self.hidden_size[p] for p in self.at_risk],
                                      [self.covered[p] for p in self.at_risk])
        return self._exact

    def split(self, rng: np.random.Generator) -> tuple[list[list[int]], list[int]]:
        """The unseen ranks of every hand's hidden part and of the stock's top (in order)."""
        n, sizes, tokens = self.n, self.hidden_size, self.tokens
        for _ in range(REJECTIONS if self.at_risk else 1):
            perm = rng.permutation(len(tokens)).tolist()
            parts, i = [[] for _ in range(n)], 0
            for p in range(1, n):
                parts[p] = [tokens[j] for j in perm[i : i + sizes[p]]]
                i += sizes[p]
            if all(self._incomplete(p, parts[p]) for p in self.at_risk):
                return parts, [tokens[j] for j in perm[i:]]
        x = self.exact().sample(rng)
        parts = [[] for _ in range(n)]
        rest = []
        for r in range(NUM_RANKS):
            for j, p in enumerate(self.at_risk):
                parts[p] += [r] * x[r][j]
            rest += [r] * (self.pool[r] - sum(x[r]))
        rest = [rest[j] for j in rng.permutation(len(rest)).tolist()]
        i = 0
        for p in range(1, n):
            if p not in self.covered:
                parts[p] = rest[i : i + sizes[p]]
                i += sizes[p]
        return parts, rest[i:]

    def _incomplete(self, p: int, hidden: list[int]) -> bool:
        have = self.covered[p][:]
        for r in hidden:
            have[r] = True
        return not all(have)


def _sample(t: _Table, observation: Any, rng: np.random.Generator) -> SetState:
    if not isinstance(rng, np.random.Generator):
        raise ValueError(f"{t.game}.sample_world: rng must be a numpy Generator (np.random.default_rng(seed)), "
                         f"got {type(rng).__name__}")
    x = observation_vector(observation, t.size, t.game)
    plan = t.plans.get(x)
    n = plan.n
    parts, stock_top = plan.split(rng)
    # every rank's four suits in a uniformly random order, handed out place by place
    suits = rng.permuted(_SUIT_ROWS, axis=1).tolist()
    nxt = [0] * NUM_RANKS

    def card(r: int) -> int:
        k = nxt[r]
        nxt[r] = k + 1
        return 13 * suits[r][k] + r

    s = SetState()
    for name, value in plan.fields.items():
        setattr(s, name, value[:] if isinstance(value, list) else value)
    if s.shown is not None:
        s.shown = [h[:] for h in s.shown]
    s.hands, s.counts, s.known, s.known_counts = [], [], [], []
    for p in range(n):
        known = [card(r) for r in range(NUM_RANKS) for _ in range(plan.known[p][r])]
        rest = [card(r) for r in range(NUM_RANKS) for _ in range(plan.hidden_fixed[p][r])]
        rest += [card(r) for r in parts[p]]
        hand = known + rest
        s.known.append(known)
        s.known_counts.append(plan.known[p][:])
        s.hands.append(hand)
        counts = [0] * NUM_RANKS
        for c in hand:
            counts[c % 13] += 1
        s.counts.append(counts)
    s.played = [-1 if r < 0 else card(r) for r in plan.played]
    stock = [card(r) for r in stock_top]
    stock += [card(r) for r in plan.stock_known]
    s.stock = deque(stock)
    s.stock_unknown = len(stock_top)
    # only the rank of last round's cards is public (and read): name the club of that rank
    s.last_played = [r for r in plan.last_played]
    s.pending = [-1] * n
    if s.phase != OVER:
        s.pending[0] = plan.own_commit
        for p in plan.others_committed:
            legal = np.flatnonzero(t.rules.mask_for(s, p))
            s.pending[p] = int(legal[rng.integers(len(legal))])
    s.rng = world_rng(rng)
    return s


def sample(Rules: type[SetRules], observation: Any, rng: np.random.Generator,  # noqa: N803  (a class)
           options: dict[str, Any]) -> SetState:
    """A state of the game ``Rules`` plays (``Rules(**options)``: its variant says what differs)
    consistent with ``observation`` (the observer is seat 0), its unseen cards and the others'
    pending commitments drawn from the posterior (see the module doc). Each game's
    ``sample_world`` binds its rules."""
    return _sample(table(Rules.name, options, lambda o: _Table(Rules(**o))), observation, rng)


__all__ = ["sample"]
