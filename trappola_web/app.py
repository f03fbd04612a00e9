"""The web app: the page (``static/``) and its JSON API.

    POST /api/tables            {"opponent": spec, "parties": 1, "seat": "challenger", "seed": null,
                                 "advisers": []}   (0-2 specs: waiting players who advise in Pro parties)
    GET  /api/tables/{id}       the table's state, from the person's side
    POST /api/tables/{id}/action {"action": id}     (docs/rules.md section 9)
    POST /api/tables/{id}/next  the next partie of a session
    POST /api/replays           the text of a saved-games file -> {"id", "games"}
    GET  /api/replays/{id}/{k}  the frames of game k
    POST /api/leaderboard       the text of an evaluate --json summary -> tables
    GET  /api/players           the registered players

Every refusal (an unknown player spec, an illegal or untimely move, a
malformed file) answers a 4xx status with ``{"detail": message}``; the
page shows the message and the server carries on.
"""
from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles

from .leaderboard import leaderboard
from .play import PlayTable, TableError, Tables
from .replay import MAX_BYTES, Replays

STATIC = Path(__file__).parent / "static"


class BadRequest(Exception):
    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status


async def _json_object(request: Request) -> dict:
    try:
        body = await request.json()
    except ValueError:
        raise BadRequest("the request body must be a JSON object") from None
    if not isinstance(body, dict):
        raise BadRequest("the request body must be a JSON object")
    return body


async def _text(request: Request) -> str:
    body = await request.body()
    if len(body) > MAX_BYTES:
        raise BadRequest(f"the file is larger than {MAX_BYTES // (1024 * 1024)} MB", 413)
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError:
        raise BadRequest("the file is not UTF-8 text") from None


def create_app(make_player=None) -> FastAPI:
    """The app; ``make_player(spec)`` builds opponents (default:
    ``agents.make_player``; tests pass their own)."""
    if make_player is None:
        from agents import make_player
    app = FastAPI(title="Trappola lab", docs_url=None, redoc_url=None)
    tables, replays = Tables(), Replays()

    @app.exception_handler(BadRequest)
    async def bad_request(request, exc: BadRequest):
        return JSONResponse({"detail": str(exc)}, status_code=exc.status)

    @app.exception_handler(TableError)
    async def table_error(request, exc: TableError):
        return JSONResponse({"detail": str(exc)}, status_code=exc.status)

    @app.get("/", include_in_schema=False)
    def index():
        return FileResponse(STATIC / "index.html")

    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    @app.get("/api/players")
    def players():
        from agents import REGISTRY

        return [{"name": n, "about": about} for n, (_, about, _) in REGISTRY.items() if n != "human"]

    @app.post("/api/tables")
    async def new_table(request: Request):
        body = await _json_object(request)
        spec = body.get("opponent", "rule")
        if not isinstance(spec, str):
            raise BadRequest(f"opponent must be a player spec like 'rule', got {spec!r}")
        advisers = body.get("advisers", [])
        if not isinstance(advisers, list) or not all(isinstance(a, str) for a in advisers):
            raise BadRequest(f"advisers must be a list of player specs, got {advisers!r}")
        built = []
        for s in [spec, *advisers]:
            try:
                built.append(make_player(s))
            except ValueError as e:
                raise BadRequest(f"player spec {s!r}: {e}") from None
        table = PlayTable(built[0], parties=body.get("parties", 1), seat=body.get("seat", "challenger"),
                          seed=body.get("seed"), advisers=built[1:])
        tables.add(table)
        return table.state()

    @app.get("/api/tables/{table_id}")
    def table_state(table_id: str):
        return tables.get(table_id).state()

    @app.post("/api/tables/{table_id}/action")
    async def table_action(table_id: str, request: Request):
        table = tables.get(table_id)
        body = await _json_object(request)
        if "action" not in body:
            raise BadRequest("missing 'action' (an action id, 0..48)")
        table.act(body["action"])
        return table.state()

    @app.post("/api/tables/{table_id}/next")
    def table_next(table_id: str):
        table = tables.get(table_id)
        table.next_partie()
        return table.state()

    @app.post("/api/replays")
    async def open_replay(request: Request):
        text = await _text(request)
        try:
            file_id, games = replays.open(text)
        except ValueError as e:
            raise BadRequest(f"not a saved-games file: {e}") from None
        return {"id": file_id, "games": games}

    @app.get("/api/replays/{file_id}/{k}")
    def replay_game(file_id: str, k: int):
        try:
            return replays.game(file_id, k)
        except KeyError as e:
            raise BadRequest(e.args[0], 404) from None

    @app.post("/api/leaderboard")
    async def open_leaderboard(request: Request):
        text = await _text(request)
        try:
            return leaderboard(text)
        except ValueError as e:
            raise BadRequest(f"not an evaluation summary: {e}") from None

    return app
