"""What tells the two set-collecting games apart: a :class:`SetVariant`.

Collector and Hot play one round (:mod:`card_envs.set_collecting.engine`). Each game declares its
variant in its rules (``card_envs.collector.rules.VARIANT``, ``card_envs.hot.rules.VARIANT``), and
the shared rules, view, state, kernels, worlds and picture ask it what they need to know:

* the table's size and the take action: how many seats at most (the takes reach that far), what
  the take is called, and how many stock cards a successful taker also draws (Collector: a take
  is the card only; Hot: "draw one take", the card and one stock card);
* what a losing claimant draws (``contest_fallback``'s choices);
* whether the game runs over **deals**: Collector is one deal, the first completed set ends the
  game and players rank by completion; Hot is played over deals, each scored (the callers score
  the ranks their opponents lack, into game totals), the dealer passing clockwise, to a target
  total, players ranking by total. With deals come their segments of the observation and the
  state (the totals, the dealer, the deal number, the last deal's points).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from card_envs.contract import part
from card_envs.set_collecting.engine import TAKE_BASE


@dataclass(frozen=True, eq=False)
class SetVariant:
    """One set-collecting game's differences from the shared round (one instance per game: two
    variants are the same only if they are the same object; a copy or an unpickled one is the
    game's own)."""

    name: str  #: the game's short name and folder ("collector", "hot")
    #: its name in text ("Collector", "Hot"); in a game of deals, also what a completing player calls
    title: str
    max_players: int  #: the largest table: TAKE(k) reaches k = 1 .. max_players - 1
    take_label: str  #: the take action's name ("take", "draw one take")
    take_draws: int  #: stock cards a successful taker also draws
    #: ``contest_fallback``'s choices (the default first), each with the stock cards a losing claimant draws
    fallbacks: tuple[tuple[str, int], ...]
    #: played over scored deals to a target total (else one deal, which the first completed set ends)
    deals: bool

    @property
    def env_name(self) -> str:
        """The environment's name, ``"<name>_v0"``."""
        return f"{self.name}_v0"

    @property
    def num_actions(self) -> int:
        """The actions a seat can commit (PLAY(r), DRAW_TWO, the takes); the env appends WAIT."""
        return TAKE_BASE + self.max_players - 1

    @property
    def fallback_names(self) -> tuple[str, ...]:
        """``contest_fallback``'s choices, the default first."""
        return tuple(name for name, _ in self.fallbacks)

    def loser_draws(self, fallback: str) -> int:
        """The stock cards a losing claimant draws in all under ``contest_fallback=fallback``."""
        return dict(self.fallbacks)[fallback]

    def __reduce__(self):
        return variant_named, (self.name,)


@lru_cache(maxsize=None)
def variant_named(name: str) -> SetVariant:
    """The variant of the game ``name`` (``"collector"``, ``"hot"``): its rules' ``VARIANT``."""
    return part(name, "rules").VARIANT


def as_variant(variant: SetVariant | str) -> SetVariant:
    """A variant, given itself or its game's name."""
    if isinstance(variant, SetVariant):
        return variant
    return variant_named(variant)
