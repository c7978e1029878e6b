"""
# Golf (six-card)

| | |
|---|---|
| Import | `from card_envs import golf_v0`; `env = golf_v0.env()` |
| Agents | `player_0` … `player_{N-1}`, N = `num_players` (2–12; more with explicit `num_decks`) |
{properties}

## Description

Each player has six cards in two rows of three, face down; nobody, the owner included, sees a
face-down card. After each player turns up `initial_flips` cards (blind), a turn is DRAW
(stock or discard pile) then PLACE (replace any slot outside a closed column, the old card going
face up onto the discard pile, or discard a card drawn from the stock). A face-up pair of equal
rank in a column closes it (score 0, never replaced). When a player has all six face up, each
other player gets one final turn. Cards score J = 0, A = 1, 2–10 face value, Q = K = 10. At a
round's end every card is turned up and each column scores 0 if its two cards are of equal rank
(even two Kings), otherwise the sum of their values; the round's scores add to the totals. The
lowest cumulative total when someone reaches `target_score` (or after `num_rounds`) wins.

## Actions

| Index | Name | Meaning |
|---|---|---|
| 0–5 | `flip i` / `replace i` | turn up slot i (FLIP phase, or the optional flip after a discard) / put the held card into slot i (PLACE) |
| 6 | `draw stock` | take the stock's top card |
| 7 | `take discard` | take the discard pile's top card (then it cannot be discarded again) |
| 8 | `discard drawn` | discard the card drawn from the stock |
| 9 | `no flip` | skip the optional flip (`flip_after_discard="may"`) |

### Action mask

All zeros for every agent not to act. `replace i` and `flip i` are legal for any eligible slot
whatever card lies beneath: the mask depends only on face-up/face-down status, closed columns
(from face-up cards) and where the held card came from.

## Observation

From the observer's seat: index 0 is the observer, then the others clockwise. Ranks only (suits
do not matter in Golf). Segments sized by the number of players N grow with the table.

{layout}

`card_envs.golf.view.Codec(rules).decode(vector)` returns the `PlayerView` the vector encodes.

What a card-counting player knows is all in the observation (see `card_envs/golf/view.py` for
why it is sufficient): `discard_counts` counts the whole discard pile (every discard was face
up). When the stock runs out, the discards under the top card are shuffled into a new stock:
`stock_known` turns on and `stock_counts` gives that stock's composition by rank, decremented
as its cards are drawn and placed; while another player holds a card drawn from it, that card is
still counted (it is one of them), while the drawer's own observation counts the exact rest.
`last_round_grid` shows every seat's layout as turned up and scored at the end of the previous
round. The rendering shows the discard pile's ranks, a rebuilt stock's known cards, the face-up
value of each layout (a column of two face-up cards scores as at a round's end: a pair is 0) and the
previous round's revealed layouts.


## Rewards

`reward_mode="rank"` (default): at the end, places are worth +1 (lowest total) down to -1 in
equal steps; tied players share the average of their places. A game cut by `max_rounds` is
truncated, still ranked by the lowest total. `reward_mode="score"`: at every round end
each player gets -(round score - table mean) / 60. At the end `infos[agent]` has `score` (the
total) and `rank` (1 = best, competition ranking).

## Starting state

`reset(seed)` deals the first round. The first dealer is `dealer` (drawn from the seed when
`"random"`); six cards are dealt face down to each player, one at a time clockwise from the
dealer's left, into slots 0..5; the next card starts the discard pile face up (with
`turn_up_discard`) and the rest is the face-down stock. The round opens in the FLIP phase: from
the dealer's left, each player turns up `initial_flips` of its own face-down cards, so the first
agent to act is the player to the dealer's left. Every later round is dealt the same way by the
next dealer clockwise, shuffled from the seeded generator.

Stacked decks: `reset(options={"deck": [...]})` deals slots 0..5 one card at a time clockwise
from the dealer's left; the next card starts the discard pile; the rest is the stock.

## Episode end

A round ends when every other player has had one final turn after the first player to end a
turn with all six cards face up (at once with `final_turns=False`), or after
`max_turns_per_round` turns of the round (a turn is a draw and its placement or discard, with
the optional flip; the setup flips do not count): this stalling guard scores the round like any
other, so it is not a truncation. Every round end is
followed by the end-of-game check below.

- **Terminated** (`terminations[agent]` True for every agent): with `num_rounds` unset, after the
  first round at whose end some player's total is at least `target_score`; with `num_rounds`
  set, after exactly `num_rounds` rounds (`target_score` and `max_rounds` then play no part in
  the end).
- **Truncated** (`truncations[agent]` True for every agent, `terminations` False): only when
  playing to `target_score`, after `max_rounds` rounds (default 50) without anyone reaching it.
  A round that reaches the target and is also the `max_rounds`-th terminates instead.

A truncated game pays as an ended one: in `"rank"` mode the places by lowest total (+1 down to
-1, ties sharing the average; not a draw), in `"score"` mode the last round's reward like every
round's. `infos[agent]` has `score` (the total) and `rank` as at a normal end.

With `env()`, an illegal action ends the game at once: -1 for the mover, 0 for everyone else,
every agent both terminated and truncated (as PettingZoo's `TerminateIllegalWrapper` leaves
them), and `infos` get no `score` or `rank`; `raw_env()` raises `IllegalActionError` (a
`ValueError`) and changes nothing.

## Arguments

| Name | Default | Meaning |
|---|---|---|
| `num_players` | 4 | 2–12 (more needs an explicit `num_decks`) |
| `dealer` | `"random"` | first dealer; the deal rotates clockwise; the dealer's left plays first |
| `num_decks` | `"auto"` | 1 deck for 2–4 players, 2 for 5–8, 3 for 9–12 |
| `target_score` | 100 | the game ends after a round in which someone's total is at least this |
| `num_rounds` | None | play exactly this many rounds instead (1 for one-round episodes) |
| `initial_flips` | 2 | cards each player turns up in setup |
| `turn_up_discard` | True | start the discard pile with the stock's top card |
| `flip_after_discard` | `"never"` | `"may"`/`"must"`: after discarding a drawn card, turn up a face-down card |
| `final_turns` | True | the others get one final turn after the trigger |
| `max_turns_per_round` | 60·N | stalling guard: the round is scored after this many turns (not a truncation) |
| `max_rounds` | 50 | truncation when playing to `target_score` |
| `reward_mode` | `"rank"` | `"rank"` or `"score"` |


## Version history

Each entry names the environment version and the library release that shipped the change
(`card_envs.__version__`; the CHANGELOG has the whole release). Before 1.0 a `v0` environment may
still change without a new suffix; every such change is listed here.

- `v0`, library 0.1.0: first release.
- `v0`, library 0.1.0, batched engine: `vector_env`, byte-identical to `raw_env()` (tests/vector).
- `v0`, library 0.1.0, information update: new observation segments `stock_known` (1),
  `stock_counts` (13) and `last_round_grid` (N·6·13): a rebuilt stock's public composition is kept,
  and the layouts revealed at a round's end are shown. Rendering: the discard pile's ranks, the
  rebuilt stock, face-up value counting pairs as 0, an empty discard pile (no longer `##`), the
  revealed layouts, and who won at the end. `rules.reveals` for the process test.
- `v0`, library 0.2.0, exact results: rank rewards are the exact average of the tied places rounded
  once (a draw pays exactly 0.0; no reward moved by more than 1.2e-16), and `state()` shows an end
  by an illegal move (`ended` [1, 1], nobody to act).

{state}
"""

from __future__ import annotations

from card_envs.base import CardGameEnv, env_constructors, environment_doc
from card_envs.golf import state as golf_state
from card_envs.golf import view as golf_view
from card_envs.golf.rules import GolfRules


class raw_env(CardGameEnv):
    metadata = {"name": "golf_v0", "render_modes": ["human", "ansi"], "is_parallelizable": False}
    Rules = GolfRules
    View = golf_view


env, raw_env = env_constructors(raw_env)

#: the game's benchmark table: the table the shipped policy was trained at and the benchmark protocol
#: plays (``training.benchmark``), and the one ``training.evaluate``, ``agents.play``, the web table
#: and the throughput benchmarks play when given no options (``card_envs.cli.table_options``)
BENCHMARK_CONFIG = {"num_players": 2, "num_rounds": 1}

#: the README's games table: how many players, and the game in one line
PLAYERS = "2–12 (more with `num_decks`)"
SUMMARY = "six-card Golf, to a target score or a fixed number of rounds"

__doc__ = environment_doc(__doc__, raw_env, BENCHMARK_CONFIG, golf_state)
raw_env.__doc__ = __doc__
