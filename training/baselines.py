"""The baselines table (the documentation's Baselines page): each agent against copies of another in every game, with 95%
intervals.

    python -m training.baselines                     # heuristic vs random, 2000 games per game
    python -m training.baselines --agent ppo --games 1000 --out results/ppo.md
    python -m training.baselines --game golf --game hot --players 3

Each game is played in its benchmark configuration (``card_envs.<game>_v0.BENCHMARK_CONFIG``,
or the pretrained policy's configuration for ``--agent ppo``), with ``--config`` options and
``--players`` laid over it (a game that lacks such an option is left out, with a note), in
training.evaluate's field seating: ``--agent`` in one seat against copies of ``--against`` in
all the others, seats rotated, on duplicate deals; what training reports. Prints a Markdown
table (and writes it with ``--out``).
"""

from __future__ import annotations

import os
import platform
import sys
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
    from card_envs import cli

    ap = cli.Parser(prog="python -m training.baselines", description=__doc__)
    ap.add_argument("--agent", default="heuristic", help="the agent in one seat (an agent spec)")
    ap.add_argument("--against", default="random", help="the agent in all the other seats (an agent spec)")
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--game", action="append", help="only these games (repeat, or comma-separated; default: all)")
    cli.add_config_arguments(ap, "game options laid over each game's benchmark configuration")
    ap.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1))
    ap.add_argument("--out")
    ap.add_argument("--json", help="also write the measured rows, the command and the machine as JSON here "
                                   "(the documentation's Baselines page reads benchmarks/baselines_results.json)")
    ap.add_argument("--pretrained", action="store_true",
                    help="print the table of the shipped PPO policies' final evaluations (agents/pretrained/*.json)")
    args = ap.parse_args(argv)
    if args.pretrained:
        print(pretrained_table())
        return 0
    try:
        games = ([cli.game_name(g) for item in args.game for g in item.split(",") if g.strip()]
                 if args.game else list(card_envs.ENVIRONMENTS))
        extra = cli.game_options(args.config)
        if args.players is not None:
            extra["num_players"] = int(args.players)
        plan = []
        for name in games:
            missing = [k for k in extra if k not in cli.game_option_names(name)]
            if missing:
                print(f"note: {name} left out: it has no option {', '.join(missing)}", file=sys.stderr)
                continue
            cfg = {**game_config(name, args.agent), **extra}
            cli.check_game_options(name, cfg)
            plan.append((name, cfg))
        if not plan:
            raise cli.UserError(f"no game has the options {sorted(extra)}")
        rows = [
            f"| Game | Configuration | {args.agent} mean reward (95% CI) | {args.against} mean reward | "
            f"margin (95% CI) | {args.agent} sole 1st (95% CI) | shared 1st | games |",
            "|---|---|---:|---:|---:|---:|---:|---:|",
        ]
        measured = []
        for name, cfg in plan:
            result = tournament(name, [args.agent, args.against], args.games, cfg, seed=0, workers=args.workers,
                                progress=True, field=True)
            a, b = result.summary()
            p = result.pair(0, 1)
            rows.append(
                f"| `{name}` | `{cfg}` | {a['mean_reward']:+.3f} [{a['reward_low']:+.3f}, {a['reward_high']:+.3f}] | "
                f"{b['mean_reward']:+.3f} | **{p['margin']:+.3f} [{p['margin_low']:+.3f}, {p['margin_high']:+.3f}]** | "
                f"{a['win_rate']:.3f} [{a['win_rate_low']:.3f}, {a['win_rate_high']:.3f}] | "
                f"{a['shared_first_rate']:.3f} | {len(result.games)} |"
            )
            print(rows[-1], flush=True)
            measured.append({"game": name, "config": cfg, "agent": args.agent, "against": args.against,
                             "games": len(result.games), "agent_summary": a, "against_summary": b, "pair": p})
    except cli.USER_ERRORS as e:
        return cli.report(e)
    table = "\n".join(rows)
    print()
    print(table)
    print(f"\n({platform.processor() or platform.machine()}, {os.cpu_count()} cores; {args.agent} in one seat "
          f"against copies of {args.against}, seats rotated, duplicate deals)")
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(table + "\n")
    if args.json:
        import json
        import time

        record = {"command": "python -m training.baselines " + " ".join(sys.argv[1:] if argv is None else argv),
                  "machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
                             f"Python {platform.python_version()}",
                  "date": time.strftime("%Y-%m-%d %H:%M"), "rows": measured}
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(record, indent=1, default=str) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
