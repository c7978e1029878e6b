"""Collector's rules (see ``help(card_envs.collector_v0)``), on the engine it shares with Hot.

Be the first to hold a **complete set**, at least one card of each of the 13 ranks (suits do not
matter). Every round each player with cards secretly plays one card; the played cards are turned
up together; then each player secretly chooses to draw two cards from the stock or to take the
card played by the player k seats clockwise. Contested cards go to the first claimant clockwise
from the discarder; the others draw two instead (``contest_fallback``). Untaken cards go to the
bottom of the stock before the draws. Every player complete after a round wins (a shared win when
several complete together). ``max_rounds`` truncates a stalemate.

The round itself is in :mod:`card_envs.set_collecting.engine`; this module holds the options, the end
of the game, the ranking and the scores.
"""

from __future__ import annotations

from dataclasses import dataclass

from card_envs import options as opt
from card_envs.set_collecting.engine import (  # noqa: F401  (re-exported for users of the rules)
    ACQUIRE,
    DRAW_TWO,
    MAX_HAND_SIZE,
    OVER,
    PLAY,
    STATE,
    TAKE_BASE,
    SetRules,
    SetState,
)
from card_envs.set_collecting.variant import SetVariant
from card_envs.scoring import ranks_from_order

#: what Collector is, of the shared round: up to 4 players, a take is the card only, a losing
#: claimant draws two (or nothing), one deal that the first completed set ends
VARIANT = SetVariant(
    name="collector",
    title="Collector",
    max_players=4,
    take_label="take",
    take_draws=0,
    fallbacks=(("draw_two", 2), ("nothing", 0)),
    deals=False,
)
WAIT = VARIANT.num_actions  # 17: the game's 17 actions (fixed indices), then WAIT (the parallel API's no-op)
NUM_ACTIONS = WAIT + 1
TRUNCATION_RULES = ("draw", "most_ranks")
CONTEST_FALLBACKS = VARIANT.fallback_names


@dataclass
class CollectorConfig:
    """The table's options, with their defaults (the Options table of the environment's docs)."""

    num_players: int = 2
    hand_size: int = 5
    dealer: int | str = 0
    max_rounds: int = 200
    truncation_rule: str = "draw"
    contest_fallback: str = "draw_two"
    reward_mode: str = "rank"  # every game takes it; Collector's rules define no score mode

    def __post_init__(self):
        self.reward_mode = opt.check_rank_only(self.reward_mode, "collector_v0")
        self.num_players = opt.check_int("num_players", self.num_players, 2, VARIANT.max_players)
        self.hand_size = opt.check_int("hand_size", self.hand_size, 1, MAX_HAND_SIZE)
        self.dealer = opt.check_seat_or_random("dealer", self.dealer, self.num_players)
        self.max_rounds = opt.check_int("max_rounds", self.max_rounds, 1)
        self.truncation_rule = opt.check_choice("truncation_rule", self.truncation_rule, TRUNCATION_RULES)
        self.contest_fallback = opt.check_choice("contest_fallback", self.contest_fallback, CONTEST_FALLBACKS)


class CollectorRules(SetRules):
    """Collector for 2–4 players. Actions: PLAY(r) = r (0..12), DRAW_TWO = 13, TAKE(k) = 13 + k,
    WAIT = 17 (the parallel API's no-op for a player with nothing to do; never legal in AEC)."""

    variant = VARIANT
    name = VARIANT.env_name
    num_actions = NUM_ACTIONS
    wait_action = WAIT
    reward_mode = "rank"  # the rules define no score mode

    def __init__(self, **options):
        config = opt.build_config(CollectorConfig, self.name, options)
        super().__init__(config)
        self.max_rounds = config.max_rounds

    def _check(self, s: SetState, complete: list[int]) -> None:
        """Everyone complete wins together; else the round guard; else the next round."""
        if complete:
            s.winners = complete
            self._lay_down(s)
            self._end_game(s, terminated=True)
        elif s.round + 1 >= self.max_rounds:
            self._lay_down(s)  # the hands are compared (most_ranks) or simply shown
            self._end_game(s, terminated=False)
        else:
            self._next_round(s)
        return None

    def scores(self, s: SetState) -> list[int]:
        """Collector has no points: the score is the number of different ranks held (13 =
        complete)."""
        return [s.distinct(p) for p in range(self.num_players)]

    def ranks(self, s: SetState) -> list[int]:
        """Winners share first place, everyone else the places below. A truncated game is a
        draw, or with ``truncation_rule="most_ranks"`` the players with most different ranks
        share first place."""
        n = self.num_players
        if s.terminated:
            best = s.winners
        elif s.truncated and self.config.truncation_rule == "most_ranks":
            d = self.scores(s)
            best = [p for p in range(n) if d[p] == max(d)]
        else:
            return [1] * n
        return ranks_from_order([best, [p for p in range(n) if p not in best]], n)
