"""
# Fiddlesticks

| | |
|---|---|
| Import | `from card_envs import fiddlesticks_v0`; `env = fiddlesticks_v0.env()` |
| Agents | `player_0` … `player_{N-1}`, N = `num_players` (2 up to 52·`num_decks`/9: 11 with 2 decks) |
{properties}

## Description

A Shithead/Palace-family shedding game on two decks (suits do not matter; ranks 2 < 3 < … <
10 < J < Q < K < A). Each player is dealt 3 cards face down (nobody sees them, the owner
included), 3 face up on top and 3 into the hand. In the SWAP phase each player, in turn from
the dealer's left, chooses which 3 of its 6 visible cards lie face up (three `face-up R`
picks, revealed only after everyone has picked). Then, clockwise from the dealer's left, a
player plays any number of cards of one rank from the hand onto the pile: anything on an empty
pile; otherwise equal or higher than the top card, except that on a 9 the next card must be
equal or lower; 2s and 10s are wild (anything goes on a 2; a 10 clears the pile and the player
goes again); four or more equal ranks on top of the pile, by whoever played them, clear it too
and the player who completed the run goes again. After a play the player draws back up to 3
from the stock; once the stock is gone, a hand below 3 takes in all of its owner's face-up
cards (publicly). A player who cannot play must pick up the whole pile. With nothing in hand
(stock and face-up cards gone) a player turns one face-down card of its choice: played if it
fits, otherwise it and the whole pile go into the hand. The first player with no cards wins.

## Actions

K = 4·`num_decks` (the most copies of one rank); rank index r = 0..12 for 2..A.

| Index | Name | Meaning |
|---|---|---|
| r·K + (k−1), 0 … 13K−1 | `play kxR` (e.g. `play 2x9`) | put k cards of rank R from the hand on the pile |
| 13K + r | `face-up R` | SWAP phase: one card of rank R from the pool (hand + face-up) will lie face up |
| 13K + 13 + j | `blind j` | turn face-down slot j (0..2) and play it if it fits |
| 13K + 16 | `pick up` | take the whole pile into the hand |

`env.unwrapped.action_to_string(a)` and `env.unwrapped.string_to_action(text)` convert
(case-insensitive; `play 1x10` may also be written `play 1xT`, `pick up` as `pickup`).

### Action mask

All zeros for every agent not to act. In the SWAP phase: `face-up R` for each rank left in the
player's pool. With cards in hand: `play kxR` for each rank R that fits on the pile and each k
up to the copies of R in the hand; `pick up` only when no play fits (or, with
`voluntary_pickup`, whenever the pile is not empty). With an empty hand: `blind j` for
**every** face-down slot still holding a card, whether or not that card will fit: the mask
depends only on the player's own hand, the public pile and which slots are filled, never on a
face-down card.

## Observation

From the observer's seat: index 0 is the observer, then the others clockwise. Ranks only (suits
do not matter). The view holds the player's own hand, every face-up card, face-down counts,
hand sizes, the pile (top rank, length of the top run, counts of every rank), the cleared
cards, the stock size and, for every seat, the hand cards everybody knows about: cards picked up
with the pile or a failed blind card, face-up cards taken into the hand, dealt face-up cards
swapped into the hand, less the copies of those ranks played since. `absent` adds, per seat and
rank, what a forced pick-up showed: without `voluntary_pickup` a player picks up only when nothing
in its hand fits, so it holds no card of the ranks playable on that top card (2s, 10s and what the
comparison allows) beyond its known cards (it picks up the pile's cards in full view); the flags
last until that player next draws from the stock (an unseen card comes in). Face-down cards are unknown
to everyone until turned; SWAP choices stay hidden until all players have picked (until then
every seat's row shows the dealt face-up cards).

{layout}

`card_envs.fiddlesticks.view.Codec(rules).decode(vector)` (or `env.unwrapped.decode(vector)`)
returns the `PlayerView` the vector encodes.


## Rewards

Terminal and zero-sum, from the final ranking (the game has no points, so no score mode:
`reward_mode` accepts only `"rank"`). `first_out`: the winner ranks 1 and everyone else shares
rank 2 (+1 for the winner, −1/(N−1) for each other player). `rank_all`: the finishing order is the
ranking (+1 first out down to −1 last, in equal steps). A game cut by `max_turns` is truncated: 0
for all, everyone rank 1. At the end `infos[agent]` has `score` (there are no game points: the
number of cards the player still holds, hand + face-up + face-down, 0 for a player who went out)
and `rank` (1 = best, competition ranking).

## Starting state

`reset(seed)` deals the game. The dealer is `dealer` (drawn from the seed when `"random"`);
one card at a time clockwise from the dealer's left, each player gets three face-down cards
(slots 0..2), then three face-up cards on top of them, then three cards in hand; the rest is the
stock, and the pile is empty. The game opens in the SWAP phase with the player to the dealer's
left, who makes its three `face-up R` picks first.

Stacked decks: `reset(options={"deck": [...]})` deals one card at a time clockwise from the
dealer's left into face-down slots 0..2, then face-up 0..2, then the hand; the rest is the
stock, its top the next card in the list.

## Episode end

A player is out when its hand, face-up and face-down cards are all gone.

- **Terminated** (`terminations[agent]` True for every agent): with `end_mode="first_out"` as
  soon as the first player is out; with `end_mode="rank_all"` when all players but one are out.
- **Truncated** (`truncations[agent]` True for every agent, `terminations` False): after
  `max_turns` play actions (default 1000; every play, blind and pick-up counts, the SWAP picks do
  not), unless the action that reaches the limit ends the game by the rules (then it terminates).

A truncated game is a draw whatever `end_mode` says: every agent has `rank` 1 and a reward of 0
(also players already out in `rank_all`); `infos[agent]["score"]` is the number of cards the
player still holds, as at a normal end.

With `env()`, an illegal action ends the game at once: -1 for the mover, 0 for everyone else,
every agent both terminated and truncated (as PettingZoo's `TerminateIllegalWrapper` leaves
them), and `infos` get no `score` or `rank`; `raw_env()` raises `IllegalActionError` (a
`ValueError`) and changes nothing.

## Arguments

| Name | Default | Meaning |
|---|---|---|
| `num_players` | 4 | 2 or more, with 9·N ≤ 52·`num_decks` |
| `num_decks` | 2 | decks shuffled together (no jokers); K = 4·`num_decks` sets the action space |
| `end_mode` | `"first_out"` | `"first_out"`: the game ends when the first player is out; `"rank_all"`: until one player is left |
| `four_in_a_row_clears` | True | four or more equal ranks on top of the pile clear it (and the player goes again) |
| `voluntary_pickup` | False | allow `pick up` whenever the pile is not empty (standard Shithead; not in the source) |
| `dealer` | `"random"` | the dealer's seat, or `"random"`; the dealer's left picks first in the SWAP and plays first |
| `max_turns` | 1000 | truncation after this many play actions (every play, blind and pick-up; SWAP picks not counted) |
| `reward_mode` | `"rank"` | only `"rank"` (no score shaping is defined) |


## Version history

Each entry names the environment version and the library release that shipped the change
(`card_envs.__version__`; the CHANGELOG has the whole release). Before 1.0 a `v0` environment may
still change without a new suffix; every such change is listed here.

- `v0`, library 0.1.0: first release.
- `v0`, library 0.1.0, information update: new `absent` segment (N×13): the ranks each seat is
  publicly known to hold no more of than its `known` cards, from forced pick-ups, until it draws;
  the rendering shows them ("no other …"). The SWAP-phase rendering no longer lists a card already
  picked in the hand. Adds the process-property hook `rules.reveals`.
- `v0`, library 0.2.0, exact results: rank rewards are the exact average of the tied places rounded
  once (a draw pays exactly 0.0; no reward moved by more than 1.2e-16), and `state()` shows an end
  by an illegal move (`ended` [1, 1], nobody to act). A SWAP pick is hidden: `public_action` says
  what the table saw ("picks a card (swap)").

{state}
"""

from __future__ import annotations

from card_envs.base import CardGameEnv, env_constructors, environment_doc
from card_envs.fiddlesticks import state as fs_state
from card_envs.fiddlesticks import view as fs_view
from card_envs.fiddlesticks.rules import FiddlesticksRules


class raw_env(CardGameEnv):
    metadata = {"name": "fiddlesticks_v0", "render_modes": ["human", "ansi"], "is_parallelizable": False}
    Rules = FiddlesticksRules
    View = fs_view


env, raw_env = env_constructors(raw_env)

#: the game's benchmark table: the table the shipped policy was trained at and the benchmark protocol
#: plays (``training.benchmark``), and the one ``training.evaluate``, ``agents.play``, the web table
#: and the throughput benchmarks play when given no options (``card_envs.cli.table_options``)
BENCHMARK_CONFIG = {"num_players": 2}

__doc__ = environment_doc(__doc__, raw_env, BENCHMARK_CONFIG, fs_state)
raw_env.__doc__ = __doc__
#: the README's games table: how many players, and the game in one line
PLAYERS = "2–11 (more with `num_decks`)"
SUMMARY = "a Shithead/Palace relative: hidden face-up swap, wild 2s and 10s, the 9 that turns the comparison, blind face-down plays"

