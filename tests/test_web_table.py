"""The web table as a new player meets it, in headless Chromium at
1366x900 and at 390x844 (a phone): input taken once per move, long player
names kept within the page, tap-then-confirm and 44 px tap targets on a
phone, keyboard-only play, axe-core's accessibility checks on every view,
settings kept across reloads, the rules panel, a rematch, the game
downloaded and opened in Replay, and a waiting player watching the other
partie at a pace a person can follow. ``web_browser`` has the fixtures.
"""
# ruff: noqa: F811 (the fixtures imported from web_browser are this module's own, by pytest's rules)

import json
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
    choose,
    click_and_wait,
    desktop,
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
from trappola.web.opponents import MAX_SPEC, web_player

webdriver = pytest.importorskip("selenium.webdriver")
from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402

pytestmark = NO_BROWSER

#: The longest player name the web table accepts: a spec of MAX_SPEC characters.
LONG = (
    "rule:declare=no_aces,manko=false,alifer=never,alifer_margin=100,answer_rollouts=0,rollout_p=0.25,"
    "alifer_p=0.45,twos=false,first_two=0.75,cash=late,endgame=0,samples=1,pro=never,pro_bulka=50,heed=false"
)


def plays(browser):
    """How many cards the person has played, by the move list."""
    return sum(
        line.startswith("you: play")
        for line in browser.execute_script(
            "return [...document.querySelectorAll('#log li')].map((li) => li.textContent)"
        )
    )


def test_a_double_click_plays_one_card_and_input_waits_for_the_trick(browser, base_url, shots):
    # Seed 8, the person dealing: rule leads, the person's highest card wins the trick and the person leads next.
    start_game(browser, base_url, "rule", 8, seat="dealer", speed="normal")
    cards = wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#hand button.legal:not([disabled])"))
    assert (
        not browser.find_element(By.ID, "opp-turn").is_displayed()
        and browser.find_element(By.ID, "my-turn").is_displayed()
    )
    # Card faces: the suit drawn (SVG), the card named in words for a screen reader.
    assert len(browser.find_elements(By.CSS_SELECTOR, "#hand .card svg.pip")) == 9
    assert all(" of " in c.get_attribute("aria-label") for c in cards)
    best = max(cards, key=rank)
    # Two clicks 180 ms apart on the same spot: the hand shifts left under the second.
    ActionChains(browser).move_to_element(best).click().pause(0.18).click().perform()
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#tricks li"))
    assert "trick to you" in browser.find_element(By.ID, "trick").text  # the finished trick is on show
    assert browser.find_elements(By.CSS_SELECTOR, "#hand button.legal:not([disabled])") == []
    # Shown once, on the felt (not again as "last trick"), and no "Your turn" while the hand is shut (all read at
    # once: the hold ends by itself).
    trick, last, status, badge = browser.execute_script(
        "return ['trick', 'last-trick', 'status'].map((id) => document.getElementById(id).textContent)"
        ".concat([getComputedStyle(document.getElementById('my-turn')).display])"
    )
    assert "trick to you" in trick and last == "" and "Your turn" not in status and badge == "none", (trick, status)
    (shots / "trick-held.png").write_bytes(browser.get_screenshot_as_png())
    # The cards moved into the trick (an animation at the speed set).
    assert browser.find_elements(By.CSS_SELECTOR, "#trick .played-card.arrive")
    time.sleep(1.5)
    assert plays(browser) == 1 and len(card_names(browser, "#hand .card")) == 8
    assert not visible(browser, "error")
    # Once the trick has been seen, the person leads: marked as the seat to play.
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#hand button.legal:not([disabled])"))
    assert "to-play" in browser.find_element(By.ID, "my-panel").get_attribute("class")
    # Proposing Alifer is no button beside the cards: a small control under the hand, which asks first.
    assert browser.find_elements(By.CSS_SELECTOR, "#buttons button[data-action='44']") == []
    ask = browser.find_element(By.ID, "alifer-open")
    assert ask.rect["height"] < 0.6 * rects(browser, "#hand .card")[0]["height"]
    ask.click()
    confirm = wait(browser, lambda d: visible(d, "alifer-confirm") and d.find_element(By.ID, "alifer-confirm"))
    # What accepting would leave each side with: its stake, nothing more, and a replay at double stakes.
    sides = [li.text for li in confirm.find_elements(By.CSS_SELECTOR, "#alifer-sides li")]
    assert sorted(s.split(":")[0] for s in sides) == ["rule", "you"] and all("-10 tokens" in s for s in sides), sides
    assert "double stakes" in confirm.text and all("stake: 20" in s for s in sides)
    (shots / "alifer-confirm.png").write_bytes(browser.get_screenshot_as_png())
    browser.find_element(By.ID, "alifer-no").click()  # keep playing: nothing was sent
    assert not visible(browser, "alifer-confirm")
    assert not any("Alifer" in li.text for li in browser.find_elements(By.CSS_SELECTOR, "#log li"))
    ask.click()
    click_and_wait(browser, wait(browser, lambda d: d.find_element(By.ID, "alifer-yes")))
    assert "you: propose Alifer" in [li.text for li in browser.find_elements(By.CSS_SELECTOR, "#log li")]
    assert js_errors(browser) == []


def _long_name_files(tmp_path):
    """A saved game and a ratings summary whose players have the longest name."""
    played = head_to_head("rule", "random", 1, seed=4, workers=1, record_games=True).games
    swap = {"rule": LONG, "random": "random"}
    for g in played:
        g["players"] = [swap[p] for p in g["players"]]
        g["pair"] = [swap[p] for p in g["pair"]]
    games = tmp_path / "games.jsonl"
    games.write_text("".join(json.dumps(g) + "\n" for g in played))
    summary = rate_pool(["rule", "random"], 2, seed=0, workers=1).summary
    text = json.dumps(summary).replace('"rule"', json.dumps(LONG))
    board = tmp_path / "ratings.json"
    board.write_text(text)
    return games, board


def test_long_names_never_widen_a_page(browser, base_url, tmp_path):
    assert len(LONG) == MAX_SPEC
    games, board = _long_name_files(tmp_path)
    for size in ("desktop", "phone"):
        (phone if size == "phone" else desktop)(browser)
        try:
            start_game(browser, base_url, LONG, 3)
            wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#hand .card"))
            # Shown short, the full spec in a details line that wraps.
            assert browser.find_element(By.ID, "opp-name").text == "rule"
            assert web_player(LONG).name in browser.find_element(By.ID, "specs").text
            assert_fits(browser, size)
            if size == "phone":  # the end box, the long name in its lines
                play_on(browser)
                assert_fits(browser, size)
            open_page(browser, base_url + "/#replay")
            browser.find_element(By.ID, "replay-file").send_keys(str(games))
            wait(browser, lambda d: visible(d, "replay"))
            browser.find_element(By.ID, "last").click()
            assert_fits(browser, size)
            open_page(browser, base_url + "/#leaderboard")
            browser.find_element(By.ID, "board-file").send_keys(str(board))
            wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, ".leader-table"))
            assert_fits(browser, size)
        finally:
            desktop(browser)
    assert js_errors(browser) == []


def assert_fits(browser, what):
    """The page is no wider than its viewport."""
    assert page_width(browser) <= browser.execute_script("return window.innerWidth"), (what, wide_elements(browser))


def _tap_targets(browser):
    """Visible controls smaller than 44x44 px (a checkbox counts as its label, which takes the tap too)."""
    return browser.execute_script(
        "const out = [];"
        "for (const e of document.querySelectorAll('button, a[href], select, input, summary, [tabindex]')) {"
        "  if (!e.offsetParent && getComputedStyle(e).position !== 'fixed') continue;"
        "  const t = e.type === 'checkbox' ? e.closest('label') || e : e;"
        "  const r = t.getBoundingClientRect();"
        "  if (r.width === 0 && r.height === 0) continue;"
        "  if (r.width < 44 || r.height < 44) out.push(`${e.tagName}#${e.id}.${e.className} ${r.width}x${r.height}`);"
        "} return out;"
    )


def test_a_phone_taps_then_confirms_and_every_target_is_44_px(browser, base_url, app, tmp_path, shots):
    from trappola.agents import make_player
    from trappola.web.play import PlayTable

    phone(browser)
    try:
        start_game(browser, base_url, "rule", 21)
        card = wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#hand button.legal:not([disabled])"))[0]
        name = card.get_attribute("aria-label")
        card.click()
        # The first tap only picks the card: nothing is played until it is confirmed.
        wait(browser, lambda d: visible(d, "confirm-bar"))
        assert browser.find_element(By.ID, "confirm-play").text == f"Play {name}" and plays(browser) == 0
        assert _tap_targets(browser) == []
        # The set-up form is folded away during play: the board starts near the top.
        assert not visible(browser, "setup") and browser.find_element(By.ID, "table").rect["y"] < 0.3 * PHONE[1]
        click_and_wait(browser, browser.find_element(By.ID, "confirm-play"))
        assert plays(browser) == 1
        # The Pro offer: its buttons are on screen at once.
        table = PlayTable(make_player("random"), parties=3, seat="dealer", seed=5, streaks={"you": 2})
        app.state.tables.add(table)
        open_page(browser, base_url + f"/#play/{table.id}")
        button = wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#pro-offer button[data-action='47']"))[0]
        assert "at least" in browser.find_element(By.ID, "pro-offer").text
        bottom = browser.execute_script("return arguments[0].getBoundingClientRect().bottom", button)
        assert 0 < bottom <= browser.execute_script("return window.innerHeight")
        # Its label sits in the middle of the (44 px) button, not at its top.
        middle = browser.execute_script(
            "const b = arguments[0], r = document.createRange(); r.selectNodeContents(b);"
            "const t = r.getBoundingClientRect(), o = b.getBoundingClientRect();"
            "return [(t.top + t.bottom) / 2, (o.top + o.bottom) / 2]",
            button,
        )
        assert abs(middle[0] - middle[1]) <= 2, middle
        (shots / "pro-offer-phone.png").write_bytes(browser.get_screenshot_as_png())
        assert _tap_targets(browser) == []
        for view in ("replay", "leaderboard", "rules"):
            open_page(browser, base_url + f"/#{view}")
            wait(browser, lambda d, v=view: visible(d, f"view-{v}"))
            assert _tap_targets(browser) == [], view
    finally:
        desktop(browser)
    assert js_errors(browser) == []


def test_axe_finds_nothing_on_any_view(browser, base_url, tmp_path, shots):
    """No violation of any impact on Play (the set-up, a game), Replay,
    Leaderboard and Rules at both sizes (the end box, where a test plays
    to it at each size: ``test_web_browser``; Analysis:
    ``test_web_analysis``)."""
    pytest.importorskip("axe_selenium_python")
    _serious = axe_violations
    games, board = _long_name_files(tmp_path)
    for size in ("desktop", "phone"):
        (phone if size == "phone" else desktop)(browser)
        try:
            open_page(browser, base_url + "/#play")
            wait(browser, lambda d: visible(d, "setup"))
            assert _serious(browser) == [], ("set-up", size)
            start_game(browser, base_url, "rule", 21, parties=2)
            wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#hand button.legal:not([disabled])"))
            assert _serious(browser) == [], ("play", size)
            open_page(browser, base_url + "/#replay")
            browser.find_element(By.ID, "replay-file").send_keys(str(games))
            wait(browser, lambda d: visible(d, "replay"))
            for _ in range(5):
                browser.find_element(By.ID, "next").click()
            assert _serious(browser) == [], ("replay", size)
            open_page(browser, base_url + "/#leaderboard")
            browser.find_element(By.ID, "board-file").send_keys(str(board))
            wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, ".leader-table"))
            assert _serious(browser) == [], ("leaderboard", size)
            open_page(browser, base_url + "/#rules")
            wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#rules-text h3"))
            assert _serious(browser) == [], ("rules", size)
        finally:
            desktop(browser)


def contrast(a, b):
    """WCAG's contrast ratio of two CSS colours ``rgb(r, g, b)``."""

    def luminance(css):
        channels = [int(x) / 255 for x in css[css.index("(") + 1 : css.index(")")].split(",")[:3]]
        lin = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]

    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_the_table_can_be_played_with_the_keyboard_alone(browser, base_url, shots):
    open_page(browser, base_url + "/#play")
    wait(browser, lambda d: visible(d, "setup"))
    choose(browser, "play-speed", "fast")
    choose(browser, "mode", "1")
    field = browser.find_element(By.ID, "opponent")
    field.clear()
    field.send_keys("rule", Keys.ENTER)  # Enter in the form starts the game
    wait(browser, lambda d: visible(d, "table"))
    actions = ActionChains(browser)
    # Tab to the first card the person may play, then Enter; the focus follows the turn from then on.
    for _ in range(60):
        active = browser.switch_to.active_element
        if active.get_attribute("data-card") and "legal" in active.get_attribute("class") and active.is_enabled():
            break
        actions.send_keys(Keys.TAB).perform()
        time.sleep(0.05)
    else:
        pytest.fail("Tab never reached a card")
    # The focus ring contrasts 3:1 or more with the felt around it (WCAG 2.2 focus appearance).
    ring, felt = browser.execute_script(
        "const c = document.activeElement; return [getComputedStyle(c).outlineColor,"
        " getComputedStyle(c.closest('.board')).backgroundColor]"
    )
    assert contrast(ring, felt) >= 3, (ring, felt)
    (shots / "focus-ring.png").write_bytes(browser.get_screenshot_as_png())
    for k in range(3):
        wait(
            browser,
            lambda d: (
                (
                    d.switch_to.active_element.get_attribute("data-card") is not None
                    and d.switch_to.active_element.is_enabled()
                    and "legal" in d.switch_to.active_element.get_attribute("class")
                )
                or (
                    d.switch_to.active_element.get_attribute("data-action") is not None
                    and d.switch_to.active_element.is_enabled()
                )
            ),
        )
        before = plays(browser) + len(browser.find_elements(By.CSS_SELECTOR, "#my-decls li"))
        if k == 1:  # arrows move between the cards
            actions.send_keys(Keys.ARROW_RIGHT).perform()
        actions.send_keys(Keys.ENTER).perform()
        wait(browser, lambda d, b=before: plays(d) + len(d.find_elements(By.CSS_SELECTOR, "#my-decls li")) > b)
    assert plays(browser) >= 2 and js_errors(browser) == []


def test_settings_are_kept_and_a_reload_restores_the_form(browser, base_url):
    start_game(browser, base_url, "random", 77, parties=5, seat="dealer", speed="slow")
    browser.find_element(By.ID, "hint-on").click()  # kept with the rest
    url = browser.current_url
    open_page(browser, "about:blank")
    open_page(browser, url)
    wait(browser, lambda d: visible(d, "table"))
    browser.find_element(By.ID, "change-setup").click()
    form = browser.execute_script(
        "return ['opponent', 'mode', 'parties', 'seat', 'seed', 'play-speed']"
        ".map((id) => document.getElementById(id).value)"
    )
    assert form == ["random", "session", "5", "dealer", "77", "slow"]
    assert browser.find_element(By.ID, "hint-on").is_selected()
    # A fresh visit to Play, with no game in the address, keeps them too.
    browser.find_element(By.ID, "hint-on").click()
    open_page(browser, base_url + "/#play")
    wait(browser, lambda d: visible(d, "setup"))
    assert browser.find_element(By.ID, "seed").get_attribute("value") == "77"
    assert browser.find_element(By.ID, "mode").get_attribute("value") == "session"
    assert not browser.find_element(By.ID, "hint-on").is_selected()


def test_the_rules_panel_has_the_rules_and_the_card_names(browser, base_url):
    open_page(browser, base_url + "/#play")
    browser.find_element(By.CSS_SELECTOR, "nav a[data-view=rules]").click()
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#rules-text h3"))
    headings = [h.text for h in browser.find_elements(By.CSS_SELECTOR, "#rules-text h3")]
    assert "1. Cards" in headings and "8. The Bulka session" in headings
    legend = browser.find_element(By.CSS_SELECTOR, ".legend").text
    assert all(w in legend for w in ("Bube", "Cavall", "Re", "Asso", "Spade", "Coppe", "Denari", "Bastoni"))
    assert len(browser.find_elements(By.CSS_SELECTOR, "#legend-suits svg")) == 4
    assert js_errors(browser) == []


def test_download_this_game_opens_in_replay_and_a_rematch_starts_again(browser, base_url, tmp_path):
    folder = tmp_path / "downloads"
    folder.mkdir()
    browser.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(folder)})
    start_game(browser, base_url, "rule", 11, seat="dealer")
    first = browser.current_url
    # Nothing to download until a partie has ended: the button says so instead of answering with an error.
    assert not browser.find_element(By.ID, "download").is_enabled()
    play_on(browser)
    assert browser.find_element(By.ID, "download").is_enabled()
    # The end box puts the person's column first, as the side panel does.
    heads = [th.text for th in browser.find_elements(By.CSS_SELECTOR, "#partie-end table.result tr:first-child th")]
    side = [th.text for th in browser.find_elements(By.CSS_SELECTOR, "#score tr:first-child th")]
    assert heads == side == ["you", "rule"]
    rows = browser.execute_script(
        "return [...document.querySelectorAll('#ledger tr.history-row')].map((r) => r.innerText)"
    )
    assert "the Bulka split at the end" in rows[-1]  # the split is a row: the rows add up at game over
    browser.find_element(By.ID, "end-download").click()
    saved = wait(browser, lambda d: [p for p in folder.glob("*.jsonl")])
    records = [json.loads(line) for line in Path(saved[0]).read_text().splitlines()]
    assert len(records) == 1 and records[0]["players"] == ["rule", "you"]
    open_page(browser, base_url + "/#replay")
    browser.find_element(By.ID, "replay-file").send_keys(str(saved[0]))
    wait(browser, lambda d: visible(d, "replay"))
    assert "session 0, partie 1: rule vs you" in browser.find_element(By.ID, "game-select").text
    open_page(browser, first)
    wait(browser, lambda d: visible(d, "partie-end"))
    browser.find_element(By.ID, "rematch").click()
    wait(browser, lambda d: d.current_url != first and d.find_elements(By.CSS_SELECTOR, "#hand .card"))
    assert browser.find_element(By.ID, "opp-name").text == "rule" and not visible(browser, "partie-end")
    assert js_errors(browser) == []


def test_a_waiting_player_watches_the_other_partie_at_a_pace(browser, base_url, shots):
    # Three players: the person loses a partie, waits, and watches rule and random play it, a move at a time.
    start_game(browser, base_url, "random:alifer=false", 2, parties=6, advisers="rule:alifer=never", speed="fast")
    for _ in range(6):
        play_on(browser, pick=lambda cards: min(cards, key=rank), until=lambda d: visible(d, "watch-banner"))
        if visible(browser, "watch-banner"):
            break
        click_and_wait(browser, browser.find_element(By.ID, "next-partie"))
    banner = browser.find_element(By.ID, "watch-banner").text
    assert "You wait in the queue" in banner and "0.25 s" in banner
    # An onlooker sees both players alike: card backs on either side, no faces.
    backs = [len(browser.find_elements(By.CSS_SELECTOR, f"#{side} .back")) for side in ("my-backs", "opp-backs")]
    assert min(backs) >= 8 and abs(backs[0] - backs[1]) <= 1
    assert browser.find_elements(By.CSS_SELECTOR, "#hand .card") == []
    (shots / "watch.png").write_bytes(browser.get_screenshot_as_png())
    # The ledger's headings stay in view while its rows scroll.
    # (The box is made short here, so that the rows of the parties so far overflow it; the page redraws the
    # ledger as the partie goes on, so it is measured in the same script.)
    top = browser.execute_script(
        "const b = document.querySelector('#ledger .rows-box'); b.style.maxHeight = '30px';"
        "b.scrollTop = b.scrollHeight; return [b.scrollTop, b.getBoundingClientRect().top,"
        " b.querySelector('th').getBoundingClientRect().top]"
    )
    assert top[0] > 0 and abs(top[2] - top[1]) <= 1, top
    assert browser.find_element(By.ID, "my-name").text != "you"
    seen, start = set(), time.monotonic()
    while not visible(browser, "partie-end") and time.monotonic() - start < 30:
        seen.add(browser.execute_script("return document.querySelectorAll('#log li').length"))
        time.sleep(0.05)
    # The moves came one by one, a person's reading time apart, not all at once.
    assert len(seen) >= 8 and time.monotonic() - start >= 8 * 0.25, (len(seen), time.monotonic() - start)
    assert "You waited" in browser.find_element(By.ID, "end-tokens").text
    assert js_errors(browser) == []
