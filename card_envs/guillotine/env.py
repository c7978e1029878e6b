"""
# Guillotine

| | |
|---|---|
| Import | `from card_envs import guillotine_v0`; `env = guillotine_v0.env()` |
| Agents | `player_0` … `player_3` (exactly 4) |
{properties}

## Description

Four players, 32 cards ranked 7 < 8 < 9 < 10 < J < Q < K < A, eight each. The dealer looks
at its hand and chooses a contract it has not used yet (its sixth is forced, still one step
with a one-hot mask). Royalty, Queens, Spades, Parliament and Guillotine are trick-taking
contracts without trumps: the dealer leads, each player follows suit when able, and the highest
card of the led suit wins the trick (an off-suit card never wins) and leads the next. Domino is
a shedding contract: the dealer opens with any card, whose rank becomes the anchor; only cards
of the anchor rank start a suit's row, rows grow one rank up or down (7 and A are the ends), a
player who can play must, otherwise it passes; playing an Ace (not the opening card) earns a
bonus: further legal cards one at a time, until STOP or an empty hand. STOP is legal at every
bonus step (the only action when no card fits), so the bonus never ends by itself and a STOP
tells the table nothing about the hand. The deal ends when the second player goes out. The full game is 24 deals, the deal rotating
clockwise; the lowest total wins.

## Actions

| Index | Name | Meaning |
|---|---|---|
| 0–31 | `play 7c` … `play As` | play the card `8·suit + rank` (suits c d h s = 0..3, ranks 7 8 9 T J Q K A = 0..7) |
| 32–37 | `choose royalty` … `choose domino` | the dealer's contract: Royalty, Queens, Spades, Parliament, Guillotine, Domino |
| 38 | `pass` / `stop` | Domino: pass (only with no legal card) / end the Ace bonus (any time in it; the only action of a bonus step when no card fits) |

`env.unwrapped.action_to_string(a)` gives these names (38 reads `stop` during a bonus);
`string_to_action` accepts them in any case, and also a bare card (`"Kh"`, `"10h"`) or contract
name.

### Action mask

All zeros for every agent not to act. The mask of the agent to act is computed from its own
hand and public state only: the dealer's unused contracts; in a trick, the cards of the led
suit it holds, or its whole hand when it holds none (or leads); in Domino, the cards of its
hand the layout accepts (its whole hand for the opening card), else `pass` alone; in an Ace
bonus, the cards the layout accepts and `stop` (always; `stop` alone when nothing fits).

## Observation

From the observer's seat: index 0 is the observer, then the others clockwise. Card segments
have one entry per card, index `8·suit + rank` as in the actions. Everything in it is public or
the observer's own: nothing depends on another player's hand. A Domino pass is public, and so
is its consequence: the passer holds none of the playable cards (`known_absent`); a STOP in an
Ace bonus proves nothing and adds nothing there. `deal` (one-hot, 24 entries) is the current
deal and `single_deal` says whether the game is one deal (`mode="single"`), so the observation
tells how much of the game is left. The layout is the same for every configuration.

{layout}

`env.unwrapped.decode(vector)` returns the `PlayerView` the vector encodes
(`card_envs.guillotine.view`), and `encode_view(view)` encodes one. Its fields hold the encoded
numbers (card masks over deck indices, contract codes); `view.readable()` gives them by name
(`{"hand": ["7c", "Ts", ...], "contract": "royalty", ...}`) and `print(view)` shows them.
Card ints here are deck indices, not `card_envs.cards` ints: name one with
`env.unwrapped.rules.card_name(27)` (`"Ts"`; `card_envs.cards.to_str(27)` is `"2h"`), and list
a mask's indices with `env.unwrapped.rules.cards_of(mask)`.


## Rewards

`reward_mode="rank"` (default): at the end, places are worth +1 (lowest total) down to −1 in
equal steps; tied players share the average of their places. `reward_mode="score"`: at the end
of every deal each player gets −(deal points − the table's mean deal points) / 100. At the end
`infos[agent]` has `score` (the total) and `rank` (1 = best, competition ranking).

### Scoring (points per deal; lower is better)

| Contract | Per player | Total per deal |
|---|---|---|
| Royalty | +20 per King taken, +10 per Queen taken | +120 |
| Queens | +10 per Queen taken, −10 per King taken | 0 |
| Spades | +5 per spade taken, −10 per King taken (`king_rule="contract_suit_king"`: only K♠) | 0 (+30) |
| Parliament | −5 per trick won, −10 per King taken | −80 |
| Guillotine | +5 per card taken, +10 per King, +10 per Queen, +5 for trick 1, +5 for trick 8 | +250 |
| Domino | −30 for the first player out, −10 for the second | −40 |

A full game's four totals add up to exactly 1000.

### Per-deal scores in `infos`

From the end of the first deal on, every agent's `infos[agent]` carries the deals so far:
`deal` (0-based index of the deal that ended last, so `deal + 1` deals are over),
`deal_scores` (that agent's points in each finished deal, in order) and `deal_contracts` (each
finished deal's contract). They are updated at each deal's end and kept at the game's end beside
`score` and `rank` (`sum(deal_scores) == score`), so a full 24-deal game reports all 24 deals.
They are public (every deal's points are announced) and change no reward or observation.

## Starting state

`reset(seed)` deals the first deal. The first dealer is `first_dealer` (drawn from the seed when
`"random"`); the 32 cards are dealt one at a time clockwise from the dealer's left, eight to each
player. The first agent to act is the dealer, choosing its contract (with `mode="single"` and a
`contract` given, that contract applies at once and the dealer leads or opens). Every later deal
is shuffled from the seeded generator and dealt by the next seat clockwise.

Stacked decks: `reset(options={"deck": [...]})` deals the 32 listed cards (top first) one at a
time clockwise starting left of the dealer, eight to each hand; later deals are shuffled from
the seed. With `first_dealer="random"` the dealer is drawn from the seed before the deal.

## Episode end

A deal ends after its eighth trick (Royalty, Queens, Spades, Parliament, Guillotine) or when the
second player goes out (Domino); its points are then added to the totals.

- **Terminated** (`terminations[agent]` True for every agent): at the end of the last deal, the
  24th with `mode="full"`, the only one with `mode="single"`.
- **Truncated**: never by the rules. No option bounds the episode, because every deal ends by
  itself: a trick contract lasts eight tricks, and in Domino someone always holds a card the
  layout accepts (the anchor of a suit not yet started, or the next rank of an open row), so
  passes cannot go round forever, and an Ace bonus plays a card at each step until STOP or an
  empty hand. `truncations` stay False, except after an illegal action under `env()`.

At the end, `"rank"` mode pays the places by lowest total and `"score"` mode the last deal's
reward like every deal's; `infos[agent]` has `score`, `rank` and the per-deal scores.

With `env()`, an illegal action ends the game at once: -1 for the mover, 0 for everyone else,
every agent both terminated and truncated (as PettingZoo's `TerminateIllegalWrapper` leaves
them), and `infos` get no `score` or `rank`; `raw_env()` raises `IllegalActionError` (a
`ValueError`) and changes nothing.

## Arguments

| Name | Default | Meaning |
|---|---|---|
| `mode` | `"full"` | `"full"`: 24 deals, each dealer uses each contract once; `"single"`: one deal |
| `contract` | None | single mode only: None = the dealer chooses from all six; a name (`"royalty"`, `"queens"`, `"spades"`, `"parliament"`, `"guillotine"`, `"domino"`) is applied at once, without a choice step |
| `first_dealer` | `"random"` | seat 0–3 of the first dealer, or drawn from the seed; deal k's dealer is `(first_dealer + k) mod 4` |
| `trick_rank_order` | `"seed"` | `"seed"`: 7<8<9<10<J<Q<K<A; `"french"`: 7<8<9<J<Q<K<10<A in tricks (Domino always uses the seed order) |
| `king_rule` | `"every_king"` | Spades' King penalty: every King, or `"contract_suit_king"` (K♠ only) |
| `ace_bonus` | True | the Domino Ace bonus |
| `reward_mode` | `"rank"` | `"rank"` or `"score"` |
| `num_players` | 4 | not a choice (Guillotine is a four-player game): accepted only as 4, so code that passes it to every game works; any other value is a ValueError |


## Version history

Each entry names the environment version and the library release that shipped the change
(`card_envs.__version__`; the CHANGELOG has the whole release). Before 1.0 a `v0` environment may
still change without a new suffix; every such change is listed here.

- `v0`, library 0.1.0: first release.
- `v0`, library 0.1.0, information update: the Domino Ace bonus lasts until STOP or an empty hand
  (STOP always legal in it; it no longer ends by itself when no card fits, which told the table
  about a hidden hand), and a STOP records nothing in `known_absent`; new observation segments
  `deal` (24) and `single_deal` (1), size 635 -> 660; the rendering shows "deal k of n", what each
  seat laid and its finishing place in Domino (no trick count there), and no longer lists the
  viewer's own cards under another seat's "known not to hold". Golden transcript regenerated.
- `v0`, library 0.2.0, exact results: rank rewards are the exact average of the tied places rounded
  once (a draw pays exactly 0.0; no reward moved by more than 1.2e-16), and `state()` shows an end
  by an illegal move (`ended` [1, 1], nobody to act).

{state}
"""

from __future__ import annotations

from typing import Any

from card_envs.base import CardGameEnv, env_constructors, environment_doc
from card_envs.guillotine import state as guillotine_state
from card_envs.guillotine import view as guillotine_view
from card_envs.guillotine.rules import CONTRACT_NAMES, NUM_PLAYERS, GuillotineRules


class raw_env(CardGameEnv):
    metadata = {"name": "guillotine_v0", "render_modes": ["human", "ansi"], "is_parallelizable": False}
    Rules = GuillotineRules
    View = guillotine_view

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        self._deal_scores: list[list[int]] = [[] for _ in range(NUM_PLAYERS)]
        self._deal_contracts: list[str] = []
        super().reset(seed=seed, options=options)

    def step(self, action: Any) -> None:
        s = self.game_state
        before = None if s is None else (s.deal, s.terminated, s.contract)
        super().step(action)
        s = self.game_state
        if before is not None and not before[1] and (s.deal != before[0] or s.terminated):
            self._record_deal(before[2])

    def _record_deal(self, contract: int) -> None:
        """A deal just ended: every seat's infos get the per-deal scores so far (public)."""
        s = self.game_state
        self._deal_contracts.append(CONTRACT_NAMES[contract])
        for p, agent in enumerate(self.possible_agents):
            self._deal_scores[p].append(int(s.last_deal[p]))
            if agent in self.infos:  # a new dict: an info returned earlier by last() stays as it was
                self.infos[agent] = {
                    **self.infos[agent],
                    "deal": len(self._deal_contracts) - 1,
                    "deal_scores": list(self._deal_scores[p]),
                    "deal_contracts": list(self._deal_contracts),
                }


env, raw_env = env_constructors(raw_env)

#: the game's benchmark table: the table the shipped policy was trained at and the benchmark protocol
#: plays (``training.benchmark``), and the one ``training.evaluate``, ``agents.play``, the web table
#: and the throughput benchmarks play when given no options (``card_envs.cli.table_options``)
BENCHMARK_CONFIG = {"mode": "single"}

#: the README's games table: how many players, and the game in one line
PLAYERS = "4"
SUMMARY = '32 cards, five no-trump trick contracts and Domino over 24 deals; `mode="single"` plays one deal'

__doc__ = environment_doc(__doc__, raw_env, BENCHMARK_CONFIG, guillotine_state)
raw_env.__doc__ = __doc__
