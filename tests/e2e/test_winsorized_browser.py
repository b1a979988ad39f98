"""The Winsorized mean page in Debian's Chromium: it renders its four charts, and moving the
contamination slider (keyboard) changes the clipped mean shown."""

import pytest

pytestmark = pytest.mark.browser


@pytest.mark.walk  # a heavier browser check: `make walk` (CI runs it)
def test_winsorized_page_renders_and_reacts(app_url, page, wait_for_app, screenshot):
    page.goto(f"{app_url}/winsorized?n=2000&d=1&skew=0&unit=rho&budget_value=0.5")
    wait_for_app(page)
    page.wait_for_function(
        "() => document.querySelectorAll('.js-plotly-plot').length >= 4", timeout=90_000
    )
    assert page.get_by_role("heading", name="Winsorized mean").first.is_visible()
    metric = page.locator("[data-testid='stMetricValue']").nth(1)
    before = metric.inner_text()
    slider = (
        page.locator("[data-testid='stSlider']")
        .filter(has_text="Contamination")
        .get_by_role("slider")
    )
    slider.focus()
    for _ in range(5):
        slider.press("ArrowRight")
    wait_for_app(page)
    page.wait_for_function(
        "(b) => document.querySelectorAll('[data-testid=\"stMetricValue\"]')[1].innerText !== b",
        arg=before,
        timeout=60_000,
    )
    assert metric.inner_text() != before
    path = screenshot(page, "winsorized")
    assert path.stat().st_size > 10_000
