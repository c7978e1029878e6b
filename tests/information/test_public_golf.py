"""Golf: every public item of what a player may know reaches every observer's observation.

For each public row (face-up grid cards, closed columns, the discard pile's whole history, the
stock's size, a card drawn from the stock once placed, a card taken from the discard pile, the
old card of a replaced slot, totals, dealer and trigger), plus what the table learns when the
stock is rebuilt from the discards and when a round's end turns every layout up: two histories
on stacked decks that differ only in that public item, and every observer's observation must
differ, both right after the event and at its next turn, three seats at the table, so events
between two of an observer's turns are covered. A control shows the same two histories look
identical before the event (the difference was hidden until then).
"""

from __future__ import annotations

import numpy as np

from card_envs.cards import to_str
from tests.games.test_golf import do, new, stacked

N = 3  # dealer is seat 2, so player_0 plays first


def pair(grids_a, grids_b, stock_a="", stock_b="", discard_a="Kd", discard_b="Kd", **options):
    """Two games on decks that differ only where the given grids/stock/discard differ (two cards
    swapped, so that the filler the helper adds is identical in both), or on the same deck."""
    options.setdefault("num_rounds", 1)
    a = new(N, grids=grids_a, discard=discard_a, stock=stock_a, **options)
    b = new(N, grids=grids_b, discard=discard_b, stock=stock_b, **options)
    da = [to_str(c) for c in _deck(a)]
    db = [to_str(c) for c in _deck(b)]
    assert sorted(da) == sorted(db) and sum(x != y for x, y in zip(da, db)) in (0, 2)
    return a, b


def _deck(env):
    """The deal order of a fresh game, rebuilt from its state (grids, discard, stock)."""
    s = env.game_state
    first = (s.dealer + 1) % N
    order = [s.grid[(first + k) % N][slot] for slot in range(6) for k in range(N)]
    return order + list(s.discard) + list(reversed(s.stock))


def both(a, b, *names):
    do(a, *names)
    do(b, *names)


def observations(env):
    return {agent: env.observe(agent)["observation"].copy() for agent in env.agents}


def at_next_turns(a, b, *names):
    """Play ``names`` in both games; each agent's observation when it is next to act (or at the
    end of ``names``), for both games."""
    seen_a, seen_b = {}, {}
    for name in names:
        for env, seen in ((a, seen_a), (b, seen_b)):
            seen.setdefault(env.agent_selection, env.observe(env.agent_selection)["observation"].copy())
        both(a, b, name)
    for env, seen in ((a, seen_a), (b, seen_b)):
        for agent in env.agents:
            seen.setdefault(agent, env.observe(agent)["observation"].copy())
    return seen_a, seen_b


def assert_every_observer_tells_them_apart(a, b, segment, then=()):
    """Right after the event and at each agent's next turn, every agent's observation differs,
    in ``segment`` in particular."""
    layout = a.observation_layout
    for when, (oa, ob) in {"right after": (observations(a), observations(b)),
                          "at its next turn": at_next_turns(a, b, *then)}.items():
        for agent in a.agents:
            x, y = layout.split(oa[agent]), layout.split(ob[agent])
            assert not np.array_equal(x[segment], y[segment]), f"{agent} {when}: {segment} is the same"


def assert_same_for_everyone(a, b, but=None):
    """The control: before the event no agent (but the one named) can tell the games apart."""
    oa, ob = observations(a), observations(b)
    for agent in a.agents:
        if agent == but:
            continue
        assert np.array_equal(oa[agent], ob[agent]), f"{agent} already saw a difference"


FLIPS = ("flip 0", "flip 1")
FIVE = ("flip 0", "flip 1", "flip 2", "flip 3", "flip 4")


def test_a_flipped_card_is_public():
    a, b = pair({1: "9c 2d 3d 4d 5d 6d"}, {1: "5c 2d 3d 4d 5d 6d"}, stock_a="2s 3s 5c", stock_b="2s 3s 9c")
    both(a, b, *FLIPS)
    assert_same_for_everyone(a, b)
    both(a, b, "flip 0")  # player_1 turns up its 9 / its 5
    assert_every_observer_tells_them_apart(a, b, "grid_rank", then=("flip 1", "flip 0", "flip 1", "draw stock"))


def test_a_card_placed_by_replacement_is_public():
    a, b = pair({}, {}, stock_a="As 9c Ac 5c", stock_b="As 5c Ac 9c", initial_flips=0)
    both(a, b, "draw stock", "discard drawn")  # player_0 shows the ace; player_1 draws 9 / 5
    both(a, b, "draw stock")
    assert_same_for_everyone(a, b, but="player_1")  # only the drawer sees it ...
    both(a, b, "replace 0")  # ... until it goes face up into its grid
    assert_every_observer_tells_them_apart(a, b, "grid_rank", then=("draw stock", "discard drawn", "draw stock"))


def test_a_closed_column_is_public():
    a, b = pair({1: "7c 2d 3d 7h 4d 5d"}, {1: "7c 2d 3d 8h 4d 5d"}, stock_a="8h", stock_b="7h")
    both(a, b, *FLIPS)
    both(a, b, "flip 0")
    assert_same_for_everyone(a, b)
    both(a, b, "flip 3")  # a face-up pair of 7s closes column 0 / 7 and 8 do not
    assert_every_observer_tells_them_apart(a, b, "closed", then=("flip 0", "flip 1", "draw stock"))


def test_the_whole_discard_history_is_public_between_an_observers_turns():
    # player_1 discards the 9 / the 5 it drew; player_2 covers it; player_0 must still know it.
    a, b = pair({}, {}, stock_a="As 9c 2s Ac 5c", stock_b="As 5c 2s Ac 9c",
                initial_flips=0)
    both(a, b, "draw stock", "discard drawn")
    both(a, b, "draw stock", "discard drawn")
    both(a, b, "draw stock", "discard drawn")  # player_2 covers it with the 2
    assert a.agent_selection == "player_0"
    assert_every_observer_tells_them_apart(a, b, "discard_counts", then=("draw stock",))
    assert np.array_equal(a.observation_layout.split(a.observe("player_0")["observation"])["discard_top"],
                          b.observation_layout.split(b.observe("player_0")["observation"])["discard_top"])


def test_the_old_card_of_a_replaced_slot_is_public_once_discarded():
    a, b = pair({1: "9c 2d 3d 4d 5d 6d"}, {1: "5c 2d 3d 4d 5d 6d"}, stock_a="As Qs 2s 3s 5c",
                stock_b="As Qs 2s 3s 9c", initial_flips=0)
    both(a, b, "draw stock", "discard drawn", "draw stock")
    assert_same_for_everyone(a, b)
    both(a, b, "replace 0")  # player_1's face-down 9 / 5 goes face up onto the pile
    assert_every_observer_tells_them_apart(a, b, "discard_counts", then=("draw stock", "discard drawn", "draw stock"))


def test_the_stock_size_is_public():
    a, b = pair({}, {}, initial_flips=0)
    both(a, b, "draw stock", "discard drawn")
    do(a, "draw stock", "discard drawn")  # player_1 draws from the stock ...
    do(b, "take discard", "replace 0")  # ... or takes the discard
    both(a, b, "draw stock", "discard drawn")  # player_2 plays between player_0's turns
    assert_every_observer_tells_them_apart(a, b, "stock_size", then=("draw stock",))


def test_a_card_taken_from_the_discard_pile_is_public():
    a, b = pair({}, {}, discard_a="9c", discard_b="5c", stock_a="5c", stock_b="9c", initial_flips=0)
    both(a, b, "take discard")
    assert_every_observer_tells_them_apart(a, b, "pending_rank")


def test_the_trigger_is_public():
    a, b = pair({}, {}, initial_flips=5)
    both(a, b, *(FIVE * N))
    do(a, "draw stock", "replace 5")  # player_0's last face-down card: the final turns begin
    do(b, "draw stock", "replace 0")
    assert_every_observer_tells_them_apart(a, b, "trigger", then=("draw stock", "discard drawn", "draw stock"))


def test_the_dealer_is_public():
    a = new(N, dealer=1, num_rounds=1)
    b = new(N, dealer=2, num_rounds=1)
    for agent in a.agents:
        x = a.observation_layout.split(a.observe(agent)["observation"])["dealer"]
        y = b.observation_layout.split(b.observe(agent)["observation"])["dealer"]
        assert not np.array_equal(x, y)


def test_totals_are_public():
    # Round 1 ends when player_0 turns its last card (no final turns); player_1's face-down
    # 9 / 5 is turned up and scored.
    grids = {0: "2c 3c 4c 5c 6c 7c", 1: "2d 3d 4d 5d 6d {}", 2: "2h 3h 4h 5h 6h 7h"}
    a, b = pair({k: g.format("9c") for k, g in grids.items()}, {k: g.format("5s") for k, g in grids.items()},
                stock_a="5s", stock_b="9c", initial_flips=5, final_turns=False, num_rounds=2)
    both(a, b, *(FIVE * N))
    assert_same_for_everyone(a, b)
    both(a, b, "take discard", "replace 5")  # all six up: the round ends, every card turns up
    assert a.game_state.round == 1
    assert_every_observer_tells_them_apart(a, b, "totals", then=FIVE * 2)


def test_the_layouts_revealed_at_a_round_end_are_public():
    # player_1's face-down K / Q (both worth 10, so the totals agree) is turned up at the end.
    base = {0: "2c 3c 4c 5c 6c 7c", 2: "2h 3h 4h 5h 6h 7h"}
    a, b = pair({**base, 1: "2d 3d 4d 5d 6d Kd"}, {**base, 1: "2d 3d 4d 5d 6d Qd"}, stock_a="Qd", stock_b="Kd",
                discard_a="Ks", discard_b="Ks", initial_flips=5, final_turns=False, num_rounds=2)
    both(a, b, *(FIVE * N))
    assert_same_for_everyone(a, b)
    both(a, b, "take discard", "replace 5")  # player_0 completes its layout: the round ends
    assert a.game_state.totals == b.game_state.totals
    assert_every_observer_tells_them_apart(a, b, "last_round_grid", then=FIVE * 2)


def test_a_rebuilt_stocks_composition_is_public():
    # 3 seats, 33 stock cards. The two decks swap a stock card (the 5th drawn) with player_2's
    # face-down slot 5: the discards, and so the rebuilt stock, differ in a 9 / a 5.
    a, b = pair({2: "2h 3h 4h 5h 6h 5c"}, {2: "2h 3h 4h 5h 6h 9c"}, stock_a="2s 3s 4s 6s 9c",
                stock_b="2s 3s 4s 6s 5c", initial_flips=0)
    for _ in range(32):
        both(a, b, "draw stock", "discard drawn")
    both(a, b, "draw stock")
    assert len(a.game_state.stock) == 0
    before = [a.observation_layout.split(a.observe(agent)["observation"]) for agent in a.agents]
    assert all(not np.any(v["stock_counts"]) for v in before)
    both(a, b, "discard drawn")  # the next turn rebuilds the stock from the 33 discards below the top
    assert a.game_state.stock_known and len(a.game_state.stock) == 33
    assert a.game_state.discard == b.game_state.discard
    assert_every_observer_tells_them_apart(a, b, "stock_counts", then=("draw stock", "discard drawn", "draw stock"))


def test_a_card_drawn_from_a_rebuilt_stock_is_public_once_placed():
    # After the rebuild the next card is a 9 in one world and a 5 in the other: the others know
    # only that it is one of the stock's cards until it is placed, then they count it.
    a, b = pair({}, {}, initial_flips=0)
    for _ in range(34):
        both(a, b, "draw stock", "discard drawn")
    sa, sb = a.game_state, b.game_state
    assert sa.stock_known and sa.stock == sb.stock
    nine = next(i for i, c in enumerate(sa.stock) if c % 13 == 8)
    five = next(i for i, c in enumerate(sa.stock) if c % 13 == 4)
    sb.stock[-1], sb.stock[nine] = sb.stock[nine], sb.stock[-1]
    sa.stock[-1], sa.stock[five] = sa.stock[five], sa.stock[-1]
    a._mask = b._mask = None
    both(a, b, "draw stock")
    others = [agent for agent in a.agents if agent != a.agent_selection]
    for agent in others:
        assert np.array_equal(a.observe(agent)["observation"], b.observe(agent)["observation"])
    both(a, b, "discard drawn")
    assert_every_observer_tells_them_apart(a, b, "stock_counts", then=("draw stock", "discard drawn", "draw stock"))
