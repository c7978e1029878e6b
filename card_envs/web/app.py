"""The web table's HTTP interface (a Starlette app): the page, and a JSON API under ``/api``.

=======================================  ================================================
``GET  /``                               the page (HTML, one script, one style sheet)
``GET  /api/games``                      the games, their seats and options with defaults
                                         and bounds, and the agents the server offers
``POST /api/tables``                     a new table: ``{"env", "options", "seat",
                                         "opponents", "seed"}`` -> the person's view
``GET  /api/tables/{id}``                the person's view now
``POST /api/tables/{id}/advance``        the next other seat's action -> the view
``POST /api/tables/{id}/act``            ``{"action", "step"[, "seat"]}`` -> the view
``GET  /api/tables/{id}/record``         the finished game's record (one JSON line)
``POST /api/tables/{id}/close``          closes the table (also ``DELETE /api/tables/{id}``)
``GET  /api/records``                    the records to replay
``POST /api/records``                    ``{"name", "records"}``: adds the records of a
                                         JSON Lines text
``GET  /api/records/{id}/steps/{k}``     record ``id`` at step ``k``, ``?seat=player_1``
                                         for that seat's view (default: a spectator's)
=======================================  ================================================

Which requests reach these at all is :mod:`card_envs.web.guard`'s (the page's own, carrying its
secret). The person's view holds only what their seat sees (see :mod:`card_envs.web.tables`).
Every refusal is a 4xx with ``{"error": one line}`` and changes nothing: 400 bad input (an unknown
game, option, an agent the server does not offer, a value past the web table's bounds, an illegal
action, a corrupted record line, JSON nested too deeply), 403 an action for another seat (and the
guard's refusals), 404 an unknown or closed table or record (saying why), 409 a request the game
does not allow now (a stale or double click, not the person's turn, a game that has ended) or a
table busy with a move, 413 a body too large; 503 when every table the server keeps is in play.
Anything else is a 500 with one line, its details in the server's log.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from pathlib import Path
from typing import Any, Mapping

from card_envs.web.guard import Guard, Hosts
from card_envs.web.limits import MAX_BODY, json_object
from card_envs.web.offer import Offer
from card_envs.web.replays import Replays
from card_envs.web.tables import Conflict, Forbidden, NotFound, Tables, Unavailable, game_catalogue

STATIC = Path(__file__).resolve().parent / "static"
log = logging.getLogger("card_envs.web")


def create_app(records: str | Path | None = None, tables: Tables | None = None, replays: Replays | None = None,
               *, agents: Mapping[str, str] | None = None, host: str = "127.0.0.1",
               allowed_hosts: tuple[str, ...] = (), access_token: str | None = None, secret: str | None = None):
    """The Starlette app. ``records``: a records file (JSON Lines) offered for replay; ``agents``:
    the agents the person names at start-up (name -> any agent spec), offered by name; ``host``:
    the address the server is bound to (with ``allowed_hosts``, the names a request's ``Host``
    may give); ``access_token``: required on every request where given (a server other machines
    can reach); ``secret``: the page's secret for requests that change something (random by
    default; ``app.state.secret``)."""
    from starlette.applications import Starlette
    from starlette.concurrency import run_in_threadpool
    from starlette.exceptions import HTTPException
    from starlette.requests import Request
    from starlette.responses import JSONResponse, PlainTextResponse, Response
    from starlette.routing import Mount, Route
    from starlette.staticfiles import StaticFiles

    if tables is None:
        tables = Tables(offer=Offer(agents))
    elif agents:
        raise ValueError("give the start-up agents to the Tables' offer (Tables(offer=Offer(agents))), not both")
    replays = Replays() if replays is None else replays
    if records is not None:
        path = Path(records)
        if not path.is_file():
            raise ValueError(f"no records file {str(path)!r}")
        replays.add_text(path.read_text(encoding="utf-8"), source=path.name, pinned=True)
    catalogue = {"games": game_catalogue(), "agents": tables.offer.describe()}
    secret = secrets.token_urlsafe(24) if secret is None else secret
    page = (STATIC / "index.html").read_text(encoding="utf-8").replace("{{secret}}", secret)

    def error(status: int, text: str) -> JSONResponse:
        lines = str(text).strip().splitlines()
        return JSONResponse({"error": lines[0] if lines else "bad request"}, status)

    def guarded(handler):
        """``handler``, with a refusal as its 4xx and anything unexpected as a 500 line."""

        async def endpoint(request: Request) -> Response:
            try:
                return await handler(request)
            except NotFound as e:
                return error(404, str(e))
            except Forbidden as e:
                return error(403, str(e))
            except Conflict as e:
                return error(409, str(e))
            except Unavailable as e:
                return error(503, str(e))
            except ValueError as e:
                return error(400, str(e))
            except RecursionError:
                return error(400, "the request is nested too deeply")
            except Exception as e:  # noqa: BLE001  one line for the page, the details for the log
                log.exception("the web table failed on %s %s", request.method, request.url.path)
                return error(500, f"the server failed ({type(e).__name__}); its log has the details")

        return endpoint

    async def body_json(request: Request) -> dict[str, Any]:
        raw = await request.body()
        if len(raw) > MAX_BODY:
            raise ValueError(f"the request is larger than {MAX_BODY} bytes")
        return json_object(raw or b"{}", "the request body")

    async def locked(table, f, *args):
        table.try_lock()  # a busy table answers 409 at once: no request waits for it
        try:
            return await run_in_threadpool(f, *args)
        finally:
            table.lock.release()

    async def move(table, f, *args):
        return await asyncio.wrap_future(tables.start(table, f, *args))

    async def index(request: Request) -> Response:
        return Response(page, media_type="text/html")

    async def games(request: Request) -> Response:
        return JSONResponse(catalogue)

    async def new_table(request: Request) -> Response:
        data = await body_json(request)
        unknown = sorted(set(data) - {"env", "options", "seat", "opponents", "seed"})
        if unknown:
            raise ValueError(f"unknown field(s) {', '.join(map(str, unknown))[:200]}; a new table takes env, options, "
                             "seat, opponents, seed")
        if "env" not in data:
            import card_envs

            raise ValueError(f"which game? give env ({', '.join(card_envs.REGISTERED)})")
        table = await run_in_threadpool(tables.open, data["env"], data.get("options") or {}, data.get("seat", 0),
                                        data.get("opponents"), data.get("seed"))
        return JSONResponse(await locked(table, table.view), 201)

    async def show_table(request: Request) -> Response:
        table = tables.get(request.path_params["id"])
        return JSONResponse(await locked(table, table.view))

    async def advance(request: Request) -> Response:
        table = tables.get(request.path_params["id"])
        return JSONResponse(await move(table, table.advance))

    async def act(request: Request) -> Response:
        table = tables.get(request.path_params["id"])
        data = await body_json(request)
        if "action" not in data or "step" not in data:
            raise ValueError("an action needs action (its index) and step (the step the page shows)")
        return JSONResponse(await move(table, table.act, data["action"], data["step"], data.get("seat")))

    async def record(request: Request) -> Response:
        table = tables.get(request.path_params["id"])
        line = await locked(table, table.record_line)
        name = f"{table.env_name}-{table.id[:6]}.jsonl"
        return PlainTextResponse(line + "\n", media_type="application/x-ndjson",
                                 headers={"Content-Disposition": f'attachment; filename="{name}"'})

    async def close(request: Request) -> Response:
        closed = tables.close(request.path_params["id"])
        return JSONResponse({"closed": closed})

    async def list_records(request: Request) -> Response:
        return JSONResponse({"records": [r.summary() for r in replays.all()]})

    async def upload_records(request: Request) -> Response:
        data = await body_json(request)
        unknown = sorted(set(data) - {"name", "records"})
        if unknown or not isinstance(data.get("records"), str):
            raise ValueError('an upload is {"name": the file\'s name, "records": its text (JSON Lines)}')
        name = data.get("name") or "upload"
        if not isinstance(name, str):
            raise ValueError("name must be the file's name (a string)")
        upload = await run_in_threadpool(replays.add_text, data["records"], name[:100])
        out: dict[str, Any] = {"added": [r.summary() for r in upload.added], "dropped": upload.dropped}
        if upload.dropped:
            out["note"] = (f"the web table keeps at most {replays.max_records} uploaded records "
                           f"({replays.max_bytes} bytes): the {upload.dropped} oldest were dropped")
        return JSONResponse(out, 201)

    async def record_step(request: Request) -> Response:
        text = request.path_params["step"]
        if not text.isdigit() or len(text) > 9:
            raise ValueError(f"step must be a non-negative int, got {text[:20]!r}")
        seat = request.query_params.get("seat")
        out = await run_in_threadpool(replays.step, request.path_params["id"], int(text), seat)
        return JSONResponse(out)

    async def http_error(request: Request, exc: HTTPException) -> Response:
        return error(exc.status_code, exc.detail or "refused")

    async def server_error(request: Request, exc: Exception) -> Response:
        log.exception("the web table failed on %s %s", request.method, request.url.path)
        return error(500, f"the server failed ({type(exc).__name__}); its log has the details")

    routes = [
        Route("/", index),
        Route("/api/games", guarded(games)),
        Route("/api/tables", guarded(new_table), methods=["POST"]),
        Route("/api/tables/{id}", guarded(show_table), methods=["GET"]),
        Route("/api/tables/{id}", guarded(close), methods=["DELETE"]),
        Route("/api/tables/{id}/advance", guarded(advance), methods=["POST"]),
        Route("/api/tables/{id}/act", guarded(act), methods=["POST"]),
        Route("/api/tables/{id}/record", guarded(record), methods=["GET"]),
        Route("/api/tables/{id}/close", guarded(close), methods=["POST"]),
        Route("/api/records", guarded(list_records), methods=["GET"]),
        Route("/api/records", guarded(upload_records), methods=["POST"]),
        Route("/api/records/{id}/steps/{step}", guarded(record_step), methods=["GET"]),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(routes=routes, exception_handlers={HTTPException: http_error, Exception: server_error})
    app.state.tables = tables
    app.state.replays = replays
    app.state.secret = secret
    app.state.access_token = access_token
    app.add_middleware(Guard, secret=secret, hosts=Hosts(host, allowed_hosts), access_token=access_token)
    return app


def local_client(app: Any, *, port: int = 8000):
    """An HTTP client of ``app`` without a server (Starlette's ``TestClient``, which needs the
    ``dev`` extra's HTTP client), seated as the table's own page: requests to
    ``http://127.0.0.1:PORT`` with the page's secret (and the access token, where the app has
    one)."""
    from starlette.testclient import TestClient

    headers = {"X-Card-Envs-Token": app.state.secret}
    if app.state.access_token is not None:
        headers["Authorization"] = f"Bearer {app.state.access_token}"
    return TestClient(app, base_url=f"http://127.0.0.1:{port}", headers=headers)
