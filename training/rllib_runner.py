"""An RLlib env runner for the batched engine: whole arrays from the engine to the episodes.

RLlib's ``SingleAgentEnvRunner`` steps any gymnasium vector env, but it handles each sub-env of
every step in Python: its env-to-module and module-to-env connector pipelines split the batch
into one item per game and join it again, and each game's step is appended to an episode object
one value at a time. With 256 games of the batched engine per runner that bookkeeping cost
several times the engine's own work (profiled: about 70% of the runner's time in Golf).

:class:`BatchedEnvRunner` keeps RLlib's runner for everything else (building the env and the
module, weight syncs, state, metrics) and replaces only its sampling loop for the batched
engine: each step is one batched forward of the module on the observation arrays, the actions
drawn from the module's own action distribution (the masked logits), and one
:meth:`training.rllib_batched.BatchedVectorEnv.step`; the arrays are kept per step, and at the
end of ``sample()`` each game's stretch of decisions is gathered into one :class:`PackedEpisodes`
(the sample's chunks end to end: a few arrays, cheap to send, where a few hundred episode
objects cost more to unpickle than the sample took to play). The data are exactly those RLlib's
runner would record: observations (the terminal observation last for a finished game), actions,
rewards, ``action_logp`` and ``action_dist_inputs``; :meth:`PackedEpisodes.episodes` gives them
as RLlib's episode objects. :class:`EpisodesToTrainBatch`, the learner connector, turns the
samples into PPO's train batch (GAE, value bootstrap) in whole arrays, the same batch as RLlib's
default PPO pipeline builds from those episodes.

RLlib's API stack for this (links followed):
https://docs.ray.io/en/latest/rllib/env-runners.html (custom ``env_runner_cls``),
https://docs.ray.io/en/latest/rllib/single-agent-episode.html (episodes built from data),
https://docs.ray.io/en/latest/rllib/connector-v2.html (the learner connector pipeline).
"""

from __future__ import annotations

import uuid

import numpy as np

from training.rllib_batched import MASK, OBS

__all__ = ["BatchedEnvRunner", "PackedEpisodes", "AdaptiveThreadsPPOLearner", "EpisodesToTrainBatch"]


def _within(lens: np.ndarray) -> np.ndarray:
    """For chunks of ``lens`` items laid end to end, each item's position within its chunk."""
    return np.arange(int(lens.sum())) - np.repeat(np.cumsum(lens) - lens, lens)


def _base():
    from ray.rllib.env.single_agent_env_runner import SingleAgentEnvRunner

    return SingleAgentEnvRunner


class PackedEpisodes:
    """One sample of a :class:`BatchedEnvRunner`: its episode chunks' data end to end, as arrays.

    RLlib's runners return one ``SingleAgentEpisode`` object per chunk; a few hundred of them per
    sample cost more to unpickle in the learner's process than the sample took to play (their
    spaces and buffers are rebuilt one by one). This holds the same data as a handful of arrays:
    chunk ``i`` has ``lens[i]`` decisions (``actions``, ``rewards``, ``logp``, ``logits``,
    ``seq_no`` rows ``starts[i]:starts[i] + lens[i]``) and ``lens[i] + 1`` observations (``obs``
    and ``masks`` rows ``obs_starts[i]:...``, the last one the observation after its last
    decision: the terminal one for a finished game). ``rows`` and ``t_started`` say which game of
    the runner and which decision of its episode the chunk starts at. RLlib counts it through
    ``len()`` (its decisions); :meth:`episodes` gives RLlib's episode objects of the same data."""

    def __init__(self, *, obs, masks, actions, rewards, logp, logits, seq_no, lens, terminated, truncated,
                 rows, t_started):
        self.obs, self.masks, self.actions, self.rewards = obs, masks, actions, rewards
        self.logp, self.logits, self.seq_no = logp, logits, seq_no
        self.lens, self.terminated, self.truncated = lens, terminated, truncated
        self.rows, self.t_started = rows, t_started

    @property
    def starts(self) -> np.ndarray:
        return np.cumsum(self.lens) - self.lens

    @property
    def obs_starts(self) -> np.ndarray:
        return np.cumsum(self.lens + 1) - (self.lens + 1)

    def __len__(self) -> int:
        return int(self.lens.sum())

    def env_steps(self) -> int:
        return len(self)

    def agent_steps(self) -> int:
        return len(self)

    @staticmethod
    def concatenate(packs: list["PackedEpisodes"]) -> "PackedEpisodes":
        if len(packs) == 1:
            return packs[0]
        cat = {k: np.concatenate([getattr(p, k) for p in packs]) for k in
               ("obs", "masks", "actions", "rewards", "logp", "logits", "seq_no", "lens", "terminated",
                "truncated", "rows", "t_started")}
        return PackedEpisodes(**cat)

    @staticmethod
    def from_episodes(episodes) -> "PackedEpisodes":
        """RLlib's single-agent episodes (any that have decisions) packed the same way."""
        from ray.rllib.core.columns import Columns
        from ray.rllib.utils.metrics import WEIGHTS_SEQ_NO

        episodes = [e for e in episodes if len(e) > 0]
        lens = [len(e) for e in episodes]

        def cat(get):
            return np.concatenate([np.asarray(get(e, n)) for e, n in zip(episodes, lens)])

        def model(key, dtype=None):
            return cat(lambda e, n: (e.get_extra_model_outputs(key, slice(0, n))
                                     if key in e.extra_model_outputs else np.zeros(n, dtype)))

        observations = [e.get_observations(slice(0, n + 1)) for e, n in zip(episodes, lens)]
        return PackedEpisodes(
            obs=np.concatenate([o[OBS] for o in observations]), masks=np.concatenate([o[MASK] for o in observations]),
            actions=cat(lambda e, n: e.get_actions(slice(0, n))),
            rewards=cat(lambda e, n: e.get_rewards(slice(0, n))).astype(np.float32),
            logp=model(Columns.ACTION_LOGP), logits=model(Columns.ACTION_DIST_INPUTS),
            seq_no=model(WEIGHTS_SEQ_NO, np.int64), lens=np.array(lens, dtype=np.int64),
            terminated=np.array([e.is_terminated for e in episodes]),
            truncated=np.array([e.is_truncated for e in episodes]),
            rows=np.zeros(len(lens), dtype=np.int64), t_started=np.array([e.t_started for e in episodes]))

    def episodes(self, observation_space=None, action_space=None) -> list:
        """The chunks as RLlib's numpy ``SingleAgentEpisode`` objects (a continued chunk keeps its
        game's episode id); for RLlib's own tools and the tests."""
        from ray.rllib.core.columns import Columns
        from ray.rllib.env.single_agent_episode import SingleAgentEpisode
        from ray.rllib.env.utils.infinite_lookback_buffer import InfiniteLookbackBuffer as Buffer
        from ray.rllib.utils.metrics import WEIGHTS_SEQ_NO

        out, ids = [], {}
        for i, (a, o, n) in enumerate(zip(self.starts.tolist(), self.obs_starts.tolist(), self.lens.tolist())):
            row = int(self.rows[i])
            if self.t_started[i] == 0 or row not in ids:
                ids[row] = uuid.uuid4().hex
            out.append(SingleAgentEpisode(
                id_=ids[row],
                observations=Buffer({OBS: self.obs[o:o + n + 1], MASK: self.masks[o:o + n + 1]}, 0, observation_space),
                infos=Buffer([{} for _ in range(n + 1)]),
                actions=Buffer(self.actions[a:a + n], 0, action_space), rewards=Buffer(self.rewards[a:a + n]),
                extra_model_outputs={Columns.ACTION_LOGP: Buffer(self.logp[a:a + n]),
                                     Columns.ACTION_DIST_INPUTS: Buffer(self.logits[a:a + n]),
                                     WEIGHTS_SEQ_NO: Buffer(self.seq_no[a:a + n])},
                terminated=bool(self.terminated[i]), truncated=bool(self.truncated[i]),
                t_started=int(self.t_started[i]), len_lookback_buffer=0,
                observation_space=observation_space, action_space=action_space))
            if self.terminated[i] or self.truncated[i]:
                del ids[row]
        return out


class BatchedEnvRunner(_base()):
    """``SingleAgentEnvRunner`` whose ``sample(num_timesteps=...)`` steps a
    :class:`~training.rllib_batched.BatchedVectorEnv` with whole arrays and returns one
    :class:`PackedEpisodes` (module docstring). Episode-count sampling and random actions fall
    back to RLlib's own loop (and its episode objects)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._rows_need_reset = True
        self._rows_obs = None  # the observation each game's learner decides on next
        self._rows_t = None  # decisions of each game's episode already returned in earlier samples
        self._rows_return = None  # and their rewards (the episode metrics)

    # ------------------------------------------------------------------------- sampling
    def _sample(self, *, num_timesteps=None, num_episodes=None, explore, random_actions=False, force_reset=False):
        if num_timesteps is None or random_actions or self.module is None:
            self._rows_need_reset = True  # RLlib's loop resets the games: ours restart after it
            return super()._sample(num_timesteps=num_timesteps, num_episodes=num_episodes, explore=explore,
                                   random_actions=random_actions, force_reset=True)
        import torch
        from ray.rllib.core.columns import Columns
        from ray.rllib.env.env_runner import ENV_STEP_TIMER
        from ray.rllib.utils.metrics import RLMODULE_INFERENCE_TIMER

        env = self.env.unwrapped
        n = env.num_envs
        if force_reset or self._rows_need_reset:
            self._reset_rows(env)
        module = self.module
        dist_cls = (module.get_exploration_action_dist_cls() if explore
                    else module.get_inference_action_dist_cls())
        observations, masks, actions, logps, logits, rewards, dones, ended, stepped = ([] for _ in range(9))
        obs = self._rows_obs
        ts = 0
        while ts < num_timesteps:
            held = env.held_rows()  # games whose step only deals the next game (their action is unused)
            with self.metrics.log_time(RLMODULE_INFERENCE_TIMER), torch.no_grad():
                batch = {Columns.OBS: {OBS: torch.from_numpy(obs[OBS]), MASK: torch.from_numpy(obs[MASK])}}
                out = module.forward_exploration(batch) if explore else module.forward_inference(batch)
                dist = dist_cls.from_logits(out[Columns.ACTION_DIST_INPUTS])
                if not explore:
                    dist = dist.to_deterministic()
                a = dist.sample()
                logp = dist.logp(a)
            a_np = a.numpy()
            with self.metrics.log_time(ENV_STEP_TIMER):
                nxt, r, term, trunc, _ = env.step(a_np)
            observations.append(obs[OBS])
            masks.append(obs[MASK])
            actions.append(a_np)
            logps.append(logp.numpy())
            logits.append(out[Columns.ACTION_DIST_INPUTS].numpy())
            rewards.append(r)
            dones.append(term | trunc)
            ended.append(term)
            stepped.append(~held)
            ts += int(n - held.sum())
            obs = nxt
        observations.append(obs[OBS])
        masks.append(obs[MASK])
        self._rows_obs = obs
        packed = self._pack(np.stack(observations), np.stack(masks), np.stack(actions), np.stack(logps),
                            np.stack(logits), np.stack(rewards), np.stack(dones), np.stack(ended), np.stack(stepped))
        finished = self._log_finished_games(packed)
        self._log_env_steps(metric=self._metrics_num_env_steps_sampled, num_steps=ts)
        self._increase_sampled_metrics(ts, finished)
        return [packed]

    def _reset_rows(self, env) -> None:
        obs, _ = env.reset(seed=self._seed if self._needs_initial_reset else None)
        self._needs_initial_reset = False
        self._rows_need_reset = False
        self._rows_obs = obs
        self._rows_t = np.zeros(env.num_envs, dtype=np.int64)
        self._rows_return = np.zeros(env.num_envs, dtype=np.float64)

    def _pack(self, observations, masks, actions, logps, logits, rewards, dones, ended, stepped) -> PackedEpisodes:
        """Each game's runs of decisions (``stepped``, ending where its game ended or at the end of
        this sample) end to end, game by game. Arrays are ``(T, N, ...)``, observations
        ``(T + 1, N, ...)``: the observation after a game's last decision is its terminal one."""
        steps = stepped.shape[0]
        on = stepped.T  # (N, T): a game's decisions are contiguous between its ends
        done = dones.T & on
        before = np.zeros_like(on)
        before[:, 1:] = on[:, :-1] & ~done[:, :-1]
        after = np.zeros_like(on)
        after[:, :-1] = on[:, 1:]
        first = np.flatnonzero(on & ~before)  # (game, step) in game-major order
        last = np.flatnonzero(on & (done | ~after))
        games, a, b = first // steps, first % steps, last % steps
        lens = b - a + 1
        t, g = np.repeat(a, lens) + _within(lens), np.repeat(games, lens)  # the decisions
        obs_t, obs_g = np.repeat(a, lens + 1) + _within(lens + 1), np.repeat(games, lens + 1)  # and the one after
        game_done = dones[b, games]
        terminated = game_done & ended[b, games]
        # only a game's first run here may continue its episode from the last sample
        first_of_game = np.r_[True, games[1:] != games[:-1]] if len(games) else np.zeros(0, bool)
        t_started = np.where(first_of_game, self._rows_t[games], 0)
        packed = PackedEpisodes(
            obs=observations[obs_t, obs_g], masks=masks[obs_t, obs_g], actions=actions[t, g],
            rewards=rewards[t, g].astype(np.float32), logp=logps[t, g], logits=logits[t, g],
            seq_no=np.full(len(t), self._weights_seq_no, dtype=np.int64), lens=lens,
            terminated=terminated, truncated=game_done & ~terminated, rows=games, t_started=t_started)
        # where each game's episode stands for the next sample: its last run here, continued or ended
        last_of_game = np.r_[games[1:] != games[:-1], True] if len(games) else np.zeros(0, bool)
        self._rows_t[games[last_of_game]] = np.where(game_done[last_of_game], 0,
                                                     t_started[last_of_game] + lens[last_of_game])
        return packed

    def _log_finished_games(self, packed: PackedEpisodes) -> int:
        """RLlib's episode metrics (length, return) of the games that ended in this sample."""
        returns = np.add.reduceat(packed.rewards, packed.starts) if len(packed.lens) else np.zeros(0)
        finished = 0
        for i, g in enumerate(packed.rows.tolist()):
            self._rows_return[g] += returns[i]
            if packed.terminated[i] or packed.truncated[i]:
                length = int(packed.t_started[i] + packed.lens[i])
                self._log_episode_metrics(length, float(self._rows_return[g]), 0.0)
                self._rows_return[g] = 0.0
                finished += 1
        return finished



def _learner_base():
    from ray.rllib.algorithms.ppo.torch.ppo_torch_learner import PPOTorchLearner

    return PPOTorchLearner


class AdaptiveThreadsPPOLearner(_learner_base()):
    """RLlib's PPO learner whose update takes the cores other processes left free during the last
    one (``torch_threads: "auto"``, :class:`training.threads.AdaptiveThreads`). RLlib's PPO
    samples and then updates, one after the other: while the learner updates, the env runners
    wait, so on an idle machine the update may take every core, and with a core held by another
    process it drops to the rest (torch's spinning threads collapse on a taken core).
    ``learner_config_dict["adaptive_threads"]`` is the most it takes (0: leave torch's threads)."""

    def build(self) -> None:
        super().build()
        from training.threads import AdaptiveThreads

        cores = int((self.config.learner_config_dict or {}).get("adaptive_threads", 0))
        self._threads = AdaptiveThreads(cores) if cores > 0 else None

    def update(self, *args, **kwargs):
        if self._threads is None:
            return super().update(*args, **kwargs)
        import torch

        torch.set_num_threads(self._threads.begin())
        try:
            return super().update(*args, **kwargs)
        finally:
            self._threads.end()



def _connector_base():
    from ray.rllib.connectors.connector_v2 import ConnectorV2

    return ConnectorV2


class EpisodesToTrainBatch(_connector_base()):
    """The learner connector of a batched-engine run: PPO's train batch from the env runners'
    samples in whole arrays, the same batch as RLlib's default PPO learner pipeline
    (``AddOneTsToEpisodesAndTruncate``, the default pieces, ``GeneralAdvantageEstimation``)
    builds one episode and one item at a time (``tests/distributed/test_rllib_runner.py``
    compares them):

    - each episode chunk of ``L`` decisions gives ``L + 1`` rows: its decisions, then an
      artificial row (its last observation, the last action and model outputs repeated, reward 0,
      ``loss_mask`` False) whose value bootstraps a chunk cut before its game ended;
    - ``terminateds`` / ``truncateds`` mark the last decision (a chunk cut short is truncated);
    - the critic runs once over all rows; GAE (RLlib's own ``compute_value_targets``) gives the
      value targets, the advantages are the targets minus the values, standardised over the batch.

    It takes :class:`PackedEpisodes` (the batched runner's samples) and RLlib's single-agent
    episodes alike (packed first)."""

    def __init__(self, input_observation_space=None, input_action_space=None, *, gamma: float, lambda_: float):
        super().__init__(input_observation_space, input_action_space)
        self.gamma, self.lambda_ = float(gamma), float(lambda_)

    def __call__(self, *, rl_module, batch, episodes, explore=None, shared_data=None, **kwargs):
        import torch
        import tree
        from ray.rllib.core import DEFAULT_MODULE_ID
        from ray.rllib.core.columns import Columns
        from ray.rllib.evaluation.postprocessing import Postprocessing
        from ray.rllib.utils.metrics import WEIGHTS_SEQ_NO
        from ray.rllib.utils.postprocessing.value_predictions import compute_value_targets

        packs = [e for e in episodes if isinstance(e, PackedEpisodes)]
        others = [e for e in episodes if not isinstance(e, PackedEpisodes)]
        if others:
            packs.append(PackedEpisodes.from_episodes(others))
        p = PackedEpisodes.concatenate(packs)
        lens = p.lens
        rows = lens + 1  # the decisions, then the artificial row
        total = int(rows.sum())
        pos = _within(rows)  # the row within its chunk
        length = np.repeat(lens, rows)
        source = np.repeat(p.starts, rows) + np.minimum(pos, length - 1)  # the artificial row repeats the last
        real = pos < length
        last = np.cumsum(rows) - 2  # each chunk's last decision
        rewards = np.where(real, p.rewards[source], np.float32(0.0)).astype(np.float32)
        terminateds = np.zeros(total, dtype=np.bool_)
        truncateds = np.zeros(total, dtype=np.bool_)
        terminateds[last] = p.terminated
        truncateds[last] = ~p.terminated  # truncated, or cut short (bootstrapped either way)
        columns = {
            Columns.OBS: {OBS: p.obs, MASK: p.masks},
            Columns.ACTIONS: p.actions[source],
            Columns.REWARDS: rewards,
            Columns.TERMINATEDS: terminateds,
            Columns.TRUNCATEDS: truncateds,
            Columns.LOSS_MASK: real,
            Columns.ACTION_LOGP: p.logp[source],
            Columns.ACTION_DIST_INPUTS: p.logits[source],
            WEIGHTS_SEQ_NO: p.seq_no[source],
        }
        tensors = tree.map_structure(lambda a: torch.from_numpy(np.ascontiguousarray(a)), columns)
        module = rl_module[DEFAULT_MODULE_ID]
        with torch.no_grad():
            values = module.compute_values(tensors).numpy().astype(np.float32)
        targets = compute_value_targets(values=values, rewards=rewards, terminateds=terminateds.astype(np.float32),
                                        truncateds=truncateds.astype(np.float32), gamma=self.gamma,
                                        lambda_=self.lambda_)
        advantages = targets - values
        advantages = (advantages - advantages.mean()) / max(1e-4, advantages.std())
        tensors[Postprocessing.ADVANTAGES] = torch.from_numpy(np.ascontiguousarray(advantages))
        tensors[Postprocessing.VALUE_TARGETS] = torch.from_numpy(np.ascontiguousarray(targets))
        if shared_data is not None:
            shared_data["_added_loss_mask_for_valid_episode_ts"] = True
        return {DEFAULT_MODULE_ID: tensors}

