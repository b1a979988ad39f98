"""The "Your data" page in Debian's Chromium: upload a small CSV with set_input_files, choose its
numeric columns, and see every estimator's median error over repeated runs (screenshot saved);
then, in release mode, release and re-measure and see the two releases combined."""

import json

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import RUN_ENDED, screen_heard

pytestmark = pytest.mark.browser

CSV = b"city,age,income\nOslo,34,52000\nBergen,51,61000\nOslo,29,\nTromso,46,48000\nOslo,38,75000\nBergen,62,39000\n"


def test_upload_small_csv(app_url, page, wait_for_app, screenshot):
    page.goto(f"{app_url}/your_data?unit=rho&budget_value=0.5")
    wait_for_app(page)
    expect(page.get_by_role("heading", name="Your data").first).to_be_visible(timeout=60_000)
    page.get_by_text("Upload a CSV file").click()
    wait_for_app(page)
    page.locator("input[type='file']").set_input_files(
        files=[{"name": "small.csv", "mimeType": "text/csv", "buffer": CSV}]
    )
    wait_for_app(page)
    expect(page.get_by_text("6 rows × 3 columns")).to_be_visible(timeout=60_000)
    expect(page.get_by_text("Drop the 1 rows with missing values")).to_be_visible(timeout=60_000)
    # no silent bounds: nothing runs until the user says where the ranges come from
    expect(page.get_by_text("Choose where the bounds come from").first).to_be_visible(
        timeout=60_000
    )
    page.get_by_text("Read them off the data (privacy leak)").click()
    wait_for_app(page)
    page.wait_for_function(
        "() => document.querySelectorAll('.js-plotly-plot').length >= 1", timeout=90_000
    )
    expect(page.get_by_text("Every estimator, 10 runs each").first).to_be_visible(timeout=60_000)
    assert page.locator("[data-testid='stException']").count() == 0
    path = screenshot(page, "your_data_upload")
    assert path.stat().st_size > 10_000


def test_release_then_remeasure(app_url, page, wait_for_app, screenshot):
    bounds = json.dumps({"age": [0, 100], "income": [0, 100000]}, separators=(",", ":"))
    page.goto(
        f"{app_url}/your_data?yd_run_mode=release&yd_source=upload&yd_bounds_mode_own=public"
        f"&unit=eps&budget_value=0.25&yd_bounds={bounds}"
    )
    wait_for_app(page)
    page.locator("input[type='file']").set_input_files(
        files=[
            {"name": "small.csv", "mimeType": "text/csv", "buffer": CSV.replace(b"Oslo,29,\n", b"")}
        ]
    )
    wait_for_app(page)
    page.get_by_text("The number of rows in this file is public").click()  # replace-one
    wait_for_app(page)
    page.get_by_role("button", name="Release the means").click()
    expect(page.get_by_text("Spent ε = 0.25").first).to_be_visible(timeout=60_000)
    page.get_by_role("button", name="Spend more and re-measure").click()
    expect(page.get_by_text("Spent ε = 0.5").first).to_be_visible(timeout=60_000)
    expect(page.get_by_text("ε = 0.25 + 0.25 = 0.5").first).to_be_visible(timeout=60_000)
    expect(page.get_by_text("release 2 of this series").first).to_be_visible(timeout=60_000)
    expect(page.get_by_text("Combined by inverse variance, the 2 releases").first).to_be_visible(
        timeout=60_000
    )
    assert page.locator("[data-testid='stException']").count() == 0
    screenshot(page, "your_data_remeasure")


#: A fresh browser at each size the lecture uses: (width, height, query, presenter scale or None)
FRESH = [(1920, 1080, "?present=1", 1.25), (1280, 720, "?present=1", 1.0), (375, 812, "", None)]


@pytest.mark.walk  # a heavier browser check: `make walk` (CI runs it)
@pytest.mark.parametrize(("width", "height", "query", "scale"), FRESH)
def test_a_fresh_browser_shows_the_bounds_and_the_chart(
    browser, app_url, width, height, query, scale
):
    """The bundled set's documented ranges fill every bound box on a first visit, and the chart is
    drawn, with no press of "Use these bounds" (a fresh browser was once seen with empty boxes and
    no chart, at 1920 x 1080 in presenter mode and on a phone: the window-size rerun comes during
    the first run)."""
    phone = width < 500
    ctx = browser.new_context(
        viewport={"width": width, "height": height}, has_touch=phone, is_mobile=phone
    )
    pg = ctx.new_page()
    try:
        pg.goto(f"{app_url}/your_data{query}", timeout=120_000)
        pg.wait_for_selector('[data-testid="stMain"] h1', timeout=120_000)
        if scale is not None:
            screen_heard(pg, scale)
        pg.wait_for_function(
            "() => document.querySelectorAll('[data-testid=\"stMain\"] .js-plotly-plot').length",
            timeout=120_000,
        )
        pg.wait_for_function(RUN_ENDED, timeout=120_000)
        values = pg.evaluate(
            """() => [...document.querySelectorAll('input[type=text]')]
              .filter(e => / bound$/.test(e.getAttribute('aria-label') || ''))
              .map(e => e.value)"""
        )
        assert len(values) >= 2 and all(v.strip() for v in values), values
        assert pg.get_by_text("no range is assumed for you").count() == 0
    finally:
        ctx.close()
