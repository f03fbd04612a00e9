"""The web app in a real browser (headless Chromium through chromedriver):
a whole partie played by clicking, a saved game stepped to its end, the
leaderboard, bad input shown in the page, and no JavaScript errors.

Skipped without Chromium (Debian: ``apt-get install chromium
chromium-driver``). Screenshots of the three views go to a temporary
folder; to refresh the README's, run with ``TRAPPOLA_SCREENSHOTS=docs/img``.
"""
import json
import os
import shutil
import socket
import tempfile
import threading
import time
from pathlib import Path

import pytest

pytest.importorskip("fastapi")
uvicorn = pytest.importorskip("uvicorn")
webdriver = pytest.importorskip("selenium.webdriver")

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

from evaluation import head_to_head, rate_pool  # noqa: E402
from trappola_web.app import create_app  # noqa: E402

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
pytestmark = pytest.mark.skipif(
    not (CHROMIUM and CHROMEDRIVER),
    reason="Chromium and chromedriver not found: apt-get install chromium chromium-driver")


@pytest.fixture(scope="module")
def base_url():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(create_app(), host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    end = time.monotonic() + 10
    while not server.started:
        assert time.monotonic() < end and thread.is_alive(), "the server did not start"
        time.sleep(0.02)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(10)


@pytest.fixture(scope="module")
def browser():
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    profile = tempfile.mkdtemp(prefix="trappola-chromium-")
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--no-first-run", f"--user-data-dir={profile}", "--window-size=1320,900"):
        opts.add_argument(arg)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=opts, service=webdriver.ChromeService(executable_path=CHROMEDRIVER))
    driver.implicitly_wait(0)
    yield driver
    driver.quit()
    shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture(scope="module")
def shots(tmp_path_factory):
    folder = os.environ.get("TRAPPOLA_SCREENSHOTS")
    path = Path(folder) if folder else tmp_path_factory.mktemp("screenshots")
    path.mkdir(parents=True, exist_ok=True)
    return path


def js_errors(driver, allowed=()):
    """Severe console entries, leaving out the failed requests a test
    provoked on purpose (``allowed``: substrings of their URLs)."""
    out = []
    for entry in driver.get_log("browser"):
        if entry["level"] != "SEVERE":
            continue
        if entry.get("source") == "network" and any(a in entry["message"] for a in allowed):
            continue
        out.append(entry["message"])
    return out


def wait(driver, condition, timeout=20):
    return WebDriverWait(driver, timeout, poll_frequency=0.05).until(lambda d: condition(d))


def visible(driver, element_id):
    found = driver.find_elements(By.ID, element_id)
    return found and found[0].is_displayed()


def test_play_a_whole_partie_by_clicking(browser, base_url, shots):
    browser.get(base_url + "/#play")
    opponent = browser.find_element(By.ID, "opponent")
    opponent.clear()
    opponent.send_keys("rule")
    browser.find_element(By.ID, "seed").send_keys("21")
    browser.find_element(By.ID, "start").click()
    clicks = 0
    while not visible(browser, "partie-end"):
        clickable = wait(browser, lambda d: visible(d, "partie-end") or
                         d.find_elements(By.CSS_SELECTOR, "#hand button.legal") or
                         d.find_elements(By.CSS_SELECTOR, "#buttons button[data-action='46']"))
        if clickable is True:
            break
        if clicks == 4:
            (shots / "play.png").write_bytes(browser.get_screenshot_as_png())
        # Cards first; answer an Alifer proposal by playing on.
        version = browser.find_element(By.ID, "table").get_attribute("data-version")
        clickable[0].click()
        clicks += 1
        wait(browser, lambda d: d.find_element(By.ID, "table").get_attribute("data-version") != version)
    end = browser.find_element(By.ID, "partie-end").text
    assert "held:" in end and ("wins" in end or "Alifer" in end) and "Game over" in end
    assert clicks >= 5
    assert browser.find_element(By.ID, "status").text == "The game is over."
    assert js_errors(browser) == []


@pytest.fixture(scope="module")
def saved_games(tmp_path_factory):
    pytest.importorskip("numba")
    games = head_to_head("pimc:samples=16", "rule", 1, seed=4, workers=1, record_games=True).games
    path = tmp_path_factory.mktemp("games") / "games.jsonl"
    path.write_text("".join(json.dumps(g) + "\n" for g in games))
    return path, games


def test_replay_a_saved_game_to_its_end(browser, base_url, shots, saved_games):
    path, games = saved_games
    browser.get(base_url + "/#replay")
    browser.find_element(By.ID, "replay-file").send_keys(str(path))
    wait(browser, lambda d: visible(d, "replay"))
    assert browser.find_element(By.ID, "step-label").text == f"step 0 of {len(games[0]['actions'])}"
    hands = [el.text.split() for el in browser.find_elements(By.CSS_SELECTOR, "#r-hand-0 .card")]
    assert len(hands) == 9 and len(browser.find_elements(By.CSS_SELECTOR, "#r-stock .card")) == 18
    steps = 0
    while browser.find_element(By.ID, "next").is_enabled():
        browser.find_element(By.ID, "next").click()
        steps += 1
        if steps == 9:
            # Mid-game, after a searched card when there is one: the screenshot.
            while not browser.find_elements(By.CSS_SELECTOR, "#r-values table") and \
                    browser.find_element(By.ID, "next").is_enabled():
                browser.find_element(By.ID, "next").click()
                steps += 1
            assert browser.find_elements(By.CSS_SELECTOR, "#r-values tr.chosen")
            (shots / "replay.png").write_bytes(browser.get_screenshot_as_png())
    assert steps == len(games[0]["actions"])
    result = games[0]["result"]
    outcome = browser.find_element(By.ID, "r-outcome").text
    winner = None if result["winner"] is None else games[0]["players"][result["winner"]]
    assert (winner and outcome == f"{winner} wins") or (not winner and "Alifer" in outcome)
    assert js_errors(browser) == []


def test_leaderboard_and_bad_input_in_the_page(browser, base_url, shots, tmp_path):
    summary = rate_pool(["rule", "random", "rule:declare=never", "random:alifer=false"], 30, seed=0,
                        workers=1).summary
    path = tmp_path / "ratings.json"
    path.write_text(json.dumps(summary))
    browser.get(base_url + "/#leaderboard")
    browser.find_element(By.ID, "board-file").send_keys(str(path))
    rows = wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, ".leader-table tr td:nth-child(2)"))
    assert [r.text for r in rows[:4]] == [e["player"] for e in summary["ratings"]]
    (shots / "leaderboard.png").write_bytes(browser.get_screenshot_as_png())

    bad = tmp_path / "bad.json"
    bad.write_text('{"kind": "ratings"}')
    browser.find_element(By.ID, "board-file").send_keys(str(bad))

    def error_shown(text):
        return wait(browser, lambda d: visible(d, "error") and text in d.find_element(By.ID, "error").text)

    error_shown("malformed ratings summary: missing field 'settings'")
    assert not browser.find_elements(By.CSS_SELECTOR, ".leader-table")
    # The server carries on: the other views still answer, each refusal in the page.
    browser.get(base_url + "/#replay")
    bad = tmp_path / "bad.jsonl"
    bad.write_text("not a game\n")
    browser.find_element(By.ID, "replay-file").send_keys(str(bad))
    error_shown("line 1: not JSON")
    browser.get(base_url + "/#play")
    opponent = browser.find_element(By.ID, "opponent")
    opponent.clear()
    opponent.send_keys("nosuch")
    browser.find_element(By.ID, "start").click()
    error_shown("unknown player 'nosuch'")
    assert js_errors(browser, allowed=("/api/leaderboard", "/api/replays", "/api/tables")) == []


def saved_session_with_advice(path: Path) -> list[dict]:
    """A 4-player session with advice, every partie saved (evaluation.session_record)."""
    from agents import make_player
    from evaluation.session_record import SessionRecorder
    from trappola_env.engine.session import Session
    from trappola_env.referee import play_session

    players = {"A": make_player("rule:pro=always,answer_rollouts=0"), "B": make_player("random"),
               "C": make_player("random"), "D": make_player("random:pro=always")}
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
        want = [f"{a['adviser']}: {a['name']}" for a in g["advice"] if a["step"] == step]
        assert items == want, step
        seen += items
        if step < len(g["actions"]):
            browser.find_element(By.ID, "next").click()
    assert seen and browser.find_element(By.ID, "r-outcome").text
    # The last partie of the file carries the split of the Bulka.
    Select(browser.find_element(By.ID, "game-select")).select_by_value(str(len(games) - 1))
    wait(browser, lambda d: "the Bulka is split" in d.find_element(By.ID, "r-session").text)
    assert js_errors(browser) == []


def test_play_a_session_with_advisers_and_see_their_advice(browser, base_url):
    """A session with two advisers (seed 12 soon brings a Pro partie of the
    opponent with the person defending): the person clicks its first legal
    card or button, waits and advises when the others play, until the
    advice to it shows beside its hand."""
    from selenium.webdriver.support.ui import Select

    browser.get(base_url + "/#play")
    browser.refresh()  # the same URL as an earlier test's: start from a fresh page
    Select(browser.find_element(By.ID, "mode")).select_by_value("session")
    parties = browser.find_element(By.ID, "parties")
    parties.clear()
    parties.send_keys("60")
    browser.find_element(By.ID, "advisers").send_keys("random, random")
    opponent = browser.find_element(By.ID, "opponent")
    opponent.clear()
    opponent.send_keys("rule:pro=always,answer_rollouts=0")
    seed = browser.find_element(By.ID, "seed")
    seed.clear()
    seed.send_keys("12")
    browser.find_element(By.ID, "start").click()
    watched = False
    for _ in range(1500):
        found = wait(browser, lambda d: d.find_elements(
            By.CSS_SELECTOR, "#next-partie, #new-game, #hand button.legal, #buttons button"))
        if browser.find_elements(By.ID, "advice-list") and browser.find_elements(By.CSS_SELECTOR, "#hand button.legal"):
            break
        watched = watched or "(you wait)" in browser.find_element(By.ID, "my-name").text
        assert not browser.find_elements(By.ID, "new-game"), "the session ended before the person was advised"
        version = browser.find_element(By.ID, "table").get_attribute("data-version")
        buttons = [b for b in found if b.is_displayed() and b.is_enabled()
                   and b.get_attribute("data-action") != "44"]  # never propose Alifer
        if not buttons:
            time.sleep(0.05)
            continue
        buttons[0].click()
        wait(browser, lambda d: d.find_element(By.ID, "table").get_attribute("data-version") != version)
    items = [li.text for li in browser.find_elements(By.CSS_SELECTOR, "#advice-list li")]
    assert len(items) == 2 and all(": " in item for item in items)
    assert watched and js_errors(browser) == []
