"""Compile the batched engine's kernels for the given games into numba's cache (CI, before the
tests): the two pytest workers would otherwise compile the same kernels at once on a clean clone.
One thread and two (both drivers), every step kind (moves, waits, finished games' new deals);
for Guilders also the heuristic's compiled odds (card_envs/guilders/odds_kernels.py), for Golf,
Fiddlesticks, Collector and Hot the heuristic's compiled twin (choose_rows)."""

import importlib
import sys

import numba
import numpy as np

import card_envs
from card_envs import vector

for game in sys.argv[1:]:
    module = card_envs.ENVIRONMENTS[f"{game}_v0"]
    for threads in (1, min(2, numba.config.NUMBA_NUM_THREADS)):
        numba.set_num_threads(threads)
        venv = module.vector_env(num_envs=vector.PARALLEL_MIN_ROWS + 16, **module.BENCHMARK_CONFIG)
        venv.reset(seed=0)
        venv.observe(np.zeros(venv.num_envs, dtype=np.int64))
        for step in range(200):
            actions = venv.sample_actions().copy()
            actions[step % 5 :: 5] = vector.WAIT
            venv.step(actions)
    heuristic = importlib.import_module(f"agents.heuristics.{game}")
    if hasattr(heuristic, "choose_rows"):  # the heuristic's compiled twin (batched training, search)
        heuristic.choose_rows(venv.arrays, np.arange(venv.num_envs), np.zeros(venv.num_envs, dtype=np.int64), venv._mask)
    if game == "guilders":  # a count with a face-down rank miss runs the whole programme
        from card_envs.guilders import odds

        unseen = np.ones(odds.NUM_CARDS, dtype=np.int64)
        unseen[52:] = 0
        misses = np.zeros(odds.JOKER_CALL + 1, dtype=np.int64)
        misses[4] = 1
        odds.draw_probabilities(unseen, misses, False)
    print(f"kernels of {game} compiled", flush=True)
