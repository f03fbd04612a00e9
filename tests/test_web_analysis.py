"""The Analysis view in headless Chromium: the declarations file that
``trappola analyze declarations --json`` writes opened as a forest plot
(a row hovered: its n, interval and command), the Pro chart's file as a
take-point map (a cell picked: declare or wait at the Bulka chosen), a
row without an interval drawn as "n too small", and axe-core finding
nothing at either size. ``web_browser`` has the fixtures.
"""
# ruff: noqa: F811 (the fixtures imported from web_browser are this module's own, by pytest's rules)

import json
from pathlib import Path

import pytest
from web_browser import (  # noqa: F401 (fixtures)
    NO_BROWSER,
    app,
    axe_violations,
    base_url,
    browser,
    desktop,
    js_errors,
    open_page,
    page_width,
    phone,
    shots,
    visible,
    wait,
    wide_elements,
)

webdriver = pytest.importorskip("selenium.webdriver")
from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402

pytestmark = NO_BROWSER

RESULTS = Path(__file__).parent.parent / "docs" / "results"


def test_the_analysis_view_opens_both_files(browser, base_url, shots, tmp_path):
    # A real declarations file, with one row as a newer analysis writes it: too few decisions for an interval.
    data = json.loads((RESULTS / "declarations_aces.json").read_text())
    data["groups"].append({"kind": "bianka", "turn": None, "contrast": "now - never", "n": 1, "tokens": 3.0})
    data["groups"][0]["decider"] = "pimc"
    decl = tmp_path / "declarations.json"
    decl.write_text(json.dumps(data))
    open_page(browser, base_url + "/#analysis")
    browser.find_element(By.ID, "decl-file").send_keys(str(decl))
    rows = wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#forest-table tr.forest-row"))
    assert len(rows) == len(data["groups"])
    assert "n too small" in rows[-1].text and "small-n" in rows[-1].get_attribute("class")
    assert "pimc" in rows[0].text  # the decider, where the file names one
    # Hovering a row shows its n, its interval and the command that wrote the file.
    aces = next(r for r in rows if r.text.startswith("aces: now - never"))
    ActionChains(browser).move_to_element(aces).perform()
    tip = wait(browser, lambda d: visible(d, "forest-tip") and d.find_element(By.ID, "forest-tip"))
    g = next(g for g in data["groups"] if g["kind"] == "aces" and g["turn"] is None and g["contrast"] == "now - never")
    lo, hi = g["tokens_ci"]
    assert f"n = {g['n']}" in tip.text and f"[{lo:.2f}, {hi:.2f}]" in tip.text
    assert "trappola analyze declarations --players" in tip.text and "--deals 60 --seed 0 --condition aces" in tip.text
    # Another measure redraws the plot: the points' intervals.
    browser.find_element(By.CSS_SELECTOR, "#forest-metric option[value='points']").click()
    wait(browser, lambda d: "points per deal" in d.find_element(By.ID, "forest-table").text)
    (shots / "analysis-forest.png").write_bytes(browser.get_screenshot_as_png())
    # The Pro chart: a cell picked, then a Bulka typed, each answered declare or wait.
    browser.find_element(By.ID, "pro-file").send_keys(str(RESULTS / "pro_chart.json"))
    chart = json.loads((RESULTS / "pro_chart.json").read_text())["chart"]
    demo = "#pro-map rect.cell[data-p='0.3'][data-q='0.8']"
    cell = wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, demo))[0]
    cell.click()
    t = chart["threshold"][chart["p"].index(0.8)][chart["p"].index(0.3)]
    assert t > 4  # the chart's demo table: waiting pays at the least Bulka an offer finds
    bulka = browser.find_element(By.ID, "pick-bulka")
    for stakes, want in ((int(t) - 1, "Wait"), (int(t) + 1, "Declare")):
        bulka.clear()
        bulka.send_keys(str(stakes))
        wait(browser, lambda d, s=stakes: f"it holds {s}." in d.find_element(By.ID, "pro-verdict").text, timeout=5)
        verdict = browser.find_element(By.ID, "pro-verdict").text
        assert verdict.startswith(want) and "p 0.3, q 0.8" in verdict, verdict
        bulka = browser.find_element(By.ID, "pick-bulka")
    # The lab's players, where the chart marks them.
    lab = browser.find_element(By.ID, "lab-players").text
    assert all(p["label"] in lab for p in chart["players"])
    assert len(browser.find_elements(By.CSS_SELECTOR, "#pro-map .lab-player")) == len(chart["players"])
    browser.execute_script("document.getElementById('pro-chart').scrollIntoView()")
    (shots / "analysis-pro.png").write_bytes(browser.get_screenshot_as_png())
    assert axe_violations(browser) == [], "desktop"
    phone(browser)
    try:
        assert page_width(browser) <= browser.execute_script("return window.innerWidth"), wide_elements(browser)
        assert axe_violations(browser) == [], "phone"
    finally:
        desktop(browser)
    assert js_errors(browser) == []
