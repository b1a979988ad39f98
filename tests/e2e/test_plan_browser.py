"""The "PLAN step by step" page in Debian's Chromium: the four panels render, the d-dimensional
clipping caveat is visible, and switching p to 1 reruns PLAN with its own exponent."""

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser
WAIT = 90_000


@pytest.mark.walk  # slow: run by `make walk` (CI runs it after make test)
def test_plan_page_renders_and_p_switch_works(
    app_url, page, wait_for_app, screenshot, charts_drawn
):
    page.set_viewport_size(
        {"width": 1400, "height": 5400}
    )  # Streamlit scrolls inside its own container
    page.goto(
        f"{app_url}/plan_step_by_step?distribution=gaussian&skew=2.0&n=2000&d=32&unit=rho&budget_value=0.5"
    )
    wait_for_app(page)
    page.wait_for_function(
        "() => document.querySelectorAll('.js-plotly-plot').length >= 5", timeout=WAIT
    )
    main = page.locator("[data-testid='stMain']")
    expect(main.get_by_text("PLAN step by step").first).to_be_visible(timeout=WAIT)
    expect(main.get_by_text("inside the drawn circle may still be clipped")).to_be_visible(
        timeout=WAIT
    )
    # the four panel titles are drawn by plotly (svg text)
    for title in ("(a) raw data", "(c) clipped to the"):  # panel titles wrap onto two lines
        expect(page.locator("svg text", has_text=title).first).to_be_visible(timeout=WAIT)
    expect(page.locator("svg text", has_text="PLAN (e = 1/4)").first).to_be_attached(timeout=WAIT)

    page.get_by_text("p = 1", exact=True).click()
    wait_for_app(page)
    expect(main.get_by_text("at PLAN's e = 1/3", exact=False)).to_be_visible(timeout=WAIT)
    page.wait_for_function(
        "() => document.querySelectorAll('.js-plotly-plot').length >= 5", timeout=WAIT
    )
    page.get_by_text("p = 2", exact=True).click()
    wait_for_app(page)
    expect(main.get_by_text("at PLAN's e = 1/4", exact=False)).to_be_visible(timeout=WAIT)
    charts_drawn(page, 5)
    path = screenshot(page, "plan_step_by_step")
    assert path.stat().st_size > 100_000
