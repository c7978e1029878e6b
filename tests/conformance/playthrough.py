"""Golden playthrough transcripts (OpenSpiel's idea): a seeded random game of each environment,
written step by step with every seat's observation summary, kept under tests/playthroughs/ as a
regression net. Regenerate after an intended change with

    python -m tests.conformance.playthrough            # every environment
    python -m tests.conformance.playthrough golf_v0
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import numpy as np

import card_envs
from tests import cases

DIR = Path(__file__).resolve().parent.parent / "playthroughs"
SEED = 2026
MAX_STEPS = 400  # long games are cut: the transcript's tail then records the cut


def transcript(name: str) -> str:
    module = card_envs.ENVIRONMENTS[name]
    config = dict(cases.of(name).CONFORMANCE_CONFIGS[0])
    env = module.raw_env(**config)
    env.reset(seed=SEED)
    rng = np.random.default_rng(SEED)
    lines = [f"game: {name}", f"config: {config}", f"seed: {SEED}", ""]
    for step, agent in enumerate(env.agent_iter()):
        obs, reward, term, trunc, info = env.last()
        if term or trunc:
            lines.append(f"end {agent}: reward {env._cumulative_rewards[agent]:+.6f} info {info}")
            env.step(None)
            continue
        if step >= MAX_STEPS:
            lines.append(f"(cut after {MAX_STEPS} steps)")
            break
        legal = np.flatnonzero(obs["action_mask"])
        action = int(legal[rng.integers(len(legal))])
        lines.append(f"step {step}: {agent} plays {action} ({env.action_to_string(action)}) of {len(legal)} legal")
        for seat in env.possible_agents:
            x = env.observe(seat)["observation"]
            digest = hashlib.sha1(x.tobytes()).hexdigest()[:12]
            lines.append(f"  obs {seat}: sum {float(x.sum()):.4f} nonzero {int(np.count_nonzero(x))} sha1 {digest}")
        if step < 3:
            lines.extend("  | " + line for line in env.render_view(agent).splitlines())
        env.step(action)
    return "\n".join(lines) + "\n"


def path(name: str) -> Path:
    return DIR / f"{name}.txt"


def main(argv: list[str]) -> int:
    names = argv or list(card_envs.ENVIRONMENTS)
    DIR.mkdir(exist_ok=True)
    for name in names:
        path(name).write_text(transcript(name))
        print(f"wrote {path(name)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
