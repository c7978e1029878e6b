"""Search agents for every game: PIMC and single-observer ISMCTS over sampled worlds.

Both decide from the observation alone: each world they search is drawn by the game's
``card_envs.<game>_v0.sample_world(observation, rng, **options)`` (determinization: a world
consistent with all the player has seen), a full rules state in the observer's frame. **The
observer is seat 0 of every world**, whatever its seat at the real table (observations are
seat-relative: each view writes the observer first and the others clockwise), so the agent's own
reward is always world seat 0's, and a world's other seats are the real table's seats counted
clockwise from the agent.

    import agents
    d = agents.load("pimc", seed=0)                # the game's default (agents/search_defaults.py)
    p = agents.load("pimc:worlds=64,rollout=heuristic", seed=0)
    q = agents.load("pimc:ms=100")                 # as many worlds as fit in 100 ms
    s = agents.load("ismcts:iterations=2000", seed=0)

**Each game's default.** Without keys an agent plays the game's strongest setting measured within
100 ms a decision (``agents/search_defaults.py``), looked up when it is seated
(``start_game``); each key a spec gives overrides that key only. :data:`KEYS` holds the generic
defaults, which a game without an entry plays; ``agent.options_for(env_name)`` and
``agent.spec_for(env_name)`` say what it plays in a game.

**What a simulation scores.** The acting seat's own reward from now to the end of the *game*
(not the deal), in the table's ``reward_mode``: exactly what the table will pay it, so the
search optimises what it is scored on. With the default ``reward_mode="rank"`` (what
``training.evaluate`` scores) that is the terminal rank reward, +1 first to -1 last; with
``"score"`` it is the sum of the shaped step rewards still to come. A multi-deal game (Golf's
later rounds, Hot without ``single_deal``, a full Guillotine) is simulated to its end too: the
deal being played is only part of what decides the rank.

**PIMC** (``"pimc"``): sample W worlds; for each legal action a and world w, play a in w and
finish the game with the rollout policy; play the action with the highest mean over the worlds
(ties: the lowest action index). Every world is used for every action (common worlds: the
comparison between actions is paired). The worlds x actions simulations run together on the
batched engine (``engine=batched``, the default): ``vector_env(num_envs=W*A)``, each world
loaded into its A rows (``Kernels.load``, then the row copied, so the A rows of a world also
share its future shuffles), the first step giving each row its action, later steps the rollout
policy's, finished rows waiting (``card_envs.vector.WAIT``). ``engine=rules`` runs the same
simulations one by one on the pure-Python rules engine: the readable reference; with the
heuristic rollout (deterministic) and no chance event left in the game, both give the same
returns exactly (tests/agents/test_search.py).

**A prior** (PIMC's ``prior=heuristic``): the rule-based player's choice is kept unless the
worlds show that another action is better: the best action by mean is played only when its mean
beats the prior's by more than ``z`` standard errors of their paired difference over the worlds
(both are scored in the same worlds, and one more world is counted in which they tie), else the
prior's. Few worlds fit in a small budget and
their returns are noisy (a rank reward is +1 or -1); the prior keeps the search from trading a
sound move for a lucky sample, and lets it overrule the heuristic where the evidence is clear.

**ISMCTS** (``"ismcts"``): single-observer information-set MCTS (Cowling, Powley & Whitehouse
2012, SO-ISMCTS). One tree, of the observer's information sets: a node is the sequence of
actions from the decision (every seat's moves: in SO-ISMCTS the others' actions are treated as
observed; nodes are shared by every world that reaches them). Each iteration samples a fresh
world at the root, descends it choosing, at every node, among the actions legal *in that world*
by UCB with availability counts (``mean + c * sqrt(ln(availability) / visits)``, where
availability counts the visits of the parent in which the action was legal), the seat to move
maximising its own mean reward, adds one node, finishes the game with the rollout policy and
backs up every seat's return (each node keeps the return of the seat that moved into it). The
decision is the most visited root action (ties: the lowest index).

**ISMCTS with a prior** (``prior=heuristic``): the rule-based player guides the tree, as a
policy prior guides AlphaZero's. *At the root* every legal action is still tried (the heuristic's
choice first) and chosen by the UCB above, so that each one is measured; the decision keeps the
heuristic's choice unless the most visited action's mean return beats it by more than ``z``
standard errors of the difference of the two means (each arm's variance counted with one more
return equal to the mean of all root returns: a few agreeing returns never overrule it). *Below
the root* the seat to move (in that world) picks by PUCT, ``Q(a) + c * P(a) * sqrt(avail(a)) /
(1 + visits(a))`` with ``P`` 0.75 on the heuristic's choice from that seat's view of the world
and 0.25 spread evenly over the legal actions, an unvisited action valued at the mean of its
visited siblings: the others (and the observer's later turns) play as the heuristic does until
the returns show that another move is better. Few iterations fit in a small budget; without a
prior the tree's first visits below the root are uniformly random moves, a poorer model of the
table than the heuristic rollout that follows them.

**An opponent model** (``model=heuristic``, both agents; Collector and Hot): ``sample_world``
draws the exact posterior for card-blind opponents, whose plays and claims say nothing about
the cards they hold. The heuristic players are not card-blind: what they did tells what they
held. With this key each world is redrawn (up to ``MODEL_TRIES`` times) until it is one in
which the other seats' revealed cards and last round's claims are what the heuristic would have
done, and their hidden pending commitments are set to the heuristic's choices
(``agents/heuristics/collector.py`` ``explain_world`` states the checks). It is a model of the
table, right when the others play the heuristic (a test checks that it never rejects the true
state of such a game) and a guess otherwise.

**Rollout policies**: ``random`` (uniform over the legal actions; on the batched engine drawn
by ``sample_actions`` at compiled speed), ``heuristic`` (``agents/heuristics``: every seat of
the world plays the rule-based player, which decides from that seat's decoded observation; a
Python call per move, so far costlier; in Golf, Fiddlesticks, Collector and Hot the batched
engine runs its compiled twin instead, ``choose_rows``, the same choices for every row in one
call: in Collector and Hot about 15x the worlds in the same time) or ``ppo`` (PIMC on the
batched engine only: every seat of the world plays a learned policy greedily, one batched forward
per step for all rows, from each row's observation of its seat to act). Measured costs:
``benchmarks/bench_search.py``.

**Searching around a learned policy** (PIMC's ``rollout=ppo,prior=ppo``): the policy is the one
``agents.load("ppo")`` plays in the game (the shipped policy, read as data), or any other set as
the agent's :attr:`PIMCAgent.policy_agent` (a :class:`agents.ppo.PPOAgent`; ``training.distill``
sets its current student). With both keys each action is scored by the return the policy itself
would get after it (every seat playing the policy), and the policy's own choice is kept unless the
worlds show that another is better by ``z`` standard errors: one step of policy improvement by
rollouts (Tesauro and Galperin 1996). A search around the heuristic scores each move by how the
heuristic would go on; this one, by how the policy would.

**Budgets**, per decision: PIMC ``worlds=W`` (exact: W worlds for every legal action) and/or
``ms=M`` (one world first, to time it, then batches of as many worlds as fit, at most
``batch``, until one more world would overrun M milliseconds; at least one world; with
``worlds`` too, whichever comes first); ISMCTS ``iterations=K`` (exact)
and/or ``ms=M`` (iterations until M ms have passed; at least one). An iteration or world budget
is deterministic: the same seed, observation sequence and options give the same choices on any
machine. A millisecond budget is not (how much fits depends on the machine and its load). A
decision with one legal action is played without search (and without drawing from the rng).

**Randomness**: everything comes from the agent's generator ``numpy.random.default_rng(seed)``
(``agents.load(spec, seed=...)``): the worlds, the engine's row generators, the rollouts.

**The table's options** come through the protocol's ``start_game(env_name, config, agent)``
hook (``agents/base.py``): the worlds are sampled with exactly those options (hand sizes,
decks, the reward mode, ...). ``act`` before ``start_game`` for that game is a ValueError: the
defaults could be wrong for this table and a world of the wrong table is a wrong search.

Spec keys (``agents.load("pimc:KEY=VALUE,KEY=VALUE")``, see :data:`KEYS`); an unknown key or a
bad value is a ValueError naming the allowed keys and values.
"""

from __future__ import annotations

import functools
import importlib
import json
import math
import time
from typing import Any

import numpy as np

from card_envs.scoring import rank_rewards

MODEL_HELP = ("the other seats: none (worlds from the card-blind posterior) or heuristic (worlds in which "
              "they play as the heuristic does; Collector and Hot)")
#: worlds drawn for one world with ``model=heuristic`` before the last one is taken as it is
MODEL_TRIES = 50

#: the spec keys of each search agent: key -> (kind of value, default, help)
KEYS: dict[str, dict[str, tuple[Any, Any, str]]] = {
    "pimc": {
        "worlds": (int, 64, "worlds per decision (each legal action simulated in each)"),
        "ms": (float, None, "milliseconds per decision (worlds in batches until the time is up)"),
        "rollout": (("random", "heuristic", "ppo"), "random", "the policy that finishes each simulated game (ppo: the learned policy, engine=batched only)"),
        "engine": (("batched", "rules"), "batched", "the batched engine or the rules engine (reference)"),
        "batch": (int, 8, "at most this many worlds per batch under a ms budget"),
        "prior": (("none", "heuristic", "ppo"), "none", "an action kept unless the worlds show another is better (heuristic: the rule-based player's choice; ppo: the learned policy's)"),
        "z": (float, 2.0, "with a prior: standard errors of the paired difference by which another action must beat it"),
        "model": (("none", "heuristic"), "none", MODEL_HELP),
    },
    "ismcts": {
        "iterations": (int, 2000, "iterations (one sampled world each) per decision"),
        "ms": (float, None, "milliseconds per decision"),
        "rollout": (("random", "heuristic"), "random", "the policy at the leaves"),
        "c": (float, 0.7, "UCB exploration constant (rewards of the rank mode lie in [-1, 1])"),
        "prior": (("none", "heuristic"), "none", "the rule-based player's choices guide the tree, and its choice at the root is kept unless the search shows another is better"),
        "z": (float, 2.0, "with a prior: standard errors of the difference of root means by which another action must beat the prior's"),
        "model": (("none", "heuristic"), "none", MODEL_HELP),
    },
}
KINDS = tuple(KEYS)


def _keys_text(kind: str) -> str:
    parts = []
    for key, (kind_of, default, _) in KEYS[kind].items():
        allowed = "|".join(kind_of) if isinstance(kind_of, tuple) else kind_of.__name__
        parts.append(f"{key}={allowed} (default {default})")
    return ", ".join(parts)


def parse_options(kind: str, text: str | None) -> dict[str, Any]:
    """``"worlds=64,rollout=heuristic"`` -> ``{"worlds": 64, "rollout": "heuristic", ...}``, the
    defaults filled in. Items are comma-separated ``key=value`` pairs; a bad key or value is a
    ValueError naming the allowed keys. When ``ms`` is given without the count key (``worlds``
    or ``iterations``), the count is unbounded: the time alone ends the search."""
    if kind not in KEYS:
        raise ValueError(f"unknown search agent {kind!r}; search agents: {', '.join(KINDS)}")
    given: dict[str, Any] = {}
    for item in [p.strip() for p in (text or "").split(",")]:
        if not item:
            continue
        key, eq, value = item.partition("=")
        key, value = key.strip().lower(), value.strip()
        if not eq or key not in KEYS[kind]:
            what = f"unknown key {key!r}" if eq else f"{item!r} is not KEY=VALUE"
            raise ValueError(f"{kind} spec: {what}; {kind} takes {_keys_text(kind)}")
        if key in given:
            raise ValueError(f"{kind} spec: {key!r} given twice")
        kind_of = KEYS[kind][key][0]
        if isinstance(kind_of, tuple):
            if value.lower() not in kind_of:
                raise ValueError(f"{kind} spec: {key}={value!r}; allowed: {', '.join(kind_of)}")
            given[key] = value.lower()
            continue
        try:
            number = kind_of(value)
        except ValueError:
            raise ValueError(f"{kind} spec: {key}={value!r} is not a {kind_of.__name__}; {kind} takes {_keys_text(kind)}") from None
        if not (number > 0 and math.isfinite(number)):
            raise ValueError(f"{kind} spec: {key} must be positive, got {value!r}")
        given[key] = number
    options = {key: default for key, (_, default, _) in KEYS[kind].items()}
    count = "worlds" if kind == "pimc" else "iterations"
    if "ms" in given and count not in given:
        options[count] = None
    options.update(given)
    return options


# --------------------------------------------------------------------------- one table
@functools.lru_cache(maxsize=32)
def _table(env_name: str, config_json: str) -> "Table":
    return Table(env_name, json.loads(config_json))


def table_for(env_name: str, config: dict) -> "Table":
    """The (cached) :class:`Table` of a game and its options."""
    return _table(env_name, json.dumps(config, sort_keys=True, default=repr))



def _no_heuristic(env_name: str):
    """The heuristic of a game that has none written: a ValueError naming the file to write, and
    the settings that search without it."""

    def choose(*args, **kwargs):
        raise ValueError(f"no heuristic written for {env_name}: write agents/heuristics/{env_name.rsplit('_v', 1)[0]}.py, "
                         "or search with rollout=random and prior=none (model=none)")

    return choose

class Table:
    """What a search needs of one game at one table: its rules, its observation codec, its
    ``sample_world``, the heuristic and the batched engine (built once per row count)."""

    def __init__(self, env_name: str, options: dict[str, Any]):
        import card_envs

        if env_name not in card_envs.ENVIRONMENTS:
            raise ValueError(f"unknown game {env_name!r}; games: {', '.join(card_envs.ENVIRONMENTS)}")
        self.env_name = env_name
        self.options = dict(options)
        self.module = card_envs.ENVIRONMENTS[env_name]
        self.env = self.module.raw_env(**self.options)  # its rules and codec only: no game is played in it
        self.rules = self.env.rules
        self.num_players = self.rules.num_players
        self.rank_mode = self.rules.reward_mode == "rank"
        game = env_name.rsplit("_v", 1)[0]
        try:
            heuristics = importlib.import_module(f"agents.heuristics.{game}")
        except ModuleNotFoundError as e:  # a new game: search with random rollouts and no prior
            if e.name != f"agents.heuristics.{game}":
                raise
            heuristics = None
        self.heuristic = heuristics.choose if heuristics is not None else _no_heuristic(env_name)
        #: the heuristic's opponent model of sampled worlds (``model=heuristic``), where it has one
        self.explain = getattr(heuristics, "explain_world", None)
        #: the heuristic at compiled speed on the batched engine's arrays, where a game has it
        #: (``choose_rows(arrays, rows, out, mask)``: the same choices, tested)
        self.heuristic_rows = getattr(heuristics, "choose_rows", None)
        self._venvs: dict[int, Any] = {}
        self._warm = False

    def sample_world(self, x: np.ndarray, rng: np.random.Generator, model: bool = False):
        """A world from the observation; with ``model``, one in which the other seats play as
        the heuristic does (drawn again up to ``MODEL_TRIES`` times, see ``explain_world``)."""
        for _ in range(MODEL_TRIES if model else 1):
            world = self.module.sample_world(x, rng, **self.options)
            if not model or self.explain(world, self.env.view_of, self.rules, rng):
                break
        if world.current_player != 0:  # the observer acts, and the observer is the world's seat 0
            raise AssertionError(f"{self.env_name}: a sampled world has seat {world.current_player} to act, not the observer (0)")
        return world

    def venv(self, rows: int):
        """A batched engine of this table with ``rows`` games (kept: allocation costs)."""
        v = self._venvs.get(rows)
        if v is None:
            if len(self._venvs) >= 16:
                self._venvs.pop(next(iter(self._venvs)))
            v = self._venvs[rows] = self.module.vector_env(num_envs=rows, **self.options)
        return v

    def warm_up(self) -> None:
        """Load the batched engine's compiled kernels (numba's cache) now, by playing one random
        game to its end and beyond, not in the first timed decision."""
        if self._warm:
            return
        from card_envs.vector import WAIT

        v = self.venv(1)
        v.reset(seed=0)
        v.step(np.full(1, WAIT, dtype=np.int64))
        for _ in range(100_000):
            _, _, term, trunc, _ = v.step(v.sample_actions())
            if term[0] or trunc[0]:
                break
        v.step(v.sample_actions())
        if self.heuristic_rows is not None:  # and the compiled heuristic
            self.heuristic_rows(v.arrays, np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int64), v._mask)
        self._warm = True

    def heuristic_action(self, x: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> int:
        """The heuristic's choice from an observation vector (as ``HeuristicAgent.act`` makes it)."""
        return int(self.heuristic(self.env.decode(x), mask, self.rules, rng))

    def heuristic_move(self, state, seat: int, mask: np.ndarray, rng: np.random.Generator) -> int:
        """The heuristic's choice for ``seat`` in a rules state, from that seat's view built
        straight from the state (what decoding its observation gives)."""
        return int(self.heuristic(self.env.view_of(state, seat), mask, self.rules, rng))

    # ------------------------------------------------------------------ the rules engine
    def play_out(self, state, rollout: str, rng: np.random.Generator) -> tuple[np.ndarray, int]:
        """Finish ``state`` (in place) with the rollout policy: every seat's reward from now to the
        game's end, in the table's reward mode, and the number of steps played."""
        rules = self.rules
        ret = np.zeros(self.num_players)
        steps = 0
        while not (state.terminated or state.truncated):
            mask = rules.legal_mask(state)
            if rollout == "random":
                legal = np.flatnonzero(mask)
                a = int(legal[rng.integers(len(legal))])
            else:
                a = self.heuristic_move(state, state.current_player, mask, rng)
            steps += 1
            if self._apply(state, a, ret):
                break
        return ret, steps

    def _apply(self, state, action: int, ret: np.ndarray) -> bool:
        """One step on the rules engine, its rewards added to ``ret`` as the env pays them;
        True when the game is over (the rank rewards then added in the rank mode)."""
        shaped = self.rules.apply(state, action)
        if shaped is not None and not self.rank_mode:
            ret += shaped
        if state.terminated or state.truncated:
            if self.rank_mode:
                ret += rank_rewards(self.rules.ranks(state))
            return True
        return False


# ------------------------------------------------------------------------- simulations
def simulate_rules(table: Table, worlds: list, actions: np.ndarray, rollout: str, rng: np.random.Generator):
    """The reference: ``(W, A)`` returns of seat 0 for playing ``actions[a]`` in ``worlds[w]``
    and finishing with the rollout policy, one simulation at a time on the rules engine; and
    the number of steps simulated."""
    out = np.zeros((len(worlds), len(actions)))
    steps = 0
    for w, world in enumerate(worlds):
        for j, a in enumerate(actions):
            s = world.copy()
            ret = np.zeros(table.num_players)
            if not table._apply(s, int(a), ret):
                more, k = table.play_out(s, rollout, rng)
                ret += more
                steps += k
            steps += 1
            out[w, j] = ret[0]
    return out, steps


def simulate_batched(table: Table, worlds: list, actions: np.ndarray, rollout: str, rng: np.random.Generator,
                     policy: Any = None):
    """The same ``(W, A)`` returns (and step count) as :func:`simulate_rules`, the W x A games
    stepped together on the batched engine (see the module docstring); ``policy``: the
    :class:`agents.ppo.MaskedPolicy` of ``rollout="ppo"``, greedy in every seat."""
    from card_envs.vector import WAIT

    W, A = len(worlds), len(actions)
    n = W * A
    venv = table.venv(n)
    venv.reset(seed=int(rng.integers(1 << 62)))  # every row's generator, from the agent's rng
    kernels, arrays = venv.kernels, venv.arrays
    for w, world in enumerate(worlds):
        kernels.load(arrays, w * A, world)
    source = np.repeat(np.arange(W) * A, A)
    for arr in arrays.values():  # each world's row copied to its A rows (its generator too)
        arr[:] = arr[source]
    obs = venv.refresh()  # the masks and observations of the loaded games
    acts = np.tile(np.asarray(actions, dtype=np.int64), W)
    if rollout == "random":
        venv.sample_actions(rng)  # seeds the sampler's row generators from the agent's rng
    ret = np.zeros(n)
    done = np.zeros(n, dtype=bool)
    steps = 0
    while True:
        steps += int(n - done.sum())
        obs, rewards, term, trunc, _ = venv.step(acts)
        ret += rewards[:, 0]  # waiting rows are paid nothing
        done |= term
        done |= trunc
        if done.all():
            break
        if rollout == "random":
            acts[:] = venv.sample_actions()
        elif rollout == "ppo":
            live = np.flatnonzero(~done)
            acts[live] = policy.choose_batch(obs["observation"][live], obs["action_mask"][live])
        elif table.heuristic_rows is not None:
            table.heuristic_rows(arrays, np.flatnonzero(~done), acts, obs["action_mask"])
        else:
            x, mask = obs["observation"], obs["action_mask"]
            for r in np.flatnonzero(~done):
                acts[r] = table.heuristic_action(x[r], mask[r], rng)
        acts[done] = WAIT
    return ret.reshape(W, A), steps


# ----------------------------------------------------------------------------- ISMCTS
class _Node:
    """An information set of the observer's tree: the actions from the decision to here."""

    __slots__ = ("children", "visits", "avail", "total", "total_sq")

    def __init__(self):
        self.children: dict[int, _Node] = {}
        self.visits = 0
        self.avail = 0
        self.total = 0.0  # the summed return of the seat that moved into this node
        self.total_sq = 0.0  # and the sum of its squares (the prior's test at the root)


#: PUCT's prior below the root with ``prior=heuristic``: this much on the heuristic's choice, the
#: rest spread evenly over the legal actions
PRIOR_WEIGHT = 0.75


def ismcts_search(table: Table, x: np.ndarray, mask: np.ndarray, rng: np.random.Generator,
                  iterations: int | None, deadline: float | None, rollout: str, c: float,
                  prior: int | None = None, model: bool = False) -> tuple[_Node, int]:
    """The SO-ISMCTS tree after the budget (see the module docstring); and the steps simulated.
    ``prior``: the heuristic's choice at the root, which turns the heuristic prior on; ``model``:
    worlds in which the other seats play as the heuristic does."""
    rules = table.rules
    root = _Node()
    steps = 0
    it = 0
    while True:
        if iterations is not None and it >= iterations:
            break
        if deadline is not None and it > 0 and time.perf_counter() >= deadline:
            break
        it += 1
        state = table.sample_world(x, rng, model)
        ret = np.zeros(table.num_players)
        node = root
        path: list[tuple[_Node, int]] = []
        over = False
        while True:
            here = mask if node is root else rules.legal_mask(state)
            legal = np.flatnonzero(here).tolist()
            seat = state.current_player
            children = node.children
            for a in legal:
                child = children.get(a)
                if child is not None:
                    child.avail += 1
            if prior is not None and node is not root:
                h = table.heuristic_move(state, seat, here, rng)
                a = _puct(children, legal, h, c)
                untried = a not in children
            else:
                untried = [a for a in legal if a not in children]
                if untried:
                    a = prior if prior in untried else untried[int(rng.integers(len(untried)))]
                else:
                    a = _ucb(children, legal, c)
            child = children.get(a)
            if child is None:
                child = children[a] = _Node()
                child.avail = 1
            path.append((child, seat))
            steps += 1
            over = table._apply(state, a, ret)
            node = child
            if over or untried:
                break
        if not over:
            more, k = table.play_out(state, rollout, rng)
            ret += more
            steps += k
        for child, seat in path:
            child.visits += 1
            child.total += ret[seat]
            child.total_sq += ret[seat] * ret[seat]
    return root, steps


def _ucb(children: dict, legal: list, c: float) -> int:
    """UCB1 with availability counts over the (all visited) children of the legal actions."""
    best, a = -math.inf, legal[0]
    for b in legal:
        ch = children[b]
        score = ch.total / ch.visits + c * math.sqrt(math.log(ch.avail) / ch.visits)
        if score > best:
            best, a = score, b
    return a


def _puct(children: dict, legal: list, h: int, c: float) -> int:
    """PUCT with the heuristic prior (``PRIOR_WEIGHT`` on ``h``); an unvisited action is valued
    at the mean of its visited siblings (0 when none is visited)."""
    visits = total = 0.0
    for b in legal:
        ch = children.get(b)
        if ch is not None and ch.visits:
            visits += ch.visits
            total += ch.total
    first = total / visits if visits else 0.0
    spread = (1.0 - PRIOR_WEIGHT) / len(legal)
    best, a = -math.inf, legal[0]
    for b in legal:
        ch = children.get(b)
        p = spread + (PRIOR_WEIGHT if b == h else 0.0)
        if ch is None or not ch.visits:
            score = first + c * p * math.sqrt(ch.avail if ch is not None else 1)
        else:
            score = ch.total / ch.visits + c * p * math.sqrt(ch.avail) / (1 + ch.visits)
        if score > best:
            best, a = score, b
    return a


def keep_prior_unpaired(root: _Node, best: int, prior: int, z: float) -> int:
    """ISMCTS's decision with a prior: ``best`` (the most visited root action) only when its
    mean return beats the prior action's by more than ``z`` standard errors of the difference of
    the two means, else ``prior``. Each arm counts one more return equal to the mean of all root
    returns, so arms whose few returns happen to agree still have a spread."""
    if best == prior:
        return prior
    arms = [root.children.get(best), root.children.get(prior)]
    if arms[0] is None or arms[1] is None:
        return prior
    n_all = sum(ch.visits for ch in root.children.values())
    overall = sum(ch.total for ch in root.children.values()) / max(1, n_all)
    means, var_of_mean = [], 0.0
    for ch in arms:
        n = ch.visits + 1
        total, sq = ch.total + overall, ch.total_sq + overall * overall
        mean = total / n
        var = max(0.0, (sq - n * mean * mean) / (n - 1))
        means.append(mean)
        var_of_mean += var / n
    return best if means[0] - means[1] > z * math.sqrt(var_of_mean) else prior


# ------------------------------------------------------------------------------ agents
class SearchAgent:
    """What both search agents share: the protocol's hooks, the table, the budget, the stats."""

    kind = ""

    def __init__(self, seed: int | None = None, **options: Any):
        text = ",".join(f"{k}={v}" for k, v in options.items())
        #: the keys the spec gives, over the generic defaults of :data:`KEYS`; at a table, the
        #: game's defaults fill the keys not given (:meth:`options_for`)
        self.options = parse_options(self.kind, text)
        self.given = text
        self.name = self.kind + (f":{text}" if text else "")
        self.rng = np.random.default_rng(seed)
        self._configs: dict[str, dict] = {}
        self._resolved: dict[str, dict[str, Any]] = {}
        #: the last decision: ``ms``, ``steps`` and ``samples`` (worlds or iterations) of its
        #: search, and ``values``: per action the mean return the search found for it (NaN for an
        #: action it did not score or an illegal one; all NaN at a forced move, which is not searched)
        self.last: dict[str, Any] = {}
        #: totals over every searched decision of this agent
        self.stats = {"decisions": 0, "seconds": 0.0, "steps": 0, "samples": 0}

    def seed(self, seed: int | None) -> None:
        self.rng = np.random.default_rng(seed)

    def options_for(self, env_name: str) -> dict[str, Any]:
        """The settings this agent plays ``env_name`` with: the game's default settings
        (``agents/search_defaults.py``), each key of the spec overriding that key."""
        if env_name not in self._resolved:
            from agents.search_defaults import resolved_spec

            self._resolved[env_name] = parse_options(self.kind, resolved_spec(self.kind, env_name, self.given))
        return self._resolved[env_name]

    def spec_for(self, env_name: str) -> str:
        """The full spec this agent plays ``env_name`` with (``pimc:worlds=12,...``), every key written."""
        return self.kind + ":" + ",".join(f"{k}={v}" for k, v in self.options_for(env_name).items() if v is not None)

    def start_game(self, env_name: str, config: dict | None, agent: str | None = None) -> None:
        """The protocol's hook: the table's options, with which every world is sampled, and the
        game's settings (:meth:`options_for`), which :attr:`options` then holds."""
        config = {k: v for k, v in dict(config or {}).items() if k != "render_mode"}
        self._configs[env_name] = config
        self.options = self.options_for(env_name)
        t = self.table(env_name)  # a model the game lacks is refused here, before any decision
        if self.kind == "pimc" and self.options["engine"] == "batched":
            t.warm_up()

    def end_game(self, observation: dict, reward: float, info: dict) -> None:
        """Nothing to learn from a result: each decision is searched afresh."""

    def table(self, env_name: str) -> Table:
        if env_name not in self._configs:
            raise ValueError(
                f"{self.kind} needs the table's options to sample worlds: call "
                f"agents.base.start_game(agent, {env_name!r}, config, seat) before act "
                "(every runner of this project does)"
            )
        t = table_for(env_name, self._configs[env_name])
        if self.options["model"] == "heuristic" and t.explain is None:
            raise ValueError(f"{self.kind}: model=heuristic is defined for collector_v0 and hot_v0, not {env_name}; "
                             "use model=none")
        return t

    def act(self, observation: dict, agent: str, env_name: str) -> int:
        mask = np.asarray(observation["action_mask"])
        legal = np.flatnonzero(mask)
        if len(legal) == 0:
            raise ValueError(f"{agent} has no legal action: act() is only for the agent to act")
        t = self.table(env_name)
        self.options = self._resolved[env_name]
        from card_envs.determinization import observation_vector

        x = observation_vector(observation, t.env.observation_layout.size, env_name)
        values = np.full(len(mask), np.nan)
        if len(legal) == 1:
            self.last = {"ms": 0.0, "steps": 0, "samples": 0, "values": values}
            return int(legal[0])
        start = time.perf_counter()
        action, steps, samples, values[legal] = self._search(t, x, mask, legal, start)
        seconds = time.perf_counter() - start
        self.last = {"ms": 1000 * seconds, "steps": steps, "samples": samples, "values": values}
        for k, v in (("decisions", 1), ("seconds", seconds), ("steps", steps), ("samples", samples)):
            self.stats[k] += v
        if not mask[action]:
            raise AssertionError(f"{self.kind} chose illegal action {action}")
        return int(action)

    def _search(self, t: Table, x, mask, legal, start) -> tuple[int, int, int, np.ndarray]:
        """``(action, steps, samples, values)``: the move, the steps simulated, the worlds or
        iterations, and the mean return found for each legal action (in ``legal``'s order)."""
        raise NotImplementedError


class PIMCAgent(SearchAgent):
    """Perfect-information Monte Carlo (see the module docstring)."""

    kind = "pimc"
    #: the learned player of ``rollout=ppo`` and ``prior=ppo`` (an :class:`agents.ppo.PPOAgent`);
    #: None: the game's shipped policy, loaded when first seated
    policy_agent: Any = None

    def options_for(self, env_name: str) -> dict[str, Any]:
        """The game's settings, each key given overriding its own; ``rollout=ppo`` runs on the
        batched engine unless the keys given name another engine (a game's default of
        ``engine=rules`` is for its heuristic rollouts)."""
        options = super().options_for(env_name)
        from agents.search_defaults import items

        if options["rollout"] == "ppo" and "engine" not in items(self.given):
            options["engine"] = "batched"
        return options

    def start_game(self, env_name: str, config: dict | None, agent: str | None = None) -> None:
        super().start_game(env_name, config, agent)
        if "ppo" in (self.options["rollout"], self.options["prior"]):
            if self.options["rollout"] == "ppo" and self.options["engine"] != "batched":
                raise ValueError(f"{self.kind}: rollout=ppo plays the learned policy on the batched engine; "
                                 "use engine=batched (the default)")
            if self.policy_agent is None:
                from agents.ppo import PPOAgent

                self.policy_agent = PPOAgent()
            try:  # a policy of another table refuses; a game without a shipped policy is named
                self.policy_agent.start_game(env_name, self._configs[env_name], agent)
            except FileNotFoundError as e:
                raise ValueError(f"{self.kind}: rollout=ppo and prior=ppo need a learned policy: {e}") from None

    def learned_policy(self, env_name: str):
        """The :class:`agents.ppo.MaskedPolicy` that ``rollout=ppo`` and ``prior=ppo`` play."""
        return self.policy_agent.policy_for(env_name)[0]

    def evaluate(self, t: Table, x: np.ndarray, legal: np.ndarray, start: float | None = None):
        """``(returns, steps)``: the ``(worlds, legal actions)`` returns of every sampled world
        (a column per legal action, in ``legal``'s order)."""
        o = self.options
        simulate = simulate_batched if o["engine"] == "batched" else simulate_rules
        batches = []
        worlds = steps = 0
        deadline = None if o["ms"] is None else (start if start is not None else time.perf_counter()) + o["ms"] / 1000
        per_world = None  # seconds one world took, under a time budget
        while True:
            want = o["worlds"] - worlds if o["worlds"] is not None else o["batch"]
            if deadline is not None:  # one world first, to time it; then as many as fit, up to a batch
                fit = 1 if per_world is None else int((deadline - time.perf_counter()) / per_world)
                want = max(1, min(want, o["batch"], fit))
            began = time.perf_counter()
            batch = [t.sample_world(x, self.rng, o["model"] == "heuristic") for _ in range(want)]
            if o["rollout"] == "ppo":
                returns, k = simulate_batched(t, batch, legal, "ppo", self.rng, self.learned_policy(t.env_name))
            else:
                returns, k = simulate(t, batch, legal, o["rollout"], self.rng)
            batches.append(returns)
            worlds += want
            steps += k
            if o["worlds"] is not None and worlds >= o["worlds"]:
                break
            if deadline is not None:
                now = time.perf_counter()
                per_world = (now - began) / want
                if now + per_world > deadline:  # even one more world would overrun
                    break
        return np.concatenate(batches), steps

    def _search(self, t, x, mask, legal, start):
        returns, steps = self.evaluate(t, x, legal, start)
        means = returns.mean(axis=0)
        best = int(np.argmax(means))
        if self.options["prior"] == "heuristic":
            best = self._keep_prior(returns, best, int(np.searchsorted(legal, t.heuristic_action(x, mask, self.rng))))
        elif self.options["prior"] == "ppo":
            choice = self.learned_policy(t.env_name).choose(np.asarray(x, dtype=np.float32), mask)
            best = self._keep_prior(returns, best, int(np.searchsorted(legal, choice)))
        return int(legal[best]), steps, len(returns), means

    def _keep_prior(self, returns: np.ndarray, best: int, prior: int) -> int:
        """The column to play when a prior action is given: the best column only when its mean
        beats the prior's by more than ``z`` standard errors of their paired difference over the
        worlds (the same worlds score both), else the prior. The differences count one more
        world in which the two tie (the prior's benefit of the doubt): a few worlds that happen
        to agree have no spread, and would otherwise overrule it at any ``z``."""
        if best == prior:
            return prior
        d = np.append(returns[:, best] - returns[:, prior], 0.0)
        return best if d.mean() > self.options["z"] * d.std(ddof=1) / math.sqrt(len(d)) else prior


class ISMCTSAgent(SearchAgent):
    """Single-observer information-set MCTS (see the module docstring)."""

    kind = "ismcts"

    def _search(self, t, x, mask, legal, start):
        o = self.options
        deadline = None if o["ms"] is None else start + o["ms"] / 1000
        prior = t.heuristic_action(x, mask, self.rng) if o["prior"] == "heuristic" else None
        root, steps = ismcts_search(t, x, mask, self.rng, o["iterations"], deadline, o["rollout"], o["c"], prior,
                                    o["model"] == "heuristic")
        children = [root.children.get(a) for a in legal.tolist()]
        visits = [c.visits if c is not None else 0 for c in children]
        best = int(legal[int(np.argmax(visits))])
        if prior is not None:
            best = keep_prior_unpaired(root, best, prior, o["z"])
        means = np.array([c.total / c.visits if c is not None and c.visits else np.nan for c in children])
        return best, steps, sum(visits), means


AGENTS = {"pimc": PIMCAgent, "ismcts": ISMCTSAgent}


def make(kind: str, text: str | None, seed: int | None = None) -> SearchAgent:
    """The search agent of a spec's kind and ``key=value`` text (``agents.load`` calls it)."""
    items = [p.strip() for p in (text or "").split(",") if p.strip()]
    parse_options(kind, text)  # a bad key or value is refused before anything is built
    return AGENTS[kind](seed=seed, **dict(p.split("=", 1) for p in items))
