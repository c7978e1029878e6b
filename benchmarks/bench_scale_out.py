"""Learner throughput of the scale-out path against the default SB3 path, side by side in one run.

    python benchmarks/bench_scale_out.py                                  # every game, 120 s per path
    python benchmarks/bench_scale_out.py --games golf_v0 --seconds 60 --rllib-python /path/to/venv/bin/python
    python benchmarks/bench_scale_out.py --engines batched aec --runners 1 2
    python benchmarks/bench_scale_out.py --table                          # the written results, as markdown
    python benchmarks/bench_scale_out.py --table --quality                # the quality results, as markdown
    python benchmarks/bench_scale_out.py --readme                         # both into the README and the guide

For each game, one after the other in this run, each path trains from scratch with the game's
own configuration (``training/configs``) for the same wall time, through the training command as
a user runs it (a fresh process each):

- ``sb3``: ``python -m training.train GAME`` (MaskablePPO on the batched engine);
- ``rllib-<engine>-<n>``: ``python -m training.train GAME --backend rllib --num-env-runners n
  --config rllib.engine=<engine>`` (``batched``: the env runners step the batched engine;
  ``aec``: one Python ``env()`` per game as RLlib's MultiAgentEnv).

Evaluation during training and the imitation warm start are off in every path (they are not
learner throughput); the final evaluation is skipped. Reported per path: learner steps/s (the
run's own ``steps_per_second``: its learner's decisions over its training time), the ratio to
``sb3``, and for RLlib the env runners' timers (``env_share``: the environment's share of
stepping plus inference). The RLlib path runs in ``--rllib-python`` (a virtualenv holding the
``distributed`` extra; default this interpreter). Results go to
``benchmarks/scale_out_results.json``.

``--quality DEALS`` measures what the same minutes train instead: each path's final policy
against random and the heuristic over DEALS duplicate deals (training's final evaluation, field
seating), written to ``benchmarks/scale_out_quality.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # this checkout's card_envs and training, run from anywhere

import card_envs  # noqa: E402

OUT = ROOT / "benchmarks" / "scale_out_results.json"
QUALITY_OUT = ROOT / "benchmarks" / "scale_out_quality.json"
GAMES = list(card_envs.ENVIRONMENTS)  # every registered game
#: off in every path: evaluation during training, the final evaluation, the warm start
QUIET = ["eval.every=1000000000000", "eval.games=2", "eval.final_games=0", "imitation.teacher=null"]


def seats(game: str) -> int:
    """The number of seats at the game's training table (its configuration)."""
    import card_envs
    from training.config import resolve_config

    cfg = resolve_config(game, None)
    return len(getattr(card_envs, game).env(**cfg["env_config"]).possible_agents)


def quality_config(game: str, deals: int) -> list[str]:
    """No evaluation during training, no warm start, the final evaluation over ``deals``
    duplicate deals (one game per seat rotation each) against the evaluation's opponents (random
    and the heuristic)."""
    return ["eval.every=1000000000000", "eval.games=2", f"eval.final_games={deals * seats(game)}",
            "imitation.teacher=null"]


def run_path(python: str, game: str, seconds: float, extra: list[str], config: list[str], out: Path,
             quiet: list[str] = QUIET) -> dict:
    """One training run through the command; its ``final_eval.json`` summary."""
    cmd = [python, "-m", "training.train", game, "--minutes", f"{seconds / 60:.4f}", "--no-progress",
           "--out", str(out), *extra, "--config", *config, *quiet]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    began = time.monotonic()
    done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{done.stderr[-3000:]}")
    runs = sorted((out / game).glob("*/final_eval.json"), key=lambda p: p.stat().st_mtime)
    summary = json.loads(runs[-1].read_text())
    summary["wall_seconds"] = round(time.monotonic() - began, 1)
    return summary


def table(results: dict) -> str:
    """The results as a markdown table: per game, each path's learner steps/s and ratio to SB3,
    and for RLlib the environment's share of a sampling step and the update's ceiling."""
    paths = list(dict.fromkeys(r["path"] for r in results["rows"]))
    ceilings = any("update_ceiling_steps_per_s" in (r.get("env_runner_timers") or {}) for r in results["rows"])
    head = "| game | " + " | ".join(f"`{p}` steps/s" for p in paths) + " | env share |"
    head += " update ceiling |" if ceilings else ""
    lines = [head, "|---|" + "---:|" * (len(paths) + 1 + ceilings)]
    for game in dict.fromkeys(r["game"] for r in results["rows"]):
        rows = {r["path"]: r for r in results["rows"] if r["game"] == game}
        cells = []
        for p in paths:
            r = rows.get(p)
            if r is None or r["steps_per_second"] is None:
                cells.append("not measured")
            elif p == "sb3":
                cells.append(f"{r['steps_per_second']:,.0f}")
            else:
                cells.append(f"{r['steps_per_second']:,.0f} ({r['ratio_to_sb3']:.2f}×)")
        timers = next((r.get("env_runner_timers") for p, r in rows.items() if p != "sb3" and r.get("env_runner_timers")),
                      None) or {}
        share = f"{timers['env_share']:.0%}" if "env_share" in timers else "–"
        ceiling = f"{timers['update_ceiling_steps_per_s']:,.0f}" if "update_ceiling_steps_per_s" in timers else "–"
        lines.append(f"| `{game}` | " + " | ".join(cells) + f" | {share} |" + (f" {ceiling} |" if ceilings else ""))
    return "\n".join(lines)


def quality_table(results: dict) -> str:
    """``--quality`` results as a markdown table: per game and path, the learner steps of the same
    minutes and the final policy's mean reward (95% interval) against each opponent."""
    opponents = list(dict.fromkeys(e["opponent"] for r in results["rows"] for e in r.get("evaluation", [])))
    lines = ["| game | path | learner steps | " + " | ".join(f"vs `{o}`" for o in opponents) + " |",
             "|---|---|---:|" + "---:|" * len(opponents)]
    for r in results["rows"]:
        by = {e["opponent"]: e for e in r.get("evaluation", [])}
        cells = [f"{by[o]['mean_reward']:+.3f} [{by[o]['reward_low']:+.3f}, {by[o]['reward_high']:+.3f}]"
                 if o in by else "not measured" for o in opponents]
        lines.append(f"| `{r['game']}` | `{r['path']}` | {r['timesteps']:,} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


#: the pages showing the tables, between these markers (rewritten by ``--readme``)
PAGES = [ROOT / "README.md", ROOT / "docs" / "guides" / "scale_out.md"]
START, END = "<!-- scale-out: python benchmarks/bench_scale_out.py --table -->", "<!-- scale-out end -->"
QUALITY_START = "<!-- scale-out quality: python benchmarks/bench_scale_out.py --table --quality -->"
QUALITY_END = "<!-- scale-out quality end -->"


def _replace(text: str, start: str, end: str, body: str) -> str:
    if start not in text:
        return text
    head, rest = text.split(start, 1)
    _, tail = rest.split(end, 1)
    return head + start + "\n" + body + "\n" + end + tail


def update_pages(results: dict, quality: dict | None = None, pages=PAGES) -> None:
    """Rewrite the tables between the markers of every page from the written results."""
    for page in pages:
        text = _replace(page.read_text(), START, END, table(results))
        if quality is not None:
            text = _replace(text, QUALITY_START, QUALITY_END, quality_table(quality))
        page.write_text(text)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", nargs="+", default=GAMES)
    ap.add_argument("--seconds", type=float, default=120.0, help="training wall time per path (default 120)")
    ap.add_argument("--engines", nargs="+", default=["batched"], choices=["batched", "aec"])
    ap.add_argument("--runners", nargs="+", type=int, default=[2], help="env runner counts to measure (default 2)")
    ap.add_argument("--rllib-python", default=sys.executable, help="the interpreter with the distributed extra")
    ap.add_argument("--quality", type=int, metavar="DEALS", default=None, nargs="?", const=1000,
                    help="measure the trained policies over DEALS duplicate deals instead of throughput")
    ap.add_argument("--out", type=Path, default=None, help="the results file (default "
                    "benchmarks/scale_out_results.json, with --quality benchmarks/scale_out_quality.json)")
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--table", action="store_true", help="print the written results as a markdown table (no run)")
    ap.add_argument("--readme", action="store_true",
                    help="rewrite the table in the README and the scale-out guide from the written results (no run)")
    args = ap.parse_args(argv)
    if args.readme:
        update_pages(json.loads(OUT.read_text()), json.loads(QUALITY_OUT.read_text()) if QUALITY_OUT.exists() else None)
        return 0
    if args.table:
        if args.quality is not None:
            print(quality_table(json.loads((args.out or QUALITY_OUT).read_text())))
        else:
            print(table(json.loads((args.out or OUT).read_text())))
        return 0
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for game in args.games:
            paths = [("sb3", sys.executable, [], [])]
            for engine in args.engines:
                for n in args.runners:
                    paths.append((f"rllib-{engine}-{n}", args.rllib_python,
                                  ["--backend", "rllib", "--num-env-runners", str(n)], [f"rllib.engine={engine}"]))
            base = None
            for label, python, extra, config in paths:
                print(f"[{time.strftime('%H:%M:%S')}] {game} {label} ...", file=sys.stderr, flush=True)
                quiet = QUIET if args.quality is None else quality_config(game, args.quality)
                s = run_path(python, game, args.seconds, extra, config, Path(tmp) / label, quiet)
                rate = s.get("steps_per_second")
                base = rate if label == "sb3" else base
                row = {"game": game, "path": label, "steps_per_second": rate,
                       "ratio_to_sb3": round(rate / base, 3) if base and rate else None,
                       "timesteps": s.get("num_timesteps"), "train_seconds": s.get("train_seconds_this_run"),
                       "wall_seconds": s["wall_seconds"], "env_runner_timers": s.get("env_runner_timers")}
                if args.quality is not None:
                    row["evaluation"] = [{k: e.get(k) for k in ("opponent", "deals", "games", "mean_reward",
                                                                "reward_low", "reward_high", "win_rate")}
                                         for e in s.get("evaluation", [])]
                rows.append(row)
                print(json.dumps(row), flush=True)
    result = {"command": "python benchmarks/bench_scale_out.py " + " ".join(argv or sys.argv[1:]),
              "seconds_per_path": args.seconds, "machine": f"{platform.processor() or platform.machine()}, "
              f"{os.cpu_count()} cores, Python {platform.python_version()}",
              "date": time.strftime("%Y-%m-%d %H:%M"), "rows": rows}
    if args.quality is not None:
        result["deals"] = args.quality
    if not args.no_write:
        out = args.out or (OUT if args.quality is None else QUALITY_OUT)
        out.write_text(json.dumps(result, indent=1) + "\n")
        print(f"wrote {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
