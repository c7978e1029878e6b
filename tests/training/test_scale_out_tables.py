"""The scale-out throughput shown in the README and the scale-out guide is the recorded benchmark
(``benchmarks/scale_out_results.json``, written by ``benchmarks/bench_scale_out.py``), and every
game was measured on both paths with the RLlib path at half the SB3 path's rate or more; the
guide's quality table is the recorded one (``benchmarks/scale_out_quality.json``), where the
RLlib path's policy is no worse than the SB3 path's."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

import card_envs

ROOT = Path(__file__).resolve().parents[2]
GAMES = list(card_envs.ENVIRONMENTS)


def _bench():
    spec = importlib.util.spec_from_file_location("bench_scale_out", ROOT / "benchmarks" / "bench_scale_out.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("page", ["README.md", "docs/guides/scale_out.md"])
def test_the_pages_show_the_recorded_throughput(page):
    bench = _bench()
    results = json.loads(bench.OUT.read_text())
    text = (ROOT / page).read_text()
    shown = text.split(bench.START, 1)[1].split(bench.END, 1)[0]
    assert shown.strip() == bench.table(results).strip(), "run python benchmarks/bench_scale_out.py --readme"


@pytest.mark.parametrize("game", GAMES)
def test_every_game_was_measured_side_by_side_and_the_rllib_path_keeps_half_the_rate(game):
    results = json.loads((ROOT / "benchmarks" / "scale_out_results.json").read_text())
    by = {(r["game"], r["path"]): r for r in results["rows"]}
    if (game, "sb3") not in by and (game, "rllib-batched-2") not in by:
        pytest.skip(f"{game} has no scale-out measurement recorded yet: python benchmarks/bench_scale_out.py "
                    "(every registered game, rewriting benchmarks/scale_out_results.json; then --readme)")
    sb3, rllib = by[(game, "sb3")], by[(game, "rllib-batched-2")]
    assert sb3["steps_per_second"] > 0
    assert rllib["steps_per_second"] >= 0.5 * sb3["steps_per_second"], game
    assert 0 < rllib["env_runner_timers"]["env_share"] <= 1


def test_the_table_says_what_was_not_measured():
    bench = _bench()
    rows = [{"game": "golf_v0", "path": "sb3", "steps_per_second": 100.0, "ratio_to_sb3": 1.0},
            {"game": "golf_v0", "path": "rllib-batched-2", "steps_per_second": 60.0, "ratio_to_sb3": 0.6,
             "env_runner_timers": {"env_share": 0.5, "update_ceiling_steps_per_s": 90.0}},
            {"game": "hot_v0", "path": "sb3", "steps_per_second": 80.0, "ratio_to_sb3": 1.0}]
    md = bench.table({"rows": rows})
    assert "| `golf_v0` | 100 | 60 (0.60×) | 50% | 90 |" in md
    assert "| `hot_v0` | 80 | not measured | – | – |" in md


def test_the_guide_shows_the_recorded_quality_and_the_rllib_policy_is_no_worse():
    bench = _bench()
    quality = json.loads(bench.QUALITY_OUT.read_text())
    text = (ROOT / "docs" / "guides" / "scale_out.md").read_text()
    shown = text.split(bench.QUALITY_START, 1)[1].split(bench.QUALITY_END, 1)[0]
    assert shown.strip() == bench.quality_table(quality).strip(), "run python benchmarks/bench_scale_out.py --readme"
    assert quality["deals"] >= 1000
    by = {(r["game"], r["path"]): {e["opponent"]: e for e in r["evaluation"]} for r in quality["rows"]}
    games = {g for g, _ in by}
    assert "golf_v0" in games and len(games) >= 2
    for game in games:
        sb3, rllib = by[(game, "sb3")], by[(game, "rllib-batched-2")]
        for opponent in ("random", "heuristic"):
            assert rllib[opponent]["deals"] >= 1000
            # no worse: the RLlib policy's mean is not below the SB3 policy's 95% interval
            assert rllib[opponent]["mean_reward"] >= sb3[opponent]["reward_low"], (game, opponent)
