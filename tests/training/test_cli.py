"""One CLI convention for train, evaluate, baselines and agents.play: game names
with or without _v0, --config as KEY=VALUE pairs or JSON files, --players, user errors as one
line with exit status 2, --resume refusing a changed configuration, run configs without _doc."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import agents
from card_envs import cli
from training import config as C
from training import evaluate as E

ROOT = Path(__file__).resolve().parents[2]


def one_error_line(capsys) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    err = [line for line in err if "tournament" not in line]  # a progress bar's lines
    assert len(err) == 1 and err[0].startswith("error: "), err
    assert "Traceback" not in err[0]
    return err[0]


# ----------------------------------------------------------------------------------- names
def test_a_game_is_named_with_or_without_its_version():
    assert cli.game_name("golf") == cli.game_name("golf_v0") == cli.game_name("Golf") == "golf_v0"
    assert cli.game_name("guillotine") == "guillotine_v0"
    with pytest.raises(cli.UserError, match="unknown game 'chess'; games: golf, fiddlesticks"):
        cli.game_name("chess")


# --------------------------------------------------------------------------------- options
def test_config_takes_key_value_pairs_and_json_files_merged_left_to_right(tmp_path):
    table = tmp_path / "table.json"
    table.write_text(json.dumps({"num_players": 3, "num_rounds": 2}))
    assert cli.game_options(["num_players=4", str(table), "num_rounds=1", "dealer=random"]) == {
        "num_players": 3, "num_rounds": 1, "dealer": "random"}
    assert cli.game_options(["public_discards=true", "x=None", "y=0.5", "z=[1, 2]"]) == {
        "public_discards": True, "x": None, "y": 0.5, "z": [1, 2]}
    run_config = tmp_path / "config.json"  # a run's config.json gives its game options
    run_config.write_text(json.dumps({"env_config": {"num_players": 2}, "ppo": {}, "_doc": "x"}))
    assert cli.game_options([str(run_config)]) == {"num_players": 2}
    with pytest.raises(cli.UserError, match="KEY=VALUE pairs or JSON file paths"):
        cli.game_options(["num_players"])
    with pytest.raises(cli.UserError, match="no config file"):
        cli.game_options([str(tmp_path / "missing.json")])


def test_agent_lists_keep_each_specs_flags():
    assert agents.split_specs("heuristic,ppo,any_table,sample,random") == ["heuristic", "ppo,any_table,sample", "random"]
    assert agents.split_specs(["heuristic", "ppo,any_table"]) == ["heuristic", "ppo,any_table"]


# --------------------------------------------------------------------------------- evaluate
@pytest.mark.parametrize("argv, says", [
    (["chess", "random", "random"], "unknown game 'chess'"),
    (["golf", "random", "bogus"], "unknown agent spec 'bogus'"),
    (["golf", "random", "random", "--config", "colour=red"], "unknown option 'colour'"),
    (["guilders", "random", "random", "--config", "good_joker=yes"], "good_joker"),
    (["guillotine", "random", "--players", "3"], "exactly 4 players"),
    (["golf", "random", "--field", "random", "heuristic"], "either the line-up"),
])
def test_evaluate_user_errors_are_one_line_and_exit_2(argv, says, capsys):
    assert E.main(argv + ["--games", "2", "--workers", "1"]) == 2
    assert says in one_error_line(capsys)


def test_a_size_mismatch_inside_a_worker_process_is_one_line_too(capsys):
    argv = ["golf_v0", "ppo,any_table", "random", "--games", "4", "--workers", "2", "--players", "4"]  # a 2-seat policy
    assert E.main(argv) == 2
    assert "observations of size" in one_error_line(capsys)


def test_the_evaluate_command_as_a_process_prints_no_traceback():
    proc = subprocess.run([sys.executable, "-m", "training.evaluate", "golf", "random", "--config", "colour=red"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert proc.stderr.strip().count("\n") == 0 and "Traceback" not in proc.stderr, proc.stderr


def test_twenty_games_all_won_print_an_interval_not_plus_minus_zero(capsys):
    # 20 games all won once printed ± 0.000; at the table the shipped Golf policy was trained on
    assert E.main(["golf_v0", "ppo,any_table", "random", "--games", "20", "--players", "2", "--workers", "1"]) == 0
    out = capsys.readouterr().out
    assert "± 0.000" not in out and "[" in out and "95% CI" in out
    assert "seating: line-up" in out and "duplicate deals" in out


def test_evaluate_field_mode_and_its_output(capsys, tmp_path):
    assert E.main(["golf", "--field", "heuristic", "random", "--players", "3", "--config", "num_rounds=1",
                   "--games", "6", "--workers", "1", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "seating: field: heuristic in one seat against 2 copies of random" in out
    assert json.loads((tmp_path / "summary.json").read_text())["seating"]["mode"] == "field"


# ---------------------------------------------------------------------------------- the table
@pytest.mark.parametrize("game", ["golf_v0", "fiddlesticks_v0", "guillotine_v0", "collector_v0", "hot_v0",
                                  "guilders_v0"])
def test_one_table_per_game_the_shipped_policy_the_training_config_and_the_commands_agree_on(game):
    import card_envs
    from training import benchmark

    table = card_envs.ENVIRONMENTS[game].BENCHMARK_CONFIG
    shipped = json.loads((ROOT / "agents" / "pretrained" / f"{game}.json").read_text())
    assert shipped["config"]["env_config"] == table, "the shipped policy was trained at the benchmark table"
    assert json.loads((ROOT / "training" / "configs" / f"{game}.json").read_text())["env_config"] == table
    assert benchmark.TABLES[game] == table
    assert cli.table_options(game) == (table, {})
    assert cli.table_options(game, ["reward_mode=score"]) == ({**table, "reward_mode": "score"}, {"reward_mode": "score"})


def test_evaluate_plays_the_benchmark_table_unless_told_and_says_so_first(capsys):
    # the README's command: the shipped PPO takes a seat at the benchmark table
    assert E.main(["golf", "ppo", "heuristic", "random", "--games", "6", "--workers", "1"]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith("table: golf_v0 num_players=2 num_rounds=1 (the benchmark table"), first
    assert E.main(["golf", "heuristic", "random", "--games", "2", "--workers", "1", "--players", "3"]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first == "table: golf_v0 num_players=3 num_rounds=1 (the benchmark table with num_players=3)", first
    # an explicit table the policy was not trained at is still refused, in one line
    assert E.main(["golf", "ppo", "random", "--games", "2", "--workers", "1", "--config", "num_players=4"]) == 2
    assert "trained on other golf_v0 options" in one_error_line(capsys)


def test_play_plays_the_benchmark_table_unless_told_and_says_so_first(capsys, monkeypatch):
    from agents import play

    import io

    monkeypatch.setattr("sys.stdin", io.StringIO("quit\n"))
    assert play.main(["hot", "--opponents", "ppo", "--seed", "1"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("table: hot_v0 num_players=2 single_deal=true (the benchmark table"), out[0]
    monkeypatch.setattr("sys.stdin", io.StringIO("quit\n"))
    assert play.main(["golf", "--players", "3", "--seed", "1"]) == 0
    assert capsys.readouterr().out.splitlines()[0].endswith("(the benchmark table with num_players=3)")


# ------------------------------------------------------------------------ play, baselines
def test_play_and_baselines_follow_the_same_convention(capsys):
    from agents import play
    from training import baselines

    assert play.main(["chess"]) == 2
    assert "unknown game" in one_error_line(capsys)
    assert play.main(["golf", "--opponents", "bogus"]) == 2
    assert "unknown agent spec" in one_error_line(capsys)
    assert play.main(["golf", "--config", "colour=red"]) == 2
    assert "unknown option 'colour'" in one_error_line(capsys)
    assert baselines.main(["--game", "chess"]) == 2
    assert "unknown game" in one_error_line(capsys)
    assert baselines.main(["--game", "golf", "--games", "4", "--workers", "1", "--players", "3"]) == 0
    out = capsys.readouterr().out
    assert "`golf_v0` | `{'num_players': 3, 'num_rounds': 1}`" in out and "against copies of random" in out


# ------------------------------------------------------------------------------------ train
@pytest.fixture
def T():
    pytest.importorskip("sb3_contrib")
    from training import train

    return train


def test_train_takes_the_same_options_and_players(T, tmp_path):
    f = tmp_path / "mine.json"
    f.write_text(json.dumps({"ppo": {"n_steps": 32}, "_doc": "my own"}))
    cfg = C.resolve_config("golf_v0", C.with_players("golf_v0", ["num_rounds=2", str(f), "ppo.batch_size=64",
                                                                  "opponents=random,self"], 3))
    assert cfg["env_config"] == {"num_players": 3, "num_rounds": 2}, "a game option goes into env_config"
    assert cfg["ppo"]["n_steps"] == 32 and cfg["ppo"]["batch_size"] == 64 and cfg["opponents"] == ["random", "self"]
    with pytest.raises(cli.UserError, match="unknown --config key 'colour'.*golf_v0 option"):
        C.resolve_config("golf_v0", ["colour=red"])


def test_a_run_config_carries_no_other_configurations_description(T):
    cfg = C.resolve_config("guilders_v0", ["num_players=5", "good_joker=true"])
    assert not any(k.startswith("_") for k in cfg), "the game file's _doc describes its 2-player config"
    assert cfg["sources"][:2] == ["training/configs/default.json", "training/configs/guilders_v0.json"]


def test_train_user_errors_are_one_line_and_exit_2(T, capsys, tmp_path):
    assert T.main(["chess", "--timesteps", "10"]) == 2
    assert "unknown game 'chess'" in one_error_line(capsys)
    assert T.main(["golf", "--timesteps", "10", "--config", "lr=3", "--out", str(tmp_path)]) == 2
    assert "unknown --config key 'lr'" in one_error_line(capsys)
    with pytest.raises(SystemExit) as e:
        T.main(["golf", "--bogus"])
    assert e.value.code == 2
    assert "unrecognized arguments: --bogus" in one_error_line(capsys)


def test_the_rllib_command_line_takes_trains_flags_and_errors(T, capsys):
    import re

    from training import rllib_backend

    def flags(main):
        with pytest.raises(SystemExit):
            main(["--help"])
        options = capsys.readouterr().out.split("options:")[-1]
        return set(re.findall(r"^ +(?:-\w, )?(--[a-z][a-z-]*)", options, re.M))

    sb3_only = {"--n-envs", "--workers", "--vec-env", "--backend"}
    rllib = flags(rllib_backend.main)
    assert {"--timesteps", "--resume", "--override-config", "--num-env-runners"} <= rllib
    assert rllib == flags(T.main) - sb3_only
    assert rllib_backend.main(["chess", "--timesteps", "10"]) == 2
    assert "unknown game 'chess'" in one_error_line(capsys)


def _fake_run(T, tmp_path) -> Path:
    run = tmp_path / "golf_v0" / "r"
    (run / "checkpoints").mkdir(parents=True)
    (run / "checkpoints" / "step_0000000010.zip").write_bytes(b"")
    cfg = C.resolve_config("golf_v0", total_timesteps=10)
    cfg["runs"] = [{"argv": []}]
    (run / "config.json").write_text(json.dumps(cfg))
    return run


def test_resume_with_a_changed_config_is_refused_with_the_differences(T, tmp_path, capsys):
    run = _fake_run(T, tmp_path)
    before = (run / "config.json").read_text()
    assert T.main(["--resume", str(run), "--config", "num_rounds=2", "ppo.n_steps=8", "--no-progress"]) == 2
    line = one_error_line(capsys)
    assert "env_config.num_rounds: 1 -> 2" in line and "ppo.n_steps: 32 -> 8" in line and "--override-config" in line
    assert T.main(["--resume", str(run), "--seed", "9", "--no-progress"]) == 2
    assert "seed: 0 -> 9" in one_error_line(capsys)
    assert (run / "config.json").read_text() == before, "a refused resume leaves the run alone"
    cfg, diffs = C.resume_config(run, json.loads(before), {"env_config": {"num_rounds": 2}}, override=True)
    assert diffs == ["env_config.num_rounds: 1 -> 2"] and cfg["env_config"]["num_rounds"] == 2
    assert cfg["runs"] == [{"argv": []}], "the run's history stays"
    same, none = C.resume_config(run, json.loads(before), {"env_config": {"num_rounds": 1}}, override=False)
    assert none == [], "repeating the run's own settings is no change"


def test_torch_threads_auto_reads_omp_num_threads_else_the_cores(monkeypatch):
    cfg = C.resolve_config("golf_v0")
    assert cfg["torch_threads"] == "auto", "the default: the update may take every core"
    monkeypatch.setenv("OMP_NUM_THREADS", "3")
    assert C.torch_threads(cfg) == 3
    monkeypatch.delenv("OMP_NUM_THREADS")
    import os

    assert C.torch_threads(cfg) == len(os.sched_getaffinity(0))
    assert C.torch_threads(C.resolve_config("golf_v0", ["torch_threads=1"])) == 1, "a number is taken as it is"
    for bad in ("torch_threads=0", "torch_threads=two", "torch_threads=true"):
        with pytest.raises(ValueError, match="torch_threads must be 'auto' or a whole number"):
            C.resolve_config("golf_v0", [bad])
