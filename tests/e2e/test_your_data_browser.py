"""The "Your data" page in Debian's Chromium: upload a small CSV with set_input_files, choose its
numeric columns, and see one private release per estimator (screenshot saved)."""

import pytest
from playwright.sync_api import expect

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
    # no silent bounds (issue 15): nothing runs until the user says where the ranges come from
    expect(page.get_by_text("Choose where the bounds come from").first).to_be_visible(
        timeout=60_000
    )
    page.get_by_text("Read them off the data (privacy leak)").click()
    wait_for_app(page)
    page.wait_for_function(
        "() => document.querySelectorAll('.js-plotly-plot').length >= 2", timeout=90_000
    )
    expect(page.get_by_text("One noisy draw cannot rank estimators").first).to_be_visible(
        timeout=60_000
    )
    assert page.locator("[data-testid='stException']").count() == 0
    path = screenshot(page, "your_data_upload")
    assert path.stat().st_size > 10_000
