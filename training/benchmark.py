"""The benchmark protocol: one score card per agent that two papers can compare.

    python -m training.benchmark heuristic                      # the protocol, every game
    python -m training.benchmark ppo:runs/golf_v0/RUN --only golf
    python -m training.benchmark pimc --quick                   # a development check, NOT the protocol
    python -m training.benchmark my_agent.py:MyAgent --out card.json

**What the protocol fixes** (version :data:`VERSION`; a change to anything below is a new
version, and score cards of different versions are not compared):

- **The table** of each game (:data:`TABLES`, read from the game's env module: its
  ``BENCHMARK_CONFIG``): the two-seat table of
  Golf (one round), Fiddlesticks, Collector (at most 100 rounds), Hot (one deal) and Guilders,
  and Guillotine's single deal at four seats. These are the tables the shipped PPO policies play.
- **The gauntlet** (:data:`GAUNTLET`): ``random``, ``heuristic``, the default ``pimc`` (each
  game's strongest setting within 100 ms a decision, ``agents/search_defaults.py``) and the
  shipped ``ppo`` (``agents/pretrained``; the score card records each policy file's sha256).
- **The seating**: the agent in one seat against copies of one gauntlet member in every other
  seat, its seat rotated through all of them (``training.evaluate``'s field seating), on
  duplicate deals: every deal is played once per rotation, so luck of the cards cancels.
- **The games**: :data:`GAMES` per gauntlet member (rounded up to whole deals), from the fixed
  seeds :data:`SEED` + the member's index, the same deals for every agent measured.
- **The numbers**: against each member the agent's mean rank reward (+1 first, -1 last, 0 for
  the middle or a shared place; ``card_envs.scoring``) with its 95% interval over deals, and
  one summary number per game, **the score: the mean of those four mean rewards**. It lies in
  [-1, 1] at every table, 0 means as strong as the gauntlet on average, and it depends on the
  agent's games only (a score normalised by random's and the heuristic's own results would move
  whenever either is re-measured). Its interval combines the four independent intervals
  (standard errors added in quadrature, divided by four).

The agent's own cost, milliseconds per decision on this machine, is measured on a few separate
deals against the heuristic in one process (``timing``) and kept apart from the results: the
results part of a score card is the same bit for bit for the same agent on any machine with any
number of workers, the timing is not (``--retime CARD`` measures it anew, on a quiet machine,
keeping the results).

A game is measured once the gauntlet can play it (:func:`gauntlet_lacks`: its heuristic written
and a policy shipped for it); until then the run leaves it out and the leaderboard shows it as not
measured.

``--quick`` plays :data:`QUICK_GAMES` games per member: a development check, marked
``"conforms": false`` in its card, as is any run with another ``--games`` or other tables (the
``tables`` argument of :func:`benchmark` in Python; the command line keeps the protocol's).
"""

from __future__ import annotations

import datetime as _dt
import json
import math
import os
import platform
import sys
import time
from pathlib import Path
from typing import Any, Sequence

import card_envs

#: the protocol's version: score cards of different versions are not compared
VERSION = 1


def protocol_table(env_name: str) -> dict[str, Any]:
    """The table the protocol plays ``env_name`` at: the game's ``BENCHMARK_CONFIG`` (in its env
    module; the table its shipped policy was trained at)."""
    from card_envs import contract

    return dict(contract.part(env_name, "env").BENCHMARK_CONFIG)


#: each registered game's benchmark table (``card_envs.<game>_v0.BENCHMARK_CONFIG``: the tables the
#: shipped PPO policies play)
TABLES: dict[str, dict[str, Any]] = {name: protocol_table(name) for name in card_envs.ENVIRONMENTS}

#: the gauntlet: the agent meets each in the field seating
GAUNTLET = ("random", "heuristic", "pimc", "ppo")


def gauntlet_lacks(env_name: str) -> list[str]:
    """What the gauntlet lacks to play ``env_name``, each with what to do: its ``heuristic`` is
    the game's heuristic (``agents/heuristics/<game>.py``) and its ``ppo`` the policy shipped for
    the game (``agents/pretrained/<env_name>.zip``). A new game is measured once both exist; until
    then it is "not measured" (the leaderboard says so)."""
    from agents.ppo import shipped
    from training.opponents import heuristic_available

    game = env_name.removesuffix("_v0")
    lacks = []
    if not heuristic_available(env_name):
        lacks.append(f"a heuristic (write agents/heuristics/{game}.py)")
    if env_name not in shipped():
        lacks.append(f"a shipped policy (train one, python -m training.train {game}, and ship it as "
                     f"agents/pretrained/{env_name}.zip)")
    return lacks


def measurable() -> list[str]:
    """The games the protocol measures: every registered game the whole gauntlet can play."""
    return [name for name in TABLES if not gauntlet_lacks(name)]
#: games per gauntlet member (rounded up to whole deals: every deal in every seat rotation)
GAMES = 200
#: games per member with --quick (not the protocol)
QUICK_GAMES = 8
#: the first member's seed; member i plays from SEED + i
SEED = 20_261_203
#: deals against the heuristic on which the agent's milliseconds per decision are measured
TIMING_GAMES = 8
TIMING_SEED = 7


def machine() -> str:
    """This machine in words: processor, cores, Python."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} cores, Python {platform.python_version()}"


def resolved(spec: Any, env_name: str, seed: int = 0) -> dict:
    """What a spec plays in ``env_name``: the spec, the full search settings (``pimc`` ->
    ``pimc:worlds=12,...``) and, for a learned policy, its file and sha256."""
    from training.games import load_agent
    from training.provenance import resolved_policy

    agent = load_agent(spec, seed)
    out = resolved_policy(agent, env_name, spec)
    spec_for = getattr(agent, "spec_for", None)
    if callable(spec_for):
        out["settings"] = spec_for(env_name)
    return out


class Timed:
    """An agent that times another's decisions (``act``), forwarding the protocol's hooks."""

    def __init__(self, agent: Any):
        self.agent, self.seconds, self.decisions, self.warm = agent, 0.0, 0, False
        self.name = getattr(agent, "name", type(agent).__name__)

    def start_game(self, env_name: str, config: dict, agent: str) -> None:
        from agents.base import start_game

        start_game(self.agent, env_name, config, agent)

    def end_game(self, observation: dict, reward: float, info: dict) -> None:
        from agents.base import end_game

        end_game(self.agent, observation, reward, info)

    def act(self, observation: dict, agent: str, env_name: str) -> int:
        began = time.perf_counter()
        action = self.agent.act(observation, agent, env_name)
        if self.warm:  # the first decision loads compiled code and builds tables: not counted
            self.seconds += time.perf_counter() - began
            self.decisions += 1
        self.warm = True
        return action


def time_agent(spec: str, env_name: str, table: dict, games: int = TIMING_GAMES) -> dict:
    """The agent's milliseconds per decision (every decision it is asked but the first, which
    loads compiled code; one process) over ``games`` games against the heuristic at ``table``."""
    from training.evaluate import tournament
    from training.games import load_agent

    timed = Timed(load_agent(spec, TIMING_SEED))
    cpu, wall = time.process_time(), time.perf_counter()
    tournament(env_name, [timed, "heuristic"], games, table, seed=TIMING_SEED, workers=1, field=True,
               names=[spec, "heuristic"])
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    # the share of a core this process got while timing: about 1 on a quiet machine, well below
    # when other work took turns on its core (and the milliseconds are then too high)
    return {"ms_per_decision": round(1000 * timed.seconds / max(1, timed.decisions), 2),
            "decisions": timed.decisions, "games": games, "cpu_share": round(cpu / max(wall, 1e-9), 2)}


def retime(path: str | Path, progress: bool = True, only: Sequence[str] | None = None) -> dict:
    """Measure a recorded score card's milliseconds per decision anew on this machine, every game
    of it (or ``only`` these), and write the card back: the timing depends on the machine and on
    what else runs there, the results do not, so they are kept bit for bit. The card records when
    and where (``timing_measured``, and each timing measured anew its ``measured`` date); a
    ``note`` on how it was measured no longer applies and is dropped."""
    from card_envs.cli import game_name

    card = read(path)
    spec = card["agent"]
    envs = list(card["games"])
    if only:
        envs = [game_name(g) for g in only]
        missing = [e for e in envs if e not in card["games"]]
        if missing:
            raise ValueError(f"{path}: no {', '.join(missing)} in this score card to re-time; it has "
                             f"{', '.join(card['games'])}")
    for env_name in envs:
        part = card["games"][env_name]
        part["timing"] = time_agent(spec, env_name, part["table"])
        part["timing"]["measured"] = _dt.datetime.now().isoformat(timespec="seconds")
        if progress:
            print(f"  {env_name}: {spec} {part['timing']['ms_per_decision']:.2f} ms per decision", file=sys.stderr,
                  flush=True)
    card["timing_measured"] = {"date": _dt.datetime.now().isoformat(timespec="seconds"), "machine": machine()}
    card.pop("note", None)
    write(card, path)
    return card


def combined(rows: list[dict]) -> dict:
    """The score (mean of the rows' mean rewards) and its 95% interval: each row's standard
    error read from its interval's half-width, added in quadrature (the rows are independent)."""
    z = 1.959963984540054
    means = [r["mean_reward"] for r in rows]
    ses = [(r["reward_high"] - r["reward_low"]) / (2 * z) for r in rows]
    score = sum(means) / len(means)
    se = math.sqrt(sum(s * s for s in ses)) / len(means)
    return {"score": score, "score_low": max(-1.0, score - z * se), "score_high": min(1.0, score + z * se)}


def member_row(spec: str, env_name: str, table: dict, index: int, games: int, workers: int = 1,
               progress: bool = False) -> dict:
    """The agent's row against gauntlet member ``index``: its games from the member's own seed, so
    the row does not depend on the other members (a row is played again alone when only that
    member changed)."""
    from training.evaluate import evaluate_against

    member = GAUNTLET[index]
    began = time.perf_counter()
    row = evaluate_against(env_name, table, spec, member, games, seed=SEED + index, workers=workers)
    if progress:
        print(f"  {env_name}: {spec} vs {member:<9} {row['mean_reward']:+.3f} [{row['reward_low']:+.3f}, "
              f"{row['reward_high']:+.3f}] ({row['games']} games, {time.perf_counter() - began:.0f} s)",
              file=sys.stderr, flush=True)
    return {k: row[k] for k in ("opponent", "games", "deals", "mean_reward", "reward_low", "reward_high",
                                "win_rate", "win_rate_low", "win_rate_high", "shared_first_rate",
                                "mean_score", "mean_rank")}


def identity(player: dict) -> dict:
    """What makes a resolved player (:func:`resolved`) the same player on any checkout: its spec,
    class, settings and policy file's sha256, not where the file lies."""
    return {k: v for k, v in player.items() if k != "file"}


def stale(part: dict, spec: str, env_name: str, table: dict) -> list[int] | None:
    """Which rows of a recorded game's part no longer measure today's players: ``None`` when the
    whole game must be played again (another table, or the agent itself changed, say a policy
    file retrained), else the indices of the gauntlet members that changed (a member's shipped
    policy retrained: only its row), empty when the part holds."""
    if part.get("table") != table or identity(part.get("agent", {})) != identity(resolved(spec, env_name)):
        return None
    recorded = part.get("gauntlet", [])
    if len(recorded) != len(GAUNTLET):
        return None
    return [i for i, member in enumerate(GAUNTLET)
            if identity(recorded[i]) != identity(resolved(member, env_name))]


def refresh(part: dict, spec: str, env_name: str, members: list[int], games: int, workers: int = 1,
            progress: bool = False) -> dict:
    """``part`` with the rows of gauntlet ``members`` played again (each from its own seed, as a
    whole run plays it), their players recorded anew and the score recombined; the agent's timing
    stays, the agent being the same."""
    part = dict(part, results=list(part["results"]), gauntlet=list(part["gauntlet"]))
    for i in members:
        part["results"][i] = member_row(spec, env_name, part["table"], i, games, workers, progress)
        part["gauntlet"][i] = resolved(GAUNTLET[i], env_name)
    part.update(combined(part["results"]))
    return part


def benchmark_game(spec: str, env_name: str, games: int = GAMES, table: dict | None = None, workers: int = 1,
                   timing: bool = True, progress: bool = False) -> dict:
    """One game's part of a score card: the agent against every gauntlet member, the score, and
    (``timing``) its milliseconds per decision."""
    table = dict(TABLES[env_name] if table is None else table)
    rows = [member_row(spec, env_name, table, i, games, workers, progress) for i in range(len(GAUNTLET))]
    part = {"table": table, "seeds": {m: SEED + i for i, m in enumerate(GAUNTLET)},
            "agent": resolved(spec, env_name), "gauntlet": [resolved(m, env_name) for m in GAUNTLET],
            "results": rows, **combined(rows)}
    if timing:
        part["timing"] = time_agent(spec, env_name, table)
    return part


def benchmark(spec: str, games: int | None = None, only: Sequence[str] | None = None, quick: bool = False,
              tables: dict[str, dict] | None = None, workers: int = 1, timing: bool = True,
              progress: bool = True, out: str | Path | None = None, resume: bool = False) -> dict:
    """The score card of agent ``spec`` (any ``agents.load`` spec) under the protocol: every game
    (or ``only`` these), :data:`GAMES` games per gauntlet member (``games``; ``quick``:
    :data:`QUICK_GAMES`), at the protocol's tables (``tables`` replaces some: not the protocol).
    ``out``: the card is also written there after each game (``"complete"`` false until the
    last), so a long run that stops keeps the games it finished; ``resume`` continues the card
    recorded at ``out`` (the same agent, protocol and number of games, else refused), playing only
    what it lacks or what no longer measures today's players (:func:`stale`): a game it lacks, or
    played by another version of the agent, whole; a row against a gauntlet member that changed
    since (a shipped policy retrained: its sha256), that row alone. Games and rows do not depend
    on each other, so the card is the same as one run's; games in the protocol's order."""
    from card_envs.cli import game_name
    from training.provenance import versions

    if quick and games is not None:
        raise ValueError("give --quick or --games, not both")
    n = QUICK_GAMES if quick else GAMES if games is None else int(games)
    if n < 1:
        raise ValueError(f"games per gauntlet member must be at least 1, got {n}")
    envs = [game_name(g) for g in only] if only else measurable()
    for env_name in envs:
        lacking = gauntlet_lacks(env_name)
        if lacking:
            raise ValueError(f"the gauntlet cannot play {env_name} yet: it lacks {' and '.join(lacking)}")
    tables = {game_name(g): dict(t) for g, t in (tables or {}).items()}
    conforms = n == GAMES and not tables and not quick
    card: dict[str, Any] = {
        "protocol": f"card_envs benchmark v{VERSION}", "version": VERSION, "conforms": conforms,
        "quick": bool(quick), "agent": spec, "games_per_member": n, "gauntlet": list(GAUNTLET),
        "summary": "score = mean over the gauntlet of the agent's mean rank reward (field seating, duplicate deals)",
        "date": _dt.datetime.now().isoformat(timespec="seconds"), "machine": machine(), "versions": versions(),
        "complete": False, "games": {},
    }
    if resume:
        if out is None:
            raise ValueError("resume continues the score card at out: give --out CARD.json")
        if Path(out).exists():
            card = resumable(card, out, timing)
        for env_name in [g for g in envs if g in card["games"]]:
            table = dict(tables.get(env_name, TABLES[env_name]))
            changed = stale(card["games"][env_name], spec, env_name, table)
            if changed is None:
                if progress:
                    print(f"{out}: {env_name} was played at another table or by another {spec}: playing it again",
                          file=sys.stderr, flush=True)
                del card["games"][env_name]
            elif changed:
                if progress:
                    print(f"{out}: {env_name}: {', '.join(GAUNTLET[i] for i in changed)} changed since the card "
                          f"was played: playing again only {'its row' if len(changed) == 1 else 'their rows'}",
                          file=sys.stderr, flush=True)
                card["games"][env_name] = refresh(card["games"][env_name], spec, env_name, changed, n, workers,
                                                  progress)
                write(card, out)
        envs = [g for g in envs if g not in card["games"]]
        if progress and card["games"]:
            print(f"{out}: continuing; recorded already: {', '.join(card['games'])}", file=sys.stderr, flush=True)
    wanted = list(dict.fromkeys(list(card["games"]) + envs))
    for env_name in envs:
        began = time.perf_counter()
        if progress:
            print(f"{env_name}: {spec} against {', '.join(GAUNTLET)}, {n} games each", file=sys.stderr, flush=True)
        card["games"][env_name] = benchmark_game(spec, env_name, n, tables.get(env_name), workers, timing, progress)
        card["games"][env_name]["seconds"] = round(time.perf_counter() - began, 1)
        card["games"] = {g: card["games"][g] for g in TABLES if g in card["games"]}
        card["complete"] = all(g in card["games"] for g in wanted)
        if out is not None:
            write(card, out)
    card["complete"] = all(g in card["games"] for g in wanted)
    return card


def resumable(fresh: dict, path: str | Path, timing: bool = True) -> dict:
    """The card recorded at ``path``, to be continued by the run whose new card is ``fresh``:
    refused (ValueError naming the difference) unless both measure the same agent under the same
    protocol, number of games and gauntlet (and, when ``timing``, on the same machine)."""
    card = read(path)
    for key in ("protocol", "agent", "games_per_member", "quick", "gauntlet"):
        if card.get(key) != fresh[key]:
            raise ValueError(f"{path} cannot be continued by this run: its {key} is {card.get(key)!r}, this "
                             f"run's {fresh[key]!r} (write another --out, or run it with the card's settings)")
    if card.get("conforms") != fresh["conforms"]:
        raise ValueError(f"{path} cannot be continued by this run: it was played at other tables")
    if timing and card.get("machine") != fresh["machine"]:
        raise ValueError(f"{path} was timed on {card.get('machine')!r}, this is {fresh['machine']!r}: continue it "
                         "there (a card's milliseconds per decision come from one machine)")
    card["date"], card["versions"] = fresh["date"], fresh["versions"]
    return card


def write(card: dict, path: str | Path) -> None:
    """The score card as JSON at ``path``."""
    from training.results import jsonable

    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text(json.dumps(jsonable(card), indent=1) + "\n")


def read(path: str | Path) -> dict:
    """The score card recorded at ``path``; a ValueError says so when it is not one."""
    try:
        card = json.loads(Path(path).read_text())
        card["agent"], card["games"].items()
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
        raise ValueError(f"{path}: not a score card written by python -m training.benchmark ({e})") from None
    return card


def results_part(card: dict) -> dict:
    """The part of a score card that is the same bit for bit for the same agent: everything but
    the date, the machine, the versions, the timing (and when it was measured, and any note on
    how) and the seconds."""
    keep = {k: v for k, v in card.items() if k not in ("date", "machine", "versions", "timing_measured", "note")}
    keep["games"] = {g: {k: v for k, v in part.items() if k not in ("timing", "seconds")}
                     for g, part in card["games"].items()}
    return keep


def text(card: dict) -> str:
    """The score card as a table for the terminal."""
    head = f"{card['protocol']}: {card['agent']}" + ("" if card["conforms"] else "  (NOT the protocol: "
                                                        f"{'--quick' if card['quick'] else 'changed games or table'})")
    lines = [head, f"{card['games_per_member']} games per gauntlet member, field seating, duplicate deals; "
             f"{card['machine']}", ""]
    lines.append(f"{'game':<16}{'score [95% CI]':<26}" + "".join(f"{'vs ' + m:<14}" for m in card["gauntlet"])
                 + "ms/decision")
    for env_name, part in card["games"].items():
        cells = "".join(f"{r['mean_reward']:<+14.3f}" for r in part["results"])
        ms = part.get("timing", {}).get("ms_per_decision")
        lines.append(f"{env_name:<16}{part['score']:+.3f} [{part['score_low']:+.3f}, {part['score_high']:+.3f}]    "
                     f"{cells}{'' if ms is None else f'{ms:.1f}'}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    from card_envs import cli

    ap = cli.Parser(prog="python -m training.benchmark", description=__doc__.split("\n\n")[0])
    ap.add_argument("spec", nargs="?", help="the agent: any agents.load spec (random, heuristic, ppo, ppo:PATH, "
                    "pimc, ismcts:iterations=200, py:module:Class, ...)")
    ap.add_argument("--games", type=int, help=f"games per gauntlet member (protocol: {GAMES}; another number is "
                    "not the protocol)")
    ap.add_argument("--quick", action="store_true", help=f"{QUICK_GAMES} games per member: a development check, "
                    "not the protocol")
    ap.add_argument("--only", nargs="+", metavar="GAME", help="these games only (default: every game the gauntlet "
                    "plays: a heuristic written and a policy shipped)")
    ap.add_argument("--workers", type=int, default=1, help="processes for the games (results do not depend on it)")
    ap.add_argument("--no-timing", action="store_true", help="skip measuring the agent's milliseconds per decision")
    ap.add_argument("--out", help="write the score card (JSON) here")
    ap.add_argument("--resume", action="store_true", help="with --out: continue the card recorded there, "
                    "playing only the games it lacks, and again the rows against gauntlet members changed since "
                    "(a retrained shipped policy: only its rows)")
    ap.add_argument("--no-progress", action="store_true")
    ap.add_argument("--retime", nargs="+", metavar="CARD", help="measure these score cards' milliseconds per "
                    "decision anew on this machine, every game or --only these (their results stay as they "
                    "are), and rewrite them")
    args = ap.parse_args(argv)
    if (args.spec is None) == (args.retime is None):
        ap.error("give an agent spec to benchmark, or --retime CARD.json ...")
    try:
        if args.retime:
            for path in args.retime:
                card = retime(path, progress=not args.no_progress, only=args.only)
                print(text(card))
                print(f"rewrote {path}")
            return 0
        games = [cli.game_name(g) for g in args.only] if args.only else list(TABLES)
        print("tables: " + "; ".join(f"{g} {cli.format_options(TABLES[g])}" for g in games)
              + " (each game's benchmark table, where the shipped policies play)", flush=True)
        card = benchmark(args.spec, games=args.games, only=args.only, quick=args.quick, workers=args.workers,
                         timing=not args.no_timing, progress=not args.no_progress, out=args.out,
                         resume=args.resume)
    except cli.USER_ERRORS as e:
        return cli.report(e)
    print(text(card))
    if args.out:
        print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
