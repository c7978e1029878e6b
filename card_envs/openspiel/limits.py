"""What OpenSpiel is told about a table, derived from the table's own options and guards.

OpenSpiel's algorithms size buffers and trust bounds with these numbers, so each one is a bound
the rules guarantee, computed from the options that guard each game (turn limits, round and deal
limits, deck sizes), never a round number chosen to be safe:

- ``max_game_length``: the most players' decisions one game can have (chance nodes not counted);
- ``max_chance_nodes``: the most chance nodes (a seat drawn is one, a shuffle of k cards k - 1);
- ``min_players`` / ``max_players``: the seats the game's rules accept;
- the utility: zero-sum with a sum of 0 for two or more players (rank and score rewards both sum
  to 0), general-sum for one player (Guilders' solitaire pays its points); the returns' bounds:
  ±1 with rank rewards, and with score rewards the most the game's step rewards can add up to.

Each game's function says how its numbers follow from its rules. ``tests/openspiel`` plays random
and stalling players on small guards to check that no game is longer than its bound, and that the
stalling player reaches it where the bound is exact.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable


@dataclass(frozen=True)
class Limits:
    """One table's numbers for OpenSpiel (see the module docstring)."""

    max_game_length: int
    max_chance_nodes: int
    min_players: int
    max_players: int
    min_utility: float
    max_utility: float
    zero_sum: bool  # else general-sum (one player)


def _seat_draw(option: Any) -> int:
    """A seat drawn at random (``"random"`` dealer or first player) is one chance node."""
    return 1 if option == "random" else 0


def _shuffle(cards: int) -> int:
    """A shuffle of ``cards`` cards: a chance node per card but the last, which is forced."""
    return max(cards - 1, 0)


def _rank_bounds(n: int) -> tuple[float, float]:
    """Rank rewards: +1 for the first place down to -1 for the last (0 alone)."""
    return (-1.0, 1.0) if n > 1 else (0.0, 0.0)


def golf(rules: Any) -> Limits:
    """A round is each player's ``initial_flips`` setup flips, then at most
    ``max_turns_per_round`` turns (the stalling guard counts every turn, final turns included) of
    a draw, a placement and, when ``flip_after_discard`` is not "never", a flip after a discard;
    there are ``num_rounds`` rounds, or at most ``max_rounds``. Chance: the first dealer when
    random, each round's deal, and the stock rebuilt from the discards: a rebuilt stock of m cards
    takes at least m turns to draw, so all rebuilds of a round shuffle at most ``turns + deck``
    cards. Score rewards pay -(round score - the table's mean) / 60 a round, a layout scoring
    0..60: at most (n - 1) / n a round either way."""
    cfg, n = rules.config, rules.num_players
    rounds, turns, deck = cfg.round_limit, cfg.max_turns_per_round, 52 * cfg.decks
    per_turn = 2 if cfg.flip_after_discard == "never" else 3
    length = rounds * (n * cfg.initial_flips + turns * per_turn)
    chance = _seat_draw(cfg.dealer) + rounds * (_shuffle(deck) + turns + deck)
    most = 12 if cfg.num_decks == "auto" else (52 * cfg.decks - 2) // 6  # 6 cards a seat, a stock and a discard
    if rules.reward_mode == "rank":
        low, high = _rank_bounds(n)
    else:
        high = rounds * (n - 1) / n
        low = -high
    return Limits(length, chance, 2, max(most, n), low, high, True)


def fiddlesticks(rules: Any) -> Limits:
    """Each player picks its three face-up cards (SWAP), then ``max_turns`` play actions (plays,
    blind plays and pick-ups of all players together) end the game at the latest. Chance: the
    dealer when random and the one shuffle. Nine cards a seat: at most 52·decks / 9 seats. Rank
    rewards only."""
    cfg, n = rules.config, rules.num_players
    deck = 52 * cfg.num_decks
    low, high = _rank_bounds(n)
    return Limits(3 * n + cfg.max_turns, _seat_draw(cfg.dealer) + _shuffle(deck), 2, deck // 9, low, high, True)


#: Guillotine's deal points per seat, (fewest, most), and what the four seats' points add up to
_GUILLOTINE_POINTS = {
    "royalty": ((0, 120), 120),  # 20 a King, 10 a Queen
    "queens": ((-40, 40), 0),  # 10 a Queen, -10 a King
    "spades": ((-35, 35), 0),  # 5 a spade, -10 a King (every_king): four Kings, or seven spades
    "spades:contract_suit_king": ((-5, 35), 30),  # 5 a spade, -10 the King of spades
    "parliament": ((-80, 0), -80),  # -5 a trick, -10 a King
    "guillotine": ((0, 250), 250),  # 5 a card, 10 a King or Queen, 5 the first and 5 the last trick
    "domino": ((-30, 0), -40),  # -30 the first out, -10 the second
}


def _guillotine_reward(contract: str) -> tuple[float, float]:
    """Score rewards: -(deal points - the table's mean) / 100 at the end of a deal."""
    (fewest, most), total = _GUILLOTINE_POINTS[contract]
    mean = total / 4
    return -(most - mean) / 100, -(fewest - mean) / 100


def guillotine(rules: Any) -> Limits:
    """A trick deal is 32 plays (8 tricks of 4); a Domino deal at most 32 plays, 3 compulsory
    passes before each (a card next to an open row is always in someone's hand, so at most the
    three others pass before someone plays) and one STOP per Ace bonus (4); a chosen contract
    adds the dealer's choice. The full game is 24 deals in which each dealer chooses each of the
    six contracts once: 4 Domino deals and 20 trick deals. Chance: the first dealer when random
    and each deal's shuffle of the 32 cards."""
    cfg = rules.config
    trick, domino = 32, 32 + 3 * 32 + 4
    spades = "spades" if cfg.king_rule == "every_king" else "spades:contract_suit_king"
    names = ("royalty", "queens", spades, "parliament", "guillotine", "domino")
    if cfg.mode == "full":
        length, deals = 4 * (1 + domino) + 20 * (1 + trick), 24
        bounds = [_guillotine_reward(c) for c in names]
        low, high = 4 * sum(b[0] for b in bounds), 4 * sum(b[1] for b in bounds)
    else:
        deals = 1
        if cfg.contract is None:
            length, played = 1 + domino, names
        else:
            length = domino if cfg.contract == "domino" else trick
            played = (spades if cfg.contract == "spades" else cfg.contract,)
        bounds = [_guillotine_reward(c) for c in played]
        low, high = min(b[0] for b in bounds), max(b[1] for b in bounds)
    if rules.reward_mode == "rank":
        low, high = _rank_bounds(4)
    return Limits(length, _seat_draw(cfg.first_dealer) + deals * _shuffle(32), 4, 4, low, high, True)


def collector(rules: Any) -> Limits:
    """A round is a PLAY commitment from every seat holding a card and an ACQUIRE commitment from
    every seat; ``max_rounds`` rounds at most. Chance: the dealer when random and the one shuffle
    (the stock is never shuffled again). Rank rewards only."""
    cfg, n = rules.config, rules.num_players
    low, high = _rank_bounds(n)
    return Limits(cfg.max_rounds * 2 * n, _seat_draw(cfg.dealer) + _shuffle(52), 2, rules.variant.max_players,
                  low, high, True)


def hot(rules: Any) -> Limits:
    """A deal is at most ``max_rounds_per_deal`` rounds of two commitments per seat; one deal with
    ``single_deal``, else at most ``max_deals``. Chance: the first dealer when random and each
    deal's shuffle. Score rewards pay (deal points - the table's mean) / 12 a scored deal, so a
    return is (total - the table's mean total) / 12; a caller scores at most 13 for each other
    seat in a deal, and every total stays below ``target_points`` until the last deal."""
    cfg, n = rules.config, rules.num_players
    deals = 1 if cfg.single_deal else cfg.max_deals
    length = deals * cfg.max_rounds_per_deal * 2 * n
    chance = _seat_draw(cfg.dealer) + deals * _shuffle(52)
    if rules.reward_mode == "rank":
        low, high = _rank_bounds(n)
    else:
        most = (n - 1) * 13 + (0 if cfg.single_deal else cfg.target_points - 1)
        high = most * (n - 1) / (12 * n)
        low = -high
    return Limits(length, chance, 2, rules.variant.max_players, low, high, True)


def guilders(rules: Any) -> Limits:
    """A turn is one call; the game ends by itself within ``turn_bound`` turns (every turn draws
    a fan card, and only a refan or a chaotic joker makes a new fan) and ``max_turns`` cuts it.
    Chance: the first player when random, the first fan's shuffle and each new fan's (at most
    ``refan_discards`` refans, or one a turn when they are endless, and a reshuffle per joker).
    The rules set no upper limit on the seats; the source's is 52 a deck. Score rewards pay
    (points gained - the table's mean gain) / 10, so a return is (final score - the mean final
    score) / 10 with every score between 0 and ``max_score`` together; one player (score mode,
    always) gets its points / 10."""
    cfg, n = rules.config, rules.num_players
    bound = cfg.turn_bound
    length = cfg.max_turns if bound is None else min(cfg.max_turns, bound)
    fans = 1 + (cfg.refan_discards if cfg.refan_discards >= 0 else length)
    fans += cfg.num_jokers if cfg.chaotic_joker else 0
    chance = _seat_draw(cfg.start_player) + fans * _shuffle(cfg.total_cards)
    total = rules.max_score / 10
    if n == 1:
        return Limits(length, chance, 1, max(52 * cfg.num_decks, n), 0.0, total, False)
    if rules.reward_mode == "rank":
        low, high = _rank_bounds(n)
    else:
        low, high = -total / n, total * (n - 1) / n
    return Limits(length, chance, 1, max(52 * cfg.num_decks, n), low, high, True)


LIMITS: dict[str, Callable[[Any], Limits]] = {
    "golf_v0": golf,
    "fiddlesticks_v0": fiddlesticks,
    "guillotine_v0": guillotine,
    "collector_v0": collector,
    "hot_v0": hot,
    "guilders_v0": guilders,
}


def limits(env_name: str, rules: Any) -> Limits:
    """The numbers OpenSpiel is told about the table ``rules`` (of the game ``env_name``)."""
    if env_name not in LIMITS:
        raise ValueError(f"no OpenSpiel limits are known for {env_name!r}; games: {', '.join(LIMITS)}")
    return LIMITS[env_name](rules)
