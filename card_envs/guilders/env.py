"""
# The Game of Guilders

| | |
|---|---|
| Import | `from card_envs import guilders_v0`; `env = guilders_v0.env()` |
| Agents | `player_0` … `player_{N-1}`, N = `num_players` (1 or more, no upper limit) |
{properties}

## Description

Every card lies face down in a fan. On a turn the player to act calls a suit (1 point), a rank
(5), an exact card (10) or — with the Good Joker variant — a joker (15), then draws a card
from the fan uniformly at random. A match is shown to all and scored at the call's value; a
partial match of an exact call is a miss. A miss goes to the discard pile, seen by the drawer
only (by everyone with `public_discards`). With a joker variant on, `jokers_per_deck` jokers
per deck join the fan; a drawn joker resolves in this order: **good** (a called joker scores
15, and the evil penalty does not apply), **evil** (otherwise the drawer loses its
highest-valued scored card, the most recent on ties; it leaves the game), the unscored joker is
revealed and set aside (with evil or chaotic on; with only good on it is an ordinary miss),
**chaotic** (the discard pile is shuffled back into the fan). When the fan is empty the discards
become a new fan while `refan_discards` allows, else the game ends. The highest score wins;
equal highest scores share the win.

## Actions

| Index | Name | Meaning |
|---|---|---|
| 0–3 | `suit c` `suit d` `suit h` `suit s` | call a suit (1 point) |
| 4–16 | `rank A` … `rank K` (index 4 + rank, T = 10) | call a rank (5 points) |
| 17–68 | `card Ac` … `card Ks` (index 17 + 13·suit + rank, = 17 + card int) | call an exact card (10 points) |
| 69 | `joker` | call a joker (15 points; only with `good_joker`) |

`env.unwrapped.string_to_action` also reads `suit hearts`, `suit ♥`, `rank 10`, `rank queen`,
`card 10h`, `card Q♠`, `card q of spades`, with an optional leading `call`, in any case.

### Action mask

All zeros for every agent not to act. For the agent to act every call is legal, including
calls of cards known to be gone; `joker` only with `good_joker`. The mask never depends on
the fan.

## Observation

From the observer's seat: index 0 of every per-seat segment is the observer, then the others in
turn order. Card identities are encoded once for the whole table, not per player: per card
identity and copy, the relative seat holding it in its score pile (`holder`), its value
(`scored_value`) and its place in that pile (`scored_place`, which decides what the evil joker
takes), so who holds which scored card costs 162·C floats for any N, and each seat adds 8 floats
(score, counts of 1/5/10/15-point cards, misses in the discard pile, to act, moved last): a
52-player table observes 1,131 floats. The fixed-size segments come first, so their indices do
not depend on N.

Every call reaches every player, also those made between two of its turns: a match through the
score piles, a miss through `miss_calls` (per call, the misses now in the discard pile),
`own_miss_calls` (this player's among them) and `seat_misses` (who missed). With `unseen` (the
deck minus every card this player has located) this is a sufficient statistic of the whole public history: a fan is always
a uniform shuffle of a multiset everyone knows (a refan or a chaotic reshuffle starts afresh), and
within one fan the posterior over the hidden cards depends only on `unseen` and the calls the
others' hidden misses failed (`miss_calls - own_miss_calls`; a `suit h` miss is no heart).
`PlayerView.match_probabilities()` gives each call's exact posterior chance (counted in
`card_envs/guilders/odds.py`; with no hidden miss it is `unseen[c] / sum(unseen)` per card).

What a player may know: sizes of the fan and discard pile, refans left, every score pile
card by card, the cards lost to the evil penalty and the jokers set aside (all public), every
call and whether it missed, the discards it drew itself since the discard pile last went back
into the fan (all discards with `public_discards`), and the turn just played: the mover, its
call, what happened, and the drawn card if it was shown to all (a match or a revealed joker) or
this player drew it. Another player's missed card never reaches the observation unless
`public_discards`.

Card counts are divided by the most copies one card has (1 with one deck and 2 jokers), sizes by
the total number of cards, scores and points by 10, miss counts by 13, turns by `max_turns`. Segments sized by
the number of players N or the most copies of one card C grow with the table.

{layout}

`env.unwrapped.decode(vector)` returns the `PlayerView` (`card_envs.guilders.view`) a vector
encodes.


## Rewards

`reward_mode="rank"` (default): at the end, places are worth +1 (highest score) down to -1 in
equal steps; tied players share the average of their places. A game cut by `max_turns` is
truncated and still ranked by the scores at that point. `reward_mode="score"`: every
scoring or penalty event is rewarded when it happens, to every seat, as (points gained - mean
gained by the table) / 10 (zero-sum). **Solitaire** (`num_players=1`) always uses score mode,
whatever `reward_mode` says, and the reward is the points themselves / 10 (so the return is the
final score / 10). At the end `infos[agent]` has `score` (points) and `rank` (1 = best,
competition ranking).

## Starting state

`reset(seed)` shuffles every card (`num_decks` decks, and `jokers_per_deck` jokers per deck when a
joker variant is on) into the face-down fan; the discard pile and every score pile are empty,
with `refan_discards` refans left. The first agent to act is `start_player` (seat 0 by default,
drawn from the seed when `"random"`); turns then pass in seat order.

Stacked decks: `reset(options={"deck": [...]})` makes the list the fan, drawn in list order
(first card first). Reshuffles (refan, chaotic joker) use the seeded generator.

## Episode end

Every turn is one call and one draw from the fan.

- **Terminated** (`terminations[agent]` True for every agent): when a turn leaves the fan empty
  and the discard pile cannot become a new fan, because it is empty or the `refan_discards`
  refans are used up (with `refan_discards=-1`, only an empty discard pile ends the game).
- **Truncated** (`truncations[agent]` True for every agent, `terminations` False): after
  `max_turns` turns, unless that turn ended the game by the rules (then it terminates). With the
  default `max_turns` only an endless game (`refan_discards=-1`) can be truncated, at 20 × total
  cards turns; a smaller explicit `max_turns` can cut any game.

A truncated game pays as an ended one: in `"rank"` mode the places by the scores at that point
(+1 down to -1, ties sharing the average; not a draw); in `"score"` mode (and solitaire) every
event was already paid when it happened and the cut adds nothing. `infos[agent]` has `score`
(points) and `rank` as at a normal end.

With `env()`, an illegal action ends the game at once: -1 for the mover, 0 for everyone else,
every agent both terminated and truncated (as PettingZoo's `TerminateIllegalWrapper` leaves
them), and `infos` get no `score` or `rank`; `raw_env()` raises `IllegalActionError` (a
`ValueError`) and changes nothing.

## Arguments

| Name | Default | Meaning |
|---|---|---|
| `num_players` | 4 | seats, 1 or more |
| `num_decks` | 1 | standard decks shuffled together (copies are identical; an exact call matches any copy) |
| `public_discards` | False | missed cards are shown to everyone |
| `evil_joker` | False | a drawn, uncalled joker costs the drawer its highest-valued scored card |
| `good_joker` | False | enables the `joker` call: a called joker scores 15 |
| `chaotic_joker` | False | a drawn joker shuffles the discard pile back into the fan |
| `jokers_per_deck` | 2 | jokers per deck when any joker variant is on (alternately BJ, RJ) |
| `refan_discards` | 0 | times the discard pile becomes a new fan when the fan is empty (-1 = unlimited) |
| `start_player` | 0 | the first caller: a seat or `"random"` |
| `reward_mode` | `"rank"` | `"rank"` or `"score"` (forced to `"score"` with one player) |
| `max_turns` | max(20, R + J + 1) × total cards | truncation: the game stops after this many turns. R = `refan_discards`, J = jokers if `chaotic_joker` else 0: every turn draws a fan card, a fan holds at most total cards, and only a refan or a chaotic joker (each joker once) makes a new fan, so a game with finite refans ends by itself within (R + J + 1) × total cards turns and the default never cuts it; only `refan_discards=-1` (endless) can be truncated by the default (at 20 × total cards) |


## Version history

Each entry names the environment version and the library release that shipped the change
(`card_envs.__version__`; the CHANGELOG has the whole release). Before 1.0 a `v0` environment may
still change without a new suffix; every such change is listed here.

- `v0`, library 0.1.0: first release.
- `v0`, library 0.1.0, batched engine: `vector_env`, byte-identical to `raw_env()` (tests/vector).
- `v0`, library 0.1.0, information update: new segments `miss_calls` (70), `own_miss_calls` (70),
  `holder`, `scored_value`, `scored_place` (54·C each) and `seat_misses` (N): every public call and
  result between a player's turns and who holds which scored card reach the observation;
  `match_probabilities` is the exact posterior (it accounts for the calls the others' hidden misses
  failed); the default `max_turns` grows with `refan_discards` and chaotic jokers so that only
  endless games can be truncated by it. Observation size 413 + 7·N -> 553 + 162·C + 8·N.
- `v0`, library 0.2.0, exact results: rank rewards are the exact average of the tied places rounded
  once (a draw pays exactly 0.0; no reward moved by more than 1.2e-16), and `state()` shows an end
  by an illegal move (`ended` [1, 1], nobody to act).

{state}
"""

from __future__ import annotations

from card_envs.base import CardGameEnv, env_constructors, environment_doc
from card_envs.guilders import state as guilders_state
from card_envs.guilders import view as guilders_view
from card_envs.guilders.rules import GuildersRules


class raw_env(CardGameEnv):
    metadata = {"name": "guilders_v0", "render_modes": ["human", "ansi"], "is_parallelizable": False}
    Rules = GuildersRules
    View = guilders_view

    def _render_view(self, state, seat):
        return guilders_view.render(guilders_view.view(state, seat), seat)


env, raw_env = env_constructors(raw_env)

#: the game's benchmark table: the table the shipped policy was trained at and the benchmark protocol
#: plays (``training.benchmark``), and the one ``training.evaluate``, ``agents.play``, the web table
#: and the throughput benchmarks play when given no options (``card_envs.cli.table_options``)
BENCHMARK_CONFIG = {"num_players": 2}

#: the README's games table: how many players, and the game in one line
PLAYERS = "1–52+"
SUMMARY = "calls on a fan of cards, several decks, three joker variants, solitaire"

__doc__ = environment_doc(__doc__, raw_env, BENCHMARK_CONFIG, guilders_state)
raw_env.__doc__ = __doc__
