"""The training configuration, shared by both backends: layers, overrides, resumes.

``training/configs/default.json`` < ``training/configs/<game>.json`` < ``--config`` (JSON files
and ``KEY=VALUE`` pairs, card_envs/cli.py's convention) < flags. A run folder's ``config.json``
holds the resolved configuration; a resumed run keeps it unless ``--override-config``.

A game without its own file (a new game) trains with the defaults at its benchmark protocol's
table (``env_config`` = ``training.benchmark.protocol_table(game)``): the table its shipped policy
will be measured at. Its own file, once written, says more (rewards for training, opponents).
"""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path
from typing import Any, Sequence

from training.opponents import MIXED, check_opponent_seating, parse_opponents

CONFIG_DIR = Path(__file__).resolve().parent / "configs"
#: keys of a run's config.json that are the run's history, not its configuration
HISTORY_KEYS = ("runs", "sources")
#: what a resumed run may change without --override-config (how long and on what it runs)
RESUME_SETTINGS = ("total_timesteps", "minutes", "n_envs", "vec_env", "workers")
#: how the learner's games are stepped: on the batched engine (one process, all games at once),
#: or the single-game path (SingleAgentEnv per game, in subprocesses or in this process)
VEC_ENVS = ("batched", "subproc", "dummy")


def deep_merge(base: dict, override: dict) -> dict:
    """``override`` onto a copy of ``base``; nested dicts merge key by key."""
    out = copy.deepcopy(base)
    for k, v in override.items():
        if isinstance(v, dict) and isinstance(out.get(k), dict):
            out[k] = deep_merge(out[k], v)
        else:
            out[k] = copy.deepcopy(v)
    return out


def read_json(path: Path) -> dict:
    try:
        return json.loads(Path(path).read_text())
    except FileNotFoundError:
        raise FileNotFoundError(f"no config file at {path}") from None
    except json.JSONDecodeError as e:
        raise ValueError(f"{path} is not valid JSON: {e}") from None


def resolve_config(env_name: str, config: str | Path | dict | Sequence[str] | None = None, **flags: Any) -> dict:
    """The run's configuration: default.json < configs/<game>.json < config < flags (None = unset).

    ``config`` is a dict, a JSON file's path, or ``--config`` items (JSON files and ``KEY=VALUE``
    pairs, see :func:`config_overrides`). The result carries no ``_doc``: the files' descriptions
    describe the files, not this run; ``sources`` lists what was laid over what instead."""
    defaults = read_json(CONFIG_DIR / "default.json")
    cfg = defaults
    sources = [str(Path("training/configs/default.json"))]
    game_file = CONFIG_DIR / f"{env_name}.json"
    if game_file.is_file():
        cfg = deep_merge(cfg, read_json(game_file))
        sources.append(str(Path("training/configs") / game_file.name))
    else:
        from training.benchmark import protocol_table

        cfg = deep_merge(cfg, {"env_config": protocol_table(env_name)})
        sources.append(f"(no training/configs/{game_file.name}: the benchmark protocol's table)")
    if config is not None:
        cfg = deep_merge(cfg, config_overrides(env_name, config))
        sources += [str(c) for c in config] if isinstance(config, (list, tuple)) else [
            "(a dict)" if isinstance(config, dict) else str(config)]
    for k, v in flags.items():
        if v is not None:
            cfg[k] = v
    cfg = {k: v for k, v in cfg.items() if not k.startswith("_")}
    check_config(cfg, defaults)
    cfg["env_name"] = env_name
    cfg["sources"] = sources
    return cfg


def _training_keys() -> list[str]:
    return sorted(set(read_json(CONFIG_DIR / "default.json")) - {"_doc"} | {"rllib", "backend"})


def config_overrides(env_name: str, config: str | Path | dict | Sequence[str]) -> dict:
    """A configuration to lay over the defaults, from a dict, a JSON file, or ``--config`` items
    (JSON files and ``KEY=VALUE`` pairs, left to right; card_envs.cli's convention). A key that is
    not a training key but is an option of the game goes into ``env_config``, so
    ``--config num_players=4`` means here what it means to ``training.evaluate``; dotted keys
    reach into sections (``ppo.learning_rate=0.001``); ``opponents=random,self`` is a list. A
    run's history (``runs``, ``sources``) and ``_doc`` descriptions are left behind."""
    from card_envs import cli

    if isinstance(config, dict):
        layers = [("file", copy.deepcopy(config))]
    elif isinstance(config, (str, Path)) and "=" not in str(config):
        layers = [("file", cli.read_json_file(config))]
    else:
        layers = cli.config_items(list(config) if not isinstance(config, (str, Path)) else [str(config)])
    keys = set(_training_keys()) | {"env_name"}
    options = None
    out: dict = {}
    for kind, data in layers:
        for key, value in data.items():
            if key.startswith("_") or key in HISTORY_KEYS or key == "env_name":
                continue
            path = key.split(".") if kind == "pairs" else [key]
            if path[0] not in keys:
                options = options if options is not None else cli.game_option_names(env_name)
                if path[0] in options and len(path) == 1:
                    path = ["env_config", key]
                elif kind == "pairs":
                    raise cli.UserError(
                        f"unknown --config key {key!r}: not a training key ({', '.join(sorted(keys - {'env_name'}))}) "
                        f"nor a {env_name} option ({', '.join(options)})")
            if path == ["opponents"] and isinstance(value, str):
                value = parse_opponents(value)
            node = {path[-1]: value}
            for part in reversed(path[:-1]):
                node = {part: node}
            out = deep_merge(out, node)
    return out


def config_differences(old: dict, new: dict, prefix: str = "") -> list[str]:
    """``"key: old -> new"`` for every setting that differs (nested keys dotted)."""
    out = []
    for k in sorted(set(old) | set(new)):
        if not prefix and (k in HISTORY_KEYS or k.startswith("_")):
            continue
        a, b = old.get(k, "(unset)"), new.get(k, "(unset)")
        if isinstance(a, dict) and isinstance(b, dict):
            out += config_differences(a, b, f"{prefix}{k}.")
        elif a != b:
            out.append(f"{prefix}{k}: {json.dumps(a, default=str)} -> {json.dumps(b, default=str)}")
    return out


def resume_config(run_dir: Path, cfg: dict, changes: dict, override: bool) -> tuple[dict, list[str]]:
    """A resumed run's configuration: the run's own, with ``changes`` (from ``--config`` and
    flags) only when ``override`` (``--override-config``); otherwise changes are refused with
    the list of differences. Returns the configuration and the differences applied."""
    from card_envs.cli import UserError

    history = {k: cfg[k] for k in HISTORY_KEYS if k in cfg}
    base = {k: v for k, v in cfg.items() if k not in HISTORY_KEYS}
    new = deep_merge(base, changes)
    diffs = config_differences(base, new)
    if diffs and not override:
        raise UserError(f"{run_dir} was trained with another configuration than this command gives; it would change "
                        f"{'; '.join(diffs)}. Resume without --config (and without those flags) to continue the run "
                        "as it was, or add --override-config to apply the changes")
    if diffs:
        if cfg.get("backend") != "rllib":
            check_config(new, read_json(CONFIG_DIR / "default.json"))
    return {**new, **history}, diffs


#: the keys of the ``imitation`` section (training/imitation.py says what they mean)
IMITATION_KEYS = ("teacher", "decisions", "epochs", "batch_size", "learning_rate", "capped", "temperature")


def check_imitation(section: dict) -> None:
    """Refuse an ``imitation`` section with unknown keys or values out of range."""
    bad = sorted(set(section) - set(IMITATION_KEYS))
    if bad:
        raise ValueError(f"unknown key(s) {bad} in 'imitation'; keys: {list(IMITATION_KEYS)}")
    teacher = section.get("teacher")
    if teacher is not None and not isinstance(teacher, str):
        raise ValueError(f"imitation.teacher is an agent spec (e.g. 'heuristic') or null, got {teacher!r}")
    for key in ("decisions", "epochs", "batch_size"):
        v = section.get(key)
        if not (isinstance(v, int) and not isinstance(v, bool) and v >= 1):
            raise ValueError(f"imitation.{key} must be a whole number >= 1, got {v!r}")
    lr = section.get("learning_rate")
    if not (isinstance(lr, (int, float)) and not isinstance(lr, bool) and lr > 0):
        raise ValueError(f"imitation.learning_rate must be a number > 0, got {lr!r}")
    if not isinstance(section.get("capped", True), bool):
        raise ValueError(f"imitation.capped is true or false, got {section.get('capped')!r}")
    t = section.get("temperature")
    if t is not None and not (isinstance(t, (int, float)) and not isinstance(t, bool) and t > 0):
        raise ValueError(f"imitation.temperature is a number > 0 (fit the teacher's action values) or null "
                         f"(fit its choices), got {t!r}")
    if t is not None and teacher is None:
        raise ValueError("imitation.temperature fits a teacher's action values: name the teacher "
                         "(imitation.teacher=heuristic) or set imitation.temperature to null")


def check_config(cfg: dict, defaults: dict) -> None:
    known = set(defaults) | {"env_name", "sources"}
    unknown = sorted(k for k in cfg if k not in known and not k.startswith("_"))
    if unknown:
        raise ValueError(f"unknown config key(s) {unknown}; keys: {sorted(k for k in known if not k.startswith('_'))}")
    for section in ("selfplay", "eval", "checkpoint"):
        bad = sorted(set(cfg[section]) - set(defaults[section]))
        if bad:
            raise ValueError(f"unknown key(s) {bad} in {section!r}; keys: {sorted(defaults[section])}")
    check_imitation(cfg.get("imitation", defaults["imitation"]))
    check_opponent_seating(cfg.get("opponent_seating", MIXED))
    init = cfg.get("init_policy")
    if init is not None and not (isinstance(init, str) and init.strip()):
        raise ValueError(f"init_policy is a policy file's path (or null), got {init!r}")
    if cfg["total_timesteps"] is None and cfg["minutes"] is None:
        raise ValueError("give total_timesteps (--timesteps) or a time budget (--minutes)")
    if cfg["vec_env"] not in VEC_ENVS:
        raise ValueError(f"vec_env must be one of {', '.join(VEC_ENVS)}, got {cfg['vec_env']!r}")
    if int(cfg["n_envs"]) < 1:
        raise ValueError(f"n_envs must be at least 1, got {cfg['n_envs']}")
    if int(cfg["workers"]) < 1:
        raise ValueError(f"workers must be at least 1, got {cfg['workers']}")
    if not cfg["opponents"]:
        raise ValueError("opponents must name at least one of random, heuristic, self, ppo:PATH")
    t = cfg.get("torch_threads", 1)
    if t != "auto" and not (isinstance(t, int) and not isinstance(t, bool) and t >= 1):
        raise ValueError(f"torch_threads must be 'auto' or a whole number of threads >= 1, got {t!r}")


def torch_threads(cfg: dict) -> int:
    """The threads of the PPO update. ``"auto"`` (the default): ``OMP_NUM_THREADS`` when it is
    set (a test worker's or a shared machine's share), else every core this process may run on,
    at most: the SB3 backend then gives each update the cores other processes left free
    (:func:`adaptive_threads`, ``training/threads.py``). The update runs while the games wait, so
    on an idle machine it may take every core (two threads train about 15% faster than one on
    two cores)."""
    t = cfg.get("torch_threads", 1)
    if t != "auto":
        return int(t)
    omp = os.environ.get("OMP_NUM_THREADS", "").strip()
    if omp.isdigit() and int(omp) >= 1:
        return int(omp)
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def adaptive_threads(cfg: dict) -> bool:
    """Whether the update's threads follow the machine's load (``training/threads.py``): under
    ``"auto"`` unless ``OMP_NUM_THREADS`` fixes them."""
    omp = os.environ.get("OMP_NUM_THREADS", "").strip()
    return cfg.get("torch_threads", 1) == "auto" and not (omp.isdigit() and int(omp) >= 1)


def train_env_config(cfg: dict) -> dict:
    """The game options of the training environments: ``env_config`` with ``train_env_config``
    over it (e.g. ``{"reward_mode": "score"}`` to learn from denser rewards than the ranking the
    evaluation uses). The observation must not change."""
    return {**cfg["env_config"], **(cfg.get("train_env_config") or {})}


def check_train_env_config(cfg: dict) -> None:
    """The run's game options make a game (bad options fail here, before any work), and
    ``train_env_config`` leaves its observation as the evaluation's: only options that leave it
    alone (like reward_mode) may differ between training and evaluation."""
    module = _module(cfg["env_name"])
    spaces = []
    for options in (cfg["env_config"], train_env_config(cfg)):
        e = module.env(**options)
        spaces.append(e.observation_space(e.possible_agents[0]))
    if spaces[0] != spaces[1]:
        raise ValueError(f"train_env_config {cfg.get('train_env_config')} changes the observation: only options "
                         "that leave it alone (like reward_mode) may differ between training and evaluation")


def read_run(resume: str | Path, game: str | None) -> tuple[Path, dict]:
    """A run folder and its config.json (a folder without one, or of another game, is an error)."""
    run_dir = Path(resume)
    if not (run_dir / "config.json").is_file():
        raise FileNotFoundError(f"{run_dir} is not a run folder (no config.json)")
    cfg = json.loads((run_dir / "config.json").read_text())
    if game is not None and _module(game).raw_env.metadata["name"] != cfg["env_name"]:
        raise ValueError(f"{run_dir} trains {cfg['env_name']}, not {game}")
    return run_dir, cfg


def with_players(env_name: str, config: Any, players: int | None) -> Any:
    """``config`` with ``--players`` laid over it as ``env_config.num_players``."""
    if players is None:
        return config
    from card_envs import cli

    cli.with_players({}, players, env_name)  # a game without the option says so
    if config is None:
        return {"env_config": {"num_players": int(players)}}
    return deep_merge(config_overrides(env_name, config), {"env_config": {"num_players": int(players)}})


def requested_changes(env_name: str, config: Any, players: int | None, opponents: list[str] | None,
                      seed: int | None) -> dict:
    """What ``--config``, ``--players``, ``--opponents`` and ``--seed`` ask of a resumed run."""
    out = config_overrides(env_name, config) if config is not None else {}
    out = with_players(env_name, out, players) if players is not None else out
    if opponents is not None:
        out["opponents"] = list(opponents)
    if seed is not None:
        out["seed"] = int(seed)
    return out


def _module(game: str):
    from training.single_agent import env_module

    return env_module(game)
