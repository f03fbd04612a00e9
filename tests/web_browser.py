"""What the browser tests of the web table share: the app served on a free
port, one headless Chromium per test module, screenshots, and the helpers
that drive the page (start a game, click and wait for the answer, play on,
measure the page).

Skipped without Chromium (Debian: ``apt-get install chromium
chromium-driver``). Screenshots go to a temporary folder; to refresh the
README's, run with ``TRAPPOLA_SCREENSHOTS=docs/img``.
"""

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

from selenium.common.exceptions import StaleElementReferenceException, TimeoutException  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

from trappola.web.app import create_app  # noqa: E402

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
NO_BROWSER = pytest.mark.skipif(
    not (CHROMIUM and CHROMEDRIVER),
    reason="Chromium and chromedriver not found: apt-get install chromium chromium-driver",
)

DESKTOP = (1366, 900)
PHONE = (390, 844)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def app():
    return create_app()


@pytest.fixture(scope="module")
def base_url(app):
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
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
    for arg in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        f"--user-data-dir={profile}",
        f"--window-size={DESKTOP[0]},{DESKTOP[1]}",
    ):
        opts.add_argument(arg)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=opts, service=webdriver.ChromeService(executable_path=CHROMEDRIVER))
    driver.implicitly_wait(0)
    driver.set_window_size(*DESKTOP)
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


def wait(driver, condition, timeout=30):
    """``condition(driver)`` once it is true; a timeout says what the page showed."""
    try:
        return WebDriverWait(driver, timeout, poll_frequency=0.05).until(lambda d: condition(d))
    except TimeoutException:
        shown = driver.execute_script(
            "const s = document.getElementById('status'), t = document.getElementById('table');"
            "const off = (b) => (b.disabled ? ' off' : '');"
            "const hand = [...document.querySelectorAll('#hand button')].map((b) => b.className + off(b));"
            "const buttons = [...document.querySelectorAll('#buttons button')].map((b) => b.dataset.action + off(b));"
            "return [location.hash, s && s.textContent, t && t.dataset.version, hand, buttons]"
        )
        raise AssertionError(f"timed out; the page showed {shown}; console: {js_errors(driver)}") from None


def visible(driver, element_id):
    found = driver.find_elements(By.ID, element_id)
    return found and found[0].is_displayed()


RANKS = "2789TBCRA"


def rank(button):
    return RANKS.index(button.get_attribute("data-card")[0])


def open_page(browser, url):
    """Load ``url`` as a new page (from ``#play/<id>`` to ``#play`` a browser
    only moves within the page it has)."""
    browser.get("about:blank")
    browser.get(url)


def choose(browser, element_id, value):
    Select(browser.find_element(By.ID, element_id)).select_by_value(value)


def fill(browser, element_id, text):
    field = browser.find_element(By.ID, element_id)
    field.clear()
    field.send_keys(text)


def start_game(browser, base_url, opponent, seed, parties=1, advisers="", seat="challenger", speed="fast"):
    """Open Play and start a game; every field is set, since the page keeps
    its settings from the last visit."""
    open_page(browser, base_url + "/#play")
    wait(browser, lambda d: visible(d, "setup"))
    fill(browser, "opponent", opponent)
    fill(browser, "seed", str(seed))
    choose(browser, "mode", "session" if parties > 1 else "1")
    choose(browser, "seat", seat)
    choose(browser, "play-speed", speed)
    if parties > 1:
        fill(browser, "parties", str(parties))
        fill(browser, "advisers", advisers)
    if browser.find_element(By.ID, "hint-on").is_selected():
        browser.find_element(By.ID, "hint-on").click()
    browser.find_element(By.ID, "start").click()
    wait(browser, lambda d: visible(d, "table") and "#play/" in d.current_url)


def click_and_wait(browser, element):
    """Click and wait for the table's next state; on a phone a card is
    tapped, then confirmed."""
    version = browser.find_element(By.ID, "table").get_attribute("data-version")
    element.click()
    if visible(browser, "confirm-bar"):
        browser.find_element(By.ID, "confirm-play").click()
    wait(browser, lambda d: d.find_element(By.ID, "table").get_attribute("data-version") != version)


def play_on(
    browser, pick=lambda cards: cards[0], until=lambda d: False, shot=None, clicks_before_shot=4, tricks_held=None
):
    """Click legal cards (``pick`` of them; an Alifer proposal is declined)
    until the end box shows or ``until(driver)``; returns the clicks made.
    ``tricks_held``: a list to which each completed trick's text on the
    felt is added, as the click that completed it left it, with the
    status line, the last-trick line and whether "to play" shows (its
    ``display``)."""
    clicks = 0
    while True:
        found = wait(
            browser,
            lambda d: (
                until(d)
                or visible(d, "partie-end")
                or d.find_elements(By.CSS_SELECTOR, "#hand button.legal:not([disabled])")
                or d.find_elements(By.CSS_SELECTOR, "#buttons button[data-action='46']:not([disabled])")
            ),
        )
        if found is True:
            return clicks
        if shot is not None and clicks == clicks_before_shot:
            shot()
        try:
            cards = [b for b in found if b.get_attribute("data-card")]
            done = len(browser.find_elements(By.CSS_SELECTOR, "#tricks li"))
            click_and_wait(browser, pick(cards) if cards else found[0])
        except StaleElementReferenceException:  # redrawn under the test's hand: look again
            continue
        clicks += 1
        if (
            tricks_held is not None
            and len(browser.find_elements(By.CSS_SELECTOR, "#tricks li")) > done
            and not visible(browser, "partie-end")
        ):
            tricks_held.append(
                browser.execute_script(
                    "return ['trick', 'status', 'last-trick'].map((id) => document.getElementById(id).textContent)"
                    ".concat([getComputedStyle(document.getElementById('my-turn')).display])"
                )
            )


def axe_violations(browser):
    """Every violation axe-core finds on the page, of any impact (skipped
    without axe-selenium-python)."""
    axe_module = pytest.importorskip("axe_selenium_python")
    axe = axe_module.Axe(browser)
    if not browser.execute_script("return Boolean(window.axe)"):  # once per page load
        axe.inject()
    # Every rule runs; only the violations' details are gathered and sent back (much the slowest part).
    found = axe.run(options={"resultTypes": ["violations"]})["violations"]
    return [(v["id"], v["impact"], [n["target"] for n in v["nodes"]][:3]) for v in found]


def page_width(browser):
    return browser.execute_script("return document.documentElement.scrollWidth")


def rects(browser, css):
    """The bounding boxes of the elements ``css`` selects, read at once (the
    page may redraw between two reads)."""
    return browser.execute_script(
        "return [...document.querySelectorAll(arguments[0])].map((e) => {"
        " const r = e.getBoundingClientRect(); return {x: r.x, y: r.y, width: r.width, height: r.height}; })",
        css,
    )


def card_names(browser, css):
    """The ``data-card`` names of the cards ``css`` selects, read at once."""
    return browser.execute_script("return [...document.querySelectorAll(arguments[0])].map((e) => e.dataset.card)", css)


def viewport_width(browser):
    return browser.execute_script("return window.innerWidth")


def wide_elements(browser):
    """The elements reaching past the viewport (for a failure's message: a
    mobile browser widens its layout to the widest element)."""
    return browser.execute_script(
        "return [...document.querySelectorAll('*')]"
        ".filter((e) => e.getBoundingClientRect().right > window.innerWidth + 0.5)"
        ".map((e) => `${e.tagName}#${e.id}.${e.className} ${Math.round(e.getBoundingClientRect().right)}`)"
    )


def phone(browser):
    """Emulate a phone (390x844, touch): undone by ``desktop``."""
    browser.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": PHONE[0], "height": PHONE[1], "deviceScaleFactor": 2, "mobile": True},
    )
    browser.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 5})


def desktop(browser):
    browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    browser.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": False})
    browser.set_window_size(*DESKTOP)
