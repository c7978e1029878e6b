"""Fiddlesticks: the whole game, readable beside its page, ``help(card_envs.fiddlesticks_v0)``.

Pure Python (no PettingZoo). Suits do not matter: cards are handled by their Fiddlesticks
rank, indexed r = 0..12 for 2 3 4 5 6 7 8 9 10 J Q K A (2 low, Ace high; see ``GAME_RANK``).

Each player is dealt 3 cards face down (nobody sees them, the owner included), 3 face up on
top of them and 3 into the hand. In the SWAP phase each player, in turn from the dealer's
left, picks which 3 of its 6 visible cards (hand + face up) lie face up (three PICK_FACEUP
steps); the choices are revealed only once everyone has picked. Then, clockwise from the
dealer's left, a player plays k >= 1 cards of one rank from the hand onto the pile:

* on an empty pile anything goes; a 2 (wild, lowest) goes on anything and anything goes on it;
* a 10 (wild) goes on anything and clears the pile: the same player goes again;
* on a 9 the next card must be equal or lower (2..9), or a 10;
* on anything else the next card must be equal or higher, or a wild;
* when the top 4+ cards of the pile share a rank (whoever played them), the pile is cleared
  and the player who completed the run goes again (``four_in_a_row_clears``).

After a play from the hand the player draws back up to 3 from the stock; once the stock is
gone, a hand below 3 takes in all the player's face-up cards (public). A player who cannot
play picks up the whole pile (PICKUP). With hand, stock and face-up all empty, the player
turns a face-down card of its choice (BLIND): played if it fits, otherwise it goes into the
hand with the whole pile. The first player with no cards at all wins (``first_out``), or play
goes on until one player is left (``rank_all``). ``max_turns`` play actions truncate.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from card_envs import cards
from card_envs.generators import shuffle_order
from card_envs.options import (
    build_config,
    check_bool,
    check_choice,
    check_int,
    check_rank_only,
    check_seat_or_random,
)
from card_envs.schema import (
    GENERATOR,
    LIST,
    NESTED,
    PLAYERS,
    ROWS,
    VALUE,
    Array,
    Derived,
    Field,
    KernelArray,
    Pile,
    Row,
    SeatColumn,
    StateSchema,
)
from card_envs.scoring import ranks_from_order

NAME = "fiddlesticks_v0"

#: Fiddlesticks rank index (2=0 .. 10=8, J=9, Q=10, K=11, A=12) of each card int (cards.py
#: ranks are A23456789TJQK = 0..12, Ace low).
GAME_RANK = tuple((c % 13 - 1) % 13 for c in range(52))
RANK_NAMES = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
NUM_RANKS = 13
TWO, NINE, TEN = 0, 7, 8
EMPTY = 13  # "top rank" of an empty pile

HAND_TARGET = 3  # refill the hand to this many cards
NUM_SLOTS = 3  # face-down slots, face-up cards, hand cards dealt
COPIES = "copies"  #: the size name of K, the most copies of one rank (4 · num_decks), in the kernels' shapes

# Phases.
SWAP, PLAY, OVER = range(3)
PHASE_NAMES = ("swap", "play", "over")
END_MODES = ("first_out", "rank_all")


def playable(top: int, r: int) -> bool:
    """May a card of rank ``r`` go on a pile whose top rank is ``top`` (EMPTY for an empty pile)?"""
    if top == EMPTY or r == TWO or r == TEN or top == TWO:
        return True
    if top == NINE:
        return r <= NINE
    return r >= top


#: PLAYABLE[top][r] for top in 0..12 and EMPTY
PLAYABLE = tuple(tuple(playable(top, r) for r in range(NUM_RANKS)) for top in range(NUM_RANKS + 1))


@dataclass
class FiddlesticksConfig:
    """The table's options, with their defaults (the Options table of the environment's docs)."""

    num_players: int = 4
    num_decks: int = 2
    end_mode: str = "first_out"
    four_in_a_row_clears: bool = True
    voluntary_pickup: bool = False
    dealer: int | str = "random"
    max_turns: int = 1000
    reward_mode: str = "rank"  # every game takes it; Fiddlesticks has no points, so no score mode

    def __post_init__(self) -> None:
        self.reward_mode = check_rank_only(self.reward_mode, NAME)
        self.num_decks = check_int("num_decks", self.num_decks, 1)
        self.num_players = check_int("num_players", self.num_players, 2)
        most = 52 * self.num_decks // 9
        if 9 * self.num_players > 52 * self.num_decks:
            raise ValueError(
                f"option 'num_players' must be 2..{most} with num_decks={self.num_decks}: each player needs "
                f"9 cards and {self.num_decks} deck(s) hold {52 * self.num_decks}, got {self.num_players} "
                f"(add decks with num_decks)"
            )
        self.end_mode = check_choice("end_mode", self.end_mode, END_MODES)
        self.four_in_a_row_clears = check_bool("four_in_a_row_clears", self.four_in_a_row_clears)
        self.voluntary_pickup = check_bool("voluntary_pickup", self.voluntary_pickup)
        self.dealer = check_seat_or_random("dealer", self.dealer, self.num_players)
        self.max_turns = check_int("max_turns", self.max_turns, 1)


STATE = StateSchema(
    "FiddlesticksState",
    Field("hand", NESTED, "each seat's hand by rank: hand[p][r] the card ints of rank r, a stack whose end is the top",
          Derived(arrays=("hand", "hcnt"))),
    Field("hand_counts", ROWS, "each seat's hand cards of each rank", Array("hcnt", np.int8, (PLAYERS, NUM_RANKS))),
    Field("hand_size", LIST, "each seat's number of hand cards", SeatColumn("pl", "hand_size")),
    Field("face_up", ROWS, "each seat's face-up cards in order (SWAP: the dealt ones not picked yet)",
          Derived(arrays=("up", "pl"))),
    Field("face_up_counts", ROWS, "each seat's face-up cards of each rank", Derived(arrays=("up", "pl"))),
    Field("face_down", ROWS, "each seat's face-down slots 0..2: the card int, None once turned",
          Derived(arrays=("down",))),
    Field("known", ROWS, "each seat's hand cards of each rank everybody knows about (a public lower bound)",
          Array("known", np.int8, (PLAYERS, NUM_RANKS))),
    Field("absent", ROWS, "each seat's ranks: True when everybody knows it holds none beyond its known ones",
          Array("absent", np.int8, (PLAYERS, NUM_RANKS), as_bool=True)),
    Field("stock", LIST, "the stock, its end the top", Pile("stock", np.int8, "stock_len")),
    Field("pile", LIST, "the pile, its end the top", Pile("pile", np.int8, "pile_len")),
    Field("pile_counts", LIST, "the pile's cards of each rank", Array("pcnt", np.int8, (NUM_RANKS,))),
    Field("run_rank", VALUE, "the rank of the pile's top run of equal ranks (EMPTY: an empty pile)", Row("run_rank")),
    Field("run_len", VALUE, "the length of that run", Row("run_len")),
    Field("cleared", LIST, "the cards cleared from play, in order", Pile("cleared", np.int8, "cleared_len")),
    Field("cleared_counts", LIST, "the cleared cards of each rank", Array("ccnt", np.int8, (NUM_RANKS,))),
    Field("picked", ROWS, "SWAP phase: the cards each seat has picked to lie face up so far (empty afterwards)",
          Derived(arrays=("picked", "pl", "row"))),
    Field("picked_counts", ROWS, "each seat's SWAP picks of each rank", Derived(arrays=("picked", "pl", "row"))),
    Field("dealt_up", ROWS, "each seat's dealt face-up cards of each rank", Derived(arrays=("dealt",))),
    Field("dealt_hand", ROWS, "each seat's dealt hand cards of each rank", Derived(arrays=("dealt",))),
    Field("swap_picks", LIST, "the SWAP picks each seat has made", SeatColumn("pl", "swap_picks")),
    Field("phase", VALUE, "SWAP, PLAY or OVER", Row("phase")),
    Field("current_player", VALUE, "the seat to act (-1 once over)", Row("current_player")),
    Field("dealer", VALUE, "the dealer's seat", Row("dealer")),
    Field("first", VALUE, "the seat left of the dealer: dealt to first, picks first, plays first", Row("first")),
    Field("out", LIST, "each seat: True once it has gone out (no cards left)", Derived(arrays=("pl",))),
    Field("places", LIST, "the seats that went out, in the order they did", Derived(arrays=("pl", "row"))),
    Field("turns", VALUE, "play actions so far (PLAY, BLIND, PICKUP)", Row("turns")),
    Field("terminated", VALUE, "True once the game ended by the rules", Row("terminated", as_bool=True)),
    Field("truncated", VALUE, "True once it was cut off by max_turns", Row("truncated", as_bool=True)),
    Field("rng", GENERATOR, "the game's generator (the dealer and the shuffle)"),
    seat_fields={"pl": (("hand_size", "face_up", "swap_picks", "place"), np.int16)},
    kernel_rows=("num_out",),
    kernel_arrays=(
        KernelArray("hand", np.int8, (PLAYERS, NUM_RANKS, COPIES)),  # hand[p][r] as a stack, hcnt high
        KernelArray("up", np.int8, (PLAYERS, NUM_SLOTS)),  # face_up[p], pl[p, face_up] of them
        KernelArray("down", np.int8, (PLAYERS, NUM_SLOTS), fill=-1),  # face_down[p], -1 for None
        KernelArray("picked", np.int8, (PLAYERS, NUM_SLOTS)),  # picked[p], pl[p, swap_picks] of them
        KernelArray("dealt", np.int8, (PLAYERS, 2, NUM_RANKS)),  # [dealt_up[p], dealt_hand[p]]
    ),
    doc="Everything on the table. Stock and pile are lists whose end is the top.",
)


class FiddlesticksState(STATE.base):
    """Everything on the table (the fields: :data:`STATE`).

    Per player p: ``hand[p][r]`` the card ints of rank r in the hand (with ``hand_counts`` and
    ``hand_size`` kept alongside), ``face_up[p]`` the face-up cards, ``face_down[p][j]`` the card
    in face-down slot j (None once turned), ``known[p][r]`` how many rank-r cards in the hand
    everybody knows about (a public lower bound), ``absent[p][r]`` True when everybody knows that p
    holds no rank-r card beyond those ``known[p][r]`` (a forced pick-up showed that nothing in p's
    hand fitted the pile, and p's hand has gained no unseen card since). The stock is a list whose
    *end* is the top, the pile a list whose end is the top, with ``run_rank``/``run_len`` the rank
    and length of its top run of equal ranks. In the SWAP phase ``picked[p]`` holds the cards p has
    chosen (taken out of hand/face-up); ``dealt_up``/``dealt_hand`` remember the dealt rank counts.
    """

    __slots__ = ()

    def cards_left(self, p: int) -> int:
        """Cards player p still holds: hand, face-up and face-down."""
        return self.hand_size[p] + len(self.face_up[p]) + sum(c is not None for c in self.face_down[p])


class FiddlesticksRules:
    """Fiddlesticks for one configuration: setup, legal actions, apply, results."""

    name = NAME
    reward_mode = "rank"  # no points, so no score mode: reward_mode accepts only "rank"

    def __init__(self, **options: Any):
        self.config = build_config(FiddlesticksConfig, NAME, options)
        cfg = self.config
        self.num_players = cfg.num_players
        #: K, the most copies of one rank
        self.copies = K = 4 * cfg.num_decks
        # Actions (indices as in the environment's actions table).
        self.play_base = 0
        self.pick_base = NUM_RANKS * K
        self.blind_base = NUM_RANKS * K + NUM_RANKS
        self.pickup = NUM_RANKS * K + NUM_RANKS + NUM_SLOTS
        self.num_actions = NUM_RANKS * K + NUM_RANKS + NUM_SLOTS + 1
        self._deck = cards.make_deck(cfg.num_decks)
        self._four = cfg.four_in_a_row_clears
        self._voluntary = cfg.voluntary_pickup
        self._rank_all = cfg.end_mode == "rank_all"

    # ------------------------------------------------------------------ action indices
    def play_action(self, r: int, k: int) -> int:
        """PLAY(r, k): k cards of rank r (r = 0..12 for 2..A)."""
        return r * self.copies + (k - 1)

    def pick_action(self, r: int) -> int:
        """PICK_FACEUP(r) (SWAP phase)."""
        return self.pick_base + r

    def blind_action(self, j: int) -> int:
        """BLIND(j): turn face-down slot j."""
        return self.blind_base + j

    # ------------------------------------------------------------------------ setup
    def deck(self) -> list[int]:
        return list(self._deck)

    def new_game(self, rng: np.random.Generator, deck: list[int] | None = None) -> FiddlesticksState:
        cfg = self.config
        n = cfg.num_players
        s = FiddlesticksState()
        s.rng = rng
        s.dealer = int(rng.integers(n)) if cfg.dealer == "random" else cfg.dealer
        s.first = (s.dealer + 1) % n
        order = list(deck) if deck is not None else [self._deck[i] for i in shuffle_order(rng, self._deck)]
        # One card at a time clockwise from the dealer's left: face-down 0..2, face-up 0..2, hand.
        s.face_down = [[None] * NUM_SLOTS for _ in range(n)]
        s.face_up = [[] for _ in range(n)]
        s.hand = [[[] for _ in range(NUM_RANKS)] for _ in range(n)]
        i = 0
        for rnd in range(3 * NUM_SLOTS):
            for k in range(n):
                p = (s.first + k) % n
                c = order[i]
                i += 1
                if rnd < NUM_SLOTS:
                    s.face_down[p][rnd] = c
                elif rnd < 2 * NUM_SLOTS:
                    s.face_up[p].append(c)
                else:
                    s.hand[p][GAME_RANK[c]].append(c)
        s.stock = order[i:][::-1]  # end of list = top of the stock
        s.hand_counts = [[len(h) for h in s.hand[p]] for p in range(n)]
        s.hand_size = [NUM_SLOTS] * n
        s.face_up_counts = [_rank_counts(s.face_up[p]) for p in range(n)]
        s.dealt_up = [list(c) for c in s.face_up_counts]
        s.dealt_hand = [list(c) for c in s.hand_counts]
        s.known = [[0] * NUM_RANKS for _ in range(n)]
        s.absent = [[False] * NUM_RANKS for _ in range(n)]
        s.picked = [[] for _ in range(n)]
        s.picked_counts = [[0] * NUM_RANKS for _ in range(n)]
        s.swap_picks = [0] * n
        s.pile = []
        s.pile_counts = [0] * NUM_RANKS
        s.run_rank = EMPTY
        s.run_len = 0
        s.cleared = []
        s.cleared_counts = [0] * NUM_RANKS
        s.out = [False] * n
        s.places = []
        s.turns = 0
        s.terminated = s.truncated = False
        s.phase = SWAP
        s.current_player = s.first
        return s

    # ------------------------------------------------------------------ legal actions
    def legal_mask(self, s: FiddlesticksState) -> np.ndarray:
        """Legal actions of the player to act. They depend only on that player's own hand (or
        SWAP pool), the public pile and which face-down slots still hold a card: never on a
        face-down card's identity (every remaining BLIND slot is offered)."""
        mask = np.zeros(self.num_actions, dtype=np.int8)
        p = s.current_player
        if s.phase == PLAY:
            if s.hand_size[p]:
                counts = s.hand_counts[p]
                ok = PLAYABLE[s.run_rank]
                K = self.copies
                any_play = False
                for r in range(NUM_RANKS):
                    c = counts[r]
                    if c and ok[r]:
                        mask[r * K : r * K + c] = 1
                        any_play = True
                if not any_play or (self._voluntary and s.pile):
                    mask[self.pickup] = 1
            else:
                fd = s.face_down[p]
                for j in range(NUM_SLOTS):
                    if fd[j] is not None:
                        mask[self.blind_base + j] = 1
        elif s.phase == SWAP:
            hc, uc = s.hand_counts[p], s.face_up_counts[p]
            for r in range(NUM_RANKS):
                if hc[r] or uc[r]:
                    mask[self.pick_base + r] = 1
        return mask

    # -------------------------------------------------------------------------- apply
    def apply(self, s: FiddlesticksState, action: int) -> None:
        """Apply a legal action (the caller checks the mask). There is no score mode: None."""
        p = s.current_player
        if s.phase == SWAP:
            self._pick(s, p, action - self.pick_base)
            return None
        if action < self.pick_base:
            r, k = divmod(action, self.copies)
            self._play(s, p, r, k + 1)
        elif action == self.pickup:
            if not self._voluntary:
                # PICKUP is legal only when nothing in the hand fits: the table learns that p holds
                # no card of any rank that goes on this top card, beyond its publicly known ones.
                ok, ab = PLAYABLE[s.run_rank], s.absent[p]
                for r in range(NUM_RANKS):
                    if ok[r]:
                        ab[r] = True
            self._take_pile(s, p)
            self._end_action(s, p, clear=False)
        else:
            self._blind(s, p, action - self.blind_base)
        return None

    def _pick(self, s: FiddlesticksState, p: int, r: int) -> None:
        """PICK_FACEUP(r): one card of rank r from p's pool (hand + face up) will lie face up."""
        if s.face_up_counts[p][r]:
            up = s.face_up[p]
            for i in range(len(up)):
                if GAME_RANK[up[i]] == r:
                    c = up.pop(i)
                    break
            s.face_up_counts[p][r] -= 1
        else:
            c = s.hand[p][r].pop()
            s.hand_counts[p][r] -= 1
            s.hand_size[p] -= 1
        s.picked[p].append(c)
        s.picked_counts[p][r] += 1
        s.swap_picks[p] += 1
        if s.swap_picks[p] < NUM_SLOTS:
            return
        n = self.num_players
        nxt = (p + 1) % n
        if nxt != s.first:
            s.current_player = nxt
            return
        # Everyone has committed: reveal the new face-up sets and start play.
        for q in range(n):
            for c in s.face_up[q]:  # dealt face-up cards not picked go into the hand, publicly
                s.hand[q][GAME_RANK[c]].append(c)
            s.face_up[q] = s.picked[q]
            s.picked[q] = []
            s.face_up_counts[q] = s.picked_counts[q]
            s.picked_counts[q] = [0] * NUM_RANKS
            s.hand_counts[q] = [len(h) for h in s.hand[q]]
            s.hand_size[q] = NUM_SLOTS
            s.known[q] = [max(0, d - u) for d, u in zip(s.dealt_up[q], s.face_up_counts[q])]
        s.phase = PLAY
        s.current_player = s.first

    def _play(self, s: FiddlesticksState, p: int, r: int, k: int) -> None:
        """PLAY(r, k) from the hand, then clear, refill, out check, extra turn or next."""
        h = s.hand[p][r]
        played = h[-k:]
        del h[-k:]
        s.hand_counts[p][r] -= k
        s.hand_size[p] -= k
        kn = s.known[p]
        if kn[r]:
            kn[r] = max(0, kn[r] - k)  # the played copies may have been the known ones
        clear = self._put_on_pile(s, r, played)
        self._refill(s, p)
        self._end_action(s, p, clear)

    def _blind(self, s: FiddlesticksState, p: int, j: int) -> None:
        """BLIND(j): turn face-down slot j; play it if it fits, else take it and the pile."""
        c = s.face_down[p][j]
        s.face_down[p][j] = None
        r = GAME_RANK[c]
        if PLAYABLE[s.run_rank][r]:
            clear = self._put_on_pile(s, r, [c])
            self._end_action(s, p, clear)  # nothing to refill after a blind play
        else:
            s.hand[p][r].append(c)
            s.hand_counts[p][r] += 1
            s.hand_size[p] += 1
            s.known[p][r] += 1
            self._take_pile(s, p)
            self._end_action(s, p, clear=False)

    def _put_on_pile(self, s: FiddlesticksState, r: int, played: list[int]) -> bool:
        """Put cards of rank r on the pile; clear it (returns True) after 10s or a run of 4+."""
        k = len(played)
        s.pile.extend(played)
        s.pile_counts[r] += k
        if s.run_rank == r:
            s.run_len += k
        else:
            s.run_rank = r
            s.run_len = k
        if r == TEN or (self._four and s.run_len >= 4):
            s.cleared.extend(s.pile)
            cc = s.cleared_counts
            for i, x in enumerate(s.pile_counts):
                cc[i] += x
            s.pile = []
            s.pile_counts = [0] * NUM_RANKS
            s.run_rank = EMPTY
            s.run_len = 0
            return True
        return False

    def _take_pile(self, s: FiddlesticksState, p: int) -> None:
        """The whole pile goes into p's hand (its identities are public)."""
        hand, hc, kn = s.hand[p], s.hand_counts[p], s.known[p]
        for c in s.pile:
            hand[GAME_RANK[c]].append(c)
        for i, x in enumerate(s.pile_counts):
            if x:
                hc[i] += x
                kn[i] += x
        s.hand_size[p] += len(s.pile)
        s.pile = []
        s.pile_counts = [0] * NUM_RANKS
        s.run_rank = EMPTY
        s.run_len = 0

    def _refill(self, s: FiddlesticksState, p: int) -> None:
        """Draw back up to 3; with the stock gone, a hand below 3 takes in all face-up cards."""
        if s.hand_size[p] >= HAND_TARGET:
            return
        hand, hc = s.hand[p], s.hand_counts[p]
        stock = s.stock
        if stock:
            # cards nobody else sees come into the hand: what its forced pick-ups showed is void
            s.absent[p] = [False] * NUM_RANKS
        while s.hand_size[p] < HAND_TARGET and stock:
            c = stock.pop()
            r = GAME_RANK[c]
            hand[r].append(c)
            hc[r] += 1
            s.hand_size[p] += 1
        if s.hand_size[p] < HAND_TARGET and not stock and s.face_up[p]:
            kn = s.known[p]
            for c in s.face_up[p]:
                r = GAME_RANK[c]
                hand[r].append(c)
                hc[r] += 1
                kn[r] += 1
            s.hand_size[p] += len(s.face_up[p])
            s.face_up[p] = []
            s.face_up_counts[p] = [0] * NUM_RANKS

    def _end_action(self, s: FiddlesticksState, p: int, clear: bool) -> None:
        """AFTER_PLAY steps 3-4 (and the end of a PICKUP): out check, game end, whose turn."""
        n = self.num_players
        s.turns += 1
        if not s.hand_size[p] and not s.face_up[p] and s.face_down[p].count(None) == NUM_SLOTS:
            s.out[p] = True
            s.places.append(p)
            if not self._rank_all or len(s.places) == n - 1:
                s.terminated = True
                s.phase = OVER
                s.current_player = -1
                return
        if s.turns >= self.config.max_turns:
            s.truncated = True
            s.phase = OVER
            s.current_player = -1
            return
        if clear and not s.out[p]:
            return  # the same player goes again, on the empty pile
        q = (p + 1) % n
        while s.out[q]:
            q = (q + 1) % n
        s.current_player = q

    # ------------------------------------------------------------------------ results
    def scores(self, s: FiddlesticksState) -> list[int]:
        """There are no points: ``score`` is the number of cards each player still holds
        (hand, face up and face down); 0 for the players who went out."""
        return [s.cards_left(p) for p in range(self.num_players)]

    def ranks(self, s: FiddlesticksState) -> list[int]:
        """first_out: the winner 1, everyone else 2. rank_all: the finishing order. A truncated
        game ranks everyone 1 (all rewards 0)."""
        n = self.num_players
        if s.truncated or not s.terminated:
            return [1] * n
        if not self._rank_all:
            return ranks_from_order([[s.places[0]], [p for p in range(n) if p != s.places[0]]], n)
        last = [p for p in range(n) if not s.out[p]]
        return ranks_from_order([[p] for p in s.places] + [last], n)

    # --------------------------------------------------------------------- action names
    def action_to_string(self, s: FiddlesticksState | None, action: int) -> str:
        """``"play 2x9"`` (two 9s), ``"face-up Q"``, ``"blind 0"``, ``"pick up"``."""
        if not 0 <= action < self.num_actions:
            raise ValueError(f"action {action} is not in 0..{self.num_actions - 1}")
        if action < self.pick_base:
            r, k = divmod(action, self.copies)
            return f"play {k + 1}x{RANK_NAMES[r]}"
        if action < self.blind_base:
            return f"face-up {RANK_NAMES[action - self.pick_base]}"
        if action < self.pickup:
            return f"blind {action - self.blind_base}"
        return "pick up"

    def public_action(self, s: FiddlesticksState | None, action: int) -> str:
        """What every seat sees of ``action``, about to be applied in ``s``. A SWAP pick is part of
        a hidden commitment: the table sees only that a card was picked (which cards ended face up
        shows once every player has finished the SWAP phase). Every other action is made in the
        open: its name."""
        if s is not None and s.phase == SWAP:
            return "picks a card (swap)"
        return self.action_to_string(s, action)

    def string_to_action(self, s: FiddlesticksState | None, text: str) -> int:
        t = " ".join(text.strip().lower().replace("_", " ").split())
        if t in ("pick up", "pickup"):
            return self.pickup
        word, _, rest = t.partition(" ")
        rest = rest.replace(" ", "")
        if word == "play":
            count, x, rank = rest.rpartition("x")
            if not x:
                count, rank = "1", rest
            if count.isdigit() and 1 <= int(count) <= self.copies and rank in _RANK_BY_NAME:
                return self.play_action(_RANK_BY_NAME[rank], int(count))
        elif word in ("face-up", "faceup") and rest in _RANK_BY_NAME:
            return self.pick_action(_RANK_BY_NAME[rest])
        elif word == "face" and rest.startswith("up") and rest[2:] in _RANK_BY_NAME:
            return self.pick_action(_RANK_BY_NAME[rest[2:]])
        elif word == "blind" and rest.isdigit() and int(rest) < NUM_SLOTS:
            return self.blind_action(int(rest))
        raise ValueError(
            f"unknown Fiddlesticks action {text!r}; actions are 'play KxR' (K = 1..{self.copies} cards of rank "
            f"R in {'/'.join(RANK_NAMES)}, e.g. 'play 2x9'), 'face-up R' (SWAP phase), 'blind 0'..'blind 2', "
            "'pick up'"
        )

    # ---------------------------------------------------------------- for tests/search
    def zones(self, s: FiddlesticksState) -> dict[str, list[int]]:
        z: dict[str, list[int]] = {}
        for p in range(self.num_players):
            z[f"hand {p}"] = [c for h in s.hand[p] for c in h]
            z[f"face-up {p}"] = list(s.face_up[p])
            z[f"face-down {p}"] = [c for c in s.face_down[p] if c is not None]
            z[f"picked {p}"] = list(s.picked[p])
        z["stock"] = list(s.stock)
        z["pile"] = list(s.pile)
        z["cleared"] = list(s.cleared)
        return z

    def reveals_choices(self, s: FiddlesticksState, action: int) -> bool:
        """Whether ``action`` is the last SWAP pick of all: then every player's face-up cards show,
        and with them what each one picked (not in which order)."""
        p = s.current_player
        return (p >= 0 and s.phase == SWAP and s.swap_picks[p] == NUM_SLOTS - 1
                and (p + 1) % self.num_players == s.first)

    def reveals(self, s: FiddlesticksState, action: int, seat: int) -> bool:
        """Does applying ``action`` in ``s`` turn up, to ``seat``, a card it could not see before?

        - BLIND(j): the face-down card is turned face up for everyone (nobody, its owner
          included, has seen it).
        - The last SWAP pick: every player's new face-up set is revealed; it shows ``seat`` a
          card it had not seen when some other player picked a card out of its dealt hand (a
          player who picked its dealt face-up ranks again shows nothing new).
        - PLAY(r, k): the refill draws cards from the stock, seen by the player who plays only.

        Nothing else shows a hidden card: pick-ups, plays and face-up cards taken into the hand
        move cards that were face up already, and the end of the game shows only counts."""
        p = s.current_player
        if p < 0 or s.terminated or s.truncated:
            return False
        if s.phase == SWAP:
            n = self.num_players
            if s.swap_picks[p] != NUM_SLOTS - 1 or (p + 1) % n != s.first:
                return False  # a hidden commit: the others see only that a pick was made
            r = action - self.pick_base
            for q in range(n):
                if q == seat:
                    continue
                picks = list(s.picked_counts[q])
                if q == p:
                    picks[r] += 1
                if picks != s.dealt_up[q]:
                    return True
            return False
        if self.blind_base <= action < self.pickup:
            return True
        if action < self.pick_base and seat == p:
            k = action % self.copies + 1
            return s.hand_size[p] - k < HAND_TARGET and bool(s.stock)
        return False

    def revealed(self, s: FiddlesticksState, action: int, seat: int):
        """What ``action`` shows ``seat`` when :meth:`reveals` is True (None otherwise), as ranks:
        ``("blind", r)`` for the turned card, ``("swap", picks)`` with every other player's
        final face-up ranks, ``("draw", ranks)`` for the cards the player itself draws. Two worlds
        that show the same must look the same to ``seat`` afterwards, in everything."""
        if not self.reveals(s, action, seat):
            return None
        p = s.current_player
        if s.phase == SWAP:
            r = action - self.pick_base
            picks = []
            for q in range(self.num_players):
                row = list(s.picked_counts[q])
                if q == p:
                    row[r] += 1
                picks.append(None if q == seat else tuple(row))
            return ("swap", tuple(picks))
        if self.blind_base <= action < self.pickup:
            return ("blind", GAME_RANK[s.face_down[p][action - self.blind_base]])
        k = action % self.copies + 1
        d = min(HAND_TARGET - (s.hand_size[p] - k), len(s.stock))
        return ("draw", tuple(GAME_RANK[c] for c in s.stock[-d:]))


_RANK_BY_NAME = {name.lower(): r for r, name in enumerate(RANK_NAMES)}
_RANK_BY_NAME["t"] = TEN


def _rank_counts(cs: list[int]) -> list[int]:
    counts = [0] * NUM_RANKS
    for c in cs:
        counts[GAME_RANK[c]] += 1
    return counts
