"""OpenSpiel's playthroughs of every game, kept under tests/openspiel/playthroughs/ as a regression
net: OpenSpiel's own ``generate_playthrough`` plays a seeded random game at a small table and
writes every state as OpenSpiel sees it (the game's type and sizes, every player's information
state and observation as string and tensor, the public and private observations, the legal
actions and their names, each chance outcome named by its card, rewards and returns).
Regenerate after an intended change with

    python -m tests.openspiel.playthrough            # every game
    python -m tests.openspiel.playthrough golf_v0

and review the diff. The test replays each file's actions (``replay``) and compares.
"""

from __future__ import annotations

import sys
from pathlib import Path

import card_envs.openspiel as O

DIR = Path(__file__).resolve().parent / "playthroughs"
SEED = 2026
#: each game's table: small, so that the file stays readable (a Guilders table in score mode and
#: Hot's in score mode show rewards as they come; the others pay at the end)
TABLES = {
    "golf_v0": "num_players=2,num_rounds=1",
    "fiddlesticks_v0": "num_players=2,max_turns=24",
    "guillotine_v0": "mode=single,contract=queens",
    "collector_v0": "num_players=2,max_rounds=6",
    "hot_v0": "num_players=2,single_deal=True,max_rounds_per_deal=6,reward_mode=score",
    "guilders_v0": "num_players=2,reward_mode=score",
}


def path(name: str) -> Path:
    return DIR / f"{name.removesuffix('_v0')}.txt"


def game_string(name: str) -> str:
    return f"{O.GAMES[name]}({TABLES[name]})"


def generate(name: str) -> str:
    """A new playthrough of ``name`` (its table, random actions from the seed)."""
    from open_spiel.python.algorithms import generate_playthrough

    return generate_playthrough.playthrough(game_string(name), [], seed=SEED)


def replay(text: str) -> str:
    """The playthrough ``text`` records, made again from its game and its actions."""
    from open_spiel.python.algorithms import generate_playthrough

    lines = text.splitlines()
    game = next(line.removeprefix("game: ") for line in lines if line.startswith("game: "))
    actions = [int(line.removeprefix("action: ")) for line in lines if line.startswith("action: ")]
    return generate_playthrough.playthrough(game, actions, seed=SEED)


def main(argv: list[str]) -> int:
    names = argv or list(O.GAMES)
    DIR.mkdir(exist_ok=True)
    for name in names:
        name = name if name.endswith("_v0") else f"{name}_v0"
        if name not in TABLES:
            print(f"unknown game {name!r}; games: {', '.join(TABLES)}", file=sys.stderr)
            return 2
        path(name).write_text(generate(name))
        print(f"wrote {path(name)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
