"""The "Privacy audit" page in Debian's Chromium: both charts render with the bound next to the
claim, and the "Break it on purpose" toggle makes the audit catch the variant."""

import pytest

pytestmark = pytest.mark.browser


@pytest.mark.walk  # the heaviest browser checks (15-25 s each) run with `make walk`
def test_privacy_audit_page_catches_the_broken_variant(
    app_url, page, wait_for_app, screenshot, charts_drawn
):
    page.set_viewport_size(
        {"width": 1400, "height": 2600}
    )  # Streamlit scrolls inside its own container
    page.goto(f"{app_url}/privacy_audit?unit=eps&budget_value=1.0")
    wait_for_app(page, timeout=120_000)
    page.wait_for_function(
        "() => document.querySelectorAll('.js-plotly-plot').length >= 2", timeout=120_000
    )
    body = page.locator("[data-testid='stMain']").inner_text()
    assert "Privacy audit" in body
    assert "No violation found" in body
    screenshot(page, "privacy_audit")
    page.get_by_text("Break it on purpose").click()
    wait_for_app(page, timeout=120_000)
    page.wait_for_function("() => document.body.innerText.includes('Caught:')", timeout=120_000)
    charts_drawn(page, 2)
    path = screenshot(page, "privacy_audit_broken")
    assert path.stat().st_size > 30_000
