"""Hot's rules (see ``help(card_envs.hot_v0)``): Collector's round, scored over deals to 11 points.

Trevor Cuthbertson's variation of Collector. The round is Collector's (the shared engine in
:mod:`card_envs.set_collecting.engine`) except the acquiring choice: draw two cards, or draw one card
AND take a card just played, so every hand grows by one card a round while the stock lasts. A
contest loser draws a replacement card (``contest_fallback="draw"``). The players complete after
a round call "Hot" (automatically) and each scores, for every opponent, the number of ranks that
opponent lacks; every hand is then laid down. The game is played over deals (the dealer passes
clockwise) until a total reaches ``target_points``; equal highest totals share the win.
"""

from __future__ import annotations

from dataclasses import dataclass

from card_envs import options as opt
from card_envs.set_collecting.engine import (  # noqa: F401  (STATE re-exported: the state's declaration)
    MAX_HAND_SIZE,
    NUM_RANKS,
    STATE,
    SetRules,
    SetState,
)
from card_envs.set_collecting.variant import SetVariant
from card_envs.scoring import competition_ranks

#: what Hot is, of the shared round: up to 3 players, a taker also draws one card, a losing
#: claimant draws a replacement (two cards in all, or only the one), deals scored to a target
VARIANT = SetVariant(
    name="hot",
    title="Hot",
    max_players=3,
    take_label="draw one take",
    take_draws=1,
    fallbacks=(("draw", 2), ("nothing", 1)),
    deals=True,
)
WAIT = VARIANT.num_actions  # 16: the game's 16 actions (fixed indices), then WAIT (the parallel API's no-op)
NUM_ACTIONS = WAIT + 1
CONTEST_FALLBACKS = VARIANT.fallback_names


@dataclass
class HotConfig:
    """The table's options, with their defaults (the Options table of the environment's docs)."""

    num_players: int = 2
    target_points: int = 11
    single_deal: bool = False
    reward_mode: str = "rank"
    hand_size: int = 5
    dealer: int | str = 0
    max_rounds_per_deal: int = 200
    max_deals: int = 100
    contest_fallback: str = "draw"

    def __post_init__(self):
        self.num_players = opt.check_int("num_players", self.num_players, 2, VARIANT.max_players)
        self.target_points = opt.check_int("target_points", self.target_points, 1)
        self.single_deal = opt.check_bool("single_deal", self.single_deal)
        self.reward_mode = opt.check_reward_mode(self.reward_mode)
        self.hand_size = opt.check_int("hand_size", self.hand_size, 1, MAX_HAND_SIZE)
        self.dealer = opt.check_seat_or_random("dealer", self.dealer, self.num_players)
        self.max_rounds_per_deal = opt.check_int("max_rounds_per_deal", self.max_rounds_per_deal, 1)
        self.max_deals = opt.check_int("max_deals", self.max_deals, 1)
        self.contest_fallback = opt.check_choice("contest_fallback", self.contest_fallback, CONTEST_FALLBACKS)


def deal_points(distinct: list[int], callers: list[int]) -> list[int]:
    """Each caller scores, for every other player, the ranks that player lacks (13 − its
    different ranks; a complete opponent gives 0). Non-callers score nothing."""
    n = len(distinct)
    return [
        sum(NUM_RANKS - distinct[o] for o in range(n) if o != p) if p in callers else 0 for p in range(n)
    ]


class HotRules(SetRules):
    """Hot for 2–3 players. Actions: PLAY(r) = r (0..12), DRAW_TWO = 13, DRAW_ONE_TAKE(k) = 13 + k,
    WAIT = 16 (the parallel API's no-op for a player with nothing to do; never legal in AEC)."""

    variant = VARIANT
    name = VARIANT.env_name
    num_actions = NUM_ACTIONS
    wait_action = WAIT

    def __init__(self, **options):
        config = opt.build_config(HotConfig, self.name, options)
        super().__init__(config)
        self.reward_mode = config.reward_mode
        self.max_rounds = config.max_rounds_per_deal

    def _check(self, s: SetState, complete: list[int]) -> list[float] | None:
        """Callers score the deal and every hand is laid down; a deal reaching
        ``max_rounds_per_deal`` is void; then the game ends or the next deal starts."""
        n = self.num_players
        if complete:
            pts = deal_points([s.distinct(p) for p in range(n)], complete)
            for p in range(n):
                s.scores[p] += pts[p]
            s.last_deal_points = pts
            s.winners = complete
            self._lay_down(s)
            mean = sum(pts) / n
            shaped = [(p - mean) / 12 for p in pts]
            self._end_of_deal(s, scored=True)
            return shaped
        if s.round + 1 >= self.max_rounds:
            s.last_deal_points = [0] * n
            s.winners = []
            self._end_of_deal(s, scored=False)
            return None
        self._next_round(s)
        return None

    def _end_of_deal(self, s: SetState, scored: bool) -> None:
        c = self.config
        if scored and (max(s.scores) >= c.target_points or c.single_deal):
            self._end_game(s, terminated=True)
        elif c.single_deal or s.deal + 1 >= c.max_deals:
            # a void single deal is cut by the round guard: a truncation, like max_deals
            self._end_game(s, terminated=False)
        else:
            s.deal += 1
            self._deal(s, (s.dealer + 1) % self.num_players, None)

    def scores(self, s: SetState) -> list[int]:
        """Game totals (with ``single_deal``, the deal's points)."""
        return s.scores[:]

    def ranks(self, s: SetState) -> list[int]:
        """Highest total first, equal totals tied; a truncated game ranks everyone first."""
        if s.truncated:
            return [1] * self.num_players
        return competition_ranks(s.scores, lower_is_better=False)
