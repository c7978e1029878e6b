"""
# Hot

| | |
|---|---|
| Import | `from card_envs import hot_v0`; `env = hot_v0.env()` |
| Agents | `player_0` … `player_{N-1}`, N = `num_players` (2–3, default 2) |
{properties}

## Description

Hot: Collector's race for a complete set, scored from the opponents' missing ranks, to 11.

Each deal, every player gets 5 cards; the rest is the stock. Every round has two
hidden commitments. PLAY: each player with cards puts one card face up, all revealed together.
ACQUIRE: each player chooses to draw two cards, or to draw one card AND take the card just played
by the player k seats clockwise. A card several players want goes to the first of them clockwise
from its discarder; the others draw a replacement card instead (`contest_fallback`). Untaken
cards go to the bottom of the stock, in seat order from the lead seat, before the draws; the
draws are served in seat order from the lead seat while the stock lasts. After the round every
player holding all 13 ranks calls "Hot" (automatically) and scores, for each opponent, the ranks
that opponent lacks (13 − its different ranks); every hand is then laid down. A deal reaching
`max_rounds_per_deal` rounds is void. The deal passes clockwise; the game ends after the deal in
which a total reaches `target_points` (equal highest totals share the win), or after one deal
with `single_deal`. Suits do not matter.

## Actions

The indices are fixed:

| Index | Phase | Name | Meaning |
|---|---|---|---|
| 0–12 | PLAY | `play A` … `play 10` … `play K` | play one card of that rank |
| 13 | ACQUIRE | `draw two` | draw two cards from the top of the stock |
| 14–15 | ACQUIRE | `draw one take 1`, `draw one take 2` | draw one card and take the card played 1–2 seats clockwise (`take k` is accepted too) |
| 16 | (Parallel API) | `wait` | the no-op of a live player with nothing to do; never legal in the AEC API |

Every action is a hidden commitment: `public_action` says what the table saw ("commits").

### Action mask

PLAY(r) iff the player holds rank r. DRAW_TWO always (even from a short stock).
DRAW_ONE_TAKE(k) iff k < N and the player k seats clockwise played this round. `wait` is never
legal in the AEC API. The mask never depends on anyone's pending choice; agents not to act get
all zeros (in the Parallel API: only `wait`).

## Observation

Relative seats: 0 = the observer, then clockwise. Collector's (own hand and own
commitment, who has committed, hand and stock sizes, this round's revealed cards, last round's
plays, takes and draw counts, every claim of the last round (`last_claimed`: with `last_taken_by`
and `last_drawn`, who won each contest and what each loser drew instead), the cards known to be in
each hand, the seen bottom of the stock) plus the callers of the last finished deal (`callers`),
who shares first place at the end (`first_place`), the game totals, the dealer, the deal number, the points of the last finished deal and the
hands laid down at the end of the last scored deal. Decode with `card_envs.hot.view.decode`.

{layout}


## Rewards

`reward_mode="rank"` (default): terminal and zero-sum from the final ranking by game
total (equal totals tied; with `single_deal`, by that deal's points). `reward_mode="score"`: at
the end of each scored deal every player gets (its deal points − the table's mean) / 12. A
truncated game (`max_deals` deals, or a void `single_deal` deal) gives 0 to all in rank mode.

### Infos at the end

`score`: game total; `rank`: competition rank, 1 = best (everyone 1 when
truncated).

## Starting state

`reset(seed)` deals the first deal; every total starts at 0. The first dealer is `dealer` (seat 0
by default, drawn from the seed when `"random"`); each player gets `hand_size` cards, one at a
time clockwise from the dealer's left, and the rest is the face-down stock. The deal opens with
round 0's PLAY phase, its lead seat the dealer's left: the AEC API asks the players one at a time
from there (see Turn order), the Parallel API all at once. Each later deal is shuffled from the
seeded generator and dealt by the next seat clockwise.

Stacked decks: `reset(options={"deck": [...]})` deals a stacked 52-card deck for the first deal, top card first,
one card at a time clockwise from the dealer's left; the rest is the stock. Later deals shuffle
from the seed.

### Turn order (AEC)

The lead seat of round t of a deal is `L_t = (dealer + 1 + t) mod N`. Each
phase asks its players one at a time clockwise from `L_t` (PLAY skips a player whose hand is
empty). A commitment is seen by nobody else (observations, masks, infos, renderings) until every
player of the phase has committed. In the parallel API each phase is one `step`. A live player
the phase does not ask (an empty hand, in PLAY) has a mask holding only `wait` (16), a no-op:
whatever it sends is ignored, so every live agent always has a legal action. An illegal action
ends the game with -1 for the first illegal mover in asking order, exactly as `env()` does.
`pickle`, `copy.deepcopy` and cloudpickle of `parallel_env()` and `parallel_raw_env()` keep
their behaviour and the running game (a copy continues it).

## Episode end

A round is one PLAY and one ACQUIRE phase. A deal ends after the first round at whose end one or
more players hold all 13 ranks (a scored deal: the callers score, every hand is laid down), or,
void, after `max_rounds_per_deal` rounds without a caller (nobody scores, no hand is laid down).
The end-of-game check follows every deal.

- **Terminated** (`terminations[agent]` True for every agent): after a scored deal in which some
  total reaches `target_points`; with `single_deal`, after the deal if it was scored.
- **Truncated** (`truncations[agent]` True for every agent, `terminations` False): with
  `single_deal`, after a void deal; otherwise after the `max_deals`-th deal (default 100),
  scored or void, if no total has reached `target_points`.

A truncated game has no winner: every agent has `rank` 1, and in `"rank"` mode a reward of 0; in
`"score"` mode every scored deal, the last one included, was paid at its end, and the cut adds
nothing (a void deal pays nothing). `infos[agent]["score"]` is the game total (with
`single_deal`, that deal's points: 0 for all after a void deal). The Parallel API returns the
same flags, rewards and infos from the step that ends the game, and then has no agents left.

With `env()` (and `parallel_env()`), an illegal action ends the game at once: -1 for the mover
(the first illegal mover in asking order), 0 for everyone else, every agent both terminated and
truncated (as PettingZoo's `TerminateIllegalWrapper` leaves them), and `infos` get no `score` or
`rank`; `raw_env()` and `parallel_raw_env()` raise `IllegalActionError` (a `ValueError`) and
change nothing.

## Arguments

| Name | Default | Meaning |
|---|---|---|
| `num_players` | 2 | 2–3 |
| `target_points` | 11 | game-winning total (≥ 1) |
| `single_deal` | False | the episode is one deal |
| `reward_mode` | `"rank"` | `"rank"` or `"score"` |
| `hand_size` | 5 | initial hand, 1–12 (a 13-card deal could be complete before any round) |
| `dealer` | 0 | first dealer, seat or `"random"`; the deal then passes clockwise |
| `max_rounds_per_deal` | 200 | a deal this long is void (≥ 1) |
| `max_deals` | 100 | truncation after this many deals (≥ 1) |
| `contest_fallback` | `"draw"` | `"draw"` (a losing claimant draws a replacement) or `"nothing"` |


## Version history

Each entry names the environment version and the library release that shipped the change
(`card_envs.__version__`; the CHANGELOG has the whole release). Before 1.0 a `v0` environment may
still change without a new suffix; every such change is listed here.

- `v0`, library 0.1.0: first release.
- `v0`, library 0.1.0, information update: the observation gains `last_claimed` (every claim of the
  last round, so a contest loser no longer looks like a player who chose to draw), `callers` (the
  last deal's callers of "Hot") and `first_place` (the winners, at the end); the action space gains
  `wait` (16), the Parallel API's no-op for a live player with nothing to do; the rendering shows
  every revealed choice, each contest's result, the callers and winners.
- `v0`, library 0.2.0, exact results: rank rewards are the exact average of the tied places rounded
  once (a draw pays exactly 0.0; no reward moved by more than 1.2e-16), and `state()` shows an end
  by an illegal move (`ended` [1, 1], nobody to act). Every action is a hidden commitment:
  `public_action` says what the table saw ("commits").

{state}
"""

from __future__ import annotations

from card_envs.base import add_parallel_state, env_constructors, environment_doc
from card_envs.hot import state as hot_state
from card_envs.hot import view as hot_view
from card_envs.hot.rules import HotRules
from card_envs.set_collecting.env import SetCollectingEnv
from card_envs.set_collecting.parallel import parallel_constructor


class raw_env(SetCollectingEnv):
    """Hot as a PettingZoo AEC environment (illegal actions raise ValueError)."""

    metadata = {"name": "hot_v0", "render_modes": ["human", "ansi"], "is_parallelizable": False}
    Rules = HotRules
    View = hot_view


env, raw_env = env_constructors(raw_env)
parallel_env, parallel_raw_env = parallel_constructor(raw_env)
add_parallel_state(parallel_raw_env)  # state() and state_space: the AEC env's underneath

#: the game's benchmark table: the table the shipped policy was trained at and the benchmark protocol
#: plays (``training.benchmark``), and the one ``training.evaluate``, ``agents.play``, the web table
#: and the throughput benchmarks play when given no options (``card_envs.cli.table_options``)
BENCHMARK_CONFIG = {"num_players": 2, "single_deal": True}

#: the README's games table: how many players, and the game in one line
PLAYERS = "2–3"
SUMMARY = "Collector's variation scored from the opponents' missing ranks, deals to 11 points (also `parallel_env()`)"

__doc__ = environment_doc(__doc__, raw_env, BENCHMARK_CONFIG, hot_state, parallel=True)
raw_env.__doc__ = __doc__
