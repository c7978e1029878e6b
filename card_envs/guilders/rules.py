"""The Game of Guilders: the whole game, readable beside its page, ``help(card_envs.guilders_v0)``.

Pure Python (no PettingZoo). Every card in use lies face down in a **fan**. On a turn the
player to act calls a suit (1 point), a rank (5), an exact card (10) or, with the Good Joker
variant, a joker (15); then a card is drawn from the fan uniformly at random. A match is shown
to everyone and goes to the caller's score pile worth the call's value; a miss goes to the
discard pile, face down (seen by the drawer only) unless ``public_discards``. Jokers (only
when a joker variant is on) resolve in this order: Good (a called joker scores 15), Evil
(otherwise the drawer loses its highest-valued scored card, the most recent on ties, removed
from the game), where the unscored joker goes (set aside and revealed with Evil or Chaotic,
else an ordinary miss), Chaotic (the discards are shuffled back into the fan). When the fan is
empty the discards become a new fan while refans remain; otherwise the game is over and the
highest score wins (ties share the win).

Drawing uniformly from a shuffled fan is the same as drawing its cards in order, so the fan is
a list whose *end* is the next card drawn; a stacked deck is drawn in list order.
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
    check_int,
    check_reward_mode,
    check_seat_or_random,
)
from card_envs.schema import (
    ARRAY,
    CARDS,
    LIST,
    PLAYERS,
    ROWS,
    SHARED,
    VALUE,
    Array,
    Derived,
    Field,
    KernelArray,
    Pile,
    Row,
    StateSchema,
)
from card_envs.scoring import competition_ranks

NAME = "guilders_v0"

# -------------------------------------------------------------------------------- actions
RANK_BASE = 4  # RANK(r) = 4 + r
CARD_BASE = 17  # CARD(r, s) = 17 + 13 s + r = 17 + card int
JOKER_CALL = 69
NUM_ACTIONS = 70

SUIT_POINTS, RANK_POINTS, CARD_POINTS, JOKER_POINTS = 1, 5, 10, 15
#: the values a scored card can have, in the order the per-value counts use
VALUES = (SUIT_POINTS, RANK_POINTS, CARD_POINTS, JOKER_POINTS)
VALUE_INDEX = {v: i for i, v in enumerate(VALUES)}
#: score-mode rewards are points / REWARD_SCALE
REWARD_SCALE = 10.0


def _match_points() -> tuple[int, ...]:
    """``MATCH_POINTS[a * 52 + x]``: the points call ``a`` (0..68) scores on ordinary card ``x``;
    0 is a miss. An exact call that matches only the rank or only the suit is a miss."""
    table = [0] * (JOKER_CALL * 52)
    for x in range(52):
        table[(x // 13) * 52 + x] = SUIT_POINTS
        table[(RANK_BASE + x % 13) * 52 + x] = RANK_POINTS
        table[(CARD_BASE + x) * 52 + x] = CARD_POINTS
    return tuple(table)


MATCH_POINTS = _match_points()

# ------------------------------------------------- what happened on a turn (bit flags)
MATCHED = 1  # an ordinary card matched the call and was scored
MISSED = 2  # the drawn card went to the discard pile (an uncalled joker with only good_joker)
JOKER_SCORED = 4  # a called joker scored 15 (good_joker)
PENALTY = 8  # the evil joker took the drawer's highest-valued scored card out of the game
SET_ASIDE = 16  # the joker was revealed and set aside for good (evil or chaotic on)
RESHUFFLED = 32  # chaotic joker: the discard pile was shuffled back into the fan
REFANNED = 64  # the fan ran out and the discard pile became a new fan (refan_discards)
EVENT_NAMES = ("matched", "missed", "joker scored", "penalty", "joker set aside", "discards reshuffled", "refan")


@dataclass
class GuildersConfig:
    """The table's options, with their defaults (the Options table of the environment's docs)."""

    num_players: int = 4
    num_decks: int = 1
    public_discards: bool = False
    evil_joker: bool = False
    good_joker: bool = False
    chaotic_joker: bool = False
    jokers_per_deck: int = 2
    refan_discards: int = 0
    start_player: int | str = 0
    reward_mode: str = "rank"
    max_turns: int | None = None

    def __post_init__(self) -> None:
        self.num_players = check_int("num_players", self.num_players, 1)
        self.num_decks = check_int("num_decks", self.num_decks, 1)
        self.public_discards = check_bool("public_discards", self.public_discards)
        self.evil_joker = check_bool("evil_joker", self.evil_joker)
        self.good_joker = check_bool("good_joker", self.good_joker)
        self.chaotic_joker = check_bool("chaotic_joker", self.chaotic_joker)
        self.jokers_per_deck = check_int("jokers_per_deck", self.jokers_per_deck, 0)
        self.refan_discards = check_int("refan_discards", self.refan_discards, -1)
        self.start_player = check_seat_or_random("start_player", self.start_player, self.num_players)
        self.reward_mode = check_reward_mode(self.reward_mode)
        if self.max_turns is None:
            self.max_turns = self.default_max_turns
        self.max_turns = check_int("max_turns", self.max_turns, 1)

    @property
    def turn_bound(self) -> int | None:
        """The most turns the rules allow, or None when unbounded (``refan_discards = -1``).

        Every turn draws one fan card, and a fan holds at most ``total_cards`` cards. A new fan
        is made only by a refan (at most ``refan_discards`` of them) or by a chaotic joker (each
        joker is set aside or scored when drawn, so at most ``num_jokers`` reshuffles). So there
        are at most ``refan_discards + chaotic reshuffles + 1`` fans and at most that many times
        ``total_cards`` turns."""
        if self.refan_discards < 0:
            return None
        reshuffles = self.num_jokers if self.chaotic_joker else 0
        return (self.refan_discards + reshuffles + 1) * self.total_cards

    @property
    def default_max_turns(self) -> int:
        """20 × total cards, raised to :attr:`turn_bound` where the rules allow more: only an
        endless game (``refan_discards = -1``) can be cut by the default."""
        bound = self.turn_bound
        return max(20 * self.total_cards, bound or 0)

    @property
    def jokers_on(self) -> bool:
        """Jokers are in the fan only when a joker variant is on."""
        return self.evil_joker or self.good_joker or self.chaotic_joker

    @property
    def num_jokers(self) -> int:
        return self.jokers_per_deck * self.num_decks if self.jokers_on else 0

    @property
    def total_cards(self) -> int:
        return 52 * self.num_decks + self.num_jokers


STATE = StateSchema(
    "GuildersState",
    Field("config", SHARED, "the table's options (GuildersConfig), shared by every copy"),
    Field("deck_counts", SHARED, "per card identity (0..53): its copies in the deck; read-only, shared by every copy"),
    Field("rng", SHARED, "the generator of refans and chaotic reshuffles, shared by a copy (both draw from it)"),
    Field("current_player", VALUE, "the seat to call (-1 once over)", Row("current_player")),
    Field("terminated", VALUE, "True once the game ended by the rules", Row("terminated", as_bool=True)),
    Field("truncated", VALUE, "True once it was cut off at max_turns", Row("truncated", as_bool=True)),
    Field("turn", VALUE, "turns played", Row("turn")),
    Field("refans_left", VALUE, "refans left (-1: unlimited)", Row("refans_left")),
    Field("fan", LIST, "the face-down fan, its end the next card drawn", Pile("fan", np.int16, "fan_len")),
    Field("discards", LIST, "the discard pile, in the order of the misses", Pile("disc", np.int16, "disc_len")),
    Field("discard_by", LIST, "the seat that drew each discard", Pile("disc_by", np.int16, "disc_len")),
    Field("discard_call", LIST, "the call each discard missed", Pile("disc_call", np.int16, "disc_len")),
    Field("lost", LIST, "the cards the evil penalty took out of the game", Pile("lost", np.int16, "lost_len")),
    Field("set_aside", LIST, "the jokers revealed and set aside, in order", Pile("aside", np.int16, "aside_len")),
    Field("piles", ROWS, "each seat's score pile as (card, value) in scoring order",
          Derived(("pile_card", "pile_val", "pile_len"))),
    Field("stats", ARRAY, "per seat: [score, cards worth 1, 5, 10, 15]",
          Array("stats", np.int32, (PLAYERS, 1 + len(VALUES)))),
    Field("known", ARRAY, "per seat and card: the discards it drew itself",
          Array("known", np.int16, (PLAYERS, cards.NUM_CARDS))),
    Field("miss_calls", ARRAY, "per seat and call: its misses in the discard pile",
          Array("miss", np.int16, (PLAYERS, NUM_ACTIONS))),
    Field("miss_all", ARRAY, "per call: its misses in the discard pile, every seat's (miss_calls summed over seats)",
          Array("miss_all", np.int16, (NUM_ACTIONS,))),
    Field("miss_seat", ARRAY, "per seat: its misses in the discard pile (miss_calls summed over calls)",
          Array("miss_seat", np.int16, (PLAYERS,))),
    Field("scored_counts", ARRAY, "per card: copies in the score piles", Derived(("counts",))),
    Field("lost_counts", ARRAY, "per card: copies the evil penalty took out of the game", Derived(("counts",))),
    Field("aside_counts", ARRAY, "per card: jokers set aside", Derived(("counts",))),
    Field("discard_counts", ARRAY, "per card: copies in the discard pile", Derived(("counts",))),
    Field("face_down_counts", ARRAY,
          "per card: copies in the fan and the discard pile (the deck minus the scored, lost and set-aside cards)",
          Derived(("counts",))),
    Field("card_holder", ARRAY, "per card and copy slot: the seat whose score pile holds it (-1: the slot is free)",
          Derived(("pile_card", "pile_len"))),
    Field("card_value", ARRAY, "per card and copy slot: its value in that pile (0 when free)",
          Derived(("pile_card", "pile_val", "pile_len"))),
    Field("card_place", ARRAY, "per card and copy slot: its index in that pile (-1 when free)",
          Derived(("pile_card", "pile_len"))),
    Field("last_mover", VALUE, "the seat that played the turn just played (-1 before the first)", Row("last_mover")),
    Field("last_call", VALUE, "its call (-1 before the first turn)", Row("last_call")),
    Field("last_card", VALUE, "the card it drew (-1 before the first turn)", Row("last_card")),
    Field("last_public", VALUE, "True if that card was shown to everyone", Row("last_public", as_bool=True)),
    Field("last_events", VALUE, "what happened on that turn: the bit flags MATCHED .. REFANNED", Row("last_events")),
    Field("last_gain", VALUE, "the points that turn scored", Row("last_gain")),
    Field("last_loss", VALUE, "the points the evil penalty took on that turn", Row("last_loss")),
    Field("last_lost_card", VALUE, "the card the evil penalty took on that turn (-1: none)", Row("last_lost_card")),
    Field("last_place", VALUE, "where the card that turn's call missed lies now: ('discards' or 'fan', index), or None",
          Derived(("row",))),
    kernel_rows=("last_place_zone", "last_place_index"),  # last_place as a zone code and an index
    kernel_arrays=(
        KernelArray("pile_card", np.int16, (PLAYERS, CARDS)),  # every score pile's cards, in scoring order
        KernelArray("pile_val", np.int8, (PLAYERS, CARDS)),  # their values
        KernelArray("pile_len", np.int32, (PLAYERS,)),  # every score pile's length
        KernelArray("counts", np.int16, (4, cards.NUM_CARDS)),  # per card: [scored, lost, set aside, discarded]
    ),
    doc="Everything on the table. The fan is a list whose end is the next card drawn.",
)


class GuildersState(STATE.base):
    """Everything on the table (the fields: :data:`STATE`).

    ``fan``: the face-down fan, its *end* the next card drawn. ``discards`` and ``discard_by``:
    the discard pile and who drew each discard (a seat knows its own misses). ``piles[p]``:
    seat p's score pile as ``(card, value)`` in scoring order. ``lost``: cards the evil
    penalty took out of the game; ``set_aside``: revealed jokers. The numpy counters mirror
    these lists for a fast view: ``stats[p] = [score, #1s, #5s, #10s, #15s]``, per-card counts of
    scored, lost, set-aside and discarded cards, ``face_down_counts`` = the deck minus the scored,
    lost and set-aside cards (the cards of the fan and the discard pile), and ``known[p]`` = the
    cards of the discard pile that p drew itself. ``miss_calls[p, a]`` counts p's misses of call
    a in the discard pile, ``miss_all[a]`` and ``miss_seat[p]`` its sums over seats and over
    calls. Every scored card also has a *copy slot* ``(card, j)``, j < the most copies of a card,
    the first free one when it is scored: ``card_holder[card, j]`` is the seat whose pile holds it
    (-1: the slot is free), ``card_value`` its value there and ``card_place`` its index in that
    pile (-1 when free). ``last_*`` describe the turn just played.

    A copy shares the configuration, the deck counts and the generator with the original.
    """

    __slots__ = ()


class GuildersRules:
    """The Game of Guilders for one configuration: setup, legal calls, apply, scoring."""

    name = NAME
    num_actions = NUM_ACTIONS

    def __init__(self, **options: Any):
        self.config = build_config(GuildersConfig, NAME, options)
        cfg = self.config
        self.num_players = cfg.num_players
        # with one player the ranking is meaningless, so solitaire always uses score mode.
        self.reward_mode = "score" if cfg.num_players == 1 else cfg.reward_mode
        self._deck = cards.make_deck(cfg.num_decks, cfg.jokers_per_deck if cfg.jokers_on else 0)
        self.deck_counts = np.bincount(np.array(self._deck, dtype=np.int64), minlength=cards.NUM_CARDS)
        self.deck_counts.flags.writeable = False
        #: most copies of one card identity (jokers included): the bound of every card count
        self.max_copies = int(self.deck_counts.max())
        #: the highest score a player can reach: every card scored once at its best value
        self.max_score = CARD_POINTS * 52 * cfg.num_decks + JOKER_POINTS * cfg.num_jokers
        self._mask = np.ones(NUM_ACTIONS, dtype=np.int8)
        self._mask[JOKER_CALL] = 1 if cfg.good_joker else 0
        self._mask.flags.writeable = False

    # ------------------------------------------------------------------------ setup
    def deck(self) -> list[int]:
        """Every card in use: ``num_decks`` decks, plus ``jokers_per_deck`` jokers per deck when
        a joker variant is on."""
        return list(self._deck)

    def new_game(self, rng: np.random.Generator, deck: list[int] | None = None) -> GuildersState:
        """Shuffle every card into a face-down fan (or take ``deck``, drawn top card first);
        empty discard pile and score piles; ``start_player`` calls first."""
        cfg = self.config
        n = cfg.num_players
        s = GuildersState()
        s.config = cfg
        s.deck_counts = self.deck_counts
        s.rng = rng
        s.current_player = int(rng.integers(n)) if cfg.start_player == "random" else cfg.start_player
        if deck is None:
            s.fan = [self._deck[i] for i in shuffle_order(rng, self._deck)]
        else:
            s.fan = [int(c) for c in reversed(deck)]  # the end of the list is drawn first
        s.terminated = s.truncated = False
        s.turn = 0
        s.discards, s.discard_by = [], []
        s.piles = [[] for _ in range(n)]
        s.lost, s.set_aside = [], []
        s.refans_left = cfg.refan_discards
        s.stats = np.zeros((n, 1 + len(VALUES)), dtype=np.int64)
        s.scored_counts = np.zeros(cards.NUM_CARDS, dtype=np.int64)
        s.lost_counts = np.zeros(cards.NUM_CARDS, dtype=np.int64)
        s.aside_counts = np.zeros(cards.NUM_CARDS, dtype=np.int64)
        s.face_down_counts = self.deck_counts.copy()
        s.discard_counts = np.zeros(cards.NUM_CARDS, dtype=np.int64)
        s.known = np.zeros((n, cards.NUM_CARDS), dtype=np.int64)
        s.discard_call = []
        s.miss_calls = np.zeros((n, NUM_ACTIONS), dtype=np.int64)
        s.miss_all = np.zeros(NUM_ACTIONS, dtype=np.int64)
        s.miss_seat = np.zeros(n, dtype=np.int64)
        s.card_holder = np.full((cards.NUM_CARDS, self.max_copies), -1, dtype=np.int64)
        s.card_value = np.zeros((cards.NUM_CARDS, self.max_copies), dtype=np.int64)
        s.card_place = np.full((cards.NUM_CARDS, self.max_copies), -1, dtype=np.int64)
        s.last_mover = s.last_call = s.last_card = s.last_lost_card = -1
        s.last_public = False
        s.last_events = s.last_gain = s.last_loss = 0
        s.last_place = None
        return s

    # ------------------------------------------------------------------ legal actions
    def legal_mask(self, s: GuildersState) -> np.ndarray:
        """Every call is always legal, exhausted cards included; JOKER only with good_joker.
        The mask never depends on the fan."""
        if s.current_player < 0:
            return np.zeros(NUM_ACTIONS, dtype=np.int8)
        return self._mask.copy()

    def _check_action(self, s: GuildersState, action: Any) -> int:
        if s.current_player < 0:
            raise ValueError("the game is over: no call is legal")
        if isinstance(action, bool) or not isinstance(action, (int, np.integer)) or not 0 <= action < NUM_ACTIONS:
            raise ValueError(f"action {action!r} is not in the action space: an int in 0..{NUM_ACTIONS - 1}")
        if action == JOKER_CALL and not self.config.good_joker:
            raise ValueError(
                f"action {JOKER_CALL} (joker) is illegal: the joker call needs good_joker=True; "
                f"legal actions: 0..{JOKER_CALL - 1}"
            )
        return int(action)

    # -------------------------------------------------------------------------- apply
    def apply(self, s: GuildersState, action: int) -> list[float] | None:
        """One whole turn (CALL, DRAW, RESOLVE, ADVANCE) for the player to act. Returns the
        score-mode rewards of the turn (zero-sum), or None when no points changed hands."""
        action = self._check_action(s, action)
        cfg = self.config
        p = s.current_player
        x = s.fan.pop()
        events = gain = loss = 0
        lost_card = -1
        public = True
        place = None
        if x < 52:
            v = MATCH_POINTS[action * 52 + x] if action < JOKER_CALL else 0  # JOKER never matches a card
            if v:
                self._score(s, p, x, v)
                gain, events = v, MATCHED
            else:
                self._discard(s, p, x, action)
                events, public, place = MISSED, cfg.public_discards, ("discards", len(s.discards) - 1)
        else:
            if cfg.good_joker and action == JOKER_CALL:  # step 1: no evil penalty
                self._score(s, p, x, JOKER_POINTS)
                gain, events = JOKER_POINTS, JOKER_SCORED
            else:
                if cfg.evil_joker:  # step 2
                    lost = self._penalty(s, p)
                    if lost is not None:
                        lost_card, loss = lost
                        events |= PENALTY
                if cfg.evil_joker or cfg.chaotic_joker:  # step 3
                    s.set_aside.append(x)
                    s.aside_counts[x] += 1
                    s.face_down_counts[x] -= 1
                    events |= SET_ASIDE
                else:
                    self._discard(s, p, x, action)
                    events |= MISSED
                    public, place = cfg.public_discards, ("discards", len(s.discards) - 1)
            if cfg.chaotic_joker:  # step 4
                pool = s.fan + s.discards
                s.fan = [pool[i] for i in shuffle_order(s.rng, pool)]
                self._clear_discards(s)
                events |= RESHUFFLED
        # ADVANCE
        if not s.fan:
            if s.discards and s.refans_left != 0:
                perm = shuffle_order(s.rng, s.discards)
                s.fan = [s.discards[i] for i in perm]
                if place is not None:  # the card just missed now lies somewhere in the fan
                    place = ("fan", int(np.flatnonzero(perm == place[1])[0]))
                self._clear_discards(s)
                if s.refans_left > 0:
                    s.refans_left -= 1
                events |= REFANNED
            else:
                s.terminated = True
        s.turn += 1
        if not s.terminated and s.turn >= cfg.max_turns:
            s.truncated = True
        s.current_player = -1 if s.terminated or s.truncated else (p + 1) % cfg.num_players
        s.last_mover, s.last_call, s.last_card, s.last_public = p, action, x, public
        s.last_events, s.last_gain, s.last_loss, s.last_lost_card, s.last_place = events, gain, loss, lost_card, place
        delta = gain - loss
        if delta == 0:
            return None
        n = cfg.num_players
        if n == 1:
            return [delta / REWARD_SCALE]
        # (points gained - mean gained by the table) / 10, for every seat
        rewards = [-delta / (n * REWARD_SCALE)] * n
        rewards[p] = delta * (n - 1) / (n * REWARD_SCALE)
        return rewards

    @staticmethod
    def _score(s: GuildersState, p: int, x: int, value: int) -> None:
        """x goes on top of p's score pile worth ``value``, into x's first free copy slot."""
        pile = s.piles[p]
        j = s.card_holder[x].tolist().index(-1)
        s.card_holder[x, j], s.card_value[x, j], s.card_place[x, j] = p, value, len(pile)
        pile.append((x, value))
        row = s.stats[p]
        row[0] += value
        row[1 + VALUE_INDEX[value]] += 1
        s.scored_counts[x] += 1
        s.face_down_counts[x] -= 1

    @staticmethod
    def _discard(s: GuildersState, p: int, x: int, call: int) -> None:
        s.discards.append(x)
        s.discard_by.append(p)
        s.discard_call.append(call)
        s.miss_calls[p, call] += 1
        s.miss_all[call] += 1
        s.miss_seat[p] += 1
        s.discard_counts[x] += 1
        s.known[p, x] += 1

    @staticmethod
    def _clear_discards(s: GuildersState) -> None:
        """The discard pile went into the fan: nobody knows where any of its cards lies now."""
        s.discards, s.discard_by, s.discard_call = [], [], []
        s.miss_calls[:] = 0
        s.miss_all[:] = 0
        s.miss_seat[:] = 0
        s.discard_counts[:] = 0
        s.known[:] = 0

    @staticmethod
    def _penalty(s: GuildersState, p: int) -> tuple[int, int] | None:
        """Evil joker: p loses the highest-valued card of its score pile, the most recently
        scored among equal values; it leaves the game. None if the pile is empty."""
        pile = s.piles[p]
        if not pile:
            return None
        best = len(pile) - 1
        for i in range(len(pile) - 2, -1, -1):  # strictly higher only: the latest wins ties
            if pile[i][1] > pile[best][1]:
                best = i
        card, value = pile.pop(best)
        in_pile = s.card_holder == p
        gone = in_pile & (s.card_place == best)  # its copy slot is free again
        s.card_holder[gone], s.card_value[gone], s.card_place[gone] = -1, 0, -1
        s.card_place[in_pile & (s.card_place > best)] -= 1  # the cards above it move down
        row = s.stats[p]
        row[0] -= value
        row[1 + VALUE_INDEX[value]] -= 1
        s.scored_counts[card] -= 1
        s.lost.append(card)
        s.lost_counts[card] += 1
        return card, value

    @staticmethod
    def index_piles(s: GuildersState) -> None:
        """Rebuild the mirrors ``card_*`` (copy slots filled seat by seat, in scoring order),
        ``miss_all``, ``miss_seat`` and ``face_down_counts`` from ``piles``, ``miss_calls`` and
        the per-card counts: for a state assembled from outside (``kernels.Kernels.dump``)."""
        s.card_holder[:] = -1
        s.card_value[:] = 0
        s.card_place[:] = -1
        for p, pile in enumerate(s.piles):
            for i, (x, value) in enumerate(pile):
                j = s.card_holder[x].tolist().index(-1)
                s.card_holder[x, j], s.card_value[x, j], s.card_place[x, j] = p, value, i
        s.miss_all = s.miss_calls.sum(axis=0)
        s.face_down_counts = s.deck_counts - s.scored_counts - s.lost_counts - s.aside_counts
        s.miss_seat = s.miss_calls.sum(axis=1)

    # ------------------------------------------------------------------------ results
    def scores(self, s: GuildersState) -> list[int]:
        """Game points: the sum of the values in each score pile."""
        return [int(v) for v in s.stats[:, 0]]

    def ranks(self, s: GuildersState) -> list[int]:
        """Highest score first; equal scores share the rank, also on truncation."""
        return competition_ranks(self.scores(s), lower_is_better=False)

    # --------------------------------------------------------------------- action names
    def action_to_string(self, s: GuildersState | None, action: int) -> str:
        if isinstance(action, bool) or not isinstance(action, (int, np.integer)) or not 0 <= action < NUM_ACTIONS:
            raise ValueError(f"action {action!r} is not in 0..{NUM_ACTIONS - 1}")
        return ACTION_NAMES[int(action)]

    def public_action(self, s: GuildersState | None, action: int) -> str:
        """What every seat sees of ``action``, about to be applied in ``s``: every Guilders call is said aloud before the card is drawn, so its
        name."""
        return self.action_to_string(s, action)

    def string_to_action(self, s: GuildersState | None, text: str) -> int:
        return parse_action(text)

    # ---------------------------------------------------------------- for tests/search
    def zones(self, s: GuildersState) -> dict[str, list[int]]:
        z = {"fan": list(s.fan), "discards": list(s.discards)}
        for p, pile in enumerate(s.piles):
            z[f"score pile {p}"] = [c for c, _ in pile]
        z["lost"] = list(s.lost)
        z["set aside"] = list(s.set_aside)
        return z

    def can_miss(self, call: int, x: int) -> bool:
        """Whether card ``x`` can lie face down in the discard pile after call ``call`` missed:
        an ordinary card that does not match the call, or (only with good_joker alone) a joker
        drawn on an ordinary call. With evil or chaotic on every drawn joker is shown."""
        if x < 52:
            return call == JOKER_CALL or MATCH_POINTS[call * 52 + x] == 0
        cfg = self.config
        return cfg.good_joker and not (cfg.evil_joker or cfg.chaotic_joker) and call != JOKER_CALL

    def reveals(self, s: GuildersState, action: int, seat: int) -> bool:
        """Whether calling ``action`` now shows ``seat`` the drawn card, a card it has not seen:
        always to the drawer; to everyone on a match (any call type), a scored joker, a joker
        set aside (evil or chaotic on), or a miss with ``public_discards``. A face-down miss
        shows the others nothing but "it was a miss" (the same in every world where it misses),
        and a refan or reshuffle turns up no card."""
        if s.current_player < 0 or not s.fan:
            return False
        if seat == s.current_player:
            return True
        cfg = self.config
        x = s.fan[-1]
        if x < 52:
            if action < JOKER_CALL and MATCH_POINTS[action * 52 + x]:
                return True
            return cfg.public_discards
        if (cfg.good_joker and action == JOKER_CALL) or cfg.evil_joker or cfg.chaotic_joker:
            return True
        return cfg.public_discards


# ------------------------------------------------------------------- action names
SUIT_WORDS = (
    ("c", "clubs", "club", "♣"),
    ("d", "diamonds", "diamond", "♦"),
    ("h", "hearts", "heart", "♥"),
    ("s", "spades", "spade", "♠"),
)
RANK_WORDS = tuple(
    (r.lower(),) + extra
    for r, extra in zip(
        cards.RANKS,
        (("ace", "1"), (), (), (), (), (), (), (), (), ("10", "ten"), ("jack",), ("queen",), ("king",)),
    )
)


def _action_names() -> tuple[str, ...]:
    names = [f"suit {cards.SUITS[s]}" for s in range(4)]
    names += [f"rank {cards.RANKS[r]}" for r in range(13)]
    names += [f"card {cards.to_str(c)}" for c in range(52)]
    names.append("joker")
    return tuple(names)


#: ``ACTION_NAMES[a]``: ``"suit h"``, ``"rank Q"``, ``"card Qs"``, ``"joker"``
ACTION_NAMES = _action_names()


def _name_table() -> dict[str, int]:
    table = {name.lower(): a for a, name in enumerate(ACTION_NAMES)}
    for s, words in enumerate(SUIT_WORDS):
        for w in words:
            table[f"suit {w}"] = s
    for r, words in enumerate(RANK_WORDS):
        for w in words:
            table[f"rank {w}"] = RANK_BASE + r
    for c in range(52):
        for rw in RANK_WORDS[c % 13][:1] + tuple(w for w in RANK_WORDS[c % 13] if w in ("10", "1")):
            for sw in (SUIT_WORDS[c // 13][0], SUIT_WORDS[c // 13][3]):
                table[f"card {rw}{sw}"] = CARD_BASE + c
            table[f"card {rw} of {SUIT_WORDS[c // 13][1]}"] = CARD_BASE + c
    table["joker"] = JOKER_CALL
    return table


_NAME_TO_ACTION = _name_table()


def parse_action(text: str) -> int:
    """The action of a call's name: ``"suit h"``/``"suit hearts"``/``"suit ♥"``, ``"rank Q"``/``"rank 10"``,
    ``"card Qs"``/``"card 10♥"``, ``"joker"``; case-insensitive, an optional leading ``"call"``."""
    if not isinstance(text, str):
        raise ValueError(f"an action name must be a str, got {type(text).__name__}")
    t = " ".join(text.strip().lower().split())
    if t.startswith("call "):
        t = t[5:]
    a = _NAME_TO_ACTION.get(t)
    if a is None:
        raise ValueError(
            f"unknown Guilders call {text!r}; the calls are: " + ", ".join(ACTION_NAMES)
        )
    return a
