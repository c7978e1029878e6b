"""Tournaments: agents play a game over rotated seats on duplicate deals; mean reward and score,
sole and shared first places, pairwise margins, all with 95% intervals; Elo and OpenSkill ratings.

    python -m training.evaluate golf ppo heuristic random --games 2000      # at Golf's benchmark table
    python -m training.evaluate golf heuristic random --games 2000 --players 3
    python -m training.evaluate guillotine ppo heuristic heuristic heuristic --config mode=single
    python -m training.evaluate guilders --field ppo:runs/guilders_v0/run random --players 5 --out results/

The game is played at its benchmark table (``card_envs.<game>_v0.BENCHMARK_CONFIG``, the table
the shipped policies play, so every agent the library ships can take a seat), with the options
``--config`` and ``--players`` give laid over it; the first line of the output names the table.

As a function (notebooks, training): ``tournament("golf_v0", ["heuristic", "random"], 2000).table()``.
This module is the project's one evaluation: training's curve and final evaluation (both backends)
call :func:`evaluate_against`, which is :func:`tournament` in the field seating.

Seating (printed with every result):

- line-up (default): the agents listed fill the seats in order, ``A B C`` at a 3-seat table is
  A in player_0, B in player_1, C in player_2. Each deal is played once per rotation of that
  line-up (A B C, B C A, C A B), so every agent plays every seat equally often. The same spec
  listed more than once is ONE agent holding several seats (``ppo heuristic heuristic heuristic``
  reports two rows, ppo and heuristic). With more agents than seats, every combination of N of
  them is a line-up, each rotated; with fewer, the list repeats to fill the seats (``A B`` at four
  seats is A B A B, said in the output). To set one agent against the others, use:
- field (``--field A B``, ``field=True``): A in one seat against N−1 copies of B, A's seat rotated
  through all N seats. This is what training reports ("PPO vs heuristic").

Duplicate deals (default): deal d is dealt from seed ``seed + d`` and played once per rotation,
so every rotation gets the same cards (``env.reset(seed)`` draws the dealer and the deck from
that seed alone; a reshuffle later in a game, of a stock or a fan, draws from the same generator
and so may differ once play differs). ``--games`` is rounded up to whole deals. The luck of the
cards then cancels within a deal. ``--independent`` deals game g from seed ``seed + g`` instead.
The output reports the variance reduction of each pairwise margin: the variance of the mean
margin estimated with games clustered by deal, ``var(per-deal means) / deals``, over the variance
the same number of independent deals would give, ``var(per-game margins) / games`` (the per-game
variance is a deal's marginal variance, whatever the design). Below 1, duplicate deals needed
that many times fewer games for the same precision.

Win: an agent's game is a **sole first place** when one of its seats has rank 1 and no other seat
does, a **shared first place** when one of its seats has rank 1 tied with another seat (ranks
are standard competition ranks, tied seats share the best). Each game has at most one sole winner,
so the sole-win rates of all agents add up to at most 1. An agent holding several seats wins
when any of its seats does.

Intervals (95%), over deals: every statistic is first averaged per deal (the games of a deal
are not independent; the deals are), then:

- bounded means (the rank reward, in [-1, 1]; margins of it, in [-2, 2]; win rates, in [0, 1]):
  the adjusted Wald interval of Agresti and Coull generalised to a bounded mean of clustered games:
  the cluster-robust variance of the mean (deals independent, games of a deal not), with z²/2
  pseudo-games added at each end of the range (formula in :func:`bounded_interval`), clipped to
  the range. For a yes/no outcome on independent games it is exactly Agresti–Coull. It never
  collapses to a point at 0 or 100% or at small n (20 games of 2-seat Golf all won: reward
  +1.000 [+0.61, +1.000], not ± 0), and it keeps the variance reduction that duplicate deals
  bring. Asymmetric, so printed as [low, high].
- unbounded means (scores; rewards with ``reward_mode="score"``): a percentile bootstrap over
  deals (2,000 resamples, seeded); with few deals it is too narrow, as any bootstrap is.

Ratings: a Bradley–Terry fit on the Elo scale (mean 1500) to every pairwise result between seats
of different agents, and, for tables of more than two seats, OpenSkill's Plackett–Luce ratings
(``pip install openskill``; updated game by game in deal order, each seat a team of one; an
agent holding several seats gets the mean of its seats' updates).

``--out DIR`` writes ``summary.json`` (every statistic above, the win matrix, the pairwise margins
with intervals, the seating and deal seeds, the policy files agents resolved to with their sha256,
the versions) and ``games.csv`` (one row per game and seat). ``--save-games FILE`` writes every
game's record (``card_envs.records``: options, seed, every action, each seat's agent spec, the
result) to a JSON Lines file, in the order the games were scheduled; ``python -m card_envs.records
show FILE --game K`` replays one.
"""

from __future__ import annotations

import os
import time
import warnings
from typing import Any, Sequence

from card_envs.cli import UserError
from training.games import (GameRecord, agent_hooks, game_seed, load_agent, play_game, play_schedule,
                            schedule_games, unpicklable)
from training.intervals import (BOOTSTRAP_RESAMPLES, INTERVALS_DOC, Z95, bootstrap_interval, bounded_interval,
                                deal_means, variance_ratio)
from training.progress import progress_bar
from training.provenance import resolved_policy, versions
from training.results import RANK_REWARD_RANGE, WIN_DOC, TournamentResult
from training.results import jsonable as _jsonable
from training.seating import (agent_name, describe_seating, distinct_agents, field_agents, rotations_of,
                              seating_plan)

# The entry points defined here, and the parts of a tournament that callers reach through this module
# (each defined in its own module: intervals, seating, games, results, provenance).
__all__ = [
    "BOOTSTRAP_RESAMPLES", "INTERVALS_DOC", "RANK_REWARD_RANGE", "WIN_DOC", "Z95",
    "GameRecord", "TournamentResult", "_jsonable", "bootstrap_interval", "bounded_interval", "deal_means",
    "evaluate_against", "main", "parse_config", "play_game", "resolved_policy", "rotations_of", "seating_plan",
    "tournament", "variance_ratio", "versions",
]


def tournament(
    env_name: str,
    agents: Sequence[Any],
    num_games: int = 1000,
    config: dict | None = None,
    seed: int = 0,
    workers: int = 1,
    progress: bool = False,
    names: Sequence[str] | None = None,
    *,
    field: bool = False,
    duplicate: bool = True,
    save_games: bool = False,
) -> TournamentResult:
    """Play about ``num_games`` games of ``env_name`` between ``agents`` (specs like
    ``"heuristic"``, or Agent objects) at the table ``config`` (the game's options; None, the
    default, is the game's benchmark table, ``{}`` its option defaults): the line-up seating, or with ``field=True`` the first agent
    against N−1 copies of the second; duplicate deals unless ``duplicate=False`` (the module's
    docstring defines both). ``workers`` > 1 spreads the games over processes; Agent objects
    travel there pickled (one that does not pickle runs the tournament in this process, with a
    warning and a note in the result). ``save_games``: every game's ``GameRecord`` carries its
    replayable record (``card_envs.records``) in ``.record``, the results unchanged."""
    import card_envs

    from card_envs.cli import benchmark_table, check_game_options, game_name

    env_name = game_name(env_name)
    if len(agents) < 1:
        raise UserError("a tournament needs at least one agent")
    if num_games < 1:
        raise UserError(f"the number of games must be at least 1, got {num_games}")
    config = benchmark_table(env_name) if config is None else dict(config)
    check_game_options(env_name, config)  # bad options fail here, before any work
    num_seats = len(card_envs.ENVIRONMENTS[env_name].raw_env(**config).possible_agents)
    listed = list(agents)
    if field:
        if len(listed) != 2:
            raise UserError(f"the field seating takes two agents (A against copies of B), got {len(listed)}")
    if names is not None and len(names) not in (len(agents), len(listed)):
        raise UserError(f"names gives {len(names)} names for {len(agents)} agents")
    if names is not None and field and len(names) != 2:
        names = [names[0], names[-1]]
    if field:
        entries, entry_names, index = field_agents(listed, names, num_seats)
    else:
        entries, entry_names, index = distinct_agents(listed, names)
    plan = seating_plan(index, num_seats)
    result = TournamentResult(env_name, entry_names, config, seating="field" if field else "lineup",
                              duplicate=duplicate, rotations=len(plan), seed=seed, num_seats=num_seats)
    result.seating_text, notes = describe_seating(entry_names, plan, num_seats, len(listed), field)
    result.notes += notes
    mode = str(config.get("reward_mode", "rank"))
    result.reward_range = RANK_REWARD_RANGE if mode == "rank" else None

    # Load and seat the agents here first: a bad spec, a policy refusing the table, fail before any pool.
    start_game, _ = agent_hooks()
    local = [load_agent(s, game_seed(seed, -1, k)) for k, s in enumerate(entries)]
    probe = card_envs.ENVIRONMENTS[env_name].raw_env(**config).possible_agents
    for lu in plan:
        for s, a in enumerate(lu):
            if isinstance(entries[a], str):
                start_game(local[a], env_name, config, probe[s])
    result.policies = {n: resolved_policy(p, env_name, spec) for n, p, spec in zip(entry_names, local, entries)}

    schedule = schedule_games(num_games, plan, seed, duplicate)
    if workers > 1:
        why = unpicklable([e for e in entries if not isinstance(e, str)])
        if why is not None:
            note = f"ran with 1 worker, not {workers}: {why}"
            warnings.warn(note, stacklevel=2)
            result.notes.append(note)
            workers = 1
    bar = progress_bar(len(schedule), f"{env_name} tournament") if progress else None
    start = time.perf_counter()
    try:
        result.games = play_schedule(env_name, entries, config, schedule, seed, local, save_games, workers,
                                     played=bar.update if bar else None)
    finally:
        if bar:
            bar.close()
    result.seconds = time.perf_counter() - start
    if result.reward_range is not None:
        lo, hi = result.reward_range
        if any(not lo - 1e-9 <= r <= hi + 1e-9 for g in result.games for r in g.rewards):
            result.reward_range = None  # not the rank reward after all: intervals by bootstrap
    return result


def evaluate_against(env_name: str, config: dict, agent: Any, opponent: Any, games: int, seed: int,
                     workers: int = 1, duplicate: bool = True) -> dict:
    """Training's evaluation: ``agent`` in one seat against N−1 copies of ``opponent`` (the field
    seating of :func:`tournament`), one row of eval.csv / final_eval.json: the agent's mean reward
    with its interval, its sole and shared first-place rates, mean score, and its margin."""
    result = tournament(env_name, [agent, opponent], games, config=config, seed=seed, workers=workers,
                        field=True, duplicate=duplicate, names=["agent", agent_name(opponent)])
    row = result.summary()[0]
    pair = result.pair(0, 1) if len(result.agent_names) > 1 else {}
    out = {"opponent": agent_name(opponent), "seating": result.seating_text, "duplicate": duplicate}
    out.update({k: row[k] for k in ("games", "deals", "mean_reward", "reward_low", "reward_high", "reward_ci95",
                                    "win_rate", "win_rate_low", "win_rate_high", "shared_first_rate",
                                    "mean_score", "score_low", "score_high", "score_ci95", "mean_rank")})
    out.update({k: pair.get(k) for k in ("margin", "margin_low", "margin_high", "variance_vs_independent")})
    out["policies"] = result.policies
    return out


def parse_config(pairs: Sequence[str]) -> dict:
    """``["num_players=4", "mode=single", "table.json"]`` -> game options (card_envs.cli's rules)."""
    from card_envs.cli import game_options

    return game_options(list(pairs))


def main(argv: Sequence[str] | None = None) -> int:
    from card_envs import cli

    ap = cli.Parser(prog="python -m training.evaluate", description=__doc__)
    cli.add_game_argument(ap)
    ap.add_argument("agents", nargs="*", help="line-up: one agent spec per seat (random, heuristic, ppo, ppo:PATH, "
                    "rllib:PATH, py:module:Class, with ,sample ,greedy ,any_table flags)")
    ap.add_argument("--field", nargs=2, metavar=("A", "B"), help="A in one seat against N-1 copies of B")
    ap.add_argument("--games", type=int, default=1000, help="games to play (rounded up to whole duplicate deals)")
    cli.add_config_arguments(ap)
    ap.add_argument("--independent", action="store_true", help="independent deals instead of duplicate deals")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1))
    ap.add_argument("--out", help="folder for summary.json and games.csv")
    ap.add_argument("--save-games", metavar="FILE", help="write every game's record to FILE (JSON Lines, "
                    "card_envs.records: replay with python -m card_envs.records show FILE --game K)")
    args = ap.parse_args(argv)
    try:
        game = cli.game_name(args.game)
        if args.field and args.agents:
            raise UserError("give either the line-up (agents after the game) or --field A B, not both")
        if not args.field and not args.agents:
            raise UserError("name the agents: a line-up (one spec per seat) or --field A B")
        config, changed = cli.table_options(game, args.config, args.players)
        print(cli.table_line(game, config, changed), flush=True)
        specs = list(args.field or args.agents)
        result = tournament(game, specs, args.games, config, args.seed, args.workers, progress=True,
                            field=bool(args.field), duplicate=not args.independent,
                            save_games=bool(args.save_games))
        print(result.table())
        if args.save_games:
            from card_envs import records

            path = records.write(args.save_games, [g.record for g in result.games])
            print(f"wrote {len(result.games)} game records to {path}")
        if args.out:
            paths = result.write(args.out)
            print("wrote " + ", ".join(map(str, paths)))
    except cli.USER_ERRORS as e:
        return cli.report(e)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
