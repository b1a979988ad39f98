"""The Binary product page in a real browser: it renders its three charts and the win/lose words."""

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser


@pytest.mark.walk  # a heavier browser check: `make walk` (CI runs it)
def test_binary_product_page_renders(app_url, page, wait_for_app, screenshot):
    page.set_viewport_size({"width": 1400, "height": 4200})
    page.goto(f"{app_url}/binary_product?unit=eps&budget_value=1.0")
    wait_for_app(page)
    page.wait_for_function(
        "() => document.querySelectorAll('.js-plotly-plot').length >= 3", timeout=120_000
    )
    wait_for_app(page)
    main = page.locator("[data-testid='stMain']")
    # the words come after the charts: wait for them (under load the run may still be drawing)
    expect(main).to_contain_text("Naive Laplace wins when all", timeout=120_000)
    body = main.inner_text()
    assert "Binary product" in body
    assert "substitute" in body
    assert "PureDPPDE wins" in body
    path = screenshot(page, "binary_product")
    assert path.stat().st_size > 50_000
