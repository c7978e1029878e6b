"""PPO policies (trained by ``python -m training.train``) as agents.

    import agents
    a = agents.load("ppo:runs/golf_v0/20250101-120000/final.zip")   # a policy file
    r = agents.load("ppo:runs/golf_v0/20250101-120000")             # a run folder: its final.zip
    p = agents.load("ppo")            # the pretrained policy shipped for each game
    s = agents.load("ppo,sample", seed=1)   # sample from the masked policy instead of argmax
    agents.base.start_game(a, "golf_v0", {"num_players": 2, "num_rounds": 1}, "player_1")
    a.act(observation, "player_1", "golf_v0")

A policy plays any seat: observations are from the observer's seat, so the seat does not matter.
The action mask is applied at inference (illegal actions get probability 0), so a policy never
makes an illegal move. Greedy (``deterministic=True``, spec flag ``greedy``, the default) plays
the most probable legal action; ``sample`` (``deterministic=False``) samples from the masked
softmax with the agent's own generator, seeded by ``agents.load(spec, seed=...)``.

The table: a policy knows only the game it was trained on. ``start_game(env_name, config,
agent)`` (the protocol's hook, which every runner calls) compares the table's options, defaults
filled in (``agents.base.table_options``), with the options of its training table (the
``env_config`` in its metadata) and raises a ValueError naming every option that differs, with
both values; ``reward_mode`` is not compared (it changes the pay, not the game). With
``any_table`` (spec flag, or ``any_table=True``) it plays anyway. A policy file with no
recorded training options (a MaskablePPO zip saved by other code) is refused the same way:
nothing says it knows the table. Every policy shipped in ``agents/pretrained`` records its
options: Golf's was trained on ``num_players=2, num_rounds=1``, Guillotine's on
``mode="single"``, so ``agents.load("ppo")`` refuses a default Golf or Guillotine table and
``agents.load("ppo,any_table")`` plays it.

Inference runs in numpy on the CPU. A policy file is the zip that stable-baselines3 writes
(``MaskablePPO.save``), into which the harness adds two members that SB3's loader ignores:

- ``card_envs.json``: what the policy was trained on (``env_name``, ``env_config``, observation
  size, number of actions, activation, training steps, seed);
- ``card_envs_policy.npz``: the actor's weights (the policy MLP and the action head).

With both present, loading needs numpy only, not torch, and **reads data only**: the weights as
numpy arrays (``numpy.load(..., allow_pickle=False)``: an array of Python objects is refused) and
the settings as JSON. Nothing in the file can run code, so a policy someone sent loads as safely
as the shipped ones. SB3's own members (``data``, ``policy.pth``, ...) are never read here.

A zip without the two members (a MaskablePPO saved by other code) can only be read through
SB3's loader, which unpickles the ``data`` member: loading it runs whatever code the pickle
names. ``load_policy``, :class:`PPOAgent` and ``agents.load("ppo:FILE")`` refuse such a file
unless told to trust it (``trust_pickle=True`` in Python; on the command line, convert it once:
``python -m agents.ppo export SB3.zip POLICY.zip --trust-pickle`` writes a data-only copy).
Trust only a file you made yourself or got from someone you trust.

The pretrained policy for a game is ``agents/pretrained/<env_name>.zip``; a game without one
raises a FileNotFoundError that says how to train one.
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
import warnings
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

PRETRAINED_DIR = Path(__file__).resolve().parent / "pretrained"
META_MEMBER = "card_envs.json"
WEIGHTS_MEMBER = "card_envs_policy.npz"

# Activations of torch.nn that SB3 policies use, in numpy.
_ACTIVATIONS = {
    "Tanh": np.tanh,
    "ReLU": lambda x: np.maximum(x, 0.0),
    "ELU": lambda x: np.where(x > 0, x, np.expm1(np.minimum(x, 0.0))),
    "LeakyReLU": lambda x: np.where(x > 0, x, 0.01 * x),
    "SiLU": lambda x: x / (1.0 + np.exp(-x)),
    "Identity": lambda x: x,
}


_BLAS: list[Any] = []  # threadpoolctl's controller and numpy's BLAS libraries in it (or None), found once


def policy_threads():
    """The context a policy's batched forward runs in: numpy's BLAS on the cores other processes
    leave free (``card_envs.runtime.LOAD``, the load the batched engine follows, re-read at most
    every quarter second), at least one and never more than it is set to; as set (BLAS's default,
    or the program's own choice) on an idle machine, where ``threadpoolctl`` is missing, or with
    ``CARD_ENVS_FOLLOW_LOAD=0``.

    A policy's batch is tens to a thousand rows of a 256-wide network. Measured on the 2-core
    machine (``benchmarks/bench_policy_threads.py``, ``benchmarks/policy_threads_results.json``):
    beside one busy process, OpenBLAS's two threads took 2.3 ms for the Guillotine policy's
    256-row forward that one thread does in 1.3 ms (one thread descheduled mid-product, the other
    waiting for it), and a search playing the policy in its rollouts ran 23.8 ms a decision instead
    of 9.2; on the idle machine two threads were 1.4-1.9x as fast as one, so they are kept there."""
    if not _BLAS:
        try:
            from threadpoolctl import ThreadpoolController

            controller = ThreadpoolController()
            libraries = [lib for lib in controller.lib_controllers if lib.user_api == "blas"]
            _BLAS.append((controller, libraries) if libraries else None)
        except ImportError:
            _BLAS.append(None)
    from card_envs import runtime

    if _BLAS[0] is None or not runtime.FOLLOW_LOAD:
        return contextlib.nullcontext()
    controller, libraries = _BLAS[0]
    free = max(1, runtime._CORES - int(runtime.LOAD.cores() + 0.5))
    if free >= max(lib.num_threads for lib in libraries):  # the count set now (BLAS's or the program's)
        return contextlib.nullcontext()
    return controller.limit(limits=free, user_api="blas")


class MaskedPolicy:
    """The actor of a MaskablePPO MLP policy in numpy: hidden layers, then action logits.

    ``layers`` is a list of ``(weight, bias)`` with weight shaped (out, in), as torch stores it;
    the activation follows every hidden layer, not the action head.
    """

    def __init__(self, layers: list[tuple[np.ndarray, np.ndarray]], head: tuple[np.ndarray, np.ndarray],
                 activation: str = "Tanh"):
        if activation not in _ACTIVATIONS:
            raise ValueError(f"activation {activation!r} is not supported; supported: {sorted(_ACTIVATIONS)}")
        self.activation = activation
        self._act = _ACTIVATIONS[activation]
        # Stored transposed (in, out) so a forward pass is x @ W + b.
        self.layers = [(np.ascontiguousarray(w.T, dtype=np.float32), np.asarray(b, np.float32)) for w, b in layers]
        self.head = (np.ascontiguousarray(head[0].T, dtype=np.float32), np.asarray(head[1], np.float32))
        self.obs_size = self.layers[0][0].shape[0] if self.layers else self.head[0].shape[0]
        self.num_actions = self.head[0].shape[1]

    def logits(self, x: np.ndarray) -> np.ndarray:
        """Unmasked action logits of one observation vector (or a batch, one per row). A batch is
        multiplied on the BLAS threads the machine's load leaves (:func:`policy_threads`)."""
        h = np.asarray(x, dtype=np.float32)
        if h.ndim == 1 or len(h) < 2:
            return self._forward(h)
        with policy_threads():
            return self._forward(h)

    def _forward(self, h: np.ndarray) -> np.ndarray:
        for w, b in self.layers:
            h = self._act(h @ w + b)
        return h @ self.head[0] + self.head[1]

    def choose(self, x: np.ndarray, mask: np.ndarray, deterministic: bool = True,
               rng: np.random.Generator | None = None) -> int:
        """A legal action: the most probable one, or a sample from the masked softmax (one
        game's :meth:`choose_batch`, so a policy plays the same alone and in a batch)."""
        legal = np.asarray(mask).astype(bool)
        if not legal.any():
            raise ValueError("no legal action: the mask is all zeros (act() is only for the agent to act)")
        if deterministic:  # one row: the same argmax, without a batch's reshaping and float64 copy
            return int(np.where(legal, self.logits(x), -np.inf).argmax())
        return int(self.choose_batch(np.asarray(x, dtype=np.float32)[None], legal[None], deterministic, rng)[0])

    def choose_batch(self, x: np.ndarray, masks: np.ndarray, deterministic: bool = True,
                     rng: np.random.Generator | None = None) -> np.ndarray:
        """``(k,)`` legal actions for ``k`` observations (rows of ``x``) and their masks: the
        argmax of the masked logits, or samples from the masked softmax (float64), one uniform
        number per row from ``rng`` by inverse CDF — as ``rng.choice(A, p=p)`` draws for one row."""
        legal = np.asarray(masks).astype(bool)
        z = np.where(legal, self.logits(x).astype(np.float64), -np.inf)
        if deterministic:
            return np.argmax(z, axis=1)
        z -= z.max(axis=1, keepdims=True)
        p = np.exp(z)
        p /= p.sum(axis=1, keepdims=True)
        cdf = np.cumsum(p, axis=1)
        cdf /= cdf[:, -1:]
        rng = rng if rng is not None else np.random.default_rng()
        u = rng.random(len(cdf))
        return np.minimum((cdf <= u[:, None]).sum(axis=1), cdf.shape[1] - 1)

    # ------------------------------------------------------------------ to and from files
    def arrays(self) -> dict[str, np.ndarray]:
        out = {}
        for i, (w, b) in enumerate(self.layers):
            out[f"layer{i}_weight"], out[f"layer{i}_bias"] = w.T, b
        out["head_weight"], out["head_bias"] = self.head[0].T, self.head[1]
        return out

    @classmethod
    def from_arrays(cls, arrays: Any, activation: str) -> "MaskedPolicy":
        n = sum(1 for k in arrays.keys() if k.startswith("layer") and k.endswith("_weight"))
        layers = [(arrays[f"layer{i}_weight"], arrays[f"layer{i}_bias"]) for i in range(n)]
        return cls(layers, (arrays["head_weight"], arrays["head_bias"]), activation)

    @classmethod
    def from_sb3(cls, policy: Any) -> "MaskedPolicy":
        """Copy the actor of an SB3 ActorCriticPolicy (MLP, flattened Box observation)."""
        import torch.nn as nn
        from stable_baselines3.common.torch_layers import FlattenExtractor

        extractor = getattr(policy, "pi_features_extractor", None) or policy.features_extractor
        if not isinstance(extractor, FlattenExtractor):
            raise ValueError(f"only MLP policies on flat observations are supported, not {type(extractor).__name__}")
        layers, activation = [], None
        for module in policy.mlp_extractor.policy_net:
            if isinstance(module, nn.Linear):
                layers.append((_np(module.weight), _np(module.bias)))
            else:
                name = type(module).__name__
                if name not in _ACTIVATIONS or (activation is not None and name != activation):
                    raise ValueError(f"unsupported layer {name} in the policy network")
                activation = name
        head = policy.action_net
        return cls(layers, (_np(head.weight), _np(head.bias)), activation or "Identity")


def copy_actor(policy: "MaskedPolicy", sb3_policy: Any) -> None:
    """Write ``policy``'s actor (hidden layers and action head) into an SB3 ``ActorCriticPolicy``
    of the same shape and activation, which then plays as ``policy`` does; its value network is
    left as it is. A ValueError names the first difference."""
    import torch
    import torch.nn as nn

    linears = [m for m in sb3_policy.mlp_extractor.policy_net if isinstance(m, nn.Linear)]
    acts = {type(m).__name__ for m in sb3_policy.mlp_extractor.policy_net if not isinstance(m, nn.Linear)}
    mine = [(w.T, b) for w, b in policy.layers]
    if len(linears) != len(mine) or any(tuple(l.weight.shape) != w.shape for l, (w, _) in zip(linears, mine)):
        raise ValueError(f"the policy's hidden layers {[w.shape[0] for w, _ in mine]} differ from the network's "
                         f"{[l.out_features for l in linears]}: give ppo.policy_kwargs.net_arch the policy's sizes")
    if mine and acts != {policy.activation}:
        raise ValueError(f"the policy's activation {policy.activation} differs from the network's {sorted(acts)}")
    head = sb3_policy.action_net
    if tuple(head.weight.shape) != policy.head[0].T.shape:
        raise ValueError(f"the policy's action head {policy.head[0].T.shape} differs from the network's "
                         f"{tuple(head.weight.shape)} (another game or table)")
    with torch.no_grad():
        for layer, (w, b) in zip(linears + [head], mine + [(policy.head[0].T, policy.head[1])]):
            layer.weight.copy_(torch.as_tensor(np.ascontiguousarray(w)))
            layer.bias.copy_(torch.as_tensor(b))


def _np(t: Any) -> np.ndarray:
    return t.detach().cpu().numpy().astype(np.float32)


# --------------------------------------------------------------------------- policy files
def _with_table_options(meta: dict) -> dict:
    """The metadata plus ``table_options``: the training table's options with every default
    filled in, as a record a reader can compare by eye (the agent compares ``env_config``)."""
    if meta.get("env_name") and meta.get("env_config") is not None and "table_options" not in meta:
        from agents.base import table_options

        try:
            meta = dict(meta, table_options=table_options(meta["env_name"], meta["env_config"]))
        except ValueError:
            pass
    return meta


def add_card_envs_members(path: str | Path, policy: MaskedPolicy, meta: dict) -> None:
    """Add ``card_envs.json`` and the numpy actor to an SB3 zip (replacing earlier ones)."""
    path = Path(path)
    meta = dict(_with_table_options(meta), obs_size=policy.obs_size, num_actions=policy.num_actions,
                activation=policy.activation)
    buf = io.BytesIO()
    np.savez(buf, **policy.arrays())
    with zipfile.ZipFile(path) as z:
        kept = [(i, z.read(i.filename)) for i in z.infolist() if i.filename not in (META_MEMBER, WEIGHTS_MEMBER)]
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for info, data in kept:
            z.writestr(info, data)
        z.writestr(META_MEMBER, json.dumps(meta, indent=2, sort_keys=True, default=str))
        z.writestr(WEIGHTS_MEMBER, buf.getvalue())


def save_model(model: Any, path: str | Path, meta: dict) -> Path:
    """``model.save(path)`` plus the card_envs members, so the file is also an agent."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    model.save(path)
    if path.suffix != ".zip":  # SB3 appends .zip when missing
        path = path.with_name(path.name + ".zip")
    add_card_envs_members(path, MaskedPolicy.from_sb3(model.policy), meta)
    return path


def read_metadata(path: str | Path) -> dict:
    """The ``card_envs.json`` of a policy file ({} when it has none)."""
    with zipfile.ZipFile(path) as z:
        if META_MEMBER not in z.namelist():
            return {}
        return json.loads(z.read(META_MEMBER))


#: the largest data member a policy file may hold, unpacked (a zip bomb is refused unread)
MAX_MEMBER_BYTES = 512 * 1024 * 1024


def load_policy(path: str | Path, trust_pickle: bool = False) -> tuple[MaskedPolicy, dict]:
    """The actor and metadata of a policy file, read as data: the ``card_envs.json`` settings and
    the ``card_envs_policy.npz`` weights (no pickle). A zip holding only SB3's pickled members is
    refused with a ValueError that says how to convert it, unless ``trust_pickle`` (then SB3's
    loader reads it, running whatever code its pickle names)."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no policy file at {path}")
    try:
        with zipfile.ZipFile(path) as z:
            names = z.namelist()
            if META_MEMBER in names and WEIGHTS_MEMBER in names:
                return _read_data_members(path, z)
    except zipfile.BadZipFile as e:
        raise ValueError(f"{path} is not a policy file (not a zip)") from e
    if not trust_pickle:
        raise ValueError(
            f"{path} has no card_envs data members ({META_MEMBER}, {WEIGHTS_MEMBER}): it is a stable-baselines3 "
            "zip, which can only be read by unpickling it, and a pickle can run any code. If you trust the file, "
            f"convert it once: python -m agents.ppo export {path} POLICY.zip --trust-pickle "
            "(in Python: load_policy(path, trust_pickle=True))"
        )
    from sb3_contrib import MaskablePPO  # a MaskablePPO zip saved by other code, trusted by the caller

    model = MaskablePPO.load(path, device="cpu")
    return MaskedPolicy.from_sb3(model.policy), {}


def _read_data_members(path: Path, z: zipfile.ZipFile) -> tuple[MaskedPolicy, dict]:
    for name in (META_MEMBER, WEIGHTS_MEMBER):
        if z.getinfo(name).file_size > MAX_MEMBER_BYTES:
            raise ValueError(f"{path}: member {name} unpacks to more than {MAX_MEMBER_BYTES} bytes; not a policy file")
    try:
        meta = json.loads(z.read(META_MEMBER))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as e:
        raise ValueError(f"{path}: {META_MEMBER} is not JSON ({type(e).__name__})") from None
    if not isinstance(meta, dict):
        raise ValueError(f"{path}: {META_MEMBER} must hold a JSON object")
    activation = meta.get("activation", "Tanh")
    if activation not in _ACTIVATIONS:
        raise ValueError(f"{path}: activation {activation!r} is not supported; supported: {sorted(_ACTIVATIONS)}")
    try:
        with np.load(io.BytesIO(z.read(WEIGHTS_MEMBER)), allow_pickle=False) as arrays:
            return MaskedPolicy.from_arrays(arrays, activation), meta
    except (ValueError, KeyError, OSError, zipfile.BadZipFile) as e:
        # allow_pickle=False refuses an array of Python objects (a pickle) with a ValueError
        raise ValueError(f"{path}: {WEIGHTS_MEMBER} is not a policy's weights (numeric arrays): "
                         f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}") from None


def export_policy(src: str | Path, dst: str | Path, trust_pickle: bool = False, **extra_meta: Any) -> Path:
    """A small agent-only copy of a policy file: just ``card_envs.json`` and the numpy actor
    (what ``agents/pretrained`` ships; not loadable by SB3 for further training). A source with
    only SB3's pickled members needs ``trust_pickle`` (see :func:`load_policy`)."""
    policy, meta = load_policy(src, trust_pickle=trust_pickle)
    return write_policy_file(dst, policy, {**meta, **extra_meta})


def write_policy_file(dst: str | Path, policy: MaskedPolicy, meta: dict) -> Path:
    """An agent-only policy file (``card_envs.json`` and the numpy actor) from a MaskedPolicy."""
    meta = _with_table_options(dict(meta))
    dst = Path(dst)
    dst.parent.mkdir(parents=True, exist_ok=True)
    buf = io.BytesIO()
    np.savez_compressed(buf, **policy.arrays())
    with zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr(META_MEMBER, json.dumps(dict(meta, obs_size=policy.obs_size, num_actions=policy.num_actions,
                                                activation=policy.activation), indent=2, sort_keys=True, default=str))
        z.writestr(WEIGHTS_MEMBER, buf.getvalue())
    return dst


def shipped() -> list[str]:
    """Names of the games with a pretrained policy in ``agents/pretrained``."""
    return sorted(p.stem for p in PRETRAINED_DIR.glob("*.zip"))


# ---------------------------------------------------------------------------------- agent
def resolve_policy_file(path: str | Path) -> Path:
    """The policy file a ``ppo:PATH`` names: a policy ``.zip`` itself, or a training run folder's
    ``final.zip`` (a run that never finished: its newest ``checkpoints/step_*.zip``, with a
    warning that says so)."""
    p = Path(path).expanduser()
    if p.is_file():
        return p
    if p.is_dir():
        if (p / "final.zip").is_file():
            return p / "final.zip"
        ckpts = sorted((p / "checkpoints").glob("step_*.zip"))
        if ckpts:
            warnings.warn(f"{p} has no final.zip (the run did not finish): playing its newest "
                          f"checkpoint {ckpts[-1]}", stacklevel=3)
            return ckpts[-1]
        raise FileNotFoundError(
            f"{p} is a folder with no final.zip and no checkpoints/step_*.zip: give a policy file "
            "(ppo:RUN/final.zip) or a training run folder (ppo:runs/<game>/<run>)"
        )
    raise FileNotFoundError(f"no policy file at {p} (give a policy .zip or a training run folder)")


class PPOAgent:
    """A trained PPO policy playing any seat, the action mask applied.

    ``path=None`` takes the pretrained policy of whichever game it is asked about
    (``agents/pretrained/<env_name>.zip``); a path is a policy file or a training run folder.
    ``deterministic`` (default True: argmax) or sampling; ``any_table`` skips the comparison of
    the table's options with the training options in :meth:`start_game` (a table whose
    observations or actions have another size than the policy's is refused all the same: the
    policy cannot read it). ``trust_pickle``: also read a file holding only SB3's pickled
    members (see :func:`load_policy`; never for a file you did not make or cannot trust).
    """

    name = "ppo"

    def __init__(self, path: str | Path | None = None, deterministic: bool = True, seed: int | None = None,
                 any_table: bool = False, trust_pickle: bool = False):
        self.path = None if path is None else resolve_policy_file(path)
        self.deterministic = bool(deterministic)
        self.any_table = bool(any_table)
        self.rng = np.random.default_rng(seed)
        self._policies: dict[str, tuple[MaskedPolicy, dict]] = {}
        self._tables_ok: set[tuple[str, str]] = set()
        self._fixed: tuple[MaskedPolicy, dict] | None = None
        self._base = "ppo" if path is None else f"ppo:{path}"
        if self.path is not None:
            self._fixed = load_policy(self.path, trust_pickle=trust_pickle)
        self.name = self.spec()

    @classmethod
    def from_policy(cls, policy: Any, meta: dict | None = None, deterministic: bool = True,
                    seed: int | None = None, name: str = "ppo", any_table: bool = False) -> "PPOAgent":
        """An agent from a MaskedPolicy or a live SB3 policy (copied: later training does not
        change it). ``meta`` should carry ``env_name`` and ``env_config`` (the training table's
        options): without ``env_config``, :meth:`start_game` refuses every table unless
        ``any_table``."""
        if not isinstance(policy, MaskedPolicy):
            policy = MaskedPolicy.from_sb3(policy)
        agent = cls.__new__(cls)
        agent.path, agent.deterministic, agent.rng = None, bool(deterministic), np.random.default_rng(seed)
        agent.any_table = bool(any_table)
        agent._policies, agent._fixed, agent._tables_ok = {}, (policy, dict(meta or {})), set()
        agent._base = agent.name = name
        return agent

    def spec(self) -> str:
        """The agent's spec (``agents.load``'s form), its non-default flags included."""
        flags = ([] if self.deterministic else ["sample"]) + (["any_table"] if self.any_table else [])
        return ",".join([self._base] + flags)

    def seed(self, seed: int | None) -> None:
        self.rng = np.random.default_rng(seed)

    def policy_file(self, env_name: str) -> Path | None:
        """The policy file this agent plays ``env_name`` with (None for a policy given as an
        object): what a report should record beside the spec."""
        if self.path is not None:
            return self.path
        if self._fixed is not None:
            return None
        return PRETRAINED_DIR / f"{env_name}.zip"

    def policy_for(self, env_name: str) -> tuple[MaskedPolicy, dict]:
        if self._fixed is not None:
            policy, meta = self._fixed
            trained = meta.get("env_name")
            if trained and trained != env_name:
                raise ValueError(f"{self.name} was trained on {trained}, not {env_name}")
            return policy, meta
        if env_name not in self._policies:
            path = PRETRAINED_DIR / f"{env_name}.zip"
            if not path.is_file():
                have = ", ".join(shipped()) or "none yet"
                raise FileNotFoundError(
                    f"no pretrained PPO policy is shipped for {env_name} (shipped: {have}); train one with "
                    f"`python -m training.train {env_name}` and load it with agents.load('ppo:runs/.../final.zip')"
                )
            self._policies[env_name] = load_policy(path)
        return self._policies[env_name]

    # ------------------------------------------------------------------ the protocol's hooks
    def start_game(self, env_name: str, config: dict | None, agent: str | None = None) -> None:
        """Refuse (ValueError) a table whose options differ from the policy's training options,
        naming each differing option with both values, unless ``any_table``."""
        policy, meta = self.policy_for(env_name)  # the wrong game, or no shipped policy, fails here
        key = (env_name, json.dumps(dict(config or {}), sort_keys=True, default=repr))
        if key in self._tables_ok:
            return
        file = self.policy_file(env_name)
        who = f"the PPO policy {file}" if file is not None else f"the PPO policy {self.name!r}"
        if self.any_table:
            _check_sizes(who, policy, env_name, config)
        else:
            from agents.base import check_training_table

            hint = f"{self._base},any_table" if file is not None or self._base.startswith("ppo") else "any_table=True"
            check_training_table(who, env_name, config, meta, hint)
        self._tables_ok.add(key)

    def end_game(self, observation: dict, reward: float, info: dict) -> None:
        """A frozen policy learns nothing from a result."""

    def act(self, observation: dict, agent: str, env_name: str) -> int:
        policy, meta = self.policy_for(env_name)
        x = observation["observation"]
        if len(x) != policy.obs_size:
            config = meta.get("env_config", "unknown")
            raise ValueError(
                f"{self.name} takes {env_name} observations of size {policy.obs_size} (it was trained with "
                f"options {config}), got size {len(x)}: the table's configuration differs"
            )
        return policy.choose(x, observation["action_mask"], self.deterministic, self.rng)


def _check_sizes(who: str, policy: MaskedPolicy, env_name: str, config: dict | None) -> None:
    """A ValueError unless the table's observations and actions have the policy's sizes (a policy
    played at any table still reads only vectors of the size it was trained on)."""
    import card_envs

    options = {k: v for k, v in dict(config or {}).items() if k != "render_mode"}
    raw = card_envs.ENVIRONMENTS[env_name].raw_env(**options)
    obs, actions = raw.observation_layout.size, int(raw.action_space(raw.possible_agents[0]).n)
    if (obs, actions) != (policy.obs_size, policy.num_actions):
        raise ValueError(f"{who} cannot play this {env_name} table even with any_table: it reads observations of "
                         f"size {policy.obs_size} and {policy.num_actions} actions, the table has {obs} and {actions}")


def publish_run(run_dir: str | Path, command: str, note: str, dst_dir: str | Path = PRETRAINED_DIR) -> list[Path]:
    """Ship a finished training run as ``agents.load("ppo")``'s policy for its game: the small
    policy file, its evaluation curve, and a JSON of the command, the configuration and the final
    evaluation (what ``python -m training.baselines --pretrained`` tabulates)."""
    run = Path(run_dir)
    config = json.loads((run / "config.json").read_text())
    name = config["env_name"]
    dst = Path(dst_dir)
    out = [export_policy(run / "final.zip", dst / f"{name}.zip", note=f"{command} ({note})")]
    curve = dst / f"{name}.eval.csv"
    curve.write_text((run / "eval.csv").read_text())
    meta = {
        "command": command,
        "note": note,
        "final_evaluation": json.loads((run / "final_eval.json").read_text()),
        "config": config,
        "learning_curve": curve.name,
    }
    meta_path = dst / f"{name}.json"
    meta_path.write_text(json.dumps(meta, indent=1, default=str) + "\n")
    return out + [curve, meta_path]


def main(argv: list[str] | None = None) -> int:
    """``python -m agents.ppo export RUN/final.zip agents/pretrained/<env_name>.zip [--trust-pickle]``;
    ``python -m agents.ppo publish RUN_DIR --command "..."`` (ships a run as the pretrained policy)."""
    import argparse

    ap = argparse.ArgumentParser(prog="python -m agents.ppo", description="PPO policy files")
    sub = ap.add_subparsers(dest="cmd", required=True)
    ex = sub.add_parser("export", help="write the small agent-only policy file (as agents/pretrained ships)")
    ex.add_argument("src")
    ex.add_argument("dst")
    ex.add_argument("--note", help="free text stored in the metadata (e.g. the command that trained it)")
    ex.add_argument("--trust-pickle", action="store_true",
                    help="read a zip that holds only SB3's pickled members (unpickling runs code: only for a "
                         "file you trust); the copy written is data only")
    info = sub.add_parser("info", help="print a policy file's metadata")
    info.add_argument("path")
    pub = sub.add_parser("publish", help="ship a run folder as its game's pretrained policy (agents/pretrained)")
    pub.add_argument("run_dir")
    pub.add_argument("--command", required=True, help="the command that trained it (recorded)")
    pub.add_argument("--note", default="trained on the project's 2-core machine; a time-bounded run, so the step count depends on the machine")
    pub.add_argument("--dst", default=str(PRETRAINED_DIR))
    args = ap.parse_args(argv)
    if args.cmd == "export":
        extra = {"note": args.note} if args.note else {}
        try:
            print(export_policy(args.src, args.dst, trust_pickle=args.trust_pickle, **extra))
        except (ValueError, FileNotFoundError) as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
    elif args.cmd == "publish":
        for path in publish_run(args.run_dir, args.command, args.note, args.dst):
            print(path)
    else:
        try:
            print(json.dumps(load_policy(args.path)[1], indent=2))
        except (ValueError, FileNotFoundError) as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
