"""Self-play: frozen copies of the learner, taken every so often, join the opponent pool.

A snapshot is the learner's actor copied into numpy (``agents.ppo.MaskedPolicy``), saved as
``<run>/snapshots/self_<steps>.npz`` and sent to every environment of the vectorized batch
(``env_method("add_snapshot", ...)``, so it works across subprocesses). Opponents drawn as
``"self"`` play one of the last ``pool_size`` snapshots, sampling from their masked policy
(not its argmax) so that the learner meets varied play. The first snapshot is taken when
training starts, so ``"self"`` always has someone to play; a resumed run reloads its snapshots.
A frozen self is a PPOAgent whose training options are the run's own table
(``SingleAgentEnv.add_snapshot`` records them), so the protocol's ``start_game`` check, which
every opponent gets before a game, passes at the table it was trained on.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from stable_baselines3.common.callbacks import BaseCallback

from agents.ppo import MaskedPolicy


def save_snapshot(policy: MaskedPolicy, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez(path, activation=np.array(policy.activation), **policy.arrays())


def load_snapshot(path: Path) -> MaskedPolicy:
    with np.load(path) as arrays:
        return MaskedPolicy.from_arrays(arrays, str(arrays["activation"]))


def load_snapshots(folder: Path, pool_size: int) -> list[tuple[str, MaskedPolicy]]:
    """The last ``pool_size`` snapshots saved in ``folder`` (oldest first)."""
    paths = sorted(Path(folder).glob("self_*.npz"))[-pool_size:] if Path(folder).is_dir() else []
    return [(p.stem, load_snapshot(p)) for p in paths]


class SnapshotCallback(BaseCallback):
    """Every ``every`` steps, freeze the learner into the opponent pool of every environment."""

    def __init__(self, every: int, folder: Path, pool_size: int, verbose: int = 0):
        super().__init__(verbose)
        self.every = int(every)
        self.folder = Path(folder)
        self.pool_size = int(pool_size)
        self._last = 0

    def _on_training_start(self) -> None:
        existing = load_snapshots(self.folder, self.pool_size)
        for name, policy in existing:
            self.training_env.env_method("add_snapshot", name, policy)
        self._last = self.num_timesteps
        if not existing:
            self.snapshot()

    def _on_step(self) -> bool:
        if self.num_timesteps - self._last >= self.every:
            self.snapshot()
        return True

    def snapshot(self) -> str:
        name = f"self_{self.num_timesteps:010d}"
        policy = MaskedPolicy.from_sb3(self.model.policy)
        save_snapshot(policy, self.folder / f"{name}.npz")
        self.training_env.env_method("add_snapshot", name, policy)
        self._last = self.num_timesteps
        self.logger.record("selfplay/snapshots", len(list(self.folder.glob("self_*.npz"))))
        (self.folder / "latest.json").write_text(json.dumps({"latest": name, "steps": self.num_timesteps}))
        return name
