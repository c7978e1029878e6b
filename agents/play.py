"""Play a card_envs game in the terminal against agents.

    python -m agents.play golf_v0 --opponents heuristic         # Golf's benchmark table
    python -m agents.play guillotine_v0 --opponents heuristic,random,random --config mode=single

The game is played at its benchmark table (the one the shipped policies play: ``--opponents ppo``
takes every seat) with the options ``--config`` and ``--players`` give laid over it; the first
line names the table.
You take one seat and see exactly that seat's view (never a hidden card): the table as your
seat sees it and the names of your legal actions. Type an action by name (``replace 4``,
``draw stock``) or by its number; ``?`` lists the legal actions again, ``quit`` leaves.
``--save-games FILE`` adds the finished game's record to FILE (JSON Lines, ``card_envs.records``;
the person's seat has no agent spec, null): ``python -m card_envs.records show FILE`` replays it.
"""

from __future__ import annotations

import os
import sys
from typing import Callable, Sequence, TextIO


def play(
    env_name: str,
    opponents: Sequence[str] = ("heuristic",),
    config: dict | None = None,
    seat: int = 0,
    seed: int | None = None,
    input_fn: Callable[[str], str] = input,
    out: TextIO = sys.stdout,
    save_games: str | os.PathLike | None = None,
    deck: Sequence[int] | None = None,
) -> dict | None:
    """Run one game with a person at ``seat``; returns the person's final info (score, rank),
    or None if they quit. What the person is shown comes from their seat alone
    (:class:`agents.seated.SeatedGame`): another seat's hidden choice is shown as the table saw
    it ("commits"), and what it was once the rules reveal it. Every opponent seat's player gets
    the protocol's hooks (``agents/base.py``): ``start_game`` with the table's options before the
    game, ``end_game`` with that seat's final observation, total reward and info after it (not
    when the person quits: that game never ends). ``deck``: a stacked deal (card ints, top first,
    as ``reset(options={"deck": ...})`` takes it). ``save_games``: a JSON Lines file the finished
    game's record is appended to (``card_envs.records``; with no ``seed`` a fresh one is drawn and
    recorded so that the game replays; a game the person leaves is not saved)."""
    import agents
    import card_envs
    from agents.base import end_game, start_game
    from agents.seated import SeatedGame

    if env_name not in card_envs.ENVIRONMENTS:
        raise ValueError(f"unknown game {env_name!r}; games: {', '.join(card_envs.ENVIRONMENTS)}")
    config = dict(config or {})
    env = card_envs.ENVIRONMENTS[env_name].env(**config)
    n = len(env.possible_agents)
    if not 0 <= seat < n:
        raise ValueError(f"seat must be in 0..{n - 1}, got {seat}")
    specs = list(opponents) or ["heuristic"]
    others = {}
    seat_specs: list[str | None] = [None] * n  # the person's seat: no spec
    for k, agent in enumerate(a for i, a in enumerate(env.possible_agents) if i != seat):
        others[agent] = agents.load(specs[k % len(specs)], seed=None if seed is None else seed + k)
        seat_specs[env.possible_agents.index(agent)] = specs[k % len(specs)]
    me = env.possible_agents[seat]
    for agent, player in others.items():  # the protocol's hook: the table's options, per seat
        start_game(player, env_name, config, agent)
    recorder = None
    if save_games is not None:
        from card_envs.records import Recorder, new_seed

        seed = new_seed() if seed is None else seed
    env.reset(seed=seed, options=None if deck is None else {"deck": list(deck)})
    if save_games is not None:
        recorder = Recorder(env, seed, options=config, agents=seat_specs, deck=deck,
                            meta={"source": "agents.play", "person": me})
    game = SeatedGame(env, me, others, env_name, recorder)
    say = lambda text="": print(text, file=out, flush=True)  # noqa: E731
    say(f"{env_name}: you are {me}. Type an action's name or number; '?' for the list, 'quit' to leave.")
    while True:
        for shown in game.advance():
            say(shown.text)
        if game.over:
            break
        while True:
            try:
                text = input_fn("> ").strip()
            except EOFError:
                say("input closed: leaving the game")
                return None
            if text.lower() in ("quit", "exit", "q"):
                say("you left the game")
                return None
            if text in ("?", "help", ""):
                say(game.actions_text())
                continue
            try:
                action = game.parse(text)
            except ValueError as e:
                say(str(e))
                continue
            game.act(action)
            break
    for agent, player in others.items():  # the game is over: each seat's result to its player
        obs, info = game.final[agent]
        end_game(player, obs, game.total[agent], info)
    if recorder is not None:
        from card_envs.records import write

        write(save_games, [recorder.finish(game.total)], append=True)
        say(f"game saved to {save_games} (python -m card_envs.records show {save_games} --game K)")
    return game.result


def main(argv: Sequence[str] | None = None) -> int:
    """The command line (card_envs/cli.py's convention: ``golf`` or ``golf_v0``, ``--config``
    KEY=VALUE pairs or JSON files, ``--players``, user errors as one line and exit status 2)."""
    from card_envs import cli

    ap = cli.Parser(prog="python -m agents.play", description=__doc__)
    cli.add_game_argument(ap)
    ap.add_argument("--opponents", nargs="+", default=["heuristic"],
                    help="agent specs for the other seats, cycled over them (space- or comma-separated; a spec "
                         "keeps its flags: heuristic ppo,any_table)")
    cli.add_config_arguments(ap)
    ap.add_argument("--seat", type=int, default=0)
    ap.add_argument("--seed", type=int)
    ap.add_argument("--save-games", metavar="FILE",
                    help="append the finished game's record to FILE (JSON Lines, card_envs.records)")
    args = ap.parse_args(argv)
    try:
        game = cli.game_name(args.game)
        config, changed = cli.table_options(game, args.config, args.players)
        cli.check_game_options(game, config)
        print(cli.table_line(game, config, changed), flush=True)
        import agents

        specs = agents.split_specs(args.opponents)
        for spec in specs:  # a bad spec fails before the game starts
            agents.load(spec)
        play(game, specs, config, args.seat, args.seed, save_games=args.save_games)
    except cli.USER_ERRORS as e:
        return cli.report(e)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
