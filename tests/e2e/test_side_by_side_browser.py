"""Home → the story behind it → Side by side, in presenter mode, in Debian's Chromium: the Home
picture and its link, the Compare story and PLAN's steps (a)→(d), then Side by side, one screen at
a time, stepped with the arrow keys; a click on a Compare point opens Side by side there; and a
phone-sized viewport (390 px) stacks the Home picture and PLAN's four panels in one column."""

import base64
import itertools
import math
import re

import numpy as np
import pytest
from playwright.sync_api import expect

from pages._spec import page as page_spec
from tests.e2e.conftest import WALK

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


def _values(v) -> list:
    """A trace's x or y as a list: a typed array arrives from the page as ``{dtype, bdata}``."""
    if isinstance(v, dict) and "bdata" in v:
        return np.frombuffer(base64.b64decode(v["bdata"]), dtype=np.dtype(v["dtype"])).tolist()
    return list(v)


def _keys_ready(page) -> None:
    """Wait until the presenter-mode key handler (a same-origin frame's script) is in the page."""
    page.wait_for_function("() => window.__dpmeanKeys === true", timeout=WAIT)


def _press_until(page, target, key: str = "ArrowRight", tries: int = 3) -> None:
    """Press ``key`` until ``target`` shows. On a loaded machine the first key press after a page
    change was sometimes lost (seen at PLAN's first step after the Compare story, not reproduced on
    a fresh page); a presenter presses again, and so does this test, at most ``tries`` times. A
    second press never skips a step: it is only sent while ``target`` is still not shown."""
    for _ in range(tries - 1):
        page.keyboard.press(key)
        try:
            expect(target).to_be_visible(timeout=20_000)
            return
        except AssertionError:
            _ready(page)
    page.keyboard.press(key)
    expect(target).to_be_visible(timeout=WAIT)


@pytest.mark.skipif(not WALK, reason="run by `make fit`")
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
    page.wait_for_url("**preset=skew_favours_plan**", timeout=WAIT)
    _ready(page)
    assert "preset=skew_favours_plan" in page.url and "present=1" in page.url
    expect(main.get_by_text("Compare estimators").first).to_be_visible(timeout=WAIT)
    # the Compare story one idea per screen, stepped with the arrow keys
    expect(main.get_by_text("1 / 5 · The story")).to_be_visible(timeout=WAIT)
    # step on once the story's sweep is done (its chart is on the page, hidden on this screen):
    # a rerun in the middle of a sweep leaves the next run waiting on the pool (a known issue)
    # (its chart waits on the next screen for the class's prediction)
    expect(main.get_by_text("The story holds")).to_be_visible(timeout=WAIT)
    screenshot(page, "present_2_story")
    _keys_ready(page)
    page.keyboard.press("ArrowRight")
    expect(main.get_by_text("2 / 5 · The chart")).to_be_visible(timeout=WAIT)
    _ready(page)
    main.get_by_role("button", name="Reveal the answer").click()  # predict, then reveal
    expect(main.get_by_text("The run says")).to_be_visible(timeout=WAIT)
    page.wait_for_function(
        "() => Array.from(document.querySelectorAll('.js-plotly-plot'))"
        ".some(g => g.offsetParent !== null && g.querySelector('.scatterlayer .trace'))",
        timeout=WAIT,
    )
    # one idea per screen: the ranking is on the page but not on this screen
    assert not main.get_by_text("Ranking by regret").is_visible()
    screenshot(page, "present_2b_story_chart")
    page.keyboard.press("ArrowRight")
    expect(main.get_by_text("3 / 5 · The ranking")).to_be_visible(timeout=WAIT)
    # the slide's heading is its bar; the ranking's box and table are on screen
    expect(main.get_by_text("What this means for your organisation")).to_be_visible(timeout=WAIT)
    screenshot(page, "present_2c_story_ranking")

    # PLAN step by step: steps (a) to (d), one panel per screen
    page.goto(f"{app_url}/plan_step_by_step?present=1&n=1000&d=8")
    _ready(page)
    expect(main.get_by_text("1 / 8 · (a)")).to_be_visible(timeout=WAIT)
    _keys_ready(page)
    for k, step in enumerate(page_spec("pages/plan_step_by_step.py").steps[1:4]):
        _press_until(page, main.get_by_text(f"{k + 2} / 8 · {step}"))
    _ready(page)
    page.wait_for_function(
        "() => Array.from(document.querySelectorAll('.js-plotly-plot'))"
        ".filter(g => g.offsetParent !== null).length == 1",
        timeout=WAIT,
    )
    expect(main.locator(".js-plotly-plot .gtitle", has_text="(d) back")).to_be_visible()
    screenshot(page, "present_2d_plan_step_d")

    page.goto(f"{app_url}/side_by_side?present=1&n=1000&d=16")
    _ready(page)
    expect(main.get_by_text("1 / 4")).to_be_visible(timeout=WAIT)
    page.wait_for_function(  # the gallery (one figure per estimator) and nothing else
        "() => { const n = document.querySelectorAll('.js-plotly-plot').length;"
        " return n >= 3 && n == document.querySelectorAll("
        "\"[class*='st-key-chart-side-by-side-'] .js-plotly-plot\").length; }",
        timeout=WAIT,
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


@pytest.mark.skipif(not WALK, reason="run by `make fit`")
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
    traces = [
        [group, mode, _values(x), _values(y)]
        for group, mode, x, y in chart.evaluate(
            "gd => gd.data.map(t => [t.legendgroup, t.mode, t.x || [], t.y || []])"
        )
    ]
    lines = [i for i, t in enumerate(traces) if t[1] == "lines+markers"]
    k = next(i for i in lines if traces[i][0] == "iome_paper")

    def gap(j: int) -> float:  # how far IOME's point j is from every other line's point there
        x, y = traces[k][2][j], traces[k][3][j]
        return min(
            abs(math.log(y / t[3][t[2].index(x)]))
            for i, t in ((i, traces[i]) for i in lines if i != k)
            if x in t[2] and t[3][t[2].index(x)]
        )

    j = max(range(len(traces[k][2])), key=gap)  # the point no other marker covers
    budget = traces[k][2][j]
    chart.locator(".scatterlayer .trace").nth(k).locator(".points path").nth(j).click(force=True)
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


@pytest.mark.parametrize(("width", "per_row"), [(390, 1), (1400, 2)])
@pytest.mark.walk  # a heavier browser check: `make walk` (CI runs it)
def test_plan_steps_stack_one_panel_per_row_on_a_phone(app_url, page, screenshot, width, per_row):
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(f"{app_url}/plan_step_by_step?n=1000&d=8")
    _ready(page)
    panels = page.locator(".js-plotly-plot").filter(
        has=page.locator(".gtitle", has_text=re.compile(r"^\([abcd]\) "))
    )
    expect(panels.nth(3)).to_be_attached(timeout=WAIT)
    # the phone's window probe reruns the page narrow: a panel redrawn in that rerun has no box
    # for a moment, so read the boxes once all four are laid out
    boxes: list = [None]
    for _ in range(60):
        boxes = [panels.nth(k).bounding_box() for k in range(4)]
        if all(boxes):
            break
        page.wait_for_timeout(250)
    assert all(boxes), "a PLAN step panel was never laid out"
    rows = len({round(b["y"]) for b in boxes})
    assert rows == 4 // per_row, boxes
    assert all(b["width"] <= width for b in boxes)
    panels.nth(0).scroll_into_view_if_needed()
    screenshot(page, f"plan_steps_{width}px")


@pytest.mark.parametrize(("width", "stacked"), [(375, True), (1400, False)])
@pytest.mark.walk  # a heavier browser check: `make walk` (CI runs it)
def test_side_by_side_gallery_is_one_figure_per_estimator_stacked_on_a_phone(
    app_url, page, screenshot, width, stacked
):
    """Each estimator's region and noise are a figure of their own: in one row on a laptop, one
    under the other at the screen's width on a phone (the grid of 4 x 2 panels was 375 px wide)."""
    page.set_viewport_size({"width": width, "height": 812})
    page.goto(f"{app_url}/side_by_side")
    _ready(page)
    parts = page.locator("[class*='st-key-chart-side-by-side-'] .js-plotly-plot")
    expect(parts.nth(2).locator(".main-svg").first).to_be_attached(timeout=WAIT)
    parts.first.scroll_into_view_if_needed()
    page.wait_for_timeout(500)
    boxes = [parts.nth(k).bounding_box() for k in range(parts.count())]
    assert len(boxes) >= 3, boxes  # one per default estimator
    for a, b in itertools.pairwise(boxes):
        if stacked:  # one under the other, each nearly the screen's width
            assert b["y"] >= a["y"] + a["height"] - 1, (a, b)
        else:  # one row, side by side
            assert abs(b["y"] - a["y"]) < 2 and b["x"] >= a["x"] + a["width"] - 1, (a, b)
    assert all(b["x"] >= 0 and b["x"] + b["width"] <= width for b in boxes), boxes
    if stacked:
        assert all(b["width"] >= 0.8 * width for b in boxes), boxes
        titles = page.locator(".dp-phone-title").all_inner_texts()  # the estimator above its figure
        assert sum(t in ("PLAN", "IOME", "Gaussian mechanism") for t in titles) >= 3, titles
    screenshot(page, f"side_by_side_gallery_{width}px")
