"""Strength and cost of the search agents: PIMC and ISMCTS against the heuristic
and random, per game, at the tables the shipped PPO policies use, with ``training.evaluate``'s
tournaments (duplicate deals, the searcher's seat rotated: the field seating, A in one seat against
copies of B), and the cost: milliseconds per searched decision and simulated steps per second.

    python -m benchmarks.bench_search                                   # every game, the defaults
    python -m benchmarks.bench_search --games 100 --specs pimc:ms=100 ismcts:ms=100 \\
        --opponents heuristic random --only golf hot --out results/search.md

Run with one compute thread (``NUMBA_NUM_THREADS=1``; the script sets it when unset) so that a
millisecond budget means one core. Prints a markdown table: mean reward of the search agent with
its 95% interval (``training.evaluate``'s clustered interval over deals), the games played,
ms per decision (decisions with one legal action are played without search and not counted) and
simulated steps per second (every step a rollout or a tree descent applied).
"""

from __future__ import annotations

import os

os.environ.setdefault("NUMBA_NUM_THREADS", "1")

import argparse  # noqa: E402
import json  # noqa: E402
import time  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout's packages, run from anywhere

import card_envs  # noqa: E402

#: every registered game
GAMES = card_envs.REGISTERED


def table_of(game: str) -> dict:
    """The table the shipped PPO policy of ``game`` plays (the benchmark protocol's)."""
    from training.benchmark import protocol_table

    return protocol_table(f"{game}_v0")


def measure(game: str, spec: str, opponent: str, games: int, seed: int) -> dict:
    import agents
    from training.evaluate import tournament

    searcher = agents.load(spec, seed=seed)
    config = table_of(game)
    began = time.perf_counter()
    result = tournament(f"{game}_v0", [searcher, opponent], games, config, seed=seed, workers=1,
                        names=[spec, opponent], field=True)
    wall = time.perf_counter() - began
    row = result.summary()[0]
    s = searcher.stats
    return {
        "game": game, "agent": spec, "opponent": opponent, "config": config, "games": row["games"],
        "mean_reward": row["mean_reward"], "low": row["reward_low"], "high": row["reward_high"],
        "ms_per_decision": 1000 * s["seconds"] / max(1, s["decisions"]), "decisions": s["decisions"],
        "steps_per_s": s["steps"] / max(s["seconds"], 1e-9), "samples_per_decision": s["samples"] / max(1, s["decisions"]),
        "wall_s": wall,
    }


def markdown(rows: list[dict]) -> str:
    lines = ["| game | agent | vs | games | mean reward [95% CI] | ms/decision | worlds or iterations/decision | sim. steps/s |",
             "|---|---|---|---:|---|---:|---:|---:|"]
    for r in rows:
        verdict = " **>0**" if r["low"] > 0 else (" <0" if r["high"] < 0 else "")
        lines.append(
            f"| {r['game']} | `{r['agent']}` | {r['opponent']} | {r['games']} | {r['mean_reward']:+.3f} "
            f"[{r['low']:+.3f}, {r['high']:+.3f}]{verdict} | {r['ms_per_decision']:.1f} | "
            f"{r['samples_per_decision']:.0f} | {r['steps_per_s'] / 1e3:.0f}k |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> list[dict]:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--games", type=int, default=100, help="games per pair (rounded up to whole deals)")
    p.add_argument("--specs", nargs="+", default=["pimc:ms=100", "ismcts:ms=100"])
    p.add_argument("--opponents", nargs="+", default=["heuristic", "random"])
    p.add_argument("--only", nargs="+", choices=GAMES, default=list(GAMES), help="games to measure")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", type=Path, help="also write the table (markdown) and, beside it (.json), the rows with the "
                                           "command and the machine (the documentation's search page reads "
                                           "benchmarks/search_results.json)")
    args = p.parse_args(argv)
    rows = []
    for spec in args.specs:
        for game in args.only:
            for opponent in args.opponents:
                row = measure(game, spec, opponent, args.games, args.seed)
                rows.append(row)
                print(markdown([row]).splitlines()[-1], f"({row['wall_s']:.0f} s)", flush=True)
    text = markdown(rows)
    print("\n" + text)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text + "\n")
        import sys

        sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
        from benchmarks.bench_envs import machine

        record = {"command": "python -m benchmarks.bench_search " + " ".join(argv if argv is not None else sys.argv[1:]),
                  "machine": machine(), "date": time.strftime("%Y-%m-%d %H:%M"), "rows": rows}
        args.out.with_suffix(".json").write_text(json.dumps(record, indent=1) + "\n")
    return rows


if __name__ == "__main__":
    main()
