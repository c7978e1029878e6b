"""
# Collector

| | |
|---|---|
| Import | `from card_envs import collector_v0`; `env = collector_v0.env()` |
| Agents | `player_0` … `player_{N-1}`, N = `num_players` (2–4, default 2) |
{properties}

## Description

Collector: collect one card of each of the 13 ranks; play and acquire by hidden commitment.

Each player is dealt 5 cards; the rest is the stock. Every round has two hidden
commitments. PLAY: each player with cards puts one card face down; they are turned up together.
ACQUIRE: each player chooses to draw two cards from the stock or to take the card just played by
the player k seats clockwise. A card several players want goes to the first of them clockwise
from its discarder; the others draw two instead (`contest_fallback`). Cards nobody took go to the
bottom of the stock, in seat order from the lead seat, before the draws; the draws are served in
seat order from the lead seat while the stock lasts (no reshuffle). After the round every player
holding all 13 ranks wins (several: a shared win). Suits do not matter.

## Actions

The indices are fixed:

| Index | Phase | Name | Meaning |
|---|---|---|---|
| 0–12 | PLAY | `play A` … `play 10` … `play K` | play one card of that rank |
| 13 | ACQUIRE | `draw two` | draw two cards from the top of the stock |
| 14–16 | ACQUIRE | `take 1` … `take 3` | take the card played by the player 1–3 seats clockwise |
| 17 | (Parallel API) | `wait` | the no-op of a live player with nothing to do; never legal in the AEC API |

Every action is a hidden commitment: `public_action` says what the table saw ("commits").

### Action mask

PLAY(r) iff the player holds a card of rank r. DRAW_TWO always (even when the
stock is short: the mask hints at nothing). TAKE(k) iff k < N and the player k seats clockwise
played a card this round. `wait` is never legal in the AEC API (nobody is asked there without
something to do). The mask never depends on anyone's pending choice; agents not to act get all
zeros (in the Parallel API: only `wait`).

## Observation

Relative seats: 0 = the observer, then clockwise. Everything the player may
know and nothing else: own hand (rank counts) and own commitment, who has committed (not what),
hand and stock sizes, the cards revealed this round, last round's plays with who took each card
and how many cards each player drew, the cards every player knows to be in each hand (cards taken,
and seen cards drawn back from the stock bottom, minus those played since; a player playing a rank
of which it holds such a known card plays that card), the seen bottom of the stock (returned
cards, by depth from the top), every choice of the last round once revealed (`last_claimed`:
whose card each player claimed, or none for draw two; with `last_taken_by` and `last_drawn` this
is who won each contest and what each loser drew instead) and, once the game is over, every hand
laid down, who completed the set (`callers`) and who shares first place (`first_place`). This is
a sufficient summary of the public history (see `card_envs.set_collecting.view`): every card seen face
up is either in `known_cards`, in `stock_known`, or revealed this round. Decode a vector
with `card_envs.set_collecting.view.decode`. Segments sized N grow with the table.

{layout}


## Rewards

Terminal and zero-sum from the final ranking (`reward_mode` is always `"rank"`: the
rules define no score mode): the players completing in the same round share first place, the
others the places below (3 players, one winner: +1, −½, −½). At `max_rounds` the game is
truncated: a draw (0 for all), or with `truncation_rule="most_ranks"` the players holding most
different ranks share first place, the others the places below.

### Infos at the end

`score`: the number of different ranks held (13 = complete; Collector has
no points); `rank`: competition rank, 1 = best. At the end every hand is laid down (the claim is
checked, and `most_ranks` compares hands), so the results are public.

## Starting state

`reset(seed)` deals the game. The dealer is `dealer` (seat 0 by default, drawn from the seed
when `"random"`); each player gets `hand_size` cards, one at a time clockwise from the dealer's
left, and the rest is the face-down stock. The game opens with round 0's PLAY phase, its lead
seat the dealer's left: the AEC API asks the players one at a time from there (see Turn order),
the Parallel API all at once.

Stacked decks: `reset(options={"deck": [...]})` deals a stacked 52-card deck, top card first, one card at a
time clockwise from the dealer's left; the rest is the stock, its top the next card.

### Turn order (AEC)

The lead seat of round t is `L_t = (dealer + 1 + t) mod N`. Each phase asks
its players one at a time clockwise from `L_t` (PLAY skips a player whose hand is empty). A
commitment is seen by nobody else (observations, masks, infos, renderings) until every player of
the phase has committed; then everything is revealed at once. In the parallel API each phase is
one `step` with every asked player's action. A live player the phase does not ask (an empty
hand, in PLAY) has a mask holding only `wait` (17), a no-op: whatever it sends is ignored, so
every live agent always has a legal action (a masked categorical never sees an all-zero mask).
An illegal action ends the game with -1 for the first illegal mover in asking order, exactly as
`env()` does. `pickle`, `copy.deepcopy` and cloudpickle of `parallel_env()` and
`parallel_raw_env()` keep their behaviour and the running game (a copy continues it).

## Episode end

A round is one PLAY and one ACQUIRE phase; the end check follows every round's ACQUIRE.

- **Terminated** (`terminations[agent]` True for every agent): after the first round at whose
  end one or more players hold all 13 ranks; they share first place.
- **Truncated** (`truncations[agent]` True for every agent, `terminations` False): after
  `max_rounds` rounds (default 200) in which nobody completed; a completion in the
  `max_rounds`-th round terminates instead. The stock is never reshuffled, so a game whose stock
  has run out may go on until this limit.

Either way every hand is laid down. A truncated game's result follows `truncation_rule`: with
`"draw"` every agent has `rank` 1 and a reward of 0; with `"most_ranks"` the players holding most
different ranks share `rank` 1 and the others rank below them, paid like a completed game's
ranking. `infos[agent]["score"]` is the number of different ranks held, as at a normal end. The
Parallel API returns the same flags, rewards and infos from the step that ends the game, and then
has no agents left.

With `env()` (and `parallel_env()`), an illegal action ends the game at once: -1 for the mover
(the first illegal mover in asking order), 0 for everyone else, every agent both terminated and
truncated (as PettingZoo's `TerminateIllegalWrapper` leaves them), and `infos` get no `score` or
`rank`; `raw_env()` and `parallel_raw_env()` raise `IllegalActionError` (a `ValueError`) and
change nothing.

## Arguments

| Name | Default | Meaning |
|---|---|---|
| `num_players` | 2 | 2–4 |
| `hand_size` | 5 | initial hand, 1–12 (a 13-card deal could be complete before any round) |
| `dealer` | 0 | seat 0..N-1 or `"random"`; sets the lead seat `L_t` |
| `max_rounds` | 200 | truncation after this many rounds (≥ 1) |
| `truncation_rule` | `"draw"` | `"draw"` or `"most_ranks"`: the result when truncated |
| `contest_fallback` | `"draw_two"` | `"draw_two"` or `"nothing"`: what a losing claimant gets |
| `reward_mode` | `"rank"` | only `"rank"` (the rules define no score shaping) |


## Version history

Each entry names the environment version and the library release that shipped the change
(`card_envs.__version__`; the CHANGELOG has the whole release). Before 1.0 a `v0` environment may
still change without a new suffix; every such change is listed here.

- `v0`, library 0.1.0: first release.
- `v0`, library 0.1.0, information update: the observation gains `last_claimed` (every claim of the
  last round, so a contest loser no longer looks like a player who chose to draw), `callers` and
  `first_place` (who completed and who won, at the end); the action space gains `wait` (17), the
  Parallel API's no-op for a live player with nothing to do; the rendering shows every revealed
  choice, each contest's result, and the winners.
- `v0`, library 0.2.0, exact results: rank rewards are the exact average of the tied places rounded
  once (a draw pays exactly 0.0; no reward moved by more than 1.2e-16), and `state()` shows an end
  by an illegal move (`ended` [1, 1], nobody to act). Every action is a hidden commitment:
  `public_action` says what the table saw ("commits").

{state}
"""

from __future__ import annotations

from card_envs.base import add_parallel_state, env_constructors, environment_doc
from card_envs.collector import state as collector_state
from card_envs.collector import view as collector_view
from card_envs.collector.rules import CollectorRules
from card_envs.set_collecting.env import SetCollectingEnv
from card_envs.set_collecting.parallel import parallel_constructor


class raw_env(SetCollectingEnv):
    """Collector as a PettingZoo AEC environment (illegal actions raise ValueError)."""

    metadata = {"name": "collector_v0", "render_modes": ["human", "ansi"], "is_parallelizable": False}
    Rules = CollectorRules
    View = collector_view


env, raw_env = env_constructors(raw_env)
parallel_env, parallel_raw_env = parallel_constructor(raw_env)
add_parallel_state(parallel_raw_env)  # state() and state_space: the AEC env's underneath

#: the game's benchmark table: the table the shipped policy was trained at and the benchmark protocol
#: plays (``training.benchmark``), and the one ``training.evaluate``, ``agents.play``, the web table
#: and the throughput benchmarks play when given no options (``card_envs.cli.table_options``)
BENCHMARK_CONFIG = {"num_players": 2, "max_rounds": 100}

#: the README's games table: how many players, and the game in one line
PLAYERS = "2–4"
SUMMARY = "set collecting with simultaneous hidden commitments (also `parallel_env()`)"

__doc__ = environment_doc(__doc__, raw_env, BENCHMARK_CONFIG, collector_state, parallel=True)
raw_env.__doc__ = __doc__
