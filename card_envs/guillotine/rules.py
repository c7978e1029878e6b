"""Guillotine: the whole game, readable beside its page, ``help(card_envs.guillotine_v0)``.

Pure Python (no PettingZoo). Four players, 32 cards ranked 7 8 9 10 J Q K A, eight each. The
dealer looks at the hand, then names a contract it has not used yet (its sixth is forced).
Five contracts are trick-taking without trumps (Royalty, Queens, Spades, Parliament,
Guillotine): the dealer leads, players follow suit when able, the highest card of the led suit
wins and leads next, and the taken cards are scored by the contract's scoring table (the
environment's docs, Scoring). Domino is a shedding game: the dealer opens with any card, whose
rank becomes the anchor; rows grow one step up or down per suit, only the anchor rank starts a
row, a player who can play must, an Ace (not the opening card) earns a bonus run of plays that
lasts until STOP (always legal in it) or an empty hand; the first player out scores -30, the
second -10 and the deal ends. A full game is 24 deals, the deal rotating clockwise; the lowest
total wins.

Cards are the deck indices ``8·suit + rank`` (suits c d h s = 0..3, ranks 7..A = 0..7), the
same numbers as the play actions (0–31); card sets are 32-bit masks over these indices.
``DECK_CARD`` / ``INDEX_OF`` translate to and from :mod:`card_envs.cards` ints (Ace low there).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from card_envs import cards
from card_envs.generators import shuffle_order
from card_envs.options import (build_config, check_bool, check_choice, check_int, check_reward_mode,
                               check_seat_or_random)
from card_envs.schema import GENERATOR, LIST, VALUE, Derived, Field, Row, SeatColumn, StateSchema
from card_envs.scoring import competition_ranks

NAME = "guillotine_v0"
NUM_PLAYERS = 4
NUM_CARDS = 32
HAND_SIZE = 8
NUM_TRICKS = 8
NUM_DEALS = 24

# Ranks 7..A as 0..7 and their cards.py rank indices (A23456789TJQK = 0..12).
RANK_NAMES = ("7", "8", "9", "10", "J", "Q", "K", "A")
SEVEN, EIGHT, NINE, TEN, JACK, QUEEN, KING, ACE = range(8)
CARDS_RANK = (6, 7, 8, 9, 10, 11, 12, 0)
SPADES_SUIT = 3

#: deck index -> cards.py card int, and back (-1: a card Guillotine does not use)
DECK_CARD = tuple(s * 13 + CARDS_RANK[r] for s in range(4) for r in range(8))
INDEX_OF = tuple(DECK_CARD.index(c) if c in DECK_CARD else -1 for c in range(cards.NUM_CARDS))

ALL_CARDS = (1 << NUM_CARDS) - 1
SUIT_MASK = tuple(0xFF << (8 * s) for s in range(4))
KINGS = sum(1 << (8 * s + KING) for s in range(4))
QUEENS_MASK = sum(1 << (8 * s + QUEEN) for s in range(4))
KING_OF_SPADES = 1 << (8 * SPADES_SUIT + KING)

# Trick strength of each rank (7..A) under each `trick_rank_order`.
TRICK_STRENGTH = {
    "seed": (0, 1, 2, 3, 4, 5, 6, 7),  # 7 < 8 < 9 < 10 < J < Q < K < A
    "french": (0, 1, 2, 6, 3, 4, 5, 7),  # 7 < 8 < 9 < J < Q < K < 10 < A
}

# Contracts and actions (indices as in the environment's actions table).
ROYALTY, QUEENS, SPADES, PARLIAMENT, GUILLOTINE, DOMINO = range(6)
CONTRACT_NAMES = ("royalty", "queens", "spades", "parliament", "guillotine", "domino")
NUM_CONTRACTS = 6
CHOOSE_BASE = 32
PASS_STOP = 38
NUM_ACTIONS = 39

# Phases.
CHOOSE, TRICK, DOMINO_TURN, BONUS, OVER = range(5)
PHASE_NAMES = ("choose", "trick", "domino", "bonus", "over")

DOMINO_FIRST_OUT = -30
DOMINO_SECOND_OUT = -10


def card_name(i: int) -> str:
    """``"Kh"``, ``"Ts"``: the name of Guillotine deck index ``i`` (``8·suit + rank``, ranks 7..A),
    in the cards.py notation. Not ``cards.to_str(i)``, which reads the 52-card numbering."""
    return cards.to_str(DECK_CARD[i])


def cards_of(mask: int) -> list[int]:
    """The deck indices in a card mask, ascending (``card_name`` names each)."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def _neighbours(i: int) -> int:
    """The cards one rank below and above deck index ``i`` in its suit (no wrapping)."""
    r = i & 7
    m = 0
    if r > 0:
        m |= 1 << (i - 1)
    if r < 7:
        m |= 1 << (i + 1)
    return m


NEIGHBOURS = tuple(_neighbours(i) for i in range(NUM_CARDS))


@dataclass
class GuillotineConfig:
    """The table's options, with their defaults (the Options table of the environment's docs)."""

    mode: str = "full"
    contract: str | None = None
    first_dealer: int | str = "random"
    trick_rank_order: str = "seed"
    king_rule: str = "every_king"
    ace_bonus: bool = True
    reward_mode: str = "rank"
    num_players: int = NUM_PLAYERS  # not a choice: accepted only as 4, for code that passes it to every game

    def __post_init__(self) -> None:
        try:  # any int, Python's or numpy's, as every game takes num_players
            n = check_int("num_players", self.num_players)
        except ValueError:
            n = None
        if n != NUM_PLAYERS:
            raise ValueError(
                f"Guillotine is played by exactly {NUM_PLAYERS} players: option 'num_players' must be "
                f"{NUM_PLAYERS}, got {self.num_players!r}"
            )
        self.num_players = NUM_PLAYERS
        self.mode = check_choice("mode", self.mode, ("full", "single"))
        if self.contract is not None:
            value = self.contract.lower() if isinstance(self.contract, str) else self.contract
            if value not in CONTRACT_NAMES:
                raise ValueError(
                    f"option 'contract' must be None or one of {', '.join(map(repr, CONTRACT_NAMES))}, "
                    f"got {self.contract!r}"
                )
            if self.mode != "single":
                raise ValueError(
                    f"option 'contract' applies only to mode='single' (in the full game each dealer chooses); "
                    f"got contract={self.contract!r} with mode={self.mode!r}"
                )
            self.contract = value
        self.first_dealer = check_seat_or_random("first_dealer", self.first_dealer, NUM_PLAYERS)
        self.trick_rank_order = check_choice("trick_rank_order", self.trick_rank_order, tuple(TRICK_STRENGTH))
        self.king_rule = check_choice("king_rule", self.king_rule, ("every_king", "contract_suit_king"))
        self.ace_bonus = check_bool("ace_bonus", self.ace_bonus)
        self.reward_mode = check_reward_mode(self.reward_mode)

    @property
    def num_deals(self) -> int:
        return 1 if self.mode == "single" else NUM_DEALS


STATE = StateSchema(
    "GuillotineState",
    Field("phase", VALUE, "CHOOSE, TRICK, DOMINO_TURN, BONUS or OVER", Row("phase")),
    Field("current_player", VALUE, "the seat to act (-1 once over)", Row("current_player")),
    Field("terminated", VALUE, "True once the last deal has ended", Row("terminated", as_bool=True)),
    Field("truncated", VALUE, "always False: no limit cuts a game off", Derived()),
    Field("rng", GENERATOR, "the game's generator (the first dealer and each deal's shuffle)"),
    Field("deal", VALUE, "the current deal's index, 0-based", Row("deal")),
    Field("num_deals", VALUE, "the episode's length: 24 deals, or 1 in single mode (public)", Derived()),
    Field("first_dealer", VALUE, "the first deal's dealer", Row("first_dealer")),
    Field("dealer", VALUE, "this deal's dealer", Row("dealer")),
    Field("contract", VALUE, "this deal's contract (ROYALTY .. DOMINO), -1 until chosen", Row("contract")),
    Field("used", LIST, "each seat's contracts chosen as dealer (a 6-bit mask)", SeatColumn("seat", "used")),
    Field("hands", LIST, "each seat's hand (a card mask)", SeatColumn("seat", "hand")),
    Field("played", LIST, "each seat's cards played this deal (a card mask)", SeatColumn("seat", "played")),
    Field("absent", LIST, "each seat's cards public play proves it does not hold (a card mask)",
          SeatColumn("seat", "absent")),
    Field("trick", LIST, "the card each seat put on the current trick (-1: none yet)", SeatColumn("seat", "trick")),
    Field("trick_size", VALUE, "cards on the current trick", Row("trick_size")),
    Field("leader", VALUE, "the seat that led the current trick (-1: none)", Row("leader")),
    Field("led", VALUE, "the suit led to the current trick (-1: none)", Row("led")),
    Field("tricks_done", VALUE, "tricks completed this deal", Row("tricks_done")),
    Field("taken", LIST, "each seat's cards of the tricks it won this deal (a card mask)", SeatColumn("seat", "taken")),
    Field("tricks_won", LIST, "each seat's tricks won this deal", SeatColumn("seat", "tricks_won")),
    Field("first_winner", VALUE, "the seat that won this deal's first trick (-1: not yet)", Row("first_winner")),
    Field("last_winner", VALUE, "the seat that won this deal's last trick (-1: not yet)", Row("last_winner")),
    Field("table", VALUE, "Domino: the layout (a card mask)", Row("table")),
    Field("playable", VALUE, "Domino: the cards that extend the layout (a card mask)", Row("playable")),
    Field("anchor", VALUE, "Domino: the anchor rank, the opening card's (-1: none yet)", Row("anchor")),
    Field("out", LIST, "Domino: the seats out of cards, first out first", Derived(arrays=("row",))),
    Field("totals", LIST, "each seat's total", SeatColumn("seat", "total")),
    Field("last_deal", LIST, "each seat's points in the last finished deal", SeatColumn("seat", "last_deal")),
    row_dtype=np.int64,
    kernel_rows=("num_out", "out0", "out1"),
    seat_fields={"seat": (("hand", "played", "absent", "taken", "trick", "tricks_won", "used", "total", "last_deal"),
                          np.int64)},
    doc="Everything on the table. Card sets are masks over the deck indices; per-seat lists are by absolute seat.",
)


class GuillotineState(STATE.base):
    """Everything on the table (the fields: :data:`STATE`). Card sets are masks over the deck
    indices (see the module doc).

    Per-seat lists are by absolute seat. ``trick[p]`` is the card seat p put on the current
    trick (-1 if none yet). ``absent[p]`` is the set of cards everyone knows p does not hold:
    a suit p failed to follow, the cards that were playable when p passed on a compulsory
    Domino turn; it is public, derived from public play only (a STOP in an Ace bonus adds
    nothing: it is legal whether or not a card fits). ``num_deals`` is the episode's length
    (24, or 1 in single mode), public.
    """

    __slots__ = ()


class GuillotineRules:
    """Guillotine for one configuration: setup, legal actions, apply, scoring."""

    name = NAME
    num_actions = NUM_ACTIONS
    num_players = NUM_PLAYERS
    #: the game's own card numbering, reachable from ``env.unwrapped.rules``: ``card_name(27)``
    #: is ``"Ts"`` (``card_envs.cards.to_str(27)``, the 52-card numbering, is ``"2h"``)
    card_name = staticmethod(card_name)
    cards_of = staticmethod(cards_of)

    def __init__(self, **options: Any):
        self.config = build_config(GuillotineConfig, NAME, options)
        cfg = self.config
        self.reward_mode = cfg.reward_mode
        self.strength = TRICK_STRENGTH[cfg.trick_rank_order]
        self.fixed_contract = None if cfg.contract is None else CONTRACT_NAMES.index(cfg.contract)
        self._deck = [DECK_CARD[i] for i in range(NUM_CARDS)]
        # legal-mask rows for the contract choice, by the dealer's used-contract mask
        self._choose_masks = []
        for used in range(1 << NUM_CONTRACTS):
            m = np.zeros(NUM_ACTIONS, dtype=np.int8)
            for c in range(NUM_CONTRACTS):
                if cfg.mode == "single" or not used >> c & 1:
                    m[CHOOSE_BASE + c] = 1
            self._choose_masks.append(m)

    # ------------------------------------------------------------------------ setup
    def deck(self) -> list[int]:
        """The 32 cards 7..A of each suit, as cards.py ints."""
        return list(self._deck)

    def new_game(self, rng: np.random.Generator, deck: list[int] | None = None) -> GuillotineState:
        cfg = self.config
        s = GuillotineState()
        s.rng = rng
        s.terminated = s.truncated = False
        s.first_dealer = int(rng.integers(NUM_PLAYERS)) if cfg.first_dealer == "random" else cfg.first_dealer
        s.deal = 0
        s.num_deals = cfg.num_deals
        s.used = [0] * NUM_PLAYERS
        s.totals = [0] * NUM_PLAYERS
        s.last_deal = [0] * NUM_PLAYERS
        order = None if deck is None else [INDEX_OF[c] for c in deck]
        self._start_deal(s, order)
        return s

    def _start_deal(self, s: GuillotineState, order: list[int] | None) -> None:
        """Deal all 32 cards one at a time clockwise from the dealer's left, then the dealer
        chooses the contract (or the fixed contract of single mode applies at once)."""
        s.dealer = (s.first_dealer + s.deal) % NUM_PLAYERS
        if order is None:
            order = shuffle_order(s.rng, DECK_CARD).tolist()
        hands = [0] * NUM_PLAYERS
        first = s.dealer + 1
        for k, i in enumerate(order):
            hands[(first + k) % NUM_PLAYERS] |= 1 << i
        s.hands = hands
        s.played = [0] * NUM_PLAYERS
        s.absent = [0] * NUM_PLAYERS
        s.trick = [-1] * NUM_PLAYERS
        s.trick_size = 0
        s.leader = -1
        s.led = -1
        s.tricks_done = 0
        s.taken = [0] * NUM_PLAYERS
        s.tricks_won = [0] * NUM_PLAYERS
        s.first_winner = s.last_winner = -1
        s.table = 0
        s.playable = 0
        s.anchor = -1
        s.out = []
        s.contract = -1
        s.current_player = s.dealer
        if self.fixed_contract is not None:
            self._begin_play(s, self.fixed_contract)
        else:
            s.phase = CHOOSE

    def _begin_play(self, s: GuillotineState, contract: int) -> None:
        """The contract is announced; the dealer leads (or opens the Domino layout)."""
        s.contract = contract
        s.used[s.dealer] |= 1 << contract
        s.current_player = s.dealer
        if contract == DOMINO:
            s.phase = DOMINO_TURN
        else:
            s.phase = TRICK
            s.leader = s.dealer

    # ------------------------------------------------------------------ legal actions
    def legal_cards(self, s: GuillotineState) -> int:
        """The mask of cards the player to act may play (from its hand and public state only)."""
        hand = s.hands[s.current_player] if s.current_player >= 0 else 0
        if s.phase == TRICK:
            if s.trick_size:
                follow = hand & SUIT_MASK[s.led]
                if follow:
                    return follow
            return hand
        if s.phase == DOMINO_TURN:
            return hand if s.table == 0 else hand & s.playable
        if s.phase == BONUS:
            return hand & s.playable
        return 0

    def legal_mask(self, s: GuillotineState) -> np.ndarray:
        """Legal actions of the player to act; never depends on a hidden card."""
        if s.phase == CHOOSE:
            return self._choose_masks[s.used[s.dealer]].copy()
        mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        if s.phase == OVER:
            return mask
        legal = self.legal_cards(s)
        mask[:NUM_CARDS] = np.unpackbits(np.array([legal], dtype="<u4").view(np.uint8), bitorder="little")
        if s.phase == BONUS or (s.phase == DOMINO_TURN and not legal):
            mask[PASS_STOP] = 1
        return mask

    # -------------------------------------------------------------------------- apply
    def apply(self, s: GuillotineState, action: int) -> list[float] | None:
        """Apply a legal action. Returns the score-mode rewards when a deal ends, else None."""
        phase = s.phase
        if phase == TRICK:
            return self._play_to_trick(s, action)
        if phase == DOMINO_TURN or phase == BONUS:
            return self._domino_step(s, action)
        if phase == CHOOSE:
            self._begin_play(s, action - CHOOSE_BASE)
            return None
        raise ValueError("the game is over: no action applies")

    # ------------------------------------------------------------------ trick contracts
    def _play_to_trick(self, s: GuillotineState, i: int) -> list[float] | None:
        p = s.current_player
        bit = 1 << i
        s.hands[p] ^= bit
        s.played[p] |= bit
        if s.trick_size == 0:
            s.led = i >> 3
        elif i >> 3 != s.led:
            s.absent[p] |= SUIT_MASK[s.led]  # public: p could not follow the led suit
        s.trick[p] = i
        s.trick_size += 1
        if s.trick_size < NUM_PLAYERS:
            s.current_player = (p + 1) % NUM_PLAYERS
            return None
        return self._close_trick(s)

    def trick_winner(self, s: GuillotineState) -> int:
        """Whoever played the highest card of the led suit; off-suit cards never win."""
        best, winner = -1, -1
        strength = self.strength
        for q in range(NUM_PLAYERS):
            c = s.trick[q]
            if c >> 3 == s.led and strength[c & 7] > best:
                best, winner = strength[c & 7], q
        return winner

    def _close_trick(self, s: GuillotineState) -> list[float] | None:
        """The winner takes the four cards and leads the next trick."""
        w = self.trick_winner(s)
        gathered = 0
        for c in s.trick:
            gathered |= 1 << c
        s.taken[w] |= gathered
        s.tricks_won[w] += 1
        if s.tricks_done == 0:
            s.first_winner = w
        s.tricks_done += 1
        s.trick = [-1] * NUM_PLAYERS
        s.trick_size = 0
        s.led = -1
        if s.tricks_done == NUM_TRICKS:
            s.last_winner = w
            return self._end_deal(s, self.trick_points(s))
        s.leader = w
        s.current_player = w
        return None

    def trick_points(self, s: GuillotineState) -> list[int]:
        """The points each seat takes in the trick contract being played (its scoring table)."""
        c = s.contract
        out = []
        for p in range(NUM_PLAYERS):
            t = s.taken[p]
            kings = (t & KINGS).bit_count()
            queens = (t & QUEENS_MASK).bit_count()
            if c == ROYALTY:
                pts = 20 * kings + 10 * queens
            elif c == QUEENS:
                pts = 10 * queens - 10 * kings
            elif c == SPADES:
                if self.config.king_rule == "every_king":
                    king_pen = kings
                else:
                    king_pen = 1 if t & KING_OF_SPADES else 0
                pts = 5 * (t & SUIT_MASK[SPADES_SUIT]).bit_count() - 10 * king_pen
            elif c == PARLIAMENT:
                pts = -5 * s.tricks_won[p] - 10 * kings
            else:  # GUILLOTINE
                pts = 5 * t.bit_count() + 10 * kings + 10 * queens
                pts += 5 * (s.first_winner == p) + 5 * (s.last_winner == p)
            out.append(pts)
        return out

    # --------------------------------------------------------------------------- domino
    def _domino_step(self, s: GuillotineState, a: int) -> list[float] | None:
        p = s.current_player
        if a == PASS_STOP:
            if s.phase == DOMINO_TURN:  # a compulsory pass: public, p holds none of the playable cards
                s.absent[p] |= s.playable
            # a STOP ends the bonus and says nothing about p's hand (it is legal either way)
            s.phase = DOMINO_TURN
            return self._end_domino_turn(s, p)
        bit = 1 << a
        opening = s.table == 0
        s.hands[p] ^= bit
        s.played[p] |= bit
        s.table |= bit
        if opening:
            s.anchor = a & 7
            # the other suits start with the anchor rank; this suit grows from the card
            rows = 0
            for suit in range(4):
                if suit != a >> 3:
                    rows |= 1 << (8 * suit + s.anchor)
            s.playable = rows | NEIGHBOURS[a]
        else:
            s.playable = (s.playable & ~bit) | (NEIGHBOURS[a] & ~s.table)
        if s.hands[p] == 0:
            s.phase = DOMINO_TURN
            return self._end_domino_turn(s, p)
        if s.phase == BONUS or (a & 7 == ACE and not opening and self.config.ace_bonus):
            # the Ace bonus, as revised: it lasts until STOP or an empty hand, whether or not a card
            # still fits: ending it by itself would tell the table that p holds none.
            s.phase = BONUS
            return None
        return self._end_domino_turn(s, p)

    def _end_domino_turn(self, s: GuillotineState, p: int) -> list[float] | None:
        """A player whose hand is empty is out; the second one out ends the deal."""
        if s.hands[p] == 0 and p not in s.out:
            s.out.append(p)
            if len(s.out) == 2:
                pts = [0] * NUM_PLAYERS
                pts[s.out[0]] = DOMINO_FIRST_OUT
                pts[s.out[1]] = DOMINO_SECOND_OUT
                return self._end_deal(s, pts)
        q = (p + 1) % NUM_PLAYERS
        while s.hands[q] == 0:
            q = (q + 1) % NUM_PLAYERS
        s.current_player = q
        return None

    # ------------------------------------------------------------------------- deal end
    def _end_deal(self, s: GuillotineState, points: list[int]) -> list[float]:
        """Add the deal's points to the totals; the next deal starts, or the game ends."""
        for p in range(NUM_PLAYERS):
            s.totals[p] += points[p]
        s.last_deal = list(points)
        mean = sum(points) / NUM_PLAYERS
        shaped = [-(x - mean) / 100.0 for x in points]
        if s.deal + 1 >= s.num_deals:
            s.terminated = True
            s.phase = OVER
            s.current_player = -1
            return shaped
        s.deal += 1
        self._start_deal(s, None)
        return shaped

    # ------------------------------------------------------------------------ results
    def scores(self, s: GuillotineState) -> list[int]:
        """Game points: each player's total (lower is better)."""
        return list(s.totals)

    def ranks(self, s: GuillotineState) -> list[int]:
        """Lowest total ranks first; ties share the rank."""
        return competition_ranks(s.totals, lower_is_better=True)

    # --------------------------------------------------------------------- action names
    def action_to_string(self, s: GuillotineState | None, action: int) -> str:
        if not 0 <= action < NUM_ACTIONS:
            raise ValueError(f"action {action} is not in 0..{NUM_ACTIONS - 1}")
        if action < NUM_CARDS:
            return "play " + card_name(action)
        if action < PASS_STOP:
            return "choose " + CONTRACT_NAMES[action - CHOOSE_BASE]
        return "stop" if s is not None and s.phase == BONUS else "pass"

    def public_action(self, s: GuillotineState | None, action: int) -> str:
        """What every seat sees of ``action``, about to be applied in ``s``: every Guillotine action is made in the open (a card played to the table, a contract announced, a pass or stop), so its
        name."""
        return self.action_to_string(s, action)

    def string_to_action(self, s: GuillotineState | None, text: str) -> int:
        t = " ".join(text.strip().lower().replace("_", " ").split())
        if t in ("pass", "stop"):
            return PASS_STOP
        word, _, rest = t.partition(" ")
        if word == "choose" and rest in CONTRACT_NAMES:
            return CHOOSE_BASE + CONTRACT_NAMES.index(rest)
        if t in CONTRACT_NAMES:
            return CHOOSE_BASE + CONTRACT_NAMES.index(t)
        name = rest if word == "play" else t
        try:
            c = cards.parse(name)
        except ValueError:
            c = -1
        if c >= 0 and INDEX_OF[c] >= 0:
            return INDEX_OF[c]
        raise ValueError(
            f"unknown Guillotine action {text!r}; actions are 'play <card>' for the 32 cards 7..A "
            f"(e.g. 'play 7c', 'play Th', 'play As'), "
            + ", ".join(f"'choose {n}'" for n in CONTRACT_NAMES)
            + ", 'pass' and 'stop'"
        )

    def reveals(self, s: GuillotineState, action: int, seat: int) -> bool:
        """Whether applying ``action`` turns up, to ``seat``, a card it could not see: never.

        Every card played is the actor's own and the same in any world where the play is legal;
        a STOP or a pass shows no card; the hands left when a deal ends are not shown (they
        score nothing); the next deal comes from the generator, which every world shares, so
        the new hand ``seat`` picks up is the same in all of them."""
        return False

    # ---------------------------------------------------------------- for tests/search
    def zones(self, s: GuillotineState) -> dict[str, list[int]]:
        """Every card in exactly one place: the hands, the current trick, each player's taken
        cards, and the Domino layout. As cards.py ints."""
        z = {f"hand {p}": [DECK_CARD[i] for i in cards_of(s.hands[p])] for p in range(NUM_PLAYERS)}
        z["trick"] = [DECK_CARD[c] for c in s.trick if c >= 0]
        for p in range(NUM_PLAYERS):
            z[f"taken {p}"] = [DECK_CARD[i] for i in cards_of(s.taken[p])]
        z["layout"] = [DECK_CARD[i] for i in cards_of(s.table)]
        return z
