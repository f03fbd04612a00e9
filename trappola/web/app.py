"""The web app: the page (``static/``) and its JSON API.

    POST   /api/tables             {"opponent": spec, "parties": 1, "seat": "challenger", "seed": null,
                                    "advisers": []}   (0-2 specs: a session of 3-4 players with advice)
    GET    /api/tables/{id}        the table's state, from the person's side
    POST   /api/tables/{id}/action {"action": id}     (docs/rules.md section 9)
    POST   /api/tables/{id}/next   {}: the next partie of a session
    POST   /api/tables/{id}/hint   {}: what pimc thinks of each legal card now
    POST   /api/tables/{id}/pace   {"pace": 0.8}: seconds between the moves a waiting person watches
    GET    /api/tables/{id}/games  the finished parties as games.jsonl (application/x-ndjson), for Replay
    DELETE /api/tables/{id}        close the table (its opponent stops)
    POST   /api/replays?name=N     a saved-games file (application/x-ndjson) -> {"id", "name", "games"}
    GET    /api/replays/{id}       the game list of an open file
    GET    /api/replays/{id}/{k}   the frames of game k
    POST   /api/leaderboard        an evaluate --json summary (application/json) -> tables
    POST   /api/analysis/declarations  an analyze declarations --json file -> its rows (Analysis)
    POST   /api/analysis/pro-chart     an analyze pro --json file -> the take-point chart (Analysis)
    GET    /api/players            the players the web table offers

Every refusal (a foreign page or host, an opponent the web does not
offer, an illegal or untimely move, a malformed or oversized file, a game
that has expired) answers a 4xx status (503 when every table is in use)
with ``{"detail": message}``; the page shows the message and the server
carries on. Who may call the API: ``guard``; which opponents: ``opponents``;
where they think: ``thinking``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from pathlib import Path

import anyio
from fastapi import FastAPI, Request
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles

from trappola.web import analysis
from trappola.web.body import json_object, read_limited
from trappola.web.errors import WebError
from trappola.web.guard import Guard, media_type
from trappola.web.hint import hint
from trappola.web.leaderboard import leaderboard
from trappola.web.opponents import WEB_SETTINGS, web_player
from trappola.web.play import MAX_ADVISERS, PlayTable, Tables
from trappola.web.replay import MAX_BYTES, Replays
from trappola.web.thinking import ThinkingPool

STATIC = Path(__file__).parent / "static"


async def _upload(request: Request, kind: str, lock: asyncio.Lock) -> bytearray:
    """An uploaded file's bytes, declared as ``kind``, at most ``MAX_BYTES``."""
    if media_type(request.headers.get("content-type")) != kind:
        raise WebError(f"the file must be sent as {kind}", 415)
    async with lock:  # one upload at a time, so memory stays within one file's limit
        return await read_limited(request, MAX_BYTES, "the file")


def _add_pages(app: FastAPI) -> None:
    """The page, its static files and the opponents offered."""

    @app.api_route("/", methods=["GET", "HEAD"], include_in_schema=False)
    def index():
        return FileResponse(STATIC / "index.html")

    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    @app.get("/api/players")
    def players():
        from trappola.agents import REGISTRY

        return [{"name": n, "about": REGISTRY[n].help, "settings": list(keys)} for n, keys in WEB_SETTINGS.items()]


def _add_table_routes(app: FastAPI, tables: Tables, pool: ThinkingPool, make_player) -> None:
    """The tables: open one against built opponents, play, pace, download, hint."""

    @app.post("/api/tables")
    async def new_table(request: Request):
        body = await json_object(request)
        spec = body.get("opponent", "rule")
        advisers = body.get("advisers", [])
        if not isinstance(advisers, list) or not all(isinstance(a, str) for a in advisers):
            raise WebError('advisers must be a list of player specs like ["rule", "pimc"]')
        if len(advisers) > MAX_ADVISERS:
            raise WebError(f"at most {MAX_ADVISERS} advisers (4 players in all), got {len(advisers)}")
        # Building a player may read its model: off the event loop.
        built = []
        for s in [spec, *advisers]:
            try:
                built.append(await anyio.to_thread.run_sync(make_player, s))
            except WebError:
                raise
            except ValueError as e:  # a make_player of the caller's that refuses the spec
                raise WebError(f"player spec: {e}") from None
        table = PlayTable(
            built[0],
            parties=body.get("parties", 1),
            seat=body.get("seat", "challenger"),
            seed=body.get("seed"),
            submit=pool.submit,
            advisers=built[1:],
            setup={"opponent": spec, "advisers": advisers},
            pace=body.get("pace", 0.0),
        )
        tables.add(table)
        return table.state()

    @app.get("/api/tables/{table_id}")
    def table_state(table_id: str):
        return tables.get(table_id).state()

    @app.delete("/api/tables/{table_id}")
    def close_table(table_id: str):
        tables.close(table_id)
        return {"closed": table_id}

    @app.post("/api/tables/{table_id}/action")
    async def table_action(table_id: str, request: Request):
        table = tables.get(table_id)
        body = await json_object(request)
        if "action" not in body:
            raise WebError("missing 'action' (an action id, 0..48)")
        table.act(body["action"])
        return table.state()

    @app.post("/api/tables/{table_id}/next")
    async def table_next(table_id: str, request: Request):
        table = tables.get(table_id)
        await json_object(request)
        table.next_partie()
        return table.state()

    @app.post("/api/tables/{table_id}/pace")
    async def table_pace(table_id: str, request: Request):
        table = tables.get(table_id)
        body = await json_object(request)
        table.set_pace(body.get("pace"))
        return {"pace": table.pace}

    @app.get("/api/tables/{table_id}/games")
    def table_games(table_id: str):
        lines = [json.dumps(g, separators=(",", ":"), allow_nan=False) + "\n" for g in tables.get(table_id).games()]
        return Response(
            "".join(lines),
            media_type="application/x-ndjson",
            headers={"Content-Disposition": f'attachment; filename="trappola-{table_id}.jsonl"'},
        )

    @app.post("/api/tables/{table_id}/hint")
    async def table_hint(table_id: str, request: Request):
        table = tables.get(table_id)
        await json_object(request)
        return await asyncio.wrap_future(pool.submit(lambda: hint(table)))


def _add_file_routes(app: FastAPI, replays: Replays, upload_lock: asyncio.Lock) -> None:
    """Uploaded files: saved games to replay, an evaluation summary's leaderboard, analysis files."""

    # Replays answer JSON text made in a worker thread: a file's game list can
    # be large, and encoding it on the event loop would stall every table.
    @app.post("/api/replays")
    async def open_replay(request: Request):
        data = await _upload(request, "application/x-ndjson", upload_lock)
        try:
            listing = await anyio.to_thread.run_sync(replays.open, data, request.query_params.get("name", ""))
        except ValueError as e:
            raise WebError(f"not a saved-games file: {e}") from None
        return Response(listing, media_type="application/json")

    @app.get("/api/replays/{file_id}")
    def replay_listing(file_id: str):
        try:
            return Response(replays.listing(file_id), media_type="application/json")
        except KeyError as e:
            raise WebError(e.args[0], 404) from None

    @app.get("/api/replays/{file_id}/{k}")
    async def replay_game(file_id: str, k: int):
        try:
            return Response(await anyio.to_thread.run_sync(replays.game, file_id, k), media_type="application/json")
        except KeyError as e:
            raise WebError(e.args[0], 404) from None

    @app.post("/api/leaderboard")
    async def open_leaderboard(request: Request):
        data = await _upload(request, "application/json", upload_lock)
        try:
            return await anyio.to_thread.run_sync(lambda: leaderboard(data.decode("utf-8")))
        except UnicodeDecodeError:
            raise WebError("not an evaluation summary: the file is not UTF-8 text") from None
        except ValueError as e:
            raise WebError(f"not an evaluation summary: {e}") from None

    @app.post("/api/analysis/{kind}")
    async def open_analysis(kind: str, request: Request):
        readers = {"declarations": analysis.declarations, "pro-chart": analysis.pro_chart}
        if kind not in readers:
            raise WebError("the Analysis view opens 'declarations' or 'pro-chart' files", 404)
        data = await _upload(request, "application/json", upload_lock)
        try:
            return await anyio.to_thread.run_sync(lambda: readers[kind](data.decode("utf-8")))
        except UnicodeDecodeError:
            raise WebError("not an analysis file: the file is not UTF-8 text") from None
        except ValueError as e:
            raise WebError(f"not an analysis file: {e}") from None


def create_app(make_player=None, *, hosts=(), workers: int | None = None, tables: Tables | None = None) -> FastAPI:
    """The app. ``make_player(spec)`` builds opponents (default:
    ``opponents.web_player``, the bounded specs; tests pass their own);
    ``hosts``: host names it answers to besides this machine's
    (``guard``); ``workers``: threads where opponents think (``thinking``);
    ``tables``: the open tables (default ``Tables()``)."""
    make_player = make_player or web_player
    pool = ThinkingPool(workers)
    tables = tables if tables is not None else Tables()
    replays = Replays()
    upload_lock = asyncio.Lock()

    @contextlib.asynccontextmanager
    async def lifespan(app):
        yield
        tables.close_all()
        pool.shutdown()

    app = FastAPI(title="Trappola lab", docs_url=None, redoc_url=None, openapi_url=None, lifespan=lifespan)
    app.state.tables, app.state.pool, app.state.replays = tables, pool, replays
    app.add_middleware(Guard, hosts=hosts)

    @app.exception_handler(WebError)
    async def refused(request, exc: WebError):
        return JSONResponse({"detail": str(exc)}, status_code=exc.status)

    _add_pages(app)
    _add_table_routes(app, tables, pool, make_player)
    _add_file_routes(app, replays, upload_lock)
    return app
