"""A local web table: play any game against any agents in the browser, and replay records.

    pip install -e ".[web]"
    python -m card_envs.web                       # http://127.0.0.1:8000
    python -m card_envs.web --records games.jsonl --port 8080

The page lets a person pick a game, its options, their seat and the agents in the other seats
(any ``agents.load`` spec), then play: the table as their seat sees it, their legal actions as
buttons named by ``action_to_string``, the others' moves one at a time, the result at the end.
Its replay viewer steps through recorded games (``card_envs.records``) as a spectator or as any
seat. The server (:mod:`card_envs.web.app`, Starlette on uvicorn) sends a seated person only what
their seat sees (:mod:`card_envs.web.tables`); the page is plain HTML and JavaScript served from
the package, with nothing fetched from the internet.
"""

from __future__ import annotations

from card_envs.web.app import create_app
from card_envs.web.tables import Conflict, Forbidden, NotFound, Replays, Tables, WebTable

__all__ = ["Conflict", "Forbidden", "NotFound", "Replays", "Tables", "WebTable", "create_app", "main"]


def main(argv=None) -> int:
    """``python -m card_envs.web [--host H] [--port P] [--records FILE]``."""
    from card_envs import cli

    ap = cli.Parser(prog="python -m card_envs.web", description=__doc__.split("\n\n")[0])
    ap.add_argument("--host", default="127.0.0.1", help="the address to serve on (default 127.0.0.1: this machine only)")
    ap.add_argument("--port", type=int, default=8000, help="the port (default 8000)")
    ap.add_argument("--records", metavar="FILE", help="a records file (JSON Lines) to offer in the replay viewer")
    ap.add_argument("--idle-minutes", type=float, default=30.0,
                    help="close a table left without a request this long (default 30)")
    args = ap.parse_args(argv)
    try:
        import uvicorn  # noqa: F401
        import starlette  # noqa: F401
    except ImportError:
        return cli.report(cli.UserError('the web table needs the web extra: pip install -e ".[web]"'))
    if not 0 < args.port < 65536:
        return cli.report(cli.UserError(f"--port must be in 1..65535, got {args.port}"))
    if not args.idle_minutes > 0:
        return cli.report(cli.UserError(f"--idle-minutes must be positive, got {args.idle_minutes}"))
    try:
        app = create_app(args.records, tables=Tables(idle_seconds=60 * args.idle_minutes))
    except cli.USER_ERRORS as e:
        return cli.report(e)
    import uvicorn

    print(f"card_envs web table: http://{args.host}:{args.port}/  (Ctrl+C stops it)", flush=True)
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0
