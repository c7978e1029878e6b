"""The README's baselines table: each agent against random in every game, with 95% intervals.

    python -m training.baselines                     # heuristic vs random, 2000 games per game
    python -m training.baselines --agent ppo --games 1000 --out results/ppo.md

Each game is played in its benchmark configuration (``card_envs.<game>_v0.BENCHMARK_CONFIG``,
or the pretrained policy's configuration for ``--agent ppo``) over rotated seats, the two agents
alternating around the table. Prints a Markdown table (and writes it with ``--out``).
"""

from __future__ import annotations

import argparse
import os
import platform
from pathlib import Path

import card_envs
from training.evaluate import tournament


def game_config(name: str, agent: str) -> dict:
    if agent == "ppo":
        import json

        meta = Path(__file__).resolve().parent.parent / "agents" / "pretrained" / f"{name}.json"
        if meta.exists():
            info = json.loads(meta.read_text())
            cfg = info.get("env_config", info.get("config", {}).get("env_config"))
            if cfg is not None:
                return dict(cfg)
    return dict(card_envs.ENVIRONMENTS[name].BENCHMARK_CONFIG)


def pretrained_table() -> str:
    """The shipped policies' final evaluations (1000 games against each opponent, recorded by the
    training command) as a Markdown table."""
    import json

    rows = [
        "| Game | Configuration | learner steps | training wall time | PPO vs random | PPO vs heuristic |",
        "|---|---|---:|---:|---:|---:|",
    ]
    folder = Path(__file__).resolve().parent.parent / "agents" / "pretrained"
    for name in card_envs.ENVIRONMENTS:
        meta_path = folder / f"{name}.json"
        if not meta_path.exists():
            rows.append(f"| `{name}` | — | — | — | no policy shipped | |")
            continue
        meta = json.loads(meta_path.read_text())
        final = meta.get("final_evaluation") or meta
        evals = {e["opponent"]: e for e in final["evaluation"]}
        steps = final.get("num_timesteps")
        secs = final.get("train_seconds_this_run", final.get("train_seconds"))

        def cell(opponent):
            e = evals.get(opponent)
            if not e:
                return "—"
            m, h = e["mean_reward"], e["reward_ci95"]
            verdict = "beats" if m - h > 0 else "loses to" if m + h < 0 else "ties"
            return f"{m:+.3f} ± {h:.3f} ({verdict}; win rate {e['win_rate']:.2f}, {e['games']} games)"

        cfg = meta["config"]["env_config"]
        rows.append(f"| `{name}` | `{cfg}` | {steps:,} | {secs / 60:.0f} min | {cell('random')} | {cell('heuristic')} |")
    return "\n".join(rows)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m training.baselines", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--agent", default="heuristic")
    ap.add_argument("--against", default="random")
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--game", action="append", help="only these games (default: all)")
    ap.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1))
    ap.add_argument("--out")
    ap.add_argument("--pretrained", action="store_true",
                    help="print the table of the shipped PPO policies' final evaluations (agents/pretrained/*.json)")
    args = ap.parse_args(argv)
    if args.pretrained:
        print(pretrained_table())
        return 0
    rows = [
        f"| Game | Configuration | {args.agent} mean reward | {args.against} mean reward | margin (95% CI) | "
        f"{args.agent} win rate | games |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for name in args.game or list(card_envs.ENVIRONMENTS):
        cfg = game_config(name, args.agent)
        result = tournament(name, [args.agent, args.against], args.games, cfg, seed=0, workers=args.workers, progress=True)
        a, b = result.summary()
        m, h = result.margin(0, 1)
        rows.append(
            f"| `{name}` | `{cfg}` | {a['mean_reward']:+.3f} ± {a['reward_ci95']:.3f} | "
            f"{b['mean_reward']:+.3f} ± {b['reward_ci95']:.3f} | **{m:+.3f} ± {h:.3f}** | {a['win_rate']:.3f} | "
            f"{len(result.games)} |"
        )
        print(rows[-1], flush=True)
    table = "\n".join(rows)
    print()
    print(table)
    print(f"\n({platform.processor() or platform.machine()}, {os.cpu_count()} cores)")
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(table + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
