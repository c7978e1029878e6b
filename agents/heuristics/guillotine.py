"""Guillotine heuristic: name the contract the hand suits best, then play it to its scoring.

Everything is decided from the PlayerView (own hand and public play) and the configuration.
"Outstanding" cards are those neither in the hand nor played yet; one may lie with any opponent
that public play has not proved void of it, in proportion to hand sizes. Trick strength follows
``trick_rank_order``; the values below follow ``king_rule``.

- CONTRACT: per contract, a linear estimate over hand features (Aces, Kings, Queens, Jacks, low
  cards, spades, voids, singletons, long suits, top-sequence tricks, unguarded K/Q, A-K suits,
  and for Domino the foreign cards between the best opening anchor and the rest of the hand),
  its weights fitted on 4000 self-play deals of this heuristic per contract. Single mode takes
  the contract of the best expected rank reward; the full game, where each contract is played
  once anyway, the one whose points this hand improves most over an average dealer's.
- TRICK CONTRACTS: each card taken is worth its contract's points to its taker (Royalty K 20, Q 10;
  Queens Q +10, K -10; Spades a spade +5 and a King -10, only K♠ under ``contract_suit_king``;
  Parliament K -10 and -5 a trick; Guillotine 5 a card, K and Q 15, and +5 for tricks 1 and 8).
  * Avoid contracts (Royalty, Queens, Spades, Guillotine): every legal card is scored by its
    chance to win the trick (later players duck when they can) times the trick's value to its
    taker (the cards on it, its bonus, and the cards still to come: lower penalty cards of the
    suit, and the worst card of a player void in it, known or by chance), minus a third of that
    value when an opponent takes it (zero-sum ranking), minus the danger of keeping the card
    (its chance to win a later trick, halved per outstanding higher card, times its value plus
    a share of an average remaining trick), plus, on a lead, a small cost per card of the suit
    held. The least score wins, so it ducks with the highest card that still loses, sheds its
    most dangerous penalty card when void (Kings and Queens in Royalty and Guillotine, Queens
    but never Kings in Queens, spades in Spades), leads low cards of short suits, and takes a
    trick it cannot lose with its top card rather than a penalty card. In Queens and Spades a
    trick worth taking (a King in it) is taken when a card is likely (>60%) to win it.
  * Parliament (tricks and Kings score): lead a sure winner (a King before an Ace, as it takes
    itself), else the lowest card of the longest suit; follow with the lowest sure winner (the
    last player: the lowest card that wins), else a likely winner (60%, a King 90%), else the
    lowest card, a King never given away; void, throw the card least likely ever to win.
- DOMINO: open with the card whose rank leaves the fewest foreign cards between the anchor and
  the rest of the hand. Each turn, score the legal cards: +2 if it frees another own card, +1.5
  per own card further along the row it opens (less a little per foreign card there), -0.6
  per foreign card behind a row it opens toward none of its own (a blocker to hold: the anchor
  card of an unopened suit above all), +2 for an Ace that earns the bonus. In a bonus, lay the
  rest of the hand if a sequence of legal plays empties it; otherwise play the best card while
  its score is not negative, and STOP when continuing would only help others or when nothing
  fits (the bonus lasts until STOP or an empty hand; STOP is then the only legal action).
"""

from __future__ import annotations

import numpy as np

from card_envs.guillotine.rules import (
    ACE,
    ALL_CARDS,
    CHOOSE_BASE,
    DOMINO,
    GUILLOTINE,
    KING,
    NUM_CARDS,
    NUM_CONTRACTS,
    PARLIAMENT,
    PASS_STOP,
    QUEEN,
    QUEENS,
    ROYALTY,
    SPADES,
    SPADES_SUIT,
    SUIT_MASK,
    cards_of,
)

RELATIVE = 1.0 / 3.0  # an opponent's points count a third against mine (zero-sum ranking)
KEEP_ESCAPE = 0.5  # a card kept in an avoid contract may still be thrown away on a void
AVERAGE_SHARE = 0.2  # the part of an average remaining trick a kept card's later trick holds
SHORT_SUIT_LEAD = 1.0  # cost per card of the led suit held, when leading in an avoid contract


# ------------------------------------------------------------------------- card values
def card_values(contract: int, king_rule: str = "every_king") -> list[float]:
    """Points the taker of each card scores under ``contract`` (trick bonuses apart)."""
    v = [0.0] * NUM_CARDS
    for c in range(NUM_CARDS):
        r, s = c & 7, c >> 3
        if contract == ROYALTY:
            v[c] = 20.0 if r == KING else 10.0 if r == QUEEN else 0.0
        elif contract == QUEENS:
            v[c] = 10.0 if r == QUEEN else -10.0 if r == KING else 0.0
        elif contract == SPADES:
            x = 5.0 if s == SPADES_SUIT else 0.0
            if r == KING and (king_rule == "every_king" or s == SPADES_SUIT):
                x -= 10.0
            v[c] = x
        elif contract == PARLIAMENT:
            v[c] = -10.0 if r == KING else 0.0
        elif contract == GUILLOTINE:
            v[c] = 15.0 if r in (KING, QUEEN) else 5.0
    return v


def trick_bonus(contract: int, trick_no: int) -> float:
    """Points for winning trick ``trick_no`` (0-based) itself."""
    if contract == PARLIAMENT:
        return -5.0
    if contract == GUILLOTINE and trick_no in (0, 7):
        return 5.0
    return 0.0


_VALUES: dict = {}


def _values(contract: int, king_rule: str) -> list[float]:
    key = (contract, king_rule)
    if key not in _VALUES:
        _VALUES[key] = card_values(contract, king_rule)
    return _VALUES[key]


# ------------------------------------------------------------------------------- entry
def choose(view, mask: np.ndarray, rules, rng: np.random.Generator) -> int:
    legal = np.flatnonzero(mask).tolist()
    if len(legal) == 1:
        return legal[0]
    if view.phase == "choose":
        return choose_contract(view, [a - CHOOSE_BASE for a in legal if CHOOSE_BASE <= a < PASS_STOP], rules)
    if view.contract == DOMINO:
        return domino_move(view, mask, rules)
    cards = [a for a in legal if a < NUM_CARDS]
    return TrickPlay(view, rules).choose(cards)


# ------------------------------------------------------------------------ trick play
class TrickPlay:
    """One decision in a trick contract, from the player's view."""

    def __init__(self, view, rules):
        self.v = view
        self.contract = view.contract
        self.strength = rules.strength
        self.values = _values(view.contract, rules.config.king_rule)
        self.hand = view.hand
        played = 0
        for m in view.played:
            played |= m
        self.outstanding = ALL_CARDS & ~played & ~view.hand
        #: the outstanding cards of each suit, ascending
        self.out_by_suit = [[], [], [], []]
        for c in cards_of(self.outstanding):
            self.out_by_suit[c >> 3].append(c)
        self.trick_no = sum(t.bit_count() for t in view.taken) // 4
        self.tricks_left = 8 - self.trick_no
        self.on_trick = [c for c in view.trick if c is not None]
        self.led = view.led_suit if self.on_trick else None
        self.later = [k for k in (1, 2, 3) if view.trick[k] is None]
        self._hl: dict = {}
        self._held: dict = {}
        self._dumps: dict = {}
        # the card winning the trick so far
        self.best = None
        if self.led is not None:
            for c in self.on_trick:
                if c >> 3 == self.led and (self.best is None or self.strength[c & 7] > self.strength[self.best & 7]):
                    self.best = c
        out_value = sum(self.values[c] for cs in self.out_by_suit for c in cs)
        # average value of the other cards of a remaining trick, plus its own bonus
        self.avg_trick = out_value / max(1, self.tricks_left) + (
            -5.0 if self.contract == PARLIAMENT else 10.0 / 8 if self.contract == GUILLOTINE else 0.0)

    # ---- who may hold what
    def holders(self, c: int) -> list[int]:
        v = self.v
        return [k for k in (1, 2, 3) if v.hand_sizes[k] > 0 and not v.known_absent[k] >> c & 1]

    def held(self, c: int) -> tuple[int, int]:
        """(cards in the hands that may hold c, those of them still to play to this trick)."""
        if c not in self._held:
            sizes = self.v.hand_sizes
            hs = self.holders(c)
            self._held[c] = (sum(sizes[k] for k in hs), sum(sizes[k] for k in hs if k in self.later))
        return self._held[c]

    def p_later(self, c: int) -> float:
        """Chance that outstanding card c lies with a player still to play to this trick."""
        total, later = self.held(c)
        if not total:
            return 0.0
        return later / total

    def p_void(self, k: int, suit: int) -> float:
        """Chance that player k holds no card of ``suit``."""
        v = self.v
        if v.known_absent[k] & SUIT_MASK[suit] == SUIT_MASK[suit]:
            return 1.0
        p = 1.0
        for x in self.out_by_suit[suit]:
            if not v.known_absent[k] >> x & 1:
                p *= 1.0 - v.hand_sizes[k] / self.held(x)[0]
        return p

    def higher_lower(self, c: int) -> tuple[list[int], list[int]]:
        """The outstanding cards of c's suit above and below it."""
        if c not in self._hl:
            s, st = c >> 3, self.strength[c & 7]
            out = self.out_by_suit[s]
            self._hl[c] = ([x for x in out if self.strength[x & 7] > st], [x for x in out if self.strength[x & 7] < st])
        return self._hl[c]

    def beats(self, c: int) -> bool:
        if self.led is None:
            return True
        return c >> 3 == self.led and self.strength[c & 7] > self.strength[self.best & 7]

    def p_win(self, c: int, ducking: bool) -> float:
        """Chance that c wins this trick. With ``ducking`` the later players try to lose it,
        so one holding a higher card overtakes only when it has no lower one."""
        if not self.beats(c):
            return 0.0
        higher, lower = self.higher_lower(c)
        if not higher:
            return 1.0
        p = 1.0
        if ducking:
            f = len(higher) / (len(higher) + len(lower))
            for h in higher:
                p *= 1.0 - self.p_later(h) * f
        else:
            for h in higher:
                p *= 1.0 - self.p_later(h)
        return p

    def expected_adds(self, c: int) -> float:
        """Expected value of the cards the later players add to a trick that c wins."""
        vals = self.values
        suit = c >> 3 if self.led is None else self.led
        base = 5.0 if self.contract == GUILLOTINE else 0.0
        add = self.dumps(suit)
        # penalty cards of the suit below c go under it
        for x in self.higher_lower(c)[1]:
            if vals[x] != 0.0:
                add += 0.7 * (vals[x] - base) * self.p_later(x)
        return add

    def dumps(self, suit: int) -> float:
        """Expected value the later players give a trick of ``suit`` they do not win: each
        one's card, and its worst card when it is void (known, or by chance)."""
        if suit in self._dumps:
            return self._dumps[suit]
        v, vals = self.v, self.values
        base = 5.0 if self.contract == GUILLOTINE else 0.0
        add = 0.0
        others = [x for s, cs in enumerate(self.out_by_suit) if s != suit for x in cs]
        for k in self.later:
            if v.hand_sizes[k] == 0:
                continue
            add += base
            p_void = self.p_void(k, suit)
            if p_void > 0.0:
                worst = [vals[x] for x in others if not v.known_absent[k] >> x & 1]
                if worst:
                    add += p_void * 0.8 * (max(worst) - base)
        self._dumps[suit] = add
        return add

    def danger(self, c: int) -> float:
        """Expected points (relative) from keeping c: its chance to win a later trick times
        what such a trick is worth."""
        higher, lower = self.higher_lower(c)
        q = 0.5 ** len(higher)
        if not lower and higher:
            q *= 0.5
        if self.contract != PARLIAMENT:
            q *= KEEP_ESCAPE
        return q * (1.0 + RELATIVE) * (AVERAGE_SHARE * self.avg_trick + self.values[c])

    # ---- the decision
    def trick_value(self, c: int) -> float:
        """Value of this trick to its taker if c is played to it (cards still to come included)."""
        return (trick_bonus(self.contract, self.trick_no) + sum(self.values[x] for x in self.on_trick)
                + self.values[c] + self.expected_adds(c))

    def choose(self, cards: list[int]) -> int:
        if self.contract == PARLIAMENT:
            return self.want(cards)
        if self.contract in (QUEENS, SPADES) and self.led is not None:
            # a trick already holding a King may be worth taking
            good = [c for c in cards if self.beats(c) and self.trick_value(c) < 0 and self.p_win(c, False) > 0.6]
            if good:
                return min(good, key=lambda c: (self.trick_value(c) * self.p_win(c, False), self.strength[c & 7]))
        return self.avoid(cards)

    def avoid(self, cards: list[int]) -> int:
        """Minimise: chance to win x the trick's value, plus a third of what a winning
        opponent takes when it loses, minus the danger of keeping the card; leads prefer
        short suits."""
        def score(c):
            w = self.trick_value(c)
            p = self.p_win(c, ducking=True)
            lead = 0.0
            if self.led is None:  # leading: the shorter the suit, the sooner a void
                lead = SHORT_SUIT_LEAD * (self.hand & SUIT_MASK[c >> 3]).bit_count()
            return p * w - (1.0 - p) * RELATIVE * w - self.danger(c) + lead

        return min(cards, key=lambda c: (score(c), -self.strength[c & 7], c))

    def want(self, cards: list[int]) -> int:
        """Parliament: win tricks and Kings cheaply, keep high cards, never give a King away."""
        st, vals = self.strength, self.values
        if self.led is None:  # leading
            sure = [c for c in cards if not self.higher_lower(c)[0]]
            if sure:
                return min(sure, key=lambda c: (vals[c], -st[c & 7], c))  # a King first
            by_suit = {}
            for c in cards:
                by_suit.setdefault(c >> 3, []).append(c)

            def suit_key(s):
                cs = by_suit[s]
                king_unguarded = any(c & 7 == KING for c in cs)
                return (-len(cs), king_unguarded, s)

            s = min(by_suit, key=suit_key)
            low = [c for c in by_suit[s] if c & 7 != KING] or by_suit[s]
            return min(low, key=lambda c: (st[c & 7], c))
        following = [c for c in cards if c >> 3 == self.led]
        if following:
            winners = [c for c in following if self.beats(c)]
            sure = [c for c in winners if self.p_win(c, False) >= 0.999]
            if sure:
                return min(sure, key=lambda c: (vals[c], st[c & 7], c))
            # a King that loses is a King given away: risk it only when it very likely wins
            likely = [c for c in winners if self.p_win(c, False) >= (0.9 if c & 7 == KING else 0.6)]
            if likely:
                return min(likely, key=lambda c: (st[c & 7], c))
            non_kings = [c for c in following if c & 7 != KING] or following
            return min(non_kings, key=lambda c: (st[c & 7], c))
        # void: throw the card least likely ever to win, never a King if avoidable
        def potential(c):
            higher, _ = self.higher_lower(c)
            return (c & 7 == KING, 0.5 ** len(higher), st[c & 7], c)

        return min(cards, key=potential)


# ----------------------------------------------------------------------------- Domino
def _rows(layout: int) -> list[tuple[int, int] | None]:
    rows = []
    for s in range(4):
        m = layout >> (8 * s) & 0xFF
        if not m:
            rows.append(None)
        else:
            rows.append(((m & -m).bit_length() - 1, m.bit_length() - 1))
    return rows


def _opened(c: int, rows) -> list[int]:
    """The directions (-1 down, +1 up) in which playing c opens its suit's row."""
    s, r = c >> 3, c & 7
    if rows[s] is None:
        return [d for d in (-1, 1) if 0 <= r + d <= 7]
    lo, hi = rows[s]
    if r == lo - 1 and r > 0:
        return [-1]
    if r == hi + 1 and r < 7:
        return [1]
    return []


def domino_card_score(c: int, hand: int, layout: int, rows, ace_bonus: bool, opening: bool = False) -> float:
    """How good it is to lay c now: own follow-ups and progress toward own cards are good,
    releasing cards that only others hold is bad; an Ace with a bonus is good."""
    s, r = c >> 3, c & 7
    rest = hand & ~(1 << c)
    score = 0.0
    for d in _opened(c, rows):
        nxt = 8 * s + r + d
        mine_beyond = 0
        others_beyond = 0
        k = r + d
        while 0 <= k <= 7:
            x = 8 * s + k
            if rest >> x & 1:
                mine_beyond += 1
            elif not layout >> x & 1:
                others_beyond += 1
            k += d
        if rest >> nxt & 1:
            score += 2.0
        if mine_beyond:
            score += 1.5 * mine_beyond - 0.3 * others_beyond
        else:
            score -= 0.6 * others_beyond
    if r == ACE and ace_bonus and not opening:
        score += 2.0
    return score


def _can_empty(hand: int, layout: int, anchor: int) -> list[int] | None:
    """A sequence of plays (each legal after the previous) that lays the whole hand, if any."""
    if not hand:
        return []
    legal = _legal_domino(hand, layout, anchor)
    for c in cards_of(legal):
        rest = _can_empty(hand & ~(1 << c), layout | 1 << c, anchor)
        if rest is not None:
            return [c] + rest
    return None


def _legal_domino(hand: int, layout: int, anchor: int) -> int:
    rows = _rows(layout)
    ok = 0
    for s in range(4):
        if rows[s] is None:
            ok |= 1 << (8 * s + anchor)
        else:
            lo, hi = rows[s]
            if lo > 0:
                ok |= 1 << (8 * s + lo - 1)
            if hi < 7:
                ok |= 1 << (8 * s + hi + 1)
    return hand & ok


def domino_gaps(hand: int, anchor: int, opening: int | None = None) -> int:
    """Cards outside ``hand`` that must be laid before every card of the hand is playable,
    for a layout anchored on ``anchor`` (``opening``: the card that opened it, if the hand's)."""
    gaps = 0
    for s in range(4):
        mine = [c & 7 for c in cards_of(hand & SUIT_MASK[s])]
        if not mine:
            continue
        lo, hi = min(mine + [anchor]), max(mine + [anchor])
        for r in range(lo, hi + 1):
            x = 8 * s + r
            if not hand >> x & 1 and x != opening:
                gaps += 1
    return gaps


def best_opening(hand: int) -> tuple[int, int]:
    """(card, gaps): the opening card that leaves the fewest foreign cards in the way."""
    best = None
    for c in cards_of(hand):
        rest = hand & ~(1 << c)
        g = domino_gaps(rest, c & 7, opening=c)
        # ties: open with the card that releases fewest foreign neighbours
        key = (g, -domino_card_score(c, rest | 1 << c, 0, [None] * 4, False, opening=True), c)
        if best is None or key < best[0]:
            best = (key, c, g)
    return best[1], best[2]


def domino_move(view, mask: np.ndarray, rules) -> int:
    """The opening card, a turn's card, or a bonus step (a card or STOP)."""
    hand = view.hand
    layout = view.layout
    legal = [a for a in np.flatnonzero(mask).tolist() if a < NUM_CARDS]
    if layout == 0:  # the opening card
        return best_opening(hand)[0]
    anchor = view.anchor
    rows = _rows(layout)
    ace_bonus = rules.config.ace_bonus
    bonus = view.phase == "bonus"
    if bonus:
        path = _can_empty(hand, layout, anchor)
        if path:
            return path[0]
    if not legal:
        return PASS_STOP
    scored = [(domino_card_score(c, hand, layout, rows, ace_bonus and not bonus), -c, c) for c in legal]
    best = max(scored)
    if bonus and best[0] < 0.0:
        return PASS_STOP  # continuing would only help the others
    return best[2]


# --------------------------------------------------------------------- contract choice
#: the hand features of ``hand_features``; the weights below were fitted (ridge regression) on
#: 4000 deals per contract of this heuristic playing all four seats, from the dealer's hand
FEATURES = ("bias", "aces", "kings", "queens", "jacks", "low", "spades", "high_spades",
            "voids", "singletons", "long", "top_tricks", "kq_unguarded", "gaps", "starters", "ak_suits")

#: per contract, the dealer's expected rank reward of a single deal (+1 first .. -1 last)
REWARD_WEIGHTS = {
    ROYALTY: (0.076, -0.228, -0.290, -0.134, -0.052, 0.037, 0.013, -0.002,
              0.418, 0.225, -0.015, -0.083, -0.043, 0.022, 0.052, 0.219),
    QUEENS: (-0.252, -0.101, 0.117, -0.048, -0.007, 0.002, 0.000, -0.002,
             0.100, 0.108, 0.023, 0.076, -0.119, 0.017, 0.000, 0.100),
    SPADES: (-0.966, 0.081, 0.167, 0.096, -0.034, 0.045, 0.159, -0.413,
             0.272, 0.108, -0.007, -0.035, -0.045, 0.021, 0.005, 0.324),
    PARLIAMENT: (-0.602, 0.177, 0.291, 0.061, -0.014, -0.008, -0.019, -0.034,
                 -0.014, -0.041, -0.017, 0.124, -0.040, 0.001, -0.014, 0.233),
    GUILLOTINE: (0.100, -0.267, -0.274, -0.143, -0.093, 0.087, 0.007, 0.009,
                 0.418, 0.161, -0.023, -0.127, -0.059, 0.030, 0.026, 0.271),
    DOMINO: (0.967, 0.014, 0.002, -0.014, -0.019, -0.014, -0.023, 0.024,
             -0.155, 0.035, 0.009, 0.025, -0.026, -0.104, 0.077, -0.093),
}
#: per contract, the dealer's expected points minus the table's average share
POINT_WEIGHTS = {
    ROYALTY: (-8.53, 8.56, 14.45, 5.88, 2.20, -1.19, -0.61, 0.52,
              -16.61, -9.29, 0.41, 6.70, 2.13, -1.29, -1.29, -13.55),
    QUEENS: (5.37, 2.12, -1.76, 1.16, 0.09, 0.03, 0.03, -0.08,
             -2.66, -2.61, -0.08, -1.44, 1.92, -0.35, -0.10, -1.83),
    SPADES: (15.56, -1.34, -2.75, -1.41, 0.61, -0.81, -2.75, 6.66,
             -4.73, -1.82, 0.14, 0.57, 0.70, -0.32, -0.12, -5.25),
    PARLIAMENT: (14.39, -3.99, -7.22, -1.92, 0.12, 0.31, 0.63, 0.49,
                 0.92, 1.43, -1.05, -3.26, 1.43, 0.07, -0.04, -5.81),
    GUILLOTINE: (-8.80, 18.68, 24.11, 12.50, 7.58, -6.33, -0.38, -0.52,
                 -31.29, -11.82, 1.48, 16.09, 3.58, -3.57, -1.65, -25.57),
    DOMINO: (-16.63, -0.30, -0.13, 0.12, 0.10, 0.09, 0.37, -0.49,
             3.10, -0.66, -0.21, -0.71, 0.59, 1.95, -1.60, 1.72),
}
#: an average dealer's points minus the table's average share, per contract
BASELINE = {ROYALTY: 0.05, QUEENS: 0.79, SPADES: 2.23, PARLIAMENT: 1.66, GUILLOTINE: 2.89, DOMINO: -3.92}


def hand_features(hand: int, strength=(0, 1, 2, 3, 4, 5, 6, 7)) -> list[float]:
    """The dealer's hand as the numbers named in ``FEATURES`` ("jacks" and "low" are the fifth
    weakest rank and the three weakest ranks of the trick order)."""
    order = sorted(range(8), key=lambda r: strength[r])  # weakest first
    lengths = [(hand & SUIT_MASK[s]).bit_count() for s in range(4)]
    count = [0] * 8
    for c in cards_of(hand):
        count[c & 7] += 1
    top_tricks = 0
    kq_unguarded = 0
    for s in range(4):
        ranks_desc = order[::-1]
        for r in ranks_desc:  # top sequence
            if hand >> (8 * s + r) & 1:
                top_tricks += 1
            else:
                break
        for r in (KING, QUEEN):
            if hand >> (8 * s + r) & 1:
                below = sum(1 for q in order[:order.index(r)] if hand >> (8 * s + q) & 1)
                if below < 2:
                    kq_unguarded += 1
    opening, gaps = best_opening(hand)
    starters = sum(1 for s in range(4) if hand >> (8 * s + (opening & 7)) & 1)
    ak_suits = sum(1 for s in range(4) if hand >> (8 * s + ACE) & 1 and hand >> (8 * s + KING) & 1)
    spades = lengths[SPADES_SUIT]
    high_spades = sum(1 for r in order[5:] if hand >> (8 * SPADES_SUIT + r) & 1)
    return [
        1.0,
        count[ACE], count[KING], count[QUEEN], count[order[4]],
        sum(count[r] for r in order[:3]),
        spades, high_spades,
        sum(1 for n in lengths if n == 0), sum(1 for n in lengths if n == 1),
        sum(max(0, n - 3) for n in lengths),
        top_tricks, kq_unguarded,
        gaps, starters, ak_suits,
    ]


def contract_estimates(hand: int, rules, weights=None) -> list[float]:
    """Per contract, the linear estimate ``weights`` (default: the single deal's rank reward)
    gives this dealer's hand."""
    f = np.array(hand_features(hand, rules.strength))
    w = REWARD_WEIGHTS if weights is None else weights
    return [float(np.dot(w[c], f)) for c in range(NUM_CONTRACTS)]


def choose_contract(view, available: list[int], rules) -> int:
    """Single deal: the best expected rank. Full game (each contract is played once anyway):
    the contract whose points this hand improves most over an average dealer's."""
    if rules.config.mode == "full":
        est = contract_estimates(view.hand, rules, POINT_WEIGHTS)
        return CHOOSE_BASE + min(available, key=lambda c: (est[c] - BASELINE[c], c))
    est = contract_estimates(view.hand, rules)
    return CHOOSE_BASE + max(available, key=lambda c: (est[c], -c))
