"""The app as a user meets it: started as the README starts it, in Debian's Chromium."""

import re

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser
WAIT = 60_000


@pytest.mark.walk  # a heavier browser check: `make walk` (CI runs it)
def test_budget_change_updates_page_and_url(app_url, page, wait_for_app, screenshot):
    page.goto(f"{app_url}/privacy_budget?unit=rho&budget_value=0.5&n=2000&d=16")
    wait_for_app(page)
    metric = page.locator("[data-testid='stMetricValue']").first
    expect(metric).to_have_text("0.5", timeout=WAIT)

    box = page.get_by_label(re.compile("Exact ρ"))
    box.fill("2")
    box.press("Enter")
    expect(metric).to_have_text("2", timeout=WAIT)
    expect(page.get_by_text("Your budget: ρ = 2 (zCDP)")).to_be_visible(timeout=WAIT)
    wait_for_app(page)
    assert "budget_value=2.0" in page.url
    path = screenshot(page, "privacy_budget")
    assert path.stat().st_size > 10_000


def test_link_reopens_same_settings(app_url, page, wait_for_app, screenshot):
    page.goto(
        f"{app_url}/?distribution=student_t&skew=0.5&n=1234&d=8&unit=eps&budget_value=1.5&seed=7"
    )
    wait_for_app(page)
    expect(page.get_by_label("n (rows)")).to_have_value("1234", timeout=WAIT)
    expect(page.get_by_label("Seed")).to_have_value("7", timeout=WAIT)
    expect(page.get_by_text("1,234 rows × 8 columns, ε = 1.5")).to_be_visible(timeout=WAIT)
    screenshot(page, "home")
