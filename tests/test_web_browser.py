"""The web app in a real browser (headless Chromium through chromedriver):
a whole partie played by clicking, the end box, Pro offered and declared
by either side, the advisers' advice shown to the person defending a Pro
partie, the pimc hint, a reload that resumes the game, a saved game stepped and
auto-played to its end, the leaderboard linked to its games, the phone
width, a request from another site's page refused, bad input shown in
the page, and no JavaScript errors. ``web_browser`` has the fixtures;
``test_web_table`` tests the table's input, comforts and accessibility.
"""
# ruff: noqa: F811 (the fixtures imported from web_browser are this module's own, by pytest's rules)

import http.server
import json
import threading
import time
from pathlib import Path

import pytest
from web_browser import (  # noqa: F401 (fixtures)
    DESKTOP,
    NO_BROWSER,
    PHONE,
    app,
    axe_violations,
    base_url,
    browser,
    card_names,
    click_and_wait,
    desktop,
    free_port,
    js_errors,
    open_page,
    page_width,
    phone,
    play_on,
    rank,
    rects,
    shots,
    start_game,
    visible,
    wait,
    wide_elements,
)

from trappola.agents.evaluation import head_to_head, rate_pool
from trappola.web.render import action_words

webdriver = pytest.importorskip("selenium.webdriver")
from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402

pytestmark = NO_BROWSER


def test_play_a_whole_partie_by_clicking(browser, base_url, shots):
    browser.set_window_size(1400, 1000)
    try:
        start_game(browser, base_url, "rule", 21, speed="normal")
        # Nothing to download before a partie has ended.
        assert not browser.find_element(By.ID, "download").is_enabled()
        held = []
        clicks = play_on(
            browser, shot=lambda: (shots / "play.png").write_bytes(browser.get_screenshot_as_png()), tricks_held=held
        )
        # A trick the person completes stays on the felt a moment, with its winner, shown once (not again as
        # "last trick"), and the person is not told "Your turn" while the hand is still shut.
        assert held and all("trick to " in t for t, _, _, _ in held), held
        for _, status, last, shown in held:
            assert last == "" and "Your turn" not in status and shown == "none", held
        assert "Alifer" in browser.find_element(By.ID, "stakes-row").get_attribute("title")
        end = browser.find_element(By.ID, "partie-end")
        text = end.text
        assert "held:" in text and ("You win" in text or "rule wins" in text or "Alifer" in text)
        assert "you wins" not in text and "Game over" in text and clicks >= 5
        # The box's button is in its first line, on screen without scrolling.
        button = browser.find_element(By.ID, "new-game")
        bottom = browser.execute_script("return arguments[0].getBoundingClientRect().bottom", button)
        assert button.is_displayed() and bottom < browser.execute_script("return window.innerHeight")
        (shots / "play-end.png").write_bytes(browser.get_screenshot_as_png())
        assert axe_violations(browser) == [], "the end box"
        # Over a dimmed page, the set-up form folded until the box is closed; the game can be downloaded.
        assert visible(browser, "backdrop") and not visible(browser, "setup") and not visible(browser, "pro-banner")
        assert browser.find_element(By.ID, "download").is_enabled()
        browser.find_element(By.ID, "see-table").click()
        assert not visible(browser, "backdrop") and not visible(browser, "partie-end") and visible(browser, "setup")
        assert browser.find_element(By.ID, "status").text == "The game is over."
        assert js_errors(browser) == []
    finally:
        browser.set_window_size(*DESKTOP)


def open_table(browser, base_url, app, opponent, **kw):
    """A table built here (``PlayTable``: a session started at a Pro offer,
    say), opened in the page."""
    from trappola.agents import make_player
    from trappola.web.play import PlayTable

    table = PlayTable(make_player(opponent), submit=app.state.pool.submit, **kw)
    app.state.tables.add(table)
    open_page(browser, base_url + f"/#play/{table.id}")
    wait(browser, lambda d: visible(d, "table") and d.find_elements(By.CSS_SELECTOR, "#status"))
    return table


def test_the_end_box_and_pro_offered_to_you(browser, base_url, app, shots):
    # The person deals with a streak of 2: offered Pro at once. Seed 3: its highest cards win the Pro partie.
    open_table(browser, base_url, app, "random:alifer=false", parties=3, seat="dealer", seed=3, streaks={"you": 2})
    wait(browser, lambda d: visible(d, "pro-offer"))
    offer = browser.find_element(By.ID, "pro-offer").text
    assert "won 2 parties in a row" in offer and "extra stake of 10" in offer and "take the whole Bulka" in offer
    bulka = float(browser.find_element(By.ID, "pro-bulka").text)
    # The prize named is what winning pays: the Bulka now, the extra stake and both stakes.
    assert float(browser.find_element(By.ID, "pro-prize").text) == bulka + 30
    (shots / "pro-offer.png").write_bytes(browser.get_screenshot_as_png())
    click_and_wait(browser, browser.find_element(By.CSS_SELECTOR, "#pro-offer button[data-action='47']"))
    assert "you declared Pro" in browser.find_element(By.ID, "pro-banner").text
    play_on(browser, pick=lambda cards: max(cards, key=rank))
    end = browser.find_element(By.ID, "partie-end").text
    assert "You declared Pro" in end
    # The box says why, and its tokens are the ledger's: the board behind it is the ended partie.
    tokens = browser.find_element(By.ID, "end-tokens").text
    assert "Your tokens from this partie" in tokens and "Why" in end
    why = [li.text for li in browser.find_elements(By.CSS_SELECTOR, "#partie-end .details li")]
    assert why and not any("random:alifer=false" in w for w in why), why  # the short name, as on the rest of the page
    # Each player's change is a sum of named parts; the Pro declarer's extra stake and the Bulka it took are parts.
    parts = browser.execute_script(
        "return [...document.querySelectorAll('#end-parts tr')].slice(1).map((r) =>"
        " [r.dataset.part || 'total', ...[...r.querySelectorAll('td')].map((c) => Number(c.textContent))])"
    )
    by = {p[0]: p[1:] for p in parts}
    assert by["Pro"][0] == -10 and by["Bulka"][0] > 0 and by["stake"] == [-10, -10], parts
    assert [sum(p[k] for p in parts if p[0] != "total") for k in (1, 2)] == by["total"]
    (shots / "pro-end.png").write_bytes(browser.get_screenshot_as_png())
    # The stake is named: a won partie can cost tokens.
    assert "stake of 10" in browser.find_element(By.ID, "end-stake").text
    assert f"Your tokens from this partie: +{by['total'][0]:g}" in tokens
    balance = float(tokens.rsplit("balance: ", 1)[1].rstrip("."))
    players = browser.execute_script(
        "return [...document.querySelectorAll('#ledger table tr')].map((r) => r.innerText.trim())"
    )
    assert float(next(r for r in players if r.startswith("you")).split()[1]) == balance
    assert browser.find_elements(By.CSS_SELECTOR, "#hand .card") == []
    rows = browser.execute_script(
        "return [...document.querySelectorAll('#ledger tr.history-row')].map((r) => r.innerText.trim())"
    )
    assert any("your Pro stake into the Bulka" in r for r in rows)
    # Every token change is a row: they add up to the balance.
    changes = [float(r.split()[-2]) for r in rows]
    assert sum(changes) == float(rows[-1].split()[-1]) == balance
    # The ledger's "what" column is wide enough to read: no row wraps over more than two lines.
    heights = browser.execute_script(
        "return [...document.querySelectorAll('#ledger td.what')].map((c) =>"
        " c.getBoundingClientRect().height / parseFloat(getComputedStyle(c).lineHeight))"
    )
    assert heights and max(heights) < 2.7, heights  # two lines and the padding
    assert browser.find_elements(By.ID, "next-partie"), end
    assert js_errors(browser) == []


def test_the_opponent_declaring_pro_is_shown(browser, base_url, app):
    # The opponent deals with a streak of 2 and declares Pro at once.
    open_table(browser, base_url, app, "rule:pro=always", parties=3, seed=10, streaks={"rule:pro=always": 2})
    wait(browser, lambda d: visible(d, "pro-banner"))
    text = browser.find_element(By.ID, "pro-banner").text
    # The player is named short, its spec in the details line.
    assert "rule declared Pro" in text and "takes the Bulka" in text
    assert "rule:pro=always" in browser.find_element(By.ID, "specs").text
    play_on(browser, pick=lambda cards: min(cards, key=rank))
    assert "rule declared Pro and" in browser.find_element(By.ID, "partie-end").text
    assert js_errors(browser) == []


def test_what_pimc_thinks(browser, base_url):
    pytest.importorskip("numba")
    start_game(browser, base_url, "rule", 4)
    browser.find_element(By.ID, "hint-on").click()
    legal = wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#hand button.legal"))
    rows = wait(
        browser,
        lambda d: d.find_elements(By.CSS_SELECTOR, "#hint table.values tr.chosen ~ tr, #hint table.values tr.chosen"),
    )
    assert len(rows) == len(legal) > 1
    assert len(browser.find_elements(By.CSS_SELECTOR, "#hand button.legal .value-badge")) == len(legal)
    assert "from your seat" in browser.find_element(By.ID, "hint").text
    browser.find_element(By.ID, "hint-on").click()
    assert not visible(browser, "hint")
    assert js_errors(browser) == []


def test_a_reload_resumes_the_game_and_a_discard_asks_first(browser, base_url, app):
    start_game(browser, base_url, "rule", 5)
    # A double-click plays the card once and shows no error: input waits for the answer.
    card = wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#hand button.legal:not([disabled])"))[0]
    version = browser.find_element(By.ID, "table").get_attribute("data-version")
    ActionChains(browser).double_click(card).perform()
    wait(browser, lambda d: d.find_element(By.ID, "table").get_attribute("data-version") != version)
    time.sleep(0.3)
    assert not visible(browser, "error")
    assert sum(li.text.startswith("you: play") for li in browser.find_elements(By.CSS_SELECTOR, "#log li")) == 1
    play_on(browser, until=lambda d: len(d.find_elements(By.CSS_SELECTOR, "#tricks li")) >= 2)
    url = browser.current_url
    table_id = url.rsplit("/", 1)[1]
    hand = card_names(browser, "#hand .card")
    browser.refresh()
    wait(browser, lambda d: visible(d, "table") and d.find_elements(By.CSS_SELECTOR, "#hand .card"))
    assert browser.current_url == url
    assert card_names(browser, "#hand .card") == hand
    assert len(browser.find_elements(By.CSS_SELECTOR, "#tricks li")) >= 2
    # Start asks before discarding the game; keeping it changes nothing.
    browser.find_element(By.ID, "change-setup").click()
    browser.find_element(By.ID, "start").click()
    wait(browser, lambda d: visible(d, "confirm-discard"))
    browser.find_element(By.ID, "discard-no").click()
    assert browser.current_url == url and not visible(browser, "confirm-discard")
    # A game closed on the server says so instead of vanishing.
    app.state.tables.close(table_id, "closed by the test")
    browser.refresh()
    wait(browser, lambda d: visible(d, "gone"))
    assert "no longer on the server" in browser.find_element(By.ID, "gone").text
    assert "closed by the test" in browser.find_element(By.ID, "gone").text
    assert js_errors(browser, allowed=(f"/api/tables/{table_id}",)) == []


def test_the_phone_width(browser, base_url, shots, saved_games):
    phone(browser)
    try:
        start_game(browser, base_url, "rule", 21)
        play_on(browser, until=lambda d: len(d.find_elements(By.CSS_SELECTOR, "#tricks li")) >= 1)
        assert page_width(browser) <= PHONE[0], wide_elements(browser)
        board = browser.find_element(By.CSS_SELECTOR, "#table .board").rect
        side = browser.find_element(By.CSS_SELECTOR, "#table .side").rect
        assert board["width"] > 300 and side["y"] >= board["y"] + board["height"]
        # The hand: cards side by side, none over another (a suit hidden), each a full tap target.
        cards = rects(browser, "#hand .card")
        for a, b in zip(cards, cards[1:], strict=False):
            assert b["x"] >= a["x"] + a["width"] or b["y"] >= a["y"] + a["height"] - 7, (a, b)
        assert all(c["width"] >= 44 and c["height"] >= 44 for c in cards), cards
        (shots / "play-phone.png").write_bytes(browser.get_screenshot_as_png())
        play_on(browser)
        box = browser.find_element(By.ID, "partie-end").rect
        assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE[0]
        assert browser.find_element(By.ID, "rematch").is_displayed()
        (shots / "end-phone.png").write_bytes(browser.get_screenshot_as_png())
        assert axe_violations(browser) == [], "the end box on a phone"
        path, games = saved_games
        open_page(browser, base_url + "/#replay")
        browser.find_element(By.ID, "replay-file").send_keys(str(path))
        wait(browser, lambda d: visible(d, "replay"))
        for _ in range(6):
            browser.find_element(By.ID, "next").click()
        assert page_width(browser) <= PHONE[0], wide_elements(browser)
        # Replay's hands: cards a finger's width, the corner suit clear of the central one.
        cards = rects(browser, "#r-hand-0 .card")
        assert cards and all(c["width"] >= 44 for c in cards), cards
        clear = browser.execute_script(
            "return [...document.querySelectorAll('#r-hand-0 .card, #r-hand-1 .card')].every((c) => {"
            " const a = c.querySelector('svg.corner-pip').getBoundingClientRect(),"
            " b = c.querySelector('svg.pip').getBoundingClientRect();"
            " return a.right <= b.left || a.bottom <= b.top; })"
        )
        assert clear
        (shots / "replay-phone.png").write_bytes(browser.get_screenshot_as_png())
        assert js_errors(browser) == []
    finally:
        desktop(browser)


def test_another_sites_page_cannot_start_a_table(browser, base_url, app):
    """A page from another origin (here: another port) posts to the API the
    way a no-cors fetch and a cors fetch can; the server starts nothing."""
    page = (
        "<!doctype html><title>elsewhere</title><script>"
        f"const api = '{base_url}/api/tables';"
        "const body = JSON.stringify({opponent: 'rule'});"
        "Promise.allSettled(["
        " fetch(api, {method: 'POST', mode: 'no-cors', headers: {'Content-Type': 'text/plain'}, body}),"
        " fetch(api, {method: 'POST', headers: {'Content-Type': 'application/json'}, body}),"
        "]).then(() => { document.title = 'sent'; });</script>"
    )

    class Page(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            data = page.encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):
            pass

    other = http.server.ThreadingHTTPServer(("127.0.0.1", free_port()), Page)
    thread = threading.Thread(target=other.serve_forever, daemon=True)
    thread.start()
    try:
        before = len(app.state.tables)
        browser.get(f"http://localhost:{other.server_address[1]}/")
        wait(browser, lambda d: d.title == "sent")
        time.sleep(0.3)
        assert len(app.state.tables) == before
    finally:
        other.shutdown()
        browser.get_log("browser")  # the refused requests are logged there on purpose


@pytest.fixture(scope="module")
def saved_games(tmp_path_factory):
    pytest.importorskip("numba")
    games = head_to_head("pimc:samples=16", "rule", 1, seed=4, workers=1, record_games=True).games
    path = tmp_path_factory.mktemp("games") / "games.jsonl"
    path.write_text("".join(json.dumps(g) + "\n" for g in games))
    return path, games


def test_replay_a_saved_game_to_its_end(browser, base_url, shots, saved_games):
    path, games = saved_games
    open_page(browser, base_url + "/#replay")
    browser.find_element(By.ID, "replay-file").send_keys(str(path))
    wait(browser, lambda d: visible(d, "replay"))
    n = len(games[0]["actions"])
    assert browser.find_element(By.ID, "step-label").text == f"step 0 of {n}"
    hands = [el.text.split() for el in browser.find_elements(By.CSS_SELECTOR, "#r-hand-0 .card")]
    assert len(hands) == 9 and len(browser.find_elements(By.CSS_SELECTOR, "#r-stock .card")) == 18
    assert "games.jsonl" in browser.find_element(By.ID, "replay-name").text
    steps = 0
    while browser.find_element(By.ID, "next").is_enabled():
        browser.find_element(By.ID, "next").click()
        steps += 1
        if steps == 9:
            # Mid-game, after a searched card when there is one: the screenshot.
            while (
                not browser.find_elements(By.CSS_SELECTOR, "#r-values table")
                and browser.find_element(By.ID, "next").is_enabled()
            ):
                browser.find_element(By.ID, "next").click()
                steps += 1
            assert browser.find_elements(By.CSS_SELECTOR, "#r-values tr.chosen")
            # What pimc considered stays within the side panel at 1366 px.
            panel, considered = rects(browser, ".replay-board aside.side"), rects(browser, "#r-values table.values")
            assert considered[0]["x"] + considered[0]["width"] <= panel[0]["x"] + panel[0]["width"] + 0.5
            # The hands stay as dealt, the cards played greyed.
            played = browser.find_elements(By.CSS_SELECTOR, "#r-hand-0 .card.played, #r-hand-1 .card.played")
            assert len(browser.find_elements(By.CSS_SELECTOR, "#r-hand-0 .card")) == 9 and played
            (shots / "replay.png").write_bytes(browser.get_screenshot_as_png())
    assert steps == n
    result = games[0]["result"]
    outcome = browser.find_element(By.ID, "r-outcome").text
    winner = None if result["winner"] is None else games[0]["players"][result["winner"]]
    # Players are shown by name, without their settings.
    assert (winner and outcome == f"{winner.split(':')[0]} wins") or (not winner and "Alifer" in outcome)
    # The address names the file, the game and the step: a reload comes back to it.
    assert browser.current_url.endswith(f"/0/{n}")
    browser.refresh()
    wait(browser, lambda d: visible(d, "replay") and d.find_element(By.ID, "step-label").text == f"step {n} of {n}")
    # The slider moves to any step; auto-play runs on to the end by itself.
    browser.execute_script(
        "const s = document.getElementById('step-slider'); s.value = 2;s.dispatchEvent(new Event('input'));"
    )
    assert browser.find_element(By.ID, "step-label").text == f"step 2 of {n}"
    browser.find_element(By.CSS_SELECTOR, "#speed option[value='4']").click()
    browser.find_element(By.ID, "autoplay").click()
    wait(browser, lambda d: d.find_element(By.ID, "step-label").text == f"step {n} of {n}", timeout=n / 4 + 10)
    assert js_errors(browser) == []


def test_leaderboard_and_bad_input_in_the_page(browser, base_url, shots, tmp_path):
    rated = rate_pool(
        ["rule", "random", "rule:declare=never", "random:alifer=false"], 30, seed=0, workers=1, record_games=True
    )
    summary = rated.summary
    path = tmp_path / "ratings.json"
    path.write_text(json.dumps(summary))
    games = tmp_path / "games.jsonl"
    games.write_text("".join(json.dumps(g) + "\n" for g in rated.games))
    # The games of the same run open in Replay: each pair of the leaderboard links to its own.
    open_page(browser, base_url + "/#replay")
    browser.find_element(By.ID, "replay-file").send_keys(str(games))
    wait(browser, lambda d: visible(d, "replay"))
    browser.find_element(By.CSS_SELECTOR, "nav a[data-view=leaderboard]").click()
    browser.find_element(By.ID, "board-file").send_keys(str(path))
    rows = wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, ".leader-table tr td:nth-child(2)"))
    assert [r.text for r in rows[:4]] == [e["player"] for e in summary["ratings"]]
    links = browser.find_elements(By.CSS_SELECTOR, ".leader-table a.games-link")
    assert len(links) == len(summary["pairs"]) == 6, (js_errors(browser), browser.find_element(By.ID, "board").text)
    # The page's own link colour, not the browser's default blue.
    assert links[0].value_of_css_property("color") not in ("rgba(0, 0, 238, 1)", "rgb(0, 0, 238)")
    (shots / "leaderboard.png").write_bytes(browser.get_screenshot_as_png())
    pair = summary["pairs"][1]
    links[1].click()
    wait(browser, lambda d: visible(d, "pair-filter") and visible(d, "replay"))
    assert f"{pair['a']} vs {pair['b']}" in browser.find_element(By.ID, "pair-filter").text
    options = browser.find_elements(By.CSS_SELECTOR, "#game-select option")
    assert len(options) == 60 and all(pair["a"] in o.text and pair["b"] in o.text for o in options)
    # A summary of another run of the same pair links to none of these games.
    other = tmp_path / "h2h.json"
    other.write_text(json.dumps(head_to_head("rule", "random", 2, seed=0, workers=1).summary))
    browser.find_element(By.CSS_SELECTOR, "nav a[data-view=leaderboard]").click()
    browser.find_element(By.ID, "board-file").send_keys(str(other))
    wait(browser, lambda d: "rule vs random: 2 deals" in d.find_element(By.ID, "board").text)
    assert not visible(browser, "board-hint")  # the games are still open in Replay
    assert browser.find_elements(By.CSS_SELECTOR, ".leader-table a.games-link") == []
    open_page(browser, base_url + "/#leaderboard")

    bad = tmp_path / "bad.json"
    bad.write_text('{"kind": "ratings"}')
    browser.find_element(By.ID, "board-file").send_keys(str(bad))

    def error_shown(text):
        return wait(browser, lambda d: visible(d, "error") and text in d.find_element(By.ID, "error").text)

    error_shown("malformed ratings summary: missing field 'settings'")
    assert not browser.find_elements(By.CSS_SELECTOR, ".leader-table")
    # The server carries on: the other views still answer, each refusal in the page.
    open_page(browser, base_url + "/#replay")
    bad = tmp_path / "bad.jsonl"
    bad.write_text("not a game\n")
    browser.find_element(By.ID, "replay-file").send_keys(str(bad))
    error_shown("line 1: not JSON")
    open_page(browser, base_url + "/#play")
    opponent = browser.find_element(By.ID, "opponent")
    opponent.clear()
    opponent.send_keys("nosuch")
    browser.find_element(By.ID, "start").click()
    error_shown("unknown player 'nosuch'")
    assert js_errors(browser, allowed=("/api/leaderboard", "/api/replays", "/api/tables")) == []


def saved_session_with_advice(path: Path) -> list[dict]:
    """A 4-player session with advice, every partie saved (trappola.agents.evaluation.session_record)."""
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
    for i, p in enumerate(players.values()):
        p.reset(i)
    session = Session(names=list(players), max_parties=30, seed=2, advice=True)
    recorder = SessionRecorder(session, {"session": 0})
    play_session(players, session=session, on_partie=recorder.on_partie)
    games = recorder.finish()
    path.write_text("".join(json.dumps(g) + "\n" for g in games))
    return games


def test_replay_a_saved_session_partie_by_partie(browser, base_url, tmp_path):
    from selenium.webdriver.support.ui import Select

    path = tmp_path / "session.jsonl"
    games = saved_session_with_advice(path)
    advised = next(k for k, g in enumerate(games) if g["advice"])
    browser.get(base_url + "/#replay")
    browser.find_element(By.ID, "replay-file").send_keys(str(path))
    # The page may still show an earlier file (the same URL does not reload it): wait for this one.
    wait(browser, lambda d: visible(d, "replay") and "session 0" in d.find_element(By.ID, "game-select").text)
    options = [o.text for o in browser.find_elements(By.CSS_SELECTOR, "#game-select option")]
    assert len(options) == len(games) and options[0].startswith("session 0, partie 1:")
    assert "session 0, partie 1" in browser.find_element(By.ID, "r-session").text.lower()  # headings are upper case
    Select(browser.find_element(By.ID, "game-select")).select_by_value(str(advised))
    g = games[advised]
    wait(browser, lambda d: f"partie {g['partie_index'] + 1}\n" in d.find_element(By.ID, "r-session").text.lower())
    line = browser.find_element(By.ID, "r-session-line").text
    assert f"Pro partie of {g['pro_declarer']}" in line and f"Bulka after it: {g['bulka']}" in line
    seen = []
    for step in range(len(g["actions"]) + 1):
        items = [li.text for li in browser.find_elements(By.CSS_SELECTOR, "#r-advice-list li")]
        want = [f"{a['adviser']}: {action_words(a['advice'])}" for a in g["advice"] if a["step"] == step]
        assert items == want, step
        seen += items
        if step < len(g["actions"]):
            browser.find_element(By.ID, "next").click()
    assert seen and browser.find_element(By.ID, "r-outcome").text
    # The last partie of the file carries the split of the Bulka.
    Select(browser.find_element(By.ID, "game-select")).select_by_value(str(len(games) - 1))
    wait(browser, lambda d: "the Bulka is split" in d.find_element(By.ID, "r-session").text)
    assert js_errors(browser) == []


def test_the_human_defender_sees_the_advice_of_the_waiting_players(browser, base_url, app, shots):
    """The advisers field makes a session of four; then a table whose
    opponent starts at a Pro offer (a streak of 2) and declares: before
    each of the person's decisions the two waiting players' advice is
    listed beside its hand, as the server gave it. Once that partie is
    over the person waits in turn, and the end box of the partie it
    watched says so."""
    from trappola.agents import make_player
    from trappola.web.play import PlayTable

    browser.set_window_size(*DESKTOP)
    start_game(browser, base_url, "rule", 1, parties=10, advisers="random, rule")
    players = [r.text.split()[0] for r in browser.find_elements(By.CSS_SELECTOR, "#ledger table tr")[1:5]]
    assert players == ["you", "rule", "random", "rule#2"]

    opp = make_player("rule:pro=always")
    advisers = [make_player("rule"), make_player("random")]
    table = PlayTable(opp, parties=3, seed=7, advisers=advisers, streaks={opp.name: 2}, submit=app.state.pool.submit)
    app.state.tables.add(table)
    open_page(browser, base_url + f"/#play/{table.id}")
    wait(
        browser,
        lambda d: (
            d.find_elements(By.CSS_SELECTOR, "#advice-list li")
            and d.find_elements(By.CSS_SELECTOR, "#hand button.legal:not([disabled])")
        ),
    )
    assert "declared Pro" in browser.find_element(By.ID, "pro-banner").text
    state = table.state()
    items = [li.text for li in browser.find_elements(By.CSS_SELECTOR, "#advice-list li")]
    assert items == [f"{a['adviser']}: {a['advice']}" for a in state["partie"]["advice"]]
    assert [i.split(":")[0] for i in items] == ["rule", "random"]
    assert all(i.split(": ", 1)[1].startswith(("advise ", "no advice")) for i in items)
    (shots / "play-advice.png").write_bytes(browser.get_screenshot_as_png())
    # The person ignores the advice (its lowest card); the next decision is advised afresh.
    clicks = play_on(browser, pick=lambda cards: min(cards, key=rank))
    assert clicks >= 2 and "declared Pro and" in browser.find_element(By.ID, "partie-end").text
    for _ in range(3):  # the parties after the Pro partie: the person waits in one of them
        if "You waited" in browser.find_element(By.ID, "partie-end").text or visible(browser, "game-over"):
            break
        click_and_wait(browser, browser.find_element(By.ID, "next-partie"))
        play_on(browser, pick=lambda cards: min(cards, key=rank))
    assert "You waited" in browser.find_element(By.ID, "partie-end").text
    assert "you" not in browser.find_element(By.ID, "my-name").text
    assert browser.find_elements(By.CSS_SELECTOR, "#hand .card") == []
    assert js_errors(browser) == []
