"""Home → the story behind it → Side by side, in presenter mode, in Debian's Chromium: the Home
picture and its link, the Compare story, then Side by side one screen at a time, stepped with the
arrow keys; and a phone-sized viewport (390 × 844) stacks the Home picture in one column."""

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser
WAIT = 180_000


def _ready(page) -> None:
    """Like the ``wait_for_app`` fixture, without waiting for the sidebar: presenter mode and a phone
    start with it collapsed."""
    page.wait_for_selector("[data-testid='stMain']", timeout=WAIT)
    page.wait_for_function(
        "() => !document.querySelector('[data-testid=\"stStatusWidget\"]')", timeout=WAIT
    )
    page.wait_for_timeout(500)


def test_home_story_side_by_side_in_presenter_mode(app_url, page, screenshot):
    page.set_viewport_size({"width": 1400, "height": 1000})
    page.goto(f"{app_url}/?present=1")
    _ready(page)
    main = page.locator("[data-testid='stMain']")
    expect(main.get_by_text("PLAN puts less noise where the data vary less")).to_be_visible(
        timeout=WAIT
    )
    page.wait_for_function(
        "() => document.querySelectorAll('.js-plotly-plot').length >= 2", timeout=WAIT
    )
    # presenter mode: large type, no downloads
    size = page.evaluate(
        "() => parseFloat(getComputedStyle(document.querySelector("
        "'[data-testid=\"stMarkdownContainer\"] p')).fontSize)"
    )
    assert size >= 20
    assert page.locator("[data-testid='stDownloadButton']:visible").count() == 0
    screenshot(page, "present_1_home")

    main.get_by_text("The story behind it").click()
    _ready(page)
    assert "preset=skew_favours_plan" in page.url and "present=1" in page.url
    expect(main.get_by_text("Compare estimators").first).to_be_visible(timeout=WAIT)
    page.wait_for_timeout(2000)  # the story's sweep may still be running on a busy machine
    screenshot(page, "present_2_story")

    page.goto(f"{app_url}/side_by_side?present=1&n=1000&d=16")
    _ready(page)
    expect(main.get_by_text("1 / 4")).to_be_visible(timeout=WAIT)
    page.wait_for_function(
        "() => document.querySelectorAll('.js-plotly-plot').length == 1", timeout=WAIT
    )
    screenshot(page, "present_3_side_by_side")
    page.keyboard.press("ArrowRight")
    expect(main.get_by_text("2 / 4")).to_be_visible(timeout=WAIT)
    page.keyboard.press("ArrowRight")
    expect(main.get_by_text("3 / 4")).to_be_visible(timeout=WAIT)
    _ready(page)
    page.wait_for_timeout(1000)
    path = screenshot(page, "present_4_plan_steps")
    assert path.stat().st_size > 30_000
    page.keyboard.press("ArrowLeft")
    expect(main.get_by_text("2 / 4")).to_be_visible(timeout=WAIT)


def test_home_picture_stacks_on_a_phone(app_url, page, screenshot):
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(app_url)
    _ready(page)
    page.wait_for_function(
        "() => document.querySelectorAll('.js-plotly-plot').length >= 2", timeout=WAIT
    )
    boxes = [page.locator(".js-plotly-plot").nth(k).bounding_box() for k in range(2)]
    assert (
        boxes[1]["y"] >= boxes[0]["y"] + boxes[0]["height"] - 1
    )  # one column: the second chart is below
    screenshot(page, "phone_home")


def test_clicking_a_point_of_the_compare_chart_opens_side_by_side_there(app_url, page, screenshot):
    page.set_viewport_size({"width": 1400, "height": 1000})
    page.goto(f"{app_url}/compare?n=500&d=4&cmp_reps=3")
    _ready(page)
    page.wait_for_function(
        "() => document.querySelectorAll('.js-plotly-plot .scatterlayer .trace .points path')"
        ".length > 3",
        timeout=WAIT,
    )
    chart = page.locator(".js-plotly-plot").first
    traces = chart.evaluate("gd => gd.data.map(t => [t.legendgroup, t.mode, t.x])")
    k = next(
        i for i, (g, mode, _) in enumerate(traces) if g == "iome_paper" and mode == "lines+markers"
    )
    budget = traces[k][2][1]  # the second budget of the sweep
    chart.locator(".scatterlayer .trace").nth(k).locator(".points path").nth(1).click(force=True)
    page.wait_for_url("**/side_by_side?**", timeout=WAIT)
    _ready(page)
    assert "estimator=iome_paper" in page.url and f"budget_value={budget:g}" in page.url
    main = page.locator("[data-testid='stMain']")
    expect(main.get_by_text("(from Compare)")).to_be_visible(timeout=WAIT)
    expect(main.get_by_text("Opened at IOME")).to_be_visible(timeout=WAIT)
    page.wait_for_function(
        "() => document.querySelectorAll('.js-plotly-plot .main-svg').length >= 1", timeout=WAIT
    )
    screenshot(page, "compare_click_to_side_by_side")
