"""The differential test of the batched engine: the same state and action through ``raw_env()``'s
rules engine and through ``vector_env``'s kernels must give byte-identical outputs.

``play_differential`` runs ``batch`` games side by side: game i of the vector env and its own
``raw_env()`` start from the same state (the raw env deals with numpy, the state is loaded into
the vector row with ``set_state``), take the same random legal actions, and are compared at every
step: the mask and every seat's observation, then after the step the rewards of every seat,
terminations, truncations and, at the end, every seat's score, rank and final observation.

Where the kernels drew randomness in a step (a row's generator moved: a Golf stock rebuild, a new
round's deal, a Guilders refan), the two engines' random streams differ by design. The step's
deterministic outputs (rewards, ends, scores) and the card census (how many cards lie in each
zone, and the whole multiset) are still compared, then the rules engine's state is loaded into the
vector row so that the rules after that moment are compared too.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np

import card_envs
from card_envs import vector


@dataclass
class DiffReport:
    steps: int = 0
    games: int = 0
    random_events: int = 0
    mismatch: str | None = None


def _census(rules, state):
    zones = rules.zones(state)
    return {k: len(v) for k, v in zones.items()}, Counter(c for v in zones.values() for c in v)


#: the kernels ``VectorEnv.step`` calls one after another where a game has no ``advance``
STEP_BY_STEP = ("step", "legal", "encode", "new_games", "results")


def play_differential(game: str, config: dict, *, games: int, batch: int = 8, seed: int = 0, kernels=None,
                      seats_per_step: int | None = None) -> DiffReport:
    """Play ``games`` random games through both engines, comparing every step (see the module
    docstring). ``seats_per_step`` compares that many seats' observations per step, in a window
    that moves around the table (for big tables; the player to act and the finished games' final
    observations are always compared in full); None compares every seat."""
    module = card_envs.ENVIRONMENTS[f"{game}_v0"]
    venv = vector.make(game, batch, config)
    if kernels is not None:  # a planted bug (the negative control)
        venv.kernels = planted = kernels(venv.rules)
        base = type(vector.make(game, 1, config).kernels)
        if any(m in vars(planted) or getattr(type(planted), m) is not getattr(base, m) for m in STEP_BY_STEP):
            # the bug is planted in a step-by-step kernel, which a game's one-pass ``advance``
            # does not call: play through those (a bug planted in the configuration or the
            # tables reaches ``advance`` too, and is caught there)
            planted.advance = None
    venv.reset(seed=seed)
    envs = [module.raw_env(**config) for _ in range(batch)]
    rules = envs[0].rules
    agents = envs[0].possible_agents
    n = len(agents)
    pick = np.random.default_rng(seed)
    report = DiffReport()
    next_seed = [seed * 100_000]

    def fresh(i):
        next_seed[0] += 1
        envs[i].reset(seed=next_seed[0])
        venv.set_state(i, envs[i].game_state.copy())

    for i in range(batch):
        fresh(i)
    started = batch
    actions = np.zeros(batch, dtype=np.int64)
    seats = np.zeros(batch, dtype=np.int64)
    active = np.ones(batch, dtype=bool)

    def fail(i, what):
        report.mismatch = f"game {i} (step {report.steps}): {what}"
        return report

    while active.any():
        # before the step: masks and every seat's observation
        for i in range(batch):
            if not active[i]:
                continue
            e = envs[i]
            agent = e.agent_selection
            if venv._current[i] != e.game_state.current_player:
                return fail(i, f"player to act {venv._current[i]} vs {e.game_state.current_player}")
            mask = e.observe(agent)["action_mask"]
            if venv._mask[i].tobytes() != mask.tobytes():
                return fail(i, f"mask {np.flatnonzero(venv._mask[i])} vs {np.flatnonzero(mask)}")
            legal = np.flatnonzero(mask)
            actions[i] = legal[pick.integers(len(legal))]
        if seats_per_step is None or seats_per_step >= n:
            compared = range(n)
        else:
            compared = sorted({(report.steps * seats_per_step + k) % n for k in range(seats_per_step)})
        for p in compared:
            seats[:] = p
            obs = venv.observe(seats)
            for i in range(batch):
                if active[i] and obs[i].tobytes() != envs[i].observe(agents[p])["observation"].tobytes():
                    x, y = obs[i], envs[i].observe(agents[p])["observation"]
                    bad = np.flatnonzero(x != y)
                    where = [s.name for s in envs[i].observation_layout.segments if any(s.start <= b < s.stop for b in bad)]
                    return fail(i, f"observation of player_{p} differs in {where}")
        for i in range(batch):  # the player to act's own observation, always
            if active[i] and venv._obs[i].tobytes() != envs[i].observe(envs[i].agent_selection)["observation"].tobytes():
                return fail(i, "the observation of the player to act differs")
        for i in range(batch):  # finished rows play on (their results are no longer compared)
            if not active[i]:
                actions[i] = np.flatnonzero(venv._mask[i])[0]
        rng_before = venv.arrays["rng"].copy()
        _, rewards, term, trunc, infos = venv.step(actions)
        report.steps += 1
        for i in range(batch):
            if not active[i]:
                continue
            e = envs[i]
            e.step(int(actions[i]))
            want = np.array([e.rewards[a] for a in agents], dtype=np.float32)
            if rewards[i].tobytes() != want.tobytes():
                return fail(i, f"rewards {rewards[i]} vs {want}")
            if bool(term[i]) != bool(e.game_state.terminated) or bool(trunc[i]) != bool(e.game_state.truncated):
                return fail(i, f"ends {term[i], trunc[i]} vs {e.game_state.terminated, e.game_state.truncated}")
            if term[i] or trunc[i]:
                fi = infos["final_info"]
                if not (infos["_final_obs"][i] and fi["_score"][i]):
                    return fail(i, "a finished game is not flagged in infos")
                for p, a in enumerate(agents):
                    if fi["score"][i, p] != e.infos[a]["score"] or fi["rank"][i, p] != e.infos[a]["rank"]:
                        return fail(i, f"final score/rank of {a}: {fi['score'][i, p]}, {fi['rank'][i, p]} vs {e.infos[a]}")
                    if infos["final_obs"][i, p].tobytes() != e.observe(a)["observation"].tobytes():
                        return fail(i, f"final observation of {a} differs")
                report.games += 1
                if started < games:
                    started += 1
                    fresh(i)
                else:
                    active[i] = False
                continue
            if infos["_final_obs"][i]:
                return fail(i, "a game in progress is flagged as finished")
            if venv.arrays["rng"][i] != rng_before[i]:  # the kernels drew randomness: resynchronise
                report.random_events += 1
                mine = venv.get_state(i)
                if _census(rules, mine) != _census(rules, e.game_state):
                    return fail(i, f"after a random event the cards lie elsewhere: {_census(rules, mine)[0]} vs {_census(rules, e.game_state)[0]}")
                venv.set_state(i, e.game_state.copy())
    return report
