"""The web app's API (trappola.web): a whole partie and a Bulka session
played through it, the person never shown the opponent's cards, the
opponent thinking while the page keeps polling, and every bad input
answered with a 4xx and a message while the server carries on."""

import json
import re
import threading
import time
import warnings

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

with warnings.catch_warnings():  # starlette's notice about its httpx client, not about this project
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

from trappola.agents.base import Player
from trappola.agents.evaluation import head_to_head, rate_pool
from trappola.web.app import create_app
from trappola.web.render import action_words
from trappola_env.engine import CARD_NAMES

CARD_IDS = {n: i for i, n in enumerate(CARD_NAMES)}


class GatedPlayer(Player):
    """Plays its lowest legal action, but only once ``gate`` is set."""

    kind = "gated"

    def __init__(self, gate):
        super().__init__()
        self.gate = gate

    def act(self, view):
        assert self.gate.wait(10)
        return view.legal_actions[0]


def _wait(client, table_id, until, timeout=20.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        st = client.get(f"/api/tables/{table_id}").json()
        if until(st):
            return st
        time.sleep(0.01)
    raise AssertionError(f"table never reached the state: {st}")


def _play_through(client, st, choose=lambda legal: legal[0]):
    """The person plays ``choose`` of its legal actions (cards first) until
    the partie ends; returns the final state and the cards it played."""
    played = []
    while not (st["paused"] or st["phase"] == "over"):
        if not st["your_turn"]:
            st = _wait(client, st["id"], lambda s: s["your_turn"] or s["paused"] or s["phase"] == "over")
            continue
        assert (
            "hands" not in st["partie"] and len(st["partie"]["hand"]) == st["partie"]["cards_left"][st["partie"]["me"]]
        )
        legal = st["legal"]["cards"] or [b["action"] for b in st["legal"]["buttons"] if b["action"] != 44]
        action = choose(legal)
        r = client.post(f"/api/tables/{st['id']}/action", json={"action": action})
        assert r.status_code == 200, r.text
        if action < 36:
            played.append(action)
        st = r.json()
    return st, played


NDJSON = {"Content-Type": "application/x-ndjson"}
JSON = {"Content-Type": "application/json"}


def local_client(app=None):
    """A client that calls the app as the page on this machine does."""
    return TestClient(app or create_app(), base_url="http://127.0.0.1:8000")


@pytest.fixture
def client():
    with local_client() as c:
        yield c


def test_a_whole_partie_through_the_api(client):
    st = client.post("/api/tables", json={"opponent": "rule", "seed": 11, "seat": "dealer"}).json()
    st, played = _play_through(client, st)
    assert st["phase"] == "over" and not st["your_turn"]
    lp = st["last_partie"]
    me = lp["names"].index("you")
    dealt = [{c["id"] for c in hand} for hand in lp["dealt"]]
    assert lp["names"] == ["rule", "you"] and len(dealt[0]) == len(dealt[1]) == 9 and not dealt[0] & dealt[1]
    assert set(played) <= dealt[me]
    res = lp["result"]
    assert [s["total"] for s in res["scores"]] == [
        s["card_points"] + s["declaration_points"] + s["bonus_points"] for s in res["scores"]
    ]
    # One partie: the session of one settles the partie, then splits the Bulka.
    assert st["ledger"]["history"][0]["tokens"]["you"] == res["tokens"][me]
    assert sum(st["ledger"]["balances"].values()) == 0


def test_a_bulka_session_with_next_partie(client):
    st = client.post("/api/tables", json={"opponent": "random", "seed": 2, "parties": 3}).json()
    parties = 0
    while st["phase"] != "over":
        if st["phase"] == "pro" and st["your_turn"]:
            st = client.post(f"/api/tables/{st['id']}/action", json={"action": 47}).json()
            continue
        st, _ = _play_through(client, st)
        parties += 1
        assert st["last_partie"]["index"] == parties - 1
        if st["paused"]:
            assert client.post(f"/api/tables/{st['id']}/action", json={"action": 0}).status_code == 409
            st = client.post(f"/api/tables/{st['id']}/next", json={}).json()
    led = st["ledger"]
    assert parties == led["parties_played"] == len(led["history"]) >= 3
    assert sum(led["balances"].values()) == pytest.approx(0) and led["bulka"] == 0


def test_the_page_polls_while_the_opponent_thinks():
    gate = threading.Event()
    client = local_client(create_app(make_player=lambda spec: GatedPlayer(gate)))
    st = client.post("/api/tables", json={"opponent": "gated", "seat": "dealer", "seed": 1}).json()
    start = time.monotonic()
    st = client.get(f"/api/tables/{st['id']}").json()
    assert time.monotonic() - start < 1 and st["thinking"] and not st["your_turn"]
    r = client.post(f"/api/tables/{st['id']}/action", json={"action": 0})
    assert r.status_code == 409 and "thinking" in r.json()["detail"]
    gate.set()
    st = _wait(client, st["id"], lambda s: s["your_turn"])
    assert not st["thinking"] and st["log"][0].startswith("gated: ")


def test_bad_requests_get_4xx_and_the_server_carries_on(client):
    r = client.post("/api/tables", json={"opponent": "nosuch:x=1"})
    assert r.status_code == 400 and "unknown player 'nosuch'" in r.json()["detail"]
    r = client.post("/api/tables", json={"opponent": "human"})
    assert r.status_code == 400 and "unknown player 'human' for the web table" in r.json()["detail"]
    r = client.post("/api/tables", json={"opponent": "rule", "parties": 0})
    assert r.status_code == 400 and "parties" in r.json()["detail"]
    assert client.post("/api/tables", content="[", headers=JSON).status_code == 400
    assert client.get("/api/tables/nope").status_code == 404

    st = client.post("/api/tables", json={"opponent": "rule", "seed": 4}).json()
    illegal = next(a for a in range(36) if a not in st["legal"]["cards"])
    for action, text in (
        (illegal, f"illegal action {illegal} (play "),
        (47, "illegal action 47 (declare Pro)"),
        ("AS", "illegal action 'AS'"),
        (True, "illegal action True"),
        (99, "illegal action 99"),
    ):
        r = client.post(f"/api/tables/{st['id']}/action", json={"action": action})
        assert r.status_code == 400 and text in r.json()["detail"], r.text
    assert client.post(f"/api/tables/{st['id']}/action", json={}).status_code == 400
    after = client.get(f"/api/tables/{st['id']}").json()
    assert after["version"] == st["version"] and after["partie"]["hand"] == st["partie"]["hand"]
    r = client.post(f"/api/tables/{st['id']}/action", json={"action": st["legal"]["cards"][0]})
    assert r.status_code == 200


@pytest.fixture(scope="module")
def saved_games():
    return head_to_head("rule", "random", 2, duplicate=True, seed=9, workers=1, record_games=True).games


def test_replay_frames(client, saved_games):
    text = "\n".join(json.dumps(g) for g in saved_games)
    data = client.post("/api/replays", content=text, headers=NDJSON).json()
    assert [g["index"] for g in data["games"]] == [0, 1, 2, 3]
    game = saved_games[2]
    frames = client.get(f"/api/replays/{data['id']}/2").json()["frames"]
    assert len(frames) == len(game["actions"]) + 1
    assert {c["name"] for c in frames[0]["hands"][0]} == set(game["deal"]["challenger"])
    assert [c["name"] for c in frames[0]["stock"]] == game["deal"]["stock"]
    if game["result"]["outcome"] != "agreed_alifer":
        assert frames[-1]["hands"] == [[], []] and sum(frames[-1]["tricks_won"]) == 9
    assert [s["total"] for s in frames[-1]["result"]["scores"]] == [s[3] for s in game["result"]["scores"]]
    assert frames[-1]["result"]["tokens"] == game["result"]["tokens"]
    # The moves in words: "play Bube of Coppe", never "play BC".
    assert [f["action"]["name"] for f in frames[1:]] == [action_words(a["action"]) for a in game["actions"]]
    assert client.get(f"/api/replays/{data['id']}/4").status_code == 404
    assert client.get("/api/replays/nope/0").status_code == 404


def test_replay_of_a_saved_session_shows_the_session_and_the_advice(client):
    from trappola.agents import make_player
    from trappola.agents.evaluation.session_record import SessionRecorder
    from trappola_env.engine.session import Session
    from trappola_env.referee import play_session

    players = {
        "A": make_player("rule:pro=always,answer_rollouts=0"),
        "B": make_player("random"),
        "C": make_player("random"),
        "D": make_player("random:pro=always"),
    }
    session = Session(names=list(players), max_parties=30, seed=2, advice=True)
    recorder = SessionRecorder(session, {"session": 5})
    play_session(players, session=session, on_partie=recorder.on_partie)
    games = recorder.finish()
    data = client.post("/api/replays", content="\n".join(json.dumps(g) for g in games), headers=NDJSON).json()
    listed = data["games"]
    assert [g["session"]["partie_index"] for g in listed] == list(range(len(games)))
    assert all(g["session"]["session"] == 5 for g in listed)
    k = next(i for i, g in enumerate(games) if g["advice"])
    assert listed[k]["session"]["pro_declarer"] == games[k]["pro_declarer"]
    assert listed[k]["session"]["balances"] == games[k]["balances"]
    frames = client.get(f"/api/replays/{data['id']}/{k}").json()["frames"]
    shown = [(step, a["adviser"], a["name"]) for step, f in enumerate(frames) for a in f["advice"]]
    assert shown == [(a["step"], a["adviser"], action_words(a["advice"])) for a in games[k]["advice"]]


def test_malformed_replays_get_400(client, saved_games):
    bad = dict(saved_games[0], actions=saved_games[0]["actions"][:3])
    for text, message in (
        ("{", "line 1: not JSON"),
        ("", "no games"),
        (json.dumps(saved_games[0]) + "\n" + json.dumps(bad), "line 2: the actions stop"),
        ("[1, 2]", "line 1: a game is a JSON object"),
    ):
        r = client.post("/api/replays", content=text, headers=NDJSON)
        assert r.status_code == 400 and message in r.json()["detail"], r.text
    r = client.post("/api/replays", content=b"\xff\xfe", headers=NDJSON)
    assert r.status_code == 400 and "UTF-8" in r.json()["detail"]


def test_leaderboard_tables(client):
    summary = rate_pool(["rule", "random", "rule:declare=never"], 4, seed=1, workers=1).summary
    data = client.post("/api/leaderboard", content=json.dumps(summary), headers=JSON).json()
    ratings, pairs = data["tables"]
    assert [r[1] for r in ratings["rows"]] == [e["player"] for e in summary["ratings"]]
    best = summary["ratings"][0]
    assert ratings["rows"][0][2] == f"{best['ordinal']:.2f}"
    assert (
        ratings["rows"][0][4] == f"[{best['mu'] - 1.96 * best['sigma']:.2f}, {best['mu'] + 1.96 * best['sigma']:.2f}]"
    )
    assert len(pairs["rows"]) == 3 and all("[" in r[1] for r in pairs["rows"])
    for text, message in (
        ("nope", "not JSON"),
        ('{"kind": "x"}', "unknown summary kind 'x'"),
        ('{"kind": "session_tournament", "players": ["a"]}', "missing field 'settings'"),
        ("[]", "JSON object"),
    ):
        r = client.post("/api/leaderboard", content=text, headers=JSON)
        assert r.status_code == 400 and message in r.json()["detail"], r.text


def test_trappola_serve_binds_localhost_and_serves_the_page(capsys):
    import socket
    import subprocess
    import sys
    import urllib.request
    from pathlib import Path

    from trappola.cli.main import main

    assert main(["serve", "--port", "70000"]) == 2
    assert "expected a port in 1..65535" in capsys.readouterr().err
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    root = Path(__file__).resolve().parents[1]
    proc = subprocess.Popen(
        [sys.executable, "-m", "trappola.cli", "serve", "--port", str(port)],
        cwd=root,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        end = time.monotonic() + 20
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2) as r:
                    page = r.read().decode()
                break
            except OSError:
                assert time.monotonic() < end and proc.poll() is None, "trappola serve did not start"
                time.sleep(0.1)
        assert "<title>Trappola lab</title>" in page
    finally:
        proc.terminate()
        out, _ = proc.communicate(timeout=10)
    assert f"http://127.0.0.1:{port}/" in out


def _highest_card(legal):
    return max(legal, key=lambda a: a % 9 if a < 36 else -1)


def test_the_partie_tokens_add_up_to_the_balance_with_pro(client):
    # Seed 3: playing its highest card, the person wins twice and is offered Pro.
    st = client.post("/api/tables", json={"opponent": "random:alifer=false", "seed": 3, "parties": 4}).json()
    offered = False
    while st["phase"] != "over":
        if st["phase"] == "pro" and st["your_turn"]:
            pro = st["pro"]
            assert pro["streak"] >= 2 and pro["extra_stake"] == 10 and pro["bulka"] == st["ledger"]["bulka"] > 0
            assert {b["action"] for b in st["legal"]["buttons"]} == {47, 48}
            assert "Bulka" in next(b["help"] for b in st["legal"]["buttons"] if b["action"] == 47)
            offered = True
            st = client.post(f"/api/tables/{st['id']}/action", json={"action": 47}).json()
            assert st["partie"]["pro_declarer"] == "you"
            continue
        st, _ = _play_through(client, st, _highest_card)
        led = st["ledger"]
        # What the board and the ledger show is the partie that just ended: no next stake paid yet.
        assert st["partie"]["hand"] == [] and sum(st["partie"]["tricks_won"]) in (9, *range(9))
        assert sum(led["balances"].values()) + led["bulka"] == 0
        changes = [r["change"]["you"] for r in led["history"]]
        final = led["final_share"] or 0
        assert sum(changes) + final == pytest.approx(led["balances"]["you"])
        assert st["last_partie"]["change"]["you"] == changes[-1]
        # The end box's named parts add up to each player's change, the number it shows.
        for side in st["last_partie"]["tokens"]:
            parts = {p["part"]: p["tokens"] for p in side["parts"]}
            assert list(parts) == ["stake", "declarations", "bonuses", "Pro", "Bulka"]
            assert sum(parts.values()) == side["total"] == st["last_partie"]["change"][side["name"]]
        assert led["history"][-1]["balance"]["you"] == pytest.approx(sum(changes))
        if st["paused"]:
            st = client.post(f"/api/tables/{st['id']}/next", json={}).json()
    assert offered
    pro_rows = [r for r in st["ledger"]["history"] if r["pro"] == "you" and r["pro_stake"]]
    assert pro_rows and pro_rows[0]["change"]["you"] == pro_rows[0]["tokens"]["you"] - 10 + pro_rows[0]["bulka_won"]


def test_the_end_box_parts_add_up_when_the_opponent_wins_pro():
    """Seed 9, the person playing its highest action: random declares Pro
    and wins it, taking the Bulka. Every partie's named parts add up to the
    change shown, for both players; the Pro winner's Bulka is its own part."""
    from trappola.agents import make_player
    from trappola.web.play import PlayTable

    table = PlayTable(make_player("random:alifer=false"), parties=4, seed=9)
    won = None
    while table.session.phase != "over":
        st = table.state()
        if st["paused"]:
            table.next_partie()
            continue
        if not st["your_turn"]:
            continue  # the opponent thinks in this thread (no pool): it has already moved
        if st["phase"] == "pro":
            table.act(47)
            continue
        legal = st["legal"]["cards"] or [b["action"] for b in st["legal"]["buttons"] if b["action"] != 44]
        table.act(max(legal) if st["legal"]["cards"] else legal[0])
        lp = table.state()["last_partie"]
        for side in lp["tokens"] if lp else ():
            parts = {p["part"]: p["tokens"] for p in side["parts"]}
            assert sum(parts.values()) == side["total"] == lp["change"][side["name"]], lp
            if lp["pro"] == side["name"] and lp["pro_result"] == "won":
                won = parts
    assert won is not None
    # -10 stake, -10 extra Pro stake, and the Bulka taken: the change is far above a lost stake.
    assert won["stake"] == won["Pro"] == -10 and won["Bulka"] == 115 and sum(won.values()) > 80


def test_declaration_buttons_say_what_they_are_worth(client):
    # The first seed that deals the person (challenger) a declaration at its first card.
    for seed in range(40):
        st = client.post("/api/tables", json={"opponent": "rule", "seed": seed}).json()
        decls = [b for b in st["legal"]["buttons"] if 36 <= b["action"] <= 42]
        if decls:
            break
    assert decls and all("points" in b["help"] and "tokens" in b["help"] for b in decls)
    # What the page prints on the button itself (a phone shows no tooltip).
    assert all(re.fullmatch(r"\d+ points.*, \+\d+ tokens?", b["worth"]) for b in decls), decls
    alifer = [b for b in st["legal"]["buttons"] if b["action"] == 44]
    assert alifer and "double stakes" in alifer[0]["help"] and "double stakes" in alifer[0]["worth"]


def test_the_hint_is_pimcs_view_from_the_persons_seat(client):
    pytest.importorskip("numba")
    st = client.post("/api/tables", json={"opponent": "rule", "seed": 4}).json()
    hint = client.post(f"/api/tables/{st['id']}/hint", json={}).json()
    assert hint["version"] == st["version"] and hint["spec"] == "pimc"
    assert sorted(v["card"]["id"] for v in hint["values"]) == sorted(st["legal"]["cards"])
    assert [v["objective"] for v in hint["values"]] == sorted((v["objective"] for v in hint["values"]), reverse=True)
    st, _ = _play_through(client, st)
    r = client.post(f"/api/tables/{st['id']}/hint", json={})
    assert r.status_code == 409 and "your turn" in r.json()["detail"]


def _card_ids(obj) -> set:
    """Every card id in a JSON answer: the ``{"id", "name", "rank", "suit"}``
    objects ``render.card`` writes, wherever they are."""
    if isinstance(obj, dict):
        found = {obj["id"]} if {"id", "name", "rank", "suit"} <= obj.keys() else set()
        for v in obj.values():
            found |= _card_ids(v)
        return found
    if isinstance(obj, list):
        return set().union(*map(_card_ids, obj)) if obj else set()
    return set()


class SpyAdviser:
    """A computer adviser (``rule``) that records the view it advised from
    and the advice it gave."""

    def __init__(self, spec):
        from trappola.agents import make_player

        self.player = make_player(spec)
        self.name = self.player.name
        self.given = []

    def __getattr__(self, key):
        return getattr(self.player, key)

    def advise(self, view):
        advice = self.player.advise(view)
        self.given.append((view, advice))
        return advice


def test_advisers_in_the_api_are_checked(client):
    st = client.post(
        "/api/tables",
        json={"opponent": "random", "seed": 4, "parties": 3, "advisers": ["rule:advice_worlds=4", "random"]},
    ).json()
    assert st["ledger"]["players"] == ["you", "random", "rule:advice_worlds=4", "random#2"]
    for body, words in [
        ({"advisers": "rule"}, "list of player specs"),
        ({"advisers": ["rule"] * 3}, "at most 2 advisers"),
        ({"advisers": ["rule"], "parties": 1}, "parties to 2 or more"),
        ({"advisers": ["nosuch"], "parties": 3}, "unknown player 'nosuch'"),
        ({"advisers": ["pimc:advice_worlds=9"], "parties": 3}, "takes 0 to 8"),
    ]:
        r = client.post("/api/tables", json={"opponent": "rule", **body})
        assert r.status_code == 400 and words in r.json()["detail"], r.text


def test_the_human_defender_of_a_pro_partie_sees_the_advice_and_no_hidden_card():
    """The opponent starts at a Pro offer (a streak of 2) and declares; the
    two advisers wait. Before each of the person's decisions the state
    lists each adviser's advice, as given from the public record (the
    advisers' views hold no hand); no answer names a card the person may
    not see; after the Pro partie the person waits in turn and watches with
    no hand, and then no advice is shown to it: the advice the computer
    players give each other in the Pro partie it watches is not in its
    moves either."""
    from trappola.agents import make_player
    from trappola.web.play import PlayTable
    from trappola_env.engine import InfoState
    from trappola_env.engine.advice import advice_mask

    app = create_app()
    opp = make_player("rule:pro=always,answer_rollouts=0")
    spies = [SpyAdviser("rule:pro=always,answer_rollouts=0,advice_worlds=4"), SpyAdviser("random")]
    # Seed 2: the person, having lost the Pro partie, waits through a Pro partie of the others.
    table = PlayTable(opp, parties=4, seed=2, advisers=spies, streaks={opp.name: 2}, submit=app.state.pool.submit)
    app.state.tables.add(table)
    client = local_client(app)
    st = _wait(client, table.id, lambda s: s["your_turn"])
    advised, watched, states, watched_pro = 0, 0, 0, 0
    while st["phase"] != "over":
        states += 1
        p = st["partie"]
        if st["paused"]:
            lp = st["last_partie"]
            if not lp["played"]:
                watched += 1
                assert p["me"] is None and p["hand"] == []
                given = [e for e in table.session.advice_log if e[0] == lp["index"] and e[2] != "you"]
                if lp["pro"]:
                    watched_pro += 1
                    assert given, "the computer players advised in the Pro partie the person watched"
                assert not any("advise" in line for line in st["log"]), st["log"]
            st = client.post(f"/api/tables/{table.id}/next", json={}).json()
        elif st["your_turn"]:
            s = table.session
            hidden = set()
            for seat, name in enumerate(s.table):
                if name != "you":
                    hidden |= {c for c in range(36) if s.partie.hands[seat] >> c & 1}
            # (last_partie is the partie before, its dealt hands shown once it ended.)
            now = {k: v for k, v in st.items() if k != "last_partie"}
            assert not _card_ids(now) & hidden, "a card the person may not see was sent"
            assert {c["id"] for c in p["hand"]} == {
                c for c in range(36) if s.partie.hands[s.table.index("you")] >> c & 1
            }
            if p["pro_declarer"] == opp.name and p["me"] == 0:
                # Each adviser's latest advice, from a view with no hand, in queue order.
                expected = [{"adviser": spy.name, "advice": action_words(spy.given[-1][1])} for spy in spies]
                assert p["advice"] == expected and p["advisers"] == [spy.name for spy in spies]
                for spy in spies:
                    view = spy.given[-1][0]
                    assert view.info.hand == 0 and view.info.dealt == 0
                    assert view.legal_mask == advice_mask(InfoState.public(s.partie, 0))
                advised += 1
            else:
                assert p is None or p["advice"] == []
            legal = st["legal"]["cards"] or [b["action"] for b in st["legal"]["buttons"] if b["action"] != 44]
            r = client.post(f"/api/tables/{table.id}/action", json={"action": legal[0]})
            assert r.status_code == 200, r.text
            st = r.json()
        else:
            # Computer players act: an adviser's, the declarer's or a watched turn shows no advice.
            assert p is None or p["advice"] == []
            if p is not None and p["me"] is None:
                watched += 1
                assert p["hand"] == [] and st["legal"] is None
            st = _wait(client, table.id, lambda s: s["your_turn"] or s["paused"] or s["phase"] == "over")
    assert advised >= 3 and watched >= 1 and watched_pro >= 1 and states > advised
    assert all(spy.given for spy in spies)


def _rows_add_up(st):
    rows = st["ledger"]["rows"]
    total = 0.0
    for r in rows:
        total += r["change"]
        assert r["balance"] == pytest.approx(total), rows
    assert total == pytest.approx(st["ledger"]["balances"]["you"]), rows


def test_every_token_change_is_a_ledger_row_at_every_moment(client):
    # Seed 3: playing its highest card, the person is offered Pro and declares it; the Bulka is split at the end.
    st = client.post("/api/tables", json={"opponent": "random:alifer=false", "seed": 3, "parties": 4}).json()
    seen = set()
    while st["phase"] != "over":
        _rows_add_up(st)
        if st["phase"] == "pro" and st["your_turn"]:
            st = client.post(f"/api/tables/{st['id']}/action", json={"action": 47}).json()
            _rows_add_up(st)  # the Pro stake and this partie's stakes are rows as soon as they are paid
            assert st["ledger"]["rows"][-1]["label"].endswith("and your Pro stake")
            continue
        if st["your_turn"]:
            legal = st["legal"]["cards"] or [b["action"] for b in st["legal"]["buttons"] if b["action"] != 44]
            st = client.post(f"/api/tables/{st['id']}/action", json={"action": _highest_card(legal)}).json()
        elif st["paused"]:
            st = client.post(f"/api/tables/{st['id']}/next", json={}).json()
        else:
            st = _wait(client, st["id"], lambda s: s["your_turn"] or s["paused"] or s["phase"] == "over")
        seen.update(r["label"] for r in st["ledger"]["rows"])
    _rows_add_up(st)
    last = st["ledger"]["rows"][-1]
    assert last["label"] == "the Bulka split at the end" and last["change"] == st["ledger"]["final_share"]
    assert {"stake into the Bulka", "your Pro stake into the Bulka"} <= seen


def test_the_pro_offer_names_the_whole_prize():
    from trappola.agents import make_player
    from trappola.web.play import PlayTable

    table = PlayTable(make_player("random"), parties=3, seat="dealer", seed=5, streaks={"you": 2})
    st = table.state()
    pro = st["pro"]
    assert st["your_turn"] and pro["prize"] == pro["bulka"] + pro["extra_stake"] + 2 * pro["stake"]
    table.act(47)
    while table.session.parties_played == 0:
        table.act(table.state()["legal"]["cards"][0] if table.state()["legal"]["cards"] else 45)
    rec = table.session.history[0]
    # Won, the declarer takes it all; lost, it stays in the Bulka: either way at least the prize named.
    assert max(rec.bulka_won, rec.bulka) >= pro["prize"]


def test_the_log_and_the_advice_name_cards_in_words(client):
    st = client.post("/api/tables", json={"opponent": "rule", "seed": 11, "seat": "dealer"}).json()
    st, _ = _play_through(client, st)
    plays = [line.split(": ", 1)[1] for line in st["log"] if ": play " in line]
    assert plays and all(
        re.fullmatch(r"play (Two|7|8|9|10|Bube|Cavall|Re|Asso) of (Spade|Coppe|Denari|Bastoni)", p) for p in plays
    ), plays


def test_the_state_gives_back_the_setup_and_the_game_downloads_for_replay(client):
    from trappola.agents.evaluation.game_record import read_games

    body = {"opponent": "random:alifer=false", "seed": 9, "parties": 2, "seat": "dealer", "advisers": []}
    st = client.post("/api/tables", json=body).json()
    assert st["setup"] == {**body, "advisers": []}
    assert client.get(f"/api/tables/{st['id']}/games").text == ""
    st, played = _play_through(client, st)
    st = client.post(f"/api/tables/{st['id']}/next", json={}).json()
    st, _ = _play_through(client, st)
    r = client.get(f"/api/tables/{st['id']}/games")
    assert r.headers["content-type"].startswith("application/x-ndjson")
    games = read_games(r.text)  # every line checked: the deal, each action legal, the result recomputed
    assert len(games) == 2 and games[0]["players"] == ["random:alifer=false", "you"]
    assert [CARD_IDS[a["name"][5:]] for a in games[0]["actions"] if a["seat"] == 1 and a["action"] < 36] == played
    assert games[-1]["final_share"] == st["ledger"]["final_share"]
    # It is what Replay opens.
    listing = client.post("/api/replays?name=web.jsonl", content=r.content, headers=NDJSON).json()
    assert len(listing["games"]) == 2


def test_a_waiting_person_watches_the_other_partie_paced():
    from trappola.agents import make_player
    from trappola.web.play import PlayTable
    from trappola.web.thinking import ThinkingPool

    pool = ThinkingPool(1)
    try:
        # Three players: once the person loses a partie it waits, and watches the other two.
        table = PlayTable(
            make_player("random:alifer=false"),
            parties=6,
            seed=1,
            advisers=[make_player("random:alifer=false")],
            submit=pool.submit,
            pace=0.1,
        )
        table.start()
        while not (st := table.state())["watching"]:
            assert st["phase"] != "over", "the person never waited"
            if st["paused"]:
                table.next_partie()
            elif st["your_turn"]:
                table.act(
                    (st["legal"]["cards"] or [b["action"] for b in st["legal"]["buttons"] if b["action"] < 44])[0]
                )
            time.sleep(0.01)
        st = table.state()
        assert st["watching"] and st["partie"]["me"] is None
        start = time.monotonic()
        moves = len(st["log"])
        _wait_until = time.monotonic() + 30
        while not table.state()["paused"] and table.state()["phase"] != "over":
            assert time.monotonic() < _wait_until
            time.sleep(0.02)
        taken = time.monotonic() - start
        moves = len(table.state()["log"]) - moves
        assert moves >= 9 and taken >= 0.1 * (moves - 2), (moves, taken)
        with pytest.raises(ValueError, match="pace"):
            table.set_pace(99)
    finally:
        pool.shutdown()


def test_the_leaderboard_links_a_pair_only_to_its_own_runs_games(client):
    players = ["rule", "random"]
    ours = rate_pool(players, 2, seed=0, workers=1, record_games=True)
    other = rate_pool(players, 2, seed=1, workers=1, record_games=True)
    listing = client.post(
        "/api/replays?name=g.jsonl", content="".join(json.dumps(g) + "\n" for g in ours.games), headers=NDJSON
    ).json()["games"]
    first = next(g for g in listing if g["deal_index"] == 0)
    for summary, same in ((ours.summary, True), (other.summary, False)):
        board = client.post("/api/leaderboard", json=summary).json()
        run = board["tables"][1]["runs"][0]
        assert run["evaluation"] == first["evaluation"] == "ratings" and run["deals"] == 2
        assert (run["deal0"] == first["deal_key"]) is same
    h2h = head_to_head("rule", "random", 2, seed=0, workers=1, record_games=True)
    run = client.post("/api/leaderboard", json=h2h.summary).json()["tables"][0]["run"]
    # The same seed deals the same cards, but a ratings run's games are not a head-to-head run's.
    assert run["evaluation"] == "head_to_head" != first["evaluation"]


def test_the_rules_panel_is_built_from_the_rules(client):
    from trappola.web.rules_page import RULES_HTML, build

    assert RULES_HTML.read_text(encoding="utf-8") == build(), "run python -m trappola.web.rules_page"
    page = client.get("/static/rules.html").text
    assert '<h3 id="rules-1-cards">1. Cards</h3>' in page and "<script" not in page


def test_the_pace_is_set_through_the_api_within_bounds(client):
    st = client.post("/api/tables", json={"opponent": "rule", "seed": 1, "pace": 0.5}).json()
    assert st["pace"] == 0.5
    assert client.post(f"/api/tables/{st['id']}/pace", json={"pace": 1.5}).json() == {"pace": 1.5}
    assert client.get(f"/api/tables/{st['id']}").json()["pace"] == 1.5
    for bad in ("fast", -1, 6, True, None):
        r = client.post(f"/api/tables/{st['id']}/pace", json={"pace": bad})
        assert r.status_code == 400 and "pace must be" in r.json()["detail"], bad
    assert client.post("/api/tables", json={"opponent": "rule", "pace": 60}).status_code == 400
