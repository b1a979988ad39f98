"""The Binary product page in a real browser: it renders its three charts and the win/lose words."""

import pytest

pytestmark = pytest.mark.browser


def test_binary_product_page_renders(app_url, page, wait_for_app, screenshot):
    page.set_viewport_size({"width": 1400, "height": 4200})
    page.goto(f"{app_url}/binary_product?unit=eps&budget_value=1.0")
    wait_for_app(page)
    page.wait_for_function(
        "() => document.querySelectorAll('.js-plotly-plot').length >= 3", timeout=120_000
    )
    wait_for_app(page)
    body = page.locator("[data-testid='stMain']").inner_text()
    assert "Binary product" in body
    assert "substitute" in body
    assert "PureDPPDE wins" in body
    assert "Naive Laplace wins when all" in body
    path = screenshot(page, "binary_product")
    assert path.stat().st_size > 50_000
