"""The "Free lunch (simplex)" page in Debian's Chromium: charts render, caveats visible, a widget works."""

import pytest

pytestmark = pytest.mark.browser


@pytest.mark.walk  # a heavier browser check: `make walk` (CI runs it)
def test_simplex_page_renders(app_url, page, wait_for_app, screenshot, charts_drawn):
    page.set_viewport_size(
        {"width": 1400, "height": 6500}
    )  # Streamlit scrolls inside its own container
    page.goto(f"{app_url}/simplex?unit=rho&budget_value=0.5&n=2000")
    wait_for_app(page)
    page.wait_for_function(
        "() => document.querySelectorAll('.js-plotly-plot').length >= 6", timeout=90_000
    )
    body = page.locator("[data-testid='stMain']").inner_text()
    assert "Free lunch (simplex)" in body
    assert "identical in distribution" in body
    assert "Known n, one column" in body
    page.get_by_text("replace-one (n public)").click()
    wait_for_app(page)
    page.wait_for_function(
        "() => document.body.innerText.includes('n known (replace-one)')", timeout=60_000
    )
    page.get_by_text("add/remove (n private)").click()
    wait_for_app(page)
    page.wait_for_function(
        "() => document.querySelectorAll('.js-plotly-plot').length >= 6", timeout=90_000
    )
    charts_drawn(page, 6)
    path = screenshot(page, "simplex")
    assert path.stat().st_size > 50_000
