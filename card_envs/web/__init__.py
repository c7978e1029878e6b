"""A local web table: play any game against the library's agents in the browser, and replay records.

    pip install -e ".[web]"
    python -m card_envs.web                       # http://127.0.0.1:8000
    python -m card_envs.web --records games.jsonl --port 8080
    python -m card_envs.web --agent mine=ppo:runs/golf_v0/RUN/final.zip   # offer your own policy too

The page lets a person pick a game, its options, their seat and the agents in the other seats
(from those the server offers: random, heuristic, ppo, pimc, ismcts, and any the person names at
start-up with ``--agent NAME=SPEC``), then play: the table as their seat sees it, their legal
actions as buttons named by ``action_to_string``, the others' moves one at a time, the result at
the end. Its replay viewer steps through recorded games (``card_envs.records``) as a spectator or
as any seat. The server (:mod:`card_envs.web.app`, Starlette on uvicorn) answers only its own page
(:mod:`card_envs.web.guard`), seats only the agents it offers (:mod:`card_envs.web.offer`), bounds
what any request may ask (:mod:`card_envs.web.limits`) and sends a seated person only what their
seat sees, on a clock that says nothing either (:mod:`card_envs.web.tables`); the page is plain
HTML and JavaScript served from the package, with nothing fetched from the internet.
"""

from __future__ import annotations

from card_envs.web.app import create_app, local_client
from card_envs.web.offer import Offer
from card_envs.web.replays import Replays
from card_envs.web.tables import Busy, Conflict, Forbidden, NotFound, Tables, Unavailable, WebTable

__all__ = ["Busy", "Conflict", "Forbidden", "NotFound", "Offer", "Replays", "Tables", "Unavailable", "WebTable",
           "create_app", "local_client", "main"]


def main(argv=None) -> int:
    """``python -m card_envs.web [--host H] [--port P] [--records FILE] [--agent NAME=SPEC ...]``."""
    import secrets

    from card_envs import cli
    from card_envs.web.guard import is_loopback

    ap = cli.Parser(prog="python -m card_envs.web", description=__doc__.split("\n\n")[0])
    ap.add_argument("--host", default="127.0.0.1",
                    help="the address to serve on (default 127.0.0.1: this machine only; another address "
                         "needs an access token, printed in the address to open)")
    ap.add_argument("--port", type=int, default=8000, help="the port (default 8000)")
    ap.add_argument("--records", metavar="FILE", help="a records file (JSON Lines) to offer in the replay viewer")
    ap.add_argument("--agent", action="append", default=[], metavar="NAME=SPEC",
                    help="offer an agent of your own by NAME: any agent spec (ppo:FILE, py:module:Class, "
                         "rllib:PATH, openspiel:..., a search setting); repeatable")
    ap.add_argument("--token", help="the access token every request must carry (default: none on 127.0.0.1, "
                                    "a random one on any other address)")
    ap.add_argument("--allow-host", action="append", default=[], metavar="NAME",
                    help="a host name the page may be opened at besides localhost, the bound address and IP "
                         "addresses (e.g. this machine's name on your network); repeatable")
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
    named = {}
    for item in args.agent:
        name, eq, spec = item.partition("=")
        if not eq or not name.strip() or not spec.strip():
            return cli.report(cli.UserError(f"--agent takes NAME=SPEC (e.g. mine=ppo:runs/golf_v0/RUN), got {item!r}"))
        named[name.strip()] = spec.strip()
    exposed = not is_loopback(args.host)
    token = args.token if args.token is not None else (secrets.token_urlsafe(16) if exposed else None)
    if token is not None and len(token) < 8:
        return cli.report(cli.UserError("--token must be at least 8 characters"))
    try:
        tables = Tables(idle_seconds=60 * args.idle_minutes, offer=Offer(named))
        _check_loads(named)
        app = create_app(args.records, tables=tables, host=args.host, allowed_hosts=tuple(args.allow_host),
                         access_token=token)
    except (*cli.USER_ERRORS, ImportError) as e:
        return cli.report(e)
    import uvicorn

    shown = "127.0.0.1" if args.host in ("0.0.0.0", "::", "") else args.host
    address = f"http://{shown}:{args.port}/" + (f"?token={token}" if token else "")
    print("tables: a new table starts at its game's benchmark table, where every agent offered can play ("
          + "; ".join(f"{name} {cli.format_options(cli.benchmark_table(name)) or '(defaults)'}" for name in _games())
          + "); the page's options change it", flush=True)
    if exposed:
        print(f"card_envs web table on {args.host}: other machines that can reach this one on port {args.port} can "
              "open it too; each request needs the access token, which this address carries: share it only with "
              "people you would let play here (the traffic is not encrypted)", flush=True)
    if named:
        print("offered by name: " + ", ".join(named), flush=True)
    print(f"card_envs web table: {address}  (Ctrl+C stops it)", flush=True)
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0


def _games() -> list[str]:
    import card_envs

    return list(card_envs.ENVIRONMENTS)


def _check_loads(named: dict[str, str]) -> None:
    """Load each agent named at start-up once, so that a spec that does not load (a missing file,
    a pickled policy not trusted) is said now, not at the first table."""
    from card_envs.records import agents_hook

    load = agents_hook("load")
    for name, spec in named.items():
        try:
            load(spec, 0)
        except (ValueError, ImportError, FileNotFoundError, KeyError) as e:
            raise ValueError(f"--agent {name}={spec}: {str(e).strip().splitlines()[0] if str(e).strip() else e!r}") from None
