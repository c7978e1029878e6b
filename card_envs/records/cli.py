"""``python -m card_envs.records show FILE ...`` and ``python -m card_envs.records check FILE``:
the terminal viewer and the check of a whole file."""

from __future__ import annotations

import argparse
import sys
from typing import Sequence

from card_envs.records.reading import check_file
from card_envs.records.viewer import show


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m card_envs.records show FILE --game K [--spectator | --seat player_0 | --full] [--step S]
    [--all]``
    and ``python -m card_envs.records check FILE``; a user error is one line and exit status 2."""
    ap = argparse.ArgumentParser(prog="python -m card_envs.records", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    sh = sub.add_parser("show", help="step through one recorded game in the terminal")
    sh.add_argument("file")
    sh.add_argument("--game", type=int, default=0, help="which game of the file (0 = its first line)")
    who = sh.add_mutually_exclusive_group()
    who.add_argument("--spectator", action="store_true",
                     help="the table as a spectator sees it: what every seat sees (the default)")
    who.add_argument("--seat", help="the table as this seat (player_0, ...) sees it")
    who.add_argument("--full", action="store_true", help="every card, hidden ones included")
    sh.add_argument("--step", type=int, default=0, help="start at this step (0 = the deal)")
    sh.add_argument("--all", action="store_true", help="print every step from --step to the end, no keys")
    ck = sub.add_parser("check", help="check every game of a file: each line as written (its checksum) and a "
                                      "full replay matching it (every action, state and result)")
    ck.add_argument("file")
    args = ap.parse_args(argv)
    try:
        if args.command == "show":
            view = "full" if args.full else "seat" if args.seat else "spectator"
            show(args.file, args.game, view, args.seat, args.step, args.all)
        else:
            check_file(args.file)
    except (ValueError, OSError) as e:
        print(f"error: {' '.join(str(e).split())}", file=sys.stderr, flush=True)
        return 2
    return 0

