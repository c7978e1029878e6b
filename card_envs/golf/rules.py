"""Six-card Golf: the whole game, readable beside its page, ``help(card_envs.golf_v0)``.

Pure Python (no PettingZoo). Each player has six cards in two rows of three (slots 0 1 2 on
top, 3 4 5 below); column c is slots {c, c+3}. A turn is DRAW (from the stock or the discard
pile) then PLACE (replace any slot outside a closed column, or discard a card drawn from the
stock). A column whose two cards are face up and of the same rank closes for good and scores 0.
When a player has all six cards face up, everyone else gets one final turn; then all cards are
revealed and scored (J = 0, A = 1, 2–10 face value, Q = K = 10; a pair by rank scores 0).
Rounds continue until someone's total reaches ``target_score`` (or for exactly ``num_rounds``);
the lowest total wins.
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
    check_reward_mode,
    check_seat_or_random,
)
from card_envs.schema import (
    GENERATOR,
    LIST,
    OPTIONAL_ROWS,
    PLAYERS,
    ROWS,
    VALUE,
    Array,
    Field,
    Pile,
    Row,
    SeatColumn,
    StateSchema,
)
from card_envs.scoring import competition_ranks

NAME = "golf_v0"

# Card value by rank index (A23456789TJQK): J = 0, A = 1, 2..10 face value, Q = K = 10.
RANK_VALUE = (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 0, 10, 10)
RANK_OF = tuple(c % 13 for c in range(52))

NUM_SLOTS = 6
MAX_ROUND_SCORE = 60  # the most a layout scores in a round: 20 a column (a Queen over a King)
COLUMNS = ((0, 3), (1, 4), (2, 5))
COLUMN_OF = (0, 1, 2, 0, 1, 2)
PARTNER = (3, 4, 5, 0, 1, 2)

# Actions (indices as in the environment's actions table).
DRAW_STOCK = 6
TAKE_DISCARD = 7
DISCARD_DRAWN = 8
NO_FLIP = 9
NUM_ACTIONS = 10

# Phases.
FLIP, DRAW, PLACE, FLIP_STEP, OVER = range(5)
PHASE_NAMES = ("flip", "draw", "place", "flip_step", "over")


@dataclass
class GolfConfig:
    """The table's options, with their defaults (the Options table of the environment's docs)."""

    num_players: int = 4
    dealer: int | str = "random"
    num_decks: int | str = "auto"
    target_score: int = 100
    num_rounds: int | None = None
    initial_flips: int = 2
    turn_up_discard: bool = True
    flip_after_discard: str = "never"
    final_turns: bool = True
    max_turns_per_round: int | None = None
    max_rounds: int = 50
    reward_mode: str = "rank"

    def __post_init__(self) -> None:
        self.num_players = check_int("num_players", self.num_players, 2)
        n = self.num_players
        if self.num_decks == "auto":
            if n > 12:
                raise ValueError(
                    f"num_players={n}: more than 12 players needs an explicit num_decks (auto covers 2..12)"
                )
            self.decks = 1 if n <= 4 else 2 if n <= 8 else 3
        else:
            self.decks = check_int("num_decks", self.num_decks, 1)
        if 52 * self.decks < 6 * n + 2:
            raise ValueError(
                f"{self.decks} deck(s) hold {52 * self.decks} cards, too few for {n} players: "
                f"Golf needs at least 6·num_players + 2 = {6 * n + 2}"
            )
        self.dealer = check_seat_or_random("dealer", self.dealer, n)
        self.target_score = check_int("target_score", self.target_score, 1)
        if self.num_rounds is not None:
            self.num_rounds = check_int("num_rounds", self.num_rounds, 1)
        self.initial_flips = check_int("initial_flips", self.initial_flips, 0, NUM_SLOTS)
        self.turn_up_discard = check_bool("turn_up_discard", self.turn_up_discard)
        self.flip_after_discard = check_choice("flip_after_discard", self.flip_after_discard, ("never", "may", "must"))
        self.final_turns = check_bool("final_turns", self.final_turns)
        if self.max_turns_per_round is None:
            self.max_turns_per_round = 60 * n
        self.max_turns_per_round = check_int("max_turns_per_round", self.max_turns_per_round, 1)
        self.max_rounds = check_int("max_rounds", self.max_rounds, 1)
        self.reward_mode = check_reward_mode(self.reward_mode)

    @property
    def round_limit(self) -> int:
        """The most rounds an episode can have."""
        return self.num_rounds if self.num_rounds is not None else self.max_rounds


STATE = StateSchema(
    "GolfState",
    Field("grid", ROWS, "each seat's six slots, card ints", Array("grid", np.int16, (PLAYERS, NUM_SLOTS))),
    Field("face_up", ROWS, "each seat's slots: True if face up", Array("up", np.int8, (PLAYERS, NUM_SLOTS), as_bool=True)),
    Field("closed", ROWS, "each seat's columns: True once closed (a face-up pair)",
          Array("closed", np.int8, (PLAYERS, 3), as_bool=True)),
    Field("last_layouts", OPTIONAL_ROWS,
          "every seat's six cards as revealed at the end of the previous round (None before the first round ends)",
          Array("last_grid", np.int16, (PLAYERS, NUM_SLOTS), present="has_last")),
    Field("stock", LIST, "the stock, its end the top", Pile("stock", np.int16, "stock_len")),
    Field("discard", LIST, "the discard pile, its end the top", Pile("discard", np.int16, "discard_len")),
    Field("pending", VALUE, "the card the player to act holds (drawn, not yet placed), or None", Row("pending", none=-1)),
    Field("pending_from_discard", VALUE, "True if it was taken from the discard pile",
          Row("pending_from_discard", as_bool=True)),
    Field("phase", VALUE, "FLIP, DRAW, PLACE, FLIP_STEP or OVER", Row("phase")),
    Field("current_player", VALUE, "the seat to act (-1 once over)", Row("current_player")),
    Field("flips_left", VALUE, "setup flips the player to act has left", Row("flips_left")),
    Field("dealer", VALUE, "the dealer's seat", Row("dealer")),
    Field("trigger", VALUE, "the seat that turned its sixth card up (the final turns), or None", Row("trigger", none=-1)),
    Field("turns", VALUE, "turns played this round", Row("turns")),
    Field("round", VALUE, "rounds played", Row("round")),
    Field("totals", LIST, "each seat's cumulative score", SeatColumn("seat", "total")),
    Field("last_round", LIST, "each seat's score in the previous round", SeatColumn("seat", "last_round")),
    Field("terminated", VALUE, "True once the game ended by the rules", Row("terminated", as_bool=True)),
    Field("truncated", VALUE, "True once it was cut off by the round or turn limit", Row("truncated", as_bool=True)),
    Field("stock_known", VALUE,
          "True once the stock was rebuilt from the discard pile this round (its composition is then public)",
          Row("stock_known", as_bool=True)),
    Field("rng", GENERATOR, "the game's generator (later shuffles and deals)"),
    seat_fields={"seat": ("total", "last_round")},
    doc="Everything on the table. Stock and discard pile are lists whose end is the top.",
)


class GolfState(STATE.base):
    """Everything on the table (the fields: :data:`STATE`). Stock and discard pile are lists
    whose *end* is the top."""

    __slots__ = ()


def card_value(card: int) -> int:
    return RANK_VALUE[card % 13]


def column_score(top: int, bottom: int) -> int:
    """0 for a pair of equal **rank** (even 10s or Kings); otherwise the sum of the values."""
    if top % 13 == bottom % 13:
        return 0
    return RANK_VALUE[top % 13] + RANK_VALUE[bottom % 13]


def grid_score(grid: list[int]) -> int:
    """Round score of a six-card layout: the sum of its three column scores (0..60)."""
    return sum(column_score(grid[a], grid[b]) for a, b in COLUMNS)


class GolfRules:
    """Golf for one configuration: setup, legal actions, apply, scoring."""

    name = NAME
    num_actions = NUM_ACTIONS

    def __init__(self, **options: Any):
        self.config = build_config(GolfConfig, NAME, options)
        self.num_players = self.config.num_players
        self.reward_mode = self.config.reward_mode
        self._deck = cards.make_deck(self.config.decks)

    # ------------------------------------------------------------------------ setup
    def deck(self) -> list[int]:
        return list(self._deck)

    def new_game(self, rng: np.random.Generator, deck: list[int] | None = None) -> GolfState:
        cfg = self.config
        n = cfg.num_players
        s = GolfState()
        s.rng = rng
        s.dealer = int(rng.integers(n)) if cfg.dealer == "random" else cfg.dealer
        s.totals = [0] * n
        s.last_round = [0] * n
        s.last_layouts = None
        s.round = 0
        s.terminated = s.truncated = False
        self._deal(s, deck)
        return s

    def _deal(self, s: GolfState, deck: list[int] | None) -> None:
        """Deal six cards to each player one at a time clockwise from the dealer's left into
        slots 0..5, turn up the stock's top card, and start the FLIP phase."""
        n = self.num_players
        order = deck if deck is not None else [self._deck[i] for i in shuffle_order(s.rng, self._deck)]
        first = (s.dealer + 1) % n
        s.grid = [[0] * NUM_SLOTS for _ in range(n)]
        i = 0
        for slot in range(NUM_SLOTS):
            for k in range(n):
                s.grid[(first + k) % n][slot] = order[i]
                i += 1
        s.stock = list(reversed(order[i:]))  # end of list = top of the stock
        s.discard = []
        s.stock_known = False
        if self.config.turn_up_discard:
            s.discard.append(s.stock.pop())
        s.face_up = [[False] * NUM_SLOTS for _ in range(n)]
        s.closed = [[False] * 3 for _ in range(n)]
        s.pending = None
        s.pending_from_discard = False
        s.trigger = None
        s.turns = 0
        s.current_player = first
        s.flips_left = self.config.initial_flips  # set even when 0 (no setup flips): copy() copies every slot
        if self.config.initial_flips > 0:
            s.phase = FLIP
        else:
            self._start_turn(s, first)

    # ------------------------------------------------------------------ legal actions
    def legal_mask(self, s: GolfState) -> np.ndarray:
        """Legal actions of the player to act. Depends only on face-up/face-down status, closed
        columns (from face-up cards) and where the pending card came from: never on a hidden card."""
        mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        p = s.current_player
        if s.phase == FLIP or s.phase == FLIP_STEP:
            up = s.face_up[p]
            for i in range(NUM_SLOTS):
                if not up[i]:
                    mask[i] = 1
            if s.phase == FLIP_STEP and self.config.flip_after_discard == "may":
                mask[NO_FLIP] = 1
        elif s.phase == DRAW:
            if s.stock:
                mask[DRAW_STOCK] = 1
            if s.discard and not all(s.closed[p]):
                mask[TAKE_DISCARD] = 1
        elif s.phase == PLACE:
            closed = s.closed[p]
            for i in range(NUM_SLOTS):
                if not closed[COLUMN_OF[i]]:
                    mask[i] = 1
            if not s.pending_from_discard:
                mask[DISCARD_DRAWN] = 1
        return mask

    # -------------------------------------------------------------------------- apply
    def apply(self, s: GolfState, action: int) -> list[float] | None:
        """Apply a legal action. Returns the score-mode rewards when a round ends, else None."""
        p = s.current_player
        if s.phase == FLIP:
            self._turn_up(s, p, action)
            s.flips_left -= 1
            if s.flips_left == 0 or all(s.face_up[p]):
                nxt = (p + 1) % self.num_players
                if nxt == (s.dealer + 1) % self.num_players:  # everyone has flipped
                    self._start_turn(s, nxt)
                else:
                    s.current_player = nxt
                    s.flips_left = self.config.initial_flips
            return None
        if s.phase == DRAW:
            if action == DRAW_STOCK:
                s.pending = s.stock.pop()
                s.pending_from_discard = False
            else:
                s.pending = s.discard.pop()
                s.pending_from_discard = True
            s.phase = PLACE
            return None
        if s.phase == PLACE:
            x, s.pending = s.pending, None
            if action == DISCARD_DRAWN:
                s.discard.append(x)
                if self.config.flip_after_discard != "never" and not all(s.face_up[p]):
                    s.phase = FLIP_STEP
                    return None
            else:
                s.discard.append(s.grid[p][action])  # revealed only now, on the pile
                s.grid[p][action] = x
                self._turn_up(s, p, action)
            return self._end_turn(s, p)
        # FLIP_STEP
        if action != NO_FLIP:
            self._turn_up(s, p, action)
        return self._end_turn(s, p)

    def _turn_up(self, s: GolfState, p: int, slot: int) -> None:
        """Turn a slot face up; its column closes if both cards are face up and of equal rank."""
        s.face_up[p][slot] = True
        partner = PARTNER[slot]
        if s.face_up[p][partner] and s.grid[p][slot] % 13 == s.grid[p][partner] % 13:
            s.closed[p][COLUMN_OF[slot]] = True

    def _start_turn(self, s: GolfState, p: int) -> None:
        """TURN_START: an empty stock is rebuilt from the discards under the top card."""
        s.current_player = p
        s.phase = DRAW
        if not s.stock:
            top = s.discard.pop()
            rest = s.discard
            s.stock = [rest[i] for i in shuffle_order(s.rng, rest)]
            s.discard = [top]
            s.stock_known = True  # every rebuilt card was seen face up: the composition is public

    def _end_turn(self, s: GolfState, p: int) -> list[float] | None:
        """END_CHECK: the first player with six face-up cards triggers the final turns."""
        n = self.num_players
        s.turns += 1
        if s.trigger is None and all(s.face_up[p]):
            s.trigger = p
            if not self.config.final_turns:
                return self._end_round(s)
        if s.turns >= self.config.max_turns_per_round:  # the stalling guard
            return self._end_round(s)
        nxt = (p + 1) % n
        if s.trigger is not None and nxt == s.trigger:
            return self._end_round(s)
        self._start_turn(s, nxt)
        return None

    def _end_round(self, s: GolfState) -> list[float]:
        """ROUND_END: reveal and score; the game ends at the target (or after num_rounds)."""
        n = self.num_players
        cfg = self.config
        for p in range(n):
            s.face_up[p] = [True] * NUM_SLOTS
        scores = [grid_score(g) for g in s.grid]
        s.last_round = scores
        s.last_layouts = [list(g) for g in s.grid]
        for p in range(n):
            s.totals[p] += scores[p]
        s.round += 1
        mean = sum(scores) / n
        shaped = [-(x - mean) / MAX_ROUND_SCORE for x in scores]
        if cfg.num_rounds is not None:
            over = s.round >= cfg.num_rounds
        else:
            over = max(s.totals) >= cfg.target_score
        if over:
            s.terminated = True
        elif cfg.num_rounds is None and s.round >= cfg.max_rounds:
            s.truncated = True
        if s.terminated or s.truncated:
            s.phase = OVER
            s.current_player = -1
            return shaped
        s.dealer = (s.dealer + 1) % n
        self._deal(s, None)
        return shaped

    # ------------------------------------------------------------------------ results
    def scores(self, s: GolfState) -> list[int]:
        """Game points: each player's cumulative total (lower is better)."""
        return list(s.totals)

    def ranks(self, s: GolfState) -> list[int]:
        """Lowest total ranks first, also on truncation."""
        return competition_ranks(s.totals, lower_is_better=True)

    # --------------------------------------------------------------------- action names
    def action_to_string(self, s: GolfState | None, action: int) -> str:
        if not 0 <= action < NUM_ACTIONS:
            raise ValueError(f"action {action} is not in 0..{NUM_ACTIONS - 1}")
        if action < NUM_SLOTS:
            if s is not None and s.phase in (FLIP, FLIP_STEP):
                return f"flip {action}"
            return f"replace {action}"
        return ("draw stock", "take discard", "discard drawn", "no flip")[action - NUM_SLOTS]

    def public_action(self, s: GolfState | None, action: int) -> str:
        """What every seat sees of ``action``, about to be applied in ``s``: every Golf action is made in the open (which slot is replaced or turned, which pile is drawn from), so its
        name."""
        return self.action_to_string(s, action)

    def string_to_action(self, s: GolfState | None, text: str) -> int:
        t = " ".join(text.strip().lower().replace("_", " ").split())
        fixed = {"draw stock": DRAW_STOCK, "take discard": TAKE_DISCARD, "discard drawn": DISCARD_DRAWN, "no flip": NO_FLIP}
        if t in fixed:
            return fixed[t]
        word, _, num = t.partition(" ")
        if word in ("flip", "replace", "slot") and num.isdigit() and int(num) < NUM_SLOTS:
            return int(num)
        raise ValueError(
            f"unknown Golf action {text!r}; actions are 'flip 0'..'flip 5', 'replace 0'..'replace 5', "
            "'draw stock', 'take discard', 'discard drawn', 'no flip'"
        )

    # ---------------------------------------------------------------- for tests/search
    def zones(self, s: GolfState) -> dict[str, list[int]]:
        z = {f"grid {p}": list(g) for p, g in enumerate(s.grid)}
        z["stock"] = list(s.stock)
        z["discard"] = list(s.discard)
        z["pending"] = [] if s.pending is None else [s.pending]
        return z

    def reveals(self, s: GolfState, action: int, seat: int) -> bool:
        """Whether applying ``action`` in ``s`` turns up to ``seat`` a card it could not see:

        - a flip (setup or after a discard) turns up a face-down card;
        - DRAW_STOCK shows the drawn card to the drawer (only to the drawer);
        - PLACE turns up the card another player drew from the stock (placed or discarded), and
          REPLACE of a face-down slot turns up the old card onto the discard pile;
        - a step that ends the round while some slot is still face down turns every card up.

        Taking the discard, replacing a face-up slot with it, NO_FLIP and a stock rebuild reveal
        nothing (the rebuilt cards were all seen face up; only their order is new, and hidden).
        Nor does the next round's deal, whose turned-up discard comes from a fresh shuffle of the
        whole deck: it does not depend on any card hidden now (it is the same in every world).
        """
        p = s.current_player
        if s.phase in (FLIP, FLIP_STEP) and action < NUM_SLOTS:
            return True
        if s.phase == DRAW:
            return action == DRAW_STOCK and seat == p
        if s.phase == PLACE:
            if not s.pending_from_discard and seat != p:
                return True
            if action < NUM_SLOTS and not s.face_up[p][action]:
                return True
        if s.phase not in (PLACE, FLIP_STEP):
            return False
        return self._ends_round_with_face_down(s, action)

    def _ends_round_with_face_down(self, s: GolfState, action: int) -> bool:
        """Does the (non-revealing) PLACE or FLIP_STEP ``action`` end the round while some card
        is still face down? Mirrors ``apply`` and ``_end_turn`` without changing ``s``."""
        cfg = self.config
        p = s.current_player
        up = list(s.face_up[p])
        if s.phase == PLACE:
            if action == DISCARD_DRAWN and cfg.flip_after_discard != "never" and not all(up):
                return False  # the turn goes on to the optional flip
            if action < NUM_SLOTS:
                up[action] = True
        elif action < NUM_SLOTS:
            up[action] = True
        trigger = s.trigger
        ends = False
        if trigger is None and all(up):
            trigger = p
            ends = not cfg.final_turns
        if s.turns + 1 >= cfg.max_turns_per_round:
            ends = True
        if trigger is not None and (p + 1) % self.num_players == trigger:
            ends = True
        if not ends:
            return False
        return not all(up) or any(not all(s.face_up[q]) for q in range(self.num_players) if q != p)
