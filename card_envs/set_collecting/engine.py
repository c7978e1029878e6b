"""The engine Collector and Hot share: hidden-commit rounds of PLAY and ACQUIRE.

Both games (``help(card_envs.collector_v0)``, ``help(card_envs.hot_v0)``) run the same round:

* **PLAY** (hidden commit): every player with cards commits PLAY(r), one card of rank r.
* **REVEAL**: the played cards are turned face up together.
* **ACQUIRE** (hidden commit): every player commits to drawing two cards from the stock or to
  taking the card just played by the player k seats clockwise (in Hot a taker also draws one).
* **RESOLVE**: (1) a card wanted by several players goes to the first of them clockwise from
  its discarder; the others fall back (``contest_fallback``); (2) the played cards nobody took
  go to the bottom of the stock, one at a time, in seat order from the lead seat; (3) in seat
  order from the lead seat each player draws what they are owed from the top, or what is left.
* **CHECK**: every player holding all 13 ranks completes (the claim is automatic); what
  follows is the game's business (:meth:`SetRules._check`).

The rest that tells the games apart (how far the takes reach, what a take and a lost contest
draw, whether the game runs over scored deals) is each game's
:class:`~card_envs.set_collecting.variant.SetVariant`, which the shared code asks.

In the AEC API a commit phase asks the players one at a time, clockwise from the lead seat
``L_t = (dealer + 1 + t) mod N``; a commitment stays in ``state.pending`` and is shown to
nobody (observations, masks, infos, renderings) until everyone has committed.

Knowledge is tracked in the state so the view can show exactly what a player may know: the
cards publicly known to be in each hand (taken cards, and stock cards drawn after they had been
seen face up), and the known bottom of the stock (every returned card; the never-seen cards are
always the top ``stock_unknown`` cards). A player who plays a rank it holds a publicly known card
of plays that card (it reveals nothing new; to the player the copies are the same, suits being
irrelevant).
"""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING, Any

import numpy as np

from card_envs.generators import shuffle_order
from card_envs.schema import (
    CARDS,
    DEQUE,
    GENERATOR,
    LIST,
    OPTIONAL_ROWS,
    PLAYERS,
    ROWS,
    VALUE,
    Array,
    Derived,
    Field,
    KernelArray,
    Row,
    SeatColumn,
    StateSchema,
)

if TYPE_CHECKING:
    from card_envs.set_collecting.variant import SetVariant

PLAY, ACQUIRE, OVER = 0, 1, 2
PHASE_NAMES = ("play", "acquire", "over")
NUM_RANKS = 13
DRAW_TWO = 13  # action index of DRAW_TWO; PLAY(r) is r, TAKE(k) is DRAW_TWO + k
TAKE_BASE = 14  # action index of TAKE(1) / DRAW_ONE_TAKE(1)
RANK_NAMES = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
MAX_HAND_SIZE = 12  # a 13-card deal could be complete before the first round; see the option docs
DECK = tuple(range(52))


STATE = StateSchema(
    "SetState",
    Field("num_players", VALUE, "the number of seats", Derived()),
    Field("hands", ROWS, "per seat: card ints", Derived(("hand", "seat"))),
    Field("counts", ROWS, "per seat: 13 rank counts of the hand", Array("counts", np.int8, (PLAYERS, NUM_RANKS))),
    Field("known", ROWS, "per seat: the cards of its hand every player knows about", Derived(("known", "seat"))),
    Field("known_counts", ROWS, "per seat: 13 rank counts of ``known``",
          Array("kcounts", np.int8, (PLAYERS, NUM_RANKS))),
    Field("stock", DEQUE, "the stock, top first", Derived(("stock", "row"))),
    Field("stock_unknown", VALUE, "the top stock_unknown cards were never seen; the rest were (returned cards)",
          Row("stock_unknown")),
    Field("played", LIST, "per seat: the card revealed this round (ACQUIRE), -1 none", SeatColumn("seat", "played")),
    Field("pending", LIST, "per seat: the action committed in the current phase, -1 none",
          SeatColumn("seat", "pending")),
    Field("phase", VALUE, "PLAY, ACQUIRE or OVER", Row("phase")),
    Field("order", LIST, "the seats asked in the current phase, in order", Derived(("seat", "row"))),
    Field("pos", VALUE, "how many of them have committed", Row("pos")),
    Field("current_player", VALUE, "the seat to act (-1 once over)", Row("current_player")),
    Field("round", VALUE, "t, within the game (Collector) or the deal (Hot)", Row("round")),
    Field("dealer", VALUE, "the dealer's seat", Row("dealer")),
    Field("lead", VALUE, "the lead seat L_t (asked first, served first)", Row("lead")),
    Field("last_played", LIST, "per seat: the card it played in the last resolved round, -1 none",
          SeatColumn("seat", "last_played")),
    Field("last_taker", LIST, "per seat: who took its last-round card, -1 nobody", SeatColumn("seat", "last_taker")),
    Field("last_drawn", LIST, "per seat: how many stock cards it drew last round", SeatColumn("seat", "last_drawn")),
    Field("last_claim", LIST, "per seat: whose card it claimed last round (ACQUIRE revealed), -1 drew two",
          SeatColumn("seat", "last_claim")),
    Field("first_place", LIST, "per seat: True where it shares first place once the game is over",
          SeatColumn("seat", "first_place", as_bool=True)),
    Field("terminated", VALUE, "True once the game ended by the rules", Row("terminated", as_bool=True)),
    Field("truncated", VALUE, "True once it was cut off by the round or deal limit", Row("truncated", as_bool=True)),
    Field("winners", LIST, "seats that completed at the end (Collector), callers of the last deal (Hot)",
          Derived(("seat",))),
    Field("shown", OPTIONAL_ROWS, "rank counts of every hand laid down (game end / last scored Hot deal), or None",
          Array("shown", np.int8, (PLAYERS, NUM_RANKS), present="has_shown")),
    Field("laid_down", VALUE, "True when the current hands are the shown ones (public)", Row("laid_down", as_bool=True)),
    Field("scores", LIST, "Hot: game totals", SeatColumn("seat", "score")),
    Field("deal", VALUE, "Hot: deal number, 0-based", Row("deal")),
    Field("last_deal_points", LIST, "Hot: points of the last finished deal", SeatColumn("seat", "last_deal_points")),
    Field("rng", GENERATOR, "the game's generator (the shuffles of later deals)"),
    kernel_rows=("order_len", "head", "stock_len"),
    seat_fields={"seat": ("hand_len", "known_len", "distinct", "played", "pending", "order", "last_played",
                          "last_taker", "last_drawn", "last_claim", "first_place", "winner", "score",
                          "last_deal_points", "owed")},
    kernel_arrays=(KernelArray("hand", np.int16, (PLAYERS, CARDS)), KernelArray("known", np.int16, (PLAYERS, CARDS)),
                   KernelArray("stock", np.int16, (CARDS,))),
    doc="One game of Collector or Hot. Seats are 0..N-1, clockwise; the stock's top is ``stock[0]``.",
)


class SetState(STATE.base):
    """One game of Collector or Hot (the fields: :data:`STATE`). Seats are 0..N-1, clockwise; the
    stock's top is ``stock[0]``."""

    __slots__ = ()

    def distinct(self, seat: int) -> int:
        """How many different ranks ``seat`` holds."""
        return NUM_RANKS - self.counts[seat].count(0)


def rank_counts(card_list) -> list[int]:
    out = [0] * NUM_RANKS
    for c in card_list:
        out[c % 13] += 1
    return out


class SetRules:
    """The shared rules; :class:`card_envs.collector.rules.CollectorRules` and
    :class:`card_envs.hot.rules.HotRules` fill in the game's parts.

    A subclass sets ``variant`` (its :class:`~card_envs.set_collecting.variant.SetVariant`: the
    take, the contest fallbacks, whether the game runs over deals), ``name``, ``num_actions`` and
    ``wait_action`` (the game's actions, then WAIT), ``max_rounds`` (the round guard) and
    implements :meth:`_check`, :meth:`scores`, :meth:`ranks`. From the variant and the options
    follow ``take_draws`` (stock cards a successful taker also draws) and ``loser_draws`` (stock
    cards a losing claimant draws in all).
    """

    variant: SetVariant
    name: str
    num_actions: int
    wait_action: int  # WAIT: the parallel API's no-op (see :meth:`parallel_mask`); never legal in AEC
    reward_mode = "rank"

    def __init__(self, config: Any):
        self.config = config
        self.num_players = n = config.num_players
        self.hand_size = config.hand_size
        self.take_draws = self.variant.take_draws
        self.loser_draws = self.variant.loser_draws(config.contest_fallback)
        self._take_actions = [(TAKE_BASE + k - 1, k) for k in range(1, n)]
        names = {r: f"play {RANK_NAMES[r]}" for r in range(NUM_RANKS)}
        names[DRAW_TWO] = "draw two"
        for k in range(1, self.wait_action - TAKE_BASE + 1):
            names[TAKE_BASE + k - 1] = f"{self.variant.take_label} {k}"
        names[self.wait_action] = "wait"
        self._names = [names[a] for a in range(self.num_actions)]
        lookup = {name.lower(): a for a, name in enumerate(self._names)}
        lookup["play t"] = 9  # the card notation's T
        lookup["play 1"] = 0  # the source counts the ace as 1
        for k in range(1, self.wait_action - TAKE_BASE + 1):
            lookup[f"take {k}"] = TAKE_BASE + k - 1
        self._lookup = lookup

    # ----------------------------------------------------------------------------- set-up
    def deck(self) -> list[int]:
        """One 52-card deck, no jokers."""
        return list(DECK)

    def new_game(self, rng: np.random.Generator, deck: list[int] | None = None) -> SetState:
        n = self.num_players
        s = SetState()
        s.num_players = n
        s.rng = rng
        s.terminated = s.truncated = False
        s.winners = []
        s.shown = None
        s.laid_down = False
        s.scores = [0] * n
        s.deal = 0
        s.last_deal_points = [0] * n
        s.first_place = [False] * n
        dealer = self.config.dealer
        if dealer == "random":
            dealer = int(rng.integers(n))
        self._deal(s, dealer, deck)
        return s

    def _deal(self, s: SetState, dealer: int, deck: list[int] | None) -> None:
        """Shuffle (unless stacked), deal ``hand_size`` cards one at a time clockwise from the
        dealer's left; the rest is the stock, its top the next card. Round 0 starts."""
        n = self.num_players
        if deck is None:
            deck = shuffle_order(s.rng, DECK).tolist()
        s.dealer = dealer
        s.hands = [[] for _ in range(n)]
        dealt = self.hand_size * n
        for i in range(dealt):
            s.hands[(dealer + 1 + i) % n].append(deck[i])
        s.counts = [rank_counts(h) for h in s.hands]
        s.laid_down = False
        s.known = [[] for _ in range(n)]
        s.known_counts = [[0] * NUM_RANKS for _ in range(n)]
        s.stock = deque(deck[dealt:])
        s.stock_unknown = len(s.stock)
        s.last_played = [-1] * n
        s.last_taker = [-1] * n
        s.last_drawn = [0] * n
        s.last_claim = [-1] * n
        s.round = 0
        s.lead = (dealer + 1) % n
        self._start_play(s)

    def _seats_from_lead(self, s: SetState) -> list[int]:
        n = self.num_players
        return [(s.lead + i) % n for i in range(n)]

    def _start_play(self, s: SetState) -> None:
        n = self.num_players
        s.phase = PLAY
        s.played = [-1] * n
        s.pending = [-1] * n
        s.order = [p for p in self._seats_from_lead(s) if s.hands[p]]
        s.pos = 0
        if not s.order:  # cannot happen (some hand always holds a card), kept for safety
            self._start_acquire(s)
            return
        s.current_player = s.order[0]

    def _start_acquire(self, s: SetState) -> None:
        s.phase = ACQUIRE
        s.pending = [-1] * self.num_players
        s.order = self._seats_from_lead(s)
        s.pos = 0
        s.current_player = s.order[0]

    def _lay_down(self, s: SetState) -> None:
        """Every player shows their hand (public from now on)."""
        s.shown = [c[:] for c in s.counts]
        s.laid_down = True

    def _end_game(self, s: SetState, terminated: bool) -> None:
        s.phase = OVER
        s.current_player = -1
        s.order = []
        s.pos = 0
        s.pending = [-1] * self.num_players
        s.terminated = terminated
        s.truncated = not terminated
        s.first_place = [r == 1 for r in self.ranks(s)]

    # ------------------------------------------------------------------------------- masks
    def legal_mask(self, s: SetState) -> np.ndarray:
        """The mask of the player to act (zeros once the game is over)."""
        return self.mask_for(s, s.current_player)

    def mask_for(self, s: SetState, seat: int) -> np.ndarray:
        """The legal actions of ``seat`` in the current phase, were it asked now. It depends on
        its own hand (PLAY) or on the revealed cards (ACQUIRE) only, never on anyone's pending
        commitment, so every player of a phase can be asked at once (the parallel API)."""
        mask = np.zeros(self.num_actions, dtype=np.int8)
        if s.phase == PLAY:
            if seat >= 0:
                counts = s.counts[seat]
                for r in range(NUM_RANKS):
                    if counts[r]:
                        mask[r] = 1
        elif s.phase == ACQUIRE:
            mask[DRAW_TWO] = 1  # always, even from a short stock: the mask must not hint at it
            n = self.num_players
            played = s.played
            for a, k in self._take_actions:
                if played[(seat + k) % n] >= 0:
                    mask[a] = 1
        return mask

    def parallel_mask(self, s: SetState, seat: int) -> np.ndarray:
        """The mask the parallel API gives ``seat``: :meth:`mask_for` if the current phase asks
        it, else only WAIT (a live player with nothing to do: an empty hand in PLAY), so every
        live agent has a legal action each step. WAIT is a no-op the env ignores, and it is
        never legal in the AEC API (nobody is asked there without something to do)."""
        if s.phase != OVER and seat not in s.order:
            mask = np.zeros(self.num_actions, dtype=np.int8)
            mask[self.wait_action] = 1
            return mask
        return self.mask_for(s, seat)

    def phase_actors(self, s: SetState) -> list[int]:
        """Seats asked in the current phase, in the order the AEC API asks them."""
        return s.order[:] if s.phase != OVER else []

    # ------------------------------------------------------------------------------- apply
    def apply(self, s: SetState, action: int) -> list[float] | None:
        """Commit ``action`` for the player to act; the last commitment of a phase reveals
        (PLAY) or resolves the round (ACQUIRE). Returns the score-mode rewards of a finished
        Hot deal, else None. The caller has checked the action is legal."""
        s.pending[s.current_player] = action
        s.pos += 1
        if s.pos < len(s.order):
            s.current_player = s.order[s.pos]
            return None
        if s.phase == PLAY:
            self._reveal(s)
            self._start_acquire(s)
            return None
        return self._resolve(s)

    def _reveal(self, s: SetState) -> None:
        for p in s.order:
            r = s.pending[p]
            hand = s.hands[p]
            known = s.known[p]
            card = -1
            if s.known_counts[p][r]:  # a publicly known copy first: it reveals nothing new
                for c in known:
                    if c % 13 == r:
                        card = c
                        known.remove(c)
                        s.known_counts[p][r] -= 1
                        break
            else:
                for c in hand:
                    if c % 13 == r:
                        card = c
                        break
            hand.remove(card)
            s.counts[p][r] -= 1
            s.played[p] = card

    def _resolve(self, s: SetState) -> list[float] | None:
        self._resolve_cards(s)
        complete = [p for p in range(self.num_players) if 0 not in s.counts[p]]
        return self._check(s, complete)

    def _resolve_cards(self, s: SetState) -> list[int]:
        """RESOLVE steps 1-3 (contests, returns, draws); the ACQUIRE commitments become public
        (``last_claim``). Returns how many never-seen stock cards each seat drew."""
        n = self.num_players
        played = s.played
        pending = s.pending
        owed = [0] * n
        claims: list[list[int]] = [[] for _ in range(n)]
        claim = [-1] * n
        for p in range(n):
            a = pending[p]
            if a == DRAW_TWO:
                owed[p] = 2
            else:
                claim[p] = d = (p + a - DRAW_TWO) % n
                claims[d].append(p)
        # 1. contests: the first claimant clockwise from the discarder's left gets the card
        taker = [-1] * n
        for d in range(n):
            cl = claims[d]
            if not cl:
                continue
            winner = min(cl, key=lambda p: (p - d) % n)
            taker[d] = winner
            for p in cl:
                owed[p] = self.take_draws if p == winner else self.loser_draws
            c = played[d]
            s.hands[winner].append(c)
            s.counts[winner][c % 13] += 1
            s.known[winner].append(c)
            s.known_counts[winner][c % 13] += 1
        # 2. untaken cards to the bottom of the stock, in seat order from the lead seat
        order = self._seats_from_lead(s)
        stock = s.stock
        for p in order:
            if played[p] >= 0 and taker[p] < 0:
                stock.append(played[p])
        # 3. draws from the top, in seat order from the lead seat, while the stock lasts
        drawn = [0] * n
        unseen = [0] * n
        for p in order:
            want = owed[p]
            while want and stock:
                c = stock.popleft()
                if s.stock_unknown:
                    s.stock_unknown -= 1
                    unseen[p] += 1
                else:  # it had been seen face up: everyone knows who has it now
                    s.known[p].append(c)
                    s.known_counts[p][c % 13] += 1
                s.hands[p].append(c)
                s.counts[p][c % 13] += 1
                drawn[p] += 1
                want -= 1
        s.last_played = played
        s.last_taker = taker
        s.last_drawn = drawn
        s.last_claim = claim
        s.played = [-1] * n
        s.pending = [-1] * n
        return unseen

    def _next_round(self, s: SetState) -> None:
        s.round += 1
        s.lead = (s.dealer + 1 + s.round) % self.num_players
        self._start_play(s)

    def _check(self, s: SetState, complete: list[int]) -> list[float] | None:
        raise NotImplementedError

    # ------------------------------------------------------------------------ action names
    def action_to_string(self, s: Any, action: int) -> str:
        return self._names[int(action)]

    def public_action(self, s: Any, action: int) -> str:
        """What every seat sees of ``action``, about to be applied in ``s``: every action is a
        hidden commitment, so only that the seat committed. What it committed shows when the
        phase's commitments are revealed together (the played cards; the takes and draws)."""
        return "commits"

    def string_to_action(self, s: Any, text: str) -> int:
        key = " ".join(str(text).lower().split())
        if key in self._lookup:
            return self._lookup[key]
        raise ValueError(
            f"unknown action name {text!r} for {self.name}; action names: " + ", ".join(self._names)
        )

    # --------------------------------------------------------------------- for tests, search
    def zones(self, s: SetState) -> dict[str, list[int]]:
        out = {f"hand {p}": s.hands[p][:] for p in range(self.num_players)}
        out["stock"] = list(s.stock)
        out["played"] = [c for c in s.played if c >= 0]
        return out

    def reveals_choices(self, s: SetState, action: int) -> bool:
        """Whether ``action`` is the last commitment of a phase: then every commitment of the phase
        is revealed together (the played cards; the takes and draws)."""
        return s.phase != OVER and s.pos + 1 == len(s.order)

    def reveals(self, s: SetState, action: int, seat: int):
        """Whether applying ``action`` (the current player's commitment) turns up, to ``seat``,
        something ``seat`` could not see before. Only the last commitment of a phase can:

        * every commitment then becomes public: it reveals if a player other than ``seat`` and
          the actor has committed a choice ``seat`` could not infer (in PLAY: its hand holds
          more than one rank or a card not publicly known; in ACQUIRE: it had a take to choose);
        * the ACQUIRE resolution also reveals if ``seat`` draws a never-seen stock card, if the
          check lays the hands down (a completed set, or Collector's round limit) while another
          hand holds a card not publicly known, or if Hot deals a new deal (``seat``'s new hand).

        Returns False, True (PLAY's reveal) or, for a revealing resolution, its public outcome
        ``(seats completing a set, every hand's size after the draws)``: a truthy value that
        says what the turned-up cards and choices decide. Who acts next depends on it (a set
        completed ends the game or the deal; a hand left empty skips the next PLAY), so twin
        worlds are comparable in who acts next only where the outcomes are equal.
        """
        if s.phase == OVER or s.pos + 1 < len(s.order):
            return False
        actor = s.current_player
        hidden_choice = False
        for p in s.order[: s.pos]:
            if p == seat or p == actor:
                continue
            if s.phase == PLAY:
                hidden_choice |= s.known_counts[p] != s.counts[p] or s.distinct(p) > 1
            else:
                hidden_choice |= bool(self.mask_for(s, p).sum() > 1)
        if s.phase == PLAY:
            return hidden_choice
        c = s.copy()
        c.pending[actor] = action
        unseen = self._resolve_cards(c)
        n = self.num_players
        complete = tuple(p for p in range(n) if 0 not in c.counts[p])
        outcome = (complete, tuple(len(h) for h in c.hands))
        hidden_left = any(c.known_counts[p] != c.counts[p] for p in range(n) if p != seat)
        if hidden_choice or unseen[seat] or (complete and hidden_left):
            return outcome
        if not (complete or c.round + 1 >= self.max_rounds):
            return False
        if not self.variant.deals:  # the game ends, the hands laid down
            return outcome if hidden_left else False
        after = s.copy()
        self.apply(after, action)
        return outcome if after.phase != OVER else False  # a new deal: ``seat``'s new hand
