"""The web table's HTTP interface (a Starlette app): the page, and a JSON API under ``/api``.

=======================================  ================================================
``GET  /``                               the page (HTML, one script, one style sheet)
``GET  /api/games``                      the games, their seats and options with defaults
``POST /api/tables``                     a new table: ``{"env", "options", "seat",
                                         "opponents", "seed"}`` -> the person's view
``GET  /api/tables/{id}``                the person's view now
``POST /api/tables/{id}/advance``        the next other seat's action -> the view
``POST /api/tables/{id}/act``            ``{"action", "step"[, "seat"]}`` -> the view
``GET  /api/tables/{id}/record``         the finished game's record (one JSON line)
``POST /api/tables/{id}/close``          closes the table (also ``DELETE /api/tables/{id}``)
``GET  /api/records``                    the records to replay
``POST /api/records``                    adds the records of a JSON Lines body
``GET  /api/records/{id}/steps/{k}``     record ``id`` at step ``k``, ``?seat=player_1``
                                         for that seat's view (default: a spectator's)
=======================================  ================================================

The person's view holds only what their seat sees (see :mod:`card_envs.web.tables`). Every
refusal is a 4xx with ``{"error": one line}`` and changes nothing: 400 bad input (an unknown
game, option, agent spec, an illegal action, a corrupted record line), 403 an action for another
seat, 404 an unknown or closed table or record, 409 a request the game does not allow now (a
stale or double click, not the person's turn, a game that has ended).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from card_envs.web.tables import Conflict, Forbidden, NotFound, Replays, Tables, game_catalogue

STATIC = Path(__file__).resolve().parent / "static"
#: the largest JSON or records body the server reads
MAX_BODY = 8 * 1024 * 1024


def create_app(records: str | Path | None = None, tables: Tables | None = None, replays: Replays | None = None):
    """The Starlette app; ``records``: a records file (JSON Lines) offered for replay."""
    from starlette.applications import Starlette
    from starlette.concurrency import run_in_threadpool
    from starlette.requests import Request
    from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, Response
    from starlette.routing import Mount, Route
    from starlette.staticfiles import StaticFiles

    tables = Tables() if tables is None else tables
    replays = Replays() if replays is None else replays
    if records is not None:
        path = Path(records)
        if not path.is_file():
            raise ValueError(f"no records file {str(path)!r}")
        replays.add_text(path.read_text(encoding="utf-8"), source=path.name)
    catalogue = game_catalogue()

    def error(status: int, text: str) -> JSONResponse:
        return JSONResponse({"error": text.strip().splitlines()[0] if text.strip() else "bad request"}, status)

    def guarded(handler):
        """Runs ``handler`` in a worker thread; a refusal becomes its 4xx."""

        async def endpoint(request: Request) -> Response:
            try:
                return await handler(request)
            except NotFound as e:
                return error(404, str(e))
            except Forbidden as e:
                return error(403, str(e))
            except Conflict as e:
                return error(409, str(e))
            except ValueError as e:
                return error(400, str(e))

        return endpoint

    async def body_json(request: Request) -> dict[str, Any]:
        raw = await request.body()
        if len(raw) > MAX_BODY:
            raise ValueError(f"the request is larger than {MAX_BODY} bytes")
        try:
            data = json.loads(raw or b"{}")
        except (json.JSONDecodeError, UnicodeDecodeError) as e:
            raise ValueError(f"the request body is not JSON: {e}") from None
        if not isinstance(data, dict):
            raise ValueError("the request body must be a JSON object")
        return data

    def locked(table, f, *args):
        with table.lock:  # one request at a time per table: a double click waits, then is stale
            return f(*args)

    async def index(request: Request) -> Response:
        return FileResponse(STATIC / "index.html", media_type="text/html")

    async def games(request: Request) -> Response:
        return JSONResponse({"games": catalogue})

    async def new_table(request: Request) -> Response:
        data = await body_json(request)
        unknown = sorted(set(data) - {"env", "options", "seat", "opponents", "seed"})
        if unknown:
            raise ValueError(f"unknown field(s) {', '.join(unknown)}; a new table takes env, options, seat, "
                             "opponents, seed")
        if "env" not in data:
            raise ValueError("which game? give env (golf, fiddlesticks, guillotine, collector, hot, guilders)")
        table = await run_in_threadpool(tables.open, data["env"], data.get("options") or {}, data.get("seat", 0),
                                        data.get("opponents") or ["heuristic"], data.get("seed"))
        return JSONResponse(await run_in_threadpool(locked, table, table.view), 201)

    async def show_table(request: Request) -> Response:
        table = tables.get(request.path_params["id"])
        return JSONResponse(await run_in_threadpool(locked, table, table.view))

    async def advance(request: Request) -> Response:
        table = tables.get(request.path_params["id"])
        return JSONResponse(await run_in_threadpool(locked, table, table.advance))

    async def act(request: Request) -> Response:
        table = tables.get(request.path_params["id"])
        data = await body_json(request)
        if "action" not in data or "step" not in data:
            raise ValueError("an action needs action (its index) and step (the step the page shows)")
        return JSONResponse(await run_in_threadpool(locked, table, table.act, data["action"], data["step"],
                                                    data.get("seat")))

    async def record(request: Request) -> Response:
        table = tables.get(request.path_params["id"])
        line = await run_in_threadpool(locked, table, table.record_line)
        name = f"{table.env_name}-{table.id[:6]}.jsonl"
        return PlainTextResponse(line + "\n", media_type="application/x-ndjson",
                                 headers={"Content-Disposition": f'attachment; filename="{name}"'})

    async def close(request: Request) -> Response:
        closed = tables.close(request.path_params["id"])
        return JSONResponse({"closed": closed})

    async def list_records(request: Request) -> Response:
        return JSONResponse({"records": [r.summary() for r in replays.all()]})

    async def upload_records(request: Request) -> Response:
        raw = await request.body()
        if len(raw) > MAX_BODY:
            raise ValueError(f"the records file is larger than {MAX_BODY} bytes")
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise ValueError("the records file is not UTF-8 text (JSON Lines)") from None
        name = request.query_params.get("name") or "upload"
        added = await run_in_threadpool(replays.add_text, text, name)
        return JSONResponse({"added": [r.summary() for r in added]}, 201)

    async def record_step(request: Request) -> Response:
        try:
            step = int(request.path_params["step"])
        except ValueError:
            raise ValueError(f"step must be an int, got {request.path_params['step']!r}") from None
        seat = request.query_params.get("seat")
        out = await run_in_threadpool(replays.step, request.path_params["id"], step, seat)
        return JSONResponse(out)

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
    app = Starlette(routes=routes)
    app.state.tables = tables
    app.state.replays = replays
    return app
