"""The web app is safe against any page and any request (it runs on the
user's machine): no foreign host or page may use the API, opponents come
from a bounded list and think on a bounded pool that stops when their
table closes, no request opens a file, uploads stay within their limit
while they arrive and are parsed off the event loop, and deeply nested
JSON is a 4xx."""

import json
import os
import threading
import time
import tracemalloc
import warnings

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

with warnings.catch_warnings():  # starlette's notice about its httpx client, not about this project
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

from trappola.agents.base import Player
from trappola.agents.evaluation import head_to_head
from trappola.web import app as web_app
from trappola.web import opponents
from trappola.web import replay as replay_module
from trappola.web.app import create_app
from trappola.web.play import Tables
from trappola.web.replay import Replays

BASE = "http://127.0.0.1:8000"
JSON = {"Content-Type": "application/json"}
NDJSON = {"Content-Type": "application/x-ndjson"}


def local(app=None, **kw):
    return TestClient(app or create_app(), base_url=BASE, raise_server_exceptions=False, **kw)


@pytest.fixture
def client():
    with local() as c:
        yield c


class SlowPlayer(Player):
    """Plays its lowest legal action once ``release`` is set, counting the
    decisions it starts and how many run at once."""

    kind = "slow"
    lock = threading.Lock()
    started = 0
    running = 0
    most = 0

    def __init__(self, release):
        super().__init__()
        self.release = release

    def act(self, view):
        cls = type(self)
        with cls.lock:
            cls.started += 1
            cls.running += 1
            cls.most = max(cls.most, cls.running)
        try:
            assert self.release.wait(20)
            return view.legal_actions[0]
        finally:
            with cls.lock:
                cls.running -= 1


def _slow_class():
    return type("Slow", (SlowPlayer,), {"lock": threading.Lock(), "started": 0, "running": 0, "most": 0})


def _wait_for(condition, timeout=20.0):
    end = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < end, "timed out"
        time.sleep(0.01)


# ------------------------------------------------------------ 1. who may call
def test_a_foreign_host_is_refused_everywhere(client):
    for path in ("/", "/api/players", "/static/app.js"):
        r = client.get(path, headers={"Host": "evil.example"})
        assert r.status_code == 421 and "evil.example" in r.json()["detail"], path
        assert client.get(path, headers={"Host": "evil.example:8000"}).status_code == 421
    r = client.post("/api/tables", json={"opponent": "rule"}, headers={"Host": "evil.example"})
    assert r.status_code == 421 and len(client.app.state.tables) == 0
    for host in ("localhost:8000", "127.0.0.1", "[::1]:8000"):
        assert client.get("/api/players", headers={"Host": host}).status_code == 200, host
    with local(create_app(hosts=["table.lan"])) as other:
        assert other.get("/api/players", headers={"Host": "table.lan:8000"}).status_code == 200


def test_another_sites_page_cannot_start_a_table(client):
    body = json.dumps({"opponent": "rule", "seed": 1})
    # What a no-cors fetch from another origin sends: a simple content type and that origin.
    for headers in (
        {"Origin": "http://evil.example", "Content-Type": "text/plain"},
        {"Origin": "http://evil.example", "Content-Type": "application/json"},
        {"Origin": "null", "Content-Type": "application/json"},
        {"Sec-Fetch-Site": "cross-site", "Content-Type": "application/json"},
        {"Origin": "http://127.0.0.1:3000", "Content-Type": "application/json"},
    ):
        r = client.post("/api/tables", content=body, headers=headers)
        assert r.status_code == 403 and "another site" in r.json()["detail"], headers
    # The page itself, and clients that are no browser, may.
    ok = client.post("/api/tables", content=body, headers={"Origin": BASE, "Sec-Fetch-Site": "same-origin", **JSON})
    assert ok.status_code == 200
    assert client.post("/api/tables", content=body, headers=JSON).status_code == 200
    assert len(client.app.state.tables) == 2


@pytest.mark.parametrize(
    "content_type", [None, "text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"]
)
def test_api_posts_need_a_json_body_type(client, content_type):
    headers = {} if content_type is None else {"Content-Type": content_type}
    r = client.post("/api/tables", content=json.dumps({"opponent": "rule"}), headers=headers)
    assert r.status_code == 415 and "application/json" in r.json()["detail"]
    st = client.post("/api/tables", json={"opponent": "rule", "seed": 3}).json()
    for path in ("action", "next", "hint"):
        assert client.post(f"/api/tables/{st['id']}/{path}", content="{}", headers=headers).status_code == 415
    assert client.post("/api/replays", content="x", headers=headers).status_code == 415
    assert client.post("/api/leaderboard", content="{}", headers=headers).status_code == 415
    assert len(client.app.state.tables) == 1


@pytest.mark.parametrize(
    "spec, what",
    [
        ("pimc:samples=1000000,exact=1000000", "samples=1000000"),
        ("pimc:exact=100000", "exact=100000"),
        ("pimc:belief_draws=1000000", "belief_draws"),
        ("rule:answer_rollouts=100000", "answer_rollouts"),
        ("policy:endgame_samples=5000", "endgame_samples"),
        ("pimc:pro_vs=rule", "'pro_vs'"),
        ("human", "unknown player 'human'"),
        ("x" * 300, "longer than 200"),
    ],
)
def test_only_bounded_opponents(client, spec, what):
    before = set(_thinking_threads())  # other tests' apps may have left idle pools
    r = client.post("/api/tables", json={"opponent": spec})
    assert r.status_code == 400 and what in r.json()["detail"], r.text
    assert len(client.app.state.tables) == 0 and set(_thinking_threads()) == before


def _thinking_threads():
    return [t for t in threading.enumerate() if t.name.startswith(("trappola-thinking", "table-"))]


def test_opponents_think_on_a_bounded_pool_that_stops_closed_tables():
    release = threading.Event()
    slow = _slow_class()
    others = set(_thinking_threads())
    app = create_app(make_player=lambda spec: slow(release), workers=2)
    with local(app) as client:
        ids = [
            client.post("/api/tables", json={"opponent": "slow", "seat": "dealer", "seed": k}).json()["id"]
            for k in range(12)
        ]
        _wait_for(lambda: slow.running == 2)
        time.sleep(0.2)
        ours = [t for t in _thinking_threads() if t not in others]
        assert slow.started == 2 and len(ours) == 2
        # Close every table but the first: queued decisions never start, running ones are dropped.
        for table_id in ids[1:]:
            assert client.delete(f"/api/tables/{table_id}").status_code == 200
        release.set()
        first = _wait_for_turn(client, ids[0])
        assert first["your_turn"] and not first["thinking"]
        time.sleep(0.2)
        assert slow.started == 2 and slow.most == 2
        for table_id in ids[1:]:
            r = client.get(f"/api/tables/{table_id}")
            assert r.status_code == 410 and "expired" in r.json()["detail"]


def _wait_for_turn(client, table_id):
    state = {}

    def ready():
        state.update(client.get(f"/api/tables/{table_id}").json())
        return state["your_turn"]

    _wait_for(ready)
    return state


def test_tables_make_room_only_from_idle_ones_and_say_why_a_game_is_gone():
    now = [0.0]
    tables = Tables(limit=2, make_room_after=60, expire_after=3600, clock=lambda: now[0])
    with local(create_app(tables=tables)) as client:
        a = client.post("/api/tables", json={"opponent": "rule", "seed": 1}).json()["id"]
        b = client.post("/api/tables", json={"opponent": "rule", "seed": 2}).json()["id"]
        r = client.post("/api/tables", json={"opponent": "rule", "seed": 3})
        assert r.status_code == 503 and "2 games in play" in r.json()["detail"]
        now[0] = 100.0
        assert client.get(f"/api/tables/{a}").status_code == 200  # a is used: b is now the least recent
        c = client.post("/api/tables", json={"opponent": "rule", "seed": 3})
        assert c.status_code == 200
        r = client.get(f"/api/tables/{b}")
        assert r.status_code == 410 and "least recently used" in r.json()["detail"]
        now[0] = 100.0 + 3600
        r = client.get(f"/api/tables/{a}")
        assert r.status_code == 410 and "no request reached it for 1 hours" in r.json()["detail"]
        assert client.get("/api/tables/0123456789abcdef").status_code == 404


# --------------------------------------------------------- 2. no file opened
@pytest.mark.parametrize(
    "spec",
    [
        "policy:/etc/shadow",
        "policy:../../x",
        "policy:~root/x",
        "policy:path=/etc/passwd",
        "pimc:belief=/etc/passwd",
        "policy:endgame_belief=../x.npz",
        "pimc:belief=~/x",
    ],
)
def test_player_specs_never_reach_the_file_system(client, monkeypatch, spec):
    def no_building(spec):
        raise AssertionError(f"{spec} was built")

    monkeypatch.setattr(opponents, "make_player", no_building)
    r = client.post("/api/tables", json={"opponent": spec})
    detail = r.json()["detail"]
    assert r.status_code == 400, detail
    for leak in (os.getcwd(), "zip", "pickle", "No such file", "/root", "/etc", "shadow", "passwd"):
        assert leak not in detail, (leak, detail)


# ------------------------------------------------------------------ 3. uploads
def _post_chunks(app, path, content_type, chunks, length=None):
    """POST ``chunks`` to the ASGI ``app`` as a body arriving in pieces;
    (status, detail, bytes the app had taken when it answered)."""
    import asyncio

    headers = [(b"host", b"127.0.0.1:8000"), (b"content-type", content_type.encode())]
    if length is not None:
        headers.append((b"content-length", str(length).encode()))
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": headers,
        "client": ("127.0.0.1", 1),
        "server": ("127.0.0.1", 8000),
    }
    taken, sent = [0], []
    pieces = iter(chunks)

    async def receive():
        piece = next(pieces, None)
        if piece is None:
            return {"type": "http.request", "body": b"", "more_body": False}
        taken[0] += len(piece)
        return {"type": "http.request", "body": piece, "more_body": True}

    async def send(message):
        sent.append(message)

    asyncio.run(app(scope, receive, send))
    status = next(m["status"] for m in sent if m["type"] == "http.response.start")
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return status, json.loads(body)["detail"], taken[0]


def test_an_oversized_upload_is_refused_while_it_arrives(monkeypatch):
    monkeypatch.setattr(web_app, "MAX_BYTES", 1 << 20)
    app = create_app()
    chunk = b" " * (1 << 16)
    for path, kind in (("/api/replays", "application/x-ndjson"), ("/api/leaderboard", "application/json")):
        # 10 MB in 64 kB pieces, no length declared: refused after a little more than 1 MB.
        status, detail, taken = _post_chunks(app, path, kind, [chunk] * 160)
        assert status == 413 and "larger than 1 MB" in detail
        assert taken <= (1 << 20) + len(chunk), taken
        # A declared length over the limit: refused before any of the body is read.
        status, detail, taken = _post_chunks(app, path, kind, [chunk] * 160, length=10 << 20)
        assert status == 413 and taken == 0


@pytest.fixture(scope="module")
def game_line():
    games = head_to_head("rule", "random", 1, seed=9, workers=1, record_games=True).games
    return json.dumps(games[0]).encode()


def test_a_large_file_is_parsed_off_the_event_loop(game_line, monkeypatch):
    check_lines = replay_module.check_lines

    def slow_check(data):
        # Held a second whatever the machine's speed: on the event loop, this
        # blocking wait would hold every request made meanwhile.
        time.sleep(1.0)
        return check_lines(data)

    monkeypatch.setattr(replay_module, "check_lines", slow_check)
    data = b"\n".join([game_line] * 5000)
    with local() as client:
        result = {}

        def upload():
            start = time.monotonic()
            result["response"] = client.post("/api/replays?name=big.jsonl", content=data, headers=NDJSON)
            result["seconds"] = time.monotonic() - start

        thread = threading.Thread(target=upload)
        thread.start()
        answered = []
        while thread.is_alive():
            start = time.monotonic()
            assert client.get("/api/players").status_code == 200
            answered.append(time.monotonic() - start)
            time.sleep(0.02)
        thread.join()
    answered.sort()
    assert result["seconds"] > 1.0 and len(answered) >= 5, (answered, result["seconds"])
    assert answered[len(answered) // 2] < result["seconds"] / 5, (answered, result["seconds"])
    r = result["response"]
    assert r.status_code == 200 and len(r.json()["games"]) == 5000 and r.json()["name"] == "big.jsonl"


def test_an_open_file_is_kept_compact(game_line):
    data = b"\n".join([game_line] * 1000)
    replays = Replays()
    tracemalloc.start()
    try:
        before = tracemalloc.take_snapshot()
        opened = replays.open(data.decode())
        after = tracemalloc.take_snapshot()
    finally:
        tracemalloc.stop()
    held = sum(s.size_diff for s in after.compare_to(before, "filename"))
    assert held < 2 * len(data), (held, len(data))
    frames = json.loads(replays.game(json.loads(opened)["id"], 999))["frames"]
    assert frames[-1]["result"]["tokens"] == json.loads(game_line)["result"]["tokens"]


# --------------------------------------------------------------- 4. deep JSON
def test_deeply_nested_json_is_a_4xx(client):
    deep = "[" * 100000 + "]" * 100000
    r = client.post("/api/tables", content=deep, headers=JSON)
    assert r.status_code in (400, 413), r.status_code
    for path, kind in (("/api/leaderboard", JSON), ("/api/replays", NDJSON)):
        r = client.post(path, content=deep, headers=kind)
        assert r.status_code == 400 and "nested too deeply" in r.json()["detail"], (path, r.text)
    st = client.post("/api/tables", json={"opponent": "rule", "seed": 5}).json()
    r = client.post(f"/api/tables/{st['id']}/action", content="[" * 3000 + "]" * 3000, headers=JSON)
    assert r.status_code == 400 and "nested too deeply" in r.json()["detail"]


def test_every_answer_forbids_framing_and_inline_script(client):
    for r in (
        client.get("/"),
        client.get("/static/main.js"),
        client.get("/api/players"),
        client.post("/api/tables", json={"opponent": "nosuch"}),
        client.get("/", headers={"Host": "evil.example"}),
    ):
        csp = r.headers["content-security-policy"]
        assert r.headers["x-frame-options"] == "DENY" and "frame-ancestors 'none'" in csp, r.url
        assert "script-src 'self'" in csp and "unsafe-inline" not in csp
    # The page itself has no inline script or handler: the policy would block them.
    page = client.get("/").text
    assert "<script>" not in page and " onclick=" not in page and "javascript:" not in page
    assert all('src="/static/' in tag for tag in page.split("<script")[1:])


def test_the_421_answer_says_how_to_allow_a_host(client):
    r = client.get("/", headers={"Host": "table.lan"})
    assert r.status_code == 421 and "--allow-host" in r.json()["detail"]


def test_a_number_too_long_gets_a_plain_message(client):
    st = client.post("/api/tables", json={"opponent": "rule", "seed": 1}).json()
    body = '{"action": ' + "9" * 5000 + "}"
    r = client.post(f"/api/tables/{st['id']}/action", content=body, headers={"Content-Type": "application/json"})
    assert r.status_code == 400 and "number too long" in r.json()["detail"], r.text
    assert "int_max_str_digits" not in r.text and "Exceeds" not in r.text
    r = client.post("/api/leaderboard", content='{"kind": ' + "1" * 5000 + "}", headers=JSON)
    assert r.status_code == 400 and "int_max_str_digits" not in r.text
    r = client.post("/api/replays", content='{"format": ' + "1" * 5000 + "}\n", headers=NDJSON)
    assert r.status_code == 400 and "int_max_str_digits" not in r.text
    # Python's limit is 4300 digits; a long number that Python reads is refused by its range.
    r = client.post(f"/api/tables/{st['id']}/action", json={"action": 10**4000})
    assert r.status_code == 400 and "far outside" in r.json()["detail"] and "0000" not in r.text


def test_head_answers_and_a_long_table_id_is_not_echoed(client):
    r = client.head("/")
    assert r.status_code == 200 and r.text == ""
    long_id = "a" * 5000
    r = client.get(f"/api/tables/{long_id}")
    assert r.status_code == 404 and len(r.text) < 200 and long_id[:100] not in r.text


@pytest.mark.parametrize(
    "kind, text, what",
    [
        ("declarations", '{"kind": "declarations", "players": ["rule"], "groups": [{"kind": 1}]}', "groups[0].kind"),
        ("declarations", '{"kind": "ratings"}', "expected 'declarations'"),
        (
            "declarations",
            '{"kind": "declarations", "players": ["a"], "groups": [{"kind": "aces", "contrast": "x", '
            '"n": 3, "tokens": 1, "tokens_ci": [2, 1]}]}',
            "low 2 above high 1",
        ),
        (
            "declarations",
            '{"kind": "declarations", "players": ["a"], "groups": [{"kind": "aces", "contrast": "x", '
            '"n": 3, "tokens": NaN}]}',
            "finite number",
        ),
        ("pro-chart", '{"chart": {"p": [0.5, 0.2], "threshold": [[1, 1], [1, 1]]}}', "increasing order"),
        ("pro-chart", '{"chart": {"p": [0.2, 0.5], "threshold": [[1, 1]]}}', "2 rows of 2"),
        ("pro-chart", "[1, 2]", "expected a JSON object"),
        ("pro-chart", "[" * 100000 + "]" * 100000, "nested too deeply"),
    ],
)
def test_analysis_files_are_checked_field_by_field(client, kind, text, what):
    r = client.post(f"/api/analysis/{kind}", content=text, headers=JSON)
    assert r.status_code == 400 and what in r.json()["detail"], r.text


def test_analysis_files_are_size_limited_and_name_no_path(client, monkeypatch):
    monkeypatch.setattr(web_app, "MAX_BYTES", 1000)
    r = client.post("/api/analysis/declarations", content="x" * 2000, headers=JSON)
    assert r.status_code == 413
    # Only the two kinds: a path in the address is a 404, nothing is read from disk.
    r = client.post("/api/analysis/..%2F..%2Fetc%2Fpasswd", content="{}", headers=JSON)
    assert r.status_code == 404


def test_a_declarations_file_from_a_newer_analysis_is_read_tolerantly(client):
    """A row with a decider and a minimum-count row without an interval (or
    without an estimate at all) are read, not refused."""
    text = json.dumps(
        {
            "kind": "declarations",
            "players": ["rule", "pimc"],
            "groups": [
                {
                    "kind": "aces",
                    "turn": 1,
                    "contrast": "now - never",
                    "n": 40,
                    "decider": "pimc",
                    "tokens": 1.5,
                    "tokens_ci": [0.5, 2.5],
                    "points": 3.0,
                    "points_ci": [1.0, 5.0],
                },
                {"kind": "blans", "turn": None, "contrast": "now - never", "n": 2, "tokens": 4.0, "tokens_ci": None},
                {"kind": "bianka", "turn": None, "contrast": "now - never", "n": 0},
            ],
            "settings": {"deals": 10, "seed": 3},
            "new_key": {"anything": [1, 2]},
        }
    )
    r = client.post("/api/analysis/declarations", content=text, headers=JSON)
    assert r.status_code == 200, r.text
    rows = r.json()["rows"]
    assert rows[0]["decider"] == "pimc" and rows[0]["tokens_ci"] == [0.5, 2.5]
    assert rows[1]["tokens_ci"] is None and "decider" not in rows[1] and rows[2]["tokens"] is None
    assert rows[0]["command"] == "trappola analyze declarations --players rule,pimc --deals 10 --seed 3 --json PATH"
