"""The compiled twin of the Collector/Hot heuristic (``agents/heuristics/collector.py``
``choose_rows``, the search agents' heuristic rollouts on the batched engine) makes, in every
game of a batch, the choice ``choose`` makes from the acting player's view."""

from __future__ import annotations

import numpy as np
import pytest

import card_envs
from agents.heuristics import collector as heuristic
from card_envs.vector import WAIT

CONFIGS = [
    ("collector_v0", {}),
    ("collector_v0", {"num_players": 4, "hand_size": 10, "max_rounds": 25}),
    ("hot_v0", {}),
    ("hot_v0", {"num_players": 3, "hand_size": 8, "target_points": 5}),
    ("hot_v0", {"num_players": 3, "hand_size": 12, "contest_fallback": "nothing", "max_rounds_per_deal": 15}),
]


@pytest.mark.parametrize("name,config", CONFIGS)
def test_the_compiled_heuristic_chooses_what_the_heuristic_chooses(name, config):
    module = card_envs.ENVIRONMENTS[name]
    env = module.raw_env(**config)
    v = module.vector_env(num_envs=16, **config)
    obs, _ = v.reset(seed=7)
    rng = np.random.default_rng(3)
    out = np.full(16, -7, dtype=np.int64)
    rows = np.arange(16)
    checked, took, duplicates = 0, 0, 0
    for _ in range(120):
        out[:] = -7
        heuristic.choose_rows(v.arrays, rows, out)
        for g in range(16):
            state = v.kernels.dump(v.arrays, g)
            seat = state.current_player
            mask = obs["action_mask"][g]
            want = heuristic.choose(env.view_of(state, seat), mask, env.rules, rng)
            assert out[g] == want, (name, config, g, state.phase)
            assert mask[out[g]]
            checked += 1
            took += int(want > heuristic.DRAW_TWO)
            duplicates += int(want < heuristic.TAKE_BASE and state.counts[seat][want] >= 2)
        # half the games follow the heuristic, the rest move at random (more kinds of positions)
        acts = v.sample_actions(rng).copy()
        acts[::2] = out[::2]
        obs, *_ = v.step(acts)
    assert checked == 120 * 16
    assert took > 50 and duplicates > 50  # both kinds of choice were compared


def test_rows_not_listed_are_left_alone():
    v = card_envs.hot_v0.vector_env(num_envs=4)
    v.reset(seed=0)
    out = np.full(4, WAIT, dtype=np.int64)
    heuristic.choose_rows(v.arrays, np.array([1, 3]), out)
    assert out[0] == WAIT and out[2] == WAIT and out[1] != WAIT and out[3] != WAIT


GOLF_CONFIGS = [
    {},
    {"num_players": 2, "num_rounds": 1},
    {"num_players": 3, "flip_after_discard": "may", "num_rounds": 3},
    {"num_players": 5, "flip_after_discard": "must", "turn_up_discard": False, "num_rounds": 2},
    {"num_players": 2, "initial_flips": 0, "final_turns": False, "max_turns_per_round": 30},
]


N, STEPS = 48, 300


@pytest.mark.parametrize("config", GOLF_CONFIGS)
def test_the_compiled_golf_heuristic_chooses_what_the_heuristic_chooses(config):
    """Golf's twin (``agents/heuristics/golf.py`` ``choose_rows``) against ``choose`` of the acting
    player's view in every game of a batch, in every phase: its unseen mean and expected layouts
    are the same floats, so even the ties break the same way."""
    from agents.heuristics import golf

    env = card_envs.golf_v0.raw_env(**config)
    v = card_envs.golf_v0.vector_env(num_envs=N, **config)
    obs, _ = v.reset(seed=11)
    rng = np.random.default_rng(5)
    out = np.full(N, -7, dtype=np.int64)
    rows = np.arange(N)
    phases: dict[str, int] = {}
    took = 0
    for _ in range(STEPS):
        out[:] = -7
        golf.choose_rows(v.arrays, rows, out, obs["action_mask"])
        for g in range(N):
            state = v.kernels.dump(v.arrays, g)
            seat = state.current_player
            mask = obs["action_mask"][g]
            view = env.view_of(state, seat)
            want = golf.choose(view, mask, env.rules, rng)
            assert out[g] == want, (config, g, view.phase)
            assert mask[out[g]]
            phases[view.phase] = phases.get(view.phase, 0) + 1
            took += int(want == golf.TAKE_DISCARD)
        # half the games follow the heuristic, the rest move at random (more kinds of positions)
        acts = v.sample_actions(rng).copy()
        acts[::2] = out[::2]
        obs, *_ = v.step(acts)
    assert {"draw", "place"} <= set(phases) and took > 20, (phases, took)
    if config.get("flip_after_discard", "never") != "never":
        assert phases.get("flip_step", 0) > 20, phases
    if config.get("initial_flips", 2):
        assert phases.get("flip", 0) > 0, phases


def test_the_golf_twin_needs_the_mask():
    from agents.heuristics import golf

    v = card_envs.golf_v0.vector_env(num_envs=2)
    v.reset(seed=0)
    with pytest.raises(ValueError, match="legal mask"):
        golf.choose_rows(v.arrays, np.arange(2), np.zeros(2, dtype=np.int64), None)


FIDDLESTICKS_CONFIGS = [
    {},
    {"num_players": 2, "num_decks": 1},
    {"num_players": 3, "num_decks": 3, "four_in_a_row_clears": False},
    {"num_players": 4, "voluntary_pickup": True, "end_mode": "rank_all"},
]


@pytest.mark.parametrize("config", FIDDLESTICKS_CONFIGS)
def test_the_compiled_fiddlesticks_heuristic_chooses_what_the_heuristic_chooses(config):
    """Fiddlesticks' twin (``agents/heuristics/fiddlesticks.py`` ``choose_rows``) against
    ``choose`` of the acting player's view in every game of a batch: swaps, plays (completing
    fours, ordinary ranks, 10s and 2s), blind plays and pick-ups."""
    from agents.heuristics import fiddlesticks as heuristic

    env = card_envs.fiddlesticks_v0.raw_env(**config)
    k_max = 4 * env.rules.config.num_decks
    v = card_envs.fiddlesticks_v0.vector_env(num_envs=N, **config)
    obs, _ = v.reset(seed=13)
    rng = np.random.default_rng(6)
    out = np.full(N, -7, dtype=np.int64)
    rows = np.arange(N)
    kinds = {"swap": 0, "ordinary": 0, "wild": 0, "four": 0, "blind": 0, "other": 0}
    for _ in range(200):
        out[:] = -7
        heuristic.choose_rows(v.arrays, rows, out, obs["action_mask"])
        for g in range(N):
            state = v.kernels.dump(v.arrays, g)
            if state.current_player < 0:
                continue
            mask = obs["action_mask"][g]
            view = env.view_of(state, state.current_player)
            want = heuristic.choose(view, mask, env.rules, rng)
            assert out[g] == want, (config, g)
            assert mask[out[g]]
            if want >= 13 * k_max:
                kinds["swap" if want < 13 * k_max + 13 else "blind" if want < 13 * k_max + 16 else "other"] += 1
            else:
                r, k = divmod(want, k_max)
                if r in (heuristic.TWO, heuristic.TEN):
                    kinds["wild"] += 1
                elif view.pile_top == r and view.pile_run + k + 1 >= 4:
                    kinds["four"] += 1
                else:
                    kinds["ordinary"] += 1
        acts = v.sample_actions(rng).copy()
        acts[::2] = out[::2]
        obs, *_ = v.step(acts)
    assert all(kinds[k] > 0 for k in ("swap", "ordinary", "wild", "four", "blind")), kinds


def test_every_heuristic_plays_without_numba():
    """The heuristics need only the core dependencies (numpy): their compiled twins live in
    ``agents/heuristics/compiled`` and are imported only where the batched engine runs. Every
    heuristic written plays a whole game in a process where numba cannot be imported (as in an
    install without the ``vector`` extra, e.g. the RLlib backend's)."""
    import subprocess
    import sys

    code = (
        "import sys; sys.modules['numba'] = None\n"
        "import card_envs, agents\n"
        "from agents.base import start_game\n"
        "from training.opponents import heuristic_available\n"
        "for name, module in card_envs.ENVIRONMENTS.items():\n"
        "    if not heuristic_available(name): continue\n"
        "    env = module.raw_env(); env.reset(seed=1)\n"
        "    h = agents.load('heuristic')\n"
        "    for a in env.possible_agents: start_game(h, name, {}, a)\n"
        "    for agent in env.agent_iter(20000):\n"
        "        obs, _, term, trunc, _ = env.last()\n"
        "        env.step(None if term or trunc else h.act(obs, agent, name))\n"
        "    assert not env.agents, name\n"
        "    print('played', name)\n"
        "assert 'numba' not in [m for m in sys.modules if sys.modules[m] is not None]\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-3000:]
    from training.opponents import heuristic_available

    assert out.stdout.count("played") == sum(heuristic_available(name) for name in card_envs.ENVIRONMENTS) >= 6
